/* zn_drv_extmem.c: external memory (cuImportExternalMemory,
 * cuExternalMemoryGetMappedBuffer, cuDestroyExternalMemory).
 *
 * On a CPU the one meaningful kind is CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD:
 * a file descriptor that mmap accepts (a memfd, a shared-memory file, what a
 * CPU Vulkan driver exports). Importing takes ownership of the fd, as CUDA
 * does; each mapped buffer is its own mapping in the device range (a VMM
 * mapping whose cookie says "external buffer"; pointers imported from a
 * shared pool are the same kind of mapping), freed with cuMemFree, and
 * it outlives the external memory object, as in CUDA. Win32, D3D and NvSci
 * handles have no meaning here: CUDA_ERROR_NOT_SUPPORTED, logged.
 */
#include "zn_drv.h"
#include "zn_drv_ipc.h"
#include "../exec/zn_exec.h"
#include "../util/zn_log.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#define ZN_EXTMEM_MAGIC 0x5a65786du       /* "Zexm" */
#define ZN_EXT_TYPE_MAX 8                 /* CU_EXTERNAL_MEMORY_HANDLE_TYPE_NVSCIBUF */

struct zn_extmem {
    uint32_t magic;
    int fd;
    unsigned long long size;
    struct zn_extmem *next;
};

/* Live objects: a handle is checked against the list, never dereferenced
 * first, so a destroyed one is refused. */
static pthread_mutex_t ext_lock = PTHREAD_MUTEX_INITIALIZER;
static struct zn_extmem *ext_live;

static bool ext_find(const struct zn_extmem *m)
{
    for (struct zn_extmem *o = ext_live; o; o = o->next)
        if (o == m)
            return true;
    return false;
}

CUresult cuImportExternalMemory(CUexternalMemory *out, const CUDA_EXTERNAL_MEMORY_HANDLE_DESC *d)
{
    ZN_ENTER(c);
    (void)c;
    if (!out || !d || d->type <= 0 || d->type > ZN_EXT_TYPE_MAX || !d->size ||
        (d->flags & ~(unsigned)ZN_CUDA_EXTERNAL_MEMORY_DEDICATED))
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    /* Windows handle types (OPAQUE_WIN32 .. D3D11_RESOURCE_KMT, 2..7) on
     * Linux: INVALID_VALUE, as NVIDIA's driver answers */
    if (d->type >= 2 && d->type <= 7)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    if (d->type != ZN_CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD) {
        zn_log(ZN_LOG_WARN, "cuImportExternalMemory: handle type %d (Win32, D3D or NvSci) has no "
               "meaning on a CPU; only OPAQUE_FD, returning CUDA_ERROR_NOT_SUPPORTED", d->type);
        ZN_RET(CUDA_ERROR_NOT_SUPPORTED);
    }
    struct stat st;
    /* not an open file (-1, say): NVIDIA's driver answers CUDA_ERROR_UNKNOWN */
    if (d->handle.fd < 0 || fstat(d->handle.fd, &st) != 0)
        ZN_RET(CUDA_ERROR_UNKNOWN);
    /* a regular or shared-memory file must hold the size asked for */
    if (S_ISREG(st.st_mode) && (unsigned long long)st.st_size < d->size)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    struct zn_extmem *m = calloc(1, sizeof *m);
    if (!m)
        ZN_RET(CUDA_ERROR_OUT_OF_MEMORY);
    m->magic = ZN_EXTMEM_MAGIC;
    m->fd = d->handle.fd;   /* ours now */
    m->size = d->size;
    pthread_mutex_lock(&ext_lock);
    m->next = ext_live;
    ext_live = m;
    pthread_mutex_unlock(&ext_lock);
    *out = m;
    ZN_RET(CUDA_SUCCESS);
}

CUresult cuExternalMemoryGetMappedBuffer(CUdeviceptr *p, CUexternalMemory m,
                                         const CUDA_EXTERNAL_MEMORY_BUFFER_DESC *d)
{
    ZN_ENTER(c);
    (void)c;
    if (!p || !d || d->flags || !d->size)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    pthread_mutex_lock(&ext_lock);
    if (!ext_find(m)) {
        pthread_mutex_unlock(&ext_lock);
        ZN_RET(CUDA_ERROR_INVALID_HANDLE);
    }
    int fd = m->fd;
    unsigned long long total = m->size;
    pthread_mutex_unlock(&ext_lock);
    if (d->offset > total || d->size > total - d->offset)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t start = (size_t)d->offset / page * page;
    size_t span = (size_t)d->offset + (size_t)d->size - start;
    void *map = zn_ipc_map_freeable(fd, span, start, ZN_IPCMAP_EXTBUF);
    if (!map)
        ZN_RET(CUDA_ERROR_OUT_OF_MEMORY);
    *p = (CUdeviceptr)(uintptr_t)((char *)map + (d->offset - start));
    ZN_RET(CUDA_SUCCESS);
}

static zn_ipc_mapping *mapping_of(const void *p)
{
    void *base, *cookie;
    size_t size;
    if (zn_vmm_query(p, &base, &size, &cookie, NULL) != 0)
        return NULL;
    zn_ipc_mapping *m = cookie;
    if (!m || m->magic != ZN_MAGIC_IPCMAP ||
        (m->kind != ZN_IPCMAP_EXTBUF && m->kind != ZN_IPCMAP_POOLPTR))
        return NULL;
    /* the pointer handed out lies in the first page */
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    return (uintptr_t)p - (uintptr_t)m->map < page ? m : NULL;
}

void *zn_ipc_map_freeable(int fd, size_t span, size_t offset, uint32_t kind)
{
    zn_ipc_mapping *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    m->magic = ZN_MAGIC_IPCMAP;
    m->kind = kind;
    m->span = span;
    m->map = zn_mem_map_fd(fd, span, offset, m);
    if (!m->map) {
        free(m);
        return NULL;
    }
    return m->map;
}

bool zn_ipc_is_freeable(const void *p)
{
    return mapping_of(p) != NULL;
}

int zn_ipc_free_mapping(const void *p)
{
    zn_ipc_mapping *m = mapping_of(p);
    if (!m || zn_mem_unmap_fd(m->map, m->span) != 0)
        return -1;
    free(m);
    return 0;
}

/* Buffers mapped from it stay valid until cuMemFree (CUDA's rule). */
CUresult cuDestroyExternalMemory(CUexternalMemory m)
{
    ZN_ENTER(c);
    (void)c;
    pthread_mutex_lock(&ext_lock);
    struct zn_extmem **pm = &ext_live;
    while (*pm && *pm != m)
        pm = &(*pm)->next;
    if (!*pm) {
        pthread_mutex_unlock(&ext_lock);
        ZN_RET(CUDA_ERROR_INVALID_HANDLE);
    }
    *pm = m->next;
    pthread_mutex_unlock(&ext_lock);
    close(m->fd);
    free(m);
    ZN_RET(CUDA_SUCCESS);
}
