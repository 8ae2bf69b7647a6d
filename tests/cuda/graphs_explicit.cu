// graphs_explicit.cu: a graph built node by node (memset, memcpy, kernels,
// a host node, a child graph, event record/wait, an empty join node),
// checked for its structure (nodes, roots, edges, node parameters) and run
// five times, each run checked against a CPU reference.
#include "zn_test.h"

__global__ void axpb(float *x, int n, float a, float b)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] = a * x[i] + b;
}

static const int N = 1000;
static int host_runs;

/* A kernel node x = a x + b over the N elements, after deps. */
static cudaGraphNode_t add_axpb(cudaGraph_t g, const cudaGraphNode_t *deps, size_t ndeps,
                                void **args)
{
    cudaKernelNodeParams kp = {};
    kp.func = (void *)axpb;
    kp.gridDim = dim3((N + 127) / 128);
    kp.blockDim = dim3(128);
    kp.kernelParams = args;
    cudaGraphNode_t n;
    CK(cudaGraphAddKernelNode(&n, g, deps, ndeps, &kp));
    return n;
}

static int destroyed;
static void CUDART_CB destroy_obj(void *p)
{
    destroyed += *(int *)p;
}

/* User objects: references held by graphs, clones, instantiations and
 * launches; the destructor runs when the last one goes. */
static void check_user_objects(cudaStream_t s, float *dx)
{
    int weight = 1;
    cudaUserObject_t obj;
    CK(cudaUserObjectCreate(&obj, &weight, destroy_obj, 1, cudaUserObjectNoDestructorSync));
    cudaGraph_t g, clone;
    CK(cudaGraphCreate(&g, 0));
    int n_elems = N;
    float a = 1.0f, b = 0.0f;
    void *args[] = { &dx, &n_elems, &a, &b };
    add_axpb(g, NULL, 0, args);
    CK(cudaGraphRetainUserObject(g, obj, 2, 0));         /* graph: 2, caller: 1 */
    CK(cudaUserObjectRelease(obj, 1));                    /* caller's gone */
    if (destroyed)
        zt_fail("user object destroyed while a graph holds it");
    CK(cudaGraphClone(&clone, g));
    CK(cudaGraphReleaseUserObject(g, obj, 2));
    if (cudaGraphReleaseUserObject(g, obj, 1) == cudaSuccess)
        zt_fail("released a reference the graph no longer holds");
    (void)cudaGetLastError();
    if (destroyed)
        zt_fail("user object destroyed while the clone holds it");
    cudaGraphExec_t x;
    CK(cudaGraphInstantiate(&x, clone, 0));
    CK(cudaGraphDestroy(clone));
    CK(cudaGraphLaunch(x, s));
    CK(cudaGraphExecDestroy(x));       /* the launch still holds one */
    CK(cudaStreamSynchronize(s));
    if (destroyed != 1)
        zt_fail("user object destroyed %d times after the last launch, expected 1", destroyed);
    CK(cudaGraphDestroy(g));
    if (cudaUserObjectCreate(&obj, &weight, destroy_obj, 1, 0) == cudaSuccess)
        zt_fail("cudaUserObjectCreate without cudaUserObjectNoDestructorSync succeeded");
    (void)cudaGetLastError();
}

/* The kernelParams array cudaGraphKernelNodeGetParams returns stays
 * valid across cudaGraphKernelNodeSetParams: llama.cpp keeps it, stores a
 * new argument pointer into it each token and sets the node again. */
static void check_params_kept(cudaStream_t s, float *dx)
{
    cudaGraph_t g;
    CK(cudaGraphCreate(&g, 0));
    int n_elems = N;
    float a = 0.0f, b = 1.0f;
    void *args[] = { &dx, &n_elems, &a, &b };
    cudaGraphNode_t n = add_axpb(g, NULL, 0, args);
    cudaKernelNodeParams got;
    CK(cudaGraphKernelNodeGetParams(n, &got));
    float hx[N];
    for (int step = 2; step <= 4; step++) {
        float bs = (float)step;
        got.kernelParams[3] = &bs;             /* x = 0 * x + step */
        CK(cudaGraphKernelNodeSetParams(n, &got));
        cudaGraphExec_t x;
        CK(cudaGraphInstantiate(&x, g, 0));
        CK(cudaGraphLaunch(x, s));
        CK(cudaStreamSynchronize(s));
        CK(cudaMemcpy(hx, dx, sizeof hx, cudaMemcpyDeviceToHost));
        if (hx[0] != bs || hx[N - 1] != bs)
            zt_fail("kernel node set %d times from one GetParams: x = %g, expected %g",
                    step - 1, hx[0], bs);
        CK(cudaGraphExecDestroy(x));
    }
    CK(cudaGraphDestroy(g));
}

static void CUDART_CB count_run(void *p)
{
    ++*(int *)p;
}

