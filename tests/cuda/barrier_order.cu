// barrier_order: after a block's last __syncthreads, thread 0 reads an
// element that another warp then overwrites (a benign race found in llm.c's
// fp32 fused classifier). On a GPU the warps leave a barrier together and
// thread 0's single load comes first; Zinc must leave a barrier in warp
// order (warp 0 first) to give the same answer, as it does at block start.
//
// init_then_scores: after a barrier every thread initialises its slot of
// a shared array, then each warp computes scores and lane 0 writes them
// into slots of other warps, with no barrier between (ggml's
// flash-attention vector kernel: KQ[tid] = -inf, then KQ[key] = score).
// On a GPU the warps run side by side, so every initialisation lands
// before any score; Zinc's warps run one after another, so each warp's
// first shared store after a barrier lets the other warps reach theirs.
#include "zn_test.h"

#define N 1000
#define BLOCKS 64

__global__ void read_then_overwrite(float *x, float *out, int n)
{
    __shared__ float s[32];
    float *row = x + blockIdx.x * n;
    if (threadIdx.x < 32)
        s[threadIdx.x] = 0.0f;
    __syncthreads();
    if (threadIdx.x == 0)
        out[blockIdx.x] = row[n - 1] + s[0];
    for (int i = threadIdx.x; i < n; i += blockDim.x)
        row[i] = -1.0f;
}

#define KEYS 128    /* = threads: 4 warps */

__global__ void init_then_scores(const int *in, int *out)
{
    __shared__ int kq[KEYS];
    int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    const int *blk = in + blockIdx.x * KEYS * 32;
    __syncthreads();
    kq[tid] = -1;
    for (int key = warp; key < KEYS; key += KEYS / 32) {
        int s = blk[key * 32 + lane] * (lane + 1);
        for (int off = 16; off > 0; off /= 2)
            s += __shfl_xor_sync(0xffffffffu, s, off);
        if (lane == 0)
            kq[key] = s;
    }
    __syncthreads();
    out[blockIdx.x * KEYS + tid] = kq[tid];
}

static void check_init_then_scores(void)
{
    static int hin[BLOCKS * KEYS * 32], hout[BLOCKS * KEYS];
    for (int i = 0; i < BLOCKS * KEYS * 32; i++)
        hin[i] = (int)(zt_rand() % 1000);
    int *in, *out;
    CK(cudaMalloc(&in, sizeof hin));
    CK(cudaMalloc(&out, sizeof hout));
    CK(cudaMemcpy(in, hin, sizeof hin, cudaMemcpyHostToDevice));
    POISON(out, sizeof hout);
    init_then_scores<<<BLOCKS, KEYS>>>(in, out);
    CK_LAUNCH();
    CK(cudaMemcpy(hout, out, sizeof hout, cudaMemcpyDeviceToHost));
    for (int b = 0; b < BLOCKS; b++)
        for (int key = 0; key < KEYS; key++) {
            int want = 0;
            for (int lane = 0; lane < 32; lane++)
                want += hin[(b * KEYS + key) * 32 + lane] * (lane + 1);
            if (hout[b * KEYS + key] != want)
                zt_fail("block %d key %d: %d, want %d%s", b, key, hout[b * KEYS + key], want,
                        hout[b * KEYS + key] == -1 ? " (a later warp's initialisation)" : "");
        }
    CK(cudaFree(in));
    CK(cudaFree(out));
}

int main(void)
{
    zt_begin("barrier_order");
    check_init_then_scores();
    static float hx[BLOCKS * N], hout[BLOCKS];
    float *x, *out;
    CK(cudaMalloc(&x, sizeof hx));
    CK(cudaMalloc(&out, sizeof hout));
    for (int i = 0; i < BLOCKS * N; i++)
        hx[i] = (float)(i % N);
    CK(cudaMemcpy(x, hx, sizeof hx, cudaMemcpyHostToDevice));
    POISON(out, sizeof hout);
    read_then_overwrite<<<BLOCKS, 1024>>>(x, out, N);
    CK_LAUNCH();
    CK(cudaMemcpy(hout, out, sizeof hout, cudaMemcpyDeviceToHost));
    for (int b = 0; b < BLOCKS; b++)
        if (hout[b] != (float)(N - 1))
            zt_fail("block %d read %g, want %g (the value before the overwrite)", b,
                    hout[b], (float)(N - 1));
    CK(cudaMemcpy(hx, x, sizeof hx, cudaMemcpyDeviceToHost));
    for (int i = 0; i < BLOCKS * N; i++)
        if (hx[i] != -1.0f) {
            zt_fail("x[%d] = %g, want -1", i, hx[i]);
            break;
        }
    CK(cudaFree(x));
    CK(cudaFree(out));
    return zt_finish();
}
