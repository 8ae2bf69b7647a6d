// sgemm: C = A B, square SZ_GEMM floats, row-major, classic shared-memory
// tiling (16 x 16 tiles of A and B per step, two __syncthreads per tile);
// a hand-written kernel, not cuBLAS (gemm.cu benchmarks Zinc's cuBLAS).
#include "bench_cuda.h"

__global__ void sgemm_tiled(int n, const float *A, const float *B, float *C)
{
    __shared__ float As[GEMM_TILE][GEMM_TILE], Bs[GEMM_TILE][GEMM_TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * GEMM_TILE + ty, col = blockIdx.x * GEMM_TILE + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < n; k0 += GEMM_TILE) {
        As[ty][tx] = row < n && k0 + tx < n ? A[(size_t)row * n + k0 + tx] : 0.0f;
        Bs[ty][tx] = col < n && k0 + ty < n ? B[(size_t)(k0 + ty) * n + col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < GEMM_TILE; k++)
            acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    if (row < n && col < n)
        C[(size_t)row * n + col] = acc;
}

int main()
{
    const int n = SZ_GEMM;
    const size_t nn = (size_t)n * n;
    float *A = bench_host<float>(nn), *B = bench_host<float>(nn), *C = bench_host<float>(nn);
    float *want = bench_host<float>(nn);
    bench_fill(A, nn, 6);
    bench_fill(B, nn, 7);
    float *dA = bench_dev(nn, A), *dB = bench_dev(nn, B), *dC = bench_dev<float>(nn, NULL);
    dim3 block(GEMM_TILE, GEMM_TILE), grid((n + GEMM_TILE - 1) / GEMM_TILE, (n + GEMM_TILE - 1) / GEMM_TILE);
    double zms, cms;
    BENCH_BEST(zms, sgemm_tiled<<<grid, block>>>(n, dA, dB, dC); CK_SYNC());
    bench_get(C, dC, nn);
    BENCH_BEST(cms, ref_sgemm(n, A, B, want));
    // Same summation order (k ascending); fused or not multiply-adds differ.
    int bad = bench_check_f32("sgemm", C, want, nn, 1e-4, 1e-4 * sqrt((double)n));
    bench_finish("sgemm", bad, n, zms, cms, 0, 2.0 * n * n * n);
    CK(cudaFree(dA)); CK(cudaFree(dB)); CK(cudaFree(dC));
    free(A); free(B); free(C); free(want);
    return 0;
}
