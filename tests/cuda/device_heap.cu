// device_heap: in-kernel malloc/free draw from the context's heap of
// cudaLimitMallocHeapSize bytes (8 MB by default, as on a GPU):
// - a 64 MB malloc gets NULL under the default limit;
// - with the limit set to 1 MiB, one thread allocating 64 KiB blocks until
//   malloc returns NULL gets between 8 and 16 of them; the blocks hold
//   what is written to them (checked by a second kernel against the host's
//   sums); after they are freed the same number fits again;
// - the limit cannot change once a kernel has allocated:
//   cudaErrorInvalidValue.
#include "zn_test.h"

#define CHUNK (64 << 10)
#define MAXB 64

__global__ void big_malloc(int *got)
{
    void *p = malloc((size_t)64 << 20);
    *got = p != NULL;
    free(p);
}

__global__ void fill_heap(int **blocks, int *count)
{
    int n = 0;
    while (n < MAXB) {
        int *p = (int *)malloc(CHUNK);
        if (!p)
            break;
        for (int i = 0; i < CHUNK / 4; i += 1024)
            p[i] = n * 1000 + i;
        blocks[n++] = p;
    }
    *count = n;
}

__global__ void sum_and_free(int **blocks, const int *count, long long *sums)
{
    for (int b = 0; b < *count; b++) {
        long long s = 0;
        for (int i = 0; i < CHUNK / 4; i += 1024)
            s += blocks[b][i];
        sums[b] = s;
        free(blocks[b]);
    }
}

static int fill_and_check(int **blocks, int *count, long long *sums)
{
    fill_heap<<<1, 1>>>(blocks, count);
    CK_LAUNCH();
    int n = -1;
    CK(cudaMemcpy(&n, count, sizeof n, cudaMemcpyDeviceToHost));
    CK(cudaMemset(sums, 0xff, MAXB * sizeof(long long)));
    sum_and_free<<<1, 1>>>(blocks, count, sums);
    CK_LAUNCH();
    long long h[MAXB];
    CK(cudaMemcpy(h, sums, sizeof h, cudaMemcpyDeviceToHost));
    for (int b = 0; b < n && b < MAXB; b++) {
        long long want = 0;
        for (int i = 0; i < CHUNK / 4; i += 1024)
            want += b * 1000 + i;
        if (h[b] != want)
            zt_fail("heap block %d: sum %lld, want %lld", b, h[b], want);
    }
    return n;
}

int main()
{
    zt_begin("device_heap");
    size_t limit = 0;
    CK(cudaDeviceGetLimit(&limit, cudaLimitMallocHeapSize));
    if (limit != (size_t)8 << 20)
        zt_fail("default heap limit %zu, want 8 MiB", limit);
    CK(cudaDeviceSetLimit(cudaLimitMallocHeapSize, 1 << 20));
    CK(cudaDeviceGetLimit(&limit, cudaLimitMallocHeapSize));
    if (limit != 1 << 20)
        zt_fail("heap limit %zu after setting 1 MiB", limit);
    int *got, *count, **blocks;
    long long *sums;
    CK(cudaMalloc(&got, sizeof(int)));
    CK(cudaMalloc(&count, sizeof(int)));
    CK(cudaMalloc(&blocks, MAXB * sizeof(int *)));
    CK(cudaMalloc(&sums, MAXB * sizeof(long long)));
    CK(cudaMemset(got, 0xff, sizeof(int)));
    big_malloc<<<1, 1>>>(got);
    CK_LAUNCH();
    int hg = -1;
    CK(cudaMemcpy(&hg, got, sizeof hg, cudaMemcpyDeviceToHost));
    if (hg != 0)
        zt_fail("a 64 MiB malloc in a 1 MiB heap: %s", hg ? "got memory" : "?");
    int n1 = fill_and_check(blocks, count, sums);
    if (n1 < 8 || n1 > 16)
        zt_fail("64 KiB blocks in a 1 MiB heap: %d, want 8-16", n1);
    int n2 = fill_and_check(blocks, count, sums);
    if (n2 != n1)
        zt_fail("after freeing: %d blocks fit, before %d", n2, n1);
    if (cudaDeviceSetLimit(cudaLimitMallocHeapSize, 2 << 20) != cudaErrorInvalidValue)
        zt_fail("the heap limit changed after kernels allocated");
    cudaGetLastError();
    CK(cudaFree(got));
    CK(cudaFree(count));
    CK(cudaFree(blocks));
    CK(cudaFree(sums));
    return zt_finish();
}
