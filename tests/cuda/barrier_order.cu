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
//
// loop_block_sums, unrolled_block_sums: a block sum per row, each warp's
// part stored in acc[warp] before the row's only barrier and read back by
// every warp after it, with loops over the row before the store and after
// the reads (llm.c's fp32 softmax backward, which has no second barrier
// before the next row's store). On a GPU every warp reads acc right after
// the barrier, long before any warp's next store; Zinc must not let warp
// 0 store the next row's sum before the others have read this one's.
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

/* parts_then_return, parts_then_branch: warps 1-3 store their parts and
 * return (or jump to the barrier) right after their first shared store;
 * warp 0 sums the parts after the barrier. Zinc skips the stagger's yield
 * there (the warp ends or waits anyway): the parts must still arrive. */
__global__ void parts_then_return(const int *in, int *out)
{
    __shared__ int part[4][32];
    int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    int v = in[blockIdx.x * KEYS + threadIdx.x] * (warp + 1);
    if (warp > 0) {
        part[warp][lane] = v;
        return;
    }
    __syncthreads();
    out[blockIdx.x * 32 + lane] = v + part[1][lane] + part[2][lane] + part[3][lane];
}

__global__ void parts_then_branch(const int *in, int *out)
{
    __shared__ int part[4][32];
    int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    int v = in[blockIdx.x * KEYS + threadIdx.x] * (warp + 1);
    if (warp > 0) {
        part[warp][lane] = v;
    } else {
        part[0][lane] = 3 * v;
        out[blockIdx.x * 32 + lane] = -7;
    }
    __syncthreads();
    if (warp == 0)
        out[blockIdx.x * 32 + lane] = part[0][lane] + part[1][lane] + part[2][lane] + part[3][lane];
}

#define ROWS 4          /* per block, as llm.c's T_per_block */
#define COLS 1024
#define SUM_THREADS 256     /* 8 warps */

/* the block's sum of row[c] * w[c], every warp's copy of it in
 * out[warp], and then row[c] - sum in place: llm.c's shape (work over
 * the row before the store into acc, and after the reads from it) */
__device__ void row_step(float *row, const float *w, float *acc, float *out)
{
    int warp = threadIdx.x / 32, lane = threadIdx.x % 32, nwarps = blockDim.x / 32;
    float v = 0.0f;
    for (int c = threadIdx.x; c < COLS; c += blockDim.x)
        v += row[c] * w[c];
    for (int off = 16; off > 0; off /= 2)
        v += __shfl_xor_sync(0xffffffffu, v, off);
    if (lane == 0)
        acc[warp] = v;
    __syncthreads();
    float t = lane < nwarps ? acc[lane] : 0.0f;
    for (int off = 16; off > 0; off /= 2)
        t += __shfl_xor_sync(0xffffffffu, t, off);
    if (lane == 0)
        out[warp] = t;
    for (int c = threadIdx.x; c < COLS; c += blockDim.x)
        row[c] -= t;
}

/* the row loop kept (the store at the top of its body) */
__global__ void loop_block_sums(float *x, const float *w, float *out)
{
    __shared__ float acc[32];
    int nwarps = blockDim.x / 32;
#pragma unroll 1
    for (int r = 0; r < ROWS; r++)
        row_step(x + (blockIdx.x * ROWS + r) * COLS, w, acc, out + (blockIdx.x * ROWS + r) * nwarps);
}

/* the row loop unrolled, as nvcc does llm.c's (the reads, the column
 * loops, then the next row's store, in program order) */
__global__ void unrolled_block_sums(float *x, const float *w, float *out)
{
    __shared__ float acc[32];
    int nwarps = blockDim.x / 32;
#pragma unroll
    for (int r = 0; r < ROWS; r++)
        row_step(x + (blockIdx.x * ROWS + r) * COLS, w, acc, out + (blockIdx.x * ROWS + r) * nwarps);
}

