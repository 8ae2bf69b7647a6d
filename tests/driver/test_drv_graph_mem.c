/* test_drv_graph_mem.c: graph memory nodes.
 *
 * An explicit alloc -> fill kernel -> copy out -> free graph replayed (the
 * address stays the one the alloc node returned); a graph that leaves its
 * allocation allocated: readable after the launch, a relaunch refused until
 * cuMemFreeAsync, cuMemFree or another graph's free node frees it, or when
 * instantiated with AUTO_FREE_ON_LAUNCH; CUDA's restrictions on graphs with
 * memory nodes; the device's graph-memory attributes; and the same graph
 * captured from cuMemAllocAsync / cuMemFreeAsync on a capturing stream.
 * Results are compared with i * 3 + v computed here.
 */
#include "graph_test.h"

enum { N = 1024, POISON = 0xdeadbeef };

static CUDA_MEM_ALLOC_NODE_PARAMS alloc_params(size_t bytes)
{
    CUDA_MEM_ALLOC_NODE_PARAMS p;
    memset(&p, 0, sizeof p);
    p.poolProps.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
    p.poolProps.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    p.poolProps.location.id = 0;
    p.bytesize = bytes;
    return p;
}

static uint64_t attr(CUgraphMem_attribute a)
{
    uint64_t v = ~0ull;
    OK(cuDeviceGetGraphMemAttribute(0, a, &v));
    return v;
}

