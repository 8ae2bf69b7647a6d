/* zn_exec.h: the CPU device model: device memory, the worker pool, launches.
 *
 * The executor knows the kernel ABI (zn_kernel_abi.h) and nothing of PTX or
 * of the driver API. Device memory is host memory inside one reserved
 * virtual range, so device pointers are plain host pointers and finding the
 * allocation that holds an address is a lookup.
 */
#ifndef ZN_EXEC_H
#define ZN_EXEC_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <stdatomic.h>
#include <pthread.h>
#include "zn_kernel_abi.h"

/* Starts the worker pool (nthreads 0 = ZINC_THREADS or one per core) and
 * reserves the device range. Idempotent; 0 on success. */
int zn_exec_init(unsigned nthreads);
unsigned zn_exec_threads(void);

/* ---- device memory ---- */
typedef enum zn_mem_kind {
    ZN_MEM_DEVICE = 1,      /* cuMemAlloc */
    ZN_MEM_HOST = 2,        /* cuMemHostAlloc / cuMemAllocHost (pinned) */
    ZN_MEM_MANAGED = 3,     /* cuMemAllocManaged */
    ZN_MEM_MODULE = 4,      /* a module's .global/.const variables */
    ZN_MEM_RESERVED = 5     /* a virtual range (zn_mem_reserve); lookups
                             * answer for its mapped parts as DEVICE */
} zn_mem_kind;

/* Zeroed? No: contents are undefined as on a GPU (fresh pages read 0).
 * Returns NULL when out of memory. align: 0 = 256. */
void *zn_mem_alloc(size_t size, size_t align, zn_mem_kind kind);
/* 0 on success, -1 if p is not the start of a live allocation. */
int zn_mem_free(void *p);
/* Finds the live allocation containing p: 0 and its base/size/kind, or -1. */
int zn_mem_lookup(const void *p, void **base, size_t *size, zn_mem_kind *kind);
/* Whether p lies in the reserved device range (live or not): such an
 * address is never host memory, so an unallocated one is an error. */
bool zn_mem_in_device_range(const void *p);
/* how many of the n bytes from p lie in live allocations, without a gap */
size_t zn_mem_live_prefix(const void *p, size_t n);
/* Bytes in use and the device's total (reported) memory. */
void zn_mem_info(size_t *used, size_t *total);

/* ---- ZINC_CHECK (zn_exec_check.c, docs/memcheck.md) ---- */
enum { ZN_CHECK_MEMCHECK = 1, ZN_CHECK_LEAKS = 2, ZN_CHECK_RACECHECK = 4 };
/* The ZINC_CHECK list as bits (memcheck, leaks, racecheck); read once. */
unsigned zn_check_mode(void);
/* Host memory kernels may reach through mapped pointers (registered host
 * ranges): good addresses for memcheck. No-ops unless memcheck is on. */
void zn_check_host_add(uintptr_t p, size_t n);
void zn_check_host_remove(uintptr_t p);

/* ---- virtual memory: reserved ranges and physical allocations mapped
 * into them (cuMemAddressReserve / cuMemCreate / cuMemMap) ---- */
enum { ZN_VMM_PROT_NONE = 0, ZN_VMM_PROT_READ = 1, ZN_VMM_PROT_READWRITE = 3 };
/* A page-aligned range inside the device range, never committed; at `hint`
 * when that range is free. NULL when none fits. */
void *zn_mem_reserve(size_t size, size_t align, uintptr_t hint);
/* Gives back a whole reservation (size 0: whatever its size); -1 if p does
 * not start one. Mappings left inside are dropped. */
int zn_mem_unreserve(void *p, size_t size);
/* 0 when [p, p+n) lies inside one reservation (its base and size out). */
int zn_mem_reserved_at(const void *p, size_t n, void **base, size_t *size);
/* Physical memory: a file descriptor of `size` bytes, counted as used. */
int zn_vmm_phys_create(size_t size);
void zn_vmm_phys_release(int fd, size_t size);
/* Maps fd at [p, p+size) (inside a reservation, not overlapping another
 * mapping), inaccessible until zn_vmm_protect. cookie is the caller's. */
int zn_vmm_map(void *p, size_t size, int fd, size_t offset, void *cookie);
/* [p, p+size) must be exactly a run of whole mappings. */
int zn_vmm_unmap(void *p, size_t size);
int zn_vmm_protect(void *p, size_t size, int prot);
/* The mapping that contains p: 0 and its base, size, cookie, protection. */
int zn_vmm_query(const void *p, void **base, size_t *size, void **cookie, int *prot);
bool zn_vmm_any_in(const void *p, size_t size);

