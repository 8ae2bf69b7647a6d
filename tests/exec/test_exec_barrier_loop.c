/* test_exec_barrier_loop.c: barriers in a loop (values held in the warps'
 * own locals across many barriers), a warp that exits before the others
 * reach their barriers, one that exits after the others wait (its exit
 * completes the barrier), named barriers with thread counts, bar.arrive,
 * and a deadlocked block that is broken instead of hanging. */
#include "exec_test.h"

#include <unistd.h>

enum { ITERS = 20 };

/* Each iteration: s[t] = value; barrier; read the next thread's slot
 * (usually another warp's); barrier. params: uint64_t *out */
static int32_t k_rotate(zn_warp_ctx *w)
{
    uint64_t *out = TEST_PARAM(w, uint64_t *, 0);
    const zn_block_ctx *b = w->block;
    uint32_t *s = (uint32_t *)b->shared;
    uint32_t n = b->nthreads;
    uint64_t acc[32] = {0};
    for (uint32_t it = 0; it < ITERS; it++) {
        for (uint32_t lane = 0; lane < 32; lane++) {
            uint32_t t = w->warpid * 32 + lane;
            if (w->live_mask >> lane & 1)
                s[t] = t * 2654435761u + it * 97 + b->ctaid[0];
        }
        w->rt->barrier(w, 0, 0, 0);
        for (uint32_t lane = 0; lane < 32; lane++) {
            uint32_t t = w->warpid * 32 + lane;
            if (w->live_mask >> lane & 1)
                acc[lane] = acc[lane] * 31 + s[(t + 37) % n];
        }
        w->rt->barrier(w, 0, 0, 0);
    }
    for (uint32_t lane = 0; lane < 32; lane++)
        if (w->live_mask >> lane & 1)
            out[test_block_linear(b) * n + w->warpid * 32 + lane] = acc[lane];
    return ZN_KSTATUS_OK;
}

static void check_rotate(uint32_t nblocks, uint32_t nthreads)
{
    size_t n = (size_t)nblocks * nthreads;
    uint64_t *out = zn_mem_alloc(n * sizeof *out, 0, ZN_MEM_DEVICE);
    CHECK(out);
    memset(out, 0xee, n * sizeof *out);
    struct { uint64_t *out; } p = {out};
    zn_launch l = test_launch(k_rotate, nblocks, 1, 1, nthreads, 1, 1, &p);
    l.uses_barrier = 1;
    l.static_shared = nthreads * 4;
    CHECK_EQ(zn_exec_launch(&l), ZN_KSTATUS_OK);
    for (uint32_t bl = 0; bl < nblocks; bl++)
        for (uint32_t t = 0; t < nthreads; t++) {
            uint64_t acc = 0;
            uint32_t src = (t + 37) % nthreads;
            for (uint32_t it = 0; it < ITERS; it++)
                acc = acc * 31 + (uint32_t)(src * 2654435761u + it * 97 + bl);
            CHECK_EQ(out[(size_t)bl * nthreads + t], acc);
        }
    CHECK_EQ(zn_mem_free(out), 0);
}

/* Warp 0 returns at once; the others pass three whole-block barriers
 * exchanging values. params: uint32_t *out */
static int32_t k_early_exit(zn_warp_ctx *w)
{
    if (w->warpid == 0)
        return ZN_KSTATUS_OK;
    uint32_t *out = TEST_PARAM(w, uint32_t *, 0);
    uint32_t *s = (uint32_t *)w->block->shared;
    uint32_t nw = (w->block->nthreads + 31) / 32;
    uint32_t v = w->warpid;
    for (int r = 0; r < 3; r++) {
        s[w->warpid] = v;
        w->rt->barrier(w, 0, 0, 0);
        uint32_t next = w->warpid + 1 < nw ? w->warpid + 1 : 1;
        v = s[next] + 10;
        w->rt->barrier(w, 0, 0, 0);
    }
    out[test_block_linear(w->block) * nw + w->warpid] = v;
    return ZN_KSTATUS_OK;
}

/* 4 warps: warps 0,1 swap through barrier 1 (64 threads), warps 2,3 through
 * barrier 2; then warps 0,1 wait at barrier 3 (all 128 threads) for data
 * that warps 2,3 produce afterwards and announce with bar.arrive.
 * params: uint32_t *out */
static int32_t k_named(zn_warp_ctx *w)
{
    uint32_t *out = TEST_PARAM(w, uint32_t *, 0);
    uint32_t *s = (uint32_t *)w->block->shared;
    uint32_t me = w->warpid, pair = me ^ 1;
    uint32_t base = (uint32_t)test_block_linear(w->block) * 8;
    s[me] = 100 + me;
    w->rt->barrier(w, me < 2 ? 1 : 2, 64, 0);
    out[base + me] = s[pair];
    if (me >= 2) {
        s[4 + me] = 500 + me;
        w->rt->barrier(w, 3, 128, 1);      /* arrive, do not wait */
        return ZN_KSTATUS_OK;
    }
    w->rt->barrier(w, 3, 128, 0);
    out[base + 4 + me] = s[6 + me];
    return ZN_KSTATUS_OK;
}

/* The last warp returns without a barrier after the others already wait
 * at one (warps run in order): its exit alone must complete that barrier.
 * Then the others pass a second barrier with it gone. params: uint32_t *out */
