// dead_regs: registers ended after their last live block.
//
// Zinc stores undef into a register from the first block after the last
// one it is live into (src/compile/zn_lower_deadregs.c), so that its value
// stops flowing through every later block. These kernels fail when a
// register is ended while some lane, running or waiting at a later block,
// still needs it: an unrolled copy loop with a divergent exit per step
// (the shape of libcu++'s cooperative memcpy_async) whose lanes leave at
// different steps holding a sum they read after the loop; lanes parked
// after a loop while the others go on looping, holding values from before
// it; a value from before a divergent loop read only in its last block by
// the lanes still in it; and addresses built early and used late. Results
// are compared with values computed here; outputs are poisoned.
#include "zn_test.h"

#define BLOCKS 5
#define THREADS 128
#define MAXC 70

// thread t copies c(t) ints with a stride, 16 steps per trip of a loop
// (unrolled: one divergent exit per step), and adds them up; the sum is read after the
// loop by lanes that left it at every step
__global__ void unrolled_copy(const int *src, int *dst, int *sums)
{
    unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    int c = (int)((threadIdx.x * 7 + blockIdx.x * 3) % MAXC);
    const int *s = src + t;
    int *d = dst + t;
    int sum = (int)t;
    for (int base = 0; base < c; base += 16) {
#pragma unroll
        for (int j = 0; j < 16; j++) {
            int i = base + j;
            if (i >= c)
                break;
            int v = s[(size_t)i * BLOCKS * THREADS];
            d[(size_t)i * BLOCKS * THREADS] = v * (i + 1);
            sum += v ^ i;
        }
    }
    sums[t] = sum;
}

// even lanes wait after the loop while odd lanes run it; x and y come
// from before it and are read after it by both
__global__ void parked_after_loop(const int *in, int *out, int rounds)
{
    unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    int x = in[t] * 3 + 1, y = in[(t + 5) % (BLOCKS * THREADS)] - 7;
    int acc = 0;
    if (threadIdx.x & 1) {
        for (int r = 0; r < rounds + (int)(threadIdx.x % 5); r++) {
            int a = in[(t + (unsigned)r) % (BLOCKS * THREADS)];
            int b = a * (r + 2);
            if (b & 4)
                acc += b - r;
            else
                acc ^= a;
        }
    }
    out[t] = x * 5 + y - acc;
}

// v is defined before a divergent loop and read only in the loop's last
// block, by the lanes still in it when it ends
__global__ void read_at_loop_end(const int *in, int *out)
{
    unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    int v = in[t] + 11;
    int n = (int)(threadIdx.x % 9), r = 0;
    for (int i = 0; i < n; i++) {
        r += in[(t + (unsigned)i * 3) % (BLOCKS * THREADS)];
        if (r & 1)
            r += 3;
        if (i == n - 1)
            r += v;
    }
    out[t] = r;
}

// an address built in the first block, used after divergent branches
__global__ void late_address(const int *in, int *out)
{
    unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    int *p = out + (size_t)t * 2;
    int v = in[t];
    int w = 0;
    if (v % 3 == 0)
        w = v * 2;
    else if (v % 3 == 1)
        w = v - 9;
    for (int i = 0; i < (int)(threadIdx.x % 4); i++)
        w += in[(t + (unsigned)i) % (BLOCKS * THREADS)] & 0xff;
    p[0] = w;
    p[1] = v;
}

static const int NT = BLOCKS * THREADS;

static void check(const char *what, const int *got, const int *want, int n)
{
    for (int i = 0; i < n && !zt_failures; i++)
        if (got[i] != want[i])
            zt_fail("%s[%d]: %d, want %d", what, i, got[i], want[i]);
}

