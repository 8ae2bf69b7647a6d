// mmvq.cu: a quantized matrix-vector product in the shape llama.cpp's CUDA
// backend decodes with (issue #8): rows of 8-bit blocks (32 int8 quants and
// a half scale, 34 bytes, so only 2-byte aligned) times a vector of 8-bit
// blocks (36 bytes: half scale, half sum, 32 quants). One 128-thread block
// (4 warps) per row; each thread takes 8 quant bytes of a block per step
// (two __dp4a), partial sums meet in shared memory, warp 0 finishes with
// shuffles. Two shapes: a 4096 x 4096 layer (every lane busy) and the
// output layer of a tiny model (64 columns x 32000 rows: 2 blocks per row,
// so 8 of a block's 128 threads have work, as in docs/workloads.md's
// llama-bench profile).
#include "bench_cuda.h"
#include <cuda_fp16.h>

struct __align__(2) blk_x { unsigned short d; signed char qs[MMVQ_QK]; };
struct __align__(4) blk_y { unsigned short d, s; signed char qs[MMVQ_QK]; };
static_assert(sizeof(blk_x) == MMVQ_X_BYTES && sizeof(blk_y) == MMVQ_Y_BYTES, "block layout");

// An int from 2-byte aligned quants: two 16-bit loads, as llama.cpp does.
static __device__ __forceinline__ int int_at_a2(const signed char *p)
{
    const unsigned short *h = (const unsigned short *)p;
    return (int)(h[0] | ((unsigned)h[1] << 16));
}

__global__ void __launch_bounds__(128, 1)
mmvq_q8(const blk_x *x, const blk_y *y, float *dst, int cols)
{
    const int nb = cols / MMVQ_QK;
    const int tid = 32 * threadIdx.y + threadIdx.x;
    const blk_x *row = x + (long)blockIdx.x * nb;
    float acc = 0.0f;
    for (int kb = tid / 4; kb < nb; kb += 32) {   // 4 threads per block, 32 blocks per step
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

static void run(const char *name, int rows, int cols)
{
    const int nb = cols / MMVQ_QK;
    const long nx = (long)rows * nb;
    blk_x *x = bench_host<blk_x>(nx);
    blk_y *y = bench_host<blk_y>(nb);
    mmvq_fill((uint8_t *)x, nx, (uint8_t *)y, nb);
    float *out = bench_host<float>(rows), *want = bench_host<float>(rows);
    blk_x *dx = bench_dev(nx, x);
    blk_y *dy = bench_dev(nb, y);
    float *dout = bench_dev<float>(rows, NULL);
    double zms, cms;
    BENCH_BEST(zms, mmvq_q8<<<rows, dim3(32, 4)>>>(dx, dy, dout, cols); CK_SYNC());
    bench_get(out, dout, rows);
    BENCH_BEST(cms, ref_mmvq_q8(rows, cols, x, y, want));
    // sums of up to 4096 products in another order: float rounding only
    int bad = bench_check_f32(name, out, want, rows, 1e-4, 1e-3);
    bench_finish(name, bad, rows, zms, cms, (double)nx * MMVQ_X_BYTES + (double)rows * 4,
                 2.0 * rows * cols);
    CK(cudaFree(dx)); CK(cudaFree(dy)); CK(cudaFree(dout));
    free(x); free(y); free(out); free(want);
}

int main()
{
    run("mmvq", SZ_MMVQ_ROWS, SZ_MMVQ_COLS);
    run("mmvq_thin", SZ_MMVQ_THIN_ROWS, 64);
    return 0;
}
