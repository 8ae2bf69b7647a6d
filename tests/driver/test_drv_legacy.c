/* test_drv_legacy: driver exports beyond what CUDA 13's runtime asks for,
 * as a program linked with -lcuda (or a loader that looks every name up,
 * like cuda-samples' matrixMulDynlinkJIT) reaches them:
 * - CUDA 1-3's execution control: cuFuncSetBlockShape, cuFuncSetSharedSize,
 *   cuParamSetSize/i/f/v, cuLaunch, cuLaunchGrid, cuLaunchGridAsync (a
 *   kernel's output checked element by element, the buffer's misuse);
 * - the first forms of calls whose successor kept the signature
 *   (cuCtxCreate/Destroy/PushCurrent/PopCurrent, cuStreamDestroy,
 *   cuEventDestroy, cuMemHostRegister) and the 32-bit forms, which fail;
 * - 1D copies between arrays and host or device memory (cuMemcpyHtoA & co,
 *   bounds included);
 * - CUDA 11-12 calls: cuFuncLoad/IsLoaded (lazy loading), cuKernelGetLibrary,
 *   cuModuleEnumerateFunctions, cuStreamGetCtx_v2, cuStreamGetGreenCtx,
 *   cuPointerSetAttribute, execution affinity, the multi-device
 *   cooperative launch.
 * The legacy names are looked up with dlsym: cuda.h maps them to their
 * successors and marks the execution control deprecated. */
#include "drv_test.h"

#include <cudaTypedefs.h>
#include <dlfcn.h>
#include <stdint.h>
#include <string.h>

#define N 150
#define POISON 0xdeadbeefu

static void *sym(const char *name)
{
    void *p = dlsym(RTLD_DEFAULT, name);
    if (!p) {
        printf("FAIL: %s is not exported\n", name);
        drv_failures++;
    }
    return p;
}

#define SYM(name, ver) ((PFN_##name##_v##ver)sym(#name))

/* out[i] == i * 3 + v for i < n, POISON after */
static void check_fill(const uint32_t *out, unsigned n, unsigned total, uint32_t v,
                       const char *what)
{
    for (unsigned i = 0; i < total; i++) {
        uint32_t want = i < n ? i * 3 + v : POISON;
        if (out[i] != want) {
            printf("FAIL %s: out[%u] = %#x, want %#x\n", what, i, out[i], want);
            drv_failures++;
            return;
        }
    }
}

static void poison(CUdeviceptr d, unsigned total)
{
    OK(cuMemsetD32(d, POISON, total));
}

