// stream_stores: kernels whose warps store whole lines of output they do
// not read, which Zinc writes with non-temporal stores around the cache
// when a launch writes more than the last-level cache holds
// (src/compile/zn_lower_stream.c). CTest runs this program with
// ZINC_STREAM_MIN_BYTES=0, so every launch here takes that path wherever
// a warp is full and its first address on a 64-byte line. Checked
// against the CPU, output poisoned first: a triad of floats, doubles, a
// float4 and a half per thread, a 2D stencil in 32 x 8 blocks, an
// in-place update (kept cached), the output 4 bytes off a line (cached), a
// partial last block, a second kernel on other workers reading what the
// first wrote (the non-temporal stores must be visible once the launch is
// done), and the last block of a grid reading what the others streamed
// out after their fence and atomic.
#include "zn_test.h"
#include <cuda_fp16.h>

#define N ((1 << 20) + 13)
#define BLOCK 256

__global__ void triad(int n, float s, float *a, const float *b, const float *c)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        a[i] = b[i] + s * c[i];
}

__global__ void twice(int n, double *out, const float *in)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = 2.0 * in[i];
}

__global__ void spread4(int n, float4 *out, const float *in)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = make_float4(in[i], -in[i], in[i] + 1.0f, 0.5f);
}

__global__ void to_half(int n, __half *out, const float *in)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = __float2half_rn(in[i]);
}

__global__ void axpy(int n, float s, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = s * x[i] + y[i];
}

__global__ void stencil(int w, int h, const float *in, float *out)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h)
        return;
    size_t i = (size_t)y * w + x;
    if (x == 0 || y == 0 || x == w - 1 || y == h - 1)
        out[i] = in[i];
    else
        out[i] = 0.25f * (in[i - 1] + in[i + 1] + in[i - w] + in[i + w]);
}

// Each block writes its elements of out (streamed: the kernel reads
// `again`, not `out`), then counts itself done after a fence; the last
// block reads everything through `again` (the same buffer) and writes the
// total: the other blocks' non-temporal stores, made on other workers,
// must be visible to it (an sfence before the atomic).
__device__ unsigned blocks_done;

__global__ void last_block_total(int n, float *out, const float *in, const float *again,
                                 float *total)
{
    __shared__ bool last;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = 2.0f * in[i];
    __threadfence();
    __syncthreads();
    if (threadIdx.x == 0)
        last = atomicInc(&blocks_done, gridDim.x - 1) == gridDim.x - 1;
    __syncthreads();
    if (last && threadIdx.x == 0) {
        float s = 0.0f;
        for (int k = 0; k < n; k++)
            s += again[k];
        *total = s;
    }
}

// sums[b] = the sum of block b's elements of v, read after another launch
__global__ void block_sums(int n, const float *v, float *sums)
{
    __shared__ float part[BLOCK];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    part[threadIdx.x] = i < n ? v[i] : 0.0f;
    __syncthreads();
    if (threadIdx.x == 0) {
        float s = 0.0f;
        for (int k = 0; k < BLOCK; k++)
            s += part[k];
        sums[blockIdx.x] = s;
    }
}

static float in_at(int i) { return (float)(i % 1000) - 250.0f; }

static void *dev(size_t bytes)
{
    void *p;
    CK(cudaMalloc(&p, bytes));
    CK(cudaMemset(p, 0xff, bytes));   // poison: NaN floats, 0xffff halves
    return p;
}

static void fetch(void *h, const void *d, size_t bytes)
{
    CK(cudaMemcpy(h, d, bytes, cudaMemcpyDeviceToHost));
}

static int grid(int n) { return (n + BLOCK - 1) / BLOCK; }

static void check_triad(float *db, float *dc, int off)
{
    float *da = (float *)dev((N + 16) * sizeof(float)), *a = (float *)malloc((N + 16) * 4);
    triad<<<grid(N), BLOCK>>>(N, 3.0f, da + off, db, dc);
    CK_LAUNCH();
    fetch(a, da, (N + 16) * sizeof(float));
    for (int i = 0; i < N + 16; i++) {
        int j = i - off;
        uint32_t bits;
        memcpy(&bits, &a[i], 4);
        if (j >= 0 && j < N) {
            float want = in_at(j) + 3.0f * (float)(j & 255);
            if (a[i] != want)
                zt_fail("triad (+%d floats) a[%d] = %g, want %g", off, j, a[i], want);
        } else if (bits != 0xffffffffu)
            zt_fail("triad (+%d floats) wrote a[%d] = 0x%08x past its range", off, j, bits);
    }
    CK(cudaFree(da));
    free(a);
}