/* ---- interprocess sharing (zn_exec_mem.c; cuIpc*, external memory) ---- */
typedef struct zn_mem_shared {
    void *base;         /* the allocation */
    size_t size;        /* as requested */
    size_t span;        /* bytes of the memfd: its committed pages */
    int fd;             /* owned by the allocation: closed when it is freed */
    uint64_t tag;       /* the memfd is named zinc-ipc-<tag as 16 hex digits> */
} zn_mem_shared;
/* Makes the cuMemAlloc allocation containing p shareable in place (first
 * call: its pages move into a memfd named after tag, mapped over the same
 * addresses; later calls answer with the same memfd and tag). The caller
 * makes sure no kernel or copy touches it meanwhile. -1 if p is not in a
 * ZN_MEM_DEVICE allocation or the memfd cannot be made. */
int zn_mem_share(const void *p, uint64_t tag, zn_mem_shared *out);
/* Maps size bytes of fd from offset, read-write, at a new reservation in the
 * device range (followed by a guard page), registered as a VMM mapping with
 * cookie; the address or NULL. zn_mem_unmap_fd gives it back. */
void *zn_mem_map_fd(int fd, size_t size, size_t offset, void *cookie);
int zn_mem_unmap_fd(void *p, size_t size);

/* ---- ordered work queues (streams): one thread each, items in order ---- */
typedef struct zn_queue zn_queue;
typedef void (*zn_queue_fn)(void *arg);
/* A queue from the pool (its thread starts at the first push). */
zn_queue *zn_queue_get(void);
/* Returns it to the pool once what it holds has run (does not wait). */
void zn_queue_put(zn_queue *q);
/* Appends fn(arg); returns its ticket (1, 2, ...), 0 if out of memory. */
uint64_t zn_queue_push(zn_queue *q, zn_queue_fn fn, void *arg);
/* The ticket of the last item pushed (or run inline). */
uint64_t zn_queue_last(zn_queue *q);
/* Has the item with this ticket (and everything before it) finished? */
bool zn_queue_done(zn_queue *q, uint64_t ticket);
/* Blocks until it has; spin: poll briefly before sleeping. */
void zn_queue_wait(zn_queue *q, uint64_t ticket, bool spin);
/* On an idle queue, claims the next ticket for work the caller runs itself
 * (then zn_queue_inline_end); 0 if the queue is busy. */
uint64_t zn_queue_inline_begin(zn_queue *q);
void zn_queue_inline_end(zn_queue *q, uint64_t ticket);

/* ---- device-side launches (dynamic parallelism, zn_exec_cdp.c) ----
 * A grid's kernels may launch grids (and queue copies and sets) through the
 * device runtime API. They go on the launch's work list, in the order the
 * threads launched them, and the launcher runs them after the grid (with
 * a list of their own, nesting one deeper): a parent grid is not complete
 * before its children are, and nothing a program may rely on runs a child
 * while its parent still runs (CUDA 12's device runtime has no way to wait
 * for a child). */
enum { ZN_CDP_WORK_KERNEL, ZN_CDP_WORK_COPY, ZN_CDP_WORK_SET };
/* A copy's or set's memory: d slices of h rows of n bytes (1 and 1 for a
 * flat one), rows pitch bytes apart and slices slice bytes apart on each
 * side (src: NULL for a set). */
typedef struct zn_cdp_region {
    void *dst;
    const void *src;
    size_t n, h, d;
    size_t dpitch, spitch, dslice, sslice;
} zn_cdp_region;
#define ZN_CDP_PARAM_BYTES 4096     /* a device launch's parameters, at most */
#define ZN_CDP_MAX_DEPTH 24         /* cudaLimitDevRuntimeSyncDepth's ceiling */
typedef struct zn_cdp_work {
    struct zn_cdp_work *all_next;   /* every buffer handed out */
    struct zn_cdp_work *next;       /* launched work, in order */
    int kind;                       /* ZN_CDP_WORK_* */
    const char *func;               /* kernel: its name (zn_lower_operand.c) */
    uint32_t grid[3], block[3], shmem;
    zn_cdp_region r;                /* copy, set */
    int byte;                       /* set */
    _Alignas(16) unsigned char params[];
} zn_cdp_work;
typedef struct zn_cdp_list {
    pthread_mutex_t lock;
    zn_cdp_work *all, *head, **tail;
    unsigned depth;                 /* 0: the host launched this grid */
    struct zn_cdp_err *errs;        /* threads' last errors (cudaGetLastError) */
    uint32_t nerrs, cap_errs;
    /* The driver's check of a launch of kernel `func` with this shape: 0
     * (cudaSuccess) or the cudaError_t the device-side launch returns. */
    int (*check)(void *host, const char *func, const uint32_t grid[3],
                 const uint32_t block[3], uint32_t shmem);
    void *host;
    /* The queries the driver answers (ZN_CDP_DEVICE_ATTRIBUTE, _FUNC_ATTRIBUTES,
     * _OCCUPANCY, _DEVICE_LIMIT, _CACHE_CONFIG, _SHMEM_CONFIG): writes the
     * answer through args[0]; 0 or the cudaError_t. */
    int (*query)(void *host, uint32_t op, const uint64_t *args);
} zn_cdp_list;
void zn_cdp_list_init(zn_cdp_list *q, unsigned depth,
                      int (*check)(void *, const char *, const uint32_t *,
                                   const uint32_t *, uint32_t),
                      int (*query)(void *, uint32_t, const uint64_t *), void *host);
