/* test_drv_range.c: cuMemRangeGetAttribute(s) on managed memory after
 * cuMemAdvise (13.0 location form and the 8.0 device form through
 * cuGetProcAddress) and prefetches: read-mostly, preferred location,
 * accessed-by, last prefetch location and the CUDA 12+ location type/id
 * attributes, each for sub-ranges with and without the advice (a value
 * holds only when every page of the range has it), the defaults of fresh
 * memory, and the misuse errors.
 */
#include <cuda.h>
#include <cudaTypedefs.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "drv_test.h"

enum { PG = 4096 };

static int get(CUmem_range_attribute a, CUdeviceptr p, size_t n)
{
    int v = 0x7777;
    OK(cuMemRangeGetAttribute(&v, 4, a, p, n));
    return v;
}

/* accessed-by as a set: bit 0 device 0, bit 1 the CPU; -1 if the answer
 * has anything else than those and CU_DEVICE_INVALID padding */
static int accessed_by(CUdeviceptr p, size_t n)
{
    int v[3] = { 9, 9, 9 }, set = 0;
    OK(cuMemRangeGetAttribute(v, sizeof v, CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY, p, n));
    bool pad = false;
    for (int i = 0; i < 3; i++) {
        if (v[i] == CU_DEVICE_INVALID)
            pad = true;
        else if (pad)
            return -1;      /* padding only at the end */
        else if (v[i] == 0)
            set |= 1;
        else if (v[i] == CU_DEVICE_CPU)
            set |= 2;
        else
            return -1;
    }
    return set;
}

static CUmemLocation dev0(void)
{
    CUmemLocation l = { CU_MEM_LOCATION_TYPE_DEVICE, 0 };
    return l;
}

static CUmemLocation host(void)
{
    CUmemLocation l = { CU_MEM_LOCATION_TYPE_HOST, 0 };
    return l;
}

static void defaults(CUdeviceptr m, size_t n)
{
    EXPECT(get(CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, m, n) == 0);
    EXPECT(get(CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION, m, n) == CU_DEVICE_INVALID);
    EXPECT(get(CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE, m, n) ==
           CU_MEM_LOCATION_TYPE_INVALID);
    EXPECT(get(CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION, m, n) == CU_DEVICE_INVALID);
    EXPECT(get(CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_TYPE, m, n) ==
           CU_MEM_LOCATION_TYPE_INVALID);
    EXPECT(accessed_by(m, n) == 0);
}

