/* zn_exec_internal.h: symbols shared between the executor's files. */
#ifndef ZN_EXEC_INTERNAL_H
#define ZN_EXEC_INTERNAL_H

#include "zn_exec.h"
#include "zn_fiber.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>

#define ZN_WARP_SIZE 32
#define ZN_MAX_WARPS 32             /* 1024 threads per block */
#define ZN_MAX_BARRIERS 16
#define ZN_FIBER_STACK_DEFAULT (1u << 20)
/* Kernels without barriers run on the worker's own stack unless they ask
 * for more local memory per warp than this. */
#define ZN_THREAD_STACK_LIMIT (256u << 10)

/* One step of a polling loop (i counts from 0): a pause, and every 16th
 * a sched_yield. On 2 CPUs a queue thread, a pool thread and a host
 * thread waiting in cuStreamSynchronize would otherwise spin on the CPUs
 * that the thread with the work needs: llama.cpp's F32 decode ran at
 * 1200-2500 tokens/s with pause-only loops and 2800-4600 with these. */
static inline void zn_spin_step(int i)
{
    if ((i & 15) == 15) {
        sched_yield();
        return;
    }
#if defined(__x86_64__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ volatile("yield");
#endif
}

/* One launch, shared by every thread that works on it. */
typedef struct zn_job {
    const zn_launch *l;             /* NULL for a host loop (zn_exec_parallel) */
    void (*host_fn)(void *arg, uint64_t i);
    void *host_arg;
    uint64_t seq;                   /* launch number, for per-worker setup */
    uint64_t nblocks;
    uint32_t nthreads;              /* per block */
    uint32_t nwarps;
    uint32_t chunk;                 /* blocks taken per counter bump */
    uint32_t stack_bytes;           /* per warp fiber */
    int on_fibers;
    int on_coro;                    /* coroutine kernel (zn_exec_coro.c) */
    void *grid_ws;                  /* cooperative launches: grid barrier words */
    /* l->abort for the pool's grids; NULL for cooperative ones, whose
     * blocks must all run (a skipped block would hang grid.sync) */
    const _Atomic int *abort;
    /* The block counter, bumped by every worker, has a cache line of its
     * own: status is read before every lockstep round of a coroutine block
     * (zn_exec_coro.c), and sharing the counter's line made that load a
     * miss after each bump by another worker (10 % of a one-barrier
     * kernel's executor time). */
    _Alignas(64) _Atomic uint64_t next_block;
    _Alignas(64) _Atomic int32_t status;   /* first error, else ZN_KSTATUS_OK */
    /* the pool's board of published grids (zn_exec_pool.c) */
    struct zn_job *next, *prev;     /* under the pool's lock */
    uint32_t helpers;               /* pool threads wanted */
    int withdrawn;                  /* launcher done with its share */
    _Atomic uint32_t joined;        /* pool threads working on it */
} zn_job;

/* ---- memcheck (zn_exec_check.c) ---- */
/* zn_rt_ops.memcheck: 0 when every active lane's access is good, else
 * the first bad one has been reported. info: size | space << 16 | flags << 24. */
int32_t zn_check_rt(zn_warp_ctx *w, const uint64_t *addr, uint32_t mask, uint32_t info,
                    const char *where, uint64_t lbase, uint64_t lspan, uint64_t lo,
                    uint64_t hi);
/* A live allocation was freed (the freed ring, drops fast-path hits). */
void zn_check_note_free(const void *p, size_t size);
/* The live allocation nearest to p (before or after it): 0, or -1 if none. */
int zn_mem_nearest(const void *p, void **base, size_t *size);
/* fn for every live allocation, in address order, under the read lock. */
void zn_mem_walk(void (*fn)(void *ud, const void *base, size_t size, zn_mem_kind kind),
                 void *ud);

typedef struct zn_worker zn_worker;

