// lane_compare: branches on a value affine in threadIdx.x against one the
// same in every thread (src/compile/zn_lower_lanecmp.c decides the warps
// whose lanes all go one way on scalars): unsigned, signed, 64-bit, ==, !=,
// descending values, the uniform side on the left, thresholds that split
// warps and ones that do not, values that wrap inside a warp, and block
// shapes where a warp's lanes are not 32 consecutive threadIdx.x (48 and
// 16 x 4 threads: the value counts threadIdx.y too, so a warp's second
// half is not where 32 consecutive x would put it), and a compare of
// threadIdx.y alone (one value per warp where blockDim.x is a multiple of
// 32; the later shapes run the generic code, which cannot know that),
// and such compares joined by || and && (or/and.pred trees, as 2D
// kernels' bounds tests compile). A shared-memory tree reduction
// (`if (t < s)`) too. The
// same per-thread function compiled for the host gives the reference.
#include "zn_test.h"

enum { ROUNDS = 40 };

struct params {
    unsigned u0, ustep;      // unsigned thresholds u0 + j * ustep
    int s0, sstep;           // signed thresholds
    long long l0, lstep;     // 64-bit thresholds
    unsigned wrap_base;      // tx + wrap_base wraps for some warps
};

// A body long enough that nvcc branches around it rather than predicating.
__host__ __device__ static unsigned mix(unsigned acc, unsigned j, unsigned k)
{
    acc ^= j * 0x9e3779b9u + k;
    acc = acc * 2654435761u + (acc >> 13);
    acc ^= acc << 7;
    return acc + (acc >> 3) * k;
}

__host__ __device__ static unsigned lanes(unsigned tx, unsigned ty, params p)
{
    unsigned acc = tx;
    for (unsigned j = 0; j < ROUNDS; j++) {
        unsigned us = p.u0 + j * p.ustep;
        int ss = p.s0 + (int)j * p.sstep;
        long long ls = p.l0 + (long long)j * p.lstep;
        if (tx < us)
            acc = mix(acc, j, 1);
        if (40 - 3 * (int)tx >= ss)
            acc = mix(acc, j, 2);
        if (tx + p.wrap_base > us)
            acc = mix(acc, j, 3);
        if ((long long)tx * 5 - 70 <= ls)
            acc = mix(acc, j, 4);
        if (us < 2 * tx)
            acc = mix(acc, j, 5);
        if ((int)(tx * 7u) - 100 > ss)
            acc = mix(acc, j, 6);
        // thresholds nvcc cannot step with j (an eq on an induction
        // register would leave the compare undecided)
        unsigned ue = p.u0 + (j * j * 7u) % 41u;
        if (tx == ue)
            acc = mix(acc, j, 7);
        if ((int)tx - 64 != ss * (int)(j % 3))
            acc = mix(acc, j, 8);
        // the same in a warp when blockDim.x is a multiple of 32
        if ((int)ty * 3 - 2 < (int)(j % 7))
            acc = mix(acc, j, 9);
        // predicate trees (or/and.pred of compares, as a 2D kernel's
        // bounds and border tests compile): decided on scalars where
        // every compare that decides them is
        if (tx >= us || ty == j % 3u)
            acc = mix(acc, j, 10);
        if (tx == 0 || ty == 1 || tx == us || (int)tx - 64 >= ss)
            acc = mix(acc, j, 11);
        if (tx > us && (int)tx < ss + 200 && ty != 2)
            acc = mix(acc, j, 12);
        // a lane-varying predicate no scalar test decides, beside one
        if (tx < us || ((acc >> (j % 5)) & 1u))
            acc = mix(acc, j, 13);
        bool far = tx > us + 40u, near = (int)tx < ss;
        if (far != near)    // xor: never decided, lowered as before
            acc = mix(acc, j, 14);
    }
    return acc;
}

__global__ void compare_kernel(unsigned *out, params p)
{
    unsigned t = (threadIdx.y * blockDim.x + threadIdx.x) + blockIdx.x * blockDim.x * blockDim.y;
    out[t] = lanes(threadIdx.x + blockIdx.x * 7 + 37 * threadIdx.y, threadIdx.y, p);
}

