// trace_app.cu: the program the tracer's tests run under `zinc trace`:
// a vector add that reads a __constant__ symbol, on a stream, timed by
// events, launched with <<<>>> (cuLaunchKernel) and again with
// cudaLaunchKernelEx (cuLaunchKernelEx). Checks its own results against a
// host reference.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__constant__ float scale;

__global__ void axpb(const float *a, const float *b, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = a[i] * scale + b[i];
}

#define CHECK(x)                                                               \
    do {                                                                       \
        cudaError_t e_ = (x);                                                  \
        if (e_ != cudaSuccess) {                                               \
            fprintf(stderr, "FAIL %s: %s\n", #x, cudaGetErrorString(e_));     \
            return 1;                                                          \
        }                                                                      \
    } while (0)

int main()
{
    const int n = 1000;
    float *ha = (float *)malloc(n * sizeof(float)), *hb = (float *)malloc(n * sizeof(float));
    float *hout = (float *)malloc(n * sizeof(float));
    for (int i = 0; i < n; i++) {
        ha[i] = (float)i;
        hb[i] = (float)(2 * i + 1);
    }
    float s = 3.0f;
    float *da, *db, *dout, *dout2;
    CHECK(cudaMalloc(&da, n * sizeof(float)));
    CHECK(cudaMalloc(&db, n * sizeof(float)));
    CHECK(cudaMalloc(&dout, n * sizeof(float)));
    CHECK(cudaMalloc(&dout2, n * sizeof(float)));
    CHECK(cudaMemcpyToSymbol(scale, &s, sizeof s));
    cudaStream_t st;
    cudaEvent_t t0, t1;
    CHECK(cudaStreamCreate(&st));
    CHECK(cudaEventCreate(&t0));
    CHECK(cudaEventCreate(&t1));
    CHECK(cudaMemcpyAsync(da, ha, n * sizeof(float), cudaMemcpyHostToDevice, st));
    CHECK(cudaMemcpyAsync(db, hb, n * sizeof(float), cudaMemcpyHostToDevice, st));
    CHECK(cudaMemsetAsync(dout, 0, n * sizeof(float), st));
    CHECK(cudaEventRecord(t0, st));
    axpb<<<(n + 255) / 256, 256, 0, st>>>(da, db, dout, n);
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(t1, st));
    CHECK(cudaMemcpyAsync(hout, dout, n * sizeof(float), cudaMemcpyDeviceToHost, st));
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(8);
    cfg.blockDim = dim3(128);
    cfg.stream = st;
    CHECK(cudaLaunchKernelEx(&cfg, axpb, (const float *)da, (const float *)db, dout2, n));
    float *hout2 = (float *)malloc(n * sizeof(float));
    CHECK(cudaMemcpyAsync(hout2, dout2, n * sizeof(float), cudaMemcpyDeviceToHost, st));
    CHECK(cudaEventSynchronize(t1));
    CHECK(cudaStreamSynchronize(st));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, t0, t1));
    for (int i = 0; i < n; i++) {
        float want = ha[i] * s + hb[i];
        if (hout[i] != want || hout2[i] != want) {
            fprintf(stderr, "FAIL out[%d] = %g / %g, want %g\n", i, hout[i], hout2[i], want);
            return 1;
        }
    }
    CHECK(cudaEventDestroy(t0));
    CHECK(cudaEventDestroy(t1));
    CHECK(cudaStreamDestroy(st));
    CHECK(cudaFree(da));
    CHECK(cudaFree(db));
    CHECK(cudaFree(dout));
    CHECK(cudaFree(dout2));
    printf("PASS trace_app (%d elements, kernel %.3f ms)\n", n, ms);
    return 0;
}
