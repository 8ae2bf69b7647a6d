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

typedef struct coop_block {
    zn_job *job;
    zn_gate *gate;
    uint64_t block;
    zn_worker wk;
} coop_block;

static void *coop_main(void *arg)
{
    coop_block *c = arg;
    if (zn_gate_wait(c->gate)) {
        zn_fiber_init_native(&c->wk.native);
        zn_block_run_range(c->job, &c->wk, c->block, c->block + 1);
    }
    return NULL;
}

static int coop_spawn(coop_block *c, pthread_t *t)
{
    return zn_exec_thread_spawn(t, ZN_COOP_STACK, coop_main, c);
}

/* What zn_block_run_range left in a throwaway worker. */
static void coop_worker_free(zn_worker *wk)
{
    for (uint32_t i = 0; i < wk->nfibers; i++)
        zn_fiber_destroy(&wk->fibers[i]);
    if (wk->shared)
        munmap(wk->shared, wk->shared_cap + (size_t)sysconf(_SC_PAGESIZE));
}

int zn_exec_launch_coop(const zn_launch *l)
{
    if (!zn_launch_valid(l))
        return ZN_KSTATUS_INVALID_LAUNCH;
    if (zn_exec_init(0) != 0)
        return ZN_KSTATUS_TRAP;

    static _Atomic uint64_t coop_seq = (uint64_t)1 << 62; /* apart from the pool's */
    zn_job job = {.l = l};
    zn_job_setup(&job, l);
    job.seq = atomic_fetch_add(&coop_seq, 1);
    job.chunk = 1;
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

    zn_gate gate = ZN_GATE_INIT;
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
    zn_gate_open(&gate, started == job.nblocks ? 1 : -1);
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
