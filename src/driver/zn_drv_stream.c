/* zn_drv_stream.c: streams, host functions, stream memory operations.
 *
 * A stream is an executor queue (one thread, items in order) plus what the
 * driver needs around it: its context, flags and priority, and its capture
 * state. The legacy default stream is one per context, created at first
 * use; the per-thread default stream one per host thread (a blocking
 * stream, given back when the thread exits). Enqueueing goes through
 * zn_submit (zn_drv_submit.c). Entry points come in legacy and per-thread
 * (_ptsz) flavours that differ only in what a NULL stream means.
 */
#include "zn_drv.h"
#include "../exec/zn_exec.h"

#include <stdlib.h>
#include <string.h>

static atomic_ullong next_stream_id = 3;   /* 0..2: the built-in streams */

bool zn_stream_valid(CUstream s)
{
    return !s || s == ZN_CU_STREAM_LEGACY || s == ZN_CU_STREAM_PER_THREAD ||
           s->magic == ZN_MAGIC_STREAM;
}

static bool stream_builtin(CUstream s)
{
    return !s || s == ZN_CU_STREAM_LEGACY || s == ZN_CU_STREAM_PER_THREAD;
}

CUresult zn_stream_bad(CUstream h)
{
    return !stream_builtin(h) && zn_event_valid((CUevent)(void *)h)
               ? CUDA_ERROR_CONTEXT_IS_DESTROYED : CUDA_ERROR_INVALID_HANDLE;
}

CUresult zn_event_bad(CUevent e)
{
    CUstream s = (CUstream)(void *)e;
    return !stream_builtin(s) && zn_stream_valid(s) ? CUDA_ERROR_CONTEXT_IS_DESTROYED
                                                    : CUDA_ERROR_INVALID_HANDLE;
}

static zn_stream *stream_new(zn_ctx *c, unsigned flags, int priority, int kind)
{
    zn_stream *s = zn_handle_new(ZN_HANDLE_STREAM, sizeof *s);
    if (!s)
        return NULL;
    s->q = zn_queue_get();
    if (!s->q) {
        zn_handle_retire(ZN_HANDLE_STREAM, s, sizeof *s);
        return NULL;
    }
    s->magic = ZN_MAGIC_STREAM;
    s->ctx = c;
    s->flags = flags;
    s->priority = priority;
    s->kind = kind;
    s->id = kind == ZN_STREAM_LEGACY ? 1 : atomic_fetch_add(&next_stream_id, 1);
    return s;
}

/* Links s into its context's list (streams the legacy stream syncs with). */
static void stream_link(zn_stream *s)
{
    zn_ctx *c = s->ctx;
    pthread_mutex_lock(&c->stream_lock);
    s->next = c->streams;
    if (c->streams)
        c->streams->prev = s;
    c->streams = s;
    zn_stream_gate_wait(s);
    pthread_mutex_unlock(&c->stream_lock);
}

zn_stream *zn_stream_unlisted(zn_ctx *c)
{
    return stream_new(c, ZN_CU_STREAM_NON_BLOCKING, 0, ZN_STREAM_USER);
}

static void stream_free(zn_stream *s)
{
    zn_ctx *c = s->ctx;
    pthread_mutex_lock(&c->stream_lock);
    if (s->prev)
        s->prev->next = s->next;
    else if (c->streams == s)
        c->streams = s->next;
    if (s->next)
        s->next->prev = s->prev;
    pthread_mutex_unlock(&c->stream_lock);
    zn_queue_put(s->q);     /* back to the pool once its work has run */
    zn_nodeset_free(&s->deps);
    zn_handle_retire(ZN_HANDLE_STREAM, s, sizeof *s);
}

static zn_stream *legacy_of(zn_ctx *c)
{
    pthread_mutex_lock(&c->stream_lock);
    if (!c->legacy && (c->legacy = stream_new(c, 0, 0, ZN_STREAM_LEGACY)))
        zn_stream_gate_wait(c->legacy);
    zn_stream *s = c->legacy;
    pthread_mutex_unlock(&c->stream_lock);
    return s;
}

/* ---- per-thread default streams ---- */
static pthread_key_t ptds_key;
static pthread_once_t ptds_once = PTHREAD_ONCE_INIT;
static __thread zn_stream *tls_ptds;

