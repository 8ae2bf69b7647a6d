/* zn_kernel_abi.h: the contract between compiled kernels and the executor.
 *
 * A compiled kernel is one native function per PTX .entry that runs ONE WARP
 * (32 lanes as a SIMD program) of one block:
 *
 *     int32_t entry(zn_warp_ctx *w);
 *
 * It returns ZN_KSTATUS_OK when every lane exited normally, or an error
 * status (trap, assert, illegal address found by a check). The executor
 * calls it once per warp of each block. Kernels with bar.sync are either
 * coroutines (the usual case, see below) or run each warp on its own
 * fiber, where the barrier call switches to the next warp.
 *
 * A coroutine kernel (zn_kernel_info.uses_barrier == 2) suspends at its
 * barriers instead of calling rt->barrier: it stores the barrier's
 * arguments in co_wait and suspends (LLVM's switched-resume coroutines:
 * the frame, co_frame when co_cap suffices or else rt->coro_frame, starts
 * with the resume function's address, and the entry function stores it in
 * co_frame), so the entry or resume function returns to the executor,
 * which does the barrier's bookkeeping and resumes the warp when it may
 * go on. Before it calls either, the executor sets co_status to
 * ZN_KSTATUS_RUNNING; a warp that ends stores its status there, so
 * co_status still RUNNING after the call means "suspended". The executor
 * resumes warps through the kernel's batch function when it has one
 * (zn_batch_fn, src/compile/zn_coro_batch.c: kernels with a barrier in a
 * loop; it sets co_status itself), else with
 * ((void (*)(void *))*(void **)frame)(frame).
 *
 * Address spaces as compiled code sees them:
 *   global, const, generic: real host addresses (device memory is host memory)
 *   shared: 32-bit offsets from block->shared (cvta adds/subtracts the base);
 *           the window starts with ZN_SMEM_RESERVED bytes (below)
 *   local:  real host addresses of per-lane stack memory in the warp's frame
 *           (so cvta.local and cvta.to.local are the identity)
 *   param (kernel parameters): read from block->params at the PTX offsets
 *
 * The compiler reads these structs through the field numbers below; keep
 * them and the struct definitions in step (a unit test checks offsets).
 */
#ifndef ZN_KERNEL_ABI_H
#define ZN_KERNEL_ABI_H

#include <stdint.h>

enum {
    ZN_KSTATUS_OK = 0,
    ZN_KSTATUS_TRAP = 1,            /* trap instruction -> CUDA_ERROR_LAUNCH_FAILED */
    ZN_KSTATUS_ASSERT = 2,          /* __assertfail -> CUDA_ERROR_ASSERT */
    ZN_KSTATUS_ILLEGAL_ADDRESS = 3, /* -> CUDA_ERROR_ILLEGAL_ADDRESS */
    ZN_KSTATUS_ILLEGAL_INSTRUCTION = 4,
    ZN_KSTATUS_MISALIGNED = 5,
    ZN_KSTATUS_RUNNING = -1         /* coroutine kernels: not finished */
};

typedef struct zn_warp_ctx zn_warp_ctx;

/* Per-block state shared by the warps of one block. */
typedef struct zn_block_ctx {
    uint32_t ctaid[3];      /* %ctaid */
    uint32_t nctaid[3];     /* %nctaid */
    uint32_t ntid[3];       /* %ntid */
    uint32_t nthreads;      /* ntid.x * ntid.y * ntid.z */
    uint8_t *shared;        /* base of this block's shared window */
    uint32_t shared_size;   /* window bytes: reserved + static + dynamic */
    uint32_t dyn_shared_size; /* %dynamic_smem_size */
    const uint8_t *params;  /* kernel parameter buffer, PTX .param layout */
    void *exec;             /* executor-private (barrier state, fibers) */
    /* Cooperative launches: the grid barrier's workspace (zeroed words
     * that grid.sync() counts arrivals in), read by compiled code as
     * %envreg2 (low half) and %envreg1 (high half) as CUDA's driver
     * provides it; NULL otherwise, so grid.sync() traps as on a GPU. */
    void *grid_ws;
    /* Thread block clusters (sm_90): the cluster's shape in blocks
     * ({1,1,1} without a cluster launch: CUDA's implicit cluster), bit 0 of
     * cluster_flags is %is_explicit_cluster, and `cluster` the cluster's
     * shared-memory table (NULL without a cluster launch). */
    uint32_t cluster_dim[3];
    uint32_t cluster_flags;
    const struct zn_cluster_ctx *cluster;
    /* Warps of the block that have not ended, set at the block's start by
     * the barrier executors; code that owes barriers decrements it at its
     * exit and pays nothing when it is the last (zn_lower_lazybar.c). */
    uint32_t warps_left;
} zn_block_ctx;

