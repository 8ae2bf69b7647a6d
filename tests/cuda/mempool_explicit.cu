// mempool_explicit.cu: explicit memory pools, batched copies and managed
// range attributes through the runtime API.
//
// cudaMemPoolCreate; cudaMallocFromPoolAsync feeding a kernel whose output
// is checked against a CPU reference; the pool's used/reserved counts
// against the bytes asked for; a release threshold keeping the block (the
// same address comes back) and cudaMemPoolTrimTo giving it up;
// cudaDeviceSetMemPool making cudaMallocAsync use the pool; pool access;
// cudaMemcpyBatchAsync; cudaMemAdvise/cudaMemPrefetchAsync read back with
// cudaMemRangeGetAttribute; cudaMemPoolDestroy and the errors of misuse.
#include "zn_test.h"

__global__ void square_plus(const int *in, int *out, int n, int add)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = in[i] * in[i] + add;
}

static size_t attr(cudaMemPool_t p, cudaMemPoolAttr a)
{
    unsigned long long v = 0;
    CK(cudaMemPoolGetAttribute(p, a, &v));
    return (size_t)v;
}

static void expect(bool ok, const char *what)
{
    if (!ok)
        zt_fail("%s", what);
}

int main()
{
    zt_begin("mempool_explicit");
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

    cudaMemPoolProps props = {};
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = 0;
    cudaMemPool_t pool, def;
    CK(cudaMemPoolCreate(&pool, &props));
    CK(cudaDeviceGetDefaultMemPool(&def, 0));
    expect(pool != def, "a created pool is not the default pool");

    const int n = 5000;
    int *in = nullptr, *out = nullptr;
    CK(cudaMallocFromPoolAsync(&in, n * sizeof(int), pool, s));
    CK(cudaMallocFromPoolAsync(&out, n * sizeof(int), pool, s));
    expect(attr(pool, cudaMemPoolAttrUsedMemCurrent) == 2 * n * sizeof(int), "used = 2 arrays");
    expect(attr(pool, cudaMemPoolAttrReservedMemCurrent) == 2 * n * sizeof(int),
           "reserved = 2 arrays");
    int *h = (int *)malloc(n * sizeof(int)), *back = (int *)malloc(n * sizeof(int));
    for (int i = 0; i < n; i++) {
        h[i] = i % 97 - 40;
        back[i] = -12345;
    }
    CK(cudaMemcpyAsync(in, h, n * sizeof(int), cudaMemcpyHostToDevice, s));
    square_plus<<<(n + 255) / 256, 256, 0, s>>>(in, out, n, 3);
    CK(cudaGetLastError());
    CK(cudaMemcpyAsync(back, out, n * sizeof(int), cudaMemcpyDeviceToHost, s));
    CK(cudaFreeAsync(in, s));
    CK(cudaFreeAsync(out, s));
    CK(cudaStreamSynchronize(s));
    for (int i = 0; i < n; i++)
        if (back[i] != h[i] * h[i] + 3)
            zt_fail("out[%d] = %d, want %d", i, back[i], h[i] * h[i] + 3);
    expect(attr(pool, cudaMemPoolAttrUsedMemCurrent) == 0, "used 0 after the frees");
    expect(attr(pool, cudaMemPoolAttrReservedMemCurrent) == 0, "threshold 0: nothing kept");
    expect(attr(pool, cudaMemPoolAttrUsedMemHigh) == 2 * n * sizeof(int), "used high");

    // a threshold keeps the freed block for the next allocation
    unsigned long long thr = 1ull << 30;
    CK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &thr));
    void *a = nullptr, *b = nullptr;
    CK(cudaMallocFromPoolAsync(&a, 1 << 16, pool, s));
    CK(cudaFreeAsync(a, s));
    CK(cudaStreamSynchronize(s));
    expect(attr(pool, cudaMemPoolAttrReservedMemCurrent) == 1 << 16, "kept under the threshold");
    CK(cudaMallocFromPoolAsync(&b, 1 << 16, pool, s));
    expect(a == b, "the kept block is reused");
    CK(cudaFreeAsync(b, s));
    CK(cudaStreamSynchronize(s));
    CK(cudaMemPoolTrimTo(pool, 0));
    expect(attr(pool, cudaMemPoolAttrReservedMemCurrent) == 0, "trimmed");

    // the device's current pool
    CK(cudaDeviceSetMemPool(0, pool));
    cudaMemPool_t cur;
    CK(cudaDeviceGetMemPool(&cur, 0));
    expect(cur == pool, "current pool");
    CK(cudaMallocAsync(&a, 1000, s));
    expect(attr(pool, cudaMemPoolAttrUsedMemCurrent) == 1000, "cudaMallocAsync uses it");
    CK(cudaFreeAsync(a, s));
    CK(cudaStreamSynchronize(s));

    // access
    cudaMemLocation loc = {};
    loc.type = cudaMemLocationTypeDevice;
    loc.id = 0;
    cudaMemAccessFlags f = cudaMemAccessFlagsProtNone;
    CK(cudaMemPoolGetAccess(&f, pool, &loc));
    expect(f == cudaMemAccessFlagsProtReadWrite, "the pool's device reads and writes");
    cudaMemAccessDesc d = {};
    d.location = loc;
    d.flags = cudaMemAccessFlagsProtNone;
    expect(cudaMemPoolSetAccess(pool, &d, 1) == cudaErrorInvalidValue,
           "the owner cannot lose access");

    // batched copies: two copies, one attribute
    int src0[64], src1[64], dst0[64], dst1[64];
    for (int i = 0; i < 64; i++) {
        src0[i] = i;
        src1[i] = 100 + i;
        dst0[i] = dst1[i] = -1;
    }
    int *dev;
    CK(cudaMalloc(&dev, 128 * sizeof(int)));
    void *dsts[2] = { dev, dev + 64 };
    void *srcs[2] = { src0, src1 };
    size_t sizes[2] = { sizeof src0, sizeof src1 };
    cudaMemcpyAttributes at = {};
    at.srcAccessOrder = cudaMemcpySrcAccessOrderDuringApiCall;
    size_t idx = 0;
    CK(cudaMemcpyBatchAsync(dsts, srcs, sizes, 2, &at, &idx, 1, s));
    CK(cudaMemcpyAsync(dst0, dev, sizeof dst0, cudaMemcpyDeviceToHost, s));
    CK(cudaMemcpyAsync(dst1, dev + 64, sizeof dst1, cudaMemcpyDeviceToHost, s));
    CK(cudaStreamSynchronize(s));
    for (int i = 0; i < 64; i++)
        if (dst0[i] != i || dst1[i] != 100 + i)
            zt_fail("batch copy [%d]: %d %d", i, dst0[i], dst1[i]);
    expect(cudaMemcpyBatchAsync(dsts, srcs, sizes, 0, &at, &idx, 1, s) == cudaErrorInvalidValue,
           "an empty batch is refused");
    CK(cudaFree(dev));

    // managed-memory advice read back
    float *m;
    CK(cudaMallocManaged(&m, 1 << 16));
    cudaMemLocation host = {};
    host.type = cudaMemLocationTypeHost;
    CK(cudaMemAdvise(m, 1 << 16, cudaMemAdviseSetReadMostly, loc));
    CK(cudaMemAdvise(m, 1 << 15, cudaMemAdviseSetPreferredLocation, host));
    CK(cudaMemPrefetchAsync(m, 1 << 16, loc, 0, s));
    int v = -5;
    CK(cudaMemRangeGetAttribute(&v, 4, cudaMemRangeAttributeReadMostly, m, 1 << 16));
    expect(v == 1, "read mostly");
    CK(cudaMemRangeGetAttribute(&v, 4, cudaMemRangeAttributePreferredLocation, m, 1 << 15));
    expect(v == cudaCpuDeviceId, "preferred: the CPU on the first half");
    CK(cudaMemRangeGetAttribute(&v, 4, cudaMemRangeAttributePreferredLocation, m, 1 << 16));
    expect(v == cudaInvalidDeviceId, "preferred: mixed over the whole");
    CK(cudaMemRangeGetAttribute(&v, 4, cudaMemRangeAttributeLastPrefetchLocation, m, 1 << 16));
    expect(v == 0, "last prefetch: device 0");
    CK(cudaStreamSynchronize(s));
    CK(cudaFree(m));

    // destroy: the default pool becomes current again; the handle dies
    CK(cudaMemPoolDestroy(pool));
    CK(cudaDeviceGetMemPool(&cur, 0));
    expect(cur == def, "the default pool is current after the destroy");
    expect(cudaMallocFromPoolAsync(&a, 16, pool, s) != cudaSuccess, "destroyed pool refused");
    cudaGetLastError();
    free(h);
    free(back);
    CK(cudaStreamDestroy(s));
    return zt_finish();
}
