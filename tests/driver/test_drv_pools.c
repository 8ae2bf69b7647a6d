/* test_drv_pools.c: explicit memory pools through the driver API.
 *
 * cuMemPoolCreate (device and host pools) and its refused properties;
 * cuMemAllocFromPoolAsync on an explicit pool with data through it; the
 * per-pool counts (used and reserved, current and high) against the bytes
 * the test asked for; the release threshold keeping freed blocks (the same
 * address comes back) and cuMemPoolTrimTo giving them up; maxSize;
 * reuse flags; cuMemPoolSetAccess/GetAccess; cuDeviceSetMemPool and
 * cuDeviceGetMemPool with cuMemAllocAsync following the current pool;
 * CUDA 13's cuMemGet/SetMemPool and cuMemGetDefaultMemPool for device 0
 * and host locations;
 * cuMemPoolDestroy with an allocation still out (it may still be freed);
 * a free captured into a graph launched twice gives the block back once;
 * and the misuse errors CUDA documents for each.
 */
#include <cuda.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "drv_test.h"

static uint64_t attr(CUmemoryPool p, CUmemPool_attribute a)
{
    uint64_t v = 0xdeadbeef;
    OK(cuMemPoolGetAttribute(p, a, &v));
    return v;
}

static CUmemPoolProps device_props(void)
{
    CUmemPoolProps pp;
    memset(&pp, 0, sizeof pp);
    pp.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
    pp.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    pp.location.id = 0;
    return pp;
}

