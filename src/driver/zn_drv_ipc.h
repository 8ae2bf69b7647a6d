/* zn_drv_ipc.h: what the interprocess files share (zn_drv_ipc.c,
 * zn_drv_ipc_event.c, zn_drv_extmem.c, zn_drv_event.c's hooks). */
#ifndef ZN_DRV_IPC_H
#define ZN_DRV_IPC_H

#include "zn_drv.h"

/* A random nonzero tag: names a memfd zinc-ipc-<16 hex digits>. */
uint64_t zn_ipc_new_tag(void);
/* A memfd of size bytes named after tag (close-on-exec), or -1. */
int zn_ipc_make_memfd(uint64_t tag, size_t size);
/* Opens fd of process pid (/proc/pid/fd/fd) when it is still the memfd
 * named after tag and holds at least min_size bytes. INVALID_CONTEXT for
 * this process's own handles, INVALID_HANDLE when the exporter or the
 * memory is gone. */
CUresult zn_ipc_open_peer(int32_t pid, int32_t fd, uint64_t tag, size_t min_size, int *out);

/* VMM mappings made here carry a cookie starting with ZN_MAGIC_IPCMAP and
 * a kind (not a zn_phys: cuMemUnmap and cuMemRetainAllocationHandle refuse
 * them). */
enum { ZN_IPCMAP_IMPORT = 1, ZN_IPCMAP_EXTBUF = 2, ZN_IPCMAP_POOLPTR = 3 };
/* A mapping that cuMemFree/cuMemFreeAsync give back: an external-memory
 * buffer or a pointer imported from a shared pool (the VMM cookie). */
typedef struct zn_ipc_mapping {
    uint32_t magic;     /* ZN_MAGIC_IPCMAP */
    uint32_t kind;      /* ZN_IPCMAP_EXTBUF or ZN_IPCMAP_POOLPTR */
    void *map;          /* the mapping (page aligned) */
    size_t span;
} zn_ipc_mapping;
/* Maps span bytes of fd from offset (page aligned) as such a mapping; its
 * address or NULL. */
void *zn_ipc_map_freeable(int fd, size_t span, size_t offset, uint32_t kind);
/* p is the pointer handed out for such a mapping (in its first page)? */
bool zn_ipc_is_freeable(const void *p);
/* cuMemFree of such a pointer: 0 when p was one (now unmapped). */
int zn_ipc_free_mapping(const void *p);

/* ---- interprocess events (zn_drv_ipc_event.c) ---- */
/* The state two processes share: the newest record's number and the
 * highest completed one. */
typedef struct zn_ipc_event zn_ipc_event;
/* cuEventCreate with CU_EVENT_INTERPROCESS: the shared page. */
CUresult zn_ipc_event_create(zn_event *e);
void zn_ipc_event_release(zn_event *e);
/* zn_submit of a record or wait of an interprocess event on a stream that
 * is not capturing (captured ones are graph nodes, whose launches come
 * here): goes through the shared page. Takes op. */
CUresult zn_ipc_event_submit(zn_stream *s, zn_op *op);
bool zn_ipc_event_done(const zn_event *e);
void zn_ipc_event_sync(const zn_event *e, bool spin);

#endif