/* A block's shared window starts with the GPU's reserved shared memory
 * (CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK, 1 KiB on sm_80
 * and later); the kernel's .shared variables follow at ZN_SMEM_RESERVED,
 * so small negative indices from the first one land there and succeed,
 * as on an H200 (docs/faults.md), and cooperative groups' multi-warp
 * tiles find their barrier words at %reserved_smem_offset_1
 * (ZN_SMEM_RESERVED_CG). CUDA's headers do not initialise those words on
 * sm_80+: the executor zeroes ZN_SMEM_RESERVED_CG_ZERO bytes there before
 * each block. The offsets are Zinc's choice (not measured on a GPU). */
#define ZN_SMEM_RESERVED 1024u
#define ZN_SMEM_RESERVED_CG 512u
#define ZN_SMEM_RESERVED_CG_ZERO 32u

/* What compiled code reads of a cluster: the shared-memory window of each
 * block, by rank (%cluster_ctarank; mapa). The executor's barrier state
 * follows it (zn_exec_cluster.c). */
#define ZN_CLUSTER_MAX 16
typedef struct zn_cluster_ctx {
    uint8_t *shared[ZN_CLUSTER_MAX];
} zn_cluster_ctx;

#define ZN_BLOCK_FIELD_CTAID 0
#define ZN_BLOCK_FIELD_NCTAID 1
#define ZN_BLOCK_FIELD_NTID 2
#define ZN_BLOCK_FIELD_NTHREADS 3
#define ZN_BLOCK_FIELD_SHARED 4
#define ZN_BLOCK_FIELD_SHARED_SIZE 5
#define ZN_BLOCK_FIELD_DYN_SHARED_SIZE 6
#define ZN_BLOCK_FIELD_PARAMS 7
#define ZN_BLOCK_FIELD_GRID_WS 9  /* 8 is exec */
#define ZN_BLOCK_FIELD_CLUSTER_DIM 10
#define ZN_BLOCK_FIELD_CLUSTER_FLAGS 11
#define ZN_BLOCK_FIELD_CLUSTER 12
#define ZN_BLOCK_FIELD_WARPS_LEFT 13

/* Services the executor provides to compiled code, called through pointers
 * so that compiled objects carry no relocations against the driver. */
