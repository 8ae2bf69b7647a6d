// Small kernels for the compiler's tests. The committed kernels.ptx is
// generated from this file with:
//   nvcc -arch=sm_75 -ptx -o kernels.ptx kernels.cu
// Each kernel's C reference lives in test_compile.c.
#include <cstdio>
#include <cassert>
#include <cuda_fp16.h>

extern "C" __global__ void vecadd(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}

extern "C" __global__ void diverge(int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int r;
    if (i % 3 == 0)
        r = i * 2;
    else if (i % 3 == 1)
        r = -i;
    else
        r = i * i;
    out[i] = r;
}

extern "C" __global__ void loops(const int *in, int *out)
{
    int i = threadIdx.x;
    int s = 0;
    int trips = in[i];
    for (int j = 0; j < trips; j++) {
        if (j % 5 == 3)
            continue;
        if (s > 500)
            break;
        s += j * (i + 1);
    }
    out[i] = s;
}

__device__ __noinline__ int fib(int n)
{
    return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

extern "C" __global__ void fibk(const int *in, int *out)
{
    int i = threadIdx.x;
    out[i] = fib(in[i]);
}

extern "C" __global__ void localarr(const int *in, int *out)
{
    int i = threadIdx.x;
    int arr[16];
    for (int k = 0; k < 16; k++)
        arr[k] = k * k + i;
    arr[in[i] & 15] += 1000;
    out[i] = arr[(i * 7) & 15] + arr[in[i] & 15];
}

extern "C" __global__ void shuffles(const int *in, int *out)
{
    int i = threadIdx.x;
    int v = in[i];
    int s = v;
    for (int o = 16; o > 0; o /= 2)
        s += __shfl_down_sync(0xffffffff, s, o);
    int x = v;
    for (int o = 1; o < 32; o *= 2)
        x ^= __shfl_xor_sync(0xffffffff, x, o);
    int idx = __shfl_sync(0xffffffff, v, (i * 5) & 31);
    int up = __shfl_up_sync(0xffffffff, v, 3);
    int w8 = __shfl_down_sync(0xffffffff, v, 2, 8);
    out[i * 5 + 0] = s;
    out[i * 5 + 1] = x;
    out[i * 5 + 2] = idx;
    out[i * 5 + 3] = up;
    out[i * 5 + 4] = w8;
}

extern "C" __global__ void votes(const int *in, unsigned *out)
{
    int i = threadIdx.x;
    int v = in[i];
    unsigned b = 0, a = 0, l = 0, am = 0;
    if (i % 3 != 0) {
        unsigned m = __activemask();
        am = m;
        b = __ballot_sync(m, v > 5);
        a = __any_sync(m, v > 8);
        l = __all_sync(m, v >= 0);
    }
    out[i * 4 + 0] = b;
    out[i * 4 + 1] = a;
    out[i * 4 + 2] = l;
    out[i * 4 + 3] = am;
}

extern "C" __global__ void atomics(const int *in, int *counter, int *hist,
                                   unsigned *mx, float *fsum, unsigned *inc,
                                   int *cas_out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int v = in[i];
    atomicAdd(counter, 1);
    atomicAdd(&hist[v & 15], 1);
    atomicMax(mx, (unsigned)v);
    atomicAdd(fsum, 0.5f);
    atomicInc(inc, 9);
    // every thread swaps in its own id; the old values form a permutation
    cas_out[i] = atomicExch(&hist[16], i);
}

extern "C" __global__ void fmath(const float *x, const double *y, float *of, double *od)
{
    int i = threadIdx.x;
    float a = x[i];
    double d = y[i];
    of[i * 6 + 0] = sqrtf(fabsf(a));
    of[i * 6 + 1] = a / (a + 3.0f);
    of[i * 6 + 2] = fmaf(a, 1.5f, -2.0f);
    of[i * 6 + 3] = fminf(a, 0.25f) + fmaxf(a, -0.5f);
    of[i * 6 + 4] = floorf(a) + ceilf(a) + truncf(a);
    of[i * 6 + 5] = __expf(a * 0.1f);
    od[i * 4 + 0] = sqrt(fabs(d));
    od[i * 4 + 1] = d / (d + 7.0);
    od[i * 4 + 2] = fma(d, d, 1.0);
    od[i * 4 + 3] = (double)a * d;
}

extern "C" __global__ void convs(const float *x, int *oi, unsigned *ou, float *of)
{
    int i = threadIdx.x;
    float a = x[i];
    oi[i * 4 + 0] = __float2int_rn(a);
    oi[i * 4 + 1] = __float2int_rz(a);
    oi[i * 4 + 2] = __float2int_rd(a);
    oi[i * 4 + 3] = __float2int_ru(a);
    ou[i] = __float2uint_rz(a);
    of[i * 3 + 0] = (float)(double)a;
    of[i * 3 + 1] = __half2float(__float2half(a));
    of[i * 3 + 2] = (float)(long long)(a * 1000.0f);
}

extern "C" __global__ void intdiv(const int *a, const int *b, int *q, int *r,
                                  unsigned *uq, unsigned *ur)
{
    int i = threadIdx.x;
    q[i] = a[i] / b[i];
    r[i] = a[i] % b[i];
    uq[i] = (unsigned)a[i] / (unsigned)b[i];
    ur[i] = (unsigned)a[i] % (unsigned)b[i];
}

extern "C" __global__ void sharedwarp(const int *in, int *out)
{
    __shared__ int s[32];
    __shared__ int t[32];
    int i = threadIdx.x;
    s[i] = in[i] * 3;
    __syncwarp();
    t[31 - i] = s[(i + 1) & 31];
    __syncwarp();
    out[i] = t[i] + s[i];
}

extern "C" __global__ void blockreduce(const int *in, int *out)
{
    extern __shared__ int buf[];
    int i = threadIdx.x;
    buf[i] = in[blockIdx.x * blockDim.x + i];
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s /= 2) {
        if (i < s)
            buf[i] += buf[i + s];
        __syncthreads();
    }
    if (i == 0)
        out[blockIdx.x] = buf[0];
    int c = __syncthreads_count(in[blockIdx.x * blockDim.x + i] > 10);
    if (i == 1)
        out[gridDim.x + blockIdx.x] = c;
}

