// More kernels for the compiler's tests (function pointers, directed
// rounding, half precision, bit operations, warp ops under divergence,
// shared and 64-bit atomics). kernels2.ptx is generated with:
//   nvcc -arch=sm_80 -ptx -o kernels2.ptx kernels2.cu
#include <cuda_fp16.h>

typedef int (*binop)(int, int);
__device__ int op_add(int a, int b) { return a + b; }
__device__ int op_mul(int a, int b) { return a * b; }
__device__ int op_sub(int a, int b) { return a - b; }
__device__ binop ops[3] = {op_add, op_mul, op_sub};

extern "C" __global__ void fptrs(const int *in, int *out)
{
    int i = threadIdx.x;
    binop f = ops[in[i] % 3];
    out[i] = f(in[i], i + 1);
}

extern "C" __global__ void rounding(const float *x, const float *y, const double *d,
                                    float *of, double *od)
{
    int i = threadIdx.x;
    float a = x[i], b = y[i];
    of[i * 10 + 0] = __fadd_rz(a, b);
    of[i * 10 + 1] = __fadd_rd(a, b);
    of[i * 10 + 2] = __fadd_ru(a, b);
    of[i * 10 + 3] = __fmul_rz(a, b);
    of[i * 10 + 4] = __fmul_ru(a, b);
    of[i * 10 + 5] = __fdiv_rd(a, b);
    of[i * 10 + 6] = __fsqrt_ru(fabsf(a));
    of[i * 10 + 7] = __double2float_rz(d[i]);
    of[i * 10 + 8] = __int2float_rd(__float_as_int(a));
    of[i * 10 + 9] = __fmaf_rz(a, b, 1.0f);
    od[i * 2 + 0] = __dadd_ru(d[i], (double)a);
    od[i * 2 + 1] = __dmul_rz(d[i], (double)b);
}

extern "C" __global__ void halves(const float *x, float *o)
{
    int i = threadIdx.x;
    __half a = __float2half(x[i]), b = __float2half(x[(i + 7) & 31]);
    __half2 p = __halves2half2(a, b), q = __halves2half2(b, a);
    __half2 s = __hfma2(p, q, p);
    o[i * 4 + 0] = __half2float(__hadd(a, b));
    o[i * 4 + 1] = __half2float(__hmul(a, b));
    o[i * 4 + 2] = __low2float(s);
    o[i * 4 + 3] = __high2float(s);
}

extern "C" __global__ void bitops(const unsigned *in, unsigned *out)
{
    int i = threadIdx.x;
    unsigned v = in[i], r;
    asm("bfe.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(v), "r"(i), "r"(i % 13));
    out[i * 8 + 0] = r;
    int sr;
    asm("bfe.s32 %0, %1, %2, %3;" : "=r"(sr) : "r"(v), "r"(i), "r"(i % 13));
    out[i * 8 + 1] = (unsigned)sr;
    asm("bfi.b32 %0, %1, %2, %3, %4;" : "=r"(r) : "r"(v), "r"(0xffff0000u), "r"(i), "r"(i % 9));
    out[i * 8 + 2] = r;
    asm("prmt.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(v), "r"(0x80ff7f01u), "r"(0x8d5fu + i));
    out[i * 8 + 3] = r;
    out[i * 8 + 4] = __funnelshift_l(v, 0x12345678u, i);
    out[i * 8 + 5] = __sad(v & 0xffff, i * 1000, 7) + __mul24(v, i);
    out[i * 8 + 6] = (unsigned)__dp4a((int)v, (int)0x01fe03fcu, i);
    unsigned sh;
    asm("shl.b32 %0, %1, %2;" : "=r"(sh) : "r"(v), "r"(i + 20));
    out[i * 8 + 7] = sh ^ (unsigned)((int)v >> (i & 7));
}

extern "C" __global__ void warpdiv(const int *in, int *out)
{
    int i = threadIdx.x;
    int v = in[i];
    int r = -1, m = 0;
    if (v & 1) {
        unsigned mask = __activemask();
        r = __shfl_sync(mask, v, 3);       // lane 3 may be inactive: keep only for active
        m = __match_any_sync(mask, v % 4);
        r = __reduce_add_sync(mask, v) + (r & 0);
    }
    out[i * 2 + 0] = r;
    out[i * 2 + 1] = m;
}

extern "C" __global__ void sharedatom(const int *in, unsigned long long *out64, int *out)
{
    __shared__ int cnt[8];
    int i = threadIdx.x;
    if (i < 8)
        cnt[i] = 0;
    __syncthreads();
    atomicAdd(&cnt[in[i] & 7], 1);
    atomicAdd(out64, (unsigned long long)in[i] << 33);
    atomicMin(&out[8], in[i]);
    __syncthreads();
    if (i < 8)
        out[i] = cnt[i];
}

extern "C" __global__ void dyninit(int *out, const int *in)
{
    extern __shared__ int dyn[];
    __shared__ int st[4];
    int i = threadIdx.x;
    if (i < 4)
        st[i] = i * 100;
    dyn[i] = in[i] + st[i & 3];
    __syncwarp();
    out[i] = dyn[31 - i];
}
