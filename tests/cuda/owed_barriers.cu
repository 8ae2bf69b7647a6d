// owed_barriers: warps that pass __syncthreads without waiting.
//
// Zinc lets a warp count a whole-block barrier as owed and go on until it
// next touches memory (src/compile/zn_lower_lazybar.c); there it first
// waits at every barrier it owes. These kernels fail when a warp pays too
// few barriers or too late: a shared-memory tree whose idle warps read the
// total at the end; rounds in which one warp writes and another reads,
// the others idle for many barriers in a row; a predicated store (inline
// PTX) whose lanes are all off; warps that leave, so that one or two are
// left (the last one pays nothing, two must still wait); a named barrier with a thread count, a
// __syncthreads_count and shared atomics after owed barriers; block sizes
// with a partial last warp and 2D blocks. Results are compared with values
// computed here; outputs are poisoned.
#include "zn_test.h"

#define BLOCKS 37

// tree sum; then every thread reads the total (warps idle since the
// first levels must wait for warp 0's last level)
__global__ void tree_all_read(const int *in, int *out)
{
    __shared__ int sh[256];
    unsigned t = threadIdx.x, n = blockDim.x;
    sh[t] = in[blockIdx.x * n + t];
    __syncthreads();
    for (unsigned s = 128; s > 0; s >>= 1) {
        if (t < s && t + s < n)
            sh[t] += sh[t + s];
        __syncthreads();
    }
    out[blockIdx.x * n + t] = sh[0] + (int)t;
}

// round r: warp r % nw writes sh, warp (r * 3 + 1) % nw reads it one
// barrier later; every other warp owes both barriers of the round
__global__ void rounds(int *out, int nrounds, int seed)
{
    __shared__ int sh[32];
    unsigned lane = threadIdx.x % 32, w = (threadIdx.x + threadIdx.y * blockDim.x) / 32;
    unsigned nw = (blockDim.x * blockDim.y + 31) / 32;
    for (int r = 0; r < nrounds; r++) {
        if (w == (unsigned)r % nw)
            sh[lane] = r * 1000 + (int)lane + seed;
        __syncthreads();
        if (w == ((unsigned)r * 3 + 1) % nw)
            out[(blockIdx.x * nrounds + r) * 32 + lane] = sh[lane];
        __syncthreads();
    }
}

// a predicated shared store whose lanes are all off must not pay, and one
// with lanes on must: every warp but the last stores nothing in round r
__global__ void guarded_store(int *out, int nrounds)
{
    __shared__ int sh[32];
    unsigned lane = threadIdx.x % 32, w = threadIdx.x / 32, nw = blockDim.x / 32;
    for (int r = 0; r < nrounds; r++) {
        unsigned on = w == (unsigned)r % nw;
        int v = r * 7 + (int)lane;
        unsigned addr = (unsigned)__cvta_generic_to_shared(&sh[lane]);
        asm volatile("{ .reg .pred p; setp.ne.u32 p, %0, 0; @p st.shared.u32 [%1], %2; }"
                     :: "r"(on), "r"(addr), "r"(v) : "memory");
        __syncthreads();
        if (w == ((unsigned)r + 1) % nw)
            out[(blockIdx.x * nrounds + r) * 32 + lane] = sh[lane];
        __syncthreads();
    }
}

// owed barriers before a named barrier of warps 0-1, a __syncthreads_count
// and shared atomics
__global__ void other_barriers(const int *in, int *out)
{
    __shared__ int sh[64];
    __shared__ int hist[8];
    unsigned t = threadIdx.x, w = t / 32;
    if (t < 8)
        hist[t] = 0;
    if (t < 64)
        sh[t] = in[blockIdx.x * 64 + t];
    __syncthreads();
    __syncthreads();    // owed twice by every warp
    if (w < 2) {
        int v = sh[63 - t];
        asm volatile("bar.sync 1, 64;" ::: "memory");
        sh[t] = v * 2;
        asm volatile("bar.sync 1, 64;" ::: "memory");
    }
    __syncthreads();
    int c = __syncthreads_count(t < 64 && (sh[t] & 2));
    __syncthreads();
    if (w >= 2)
        atomicAdd(&hist[sh[t % 64] & 7], 1);
    __syncthreads();
    if (t < 64)
        out[blockIdx.x * 80 + t] = sh[t];
    else if (t < 72)
        out[blockIdx.x * 80 + t] = hist[t - 64];
    else if (t == 72)
        out[blockIdx.x * 80 + t] = c;
}

