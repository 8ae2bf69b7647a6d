/* zn_blas_setget.c: cublasSet/GetVector and Set/GetMatrix (+Async).
 * Device memory is host memory, so each is a strided copy, made once the
 * stream (the legacy default stream for the blocking forms) has drained. */
#include "zn_blas.h"

#include <string.h>

static cublasStatus_t copy_vector(int n, int elem, const void *x, int incx, void *y, int incy)
{
    if (n < 0 || elem <= 0 || incx == 0 || incy == 0)
        return CUBLAS_STATUS_INVALID_VALUE;
    const char *s = x;
    char *d = y;
    if (incx == 1 && incy == 1) {
        memmove(d, s, (size_t)n * (size_t)elem);
        return CUBLAS_STATUS_SUCCESS;
    }
    for (int i = 0; i < n; i++)
        memmove(d + (ptrdiff_t)i * incy * elem, s + (ptrdiff_t)i * incx * elem, (size_t)elem);
    return CUBLAS_STATUS_SUCCESS;
}

static cublasStatus_t copy_matrix(int rows, int cols, int elem, const void *a, int lda, void *b, int ldb)
{
    if (rows < 0 || cols < 0 || elem <= 0 || lda <= 0 || ldb <= 0 || lda < rows || ldb < rows)
        return CUBLAS_STATUS_INVALID_VALUE;
    const char *s = a;
    char *d = b;
    for (int j = 0; j < cols; j++)
        memmove(d + (size_t)j * ldb * elem, s + (size_t)j * lda * elem, (size_t)rows * elem);
    return CUBLAS_STATUS_SUCCESS;
}

ZN_API cublasStatus_t cublasSetVector(int n, int elem, const void *x, int incx, void *y, int incy)
{
    zn_blas_stream_sync(NULL);
    return copy_vector(n, elem, x, incx, y, incy);
}

ZN_API cublasStatus_t cublasGetVector(int n, int elem, const void *x, int incx, void *y, int incy)
{
    zn_blas_stream_sync(NULL);
    return copy_vector(n, elem, x, incx, y, incy);
}

ZN_API cublasStatus_t cublasSetMatrix(int rows, int cols, int elem, const void *a, int lda, void *b, int ldb)
{
    zn_blas_stream_sync(NULL);
    return copy_matrix(rows, cols, elem, a, lda, b, ldb);
}

ZN_API cublasStatus_t cublasGetMatrix(int rows, int cols, int elem, const void *a, int lda, void *b, int ldb)
{
    zn_blas_stream_sync(NULL);
    return copy_matrix(rows, cols, elem, a, lda, b, ldb);
}

ZN_API cublasStatus_t cublasSetVectorAsync(int n, int elem, const void *x, int incx, void *y, int incy,
                                           cudaStream_t stream)
{
    zn_blas_stream_sync(stream);
    return copy_vector(n, elem, x, incx, y, incy);
}

ZN_API cublasStatus_t cublasGetVectorAsync(int n, int elem, const void *x, int incx, void *y, int incy,
                                           cudaStream_t stream)
{
    zn_blas_stream_sync(stream);
    return copy_vector(n, elem, x, incx, y, incy);
}

ZN_API cublasStatus_t cublasSetMatrixAsync(int rows, int cols, int elem, const void *a, int lda, void *b,
                                           int ldb, cudaStream_t stream)
{
    zn_blas_stream_sync(stream);
    return copy_matrix(rows, cols, elem, a, lda, b, ldb);
}

ZN_API cublasStatus_t cublasGetMatrixAsync(int rows, int cols, int elem, const void *a, int lda, void *b,
                                           int ldb, cudaStream_t stream)
{
    zn_blas_stream_sync(stream);
    return copy_matrix(rows, cols, elem, a, lda, b, ldb);
}
