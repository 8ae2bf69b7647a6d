/* zn_drv.h: the driver layer's private interface (shared by its files).
 *
 * Objects behind the CUDA handles, the device description, and the helpers
 * every entry point uses: init and context checks, sticky errors, logging
 * of each call's result (ZINC_LOG=3).
 */
#ifndef ZN_DRV_H
#define ZN_DRV_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include "zn_cuda.h"
#include "../compile/zn_compile.h"
#include "../exec/zn_exec.h"
#include "../ptx/ptx_ir.h"

#define ZN_DRIVER_VERSION 13000
#define ZN_NDEVICES 1

/* Handle magics: a handle whose first word differs is not ours. */
enum {
    ZN_MAGIC_CTX = 0x5a637478,      /* "Zctx" */
    ZN_MAGIC_MODULE = 0x5a6d6f64,   /* "Zmod" */
    ZN_MAGIC_LIBRARY = 0x5a6c6962,  /* "Zlib" */
    ZN_MAGIC_FUNC = 0x5a66756e,     /* "Zfun" */
    ZN_MAGIC_STREAM = 0x5a737472,   /* "Zstr" */
    ZN_MAGIC_EVENT = 0x5a65766e,    /* "Zevn" */
    ZN_MAGIC_GRAPH = 0x5a677268,    /* "Zgrh" */
    ZN_MAGIC_GNODE = 0x5a676e64,    /* "Zgnd" */
    ZN_MAGIC_GEXEC = 0x5a676578,    /* "Zgex" */
    ZN_MAGIC_PHYS = 0x5a706879,     /* "Zphy" */
    ZN_MAGIC_ARRAY = 0x5a617272,    /* "Zarr" */
    ZN_MAGIC_UOBJ = 0x5a756f62,     /* "Zuob" */
    ZN_MAGIC_MIPMAP = 0x5a6d6970,   /* "Zmip" */
    ZN_MAGIC_GREEN = 0x5a67726e,    /* "Zgrn" */
    ZN_MAGIC_RESDESC = 0x5a726473,  /* "Zrds" */
    ZN_MAGIC_IPCMAP = 0x5a69706d    /* "Zipm": an IPC or external mapping */
};

/* ---- handle memory (zn_drv_handle.c): blocks are recycled per kind and
 * never freed, so a destroyed handle reads as invalid, not as freed memory */
typedef enum zn_handle_kind {
    ZN_HANDLE_CTX, ZN_HANDLE_MODULE, ZN_HANDLE_LIBRARY, ZN_HANDLE_STREAM,
    ZN_HANDLE_EVENT, ZN_HANDLE_GRAPH, ZN_HANDLE_GNODE, ZN_HANDLE_GEXEC, ZN_HANDLE_PHYS,
    ZN_HANDLE_ARRAY, ZN_HANDLE_TEXOBJ, ZN_HANDLE_UOBJ, ZN_HANDLE_MIPMAP, ZN_HANDLE_GREEN,
    ZN_HANDLE_RESDESC,
    ZN_HANDLE_KINDS
} zn_handle_kind;
void *zn_handle_new(zn_handle_kind k, size_t size);          /* zeroed */
void zn_handle_retire(zn_handle_kind k, void *p, size_t size);
/* Variable-size blocks handles point into (a module's kernel table). */
void zn_handle_bury(void *p, size_t size);

/* ---- device (zn_drv_device.c) ---- */
typedef struct zn_sm_limits {
    int cc;                 /* 75, 80, 86, ... */
    int smem_optin;         /* max shared bytes per block with opt-in */
    int smem_per_sm;
    int threads_per_sm;
    int blocks_per_sm;
} zn_sm_limits;

typedef struct zn_dev {
    char name[256];
    int cc_major, cc_minor;
    int sm_count;
    int clock_khz;
    int l2_bytes;
    int pci_domain, pci_bus, pci_device;
    size_t total_mem;
    CUuuid uuid;
    const zn_sm_limits *sm;
} zn_dev;

extern zn_dev zn_drv_dev;
/* Fills zn_drv_dev (idempotent; cuInit calls it). */
void zn_dev_init(void);
unsigned zn_dev_cc(void);   /* e.g. 86 */
CUresult zn_dev_attr(int *pi, int attrib);

/* ---- init and call logging (zn_drv_error.c) ---- */
extern atomic_int zn_drv_inited;
CUresult zn_drv_ret(const char *fn, CUresult r);
#define ZN_RET(r) return zn_drv_ret(__func__, (r))
#define ZN_CHECK_INIT() do { if (!atomic_load_explicit(&zn_drv_inited, \
        memory_order_acquire)) ZN_RET(CUDA_ERROR_NOT_INITIALIZED); } while (0)
