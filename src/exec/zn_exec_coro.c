/* zn_exec_coro.c: the warps of one block as coroutines.
 *
 * A kernel whose barriers are all in its own body is compiled as an LLVM
 * coroutine (src/compile/zn_lower_coro.c): at a barrier where the warp
 * must wait, its code suspends, keeping only the values live across the
 * barrier in a small frame, and returns here; the executor resumes the
 * next runnable warp with a plain call. Against fibers (zn_exec_warps.c)
 * there is no stack switch, so no mispredicted return and no reload of a
 * warp's whole stack frame (4-6 KiB of spill slots per warp, 8 warps
 * overflowing L1) after every switch. A warp suspends at every barrier,
 * with the barrier's arguments in co_wait; the bookkeeping is then the
 * fibers' own (zn_warps_barrier: arrivals, release, warp order), done
 * here, and a warp that need not wait (the last to arrive, bar.arrive) is
 * resumed at once.
 */
#include "zn_exec_internal.h"
#include "util/zn_log.h"

#include <stdatomic.h>

#include <stdlib.h>

typedef void (*coro_resume_fn)(void *frame);

/* rt->coro_frame: warp i's frame of this worker, grown when needed (the
 * warp is just starting, so nothing lives in it). */
void *zn_warps_coro_frame(zn_warp_ctx *w, uint64_t size)
{
    zn_block_run *run = w->block->exec;
    zn_worker *wk = run->worker;
    uint32_t i = w->warpid;
    if (wk->co_cap[i] < size) {
        size_t cap = (size + 63) & ~(size_t)63;
        void *p = aligned_alloc(64, cap);
        if (!p) {
            /* the compiled code would write through NULL: a fault the
             * launch reports, after this line says why */
            zn_log(ZN_LOG_ERROR, "launch: out of memory for a warp's coroutine frame (%llu bytes)",
                   (unsigned long long)size);
            return NULL;
        }
        free(wk->co_frame[i]);
        wk->co_frame[i] = p;
        wk->co_cap[i] = cap;
    }
    /* later blocks take it without this call (zn_kernel_abi.h) */
    w->co_cap = wk->co_cap[i];
    return wk->co_frame[i];
}

void zn_warps_coro_free(zn_worker *wk)
{
    for (uint32_t i = 0; i < ZN_MAX_WARPS; i++) {
        free(wk->co_frame[i]);
        wk->co_frame[i] = NULL;
        wk->co_cap[i] = 0;
    }
}

/* Warp i of a dead cooperative grid stops at its barrier: it counts as
 * done and is never resumed (its frame is simply reused by the next
 * block), and the warps waiting stop with it. */
void zn_warps_coro_stop(zn_block_run *run, uint32_t i)
{
    uint32_t bit = 1u << i;
    zn_warps_stop_waiting(run);
    run->runnable &= ~bit;
    run->done_mask |= bit;
    run->stopped |= bit;
}

/* co_wait's form (zn_call_barrier_rt): barrier id in bits 0-7, mode in
 * 8-15 (0 sync, 1 arrive, 2 yield), thread count in 32-63 (0: all) */
#define CO_WAIT_YIELD ((uint64_t)2 << 8)

/* bar.sync 0 of the whole block */
static bool whole_block_sync(uint64_t cw, uint32_t nthreads)
{
    uint32_t count = (uint32_t)(cw >> 32);
    return !(cw & 0xffff) && (!count || count >= nthreads);
}

/* starts warp i, or resumes it where it suspended */
static void coro_enter(zn_block_run *run, zn_kernel_fn fn, uint32_t i, uint32_t *started)
{
    zn_warp_ctx *w = &run->warps[i];
    uint32_t bit = 1u << i;
    const zn_launch *l = run->job->l;
    run->co_next = -1;
    w->co_status = ZN_KSTATUS_RUNNING;
    if (!(*started & bit)) {
        *started |= bit;
        (void)fn(w);    /* its status is in co_status when it ends */
    } else if (l->batch) {
        uint32_t ended;
        (void)l->batch(run->warps, bit, run->blk.nthreads, &ended);  /* warp i only */
    } else {
        void *frame = w->co_frame;
        (*(coro_resume_fn *)frame)(frame);
    }
}

