/* zn_drv_submit.c: where every enqueueing call ends up.
 *
 * An op for a capturing stream becomes a graph node. Otherwise it goes on
 * the stream's queue behind the implicit dependencies of the legacy default
 * stream: work on the legacy stream waits for all earlier work of the
 * blocking streams of its context, and work on a blocking stream waits for
 * earlier legacy work (CU_STREAM_NON_BLOCKING streams do neither). The
 * dependencies are computed and the op pushed under the context's stream
 * lock, so that order between streams is the order of the calls.
 *
 * Synchronous operations (and event records) on an idle stream with no
 * pending dependency run on the calling thread: no thread hop for the
 * common "copy, launch, copy back" program.
 */
#include "zn_drv.h"
#include "zn_drv_ipc.h"
#include "../exec/zn_exec.h"

#include <stdlib.h>
#include <string.h>

/* Pageable host sources up to this size are staged at enqueue, as CUDA
 * does; larger ones make the copy synchronous. */
#define ZN_STAGE_MAX ((size_t)64 << 20)

static void op_item(void *arg)
{
    zn_op_run(arg);
    free(arg);
}

static bool push_wait(zn_stream *s, struct zn_queue *q, uint64_t t)
{
    zn_op *w = zn_op_new(ZN_OP_QUEUE_WAIT, 0);
    if (!w)
        return false;
    w->ctx = s->ctx;
    w->u.qw.q = q;
    w->u.qw.ticket = t;
    if (!zn_queue_push(s->q, op_item, w)) {
        free(w);
        return false;
    }
    return true;
}

/* Under ctx->stream_lock: queues the legacy stream's implicit waits in
 * front of s's next op; true if it queued any. */
static bool implicit_deps(zn_stream *s)
{
    zn_ctx *c = s->ctx;
    bool any = false;
    if (s->kind == ZN_STREAM_LEGACY) {
        for (zn_stream *o = c->streams; o; o = o->next) {
            if (o->flags & ZN_CU_STREAM_NON_BLOCKING)
                continue;
            uint64_t t = zn_queue_last(o->q);
            if (!zn_queue_done(o->q, t))
                any |= push_wait(s, o->q, t);
        }
    } else if (!(s->flags & ZN_CU_STREAM_NON_BLOCKING) && c->legacy) {
        uint64_t t = zn_queue_last(c->legacy->q);
        if (!zn_queue_done(c->legacy->q, t))
            any |= push_wait(s, c->legacy->q, t);
    }
    return any;
}

/* A pageable host source is copied now, so the caller may reuse it. */
static zn_op *stage_source(zn_op *op, bool *sync)
{
    if (op->u.cp.dst_pageable)
        *sync = true;   /* device to pageable host: CUDA returns when done */
    if (!op->u.cp.src_pageable || *sync)
        return op;
    size_t n = op->u.cp.w;
    if (op->u.cp.h * op->u.cp.d != 1 || n > ZN_STAGE_MAX) {
        *sync = true;
        return op;
    }
    zn_op *st = zn_op_new(ZN_OP_COPY, n);
    if (!st) {
        *sync = true;
        return op;
    }
    st->ctx = op->ctx;
    st->u.cp = op->u.cp;
    memcpy(st->data, op->u.cp.src, n);
    st->u.cp.src = (const char *)st->data;
    st->u.cp.src_pageable = false;
    free(op);
    return st;
}

/* e's last record is ticket t of queue q (not a capture's) */
static void event_at(zn_event *e, struct zn_queue *q, uint64_t t)
{
    e->q = q;
    e->ticket = t;
    e->recorded = true;
    e->cap = NULL;
}

