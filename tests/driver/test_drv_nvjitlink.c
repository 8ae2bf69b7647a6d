/* test_drv_nvjitlink.c: link-time optimisation's path on Zinc, as CUDA's
 * jitLto sample takes it. Two NVRTC programs compiled with -dlto (a kernel
 * and the extern device function it calls, -rdc) give their LTO IR; Zinc's
 * libnvJitLink links them (-lto -arch=sm_XX) into a "cubin" that
 * cuModuleLoadData loads, and the kernel's results are checked against the
 * CPU on poisoned output. The same LTO IR through the driver's linker
 * (cuLinkAddData with CU_JIT_INPUT_NVVM) too. Misuse: no -arch, an unknown
 * option, bytes that are not Zinc's LTO IR, a cubin, results asked for
 * before nvJitLinkComplete, an unresolved function at completion. */
#include <cuda.h>
#include <nvJitLink.h>
#include <nvrtc.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drv_test.h"
#include "drv_saxpy.h"


static const char kernel_src[] =
    "extern __device__ float compute(float a, float x, float y);\n"
    "extern \"C\" __global__ void saxpy(float a, const float *x, float *y, int n)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n)\n"
    "        y[i] = compute(a, x[i], y[i]);\n"
    "}\n";

static const char compute_src[] =
    "__device__ float compute(float a, float x, float y) { return a * x + y + 0.25f; }\n";

#define NV_OK(call) do { nvrtcResult r_ = (call); if (r_ != NVRTC_SUCCESS) { \
    printf("FAIL %s:%d: %s -> %s\n", __FILE__, __LINE__, #call, nvrtcGetErrorString(r_)); \
    drv_failures++; } } while (0)

#define JL_OK(call) do { nvJitLinkResult r_ = (call); if (r_ != NVJITLINK_SUCCESS) { \
    printf("FAIL %s:%d: %s -> nvJitLinkResult %d\n", __FILE__, __LINE__, #call, (int)r_); \
    drv_failures++; } } while (0)

/* src compiled with -dlto -rdc for arch: its LTO IR (malloc'd), NULL on failure */
static char *lto_ir(const char *src, const char *name, const char *arch, size_t *size)
{
    nvrtcProgram p;
    NV_OK(nvrtcCreateProgram(&p, src, name, 0, NULL, NULL));
    const char *opts[] = {arch, "-dlto", "-rdc=true"};
    nvrtcResult r = nvrtcCompileProgram(p, 3, opts);
    if (r != NVRTC_SUCCESS) {
        char log[4096] = "";
        size_t n = 0;
        nvrtcGetProgramLogSize(p, &n);
        if (n < sizeof log)
            nvrtcGetProgramLog(p, log);
        printf("FAIL compile %s: %s\n", name, log);
        drv_failures++;
        nvrtcDestroyProgram(&p);
        return NULL;
    }
    *size = 0;
    NV_OK(nvrtcGetLTOIRSize(p, size));
    char *ir = *size ? malloc(*size) : NULL;
    if (ir)
        NV_OK(nvrtcGetLTOIR(p, ir));
    NV_OK(nvrtcDestroyProgram(&p));
    EXPECT(ir != NULL);
    return ir;
}

static bool log_has(nvJitLinkHandle h, const char *want)
{
    size_t n = 0;
    char log[4096] = "";
    if (nvJitLinkGetErrorLogSize(h, &n) != NVJITLINK_SUCCESS || n > sizeof log ||
        nvJitLinkGetErrorLog(h, log) != NVJITLINK_SUCCESS)
        return false;
    if (!strstr(log, want)) {
        printf("error log '%s' lacks '%s'\n", log, want);
        return false;
    }
    return true;
}