/* The warps of todo, in order, by one of the kernel's compiled loops (no
 * call each): fn is zk_K.batch when all of them have started (it resumes
 * them) or zk_K.start when none has (it runs each from its entry; they
 * are added to *started). The ones that suspended at the whole block's
 * bar.sync 0 are added to *arrived, the ones that ended are done, and
 * both are taken out of *pending and *todo; -1 when that was all of them,
 * else the warp that returned otherwise (run, still in *todo and
 * *pending). */
static int coro_batch(zn_block_run *run, zn_batch_fn fn, uint32_t *todo, uint32_t *pending,
                      uint32_t *arrived, uint32_t *started)
{
    run->co_next = -1;
    uint32_t ended = 0;
    int32_t r = fn(run->warps, *todo, run->blk.nthreads, &ended);
    uint32_t through = r < 0 ? *todo : *todo & ((1u << r) - 1);
    *started |= r < 0 ? *todo : *todo & ((2u << r) - 1);
    *arrived |= through & ~ended;
    *pending &= ~through;
    *todo &= ~through;
    run->runnable &= ~ended;
    run->done_mask |= ended;
    return r;
}

/* The common barrier, bar.sync 0 of the whole block in an ordinary grid
 * that has not failed, without zn_warps_barrier's general bookkeeping
 * (reduce's 9 barriers x 8 warps per block are most of its executor
 * time). -1: not that barrier; 0: warp i goes on; 1: another warp runs,
 * *next (-1: the next runnable one after i). Same state changes as
 * zn_warps_barrier, so the general path can follow at any barrier. */
static int fast_barrier(zn_block_run *run, uint32_t i, uint64_t cw, int *next)
{
    uint32_t count = (uint32_t)(cw >> 32);
    if (!whole_block_sync(cw, run->blk.nthreads) || run->job->grid_ws ||
        atomic_load_explicit(&run->job->status, memory_order_relaxed) != ZN_KSTATUS_OK)
        return -1;
    uint32_t bit = 1u << i;
    if (!(run->arrived[0] & bit)) {
        run->arrived[0] |= bit;
        run->narrived[0]++;
    }
    run->bar_count[0] = count;
    if (!zn_warps_barrier_complete(run, 0)) {
        run->bar_active |= 1;
        run->runnable &= ~bit;
        run->waiting[0] |= bit;
        *next = -1;
        return 1;
    }
    /* the last to arrive releases the others; they leave in warp order */
    zn_warps_release(run, 0);
    uint32_t first = (uint32_t)__builtin_ctz(run->runnable);
    if (first >= i)
        return 0;
    *next = (int)first;
    return 1;
}

/* Lockstep rounds, the common case: every warp still running waits at
 * bar.sync 0 of the whole block (fast_barrier's form), so a round resumes
 * them in warp order and the barrier completes when the round ends (a warp
 * that exits counts as arrived, as in zn_warps_barrier_complete). A yield
 * (the stagger before a warp's first shared store after a barrier,
 * zn_lower_warp.c) keeps the warp in the round: passes over the warps not
 * yet arrived repeat in warp order, the order of the general loop's round
 * robin. Only local masks are kept: against the general loop's per-arrival
 * bookkeeping, next-warp search and completion test, the executor's share
 * of an empty segment (bench/reduce suspends 72 times per block) was three
 * times the kernel's. When a warp
 * suspends any other way, the masks become the general state and that
 * warp is returned, to be handled by the general loop, with *suspended set
 * (-1: the block is done). Cooperative grids and failed grids take the
 * general loop from a round's start: the first runnable warp is returned,
 * not yet resumed. */