typedef struct zn_rt_ops {
    /* bar.sync / barrier.sync / bar.arrive / bar.red: id is the barrier
     * number, count the expected thread count (0 = all threads of the block).
     * mode: 0 sync, 1 arrive (returns when every warp has arrived); 2 yield:
     * id and count unused, lets the block's other warps run first.
     * (Coroutine kernels do not call it: see co_wait.) */
    void (*barrier)(zn_warp_ctx *w, uint32_t id, uint32_t count, uint32_t mode);
    /* __assertfail(message, file, line, function, charSize) for one lane */
    void (*assertfail)(zn_warp_ctx *w, const char *msg, const char *file,
                       uint32_t line, const char *func, uint32_t lane);
    /* vprintf(format, args) for one lane; returns the count printed */
    int32_t (*vprintf)(zn_warp_ctx *w, const char *fmt, const void *args,
                       uint32_t lane);
    /* %clock64 / %globaltimer (ns) */
    uint64_t (*clock64)(zn_warp_ctx *w);
    uint64_t (*globaltimer)(zn_warp_ctx *w);
    /* malloc/free (device heap) */
    void *(*malloc)(zn_warp_ctx *w, uint64_t size);
    void (*free)(zn_warp_ctx *w, void *p);
    /* ZINC_CHECK=memcheck code only: checks the active lanes' accesses
     * (addr: 32 host addresses; info: size | PTX space << 16 | 1 write,
     * 2 atomic << 24; where: the instruction; lbase/lspan: the per-lane
     * .local depot, lane l at lbase + l * lspan, 0 if unknown; lo/hi: the
     * active lanes' lowest and highest address, lo > hi if not computed).
     * Nonzero: a bad access was reported and the warp must stop. */
    int32_t (*memcheck)(zn_warp_ctx *w, const uint64_t *addr, uint32_t mask, uint32_t info,
                        const char *where, uint64_t lbase, uint64_t lspan, uint64_t lo,
                        uint64_t hi);
    /* tex, tld4, txq, suld, sust for the lanes in mask (zn_exec_tex.h:
     * handles are texture/surface objects, io the [8][32] coordinates,
     * values and results, code what to do). Returns a ZN_KSTATUS. */
    int32_t (*tex)(zn_warp_ctx *w, uint32_t code, uint32_t mask, const uint64_t *handles,
                   uint64_t *io);
    /* Called before each .acquire/.relaxed/.volatile global load in a
     * cooperative launch (block->grid_ws set): such loads are how grid.sync()
     * spins, and its blocks are more threads than cores, so the spinner
     * gives its core to the blocks it waits for. Nonzero (a ZN_KSTATUS):
     * the grid has failed (another block faulted or trapped), the warp
     * returns it instead of polling for a barrier that cannot complete. */
    int32_t (*spin)(zn_warp_ctx *w);
    /* barrier.cluster: mode bit 0 arrive, bit 1 wait (both: arrive and
     * wait). Waiting lets the block's other warps run and polls until every
     * block of the cluster has arrived. Nonzero (a ZN_KSTATUS): the grid
     * failed elsewhere, the warp returns it. Without a cluster launch the
     * cluster is the block itself, a whole-block barrier. */
    int32_t (*cluster_barrier)(zn_warp_ctx *w, uint32_t mode);
    /* Coroutine kernels: the warp's frame of size bytes (64-aligned),
     * executor memory that lives until the warp's block is done. */
    void *(*coro_frame)(zn_warp_ctx *w, uint64_t size);
    /* The device runtime API (dynamic parallelism: __cudaCDP2*, lowered by
     * zn_lower_cdp.c) for one lane: op is a ZN_CDP_*, args the call's
     * arguments as 64-bit words (a dim3 as the address of its 12 bytes).
     * Returns the function's result (a cudaError_t, a pointer). */
    uint64_t (*cdp)(zn_warp_ctx *w, uint32_t op, const uint64_t *args, uint32_t lane);
    /* cp.async.bulk.tensor for the lanes in mask (zn_tma.h: code, the
     * io rows). Returns a ZN_KSTATUS. */
    int32_t (*tma)(zn_warp_ctx *w, uint32_t code, uint32_t mask, uint64_t *io);
} zn_rt_ops;

/* Device runtime operations (zn_rt_ops.cdp; `_ptsz` variants are the same). */
enum {
    ZN_CDP_PARAM_BUFFER_V2,     /* (func, grid*, block*, shmem) -> buffer */
    ZN_CDP_LAUNCH_V2,           /* (buffer, stream) -> error */
    ZN_CDP_PARAM_BUFFER,        /* (alignment, size) -> buffer */
    ZN_CDP_LAUNCH,              /* (func, buffer, grid*, block*, shmem, stream) */
    ZN_CDP_STREAM_CREATE,       /* (stream*, flags) */
    ZN_CDP_STREAM_DESTROY,      /* (stream) */
    ZN_CDP_GET_LAST_ERROR,
    ZN_CDP_PEEK_LAST_ERROR,
    ZN_CDP_ERROR_STRING,        /* (error) -> const char * */
    ZN_CDP_ERROR_NAME,
    ZN_CDP_MALLOC,              /* (ptr*, size) */
    ZN_CDP_FREE,                /* (ptr) */
    ZN_CDP_MEMCPY_ASYNC,        /* (dst, src, count, kind, stream) */
    ZN_CDP_MEMSET_ASYNC,        /* (dst, value, count, stream) */
    ZN_CDP_GET_DEVICE,          /* (int*) */
    ZN_CDP_GET_DEVICE_COUNT,    /* (int*) */
    ZN_CDP_RUNTIME_VERSION,     /* (int*) */
    ZN_CDP_EVENT_CREATE,        /* (event*, flags) */
    ZN_CDP_EVENT_RECORD,        /* (event, stream) */
    ZN_CDP_EVENT_DESTROY,       /* (event) */
    ZN_CDP_STREAM_WAIT_EVENT,   /* (stream, event, flags) */
    ZN_CDP_DEVICE_ATTRIBUTE,    /* (int*, attribute, device) */
    ZN_CDP_MEMCPY_2D,           /* (dst, dpitch, src, spitch, width, height, kind, stream) */
    ZN_CDP_MEMCPY_3D,           /* (cudaMemcpy3DParms*, stream) */
    ZN_CDP_MEMSET_2D,           /* (dst, pitch, value, width, height, stream) */
    ZN_CDP_MEMSET_3D,           /* (cudaPitchedPtr*, value, cudaExtent*, stream) */
    ZN_CDP_FUNC_ATTRIBUTES,     /* (cudaFuncAttributes*, func) */
    ZN_CDP_OCCUPANCY,           /* (int*, func, block size, dynamic shared[, flags]) */
    ZN_CDP_DEVICE_LIMIT,        /* (size_t*, cudaLimit) */
    ZN_CDP_CACHE_CONFIG,        /* (cudaFuncCache*) */
    ZN_CDP_SHMEM_CONFIG,        /* (cudaSharedMemConfig*) */
    ZN_CDP_NOPS
};
#define ZN_CDP_MAXARGS 8

