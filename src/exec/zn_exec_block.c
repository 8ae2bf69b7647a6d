/* zn_exec_block.c: running a range of blocks on one worker.
 *
 * The block context is filled once per launch and only ctaid changes per
 * block. Kernels without barriers run their warps one after another on the
 * worker's own stack; kernels with barriers (or with more local memory
 * than a thread stack should hold) run each warp on a fiber.
 */
#include "zn_exec_internal.h"
#include "zn_fpenv.h"
#include "util/zn_log.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* The worker's shared-memory buffer, grown to the launch's need and
 * followed by ZN_SHARED_TAIL bytes reserved PROT_NONE: every 32-bit shared
 * address (an offset from the window, wrapping) lands in the buffer or the
 * reservation, so a wild shared access faults instead of landing in the
 * host's heap. Each launch's window is placed to end ZN_SHARED_SLACK bytes
 * before the reservation (block_setup). A fault in the reservation is what
 * the H200 reports (measured): ILLEGAL_ADDRESS up to 16 MiB from the
 * window's start, ILLEGAL_INSTRUCTION from there on (negative offsets
 * wrap to near 4 GiB: the same).
 *
 * Why the slack: compiled code accesses consecutive lanes with one masked
 * vector load/store spanning all 32 lanes from lane 0's address (128 bytes
 * for 4-byte elements, 256 for 8-byte ones), whichever lanes are active.
 * When the masked-off part of that span reaches a protected page the CPU
 * takes a fault-suppression assist: about 60 ns per access on AVX-512
 * Xeons (issue #9), and `warp_sums[warp] = v` or `v = warp_sums[lane]` at
 * the end of a small shared array does it once per warp per block. So up
 * to ZN_SHARED_SLACK bytes past the end go undetected (ZINC_CHECK=memcheck
 * reports them); the same slack before the window keeps spans anchored
 * below a block's first bytes inside the mapping. CUDA leaves shared
 * memory undefined; a new buffer starts zeroed. wk->shared is the mapping,
 * wk->shared_cap its usable length (slack included). */
#define ZN_SHARED_SLACK ((size_t)256)
#define ZN_SHARED_TAIL (((size_t)4 << 30) + ((size_t)64 << 10))
#define ZN_SHARED_FAR ((size_t)16 << 20) /* 715 from here on (H200) */

static size_t shared_window(size_t bytes)
{
    return (bytes + 15) & ~(size_t)15;
}

static int block_ensure_shared(zn_worker *wk, size_t bytes)
{
    bytes = shared_window(bytes) + 2 * ZN_SHARED_SLACK;
    if (wk->shared && wk->shared_cap >= bytes)
        return 0;
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t len = (bytes + page - 1) / page * page;
    if (len == 0)
        len = page;
    /* under an address-space limit (ulimit -v) that refuses 4 GiB, one
     * guard page: far overruns may then reach other mappings */
    size_t tail = ZN_SHARED_TAIL;
    uint8_t *p = mmap(NULL, len + tail, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                      -1, 0);
    if (p == MAP_FAILED) {
        tail = page;
        p = mmap(NULL, len + tail, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    }
    if (p == MAP_FAILED)
        return -1;
    if (mprotect(p, len, PROT_READ | PROT_WRITE) != 0) {
        munmap(p, len + tail);
        return -1;
    }
    if (wk->shared)
        munmap(wk->shared, wk->shared_cap + wk->shared_tail);
    wk->shared = p;
    wk->shared_cap = len;
    wk->shared_tail = tail;
    return 0;
}

/* One fiber per warp, each with at least the launch's stack size. */
static int block_ensure_fibers(zn_worker *wk, uint32_t nwarps, size_t stack)
{
    if (wk->fiber_stack < stack) {
        for (uint32_t i = 0; i < wk->nfibers; i++)
            zn_fiber_destroy(&wk->fibers[i]);
        wk->nfibers = 0;
        wk->fiber_stack = stack;
    }
    for (; wk->nfibers < nwarps; wk->nfibers++) {
        zn_fiber *f = &wk->fibers[wk->nfibers];
        if (zn_fiber_create(f, wk->fiber_stack, zn_warp_fiber_main,
                            &wk->run.warps[wk->nfibers]) != 0)
            return -1;
    }
    return 0;
}

static void block_setup(zn_job *job, zn_worker *wk)
{
    const zn_launch *l = job->l;
    zn_block_run *run = &wk->run;
    zn_block_ctx *b = &run->blk;
    memset(b, 0, sizeof *b);
    memcpy(b->nctaid, l->grid, sizeof b->nctaid);
    memcpy(b->ntid, l->block, sizeof b->ntid);
    b->nthreads = job->nthreads;
    size_t window = ZN_SMEM_RESERVED + (size_t)l->static_shared + l->dyn_shared;
    b->shared = wk->shared + wk->shared_cap - ZN_SHARED_SLACK - shared_window(window);
    b->shared_size = (uint32_t)window;
    b->dyn_shared_size = l->dyn_shared;
    b->params = l->params;
    b->exec = run;
    b->grid_ws = job->grid_ws;
    for (int d = 0; d < 3; d++)     /* no cluster launch: CUDA's implicit 1x1x1 */
        b->cluster_dim[d] = l->cluster[d] ? l->cluster[d] : 1;
    b->cluster_flags = l->cluster_explicit ? 1u : 0u;
    b->cluster = wk->cluster ? (const zn_cluster_ctx *)wk->cluster : NULL;
    run->job = job;
    run->worker = wk;
    run->nwarps = job->nwarps;
    for (uint32_t i = 0; i < job->nwarps; i++) {
        zn_warp_ctx *w = &run->warps[i];
        uint32_t lanes = job->nthreads - i * ZN_WARP_SIZE;
        w->block = b;
        w->warpid = i;
        zn_warp_set_tid(w, l->block);
        w->live_mask = lanes >= ZN_WARP_SIZE ? 0xffffffffu : (1u << lanes) - 1;
        w->rt = &zn_exec_rt_ops;
        w->nsmid = zn_pool_workers();
        w->smid = wk->index % w->nsmid; /* cooperative blocks: index past the pool */
        w->exec = NULL;
        w->co_frame = wk->co_frame[i];  /* coroutine kernels' frame buffer */
        w->co_cap = wk->co_cap[i];
    }
}

/* Linear block index -> ctaid, x fastest. */
static void block_index(uint64_t linear, const uint32_t grid[3], uint32_t ctaid[3])
{
    ctaid[0] = (uint32_t)(linear % grid[0]);
    linear /= grid[0];
    ctaid[1] = (uint32_t)(linear % grid[1]);
    ctaid[2] = (uint32_t)(linear / grid[1]);
}

/* The block after ctaid in the same order, without block_index's three
 * 64-bit divisions (tens of cycles each, per block: a visible part of
 * small-block kernels such as ggml's mul_mat_vec_q, 32000 blocks of 4
 * warps per launch). */
static void block_next(const uint32_t grid[3], uint32_t ctaid[3])
{
    if (++ctaid[0] < grid[0])
        return;
    ctaid[0] = 0;
    if (++ctaid[1] < grid[1])
        return;
    ctaid[1] = 0;
    ctaid[2]++;
}

static void block_run_plain(zn_block_run *run, zn_kernel_fn fn)
{
    for (uint32_t i = 0; i < run->nwarps; i++) {
        int32_t st = fn(&run->warps[i]);
        if (st != ZN_KSTATUS_OK) {
            zn_job_fail(run->job, st);
            return;
        }
    }
}

static void block_drop_fibers(zn_worker *wk);

typedef struct block_range {
    zn_job *job;
    zn_worker *wk;
    uint64_t first, end;
} block_range;

static void block_run_blocks(void *arg)
{
    block_range *r = arg;
    zn_job *job = r->job;
    zn_block_run *run = &r->wk->run;
    const uint32_t *grid = job->l->grid;
    uint32_t *ctaid = run->blk.ctaid;
    for (uint64_t b = r->first; b < r->end; b++) {
        if (atomic_load_explicit(&job->status, memory_order_relaxed) != ZN_KSTATUS_OK)
            return;
        if (job->abort && atomic_load_explicit(job->abort, memory_order_relaxed)) {
            zn_job_fail(job, ZN_KSTATUS_ABORTED);   /* another grid poisoned the context */
            return;
        }
        if (b == r->first)
            block_index(b, grid, ctaid);
        else
            block_next(grid, ctaid);
        memset(run->blk.shared + ZN_SMEM_RESERVED_CG, 0, ZN_SMEM_RESERVED_CG_ZERO);
        if (job->on_coro) {
            if (zn_warps_run_coro(run))
                return;     /* the grid failed: its warps stopped */
        } else if (job->on_fibers) {
            if (zn_warps_run_on_fibers(run)) {
                /* warps stopped mid-kernel (the grid failed): their fibers
                 * cannot be resumed; the next launch makes fresh ones */
                block_drop_fibers(r->wk);
                return;
            }
        } else
            block_run_plain(run, job->l->fn);
    }
}

/* After a fault the worker's fibers hold abandoned frames: drop them; the
 * next block with barriers makes fresh ones. */
static void block_drop_fibers(zn_worker *wk)
{
    for (uint32_t i = 0; i < wk->nfibers; i++)
        zn_fiber_destroy(&wk->fibers[i]);
    wk->nfibers = 0;
}

void zn_block_worker_free(zn_worker *wk)
{
    block_drop_fibers(wk);
    zn_warps_coro_free(wk);
    if (wk->shared)
        munmap(wk->shared, wk->shared_cap + wk->shared_tail);
    wk->shared = NULL;
    wk->shared_cap = 0;
}

int zn_block_prepare(zn_job *job, zn_worker *wk)
{
    const zn_launch *l = job->l;
    if (block_ensure_shared(wk, ZN_SMEM_RESERVED + (size_t)l->static_shared + l->dyn_shared) != 0 ||
        (job->on_fibers && block_ensure_fibers(wk, job->nwarps, job->stack_bytes) != 0)) {
        zn_log(ZN_LOG_ERROR, "launch: out of memory for shared memory or warp stacks");
        zn_job_fail(job, ZN_KSTATUS_TRAP);
        return -1;
    }
    if (wk->setup_seq != job->seq) {
        block_setup(job, wk);
        wk->setup_seq = job->seq;
    }
    return 0;
}

void zn_block_run_range(zn_job *job, zn_worker *wk, uint64_t first, uint64_t end)
{
    if (zn_block_prepare(job, wk) != 0)
        return;
    block_range r = {job, wk, first, end};
    void *addr = NULL;
    zn_fpenv host_fp = zn_fpenv_enter_kernel();
    int sig = zn_fault_guard(block_run_blocks, &r, &addr);
    zn_fpenv_leave_kernel(host_fp);
    /* the blocks' non-temporal stores (src/compile/zn_lower_stream.c) are
     * weakly ordered: visible to all before the blocks count as done */
#if defined(__x86_64__)
    __builtin_ia32_sfence();
#endif
    if (sig) {
        const uint32_t *c = wk->run.blk.ctaid;
        const uint8_t *a = addr, *end = wk->shared + wk->shared_cap;
        int status = ZN_KSTATUS_ILLEGAL_ADDRESS;
        if (a >= end && a < end + wk->shared_tail) {
            size_t off = (size_t)(a - wk->run.blk.shared);
            /* offsets from the kernel's first .shared byte, as in the PTX */
            zn_log(ZN_LOG_ERROR, "kernel fault: shared-memory access at offset 0x%zx, past the "
                   "block's %u bytes, in block (%u,%u,%u)", off - ZN_SMEM_RESERVED,
                   wk->run.blk.shared_size - ZN_SMEM_RESERVED, c[0], c[1], c[2]);
            if (off >= ZN_SHARED_FAR)
                status = ZN_KSTATUS_ILLEGAL_INSTRUCTION;
        } else {
            zn_log(ZN_LOG_ERROR, "kernel fault (signal %d) at address %p in block (%u,%u,%u)",
                   sig, addr, c[0], c[1], c[2]);
        }
        zn_job_fail(job, status);
        if (job->on_fibers)
            block_drop_fibers(wk);
    }
}
