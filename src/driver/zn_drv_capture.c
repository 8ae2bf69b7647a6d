/* zn_drv_capture.c: stream capture.
 *
 * While a stream captures, zn_submit hands its ops here and each becomes a
 * graph node depending on the stream's current dependency set, which then
 * becomes that node. An event recorded in a capture stands for the
 * recording stream's set; another stream that waits on it joins the
 * capture with that set (fork), and the origin stream waiting on an event
 * of a joined stream takes the union (join). Ending the capture on the
 * origin stream ends it for every stream that joined.
 *
 * Capture records stay allocated (reused, never freed): events keep the
 * (record, id) pair they were recorded in, and the pair stops matching
 * once that capture ends.
 */
#include "zn_drv.h"
#include "../util/zn_log.h"

#include <stdlib.h>
#include <string.h>

typedef struct zn_capture {
    unsigned long long id;      /* 0 once ended */
    zn_graph *graph;
    zn_stream *origin;
    int mode;
    bool blocking;              /* origin is a blocking stream */
    bool invalidated;
    bool into;                  /* cuStreamBeginCaptureToGraph: the app's graph */
    pthread_t thread;
    struct zn_capture *next_free;
} zn_capture;

static pthread_mutex_t cap_lock = PTHREAD_MUTEX_INITIALIZER;
static zn_capture *cap_free;
static unsigned long long cap_next_id = 1;
/* captures on blocking streams: the legacy stream may not be used */
static atomic_int blocking_captures;
static __thread int capture_mode;   /* cuThreadExchangeStreamCaptureMode */

bool zn_capture_blocks_legacy(void)
{
    return atomic_load(&blocking_captures) > 0;
}

zn_graph *zn_capture_graph(const zn_capture *c)
{
    return c->graph;
}

zn_capture *zn_event_capture(const zn_event *e)
{
    zn_capture *c = e->cap;
    return c && e->cap_id && c->id == e->cap_id ? c : NULL;
}

static zn_capture *cap_new(void)
{
    pthread_mutex_lock(&cap_lock);
    zn_capture *c = cap_free;
    if (c)
        cap_free = c->next_free;
    else
        c = calloc(1, sizeof *c);
    if (c)
        c->id = cap_next_id++;
    pthread_mutex_unlock(&cap_lock);
    return c;
}

static void cap_end(zn_capture *c)
{
    if (c->blocking)
        atomic_fetch_sub(&blocking_captures, 1);
    pthread_mutex_lock(&cap_lock);
    c->id = 0;
    c->graph = NULL;
    c->next_free = cap_free;
    cap_free = c;
    pthread_mutex_unlock(&cap_lock);
}

static CUgraphNodeType node_type(zn_op_kind k)
{
    switch (k) {
    case ZN_OP_KERNEL: return CU_GRAPH_NODE_TYPE_KERNEL;
    case ZN_OP_COPY: return CU_GRAPH_NODE_TYPE_MEMCPY;
    case ZN_OP_SET: return CU_GRAPH_NODE_TYPE_MEMSET;
    case ZN_OP_HOST: return CU_GRAPH_NODE_TYPE_HOST;
    default: return CU_GRAPH_NODE_TYPE_EMPTY;  /* (memory ops: batch memory-op nodes) */
    }
}

static CUresult capedge_put(zn_stream *s, zn_gnode *d, const CUgraphEdgeData *e);