/* Per-warp state. */
struct zn_warp_ctx {
    const zn_block_ctx *block;
    uint32_t warpid;        /* warp index in the block: lanes are threads
                             * warpid*32 .. warpid*32+31 in x-major order */
    uint32_t live_mask;     /* lanes that exist (partial last warp) */
    const zn_rt_ops *rt;
    uint32_t smid;          /* %smid: the worker thread's index */
    uint32_t nsmid;         /* %nsmid */
    void *exec;             /* executor-private (fiber) */
    int32_t co_status;      /* coroutine kernels: ZN_KSTATUS_RUNNING until
                             * the warp ends, then its status */
    void *co_frame;         /* coroutine kernels: the frame (coro.begin's
                             * handle), stored by the entry function */
    uint64_t co_wait;       /* coroutine kernels, at a suspend: the
                             * barrier's id | mode << 8 | count << 32
                             * (rt->barrier's arguments) */
    uint64_t co_cap;        /* coroutine kernels: bytes at co_frame that
                             * the executor has ready for this warp; a
                             * frame that fits is taken without calling
                             * rt->coro_frame */
    /* %tid.x, %tid.y, %tid.z of the warp's lanes (thread warpid * 32 + lane
     * of the block, x-major; lanes past the block's end go on counting),
     * filled once per launch by zn_warp_set_tid: the compiled prologue
     * loads them instead of dividing by ntid in every warp of every block
     * (2D blocks paid ~30 instructions and four branches per warp). */
    uint32_t tid[3][32];
};

#define ZN_WARP_FIELD_BLOCK 0
#define ZN_WARP_FIELD_WARPID 1
#define ZN_WARP_FIELD_LIVE_MASK 2
#define ZN_WARP_FIELD_RT 3
#define ZN_WARP_FIELD_SMID 4
#define ZN_WARP_FIELD_NSMID 5
#define ZN_WARP_FIELD_CO_STATUS 7  /* 6 is exec */
#define ZN_WARP_FIELD_CO_FRAME 8
#define ZN_WARP_FIELD_CO_WAIT 9
#define ZN_WARP_FIELD_CO_CAP 10
#define ZN_WARP_FIELD_TID 11

/* w->tid for block shape ntid (every entry non-zero) and w->warpid. */
static inline void zn_warp_set_tid(zn_warp_ctx *w, const uint32_t ntid[3])
{
    for (uint32_t i = 0; i < 32; i++) {
        uint32_t t = w->warpid * 32 + i, q = t / ntid[0];
        w->tid[0][i] = t % ntid[0];
        w->tid[1][i] = q % ntid[1];
        w->tid[2][i] = q / ntid[1];
    }
}

typedef int32_t (*zn_kernel_fn)(zn_warp_ctx *w);

/* A coroutine kernel's zk_K.batch: resumes warps[i] for the bits i of
 * todo in increasing order while each suspends at bar.sync 0 of the whole
 * block (nthreads threads) or ends with ZN_KSTATUS_OK (its bit set in
 * *ended, always written); -1 when all did, else the first warp that
 * returned otherwise (failed, yielded, other barrier): it has been
 * resumed, the later ones not. */
typedef int32_t (*zn_batch_fn)(zn_warp_ctx *warps, uint32_t todo, uint32_t nthreads,
                               uint32_t *ended);

#endif
