/* zn_drv_vmm.c: virtual memory management (cuMemAddressReserve, cuMemCreate,
 * cuMemMap, cuMemSetAccess and their relatives).
 *
 * Address ranges are reserved inside the executor's device range, so
 * pointers into mapped parts are device pointers like any other (lookups,
 * copies and kernels see them). A physical allocation is a memfd
 * (zn_vmm_phys_create) behind a handle that counts its references: one
 * for the handle itself and one per mapping, as CUDA keeps an allocation
 * alive while it is mapped after cuMemRelease. The granularity is 2 MiB,
 * what GPUs report, so sizes that programs compute stay the same.
 * Exporting as CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR hands out a
 * duplicate of that memfd; importing one makes a handle of it. A tile pool
 * (CU_MEM_CREATE_USAGE_TILE_POOL) backs sparse arrays' tiles
 * (zn_drv_sparse_map.c): the driver maps the whole memfd once, shared, so
 * tiles and cuMemMap ranges of the same bytes alias; each mapped tile
 * holds a reference.
 */
#include "zn_drv.h"
#include "../exec/zn_exec.h"
#include "../util/zn_log.h"

#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define ZN_VMM_GRANULARITY ((size_t)2 << 20)

typedef struct zn_phys {
    uint32_t magic;
    int fd;
    size_t size;
    CUmemAllocationProp prop;
    atomic_int refs;
    bool imported;      /* cuMemImportFromShareableHandle: not counted as used */
    uint8_t *view;      /* a tile pool's bytes in the driver (view_lock) */
} zn_phys;

static pthread_mutex_t view_lock = PTHREAD_MUTEX_INITIALIZER;

static zn_phys *phys_of(CUmemGenericAllocationHandle h)
{
    zn_phys *p = (zn_phys *)(uintptr_t)h;
    return p && p->magic == ZN_MAGIC_PHYS ? p : NULL;
}

static void phys_unref(zn_phys *p)
{
    if (atomic_fetch_sub(&p->refs, 1) == 1) {
        if (p->view)
            munmap(p->view, p->size);
        if (p->imported)
            close(p->fd);
        else
            zn_vmm_phys_release(p->fd, p->size);
        zn_handle_retire(ZN_HANDLE_PHYS, p, sizeof *p);
    }
}

static CUresult prop_ok(const CUmemAllocationProp *prop)
{
    if (!prop || prop->type != ZN_CU_MEM_ALLOCATION_TYPE_PINNED)
        return CUDA_ERROR_INVALID_VALUE;
    if (prop->location.type != ZN_CU_MEM_LOCATION_TYPE_DEVICE)
        return CUDA_ERROR_NOT_SUPPORTED;
    return prop->location.id == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
}

CUresult cuMemGetAllocationGranularity(size_t *g, const CUmemAllocationProp *prop, int option)
{
    ZN_CHECK_INIT();
    if (!g || option < 0 || option > 1)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    CUresult r = prop_ok(prop);
    if (r == CUDA_SUCCESS)
        *g = ZN_VMM_GRANULARITY;
    ZN_RET(r);
}

CUresult cuMemAddressReserve(CUdeviceptr *ptr, size_t size, size_t align, CUdeviceptr addr,
                             unsigned long long flags)
{
    ZN_CHECK_INIT();
    if (!ptr || !size || size % ZN_VMM_GRANULARITY || (align & (align - 1)) || flags)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    void *p = zn_mem_reserve(size, align ? align : ZN_VMM_GRANULARITY, (uintptr_t)addr);
    if (!p)
        ZN_RET(CUDA_ERROR_OUT_OF_MEMORY);
    *ptr = (CUdeviceptr)(uintptr_t)p;
    ZN_RET(CUDA_SUCCESS);
}

/* Mappings left in the range are CUDA's undefined behaviour; they are
 * dropped with it. */
CUresult cuMemAddressFree(CUdeviceptr ptr, size_t size)
{
    ZN_CHECK_INIT();
    void *p = (void *)(uintptr_t)ptr;
    if (zn_vmm_any_in(p, size))
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    ZN_RET(zn_mem_unreserve(p, size) == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE);
}

CUresult cuMemCreate(CUmemGenericAllocationHandle *h, size_t size,
                     const CUmemAllocationProp *prop, unsigned long long flags)
{
    ZN_CHECK_INIT();
    if (!h || !size || size % ZN_VMM_GRANULARITY || flags)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    CUresult r = prop_ok(prop);
    if (r != CUDA_SUCCESS)
        ZN_RET(r);
    zn_phys *p = zn_handle_new(ZN_HANDLE_PHYS, sizeof *p);
    if (!p)
        ZN_RET(CUDA_ERROR_OUT_OF_MEMORY);
    p->fd = zn_vmm_phys_create(size);
    if (p->fd < 0) {
        zn_handle_retire(ZN_HANDLE_PHYS, p, sizeof *p);
        ZN_RET(CUDA_ERROR_OUT_OF_MEMORY);
    }
    p->magic = ZN_MAGIC_PHYS;
    p->size = size;
    p->prop = *prop;
    atomic_store(&p->refs, 1);
    *h = (CUmemGenericAllocationHandle)(uintptr_t)p;
    ZN_RET(CUDA_SUCCESS);
}

