/* zn_blas_gemm.c: the GEMMs every cuBLAS and cuBLASLt path ends in, by
 * type, each cut into panels for the worker pool when large
 * (zn_blas_par.c) and done as gemv when C is one column or one row. */
#include "zn_blas_core.h"

#include <cblas.h>

static enum CBLAS_TRANSPOSE cblas_op(int op)
{
    return op == 0 ? CblasNoTrans : op == 1 ? CblasTrans : CblasConjTrans;
}

/* A real GEMM with n = 1 or m = 1 as gemv, which reads A once: OpenBLAS's
 * gemm first copies all of A into packed panels (sgemm_incopy), on every
 * call; llama.cpp's F32 decode multiplies up to 32000 x 64 weights by one
 * column per token that way. m = 1: c^T = op(A)'s row times op(B), that
 * is op(B)^T times the row. False for other shapes, and for k = 0, where
 * gemv would return without scaling C by beta. */
#define DEF_GEMM_GEMV(t, type)                                                               \
    bool zn_blas_gemm_gemv_##t(int transa, int transb, int m, int n, int k, type alpha,     \
                               const type *a, int lda, const type *b, int ldb, type beta,    \
                               type *c, int ldc)                                             \
    {                                                                                        \
        if (k <= 0)                                                                          \
            return false;                                                                    \
        if (n == 1) {                                                                        \
            cblas_##t##gemv(CblasColMajor, transa ? CblasTrans : CblasNoTrans,               \
                            transa ? k : m, transa ? m : k, alpha, a, lda, b,                \
                            transb ? ldb : 1, beta, c, 1);                                   \
            return true;                                                                     \
        }                                                                                    \
        if (m == 1) {                                                                        \
            cblas_##t##gemv(CblasColMajor, transb ? CblasNoTrans : CblasTrans,               \
                            transb ? n : k, transb ? k : n, alpha, b, ldb, a,                \
                            transa ? 1 : lda, beta, c, ldc);                                 \
            return true;                                                                     \
        }                                                                                    \
        return false;                                                                        \
    }
DEF_GEMM_GEMV(s, float)
DEF_GEMM_GEMV(d, double)

/* One panel, serially. Real scalars are passed by value, complex ones by
 * pointer (CBLAS's convention); complex keeps gemm (a conjugated op(B)
 * row has no gemv form). */
#define BY_VALUE(type, p) (*(const type *)(p))
#define BY_POINTER(type, p) (p)
#define GEMV_ROUTE(t, type)                                                                  \
    zn_blas_gemm_gemv_##t(s->transa, s->transb, s->m, s->n, s->k, *(const type *)s->alpha,   \
                          s->a, s->lda, s->b, s->ldb, *(const type *)s->beta, s->c, s->ldc)
#define NO_GEMV_ROUTE(t, type) false
#define DEF_GEMM(t, type, elem, scalar, gemv_route)                                                \
    static void panel_##t(const zn_gemm_split *s)                                            \
    {                                                                                        \
        if (gemv_route(t, type))                                                             \
            return;                                                                          \
        cblas_##t##gemm(CblasColMajor, cblas_op(s->transa), cblas_op(s->transb), s->m, s->n, \
                        s->k, scalar(type, s->alpha), s->a, s->lda, s->b, s->ldb,            \
                        scalar(type, s->beta), s->c, s->ldc);                                \
    }                                                                                        \
    void zn_blas_gemm_##t(int transa, int transb, int m, int n, int k, const void *alpha,   \
                          const void *a, int lda, const void *b, int ldb, const void *beta,  \
                          void *c, int ldc)                                                  \
    {                                                                                        \
        zn_gemm_split s = {transa, transb, m, n, k, a, lda, b, ldb, c, ldc, alpha, beta,     \
                           elem, panel_##t};                                         \
        zn_blas_gemm_split(&s);                                                              \
    }
DEF_GEMM(s, float, sizeof(float), BY_VALUE, GEMV_ROUTE)
DEF_GEMM(d, double, sizeof(double), BY_VALUE, GEMV_ROUTE)
DEF_GEMM(c, float, 2 * sizeof(float), BY_POINTER, NO_GEMV_ROUTE)
DEF_GEMM(z, double, 2 * sizeof(double), BY_POINTER, NO_GEMV_ROUTE)

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
