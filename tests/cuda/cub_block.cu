// cub_block: CUB's block- and warp-level collectives, each algorithm
// variant: BlockReduce (WARP_REDUCTIONS, RAKING, RAKING_COMMUTATIVE_ONLY;
// Sum and Max, full and partial tiles), BlockScan (RAKING, RAKING_MEMOIZE,
// WARP_SCANS; inclusive and exclusive sums with the block aggregate),
// WarpReduce (Sum, Max, a segment of 16 lanes) and WarpScan (inclusive
// sum). Integers, so every result is exact; CPU references in the test.
#include "zn_test.h"
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/warp/warp_reduce.cuh>
#include <cub/warp/warp_scan.cuh>
#include <cuda/functional>

#define NT 128
#define IPT 4 // items per thread in the scans
#define NB 6

// out[b * 3 + 0..2]: Sum of the block's tile, Max, Sum of the first
// `valid` threads' values (partial tile).
template <cub::BlockReduceAlgorithm A>
__global__ void block_reduce(const int *in, int *out, int valid)
{
    using R = cub::BlockReduce<int, NT, A>;
    __shared__ typename R::TempStorage tmp;
    int v = in[blockIdx.x * NT + threadIdx.x];
    int s = R(tmp).Sum(v);
    __syncthreads();
    int m = R(tmp).Reduce(v, cuda::maximum<>{});
    __syncthreads();
    int p = R(tmp).Sum(v, valid);
    if (threadIdx.x == 0) {
        out[blockIdx.x * 3 + 0] = s;
        out[blockIdx.x * 3 + 1] = m;
        out[blockIdx.x * 3 + 2] = p;
    }
}

// incl/excl: per item; agg[b]: the block aggregate from the exclusive scan.
template <cub::BlockScanAlgorithm A>
__global__ void block_scan(const int *in, int *incl, int *excl, int *agg)
{
    using S = cub::BlockScan<int, NT, A>;
    __shared__ typename S::TempStorage tmp;
    int base = (blockIdx.x * NT + threadIdx.x) * IPT, v[IPT], w[IPT], total;
    for (int k = 0; k < IPT; k++)
        v[k] = in[base + k];
    S(tmp).InclusiveSum(v, w);
    for (int k = 0; k < IPT; k++)
        incl[base + k] = w[k];
    __syncthreads();
    S(tmp).ExclusiveSum(v, w, total);
    for (int k = 0; k < IPT; k++)
        excl[base + k] = w[k];
    if (threadIdx.x == 0)
        agg[blockIdx.x] = total;
}

// per warp: out[w*4 + 0] sum, +1 max, +2 sum of lanes 16..31 (a logical
// warp of 16), and scan[i]: inclusive sum within the warp.
__global__ void warp_ops(const int *in, int *out, int *scan)
{
    using WR = cub::WarpReduce<int>;
    using WR16 = cub::WarpReduce<int, 16>;
    using WS = cub::WarpScan<int>;
    __shared__ typename WR::TempStorage tr[NT / 32];
    __shared__ typename WR16::TempStorage t16[NT / 16];
    __shared__ typename WS::TempStorage ts[NT / 32];
    int i = blockIdx.x * NT + threadIdx.x, w = threadIdx.x / 32;
    int gw = blockIdx.x * (NT / 32) + w, v = in[i];
    int s = WR(tr[w]).Sum(v);
    int m = WR(tr[w]).Reduce(v, cuda::maximum<>{});
    int s16 = WR16(t16[threadIdx.x / 16]).Sum(v);
    int sc;
    WS(ts[w]).InclusiveSum(v, sc);
    scan[i] = sc;
    if (threadIdx.x % 32 == 0) {
        out[gw * 4 + 0] = s;
        out[gw * 4 + 1] = m;
    }
    if (threadIdx.x % 32 == 16)
        out[gw * 4 + 2] = s16;
}

static int *dalloc(size_t n)
{
    int *d;
    CK(cudaMalloc(&d, n * sizeof(int)));
    POISON(d, n * sizeof(int));
    return d;
}

static void fetch(int *h, const int *d, size_t n)
{
    CK(cudaMemcpy(h, d, n * sizeof(int), cudaMemcpyDeviceToHost));
}

