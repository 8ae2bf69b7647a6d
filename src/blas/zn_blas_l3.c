/* zn_blas_l3.c: Level 3 BLAS (gemm, symm, syrk, syr2k, trmm, trsm) over
 * CBLAS, column-major. beta == 0 clears the part of C the op writes
 * first (cuBLAS never reads C then, so NaN in C must not survive). */
#include "zn_blas_types.h"

#include <string.h>

#define OK CUBLAS_STATUS_SUCCESS
#define BAD CUBLAS_STATUS_INVALID_VALUE

/* Clear the m x n matrix at c, or only its uplo triangle when tri. */
static void clear_mat(void *c, int m, int n, int ldc, size_t elem, bool tri, int uplo)
{
    char *p = c;
    for (int j = 0; j < n; j++) {
        int lo = 0, hi = m;
        if (tri && uplo == CUBLAS_FILL_MODE_UPPER)
            hi = j + 1 < m ? j + 1 : m;
        else if (tri)
            lo = j;
        if (hi > lo)
            memset(p + ((size_t)j * ldc + lo) * elem, 0, (size_t)(hi - lo) * elem);
    }
}

/* ---- gemm: C = alpha op(A) op(B) + beta C ---- */
#define DEF_GEMM(T, t, type, real, field)                                                    \
    static cublasStatus_t run_##t##gemm(const zn_blas_args *a)                               \
    {                                                                                        \
        if (ZN_SCALAR_ZERO(field, a->beta))                                                  \
            clear_mat(a->c, a->m, a->n, a->ldc, sizeof(type), false, 0);                     \
        zn_blas_gemm_##t(a->trans, a->transb, a->m, a->n, a->k, &a->alpha, a->a, a->lda,     \
                         a->b, a->ldb, &a->beta, a->c, a->ldc);                              \
        return OK;                                                                           \
    }                                                                                        \
    ZN_API cublasStatus_t cublas##T##gemm_v2(cublasHandle_t h, cublasOperation_t ta,         \
                                             cublasOperation_t tb, int m, int n, int k,      \
                                             const type *alpha, const type *A, int lda,      \
                                             const type *B, int ldb, const type *beta,       \
                                             type *C, int ldc)                               \
    {                                                                                        \
        ZN_BLAS_CHECK_HANDLE(h);                                                             \
        if (!zn_blas_op_ok(ta) || !zn_blas_op_ok(tb) || m < 0 || n < 0 || k < 0 ||           \
            lda < zn_max1(ta == CUBLAS_OP_N ? m : k) ||                                      \
            ldb < zn_max1(tb == CUBLAS_OP_N ? k : n) || ldc < zn_max1(m))                    \
            return BAD;                                                                      \
        if (m == 0 || n == 0)                                                                \
            return OK;                                                                       \
        if (!C || (k > 0 && (!A || !B)))                                                     \
            return BAD;                                                                      \
        zn_blas_args a = { .trans = ta, .transb = tb, .m = m, .n = n, .k = k, .a = A,        \
                           .lda = lda, .b = B, .ldb = ldb, .c = C, .ldc = ldc };             \
        ZN_CAPTURE(a.alpha, alpha);                                                          \
        ZN_CAPTURE(a.beta, beta);                                                            \
        return zn_blas_submit(h, run_##t##gemm, &a);                                         \
    }
ZN_BLAS_TYPES(DEF_GEMM)

/* ---- symm (and hemm): C = alpha A B + beta C (side left) or alpha B A ---- */
#define DEF_SYMM(NAME, cname, type, field)                                                   \
    static cublasStatus_t run_##cname(const zn_blas_args *a)                                 \
    {                                                                                        \
        if (ZN_SCALAR_ZERO(field, a->beta))                                                  \
            clear_mat(a->c, a->m, a->n, a->ldc, sizeof(type), false, 0);                     \
        cblas_##cname(CblasColMajor, zn_cblas_side(a->side), zn_cblas_uplo(a->uplo), a->m,   \
                      a->n, ZN_CBLAS_SCALAR(field, a->alpha), a->a, a->lda, a->b, a->ldb,    \
                      ZN_CBLAS_SCALAR(field, a->beta), a->c, a->ldc);                        \
        return OK;                                                                           \
    }                                                                                        \
    ZN_API cublasStatus_t cublas##NAME##_v2(cublasHandle_t h, cublasSideMode_t side,         \
                                            cublasFillMode_t uplo, int m, int n,             \
                                            const type *alpha, const type *A, int lda,       \
                                            const type *B, int ldb, const type *beta,        \
                                            type *C, int ldc)                                \
    {                                                                                        \
        ZN_BLAS_CHECK_HANDLE(h);                                                             \
        if (!zn_blas_uplo_ok(uplo) || (side != CUBLAS_SIDE_LEFT && side != CUBLAS_SIDE_RIGHT) || \
            m < 0 || n < 0 || lda < zn_max1(side == CUBLAS_SIDE_LEFT ? m : n) ||             \
            ldb < zn_max1(m) || ldc < zn_max1(m))                                            \
            return BAD;                                                                      \
        if (m == 0 || n == 0)                                                                \
            return OK;                                                                       \
        zn_blas_args a = { .side = side, .uplo = uplo, .m = m, .n = n, .a = A, .lda = lda,   \
                           .b = B, .ldb = ldb, .c = C, .ldc = ldc };                         \
        ZN_CAPTURE(a.alpha, alpha);                                                          \
        ZN_CAPTURE(a.beta, beta);                                                            \
        return zn_blas_submit(h, run_##cname, &a);                                           \
    }
DEF_SYMM(Ssymm, ssymm, float, f)
DEF_SYMM(Dsymm, dsymm, double, d)
DEF_SYMM(Csymm, csymm, cuComplex, c)
DEF_SYMM(Zsymm, zsymm, cuDoubleComplex, z)
DEF_SYMM(Chemm, chemm, cuComplex, c)
DEF_SYMM(Zhemm, zhemm, cuDoubleComplex, z)

/* ---- syrk: C = alpha op(A) op(A)^T + beta C, uplo triangle of C ---- */
#define DEF_SYRK(T, t, type, real, field)                                                    \
    static cublasStatus_t run_##t##syrk(const zn_blas_args *a)                               \
    {                                                                                        \
        if (ZN_SCALAR_ZERO(field, a->beta))                                                  \
            clear_mat(a->c, a->n, a->n, a->ldc, sizeof(type), true, a->uplo);                \
        cblas_##t##syrk(CblasColMajor, zn_cblas_uplo(a->uplo), zn_cblas_trans(a->trans),     \
                        a->n, a->k, ZN_CBLAS_SCALAR(field, a->alpha), a->a, a->lda,          \
                        ZN_CBLAS_SCALAR(field, a->beta), a->c, a->ldc);                      \
        return OK;                                                                           \
    }                                                                                        \
    ZN_API cublasStatus_t cublas##T##syrk_v2(cublasHandle_t h, cublasFillMode_t uplo,        \
                                             cublasOperation_t trans, int n, int k,          \
                                             const type *alpha, const type *A, int lda,      \
                                             const type *beta, type *C, int ldc)             \
    {                                                                                        \
        ZN_BLAS_CHECK_HANDLE(h);                                                             \
        if (!zn_blas_uplo_ok(uplo) || (trans != CUBLAS_OP_N && trans != CUBLAS_OP_T) ||      \
            n < 0 || k < 0 || lda < zn_max1(trans == CUBLAS_OP_N ? n : k) || ldc < zn_max1(n)) \
            return BAD;                                                                      \
        if (n == 0)                                                                          \
            return OK;                                                                       \
        zn_blas_args a = { .uplo = uplo, .trans = trans, .n = n, .k = k, .a = A, .lda = lda, \
                           .c = C, .ldc = ldc };                                             \
        ZN_CAPTURE(a.alpha, alpha);                                                          \
        ZN_CAPTURE(a.beta, beta);                                                            \
        return zn_blas_submit(h, run_##t##syrk, &a);                                         \
    }
ZN_BLAS_TYPES(DEF_SYRK)

/* ---- syr2k: C = alpha (op(A) op(B)^T + op(B) op(A)^T) + beta C ---- */
#define DEF_SYR2K(T, t, type, real, field)                                                   \
    static cublasStatus_t run_##t##syr2k(const zn_blas_args *a)                              \
    {                                                                                        \
        if (ZN_SCALAR_ZERO(field, a->beta))                                                  \
            clear_mat(a->c, a->n, a->n, a->ldc, sizeof(type), true, a->uplo);                \
        cblas_##t##syr2k(CblasColMajor, zn_cblas_uplo(a->uplo), zn_cblas_trans(a->trans),    \
                         a->n, a->k, ZN_CBLAS_SCALAR(field, a->alpha), a->a, a->lda, a->b,   \
                         a->ldb, ZN_CBLAS_SCALAR(field, a->beta), a->c, a->ldc);             \
        return OK;                                                                           \
    }                                                                                        \
    ZN_API cublasStatus_t cublas##T##syr2k_v2(cublasHandle_t h, cublasFillMode_t uplo,       \
                                              cublasOperation_t trans, int n, int k,         \
                                              const type *alpha, const type *A, int lda,     \
                                              const type *B, int ldb, const type *beta,      \
                                              type *C, int ldc)                              \
    {                                                                                        \
        ZN_BLAS_CHECK_HANDLE(h);                                                             \
        int rows = trans == CUBLAS_OP_N ? n : k;                                             \
        if (!zn_blas_uplo_ok(uplo) || (trans != CUBLAS_OP_N && trans != CUBLAS_OP_T) ||      \
            n < 0 || k < 0 || lda < zn_max1(rows) || ldb < zn_max1(rows) || ldc < zn_max1(n)) \
            return BAD;                                                                      \
        if (n == 0)                                                                          \
            return OK;                                                                       \
        zn_blas_args a = { .uplo = uplo, .trans = trans, .n = n, .k = k, .a = A, .lda = lda, \
                           .b = B, .ldb = ldb, .c = C, .ldc = ldc };                         \
        ZN_CAPTURE(a.alpha, alpha);                                                          \
        ZN_CAPTURE(a.beta, beta);                                                            \
        return zn_blas_submit(h, run_##t##syr2k, &a);                                        \
    }
ZN_BLAS_TYPES(DEF_SYR2K)

/* ---- trmm (out of place in cuBLAS: C = alpha op(A) B; B copied to C and
 * multiplied there) and trsm (in place: B = alpha op(A)^-1 B) ---- */
static bool trxm_args_ok(int side, int uplo, int trans, int diag, int m, int n, int lda, int ldb)
{
    return zn_blas_uplo_ok(uplo) && zn_blas_op_ok(trans) &&
           (side == CUBLAS_SIDE_LEFT || side == CUBLAS_SIDE_RIGHT) &&
           (diag == CUBLAS_DIAG_UNIT || diag == CUBLAS_DIAG_NON_UNIT) && m >= 0 && n >= 0 &&
           lda >= zn_max1(side == CUBLAS_SIDE_LEFT ? m : n) && ldb >= zn_max1(m);
}

#define DEF_TRMM(T, t, type, real, field)                                                    \
    static cublasStatus_t run_##t##trmm(const zn_blas_args *a)                               \
    {                                                                                        \
        if (a->b != a->c)                                                                    \
            for (int j = 0; j < a->n; j++)                                                   \
                memmove((type *)a->c + (size_t)j * a->ldc,                                   \
                        (const type *)a->b + (size_t)j * a->ldb, (size_t)a->m * sizeof(type)); \
        cblas_##t##trmm(CblasColMajor, zn_cblas_side(a->side), zn_cblas_uplo(a->uplo),       \
                        zn_cblas_trans(a->trans), zn_cblas_diag(a->diag), a->m, a->n,        \
                        ZN_CBLAS_SCALAR(field, a->alpha), a->a, a->lda, a->c, a->ldc);       \
        return OK;                                                                           \
    }                                                                                        \
    ZN_API cublasStatus_t cublas##T##trmm_v2(cublasHandle_t h, cublasSideMode_t side,        \
                                             cublasFillMode_t uplo, cublasOperation_t trans, \
                                             cublasDiagType_t diag, int m, int n,            \
                                             const type *alpha, const type *A, int lda,      \
                                             const type *B, int ldb, type *C, int ldc)       \
    {                                                                                        \
        ZN_BLAS_CHECK_HANDLE(h);                                                             \
        if (!trxm_args_ok(side, uplo, trans, diag, m, n, lda, ldb) || ldc < zn_max1(m) ||    \
            (B == C && ldb != ldc))                                                          \
            return BAD;                                                                      \
        if (m == 0 || n == 0)                                                                \
            return OK;                                                                       \
        zn_blas_args a = { .side = side, .uplo = uplo, .trans = trans, .diag = diag, .m = m, \
                           .n = n, .a = A, .lda = lda, .b = B, .ldb = ldb, .c = C,           \
                           .ldc = ldc };                                                     \
        ZN_CAPTURE(a.alpha, alpha);                                                          \
        return zn_blas_submit(h, run_##t##trmm, &a);                                         \
    }
ZN_BLAS_TYPES(DEF_TRMM)

#define DEF_TRSM(T, t, type, real, field)                                                    \
    static cublasStatus_t run_##t##trsm(const zn_blas_args *a)                               \
    {                                                                                        \
        cblas_##t##trsm(CblasColMajor, zn_cblas_side(a->side), zn_cblas_uplo(a->uplo),       \
                        zn_cblas_trans(a->trans), zn_cblas_diag(a->diag), a->m, a->n,        \
                        ZN_CBLAS_SCALAR(field, a->alpha), a->a, a->lda, a->c, a->ldb);       \
        return OK;                                                                           \
    }                                                                                        \
    ZN_API cublasStatus_t cublas##T##trsm_v2(cublasHandle_t h, cublasSideMode_t side,        \
                                             cublasFillMode_t uplo, cublasOperation_t trans, \
                                             cublasDiagType_t diag, int m, int n,            \
                                             const type *alpha, const type *A, int lda,      \
                                             type *B, int ldb)                               \
    {                                                                                        \
        ZN_BLAS_CHECK_HANDLE(h);                                                             \
        if (!trxm_args_ok(side, uplo, trans, diag, m, n, lda, ldb))                          \
            return BAD;                                                                      \
        if (m == 0 || n == 0)                                                                \
            return OK;                                                                       \
        zn_blas_args a = { .side = side, .uplo = uplo, .trans = trans, .diag = diag, .m = m, \
                           .n = n, .a = A, .lda = lda, .c = B, .ldb = ldb };                 \
        ZN_CAPTURE(a.alpha, alpha);                                                          \
        return zn_blas_submit(h, run_##t##trsm, &a);                                         \
    }
ZN_BLAS_TYPES(DEF_TRSM)
