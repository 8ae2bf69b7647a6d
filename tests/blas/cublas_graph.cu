/* cublas_graph: cuBLAS and cuBLASLt calls inside stream capture, as
 * llama.cpp's CUDA graphs make them. During capture nothing may run (the
 * GEMM's output stays poisoned); each replay must run kernel -> GEMM ->
 * kernel in order on the values of that replay; the captured arguments
 * must outlive the graph they were captured into (the graph is destroyed
 * right after instantiation, and the descriptors of the cuBLASLt call
 * right after the call); cudaGraphExecUpdate with a graph captured on
 * other buffers must make the next launch use them.
 *
 * All values are small integers, so f32 products are exact and compared
 * exactly against a host reference. */
#include <cublasLt.h>
#include <cublas_v2.h>

#include "blas_test.h"

#define N 32
#define NN (N * N)

/* a[i] = (i * 7 + salt) % 5 - 2, salt read from device memory */
__global__ void fill(float *a, const int *salt)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < NN)
        a[i] = (float)((i * 7 + *salt) % 5 - 2);
}

__global__ void add_one(float *d, const float *c)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < NN)
        d[i] = c[i] + 1.0f;
}

static void host_fill(float *a, int salt)
{
    for (int i = 0; i < NN; i++)
        a[i] = (float)((i * 7 + salt) % 5 - 2);
}

/* d = A * B + 1 (column-major) against what the device computed */
static void check(const float *dev_d, const float *ha, const float *hb, const char *what)
{
    for (int j = 0; j < N; j++)
        for (int i = 0; i < N; i++) {
            float ref = 1.0f;
            for (int k = 0; k < N; k++)
                ref += ha[i + k * N] * hb[k + j * N];
            if (dev_d[i + j * N] != ref) {
                CHECK(0, "%s: D[%d,%d] = %g, expected %g", what, i, j, dev_d[i + j * N], ref);
                return;
            }
        }
    CHECK(1, "%s", what);
}

static void poison(float *p, cudaStream_t s)
{
    CUDA_OK(cudaMemsetAsync(p, 0xff, NN * sizeof(float), s));   /* NaN */
    CUDA_OK(cudaStreamSynchronize(s));
}

/* fill(A) -> C = A * B (cublasSgemm) -> D = C + 1, captured on s */
static cudaGraph_t capture_sgemm(cudaStream_t s, cublasHandle_t h, float *a, const float *b,
                                 float *c, float *d, const int *salt)
{
    const float one = 1.0f, zero = 0.0f;
    cudaGraph_t g = NULL;
    CUDA_OK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    fill<<<NN / 128, 128, 0, s>>>(a, salt);
    STATUS_OK(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, N, N, N, &one, a, N, b, N, &zero, c, N));
    add_one<<<NN / 128, 128, 0, s>>>(d, c);
    CUDA_OK(cudaStreamEndCapture(s, &g));
    return g;
}

/* C = A * B through cuBLASLt, descriptors made and destroyed around the
 * call (llm.c does this), then D = C + 1 */
