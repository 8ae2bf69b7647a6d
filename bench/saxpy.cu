// saxpy benchmark: y = a*x + y over 2^24 floats, one element per thread in
// 256-thread blocks. One warm-up launch (it also pays for JIT compilation),
// then BENCH_REPS timed launches; a spot check guards against timing a
// kernel that did nothing.
#include <cuda_runtime.h>
#include <math.h>
#include <stdlib.h>
#include "bench_common.h"

#define CK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    fprintf(stderr, "FAIL %s:%d: %s -> %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
    exit(1); } } while (0)

__global__ void saxpy(int n, float a, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}

int main()
{
    const int n = BENCH_N;
    size_t bytes = (size_t)n * sizeof(float);
    float *x = (float *)malloc(bytes), *y = (float *)malloc(bytes);
    for (int i = 0; i < n; i++) {
        x[i] = (float)(i % 100);
        y[i] = 1.0f;
    }
    float *dx, *dy;
    CK(cudaMalloc(&dx, bytes));
    CK(cudaMalloc(&dy, bytes));
    CK(cudaMemcpy(dx, x, bytes, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dy, y, bytes, cudaMemcpyHostToDevice));
    int blocks = (n + BENCH_THREADS - 1) / BENCH_THREADS;
    saxpy<<<blocks, BENCH_THREADS>>>(n, 0.0f, dx, dy);   // warm-up, y unchanged
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    double t0 = bench_now_ms();
    for (int r = 0; r < BENCH_REPS; r++)
        saxpy<<<blocks, BENCH_THREADS>>>(n, 0.5f, dx, dy);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    double ms = (bench_now_ms() - t0) / BENCH_REPS;
    CK(cudaMemcpy(y, dy, bytes, cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i += 4099) {
        float want = 1.0f + BENCH_REPS * 0.5f * (float)(i % 100);
        if (fabsf(y[i] - want) > 1e-3f * want) {
            fprintf(stderr, "FAIL saxpy: y[%d] = %g, want %g\n", i, y[i], want);
            return 1;
        }
    }
    bench_report("saxpy", n, ms, 3.0 * bytes);
    CK(cudaFree(dx));
    CK(cudaFree(dy));
    free(x); free(y);
    return 0;
}
