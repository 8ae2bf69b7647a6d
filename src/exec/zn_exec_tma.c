/* zn_exec_tma.c: tensor memory access (sm_90 cp.async.bulk.tensor, tile
 * mode) for compiled kernels: zn_rt_ops.tma, lowered by zn_lower_tma.c.
 *
 * Each lane the instruction runs on moves one box between a tensor in
 * global memory, described by a tensor map (zn_tma.h), and shared memory,
 * at once (so the mbarrier's transaction bytes complete right after, and
 * bulk-group waits have nothing to wait for). The box is dense in shared
 * memory, dimension 0 innermost: ceil(boxDim[d] / elementStrides[d])
 * elements along each dimension (boxDim[0] along dimension 0 unless the
 * map is interleaved). Elements outside the tensor (a coordinate below 0
 * or past globalDim) read as zero, or as NaN with the NaN fill; a store
 * skips them. Swizzling permutes the 16-byte chunks of shared memory by
 * address, as CUTLASS's Swizzle<B,4,3> describes it: bits 7.. of the
 * shared address (the offset in the block's window) are XORed into bits
 * 4.. (B = 1, 2, 3 bits for the 32, 64 and 128-byte modes), so a box not
 * aligned to the pattern's 256, 512 or 1024 bytes starts mid-pattern. The
 * box itself must be 128-byte aligned, as the ISA asks.
 *
 * The im2col mode (maps from cuTensorMapEncodeIm2col) moves a column of
 * pixels instead: pixelsPerColumn rows of channelsPerPixel elements, the
 * first pixel at the instruction's coordinates plus its im2col offsets,
 * the next ones along W inside the pixel box (see im2col_walk), then H, D
 * and the next image, as Triton's im2col tutorial shows an H100 doing it
 * (its expected outputs are cases of cuda/tma_im2col). */
#include "zn_exec_internal.h"
#include "zn_tma.h"
#include "util/zn_log.h"

#include <stdbool.h>
#include <string.h>

typedef struct tma_box {
    const zn_tmap *m;
    uint8_t *smem;          /* the box's first byte in shared memory */
    uint64_t soff;          /* its shared address (for the swizzle) */
    int64_t c[ZN_TMA_MAX_RANK];
    uint32_t n[ZN_TMA_MAX_RANK]; /* elements along each dimension */
    bool store;
    unsigned red, el;       /* a store's reduction (ZN_TMA_RED_*, _EL_*) */
    int32_t off[ZN_TMA_MAX_RANK - 2];   /* im2col offsets (W, H, D) */
} tma_box;

static uint32_t elems_along(const zn_tmap *m, unsigned d)
{
    uint32_t box = m->im2col ? (d == 0 ? m->cpp : 1u) : m->box[d];
    if (d == 0 && !m->interleave)
        return box;
    return (box + m->estride[d] - 1u) / m->estride[d];
}

static uint32_t step_of(const zn_tmap *m, unsigned d)
{
    return d == 0 && !m->interleave ? 1u : m->estride[d];
}

static uint64_t swizzled(const tma_box *b, uint64_t off)
{
    unsigned bits = b->m->swizzle;  /* 0..3 */
    uint64_t s = b->soff + off;
    return off ^ ((s >> 3) & (((1u << bits) - 1u) << 4));
}

static void nan_fill(uint8_t *p, unsigned esize)
{
    /* the element type's canonical NaN (f16 and bf16 alike: 0x7fff) */
    memset(p, 0xff, esize);
    p[esize - 1] = 0x7f;
}

/* Bytes [from, to) of the box (offsets in the dense box) between shared
 * memory and global memory at gp (a load when gp is set and not a store;
 * a zero fill when gp is NULL), cut where the swizzle permutes: at 16-byte
 * chunks, or nowhere without one. */
static void span_move(const tma_box *b, uint64_t from, uint64_t to, uint8_t *gp)
{
    uint64_t piece = b->m->swizzle ? 16 : to - from;
    while (from < to) {
        uint64_t n = piece - from % piece;
        n = n < to - from ? n : to - from;
        uint8_t *s = b->smem + swizzled(b, from);
        if (!gp)
            memset(s, 0, n);
        else if (b->store)
            memcpy(gp, s, n);
        else
            memcpy(s, gp, n);
        from += n;
        gp = gp ? gp + n : NULL;
    }
}