static cudaGraph_t capture_lt(cudaStream_t s, cublasLtHandle_t lt, float *a, const float *b,
                              float *c, float *d, const int *salt)
{
    const float one = 1.0f, zero = 0.0f;
    cublasLtMatmulDesc_t desc;
    cublasLtMatrixLayout_t la, lb, lc;
    STATUS_OK(cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    STATUS_OK(cublasLtMatrixLayoutCreate(&la, CUDA_R_32F, N, N, N));
    STATUS_OK(cublasLtMatrixLayoutCreate(&lb, CUDA_R_32F, N, N, N));
    STATUS_OK(cublasLtMatrixLayoutCreate(&lc, CUDA_R_32F, N, N, N));
    cudaGraph_t g = NULL;
    CUDA_OK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    fill<<<NN / 128, 128, 0, s>>>(a, salt);
    STATUS_OK(cublasLtMatmul(lt, desc, &one, a, la, b, lb, &zero, c, lc, c, lc, NULL, NULL, 0, s));
    add_one<<<NN / 128, 128, 0, s>>>(d, c);
    CUDA_OK(cudaStreamEndCapture(s, &g));
    STATUS_OK(cublasLtMatrixLayoutDestroy(la));
    STATUS_OK(cublasLtMatrixLayoutDestroy(lb));
    STATUS_OK(cublasLtMatrixLayoutDestroy(lc));
    STATUS_OK(cublasLtMatmulDescDestroy(desc));
    return g;
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    float *a, *b, *b2, *c, *d, hb[NN], hb2[NN], ha[NN], hd[NN];
    int *salt;
    for (int i = 0; i < NN; i++) {
        hb[i] = (float)(i % 3 - 1);
        hb2[i] = (float)(i % 4 - 2);
    }
    CUDA_OK(cudaMalloc(&a, NN * sizeof(float)));
    CUDA_OK(cudaMalloc(&b, NN * sizeof(float)));
    CUDA_OK(cudaMalloc(&b2, NN * sizeof(float)));
    CUDA_OK(cudaMalloc(&c, NN * sizeof(float)));
    CUDA_OK(cudaMalloc(&d, NN * sizeof(float)));
    CUDA_OK(cudaMalloc(&salt, sizeof(int)));
    CUDA_OK(cudaMemcpy(b, hb, sizeof hb, cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(b2, hb2, sizeof hb2, cudaMemcpyHostToDevice));
    cudaStream_t s;
    CUDA_OK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));   /* as llama.cpp */
    cublasHandle_t h;
    STATUS_OK(cublasCreate(&h));
    STATUS_OK(cublasSetStream(h, s));

    /* 1. capture: nothing runs */
    poison(c, s);
    poison(d, s);
    cudaGraph_t g = capture_sgemm(s, h, a, b, c, d, salt);
    CUDA_OK(cudaStreamSynchronize(s));
    CUDA_OK(cudaMemcpy(hd, c, sizeof hd, cudaMemcpyDeviceToHost));
    CHECK(hd[0] != hd[0] && hd[NN - 1] != hd[NN - 1],
          "GEMM ran during capture: C[0] = %g (expected the NaN poison)", hd[0]);
    size_t nodes = 0;
    CUDA_OK(cudaGraphGetNodes(g, NULL, &nodes));
    CHECK(nodes == 3, "captured graph has %zu nodes, expected 3 (kernel, GEMM, kernel)", nodes);

    /* 2. instantiate, destroy the graph, replay with new salts */
    cudaGraphExec_t x;
    CUDA_OK(cudaGraphInstantiate(&x, g, 0));
    CUDA_OK(cudaGraphDestroy(g));
    for (int rep = 0; rep < 3; rep++) {
        int sv = 3 * rep + 1;
        poison(d, s);
        CUDA_OK(cudaMemcpyAsync(salt, &sv, sizeof sv, cudaMemcpyHostToDevice, s));
        CUDA_OK(cudaGraphLaunch(x, s));
        CUDA_OK(cudaStreamSynchronize(s));
        CUDA_OK(cudaMemcpy(hd, d, sizeof hd, cudaMemcpyDeviceToHost));
        host_fill(ha, sv);
        char what[64];
        snprintf(what, sizeof what, "sgemm replay %d", rep);
        check(hd, ha, hb, what);
    }

    /* 3. recapture on B2 and update the instantiated graph (llama.cpp) */
    cudaGraph_t g2 = capture_sgemm(s, h, a, b2, c, d, salt);
    cudaGraphExecUpdateResultInfo info;
    CUDA_OK(cudaGraphExecUpdate(x, g2, &info));
    CHECK(info.result == cudaGraphExecUpdateSuccess, "update result %d", (int)info.result);
    CUDA_OK(cudaGraphDestroy(g2));
    int sv = 11;
    poison(d, s);
    CUDA_OK(cudaMemcpyAsync(salt, &sv, sizeof sv, cudaMemcpyHostToDevice, s));
    CUDA_OK(cudaGraphLaunch(x, s));
    CUDA_OK(cudaGraphLaunch(x, s));    /* twice: the same result */
    CUDA_OK(cudaStreamSynchronize(s));
    CUDA_OK(cudaMemcpy(hd, d, sizeof hd, cudaMemcpyDeviceToHost));
    host_fill(ha, sv);
    check(hd, ha, hb2, "sgemm after update to B2");
    CUDA_OK(cudaGraphExecDestroy(x));

    /* 4. cuBLASLt in a capture */
    cublasLtHandle_t lt;
    STATUS_OK(cublasLtCreate(&lt));
    poison(c, s);
    cudaGraph_t g3 = capture_lt(s, lt, a, b, c, d, salt);
    CUDA_OK(cudaMemcpy(hd, c, sizeof hd, cudaMemcpyDeviceToHost));
    CHECK(hd[0] != hd[0], "cublasLtMatmul ran during capture: C[0] = %g", hd[0]);
    CUDA_OK(cudaGraphInstantiate(&x, g3, 0));
    CUDA_OK(cudaGraphDestroy(g3));
    for (int rep = 0; rep < 2; rep++) {
        sv = 5 + rep;
        poison(d, s);
        CUDA_OK(cudaMemcpyAsync(salt, &sv, sizeof sv, cudaMemcpyHostToDevice, s));
        CUDA_OK(cudaGraphLaunch(x, s));
        CUDA_OK(cudaStreamSynchronize(s));
        CUDA_OK(cudaMemcpy(hd, d, sizeof hd, cudaMemcpyDeviceToHost));
        host_fill(ha, sv);
        check(hd, ha, hb, rep ? "cublasLt replay 1" : "cublasLt replay 0");
    }
    CUDA_OK(cudaGraphExecDestroy(x));

    /* 5. outside capture, a host-pointer result is ready on return */
    float dot = -1.0f;
    sv = 2;
    CUDA_OK(cudaMemcpyAsync(salt, &sv, sizeof sv, cudaMemcpyHostToDevice, s));
    fill<<<NN / 128, 128, 0, s>>>(a, salt);
    STATUS_OK(cublasSdot(h, NN, a, 1, b, 1, &dot));
    host_fill(ha, sv);
    float ref = 0.0f;
    for (int i = 0; i < NN; i++)
        ref += ha[i] * hb[i];
    CHECK(dot == ref, "Sdot after a kernel on the same stream: %g, expected %g", dot, ref);

    STATUS_OK(cublasLtDestroy(lt));
    STATUS_OK(cublasDestroy(h));
    CUDA_OK(cudaStreamDestroy(s));
    cudaFree(a);
    cudaFree(b);
    cudaFree(b2);
    cudaFree(c);
    cudaFree(d);
    cudaFree(salt);
    printf("%s: %d checks, %d failed\n", g_fail ? "FAIL" : "PASS", g_checks, g_fail);
    return g_fail != 0;
}