CUresult cuMemRelease(CUmemGenericAllocationHandle h)
{
    ZN_CHECK_INIT();
    zn_phys *p = phys_of(h);
    if (!p)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    phys_unref(p);
    ZN_RET(CUDA_SUCCESS);
}

CUresult cuMemMap(CUdeviceptr ptr, size_t size, size_t offset, CUmemGenericAllocationHandle h,
                  unsigned long long flags)
{
    ZN_CHECK_INIT();
    zn_phys *p = phys_of(h);
    if (!p || flags || !size || offset > p->size || size > p->size - offset ||
        size % ZN_VMM_GRANULARITY || offset % ZN_VMM_GRANULARITY)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    void *a = (void *)(uintptr_t)ptr;
    atomic_fetch_add(&p->refs, 1);
    if (zn_vmm_map(a, size, p->fd, offset, p) != 0) {
        phys_unref(p);
        /* a range already mapped too: NVIDIA's driver answers INVALID_VALUE
         * there, not the documented ALREADY_MAPPED */
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    }
    ZN_RET(CUDA_SUCCESS);
}

/* The range must be whole mappings; each gives back its reference. */
CUresult cuMemUnmap(CUdeviceptr ptr, size_t size)
{
    ZN_CHECK_INIT();
    char *a = (char *)(uintptr_t)ptr;
    /* collect the handles first: unmapping forgets them */
    zn_phys *held[64];
    size_t nheld = 0;
    for (size_t off = 0; off < size && nheld < 64;) {
        void *base, *cookie;
        size_t msize;
        if (zn_vmm_query(a + off, &base, &msize, &cookie, NULL) != 0 || base != a + off ||
            !phys_of((uintptr_t)cookie))    /* IPC and external mappings are not ours */
            ZN_RET(CUDA_ERROR_INVALID_VALUE);
        held[nheld++] = cookie;
        off += msize;
    }
    if (zn_vmm_unmap(a, size) != 0)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    for (size_t i = 0; i < nheld; i++)
        phys_unref(held[i]);
    ZN_RET(CUDA_SUCCESS);
}

CUresult cuMemSetAccess(CUdeviceptr ptr, size_t size, const CUmemAccessDesc *desc,
                        size_t count)
{
    ZN_CHECK_INIT();
    if (!desc || !count)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    int prot = -1;
    for (size_t i = 0; i < count; i++) {
        if (desc[i].location.type != ZN_CU_MEM_LOCATION_TYPE_DEVICE)
            continue;   /* host access: host memory is always accessible here */
        if (desc[i].location.id != 0)
            ZN_RET(CUDA_ERROR_INVALID_DEVICE);
        if (desc[i].flags != ZN_CU_MEM_ACCESS_FLAGS_PROT_NONE &&
            desc[i].flags != ZN_CU_MEM_ACCESS_FLAGS_PROT_READ &&
            desc[i].flags != ZN_CU_MEM_ACCESS_FLAGS_PROT_READWRITE)
            ZN_RET(CUDA_ERROR_INVALID_VALUE);
        prot = desc[i].flags;
    }
    if (prot < 0)
        ZN_RET(CUDA_SUCCESS);
    ZN_RET(zn_vmm_protect((void *)(uintptr_t)ptr, size, prot) == 0 ? CUDA_SUCCESS
                                                                   : CUDA_ERROR_INVALID_VALUE);
}

CUresult cuMemGetAccess(unsigned long long *flags, const CUmemLocation *loc, CUdeviceptr ptr)
{
    ZN_CHECK_INIT();
    if (!flags || !loc)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    if (loc->type != ZN_CU_MEM_LOCATION_TYPE_DEVICE || loc->id != 0)
        ZN_RET(CUDA_ERROR_INVALID_DEVICE);
    int prot;
    if (zn_vmm_query((void *)(uintptr_t)ptr, NULL, NULL, NULL, &prot) != 0)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    *flags = (unsigned long long)prot;
    ZN_RET(CUDA_SUCCESS);
}

CUresult cuMemGetAllocationPropertiesFromHandle(CUmemAllocationProp *prop,
                                                CUmemGenericAllocationHandle h)
{
    ZN_CHECK_INIT();
    zn_phys *p = phys_of(h);
    if (!p || !prop)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    *prop = p->prop;
    ZN_RET(CUDA_SUCCESS);
}

/* Another reference to the allocation mapped at addr (cuMemRelease it). */
CUresult cuMemRetainAllocationHandle(CUmemGenericAllocationHandle *h, void *addr)
{
    ZN_CHECK_INIT();
    void *cookie;
    if (!h || zn_vmm_query(addr, NULL, NULL, &cookie, NULL) != 0 ||
        !phys_of((uintptr_t)cookie))
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    zn_phys *p = cookie;
    atomic_fetch_add(&p->refs, 1);
    *h = (CUmemGenericAllocationHandle)(uintptr_t)p;
    ZN_RET(CUDA_SUCCESS);
}

