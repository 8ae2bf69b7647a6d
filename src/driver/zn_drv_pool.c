/* zn_drv_pool.c: memory pools and stream-ordered allocation
 * (cuMemAllocAsync, cuMemAllocFromPoolAsync, cuMemFreeAsync).
 *
 * Device 0 and the host each have a default pool; cuMemPoolCreate makes
 * more (on the device or on the host), and CUDA 13's managed pools
 * (CU_MEM_ALLOCATION_TYPE_MANAGED: a default for each preferred location,
 * and cuMemPoolCreate) hand out cuMemAllocManaged-kind memory.
 * An async allocation is made at once (memory is ready before
 * any later work of any stream needs it); an async free is queued on its
 * stream. When the stream reaches the free, the block goes to its pool's
 * cache, and the pool gives cached blocks back until what it holds
 * (reserved) is at most its release threshold (default 0: nothing is kept).
 * A later allocation of the pool reuses a cached block of 1x-2x its size.
 * Blocks enter the cache only once their free has run, so reuse is safe
 * whatever the reuse flags say; the flags are kept and read back.
 *
 * Every allocation of a pool has a record (ptr -> pool, size) in one hash
 * table, so frees find their pool and cuMemFree of a pool allocation keeps
 * the counts right (zn_pool_on_free). A destroyed pool is unlinked at once
 * (its handle is then invalid) and freed when its last allocation is.
 *
 * Pools created with CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR can be shared:
 * the pool's handle is a one-page memfd holding the exporter's pid and a
 * tag; an exported pointer is the allocation made shareable in place, as
 * cuIpcGetMemHandle does (zn_drv_ipc.c), plus that tag. The importer maps
 * it in its device range; cuMemFree/cuMemFreeAsync unmap it there.
 */
#define _GNU_SOURCE
#include "zn_drv.h"
#include "zn_drv_ipc.h"
#include "../exec/zn_exec.h"
#include "../util/zn_log.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
    LOC_NONE = 0, LOC_DEVICE = 1, LOC_HOST = 2, LOC_HOST_NUMA = 3, LOC_HOST_NUMA_CURRENT = 4,
    ALLOCATION_TYPE_PINNED = 1, ALLOCATION_TYPE_MANAGED = 2,
    ACCESS_NONE = 0, ACCESS_READ = 1, ACCESS_RW = 3,
    NBUCKETS = 1024
};

typedef struct blk {
    void *p;
    size_t size;
    struct zn_pool *pool;
    struct blk *next;
} blk;

typedef struct zn_pool {
    uint32_t magic;
    struct zn_pool *next;       /* live pools */
    CUmemLocation loc;          /* device 0, or the host */
    bool is_default;
    bool managed;               /* CU_MEM_ALLOCATION_TYPE_MANAGED: cuMemAllocManaged memory */
    size_t max_size;            /* 0: no limit */
    int reuse[3];
    uint64_t release_threshold;
    uint64_t used, used_high, reserved, reserved_high;
    size_t outstanding;         /* allocations not yet given back (frees pending included) */
    bool destroyed;
    int peer_access;            /* host pools: device 0's access; device pools: the host's */
    blk *cache;                 /* freed blocks kept under the release threshold */
    /* shareable (POSIX fd) pools: the exporter's memfd, or the importer's
     * record of the exporter */
    bool shareable, imported;
    int share_fd;               /* exporter: the pool's memfd */
    uint64_t share_tag;
    int32_t share_pid;
} zn_pool;

/* One lock for pools, records and caches: pool calls are not hot. */
static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
/* Device 0's default pool and the host's (CUDA 13's location queries). */
/* Managed pools (CUDA 13): a default per preferred location, by slot
 * (0: no preferred location, 1: device 0, 2: the host; see location_pool).
 * Their memory is managed memory: the host and the device both read and
 * write it, which on a CPU device is every allocation. */
static zn_pool managed_defaults[3] = {
    { .magic = POOL_MAGIC, .loc = { LOC_NONE, 0 }, .is_default = true, .managed = true,
      .reuse = { 1, 1, 1 }, .next = &managed_defaults[1] },
    { .magic = POOL_MAGIC, .loc = { LOC_DEVICE, 0 }, .is_default = true, .managed = true,
      .reuse = { 1, 1, 1 }, .next = &managed_defaults[2] },
    { .magic = POOL_MAGIC, .loc = { LOC_HOST, 0 }, .is_default = true, .managed = true,
      .reuse = { 1, 1, 1 } },
};
static zn_pool *current_managed[3] = {
    &managed_defaults[0], &managed_defaults[1], &managed_defaults[2],
};
static zn_pool default_host_pool = {
    .magic = POOL_MAGIC, .loc = { LOC_HOST, 0 }, .is_default = true, .reuse = { 1, 1, 1 },
    .next = &managed_defaults[0],
};
static zn_pool default_pool = {
    .magic = POOL_MAGIC, .loc = { LOC_DEVICE, 0 }, .is_default = true, .reuse = { 1, 1, 1 },
    .next = &default_host_pool,
};
static zn_pool *pools = &default_pool;     /* live list, the defaults first */
static zn_pool *current_pool = &default_pool, *current_host_pool = &default_host_pool;
static blk *in_use[NBUCKETS];

