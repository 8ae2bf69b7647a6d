/* zn_drv_graph.c: graphs built explicitly, node by node.
 *
 * A graph is an array of nodes; a node holds the op it will run (built and
 * checked when the node is added, kernel parameters packed at once, so the
 * caller's arguments may change afterwards), the parameters as given for
 * the get-params calls, and the nodes it depends on. A child-graph node
 * holds its own clone of the child. Instantiation is zn_drv_graph_exec.c.
 */
#include "zn_drv.h"
#include "../util/zn_log.h"

#include <stdlib.h>
#include <string.h>

#define TRY(e) do { CUresult r_ = (e); if (r_ != CUDA_SUCCESS) return r_; } while (0)

/* ---- node sets ---- */

int zn_nodeset_add(zn_nodeset *s, zn_gnode *n)
{
    for (size_t i = 0; i < s->n; i++)
        if (s->v[i] == n)
            return 0;
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 4;
        zn_gnode **v = realloc(s->v, cap * sizeof *v);
        if (!v)
            return -1;
        s->v = v;
        s->cap = cap;
    }
    s->v[s->n++] = n;
    return 0;
}

void zn_nodeset_set(zn_nodeset *s, zn_gnode *const *v, size_t n)
{
    s->n = 0;
    for (size_t i = 0; i < n; i++)
        zn_nodeset_add(s, v[i]);
}

void zn_nodeset_free(zn_nodeset *s)
{
    free(s->v);
    memset(s, 0, sizeof *s);
}

/* ---- graphs and nodes ---- */

bool zn_graph_valid(const zn_graph *g)
{
    return g && g->magic == ZN_MAGIC_GRAPH;
}

bool zn_gnode_valid(const zn_gnode *n)
{
    return n && n->magic == ZN_MAGIC_GNODE;
}

zn_graph *zn_graph_new(zn_ctx *c)
{
    zn_graph *g = zn_handle_new(ZN_HANDLE_GRAPH, sizeof *g);
    if (!g)
        return NULL;
    g->magic = ZN_MAGIC_GRAPH;
    g->ctx = c;
    pthread_mutex_init(&g->lock, NULL);
    return g;
}

static void node_free(zn_gnode *n)
{
    free(n->op);
    free(n->argv);
    free(n->deps);
    free(n->kattr);
    free(n->memop);
    zn_gcond_free(n->cond);
    if (n->child)
        zn_graph_free(n->child);
    zn_handle_retire(ZN_HANDLE_GNODE, n, sizeof *n);
}

void zn_graph_free(zn_graph *g)
{
    for (size_t i = 0; i < g->n; i++)
        node_free(g->nodes[i]);
    free(g->nodes);
    zn_gedge_free(g);
    zn_uobj_set_clear(&g->uobjs);
    pthread_mutex_destroy(&g->lock);
    zn_handle_retire(ZN_HANDLE_GRAPH, g, sizeof *g);
}

/* Points n's kernelParams (n->argv: a pointer to each argument in op) at
 * op. The array stays where it is when it is big enough: the one that
 * cuGraphKernelNodeGetParams handed out must stay valid across
 * cuGraphKernelNodeSetParams, since applications (llama.cpp) keep it,
 * store a new argument pointer into it and set the node again. */
static bool kernel_argv(zn_gnode *n, const zn_op *op)
{
    const zn_kernel_info *ki = op->u.k.f->ki;
    size_t need = ki->nparams ? ki->nparams : 1;
    if (n->nargv < need) {
        void **argv = calloc(need, sizeof *argv);
        if (!argv)
            return false;
        free(n->argv);
        n->argv = argv;
        n->nargv = need;
    }
    for (uint32_t i = 0; i < ki->nparams; i++)
        n->argv[i] = (void *)(op->data + ki->param_offset[i]);
    return true;
}

