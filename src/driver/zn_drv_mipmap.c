/* zn_drv_mipmap.c: mipmapped arrays (cuMipmappedArrayCreate, GetLevel,
 * Destroy).
 *
 * A mipmapped array is a zn_mipmap handle over one ordinary zn_array per
 * level, so a level handed out by cuMipmappedArrayGetLevel works with
 * cuMemcpy2D/3D and surfaces like any array. Level i is max(1, dim >> i)
 * in width, height and (3D only) depth; layered and cubemap arrays keep
 * their layer count on every level. Texture objects on a mipmapped array
 * (zn_drv_texobj.c) describe all levels to the sampler.
 */
#include "zn_drv.h"
#include "../util/zn_log.h"

zn_mipmap *zn_mipmap_get(CUmipmappedArray h)
{
    zn_mipmap *m = h;
    return m && m->magic == ZN_MAGIC_MIPMAP ? m : NULL;
}

static size_t shrink(size_t n, unsigned i)
{
    return n ? (n >> i ? n >> i : 1) : 0; /* 0 (no such dimension) stays 0 */
}

static void mipmap_free(zn_mipmap *m)
{
    for (unsigned i = 0; i < m->nlevels; i++)
        if (m->level[i])
            zn_array_free(m->level[i]);
    zn_handle_retire(ZN_HANDLE_MIPMAP, m, sizeof *m);
}

static CUresult mipmap_create(CUmipmappedArray *out, const CUDA_ARRAY3D_DESCRIPTOR *d,
                              unsigned levels)
{
    if (!out || !d || !levels)
        return CUDA_ERROR_INVALID_VALUE;
    if (zn_array_planar_is(d->Format) || zn_array_packed_is(d->Format)) {
        zn_log(ZN_LOG_WARN, "cuMipmappedArrayCreate: video format 0x%x has no mipmaps",
               (unsigned)d->Format);
        return CUDA_ERROR_INVALID_VALUE;
    }
    bool layered = (d->Flags & (CUDA_ARRAY3D_LAYERED | CUDA_ARRAY3D_CUBEMAP)) != 0;
    size_t big = d->Width > d->Height ? d->Width : d->Height;
    if (!layered && d->Depth > big)
        big = d->Depth;
    unsigned most = 1; /* 1 + floor(log2(largest dimension)) */
    while (big >> most)
        most++;
    if (levels > most || levels > ZN_MIP_MAX_LEVELS)
        return CUDA_ERROR_INVALID_VALUE;
    zn_mipmap *m = zn_handle_new(ZN_HANDLE_MIPMAP, sizeof *m);
    if (!m)
        return CUDA_ERROR_OUT_OF_MEMORY;
    m->nlevels = levels;
    for (unsigned i = 0; i < levels; i++) {
        CUDA_ARRAY3D_DESCRIPTOR ld = *d;
        ld.Width = shrink(d->Width, i);
        ld.Height = shrink(d->Height, i);
        if (!layered)
            ld.Depth = shrink(d->Depth, i);
        CUarray a = NULL;
        CUresult e = zn_array_create(&a, &ld);
        if (e != CUDA_SUCCESS) {
            mipmap_free(m);
            return e;
        }
        m->level[i] = a;
        m->level[i]->mip_level = true;
    }
    if (d->Flags & CUDA_ARRAY3D_SPARSE) { /* tiles and the mip tail across levels */
        CUresult e = zn_sparse_init(m->level, levels);
        if (e != CUDA_SUCCESS) {
            mipmap_free(m);
            return e;
        }
    }
    m->magic = ZN_MAGIC_MIPMAP;
    *out = m;
    return CUDA_SUCCESS;
}

CUresult cuMipmappedArrayCreate(CUmipmappedArray *out, const CUDA_ARRAY3D_DESCRIPTOR *d,
                                unsigned int levels)
{
    ZN_CHECK_INIT();
    ZN_RET(mipmap_create(out, d, levels));
}

CUresult cuMipmappedArrayGetLevel(CUarray *out, CUmipmappedArray h, unsigned int level)
{
    ZN_CHECK_INIT();
    zn_mipmap *m = zn_mipmap_get(h);
    if (!m)
        ZN_RET(CUDA_ERROR_INVALID_HANDLE);
    if (!out || level >= m->nlevels)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    *out = m->level[level];
    ZN_RET(CUDA_SUCCESS);
}

CUresult cuMipmappedArrayDestroy(CUmipmappedArray h)
{
    ZN_CHECK_INIT();
    zn_mipmap *m = zn_mipmap_get(h);
    if (!m)
        ZN_RET(CUDA_ERROR_INVALID_HANDLE);
    mipmap_free(m);
    ZN_RET(CUDA_SUCCESS);
}
