/* zn_drv_pool.c: stream-ordered allocation (cuMemAllocAsync and friends)
 * over the device's one default memory pool.
 *
 * An async allocation is made at once (memory is ready before any later
 * work of any stream needs it); an async free is queued on its stream. The pool keeps its attributes and counts
 * the bytes it hands out, so programs that tune or watch it (release
 * threshold, used memory) see consistent answers. Creating further pools,
 * and sharing pools between processes, is not implemented.
 */
#include "zn_drv.h"
#include "../exec/zn_exec.h"

#include <string.h>

enum {
    POOL_MAGIC = 0x5a706f6c,    /* "Zpol" */
    ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES = 1,
    ATTR_REUSE_ALLOW_OPPORTUNISTIC = 2,
    ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES = 3,
    ATTR_RELEASE_THRESHOLD = 4,
    ATTR_RESERVED_MEM_CURRENT = 5,
    ATTR_RESERVED_MEM_HIGH = 6,
    ATTR_USED_MEM_CURRENT = 7,
    ATTR_USED_MEM_HIGH = 8,
    LOCATION_TYPE_DEVICE = 1,
    ALLOCATION_TYPE_PINNED = 1
};

typedef struct zn_pool {
    uint32_t magic;
    int reuse[3];
    uint64_t release_threshold;
    pthread_mutex_t lock;
    uint64_t used, used_high;
} zn_pool;

static zn_pool default_pool = {
    .magic = POOL_MAGIC, .reuse = { 1, 1, 1 }, .lock = PTHREAD_MUTEX_INITIALIZER,
};

static bool pool_valid(CUmemoryPool p)
{
    return p == (CUmemoryPool)&default_pool;
}

static void pool_count(int64_t delta)
{
    pthread_mutex_lock(&default_pool.lock);
    default_pool.used += (uint64_t)delta;
    if (default_pool.used > default_pool.used_high)
        default_pool.used_high = default_pool.used;
    pthread_mutex_unlock(&default_pool.lock);
}

static CUresult alloc_async(CUdeviceptr *dptr, size_t bytes, CUmemoryPool pool, CUstream s)
{
    zn_ctx *c;
    CUresult r = zn_ctx_enter(&c);
    if (r != CUDA_SUCCESS)
        return r;
    if (!zn_stream_valid(s) || !pool_valid(pool))
        return CUDA_ERROR_INVALID_HANDLE;
    if (!dptr || bytes == 0)
        return CUDA_ERROR_INVALID_VALUE;
    void *p = zn_mem_alloc(bytes, 0, ZN_MEM_DEVICE);
    if (!p)
        return CUDA_ERROR_OUT_OF_MEMORY;
    pool_count((int64_t)bytes);
    *dptr = (CUdeviceptr)(uintptr_t)p;
    return CUDA_SUCCESS;
}

static void free_now(void *p)
{
    zn_mem_free(p);
}

/* The memory is given back when the stream reaches the free, so kernels
 * queued before it may still use it. */
static CUresult free_async(CUdeviceptr dptr, CUstream h, bool pt)
{
    zn_stream *s;
    CUresult r = zn_stream_enter(h, pt, &s);
    if (r != CUDA_SUCCESS)
        return r;
    void *base, *p = (void *)(uintptr_t)dptr;
    size_t size;
    zn_mem_kind kind;
    if (zn_mem_lookup(p, &base, &size, &kind) != 0 || base != p || kind != ZN_MEM_DEVICE)
        return CUDA_ERROR_INVALID_VALUE;
    zn_op *op = zn_op_new(ZN_OP_HOST, 0);
    if (!op)
        return CUDA_ERROR_OUT_OF_MEMORY;
    op->u.host.fn = free_now;
    op->u.host.user = p;
    r = zn_submit(s, op, false);
    if (r == CUDA_SUCCESS)
        pool_count(-(int64_t)size);
    return r;
}

#define DEFAULT_POOL ((CUmemoryPool)&default_pool)

CUresult cuMemAllocAsync(CUdeviceptr *dptr, size_t bytes, CUstream s)
{
    ZN_RET(alloc_async(dptr, bytes, DEFAULT_POOL, s));
}

CUresult cuMemAllocAsync_ptsz(CUdeviceptr *dptr, size_t bytes, CUstream s)
{
    ZN_RET(alloc_async(dptr, bytes, DEFAULT_POOL, s));
}

CUresult cuMemAllocFromPoolAsync(CUdeviceptr *dptr, size_t bytes, CUmemoryPool pool,
                                 CUstream s)
{
    ZN_RET(alloc_async(dptr, bytes, pool, s));
}

CUresult cuMemAllocFromPoolAsync_ptsz(CUdeviceptr *dptr, size_t bytes, CUmemoryPool pool,
                                      CUstream s)
{
    ZN_RET(alloc_async(dptr, bytes, pool, s));
}

CUresult cuMemFreeAsync(CUdeviceptr dptr, CUstream s)
{
    ZN_RET(free_async(dptr, s, false));
}

CUresult cuMemFreeAsync_ptsz(CUdeviceptr dptr, CUstream s)
{
    ZN_RET(free_async(dptr, s, true));
}

