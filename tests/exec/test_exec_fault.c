/* test_exec_fault.c: a kernel that touches freed device memory, or runs
 * off its warp stack, fails its launch with ZN_KSTATUS_ILLEGAL_ADDRESS and
 * the process goes on; a fault outside kernels still kills (checked in a
 * child process). Skipped, visibly, where fault catching is off (ASan).
 * Under ThreadSanitizer the jump out of a warp's fiber goes through TSan's
 * fiber and signal bookkeeping (zn_exec_fault.c), which this checks too. */
#include "exec_test.h"
#include "zn_exec_internal.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

/* Block 3, lane 7 of its last-but-one or only warp writes to `bad`; others write `good`.
 * params: uint32_t *bad, uint32_t *good */
static int32_t k_bad_write(zn_warp_ctx *w)
{
    uint32_t *bad = TEST_PARAM(w, uint32_t *, 0);
    uint32_t *good = TEST_PARAM(w, uint32_t *, 8);
    if (w->block->nthreads > 32)        /* the barrier variant */
        w->rt->barrier(w, 0, 0, 0);
    uint64_t blk = test_block_linear(w->block);
    for (uint32_t lane = 0; lane < 32; lane++) {
        if (blk == 3 && w->warpid == (w->block->nthreads > 32 ? 1u : 0u) && lane == 7)
            *(volatile uint32_t *)bad = 1;
        good[blk] = 1;
    }
    return ZN_KSTATUS_OK;
}

static uint32_t recurse(uint32_t n)
{
    volatile uint8_t frame[8192];
    frame[0] = (uint8_t)n;
    return n ? recurse(n - 1) + frame[0] : 0;
}

/* Recurses far past a 1 MiB fiber stack. */
static int32_t k_overflow(zn_warp_ctx *w)
{
    uint32_t *out = TEST_PARAM(w, uint32_t *, 0);
    w->rt->barrier(w, 0, 0, 0);
    /* a slot per warp of each block: blocks run on different threads */
    out[test_block_linear(w->block) * 4 + w->warpid] = recurse(w->warpid == 1 ? 100000 : 10);
    return ZN_KSTATUS_OK;
}

static int32_t k_sum(zn_warp_ctx *w)
{
    uint32_t *out = TEST_PARAM(w, uint32_t *, 0);
    w->rt->barrier(w, 0, 0, 0);
    __atomic_fetch_add(out, 1, __ATOMIC_RELAXED);
    return ZN_KSTATUS_OK;
}

int main(void)
{
    CHECK_EQ(zn_exec_init(2), 0);
    if (!zn_fault_enabled()) {
        printf("fault: SKIPPED (fault catching is off in this build or by ZINC_CATCH_FAULTS)\n");
        return 0;
    }
    uint32_t *bad = zn_mem_alloc(64, 0, ZN_MEM_DEVICE);
    uint32_t *good = zn_mem_alloc(4096, 0, ZN_MEM_DEVICE);
    CHECK(bad && good);
    CHECK_EQ(zn_mem_free(bad), 0);
    struct { uint32_t *bad, *good; } p = {bad, good};

    for (int barrier = 0; barrier < 2; barrier++) {
        zn_launch l = test_launch(k_bad_write, 64, 1, 1, barrier ? 96 : 32, 1, 1, &p);
        l.uses_barrier = barrier;
        memset(good, 0, 4096);
        CHECK_EQ(zn_exec_launch(&l), ZN_KSTATUS_ILLEGAL_ADDRESS);
        /* the device keeps working */
        p.bad = good;
        CHECK_EQ(zn_exec_launch(&l), ZN_KSTATUS_OK);
        for (int b = 0; b < 64; b++)
            CHECK_EQ(good[b], 1);
        p.bad = bad;
    }

    uint32_t *out = zn_mem_alloc(4096, 0, ZN_MEM_DEVICE);
    struct { uint32_t *out; } q = {out};
    zn_launch l = test_launch(k_overflow, 4, 1, 1, 128, 1, 1, &q);
    l.uses_barrier = 1;
    CHECK_EQ(zn_exec_launch(&l), ZN_KSTATUS_ILLEGAL_ADDRESS);
    /* fresh fibers after the fault */
    out[0] = 0;
    l = test_launch(k_sum, 16, 1, 1, 256, 1, 1, &q);
    l.uses_barrier = 1;
    CHECK_EQ(zn_exec_launch(&l), ZN_KSTATUS_OK);
    CHECK_EQ(out[0], 16 * 8);

    /* outside a kernel a fault is still fatal */
    fflush(stdout);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        *(volatile uint32_t *)bad = 1;
        _exit(0);
    }
    int status = 0;
    CHECK_EQ(waitpid(pid, &status, 0), pid);
#ifdef ZINC_TSAN
    /* ThreadSanitizer takes the fatal fault itself: it reports a SEGV and
     * exits with an error instead of dying by the signal */
    CHECK((WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV) ||
          (WIFEXITED(status) && WEXITSTATUS(status) != 0));
#else
    CHECK(WIFSIGNALED(status));
    CHECK_EQ(WTERMSIG(status), SIGSEGV);
#endif

    CHECK_EQ(zn_mem_free(good), 0);
    CHECK_EQ(zn_mem_free(out), 0);
    printf("fault: ok\n");
    return 0;
}
