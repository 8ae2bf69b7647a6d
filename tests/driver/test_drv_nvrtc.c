/* test_drv_nvrtc.c: NVRTC through Zinc's libnvrtc. A program compiled for
 * a real architecture (--gpu-architecture=sm_90, as CUDA's samples and
 * PyTorch's JIT ask) gives a "cubin" that cuModuleLoadData loads and runs:
 * a templated saxpy found through its name expression, checked against
 * the CPU on poisoned output; the same with "-arch" "sm_75" as two
 * options. A program compiled for compute_75 gives PTX as before, and no
 * cubin (NVIDIA's answer passes through). A program with a syntax error
 * fails to compile with a log that names the line. */
#include <cuda.h>
#include <nvrtc.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "drv_test.h"
#include "drv_saxpy.h"


static const char src[] =
    "template <typename T>\n"
    "__global__ void saxpy(T a, const T *x, T *y, int n)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n)\n"
    "        y[i] = a * x[i] + y[i] + (T)__CUDA_ARCH__;\n"
    "}\n";

#define NV_OK(call) do { nvrtcResult r_ = (call); if (r_ != NVRTC_SUCCESS) { \
    printf("FAIL %s:%d: %s -> %s\n", __FILE__, __LINE__, #call, nvrtcGetErrorString(r_)); \
    drv_failures++; } } while (0)

/* compiles src with opts; the image (cubin or PTX) and the lowered name of
 * saxpy<float>; NULL image on failure */
static char *compile(const char *const *opts, int nopts, bool cubin, char *lowered, size_t cap)
{
    nvrtcProgram p;
    NV_OK(nvrtcCreateProgram(&p, src, "saxpy.cu", 0, NULL, NULL));
    NV_OK(nvrtcAddNameExpression(p, "saxpy<float>"));
    nvrtcResult r = nvrtcCompileProgram(p, nopts, opts);
    if (r != NVRTC_SUCCESS) {
        size_t n = 0;
        nvrtcGetProgramLogSize(p, &n);
        char log[4096] = "";
        if (n < sizeof log)
            nvrtcGetProgramLog(p, log);
        printf("FAIL compile (%s): %s\n", opts[0], log);
        drv_failures++;
        nvrtcDestroyProgram(&p);
        return NULL;
    }
    const char *name = NULL;
    NV_OK(nvrtcGetLoweredName(p, "saxpy<float>", &name));
    snprintf(lowered, cap, "%s", name ? name : "");
    size_t n = 0;
    char *img = NULL;
    if (cubin) {
        NV_OK(nvrtcGetCUBINSize(p, &n));
        img = n ? malloc(n) : NULL;
        if (img)
            NV_OK(nvrtcGetCUBIN(p, img));
    } else {
        NV_OK(nvrtcGetPTXSize(p, &n));
        img = n ? malloc(n) : NULL;
        if (img)
            NV_OK(nvrtcGetPTX(p, img));
        size_t cn = 0;
        EXPECT(nvrtcGetCUBINSize(p, &cn) != NVRTC_SUCCESS || cn == 0);   /* PTX only */
    }
    NV_OK(nvrtcDestroyProgram(&p));
    EXPECT(img != NULL);
    return img;
}

int main(void)
{
    CUdevice dev = drv_test_primary_ctx(NULL);
    char lowered[256];

    const char *sm90[] = {"--gpu-architecture=sm_90", "-std=c++17"};
    char *img = compile(sm90, 2, true, lowered, sizeof lowered);
    if (img)
        drv_run_saxpy(img, lowered, 900.0f, "sm_90 cubin");
    free(img);

    const char *sm75[] = {"-arch", "sm_75"};
    img = compile(sm75, 2, true, lowered, sizeof lowered);
    if (img)
        drv_run_saxpy(img, lowered, 750.0f, "sm_75 cubin");
    free(img);

    const char *c75[] = {"--gpu-architecture=compute_75"};
    img = compile(c75, 1, false, lowered, sizeof lowered);
    if (img)
        drv_run_saxpy(img, lowered, 750.0f, "compute_75 PTX");
    free(img);

    nvrtcProgram p;
    NV_OK(nvrtcCreateProgram(&p, "__global__ void k() { int x = ; }\n", "bad.cu", 0, NULL, NULL));
    EXPECT(nvrtcCompileProgram(p, 1, sm90) == NVRTC_ERROR_COMPILATION);
    size_t n = 0;
    NV_OK(nvrtcGetProgramLogSize(p, &n));
    char log[4096] = "";
    if (n < sizeof log)
        NV_OK(nvrtcGetProgramLog(p, log));
    EXPECT(strstr(log, "bad.cu(1)") != NULL);
    NV_OK(nvrtcDestroyProgram(&p));

    OK(cuDevicePrimaryCtxRelease(dev));
    return drv_test_end("drv_nvrtc");
}
