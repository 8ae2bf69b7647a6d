/* zn_drv_device.c: cuInit and the one device, the host CPU.
 *
 * The reported compute capability comes from ZINC_CC ("86" or "8.6",
 * default 8.6); per-SM limits follow that capability so that programs that
 * size shared memory or blocks by them see a consistent device. The SM
 * count is the executor's worker count.
 */
#include "zn_drv.h"
#include "../exec/zn_exec.h"
#include "../util/zn_host.h"
#include "../util/zn_log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

zn_dev zn_drv_dev;
static pthread_once_t dev_once = PTHREAD_ONCE_INIT;

/* cc, shared opt-in per block, shared per SM, threads per SM, blocks per SM */
static const zn_sm_limits sm_table[] = {
    { 75, 65536, 65536, 1024, 16 },
    { 80, 166912, 167936, 2048, 32 },
    { 86, 101376, 102400, 1536, 16 },
    { 87, 166912, 167936, 2048, 16 },
    { 89, 101376, 102400, 1536, 24 },
    { 90, 232448, 233472, 2048, 32 },
    { 100, 232448, 233472, 2048, 32 },
    { 120, 101376, 102400, 1536, 32 },
};

static void dev_init_once(void)
{
    zn_dev *d = &zn_drv_dev;
    char model[200];
    zn_host_cpu(model, sizeof model, &d->clock_khz);
    snprintf(d->name, sizeof d->name, "Zinc CPU: %s", model);
    if (zn_host_cc(&d->cc_major, &d->cc_minor))
        zn_log(ZN_LOG_WARN, "ZINC_CC=%s is not a compute capability; using 8.6",
               getenv("ZINC_CC"));
    int cc = d->cc_major * 10 + d->cc_minor;
    d->sm = &sm_table[0];
    for (size_t i = 0; i < sizeof sm_table / sizeof sm_table[0]; i++)
        if (sm_table[i].cc <= cc)
            d->sm = &sm_table[i];
    long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE), l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
    d->l2_bytes = l3 > 0 ? (int)l3 : l2 > 0 ? (int)l2 : 4 << 20;
    d->pci_domain = 0;
    d->pci_bus = 1;
    d->pci_device = 0;
    zn_host_uuid((uint8_t *)d->uuid.bytes);
}

void zn_dev_init(void)
{
    pthread_once(&dev_once, dev_init_once);
}

unsigned zn_dev_cc(void)
{
    zn_dev_init();
    return (unsigned)(zn_drv_dev.cc_major * 10 + zn_drv_dev.cc_minor);
}

/* CUDA_VISIBLE_DEVICES that names no device 0 hides the CPU device. */
static bool device_hidden(void)
{
    const char *v = getenv("CUDA_VISIBLE_DEVICES");
    if (!v)
        return false;
    while (*v == ' ')
        v++;
    return !(v[0] == '0' && (v[1] == 0 || v[1] == ',')) && strncasecmp(v, "GPU-", 4) != 0;
}

CUresult cuInit(unsigned int flags)
{
    if (flags != 0)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    if (atomic_load(&zn_drv_inited))
        ZN_RET(CUDA_SUCCESS);
    if (device_hidden())
        ZN_RET(CUDA_ERROR_NO_DEVICE);
    zn_dev_init();
    if (zn_exec_init(0) != 0) {
        zn_log(ZN_LOG_ERROR, "cuInit: the executor failed to start");
        ZN_RET(CUDA_ERROR_OPERATING_SYSTEM);
    }
    size_t used, total;
    zn_mem_info(&used, &total);
    zn_drv_dev.total_mem = total;
    zn_drv_dev.sm_count = (int)zn_exec_threads();
    if (zn_drv_dev.sm_count < 1)
        zn_drv_dev.sm_count = 1;
    atomic_store(&zn_drv_inited, 1);
    ZN_RET(CUDA_SUCCESS);
}

CUresult cuDriverGetVersion(int *version)
{
    if (!version)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    *version = ZN_DRIVER_VERSION;
    ZN_RET(CUDA_SUCCESS);
}

/* Init and device-ordinal check shared by the device queries. */
#define ZN_CHECK_DEV(dev) do { ZN_CHECK_INIT(); \
        if ((dev) < 0 || (dev) >= ZN_NDEVICES) ZN_RET(CUDA_ERROR_INVALID_DEVICE); } while (0)

CUresult cuDeviceGet(CUdevice *dev, int ordinal)
{
    ZN_CHECK_INIT();
    if (!dev)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    if (ordinal < 0 || ordinal >= ZN_NDEVICES)
        ZN_RET(CUDA_ERROR_INVALID_DEVICE);
    *dev = ordinal;
    ZN_RET(CUDA_SUCCESS);
}

CUresult cuDeviceGetCount(int *count)
{
    ZN_CHECK_INIT();
    if (!count)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    *count = ZN_NDEVICES;
    ZN_RET(CUDA_SUCCESS);
}

CUresult cuDeviceGetName(char *name, int len, CUdevice dev)
{
    ZN_CHECK_DEV(dev);
    if (!name || len <= 0)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    snprintf(name, (size_t)len, "%s", zn_drv_dev.name);
    ZN_RET(CUDA_SUCCESS);
}

CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice dev)
{
    ZN_CHECK_DEV(dev);
    if (!bytes)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    *bytes = zn_drv_dev.total_mem;
    ZN_RET(CUDA_SUCCESS);
}

CUresult zn_dev_attr(int *pi, int attrib)
{
    const zn_dev *d = &zn_drv_dev;
    switch (attrib) {
#define A(num, name, value) case num: *pi = (int)(value); return CUDA_SUCCESS;
#include "zn_drv_attrs.def"
#undef A
    default:
        return CUDA_ERROR_INVALID_VALUE;
    }
}

