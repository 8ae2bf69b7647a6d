// faults_oob: out-of-bounds global accesses.
//  1. a store far from any allocation (1 TiB past a cudaMalloc buffer)
//     -> cudaErrorIllegalAddress (700), sticky; recovered by cudaDeviceReset.
//  2. a store one element past the end of a 1000-int allocation. A GPU does
//     not catch this either (it lands in the allocation's granule); CUDA's
//     compute-sanitizer memcheck does. What Zinc guarantees today: the
//     launch ends (cudaSuccess, or 700 if the byte is unmapped), the process
//     lives, and cudaDeviceReset recovers. The required behaviour for a
//     future ZINC_CHECK=memcheck mode is 700; see docs/faults.md.
#include "faults_common.h"

__global__ void store_at(int *base, long long offset, int v)
{
    if (threadIdx.x == 0 && blockIdx.x == 0)
        base[offset] = v;
}

__global__ void load_at(const int *base, long long offset, int *out)
{
    if (threadIdx.x == 0 && blockIdx.x == 0)
        *out = base[offset];
}

int main()
{
    int *d, *o;
    FC_CK(cudaMalloc(&d, 1000 * sizeof(int)));
    FC_CK(cudaMalloc(&o, sizeof(int)));

    store_at<<<1, 32>>>(d, (1ll << 40) / 4, 42);
    fc_expect_fault("store 1 TiB past an allocation", cudaErrorIllegalAddress);
    fc_recover("store 1 TiB past an allocation");

    FC_CK(cudaMalloc(&d, 1000 * sizeof(int)));
    FC_CK(cudaMalloc(&o, sizeof(int)));
    load_at<<<1, 32>>>(d, -(1ll << 40) / 4, o);
    fc_expect_fault("load 1 TiB before an allocation", cudaErrorIllegalAddress);
    fc_recover("load 1 TiB before an allocation");

    FC_CK(cudaMalloc(&d, 1000 * sizeof(int)));
    store_at<<<1, 32>>>(d, 1000, 7);
    cudaError_t l = cudaGetLastError(), s = cudaDeviceSynchronize();
    printf("store one past the end: launch %s, synchronize %s (%s)\n", cudaGetErrorName(l),
           cudaGetErrorName(s), s == cudaSuccess ? "not detected: no memory checker"
                                                : "detected");
    FC_EXPECT(l == cudaSuccess, "the launch itself must succeed: %s", cudaGetErrorName(l));
    FC_EXPECT(s == cudaSuccess || s == cudaErrorIllegalAddress, "synchronize: %s",
              cudaGetErrorName(s));
    fc_recover("store one past the end");
    return fc_finish("faults_oob");
}
