/* zn_lt_handle.c: cuBLASLt handles, versions, status names, logger. */
#include "zn_lt.h"

#include <stdio.h>
#include <stdlib.h>

ZN_API cublasStatus_t cublasLtCreate(cublasLtHandle_t *handle)
{
    if (!handle)
        return CUBLAS_STATUS_INVALID_VALUE;
    *handle = calloc(1, sizeof **handle);
    zn_blas_par_workers();  /* OpenBLAS to one thread before any matmul */
    return *handle ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_ALLOC_FAILED;
}

ZN_API cublasStatus_t cublasLtDestroy(cublasLtHandle_t handle)
{
    if (!handle)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    free(handle);
    return CUBLAS_STATUS_SUCCESS;
}

ZN_API size_t cublasLtGetVersion(void)
{
    return ZN_CUBLAS_VERSION;
}

ZN_API size_t cublasLtGetCudartVersion(void)
{
    return ZN_CUDART_VERSION;
}

ZN_API cublasStatus_t cublasLtGetProperty(libraryPropertyType type, int *value)
{
    if (!value)
        return CUBLAS_STATUS_INVALID_VALUE;
    switch (type) {
    case ZN_MAJOR_VERSION: *value = ZN_CUBLAS_VER_MAJOR; break;
    case ZN_MINOR_VERSION: *value = ZN_CUBLAS_VER_MINOR; break;
    case ZN_PATCH_LEVEL: *value = ZN_CUBLAS_VER_PATCH; break;
    default: return CUBLAS_STATUS_INVALID_VALUE;
    }
    return CUBLAS_STATUS_SUCCESS;
}

ZN_API const char *cublasLtGetStatusName(cublasStatus_t status)
{
    return zn_blas_status_name(status);
}

ZN_API const char *cublasLtGetStatusString(cublasStatus_t status)
{
    return zn_blas_status_string(status);
}

/* NVIDIA's API trace is accepted and ignored: ZINC_LOG is Zinc's log. */
ZN_API cublasStatus_t cublasLtLoggerSetCallback(cublasLtLoggerCallback_t cb) { return CUBLAS_STATUS_SUCCESS; }
ZN_API cublasStatus_t cublasLtLoggerSetFile(FILE *file) { return CUBLAS_STATUS_SUCCESS; }
ZN_API cublasStatus_t cublasLtLoggerOpenFile(const char *path) { return CUBLAS_STATUS_SUCCESS; }
ZN_API cublasStatus_t cublasLtLoggerSetLevel(int level) { return CUBLAS_STATUS_SUCCESS; }
ZN_API cublasStatus_t cublasLtLoggerSetMask(int mask) { return CUBLAS_STATUS_SUCCESS; }
ZN_API cublasStatus_t cublasLtLoggerForceDisable(void) { return CUBLAS_STATUS_SUCCESS; }
ZN_API cublasStatus_t cublasLtHeuristicsCacheGetCapacity(size_t *capacity)
{
    if (!capacity)
        return CUBLAS_STATUS_INVALID_VALUE;
    *capacity = 0;
    return CUBLAS_STATUS_SUCCESS;
}
ZN_API cublasStatus_t cublasLtHeuristicsCacheSetCapacity(size_t capacity) { return CUBLAS_STATUS_SUCCESS; }

/* A Zinc-only export: tests use it to prove which library got loaded. */
ZN_API const char *zn_cublaslt_implementation(void)
{
    return "zinc";
}