CUresult zn_submit(zn_stream *s, zn_op *op, bool sync)
{
    if (s->cap || (op->kind == ZN_OP_EVENT_WAIT && zn_event_capture(op->u.ev.e)))
        return zn_capture_op(s, op, sync);
    if (s->kind == ZN_STREAM_LEGACY && zn_capture_blocks_legacy()) {
        free(op);
        return CUDA_ERROR_STREAM_CAPTURE_IMPLICIT;
    }
    if ((op->kind == ZN_OP_EVENT_RECORD || op->kind == ZN_OP_EVENT_WAIT) && op->u.ev.e->ipc)
        return zn_ipc_event_submit(s, op);  /* interprocess: zn_drv_ipc_event.c */
    zn_ctx *c = s->ctx;
    op->ctx = c;
    if (op->kind == ZN_OP_COPY)
        op = stage_source(op, &sync);
    zn_event *rec = NULL;
    if (op->kind == ZN_OP_EVENT_WAIT) {
        /* wait for the event's last record, if it is elsewhere and pending */
        zn_event *e = op->u.ev.e;
        struct zn_queue *q = e->q;
        uint64_t t = e->ticket;
        if (!e->recorded || !q || q == s->q || zn_queue_done(q, t)) {
            free(op);
            return CUDA_SUCCESS;
        }
        op->kind = ZN_OP_QUEUE_WAIT;
        op->u.qw.q = q;
        op->u.qw.ticket = t;
    } else if (op->kind == ZN_OP_EVENT_RECORD) {
        rec = op->u.ev.e;
        op->u.ev.gen = zn_event_new_gen();
        atomic_store(&rec->gen, op->u.ev.gen);
    }
    bool quick = sync || op->kind == ZN_OP_EVENT_RECORD || op->kind == ZN_OP_EMPTY;

    pthread_mutex_lock(&c->stream_lock);
    bool deps = implicit_deps(s);
    uint64_t t = quick && !deps ? zn_queue_inline_begin(s->q) : 0;
    if (t) {
        if (rec)
            event_at(rec, s->q, t);
        pthread_mutex_unlock(&c->stream_lock);
        zn_op_run(op);
        zn_queue_inline_end(s->q, t);
        free(op);
        return sync ? (CUresult)atomic_load(&c->sticky) : CUDA_SUCCESS;
    }
    t = zn_queue_push(s->q, op_item, op);
    if (t && rec)
        event_at(rec, s->q, t);
    pthread_mutex_unlock(&c->stream_lock);
    if (!t) {
        free(op);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    if (sync) {
        zn_queue_wait(s->q, t, true);
        return (CUresult)atomic_load(&c->sticky);
    }
    return CUDA_SUCCESS;
}

/* ---- context-wide events ----
 * cuCtxRecordEvent records on the context's gate, an unlisted stream, after
 * waits for the last work of every stream of the context (legacy,
 * per-thread and created, blocking or not; for the primary context, of its
 * green contexts too); cuCtxWaitEvent makes the gate
 * wait for the event and every stream, and each stream made later, wait
 * for the gate up to there. Order between threads is the order in which
 * they take the context's stream lock, as for the legacy stream. */

void zn_stream_gate_wait(zn_stream *s)
{
    zn_ctx *c = s->ctx;
    if (c->gate && c->gate_wait && s != c->gate && !zn_queue_done(c->gate->q, c->gate_wait))
        push_wait(s, c->gate->q, c->gate_wait);
}

/* Under the lock: the gate, made on first use; NULL when out of memory or
 * when a stream of the context is capturing (*r says which). */
static zn_stream *gate_of(zn_ctx *c, CUresult *r)
{
    bool capturing = c->legacy && c->legacy->cap;
    for (zn_stream *o = c->streams; o && !capturing; o = o->next)
        capturing = o->cap != NULL;
    if (capturing) {
        *r = CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
        return NULL;
    }
    if (!c->gate)
        c->gate = zn_stream_unlisted(c);
    *r = c->gate ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
    return c->gate;
}

/* Under the lock: s waits for (q, t) unless that is done. */
static void wait_for(zn_stream *s, struct zn_queue *q, uint64_t t)
{
    if (s && !zn_queue_done(q, t))
        push_wait(s, q, t);
}

/* Under c's lock: g waits for the last work of each of c's streams. */
static void wait_for_all(zn_stream *g, zn_ctx *c)
{
    if (c->legacy)
        wait_for(g, c->legacy->q, zn_queue_last(c->legacy->q));
    for (zn_stream *o = c->streams; o; o = o->next)
        wait_for(g, o->q, zn_queue_last(o->q));
}

/* the green contexts' streams too, for a record on the primary context */
static void wait_for_green(zn_ctx *gc, void *gate)
{
    pthread_mutex_lock(&gc->stream_lock);
    wait_for_all(gate, gc);
    pthread_mutex_unlock(&gc->stream_lock);
}

CUresult zn_ctx_record_event(zn_ctx *c, zn_event *e)
{
    zn_op *op = zn_op_new(ZN_OP_EVENT_RECORD, 0);
    if (!op)
        return CUDA_ERROR_OUT_OF_MEMORY;
    op->ctx = c;
    op->u.ev.e = e;
    op->u.ev.gen = zn_event_new_gen();
    CUresult r;
    pthread_mutex_lock(&c->stream_lock);
    zn_stream *g = gate_of(c, &r);
    uint64_t t = 0;
    if (g) {
        wait_for_all(g, c);
        if (c->is_primary)
            zn_green_each_ctx(c, wait_for_green, g);
        atomic_store(&e->gen, op->u.ev.gen);
        t = zn_queue_push(g->q, op_item, op);
        if (t)
            event_at(e, g->q, t);
        else
            r = CUDA_ERROR_OUT_OF_MEMORY;
    }
    pthread_mutex_unlock(&c->stream_lock);
    if (!t)
        free(op);
    return r;
}

CUresult zn_ctx_wait_event(zn_ctx *c, zn_event *e)
{
    CUresult r;
    pthread_mutex_lock(&c->stream_lock);
    zn_stream *g = gate_of(c, &r);
    if (g && e->recorded && e->q && !zn_queue_done(e->q, e->ticket)) {
        push_wait(g, e->q, e->ticket);
        c->gate_wait = zn_queue_last(g->q);
        if (c->legacy)
            zn_stream_gate_wait(c->legacy);
        for (zn_stream *o = c->streams; o; o = o->next)
            zn_stream_gate_wait(o);
    }
    pthread_mutex_unlock(&c->stream_lock);
    return r;
}

bool zn_stream_busy(zn_stream *s)
{
    return !zn_queue_done(s->q, zn_queue_last(s->q));
}

typedef struct qpos {
    struct zn_queue *q;
    uint64_t t;
} qpos;

/* Snapshot of (queue, last ticket) of the context's streams, under the
 * lock; the waits happen after it is released. */
static size_t snapshot(zn_ctx *c, bool blocking_only, qpos **out)
{
    pthread_mutex_lock(&c->stream_lock);
    size_t n = 1;
    for (zn_stream *o = c->streams; o; o = o->next)
        n++;
    qpos *v = malloc(n * sizeof *v);
    size_t k = 0;
    if (v) {
        if (c->legacy)
            v[k++] = (qpos){ c->legacy->q, zn_queue_last(c->legacy->q) };
        for (zn_stream *o = c->streams; o; o = o->next)
            if (!blocking_only || !(o->flags & ZN_CU_STREAM_NON_BLOCKING))
                v[k++] = (qpos){ o->q, zn_queue_last(o->q) };
    }
    pthread_mutex_unlock(&c->stream_lock);
    *out = v;
    return k;
}

static CUresult wait_snapshot(zn_ctx *c, bool blocking_only)
{
    qpos *v;
    size_t n = snapshot(c, blocking_only, &v);
    if (!v)
        return CUDA_ERROR_OUT_OF_MEMORY;
    for (size_t i = 0; i < n; i++)
        zn_queue_wait(v[i].q, v[i].t, true);
    free(v);
    return (CUresult)atomic_load(&c->sticky);
}

CUresult zn_stream_wait_all(zn_stream *s)
{
    /* the legacy stream's position includes every blocking stream's work
     * submitted before now */
    if (s->kind == ZN_STREAM_LEGACY)
        return wait_snapshot(s->ctx, true);
    zn_queue_wait(s->q, zn_queue_last(s->q), true);
    return (CUresult)atomic_load(&s->ctx->sticky);
}

CUresult zn_ctx_wait_all(zn_ctx *c)
{
    return wait_snapshot(c, false);
}
