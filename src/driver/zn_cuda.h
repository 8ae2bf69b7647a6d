/* zn_cuda.h: Zinc's own declarations of the CUDA driver ABI it implements.
 *
 * Facts of a public ABI (type sizes, enum numbers, struct layouts, entry
 * point signatures), written in Zinc's words so that Zinc builds without the
 * CUDA toolkit. Handles point at Zinc's own structs (zn_drv.h); a CUkernel
 * and a CUfunction are the same object, so either may be passed where the
 * other is expected (cudart passes CUkernel handles to cuLaunchKernel).
 */
#ifndef ZN_CUDA_H
#define ZN_CUDA_H

#include <stddef.h>
#include <stdint.h>

/* Marks the entry points that libcuda.so.1 exports; everything else is
 * hidden by the build's default visibility. */
#define ZN_API __attribute__((visibility("default")))

typedef enum CUresult {
#define R(name, value, desc) name = value,
#include "zn_cuda_errors.def"
#undef R
} CUresult;

typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct zn_ctx *CUcontext;
typedef struct zn_module *CUmodule;
typedef struct zn_library *CUlibrary;
typedef struct zn_func *CUfunction;
typedef struct zn_func *CUkernel;
typedef struct zn_stream *CUstream;
typedef struct zn_event *CUevent;
typedef void *CUarray;
typedef void *CUmemoryPool;

#define ZN_CU_STREAM_LEGACY ((CUstream)0x1)
#define ZN_CU_STREAM_PER_THREAD ((CUstream)0x2)

typedef struct CUuuid { char bytes[16]; } CUuuid;

typedef enum CUdevice_attribute {
#define A(num, name, value) CU_DEVICE_ATTRIBUTE_##name = num,
#include "zn_drv_attrs.def"
#undef A
    CU_DEVICE_ATTRIBUTE_MAX
} CUdevice_attribute;

typedef enum CUpointer_attribute {
    CU_POINTER_ATTRIBUTE_CONTEXT = 1,
    CU_POINTER_ATTRIBUTE_MEMORY_TYPE = 2,
    CU_POINTER_ATTRIBUTE_DEVICE_POINTER = 3,
    CU_POINTER_ATTRIBUTE_HOST_POINTER = 4,
    CU_POINTER_ATTRIBUTE_P2P_TOKENS = 5,
    CU_POINTER_ATTRIBUTE_SYNC_MEMOPS = 6,
    CU_POINTER_ATTRIBUTE_BUFFER_ID = 7,
    CU_POINTER_ATTRIBUTE_IS_MANAGED = 8,
    CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL = 9,
    CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE = 10,
    CU_POINTER_ATTRIBUTE_RANGE_START_ADDR = 11,
    CU_POINTER_ATTRIBUTE_RANGE_SIZE = 12,
    CU_POINTER_ATTRIBUTE_MAPPED = 13,
    CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES = 14,
    CU_POINTER_ATTRIBUTE_IS_GPU_DIRECT_RDMA_CAPABLE = 15,
    CU_POINTER_ATTRIBUTE_ACCESS_FLAGS = 16,
    CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE = 17,
    CU_POINTER_ATTRIBUTE_MAPPING_SIZE = 18,
    CU_POINTER_ATTRIBUTE_MAPPING_BASE_ADDR = 19,
    CU_POINTER_ATTRIBUTE_MEMORY_BLOCK_ID = 20
} CUpointer_attribute;

typedef enum CUmemorytype {
    CU_MEMORYTYPE_HOST = 1,
    CU_MEMORYTYPE_DEVICE = 2,
    CU_MEMORYTYPE_ARRAY = 3,
    CU_MEMORYTYPE_UNIFIED = 4
} CUmemorytype;

typedef enum CUfunction_attribute {
    CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 0,
    CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES = 1,
    CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES = 2,
    CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES = 3,
    CU_FUNC_ATTRIBUTE_NUM_REGS = 4,
    CU_FUNC_ATTRIBUTE_PTX_VERSION = 5,
    CU_FUNC_ATTRIBUTE_BINARY_VERSION = 6,
    CU_FUNC_ATTRIBUTE_CACHE_MODE_CA = 7,
    CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8,
    CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT = 9,
    CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET = 10,
    CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH = 11,
    CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT = 12,
    CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH = 13,
    CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED = 14,
    CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE = 15,
    CU_FUNC_ATTRIBUTE_MAX
} CUfunction_attribute;

typedef enum CUlimit {
    CU_LIMIT_STACK_SIZE = 0,
    CU_LIMIT_PRINTF_FIFO_SIZE = 1,
    CU_LIMIT_MALLOC_HEAP_SIZE = 2,
    CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH = 3,
    CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT = 4,
    CU_LIMIT_MAX_L2_FETCH_GRANULARITY = 5,
    CU_LIMIT_PERSISTING_L2_CACHE_SIZE = 6,
    CU_LIMIT_SHMEM_SIZE = 7,
    CU_LIMIT_CIG_ENABLED = 8,
    CU_LIMIT_CIG_SHMEM_FALLBACK_ENABLED = 9,
    CU_LIMIT_MAX
} CUlimit;

typedef enum CUjit_option {
    CU_JIT_MAX_REGISTERS = 0,
    CU_JIT_THREADS_PER_BLOCK = 1,
    CU_JIT_WALL_TIME = 2,
    CU_JIT_INFO_LOG_BUFFER = 3,
    CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4,
    CU_JIT_ERROR_LOG_BUFFER = 5,
    CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6,
    CU_JIT_OPTIMIZATION_LEVEL = 7,
    CU_JIT_LOG_VERBOSE = 12,
    CU_JIT_NUM_OPTIONS = 35
} CUjit_option;

/* cuLink* (zn_drv_link.c) */
typedef enum CUjitInputType {
    CU_JIT_INPUT_CUBIN = 0,
    CU_JIT_INPUT_PTX = 1,
    CU_JIT_INPUT_FATBINARY = 2,
    CU_JIT_INPUT_OBJECT = 3,
    CU_JIT_INPUT_LIBRARY = 4,
    CU_JIT_INPUT_NVVM = 5,
    CU_JIT_NUM_INPUT_TYPES = 6
} CUjitInputType;
typedef struct CUlinkState_st *CUlinkState;

typedef enum CUlibraryOption {
    CU_LIBRARY_HOST_UNIVERSAL_FUNCTION_AND_DATA_TABLE = 0,
    CU_LIBRARY_BINARY_IS_PRESERVED = 1
} CUlibraryOption;

typedef enum CUlaunchAttributeID {
    CU_LAUNCH_ATTRIBUTE_IGNORE = 0,
    CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW = 1,
    CU_LAUNCH_ATTRIBUTE_COOPERATIVE = 2,
    CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY = 3,
    CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION = 4,
    CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE = 5,
    CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION = 6,
    CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_EVENT = 7,
    CU_LAUNCH_ATTRIBUTE_PRIORITY = 8,
    CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP = 9,
    CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN = 10,
    CU_LAUNCH_ATTRIBUTE_PREFERRED_CLUSTER_DIMENSION = 11,
    CU_LAUNCH_ATTRIBUTE_LAUNCH_COMPLETION_EVENT = 12,
    CU_LAUNCH_ATTRIBUTE_DEVICE_UPDATABLE_KERNEL_NODE = 13,
    CU_LAUNCH_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT = 14,
    CU_LAUNCH_ATTRIBUTE_NVLINK_UTIL_CENTRIC_SCHEDULING = 16
} CUlaunchAttributeID;

/* 64-byte value union; only the members Zinc reads are named. */
typedef union CUlaunchAttributeValue {
    char pad[64];
    int cooperative;
    struct { unsigned int x, y, z; } clusterDim;
    int priority;
} CUlaunchAttributeValue;

typedef struct CUlaunchAttribute {
    CUlaunchAttributeID id;
    char pad[8 - sizeof(CUlaunchAttributeID)];
    CUlaunchAttributeValue value;
} CUlaunchAttribute;

typedef struct CUlaunchConfig {
    unsigned int gridDimX, gridDimY, gridDimZ;
    unsigned int blockDimX, blockDimY, blockDimZ;
    unsigned int sharedMemBytes;
    CUstream hStream;
    CUlaunchAttribute *attrs;
    unsigned int numAttrs;
} CUlaunchConfig;

#define ZN_CU_LAUNCH_PARAM_END ((void *)0)
#define ZN_CU_LAUNCH_PARAM_BUFFER_POINTER ((void *)1)
#define ZN_CU_LAUNCH_PARAM_BUFFER_SIZE ((void *)2)

typedef struct CUDA_MEMCPY2D {
    size_t srcXInBytes, srcY;
    CUmemorytype srcMemoryType;
    const void *srcHost;
    CUdeviceptr srcDevice;
    CUarray srcArray;
    size_t srcPitch;
    size_t dstXInBytes, dstY;
    CUmemorytype dstMemoryType;
    void *dstHost;
    CUdeviceptr dstDevice;
    CUarray dstArray;
    size_t dstPitch;
    size_t WidthInBytes, Height;
} CUDA_MEMCPY2D;

typedef struct CUDA_MEMCPY3D {
    size_t srcXInBytes, srcY, srcZ, srcLOD;
    CUmemorytype srcMemoryType;
    const void *srcHost;
    CUdeviceptr srcDevice;
    CUarray srcArray;
    void *reserved0;
    size_t srcPitch, srcHeight;
    size_t dstXInBytes, dstY, dstZ, dstLOD;
    CUmemorytype dstMemoryType;
    void *dstHost;
    CUdeviceptr dstDevice;
    CUarray dstArray;
    void *reserved1;
    size_t dstPitch, dstHeight;
    size_t WidthInBytes, Height, Depth;
} CUDA_MEMCPY3D;

typedef struct CUdevprop {
    int maxThreadsPerBlock;
    int maxThreadsDim[3];
    int maxGridSize[3];
    int sharedMemPerBlock;
    int totalConstantMemory;
    int SIMDWidth;
    int memPitch;
    int regsPerBlock;
    int clockRate;
    int textureAlign;
} CUdevprop;

/* execution affinity (cuCtxCreate_v3): Zinc's device supports none */
typedef struct CUexecAffinityParam { int type; int smCount; } CUexecAffinityParam;
#define ZN_CU_EXEC_AFFINITY_TYPE_SM_COUNT 0
/* green contexts (zn_drv_green.c): SM partitions, an SM being one of the
 * executor's workers */
typedef struct zn_green *CUgreenCtx;
typedef struct zn_res_desc *CUdevResourceDesc;
#define ZN_CU_DEV_RESOURCE_TYPE_SM 1
#define ZN_CU_GREEN_CTX_DEFAULT_STREAM 1
/* CUdevResource (RESOURCE_ABI_VERSION 1): a type, 92 bytes the driver keeps
 * for itself, then the SM fields in a 48-byte union */
typedef struct CUdevResource {
    int type;
    unsigned char internal[92];
    union {
        struct { unsigned int smCount, minSmPartitionSize, smCoscheduledAlignment; } sm;
        unsigned char oversize[48];
    };
} CUdevResource;
/* cuLaunchCooperativeKernelMultiDevice's list entries */
typedef struct CUDA_LAUNCH_PARAMS {
    CUfunction function;
    unsigned int gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ;
    unsigned int sharedMemBytes;
    CUstream hStream;
    void **kernelParams;
} CUDA_LAUNCH_PARAMS;
typedef enum CUfunctionLoadingState {
    CU_FUNCTION_LOADING_STATE_UNLOADED = 0,
    CU_FUNCTION_LOADING_STATE_LOADED = 1,
} CUfunctionLoadingState;

typedef struct CUctxCreateParams {
    void *execAffinityParams;
    int numExecAffinityParams;
    void *cigParams;
} CUctxCreateParams;

typedef struct CUmemLocation { int type; int id; } CUmemLocation;