CUresult zn_capture_op(zn_stream *s, zn_op *op, bool sync)
{
    zn_capture *c = s->cap;
    CUresult r = CUDA_SUCCESS;
    if (op->kind == ZN_OP_EVENT_WAIT) {
        zn_event *e = op->u.ev.e;
        zn_capture *ec = zn_event_capture(e);
        if (!ec) {
            /* an event from outside the capture: nothing to add */
        } else if (!c) {
            s->cap = ec;                        /* fork: s joins */
            zn_nodeset_set(&s->deps, e->deps.v, e->deps.n);
            s->ncapedges = 0;
        } else if (c != ec) {
            r = CUDA_ERROR_STREAM_CAPTURE_MERGE;
        } else {
            for (size_t i = 0; i < e->deps.n; i++)   /* join */
                zn_nodeset_add(&s->deps, e->deps.v[i]);
        }
        /* a programmatic event: programmatic edges from its kernel nodes */
        const CUgraphEdgeData pe = { .from_port = e->cap_port, .type = 1 /* programmatic */ };
        for (size_t i = 0; r == CUDA_SUCCESS && ec && e->cap_port && i < e->deps.n; i++)
            if (e->deps.v[i]->type == CU_GRAPH_NODE_TYPE_KERNEL)
                r = capedge_put(s, e->deps.v[i], &pe);
        free(op);
        return r;
    }
    if (c->invalidated) {
        free(op);
        return CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
    }
    if (sync) {
        /* a synchronous call on a capturing stream breaks the capture */
        c->invalidated = true;
        free(op);
        return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
    }
    if (op->kind == ZN_OP_EVENT_RECORD) {
        zn_event *e = op->u.ev.e;
        e->cap = c;
        e->cap_id = c->id;
        e->cap_port = 0;    /* zn_capture_programmatic_event sets it after */
        zn_nodeset_set(&e->deps, s->deps.v, s->deps.n);
        free(op);
        return CUDA_SUCCESS;
    }
    if (op->kind == ZN_OP_CALLBACK) {
        free(op);
        return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
    }
    op->ctx = s->ctx;
    zn_gnode *n;
    if (op->kind == ZN_OP_WAIT_VALUE || op->kind == ZN_OP_WRITE_VALUE)
        r = zn_gmemop_capture(c->graph, op, s->deps.v, s->deps.n, &n);
    else
        r = zn_graph_add(c->graph, node_type(op->kind), op, s->deps.v, s->deps.n, &n);
    /* the pending edge data of deps still in the set goes on the new edges */
    for (unsigned i = 0; r == CUDA_SUCCESS && i < s->ncapedges; i++) {
        zn_gnode *from = s->capedges[i].n;
        bool in = false;
        for (size_t j = 0; j < s->deps.n; j++)
            in |= s->deps.v[j] == from;
        if (!in)
            continue;
        r = zn_gedge_check(from, n, &s->capedges[i].d);
        if (r == CUDA_SUCCESS)
            r = zn_gedge_set(c->graph, from, n, &s->capedges[i].d);
    }
    s->ncapedges = 0;
    if (r != CUDA_SUCCESS) {
        c->invalidated = true;
        return r;
    }
    zn_nodeset_set(&s->deps, &n, 1);
    return CUDA_SUCCESS;
}

/* Records non-default edge data from node d to the stream's next captured
 * node (replacing d's earlier record). */
static CUresult capedge_put(zn_stream *s, zn_gnode *d, const CUgraphEdgeData *e)
{
    CUresult r = zn_gedge_check(d, NULL, e);
    if (r != CUDA_SUCCESS || zn_gedge_is_default(e))
        return r;
    unsigned i = 0;
    while (i < s->ncapedges && s->capedges[i].n != d)
        i++;
    if (i == ZN_CAPEDGES_MAX) {
        zn_log(ZN_LOG_WARN, "stream capture: more than %d dependencies with edge data are "
               "not supported", ZN_CAPEDGES_MAX);
        return CUDA_ERROR_NOT_SUPPORTED;
    }
    s->capedges[i].n = d;
    s->capedges[i].d = *e;
    if (i == s->ncapedges)
        s->ncapedges++;
    return CUDA_SUCCESS;
}

void zn_capture_programmatic_event(zn_event *e, bool at_block_start)
{
    if (zn_event_capture(e))
        e->cap_port = at_block_start ? 2 : 1;   /* launch-order or programmatic port */
}

