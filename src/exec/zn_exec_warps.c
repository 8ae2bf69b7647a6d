/* zn_exec_warps.c: the warps of one block as fibers, and bar.sync (for
 * fibers and coroutine kernels, whose scheduler is zn_exec_coro.c).
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
 * The barrier is the hot path of every kernel with __syncthreads (one call
 * per warp per barrier), so warp states are bit sets in zn_block_run and
 * each decision is a mask test: no loops over warps, no divisions, no
 * popcount (a library call on baseline x86-64).
 *
 * Each fiber loops forever, running whichever warp of whichever block it
 * is given, so a fiber is created once per worker and reused.
 *
 * A failed cooperative grid is dead, as a GPU kills a grid at its trap:
 * its warps stop at their next barrier instead of running past it (see
 * warps_grid_dead). Ordinary grids' warps run out without waiting.
 */
#include "zn_exec_internal.h"
#include "util/zn_log.h"

#include <sched.h>

/* Warp i's fiber. A warp that has not started yet gets fiber i: a fiber
 * k only ever runs warp k and, after it, warps that had not started, so
 * fiber i is free while warp i has not started. */
static zn_fiber *warp_fiber(zn_block_run *run, uint32_t i)
{
    if (!(run->started & (1u << i))) {
        run->started |= 1u << i;
        run->fiber_of[i] = (uint8_t)i;
        run->warp_on[i] = (uint8_t)i;
    }
    return &run->worker->fibers[run->fiber_of[i]];
}

/* The first runnable warp after i in round-robin order, or -1. */
int zn_warps_next_runnable(const zn_block_run *run, uint32_t i)
{
    uint32_t r = run->runnable;
    if (r == 0)
        return -1;
    uint32_t after = i >= 31 ? 0 : r & ~((2u << i) - 1);
    return __builtin_ctz(after ? after : r);
}

/* Suspends warp i (waiting or done) in favour of the next runnable warp,
 * or of the worker when there is none. */
static void warps_yield(zn_block_run *run, uint32_t i)
{
    int j = zn_warps_next_runnable(run, i);
    zn_fiber *to = j >= 0 ? warp_fiber(run, (uint32_t)j) : &run->worker->native;
    zn_fiber_switch(warp_fiber(run, i), to);
}

/* Whether the block's grid is cooperative and has failed, so that its
 * warps must not go past another barrier. nvcc's grid.sync() is a
 * bar.sync, thread 0 polling the grid word, and a bar.sync; once a block
 * has trapped, thread 0's poll returns ZN_KSTATUS_ABORTED (rt->spin) and
 * its warp exits, which completes the second bar.sync. If the block's other
 * warps were released then, they would run the code after a grid.sync()
 * that never completed: reading other blocks' data with nothing ordering
 * those reads after the other blocks' writes (a data race between the
 * gang's threads, issue #4's ThreadSanitizer report) and possibly looping
 * on garbage. So they stop there, as the whole grid does on a GPU. This
 * cannot hang the grid: in a cooperative launch every poll of another
 * block's data is a strong load that calls rt->spin, which returns once the
 * grid has failed. Ordinary grids keep running out: a block polling an
 * earlier block's flag with plain loads (CUB's decoupled look-back) would
 * hang if that block had stopped, and no barrier orders their blocks. */
int zn_warps_grid_dead(const zn_block_run *run)
{
    return run->job->grid_ws &&
           atomic_load_explicit(&run->job->status, memory_order_relaxed) != ZN_KSTATUS_OK;
}

/* The warps waiting at barriers stop: they count as done and never run
 * again (their fibers hold abandoned frames; zn_exec_block.c drops them). */
void zn_warps_stop_waiting(zn_block_run *run)
{
    for (uint32_t act = run->bar_active; act; act &= act - 1) {
        uint32_t id = (uint32_t)__builtin_ctz(act);
        run->stopped |= run->waiting[id];
        run->done_mask |= run->waiting[id];
        run->waiting[id] = run->arrived[id] = run->narrived[id] = 0;
    }
    run->bar_active = 0;
}

