/* zn_drv_sparse.h: a sparse array level's tables, shared by the array
 * side (zn_drv_sparse.c) and tile mapping (zn_drv_sparse_map.c). */
#ifndef ZN_DRV_SPARSE_H
#define ZN_DRV_SPARSE_H

#include "zn_drv.h"
#include "../exec/zn_exec_sparse.h"

/* The driver's side of one level: the sampler's view and who owns what.
 * A tile entry and its owner change together, on the stream thread of
 * the cuMemMapArrayAsync that maps or unmaps it. */
typedef struct zn_sparse {
    zn_sparse_level lv;
    uint64_t ntiles;            /* entries of lv.tile (0 for a tail level) */
    uint64_t ntz;               /* tile slices: ceil(depth / td), or the layers */
    void **owner;               /* per tile: the tile pool it references */
    void **tail_owner;          /* the tail's, shared like lv.tail */
    uint64_t tail_entries;      /* layers x tail_tiles */
    bool owns_tail;             /* the first tail level frees the tail */
} zn_sparse;

#endif