const char *zn_drv_error_name(CUresult r);

/* ---- contexts (zn_drv_ctx.c) and context-local storage (zn_drv_cls.c) ---- */
#define ZN_CLS_MAX 64
typedef struct zn_cls_entry {
    void *key;
    void *value;
    void (*dtor)(CUcontext, void *, void *);
} zn_cls_entry;

typedef struct zn_ctx {
    uint32_t magic;
    CUdevice device;
    bool is_primary;
    bool active;                /* primary: retained at least once */
    int retain;                 /* primary: retain count */
    unsigned flags;
    unsigned long long id;
    atomic_int sticky;          /* first kernel error; returned by later calls */
    size_t limits[CU_LIMIT_MAX];
    int cache_config, shmem_config;
    pthread_mutex_t cls_lock;
    zn_cls_entry cls[ZN_CLS_MAX];
    int ncls;
    /* streams: the legacy default stream and every other live stream, for
     * the legacy stream's implicit synchronisation and cuCtxSynchronize */
    pthread_mutex_t stream_lock;
    struct zn_stream *legacy;
    struct zn_stream *streams;
    /* context-wide events (cuCtxRecordEvent/cuCtxWaitEvent, zn_drv_submit.c):
     * a stream of no program's own that records after every stream's work,
     * and the ticket of it that new streams wait for (0: none) */
    struct zn_stream *gate;
    uint64_t gate_wait;
    /* green contexts (zn_drv_green.c): the one this context is the converted
     * form of, and the SMs (executor workers) its grids may use (0: all);
     * in the primary context, its green contexts */
    struct zn_green *green;
    unsigned sm_limit;
    struct zn_green *greens;
    zn_dev_heap heap;           /* in-kernel malloc (CU_LIMIT_MALLOC_HEAP_SIZE) */
} zn_ctx;

zn_ctx *zn_ctx_primary(CUdevice dev);
/* A context that is not made current, and its destruction (its streams and
 * work first); for cuCtxCreate/Destroy and green contexts. */
zn_ctx *zn_ctx_new(unsigned flags, CUdevice dev);
void zn_ctx_free(zn_ctx *c);
zn_ctx *zn_ctx_current(void);
bool zn_ctx_valid(const zn_ctx *c);
/* Current context for an API call that works in one: checks init, that a
 * context is current, and returns its sticky error if it has one. */
CUresult zn_ctx_enter(zn_ctx **out);
#define ZN_ENTER(ctx) zn_ctx *ctx; do { CUresult r_ = zn_ctx_enter(&ctx); \
        if (r_ != CUDA_SUCCESS) ZN_RET(r_); } while (0)
void zn_ctx_set_sticky(zn_ctx *c, CUresult r);
void zn_cls_run_dtors(zn_ctx *c);
CUresult zn_cls_put(CUcontext ctx, void *key, void *value,
                    void (*dtor)(CUcontext, void *, void *));
CUresult zn_cls_delete(CUcontext ctx, void *key);
CUresult zn_cls_get(void **value, CUcontext ctx, void *key);

/* ---- streams (zn_drv_stream.c) and events (zn_drv_event.c) ---- */
struct zn_queue;
struct zn_capture;
struct zn_gnode;
typedef struct zn_func zn_func;

/* A set of graph nodes: what the next captured node depends on. */
typedef struct zn_nodeset {
    struct zn_gnode **v;
    size_t n, cap;
} zn_nodeset;

enum { ZN_STREAM_USER, ZN_STREAM_LEGACY, ZN_STREAM_PER_THREAD };

#define ZN_CAPEDGES_MAX 16
typedef struct zn_stream {
    uint32_t magic;
    zn_ctx *ctx;
    unsigned flags;
    int priority;
    int kind;                   /* ZN_STREAM_* */
    unsigned long long id;
    struct zn_queue *q;         /* the executor's ordered queue */
    struct zn_stream *next, *prev;  /* ctx->streams */
    /* capture (zn_drv_capture.c): the capture it belongs to, and the nodes
     * the next captured operation depends on */
    struct zn_capture *cap;
    zn_nodeset deps;
    /* non-default edge data from deps' nodes to the next captured node
     * (cuStreamBeginCaptureToGraph, cuStreamUpdateCaptureDependencies_v2,
     * programmatic launches); edata_out: cuStreamGetCaptureInfo_v3's array */
    struct zn_capedge { struct zn_gnode *n; CUgraphEdgeData d; } capedges[ZN_CAPEDGES_MAX];
    unsigned ncapedges;
    CUgraphEdgeData *edata_out;
    size_t edata_cap;
} zn_stream;