/* Warp i of a dead grid stops at a barrier, with the warps waiting. */
static _Noreturn void warps_stop(zn_block_run *run, uint32_t i)
{
    uint32_t bit = 1u << i;
    zn_warps_stop_waiting(run);
    run->runnable &= ~bit;
    run->done_mask |= bit;
    run->stopped |= bit;
    warps_yield(run, i);
    zn_die("warp scheduler: a stopped warp was resumed");
}

void zn_warps_exited(zn_block_run *run, uint32_t i, int32_t status)
{
    if (status != ZN_KSTATUS_OK)
        zn_job_fail(run->job, status);
    uint32_t bit = 1u << i;
    run->runnable &= ~bit;
    run->done_mask |= bit;
    /* only barriers with arrivals can be completed by this exit; a dead
     * grid's waiting warps stop instead of being released */
    if (zn_warps_grid_dead(run))
        zn_warps_stop_waiting(run);
    for (uint32_t act = run->bar_active; act; act &= act - 1) {
        uint32_t id = (uint32_t)__builtin_ctz(act);
        if (zn_warps_barrier_complete(run, id))
            zn_warps_release(run, id);
    }
}

/* arg: the warp context of the fiber's own index k (fiber k of the
 * worker); each time the fiber is switched to, it runs the warp assigned
 * to it (run->warp_on[k]), then the warps that had not started yet while
 * they finish without waiting: reduce_warp's and mul_mat_vec_q's warps
 * that return at their barrier then run one after another on one fiber,
 * where each had cost two switches. */
void zn_warp_fiber_main(void *arg)
{
    zn_warp_ctx *home = arg;
    for (;;) {
        zn_block_run *run = home->block->exec;
        uint32_t k = (uint32_t)(home - run->warps);
        zn_warp_ctx *w = &run->warps[run->warp_on[k]];
        for (;;) {
            zn_warps_exited(run, w->warpid, run->job->l->fn(w));
            int j = zn_warps_next_runnable(run, w->warpid);
            if (j < 0 || (run->started & (1u << j)))
                break;
            run->started |= 1u << j;   /* not started: it runs here */
            run->fiber_of[j] = (uint8_t)k;
            run->warp_on[k] = (uint8_t)j;
            w = &run->warps[j];
        }
        warps_yield(run, w->warpid);
    }
}

uint32_t zn_warps_break_deadlock(zn_block_run *run)
{
    /* after a failure (a warp returned an error) waiting is expected: the
     * warps run out without waiting */
    if (atomic_load_explicit(&run->job->status, memory_order_relaxed) == ZN_KSTATUS_OK)
        zn_log(ZN_LOG_WARN, "block (%u,%u,%u): barrier deadlock, releasing %u waiting warps",
               run->blk.ctaid[0], run->blk.ctaid[1], run->blk.ctaid[2],
               (unsigned)__builtin_popcount(run->all_mask & ~run->done_mask));
    for (uint32_t id = 0; id < ZN_MAX_BARRIERS; id++)
        zn_warps_release(run, id);
    int j = zn_warps_next_runnable(run, run->nwarps - 1);
    if (j < 0)
        zn_die("warp scheduler: no runnable warp after release");
    return (uint32_t)j;
}

void zn_warps_block_start(zn_block_run *run)
{
    run->all_mask = run->nwarps >= 32 ? 0xffffffffu : (1u << run->nwarps) - 1;
    run->runnable = run->all_mask;
    run->blk.warps_left = run->nwarps;
    run->done_mask = 0;
    run->started = 0;
    run->stopped = 0;
    /* Only barriers with arrivals hold state (a counted one can be left
     * with some when every warp finished; a fault leaves any); clearing all
     * 16 ids was 64 stores per block. bar_count is set at every arrival. */
    for (uint32_t act = run->bar_active; act; act &= act - 1) {
        uint32_t id = (uint32_t)__builtin_ctz(act);
        run->waiting[id] = run->arrived[id] = run->narrived[id] = 0;
    }
    run->bar_active = 0;
}

