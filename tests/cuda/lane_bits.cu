// lane_bits: addresses built with bit operations on the thread index, as
// CUB's warp-striped loads do (`(tid & ~31) * ITEMS + (tid & 31)`, `tid >>
// 5`, `lane | warp_base`, a shared slot per warp `slot[tid >> 5]`). Zinc proves such addresses contiguous or the
// same in the warp when lane 0's low bits leave room for the lanes'
// offsets (a run-time fact, src/compile/zn_lower_affine.c) and falls back
// to per-lane addresses when they do not: an offset `off` added before the
// bit operation breaks the fact unless it is a multiple of 32. Indices stay
// below N (blocks of at most 256 threads, offsets below 64). Every form, with offsets
// that keep and that break the fact and with block sizes that are and are
// not a multiple of 32, is checked against the CPU.
#include "zn_test.h"

#define ITEMS 3
#define N 4096
#define SLOTS 12    /* (255 + 63) / 32 + 1 */

__global__ void striped(const int *in, int *out, int off)
{
    unsigned t = threadIdx.x + off, lane = t & 31, base = (t & ~31u) * ITEMS;
    unsigned o = blockIdx.x * blockDim.x * ITEMS;
    for (unsigned i = 0; i < ITEMS; i++)
        out[o + threadIdx.x * ITEMS + i] = in[o + base + lane + 32 * i];
}

__global__ void warp_index(const int *in, int *out, int off)
{
    unsigned t = threadIdx.x + off;
    out[blockIdx.x * blockDim.x + threadIdx.x] = in[(t >> 5) + 7 * (t % 32u)];
}

/* k a parameter, so that nvcc keeps the `or` (a bfi for a constant): 64
 * keeps the fact, 48 breaks it for odd warps */
__global__ void or_base(const int *in, int *out, int off, unsigned k)
{
    unsigned t = threadIdx.x, w = t >> 5;
    unsigned idx = ((w * k) | ((t + off) & 31u)) + blockIdx.x * 8u;
    out[blockIdx.x * blockDim.x + t] = in[idx];
}

/* one shared slot per warp, slot[t >> 5]: nvcc computes the byte offset
 * as (t >> 3) & 0x1ffffffc, the same in the warp when t's lanes do not
 * cross a multiple of 32 */
__global__ void warp_slots(const int *in, int *out, int off)
{
    __shared__ int slot[SLOTS];
    unsigned t = threadIdx.x + off, g = blockIdx.x * blockDim.x + threadIdx.x;
    if (threadIdx.x < SLOTS)
        slot[threadIdx.x] = -1 - (int)threadIdx.x;
    __syncthreads();
    if ((t & 31) == 0)
        slot[t >> 5] = in[g];
    __syncthreads();
    out[g] = slot[t >> 5];
}

static int hin[N], hout[N * ITEMS];

static int want_striped(unsigned b, unsigned t, unsigned i, unsigned nt, int off)
{
    unsigned tt = t + off, o = b * nt * ITEMS;
    return hin[o + (tt & ~31u) * ITEMS + (tt & 31) + 32 * i];
}

static void run(int blocks, int threads, int off, unsigned k)
{
    int *in, *out;
    CK(cudaMalloc(&in, sizeof hin));
    CK(cudaMalloc(&out, sizeof hout));
    CK(cudaMemcpy(in, hin, sizeof hin, cudaMemcpyHostToDevice));
    int bad = 0;

    POISON(out, sizeof hout);
    striped<<<blocks, threads>>>(in, out, off);
    CK_LAUNCH();
    CK(cudaMemcpy(hout, out, sizeof hout, cudaMemcpyDeviceToHost));
    for (int b = 0; b < blocks; b++)
        for (int t = 0; t < threads; t++)
            for (int i = 0; i < ITEMS; i++) {
                int got = hout[(b * threads + t) * ITEMS + i];
                int want = want_striped(b, t, i, threads, off);
                if (got != want && bad++ < 5)
                    zt_fail("striped %dx%d off %d: block %d thread %d item %d: %d, want %d",
                            blocks, threads, off, b, t, i, got, want);
            }

    POISON(out, sizeof hout);
    warp_index<<<blocks, threads>>>(in, out, off);
    CK_LAUNCH();
    CK(cudaMemcpy(hout, out, sizeof hout, cudaMemcpyDeviceToHost));
    for (int b = 0; b < blocks; b++)
        for (int t = 0; t < threads; t++) {
            unsigned tt = (unsigned)(t + off);
            int want = hin[(tt >> 5) + 7 * (tt % 32u)];
            if (hout[b * threads + t] != want && bad++ < 5)
                zt_fail("warp_index %dx%d off %d: thread %d: %d, want %d", blocks, threads, off,
                        t, hout[b * threads + t], want);
        }

    POISON(out, sizeof hout);
    or_base<<<blocks, threads>>>(in, out, off, k);
    CK_LAUNCH();
    CK(cudaMemcpy(hout, out, sizeof hout, cudaMemcpyDeviceToHost));
    for (int b = 0; b < blocks; b++)
        for (int t = 0; t < threads; t++) {
            unsigned idx = ((((unsigned)t >> 5) * k) | (((unsigned)t + off) & 31u)) + b * 8u;
            if (hout[b * threads + t] != hin[idx] && bad++ < 5)
                zt_fail("or_base %dx%d off %d: thread %d: %d, want %d", blocks, threads, off, t,
                        hout[b * threads + t], hin[idx]);
        }

    POISON(out, sizeof hout);
    warp_slots<<<blocks, threads>>>(in, out, off);
    CK_LAUNCH();
    CK(cudaMemcpy(hout, out, sizeof hout, cudaMemcpyDeviceToHost));
    for (int b = 0; b < blocks; b++) {
        int slot[SLOTS];
        for (int s = 0; s < SLOTS; s++)
            slot[s] = -1 - s;
        for (int t = 0; t < threads; t++)
            if (((unsigned)(t + off) & 31) == 0)
                slot[(unsigned)(t + off) >> 5] = hin[b * threads + t];
        for (int t = 0; t < threads; t++) {
            int want = slot[(unsigned)(t + off) >> 5];
            if (hout[b * threads + t] != want && bad++ < 5)
                zt_fail("warp_slots %dx%d off %d: thread %d: %d, want %d", blocks, threads, off,
                        t, hout[b * threads + t], want);
        }
    }
    CK(cudaFree(in));
    CK(cudaFree(out));
}

int main(void)
{
    zt_begin("lane_bits");
    for (int i = 0; i < N; i++)
        hin[i] = (int)(zt_rand() % 100000);
    run(4, 256, 0, 64); /* the first launch: code for 256 threads */
    run(4, 256, 32, 64);    /* the facts hold */
    run(4, 256, 5, 48);     /* lane 0's low bits leave no room: per-lane addresses */
    run(4, 256, 29, 64);
    run(3, 96, 0, 48);
    run(2, 48, 0, 64);  /* not a multiple of 32: other code, partial warps */
    run(2, 48, 7, 48);
    return zt_finish();
}
