// barrier_leave: warps that return right after a __syncthreads.
//
// ggml's mul_mat_vec_q and block reductions end with
//     s[warp] = partial; __syncthreads(); if (warp != 0) return; ...
// Zinc lets a warp whose every lane leaves after such a barrier return at
// the barrier instead of waiting (a finished warp counts as arrived), so
// these kernels check that the warps that stay still see every leaving
// warp's stores, with 1, 2, 4 and 8 warps per block, 2D blocks (warp =
// threadIdx.y), lanes that leave only in part (the barrier must then be
// kept), a leave after the second of several barriers, a barrier right
// before the end, and a named barrier with a thread count (never shortcut).
// Results are compared against sums computed here; outputs are poisoned.
#include "zn_test.h"

#define BLOCKS 97

__device__ float warp_sum(float v)
{
    for (int off = 16; off > 0; off /= 2)
        v += __shfl_xor_sync(0xffffffffu, v, off);
    return v;
}

// 2D block (32, W): the warp is threadIdx.y, as in mul_mat_vec_q.
__global__ void rows_2d(const float *x, float *out, int n)
{
    __shared__ float s[8][32];
    int lane = threadIdx.x, w = threadIdx.y, nw = blockDim.y;
    const float *row = x + (size_t)blockIdx.x * n;
    float v = 0.0f;
    for (int i = w * 32 + lane; i < n; i += nw * 32)
        v += row[i];
    if (w != 0)
        s[w - 1][lane] = v;
    __syncthreads();
    if (w != 0)
        return;
    for (int k = 0; k < nw - 1; k++)
        v += s[k][lane];
    v = warp_sum(v);
    if (lane == 0)
        out[blockIdx.x] = v;
}

// 1D block of 32 W threads: warp sums in shared memory, warp 0 adds them.
__global__ void rows_1d(const float *x, float *out, int n)
{
    __shared__ float s[32];
    int tid = threadIdx.x, lane = tid % 32, w = tid / 32, nw = blockDim.x / 32;
    const float *row = x + (size_t)blockIdx.x * n;
    float v = 0.0f;
    for (int i = tid; i < n; i += blockDim.x)
        v += row[i];
    v = warp_sum(v);
    if (lane == 0)
        s[w] = v;
    __syncthreads();
    if (w != 0)
        return;
    v = lane < nw ? s[lane] : 0.0f;
    v = warp_sum(v);
    if (lane == 0)
        out[blockIdx.x] = v;
}

// Odd lanes leave after the barrier: no warp may skip it. Each even
// thread then reads the value of the thread one warp further on.
__global__ void half_leave(const int *in, int *out)
{
    __shared__ int s[256];
    int tid = threadIdx.x, n = blockDim.x;
    s[tid] = in[blockIdx.x * n + tid] * 3;
    __syncthreads();
    if (tid % 2)
        return;
    out[blockIdx.x * n + tid] = s[(tid + 32) % n] + 1;
}

// Three barriers; warps other than the last leave after the third.
__global__ void leave_late(const int *in, int *out)
{
    __shared__ int s[256], t[256];
    int tid = threadIdx.x, n = blockDim.x, w = tid / 32, nw = n / 32;
    s[tid] = in[blockIdx.x * n + tid];
    __syncthreads();
    t[tid] = s[(tid + 32) % n] + s[tid];
    __syncthreads();
    s[tid] = t[n - 1 - tid] * 2;
    __syncthreads();
    if (w != nw - 1)
        return;
    int v = 0;
    for (int k = tid % 32; k < n; k += 32)
        v += s[k];
    for (int off = 16; off > 0; off /= 2)
        v += __shfl_xor_sync(0xffffffffu, v, off);
    out[blockIdx.x * 32 + tid % 32] = v;
}

// The barrier is the last thing before the end: every warp leaves there.
// The block's warps each write their slice; the next launch checks it.
__global__ void barrier_at_end(int *out)
{
    int tid = threadIdx.x;
    out[blockIdx.x * blockDim.x + tid] = tid * 7 + (int)blockIdx.x;
    __syncthreads();
}

// bar.sync with a thread count (named barrier 1 for the first two warps):
// warps 0 and 1 exchange through shared memory and warps 2, 3 return at
// once; the leave shortcut is not made for counted barriers.
__global__ void counted(const int *in, int *out)
{
    __shared__ int s[64];
    int tid = threadIdx.x;
    if (tid >= 64)
        return;
    s[tid] = in[blockIdx.x * 64 + tid] + 5;
    asm volatile("bar.sync 1, 64;" ::: "memory");
    if (tid >= 32)
        return;
    out[blockIdx.x * 32 + tid] = s[tid + 32] - s[tid];
}

static void check_rows(int warps, bool two_d)
{
    const int n = 32 * 8 * 3 + 17;
    static float hx[BLOCKS * n], hout[BLOCKS];
    for (int i = 0; i < BLOCKS * n; i++)
        hx[i] = (float)((int)(zt_rand() % 64) - 32);
    float *x, *out;
    CK(cudaMalloc(&x, sizeof hx));
    CK(cudaMalloc(&out, sizeof hout));
    CK(cudaMemcpy(x, hx, sizeof hx, cudaMemcpyHostToDevice));
    POISON(out, sizeof hout);
    if (two_d)
        rows_2d<<<BLOCKS, dim3(32, warps)>>>(x, out, n);
    else
        rows_1d<<<BLOCKS, 32 * warps>>>(x, out, n);
    CK_LAUNCH();
    CK(cudaMemcpy(hout, out, sizeof hout, cudaMemcpyDeviceToHost));
    for (int b = 0; b < BLOCKS; b++) {
        float want = 0.0f;      // small integers: every order is exact
        for (int i = 0; i < n; i++)
            want += hx[b * n + i];
        if (hout[b] != want)
            zt_fail("%s %d warps, block %d: %g, want %g", two_d ? "rows_2d" : "rows_1d", warps,
                    b, hout[b], want);
    }
    CK(cudaFree(x));
    CK(cudaFree(out));
}

