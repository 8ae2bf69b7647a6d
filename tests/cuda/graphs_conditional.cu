// graphs_conditional.cu: conditional graph nodes (IF/ELSE, WHILE, SWITCH)
// whose conditions kernels set with cudaGraphSetConditional, and handles
// reset to their default at each launch. Expected values are worked out
// here from the kernels' arithmetic; buffers are poisoned before launches.
#include "zn_test.h"

__global__ void set_cond(cudaGraphConditionalHandle h, unsigned v)
{
    if (threadIdx.x == 0)
        cudaGraphSetConditional(h, v);
}

__global__ void write_val(int *p, int v)
{
    p[threadIdx.x] = v + (int)threadIdx.x;
}

// one loop pass: counter += 1, keep going while counter < limit
__global__ void loop_step(int *counter, int limit, cudaGraphConditionalHandle h)
{
    if (threadIdx.x == 0) {
        int c = ++*counter;
        cudaGraphSetConditional(h, c < limit);
    }
}

static const int T = 32;

static cudaGraphNode_t add_kernel(cudaGraph_t g, const cudaGraphNode_t *deps, size_t n,
                                  void *fn, void **args)
{
    cudaKernelNodeParams kp = {};
    kp.func = fn;
    kp.gridDim = dim3(1);
    kp.blockDim = dim3(T);
    kp.kernelParams = args;
    cudaGraphNode_t node;
    CK(cudaGraphAddKernelNode(&node, g, deps, n, &kp));
    return node;
}

static void check_vals(const int *d, int v, const char *what)
{
    int h[T];
    CK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    for (int i = 0; i < T; i++)
        if (h[i] != v + i) {
            zt_fail("%s: [%d] = %d, expected %d", what, i, h[i], v + i);
            return;
        }
}

// set_cond(h, c) -> IF (body 0 writes 100+i, body 1 writes 200+i)
static void check_if(cudaStream_t s, int *d)
{
    cudaGraph_t g;
    CK(cudaGraphCreate(&g, 0));
    cudaGraphConditionalHandle h;
    CK(cudaGraphConditionalHandleCreate(&h, g, 1, cudaGraphCondAssignDefault));
    unsigned c = 0;
    void *sargs[] = { &h, &c };
    cudaGraphNode_t ns = add_kernel(g, NULL, 0, (void *)set_cond, sargs);
    cudaGraphNodeParams cp = {};
    cp.type = cudaGraphNodeTypeConditional;
    cp.conditional.handle = h;
    cp.conditional.type = cudaGraphCondTypeIf;
    cp.conditional.size = 2;
    cudaGraphNode_t nc;
    CK(cudaGraphAddNode(&nc, g, &ns, NULL, 1, &cp));
    cudaGraph_t then_g = cp.conditional.phGraph_out[0], else_g = cp.conditional.phGraph_out[1];
    int v1 = 100, v2 = 200;
    void *a1[] = { &d, &v1 }, *a2[] = { &d, &v2 };
    add_kernel(then_g, NULL, 0, (void *)write_val, a1);
    add_kernel(else_g, NULL, 0, (void *)write_val, a2);
    cudaGraphExec_t x;
    CK(cudaGraphInstantiate(&x, g, 0));
    CK(cudaMemset(d, 0xff, T * sizeof(int)));
    CK(cudaGraphLaunch(x, s));          // the kernel sets 0: else
    CK(cudaStreamSynchronize(s));
    check_vals(d, 200, "IF with the condition set to 0");
    c = 1;
    cudaKernelNodeParams kp = {};
    kp.func = (void *)set_cond;
    kp.gridDim = dim3(1);
    kp.blockDim = dim3(T);
    kp.kernelParams = sargs;
    CK(cudaGraphExecKernelNodeSetParams(x, ns, &kp));
    CK(cudaMemset(d, 0xff, T * sizeof(int)));
    CK(cudaGraphLaunch(x, s));          // sets 1: then
    CK(cudaStreamSynchronize(s));
    check_vals(d, 100, "IF with the condition set to 1");
    CK(cudaGraphExecDestroy(x));

    // no kernel setting it: the default (1) decides
    CK(cudaGraphDestroyNode(ns));
    CK(cudaGraphInstantiate(&x, g, 0));
    CK(cudaMemset(d, 0xff, T * sizeof(int)));
    CK(cudaGraphLaunch(x, s));
    CK(cudaStreamSynchronize(s));
    check_vals(d, 100, "IF with the default value 1");
    CK(cudaGraphExecDestroy(x));
    CK(cudaGraphDestroy(g));

    // misuse: IF with 3 bodies, unknown flags
    CK(cudaGraphCreate(&g, 0));
    CK(cudaGraphConditionalHandleCreate(&h, g, 0, 0));
    cp.conditional.handle = h;
    cp.conditional.size = 3;
    if (cudaGraphAddNode(&nc, g, NULL, NULL, 0, &cp) == cudaSuccess)
        zt_fail("an IF node with 3 bodies was accepted");
    (void)cudaGetLastError();
    if (cudaGraphConditionalHandleCreate(&h, g, 0, 0x80) == cudaSuccess)
        zt_fail("a handle with unknown flags was created");
    (void)cudaGetLastError();
    CK(cudaGraphDestroy(g));
}