typedef struct zn_event {
    uint32_t magic;
    zn_ctx *ctx;
    unsigned flags;
    /* the last record: its queue and ticket, and the generation that its
     * record item must still match to write the timestamp */
    struct zn_queue *q;
    uint64_t ticket;
    _Atomic uint64_t gen;
    _Atomic uint64_t ns;        /* when the stream reached the record */
    bool recorded;
    /* recorded in a capture: the capture (live while its id matches) and
     * the nodes the record stands for */
    struct zn_capture *cap;
    unsigned long long cap_id;
    zn_nodeset deps;
    /* a programmatic event recorded in a capture: the kernel port (1 or 2)
     * of the programmatic edges its waiters get (0: plain edges) */
    unsigned char cap_port;
    /* CU_EVENT_INTERPROCESS: the state shared with other processes
     * (zn_drv_ipc_event.c); records, queries and waits go through it */
    struct zn_ipc_event *ipc;
} zn_event;

/* NULL, CU_STREAM_LEGACY, CU_STREAM_PER_THREAD or a live stream. */
bool zn_stream_valid(CUstream s);
/* The stream a handle names in the current context; NULL handles mean the
 * legacy stream, or the thread's own with per_thread (_ptsz/_ptds). */
zn_stream *zn_stream_get(CUstream s, bool per_thread);
/* Enters the current context and resolves h: INVALID_HANDLE if h is not a
 * stream. */
CUresult zn_stream_enter(CUstream h, bool pt, zn_stream **out);
/* cuCtxDestroy, once the context's work has run: frees its legacy and user
 * streams; per-thread streams are unlinked and left to their threads. */
void zn_stream_ctx_destroy(zn_ctx *c);
bool zn_event_valid(CUevent e);
/* The error for a handle that is not a live stream (event): NVIDIA's driver
 * answers CONTEXT_IS_DESTROYED for a live event passed as a stream and a live
 * stream passed as an event (measured on an H200, driver 580), INVALID_HANDLE
 * for anything else. */
CUresult zn_stream_bad(CUstream h);
CUresult zn_event_bad(CUevent e);
uint64_t zn_event_new_gen(void);
uint64_t zn_now_ns(void);

/* ---- operations: the unit of stream and graph work (zn_drv_op.c) ---- */
typedef enum zn_op_kind {
    ZN_OP_EMPTY, ZN_OP_KERNEL, ZN_OP_COPY, ZN_OP_SET, ZN_OP_HOST, ZN_OP_CALLBACK,
    ZN_OP_EVENT_RECORD, ZN_OP_EVENT_WAIT, ZN_OP_QUEUE_WAIT, ZN_OP_WAIT_VALUE,
    ZN_OP_WRITE_VALUE
} zn_op_kind;

typedef struct zn_op {
    zn_op_kind kind;
    zn_ctx *ctx;
    size_t extra;               /* bytes of data[] */
    union {
        struct { const zn_func *f; unsigned g[3], b[3], shmem; bool coop;
                 unsigned cl[3]; bool cl_explicit; } k;  /* params: data; cl: cluster dims */
        struct { char *dst; const char *src; size_t w, h, d, dpitch, dslice, spitch, sslice;
                 bool src_pageable, dst_pageable;
                 /* a sparse array side: its level and the box's origin (x in
                  * bytes, y, slice); src/dst unused on that side */
                 const struct zn_sparse_level *ssp, *dsp;
                 size_t sorg[3], dorg[3]; } cp;
        struct { char *dst; size_t pitch; uint32_t v; unsigned elem; size_t w, h; } set;
        struct { CUhostFn fn; void *user; } host;
        struct { CUstreamCallback cb; void *user; CUstream handle; } cb;
        struct { zn_event *e; uint64_t gen; } ev;           /* record, wait */
        struct { struct zn_queue *q; uint64_t ticket; } qw;
        struct { void *addr; uint64_t v; unsigned flags; int bits; } val;
    } u;
    _Alignas(16) uint8_t data[];
} zn_op;

zn_op *zn_op_new(zn_op_kind kind, size_t extra);
zn_op *zn_op_clone(const zn_op *op);
/* Runs it (on a stream's thread or inline); does not free it. */
void zn_op_run(zn_op *op);
/* A kernel op's grid, then the grids it launched from the device; depth:
 * how many grids launched it (0: the host did). */
void zn_op_run_kernel(zn_op *op, unsigned depth);
/* Device-side launches (zn_drv_cdp.c): zn_cdp_list's check and query, with
 * the launching kernel's op as host, and the run of a grid's list. */
