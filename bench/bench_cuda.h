// bench_cuda.h: what the suite's CUDA programs share: error checks, device
// buffers, and the three result lines of one benchmark (Zinc, the C/OpenMP
// reference, memcpy of the same bytes). Each program: inputs from
// bench_suite.h, kernel timed through Zinc, the C reference timed on the
// same data, the kernel's result checked against it (FAIL and exit 1 when
// it differs), then the lines.
#ifndef BENCH_CUDA_H
#define BENCH_CUDA_H

#include <cuda_runtime.h>
#include <stdlib.h>
#include <string.h>
#include "bench_suite.h"

#define CK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    fprintf(stderr, "FAIL %s:%d: %s -> %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
    exit(1); } } while (0)

// Launch check + wait: the statement BENCH_BEST times for a kernel.
#define CK_SYNC() do { CK(cudaGetLastError()); CK(cudaDeviceSynchronize()); } while (0)

template <typename T> static T *bench_host(size_t n)
{
    T *p = (T *)malloc(n * sizeof(T) + 1);
    if (!p) {
        fprintf(stderr, "FAIL out of host memory (%zu elements)\n", n);
        exit(1);
    }
    memset(p, 0xA5, n * sizeof(T));   // poison: a result never written shows
    return p;
}

template <typename T> static T *bench_dev(size_t n, const T *init)
{
    T *d;
    CK(cudaMalloc(&d, n * sizeof(T) + 1));
    if (init)
        CK(cudaMemcpy(d, init, n * sizeof(T), cudaMemcpyHostToDevice));
    else
        CK(cudaMemset(d, 0xA5, n * sizeof(T)));   // poison the output
    return d;
}

template <typename T> static void bench_get(T *host, const T *dev, size_t n)
{
    CK(cudaMemcpy(host, dev, n * sizeof(T), cudaMemcpyDeviceToHost));
}

// Exits 1 when the check failed; else prints the Zinc, C and memcpy lines.
static void bench_finish(const char *name, int failed, long n, double zinc_ms, double c_ms,
                         double bytes, double flops)
{
    if (failed) {
        fprintf(stderr, "FAIL %s: the result through Zinc differs from the C reference\n", name);
        exit(1);
    }
    bench_line(name, "zinc", n, zinc_ms, bytes, flops);
    bench_line(name, "c", n, c_ms, bytes, flops);
    if (bytes > 0)
        bench_line(name, "memcpy", n, ref_memcpy_ms(bytes), bytes, 0);
}

#endif