static void legacy_launch(CUmodule mod)
{
    PFN_cuFuncSetBlockShape_v2000 set_shape = SYM(cuFuncSetBlockShape, 2000);
    PFN_cuFuncSetSharedSize_v2000 set_shared = SYM(cuFuncSetSharedSize, 2000);
    PFN_cuParamSetSize_v2000 set_size = SYM(cuParamSetSize, 2000);
    PFN_cuParamSeti_v2000 seti = SYM(cuParamSeti, 2000);
    PFN_cuParamSetf_v2000 setf = SYM(cuParamSetf, 2000);
    PFN_cuParamSetv_v2000 setv = SYM(cuParamSetv, 2000);
    PFN_cuLaunch_v2000 launch = SYM(cuLaunch, 2000);
    PFN_cuLaunchGrid_v2000 grid = SYM(cuLaunchGrid, 2000);
    PFN_cuLaunchGridAsync_v2000 grid_async = SYM(cuLaunchGridAsync, 2000);
    if (!set_shape || !set_shared || !set_size || !seti || !setf || !setv || !launch ||
        !grid || !grid_async)
        return;
    CUfunction f;
    OK(cuModuleGetFunction(&f, mod, "fill"));
    const unsigned total = 256;
    CUdeviceptr d;
    OK(cuMemAlloc(&d, total * 4));
    uint32_t out[256];

    /* no block shape yet: nothing to launch */
    EXPECT_RC(grid(f, 1, 1), CUDA_ERROR_INVALID_VALUE);
    /* fill(out @0, n @8, v @12): 16 bytes, laid out by the caller */
    OK(setv(f, 0, &d, sizeof d));
    OK(seti(f, 8, N));
    OK(seti(f, 12, 7));
    OK(set_size(f, 16));
    OK(set_shape(f, 64, 1, 1));
    OK(set_shared(f, 0));
    poison(d, total);
    OK(grid(f, 3, 1));          /* 192 threads for 150 elements */
    OK(cuCtxSynchronize());
    OK(cuMemcpyDtoH(out, d, sizeof out));
    check_fill(out, N, total, 7, "cuLaunchGrid");

    /* cuLaunch: one block; cuParamSetf writes the 4 bytes of a float */
    float v;
    uint32_t bits = 11;
    memcpy(&v, &bits, 4);
    OK(setf(f, 12, v));
    poison(d, total);
    OK(launch(f));
    OK(cuCtxSynchronize());
    OK(cuMemcpyDtoH(out, d, sizeof out));
    check_fill(out, 64, total, 11, "cuLaunch");
    /* n caps it too: with n 40 only 40 are written */
    OK(seti(f, 8, 40));
    poison(d, total);
    OK(launch(f));
    OK(cuCtxSynchronize());
    OK(cuMemcpyDtoH(out, d, sizeof out));
    check_fill(out, 40, total, 11, "cuLaunch n=40");

    /* cuLaunchGridAsync on a stream: a 2D grid (the kernel uses x only, so
     * the two rows write the same elements) */
    CUstream s;
    OK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    OK(seti(f, 8, N));
    OK(seti(f, 12, 3));
    poison(d, total);
    OK(grid_async(f, 3, 2, s));
    /* the launch took its own copy of the buffer */
    OK(seti(f, 12, 99));
    OK(cuStreamSynchronize(s));
    OK(cuMemcpyDtoH(out, d, sizeof out));
    check_fill(out, N, total, 3, "cuLaunchGridAsync");
    OK(cuStreamDestroy(s));

    /* misuse */
    EXPECT_RC(setv(f, 4090, &d, 8), CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(seti(f, -4, 1), CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(setv(f, 0, NULL, 8), CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(set_size(f, 4097), CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(set_shape(f, 0, 1, 1), CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(set_shape(NULL, 1, 1, 1), CUDA_ERROR_INVALID_HANDLE);
    EXPECT_RC(grid(NULL, 1, 1), CUDA_ERROR_INVALID_HANDLE);
    EXPECT_RC(grid(f, 0, 1), CUDA_ERROR_INVALID_VALUE);
    OK(set_shape(f, 2048, 1, 1));
    EXPECT_RC(grid(f, 1, 1), CUDA_ERROR_INVALID_VALUE);     /* over 1024 threads */
    OK(set_shape(f, 64, 1, 1));
    OK(set_size(f, 8));         /* shorter than the kernel's 16 bytes */
    EXPECT_RC(grid(f, 1, 1), CUDA_ERROR_INVALID_VALUE);
    OK(cuMemFree(d));
}

/* First forms with the same signature as their successors (cudaTypedefs.h
 * declares only the successors' types); the 32-bit forms are exported and
 * refuse. */
static void first_forms(CUdevice dev)
{
    PFN_cuCtxCreate_v3020 create = (PFN_cuCtxCreate_v3020)sym("cuCtxCreate");
    PFN_cuCtxDestroy_v4000 destroy = (PFN_cuCtxDestroy_v4000)sym("cuCtxDestroy");
    PFN_cuCtxPushCurrent_v4000 push = (PFN_cuCtxPushCurrent_v4000)sym("cuCtxPushCurrent");
    PFN_cuCtxPopCurrent_v4000 pop = (PFN_cuCtxPopCurrent_v4000)sym("cuCtxPopCurrent");
    PFN_cuStreamDestroy_v4000 sdestroy = (PFN_cuStreamDestroy_v4000)sym("cuStreamDestroy");
    PFN_cuEventDestroy_v4000 edestroy = (PFN_cuEventDestroy_v4000)sym("cuEventDestroy");
    PFN_cuMemHostRegister_v6050 reg = (PFN_cuMemHostRegister_v6050)sym("cuMemHostRegister");
    if (!create || !destroy || !push || !pop || !sdestroy || !edestroy || !reg)
        return;
    CUcontext prev, c = NULL, got = NULL;
    OK(cuCtxGetCurrent(&prev));
    OK(create(&c, 0, dev));
    EXPECT(c && c != prev);
    OK(cuCtxGetCurrent(&got));
    EXPECT(got == c);
    OK(pop(&got));
    EXPECT(got == c);
    OK(push(c));
    CUstream s;
    CUevent e;
    OK(cuStreamCreate(&s, 0));
    OK(cuEventCreate(&e, 0));
    OK(sdestroy(s));
    OK(edestroy(e));
    EXPECT_RC(cuStreamQuery(s), CUDA_ERROR_INVALID_HANDLE);
    OK(destroy(c));
    EXPECT_RC(cuCtxPushCurrent(c), CUDA_ERROR_INVALID_CONTEXT);
    OK(cuCtxSetCurrent(prev));
    static uint32_t page[1024] __attribute__((aligned(4096)));
    OK(reg(page, sizeof page, 0));
    unsigned flags = 99;
    OK(cuMemHostGetFlags(&flags, page));
    OK(cuMemHostUnregister(page));

    /* CUDA 3.1's 32-bit device pointers and sizes: exported, refused, and
     * not the 64-bit form */
    const char *narrow[] = { "cuMemAlloc", "cuMemFree", "cuMemcpyHtoD", "cuMemsetD32",
                             "cuDeviceTotalMem", "cuModuleGetGlobal", "cuMemGetInfo" };
    for (size_t i = 0; i < sizeof narrow / sizeof narrow[0]; i++) {
        char v2[64];
        snprintf(v2, sizeof v2, "%s_v2", narrow[i]);
        CUresult (*fn)(void *, void *, void *) = (CUresult (*)(void *, void *, void *))sym(narrow[i]);
        EXPECT(fn && (void *)fn != sym(v2));
        if (fn)
            EXPECT_RC(fn(NULL, NULL, NULL), CUDA_ERROR_NOT_SUPPORTED);
    }
    /* texture references: no module can have one */
    CUresult (*texref)(void *) = (CUresult (*)(void *))sym("cuTexRefCreate");
    if (texref) {
        void *ref = NULL;
        EXPECT_RC(texref(&ref), CUDA_ERROR_NOT_SUPPORTED);
    }
}

/* 1D copies between a CUDA array (one row of 64 u32) and host or device
 * memory at byte offsets. */
static void array_copies(void)
{
    CUDA_ARRAY_DESCRIPTOR ad = { 64, 0, CU_AD_FORMAT_UNSIGNED_INT32, 1 };
    CUarray a, b;
    OK(cuArrayCreate(&a, &ad));
    OK(cuArrayCreate(&b, &ad));
    uint32_t src[64], back[64], zero[64] = { 0 };
    for (int i = 0; i < 64; i++)
        src[i] = 0x1000u + (uint32_t)i;
    OK(cuMemcpyHtoA(a, 0, zero, sizeof zero));
    OK(cuMemcpyHtoA(a, 16, src, 40 * 4));          /* elements 4..43 */
    memset(back, 0xee, sizeof back);
    OK(cuMemcpyAtoH(back, a, 0, sizeof back));
    for (int i = 0; i < 64; i++) {
        uint32_t want = i >= 4 && i < 44 ? src[i - 4] : 0;
        if (back[i] != want) {
            printf("FAIL HtoA/AtoH: element %d = %#x, want %#x\n", i, back[i], want);
            drv_failures++;
            break;
        }
    }
    /* array -> array at other offsets, then array -> device -> array */
    OK(cuMemcpyHtoA(b, 0, zero, sizeof zero));
    OK(cuMemcpyAtoA(b, 8, a, 16, 10 * 4));         /* a[4..13] -> b[2..11] */
    CUdeviceptr d;
    OK(cuMemAlloc(&d, 256));
    OK(cuMemsetD32(d, POISON, 64));
    OK(cuMemcpyAtoD(d, b, 0, 16 * 4));
    uint32_t dv[64];
    OK(cuMemcpyDtoH(dv, d, sizeof dv));
    for (int i = 0; i < 64; i++) {
        uint32_t want = i < 2 ? 0 : i < 12 ? src[i - 2] : i < 16 ? 0 : POISON;
        if (dv[i] != want) {
            printf("FAIL AtoA/AtoD: element %d = %#x, want %#x\n", i, dv[i], want);
            drv_failures++;
            break;
        }
    }
    OK(cuMemcpyHtoD(d, src, sizeof src));
    OK(cuMemcpyDtoA(b, 4, d, 63 * 4));             /* the last 63 elements */
    CUstream s;
    OK(cuStreamCreate(&s, 0));
    memset(back, 0xee, sizeof back);
    OK(cuMemcpyAtoHAsync(back, b, 4, 63 * 4, s));
    OK(cuStreamSynchronize(s));
    EXPECT(!memcmp(back, src, 63 * 4) && back[63] == 0xeeeeeeeeu);
    OK(cuMemcpyHtoAAsync(a, 252, &src[9], 4, s));  /* the last element */
    OK(cuStreamSynchronize(s));
    uint32_t last = 0;
    OK(cuMemcpyAtoH(&last, a, 252, 4));
    EXPECT(last == src[9]);
    OK(cuStreamDestroy(s));
    /* past the row's end, unknown arrays */
    EXPECT_RC(cuMemcpyHtoA(a, 252, src, 8), CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(cuMemcpyAtoH(back, a, 256, 4), CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(cuMemcpyAtoA(b, 0, a, 4, 256), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemcpyAtoH(back, (CUarray)back, 0, 4) != CUDA_SUCCESS);
    OK(cuMemFree(d));
    OK(cuArrayDestroy(a));
    OK(cuArrayDestroy(b));
}

static void newer_calls(CUdevice dev, CUcontext ctx, CUmodule mod)
{
    /* lazy loading: not compiled until launched or loaded */
    static const char two_ptx[] =
        DRV_PTX_HEAD
        ".visible .entry one(.param .u64 p) { ret; }\n"
        ".visible .entry two(.param .u64 p) { ret; }\n";
    CUmodule m2;
    OK(cuModuleLoadData(&m2, two_ptx));
    unsigned count = 0;
    OK(cuModuleGetFunctionCount(&count, m2));
    EXPECT(count == 2);
    CUfunction fns[3] = { NULL, NULL, NULL };
    OK(cuModuleEnumerateFunctions(fns, 3, m2));
    EXPECT(fns[0] && fns[1] && fns[0] != fns[1] && !fns[2]);
    CUfunction one = NULL;
    OK(cuModuleEnumerateFunctions(&one, 1, m2));   /* at most 1 */
    EXPECT(one == fns[0]);
    const char *n0 = NULL, *n1 = NULL;
    OK(cuFuncGetName(&n0, fns[0]));
    OK(cuFuncGetName(&n1, fns[1]));
    EXPECT(n0 && n1 && ((!strcmp(n0, "one") && !strcmp(n1, "two")) ||
                        (!strcmp(n0, "two") && !strcmp(n1, "one"))));
    EXPECT_RC(cuModuleEnumerateFunctions(NULL, 2, m2), CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(cuModuleEnumerateFunctions(fns, 2, NULL), CUDA_ERROR_INVALID_HANDLE);
    int lazy = 0;
    OK(cuModuleGetLoadingMode((CUmoduleLoadingMode *)&lazy));
    CUfunctionLoadingState st = (CUfunctionLoadingState)-1;
    OK(cuFuncIsLoaded(&st, fns[0]));
    EXPECT(st == (lazy == CU_MODULE_LAZY_LOADING ? CU_FUNCTION_LOADING_STATE_UNLOADED
                                                 : CU_FUNCTION_LOADING_STATE_LOADED));
    OK(cuFuncLoad(fns[0]));
    OK(cuFuncIsLoaded(&st, fns[0]));
    EXPECT(st == CU_FUNCTION_LOADING_STATE_LOADED);
    CUdeviceptr dummy = 0;
    void *args[] = { &dummy };
    OK(cuLaunchKernel(fns[1], 1, 1, 1, 32, 1, 1, 0, NULL, args, NULL));
    OK(cuCtxSynchronize());
    OK(cuFuncIsLoaded(&st, fns[1]));
    EXPECT(st == CU_FUNCTION_LOADING_STATE_LOADED);
    EXPECT_RC(cuFuncIsLoaded(NULL, fns[0]), CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(cuFuncIsLoaded(&st, NULL), CUDA_ERROR_INVALID_HANDLE);
    EXPECT_RC(cuFuncLoad(NULL), CUDA_ERROR_INVALID_HANDLE);
    OK(cuModuleUnload(m2));
    EXPECT_RC(cuFuncLoad(fns[0]), CUDA_ERROR_INVALID_HANDLE);

    /* a kernel's library */
    CUlibrary lib, got = NULL;
    OK(cuLibraryLoadData(&lib, drv_fill_ptx, NULL, NULL, 0, NULL, NULL, 0));
    CUkernel k;
    OK(cuLibraryGetKernel(&k, lib, "fill"));
    OK(cuKernelGetLibrary(&got, k));
    EXPECT(got == lib);
    CUfunction mf;
    OK(cuModuleGetFunction(&mf, mod, "fill"));
    EXPECT_RC(cuKernelGetLibrary(&got, (CUkernel)mf), CUDA_ERROR_INVALID_HANDLE);
    EXPECT_RC(cuKernelGetLibrary(NULL, k), CUDA_ERROR_INVALID_VALUE);
    OK(cuLibraryUnload(lib));
    EXPECT_RC(cuKernelGetLibrary(&got, k), CUDA_ERROR_INVALID_HANDLE);

    /* streams: never in a green context */
    CUstream s;
    OK(cuStreamCreate(&s, 0));
    CUcontext sc = NULL;
    CUgreenCtx g = (CUgreenCtx)&sc;
    OK(cuStreamGetCtx_v2(s, &sc, &g));
    EXPECT(sc == ctx && g == NULL);
    g = (CUgreenCtx)&sc;
    OK(cuStreamGetGreenCtx(s, &g));
    EXPECT(g == NULL);
    EXPECT_RC(cuStreamGetCtx_v2(s, &sc, NULL), CUDA_ERROR_INVALID_VALUE);
    OK(cuStreamDestroy(s));
    EXPECT_RC(cuStreamGetGreenCtx(s, &g), CUDA_ERROR_INVALID_HANDLE);

    /* SYNC_MEMOPS: 1 holds on any memory; 0 is refused; nothing else is
     * settable */
    CUdeviceptr d;
    OK(cuMemAlloc(&d, 64));
    int one_v = 1, zero_v = 0, got_v = -1;
    OK(cuPointerSetAttribute(&one_v, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, d));
    OK(cuPointerGetAttribute(&got_v, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, d));
    EXPECT(got_v == 1);
    EXPECT_RC(cuPointerSetAttribute(&zero_v, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, d),
              CUDA_ERROR_NOT_SUPPORTED);
    EXPECT_RC(cuPointerSetAttribute(&one_v, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, d),
              CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(cuPointerSetAttribute(&one_v, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS,
                                    (CUdeviceptr)(uintptr_t)&got_v), CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(cuPointerSetAttribute(NULL, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, d),
              CUDA_ERROR_INVALID_VALUE);
    OK(cuMemFree(d));

    /* execution affinity: not supported, and contexts asking for it fail */
    int sup = -1;
    OK(cuDeviceGetExecAffinitySupport(&sup, CU_EXEC_AFFINITY_TYPE_SM_COUNT, dev));
    EXPECT(sup == 0);
    EXPECT_RC(cuDeviceGetExecAffinitySupport(&sup, CU_EXEC_AFFINITY_TYPE_SM_COUNT, 1),
              CUDA_ERROR_INVALID_DEVICE);
    CUexecAffinityParam ap = { CU_EXEC_AFFINITY_TYPE_SM_COUNT, { { 1 } } };
    EXPECT_RC(cuCtxGetExecAffinity(&ap, CU_EXEC_AFFINITY_TYPE_SM_COUNT),
              CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY);
    PFN_cuCtxCreate_v11040 cuCtxCreate_v3 = (PFN_cuCtxCreate_v11040)sym("cuCtxCreate_v3");
    if (!cuCtxCreate_v3)
        return;
    CUcontext c3 = NULL;
    EXPECT_RC(cuCtxCreate_v3(&c3, &ap, 1, 0, dev), CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY);
    EXPECT_RC(cuCtxCreate_v3(&c3, NULL, 1, 0, dev), CUDA_ERROR_INVALID_VALUE);
    OK(cuCtxCreate_v3(&c3, NULL, 0, 0, dev));
    EXPECT(c3 && c3 != ctx);
    OK(cuCtxDestroy(c3));
    OK(cuCtxSetCurrent(ctx));

    /* the multi-device cooperative launch on one device (deprecated in
     * cuda.h) */
    PFN_cuLaunchCooperativeKernelMultiDevice_v9000 coop_multi =
        SYM(cuLaunchCooperativeKernelMultiDevice, 9000);
    if (!coop_multi)
        return;
    CUfunction f;
    OK(cuModuleGetFunction(&f, mod, "fill"));
    OK(cuMemAlloc(&d, 256 * 4));
    poison(d, 256);
    unsigned n = N, v = 5;
    void *fargs[] = { &d, &n, &v };
    CUDA_LAUNCH_PARAMS lp = { f, 2, 1, 1, 128, 1, 1, 0, NULL, fargs };
    OK(coop_multi(&lp, 1, 0));
    OK(cuCtxSynchronize());
    uint32_t out[256];
    OK(cuMemcpyDtoH(out, d, sizeof out));
    check_fill(out, N, 256, 5, "cuLaunchCooperativeKernelMultiDevice");
    EXPECT_RC(coop_multi(&lp, 2, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(coop_multi(&lp, 1, 4), CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(coop_multi(NULL, 1, 0), CUDA_ERROR_INVALID_VALUE);
    OK(cuMemFree(d));
}

int main(void)
{
    CUcontext ctx;
    CUdevice dev = drv_test_primary_ctx(&ctx);
    CUmodule mod;
    OK(cuModuleLoadData(&mod, drv_fill_ptx));
    legacy_launch(mod);
    first_forms(dev);
    array_copies();
    newer_calls(dev, ctx, mod);
    OK(cuModuleUnload(mod));
    OK(cuDevicePrimaryCtxRelease(dev));
    return drv_test_end("drv_legacy");
}
