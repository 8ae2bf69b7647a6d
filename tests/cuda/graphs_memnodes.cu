// graphs_memnodes.cu: graph memory nodes through the runtime API.
//
// A PyTorch-style capture (cudaMallocAsync of a scratch buffer, two
// kernels through it, cudaFreeAsync) replayed five times; an explicit
// graph with cudaGraphAddMemAllocNode / cudaGraphAddMemFreeNode; a graph
// that leaves its allocation allocated (a relaunch before cudaFreeAsync is
// cudaErrorInvalidValue; cudaGraphInstantiateFlagAutoFreeOnLaunch frees it
// itself); the device's graph-memory attributes; the capture again on the
// per-thread default stream. Every result is compared with a CPU reference
// computed here.
#include "zn_test.h"

static const int N = 4096;

__global__ void scale(float *out, const float *in, int n, float a)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = a * in[i];
}

__global__ void add_to(float *y, const float *t, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] += t[i] + 1.0f;
}

static void check(const float *h, const float *ref, const char *what, int rep)
{
    for (int i = 0; i < N; i++)
        if (h[i] != ref[i]) {
            zt_fail("%s, run %d: y[%d] = %g, expected %g", what, rep, i, h[i], ref[i]);
            return;
        }
}

static unsigned long long attr(cudaGraphMemAttributeType a)
{
    unsigned long long v = ~0ull;
    CK(cudaDeviceGetGraphMemAttribute(0, a, &v));
    return v;
}

// y += 2 x + 1 through a scratch buffer allocated and freed in the capture.
static void check_capture(cudaStream_t s, const float *dx, float *dy, float *hy, float *ry,
                          const float *hx)
{
    unsigned long long reserved0 = attr(cudaGraphMemAttrReservedMemCurrent);
    cudaGraph_t g;
    CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    float *tmp = NULL;
    CK(cudaMallocAsync((void **)&tmp, N * sizeof(float), s));
    scale<<<N / 256, 256, 0, s>>>(tmp, dx, N, 2.0f);
    add_to<<<N / 256, 256, 0, s>>>(dy, tmp, N);
    CK(cudaFreeAsync(tmp, s));
    CK(cudaMemcpyAsync(hy, dy, N * sizeof(float), cudaMemcpyDeviceToHost, s));
    CK(cudaStreamEndCapture(s, &g));
    if (attr(cudaGraphMemAttrReservedMemCurrent) < reserved0 + N * sizeof(float))
        zt_fail("reserved graph memory did not grow by the scratch buffer");

    cudaGraphNode_t nodes[8];
    size_t nn = 8;
    CK(cudaGraphGetNodes(g, nodes, &nn));
    cudaGraphNodeType want[] = { cudaGraphNodeTypeMemAlloc, cudaGraphNodeTypeKernel,
                                 cudaGraphNodeTypeKernel, cudaGraphNodeTypeMemFree,
                                 cudaGraphNodeTypeMemcpy };
    if (nn != 5)
        zt_fail("captured %zu nodes, expected 5", nn);
    for (size_t i = 0; i < nn && i < 5; i++) {
        cudaGraphNodeType t;
        CK(cudaGraphNodeGetType(nodes[i], &t));
        if (t != want[i])
            zt_fail("node %zu has type %d, expected %d", i, (int)t, (int)want[i]);
    }
    if (nn == 5) {
        cudaMemAllocNodeParams ap;
        CK(cudaGraphMemAllocNodeGetParams(nodes[0], &ap));
        if (ap.dptr != tmp || ap.bytesize != N * sizeof(float))
            zt_fail("alloc node: %p, %zu bytes; captured %p", ap.dptr, ap.bytesize, tmp);
        void *fp = NULL;
        CK(cudaGraphMemFreeNodeGetParams(nodes[3], &fp));
        if (fp != tmp)
            zt_fail("free node frees %p, expected %p", fp, tmp);
    }
    cudaGraphExec_t x;
    CK(cudaGraphInstantiate(&x, g, 0));
    for (int rep = 0; rep < 5; rep++) {
        memset(hy, 0xff, N * sizeof(float));
        CK(cudaGraphLaunch(x, s));
        CK(cudaStreamSynchronize(s));
        for (int i = 0; i < N; i++)
            ry[i] += 2.0f * hx[i] + 1.0f;
        check(hy, ry, "captured scratch buffer", rep);
    }
    if (attr(cudaGraphMemAttrUsedMemCurrent) != 0)
        zt_fail("graph memory in use after the graph freed it");
    CK(cudaGraphExecDestroy(x));
    CK(cudaGraphDestroy(g));
    if (attr(cudaGraphMemAttrReservedMemCurrent) != reserved0)
        zt_fail("reserved graph memory not given back with the graph");
}

