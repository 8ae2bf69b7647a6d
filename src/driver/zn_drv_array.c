/* zn_drv_array.c: CUDA arrays (cuArrayCreate, cuArray3DCreate, ...).
 *
 * An array is a zn_array handle over one zeroed host buffer with packed
 * rows: element (x, y, z) is at data + (z * rows + y) * pitch + x * esize,
 * where z is the depth slice or, with CUDA_ARRAY3D_LAYERED, the layer.
 * Textures and surfaces read the same layout (zn_drv_texobj.c) and
 * cuMemcpy2D/3D address it like pitched memory (zn_drv_copy.c). Every
 * CUarray_format Zinc samples is accepted with 1, 2 or 4 channels.
 * Cubemaps (CUDA_ARRAY3D_CUBEMAP, Width == Height, Depth 6 or, layered, a
 * multiple of 6) are stored like layered arrays: face f of cube c is layer
 * 6c + f. Block-compressed formats (CU_AD_FORMAT_BC1_UNORM .. BC7, 2D,
 * layered, 3D or cubemap; the channel count CUDA documents for the
 * format; no surface access) store rows of 4 x 4 texel blocks of 8 or 16
 * bytes: the array's elements are blocks, so cuMemcpy2D/3D take widths,
 * offsets and heights in blocks (ceil(Width / 4) x ceil(Height / 4)).
 * Sparse arrays have no buffer: their tiles are mapped to tile pools by
 * cuMemMapArrayAsync (zn_drv_sparse.c, zn_drv_sparse_map.c); planar video
 * formats (NV12, P016, ...) are zn_drv_array_planar.c's, packed ones (YUY2,
 * AYUV, ...) zn_drv_array_packed.c's. CUDA_ARRAY3D_DEFERRED_MAPPING is
 * accepted, but the array gets its own backing at once (cuMemMapArrayAsync
 * refuses it with NOT_SUPPORTED); it only makes cuArrayGetMemoryRequirements
 * answer (zn_drv_array_query.c).
 */
#include "zn_drv.h"
#include "../exec/zn_exec_texbc.h"
#include "../util/zn_log.h"

#include <stdlib.h>
#include <string.h>

#define ZN_ARRAY_MAX_DIM 65536u /* like NVIDIA's limits for 2D textures */

uint32_t zn_array_format_size(CUarray_format f)
{
    switch (f) {
    case CU_AD_FORMAT_UNSIGNED_INT8: case CU_AD_FORMAT_SIGNED_INT8: return 1;
    case CU_AD_FORMAT_UNSIGNED_INT16: case CU_AD_FORMAT_SIGNED_INT16:
    case CU_AD_FORMAT_HALF: return 2;
    case CU_AD_FORMAT_UNSIGNED_INT32: case CU_AD_FORMAT_SIGNED_INT32:
    case CU_AD_FORMAT_FLOAT: return 4;
    default: return 0;
    }
}

zn_array *zn_array_get(CUarray a)
{
    zn_array *arr = a;
    return arr && arr->magic == ZN_MAGIC_ARRAY ? arr : NULL;
}

zn_array *zn_array_alloc(const CUDA_ARRAY3D_DESCRIPTOR *d, uint32_t csize, uint32_t esize,
                         size_t pitch, size_t rows, size_t slices)
{
    zn_array *a = zn_handle_new(ZN_HANDLE_ARRAY, sizeof *a);
    if (!a)
        return NULL;
    a->desc = *d;
    a->csize = csize;
    a->esize = esize;
    a->pitch = pitch;
    a->rows = rows;
    a->slices = slices;
    /* a sparse array's bytes are its tiles' (zn_sparse_init) */
    bool sparse = (d->Flags & CUDA_ARRAY3D_SPARSE) != 0;
    a->data = sparse ? NULL : calloc(slices * rows, pitch);
    if (!a->data && !sparse) {
        zn_handle_retire(ZN_HANDLE_ARRAY, a, sizeof *a);
        return NULL;
    }
    return a;
}