/* A row whose elements are contiguous in the tensor (no element stride
 * along dimension 0): the part inside the tensor moves as spans, the rest
 * is filled (loads) or skipped (stores). */
static void row_move(const tma_box *b, uint64_t row, uint64_t base, bool outer_in)
{
    const zn_tmap *m = b->m;
    unsigned es = m->esize;
    int64_t n0 = b->n[0], c0 = b->c[0], dim0 = (int64_t)m->dim_m1[0] + 1;
    int64_t lo = outer_in ? (c0 < 0 ? -c0 : 0) : n0, hi = outer_in ? dim0 - c0 : n0;
    lo = lo > n0 ? n0 : lo;
    hi = hi > n0 ? n0 : hi < lo ? lo : hi;
    uint64_t r0 = (uint64_t)row * (uint64_t)n0 * es;
    if (hi > lo)
        span_move(b, r0 + (uint64_t)lo * es, r0 + (uint64_t)hi * es,
                  (uint8_t *)(uintptr_t)(base + (uint64_t)(c0 + lo) * es));
    if (b->store)
        return;
    int64_t gaps[2][2] = {{0, lo}, {hi, n0}};
    for (unsigned k = 0; k < 2; k++) {
        if (!m->oob_nan)
            span_move(b, r0 + (uint64_t)gaps[k][0] * es, r0 + (uint64_t)gaps[k][1] * es, NULL);
        else
            for (int64_t i = gaps[k][0]; i < gaps[k][1]; i++)
                nan_fill(b->smem + swizzled(b, r0 + (uint64_t)i * es), es);
    }
}

/* One row of the box (dimension 0) at box-row index `row` whose outer
 * coordinates are g[1..]; `outer_in` says whether they are all inside.
 * Reductions and strided rows go element by element. */
static void row_copy(const tma_box *b, uint64_t row, const int64_t *g, bool outer_in)
{
    const zn_tmap *m = b->m;
    unsigned es = m->esize;
    uint64_t base = m->addr;
    for (unsigned d = 1; d < m->rank; d++)
        base += (uint64_t)g[d] * m->stride[d - 1];
    if (!b->red && step_of(m, 0) == 1) {
        row_move(b, row, base, outer_in);
        return;
    }
    for (uint32_t i = 0; i < b->n[0]; i++) {
        int64_t g0 = b->c[0] + (int64_t)i * step_of(m, 0);
        bool in = outer_in && g0 >= 0 && g0 <= (int64_t)m->dim_m1[0];
        uint8_t *s = b->smem + swizzled(b, (row * b->n[0] + i) * es);
        uint8_t *gp = (uint8_t *)(uintptr_t)(base + (uint64_t)g0 * es);
        if (b->store) {
            if (in && b->red)
                zn_tma_reduce(b->red, b->el, gp, s);
            else if (in)
                memcpy(gp, s, es);
        } else if (in) {
            memcpy(s, gp, es);
        } else if (m->oob_nan) {
            nan_fill(s, es);
        } else {
            memset(s, 0, es);
        }
    }
}

/* An im2col column's pixel walk. Along each spatial dimension k (W, H, D)
 * the pixel box is [lower + off, dim - 1 + upper + off]; a pixel steps
 * along W by W's element stride, and past the box's end starts again at
 * its lower end with the next H (and so on up to D), past the last D with
 * the next image (N). Pixels outside the tensor read as the fill. */
typedef struct im2col_walk {
    int64_t g[ZN_TMA_MAX_RANK];         /* the pixel: g[1..rank-1] */
    int64_t lo[ZN_TMA_MAX_RANK - 2], hi[ZN_TMA_MAX_RANK - 2];
} im2col_walk;

static void walk_start(im2col_walk *it, const tma_box *b)
{
    const zn_tmap *m = b->m;
    unsigned ns = m->rank - 2u;
    for (unsigned k = 0; k < ns; k++) {
        it->lo[k] = (int64_t)m->lower[k] + b->off[k];
        it->hi[k] = (int64_t)m->dim_m1[k + 1] + m->upper[k] + b->off[k];
        it->g[k + 1] = b->c[k + 1] + b->off[k];
    }
    it->g[m->rank - 1] = b->c[m->rank - 1];
}

