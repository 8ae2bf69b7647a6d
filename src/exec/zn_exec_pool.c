/* zn_exec_pool.c: the worker pool and zn_exec_launch.
 *
 * Several grids run at once (kernels of different streams overlap). The
 * thread that launches a grid (a stream's queue thread, or a host thread)
 * runs its blocks itself, on a worker of its own, and publishes the grid
 * on a board; the pool's persistent threads take chunks of blocks from the
 * oldest published grid that still has unclaimed blocks, and move on to
 * the next grid as soon as one grid's blocks are all claimed, so a grid
 * with fewer blocks than workers, or whose last blocks are still running,
 * leaves the rest of the pool to other streams' grids. A launch returns
 * when its blocks are done: the launcher works until the hand-out is
 * exhausted, withdraws the grid and waits only for the pool threads that
 * joined it.
 *
 * Because a launcher always works on its own grid, every grid progresses
 * whatever the pool does: a block spinning on a flag that another
 * stream's kernel sets cannot keep that kernel from running. Pool threads
 * join only while fewer than `nthreads` threads run blocks (launchers
 * included), so four streams launching at once do not put 4 + n-1 busy
 * threads on n CPUs. A one-block grid runs on its launcher alone.
 */
#define _GNU_SOURCE /* sched_getaffinity */
#include "zn_exec_internal.h"
#include "util/zn_log.h"

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

/* The most blocks one claim takes. Each claim is a contiguous run of each
 * array a streaming kernel walks; at 64 blocks (64 KiB of a 256-thread
 * float stream) a worker's streams jumped past the other worker's run
 * every 64 KiB, where the prefetchers start again and their last lines
 * (and the compiler's four blocks ahead) land in the other core's run:
 * on a 2-core AMD EPYC host, in one process, saxpy and triad took 7-11 %
 * longer than with 256 or 1024; reduce_warp's and stencil's ratios to C
 * fell from 3.0-3.4 to 2.2-2.5 and from 2.0 to 1.6-1.8 across processes.
 * 256 and 1024 measured the same; the smaller keeps large grids'
 * last claims short. */
#define ZN_CHUNK_MAX 256

#define ZN_WORKER_STACK ((size_t)16 << 20)
/* Launching threads' workers get distinct indices (racecheck keeps one
 * shadow per index, up to 1024): slot 0 is index 0, slot k > 0 index
 * 1024-k, counting down so as not to meet cooperative launches' block
 * threads, which count up from nthreads (zn_exec_coop.c). */
#define ZN_LAUNCHER_SLOTS 1024

static struct {
    pthread_mutex_t init_lock;
    int ready;
    _Atomic unsigned nthreads;      /* grows while init spawns threads */
    zn_worker *workers;             /* [1..nthreads-1] pool threads; [0] unused */
    /* The board: published grids, oldest first, under m. Pool threads spin
     * a little on gen (bumped whenever there may be new work for them)
     * before sleeping on `go`; a publisher wakes as many sleepers as its
     * grid wants helpers. */
    pthread_mutex_t m;
    pthread_cond_t go;              /* pool threads: gen moved */
    pthread_cond_t done;            /* launchers: a helper left a withdrawn grid */
    _Atomic uint64_t gen;
    zn_job *head, *tail;
    _Atomic unsigned published;     /* grids on the board */
    _Atomic unsigned busy;          /* threads running blocks, launchers too */
    unsigned sleepers;              /* pool threads waiting on `go` */
    _Atomic uint64_t seq;           /* launch numbers, unique process-wide */
    /* launching threads' workers: made at a thread's first launch, freed
     * when it exits (key destructor); all live ones are on lw_list */
    pthread_mutex_t lw_lock;
    pthread_key_t lw_key;
    zn_worker *lw_list;
    uint64_t lw_used[ZN_LAUNCHER_SLOTS / 64];
} pool = {
    .init_lock = PTHREAD_MUTEX_INITIALIZER,
    .m = PTHREAD_MUTEX_INITIALIZER,
    .go = PTHREAD_COND_INITIALIZER,
    .done = PTHREAD_COND_INITIALIZER,
    .lw_lock = PTHREAD_MUTEX_INITIALIZER,
};

static _Thread_local zn_worker *tl_worker;

/* Roughly tens of microseconds: long enough to catch back-to-back
 * launches, short enough not to matter when the host is busy. */
#define ZN_SPIN_ITERS 4000

/* Claims chunks until the hand-out is exhausted, the grid failed, or its
 * context was poisoned by another grid's fault (l->abort). */