static int32_t k_late_exit(zn_warp_ctx *w)
{
    uint32_t nw = (w->block->nthreads + 31) / 32;
    if (w->warpid == nw - 1)
        return ZN_KSTATUS_OK;
    uint32_t *out = TEST_PARAM(w, uint32_t *, 0);
    uint32_t *s = (uint32_t *)w->block->shared;
    s[w->warpid] = 7 * w->warpid + 1;
    w->rt->barrier(w, 0, 0, 0);
    uint32_t v = s[(w->warpid + 1) % (nw - 1)];
    w->rt->barrier(w, 0, 0, 0);
    out[test_block_linear(w->block) * nw + w->warpid] = v;
    return ZN_KSTATUS_OK;
}

/* Warp 0 waits at barrier 1 for 64 threads nobody else brings. */
static int32_t k_deadlock(zn_warp_ctx *w)
{
    uint32_t *out = TEST_PARAM(w, uint32_t *, 0);
    if (w->warpid == 0)
        w->rt->barrier(w, 1, 64, 0);
    else
        w->rt->barrier(w, 2, 64, 0);
    out[w->warpid] = 1;
    return ZN_KSTATUS_OK;
}

/* Whether the log written so far mentions a barrier deadlock. */
static int log_has_deadlock(const char *path)
{
    FILE *f = fopen(path, "r");
    CHECK(f != NULL);
    char line[512];
    int found = 0;
    while (fgets(line, sizeof line, f))
        found |= strstr(line, "barrier deadlock") != NULL;
    fclose(f);
    return found;
}

int main(void)
{
    /* warnings go to a file, so the test can tell a barrier completed by
     * the scheduler from one broken by the deadlock fallback */
    char log_path[] = "/tmp/zn_barrier_loop_XXXXXX";
    int log_fd = mkstemp(log_path);
    CHECK(log_fd >= 0);
    close(log_fd);
    setenv("ZINC_LOG", "1", 1);
    setenv("ZINC_LOG_FILE", log_path, 1);
    CHECK_EQ(zn_exec_init(2), 0);
    check_rotate(1, 1024);
    check_rotate(40, 1024);
    check_rotate(100, 200);             /* partial warp */
    check_rotate(50, 32);

    uint32_t nw = 5, nb = 30;
    uint32_t *out = zn_mem_alloc(nb * nw * 4, 0, ZN_MEM_DEVICE);
    memset(out, 0, nb * nw * 4);
    struct { uint32_t *out; } p = {out};
    zn_launch l = test_launch(k_early_exit, nb, 1, 1, nw * 32 - 3, 1, 1, &p);
    l.uses_barrier = 1;
    l.static_shared = 64;
    CHECK_EQ(zn_exec_launch(&l), ZN_KSTATUS_OK);
    for (uint32_t bl = 0; bl < nb; bl++) {
        uint32_t v[5] = {0, 1, 2, 3, 4};
        for (int r = 0; r < 3; r++) {
            uint32_t nv[5];
            for (uint32_t k = 1; k < nw; k++)
                nv[k] = v[k + 1 < nw ? k + 1 : 1] + 10;
            memcpy(v + 1, nv + 1, 4 * sizeof *v);
        }
        CHECK_EQ(out[bl * nw], 0);
        for (uint32_t k = 1; k < nw; k++)
            CHECK_EQ(out[bl * nw + k], v[k]);
    }

    memset(out, 0xff, nb * nw * 4);     /* poison */
    l = test_launch(k_late_exit, nb, 1, 1, nw * 32, 1, 1, &p);
    l.uses_barrier = 1;
    l.static_shared = 64;
    CHECK_EQ(zn_exec_launch(&l), ZN_KSTATUS_OK);
    for (uint32_t bl = 0; bl < nb; bl++) {
        for (uint32_t k = 0; k + 1 < nw; k++)
            CHECK_EQ(out[bl * nw + k], 7 * ((k + 1) % (nw - 1)) + 1);
        CHECK_EQ(out[bl * nw + nw - 1], 0xffffffffu);
    }
    CHECK(!log_has_deadlock(log_path));

    uint32_t *named = zn_mem_alloc(8 * nb * 4, 0, ZN_MEM_DEVICE);
    memset(named, 0, 8 * nb * 4);
    p.out = named;
    l = test_launch(k_named, nb, 1, 1, 128, 1, 1, &p);
    l.uses_barrier = 1;
    l.static_shared = 64;
    CHECK_EQ(zn_exec_launch(&l), ZN_KSTATUS_OK);
    for (uint32_t bl = 0; bl < nb; bl++) {
        for (uint32_t k = 0; k < 4; k++)
            CHECK_EQ(named[bl * 8 + k], 100 + (k ^ 1));
        CHECK_EQ(named[bl * 8 + 4], 502);
        CHECK_EQ(named[bl * 8 + 5], 503);
    }

    memset(out, 0, 4 * 4);
    p.out = out;
    l = test_launch(k_deadlock, 1, 1, 1, 128, 1, 1, &p);
    l.uses_barrier = 1;
    CHECK_EQ(zn_exec_launch(&l), ZN_KSTATUS_OK);
    for (int k = 0; k < 4; k++)
        CHECK_EQ(out[k], 1);
    CHECK(log_has_deadlock(log_path));
    unlink(log_path);

    CHECK_EQ(zn_mem_free(out), 0);
    CHECK_EQ(zn_mem_free(named), 0);
    printf("barrier_loop: ok\n");
    return 0;
}
