// faults_assert: a failed device assert() -> cudaErrorAssert (710) and the
// message "file:line: function: block [..], thread [..] Assertion `..` failed."
// on stderr (CTest matches it); then a correct kernel runs after reset.
#include <assert.h>
#include "faults_common.h"

__global__ void check_positive(const int *v, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        assert(v[i] > 0 && "zinc-fault-assert");
}

int main()
{
    const int n = 256;
    int h[256], *d;
    for (int i = 0; i < n; i++)
        h[i] = i == 77 ? -5 : i + 1;
    FC_CK(cudaMalloc(&d, n * sizeof(int)));
    FC_CK(cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice));
    check_positive<<<2, 128>>>(d, n);
    fc_expect_fault("assert", cudaErrorAssert);
    fflush(stdout);
    fc_recover("assert");
    return fc_finish("faults_assert");
}