static void walk_next(im2col_walk *it, const zn_tmap *m)
{
    unsigned ns = m->rank - 2u;
    for (unsigned k = 0; k < ns; k++) {
        it->g[k + 1] += m->estride[k + 1];
        if (it->g[k + 1] <= it->hi[k])
            return;
        it->g[k + 1] = it->lo[k];
    }
    it->g[m->rank - 1] += m->estride[m->rank - 1];
}

static bool walk_inside(const im2col_walk *it, const zn_tmap *m)
{
    for (unsigned d = 1; d < m->rank; d++)
        if (it->g[d] < 0 || it->g[d] > (int64_t)m->dim_m1[d])
            return false;
    return true;
}

static void box_copy(const tma_box *b)
{
    const zn_tmap *m = b->m;
    if (m->im2col) {
        im2col_walk it;
        walk_start(&it, b);
        for (uint32_t p = 0; p < m->ppc; p++, walk_next(&it, m))
            row_copy(b, p, it.g, walk_inside(&it, m));
        return;
    }
    uint32_t rows = 1;
    for (unsigned d = 1; d < m->rank; d++)
        rows *= b->n[d];
    for (uint32_t r = 0; r < rows; r++) {
        int64_t g[ZN_TMA_MAX_RANK] = {0};
        bool in = true;
        uint32_t q = r;
        for (unsigned d = 1; d < m->rank; d++) {
            g[d] = b->c[d] + (int64_t)(q % b->n[d]) * step_of(m, d);
            q /= b->n[d];
            in = in && g[d] >= 0 && g[d] <= (int64_t)m->dim_m1[d];
        }
        row_copy(b, r, g, in);
    }
}

/* box_span of an im2col column: the rows of the pixels inside the tensor,
 * cut to the channels inside */
static bool column_span(const tma_box *b, uint64_t *lo, uint64_t *hi)
{
    const zn_tmap *m = b->m;
    int64_t c0 = b->c[0], c1 = c0 + (int64_t)(b->n[0] - 1) * step_of(m, 0);
    if (c1 < 0 || c0 > (int64_t)m->dim_m1[0])
        return false;
    c0 = c0 < 0 ? 0 : c0;
    c1 = c1 > (int64_t)m->dim_m1[0] ? m->dim_m1[0] : c1;
    uint64_t a = UINT64_MAX, z = 0;
    im2col_walk it;
    walk_start(&it, b);
    for (uint32_t p = 0; p < m->ppc; p++, walk_next(&it, m)) {
        if (!walk_inside(&it, m))
            continue;
        uint64_t row = m->addr;
        for (unsigned d = 1; d < m->rank; d++)
            row += (uint64_t)it.g[d] * m->stride[d - 1];
        a = row + (uint64_t)c0 * m->esize < a ? row + (uint64_t)c0 * m->esize : a;
        z = row + (uint64_t)c1 * m->esize > z ? row + (uint64_t)c1 * m->esize : z;
    }
    if (a > z)
        return false;
    *lo = a;
    *hi = z + m->esize;
    return true;
}

/* The global bytes [*lo, *hi) the box touches; false when it misses the
 * tensor (no element inside). */
static bool box_span(const tma_box *b, uint64_t *lo, uint64_t *hi)
{
    const zn_tmap *m = b->m;
    uint64_t a = m->addr, z = m->addr;
    if (m->im2col)
        return column_span(b, lo, hi);
    for (unsigned d = 0; d < m->rank; d++) {
        int64_t first = b->c[d], last = first + (int64_t)(b->n[d] - 1) * step_of(m, d);
        int64_t max = m->dim_m1[d];
        if (last < 0 || first > max)
            return false;
        uint64_t s = d == 0 ? m->esize : m->stride[d - 1];
        a += (uint64_t)(first < 0 ? 0 : first) * s;
        z += (uint64_t)(last > max ? max : last) * s;
    }
    *lo = a;
    *hi = z + m->esize;
    return true;
}

/* Device memory a copy touches must be live allocations: a freed or
 * never allocated device address fails the launch with
 * CUDA_ERROR_ILLEGAL_ADDRESS and a log line, as an H200 reports a bad
 * address. Host memory (mapped, registered) is the fault handler's. */