static size_t bucket(const void *p)
{
    uintptr_t x = (uintptr_t)p >> 8;
    return (x ^ (x >> 10) ^ (x >> 20)) % NBUCKETS;
}

/* Under pool_lock. */
static zn_pool *pool_find(CUmemoryPool h)
{
    for (zn_pool *p = pools; p; p = p->next)
        if ((void *)p == h)
            return p;
    return NULL;
}

static void note_high(zn_pool *p)
{
    if (p->used > p->used_high)
        p->used_high = p->used;
    if (p->reserved > p->reserved_high)
        p->reserved_high = p->reserved;
}

/* A destroyed pool with nothing left goes away (under pool_lock). */
static void pool_maybe_free(zn_pool *p)
{
    if (p->destroyed && p->outstanding == 0 && !p->cache && !p->is_default) {
        if (p->shareable && !p->imported)
            close(p->share_fd);
        free(p);
    }
}

/* Gives cached blocks back until reserved <= keep (under pool_lock). */
static void pool_trim(zn_pool *p, uint64_t keep)
{
    while (p->cache && p->reserved > keep) {
        blk *b = p->cache;
        p->cache = b->next;
        p->reserved -= b->size;
        zn_mem_free(b->p);
        free(b);
    }
}

/* current: the device's current pool (cuMemAllocAsync), else h. */
static CUresult alloc_async(CUdeviceptr *dptr, size_t bytes, CUmemoryPool h, bool current,
                            CUstream s)
{
    zn_ctx *c;
    CUresult r = zn_ctx_enter(&c);
    if (r != CUDA_SUCCESS)
        return r;
    if (!zn_stream_valid(s))
        return zn_stream_bad(s);
    zn_stream *cs = zn_stream_get(s, false);    /* captured: a graph alloc node */
    if (cs && cs->cap && dptr && bytes)
        return zn_gmem_capture_alloc(cs, bytes, dptr);
    pthread_mutex_lock(&pool_lock);
    zn_pool *p = current ? current_pool : pool_find(h);
    if (!p)
        r = CUDA_ERROR_INVALID_HANDLE;
    else if (!dptr || bytes == 0 || p->imported)   /* imported pools do not allocate */
        r = CUDA_ERROR_INVALID_VALUE;
    else if (p->max_size && p->used + bytes > p->max_size)
        r = CUDA_ERROR_OUT_OF_MEMORY;
    blk *b = NULL;
    if (r == CUDA_SUCCESS) {
        for (blk **pp = &p->cache; *pp; pp = &(*pp)->next) {
            if ((*pp)->size >= bytes && (*pp)->size / 2 <= bytes) {
                b = *pp;
                *pp = b->next;
                break;
            }
        }
        if (!b) {
            b = calloc(1, sizeof *b);
            void *m = b ? zn_mem_alloc(bytes, 0,
                                       p->managed ? ZN_MEM_MANAGED
                                       : p->loc.type == LOC_DEVICE ? ZN_MEM_DEVICE : ZN_MEM_HOST)
                        : NULL;
            if (!m) {
                free(b);
                b = NULL;
                r = CUDA_ERROR_OUT_OF_MEMORY;
            } else {
                *b = (blk){ m, bytes, p, NULL };
                p->reserved += bytes;
            }
        }
    }
    if (b) {
        p->used += b->size;
        p->outstanding++;
        note_high(p);
        size_t k = bucket(b->p);
        b->next = in_use[k];
        in_use[k] = b;
        *dptr = (CUdeviceptr)(uintptr_t)b->p;
    }
    pthread_mutex_unlock(&pool_lock);
    return r;
}

/* Under pool_lock: the record of the pool allocation starting at ptr,
 * unlinked, or NULL. */
static blk *take_record(const void *ptr)
{
    for (blk **pp = &in_use[bucket(ptr)]; *pp; pp = &(*pp)->next) {
        if ((*pp)->p == ptr) {
            blk *b = *pp;
            *pp = b->next;
            b->next = NULL;
            return b;
        }
    }
    return NULL;
}

static void put_record(blk *b)
{
    size_t k = bucket(b->p);
    b->next = in_use[k];
    in_use[k] = b;
}

/* At exit, cached blocks are given back, so that ZINC_CHECK=leaks does not
 * report memory the program freed: the checker's atexit handler is made to
 * register before this one, so it runs after it. */
