/* test_exec_cluster.c: thread block clusters (zn_exec_launch_cluster).
 * Hand-written kernels use the cluster table the executor gives compiled
 * code: every warp writes its lanes' words into its own shared window,
 * passes the cluster barrier (arrive, then wait), reads the words of the
 * next rank's window (a peer block's shared memory), passes it again (no
 * block leaves while a peer reads it), and stores what it read. Checked
 * against the values the test computes, in several cluster shapes, more
 * clusters than teams, partial warps, ZINC_THREADS-like pool sizes; a
 * block that traps ends its cluster's waiters; a grid that is not a
 * multiple of the cluster is refused; ordinary launches see no table. */
#include "exec_test.h"

/* rank of the block in its cluster, x fastest */
static uint32_t cl_rank(const zn_block_ctx *b, uint32_t *size)
{
    const uint32_t *cd = b->cluster_dim;
    *size = cd[0] * cd[1] * cd[2];
    return b->ctaid[0] % cd[0] + cd[0] * (b->ctaid[1] % cd[1] + cd[1] * (b->ctaid[2] % cd[2]));
}

/* params: uint32_t *out, uint32_t trap_block (0: none, else block + 1) */
static int32_t k_ring(zn_warp_ctx *w)
{
    uint32_t *out = TEST_PARAM(w, uint32_t *, 0);
    uint32_t trap = TEST_PARAM(w, uint32_t, 8);
    const zn_block_ctx *b = w->block;
    uint32_t size, rank = cl_rank(b, &size);
    uint64_t blk = test_block_linear(b);
    if (!b->cluster)
        return ZN_KSTATUS_TRAP;
    uint32_t *mine = (uint32_t *)b->shared;
    for (uint32_t lane = 0; lane < 32; lane++)
        if (w->live_mask >> lane & 1)
            mine[w->warpid * 32 + lane] = (uint32_t)blk * 10000 + w->warpid * 32 + lane;
    if (trap && blk == trap - 1)
        return ZN_KSTATUS_TRAP;
    int32_t st = w->rt->cluster_barrier(w, 1);
    if (st == ZN_KSTATUS_OK)
        st = w->rt->cluster_barrier(w, 2);
    if (st != ZN_KSTATUS_OK)
        return st;
    const uint32_t *peer = (const uint32_t *)b->cluster->shared[(rank + 1) % size];
    uint32_t got[32];
    for (uint32_t lane = 0; lane < 32; lane++)
        if (w->live_mask >> lane & 1)
            got[lane] = peer[w->warpid * 32 + lane];
    st = w->rt->cluster_barrier(w, 3);
    if (st != ZN_KSTATUS_OK)
        return st;
    for (uint32_t lane = 0; lane < 32; lane++)
        if (w->live_mask >> lane & 1)
            out[blk * b->nthreads + w->warpid * 32 + lane] = got[lane];
    return ZN_KSTATUS_OK;
}

/* params: int *seen */
static int32_t k_table(zn_warp_ctx *w)
{
    int *seen = TEST_PARAM(w, int *, 0);
    const zn_block_ctx *b = w->block;
    seen[test_block_linear(b)] = (b->cluster != NULL) | (int)(b->cluster_dim[0] * 2);
    return ZN_KSTATUS_OK;
}

static void check_ring(uint32_t gx, uint32_t gy, uint32_t cx, uint32_t cy, uint32_t bs)
{
    uint32_t nblocks = gx * gy, n = nblocks * bs;
    uint32_t *out = zn_mem_alloc(n * sizeof *out, 0, ZN_MEM_DEVICE);
    CHECK(out != NULL);
    memset(out, 0xa5, n * sizeof *out);
    struct { uint32_t *out; uint32_t trap; } params = {out, 0};
    zn_launch l = test_launch(k_ring, gx, gy, 1, bs, 1, 1, &params);
    l.uses_barrier = 1;
    l.static_shared = bs * 4;
    l.cluster[0] = cx;
    l.cluster[1] = cy;
    l.cluster[2] = 1;
    CHECK_EQ(zn_exec_launch(&l), ZN_KSTATUS_OK);
    uint32_t size = cx * cy;
    for (uint32_t y = 0; y < gy; y++)
        for (uint32_t x = 0; x < gx; x++) {
            uint32_t rank = x % cx + cx * (y % cy), pr = (rank + 1) % size;
            uint32_t px = x - x % cx + pr % cx, py = y - y % cy + pr / cx;
            uint32_t blk = x + gx * y, pb = px + gx * py;
            for (uint32_t t = 0; t < bs; t++)
                CHECK_EQ(out[blk * bs + t], pb * 10000 + t);
        }
    CHECK_EQ(zn_mem_free(out), 0);
}

int main(void)
{
    CHECK_EQ(zn_exec_init(4), 0);
    check_ring(2, 1, 2, 1, 32);
    check_ring(8, 2, 4, 1, 96);     /* 3 warps, 4 clusters on one team of 4 */
    check_ring(6, 4, 2, 2, 40);     /* 2x2 clusters, partial last warp */
    check_ring(16, 1, 16, 1, 64);   /* 16 threads on 4 workers */
    check_ring(32, 1, 2, 1, 256);   /* 16 clusters on 2 teams */

    /* a trapping block: its cluster's waiters return, the launch reports it */
    uint32_t *out = zn_mem_alloc(16 * 64 * sizeof *out, 0, ZN_MEM_DEVICE);
    CHECK(out != NULL);
    struct { uint32_t *out; uint32_t trap; } bad = {out, 6};
    zn_launch l = test_launch(k_ring, 16, 1, 1, 64, 1, 1, &bad);
    l.uses_barrier = 1;
    l.static_shared = 64 * 4;
    l.cluster[0] = 4;
    CHECK_EQ(zn_exec_launch(&l), ZN_KSTATUS_TRAP);
    l.grid[0] = 6;                  /* not a multiple of 4 */
    CHECK_EQ(zn_exec_launch(&l), ZN_KSTATUS_INVALID_LAUNCH);
    l.grid[0] = 17 * 2;
    l.cluster[0] = 17;              /* over 16 blocks */
    CHECK_EQ(zn_exec_launch(&l), ZN_KSTATUS_INVALID_LAUNCH);
    CHECK_EQ(zn_mem_free(out), 0);

    /* ordinary launches: no table, the implicit 1x1x1 cluster */
    int *seen = zn_mem_alloc(8 * sizeof *seen, 0, ZN_MEM_DEVICE);
    CHECK(seen != NULL);
    struct { int *seen; } p = {seen};
    zn_launch lt = test_launch(k_table, 8, 1, 1, 32, 1, 1, &p);
    memset(seen, 0xff, 8 * sizeof *seen);
    CHECK_EQ(zn_exec_launch(&lt), ZN_KSTATUS_OK);
    for (int i = 0; i < 8; i++)
        CHECK_EQ(seen[i], 2);
    lt.cluster[0] = 2;
    memset(seen, 0xff, 8 * sizeof *seen);
    CHECK_EQ(zn_exec_launch(&lt), ZN_KSTATUS_OK);
    for (int i = 0; i < 8; i++)
        CHECK_EQ(seen[i], 5);
    CHECK_EQ(zn_mem_free(seen), 0);
    printf("cluster: ok\n");
    return 0;
}
