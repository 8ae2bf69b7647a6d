// ab_kernels.cu: small kernels of the suite's per-block-bound shapes for
// bench_ab_env (ab_env.c), which compiles them twice in one process under
// two settings of a compiler variable. extern "C": names without mangling.
//   tree:  bench/reduce's block (a shared-memory tree, 9 barriers)
//   shfl:  bench/reduce_warp's block (shuffles, one barrier)
//   thin:  bench/mmvq's kernel on mmvq_thin's shape (2 int8 blocks per
//          row, 8 of 128 threads busy), quants whole ints here
#include <cuda_fp16.h>

#define AB_QK 32
struct __align__(2) ab_bx { unsigned short d; signed char qs[AB_QK]; };
struct __align__(4) ab_by { unsigned short d, s; signed char qs[AB_QK]; };

static __device__ __forceinline__ int int_at_a2(const signed char *p)
{
    const unsigned short *h = (const unsigned short *)p;
    return (int)(h[0] | ((unsigned)h[1] << 16));
}

extern "C" __global__ void tree(const float *in, float *partial, int n)
{
    __shared__ float sh[256];
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

extern "C" __global__ void shfl(const float *in, float *partial, int n)
{
    __shared__ float warp_sums[32];
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

extern "C" __global__ void __launch_bounds__(128, 1)
thin(const ab_bx *x, const ab_by *y, float *dst, int cols)
{
    const int nb = cols / AB_QK;
    const int tid = 32 * threadIdx.y + threadIdx.x;
    const ab_bx *row = x + (long)blockIdx.x * nb;
    float acc = 0.0f;
    for (int kb = tid / 4; kb < nb; kb += 32) {
        const int q = 8 * (tid % 4);
        int s = 0;
        for (int i = 0; i < 2; i++)
            s = __dp4a(int_at_a2(row[kb].qs + q + 4 * i), *(const int *)(y[kb].qs + q + 4 * i), s);
        acc += __half2float(__ushort_as_half(row[kb].d)) * __half2float(__ushort_as_half(y[kb].d)) * (float)s;
    }
    __shared__ float part[3][32];
    if (threadIdx.y > 0)
        part[threadIdx.y - 1][threadIdx.x] = acc;
    __syncthreads();
    if (threadIdx.y > 0)
        return;
    for (int w = 0; w < 3; w++)
        acc += part[w][threadIdx.x];
    for (int o = 16; o > 0; o >>= 1)
        acc += __shfl_xor_sync(0xffffffffu, acc, o);
    if (threadIdx.x == 0)
        dst[blockIdx.x] = acc;
}
