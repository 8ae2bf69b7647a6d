// GEMM benchmark through cuBLAS: C = A B, square n x n, SGEMM and DGEMM, at
// the sizes of gemm_common.h. One warm-up call, then gemm_reps(n) timed
// calls each followed by a synchronize; the median is reported. Run by
// `zinc run`, it uses Zinc's libcublas; the spot check guards against
// timing a GEMM that did nothing.
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <math.h>
#include "gemm_common.h"

#define CK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    fprintf(stderr, "FAIL %s:%d: %s -> %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
    exit(1); } } while (0)
#define BK(call) do { cublasStatus_t s_ = (call); if (s_ != CUBLAS_STATUS_SUCCESS) { \
    fprintf(stderr, "FAIL %s:%d: %s -> status %d\n", __FILE__, __LINE__, #call, (int)s_); \
    exit(1); } } while (0)

static cublasStatus_t gemm(cublasHandle_t h, int n, const float *A, const float *B, float *C)
{
    const float one = 1.0f, zero = 0.0f;
    return cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, A, n, B, n, &zero, C, n);
}

static cublasStatus_t gemm(cublasHandle_t h, int n, const double *A, const double *B, double *C)
{
    const double one = 1.0, zero = 0.0;
    return cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, A, n, B, n, &zero, C, n);
}

template <typename T> static void bench(cublasHandle_t h, char t, int n)
{
    size_t cnt = (size_t)n * n, bytes = cnt * sizeof(T);
    T *a = (T *)malloc(bytes), *b = (T *)malloc(bytes), *c = (T *)malloc(bytes);
    for (size_t i = 0; i < cnt; i++) {
        a[i] = (T)gemm_input((long)i, 0);
        b[i] = (T)gemm_input((long)i, 1);
    }
    T *dA, *dB, *dC;
    CK(cudaMalloc(&dA, bytes));
    CK(cudaMalloc(&dB, bytes));
    CK(cudaMalloc(&dC, bytes));
    CK(cudaMemcpy(dA, a, bytes, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dB, b, bytes, cudaMemcpyHostToDevice));
    BK(gemm(h, n, dA, dB, dC));   // warm-up: threads started, pages touched
    CK(cudaDeviceSynchronize());
    int reps = gemm_reps(n);
    double ms[GEMM_MAX_REPS];
    for (int r = 0; r < reps; r++) {
        double t0 = bench_now_ms();
        BK(gemm(h, n, dA, dB, dC));
        CK(cudaDeviceSynchronize());
        ms[r] = bench_now_ms() - t0;
    }
    CK(cudaMemcpy(c, dC, bytes, cudaMemcpyDeviceToHost));
    int pts[3][2] = { { 0, 0 }, { n - 1, n / 3 }, { n / 2, n - 1 } };
    for (int p = 0; p < 3; p++) {
        int i = pts[p][0], j = pts[p][1];
        double want = gemm_entry(n, i, j), got = c[i + (size_t)j * n];
        if (fabs(got - want) > 1e-4 * (1.0 + fabs(want))) {
            fprintf(stderr, "FAIL %cgemm_%d: C[%d,%d] = %g, want %g\n", t, n, i, j, got, want);
            exit(1);
        }
    }
    gemm_report(t, n, gemm_median(ms, reps));
    CK(cudaFree(dA));
    CK(cudaFree(dB));
    CK(cudaFree(dC));
    free(a); free(b); free(c);
}

int main()
{
    int sizes[8], ns = gemm_sizes(sizes);
    cublasHandle_t h;
    BK(cublasCreate(&h));
    for (int i = 0; i < ns; i++) {
        bench<float>(h, 's', sizes[i]);
        bench<double>(h, 'd', sizes[i]);
    }
    BK(cublasDestroy(h));
    return 0;
}
