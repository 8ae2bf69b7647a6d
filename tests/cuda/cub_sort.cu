// cub_sort: CUB's DeviceRadixSort::SortPairs (the onesweep kernels on sm_70+:
// histogram, exclusive sum and the decoupled look-back onesweep pass) on
// 200k int keys with int values, all bits and a bit range, against a CPU
// stable sort by key written here (radix sort is stable: equal keys keep
// their input order, so the values are determined). Outputs are poisoned.
#include "zn_test.h"
#include <cub/device/device_radix_sort.cuh>

#define N 200003

// stable merge sort of (key, value) by key bits [lo, hi) of the key's
// order-preserving unsigned image (CUB flips the sign bit of int keys)
static uint32_t sort_key(int k, int lo, int hi)
{
    uint32_t u = (uint32_t)k ^ 0x80000000u;
    uint32_t bits = hi - lo >= 32 ? 0xFFFFFFFFu : ((1u << (hi - lo)) - 1u);
    return (u >> lo) & bits;
}

static void ref_sort(int *k, int *v, int n, int lo, int hi, int *tk, int *tv)
{
    for (int w = 1; w < n; w *= 2) {
        for (int i = 0; i < n; i += 2 * w) {
            int a = i, am = i + w < n ? i + w : n, b = am, bm = i + 2 * w < n ? i + 2 * w : n;
            int o = i;
            while (a < am || b < bm) {
                // take from the left run on ties: stable
                if (b >= bm || (a < am && sort_key(k[a], lo, hi) <= sort_key(k[b], lo, hi))) {
                    tk[o] = k[a]; tv[o++] = v[a++];
                } else {
                    tk[o] = k[b]; tv[o++] = v[b++];
                }
            }
        }
        memcpy(k, tk, n * sizeof(int));
        memcpy(v, tv, n * sizeof(int));
    }
}

int main()
{
    zt_begin("cub_sort");
    int *keys = (int *)malloc(N * sizeof(int)), *vals = (int *)malloc(N * sizeof(int));
    int *wk = (int *)malloc(N * sizeof(int)), *wv = (int *)malloc(N * sizeof(int));
    int *tk = (int *)malloc(N * sizeof(int)), *tv = (int *)malloc(N * sizeof(int));
    int *gk = (int *)malloc(N * sizeof(int)), *gv = (int *)malloc(N * sizeof(int));
    for (int i = 0; i < N; i++) {
        // many duplicates (stability matters) and both signs
        keys[i] = (int)(zt_rand() % 50000) - 25000;
        if (i % 7 == 0)
            keys[i] = (int)zt_rand();
        vals[i] = i;
    }
    int *dk_in, *dv_in, *dk_out, *dv_out;
    CK(cudaMalloc(&dk_in, N * sizeof(int)));
    CK(cudaMalloc(&dv_in, N * sizeof(int)));
    CK(cudaMalloc(&dk_out, N * sizeof(int)));
    CK(cudaMalloc(&dv_out, N * sizeof(int)));
    CK(cudaMemcpy(dk_in, keys, N * sizeof(int), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dv_in, vals, N * sizeof(int), cudaMemcpyHostToDevice));

    // all 32 bits, then bits [4, 20) only (the same kernels, fewer passes)
    static const int range[2][2] = {{0, 32}, {4, 20}};
    for (int r = 0; r < 2; r++) {
        int lo = range[r][0], hi = range[r][1];
        memcpy(wk, keys, N * sizeof(int));
        memcpy(wv, vals, N * sizeof(int));
        ref_sort(wk, wv, N, lo, hi, tk, tv);
        POISON(dk_out, N * sizeof(int));
        POISON(dv_out, N * sizeof(int));
        size_t tb = 0;
        CK(cub::DeviceRadixSort::SortPairs(NULL, tb, dk_in, dk_out, dv_in, dv_out, N, lo, hi));
        void *tmp;
        CK(cudaMalloc(&tmp, tb ? tb : 1));
        CK(cub::DeviceRadixSort::SortPairs(tmp, tb, dk_in, dk_out, dv_in, dv_out, N, lo, hi));
        CK(cudaDeviceSynchronize());
        CK(cudaMemcpy(gk, dk_out, N * sizeof(int), cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(gv, dv_out, N * sizeof(int), cudaMemcpyDeviceToHost));
        for (int i = 0; i < N; i++)
            if (gk[i] != wk[i] || gv[i] != wv[i]) {
                zt_fail("SortPairs bits [%d,%d): [%d] = (%d, %d), want (%d, %d)", lo, hi, i,
                        gk[i], gv[i], wk[i], wv[i]);
                break;
            }
        CK(cudaFree(tmp));
    }

    CK(cudaFree(dk_in));
    CK(cudaFree(dv_in));
    CK(cudaFree(dk_out));
    CK(cudaFree(dv_out));
    free(keys); free(vals); free(wk); free(wv); free(tk); free(tv); free(gk); free(gv);
    return zt_finish();
}
