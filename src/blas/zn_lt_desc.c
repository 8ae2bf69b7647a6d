/* zn_lt_desc.c: matmul descriptors (compute/scale type, transposes,
 * epilogue and its bias / aux buffers). */
#include "zn_lt.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define F(attr, member) { attr, offsetof(zn_lt_desc, member), sizeof(((zn_lt_desc *)0)->member) }
static const zn_lt_field desc_fields[] = {
    F(CUBLASLT_MATMUL_DESC_COMPUTE_TYPE, compute),
    F(CUBLASLT_MATMUL_DESC_SCALE_TYPE, scale_type),
    F(CUBLASLT_MATMUL_DESC_POINTER_MODE, pointer_mode),
    F(CUBLASLT_MATMUL_DESC_TRANSA, transa),
    F(CUBLASLT_MATMUL_DESC_TRANSB, transb),
    F(CUBLASLT_MATMUL_DESC_EPILOGUE, epilogue),
    F(CUBLASLT_MATMUL_DESC_BIAS_POINTER, bias),
    F(CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE, bias_batch_stride),
    F(CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER, aux),
    F(CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD, aux_ld),
    F(CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_BATCH_STRIDE, aux_batch_stride),
    F(CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_DATA_TYPE, aux_type),
    F(CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, bias_type),
};
#undef F
#define NFIELDS (sizeof desc_fields / sizeof desc_fields[0])

ZN_API cublasStatus_t cublasLtMatmulDescInit_internal(cublasLtMatmulDesc_t d, size_t size,
                                                      cublasComputeType_t compute,
                                                      cudaDataType scale)
{
    if (!d || size < sizeof(zn_lt_desc))
        return CUBLAS_STATUS_INVALID_VALUE;
    zn_lt_desc *z = (zn_lt_desc *)d;
    memset(z, 0, sizeof *z);
    *z = (zn_lt_desc){ .magic = ZN_LT_DESC_MAGIC, .compute = compute, .scale_type = scale,
                       .epilogue = CUBLASLT_EPILOGUE_DEFAULT, .bias_type = -1, .aux_type = -1 };
    return CUBLAS_STATUS_SUCCESS;
}

ZN_API cublasStatus_t cublasLtMatmulDescCreate(cublasLtMatmulDesc_t *d, cublasComputeType_t compute,
                                               cudaDataType scale)
{
    if (!d)
        return CUBLAS_STATUS_INVALID_VALUE;
    cublasLtMatmulDesc_t n = calloc(1, sizeof *n);
    if (!n)
        return CUBLAS_STATUS_ALLOC_FAILED;
    cublasLtMatmulDescInit_internal(n, sizeof *n, compute, scale);
    *d = n;
    return CUBLAS_STATUS_SUCCESS;
}

ZN_API cublasStatus_t cublasLtMatmulDescDestroy(cublasLtMatmulDesc_t d)
{
    free(d);
    return CUBLAS_STATUS_SUCCESS;
}

/* Attributes NVIDIA defines that change nothing on a CPU are accepted
 * when their size is right (so that apps setting them keep working). */
static bool harmless(int attr, size_t size)
{
    switch (attr) {
    case CUBLASLT_MATMUL_DESC_TRANSC:
    case CUBLASLT_MATMUL_DESC_FILL_MODE:
    case CUBLASLT_MATMUL_DESC_SM_COUNT_TARGET: return size == 4;
    case CUBLASLT_MATMUL_DESC_ALPHA_VECTOR_BATCH_STRIDE: return size == 8;
    case CUBLASLT_MATMUL_DESC_FAST_ACCUM: return size == 1;
    default: return false;
    }
}

ZN_API cublasStatus_t cublasLtMatmulDescSetAttribute(cublasLtMatmulDesc_t d, int attr,
                                                     const void *buf, size_t size)
{
    zn_lt_desc *z = zn_lt_desc_of(d);
    if (!z)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (harmless(attr, size))
        return CUBLAS_STATUS_SUCCESS;
    return zn_lt_set_field(desc_fields, NFIELDS, z, attr, buf, size);
}

ZN_API cublasStatus_t cublasLtMatmulDescGetAttribute(cublasLtMatmulDesc_t d, int attr, void *buf,
                                                     size_t size, size_t *written)
{
    zn_lt_desc *z = zn_lt_desc_of(d);
    if (!z)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    return zn_lt_get_field(desc_fields, NFIELDS, z, attr, buf, size, written);
}
