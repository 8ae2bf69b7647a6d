/* test_drv_pdl: programmatic dependent launch and other graph odds.
 *
 * Edge data: programmatic edges added with cuGraphAddDependencies_v2 and
 * cuGraphAddNode_v2 read back through cuGraphGetEdges_v2,
 * cuGraphNodeGetDependencies_v2 and cuGraphNodeGetDependentNodes_v2, kept
 * by clones, dropped with their edge or node, CUDA's misuse rules; a graph
 * whose dependent kernel reads what its primary wrote (poisoned output,
 * CPU reference). Capture: edge data given to cuStreamBeginCaptureToGraph
 * and cuStreamUpdateCaptureDependencies_v2, read by
 * cuStreamGetCaptureInfo_v3 and put on the next node; a launch with
 * CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION captured as a
 * programmatic edge, and a stream waiting on a captured programmatic event
 * (both ports); the programmatic and launch-completion events recorded
 * after the grid. Batch memory-op nodes: writes, barrier and waits in graph
 * order, get/set, exec set. Memory nodes in conditional bodies: added, then
 * refused at instantiation.
 */
#include "graph_test.h"

#include <unistd.h>

#define N 1024

/* addone(in, out, n): out[i] = in[i] + 1 */
static const char addone_ptx[] =
    ".version 8.0\n.target sm_90\n.address_size 64\n"   /* griddepcontrol: sm_90 */
    ".visible .entry addone(.param .u64 in, .param .u64 out, .param .u32 n)\n{\n"
    "    .reg .pred %p<2>;\n    .reg .b32 %r<8>;\n    .reg .b64 %rd<8>;\n"
    "    ld.param.u64 %rd1, [in];\n    ld.param.u64 %rd2, [out];\n"
    "    ld.param.u32 %r1, [n];\n    mov.u32 %r3, %ctaid.x;\n    mov.u32 %r4, %ntid.x;\n"
    "    mov.u32 %r5, %tid.x;\n    mad.lo.s32 %r6, %r3, %r4, %r5;\n"
    "    setp.ge.s32 %p1, %r6, %r1;\n    @%p1 bra DONE;\n"
    "    griddepcontrol.wait;\n"
    "    mul.wide.s32 %rd3, %r6, 4;\n    add.s64 %rd4, %rd1, %rd3;\n"
    "    add.s64 %rd5, %rd2, %rd3;\n    ld.global.u32 %r7, [%rd4];\n"
    "    add.s32 %r7, %r7, 1;\n    st.global.u32 [%rd5], %r7;\nDONE:\n    ret;\n}\n";

static const CUgraphEdgeData PROG = { .from_port = CU_GRAPH_KERNEL_NODE_PORT_PROGRAMMATIC,
                                      .type = CU_GRAPH_DEPENDENCY_TYPE_PROGRAMMATIC };

static int edge_is(const CUgraphEdgeData *e, unsigned from_port, unsigned type)
{
    return e->from_port == from_port && e->to_port == 0 && e->type == type;
}

static gt_fixture f;
static CUfunction addone;
static CUdeviceptr a, b;
static unsigned n = N, v = 5;
static void *fill_args[] = { &a, &n, &v };
static void *add_args[] = { &a, &b, &n };

/* Runs g once on f.s, b's words set to poison before. */
static void run_graph(CUgraph g, uint32_t poison)
{
    OK(cuMemsetD32(b, poison, N));
    CUgraphExec x;
    OK(cuGraphInstantiate(&x, g, 0));
    OK(cuGraphLaunch(x, f.s));
    OK(cuStreamSynchronize(f.s));
    OK(cuGraphExecDestroy(x));
}

/* A launch over N words (64-thread blocks) on f.s with the one attribute at. */
static CUlaunchConfig fill_config(CUlaunchAttribute *at)
{
    CUlaunchConfig cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.gridDimX = N / 64;
    cfg.gridDimY = cfg.gridDimZ = 1;
    cfg.blockDimX = 64;
    cfg.blockDimY = cfg.blockDimZ = 1;
    cfg.hStream = f.s;
    cfg.attrs = at;
    cfg.numAttrs = 1;
    return cfg;
}

