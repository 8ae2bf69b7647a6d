// block-reduction benchmark: sum of 2^24 floats, 256-thread blocks, a
// shared-memory tree with __syncthreads per level; each block writes one
// partial sum. Warm-up launch, then BENCH_REPS timed launches.
#include <cuda_runtime.h>
#include <math.h>
#include <stdlib.h>
#include "bench_common.h"

#define CK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    fprintf(stderr, "FAIL %s:%d: %s -> %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
    exit(1); } } while (0)

__global__ void block_sum(const float *in, float *partial, int n)
{
    __shared__ float sh[BENCH_THREADS];
    unsigned t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
    sh[t] = i < (unsigned)n ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s)
            sh[t] += sh[t + s];
        __syncthreads();
    }
    if (t == 0)
        partial[blockIdx.x] = sh[0];
}

int main()
{
    const int n = BENCH_N;
    const int blocks = (n + BENCH_THREADS - 1) / BENCH_THREADS;
    size_t bytes = (size_t)n * sizeof(float);
    float *x = (float *)malloc(bytes), *part = (float *)malloc(blocks * sizeof(float));
    for (int i = 0; i < n; i++)
        x[i] = (float)(i % 7) - 3.0f;
    float *dx, *dpart;
    CK(cudaMalloc(&dx, bytes));
    CK(cudaMalloc(&dpart, blocks * sizeof(float)));
    CK(cudaMemcpy(dx, x, bytes, cudaMemcpyHostToDevice));
    block_sum<<<blocks, BENCH_THREADS>>>(dx, dpart, n);   // warm-up
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    double t0 = bench_now_ms();
    for (int r = 0; r < BENCH_REPS; r++)
        block_sum<<<blocks, BENCH_THREADS>>>(dx, dpart, n);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    double ms = (bench_now_ms() - t0) / BENCH_REPS;
    CK(cudaMemcpy(part, dpart, blocks * sizeof(float), cudaMemcpyDeviceToHost));
    double got = 0, want = 0;
    for (int b = 0; b < blocks; b++)
        got += part[b];
    for (int i = 0; i < n; i++)
        want += x[i];
    if (fabs(got - want) > 1e-3 * (1.0 + fabs(want))) {
        fprintf(stderr, "FAIL reduce: sum %.6g, want %.6g\n", got, want);
        return 1;
    }
    bench_report("reduce", n, ms, (double)bytes + blocks * sizeof(float));
    CK(cudaFree(dx));
    CK(cudaFree(dpart));
    free(x); free(part);
    return 0;
}
