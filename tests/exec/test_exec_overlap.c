/* test_exec_overlap.c: grids launched from different threads run at the
 * same time on the pool (issue #4).
 *
 * - A grid spinning on a flag (one block, then many) finishes because a
 *   grid launched later from another thread sets the flag.
 * - While a one-block grid occupies its launcher, a many-block grid from
 *   another thread gets a pool thread's help.
 * - A grid whose abort word turns nonzero stops early with
 *   ZN_KSTATUS_ABORTED; a failing grid does not fail its neighbour.
 *
 * `test_exec_overlap figure [threads]` prints only the figure in
 * src/exec/README.md: 200 small grids whose blocks sleep 1 ms, launched
 * from one thread or from four (as from four streams' threads). Sleeping
 * blocks make it a measure of overlap that does not depend on the CPU
 * share a busy machine gives the process.
 */
#include "exec_test.h"

#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

#define SPIN_S 2.0

/* Every block: spins until *flag or SPIN_S; seen[block] = what it saw.
 * params: atomic_int *flag, atomic_int *started, int *seen */
static int32_t k_wait(zn_warp_ctx *w)
{
    atomic_int *flag = TEST_PARAM(w, atomic_int *, 0);
    atomic_int *started = TEST_PARAM(w, atomic_int *, 8);
    int *seen = TEST_PARAM(w, int *, 16);
    atomic_fetch_add(started, 1);
    double t0 = test_now();
    while (!atomic_load(flag) && test_now() - t0 < SPIN_S)
        usleep(50);
    seen[test_block_linear(w->block)] = atomic_load(flag);
    return ZN_KSTATUS_OK;
}

/* params: atomic_int *flag */
static int32_t k_set(zn_warp_ctx *w)
{
    atomic_store(TEST_PARAM(w, atomic_int *, 0), 1);
    return ZN_KSTATUS_OK;
}

/* Every block sleeps `us` and records its thread and that it ran.
 * params: pthread_t *who, atomic_int *ran, uint32_t us, uint32_t fail_block */
static int32_t k_slow(zn_warp_ctx *w)
{
    pthread_t *who = TEST_PARAM(w, pthread_t *, 0);
    atomic_int *ran = TEST_PARAM(w, atomic_int *, 8);
    uint32_t us = TEST_PARAM(w, uint32_t, 16), fail = TEST_PARAM(w, uint32_t, 20);
    uint64_t b = test_block_linear(w->block);
    usleep(us);
    if (who)
        who[b] = pthread_self();
    atomic_fetch_add(ran, 1);
    return b == fail ? ZN_KSTATUS_TRAP : ZN_KSTATUS_OK;
}

typedef struct spin_params {
    atomic_int *flag, *started;
    int *seen;
} spin_params;

typedef struct bg_launch {
    zn_launch l;
    int status;
} bg_launch;

static void *bg_thread(void *arg)
{
    bg_launch *b = arg;
    b->status = zn_exec_launch(&b->l);
    return NULL;
}

/* A grid of `blocks` blocks that all wait for a flag a one-block grid
 * launched later from this thread sets. */
static void test_flag(uint32_t blocks)
{
    atomic_int flag = 0, started = 0;
    int *seen = calloc(blocks, sizeof *seen);
    CHECK(seen);
    spin_params p = {&flag, &started, seen};
    bg_launch a = {test_launch(k_wait, blocks, 1, 1, 32, 1, 1, &p), -1};
    pthread_t t;
    CHECK_EQ(pthread_create(&t, NULL, bg_thread, &a), 0);
    double t0 = test_now();
    while (!atomic_load(&started) && test_now() - t0 < SPIN_S)
        usleep(100);
    CHECK(atomic_load(&started) > 0);
    atomic_int *fp = &flag;
    zn_launch b = test_launch(k_set, 1, 1, 1, 32, 1, 1, &fp);
    CHECK_EQ(zn_exec_launch(&b), ZN_KSTATUS_OK);
    CHECK_EQ(pthread_join(t, NULL), 0);
    CHECK_EQ(a.status, ZN_KSTATUS_OK);
    for (uint32_t i = 0; i < blocks; i++)
        if (seen[i] != 1) {
            fprintf(stderr, "flag (%u blocks): block %u never saw the flag\n", blocks, i);
            exit(1);
        }
    free(seen);
}

typedef struct slow_params {
    pthread_t *who;
    atomic_int *ran;
    uint32_t us, fail;
} slow_params;

/* A one-block grid holds its launcher; a 48-block grid from this thread
 * must still get a pool thread's help. */
static void test_helpers(void)
{
    atomic_int flag = 0, started = 0;
    int seen = 0;
    spin_params p = {&flag, &started, &seen};
    bg_launch a = {test_launch(k_wait, 1, 1, 1, 32, 1, 1, &p), -1};
    pthread_t t;
    CHECK_EQ(pthread_create(&t, NULL, bg_thread, &a), 0);
    while (!atomic_load(&started))
        usleep(100);
    const uint32_t nb = 48;
    pthread_t who[48];
    atomic_int ran = 0;
    slow_params sp = {who, &ran, 2000, UINT32_MAX};
    zn_launch b = test_launch(k_slow, nb, 1, 1, 32, 1, 1, &sp);
    CHECK_EQ(zn_exec_launch(&b), ZN_KSTATUS_OK);
    atomic_store(&flag, 1);
    CHECK_EQ(pthread_join(t, NULL), 0);
    CHECK_EQ(a.status, ZN_KSTATUS_OK);
    CHECK_EQ(atomic_load(&ran), nb);
    uint32_t others = 0;
    for (uint32_t i = 0; i < nb; i++)
        others += !pthread_equal(who[i], pthread_self());
    printf("helpers: %u of %u blocks ran on pool threads while another grid ran\n", others, nb);
    CHECK(others > 0);
}

