/* test_drv_config.c: the configuration and hint entry points of the
 * driver API that have no visible effect on a CPU device must still
 * validate their arguments and answer honestly: cache and shared-memory
 * bank configuration (context, function, library kernel), the persisting
 * L2 reset, the profiler switches, and occupancy with flags, whose answer
 * is checked against the limits the device reports (threads, blocks and
 * shared memory per multiprocessor).
 */
/* the bank-size entry points are deprecated, and tested as such */
#define CUDA_ENABLE_DEPRECATED 1
#include "drv_test.h"
#include <cudaProfiler.h>

#include <string.h>

/* one kernel with 1 KB of static shared memory */
static const char ptx[] =
    ".version 8.0\n"
    ".target sm_75\n"
    ".address_size 64\n"
    ".visible .entry k(.param .u64 out)\n"
    "{\n"
    "    .shared .align 4 .b8 buf[1024];\n"
    "    .reg .b32 %r<3>;\n"
    "    .reg .b64 %rd<3>;\n"
    "    mov.u32 %r1, %tid.x;\n"
    "    st.shared.u32 [buf], %r1;\n"
    "    ld.shared.u32 %r2, [buf];\n"
    "    ld.param.u64 %rd1, [out];\n"
    "    cvta.to.global.u64 %rd2, %rd1;\n"
    "    st.global.u32 [%rd2], %r2;\n"
    "    ret;\n"
    "}\n";

static int imin(int a, int b)
{
    return a < b ? a : b;
}

static void check_occupancy(CUdevice dev, CUfunction f)
{
    int threads_sm = 0, blocks_sm = 0, smem_sm = 0, static_smem = 0;
    OK(cuDeviceGetAttribute(&threads_sm, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, dev));
    OK(cuDeviceGetAttribute(&blocks_sm, CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR, dev));
    OK(cuDeviceGetAttribute(&smem_sm, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR,
                            dev));
    OK(cuFuncGetAttribute(&static_smem, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, f));
    EXPECT(static_smem == 1024);
    EXPECT(threads_sm >= 1024 && blocks_sm >= 1 && smem_sm >= 1024);
    const int sizes[] = {32, 96, 128, 256, 1024};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        int bs = sizes[i], n0 = -1, n1 = -1, plain = -1;
        OK(cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&n0, f, bs, 0,
                                                                CU_OCCUPANCY_DEFAULT));
        OK(cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
            &n1, f, bs, 0, CU_OCCUPANCY_DISABLE_CACHING_OVERRIDE));
        OK(cuOccupancyMaxActiveBlocksPerMultiprocessor(&plain, f, bs, 0));
        int want = imin(imin(threads_sm / ((bs + 31) / 32 * 32), blocks_sm),
                        smem_sm / static_smem);
        if (n0 != want || n1 != want || plain != want) {
            printf("FAIL occupancy for %d threads: %d / %d / %d, want %d\n", bs, n0, n1, plain,
                   want);
            drv_failures++;
        }
    }
    /* dynamic shared memory: what the SM has beside the static bytes and
     * the block's reserved 1 KiB (system use, as on sm_80+ GPUs) leaves
     * room for one block, a byte more for none */
    int n = -1, reserved = -1;
    OK(cuDeviceGetAttribute(&reserved, CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK, dev));
    EXPECT(reserved == 1024);
    size_t room = (size_t)(smem_sm - static_smem - reserved);
    OK(cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&n, f, 32, room, 0));
    EXPECT(n == 1);
    OK(cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&n, f, 32, room + 1, 0));
    EXPECT(n == 0);
    /* and the dynamic bytes each of 2 resident blocks may take: half the
     * SM less the reserved bytes, less the static ones */
    size_t avail = 0;
    OK(cuOccupancyAvailableDynamicSMemPerBlock(&avail, f, 2, 32));
    EXPECT(avail == (size_t)(smem_sm / 2 - reserved - static_smem));
    EXPECT_RC(cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&n, f, 32, 0, 2),
              CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(NULL, f, 32, 0, 0),
              CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&n, NULL, 32, 0, 0),
              CUDA_ERROR_INVALID_HANDLE);
}

