/* zn_drv_sparse_map.c: cuMemMapArrayAsync, the tiles of sparse arrays
 * mapped to tile pools and unmapped, in stream order.
 *
 * Every entry of the list is checked at the call, as CUDA documents:
 * the resource (a sparse array, not a mipmapped array's level, or a
 * sparse mipmapped array; CUDA_ERROR_INVALID_HANDLE when the handle is
 * not one), the subresource (a level below the mip tail, with offsets
 * aligned to the tile extent and extents that are whole tiles or reach
 * the level's edge, offsetZ 0 and depth 1 unless 3D, a layer of a
 * layered array; or the mip tail with a tile-aligned offset and size
 * inside it), MAP or UNMAP, CU_MEM_HANDLE_TYPE_GENERIC with a cuMemCreate
 * handle made with CU_MEM_CREATE_USAGE_TILE_POOL (a handle that is not
 * one: CUDA_ERROR_INVALID_HANDLE) and a tile-aligned offset leaving room
 * for the tiles, no handle for UNMAP, deviceBitMask 1 (device 0), flags
 * and reserved 0. Anything else is CUDA_ERROR_INVALID_VALUE and nothing
 * of the list is done. Deferred-mapping arrays get their own backing
 * (zn_drv_array.c), so mapping one is CUDA_ERROR_NOT_SUPPORTED.
 *
 * The list then becomes one host op on the stream: when the stream gets
 * there, each tile of an entry (x fastest, then y, then z or the layer;
 * mip tail pieces in order) points at the next 64 KiB of the pool from
 * the offset on, or at nothing for UNMAP. Tiles of two arrays mapped to
 * the same bytes alias, as on a GPU. A mapped tile holds a reference to
 * its pool (cuMemRelease does not free it under the array); remapping or
 * unmapping a tile, or destroying the array, gives it back. A capturing
 * stream refuses the call (CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED): CUDA
 * has no graph node for it.
 */
#include "zn_drv_sparse.h"
#include "../util/zn_log.h"

#include <stdlib.h>

/* One entry's tiles: a box of a tile table, or a run of mip tail pieces. */
typedef struct map_run {
    uint8_t **tile;
    void **owner;
    uint64_t first, stride_y, stride_z; /* table entries */
    uint64_t nx, ny, nz;
    void *phys;                         /* the pool (one reference held); NULL: unmap */
    uint64_t off;                       /* its bytes for the first tile */
} map_run;

typedef struct map_job {
    unsigned n;
    map_run run[];
} map_job;

static void job_release(map_job *j)
{
    for (unsigned r = 0; r < j->n; r++)
        if (j->run[r].phys)
            zn_phys_unref(j->run[r].phys);
    free(j);
}

/* The host op: runs on the stream's thread, in order with its work. */
static void run_job(void *user)
{
    map_job *j = user;
    for (unsigned r = 0; r < j->n; r++) {
        const map_run *m = &j->run[r];
        uint8_t *base = m->phys ? zn_phys_view(m->phys) : NULL;
        if (m->phys && !base)
            continue; /* logged by zn_phys_view */
        uint64_t k = 0;
        for (uint64_t z = 0; z < m->nz; z++)
            for (uint64_t y = 0; y < m->ny; y++)
                for (uint64_t x = 0; x < m->nx; x++, k++) {
                    uint64_t e = m->first + z * m->stride_z + y * m->stride_y + x;
                    void *old = m->owner[e];
                    if (m->phys)
                        zn_phys_ref(m->phys);
                    m->owner[e] = m->phys;
                    __atomic_store_n(&m->tile[e], base ? base + m->off + k * ZN_SPARSE_TILE
                                                       : NULL,
                                     __ATOMIC_RELEASE);
                    if (old)
                        zn_phys_unref(old);
                }
    }
    job_release(j);
}

