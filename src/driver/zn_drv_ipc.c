/* zn_drv_ipc.c: interprocess memory handles (cuIpcGetMemHandle,
 * cuIpcOpenMemHandle, cuIpcCloseMemHandle) and what the other IPC files
 * share: tags and opening a peer's memfd.
 *
 * Exporting makes the allocation shareable in place (zn_mem_share): after
 * the context is synchronised its pages move into a memfd named
 * zinc-ipc-<tag>, mapped over the same addresses. The 64-byte handle names
 * the exporter's pid, the fd number and the tag. The importer opens
 * /proc/<pid>/fd/<fd> (the same user may), checks that the link still names
 * a memfd with that tag (a freed allocation's fd number may be reused) and
 * maps the file in its own device range as a VMM mapping, so copies,
 * kernels and pointer queries take the pointer. As in CUDA, the handle
 * stands for the whole allocation: opening returns its base, and opening
 * it again in the same process counts a reference and returns the same
 * pointer.
 */
#define _GNU_SOURCE
#include "zn_drv.h"
#include "zn_drv_ipc.h"
#include "../exec/zn_exec.h"
#include "../util/zn_log.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define ZN_IPC_MEM_MAGIC 0x5a69706du      /* "Zipm" */
#define ZN_IPC_VERSION 1u

/* The wire form of a memory handle (64 bytes, CUipcMemHandle). */
typedef struct ipc_mem_wire {
    uint32_t magic, version;
    int32_t pid, fd;
    uint64_t tag;
    uint64_t span;      /* bytes of the memfd */
    uint64_t size;      /* the allocation's size */
    uint8_t unused[24];
} ipc_mem_wire;
_Static_assert(sizeof(ipc_mem_wire) == sizeof(CUipcMemHandle), "handle size");

/* An opened handle in this process (the VMM mapping's cookie). */
typedef struct ipc_import {
    uint32_t magic;     /* ZN_MAGIC_IPCMAP: not a zn_phys */
    uint32_t kind;      /* ZN_IPCMAP_IMPORT */
    int32_t pid;
    uint64_t tag;
    void *p;
    size_t span;
    int refs;
    struct ipc_import *next;
} ipc_import;

static pthread_mutex_t imports_lock = PTHREAD_MUTEX_INITIALIZER;
static ipc_import *imports;

uint64_t zn_ipc_new_tag(void)
{
    uint64_t t = 0;
    if (getrandom(&t, sizeof t, GRND_NONBLOCK) != (ssize_t)sizeof t) {
        /* no entropy yet: time and a counter still separate live objects */
        static atomic_ullong n;
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        t = ((uint64_t)ts.tv_sec << 32) ^ (uint64_t)ts.tv_nsec ^ (atomic_fetch_add(&n, 1) << 48);
    }
    return t ? t : 1;
}

int zn_ipc_make_memfd(uint64_t tag, size_t size)
{
    char name[40];
    snprintf(name, sizeof name, "zinc-ipc-%016" PRIx64, tag);
    int fd = memfd_create(name, MFD_CLOEXEC);
    if (fd >= 0 && ftruncate(fd, (off_t)size) != 0) {
        close(fd);
        fd = -1;
    }
    return fd;
}

CUresult zn_ipc_open_peer(int32_t pid, int32_t fd, uint64_t tag, size_t min_size, int *out)
{
    if (pid <= 0 || fd < 0)
        return CUDA_ERROR_INVALID_VALUE;
    if (pid == getpid())
        return CUDA_ERROR_INVALID_CONTEXT;   /* CUDA refuses a process's own handles */
    char path[64], link[128], want[40];
    snprintf(path, sizeof path, "/proc/%d/fd/%d", (int)pid, (int)fd);
    snprintf(want, sizeof want, "/memfd:zinc-ipc-%016" PRIx64, tag);
    ssize_t n = readlink(path, link, sizeof link - 1);
    if (n < 0) {
        zn_log(ZN_LOG_WARN, "IPC handle: %s: %s (exporter gone or memory freed)", path,
               strerror(errno));
        return CUDA_ERROR_INVALID_HANDLE;
    }
    link[n] = '\0';
    if (strncmp(link, want, strlen(want)) != 0) {
        zn_log(ZN_LOG_WARN, "IPC handle: %s is %s, not the exported memory (freed)", path, link);
        return CUDA_ERROR_INVALID_HANDLE;
    }
    int f = open(path, O_RDWR | O_CLOEXEC);
    if (f < 0) {
        zn_log(ZN_LOG_WARN, "IPC handle: open %s: %s", path, strerror(errno));
        return errno == EACCES || errno == EPERM ? CUDA_ERROR_MAP_FAILED
                                                 : CUDA_ERROR_INVALID_HANDLE;
    }
    struct stat st;
    if (fstat(f, &st) != 0 || (uint64_t)st.st_size < min_size) {
        close(f);
        return CUDA_ERROR_INVALID_HANDLE;
    }
    *out = f;
    return CUDA_SUCCESS;
}