/* Frees the list's work (after the launcher has run it). */
void zn_cdp_list_fini(zn_cdp_list *q);

/* The device heap of in-kernel malloc and device cudaMalloc: a context's
 * CU_LIMIT_MALLOC_HEAP_SIZE. Blocks are host memory (malloc); the heap
 * counts their bytes (with a 16-byte header each) against the limit, so a
 * kernel gets NULL where a GPU's heap would be full. The limit is fixed once
 * a kernel has allocated (cuCtxSetLimit then fails, as CUDA's does). */
typedef struct zn_dev_heap {
    _Atomic size_t used;
    _Atomic size_t limit;       /* 0: none */
    atomic_bool fixed;
} zn_dev_heap;

/* ---- launches ---- */
typedef struct zn_launch {
    zn_kernel_fn fn;
    zn_batch_fn batch;          /* uses_barrier 2: resumes warps (NULL: through
                                 * the frame's resume pointer) */
    zn_batch_fn start;          /* uses_barrier 2: starts warps (NULL: fn each) */
    uint32_t grid[3];
    uint32_t block[3];
    uint32_t static_shared;
    uint32_t dyn_shared;
    uint32_t stack_bytes;       /* per warp; 0 = default */
    int uses_barrier;           /* 1: warps on fibers; 2: a coroutine kernel */
    int polls;                  /* waits on flags of earlier blocks: hand
                                 * blocks out one at a time, in order */
    const void *params;         /* packed parameter buffer (copied by caller
                                 * if it must outlive the call) */
    /* Optional: when it reads nonzero (the context was poisoned by another
     * grid's fault) zn_exec_launch's grid stops before its next block and
     * the launch returns ZN_KSTATUS_ABORTED. */
    const _Atomic int *abort;
    /* Thread block clusters: blocks per cluster in x, y, z (0 or 1 each:
     * none); the grid must be a multiple. cluster_explicit: the kernel or
     * the launch named a cluster shape (%is_explicit_cluster). */
    uint32_t cluster[3];
    int cluster_explicit;
    /* Optional: where device-side launches go (NULL: they fail with
     * cudaErrorNotSupported). */
    zn_cdp_list *cdp;
    /* At most this many workers (SMs) run the grid's blocks, the launching
     * thread included (a green context's partition); 0: all. */
    uint32_t max_workers;
    /* Optional: the heap in-kernel malloc draws from (NULL: no limit). */
    zn_dev_heap *heap;
} zn_launch;

/* Returned by zn_exec_launch (never by a kernel) for a launch it refuses:
 * no function, a zero dimension, more than 1024 threads per block. */
#define ZN_KSTATUS_INVALID_LAUNCH 64
/* Returned by zn_exec_launch when l->abort stopped the grid early. */
#define ZN_KSTATUS_ABORTED 65

/* Runs the whole grid and returns when it has finished: ZN_KSTATUS_OK or
 * the first error status a warp returned. Any number of threads may launch
 * at once: their grids share the worker pool and run concurrently. */
int zn_exec_launch(const zn_launch *l);

/* fn(arg, i) for every i < n, spread over the worker pool and the calling
 * thread; returns when all have returned. For host work (the BLAS
 * libraries' GEMM panels) that should share the CPUs with kernels. */
void zn_exec_parallel(uint64_t n, void (*fn)(void *arg, uint64_t i), void *arg);

/* A cooperative launch (cuLaunchCooperativeKernel): every block is alive
 * at once, each on its own thread, so grid.sync() (a spin on a counter in
 * the grid workspace the blocks see as %envreg1:%envreg2) can complete.
 * The caller bounds the grid (co-residency check). Same results as
 * zn_exec_launch (zn_exec_coop.c). */
int zn_exec_launch_coop(const zn_launch *l);

/* A launch with clusters of more than one block (zn_exec_launch calls it
 * when l->cluster asks for one): the blocks of a cluster run at once, one
 * thread each, so cluster barriers and distributed shared memory work
 * (zn_exec_cluster.c). */
int zn_exec_launch_cluster(const zn_launch *l);

#endif
