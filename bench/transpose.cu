// transpose: out (w x h) = in (h x w)^T for a SZ_TRANS_H x SZ_TRANS_W float
// matrix, through a 32 x 33 shared-memory tile (padded against bank
// conflicts) by 32 x 8 blocks, so that both the read and the write are
// row-contiguous; memory bound.
#include "bench_cuda.h"

__global__ void transpose_tiled(int w, int h, const float *in, float *out)
{
    __shared__ float tile[TRANS_TILE][TRANS_TILE + 1];
    int bx = blockIdx.x * TRANS_TILE, by = blockIdx.y * TRANS_TILE;
    for (int j = threadIdx.y; j < TRANS_TILE; j += blockDim.y) {
        int x = bx + threadIdx.x, y = by + j;
        if (x < w && y < h)
            tile[j][threadIdx.x] = in[(size_t)y * w + x];
    }
    __syncthreads();
    for (int j = threadIdx.y; j < TRANS_TILE; j += blockDim.y) {
        int x = by + threadIdx.x, y = bx + j;   // out has h columns, w rows
        if (x < h && y < w)
            out[(size_t)y * h + x] = tile[threadIdx.x][j];
    }
}

int main()
{
    const int w = SZ_TRANS_W, h = SZ_TRANS_H;
    const size_t n = (size_t)w * h;
    float *in = bench_host<float>(n), *out = bench_host<float>(n), *want = bench_host<float>(n);
    bench_fill(in, n, 10);
    float *din = bench_dev(n, in), *dout = bench_dev<float>(n, NULL);
    dim3 block(TRANS_TILE, 8), grid((w + TRANS_TILE - 1) / TRANS_TILE, (h + TRANS_TILE - 1) / TRANS_TILE);
    double zms, cms;
    BENCH_BEST(zms, transpose_tiled<<<grid, block>>>(w, h, din, dout); CK_SYNC());
    bench_get(out, dout, n);
    BENCH_BEST(cms, ref_transpose(w, h, in, want));
    int bad = bench_check_f32("transpose", out, want, n, 0, 0);
    bench_finish("transpose", bad, (long)n, zms, cms, 8.0 * n, 0);
    CK(cudaFree(din)); CK(cudaFree(dout));
    free(in); free(out); free(want);
    return 0;
}