static int coro_rounds(zn_block_run *run, zn_kernel_fn fn, uint32_t *started, bool *suspended)
{
    uint32_t nthreads = run->blk.nthreads;
    for (;;) {
        if (run->job->grid_ws ||
            atomic_load_explicit(&run->job->status, memory_order_relaxed) != ZN_KSTATUS_OK)
            return zn_warps_next_runnable(run, run->nwarps - 1);   /* not resumed yet */
        uint32_t arrived = 0, pending = run->runnable;
        zn_batch_fn batch = run->job->l->batch, start = run->job->l->start;
        while (pending) {
            for (uint32_t todo = pending; todo; todo &= todo - 1) {
                uint32_t i = (uint32_t)__builtin_ctz(todo);
                /* all started: resumed by the batch; none: the start loop */
                zn_batch_fn loop = batch && !(todo & ~*started) ? batch
                                   : start && !(todo & *started) ? start : NULL;
                if (loop) {
                    int r = coro_batch(run, loop, &todo, &pending, &arrived, started);
                    if (r < 0)
                        break;
                    i = (uint32_t)r;
                } else {
                    coro_enter(run, fn, i, started);
                }
                uint32_t bit = 1u << i;
                zn_warp_ctx *w = &run->warps[i];
                if (w->co_status != ZN_KSTATUS_RUNNING) {
                    if (w->co_status != ZN_KSTATUS_OK)
                        zn_job_fail(run->job, w->co_status);
                    pending &= ~bit;
                    run->runnable &= ~bit;
                    run->done_mask |= bit;
                    continue;
                }
                uint64_t cw = w->co_wait;
                /* a yield goes again in the next pass, unless the grid has
                 * failed: then the general loop stops the poller */
                if (cw == CO_WAIT_YIELD &&
                    atomic_load_explicit(&run->job->status, memory_order_relaxed) ==
                        ZN_KSTATUS_OK)
                    continue;
                if (!whole_block_sync(cw, nthreads)) {
                    /* the arrivals so far wait at barrier 0 */
                    if (arrived) {
                        run->arrived[0] |= arrived;
                        run->waiting[0] |= arrived;
                        run->narrived[0] += (uint32_t)__builtin_popcount(arrived);
                        run->bar_count[0] = 0;
                        run->bar_active |= 1;
                        run->runnable &= ~arrived;
                    }
                    *suspended = true;
                    return (int)i;
                }
                arrived |= bit;
                pending &= ~bit;
            }
        }
        if (!arrived)
            return -1;
        zn_race_barrier(run);   /* barrier 0 completed: all of them go on */
    }
}

/* warp i returned from its code: its exit or barrier bookkeeping; 1 when
 * it goes on at once */
static int coro_returned(zn_block_run *run, uint32_t i)
{
    zn_warp_ctx *w = &run->warps[i];
    if (w->co_status != ZN_KSTATUS_RUNNING) {
        zn_warps_exited(run, i, w->co_status);
        return 0;
    }
    /* suspended at a barrier or yield: a warp that need not wait goes on */
    uint64_t cw = w->co_wait;
    int fast = fast_barrier(run, i, cw, &run->co_next);
    return fast == 0 || (fast < 0 && !zn_warps_barrier(w, (uint32_t)(cw & 0xff),
                                                       (uint32_t)(cw >> 32),
                                                       (uint32_t)(cw >> 8 & 0xff)));
}

uint32_t zn_warps_run_coro(zn_block_run *run)
{
    zn_warps_block_start(run);
    zn_kernel_fn fn = run->job->l->fn;
    uint32_t started = 0;
    bool suspended = false;
    int first = coro_rounds(run, fn, &started, &suspended);
    if (first < 0)
        return run->stopped;
    uint32_t i = (uint32_t)first;
    /* a warp that suspended already: its bookkeeping comes first */
    bool resume = !suspended;
    for (;;) {
        if (resume)
            coro_enter(run, fn, i, &started);
        resume = true;
        if (coro_returned(run, i))
            continue;
        if (run->done_mask == run->all_mask)
            break;
        int j = run->co_next >= 0 ? run->co_next : zn_warps_next_runnable(run, i);
        if (j < 0) {
            if (zn_warps_grid_dead(run)) {
                /* every warp left is waiting: they stop */
                zn_warps_stop_waiting(run);
                if (run->done_mask != run->all_mask)
                    zn_die("warp scheduler: a warp neither done nor waiting");
                break;
            }
            j = (int)zn_warps_break_deadlock(run);
        }
        i = (uint32_t)j;
    }
    return run->stopped;
}