int main(void)
{
    CUdevice dev = drv_test_primary_ctx(NULL);
    CUstream s;
    OK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    CUdeviceptr m;
    OK(cuMemAllocManaged(&m, 4 * PG, CU_MEM_ATTACH_GLOBAL));
    defaults(m, 4 * PG);

    /* read-mostly on pages 0-1 */
    OK(cuMemAdvise(m, 2 * PG, CU_MEM_ADVISE_SET_READ_MOSTLY, dev0()));
    EXPECT(get(CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, m, 2 * PG) == 1);
    EXPECT(get(CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, m + 100, 50) == 1);
    EXPECT(get(CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, m, 4 * PG) == 0);
    EXPECT(get(CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, m + 2 * PG, PG) == 0);

    /* preferred: the device on all, then the CPU on page 3 (8.0 form) */
    OK(cuMemAdvise(m, 4 * PG, CU_MEM_ADVISE_SET_PREFERRED_LOCATION, dev0()));
    EXPECT(get(CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION, m, 4 * PG) == 0);
    PFN_cuMemAdvise_v8000 advise8 = NULL;
    CUdriverProcAddressQueryResult q;
    OK(cuGetProcAddress("cuMemAdvise", (void **)&advise8, 8000, 0, &q));
    EXPECT(advise8 != NULL);
    if (advise8) {
        OK(advise8(m + 3 * PG, PG, CU_MEM_ADVISE_SET_PREFERRED_LOCATION, CU_DEVICE_CPU));
        EXPECT_RC(advise8(m, PG, CU_MEM_ADVISE_SET_PREFERRED_LOCATION, 3),
                  CUDA_ERROR_INVALID_DEVICE);
    }
    EXPECT(get(CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION, m, 4 * PG) == CU_DEVICE_INVALID);
    EXPECT(get(CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE, m, 4 * PG) ==
           CU_MEM_LOCATION_TYPE_INVALID);
    EXPECT(get(CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION, m, 3 * PG) == 0);
    EXPECT(get(CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE, m, 3 * PG) ==
           CU_MEM_LOCATION_TYPE_DEVICE);
    EXPECT(get(CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_ID, m, 3 * PG) == 0);
    EXPECT(get(CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION, m + 3 * PG, PG) == CU_DEVICE_CPU);
    EXPECT(get(CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE, m + 3 * PG, PG) ==
           CU_MEM_LOCATION_TYPE_HOST);
    OK(cuMemAdvise(m + PG, PG, CU_MEM_ADVISE_UNSET_PREFERRED_LOCATION, dev0()));
    EXPECT(get(CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION, m, 2 * PG) == CU_DEVICE_INVALID);
    EXPECT(get(CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION, m, PG) == 0);

    /* accessed-by: the device on all, the CPU on the first half */
    OK(cuMemAdvise(m, 4 * PG, CU_MEM_ADVISE_SET_ACCESSED_BY, dev0()));
    OK(cuMemAdvise(m, 2 * PG, CU_MEM_ADVISE_SET_ACCESSED_BY, host()));
    EXPECT(accessed_by(m, 4 * PG) == 1);
    EXPECT(accessed_by(m, 2 * PG) == 3);
    int one = 9;
    OK(cuMemRangeGetAttribute(&one, 4, CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY, m, 2 * PG));
    EXPECT(one == 0 || one == CU_DEVICE_CPU);   /* only as many as fit */
    OK(cuMemAdvise(m, 4 * PG, CU_MEM_ADVISE_UNSET_ACCESSED_BY, dev0()));
    EXPECT(accessed_by(m, 2 * PG) == 2);
    EXPECT(accessed_by(m, 4 * PG) == 0);

    /* prefetches: the device on all, then the CPU on page 2 */
    OK(cuMemPrefetchAsync(m, 4 * PG, dev0(), 0, s));
    EXPECT(get(CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION, m, 4 * PG) == 0);
    OK(cuMemPrefetchAsync(m + 2 * PG, PG, host(), 0, s));
    EXPECT(get(CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION, m, 4 * PG) == CU_DEVICE_INVALID);
    EXPECT(get(CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION, m + 2 * PG, PG) == CU_DEVICE_CPU);
    EXPECT(get(CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_TYPE, m + 2 * PG, PG) ==
           CU_MEM_LOCATION_TYPE_HOST);
    EXPECT(get(CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_TYPE, m, 2 * PG) ==
           CU_MEM_LOCATION_TYPE_DEVICE);
    EXPECT(get(CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_ID, m, 2 * PG) == 0);
    CUmemLocation numa = { CU_MEM_LOCATION_TYPE_HOST_NUMA, 0 };
    OK(cuMemPrefetchAsync(m + 3 * PG, PG, numa, 0, s));
    EXPECT(get(CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_TYPE, m + 3 * PG, PG) ==
           CU_MEM_LOCATION_TYPE_HOST_NUMA);
    EXPECT(get(CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_ID, m + 3 * PG, PG) == 0);

    /* several at once agree with the single queries */
    int rm = 5, pref = 5, last = 5;
    void *data[3] = { &rm, &pref, &last };
    size_t sizes[3] = { 4, 4, 4 };
    CUmem_range_attribute attrs[3] = { CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY,
                                       CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION,
                                       CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION };
    OK(cuMemRangeGetAttributes(data, sizes, attrs, 3, m, PG));
    EXPECT(rm == 1 && pref == 0 && last == 0);
    OK(cuMemAdvise(m, 4 * PG, CU_MEM_ADVISE_UNSET_READ_MOSTLY, dev0()));
    EXPECT(get(CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, m, PG) == 0);

    /* misuse */
    int v;
    EXPECT_RC(cuMemRangeGetAttribute(&v, 8, CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, m, PG),
              CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(cuMemRangeGetAttribute(&v, 6, CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY, m, PG),
              CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(cuMemRangeGetAttribute(&v, 4, (CUmem_range_attribute)99, m, PG),
              CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(cuMemRangeGetAttribute(NULL, 4, CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, m, PG),
              CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(cuMemRangeGetAttribute(&v, 4, CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, m, 5 * PG),
              CUDA_ERROR_INVALID_VALUE);   /* past the allocation */
    EXPECT_RC(cuMemRangeGetAttribute(&v, 4, CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, m, 0),
              CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(cuMemRangeGetAttributes(data, sizes, attrs, 0, m, PG), CUDA_ERROR_INVALID_VALUE);
    CUdeviceptr d;
    OK(cuMemAlloc(&d, PG));
    EXPECT_RC(cuMemRangeGetAttribute(&v, 4, CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, d, PG),
              CUDA_ERROR_INVALID_VALUE);   /* not managed */
    EXPECT_RC(cuMemAdvise(d, PG, CU_MEM_ADVISE_SET_READ_MOSTLY, dev0()), CUDA_ERROR_INVALID_VALUE);
    CUmemLocation bad = { CU_MEM_LOCATION_TYPE_DEVICE, 4 };
    EXPECT_RC(cuMemAdvise(m, PG, CU_MEM_ADVISE_SET_PREFERRED_LOCATION, bad),
              CUDA_ERROR_INVALID_VALUE);   /* NVIDIA's driver: not INVALID_DEVICE */
    EXPECT_RC(cuMemAdvise(m, PG, (CUmem_advise)0, dev0()), CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(cuMemPrefetchAsync(m, PG, bad, 0, s), CUDA_ERROR_INVALID_DEVICE);
    OK(cuMemFree(d));

    /* freed and allocated again: fresh memory has no advice */
    OK(cuStreamSynchronize(s));
    OK(cuMemFree(m));
    OK(cuMemAllocManaged(&m, 4 * PG, CU_MEM_ATTACH_GLOBAL));
    defaults(m, 4 * PG);
    OK(cuMemFree(m));
    OK(cuStreamDestroy(s));
    OK(cuDevicePrimaryCtxRelease(dev));
    return drv_test_end("drv_range");
}