static void check_block_sums(const char *name, void (*kernel)(float *, const float *, float *))
{
    enum { NW = SUM_THREADS / 32, NX = BLOCKS * ROWS * COLS };
    static float hx[NX], hw[COLS], hout[BLOCKS * ROWS * NW], hx2[NX];
    for (int i = 0; i < NX; i++)
        hx[i] = (float)(zt_rand() % 16);    /* integer sums: exact in any order */
    for (int c = 0; c < COLS; c++)
        hw[c] = (float)(zt_rand() % 4);
    float *x, *w, *out;
    CK(cudaMalloc(&x, sizeof hx));
    CK(cudaMalloc(&w, sizeof hw));
    CK(cudaMalloc(&out, sizeof hout));
    CK(cudaMemcpy(x, hx, sizeof hx, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(w, hw, sizeof hw, cudaMemcpyHostToDevice));
    POISON(out, sizeof hout);
    kernel<<<BLOCKS, SUM_THREADS>>>(x, w, out);
    CK_LAUNCH();
    CK(cudaMemcpy(hout, out, sizeof hout, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(hx2, x, sizeof hx2, cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int r = 0; r < BLOCKS * ROWS; r++) {
        float want = 0.0f;
        for (int c = 0; c < COLS; c++)
            want += hx[r * COLS + c] * hw[c];
        for (int k = 0; k < NW; k++)
            if (hout[r * NW + k] != want && bad++ < 5)
                zt_fail("%s: row %d warp %d: %g, want %g", name, r, k, hout[r * NW + k], want);
        for (int c = 0; c < COLS; c++)
            if (hx2[r * COLS + c] != hx[r * COLS + c] - want && bad++ < 5)
                zt_fail("%s: row %d x[%d] = %g, want %g", name, r, c, hx2[r * COLS + c],
                        hx[r * COLS + c] - want);
    }
    if (bad)
        zt_fail("%s: %d wrong (a warp read acc after another warp's next store)", name, bad);
    CK(cudaFree(x));
    CK(cudaFree(w));
    CK(cudaFree(out));
}

/* n random ints in h and in a new device buffer *in; *out a poisoned
 * device buffer of out_bytes */
static void random_in(int *h, int n, int **in, int **out, size_t out_bytes)
{
    for (int i = 0; i < n; i++)
        h[i] = (int)(zt_rand() % 1000);
    CK(cudaMalloc(in, n * sizeof *h));
    CK(cudaMalloc(out, out_bytes));
    CK(cudaMemcpy(*in, h, n * sizeof *h, cudaMemcpyHostToDevice));
    POISON(*out, out_bytes);
}

static void check_init_then_scores(void)
{
    static int hin[BLOCKS * KEYS * 32], hout[BLOCKS * KEYS];
    int *in, *out;
    random_in(hin, BLOCKS * KEYS * 32, &in, &out, sizeof hout);
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

static void check_parts(const char *name, void (*kernel)(const int *, int *), int first)
{
    static int hin[BLOCKS * KEYS], hout[BLOCKS * 32];
    int *in, *out;
    random_in(hin, BLOCKS * KEYS, &in, &out, sizeof hout);
    kernel<<<BLOCKS, KEYS>>>(in, out);
    CK_LAUNCH();
    CK(cudaMemcpy(hout, out, sizeof hout, cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int b = 0; b < BLOCKS; b++)
        for (int lane = 0; lane < 32; lane++) {
            const int *x = hin + b * KEYS + lane;
            int want = first * x[0] + 2 * x[32] + 3 * x[64] + 4 * x[96];
            if (hout[b * 32 + lane] != want && bad++ < 5)
                zt_fail("%s: block %d lane %d: %d, want %d", name, b, lane, hout[b * 32 + lane],
                        want);
        }
    CK(cudaFree(in));
    CK(cudaFree(out));
}

int main(void)
{
    zt_begin("barrier_order");
    check_parts("parts_then_return", parts_then_return, 1);
    check_parts("parts_then_branch", parts_then_branch, 3);
    check_init_then_scores();
    check_block_sums("loop_block_sums", loop_block_sums);
    check_block_sums("unrolled_block_sums", unrolled_block_sums);
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