static bool global_ok(uint64_t lo, uint64_t hi, const char *what)
{
    const void *p = (const void *)(uintptr_t)lo;
    if (!zn_mem_in_device_range(p) || zn_mem_live_prefix(p, hi - lo) == hi - lo)
        return true;
    zn_log(ZN_LOG_ERROR, "%s: device memory 0x%llx..0x%llx is not allocated: "
           "CUDA_ERROR_ILLEGAL_ADDRESS", what, (unsigned long long)lo, (unsigned long long)hi);
    return false;
}

/* the element type a map's reductions work on (none for 8/16-bit integers) */
static unsigned elem_of(const zn_tmap *m)
{
    static const uint8_t el[] = {
        ZN_TMA_EL_NONE, ZN_TMA_EL_NONE, ZN_TMA_EL_U32, ZN_TMA_EL_S32, ZN_TMA_EL_U64,
        ZN_TMA_EL_S64, ZN_TMA_EL_F16, ZN_TMA_EL_F32, ZN_TMA_EL_F64, ZN_TMA_EL_BF16,
        ZN_TMA_EL_F32, ZN_TMA_EL_F32, ZN_TMA_EL_F32};
    return m->dtype < sizeof el ? el[m->dtype] : ZN_TMA_EL_NONE;
}

/* The shared address of a box at p: its offset in this block's window or,
 * through .shared::cluster, a peer block's (windows are the same size);
 * false unless all of its bytes are in one. */
static bool shared_offset(const zn_block_ctx *blk, const uint8_t *p, uint64_t bytes,
                          uint64_t *off)
{
    unsigned n = blk->cluster ? ZN_CLUSTER_MAX : 1;
    for (unsigned k = 0; k < n; k++) {
        const uint8_t *base = blk->cluster ? blk->cluster->shared[k] : blk->shared;
        if (base && p >= base && (uint64_t)(p - base) < blk->shared_size) {
            *off = (uint64_t)(p - base);
            return bytes <= blk->shared_size - *off;
        }
    }
    return false;
}

/* a multicast load: the box at b's offset in the window of each cluster
 * rank in cta_mask (without a cluster launch the block is rank 0) */
static int32_t multicast(const zn_block_ctx *blk, tma_box *b, uint32_t cta_mask, uint64_t bytes)
{
    for (unsigned k = 0; k < ZN_CLUSTER_MAX; k++) {
        if (!(cta_mask >> k & 1))
            continue;
        uint8_t *base = blk->cluster ? blk->cluster->shared[k] : k == 0 ? blk->shared : NULL;
        if (!base || bytes > blk->shared_size - b->soff)
            return ZN_KSTATUS_ILLEGAL_ADDRESS;   /* no such block in the cluster */
        b->smem = base + b->soff;
        box_copy(b);
    }
    return ZN_KSTATUS_OK;
}

/* cp.reduce.async.bulk without a map: n bytes of src (shared) reduced
 * into dst element by element */
static int32_t bulk_reduce(const zn_block_ctx *blk, uint32_t code, uint64_t *io, unsigned lane)
{
    unsigned op = code >> 8 & 0xf, el = code >> 12 & 0xf, es = zn_tma_elem_bytes(el);
    const uint8_t *src = (const uint8_t *)(uintptr_t)io[lane];
    uint8_t *dst = (uint8_t *)(uintptr_t)io[1 * ZN_WARP_SIZE + lane];
    uint64_t n = io[2 * ZN_WARP_SIZE + lane], off;
    if (!shared_offset(blk, src, n, &off) || !dst)
        return ZN_KSTATUS_ILLEGAL_ADDRESS;
    if (n % 16 || (off | (uintptr_t)dst) % 16)
        return ZN_KSTATUS_MISALIGNED;
    if (!global_ok((uint64_t)(uintptr_t)dst, (uint64_t)(uintptr_t)dst + n, "cp.reduce.async.bulk"))
        return ZN_KSTATUS_ILLEGAL_ADDRESS;
    for (uint64_t i = 0; i < n; i += es)
        zn_tma_reduce(op, el, dst + i, src + i);
    io[7 * ZN_WARP_SIZE + lane] = n;
    return ZN_KSTATUS_OK;
}

