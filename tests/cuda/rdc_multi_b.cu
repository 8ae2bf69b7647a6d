/* rdc_multi_b.cu: the second translation unit of rdc_multi (see
 * rdc_multi_a.cu): uses the other unit's __device__ function, __device__
 * variable and __constant__ table through extern declarations, and defines
 * a __device__ function and a __device__ variable the other unit uses. */
#include "zn_test.h"

#define RDC_TABLE 16

extern __device__ int rdc_scale(int x, int k);  /* rdc_multi_a.cu */
extern __constant__ int rdc_table[RDC_TABLE];   /* rdc_multi_a.cu */
extern __device__ int rdc_bias;                 /* rdc_multi_a.cu */

__device__ unsigned int rdc_calls;

__device__ int rdc_mix(int a, int b)
{
    return rdc_scale(a, rdc_table[b % RDC_TABLE]) ^ (b * 3);
}

__global__ void rdc_kernel_b(const int *in, int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        /* rdc_bias is read here directly, across units */
        out[i] = rdc_scale(in[i], rdc_table[(i + 1) % RDC_TABLE]) + rdc_table[i % RDC_TABLE] +
                 rdc_bias;
        atomicAdd(&rdc_calls, 1u);
    }
}

void rdc_run_b(const int *in, int *out, int n)
{
    rdc_kernel_b<<<(n + 127) / 128, 128>>>(in, out, n);
    CK_LAUNCH();
}
