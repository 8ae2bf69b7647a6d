/* zn_drv_ctx.c: contexts, the primary context and each thread's context
 * stack.
 *
 * All contexts share the one device's memory and executor; a context holds
 * its flags, limits, context-local storage and its sticky error (the first
 * kernel fault, returned by every later call as on a GPU, until the primary
 * context is reset).
 */
#include "zn_drv.h"
#include "../util/zn_log.h"

#include <stdlib.h>
#include <string.h>

#define ZN_CTX_STACK_MAX 32

static zn_ctx primary;
static pthread_once_t primary_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t primary_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_ullong next_ctx_id = 1;

/* The thread's context stack; its top is the current context. */
static __thread zn_ctx *ctx_stack[ZN_CTX_STACK_MAX];
static __thread int ctx_depth;

static void ctx_defaults(zn_ctx *c)
{
    c->limits[CU_LIMIT_STACK_SIZE] = 1024;
    c->limits[CU_LIMIT_PRINTF_FIFO_SIZE] = 1 << 20;
    c->limits[CU_LIMIT_MALLOC_HEAP_SIZE] = 8 << 20;
    c->limits[CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH] = 2;
    c->limits[CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT] = 2048;
    c->limits[CU_LIMIT_MAX_L2_FETCH_GRANULARITY] = 64;
    c->limits[CU_LIMIT_PERSISTING_L2_CACHE_SIZE] = 0;
    c->cache_config = 0;
    c->shmem_config = 0;
    atomic_store(&c->heap.used, 0);
    atomic_store(&c->heap.limit, c->limits[CU_LIMIT_MALLOC_HEAP_SIZE]);
    atomic_store(&c->heap.fixed, false);
    atomic_store(&c->sticky, CUDA_SUCCESS);
}

static void ctx_setup(zn_ctx *c, bool is_primary, unsigned flags, CUdevice dev)
{
    memset(c, 0, sizeof *c);
    c->magic = ZN_MAGIC_CTX;
    c->device = dev;
    c->is_primary = is_primary;
    c->flags = flags;
    c->id = atomic_fetch_add(&next_ctx_id, 1);
    pthread_mutex_init(&c->cls_lock, NULL);
    pthread_mutex_init(&c->stream_lock, NULL);
    ctx_defaults(c);
}

static void primary_init(void)
{
    ctx_setup(&primary, true, 0, 0);
}

zn_ctx *zn_ctx_primary(CUdevice dev)
{
    if (dev < 0 || dev >= ZN_NDEVICES)
        return NULL;
    pthread_once(&primary_once, primary_init);
    return &primary;
}

zn_ctx *zn_ctx_current(void)
{
    return ctx_depth > 0 ? ctx_stack[ctx_depth - 1] : NULL;
}

bool zn_ctx_valid(const zn_ctx *c)
{
    return c && c->magic == ZN_MAGIC_CTX;
}

CUresult zn_ctx_enter(zn_ctx **out)
{
    if (!atomic_load_explicit(&zn_drv_inited, memory_order_acquire))
        return CUDA_ERROR_NOT_INITIALIZED;
    zn_ctx *c = zn_ctx_current();
    if (!c)
        return CUDA_ERROR_INVALID_CONTEXT;
    *out = c;
    return (CUresult)atomic_load_explicit(&c->sticky, memory_order_relaxed);
}

void zn_ctx_set_sticky(zn_ctx *c, CUresult r)
{
    int expected = CUDA_SUCCESS;
    if (atomic_compare_exchange_strong(&c->sticky, &expected, (int)r))
        zn_log(ZN_LOG_WARN, "context %llu: kernel error %s (sticky)", c->id,
               zn_drv_error_name(r));
}

/* Resolves the ctx argument of calls where NULL means "the current one". */
static CUresult ctx_arg(CUcontext ctx, zn_ctx **out)
{
    if (!ctx)
        ctx = zn_ctx_current();
    if (!ctx)
        return CUDA_ERROR_INVALID_CONTEXT;
    if (!zn_ctx_valid(ctx))
        return CUDA_ERROR_INVALID_CONTEXT;
    *out = ctx;
    return CUDA_SUCCESS;
}

