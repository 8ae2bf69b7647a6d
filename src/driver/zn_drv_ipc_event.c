/* zn_drv_ipc_event.c: interprocess events (CU_EVENT_INTERPROCESS,
 * cuIpcGetEventHandle, cuIpcOpenEventHandle).
 *
 * Such an event's state is one shared page (a memfd named zinc-ipc-<tag>)
 * that every process holding the event maps: `issued` numbers the records
 * (any process may record), `done` is the highest record number whose
 * stream has reached it. The event has happened when done >= issued: CUDA's
 * "the most recent record" (a later record finishing first completes it,
 * as on a GPU). A record queues a host op that raises `done`; a stream
 * waiting on the event gets a host op that polls until `done` reaches the
 * record number it saw. zn_submit sends such records and waits here, also
 * when a graph launch submits them (captured or explicit event nodes).
 * Ordinary events do not come here.
 */
#define _GNU_SOURCE
#include "zn_drv_ipc.h"
#include "../exec/zn_exec.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define ZN_IPC_EVENT_MAGIC 0x5a697065u    /* "Zipe" */
#define ZN_IPC_SHM_MAGIC 0x5a696e6349504345ull

typedef struct ipc_shm {
    uint64_t magic, tag;
    _Atomic uint64_t issued;
    _Atomic uint64_t done;
} ipc_shm;

struct zn_ipc_event {
    ipc_shm *shm;
    int fd;             /* exporter: the memfd the handle names; else -1 */
    uint64_t tag;
    atomic_int refs;    /* the event and each pending record or wait */
};

typedef struct ipc_event_wire {
    uint32_t magic, version;
    int32_t pid, fd;
    uint64_t tag;
    uint8_t unused[40];
} ipc_event_wire;
_Static_assert(sizeof(ipc_event_wire) == sizeof(CUipcEventHandle), "handle size");

static void ipc_unref(zn_ipc_event *x)
{
    if (atomic_fetch_sub(&x->refs, 1) == 1) {
        munmap(x->shm, sizeof *x->shm);
        if (x->fd >= 0)
            close(x->fd);
        free(x);
    }
}