// the tree of bench/reduce: warps whose lanes all fail t < s pass rounds
__global__ void tree_kernel(const unsigned *in, unsigned *out)
{
    __shared__ unsigned sh[256];
    unsigned t = threadIdx.x;
    sh[t] = in[blockIdx.x * blockDim.x + t];
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s)
            sh[t] = sh[t] * 3u + sh[t + s];
        __syncthreads();
    }
    if (t == 0)
        out[blockIdx.x] = sh[0];
}

static void run_compare(const char *what, dim3 grid, dim3 block, params p)
{
    const unsigned n = grid.x * block.x * block.y;
    unsigned *d, *h = (unsigned *)malloc(n * sizeof(unsigned));
    CK(cudaMalloc(&d, n * sizeof(unsigned)));
    POISON(d, n * sizeof(unsigned));
    compare_kernel<<<grid, block>>>(d, p);
    CK_LAUNCH();
    CK(cudaMemcpy(h, d, n * sizeof(unsigned), cudaMemcpyDeviceToHost));
    for (unsigned b = 0; b < grid.x; b++)
        for (unsigned y = 0; y < block.y; y++)
            for (unsigned x = 0; x < block.x; x++) {
                unsigned t = (y * block.x + x) + b * block.x * block.y;
                unsigned want = lanes(x + b * 7 + 37 * y, y, p);
                if (h[t] != want)
                    zt_fail("%s: block %u thread (%u,%u) = %08x, want %08x", what, b, x, y,
                            h[t], want);
            }
    CK(cudaFree(d));
    free(h);
}

static void run_tree(unsigned threads)
{
    const unsigned blocks = 64, n = blocks * threads;
    unsigned *in = (unsigned *)malloc(n * sizeof(unsigned)), *out = (unsigned *)malloc(blocks * 4);
    for (unsigned i = 0; i < n; i++)
        in[i] = zt_rand();
    unsigned *din, *dout;
    CK(cudaMalloc(&din, n * sizeof(unsigned)));
    CK(cudaMalloc(&dout, blocks * sizeof(unsigned)));
    CK(cudaMemcpy(din, in, n * sizeof(unsigned), cudaMemcpyHostToDevice));
    POISON(dout, blocks * sizeof(unsigned));
    tree_kernel<<<blocks, threads>>>(din, dout);
    CK_LAUNCH();
    CK(cudaMemcpy(out, dout, blocks * sizeof(unsigned), cudaMemcpyDeviceToHost));
    unsigned sh[256];
    for (unsigned b = 0; b < blocks; b++) {
        memcpy(sh, in + b * threads, threads * sizeof(unsigned));
        for (unsigned s = threads / 2; s > 0; s >>= 1)
            for (unsigned t = 0; t < s; t++)
                sh[t] = sh[t] * 3u + sh[t + s];
        if (out[b] != sh[0])
            zt_fail("tree %u threads: block %u = %08x, want %08x", threads, b, out[b], sh[0]);
    }
    CK(cudaFree(din)); CK(cudaFree(dout));
    free(in); free(out);
}

int main()
{
    zt_begin("lane_compare");
    // thresholds that cross warps' ranges, step up and down
    params a = {0u, 9u, -200, 11, -300, 17, 0u};
    params b = {300u, (unsigned)-7, 60, -3, 400, -23, 0xffffffe0u};   // descending; wraps at 32
    params c = {5u, 1u, -5, 1, -70, 1, 0xfffffff8u};   // small steps: most warps split
    params d = {0x7ffffff0u, 1u, 2147483600, 1, 9000000000000000000ll, -1000000000000000ll,
                0x80000000u};
    const params ps[] = {a, b, c, d};
    for (unsigned i = 0; i < sizeof ps / sizeof *ps; i++) {
        run_compare("256 threads", dim3(3), dim3(256), ps[i]);
        run_compare("48 threads", dim3(5), dim3(48), ps[i]);
        run_compare("16 x 4 threads", dim3(4), dim3(16, 4), ps[i]);
        run_compare("32 x 2 threads", dim3(4), dim3(32, 2), ps[i]);
    }
    run_tree(256);
    run_tree(64);
    run_tree(96);
    return zt_finish();
}