typedef void (*CUhostFn)(void *userData);
typedef void (*CUstreamCallback)(CUstream hStream, CUresult status, void *userData);
typedef size_t (*CUoccupancyB2DSize)(int blockSize);

/* Flags and constants used by the implementation. */
enum {
    ZN_CU_CTX_SCHED_MASK = 0x07, ZN_CU_CTX_MAP_HOST = 0x08,
    ZN_CU_CTX_FLAGS_MASK = 0xFF,
    ZN_CU_STREAM_NON_BLOCKING = 0x1,
    ZN_CU_EVENT_DISABLE_TIMING = 0x2,
    ZN_CU_MEMHOSTALLOC_DEVICEMAP = 0x02,
    ZN_CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM = 0x2,
    ZN_CU_GET_PROC_ADDRESS_FLAGS_MASK = 0x3, /* DEFAULT | LEGACY_STREAM | PER_THREAD */
    ZN_CU_PROC_SUCCESS = 0, ZN_CU_PROC_SYMBOL_NOT_FOUND = 1,
    ZN_CU_PROC_VERSION_NOT_SUFFICIENT = 2,
    ZN_CU_MODULE_EAGER_LOADING = 1,
    ZN_CU_DEVICE_P2P_ATTRIBUTE_MAX = 5
};

/* ---- entry points (signatures of the ABI version named) ---------------- */
/* init, version, errors, proc addresses */
ZN_API CUresult cuInit(unsigned int flags);
ZN_API CUresult cuDriverGetVersion(int *version);
ZN_API CUresult cuGetErrorName(CUresult error, const char **str);
ZN_API CUresult cuGetErrorString(CUresult error, const char **str);
ZN_API CUresult cuGetProcAddress(const char *symbol, void **pfn, int cudaVersion,
                                 uint64_t flags);
ZN_API CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int cudaVersion,
                                    uint64_t flags, int *symbolStatus);
ZN_API CUresult cuGetExportTable(const void **table, const CUuuid *id);
ZN_API CUresult cuProfilerStart(void);
ZN_API CUresult cuProfilerStop(void);

/* devices */
ZN_API CUresult cuDeviceGet(CUdevice *dev, int ordinal);
ZN_API CUresult cuDeviceGetCount(int *count);
ZN_API CUresult cuDeviceGetName(char *name, int len, CUdevice dev);
ZN_API CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice dev);
ZN_API CUresult cuDeviceGetAttribute(int *pi, CUdevice_attribute attrib, CUdevice dev);
ZN_API CUresult cuDeviceGetUuid(CUuuid *uuid, CUdevice dev);
ZN_API CUresult cuDeviceGetUuid_v2(CUuuid *uuid, CUdevice dev);
ZN_API CUresult cuDeviceGetLuid(char *luid, unsigned int *mask, CUdevice dev);
ZN_API CUresult cuDeviceGetPCIBusId(char *id, int len, CUdevice dev);
ZN_API CUresult cuDeviceGetByPCIBusId(CUdevice *dev, const char *id);
ZN_API CUresult cuDeviceGetProperties(CUdevprop *prop, CUdevice dev);
ZN_API CUresult cuDeviceComputeCapability(int *major, int *minor, CUdevice dev);
ZN_API CUresult cuDeviceCanAccessPeer(int *can, CUdevice dev, CUdevice peer);
ZN_API CUresult cuDeviceGetP2PAttribute(int *value, int attrib, CUdevice src, CUdevice dst);

/* contexts */
ZN_API CUresult cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev);
ZN_API CUresult cuDevicePrimaryCtxRelease(CUdevice dev);
ZN_API CUresult cuDevicePrimaryCtxRelease_v2(CUdevice dev);
ZN_API CUresult cuDevicePrimaryCtxSetFlags(CUdevice dev, unsigned int flags);
ZN_API CUresult cuDevicePrimaryCtxSetFlags_v2(CUdevice dev, unsigned int flags);
ZN_API CUresult cuDevicePrimaryCtxGetState(CUdevice dev, unsigned int *flags, int *active);
ZN_API CUresult cuDevicePrimaryCtxReset(CUdevice dev);
ZN_API CUresult cuDevicePrimaryCtxReset_v2(CUdevice dev);
ZN_API CUresult cuCtxCreate_v2(CUcontext *pctx, unsigned int flags, CUdevice dev);
ZN_API CUresult cuCtxCreate_v4(CUcontext *pctx, CUctxCreateParams *params,
                               unsigned int flags, CUdevice dev);
ZN_API CUresult cuCtxDestroy_v2(CUcontext ctx);
ZN_API CUresult cuCtxCreate_v3(CUcontext *pctx, CUexecAffinityParam *params, int n,
                               unsigned int flags, CUdevice dev);
ZN_API CUresult cuCtxGetExecAffinity(CUexecAffinityParam *p, int type);
ZN_API CUresult cuDeviceGetExecAffinitySupport(int *pi, int type, CUdevice dev);
ZN_API CUresult cuCtxGetCurrent(CUcontext *pctx);
ZN_API CUresult cuCtxSetCurrent(CUcontext ctx);
ZN_API CUresult cuCtxPushCurrent_v2(CUcontext ctx);
ZN_API CUresult cuCtxPopCurrent_v2(CUcontext *pctx);
ZN_API CUresult cuCtxGetDevice(CUdevice *dev);
ZN_API CUresult cuCtxGetDevice_v2(CUdevice *dev, CUcontext ctx);
ZN_API CUresult cuCtxSynchronize(void);
ZN_API CUresult cuCtxSynchronize_v2(CUcontext ctx);
ZN_API CUresult cuCtxGetApiVersion(CUcontext ctx, unsigned int *version);
ZN_API CUresult cuCtxGetFlags(unsigned int *flags);
ZN_API CUresult cuCtxSetFlags(unsigned int flags);
ZN_API CUresult cuCtxGetId(CUcontext ctx, unsigned long long *id);
ZN_API CUresult cuCtxGetLimit(size_t *value, CUlimit limit);
ZN_API CUresult cuCtxSetLimit(CUlimit limit, size_t value);
ZN_API CUresult cuCtxGetCacheConfig(int *config);
ZN_API CUresult cuCtxSetCacheConfig(int config);
ZN_API CUresult cuCtxGetSharedMemConfig(int *config);
ZN_API CUresult cuCtxSetSharedMemConfig(int config);
ZN_API CUresult cuCtxGetStreamPriorityRange(int *least, int *greatest);
ZN_API CUresult cuCtxResetPersistingL2Cache(void);

/* memory */
ZN_API CUresult cuMemGetInfo_v2(size_t *free_bytes, size_t *total);
ZN_API CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytes);
ZN_API CUresult cuMemAllocPitch_v2(CUdeviceptr *dptr, size_t *pitch, size_t width,
                                   size_t height, unsigned int elem_size);
ZN_API CUresult cuMemFree_v2(CUdeviceptr dptr);
ZN_API CUresult cuMemGetAddressRange_v2(CUdeviceptr *base, size_t *size, CUdeviceptr dptr);
ZN_API CUresult cuMemAllocHost_v2(void **pp, size_t bytes);
ZN_API CUresult cuMemHostAlloc(void **pp, size_t bytes, unsigned int flags);
ZN_API CUresult cuMemFreeHost(void *p);
ZN_API CUresult cuMemHostGetDevicePointer_v2(CUdeviceptr *dptr, void *p, unsigned int flags);
ZN_API CUresult cuMemHostGetFlags(unsigned int *flags, void *p);
ZN_API CUresult cuMemHostRegister_v2(void *p, size_t bytes, unsigned int flags);
ZN_API CUresult cuMemHostUnregister(void *p);
ZN_API CUresult cuMemAllocManaged(CUdeviceptr *dptr, size_t bytes, unsigned int flags);
ZN_API CUresult cuPointerGetAttribute(void *data, CUpointer_attribute attr, CUdeviceptr ptr);
ZN_API CUresult cuPointerSetAttribute(const void *value, CUpointer_attribute attr,
                                      CUdeviceptr ptr);
ZN_API CUresult cuPointerGetAttributes(unsigned int n, CUpointer_attribute *attrs,
                                       void **data, CUdeviceptr ptr);
ZN_API CUresult cuMemAdvise(CUdeviceptr p, size_t n, int advice, CUdevice dev);
ZN_API CUresult cuMemAdvise_v2(CUdeviceptr p, size_t n, int advice, CUmemLocation loc);
ZN_API CUresult cuMemPrefetchAsync(CUdeviceptr p, size_t n, CUdevice dev, CUstream s);
ZN_API CUresult cuMemPrefetchAsync_ptsz(CUdeviceptr p, size_t n, CUdevice dev, CUstream s);
ZN_API CUresult cuMemPrefetchAsync_v2(CUdeviceptr p, size_t n, CUmemLocation loc,
                                      unsigned int flags, CUstream s);
ZN_API CUresult cuMemPrefetchAsync_v2_ptsz(CUdeviceptr p, size_t n, CUmemLocation loc,
                                           unsigned int flags, CUstream s);

/* copies and sets: X(suffix) declares the legacy and per-thread names */
#define ZN_COPY_DECLS(S)                                                        \
ZN_API CUresult cuMemcpy##S(CUdeviceptr dst, CUdeviceptr src, size_t n);       \
ZN_API CUresult cuMemcpyHtoD_v2##S(CUdeviceptr dst, const void *src, size_t n); \
ZN_API CUresult cuMemcpyDtoH_v2##S(void *dst, CUdeviceptr src, size_t n);       \
ZN_API CUresult cuMemcpyDtoD_v2##S(CUdeviceptr dst, CUdeviceptr src, size_t n); \
ZN_API CUresult cuMemcpyPeer##S(CUdeviceptr dst, CUcontext dctx, CUdeviceptr src, \
                                CUcontext sctx, size_t n);                      \
ZN_API CUresult cuMemcpy2D_v2##S(const CUDA_MEMCPY2D *p);                       \
ZN_API CUresult cuMemcpy2DUnaligned_v2##S(const CUDA_MEMCPY2D *p);              \
ZN_API CUresult cuMemcpy3D_v2##S(const CUDA_MEMCPY3D *p);                       \
ZN_API CUresult cuMemsetD8_v2##S(CUdeviceptr dst, unsigned char v, size_t n);   \
ZN_API CUresult cuMemsetD16_v2##S(CUdeviceptr dst, unsigned short v, size_t n); \
ZN_API CUresult cuMemsetD32_v2##S(CUdeviceptr dst, unsigned int v, size_t n);   \
ZN_API CUresult cuMemsetD2D8_v2##S(CUdeviceptr dst, size_t pitch, unsigned char v, \
                                   size_t w, size_t h);                         \
ZN_API CUresult cuMemsetD2D16_v2##S(CUdeviceptr dst, size_t pitch, unsigned short v, \
                                    size_t w, size_t h);                        \
ZN_API CUresult cuMemsetD2D32_v2##S(CUdeviceptr dst, size_t pitch, unsigned int v, \
                                    size_t w, size_t h);                        \
ZN_API CUresult cuMemcpyAtoA_v2##S(CUarray dst, size_t doff, CUarray src, size_t soff, \
                                   size_t n);                                   \
ZN_API CUresult cuMemcpyAtoD_v2##S(CUdeviceptr dst, CUarray src, size_t soff, size_t n); \
ZN_API CUresult cuMemcpyAtoH_v2##S(void *dst, CUarray src, size_t soff, size_t n); \
ZN_API CUresult cuMemcpyDtoA_v2##S(CUarray dst, size_t doff, CUdeviceptr src, size_t n); \
ZN_API CUresult cuMemcpyHtoA_v2##S(CUarray dst, size_t doff, const void *src, size_t n);
#define ZN_ASYNC_DECLS(S)                                                       \
ZN_API CUresult cuMemcpyAsync##S(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s); \
ZN_API CUresult cuMemcpyHtoDAsync_v2##S(CUdeviceptr dst, const void *src, size_t n, \
                                        CUstream s);                            \