static zn_ipc_event *ipc_map(int fd, uint64_t tag, int keep_fd)
{
    ipc_shm *shm = mmap(NULL, sizeof *shm, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (shm == MAP_FAILED)
        return NULL;
    zn_ipc_event *x = calloc(1, sizeof *x);
    if (!x) {
        munmap(shm, sizeof *shm);
        return NULL;
    }
    x->shm = shm;
    x->fd = keep_fd;
    x->tag = tag;
    atomic_store(&x->refs, 1);
    return x;
}

CUresult zn_ipc_event_create(zn_event *e)
{
    uint64_t tag = zn_ipc_new_tag();
    int fd = zn_ipc_make_memfd(tag, sizeof(ipc_shm));
    if (fd < 0)
        return CUDA_ERROR_OUT_OF_MEMORY;
    zn_ipc_event *x = ipc_map(fd, tag, fd);
    if (!x) {
        close(fd);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    x->shm->magic = ZN_IPC_SHM_MAGIC;
    x->shm->tag = tag;
    e->ipc = x;
    return CUDA_SUCCESS;
}

void zn_ipc_event_release(zn_event *e)
{
    if (e->ipc)
        ipc_unref(e->ipc);
    e->ipc = NULL;
}

bool zn_ipc_event_done(const zn_event *e)
{
    const ipc_shm *s = e->ipc->shm;
    return atomic_load(&s->done) >= atomic_load(&s->issued);
}

/* Until done reaches n: a short spin, then sleeps growing to 1 ms. */
static void wait_for(const ipc_shm *s, uint64_t n, bool spin)
{
    long ns = 1000;
    for (int i = 0; atomic_load(&s->done) < n; i++) {
        if (spin && i < 2000) {
            sched_yield();
            continue;
        }
        nanosleep(&(struct timespec){0, ns}, NULL);
        if (ns < 1000000)
            ns *= 2;
    }
}

void zn_ipc_event_sync(const zn_event *e, bool spin)
{
    const ipc_shm *s = e->ipc->shm;
    wait_for(s, atomic_load(&s->issued), spin);
}

/* The host ops: data[] holds the event state and the record number. */
typedef struct ipc_mark {
    zn_ipc_event *x;
    uint64_t n;
} ipc_mark;

static void mark_done(void *arg)
{
    ipc_mark *m = arg;
    _Atomic uint64_t *done = &m->x->shm->done;
    uint64_t cur = atomic_load(done);
    while (cur < m->n && !atomic_compare_exchange_weak(done, &cur, m->n))
        ;
    ipc_unref(m->x);
}

static void wait_done(void *arg)
{
    ipc_mark *m = arg;
    wait_for(m->x->shm, m->n, false);
    ipc_unref(m->x);
}

/* s is not capturing (zn_submit hands captured ops to the capture). */
static CUresult submit_host(zn_stream *s, zn_ipc_event *x, uint64_t n, void (*fn)(void *))
{
    zn_op *op = zn_op_new(ZN_OP_HOST, sizeof(ipc_mark));
    if (!op)
        return CUDA_ERROR_OUT_OF_MEMORY;
    ipc_mark *m = (ipc_mark *)op->data;
    m->x = x;
    m->n = n;
    op->u.host.fn = fn;
    op->u.host.user = m;
    atomic_fetch_add(&x->refs, 1);
    CUresult r = zn_submit(s, op, false);
    if (r != CUDA_SUCCESS)
        ipc_unref(x);   /* only failures before queueing: the op never runs */
    return r;
}

CUresult zn_ipc_event_submit(zn_stream *s, zn_op *op)
{
    zn_event *e = op->u.ev.e;
    bool record = op->kind == ZN_OP_EVENT_RECORD;
    free(op);
    ipc_shm *sh = e->ipc->shm;
    if (record)
        return submit_host(s, e->ipc, atomic_fetch_add(&sh->issued, 1) + 1, mark_done);
    uint64_t n = atomic_load(&sh->issued);
    if (atomic_load(&sh->done) >= n)
        return CUDA_SUCCESS;
    return submit_host(s, e->ipc, n, wait_done);
}

CUresult cuIpcGetEventHandle(CUipcEventHandle *h, CUevent e)
{
    ZN_ENTER(c);
    (void)c;
    if (!h)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    if (!zn_event_valid(e))
        ZN_RET(CUDA_ERROR_INVALID_HANDLE);
    /* only events created with CU_EVENT_INTERPROCESS; an imported one has
     * no memfd of its own to name */
    if (!e->ipc || e->ipc->fd < 0)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    ipc_event_wire w = {.magic = ZN_IPC_EVENT_MAGIC, .version = 1, .pid = (int32_t)getpid(),
                        .fd = e->ipc->fd, .tag = e->ipc->tag};
    memcpy(h, &w, sizeof w);
    ZN_RET(CUDA_SUCCESS);
}

CUresult cuIpcOpenEventHandle(CUevent *pe, CUipcEventHandle h)
{
    ZN_ENTER(c);
    ipc_event_wire w;
    memcpy(&w, &h, sizeof w);
    if (!pe || w.magic != ZN_IPC_EVENT_MAGIC || w.version != 1)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    int fd;
    CUresult r = zn_ipc_open_peer(w.pid, w.fd, w.tag, sizeof(ipc_shm), &fd);
    if (r != CUDA_SUCCESS)
        ZN_RET(r);
    zn_ipc_event *x = ipc_map(fd, w.tag, -1);
    close(fd);
    if (!x)
        ZN_RET(CUDA_ERROR_MAP_FAILED);
    if (x->shm->magic != ZN_IPC_SHM_MAGIC || x->shm->tag != w.tag) {
        ipc_unref(x);
        ZN_RET(CUDA_ERROR_INVALID_HANDLE);
    }
    zn_event *e = zn_handle_new(ZN_HANDLE_EVENT, sizeof *e);
    if (!e) {
        ipc_unref(x);
        ZN_RET(CUDA_ERROR_OUT_OF_MEMORY);
    }
    e->magic = ZN_MAGIC_EVENT;
    e->ctx = c;
    e->flags = ZN_CU_EVENT_INTERPROCESS | ZN_CU_EVENT_DISABLE_TIMING;
    e->ipc = x;
    *pe = e;
    ZN_RET(CUDA_SUCCESS);
}
