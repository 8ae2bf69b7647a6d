/* zn_drv_graph_node.c: the generic node API (cuGraphAddNode,
 * cuGraphNodeSetParams, cuGraphExecNodeSetParams) over the per-kind entry
 * points (conditional nodes: zn_drv_graph_cond.c; batch memory-op nodes:
 * zn_drv_graph_memop.c; cuGraphAddNode_v2's edge data: zn_drv_graph_edge.c),
 * kernel node attributes and cuGraphNodeFindInClone.
 *
 * Kernel node attributes are stored per node (a 17-entry table indexed by
 * CUlaunchAttributeID) and returned as set; unset ones read as zero, which
 * is CUDA's default for each of them. The cooperative attribute also marks
 * the node's kernel op cooperative (every block at once, grid.sync works);
 * the others describe GPU scheduling and caching and change nothing on a CPU.
 */
#include "zn_drv.h"
#include "../util/zn_log.h"

#include <stdlib.h>
#include <string.h>

#define NATTR 17

/* ---- kernel node attributes ---- */

static bool kattr_id_ok(int id)
{
    switch (id) {
    case CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW:
    case CU_LAUNCH_ATTRIBUTE_COOPERATIVE:
    case CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION:
    case CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE:
    case CU_LAUNCH_ATTRIBUTE_PRIORITY:
    case CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP:
    case CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN:
    case CU_LAUNCH_ATTRIBUTE_PREFERRED_CLUSTER_DIMENSION:
    case CU_LAUNCH_ATTRIBUTE_DEVICE_UPDATABLE_KERNEL_NODE:
    case CU_LAUNCH_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT:
        return true;
    default:
        return false;
    }
}

void zn_gnode_apply_kattr(zn_gnode *n)
{
    if (n->op && n->op->kind == ZN_OP_KERNEL && n->kattr) {
        zn_op *op = n->op;
        op->u.k.coop = n->kattr[CU_LAUNCH_ATTRIBUTE_COOPERATIVE].cooperative;
        /* the cluster attribute, checked when it was set; else the kernel's */
        const CUlaunchAttributeValue *cv = &n->kattr[CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION];
        unsigned cd[3] = { cv->clusterDim.x, cv->clusterDim.y, cv->clusterDim.z };
        bool *ex = &op->u.k.cl_explicit;
        if (zn_cluster_resolve(op->u.k.f, op->u.k.g, cd, false, op->u.k.cl, ex) != CUDA_SUCCESS)
            zn_cluster_resolve(op->u.k.f, op->u.k.g, NULL, false, op->u.k.cl, ex);
    }
}

static bool is_kernel(const zn_gnode *n)
{
    return zn_gnode_valid(n) && n->type == CU_GRAPH_NODE_TYPE_KERNEL;
}

CUresult cuGraphKernelNodeGetAttribute(CUgraphNode n, int attr, CUlaunchAttributeValue *v)
{
    ZN_CHECK_INIT();
    if (!is_kernel(n) || !v || !kattr_id_ok(attr))
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    if (n->kattr)
        *v = n->kattr[attr];
    else
        memset(v, 0, sizeof *v);
    /* a captured cooperative launch (cuLaunchCooperativeKernel) has no
     * table but says so through its op */
    if (attr == CU_LAUNCH_ATTRIBUTE_COOPERATIVE && !n->kattr)
        v->cooperative = n->op->u.k.coop;
    ZN_RET(CUDA_SUCCESS);
}

