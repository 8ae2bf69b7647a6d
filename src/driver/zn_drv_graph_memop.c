/* zn_drv_graph_memop.c: batch memory-operation graph nodes
 * (cuGraphAddBatchMemOpNode, cuGraphAddNode with CU_GRAPH_NODE_TYPE_BATCH_MEM_OP,
 * get/set and exec set).
 *
 * A node keeps its parameters as given (for get-params) and, as its child,
 * an internal chain graph with one op per operation, in order: wait value
 * (ZN_OP_WAIT_VALUE), write value (ZN_OP_WRITE_VALUE), flush and memory
 * barrier (a full fence when the stream gets there: the CPU has no remote
 * writes to flush). Instantiation flattens the chain like a child graph's,
 * so the operations run in stream order exactly as cuStreamBatchMemOp's do;
 * an exec set replaces them under the child rule (same count and kinds of
 * operations). The operations are checked as cuStreamBatchMemOp checks
 * them (zn_memop_check).
 */
#include "zn_drv.h"

#include <stdlib.h>
#include <string.h>

enum { MEMOP_WAIT32 = 1, MEMOP_WRITE32 = 2, MEMOP_FLUSH = 3, MEMOP_WAIT64 = 4,
       MEMOP_WRITE64 = 5, MEMOP_BARRIER = 6, MAX_OPS = 255 };

struct zn_gmemop {
    CUcontext ctx;
    unsigned count, flags;
    CUstreamBatchMemOpParams ops[];
};

static _Atomic unsigned fence_word;

/* A seq_cst read-modify-write: a full barrier that ThreadSanitizer models. */
static void fence_run(void *user)
{
    (void)user;
    atomic_fetch_add_explicit(&fence_word, 1, memory_order_seq_cst);
}

struct zn_gmemop *zn_gmemop_dup(const struct zn_gmemop *m)
{
    size_t size = sizeof *m + m->count * sizeof m->ops[0];
    struct zn_gmemop *c = malloc(size);
    if (c)
        memcpy(c, m, size);
    return c;
}

static CUresult check(const CUDA_BATCH_MEM_OP_NODE_PARAMS *p)
{
    /* no operations at all is a node that does nothing (NVIDIA's driver
     * accepts it, a NULL array too) */
    if (!p || !zn_ctx_valid(p->ctx) || p->count > MAX_OPS ||
        (p->count && !p->paramArray) || p->flags != 0)
        return CUDA_ERROR_INVALID_VALUE;
    for (unsigned i = 0; i < p->count; i++) {
        CUresult r = zn_memop_check(&p->paramArray[i]);
        if (r != CUDA_SUCCESS)
            return r;
    }
    return CUDA_SUCCESS;
}

static zn_op *op_of(const CUstreamBatchMemOpParams *o)
{
    if (o->operation == MEMOP_FLUSH || o->operation == MEMOP_BARRIER) {
        zn_op *op = zn_op_new(ZN_OP_HOST, 0);
        if (op)
            op->u.host.fn = fence_run;
        return op;
    }
    bool wait = o->operation == MEMOP_WAIT32 || o->operation == MEMOP_WAIT64;
    int bits = o->operation == MEMOP_WAIT64 || o->operation == MEMOP_WRITE64 ? 64 : 32;
    zn_op *op = zn_op_new(wait ? ZN_OP_WAIT_VALUE : ZN_OP_WRITE_VALUE, 0);
    if (op) {
        op->u.val.addr = (void *)(uintptr_t)o->value.address;
        op->u.val.v = bits == 64 ? o->value.value : (uint32_t)o->value.value;
        op->u.val.flags = o->value.flags;
        op->u.val.bits = bits;
    }
    return op;
}

/* The chain graph of p's operations and the copy of p (both checked). */
static CUresult build(const CUDA_BATCH_MEM_OP_NODE_PARAMS *p, zn_graph **chain,
                      struct zn_gmemop **copy)
{
    CUresult r = check(p);
    if (r != CUDA_SUCCESS)
        return r;
    zn_graph *g = zn_graph_new(p->ctx);
    struct zn_gmemop *m = malloc(sizeof *m + p->count * sizeof m->ops[0]);
    if (!g || !m) {
        if (g)
            zn_graph_free(g);
        free(m);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    m->ctx = p->ctx;
    m->count = p->count;
    m->flags = p->flags;
    if (p->count)
        memcpy(m->ops, p->paramArray, p->count * sizeof m->ops[0]);
    zn_gnode *prev = NULL;
    for (unsigned i = 0; i < p->count && r == CUDA_SUCCESS; i++) {
        zn_op *op = op_of(&p->paramArray[i]);
        if (op)
            op->ctx = p->ctx;
        r = op ? zn_graph_add(g, CU_GRAPH_NODE_TYPE_EMPTY, op, &prev, prev ? 1 : 0, &prev)
               : CUDA_ERROR_OUT_OF_MEMORY;
    }
    if (r != CUDA_SUCCESS) {
        zn_graph_free(g);
        free(m);
        return r;
    }
    *chain = g;
    *copy = m;
    return CUDA_SUCCESS;
}

CUresult zn_gmemop_add(CUgraphNode *pn, CUgraph g, const CUgraphNode *deps, size_t ndeps,
                       const CUDA_BATCH_MEM_OP_NODE_PARAMS *p)
{
    if (!atomic_load(&zn_drv_inited))
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!pn || !zn_graph_valid(g) || (ndeps && !deps))
        return CUDA_ERROR_INVALID_VALUE;
    zn_graph *chain;
    struct zn_gmemop *m;
    CUresult r = build(p, &chain, &m);
    if (r != CUDA_SUCCESS)
        return r;
    r = zn_graph_add(g, CU_GRAPH_NODE_TYPE_BATCH_MEM_OP, NULL, deps, ndeps, pn);
    if (r != CUDA_SUCCESS) {
        zn_graph_free(chain);
        free(m);
        return r;
    }
    (*pn)->child = chain;
    (*pn)->memop = m;
    return CUDA_SUCCESS;
}