/* The abort word stops a grid between chunks. */
static void test_abort(void)
{
    atomic_int ab = 1, ran = 0;
    slow_params sp = {NULL, &ran, 0, UINT32_MAX};
    zn_launch l = test_launch(k_slow, 64, 1, 1, 32, 1, 1, &sp);
    l.abort = &ab;
    CHECK_EQ(zn_exec_launch(&l), ZN_KSTATUS_ABORTED);
    CHECK_EQ(atomic_load(&ran), 0);

    atomic_store(&ab, 0);
    sp.us = 1000;
    l = test_launch(k_slow, 400, 1, 1, 32, 1, 1, &sp);
    l.abort = &ab;
    bg_launch g = {l, -1};
    pthread_t t;
    CHECK_EQ(pthread_create(&t, NULL, bg_thread, &g), 0);
    while (atomic_load(&ran) < 4)
        usleep(100);
    atomic_store(&ab, 1);
    CHECK_EQ(pthread_join(t, NULL), 0);
    CHECK_EQ(g.status, ZN_KSTATUS_ABORTED);
    printf("abort: %d of 400 blocks ran\n", atomic_load(&ran));
    CHECK(atomic_load(&ran) < 400);
}

/* One grid fails (a block returns TRAP) while another runs: each launch
 * gets its own status, and the healthy grid runs every block. */
static void test_isolation(void)
{
    atomic_int ran_bad = 0, ran_good = 0;
    slow_params bad = {NULL, &ran_bad, 500, 3};
    bg_launch g = {test_launch(k_slow, 200, 1, 1, 32, 1, 1, &bad), -1};
    pthread_t t;
    CHECK_EQ(pthread_create(&t, NULL, bg_thread, &g), 0);
    slow_params good = {NULL, &ran_good, 500, UINT32_MAX};
    zn_launch l = test_launch(k_slow, 100, 1, 1, 32, 1, 1, &good);
    CHECK_EQ(zn_exec_launch(&l), ZN_KSTATUS_OK);
    CHECK_EQ(pthread_join(t, NULL), 0);
    CHECK_EQ(g.status, ZN_KSTATUS_TRAP);
    CHECK_EQ(atomic_load(&ran_good), 100);
    CHECK(atomic_load(&ran_bad) < 200);
}

/* params: none; warp 0 sleeps 1 ms */
static int32_t k_sleep(zn_warp_ctx *w)
{
    if (w->warpid == 0)
        usleep(1000);
    return ZN_KSTATUS_OK;
}

typedef struct fig_arg {
    int n, max_blocks;
} fig_arg;

static void *fig_thread(void *arg)
{
    fig_arg *a = arg;
    for (int i = 0; i < a->n; i++) {
        uint32_t nb = a->max_blocks == 1 ? 1 : 2 + (uint32_t)(i % (a->max_blocks - 1));
        zn_launch l = test_launch(k_sleep, nb, 1, 1, 128, 1, 1, NULL);
        CHECK_EQ(zn_exec_launch(&l), ZN_KSTATUS_OK);
    }
    return NULL;
}

/* n grids from t threads, best of 3; milliseconds */
static double fig_run(int n, int t, int max_blocks)
{
    double best = 1e30;
    for (int r = 0; r < 3; r++) {
        pthread_t tid[4];
        fig_arg a = {n / t, max_blocks};
        double t0 = test_now();
        for (int i = 0; i < t; i++)
            CHECK_EQ(pthread_create(&tid[i], NULL, fig_thread, &a), 0);
        for (int i = 0; i < t; i++)
            CHECK_EQ(pthread_join(tid[i], NULL), 0);
        double x = test_now() - t0;
        best = x < best ? x : best;
    }
    return best * 1e3;
}

static int figure(unsigned threads)
{
    CHECK_EQ(zn_exec_init(threads), 0);
    fig_run(8, 4, 1);
    for (int mb = 1; mb <= 8; mb += 7)
        for (int t = 1; t <= 4; t *= 4)
            printf("%u threads: 200 grids of %s (1 ms per block) from %d launching thread%s: "
                   "%.1f ms\n", zn_exec_threads(), mb == 1 ? "1 block" : "2-8 blocks", t,
                   t > 1 ? "s" : "", fig_run(200, t, mb));
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "figure") == 0)
        return figure(argc > 2 ? (unsigned)atoi(argv[2]) : 4);
    CHECK_EQ(zn_exec_init(3), 0);
    test_flag(1);
    test_flag(12);   /* more blocks than threads: spinning blocks hold the pool */
    test_helpers();
    test_abort();
    test_isolation();
    printf("overlap: ok\n");
    return 0;
}
