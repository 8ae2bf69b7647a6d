/* test_exec_concurrent.c: launches from four host threads at once (plain
 * and barrier kernels), each checked against its own reference, beside a
 * fifth thread running host loops on the pool (zn_exec_parallel), nested
 * ones included. */
#include "exec_test.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* out[gid] = gid * mul + add; params: uint32_t *out, uint32_t mul, add */
static int32_t k_affine(zn_warp_ctx *w)
{
    uint32_t *out = TEST_PARAM(w, uint32_t *, 0);
    uint32_t mul = TEST_PARAM(w, uint32_t, 8), add = TEST_PARAM(w, uint32_t, 12);
    const zn_block_ctx *b = w->block;
    for (uint32_t lane = 0; lane < 32; lane++)
        if (w->live_mask >> lane & 1) {
            uint32_t g = (uint32_t)test_block_linear(b) * b->nthreads + w->warpid * 32 + lane;
            out[g] = g * mul + add;
        }
    return ZN_KSTATUS_OK;
}

/* The same through shared memory, reversed within the block, so a missing
 * barrier would show. */
static int32_t k_affine_rev(zn_warp_ctx *w)
{
    uint32_t *out = TEST_PARAM(w, uint32_t *, 0);
    uint32_t mul = TEST_PARAM(w, uint32_t, 8), add = TEST_PARAM(w, uint32_t, 12);
    const zn_block_ctx *b = w->block;
    uint32_t *s = (uint32_t *)b->shared;
    uint32_t base = (uint32_t)test_block_linear(b) * b->nthreads;
    for (uint32_t lane = 0; lane < 32; lane++)
        if (w->live_mask >> lane & 1) {
            uint32_t t = w->warpid * 32 + lane;
            s[b->nthreads - 1 - t] = (base + t) * mul + add;
        }
    w->rt->barrier(w, 0, 0, 0);
    for (uint32_t lane = 0; lane < 32; lane++)
        if (w->live_mask >> lane & 1) {
            uint32_t t = w->warpid * 32 + lane;
            out[base + b->nthreads - 1 - t] = s[t];
        }
    return ZN_KSTATUS_OK;
}

typedef struct host_job {
    int barrier;
    uint32_t mul;
    int failures;
} host_job;

static void *host_thread(void *arg)
{
    host_job *j = arg;
    const uint32_t nb = 97, nt = 320;
    uint32_t *out = zn_mem_alloc(nb * nt * 4, 0, ZN_MEM_DEVICE);
    CHECK(out);
    for (uint32_t rep = 0; rep < 40; rep++) {
        memset(out, 0, nb * nt * 4);
        struct { uint32_t *out; uint32_t mul, add; } p = {out, j->mul, rep};
        zn_launch l = test_launch(j->barrier ? k_affine_rev : k_affine, nb, 1, 1, nt, 1, 1, &p);
        l.uses_barrier = j->barrier;
        l.static_shared = j->barrier ? nt * 4 : 0;
        if (zn_exec_launch(&l) != ZN_KSTATUS_OK)
            j->failures++;
        for (uint32_t g = 0; g < nb * nt; g++)
            if (out[g] != g * j->mul + rep)
                j->failures++;
    }
    CHECK_EQ(zn_mem_free(out), 0);
    return NULL;
}

/* Host work on the pool: out[i] written once per loop (plain stores: a
 * second visit or a missed index shows, and TSan sees any overlap). */
typedef struct loop_job {
    uint32_t *out;
    uint32_t rep;
    _Atomic uint32_t nested;
} loop_job;

static void nested_part(void *arg, uint64_t i)
{
    atomic_fetch_add(&((loop_job *)arg)->nested, (uint32_t)i + 1);
}

static void loop_part(void *arg, uint64_t i)
{
    loop_job *j = arg;
    j->out[i] = (uint32_t)i * 13 + j->rep;
    if (i % 1000 == 0)
        zn_exec_parallel(4, nested_part, j);    /* 1 + 2 + 3 + 4 */
}

static void *loop_thread(void *arg)
{
    int *failures = arg;
    const uint32_t n = 3001;
    uint32_t *out = malloc(n * 4);
    CHECK(out);
    for (uint32_t rep = 0; rep < 40; rep++) {
        memset(out, 0xff, n * 4);   /* an index never visited shows */
        loop_job j = {out, rep, 0};
        zn_exec_parallel(n, loop_part, &j);
        for (uint32_t i = 0; i < n; i++)
            if (out[i] != i * 13 + rep)
                (*failures)++;
        if (atomic_load(&j.nested) != 4 * 10)
            (*failures)++;
    }
    free(out);
    return NULL;
}

int main(void)
{
    CHECK_EQ(zn_exec_init(3), 0);
    host_job jobs[4] = {{0, 3, 0}, {1, 5, 0}, {1, 7, 0}, {0, 11, 0}};
    pthread_t t[5];
    int loop_failures = 0;
    for (int i = 0; i < 4; i++)
        CHECK_EQ(pthread_create(&t[i], NULL, host_thread, &jobs[i]), 0);
    CHECK_EQ(pthread_create(&t[4], NULL, loop_thread, &loop_failures), 0);
    for (int i = 0; i < 5; i++)
        CHECK_EQ(pthread_join(t[i], NULL), 0);
    for (int i = 0; i < 4; i++)
        CHECK_EQ(jobs[i].failures, 0);
    CHECK_EQ(loop_failures, 0);
    printf("concurrent: ok\n");
    return 0;
}
