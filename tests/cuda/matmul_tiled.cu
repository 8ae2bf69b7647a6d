// matmul_tiled: shared-memory tiled SGEMM, C = A * B with A MxK and B KxN,
// sizes that are neither square nor multiples of the tile, checked against
// a double-precision host product within a tolerance.
#include <math.h>
#include "zn_test.h"

#define TILE 16

__global__ void sgemm(const float *A, const float *B, float *C, int M, int N, int K)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE + 1];   // padded, as real kernels do
    int row = blockIdx.y * TILE + threadIdx.y;
    int col = blockIdx.x * TILE + threadIdx.x;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += TILE) {
        int ak = k0 + threadIdx.x, bk = k0 + threadIdx.y;
        As[threadIdx.y][threadIdx.x] = row < M && ak < K ? A[row * K + ak] : 0.0f;
        Bs[threadIdx.y][threadIdx.x] = bk < K && col < N ? B[bk * N + col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < TILE; k++)
            acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
        __syncthreads();
    }
    if (row < M && col < N)
        C[row * N + col] = acc;
}

int main()
{
    zt_begin("matmul_tiled");
    const int M = 250, N = 190, K = 317;
    float *A = (float *)malloc(M * K * sizeof(float));
    float *B = (float *)malloc(K * N * sizeof(float));
    float *C = (float *)malloc(M * N * sizeof(float));
    for (int i = 0; i < M * K; i++) A[i] = zt_randf(-1.f, 1.f);
    for (int i = 0; i < K * N; i++) B[i] = zt_randf(-1.f, 1.f);
    float *dA, *dB, *dC;
    CK(cudaMalloc(&dA, M * K * sizeof(float)));
    CK(cudaMalloc(&dB, K * N * sizeof(float)));
    CK(cudaMalloc(&dC, M * N * sizeof(float)));
    CK(cudaMemcpy(dA, A, M * K * sizeof(float), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dB, B, K * N * sizeof(float), cudaMemcpyHostToDevice));
    POISON(dC, M * N * sizeof(float));
    dim3 block(TILE, TILE), grid((N + TILE - 1) / TILE, (M + TILE - 1) / TILE);
    sgemm<<<grid, block>>>(dA, dB, dC, M, N, K);
    CK_LAUNCH();
    CK(cudaMemcpy(C, dC, M * N * sizeof(float), cudaMemcpyDeviceToHost));
    for (int r = 0; r < M; r++) {
        for (int c = 0; c < N; c++) {
            double want = 0, mag = 0;
            for (int k = 0; k < K; k++) {
                want += (double)A[r * K + k] * B[k * N + c];
                mag += fabs((double)A[r * K + k] * B[k * N + c]);
            }
            double got = C[r * N + c];
            // float accumulation of K terms: error bounded by ~K * eps * sum|a*b|
            if (!(fabs(got - want) <= 1e-5 * mag + 1e-6))
                zt_fail("C[%d][%d] = %.8g, want %.8g", r, c, got, want);
        }
    }
    CK(cudaFree(dA)); CK(cudaFree(dB)); CK(cudaFree(dC));
    free(A); free(B); free(C);
    return zt_finish();
}
