// shared_many_kernels: a module with 16 kernels of 8 KB static shared memory
// each (128 KB in all, past the 99 KB per-block limit), as llama.cpp's
// mmvq.cu has 80 kernels and 265 KB. Each kernel must report and get only
// its own shared memory: every launch succeeds, cudaFuncGetAttributes says
// 8 KB (plus the 4 KB of the __noinline__ helper for the one kernel that
// calls it), and each block's reversal through shared memory is checked
// against the host.
#include "zn_test.h"

#define N 2048          // floats of shared memory per kernel (8 KB)
#define THREADS 256
#define BLOCKS 8

// A .func with shared memory of its own: it belongs to the calling
// kernel's layout only.
__device__ __noinline__ float helper_rotate(float v)
{
    __shared__ float rot[1024];
    int t = threadIdx.x;
    rot[t] = v;
    __syncthreads();
    float r = rot[(t + 1) % THREADS];
    __syncthreads();
    return r;
}

#define KERNEL(ID)                                                           \
    __global__ void k##ID(const float *in, float *out)                       \
    {                                                                        \
        __shared__ float buf[N];                                             \
        int t = threadIdx.x, base = blockIdx.x * N;                          \
        for (int i = t; i < N; i += THREADS)                                 \
            buf[i] = in[base + i];                                           \
        __syncthreads();                                                     \
        for (int i = t; i < N; i += THREADS)                                 \
            out[base + i] = buf[N - 1 - i] * (float)(ID + 1);                \
    }
KERNEL(0) KERNEL(1) KERNEL(2) KERNEL(3) KERNEL(4) KERNEL(5) KERNEL(6) KERNEL(7)
KERNEL(8) KERNEL(9) KERNEL(10) KERNEL(11) KERNEL(12) KERNEL(13) KERNEL(14)

// The last kernel also calls the helper.
__global__ void k15(const float *in, float *out)
{
    __shared__ float buf[N];
    int t = threadIdx.x, base = blockIdx.x * N;
    for (int i = t; i < N; i += THREADS)
        buf[i] = in[base + i];
    __syncthreads();
    for (int i = t; i < N; i += THREADS)
        out[base + i] = buf[N - 1 - i] * 16.0f;
    out[BLOCKS * N + blockIdx.x * THREADS + t] = helper_rotate(buf[t]);
}

typedef void (*kfn)(const float *, float *);

int main()
{
    zt_begin("shared_many_kernels");
    static const kfn ks[16] = {k0, k1, k2, k3, k4, k5, k6, k7,
                               k8, k9, k10, k11, k12, k13, k14, k15};
    const int n = BLOCKS * N, nout = n + BLOCKS * THREADS;
    float *x = (float *)malloc(n * sizeof(float));
    float *y = (float *)malloc(nout * sizeof(float));
    for (int i = 0; i < n; i++)
        x[i] = (float)(zt_rand() % 1000) - 500.0f;
    float *dx, *dy;
    CK(cudaMalloc(&dx, n * sizeof(float)));
    CK(cudaMalloc(&dy, nout * sizeof(float)));
    CK(cudaMemcpy(dx, x, n * sizeof(float), cudaMemcpyHostToDevice));
    for (int k = 0; k < 16; k++) {
        cudaFuncAttributes a;
        CK(cudaFuncGetAttributes(&a, ks[k]));
        size_t want = N * sizeof(float) + (k == 15 ? 1024 * sizeof(float) : 0);
        if (a.sharedSizeBytes != want)
            zt_fail("k%d: sharedSizeBytes %zu, want %zu", k, a.sharedSizeBytes, want);
        CK(cudaMemset(dy, 0xff, nout * sizeof(float)));   // poison (NaN)
        ks[k]<<<BLOCKS, THREADS>>>(dx, dy);
        CK_LAUNCH();
        CK(cudaMemcpy(y, dy, nout * sizeof(float), cudaMemcpyDeviceToHost));
        for (int b = 0; b < BLOCKS; b++)
            for (int i = 0; i < N; i++) {
                float want_v = x[b * N + N - 1 - i] * (float)(k + 1);
                if (y[b * N + i] != want_v) {
                    zt_fail("k%d block %d [%d]: %g, want %g", k, b, i, y[b * N + i], want_v);
                    break;
                }
            }
        if (k == 15)
            for (int b = 0; b < BLOCKS; b++)
                for (int t = 0; t < THREADS; t++) {
                    float want_v = x[b * N + (t + 1) % THREADS];
                    if (y[n + b * THREADS + t] != want_v) {
                        zt_fail("helper block %d lane %d: %g, want %g", b, t,
                                y[n + b * THREADS + t], want_v);
                        break;
                    }
                }
    }
    CK(cudaFree(dx));
    CK(cudaFree(dy));
    free(x);
    free(y);
    return zt_finish();
}
