/* test_exec_coop.c: cooperative launches (zn_exec_launch_coop) run every
 * block at once, so a grid-wide barrier completes. The kernel uses the
 * protocol nvcc's grid.sync() compiles to (a counter at grid_ws + 4: the
 * first participant adds 0x80000001 - count, the others 1, all spin until
 * the top bit flips) between two block barriers, so warp 0 of each block
 * counts while the block's other warps wait on their fibers. Phase 1
 * writes, the barrier,
 * phase 2 reads other blocks' phase-1 values; checked against the values
 * the test computes. Also: more blocks than worker threads, rounds, a
 * trapping block (no warp runs past the grid barrier it never reaches),
 * and grid_ws NULL in ordinary launches. */
#include "exec_test.h"

#include <stdatomic.h>

/* ZN_KSTATUS_OK, or what rt->spin says when the grid has failed. */
static int32_t grid_barrier(zn_warp_ctx *w, uint32_t participants)
{
    const zn_block_ctx *b = w->block;
    w->rt->barrier(w, 0, 0, 0);
    if (w->warpid != 0) {
        w->rt->barrier(w, 0, 0, 0);
        return ZN_KSTATUS_OK;
    }
    _Atomic uint32_t *ctr = (_Atomic uint32_t *)((uint8_t *)b->grid_ws + 4);
    bool first = test_block_linear(b) == 0;
    uint32_t old = atomic_fetch_add_explicit(ctr, first ? 0x80000001u - participants : 1u,
                                             memory_order_release);
    for (;;) {
        int32_t st = w->rt->spin(w);
        if (st != ZN_KSTATUS_OK)
            return st;
        uint32_t now = atomic_load_explicit(ctr, memory_order_acquire);
        if ((now ^ old) & 0x80000000u)
            break;
    }
    w->rt->barrier(w, 0, 0, 0);
    return ZN_KSTATUS_OK;
}

/* params: int *a, int *b, uint32_t rounds, uint32_t fail: blocks numbered
 * fail - 1 trap before the first grid barrier (0: none) */
static int32_t k_rounds(zn_warp_ctx *w)
{
    int *a = TEST_PARAM(w, int *, 0), *b = TEST_PARAM(w, int *, 8);
    uint32_t rounds = TEST_PARAM(w, uint32_t, 16);
    uint32_t fail = TEST_PARAM(w, uint32_t, 20);
    const zn_block_ctx *blk = w->block;
    uint64_t nblocks = (uint64_t)blk->nctaid[0] * blk->nctaid[1] * blk->nctaid[2];
    uint32_t n = (uint32_t)(nblocks * blk->nthreads);
    uint32_t participants = (uint32_t)nblocks;
    uint32_t base = (uint32_t)(test_block_linear(blk) * blk->nthreads) + w->warpid * 32;
    if (!blk->grid_ws)
        return ZN_KSTATUS_TRAP;     /* as nvcc's null check does */
    for (uint32_t lane = 0; lane < 32; lane++)
        if (w->live_mask >> lane & 1)
            a[base + lane] = (int)((base + lane) * 7 + 1);
    if (fail && test_block_linear(blk) == fail - 1)
        return ZN_KSTATUS_TRAP;
    for (uint32_t r = 0; r < rounds; r++) {
        int32_t st = grid_barrier(w, participants);
        if (st != ZN_KSTATUS_OK)
            return st;
        for (uint32_t lane = 0; lane < 32; lane++)
            if (w->live_mask >> lane & 1) {
                uint32_t i = base + lane;
                b[i] = a[(i + 3 * blk->nthreads + 5) % n] * 3 + (int)r;
            }
        int *t = a;
        a = b;
        b = t;
    }
    return ZN_KSTATUS_OK;
}

/* params: int *seen: 1 if this launch's blocks see a grid workspace */
static int32_t k_ws(zn_warp_ctx *w)
{
    int *seen = TEST_PARAM(w, int *, 0);
    seen[test_block_linear(w->block)] = w->block->grid_ws != NULL;
    return ZN_KSTATUS_OK;
}

