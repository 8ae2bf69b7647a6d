/* test_exec_launch_overhead.c: not a timed test: prints what an empty
 * launch costs (inline single block, pool-wide grid, barrier kernel on
 * fibers) and checks only that every block ran. */
#include "exec_test.h"

static int32_t k_count(zn_warp_ctx *w)
{
    uint64_t *count = TEST_PARAM(w, uint64_t *, 0);
    if (w->warpid == 0)
        __atomic_fetch_add(count, 1, __ATOMIC_RELAXED);
    return ZN_KSTATUS_OK;
}

static int32_t k_count_bar(zn_warp_ctx *w)
{
    w->rt->barrier(w, 0, 0, 0);
    return k_count(w);
}

static void measure(const char *what, zn_kernel_fn fn, int bar, uint32_t grid,
                    uint32_t block, int reps)
{
    uint64_t count = 0;
    struct { uint64_t *count; } p = {&count};
    zn_launch l = test_launch(fn, grid, 1, 1, block, 1, 1, &p);
    l.uses_barrier = bar;
    CHECK_EQ(zn_exec_launch(&l), ZN_KSTATUS_OK);   /* warm up */
    double t0 = test_now();
    for (int i = 0; i < reps; i++)
        CHECK_EQ(zn_exec_launch(&l), ZN_KSTATUS_OK);
    double dt = test_now() - t0;
    CHECK_EQ(count, (uint64_t)grid * (reps + 1));
    printf("%-44s %9.2f us/launch  %8.3f us/block\n", what, dt / reps * 1e6,
           dt / reps / grid * 1e6);
}

int main(void)
{
    CHECK_EQ(zn_exec_init(0), 0);
    printf("threads: %u\n", zn_exec_threads());
    measure("empty kernel, 1 block x 32 (inline)", k_count, 0, 1, 32, 20000);
    measure("empty kernel, 64 blocks x 256 (pool)", k_count, 0, 64, 256, 5000);
    measure("empty kernel, 4096 blocks x 1024", k_count, 0, 4096, 1024, 50);
    measure("barrier kernel, 1 block x 1024 (fibers)", k_count_bar, 1, 1, 1024, 2000);
    measure("barrier kernel, 256 blocks x 256 (fibers)", k_count_bar, 1, 256, 256, 200);
    return 0;
}