static void trim_all_at_exit(void)
{
    pthread_mutex_lock(&pool_lock);
    for (zn_pool *p = pools; p; p = p->next)
        pool_trim(p, 0);
    pthread_mutex_unlock(&pool_lock);
}

static void register_exit_trim(void)
{
    zn_check_mode();    /* the checker registers its handler first (if on) */
    atexit(trim_all_at_exit);
}

/* The stream reached the free: the block goes to its pool's cache, then
 * the pool keeps at most its release threshold. */
static void pool_free_run(void *user)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, register_exit_trim);
    blk *b = user;
    pthread_mutex_lock(&pool_lock);
    zn_pool *p = b->pool;
    b->next = p->cache;
    p->cache = b;
    p->outstanding--;
    pool_trim(p, p->destroyed ? 0 : p->release_threshold);
    pool_maybe_free(p);
    pthread_mutex_unlock(&pool_lock);
}

/* A captured free: the allocation at p, if it is still one. */
static void pool_free_addr(void *p)
{
    pthread_mutex_lock(&pool_lock);
    blk *b = take_record(p);
    if (b)
        b->pool->used -= b->size;
    pthread_mutex_unlock(&pool_lock);
    if (b)
        pool_free_run(b);
}

static void free_now(void *p)
{
    zn_mem_free(p);
}

static void free_mapping(void *p)
{
    zn_ipc_free_mapping(p);
}

/* The memory is given back when the stream reaches the free, so kernels
 * queued before it may still use it. Memory from cuMemAlloc may be freed
 * this way too. */
static CUresult free_async(CUdeviceptr dptr, CUstream h, bool pt)
{
    zn_stream *s;
    CUresult r = zn_stream_enter(h, pt, &s);
    if (r != CUDA_SUCCESS)
        return r;
    struct zn_gmem *gm = zn_gmem_find(dptr);    /* a graph allocation (zn_drv_graph_mem.c) */
    if (gm)
        return s->cap ? zn_gmem_capture_free(s, gm) : zn_gmem_free_outside(gm, s);
    void *base, *p = (void *)(uintptr_t)dptr;
    pthread_mutex_lock(&pool_lock);
    blk *b = take_record(p);
    if (b && s->cap) {
        /* captured: the graph's free node finds the block by address when
         * it runs, so a second launch cannot free it twice */
        put_record(b);
        pthread_mutex_unlock(&pool_lock);
        zn_op *op = zn_op_new(ZN_OP_HOST, 0);
        if (!op)
            return CUDA_ERROR_OUT_OF_MEMORY;
        op->u.host.fn = pool_free_addr;
        op->u.host.user = p;
        return zn_submit(s, op, false);
    }
    if (b)
        b->pool->used -= b->size;
    pthread_mutex_unlock(&pool_lock);
    zn_op *op = zn_op_new(ZN_OP_HOST, 0);
    if (!b) {
        size_t size;
        zn_mem_kind kind;
        if (zn_ipc_is_freeable(p)) {   /* a pointer imported from a shared pool */
            if (!op)
                return CUDA_ERROR_OUT_OF_MEMORY;
            op->u.host.fn = free_mapping;
            op->u.host.user = p;
            return zn_submit(s, op, false);
        }
        if (zn_mem_lookup(p, &base, &size, &kind) != 0 || base != p || kind != ZN_MEM_DEVICE) {
            free(op);
            return CUDA_ERROR_INVALID_VALUE;
        }
    }
    if (!op)
        r = CUDA_ERROR_OUT_OF_MEMORY;
    else {
        op->u.host.fn = b ? pool_free_run : free_now;
        op->u.host.user = b ? (void *)b : p;
        r = zn_submit(s, op, false);
    }
    if (r != CUDA_SUCCESS && b) {   /* not freed: the allocation stays */
        pthread_mutex_lock(&pool_lock);
        b->pool->used += b->size;
        put_record(b);
        pthread_mutex_unlock(&pool_lock);
    }
    return r;
}

int zn_pool_on_free(void *ptr)
{
    int ret = 0;
    pthread_mutex_lock(&pool_lock);
    blk *b = take_record(ptr);
    if (b) {
        zn_pool *p = b->pool;
        p->used -= b->size;
        p->reserved -= b->size;
        p->outstanding--;
        free(b);
        pool_maybe_free(p);
        ret = 1;
    } else {
        for (zn_pool *p = pools; p && !ret; p = p->next)
            for (blk *c = p->cache; c && !ret; c = c->next)
                ret = c->p == ptr ? -1 : 0;
    }
    pthread_mutex_unlock(&pool_lock);
    return ret;
}

#define DEFAULT_POOL ((CUmemoryPool)&default_pool)

CUresult cuMemAllocAsync(CUdeviceptr *dptr, size_t bytes, CUstream s)
{
    ZN_RET(alloc_async(dptr, bytes, NULL, true, s));
}