ZN_API CUresult cuMemcpyDtoHAsync_v2##S(void *dst, CUdeviceptr src, size_t n, CUstream s); \
ZN_API CUresult cuMemcpyDtoDAsync_v2##S(CUdeviceptr dst, CUdeviceptr src, size_t n, \
                                        CUstream s);                            \
ZN_API CUresult cuMemcpyPeerAsync##S(CUdeviceptr dst, CUcontext dctx, CUdeviceptr src, \
                                     CUcontext sctx, size_t n, CUstream s);     \
ZN_API CUresult cuMemcpy2DAsync_v2##S(const CUDA_MEMCPY2D *p, CUstream s);      \
ZN_API CUresult cuMemcpy3DAsync_v2##S(const CUDA_MEMCPY3D *p, CUstream s);      \
ZN_API CUresult cuMemsetD8Async##S(CUdeviceptr dst, unsigned char v, size_t n, CUstream s); \
ZN_API CUresult cuMemsetD16Async##S(CUdeviceptr dst, unsigned short v, size_t n, \
                                    CUstream s);                                \
ZN_API CUresult cuMemsetD32Async##S(CUdeviceptr dst, unsigned int v, size_t n, CUstream s); \
ZN_API CUresult cuMemsetD2D8Async##S(CUdeviceptr dst, size_t pitch, unsigned char v, \
                                     size_t w, size_t h, CUstream s);           \
ZN_API CUresult cuMemsetD2D16Async##S(CUdeviceptr dst, size_t pitch, unsigned short v, \
                                      size_t w, size_t h, CUstream s);          \
ZN_API CUresult cuMemsetD2D32Async##S(CUdeviceptr dst, size_t pitch, unsigned int v, \
                                      size_t w, size_t h, CUstream s);          \
ZN_API CUresult cuMemcpyAtoHAsync_v2##S(void *dst, CUarray src, size_t soff, size_t n, \
                                        CUstream s);                            \
ZN_API CUresult cuMemcpyHtoAAsync_v2##S(CUarray dst, size_t doff, const void *src, \
                                        size_t n, CUstream s);
ZN_COPY_DECLS()
ZN_COPY_DECLS(_ptds)
ZN_ASYNC_DECLS()
ZN_ASYNC_DECLS(_ptsz)

/* modules, libraries, functions */
ZN_API CUresult cuModuleLoad(CUmodule *mod, const char *fname);
ZN_API CUresult cuModuleLoadData(CUmodule *mod, const void *image);
ZN_API CUresult cuModuleLoadDataEx(CUmodule *mod, const void *image, unsigned int n,
                                   CUjit_option *opts, void **vals);
ZN_API CUresult cuModuleLoadFatBinary(CUmodule *mod, const void *fatbin);
ZN_API CUresult cuModuleUnload(CUmodule mod);
ZN_API CUresult cuModuleGetFunction(CUfunction *f, CUmodule mod, const char *name);
ZN_API CUresult cuModuleGetGlobal_v2(CUdeviceptr *dptr, size_t *bytes, CUmodule mod,
                                     const char *name);
ZN_API CUresult cuModuleGetLoadingMode(int *mode);
ZN_API CUresult cuModuleGetFunctionCount(unsigned int *count, CUmodule mod);
/* CUtexref / CUsurfref (opaque pointers in older cuda.h) */
ZN_API CUresult cuModuleGetTexRef(void **tex_ref, CUmodule mod, const char *name);
ZN_API CUresult cuModuleGetSurfRef(void **surf_ref, CUmodule mod, const char *name);
ZN_API CUresult cuLibraryLoadData(CUlibrary *lib, const void *code, CUjit_option *jopts,
                                  void **jvals, unsigned int njit, CUlibraryOption *lopts,
                                  void **lvals, unsigned int nlib);
ZN_API CUresult cuLibraryLoadFromFile(CUlibrary *lib, const char *fname, CUjit_option *jopts,
                                      void **jvals, unsigned int njit, CUlibraryOption *lopts,
                                      void **lvals, unsigned int nlib);
ZN_API CUresult cuLibraryUnload(CUlibrary lib);
ZN_API CUresult cuLinkCreate(unsigned int n, CUjit_option *opts, void **vals, CUlinkState *st);
ZN_API CUresult cuLinkCreate_v2(unsigned int n, CUjit_option *opts, void **vals, CUlinkState *st);
ZN_API CUresult cuLinkAddData(CUlinkState st, CUjitInputType type, void *data, size_t size,
                              const char *name, unsigned int n, CUjit_option *opts, void **vals);
ZN_API CUresult cuLinkAddData_v2(CUlinkState st, CUjitInputType type, void *data, size_t size,
                                 const char *name, unsigned int n, CUjit_option *opts,
                                 void **vals);
ZN_API CUresult cuLinkAddFile(CUlinkState st, CUjitInputType type, const char *path,
                              unsigned int n, CUjit_option *opts, void **vals);
ZN_API CUresult cuLinkAddFile_v2(CUlinkState st, CUjitInputType type, const char *path,
                                 unsigned int n, CUjit_option *opts, void **vals);
ZN_API CUresult cuLinkComplete(CUlinkState st, void **cubin, size_t *size);
ZN_API CUresult cuLinkDestroy(CUlinkState st);
ZN_API CUresult cuLibraryGetKernel(CUkernel *k, CUlibrary lib, const char *name);
ZN_API CUresult cuLibraryGetModule(CUmodule *mod, CUlibrary lib);
ZN_API CUresult cuLibraryGetGlobal(CUdeviceptr *dptr, size_t *bytes, CUlibrary lib,
                                   const char *name);
ZN_API CUresult cuLibraryGetManaged(CUdeviceptr *dptr, size_t *bytes, CUlibrary lib,
                                    const char *name);
ZN_API CUresult cuLibraryGetKernelCount(unsigned int *count, CUlibrary lib);
ZN_API CUresult cuKernelGetFunction(CUfunction *f, CUkernel k);
ZN_API CUresult cuKernelGetAttribute(int *pi, CUfunction_attribute a, CUkernel k, CUdevice dev);
ZN_API CUresult cuKernelSetAttribute(CUfunction_attribute a, int v, CUkernel k, CUdevice dev);
ZN_API CUresult cuKernelSetCacheConfig(CUkernel k, int config, CUdevice dev);
ZN_API CUresult cuKernelGetName(const char **name, CUkernel k);
ZN_API CUresult cuKernelGetParamInfo(CUkernel k, size_t i, size_t *offset, size_t *size);
ZN_API CUresult cuFuncGetAttribute(int *pi, CUfunction_attribute a, CUfunction f);
ZN_API CUresult cuFuncSetAttribute(CUfunction f, CUfunction_attribute a, int v);
ZN_API CUresult cuFuncSetCacheConfig(CUfunction f, int config);
ZN_API CUresult cuFuncSetSharedMemConfig(CUfunction f, int config);
ZN_API CUresult cuFuncGetName(const char **name, CUfunction f);
ZN_API CUresult cuFuncGetParamInfo(CUfunction f, size_t i, size_t *offset, size_t *size);
ZN_API CUresult cuFuncGetModule(CUmodule *mod, CUfunction f);
ZN_API CUresult cuFuncLoad(CUfunction f);
ZN_API CUresult cuFuncIsLoaded(CUfunctionLoadingState *state, CUfunction f);
ZN_API CUresult cuKernelGetLibrary(CUlibrary *lib, CUkernel k);
ZN_API CUresult cuModuleEnumerateFunctions(CUfunction *fns, unsigned int n, CUmodule mod);
ZN_API CUresult cuStreamGetGreenCtx(CUstream s, CUgreenCtx *green);
ZN_API CUresult cuDeviceGetDevResource(CUdevice dev, CUdevResource *res, int type);
ZN_API CUresult cuCtxGetDevResource(CUcontext ctx, CUdevResource *res, int type);
ZN_API CUresult cuGreenCtxGetDevResource(CUgreenCtx g, CUdevResource *res, int type);
ZN_API CUresult cuDevSmResourceSplitByCount(CUdevResource *result, unsigned int *ngroups,
                                            const CUdevResource *input,
                                            CUdevResource *remaining, unsigned int flags,
                                            unsigned int min_count);
ZN_API CUresult cuDevResourceGenerateDesc(CUdevResourceDesc *desc, CUdevResource *res,
                                          unsigned int n);
ZN_API CUresult cuGreenCtxCreate(CUgreenCtx *g, CUdevResourceDesc desc, CUdevice dev,
                                 unsigned int flags);
ZN_API CUresult cuGreenCtxDestroy(CUgreenCtx g);
ZN_API CUresult cuCtxFromGreenCtx(CUcontext *ctx, CUgreenCtx g);
ZN_API CUresult cuGreenCtxRecordEvent(CUgreenCtx g, CUevent e);
ZN_API CUresult cuGreenCtxWaitEvent(CUgreenCtx g, CUevent e);
ZN_API CUresult cuGreenCtxStreamCreate(CUstream *s, CUgreenCtx g, unsigned int flags,
                                       int priority);
ZN_API CUresult cuGreenCtxGetId(CUgreenCtx g, unsigned long long *id);
ZN_API CUresult cuLaunchCooperativeKernelMultiDevice(CUDA_LAUNCH_PARAMS *list,
                                                     unsigned int ndev, unsigned int flags);
/* CUDA 1-3 forms (zn_drv_legacy.c): the same signature as their successors,
 * or the execution control that cuLaunchKernel replaced */
ZN_API CUresult cuCtxCreate(CUcontext *pctx, unsigned int flags, CUdevice dev);
ZN_API CUresult cuCtxDestroy(CUcontext ctx);
ZN_API CUresult cuCtxPushCurrent(CUcontext ctx);
ZN_API CUresult cuCtxPopCurrent(CUcontext *pctx);
ZN_API CUresult cuEventDestroy(CUevent e);
ZN_API CUresult cuStreamDestroy(CUstream s);
ZN_API CUresult cuMemHostRegister(void *p, size_t bytes, unsigned int flags);
ZN_API CUresult cuFuncSetBlockShape(CUfunction f, int x, int y, int z);
ZN_API CUresult cuFuncSetSharedSize(CUfunction f, unsigned int bytes);
ZN_API CUresult cuParamSetSize(CUfunction f, unsigned int bytes);
ZN_API CUresult cuParamSeti(CUfunction f, int offset, unsigned int v);
ZN_API CUresult cuParamSetf(CUfunction f, int offset, float v);
ZN_API CUresult cuParamSetv(CUfunction f, int offset, void *p, unsigned int bytes);
ZN_API CUresult cuLaunch(CUfunction f);
ZN_API CUresult cuLaunchGrid(CUfunction f, int gw, int gh);
ZN_API CUresult cuLaunchGridAsync(CUfunction f, int gw, int gh, CUstream s);

/* launches and occupancy */
#define ZN_LAUNCH_DECLS(S)                                                      \
ZN_API CUresult cuLaunchKernel##S(CUfunction f, unsigned int gx, unsigned int gy, \
    unsigned int gz, unsigned int bx, unsigned int by, unsigned int bz,         \
    unsigned int shmem, CUstream s, void **params, void **extra);              \
ZN_API CUresult cuLaunchKernelEx##S(const CUlaunchConfig *cfg, CUfunction f,    \
                                    void **params, void **extra);               \
ZN_API CUresult cuLaunchCooperativeKernel##S(CUfunction f, unsigned int gx,     \
    unsigned int gy, unsigned int gz, unsigned int bx, unsigned int by,         \
    unsigned int bz, unsigned int shmem, CUstream s, void **params);           \
ZN_API CUresult cuLaunchHostFunc##S(CUstream s, CUhostFn fn, void *user);
ZN_LAUNCH_DECLS()
ZN_LAUNCH_DECLS(_ptsz)
ZN_API CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int *n, CUfunction f, int bs,
                                                            size_t dsmem);