int zn_cdp_check(void *op, const char *func, const uint32_t *grid, const uint32_t *block,
                 uint32_t shmem);
int zn_cdp_query(void *op, uint32_t what, const uint64_t *args);
struct zn_cdp_list;
void zn_cdp_run(const zn_op *parent, struct zn_cdp_list *q);
/* Kernel op with the parameters packed (kernelParams or extra). */
CUresult zn_op_kernel(zn_op **out, const zn_func *f, const unsigned g[3], const unsigned b[3],
                      unsigned shmem, void **params, void **extra);
/* ---- CUDA arrays (zn_drv_array.c): one linear host buffer each, rows of
 * Width elements packed (pitch = Width * element size), max(Height, 1) rows
 * a slice, max(Depth, 1) slices (the depth or the layers) ---- */
typedef struct zn_array {
    uint32_t magic;                 /* ZN_MAGIC_ARRAY */
    CUDA_ARRAY3D_DESCRIPTOR desc;   /* as created */
    uint32_t csize, esize;          /* bytes per channel, per element */
    size_t pitch, rows, slices;
    uint8_t *data;
    bool mip_level;                 /* a level of a mipmapped array: not destroyable */
    struct zn_array *plane[3];      /* planar formats: views into data (zn_drv_array_planar.c) */
    struct zn_array *plane_of;      /* a plane view: its parent (not destroyable, data not owned) */
    struct zn_sparse *sparse;       /* CUDA_ARRAY3D_SPARSE: its tiles (data is NULL) */
} zn_array;
zn_array *zn_array_get(CUarray a);  /* NULL unless a live array */
/* Mipmapped arrays (zn_drv_mipmap.c): level i is max(1, dim >> i). */
#define ZN_MIP_MAX_LEVELS 17
typedef struct zn_mipmap {
    uint32_t magic;                 /* ZN_MAGIC_MIPMAP */
    unsigned nlevels;
    zn_array *level[ZN_MIP_MAX_LEVELS];
} zn_mipmap;
zn_mipmap *zn_mipmap_get(CUmipmappedArray m); /* NULL unless a live one */
/* A new array over a zeroed buffer of slices x rows x pitch bytes, desc
 * and sizes set; not live until the caller sets its magic. NULL: out of
 * memory. */
zn_array *zn_array_alloc(const CUDA_ARRAY3D_DESCRIPTOR *d, uint32_t csize, uint32_t esize,
                         size_t pitch, size_t rows, size_t slices);
/* Creates / frees an array (zn_drv_array.c); the mipmap's levels use them. */
CUresult zn_array_create(CUarray *out, const CUDA_ARRAY3D_DESCRIPTOR *d);
void zn_array_free(zn_array *a);
/* CUDA_ARRAY3D_SPARSE's extra checks at creation (zn_drv_sparse.c). */
CUresult zn_sparse_check(const CUDA_ARRAY3D_DESCRIPTOR *d);
/* The tile tables of a sparse array's levels (one level for a plain
 * array), every tile not resident; frees one level's (its tiles' physical
 * allocations released). */
CUresult zn_sparse_init(zn_array **level, unsigned nlevels);
void zn_sparse_free(zn_array *a);
/* A level's tiles as the sampler and copies read them (NULL: not sparse). */
const struct zn_sparse_level *zn_sparse_view(const zn_array *a);
/* Runs a copy op with a sparse side (zn_drv_sparse_map.c). */
void zn_sparse_copy(const zn_op *op);
/* Physical allocations as tile pools (zn_drv_vmm.c): checks that h is a
 * cuMemCreate handle made with CU_MEM_CREATE_USAGE_TILE_POOL (its size
 * out) and takes a reference; the bytes' host address, mapped on first
 * use (NULL if that fails); references taken and given back. */
CUresult zn_phys_tile_pool(CUmemGenericAllocationHandle h, size_t *size, void **phys);
uint8_t *zn_phys_view(void *phys);
void zn_phys_ref(void *phys);
void zn_phys_unref(void *phys);
/* Bytes per channel of a format, 0 if Zinc does not support it. */
uint32_t zn_array_format_size(CUarray_format f);
/* Planar (video) formats (zn_drv_array_planar.c): is f one; create such an
 * array (planes made at once, aliasing its buffer); free its plane views. */
bool zn_array_planar_is(CUarray_format f);
CUresult zn_array_planar_create(CUarray *out, const CUDA_ARRAY3D_DESCRIPTOR *d);
void zn_array_planar_free(zn_array *a);
/* Packed (video) formats (zn_drv_array_packed.c): is f one; create such an
 * array; the raw channel format and count a surface sees its elements as. */