static void misuse(const char *arch_opt, const char *ir, size_t ir_size)
{
    nvJitLinkHandle h = NULL;
    const char *none[] = {"-lto"};
    EXPECT(nvJitLinkCreate(&h, 1, none) == NVJITLINK_ERROR_MISSING_ARCH && h == NULL);
    const char *bad[] = {arch_opt, "-no-such-option"};
    EXPECT(nvJitLinkCreate(&h, 2, bad) == NVJITLINK_ERROR_UNRECOGNIZED_OPTION && h == NULL);
    const char *badarch[] = {"-arch=sm_zz"};
    EXPECT(nvJitLinkCreate(&h, 1, badarch) == NVJITLINK_ERROR_UNRECOGNIZED_ARCH);

    const char *good[] = {"-lto", arch_opt};
    JL_OK(nvJitLinkCreate(&h, 2, good));
    /* NVVM bitcode's magic, as NVIDIA's compilers write LTO IR */
    static const unsigned char bitcode[16] = {'B', 'C', 0xc0, 0xde, 0x35, 0x14};
    EXPECT(nvJitLinkAddData(h, NVJITLINK_INPUT_LTOIR, bitcode, sizeof bitcode, "nv.ltoir") ==
           NVJITLINK_ERROR_INVALID_INPUT);
    EXPECT(log_has(h, "nv.ltoir: LTO IR from NVIDIA's compilers"));
    static unsigned char cubin[64] = {0x7f, 'E', 'L', 'F', 2, 1, 1};
    cubin[18] = 190;    /* EM_CUDA */
    EXPECT(nvJitLinkAddData(h, NVJITLINK_INPUT_ANY, cubin, sizeof cubin, "k.cubin") ==
           NVJITLINK_ERROR_INVALID_INPUT);
    EXPECT(log_has(h, "k.cubin: a cubin is machine code"));
    size_t sz = 1;
    EXPECT(nvJitLinkGetLinkedCubinSize(h, &sz) != NVJITLINK_SUCCESS);   /* not complete */
    EXPECT(nvJitLinkComplete(h) != NVJITLINK_SUCCESS);                  /* nothing added */
    /* the kernel alone: compute() stays unresolved */
    JL_OK(nvJitLinkAddData(h, NVJITLINK_INPUT_LTOIR, ir, ir_size, "kernel"));
    EXPECT(nvJitLinkComplete(h) == NVJITLINK_ERROR_FINALIZE);
    EXPECT(log_has(h, "compute"));
    JL_OK(nvJitLinkDestroy(&h));
    EXPECT(h == NULL);
    EXPECT(nvJitLinkDestroy(&h) != NVJITLINK_SUCCESS);
}

int main(void)
{
    CUdevice dev = drv_test_primary_ctx(NULL);
    int major = 0, minor = 0;
    OK(cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev));
    OK(cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev));
    char arch[32];  /* the device's real architecture, as jitLto asks for both */
    snprintf(arch, sizeof arch, "-arch=sm_%d%d", major, minor);

    size_t nk = 0, nc = 0;
    char *ik = lto_ir(kernel_src, "saxpy.cu", arch, &nk);
    char *ic = lto_ir(compute_src, "compute.cu", arch, &nc);
    if (ik && ic) {
        unsigned jmaj = 0, jmin = 0;
        JL_OK(nvJitLinkVersion(&jmaj, &jmin));
        EXPECT(jmaj == 13);

        nvJitLinkHandle h;
        const char *lopts[] = {"-lto", arch};
        JL_OK(nvJitLinkCreate(&h, 2, lopts));
        JL_OK(nvJitLinkAddData(h, NVJITLINK_INPUT_LTOIR, ik, nk, "lto_saxpy"));
        JL_OK(nvJitLinkAddData(h, NVJITLINK_INPUT_LTOIR, ic, nc, "lto_compute"));
        JL_OK(nvJitLinkComplete(h));
        size_t n = 0;
        JL_OK(nvJitLinkGetLinkedCubinSize(h, &n));
        char *cubin = n ? malloc(n) : NULL;
        EXPECT(cubin != NULL);
        if (cubin) {
            JL_OK(nvJitLinkGetLinkedCubin(h, cubin));
            drv_run_saxpy(cubin, "saxpy", 0.25f, "nvJitLink");
        }
        free(cubin);
        JL_OK(nvJitLinkDestroy(&h));

        /* the driver's JIT linker takes the same LTO IR */
        CUlinkState ls;
        OK(cuLinkCreate(0, NULL, NULL, &ls));
        OK(cuLinkAddData(ls, CU_JIT_INPUT_NVVM, ic, nc, "compute", 0, NULL, NULL));
        OK(cuLinkAddData(ls, CU_JIT_INPUT_NVVM, ik, nk, "saxpy", 0, NULL, NULL));
        void *out = NULL;
        size_t outn = 0;
        OK(cuLinkComplete(ls, &out, &outn));
        if (out)
            drv_run_saxpy(out, "saxpy", 0.25f, "cuLink NVVM");
        static const unsigned char bitcode[8] = {'B', 'C', 0xc0, 0xde};
        EXPECT_RC(cuLinkAddData(ls, CU_JIT_INPUT_NVVM, (void *)bitcode, sizeof bitcode, "nv", 0,
                                NULL, NULL), CUDA_ERROR_INVALID_VALUE);   /* after complete */
        OK(cuLinkDestroy(ls));
        OK(cuLinkCreate(0, NULL, NULL, &ls));
        EXPECT_RC(cuLinkAddData(ls, CU_JIT_INPUT_NVVM, (void *)bitcode, sizeof bitcode, "nv", 0,
                                NULL, NULL), CUDA_ERROR_NOT_SUPPORTED);
        OK(cuLinkDestroy(ls));

        misuse(arch, ik, nk);
    }
    free(ik);
    free(ic);
    OK(cuDevicePrimaryCtxRelease(dev));
    return drv_test_end("drv_nvjitlink");
}