/* alloc -> fill(v) -> copy to out -> free, launched three times. */
static void check_explicit(gt_fixture *f)
{
    CUdeviceptr out;
    OK(cuMemAlloc(&out, N * 4));
    uint64_t reserved0 = attr(CU_GRAPH_MEM_ATTR_RESERVED_MEM_CURRENT);
    CUgraph g;
    OK(cuGraphCreate(&g, 0));
    CUgraphNode na, nk, nc, nf;
    CUDA_MEM_ALLOC_NODE_PARAMS ap = alloc_params(N * 4);
    OK(cuGraphAddMemAllocNode(&na, g, NULL, 0, &ap));
    EXPECT(ap.dptr != 0);
    CUdeviceptr p = ap.dptr;
    EXPECT(attr(CU_GRAPH_MEM_ATTR_RESERVED_MEM_CURRENT) >= reserved0 + N * 4);
    unsigned n = N, v = 11;
    void *args[] = { &p, &n, &v };
    CUDA_KERNEL_NODE_PARAMS kp = gt_fill_params(f, args, n);
    OK(cuGraphAddKernelNode(&nk, g, &na, 1, &kp));
    CUDA_MEMCPY3D cp = gt_copy_params(out, p, N * 4);
    OK(cuGraphAddMemcpyNode(&nc, g, &nk, 1, &cp, f->ctx));
    OK(cuGraphAddMemFreeNode(&nf, g, &nc, 1, p));

    CUDA_MEM_ALLOC_NODE_PARAMS aq;
    memset(&aq, 0, sizeof aq);
    OK(cuGraphMemAllocNodeGetParams(na, &aq));
    EXPECT(aq.dptr == p && aq.bytesize == N * 4 &&
           aq.poolProps.allocType == CU_MEM_ALLOCATION_TYPE_PINNED &&
           aq.poolProps.location.type == CU_MEM_LOCATION_TYPE_DEVICE);
    CUdeviceptr fp = 0;
    OK(cuGraphMemFreeNodeGetParams(nf, &fp));
    EXPECT(fp == p);
    CUgraphNodeType t;
    OK(cuGraphNodeGetType(na, &t));
    EXPECT(t == CU_GRAPH_NODE_TYPE_MEM_ALLOC);
    OK(cuGraphNodeGetType(nf, &t));
    EXPECT(t == CU_GRAPH_NODE_TYPE_MEM_FREE);

    /* misuse */
    EXPECT_RC(cuGraphMemAllocNodeGetParams(nf, &aq), CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(cuGraphMemFreeNodeGetParams(na, &fp), CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(cuGraphMemFreeNodeGetParams(nf, NULL), CUDA_ERROR_INVALID_VALUE);
    CUgraphNode bad;
    EXPECT_RC(cuGraphAddMemFreeNode(&bad, g, &nf, 1, p), CUDA_ERROR_INVALID_VALUE);  /* twice */
    EXPECT_RC(cuGraphAddMemFreeNode(&bad, g, NULL, 0, out), CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(cuGraphAddMemFreeNode(&bad, g, NULL, 0, p + 4), CUDA_ERROR_INVALID_VALUE);
    CUDA_MEM_ALLOC_NODE_PARAMS zero = alloc_params(0);
    EXPECT_RC(cuGraphAddMemAllocNode(&bad, g, NULL, 0, &zero), CUDA_ERROR_INVALID_VALUE);
    CUDA_MEM_ALLOC_NODE_PARAMS dev1 = alloc_params(64);
    dev1.poolProps.location.id = 1;
    EXPECT_RC(cuGraphAddMemAllocNode(&bad, g, NULL, 0, &dev1), CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(cuGraphAddMemAllocNode(&bad, g, NULL, 0, NULL), CUDA_ERROR_INVALID_VALUE);
    /* CUDA's restrictions on graphs with memory nodes */
    CUgraph clone, parent;
    EXPECT(cuGraphClone(&clone, g) != CUDA_SUCCESS);
    OK(cuGraphCreate(&parent, 0));
    EXPECT(cuGraphAddChildGraphNode(&bad, parent, NULL, 0, g) != CUDA_SUCCESS);
    OK(cuGraphDestroy(parent));
    EXPECT(cuGraphDestroyNode(nk) != CUDA_SUCCESS);
    EXPECT(cuGraphRemoveDependencies(g, &na, &nk, NULL, 1) != CUDA_SUCCESS);

    CUgraphExec x, x2;
    OK(cuGraphInstantiate(&x, g, 0));
    EXPECT(cuGraphInstantiate(&x2, g, 0) != CUDA_SUCCESS);   /* one at a time */
    for (unsigned run = 0; run < 3; run++) {
        OK(cuMemsetD32(out, POISON, N));
        if (run == 2) {     /* an exec change of the kernel between the nodes */
            v = 40;
            OK(cuGraphExecKernelNodeSetParams(x, nk, &kp));
        }
        OK(cuGraphLaunch(x, f->s));
        OK(cuStreamSynchronize(f->s));
        EXPECT(gt_check_fill(out, N, run == 2 ? 40 : 11) == 0);
        EXPECT(attr(CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT) == 0);  /* freed in the graph */
    }
    EXPECT(attr(CU_GRAPH_MEM_ATTR_USED_MEM_HIGH) >= N * 4);
    /* freed in the graph: not for the caller to free */
    EXPECT_RC(cuMemFree(p), CUDA_ERROR_INVALID_VALUE);
    CUgraphExecUpdateResultInfo info;
    EXPECT_RC(cuGraphExecUpdate(x, g, &info), CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE);
    EXPECT(info.result == CU_GRAPH_EXEC_UPDATE_ERROR_NOT_SUPPORTED);
    OK(cuGraphExecDestroy(x));
    OK(cuGraphInstantiate(&x2, g, 0));   /* the first is gone */
    OK(cuGraphExecDestroy(x2));
    OK(cuGraphDestroy(g));
    EXPECT(attr(CU_GRAPH_MEM_ATTR_RESERVED_MEM_CURRENT) == reserved0);
    OK(cuMemFree(out));
}

/* An allocation the graph does not free. */
static void check_unfreed(gt_fixture *f)
{
    CUgraph g, gfree;
    OK(cuGraphCreate(&g, 0));
    CUgraphNode na, nk, nf;
    CUDA_MEM_ALLOC_NODE_PARAMS ap = alloc_params(N * 4);
    OK(cuGraphAddMemAllocNode(&na, g, NULL, 0, &ap));
    CUdeviceptr p = ap.dptr;
    unsigned n = N, v = 5;
    void *args[] = { &p, &n, &v };
    CUDA_KERNEL_NODE_PARAMS kp = gt_fill_params(f, args, n);
    OK(cuGraphAddKernelNode(&nk, g, &na, 1, &kp));
    /* a second graph whose free node frees the first one's allocation */
    OK(cuGraphCreate(&gfree, 0));
    OK(cuGraphAddMemFreeNode(&nf, gfree, NULL, 0, p));

    EXPECT_RC(cuMemFree(p), CUDA_ERROR_INVALID_VALUE);   /* not allocated yet */
    CUgraphExec x, xf;
    OK(cuGraphInstantiate(&x, g, 0));
    OK(cuGraphInstantiate(&xf, gfree, 0));
    OK(cuGraphLaunch(x, f->s));
    EXPECT_RC(cuGraphLaunch(x, f->s), CUDA_ERROR_INVALID_VALUE);   /* not freed */
    OK(cuStreamSynchronize(f->s));
    EXPECT(gt_check_fill(p, N, 5) == 0);    /* valid after the launch */
    EXPECT(attr(CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT) == N * 4);

    OK(cuMemFreeAsync(p, f->s));            /* 1: freed in stream order */
    EXPECT_RC(cuMemFreeAsync(p, f->s), CUDA_ERROR_INVALID_VALUE);
    v = 6;
    OK(cuGraphExecKernelNodeSetParams(x, nk, &kp));
    OK(cuGraphLaunch(x, f->s));
    OK(cuStreamSynchronize(f->s));
    EXPECT(gt_check_fill(p, N, 6) == 0);

    OK(cuMemFree(p));                       /* 2: freed at once */
    v = 7;
    OK(cuGraphExecKernelNodeSetParams(x, nk, &kp));
    OK(cuGraphLaunch(x, f->s));
    OK(cuGraphLaunch(xf, f->s));            /* 3: the other graph frees it */
    OK(cuGraphLaunch(x, f->s));
    OK(cuStreamSynchronize(f->s));
    EXPECT(gt_check_fill(p, N, 7) == 0);
    EXPECT(attr(CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT) == N * 4);

    /* 4: AUTO_FREE_ON_LAUNCH (after the first instantiation is gone) */
    OK(cuGraphExecDestroy(x));
    OK(cuGraphInstantiate(&x, g, CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH));
    OK(cuGraphLaunch(x, f->s));
    OK(cuGraphLaunch(x, f->s));
    OK(cuStreamSynchronize(f->s));
    OK(cuGraphExecDestroy(x));

    /* the graphs go; the live allocation stays the caller's to free */
    OK(cuGraphExecDestroy(xf));
    OK(cuGraphDestroy(g));
    OK(cuGraphDestroy(gfree));
    EXPECT(gt_check_fill(p, N, 5) == 0);    /* the graph's own kernel parameters */
    OK(cuMemFree(p));
    EXPECT(attr(CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT) == 0);
}

static void check_attributes(void)
{
    uint64_t v = 0;
    OK(cuDeviceSetGraphMemAttribute(0, CU_GRAPH_MEM_ATTR_USED_MEM_HIGH, &v));
    OK(cuDeviceSetGraphMemAttribute(0, CU_GRAPH_MEM_ATTR_RESERVED_MEM_HIGH, &v));
    EXPECT(attr(CU_GRAPH_MEM_ATTR_USED_MEM_HIGH) == attr(CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT));
    EXPECT(attr(CU_GRAPH_MEM_ATTR_RESERVED_MEM_HIGH) ==
           attr(CU_GRAPH_MEM_ATTR_RESERVED_MEM_CURRENT));
    v = 5;
    EXPECT_RC(cuDeviceSetGraphMemAttribute(0, CU_GRAPH_MEM_ATTR_USED_MEM_HIGH, &v),
              CUDA_ERROR_INVALID_VALUE);
    v = 0;
    EXPECT_RC(cuDeviceSetGraphMemAttribute(0, CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT, &v),
              CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(cuDeviceGetGraphMemAttribute(0, (CUgraphMem_attribute)99, &v),
              CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(cuDeviceGetGraphMemAttribute(0, CU_GRAPH_MEM_ATTR_USED_MEM_HIGH, NULL),
              CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(cuDeviceGetGraphMemAttribute(3, CU_GRAPH_MEM_ATTR_USED_MEM_HIGH, &v),
              CUDA_ERROR_INVALID_DEVICE);
    OK(cuDeviceGraphMemTrim(0));
    EXPECT_RC(cuDeviceGraphMemTrim(3), CUDA_ERROR_INVALID_DEVICE);
}

/* cuMemAllocAsync / cuMemFreeAsync on a capturing stream become alloc and
 * free nodes (what PyTorch's and llama.cpp's captures do). */
static void check_capture(gt_fixture *f)
{
    CUdeviceptr out;
    OK(cuMemAlloc(&out, N * 4));
    uint64_t reserved0 = attr(CU_GRAPH_MEM_ATTR_RESERVED_MEM_CURRENT);
    OK(cuStreamBeginCapture(f->s, CU_STREAM_CAPTURE_MODE_GLOBAL));
    CUdeviceptr p = 0;
    OK(cuMemAllocAsync(&p, N * 4, f->s));
    EXPECT(p != 0);
    unsigned n = N, v = 21;
    void *args[] = { &p, &n, &v };
    OK(cuLaunchKernel(f->fill, N / 64, 1, 1, 64, 1, 1, 0, f->s, args, NULL));
    OK(cuMemcpyDtoDAsync(out, p, N * 4, f->s));
    OK(cuMemFreeAsync(p, f->s));
    CUgraph g;
    OK(cuStreamEndCapture(f->s, &g));
    EXPECT(attr(CU_GRAPH_MEM_ATTR_RESERVED_MEM_CURRENT) >= reserved0 + N * 4);

    size_t cnt = 8;
    CUgraphNode nodes[8];
    OK(cuGraphGetNodes(g, nodes, &cnt));
    EXPECT(cnt == 4);
    CUgraphNodeType want[] = { CU_GRAPH_NODE_TYPE_MEM_ALLOC, CU_GRAPH_NODE_TYPE_KERNEL,
                               CU_GRAPH_NODE_TYPE_MEMCPY, CU_GRAPH_NODE_TYPE_MEM_FREE };
    for (size_t i = 0; i < cnt && i < 4; i++) {
        CUgraphNodeType t;
        OK(cuGraphNodeGetType(nodes[i], &t));
        EXPECT(t == want[i]);
        size_t nd = 0;
        OK(cuGraphNodeGetDependencies(nodes[i], NULL, NULL, &nd));
        EXPECT(nd == (i ? 1u : 0u));    /* a chain */
    }
    if (cnt == 4) {
        CUDA_MEM_ALLOC_NODE_PARAMS ap;
        OK(cuGraphMemAllocNodeGetParams(nodes[0], &ap));
        EXPECT(ap.dptr == p && ap.bytesize == N * 4);
        CUdeviceptr fp = 0;
        OK(cuGraphMemFreeNodeGetParams(nodes[3], &fp));
        EXPECT(fp == p);
    }
    CUgraphExec x;
    OK(cuGraphInstantiate(&x, g, 0));
    for (int run = 0; run < 3; run++) {
        OK(cuMemsetD32(out, POISON, N));
        OK(cuGraphLaunch(x, f->s));
        OK(cuStreamSynchronize(f->s));
        EXPECT(gt_check_fill(out, N, 21) == 0);
    }
    OK(cuGraphExecDestroy(x));
    OK(cuGraphDestroy(g));
    EXPECT(attr(CU_GRAPH_MEM_ATTR_RESERVED_MEM_CURRENT) == reserved0);

    /* an allocation captured but not freed in the capture: the caller frees
     * it after the launch */
    OK(cuStreamBeginCapture(f->s, CU_STREAM_CAPTURE_MODE_GLOBAL));
    OK(cuMemAllocAsync(&p, N * 4, f->s));
    OK(cuLaunchKernel(f->fill, N / 64, 1, 1, 64, 1, 1, 0, f->s, args, NULL));
    OK(cuStreamEndCapture(f->s, &g));
    OK(cuGraphInstantiate(&x, g, 0));
    OK(cuGraphLaunch(x, f->s));
    OK(cuStreamSynchronize(f->s));
    EXPECT(gt_check_fill(p, N, 21) == 0);
    OK(cuMemFreeAsync(p, f->s));
    OK(cuStreamSynchronize(f->s));
    OK(cuGraphExecDestroy(x));
    OK(cuGraphDestroy(g));
    EXPECT(attr(CU_GRAPH_MEM_ATTR_RESERVED_MEM_CURRENT) == reserved0);
    OK(cuMemFree(out));
}

int main(void)
{
    gt_fixture f;
    if (gt_setup(&f))
        return 1;
    check_explicit(&f);
    check_unfreed(&f);
    check_attributes();
    check_capture(&f);
    gt_teardown(&f);
    return drv_test_end("drv_graph_mem");
}
