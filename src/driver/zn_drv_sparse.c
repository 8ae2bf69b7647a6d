/* zn_drv_sparse.c: sparse CUDA arrays (CUDA_ARRAY3D_SPARSE): the checks
 * cuArray3DCreate / cuMipmappedArrayCreate make for them, their tile
 * tables, the sparse-property queries and copies to and from them.
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
 * Storage (src/exec/zn_exec_sparse.h): a sparse array has no buffer of its
 * own. Each level below the tail has a table of tile pointers, the tail a
 * table of 64 KiB pieces per layer shared by its levels; an entry points
 * into the tile pool cuMemMapArrayAsync mapped it to (zn_drv_sparse_map.c)
 * or is NULL. A new sparse array has no resident tile, as in CUDA: until
 * mapped, reads (textures, surfaces, copies) give 0 and writes are
 * dropped. Block-compressed sparse arrays are NOT_SUPPORTED.
 */
#include "zn_drv.h"
#include "../exec/zn_exec_texbc.h"
#include "../util/zn_log.h"

#include "zn_drv_sparse.h"

#include <stdlib.h>
#include <string.h>

#define ZN_SPARSE_TILE_BYTES ZN_SPARSE_TILE


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

static uint64_t round_tiles(uint64_t n)
{
    return (n + ZN_SPARSE_TILE_BYTES - 1) / ZN_SPARSE_TILE_BYTES * ZN_SPARSE_TILE_BYTES;
}

/* one layer's (or the 3D level's) packed bytes */
static uint64_t level_bytes(const zn_array *a, bool three_d)
{
    return (uint64_t)a->rows * a->pitch * (three_d ? a->slices : 1);
}

/* The first level smaller than a tile in some dimension (nlevels: none). */
static unsigned tail_first(zn_array *const *level, unsigned nlevels, const unsigned ext[3],
                           bool three_d)
{
    for (unsigned i = 0; i < nlevels; i++) {
        const CUDA_ARRAY3D_DESCRIPTOR *d = &level[i]->desc;
        if (d->Width < ext[0] || d->Height < ext[1] || (three_d && d->Depth < ext[2]))
            return i;
    }
    return nlevels;
}