CUresult cuMemAllocAsync_ptsz(CUdeviceptr *dptr, size_t bytes, CUstream s)
{
    /* NULL: this thread's stream (a capture of it adds a graph alloc node) */
    ZN_RET(alloc_async(dptr, bytes, NULL, true, s ? s : ZN_CU_STREAM_PER_THREAD));
}

CUresult cuMemAllocFromPoolAsync(CUdeviceptr *dptr, size_t bytes, CUmemoryPool pool,
                                 CUstream s)
{
    ZN_RET(alloc_async(dptr, bytes, pool, false, s));
}

CUresult cuMemAllocFromPoolAsync_ptsz(CUdeviceptr *dptr, size_t bytes, CUmemoryPool pool,
                                      CUstream s)
{
    ZN_RET(alloc_async(dptr, bytes, pool, false, s ? s : ZN_CU_STREAM_PER_THREAD));
}

CUresult cuMemFreeAsync(CUdeviceptr dptr, CUstream s)
{
    ZN_RET(free_async(dptr, s, false));
}

CUresult cuMemFreeAsync_ptsz(CUdeviceptr dptr, CUstream s)
{
    ZN_RET(free_async(dptr, s, true));
}

/* ---- creating and destroying pools ---- */

static bool zeros(const unsigned char *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (b[i])
            return false;
    return true;
}

/* ---- shareable pools ---- */

#define POOL_SHARE_MAGIC 0x5a69706c6f6f6c31ull     /* "Zipool1" */
#define POOL_PTR_MAGIC 0x5a697070u                  /* "Zipp" */

/* What the pool's memfd holds. */
typedef struct pool_share_page {
    uint64_t magic, tag;
    int32_t pid;
} pool_share_page;

/* CUmemPoolPtrExportData (64 bytes). */
typedef struct pool_ptr_wire {
    uint32_t magic;
    int32_t pid, fd;
    uint32_t unused;
    uint64_t pool_tag, tag, span, offset, size;
    uint8_t unused2[8];
} pool_ptr_wire;
_Static_assert(sizeof(pool_ptr_wire) == sizeof(CUmemPoolPtrExportData), "export data size");