/* A block in flight on one worker (the block's `exec` pointer). */
typedef struct zn_block_run {
    zn_block_ctx blk;
    zn_warp_ctx warps[ZN_MAX_WARPS];
    /* Warp states as bit sets (bit i = warp i), so the scheduler's
     * questions are a mask and a count-trailing-zeros each. */
    uint32_t nwarps;
    uint32_t all_mask;                   /* bits of the block's warps */
    uint32_t runnable;                   /* may run (running or ready) */
    uint32_t done_mask;                  /* finished (or stopped) */
    uint32_t stopped;                    /* stopped mid-kernel: a dead grid's */
    uint32_t bar_active;                 /* bit per barrier id with arrivals */
    uint32_t waiting[ZN_MAX_BARRIERS];   /* blocked at barrier id */
    uint32_t arrived[ZN_MAX_BARRIERS];   /* arrived (waiting or bar.arrive) */
    uint32_t narrived[ZN_MAX_BARRIERS];  /* bits set in arrived[id] */
    uint32_t bar_count[ZN_MAX_BARRIERS]; /* thread count asked, 0 = all */
    /* Which fiber runs which warp (zn_exec_warps.c): a warp that finishes
     * hands its fiber to the next warp that has not started, so warps
     * that never wait cost no switch. */
    uint32_t started;                    /* warps given a fiber this block */
    uint8_t fiber_of[ZN_MAX_WARPS];      /* warp -> its fiber */
    uint8_t warp_on[ZN_MAX_WARPS];       /* fiber -> the warp it runs */
    int co_next;                         /* coroutines: the warp to run next
                                          * (set by a barrier), or -1 */
    zn_job *job;
    zn_worker *worker;
} zn_block_run;

/* Per-thread executor state: indices 1..nthreads-1 are the pool's
 * threads; every thread that launches grids has one of its own (index 0,
 * or counting down from 1023), made at its first launch (zn_exec_pool.c). */
struct zn_worker {
    unsigned index;
    zn_worker *lw_next;             /* launching threads' workers: list */
    unsigned lw_slot;
    uint8_t *shared;                /* this worker's shared-memory buffer */
    size_t shared_cap;
    size_t shared_tail;     /* PROT_NONE bytes reserved after it (zn_exec_block.c) */
    zn_block_run run;
    uint64_t setup_seq;             /* launch `run` was filled for */
    zn_fiber native;                /* the worker thread's own stack */
    zn_fiber fibers[ZN_MAX_WARPS];
    uint32_t nfibers;
    /* coroutine kernels: each warp's frame (rt->coro_frame) */
    void *co_frame[ZN_MAX_WARPS];
    size_t co_cap[ZN_MAX_WARPS];
    size_t fiber_stack;             /* stack size of the fibers above */
    /* cluster launches (zn_exec_cluster.c): the team this worker runs one
     * rank of, NULL for pool and launcher workers */
    struct zn_cluster_team *cluster;
    unsigned cluster_rank;
};

/* zn_exec_block.c */
void zn_block_run_range(zn_job *job, zn_worker *wk, uint64_t first, uint64_t end);
/* Shared buffer, fibers and block context for job on wk (done by
 * zn_block_run_range too); -1 when out of memory (the job has failed). */
int zn_block_prepare(zn_job *job, zn_worker *wk);
/* Unmaps a worker's shared-memory buffer and fibers (its thread exits). */
void zn_block_worker_free(zn_worker *wk);
/* zn_exec_warps.c: warps of one block on fibers, and the barrier */
/* Runs the block; returns the warps stopped mid-kernel (a failed
 * cooperative grid's, zn_exec_warps.c): their fibers hold abandoned frames
 * and must not be resumed. */
uint32_t zn_warps_run_on_fibers(zn_block_run *run);
void zn_warp_fiber_main(void *warp_ctx);
/* bar.sync's bookkeeping; for a coroutine warp (zn_exec_coro.c) nonzero
 * when it must not go on now (it waits, or lets a lower warp leave first) */
int32_t zn_warps_barrier(zn_warp_ctx *w, uint32_t id, uint32_t count, uint32_t mode);
/* shared by the fiber and coroutine schedulers: the block's warp and
 * barrier state reset; warp i ended with status; the first runnable warp
 * after i (round robin) or -1; whether a failed cooperative grid's warps
 * must stop; stop the waiting ones; release every barrier of a deadlocked
 * block (logged) and return the warp to run */
void zn_warps_block_start(zn_block_run *run);
void zn_warps_exited(zn_block_run *run, uint32_t i, int32_t status);
int zn_warps_next_runnable(const zn_block_run *run, uint32_t i);

/* zn_exec_race.c: a barrier of the block running on run's worker
 * completed: racecheck's accesses after it are ordered after those before
 * (a new epoch). No-op when racecheck is off. */
void zn_race_barrier(zn_block_run *run);

/* Whether barrier id is complete: a whole-block one when every warp has
 * arrived or finished (a warp that arrived and then finished counts once);
 * one with a thread count when that many threads' warps have arrived.
 * Inline: both schedulers test it at every arrival. */
static inline int zn_warps_barrier_complete(const zn_block_run *run, uint32_t id)
{
    uint32_t count = run->bar_count[id];
    if (count == 0 || count >= run->blk.nthreads)
        return (run->arrived[id] | run->done_mask) == run->all_mask;
    return run->narrived[id] >= (count + ZN_WARP_SIZE - 1) / ZN_WARP_SIZE;
}

