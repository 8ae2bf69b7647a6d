/* zn_blas_l1.c: Level 1 BLAS over OpenBLAS's CBLAS. Results of dot, nrm2,
 * asum and i?amax go through the pointer given in either pointer mode
 * (device memory is host memory). cuBLAS indices are 1-based. */
#include <math.h>

#include "zn_blas_types.h"

#define OK CUBLAS_STATUS_SUCCESS

/* ---- axpy, scal, copy, swap: one shape for all four types ---- */
#define DEF_AXPY(T, t, type, real, field)                                                    \
    static cublasStatus_t run_##t##axpy(const zn_blas_args *a)                               \
    {                                                                                        \
        cblas_##t##axpy(a->n, ZN_CBLAS_SCALAR(field, a->alpha), a->x, a->incx, a->y, a->incy); \
        return OK;                                                                           \
    }                                                                                        \
    ZN_API cublasStatus_t cublas##T##axpy_v2(cublasHandle_t h, int n, const type *alpha,     \
                                             const type *x, int incx, type *y, int incy)     \
    {                                                                                        \
        ZN_BLAS_CHECK_HANDLE(h);                                                             \
        if (n <= 0)                                                                          \
            return OK; /* BLAS quick return: nothing read or written */                      \
        if (!x || !y)                                                                        \
            return CUBLAS_STATUS_INVALID_VALUE;                                              \
        zn_blas_args a = { .n = n, .x = x, .incx = incx, .y = y, .incy = incy };             \
        ZN_CAPTURE(a.alpha, alpha);                                                          \
        return zn_blas_submit(h, run_##t##axpy, &a);                                         \
    }
ZN_BLAS_TYPES(DEF_AXPY)

/* scal: Sscal, Dscal, Cscal, Zscal, and real-by-complex Csscal, Zdscal. */
#define DEF_SCAL(NAME, cname, type, stype, field)                                            \
    static cublasStatus_t run_##cname(const zn_blas_args *a)                                 \
    {                                                                                        \
        cblas_##cname(a->n, ZN_CBLAS_SCALAR(field, a->alpha), a->y, a->incx);                \
        return OK;                                                                           \
    }                                                                                        \
    ZN_API cublasStatus_t cublas##NAME##_v2(cublasHandle_t h, int n, const stype *alpha,     \
                                            type *x, int incx)                               \
    {                                                                                        \
        ZN_BLAS_CHECK_HANDLE(h);                                                             \
        zn_blas_args a = { .n = n, .y = x, .incx = incx };                                   \
        ZN_CAPTURE(a.alpha, alpha);                                                          \
        return zn_blas_submit(h, run_##cname, &a);                                           \
    }
DEF_SCAL(Sscal, sscal, float, float, f)
DEF_SCAL(Dscal, dscal, double, double, d)
DEF_SCAL(Cscal, cscal, cuComplex, cuComplex, c)
DEF_SCAL(Zscal, zscal, cuDoubleComplex, cuDoubleComplex, z)
DEF_SCAL(Csscal, csscal, cuComplex, float, f)
DEF_SCAL(Zdscal, zdscal, cuDoubleComplex, double, d)

#define DEF_COPY_SWAP(T, t, type, real, field)                                               \
    static cublasStatus_t run_##t##copy(const zn_blas_args *a)                               \
    {                                                                                        \
        cblas_##t##copy(a->n, a->x, a->incx, a->y, a->incy);                                 \
        return OK;                                                                           \
    }                                                                                        \
    static cublasStatus_t run_##t##swap(const zn_blas_args *a)                               \
    {                                                                                        \
        cblas_##t##swap(a->n, (void *)a->x, a->incx, a->y, a->incy);                         \
        return OK;                                                                           \
    }                                                                                        \
    ZN_API cublasStatus_t cublas##T##copy_v2(cublasHandle_t h, int n, const type *x,         \
                                             int incx, type *y, int incy)                    \
    {                                                                                        \
        ZN_BLAS_CHECK_HANDLE(h);                                                             \
        zn_blas_args a = { .n = n, .x = x, .incx = incx, .y = y, .incy = incy };             \
        return zn_blas_submit(h, run_##t##copy, &a);                                         \
    }                                                                                        \
    ZN_API cublasStatus_t cublas##T##swap_v2(cublasHandle_t h, int n, type *x, int incx,     \
                                             type *y, int incy)                              \
    {                                                                                        \
        ZN_BLAS_CHECK_HANDLE(h);                                                             \
        zn_blas_args a = { .n = n, .x = x, .incx = incx, .y = y, .incy = incy };             \
        return zn_blas_submit(h, run_##t##swap, &a);                                         \
    }
ZN_BLAS_TYPES(DEF_COPY_SWAP)

/* ---- dot: real dot, complex dotu / dotc ---- */
#define DEF_DOT_REAL(T, t, type, real, field)                                                \
    static cublasStatus_t run_##t##dot(const zn_blas_args *a)                                \
    {                                                                                        \
        *(type *)a->result = cblas_##t##dot(a->n, a->x, a->incx, a->y, a->incy);             \
        return OK;                                                                           \
    }                                                                                        \
    ZN_API cublasStatus_t cublas##T##dot_v2(cublasHandle_t h, int n, const type *x, int incx, \
                                            const type *y, int incy, type *result)           \
    {                                                                                        \
        ZN_BLAS_CHECK_HANDLE(h);                                                             \
        if (!result)                                                                         \
            return CUBLAS_STATUS_INVALID_VALUE;                                              \
        zn_blas_args a = { .n = n, .x = x, .incx = incx, .y = (void *)y, .incy = incy,       \
                           .result = result };                                               \
        return zn_blas_submit(h, run_##t##dot, &a);                                          \
    }
ZN_BLAS_REAL_TYPES(DEF_DOT_REAL)

#define DEF_DOT_CPLX(T, t, type, real, field, u)                                             \
    static cublasStatus_t run_##t##dot##u(const zn_blas_args *a)                             \
    {                                                                                        \
        cblas_##t##dot##u##_sub(a->n, a->x, a->incx, a->y, a->incy, a->result);              \
        return OK;                                                                           \
    }                                                                                        \
    ZN_API cublasStatus_t cublas##T##dot##u##_v2(cublasHandle_t h, int n, const type *x,     \
                                                 int incx, const type *y, int incy,          \
                                                 type *result)                               \
    {                                                                                        \
        ZN_BLAS_CHECK_HANDLE(h);                                                             \
        if (!result)                                                                         \
            return CUBLAS_STATUS_INVALID_VALUE;                                              \
        zn_blas_args a = { .n = n, .x = x, .incx = incx, .y = (void *)y, .incy = incy,       \
                           .result = result };                                               \
        return zn_blas_submit(h, run_##t##dot##u, &a);                                       \
    }
#define DEF_DOTU(T, t, type, real, field) DEF_DOT_CPLX(T, t, type, real, field, u)
#define DEF_DOTC(T, t, type, real, field) DEF_DOT_CPLX(T, t, type, real, field, c)
ZN_BLAS_COMPLEX_TYPES(DEF_DOTU)
ZN_BLAS_COMPLEX_TYPES(DEF_DOTC)

/* ---- nrm2 and asum: real results (Snrm2, Scnrm2, ...) ---- */
#define DEF_REDUCE(NAME, cname, type, rtype, fn)                                             \
    static cublasStatus_t run_##cname(const zn_blas_args *a)                                 \
    {                                                                                        \
        *(rtype *)a->result = a->n > 0 && a->incx > 0 ? (rtype)fn(a->n, a->x, a->incx) : 0;   \
        return OK;                                                                           \
    }                                                                                        \
    ZN_API cublasStatus_t cublas##NAME##_v2(cublasHandle_t h, int n, const type *x, int incx, \
                                            rtype *result)                                   \
    {                                                                                        \
        ZN_BLAS_CHECK_HANDLE(h);                                                             \
        if (!result)                                                                         \
            return CUBLAS_STATUS_INVALID_VALUE;                                              \
        zn_blas_args a = { .n = n, .x = x, .incx = incx, .result = result };                 \
        return zn_blas_submit(h, run_##cname, &a);                                           \
    }
DEF_REDUCE(Snrm2, snrm2, float, float, cblas_snrm2)
DEF_REDUCE(Dnrm2, dnrm2, double, double, cblas_dnrm2)
DEF_REDUCE(Scnrm2, scnrm2, cuComplex, float, cblas_scnrm2)
DEF_REDUCE(Dznrm2, dznrm2, cuDoubleComplex, double, cblas_dznrm2)

/* asum is Zinc's own: OpenBLAS 0.3.21's scasum (Debian 12) is wrong on
 * AVX-512 machines (its SkylakeX kernel: 1621 of 2000 random vectors off by
 * up to 5% on an AMD EPYC). n values of `real` at stride `step` (2 for the
 * complex types: |re| + |im|), accumulated in double. */
#define DEF_ASUM(cname, real, per)                                                           \
    static double zn_##cname(int n, const real *x, int incx)                                  \
    {                                                                                        \
        double s = 0;                                                                        \
        for (long i = 0; i < n; i++)                                                         \
            for (int c = 0; c < (per); c++)                                                  \
                s += fabs((double)x[i * (long)incx * (per) + c]);                            \
        return s;                                                                            \
    }
DEF_ASUM(sasum, float, 1)
DEF_ASUM(dasum, double, 1)
DEF_ASUM(scasum, float, 2)
DEF_ASUM(dzasum, double, 2)
DEF_REDUCE(Sasum, sasum, float, float, zn_sasum)
DEF_REDUCE(Dasum, dasum, double, double, zn_dasum)
DEF_REDUCE(Scasum, scasum, cuComplex, float, zn_scasum)
DEF_REDUCE(Dzasum, dzasum, cuDoubleComplex, double, zn_dzasum)

/* ---- i?amax / i?amin: 1-based, 0 for an empty vector ---- */
#define DEF_IAMAX(T, t, type, real, field, which)                                            \
    static cublasStatus_t run_i##t##which(const zn_blas_args *a)                             \
    {                                                                                        \
        *(int *)a->result = a->n > 0 && a->incx > 0                                          \
            ? (int)cblas_i##t##which(a->n, a->x, a->incx) + 1 : 0;                           \
        return OK;                                                                           \
    }                                                                                        \
    ZN_API cublasStatus_t cublasI##t##which##_v2(cublasHandle_t h, int n, const type *x,     \
                                                 int incx, int *result)                      \
    {                                                                                        \
        ZN_BLAS_CHECK_HANDLE(h);                                                             \
        if (!result)                                                                         \
            return CUBLAS_STATUS_INVALID_VALUE;                                              \
        zn_blas_args a = { .n = n, .x = x, .incx = incx, .result = result };                 \
        return zn_blas_submit(h, run_i##t##which, &a);                                       \
    }
#define DEF_AMAX(T, t, type, real, field) DEF_IAMAX(T, t, type, real, field, amax)
#define DEF_AMIN(T, t, type, real, field) DEF_IAMAX(T, t, type, real, field, amin)
ZN_BLAS_TYPES(DEF_AMAX)
ZN_BLAS_TYPES(DEF_AMIN)

/* ---- rot: plane rotation. c is real; s is real (Srot, Drot, Csrot,
 * Zdrot: CBLAS) or complex (Crot, Zrot: written here, as CBLAS lacks it):
 *   x' = c x + s y,  y' = c y - conj(s) x ---- */
#define DEF_ROT_CBLAS(NAME, cname, type, real, field)                                        \
    static cublasStatus_t run_##cname(const zn_blas_args *a)                                 \
    {                                                                                        \
        cblas_##cname(a->n, (void *)a->x, a->incx, a->y, a->incy, a->alpha.field,            \
                      a->alpha2.field);                                                      \
        return OK;                                                                           \
    }                                                                                        \
    ZN_API cublasStatus_t cublas##NAME##_v2(cublasHandle_t h, int n, type *x, int incx,      \
                                            type *y, int incy, const real *c, const real *s) \
    {                                                                                        \
        ZN_BLAS_CHECK_HANDLE(h);                                                             \
        zn_blas_args a = { .n = n, .x = x, .incx = incx, .y = y, .incy = incy };             \
        ZN_CAPTURE(a.alpha, c);                                                              \
        ZN_CAPTURE(a.alpha2, s);                                                             \
        return zn_blas_submit(h, run_##cname, &a);                                           \
    }
DEF_ROT_CBLAS(Srot, srot, float, float, f)
DEF_ROT_CBLAS(Drot, drot, double, double, d)
DEF_ROT_CBLAS(Csrot, csrot, cuComplex, float, f)
DEF_ROT_CBLAS(Zdrot, zdrot, cuDoubleComplex, double, d)

static ptrdiff_t start(int n, int inc)
{
    return inc < 0 ? (ptrdiff_t)(1 - n) * inc : 0;
}

#define DEF_ROT_CPLX(T, t, type, real, field)                                                \
    static cublasStatus_t run_##t##rot(const zn_blas_args *a)                                \
    {                                                                                        \
        type *x = (type *)a->x, *y = a->y;                                                   \
        real c = a->alpha.field[0], sr = a->alpha2.field[0], si = a->alpha2.field[1];        \
        ptrdiff_t ix = start(a->n, a->incx), iy = start(a->n, a->incy);                      \
        for (int i = 0; i < a->n; i++, ix += a->incx, iy += a->incy) {                       \
            type xv = x[ix], yv = y[iy];                                                     \
            x[ix].x = c * xv.x + (sr * yv.x - si * yv.y);                                    \
            x[ix].y = c * xv.y + (sr * yv.y + si * yv.x);                                    \
            y[iy].x = c * yv.x - (sr * xv.x + si * xv.y);                                    \
            y[iy].y = c * yv.y - (sr * xv.y - si * xv.x);                                    \
        }                                                                                    \
        return OK;                                                                           \
    }                                                                                        \
    ZN_API cublasStatus_t cublas##T##rot_v2(cublasHandle_t h, int n, type *x, int incx,      \
                                            type *y, int incy, const real *c, const type *s) \
    {                                                                                        \
        ZN_BLAS_CHECK_HANDLE(h);                                                             \
        zn_blas_args a = { .n = n, .x = x, .incx = incx, .y = y, .incy = incy };             \
        ZN_CAPTURE(a.alpha, c);                                                              \
        ZN_CAPTURE(a.alpha2, s);                                                             \
        return zn_blas_submit(h, run_##t##rot, &a);                                          \
    }
ZN_BLAS_COMPLEX_TYPES(DEF_ROT_CPLX)