static void ptds_exit(void *p)
{
    zn_stream *s = p;
    if (s && s->magic == ZN_MAGIC_STREAM)
        stream_free(s);
}

static void ptds_init(void)
{
    pthread_key_create(&ptds_key, ptds_exit);
}

static zn_stream *ptds_of(zn_ctx *c)
{
    zn_stream *s = tls_ptds;
    if (s && s->magic == ZN_MAGIC_STREAM && s->ctx == c)
        return s;
    pthread_once(&ptds_once, ptds_init);
    s = stream_new(c, 0, 0, ZN_STREAM_PER_THREAD);
    if (!s)
        return NULL;
    stream_link(s);
    tls_ptds = s;
    pthread_setspecific(ptds_key, s);
    return s;
}

zn_stream *zn_stream_get(CUstream h, bool per_thread)
{
    zn_ctx *c = zn_ctx_current();
    if (!c)
        return NULL;
    if (!h)
        h = per_thread ? ZN_CU_STREAM_PER_THREAD : ZN_CU_STREAM_LEGACY;
    if (h == ZN_CU_STREAM_LEGACY)
        return legacy_of(c);
    if (h == ZN_CU_STREAM_PER_THREAD)
        return ptds_of(c);
    return h->magic == ZN_MAGIC_STREAM ? h : NULL;
}

/* The usual prologue: initialised, a current context without a sticky
 * error, and the stream the handle names. */
CUresult zn_stream_enter(CUstream h, bool pt, zn_stream **out)
{
    zn_ctx *c;
    CUresult r = zn_ctx_enter(&c);
    if (r != CUDA_SUCCESS)
        return r;
    *out = zn_stream_get(h, pt);
    return *out ? CUDA_SUCCESS : zn_stream_bad(h);
}

/* NVIDIA's driver destroys a context's streams with it. A per-thread
 * stream stays referenced by its thread (tls_ptds, ptds_key), which gives it
 * back at exit; unlinked, stream_free then leaves the context's list alone. */
void zn_stream_ctx_destroy(zn_ctx *c)
{
    pthread_mutex_lock(&c->stream_lock);
    zn_stream *s = c->streams, *legacy = c->legacy, *gate = c->gate;
    c->streams = NULL;
    c->legacy = NULL;
    c->gate = NULL;
    c->gate_wait = 0;
    pthread_mutex_unlock(&c->stream_lock);
    if (gate)
        stream_free(gate);      /* in no list: stream_free leaves the lists alone */
    while (s) {
        zn_stream *next = s->next;
        s->next = s->prev = NULL;
        if (s->kind == ZN_STREAM_USER)
            stream_free(s);
        s = next;
    }
    if (legacy)
        stream_free(legacy);
}

/* ---- creation ---- */

CUresult zn_stream_create(zn_ctx *c, unsigned flags, int priority, CUstream *ps)
{
    if (!ps || (flags & ~(unsigned)ZN_CU_STREAM_NON_BLOCKING))
        return CUDA_ERROR_INVALID_VALUE;
    /* clamp into [greatest, least] = [-5, 0] as the driver does */
    zn_stream *s = stream_new(c, flags, priority > 0 ? 0 : priority < -5 ? -5 : priority,
                              ZN_STREAM_USER);
    if (!s)
        return CUDA_ERROR_OUT_OF_MEMORY;
    stream_link(s);
    *ps = s;
    return CUDA_SUCCESS;
}

CUresult cuStreamCreateWithPriority(CUstream *ps, unsigned int flags, int priority)
{
    ZN_ENTER(c);
    ZN_RET(zn_stream_create(c, flags, priority, ps));
}

CUresult cuStreamCreate(CUstream *ps, unsigned int flags)
{
    return cuStreamCreateWithPriority(ps, flags, 0);
}

/* Returns at once; queued work still runs (the queue is given back after). */
CUresult cuStreamDestroy_v2(CUstream s)
{
    ZN_CHECK_INIT();
    if (!s || stream_builtin(s) || s->magic != ZN_MAGIC_STREAM || s->kind != ZN_STREAM_USER)
        ZN_RET(zn_stream_bad(s));
    stream_free(s);
    ZN_RET(CUDA_SUCCESS);
}