template <cub::BlockReduceAlgorithm A>
static void run_reduce(const char *name, const int *in, const int *din, int valid)
{
    int *dout = dalloc(NB * 3), out[NB * 3];
    block_reduce<A><<<NB, NT>>>(din, dout, valid);
    CK_LAUNCH();
    fetch(out, dout, NB * 3);
    for (int b = 0; b < NB; b++) {
        int s = 0, m = in[b * NT], p = 0;
        for (int t = 0; t < NT; t++) {
            int v = in[b * NT + t];
            s += v;
            m = v > m ? v : m;
            if (t < valid)
                p += v;
        }
        if (out[b * 3] != s || out[b * 3 + 1] != m || out[b * 3 + 2] != p)
            zt_fail("%s block %d: sum %d max %d partial %d, want %d %d %d", name, b, out[b * 3],
                    out[b * 3 + 1], out[b * 3 + 2], s, m, p);
    }
    CK(cudaFree(dout));
}

template <cub::BlockScanAlgorithm A>
static void run_scan(const char *name, const int *in, const int *din)
{
    const int n = NB * NT * IPT;
    int *dincl = dalloc(n), *dexcl = dalloc(n), *dagg = dalloc(NB);
    int *incl = (int *)malloc(n * sizeof(int)), *excl = (int *)malloc(n * sizeof(int)), agg[NB];
    block_scan<A><<<NB, NT>>>(din, dincl, dexcl, dagg);
    CK_LAUNCH();
    fetch(incl, dincl, n);
    fetch(excl, dexcl, n);
    fetch(agg, dagg, NB);
    for (int b = 0; b < NB; b++) {
        int run = 0;
        for (int k = 0; k < NT * IPT; k++) {
            int i = b * NT * IPT + k;
            if (excl[i] != run)
                zt_fail("%s exclusive[%d] = %d, want %d", name, i, excl[i], run);
            run += in[i];
            if (incl[i] != run)
                zt_fail("%s inclusive[%d] = %d, want %d", name, i, incl[i], run);
        }
        if (agg[b] != run)
            zt_fail("%s aggregate of block %d = %d, want %d", name, b, agg[b], run);
    }
    CK(cudaFree(dincl));
    CK(cudaFree(dexcl));
    CK(cudaFree(dagg));
    free(incl);
    free(excl);
}

int main()
{
    zt_begin("cub_block");
    const int n = NB * NT * IPT;
    int *in = (int *)malloc(n * sizeof(int)), *din;
    for (int i = 0; i < n; i++)
        in[i] = (int)(zt_rand() % 20001) - 10000;
    CK(cudaMalloc(&din, n * sizeof(int)));
    CK(cudaMemcpy(din, in, n * sizeof(int), cudaMemcpyHostToDevice));

    run_reduce<cub::BLOCK_REDUCE_WARP_REDUCTIONS>("reduce/warp_reductions", in, din, 77);
    run_reduce<cub::BLOCK_REDUCE_RAKING>("reduce/raking", in, din, 100);
    run_reduce<cub::BLOCK_REDUCE_RAKING_COMMUTATIVE_ONLY>("reduce/raking_commutative", in, din, 33);
    run_scan<cub::BLOCK_SCAN_RAKING>("scan/raking", in, din);
    run_scan<cub::BLOCK_SCAN_RAKING_MEMOIZE>("scan/raking_memoize", in, din);
    run_scan<cub::BLOCK_SCAN_WARP_SCANS>("scan/warp_scans", in, din);

    const int nw = NB * NT / 32;
    int *dw = dalloc(nw * 4), *dscan = dalloc(NB * NT);
    int *w = (int *)malloc(nw * 4 * sizeof(int)), *scan = (int *)malloc(NB * NT * sizeof(int));
    warp_ops<<<NB, NT>>>(din, dw, dscan);
    CK_LAUNCH();
    fetch(w, dw, nw * 4);
    fetch(scan, dscan, NB * NT);
    for (int g = 0; g < nw; g++) {
        int s = 0, m = in[g * 32], s16 = 0, run = 0;
        for (int l = 0; l < 32; l++) {
            int v = in[g * 32 + l];
            s += v;
            m = v > m ? v : m;
            if (l >= 16)
                s16 += v;
            run += v;
            if (scan[g * 32 + l] != run)
                zt_fail("WarpScan[%d] = %d, want %d", g * 32 + l, scan[g * 32 + l], run);
        }
        if (w[g * 4] != s || w[g * 4 + 1] != m || w[g * 4 + 2] != s16)
            zt_fail("warp %d: sum %d max %d sum16 %d, want %d %d %d", g, w[g * 4], w[g * 4 + 1],
                    w[g * 4 + 2], s, m, s16);
    }
    CK(cudaFree(dw));
    CK(cudaFree(dscan));
    CK(cudaFree(din));
    free(w);
    free(scan);
    free(in);
    return zt_finish();
}
