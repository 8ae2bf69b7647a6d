/* zn_drv_stream.c: streams, events, host callbacks.
 *
 * For now every operation runs when it is enqueued, on the calling thread,
 * so a stream is always idle: synchronising is returning the context's
 * sticky error, an event's timestamp is taken when it is recorded, and host
 * functions run at once, in order. (Real asynchrony belongs to exec's
 * stream queues; the handles here already carry what it will need.)
 */
#include "zn_drv.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

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

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ---- streams ---- */

CUresult cuStreamCreateWithPriority(CUstream *ps, unsigned int flags, int priority)
{
    ZN_ENTER(c);
    if (!ps || (flags & ~(unsigned)ZN_CU_STREAM_NON_BLOCKING))
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    zn_stream *s = zn_handle_new(ZN_HANDLE_STREAM, sizeof *s);
    if (!s)
        ZN_RET(CUDA_ERROR_OUT_OF_MEMORY);
    s->magic = ZN_MAGIC_STREAM;
    s->ctx = c;
    s->flags = flags;
    /* clamp into [greatest, least] = [-5, 0] as the driver does */
    s->priority = priority > 0 ? 0 : priority < -5 ? -5 : priority;
    s->id = atomic_fetch_add(&next_stream_id, 1);
    *ps = s;
    ZN_RET(CUDA_SUCCESS);
}

CUresult cuStreamCreate(CUstream *ps, unsigned int flags)
{
    return cuStreamCreateWithPriority(ps, flags, 0);
}

CUresult cuStreamDestroy_v2(CUstream s)
{
    ZN_CHECK_INIT();
    if (!s || stream_builtin(s) || s->magic != ZN_MAGIC_STREAM)
        ZN_RET(CUDA_ERROR_INVALID_HANDLE);
    zn_handle_retire(ZN_HANDLE_STREAM, s, sizeof *s);
    ZN_RET(CUDA_SUCCESS);
}

