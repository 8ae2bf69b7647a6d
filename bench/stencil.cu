// stencil: one Jacobi step of a 5-point stencil on a SZ_STENCIL_W x
// SZ_STENCIL_H grid of floats (0.5 c + 0.125 (l + r + u + d), border
// copied), 32 x 8 blocks, one point per thread; memory bound.
#include "bench_cuda.h"

__global__ void stencil5(int w, int h, const float *in, float *out)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h)
        return;
    size_t i = (size_t)y * w + x;
    if (x == 0 || y == 0 || x == w - 1 || y == h - 1)
        out[i] = in[i];
    else
        out[i] = 0.5f * in[i] + 0.125f * ((in[i - 1] + in[i + 1]) + (in[i - w] + in[i + w]));
}

int main()
{
    const int w = SZ_STENCIL_W, h = SZ_STENCIL_H;
    const size_t n = (size_t)w * h;
    float *in = bench_host<float>(n), *out = bench_host<float>(n), *want = bench_host<float>(n);
    bench_fill(in, n, 8);
    float *din = bench_dev(n, in), *dout = bench_dev<float>(n, NULL);
    dim3 block(32, 8), grid((w + 31) / 32, (h + 7) / 8);
    double zms, cms;
    BENCH_BEST(zms, stencil5<<<grid, block>>>(w, h, din, dout); CK_SYNC());
    bench_get(out, dout, n);
    BENCH_BEST(cms, ref_stencil(w, h, in, want));
    int bad = bench_check_f32("stencil", out, want, n, 1e-5, 1e-6);
    bench_finish("stencil", bad, (long)n, zms, cms, 8.0 * n, 6.0 * n);
    CK(cudaFree(din)); CK(cudaFree(dout));
    free(in); free(out); free(want);
    return 0;
}