CUresult cuGraphKernelNodeSetAttribute(CUgraphNode n, int attr, const CUlaunchAttributeValue *v)
{
    ZN_CHECK_INIT();
    if (!is_kernel(n) || !v || !kattr_id_ok(attr))
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    const CUlaunchAttributeValue *val = v;
    if (attr == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION) {
        /* the node's grid must be a multiple, within the size limits */
        const zn_op *op = n->op;
        unsigned cd[3] = { val->clusterDim.x, val->clusterDim.y, val->clusterDim.z }, out[3];
        CUresult rc = zn_cluster_resolve(op->u.k.f, op->u.k.g, cd, false, out, NULL);
        if (rc != CUDA_SUCCESS)
            ZN_RET(rc);
    }
    /* PREFERRED_CLUSTER_DIMENSION is a hint a GPU may ignore: stored only */
    if (attr == CU_LAUNCH_ATTRIBUTE_COOPERATIVE && val->cooperative) {
        const zn_op *op = n->op;
        uint64_t threads = (uint64_t)op->u.k.b[0] * op->u.k.b[1] * op->u.k.b[2];
        uint64_t blocks = (uint64_t)op->u.k.g[0] * op->u.k.g[1] * op->u.k.g[2];
        if (blocks > zn_func_coresident_blocks(op->u.k.f, threads, op->u.k.shmem))
            ZN_RET(CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE);
    }
    if (!n->kattr && !(n->kattr = calloc(NATTR, sizeof *n->kattr)))
        ZN_RET(CUDA_ERROR_OUT_OF_MEMORY);
    n->kattr[attr] = *val;
    zn_gnode_apply_kattr(n);
    ZN_RET(CUDA_SUCCESS);
}

CUresult cuGraphKernelNodeCopyAttributes(CUgraphNode dst, CUgraphNode src)
{
    ZN_CHECK_INIT();
    if (!is_kernel(dst) || !is_kernel(src))
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    if (dst == src)
        ZN_RET(CUDA_SUCCESS);
    if (!src->kattr) {
        free(dst->kattr);
        dst->kattr = NULL;
        dst->op->u.k.coop = src->op->u.k.coop;
    } else {
        if (!dst->kattr && !(dst->kattr = malloc(NATTR * sizeof *dst->kattr)))
            ZN_RET(CUDA_ERROR_OUT_OF_MEMORY);
        memcpy(dst->kattr, src->kattr, NATTR * sizeof *dst->kattr);
    }
    zn_gnode_apply_kattr(dst);
    ZN_RET(CUDA_SUCCESS);
}

/* ---- clones ---- */

CUresult cuGraphNodeFindInClone(CUgraphNode *out, CUgraphNode orig, CUgraph clone)
{
    ZN_CHECK_INIT();
    if (!out || !zn_gnode_valid(orig) || !zn_graph_valid(clone))
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    for (size_t i = 0; i < clone->n; i++)
        if (clone->nodes[i]->clone_of == orig->id) {
            *out = clone->nodes[i];
            ZN_RET(CUDA_SUCCESS);
        }
    ZN_RET(CUDA_ERROR_INVALID_VALUE);
}

/* ---- the generic node API ---- */

static CUresult add_child_moved(CUgraphNode *pn, CUgraph g, const CUgraphNode *deps,
                                size_t ndeps, CUgraph child)
{
    ZN_ENTER(c);
    (void)c;
    if (!pn || !zn_graph_valid(g) || !zn_graph_valid(child) || child == g ||
        (ndeps && !deps))
        return CUDA_ERROR_INVALID_VALUE;
    CUresult r = zn_graph_add(g, CU_GRAPH_NODE_TYPE_GRAPH, NULL, deps, ndeps, pn);
    if (r != CUDA_SUCCESS)
        return r;
    (*pn)->child = child;   /* the node owns it now; the handle stays valid */
    /* the parent holds the child's memory blocks and user objects too */
    return zn_uobj_set_merge(&g->uobjs, &child->uobjs) ? CUDA_SUCCESS
                                                        : CUDA_ERROR_OUT_OF_MEMORY;
}

static CUresult add_typed(CUgraphNode *pn, CUgraph g, const CUgraphNode *deps, size_t ndeps,
                          CUgraphNodeParams *p);