static CUresult pool_make_shareable(zn_pool *p)
{
    p->share_tag = zn_ipc_new_tag();
    p->share_fd = zn_ipc_make_memfd(p->share_tag, sizeof(pool_share_page));
    if (p->share_fd < 0)
        return CUDA_ERROR_OUT_OF_MEMORY;
    pool_share_page pg = { POOL_SHARE_MAGIC, p->share_tag, (int32_t)getpid() };
    if (pwrite(p->share_fd, &pg, sizeof pg, 0) != (ssize_t)sizeof pg) {
        close(p->share_fd);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    p->share_pid = pg.pid;
    p->shareable = true;
    return CUDA_SUCCESS;
}

/* The caller owns the fd returned (closes it, or sends it to a peer). */
CUresult cuMemPoolExportToShareableHandle(void *out, CUmemoryPool pool, int type,
                                          unsigned long long flags)
{
    ZN_CHECK_INIT();
    if (!out || flags)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    pthread_mutex_lock(&pool_lock);
    zn_pool *p = pool_find(pool);
    int fd = -1;
    CUresult r = CUDA_SUCCESS;
    if (!p || !p->shareable || p->imported || type != ZN_CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR)
        r = CUDA_ERROR_INVALID_VALUE;
    else if ((fd = fcntl(p->share_fd, F_DUPFD_CLOEXEC, 0)) < 0)
        r = CUDA_ERROR_OUT_OF_MEMORY;
    pthread_mutex_unlock(&pool_lock);
    if (r == CUDA_SUCCESS)
        *(int *)out = fd;
    ZN_RET(r);
}

/* handle: the fd's value cast to a pointer; it stays the caller's. */
CUresult cuMemPoolImportFromShareableHandle(CUmemoryPool *pool, void *handle, int type,
                                            unsigned long long flags)
{
    ZN_CHECK_INIT();
    if (!pool || flags || type != ZN_CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    pool_share_page pg;
    int fd = (int)(intptr_t)handle;
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0)    /* no open file: NVIDIA answers UNKNOWN */
        ZN_RET(CUDA_ERROR_UNKNOWN);
    if (pread(fd, &pg, sizeof pg, 0) != (ssize_t)sizeof pg || pg.magic != POOL_SHARE_MAGIC)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    /* the process's own pool: NVIDIA's driver imports it too (H200),
     * unlike its own cuIpcOpenMemHandle; its pointers are not (below) */
    zn_pool *p = calloc(1, sizeof *p);
    if (!p)
        ZN_RET(CUDA_ERROR_OUT_OF_MEMORY);
    p->magic = POOL_MAGIC;
    p->loc = (CUmemLocation){ LOC_DEVICE, 0 };
    p->reuse[0] = p->reuse[1] = p->reuse[2] = 1;
    p->shareable = p->imported = true;
    p->share_fd = -1;
    p->share_tag = pg.tag;
    p->share_pid = pg.pid;
    pthread_mutex_lock(&pool_lock);
    p->next = default_pool.next;
    default_pool.next = p;
    pthread_mutex_unlock(&pool_lock);
    *pool = (CUmemoryPool)p;
    ZN_RET(CUDA_SUCCESS);
}

CUresult cuMemPoolExportPointer(CUmemPoolPtrExportData *out, CUdeviceptr ptr)
{
    ZN_ENTER(c);
    void *a = (void *)(uintptr_t)ptr;
    if (!out)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    pthread_mutex_lock(&pool_lock);
    blk *b = take_record(a);
    zn_pool *p = b ? b->pool : NULL;
    uint64_t pool_tag = p ? p->share_tag : 0;
    bool ok = p && p->shareable && !p->imported;
    if (b)
        put_record(b);
    pthread_mutex_unlock(&pool_lock);
    if (!ok)    /* not the start of an allocation of a shareable pool */
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    /* the contents move into a memfd: nothing may write them meanwhile */
    CUresult r = zn_ctx_wait_all(c);
    if (r != CUDA_SUCCESS)
        ZN_RET(r);
    zn_mem_shared sh;
    if (zn_mem_share(a, zn_ipc_new_tag(), &sh) != 0)
        ZN_RET(CUDA_ERROR_MAP_FAILED);
    pool_ptr_wire w = { .magic = POOL_PTR_MAGIC, .pid = (int32_t)getpid(), .fd = sh.fd,
                        .pool_tag = pool_tag, .tag = sh.tag, .span = sh.span,
                        .offset = (uint64_t)((char *)a - (char *)sh.base), .size = sh.size };
    memset(out, 0, sizeof *out);
    memcpy(out, &w, sizeof w);
    ZN_RET(CUDA_SUCCESS);
}

CUresult cuMemPoolImportPointer(CUdeviceptr *out, CUmemoryPool pool,
                                CUmemPoolPtrExportData *data)
{
    ZN_ENTER(c);
    (void)c;
    if (!out || !data)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    pool_ptr_wire w;
    memcpy(&w, data, sizeof w);
    pthread_mutex_lock(&pool_lock);
    zn_pool *p = pool_find(pool);
    bool ok = p && p->imported && w.magic == POOL_PTR_MAGIC && w.pool_tag == p->share_tag &&
              w.pid == p->share_pid && w.span && w.offset < w.span;
    pthread_mutex_unlock(&pool_lock);
    if (!ok)    /* not data exported from this pool */
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    if (w.pid == getpid()) {
        zn_log(ZN_LOG_WARN, "cuMemPoolImportPointer: a pointer of this process's own pool "
               "(imported from its own handle) is not supported; use the pointer itself");
        ZN_RET(CUDA_ERROR_NOT_SUPPORTED);
    }
    int fd;
    CUresult r = zn_ipc_open_peer(w.pid, w.fd, w.tag, w.span, &fd);
    if (r != CUDA_SUCCESS)
        ZN_RET(r);
    void *m = zn_ipc_map_freeable(fd, w.span, 0, ZN_IPCMAP_POOLPTR);
    close(fd);
    if (!m)
        ZN_RET(CUDA_ERROR_MAP_FAILED);
    *out = (CUdeviceptr)(uintptr_t)((char *)m + w.offset);
    ZN_RET(CUDA_SUCCESS);
}

CUresult cuMemPoolCreate(CUmemoryPool *pool, const CUmemPoolProps *props)
{
    ZN_CHECK_INIT();
    bool managed = props && props->allocType == ALLOCATION_TYPE_MANAGED;
    if (!pool || !props || (props->allocType != ALLOCATION_TYPE_PINNED && !managed) ||
        props->win32SecurityAttributes || !zeros(props->reserved, sizeof props->reserved))
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    int t = props->location.type;
    if (t == LOC_DEVICE) {
        if (props->location.id != 0)
            ZN_RET(CUDA_ERROR_INVALID_DEVICE);
    } else if (t == LOC_HOST_NUMA) {
        if (props->location.id != 0)    /* one host node */
            ZN_RET(CUDA_ERROR_INVALID_VALUE);
    } else if (t != LOC_HOST && !(managed && t == LOC_NONE)) {
        ZN_RET(CUDA_ERROR_INVALID_VALUE);   /* no preferred location: managed pools only */
    }
    if (managed && props->handleTypes != 0)     /* managed memory has no IPC handles */
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    if (props->handleTypes != 0) {
        if (t != LOC_DEVICE)    /* host pools are never IPC capable */
            ZN_RET(CUDA_ERROR_INVALID_VALUE);
        if (props->handleTypes != ZN_CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR) {
            zn_log(ZN_LOG_WARN, "cuMemPoolCreate: handle types 0x%x: only POSIX file "
                   "descriptors (Win32 and fabric handles have no meaning here), returning "
                   "CUDA_ERROR_NOT_SUPPORTED", (unsigned)props->handleTypes);
            ZN_RET(CUDA_ERROR_NOT_SUPPORTED);
        }
    }
    zn_pool *p = calloc(1, sizeof *p);
    if (!p)
        ZN_RET(CUDA_ERROR_OUT_OF_MEMORY);
    if (props->handleTypes != 0) {
        CUresult r = pool_make_shareable(p);
        if (r != CUDA_SUCCESS) {
            free(p);
            ZN_RET(r);
        }
    }
    p->magic = POOL_MAGIC;
    p->loc = (CUmemLocation){ t, t == LOC_HOST ? 0 : props->location.id };
    p->max_size = props->maxSize;
    p->managed = managed;
    p->reuse[0] = p->reuse[1] = p->reuse[2] = 1;
    p->peer_access = ACCESS_NONE;
    pthread_mutex_lock(&pool_lock);
    p->next = default_pool.next;    /* the default stays first */
    default_pool.next = p;
    pthread_mutex_unlock(&pool_lock);
    *pool = (CUmemoryPool)p;
    ZN_RET(CUDA_SUCCESS);
}

CUresult cuMemPoolDestroy(CUmemoryPool pool)
{
    ZN_CHECK_INIT();
    pthread_mutex_lock(&pool_lock);
    zn_pool *p = pool_find(pool);
    CUresult r = !p || p->is_default ? CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS;
    if (r == CUDA_SUCCESS) {
        for (zn_pool **pp = &pools; *pp; pp = &(*pp)->next) {
            if (*pp == p) {
                *pp = p->next;
                break;
            }
        }
        if (current_pool == p)
            current_pool = &default_pool;
        if (current_host_pool == p)
            current_host_pool = &default_host_pool;
        for (int i = 0; i < 3; i++)
            if (current_managed[i] == p)
                current_managed[i] = &managed_defaults[i];
        p->destroyed = true;
        p->magic = 0;
        pool_trim(p, 0);
        pool_maybe_free(p);
    }
    pthread_mutex_unlock(&pool_lock);
    ZN_RET(r);
}

/* ---- access: the pool's own location always has read-write access ---- */

static bool loc_is_host(const CUmemLocation *l)
{
    return l->type == LOC_HOST || (l->type == LOC_HOST_NUMA && l->id == 0);
}

/* A place that may access a pool: the host (1), device 0 (0), or an
 * error in *why (-1). */
static int place_of(const CUmemLocation *l, CUresult *why)
{
    if (loc_is_host(l))
        return 1;
    if (l->type != LOC_DEVICE) {
        *why = CUDA_ERROR_INVALID_VALUE;
        return -1;
    }
    if (l->id != 0) {
        *why = CUDA_ERROR_INVALID_DEVICE;
        return -1;
    }
    return 0;
}

/* The pool's own place (device 0 for device pools, the host for host
 * pools) always reads and writes; the other place has what was set
 * (none at first). */
static bool own_place(const zn_pool *p, int place)
{
    if (p->managed)     /* managed memory: both places, always */
        return true;
    return place == (p->loc.type != LOC_DEVICE);
}

CUresult cuMemPoolSetAccess(CUmemoryPool pool, const CUmemAccessDesc *map, size_t count)
{
    ZN_CHECK_INIT();
    if (!map && count)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    CUresult r = CUDA_SUCCESS;
    pthread_mutex_lock(&pool_lock);
    zn_pool *p = pool_find(pool);
    if (!p)
        r = CUDA_ERROR_INVALID_VALUE;
    /* every entry is checked first: a refused map changes nothing */
    for (size_t i = 0; i < count && r == CUDA_SUCCESS; i++) {
        int f = map[i].flags, place = place_of(&map[i].location, &r);
        if (place < 0)
            break;
        if ((f != ACCESS_NONE && f != ACCESS_READ && f != ACCESS_RW) ||
            (own_place(p, place) && f != ACCESS_RW))
            r = CUDA_ERROR_INVALID_VALUE;
    }
    for (size_t i = 0; i < count && r == CUDA_SUCCESS; i++)
        if (!own_place(p, place_of(&map[i].location, &r)))
            p->peer_access = map[i].flags;
    pthread_mutex_unlock(&pool_lock);
    ZN_RET(r);
}

CUresult cuMemPoolGetAccess(int *flags, CUmemoryPool pool, CUmemLocation *loc)
{
    ZN_CHECK_INIT();
    if (!flags || !loc)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    CUresult r = CUDA_SUCCESS;
    pthread_mutex_lock(&pool_lock);
    zn_pool *p = pool_find(pool);
    if (!p)
        r = CUDA_ERROR_INVALID_VALUE;
    else {
        /* a managed pool's memory is reached as managed memory, not
         * through the pool's access map, which NVIDIA's driver reports
         * empty (PROT_NONE for the host and the device, H200) */
        int place = place_of(loc, &r);
        if (place >= 0)
            *flags = p->managed ? ACCESS_NONE : own_place(p, place) ? ACCESS_RW : p->peer_access;
    }
    pthread_mutex_unlock(&pool_lock);
    ZN_RET(r);
}

/* ---- the device's pools ---- */

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
    ZN_CHECK_INIT();
    if (dev < 0 || dev >= ZN_NDEVICES)
        ZN_RET(CUDA_ERROR_INVALID_DEVICE);
    if (!pool)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    pthread_mutex_lock(&pool_lock);
    *pool = (CUmemoryPool)current_pool;
    pthread_mutex_unlock(&pool_lock);
    ZN_RET(CUDA_SUCCESS);
}