static uint64_t tail_size(zn_array *const *level, unsigned nlevels, unsigned first,
                          bool three_d)
{
    uint64_t n = 0;
    for (unsigned i = first; i < nlevels; i++)
        n += level_bytes(level[i], three_d);
    return round_tiles(n);
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
    p->miptailFirstLevel = tail_first(level, nlevels, ext, three_d);
    p->miptailSize = tail_size(level, nlevels, p->miptailFirstLevel, three_d);
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

CUresult zn_sparse_init(zn_array **level, unsigned nlevels)
{
    bool three_d = is_3d(level[0]);
    unsigned ext[3];
    tile_extent(level[0]->esize, three_d, ext);
    unsigned first = tail_first(level, nlevels, ext, three_d);
    uint64_t layers = three_d ? 1 : level[0]->slices; /* tails */
    uint64_t tail_tiles = tail_size(level, nlevels, first, three_d) / ZN_SPARSE_TILE_BYTES;
    uint8_t **tail = NULL;
    void **tail_owner = NULL;
    uint64_t off = 0;
    for (unsigned i = 0; i < nlevels; i++) {
        zn_array *a = level[i];
        zn_sparse *sp = calloc(1, sizeof *sp);
        if (!sp)
            return CUDA_ERROR_OUT_OF_MEMORY; /* the caller frees the levels */
        a->sparse = sp;
        sp->lv.esize = a->esize;
        if (i < first) {
            sp->lv.tw = ext[0];
            sp->lv.th = ext[1];
            sp->lv.td = ext[2];
            sp->lv.ntx = (uint32_t)((a->desc.Width + ext[0] - 1) / ext[0]);
            sp->lv.nty = (uint32_t)((a->rows + ext[1] - 1) / ext[1]);
            sp->ntz = (a->slices + ext[2] - 1) / ext[2];
            sp->ntiles = (uint64_t)sp->lv.ntx * sp->lv.nty * sp->ntz;
            sp->lv.tile = calloc(sp->ntiles, sizeof *sp->lv.tile);
            sp->owner = calloc(sp->ntiles, sizeof *sp->owner);
            if (!sp->lv.tile || !sp->owner)
                return CUDA_ERROR_OUT_OF_MEMORY;
            continue;
        }
        if (i == first) {
            tail = calloc(layers * tail_tiles, sizeof *tail);
            tail_owner = calloc(layers * tail_tiles, sizeof *tail_owner);
            sp->owns_tail = true;
            sp->lv.tail = tail; /* freed with this level even if one is NULL */
            sp->tail_owner = tail_owner;
            if (!tail || !tail_owner)
                return CUDA_ERROR_OUT_OF_MEMORY;
        }
        sp->lv.tail = tail;
        sp->tail_owner = tail_owner;
        sp->tail_entries = layers * tail_tiles;
        sp->lv.tail_layered = !three_d;
        sp->lv.pitch = a->pitch;
        sp->lv.rows = a->rows;
        sp->lv.tail_off = off;
        sp->lv.tail_tiles = (uint32_t)tail_tiles;
        off += level_bytes(a, three_d);
    }
    return CUDA_SUCCESS;
}

static void release(uint8_t **tile, void **owner, uint64_t n)
{
    for (uint64_t i = 0; owner && i < n; i++)
        if (owner[i])
            zn_phys_unref(owner[i]);
    free(tile);
    free(owner);
}

void zn_sparse_free(zn_array *a)
{
    zn_sparse *sp = a->sparse;
    if (!sp)
        return;
    release(sp->lv.tile, sp->owner, sp->ntiles);
    if (sp->owns_tail)
        release(sp->lv.tail, sp->tail_owner, sp->tail_entries);
    free(sp);
    a->sparse = NULL;
}

const zn_sparse_level *zn_sparse_view(const zn_array *a)
{
    return a->sparse ? &a->sparse->lv : NULL;
}

/* One side of a sparse copy: the address of byte i of row (y, z), NULL
 * when not resident, and how many bytes from there lie in one run. */
static char *side_at(const zn_sparse_level *sp, const size_t org[3], char *lin, size_t pitch,
                     size_t slice, size_t i, size_t y, size_t z, size_t *run)
{
    if (!sp) {
        *run = SIZE_MAX;
        return lin + z * slice + y * pitch + i;
    }
    uint64_t x = (org[0] + i) / sp->esize; /* element aligned (zn_drv_copy.c) */
    *run = zn_sparse_run(sp, x, org[1] + y, org[2] + z) * sp->esize;
    return (char *)zn_sparse_addr(sp, x, org[1] + y, org[2] + z);
}

/* Row by row, in runs that stay inside one tile on each sparse side: a
 * source that is not resident reads as zeros, a destination that is not
 * takes nothing. */
void zn_sparse_copy(const zn_op *op)
{
    for (size_t z = 0; z < op->u.cp.d; z++)
        for (size_t y = 0; y < op->u.cp.h; y++)
            for (size_t i = 0; i < op->u.cp.w;) {
                size_t rs, rd;
                char *s = side_at(op->u.cp.ssp, op->u.cp.sorg, (char *)op->u.cp.src,
                                  op->u.cp.spitch, op->u.cp.sslice, i, y, z, &rs);
                char *d = side_at(op->u.cp.dsp, op->u.cp.dorg, op->u.cp.dst, op->u.cp.dpitch,
                                  op->u.cp.dslice, i, y, z, &rd);
                size_t n = op->u.cp.w - i;
                n = n < rs ? n : rs;
                n = n < rd ? n : rd;
                if (d && s)
                    memmove(d, s, n);
                else if (d)
                    memset(d, 0, n);
                i += n;
            }
}