CUresult zn_capture_programmatic(zn_stream *s)
{
    static const CUgraphEdgeData prog = { .from_port = 1, .type = 1 };
    for (size_t j = 0; s->cap && j < s->deps.n; j++)
        if (s->deps.v[j]->type == CU_GRAPH_NODE_TYPE_KERNEL) {
            CUresult r = capedge_put(s, s->deps.v[j], &prog);
            if (r != CUDA_SUCCESS)
                return r;
        }
    return CUDA_SUCCESS;
}

/* ---- begin and end ---- */

static void leave_all(zn_ctx *ctx, zn_capture *c);

static CUresult begin(CUstream h, bool pt, zn_graph *into, const CUgraphNode *deps,
                      const CUgraphEdgeData *edges, size_t ndeps, int mode)
{
    zn_ctx *ctx;
    CUresult r = zn_ctx_enter(&ctx);
    if (r != CUDA_SUCCESS)
        return r;
    zn_stream *s = zn_stream_get(h, pt);
    if (!s)
        return zn_stream_bad(h);
    if (mode < ZN_CU_STREAM_CAPTURE_MODE_GLOBAL || mode > ZN_CU_STREAM_CAPTURE_MODE_RELAXED)
        return CUDA_ERROR_INVALID_VALUE;
    if (s->kind == ZN_STREAM_LEGACY)
        return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
    if (s->cap)
        return CUDA_ERROR_ILLEGAL_STATE;
    zn_capture *c = cap_new();
    zn_graph *g = into ? into : zn_graph_new(ctx);
    if (!c || !g) {
        if (c)
            cap_end(c);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    c->graph = g;
    c->origin = s;
    c->mode = mode;
    c->invalidated = false;
    c->into = into != NULL;
    c->thread = pthread_self();
    c->blocking = !(s->flags & ZN_CU_STREAM_NON_BLOCKING);
    if (c->blocking)
        atomic_fetch_add(&blocking_captures, 1);
    s->cap = c;
    zn_nodeset_set(&s->deps, deps, ndeps);
    s->ncapedges = 0;
    for (size_t i = 0; edges && i < ndeps && r == CUDA_SUCCESS; i++)
        r = capedge_put(s, deps[i], &edges[i]);
    if (r != CUDA_SUCCESS) {
        leave_all(ctx, c);
        if (!into)
            zn_graph_free(g);
        cap_end(c);
    }
    return r;
}

/* Every stream of the context that joined c leaves it. */
static void leave_all(zn_ctx *ctx, zn_capture *c)
{
    pthread_mutex_lock(&ctx->stream_lock);
    for (zn_stream *o = ctx->streams; o; o = o->next)
        if (o->cap == c) {
            o->cap = NULL;
            o->deps.n = 0;
            o->ncapedges = 0;
            free(o->edata_out);
            o->edata_out = NULL;
            o->edata_cap = 0;
        }
    pthread_mutex_unlock(&ctx->stream_lock);
    c->origin->cap = NULL;
    c->origin->deps.n = 0;
    c->origin->ncapedges = 0;
    free(c->origin->edata_out);
    c->origin->edata_out = NULL;
    c->origin->edata_cap = 0;
}

static CUresult end(CUstream h, bool pt, CUgraph *out)
{
    zn_stream *s;
    CUresult r = zn_stream_enter(h, pt, &s);
    if (r != CUDA_SUCCESS)
        return r;
    zn_capture *c = s->cap;
    /* a capture into the app's own graph may be ended without asking for
     * it back (CUDA's graphConditionalNodes sample passes NULL) */
    if (!out && !(c && c->into))
        return CUDA_ERROR_INVALID_VALUE;
    if (!c || c->origin != s)
        return CUDA_ERROR_STREAM_CAPTURE_UNMATCHED;
    if (c->mode != ZN_CU_STREAM_CAPTURE_MODE_RELAXED && !pthread_equal(c->thread, pthread_self()))
        return CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD;
    leave_all(s->ctx, c);
    zn_graph *g = c->graph;
    bool bad = c->invalidated, into = c->into;
    cap_end(c);
    if (bad) {
        if (!into)      /* the app's graph stays the app's */
            zn_graph_free(g);
        if (out)
            *out = NULL;
        return CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
    }
    if (out)
        *out = g;
    return CUDA_SUCCESS;
}

#define BOTH(name, params, call)                                        \
    CUresult name params { const bool pt = false; ZN_RET(call); }       \
    CUresult name##_ptsz params { const bool pt = true; ZN_RET(call); }

BOTH(cuStreamBeginCapture, (CUstream s),
     begin(s, pt, NULL, NULL, NULL, 0, ZN_CU_STREAM_CAPTURE_MODE_GLOBAL))
BOTH(cuStreamBeginCapture_v2, (CUstream s, int mode), begin(s, pt, NULL, NULL, NULL, 0, mode))
BOTH(cuStreamEndCapture, (CUstream s, CUgraph *g), end(s, pt, g))

static CUresult begin_to_graph(CUstream s, bool pt, CUgraph g, const CUgraphNode *deps,
                               const CUgraphEdgeData *edges, size_t ndeps, int mode)
{
    if (!zn_graph_valid(g) || (ndeps && !deps))
        return CUDA_ERROR_INVALID_VALUE;
    for (size_t i = 0; i < ndeps; i++)
        if (!zn_gnode_valid(deps[i]) || deps[i]->graph != g)
            return CUDA_ERROR_INVALID_VALUE;
    return begin(s, pt, g, deps, edges, ndeps, mode);
}

BOTH(cuStreamBeginCaptureToGraph, (CUstream s, CUgraph g, const CUgraphNode *deps,
                                   const CUgraphEdgeData *edges, size_t ndeps, int mode),
     begin_to_graph(s, pt, g, deps, edges, ndeps, mode))

/* ---- queries ---- */

static CUresult capture_info(CUstream h, bool pt, int *status, uint64_t *id, CUgraph *graph,
                             const CUgraphNode **deps, const CUgraphEdgeData **edges,
                             size_t *ndeps)
{
    zn_stream *s;
    CUresult r = zn_stream_enter(h, pt, &s);
    if (r != CUDA_SUCCESS)
        return r;
    if (!status || (edges && !deps))    /* CUDA: edge data comes with the nodes */
        return CUDA_ERROR_INVALID_VALUE;
    if (s->kind == ZN_STREAM_LEGACY && zn_capture_blocks_legacy())
        return CUDA_ERROR_STREAM_CAPTURE_IMPLICIT;
    zn_capture *c = s->cap;
    *status = !c ? ZN_CU_STREAM_CAPTURE_STATUS_NONE
            : c->invalidated ? ZN_CU_STREAM_CAPTURE_STATUS_INVALIDATED
                             : ZN_CU_STREAM_CAPTURE_STATUS_ACTIVE;
    if (!c)
        return CUDA_SUCCESS;    /* the other outputs are undefined */
    if (id)
        *id = c->id;
    if (graph)
        *graph = c->graph;
    if (deps)
        *deps = (const CUgraphNode *)s->deps.v;
    if (edges && s->deps.n) {    /* parallel to deps: zero but for pending data */
        if (s->edata_cap < s->deps.n) {
            CUgraphEdgeData *v = realloc(s->edata_out, s->deps.n * sizeof *v);
            if (!v)
                return CUDA_ERROR_OUT_OF_MEMORY;
            s->edata_out = v;
            s->edata_cap = s->deps.n;
        }
        for (size_t j = 0; j < s->deps.n; j++) {
            memset(&s->edata_out[j], 0, sizeof *s->edata_out);
            for (unsigned i = 0; i < s->ncapedges; i++)
                if (s->capedges[i].n == s->deps.v[j])
                    s->edata_out[j] = s->capedges[i].d;
        }
        *edges = s->edata_out;
    } else if (edges) {
        *edges = NULL;
    } else if (deps) {          /* CUDA: data the caller cannot see is an error */
        for (unsigned i = 0; i < s->ncapedges; i++)
            for (size_t j = 0; j < s->deps.n; j++)
                if (s->capedges[i].n == s->deps.v[j])
                    return CUDA_ERROR_LOSSY_QUERY;
    }
    if (ndeps)
        *ndeps = s->deps.n;
    return CUDA_SUCCESS;
}

BOTH(cuStreamIsCapturing, (CUstream s, int *status),
     capture_info(s, pt, status, NULL, NULL, NULL, NULL, NULL))
BOTH(cuStreamGetCaptureInfo, (CUstream s, int *status, uint64_t *id),
     capture_info(s, pt, status, id, NULL, NULL, NULL, NULL))
BOTH(cuStreamGetCaptureInfo_v2, (CUstream s, int *status, uint64_t *id, void **graph,
                                 const void **deps, size_t *ndeps),
     capture_info(s, pt, status, id, (CUgraph *)graph, (const CUgraphNode **)deps, NULL,
                  ndeps))
BOTH(cuStreamGetCaptureInfo_v3, (CUstream s, int *status, uint64_t *id, void **graph,
                                 const void **deps, const void **edges, size_t *ndeps),
     capture_info(s, pt, status, id, (CUgraph *)graph, (const CUgraphNode **)deps,
                  (const CUgraphEdgeData **)edges, ndeps))

static CUresult update_deps(CUstream h, bool pt, CUgraphNode *deps,
                            const CUgraphEdgeData *edges, size_t n, unsigned flags)
{
    zn_stream *s;
    CUresult r = zn_stream_enter(h, pt, &s);
    if (r != CUDA_SUCCESS)
        return r;
    if (!s->cap)
        return CUDA_ERROR_ILLEGAL_STATE;
    if ((n && !deps) || flags > ZN_CU_STREAM_SET_CAPTURE_DEPENDENCIES)
        return CUDA_ERROR_INVALID_VALUE;
    for (size_t i = 0; i < n; i++)
        if (!zn_gnode_valid(deps[i]) || deps[i]->graph != s->cap->graph)
            return CUDA_ERROR_INVALID_VALUE;
    for (size_t i = 0; edges && i < n; i++)    /* checked first: a refusal changes nothing */
        if ((r = zn_gedge_check(deps[i], NULL, &edges[i])) != CUDA_SUCCESS)
            return r;
    if (flags == ZN_CU_STREAM_SET_CAPTURE_DEPENDENCIES) {
        s->deps.n = 0;
        s->ncapedges = 0;
    }
    for (size_t i = 0; i < n; i++) {
        zn_nodeset_add(&s->deps, deps[i]);
        if (edges && (r = capedge_put(s, deps[i], &edges[i])) != CUDA_SUCCESS)
            return r;
    }
    return CUDA_SUCCESS;
}

BOTH(cuStreamUpdateCaptureDependencies, (CUstream s, CUgraphNode *deps, size_t n,
                                         unsigned int flags),
     update_deps(s, pt, deps, NULL, n, flags))
BOTH(cuStreamUpdateCaptureDependencies_v2, (CUstream s, CUgraphNode *deps,
                                            const CUgraphEdgeData *edges, size_t n,
                                            unsigned int flags),
     update_deps(s, pt, deps, edges, n, flags))

CUresult cuThreadExchangeStreamCaptureMode(int *mode)
{
    ZN_CHECK_INIT();
    if (!mode || *mode < 0 || *mode > ZN_CU_STREAM_CAPTURE_MODE_RELAXED)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    int old = capture_mode;
    capture_mode = *mode;
    *mode = old;
    ZN_RET(CUDA_SUCCESS);
}
