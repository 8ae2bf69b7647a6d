/* cublas_stream_order: a cuBLAS call on a blocking stream must see the work
 * queued before it on the legacy default stream (CUDA's implicit
 * synchronisation), and work another stream made it wait for with an
 * event. llm.c relies on the first: cudaMemset on the legacy stream, then
 * cuBLASLt on its own stream (Zinc's cuBLAS used to wait for its own stream
 * only, and read the matrix while the kernel was still writing it).
 *
 * A slow kernel writes small integers into A (or B); the GEMM that reads it
 * is queued right after, so it would run before the kernel finishes if the
 * order were lost. Products of small integers are exact in f32, so C is
 * compared exactly with a host reference. */
#include <cublas_v2.h>
#include <stdint.h>

#include "blas_test.h"

#define N 64

/* Each element is the end of a `spin`-step LCG walk (so the kernel runs for
 * milliseconds) reduced to a small integer; the host walks it too. */
__host__ __device__ static float walk(int i, int spin, int salt)
{
    uint32_t h = (uint32_t)i * 2654435761u + (uint32_t)salt;
    for (int k = 0; k < spin; k++)
        h = h * 1664525u + 1013904223u;
    return (float)((int)(h % 7u) - 3);
}

__global__ void slow_fill(float *m, int n, int spin, int salt)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        m[i] = walk(i, spin, salt);
}

/* C = A * B (column-major N x N) against a host product of the values
 * slow_fill writes. */
static void check_product(const float *c, const float *ha, const float *hb, const char *what)
{
    int bad = 0;
    for (int j = 0; j < N && !bad; j++)
        for (int i = 0; i < N; i++) {
            float ref = 0.0f;
            for (int k = 0; k < N; k++)
                ref += ha[i + k * N] * hb[k + j * N];
            if (c[i + j * N] != ref) {
                CHECK(0, "%s: C[%d,%d] = %g, expected %g", what, i, j, c[i + j * N], ref);
                bad = 1;
                break;
            }
        }
    CHECK(!bad, "%s: product matches", what);
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    const int nn = N * N, spin = 20000;
    float *a, *b, *c, host[N * N], ha[N * N], hb[N * N], hb0[N * N];
    for (int i = 0; i < nn; i++) {
        ha[i] = walk(i, spin, 1);
        hb0[i] = walk(i, 0, 2);
        hb[i] = walk(i, spin, 2);
    }
    CUDA_OK(cudaMalloc(&a, nn * sizeof(float)));
    CUDA_OK(cudaMalloc(&b, nn * sizeof(float)));
    CUDA_OK(cudaMalloc(&c, nn * sizeof(float)));
    cudaStream_t s, s2;
    CUDA_OK(cudaStreamCreate(&s));   /* blocking: ordered after the legacy stream */
    CUDA_OK(cudaStreamCreate(&s2));
    cublasHandle_t h;
    STATUS_OK(cublasCreate(&h));
    STATUS_OK(cublasSetStream(h, s));
    const float one = 1.0f, zero = 0.0f;

    /* 1. A written on the legacy stream, GEMM on s */
    slow_fill<<<nn / 256, 256>>>(b, nn, 0, 2);
    CUDA_OK(cudaDeviceSynchronize());
    CUDA_OK(cudaMemset(c, 0xff, nn * sizeof(float)));  /* poison: NaN */
    CUDA_OK(cudaDeviceSynchronize());
    CUDA_OK(cudaMemset(a, 0xff, nn * sizeof(float)));
    CUDA_OK(cudaDeviceSynchronize());
    /* the legacy stream first waits for a slow kernel on s2, so the fill of
     * A is surely still queued when the GEMM is called */
    cudaEvent_t busy;
    CUDA_OK(cudaEventCreateWithFlags(&busy, cudaEventDisableTiming));
    slow_fill<<<nn / 256, 256, 0, s2>>>(c, nn, spin, 3);
    CUDA_OK(cudaEventRecord(busy, s2));
    CUDA_OK(cudaStreamWaitEvent(0, busy, 0));
    slow_fill<<<nn / 256, 256>>>(a, nn, spin, 1);
    CUDA_OK(cudaMemsetAsync(c, 0xff, nn * sizeof(float), 0));  /* poison again, after the s2 kernel */
    STATUS_OK(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, N, N, N, &one, a, N, b, N, &zero, c, N));
    CUDA_OK(cudaStreamSynchronize(s));
    CUDA_OK(cudaMemcpy(host, c, sizeof host, cudaMemcpyDeviceToHost));
    check_product(host, ha, hb0, "legacy stream -> blocking stream");

    /* 2. B written on s2, s waits for it through an event */
    cudaEvent_t ev;
    CUDA_OK(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
    CUDA_OK(cudaMemset(c, 0xff, nn * sizeof(float)));
    CUDA_OK(cudaMemset(b, 0xff, nn * sizeof(float)));
    CUDA_OK(cudaDeviceSynchronize());
    slow_fill<<<nn / 256, 256, 0, s2>>>(b, nn, spin, 2);
    CUDA_OK(cudaEventRecord(ev, s2));
    CUDA_OK(cudaStreamWaitEvent(s, ev, 0));
    STATUS_OK(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, N, N, N, &one, a, N, b, N, &zero, c, N));
    CUDA_OK(cudaStreamSynchronize(s));
    CUDA_OK(cudaMemcpy(host, c, sizeof host, cudaMemcpyDeviceToHost));
    check_product(host, ha, hb, "event wait -> stream");

    STATUS_OK(cublasDestroy(h));
    CUDA_OK(cudaEventDestroy(ev));
    CUDA_OK(cudaEventDestroy(busy));
    CUDA_OK(cudaStreamDestroy(s));
    CUDA_OK(cudaStreamDestroy(s2));
    CUDA_OK(cudaFree(a));
    CUDA_OK(cudaFree(b));
    CUDA_OK(cudaFree(c));
    printf("%s: %d checks, %d failed\n", g_fail ? "FAIL" : "PASS", g_checks, g_fail);
    return g_fail != 0;
}
