// saxpy: y = a x + y over SZ_SAXPY floats, one element per thread in
// 256-thread blocks; memory bound (12 bytes per element).
#include "bench_cuda.h"

__global__ void saxpy(int n, float a, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}

int main()
{
    const long n = SZ_SAXPY;
    float *x = bench_host<float>(n), *y0 = bench_host<float>(n), *y = bench_host<float>(n);
    float *want = bench_host<float>(n);
    bench_fill(x, n, 1);
    bench_fill(y0, n, 2);
    float *dx = bench_dev(n, x), *dy = bench_dev(n, y0);
    int blocks = (int)((n + BENCH_THREADS - 1) / BENCH_THREADS);
    // y is updated in place: both sides run 1 + bench_reps() times from y0.
    double zms, cms;
    BENCH_BEST(zms, saxpy<<<blocks, BENCH_THREADS>>>((int)n, SAXPY_A, dx, dy); CK_SYNC());
    bench_get(y, dy, n);
    memcpy(want, y0, n * sizeof(float));
    BENCH_BEST(cms, ref_saxpy(n, SAXPY_A, x, want));
    int bad = bench_check_f32("saxpy", y, want, n, 1e-5, 1e-5);
    bench_finish("saxpy", bad, n, zms, cms, 12.0 * n, 2.0 * n);
    CK(cudaFree(dx));
    CK(cudaFree(dy));
    free(x); free(y0); free(y); free(want);
    return 0;
}