bool zn_array_packed_is(CUarray_format f);
CUresult zn_array_packed_create(CUarray *out, const CUDA_ARRAY3D_DESCRIPTOR *d);
bool zn_array_packed_raw(CUarray_format f, CUarray_format *raw, unsigned *nch);
/* Copy op from a 3D description (checks both sides). */
CUresult zn_op_copy3d(zn_op **out, const CUDA_MEMCPY3D *p);
CUresult zn_op_set(zn_op **out, CUdeviceptr dst, size_t pitch, uint32_t v, unsigned elem,
                   size_t w, size_t h);

/* ---- submission (zn_drv_submit.c): every enqueueing call ends here ----
 * Captured when the stream is capturing (the op becomes a graph node);
 * else queued behind the implicit dependencies of the legacy stream. sync:
 * return only when done (run inline when the stream is idle). Takes the op
 * in every case. */
CUresult zn_submit(zn_stream *s, zn_op *op, bool sync);
/* Waits for everything submitted so far to s (the legacy stream: to every
 * blocking stream too); returns the context's sticky error. */
CUresult zn_stream_wait_all(zn_stream *s);
CUresult zn_ctx_wait_all(zn_ctx *c);
/* Queued work that has not finished? */
bool zn_stream_busy(zn_stream *s);
/* A stream in no list (no implicit synchronisation), freed with the context:
 * the context's gate (zn_drv_stream.c). Under c->stream_lock. */
zn_stream *zn_stream_unlisted(zn_ctx *c);
/* cuStreamCreateWithPriority in context c. */
CUresult zn_stream_create(zn_ctx *c, unsigned flags, int priority, CUstream *ps);
/* Under c->stream_lock: a stream joining the context waits for the
 * context-wide waits so far (cuCtxWaitEvent). */
void zn_stream_gate_wait(zn_stream *s);
/* cuCtxRecordEvent / cuCtxWaitEvent on a valid context and its event. */
CUresult zn_ctx_record_event(zn_ctx *c, zn_event *e);
CUresult zn_ctx_wait_event(zn_ctx *c, zn_event *e);
/* fn on each green context of the primary context (zn_drv_green.c), under
 * the primary's stream lock. */
void zn_green_each_ctx(zn_ctx *primary, void (*fn)(zn_ctx *, void *), void *arg);

/* ---- memory (zn_drv_mem.c) ---- */
/* [p, p+n) lies inside one live device allocation (or registered range). */
bool zn_mem_range_ok(CUdeviceptr p, size_t n);
/* Host memory that stays valid and pinned: pinned allocations, registered
 * ranges and device-range memory (managed, module variables). */
bool zn_mem_is_pinned(const void *p);
/* Pools (zn_drv_pool.c): cuMemFree of p. 1: p was a pool allocation, now
 * forgotten (the caller frees it); -1: p is a block the pool already got
 * back (a double free); 0: not pool memory. */
int zn_pool_on_free(void *p);
/* Managed-memory advice and prefetch locations (zn_drv_range.c). loc:
 * CUmemLocation; the range must be managed memory, else INVALID_VALUE. */
CUresult zn_range_advise(CUdeviceptr p, size_t n, int advice, CUmemLocation loc);
CUresult zn_range_prefetched(CUdeviceptr p, size_t n, CUmemLocation loc);
CUresult zn_range_check_loc(CUmemLocation *loc);  /* validates, normalises */
void zn_range_forget(void *base);                   /* the allocation is freed */
/* Driver log (zn_drv_logs.c): a failed call, kept for cuLogs*. */
void zn_logs_note(const char *fn, CUresult r);

/* ---- modules (zn_drv_module.c) ---- */
typedef struct zn_image {
    ptx_module *ptx;
    zn_jit_module *jit;
    zn_global_addr *globals;    /* module-scope .global/.const variables */
    uint64_t *gsizes;
    uint32_t nglobals;
} zn_image;

struct zn_func {
    uint32_t magic;
    struct zn_module *mod;
    const zn_kernel_info *ki;
    zn_jit_module *jit;         /* compiles ki on first launch */
    const char *name;
    uint32_t const_bytes;       /* .const variables of its PTX image */
    int max_dyn_shared;         /* CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES */
    int carveout;
    int cache_config;
    /* thread block clusters (zn_drv_cluster.c): REQUIRED_CLUSTER_WIDTH/
     * HEIGHT/DEPTH (0: not set), NON_PORTABLE_CLUSTER_SIZE_ALLOWED,
     * CLUSTER_SCHEDULING_POLICY_PREFERENCE */
    unsigned req_cluster[3];
    int cluster_nonportable;
    int cluster_policy;
    /* cuFuncSetBlockShape/cuParamSet* state for cuLaunchGrid (zn_drv_legacy.c):
     * allocated on first use, freed with the module */
    struct zn_legacy_launch *legacy;
};

