/* zn_drv_event.c: events.
 *
 * Recording an event queues a record item on the stream and remembers the
 * stream's queue and the item's ticket: the event has "happened" once that
 * queue has completed the ticket, and the item takes the timestamp when the
 * stream reaches it (CLOCK_MONOTONIC, so elapsed times have microsecond
 * resolution and more). Every record gets a new generation; only the item
 * of the newest record writes the timestamp. Events recorded in a capture
 * stand for graph nodes instead (zn_drv_capture.c). Interprocess events
 * (CU_EVENT_INTERPROCESS) keep their state in shared memory instead and
 * branch to zn_drv_ipc_event.c.
 */
#include "zn_drv.h"
#include "zn_drv_ipc.h"
#include "../exec/zn_exec.h"
#include "../util/zn_log.h"

#include <time.h>

static atomic_ullong next_gen = 1;

uint64_t zn_event_new_gen(void)
{
    return atomic_fetch_add(&next_gen, 1);
}

uint64_t zn_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

bool zn_event_valid(CUevent e)
{
    return e && e->magic == ZN_MAGIC_EVENT;
}

CUresult cuEventCreate(CUevent *pe, unsigned int flags)
{
    ZN_ENTER(c);
    if (!pe || (flags & ~0xfu))
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    /* CUDA: an interprocess event must have timing disabled */
    if ((flags & ZN_CU_EVENT_INTERPROCESS) && !(flags & ZN_CU_EVENT_DISABLE_TIMING))
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    zn_event *e = zn_handle_new(ZN_HANDLE_EVENT, sizeof *e);
    if (!e)
        ZN_RET(CUDA_ERROR_OUT_OF_MEMORY);
    e->magic = ZN_MAGIC_EVENT;
    e->ctx = c;
    e->flags = flags;
    if (flags & ZN_CU_EVENT_INTERPROCESS) {
        CUresult r = zn_ipc_event_create(e);
        if (r != CUDA_SUCCESS) {
            zn_handle_retire(ZN_HANDLE_EVENT, e, sizeof *e);
            ZN_RET(r);
        }
    }
    *pe = e;
    ZN_RET(CUDA_SUCCESS);
}

CUresult cuEventDestroy_v2(CUevent e)
{
    ZN_CHECK_INIT();
    if (!zn_event_valid(e))
        ZN_RET(zn_event_bad(e));
    zn_nodeset_free(&e->deps);
    zn_ipc_event_release(e);
    zn_handle_retire(ZN_HANDLE_EVENT, e, sizeof *e);
    ZN_RET(CUDA_SUCCESS);
}

static bool event_done(const zn_event *e)
{
    return !e->recorded || !e->q || zn_queue_done(e->q, e->ticket);
}

static CUresult event_record(CUevent e, CUstream h, unsigned flags, bool pt)
{
    zn_ctx *c;
    CUresult r = zn_ctx_enter(&c);
    if (r != CUDA_SUCCESS)
        return r;
    zn_stream *s = zn_stream_get(h, pt);
    if (!zn_event_valid(e))
        return zn_event_bad(e);
    if (!s)
        return zn_stream_bad(h);
    if (flags & ~1u)
        return CUDA_ERROR_INVALID_VALUE;
    zn_op *op = zn_op_new(ZN_OP_EVENT_RECORD, 0);
    if (!op)
        return CUDA_ERROR_OUT_OF_MEMORY;
    op->u.ev.e = e;
    return zn_submit(s, op, false);
}

CUresult cuEventQuery(CUevent e)
{
    ZN_ENTER(c);
    (void)c;
    if (!zn_event_valid(e))
        ZN_RET(zn_event_bad(e));
    if (e->ipc)
        ZN_RET(zn_ipc_event_done(e) ? CUDA_SUCCESS : CUDA_ERROR_NOT_READY);
    ZN_RET(event_done(e) ? CUDA_SUCCESS : CUDA_ERROR_NOT_READY);
}

