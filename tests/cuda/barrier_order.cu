// barrier_order: after a block's last __syncthreads, thread 0 reads an
// element that another warp then overwrites (a benign race found in llm.c's
// fp32 fused classifier). On a GPU the warps leave a barrier together and
// thread 0's single load comes first; Zinc must leave a barrier in warp
// order (warp 0 first) to give the same answer, as it does at block start.
#include "zn_test.h"

#define N 1000
#define BLOCKS 64

__global__ void read_then_overwrite(float *x, float *out, int n)
{
    __shared__ float s[32];
    float *row = x + blockIdx.x * n;
    if (threadIdx.x < 32)
        s[threadIdx.x] = 0.0f;
    __syncthreads();
    if (threadIdx.x == 0)
        out[blockIdx.x] = row[n - 1] + s[0];
    for (int i = threadIdx.x; i < n; i += blockDim.x)
        row[i] = -1.0f;
}

int main(void)
{
    zt_begin("barrier_order");
    static float hx[BLOCKS * N], hout[BLOCKS];
    float *x, *out;
    CK(cudaMalloc(&x, sizeof hx));
    CK(cudaMalloc(&out, sizeof hout));
    for (int i = 0; i < BLOCKS * N; i++)
        hx[i] = (float)(i % N);
    CK(cudaMemcpy(x, hx, sizeof hx, cudaMemcpyHostToDevice));
    POISON(out, sizeof hout);
    read_then_overwrite<<<BLOCKS, 1024>>>(x, out, N);
    CK_LAUNCH();
    CK(cudaMemcpy(hout, out, sizeof hout, cudaMemcpyDeviceToHost));
    for (int b = 0; b < BLOCKS; b++)
        if (hout[b] != (float)(N - 1))
            zt_fail("block %d read %g, want %g (the value before the overwrite)", b,
                    hout[b], (float)(N - 1));
    CK(cudaMemcpy(hx, x, sizeof hx, cudaMemcpyDeviceToHost));
    for (int i = 0; i < BLOCKS * N; i++)
        if (hx[i] != -1.0f) {
            zt_fail("x[%d] = %g, want -1", i, hx[i]);
            break;
        }
    CK(cudaFree(x));
    CK(cudaFree(out));
    return zt_finish();
}