CUresult zn_graph_add(zn_graph *g, CUgraphNodeType type, zn_op *op, zn_gnode *const *deps,
                      size_t ndeps, zn_gnode **out)
{
    for (size_t i = 0; i < ndeps; i++)
        if (!zn_gnode_valid(deps[i]) || deps[i]->graph != g) {
            free(op);
            return CUDA_ERROR_INVALID_VALUE;
        }
    zn_gnode *n = zn_handle_new(ZN_HANDLE_GNODE, sizeof *n);
    if (!n) {
        free(op);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    static _Atomic uint64_t next_id = 1;
    n->magic = ZN_MAGIC_GNODE;
    n->id = atomic_fetch_add(&next_id, 1);
    n->graph = g;
    n->type = type;
    n->op = op;
    if (op && op->kind == ZN_OP_KERNEL && !kernel_argv(n, op)) {
        node_free(n);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    if (ndeps && !(n->deps = malloc(ndeps * sizeof *n->deps))) {
        node_free(n);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    for (size_t i = 0; i < ndeps; i++) {
        bool dup = false;
        for (size_t j = 0; j < n->ndeps; j++)
            dup |= n->deps[j] == deps[i];
        if (!dup)
            n->deps[n->ndeps++] = deps[i];
    }
    n->capdeps = ndeps;
    pthread_mutex_lock(&g->lock);
    if (g->n == g->cap) {
        size_t cap = g->cap ? g->cap * 2 : 16;
        zn_gnode **v = realloc(g->nodes, cap * sizeof *v);
        if (!v) {
            pthread_mutex_unlock(&g->lock);
            node_free(n);
            return CUDA_ERROR_OUT_OF_MEMORY;
        }
        g->nodes = v;
        g->cap = cap;
    }
    n->index = g->n;
    g->nodes[g->n++] = n;
    pthread_mutex_unlock(&g->lock);
    if (out)
        *out = n;
    return CUDA_SUCCESS;
}

/* Deep copy: nodes, ops and child graphs; edges remapped by index. Each
 * copy remembers the id of its original (cuGraphNodeFindInClone). */
static zn_graph *graph_clone(const zn_graph *g)
{
    zn_graph *c = zn_graph_new(g->ctx);
    if (!c)
        return NULL;
    for (size_t i = 0; i < g->n; i++) {
        const zn_gnode *n = g->nodes[i];
        zn_op *op = n->op ? zn_op_clone(n->op) : NULL;
        zn_gnode *deps[n->ndeps ? n->ndeps : 1];
        for (size_t j = 0; j < n->ndeps; j++)
            deps[j] = c->nodes[n->deps[j]->index];
        zn_gnode *m;
        if ((n->op && !op) || zn_graph_add(c, n->type, op, deps, n->ndeps, &m) != CUDA_SUCCESS) {
            zn_graph_free(c);
            return NULL;
        }
        m->copy = n->copy;
        m->set = n->set;
        m->clone_of = n->id;
        if (n->kattr) {
            if (!(m->kattr = malloc(17 * sizeof *m->kattr))) {
                zn_graph_free(c);
                return NULL;
            }
            memcpy(m->kattr, n->kattr, 17 * sizeof *m->kattr);
        }
        if ((n->memop && !(m->memop = zn_gmemop_dup(n->memop))) ||
            (n->child && !(m->child = graph_clone(n->child))) ||
            (n->cond && !(m->cond = zn_gcond_clone(n->cond)))) {
            zn_graph_free(c);
            return NULL;
        }
    }
    if (!zn_uobj_set_merge(&c->uobjs, &g->uobjs) || zn_gedge_clone(c, g) != CUDA_SUCCESS) {
        zn_graph_free(c);
        return NULL;
    }
    return c;
}

zn_graph *zn_graph_clone(const zn_graph *g)
{
    return graph_clone(g);
}

/* ---- entry points ---- */

CUresult cuGraphCreate(CUgraph *pg, unsigned int flags)
{
    ZN_ENTER(c);
    if (!pg || flags)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    *pg = zn_graph_new(c);
    ZN_RET(*pg ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY);
}

CUresult cuGraphDestroy(CUgraph g)
{
    ZN_CHECK_INIT();
    if (!zn_graph_valid(g))
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    zn_graph_free(g);
    ZN_RET(CUDA_SUCCESS);
}

CUresult cuGraphClone(CUgraph *out, CUgraph g)
{
    ZN_ENTER(c);
    (void)c;
    if (!out || !zn_graph_valid(g))
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    if (zn_graph_has_mem(g))    /* CUDA: such graphs cannot be cloned */
        ZN_RET(CUDA_ERROR_NOT_SUPPORTED);
    *out = graph_clone(g);
    ZN_RET(*out ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY);
}

/* The common prologue of the cuGraphAdd*Node calls. */
static CUresult add_enter(CUgraphNode *pn, CUgraph g, const CUgraphNode *deps, size_t ndeps)
{
    zn_ctx *c;
    TRY(zn_ctx_enter(&c));
    if (!pn || !zn_graph_valid(g) || (ndeps && !deps))
        return CUDA_ERROR_INVALID_VALUE;
    return CUDA_SUCCESS;
}

static CUresult kernel_op(zn_op **op, const CUDA_KERNEL_NODE_PARAMS *p)
{
    if (!p)
        return CUDA_ERROR_INVALID_VALUE;
    const zn_func *f = p->func ? p->func : p->kern;
    if (!zn_func_valid(f) || !f->ki)
        return CUDA_ERROR_INVALID_VALUE;
    unsigned g[3] = { p->gridDimX, p->gridDimY, p->gridDimZ };
    unsigned b[3] = { p->blockDimX, p->blockDimY, p->blockDimZ };
    return zn_op_kernel(op, f, g, b, p->sharedMemBytes, p->kernelParams, p->extra);
}

/* v1 of the struct stops after `extra`: read only that much of it. */
static CUresult kernel_op_v1(zn_op **op, const CUDA_KERNEL_NODE_PARAMS *p)
{
    if (!p)
        return CUDA_ERROR_INVALID_VALUE;
    CUDA_KERNEL_NODE_PARAMS q = { 0 };
    memcpy(&q, p, offsetof(CUDA_KERNEL_NODE_PARAMS, kern));
    return kernel_op(op, &q);
}

static CUresult add_kernel(CUgraphNode *pn, CUgraph g, const CUgraphNode *deps, size_t ndeps,
                           const CUDA_KERNEL_NODE_PARAMS *p, bool v1)
{
    TRY(add_enter(pn, g, deps, ndeps));
    zn_op *op;
    TRY(v1 ? kernel_op_v1(&op, p) : kernel_op(&op, p));
    return zn_graph_add(g, CU_GRAPH_NODE_TYPE_KERNEL, op, deps, ndeps, pn);
}

CUresult cuGraphAddKernelNode(CUgraphNode *pn, CUgraph g, const CUgraphNode *deps,
                              size_t ndeps, const CUDA_KERNEL_NODE_PARAMS *p)
{
    ZN_RET(add_kernel(pn, g, deps, ndeps, p, true));
}

CUresult cuGraphAddKernelNode_v2(CUgraphNode *pn, CUgraph g, const CUgraphNode *deps,
                                 size_t ndeps, const CUDA_KERNEL_NODE_PARAMS *p)
{
    ZN_RET(add_kernel(pn, g, deps, ndeps, p, false));
}

static CUresult kernel_get(CUgraphNode n, CUDA_KERNEL_NODE_PARAMS *p, bool v1)
{
    if (!zn_gnode_valid(n) || n->type != CU_GRAPH_NODE_TYPE_KERNEL || !p)
        return CUDA_ERROR_INVALID_VALUE;
    const zn_op *op = n->op;
    CUDA_KERNEL_NODE_PARAMS q = {
        .func = (CUfunction)op->u.k.f,
        .gridDimX = op->u.k.g[0], .gridDimY = op->u.k.g[1], .gridDimZ = op->u.k.g[2],
        .blockDimX = op->u.k.b[0], .blockDimY = op->u.k.b[1], .blockDimZ = op->u.k.b[2],
        .sharedMemBytes = op->u.k.shmem,
        .kernelParams = n->argv,
        .kern = (CUkernel)op->u.k.f,
        .ctx = n->graph->ctx,
    };
    memcpy(p, &q, v1 ? offsetof(CUDA_KERNEL_NODE_PARAMS, kern) : sizeof q);
    return CUDA_SUCCESS;
}

static CUresult kernel_set(CUgraphNode n, const CUDA_KERNEL_NODE_PARAMS *p, bool v1)
{
    if (!zn_gnode_valid(n) || n->type != CU_GRAPH_NODE_TYPE_KERNEL)
        return CUDA_ERROR_INVALID_VALUE;
    zn_op *op;
    TRY(v1 ? kernel_op_v1(&op, p) : kernel_op(&op, p));   /* p may point into n */
    if (!kernel_argv(n, op)) {
        free(op);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    op->u.k.coop = n->op->u.k.coop;     /* a captured cooperative launch stays one */
    free(n->op);
    n->op = op;
    zn_gnode_apply_kattr(n);
    return CUDA_SUCCESS;
}

CUresult cuGraphKernelNodeGetParams(CUgraphNode n, CUDA_KERNEL_NODE_PARAMS *p)
{
    ZN_CHECK_INIT();
    ZN_RET(kernel_get(n, p, true));
}

CUresult cuGraphKernelNodeGetParams_v2(CUgraphNode n, CUDA_KERNEL_NODE_PARAMS *p)
{
    ZN_CHECK_INIT();
    ZN_RET(kernel_get(n, p, false));
}

CUresult cuGraphKernelNodeSetParams(CUgraphNode n, const CUDA_KERNEL_NODE_PARAMS *p)
{
    ZN_CHECK_INIT();
    ZN_RET(kernel_set(n, p, true));
}

CUresult cuGraphKernelNodeSetParams_v2(CUgraphNode n, const CUDA_KERNEL_NODE_PARAMS *p)
{
    ZN_CHECK_INIT();
    ZN_RET(kernel_set(n, p, false));
}

CUresult cuGraphAddMemcpyNode(CUgraphNode *pn, CUgraph g, const CUgraphNode *deps,
                              size_t ndeps, const CUDA_MEMCPY3D *p, CUcontext ctx)
{
    CUresult r = add_enter(pn, g, deps, ndeps);
    zn_op *op = NULL;
    if (r == CUDA_SUCCESS)
        r = zn_op_copy3d(&op, p);
    if (r == CUDA_SUCCESS)
        r = zn_graph_add(g, CU_GRAPH_NODE_TYPE_MEMCPY, op, deps, ndeps, pn);
    if (r == CUDA_SUCCESS)
        (*pn)->copy = *p;
    ZN_RET(r);
}

CUresult cuGraphMemcpyNodeGetParams(CUgraphNode n, CUDA_MEMCPY3D *p)
{
    ZN_CHECK_INIT();
    if (!zn_gnode_valid(n) || n->type != CU_GRAPH_NODE_TYPE_MEMCPY || !p)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    *p = n->copy;
    ZN_RET(CUDA_SUCCESS);
}

CUresult cuGraphMemcpyNodeSetParams(CUgraphNode n, const CUDA_MEMCPY3D *p)
{
    ZN_CHECK_INIT();
    if (!zn_gnode_valid(n) || n->type != CU_GRAPH_NODE_TYPE_MEMCPY)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    zn_op *op;
    CUresult r = zn_op_copy3d(&op, p);
    if (r == CUDA_SUCCESS) {
        free(n->op);
        n->op = op;
        n->copy = *p;
    }
    ZN_RET(r);
}

static CUresult set_op(zn_op **op, const CUDA_MEMSET_NODE_PARAMS *p)
{
    if (!p)
        return CUDA_ERROR_INVALID_VALUE;
    return zn_op_set(op, p->dst, p->pitch, p->value, p->elementSize, p->width, p->height);
}

CUresult cuGraphAddMemsetNode(CUgraphNode *pn, CUgraph g, const CUgraphNode *deps,
                              size_t ndeps, const CUDA_MEMSET_NODE_PARAMS *p, CUcontext ctx)
{
    CUresult r = add_enter(pn, g, deps, ndeps);
    zn_op *op = NULL;
    if (r == CUDA_SUCCESS)
        r = set_op(&op, p);
    if (r == CUDA_SUCCESS)
        r = zn_graph_add(g, CU_GRAPH_NODE_TYPE_MEMSET, op, deps, ndeps, pn);
    if (r == CUDA_SUCCESS)
        (*pn)->set = *p;
    ZN_RET(r);
}

CUresult cuGraphMemsetNodeGetParams(CUgraphNode n, CUDA_MEMSET_NODE_PARAMS *p)
{
    ZN_CHECK_INIT();
    if (!zn_gnode_valid(n) || n->type != CU_GRAPH_NODE_TYPE_MEMSET || !p)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    *p = n->set;
    ZN_RET(CUDA_SUCCESS);
}

CUresult cuGraphMemsetNodeSetParams(CUgraphNode n, const CUDA_MEMSET_NODE_PARAMS *p)
{
    ZN_CHECK_INIT();
    if (!zn_gnode_valid(n) || n->type != CU_GRAPH_NODE_TYPE_MEMSET)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    zn_op *op;
    CUresult r = set_op(&op, p);
    if (r == CUDA_SUCCESS) {
        free(n->op);
        n->op = op;
        n->set = *p;
    }
    ZN_RET(r);
}

static zn_op *host_op(const CUDA_HOST_NODE_PARAMS *p)
{
    zn_op *op = p && p->fn ? zn_op_new(ZN_OP_HOST, 0) : NULL;
    if (op) {
        op->u.host.fn = p->fn;
        op->u.host.user = p->userData;
    }
    return op;
}

CUresult cuGraphAddHostNode(CUgraphNode *pn, CUgraph g, const CUgraphNode *deps,
                            size_t ndeps, const CUDA_HOST_NODE_PARAMS *p)
{
    CUresult r = add_enter(pn, g, deps, ndeps);
    if (r != CUDA_SUCCESS)
        ZN_RET(r);
    zn_op *op = host_op(p);
    if (!op)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    ZN_RET(zn_graph_add(g, CU_GRAPH_NODE_TYPE_HOST, op, deps, ndeps, pn));
}

CUresult cuGraphHostNodeGetParams(CUgraphNode n, CUDA_HOST_NODE_PARAMS *p)
{
    ZN_CHECK_INIT();
    if (!zn_gnode_valid(n) || n->type != CU_GRAPH_NODE_TYPE_HOST || !p)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    p->fn = n->op->u.host.fn;
    p->userData = n->op->u.host.user;
    ZN_RET(CUDA_SUCCESS);
}

CUresult cuGraphHostNodeSetParams(CUgraphNode n, const CUDA_HOST_NODE_PARAMS *p)
{
    ZN_CHECK_INIT();
    if (!zn_gnode_valid(n) || n->type != CU_GRAPH_NODE_TYPE_HOST)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    zn_op *op = host_op(p);
    if (!op)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    free(n->op);
    n->op = op;
    ZN_RET(CUDA_SUCCESS);
}

CUresult cuGraphAddChildGraphNode(CUgraphNode *pn, CUgraph g, const CUgraphNode *deps,
                                  size_t ndeps, CUgraph child)
{
    CUresult r = add_enter(pn, g, deps, ndeps);
    if (r != CUDA_SUCCESS)
        ZN_RET(r);
    if (!zn_graph_valid(child) || child == g)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    if (zn_graph_has_mem(child))    /* only moved in (cuGraphAddNode) */
        ZN_RET(CUDA_ERROR_NOT_SUPPORTED);
    zn_graph *copy = graph_clone(child);
    if (!copy)
        ZN_RET(CUDA_ERROR_OUT_OF_MEMORY);
    r = zn_graph_add(g, CU_GRAPH_NODE_TYPE_GRAPH, NULL, deps, ndeps, pn);
    if (r == CUDA_SUCCESS) {
        (*pn)->child = copy;
    } else {
        zn_graph_free(copy);
    }
    ZN_RET(r);
}

CUresult cuGraphChildGraphNodeGetGraph(CUgraphNode n, CUgraph *child)
{
    ZN_CHECK_INIT();
    if (!zn_gnode_valid(n) || n->type != CU_GRAPH_NODE_TYPE_GRAPH || !child)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    *child = n->child;
    ZN_RET(CUDA_SUCCESS);
}

CUresult cuGraphAddEmptyNode(CUgraphNode *pn, CUgraph g, const CUgraphNode *deps,
                             size_t ndeps)
{
    CUresult r = add_enter(pn, g, deps, ndeps);
    if (r != CUDA_SUCCESS)
        ZN_RET(r);
    ZN_RET(zn_graph_add(g, CU_GRAPH_NODE_TYPE_EMPTY, NULL, deps, ndeps, pn));
}

static CUresult add_event(CUgraphNode *pn, CUgraph g, const CUgraphNode *deps, size_t ndeps,
                          CUevent e, bool record)
{
    TRY(add_enter(pn, g, deps, ndeps));
    if (!zn_event_valid(e))
        return CUDA_ERROR_INVALID_VALUE;
    zn_op *op = zn_op_new(record ? ZN_OP_EVENT_RECORD : ZN_OP_EVENT_WAIT, 0);
    if (!op)
        return CUDA_ERROR_OUT_OF_MEMORY;
    op->u.ev.e = e;
    return zn_graph_add(g, record ? CU_GRAPH_NODE_TYPE_EVENT_RECORD
                                  : CU_GRAPH_NODE_TYPE_WAIT_EVENT, op, deps, ndeps, pn);
}

CUresult cuGraphAddEventRecordNode(CUgraphNode *pn, CUgraph g, const CUgraphNode *deps,
                                   size_t ndeps, CUevent e)
{
    ZN_RET(add_event(pn, g, deps, ndeps, e, true));
}

CUresult cuGraphAddEventWaitNode(CUgraphNode *pn, CUgraph g, const CUgraphNode *deps,
                                 size_t ndeps, CUevent e)
{
    ZN_RET(add_event(pn, g, deps, ndeps, e, false));
}

static CUresult event_get(CUgraphNode n, CUevent *e, CUgraphNodeType t)
{
    if (!zn_gnode_valid(n) || n->type != t || !e)
        return CUDA_ERROR_INVALID_VALUE;
    *e = n->op->u.ev.e;
    return CUDA_SUCCESS;
}

static CUresult event_set(CUgraphNode n, CUevent e, CUgraphNodeType t)
{
    if (!zn_gnode_valid(n) || n->type != t || !zn_event_valid(e))
        return CUDA_ERROR_INVALID_VALUE;
    n->op->u.ev.e = e;
    return CUDA_SUCCESS;
}

CUresult cuGraphEventRecordNodeGetEvent(CUgraphNode n, CUevent *e)
{
    ZN_RET(event_get(n, e, CU_GRAPH_NODE_TYPE_EVENT_RECORD));
}

CUresult cuGraphEventRecordNodeSetEvent(CUgraphNode n, CUevent e)
{
    ZN_RET(event_set(n, e, CU_GRAPH_NODE_TYPE_EVENT_RECORD));
}

CUresult cuGraphEventWaitNodeGetEvent(CUgraphNode n, CUevent *e)
{
    ZN_RET(event_get(n, e, CU_GRAPH_NODE_TYPE_WAIT_EVENT));
}

CUresult cuGraphEventWaitNodeSetEvent(CUgraphNode n, CUevent e)
{
    ZN_RET(event_set(n, e, CU_GRAPH_NODE_TYPE_WAIT_EVENT));
}

/* ---- structure queries ---- */

CUresult cuGraphNodeGetType(CUgraphNode n, CUgraphNodeType *t)
{
    ZN_CHECK_INIT();
    if (!zn_gnode_valid(n) || !t)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    *t = n->type;
    ZN_RET(CUDA_SUCCESS);
}

/* The count-then-fill protocol: out NULL asks for the count. */
static CUresult list_nodes(CUgraph g, CUgraphNode *out, size_t *n, bool roots)
{
    if (!zn_graph_valid(g) || !n)
        return CUDA_ERROR_INVALID_VALUE;
    size_t k = 0;
    for (size_t i = 0; i < g->n; i++) {
        if (roots && g->nodes[i]->ndeps)
            continue;
        if (out && k < *n)
            out[k] = g->nodes[i];
        k++;
    }
    if (out && k < *n)
        for (size_t i = k; i < *n; i++)
            out[i] = NULL;
    if (!out || k < *n)
        *n = k;
    return CUDA_SUCCESS;
}

CUresult cuGraphGetNodes(CUgraph g, CUgraphNode *nodes, size_t *n)
{
    ZN_CHECK_INIT();
    ZN_RET(list_nodes(g, nodes, n, false));
}

CUresult cuGraphGetRootNodes(CUgraph g, CUgraphNode *nodes, size_t *n)
{
    ZN_CHECK_INIT();
    ZN_RET(list_nodes(g, nodes, n, true));
}

static CUresult get_edges(CUgraph g, CUgraphNode *from, CUgraphNode *to,
                          CUgraphEdgeData *ed, size_t *n)
{
    if (!zn_graph_valid(g) || !n || (!from) != (!to))
        return CUDA_ERROR_INVALID_VALUE;
    size_t k = 0;
    for (size_t i = 0; i < g->n; i++)
        for (size_t j = 0; j < g->nodes[i]->ndeps; j++) {
            if (from && k < *n) {
                from[k] = g->nodes[i]->deps[j];
                to[k] = g->nodes[i];
                if (ed)
                    zn_gedge_get(g, from[k], to[k], &ed[k]);
            }
            k++;
        }
    for (size_t i = k; from && i < *n; i++) {   /* CUDA: the rest set to NULL */
        from[i] = to[i] = NULL;
        if (ed)
            memset(&ed[i], 0, sizeof *ed);
    }
    if (!from || k < *n)
        *n = k;
    return CUDA_SUCCESS;
}

CUresult cuGraphGetEdges(CUgraph g, CUgraphNode *from, CUgraphNode *to, size_t *n)
{
    ZN_CHECK_INIT();
    ZN_RET(get_edges(g, from, to, NULL, n));
}

CUresult cuGraphGetEdges_v2(CUgraph g, CUgraphNode *from, CUgraphNode *to,
                            CUgraphEdgeData *ed, size_t *n)
{
    ZN_CHECK_INIT();
    ZN_RET(get_edges(g, from, to, ed, n));
}

static CUresult node_deps(CUgraphNode n, CUgraphNode *out, CUgraphEdgeData *ed, size_t *nd,
                          bool dependents)
{
    if (!zn_gnode_valid(n) || !nd)
        return CUDA_ERROR_INVALID_VALUE;
    size_t k = 0;
    const zn_graph *g = n->graph;
    if (ed && out)
        memset(ed, 0, *nd * sizeof *ed);
    if (!dependents) {
        for (size_t j = 0; j < n->ndeps; j++, k++)
            if (out && k < *nd) {
                out[k] = n->deps[j];
                if (ed)
                    zn_gedge_get(g, n->deps[j], n, &ed[k]);
            }
    } else {
        for (size_t i = 0; i < g->n; i++)
            for (size_t j = 0; j < g->nodes[i]->ndeps; j++)
                if (g->nodes[i]->deps[j] == n) {
                    if (out && k < *nd) {
                        out[k] = g->nodes[i];
                        if (ed)
                            zn_gedge_get(g, n, g->nodes[i], &ed[k]);
                    }
                    k++;
                }
    }
    for (size_t i = k; out && i < *nd; i++)    /* CUDA: the rest set to NULL */
        out[i] = NULL;
    if (!out || k < *nd)
        *nd = k;
    return CUDA_SUCCESS;
}

CUresult cuGraphNodeGetDependencies(CUgraphNode n, CUgraphNode *deps, size_t *nd)
{
    ZN_CHECK_INIT();
    ZN_RET(node_deps(n, deps, NULL, nd, false));
}

CUresult cuGraphNodeGetDependencies_v2(CUgraphNode n, CUgraphNode *deps, CUgraphEdgeData *ed,
                                       size_t *nd)
{
    ZN_CHECK_INIT();
    ZN_RET(node_deps(n, deps, ed, nd, false));
}

CUresult cuGraphNodeGetDependentNodes(CUgraphNode n, CUgraphNode *out, size_t *nd)
{
    ZN_CHECK_INIT();
    ZN_RET(node_deps(n, out, NULL, nd, true));
}

CUresult cuGraphNodeGetDependentNodes_v2(CUgraphNode n, CUgraphNode *out, CUgraphEdgeData *ed,
                                         size_t *nd)
{
    ZN_CHECK_INIT();
    ZN_RET(node_deps(n, out, ed, nd, true));
}

static CUresult add_dep(zn_gnode *from, zn_gnode *to)
{
    for (size_t j = 0; j < to->ndeps; j++)
        if (to->deps[j] == from)
            return CUDA_ERROR_INVALID_VALUE;    /* the edge exists */
    if (to->ndeps == to->capdeps) {
        size_t cap = to->capdeps ? to->capdeps * 2 : 4;
        zn_gnode **v = realloc(to->deps, cap * sizeof *v);
        if (!v)
            return CUDA_ERROR_OUT_OF_MEMORY;
        to->deps = v;
        to->capdeps = cap;
    }
    to->deps[to->ndeps++] = from;
    return CUDA_SUCCESS;
}

/* e: each edge's data (NULL: all default). Adding stores it; removing
 * (v2: with_data) needs it to match the edge's; v1 removes whatever it is. */
static CUresult change_deps(CUgraph g, const CUgraphNode *from, const CUgraphNode *to,
                            const CUgraphEdgeData *e, size_t n, bool add, bool with_data)
{
    if (!zn_graph_valid(g) || (n && (!from || !to)))
        return CUDA_ERROR_INVALID_VALUE;
    if (!add && zn_graph_has_mem(g))    /* CUDA: edges of such graphs stay */
        return CUDA_ERROR_NOT_SUPPORTED;
    /* every pair checked first, so a refused call changes nothing */
    for (size_t i = 0; i < n; i++) {
        zn_gnode *f = from[i], *t = to[i];
        if (!zn_gnode_valid(f) || !zn_gnode_valid(t) || f->graph != g || t->graph != g ||
            f == t)
            return CUDA_ERROR_INVALID_VALUE;
        bool exists = false;
        for (size_t j = 0; j < t->ndeps; j++)
            exists |= t->deps[j] == f;
        for (size_t k = 0; k < i; k++)      /* the same pair twice in one call */
            if (from[k] == f && to[k] == t)
                return CUDA_ERROR_INVALID_VALUE;
        if (exists == add)
            return CUDA_ERROR_INVALID_VALUE;
        CUgraphEdgeData have, want;
        zn_gedge_get(g, f, t, &have);
        if (e)
            want = e[i];
        else
            memset(&want, 0, sizeof want);
        if (add ? zn_gedge_check(f, t, &want) != CUDA_SUCCESS
                : with_data && memcmp(&have, &want, sizeof have))
            return CUDA_ERROR_INVALID_VALUE;
    }
    for (size_t i = 0; i < n; i++) {
        zn_gnode *f = from[i], *t = to[i];
        if (add) {
            TRY(add_dep(f, t));
            TRY(zn_gedge_set(g, f, t, e ? &e[i] : NULL));
            continue;
        }
        zn_gedge_set(g, f, t, NULL);    /* dropping a record never fails */
        size_t j = 0;
        while (j < t->ndeps && t->deps[j] != f)
            j++;
        if (j == t->ndeps)
            return CUDA_ERROR_INVALID_VALUE;
        t->deps[j] = t->deps[--t->ndeps];
    }
    return CUDA_SUCCESS;
}

CUresult cuGraphAddDependencies(CUgraph g, const CUgraphNode *from, const CUgraphNode *to,
                                size_t n)
{
    ZN_CHECK_INIT();
    ZN_RET(change_deps(g, from, to, NULL, n, true, true));
}

CUresult cuGraphAddDependencies_v2(CUgraph g, const CUgraphNode *from, const CUgraphNode *to,
                                   const CUgraphEdgeData *e, size_t n)
{
    ZN_CHECK_INIT();
    ZN_RET(change_deps(g, from, to, e, n, true, true));
}

CUresult cuGraphRemoveDependencies(CUgraph g, const CUgraphNode *from, const CUgraphNode *to,
                                   size_t n)
{
    ZN_CHECK_INIT();
    ZN_RET(change_deps(g, from, to, NULL, n, false, false));
}

CUresult cuGraphRemoveDependencies_v2(CUgraph g, const CUgraphNode *from,
                                      const CUgraphNode *to, const CUgraphEdgeData *e, size_t n)
{
    ZN_CHECK_INIT();
    ZN_RET(change_deps(g, from, to, e, n, false, true));
}

/* Removes the node and every edge that touches it. */
CUresult cuGraphDestroyNode(CUgraphNode n)
{
    ZN_CHECK_INIT();
    if (!zn_gnode_valid(n))
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    zn_graph *g = n->graph;
    if (zn_graph_has_mem(g))    /* CUDA: nodes of such graphs stay */
        ZN_RET(CUDA_ERROR_NOT_SUPPORTED);
    pthread_mutex_lock(&g->lock);
    zn_gedge_drop_node(g, n);
    size_t k = 0;
    for (size_t i = 0; i < g->n; i++) {
        zn_gnode *m = g->nodes[i];
        if (m == n)
            continue;
        size_t d = 0;
        for (size_t j = 0; j < m->ndeps; j++)
            if (m->deps[j] != n)
                m->deps[d++] = m->deps[j];
        m->ndeps = d;
        m->index = k;
        g->nodes[k++] = m;
    }
    g->n = k;
    pthread_mutex_unlock(&g->lock);
    node_free(n);
    ZN_RET(CUDA_SUCCESS);
}