/* A level below the mip tail: the box of tiles. */
static CUresult plan_level(const CUarrayMapInfo *mi, zn_array *const *levels, unsigned nlevels,
                           uint64_t layers, bool three_d, map_run *run)
{
    unsigned lvl = mi->subresource.sparseLevel.level, layer = mi->subresource.sparseLevel.layer;
    if (lvl >= nlevels || layer >= layers)
        return CUDA_ERROR_INVALID_VALUE;
    const zn_array *a = levels[lvl];
    const zn_sparse *sp = a->sparse;
    if (!sp->lv.tile)
        return CUDA_ERROR_INVALID_VALUE; /* a mip tail level */
    const uint64_t dim[3] = {a->desc.Width, a->rows, three_d ? a->slices : 1};
    const uint64_t te[3] = {sp->lv.tw, sp->lv.th, sp->lv.td};
    const uint64_t o[3] = {mi->subresource.sparseLevel.offsetX,
                           mi->subresource.sparseLevel.offsetY,
                           mi->subresource.sparseLevel.offsetZ};
    const uint64_t e[3] = {mi->subresource.sparseLevel.extentWidth,
                           mi->subresource.sparseLevel.extentHeight,
                           mi->subresource.sparseLevel.extentDepth};
    if (!three_d && (o[2] || e[2] != 1))
        return CUDA_ERROR_INVALID_VALUE;
    uint64_t n[3];
    for (unsigned k = 0; k < 3; k++) {
        /* whole tiles, but the last one may stop at the level's edge */
        if (!e[k] || o[k] % te[k] || o[k] >= dim[k] || e[k] > dim[k] - o[k] ||
            (e[k] % te[k] && o[k] + e[k] != dim[k]))
            return CUDA_ERROR_INVALID_VALUE;
        n[k] = (e[k] + te[k] - 1) / te[k];
    }
    run->tile = sp->lv.tile;
    run->owner = sp->owner;
    run->stride_y = sp->lv.ntx;
    run->stride_z = (uint64_t)sp->lv.ntx * sp->lv.nty;
    uint64_t tz = three_d ? o[2] / te[2] : layer;
    run->first = tz * run->stride_z + o[1] / te[1] * run->stride_y + o[0] / te[0];
    run->nx = n[0];
    run->ny = n[1];
    run->nz = n[2];
    return CUDA_SUCCESS;
}

/* The mip tail of a layer: a run of its 64 KiB pieces. */
static CUresult plan_tail(const CUarrayMapInfo *mi, zn_array *const *levels, unsigned nlevels,
                          uint64_t layers, map_run *run)
{
    const zn_sparse *sp = levels[nlevels - 1]->sparse;
    uint64_t off = mi->subresource.miptail.offset, size = mi->subresource.miptail.size;
    uint64_t bytes = (uint64_t)sp->lv.tail_tiles * ZN_SPARSE_TILE;
    if (sp->lv.tile || mi->subresource.miptail.layer >= layers || !size ||
        off % ZN_SPARSE_TILE || size % ZN_SPARSE_TILE || off >= bytes || size > bytes - off)
        return CUDA_ERROR_INVALID_VALUE; /* no tail, or outside it */
    run->tile = sp->lv.tail;
    run->owner = sp->tail_owner;
    run->first = mi->subresource.miptail.layer * (uint64_t)sp->lv.tail_tiles +
                 off / ZN_SPARSE_TILE;
    run->nx = size / ZN_SPARSE_TILE;
    run->ny = run->nz = 1;
    return CUDA_SUCCESS;
}