CUresult cuDeviceGetAttribute(int *pi, CUdevice_attribute attrib, CUdevice dev)
{
    ZN_CHECK_DEV(dev);
    if (!pi)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    ZN_RET(zn_dev_attr(pi, (int)attrib));
}

CUresult cuDeviceGetUuid(CUuuid *uuid, CUdevice dev)
{
    ZN_CHECK_DEV(dev);
    if (!uuid)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    *uuid = zn_drv_dev.uuid;
    ZN_RET(CUDA_SUCCESS);
}

CUresult cuDeviceGetUuid_v2(CUuuid *uuid, CUdevice dev)
{
    return cuDeviceGetUuid(uuid, dev);
}

CUresult cuDeviceGetPCIBusId(char *id, int len, CUdevice dev)
{
    ZN_CHECK_DEV(dev);
    if (!id || len <= 0)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    snprintf(id, (size_t)len, "%04x:%02x:%02x.0", zn_drv_dev.pci_domain,
             zn_drv_dev.pci_bus, zn_drv_dev.pci_device);
    ZN_RET(CUDA_SUCCESS);
}

/* Accepts "domain:bus:device.function" and "bus:device.function" (hex). */
CUresult cuDeviceGetByPCIBusId(CUdevice *dev, const char *id)
{
    ZN_CHECK_INIT();
    if (!dev || !id)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    unsigned dom = 0, bus, devn, fn;
    if (sscanf(id, "%x:%x:%x.%x", &dom, &bus, &devn, &fn) != 4) {
        dom = 0;
        if (sscanf(id, "%x:%x.%x", &bus, &devn, &fn) != 3)
            ZN_RET(CUDA_ERROR_INVALID_VALUE);
    }
    if ((int)dom != zn_drv_dev.pci_domain || (int)bus != zn_drv_dev.pci_bus ||
        (int)devn != zn_drv_dev.pci_device)
        ZN_RET(CUDA_ERROR_INVALID_DEVICE);
    *dev = 0;
    ZN_RET(CUDA_SUCCESS);
}

CUresult cuDeviceGetProperties(CUdevprop *p, CUdevice dev)
{
    ZN_CHECK_DEV(dev);
    if (!p)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    zn_dev_attr(&p->maxThreadsPerBlock, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
    for (int i = 0; i < 3; i++) {
        zn_dev_attr(&p->maxThreadsDim[i], CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X + i);
        zn_dev_attr(&p->maxGridSize[i], CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X + i);
    }
    zn_dev_attr(&p->sharedMemPerBlock, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK);
    zn_dev_attr(&p->totalConstantMemory, CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY);
    zn_dev_attr(&p->SIMDWidth, CU_DEVICE_ATTRIBUTE_WARP_SIZE);
    zn_dev_attr(&p->memPitch, CU_DEVICE_ATTRIBUTE_MAX_PITCH);
    zn_dev_attr(&p->regsPerBlock, CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK);
    zn_dev_attr(&p->clockRate, CU_DEVICE_ATTRIBUTE_CLOCK_RATE);
    zn_dev_attr(&p->textureAlign, CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT);
    ZN_RET(CUDA_SUCCESS);
}

CUresult cuDeviceComputeCapability(int *major, int *minor, CUdevice dev)
{
    ZN_CHECK_DEV(dev);
    if (!major || !minor)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    *major = zn_drv_dev.cc_major;
    *minor = zn_drv_dev.cc_minor;
    ZN_RET(CUDA_SUCCESS);
}

/* One device: it has no peers. */
CUresult cuDeviceCanAccessPeer(int *can, CUdevice dev, CUdevice peer)
{
    ZN_CHECK_DEV(dev);
    if (!can)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    if (peer < 0 || peer >= ZN_NDEVICES)
        ZN_RET(CUDA_ERROR_INVALID_DEVICE);
    *can = 0;
    ZN_RET(CUDA_SUCCESS);
}

CUresult cuDeviceGetP2PAttribute(int *value, int attrib, CUdevice src, CUdevice dst)
{
    ZN_CHECK_DEV(src);
    if (!value || attrib < 1 || attrib > ZN_CU_DEVICE_P2P_ATTRIBUTE_MAX)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    /* src == dst is invalid, and there is no other device */
    ZN_RET(CUDA_ERROR_INVALID_DEVICE);
}

/* No profiler to drive: starting and stopping it are no-ops. */
CUresult cuProfilerStart(void)
{
    ZN_CHECK_INIT();
    ZN_RET(CUDA_SUCCESS);
}

CUresult cuProfilerStop(void)
{
    ZN_CHECK_INIT();
    ZN_RET(CUDA_SUCCESS);
}

/* A LUID identifies a Windows display adapter: there is none. */
CUresult cuDeviceGetLuid(char *luid, unsigned int *mask, CUdevice dev)
{
    ZN_CHECK_DEV(dev);
    zn_log(ZN_LOG_WARN, "cuDeviceGetLuid: no LUID on this platform");
    ZN_RET(CUDA_ERROR_NOT_SUPPORTED);
}

/* Execution affinity (contexts limited to some SMs): not supported, so
 * cuCtxCreate_v3/v4 refuse affinity parameters (zn_drv_ctx.c). */
CUresult cuDeviceGetExecAffinitySupport(int *pi, int type, CUdevice dev)
{
    ZN_CHECK_DEV(dev);
    if (!pi || type != ZN_CU_EXEC_AFFINITY_TYPE_SM_COUNT)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    *pi = 0;
    ZN_RET(CUDA_SUCCESS);
}
