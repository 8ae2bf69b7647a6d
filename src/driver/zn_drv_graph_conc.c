/* zn_drv_graph_conc.c: independent branches of a graph run at once.
 *
 * CUDA runs a graph's independent branches concurrently, and programs can
 * tell (two kernel nodes without an edge that spin on each other's flag
 * finish on a GPU; two host nodes overlap). As NVIDIA's driver does with
 * its internal streams, an instantiated graph whose ops do not form one
 * chain gets internal streams of its context (non-blocking, so the legacy
 * stream's implicit synchronisation does not serialise them), and a launch
 * spreads the ops over the launch stream and those streams:
 *
 *  - Planning (at instantiation and update) walks the ops in their
 *    topological order and puts each on the stream whose last op is one of
 *    its predecessors (that edge then costs nothing), else on a new
 *    stream, else (ZN_GCONC_STREAMS in use) on the stream idle the
 *    longest. A graph that fits one stream keeps the one-stream path.
 *  - A launch records a fork event on the launch stream that each internal
 *    stream waits for before its first op, an event after each op that a
 *    later op on another stream depends on (which that op's stream waits
 *    for), and at the end a join event on each internal stream that the
 *    launch stream waits for, so later work on the launch stream comes
 *    after the whole graph. The events are per launch (plain event
 *    records, never handles); an op on the launch stream frees them after
 *    the joins, when every record has run.
 *
 * Every stream's queue holds its ops in the topological order and every
 * wait names a record submitted earlier, so the earliest unfinished item
 * of the launch can always run: no deadlock, however streams are shared.
 */
#include "zn_drv.h"

#include <limits.h>
#include <stdlib.h>

/* Internal streams of one graph at most (each is a queue with a thread). */
#define ZN_GCONC_STREAMS 16

typedef struct zn_gconc {
    zn_ctx *ctx;
    unsigned nst;                           /* internal streams */
    CUstream st[ZN_GCONC_STREAMS];
    unsigned long long id[ZN_GCONC_STREAMS];    /* to tell a reused handle */
    unsigned *str;      /* per op: 0 the launch stream, k > 0 st[k - 1] */
    size_t *ev;         /* per op: 1 + its event's index among the ops' events, 0: none */
    size_t nev;
} zn_gconc;

static bool stream_alive(const zn_gconc *p, unsigned k)
{
    const zn_stream *s = p->st[k];
    return zn_ctx_valid(p->ctx) && s && s->magic == ZN_MAGIC_STREAM && s->id == p->id[k];
}

void zn_gconc_free(zn_gexec *x)
{
    zn_gconc *p = x->conc;
    if (!p)
        return;
    /* queued work still runs: the queues are given back after it */
    for (unsigned k = 0; k < p->nst; k++)
        if (stream_alive(p, k))
            cuStreamDestroy_v2(p->st[k]);
    free(p->str);
    free(p->ev);
    free(p);
    x->conc = NULL;
}