/* CU_EVENT_BLOCKING_SYNC: sleep on the queue's condition at once; without
 * it, poll briefly first (the default "spin" scheduling). */
CUresult cuEventSynchronize(CUevent e)
{
    ZN_ENTER(c);
    if (!zn_event_valid(e))
        ZN_RET(zn_event_bad(e));
    if (e->ipc)
        zn_ipc_event_sync(e, !(e->flags & ZN_CU_EVENT_BLOCKING_SYNC));
    else if (e->recorded && e->q)
        zn_queue_wait(e->q, e->ticket, !(e->flags & ZN_CU_EVENT_BLOCKING_SYNC));
    ZN_RET((CUresult)atomic_load(&c->sticky));
}

CUresult cuEventElapsedTime_v2(float *ms, CUevent start, CUevent end)
{
    ZN_ENTER(c);
    (void)c;
    if (!ms)                    /* NVIDIA's driver: INVALID_HANDLE, not _VALUE */
        ZN_RET(CUDA_ERROR_INVALID_HANDLE);
    if (!zn_event_valid(start) || !zn_event_valid(end))
        ZN_RET(zn_event_bad(zn_event_valid(start) ? end : start));
    if ((start->flags | end->flags) & ZN_CU_EVENT_DISABLE_TIMING)
        ZN_RET(CUDA_ERROR_INVALID_HANDLE);
    if (!start->recorded || !end->recorded)
        ZN_RET(CUDA_ERROR_INVALID_HANDLE);
    if (!event_done(start) || !event_done(end))
        ZN_RET(CUDA_ERROR_NOT_READY);
    int64_t d = (int64_t)(atomic_load(&end->ns) - atomic_load(&start->ns));
    *ms = (float)((double)d / 1e6);
    ZN_RET(CUDA_SUCCESS);
}

CUresult cuEventElapsedTime(float *ms, CUevent start, CUevent end)
{
    return cuEventElapsedTime_v2(ms, start, end);
}

/* Context-wide events (CUDA 12.5): the work of every stream of a context
 * (zn_drv_submit.c). The context is the argument, not the current one; the
 * event must be of that context. Interprocess events are not supported
 * here (they record through their own shared block). */
static CUresult ctx_event_args(CUcontext h, CUevent e)
{
    if (!atomic_load(&zn_drv_inited))
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!zn_ctx_valid(h))
        return CUDA_ERROR_INVALID_CONTEXT;
    if (!zn_event_valid(e))
        return zn_event_bad(e);
    /* the same context, or a green context and its primary context */
    zn_ctx *ec = e->ctx;
    if (ec != h && !(zn_ctx_valid(ec) && ((ec->is_primary && h->green) ||
                                          (h->is_primary && ec->green))))
        return CUDA_ERROR_INVALID_HANDLE;
    if (e->ipc) {
        zn_log(ZN_LOG_WARN, "context-wide record or wait of an interprocess event: not "
                            "supported");
        return CUDA_ERROR_NOT_SUPPORTED;
    }
    return (CUresult)atomic_load(&h->sticky);
}

CUresult cuCtxRecordEvent(CUcontext h, CUevent e)
{
    CUresult r = ctx_event_args(h, e);
    ZN_RET(r != CUDA_SUCCESS ? r : zn_ctx_record_event(h, e));
}

CUresult cuCtxWaitEvent(CUcontext h, CUevent e)
{
    CUresult r = ctx_event_args(h, e);
    ZN_RET(r != CUDA_SUCCESS ? r : zn_ctx_wait_event(h, e));
}

#define BOTH(name, params, call)                                        \
    CUresult name params { const bool pt = false; ZN_RET(call); }       \
    CUresult name##_ptsz params { const bool pt = true; ZN_RET(call); }

BOTH(cuEventRecord, (CUevent e, CUstream s), event_record(e, s, 0, pt))
BOTH(cuEventRecordWithFlags, (CUevent e, CUstream s, unsigned int flags),
     event_record(e, s, flags, pt))
