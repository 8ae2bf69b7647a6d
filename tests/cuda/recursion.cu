// recursion: recursive __device__ functions that are not inlined, with a
// recursion depth that differs per lane (divergent calls and returns).
#include "zn_test.h"

__host__ __device__ __noinline__ static int fib(int n)
{
    return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

// Divide-and-conquer sum of a[lo, hi); the split point depends on the data.
__host__ __device__ __noinline__ static long long rsum(const int *a, int lo, int hi)
{
    if (hi - lo <= 2) {
        long long s = 0;
        for (int i = lo; i < hi; i++)
            s += a[i];
        return s;
    }
    int mid = lo + 1 + (int)((unsigned)a[lo] % (unsigned)(hi - lo - 1));
    return rsum(a, lo, mid) + rsum(a, mid, hi);
}

__global__ void rec(const int *data, int len, int *fibs, long long *sums, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    fibs[i] = fib(i % 21);
    int lo = i % len, hi = lo + (i * 7) % (len - lo + 1);
    sums[i] = rsum(data, lo, hi);
}

int main()
{
    zt_begin("recursion");
    const int n = 2000, len = 300;
    int data[len];
    for (int i = 0; i < len; i++)
        data[i] = (int)(zt_rand() % 20001) - 10000;
    int *ddata, *dfibs;
    long long *dsums;
    CK(cudaMalloc(&ddata, sizeof data));
    CK(cudaMalloc(&dfibs, n * sizeof(int)));
    CK(cudaMalloc(&dsums, n * sizeof(long long)));
    CK(cudaMemcpy(ddata, data, sizeof data, cudaMemcpyHostToDevice));
    POISON(dfibs, n * sizeof(int));
    POISON(dsums, n * sizeof(long long));
    // Deep recursion needs a bigger stack than the default 1 KiB per thread.
    CK(cudaDeviceSetLimit(cudaLimitStackSize, 16384));
    rec<<<(n + 63) / 64, 64>>>(ddata, len, dfibs, dsums, n);
    CK_LAUNCH();
    int *fibs = (int *)malloc(n * sizeof(int));
    long long *sums = (long long *)malloc(n * sizeof(long long));
    CK(cudaMemcpy(fibs, dfibs, n * sizeof(int), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(sums, dsums, n * sizeof(long long), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++) {
        // Independent references: iterative Fibonacci and a plain loop.
        int a = 0, b = 1;
        for (int k = 0; k < i % 21; k++) { int t = a + b; a = b; b = t; }
        if (fibs[i] != a)
            zt_fail("fib(%d) = %d, want %d", i % 21, fibs[i], a);
        int lo = i % len, hi = lo + (i * 7) % (len - lo + 1);
        long long s = 0;
        for (int k = lo; k < hi; k++)
            s += data[k];
        if (sums[i] != s)
            zt_fail("rsum(%d, %d) = %lld, want %lld", lo, hi, sums[i], s);
    }
    CK(cudaFree(ddata)); CK(cudaFree(dfibs)); CK(cudaFree(dsums));
    free(fibs); free(sums);
    return zt_finish();
}