/* fields a kernel may have rewritten (tensormap.replace) within what the
 * encoder accepts: an out-of-range one fails the copy, as a bad map does */
static bool map_sane(const zn_tmap *m)
{
    if (m->rank < 1 || m->rank > ZN_TMA_MAX_RANK || m->swizzle > ZN_TMA_SWIZZLE_128B ||
        (m->esize != 1 && m->esize != 2 && m->esize != 4 && m->esize != 8) ||
        (m->im2col && (m->rank < 3 || m->cpp < 1 || m->cpp > 256 || m->ppc < 1 ||
                       m->ppc > 1024)))
        return false;
    for (unsigned d = 0; d < m->rank; d++)
        if ((!m->im2col && (m->box[d] < 1 || m->box[d] > 256)) || m->estride[d] < 1 ||
            m->estride[d] > 8)
            return false;
    return true;
}

/* The lanes in mask each move a box; io as ZN_TMA_IO_ROWS rows of 32
 * (zn_tma.h). A load leaves its byte count in row 7 for the mbarrier. */
int32_t zn_exec_tma(zn_warp_ctx *w, uint32_t code, uint32_t mask, uint64_t *io)
{
    unsigned rank = code & 0xf;
    const zn_block_ctx *blk = w->block;
    for (unsigned lane = 0; lane < ZN_WARP_SIZE; lane++) {
        if (!(mask >> lane & 1))
            continue;
        if (rank == 0) {
            int32_t st = bulk_reduce(blk, code, io, lane);
            if (st != ZN_KSTATUS_OK)
                return st;
            continue;
        }
        /* a copy: the map is often a kernel parameter, whose buffer is not
         * as aligned as CUDA's (.param .align 128) */
        const void *mp = (const void *)(uintptr_t)io[1 * ZN_WARP_SIZE + lane];
        zn_tmap map;
        if (!mp)
            return ZN_KSTATUS_ILLEGAL_ADDRESS;
        memcpy(&map, mp, sizeof map);
        /* not a tensor map of this rank and mode */
        if (map.magic != ZN_TMA_MAGIC || map.rank != rank || !map_sane(&map) ||
            !map.im2col != !(code & ZN_TMA_IM2COL))
            return ZN_KSTATUS_ILLEGAL_INSTRUCTION;
        const zn_tmap *m = &map;
        tma_box b = {.m = m, .store = (code & 0x10) != 0, .red = code >> 8 & 0xf,
                     .el = elem_of(m), .smem = (uint8_t *)(uintptr_t)io[lane]};
        if (b.red && b.el == ZN_TMA_EL_NONE)
            return ZN_KSTATUS_ILLEGAL_INSTRUCTION;  /* no reductions on 8/16-bit integers */
        uint64_t bytes = m->esize;
        for (unsigned d = 0; d < rank; d++) {
            b.c[d] = (int32_t)io[(2 + d) * ZN_WARP_SIZE + lane];
            b.n[d] = elems_along(m, d);
            bytes *= b.n[d];
        }
        if (m->im2col) {
            uint64_t offs = io[9 * ZN_WARP_SIZE + lane];
            for (unsigned k = 0; k + 2 < rank && k < ZN_TMA_MAX_RANK - 2; k++)
                b.off[k] = (int32_t)(offs >> (16 * k) & 0xffff);
            bytes *= m->ppc;
        }
        if (!shared_offset(blk, b.smem, bytes, &b.soff))
            return ZN_KSTATUS_ILLEGAL_ADDRESS;
        if (b.soff & 127)
            return ZN_KSTATUS_MISALIGNED;   /* the ISA asks for 128-byte boxes */
        uint64_t lo, hi;
        if (box_span(&b, &lo, &hi) && !global_ok(lo, hi, "cp.async.bulk.tensor"))
            return ZN_KSTATUS_ILLEGAL_ADDRESS;
        if (code & ZN_TMA_MULTICAST) {
            int32_t st = multicast(blk, &b, (uint32_t)io[8 * ZN_WARP_SIZE + lane], bytes);
            if (st != ZN_KSTATUS_OK)
                return st;
        } else {
            box_copy(&b);
        }
        io[7 * ZN_WARP_SIZE + lane] = bytes;
    }
    return ZN_KSTATUS_OK;
}