ZN_API CUresult cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *n, CUfunction f,
    int bs, size_t dsmem, unsigned int flags);
ZN_API CUresult cuOccupancyMaxPotentialBlockSize(int *min_grid, int *bs, CUfunction f,
    CUoccupancyB2DSize b2d, size_t dsmem, int limit);
ZN_API CUresult cuOccupancyMaxPotentialBlockSizeWithFlags(int *min_grid, int *bs,
    CUfunction f, CUoccupancyB2DSize b2d, size_t dsmem, int limit, unsigned int flags);
ZN_API CUresult cuOccupancyAvailableDynamicSMemPerBlock(size_t *dsmem, CUfunction f,
                                                        int nblocks, int bs);
ZN_API CUresult cuOccupancyMaxActiveClusters(int *num, CUfunction f, const CUlaunchConfig *cfg);
ZN_API CUresult cuOccupancyMaxPotentialClusterSize(int *size, CUfunction f,
                                                  const CUlaunchConfig *cfg);

/* streams and events */
ZN_API CUresult cuStreamCreate(CUstream *s, unsigned int flags);
ZN_API CUresult cuStreamCreateWithPriority(CUstream *s, unsigned int flags, int priority);
ZN_API CUresult cuStreamDestroy_v2(CUstream s);
ZN_API CUresult cuEventCreate(CUevent *e, unsigned int flags);
ZN_API CUresult cuEventQuery(CUevent e);
ZN_API CUresult cuEventSynchronize(CUevent e);
ZN_API CUresult cuEventDestroy_v2(CUevent e);
ZN_API CUresult cuEventElapsedTime(float *ms, CUevent start, CUevent end);
ZN_API CUresult cuEventElapsedTime_v2(float *ms, CUevent start, CUevent end);
ZN_API CUresult cuCtxRecordEvent(CUcontext ctx, CUevent e);
ZN_API CUresult cuCtxWaitEvent(CUcontext ctx, CUevent e);
#define ZN_STREAM_DECLS(S)                                                      \
ZN_API CUresult cuStreamSynchronize##S(CUstream s);                             \
ZN_API CUresult cuStreamQuery##S(CUstream s);                                   \
ZN_API CUresult cuStreamWaitEvent##S(CUstream s, CUevent e, unsigned int flags); \
ZN_API CUresult cuStreamGetFlags##S(CUstream s, unsigned int *flags);           \
ZN_API CUresult cuStreamGetPriority##S(CUstream s, int *priority);              \
ZN_API CUresult cuStreamGetCtx##S(CUstream s, CUcontext *ctx);                  \
ZN_API CUresult cuStreamGetCtx_v2##S(CUstream s, CUcontext *ctx, CUgreenCtx *green); \
ZN_API CUresult cuStreamGetId##S(CUstream s, unsigned long long *id);           \
ZN_API CUresult cuStreamGetDevice##S(CUstream s, CUdevice *dev);                \
ZN_API CUresult cuStreamAddCallback##S(CUstream s, CUstreamCallback cb, void *user, \
                                       unsigned int flags);                     \
ZN_API CUresult cuStreamAttachMemAsync##S(CUstream s, CUdeviceptr p, size_t n,  \
                                          unsigned int flags);                  \
ZN_API CUresult cuEventRecord##S(CUevent e, CUstream s);                        \
ZN_API CUresult cuEventRecordWithFlags##S(CUevent e, CUstream s, unsigned int flags);
ZN_STREAM_DECLS()
ZN_STREAM_DECLS(_ptsz)

/* stream-ordered allocation, memory pools, capture queries */
ZN_API CUresult cuMemAllocAsync(CUdeviceptr *dptr, size_t bytes, CUstream s);
ZN_API CUresult cuMemAllocAsync_ptsz(CUdeviceptr *dptr, size_t bytes, CUstream s);
ZN_API CUresult cuMemAllocFromPoolAsync(CUdeviceptr *dptr, size_t bytes, CUmemoryPool pool,
                                        CUstream s);
ZN_API CUresult cuMemAllocFromPoolAsync_ptsz(CUdeviceptr *dptr, size_t bytes,
                                             CUmemoryPool pool, CUstream s);
ZN_API CUresult cuMemFreeAsync(CUdeviceptr dptr, CUstream s);
ZN_API CUresult cuMemFreeAsync_ptsz(CUdeviceptr dptr, CUstream s);
ZN_API CUresult cuDeviceGetDefaultMemPool(CUmemoryPool *pool, CUdevice dev);
ZN_API CUresult cuDeviceGetMemPool(CUmemoryPool *pool, CUdevice dev);
ZN_API CUresult cuDeviceSetMemPool(CUdevice dev, CUmemoryPool pool);
ZN_API CUresult cuMemGetDefaultMemPool(CUmemoryPool *pool, CUmemLocation *loc, int type);
ZN_API CUresult cuMemGetMemPool(CUmemoryPool *pool, CUmemLocation *loc, int type);
ZN_API CUresult cuMemSetMemPool(CUmemLocation *loc, int type, CUmemoryPool pool);
ZN_API CUresult cuMemPoolTrimTo(CUmemoryPool pool, size_t keep);
ZN_API CUresult cuMemPoolSetAttribute(CUmemoryPool pool, int attr, void *value);
ZN_API CUresult cuMemPoolGetAttribute(CUmemoryPool pool, int attr, void *value);
ZN_API CUresult cuStreamIsCapturing(CUstream s, int *status);
ZN_API CUresult cuStreamIsCapturing_ptsz(CUstream s, int *status);
ZN_API CUresult cuStreamGetCaptureInfo(CUstream s, int *status, uint64_t *id);
ZN_API CUresult cuStreamGetCaptureInfo_ptsz(CUstream s, int *status, uint64_t *id);
ZN_API CUresult cuStreamGetCaptureInfo_v2(CUstream s, int *status, uint64_t *id, void **graph,
                                          const void **deps, size_t *ndeps);
ZN_API CUresult cuStreamGetCaptureInfo_v2_ptsz(CUstream s, int *status, uint64_t *id,
                                               void **graph, const void **deps, size_t *ndeps);
ZN_API CUresult cuStreamGetCaptureInfo_v3(CUstream s, int *status, uint64_t *id, void **graph,
                                          const void **deps, const void **edges,
                                          size_t *ndeps);
ZN_API CUresult cuStreamGetCaptureInfo_v3_ptsz(CUstream s, int *status, uint64_t *id,
                                               void **graph, const void **deps,
                                               const void **edges, size_t *ndeps);
ZN_API CUresult cuThreadExchangeStreamCaptureMode(int *mode);
ZN_API CUresult cuLibraryEnumerateKernels(CUkernel *kernels, unsigned int n, CUlibrary lib);
#define ZN_STREAM_ATTR_DECLS(S)                                                 \
ZN_API CUresult cuStreamGetAttribute##S(CUstream s, int id, CUlaunchAttributeValue *v); \
ZN_API CUresult cuStreamSetAttribute##S(CUstream s, int id,                     \
                                        const CUlaunchAttributeValue *v);       \
ZN_API CUresult cuStreamCopyAttributes##S(CUstream dst, CUstream src);
ZN_STREAM_ATTR_DECLS()
ZN_STREAM_ATTR_DECLS(_ptsz)

/* ---- stream memory operations, graphs, capture, virtual memory -------- */
typedef struct zn_graph *CUgraph;
typedef struct zn_gnode *CUgraphNode;
typedef struct zn_gexec *CUgraphExec;
typedef struct zn_uobj *CUuserObject;
typedef unsigned long long CUmemGenericAllocationHandle;

typedef struct CUDA_KERNEL_NODE_PARAMS {        /* _v2 (CUDA 12); v1 stops at extra */
    CUfunction func;
    unsigned int gridDimX, gridDimY, gridDimZ;
    unsigned int blockDimX, blockDimY, blockDimZ;
    unsigned int sharedMemBytes;
    void **kernelParams;
    void **extra;
    CUkernel kern;          /* used when func is NULL */
    CUcontext ctx;
} CUDA_KERNEL_NODE_PARAMS;

typedef struct CUDA_MEMSET_NODE_PARAMS {
    CUdeviceptr dst;
    size_t pitch;
    unsigned int value;
    unsigned int elementSize;   /* 1, 2 or 4 */
    size_t width;               /* elements */
    size_t height;
} CUDA_MEMSET_NODE_PARAMS;

typedef struct CUDA_HOST_NODE_PARAMS {
    CUhostFn fn;
    void *userData;
} CUDA_HOST_NODE_PARAMS;

typedef struct CUDA_GRAPH_INSTANTIATE_PARAMS {
    uint64_t flags;
    CUstream hUploadStream;
    CUgraphNode hErrNode_out;
    int result_out;             /* CUgraphInstantiateResult */
} CUDA_GRAPH_INSTANTIATE_PARAMS;

typedef struct CUgraphExecUpdateResultInfo {
    int result;                 /* CUgraphExecUpdateResult */
    CUgraphNode errorNode;
    CUgraphNode errorFromNode;
} CUgraphExecUpdateResultInfo;

typedef struct CUgraphEdgeData {
    unsigned char from_port, to_port, type, reserved[5];
} CUgraphEdgeData;

typedef struct CUmemAllocationProp {
    int type;                   /* CU_MEM_ALLOCATION_TYPE_PINNED = 1 */
    int requestedHandleTypes;
    CUmemLocation location;
    void *win32HandleMetaData;
    struct {
        unsigned char compressionType, gpuDirectRDMACapable;
        unsigned short usage;
        unsigned char reserved[4];
    } allocFlags;
} CUmemAllocationProp;

typedef struct CUmemAccessDesc {
    CUmemLocation location;
    int flags;                  /* CU_MEM_ACCESS_FLAGS_PROT_* */
} CUmemAccessDesc;

typedef enum CUgraphNodeType {
    CU_GRAPH_NODE_TYPE_KERNEL = 0, CU_GRAPH_NODE_TYPE_MEMCPY = 1,
    CU_GRAPH_NODE_TYPE_MEMSET = 2, CU_GRAPH_NODE_TYPE_HOST = 3,
    CU_GRAPH_NODE_TYPE_GRAPH = 4, CU_GRAPH_NODE_TYPE_EMPTY = 5,
    CU_GRAPH_NODE_TYPE_WAIT_EVENT = 6, CU_GRAPH_NODE_TYPE_EVENT_RECORD = 7,
    CU_GRAPH_NODE_TYPE_EXT_SEMAS_SIGNAL = 8, CU_GRAPH_NODE_TYPE_EXT_SEMAS_WAIT = 9,
    CU_GRAPH_NODE_TYPE_MEM_ALLOC = 10, CU_GRAPH_NODE_TYPE_MEM_FREE = 11,
    CU_GRAPH_NODE_TYPE_BATCH_MEM_OP = 12, CU_GRAPH_NODE_TYPE_CONDITIONAL = 13
} CUgraphNodeType;

