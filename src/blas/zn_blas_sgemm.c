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
    cblas_sgemm(CblasColMajor, transa ? CblasTrans : CblasNoTrans,
                transb ? CblasTrans : CblasNoTrans, m, n, k, alpha, a, lda, b, ldb,
                beta, c, ldc);
}
