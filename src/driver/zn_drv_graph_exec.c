/* zn_drv_graph_exec.c: instantiated graphs: instantiate, launch, update.
 *
 * Instantiation orders the nodes topologically (Kahn's algorithm, ready
 * nodes taken by creation order, so the same construction always gives the
 * same order), flattens child graphs in place and keeps a clone of each
 * node's op and each op's predecessors. A graph that is one chain is
 * launched by submitting a clone of each op to the stream in that order;
 * one with independent branches runs them on internal streams
 * (zn_drv_graph_conc.c). Event-record and event-wait nodes act on the
 * position of the stream their op runs on, which follows every
 * predecessor. An update keeps the order and replaces the ops when the
 * new graph has the same shape.
 */
#include "zn_drv.h"
#include "../util/zn_log.h"

#include <stdlib.h>
#include <string.h>

#define TRY(e) do { CUresult r_ = (e); if (r_ != CUDA_SUCCESS) return r_; } while (0)

/* A growable list of op indices. */
typedef struct idxv {
    size_t *v;
    size_t n, cap;
} idxv;

static bool idxv_push(idxv *a, size_t i)
{
    if (a->n == a->cap) {
        size_t cap = a->cap ? a->cap * 2 : 8;
        size_t *v = realloc(a->v, cap * sizeof *v);
        if (!v)
            return false;
        a->v = v;
        a->cap = cap;
    }
    a->v[a->n++] = i;
    return true;
}

static bool idxv_append(idxv *a, const idxv *b)
{
    for (size_t i = 0; b && i < b->n; i++)
        if (!idxv_push(a, b->v[i]))
            return false;
    return true;
}

static int idx_cmp(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return x < y ? -1 : x > y;
}

static void idxv_sort_unique(idxv *a)
{
    if (a->n < 2)
        return;
    qsort(a->v, a->n, sizeof *a->v, idx_cmp);
    size_t k = 1;
    for (size_t i = 1; i < a->n; i++)
        if (a->v[i] != a->v[k - 1])
            a->v[k++] = a->v[i];
    a->n = k;
}

/* The flattened ops, where each came from, and each op's predecessors
 * (op indices, CSR: pred.v[poff.v[i] .. poff.v[i + 1])), which let a
 * launch run independent branches on streams of their own. */
typedef struct oplist {
    zn_op **ops;
    const zn_gnode **src, **top;
    size_t n, cap;
    idxv poff, pred;
    zn_uobj_set objs;           /* what the ops need alive: conditional bodies */
} oplist;

static bool oplist_push(oplist *l, zn_op *op, const zn_gnode *src, const zn_gnode *top,
                        const idxv *preds)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 16;
        zn_op **o = realloc(l->ops, cap * sizeof *o);
        if (o)
            l->ops = o;
        const zn_gnode **s = realloc(l->src, cap * sizeof *s);
        if (s)
            l->src = s;
        const zn_gnode **t = realloc(l->top, cap * sizeof *t);
        if (t)
            l->top = t;
        if (!o || !s || !t)
            return false;
        l->cap = cap;
    }
    if (!l->poff.n && !idxv_push(&l->poff, 0))
        return false;
    size_t before = l->pred.n;
    if (!idxv_append(&l->pred, preds) || !idxv_push(&l->poff, l->pred.n)) {
        l->pred.n = before;
        return false;
    }
    l->ops[l->n] = op;
    l->top[l->n] = top;
    l->src[l->n++] = src;
    return true;
}

static void oplist_free(oplist *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->ops[i]);
    free(l->ops);
    free(l->src);
    free(l->top);
    free(l->poff.v);
    free(l->pred.v);
    zn_uobj_set_clear(&l->objs);
}

static CUresult flatten(const zn_graph *g, oplist *l, const zn_gnode *owner,
                        const idxv *entry, idxv *exits);

/* A conditional node's body as a plain op array (zn_drv_graph_cond.c).
 * CUDA: a body holds kernel, empty, child, memset, memcpy and conditional
 * nodes only; NVIDIA's driver accepts memory nodes added there (also
 * captured with cuStreamBeginCaptureToGraph) and refuses the graph here,
 * at instantiation (measured on an H200). */
