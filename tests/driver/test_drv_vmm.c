/* test_drv_vmm.c: virtual memory management through the driver API.
 *
 * Reserves a range, creates two physical allocations, maps them side by
 * side, sets access, has a kernel write the whole range, reads it back
 * with cuMemcpyDtoH and through a second mapping of the same allocation
 * (aliasing proves the mapping is physical), and checks granularity,
 * properties, retained handles, access queries, pointer lookups and the
 * device attribute. The kernel (PTX below) writes out[i] = i * 3 + v.
 */
#include <cuda.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "drv_test.h"

int main(void)
{
    CUdevice dev = drv_test_primary_ctx(NULL);
    int vmm = 0;
    OK(cuDeviceGetAttribute(&vmm, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, dev));
    EXPECT(vmm == 1);

    CUmemAllocationProp prop;
    memset(&prop, 0, sizeof prop);
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = 0;
    size_t gran = 0;
    OK(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED));
    EXPECT(gran >= 4096 && (gran & (gran - 1)) == 0);

    /* reserve 4 chunks; map two allocations into the first two */
    size_t chunk = gran, total = 4 * gran;
    CUdeviceptr base = 0;
    OK(cuMemAddressReserve(&base, total, 0, 0, 0));
    EXPECT(base != 0 && base % gran == 0);
    CUmemGenericAllocationHandle h0, h1;
    OK(cuMemCreate(&h0, chunk, &prop, 0));
    OK(cuMemCreate(&h1, chunk, &prop, 0));
    CUmemAllocationProp got;
    OK(cuMemGetAllocationPropertiesFromHandle(&got, h0));
    EXPECT(got.type == CU_MEM_ALLOCATION_TYPE_PINNED && got.location.id == 0);
    OK(cuMemMap(base, chunk, 0, h0, 0));
    OK(cuMemMap(base + chunk, chunk, 0, h1, 0));
    EXPECT_RC(cuMemMap(base, chunk, 0, h1, 0), CUDA_ERROR_INVALID_VALUE);   /* mapped: NVIDIA */
    /* the same allocation h0 again, at the fourth chunk: an alias */
    OK(cuMemMap(base + 3 * chunk, chunk, 0, h0, 0));
    unsigned long long acc = 99;
    CUmemLocation loc = { CU_MEM_LOCATION_TYPE_DEVICE, 0 };
    OK(cuMemGetAccess(&acc, &loc, base));
    EXPECT(acc == CU_MEM_ACCESS_FLAGS_PROT_NONE);
    CUmemAccessDesc ad = { { CU_MEM_LOCATION_TYPE_DEVICE, 0 }, CU_MEM_ACCESS_FLAGS_PROT_READWRITE };
    OK(cuMemSetAccess(base, 2 * chunk, &ad, 1));
    OK(cuMemSetAccess(base + 3 * chunk, chunk, &ad, 1));
    OK(cuMemGetAccess(&acc, &loc, base + chunk + 8));
    EXPECT(acc == CU_MEM_ACCESS_FLAGS_PROT_READWRITE);

    /* pointer lookups find the mappings; the hole is no memory */
    CUdeviceptr rb = 0;
    size_t rs = 0;
    OK(cuMemGetAddressRange(&rb, &rs, base + chunk + 100));
    EXPECT(rb == base + chunk && rs == chunk);
    EXPECT_RC(cuMemGetAddressRange(&rb, &rs, base + 2 * chunk + 4), CUDA_ERROR_NOT_FOUND);
    CUmemGenericAllocationHandle hr = 0;
    OK(cuMemRetainAllocationHandle(&hr, (void *)(uintptr_t)(base + chunk + 4)));
    EXPECT(hr == h1);
    OK(cuMemRelease(hr));

    /* a kernel writes both mapped chunks as one array */
    CUmodule mod;
    CUfunction fill;
    OK(cuModuleLoadData(&mod, drv_fill_ptx));
    OK(cuModuleGetFunction(&fill, mod, "fill"));
    unsigned n = (unsigned)(2 * chunk / 4), v = 7;
    void *args[] = { &base, &n, &v };
    OK(cuLaunchKernel(fill, (n + 255) / 256, 1, 1, 256, 1, 1, 0, NULL, args, NULL));
    OK(cuCtxSynchronize());
    static uint32_t host[2 << 20];
    EXPECT(2 * chunk <= sizeof host);
    OK(cuMemcpyDtoH(host, base, 2 * chunk));
    unsigned bad = 0;
    for (unsigned i = 0; i < n; i++)
        bad += host[i] != i * 3 + 7;
    EXPECT(bad == 0);
    /* the alias of h0 shows what the kernel wrote into the first chunk */
    memset(host, 0, chunk);
    OK(cuMemcpyDtoH(host, base + 3 * chunk, chunk));
    bad = 0;
    for (unsigned i = 0; i < chunk / 4; i++)
        bad += host[i] != i * 3 + 7;
    EXPECT(bad == 0);

    /* unmapping needs whole mappings; released handles live while mapped */
    EXPECT_RC(cuMemUnmap(base, chunk / 2), CUDA_ERROR_INVALID_VALUE);
    OK(cuMemRelease(h0));
    OK(cuMemRelease(h1));
    OK(cuMemcpyDtoH(host, base + chunk, 16));
    EXPECT(host[0] == (unsigned)(chunk / 4) * 3 + 7);
    EXPECT_RC(cuMemAddressFree(base, total), CUDA_ERROR_INVALID_VALUE);  /* still mapped */
    OK(cuMemUnmap(base, 2 * chunk));
    OK(cuMemUnmap(base + 3 * chunk, chunk));
    EXPECT_RC(cuMemGetAddressRange(&rb, &rs, base), CUDA_ERROR_NOT_FOUND);
    OK(cuMemAddressFree(base, total));
    EXPECT_RC(cuMemAddressFree(base, total), CUDA_ERROR_INVALID_VALUE);

    /* a reservation at a requested address, once that range is free */
    CUdeviceptr again = 0;
    OK(cuMemAddressReserve(&again, total, 0, base, 0));
    EXPECT(again == base);
    OK(cuMemAddressFree(again, total));
    OK(cuModuleUnload(mod));
    OK(cuDevicePrimaryCtxRelease(dev));
    return drv_test_end("test_drv_vmm");
}