/* The pool must live on that device: a host pool cannot be its pool. A
 * managed pool of the device becomes its current managed pool (NVIDIA's
 * driver accepts it so; the pinned current pool stays). */
static CUresult set_device_pool(CUmemoryPool pool)
{
    pthread_mutex_lock(&pool_lock);
    zn_pool *p = pool_find(pool);
    CUresult r = !p ? CUDA_ERROR_INVALID_HANDLE
               : p->loc.type != LOC_DEVICE ? CUDA_ERROR_INVALID_VALUE
               : CUDA_SUCCESS;
    if (r == CUDA_SUCCESS && p->managed)
        current_managed[1] = p;
    else if (r == CUDA_SUCCESS)
        current_pool = p;
    pthread_mutex_unlock(&pool_lock);
    return r;
}

CUresult cuDeviceSetMemPool(CUdevice dev, CUmemoryPool pool)
{
    ZN_CHECK_INIT();
    if (dev < 0 || dev >= ZN_NDEVICES)
        ZN_RET(CUDA_ERROR_INVALID_DEVICE);
    ZN_RET(set_device_pool(pool));
}

/* CUDA 13's location-based queries: device 0's pools and the host's, for
 * pinned (ordinary) and managed allocations. *slot: 0 no preferred location
 * (managed only), 1 device 0, 2 the host (a host NUMA node is node 0, the
 * host). */
