// triad (STREAM): a = b + s c over SZ_TRIAD floats, one element per thread;
// memory bound (12 bytes per element).
#include "bench_cuda.h"

__global__ void triad(int n, float s, const float *b, const float *c, float *a)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        a[i] = b[i] + s * c[i];
}

int main()
{
    const long n = SZ_TRIAD;
    float *b = bench_host<float>(n), *c = bench_host<float>(n), *a = bench_host<float>(n);
    float *want = bench_host<float>(n);
    bench_fill(b, n, 3);
    bench_fill(c, n, 4);
    float *db = bench_dev(n, b), *dc = bench_dev(n, c), *da = bench_dev<float>(n, NULL);
    int blocks = (int)((n + BENCH_THREADS - 1) / BENCH_THREADS);
    double zms, cms;
    BENCH_BEST(zms, triad<<<blocks, BENCH_THREADS>>>((int)n, TRIAD_S, db, dc, da); CK_SYNC());
    bench_get(a, da, n);
    BENCH_BEST(cms, ref_triad(n, TRIAD_S, b, c, want));
    int bad = bench_check_f32("triad", a, want, n, 1e-5, 1e-6);
    bench_finish("triad", bad, n, zms, cms, 12.0 * n, 2.0 * n);
    CK(cudaFree(da)); CK(cudaFree(db)); CK(cudaFree(dc));
    free(a); free(b); free(c); free(want);
    return 0;
}