typedef struct zn_module {
    uint32_t magic;
    zn_ctx *ctx;
    zn_image *imgs;
    unsigned nimgs;
    zn_func *funcs;
    unsigned nfuncs;
    unsigned sm;                /* target of the PTX that was chosen */
    struct zn_library *lib;     /* the library that wraps it (cuKernelGetLibrary) */
} zn_module;

typedef struct zn_library {
    uint32_t magic;
    zn_module *mod;
} zn_library;

bool zn_func_valid(const zn_func *f);
/* Compiles f's kernel if it is not yet (lazy loading, zn_drv_func.c): its
 * code for blocks of shape block (NULL: any shape; zn_jit_kernel_code),
 * into *code when not NULL. */
CUresult zn_func_code(const zn_func *f, const unsigned block[3], zn_kernel_code *code);
static inline CUresult zn_func_ready(const zn_func *f)
{
    return zn_func_code(f, NULL, NULL);
}
/* The legacy launch state of f's module, freed at unload (zn_drv_legacy.c). */
void zn_legacy_free(zn_module *m);
/* Module argument checks for zn_drv_module.c (zn_drv_modcheck.c). */
CUresult zn_jit_options_check(unsigned n, const CUjit_option *opts, void *const *vals);
bool zn_module_var_managed(const zn_module *m, const char *name);
/* Blocks of f with threads threads and dsmem dynamic shared bytes that can
 * be resident at once on the whole device (SMs x occupancy per SM): the
 * largest cooperative grid (zn_drv_func.c). */
uint64_t zn_func_coresident_blocks(const zn_func *f, uint64_t threads, size_t dsmem);
/* Thread block clusters (zn_drv_cluster.c): the cluster shape of a launch
 * of f on grid g: the launch attribute `attr` (NULL: none), else the
 * function's required cluster attributes, else the kernel's
 * .reqnctapercluster, else none ({1,1,1}); checked against the grid and
 * the size limits (8 portable, 16 non-portable), and with need_shape a
 * .explicitcluster kernel must get one: CUDA_ERROR_INVALID_CLUSTER_SIZE
 * when they do not hold. */
CUresult zn_cluster_resolve(const zn_func *f, const unsigned g[3], const unsigned *attr,
                            bool need_shape, unsigned out[3], bool *explicit_cluster);
/* Launch configuration check (zn_drv_launch.c). */
CUresult zn_launch_check(const zn_func *f, const unsigned g[3], const unsigned b[3],
                         unsigned shmem);
CUresult zn_launch_pack(const zn_kernel_info *ki, void **params, void **extra, uint8_t *buf);
CUresult zn_kstatus_error(int st);

/* ---- graphs (zn_drv_graph.c, zn_drv_graph_exec.c, zn_drv_capture.c) ---- */
typedef struct zn_gnode {
    uint32_t magic;
    struct zn_graph *graph;
    CUgraphNodeType type;
    zn_op *op;                  /* kernel, memcpy, memset, host, event ops */
    struct zn_graph *child;     /* CU_GRAPH_NODE_TYPE_GRAPH: its own copy */
    CUDA_MEMCPY3D copy;         /* as given, for get-params */
    CUDA_MEMSET_NODE_PARAMS set;
    void **argv;                /* kernelParams pointing into op->data */
    size_t nargv;               /* argv's length */
    struct zn_gnode **deps;
    size_t ndeps, capdeps;
    size_t index;               /* position in graph->nodes */
    uint64_t id, clone_of;      /* unique; the id of the node it was cloned from */
    struct zn_gmem *mem;        /* MEM_ALLOC / MEM_FREE: the allocation */
    CUlaunchAttributeValue *kattr;  /* kernel node attributes set (ids 0-16), or NULL */
    struct zn_gcond *cond;      /* CONDITIONAL: handle, kind, body graphs */
    struct zn_gmemop *memop;    /* BATCH_MEM_OP: the operations as given (child: their ops) */
} zn_gnode;

/* References to user objects (zn_drv_userobj.c). */
typedef struct zn_uobj_ref {
    struct zn_uobj *obj;
    unsigned count;
} zn_uobj_ref;

typedef struct zn_uobj_set {
    zn_uobj_ref *v;
    size_t n, cap;
} zn_uobj_set;

typedef struct zn_graph {
    uint32_t magic;
    zn_ctx *ctx;
    zn_gnode **nodes;
    size_t n, cap;
    pthread_mutex_t lock;
    zn_uobj_set uobjs;
    struct zn_gedge *pedges;    /* edges with non-default data (zn_drv_graph_edge.c) */
    size_t npedges, cappedges;
} zn_graph;

