/* zn_drv_library.c: cuLibraryGetUnifiedFunction.
 *
 * A unified function (PTX `.func .attribute(.unified(hi, lo))`, nvcc's
 * `__host__ __device__` functions under -fgpu-unified-function-pointers)
 * has one address that both host code and kernels may call. Zinc cannot
 * give such an address: a kernel's functions are compiled for the
 * warp-SIMD calling convention (a warp's 32 lanes at once, with Zinc's
 * hidden arguments), which host C code cannot call, and the parser drops
 * the attribute. So the device reports CU_DEVICE_ATTRIBUTE_UNIFIED_FUNCTION_POINTERS
 * = 0, and, as CUDA documents for a system without such a device, every
 * lookup that passes the argument checks is CUDA_ERROR_NOT_FOUND (logged).
 */
#include "zn_drv.h"
#include "../util/zn_log.h"

CUresult cuLibraryGetUnifiedFunction(void **fptr, CUlibrary lib, const char *symbol)
{
    ZN_CHECK_INIT();
    if (!lib || lib->magic != ZN_MAGIC_LIBRARY || !lib->mod ||
        lib->mod->magic != ZN_MAGIC_MODULE)
        ZN_RET(CUDA_ERROR_INVALID_HANDLE);
    if (!fptr || !symbol)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    zn_log(ZN_LOG_WARN, "cuLibraryGetUnifiedFunction(%s): no unified function pointers "
           "(kernels use Zinc's warp calling convention, host code cannot call them), "
           "returning CUDA_ERROR_NOT_FOUND", symbol);
    ZN_RET(CUDA_ERROR_NOT_FOUND);
}
