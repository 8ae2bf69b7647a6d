/* zn_exec_sparse.h: where the elements of a sparse CUDA array live, as
 * the sampler (zn_exec_tex.c) and the driver's copies see it.
 *
 * A sparse array has no buffer of its own: each 64 KiB tile of a level
 * points into the physical allocation cuMemMapArrayAsync mapped it to, or
 * is NULL (not resident: reads give 0, writes are dropped). Inside a tile
 * elements are packed x fastest, then y, then z (the tile's own depth, 1
 * but for 3D arrays); tiles are ordered the same way across the level,
 * slices (3D depth, or layers) last. A level smaller than one tile in any
 * dimension is in the mip tail instead: the tail levels are packed one
 * after the other (rows of `pitch` bytes, `rows` rows a slice) in a byte
 * range of tail_tiles 64 KiB tiles, one range per layer for layered arrays
 * (CUDA's flags 0: a tail per layer), one for the others. The driver
 * (zn_drv_sparse.c) owns and fills these; only tile pointers change after
 * creation, stored atomically by the stream op that maps them.
 */
#ifndef ZN_EXEC_SPARSE_H
#define ZN_EXEC_SPARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ZN_SPARSE_TILE ((uint64_t)64 << 10)

typedef struct zn_sparse_level {
    uint32_t esize;             /* bytes per element */
    /* a tiled level (tile != NULL) */
    uint32_t tw, th, td;        /* tile extent in elements (td: 1 unless 3D) */
    uint32_t ntx, nty;          /* tiles across and down (partial ones included) */
    uint8_t **tile;             /* [slice / td][ty][tx]; NULL entries: not resident */
    /* a mip tail level (tile == NULL) */
    bool tail_layered;          /* a tail per layer (slice = layer), else z = slice */
    uint64_t pitch, rows;       /* the packed rows of this level */
    uint64_t tail_off;          /* its first byte inside the tail */
    uint32_t tail_tiles;        /* tiles of one tail */
    uint8_t **tail;             /* [layer][tail_tiles]: shared by the tail levels */
} zn_sparse_level;

/* The address of element (x, y) of slice s (the 3D depth or the layer),
 * in range; NULL if its tile is not resident. */
static inline uint8_t *zn_sparse_addr(const zn_sparse_level *sp, uint64_t x, uint64_t y,
                                      uint64_t s)
{
    if (sp->tile) {
        uint64_t t = ((s / sp->td) * sp->nty + y / sp->th) * sp->ntx + x / sp->tw;
        uint8_t *b = __atomic_load_n(&sp->tile[t], __ATOMIC_ACQUIRE);
        if (!b)
            return NULL;
        return b + (((s % sp->td) * sp->th + y % sp->th) * sp->tw + x % sp->tw) * sp->esize;
    }
    uint64_t l = sp->tail_layered ? s : 0, z = sp->tail_layered ? 0 : s;
    uint64_t o = sp->tail_off + (z * sp->rows + y) * sp->pitch + x * sp->esize;
    uint8_t *b = __atomic_load_n(&sp->tail[l * sp->tail_tiles + o / ZN_SPARSE_TILE],
                                 __ATOMIC_ACQUIRE);
    return b ? b + o % ZN_SPARSE_TILE : NULL;
}

/* Elements from x to the end of x's tile row (what one address covers). */
static inline uint64_t zn_sparse_run(const zn_sparse_level *sp, uint64_t x, uint64_t y,
                                     uint64_t s)
{
    if (sp->tile)
        return sp->tw - x % sp->tw;
    uint64_t z = sp->tail_layered ? 0 : s;
    uint64_t o = sp->tail_off + (z * sp->rows + y) * sp->pitch + x * sp->esize;
    return (ZN_SPARSE_TILE - o % ZN_SPARSE_TILE) / sp->esize;
}

#endif
