/* test_drv_graph_nodes.c: the per-kind node parameter calls of explicit
 * graphs, their executable-graph forms, edges and structure queries,
 * enabling nodes and the failure results of cuGraphExecUpdate.
 *
 * Every change is checked by what the next launch does: device buffers are
 * poisoned first and compared with constants or with i * 3 + v computed
 * here (the fill kernel of graph_test.h); host nodes count their runs in
 * the counter their userData names.
 */
#include "graph_test.h"

#include <stdlib.h>

enum { N = 1000, POISON = 0xdeadbeef };

static int counters[4];

static void CUDA_CB count_run(void *p)
{
    (*(int *)p)++;
}

static void poison(CUdeviceptr d, unsigned n)
{
    OK(cuMemsetD32(d, POISON, n));
}

/* memset -> memcpy -> host -> event record: get/set on the graph, then
 * the exec forms; each launch checked. */
static void check_params(gt_fixture *f)
{
    CUdeviceptr a, b, c, d;
    OK(cuMemAlloc(&a, N * 4));
    OK(cuMemAlloc(&b, N * 4));
    OK(cuMemAlloc(&c, N * 4));
    OK(cuMemAlloc(&d, N * 4));
    CUevent e0, e1, e2, e3;
    OK(cuEventCreate(&e0, 0));
    OK(cuEventCreate(&e1, 0));
    OK(cuEventCreate(&e2, 0));
    OK(cuEventCreate(&e3, 0));
    OK(cuEventRecord(e0, f->s));

    CUgraph g;
    OK(cuGraphCreate(&g, 0));
    CUgraphNode nset, ncopy, nhost, nrec;
    CUDA_MEMSET_NODE_PARAMS mp = gt_set_params(a, 0x11111111, N);
    OK(cuGraphAddMemsetNode(&nset, g, NULL, 0, &mp, f->ctx));
    CUDA_MEMCPY3D cp = gt_copy_params(b, a, N * 4);
    OK(cuGraphAddMemcpyNode(&ncopy, g, &nset, 1, &cp, f->ctx));
    CUDA_HOST_NODE_PARAMS hp = { count_run, &counters[0] };
    OK(cuGraphAddHostNode(&nhost, g, &ncopy, 1, &hp));
    OK(cuGraphAddEventRecordNode(&nrec, g, &nhost, 1, e1));

    /* get returns what was given */
    CUDA_MEMSET_NODE_PARAMS mq;
    memset(&mq, 0xff, sizeof mq);
    OK(cuGraphMemsetNodeGetParams(nset, &mq));
    EXPECT(mq.dst == a && mq.value == 0x11111111 && mq.elementSize == 4 && mq.width == N &&
           mq.height == 1);
    CUDA_MEMCPY3D cq;
    memset(&cq, 0xff, sizeof cq);
    OK(cuGraphMemcpyNodeGetParams(ncopy, &cq));
    EXPECT(cq.srcDevice == a && cq.dstDevice == b && cq.WidthInBytes == N * 4 &&
           cq.srcMemoryType == CU_MEMORYTYPE_DEVICE && cq.Height == 1 && cq.Depth == 1);
    CUDA_HOST_NODE_PARAMS hq = { NULL, NULL };
    OK(cuGraphHostNodeGetParams(nhost, &hq));
    EXPECT(hq.fn == count_run && hq.userData == &counters[0]);
    CUevent ev = NULL;
    OK(cuGraphEventRecordNodeGetEvent(nrec, &ev));
    EXPECT(ev == e1);

    /* set: value 0x22, copy into c, count into counters[1], record e2 */
    mp.value = 0x22222222;
    OK(cuGraphMemsetNodeSetParams(nset, &mp));
    cp = gt_copy_params(c, a, N * 4);
    OK(cuGraphMemcpyNodeSetParams(ncopy, &cp));
    hp.userData = &counters[1];
    OK(cuGraphHostNodeSetParams(nhost, &hp));
    OK(cuGraphEventRecordNodeSetEvent(nrec, e2));
    OK(cuGraphMemcpyNodeGetParams(ncopy, &cq));
    EXPECT(cq.dstDevice == c);
    OK(cuGraphEventRecordNodeGetEvent(nrec, &ev));
    EXPECT(ev == e2);
    OK(cuGraphHostNodeGetParams(nhost, &hq));
    EXPECT(hq.userData == &counters[1]);

    /* misuse: the wrong node kind, NULL parameters, a dead event */
    EXPECT_RC(cuGraphMemsetNodeSetParams(ncopy, &mp), CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(cuGraphMemcpyNodeSetParams(nset, &cp), CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(cuGraphMemcpyNodeGetParams(ncopy, NULL), CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(cuGraphHostNodeSetParams(nset, &hp), CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(cuGraphEventWaitNodeGetEvent(nrec, &ev), CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(cuGraphEventRecordNodeSetEvent(nset, e1), CUDA_ERROR_INVALID_VALUE);
    CUDA_HOST_NODE_PARAMS hnull = { NULL, NULL };
    EXPECT_RC(cuGraphHostNodeSetParams(nhost, &hnull), CUDA_ERROR_INVALID_VALUE);

    poison(b, N);
    poison(c, N);
    CUgraphExec x;
    OK(cuGraphInstantiate(&x, g, 0));
    OK(cuGraphLaunch(x, f->s));
    OK(cuStreamSynchronize(f->s));
    EXPECT(gt_check_const(c, N, 0x22222222) == 0);
    EXPECT(gt_check_const(b, N, POISON) == 0);     /* the old copy target */
    EXPECT(counters[0] == 0 && counters[1] == 1);
    float ms = -1;
    OK(cuEventElapsedTime(&ms, e0, e2));            /* e2 was recorded */
    EXPECT(ms >= 0);
    EXPECT_RC(cuEventElapsedTime(&ms, e0, e1), CUDA_ERROR_INVALID_HANDLE); /* e1 never */

    /* the exec forms: value 0x33 into d, counters[2], record e3; the graph
     * keeps its own parameters */
    CUDA_MEMSET_NODE_PARAMS mx = gt_set_params(a, 0x33333333, N);
    OK(cuGraphExecMemsetNodeSetParams(x, nset, &mx, f->ctx));
    CUDA_MEMCPY3D cx = gt_copy_params(d, a, N * 4);
    OK(cuGraphExecMemcpyNodeSetParams(x, ncopy, &cx, f->ctx));
    CUDA_HOST_NODE_PARAMS hx = { count_run, &counters[2] };
    OK(cuGraphExecHostNodeSetParams(x, nhost, &hx));
    OK(cuGraphExecEventRecordNodeSetEvent(x, nrec, e3));
    EXPECT_RC(cuGraphExecEventWaitNodeSetEvent(x, nrec, e3), CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(cuGraphExecMemsetNodeSetParams(x, ncopy, &mx, f->ctx), CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(cuGraphExecMemcpyNodeSetParams(x, nset, &cx, f->ctx), CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(cuGraphExecHostNodeSetParams(x, nset, &hx), CUDA_ERROR_INVALID_VALUE);
    poison(c, N);
    poison(d, N);
    OK(cuGraphLaunch(x, f->s));
    OK(cuStreamSynchronize(f->s));
    EXPECT(gt_check_const(d, N, 0x33333333) == 0);
    EXPECT(gt_check_const(c, N, POISON) == 0);
    EXPECT(counters[1] == 1 && counters[2] == 1);
    OK(cuEventElapsedTime(&ms, e0, e3));
    OK(cuGraphMemsetNodeGetParams(nset, &mq));
    EXPECT(mq.value == 0x22222222);
    OK(cuGraphMemcpyNodeGetParams(ncopy, &cq));
    EXPECT(cq.dstDevice == c);

    /* a node that is not in the executable graph */
    CUgraph g2;
    CUgraphNode other;
    OK(cuGraphCreate(&g2, 0));
    OK(cuGraphAddMemsetNode(&other, g2, NULL, 0, &mx, f->ctx));
    EXPECT_RC(cuGraphExecMemsetNodeSetParams(x, other, &mx, f->ctx), CUDA_ERROR_INVALID_VALUE);
    OK(cuGraphDestroy(g2));

    OK(cuGraphExecDestroy(x));
    OK(cuGraphDestroy(g));
    CUevent evs[] = { e0, e1, e2, e3 };
    for (int i = 0; i < 4; i++)
        OK(cuEventDestroy(evs[i]));
    CUdeviceptr bufs[] = { a, b, c, d };
    for (int i = 0; i < 4; i++)
        OK(cuMemFree(bufs[i]));
}

/* Event wait nodes: a graph waits for an event recorded on another
 * stream behind a host function that sets a flag; the kernel after the
 * wait sees the flag's effect (the host function writes the buffer). */
static volatile int gate_open;
static CUdeviceptr gate_buf;

static void CUDA_CB slow_writer(void *p)
{
    (void)p;
    for (volatile long i = 0; i < 20000000; i++)
        ;
    uint32_t v = 0x5a5a5a5a;
    for (unsigned i = 0; i < N; i++)
        memcpy((char *)(uintptr_t)gate_buf + 4 * i, &v, 4);
    gate_open = 1;
}

static void check_event_wait(gt_fixture *f)
{
    CUdeviceptr a, b;
    OK(cuMemAlloc(&a, N * 4));
    OK(cuMemAlloc(&b, N * 4));
    gate_buf = a;
    CUevent e1, e2;
    OK(cuEventCreate(&e1, CU_EVENT_DISABLE_TIMING));
    OK(cuEventCreate(&e2, CU_EVENT_DISABLE_TIMING));
    CUgraph g;
    OK(cuGraphCreate(&g, 0));
    CUgraphNode nwait, ncopy;
    OK(cuGraphAddEventWaitNode(&nwait, g, NULL, 0, e1));
    CUevent ev = NULL;
    OK(cuGraphEventWaitNodeGetEvent(nwait, &ev));
    EXPECT(ev == e1);
    OK(cuGraphEventWaitNodeSetEvent(nwait, e2));
    OK(cuGraphEventWaitNodeGetEvent(nwait, &ev));
    EXPECT(ev == e2);
    EXPECT_RC(cuGraphEventRecordNodeGetEvent(nwait, &ev), CUDA_ERROR_INVALID_VALUE);
    CUDA_MEMCPY3D cp = gt_copy_params(b, a, N * 4);
    OK(cuGraphAddMemcpyNode(&ncopy, g, &nwait, 1, &cp, f->ctx));
    CUgraphExec x;
    OK(cuGraphInstantiate(&x, g, 0));
    OK(cuGraphExecEventWaitNodeSetEvent(x, nwait, e1));    /* the exec waits on e1 */

    CUstream other;
    OK(cuStreamCreate(&other, CU_STREAM_NON_BLOCKING));
    poison(a, N);
    poison(b, N);
    OK(cuLaunchHostFunc(other, slow_writer, NULL));
    OK(cuEventRecord(e1, other));
    OK(cuEventRecord(e2, f->s));    /* e2: already complete, would not wait */
    OK(cuGraphLaunch(x, f->s));
    OK(cuStreamSynchronize(f->s));
    EXPECT(gate_open == 1);
    EXPECT(gt_check_const(b, N, 0x5a5a5a5a) == 0);
    OK(cuStreamSynchronize(other));
    OK(cuStreamDestroy(other));
    OK(cuGraphExecDestroy(x));
    OK(cuGraphDestroy(g));
    OK(cuEventDestroy(e1));
    OK(cuEventDestroy(e2));
    OK(cuMemFree(a));
    OK(cuMemFree(b));
}

static int has(const CUgraphNode *v, size_t n, CUgraphNode x)
{
    for (size_t i = 0; i < n; i++)
        if (v[i] == x)
            return 1;
    return 0;
}

/* A diamond of empty nodes built with cuGraphAddDependencies, queried,
 * then an edge removed; the _v2 forms report plain edges. */
static void check_edges(gt_fixture *f)
{
    (void)f;
    CUgraph g;
    OK(cuGraphCreate(&g, 0));
    CUgraphNode n[4];
    for (int i = 0; i < 4; i++)
        OK(cuGraphAddEmptyNode(&n[i], g, NULL, 0));
    CUgraphNode from[] = { n[0], n[0], n[1], n[2] }, to[] = { n[1], n[2], n[3], n[3] };
    OK(cuGraphAddDependencies(g, from, to, NULL, 4));

    size_t cnt = 0;
    OK(cuGraphGetNodes(g, NULL, &cnt));
    EXPECT(cnt == 4);
    CUgraphNode roots[4] = { 0 };
    cnt = 4;
    OK(cuGraphGetRootNodes(g, roots, &cnt));
    EXPECT(cnt == 1 && roots[0] == n[0]);
    cnt = 0;
    OK(cuGraphGetEdges(g, NULL, NULL, NULL, &cnt));
    EXPECT(cnt == 4);
    CUgraphNode ef[6], et[6];
    cnt = 6;
    OK(cuGraphGetEdges(g, ef, et, NULL, &cnt));
    EXPECT(cnt == 4);
    EXPECT(ef[4] == NULL && et[4] == NULL && ef[5] == NULL);   /* the rest set to NULL */
    for (int i = 0; i < 4; i++) {
        int found = 0;
        for (size_t k = 0; k < cnt; k++)
            found += ef[k] == from[i] && et[k] == to[i];
        EXPECT(found == 1);
    }
    CUgraphEdgeData ed[6];
    memset(ed, 0xff, sizeof ed);
    cnt = 6;
    OK(cuGraphGetEdges(g, ef, et, ed, &cnt));
    EXPECT(cnt == 4 && ed[0].type == 0 && ed[3].from_port == 0 && ed[3].to_port == 0);

    /* the CUDA 12.0 forms (no edge data), as older callers get them */
    CUresult (*edges_v1)(CUgraph, CUgraphNode *, CUgraphNode *, size_t *) = NULL;
    CUresult (*dependents_v1)(CUgraphNode, CUgraphNode *, size_t *) = NULL;
    CUresult (*add_v1)(CUgraph, const CUgraphNode *, const CUgraphNode *, size_t) = NULL;
    CUresult (*remove_v1)(CUgraph, const CUgraphNode *, const CUgraphNode *, size_t) = NULL;
    OK(cuGetProcAddress("cuGraphGetEdges", (void **)&edges_v1, 12000, 0, NULL));
    OK(cuGetProcAddress("cuGraphNodeGetDependentNodes", (void **)&dependents_v1, 12000, 0, NULL));
    OK(cuGetProcAddress("cuGraphAddDependencies", (void **)&add_v1, 12000, 0, NULL));
    OK(cuGetProcAddress("cuGraphRemoveDependencies", (void **)&remove_v1, 12000, 0, NULL));
    if (edges_v1 && dependents_v1 && add_v1 && remove_v1) {
        cnt = 6;
        OK(edges_v1(g, ef, et, &cnt));
        EXPECT(cnt == 4 && ef[4] == NULL);
        CUgraphNode dn[3];
        cnt = 3;
        OK(dependents_v1(n[1], dn, &cnt));
        EXPECT(cnt == 1 && dn[0] == n[3] && dn[1] == NULL);
        OK(remove_v1(g, &n[1], &n[3], 1));
        cnt = 0;
        OK(edges_v1(g, NULL, NULL, &cnt));
        EXPECT(cnt == 3);
        OK(add_v1(g, &n[1], &n[3], 1));
        EXPECT_RC(add_v1(g, &n[1], &n[3], 1), CUDA_ERROR_INVALID_VALUE);
    }

    CUgraphNode deps[4];
    cnt = 4;
    OK(cuGraphNodeGetDependencies(n[3], deps, NULL, &cnt));
    EXPECT(cnt == 2 && has(deps, 2, n[1]) && has(deps, 2, n[2]));
    EXPECT(deps[2] == NULL && deps[3] == NULL);
    cnt = 0;
    OK(cuGraphNodeGetDependencies(n[0], NULL, NULL, &cnt));
    EXPECT(cnt == 0);
    cnt = 4;
    OK(cuGraphNodeGetDependentNodes(n[0], deps, NULL, &cnt));
    EXPECT(cnt == 2 && has(deps, 2, n[1]) && has(deps, 2, n[2]));
    cnt = 0;
    OK(cuGraphNodeGetDependentNodes(n[3], NULL, NULL, &cnt));
    EXPECT(cnt == 0);
    memset(ed, 0xff, sizeof ed);
    cnt = 4;
    OK(cuGraphNodeGetDependentNodes(n[0], deps, ed, &cnt));
    EXPECT(cnt == 2 && ed[0].type == 0 && ed[1].to_port == 0);
    cnt = 4;
    OK(cuGraphNodeGetDependencies(n[1], deps, ed, &cnt));
    EXPECT(cnt == 1 && deps[0] == n[0]);

    /* misuse: an existing edge, a self edge, a missing edge, a node of
     * another graph, NULL counts */
    EXPECT_RC(cuGraphAddDependencies(g, &n[0], &n[1], NULL, 1), CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(cuGraphAddDependencies(g, &n[1], &n[1], NULL, 1), CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(cuGraphRemoveDependencies(g, &n[0], &n[3], NULL, 1), CUDA_ERROR_INVALID_VALUE);
    /* a call with one bad pair changes nothing */
    CUgraphNode bf[] = { n[2], n[0] }, bt[] = { n[1], n[1] };
    EXPECT_RC(cuGraphAddDependencies(g, bf, bt, NULL, 2), CUDA_ERROR_INVALID_VALUE);
    cnt = 0;
    OK(cuGraphGetEdges(g, NULL, NULL, NULL, &cnt));
    EXPECT(cnt == 4);
    CUgraph g2;
    CUgraphNode alien;
    OK(cuGraphCreate(&g2, 0));
    OK(cuGraphAddEmptyNode(&alien, g2, NULL, 0));
    EXPECT_RC(cuGraphAddDependencies(g, &n[0], &alien, NULL, 1), CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(cuGraphNodeGetDependencies(n[0], NULL, NULL, NULL), CUDA_ERROR_INVALID_VALUE);
    CUgraphEdgeData prog;
    memset(&prog, 0, sizeof prog);
    prog.type = CU_GRAPH_DEPENDENCY_TYPE_PROGRAMMATIC;
    /* a programmatic edge needs a programmatic or launch-order port */
    EXPECT_RC(cuGraphAddDependencies(g, &n[3], &n[2], &prog, 1), CUDA_ERROR_INVALID_VALUE);
    cnt = 0;
    OK(cuGraphGetEdges(g, NULL, NULL, NULL, &cnt));
    EXPECT(cnt == 4);       /* not added as a full edge either */
    OK(cuGraphDestroy(g2));

    /* remove n1 -> n3 and n0 -> n2, add n1 -> n2 */
    OK(cuGraphRemoveDependencies(g, &n[1], &n[3], NULL, 1));
    OK(cuGraphRemoveDependencies(g, &n[0], &n[2], NULL, 1));
    OK(cuGraphAddDependencies(g, &n[1], &n[2], NULL, 1));
    cnt = 4;
    OK(cuGraphNodeGetDependencies(n[3], deps, NULL, &cnt));
    EXPECT(cnt == 1 && deps[0] == n[2]);
    cnt = 4;
    OK(cuGraphNodeGetDependencies(n[2], deps, NULL, &cnt));
    EXPECT(cnt == 1 && deps[0] == n[1]);
    cnt = 0;
    OK(cuGraphGetEdges(g, NULL, NULL, NULL, &cnt));
    EXPECT(cnt == 3);

    /* a cycle cannot be instantiated */
    OK(cuGraphAddDependencies(g, &n[3], &n[0], NULL, 1));
    CUgraphExec x;
    EXPECT(cuGraphInstantiate(&x, g, 0) != CUDA_SUCCESS);
    OK(cuGraphDestroy(g));
}

/* Edges order work: a chain built only with cuGraphAddDependencies must
 * run in that order (set, then fill over part, then copy). */
static void check_edge_order(gt_fixture *f)
{
    CUdeviceptr a, b;
    OK(cuMemAlloc(&a, N * 4));
    OK(cuMemAlloc(&b, N * 4));
    poison(b, N);
    CUgraph g;
    OK(cuGraphCreate(&g, 0));
    CUgraphNode ncopy, nfill, nset;
    /* added in reverse order, so creation order alone would be wrong */
    CUDA_MEMCPY3D cp = gt_copy_params(b, a, N * 4);
    OK(cuGraphAddMemcpyNode(&ncopy, g, NULL, 0, &cp, f->ctx));
    unsigned n = N / 2, v = 7;
    void *args[] = { &a, &n, &v };
    CUDA_KERNEL_NODE_PARAMS kp = gt_fill_params(f, args, n);
    OK(cuGraphAddKernelNode(&nfill, g, NULL, 0, &kp));
    CUDA_MEMSET_NODE_PARAMS mp = gt_set_params(a, 0x77, N);
    OK(cuGraphAddMemsetNode(&nset, g, NULL, 0, &mp, f->ctx));
    CUgraphNode from[] = { nset, nfill }, to[] = { nfill, ncopy };
    OK(cuGraphAddDependencies(g, from, to, NULL, 2));
    CUgraphExec x;
    OK(cuGraphInstantiate(&x, g, 0));
    OK(cuGraphLaunch(x, f->s));
    OK(cuStreamSynchronize(f->s));
    uint32_t h[N];
    OK(cuMemcpyDtoH(h, b, sizeof h));
    unsigned bad = 0;
    for (unsigned i = 0; i < N; i++)
        bad += h[i] != (i < n ? i * 3 + v : 0x77u);
    EXPECT(bad == 0);
    OK(cuGraphExecDestroy(x));
    OK(cuGraphDestroy(g));
    OK(cuMemFree(a));
    OK(cuMemFree(b));
}

/* Disabled kernel, memset and memcpy nodes do nothing; host nodes cannot
 * be disabled. */
static void check_enable(gt_fixture *f)
{
    CUdeviceptr a, b, c;
    OK(cuMemAlloc(&a, N * 4));
    OK(cuMemAlloc(&b, N * 4));
    OK(cuMemAlloc(&c, N * 4));
    CUgraph g;
    OK(cuGraphCreate(&g, 0));
    unsigned n = N, v1 = 1, v2 = 2;
    void *args1[] = { &a, &n, &v1 }, *args2[] = { &b, &n, &v2 };
    CUDA_KERNEL_NODE_PARAMS k1 = gt_fill_params(f, args1, n), k2 = gt_fill_params(f, args2, n);
    CUgraphNode n1, n2, nset, nhost;
    OK(cuGraphAddKernelNode(&n1, g, NULL, 0, &k1));
    OK(cuGraphAddKernelNode(&n2, g, NULL, 0, &k2));
    CUDA_MEMSET_NODE_PARAMS mp = gt_set_params(c, 0x99, N);
    OK(cuGraphAddMemsetNode(&nset, g, NULL, 0, &mp, f->ctx));
    CUDA_HOST_NODE_PARAMS hp = { count_run, &counters[3] };
    OK(cuGraphAddHostNode(&nhost, g, NULL, 0, &hp));
    CUgraphExec x;
    OK(cuGraphInstantiate(&x, g, 0));
    unsigned on = 7;
    OK(cuGraphNodeGetEnabled(x, n2, &on));
    EXPECT(on == 1);
    OK(cuGraphNodeSetEnabled(x, n2, 0));
    OK(cuGraphNodeSetEnabled(x, nset, 0));
    OK(cuGraphNodeGetEnabled(x, n2, &on));
    EXPECT(on == 0);
    EXPECT_RC(cuGraphNodeSetEnabled(x, nhost, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(cuGraphNodeGetEnabled(x, n2, NULL), CUDA_ERROR_INVALID_VALUE);
    poison(a, N);
    poison(b, N);
    poison(c, N);
    OK(cuGraphLaunch(x, f->s));
    OK(cuStreamSynchronize(f->s));
    EXPECT(gt_check_fill(a, N, 1) == 0);
    EXPECT(gt_check_const(b, N, POISON) == 0);
    EXPECT(gt_check_const(c, N, POISON) == 0);
    EXPECT(counters[3] == 1);
    OK(cuGraphNodeSetEnabled(x, n2, 1));
    OK(cuGraphNodeSetEnabled(x, nset, 1));
    OK(cuGraphLaunch(x, f->s));
    OK(cuStreamSynchronize(f->s));
    EXPECT(gt_check_fill(b, N, 2) == 0);
    EXPECT(gt_check_const(c, N, 0x99) == 0);
    OK(cuGraphExecDestroy(x));
    OK(cuGraphDestroy(g));
    OK(cuMemFree(a));
    OK(cuMemFree(b));
    OK(cuMemFree(c));
}

/* cuGraphExecUpdate: a changed kernel argument is taken; an extra node or
 * a node of another kind is refused with the result that says so. */
static void check_update(gt_fixture *f)
{
    CUdeviceptr a;
    OK(cuMemAlloc(&a, N * 4));
    unsigned n = N, v = 4;
    void *args[] = { &a, &n, &v };
    CUDA_KERNEL_NODE_PARAMS kp = gt_fill_params(f, args, n);
    CUgraph g, g2, g3;
    CUgraphNode k, k2, extra, set3;
    OK(cuGraphCreate(&g, 0));
    OK(cuGraphAddKernelNode(&k, g, NULL, 0, &kp));
    CUgraphExec x;
    OK(cuGraphInstantiate(&x, g, 0));

    v = 9;
    OK(cuGraphCreate(&g2, 0));
    OK(cuGraphAddKernelNode(&k2, g2, NULL, 0, &kp));
    CUgraphExecUpdateResultInfo info;
    memset(&info, 0xff, sizeof info);
    OK(cuGraphExecUpdate(x, g2, &info));
    EXPECT(info.result == CU_GRAPH_EXEC_UPDATE_SUCCESS);
    poison(a, N);
    OK(cuGraphLaunch(x, f->s));
    OK(cuStreamSynchronize(f->s));
    EXPECT(gt_check_fill(a, N, 9) == 0);

    OK(cuGraphAddEmptyNode(&extra, g2, &k2, 1));     /* topology changed */
    memset(&info, 0, sizeof info);
    EXPECT_RC(cuGraphExecUpdate(x, g2, &info), CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE);
    EXPECT(info.result == CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED);

    OK(cuGraphCreate(&g3, 0));
    CUDA_MEMSET_NODE_PARAMS mp = gt_set_params(a, 1, N);
    OK(cuGraphAddMemsetNode(&set3, g3, NULL, 0, &mp, f->ctx));  /* kind changed */
    memset(&info, 0, sizeof info);
    EXPECT_RC(cuGraphExecUpdate(x, g3, &info), CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE);
    EXPECT(info.result == CU_GRAPH_EXEC_UPDATE_ERROR_NODE_TYPE_CHANGED);
    EXPECT(info.errorNode == set3);

    /* a failed update leaves the executable graph as it was */
    poison(a, N);
    OK(cuGraphLaunch(x, f->s));
    OK(cuStreamSynchronize(f->s));
    EXPECT(gt_check_fill(a, N, 9) == 0);
    /* no result info: NVIDIA's driver still tries the update */
    EXPECT_RC(cuGraphExecUpdate(x, g3, NULL), CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE);
    OK(cuGraphExecDestroy(x));
    OK(cuGraphDestroy(g));
    OK(cuGraphDestroy(g2));
    OK(cuGraphDestroy(g3));
    OK(cuMemFree(a));
}

/* Instantiation flags and parameters, capture dependencies changed while
 * capturing, user-object references. */
static int uobj_gone;
static void CUDA_CB uobj_destroy(void *p)
{
    uobj_gone += *(int *)p;
}

static void check_misc(gt_fixture *f)
{
    CUdeviceptr a, b;
    OK(cuMemAlloc(&a, N * 4));
    OK(cuMemAlloc(&b, N * 4));
    CUgraph g;
    OK(cuGraphCreate(&g, 0));
    CUgraphNode k;
    unsigned n = N, v = 2;
    void *args[] = { &a, &n, &v };
    CUDA_KERNEL_NODE_PARAMS kp = gt_fill_params(f, args, n);
    OK(cuGraphAddKernelNode(&k, g, NULL, 0, &kp));
    CUgraphExec x;
    /* device-side graph launch is not supported: refused, not pretended */
    EXPECT_RC(cuGraphInstantiateWithFlags(&x, g, CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH),
              CUDA_ERROR_NOT_SUPPORTED);
    EXPECT_RC(cuGraphInstantiateWithFlags(&x, g, 0x100), CUDA_ERROR_INVALID_VALUE);
    OK(cuGraphInstantiateWithFlags(&x, g, CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH));
    cuuint64_t flags = 0;
    OK(cuGraphExecGetFlags(x, &flags));
    EXPECT(flags == CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH);
    EXPECT_RC(cuGraphExecGetFlags(x, NULL), CUDA_ERROR_INVALID_VALUE);
    OK(cuGraphExecDestroy(x));
    CUDA_GRAPH_INSTANTIATE_PARAMS ip;
    memset(&ip, 0, sizeof ip);
    ip.hErrNode_out = k;
    ip.result_out = CUDA_GRAPH_INSTANTIATE_ERROR;
    OK(cuGraphInstantiateWithParams(&x, g, &ip));
    EXPECT(ip.result_out == CUDA_GRAPH_INSTANTIATE_SUCCESS && ip.hErrNode_out == NULL);
    OK(cuMemsetD32(a, POISON, N));
    OK(cuGraphLaunch(x, f->s));
    OK(cuStreamSynchronize(f->s));
    EXPECT(gt_check_fill(a, N, 2) == 0);
    OK(cuGraphExecDestroy(x));
    EXPECT_RC(cuGraphInstantiateWithParams(&x, g, NULL), CUDA_ERROR_INVALID_VALUE);

    /* capture: memset a; then the stream's dependencies replaced by none
     * (the next node is a root), then one added back by hand */
    OK(cuStreamBeginCapture(f->s, CU_STREAM_CAPTURE_MODE_GLOBAL));
    OK(cuMemsetD32Async(a, 0x12, N, f->s));
    CUstreamCaptureStatus st;
    cuuint64_t id;
    CUgraph cg;
    const CUgraphNode *deps = NULL;
    size_t nd = 0;
    OK(cuStreamGetCaptureInfo(f->s, &st, &id, &cg, &deps, NULL, &nd));
    EXPECT(st == CU_STREAM_CAPTURE_STATUS_ACTIVE && nd == 1);
    CUgraphNode first = nd ? deps[0] : NULL;
    OK(cuStreamUpdateCaptureDependencies(f->s, NULL, NULL, 0, CU_STREAM_SET_CAPTURE_DEPENDENCIES));
    OK(cuMemsetD32Async(b, 0x34, N, f->s));        /* a root */
    OK(cuStreamGetCaptureInfo(f->s, &st, &id, &cg, &deps, NULL, &nd));
    CUgraphNode second = nd ? deps[0] : NULL;
    OK(cuStreamUpdateCaptureDependencies(f->s, &first, NULL, 1, CU_STREAM_ADD_CAPTURE_DEPENDENCIES));
    OK(cuStreamGetCaptureInfo(f->s, &st, &id, &cg, &deps, NULL, &nd));
    EXPECT(nd == 2);
    EXPECT_RC(cuStreamUpdateCaptureDependencies(f->s, &first, NULL, 1, 7), CUDA_ERROR_INVALID_VALUE);
    OK(cuLaunchKernel(f->fill, N / 64, 1, 1, 64, 1, 1, 0, f->s, args, NULL));  /* joins both */
    CUgraph captured;
    OK(cuStreamEndCapture(f->s, &captured));
    EXPECT_RC(cuStreamUpdateCaptureDependencies(f->s, NULL, NULL, 0, 0), CUDA_ERROR_ILLEGAL_STATE);
    size_t cnt = 0;
    OK(cuGraphGetRootNodes(captured, NULL, &cnt));
    EXPECT(cnt == 2);
    CUgraphNode roots[2];
    cnt = 2;
    OK(cuGraphGetRootNodes(captured, roots, &cnt));
    EXPECT(cnt == 2 && has(roots, 2, first) && has(roots, 2, second));
    cnt = 0;
    OK(cuGraphGetEdges(captured, NULL, NULL, NULL, &cnt));
    EXPECT(cnt == 2);
    OK(cuGraphDestroy(captured));

    /* user objects: a retain adds references that a release must drop */
    int weight = 1;
    CUuserObject o;
    OK(cuUserObjectCreate(&o, &weight, uobj_destroy, 1, CU_USER_OBJECT_NO_DESTRUCTOR_SYNC));
    OK(cuUserObjectRetain(o, 2));
    OK(cuGraphRetainUserObject(g, o, 1, CU_GRAPH_USER_OBJECT_MOVE));  /* takes one */
    OK(cuUserObjectRelease(o, 2));
    EXPECT(uobj_gone == 0);     /* the graph still holds one */
    OK(cuGraphDestroy(g));
    EXPECT(uobj_gone == 1);
    OK(cuMemFree(a));
    OK(cuMemFree(b));
}

int main(void)
{
    gt_fixture f;
    if (gt_setup(&f))
        return 1;
    check_params(&f);
    check_event_wait(&f);
    check_edges(&f);
    check_edge_order(&f);
    check_enable(&f);
    check_update(&f);
    check_misc(&f);
    gt_teardown(&f);
    return drv_test_end("drv_graph_nodes");
}
