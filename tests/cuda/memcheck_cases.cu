// memcheck_cases: ZINC_CHECK=memcheck, one case per run (argv[1]).
//   past_end  a store one element past a 1000-int cudaMalloc buffer
//   far       a store 1 TiB past an allocation
//   shared    a store one element past a __shared__ array
//   local     a store one element past a thread's local array
//   freed     a load from a buffer after cudaFree
//   clean     correct kernels (global, shared, local, atomics): no report,
//             right results
//   leak      a buffer never freed (ZINC_CHECK=memcheck,leaks)
// A bad case expects cudaErrorIllegalAddress (sticky), then recovers with
// cudaDeviceReset and runs a correct kernel (faults_common.h). CTest
// (tests/cuda/memcheck.cmake) matches the report text: kernel, thread,
// block, source line, distance to the nearest allocation.
#include "faults_common.h"
#include <string.h>

__global__ void write_past_end(int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i <= n) // the bug: <= instead of <
        out[i] = i;
}

__global__ void store_far(int *base, long long offset)
{
    if (threadIdx.x == 0)
        base[offset] = 1;
}

__global__ void local_past_end(int *out, int idx)
{
    int a[8];
    for (int i = 0; i < 8; i++)
        a[i] = i * (int)threadIdx.x;
    a[idx] = 5; // idx = 8: one past the array
    out[threadIdx.x] = a[(threadIdx.x + idx) & 7];
}

__global__ void read_input(const int *in, int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = in[i] + 1;
}

// clean: a block sum through shared memory, a local array, an atomic
__global__ void block_sums(const int *in, int *sums, int *total, int n, int pick)
{
    __shared__ int s[256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int loc[4];
    for (int k = 0; k < 4; k++)
        loc[k] = k + 1;
    s[threadIdx.x] = i < n ? in[i] * loc[pick & 3] : 0;
    __syncthreads();
    for (int w = blockDim.x / 2; w > 0; w /= 2) {
        if ((int)threadIdx.x < w)
            s[threadIdx.x] += s[threadIdx.x + w];
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        sums[blockIdx.x] = s[0];
        atomicAdd(total, s[0]);
    }
}

// Last in the file on purpose: Zinc lays out the .shared variables of a
// module one after another (docs/architecture.md), so only the last one
// ends at the block's shared window; an overrun of an earlier one lands in
// the next variable, which memcheck cannot tell from a good access.
__global__ void shared_past_end(int *out, int k)
{
    __shared__ int s[64];
    s[threadIdx.x + k] = threadIdx.x; // k = 1: thread 63 writes s[64]
    __syncthreads();
    out[threadIdx.x] = s[threadIdx.x];
}

static int run_clean(void)
{
    const int n = 3000, threads = 256, blocks = (n + threads - 1) / threads, pick = 2;
    int *h = (int *)malloc(n * sizeof(int)), hs[16], ht;
    for (int i = 0; i < n; i++)
        h[i] = (i * 7) % 23 - 11;
    int *din, *dsum, *dtot;
    FC_CK(cudaMalloc(&din, n * sizeof(int)));
    FC_CK(cudaMalloc(&dsum, blocks * sizeof(int)));
    FC_CK(cudaMalloc(&dtot, sizeof(int)));
    FC_CK(cudaMemcpy(din, h, n * sizeof(int), cudaMemcpyHostToDevice));
    FC_CK(cudaMemset(dsum, 0xa5, blocks * sizeof(int))); // poison
    FC_CK(cudaMemset(dtot, 0, sizeof(int)));
    block_sums<<<blocks, threads>>>(din, dsum, dtot, n, pick);
    FC_CK(cudaGetLastError());
    FC_CK(cudaDeviceSynchronize());
    FC_CK(cudaMemcpy(hs, dsum, blocks * sizeof(int), cudaMemcpyDeviceToHost));
    FC_CK(cudaMemcpy(&ht, dtot, sizeof(int), cudaMemcpyDeviceToHost));
    int want_total = 0;
    for (int b = 0; b < blocks; b++) {
        int want = 0;
        for (int i = b * threads; i < (b + 1) * threads && i < n; i++)
            want += h[i] * (pick + 1);
        FC_EXPECT(hs[b] == want, "block %d: sum %d, want %d", b, hs[b], want);
        want_total += want;
    }
    FC_EXPECT(ht == want_total, "total %d, want %d", ht, want_total);
    printf("clean: %d block sums and the total are right\n", blocks);
    FC_CK(cudaFree(din));
    FC_CK(cudaFree(dsum));
    FC_CK(cudaFree(dtot));
    free(h);
    fc_recover("clean"); // the recovery's correct kernel under memcheck too
    return fc_finish("memcheck_clean");
}

static int run(const char *c);

int main(int argc, char **argv)
{
    int r = run(argc > 1 ? argv[1] : "");
    fflush(stdout); // before the exit-time summaries on stderr
    return r;
}

static int run(const char *c)
{
    int *d, *o;
    if (!strcmp(c, "clean"))
        return run_clean();
    if (!strcmp(c, "leak")) {
        FC_CK(cudaMalloc(&d, 4096)); // never freed: reported at exit
        FC_CK(cudaMalloc(&o, 64));
        FC_CK(cudaFree(o));
        return fc_finish("memcheck_leak");
    }
    FC_CK(cudaMalloc(&d, 1000 * sizeof(int)));
    FC_CK(cudaMalloc(&o, 1024 * sizeof(int)));
    if (!strcmp(c, "past_end")) {
        write_past_end<<<4, 256>>>(d, 1000); // thread 1000 = block 3, thread 232
    } else if (!strcmp(c, "far")) {
        store_far<<<1, 32>>>(d, (1ll << 40) / 4);
    } else if (!strcmp(c, "shared")) {
        shared_past_end<<<1, 64>>>(o, 1);
    } else if (!strcmp(c, "local")) {
        local_past_end<<<1, 32>>>(o, 8);
    } else if (!strcmp(c, "freed")) {
        int *gone;
        FC_CK(cudaMalloc(&gone, 256 * sizeof(int)));
        FC_CK(cudaFree(gone));
        read_input<<<1, 256>>>(gone, o, 256);
    } else {
        printf("FAIL unknown case '%s'\n", c);
        return 1;
    }
    fc_expect_fault(c, cudaErrorIllegalAddress);
    fc_recover(c);
    return fc_finish(c);
}
