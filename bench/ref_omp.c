/* ref_omp.c: reduce.cu's block reduction in plain C with OpenMP, on the
 * same size, data and block shape, as its native-CPU baseline (reduce.cu
 * keeps its own main; the other benchmarks link ref_suite.c instead). */
#include <math.h>
#include <stdlib.h>
#include "bench_common.h"

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
    float *x = malloc(n * sizeof(float));
    float *part = malloc(blocks * sizeof(float));
    if (!x || !part)
        return 1;
    for (long i = 0; i < n; i++)
        x[i] = (float)(i % 7) - 3.0f;
    block_sum(n, x, part);   /* warm-up: threads started, pages touched */
    double t0 = bench_now_ms();
    for (int r = 0; r < BENCH_REPS; r++)
        block_sum(n, x, part);
    double ms = (bench_now_ms() - t0) / BENCH_REPS;
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
    free(x); free(part);
    return 0;
}
