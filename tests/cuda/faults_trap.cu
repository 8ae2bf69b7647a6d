// faults_trap: a kernel executes `trap` -> cudaErrorLaunchFailure (719),
// sticky until cudaDeviceReset; then a correct kernel runs.
#include "faults_common.h"

__global__ void trap_some(int *out, int who)
{
    out[threadIdx.x] = 1;
    if (threadIdx.x == who)
        asm volatile("trap;");
}

int main()
{
    int *d;
    FC_CK(cudaMalloc(&d, 256 * sizeof(int)));
    trap_some<<<4, 64>>>(d, 17);
    fc_expect_fault("trap", cudaErrorLaunchFailure);
    fc_recover("trap");
    return fc_finish("faults_trap");
}