static void refused_props(void)
{
    CUmemoryPool p;
    CUmemPoolProps pp = device_props();
    EXPECT_RC(cuMemPoolCreate(&p, NULL), CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(cuMemPoolCreate(NULL, &pp), CUDA_ERROR_INVALID_VALUE);
    pp.allocType = CU_MEM_ALLOCATION_TYPE_INVALID;
    EXPECT_RC(cuMemPoolCreate(&p, &pp), CUDA_ERROR_INVALID_VALUE);
    pp = device_props();
    pp.location.id = 1;
    EXPECT_RC(cuMemPoolCreate(&p, &pp), CUDA_ERROR_INVALID_DEVICE);
    pp = device_props();
    pp.location.type = (CUmemLocationType)77;
    EXPECT_RC(cuMemPoolCreate(&p, &pp), CUDA_ERROR_INVALID_VALUE);
    pp = device_props();
    pp.location.type = CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT;
    EXPECT_RC(cuMemPoolCreate(&p, &pp), CUDA_ERROR_INVALID_VALUE);
    pp = device_props();
    pp.reserved[10] = 1;
    EXPECT_RC(cuMemPoolCreate(&p, &pp), CUDA_ERROR_INVALID_VALUE);
    pp = device_props();        /* host pools are never IPC capable */
    pp.location.type = CU_MEM_LOCATION_TYPE_HOST;
    pp.handleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
    EXPECT_RC(cuMemPoolCreate(&p, &pp), CUDA_ERROR_INVALID_VALUE);
    pp = device_props();        /* IPC pools: POSIX fds only (test_drv_ipc.c shares one) */
    pp.handleTypes = CU_MEM_HANDLE_TYPE_WIN32;
    EXPECT_RC(cuMemPoolCreate(&p, &pp), CUDA_ERROR_NOT_SUPPORTED);
}

/* Data through an explicit pool, and its counts. */
static void explicit_pool(CUstream s)
{
    CUmemoryPool def, p;
    OK(cuDeviceGetDefaultMemPool(&def, 0));
    uint64_t def_used = attr(def, CU_MEMPOOL_ATTR_USED_MEM_CURRENT);
    CUmemPoolProps pp = device_props();
    OK(cuMemPoolCreate(&p, &pp));
    EXPECT(p != def);
    EXPECT(attr(p, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD) == 0);
    EXPECT(attr(p, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT) == 0);
    int flag = -1;
    OK(cuMemPoolGetAttribute(p, CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC, &flag));
    EXPECT(flag == 1);

    enum { N = 1000 };
    CUdeviceptr d = 0;
    OK(cuMemAllocFromPoolAsync(&d, N * sizeof(int), p, s));
    EXPECT(d != 0);
    EXPECT(attr(p, CU_MEMPOOL_ATTR_USED_MEM_CURRENT) == N * sizeof(int));
    EXPECT(attr(p, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT) == N * sizeof(int));
    EXPECT(attr(def, CU_MEMPOOL_ATTR_USED_MEM_CURRENT) == def_used); /* not the default's */
    static int in[N], out[N];
    for (int i = 0; i < N; i++) {
        in[i] = i * 7 - 3;
        out[i] = -1;
    }
    OK(cuMemcpyHtoDAsync(d, in, sizeof in, s));
    OK(cuMemcpyDtoHAsync(out, d, sizeof out, s));
    OK(cuMemFreeAsync(d, s));
    OK(cuStreamSynchronize(s));
    EXPECT(memcmp(in, out, sizeof in) == 0);
    /* threshold 0: nothing kept once the free has run */
    EXPECT(attr(p, CU_MEMPOOL_ATTR_USED_MEM_CURRENT) == 0);
    EXPECT(attr(p, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT) == 0);
    EXPECT(attr(p, CU_MEMPOOL_ATTR_USED_MEM_HIGH) == N * sizeof(int));
    EXPECT(attr(p, CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH) == N * sizeof(int));

    /* a threshold keeps the freed block; the next allocation reuses it */
    uint64_t thr = 1 << 20, zero = 0, five = 5;
    OK(cuMemPoolSetAttribute(p, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &thr));
    EXPECT(attr(p, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD) == thr);
    CUdeviceptr a = 0, b = 0;
    OK(cuMemAllocFromPoolAsync(&a, 4096, p, s));
    OK(cuMemFreeAsync(a, s));
    OK(cuStreamSynchronize(s));
    EXPECT(attr(p, CU_MEMPOOL_ATTR_USED_MEM_CURRENT) == 0);
    EXPECT(attr(p, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT) == 4096);
    OK(cuMemAllocFromPoolAsync(&b, 4000, p, s));
    EXPECT(b == a);
    EXPECT(attr(p, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT) == 4096);
    OK(cuMemFreeAsync(b, s));
    OK(cuStreamSynchronize(s));
    /* a freed block is not memory the program may free again */
    EXPECT_RC(cuMemFree(b), CUDA_ERROR_INVALID_VALUE);
    OK(cuMemPoolTrimTo(p, 0));
    EXPECT(attr(p, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT) == 0);

    /* high marks reset to the current value, and only with 0 */
    OK(cuMemPoolSetAttribute(p, CU_MEMPOOL_ATTR_USED_MEM_HIGH, &zero));
    EXPECT(attr(p, CU_MEMPOOL_ATTR_USED_MEM_HIGH) == 0);
    OK(cuMemPoolSetAttribute(p, CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH, &zero));
    EXPECT(attr(p, CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH) == 0);
    EXPECT_RC(cuMemPoolSetAttribute(p, CU_MEMPOOL_ATTR_USED_MEM_HIGH, &five),
              CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(cuMemPoolSetAttribute(p, CU_MEMPOOL_ATTR_USED_MEM_CURRENT, &zero),
              CUDA_ERROR_INVALID_VALUE);     /* read-only */
    flag = 0;
    OK(cuMemPoolSetAttribute(p, CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES, &flag));
    flag = -1;
    OK(cuMemPoolGetAttribute(p, CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES, &flag));
    EXPECT(flag == 0);

    /* cuMemFree of a pool allocation: the pool stops counting it */
    OK(cuMemAllocFromPoolAsync(&a, 512, p, s));
    EXPECT(attr(p, CU_MEMPOOL_ATTR_USED_MEM_CURRENT) == 512);
    OK(cuMemFree(a));
    EXPECT(attr(p, CU_MEMPOOL_ATTR_USED_MEM_CURRENT) == 0);
    EXPECT(attr(p, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT) == 0);
    OK(cuMemPoolDestroy(p));
}

static void max_size(CUstream s)
{
    CUmemoryPool p;
    CUmemPoolProps pp = device_props();
    pp.maxSize = 8192;
    OK(cuMemPoolCreate(&p, &pp));
    CUdeviceptr a = 0, b = 0;
    OK(cuMemAllocFromPoolAsync(&a, 4096, p, s));
    EXPECT_RC(cuMemAllocFromPoolAsync(&b, 8192, p, s), CUDA_ERROR_OUT_OF_MEMORY);
    OK(cuMemAllocFromPoolAsync(&b, 4096, p, s));
    OK(cuMemFreeAsync(a, s));
    OK(cuMemFreeAsync(b, s));
    OK(cuStreamSynchronize(s));
    OK(cuMemPoolDestroy(p));
}

static CUmemAccess_flags access_of(CUmemoryPool p, CUmemLocationType t, int id)
{
    CUmemLocation l = { .type = t, .id = id };
    CUmemAccess_flags f = (CUmemAccess_flags)0x55;
    OK(cuMemPoolGetAccess(&f, p, &l));
    return f;
}

static void access(CUstream s)
{
    CUmemoryPool dp, hp;
    CUmemPoolProps pp = device_props();
    OK(cuMemPoolCreate(&dp, &pp));
    pp.location.type = CU_MEM_LOCATION_TYPE_HOST;
    OK(cuMemPoolCreate(&hp, &pp));
    EXPECT(access_of(dp, CU_MEM_LOCATION_TYPE_DEVICE, 0) == CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
    EXPECT(access_of(dp, CU_MEM_LOCATION_TYPE_HOST, 0) == CU_MEM_ACCESS_FLAGS_PROT_NONE);
    EXPECT(access_of(hp, CU_MEM_LOCATION_TYPE_HOST, 0) == CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
    EXPECT(access_of(hp, CU_MEM_LOCATION_TYPE_DEVICE, 0) == CU_MEM_ACCESS_FLAGS_PROT_NONE);
    CUmemAccessDesc d = { .location = { CU_MEM_LOCATION_TYPE_DEVICE, 0 },
                          .flags = CU_MEM_ACCESS_FLAGS_PROT_READ };
    OK(cuMemPoolSetAccess(hp, &d, 1));
    EXPECT(access_of(hp, CU_MEM_LOCATION_TYPE_DEVICE, 0) == CU_MEM_ACCESS_FLAGS_PROT_READ);
    d.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    OK(cuMemPoolSetAccess(hp, &d, 1));
    EXPECT(access_of(hp, CU_MEM_LOCATION_TYPE_DEVICE, 0) == CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
    /* the owner keeps read-write; bad flags, devices and pools */
    d.flags = CU_MEM_ACCESS_FLAGS_PROT_NONE;
    EXPECT_RC(cuMemPoolSetAccess(dp, &d, 1), CUDA_ERROR_INVALID_VALUE);
    d.flags = (CUmemAccess_flags)2;
    EXPECT_RC(cuMemPoolSetAccess(hp, &d, 1), CUDA_ERROR_INVALID_VALUE);
    d.flags = CU_MEM_ACCESS_FLAGS_PROT_READ;
    d.location.id = 3;
    EXPECT_RC(cuMemPoolSetAccess(hp, &d, 1), CUDA_ERROR_INVALID_DEVICE);
    EXPECT(access_of(hp, CU_MEM_LOCATION_TYPE_DEVICE, 0) == CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
    CUmemAccess_flags f;
    CUmemLocation l = { CU_MEM_LOCATION_TYPE_DEVICE, 0 };
    EXPECT_RC(cuMemPoolGetAccess(NULL, dp, &l), CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(cuMemPoolGetAccess(&f, dp, NULL), CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(cuMemPoolGetAccess(&f, (CUmemoryPool)&l, &l), CUDA_ERROR_INVALID_VALUE);

    /* host pool memory is host memory: the host writes it, a copy reads it */
    CUdeviceptr h = 0;
    OK(cuMemAllocFromPoolAsync(&h, 64, hp, s));
    OK(cuStreamSynchronize(s));
    memset((void *)(uintptr_t)h, 0x5a, 64);
    unsigned char back[64];
    memset(back, 0, sizeof back);
    OK(cuMemcpyDtoH(back, h, sizeof back));
    EXPECT(back[0] == 0x5a && back[63] == 0x5a);
    OK(cuMemFreeAsync(h, s));
    OK(cuStreamSynchronize(s));
    OK(cuMemPoolDestroy(dp));
    OK(cuMemPoolDestroy(hp));
}

/* The device's current pool, and destroying pools. */
static void current_and_destroy(CUstream s)
{
    CUmemoryPool def, p, hp, cur = NULL;
    OK(cuDeviceGetDefaultMemPool(&def, 0));
    OK(cuDeviceGetMemPool(&cur, 0));
    EXPECT(cur == def);
    CUmemPoolProps pp = device_props();
    OK(cuMemPoolCreate(&p, &pp));
    OK(cuDeviceSetMemPool(0, p));
    OK(cuDeviceGetMemPool(&cur, 0));
    EXPECT(cur == p);
    CUmemLocation loc = { CU_MEM_LOCATION_TYPE_DEVICE, 0 };
    cur = NULL;
    OK(cuMemGetMemPool(&cur, &loc, CU_MEM_ALLOCATION_TYPE_PINNED));
    EXPECT(cur == p);
    CUdeviceptr a = 0;
    OK(cuMemAllocAsync(&a, 300, s));    /* from the current pool */
    EXPECT(attr(p, CU_MEMPOOL_ATTR_USED_MEM_CURRENT) == 300);
    pp.location.type = CU_MEM_LOCATION_TYPE_HOST;
    OK(cuMemPoolCreate(&hp, &pp));
    EXPECT_RC(cuDeviceSetMemPool(0, hp), CUDA_ERROR_INVALID_VALUE);  /* not on the device */
    EXPECT_RC(cuDeviceSetMemPool(1, p), CUDA_ERROR_INVALID_DEVICE);
    OK(cuMemPoolDestroy(hp));
    /* destroyed with an allocation out: the handle dies, the memory lives */
    OK(cuMemPoolDestroy(p));
    OK(cuDeviceGetMemPool(&cur, 0));
    EXPECT(cur == def);
    uint64_t v;
    EXPECT_RC(cuMemPoolGetAttribute(p, CU_MEMPOOL_ATTR_USED_MEM_CURRENT, &v),
              CUDA_ERROR_INVALID_HANDLE);
    EXPECT_RC(cuMemPoolDestroy(p), CUDA_ERROR_INVALID_VALUE);
    CUdeviceptr b;
    EXPECT_RC(cuMemAllocFromPoolAsync(&b, 16, p, s), CUDA_ERROR_INVALID_HANDLE);
    EXPECT_RC(cuDeviceSetMemPool(0, p), CUDA_ERROR_INVALID_HANDLE);
    EXPECT_RC(cuMemPoolTrimTo(p, 0), CUDA_ERROR_INVALID_HANDLE);
    OK(cuMemsetD8Async(a, 0x11, 300, s));
    unsigned char back[300];
    OK(cuMemcpyDtoHAsync(back, a, sizeof back, s));
    OK(cuMemFreeAsync(a, s));
    OK(cuStreamSynchronize(s));
    EXPECT(back[0] == 0x11 && back[299] == 0x11);
    EXPECT_RC(cuMemPoolDestroy(def), CUDA_ERROR_INVALID_VALUE);   /* never the default */
    EXPECT_RC(cuMemPoolDestroy(NULL), CUDA_ERROR_INVALID_VALUE);
}

/* CUDA 13's location queries: device 0's pools and the host's. */
static void locations(CUstream s)
{
    CUmemLocation dl = { CU_MEM_LOCATION_TYPE_DEVICE, 0 }, hl = { CU_MEM_LOCATION_TYPE_HOST, 0 };
    CUmemLocation numa = { CU_MEM_LOCATION_TYPE_HOST_NUMA, 0 };
    CUmemoryPool def, hdef = NULL, x = NULL, hp, dp;
    OK(cuDeviceGetDefaultMemPool(&def, 0));
    OK(cuMemGetDefaultMemPool(&x, &dl, CU_MEM_ALLOCATION_TYPE_PINNED));
    EXPECT(x == def);
    OK(cuMemGetDefaultMemPool(&hdef, &hl, CU_MEM_ALLOCATION_TYPE_PINNED));
    EXPECT(hdef != NULL && hdef != def);
    OK(cuMemGetDefaultMemPool(&x, &numa, CU_MEM_ALLOCATION_TYPE_PINNED));
    EXPECT(x == hdef);
    EXPECT(access_of(hdef, CU_MEM_LOCATION_TYPE_HOST, 0) == CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
    OK(cuMemGetMemPool(&x, &hl, CU_MEM_ALLOCATION_TYPE_PINNED));
    EXPECT(x == hdef);
    CUmemPoolProps pp = device_props();
    pp.location.type = CU_MEM_LOCATION_TYPE_HOST;
    OK(cuMemPoolCreate(&hp, &pp));
    pp = device_props();
    OK(cuMemPoolCreate(&dp, &pp));
    OK(cuMemSetMemPool(&hl, CU_MEM_ALLOCATION_TYPE_PINNED, hp));
    OK(cuMemGetMemPool(&x, &hl, CU_MEM_ALLOCATION_TYPE_PINNED));
    EXPECT(x == hp);
    EXPECT_RC(cuMemSetMemPool(&hl, CU_MEM_ALLOCATION_TYPE_PINNED, dp), CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(cuMemSetMemPool(&dl, CU_MEM_ALLOCATION_TYPE_PINNED, hp), CUDA_ERROR_INVALID_VALUE);
    OK(cuMemSetMemPool(&dl, CU_MEM_ALLOCATION_TYPE_PINNED, dp));
    OK(cuDeviceGetMemPool(&x, 0));
    EXPECT(x == dp);
    /* a host-pool allocation through the default host pool */
    CUdeviceptr a = 0;
    OK(cuMemAllocFromPoolAsync(&a, 128, hdef, s));
    EXPECT(attr(hdef, CU_MEMPOOL_ATTR_USED_MEM_CURRENT) == 128);
    OK(cuMemFreeAsync(a, s));
    OK(cuStreamSynchronize(s));
    EXPECT(attr(hdef, CU_MEMPOOL_ATTR_USED_MEM_CURRENT) == 0);
    OK(cuMemPoolDestroy(hp));       /* the host's current: its default again */
    OK(cuMemPoolDestroy(dp));
    OK(cuMemGetMemPool(&x, &hl, CU_MEM_ALLOCATION_TYPE_PINNED));
    EXPECT(x == hdef);
    OK(cuDeviceGetMemPool(&x, 0));
    EXPECT(x == def);
    EXPECT_RC(cuMemPoolDestroy(hdef), CUDA_ERROR_INVALID_VALUE);
    /* misuse */
    CUmemLocation bad = { CU_MEM_LOCATION_TYPE_DEVICE, 2 }, none = { (CUmemLocationType)9, 0 };
    EXPECT_RC(cuMemGetDefaultMemPool(&x, &bad, CU_MEM_ALLOCATION_TYPE_PINNED),
              CUDA_ERROR_INVALID_DEVICE);
    EXPECT_RC(cuMemGetDefaultMemPool(&x, &none, CU_MEM_ALLOCATION_TYPE_PINNED),
              CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(cuMemGetDefaultMemPool(&x, &dl, CU_MEM_ALLOCATION_TYPE_INVALID),
              CUDA_ERROR_INVALID_VALUE);
    OK(cuMemGetDefaultMemPool(&x, &dl, CU_MEM_ALLOCATION_TYPE_MANAGED));
    EXPECT(x != def);   /* managed pools: test_drv_mpool_managed.c */
    EXPECT_RC(cuMemSetMemPool(&dl, CU_MEM_ALLOCATION_TYPE_PINNED, NULL), CUDA_ERROR_INVALID_HANDLE);
}

/* A free captured into a graph: the pool gets the block back once, however
 * often the graph runs (a second launch is a double free in CUDA: Zinc
 * must not corrupt the pool). */
static void captured_free(CUstream s)
{
    CUmemoryPool p;
    CUmemPoolProps pp = device_props();
    OK(cuMemPoolCreate(&p, &pp));
    uint64_t thr = 1 << 20;
    OK(cuMemPoolSetAttribute(p, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &thr));
    CUdeviceptr a = 0, b = 0, c = 0;
    OK(cuMemAllocFromPoolAsync(&a, 2048, p, s));
    OK(cuStreamSynchronize(s));
    CUgraph g;
    CUgraphExec x;
    OK(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
    OK(cuMemFreeAsync(a, s));
    OK(cuStreamEndCapture(s, &g));
    EXPECT(attr(p, CU_MEMPOOL_ATTR_USED_MEM_CURRENT) == 2048);   /* not run yet */
    OK(cuGraphInstantiate(&x, g, 0));
    OK(cuGraphLaunch(x, s));
    OK(cuStreamSynchronize(s));
    EXPECT(attr(p, CU_MEMPOOL_ATTR_USED_MEM_CURRENT) == 0);
    EXPECT(attr(p, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT) == 2048);
    OK(cuGraphLaunch(x, s));
    OK(cuStreamSynchronize(s));
    EXPECT(attr(p, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT) == 2048);   /* once */
    OK(cuMemAllocFromPoolAsync(&b, 2048, p, s));
    OK(cuMemAllocFromPoolAsync(&c, 2048, p, s));
    EXPECT(b == a && c != b);
    OK(cuMemFreeAsync(b, s));
    OK(cuMemFreeAsync(c, s));
    OK(cuStreamSynchronize(s));
    OK(cuGraphExecDestroy(x));
    OK(cuGraphDestroy(g));
    OK(cuMemPoolDestroy(p));
}

int main(void)
{
    CUdevice dev = drv_test_primary_ctx(NULL);
    CUstream s;
    OK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    refused_props();
    explicit_pool(s);
    max_size(s);
    access(s);
    current_and_destroy(s);
    locations(s);
    captured_free(s);
    OK(cuStreamDestroy(s));
    OK(cuDevicePrimaryCtxRelease(dev));
    return drv_test_end("drv_pools");
}
