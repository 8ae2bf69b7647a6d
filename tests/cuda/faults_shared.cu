// faults_shared: shared-memory overruns, with the errors an H200 reports
// (measured, docs/faults.md): cudaErrorIllegalAddress (700) up to 16 MiB
// from the start of the block's shared memory, cudaErrorIllegalInstruction
// (715) from there on and for negative indices that wrap the 32-bit shared
// address (-64 KiB). Zinc's shared window is followed by a 4 GiB
// PROT_NONE reservation that every 32-bit shared address falls in
// (src/exec/zn_exec_block.c), so each of these faults instead of writing
// into the host's memory:
//  1. 64 MiB past the end: 715.
//  2. 256 bytes past: 700 (Zinc's window ends 256 bytes before the
//     reservation: smaller overruns need ZINC_CHECK=memcheck, see
//     memcheck/shared).
//  3. 4 MiB past: 700.
//  4. s[-16384]: 715.
// After each, cudaDeviceReset recovers and a correct kernel runs.
#include <string.h>
#include "faults_common.h"

__global__ void shared_overrun(int *out, int idx)
{
    __shared__ int s[64];
    s[threadIdx.x] = threadIdx.x;
    __syncthreads();
    if (threadIdx.x == 0)
        s[idx] = 5;
    __syncthreads();
    out[threadIdx.x] = s[threadIdx.x];
}

static void overrun(const char *what, int idx, cudaError_t want)
{
    int *o;
    FC_CK(cudaMalloc(&o, 64 * sizeof(int)));
    shared_overrun<<<1, 64>>>(o, idx);
    cudaError_t l = cudaGetLastError(), s = cudaDeviceSynchronize();
    printf("%s: launch %s, synchronize %s\n", what, cudaGetErrorName(l), cudaGetErrorName(s));
    FC_EXPECT(l == cudaSuccess, "%s: launch: %s", what, cudaGetErrorName(l));
    FC_EXPECT(s == want, "%s: synchronize: %s, want %s (as on an H200)", what,
              cudaGetErrorName(s), cudaGetErrorName(want));
    fc_recover(what);
}

int main(int argc, char **argv)
{
    overrun("shared 64 MiB past the end", 64 + (16 << 20), cudaErrorIllegalInstruction);
    overrun("shared 256 bytes past the end", 64 + 64, cudaErrorIllegalAddress);
    overrun("shared 4 MiB past the end", 64 + (1 << 20), cudaErrorIllegalAddress);
    overrun("shared index -16384", -16384, cudaErrorIllegalInstruction);
    return fc_finish("faults_shared");
}