CUresult cuIpcGetMemHandle(CUipcMemHandle *h, CUdeviceptr dptr)
{
    ZN_ENTER(c);
    void *p = (void *)(uintptr_t)dptr;
    zn_mem_kind kind;
    void *rb;
    size_t rs;
    if (!h)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    /* only cuMemAlloc memory: not host, managed, module or VMM memory */
    if (zn_mem_reserved_at(p, 1, &rb, &rs) == 0 || zn_mem_lookup(p, NULL, NULL, &kind) != 0 ||
        kind != ZN_MEM_DEVICE)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    /* the contents move into the memfd: nothing may write them meanwhile */
    CUresult r = zn_ctx_wait_all(c);
    if (r != CUDA_SUCCESS)
        ZN_RET(r);
    zn_mem_shared sh;
    if (zn_mem_share(p, zn_ipc_new_tag(), &sh) != 0)
        ZN_RET(CUDA_ERROR_MAP_FAILED);
    ipc_mem_wire w = {.magic = ZN_IPC_MEM_MAGIC, .version = ZN_IPC_VERSION,
                      .pid = (int32_t)getpid(), .fd = sh.fd, .tag = sh.tag,
                      .span = sh.span, .size = sh.size};
    memcpy(h, &w, sizeof w);
    ZN_RET(CUDA_SUCCESS);
}

CUresult cuIpcOpenMemHandle_v2(CUdeviceptr *pdptr, CUipcMemHandle h, unsigned int flags)
{
    ZN_ENTER(c);
    (void)c;
    ipc_mem_wire w;
    memcpy(&w, &h, sizeof w);
    if (!pdptr || (flags & ~(unsigned)ZN_CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS) ||
        w.magic != ZN_IPC_MEM_MAGIC || w.version != ZN_IPC_VERSION || !w.span ||
        w.size > w.span)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    if (w.pid == getpid())      /* our own: INVALID_VALUE, as NVIDIA's driver */
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    pthread_mutex_lock(&imports_lock);
    for (ipc_import *m = imports; m; m = m->next) {
        if (m->pid == w.pid && m->tag == w.tag) {
            m->refs++;
            *pdptr = (CUdeviceptr)(uintptr_t)m->p;
            pthread_mutex_unlock(&imports_lock);
            ZN_RET(CUDA_SUCCESS);
        }
    }
    pthread_mutex_unlock(&imports_lock);

    int fd;
    CUresult r = zn_ipc_open_peer(w.pid, w.fd, w.tag, w.span, &fd);
    if (r != CUDA_SUCCESS)
        ZN_RET(r);
    ipc_import *m = calloc(1, sizeof *m);
    if (!m) {
        close(fd);
        ZN_RET(CUDA_ERROR_OUT_OF_MEMORY);
    }
    m->magic = ZN_MAGIC_IPCMAP;
    m->kind = ZN_IPCMAP_IMPORT;
    m->pid = w.pid;
    m->tag = w.tag;
    m->span = w.span;
    m->refs = 1;
    m->p = zn_mem_map_fd(fd, w.span, 0, m);
    close(fd);          /* the mapping keeps the memory */
    if (!m->p) {
        free(m);
        ZN_RET(CUDA_ERROR_MAP_FAILED);
    }
    pthread_mutex_lock(&imports_lock);
    /* another thread may have opened it meanwhile: keep one mapping */
    for (ipc_import *o = imports; o; o = o->next) {
        if (o->pid == w.pid && o->tag == w.tag) {
            o->refs++;
            *pdptr = (CUdeviceptr)(uintptr_t)o->p;
            pthread_mutex_unlock(&imports_lock);
            zn_mem_unmap_fd(m->p, m->span);
            free(m);
            ZN_RET(CUDA_SUCCESS);
        }
    }
    m->next = imports;
    imports = m;
    pthread_mutex_unlock(&imports_lock);
    *pdptr = (CUdeviceptr)(uintptr_t)m->p;
    ZN_RET(CUDA_SUCCESS);
}

CUresult cuIpcOpenMemHandle(CUdeviceptr *pdptr, CUipcMemHandle h, unsigned int flags)
{
    return cuIpcOpenMemHandle_v2(pdptr, h, flags);
}

/* The last close waits for the context's work (as cuMemFree does) and
 * unmaps. */
CUresult cuIpcCloseMemHandle(CUdeviceptr dptr)
{
    ZN_ENTER(c);
    void *p = (void *)(uintptr_t)dptr;
    pthread_mutex_lock(&imports_lock);
    ipc_import **pm = &imports;
    while (*pm && (*pm)->p != p)
        pm = &(*pm)->next;
    ipc_import *m = *pm;
    if (!m) {
        pthread_mutex_unlock(&imports_lock);
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    }
    if (--m->refs > 0) {
        pthread_mutex_unlock(&imports_lock);
        ZN_RET(CUDA_SUCCESS);
    }
    *pm = m->next;
    pthread_mutex_unlock(&imports_lock);
    zn_ctx_wait_all(c);
    int rc = zn_mem_unmap_fd(m->p, m->span);
    free(m);
    ZN_RET(rc == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE);
}
