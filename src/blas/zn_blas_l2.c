/* zn_blas_l2.c: Level 2 BLAS (gemv, ger, symv, hemv, trmv, trsv) over
 * CBLAS, column-major. Where beta is 0, y is cleared first so that NaN or
 * garbage in y never reaches the result (cuBLAS does not read y then). */
#include "zn_blas_types.h"

#include <string.h>

#define OK CUBLAS_STATUS_SUCCESS
#define BAD CUBLAS_STATUS_INVALID_VALUE

/* n elements of `elem` bytes at stride |inc| := 0. */
static void clear_vec(void *y, int n, int inc, size_t elem)
{
    char *p = y;
    size_t step = (size_t)(inc < 0 ? -inc : inc) * elem;
    for (int i = 0; i < n; i++)
        memset(p + (size_t)i * step, 0, elem);
}

/* ---- gemv: y = alpha op(A) x + beta y ---- */
#define DEF_GEMV(T, t, type, real, field)                                                    \
    static cublasStatus_t run_##t##gemv(const zn_blas_args *a)                               \
    {                                                                                        \
        if (ZN_SCALAR_ZERO(field, a->beta))                                                  \
            clear_vec(a->y, a->trans == CUBLAS_OP_N ? a->m : a->n, a->incy, sizeof(type));   \
        cblas_##t##gemv(CblasColMajor, zn_cblas_trans(a->trans), a->m, a->n,                 \
                        ZN_CBLAS_SCALAR(field, a->alpha), a->a, a->lda, a->x, a->incx,       \
                        ZN_CBLAS_SCALAR(field, a->beta), a->y, a->incy);                     \
        return OK;                                                                           \
    }                                                                                        \
    ZN_API cublasStatus_t cublas##T##gemv_v2(cublasHandle_t h, cublasOperation_t trans,      \
                                             int m, int n, const type *alpha, const type *A, \
                                             int lda, const type *x, int incx,               \
                                             const type *beta, type *y, int incy)            \
    {                                                                                        \
        ZN_BLAS_CHECK_HANDLE(h);                                                             \
        if (!zn_blas_op_ok(trans) || m < 0 || n < 0 || lda < zn_max1(m) || incx == 0 ||      \
            incy == 0)                                                                       \
            return BAD;                                                                      \
        if (m == 0 || n == 0)                                                                \
            return OK;                                                                       \
        if (!A || !x || !y)                                                                  \
            return BAD;                                                                      \
        zn_blas_args a = { .trans = trans, .m = m, .n = n, .a = A, .lda = lda, .x = x,       \
                           .incx = incx, .y = y, .incy = incy };                             \
        ZN_CAPTURE(a.alpha, alpha);                                                          \
        ZN_CAPTURE(a.beta, beta);                                                            \
        return zn_blas_submit(h, run_##t##gemv, &a);                                         \
    }
ZN_BLAS_TYPES(DEF_GEMV)

/* ---- ger: A += alpha x y^T (Sger, Dger, C/Z geru) or x y^H (gerc) ---- */
#define DEF_GER(NAME, cname, type, field)                                                    \
    static cublasStatus_t run_##cname(const zn_blas_args *a)                                 \
    {                                                                                        \
        cblas_##cname(CblasColMajor, a->m, a->n, ZN_CBLAS_SCALAR(field, a->alpha), a->x,     \
                      a->incx, a->b, a->incy, a->c, a->lda);                                 \
        return OK;                                                                           \
    }                                                                                        \
    ZN_API cublasStatus_t cublas##NAME##_v2(cublasHandle_t h, int m, int n, const type *alpha, \
                                            const type *x, int incx, const type *y, int incy, \
                                            type *A, int lda)                                \
    {                                                                                        \
        ZN_BLAS_CHECK_HANDLE(h);                                                             \
        if (m < 0 || n < 0 || lda < zn_max1(m) || incx == 0 || incy == 0)                    \
            return BAD;                                                                      \
        if (m == 0 || n == 0)                                                                \
            return OK;                                                                       \
        zn_blas_args a = { .m = m, .n = n, .x = x, .incx = incx, .b = y, .incy = incy,       \
                           .c = A, .lda = lda };                                             \
        ZN_CAPTURE(a.alpha, alpha);                                                          \
        return zn_blas_submit(h, run_##cname, &a);                                           \
    }
DEF_GER(Sger, sger, float, f)
DEF_GER(Dger, dger, double, d)
DEF_GER(Cgeru, cgeru, cuComplex, c)
DEF_GER(Cgerc, cgerc, cuComplex, c)
DEF_GER(Zgeru, zgeru, cuDoubleComplex, z)
DEF_GER(Zgerc, zgerc, cuDoubleComplex, z)

/* ---- symv / hemv: y = alpha A x + beta y, A symmetric (Hermitian) ---- */
#define DEF_SYMV_API(NAME, run, type)                                                        \
    ZN_API cublasStatus_t cublas##NAME##_v2(cublasHandle_t h, cublasFillMode_t uplo, int n,  \
                                            const type *alpha, const type *A, int lda,       \
                                            const type *x, int incx, const type *beta,       \
                                            type *y, int incy)                               \
    {                                                                                        \
        ZN_BLAS_CHECK_HANDLE(h);                                                             \
        if (!zn_blas_uplo_ok(uplo) || n < 0 || lda < zn_max1(n) || incx == 0 || incy == 0)   \
            return BAD;                                                                      \
        if (n == 0)                                                                          \
            return OK;                                                                       \
        zn_blas_args a = { .uplo = uplo, .n = n, .a = A, .lda = lda, .x = x, .incx = incx,   \
                           .y = y, .incy = incy };                                           \
        ZN_CAPTURE(a.alpha, alpha);                                                          \
        ZN_CAPTURE(a.beta, beta);                                                            \
        return zn_blas_submit(h, run, &a);                                                   \
    }
