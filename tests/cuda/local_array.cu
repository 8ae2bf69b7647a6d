// local_array: a per-thread array indexed with data-dependent subscripts
// (so it must live in local memory): insertion sort of 24 values, then
// reads and writes at computed positions.
#include <stdlib.h>
#include "zn_test.h"

#define LEN 24

__global__ void sort_local(const int *in, int *out, int *picks, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int a[LEN];
    for (int k = 0; k < LEN; k++)
        a[k] = in[i * LEN + k];
    for (int k = 1; k < LEN; k++) {     // insertion sort: data-dependent stores
        int v = a[k], j = k - 1;
        while (j >= 0 && a[j] > v) {
            a[j + 1] = a[j];
            j--;
        }
        a[j + 1] = v;
    }
    for (int k = 0; k < LEN; k++)
        out[i * LEN + k] = a[k];
    // Pointer chase through the sorted array.
    unsigned p = (unsigned)in[i * LEN] % LEN;
    int s = 0;
    for (int k = 0; k < 10; k++) {
        s += a[p];
        a[p] ^= k;
        p = (unsigned)(a[p] + k) % LEN;
    }
    picks[i] = s;
}

static int cmp_int(const void *x, const void *y)
{
    int a = *(const int *)x, b = *(const int *)y;
    return (a > b) - (a < b);
}

int main()
{
    zt_begin("local_array");
    const int n = 3000;
    int *in = (int *)malloc(n * LEN * sizeof(int)), *out = (int *)malloc(n * LEN * sizeof(int));
    int *picks = (int *)malloc(n * sizeof(int));
    for (int i = 0; i < n * LEN; i++)
        in[i] = (int)(zt_rand() % 1000);
    int *din, *dout, *dpicks;
    CK(cudaMalloc(&din, n * LEN * sizeof(int)));
    CK(cudaMalloc(&dout, n * LEN * sizeof(int)));
    CK(cudaMalloc(&dpicks, n * sizeof(int)));
    CK(cudaMemcpy(din, in, n * LEN * sizeof(int), cudaMemcpyHostToDevice));
    POISON(dout, n * LEN * sizeof(int));
    POISON(dpicks, n * sizeof(int));
    sort_local<<<(n + 127) / 128, 128>>>(din, dout, dpicks, n);
    CK_LAUNCH();
    CK(cudaMemcpy(out, dout, n * LEN * sizeof(int), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(picks, dpicks, n * sizeof(int), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++) {
        int a[LEN];
        memcpy(a, in + i * LEN, sizeof a);
        qsort(a, LEN, sizeof(int), cmp_int);
        for (int k = 0; k < LEN; k++)
            if (out[i * LEN + k] != a[k])
                zt_fail("thread %d: sorted[%d] = %d, want %d", i, k, out[i * LEN + k], a[k]);
        unsigned p = (unsigned)in[i * LEN] % LEN;
        int s = 0;
        for (int k = 0; k < 10; k++) {
            s += a[p];
            a[p] ^= k;
            p = (unsigned)(a[p] + k) % LEN;
        }
        if (picks[i] != s)
            zt_fail("thread %d: pick sum %d, want %d", i, picks[i], s);
    }
    CK(cudaFree(din)); CK(cudaFree(dout)); CK(cudaFree(dpicks));
    free(in); free(out); free(picks);
    return zt_finish();
}
