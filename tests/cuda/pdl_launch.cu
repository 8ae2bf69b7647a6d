// pdl_launch.cu: programmatic dependent launch (sm_90) through the runtime.
//
// A primary kernel writes data[] and triggers its dependents
// (cudaTriggerProgrammaticLaunchCompletion); a secondary kernel launched with
// cudaLaunchKernelEx and cudaLaunchAttributeProgrammaticStreamSerialization
// does its own preamble, waits with cudaGridDependencySynchronize and reads
// data[]. Zinc runs the secondary after the primary (a valid schedule), so
// every element must be the primary's. Then: the programmatic event and
// launch-completion event attributes (another stream waits on them and
// reads the primary's output), and the pair captured into a graph, whose
// edge must be a programmatic one (type and port read back with
// cudaGraphGetEdges) and whose replays give the same results.
#include "zn_test.h"

__global__ void primary(int *data, int n, int salt)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        data[i] = i * 7 + salt;
    cudaTriggerProgrammaticLaunchCompletion();
}

__global__ void secondary(const int *data, int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int pre = i * 3;                        // work that needs nothing from primary
    cudaGridDependencySynchronize();
    if (i < n)
        out[i] = data[i] * 2 + pre;
}

__global__ void reader(const int *data, int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = data[i] + 1;
}

static const int N = 20000, B = 128, G = (N + B - 1) / B;

static void check(const int *h, int salt, const char *what)
{
    long bad = 0;
    for (int i = 0; i < N; i++) {
        int want = (i * 7 + salt) * 2 + i * 3;
        if (h[i] != want && bad++ < 3)
            zt_fail("%s: out[%d] = %d, want %d", what, i, h[i], want);
    }
}

/* A launch of G blocks of B threads on s with the one attribute at[0]. */
static cudaLaunchConfig_t config(cudaStream_t s, cudaLaunchAttribute *at)
{
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(G);
    cfg.blockDim = dim3(B);
    cfg.stream = s;
    cfg.attrs = at;
    cfg.numAttrs = 1;
    return cfg;
}

static void launch_pair(cudaStream_t s, int *data, int *out, int salt)
{
    primary<<<G, B, 0, s>>>(data, N, salt);
    CK(cudaGetLastError());
    cudaLaunchAttribute at[1];
    at[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    at[0].val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t cfg = config(s, at);
    CK(cudaLaunchKernelEx(&cfg, secondary, (const int *)data, out, N));
}

int main()
{
    zt_begin("pdl_launch");
    int *data, *out, *out2;
    CK(cudaMalloc(&data, N * sizeof(int)));
    CK(cudaMalloc(&out, N * sizeof(int)));
    CK(cudaMalloc(&out2, N * sizeof(int)));
    int *h = (int *)malloc(N * sizeof(int));
    cudaStream_t s, s2;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));

    // 1. stream serialization
    CK(cudaMemset(out, 0xff, N * sizeof(int)));
    launch_pair(s, data, out, 5);
    CK(cudaStreamSynchronize(s));
    CK(cudaMemcpy(h, out, N * sizeof(int), cudaMemcpyDeviceToHost));
    check(h, 5, "stream serialization");

    // 2. programmatic and launch-completion events: s2 waits on each
    for (int k = 0; k < 2; k++) {
        cudaEvent_t ev;
        CK(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
        CK(cudaMemset(out2, 0xff, N * sizeof(int)));
        cudaLaunchAttribute at[1];
        if (k == 0) {
            at[0].id = cudaLaunchAttributeProgrammaticEvent;
            at[0].val.programmaticEvent.event = ev;
            at[0].val.programmaticEvent.flags = 0;
            at[0].val.programmaticEvent.triggerAtBlockStart = 0;
        } else {
            at[0].id = cudaLaunchAttributeLaunchCompletionEvent;
            at[0].val.launchCompletionEvent.event = ev;
            at[0].val.launchCompletionEvent.flags = 0;
        }
        cudaLaunchConfig_t cfg = config(s, at);
        CK(cudaLaunchKernelEx(&cfg, primary, data, N, 40 + k));
        CK(cudaStreamWaitEvent(s2, ev, 0));
        // the waiting stream may start once the primary has triggered; it
        // reads data only after cudaGridDependencySynchronize-equivalent
        // ordering, which the event gives on Zinc (the grid is done)
        reader<<<G, B, 0, s2>>>(data, out2, N);
        CK(cudaGetLastError());
        CK(cudaStreamSynchronize(s2));
        CK(cudaStreamSynchronize(s));
        CK(cudaMemcpy(h, out2, N * sizeof(int), cudaMemcpyDeviceToHost));
        long bad = 0;
        for (int i = 0; i < N; i++)
            if (h[i] != i * 7 + 40 + k + 1 && bad++ < 3)
                zt_fail("event %d: out2[%d] = %d", k, i, h[i]);
        CK(cudaEventDestroy(ev));
    }

    // 3. captured: a programmatic edge, replayed
    cudaGraph_t g;
    CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    launch_pair(s, data, out, 9);
    CK(cudaStreamEndCapture(s, &g));
    size_t ne = 0;
    CK(cudaGraphGetEdges(g, nullptr, nullptr, nullptr, &ne));
    if (ne != 1) {
        zt_fail("captured graph: %zu edges, want 1", ne);
    } else {
        cudaGraphNode_t from, to;
        cudaGraphEdgeData ed;
        memset(&ed, 0x5a, sizeof ed);
        CK(cudaGraphGetEdges(g, &from, &to, &ed, &ne));
        if (ed.type != cudaGraphDependencyTypeProgrammatic ||
            ed.from_port != cudaGraphKernelNodePortProgrammatic || ed.to_port != 0)
            zt_fail("captured edge: type %d from_port %d to_port %d", ed.type, ed.from_port,
                    ed.to_port);
    }
    cudaGraphExec_t x;
    CK(cudaGraphInstantiate(&x, g, 0));
    for (int rep = 0; rep < 3; rep++) {
        CK(cudaMemset(out, 0xff, N * sizeof(int)));
        CK(cudaGraphLaunch(x, s));
        CK(cudaStreamSynchronize(s));
        CK(cudaMemcpy(h, out, N * sizeof(int), cudaMemcpyDeviceToHost));
        check(h, 9, "graph replay");
    }
    CK(cudaGraphExecDestroy(x));
    CK(cudaGraphDestroy(g));

    CK(cudaStreamDestroy(s));
    CK(cudaStreamDestroy(s2));
    CK(cudaFree(data));
    CK(cudaFree(out));
    CK(cudaFree(out2));
    free(h);
    return zt_finish();
}
