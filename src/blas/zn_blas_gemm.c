/* zn_blas_gemm.c: the GEMMs every cuBLAS and cuBLASLt path ends in, by
 * type, each cut into panels for the worker pool when large
 * (zn_blas_par.c) and done as gemv when C is one column or one row. */
#include "zn_blas_core.h"

#include <cblas.h>

/* A real GEMM with n = 1 or m = 1 as gemv, which reads A once: OpenBLAS's
 * gemm first copies all of A into packed panels (sgemm_incopy), on every
 * call; llama.cpp's F32 decode multiplies up to 32000 x 64 weights by one
 * column per token that way. m = 1: c^T = op(A)'s row times op(B), that
 * is op(B)^T times the row. False for other shapes, and for k = 0, where
 * gemv would return without scaling C by beta. */
#define DEF_GEMM_GEMV(t, type)                                                               \
    static bool gemm_gemv_##t(const zn_gemm_split *s)                                        \
    {                                                                                        \
        type alpha = *(const type *)s->alpha, beta = *(const type *)s->beta;                 \
        const type *a = s->a, *b = s->b;                                                     \
        if (s->k <= 0)                                                                       \
            return false;                                                                    \
        if (s->n == 1) {                                                                     \
            cblas_##t##gemv(CblasColMajor, s->transa ? CblasTrans : CblasNoTrans,            \
                            s->transa ? s->k : s->m, s->transa ? s->m : s->k, alpha, a,      \
                            s->lda, b, s->transb ? s->ldb : 1, beta, s->c, 1);               \
            return true;                                                                     \
        }                                                                                    \
        if (s->m == 1) {                                                                     \
            cblas_##t##gemv(CblasColMajor, s->transb ? CblasNoTrans : CblasTrans,            \
                            s->transb ? s->n : s->k, s->transb ? s->k : s->n, alpha, b,      \
                            s->ldb, a, s->transa ? 1 : s->lda, beta, s->c, s->ldc);          \
            return true;                                                                     \
        }                                                                                    \
        return false;                                                                        \
    }
DEF_GEMM_GEMV(s, float)
DEF_GEMM_GEMV(d, double)
/* complex keeps gemm: a conjugated op(B) row has no gemv form */
static bool gemm_gemv_c(const zn_gemm_split *s) { (void)s; return false; }
static bool gemm_gemv_z(const zn_gemm_split *s) { (void)s; return false; }

/* One panel, serially; CBLAS takes real scalars by value, complex ones by
 * pointer. */
#define BY_VALUE(type, p) (*(const type *)(p))
#define BY_POINTER(type, p) (p)
#define DEF_GEMM(t, type, elem, scalar)                                                      \
    static void panel_##t(const zn_gemm_split *s)                                            \
    {                                                                                        \
        if (gemm_gemv_##t(s))                                                                \
            return;                                                                          \
        cblas_##t##gemm(CblasColMajor, zn_cblas_trans(s->transa), zn_cblas_trans(s->transb), \
                        s->m, s->n, s->k, scalar(type, s->alpha), s->a, s->lda, s->b,        \
                        s->ldb, scalar(type, s->beta), s->c, s->ldc);                        \
    }                                                                                        \
    void zn_blas_gemm_##t(int transa, int transb, int m, int n, int k, const void *alpha,   \
                          const void *a, int lda, const void *b, int ldb, const void *beta,  \
                          void *c, int ldc)                                                  \
    {                                                                                        \
        zn_gemm_split s = {transa, transb, m, n, k, a, lda, b, ldb, c, ldc, alpha, beta,     \
                           elem, panel_##t};                                                 \
        zn_blas_gemm_split(&s);                                                              \
    }
DEF_GEMM(s, float, sizeof(float), BY_VALUE)
DEF_GEMM(d, double, sizeof(double), BY_VALUE)
DEF_GEMM(c, float, 2 * sizeof(float), BY_POINTER)
DEF_GEMM(z, double, 2 * sizeof(double), BY_POINTER)

void zn_blas_sgemm(int transa, int transb, int m, int n, int k, float alpha,
                   const float *a, int lda, const float *b, int ldb, float beta,
                   float *c, int ldc)
{
    if (m <= 0 || n <= 0)
        return;
    if (beta == 0.0f)   /* cuBLAS never reads C when beta is 0 */
        for (int j = 0; j < n; j++)
            for (int i = 0; i < m; i++)
                c[(size_t)j * ldc + i] = 0.0f;
    if (k <= 0 || alpha == 0.0f) {
        if (beta != 0.0f && beta != 1.0f)
            for (int j = 0; j < n; j++)
                for (int i = 0; i < m; i++)
                    c[(size_t)j * ldc + i] *= beta;
        return;
    }
    zn_blas_gemm_s(transa, transb, m, n, k, &alpha, a, lda, b, ldb, &beta, c, ldc);
}
