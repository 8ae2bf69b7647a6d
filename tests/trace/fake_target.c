/* fake_target.c: a stand-in target driver for test_trace_forward.c, with
 * answers the test can predict: the tracer must forward arguments (in
 * registers and on the stack) and results unchanged. */
#include <stdint.h>
#include <string.h>

#define API __attribute__((visibility("default")))

/* Unknown to the tracer's signature table: reached through a trampoline.
 * Ten integer arguments (four on the stack) and two doubles. */
API int cuFakeSum(int64_t a, int64_t b, int64_t c, int64_t d, int64_t e, int64_t f,
                  int64_t g, int64_t h, double x, int64_t i, double y, int64_t j)
{
    return 100000 + (int)(a + 2 * b + 3 * c + 4 * d + 5 * e + 6 * f + 7 * g + 8 * h + 9 * i + 10 * j +
                 (int64_t)(x * 100) + (int64_t)(y * 1000));
}

/* In the table (S1(cuInit, none, X)): reached through the typed wrapper. */
API int cuInit(unsigned flags) { return (int)flags + 7; }

/* S3(cuDeviceGetAttribute, none, OI, I, I) */
API int cuDeviceGetAttribute(int *v, int attr, int dev)
{
    *v = attr * 10 + dev;
    return 0;
}

/* S3(cuLaunchHostFunc, none, H, P, P): runs fn at once, so that calls the
 * function makes into the driver are nested inside this one. */
API int cuLaunchHostFunc(void *stream, void (*fn)(void *), void *user)
{
    fn(user);
    return 0;
}

API int cuGetProcAddress_v2(const char *name, void **pfn, int ver, uint64_t flags, int *status)
{
    void *fn = !strcmp(name, "cuFakeSum") ? (void *)cuFakeSum
             : !strcmp(name, "cuInit") ? (void *)cuInit
             : !strcmp(name, "cuDeviceGetAttribute") ? (void *)cuDeviceGetAttribute : NULL;
    *pfn = fn;
    if (status)
        *status = fn ? 0 : 1;
    return fn ? 0 : 500;    /* CUDA_ERROR_NOT_FOUND */
}
