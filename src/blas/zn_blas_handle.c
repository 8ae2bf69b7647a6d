/* zn_blas_handle.c: cuBLAS handles, their modes, versions, status names
 * and the logger hooks. */
#include "zn_blas.h"
#include "../util/zn_log.h"

#include <stdlib.h>

ZN_API cublasStatus_t cublasCreate_v2(cublasHandle_t *handle)
{
    if (!handle)
        return CUBLAS_STATUS_INVALID_VALUE;
    struct cublasContext *h = calloc(1, sizeof *h);
    if (!h)
        return CUBLAS_STATUS_ALLOC_FAILED;
    zn_blas_par_workers();  /* OpenBLAS to one thread before any routine */
    *handle = h;
    return CUBLAS_STATUS_SUCCESS;
}

ZN_API cublasStatus_t cublasDestroy_v2(cublasHandle_t handle)
{
    ZN_BLAS_CHECK_HANDLE(handle);
    free(handle);
    return CUBLAS_STATUS_SUCCESS;
}

ZN_API cublasStatus_t cublasGetVersion_v2(cublasHandle_t handle, int *version)
{
    if (!version)
        return CUBLAS_STATUS_INVALID_VALUE;
    *version = ZN_CUBLAS_VERSION;
    return CUBLAS_STATUS_SUCCESS;
}

ZN_API cublasStatus_t cublasGetProperty(libraryPropertyType type, int *value)
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

ZN_API size_t cublasGetCudartVersion(void)
{
    return ZN_CUDART_VERSION;
}

ZN_API cublasStatus_t cublasSetStream_v2(cublasHandle_t handle, cudaStream_t stream)
{
    ZN_BLAS_CHECK_HANDLE(handle);
    handle->stream = stream;
    return CUBLAS_STATUS_SUCCESS;
}

ZN_API cublasStatus_t cublasGetStream_v2(cublasHandle_t handle, cudaStream_t *stream)
{
    ZN_BLAS_CHECK_HANDLE(handle);
    if (!stream)
        return CUBLAS_STATUS_INVALID_VALUE;
    *stream = handle->stream;
    return CUBLAS_STATUS_SUCCESS;
}

ZN_API cublasStatus_t cublasSetPointerMode_v2(cublasHandle_t handle, cublasPointerMode_t mode)
{
    ZN_BLAS_CHECK_HANDLE(handle);
    if (mode != CUBLAS_POINTER_MODE_HOST && mode != CUBLAS_POINTER_MODE_DEVICE)
        return CUBLAS_STATUS_INVALID_VALUE;
    handle->pointer_mode = mode;
    return CUBLAS_STATUS_SUCCESS;
}

ZN_API cublasStatus_t cublasGetPointerMode_v2(cublasHandle_t handle, cublasPointerMode_t *mode)
{
    ZN_BLAS_CHECK_HANDLE(handle);
    if (!mode)
        return CUBLAS_STATUS_INVALID_VALUE;
    *mode = handle->pointer_mode;
    return CUBLAS_STATUS_SUCCESS;
}

/* Math modes change only which tensor-core paths NVIDIA may take; every
 * mode computes in f32 (or wider) here. */
ZN_API cublasStatus_t cublasSetMathMode(cublasHandle_t handle, cublasMath_t mode)
{
    ZN_BLAS_CHECK_HANDLE(handle);
    handle->math_mode = mode;
    return CUBLAS_STATUS_SUCCESS;
}

ZN_API cublasStatus_t cublasGetMathMode(cublasHandle_t handle, cublasMath_t *mode)
{
    ZN_BLAS_CHECK_HANDLE(handle);
    if (!mode)
        return CUBLAS_STATUS_INVALID_VALUE;
    *mode = handle->math_mode;
    return CUBLAS_STATUS_SUCCESS;
}

ZN_API cublasStatus_t cublasSetAtomicsMode(cublasHandle_t handle, cublasAtomicsMode_t mode)
{
    ZN_BLAS_CHECK_HANDLE(handle);
    handle->atomics = mode;
    return CUBLAS_STATUS_SUCCESS;
}

ZN_API cublasStatus_t cublasGetAtomicsMode(cublasHandle_t handle, cublasAtomicsMode_t *mode)
{
    ZN_BLAS_CHECK_HANDLE(handle);
    if (!mode)
        return CUBLAS_STATUS_INVALID_VALUE;
    *mode = handle->atomics;
    return CUBLAS_STATUS_SUCCESS;
}

/* Kept for the day a BLAS op needs scratch memory; OpenBLAS has its own. */
ZN_API cublasStatus_t cublasSetWorkspace_v2(cublasHandle_t handle, void *workspace, size_t size)
{
    ZN_BLAS_CHECK_HANDLE(handle);
    handle->workspace = workspace;
    handle->workspace_size = size;
    return CUBLAS_STATUS_SUCCESS;
}

ZN_API cublasStatus_t cublasSetSmCountTarget(cublasHandle_t handle, int count)
{
    ZN_BLAS_CHECK_HANDLE(handle);
    return CUBLAS_STATUS_SUCCESS;
}

ZN_API cublasStatus_t cublasGetSmCountTarget(cublasHandle_t handle, int *count)
{
    ZN_BLAS_CHECK_HANDLE(handle);
    if (!count)
        return CUBLAS_STATUS_INVALID_VALUE;
    *count = 0;
    return CUBLAS_STATUS_SUCCESS;
}

ZN_API const char *cublasGetStatusName(cublasStatus_t status)
{
    return zn_blas_status_name(status);
}

ZN_API const char *cublasGetStatusString(cublasStatus_t status)
{
    return zn_blas_status_string(status);
}

/* cuBLAS's own API log is NVIDIA's debugging aid: accepted, and Zinc's
 * ZINC_LOG stays the log that matters. */
static cublasLogCallback log_callback;

ZN_API cublasStatus_t cublasLoggerConfigure(int on, int to_stdout, int to_stderr, const char *file)
{
    return CUBLAS_STATUS_SUCCESS;
}

ZN_API cublasStatus_t cublasSetLoggerCallback(cublasLogCallback cb)
{
    log_callback = cb;
    return CUBLAS_STATUS_SUCCESS;
}

ZN_API cublasStatus_t cublasGetLoggerCallback(cublasLogCallback *cb)
{
    if (!cb)
        return CUBLAS_STATUS_INVALID_VALUE;
    *cb = log_callback;
    return CUBLAS_STATUS_SUCCESS;
}

/* A Zinc-only export: tests use it to prove which libcublas got loaded. */
ZN_API const char *zn_cublas_implementation(void)
{
    return "zinc";
}
