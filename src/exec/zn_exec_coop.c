/* zn_exec_coop.c: cooperative launches (grid-wide barriers).
 *
 * CUDA 12/13 cooperative groups implement grid.sync() in the kernel: the
 * driver passes a workspace pointer in %envreg1:%envreg2 and one thread per
 * block adds to a counter there (atom.add.release.gpu), then spins with
 * ld.acquire.gpu until the counter's top bit flips. That spin only ends if
 * every block of the grid is running, which the pool's block hand-out
 * (a worker runs its blocks one after another) does not give. So a
 * cooperative grid runs each block on its own thread: the grid is bounded
 * by the co-residency check (SMs x blocks per SM), the kernel scheduler
 * interleaves the spinning threads, and the barrier completes. Each thread
 * is a throwaway worker (its own shared buffer and warp fibers), numbered
 * past the pool's workers so per-worker state (racecheck shadows) is its
 * own.
 *
 * Threads are all created before any block starts: if one cannot be, no
 * block runs (a partial grid would spin forever) and the launch fails.
 */
#define _GNU_SOURCE
#include "zn_exec_internal.h"
#include "util/zn_log.h"

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define ZN_COOP_STACK ((size_t)16 << 20)    /* as the pool's workers */
#define ZN_COOP_WS_BYTES 64                 /* CUDA's grid workspace is small */

typedef struct coop_gate {
    pthread_mutex_t m;
    pthread_cond_t cv;
    int state;                  /* 0 wait, 1 run, -1 abort */
} coop_gate;

typedef struct coop_block {
    zn_job *job;
    coop_gate *gate;
    uint64_t block;
    zn_worker wk;
} coop_block;

static void *coop_main(void *arg)
{
    coop_block *c = arg;
    pthread_mutex_lock(&c->gate->m);
    while (c->gate->state == 0)
        pthread_cond_wait(&c->gate->cv, &c->gate->m);
    int run = c->gate->state > 0;
    pthread_mutex_unlock(&c->gate->m);
    if (run) {
        zn_fiber_init_native(&c->wk.native);
        zn_block_run_range(c->job, &c->wk, c->block, c->block + 1);
    }
    return NULL;
}

static int coop_spawn(coop_block *c, pthread_t *t)
{
    sigset_t all, old;  /* asynchronous signals belong to the application */
    sigfillset(&all);
    sigdelset(&all, SIGSEGV);
    sigdelset(&all, SIGBUS);
    sigdelset(&all, SIGFPE);
    sigdelset(&all, SIGILL);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, ZN_COOP_STACK);
    int rc = pthread_create(t, &attr, coop_main, c);
    pthread_attr_destroy(&attr);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return rc;
}

/* What zn_block_run_range left in a throwaway worker. */
static void coop_worker_free(zn_worker *wk)
{
    for (uint32_t i = 0; i < wk->nfibers; i++)
        zn_fiber_destroy(&wk->fibers[i]);
    if (wk->shared)
        munmap(wk->shared, wk->shared_cap + (size_t)sysconf(_SC_PAGESIZE));
}

static void coop_gate_open(coop_gate *g, int state)
{
    pthread_mutex_lock(&g->m);
    g->state = state;
    pthread_cond_broadcast(&g->cv);
    pthread_mutex_unlock(&g->m);
}

int zn_exec_launch_coop(const zn_launch *l)
{
    if (!l || !l->fn)
        return ZN_KSTATUS_INVALID_LAUNCH;
    for (int i = 0; i < 3; i++)
        if (l->grid[i] == 0 || l->block[i] == 0)
            return ZN_KSTATUS_INVALID_LAUNCH;
    uint64_t threads = (uint64_t)l->block[0] * l->block[1] * l->block[2];
    if (threads > ZN_MAX_WARPS * ZN_WARP_SIZE ||
        (uint64_t)l->static_shared + l->dyn_shared > UINT32_MAX)
        return ZN_KSTATUS_INVALID_LAUNCH;
    if (zn_exec_init(0) != 0)
        return ZN_KSTATUS_TRAP;

    static _Atomic uint64_t coop_seq = (uint64_t)1 << 62; /* apart from the pool's */
    zn_job job = {.l = l};
    job.seq = atomic_fetch_add(&coop_seq, 1);
    job.nblocks = (uint64_t)l->grid[0] * l->grid[1] * l->grid[2];
    job.nthreads = (uint32_t)threads;
    job.nwarps = (job.nthreads + ZN_WARP_SIZE - 1) / ZN_WARP_SIZE;
    job.on_fibers = l->uses_barrier || l->stack_bytes > ZN_THREAD_STACK_LIMIT;
    job.stack_bytes = ZN_FIBER_STACK_DEFAULT;
    if (l->stack_bytes + (64u << 10) > job.stack_bytes)
        job.stack_bytes = l->stack_bytes + (64u << 10);
    job.chunk = 1;
    atomic_init(&job.next_block, 0);
    atomic_init(&job.status, ZN_KSTATUS_OK);
    /* device memory, so memcheck accepts the barrier's accesses */
    job.grid_ws = zn_mem_alloc(ZN_COOP_WS_BYTES, 0, ZN_MEM_DEVICE);
    coop_block *blocks = calloc(job.nblocks, sizeof *blocks);
    pthread_t *tids = calloc(job.nblocks, sizeof *tids);
    if (!job.grid_ws || !blocks || !tids) {
        zn_log(ZN_LOG_ERROR, "cooperative launch: out of memory for %llu blocks",
               (unsigned long long)job.nblocks);
        free(blocks);
        free(tids);
        if (job.grid_ws)
            zn_mem_free(job.grid_ws);
        return ZN_KSTATUS_TRAP;
    }
    memset(job.grid_ws, 0, ZN_COOP_WS_BYTES);

    coop_gate gate = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0};
    unsigned base = zn_pool_workers();
    uint64_t started = 0;
    for (; started < job.nblocks; started++) {
        coop_block *c = &blocks[started];
        c->job = &job;
        c->gate = &gate;
        c->block = started;
        c->wk.index = base + (unsigned)started;
        if (coop_spawn(c, &tids[started]) != 0)
            break;
    }
    if (started < job.nblocks) {
        zn_log(ZN_LOG_ERROR, "cooperative launch: only %llu of %llu block threads started",
               (unsigned long long)started, (unsigned long long)job.nblocks);
        zn_job_fail(&job, ZN_KSTATUS_TRAP);
    }
    coop_gate_open(&gate, started == job.nblocks ? 1 : -1);
    for (uint64_t i = 0; i < started; i++) {
        pthread_join(tids[i], NULL);
        coop_worker_free(&blocks[i].wk);
    }
    pthread_mutex_destroy(&gate.m);
    pthread_cond_destroy(&gate.cv);
    free(blocks);
    free(tids);
    zn_mem_free(job.grid_ws);
    return atomic_load(&job.status);
}
