// faults_shared: shared-memory overruns.
//  1. far past the block's shared memory (64 MiB): a GPU reports
//     cudaErrorIllegalAddress (700); so does Zinc (the window ends at a
//     guard page, and 64 MiB on is unmapped here).
//  2. one element past the block's shared memory: 700 on a GPU and on Zinc,
//     whose shared window ends exactly at a guard page
//     (src/exec/zn_exec_block.c). See docs/faults.md.
// After each, cudaDeviceReset recovers and a correct kernel runs.
#include <string.h>
#include "faults_common.h"

__global__ void shared_overrun(int *out, int extra)
{
    __shared__ int s[64];
    s[threadIdx.x] = threadIdx.x;
    __syncthreads();
    if (threadIdx.x == 0)
        s[64 + extra] = 5;          // extra = 0: one past the end
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
        shared_overrun<<<1, 64>>>(o, 0);
        l = cudaGetLastError();
        s = cudaDeviceSynchronize();
        printf("shared one past the end: launch %s, synchronize %s\n", cudaGetErrorName(l),
               cudaGetErrorName(s));
        FC_EXPECT(s == cudaErrorIllegalAddress, "synchronize: %s, want cudaErrorIllegalAddress"
                  " (as on a GPU)", cudaGetErrorName(s));
        fc_recover("shared one past the end");
    }
    return fc_finish("faults_shared");
}