enum {
    ZN_CU_EVENT_BLOCKING_SYNC = 0x1,
    ZN_CU_STREAM_WAIT_VALUE_GEQ = 0, ZN_CU_STREAM_WAIT_VALUE_EQ = 1,
    ZN_CU_STREAM_WAIT_VALUE_AND = 2, ZN_CU_STREAM_WAIT_VALUE_NOR = 3,
    ZN_CU_STREAM_WAIT_VALUE_FLUSH = 1 << 30,
    ZN_CU_STREAM_CAPTURE_STATUS_NONE = 0, ZN_CU_STREAM_CAPTURE_STATUS_ACTIVE = 1,
    ZN_CU_STREAM_CAPTURE_STATUS_INVALIDATED = 2,
    ZN_CU_STREAM_CAPTURE_MODE_GLOBAL = 0, ZN_CU_STREAM_CAPTURE_MODE_THREAD_LOCAL = 1,
    ZN_CU_STREAM_CAPTURE_MODE_RELAXED = 2,
    ZN_CU_STREAM_ADD_CAPTURE_DEPENDENCIES = 0, ZN_CU_STREAM_SET_CAPTURE_DEPENDENCIES = 1,
    ZN_CU_GRAPH_EXEC_UPDATE_SUCCESS = 0, ZN_CU_GRAPH_EXEC_UPDATE_ERROR = 1,
    ZN_CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED = 2,
    ZN_CU_GRAPH_EXEC_UPDATE_ERROR_NODE_TYPE_CHANGED = 3,
    ZN_CU_GRAPH_EXEC_UPDATE_ERROR_PARAMETERS_CHANGED = 5,
    ZN_CU_GRAPH_EXEC_UPDATE_ERROR_NOT_SUPPORTED = 6,
    ZN_CU_GRAPH_INSTANTIATE_SUCCESS = 0, ZN_CU_GRAPH_INSTANTIATE_ERROR = 1,
    ZN_CU_MEM_ALLOCATION_TYPE_PINNED = 1, ZN_CU_MEM_LOCATION_TYPE_DEVICE = 1,
    ZN_CU_MEM_ACCESS_FLAGS_PROT_NONE = 0, ZN_CU_MEM_ACCESS_FLAGS_PROT_READ = 1,
    ZN_CU_MEM_ACCESS_FLAGS_PROT_READWRITE = 3
};

#define ZN_MEMOPS_DECLS(S)                                                      \
ZN_API CUresult cuStreamWaitValue32##S(CUstream s, CUdeviceptr addr, uint32_t v, unsigned int flags); \
ZN_API CUresult cuStreamWaitValue64##S(CUstream s, CUdeviceptr addr, uint64_t v, unsigned int flags); \
ZN_API CUresult cuStreamWriteValue32##S(CUstream s, CUdeviceptr addr, uint32_t v, unsigned int flags); \
ZN_API CUresult cuStreamWriteValue64##S(CUstream s, CUdeviceptr addr, uint64_t v, unsigned int flags); \
ZN_API CUresult cuStreamWaitValue32_v2##S(CUstream s, CUdeviceptr addr, uint32_t v, unsigned int flags); \
ZN_API CUresult cuStreamWaitValue64_v2##S(CUstream s, CUdeviceptr addr, uint64_t v, unsigned int flags); \
ZN_API CUresult cuStreamWriteValue32_v2##S(CUstream s, CUdeviceptr addr, uint32_t v, unsigned int flags); \
ZN_API CUresult cuStreamWriteValue64_v2##S(CUstream s, CUdeviceptr addr, uint64_t v, unsigned int flags); \
ZN_API CUresult cuStreamBeginCapture##S(CUstream s);                            \
ZN_API CUresult cuStreamBeginCapture_v2##S(CUstream s, int mode);               \
ZN_API CUresult cuStreamBeginCaptureToGraph##S(CUstream s, CUgraph g, const CUgraphNode *deps, \
                                               const CUgraphEdgeData *edges, size_t ndeps, int mode); \
ZN_API CUresult cuStreamEndCapture##S(CUstream s, CUgraph *g);                  \
ZN_API CUresult cuStreamUpdateCaptureDependencies##S(CUstream s, CUgraphNode *deps, size_t n, \
                                                     unsigned int flags);       \
ZN_API CUresult cuStreamUpdateCaptureDependencies_v2##S(CUstream s, CUgraphNode *deps, \
                                                        const CUgraphEdgeData *edges, size_t n, \
                                                        unsigned int flags);    \
ZN_API CUresult cuGraphLaunch##S(CUgraphExec x, CUstream s);                    \
ZN_API CUresult cuGraphUpload##S(CUgraphExec x, CUstream s);                    \
ZN_API CUresult cuGraphInstantiateWithParams##S(CUgraphExec *x, CUgraph g,     \
                                                CUDA_GRAPH_INSTANTIATE_PARAMS *p);
ZN_MEMOPS_DECLS()
ZN_MEMOPS_DECLS(_ptsz)

ZN_API CUresult cuGraphCreate(CUgraph *g, unsigned int flags);
ZN_API CUresult cuGraphDestroy(CUgraph g);
ZN_API CUresult cuUserObjectCreate(CUuserObject *o, void *ptr, CUhostFn destroy,
                                   unsigned int refs, unsigned int flags);
ZN_API CUresult cuUserObjectRetain(CUuserObject o, unsigned int n);
ZN_API CUresult cuUserObjectRelease(CUuserObject o, unsigned int n);
ZN_API CUresult cuGraphRetainUserObject(CUgraph g, CUuserObject o, unsigned int n,
                                        unsigned int flags);
ZN_API CUresult cuGraphReleaseUserObject(CUgraph g, CUuserObject o, unsigned int n);
ZN_API CUresult cuGraphClone(CUgraph *out, CUgraph g);
ZN_API CUresult cuGraphAddKernelNode(CUgraphNode *n, CUgraph g, const CUgraphNode *deps,
                                     size_t ndeps, const CUDA_KERNEL_NODE_PARAMS *p);
ZN_API CUresult cuGraphAddKernelNode_v2(CUgraphNode *n, CUgraph g, const CUgraphNode *deps,
                                        size_t ndeps, const CUDA_KERNEL_NODE_PARAMS *p);
ZN_API CUresult cuGraphKernelNodeGetParams(CUgraphNode n, CUDA_KERNEL_NODE_PARAMS *p);
ZN_API CUresult cuGraphKernelNodeGetParams_v2(CUgraphNode n, CUDA_KERNEL_NODE_PARAMS *p);
ZN_API CUresult cuGraphKernelNodeSetParams(CUgraphNode n, const CUDA_KERNEL_NODE_PARAMS *p);
ZN_API CUresult cuGraphKernelNodeSetParams_v2(CUgraphNode n, const CUDA_KERNEL_NODE_PARAMS *p);
ZN_API CUresult cuGraphAddMemcpyNode(CUgraphNode *n, CUgraph g, const CUgraphNode *deps,
                                     size_t ndeps, const CUDA_MEMCPY3D *p, CUcontext ctx);
ZN_API CUresult cuGraphMemcpyNodeGetParams(CUgraphNode n, CUDA_MEMCPY3D *p);
ZN_API CUresult cuGraphMemcpyNodeSetParams(CUgraphNode n, const CUDA_MEMCPY3D *p);
ZN_API CUresult cuGraphAddMemsetNode(CUgraphNode *n, CUgraph g, const CUgraphNode *deps,
                                     size_t ndeps, const CUDA_MEMSET_NODE_PARAMS *p,
                                     CUcontext ctx);
ZN_API CUresult cuGraphMemsetNodeGetParams(CUgraphNode n, CUDA_MEMSET_NODE_PARAMS *p);
ZN_API CUresult cuGraphMemsetNodeSetParams(CUgraphNode n, const CUDA_MEMSET_NODE_PARAMS *p);
ZN_API CUresult cuGraphAddHostNode(CUgraphNode *n, CUgraph g, const CUgraphNode *deps,
                                   size_t ndeps, const CUDA_HOST_NODE_PARAMS *p);
ZN_API CUresult cuGraphHostNodeGetParams(CUgraphNode n, CUDA_HOST_NODE_PARAMS *p);
ZN_API CUresult cuGraphHostNodeSetParams(CUgraphNode n, const CUDA_HOST_NODE_PARAMS *p);
ZN_API CUresult cuGraphAddChildGraphNode(CUgraphNode *n, CUgraph g, const CUgraphNode *deps,
                                         size_t ndeps, CUgraph child);
ZN_API CUresult cuGraphChildGraphNodeGetGraph(CUgraphNode n, CUgraph *child);
ZN_API CUresult cuGraphAddEmptyNode(CUgraphNode *n, CUgraph g, const CUgraphNode *deps,
                                    size_t ndeps);
ZN_API CUresult cuGraphAddEventRecordNode(CUgraphNode *n, CUgraph g, const CUgraphNode *deps,
                                          size_t ndeps, CUevent e);
ZN_API CUresult cuGraphEventRecordNodeGetEvent(CUgraphNode n, CUevent *e);
ZN_API CUresult cuGraphEventRecordNodeSetEvent(CUgraphNode n, CUevent e);
ZN_API CUresult cuGraphAddEventWaitNode(CUgraphNode *n, CUgraph g, const CUgraphNode *deps,
                                        size_t ndeps, CUevent e);
ZN_API CUresult cuGraphEventWaitNodeGetEvent(CUgraphNode n, CUevent *e);
ZN_API CUresult cuGraphEventWaitNodeSetEvent(CUgraphNode n, CUevent e);
ZN_API CUresult cuGraphNodeGetType(CUgraphNode n, CUgraphNodeType *t);
ZN_API CUresult cuGraphGetNodes(CUgraph g, CUgraphNode *nodes, size_t *n);
ZN_API CUresult cuGraphGetRootNodes(CUgraph g, CUgraphNode *nodes, size_t *n);
ZN_API CUresult cuGraphGetEdges(CUgraph g, CUgraphNode *from, CUgraphNode *to, size_t *n);
ZN_API CUresult cuGraphGetEdges_v2(CUgraph g, CUgraphNode *from, CUgraphNode *to,
                                   CUgraphEdgeData *edges, size_t *n);
ZN_API CUresult cuGraphNodeGetDependencies(CUgraphNode n, CUgraphNode *deps, size_t *nd);
ZN_API CUresult cuGraphNodeGetDependencies_v2(CUgraphNode n, CUgraphNode *deps,
                                              CUgraphEdgeData *edges, size_t *nd);
ZN_API CUresult cuGraphNodeGetDependentNodes(CUgraphNode n, CUgraphNode *out, size_t *nd);
ZN_API CUresult cuGraphNodeGetDependentNodes_v2(CUgraphNode n, CUgraphNode *out,
                                                CUgraphEdgeData *edges, size_t *nd);
ZN_API CUresult cuGraphAddDependencies(CUgraph g, const CUgraphNode *from,
                                       const CUgraphNode *to, size_t n);
ZN_API CUresult cuGraphAddDependencies_v2(CUgraph g, const CUgraphNode *from,
                                          const CUgraphNode *to, const CUgraphEdgeData *e,
                                          size_t n);
ZN_API CUresult cuGraphRemoveDependencies(CUgraph g, const CUgraphNode *from,
                                          const CUgraphNode *to, size_t n);
ZN_API CUresult cuGraphRemoveDependencies_v2(CUgraph g, const CUgraphNode *from,
                                             const CUgraphNode *to, const CUgraphEdgeData *e,
                                             size_t n);
ZN_API CUresult cuGraphDestroyNode(CUgraphNode n);
ZN_API CUresult cuGraphInstantiate(CUgraphExec *x, CUgraph g, CUgraphNode *err, char *log,
                                   size_t logsize);
ZN_API CUresult cuGraphInstantiate_v2(CUgraphExec *x, CUgraph g, CUgraphNode *err, char *log,
                                      size_t logsize);
ZN_API CUresult cuGraphInstantiateWithFlags(CUgraphExec *x, CUgraph g, unsigned long long flags);
ZN_API CUresult cuGraphExecDestroy(CUgraphExec x);
ZN_API CUresult cuGraphExecGetFlags(CUgraphExec x, uint64_t *flags);
ZN_API CUresult cuGraphExecKernelNodeSetParams(CUgraphExec x, CUgraphNode n,
                                               const CUDA_KERNEL_NODE_PARAMS *p);
ZN_API CUresult cuGraphExecKernelNodeSetParams_v2(CUgraphExec x, CUgraphNode n,
                                                  const CUDA_KERNEL_NODE_PARAMS *p);
ZN_API CUresult cuGraphExecMemcpyNodeSetParams(CUgraphExec x, CUgraphNode n,
                                               const CUDA_MEMCPY3D *p, CUcontext ctx);
ZN_API CUresult cuGraphExecMemsetNodeSetParams(CUgraphExec x, CUgraphNode n,
                                               const CUDA_MEMSET_NODE_PARAMS *p, CUcontext ctx);