// An explicit graph whose allocation outlives the launch.
static void check_unfreed(cudaStream_t s, const float *dx)
{
    cudaGraph_t g;
    CK(cudaGraphCreate(&g, 0));
    cudaMemAllocNodeParams ap = {};
    ap.poolProps.allocType = cudaMemAllocationTypePinned;
    ap.poolProps.location.type = cudaMemLocationTypeDevice;
    ap.poolProps.location.id = 0;
    ap.bytesize = N * sizeof(float);
    cudaGraphNode_t na, nk;
    CK(cudaGraphAddMemAllocNode(&na, g, NULL, 0, &ap));
    float *out = (float *)ap.dptr;
    int n = N;
    float a = 3.0f;
    void *args[] = { &out, &dx, &n, &a };
    cudaKernelNodeParams kp = {};
    kp.func = (void *)scale;
    kp.gridDim = dim3(N / 256);
    kp.blockDim = dim3(256);
    kp.kernelParams = args;
    CK(cudaGraphAddKernelNode(&nk, g, &na, 1, &kp));
    cudaGraphExec_t x;
    CK(cudaGraphInstantiate(&x, g, 0));
    CK(cudaGraphLaunch(x, s));
    if (cudaGraphLaunch(x, s) != cudaErrorInvalidValue)
        zt_fail("relaunch with the allocation not freed was not cudaErrorInvalidValue");
    (void)cudaGetLastError();
    CK(cudaStreamSynchronize(s));
    float *h = (float *)malloc(N * sizeof(float)), *hx = (float *)malloc(N * sizeof(float));
    CK(cudaMemcpy(h, out, N * sizeof(float), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(hx, dx, N * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < N; i++)
        if (h[i] != 3.0f * hx[i]) {
            zt_fail("unfreed allocation [%d] = %g, expected %g", i, h[i], 3.0f * hx[i]);
            break;
        }
    if (attr(cudaGraphMemAttrUsedMemCurrent) != N * sizeof(float))
        zt_fail("graph memory in use is not the live allocation");
    CK(cudaFreeAsync(out, s));
    CK(cudaGraphLaunch(x, s));          // freed: may run again
    CK(cudaFreeAsync(out, s));
    CK(cudaStreamSynchronize(s));
    CK(cudaGraphExecDestroy(x));
    CK(cudaGraphInstantiate(&x, g, cudaGraphInstantiateFlagAutoFreeOnLaunch));
    CK(cudaGraphLaunch(x, s));
    CK(cudaGraphLaunch(x, s));          // the launch frees the last one's allocation
    CK(cudaStreamSynchronize(s));
    CK(cudaFree(out));
    CK(cudaGraphExecDestroy(x));
    CK(cudaGraphDestroy(g));
    CK(cudaDeviceGraphMemTrim(0));
    unsigned long long zero = 0;
    CK(cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrUsedMemHigh, &zero));
    if (attr(cudaGraphMemAttrUsedMemHigh) != 0)
        zt_fail("used-memory high watermark not reset");
    free(h);
    free(hx);
}

// The same capture on the per-thread default stream.
static void check_per_thread(const float *dx, const float *hx)
{
    cudaStream_t s = cudaStreamPerThread;
    float *out, *tmp = NULL;
    CK(cudaMalloc(&out, N * sizeof(float)));
    cudaGraph_t g;
    CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
    CK(cudaMallocAsync((void **)&tmp, N * sizeof(float), s));
    scale<<<N / 256, 256, 0, s>>>(tmp, dx, N, 4.0f);
    scale<<<N / 256, 256, 0, s>>>(out, tmp, N, 0.5f);
    CK(cudaFreeAsync(tmp, s));
    CK(cudaStreamEndCapture(s, &g));
    size_t nn = 0;
    CK(cudaGraphGetNodes(g, NULL, &nn));
    if (nn != 4)
        zt_fail("per-thread capture: %zu nodes, expected 4 (alloc, 2 kernels, free)", nn);
    cudaGraphExec_t x;
    CK(cudaGraphInstantiate(&x, g, 0));
    float *h = (float *)malloc(N * sizeof(float));
    for (int rep = 0; rep < 2; rep++) {
        CK(cudaMemset(out, 0xff, N * sizeof(float)));
        CK(cudaGraphLaunch(x, s));
        CK(cudaStreamSynchronize(s));
        CK(cudaMemcpy(h, out, N * sizeof(float), cudaMemcpyDeviceToHost));
        for (int i = 0; i < N; i++)
            if (h[i] != 2.0f * hx[i]) {
                zt_fail("per-thread capture run %d: [%d] = %g, expected %g", rep, i, h[i],
                        2.0f * hx[i]);
                break;
            }
    }
    free(h);
    CK(cudaGraphExecDestroy(x));
    CK(cudaGraphDestroy(g));
    CK(cudaFree(out));
}

int main()
{
    zt_begin("graphs_memnodes");
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    float *dx, *dy, *hy;
    float *hx = (float *)malloc(N * sizeof(float)), *ry = (float *)malloc(N * sizeof(float));
    CK(cudaMalloc(&dx, N * sizeof(float)));
    CK(cudaMalloc(&dy, N * sizeof(float)));
    CK(cudaMallocHost(&hy, N * sizeof(float)));
    for (int i = 0; i < N; i++) {
        hx[i] = (float)(i % 17) - 8.0f;
        ry[i] = 0.5f;
        hy[i] = 0.5f;
    }
    CK(cudaMemcpy(dx, hx, N * sizeof(float), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dy, hy, N * sizeof(float), cudaMemcpyHostToDevice));
    check_capture(s, dx, dy, hy, ry, hx);
    check_unfreed(s, dx);
    check_per_thread(dx, hx);
    CK(cudaFree(dx));
    CK(cudaFree(dy));
    CK(cudaFreeHost(hy));
    CK(cudaStreamDestroy(s));
    free(hx);
    free(ry);
    return zt_finish();
}