static void pool_work(zn_job *job, zn_worker *wk)
{
    const _Atomic int *abort = job->abort;
    for (;;) {
        if (atomic_load_explicit(&job->status, memory_order_relaxed) != ZN_KSTATUS_OK)
            return;
        if (abort && atomic_load_explicit(abort, memory_order_relaxed) != 0) {
            zn_job_fail(job, ZN_KSTATUS_ABORTED);
            return;
        }
        uint64_t first = atomic_fetch_add(&job->next_block, job->chunk);
        if (first >= job->nblocks)
            return;
        uint64_t end = first + job->chunk;
        if (end > job->nblocks)
            end = job->nblocks;
        if (job->host_fn)
            for (uint64_t i = first; i < end; i++)
                job->host_fn(job->host_arg, i);
        else
            zn_block_run_range(job, wk, first, end);
    }
}

/* Under m: the oldest grid that wants another helper, if the CPUs are not
 * all taken. */
static zn_job *pool_pick(void)
{
    if (atomic_load(&pool.busy) >= atomic_load_explicit(&pool.nthreads, memory_order_relaxed))
        return NULL;
    for (zn_job *j = pool.head; j; j = j->next)
        if (atomic_load_explicit(&j->joined, memory_order_relaxed) < j->helpers &&
            atomic_load_explicit(&j->next_block, memory_order_relaxed) < j->nblocks &&
            atomic_load_explicit(&j->status, memory_order_relaxed) == ZN_KSTATUS_OK)
            return j;
    return NULL;
}

/* Under m: there may be work for a pool thread now. */
static void pool_wake_one(void)
{
    atomic_fetch_add(&pool.gen, 1);
    if (pool.sleepers)
        pthread_cond_signal(&pool.go);
}

static void *pool_thread(void *arg)
{
    zn_worker *wk = arg;
    zn_fiber_init_native(&wk->native);
    pthread_mutex_lock(&pool.m);
    for (;;) {
        zn_job *job = pool_pick();
        if (job) {
            atomic_fetch_add(&job->joined, 1);
            atomic_fetch_add(&pool.busy, 1);
            pthread_mutex_unlock(&pool.m);
            pool_work(job, wk);
            pthread_mutex_lock(&pool.m);
            atomic_fetch_sub(&pool.busy, 1);
            /* the decrement is the last touch of job: once it reads 0 the
             * launcher may return and its stack frame (job) is gone */
            int withdrawn = job->withdrawn;
            if (atomic_fetch_sub(&job->joined, 1) == 1 && withdrawn)
                pthread_cond_broadcast(&pool.done);
            continue;
        }
        uint64_t seen = atomic_load(&pool.gen);
        pthread_mutex_unlock(&pool.m);
        for (int i = 0; i < ZN_SPIN_ITERS && atomic_load(&pool.gen) == seen; i++)
            zn_spin_step(i);
        pthread_mutex_lock(&pool.m);
        pool.sleepers++;
        while (atomic_load(&pool.gen) == seen)
            pthread_cond_wait(&pool.go, &pool.m);
        pool.sleepers--;
    }
    return NULL;
}

static unsigned pool_default_threads(void)
{
    const char *s = getenv("ZINC_THREADS");
    if (s && atoi(s) > 0)
        return (unsigned)atoi(s);
    /* the CPUs this process may run on (taskset, cgroups cpusets) */
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        return (unsigned)CPU_COUNT(&set);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (unsigned)n : 1;
}

int zn_exec_thread_spawn(pthread_t *tid, size_t stack, void *(*fn)(void *), void *arg)
{
    sigset_t all, old;
    sigfillset(&all);
    sigdelset(&all, SIGSEGV);
    sigdelset(&all, SIGBUS);
    sigdelset(&all, SIGFPE);
    sigdelset(&all, SIGILL);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, stack);
    if (!tid)
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_t t;
    int rc = pthread_create(tid ? tid : &t, &attr, fn, arg);
    pthread_attr_destroy(&attr);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return rc;
}

int zn_gate_wait(zn_gate *g)
{
    pthread_mutex_lock(&g->m);
    while (g->state == 0)
        pthread_cond_wait(&g->cv, &g->m);
    int run = g->state > 0;
    pthread_mutex_unlock(&g->m);
    return run;
}

void zn_gate_open(zn_gate *g, int state)
{
    pthread_mutex_lock(&g->m);
    g->state = state;
    pthread_cond_broadcast(&g->cv);
    pthread_mutex_unlock(&g->m);
}

/* Pool threads are detached. */
static int pool_spawn(zn_worker *wk)
{
    return zn_exec_thread_spawn(NULL, ZN_WORKER_STACK, pool_thread, wk);
}

