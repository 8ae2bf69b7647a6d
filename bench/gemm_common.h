/* gemm_common.h: what the GEMM benchmarks share (gemm.cu through Zinc's
 * cuBLAS, ref_gemm.c through OpenBLAS directly): the sizes, the input
 * pattern, the repetition count and the median, so both time the same work.
 * Result line: BENCH <s|d>gemm_<n> n=<n> ms=<median ms> flops=<2 n^3> */
#ifndef GEMM_COMMON_H
#define GEMM_COMMON_H

#include <stdlib.h>
#include <string.h>
#include "bench_common.h"

/* 4096 only with ZINC_BENCH_4096=1: on two cores it takes minutes; 64
 * only with ZINC_BENCH_TINY=1. */
static inline int gemm_sizes(int *out)
{
    static const int base[] = { 256, 512, 1024, 2048 };
    int k = 0;
    if (bench_tiny()) {   /* ZINC_BENCH_TINY=1: the result checks only */
        out[0] = 64;
        return 1;
    }
    for (unsigned i = 0; i < sizeof base / sizeof base[0]; i++)
        out[k++] = base[i];
    const char *e = getenv("ZINC_BENCH_4096");
    if (e && e[0] == '1')
        out[k++] = 4096;
    return k;
}

/* Repetitions after the warm-up: more for the quick sizes (at most
 * GEMM_MAX_REPS). */
#define GEMM_MAX_REPS 41
static inline int gemm_reps(int n)
{
    return n <= 256 ? 41 : n <= 512 ? 21 : n <= 1024 ? 9 : 5;
}

/* Deterministic small inputs, exactly representable in float. */
static inline double gemm_input(long i, int which)
{
    return (double)((i * (which ? 7 : 3) + which) % 17 - 8) / 8.0;
}

static int gemm_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static inline double gemm_median(double *ms, int n)
{
    qsort(ms, n, sizeof *ms, gemm_cmp);
    return n % 2 ? ms[n / 2] : 0.5 * (ms[n / 2 - 1] + ms[n / 2]);
}

/* C[i + j n] of A B for the inputs above, computed naively for one entry
 * (the spot check that the timed GEMM really ran). */
static inline double gemm_entry(int n, int i, int j)
{
    double s = 0;
    for (int p = 0; p < n; p++)
        s += gemm_input(i + (long)p * n, 0) * gemm_input(p + (long)j * n, 1);
    return s;
}

static inline void gemm_report(char t, int n, double ms)
{
    printf("BENCH %cgemm_%d n=%d ms=%.4f flops=%.0f\n", t, n, n, ms, 2.0 * n * n * (double)n);
}

#endif
