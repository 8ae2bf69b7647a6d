// Recursive device functions, local arrays, __constant__ and __device__
// variables with initializers, printf, assert, function pointers.
#include <cstdio>
#include <cassert>

__constant__ float coeffs[4] = {1.0f, 0.5f, 0.25f, 0.125f};
__constant__ int cint = 42;
__device__ int dev_a = 7;
__device__ int dev_b[3] = {1, 2, 3};
__device__ double dev_d = 3.25;
__device__ int *dev_ptrs[2] = {&dev_a, &dev_b[1]};
__device__ unsigned long long dev_counter;
__device__ char dev_str[] = "zinc";
__device__ short dev_grid[2][3] = {{1, 2, 3}, {4, 5, 6}};

__device__ __noinline__ int fib(int n)
{
    return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

__device__ __noinline__ float poly(float x)
{
    return coeffs[0] + x * (coeffs[1] + x * (coeffs[2] + x * coeffs[3]));
}

typedef int (*binop)(int, int);
__device__ __noinline__ int op_add(int a, int b) { return a + b; }
__device__ __noinline__ int op_mul(int a, int b) { return a * b; }
__device__ binop ops[2] = {op_add, op_mul};

__global__ void kfib(int *out, int n)
{
    int t = threadIdx.x;
    out[t] = fib(n + (t & 3)) + cint + dev_a + *dev_ptrs[1];
}

__global__ void kpoly(float *out, const float *in)
{
    int t = threadIdx.x;
    out[t] = poly(in[t]);
}

__global__ void klocal(int *out, int k)
{
    int arr[32];
    for (int i = 0; i < 32; ++i) arr[i] = i * k + threadIdx.x;
    out[threadIdx.x] = arr[(k + threadIdx.x) & 31] + arr[k & 31];
}

__global__ void kprintf(int v, double d)
{
    printf("thread %d v=%d d=%f s=%s\n", threadIdx.x, v, d, dev_str);
    assert(v != 12345);
    atomicAdd(&dev_counter, 1ull);
}

__global__ void kfptr(int *out, int which)
{
    binop f = ops[which & 1];
    out[threadIdx.x] = f(threadIdx.x, 3) + dev_grid[which & 1][threadIdx.x % 3];
}

__global__ void kswitch(int *out, int sel)
{
    int r;
    switch (sel + threadIdx.x) {
    case 0: r = 10; break;
    case 1: r = 21; break;
    case 2: r = 32; break;
    case 3: r = 43; break;
    case 4: r = 54; break;
    case 5: r = 65; break;
    case 6: r = 76; break;
    default: r = -1;
    }
    out[threadIdx.x] = r;
}