// WHILE: the body's kernel counts and keeps the loop going below 10
static void check_while(cudaStream_t s, int *counter)
{
    cudaGraph_t g;
    CK(cudaGraphCreate(&g, 0));
    cudaGraphConditionalHandle h;
    CK(cudaGraphConditionalHandleCreate(&h, g, 1, cudaGraphCondAssignDefault));
    cudaGraphNodeParams cp = {};
    cp.type = cudaGraphNodeTypeConditional;
    cp.conditional.handle = h;
    cp.conditional.type = cudaGraphCondTypeWhile;
    cp.conditional.size = 1;
    cudaGraphNode_t nc;
    CK(cudaGraphAddNode(&nc, g, NULL, NULL, 0, &cp));
    int limit = 10;
    void *args[] = { &counter, &limit, &h };
    add_kernel(cp.conditional.phGraph_out[0], NULL, 0, (void *)loop_step, args);
    cudaGraphExec_t x;
    CK(cudaGraphInstantiate(&x, g, 0));
    CK(cudaMemset(counter, 0, sizeof(int)));
    CK(cudaGraphLaunch(x, s));
    CK(cudaStreamSynchronize(s));
    int c = -1;
    CK(cudaMemcpy(&c, counter, sizeof c, cudaMemcpyDeviceToHost));
    if (c != 10)
        zt_fail("WHILE ran %d times, expected 10", c);
    CK(cudaGraphLaunch(x, s));          // default 1 again: one more pass (11 >= 10)
    CK(cudaStreamSynchronize(s));
    CK(cudaMemcpy(&c, counter, sizeof c, cudaMemcpyDeviceToHost));
    if (c != 11)
        zt_fail("WHILE relaunch left the counter at %d, expected 11", c);
    CK(cudaGraphExecDestroy(x));
    CK(cudaGraphDestroy(g));

    // default 0 without ASSIGN_DEFAULT: the body never runs
    CK(cudaGraphCreate(&g, 0));
    CK(cudaGraphConditionalHandleCreate(&h, g, 0, 0));
    cp.conditional.handle = h;
    CK(cudaGraphAddNode(&nc, g, NULL, NULL, 0, &cp));
    add_kernel(cp.conditional.phGraph_out[0], NULL, 0, (void *)loop_step, args);
    CK(cudaGraphInstantiate(&x, g, 0));
    CK(cudaGraphLaunch(x, s));
    CK(cudaStreamSynchronize(s));
    CK(cudaMemcpy(&c, counter, sizeof c, cudaMemcpyDeviceToHost));
    if (c != 11)
        zt_fail("WHILE with the condition 0 ran: counter %d", c);
    CK(cudaGraphExecDestroy(x));
    CK(cudaGraphDestroy(g));

    // the body captured from a stream into the node's own graph, the
    // capture ended without asking for the graph back (as CUDA's
    // graphConditionalNodes sample does)
    CK(cudaGraphCreate(&g, 0));
    CK(cudaGraphConditionalHandleCreate(&h, g, 1, cudaGraphCondAssignDefault));
    cp.conditional.handle = h;
    CK(cudaGraphAddNode(&nc, g, NULL, NULL, 0, &cp));
    cudaStream_t cs;
    CK(cudaStreamCreate(&cs));
    CK(cudaStreamBeginCaptureToGraph(cs, cp.conditional.phGraph_out[0], NULL, NULL, 0,
                                     cudaStreamCaptureModeGlobal));
    loop_step<<<1, 1, 0, cs>>>(counter, 7, h);
    CK(cudaStreamEndCapture(cs, NULL));
    CK(cudaStreamDestroy(cs));
    size_t nbody = 0;
    CK(cudaGraphGetNodes(cp.conditional.phGraph_out[0], NULL, &nbody));
    if (nbody != 1)
        zt_fail("captured WHILE body has %zu nodes, expected 1", nbody);
    CK(cudaGraphInstantiate(&x, g, 0));
    CK(cudaMemset(counter, 0, sizeof(int)));
    CK(cudaGraphLaunch(x, s));
    CK(cudaStreamSynchronize(s));
    CK(cudaMemcpy(&c, counter, sizeof c, cudaMemcpyDeviceToHost));
    if (c != 7)
        zt_fail("captured WHILE body ran %d times, expected 7", c);
    CK(cudaGraphExecDestroy(x));
    CK(cudaGraphDestroy(g));
}