ZN_API CUresult cuGraphExecHostNodeSetParams(CUgraphExec x, CUgraphNode n,
                                             const CUDA_HOST_NODE_PARAMS *p);
ZN_API CUresult cuGraphExecEventRecordNodeSetEvent(CUgraphExec x, CUgraphNode n, CUevent e);
ZN_API CUresult cuGraphExecEventWaitNodeSetEvent(CUgraphExec x, CUgraphNode n, CUevent e);
ZN_API CUresult cuGraphExecUpdate(CUgraphExec x, CUgraph g, CUgraphNode *err, int *result);
ZN_API CUresult cuGraphExecUpdate_v2(CUgraphExec x, CUgraph g,
                                     CUgraphExecUpdateResultInfo *info);
ZN_API CUresult cuGraphNodeSetEnabled(CUgraphExec x, CUgraphNode n, unsigned int on);
ZN_API CUresult cuGraphNodeGetEnabled(CUgraphExec x, CUgraphNode n, unsigned int *on);

/* ---- graph memory nodes, the generic node API, node attributes
 * (zn_drv_graph_mem.c, zn_drv_graph_node.c, zn_drv_graph_dot.c) ---- */
enum {
    ZN_CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT = 0, ZN_CU_GRAPH_MEM_ATTR_USED_MEM_HIGH = 1,
    ZN_CU_GRAPH_MEM_ATTR_RESERVED_MEM_CURRENT = 2, ZN_CU_GRAPH_MEM_ATTR_RESERVED_MEM_HIGH = 3,
    ZN_CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH = 1,
    ZN_CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH = 4, ZN_CUDA_GRAPH_INSTANTIATE_FLAGS_ALL = 0xf,
    ZN_CU_GRAPH_CHILD_GRAPH_OWNERSHIP_CLONE = 0, ZN_CU_GRAPH_CHILD_GRAPH_OWNERSHIP_MOVE = 1
};

typedef struct CUmemPoolProps {
    int allocType;              /* CU_MEM_ALLOCATION_TYPE_PINNED */
    int handleTypes;            /* must be CU_MEM_HANDLE_TYPE_NONE (0) */
    CUmemLocation location;
    void *win32SecurityAttributes;
    size_t maxSize;
    unsigned short usage;
    unsigned char reserved[54];
} CUmemPoolProps;

typedef struct CUDA_MEM_ALLOC_NODE_PARAMS {
    CUmemPoolProps poolProps;
    const CUmemAccessDesc *accessDescs;
    size_t accessDescCount;
    size_t bytesize;
    CUdeviceptr dptr;           /* out */
} CUDA_MEM_ALLOC_NODE_PARAMS;

typedef struct CUDA_MEMSET_NODE_PARAMS_v2 {
    CUdeviceptr dst;
    size_t pitch;
    unsigned int value, elementSize;
    size_t width, height;
    CUcontext ctx;
} CUDA_MEMSET_NODE_PARAMS_v2;

typedef struct CUDA_MEMCPY_NODE_PARAMS {
    int flags, reserved;
    CUcontext copyCtx;
    CUDA_MEMCPY3D copyParams;
} CUDA_MEMCPY_NODE_PARAMS;

typedef unsigned long long CUgraphConditionalHandle;

typedef struct CUDA_CONDITIONAL_NODE_PARAMS {
    CUgraphConditionalHandle handle;
    int type;                   /* CU_GRAPH_COND_TYPE_IF, _WHILE, _SWITCH */
    unsigned int size;
    CUgraph *phGraph_out;       /* the driver's array of body graphs */
    CUcontext ctx;
} CUDA_CONDITIONAL_NODE_PARAMS;

enum {
    ZN_CU_GRAPH_COND_ASSIGN_DEFAULT = 1,
    ZN_CU_GRAPH_COND_TYPE_IF = 0, ZN_CU_GRAPH_COND_TYPE_WHILE = 1, ZN_CU_GRAPH_COND_TYPE_SWITCH = 2
};

/* cuGraphAddNode's tagged union (232 bytes of union, as in cuda.h). */
typedef struct CUDA_BATCH_MEM_OP_NODE_PARAMS {   /* v1 and v2 alike */
    CUcontext ctx;
    unsigned int count;
    union CUstreamBatchMemOpParams *paramArray;
    unsigned int flags;
} CUDA_BATCH_MEM_OP_NODE_PARAMS;

typedef struct CUgraphNodeParams {
    int type;                   /* CUgraphNodeType */
    int reserved0[3];
    union {
        long long reserved1[29];
        CUDA_KERNEL_NODE_PARAMS kernel;
        CUDA_MEMCPY_NODE_PARAMS memcpy;
        CUDA_MEMSET_NODE_PARAMS_v2 memset;
        CUDA_HOST_NODE_PARAMS host;
        struct { CUgraph graph; int ownership; } graph;
        struct { CUevent event; } eventWait;
        struct { CUevent event; } eventRecord;
        CUDA_MEM_ALLOC_NODE_PARAMS alloc;
        struct { CUdeviceptr dptr; } free;
        CUDA_CONDITIONAL_NODE_PARAMS conditional;
        CUDA_BATCH_MEM_OP_NODE_PARAMS memOp;
    };
    long long reserved2;
} CUgraphNodeParams;

ZN_API CUresult cuGraphAddMemAllocNode(CUgraphNode *n, CUgraph g, const CUgraphNode *deps,
                                       size_t ndeps, CUDA_MEM_ALLOC_NODE_PARAMS *p);
ZN_API CUresult cuGraphMemAllocNodeGetParams(CUgraphNode n, CUDA_MEM_ALLOC_NODE_PARAMS *p);
ZN_API CUresult cuGraphAddMemFreeNode(CUgraphNode *n, CUgraph g, const CUgraphNode *deps,
                                      size_t ndeps, CUdeviceptr dptr);
ZN_API CUresult cuGraphMemFreeNodeGetParams(CUgraphNode n, CUdeviceptr *dptr);
ZN_API CUresult cuDeviceGetGraphMemAttribute(CUdevice dev, int attr, void *value);
ZN_API CUresult cuDeviceSetGraphMemAttribute(CUdevice dev, int attr, void *value);
ZN_API CUresult cuDeviceGraphMemTrim(CUdevice dev);
ZN_API CUresult cuGraphAddNode(CUgraphNode *n, CUgraph g, const CUgraphNode *deps,
                               size_t ndeps, CUgraphNodeParams *p);
ZN_API CUresult cuGraphAddNode_v2(CUgraphNode *n, CUgraph g, const CUgraphNode *deps,
                                  const CUgraphEdgeData *edges, size_t ndeps,
                                  CUgraphNodeParams *p);
ZN_API CUresult cuGraphNodeSetParams(CUgraphNode n, CUgraphNodeParams *p);
ZN_API CUresult cuGraphExecNodeSetParams(CUgraphExec x, CUgraphNode n, CUgraphNodeParams *p);
ZN_API CUresult cuGraphExecChildGraphNodeSetParams(CUgraphExec x, CUgraphNode n, CUgraph child);
ZN_API CUresult cuGraphKernelNodeGetAttribute(CUgraphNode n, int attr,
                                              CUlaunchAttributeValue *v);
ZN_API CUresult cuGraphKernelNodeSetAttribute(CUgraphNode n, int attr,
                                              const CUlaunchAttributeValue *v);
ZN_API CUresult cuGraphKernelNodeCopyAttributes(CUgraphNode dst, CUgraphNode src);
ZN_API CUresult cuGraphNodeFindInClone(CUgraphNode *out, CUgraphNode orig, CUgraph clone);
ZN_API CUresult cuGraphDebugDotPrint(CUgraph g, const char *path, unsigned int flags);
ZN_API CUresult cuGraphConditionalHandleCreate(CUgraphConditionalHandle *h, CUgraph g,
                                               CUcontext ctx, unsigned int dflt,
                                               unsigned int flags);

ZN_API CUresult cuMemAddressReserve(CUdeviceptr *p, size_t size, size_t align,
                                    CUdeviceptr addr, unsigned long long flags);
ZN_API CUresult cuMemAddressFree(CUdeviceptr p, size_t size);
ZN_API CUresult cuMemCreate(CUmemGenericAllocationHandle *h, size_t size,
                            const CUmemAllocationProp *prop, unsigned long long flags);
ZN_API CUresult cuMemRelease(CUmemGenericAllocationHandle h);
ZN_API CUresult cuMemMap(CUdeviceptr p, size_t size, size_t offset,
                         CUmemGenericAllocationHandle h, unsigned long long flags);
ZN_API CUresult cuMemUnmap(CUdeviceptr p, size_t size);
ZN_API CUresult cuMemSetAccess(CUdeviceptr p, size_t size, const CUmemAccessDesc *desc,
                               size_t count);
ZN_API CUresult cuMemGetAccess(unsigned long long *flags, const CUmemLocation *loc,
                               CUdeviceptr p);
ZN_API CUresult cuMemGetAllocationGranularity(size_t *g, const CUmemAllocationProp *prop,
                                              int option);
ZN_API CUresult cuMemGetAllocationPropertiesFromHandle(CUmemAllocationProp *prop,
                                                       CUmemGenericAllocationHandle h);
ZN_API CUresult cuMemRetainAllocationHandle(CUmemGenericAllocationHandle *h, void *addr);

/* ---- CUDA arrays, texture and surface objects (zn_drv_array.c, zn_drv_texobj.c) ---- */
typedef unsigned long long CUtexObject;
typedef unsigned long long CUsurfObject;
typedef void *CUmipmappedArray;

typedef enum CUarray_format {
    CU_AD_FORMAT_UNSIGNED_INT8 = 0x01, CU_AD_FORMAT_UNSIGNED_INT16 = 0x02,
    CU_AD_FORMAT_UNSIGNED_INT32 = 0x03, CU_AD_FORMAT_SIGNED_INT8 = 0x08,
    CU_AD_FORMAT_SIGNED_INT16 = 0x09, CU_AD_FORMAT_SIGNED_INT32 = 0x0a,
    CU_AD_FORMAT_HALF = 0x10, CU_AD_FORMAT_FLOAT = 0x20,
    /* planar video formats (zn_drv_array_planar.c) */
    CU_AD_FORMAT_P010 = 0x9f, CU_AD_FORMAT_P016 = 0xa1, CU_AD_FORMAT_NV16 = 0xa2,
    CU_AD_FORMAT_P210 = 0xa3, CU_AD_FORMAT_P216 = 0xa4, CU_AD_FORMAT_NV12 = 0xb0,
    CU_AD_FORMAT_Y444_PLANAR8 = 0xb2, CU_AD_FORMAT_Y444_PLANAR10 = 0xb3,
    CU_AD_FORMAT_YUV444_8bit_SemiPlanar = 0xb4, CU_AD_FORMAT_YUV444_16bit_SemiPlanar = 0xb5,
    /* packed video formats (zn_drv_array_packed.c) */
    CU_AD_FORMAT_YUY2 = 0xa5, CU_AD_FORMAT_Y210 = 0xa6, CU_AD_FORMAT_Y216 = 0xa7,
    CU_AD_FORMAT_AYUV = 0xa8, CU_AD_FORMAT_Y410 = 0xa9, CU_AD_FORMAT_Y416 = 0xb1
} CUarray_format;

typedef enum CUaddress_mode {
    CU_TR_ADDRESS_MODE_WRAP = 0, CU_TR_ADDRESS_MODE_CLAMP = 1,
    CU_TR_ADDRESS_MODE_MIRROR = 2, CU_TR_ADDRESS_MODE_BORDER = 3
} CUaddress_mode;

typedef enum CUfilter_mode {
    CU_TR_FILTER_MODE_POINT = 0, CU_TR_FILTER_MODE_LINEAR = 1
} CUfilter_mode;

typedef enum CUresourcetype {
    CU_RESOURCE_TYPE_ARRAY = 0, CU_RESOURCE_TYPE_MIPMAPPED_ARRAY = 1,
    CU_RESOURCE_TYPE_LINEAR = 2, CU_RESOURCE_TYPE_PITCH2D = 3
} CUresourcetype;