/* ---- primary context ---- */

/* Back to a fresh state: destructors of context-local storage run (outside
 * the lock: they may call back into the driver), the sticky error clears,
 * flags stay (as on NVIDIA's driver). */
static void primary_reset(void)
{
    zn_ctx_wait_all(&primary);
    zn_cls_run_dtors(&primary);
    pthread_mutex_lock(&primary_lock);
    unsigned flags = primary.flags;
    ctx_defaults(&primary);
    primary.flags = flags;
    primary.active = false;
    primary.retain = 0;
    pthread_mutex_unlock(&primary_lock);
}

CUresult cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev)
{
    ZN_CHECK_INIT();
    if (!pctx)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    zn_ctx *c = zn_ctx_primary(dev);
    if (!c)
        ZN_RET(CUDA_ERROR_INVALID_DEVICE);
    pthread_mutex_lock(&primary_lock);
    c->retain++;
    c->active = true;
    pthread_mutex_unlock(&primary_lock);
    *pctx = c;
    ZN_RET(CUDA_SUCCESS);
}

CUresult cuDevicePrimaryCtxRelease_v2(CUdevice dev)
{
    ZN_CHECK_INIT();
    zn_ctx *c = zn_ctx_primary(dev);
    if (!c)
        ZN_RET(CUDA_ERROR_INVALID_DEVICE);
    CUresult r = CUDA_SUCCESS;
    bool last = false;
    pthread_mutex_lock(&primary_lock);
    if (c->retain <= 0)
        r = CUDA_ERROR_INVALID_CONTEXT;
    else
        last = --c->retain == 0;
    pthread_mutex_unlock(&primary_lock);
    if (last)
        primary_reset();
    ZN_RET(r);
}

CUresult cuDevicePrimaryCtxRelease(CUdevice dev)
{
    return cuDevicePrimaryCtxRelease_v2(dev);
}

CUresult cuDevicePrimaryCtxSetFlags_v2(CUdevice dev, unsigned int flags)
{
    ZN_CHECK_INIT();
    zn_ctx *c = zn_ctx_primary(dev);
    if (!c)
        ZN_RET(CUDA_ERROR_INVALID_DEVICE);
    if (flags & ~(unsigned)ZN_CU_CTX_FLAGS_MASK)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    pthread_mutex_lock(&primary_lock);
    c->flags = flags;
    pthread_mutex_unlock(&primary_lock);
    ZN_RET(CUDA_SUCCESS);
}

CUresult cuDevicePrimaryCtxSetFlags(CUdevice dev, unsigned int flags)
{
    return cuDevicePrimaryCtxSetFlags_v2(dev, flags);
}

CUresult cuDevicePrimaryCtxGetState(CUdevice dev, unsigned int *flags, int *active)
{
    ZN_CHECK_INIT();
    if (!flags || !active)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    zn_ctx *c = zn_ctx_primary(dev);
    if (!c)
        ZN_RET(CUDA_ERROR_INVALID_DEVICE);
    pthread_mutex_lock(&primary_lock);
    *flags = c->flags;
    *active = c->active;
    pthread_mutex_unlock(&primary_lock);
    ZN_RET(CUDA_SUCCESS);
}

CUresult cuDevicePrimaryCtxReset_v2(CUdevice dev)
{
    ZN_CHECK_INIT();
    zn_ctx *c = zn_ctx_primary(dev);
    if (!c)
        ZN_RET(CUDA_ERROR_INVALID_DEVICE);
    primary_reset();
    ZN_RET(CUDA_SUCCESS);
}

CUresult cuDevicePrimaryCtxReset(CUdevice dev)
{
    return cuDevicePrimaryCtxReset_v2(dev);
}

/* ---- created contexts ---- */

static CUresult ctx_push(zn_ctx *c)
{
    if (ctx_depth >= ZN_CTX_STACK_MAX)
        return CUDA_ERROR_OUT_OF_MEMORY;
    ctx_stack[ctx_depth++] = c;
    return CUDA_SUCCESS;
}