typedef struct zn_gexec {
    uint32_t magic;
    zn_ctx *ctx;
    uint64_t flags;
    size_t n;
    zn_op **ops;                /* in a topological order (children flattened) */
    const zn_gnode **src;       /* the node each op came from (NULL: child's) */
    const zn_gnode **top;       /* the top-level node each op came from (a child's: its node) */
    bool *disabled;
    zn_uobj_set uobjs;          /* its graph's, children included */
    size_t *poff, *pred;        /* op i's predecessors: pred[poff[i] .. poff[i+1]) */
    struct zn_gconc *conc;      /* streams of independent branches (NULL: one stream) */
} zn_gexec;
/* Independent branches of an instantiated graph (zn_drv_graph_conc.c):
 * plans x's streams from its predecessors (frees the old plan), frees the
 * plan, and launches x on s through them (false: x runs on one stream). */
CUresult zn_gconc_plan(zn_gexec *x);
void zn_gconc_free(zn_gexec *x);
bool zn_gconc_usable(const zn_gexec *x, const zn_stream *s);
CUresult zn_gconc_launch(zn_gexec *x, zn_stream *s);

bool zn_graph_valid(const zn_graph *g);
void zn_uobj_retain(struct zn_uobj *o, unsigned n);
void zn_uobj_release(struct zn_uobj *o, unsigned n);
bool zn_uobj_set_add(zn_uobj_set *s, struct zn_uobj *o, unsigned n);
bool zn_uobj_set_merge(zn_uobj_set *dst, const zn_uobj_set *src);
bool zn_uobj_set_of_graph(zn_uobj_set *dst, const zn_graph *g);
void zn_uobj_set_clear(zn_uobj_set *s);
/* References of set held until what s has queued so far has run. */
CUresult zn_uobj_hold_for_launch(zn_stream *s, const zn_uobj_set *set);
/* The graph a capture records into. */
zn_graph *zn_capture_graph(const struct zn_capture *c);
bool zn_gnode_valid(const zn_gnode *n);
zn_graph *zn_graph_new(zn_ctx *c);
void zn_graph_free(zn_graph *g);
/* Adds a node holding op (taken) after deps. */
CUresult zn_graph_add(zn_graph *g, CUgraphNodeType type, zn_op *op, zn_gnode *const *deps,
                      size_t ndeps, zn_gnode **out);
int zn_nodeset_add(zn_nodeset *s, zn_gnode *n);
/* Graph memory nodes (zn_drv_graph_mem.c). */
bool zn_graph_has_mem(const zn_graph *g);
/* Edge data (zn_drv_graph_edge.c): non-default CUgraphEdgeData per edge.
 * check: CUDA's rules for data on from -> to (to NULL: not made yet). */
bool zn_gedge_is_default(const CUgraphEdgeData *e);
CUresult zn_gedge_check(const zn_gnode *from, const zn_gnode *to, const CUgraphEdgeData *e);
void zn_gedge_get(const zn_graph *g, const zn_gnode *from, const zn_gnode *to,
                  CUgraphEdgeData *out);
CUresult zn_gedge_set(zn_graph *g, const zn_gnode *from, const zn_gnode *to,
                      const CUgraphEdgeData *data);
void zn_gedge_drop_node(zn_graph *g, const zn_gnode *n);
CUresult zn_gedge_clone(zn_graph *dst, const zn_graph *src);
/* A launch with programmatic stream serialization while s captures: its
 * edges from kernel nodes become programmatic (zn_drv_capture.c). */
CUresult zn_capture_programmatic(zn_stream *s);
/* A programmatic event just recorded in a capture: whoever waits on it gets
 * programmatic edges (the launch-order port when it triggers at block start). */
void zn_capture_programmatic_event(zn_event *e, bool at_block_start);
/* Batch memory-op nodes (zn_drv_graph_memop.c); zn_memop_check is
 * cuStreamBatchMemOp's check of one operation (zn_drv_stream.c). */
CUresult zn_memop_check(const CUstreamBatchMemOpParams *o);
struct zn_gmemop *zn_gmemop_dup(const struct zn_gmemop *m);
CUresult zn_gmemop_add(CUgraphNode *pn, CUgraph g, const CUgraphNode *deps, size_t ndeps,
                       const CUDA_BATCH_MEM_OP_NODE_PARAMS *p);
CUresult zn_gmemop_set(CUgraphNode n, const CUDA_BATCH_MEM_OP_NODE_PARAMS *p);
CUresult zn_gmemop_capture(zn_graph *g, zn_op *op, zn_gnode *const *deps, size_t ndeps,
                           zn_gnode **out);