#define DEF_SYMV_CBLAS(NAME, cname, type, field)                                             \
    static cublasStatus_t run_##cname(const zn_blas_args *a)                                 \
    {                                                                                        \
        if (ZN_SCALAR_ZERO(field, a->beta))                                                  \
            clear_vec(a->y, a->n, a->incy, sizeof(type));                                    \
        cblas_##cname(CblasColMajor, zn_cblas_uplo(a->uplo), a->n,                           \
                      ZN_CBLAS_SCALAR(field, a->alpha), a->a, a->lda, a->x, a->incx,         \
                      ZN_CBLAS_SCALAR(field, a->beta), a->y, a->incy);                       \
        return OK;                                                                           \
    }                                                                                        \
    DEF_SYMV_API(NAME, run_##cname, type)
DEF_SYMV_CBLAS(Ssymv, ssymv, float, f)
DEF_SYMV_CBLAS(Dsymv, dsymv, double, d)
DEF_SYMV_CBLAS(Chemv, chemv, cuComplex, c)
DEF_SYMV_CBLAS(Zhemv, zhemv, cuDoubleComplex, z)

/* Complex symmetric symv is not in CBLAS: a direct loop, accumulating in
 * the element precision as cuBLAS does. */
#define DEF_SYMV_CPLX(T, t, type, real, field)                                               \
    static cublasStatus_t run_##t##symv(const zn_blas_args *a)                               \
    {                                                                                        \
        const type *A = a->a, *x = a->x;                                                     \
        type *y = a->y;                                                                      \
        real ar = a->alpha.field[0], ai = a->alpha.field[1];                                 \
        real br = a->beta.field[0], bi = a->beta.field[1];                                   \
        bool zero_beta = ZN_SCALAR_ZERO(field, a->beta);                                     \
        ptrdiff_t x0 = a->incx < 0 ? (ptrdiff_t)(1 - a->n) * a->incx : 0;                    \
        ptrdiff_t y0 = a->incy < 0 ? (ptrdiff_t)(1 - a->n) * a->incy : 0;                    \
        for (int i = 0; i < a->n; i++) {                                                     \
            real sr = 0, si = 0;                                                             \
            for (int j = 0; j < a->n; j++) {                                                 \
                bool in_upper = i <= j;                                                      \
                bool stored = (a->uplo == CUBLAS_FILL_MODE_UPPER) == in_upper || i == j;     \
                type e = stored ? A[(size_t)j * a->lda + i] : A[(size_t)i * a->lda + j];     \
                type xv = x[x0 + (ptrdiff_t)j * a->incx];                                    \
                sr += e.x * xv.x - e.y * xv.y;                                               \
                si += e.x * xv.y + e.y * xv.x;                                               \
            }                                                                                \
            type *yp = &y[y0 + (ptrdiff_t)i * a->incy];                                      \
            real yr = zero_beta ? 0 : br * yp->x - bi * yp->y;                               \
            real yi = zero_beta ? 0 : br * yp->y + bi * yp->x;                               \
            yp->x = ar * sr - ai * si + yr;                                                  \
            yp->y = ar * si + ai * sr + yi;                                                  \
        }                                                                                    \
        return OK;                                                                           \
    }                                                                                        \
    DEF_SYMV_API(T##symv, run_##t##symv, type)
ZN_BLAS_COMPLEX_TYPES(DEF_SYMV_CPLX)

/* ---- trmv / trsv: x = op(A) x, x = op(A)^-1 x, A triangular ---- */
#define DEF_TRXV(T, t, type, real, field, op)                                                \
    static cublasStatus_t run_##t##op(const zn_blas_args *a)                                 \
    {                                                                                        \
        cblas_##t##op(CblasColMajor, zn_cblas_uplo(a->uplo), zn_cblas_trans(a->trans),       \
                      zn_cblas_diag(a->diag), a->n, a->a, a->lda, a->y, a->incx);            \
        return OK;                                                                           \
    }                                                                                        \
    ZN_API cublasStatus_t cublas##T##op##_v2(cublasHandle_t h, cublasFillMode_t uplo,        \
                                             cublasOperation_t trans, cublasDiagType_t diag, \
                                             int n, const type *A, int lda, type *x, int incx) \
    {                                                                                        \
        ZN_BLAS_CHECK_HANDLE(h);                                                             \
        if (!zn_blas_uplo_ok(uplo) || !zn_blas_op_ok(trans) || n < 0 ||                      \
            lda < zn_max1(n) || incx == 0 ||                                                 \
            (diag != CUBLAS_DIAG_UNIT && diag != CUBLAS_DIAG_NON_UNIT))                      \
            return BAD;                                                                      \
        if (n == 0)                                                                          \
            return OK;                                                                       \
        zn_blas_args a = { .uplo = uplo, .trans = trans, .diag = diag, .n = n, .a = A,       \
                           .lda = lda, .y = x, .incx = incx };                               \
        return zn_blas_submit(h, run_##t##op, &a);                                           \
    }
#define DEF_TRMV(T, t, type, real, field) DEF_TRXV(T, t, type, real, field, trmv)
#define DEF_TRSV(T, t, type, real, field) DEF_TRXV(T, t, type, real, field, trsv)
ZN_BLAS_TYPES(DEF_TRMV)
ZN_BLAS_TYPES(DEF_TRSV)
