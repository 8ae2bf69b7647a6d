/* drv_saxpy.h: runs a compiled saxpy-shaped kernel (float a, const float
 * *x, float *y, int n) from an image and checks y = a x + y + extra on
 * poisoned output: the NVRTC and nvJitLink tests' common check. Include
 * after drv_test.h. */
#ifndef DRV_SAXPY_H
#define DRV_SAXPY_H

#include <string.h>

#define DRV_SAXPY_N 1000

static void drv_run_saxpy(const void *img, const char *name, float extra, const char *what)
{
    enum { N = DRV_SAXPY_N };   /* elements */
    CUmodule mod;
    CUfunction fn;
    EXPECT_RC(cuModuleLoadData(&mod, img), CUDA_SUCCESS);
    EXPECT_RC(cuModuleGetFunction(&fn, mod, name), CUDA_SUCCESS);
    static float hx[N], hy[N], got[N];
    for (int i = 0; i < N; i++) {
        hx[i] = (float)i * 0.5f;
        hy[i] = (float)(N - i);
    }
    CUdeviceptr dx, dy;
    OK(cuMemAlloc(&dx, sizeof hx));
    OK(cuMemAlloc(&dy, sizeof hy));
    OK(cuMemcpyHtoD(dx, hx, sizeof hx));
    OK(cuMemcpyHtoD(dy, hy, sizeof hy));
    float a = 3.0f;
    int n = N;
    void *args[] = {&a, &dx, &dy, &n};
    OK(cuLaunchKernel(fn, (N + 127) / 128, 1, 1, 128, 1, 1, 0, NULL, args, NULL));
    OK(cuCtxSynchronize());
    memset(got, 0xff, sizeof got);  /* poison: NaN */
    OK(cuMemcpyDtoH(got, dy, sizeof got));
    for (int i = 0; i < N; i++) {
        float want = a * hx[i] + hy[i] + extra;
        if (got[i] != want) {
            printf("FAIL %s: y[%d] = %g, want %g\n", what, i, got[i], want);
            drv_failures++;
            break;
        }
    }
    OK(cuMemFree(dx));
    OK(cuMemFree(dy));
    OK(cuModuleUnload(mod));
}

#endif
