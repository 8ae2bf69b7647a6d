// libcu_barrier: libcu++'s block-scope cuda::barrier (arrive_and_wait,
// arrive + wait with a token, arrive_and_drop), cuda::memcpy_async into
// shared memory completed through a cuda::barrier, and cuda::pipeline (a
// block-wide two-stage pipeline and a per-thread one). On sm_80+ these are
// mbarrier.* and cp.async PTX (libcu_barrier_sm80 builds this file with
// -arch=sm_80, the sm90 flavour with try_wait); on the default arch
// (sm_75) libcu++'s software barrier (atomics, nanosleep back-off).
// Every result is checked against a CPU reference; outputs are poisoned.
#include "zn_test.h"
#include <cooperative_groups.h>
#include <cuda/barrier>
#include <cuda/pipeline>

namespace cg = cooperative_groups;
using block_barrier = cuda::barrier<cuda::thread_scope_block>;

// A __shared__ barrier has a constructor; it is initialised with init().
#pragma nv_diag_suppress static_var_with_dynamic_init

#define NT 256

// Phase 1: s[t] = in[t]; everyone reads the neighbour's slot after
// arrive_and_wait. Phase 2 (arrive, then wait on the token): s[t] = 2 *
// neighbour. Then threads >= 64 arrive_and_drop and leave; the other 64
// do two more phases on their own (the expected count is now 64).
__global__ void barrier_phases(const int *in, int *out)
{
    __shared__ block_barrier bar;
    __shared__ int s[NT];
    const int t = threadIdx.x, base = blockIdx.x * NT;
    if (t == 0)
        init(&bar, blockDim.x);
    __syncthreads();
    s[t] = in[base + t];
    bar.arrive_and_wait();
    int v = s[(t + 1) % NT];
    auto tok = bar.arrive();
    bar.wait(std::move(tok));
    s[t] = 2 * v;
    if (t >= 64) {
        bar.arrive_and_drop();
        return;
    }
    bar.arrive_and_wait();
    int w = s[t + 64] + s[t + 128] + s[t + 192];
    bar.arrive_and_wait();
    s[t] = w;
    bar.arrive_and_wait();
    out[blockIdx.x * 64 + t] = s[63 - t] - s[t];
}

// The block copies its 256 ints with one cooperative memcpy_async, and each
// thread copies another 4 ints alone; both complete on the barrier.
__global__ void memcpy_barrier(const int *in, const int *in2, int *out)
{
    __shared__ block_barrier bar;
    __shared__ int s[NT];
    __shared__ int4 s2[NT];
    auto blk = cg::this_thread_block();
    const int t = threadIdx.x;
    if (t == 0)
        init(&bar, blockDim.x);
    __syncthreads();
    cuda::memcpy_async(blk, s, in + blockIdx.x * NT, sizeof(int) * NT, bar);
    cuda::memcpy_async(&s2[t], (const int4 *)in2 + blockIdx.x * NT + t,
                       cuda::aligned_size_t<16>(sizeof(int4)), bar);
    bar.arrive_and_wait();
    int4 q = s2[NT - 1 - t];
    out[blockIdx.x * NT + t] = s[NT - 1 - t] + q.x - q.y + q.z * 3 - q.w;
}

// A two-stage block-wide pipeline over `tiles` tiles of NT ints: while tile
// k is summed, tile k+1 is in flight. out[t] = sum_k in[k][t] * (k + 1).
__global__ void pipeline_block(const int *in, int *out, int tiles)
{
    constexpr int stages = 2;
    __shared__ int buf[stages][NT];
    __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, stages> state;
    auto blk = cg::this_thread_block();
    auto pipe = cuda::make_pipeline(blk, &state);
    const int t = threadIdx.x;
    int acc = 0, fetched = 0;
    for (int k = 0; k < tiles; k++) {
        for (; fetched < tiles && fetched < k + stages; fetched++) {
            pipe.producer_acquire();
            cuda::memcpy_async(blk, buf[fetched % stages], in + fetched * NT,
                               sizeof(int) * NT, pipe);
            pipe.producer_commit();
        }
        pipe.consumer_wait();
        acc += buf[k % stages][(t * 7) % NT] * (k + 1);
        pipe.consumer_release();
    }
    out[t] = acc;
}