/* ---- the pool and its attributes ---- */

CUresult cuDeviceGetDefaultMemPool(CUmemoryPool *pool, CUdevice dev)
{
    ZN_CHECK_INIT();
    if (dev < 0 || dev >= ZN_NDEVICES)
        ZN_RET(CUDA_ERROR_INVALID_DEVICE);
    if (!pool)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    *pool = DEFAULT_POOL;
    ZN_RET(CUDA_SUCCESS);
}

CUresult cuDeviceGetMemPool(CUmemoryPool *pool, CUdevice dev)
{
    return cuDeviceGetDefaultMemPool(pool, dev);
}

CUresult cuDeviceSetMemPool(CUdevice dev, CUmemoryPool pool)
{
    ZN_CHECK_INIT();
    if (dev < 0 || dev >= ZN_NDEVICES)
        ZN_RET(CUDA_ERROR_INVALID_DEVICE);
    ZN_RET(pool_valid(pool) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE);
}

/* CUDA 13's location-based queries: only device 0's pinned pool exists. */
static CUresult location_pool(const CUmemLocation *loc, int type)
{
    if (!atomic_load(&zn_drv_inited))
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!loc || type != ALLOCATION_TYPE_PINNED)
        return CUDA_ERROR_INVALID_VALUE;
    if (loc->type != LOCATION_TYPE_DEVICE)
        return CUDA_ERROR_NOT_SUPPORTED;
    return loc->id == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
}

CUresult cuMemGetDefaultMemPool(CUmemoryPool *pool, CUmemLocation *loc, int type)
{
    CUresult r = location_pool(loc, type);
    if (r == CUDA_SUCCESS && !pool)
        r = CUDA_ERROR_INVALID_VALUE;
    if (r == CUDA_SUCCESS)
        *pool = DEFAULT_POOL;
    ZN_RET(r);
}

CUresult cuMemGetMemPool(CUmemoryPool *pool, CUmemLocation *loc, int type)
{
    return cuMemGetDefaultMemPool(pool, loc, type);
}

CUresult cuMemSetMemPool(CUmemLocation *loc, int type, CUmemoryPool pool)
{
    CUresult r = location_pool(loc, type);
    if (r == CUDA_SUCCESS && !pool_valid(pool))
        r = CUDA_ERROR_INVALID_HANDLE;
    ZN_RET(r);
}

/* Nothing is cached beyond what is in use, so there is nothing to trim. */
CUresult cuMemPoolTrimTo(CUmemoryPool pool, size_t keep)
{
    ZN_CHECK_INIT();
    ZN_RET(pool_valid(pool) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE);
}

CUresult cuMemPoolSetAttribute(CUmemoryPool pool, int attr, void *value)
{
    ZN_CHECK_INIT();
    if (!pool_valid(pool))
        ZN_RET(CUDA_ERROR_INVALID_HANDLE);
    if (!value)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    zn_pool *p = &default_pool;
    CUresult r = CUDA_SUCCESS;
    pthread_mutex_lock(&p->lock);
    switch (attr) {
    case ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES:
    case ATTR_REUSE_ALLOW_OPPORTUNISTIC:
    case ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES:
        p->reuse[attr - 1] = *(const int *)value;
        break;
    case ATTR_RELEASE_THRESHOLD:
        p->release_threshold = *(const uint64_t *)value;
        break;
    case ATTR_RESERVED_MEM_HIGH:
    case ATTR_USED_MEM_HIGH:      /* may only be reset to 0 */
        if (*(const uint64_t *)value != 0)
            r = CUDA_ERROR_INVALID_VALUE;
        else
            p->used_high = p->used;
        break;
    default:
        r = CUDA_ERROR_INVALID_VALUE;
    }
    pthread_mutex_unlock(&p->lock);
    ZN_RET(r);
}

CUresult cuMemPoolGetAttribute(CUmemoryPool pool, int attr, void *value)
{
    ZN_CHECK_INIT();
    if (!pool_valid(pool))
        ZN_RET(CUDA_ERROR_INVALID_HANDLE);
    if (!value)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    zn_pool *p = &default_pool;
    CUresult r = CUDA_SUCCESS;
    pthread_mutex_lock(&p->lock);
    switch (attr) {
    case ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES:
    case ATTR_REUSE_ALLOW_OPPORTUNISTIC:
    case ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES:
        *(int *)value = p->reuse[attr - 1];
        break;
    case ATTR_RELEASE_THRESHOLD:
        *(uint64_t *)value = p->release_threshold;
        break;
    case ATTR_RESERVED_MEM_CURRENT:
    case ATTR_USED_MEM_CURRENT:
        *(uint64_t *)value = p->used;
        break;
    case ATTR_RESERVED_MEM_HIGH:
    case ATTR_USED_MEM_HIGH:
        *(uint64_t *)value = p->used_high;
        break;
    default:
        r = CUDA_ERROR_INVALID_VALUE;
    }
    pthread_mutex_unlock(&p->lock);
    ZN_RET(r);
}
