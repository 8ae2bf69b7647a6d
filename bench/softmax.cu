// softmax: row softmax of a SZ_SOFTMAX_R x SZ_SOFTMAX_C float matrix, one
// 256-thread block per row: a max reduction, then a sum of expf(x - max)
// (each a warp shuffle reduction whose warp results meet in shared
// memory), then the scaled write.
#include "bench_cuda.h"

__device__ float block_reduce(float v, bool is_max, float *sh)
{
    for (int off = 16; off > 0; off >>= 1) {
        float o = __shfl_xor_sync(0xffffffffu, v, off);
        v = is_max ? fmaxf(v, o) : v + o;
    }
    unsigned t = threadIdx.x, warps = blockDim.x / 32;
    __syncthreads();   // sh is reused by the next reduction
    if ((t & 31) == 0)
        sh[t >> 5] = v;
    __syncthreads();
    v = sh[0];
    for (unsigned k = 1; k < warps; k++)
        v = is_max ? fmaxf(v, sh[k]) : v + sh[k];
    return v;
}

__global__ void softmax_rows(int cols, const float *in, float *out)
{
    __shared__ float sh[BENCH_THREADS / 32];
    const float *x = in + (size_t)blockIdx.x * cols;
    float *o = out + (size_t)blockIdx.x * cols;
    float m = -INFINITY;
    for (int c = threadIdx.x; c < cols; c += blockDim.x)
        m = fmaxf(m, x[c]);
    m = block_reduce(m, true, sh);
    float s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x)
        s += expf(x[c] - m);
    s = block_reduce(s, false, sh);
    float inv = 1.0f / s;
    for (int c = threadIdx.x; c < cols; c += blockDim.x)
        o[c] = expf(x[c] - m) * inv;
}

int main()
{
    const int rows = SZ_SOFTMAX_R, cols = SZ_SOFTMAX_C;
    const size_t n = (size_t)rows * cols;
    float *in = bench_host<float>(n), *out = bench_host<float>(n), *want = bench_host<float>(n);
    bench_fill(in, n, 9);
    for (size_t i = 0; i < n; i++)
        in[i] *= 8.0f;   // a spread of magnitudes, so the max matters
    float *din = bench_dev(n, in), *dout = bench_dev<float>(n, NULL);
    double zms, cms;
    BENCH_BEST(zms, softmax_rows<<<rows, BENCH_THREADS>>>(cols, din, dout); CK_SYNC());
    bench_get(out, dout, n);
    BENCH_BEST(cms, ref_softmax(rows, cols, in, want));
    int bad = bench_check_f32("softmax", out, want, n, 1e-4, 1e-7);
    bench_finish("softmax", bad, (long)n, zms, cms, 8.0 * n, 5.0 * n);
    CK(cudaFree(din)); CK(cudaFree(dout));
    free(in); free(out); free(want);
    return 0;
}