static void check_configs(CUdevice dev, CUfunction f, CUkernel k)
{
    int cfg = -1;
    /* banks are 4 bytes whatever is asked (the setting has no effect) */
    OK(cuCtxSetSharedMemConfig(CU_SHARED_MEM_CONFIG_EIGHT_BYTE_BANK_SIZE));
    OK(cuCtxGetSharedMemConfig((CUsharedconfig *)&cfg));
    EXPECT(cfg == CU_SHARED_MEM_CONFIG_FOUR_BYTE_BANK_SIZE);
    EXPECT_RC(cuCtxSetSharedMemConfig((CUsharedconfig)3), CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(cuCtxGetSharedMemConfig(NULL), CUDA_ERROR_INVALID_VALUE);

    OK(cuFuncSetSharedMemConfig(f, CU_SHARED_MEM_CONFIG_DEFAULT_BANK_SIZE));
    EXPECT_RC(cuFuncSetSharedMemConfig(f, (CUsharedconfig)3), CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(cuFuncSetSharedMemConfig(NULL, CU_SHARED_MEM_CONFIG_DEFAULT_BANK_SIZE),
              CUDA_ERROR_INVALID_HANDLE);

    OK(cuFuncSetCacheConfig(f, CU_FUNC_CACHE_PREFER_SHARED));
    OK(cuFuncSetCacheConfig(f, CU_FUNC_CACHE_PREFER_EQUAL));
    EXPECT_RC(cuFuncSetCacheConfig(f, (CUfunc_cache)4), CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(cuFuncSetCacheConfig(NULL, CU_FUNC_CACHE_PREFER_L1), CUDA_ERROR_INVALID_HANDLE);

    OK(cuKernelSetCacheConfig(k, CU_FUNC_CACHE_PREFER_L1, dev));
    EXPECT_RC(cuKernelSetCacheConfig(k, (CUfunc_cache)4, dev), CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(cuKernelSetCacheConfig(k, CU_FUNC_CACHE_PREFER_L1, 7), CUDA_ERROR_INVALID_DEVICE);

    OK(cuCtxSetCacheConfig(CU_FUNC_CACHE_PREFER_SHARED));
    OK(cuCtxGetCacheConfig((CUfunc_cache *)&cfg));
    EXPECT(cfg == CU_FUNC_CACHE_PREFER_SHARED);
    OK(cuCtxSetCacheConfig(CU_FUNC_CACHE_PREFER_NONE));

    OK(cuCtxResetPersistingL2Cache());
    OK(cuProfilerStart());
    OK(cuProfilerStop());
}

int main(void)
{
    /* before cuInit nothing answers */
    EXPECT_RC(cuProfilerStart(), CUDA_ERROR_NOT_INITIALIZED);
    EXPECT_RC(cuProfilerStop(), CUDA_ERROR_NOT_INITIALIZED);
    CUcontext ctx;
    CUdevice dev = drv_test_primary_ctx(&ctx);
    CUmodule mod = NULL;
    CUfunction f = NULL;
    OK(cuModuleLoadData(&mod, ptx));
    OK(cuModuleGetFunction(&f, mod, "k"));
    CUlibrary lib = NULL;
    CUkernel k = NULL;
    OK(cuLibraryLoadData(&lib, ptx, NULL, NULL, 0, NULL, NULL, 0));
    OK(cuLibraryGetKernel(&k, lib, "k"));
    if (f && k) {
        check_occupancy(dev, f);
        check_configs(dev, f, k);
    }
    /* without a current context the context-wide ones refuse */
    OK(cuCtxSetCurrent(NULL));
    EXPECT_RC(cuCtxResetPersistingL2Cache(), CUDA_ERROR_INVALID_CONTEXT);
    int cfg;
    EXPECT_RC(cuCtxGetSharedMemConfig((CUsharedconfig *)&cfg), CUDA_ERROR_INVALID_CONTEXT);
    OK(cuCtxSetCurrent(ctx));
    OK(cuLibraryUnload(lib));
    OK(cuModuleUnload(mod));
    OK(cuDevicePrimaryCtxRelease(dev));
    return drv_test_end("drv_config");
}