__device__ __noinline__ void maybe_exit(int v)
{
    if (v & 1)
        asm volatile("exit;");
}

extern "C" __global__ void exits(const int *in, int *out)
{
    int i = threadIdx.x;
    out[i] = 1;
    maybe_exit(in[i]);
    out[i] = 2;
}

extern "C" __global__ void traps(int *out, int k)
{
    out[threadIdx.x] = 7;
    if (threadIdx.x == k)
        __trap();
}

extern "C" __global__ void asserts(int *out, int k)
{
    out[threadIdx.x] = 7;
    assert(threadIdx.x != k);
}

extern "C" __global__ void prints(int k)
{
    if (threadIdx.x < k)
        printf("lane %d of %d\n", threadIdx.x, k);
}

extern "C" __global__ void tid2d(int *out)
{
    int t = threadIdx.z * blockDim.x * blockDim.y + threadIdx.y * blockDim.x + threadIdx.x;
    out[t] = threadIdx.x | (threadIdx.y << 8) | (threadIdx.z << 16) | ((blockIdx.y) << 24);
}

extern "C" __global__ void bits(const unsigned *in, unsigned *out)
{
    int i = threadIdx.x;
    unsigned v = in[i];
    out[i * 6 + 0] = __popc(v);
    out[i * 6 + 1] = __clz(v);
    out[i * 6 + 2] = __brev(v);
    out[i * 6 + 3] = __byte_perm(v, 0x12345678u, 0x3210 + i);
    out[i * 6 + 4] = (v >> (i & 31)) | (v << (32 - (i & 31)));
    out[i * 6 + 5] = __umulhi(v, 0x9e3779b9u) + (unsigned)((v * 12345ull) >> 7);
}
