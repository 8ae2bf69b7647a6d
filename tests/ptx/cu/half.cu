// half and bfloat16 arithmetic from cuda_fp16.h / cuda_bf16.h.
#include <cuda_fp16.h>
#include <cuda_bf16.h>

__global__ void half_ops(__half *out, const __half *a, const __half *b, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    __half p = a[i], q = b[i];
    __half r = __hadd(p, q);
    r = __hmul(r, q);
    r = __hfma(p, q, r);
    r = __hsub(r, __hdiv(p, q));
    if (__hlt(p, q)) r = __hneg(r);
    out[i] = __float2half(__half2float(r) * 2.0f);
}

__global__ void half2_ops(__half2 *out, const __half2 *a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    __half2 p = a[i];
    out[i] = __hfma2(p, p, __hadd2(p, __floats2half2_rn(1.f, 2.f)));
}

__global__ void bf16_ops(__nv_bfloat16 *out, const __nv_bfloat16 *a, const float *f, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    __nv_bfloat16 p = a[i];
    __nv_bfloat16 q = __float2bfloat16(f[i]);
    out[i] = __hadd(__hmul(p, q), __float2bfloat16(__bfloat162float(p) + 1.0f));
}
