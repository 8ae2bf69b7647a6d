// graphs_capture.cu: stream capture of a multi-kernel sequence forked
// over two streams and joined with events, replayed 10 times with the
// results checked after each replay; kernel parameters copied at capture
// time (the host variables change afterwards); cudaGraphExecKernelNodeSetParams
// and cudaGraphExecUpdate change a replayed argument.
#include "zn_test.h"

__global__ void axpb(float *x, int n, float a, float b)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] = a * x[i] + b;
}

__global__ void add_into(const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] += x[i];
}

static const int N = 2048;
static const int B = (N + 255) / 256;

// One step as captured: x = 2x + b1 on s; y = 0.5y + 1 on t (forked);
// joined: y += x; then a host-visible copy of y.
static void step_ref(float *x, float *y, float b1)
{
    for (int i = 0; i < N; i++) {
        x[i] = 2.0f * x[i] + b1;
        y[i] = 0.5f * y[i] + 1.0f;
        y[i] += x[i];
    }
}

static cudaGraph_t capture(cudaStream_t s, cudaStream_t t, float *dx, float *dy, float *hy,
                           float b1)
{
    cudaEvent_t fork, join;
    CK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
    CK(cudaEventCreateWithFlags(&join, cudaEventDisableTiming));
    cudaGraph_t g;
    CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    cudaStreamCaptureStatus st;
    CK(cudaStreamIsCapturing(s, &st));
    if (st != cudaStreamCaptureStatusActive)
        zt_fail("capture status %d", (int)st);
    CK(cudaEventRecord(fork, s));
    CK(cudaStreamWaitEvent(t, fork, 0));
    float a = 2.0f, b = b1;
    axpb<<<B, 256, 0, s>>>(dx, N, a, b);
    a = 99.0f;      // changed after the launch: the graph keeps 2 and b1
    b = 99.0f;
    axpb<<<B, 256, 0, t>>>(dy, N, 0.5f, 1.0f);
    CK(cudaEventRecord(join, t));
    CK(cudaStreamWaitEvent(s, join, 0));
    add_into<<<B, 256, 0, s>>>(dx, dy, N);
    CK(cudaMemcpyAsync(hy, dy, N * sizeof(float), cudaMemcpyDeviceToHost, s));
    CK(cudaStreamEndCapture(s, &g));
    CK(cudaStreamIsCapturing(s, &st));
    if (st != cudaStreamCaptureStatusNone)
        zt_fail("still capturing after the end");
    CK(cudaEventDestroy(fork));
    CK(cudaEventDestroy(join));
    return g;
}

static void check(const float *got, const float *ref, const char *what, int rep)
{
    for (int i = 0; i < N; i++)
        if (got[i] != ref[i]) {
            zt_fail("%s, replay %d: y[%d] = %g, expected %g", what, rep, i, got[i], ref[i]);
            return;
        }
}