/* A launching thread exits: its worker's buffers, fibers and slot go. */
static void launcher_release(void *arg)
{
    zn_worker *wk = arg;
    pthread_mutex_lock(&pool.lw_lock);
    for (zn_worker **p = &pool.lw_list; *p; p = &(*p)->lw_next)
        if (*p == wk) {
            *p = wk->lw_next;
            break;
        }
    if (wk->lw_slot < ZN_LAUNCHER_SLOTS)
        pool.lw_used[wk->lw_slot / 64] &= ~((uint64_t)1 << (wk->lw_slot % 64));
    pthread_mutex_unlock(&pool.lw_lock);
    zn_block_worker_free(wk);
    free(wk);
    tl_worker = NULL;   /* a later launch on this thread makes a new one */
}

/* The calling thread's worker (blocks of the grids it launches run on it). */
static zn_worker *launcher_worker(void)
{
    zn_worker *wk = tl_worker;
    if (wk)
        return wk;
    wk = calloc(1, sizeof *wk);
    if (!wk)
        return NULL;
    zn_fiber_init_native(&wk->native);
    pthread_mutex_lock(&pool.lw_lock);
    unsigned slot = ZN_LAUNCHER_SLOTS;
    for (unsigned i = 0; i < ZN_LAUNCHER_SLOTS; i++)
        if (!(pool.lw_used[i / 64] >> (i % 64) & 1)) {
            slot = i;
            pool.lw_used[i / 64] |= (uint64_t)1 << (i % 64);
            break;
        }
    /* out of slots: an index no other worker has (racecheck skips it) */
    wk->lw_slot = slot;
    wk->index = slot == 0 ? 0 : slot < ZN_LAUNCHER_SLOTS ? ZN_LAUNCHER_SLOTS - slot : UINT32_MAX;
    wk->lw_next = pool.lw_list;
    pool.lw_list = wk;
    pthread_mutex_unlock(&pool.lw_lock);
    if (pthread_setspecific(pool.lw_key, wk) != 0) {
        launcher_release(wk);
        return NULL;
    }
    tl_worker = wk;
    return wk;
}

int zn_exec_init(unsigned nthreads)
{
    pthread_mutex_lock(&pool.init_lock);
    int rc = 0;
    if (!pool.ready) {
        unsigned n = nthreads ? nthreads : pool_default_threads();
        if (n > 1024)
            n = 1024;
        pool.workers = calloc(n, sizeof *pool.workers);
        if (!pool.workers || pthread_key_create(&pool.lw_key, launcher_release) != 0) {
            free(pool.workers);
            pool.workers = NULL;
            rc = -1;
        } else {
            pool.nthreads = 1;
            for (unsigned i = 1; i < n; i++) {
                pool.workers[i].index = i;
                if (pool_spawn(&pool.workers[i]) != 0) {
                    zn_log(ZN_LOG_WARN, "worker pool: only %u of %u threads started", i, n);
                    break;
                }
                pool.nthreads = i + 1;
            }
            pool.ready = 1;
            zn_log(ZN_LOG_INFO, "worker pool: %u threads", pool.nthreads);
        }
    }
    pthread_mutex_unlock(&pool.init_lock);
    zn_mem_info(NULL, NULL); /* reserve the device range now */
    zn_fault_init();
    return rc;
}

unsigned zn_exec_threads(void)
{
    if (zn_exec_init(0) != 0)
        return 0;
    return pool.nthreads;
}

unsigned zn_pool_workers(void)
{
    return pool.nthreads;
}

int zn_launch_valid(const zn_launch *l)
{
    if (!l || !l->fn)
        return 0;
    for (int i = 0; i < 3; i++)
        if (l->grid[i] == 0 || l->block[i] == 0)
            return 0;
    uint64_t threads = (uint64_t)l->block[0] * l->block[1] * l->block[2];
    return threads <= ZN_MAX_WARPS * ZN_WARP_SIZE &&
           ZN_SMEM_RESERVED + (uint64_t)l->static_shared + l->dyn_shared <= UINT32_MAX;
}

static void board_publish(zn_job *job)
{
    pthread_mutex_lock(&pool.m);
    job->prev = pool.tail;
    job->next = NULL;
    if (pool.tail)
        pool.tail->next = job;
    else
        pool.head = job;
    pool.tail = job;
    atomic_fetch_add(&pool.published, 1);
    atomic_fetch_add(&pool.gen, 1);
    unsigned wake = job->helpers < pool.sleepers ? job->helpers : pool.sleepers;
    for (unsigned i = 0; i < wake; i++)
        pthread_cond_signal(&pool.go);
    pthread_mutex_unlock(&pool.m);
}

/* The launcher has done its share: takes the grid off the board, gives its
 * CPU to whatever else is published, and waits for the helpers. */
