// dynamic_shared: extern __shared__ arrays sized at launch: reverse each
// block's chunk through shared memory at two block sizes, the second using
// the full 48 KiB, with a float region followed by an int region.
#include "zn_test.h"

extern __shared__ float dyn[];

// Each thread stages `per` floats; the block writes its chunk reversed.
__global__ void reverse_chunks(const float *in, float *out, int per)
{
    int chunk = blockDim.x * per;
    const float *src = in + blockIdx.x * chunk;
    for (int k = threadIdx.x; k < chunk; k += blockDim.x)
        dyn[k] = src[k];
    __syncthreads();
    float *dst = out + blockIdx.x * chunk;
    for (int k = threadIdx.x; k < chunk; k += blockDim.x)
        dst[k] = dyn[chunk - 1 - k];
}

// Floats then ints in one dynamic allocation.
__global__ void mixed(int *out)
{
    float *f = dyn;
    int *n = (int *)(dyn + blockDim.x);
    f[threadIdx.x] = (float)threadIdx.x * 0.5f;
    n[threadIdx.x] = (int)threadIdx.x * 3;
    __syncthreads();
    unsigned o = blockDim.x - 1 - threadIdx.x;
    out[blockIdx.x * blockDim.x + threadIdx.x] = (int)(f[o] * 2.0f) + n[o] + (int)blockIdx.x;
}

static int check_reverse(int threads, int per, int blocks)
{
    int chunk = threads * per, n = chunk * blocks;
    float *in = (float *)malloc(n * sizeof(float)), *out = (float *)malloc(n * sizeof(float));
    for (int i = 0; i < n; i++)
        in[i] = (float)i + 0.25f;
    float *din, *dout;
    CK(cudaMalloc(&din, n * sizeof(float)));
    CK(cudaMalloc(&dout, n * sizeof(float)));
    CK(cudaMemcpy(din, in, n * sizeof(float), cudaMemcpyHostToDevice));
    POISON(dout, n * sizeof(float));
    reverse_chunks<<<blocks, threads, chunk * sizeof(float)>>>(din, dout, per);
    CK_LAUNCH();
    CK(cudaMemcpy(out, dout, n * sizeof(float), cudaMemcpyDeviceToHost));
    for (int b = 0; b < blocks; b++)
        for (int k = 0; k < chunk; k++) {
            float want = in[b * chunk + chunk - 1 - k];
            if (out[b * chunk + k] != want)
                zt_fail("threads %d: out[%d] = %g, want %g", threads, b * chunk + k, out[b * chunk + k], want);
        }
    CK(cudaFree(din)); CK(cudaFree(dout));
    free(in); free(out);
    return 0;
}

int main()
{
    zt_begin("dynamic_shared");
    check_reverse(128, 1, 50);          // 512 bytes
    check_reverse(1024, 12, 7);         // 49152 bytes: the default maximum
    const int threads = 200, blocks = 9;
    int *dout, out[threads * blocks];
    CK(cudaMalloc(&dout, sizeof out));
    POISON(dout, sizeof out);
    mixed<<<blocks, threads, threads * (sizeof(float) + sizeof(int))>>>(dout);
    CK_LAUNCH();
    CK(cudaMemcpy(out, dout, sizeof out, cudaMemcpyDeviceToHost));
    for (int b = 0; b < blocks; b++)
        for (int t = 0; t < threads; t++) {
            int o = threads - 1 - t, want = o + o * 3 + b;
            if (out[b * threads + t] != want)
                zt_fail("mixed[%d][%d] = %d, want %d", b, t, out[b * threads + t], want);
        }
    CK(cudaFree(dout));
    return zt_finish();
}