// warps from `keep` on return; the kept ones swap slots for 6 rounds, so
// two kept warps still need every barrier after the others have left
__global__ void kept_warps(const int *in, int *out, int keep)
{
    __shared__ int sh[256];
    unsigned t = threadIdx.x, lane = t % 32, w = t / 32;
    sh[t] = in[blockIdx.x * 256 + t];
    __syncthreads();
    if (w >= (unsigned)keep)
        return;
    for (int r = 0; r < 6; r++) {
        int v = sh[((w + 1) % keep) * 32 + lane];
        __syncthreads();
        sh[t] = v + r;
        __syncthreads();
    }
    out[blockIdx.x * 256 + t] = sh[t];
}

static void check_tree(unsigned threads)
{
    size_t n = (size_t)BLOCKS * threads;
    int *hin = (int *)malloc(n * 4), *hout = (int *)malloc(n * 4), *din, *dout;
    for (size_t i = 0; i < n; i++)
        hin[i] = (int)(zt_rand() % 1000) - 500;
    CK(cudaMalloc(&din, n * 4));
    CK(cudaMalloc(&dout, n * 4));
    CK(cudaMemcpy(din, hin, n * 4, cudaMemcpyHostToDevice));
    POISON(dout, n * 4);
    tree_all_read<<<BLOCKS, threads>>>(din, dout);
    CK_LAUNCH();
    CK(cudaMemcpy(hout, dout, n * 4, cudaMemcpyDeviceToHost));
    for (unsigned b = 0; b < BLOCKS; b++) {
        int sum = 0;
        for (unsigned t = 0; t < threads; t++)
            sum += hin[b * threads + t];
        for (unsigned t = 0; t < threads; t++)
            if (hout[b * threads + t] != sum + (int)t) {
                zt_fail("tree_all_read %u threads, block %u thread %u: %d, want %d", threads, b,
                        t, hout[b * threads + t], sum + (int)t);
                break;
            }
    }
    CK(cudaFree(din));
    CK(cudaFree(dout));
    free(hin);
    free(hout);
}