static CUresult add_node(CUgraphNode *pn, CUgraph g, const CUgraphNode *deps, size_t ndeps,
                         const CUgraphEdgeData *edges, CUgraphNodeParams *p)
{
    if (!p)
        return CUDA_ERROR_INVALID_VALUE;
    /* edge data is checked before the node is made (a programmatic edge
     * needs a kernel node at both ends) and stored once it is */
    for (size_t i = 0; edges && i < ndeps; i++) {
        if (!deps || !zn_gnode_valid(deps[i]) || deps[i]->graph != g)
            return CUDA_ERROR_INVALID_VALUE;
        CUresult r = zn_gedge_check(deps[i], NULL, &edges[i]);
        if (r == CUDA_SUCCESS && edges[i].type && p->type != CU_GRAPH_NODE_TYPE_KERNEL)
            r = CUDA_ERROR_INVALID_VALUE;
        if (r != CUDA_SUCCESS)
            return r;
    }
    CUresult r = add_typed(pn, g, deps, ndeps, p);
    for (size_t i = 0; r == CUDA_SUCCESS && edges && i < ndeps; i++)
        r = zn_gedge_set(g, deps[i], *pn, &edges[i]);
    return r;
}

static CUresult add_typed(CUgraphNode *pn, CUgraph g, const CUgraphNode *deps, size_t ndeps,
                          CUgraphNodeParams *p)
{
    switch (p->type) {
    case CU_GRAPH_NODE_TYPE_KERNEL:
        return cuGraphAddKernelNode_v2(pn, g, deps, ndeps, &p->kernel);
    case CU_GRAPH_NODE_TYPE_MEMCPY:
        if (p->memcpy.flags || p->memcpy.reserved)
            return CUDA_ERROR_INVALID_VALUE;
        return cuGraphAddMemcpyNode(pn, g, deps, ndeps, &p->memcpy.copyParams,
                                    p->memcpy.copyCtx);
    case CU_GRAPH_NODE_TYPE_MEMSET: {
        CUDA_MEMSET_NODE_PARAMS q;
        memcpy(&q, &p->memset, sizeof q);   /* v2 adds ctx at the end */
        return cuGraphAddMemsetNode(pn, g, deps, ndeps, &q, p->memset.ctx);
    }
    case CU_GRAPH_NODE_TYPE_HOST:
        return cuGraphAddHostNode(pn, g, deps, ndeps, &p->host);
    case CU_GRAPH_NODE_TYPE_GRAPH:
        if (p->graph.ownership == ZN_CU_GRAPH_CHILD_GRAPH_OWNERSHIP_MOVE)
            return add_child_moved(pn, g, deps, ndeps, p->graph.graph);
        if (p->graph.ownership != ZN_CU_GRAPH_CHILD_GRAPH_OWNERSHIP_CLONE)
            return CUDA_ERROR_INVALID_VALUE;
        {
            CUresult r = cuGraphAddChildGraphNode(pn, g, deps, ndeps, p->graph.graph);
            if (r == CUDA_SUCCESS)
                p->graph.graph = (*pn)->child;  /* out: the node's own graph */
            return r;
        }
    case CU_GRAPH_NODE_TYPE_EMPTY:
        return cuGraphAddEmptyNode(pn, g, deps, ndeps);
    case CU_GRAPH_NODE_TYPE_WAIT_EVENT:
        return cuGraphAddEventWaitNode(pn, g, deps, ndeps, p->eventWait.event);
    case CU_GRAPH_NODE_TYPE_EVENT_RECORD:
        return cuGraphAddEventRecordNode(pn, g, deps, ndeps, p->eventRecord.event);
    case CU_GRAPH_NODE_TYPE_MEM_ALLOC:
        return cuGraphAddMemAllocNode(pn, g, deps, ndeps, &p->alloc);
    case CU_GRAPH_NODE_TYPE_MEM_FREE:
        return cuGraphAddMemFreeNode(pn, g, deps, ndeps, p->free.dptr);
    case CU_GRAPH_NODE_TYPE_CONDITIONAL:
        return zn_gcond_add(pn, g, deps, ndeps, &p->conditional);
    case CU_GRAPH_NODE_TYPE_BATCH_MEM_OP:
        return zn_gmemop_add(pn, g, deps, ndeps, &p->memOp);
    case CU_GRAPH_NODE_TYPE_EXT_SEMAS_SIGNAL:
    case CU_GRAPH_NODE_TYPE_EXT_SEMAS_WAIT:
        zn_log(ZN_LOG_WARN, "cuGraphAddNode: node type %d is not supported", p->type);
        return CUDA_ERROR_NOT_SUPPORTED;
    default:
        return CUDA_ERROR_INVALID_VALUE;
    }
}