CUresult zn_gmemop_exec_set(CUgraphExec x, CUgraphNode n, const CUDA_BATCH_MEM_OP_NODE_PARAMS *p);
/* Replaces the ops n's child contributed to x by child's (same count and
 * kinds), zn_drv_graph_exec.c. */
CUresult zn_gexec_set_child_ops(CUgraphExec x, CUgraphNode n, CUgraph child);
void zn_gedge_free(zn_graph *g);
/* The gmem block of a live graph allocation starting at p, or NULL. */
struct zn_gmem *zn_gmem_find(CUdeviceptr p);
/* The block of a memory node's op (a host op), or NULL; *alloc: an alloc's. */
struct zn_gmem *zn_gmem_of_op(const zn_op *op, bool *alloc);
/* cuMemAllocAsync / cuMemFreeAsync on a capturing stream: add the node. */
CUresult zn_gmem_capture_alloc(zn_stream *s, size_t bytes, CUdeviceptr *dptr);
CUresult zn_gmem_capture_free(zn_stream *s, struct zn_gmem *m);
/* cuMemFree(Async) of a graph allocation outside a graph: s NULL frees now. */
CUresult zn_gmem_free_outside(struct zn_gmem *m, zn_stream *s);
/* Instantiation (one executable graph at a time), its end, and a launch:
 * refuses a relaunch while an allocation of the last one is not freed. */
CUresult zn_gmem_exec_bind(const zn_gexec *x, bool bind);
CUresult zn_gmem_launch(const zn_gexec *x);
/* Kernel node attributes (zn_drv_graph_node.c): applies them to n's op. */
void zn_gnode_apply_kattr(zn_gnode *n);
/* Conditional nodes (zn_drv_graph_cond.c). */
void zn_gcond_free(struct zn_gcond *c);
struct zn_gcond *zn_gcond_clone(const struct zn_gcond *c);
CUresult zn_gcond_add(zn_gnode **out, zn_graph *g, zn_gnode *const *deps, size_t ndeps,
                      CUDA_CONDITIONAL_NODE_PARAMS *p);
/* Flattens a body graph into ops (topological order) for zn_gcond_exec_op. */
typedef CUresult (*zn_flatten_fn)(const zn_graph *g, zn_op ***ops, size_t *n,
                                  zn_uobj_set *objs);
/* The op a launch runs for conditional node n: bodies flattened with flat,
 * owned by a user object added to objs. */
CUresult zn_gcond_exec_op(const zn_gnode *n, zn_ctx *ctx, zn_flatten_fn flat, zn_op **op,
                          zn_uobj_set *objs);
/* n's body graphs (their count; 0: not a conditional node). */
unsigned zn_gcond_bodies(const zn_gnode *n, zn_graph *const **bodies);
/* The launch-start op that resets n's handle to its default, or NULL. */
zn_op *zn_gcond_default_op(const zn_gnode *n);
/* PTX text with cudaGraphSetConditional's declaration replaced by Zinc's
 * definition (malloc'd, *outlen bytes), or NULL when it declares none. */
char *zn_gcond_ptx_patch(const char *text, size_t len, size_t *outlen);
/* Graph clone (zn_drv_graph.c). */
zn_graph *zn_graph_clone(const zn_graph *g);
void zn_nodeset_set(zn_nodeset *s, zn_gnode *const *v, size_t n);
void zn_nodeset_free(zn_nodeset *s);
/* Capture: zn_submit hands over ops of capturing streams (and waits on
 * events recorded in a capture). Takes op. */
CUresult zn_capture_op(zn_stream *s, zn_op *op, bool sync);
/* The live capture an event was recorded in, or NULL. */
struct zn_capture *zn_event_capture(const zn_event *e);
/* Is some capture that forbids it running (legacy stream use, syncs)? */
bool zn_capture_blocks_legacy(void);


/* ---- export tables (zn_drv_export.c) and integrity (zn_drv_integrity.c) */
extern const void *const zn_export_runtime[];
extern const void *const zn_export_integrity[];
CUresult zn_integrity_answer(uint32_t ver, uint64_t unix_seconds, uint64_t out[2]);

/* ---- proc addresses (zn_drv_entry.c, zn_drv_unimpl.c) ---- */
typedef struct zn_api_entry {
    const char *name;
    int version;
    int per_thread;             /* 1: the _ptds/_ptsz variant */
    void *fn;
} zn_api_entry;
extern const zn_api_entry zn_api_unimpl[];
extern const unsigned zn_api_unimpl_count;

#endif