static void test_unrolled_copy(void)
{
    size_t n = (size_t)NT * MAXC;
    int *hsrc = (int *)malloc(n * 4), *hdst = (int *)malloc(n * 4), *want = (int *)malloc(n * 4);
    int *hsum = (int *)malloc(NT * 4), *wsum = (int *)malloc(NT * 4);
    for (size_t i = 0; i < n; i++)
        hsrc[i] = (int)(zt_rand() % 100000);
    memset(want, 0xFF, n * 4);
    for (int b = 0; b < BLOCKS; b++)
        for (int x = 0; x < THREADS; x++) {
            int t = b * THREADS + x, c = (x * 7 + b * 3) % MAXC, sum = t;
            for (int i = 0; i < c; i++) {
                int v = hsrc[(size_t)i * NT + t];
                want[(size_t)i * NT + t] = v * (i + 1);
                sum += v ^ i;
            }
            wsum[t] = sum;
        }
    int *dsrc, *ddst, *dsum;
    CK(cudaMalloc(&dsrc, n * 4));
    CK(cudaMalloc(&ddst, n * 4));
    CK(cudaMalloc(&dsum, NT * 4));
    CK(cudaMemcpy(dsrc, hsrc, n * 4, cudaMemcpyHostToDevice));
    POISON(ddst, n * 4);
    POISON(dsum, NT * 4);
    unrolled_copy<<<BLOCKS, THREADS>>>(dsrc, ddst, dsum);
    CK_LAUNCH();
    CK(cudaMemcpy(hdst, ddst, n * 4, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(hsum, dsum, NT * 4, cudaMemcpyDeviceToHost));
    check("unrolled_copy dst", hdst, want, (int)n);
    check("unrolled_copy sum", hsum, wsum, NT);
    CK(cudaFree(dsrc));
    CK(cudaFree(ddst));
    CK(cudaFree(dsum));
    free(hsrc); free(hdst); free(want); free(hsum); free(wsum);
}

static void test_small_kernels(const int *hin, const int *din)
{
    int *hout = (int *)malloc(NT * 2 * 4), *want = (int *)malloc(NT * 2 * 4), *dout;
    CK(cudaMalloc(&dout, NT * 2 * 4));

    const int rounds = 6;
    for (int t = 0; t < NT; t++) {
        int x = hin[t] * 3 + 1, y = hin[(t + 5) % NT] - 7, acc = 0, tx = t % THREADS;
        if (tx & 1)
            for (int r = 0; r < rounds + tx % 5; r++) {
                int a = hin[(t + r) % NT], b = a * (r + 2);
                if (b & 4)
                    acc += b - r;
                else
                    acc ^= a;
            }
        want[t] = x * 5 + y - acc;
    }
    POISON(dout, NT * 4);
    parked_after_loop<<<BLOCKS, THREADS>>>(din, dout, rounds);
    CK_LAUNCH();
    CK(cudaMemcpy(hout, dout, NT * 4, cudaMemcpyDeviceToHost));
    check("parked_after_loop", hout, want, NT);

    for (int t = 0; t < NT; t++) {
        int v = hin[t] + 11, n = (t % THREADS) % 9, r = 0;
        for (int i = 0; i < n; i++) {
            r += hin[(t + i * 3) % NT];
            if (r & 1)
                r += 3;
            if (i == n - 1)
                r += v;
        }
        want[t] = r;
    }
    POISON(dout, NT * 4);
    read_at_loop_end<<<BLOCKS, THREADS>>>(din, dout);
    CK_LAUNCH();
    CK(cudaMemcpy(hout, dout, NT * 4, cudaMemcpyDeviceToHost));
    check("read_at_loop_end", hout, want, NT);

    for (int t = 0; t < NT; t++) {
        int v = hin[t], w = 0;
        if (v % 3 == 0)
            w = v * 2;
        else if (v % 3 == 1)
            w = v - 9;
        for (int i = 0; i < (t % THREADS) % 4; i++)
            w += hin[(t + i) % NT] & 0xff;
        want[2 * t] = w;
        want[2 * t + 1] = v;
    }
    POISON(dout, NT * 2 * 4);
    late_address<<<BLOCKS, THREADS>>>(din, dout);
    CK_LAUNCH();
    CK(cudaMemcpy(hout, dout, NT * 2 * 4, cudaMemcpyDeviceToHost));
    check("late_address", hout, want, NT * 2);

    CK(cudaFree(dout));
    free(hout);
    free(want);
}

int main(void)
{
    zt_begin("dead_regs");
    int *hin = (int *)malloc(NT * 4), *din;
    for (int i = 0; i < NT; i++)
        hin[i] = (int)(zt_rand() % 20000) - 10000;
    CK(cudaMalloc(&din, NT * 4));
    CK(cudaMemcpy(din, hin, NT * 4, cudaMemcpyHostToDevice));
    test_unrolled_copy();
    test_small_kernels(hin, din);
    CK(cudaFree(din));
    free(hin);
    return zt_finish();
}