int main(void)
{
    zt_begin("graphs_capture");
    cudaStream_t s, t;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CK(cudaStreamCreateWithFlags(&t, cudaStreamNonBlocking));
    float *dx, *dy, *hy, *hx0 = (float *)malloc(N * sizeof(float));
    float *rx = (float *)malloc(N * sizeof(float)), *ry = (float *)malloc(N * sizeof(float));
    CK(cudaMalloc(&dx, N * sizeof(float)));
    CK(cudaMalloc(&dy, N * sizeof(float)));
    CK(cudaMallocHost(&hy, N * sizeof(float)));
    for (int i = 0; i < N; i++) {
        hx0[i] = (float)(i % 13) * 0.25f;
        rx[i] = hx0[i];
        ry[i] = 1.0f;
    }
    CK(cudaMemcpy(dx, hx0, N * sizeof(float), cudaMemcpyHostToDevice));
    for (int i = 0; i < N; i++)
        hy[i] = 1.0f;
    CK(cudaMemcpy(dy, hy, N * sizeof(float), cudaMemcpyHostToDevice));

    cudaGraph_t g = capture(s, t, dx, dy, hy, 1.0f);
    size_t nn = 0;
    CK(cudaGraphGetNodes(g, NULL, &nn));
    if (nn != 4)
        zt_fail("captured %zu nodes, expected 4", nn);
    size_t ne = 0;
    CK(cudaGraphGetEdges(g, NULL, NULL, NULL, &ne));
    if (ne != 3)    // axpb(x) -> add, axpb(y) -> add, add -> copy
        zt_fail("captured %zu edges, expected 3", ne);
    cudaGraphExec_t x;
    CK(cudaGraphInstantiate(&x, g, 0));
    for (int rep = 0; rep < 10; rep++) {
        CK(cudaGraphLaunch(x, s));
        CK(cudaStreamSynchronize(s));
        step_ref(rx, ry, 1.0f);
        check(hy, ry, "capture", rep);
    }

    // change b1 of the first kernel node in the instantiated graph
    cudaGraphNode_t nodes[8];
    nn = 8;
    CK(cudaGraphGetNodes(g, nodes, &nn));
    cudaGraphNode_t k0 = NULL;
    for (size_t i = 0; i < nn && !k0; i++) {
        cudaGraphNodeType ty;
        CK(cudaGraphNodeGetType(nodes[i], &ty));
        cudaKernelNodeParams p;
        if (ty == cudaGraphNodeTypeKernel) {
            CK(cudaGraphKernelNodeGetParams(nodes[i], &p));
            if (p.func == (void *)axpb && *(float *)p.kernelParams[2] == 2.0f)
                k0 = nodes[i];
        }
    }
    if (!k0) {
        zt_fail("kernel node axpb(x, 2, 1) not found");
    } else {
        cudaKernelNodeParams p;
        CK(cudaGraphKernelNodeGetParams(k0, &p));
        int n = N;
        float a = 2.0f, b = -3.0f;
        void *args[] = { &dx, &n, &a, &b };
        p.kernelParams = args;
        CK(cudaGraphExecKernelNodeSetParams(x, k0, &p));
        for (int rep = 0; rep < 3; rep++) {
            CK(cudaGraphLaunch(x, s));
            CK(cudaStreamSynchronize(s));
            step_ref(rx, ry, -3.0f);
            check(hy, ry, "exec kernel node set params", rep);
        }
    }

    // recapture with another b1 and update the executable graph in place
    cudaGraph_t g2 = capture(s, t, dx, dy, hy, 0.5f);
    cudaGraphExecUpdateResultInfo info;
    CK(cudaGraphExecUpdate(x, g2, &info));
    if (info.result != cudaGraphExecUpdateSuccess)
        zt_fail("exec update result %d", (int)info.result);
    for (int rep = 0; rep < 3; rep++) {
        CK(cudaGraphLaunch(x, s));
        CK(cudaStreamSynchronize(s));
        step_ref(rx, ry, 0.5f);
        check(hy, ry, "exec update", rep);
    }
    // a graph of another shape is refused
    cudaGraph_t g3;
    CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed));
    axpb<<<B, 256, 0, s>>>(dx, N, 1.0f, 0.0f);
    CK(cudaStreamEndCapture(s, &g3));
    if (cudaGraphExecUpdate(x, g3, &info) == cudaSuccess)
        zt_fail("exec update of a different topology succeeded");
    (void)cudaGetLastError();

    CK(cudaGraphExecDestroy(x));
    CK(cudaGraphDestroy(g));
    CK(cudaGraphDestroy(g2));
    CK(cudaGraphDestroy(g3));
    CK(cudaFree(dx));
    CK(cudaFree(dy));
    CK(cudaFreeHost(hy));
    CK(cudaStreamDestroy(s));
    CK(cudaStreamDestroy(t));
    free(hx0);
    free(rx);
    free(ry);
    return zt_finish();
}