static CUresult location_pool(const CUmemLocation *loc, int type, int *slot)
{
    if (!atomic_load(&zn_drv_inited))
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!loc || (type != ALLOCATION_TYPE_PINNED && type != ALLOCATION_TYPE_MANAGED))
        return CUDA_ERROR_INVALID_VALUE;
    if (loc->type == LOC_NONE)
        return type == ALLOCATION_TYPE_MANAGED ? (*slot = 0, CUDA_SUCCESS)
                                                : CUDA_ERROR_INVALID_VALUE;
    if (loc_is_host(loc))
        return *slot = 2, CUDA_SUCCESS;
    /* NVIDIA's driver (measured): the current host NUMA node has no managed
     * pool to name, NOT_SUPPORTED; a device that does not exist is
     * INVALID_VALUE for managed pools, not INVALID_DEVICE */
    if (loc->type == LOC_HOST_NUMA_CURRENT && type == ALLOCATION_TYPE_MANAGED)
        return CUDA_ERROR_NOT_SUPPORTED;
    if (loc->type != LOC_DEVICE)
        return CUDA_ERROR_INVALID_VALUE;
    *slot = 1;
    return loc->id == 0 ? CUDA_SUCCESS
         : type == ALLOCATION_TYPE_MANAGED ? CUDA_ERROR_INVALID_VALUE : CUDA_ERROR_INVALID_DEVICE;
}

/* The slot of a pool's own location (location_pool's numbering). */
static int pool_slot(const zn_pool *p)
{
    return p->loc.type == LOC_NONE ? 0 : p->loc.type == LOC_DEVICE ? 1 : 2;
}

/* Under pool_lock: the current pool of a slot and type. */
static zn_pool **current_of(int type, int slot)
{
    if (type == ALLOCATION_TYPE_MANAGED)
        return &current_managed[slot];
    return slot == 1 ? &current_pool : &current_host_pool;
}

CUresult cuMemGetDefaultMemPool(CUmemoryPool *pool, CUmemLocation *loc, int type)
{
    int slot;
    CUresult r = location_pool(loc, type, &slot);
    if (r == CUDA_SUCCESS && !pool)
        r = CUDA_ERROR_INVALID_VALUE;
    if (r == CUDA_SUCCESS)
        *pool = type == ALLOCATION_TYPE_MANAGED ? (CUmemoryPool)&managed_defaults[slot]
              : slot == 2 ? (CUmemoryPool)&default_host_pool : DEFAULT_POOL;
    ZN_RET(r);
}

