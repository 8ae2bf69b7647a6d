// scan: exclusive prefix sum of SZ_SCAN ints with CUB
// (cub::DeviceScan::ExclusiveSum, from the toolkit's CCCL headers): CUB's
// single-pass decoupled look-back kernels, run unmodified through Zinc.
#include <cub/device/device_scan.cuh>
#include "bench_cuda.h"

int main()
{
    const long n = SZ_SCAN;
    int *in = bench_host<int>(n), *out = bench_host<int>(n), *want = bench_host<int>(n);
    for (long i = 0; i < n; i++)
        in[i] = (int)(bench_hash((uint32_t)i) % 201) - 100;
    int *din = bench_dev(n, in), *dout = bench_dev<int>(n, NULL);
    void *tmp = NULL;
    size_t tmp_bytes = 0;
    CK(cub::DeviceScan::ExclusiveSum(tmp, tmp_bytes, din, dout, (int)n));
    CK(cudaMalloc(&tmp, tmp_bytes));
    double zms, cms;
    BENCH_BEST(zms, CK(cub::DeviceScan::ExclusiveSum(tmp, tmp_bytes, din, dout, (int)n)); CK_SYNC());
    bench_get(out, dout, n);
    BENCH_BEST(cms, ref_scan_excl(n, in, want));
    int bad = bench_check_u32("scan", (const unsigned *)out, (const unsigned *)want, n);
    bench_finish("scan", bad, n, zms, cms, 8.0 * n, (double)n);
    CK(cudaFree(tmp)); CK(cudaFree(din)); CK(cudaFree(dout));
    free(in); free(out); free(want);
    return 0;
}
