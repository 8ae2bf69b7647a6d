/* test_drv_graph_api.c: the generic node API and the remaining graph calls.
 *
 * cuGraphAddNode (both versions) for every node kind Zinc has, then
 * cuGraphNodeSetParams and cuGraphExecNodeSetParams, each checked by what
 * the next launch writes into poisoned buffers; cuGraphExecChildGraphNodeSetParams;
 * kernel node attributes stored, returned, copied and cloned;
 * cuGraphNodeFindInClone; cuGraphDebugDotPrint's file read back;
 * conditional nodes decided by their handle's default value.
 */
#include "graph_test.h"

#include <stdlib.h>
#include <unistd.h>

enum { N = 512, POISON = 0xdeadbeef };

static int host_runs;

static void CUDA_CB count_run(void *p)
{
    (*(int *)p)++;
}

static CUgraphNodeParams memset_node(CUdeviceptr d, uint32_t v, CUcontext ctx)
{
    CUgraphNodeParams p;
    memset(&p, 0, sizeof p);
    p.type = CU_GRAPH_NODE_TYPE_MEMSET;
    p.memset.dst = d;
    p.memset.value = v;
    p.memset.elementSize = 4;
    p.memset.width = N;
    p.memset.height = 1;
    p.memset.ctx = ctx;
    return p;
}

static CUgraphNodeParams kernel_node(const gt_fixture *f, void **args)
{
    CUgraphNodeParams p;
    memset(&p, 0, sizeof p);
    p.type = CU_GRAPH_NODE_TYPE_KERNEL;
    CUDA_KERNEL_NODE_PARAMS k = gt_fill_params(f, args, N);
    memcpy(&p.kernel, &k, sizeof k);
    return p;
}

/* A child graph of one memset node (v into d). */
static CUgraph child_of(CUdeviceptr d, uint32_t v, CUcontext ctx, int nodes)
{
    CUgraph c;
    OK(cuGraphCreate(&c, 0));
    CUgraphNode n;
    CUgraphNodeParams p = memset_node(d, v, ctx);
    for (int i = 0; i < nodes; i++)
        OK(cuGraphAddNode(&n, c, NULL, NULL, 0, &p));
    return c;
}

static void launch(const gt_fixture *f, CUgraphExec x, CUdeviceptr *bufs, int nbufs)
{
    for (int i = 0; i < nbufs; i++)
        OK(cuMemsetD32(bufs[i], POISON, N));
    OK(cuGraphLaunch(x, f->s));
    OK(cuStreamSynchronize(f->s));
}

