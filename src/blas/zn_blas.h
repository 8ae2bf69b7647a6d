/* zn_blas.h: cuBLAS internals shared by the files of libcublas.so.13.
 *
 * Every BLAS operation is a closure: the API function checks its
 * arguments, captures them (scalars by value) in a zn_blas_args, and hands
 * a run function to zn_blas_submit. Device memory is host memory, and
 * Zinc's streams run work at enqueue, so submit runs the closure inline
 * today; when streams become asynchronous, submit will enqueue it as a
 * host function on the handle's stream instead, and nothing else changes.
 */
#ifndef ZN_BLAS_H
#define ZN_BLAS_H

#include "zn_cublas_api.h"
#include "zn_blas_core.h"

#include <stdbool.h>

struct cublasContext {
    cudaStream_t stream;
    cublasPointerMode_t pointer_mode;
    cublasMath_t math_mode;
    cublasAtomicsMode_t atomics;
    void *workspace;
    size_t workspace_size;
};

/* A scalar captured by value: big enough for a double complex. */
typedef union {
    float f;
    double d;
    float c[2];
    double z[2];
    int32_t i;
    uint16_t h;
} zn_scalar;

/* The arguments of one operation; each op reads the fields it needs. */
typedef struct zn_blas_args {
    int trans, transb, uplo, side, diag;
    int m, n, k;
    zn_scalar alpha, beta, alpha2;   /* alpha2: rot's s (c goes in alpha) */
    const void *a, *b;
    void *c;
    int lda, ldb, ldc;
    const void *x;
    void *y;
    int incx, incy;
    void *result;
    /* GemmEx family */
    int atype, btype, ctype, compute;
    int path;                        /* zn_blas_gemm_ex.c's chosen kernel */
    int batch;
    long long stride_a, stride_b, stride_c;
    const void *const *a_array;
    const void *const *b_array;
    void *const *c_array;
} zn_blas_args;

typedef cublasStatus_t (*zn_blas_fn)(const zn_blas_args *args);

/* zn_blas_submit.c: run fn(args) in stream order on h's stream. */
cublasStatus_t zn_blas_submit(cublasHandle_t h, zn_blas_fn fn, const zn_blas_args *args);

/* zn_blas_handle.c: the handle check every API function starts with. */
#define ZN_BLAS_CHECK_HANDLE(h) \
    do { if (!(h)) return CUBLAS_STATUS_NOT_INITIALIZED; } while (0)

/* Copy a scalar of `size` bytes (read through p: host and device pointers
 * are both host memory). */
void zn_blas_scalar(zn_scalar *out, const void *p, size_t size);

#endif