#define CUDA_ARRAY3D_LAYERED 0x01
#define CUDA_ARRAY3D_SURFACE_LDST 0x02
#define CUDA_ARRAY3D_CUBEMAP 0x04
#define CUDA_ARRAY3D_TEXTURE_GATHER 0x08
#define CU_TRSF_READ_AS_INTEGER 0x01
#define CU_TRSF_NORMALIZED_COORDINATES 0x02
#define CU_TRSF_SRGB 0x10
#define CU_TRSF_DISABLE_TRILINEAR_OPTIMIZATION 0x20
#define CU_TRSF_SEAMLESS_CUBEMAP 0x40

typedef struct CUDA_ARRAY_DESCRIPTOR {
    size_t Width, Height;
    CUarray_format Format;
    unsigned int NumChannels;
} CUDA_ARRAY_DESCRIPTOR;

typedef struct CUDA_ARRAY3D_DESCRIPTOR {
    size_t Width, Height, Depth;
    CUarray_format Format;
    unsigned int NumChannels;
    unsigned int Flags;
} CUDA_ARRAY3D_DESCRIPTOR;

typedef struct CUDA_RESOURCE_DESC {
    CUresourcetype resType;
    union {
        struct { CUarray hArray; } array;
        struct { CUmipmappedArray hMipmappedArray; } mipmap;
        struct {
            CUdeviceptr devPtr;
            CUarray_format format;
            unsigned int numChannels;
            size_t sizeInBytes;
        } linear;
        struct {
            CUdeviceptr devPtr;
            CUarray_format format;
            unsigned int numChannels;
            size_t width, height, pitchInBytes;
        } pitch2D;
        struct { int reserved[32]; } reserved;
    } res;
    unsigned int flags;
} CUDA_RESOURCE_DESC;

typedef struct CUDA_TEXTURE_DESC {
    CUaddress_mode addressMode[3];
    CUfilter_mode filterMode;
    unsigned int flags;
    unsigned int maxAnisotropy;
    CUfilter_mode mipmapFilterMode;
    float mipmapLevelBias, minMipmapLevelClamp, maxMipmapLevelClamp;
    float borderColor[4];
    int reserved[12];
} CUDA_TEXTURE_DESC;

#define CUDA_ARRAY3D_SPARSE 0x40
#define CUDA_ARRAY3D_DEFERRED_MAPPING 0x80

/* CUresourceViewFormat: NONE, then U8/S8/U16/S16/U32/S32 x 1/2/4 channels
 * (0x01-0x12), half and float x 1/2/4 (0x13-0x18), block-compressed BC1-BC7
 * (0x19-0x22) */
typedef enum CUresourceViewFormat {
    CU_RES_VIEW_FORMAT_NONE = 0x00, CU_RES_VIEW_FORMAT_FLOAT_4X32 = 0x18,
    CU_RES_VIEW_FORMAT_UNSIGNED_BC1 = 0x19, CU_RES_VIEW_FORMAT_UNSIGNED_BC7 = 0x22
} CUresourceViewFormat;

typedef struct CUDA_RESOURCE_VIEW_DESC {
    CUresourceViewFormat format;
    size_t width, height, depth;
    unsigned int firstMipmapLevel, lastMipmapLevel;
    unsigned int firstLayer, lastLayer;
    unsigned int reserved[16];
} CUDA_RESOURCE_VIEW_DESC;

typedef struct CUDA_ARRAY_MEMORY_REQUIREMENTS {
    size_t size, alignment;
    unsigned int reserved[4];
} CUDA_ARRAY_MEMORY_REQUIREMENTS;

#define CU_ARRAY_SPARSE_PROPERTIES_SINGLE_MIPTAIL 0x1
typedef struct CUDA_ARRAY_SPARSE_PROPERTIES {
    struct { unsigned int width, height, depth; } tileExtent; /* in elements */
    unsigned int miptailFirstLevel;
    unsigned long long miptailSize;
    unsigned int flags;
    unsigned int reserved[4];
} CUDA_ARRAY_SPARSE_PROPERTIES;

ZN_API CUresult cuArrayCreate_v2(CUarray *a, const CUDA_ARRAY_DESCRIPTOR *d);
ZN_API CUresult cuArrayGetDescriptor_v2(CUDA_ARRAY_DESCRIPTOR *d, CUarray a);
ZN_API CUresult cuArray3DCreate_v2(CUarray *a, const CUDA_ARRAY3D_DESCRIPTOR *d);
ZN_API CUresult cuArray3DGetDescriptor_v2(CUDA_ARRAY3D_DESCRIPTOR *d, CUarray a);
ZN_API CUresult cuArrayDestroy(CUarray a);
ZN_API CUresult cuMipmappedArrayCreate(CUmipmappedArray *m, const CUDA_ARRAY3D_DESCRIPTOR *d,
                                       unsigned int levels);
ZN_API CUresult cuMipmappedArrayGetLevel(CUarray *a, CUmipmappedArray m, unsigned int level);
ZN_API CUresult cuMipmappedArrayDestroy(CUmipmappedArray m);
ZN_API CUresult cuTexObjectCreate(CUtexObject *t, const CUDA_RESOURCE_DESC *r,
                                  const CUDA_TEXTURE_DESC *td,
                                  const CUDA_RESOURCE_VIEW_DESC *view);
ZN_API CUresult cuTexObjectDestroy(CUtexObject t);
ZN_API CUresult cuTexObjectGetResourceDesc(CUDA_RESOURCE_DESC *r, CUtexObject t);
ZN_API CUresult cuTexObjectGetTextureDesc(CUDA_TEXTURE_DESC *td, CUtexObject t);
ZN_API CUresult cuSurfObjectCreate(CUsurfObject *s, const CUDA_RESOURCE_DESC *r);
ZN_API CUresult cuSurfObjectDestroy(CUsurfObject s);
ZN_API CUresult cuSurfObjectGetResourceDesc(CUDA_RESOURCE_DESC *r, CUsurfObject s);
ZN_API CUresult cuTexObjectGetResourceViewDesc(CUDA_RESOURCE_VIEW_DESC *v, CUtexObject t);
ZN_API CUresult cuArrayGetMemoryRequirements(CUDA_ARRAY_MEMORY_REQUIREMENTS *r, CUarray a,
                                             CUdevice dev);
ZN_API CUresult cuMipmappedArrayGetMemoryRequirements(CUDA_ARRAY_MEMORY_REQUIREMENTS *r,
                                                      CUmipmappedArray m, CUdevice dev);
ZN_API CUresult cuArrayGetPlane(CUarray *plane, CUarray a, unsigned int idx);
ZN_API CUresult cuArrayGetSparseProperties(CUDA_ARRAY_SPARSE_PROPERTIES *p, CUarray a);
ZN_API CUresult cuMipmappedArrayGetSparseProperties(CUDA_ARRAY_SPARSE_PROPERTIES *p,
                                                    CUmipmappedArray m);

/* sparse tile mapping (cuMemMapArrayAsync) */
typedef enum CUarraySparseSubresourceType {
    CU_ARRAY_SPARSE_SUBRESOURCE_TYPE_SPARSE_LEVEL = 0, CU_ARRAY_SPARSE_SUBRESOURCE_TYPE_MIPTAIL = 1
} CUarraySparseSubresourceType;
typedef enum CUmemOperationType {
    CU_MEM_OPERATION_TYPE_MAP = 1, CU_MEM_OPERATION_TYPE_UNMAP = 2
} CUmemOperationType;
typedef enum CUmemHandleType { CU_MEM_HANDLE_TYPE_GENERIC = 0 } CUmemHandleType;
#define CU_MEM_CREATE_USAGE_TILE_POOL 0x1
typedef struct CUarrayMapInfo {
    CUresourcetype resourceType;
    union { CUmipmappedArray mipmap; CUarray array; } resource;
    CUarraySparseSubresourceType subresourceType;
    union {
        struct {
            unsigned int level, layer, offsetX, offsetY, offsetZ;
            unsigned int extentWidth, extentHeight, extentDepth;
        } sparseLevel;
        struct { unsigned int layer; unsigned long long offset, size; } miptail;
    } subresource;
    CUmemOperationType memOperationType;
    CUmemHandleType memHandleType;
    union { CUmemGenericAllocationHandle memHandle; } memHandle;
    unsigned long long offset;
    unsigned int deviceBitMask, flags, reserved[2];
} CUarrayMapInfo;
ZN_API CUresult cuMemMapArrayAsync(CUarrayMapInfo *list, unsigned int count, CUstream s);
ZN_API CUresult cuMemMapArrayAsync_ptsz(CUarrayMapInfo *list, unsigned int count, CUstream s);
ZN_API CUresult cuDeviceGetTexture1DLinearMaxWidth(size_t *w, CUarray_format f, unsigned nch,
                                                   CUdevice dev);

/* ---- explicit pools, batched copies and memory ops, managed ranges,
 * atomic capabilities, the driver log (zn_drv_pool.c, zn_drv_batch.c,
 * zn_drv_stream.c, zn_drv_range.c, zn_drv_atomic.c, zn_drv_logs.c) ---- */
typedef struct CUmemcpyAttributes {
    int srcAccessOrder;         /* CU_MEMCPY_SRC_ACCESS_ORDER_* (1-3) */
    CUmemLocation srcLocHint, dstLocHint;
    unsigned int flags;         /* CU_MEMCPY_FLAG_* */
} CUmemcpyAttributes;

typedef struct CUmemcpy3DOperand {
    int type;                   /* 1 pointer, 2 array */
    union {
        struct { CUdeviceptr ptr; size_t rowLength, layerHeight; CUmemLocation locHint; } ptr;
        struct { CUarray array; size_t x, y, z; } array;   /* offset in elements */
    } op;
} CUmemcpy3DOperand;

typedef struct CUDA_MEMCPY3D_BATCH_OP {
    CUmemcpy3DOperand src, dst;
    size_t width, height, depth;    /* extent, in elements */
    int srcAccessOrder;
    unsigned int flags;
} CUDA_MEMCPY3D_BATCH_OP;

/* 48 bytes; operation is the tag of every member. */
typedef union CUstreamBatchMemOpParams {
    int operation;
    struct { int operation; CUdeviceptr address; uint64_t value; unsigned int flags;
             CUdeviceptr alias; } value;                     /* wait and write */
    struct { int operation; unsigned int flags; } flush, barrier;
    uint64_t pad[6];
} CUstreamBatchMemOpParams;

typedef struct CUlogsCallbackEntry *CUlogsCallbackHandle;
typedef void (*CUlogsCallback)(void *data, int level, char *message, size_t length);
typedef unsigned int CUlogIterator;

ZN_API CUresult cuMemPoolCreate(CUmemoryPool *pool, const CUmemPoolProps *props);
ZN_API CUresult cuMemPoolDestroy(CUmemoryPool pool);
ZN_API CUresult cuMemPoolSetAccess(CUmemoryPool pool, const CUmemAccessDesc *map, size_t count);
ZN_API CUresult cuMemPoolGetAccess(int *flags, CUmemoryPool pool, CUmemLocation *loc);
#define ZN_COPY_BATCH_ARGS CUdeviceptr *dsts, CUdeviceptr *srcs, size_t *sizes, size_t count, \
    CUmemcpyAttributes *attrs, size_t *idx, size_t nattrs
ZN_API CUresult cuMemcpyBatchAsync(ZN_COPY_BATCH_ARGS, size_t *fail, CUstream s);
ZN_API CUresult cuMemcpyBatchAsync_ptsz(ZN_COPY_BATCH_ARGS, size_t *fail, CUstream s);
ZN_API CUresult cuMemcpyBatchAsync_v2(ZN_COPY_BATCH_ARGS, CUstream s);
ZN_API CUresult cuMemcpyBatchAsync_v2_ptsz(ZN_COPY_BATCH_ARGS, CUstream s);
ZN_API CUresult cuMemcpy3DBatchAsync(size_t n, CUDA_MEMCPY3D_BATCH_OP *list, size_t *fail,
                                     unsigned long long flags, CUstream s);
