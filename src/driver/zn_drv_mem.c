/* zn_drv_mem.c: allocation, host memory, pointer attributes.
 *
 * Device, pinned and managed memory all come from the executor's device
 * range (zn_mem_alloc), so a device pointer is a host pointer and checking
 * one is a lookup. Host ranges registered with cuMemHostRegister are kept in
 * a small list here, with the flags of pinned allocations.
 */
#include "zn_drv.h"
#include "zn_drv_ipc.h"
#include "../exec/zn_exec.h"
#include "../util/zn_log.h"

#include <stdlib.h>
#include <string.h>

/* ---- host ranges: pinned allocations (flags) and registered memory ---- */
typedef struct host_range {
    char *p;
    size_t n;
    unsigned flags;
    bool registered;
} host_range;

static pthread_mutex_t host_lock = PTHREAD_MUTEX_INITIALIZER;
static host_range *hosts;
static size_t nhosts, caphosts;

static int host_add(void *p, size_t n, unsigned flags, bool registered)
{
    pthread_mutex_lock(&host_lock);
    if (nhosts == caphosts) {
        size_t cap = caphosts ? caphosts * 2 : 16;
        host_range *h = realloc(hosts, cap * sizeof *h);
        if (!h) {
            pthread_mutex_unlock(&host_lock);
            return -1;
        }
        hosts = h;
        caphosts = cap;
    }
    hosts[nhosts++] = (host_range){ p, n, flags, registered };
    pthread_mutex_unlock(&host_lock);
    if (registered)
        zn_check_host_add((uintptr_t)p, n); /* ZINC_CHECK=memcheck: kernels may touch it */
    return 0;
}

/* Finds the range holding p; copies it to *out. */
static bool host_find(const void *p, host_range *out)
{
    bool found = false;
    pthread_mutex_lock(&host_lock);
    for (size_t i = 0; i < nhosts && !found; i++) {
        if ((const char *)p >= hosts[i].p && (const char *)p < hosts[i].p + hosts[i].n) {
            *out = hosts[i];
            found = true;
        }
    }
    pthread_mutex_unlock(&host_lock);
    return found;
}

/* Removes the range starting exactly at p. */
static bool host_remove(const void *p, bool registered)
{
    bool found = false;
    pthread_mutex_lock(&host_lock);
    for (size_t i = 0; i < nhosts; i++) {
        if (hosts[i].p == p && hosts[i].registered == registered) {
            hosts[i] = hosts[--nhosts];
            if (registered)
                zn_check_host_remove((uintptr_t)p);
            found = true;
            break;
        }
    }
    pthread_mutex_unlock(&host_lock);
    return found;
}

bool zn_mem_range_ok(CUdeviceptr p, size_t n)
{
    const char *q = (const char *)(uintptr_t)p;
    if (!p)
        return false;
    size_t live = zn_mem_live_prefix(q, n);
    if (live == n && (n || zn_mem_lookup(q, NULL, NULL, NULL) == 0))
        return true;
    if (live)
        return false;
    host_range h;
    if (host_find(q, &h) && h.registered)
        return n <= h.n - (size_t)(q - h.p);
    return false;
}

bool zn_mem_is_pinned(const void *p)
{
    host_range h;
    return zn_mem_lookup(p, NULL, NULL, NULL) == 0 || host_find(p, &h);
}

/* ---- allocation ---- */

CUresult cuMemGetInfo_v2(size_t *free_bytes, size_t *total)
{
    ZN_ENTER(c);
    (void)c;
    /* NVIDIA's driver fills whichever output is given: NULL is no error */
    size_t used, tot;
    zn_mem_info(&used, &tot);
    if (total)
        *total = tot;
    if (free_bytes)
        *free_bytes = used < tot ? tot - used : 0;
    ZN_RET(CUDA_SUCCESS);
}

static CUresult alloc_kind(CUdeviceptr *dptr, size_t bytes, zn_mem_kind kind)
{
    if (!dptr || bytes == 0)
        return CUDA_ERROR_INVALID_VALUE;
    void *p = zn_mem_alloc(bytes, 0, kind);
    if (!p)
        return CUDA_ERROR_OUT_OF_MEMORY;
    *dptr = (CUdeviceptr)(uintptr_t)p;
    return CUDA_SUCCESS;
}

CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytes)
{
    ZN_ENTER(c);
    (void)c;
    ZN_RET(alloc_kind(dptr, bytes, ZN_MEM_DEVICE));
}

/* Rows aligned to 512 bytes, the texture pitch alignment GPUs use. */
CUresult cuMemAllocPitch_v2(CUdeviceptr *dptr, size_t *pitch, size_t width, size_t height,
                            unsigned int elem_size)
{
    ZN_ENTER(c);
    (void)c;
    if (!pitch || width == 0 || height == 0 ||
        (elem_size != 4 && elem_size != 8 && elem_size != 16))
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    size_t p = (width + 511) & ~(size_t)511;
    CUresult r = alloc_kind(dptr, p * height, ZN_MEM_DEVICE);
    if (r == CUDA_SUCCESS)
        *pitch = p;
    ZN_RET(r);
}

static CUresult free_kind(void *p, zn_mem_kind want1, zn_mem_kind want2)
{
    void *base;
    size_t size;
    zn_mem_kind kind;
    int pooled = zn_pool_on_free(p);   /* a stream-ordered allocation freed here */
    if (pooled < 0)
        return CUDA_ERROR_INVALID_VALUE;
    if (zn_mem_lookup(p, &base, &size, &kind) != 0 || base != p ||
        (!pooled && kind != want1 && kind != want2))
        return CUDA_ERROR_INVALID_VALUE;
    if (kind == ZN_MEM_MANAGED)
        zn_range_forget(p);
    return zn_mem_free(p) == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

/* Frees synchronise with the device first, as CUDA's do: queued kernels
 * may still use the memory. */
CUresult cuMemFree_v2(CUdeviceptr dptr)
{
    ZN_ENTER(c);
    if (!dptr)
        ZN_RET(CUDA_SUCCESS);
    zn_ctx_wait_all(c);
    struct zn_gmem *gm = zn_gmem_find(dptr);    /* a graph allocation (zn_drv_graph_mem.c) */
    if (gm)
        ZN_RET(zn_gmem_free_outside(gm, NULL));
    if (zn_ipc_free_mapping((void *)(uintptr_t)dptr) == 0)  /* external or pool import */
        ZN_RET(CUDA_SUCCESS);
    ZN_RET(free_kind((void *)(uintptr_t)dptr, ZN_MEM_DEVICE, ZN_MEM_MANAGED));
}

CUresult cuMemGetAddressRange_v2(CUdeviceptr *pbase, size_t *psize, CUdeviceptr dptr)
{
    ZN_ENTER(c);
    (void)c;
    void *base;
    size_t size;
    zn_mem_kind kind;
    if (zn_mem_lookup((void *)(uintptr_t)dptr, &base, &size, &kind) != 0)
        ZN_RET(CUDA_ERROR_NOT_FOUND);
    if (pbase)
        *pbase = (CUdeviceptr)(uintptr_t)base;
    if (psize)
        *psize = size;
    ZN_RET(CUDA_SUCCESS);
}

CUresult cuMemHostAlloc(void **pp, size_t bytes, unsigned int flags)
{
    ZN_ENTER(c);
    (void)c;
    if (!pp || bytes == 0 || (flags & ~7u))
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    void *p = zn_mem_alloc(bytes, 0, ZN_MEM_HOST);
    if (!p)
        ZN_RET(CUDA_ERROR_OUT_OF_MEMORY);
    if (host_add(p, bytes, flags, false) != 0) {
        zn_mem_free(p);
        ZN_RET(CUDA_ERROR_OUT_OF_MEMORY);
    }
    *pp = p;
    ZN_RET(CUDA_SUCCESS);
}

CUresult cuMemAllocHost_v2(void **pp, size_t bytes)
{
    return cuMemHostAlloc(pp, bytes, 0);
}

CUresult cuMemFreeHost(void *p)
{
    ZN_ENTER(c);
    zn_ctx_wait_all(c);
    CUresult r = free_kind(p, ZN_MEM_HOST, ZN_MEM_HOST);
    if (r == CUDA_SUCCESS)
        host_remove(p, false);
    ZN_RET(r);
}

/* Host memory is device memory on a CPU: the device address of a pinned
 * or registered host pointer is the pointer itself. */
CUresult cuMemHostGetDevicePointer_v2(CUdeviceptr *dptr, void *p, unsigned int flags)
{
    ZN_ENTER(c);
    (void)c;
    host_range h;
    if (!dptr || flags != 0 || !host_find(p, &h))
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    *dptr = (CUdeviceptr)(uintptr_t)p;
    ZN_RET(CUDA_SUCCESS);
}

CUresult cuMemHostGetFlags(unsigned int *flags, void *p)
{
    ZN_ENTER(c);
    (void)c;
    host_range h;
    if (!flags || !host_find(p, &h))
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    *flags = h.flags;
    ZN_RET(CUDA_SUCCESS);
}

CUresult cuMemHostRegister_v2(void *p, size_t bytes, unsigned int flags)
{
    ZN_ENTER(c);
    (void)c;
    host_range h;
    if (!p || bytes == 0 || (flags & ~0xfu))
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    /* a range of cuMemHostRegister is ALREADY_REGISTERED; memory of
     * cuMemAllocHost/cuMemHostAlloc is INVALID_VALUE, as NVIDIA's driver has it */
    if (host_find(p, &h))
        ZN_RET(h.registered ? CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED
                            : CUDA_ERROR_INVALID_VALUE);
    ZN_RET(host_add(p, bytes, flags, true) == 0 ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY);
}

CUresult cuMemHostUnregister(void *p)
{
    ZN_ENTER(c);
    (void)c;
    ZN_RET(host_remove(p, true) ? CUDA_SUCCESS : CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED);
}

CUresult cuMemAllocManaged(CUdeviceptr *dptr, size_t bytes, unsigned int flags)
{
    ZN_ENTER(c);
    (void)c;
    if (flags != 1 && flags != 2)   /* CU_MEM_ATTACH_GLOBAL or _HOST */
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    ZN_RET(alloc_kind(dptr, bytes, ZN_MEM_MANAGED));
}

/* Hints about placement move nothing when all memory is host memory, but
 * they are recorded for cuMemRangeGetAttribute (zn_drv_range.c). */
static CUresult advise(CUdeviceptr p, size_t n, int advice, CUmemLocation loc)
{
    zn_ctx *c;
    CUresult r = zn_ctx_enter(&c);
    return r != CUDA_SUCCESS ? r : zn_range_advise(p, n, advice, loc);
}

/* The legacy form names a device: an ordinal or CU_DEVICE_CPU (-1). */
static CUmemLocation dev_loc(CUdevice dev)
{
    return dev == -1 ? (CUmemLocation){ 2, 0 } : (CUmemLocation){ 1, dev };
}

CUresult cuMemAdvise(CUdeviceptr p, size_t n, int advice, CUdevice dev)
{
    ZN_RET(advise(p, n, advice, dev_loc(dev)));
}

/* NVIDIA's driver: a location naming a device that does not exist is
 * INVALID_VALUE here (the legacy ordinal form and cuMemPrefetchAsync answer
 * INVALID_DEVICE) */
CUresult cuMemAdvise_v2(CUdeviceptr p, size_t n, int advice, CUmemLocation loc)
{
    CUresult r = advise(p, n, advice, loc);
    ZN_RET(r == CUDA_ERROR_INVALID_DEVICE && loc.type == 1 ? CUDA_ERROR_INVALID_VALUE : r);
}

/* Nothing moves; managed ranges remember the location asked for. Other
 * device memory is accepted as before (Zinc has no pageable-access
 * distinction to enforce). */
static CUresult prefetch(CUdeviceptr p, size_t n, CUmemLocation loc, unsigned flags,
                         CUstream s, bool pt)
{
    zn_stream *st;
    CUresult r = zn_stream_enter(s, pt, &st);
    if (r != CUDA_SUCCESS)
        return r;
    if (flags != 0 || !zn_mem_range_ok(p, n))
        return CUDA_ERROR_INVALID_VALUE;
    if ((r = zn_range_check_loc(&loc)) != CUDA_SUCCESS)
        return r;
    void *base;
    size_t size;
    zn_mem_kind kind;
    if (zn_mem_lookup((void *)(uintptr_t)p, &base, &size, &kind) == 0 &&
        (kind == ZN_MEM_MANAGED || kind == ZN_MEM_MODULE))
        return zn_range_prefetched(p, n, loc);
    return CUDA_SUCCESS;
}

CUresult cuMemPrefetchAsync(CUdeviceptr p, size_t n, CUdevice dev, CUstream s)
{
    ZN_RET(prefetch(p, n, dev_loc(dev), 0, s, false));
}

CUresult cuMemPrefetchAsync_ptsz(CUdeviceptr p, size_t n, CUdevice dev, CUstream s)
{
    ZN_RET(prefetch(p, n, dev_loc(dev), 0, s, true));
}

CUresult cuMemPrefetchAsync_v2(CUdeviceptr p, size_t n, CUmemLocation loc,
                               unsigned int flags, CUstream s)
{
    ZN_RET(prefetch(p, n, loc, flags, s, false));
}

CUresult cuMemPrefetchAsync_v2_ptsz(CUdeviceptr p, size_t n, CUmemLocation loc,
                                    unsigned int flags, CUstream s)
{
    ZN_RET(prefetch(p, n, loc, flags, s, true));
}

/* ---- pointer attributes ---- */

typedef struct ptr_info {
    bool known;             /* in an allocation or registered range */
    zn_mem_kind kind;       /* ZN_MEM_HOST for registered ranges too */
    char *base;
    size_t size;
    bool mapped;
} ptr_info;

static ptr_info ptr_query(CUdeviceptr ptr)
{
    ptr_info pi = { 0 };
    void *base;
    host_range h;
    if (zn_mem_lookup((void *)(uintptr_t)ptr, &base, &pi.size, &pi.kind) == 0) {
        pi.known = true;
        pi.base = base;
        pi.mapped = true;
    } else if (host_find((void *)(uintptr_t)ptr, &h)) {
        pi.known = true;
        pi.kind = ZN_MEM_HOST;
        pi.base = h.p;
        pi.size = h.n;
        pi.mapped = true;
    }
    return pi;
}

/* Writes one attribute; unknown pointers get CUDA_ERROR_INVALID_VALUE.
 * IS_MANAGED and SYNC_MEMOPS are ints; the other flags are one-byte bools. */
static CUresult ptr_attr(void *data, CUpointer_attribute a, CUdeviceptr ptr,
                         const ptr_info *pi, zn_ctx *ctx)
{
    bool host_kind = pi->kind == ZN_MEM_HOST;
    if (!pi->known)
        return CUDA_ERROR_INVALID_VALUE;
    switch (a) {
    case CU_POINTER_ATTRIBUTE_CONTEXT:
        *(CUcontext *)data = ctx;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_MEMORY_TYPE:
        *(unsigned *)data = host_kind ? CU_MEMORYTYPE_HOST : CU_MEMORYTYPE_DEVICE;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_DEVICE_POINTER:
        *(CUdeviceptr *)data = ptr;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_HOST_POINTER:
        /* as on a GPU, plain device memory has no host address */
        if (pi->kind == ZN_MEM_DEVICE || pi->kind == ZN_MEM_MODULE)
            return CUDA_ERROR_INVALID_VALUE;
        *(void **)data = (void *)(uintptr_t)ptr;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_SYNC_MEMOPS:
        *(int *)data = 1;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_MAPPED:
        *(bool *)data = true;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_IS_MANAGED:
        /* an int: cudart leaves 4 bytes for it (measured) */
        *(int *)data = pi->kind == ZN_MEM_MANAGED;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE: {
        /* cuMemAlloc memory (not VMM or imported mappings): zn_drv_ipc.c */
        void *rb;
        size_t rs;
        *(bool *)data = pi->kind == ZN_MEM_DEVICE &&
                        zn_mem_reserved_at((void *)(uintptr_t)ptr, 1, &rb, &rs) != 0;
        return CUDA_SUCCESS;
    }
    case CU_POINTER_ATTRIBUTE_IS_GPU_DIRECT_RDMA_CAPABLE:
        *(bool *)data = false;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_BUFFER_ID:
        *(unsigned long long *)data = (unsigned long long)(uintptr_t)pi->base;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL:
        *(int *)data = 0;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR:
    case CU_POINTER_ATTRIBUTE_MAPPING_BASE_ADDR:
        *(CUdeviceptr *)data = (CUdeviceptr)(uintptr_t)pi->base;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_RANGE_SIZE:
    case CU_POINTER_ATTRIBUTE_MAPPING_SIZE:
        *(size_t *)data = pi->size;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES:
        *(unsigned long long *)data = 0;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_ACCESS_FLAGS:
        *(unsigned long long *)data = 3;    /* read and write */
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE:
        *(void **)data = NULL;
        return CUDA_SUCCESS;
    default:
        return CUDA_ERROR_INVALID_VALUE;
    }
}

CUresult cuPointerGetAttribute(void *data, CUpointer_attribute attr, CUdeviceptr ptr)
{
    ZN_ENTER(c);
    if (!data)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    ptr_info pi = ptr_query(ptr);
    ZN_RET(ptr_attr(data, attr, ptr, &pi, c));
}

/* CU_POINTER_ATTRIBUTE_SYNC_MEMOPS is the one attribute CUDA lets a program
 * set. Zinc's synchronous copies and sets always synchronise, on any
 * memory, so asking for that (1) holds already; asking for less (0) would
 * make cuPointerGetAttribute answer 0 for memory that still behaves as 1,
 * so it is refused, with a log line. */
CUresult cuPointerSetAttribute(const void *value, CUpointer_attribute attr, CUdeviceptr ptr)
{
    ZN_ENTER(c);
    (void)c;
    if (!value || attr != CU_POINTER_ATTRIBUTE_SYNC_MEMOPS)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    ptr_info pi = ptr_query(ptr);
    if (!pi.known || pi.kind == ZN_MEM_HOST)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    if (!*(const int *)value) {
        zn_log(ZN_LOG_WARN, "cuPointerSetAttribute: SYNC_MEMOPS 0 is not supported (Zinc's "
                            "synchronous memory operations always synchronise)");
        ZN_RET(CUDA_ERROR_NOT_SUPPORTED);
    }
    ZN_RET(CUDA_SUCCESS);
}

/* Unlike the single query, an unknown pointer is not an error here: each
 * attribute gets its "not CUDA memory" value (what cudart reports as
 * cudaMemoryTypeUnregistered). */
CUresult cuPointerGetAttributes(unsigned int n, CUpointer_attribute *attrs, void **data,
                                CUdeviceptr ptr)
{
    ZN_ENTER(c);
    if (!attrs || !data)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    ptr_info pi = ptr_query(ptr);
    for (unsigned i = 0; i < n; i++) {
        if (!data[i])
            continue;
        CUresult r = ptr_attr(data[i], attrs[i], ptr, &pi, c);
        if (r == CUDA_SUCCESS)
            continue;
        switch (attrs[i]) {
        case CU_POINTER_ATTRIBUTE_CONTEXT:
        case CU_POINTER_ATTRIBUTE_HOST_POINTER:
        case CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE:
            *(void **)data[i] = NULL;
            break;
        case CU_POINTER_ATTRIBUTE_MEMORY_TYPE:
            *(unsigned *)data[i] = 0;
            break;
        case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL:
            *(int *)data[i] = -2;
            break;
        case CU_POINTER_ATTRIBUTE_SYNC_MEMOPS:
        case CU_POINTER_ATTRIBUTE_IS_MANAGED:
            *(int *)data[i] = 0;
            break;
        case CU_POINTER_ATTRIBUTE_MAPPED:
        case CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE:
        case CU_POINTER_ATTRIBUTE_IS_GPU_DIRECT_RDMA_CAPABLE:
            *(bool *)data[i] = false;
            break;
        case CU_POINTER_ATTRIBUTE_RANGE_SIZE:
        case CU_POINTER_ATTRIBUTE_MAPPING_SIZE:
            *(size_t *)data[i] = 0;
            break;
        case CU_POINTER_ATTRIBUTE_DEVICE_POINTER:
        case CU_POINTER_ATTRIBUTE_BUFFER_ID:
        case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR:
        case CU_POINTER_ATTRIBUTE_MAPPING_BASE_ADDR:
        case CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES:
        case CU_POINTER_ATTRIBUTE_ACCESS_FLAGS:
            *(unsigned long long *)data[i] = 0;
            break;
        default:
            ZN_RET(CUDA_ERROR_INVALID_VALUE);
        }
    }
    ZN_RET(CUDA_SUCCESS);
}