CUresult cuCtxCreate_v2(CUcontext *pctx, unsigned int flags, CUdevice dev)
{
    ZN_CHECK_INIT();
    if (!pctx || (flags & ~(unsigned)ZN_CU_CTX_FLAGS_MASK))
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    if (dev < 0 || dev >= ZN_NDEVICES)
        ZN_RET(CUDA_ERROR_INVALID_DEVICE);
    zn_ctx *c = zn_ctx_new(flags, dev);
    if (!c)
        ZN_RET(CUDA_ERROR_OUT_OF_MEMORY);
    CUresult r = ctx_push(c);
    if (r != CUDA_SUCCESS) {
        zn_ctx_free(c);
        ZN_RET(r);
    }
    *pctx = c;
    ZN_RET(CUDA_SUCCESS);
}

zn_ctx *zn_ctx_new(unsigned flags, CUdevice dev)
{
    zn_ctx *c = zn_handle_new(ZN_HANDLE_CTX, sizeof *c);
    if (c) {
        ctx_setup(c, false, flags, dev);
        c->active = true;
    }
    return c;
}

void zn_ctx_free(zn_ctx *ctx)
{
    /* drop it from this thread's stack wherever it is */
    int j = 0;
    for (int i = 0; i < ctx_depth; i++)
        if (ctx_stack[i] != ctx)
            ctx_stack[j++] = ctx_stack[i];
    ctx_depth = j;
    zn_ctx_wait_all(ctx);
    zn_cls_run_dtors(ctx);
    zn_stream_ctx_destroy(ctx);
    pthread_mutex_destroy(&ctx->cls_lock);
    zn_handle_retire(ZN_HANDLE_CTX, ctx, sizeof *ctx);
}

/* Execution affinity and CIG parameters ask for GPU partitioning: refused. */
CUresult cuCtxCreate_v4(CUcontext *pctx, CUctxCreateParams *params, unsigned int flags,
                        CUdevice dev)
{
    if (params && params->numExecAffinityParams > 0)
        ZN_RET(CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY);
    if (params && params->cigParams)     /* CUDA in graphics: no graphics API here */
        ZN_RET(CUDA_ERROR_NOT_SUPPORTED);
    return cuCtxCreate_v2(pctx, flags, dev);
}

/* Execution affinity (a context limited to some SMs): the device reports
 * no support (cuDeviceGetExecAffinitySupport), so a context that asks for
 * it is refused with CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY, as CUDA does. */
CUresult cuCtxCreate_v3(CUcontext *pctx, CUexecAffinityParam *params, int n,
                        unsigned int flags, CUdevice dev)
{
    ZN_CHECK_INIT();
    if (n < 0 || (n > 0 && !params))
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    if (n > 0)
        ZN_RET(CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY);
    return cuCtxCreate_v2(pctx, flags, dev);
}

CUresult cuCtxGetExecAffinity(CUexecAffinityParam *p, int type)
{
    ZN_ENTER(c);
    (void)c;
    if (!p || type != ZN_CU_EXEC_AFFINITY_TYPE_SM_COUNT)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    ZN_RET(CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY);
}

CUresult cuCtxDestroy_v2(CUcontext ctx)
{
    ZN_CHECK_INIT();
    /* a green context's is destroyed with it (cuGreenCtxDestroy) */
    if (!zn_ctx_valid(ctx) || ctx->is_primary || ctx->green)
        ZN_RET(CUDA_ERROR_INVALID_CONTEXT);
    zn_ctx_free(ctx);
    ZN_RET(CUDA_SUCCESS);
}

CUresult cuCtxGetCurrent(CUcontext *pctx)
{
    ZN_CHECK_INIT();
    if (!pctx)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    *pctx = zn_ctx_current();
    ZN_RET(CUDA_SUCCESS);
}

CUresult cuCtxSetCurrent(CUcontext ctx)
{
    ZN_CHECK_INIT();
    if (ctx && !zn_ctx_valid(ctx))
        ZN_RET(CUDA_ERROR_INVALID_CONTEXT);
    if (!ctx) {
        if (ctx_depth > 0)
            ctx_depth--;
    } else if (ctx_depth > 0) {
        ctx_stack[ctx_depth - 1] = ctx;
    } else {
        ctx_stack[ctx_depth++] = ctx;
    }
    ZN_RET(CUDA_SUCCESS);
}