/* Barrier id completed: its waiting warps become runnable. */
static inline void zn_warps_release(zn_block_run *run, uint32_t id)
{
    zn_race_barrier(run);
    run->runnable |= run->waiting[id];
    run->waiting[id] = 0;
    run->arrived[id] = 0;
    run->narrived[id] = 0;
    run->bar_active &= ~(1u << id);
}
int zn_warps_grid_dead(const zn_block_run *run);
void zn_warps_stop_waiting(zn_block_run *run);
uint32_t zn_warps_break_deadlock(zn_block_run *run);
/* zn_exec_coro.c: the block's warps as coroutines; returns the warps
 * stopped mid-kernel (a failed cooperative grid's) */
uint32_t zn_warps_run_coro(zn_block_run *run);
void zn_warps_coro_stop(zn_block_run *run, uint32_t i);
void *zn_warps_coro_frame(zn_warp_ctx *w, uint64_t size);
void zn_warps_coro_free(zn_worker *wk);
/* zn_exec_rt.c */
extern const zn_rt_ops zn_exec_rt_ops;
/* zn_rt_ops.cdp (zn_exec_cdp.c) */
uint64_t zn_exec_cdp(zn_warp_ctx *w, uint32_t op, const uint64_t *args, uint32_t lane);
/* cp.reduce.async.bulk's element operation (zn_exec_tma_reduce.c): op and
 * el are ZN_TMA_RED_* and ZN_TMA_EL_* (zn_tma.h) */
void zn_tma_reduce(unsigned op, unsigned el, uint8_t *dst, const uint8_t *src);
unsigned zn_tma_elem_bytes(unsigned el);
/* zn_rt_ops.tma (zn_exec_tma.c) */
int32_t zn_exec_tma(zn_warp_ctx *w, uint32_t code, uint32_t mask, uint64_t *io);
/* zn_exec_cluster.c: zn_rt_ops.cluster_barrier */
int32_t zn_cluster_barrier(zn_warp_ctx *w, uint32_t mode);
void zn_job_fail(zn_job *job, int32_t status);
/* zn_exec_printf.c: formats CUDA's device printf (format + packed argument
 * buffer) into a malloc'ed string; returns the number of arguments used,
 * -1 for a NULL format. */
int zn_printf_format(const char *fmt, const void *args, char **out, size_t *len);
/* zn_exec_fault.c: runs fn(arg) and returns 0, or the signal number of a
 * fault it caught inside (the faulting address in *addr). */
void zn_fault_init(void);
int zn_fault_enabled(void);
int zn_fault_guard(void (*fn)(void *), void *arg, void **addr);
/* zn_exec_mem.c: bytes of physical allocations count as used */
void zn_mem_account(int64_t delta);
/* zn_exec_pool.c */
unsigned zn_pool_workers(void);
/* The fields of a job (initialized {.l = l}) that every kind of launch sets
 * alike: block and thread counts, fibers or not and their stack, a fresh
 * block counter and status OK. */
void zn_job_setup(zn_job *job, const zn_launch *l);
/* Nonzero when l has a function, nonzero grid and block extents, at most
 * ZN_MAX_WARPS warps per block and shared memory that fits 32 bits. */
int zn_launch_valid(const zn_launch *l);
/* Starts fn(arg) on a thread with a stack of `stack` bytes that takes no
 * asynchronous signals (those belong to the application's threads); the
 * thread is detached when tid is NULL. Returns pthread_create's result. */
int zn_exec_thread_spawn(pthread_t *tid, size_t stack, void *(*fn)(void *), void *arg);
/* zn_exec_gang.c: runs fn(arg, wk, i) for every i < n on n threads at once,
 * each with a worker of its own that is kept across runs; returns when all
 * have returned, or -1 (nothing ran) when n threads could not be had. */
typedef void (*zn_gang_fn)(void *arg, zn_worker *wk, unsigned i);
int zn_gang_run(unsigned n, zn_gang_fn fn, void *arg);

/* A start gate for threads of one launch: they wait while state is 0, then
 * run (1) or give up (-1). */
typedef struct zn_gate {
    pthread_mutex_t m;
    pthread_cond_t cv;
    int state;                      /* 0 wait, 1 run, -1 abort */
} zn_gate;
#define ZN_GATE_INIT {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0}
/* Waits until the gate opens; nonzero when the thread is to run. */
int zn_gate_wait(zn_gate *g);
void zn_gate_open(zn_gate *g, int state);

#endif
