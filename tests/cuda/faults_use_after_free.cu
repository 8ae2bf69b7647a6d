// faults_use_after_free: a kernel reads a buffer after cudaFree
// -> cudaErrorIllegalAddress (700): Zinc decommits freed device memory.
// Then a correct kernel runs after cudaDeviceReset.
#include "faults_common.h"

__global__ void sum_all(const int *in, int n, int *out)
{
    int s = 0;
    for (int i = threadIdx.x; i < n; i += blockDim.x)
        s += in[i];
    atomicAdd(out, s);
}

int main()
{
    const int n = 1 << 20;          // 4 MiB: a whole-page allocation
    int *d, *o;
    FC_CK(cudaMalloc(&d, n * sizeof(int)));
    FC_CK(cudaMalloc(&o, sizeof(int)));
    FC_CK(cudaMemset(d, 0, n * sizeof(int)));
    FC_CK(cudaMemset(o, 0, sizeof(int)));
    FC_CK(cudaFree(d));
    sum_all<<<1, 256>>>(d, n, o);
    fc_expect_fault("read after cudaFree", cudaErrorIllegalAddress);
    fc_recover("read after cudaFree");
    return fc_finish("faults_use_after_free");
}