static void check_generic(gt_fixture *f)
{
    CUdeviceptr a, b, c;
    OK(cuMemAlloc(&a, N * 4));
    OK(cuMemAlloc(&b, N * 4));
    OK(cuMemAlloc(&c, N * 4));
    CUdeviceptr bufs[] = { a, b, c };
    CUevent ev;
    OK(cuEventCreate(&ev, 0));
    CUgraph g;
    OK(cuGraphCreate(&g, 0));

    CUgraphNode nset, nk, nhost, nempty, nrec, nchild;
    CUgraphNodeParams p = memset_node(a, 0x10, f->ctx);
    OK(cuGraphAddNode(&nset, g, NULL, NULL, 0, &p));
    unsigned n = N, v = 3;
    void *args[] = { &b, &n, &v };
    p = kernel_node(f, args);
    OK(cuGraphAddNode(&nk, g, &nset, NULL, 1, &p));
    memset(&p, 0, sizeof p);
    p.type = CU_GRAPH_NODE_TYPE_HOST;
    p.host.fn = count_run;
    p.host.userData = &host_runs;
    OK(cuGraphAddNode(&nhost, g, &nk, NULL, 1, &p));
    memset(&p, 0, sizeof p);
    p.type = CU_GRAPH_NODE_TYPE_EMPTY;
    CUgraphEdgeData ed;
    memset(&ed, 0, sizeof ed);
    OK(cuGraphAddNode(&nempty, g, &nhost, &ed, 1, &p));   /* a plain edge's data */
    memset(&p, 0, sizeof p);
    p.type = CU_GRAPH_NODE_TYPE_EVENT_RECORD;
    p.eventRecord.event = ev;
    OK(cuGraphAddNode(&nrec, g, &nempty, NULL, 1, &p));
    CUgraph child = child_of(c, 0x44, f->ctx, 1);
    memset(&p, 0, sizeof p);
    p.type = CU_GRAPH_NODE_TYPE_GRAPH;
    p.graph.graph = child;
    OK(cuGraphAddNode(&nchild, g, &nrec, NULL, 1, &p));
    EXPECT(p.graph.graph != child && p.graph.graph != NULL);  /* the node's own copy */
    CUgraph owned;
    OK(cuGraphChildGraphNodeGetGraph(nchild, &owned));
    EXPECT(owned == p.graph.graph);
    OK(cuGraphDestroy(child));

    CUgraphNodeType t;
    OK(cuGraphNodeGetType(nk, &t));
    EXPECT(t == CU_GRAPH_NODE_TYPE_KERNEL);
    OK(cuGraphNodeGetType(nrec, &t));
    EXPECT(t == CU_GRAPH_NODE_TYPE_EVENT_RECORD);
    CUDA_KERNEL_NODE_PARAMS kq;
    OK(cuGraphKernelNodeGetParams(nk, &kq));
    EXPECT(kq.func == f->fill && kq.gridDimX == N / 64 && kq.blockDimX == 64);

    /* misuse: an unknown type, a programmatic edge, kinds Zinc lacks */
    CUgraphNode bad;
    memset(&p, 0, sizeof p);
    p.type = (CUgraphNodeType)99;
    EXPECT_RC(cuGraphAddNode(&bad, g, NULL, NULL, 0, &p), CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(cuGraphAddNode(&bad, g, NULL, NULL, 0, NULL), CUDA_ERROR_INVALID_VALUE);
    p.type = CU_GRAPH_NODE_TYPE_EMPTY;
    ed.type = CU_GRAPH_DEPENDENCY_TYPE_PROGRAMMATIC;
    /* a programmatic edge must end at a kernel node (test_drv_pdl.c: the rest) */
    EXPECT_RC(cuGraphAddNode(&bad, g, &nk, &ed, 1, &p), CUDA_ERROR_INVALID_VALUE);
    p.type = CU_GRAPH_NODE_TYPE_EXT_SEMAS_SIGNAL;    /* no external semaphores */
    EXPECT_RC(cuGraphAddNode(&bad, g, NULL, NULL, 0, &p), CUDA_ERROR_NOT_SUPPORTED);

    /* version 12020 (no edge data), as an older caller gets it */
    CUresult (*add_v1)(CUgraphNode *, CUgraph, const CUgraphNode *, size_t,
                       CUgraphNodeParams *) = NULL;
    OK(cuGetProcAddress("cuGraphAddNode", (void **)&add_v1, 12020, 0, NULL));
    if (add_v1) {
        memset(&p, 0, sizeof p);
        p.type = CU_GRAPH_NODE_TYPE_EMPTY;
        CUgraphNode tail;
        OK(add_v1(&tail, g, &nchild, 1, &p));
        OK(cuGraphNodeGetType(tail, &t));
        EXPECT(t == CU_GRAPH_NODE_TYPE_EMPTY);
    }

    CUgraphExec x;
    OK(cuGraphInstantiate(&x, g, 0));
    launch(f, x, bufs, 3);
    EXPECT(gt_check_const(a, N, 0x10) == 0);
    EXPECT(gt_check_fill(b, N, 3) == 0);
    EXPECT(gt_check_const(c, N, 0x44) == 0);
    EXPECT(host_runs == 1);

    /* cuGraphNodeSetParams: the graph changes, the executable graph not */
    p = memset_node(a, 0x20, f->ctx);
    OK(cuGraphNodeSetParams(nset, &p));
    v = 4;
    p = kernel_node(f, args);
    OK(cuGraphNodeSetParams(nk, &p));
    EXPECT_RC(cuGraphNodeSetParams(nset, &p), CUDA_ERROR_INVALID_VALUE);  /* kind mismatch */
    CUDA_MEMSET_NODE_PARAMS mq;
    OK(cuGraphMemsetNodeGetParams(nset, &mq));
    EXPECT(mq.value == 0x20);
    launch(f, x, bufs, 3);
    EXPECT(gt_check_const(a, N, 0x10) == 0);
    EXPECT(gt_check_fill(b, N, 3) == 0);
    CUgraphExec x2;
    OK(cuGraphInstantiate(&x2, g, 0));
    launch(f, x2, bufs, 3);
    EXPECT(gt_check_const(a, N, 0x20) == 0);
    EXPECT(gt_check_fill(b, N, 4) == 0);
    OK(cuGraphExecDestroy(x2));

    /* cuGraphExecNodeSetParams, a child graph included */
    p = memset_node(a, 0x30, f->ctx);
    OK(cuGraphExecNodeSetParams(x, nset, &p));
    v = 5;
    p = kernel_node(f, args);
    OK(cuGraphExecNodeSetParams(x, nk, &p));
    CUgraph child2 = child_of(c, 0x55, f->ctx, 1);
    memset(&p, 0, sizeof p);
    p.type = CU_GRAPH_NODE_TYPE_GRAPH;
    p.graph.graph = child2;
    OK(cuGraphExecNodeSetParams(x, nchild, &p));
    p.type = CU_GRAPH_NODE_TYPE_MEMSET;
    EXPECT_RC(cuGraphExecNodeSetParams(x, nchild, &p), CUDA_ERROR_INVALID_VALUE);
    launch(f, x, bufs, 3);
    EXPECT(gt_check_const(a, N, 0x30) == 0);
    EXPECT(gt_check_fill(b, N, 5) == 0);
    EXPECT(gt_check_const(c, N, 0x55) == 0);
    EXPECT(host_runs == 4);

    /* cuGraphExecChildGraphNodeSetParams: same shape taken, another refused */
    CUgraph child3 = child_of(c, 0x66, f->ctx, 1), child4 = child_of(c, 0x77, f->ctx, 2);
    OK(cuGraphExecChildGraphNodeSetParams(x, nchild, child3));
    EXPECT_RC(cuGraphExecChildGraphNodeSetParams(x, nchild, child4), CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(cuGraphExecChildGraphNodeSetParams(x, nset, child3), CUDA_ERROR_INVALID_VALUE);
    launch(f, x, bufs, 3);
    EXPECT(gt_check_const(c, N, 0x66) == 0);
    OK(cuGraphDestroy(child2));
    OK(cuGraphDestroy(child3));
    OK(cuGraphDestroy(child4));

    OK(cuGraphExecDestroy(x));
    OK(cuGraphDestroy(g));
    OK(cuEventDestroy(ev));
    OK(cuMemFree(a));
    OK(cuMemFree(b));
    OK(cuMemFree(c));
}

/* Memory nodes through cuGraphAddNode; a graph with them moved into a
 * parent as a child. */
static void check_generic_mem(gt_fixture *f)
{
    CUdeviceptr out;
    OK(cuMemAlloc(&out, N * 4));
    CUgraph inner, g;
    OK(cuGraphCreate(&inner, 0));
    CUgraphNodeParams p;
    memset(&p, 0, sizeof p);
    p.type = CU_GRAPH_NODE_TYPE_MEM_ALLOC;
    p.alloc.poolProps.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
    p.alloc.poolProps.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    p.alloc.bytesize = N * 4;
    CUgraphNode na, nk, nc, nf;
    OK(cuGraphAddNode(&na, inner, NULL, NULL, 0, &p));
    CUdeviceptr d = p.alloc.dptr;
    EXPECT(d != 0);
    unsigned n = N, v = 8;
    void *args[] = { &d, &n, &v };
    p = kernel_node(f, args);
    OK(cuGraphAddNode(&nk, inner, &na, NULL, 1, &p));
    memset(&p, 0, sizeof p);
    p.type = CU_GRAPH_NODE_TYPE_MEMCPY;
    p.memcpy.copyCtx = f->ctx;
    p.memcpy.copyParams = gt_copy_params(out, d, N * 4);
    OK(cuGraphAddNode(&nc, inner, &nk, NULL, 1, &p));
    memset(&p, 0, sizeof p);
    p.type = CU_GRAPH_NODE_TYPE_MEM_FREE;
    p.free.dptr = d;
    OK(cuGraphAddNode(&nf, inner, &nc, NULL, 1, &p));
    p.type = CU_GRAPH_NODE_TYPE_MEM_FREE;
    EXPECT_RC(cuGraphNodeSetParams(nf, &p), CUDA_ERROR_INVALID_VALUE);   /* fixed */

    /* moved (not cloned) into a parent: allowed with memory nodes */
    OK(cuGraphCreate(&g, 0));
    CUgraphNode nchild;
    memset(&p, 0, sizeof p);
    p.type = CU_GRAPH_NODE_TYPE_GRAPH;
    p.graph.graph = inner;
    p.graph.ownership = CU_GRAPH_CHILD_GRAPH_OWNERSHIP_CLONE;
    EXPECT(cuGraphAddNode(&nchild, g, NULL, NULL, 0, &p) != CUDA_SUCCESS);
    p.graph.ownership = CU_GRAPH_CHILD_GRAPH_OWNERSHIP_MOVE;
    OK(cuGraphAddNode(&nchild, g, NULL, NULL, 0, &p));
    CUgraphExec x;
    OK(cuGraphInstantiate(&x, g, 0));
    for (int run = 0; run < 2; run++) {
        launch(f, x, &out, 1);
        EXPECT(gt_check_fill(out, N, 8) == 0);
    }
    OK(cuGraphExecDestroy(x));
    OK(cuGraphDestroy(g));      /* and the moved child with it */
    OK(cuMemFree(out));
}

/* Kernel node attributes, copies of them, and clones. */
static void check_attributes(gt_fixture *f)
{
    CUdeviceptr a;
    OK(cuMemAlloc(&a, N * 4));
    CUgraph g;
    OK(cuGraphCreate(&g, 0));
    unsigned n = N, v = 2;
    void *args[] = { &a, &n, &v };
    CUDA_KERNEL_NODE_PARAMS kp = gt_fill_params(f, args, N);
    CUgraphNode k1, k2, nset;
    OK(cuGraphAddKernelNode(&k1, g, NULL, 0, &kp));
    OK(cuGraphAddKernelNode(&k2, g, &k1, 1, &kp));
    CUdeviceptr other;      /* the memset's: independent of the kernels */
    OK(cuMemAlloc(&other, N * 4));
    CUDA_MEMSET_NODE_PARAMS mp = gt_set_params(other, 0, N);
    OK(cuGraphAddMemsetNode(&nset, g, NULL, 0, &mp, f->ctx));

    CUkernelNodeAttrValue val;
    memset(&val, 0x5a, sizeof val);
    OK(cuGraphKernelNodeGetAttribute(k1, CU_KERNEL_NODE_ATTRIBUTE_PRIORITY, &val));
    EXPECT(val.priority == 0);                  /* unset: the default */
    val.priority = 3;
    OK(cuGraphKernelNodeSetAttribute(k1, CU_KERNEL_NODE_ATTRIBUTE_PRIORITY, &val));
    CUkernelNodeAttrValue apw;
    memset(&apw, 0, sizeof apw);
    apw.accessPolicyWindow.base_ptr = (void *)(uintptr_t)a;
    apw.accessPolicyWindow.num_bytes = N * 4;
    apw.accessPolicyWindow.hitRatio = 0.75f;
    apw.accessPolicyWindow.hitProp = CU_ACCESS_PROPERTY_PERSISTING;
    apw.accessPolicyWindow.missProp = CU_ACCESS_PROPERTY_STREAMING;
    OK(cuGraphKernelNodeSetAttribute(k1, CU_KERNEL_NODE_ATTRIBUTE_ACCESS_POLICY_WINDOW, &apw));
    memset(&val, 0, sizeof val);
    val.cooperative = 1;
    OK(cuGraphKernelNodeSetAttribute(k1, CU_KERNEL_NODE_ATTRIBUTE_COOPERATIVE, &val));

    memset(&val, 0, sizeof val);
    OK(cuGraphKernelNodeGetAttribute(k1, CU_KERNEL_NODE_ATTRIBUTE_PRIORITY, &val));
    EXPECT(val.priority == 3);
    memset(&val, 0, sizeof val);
    OK(cuGraphKernelNodeGetAttribute(k1, CU_KERNEL_NODE_ATTRIBUTE_ACCESS_POLICY_WINDOW, &val));
    EXPECT(val.accessPolicyWindow.base_ptr == (void *)(uintptr_t)a &&
           val.accessPolicyWindow.num_bytes == N * 4 &&
           val.accessPolicyWindow.hitRatio == 0.75f &&
           val.accessPolicyWindow.hitProp == CU_ACCESS_PROPERTY_PERSISTING &&
           val.accessPolicyWindow.missProp == CU_ACCESS_PROPERTY_STREAMING);
    OK(cuGraphKernelNodeGetAttribute(k1, CU_KERNEL_NODE_ATTRIBUTE_COOPERATIVE, &val));
    EXPECT(val.cooperative == 1);
    OK(cuGraphKernelNodeGetAttribute(k2, CU_KERNEL_NODE_ATTRIBUTE_PRIORITY, &val));
    EXPECT(val.priority == 0);

    /* misuse */
    EXPECT_RC(cuGraphKernelNodeGetAttribute(nset, CU_KERNEL_NODE_ATTRIBUTE_PRIORITY, &val),
              CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(cuGraphKernelNodeSetAttribute(k1, CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_EVENT, &val),
              CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(cuGraphKernelNodeGetAttribute(k1, CU_KERNEL_NODE_ATTRIBUTE_PRIORITY, NULL),
              CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(cuGraphKernelNodeCopyAttributes(nset, k1), CUDA_ERROR_INVALID_VALUE);

    OK(cuGraphKernelNodeCopyAttributes(k2, k1));
    OK(cuGraphKernelNodeGetAttribute(k2, CU_KERNEL_NODE_ATTRIBUTE_PRIORITY, &val));
    EXPECT(val.priority == 3);
    OK(cuGraphKernelNodeGetAttribute(k2, CU_KERNEL_NODE_ATTRIBUTE_ACCESS_POLICY_WINDOW, &val));
    EXPECT(val.accessPolicyWindow.num_bytes == N * 4);

    /* a cooperative kernel node still computes the same */
    CUgraphExec x;
    OK(cuGraphInstantiate(&x, g, 0));
    OK(cuMemsetD32(a, POISON, N));
    OK(cuGraphLaunch(x, f->s));
    OK(cuStreamSynchronize(f->s));
    EXPECT(gt_check_fill(a, N, 2) == 0);
    OK(cuGraphExecDestroy(x));

    /* a captured cooperative launch reads as a cooperative node, and stays
     * one when its parameters change */
    {
        CUgraph cg;
        OK(cuStreamBeginCapture(f->s, CU_STREAM_CAPTURE_MODE_GLOBAL));
        OK(cuLaunchCooperativeKernel(f->fill, N / 64, 1, 1, 64, 1, 1, 0, f->s, args));
        OK(cuStreamEndCapture(f->s, &cg));
        CUgraphNode kn;
        size_t cnt = 1;
        OK(cuGraphGetNodes(cg, &kn, &cnt));
        memset(&val, 0, sizeof val);
        OK(cuGraphKernelNodeGetAttribute(kn, CU_KERNEL_NODE_ATTRIBUTE_COOPERATIVE, &val));
        EXPECT(val.cooperative == 1);
        v = 6;
        OK(cuGraphKernelNodeSetParams(kn, &kp));
        memset(&val, 0, sizeof val);
        OK(cuGraphKernelNodeGetAttribute(kn, CU_KERNEL_NODE_ATTRIBUTE_COOPERATIVE, &val));
        EXPECT(val.cooperative == 1);
        CUgraphExec cx;
        OK(cuGraphInstantiate(&cx, cg, 0));
        OK(cuMemsetD32(a, POISON, N));
        OK(cuGraphLaunch(cx, f->s));
        OK(cuStreamSynchronize(f->s));
        EXPECT(gt_check_fill(a, N, 6) == 0);
        OK(cuGraphExecDestroy(cx));
        OK(cuGraphDestroy(cg));
    }

    /* clones: every node found, attributes kept */
    CUgraph clone;
    OK(cuGraphClone(&clone, g));
    CUgraphNode orig[] = { k1, k2, nset };
    for (int i = 0; i < 3; i++) {
        CUgraphNode m = NULL;
        OK(cuGraphNodeFindInClone(&m, orig[i], clone));
        EXPECT(m != NULL && m != orig[i]);
        CUgraphNodeType t1, t2;
        OK(cuGraphNodeGetType(orig[i], &t1));
        OK(cuGraphNodeGetType(m, &t2));
        EXPECT(t1 == t2);
        if (i == 1) {
            OK(cuGraphKernelNodeGetAttribute(m, CU_KERNEL_NODE_ATTRIBUTE_PRIORITY, &val));
            EXPECT(val.priority == 3);
            size_t nd = 2;
            CUgraphNode dep[2];
            OK(cuGraphNodeGetDependencies(m, dep, NULL, &nd));
            CUgraphNode k1c;
            OK(cuGraphNodeFindInClone(&k1c, k1, clone));
            EXPECT(nd == 1 && dep[0] == k1c);
        }
    }
    CUgraphNode m;
    EXPECT_RC(cuGraphNodeFindInClone(&m, k1, g), CUDA_ERROR_INVALID_VALUE);   /* not a clone */
    EXPECT_RC(cuGraphNodeFindInClone(NULL, k1, clone), CUDA_ERROR_INVALID_VALUE);
    OK(cuGraphDestroy(clone));
    OK(cuGraphDestroy(g));
    OK(cuMemFree(a));
    OK(cuMemFree(other));
}

static size_t count_str(const char *s, const char *what)
{
    size_t k = 0;
    for (const char *p = strstr(s, what); p; p = strstr(p + 1, what))
        k++;
    return k;
}

/* cuGraphDebugDotPrint writes a DOT file naming every node and edge. */
static void check_dot(gt_fixture *f)
{
    CUdeviceptr a;
    OK(cuMemAlloc(&a, N * 4));
    CUgraph g, child;
    OK(cuGraphCreate(&g, 0));
    child = child_of(a, 1, f->ctx, 1);
    unsigned n = N, v = 1;
    void *args[] = { &a, &n, &v };
    CUDA_KERNEL_NODE_PARAMS kp = gt_fill_params(f, args, N);
    CUgraphNode k, e, c;
    OK(cuGraphAddKernelNode(&k, g, NULL, 0, &kp));
    OK(cuGraphAddEmptyNode(&e, g, &k, 1));
    OK(cuGraphAddChildGraphNode(&c, g, &e, 1, child));
    char buf[8192];
    OK(gt_dot(g, CU_GRAPH_DEBUG_DOT_FLAGS_VERBOSE, buf, sizeof buf));
    size_t len = strlen(buf);
    EXPECT(strncmp(buf, "digraph", 7) == 0);
    EXPECT(strstr(buf, "KERNEL") && strstr(buf, "fill") && strstr(buf, "EMPTY") &&
           strstr(buf, "MEMSET") && strstr(buf, "subgraph cluster_"));
    EXPECT(count_str(buf, "label=\"KERNEL") + count_str(buf, "label=\"EMPTY") +
           count_str(buf, "label=\"GRAPH") + count_str(buf, "label=\"MEMSET") == 4);
    EXPECT(count_str(buf, " -> ") == 3);     /* two edges, one into the child */
    EXPECT(len >= 2 && buf[len - 2] == '}');
    EXPECT_RC(cuGraphDebugDotPrint(g, NULL, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuGraphDebugDotPrint(g, "/nonexistent-dir/x.dot", 0) != CUDA_SUCCESS);
    OK(cuGraphDestroy(child));
    OK(cuGraphDestroy(g));
    OK(cuMemFree(a));
}

/* Conditional nodes through the driver API (kernels setting the value:
 * tests/cuda/graphs_conditional.cu): the default value decides, clones
 * keep the node, misuse is refused. */
static void check_conditional(gt_fixture *f)
{
    CUdeviceptr a;
    OK(cuMemAlloc(&a, N * 4));
    for (unsigned dflt = 0; dflt < 2; dflt++) {
        CUgraph g, clone;
        OK(cuGraphCreate(&g, 0));
        CUgraphConditionalHandle h;
        OK(cuGraphConditionalHandleCreate(&h, g, f->ctx, dflt, CU_GRAPH_COND_ASSIGN_DEFAULT));
        CUgraphNodeParams p = gt_if_params(h, f->ctx);
        CUgraphNode nc, body;
        OK(cuGraphAddNode(&nc, g, NULL, NULL, 0, &p));
        EXPECT(p.conditional.phGraph_out != NULL);
        if (!p.conditional.phGraph_out)
            break;
        CUgraphNodeParams m = memset_node(a, 0x61, f->ctx);
        OK(cuGraphAddNode(&body, p.conditional.phGraph_out[0], NULL, NULL, 0, &m));
        CUgraphNodeType t;
        OK(cuGraphNodeGetType(nc, &t));
        EXPECT(t == CU_GRAPH_NODE_TYPE_CONDITIONAL);
        EXPECT_RC(cuGraphNodeSetParams(nc, &p), CUDA_ERROR_INVALID_VALUE);
        char buf[4096];
        OK(gt_dot(g, 0, buf, sizeof buf));
        EXPECT(strstr(buf, "label=\"CONDITIONAL") && strstr(buf, "body 0 of") &&
               strstr(buf, "label=\"MEMSET") && count_str(buf, " -> ") == 1);
        OK(cuGraphClone(&clone, g));
        OK(cuGraphDestroy(g));      /* the clone keeps the handle and the body */
        CUgraphExec x;
        OK(cuGraphInstantiate(&x, clone, 0));
        launch(f, x, &a, 1);
        EXPECT(gt_check_const(a, N, dflt ? 0x61 : POISON) == 0);
        OK(cuGraphExecDestroy(x));
        OK(cuGraphDestroy(clone));
    }
    /* misuse: a host node in a body (CUDA allows kernels, copies, sets,
     * empty, child and conditional nodes there) */
    CUgraph g;
    OK(cuGraphCreate(&g, 0));
    CUgraphConditionalHandle h;
    OK(cuGraphConditionalHandleCreate(&h, g, f->ctx, 1, 0));
    {
        CUgraphNodeParams p = gt_if_params(h, NULL);
        CUgraphNode nc, nh;
        OK(cuGraphAddNode(&nc, g, NULL, NULL, 0, &p));
        CUDA_HOST_NODE_PARAMS hp = { count_run, &host_runs };
        OK(cuGraphAddHostNode(&nh, p.conditional.phGraph_out[0], NULL, 0, &hp));
        CUgraphExec x;
        EXPECT(cuGraphInstantiate(&x, g, 0) != CUDA_SUCCESS);
    }
    OK(cuGraphDestroy(g));
    OK(cuGraphCreate(&g, 0));
    EXPECT_RC(cuGraphConditionalHandleCreate(NULL, g, f->ctx, 0, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(cuGraphConditionalHandleCreate(&h, g, f->ctx, 0, 2), CUDA_ERROR_INVALID_VALUE);
    OK(cuGraphConditionalHandleCreate(&h, g, f->ctx, 0, 0));
    CUgraphNodeParams p;
    memset(&p, 0, sizeof p);
    p.type = CU_GRAPH_NODE_TYPE_CONDITIONAL;
    p.conditional.handle = h;
    p.conditional.type = CU_GRAPH_COND_TYPE_WHILE;
    p.conditional.size = 2;
    CUgraphNode bad;
    EXPECT_RC(cuGraphAddNode(&bad, g, NULL, NULL, 0, &p), CUDA_ERROR_INVALID_VALUE);
    p.conditional.size = 1;
    p.conditional.handle = 12345;
    EXPECT_RC(cuGraphAddNode(&bad, g, NULL, NULL, 0, &p), CUDA_ERROR_INVALID_VALUE);
    p.conditional.handle = h;
    p.conditional.type = (CUgraphConditionalNodeType)9;
    EXPECT_RC(cuGraphAddNode(&bad, g, NULL, NULL, 0, &p), CUDA_ERROR_INVALID_VALUE);
    OK(cuGraphDestroy(g));
    OK(cuMemFree(a));
}

int main(void)
{
    gt_fixture f;
    if (gt_setup(&f))
        return 1;
    check_generic(&f);
    check_generic_mem(&f);
    check_attributes(&f);
    check_dot(&f);
    check_conditional(&f);
    gt_teardown(&f);
    return drv_test_end("drv_graph_api");
}