/* ---- waiting and queries ---- */

static CUresult stream_sync(CUstream h, bool pt)
{
    zn_stream *s;
    CUresult r = zn_stream_enter(h, pt, &s);
    if (r != CUDA_SUCCESS)
        return r;
    if (s->cap)
        return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
    if (s->kind == ZN_STREAM_LEGACY && zn_capture_blocks_legacy())
        return CUDA_ERROR_STREAM_CAPTURE_IMPLICIT;
    return zn_stream_wait_all(s);
}

static CUresult stream_query(CUstream h, bool pt)
{
    zn_stream *s;
    CUresult r = zn_stream_enter(h, pt, &s);
    if (r != CUDA_SUCCESS)
        return r;
    if (s->cap)
        return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
    r = (CUresult)atomic_load(&s->ctx->sticky);
    return r != CUDA_SUCCESS ? r : zn_stream_busy(s) ? CUDA_ERROR_NOT_READY : CUDA_SUCCESS;
}

static CUresult stream_wait_event(CUstream h, CUevent e, unsigned flags, bool pt)
{
    zn_stream *s;
    CUresult r = zn_stream_enter(h, pt, &s);
    if (r != CUDA_SUCCESS)
        return r;
    if (!zn_event_valid(e))
        return zn_event_bad(e);
    if (flags & ~1u)
        return CUDA_ERROR_INVALID_VALUE;
    zn_op *op = zn_op_new(ZN_OP_EVENT_WAIT, 0);
    if (!op)
        return CUDA_ERROR_OUT_OF_MEMORY;
    op->u.ev.e = e;
    return zn_submit(s, op, false);
}

/* The stream getters: enter, check the output pointer, then read. */
static CUresult enter_query(CUstream h, bool pt, const void *out, zn_stream **s)
{
    CUresult r = zn_stream_enter(h, pt, s);
    if (r != CUDA_SUCCESS)
        return r;
    return out ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

static CUresult stream_get_flags(CUstream h, unsigned *flags, bool pt)
{
    zn_stream *s;
    CUresult r = enter_query(h, pt, flags, &s);
    if (r == CUDA_SUCCESS)
        *flags = s->flags;
    return r;
}

static CUresult stream_get_priority(CUstream h, int *priority, bool pt)
{
    zn_stream *s;
    CUresult r = enter_query(h, pt, priority, &s);
    if (r == CUDA_SUCCESS)
        *priority = s->priority;
    return r;
}

static CUresult stream_get_ctx(CUstream h, CUcontext *pctx, bool pt)
{
    zn_stream *s;
    CUresult r = enter_query(h, pt, pctx, &s);
    if (r == CUDA_SUCCESS)
        *pctx = s->ctx;
    return r;
}

/* A stream of a green context's converted context: the primary context and
 * the green context; any other: its context and NULL. */
static CUresult stream_get_ctx_v2(CUstream h, CUcontext *pctx, CUgreenCtx *green, bool pt)
{
    if (!green)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult r = stream_get_ctx(h, pctx, pt);
    if (r == CUDA_SUCCESS) {
        *green = (*pctx)->green;
        if (*green)
            *pctx = zn_ctx_primary((*pctx)->device);
    }
    return r;
}

CUresult cuStreamGetGreenCtx(CUstream h, CUgreenCtx *green)
{
    CUcontext c;
    ZN_RET(stream_get_ctx_v2(h, &c, green, false));
}

static CUresult stream_get_id(CUstream h, unsigned long long *id, bool pt)
{
    zn_stream *s;
    CUresult r = enter_query(h, pt, id, &s);
    if (r == CUDA_SUCCESS)
        *id = s->id;
    return r;
}

static CUresult stream_get_device(CUstream h, CUdevice *dev, bool pt)
{
    zn_stream *s;
    CUresult r = enter_query(h, pt, dev, &s);
    if (r == CUDA_SUCCESS)
        *dev = 0;
    return r;
}

/* ---- host work ---- */

/* The callback sees the context's status when it runs, as CUDA passes the
 * stream's; it gets the handle the caller passed. */
static CUresult stream_add_callback(CUstream h, CUstreamCallback cb, void *user,
                                    unsigned flags, bool pt)
{
    zn_stream *s;
    if (!atomic_load(&zn_drv_inited))
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!zn_ctx_current())
        return CUDA_ERROR_INVALID_CONTEXT;
    if (!(s = zn_stream_get(h, pt)))
        return zn_stream_bad(h);
    if (!cb || flags != 0)
        return CUDA_ERROR_INVALID_VALUE;
    if (s->cap)
        return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
    zn_op *op = zn_op_new(ZN_OP_CALLBACK, 0);
    if (!op)
        return CUDA_ERROR_OUT_OF_MEMORY;
    op->u.cb.cb = cb;
    op->u.cb.user = user;
    op->u.cb.handle = h;
    return zn_submit(s, op, false);
}

