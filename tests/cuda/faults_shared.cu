// faults_shared: shared-memory overruns.
//  1. far past the block's shared memory (64 MiB): a GPU reports
//     cudaErrorIllegalAddress (700); so does Zinc (the window ends at a
//     guard page, and 64 MiB on is unmapped here).
//  2. 256 bytes past the block's shared memory: 700 on a GPU and on Zinc,
//     whose shared window ends 256 bytes before a guard page (the slack
//     keeps whole-warp vector accesses off the guard: src/exec/
//     zn_exec_block.c; smaller overruns need ZINC_CHECK=memcheck, see
//     memcheck/shared). See docs/faults.md.
// After each, cudaDeviceReset recovers and a correct kernel runs.
#include <string.h>
#include "faults_common.h"

__global__ void shared_overrun(int *out, int extra)
{
    __shared__ int s[64];
    s[threadIdx.x] = threadIdx.x;
    __syncthreads();
    if (threadIdx.x == 0)
        s[64 + extra] = 5;          // extra = 64: 256 bytes past the end
    __syncthreads();
    out[threadIdx.x] = s[threadIdx.x];
}

int main(int argc, char **argv)
{
    int *o;
    FC_CK(cudaMalloc(&o, 64 * sizeof(int)));
    shared_overrun<<<1, 64>>>(o, 16 << 20);
    cudaError_t l = cudaGetLastError(), s = cudaDeviceSynchronize();
    printf("shared 64 MiB past the end: launch %s, synchronize %s\n", cudaGetErrorName(l),
           cudaGetErrorName(s));
    FC_EXPECT(l == cudaSuccess, "launch: %s", cudaGetErrorName(l));
    FC_EXPECT(s == cudaErrorIllegalAddress, "synchronize: %s, want cudaErrorIllegalAddress",
              cudaGetErrorName(s));
    fc_recover("shared 64 MiB past the end");

    {
        FC_CK(cudaMalloc(&o, 64 * sizeof(int)));
        shared_overrun<<<1, 64>>>(o, 64);  // s[128]: 256 bytes past the end
        l = cudaGetLastError();
        s = cudaDeviceSynchronize();
        printf("shared 256 bytes past the end: launch %s, synchronize %s\n", cudaGetErrorName(l),
               cudaGetErrorName(s));
        FC_EXPECT(s == cudaErrorIllegalAddress, "synchronize: %s, want cudaErrorIllegalAddress"
                  " (as on a GPU)", cudaGetErrorName(s));
        fc_recover("shared 256 bytes past the end");
    }
    return fc_finish("faults_shared");
}
