// mempool_managed.cu: CUDA 13 managed memory pools through the runtime.
//
// cudaMemPoolCreate with cudaMemAllocationTypeManaged (no preferred
// location); cudaMallocFromPoolAsync from it; a kernel writes, the host
// reads and changes the memory in place (no copies), a second kernel reads
// the host's values; the default managed pool of device 0 from
// cudaMemGetDefaultMemPool; cudaMemSetMemPool/cudaMemGetMemPool; the
// pointer is managed. Every value against a CPU reference.
#include "zn_test.h"

__global__ void fill(int *p, int n, int add)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        p[i] = i * 5 + add;
}

__global__ void twice(const int *p, int *q, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        q[i] = 2 * p[i];
}

int main()
{
    zt_begin("mempool_managed");
    const int n = 10000, B = 256, G = (n + B - 1) / B;
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

    cudaMemPoolProps props = {};
    props.allocType = cudaMemAllocationTypeManaged;
    props.location.type = cudaMemLocationTypeNone;
    cudaMemPool_t pool;
    CK(cudaMemPoolCreate(&pool, &props));
    cudaMemLocation none = {};
    none.type = cudaMemLocationTypeNone;
    CK(cudaMemSetMemPool(&none, cudaMemAllocationTypeManaged, pool));
    cudaMemPool_t cur;
    CK(cudaMemGetMemPool(&cur, &none, cudaMemAllocationTypeManaged));
    if (cur != pool)
        zt_fail("cudaMemGetMemPool does not return the pool just set");

    int *a = nullptr, *b = nullptr;
    CK(cudaMallocFromPoolAsync(&a, n * sizeof(int), pool, s));
    cudaMemLocation dev = {};
    dev.type = cudaMemLocationTypeDevice;
    dev.id = 0;
    cudaMemPool_t devpool;
    CK(cudaMemGetDefaultMemPool(&devpool, &dev, cudaMemAllocationTypeManaged));
    CK(cudaMallocFromPoolAsync(&b, n * sizeof(int), devpool, s));
    CK(cudaStreamSynchronize(s));

    cudaPointerAttributes pa;
    CK(cudaPointerGetAttributes(&pa, a));
    if (pa.type != cudaMemoryTypeManaged)
        zt_fail("pool memory type %d, want managed", (int)pa.type);

    for (int i = 0; i < n; i++)     // poison, written by the host
        a[i] = b[i] = -1;
    fill<<<G, B, 0, s>>>(a, n, 3);
    CK(cudaGetLastError());
    CK(cudaStreamSynchronize(s));
    long bad = 0;
    for (int i = 0; i < n; i++)
        if (a[i] != i * 5 + 3 && bad++ < 3)
            zt_fail("a[%d] = %d after the kernel", i, a[i]);
    for (int i = 0; i < n; i++)     // the host changes it in place
        a[i] = i ^ 0x55;
    twice<<<G, B, 0, s>>>(a, b, n);
    CK(cudaGetLastError());
    CK(cudaStreamSynchronize(s));
    for (int i = 0; i < n; i++)
        if (b[i] != 2 * (i ^ 0x55) && bad++ < 6)
            zt_fail("b[%d] = %d, want %d", i, b[i], 2 * (i ^ 0x55));

    CK(cudaFreeAsync(a, s));
    CK(cudaFreeAsync(b, s));
    CK(cudaStreamSynchronize(s));
    CK(cudaMemPoolDestroy(pool));
    cudaMemPool_t def;
    CK(cudaMemGetDefaultMemPool(&def, &none, cudaMemAllocationTypeManaged));
    CK(cudaMemGetMemPool(&cur, &none, cudaMemAllocationTypeManaged));
    if (cur != def)
        zt_fail("the default managed pool is not current after destroying the pool");
    CK(cudaStreamDestroy(s));
    return zt_finish();
}