uint32_t zn_warps_run_on_fibers(zn_block_run *run)
{
    zn_warps_block_start(run);
    zn_fiber_switch(&run->worker->native, warp_fiber(run, 0));
    while (run->done_mask != run->all_mask) {
        if (zn_warps_grid_dead(run)) {
            /* every warp left is waiting (none is runnable): they stop */
            zn_warps_stop_waiting(run);
            if (run->done_mask != run->all_mask)
                zn_die("warp scheduler: a warp neither done nor waiting");
            break;
        }
        zn_fiber_switch(&run->worker->native, warp_fiber(run, zn_warps_break_deadlock(run)));
    }
    return run->stopped;
}

int32_t zn_warps_barrier(zn_warp_ctx *w, uint32_t id, uint32_t count, uint32_t mode)
{
    zn_block_run *run = w->block->exec;
    int coro = run->job->on_coro;
    /* any wait, a yield (an mbarrier poll) included: the warp it waits for
     * may have stopped (grid_ws first: one load and a branch on the hot
     * path of ordinary grids) */
    /* ... and a poll in a failed grid never ends (the warp that would
     * arrive or complete the transaction has stopped): the poller stops,
     * as the whole grid does on a GPU */
    bool failed = mode == 2 &&
                  atomic_load_explicit(&run->job->status, memory_order_relaxed) != ZN_KSTATUS_OK;
    if ((failed || zn_warps_grid_dead(run)) && (run->job->on_fibers || coro)) {
        if (!coro)
            warps_stop(run, w->warpid);
        zn_warps_coro_stop(run, w->warpid);
        return 1;
    }
    if (mode == 2) {
        /* yield (mbarrier waits, nanosleep): the warp stays runnable and the
         * block's next runnable warp, which may be the one it waits for, runs */
        int j = run->job->on_fibers || coro ? zn_warps_next_runnable(run, w->warpid) : -1;
        if (j >= 0 && (uint32_t)j != w->warpid) {
            if (coro)
                return 1;
            zn_fiber_switch(warp_fiber(run, w->warpid), warp_fiber(run, (uint32_t)j));
        } else if (run->worker->cluster)
            sched_yield();  /* a cluster's other blocks (threads) may be awaited */
        return 0;
    }
    if (!run->job->on_fibers && !coro) {
        /* warps run one after another: only a single warp can sync */
        if (run->nwarps > 1) {
            zn_log(ZN_LOG_ERROR, "kernel reached a barrier but was launched without barrier support");
            zn_job_fail(run->job, ZN_KSTATUS_ILLEGAL_INSTRUCTION);
        }
        return 0;
    }
    /* a failed launch lets its warps run out without waiting */
    if (atomic_load_explicit(&run->job->status, memory_order_relaxed) != ZN_KSTATUS_OK)
        return 0;
    id %= ZN_MAX_BARRIERS;
    uint32_t bit = 1u << w->warpid;
    if (!(run->arrived[id] & bit)) {
        run->arrived[id] |= bit;
        run->narrived[id]++;
        run->bar_active |= 1u << id;
    }
    run->bar_count[id] = count;
    if (zn_warps_barrier_complete(run, id)) {
        zn_warps_release(run, id);
        /* Leave the barrier in warp order (warp 0 first), as at the start of
         * the block: code with a benign race after a barrier (llm.c's fp32
         * classifier: thread 0 reads a value that other warps overwrite
         * after the barrier) then sees what a GPU, whose warps leave
         * together, sees. */
        int first = zn_warps_next_runnable(run, run->nwarps - 1);
        if (mode != 1 && first >= 0 && (uint32_t)first < w->warpid) {
            if (coro) {
                run->co_next = first;
                return 1;
            }
            zn_fiber_switch(warp_fiber(run, w->warpid), warp_fiber(run, (uint32_t)first));
        }
        return 0;
    }
    if (mode == 1)      /* bar.arrive: counted, does not wait */
        return 0;
    run->runnable &= ~bit;
    run->waiting[id] |= bit;
    if (coro)
        return 1;
    warps_yield(run, w->warpid);
    return 0;
}