CUresult zn_array_create(CUarray *out, const CUDA_ARRAY3D_DESCRIPTOR *d)
{
    if (!out || !d)
        return CUDA_ERROR_INVALID_VALUE;
    const unsigned known = CUDA_ARRAY3D_LAYERED | CUDA_ARRAY3D_SURFACE_LDST |
                           CUDA_ARRAY3D_TEXTURE_GATHER | CUDA_ARRAY3D_CUBEMAP |
                           CUDA_ARRAY3D_DEFERRED_MAPPING | CUDA_ARRAY3D_SPARSE;
    if (zn_array_planar_is(d->Format))
        return zn_array_planar_create(out, d); /* zn_drv_array_planar.c */
    if (zn_array_packed_is(d->Format))
        return zn_array_packed_create(out, d); /* zn_drv_array_packed.c */
    if (d->Flags & CUDA_ARRAY3D_SPARSE) { /* tiles, properties: zn_drv_sparse.c */
        CUresult se = zn_sparse_check(d);
        if (se != CUDA_SUCCESS)
            return se;
    }
    if (d->Flags & ~known)
        return CUDA_ERROR_INVALID_VALUE;
    if ((d->Flags & CUDA_ARRAY3D_CUBEMAP) &&
        (d->Width != d->Height || !d->Depth || d->Depth % 6 ||
         (!(d->Flags & CUDA_ARRAY3D_LAYERED) && d->Depth != 6)))
        return CUDA_ERROR_INVALID_VALUE; /* square faces, 6 of them per cube */
    bool bc = zn_texbc_is(d->Format);
    /* a block-compressed element is a 4 x 4 block */
    uint32_t cs = bc ? zn_texbc_block_bytes(d->Format) : zn_array_format_size(d->Format);
    if (!cs) {
        zn_log(ZN_LOG_WARN, "cuArray3DCreate: array format 0x%x is not supported",
               (unsigned)d->Format);
        return CUDA_ERROR_INVALID_VALUE;
    }
    if (bc ? d->NumChannels != zn_texbc_channels(d->Format) || !d->Height ||
                 (d->Flags & CUDA_ARRAY3D_SURFACE_LDST)
           : d->NumChannels != 1 && d->NumChannels != 2 && d->NumChannels != 4)
        return CUDA_ERROR_INVALID_VALUE;
    bool layered = (d->Flags & (CUDA_ARRAY3D_LAYERED | CUDA_ARRAY3D_CUBEMAP)) != 0;
    /* 1D: W; 2D: W x H; 3D: W x H x D; 1D layered: W, 0, L; 2D layered: W, H, L */
    if (!d->Width || (d->Depth && !d->Height && !layered) || (layered && !d->Depth) ||
        d->Width > ZN_ARRAY_MAX_DIM || d->Height > ZN_ARRAY_MAX_DIM ||
        d->Depth > ZN_ARRAY_MAX_DIM)
        return CUDA_ERROR_INVALID_VALUE;
    uint32_t es = bc ? cs : cs * d->NumChannels;
    zn_array *a = zn_array_alloc(d, cs, es, (bc ? (d->Width + 3) / 4 : d->Width) * es,
                                 bc ? (d->Height + 3) / 4 : d->Height ? d->Height : 1,
                                 d->Depth ? d->Depth : 1);
    if (!a)
        return CUDA_ERROR_OUT_OF_MEMORY;
    a->magic = ZN_MAGIC_ARRAY;
    *out = a;
    return CUDA_SUCCESS;
}

CUresult cuArray3DCreate_v2(CUarray *out, const CUDA_ARRAY3D_DESCRIPTOR *d)
{
    ZN_CHECK_INIT();
    CUresult r = zn_array_create(out, d);
    if (r == CUDA_SUCCESS && (d->Flags & CUDA_ARRAY3D_SPARSE)) {
        zn_array *a = *out;
        r = zn_sparse_init(&a, 1);
        if (r != CUDA_SUCCESS) {
            zn_array_free(a);
            *out = NULL;
        }
    }
    ZN_RET(r);
}

CUresult cuArrayCreate_v2(CUarray *out, const CUDA_ARRAY_DESCRIPTOR *d)
{
    ZN_CHECK_INIT();
    if (!d)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    CUDA_ARRAY3D_DESCRIPTOR d3 = {d->Width, d->Height, 0, d->Format, d->NumChannels, 0};
    ZN_RET(zn_array_create(out, &d3));
}

CUresult cuArray3DGetDescriptor_v2(CUDA_ARRAY3D_DESCRIPTOR *d, CUarray h)
{
    ZN_CHECK_INIT();
    zn_array *a = zn_array_get(h);
    if (!a)
        ZN_RET(CUDA_ERROR_INVALID_HANDLE);
    if (!d)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    *d = a->desc;
    ZN_RET(CUDA_SUCCESS);
}

CUresult cuArrayGetDescriptor_v2(CUDA_ARRAY_DESCRIPTOR *d, CUarray h)
{
    ZN_CHECK_INIT();
    zn_array *a = zn_array_get(h);
    if (!a)
        ZN_RET(CUDA_ERROR_INVALID_HANDLE);
    if (!d)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    d->Width = a->desc.Width;
    d->Height = a->desc.Height;
    d->Format = a->desc.Format;
    d->NumChannels = a->desc.NumChannels;
    ZN_RET(CUDA_SUCCESS);
}

CUresult cuArrayDestroy(CUarray h)
{
    ZN_CHECK_INIT();
    zn_array *a = zn_array_get(h);
    if (!a || a->mip_level || a->plane_of) /* levels, planes go with their parent */
        ZN_RET(CUDA_ERROR_INVALID_HANDLE);
    zn_array_free(a);
    ZN_RET(CUDA_SUCCESS);
}

void zn_array_free(zn_array *a)
{
    /* copies already queued on streams may still read it: CUDA makes the
     * caller order destruction after them, as cuMemFree does */
    zn_array_planar_free(a);
    zn_sparse_free(a);
    free(a->data);
    zn_handle_retire(ZN_HANDLE_ARRAY, a, sizeof *a);
}
