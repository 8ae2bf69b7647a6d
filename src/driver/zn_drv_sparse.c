/* zn_drv_sparse.c: sparse CUDA arrays (CUDA_ARRAY3D_SPARSE): the checks
 * cuArray3DCreate / cuMipmappedArrayCreate make for them and the
 * sparse-property queries.
 *
 * A sparse array is divided into 64 KiB tiles whose extents depend only on
 * the element size and on whether the array is 3D, as CUDA's table gives
 * (the standard sparse block shapes):
 *
 *   element bytes   2D / layered     3D
 *   1               256 x 256        64 x 32 x 32
 *   2               256 x 128        32 x 32 x 32
 *   4               128 x 128        32 x 32 x 16
 *   8               128 x 64         32 x 16 x 16
 *   16              64 x 64          16 x 16 x 16
 *
 * The mip tail starts at the first level smaller than one tile in any of
 * its dimensions; its size is the packed bytes of those levels (per layer
 * for a layered array, which has one tail per layer: flags 0) rounded up
 * to whole tiles.
 *
 * What is NOT done (the subset): a sparse array gets its whole backing at
 * creation, zeroed, like any array, so every tile reads and writes as if
 * mapped; cuMemMapArrayAsync is not exported (CUarrayMapInfo tile
 * mapping to cuMemCreate allocations), so writes to "unmapped" tiles are
 * kept rather than dropped and the tex residency predicate is always true.
 * Block-compressed sparse arrays are NOT_SUPPORTED.
 */
#include "zn_drv.h"
#include "../exec/zn_exec_texbc.h"
#include "../util/zn_log.h"

#include <string.h>

#define ZN_SPARSE_TILE_BYTES ((unsigned long long)64 << 10)

CUresult zn_sparse_check(const CUDA_ARRAY3D_DESCRIPTOR *d)
{
    if (zn_texbc_is(d->Format)) {
        zn_log(ZN_LOG_WARN, "cuArray3DCreate: sparse block-compressed arrays are not supported");
        return CUDA_ERROR_NOT_SUPPORTED;
    }
    /* tiles are 2D or 3D: a 1D (or 1D layered) sparse array has none */
    if (!d->Height || (d->Flags & CUDA_ARRAY3D_DEFERRED_MAPPING))
        return CUDA_ERROR_INVALID_VALUE;
    return CUDA_SUCCESS;
}

static bool is_3d(const zn_array *a)
{
    return a->desc.Depth && !(a->desc.Flags & (CUDA_ARRAY3D_LAYERED | CUDA_ARRAY3D_CUBEMAP));
}

/* tile extent in elements for an element size and dimensionality */
static void tile_extent(unsigned esize, bool three_d, unsigned ext[3])
{
    unsigned lg = 0; /* log2 of the element size: 0..4 */
    while ((1u << lg) < esize && lg < 4)
        lg++;
    static const unsigned t2[5][2] = {{256, 256}, {256, 128}, {128, 128}, {128, 64}, {64, 64}};
    static const unsigned t3[5][3] = {{64, 32, 32}, {32, 32, 32}, {32, 32, 16},
                                      {32, 16, 16}, {16, 16, 16}};
    if (three_d) {
        memcpy(ext, t3[lg], sizeof t3[lg]);
    } else {
        ext[0] = t2[lg][0];
        ext[1] = t2[lg][1];
        ext[2] = 1;
    }
}

static unsigned long long round_tiles(unsigned long long n)
{
    return (n + ZN_SPARSE_TILE_BYTES - 1) / ZN_SPARSE_TILE_BYTES * ZN_SPARSE_TILE_BYTES;
}

static CUresult properties(CUDA_ARRAY_SPARSE_PROPERTIES *p, zn_array *const *level,
                           unsigned nlevels)
{
    if (!p || !(level[0]->desc.Flags & CUDA_ARRAY3D_SPARSE))
        return CUDA_ERROR_INVALID_VALUE; /* the reference's error for a non-sparse array */
    bool three_d = is_3d(level[0]);
    unsigned ext[3];
    tile_extent(level[0]->esize, three_d, ext);
    memset(p, 0, sizeof *p);
    p->tileExtent.width = ext[0];
    p->tileExtent.height = ext[1];
    p->tileExtent.depth = ext[2];
    p->miptailFirstLevel = nlevels;
    for (unsigned i = 0; i < nlevels; i++) {
        const CUDA_ARRAY3D_DESCRIPTOR *d = &level[i]->desc;
        bool small = d->Width < ext[0] || d->Height < ext[1] || (three_d && d->Depth < ext[2]);
        if (small && p->miptailFirstLevel == nlevels)
            p->miptailFirstLevel = i;
        if (p->miptailFirstLevel <= i) /* one layer's (or the 3D level's) bytes */
            p->miptailSize += (unsigned long long)level[i]->rows * level[i]->pitch *
                              (three_d ? level[i]->slices : 1);
    }
    p->miptailSize = round_tiles(p->miptailSize);
    p->flags = 0; /* layered arrays: one tail per layer */
    return CUDA_SUCCESS;
}

CUresult cuArrayGetSparseProperties(CUDA_ARRAY_SPARSE_PROPERTIES *p, CUarray h)
{
    ZN_CHECK_INIT();
    zn_array *a = zn_array_get(h);
    if (!a)
        ZN_RET(CUDA_ERROR_INVALID_HANDLE);
    ZN_RET(properties(p, &a, 1));
}

CUresult cuMipmappedArrayGetSparseProperties(CUDA_ARRAY_SPARSE_PROPERTIES *p,
                                             CUmipmappedArray h)
{
    ZN_CHECK_INIT();
    zn_mipmap *m = zn_mipmap_get(h);
    if (!m)
        ZN_RET(CUDA_ERROR_INVALID_HANDLE);
    ZN_RET(properties(p, m->level, m->nlevels));
}