/* Checks one entry and fills its run (a pool reference taken for MAP). */
static CUresult plan(const CUarrayMapInfo *mi, map_run *run)
{
    if (mi->flags || mi->reserved[0] || mi->reserved[1])
        return CUDA_ERROR_INVALID_VALUE;
    zn_array *one;
    zn_array *const *levels;
    unsigned nlevels;
    if (mi->resourceType == CU_RESOURCE_TYPE_ARRAY) {
        one = zn_array_get(mi->resource.array);
        if (!one)
            return CUDA_ERROR_INVALID_HANDLE;
        if (one->mip_level) /* CUDA: map through the mipmapped array */
            return CUDA_ERROR_INVALID_VALUE;
        levels = &one;
        nlevels = 1;
    } else if (mi->resourceType == CU_RESOURCE_TYPE_MIPMAPPED_ARRAY) {
        zn_mipmap *m = zn_mipmap_get(mi->resource.mipmap);
        if (!m)
            return CUDA_ERROR_INVALID_HANDLE;
        levels = m->level;
        nlevels = m->nlevels;
    } else {
        return CUDA_ERROR_INVALID_VALUE;
    }
    const CUDA_ARRAY3D_DESCRIPTOR *d0 = &levels[0]->desc;
    if (d0->Flags & CUDA_ARRAY3D_DEFERRED_MAPPING) {
        zn_log(ZN_LOG_WARN, "cuMemMapArrayAsync: deferred-mapping arrays are backed at "
               "creation, returning CUDA_ERROR_NOT_SUPPORTED");
        return CUDA_ERROR_NOT_SUPPORTED;
    }
    bool map = mi->memOperationType == CU_MEM_OPERATION_TYPE_MAP;
    if (!levels[0]->sparse || mi->deviceBitMask != 1 ||
        mi->memHandleType != CU_MEM_HANDLE_TYPE_GENERIC ||
        (!map && mi->memOperationType != CU_MEM_OPERATION_TYPE_UNMAP) ||
        (!map && mi->memHandle.memHandle) || (map && mi->offset % ZN_SPARSE_TILE))
        return CUDA_ERROR_INVALID_VALUE;
    bool layered = (d0->Flags & (CUDA_ARRAY3D_LAYERED | CUDA_ARRAY3D_CUBEMAP)) != 0;
    uint64_t layers = layered ? d0->Depth : 1;
    CUresult r;
    if (mi->subresourceType == CU_ARRAY_SPARSE_SUBRESOURCE_TYPE_SPARSE_LEVEL)
        r = plan_level(mi, levels, nlevels, layers, !layered && d0->Depth, run);
    else if (mi->subresourceType == CU_ARRAY_SPARSE_SUBRESOURCE_TYPE_MIPTAIL)
        r = plan_tail(mi, levels, nlevels, layers, run);
    else
        r = CUDA_ERROR_INVALID_VALUE;
    if (r != CUDA_SUCCESS || !map)
        return r;
    size_t psize;
    void *phys;
    r = zn_phys_tile_pool(mi->memHandle.memHandle, &psize, &phys);
    if (r != CUDA_SUCCESS)
        return r;
    uint64_t need = run->nx * run->ny * run->nz * ZN_SPARSE_TILE;
    if (mi->offset >= psize || need > psize - mi->offset) {
        zn_phys_unref(phys);
        return CUDA_ERROR_INVALID_VALUE; /* the tiles run past the allocation */
    }
    run->phys = phys;
    run->off = mi->offset;
    return CUDA_SUCCESS;
}

static CUresult map_array(CUarrayMapInfo *list, unsigned count, CUstream h, bool pt)
{
    zn_stream *s;
    CUresult r = zn_stream_enter(h, pt, &s);
    if (r != CUDA_SUCCESS)
        return r;
    if (!list && count)
        return CUDA_ERROR_INVALID_VALUE;
    if (s->cap)
        return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
    if (s->kind == ZN_STREAM_LEGACY && zn_capture_blocks_legacy())
        return CUDA_ERROR_STREAM_CAPTURE_IMPLICIT;
    if (!count)
        return CUDA_SUCCESS;
    map_job *j = calloc(1, sizeof *j + count * sizeof j->run[0]);
    zn_op *op = zn_op_new(ZN_OP_HOST, 0);
    if (!j || !op) {
        free(j);
        free(op);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    for (unsigned i = 0; i < count; i++, j->n++) {
        r = plan(&list[i], &j->run[i]);
        if (r != CUDA_SUCCESS) {
            job_release(j);
            free(op);
            return r;
        }
    }
    op->u.host.fn = run_job;
    op->u.host.user = j;
    return zn_submit(s, op, false);
}

CUresult cuMemMapArrayAsync(CUarrayMapInfo *list, unsigned int count, CUstream s)
{
    ZN_CHECK_INIT();
    ZN_RET(map_array(list, count, s, false));
}

CUresult cuMemMapArrayAsync_ptsz(CUarrayMapInfo *list, unsigned int count, CUstream s)
{
    ZN_CHECK_INIT();
    ZN_RET(map_array(list, count, s, true));
}