static void check_rounds(dim3 block, int nrounds)
{
    size_t n = (size_t)BLOCKS * nrounds * 32;
    int *hout = (int *)malloc(n * 4), *dout, seed = (int)(zt_rand() % 100);
    CK(cudaMalloc(&dout, n * 4));
    POISON(dout, n * 4);
    rounds<<<BLOCKS, block>>>(dout, nrounds, seed);
    CK_LAUNCH();
    CK(cudaMemcpy(hout, dout, n * 4, cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < n; i++) {
        int r = (int)(i / 32 % (size_t)nrounds), lane = (int)(i % 32);
        if (hout[i] != r * 1000 + lane + seed) {
            zt_fail("rounds block (%u,%u), round %d lane %d: %d, want %d", block.x, block.y, r,
                    lane, hout[i], r * 1000 + lane + seed);
            break;
        }
    }
    CK(cudaFree(dout));
    free(hout);
}

static void check_guarded(unsigned threads, int nrounds)
{
    size_t n = (size_t)BLOCKS * nrounds * 32;
    int *hout = (int *)malloc(n * 4), *dout;
    CK(cudaMalloc(&dout, n * 4));
    POISON(dout, n * 4);
    guarded_store<<<BLOCKS, threads>>>(dout, nrounds);
    CK_LAUNCH();
    CK(cudaMemcpy(hout, dout, n * 4, cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < n; i++) {
        int r = (int)(i / 32 % (size_t)nrounds), lane = (int)(i % 32);
        if (hout[i] != r * 7 + lane) {
            zt_fail("guarded_store %u threads, round %d lane %d: %d, want %d", threads, r, lane,
                    hout[i], r * 7 + lane);
            break;
        }
    }
    CK(cudaFree(dout));
    free(hout);
}

static void check_kept(int keep)
{
    size_t n = (size_t)BLOCKS * 256;
    int *hin = (int *)malloc(n * 4), *hout = (int *)malloc(n * 4), *din, *dout;
    for (size_t i = 0; i < n; i++)
        hin[i] = (int)(zt_rand() % 1000);
    CK(cudaMalloc(&din, n * 4));
    CK(cudaMalloc(&dout, n * 4));
    CK(cudaMemcpy(din, hin, n * 4, cudaMemcpyHostToDevice));
    POISON(dout, n * 4);
    kept_warps<<<BLOCKS, 256>>>(din, dout, keep);
    CK_LAUNCH();
    CK(cudaMemcpy(hout, dout, n * 4, cudaMemcpyDeviceToHost));
    for (int b = 0; b < BLOCKS && !zt_failures; b++) {
        int sh[256], v[256];
        memcpy(sh, hin + b * 256, sizeof sh);
        for (int r = 0; r < 6; r++) {
            for (int t = 0; t < keep * 32; t++)
                v[t] = sh[((t / 32 + 1) % keep) * 32 + t % 32];
            for (int t = 0; t < keep * 32; t++)
                sh[t] = v[t] + r;
        }
        for (int t = 0; t < 256; t++) {
            int want = t < keep * 32 ? sh[t] : -1;
            if (hout[b * 256 + t] != want) {
                zt_fail("kept_warps keep %d, block %d thread %d: %d, want %d", keep, b, t,
                        hout[b * 256 + t], want);
                break;
            }
        }
    }
    CK(cudaFree(din));
    CK(cudaFree(dout));
    free(hin);
    free(hout);
}

static void check_other_barriers(void)
{
    int *hin = (int *)malloc(BLOCKS * 64 * 4), *hout = (int *)malloc(BLOCKS * 80 * 4), *din, *dout;
    for (int i = 0; i < BLOCKS * 64; i++)
        hin[i] = (int)(zt_rand() % 1000);
    CK(cudaMalloc(&din, BLOCKS * 64 * 4));
    CK(cudaMalloc(&dout, BLOCKS * 80 * 4));
    CK(cudaMemcpy(din, hin, BLOCKS * 64 * 4, cudaMemcpyHostToDevice));
    POISON(dout, BLOCKS * 80 * 4);
    other_barriers<<<BLOCKS, 192>>>(din, dout);
    CK_LAUNCH();
    CK(cudaMemcpy(hout, dout, BLOCKS * 80 * 4, cudaMemcpyDeviceToHost));
    for (int b = 0; b < BLOCKS && !zt_failures; b++) {
        int sh[64], hist[8] = {0}, c = 0;
        for (int t = 0; t < 64; t++)
            sh[t] = hin[b * 64 + 63 - t] * 2;
        for (int t = 0; t < 64; t++)
            c += (sh[t] & 2) != 0;
        for (int t = 64; t < 192; t++)
            hist[sh[t % 64] & 7]++;
        for (int t = 0; t < 73; t++) {
            int want = t < 64 ? sh[t] : t < 72 ? hist[t - 64] : c;
            if (hout[b * 80 + t] != want) {
                zt_fail("other_barriers block %d slot %d: %d, want %d", b, t, hout[b * 80 + t],
                        want);
                break;
            }
        }
    }
    CK(cudaFree(din));
    CK(cudaFree(dout));
    free(hin);
    free(hout);
}

int main(void)
{
    zt_begin("owed_barriers");
    check_tree(256);
    check_tree(200);    // a partial last warp
    check_tree(64);
    check_rounds(dim3(256, 1), 19);
    check_rounds(dim3(96, 1), 11);
    check_rounds(dim3(32, 5), 13);  // 2D: the warp is threadIdx.y
    check_rounds(dim3(32, 1), 5);   // one warp: it reads its own store
    check_guarded(256, 17);
    check_guarded(64, 5);
    check_kept(1);
    check_kept(2);
    check_kept(3);
    check_other_barriers();
    return zt_finish();
}