/* No stream ever has pending work: synchronising one is checking it. */
static CUresult stream_sync(CUstream s)
{
    zn_ctx *c;
    CUresult r = zn_ctx_enter(&c);
    if (r != CUDA_SUCCESS)
        return r;
    return zn_stream_valid(s) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

static CUresult stream_wait_event(CUstream s, CUevent e, unsigned flags)
{
    CUresult r = stream_sync(s);
    if (r != CUDA_SUCCESS)
        return r;
    if (!e || e->magic != ZN_MAGIC_EVENT)
        return CUDA_ERROR_INVALID_HANDLE;
    return flags & ~1u ? CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS;
}

static CUresult stream_get_flags(CUstream s, unsigned *flags)
{
    CUresult r = stream_sync(s);
    if (r != CUDA_SUCCESS)
        return r;
    if (!flags)
        return CUDA_ERROR_INVALID_VALUE;
    *flags = stream_builtin(s) ? 0 : s->flags;
    return CUDA_SUCCESS;
}

static CUresult stream_get_priority(CUstream s, int *priority)
{
    CUresult r = stream_sync(s);
    if (r != CUDA_SUCCESS)
        return r;
    if (!priority)
        return CUDA_ERROR_INVALID_VALUE;
    *priority = stream_builtin(s) ? 0 : s->priority;
    return CUDA_SUCCESS;
}

static CUresult stream_get_ctx(CUstream s, CUcontext *pctx)
{
    CUresult r = stream_sync(s);
    if (r != CUDA_SUCCESS)
        return r;
    if (!pctx)
        return CUDA_ERROR_INVALID_VALUE;
    *pctx = stream_builtin(s) ? zn_ctx_current() : s->ctx;
    return CUDA_SUCCESS;
}

static CUresult stream_get_id(CUstream s, unsigned long long *id)
{
    CUresult r = stream_sync(s);
    if (r != CUDA_SUCCESS)
        return r;
    if (!id)
        return CUDA_ERROR_INVALID_VALUE;
    *id = !s ? 0 : s == ZN_CU_STREAM_LEGACY ? 1 : s == ZN_CU_STREAM_PER_THREAD ? 2 : s->id;
    return CUDA_SUCCESS;
}

static CUresult stream_get_device(CUstream s, CUdevice *dev)
{
    CUresult r = stream_sync(s);
    if (r != CUDA_SUCCESS)
        return r;
    if (!dev)
        return CUDA_ERROR_INVALID_VALUE;
    *dev = 0;
    return CUDA_SUCCESS;
}

/* The callback sees the context's status, as CUDA passes the stream's. */
static CUresult stream_add_callback(CUstream s, CUstreamCallback cb, void *user,
                                    unsigned flags)
{
    if (!atomic_load(&zn_drv_inited))
        return CUDA_ERROR_NOT_INITIALIZED;
    zn_ctx *c = zn_ctx_current();
    if (!c)
        return CUDA_ERROR_INVALID_CONTEXT;
    if (!zn_stream_valid(s))
        return CUDA_ERROR_INVALID_HANDLE;
    if (!cb || flags != 0)
        return CUDA_ERROR_INVALID_VALUE;
    cb(s, (CUresult)atomic_load(&c->sticky), user);
    return CUDA_SUCCESS;
}

static CUresult stream_attach(CUstream s, CUdeviceptr p, size_t n, unsigned flags)
{
    CUresult r = stream_sync(s);
    if (r != CUDA_SUCCESS)
        return r;
    return p && flags >= 1 && flags <= 4 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

static CUresult host_func(CUstream s, CUhostFn fn, void *user)
{
    CUresult r = stream_sync(s);
    if (r != CUDA_SUCCESS)
        return r;
    if (!fn)
        return CUDA_ERROR_INVALID_VALUE;
    fn(user);
    return CUDA_SUCCESS;
}

/* Stream attributes are scheduling and cache hints: the priority is kept,
 * the others are accepted and read back as their defaults. */
static CUresult stream_get_attr(CUstream s, int id, CUlaunchAttributeValue *v)
{
    CUresult r = stream_sync(s);
    if (r != CUDA_SUCCESS)
        return r;
    if (!v)
        return CUDA_ERROR_INVALID_VALUE;
    memset(v, 0, sizeof *v);
    switch (id) {
    case CU_LAUNCH_ATTRIBUTE_PRIORITY:
        v->priority = stream_builtin(s) ? 0 : s->priority;
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

static CUresult stream_set_attr(CUstream s, int id, const CUlaunchAttributeValue *v)
{
    CUresult r = stream_sync(s);
    if (r != CUDA_SUCCESS)
        return r;
    if (!v)
        return CUDA_ERROR_INVALID_VALUE;
    switch (id) {
    case CU_LAUNCH_ATTRIBUTE_PRIORITY:
        if (!stream_builtin(s))
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

static CUresult stream_copy_attrs(CUstream dst, CUstream src)
{
    CUlaunchAttributeValue v;
    CUresult r = stream_get_attr(src, CU_LAUNCH_ATTRIBUTE_PRIORITY, &v);
    return r == CUDA_SUCCESS ? stream_set_attr(dst, CU_LAUNCH_ATTRIBUTE_PRIORITY, &v) : r;
}

/* ---- events ---- */

CUresult cuEventCreate(CUevent *pe, unsigned int flags)
{
    ZN_ENTER(c);
    if (!pe || (flags & ~0x7u))
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    zn_event *e = zn_handle_new(ZN_HANDLE_EVENT, sizeof *e);
    if (!e)
        ZN_RET(CUDA_ERROR_OUT_OF_MEMORY);
    e->magic = ZN_MAGIC_EVENT;
    e->ctx = c;
    e->flags = flags;
    *pe = e;
    ZN_RET(CUDA_SUCCESS);
}

static bool event_valid(CUevent e)
{
    return e && e->magic == ZN_MAGIC_EVENT;
}

static CUresult event_record(CUevent e, CUstream s, unsigned flags)
{
    CUresult r = stream_sync(s);
    if (r != CUDA_SUCCESS)
        return r;
    if (!event_valid(e))
        return CUDA_ERROR_INVALID_HANDLE;
    if (flags & ~1u)
        return CUDA_ERROR_INVALID_VALUE;
    e->ns = now_ns();
    e->recorded = true;
    return CUDA_SUCCESS;
}

CUresult cuEventQuery(CUevent e)
{
    ZN_ENTER(c);
    (void)c;
    ZN_RET(event_valid(e) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE);
}

CUresult cuEventSynchronize(CUevent e)
{
    ZN_ENTER(c);
    (void)c;
    ZN_RET(event_valid(e) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE);
}

CUresult cuEventDestroy_v2(CUevent e)
{
    ZN_CHECK_INIT();
    if (!event_valid(e))
        ZN_RET(CUDA_ERROR_INVALID_HANDLE);
    zn_handle_retire(ZN_HANDLE_EVENT, e, sizeof *e);
    ZN_RET(CUDA_SUCCESS);
}

CUresult cuEventElapsedTime_v2(float *ms, CUevent start, CUevent end)
{
    ZN_ENTER(c);
    (void)c;
    if (!ms)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    if (!event_valid(start) || !event_valid(end))
        ZN_RET(CUDA_ERROR_INVALID_HANDLE);
    if ((start->flags | end->flags) & ZN_CU_EVENT_DISABLE_TIMING)
        ZN_RET(CUDA_ERROR_INVALID_HANDLE);
    if (!start->recorded || !end->recorded)
        ZN_RET(CUDA_ERROR_INVALID_HANDLE);
    *ms = (float)((double)((int64_t)(end->ns - start->ns)) / 1e6);
    ZN_RET(CUDA_SUCCESS);
}

CUresult cuEventElapsedTime(float *ms, CUevent start, CUevent end)
{
    return cuEventElapsedTime_v2(ms, start, end);
}

/* ---- entry points with legacy and per-thread (_ptsz) names ---- */
#define BOTH(name, params, call)                \
    CUresult name params { ZN_RET(call); }      \
    CUresult name##_ptsz params { ZN_RET(call); }

BOTH(cuStreamSynchronize, (CUstream s), stream_sync(s))
BOTH(cuStreamQuery, (CUstream s), stream_sync(s))
BOTH(cuStreamWaitEvent, (CUstream s, CUevent e, unsigned int flags),
     stream_wait_event(s, e, flags))
BOTH(cuStreamGetFlags, (CUstream s, unsigned int *flags), stream_get_flags(s, flags))
BOTH(cuStreamGetPriority, (CUstream s, int *priority), stream_get_priority(s, priority))
BOTH(cuStreamGetCtx, (CUstream s, CUcontext *pctx), stream_get_ctx(s, pctx))
BOTH(cuStreamGetId, (CUstream s, unsigned long long *id), stream_get_id(s, id))
BOTH(cuStreamGetDevice, (CUstream s, CUdevice *dev), stream_get_device(s, dev))
BOTH(cuStreamAddCallback, (CUstream s, CUstreamCallback cb, void *user, unsigned int flags),
     stream_add_callback(s, cb, user, flags))
BOTH(cuStreamAttachMemAsync, (CUstream s, CUdeviceptr p, size_t n, unsigned int flags),
     stream_attach(s, p, n, flags))
BOTH(cuEventRecord, (CUevent e, CUstream s), event_record(e, s, 0))
BOTH(cuEventRecordWithFlags, (CUevent e, CUstream s, unsigned int flags),
     event_record(e, s, flags))
BOTH(cuLaunchHostFunc, (CUstream s, CUhostFn fn, void *user), host_func(s, fn, user))
BOTH(cuStreamGetAttribute, (CUstream s, int id, CUlaunchAttributeValue *v),
     stream_get_attr(s, id, v))
BOTH(cuStreamSetAttribute, (CUstream s, int id, const CUlaunchAttributeValue *v),
     stream_set_attr(s, id, v))
BOTH(cuStreamCopyAttributes, (CUstream dst, CUstream src), stream_copy_attrs(dst, src))