// A per-thread pipeline (cp.async groups on sm_80): each thread fetches 3
// of its own ints in three stages and consumes them oldest first.
__global__ void pipeline_thread(const int *in, int *out)
{
    __shared__ int s[3][NT];
    auto pipe = cuda::make_pipeline();
    const int t = threadIdx.x;
    for (int k = 0; k < 3; k++) {
        pipe.producer_acquire();
        cuda::memcpy_async(&s[k][t], in + k * NT + t, sizeof(int), pipe);
        pipe.producer_commit();
    }
    int acc = 0;
    for (int k = 0; k < 3; k++) {
        pipe.consumer_wait(); // the oldest stage: k
        acc = acc * 10 + s[k][t];
        pipe.consumer_release();
    }
    out[t] = acc;
}

static int *dev_copy(const int *h, size_t n)
{
    int *d;
    CK(cudaMalloc(&d, n * sizeof(int)));
    CK(cudaMemcpy(d, h, n * sizeof(int), cudaMemcpyHostToDevice));
    return d;
}

static void check(const char *what, const int *got, const int *want, int n)
{
    for (int i = 0; i < n; i++)
        if (got[i] != want[i])
            zt_fail("%s[%d] = %d, want %d", what, i, got[i], want[i]);
}

int main()
{
    zt_begin("libcu_barrier");
    const int blocks = 5, tiles = 7;
    const int n = blocks * NT;
    int *in = (int *)malloc(4 * n * sizeof(int)), *want = (int *)malloc(n * sizeof(int));
    int *got = (int *)malloc(n * sizeof(int));
    for (int i = 0; i < 4 * n; i++)
        in[i] = (int)(zt_rand() % 2001) - 1000;
    int *din = dev_copy(in, 4 * n), *dout;
    CK(cudaMalloc(&dout, n * sizeof(int)));

    // barrier_phases
    POISON(dout, n * sizeof(int));
    barrier_phases<<<blocks, NT>>>(din, dout);
    CK_LAUNCH();
    CK(cudaMemcpy(got, dout, blocks * 64 * sizeof(int), cudaMemcpyDeviceToHost));
    for (int b = 0; b < blocks; b++) {
        int s[NT], w[64];
        for (int t = 0; t < NT; t++)
            s[t] = 2 * in[b * NT + (t + 1) % NT];
        for (int t = 0; t < 64; t++)
            w[t] = s[t + 64] + s[t + 128] + s[t + 192];
        for (int t = 0; t < 64; t++)
            want[b * 64 + t] = w[63 - t] - w[t];
    }
    check("barrier_phases", got, want, blocks * 64);

    // memcpy_barrier: in2 is the whole input as int4 (4 ints a thread)
    POISON(dout, n * sizeof(int));
    memcpy_barrier<<<blocks, NT>>>(din, din, dout);
    CK_LAUNCH();
    CK(cudaMemcpy(got, dout, n * sizeof(int), cudaMemcpyDeviceToHost));
    for (int b = 0; b < blocks; b++)
        for (int t = 0; t < NT; t++) {
            const int *q = in + 4 * (b * NT + NT - 1 - t);
            want[b * NT + t] = in[b * NT + NT - 1 - t] + q[0] - q[1] + q[2] * 3 - q[3];
        }
    check("memcpy_barrier", got, want, n);

    // pipeline_block: one block over `tiles` tiles
    POISON(dout, n * sizeof(int));
    pipeline_block<<<1, NT>>>(din, dout, tiles);
    CK_LAUNCH();
    CK(cudaMemcpy(got, dout, NT * sizeof(int), cudaMemcpyDeviceToHost));
    for (int t = 0; t < NT; t++) {
        int acc = 0;
        for (int k = 0; k < tiles; k++)
            acc += in[k * NT + (t * 7) % NT] * (k + 1);
        want[t] = acc;
    }
    check("pipeline_block", got, want, NT);

    // pipeline_thread
    POISON(dout, n * sizeof(int));
    pipeline_thread<<<1, NT>>>(din, dout);
    CK_LAUNCH();
    CK(cudaMemcpy(got, dout, NT * sizeof(int), cudaMemcpyDeviceToHost));
    for (int t = 0; t < NT; t++)
        want[t] = (in[t] * 10 + in[NT + t]) * 10 + in[2 * NT + t];
    check("pipeline_thread", got, want, NT);

    CK(cudaFree(din));
    CK(cudaFree(dout));
    free(in);
    free(want);
    free(got);
    return zt_finish();
}