static void check_half_leave(int threads)
{
    static int hin[BLOCKS * 256], hout[BLOCKS * 256];
    for (int i = 0; i < BLOCKS * threads; i++)
        hin[i] = (int)(zt_rand() % 1000);
    int *in, *out;
    size_t bytes = (size_t)BLOCKS * threads * sizeof(int);
    CK(cudaMalloc(&in, bytes));
    CK(cudaMalloc(&out, bytes));
    CK(cudaMemcpy(in, hin, bytes, cudaMemcpyHostToDevice));
    POISON(out, bytes);
    half_leave<<<BLOCKS, threads>>>(in, out);
    CK_LAUNCH();
    CK(cudaMemcpy(hout, out, bytes, cudaMemcpyDeviceToHost));
    const int poison = -1;     // POISON: every byte 0xff
    for (int b = 0; b < BLOCKS; b++)
        for (int t = 0; t < threads; t++) {
            int got = hout[b * threads + t];
            int want = t % 2 ? poison : hin[b * threads + (t + 32) % threads] * 3 + 1;
            if (got != want)
                zt_fail("half_leave %d threads, block %d thread %d: %d, want %d", threads, b, t,
                        got, want);
        }
    CK(cudaFree(in));
    CK(cudaFree(out));
}

static void check_leave_late(int threads)
{
    static int hin[BLOCKS * 256], hout[BLOCKS * 32], s[256], t[256];
    for (int i = 0; i < BLOCKS * threads; i++)
        hin[i] = (int)(zt_rand() % 1000);
    int *in, *out;
    CK(cudaMalloc(&in, sizeof hin));
    CK(cudaMalloc(&out, sizeof hout));
    CK(cudaMemcpy(in, hin, sizeof hin, cudaMemcpyHostToDevice));
    POISON(out, sizeof hout);
    leave_late<<<BLOCKS, threads>>>(in, out);
    CK_LAUNCH();
    CK(cudaMemcpy(hout, out, sizeof hout, cudaMemcpyDeviceToHost));
    for (int b = 0; b < BLOCKS; b++) {
        for (int i = 0; i < threads; i++)
            s[i] = hin[b * threads + i];
        for (int i = 0; i < threads; i++)
            t[i] = s[(i + 32) % threads] + s[i];
        for (int i = 0; i < threads; i++)
            s[i] = t[threads - 1 - i] * 2;
        int want = 0;
        for (int i = 0; i < threads; i++)
            want += s[i];
        for (int lane = 0; lane < 32; lane++)
            if (hout[b * 32 + lane] != want)
                zt_fail("leave_late %d threads, block %d lane %d: %d, want %d", threads, b, lane,
                        hout[b * 32 + lane], want);
    }
    CK(cudaFree(in));
    CK(cudaFree(out));
}

static void check_barrier_at_end(void)
{
    static int hout[BLOCKS * 256];
    int *out;
    CK(cudaMalloc(&out, sizeof hout));
    POISON(out, sizeof hout);
    barrier_at_end<<<BLOCKS, 256>>>(out);
    CK_LAUNCH();
    CK(cudaMemcpy(hout, out, sizeof hout, cudaMemcpyDeviceToHost));
    for (int b = 0; b < BLOCKS; b++)
        for (int t = 0; t < 256; t++)
            if (hout[b * 256 + t] != t * 7 + b)
                zt_fail("barrier_at_end block %d thread %d: %d, want %d", b, t, hout[b * 256 + t],
                        t * 7 + b);
    CK(cudaFree(out));
}

static void check_counted(void)
{
    static int hin[BLOCKS * 64], hout[BLOCKS * 32];
    for (int i = 0; i < BLOCKS * 64; i++)
        hin[i] = (int)(zt_rand() % 1000);
    int *in, *out;
    CK(cudaMalloc(&in, sizeof hin));
    CK(cudaMalloc(&out, sizeof hout));
    CK(cudaMemcpy(in, hin, sizeof hin, cudaMemcpyHostToDevice));
    POISON(out, sizeof hout);
    counted<<<BLOCKS, 128>>>(in, out);
    CK_LAUNCH();
    CK(cudaMemcpy(hout, out, sizeof hout, cudaMemcpyDeviceToHost));
    for (int b = 0; b < BLOCKS; b++)
        for (int t = 0; t < 32; t++) {
            int want = hin[b * 64 + t + 32] - hin[b * 64 + t];
            if (hout[b * 32 + t] != want)
                zt_fail("counted block %d thread %d: %d, want %d", b, t, hout[b * 32 + t], want);
        }
    CK(cudaFree(in));
    CK(cudaFree(out));
}

int main(void)
{
    zt_begin("barrier_leave");
    static const int warps[] = {1, 2, 4, 8};
    for (int i = 0; i < 4; i++) {
        check_rows(warps[i], true);
        check_rows(warps[i], false);
        check_half_leave(32 * warps[i]);
        check_leave_late(32 * warps[i]);
    }
    check_barrier_at_end();
    check_counted();
    return zt_finish();
}
