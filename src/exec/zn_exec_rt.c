/* zn_exec_rt.c: the services compiled kernels call through w->rt. */
#include "zn_exec_internal.h"
#include "zn_exec_tex.h"

#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void zn_job_fail(zn_job *job, int32_t status)
{
    int32_t ok = ZN_KSTATUS_OK;
    atomic_compare_exchange_strong(&job->status, &ok, status);
}

static uint64_t rt_clock64(zn_warp_ctx *w)
{
#if defined(__x86_64__)
    return __builtin_ia32_rdtsc();
#elif defined(__aarch64__)
    uint64_t v;
    __asm__ volatile("mrs %0, cntvct_el0" : "=r"(v));
    return v;
#else
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
#endif
}

static uint64_t rt_globaltimer(zn_warp_ctx *w)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Prints like CUDA's device assert and fails the launch with
 * ZN_KSTATUS_ASSERT (CUDA_ERROR_ASSERT). */
static void rt_assertfail(zn_warp_ctx *w, const char *msg, const char *file,
                          uint32_t line, const char *func, uint32_t lane)
{
    const zn_block_ctx *b = w->block;
    uint32_t t = w->warpid * ZN_WARP_SIZE + lane;
    uint32_t tx = t % b->ntid[0], ty = t / b->ntid[0] % b->ntid[1];
    uint32_t tz = t / (b->ntid[0] * b->ntid[1]);
    fprintf(stderr, "%s:%u: %s: block: [%u,%u,%u], thread: [%u,%u,%u] Assertion `%s` failed.\n",
            file ? file : "", line, func ? func : "", b->ctaid[0], b->ctaid[1],
            b->ctaid[2], tx, ty, tz, msg ? msg : "");
    zn_block_run *run = b->exec;
    zn_job_fail(run->job, ZN_KSTATUS_ASSERT);
}

/* Device printf: formatted in one piece, written under stdout's lock so
 * lines from different warps do not interleave. Returns the number of
 * arguments used, as CUDA's printf does. */
static int32_t rt_vprintf(zn_warp_ctx *w, const char *fmt, const void *args, uint32_t lane)
{
    char *text = NULL;
    size_t len = 0;
    int n = zn_printf_format(fmt, args, &text, &len);
    if (text) {
        flockfile(stdout);
        fwrite(text, 1, len, stdout);
        funlockfile(stdout);
        free(text);
    }
    return n;
}

/* Each block keeps its charge to the heap in a 16-byte header (the
 * alignment a GPU's malloc gives). */
#define HEAP_HEADER 16

static zn_dev_heap *heap_of(zn_warp_ctx *w)
{
    const zn_block_run *run = w->block->exec;
    return run ? run->job->l->heap : NULL;
}

static void *rt_malloc(zn_warp_ctx *w, uint64_t size)
{
    zn_dev_heap *h = heap_of(w);
    if (size > SIZE_MAX - HEAP_HEADER)
        return NULL;
    size_t need = (size_t)size + HEAP_HEADER;
    if (h) {
        if (!atomic_load_explicit(&h->fixed, memory_order_relaxed))
            atomic_store(&h->fixed, true);  /* once: not a shared store per call */
        size_t limit = atomic_load(&h->limit);
        size_t used = atomic_fetch_add(&h->used, need);
        if (limit && (used + need > limit || used + need < used)) {
            atomic_fetch_sub(&h->used, need);
            return NULL;    /* the heap is full, as on a GPU */
        }
    }
    char *b = malloc(need);
    if (!b) {
        if (h)
            atomic_fetch_sub(&h->used, need);
        return NULL;
    }
    memcpy(b, &need, sizeof need);
    zn_check_host_add((uintptr_t)(b + HEAP_HEADER), size); /* good memory for memcheck */
    return b + HEAP_HEADER;
}

static void rt_free(zn_warp_ctx *w, void *p)
{
    if (!p)
        return;
    char *b = (char *)p - HEAP_HEADER;
    size_t need;
    memcpy(&need, b, sizeof need);
    zn_dev_heap *h = heap_of(w);
    if (h)
        atomic_fetch_sub(&h->used, need);
    zn_check_host_remove((uintptr_t)p);
    free(b);
}

/* A warp of a cooperative grid is about to poll memory another block
 * writes (grid.sync()): let that block's thread run. If a block has
 * failed, the barrier will never complete: end this warp too (a GPU kills
 * the whole grid). */
static int32_t rt_spin(zn_warp_ctx *w)
{
    const zn_block_run *run = w->block->exec;
    if (run && atomic_load_explicit(&run->job->status, memory_order_relaxed) != ZN_KSTATUS_OK)
        return ZN_KSTATUS_ABORTED;
    sched_yield();
    return ZN_KSTATUS_OK;
}

/* fibers' bar.sync (coroutine kernels suspend instead: zn_exec_coro.c) */
static void rt_barrier(zn_warp_ctx *w, uint32_t id, uint32_t count, uint32_t mode)
{
    (void)zn_warps_barrier(w, id, count, mode);
}

const zn_rt_ops zn_exec_rt_ops = {
    .barrier = rt_barrier,
    .assertfail = rt_assertfail,
    .vprintf = rt_vprintf,
    .clock64 = rt_clock64,
    .globaltimer = rt_globaltimer,
    .malloc = rt_malloc,
    .free = rt_free,
    .memcheck = zn_check_rt,
    .tex = zn_exec_tex,
    .spin = rt_spin,
    .cluster_barrier = zn_cluster_barrier,
    .coro_frame = zn_warps_coro_frame,
    .cdp = zn_exec_cdp,
    .tma = zn_exec_tma,
};
