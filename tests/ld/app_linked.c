/* app_linked.c: an "nvcc-built app" linked against libcuda.so.1, its
 * RPATH or RUNPATH naming NVIDIA's folder. Prints which driver answered
 * (its marker) and where libm came from: "cuda=N libm=PATH". */
#define _GNU_SOURCE   /* dladdr */
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>

int cuDriverGetVersion(int *v);

int main(void)
{
    int v = -1;
    cuDriverGetVersion(&v);
    /* libm is linked too: it must load from where it always does. */
    Dl_info info = { 0 };
    double (*volatile fn)(double) = cos;
    if (!dladdr((void *)fn, &info) || !info.dli_fname)
        info.dli_fname = "?";
    printf("cuda=%d libm=%s cos0=%g\n", v, info.dli_fname, fn(0.0));
    return 0;
}