static CUresult flatten_body(const zn_graph *g, zn_op ***ops, size_t *n, zn_uobj_set *objs)
{
    if (zn_graph_has_mem(g)) {
        zn_log(ZN_LOG_ERROR, "cuGraphInstantiate: a conditional body holds a memory "
               "alloc or free node, which CUDA does not allow there");
        return CUDA_ERROR_INVALID_VALUE;
    }
    oplist l = { 0 };
    /* any non-NULL owner: no defaults */
    CUresult r = flatten(g, &l, (const zn_gnode *)g, NULL, NULL);
    /* nested conditionals: their bodies live as long as the outer ones */
    if (r == CUDA_SUCCESS && !zn_uobj_set_merge(objs, &l.objs))
        r = CUDA_ERROR_OUT_OF_MEMORY;
    if (r != CUDA_SUCCESS) {
        oplist_free(&l);
        return r;
    }
    *ops = l.ops;
    *n = l.n;
    free(l.src);
    free(l.top);
    free(l.poff.v);
    free(l.pred.v);
    zn_uobj_set_clear(&l.objs);
    return CUDA_SUCCESS;
}

/* Appends g's ops in topological order; owner: the top-level node whose
 * child g is (NULL: g is the top-level graph, whose nodes are recorded).
 * entry: the ops g's roots come after (NULL: none); exits (may be NULL):
 * gets the ops g's sinks end with (entry itself through an empty graph). */
static CUresult flatten(const zn_graph *g, oplist *l, const zn_gnode *owner,
                        const idxv *entry, idxv *exits)
{
    size_t n = g->n;
    if (!n)
        return !exits || idxv_append(exits, entry) ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
    size_t *indeg = calloc(n, sizeof *indeg), *order = malloc(n * sizeof *order);
    bool *done = calloc(n, sizeof *done), *has_succ = calloc(n, sizeof *has_succ);
    idxv *ex = calloc(n, sizeof *ex);   /* per node: the ops it ends with */
    idxv in = { 0 }, top_entry = { 0 };
    CUresult r = CUDA_SUCCESS;
    if (!indeg || !order || !done || !has_succ || !ex) {
        r = CUDA_ERROR_OUT_OF_MEMORY;
        goto out;
    }
    for (size_t i = 0; i < n; i++) {
        indeg[i] = g->nodes[i]->ndeps;
        for (size_t d = 0; d < g->nodes[i]->ndeps; d++)
            has_succ[g->nodes[i]->deps[d]->index] = true;
    }
    /* handles with a default value are reset when a launch starts, before
     * every node */
    for (size_t i = 0; i < n && !owner; i++) {
        zn_op *op = zn_gcond_default_op(g->nodes[i]);
        bool dup = false;
        for (size_t k = 0; op && k < l->n; k++)
            dup |= l->ops[k]->kind == ZN_OP_HOST && l->ops[k]->u.host.user == op->u.host.user;
        if (op && (dup || !idxv_push(&top_entry, l->n) || !oplist_push(l, op, NULL, NULL, NULL))) {
            free(op);
            if (!dup) {
                r = CUDA_ERROR_OUT_OF_MEMORY;
                goto out;
            }
        }
    }
    if (!owner)
        entry = &top_entry;
    /* repeatedly take the first node, by index, whose dependencies ran */
    for (size_t k = 0; k < n; k++) {
        size_t i = 0;
        while (i < n && (done[i] || indeg[i]))
            i++;
        if (i == n) {
            r = CUDA_ERROR_INVALID_VALUE;   /* a cycle */
            goto out;
        }
        done[i] = true;
        order[k] = i;
        for (size_t j = 0; j < n; j++)
            for (size_t d = 0; d < g->nodes[j]->ndeps; d++)
                if (g->nodes[j]->deps[d] == g->nodes[i])
                    indeg[j]--;
    }
    for (size_t k = 0; k < n && r == CUDA_SUCCESS; k++) {
        size_t ni = order[k];
        const zn_gnode *node = g->nodes[ni];
        /* what the node comes after: its dependencies' last ops */
        in.n = 0;
        bool ok = node->ndeps ? true : idxv_append(&in, entry);
        for (size_t d = 0; d < node->ndeps && ok; d++)
            ok = idxv_append(&in, &ex[node->deps[d]->index]);
        if (!ok) {
            r = CUDA_ERROR_OUT_OF_MEMORY;
            break;
        }
        idxv_sort_unique(&in);
        if (node->child) {
            r = flatten(node->child, l, owner ? owner : node, &in, &ex[ni]);
            continue;
        }
        zn_op *op = NULL;
        if (node->cond) {
            r = zn_gcond_exec_op(node, g->ctx, flatten_body, &op, &l->objs);
            if (r != CUDA_SUCCESS)
                continue;
        } else {
            op = node->op ? zn_op_clone(node->op) : zn_op_new(ZN_OP_EMPTY, 0);
        }
        size_t at = l->n;
        if (!op || !oplist_push(l, op, owner ? NULL : node, owner ? owner : node, &in) ||
            !idxv_push(&ex[ni], at)) {
            if (!op || l->n == at)
                free(op);
            r = CUDA_ERROR_OUT_OF_MEMORY;
        }
    }
    for (size_t i = 0; i < n && exits && r == CUDA_SUCCESS; i++)
        if (!has_succ[i] && !idxv_append(exits, &ex[i]))
            r = CUDA_ERROR_OUT_OF_MEMORY;
    if (exits)
        idxv_sort_unique(exits);
out:
    for (size_t i = 0; ex && i < n; i++)
        free(ex[i].v);
    free(ex);
    free(in.v);
    free(top_entry.v);
    free(indeg);
    free(order);
    free(done);
    free(has_succ);
    return r;
}