CUresult cuMemGetMemPool(CUmemoryPool *pool, CUmemLocation *loc, int type)
{
    int slot;
    CUresult r = location_pool(loc, type, &slot);
    if (r == CUDA_SUCCESS && !pool)
        r = CUDA_ERROR_INVALID_VALUE;
    if (r == CUDA_SUCCESS) {
        pthread_mutex_lock(&pool_lock);
        *pool = (CUmemoryPool)*current_of(type, slot);
        pthread_mutex_unlock(&pool_lock);
    }
    ZN_RET(r);
}

/* The pool must live at that location and be of that allocation type
 * (CUDA_ERROR_INVALID_VALUE otherwise). */
CUresult cuMemSetMemPool(CUmemLocation *loc, int type, CUmemoryPool pool)
{
    int slot;
    CUresult r = location_pool(loc, type, &slot);
    if (r == CUDA_SUCCESS) {
        pthread_mutex_lock(&pool_lock);
        zn_pool *p = pool_find(pool);
        r = !p ? CUDA_ERROR_INVALID_HANDLE
          : p->managed != (type == ALLOCATION_TYPE_MANAGED) || pool_slot(p) != slot
              ? CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS;
        if (r == CUDA_SUCCESS)
            *current_of(type, slot) = p;
        pthread_mutex_unlock(&pool_lock);
    }
    ZN_RET(r);
}

/* ---- trimming and attributes ---- */

CUresult cuMemPoolTrimTo(CUmemoryPool pool, size_t keep)
{
    ZN_CHECK_INIT();
    pthread_mutex_lock(&pool_lock);
    zn_pool *p = pool_find(pool);
    if (p)
        pool_trim(p, keep);
    pthread_mutex_unlock(&pool_lock);
    ZN_RET(p ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE);
}

CUresult cuMemPoolSetAttribute(CUmemoryPool pool, int attr, void *value)
{
    ZN_CHECK_INIT();
    pthread_mutex_lock(&pool_lock);
    zn_pool *p = pool_find(pool);
    CUresult r = !p ? CUDA_ERROR_INVALID_HANDLE : !value ? CUDA_ERROR_INVALID_VALUE
                                                         : CUDA_SUCCESS;
    if (r == CUDA_SUCCESS) {
        switch (attr) {
        case ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES:
        case ATTR_REUSE_ALLOW_OPPORTUNISTIC:
        case ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES:
            p->reuse[attr - 1] = *(const int *)value != 0;
            break;
        case ATTR_RELEASE_THRESHOLD:
            p->release_threshold = *(const uint64_t *)value;
            pool_trim(p, p->release_threshold);
            break;
        case ATTR_RESERVED_MEM_HIGH:    /* the high marks may only be reset to 0 */
        case ATTR_USED_MEM_HIGH:        /* (they restart from the current value) */
            if (*(const uint64_t *)value != 0)
                r = CUDA_ERROR_INVALID_VALUE;
            else if (attr == ATTR_USED_MEM_HIGH)
                p->used_high = p->used;
            else
                p->reserved_high = p->reserved;
            break;
        default:
            r = CUDA_ERROR_INVALID_VALUE;
        }
    }
    pthread_mutex_unlock(&pool_lock);
    ZN_RET(r);
}

CUresult cuMemPoolGetAttribute(CUmemoryPool pool, int attr, void *value)
{
    ZN_CHECK_INIT();
    pthread_mutex_lock(&pool_lock);
    zn_pool *p = pool_find(pool);
    CUresult r = !p ? CUDA_ERROR_INVALID_HANDLE : !value ? CUDA_ERROR_INVALID_VALUE
                                                         : CUDA_SUCCESS;
    if (r == CUDA_SUCCESS) {
        switch (attr) {
        case ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES:
        case ATTR_REUSE_ALLOW_OPPORTUNISTIC:
        case ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES:
            *(int *)value = p->reuse[attr - 1];
            break;
        case ATTR_RELEASE_THRESHOLD: *(uint64_t *)value = p->release_threshold; break;
        case ATTR_RESERVED_MEM_CURRENT: *(uint64_t *)value = p->reserved; break;
        case ATTR_RESERVED_MEM_HIGH: *(uint64_t *)value = p->reserved_high; break;
        case ATTR_USED_MEM_CURRENT: *(uint64_t *)value = p->used; break;
        case ATTR_USED_MEM_HIGH: *(uint64_t *)value = p->used_high; break;
        default:
            r = CUDA_ERROR_INVALID_VALUE;
        }
    }
    pthread_mutex_unlock(&pool_lock);
    ZN_RET(r);
}