static CUresult host_func(CUstream h, CUhostFn fn, void *user, bool pt)
{
    zn_stream *s;
    CUresult r = zn_stream_enter(h, pt, &s);
    if (r != CUDA_SUCCESS)
        return r;
    if (!fn)
        return CUDA_ERROR_INVALID_VALUE;
    zn_op *op = zn_op_new(ZN_OP_HOST, 0);
    if (!op)
        return CUDA_ERROR_OUT_OF_MEMORY;
    op->u.host.fn = fn;
    op->u.host.user = user;
    return zn_submit(s, op, false);
}

static CUresult stream_attach(CUstream h, CUdeviceptr p, size_t n, unsigned flags, bool pt)
{
    zn_stream *s;
    CUresult r = zn_stream_enter(h, pt, &s);
    if (r != CUDA_SUCCESS)
        return r;
    return p && flags >= 1 && flags <= 4 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

/* cuStreamWaitValue* / cuStreamWriteValue*: addr is device memory (or a
 * registered host range), aligned to the value's size. */
static CUresult mem_op(CUstream h, CUdeviceptr addr, uint64_t v, unsigned flags, int bits,
                       bool wait, bool pt)
{
    zn_stream *s;
    CUresult r = zn_stream_enter(h, pt, &s);
    if (r != CUDA_SUCCESS)
        return r;
    unsigned allowed = wait ? 3u | ZN_CU_STREAM_WAIT_VALUE_FLUSH : 1u;
    if (!addr || addr % (unsigned)(bits / 8) || (flags & ~allowed) ||
        !zn_mem_range_ok(addr, (size_t)bits / 8))
        return CUDA_ERROR_INVALID_VALUE;
    zn_op *op = zn_op_new(wait ? ZN_OP_WAIT_VALUE : ZN_OP_WRITE_VALUE, 0);
    if (!op)
        return CUDA_ERROR_OUT_OF_MEMORY;
    op->u.val.addr = (void *)(uintptr_t)addr;
    op->u.val.v = v;
    op->u.val.flags = flags;
    op->u.val.bits = bits;
    return zn_submit(s, op, false);
}

/* ---- attributes: the priority is kept, the other hints read back as
 * their defaults ---- */
static CUresult stream_get_attr(CUstream h, int id, CUlaunchAttributeValue *v, bool pt)
{
    zn_stream *s;
    CUresult r = zn_stream_enter(h, pt, &s);
    if (r != CUDA_SUCCESS)
        return r;
    if (!v)
        return CUDA_ERROR_INVALID_VALUE;
    memset(v, 0, sizeof *v);
    switch (id) {
    case CU_LAUNCH_ATTRIBUTE_PRIORITY:
        v->priority = s->priority;
        return CUDA_SUCCESS;
    case CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW:
    case CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY:
    case CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP:
    case CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN:
        return CUDA_SUCCESS;
    default:
        return CUDA_ERROR_INVALID_VALUE;
    }
}

static CUresult stream_set_attr(CUstream h, int id, const CUlaunchAttributeValue *v, bool pt)
{
    zn_stream *s;
    CUresult r = zn_stream_enter(h, pt, &s);
    if (r != CUDA_SUCCESS)
        return r;
    if (!v)
        return CUDA_ERROR_INVALID_VALUE;
    switch (id) {
    case CU_LAUNCH_ATTRIBUTE_PRIORITY:
        if (s->kind == ZN_STREAM_USER)
            s->priority = v->priority > 0 ? 0 : v->priority < -5 ? -5 : v->priority;
        return CUDA_SUCCESS;
    case CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW:
    case CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY:
    case CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP:
    case CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN:
        return CUDA_SUCCESS;
    default:
        return CUDA_ERROR_INVALID_VALUE;
    }
}

static CUresult stream_copy_attrs(CUstream dst, CUstream src, bool pt)
{
    CUlaunchAttributeValue v;
    CUresult r = stream_get_attr(src, CU_LAUNCH_ATTRIBUTE_PRIORITY, &v, pt);
    return r == CUDA_SUCCESS ? stream_set_attr(dst, CU_LAUNCH_ATTRIBUTE_PRIORITY, &v, pt) : r;
}

/* ---- entry points with legacy and per-thread (_ptsz) names ---- */
#define BOTH(name, params, call)                                        \
    CUresult name params { const bool pt = false; ZN_RET(call); }       \
    CUresult name##_ptsz params { const bool pt = true; ZN_RET(call); }

BOTH(cuStreamSynchronize, (CUstream s), stream_sync(s, pt))
BOTH(cuStreamQuery, (CUstream s), stream_query(s, pt))
BOTH(cuStreamWaitEvent, (CUstream s, CUevent e, unsigned int flags),
     stream_wait_event(s, e, flags, pt))
BOTH(cuStreamGetFlags, (CUstream s, unsigned int *flags), stream_get_flags(s, flags, pt))
BOTH(cuStreamGetPriority, (CUstream s, int *priority), stream_get_priority(s, priority, pt))
BOTH(cuStreamGetCtx, (CUstream s, CUcontext *pctx), stream_get_ctx(s, pctx, pt))
BOTH(cuStreamGetCtx_v2, (CUstream s, CUcontext *pctx, CUgreenCtx *green),
     stream_get_ctx_v2(s, pctx, green, pt))
BOTH(cuStreamGetId, (CUstream s, unsigned long long *id), stream_get_id(s, id, pt))
BOTH(cuStreamGetDevice, (CUstream s, CUdevice *dev), stream_get_device(s, dev, pt))
BOTH(cuStreamAddCallback, (CUstream s, CUstreamCallback cb, void *user, unsigned int flags),
     stream_add_callback(s, cb, user, flags, pt))
BOTH(cuStreamAttachMemAsync, (CUstream s, CUdeviceptr p, size_t n, unsigned int flags),
     stream_attach(s, p, n, flags, pt))
BOTH(cuLaunchHostFunc, (CUstream s, CUhostFn fn, void *user), host_func(s, fn, user, pt))
BOTH(cuStreamGetAttribute, (CUstream s, int id, CUlaunchAttributeValue *v),
     stream_get_attr(s, id, v, pt))
BOTH(cuStreamSetAttribute, (CUstream s, int id, const CUlaunchAttributeValue *v),
     stream_set_attr(s, id, v, pt))
BOTH(cuStreamCopyAttributes, (CUstream dst, CUstream src), stream_copy_attrs(dst, src, pt))

#define MEMOP_ARGS (CUstream s, CUdeviceptr addr, uint32_t v, unsigned int flags)
#define MEMOP_ARGS64 (CUstream s, CUdeviceptr addr, uint64_t v, unsigned int flags)
BOTH(cuStreamWaitValue32, MEMOP_ARGS, mem_op(s, addr, v, flags, 32, true, pt))
BOTH(cuStreamWaitValue64, MEMOP_ARGS64, mem_op(s, addr, v, flags, 64, true, pt))
BOTH(cuStreamWriteValue32, MEMOP_ARGS, mem_op(s, addr, v, flags, 32, false, pt))
BOTH(cuStreamWriteValue64, MEMOP_ARGS64, mem_op(s, addr, v, flags, 64, false, pt))
BOTH(cuStreamWaitValue32_v2, MEMOP_ARGS, mem_op(s, addr, v, flags, 32, true, pt))
BOTH(cuStreamWaitValue64_v2, MEMOP_ARGS64, mem_op(s, addr, v, flags, 64, true, pt))
BOTH(cuStreamWriteValue32_v2, MEMOP_ARGS, mem_op(s, addr, v, flags, 32, false, pt))
BOTH(cuStreamWriteValue64_v2, MEMOP_ARGS64, mem_op(s, addr, v, flags, 64, false, pt))

/* ---- cuStreamBatchMemOp: the wait/write value ops above, in order, plus
 * remote-write flushes and memory barriers (a fence when the stream gets
 * there: the CPU has no remote writes to flush) ---- */
enum {
    MEMOP_WAIT32 = 1, MEMOP_WRITE32 = 2, MEMOP_FLUSH = 3, MEMOP_WAIT64 = 4, MEMOP_WRITE64 = 5,
    MEMOP_BARRIER = 6
};

/* A sequentially consistent read-modify-write: a full barrier (a locked
 * instruction on x86, acquire-release on Arm) that ThreadSanitizer models,
 * unlike a bare fence (GCC rejects those under -fsanitize=thread). */
static _Atomic unsigned fence_word;

static void fence_now(void *user)
{
    (void)user;
    atomic_fetch_add_explicit(&fence_word, 1, memory_order_seq_cst);
}

CUresult zn_memop_check(const CUstreamBatchMemOpParams *o)
{
    switch (o->operation) {
    case MEMOP_WAIT32: case MEMOP_WAIT64: case MEMOP_WRITE32: case MEMOP_WRITE64: {
        bool wait = o->operation == MEMOP_WAIT32 || o->operation == MEMOP_WAIT64;
        unsigned bytes = o->operation == MEMOP_WAIT64 || o->operation == MEMOP_WRITE64 ? 8 : 4;
        unsigned allowed = wait ? 3u | ZN_CU_STREAM_WAIT_VALUE_FLUSH : 1u;
        CUdeviceptr a = o->value.address;
        return a && a % bytes == 0 && !(o->value.flags & ~allowed) && zn_mem_range_ok(a, bytes)
                   ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
    }
    case MEMOP_FLUSH:
        return o->flush.flags == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
    case MEMOP_BARRIER:     /* CU_STREAM_MEMORY_BARRIER_TYPE_SYS or _GPU */
        return o->barrier.flags <= 1 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
    default:
        return CUDA_ERROR_INVALID_VALUE;
    }
}

static CUresult batch_mem_op(CUstream h, unsigned count, const CUstreamBatchMemOpParams *ops,
                             unsigned flags, bool pt)
{
    zn_stream *s;
    CUresult r = zn_stream_enter(h, pt, &s);
    if (r != CUDA_SUCCESS)
        return r;
    /* fewer than 256 operations (CUDA's limit), flags reserved */
    if (count == 0 || count > 255 || !ops || flags != 0)
        return CUDA_ERROR_INVALID_VALUE;
    for (unsigned i = 0; i < count; i++)
        if ((r = zn_memop_check(&ops[i])) != CUDA_SUCCESS)
            return r;
    for (unsigned i = 0; i < count && r == CUDA_SUCCESS; i++) {
        const CUstreamBatchMemOpParams *o = &ops[i];
        if (o->operation == MEMOP_FLUSH || o->operation == MEMOP_BARRIER) {
            zn_op *op = zn_op_new(ZN_OP_HOST, 0);
            if (!op)
                return CUDA_ERROR_OUT_OF_MEMORY;
            op->u.host.fn = fence_now;
            r = zn_submit(s, op, false);
            continue;
        }
        bool wait = o->operation == MEMOP_WAIT32 || o->operation == MEMOP_WAIT64;
        int bits = o->operation == MEMOP_WAIT64 || o->operation == MEMOP_WRITE64 ? 64 : 32;
        uint64_t v = bits == 64 ? o->value.value : (uint32_t)o->value.value;
        r = mem_op(h, o->value.address, v, o->value.flags, bits, wait, pt);
    }
    return r;
}

BOTH(cuStreamBatchMemOp, (CUstream s, unsigned int count, CUstreamBatchMemOpParams *ops, unsigned int flags),
     batch_mem_op(s, count, ops, flags, pt))
BOTH(cuStreamBatchMemOp_v2, (CUstream s, unsigned int count, CUstreamBatchMemOpParams *ops,
                             unsigned int flags), batch_mem_op(s, count, ops, flags, pt))
