/* blas_test.h: helpers of the nvcc-built BLAS tests: checks, bf16, and
 * the proof that the loaded libraries are Zinc's. */
#ifndef BLAS_TEST_H
#define BLAS_TEST_H

#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int g_fail, g_checks;

#define CHECK(cond, ...)                                   \
    do {                                                   \
        g_checks++;                                        \
        if (!(cond)) {                                     \
            g_fail++;                                      \
            printf("FAIL %s:%d: ", __FILE__, __LINE__);    \
            printf(__VA_ARGS__);                           \
            printf("\n");                                  \
        }                                                  \
    } while (0)

#define CUDA_OK(x) CHECK((x) == cudaSuccess, "%s -> %s", #x, cudaGetErrorString(x))
#define STATUS_OK(x) do { int st_ = (int)(x); CHECK(st_ == 0, "%s -> status %d", #x, st_); } while (0)

/* A device copy of n host bytes (NULL, a failed check, on error). */
static inline void *dev_upload(const void *host, size_t n)
{
    void *d = NULL;
    CUDA_OK(cudaMalloc(&d, n));
    if (d)
        CUDA_OK(cudaMemcpy(d, host, n, cudaMemcpyHostToDevice));
    return d;
}

static inline float bf16_to_f(unsigned short h)
{
    unsigned u = (unsigned)h << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static inline unsigned short f_to_bf16(float f)
{
    unsigned u;
    memcpy(&u, &f, 4);
    return (unsigned short)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

static inline float frand1(void)
{
    return (float)rand() / (float)RAND_MAX * 2.0f - 1.0f;
}

/* Normwise relative error ||got - ref|| / ||ref||. */
static inline double rel_err(const float *got, const double *ref, size_t n)
{
    double num = 0, den = 0;
    for (size_t i = 0; i < n; i++) {
        double d = (double)got[i] - ref[i];
        num += d * d;
        den += ref[i] * ref[i];
    }
    return sqrt(num) / (den > 0 ? sqrt(den) : 1.0);
}

/* The mapping of `lib` in this process must come from ZN_EXPECT_LIB_DIR
 * (Zinc's build/lib), unless ZINC_EXPECT_NVIDIA is set. */
static inline void check_loaded_from_zinc(const char *lib)
{
    if (getenv("ZINC_EXPECT_NVIDIA"))
        return;
    const char *dir = getenv("ZN_EXPECT_LIB_DIR");
    FILE *f = fopen("/proc/self/maps", "r");
    char line[4096], found[4096] = "";
    while (f && fgets(line, sizeof line, f)) {
        char *p = strchr(line, '/');
        if (p && strstr(p, lib)) {
            p[strcspn(p, "\n")] = 0;
            snprintf(found, sizeof found, "%s", p);
            break;
        }
    }
    if (f)
        fclose(f);
    CHECK(found[0], "%s is not mapped", lib);
    if (found[0] && dir) {
        char real[4096];
        const char *d = realpath(dir, real) ? real : dir;
        CHECK(strncmp(found, d, strlen(d)) == 0, "%s loaded from %s, not from %s", lib, found, d);
    }
}

static inline int finish(const char *name)
{
    printf("%s %s: %d checks, %d failures\n", g_fail ? "FAIL" : "PASS", name, g_checks, g_fail);
    return g_fail != 0;
}

#endif
