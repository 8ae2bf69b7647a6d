/* zn_lt_layout.c: matrix layouts (type, order, rows, cols, ld, batch). */
#include "zn_lt.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define F(attr, member) { attr, offsetof(zn_lt_layout, member), sizeof(((zn_lt_layout *)0)->member) }
static const zn_lt_field layout_fields[] = {
    F(CUBLASLT_MATRIX_LAYOUT_TYPE, type),
    F(CUBLASLT_MATRIX_LAYOUT_ORDER, order),
    F(CUBLASLT_MATRIX_LAYOUT_ROWS, rows),
    F(CUBLASLT_MATRIX_LAYOUT_COLS, cols),
    F(CUBLASLT_MATRIX_LAYOUT_LD, ld),
    F(CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, batch_count),
    F(CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, batch_stride),
};
#undef F
#define NFIELDS (sizeof layout_fields / sizeof layout_fields[0])

ZN_API cublasStatus_t cublasLtMatrixLayoutInit_internal(cublasLtMatrixLayout_t l, size_t size,
                                                        cudaDataType type, uint64_t rows,
                                                        uint64_t cols, int64_t ld)
{
    if (!l || size < sizeof(zn_lt_layout))
        return CUBLAS_STATUS_INVALID_VALUE;
    zn_lt_layout *z = (zn_lt_layout *)l;
    memset(z, 0, sizeof *z);
    *z = (zn_lt_layout){ .magic = ZN_LT_LAYOUT_MAGIC, .type = type, .order = CUBLASLT_ORDER_COL,
                         .batch_count = 1, .rows = rows, .cols = cols, .ld = ld };
    return CUBLAS_STATUS_SUCCESS;
}

ZN_API cublasStatus_t cublasLtMatrixLayoutCreate(cublasLtMatrixLayout_t *l, cudaDataType type,
                                                 uint64_t rows, uint64_t cols, int64_t ld)
{
    if (!l)
        return CUBLAS_STATUS_INVALID_VALUE;
    cublasLtMatrixLayout_t n = calloc(1, sizeof *n);
    if (!n)
        return CUBLAS_STATUS_ALLOC_FAILED;
    cublasLtMatrixLayoutInit_internal(n, sizeof *n, type, rows, cols, ld);
    *l = n;
    return CUBLAS_STATUS_SUCCESS;
}

ZN_API cublasStatus_t cublasLtMatrixLayoutDestroy(cublasLtMatrixLayout_t l)
{
    free(l);
    return CUBLAS_STATUS_SUCCESS;
}

ZN_API cublasStatus_t cublasLtMatrixLayoutSetAttribute(cublasLtMatrixLayout_t l, int attr,
                                                       const void *buf, size_t size)
{
    zn_lt_layout *z = zn_lt_layout_of(l);
    if (!z)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    return zn_lt_set_field(layout_fields, NFIELDS, z, attr, buf, size);
}

ZN_API cublasStatus_t cublasLtMatrixLayoutGetAttribute(cublasLtMatrixLayout_t l, int attr,
                                                       void *buf, size_t size, size_t *written)
{
    zn_lt_layout *z = zn_lt_layout_of(l);
    if (!z)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    return zn_lt_get_field(layout_fields, NFIELDS, z, attr, buf, size, written);
}
