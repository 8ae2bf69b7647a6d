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
 *
 * A process that dies with records pending (the exporter killed while its
 * stream works, say) never raises `done`, and its peers would poll
 * forever. So each record also leaves its process's identity (pid and
 * start time, which tells a reused pid) in a ring of the newest records;
 * a waiter or query that finds every pending record's process gone treats
 * the event as complete: it raises `done` to what it waited for and logs
 * a warning. NVIDIA documents no error for this (using an event whose
 * exporter freed it is undefined behaviour), an error could reach an
 * asynchronous cuStreamWaitEvent only as a sticky error that would ruin
 * the survivor's context for its peer's crash, and on a GPU a dead
 * process's work is over too: what the waiters waited for will not come.
 */
#define _GNU_SOURCE
#include "zn_drv_ipc.h"
#include "../exec/zn_exec.h"
#include "util/zn_log.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define ZN_IPC_EVENT_MAGIC 0x5a697065u    /* "Zipe" */
#define ZN_IPC_SHM_MAGIC 0x5a696e6349504345ull

/* Records whose process is remembered: the newest ones. */
#define ZN_IPC_OWNERS 64

typedef struct ipc_shm {
    uint64_t magic, tag;
    _Atomic uint64_t issued;
    _Atomic uint64_t done;
    /* record n's process (pid << 32 | low 32 bits of its start time) in
     * slot n % ZN_IPC_OWNERS, valid while the slot's num is n */
    struct { _Atomic uint64_t num, who; } owner[ZN_IPC_OWNERS];
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

/* Field 22 of /proc/<pid>/stat (start time, clock ticks after boot), 0 if
 * unreadable; *state (may be NULL): field 3 ('Z': exited, not reaped). */
static uint64_t proc_start_time(int pid, char *state)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    const char *p = strrchr(buf, ')');     /* the name may hold spaces */
    if (state)
        *state = p && p[1] ? p[2] : 0;
    for (int field = 2; p && field < 22; field++)
        p = strchr(p + 1, ' ');
    return p ? strtoull(p + 1, NULL, 10) : 0;
}

static uint64_t self_id(void)
{
    static _Atomic uint64_t id;     /* recomputed after a fork */
    uint64_t v = atomic_load(&id);
    int pid = getpid();
    if ((int)(v >> 32) != pid) {
        v = (uint64_t)(uint32_t)pid << 32 | (proc_start_time(pid, NULL) & 0xffffffffu);
        atomic_store(&id, v);
    }
    return v;
}

/* Is the process that id names still running (not a reused pid)? */
static bool id_alive(uint64_t id)
{
    int pid = (int)(id >> 32);
    if (kill(pid, 0) != 0 && errno != EPERM)
        return false;
    char state = 0;
    uint64_t st = proc_start_time(pid, &state);
    /* unreadable: trust kill; else the start time tells a reused pid, and
     * a zombie (exited, not yet reaped) is gone */
    return !st || ((st & 0xffffffffu) == (id & 0xffffffffu) && state != 'Z');
}

static void note_owner(ipc_shm *s, uint64_t n)
{
    atomic_store(&s->owner[n % ZN_IPC_OWNERS].who, self_id());
    atomic_store(&s->owner[n % ZN_IPC_OWNERS].num, n);
}

/* True when every record in (done, issued] is known to belong to a
 * process that is gone, so none of them will ever raise done; then done
 * is raised to issued. A record whose slot is not (yet) its own counts as
 * alive, and so do more than ZN_IPC_OWNERS pending records. */
static bool owners_gone(ipc_shm *s)
{
    uint64_t done = atomic_load(&s->done), issued = atomic_load(&s->issued);
    if (done >= issued)
        return true;
    if (issued - done > ZN_IPC_OWNERS)
        return false;
    uint64_t seen = 0;      /* the last process found gone */
    for (uint64_t k = done + 1; k <= issued; k++) {
        uint64_t n1 = atomic_load(&s->owner[k % ZN_IPC_OWNERS].num);
        uint64_t who = atomic_load(&s->owner[k % ZN_IPC_OWNERS].who);
        if (n1 != k || atomic_load(&s->owner[k % ZN_IPC_OWNERS].num) != k)
            return false;
        if (who != seen && id_alive(who))
            return false;
        seen = who;
    }
    uint64_t cur = done;
    while (cur < issued && !atomic_compare_exchange_weak(&s->done, &cur, issued))
        ;
    zn_log(ZN_LOG_WARN, "interprocess event: the process of its pending record %llu "
           "(pid %d) is gone; the event counts as complete",
           (unsigned long long)issued,
           (int)(atomic_load(&s->owner[issued % ZN_IPC_OWNERS].who) >> 32));
    return true;
}

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
    ipc_shm *s = e->ipc->shm;
    if (atomic_load(&s->done) >= atomic_load(&s->issued))
        return true;
    /* a program polling cuEventQuery looks at the processes at most once a
     * millisecond (each look reads /proc) */
    static _Atomic uint64_t last_look;
    uint64_t now = zn_now_ns(), last = atomic_load(&last_look);
    if (now - last < 1000000 || !atomic_compare_exchange_strong(&last_look, &last, now))
        return false;
    return owners_gone(s);
}

/* Until done reaches n: a short spin, then sleeps growing to 1 ms; about
 * every 10 ms of sleeping, whether the pending records' processes are
 * still there. */
static void wait_for(ipc_shm *s, uint64_t n, bool spin)
{
    long ns = 1000, slept = 0;
    for (int i = 0; atomic_load(&s->done) < n; i++) {
        if (spin && i < 2000) {
            sched_yield();
            continue;
        }
        if (slept >= 10000000) {
            slept = 0;
            owners_gone(s);     /* raises done past n when n never comes */
        }
        nanosleep(&(struct timespec){0, ns}, NULL);
        slept += ns;
        if (ns < 1000000)
            ns *= 2;
    }
}

void zn_ipc_event_sync(const zn_event *e, bool spin)
{
    ipc_shm *s = e->ipc->shm;
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
    if (record) {
        uint64_t n = atomic_fetch_add(&sh->issued, 1) + 1;
        note_owner(sh, n);
        return submit_host(s, e->ipc, n, mark_done);
    }
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
        ZN_RET(zn_event_bad(e));
    /* only events created with CU_EVENT_INTERPROCESS; an imported one has
     * no memfd of its own to name. NVIDIA's driver: INVALID_HANDLE */
    if (!e->ipc || e->ipc->fd < 0)
        ZN_RET(CUDA_ERROR_INVALID_HANDLE);
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
    if (!pe)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    /* bytes that name no event (all zero, say): NVIDIA's driver fails to map
     * them, CUDA_ERROR_MAP_FAILED */
    if (w.magic != ZN_IPC_EVENT_MAGIC || w.version != 1)
        ZN_RET(CUDA_ERROR_MAP_FAILED);
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
