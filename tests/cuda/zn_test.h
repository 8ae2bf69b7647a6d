/* zn_test.h: helpers shared by the CUDA test programs.
 *
 * Every CUDA call goes through CK(), which prints the call, its file:line
 * and the error, then exits nonzero. Mismatches go through zt_fail(), which
 * prints the first few and counts all of them; zt_finish() prints the
 * PASS/FAIL line and gives main's return value.
 */
#ifndef ZN_TEST_H
#define ZN_TEST_H

#include <cuda_runtime.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CK(call)                                                             \
    do {                                                                     \
        cudaError_t ck_e_ = (call);                                          \
        if (ck_e_ != cudaSuccess) {                                          \
            fprintf(stderr, "FAIL %s:%d: %s -> %s (%d)\n", __FILE__,         \
                    __LINE__, #call, cudaGetErrorString(ck_e_), (int)ck_e_); \
            exit(1);                                                         \
        }                                                                    \
    } while (0)

/* After a <<<>>> launch: the launch error, then the kernel's own error. */
#define CK_LAUNCH()                        \
    do {                                   \
        CK(cudaGetLastError());            \
        CK(cudaDeviceSynchronize());       \
    } while (0)

static long zt_failures;
static const char *zt_name = "test";

static inline void zt_begin(const char *name)
{
    zt_name = name;
    setvbuf(stdout, NULL, _IOLBF, 0);
}

/* Records one mismatch; prints only the first 10 so logs stay readable. */
static inline void zt_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline void zt_fail(const char *fmt, ...)
{
    if (zt_failures++ < 10) {
        va_list ap;
        va_start(ap, fmt);
        printf("  mismatch: ");
        vprintf(fmt, ap);
        printf("\n");
        va_end(ap);
    }
}

static inline int zt_finish(void)
{
    if (zt_failures) {
        printf("FAIL %s: %ld mismatches\n", zt_name, zt_failures);
        return 1;
    }
    printf("PASS %s\n", zt_name);
    return 0;
}

/* Deterministic pseudo-random numbers (xorshift64*), same on every run. */
static uint64_t zt_rng_state = 0x9E3779B97F4A7C15ull;
static inline uint32_t zt_rand(void)
{
    zt_rng_state ^= zt_rng_state >> 12;
    zt_rng_state ^= zt_rng_state << 25;
    zt_rng_state ^= zt_rng_state >> 27;
    return (uint32_t)((zt_rng_state * 0x2545F4914F6CDD1Dull) >> 32);
}
static inline uint64_t zt_rand64(void) { return ((uint64_t)zt_rand() << 32) | zt_rand(); }
/* Uniform in [lo, hi). */
static inline float zt_randf(float lo, float hi) { return lo + (hi - lo) * (float)(zt_rand() >> 8) / 16777216.0f; }

static inline uint32_t zt_f2u(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static inline float zt_u2f(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static inline uint64_t zt_d2u(double d) { uint64_t u; memcpy(&u, &d, 8); return u; }
static inline double zt_u2d(uint64_t u) { double d; memcpy(&d, &u, 8); return d; }

/* Poison a device buffer so stale results can never pass. */
#define POISON(ptr, bytes) CK(cudaMemset((ptr), 0xFF, (bytes)))

#endif
