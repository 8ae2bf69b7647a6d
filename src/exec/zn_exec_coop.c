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
 * interleaves the spinning threads, and the barrier completes. The threads
 * come from the gang (zn_exec_gang.c): kept across launches with their
 * workers (shared buffer, warp fibers, a worker index past the pool's, so
 * per-worker state such as racecheck shadows is their own).
 *
 * All the threads are had before any block starts: if they cannot be, no
 * block runs (a partial grid would spin forever) and the launch fails.
 */
#define _GNU_SOURCE
#include "zn_exec_internal.h"
#include "util/zn_log.h"

#include <stdlib.h>
#include <string.h>

#define ZN_COOP_WS_BYTES 64                 /* CUDA's grid workspace is small */

/* Gang thread i runs block i. */
static void coop_block(void *arg, zn_worker *wk, unsigned i)
{
    zn_block_run_range(arg, wk, i, (uint64_t)i + 1);
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
    if (!job.grid_ws || job.nblocks > UINT32_MAX) {
        zn_log(ZN_LOG_ERROR, "cooperative launch: out of memory for %llu blocks",
               (unsigned long long)job.nblocks);
        if (job.grid_ws)
            zn_mem_free(job.grid_ws);
        return ZN_KSTATUS_TRAP;
    }
    memset(job.grid_ws, 0, ZN_COOP_WS_BYTES);
    if (zn_gang_run((unsigned)job.nblocks, coop_block, &job) != 0) {
        zn_log(ZN_LOG_ERROR, "cooperative launch: no thread for each of %llu blocks",
               (unsigned long long)job.nblocks);
        zn_job_fail(&job, ZN_KSTATUS_TRAP);
    }
    zn_mem_free(job.grid_ws);
    return atomic_load(&job.status);
}