static bool is_memop(const zn_gnode *n)
{
    return zn_gnode_valid(n) && n->type == CU_GRAPH_NODE_TYPE_BATCH_MEM_OP && n->memop;
}

/* New parameters p for the batch memory-op node n: its chain and operations,
 * built as a node of them would be. */
static CUresult rebuild(CUgraphNode n, const CUDA_BATCH_MEM_OP_NODE_PARAMS *p,
                        zn_graph **chain, struct zn_gmemop **m)
{
    if (!is_memop(n))
        return CUDA_ERROR_INVALID_VALUE;
    return build(p, chain, m);
}

CUresult zn_gmemop_set(CUgraphNode n, const CUDA_BATCH_MEM_OP_NODE_PARAMS *p)
{
    zn_graph *chain;
    struct zn_gmemop *m;
    CUresult r = rebuild(n, p, &chain, &m);
    if (r != CUDA_SUCCESS)
        return r;
    zn_graph_free(n->child);
    free(n->memop);
    n->child = chain;
    n->memop = m;
    return CUDA_SUCCESS;
}

CUresult zn_gmemop_exec_set(CUgraphExec x, CUgraphNode n, const CUDA_BATCH_MEM_OP_NODE_PARAMS *p)
{
    zn_graph *chain;
    struct zn_gmemop *m;
    CUresult r = rebuild(n, p, &chain, &m);
    if (r != CUDA_SUCCESS)
        return r;
    r = zn_gexec_set_child_ops(x, n, chain);
    zn_graph_free(chain);
    free(m);
    return r;
}

/* A stream memory operation (wait or write value) captured: a batch
 * memory-op node of that one operation, as CUDA captures them; op is
 * consumed. */
CUresult zn_gmemop_capture(zn_graph *g, zn_op *op, zn_gnode *const *deps, size_t ndeps,
                           zn_gnode **out)
{
    CUstreamBatchMemOpParams o;
    memset(&o, 0, sizeof o);
    bool wait = op->kind == ZN_OP_WAIT_VALUE;
    o.operation = op->u.val.bits == 64 ? (wait ? MEMOP_WAIT64 : MEMOP_WRITE64)
                                       : (wait ? MEMOP_WAIT32 : MEMOP_WRITE32);
    o.value.address = (CUdeviceptr)(uintptr_t)op->u.val.addr;
    o.value.value = op->u.val.v;
    o.value.flags = op->u.val.flags;
    CUDA_BATCH_MEM_OP_NODE_PARAMS p = { op->ctx, 1, &o, 0 };
    free(op);
    return zn_gmemop_add(out, g, deps, ndeps, &p);
}

CUresult cuGraphAddBatchMemOpNode(CUgraphNode *pn, CUgraph g, const CUgraphNode *deps,
                                  size_t ndeps, const CUDA_BATCH_MEM_OP_NODE_PARAMS *p)
{
    ZN_RET(zn_gmemop_add(pn, g, deps, ndeps, p));
}

/* paramArray points into the node: valid while the node is and its
 * parameters are not set again (as in CUDA). */
CUresult cuGraphBatchMemOpNodeGetParams(CUgraphNode n, CUDA_BATCH_MEM_OP_NODE_PARAMS *out)
{
    ZN_CHECK_INIT();
    if (!is_memop(n) || !out)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    out->ctx = n->memop->ctx;
    out->count = n->memop->count;
    out->paramArray = n->memop->ops;
    out->flags = n->memop->flags;
    ZN_RET(CUDA_SUCCESS);
}

CUresult cuGraphBatchMemOpNodeSetParams(CUgraphNode n, const CUDA_BATCH_MEM_OP_NODE_PARAMS *p)
{
    ZN_CHECK_INIT();
    ZN_RET(zn_gmemop_set(n, p));
}

CUresult cuGraphExecBatchMemOpNodeSetParams(CUgraphExec x, CUgraphNode n,
                                            const CUDA_BATCH_MEM_OP_NODE_PARAMS *p)
{
    ZN_CHECK_INIT();
    ZN_RET(zn_gmemop_exec_set(x, n, p));
}
