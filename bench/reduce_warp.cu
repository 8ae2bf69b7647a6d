// reduce_warp: block sums of SZ_REDUCE floats, 256-thread blocks: each warp
// reduces with __shfl_down_sync, warp sums meet in shared memory after one
// __syncthreads, warp 0 reduces them with shuffles again; one partial sum
// per block (the shared-memory tree variant is reduce.cu).
#include "bench_cuda.h"

__global__ void block_sum_shfl(const float *in, float *partial, int n)
{
    __shared__ float warp_sums[BENCH_THREADS / 32];
    unsigned t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
    float v = i < (unsigned)n ? in[i] : 0.0f;
    for (int off = 16; off > 0; off >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, off);
    if ((t & 31) == 0)
        warp_sums[t >> 5] = v;
    __syncthreads();
    if (t < 32) {
        v = t < blockDim.x / 32 ? warp_sums[t] : 0.0f;
        for (int off = 16; off > 0; off >>= 1)
            v += __shfl_down_sync(0xffffffffu, v, off);
        if (t == 0)
            partial[blockIdx.x] = v;
    }
}

int main()
{
    const long n = SZ_REDUCE;
    const long blocks = (n + BENCH_THREADS - 1) / BENCH_THREADS;
    float *x = bench_host<float>(n), *part = bench_host<float>(blocks), *want = bench_host<float>(blocks);
    bench_fill(x, n, 5);
    float *dx = bench_dev(n, x), *dpart = bench_dev<float>(blocks, NULL);
    double zms, cms;
    BENCH_BEST(zms, block_sum_shfl<<<(int)blocks, BENCH_THREADS>>>(dx, dpart, (int)n); CK_SYNC());
    bench_get(part, dpart, blocks);
    BENCH_BEST(cms, ref_block_sum(n, x, want));
    // Sums of 256 values in [-1, 1) in different orders.
    int bad = bench_check_f32("reduce_warp", part, want, blocks, 1e-4, 1e-4);
    bench_finish("reduce_warp", bad, n, zms, cms, 4.0 * n + 4.0 * blocks, (double)n);
    CK(cudaFree(dx)); CK(cudaFree(dpart));
    free(x); free(part); free(want);
    return 0;
}
