/* zn_exec_warps.c: the warps of one block as fibers, and bar.sync.
 *
 * The worker switches into warp 0. A warp runs until it waits at a barrier
 * or finishes, then switches straight to the next runnable warp (round
 * robin); the last warp to arrive releases the others and carries on. A
 * finished warp counts as arrived at later whole-block barriers, as exited
 * threads do on a GPU. Only when no warp can run does control return to
 * the worker: either all are done, or the block is deadlocked (warps wait
 * at barriers nobody else will reach), which is reported and broken by
 * releasing everyone rather than hanging the process.
 *
 * Each fiber loops forever, running whichever warp of whichever block it
 * is given, so a fiber is created once per worker and reused.
 */
#include "zn_exec_internal.h"
#include "util/zn_log.h"

static zn_fiber *warp_fiber(zn_block_run *run, uint32_t i)
{
    return &run->worker->fibers[i];
}

static int warps_next_runnable(const zn_block_run *run, uint32_t from)
{
    for (uint32_t k = 1; k <= run->nwarps; k++) {
        uint32_t j = (from + k) % run->nwarps;
        if (run->state[j] == ZN_WARP_RUNNABLE)
            return (int)j;
    }
    return -1;
}

/* Suspends warp i (waiting or done) in favour of the next runnable warp,
 * or of the worker when there is none. */
static void warps_yield(zn_block_run *run, uint32_t i)
{
    int j = warps_next_runnable(run, i);
    zn_fiber *to = j >= 0 ? warp_fiber(run, (uint32_t)j) : &run->worker->native;
    zn_fiber_switch(warp_fiber(run, i), to);
}

/* A whole-block barrier completes when every warp has arrived or finished
 * (a warp that arrived and then finished counts once); one with a thread
 * count when that many threads' warps have arrived. */
static int warps_barrier_complete(const zn_block_run *run, uint32_t id)
{
    uint32_t count = run->bar_count[id];
    if (count == 0 || count >= run->blk.nthreads)
        return (uint32_t)__builtin_popcount(run->arrived[id] | run->done_mask) >= run->nwarps;
    return (uint32_t)__builtin_popcount(run->arrived[id]) >=
           (count + ZN_WARP_SIZE - 1) / ZN_WARP_SIZE;
}

static void warps_release(zn_block_run *run, uint32_t id)
{
    for (uint32_t j = 0; j < run->nwarps; j++)
        if (run->state[j] == ZN_WARP_WAITING && run->wait_id[j] == id)
            run->state[j] = ZN_WARP_RUNNABLE;
    run->arrived[id] = 0;
}

void zn_warp_fiber_main(void *arg)
{
    zn_warp_ctx *w = arg;
    for (;;) {
        zn_block_run *run = w->block->exec;
        int32_t st = run->job->l->fn(w);
        if (st != ZN_KSTATUS_OK)
            zn_job_fail(run->job, st);
        run->state[w->warpid] = ZN_WARP_DONE;
        run->done_mask |= 1u << w->warpid;
        run->ndone++;
        for (uint32_t id = 0; id < ZN_MAX_BARRIERS; id++)
            if (run->arrived[id] && warps_barrier_complete(run, id))
                warps_release(run, id);
        warps_yield(run, w->warpid);
    }
}

void zn_warps_run_on_fibers(zn_block_run *run)
{
    for (uint32_t i = 0; i < run->nwarps; i++)
        run->state[i] = ZN_WARP_RUNNABLE;
    for (uint32_t id = 0; id < ZN_MAX_BARRIERS; id++)
        run->arrived[id] = run->bar_count[id] = 0;
    run->ndone = 0;
    run->done_mask = 0;
    zn_fiber_switch(&run->worker->native, warp_fiber(run, 0));
    while (run->ndone < run->nwarps) {
        zn_log(ZN_LOG_WARN, "block (%u,%u,%u): barrier deadlock, releasing %u waiting warps",
               run->blk.ctaid[0], run->blk.ctaid[1], run->blk.ctaid[2],
               run->nwarps - run->ndone);
        for (uint32_t id = 0; id < ZN_MAX_BARRIERS; id++)
            warps_release(run, id);
        int j = warps_next_runnable(run, run->nwarps - 1);
        if (j < 0)
            zn_die("warp scheduler: no runnable warp after release");
        zn_fiber_switch(&run->worker->native, warp_fiber(run, (uint32_t)j));
    }
}

void zn_warps_barrier(zn_warp_ctx *w, uint32_t id, uint32_t count, uint32_t mode)
{
    zn_block_run *run = w->block->exec;
    if (!run->job->on_fibers) {
        /* warps run one after another: only a single warp can sync */
        if (run->nwarps > 1) {
            zn_log(ZN_LOG_ERROR, "kernel reached a barrier but was launched without barrier support");
            zn_job_fail(run->job, ZN_KSTATUS_ILLEGAL_INSTRUCTION);
        }
        return;
    }
    /* a failed launch lets its warps run out without waiting */
    if (atomic_load_explicit(&run->job->status, memory_order_relaxed) != ZN_KSTATUS_OK)
        return;
    id %= ZN_MAX_BARRIERS;
    run->arrived[id] |= 1u << w->warpid;
    run->bar_count[id] = count;
    if (warps_barrier_complete(run, id)) {
        warps_release(run, id);
        return;
    }
    if (mode == 1)      /* bar.arrive: counted, does not wait */
        return;
    run->state[w->warpid] = ZN_WARP_WAITING;
    run->wait_id[w->warpid] = (uint8_t)id;
    warps_yield(run, w->warpid);
}
