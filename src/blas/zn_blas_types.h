/* zn_blas_types.h: the four BLAS precisions as an X-macro, so that each
 * operation is written once for S, D, C and Z.
 *   X(T, t, type, real, field)
 * T/t: cuBLAS / CBLAS letter; type: element; real: its real part type;
 * field: the zn_scalar member that holds one element. */
#ifndef ZN_BLAS_TYPES_H
#define ZN_BLAS_TYPES_H

#include "zn_blas.h"

#include <cblas.h>

#define ZN_BLAS_TYPES(X)                 \
    X(S, s, float, float, f)             \
    X(D, d, double, double, d)           \
    X(C, c, cuComplex, float, c)         \
    X(Z, z, cuDoubleComplex, double, z)

#define ZN_BLAS_REAL_TYPES(X)            \
    X(S, s, float, float, f)             \
    X(D, d, double, double, d)

#define ZN_BLAS_COMPLEX_TYPES(X)         \
    X(C, c, cuComplex, float, c)         \
    X(Z, z, cuDoubleComplex, double, z)

/* How CBLAS takes a scalar: real ones by value, complex ones by pointer. */
#define ZN_CBLAS_SCALAR_f(s) ((s).f)
#define ZN_CBLAS_SCALAR_d(s) ((s).d)
#define ZN_CBLAS_SCALAR_c(s) ((const void *)(s).c)
#define ZN_CBLAS_SCALAR_z(s) ((const void *)(s).z)
#define ZN_CBLAS_SCALAR(field, s) ZN_CBLAS_SCALAR_##field(s)

/* Whether a captured scalar is zero (+0 or -0, both parts for complex). */
static inline bool zn_zero_f(const zn_scalar *s) { return s->f == 0.0f; }
static inline bool zn_zero_d(const zn_scalar *s) { return s->d == 0.0; }
static inline bool zn_zero_c(const zn_scalar *s) { return s->c[0] == 0.0f && s->c[1] == 0.0f; }
static inline bool zn_zero_z(const zn_scalar *s) { return s->z[0] == 0.0 && s->z[1] == 0.0; }
#define ZN_SCALAR_ZERO(field, s) zn_zero_##field(&(s))

/* Capture *p (type) as a by-value scalar; a NULL scalar is
 * CUBLAS_STATUS_INVALID_VALUE (as cuBLAS documents), never a crash. */
#define ZN_CAPTURE(dst, p)                                       \
    do {                                                         \
        if (!(p))                                                \
            return CUBLAS_STATUS_INVALID_VALUE;                  \
        zn_blas_scalar(&(dst), (p), sizeof *(p));                \
    } while (0)

/* cuBLAS enums -> CBLAS enums (zn_cblas_trans: zn_blas_core.h). */
static inline enum CBLAS_UPLO zn_cblas_uplo(int u)
{
    return u == CUBLAS_FILL_MODE_UPPER ? CblasUpper : CblasLower;
}
static inline enum CBLAS_DIAG zn_cblas_diag(int d)
{
    return d == CUBLAS_DIAG_UNIT ? CblasUnit : CblasNonUnit;
}
static inline enum CBLAS_SIDE zn_cblas_side(int s)
{
    return s == CUBLAS_SIDE_RIGHT ? CblasRight : CblasLeft;
}
static inline bool zn_blas_op_ok(int op)
{
    return op == CUBLAS_OP_N || op == CUBLAS_OP_T || op == CUBLAS_OP_C;
}
static inline bool zn_blas_uplo_ok(int u)
{
    return u == CUBLAS_FILL_MODE_LOWER || u == CUBLAS_FILL_MODE_UPPER;
}
static inline int zn_max1(int v)
{
    return v > 1 ? v : 1;
}

#endif