CUresult cuGraphAddNode(CUgraphNode *pn, CUgraph g, const CUgraphNode *deps, size_t ndeps,
                        CUgraphNodeParams *p)
{
    ZN_RET(add_node(pn, g, deps, ndeps, NULL, p));
}

CUresult cuGraphAddNode_v2(CUgraphNode *pn, CUgraph g, const CUgraphNode *deps,
                           const CUgraphEdgeData *edges, size_t ndeps, CUgraphNodeParams *p)
{
    ZN_RET(add_node(pn, g, deps, ndeps, edges, p));
}

CUresult cuGraphNodeSetParams(CUgraphNode n, CUgraphNodeParams *p)
{
    ZN_CHECK_INIT();
    if (!zn_gnode_valid(n) || !p || p->type != (int)n->type)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    switch (n->type) {
    case CU_GRAPH_NODE_TYPE_KERNEL:
        return cuGraphKernelNodeSetParams_v2(n, &p->kernel);
    case CU_GRAPH_NODE_TYPE_MEMCPY:
        return cuGraphMemcpyNodeSetParams(n, &p->memcpy.copyParams);
    case CU_GRAPH_NODE_TYPE_MEMSET: {
        CUDA_MEMSET_NODE_PARAMS q;
        memcpy(&q, &p->memset, sizeof q);
        return cuGraphMemsetNodeSetParams(n, &q);
    }
    case CU_GRAPH_NODE_TYPE_HOST:
        return cuGraphHostNodeSetParams(n, &p->host);
    case CU_GRAPH_NODE_TYPE_WAIT_EVENT:
        return cuGraphEventWaitNodeSetEvent(n, p->eventWait.event);
    case CU_GRAPH_NODE_TYPE_EVENT_RECORD:
        return cuGraphEventRecordNodeSetEvent(n, p->eventRecord.event);
    case CU_GRAPH_NODE_TYPE_EMPTY:
        ZN_RET(CUDA_SUCCESS);
    case CU_GRAPH_NODE_TYPE_BATCH_MEM_OP:
        ZN_RET(zn_gmemop_set(n, &p->memOp));
    default:    /* child graphs, memory nodes: fixed once created */
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    }
}

CUresult cuGraphExecNodeSetParams(CUgraphExec x, CUgraphNode n, CUgraphNodeParams *p)
{
    ZN_CHECK_INIT();
    if (!zn_gnode_valid(n) || !p || p->type != (int)n->type)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    switch (n->type) {
    case CU_GRAPH_NODE_TYPE_KERNEL:
        return cuGraphExecKernelNodeSetParams_v2(x, n, &p->kernel);
    case CU_GRAPH_NODE_TYPE_MEMCPY:
        return cuGraphExecMemcpyNodeSetParams(x, n, &p->memcpy.copyParams, p->memcpy.copyCtx);
    case CU_GRAPH_NODE_TYPE_MEMSET: {
        CUDA_MEMSET_NODE_PARAMS q;
        memcpy(&q, &p->memset, sizeof q);
        return cuGraphExecMemsetNodeSetParams(x, n, &q, p->memset.ctx);
    }
    case CU_GRAPH_NODE_TYPE_HOST:
        return cuGraphExecHostNodeSetParams(x, n, &p->host);
    case CU_GRAPH_NODE_TYPE_WAIT_EVENT:
        return cuGraphExecEventWaitNodeSetEvent(x, n, p->eventWait.event);
    case CU_GRAPH_NODE_TYPE_EVENT_RECORD:
        return cuGraphExecEventRecordNodeSetEvent(x, n, p->eventRecord.event);
    case CU_GRAPH_NODE_TYPE_GRAPH:
        return cuGraphExecChildGraphNodeSetParams(x, n, p->graph.graph);
    case CU_GRAPH_NODE_TYPE_BATCH_MEM_OP:
        ZN_RET(zn_gmemop_exec_set(x, n, &p->memOp));
    default:
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    }
}
