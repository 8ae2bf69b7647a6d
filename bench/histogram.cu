// histogram: 256-bin histogram of SZ_HIST bytes; HIST_BLOCKS blocks of 256
// threads walk the bytes grid-stride, each block counts in shared memory
// with atomicAdd, then adds its bins to the global histogram with atomicAdd.
#include "bench_cuda.h"

__global__ void histogram256(const unsigned char *in, long n, unsigned *hist)
{
    __shared__ unsigned bins[HIST_BINS];
    for (int b = threadIdx.x; b < HIST_BINS; b += blockDim.x)
        bins[b] = 0;
    __syncthreads();
    for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n; i += (long)gridDim.x * blockDim.x)
        atomicAdd(&bins[in[i]], 1u);
    __syncthreads();
    for (int b = threadIdx.x; b < HIST_BINS; b += blockDim.x)
        if (bins[b])
            atomicAdd(&hist[b], bins[b]);
}

int main()
{
    const long n = SZ_HIST;
    unsigned char *in = bench_host<unsigned char>(n);
    for (long i = 0; i < n; i++)   // skewed, as text is: bins get more and less traffic
        in[i] = (unsigned char)((bench_hash((uint32_t)i) & 0xff) & (bench_hash((uint32_t)i + 7) | 0x3f));
    unsigned *hist = bench_host<unsigned>(HIST_BINS), *want = bench_host<unsigned>(HIST_BINS);
    unsigned char *din = bench_dev(n, in);
    unsigned *dhist = bench_dev<unsigned>(HIST_BINS, NULL);
    double zms, cms;
    // The clear is part of each timed run (a histogram starts from zero).
    BENCH_BEST(zms, CK(cudaMemset(dhist, 0, HIST_BINS * sizeof(unsigned)));
               histogram256<<<HIST_BLOCKS, BENCH_THREADS>>>(din, n, dhist); CK_SYNC());
    bench_get(hist, dhist, HIST_BINS);
    BENCH_BEST(cms, ref_histogram(n, in, want));
    int bad = bench_check_u32("histogram", hist, want, HIST_BINS);
    bench_finish("histogram", bad, n, zms, cms, (double)n, (double)n);
    CK(cudaFree(din)); CK(cudaFree(dhist));
    free(in); free(hist); free(want);
    return 0;
}