ZN_API CUresult cuMemcpy3DBatchAsync_ptsz(size_t n, CUDA_MEMCPY3D_BATCH_OP *list, size_t *fail,
                                          unsigned long long flags, CUstream s);
ZN_API CUresult cuMemcpy3DBatchAsync_v2(size_t n, CUDA_MEMCPY3D_BATCH_OP *list,
                                        unsigned long long flags, CUstream s);
ZN_API CUresult cuMemcpy3DBatchAsync_v2_ptsz(size_t n, CUDA_MEMCPY3D_BATCH_OP *list,
                                             unsigned long long flags, CUstream s);
#define ZN_MEM_BATCH_ARGS CUdeviceptr *p, size_t *n, size_t count
#define ZN_LOC_BATCH_ARGS CUmemLocation *locs, size_t *idx, size_t nlocs
ZN_API CUresult cuMemPrefetchBatchAsync(ZN_MEM_BATCH_ARGS, ZN_LOC_BATCH_ARGS,
                                        unsigned long long flags, CUstream s);
ZN_API CUresult cuMemPrefetchBatchAsync_ptsz(ZN_MEM_BATCH_ARGS, ZN_LOC_BATCH_ARGS,
                                             unsigned long long flags, CUstream s);
ZN_API CUresult cuMemDiscardBatchAsync(ZN_MEM_BATCH_ARGS, unsigned long long flags, CUstream s);
ZN_API CUresult cuMemDiscardBatchAsync_ptsz(ZN_MEM_BATCH_ARGS, unsigned long long flags,
                                            CUstream s);
ZN_API CUresult cuMemDiscardAndPrefetchBatchAsync(ZN_MEM_BATCH_ARGS, ZN_LOC_BATCH_ARGS,
                                                  unsigned long long flags, CUstream s);
ZN_API CUresult cuMemDiscardAndPrefetchBatchAsync_ptsz(ZN_MEM_BATCH_ARGS, ZN_LOC_BATCH_ARGS,
                                                       unsigned long long flags, CUstream s);
#define ZN_BATCH_MEMOP_ARGS CUstream s, unsigned int count, CUstreamBatchMemOpParams *ops, \
    unsigned int flags
ZN_API CUresult cuStreamBatchMemOp(ZN_BATCH_MEMOP_ARGS);
ZN_API CUresult cuStreamBatchMemOp_ptsz(ZN_BATCH_MEMOP_ARGS);
ZN_API CUresult cuStreamBatchMemOp_v2(ZN_BATCH_MEMOP_ARGS);
ZN_API CUresult cuStreamBatchMemOp_v2_ptsz(ZN_BATCH_MEMOP_ARGS);
ZN_API CUresult cuMemRangeGetAttribute(void *data, size_t size, int attr, CUdeviceptr p,
                                       size_t n);
ZN_API CUresult cuMemRangeGetAttributes(void **data, size_t *sizes, int *attrs, size_t nattrs,
                                        CUdeviceptr p, size_t n);
ZN_API CUresult cuDeviceGetHostAtomicCapabilities(unsigned int *caps, const int *ops,
                                                  unsigned int count, CUdevice dev);
ZN_API CUresult cuDeviceGetP2PAtomicCapabilities(unsigned int *caps, const int *ops,
                                                 unsigned int count, CUdevice src, CUdevice dst);
ZN_API CUresult cuLogsRegisterCallback(CUlogsCallback fn, void *user, CUlogsCallbackHandle *out);
ZN_API CUresult cuLogsUnregisterCallback(CUlogsCallbackHandle h);
ZN_API CUresult cuLogsCurrent(CUlogIterator *it, unsigned int flags);
ZN_API CUresult cuLogsDumpToFile(CUlogIterator *it, const char *path, unsigned int flags);
ZN_API CUresult cuLogsDumpToMemory(CUlogIterator *it, char *buf, size_t *size,
                                   unsigned int flags);

/* peer copies and access, device notifications, unified functions */
typedef struct CUDA_MEMCPY3D_PEER {   /* CUDA_MEMCPY3D with the contexts */
    size_t srcXInBytes, srcY, srcZ, srcLOD;
    CUmemorytype srcMemoryType;
    const void *srcHost;
    CUdeviceptr srcDevice;
    CUarray srcArray;
    CUcontext srcContext;
    size_t srcPitch, srcHeight;
    size_t dstXInBytes, dstY, dstZ, dstLOD;
    CUmemorytype dstMemoryType;
    void *dstHost;
    CUdeviceptr dstDevice;
    CUarray dstArray;
    CUcontext dstContext;
    size_t dstPitch, dstHeight;
    size_t WidthInBytes, Height, Depth;
} CUDA_MEMCPY3D_PEER;
ZN_API CUresult cuMemcpy3DPeer(const CUDA_MEMCPY3D_PEER *p);
ZN_API CUresult cuMemcpy3DPeer_ptds(const CUDA_MEMCPY3D_PEER *p);
ZN_API CUresult cuMemcpy3DPeerAsync(const CUDA_MEMCPY3D_PEER *p, CUstream s);
ZN_API CUresult cuMemcpy3DPeerAsync_ptsz(const CUDA_MEMCPY3D_PEER *p, CUstream s);
ZN_API CUresult cuCtxEnablePeerAccess(CUcontext peer, unsigned int flags);
ZN_API CUresult cuCtxDisablePeerAccess(CUcontext peer);
typedef struct CUasyncCallbackEntry *CUasyncCallbackHandle;
typedef struct CUasyncNotificationInfo {
    int type;   /* CU_ASYNC_NOTIFICATION_TYPE_OVER_BUDGET = 1 */
    union {
        struct {
            unsigned long long bytesOverBudget;
        } overBudget;
    } info;
} CUasyncNotificationInfo;
typedef void (*CUasyncCallback)(CUasyncNotificationInfo *info, void *user,
                                CUasyncCallbackHandle h);
ZN_API CUresult cuDeviceRegisterAsyncNotification(CUdevice dev, CUasyncCallback fn, void *user,
                                                  CUasyncCallbackHandle *out);
ZN_API CUresult cuDeviceUnregisterAsyncNotification(CUdevice dev, CUasyncCallbackHandle h);
ZN_API CUresult cuLibraryGetUnifiedFunction(void **fptr, CUlibrary lib, const char *symbol);
ZN_API CUresult cuGraphAddBatchMemOpNode(CUgraphNode *n, CUgraph g, const CUgraphNode *deps,
                                         size_t ndeps, const CUDA_BATCH_MEM_OP_NODE_PARAMS *p);
ZN_API CUresult cuGraphBatchMemOpNodeGetParams(CUgraphNode n, CUDA_BATCH_MEM_OP_NODE_PARAMS *p);
ZN_API CUresult cuGraphBatchMemOpNodeSetParams(CUgraphNode n,
                                               const CUDA_BATCH_MEM_OP_NODE_PARAMS *p);
ZN_API CUresult cuGraphExecBatchMemOpNodeSetParams(CUgraphExec x, CUgraphNode n,
                                                   const CUDA_BATCH_MEM_OP_NODE_PARAMS *p);

/* ---- interprocess memory and events, external memory (zn_drv_ipc.c,
 * zn_drv_ipc_event.c, zn_drv_extmem.c) ---- */
enum {
    ZN_CU_IPC_HANDLE_SIZE = 64,
    ZN_CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS = 0x1,
    ZN_CU_EVENT_INTERPROCESS = 0x4,
    ZN_CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR = 0x1,
    ZN_CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD = 1,
    ZN_CUDA_EXTERNAL_MEMORY_DEDICATED = 0x1
};
typedef struct CUipcMemHandle { char reserved[ZN_CU_IPC_HANDLE_SIZE]; } CUipcMemHandle;
typedef struct CUipcEventHandle { char reserved[ZN_CU_IPC_HANDLE_SIZE]; } CUipcEventHandle;
typedef struct CUmemPoolPtrExportData { unsigned char reserved[64]; } CUmemPoolPtrExportData;
typedef struct zn_extmem *CUexternalMemory;
typedef struct CUDA_EXTERNAL_MEMORY_HANDLE_DESC {
    int type;
    union {
        int fd;
        struct { void *handle; const void *name; } win32;
        const void *nvSciBufObject;
    } handle;
    unsigned long long size;
    unsigned int flags;
    unsigned int reserved[16];
} CUDA_EXTERNAL_MEMORY_HANDLE_DESC;
typedef struct CUDA_EXTERNAL_MEMORY_BUFFER_DESC {
    unsigned long long offset;
    unsigned long long size;
    unsigned int flags;
    unsigned int reserved[16];
} CUDA_EXTERNAL_MEMORY_BUFFER_DESC;
ZN_API CUresult cuIpcGetMemHandle(CUipcMemHandle *h, CUdeviceptr p);
ZN_API CUresult cuIpcOpenMemHandle(CUdeviceptr *p, CUipcMemHandle h, unsigned int flags);
ZN_API CUresult cuIpcOpenMemHandle_v2(CUdeviceptr *p, CUipcMemHandle h, unsigned int flags);
ZN_API CUresult cuIpcCloseMemHandle(CUdeviceptr p);
ZN_API CUresult cuIpcGetEventHandle(CUipcEventHandle *h, CUevent e);
ZN_API CUresult cuIpcOpenEventHandle(CUevent *e, CUipcEventHandle h);
ZN_API CUresult cuImportExternalMemory(CUexternalMemory *m,
                                       const CUDA_EXTERNAL_MEMORY_HANDLE_DESC *desc);
ZN_API CUresult cuExternalMemoryGetMappedBuffer(CUdeviceptr *p, CUexternalMemory m,
                                                const CUDA_EXTERNAL_MEMORY_BUFFER_DESC *desc);
ZN_API CUresult cuDestroyExternalMemory(CUexternalMemory m);
ZN_API CUresult cuMemPoolExportToShareableHandle(void *out, CUmemoryPool pool, int type,
                                                 unsigned long long flags);
ZN_API CUresult cuMemPoolImportFromShareableHandle(CUmemoryPool *pool, void *handle, int type,
                                                   unsigned long long flags);
ZN_API CUresult cuMemPoolExportPointer(CUmemPoolPtrExportData *out, CUdeviceptr ptr);
ZN_API CUresult cuMemPoolImportPointer(CUdeviceptr *out, CUmemoryPool pool,
                                       CUmemPoolPtrExportData *data);
ZN_API CUresult cuMemExportToShareableHandle(void *out, CUmemGenericAllocationHandle h,
                                             int type, unsigned long long flags);
ZN_API CUresult cuMemImportFromShareableHandle(CUmemGenericAllocationHandle *h, void *handle,
                                               int type);

/* tensor maps (zn_drv_tensormap.c): 128 opaque bytes, 64-byte aligned */
typedef struct CUtensorMap { _Alignas(64) uint64_t opaque[16]; } CUtensorMap;
ZN_API CUresult cuTensorMapEncodeTiled(CUtensorMap *map, int dtype, uint32_t rank, void *addr,
                                       const uint64_t *dim, const uint64_t *strides,
                                       const uint32_t *box, const uint32_t *estrides,
                                       int interleave, int swizzle, int l2promotion, int oobfill);
ZN_API CUresult cuTensorMapEncodeIm2col(CUtensorMap *map, int dtype, uint32_t rank, void *addr,
                                        const uint64_t *dim, const uint64_t *strides,
                                        const int *lower, const int *upper, uint32_t cpp,
                                        uint32_t ppc, const uint32_t *estrides, int interleave,
                                        int swizzle, int l2promotion, int oobfill);
ZN_API CUresult cuTensorMapReplaceAddress(CUtensorMap *map, void *addr);

#endif
