/* zn_exec_pool.c: the worker pool and zn_exec_launch.
 *
 * Persistent threads wait for a launch; the launching thread works too, so
 * n threads means n-1 pool threads. Blocks are claimed in chunks from an
 * atomic counter (chunks shrink with the grid so the load stays balanced),
 * and a launch returns when every participant has stopped. Launches are
 * serialised: one grid runs at a time, whichever host thread asked.
 */
#define _GNU_SOURCE /* sched_getaffinity */
#include "zn_exec_internal.h"
#include "util/zn_log.h"

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#define ZN_WORKER_STACK ((size_t)16 << 20)

static struct {
    pthread_mutex_t init_lock;
    int ready;
    unsigned nthreads;
    zn_worker *workers;             /* [0] is the launching thread's */
    pthread_mutex_t launch_lock;    /* one launch at a time */
    /* Hand-off: the launcher publishes job under m and bumps gen; workers
     * spin a little on gen before sleeping on `go`. A worker joins (pending
     * + 1) under m only while the job is still published, so when the
     * launcher has done its share it withdraws the job and waits only for
     * workers that joined, not for ones that were slow to wake. */
    pthread_mutex_t m;
    pthread_cond_t go, done;
    _Atomic uint64_t gen;
    _Atomic unsigned pending;       /* joined workers still busy */
    zn_job *job;                    /* NULL once withdrawn */
    unsigned participants;          /* workers 1..participants-1 join */
    uint64_t seq;
} pool = {
    .init_lock = PTHREAD_MUTEX_INITIALIZER,
    .launch_lock = PTHREAD_MUTEX_INITIALIZER,
    .m = PTHREAD_MUTEX_INITIALIZER,
    .go = PTHREAD_COND_INITIALIZER,
    .done = PTHREAD_COND_INITIALIZER,
};

/* Roughly tens of microseconds: long enough to catch back-to-back
 * launches, short enough not to matter when the host is busy. */
#define ZN_SPIN_ITERS 4000

static inline void pool_pause(void)
{
#if defined(__x86_64__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ volatile("yield");
#endif
}

static void pool_work(zn_job *job, zn_worker *wk)
{
    for (;;) {
        if (atomic_load_explicit(&job->status, memory_order_relaxed) != ZN_KSTATUS_OK)
            return;
        uint64_t first = atomic_fetch_add(&job->next_block, job->chunk);
        if (first >= job->nblocks)
            return;
        uint64_t end = first + job->chunk;
        zn_block_run_range(job, wk, first, end < job->nblocks ? end : job->nblocks);
    }
}

static void *pool_thread(void *arg)
{
    zn_worker *wk = arg;
    uint64_t seen = 0;
    zn_fiber_init_native(&wk->native);
    for (;;) {
        for (int i = 0; i < ZN_SPIN_ITERS && atomic_load(&pool.gen) == seen; i++)
            pool_pause();
        pthread_mutex_lock(&pool.m);
        while (atomic_load(&pool.gen) == seen)
            pthread_cond_wait(&pool.go, &pool.m);
        seen = atomic_load(&pool.gen);
        zn_job *job = pool.job;
        int joins = job && wk->index < pool.participants;
        if (joins)
            atomic_fetch_add(&pool.pending, 1);
        pthread_mutex_unlock(&pool.m);
        if (!joins)
            continue;
        pool_work(job, wk);
        if (atomic_fetch_sub(&pool.pending, 1) == 1) {
            pthread_mutex_lock(&pool.m);
            pthread_cond_signal(&pool.done);
            pthread_mutex_unlock(&pool.m);
        }
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

/* Pool threads take no asynchronous signals: those belong to the
 * application's threads. */
static int pool_spawn(zn_worker *wk)
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
    pthread_attr_setstacksize(&attr, ZN_WORKER_STACK);
    pthread_t t;
    int rc = pthread_create(&t, &attr, pool_thread, wk);
    pthread_attr_destroy(&attr);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc == 0)
        pthread_detach(t);
    return rc;
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
        if (!pool.workers) {
            rc = -1;
        } else {
            pool.nthreads = 1;
            zn_fiber_init_native(&pool.workers[0].native);
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

static int launch_valid(const zn_launch *l)
{
    if (!l || !l->fn)
        return 0;
    for (int i = 0; i < 3; i++)
        if (l->grid[i] == 0 || l->block[i] == 0)
            return 0;
    uint64_t threads = (uint64_t)l->block[0] * l->block[1] * l->block[2];
    return threads <= ZN_MAX_WARPS * ZN_WARP_SIZE &&
           (uint64_t)l->static_shared + l->dyn_shared <= UINT32_MAX;
}

int zn_exec_launch(const zn_launch *l)
{
    if (!launch_valid(l))
        return ZN_KSTATUS_INVALID_LAUNCH;
    if (zn_exec_init(0) != 0)
        return ZN_KSTATUS_TRAP;

    zn_job job = {.l = l};
    job.nblocks = (uint64_t)l->grid[0] * l->grid[1] * l->grid[2];
    job.nthreads = l->block[0] * l->block[1] * l->block[2];
    job.nwarps = (job.nthreads + ZN_WARP_SIZE - 1) / ZN_WARP_SIZE;
    job.on_fibers = l->uses_barrier || l->stack_bytes > ZN_THREAD_STACK_LIMIT;
    job.stack_bytes = ZN_FIBER_STACK_DEFAULT;
    if (l->stack_bytes + (64u << 10) > job.stack_bytes)
        job.stack_bytes = l->stack_bytes + (64u << 10);
    atomic_init(&job.next_block, 0);
    atomic_init(&job.status, ZN_KSTATUS_OK);

    pthread_mutex_lock(&pool.launch_lock);
    job.seq = ++pool.seq;
    unsigned parts = pool.nthreads;
    if (job.nblocks < parts)
        parts = (unsigned)job.nblocks;
    uint64_t chunk = job.nblocks / ((uint64_t)parts * 8);
    job.chunk = chunk < 1 ? 1 : chunk > 64 ? 64 : (uint32_t)chunk;

    if (parts > 1) {
        pthread_mutex_lock(&pool.m);
        pool.job = &job;
        pool.participants = parts;
        atomic_fetch_add(&pool.gen, 1);
        pthread_cond_broadcast(&pool.go);
        pthread_mutex_unlock(&pool.m);
    }
    pool_work(&job, &pool.workers[0]);
    if (parts > 1) {
        pthread_mutex_lock(&pool.m);
        pool.job = NULL;
        pthread_mutex_unlock(&pool.m);
        for (int i = 0; i < ZN_SPIN_ITERS && atomic_load(&pool.pending) > 0; i++)
            pool_pause();
        pthread_mutex_lock(&pool.m);
        while (atomic_load(&pool.pending) > 0)
            pthread_cond_wait(&pool.done, &pool.m);
        pthread_mutex_unlock(&pool.m);
    }
    pthread_mutex_unlock(&pool.launch_lock);
    return atomic_load(&job.status);
}
