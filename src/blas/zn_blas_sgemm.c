/* zn_blas_sgemm.c: the f32 GEMM every mixed-precision path ends in. */
#include "zn_blas_core.h"

#include <cblas.h>

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
    if (zn_blas_gemm_gemv_s(transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc))
        return;
    cblas_sgemm(CblasColMajor, transa ? CblasTrans : CblasNoTrans,
                transb ? CblasTrans : CblasNoTrans, m, n, k, alpha, a, lda, b, ldb,
                beta, c, ldc);
}

/* A real GEMM with n = 1 or m = 1 as gemv, which reads A once: OpenBLAS's
 * gemm first copies all of A into packed panels (sgemm_incopy), on every
 * call; llama.cpp's F32 decode multiplies up to 32000 x 64 weights by one
 * column per token that way. m = 1: c^T = op(A)'s row times op(B), that
 * is op(B)^T times the row. False for other shapes. */
#define DEF_GEMM_GEMV(t, type)                                                               \
    bool zn_blas_gemm_gemv_##t(int transa, int transb, int m, int n, int k, type alpha,     \
                               const type *a, int lda, const type *b, int ldb, type beta,    \
                               type *c, int ldc)                                             \
    {                                                                                        \
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
