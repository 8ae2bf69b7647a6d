/* test_exec_reduce.c: a block reduction through shared memory. Each warp
 * sums its lanes and stores the partial sum in shared memory, all warps
 * meet at a barrier, then warp 0 adds the partials. 1024-thread blocks
 * and a partial-warp size, static and dynamic shared memory. */
#include "exec_test.h"

/* params: const int32_t *in, int64_t *out; shared: int64_t partial[32] */
static int32_t k_reduce(zn_warp_ctx *w)
{
    const int32_t *in = TEST_PARAM(w, const int32_t *, 0);
    int64_t *out = TEST_PARAM(w, int64_t *, 8);
    const zn_block_ctx *b = w->block;
    int64_t *partial = (int64_t *)(b->shared + b->shared_size - b->dyn_shared_size);
    uint64_t blk = test_block_linear(b);
    int64_t sum = 0;
    for (uint32_t lane = 0; lane < 32; lane++)
        if (w->live_mask >> lane & 1)
            sum += in[blk * b->nthreads + w->warpid * 32 + lane];
    partial[w->warpid] = sum;
    w->rt->barrier(w, 0, 0, 0);
    if (w->warpid == 0) {
        int64_t total = 0;
        for (uint32_t i = 0; i < (b->nthreads + 31) / 32; i++)
            total += partial[i];
        out[blk] = total;
    }
    return ZN_KSTATUS_OK;
}

static void check_reduce(uint32_t nblocks, uint32_t nthreads, uint32_t static_shared)
{
    size_t n = (size_t)nblocks * nthreads;
    int32_t *in = zn_mem_alloc(n * sizeof *in, 0, ZN_MEM_DEVICE);
    int64_t *out = zn_mem_alloc(nblocks * sizeof *out, 0, ZN_MEM_DEVICE);
    CHECK(in && out);
    uint64_t seed = 99 + nthreads;
    for (size_t i = 0; i < n; i++)
        in[i] = (int32_t)(test_rand(&seed) % 2000001) - 1000000;
    for (uint32_t i = 0; i < nblocks; i++)
        out[i] = INT64_MIN;
    struct { const int32_t *in; int64_t *out; } p = {in, out};
    zn_launch l = test_launch(k_reduce, nblocks, 1, 1, nthreads, 1, 1, &p);
    l.uses_barrier = 1;
    l.static_shared = static_shared;
    l.dyn_shared = 32 * sizeof(int64_t);
    CHECK_EQ(zn_exec_launch(&l), ZN_KSTATUS_OK);
    for (uint32_t bl = 0; bl < nblocks; bl++) {
        int64_t ref = 0;
        for (uint32_t t = 0; t < nthreads; t++)
            ref += in[(size_t)bl * nthreads + t];
        CHECK_EQ(out[bl], ref);
    }
    CHECK_EQ(zn_mem_free(in), 0);
    CHECK_EQ(zn_mem_free(out), 0);
}

int main(void)
{
    CHECK_EQ(zn_exec_init(3), 0);
    check_reduce(1, 1024, 0);           /* inline on the caller */
    check_reduce(300, 1024, 0);
    check_reduce(257, 1000, 48);        /* partial last warp, shared offset */
    check_reduce(64, 32, 0);            /* one warp per block */
    check_reduce(1000, 33, 16);
    printf("reduce: ok\n");
    return 0;
}