int main(void)
{
    zt_begin("graphs_explicit");
    float *dx, *hx;
    CK(cudaMalloc(&dx, N * sizeof(float)));
    CK(cudaMallocHost(&hx, N * sizeof(float)));
    cudaGraph_t g, child;
    CK(cudaGraphCreate(&g, 0));
    CK(cudaGraphCreate(&child, 0));

    // memset x = 0 (as 32-bit words of 0.0f)
    cudaMemsetParams ms = {};
    ms.dst = dx;
    ms.value = 0;
    ms.elementSize = 4;
    ms.width = N;
    ms.height = 1;
    cudaGraphNode_t nset, nk1, nchild, nhost, nempty, ncopy;
    CK(cudaGraphAddMemsetNode(&nset, g, NULL, 0, &ms));
    // x = 3x + 2  -> 2
    int n = N;
    float a = 3.0f, b = 2.0f;
    void *args[] = { &dx, &n, &a, &b };
    cudaKernelNodeParams kp = {};
    kp.func = (void *)axpb;
    kp.gridDim = dim3((N + 127) / 128);
    kp.blockDim = dim3(128);
    kp.kernelParams = args;
    CK(cudaGraphAddKernelNode(&nk1, g, &nset, 1, &kp));
    a = 100.0f;     // the node keeps 3
    // child graph: x = 0.5x + 1 twice  -> 2 -> 2 -> 2
    float ca = 0.5f, cb = 1.0f;
    void *cargs[] = { &dx, &n, &ca, &cb };
    kp.kernelParams = cargs;
    cudaGraphNode_t c1, c2;
    CK(cudaGraphAddKernelNode(&c1, child, NULL, 0, &kp));
    CK(cudaGraphAddKernelNode(&c2, child, &c1, 1, &kp));
    CK(cudaGraphAddChildGraphNode(&nchild, g, &nk1, 1, child));
    // host node beside the child, both joined by an empty node
    cudaHostNodeParams hp = { count_run, &host_runs };
    CK(cudaGraphAddHostNode(&nhost, g, &nk1, 1, &hp));
    cudaGraphNode_t join[2] = { nchild, nhost };
    CK(cudaGraphAddEmptyNode(&nempty, g, join, 2));
    CK(cudaGraphAddMemcpyNode1D(&ncopy, g, &nempty, 1, hx, dx, N * sizeof(float),
                                cudaMemcpyDeviceToHost));
    // an event record after the copy, waited on by another stream
    cudaEvent_t ev;
    CK(cudaEventCreate(&ev));
    cudaGraphNode_t nrec;
    CK(cudaGraphAddEventRecordNode(&nrec, g, &ncopy, 1, ev));

    size_t count = 0;
    CK(cudaGraphGetNodes(g, NULL, &count));
    if (count != 7)
        zt_fail("%zu nodes, expected 7", count);
    cudaGraphNode_t roots[4];
    size_t nroots = 4;
    CK(cudaGraphGetRootNodes(g, roots, &nroots));
    if (nroots != 1 || roots[0] != nset)
        zt_fail("%zu roots, expected the memset node", nroots);
    size_t nedges = 0;
    CK(cudaGraphGetEdges(g, NULL, NULL, NULL, &nedges));
    if (nedges != 7)
        zt_fail("%zu edges, expected 7", nedges);
    size_t ndeps = 0;
    CK(cudaGraphNodeGetDependencies(nempty, NULL, NULL, &ndeps));
    if (ndeps != 2)
        zt_fail("empty node has %zu dependencies, expected 2", ndeps);
    cudaKernelNodeParams back;
    CK(cudaGraphKernelNodeGetParams(nk1, &back));
    if (back.gridDim.x != (N + 127) / 128 || back.blockDim.x != 128 ||
        *(float *)back.kernelParams[2] != 3.0f)
        zt_fail("kernel node params read back wrong");
    cudaMemsetParams msb;
    CK(cudaGraphMemsetNodeGetParams(nset, &msb));
    if (msb.width != N || msb.elementSize != 4)
        zt_fail("memset node params read back wrong");

    cudaGraphExec_t x;
    CK(cudaGraphInstantiate(&x, g, 0));
    cudaStream_t s, t;
    CK(cudaStreamCreate(&s));
    CK(cudaStreamCreate(&t));
    for (int rep = 0; rep < 5; rep++) {
        for (int i = 0; i < N; i++)
            hx[i] = -1.0f;
        CK(cudaGraphLaunch(x, s));
        CK(cudaStreamWaitEvent(t, ev, 0));
        CK(cudaStreamSynchronize(t));
        CK(cudaEventSynchronize(ev));
        float ref = 3.0f * 0.0f + 2.0f;
        ref = 0.5f * ref + 1.0f;
        ref = 0.5f * ref + 1.0f;
        for (int i = 0; i < N; i++)
            if (hx[i] != ref) {
                zt_fail("run %d: x[%d] = %g, expected %g", rep, i, hx[i], ref);
                break;
            }
    }
    CK(cudaStreamSynchronize(s));
    if (host_runs != 5)
        zt_fail("host node ran %d times, expected 5", host_runs);

    // change the host node's target in the instantiated graph only
    int other = 0;
    cudaHostNodeParams hp2 = { count_run, &other };
    CK(cudaGraphExecHostNodeSetParams(x, nhost, &hp2));
    CK(cudaGraphLaunch(x, s));
    CK(cudaStreamSynchronize(s));
    if (other != 1 || host_runs != 5)
        zt_fail("exec host node params: other %d, host_runs %d", other, host_runs);

    CK(cudaGraphExecDestroy(x));
    CK(cudaGraphDestroy(g));
    CK(cudaGraphDestroy(child));
    check_user_objects(s, dx);
    check_params_kept(s, dx);
    CK(cudaEventDestroy(ev));
    CK(cudaStreamDestroy(s));
    CK(cudaStreamDestroy(t));
    CK(cudaFree(dx));
    CK(cudaFreeHost(hx));
    return zt_finish();
}
