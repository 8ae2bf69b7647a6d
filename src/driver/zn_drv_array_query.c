/* zn_drv_array_query.c: questions about CUDA arrays that create nothing:
 * memory requirements and the widest 1D
 * texture on linear memory.
 *
 * Memory requirements (cuArrayGetMemoryRequirements, the mipmapped form)
 * are documented only for arrays made with CUDA_ARRAY3D_DEFERRED_MAPPING;
 * any other array is CUDA_ERROR_INVALID_VALUE, as the driver API reference
 * says. The size is the array's packed bytes (every level for a mipmapped
 * array) rounded up to the alignment, which is the virtual-memory
 * granularity (2 MiB) so that cuMemCreate accepts that size as it is.
 * cuArrayGetPlane is in zn_drv_array_planar.c. The
 * sparse-property queries are in zn_drv_sparse.c.
 */
#include "zn_drv.h"
#include "../util/zn_log.h"

#include <string.h>

#define ZN_ARRAY_MAP_ALIGN ((size_t)2 << 20) /* cuMemGetAllocationGranularity */

static size_t array_bytes(const zn_array *a)
{
    return a->slices * a->rows * a->pitch;
}

static size_t round_up(size_t n, size_t a)
{
    return (n + a - 1) / a * a;
}

static CUresult requirements(CUDA_ARRAY_MEMORY_REQUIREMENTS *r, size_t bytes, unsigned flags,
                             CUdevice dev)
{
    if (dev < 0 || dev >= ZN_NDEVICES)
        return CUDA_ERROR_INVALID_DEVICE;
    if (!r || !(flags & CUDA_ARRAY3D_DEFERRED_MAPPING))
        return CUDA_ERROR_INVALID_VALUE;
    memset(r, 0, sizeof *r);
    r->alignment = ZN_ARRAY_MAP_ALIGN;
    r->size = round_up(bytes, ZN_ARRAY_MAP_ALIGN);
    return CUDA_SUCCESS;
}

CUresult cuArrayGetMemoryRequirements(CUDA_ARRAY_MEMORY_REQUIREMENTS *r, CUarray h,
                                      CUdevice dev)
{
    ZN_CHECK_INIT();
    zn_array *a = zn_array_get(h);
    if (!a)
        ZN_RET(CUDA_ERROR_INVALID_HANDLE);
    ZN_RET(requirements(r, array_bytes(a), a->desc.Flags, dev));
}

CUresult cuMipmappedArrayGetMemoryRequirements(CUDA_ARRAY_MEMORY_REQUIREMENTS *r,
                                               CUmipmappedArray h, CUdevice dev)
{
    ZN_CHECK_INIT();
    zn_mipmap *m = zn_mipmap_get(h);
    if (!m)
        ZN_RET(CUDA_ERROR_INVALID_HANDLE);
    size_t bytes = 0;
    for (unsigned i = 0; i < m->nlevels; i++)
        bytes += array_bytes(m->level[i]);
    ZN_RET(requirements(r, bytes, m->level[0]->desc.Flags, dev));
}

/* cuArrayGetPlane: zn_drv_array_planar.c */

CUresult cuDeviceGetTexture1DLinearMaxWidth(size_t *w, CUarray_format f, unsigned nch,
                                            CUdevice dev)
{
    ZN_CHECK_INIT();
    if (dev < 0 || dev >= ZN_NDEVICES)
        ZN_RET(CUDA_ERROR_INVALID_DEVICE);
    if (!w || !zn_array_format_size(f) || (nch != 1 && nch != 2 && nch != 4))
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    /* the sampler indexes elements, whatever their size: every format gets
     * CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LINEAR_WIDTH elements */
    int v = 0;
    CUresult e = zn_dev_attr(&v, CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LINEAR_WIDTH);
    if (e == CUDA_SUCCESS)
        *w = (size_t)v;
    ZN_RET(e);
}