CUresult cuCtxPushCurrent_v2(CUcontext ctx)
{
    ZN_CHECK_INIT();
    if (!zn_ctx_valid(ctx))
        ZN_RET(CUDA_ERROR_INVALID_CONTEXT);
    ZN_RET(ctx_push(ctx));
}

CUresult cuCtxPopCurrent_v2(CUcontext *pctx)
{
    ZN_CHECK_INIT();
    if (ctx_depth == 0)
        ZN_RET(CUDA_ERROR_INVALID_CONTEXT);
    zn_ctx *c = ctx_stack[--ctx_depth];
    if (pctx)
        *pctx = c;
    ZN_RET(CUDA_SUCCESS);
}

CUresult cuCtxGetDevice_v2(CUdevice *dev, CUcontext ctx)
{
    ZN_CHECK_INIT();
    if (!dev)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    zn_ctx *c;
    CUresult r = ctx_arg(ctx, &c);
    if (r != CUDA_SUCCESS)
        ZN_RET(r);
    *dev = c->device;
    ZN_RET(CUDA_SUCCESS);
}

CUresult cuCtxGetDevice(CUdevice *dev)
{
    return cuCtxGetDevice_v2(dev, NULL);
}

/* Waits for every stream of the context; the answer is its sticky error. */
CUresult cuCtxSynchronize_v2(CUcontext ctx)
{
    ZN_CHECK_INIT();
    zn_ctx *c;
    CUresult r = ctx_arg(ctx, &c);
    if (r != CUDA_SUCCESS)
        ZN_RET(r);
    if (zn_capture_blocks_legacy())
        ZN_RET(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
    ZN_RET(zn_ctx_wait_all(c));
}

CUresult cuCtxSynchronize(void)
{
    return cuCtxSynchronize_v2(NULL);
}

CUresult cuCtxGetApiVersion(CUcontext ctx, unsigned int *version)
{
    ZN_CHECK_INIT();
    if (!version)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    zn_ctx *c;
    CUresult r = ctx_arg(ctx, &c);
    if (r != CUDA_SUCCESS)
        ZN_RET(r);
    *version = 3020;    /* the context API generation of cuCtxCreate_v2 */
    ZN_RET(CUDA_SUCCESS);
}

CUresult cuCtxGetFlags(unsigned int *flags)
{
    ZN_ENTER(c);
    if (!flags)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    *flags = c->flags;
    ZN_RET(CUDA_SUCCESS);
}

CUresult cuCtxSetFlags(unsigned int flags)
{
    ZN_ENTER(c);
    if (flags & ~(unsigned)ZN_CU_CTX_FLAGS_MASK)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    c->flags = flags;
    ZN_RET(CUDA_SUCCESS);
}

CUresult cuCtxGetId(CUcontext ctx, unsigned long long *id)
{
    ZN_CHECK_INIT();
    if (!id)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    zn_ctx *c;
    CUresult r = ctx_arg(ctx, &c);
    if (r != CUDA_SUCCESS)
        ZN_RET(r);
    *id = c->id;
    ZN_RET(CUDA_SUCCESS);
}

CUresult cuCtxGetLimit(size_t *value, CUlimit limit)
{
    ZN_ENTER(c);
    if (!value || (unsigned)limit >= CU_LIMIT_MAX)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    if (limit == CU_LIMIT_CIG_ENABLED || limit == CU_LIMIT_CIG_SHMEM_FALLBACK_ENABLED ||
        limit == CU_LIMIT_SHMEM_SIZE)
        ZN_RET(CUDA_ERROR_UNSUPPORTED_LIMIT);
    *value = c->limits[limit];
    ZN_RET(CUDA_SUCCESS);
}

CUresult cuCtxSetLimit(CUlimit limit, size_t value)
{
    ZN_ENTER(c);
    if ((unsigned)limit >= CU_LIMIT_MAX)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    switch (limit) {
    case CU_LIMIT_MALLOC_HEAP_SIZE:
        /* fixed once a kernel has allocated from it (CUDA: "must be
         * performed before launching any kernel that uses malloc") */
        if (atomic_load(&c->heap.fixed))
            ZN_RET(CUDA_ERROR_INVALID_VALUE);
        atomic_store(&c->heap.limit, value);
        break;
    case CU_LIMIT_STACK_SIZE:
    case CU_LIMIT_PRINTF_FIFO_SIZE:
    case CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH:
    case CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT:
        break;
    case CU_LIMIT_MAX_L2_FETCH_GRANULARITY:
        if (value > 128)
            ZN_RET(CUDA_ERROR_INVALID_VALUE);
        break;
    case CU_LIMIT_PERSISTING_L2_CACHE_SIZE:
        value = 0;      /* no persisting cache lines on a CPU */
        break;
    default:
        ZN_RET(CUDA_ERROR_UNSUPPORTED_LIMIT);
    }
    c->limits[limit] = value;
    ZN_RET(CUDA_SUCCESS);
}

CUresult cuCtxGetCacheConfig(int *config)
{
    ZN_ENTER(c);
    if (!config)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    *config = c->cache_config;
    ZN_RET(CUDA_SUCCESS);
}

CUresult cuCtxSetCacheConfig(int config)
{
    ZN_ENTER(c);
    if (config < 0 || config > 3)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    c->cache_config = config;
    ZN_RET(CUDA_SUCCESS);
}

/* Shared memory banks are fixed (4 bytes, as on every GPU since Volta,
 * where the setting "has no effect"): the answer does not follow Set. */
CUresult cuCtxGetSharedMemConfig(int *config)
{
    ZN_ENTER(c);
    (void)c;
    if (!config)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    *config = 1;     /* CU_SHARED_MEM_CONFIG_FOUR_BYTE_BANK_SIZE */
    ZN_RET(CUDA_SUCCESS);
}

CUresult cuCtxSetSharedMemConfig(int config)
{
    ZN_ENTER(c);
    if (config < 0 || config > 2)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    c->shmem_config = config;
    ZN_RET(CUDA_SUCCESS);
}

CUresult cuCtxGetStreamPriorityRange(int *least, int *greatest)
{
    ZN_ENTER(c);
    (void)c;
    if (least)
        *least = 0;
    if (greatest)
        *greatest = -5;
    ZN_RET(CUDA_SUCCESS);
}

CUresult cuCtxResetPersistingL2Cache(void)
{
    ZN_ENTER(c);
    (void)c;
    ZN_RET(CUDA_SUCCESS);
}

/* ---- peer access ----
 * Every context of Zinc is on device 0, and cuDeviceCanAccessPeer(0, 0)
 * answers 0 (a device is not its own peer, as on NVIDIA's driver), so
 * enabling access to another context is CUDA_ERROR_PEER_ACCESS_UNSUPPORTED
 * and nothing can be disabled (CUDA_ERROR_PEER_ACCESS_NOT_ENABLED). Copies
 * between two contexts' memory need no peer access (cuMemcpyPeer,
 * cuMemcpy3DPeer). */

CUresult cuCtxEnablePeerAccess(CUcontext peer, unsigned int flags)
{
    ZN_CHECK_INIT();
    zn_ctx *c = zn_ctx_current();
    if (!c || !zn_ctx_valid(peer) || peer == c)
        ZN_RET(CUDA_ERROR_INVALID_CONTEXT);
    if (flags)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    ZN_RET(CUDA_ERROR_PEER_ACCESS_UNSUPPORTED);
}

CUresult cuCtxDisablePeerAccess(CUcontext peer)
{
    ZN_CHECK_INIT();
    zn_ctx *c = zn_ctx_current();
    if (!c || !zn_ctx_valid(peer))
        ZN_RET(CUDA_ERROR_INVALID_CONTEXT);
    ZN_RET(CUDA_ERROR_PEER_ACCESS_NOT_ENABLED);
}