static bool gexec_valid(const zn_gexec *x)
{
    return x && x->magic == ZN_MAGIC_GEXEC;
}

static void exec_free(zn_gexec *x)
{
    for (size_t i = 0; i < x->n; i++)
        free(x->ops[i]);
    free(x->ops);
    free(x->src);
    free(x->top);
    free(x->disabled);
    free(x->poff);
    free(x->pred);
    zn_gconc_free(x);
    zn_uobj_set_clear(&x->uobjs);     /* launches in flight hold their own */
    zn_handle_retire(ZN_HANDLE_GEXEC, x, sizeof *x);
}

static CUresult instantiate(CUgraphExec *px, CUgraph g, uint64_t flags)
{
    zn_ctx *c;
    TRY(zn_ctx_enter(&c));
    if (!px || !zn_graph_valid(g) || (flags & ~(uint64_t)ZN_CUDA_GRAPH_INSTANTIATE_FLAGS_ALL))
        return CUDA_ERROR_INVALID_VALUE;
    if (flags & ZN_CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH) {
        /* kernels cannot call cudaGraphLaunch (nor read %current_graph_exec) */
        zn_log(ZN_LOG_ERROR, "graph instantiation for device launch: device-side graph "
               "launch is not supported");
        return CUDA_ERROR_NOT_SUPPORTED;
    }
    oplist l = { 0 };
    CUresult r = flatten(g, &l, NULL, NULL, NULL);
    zn_gexec *x = r == CUDA_SUCCESS ? zn_handle_new(ZN_HANDLE_GEXEC, sizeof *x) : NULL;
    if (x && !(x->disabled = calloc(l.n ? l.n : 1, sizeof *x->disabled))) {
        zn_handle_retire(ZN_HANDLE_GEXEC, x, sizeof *x);
        x = NULL;
    }
    if (!x) {
        oplist_free(&l);
        return r != CUDA_SUCCESS ? r : CUDA_ERROR_OUT_OF_MEMORY;
    }
    if (!zn_uobj_set_of_graph(&x->uobjs, g) || !zn_uobj_set_merge(&x->uobjs, &l.objs)) {
        zn_uobj_set_clear(&x->uobjs);
        zn_handle_retire(ZN_HANDLE_GEXEC, x, sizeof *x);
        oplist_free(&l);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    x->magic = ZN_MAGIC_GEXEC;
    x->ctx = c;
    x->flags = flags;
    x->n = l.n;
    x->ops = l.ops;
    x->src = l.src;
    x->top = l.top;
    x->poff = l.poff.v;
    x->pred = l.pred.v;
    zn_uobj_set_clear(&l.objs);     /* merged into x->uobjs */
    r = zn_gmem_exec_bind(x, true);     /* one instantiation of a graph with memory nodes */
    if (r == CUDA_SUCCESS && (r = zn_gconc_plan(x)) != CUDA_SUCCESS)
        zn_gmem_exec_bind(x, false);
    if (r != CUDA_SUCCESS) {
        exec_free(x);
        return r;
    }
    *px = x;
    return CUDA_SUCCESS;
}

CUresult cuGraphInstantiateWithFlags(CUgraphExec *px, CUgraph g, unsigned long long flags)
{
    ZN_RET(instantiate(px, g, flags));
}

CUresult cuGraphInstantiate(CUgraphExec *px, CUgraph g, CUgraphNode *err, char *log,
                            size_t logsize)
{
    if (err)
        *err = NULL;
    if (log && logsize)
        log[0] = 0;
    ZN_RET(instantiate(px, g, 0));
}

CUresult cuGraphInstantiate_v2(CUgraphExec *px, CUgraph g, CUgraphNode *err, char *log,
                               size_t logsize)
{
    return cuGraphInstantiate(px, g, err, log, logsize);
}

static CUresult instantiate_params(CUgraphExec *px, CUgraph g, CUDA_GRAPH_INSTANTIATE_PARAMS *p)
{
    if (!p)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult r = instantiate(px, g, p->flags);
    p->hErrNode_out = NULL;
    p->result_out = r == CUDA_SUCCESS ? ZN_CU_GRAPH_INSTANTIATE_SUCCESS
                                      : ZN_CU_GRAPH_INSTANTIATE_ERROR;
    return r;
}

CUresult cuGraphInstantiateWithParams(CUgraphExec *px, CUgraph g,
                                      CUDA_GRAPH_INSTANTIATE_PARAMS *p)
{
    ZN_RET(instantiate_params(px, g, p));
}

CUresult cuGraphInstantiateWithParams_ptsz(CUgraphExec *px, CUgraph g,
                                           CUDA_GRAPH_INSTANTIATE_PARAMS *p)
{
    ZN_RET(instantiate_params(px, g, p));
}

CUresult cuGraphExecDestroy(CUgraphExec x)
{
    ZN_CHECK_INIT();
    if (!gexec_valid(x))
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    zn_gmem_exec_bind(x, false);
    exec_free(x);
    ZN_RET(CUDA_SUCCESS);
}

CUresult cuGraphExecGetFlags(CUgraphExec x, uint64_t *flags)
{
    ZN_CHECK_INIT();
    if (!gexec_valid(x) || !flags)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    *flags = x->flags;
    ZN_RET(CUDA_SUCCESS);
}

/* ---- launch ---- */

static CUresult graph_launch(CUgraphExec x, CUstream h, bool pt)
{
    zn_ctx *c;
    TRY(zn_ctx_enter(&c));
    if (!gexec_valid(x))
        return CUDA_ERROR_INVALID_VALUE;
    zn_stream *s = zn_stream_get(h, pt);
    if (!s)
        return zn_stream_bad(h);
    TRY(zn_gmem_launch(x));
    if (zn_gconc_usable(x, s)) {
        TRY(zn_gconc_launch(x, s));     /* independent branches at once */
        return zn_uobj_hold_for_launch(s, &x->uobjs);
    }
    for (size_t i = 0; i < x->n; i++) {
        if (x->disabled[i] || x->ops[i]->kind == ZN_OP_EMPTY)
            continue;
        zn_op *op = zn_op_clone(x->ops[i]);
        if (!op)
            return CUDA_ERROR_OUT_OF_MEMORY;
        TRY(zn_submit(s, op, false));
    }
    return zn_uobj_hold_for_launch(s, &x->uobjs);
}

/* Nothing to upload: device memory is host memory. */
static CUresult graph_upload(CUgraphExec x, CUstream h, bool pt)
{
    zn_ctx *c;
    TRY(zn_ctx_enter(&c));
    if (!gexec_valid(x))
        return CUDA_ERROR_INVALID_VALUE;
    return zn_stream_get(h, pt) ? CUDA_SUCCESS : zn_stream_bad(h);
}

CUresult cuGraphLaunch(CUgraphExec x, CUstream s) { ZN_RET(graph_launch(x, s, false)); }
CUresult cuGraphLaunch_ptsz(CUgraphExec x, CUstream s) { ZN_RET(graph_launch(x, s, true)); }
CUresult cuGraphUpload(CUgraphExec x, CUstream s) { ZN_RET(graph_upload(x, s, false)); }
CUresult cuGraphUpload_ptsz(CUgraphExec x, CUstream s) { ZN_RET(graph_upload(x, s, true)); }

/* ---- per-node changes of an instantiated graph ---- */

/* The op index of a top-level node of the original graph, or -1. */
static long exec_index(const zn_gexec *x, const zn_gnode *n)
{
    if (!gexec_valid(x) || !zn_gnode_valid(n))
        return -1;
    for (size_t i = 0; i < x->n; i++)
        if (x->src[i] == n)
            return (long)i;
    return -1;
}

/* The node type whose ops an op kind replaces (memory nodes hold host ops). */
static CUgraphNodeType kind_type(zn_op_kind kind)
{
    switch (kind) {
    case ZN_OP_KERNEL: return CU_GRAPH_NODE_TYPE_KERNEL;
    case ZN_OP_COPY: return CU_GRAPH_NODE_TYPE_MEMCPY;
    case ZN_OP_SET: return CU_GRAPH_NODE_TYPE_MEMSET;
    case ZN_OP_EVENT_RECORD: return CU_GRAPH_NODE_TYPE_EVENT_RECORD;
    case ZN_OP_EVENT_WAIT: return CU_GRAPH_NODE_TYPE_WAIT_EVENT;
    default: return CU_GRAPH_NODE_TYPE_HOST;
    }
}

static CUresult exec_replace(CUgraphExec x, CUgraphNode n, zn_op_kind kind, zn_op *op)
{
    long i = exec_index(x, n);
    if (i < 0 || x->ops[i]->kind != kind || n->type != kind_type(kind)) {
        free(op);
        return CUDA_ERROR_INVALID_VALUE;
    }
    free(x->ops[i]);
    x->ops[i] = op;
    return CUDA_SUCCESS;
}

static CUresult exec_kernel(CUgraphExec x, CUgraphNode n, const CUDA_KERNEL_NODE_PARAMS *p,
                            bool v1)
{
    if (!p)
        return CUDA_ERROR_INVALID_VALUE;
    CUDA_KERNEL_NODE_PARAMS q = { 0 };
    memcpy(&q, p, v1 ? offsetof(CUDA_KERNEL_NODE_PARAMS, kern) : sizeof q);
    const zn_func *f = q.func ? q.func : q.kern;
    if (!zn_func_valid(f) || !f->ki)
        return CUDA_ERROR_INVALID_VALUE;
    unsigned g[3] = { q.gridDimX, q.gridDimY, q.gridDimZ };
    unsigned b[3] = { q.blockDimX, q.blockDimY, q.blockDimZ };
    zn_op *op;
    TRY(zn_op_kernel(&op, f, g, b, q.sharedMemBytes, q.kernelParams, q.extra));
    long i = exec_index(x, n);
    if (i >= 0 && x->ops[i]->kind == ZN_OP_KERNEL)
        op->u.k.coop = x->ops[i]->u.k.coop;    /* the node's attribute stays */
    if (i >= 0 && x->ops[i]->kind == ZN_OP_KERNEL && x->ops[i]->u.k.f == f)
        memcpy(op->u.k.cl, x->ops[i]->u.k.cl, sizeof op->u.k.cl); /* so does its cluster */
    return exec_replace(x, n, ZN_OP_KERNEL, op);
}

CUresult cuGraphExecKernelNodeSetParams(CUgraphExec x, CUgraphNode n,
                                        const CUDA_KERNEL_NODE_PARAMS *p)
{
    ZN_CHECK_INIT();
    ZN_RET(exec_kernel(x, n, p, true));
}

CUresult cuGraphExecKernelNodeSetParams_v2(CUgraphExec x, CUgraphNode n,
                                           const CUDA_KERNEL_NODE_PARAMS *p)
{
    ZN_CHECK_INIT();
    ZN_RET(exec_kernel(x, n, p, false));
}

CUresult cuGraphExecMemcpyNodeSetParams(CUgraphExec x, CUgraphNode n, const CUDA_MEMCPY3D *p,
                                        CUcontext ctx)
{
    ZN_CHECK_INIT();
    zn_op *op;
    CUresult r = zn_op_copy3d(&op, p);
    ZN_RET(r == CUDA_SUCCESS ? exec_replace(x, n, ZN_OP_COPY, op) : r);
}

CUresult cuGraphExecMemsetNodeSetParams(CUgraphExec x, CUgraphNode n,
                                        const CUDA_MEMSET_NODE_PARAMS *p, CUcontext ctx)
{
    ZN_CHECK_INIT();
    if (!p)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    zn_op *op;
    CUresult r = zn_op_set(&op, p->dst, p->pitch, p->value, p->elementSize, p->width,
                           p->height);
    ZN_RET(r == CUDA_SUCCESS ? exec_replace(x, n, ZN_OP_SET, op) : r);
}

CUresult cuGraphExecHostNodeSetParams(CUgraphExec x, CUgraphNode n,
                                      const CUDA_HOST_NODE_PARAMS *p)
{
    ZN_CHECK_INIT();
    if (!p || !p->fn)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    zn_op *op = zn_op_new(ZN_OP_HOST, 0);
    if (!op)
        ZN_RET(CUDA_ERROR_OUT_OF_MEMORY);
    op->u.host.fn = p->fn;
    op->u.host.user = p->userData;
    ZN_RET(exec_replace(x, n, ZN_OP_HOST, op));
}

static CUresult exec_event(CUgraphExec x, CUgraphNode n, CUevent e, zn_op_kind kind)
{
    long i = exec_index(x, n);
    if (i < 0 || x->ops[i]->kind != kind || n->type != kind_type(kind) || !zn_event_valid(e))
        return CUDA_ERROR_INVALID_VALUE;
    x->ops[i]->u.ev.e = e;
    return CUDA_SUCCESS;
}

CUresult cuGraphExecEventRecordNodeSetEvent(CUgraphExec x, CUgraphNode n, CUevent e)
{
    ZN_CHECK_INIT();
    ZN_RET(exec_event(x, n, e, ZN_OP_EVENT_RECORD));
}

CUresult cuGraphExecEventWaitNodeSetEvent(CUgraphExec x, CUgraphNode n, CUevent e)
{
    ZN_CHECK_INIT();
    ZN_RET(exec_event(x, n, e, ZN_OP_EVENT_WAIT));
}

CUresult cuGraphNodeSetEnabled(CUgraphExec x, CUgraphNode n, unsigned int on)
{
    ZN_CHECK_INIT();
    long i = exec_index(x, n);
    /* CUDA: only kernel, memcpy and memset nodes can be disabled */
    if (i < 0 || (n->type != CU_GRAPH_NODE_TYPE_KERNEL && n->type != CU_GRAPH_NODE_TYPE_MEMCPY &&
                  n->type != CU_GRAPH_NODE_TYPE_MEMSET))
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    x->disabled[i] = !on;
    ZN_RET(CUDA_SUCCESS);
}

CUresult cuGraphNodeGetEnabled(CUgraphExec x, CUgraphNode n, unsigned int *on)
{
    ZN_CHECK_INIT();
    long i = exec_index(x, n);
    if (i < 0 || !on)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    *on = !x->disabled[i];
    ZN_RET(CUDA_SUCCESS);
}

/* ---- whole-graph update ---- */

/* The new graph must flatten to the same sequence of op kinds; its ops
 * then replace the old ones (kernel functions may change, as CUDA allows
 * within one context). */
static CUresult exec_update(CUgraphExec x, CUgraph g, CUgraphExecUpdateResultInfo *info)
{
    zn_ctx *c;
    TRY(zn_ctx_enter(&c));
    if (!gexec_valid(x) || !zn_graph_valid(g) || !info)
        return CUDA_ERROR_INVALID_VALUE;
    memset(info, 0, sizeof *info);
    oplist l = { 0 };
    CUresult r = flatten(g, &l, NULL, NULL, NULL);
    if (r != CUDA_SUCCESS) {
        info->result = ZN_CU_GRAPH_EXEC_UPDATE_ERROR;
        oplist_free(&l);
        return r;
    }
    int result = ZN_CU_GRAPH_EXEC_UPDATE_SUCCESS;
    if (l.n != x->n)
        result = ZN_CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED;
    for (size_t i = 0; i < l.n && result == ZN_CU_GRAPH_EXEC_UPDATE_SUCCESS; i++)
        if (l.ops[i]->kind != x->ops[i]->kind ||
            (l.src[i] && x->src[i] && l.src[i]->type != x->src[i]->type)) {
            result = ZN_CU_GRAPH_EXEC_UPDATE_ERROR_NODE_TYPE_CHANGED;
            info->errorNode = (CUgraphNode)l.src[i];
        } else if (zn_gmem_of_op(l.ops[i], NULL) || zn_gmem_of_op(x->ops[i], NULL)) {
            /* CUDA: memory nodes cannot be updated */
            result = ZN_CU_GRAPH_EXEC_UPDATE_ERROR_NOT_SUPPORTED;
            info->errorNode = (CUgraphNode)l.src[i];
        }
    zn_uobj_set objs = { 0 };
    if (result == ZN_CU_GRAPH_EXEC_UPDATE_SUCCESS &&
        (!zn_uobj_set_of_graph(&objs, g) || !zn_uobj_set_merge(&objs, &l.objs))) {
        zn_uobj_set_clear(&objs);
        oplist_free(&l);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    if (result != ZN_CU_GRAPH_EXEC_UPDATE_SUCCESS) {
        info->result = result;
        oplist_free(&l);
        return CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE;
    }
    /* the new host nodes' data: the new graph's objects (zn_drv_userobj.c) */
    zn_uobj_set_clear(&x->uobjs);
    x->uobjs = objs;
    for (size_t i = 0; i < x->n; i++) {
        free(x->ops[i]);
        x->ops[i] = l.ops[i];   /* per-node calls still name the original nodes */
    }
    /* the new graph's edges order the branches from now on */
    free(x->poff);
    free(x->pred);
    x->poff = l.poff.v;
    x->pred = l.pred.v;
    free(l.ops);
    free(l.src);
    free(l.top);
    zn_uobj_set_clear(&l.objs);
    return zn_gconc_plan(x);
}

CUresult cuGraphExecUpdate_v2(CUgraphExec x, CUgraph g, CUgraphExecUpdateResultInfo *info)
{
    CUgraphExecUpdateResultInfo unused;     /* NULL info: NVIDIA's driver updates */
    ZN_RET(exec_update(x, g, info ? info : &unused));
}

CUresult cuGraphExecUpdate(CUgraphExec x, CUgraph g, CUgraphNode *err, int *result)
{
    CUgraphExecUpdateResultInfo info = { 0 };
    CUresult r = exec_update(x, g, &info);
    if (err)
        *err = info.errorNode;
    if (result)
        *result = info.result;
    ZN_RET(r);
}

/* ---- a child graph's ops replaced ---- */

/* The new child must flatten to the same sequence of op kinds as the ops
 * that n's child contributed to x (x->top marks them; they are
 * contiguous, since a child is flattened in one piece). */
static CUresult exec_child(CUgraphExec x, CUgraphNode n, CUgraph child)
{
    if (!zn_gnode_valid(n) || n->type != CU_GRAPH_NODE_TYPE_GRAPH)
        return CUDA_ERROR_INVALID_VALUE;
    return zn_gexec_set_child_ops(x, n, child);
}

/* Also batch memory-op nodes, whose child is their chain of operations. */
CUresult zn_gexec_set_child_ops(CUgraphExec x, CUgraphNode n, CUgraph child)
{
    if (!gexec_valid(x) || !zn_gnode_valid(n) || !n->child || !zn_graph_valid(child))
        return CUDA_ERROR_INVALID_VALUE;
    if (zn_graph_has_mem(child) || zn_graph_has_mem(n->child))
        return CUDA_ERROR_INVALID_VALUE;    /* CUDA: memory nodes cannot change */
    size_t first = x->n, k = 0;
    for (size_t i = 0; i < x->n; i++)
        if (x->top[i] == n) {
            if (first == x->n)
                first = i;
            k++;
        }
    oplist l = { 0 };
    CUresult r = flatten(child, &l, n, NULL, NULL);     /* x keeps its edges */
    if (r == CUDA_SUCCESS && l.n != k)
        r = CUDA_ERROR_INVALID_VALUE;       /* the topology changed */
    for (size_t i = 0; i < l.n && r == CUDA_SUCCESS; i++)
        if (l.ops[i]->kind != x->ops[first + i]->kind)
            r = CUDA_ERROR_INVALID_VALUE;
    if (r == CUDA_SUCCESS && (!zn_uobj_set_of_graph(&x->uobjs, child) ||
                              !zn_uobj_set_merge(&x->uobjs, &l.objs)))
        r = CUDA_ERROR_OUT_OF_MEMORY;
    if (r != CUDA_SUCCESS) {
        oplist_free(&l);
        return r;
    }
    for (size_t i = 0; i < l.n; i++) {
        free(x->ops[first + i]);
        x->ops[first + i] = l.ops[i];
    }
    free(l.ops);
    free(l.src);
    free(l.top);
    free(l.poff.v);
    free(l.pred.v);
    zn_uobj_set_clear(&l.objs);
    return CUDA_SUCCESS;
}

CUresult cuGraphExecChildGraphNodeSetParams(CUgraphExec x, CUgraphNode n, CUgraph child)
{
    ZN_CHECK_INIT();
    ZN_RET(exec_child(x, n, child));
}
