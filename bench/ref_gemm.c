/* ref_gemm.c: the GEMM benchmark of gemm.cu with OpenBLAS called directly
 * (cblas_sgemm / cblas_dgemm, column-major), same sizes, inputs, warm-up
 * and median: the native baseline Zinc's cuBLAS is compared against. */
#include <cblas.h>
#include <math.h>
#include "gemm_common.h"

#define DEF_BENCH(T, t)                                                                      \
    static int bench_##t(int n)                                                              \
    {                                                                                        \
        size_t cnt = (size_t)n * n;                                                          \
        T *a = malloc(cnt * sizeof(T)), *b = malloc(cnt * sizeof(T)), *c = malloc(cnt * sizeof(T)); \
        if (!a || !b || !c)                                                                  \
            return 1;                                                                        \
        for (size_t i = 0; i < cnt; i++) {                                                   \
            a[i] = (T)gemm_input((long)i, 0);                                                \
            b[i] = (T)gemm_input((long)i, 1);                                                \
        }                                                                                    \
        cblas_##t##gemm(CblasColMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1, a, n, b, n,   \
                        0, c, n);                                                            \
        int reps = gemm_reps(n);                                                             \
        double ms[GEMM_MAX_REPS];                                                                       \
        for (int r = 0; r < reps; r++) {                                                     \
            double t0 = bench_now_ms();                                                      \
            cblas_##t##gemm(CblasColMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1, a, n, b,  \
                            n, 0, c, n);                                                     \
            ms[r] = bench_now_ms() - t0;                                                     \
        }                                                                                    \
        double want = gemm_entry(n, n - 1, n / 3), got = c[(n - 1) + (size_t)(n / 3) * n];   \
        int bad = fabs(got - want) > 1e-4 * (1.0 + fabs(want));                             \
        if (bad)                                                                             \
            fprintf(stderr, "FAIL " #t "gemm_%d: %g, want %g\n", n, got, want);              \
        else                                                                                 \
            gemm_report(#t[0], n, gemm_median(ms, reps));                                    \
        free(a); free(b); free(c);                                                           \
        return bad;                                                                          \
    }
DEF_BENCH(float, s)
DEF_BENCH(double, d)

int main(void)
{
    int sizes[8], ns = gemm_sizes(sizes), bad = 0;
    for (int i = 0; i < ns; i++)
        bad |= bench_s(sizes[i]) | bench_d(sizes[i]);
    return bad;
}