static void check_rounds(uint32_t nblocks, uint32_t bs, uint32_t rounds)
{
    uint32_t n = nblocks * bs;
    int *a = zn_mem_alloc(n * sizeof *a, 0, ZN_MEM_DEVICE);
    int *b = zn_mem_alloc(n * sizeof *b, 0, ZN_MEM_DEVICE);
    int *ra = malloc(n * sizeof *ra), *rb = malloc(n * sizeof *rb);
    CHECK(a && b && ra && rb);
    memset(a, 0xa5, n * sizeof *a);
    memset(b, 0xa5, n * sizeof *b);
    struct { int *a, *b; uint32_t rounds, fail; } params = {a, b, rounds, 0};
    zn_launch l = test_launch(k_rounds, nblocks, 1, 1, bs, 1, 1, &params);
    l.uses_barrier = 1;
    CHECK_EQ(zn_exec_launch_coop(&l), ZN_KSTATUS_OK);
    for (uint32_t i = 0; i < n; i++)
        ra[i] = (int)(i * 7 + 1);
    for (uint32_t r = 0; r < rounds; r++) {
        for (uint32_t i = 0; i < n; i++)
            rb[i] = ra[(i + 3 * bs + 5) % n] * 3 + (int)r;
        int *t = ra;
        ra = rb;
        rb = t;
    }
    const int *got = rounds % 2 ? b : a;
    for (uint32_t i = 0; i < n; i++)
        CHECK_EQ(got[i], ra[i]);
    free(ra);
    free(rb);
    CHECK_EQ(zn_mem_free(a), 0);
    CHECK_EQ(zn_mem_free(b), 0);
}

/* One block traps before the first grid barrier: the others, already
 * spinning in it, must end (the launch reports the trap) rather than wait
 * for a block that will never arrive. That barrier never completes, so no
 * warp may run the code after it: b, written only after it, keeps its
 * poison. (With more than one warp per block, warp 0's poll returns
 * ABORTED and its exit completes the block barrier the other warps wait
 * at: they used to be released then and write b, unordered with the other
 * blocks' accesses: issue #4's ThreadSanitizer report.) */
static void check_failed_block(uint32_t nblocks, uint32_t bs, uint32_t fail_block)
{
    uint32_t n = nblocks * bs;
    int *a = zn_mem_alloc(n * sizeof *a, 0, ZN_MEM_DEVICE);
    int *b = zn_mem_alloc(n * sizeof *b, 0, ZN_MEM_DEVICE);
    CHECK(a && b);
    memset(b, 0xa5, n * sizeof *b);
    struct { int *a, *b; uint32_t rounds, fail; } params = {a, b, 3, fail_block + 1};
    zn_launch l = test_launch(k_rounds, nblocks, 1, 1, bs, 1, 1, &params);
    l.uses_barrier = 1;
    CHECK_EQ(zn_exec_launch_coop(&l), ZN_KSTATUS_TRAP);
    for (uint32_t i = 0; i < n; i++)
        CHECK_EQ(b[i], (int)0xa5a5a5a5);
    CHECK_EQ(zn_mem_free(a), 0);
    CHECK_EQ(zn_mem_free(b), 0);
}

int main(void)
{
    CHECK_EQ(zn_exec_init(4), 0);
    check_rounds(1, 32, 3);
    check_rounds(8, 96, 4);         /* 3 warps per block */
    check_rounds(64, 64, 5);        /* 16 blocks per worker thread */
    check_rounds(48, 40, 2);        /* partial last warps */
    check_failed_block(8, 64, 5);
    check_failed_block(16, 32, 0);  /* the block that starts the barrier */
    check_failed_block(12, 128, 11); /* 4 warps: 3 stopped at a barrier each */
    /* the threads whose warps stopped mid-kernel run the next grids right */
    check_rounds(12, 128, 3);
    check_rounds(8, 64, 2);

    int *seen = zn_mem_alloc(16 * sizeof *seen, 0, ZN_MEM_DEVICE);
    CHECK(seen != NULL);
    struct { int *seen; } p = {seen};
    zn_launch l = test_launch(k_ws, 16, 1, 1, 32, 1, 1, &p);
    memset(seen, 0xff, 16 * sizeof *seen);
    CHECK_EQ(zn_exec_launch(&l), ZN_KSTATUS_OK);
    for (int i = 0; i < 16; i++)
        CHECK_EQ(seen[i], 0);       /* ordinary launch: no workspace */
    memset(seen, 0xff, 16 * sizeof *seen);
    CHECK_EQ(zn_exec_launch_coop(&l), ZN_KSTATUS_OK);
    for (int i = 0; i < 16; i++)
        CHECK_EQ(seen[i], 1);
    /* ordinary launch of the barrier kernel: traps, as grid.sync() does */
    struct { int *a, *b; uint32_t rounds, fail; } bad = {seen, seen, 1, 0};
    zn_launch lb = test_launch(k_rounds, 2, 1, 1, 8, 1, 1, &bad);
    CHECK_EQ(zn_exec_launch(&lb), ZN_KSTATUS_TRAP);
    CHECK_EQ(zn_mem_free(seen), 0);
    printf("coop: ok\n");
    return 0;
}
