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
    ZN_MAGIC_EVENT = 0x5a65766e     /* "Zevn" */
};

/* ---- handle memory (zn_drv_handle.c): blocks are recycled per kind and
 * never freed, so a destroyed handle reads as invalid, not as freed memory */
typedef enum zn_handle_kind {
    ZN_HANDLE_CTX, ZN_HANDLE_MODULE, ZN_HANDLE_LIBRARY, ZN_HANDLE_STREAM,
    ZN_HANDLE_EVENT, ZN_HANDLE_KINDS
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
} zn_ctx;

zn_ctx *zn_ctx_primary(CUdevice dev);
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

/* ---- streams (zn_drv_stream.c) ---- */
typedef struct zn_stream {
    uint32_t magic;
    zn_ctx *ctx;
    unsigned flags;
    int priority;
    unsigned long long id;
} zn_stream;

typedef struct zn_event {
    uint32_t magic;
    zn_ctx *ctx;
    unsigned flags;
    bool recorded;
    uint64_t ns;
} zn_event;

/* NULL, CU_STREAM_LEGACY, CU_STREAM_PER_THREAD or a live stream. */
bool zn_stream_valid(CUstream s);

/* ---- memory (zn_drv_mem.c) ---- */
/* [p, p+n) lies inside one live device allocation (or registered range). */
bool zn_mem_range_ok(CUdeviceptr p, size_t n);

/* ---- modules (zn_drv_module.c) ---- */
typedef struct zn_image {
    ptx_module *ptx;
    zn_jit_module *jit;
    zn_global_addr *globals;    /* module-scope .global/.const variables */
    uint64_t *gsizes;
    uint32_t nglobals;
} zn_image;

typedef struct zn_func {
    uint32_t magic;
    struct zn_module *mod;
    const zn_kernel_info *ki;
    const char *name;
    uint32_t const_bytes;       /* .const variables of its PTX image */
    int max_dyn_shared;         /* CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES */
    int carveout;
    int cache_config;
} zn_func;

typedef struct zn_module {
    uint32_t magic;
    zn_ctx *ctx;
    zn_image *imgs;
    unsigned nimgs;
    zn_func *funcs;
    unsigned nfuncs;
    unsigned sm;                /* target of the PTX that was chosen */
} zn_module;

typedef struct zn_library {
    uint32_t magic;
    zn_module *mod;
} zn_library;

bool zn_func_valid(const zn_func *f);

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