int main()
{
    zt_begin("stream_stores");
    float *hin = (float *)malloc(N * sizeof(float)), *hc = (float *)malloc(N * sizeof(float));
    for (int i = 0; i < N; i++) {
        hin[i] = in_at(i);
        hc[i] = (float)(i & 255);
    }
    float *din = (float *)dev(N * sizeof(float)), *dc = (float *)dev(N * sizeof(float));
    CK(cudaMemcpy(din, hin, N * sizeof(float), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dc, hc, N * sizeof(float), cudaMemcpyHostToDevice));

    check_triad(din, dc, 0);
    check_triad(din, dc, 1);   // 4 bytes off a line: the cached path

    // the triad's output read back by a second launch (other workers)
    float *da = (float *)dev(N * sizeof(float)), *dsum = (float *)dev(grid(N) * sizeof(float));
    float *sums = (float *)malloc(grid(N) * sizeof(float));
    for (int rep = 0; rep < 3; rep++) {
        triad<<<grid(N), BLOCK>>>(N, (float)rep, da, din, dc);
        block_sums<<<grid(N), BLOCK>>>(N, da, dsum);
        CK_LAUNCH();
        fetch(sums, dsum, grid(N) * sizeof(float));
        for (int b = 0; b < grid(N); b++) {
            float want = 0.0f;   // the same order as the kernel: exact compare
            for (int k = 0; k < BLOCK; k++) {
                int i = b * BLOCK + k;
                want += i < N ? hin[i] + (float)rep * hc[i] : 0.0f;
            }
            if (sums[b] != want)
                zt_fail("rep %d: block %d sums to %g, want %g", rep, b, sums[b], want);
        }
    }

    // the last block's total of what all blocks streamed out
    float *dtot = (float *)dev(sizeof(float)), tot, want_tot = 0.0f;
    for (int i = 0; i < N; i++)
        want_tot += 2.0f * hin[i];
    for (int rep = 0; rep < 3; rep++) {
        CK(cudaMemset(da, 0xff, N * sizeof(float)));
        last_block_total<<<grid(N), BLOCK>>>(N, da, din, da, dtot);
        CK_LAUNCH();
        fetch(&tot, dtot, sizeof(float));
        if (tot != want_tot)
            zt_fail("rep %d: the last block's total is %g, want %g", rep, tot, want_tot);
    }

    double *dd = (double *)dev(N * sizeof(double)), *hd = (double *)malloc(N * sizeof(double));
    twice<<<grid(N), BLOCK>>>(N, dd, din);
    CK_LAUNCH();
    fetch(hd, dd, N * sizeof(double));
    for (int i = 0; i < N; i++)
        if (hd[i] != 2.0 * hin[i])
            zt_fail("twice[%d] = %g, want %g", i, hd[i], 2.0 * hin[i]);

    float4 *d4 = (float4 *)dev(N * sizeof(float4)), *h4 = (float4 *)malloc(N * sizeof(float4));
    spread4<<<grid(N), BLOCK>>>(N, d4, din);
    CK_LAUNCH();
    fetch(h4, d4, N * sizeof(float4));
    for (int i = 0; i < N; i++)
        if (h4[i].x != hin[i] || h4[i].y != -hin[i] || h4[i].z != hin[i] + 1.0f ||
            h4[i].w != 0.5f)
            zt_fail("spread4[%d] = {%g %g %g %g}", i, h4[i].x, h4[i].y, h4[i].z, h4[i].w);

    __half *dh = (__half *)dev(N * sizeof(__half));
    uint16_t *hh = (uint16_t *)malloc(N * sizeof(uint16_t));
    to_half<<<grid(N), BLOCK>>>(N, dh, din);
    CK_LAUNCH();
    fetch(hh, dh, N * sizeof(__half));
    for (int i = 0; i < N; i++) {
        // in_at is an integer in [-250, 750): exact in half
        float v = hin[i];
        uint16_t sign = v < 0 ? 0x8000 : 0, want = 0;
        float m = v < 0 ? -v : v;
        if (m != 0.0f) {
            int e = 0;
            while (m >= 2.0f) { m /= 2.0f; e++; }
            want = (uint16_t)(sign | ((e + 15) << 10) | (uint16_t)((m - 1.0f) * 1024.0f));
        }
        if (hh[i] != want)
            zt_fail("to_half[%d] = 0x%04x, want 0x%04x (%g)", i, hh[i], want, v);
    }

    // in place: y = 2 x + y
    float *dy = (float *)dev(N * sizeof(float)), *hy = (float *)malloc(N * sizeof(float));
    CK(cudaMemcpy(dy, hc, N * sizeof(float), cudaMemcpyHostToDevice));
    axpy<<<grid(N), BLOCK>>>(N, 2.0f, din, dy);
    CK_LAUNCH();
    fetch(hy, dy, N * sizeof(float));
    for (int i = 0; i < N; i++)
        if (hy[i] != 2.0f * hin[i] + hc[i])
            zt_fail("axpy y[%d] = %g, want %g", i, hy[i], 2.0f * hin[i] + hc[i]);

    // 2D: 1031 x 1013 points in 32 x 8 blocks (partial blocks at both edges)
    const int w = 1031, h = 1013;   // w * h <= N: din is the grid
    float *dout = (float *)dev((size_t)w * h * sizeof(float));
    float *hout = (float *)malloc((size_t)w * h * sizeof(float));
    stencil<<<dim3((w + 31) / 32, (h + 7) / 8), dim3(32, 8)>>>(w, h, din, dout);
    CK_LAUNCH();
    fetch(hout, dout, (size_t)w * h * sizeof(float));
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            size_t i = (size_t)y * w + x;
            float want = x == 0 || y == 0 || x == w - 1 || y == h - 1 ? hin[i]
                : 0.25f * (hin[i - 1] + hin[i + 1] + hin[i - w] + hin[i + w]);
            if (hout[i] != want)
                zt_fail("stencil (%d,%d) = %g, want %g", x, y, hout[i], want);
        }

    CK(cudaFree(din)); CK(cudaFree(dc)); CK(cudaFree(da)); CK(cudaFree(dsum)); CK(cudaFree(dtot));
    CK(cudaFree(dd)); CK(cudaFree(d4)); CK(cudaFree(dh)); CK(cudaFree(dy)); CK(cudaFree(dout));
    free(hin); free(hc); free(sums); free(hd); free(h4); free(hh); free(hy); free(hout);
    return zt_finish();
}