static void board_withdraw(zn_job *job)
{
    pthread_mutex_lock(&pool.m);
    if (job->prev)
        job->prev->next = job->next;
    else
        pool.head = job->next;
    if (job->next)
        job->next->prev = job->prev;
    else
        pool.tail = job->prev;
    job->withdrawn = 1;
    atomic_fetch_sub(&pool.published, 1);
    atomic_fetch_sub(&pool.busy, 1);
    if (pool.head)
        pool_wake_one();
    pthread_mutex_unlock(&pool.m);
    for (int i = 0; i < ZN_SPIN_ITERS && atomic_load(&job->joined) > 0; i++)
        zn_spin_step(i);
    if (atomic_load(&job->joined) > 0) {
        pthread_mutex_lock(&pool.m);
        while (atomic_load(&job->joined) > 0)
            pthread_cond_wait(&pool.done, &pool.m);
        pthread_mutex_unlock(&pool.m);
    }
}

/* Runs job on the calling thread (wk) with parts - 1 pool helpers wanted;
 * returns when all its blocks are done. */
static int job_run(zn_job *job, zn_worker *wk, unsigned parts)
{
    job->helpers = parts - 1;
    atomic_fetch_add(&pool.busy, 1);
    if (parts > 1)
        board_publish(job);
    pool_work(job, wk);
    if (parts > 1) {
        board_withdraw(job);
    } else {
        atomic_fetch_sub(&pool.busy, 1);
        if (atomic_load(&pool.published) > 0) {
            pthread_mutex_lock(&pool.m);
            pool_wake_one();
            pthread_mutex_unlock(&pool.m);
        }
    }
    return atomic_load(&job->status);
}

void zn_job_setup(zn_job *job, const zn_launch *l)
{
    job->nblocks = (uint64_t)l->grid[0] * l->grid[1] * l->grid[2];
    job->nthreads = l->block[0] * l->block[1] * l->block[2];
    job->nwarps = (job->nthreads + ZN_WARP_SIZE - 1) / ZN_WARP_SIZE;
    /* uses_barrier 2: a coroutine kernel, whose warps take turns on the
     * worker's stack (zn_exec_coro.c); its compiler chose that only for a
     * frame estimate within the thread stack */
    job->on_coro = l->uses_barrier == 2;
    job->on_fibers = !job->on_coro && (l->uses_barrier || l->stack_bytes > ZN_THREAD_STACK_LIMIT);
    job->stack_bytes = ZN_FIBER_STACK_DEFAULT;
    if (l->stack_bytes + (64u << 10) > job->stack_bytes)
        job->stack_bytes = l->stack_bytes + (64u << 10);
    atomic_init(&job->next_block, 0);
    atomic_init(&job->status, ZN_KSTATUS_OK);
}

int zn_exec_launch(const zn_launch *l)
{
    if (!zn_launch_valid(l))
        return ZN_KSTATUS_INVALID_LAUNCH;
    if (l->cluster[0] > 1 || l->cluster[1] > 1 || l->cluster[2] > 1)
        return zn_exec_launch_cluster(l);   /* co-resident blocks (zn_exec_cluster.c) */
    if (zn_exec_init(0) != 0)
        return ZN_KSTATUS_TRAP;
    zn_worker *wk = launcher_worker();
    if (!wk) {
        zn_log(ZN_LOG_ERROR, "launch: out of memory for the launching thread's worker");
        return ZN_KSTATUS_TRAP;
    }

    zn_job job = {.l = l};
    zn_job_setup(&job, l);
    atomic_init(&job.joined, 0);
    job.abort = l->abort;
    job.seq = atomic_fetch_add(&pool.seq, 1) + 1;
    unsigned parts = pool.nthreads;
    if (l->max_workers && l->max_workers < parts)
        parts = l->max_workers;
    if (job.nblocks < parts)
        parts = (unsigned)job.nblocks;
    uint64_t chunk = job.nblocks / ((uint64_t)parts * 8);
    job.chunk = chunk < 1 || l->polls ? 1 : chunk > ZN_CHUNK_MAX ? ZN_CHUNK_MAX : (uint32_t)chunk;

    return job_run(&job, wk, parts);
}

/* Host work on the pool: fn(arg, i) for i < n, one index per claim, the
 * calling thread taking its share like a launcher. The BLAS libraries
 * split large GEMMs this way (src/blas/zn_blas_par.c) instead of running
 * OpenBLAS's own threads, which spin beside the pool's. */
void zn_exec_parallel(uint64_t n, void (*fn)(void *arg, uint64_t i), void *arg)
{
    if (n == 0)
        return;
    if (n == 1 || zn_exec_init(0) != 0) {
        for (uint64_t i = 0; i < n; i++)
            fn(arg, i);
        return;
    }
    zn_job job = {.host_fn = fn, .host_arg = arg, .nblocks = n, .chunk = 1};
    atomic_init(&job.next_block, 0);
    atomic_init(&job.status, ZN_KSTATUS_OK);
    atomic_init(&job.joined, 0);
    unsigned parts = pool.nthreads < n ? pool.nthreads : (unsigned)n;
    job_run(&job, NULL, parts);
}
