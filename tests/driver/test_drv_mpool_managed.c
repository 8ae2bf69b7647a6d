/* test_drv_mpool_managed: CUDA 13's managed memory pools. The default
 * managed pool of each location (none, device 0, the host) and the current
 * ones; cuMemPoolCreate with CU_MEM_ALLOCATION_TYPE_MANAGED; memory from
 * such a pool that a kernel writes and the host then reads and writes in
 * place (no copy), checked against a CPU reference; the misuse errors of
 * cuMemGet/SetMemPool and cuMemPoolCreate. */
#include "drv_test.h"

#include <string.h>

#define N 4096

static CUmemLocation loc(CUmemLocationType t, int id)
{
    CUmemLocation l;
    memset(&l, 0, sizeof l);
    l.type = t;
    l.id = id;
    return l;
}

static void defaults(void)
{
    CUmemoryPool none = NULL, dev = NULL, host = NULL, pinned = NULL, cur = NULL;
    CUmemLocation l = loc(CU_MEM_LOCATION_TYPE_NONE, 0);
    OK(cuMemGetDefaultMemPool(&none, &l, CU_MEM_ALLOCATION_TYPE_MANAGED));
    OK(cuMemGetMemPool(&cur, &l, CU_MEM_ALLOCATION_TYPE_MANAGED));
    EXPECT(none && cur == none);
    /* no preferred location: managed pools only */
    EXPECT_RC(cuMemGetDefaultMemPool(&pinned, &l, CU_MEM_ALLOCATION_TYPE_PINNED),
              CUDA_ERROR_INVALID_VALUE);
    l = loc(CU_MEM_LOCATION_TYPE_DEVICE, 0);
    OK(cuMemGetDefaultMemPool(&dev, &l, CU_MEM_ALLOCATION_TYPE_MANAGED));
    OK(cuMemGetDefaultMemPool(&pinned, &l, CU_MEM_ALLOCATION_TYPE_PINNED));
    CUmemoryPool devdef = NULL;
    OK(cuDeviceGetDefaultMemPool(&devdef, 0));
    EXPECT(pinned == devdef && dev != pinned && dev != none);
    l = loc(CU_MEM_LOCATION_TYPE_HOST, 0);
    OK(cuMemGetDefaultMemPool(&host, &l, CU_MEM_ALLOCATION_TYPE_MANAGED));
    EXPECT(host && host != dev && host != none);
    l = loc(CU_MEM_LOCATION_TYPE_DEVICE, 1);
    EXPECT_RC(cuMemGetDefaultMemPool(&cur, &l, CU_MEM_ALLOCATION_TYPE_MANAGED),
              CUDA_ERROR_INVALID_VALUE);   /* NVIDIA's driver: not INVALID_DEVICE */
    l = loc(CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT, 0);
    EXPECT_RC(cuMemGetMemPool(&cur, &l, CU_MEM_ALLOCATION_TYPE_MANAGED),
              CUDA_ERROR_NOT_SUPPORTED);
    l = loc(CU_MEM_LOCATION_TYPE_NONE, 0);
    EXPECT_RC(cuMemGetMemPool(&cur, &l, CU_MEM_ALLOCATION_TYPE_INVALID),
              CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(cuMemGetMemPool(NULL, &l, CU_MEM_ALLOCATION_TYPE_MANAGED),
              CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(cuMemGetMemPool(&cur, NULL, CU_MEM_ALLOCATION_TYPE_MANAGED),
              CUDA_ERROR_INVALID_VALUE);
    /* the default managed pool cannot be destroyed */
    EXPECT_RC(cuMemPoolDestroy(none), CUDA_ERROR_INVALID_VALUE);
}

static CUmemoryPool create(CUmemAllocationType type, CUmemLocation l, CUresult want)
{
    CUmemPoolProps p;
    memset(&p, 0, sizeof p);
    p.allocType = type;
    p.location = l;
    CUmemoryPool pool = NULL;
    EXPECT_RC(cuMemPoolCreate(&pool, &p), want);
    return pool;
}

int main(void)
{
    drv_test_primary_ctx(NULL);
    defaults();

    /* creation: no preferred location only for managed pools, no IPC */
    create(CU_MEM_ALLOCATION_TYPE_PINNED, loc(CU_MEM_LOCATION_TYPE_NONE, 0),
           CUDA_ERROR_INVALID_VALUE);
    CUmemPoolProps ipc;
    memset(&ipc, 0, sizeof ipc);
    ipc.allocType = CU_MEM_ALLOCATION_TYPE_MANAGED;
    ipc.location = loc(CU_MEM_LOCATION_TYPE_DEVICE, 0);
    ipc.handleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
    CUmemoryPool bad = NULL;
    EXPECT_RC(cuMemPoolCreate(&bad, &ipc), CUDA_ERROR_INVALID_VALUE);
    CUmemoryPool mp = create(CU_MEM_ALLOCATION_TYPE_MANAGED,
                             loc(CU_MEM_LOCATION_TYPE_NONE, 0), CUDA_SUCCESS);
    CUmemoryPool mdev = create(CU_MEM_ALLOCATION_TYPE_MANAGED,
                               loc(CU_MEM_LOCATION_TYPE_DEVICE, 0), CUDA_SUCCESS);

    /* current pools: location and type must match the pool's */
    CUmemLocation none = loc(CU_MEM_LOCATION_TYPE_NONE, 0);
    CUmemLocation dev = loc(CU_MEM_LOCATION_TYPE_DEVICE, 0);
    CUmemoryPool cur = NULL;
    OK(cuMemSetMemPool(&none, CU_MEM_ALLOCATION_TYPE_MANAGED, mp));
    OK(cuMemGetMemPool(&cur, &none, CU_MEM_ALLOCATION_TYPE_MANAGED));
    EXPECT(cur == mp);
    EXPECT_RC(cuMemSetMemPool(&dev, CU_MEM_ALLOCATION_TYPE_MANAGED, mp),
              CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(cuMemSetMemPool(&dev, CU_MEM_ALLOCATION_TYPE_PINNED, mdev),
              CUDA_ERROR_INVALID_VALUE);
    /* NVIDIA's driver takes a managed pool here: the device's current
     * managed pool, the pinned one untouched (checked below) */
    CUmemoryPool mcur = NULL;
    OK(cuMemGetMemPool(&mcur, &dev, CU_MEM_ALLOCATION_TYPE_MANAGED));
    EXPECT(mcur != mdev);
    OK(cuDeviceSetMemPool(0, mdev));
    OK(cuMemGetMemPool(&mcur, &dev, CU_MEM_ALLOCATION_TYPE_MANAGED));
    EXPECT(mcur == mdev);
    OK(cuMemSetMemPool(&dev, CU_MEM_ALLOCATION_TYPE_MANAGED, mdev));
    OK(cuMemGetMemPool(&cur, &dev, CU_MEM_ALLOCATION_TYPE_MANAGED));
    EXPECT(cur == mdev);
    CUmemoryPool devcur = NULL;   /* the pinned current pool is untouched */
    OK(cuDeviceGetMemPool(&devcur, 0));
    EXPECT(devcur != mdev);

    /* managed memory is reached as managed memory (both the host and the
     * device read and write it, below), not through the pool's access
     * map: NVIDIA's driver reports PROT_NONE for both (H200) */
    CUmemAccess_flags fl = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    CUmemLocation host = loc(CU_MEM_LOCATION_TYPE_HOST, 0);
    OK(cuMemPoolGetAccess(&fl, mp, &host));
    EXPECT(fl == CU_MEM_ACCESS_FLAGS_PROT_NONE);
    fl = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    OK(cuMemPoolGetAccess(&fl, mp, &dev));
    EXPECT(fl == CU_MEM_ACCESS_FLAGS_PROT_NONE);

    /* a kernel writes, the host reads and writes in place, a kernel again */
    CUmodule mod;
    CUfunction fill;
    OK(cuModuleLoadData(&mod, drv_fill_ptx));
    OK(cuModuleGetFunction(&fill, mod, "fill"));
    CUstream s;
    OK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    CUdeviceptr d = 0;
    OK(cuMemAllocFromPoolAsync(&d, N * sizeof(unsigned), mp, s));
    OK(cuStreamSynchronize(s));
    unsigned *h = (unsigned *)(uintptr_t)d;
    if (d) {
        unsigned managed = 0;
        OK(cuPointerGetAttribute(&managed, CU_POINTER_ATTRIBUTE_IS_MANAGED, d));
        EXPECT(managed == 1);
        uint64_t used = 0;
        OK(cuMemPoolGetAttribute(mp, CU_MEMPOOL_ATTR_USED_MEM_CURRENT, &used));
        EXPECT(used == N * sizeof(unsigned));
        memset(h, 0xa5, N * sizeof(unsigned));     /* poison, by the host */
        unsigned n = N, v = 11;
        void *args[] = { &d, &n, &v };
        OK(cuLaunchKernel(fill, N / 128, 1, 1, 128, 1, 1, 0, s, args, NULL));
        OK(cuStreamSynchronize(s));
        int bad_words = 0;
        for (unsigned i = 0; i < N; i++)
            bad_words += h[i] != i * 3 + 11;
        EXPECT(bad_words == 0);
        h[7] = 0xdeadbeefu;                        /* the host writes in place */
        unsigned back = 0;
        OK(cuMemcpyDtoH(&back, d + 7 * sizeof(unsigned), sizeof back));
        EXPECT(back == 0xdeadbeefu);
        OK(cuMemFreeAsync(d, s));
        OK(cuStreamSynchronize(s));
        OK(cuMemPoolGetAttribute(mp, CU_MEMPOOL_ATTR_USED_MEM_CURRENT, &used));
        EXPECT(used == 0);
    }

    /* the current pool, through cuMemAllocFromPoolAsync of the current one */
    CUdeviceptr d2 = 0;
    OK(cuMemGetMemPool(&cur, &dev, CU_MEM_ALLOCATION_TYPE_MANAGED));
    OK(cuMemAllocFromPoolAsync(&d2, 256, cur, s));
    OK(cuStreamSynchronize(s));
    if (d2) {
        ((volatile unsigned char *)(uintptr_t)d2)[255] = 1;    /* host-touchable */
        OK(cuMemFreeAsync(d2, s));
    }
    OK(cuStreamSynchronize(s));

    /* destroying a current pool makes the default current again */
    CUmemoryPool def = NULL;
    OK(cuMemGetDefaultMemPool(&def, &dev, CU_MEM_ALLOCATION_TYPE_MANAGED));
    OK(cuMemPoolDestroy(mdev));
    OK(cuMemGetMemPool(&cur, &dev, CU_MEM_ALLOCATION_TYPE_MANAGED));
    EXPECT(cur == def);
    OK(cuMemPoolDestroy(mp));
    EXPECT_RC(cuMemSetMemPool(&none, CU_MEM_ALLOCATION_TYPE_MANAGED, mp),
              CUDA_ERROR_INVALID_HANDLE);

    OK(cuStreamDestroy(s));
    OK(cuModuleUnload(mod));
    OK(cuDevicePrimaryCtxRelease(0));
    return drv_test_end("drv_mpool_managed");
}
