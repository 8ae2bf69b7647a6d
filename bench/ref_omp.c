/* ref_omp.c: the saxpy and block-reduction benchmarks in plain C with
 * OpenMP, on the same sizes and block shape as saxpy.cu and reduce.cu, as
 * the native-CPU baseline Zinc is compared against. */
#include <math.h>
#include <stdlib.h>
#include "bench_common.h"

static void saxpy(long n, float a, const float *restrict x, float *restrict y)
{
#pragma omp parallel for simd schedule(static)
    for (long i = 0; i < n; i++)
        y[i] = a * x[i] + y[i];
}

/* One partial sum per 256-element block, as the CUDA kernel writes. */
static void block_sum(long n, const float *restrict in, float *restrict partial)
{
    long blocks = (n + BENCH_THREADS - 1) / BENCH_THREADS;
#pragma omp parallel for schedule(static)
    for (long b = 0; b < blocks; b++) {
        float s = 0.0f;
        long end = (b + 1) * BENCH_THREADS < n ? (b + 1) * BENCH_THREADS : n;
#pragma omp simd reduction(+ : s)
        for (long i = b * BENCH_THREADS; i < end; i++)
            s += in[i];
        partial[b] = s;
    }
}

int main(void)
{
    const long n = BENCH_N;
    const long blocks = (n + BENCH_THREADS - 1) / BENCH_THREADS;
    float *x = malloc(n * sizeof(float)), *y = malloc(n * sizeof(float));
    float *part = malloc(blocks * sizeof(float));
    if (!x || !y || !part)
        return 1;
    for (long i = 0; i < n; i++) {
        x[i] = (float)(i % 100);
        y[i] = 1.0f;
    }
    saxpy(n, 0.0f, x, y);   /* warm-up: threads started, pages touched */
    double t0 = bench_now_ms();
    for (int r = 0; r < BENCH_REPS; r++)
        saxpy(n, 0.5f, x, y);
    double ms = (bench_now_ms() - t0) / BENCH_REPS;
    float want = 1.0f + BENCH_REPS * 0.5f * 99.0f;
    if (fabsf(y[99] - want) > 1e-3f * want) {
        fprintf(stderr, "FAIL saxpy: y[99] = %g, want %g\n", y[99], want);
        return 1;
    }
    bench_report("saxpy", n, ms, 3.0 * n * sizeof(float));

    for (long i = 0; i < n; i++)
        x[i] = (float)(i % 7) - 3.0f;
    block_sum(n, x, part);
    t0 = bench_now_ms();
    for (int r = 0; r < BENCH_REPS; r++)
        block_sum(n, x, part);
    ms = (bench_now_ms() - t0) / BENCH_REPS;
    double got = 0, wsum = 0;
    for (long b = 0; b < blocks; b++)
        got += part[b];
    for (long i = 0; i < n; i++)
        wsum += x[i];
    if (fabs(got - wsum) > 1e-3 * (1.0 + fabs(wsum))) {
        fprintf(stderr, "FAIL reduce: %g, want %g\n", got, wsum);
        return 1;
    }
    bench_report("reduce", n, ms, (double)n * sizeof(float) + blocks * sizeof(float));
    free(x); free(y); free(part);
    return 0;
}
