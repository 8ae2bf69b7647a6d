// block_reduce: shared-memory tree reduction with __syncthreads in a loop,
// 256 threads a block. Float partials are checked bit-exactly against the
// same tree evaluated on the host, the total within a tolerance against a
// double sum; the integer version is reduced in two stages and checked exactly.
#include <math.h>
#include "zn_test.h"

#define THREADS 256

__global__ void reduce_f32(const float *in, float *partial, int n)
{
    __shared__ float sh[THREADS];
    unsigned t = threadIdx.x;
    unsigned i = blockIdx.x * blockDim.x + t;
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

// Each thread first sums a grid-stride slice, then the block tree-reduces.
__global__ void reduce_i32(const int *in, int *out, int n)
{
    __shared__ int sh[THREADS];
    unsigned t = threadIdx.x;
    int acc = 0;
    for (int i = blockIdx.x * blockDim.x + t; i < n; i += blockDim.x * gridDim.x)
        acc += in[i];
    sh[t] = acc;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s)
            sh[t] += sh[t + s];
        __syncthreads();
    }
    if (t == 0)
        out[blockIdx.x] = sh[0];
}

int main()
{
    zt_begin("block_reduce");
    const int n = 1 << 20;
    const int blocks = (n + THREADS - 1) / THREADS;
    float *x = (float *)malloc(n * sizeof(float));
    int *xi = (int *)malloc(n * sizeof(int));
    for (int i = 0; i < n; i++) {
        x[i] = zt_randf(-1.f, 1.f);
        xi[i] = (int)(zt_rand() % 2001) - 1000;
    }
    float *dx, *dpart;
    int *dxi, *dparti, *dtotal;
    CK(cudaMalloc(&dx, n * sizeof(float)));
    CK(cudaMalloc(&dpart, blocks * sizeof(float)));
    CK(cudaMalloc(&dxi, n * sizeof(int)));
    CK(cudaMalloc(&dparti, 64 * sizeof(int)));
    CK(cudaMalloc(&dtotal, sizeof(int)));
    CK(cudaMemcpy(dx, x, n * sizeof(float), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dxi, xi, n * sizeof(int), cudaMemcpyHostToDevice));

    POISON(dpart, blocks * sizeof(float));
    reduce_f32<<<blocks, THREADS>>>(dx, dpart, n);
    CK_LAUNCH();
    float *part = (float *)malloc(blocks * sizeof(float));
    CK(cudaMemcpy(part, dpart, blocks * sizeof(float), cudaMemcpyDeviceToHost));
    double total = 0, want_total = 0;
    float sh[THREADS];
    for (int b = 0; b < blocks; b++) {
        for (int t = 0; t < THREADS; t++) {
            int i = b * THREADS + t;
            sh[t] = i < n ? x[i] : 0.0f;
        }
        for (int s = THREADS / 2; s > 0; s >>= 1)
            for (int t = 0; t < s; t++)
                sh[t] += sh[t + s];
        if (zt_f2u(part[b]) != zt_f2u(sh[0]))
            zt_fail("f32 partial[%d] = %a, want %a", b, part[b], sh[0]);
        total += part[b];
    }
    for (int i = 0; i < n; i++)
        want_total += x[i];
    if (!(fabs(total - want_total) <= 1e-3 * (1.0 + fabs(want_total))))
        zt_fail("f32 total = %.9g, want %.9g", total, want_total);

    // Stage 1: 64 blocks grid-stride; stage 2: one block sums the 64 partials.
    POISON(dparti, 64 * sizeof(int));
    POISON(dtotal, sizeof(int));
    reduce_i32<<<64, THREADS>>>(dxi, dparti, n);
    CK_LAUNCH();
    reduce_i32<<<1, THREADS>>>(dparti, dtotal, 64);
    CK_LAUNCH();
    int parti[64], got_total;
    CK(cudaMemcpy(parti, dparti, sizeof parti, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(&got_total, dtotal, sizeof got_total, cudaMemcpyDeviceToHost));
    long long want_i = 0;
    for (int b = 0; b < 64; b++) {
        long long p = 0;
        for (int i = b * THREADS; i < n; i += 64 * THREADS)
            for (int t = 0; t < THREADS && i + t < n; t++)
                p += xi[i + t];
        if (parti[b] != p)
            zt_fail("i32 partial[%d] = %d, want %lld", b, parti[b], p);
        want_i += p;
    }
    if (got_total != want_i)
        zt_fail("i32 total = %d, want %lld", got_total, want_i);

    CK(cudaFree(dx)); CK(cudaFree(dpart)); CK(cudaFree(dxi));
    CK(cudaFree(dparti)); CK(cudaFree(dtotal));
    free(x); free(xi); free(part);
    return zt_finish();
}
