/* test_drv_managed.c: __managed__ variables (`.global .attribute(.managed)`
 * in PTX, what nvcc emits for them) load, are found by cuModuleGetGlobal
 * and cuLibraryGetManaged, are read and written by the host through their
 * device address and by a kernel; an unknown variable attribute is a PTX
 * error. */
#define CUDA_ENABLE_DEPRECATED 1
#include <cuda.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static int failures;
#define EXPECT(cond) do { if (!(cond)) { \
    printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond); failures++; } } while (0)
#define OK(call) do { CUresult r_ = (call); if (r_ != CUDA_SUCCESS) { \
    printf("FAIL %s:%d: %s -> %d\n", __FILE__, __LINE__, #call, (int)r_); \
    return 1; } } while (0)

/* mv[tid] = mv[tid] * 3 + add  (mv is __managed__) */
static const char ptx[] =
    ".version 8.0\n.target sm_75\n.address_size 64\n"
    ".global .attribute(.managed) .align 4 .b8 mv[256];\n"
    ".global .align 4 .b8 plain[16];\n"
    ".visible .entry k(.param .u32 add)\n{\n"
    "    .reg .b32 %r<6>;\n    .reg .b64 %rd<5>;\n"
    "    ld.param.u32 %r1, [add];\n    mov.u32 %r2, %tid.x;\n"
    "    mov.u64 %rd1, mv;\n    mul.wide.u32 %rd2, %r2, 4;\n    add.s64 %rd3, %rd1, %rd2;\n"
    "    ld.global.u32 %r3, [%rd3];\n    mad.lo.s32 %r4, %r3, 3, %r1;\n"
    "    st.global.u32 [%rd3], %r4;\n    ret;\n}\n";

static const char bad_ptx[] =
    ".version 8.0\n.target sm_75\n.address_size 64\n"
    ".global .attribute(.bogus) .align 4 .u32 v;\n";

int main(void)
{
    CUdevice dev;
    CUcontext ctx;
    CUmodule mod;
    CUfunction fn;
    CUdeviceptr dptr = 0;
    size_t size = 0;
    OK(cuInit(0));
    OK(cuDeviceGet(&dev, 0));
    OK(cuDevicePrimaryCtxRetain(&ctx, dev));
    OK(cuCtxSetCurrent(ctx));
    OK(cuModuleLoadData(&mod, ptx));
    OK(cuModuleGetFunction(&fn, mod, "k"));
    OK(cuModuleGetGlobal(&dptr, &size, mod, "mv"));
    EXPECT(size == 256);
    /* the host uses the variable's address directly, as with managed memory */
    uint32_t *host = (uint32_t *)(uintptr_t)dptr;
    for (uint32_t i = 0; i < 64; i++)
        host[i] = i * 7 + 5;
    uint32_t add = 11;
    void *args[] = { &add };
    OK(cuLaunchKernel(fn, 1, 1, 1, 64, 1, 1, 0, NULL, args, NULL));
    OK(cuCtxSynchronize());
    for (uint32_t i = 0; i < 64; i++)
        if (host[i] != (i * 7 + 5) * 3 + 11) {
            printf("FAIL mv[%u] = %u, want %u\n", i, host[i], (i * 7 + 5) * 3 + 11);
            failures++;
            break;
        }

    CUlibrary lib;
    OK(cuLibraryLoadData(&lib, ptx, NULL, NULL, 0, NULL, NULL, 0));
    CUdeviceptr lp = 0;
    size_t lsize = 0;
    EXPECT(cuLibraryGetManaged(&lp, &lsize, lib, "mv") == CUDA_SUCCESS);
    EXPECT(lp != 0 && lsize == 256);
    OK(cuLibraryUnload(lib));

    CUmodule bad = NULL;
    EXPECT(cuModuleLoadData(&bad, bad_ptx) != CUDA_SUCCESS);
    OK(cuModuleUnload(mod));
    cuDevicePrimaryCtxRelease(dev);
    printf("%s drv_managed\n", failures ? "FAIL" : "PASS");
    return failures != 0;
}
