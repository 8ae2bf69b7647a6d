/* test_exec_grid.c: every thread of a 3D grid of 3D blocks (with a partial
 * last warp) writes its indices; each slot is checked against the indices
 * the test computes. Also: invalid launches, error status, %smid. */
#include "exec_test.h"

typedef struct rec {
    uint32_t ctaid[3], tid[3], smid, written;
} rec;

/* params: rec *out */
static int32_t k_indices(zn_warp_ctx *w)
{
    rec *out = TEST_PARAM(w, rec *, 0);
    const zn_block_ctx *b = w->block;
    uint64_t blk = test_block_linear(b);
    for (uint32_t lane = 0; lane < 32; lane++) {
        if (!(w->live_mask >> lane & 1))
            continue;
        rec *r = &out[blk * b->nthreads + w->warpid * 32 + lane];
        memcpy(r->ctaid, b->ctaid, sizeof r->ctaid);
        test_tid(w, lane, r->tid);
        r->smid = w->smid < w->nsmid ? w->smid : 0xdead;
        r->written++;
    }
    return ZN_KSTATUS_OK;
}

static void check_grid(uint32_t gx, uint32_t gy, uint32_t gz, uint32_t bx, uint32_t by, uint32_t bz)
{
    uint64_t nthreads = (uint64_t)bx * by * bz, nblocks = (uint64_t)gx * gy * gz;
    size_t n = nthreads * nblocks;
    rec *out = zn_mem_alloc(n * sizeof *out, 0, ZN_MEM_DEVICE);
    CHECK(out != NULL);
    memset(out, 0xff, n * sizeof *out);
    for (size_t i = 0; i < n; i++)
        out[i].written = 0;
    struct { rec *out; } params = {out};
    zn_launch l = test_launch(k_indices, gx, gy, gz, bx, by, bz, &params);
    CHECK_EQ(zn_exec_launch(&l), ZN_KSTATUS_OK);
    size_t i = 0;
    for (uint32_t z = 0; z < gz; z++)
        for (uint32_t y = 0; y < gy; y++)
            for (uint32_t x = 0; x < gx; x++)
                for (uint32_t tz = 0; tz < bz; tz++)
                    for (uint32_t ty = 0; ty < by; ty++)
                        for (uint32_t tx = 0; tx < bx; tx++, i++) {
                            rec *r = &out[i];
                            CHECK_EQ(r->written, 1);
                            CHECK_EQ(r->ctaid[0], x);
                            CHECK_EQ(r->ctaid[1], y);
                            CHECK_EQ(r->ctaid[2], z);
                            CHECK_EQ(r->tid[0], tx);
                            CHECK_EQ(r->tid[1], ty);
                            CHECK_EQ(r->tid[2], tz);
                            CHECK(r->smid != 0xdead);
                        }
    CHECK_EQ(i, n);
    CHECK_EQ(zn_mem_free(out), 0);
}

/* params: uint32_t fail_block, uint32_t *count */
static int32_t k_fail_one(zn_warp_ctx *w)
{
    uint32_t fail = TEST_PARAM(w, uint32_t, 0);
    uint32_t *count = TEST_PARAM(w, uint32_t *, 8);
    __atomic_fetch_add(count, 1, __ATOMIC_RELAXED);
    return test_block_linear(w->block) == fail ? ZN_KSTATUS_TRAP : ZN_KSTATUS_OK;
}

static int32_t k_nop(zn_warp_ctx *w)
{
    return ZN_KSTATUS_OK;
}

static void check_errors(void)
{
    zn_launch l = test_launch(k_nop, 1, 1, 1, 32, 1, 1, NULL);
    l.grid[1] = 0;
    CHECK_EQ(zn_exec_launch(&l), ZN_KSTATUS_INVALID_LAUNCH);
    l = test_launch(k_nop, 1, 1, 1, 1025, 1, 1, NULL);
    CHECK_EQ(zn_exec_launch(&l), ZN_KSTATUS_INVALID_LAUNCH);
    l = test_launch(k_nop, 1, 1, 1, 64, 4, 8, NULL);   /* 2048 threads */
    CHECK_EQ(zn_exec_launch(&l), ZN_KSTATUS_INVALID_LAUNCH);
    l = test_launch(NULL, 1, 1, 1, 32, 1, 1, NULL);
    CHECK_EQ(zn_exec_launch(&l), ZN_KSTATUS_INVALID_LAUNCH);
    CHECK_EQ(zn_exec_launch(NULL), ZN_KSTATUS_INVALID_LAUNCH);

    /* one failing block fails the launch and stops the hand-out early */
    uint32_t count = 0;
    struct { uint32_t fail, pad; uint32_t *count; } p = {0, 0, &count};
    l = test_launch(k_fail_one, 100000, 1, 1, 32, 1, 1, &p);
    CHECK_EQ(zn_exec_launch(&l), ZN_KSTATUS_TRAP);
    CHECK(count < 100000);
    /* a later launch is unaffected */
    count = 0;
    p.fail = 0xffffffffu;
    CHECK_EQ(zn_exec_launch(&l), ZN_KSTATUS_OK);
    CHECK_EQ(count, 100000);
}

int main(void)
{
    CHECK_EQ(zn_exec_init(4), 0);
    CHECK_EQ(zn_exec_threads(), 4);
    check_grid(1, 1, 1, 1, 1, 1);
    check_grid(1, 1, 1, 7, 5, 3);       /* one block inline, partial warp */
    check_grid(5, 3, 2, 7, 5, 3);       /* 105 threads: warps of 32,32,32,9 */
    check_grid(4, 4, 4, 32, 32, 1);     /* 1024 threads */
    check_grid(3000, 1, 1, 33, 1, 1);
    check_grid(2, 70000, 1, 1, 1, 1);   /* grid.y beyond 65535: ours handles it */
    check_errors();
    printf("grid: ok\n");
    return 0;
}