static CUDA_KERNEL_NODE_PARAMS add_params(void)
{
    CUDA_KERNEL_NODE_PARAMS p = gt_fill_params(&f, add_args, N);
    p.func = addone;
    return p;
}

static void edges_explicit(void)
{
    CUgraph g;
    OK(cuGraphCreate(&g, 0));
    CUDA_KERNEL_NODE_PARAMS pf = gt_fill_params(&f, fill_args, N), pa = add_params();
    CUgraphNode k1, k2, e;
    OK(cuGraphAddKernelNode(&k1, g, NULL, 0, &pf));
    OK(cuGraphAddKernelNode(&k2, g, NULL, 0, &pa));
    OK(cuGraphAddEmptyNode(&e, g, NULL, 0));

    /* misuse: to_port, reserved bytes, a programmatic edge without a port
     * or to a non-kernel node, a port on a non-kernel node, unknown type */
    CUgraphEdgeData bad = PROG;
    bad.to_port = 1;
    EXPECT_RC(cuGraphAddDependencies(g, &k1, &k2, &bad, 1), CUDA_ERROR_INVALID_VALUE);
    bad = PROG;
    bad.reserved[2] = 1;
    EXPECT_RC(cuGraphAddDependencies(g, &k1, &k2, &bad, 1), CUDA_ERROR_INVALID_VALUE);
    bad = PROG;
    bad.from_port = 0;
    EXPECT_RC(cuGraphAddDependencies(g, &k1, &k2, &bad, 1), CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(cuGraphAddDependencies(g, &k1, &e, &PROG, 1), CUDA_ERROR_INVALID_VALUE);
    bad = (CUgraphEdgeData){ .from_port = CU_GRAPH_KERNEL_NODE_PORT_LAUNCH_ORDER };
    EXPECT_RC(cuGraphAddDependencies(g, &e, &k2, &bad, 1), CUDA_ERROR_INVALID_VALUE);
    bad = (CUgraphEdgeData){ .type = 2 };
    EXPECT_RC(cuGraphAddDependencies(g, &k1, &k2, &bad, 1), CUDA_ERROR_INVALID_VALUE);
    size_t ne = 99;
    OK(cuGraphGetEdges(g, NULL, NULL, NULL, &ne));
    EXPECT(ne == 0);                            /* nothing was added */

    /* k1 -> k2 programmatic, k2 -> e plain */
    OK(cuGraphAddDependencies(g, &k1, &k2, &PROG, 1));
    OK(cuGraphAddDependencies(g, &k2, &e, NULL, 1));
    CUgraphNode from[3], to[3];
    CUgraphEdgeData ed[3];
    memset(ed, 0x77, sizeof ed);
    ne = 3;
    OK(cuGraphGetEdges(g, from, to, ed, &ne));
    EXPECT(ne == 2);
    for (size_t i = 0; i < 2; i++) {
        if (from[i] == k1)
            EXPECT(to[i] == k2 && edge_is(&ed[i], 1, 1));
        else
            EXPECT(from[i] == k2 && to[i] == e && edge_is(&ed[i], 0, 0));
    }
    EXPECT(from[2] == NULL && edge_is(&ed[2], 0, 0));   /* the rest cleared */
    CUgraphNode d[2];
    CUgraphEdgeData de[2];
    size_t nd = 2;
    memset(de, 0x77, sizeof de);
    OK(cuGraphNodeGetDependencies(k2, d, de, &nd));
    EXPECT(nd == 1 && d[0] == k1 && edge_is(&de[0], 1, 1));
    nd = 2;
    memset(de, 0x77, sizeof de);
    OK(cuGraphNodeGetDependentNodes(k1, d, de, &nd));
    EXPECT(nd == 1 && d[0] == k2 && edge_is(&de[0], 1, 1));

    /* a new kernel node with a launch-order edge from k1 */
    CUgraphNodeParams np;
    memset(&np, 0, sizeof np);
    np.type = CU_GRAPH_NODE_TYPE_KERNEL;
    np.kernel.func = f.fill;
    np.kernel.gridDimX = N / 64;
    np.kernel.gridDimY = np.kernel.gridDimZ = 1;
    np.kernel.blockDimX = 64;
    np.kernel.blockDimY = np.kernel.blockDimZ = 1;
    np.kernel.kernelParams = fill_args;
    CUgraphEdgeData lo = { .from_port = CU_GRAPH_KERNEL_NODE_PORT_LAUNCH_ORDER,
                           .type = CU_GRAPH_DEPENDENCY_TYPE_PROGRAMMATIC };
    CUgraphNode k3, e2;
    OK(cuGraphAddNode(&k3, g, &k1, &lo, 1, &np));
    nd = 1;
    OK(cuGraphNodeGetDependencies(k3, d, de, &nd));
    EXPECT(nd == 1 && d[0] == k1 && edge_is(&de[0], 2, 1));
    CUgraphNodeParams ep;
    memset(&ep, 0, sizeof ep);
    ep.type = CU_GRAPH_NODE_TYPE_EMPTY;
    EXPECT_RC(cuGraphAddNode(&e2, g, &k1, &PROG, 1, &ep), CUDA_ERROR_INVALID_VALUE);

    /* the DOT file labels the two edges with data */
    char buf[4096];
    OK(gt_dot(g, 0, buf, sizeof buf));
    EXPECT(buf[0] != 0);
    EXPECT(strstr(buf, "[label=\"type 1 port 1\"]") &&
           strstr(buf, "[label=\"type 1 port 2\"]"));

    /* a clone keeps the data */
    CUgraph c;
    OK(cuGraphClone(&c, g));
    CUgraphNode ck2;
    OK(cuGraphNodeFindInClone(&ck2, k2, c));
    nd = 1;
    memset(de, 0, sizeof de);
    OK(cuGraphNodeGetDependencies(ck2, d, de, &nd));
    EXPECT(nd == 1 && edge_is(&de[0], 1, 1));
    OK(cuGraphDestroy(c));

    /* run: the dependent reads what the primary wrote */
    run_graph(g, 0xdeadbeef);
    EXPECT(gt_check_fill(b, N, v + 1) == 0);

    /* removal must name the edge's data; the record goes with the edge */
    EXPECT_RC(cuGraphRemoveDependencies(g, &k1, &k2, NULL, 1), CUDA_ERROR_INVALID_VALUE);
    OK(cuGraphRemoveDependencies(g, &k1, &k2, &PROG, 1));
    OK(cuGraphAddDependencies(g, &k1, &k2, NULL, 1));
    nd = 1;
    memset(de, 0x77, sizeof de);
    OK(cuGraphNodeGetDependencies(k2, d, de, &nd));
    EXPECT(nd == 1 && edge_is(&de[0], 0, 0));
    OK(cuGraphDestroyNode(k3));
    ne = 9;
    OK(cuGraphGetEdges(g, NULL, NULL, NULL, &ne));
    EXPECT(ne == 2);
    OK(cuGraphDestroy(g));
}

static void edges_captured(void)
{
    CUgraph g;
    OK(cuGraphCreate(&g, 0));
    CUDA_KERNEL_NODE_PARAMS pf = gt_fill_params(&f, fill_args, N);
    CUgraphNode k1;
    OK(cuGraphAddKernelNode(&k1, g, NULL, 0, &pf));
    OK(cuStreamBeginCaptureToGraph(f.s, g, &k1, &PROG, 1, CU_STREAM_CAPTURE_MODE_GLOBAL));
    CUstreamCaptureStatus st;
    const CUgraphNode *deps = NULL;
    const CUgraphEdgeData *eds = NULL;
    size_t nd = 0;
    OK(cuStreamGetCaptureInfo(f.s, &st, NULL, NULL, &deps, &eds, &nd));
    EXPECT(st == CU_STREAM_CAPTURE_STATUS_ACTIVE && nd == 1 && deps && deps[0] == k1 && eds &&
           edge_is(&eds[0], 1, 1));
    /* the data cannot be left out of the answer */
    EXPECT_RC(cuStreamGetCaptureInfo(f.s, &st, NULL, NULL, &deps, NULL, &nd),
              CUDA_ERROR_LOSSY_QUERY);
    EXPECT_RC(cuStreamGetCaptureInfo(f.s, &st, NULL, NULL, NULL, &eds, &nd),
              CUDA_ERROR_INVALID_VALUE);
    OK(cuLaunchKernel(addone, N / 64, 1, 1, 64, 1, 1, 0, f.s, add_args, NULL));
    OK(cuStreamGetCaptureInfo(f.s, &st, NULL, NULL, &deps, &eds, &nd));
    EXPECT(nd == 1 && edge_is(&eds[0], 0, 0));
    CUgraphNode k2 = nd ? deps[0] : NULL;

    /* cuLaunchKernelEx with programmatic stream serialization */
    CUlaunchAttribute at;
    memset(&at, 0, sizeof at);
    at.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
    at.value.programmaticStreamSerializationAllowed = 1;
    CUlaunchConfig cfg = fill_config(&at);
    OK(cuLaunchKernelEx(&cfg, f.fill, fill_args, NULL));
    OK(cuStreamGetCaptureInfo(f.s, &st, NULL, NULL, &deps, &eds, &nd));
    CUgraphNode k3 = nd ? deps[0] : NULL;

    /* update with data: the next node gets a launch-order edge from k1 */
    CUgraphEdgeData lo = { .from_port = CU_GRAPH_KERNEL_NODE_PORT_LAUNCH_ORDER };
    CUgraphEdgeData bad = { .to_port = 1 };
    EXPECT_RC(cuStreamUpdateCaptureDependencies(f.s, &k1, &bad, 1,
                                                CU_STREAM_ADD_CAPTURE_DEPENDENCIES),
              CUDA_ERROR_INVALID_VALUE);
    OK(cuStreamUpdateCaptureDependencies(f.s, &k1, &lo, 1, CU_STREAM_ADD_CAPTURE_DEPENDENCIES));
    OK(cuMemsetD32Async(b + 4 * N - 4, 7, 1, f.s));
    CUgraph out;
    OK(cuStreamEndCapture(f.s, &out));
    EXPECT(out == g);

    CUgraphNode d[2];
    CUgraphEdgeData de[2];
    size_t k = 2;
    OK(cuGraphNodeGetDependencies(k2, d, de, &k));
    EXPECT(k == 1 && d[0] == k1 && edge_is(&de[0], 1, 1));
    k = 2;
    OK(cuGraphNodeGetDependencies(k3, d, de, &k));
    EXPECT(k == 1 && d[0] == k2 && edge_is(&de[0], 1, 1));
    CUgraphNode set = NULL;
    OK(cuGraphNodeGetDependentNodes(k1, NULL, NULL, &k));
    EXPECT(k == 2);
    k = 2;
    OK(cuGraphNodeGetDependentNodes(k1, d, de, &k));
    for (size_t i = 0; i < k; i++)
        if (d[i] != k2) {
            set = d[i];
            EXPECT(edge_is(&de[i], 2, 0));
        }
    EXPECT(set != NULL);
    run_graph(g, 0xdeadbeef);
    EXPECT(gt_check_fill(b, N - 1, v + 1) == 0);
    EXPECT(gt_check_const(b + 4 * N - 4, 1, 7) == 0);
    OK(cuGraphDestroy(g));
}

/* A programmatic event recorded in a capture: a stream that waits on it
 * joins with a programmatic edge (the launch-order port when the event
 * triggers at block start), and the graph still runs the dependent after
 * its primary. */
static void event_captured(void)
{
    for (int at_start = 0; at_start < 2; at_start++) {
        CUstream s2;
        CUevent ev, back;
        OK(cuStreamCreate(&s2, CU_STREAM_NON_BLOCKING));
        OK(cuEventCreate(&ev, CU_EVENT_DISABLE_TIMING));
        OK(cuEventCreate(&back, CU_EVENT_DISABLE_TIMING));
        CUlaunchAttribute at;
        memset(&at, 0, sizeof at);
        at.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_EVENT;
        at.value.programmaticEvent.event = ev;
        at.value.programmaticEvent.triggerAtBlockStart = at_start;
        CUlaunchConfig cfg = fill_config(&at);
        OK(cuStreamBeginCapture(f.s, CU_STREAM_CAPTURE_MODE_GLOBAL));
        OK(cuLaunchKernelEx(&cfg, f.fill, fill_args, NULL));
        OK(cuStreamWaitEvent(s2, ev, 0));
        OK(cuLaunchKernel(addone, N / 64, 1, 1, 64, 1, 1, 0, s2, add_args, NULL));
        OK(cuEventRecord(back, s2));
        OK(cuStreamWaitEvent(f.s, back, 0));
        CUgraph g = NULL;
        OK(cuStreamEndCapture(f.s, &g));
        CUgraphNode from[2], to[2];
        CUgraphEdgeData ed[2];
        size_t ne = 2;
        if (g)
            OK(cuGraphGetEdges(g, from, to, ed, &ne));
        EXPECT(g && ne == 1 && edge_is(&ed[0], 1u + (unsigned)at_start, 1));
        if (g) {
            run_graph(g, 0xdeadbeef);
            EXPECT(gt_check_fill(b, N, v + 1) == 0);
            OK(cuGraphDestroy(g));
        }
        OK(cuEventDestroy(ev));
        OK(cuEventDestroy(back));
        OK(cuStreamDestroy(s2));
    }
}

/* The events of the programmatic-event and launch-completion attributes
 * are recorded once the grid is done: a wait on them sees every word. */
static void launch_events(void)
{
    for (int which = 0; which < 2; which++) {
        CUevent ev;
        OK(cuEventCreate(&ev, CU_EVENT_DISABLE_TIMING));
        CUlaunchAttribute at;
        memset(&at, 0, sizeof at);
        at.id = which ? CU_LAUNCH_ATTRIBUTE_LAUNCH_COMPLETION_EVENT
                      : CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_EVENT;
        if (which)
            at.value.launchCompletionEvent.event = ev;
        else
            at.value.programmaticEvent.event = ev;
        CUlaunchConfig cfg = fill_config(&at);
        OK(cuMemsetD32(a, 0, N));
        unsigned w = 20 + which;
        void *args[] = { &a, &n, &w };
        OK(cuLaunchKernelEx(&cfg, f.fill, args, NULL));
        OK(cuEventSynchronize(ev));
        uint32_t h[N];
        OK(cuMemcpyDtoH(h, a, sizeof h));   /* the host: no stream order */
        unsigned badw = 0;
        for (unsigned i = 0; i < N; i++)
            badw += h[i] != i * 3 + w;
        EXPECT(badw == 0);
        OK(cuEventDestroy(ev));
    }
}

static CUstreamBatchMemOpParams write_op(int op, CUdeviceptr addr, uint64_t val)
{
    CUstreamBatchMemOpParams o;
    memset(&o, 0, sizeof o);
    o.operation = op;
    o.writeValue.address = addr;
    o.writeValue.value64 = val;
    return o;
}

static void batch_nodes(void)
{
    CUdeviceptr w;
    OK(cuMemAlloc(&w, 64));
    OK(cuMemsetD32(w, 0, 16));
    CUstreamBatchMemOpParams ops[4];
    ops[0] = write_op(CU_STREAM_MEM_OP_WRITE_VALUE_32, w, 7);
    memset(&ops[1], 0, sizeof ops[1]);
    ops[1].operation = CU_STREAM_MEM_OP_BARRIER;
    ops[2] = write_op(CU_STREAM_MEM_OP_WRITE_VALUE_64, w + 8, 0x1122334455667788ull);
    memset(&ops[3], 0, sizeof ops[3]);
    ops[3].operation = CU_STREAM_MEM_OP_WAIT_VALUE_32;     /* already true: 7 >= 7 */
    ops[3].waitValue.address = w;
    ops[3].waitValue.value = 7;
    ops[3].waitValue.flags = CU_STREAM_WAIT_VALUE_GEQ;
    CUDA_BATCH_MEM_OP_NODE_PARAMS p = { f.ctx, 4, ops, 0 };

    CUgraph g;
    OK(cuGraphCreate(&g, 0));
    CUgraphNode nb, nb2, bad;
    OK(cuGraphAddBatchMemOpNode(&nb, g, NULL, 0, &p));
    CUDA_BATCH_MEM_OP_NODE_PARAMS q = p;
    q.count = 0;                /* no operations: a node that does nothing (NVIDIA) */
    q.paramArray = NULL;
    OK(cuGraphAddBatchMemOpNode(&bad, g, NULL, 0, &q));
    OK(cuGraphDestroyNode(bad));
    q = p;
    q.ctx = NULL;
    EXPECT_RC(cuGraphAddBatchMemOpNode(&bad, g, NULL, 0, &q), CUDA_ERROR_INVALID_VALUE);
    q = p;
    q.flags = 1;
    EXPECT_RC(cuGraphAddBatchMemOpNode(&bad, g, NULL, 0, &q), CUDA_ERROR_INVALID_VALUE);
    CUstreamBatchMemOpParams mis = write_op(CU_STREAM_MEM_OP_WRITE_VALUE_32, w + 2, 1);
    q = (CUDA_BATCH_MEM_OP_NODE_PARAMS){ f.ctx, 1, &mis, 0 };
    EXPECT_RC(cuGraphAddBatchMemOpNode(&bad, g, NULL, 0, &q), CUDA_ERROR_INVALID_VALUE);

    /* through cuGraphAddNode, after the first: writes 9 to w[1] */
    CUstreamBatchMemOpParams op2 = write_op(CU_STREAM_MEM_OP_WRITE_VALUE_32, w + 4, 9);
    CUgraphNodeParams np;
    memset(&np, 0, sizeof np);
    np.type = CU_GRAPH_NODE_TYPE_BATCH_MEM_OP;
    np.memOp.ctx = f.ctx;
    np.memOp.count = 1;
    np.memOp.paramArray = &op2;
    OK(cuGraphAddNode(&nb2, g, &nb, NULL, 1, &np));
    CUgraphNodeType t;
    OK(cuGraphNodeGetType(nb2, &t));
    EXPECT(t == CU_GRAPH_NODE_TYPE_BATCH_MEM_OP);

    CUDA_BATCH_MEM_OP_NODE_PARAMS got;
    memset(&got, 0, sizeof got);
    OK(cuGraphBatchMemOpNodeGetParams(nb, &got));
    EXPECT(got.ctx == f.ctx && got.count == 4 && got.flags == 0 && got.paramArray &&
           got.paramArray[2].writeValue.value64 == 0x1122334455667788ull);

    /* a clone has its own copy of the operations */
    CUgraph c;
    CUgraphNode cb;
    OK(cuGraphClone(&c, g));
    OK(cuGraphNodeFindInClone(&cb, nb, c));
    memset(&got, 0, sizeof got);
    OK(cuGraphBatchMemOpNodeGetParams(cb, &got));
    EXPECT(got.count == 4 && got.paramArray && got.paramArray != ops &&
           got.paramArray[0].writeValue.value == 7);
    OK(cuGraphDestroy(c));

    CUgraphExec x;
    OK(cuGraphInstantiate(&x, g, 0));
    OK(cuGraphLaunch(x, f.s));
    OK(cuStreamSynchronize(f.s));
    uint32_t h[4];
    OK(cuMemcpyDtoH(h, w, sizeof h));
    EXPECT(h[0] == 7 && h[1] == 9 && h[2] == 0x55667788u && h[3] == 0x11223344u);

    /* the node's parameters: the next instantiation writes 8 */
    ops[0].writeValue.value = 8;
    ops[3].waitValue.value = 8;
    OK(cuGraphBatchMemOpNodeSetParams(nb, &p));
    /* the exec: same count and kinds, new values (12 to w[1]) */
    op2.writeValue.value = 12;
    CUDA_BATCH_MEM_OP_NODE_PARAMS one = { f.ctx, 1, &op2, 0 };
    OK(cuGraphExecBatchMemOpNodeSetParams(x, nb2, &one));
    CUDA_BATCH_MEM_OP_NODE_PARAMS two = { f.ctx, 2, ops, 0 };
    EXPECT_RC(cuGraphExecBatchMemOpNodeSetParams(x, nb, &two), CUDA_ERROR_INVALID_VALUE);
    OK(cuMemsetD32(w, 0, 4));
    OK(cuGraphLaunch(x, f.s));
    OK(cuStreamSynchronize(f.s));
    OK(cuMemcpyDtoH(h, w, sizeof h));
    EXPECT(h[0] == 7 && h[1] == 12);
    OK(cuGraphExecDestroy(x));
    OK(cuMemsetD32(w, 0, 4));
    OK(cuGraphInstantiate(&x, g, 0));
    OK(cuGraphLaunch(x, f.s));
    OK(cuStreamSynchronize(f.s));
    OK(cuMemcpyDtoH(h, w, sizeof h));
    EXPECT(h[0] == 8 && h[1] == 9);     /* the exec's change was the exec's only */
    OK(cuGraphExecDestroy(x));
    OK(cuGraphDestroy(g));

    /* captured stream memory operations become batch memory-op nodes */
    OK(cuStreamBeginCapture(f.s, CU_STREAM_CAPTURE_MODE_GLOBAL));
    OK(cuStreamWriteValue32(f.s, w + 12, 0x5151, 0));
    OK(cuStreamWaitValue32(f.s, w + 12, 0x5151, CU_STREAM_WAIT_VALUE_EQ));
    OK(cuStreamEndCapture(f.s, &g));
    CUgraphNode cn[2];
    size_t nn = 2;
    OK(cuGraphGetNodes(g, cn, &nn));
    EXPECT(nn == 2);
    for (size_t i = 0; i < nn && i < 2; i++) {
        OK(cuGraphNodeGetType(cn[i], &t));
        EXPECT(t == CU_GRAPH_NODE_TYPE_BATCH_MEM_OP);
        memset(&got, 0, sizeof got);
        OK(cuGraphBatchMemOpNodeGetParams(cn[i], &got));
        EXPECT(got.count == 1 && got.paramArray &&
               got.paramArray[0].writeValue.address == w + 12);
    }
    OK(cuMemsetD32(w, 0, 4));
    OK(cuGraphInstantiate(&x, g, 0));
    OK(cuGraphLaunch(x, f.s));
    OK(cuStreamSynchronize(f.s));
    OK(cuMemcpyDtoH(h, w, sizeof h));
    EXPECT(h[3] == 0x5151);
    OK(cuGraphExecDestroy(x));
    OK(cuGraphDestroy(g));
    OK(cuMemFree(w));
}

static CUDA_MEM_ALLOC_NODE_PARAMS alloc_params(size_t bytes)
{
    CUDA_MEM_ALLOC_NODE_PARAMS p;
    memset(&p, 0, sizeof p);
    p.poolProps.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
    p.poolProps.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    p.bytesize = bytes;
    return p;
}

/* a graph with an IF node whose body is returned in *body */
static CUgraph if_graph(CUgraph *body)
{
    CUgraph g;
    OK(cuGraphCreate(&g, 0));
    CUgraphConditionalHandle h;
    OK(cuGraphConditionalHandleCreate(&h, g, f.ctx, 1, CU_GRAPH_COND_ASSIGN_DEFAULT));
    CUgraphNodeParams p = gt_if_params(h, f.ctx);
    CUgraphNode nc;
    OK(cuGraphAddNode(&nc, g, NULL, NULL, 0, &p));
    EXPECT(p.conditional.phGraph_out != NULL);
    *body = p.conditional.phGraph_out ? p.conditional.phGraph_out[0] : NULL;
    return g;
}

/* g cannot be instantiated: INVALID_VALUE, as on an H200 */
static void refused(CUgraph g, const char *why)
{
    CUgraphExec x = NULL;
    CUresult r = cuGraphInstantiateWithFlags(&x, g, 0);
    if (r != CUDA_ERROR_INVALID_VALUE)
        fprintf(stderr, "FAIL %s: instantiate -> %d, want INVALID_VALUE\n", why, (int)r);
    EXPECT_RC(r, CUDA_ERROR_INVALID_VALUE);
    if (r == CUDA_SUCCESS)
        OK(cuGraphExecDestroy(x));
    OK(cuGraphDestroy(g));
}

/* CUDA: a conditional body holds kernel, empty, child, memset, memcpy and
 * conditional nodes only. NVIDIA's driver (H200) accepts memory nodes added
 * there and refuses the graph at cuGraphInstantiate (INVALID_VALUE). */
static void cond_body_memory(void)
{
    CUgraph body, g = if_graph(&body);
    if (!body)
        return;
    CUDA_MEM_ALLOC_NODE_PARAMS ap = alloc_params(4096);
    CUgraphNode na, nchild;
    OK(cuGraphAddMemAllocNode(&na, body, NULL, 0, &ap));
    EXPECT(ap.dptr != 0);
    refused(g, "an alloc node in the body");

    /* a free node of another graph's allocation */
    CUgraph inner;
    OK(cuGraphCreate(&inner, 0));
    ap = alloc_params(4096);
    OK(cuGraphAddMemAllocNode(&na, inner, NULL, 0, &ap));
    g = if_graph(&body);
    CUgraphNodeParams fp;
    memset(&fp, 0, sizeof fp);
    fp.type = CU_GRAPH_NODE_TYPE_MEM_FREE;
    fp.free.dptr = ap.dptr;
    OK(cuGraphAddNode(&na, body, NULL, NULL, 0, &fp));
    refused(g, "a free node in the body");

    /* a graph with an alloc node moved in as a child */
    g = if_graph(&body);
    CUgraphNodeParams cp;
    memset(&cp, 0, sizeof cp);
    cp.type = CU_GRAPH_NODE_TYPE_GRAPH;
    cp.graph.graph = inner;
    cp.graph.ownership = CU_GRAPH_CHILD_GRAPH_OWNERSHIP_MOVE;
    OK(cuGraphAddNode(&nchild, body, NULL, NULL, 0, &cp));   /* inner is the node's now */
    refused(g, "a child with an alloc node in the body");

    /* an alloc node in the graph of a child of the body */
    g = if_graph(&body);
    CUgraph empty, own;
    OK(cuGraphCreate(&empty, 0));
    OK(cuGraphAddChildGraphNode(&nchild, body, NULL, 0, empty));
    OK(cuGraphDestroy(empty));
    OK(cuGraphChildGraphNodeGetGraph(nchild, &own));
    ap = alloc_params(4096);
    OK(cuGraphAddMemAllocNode(&na, own, NULL, 0, &ap));
    refused(g, "an alloc node in a child of the body");

    /* the allowed kinds go in, and the graph runs */
    g = if_graph(&body);
    CUDA_MEMSET_NODE_PARAMS ms = gt_set_params(b, 0x33, N);
    CUgraphNode ns;
    OK(cuGraphAddMemsetNode(&ns, body, NULL, 0, &ms, f.ctx));
    run_graph(g, 0);
    EXPECT(gt_check_const(b, N, 0x33) == 0);
    OK(cuGraphDestroy(g));
}

int main(void)
{
    if (gt_setup(&f) != 0)
        return drv_test_end("drv_pdl");
    CUmodule m;
    OK(cuModuleLoadData(&m, addone_ptx));
    OK(cuModuleGetFunction(&addone, m, "addone"));
    OK(cuMemAlloc(&a, N * 4));
    OK(cuMemAlloc(&b, N * 4));
    edges_explicit();
    edges_captured();
    event_captured();
    launch_events();
    batch_nodes();
    cond_body_memory();
    OK(cuMemFree(a));
    OK(cuMemFree(b));
    OK(cuModuleUnload(m));
    gt_teardown(&f);
    return drv_test_end("drv_pdl");
}
