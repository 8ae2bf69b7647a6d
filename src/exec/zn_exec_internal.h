/* zn_exec_internal.h: symbols shared between the executor's files. */
#ifndef ZN_EXEC_INTERNAL_H
#define ZN_EXEC_INTERNAL_H

#include "zn_exec.h"
#include "zn_fiber.h"

#include <stdatomic.h>
#include <stdio.h>

#define ZN_WARP_SIZE 32
#define ZN_MAX_WARPS 32             /* 1024 threads per block */
#define ZN_MAX_BARRIERS 16
#define ZN_FIBER_STACK_DEFAULT (1u << 20)
/* Kernels without barriers run on the worker's own stack unless they ask
 * for more local memory per warp than this. */
#define ZN_THREAD_STACK_LIMIT (256u << 10)

/* One launch, shared by every thread that works on it. */
typedef struct zn_job {
    const zn_launch *l;
    uint64_t seq;                   /* launch number, for per-worker setup */
    uint64_t nblocks;
    uint32_t nthreads;              /* per block */
    uint32_t nwarps;
    uint32_t chunk;                 /* blocks taken per counter bump */
    uint32_t stack_bytes;           /* per warp fiber */
    int on_fibers;
    _Atomic uint64_t next_block;
    _Atomic int32_t status;         /* first error, else ZN_KSTATUS_OK */
} zn_job;

typedef enum { ZN_WARP_RUNNABLE, ZN_WARP_WAITING, ZN_WARP_DONE } zn_warp_state;

typedef struct zn_worker zn_worker;

/* A block in flight on one worker (the block's `exec` pointer). */
typedef struct zn_block_run {
    zn_block_ctx blk;
    zn_warp_ctx warps[ZN_MAX_WARPS];
    uint8_t state[ZN_MAX_WARPS];    /* zn_warp_state */
    uint8_t wait_id[ZN_MAX_WARPS];
    uint32_t nwarps;
    uint32_t ndone;
    uint32_t done_mask;                  /* bit per finished warp */
    uint32_t arrived[ZN_MAX_BARRIERS];   /* bit per warp waiting/arrived */
    uint32_t bar_count[ZN_MAX_BARRIERS]; /* thread count asked, 0 = all */
    zn_job *job;
    zn_worker *worker;
} zn_block_run;

/* Per-thread executor state: index 0 belongs to whichever host thread is
 * launching (launches are serialised), 1.. to the pool's threads. */
struct zn_worker {
    unsigned index;
    uint8_t *shared;                /* this worker's shared-memory buffer */
    size_t shared_cap;
    zn_block_run run;
    uint64_t setup_seq;             /* launch `run` was filled for */
    zn_fiber native;                /* the worker thread's own stack */
    zn_fiber fibers[ZN_MAX_WARPS];
    uint32_t nfibers;
    size_t fiber_stack;             /* stack size of the fibers above */
};

/* zn_exec_block.c */
void zn_block_run_range(zn_job *job, zn_worker *wk, uint64_t first, uint64_t end);
/* zn_exec_warps.c: warps of one block on fibers, and the barrier */
void zn_warps_run_on_fibers(zn_block_run *run);
void zn_warp_fiber_main(void *warp_ctx);
void zn_warps_barrier(zn_warp_ctx *w, uint32_t id, uint32_t count, uint32_t mode);
/* zn_exec_rt.c */
extern const zn_rt_ops zn_exec_rt_ops;
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

#endif
