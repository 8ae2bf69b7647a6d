/* faults_common.h: what every tests/cuda/faults_*.cu program shares.
 *
 * A fault program makes a kernel fail on purpose, checks the error CUDA
 * defines for it (returned by the synchronising call, and sticky after it),
 * then calls cudaDeviceReset() and proves the process lives on: a correct
 * kernel runs and gives the right answer. Each step prints one line, the
 * last is "PASS <name>" (CTest matches it). */
#ifndef FAULTS_COMMON_H
#define FAULTS_COMMON_H

#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

static int fc_failures;

#define FC_EXPECT(cond, ...) do { if (!(cond)) { printf("FAIL %s:%d: ", __FILE__, __LINE__); \
    printf(__VA_ARGS__); printf("\n"); fc_failures++; } } while (0)

#define FC_CK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    printf("FAIL %s:%d: %s -> %s (%d)\n", __FILE__, __LINE__, #call, cudaGetErrorName(e_), \
           (int)e_); exit(1); } } while (0)

__global__ void fc_scale(const int *in, int *out, int n, int k)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = in[i] * k;
}

/* The fault's error: from the launch or from the synchronisation after it;
 * `want` both there and (sticky) on a later unrelated call. */
static void fc_expect_fault(const char *what, cudaError_t want)
{
    cudaError_t launch = cudaGetLastError();
    cudaError_t sync = cudaDeviceSynchronize();
    cudaError_t got = launch != cudaSuccess ? launch : sync;
    printf("%s: launch %s, synchronize %s\n", what, cudaGetErrorName(launch),
           cudaGetErrorName(sync));
    FC_EXPECT(got == want, "%s: got %s (%d), want %s (%d)", what, cudaGetErrorName(got),
              (int)got, cudaGetErrorName(want), (int)want);
    if (want != cudaSuccess) {
        void *p = NULL;
        cudaError_t later = cudaMalloc(&p, 16);
        FC_EXPECT(later == want, "%s: the error is not sticky: cudaMalloc -> %s", what,
                  cudaGetErrorName(later));
    }
}

/* cudaDeviceReset, then a correct kernel must work. */
static void fc_recover(const char *what)
{
    FC_CK(cudaDeviceReset());
    /* cudart's last-error slot still holds the fault (cudaDeviceReset does
     * not clear it, on a GPU either): read it once */
    (void)cudaGetLastError();
    const int n = 1000;
    int h[1000], *din, *dout;
    for (int i = 0; i < n; i++)
        h[i] = i - 300;
    FC_CK(cudaMalloc(&din, n * sizeof(int)));
    FC_CK(cudaMalloc(&dout, n * sizeof(int)));
    FC_CK(cudaMemcpy(din, h, n * sizeof(int), cudaMemcpyHostToDevice));
    fc_scale<<<(n + 127) / 128, 128>>>(din, dout, n, 3);
    FC_CK(cudaGetLastError());
    FC_CK(cudaDeviceSynchronize());
    FC_CK(cudaMemcpy(h, dout, n * sizeof(int), cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int i = 0; i < n; i++)
        bad += h[i] != (i - 300) * 3;
    FC_EXPECT(bad == 0, "%s: after cudaDeviceReset the correct kernel gave %d wrong values",
              what, bad);
    FC_CK(cudaFree(din));
    FC_CK(cudaFree(dout));
    printf("%s: recovered after cudaDeviceReset\n", what);
}

static int fc_finish(const char *name)
{
    printf("%s %s (%d failures)\n", fc_failures ? "FAIL" : "PASS", name, fc_failures);
    return fc_failures ? 1 : 0;
}

#endif