// SWITCH over 3 bodies: body k writes 10 * (k + 1) + i
static void check_switch(cudaStream_t s, int *d)
{
    cudaGraph_t g;
    CK(cudaGraphCreate(&g, 0));
    cudaGraphConditionalHandle h;
    CK(cudaGraphConditionalHandleCreate(&h, g, 0, cudaGraphCondAssignDefault));
    unsigned c = 2;
    void *sargs[] = { &h, &c };
    cudaGraphNode_t ns = add_kernel(g, NULL, 0, (void *)set_cond, sargs);
    cudaGraphNodeParams cp = {};
    cp.type = cudaGraphNodeTypeConditional;
    cp.conditional.handle = h;
    cp.conditional.type = cudaGraphCondTypeSwitch;
    cp.conditional.size = 3;
    cudaGraphNode_t nc;
    CK(cudaGraphAddNode(&nc, g, &ns, NULL, 1, &cp));
    int vals[3] = { 10, 20, 30 };
    void *args[3][2];
    for (int k = 0; k < 3; k++) {
        args[k][0] = &d;
        args[k][1] = &vals[k];
        add_kernel(cp.conditional.phGraph_out[k], NULL, 0, (void *)write_val, args[k]);
    }
    cudaGraphExec_t x;
    CK(cudaGraphInstantiate(&x, g, 0));
    CK(cudaMemset(d, 0xff, T * sizeof(int)));
    CK(cudaGraphLaunch(x, s));
    CK(cudaStreamSynchronize(s));
    check_vals(d, 30, "SWITCH on 2");
    CK(cudaGraphExecDestroy(x));
    // out of range: no body
    c = 7;
    cudaKernelNodeParams kp = {};
    kp.func = (void *)set_cond;
    kp.gridDim = dim3(1);
    kp.blockDim = dim3(T);
    kp.kernelParams = sargs;
    CK(cudaGraphKernelNodeSetParams(ns, &kp));
    CK(cudaGraphInstantiate(&x, g, 0));
    CK(cudaMemset(d, 0x7f, T * sizeof(int)));
    CK(cudaGraphLaunch(x, s));
    CK(cudaStreamSynchronize(s));
    int hv[T];
    CK(cudaMemcpy(hv, d, sizeof hv, cudaMemcpyDeviceToHost));
    if (hv[0] != 0x7f7f7f7f)
        zt_fail("SWITCH on 7 (3 bodies) ran a body: %d", hv[0]);
    CK(cudaGraphExecDestroy(x));
    CK(cudaGraphDestroy(g));
}

int main()
{
    zt_begin("graphs_conditional");
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    int *d, *counter;
    CK(cudaMalloc(&d, T * sizeof(int)));
    CK(cudaMalloc(&counter, sizeof(int)));
    check_if(s, d);
    check_while(s, counter);
    check_switch(s, d);
    CK(cudaFree(d));
    CK(cudaFree(counter));
    CK(cudaStreamDestroy(s));
    return zt_finish();
}