/* At instantiation and update. */
CUresult zn_gconc_plan(zn_gexec *x)
{
    zn_gconc_free(x);
    size_t n = x->n;
    /* the internal streams are made in the current context: x's (an
     * update from another context keeps the one-stream path) */
    if (n < 2 || !x->poff || zn_ctx_current() != x->ctx)
        return CUDA_SUCCESS;
    zn_gconc *p = calloc(1, sizeof *p);
    size_t tail[ZN_GCONC_STREAMS + 1] = { 0 };      /* per stream: 1 + its last op, 0: none */
    if (!p || !(p->str = malloc(n * sizeof *p->str)) || !(p->ev = calloc(n, sizeof *p->ev))) {
        if (p)
            free(p->str);
        free(p);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    unsigned ns = 1;
    for (size_t i = 0; i < n; i++) {
        unsigned k = UINT_MAX;
        for (size_t e = x->poff[i]; e < x->poff[i + 1] && k == UINT_MAX; e++)
            if (tail[p->str[x->pred[e]]] == x->pred[e] + 1)
                k = p->str[x->pred[e]];
        if (k == UINT_MAX) {
            if (!tail[0])
                k = 0;
            else if (ns <= ZN_GCONC_STREAMS)
                k = ns++;
            else
                for (unsigned j = k = 0; j < ns; j++)
                    k = tail[j] < tail[k] ? j : k;
        }
        p->str[i] = k;
        tail[k] = i + 1;
    }
    if (ns == 1) {      /* a chain: the one-stream path */
        free(p->str);
        free(p->ev);
        free(p);
        return CUDA_SUCCESS;
    }
    for (size_t i = 0; i < n; i++)
        for (size_t e = x->poff[i]; e < x->poff[i + 1]; e++)
            if (p->str[x->pred[e]] != p->str[i] && !p->ev[x->pred[e]])
                p->ev[x->pred[e]] = ++p->nev;
    p->ctx = x->ctx;
    x->conc = p;
    for (unsigned k = 0; k + 1 < ns; k++) {
        CUresult r = cuStreamCreate(&p->st[k], ZN_CU_STREAM_NON_BLOCKING);
        if (r != CUDA_SUCCESS) {
            zn_gconc_free(x);
            return r;
        }
        p->id[k] = p->st[k]->id;
        p->nst++;
    }
    return CUDA_SUCCESS;
}

bool zn_gconc_usable(const zn_gexec *x, const zn_stream *s)
{
    const zn_gconc *p = x->conc;
    if (!p || s->cap || s->ctx != p->ctx)
        return false;   /* a capture records the ops in order, as before */
    for (unsigned k = 0; k < p->nst; k++)
        if (!stream_alive(p, k))
            return false;
    return true;
}

static CUresult submit_event(zn_stream *s, zn_op_kind kind, zn_event *e)
{
    zn_op *op = zn_op_new(kind, 0);
    if (!op)
        return CUDA_ERROR_OUT_OF_MEMORY;
    op->u.ev.e = e;
    return zn_submit(s, op, false);
}

CUresult zn_gconc_launch(zn_gexec *x, zn_stream *s)
{
    const zn_gconc *p = x->conc;
    unsigned ns = p->nst + 1;
    /* [0] fork, [k] stream k's join, [ns + j] the ops' events */
    zn_event *ev = calloc(ns + p->nev, sizeof *ev);
    if (!ev)
        return CUDA_ERROR_OUT_OF_MEMORY;
    for (size_t j = 0; j < ns + p->nev; j++) {
        ev[j].ctx = s->ctx;
        ev[j].flags = ZN_CU_EVENT_DISABLE_TIMING;
    }
    zn_stream *st[ZN_GCONC_STREAMS + 1] = { s };
    bool started[ZN_GCONC_STREAMS + 1] = { true };
    for (unsigned k = 1; k < ns; k++)
        st[k] = p->st[k - 1];
    CUresult r = submit_event(s, ZN_OP_EVENT_RECORD, &ev[0]);
    for (size_t i = 0; i < x->n && r == CUDA_SUCCESS; i++) {
        unsigned k = p->str[i];
        if (!started[k]) {
            started[k] = true;
            r = submit_event(st[k], ZN_OP_EVENT_WAIT, &ev[0]);
        }
        for (size_t e = x->poff[i]; e < x->poff[i + 1] && r == CUDA_SUCCESS; e++)
            if (p->str[x->pred[e]] != k)
                r = submit_event(st[k], ZN_OP_EVENT_WAIT, &ev[ns + p->ev[x->pred[e]] - 1]);
        /* a disabled or empty node still passes its predecessors on */
        if (r == CUDA_SUCCESS && !x->disabled[i] && x->ops[i]->kind != ZN_OP_EMPTY) {
            zn_op *op = zn_op_clone(x->ops[i]);
            r = op ? zn_submit(st[k], op, false) : CUDA_ERROR_OUT_OF_MEMORY;
        }
        if (r == CUDA_SUCCESS && p->ev[i])
            r = submit_event(st[k], ZN_OP_EVENT_RECORD, &ev[ns + p->ev[i] - 1]);
    }
    /* joins, even after a failure: what was queued must finish before the
     * events are freed */
    bool joined = true;
    for (unsigned k = 1; k < ns; k++)
        if (started[k])
            joined &= submit_event(st[k], ZN_OP_EVENT_RECORD, &ev[k]) == CUDA_SUCCESS &&
                      submit_event(s, ZN_OP_EVENT_WAIT, &ev[k]) == CUDA_SUCCESS;
    zn_op *fr = joined ? zn_op_new(ZN_OP_HOST, 0) : NULL;
    if (fr) {
        fr->u.host.fn = free;
        fr->u.host.user = ev;
    }
    if (!fr || zn_submit(s, fr, false) != CUDA_SUCCESS) {
        /* no op to free them later: wait here for every record to run */
        for (unsigned k = 0; k < ns; k++)
            if (started[k])
                zn_stream_wait_all(st[k]);
        free(ev);
        if (r == CUDA_SUCCESS)
            r = CUDA_ERROR_OUT_OF_MEMORY;
    }
    return r;
}