/* POSIX file descriptors only: Win32 and fabric handles have no meaning
 * on this host. The caller owns the fd returned (close it). */
CUresult cuMemExportToShareableHandle(void *out, CUmemGenericAllocationHandle h, int type,
                                      unsigned long long flags)
{
    ZN_CHECK_INIT();
    zn_phys *p = phys_of(h);
    if (!out || !p || flags)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    /* CUDA: the allocation must have asked for the type; NVIDIA's driver
     * checks that first (a type not asked for is INVALID_VALUE, fabric too) */
    if (!(p->prop.requestedHandleTypes & type))
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    if (type != ZN_CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR) {
        zn_log(ZN_LOG_WARN, "cuMemExportToShareableHandle: handle type %d: only POSIX file "
               "descriptors, returning CUDA_ERROR_NOT_SUPPORTED", type);
        ZN_RET(CUDA_ERROR_NOT_SUPPORTED);
    }
    int fd = fcntl(p->fd, F_DUPFD_CLOEXEC, 0);
    if (fd < 0)
        ZN_RET(CUDA_ERROR_OUT_OF_MEMORY);
    *(int *)out = fd;
    ZN_RET(CUDA_SUCCESS);
}

/* handle is the fd's value cast to a pointer (CUDA's convention); the fd
 * stays the caller's. */
CUresult cuMemImportFromShareableHandle(CUmemGenericAllocationHandle *h, void *handle, int type)
{
    ZN_CHECK_INIT();
    if (!h)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    if (type != ZN_CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR) {
        zn_log(ZN_LOG_WARN, "cuMemImportFromShareableHandle: handle type %d: only POSIX file "
               "descriptors, returning CUDA_ERROR_NOT_SUPPORTED", type);
        ZN_RET(CUDA_ERROR_NOT_SUPPORTED);
    }
    int src = (int)(intptr_t)handle;
    struct stat st;
    if (src < 0 || fstat(src, &st) != 0)    /* no open file: NVIDIA answers UNKNOWN */
        ZN_RET(CUDA_ERROR_UNKNOWN);
    if (st.st_size <= 0 ||
        (size_t)st.st_size % ZN_VMM_GRANULARITY)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    zn_phys *p = zn_handle_new(ZN_HANDLE_PHYS, sizeof *p);
    if (!p)
        ZN_RET(CUDA_ERROR_OUT_OF_MEMORY);
    p->fd = fcntl(src, F_DUPFD_CLOEXEC, 0);
    if (p->fd < 0) {
        zn_handle_retire(ZN_HANDLE_PHYS, p, sizeof *p);
        ZN_RET(CUDA_ERROR_OUT_OF_MEMORY);
    }
    p->magic = ZN_MAGIC_PHYS;
    p->size = (size_t)st.st_size;
    p->prop.type = ZN_CU_MEM_ALLOCATION_TYPE_PINNED;
    p->prop.requestedHandleTypes = ZN_CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
    p->prop.location.type = ZN_CU_MEM_LOCATION_TYPE_DEVICE;
    p->imported = true;
    atomic_store(&p->refs, 1);
    *h = (CUmemGenericAllocationHandle)(uintptr_t)p;
    ZN_RET(CUDA_SUCCESS);
}

/* ---- tile pools (sparse arrays' tiles, zn_drv_sparse_map.c) ---- */

CUresult zn_phys_tile_pool(CUmemGenericAllocationHandle h, size_t *size, void **out)
{
    zn_phys *p = phys_of(h);
    if (!p)
        return CUDA_ERROR_INVALID_HANDLE;
    if (!(p->prop.allocFlags.usage & CU_MEM_CREATE_USAGE_TILE_POOL))
        return CUDA_ERROR_INVALID_VALUE; /* CUDA: created as a tile pool */
    atomic_fetch_add(&p->refs, 1);
    *size = p->size;
    *out = p;
    return CUDA_SUCCESS;
}

uint8_t *zn_phys_view(void *phys)
{
    zn_phys *p = phys;
    pthread_mutex_lock(&view_lock);
    if (!p->view) {
        void *v = mmap(NULL, p->size, PROT_READ | PROT_WRITE, MAP_SHARED, p->fd, 0);
        if (v == MAP_FAILED)
            zn_log(ZN_LOG_ERROR, "cuMemMapArrayAsync: cannot map a tile pool of %zu bytes",
                   p->size);
        else
            p->view = v;
    }
    uint8_t *v = p->view;
    pthread_mutex_unlock(&view_lock);
    return v;
}

void zn_phys_ref(void *phys)
{
    atomic_fetch_add(&((zn_phys *)phys)->refs, 1);
}

void zn_phys_unref(void *phys)
{
    phys_unref(phys);
}
