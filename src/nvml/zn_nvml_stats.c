/* zn_nvml_stats.c: live queries. Memory is the host's RAM (device memory
 * is host memory), utilization the CPUs' busy share; clocks come from
 * /proc/cpuinfo; temperature from /sys/class/thermal where there is one.
 * What the host cannot tell is NVML_ERROR_NOT_SUPPORTED, never made up. */
#include "zn_nvml.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

ZN_API nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t dev, nvmlMemory_t *mem)
{
    ZN_NVML_CHECK(dev);
    if (!mem)
        return NVML_ERROR_INVALID_ARGUMENT;
    unsigned long long total, avail;
    if (!zn_nvml_meminfo(&total, &avail))
        return NVML_ERROR_UNKNOWN;
    mem->total = total;
    mem->free = avail;
    mem->used = total - avail;
    return NVML_SUCCESS;
}

ZN_API nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t dev, nvmlMemory_v2_t *mem)
{
    ZN_NVML_CHECK(dev);
    if (!mem)
        return NVML_ERROR_INVALID_ARGUMENT;
    if (mem->version != ZN_NVML_STRUCT_VERSION(nvmlMemory_v2_t, 2))
        return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
    unsigned long long total, avail;
    if (!zn_nvml_meminfo(&total, &avail))
        return NVML_ERROR_UNKNOWN;
    mem->total = total;
    mem->reserved = 0;
    mem->free = avail;
    mem->used = total - avail;
    return NVML_SUCCESS;
}

ZN_API nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t dev, nvmlUtilization_t *u)
{
    ZN_NVML_CHECK(dev);
    if (!u)
        return NVML_ERROR_INVALID_ARGUMENT;
    u->gpu = zn_nvml_cpu_busy();
    u->memory = 0;   /* memory-bus activity: the host does not tell */
    return NVML_SUCCESS;
}

ZN_API nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t dev, int sensor, unsigned int *temp)
{
    ZN_NVML_CHECK(dev);
    if (!temp || sensor != ZN_NVML_TEMPERATURE_GPU)
        return NVML_ERROR_INVALID_ARGUMENT;
    int mdeg;
    if (!zn_nvml_temperature(&mdeg))
        return NVML_ERROR_NOT_SUPPORTED;
    *temp = (unsigned)(mdeg / 1000);
    return NVML_SUCCESS;
}

/* Graphics and SM clocks: the CPU's clock; memory and video: unknown. */
ZN_API nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t dev, int type, unsigned int *mhz)
{
    ZN_NVML_CHECK(dev);
    if (!mhz)
        return NVML_ERROR_INVALID_ARGUMENT;
    if (type != ZN_NVML_CLOCK_GRAPHICS && type != ZN_NVML_CLOCK_SM)
        return NVML_ERROR_NOT_SUPPORTED;
    *mhz = dev->mhz;
    return NVML_SUCCESS;
}

ZN_API nvmlReturn_t nvmlDeviceGetMaxClockInfo(nvmlDevice_t dev, int type, unsigned int *mhz)
{
    return nvmlDeviceGetClockInfo(dev, type, mhz);
}

#define NOT_SUPPORTED_U32(fn)                                      \
    ZN_API nvmlReturn_t fn(nvmlDevice_t dev, unsigned int *out)    \
    {                                                              \
        ZN_NVML_CHECK(dev);                                        \
        return out ? NVML_ERROR_NOT_SUPPORTED : NVML_ERROR_INVALID_ARGUMENT; \
    }
NOT_SUPPORTED_U32(nvmlDeviceGetPowerUsage)
NOT_SUPPORTED_U32(nvmlDeviceGetPowerManagementLimit)
NOT_SUPPORTED_U32(nvmlDeviceGetEnforcedPowerLimit)
NOT_SUPPORTED_U32(nvmlDeviceGetFanSpeed)
NOT_SUPPORTED_U32(nvmlDeviceGetPerformanceState)
NOT_SUPPORTED_U32(nvmlDeviceGetPersistenceMode)

ZN_API nvmlReturn_t nvmlDeviceGetComputeMode(nvmlDevice_t dev, int *mode)
{
    ZN_NVML_CHECK(dev);
    if (!mode)
        return NVML_ERROR_INVALID_ARGUMENT;
    *mode = 0;   /* NVML_COMPUTEMODE_DEFAULT */
    return NVML_SUCCESS;
}

/* The process using the device is this one (each process has its own Zinc
 * device); its memory is its resident set. */
static unsigned long long resident_bytes(void)
{
    unsigned long long pages = 0, rss = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f) {
        if (fscanf(f, "%llu %llu", &pages, &rss) != 2)
            rss = 0;
        fclose(f);
    }
    return rss * (unsigned long long)sysconf(_SC_PAGESIZE);
}

static nvmlReturn_t one_process(unsigned int *count, void *infos, size_t size)
{
    if (!count)
        return NVML_ERROR_INVALID_ARGUMENT;
    unsigned int room = *count;
    *count = 1;
    if (room < 1 || !infos)
        return NVML_ERROR_INSUFFICIENT_SIZE;
    nvmlProcessInfo_t p = { .pid = (unsigned)getpid(), .usedGpuMemory = resident_bytes(),
                            .gpuInstanceId = 0xFFFFFFFFu, .computeInstanceId = 0xFFFFFFFFu };
    memcpy(infos, &p, size);
    return NVML_SUCCESS;
}

ZN_API nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t dev, unsigned int *count,
                                                             nvmlProcessInfo_t *infos)
{
    ZN_NVML_CHECK(dev);
    return one_process(count, infos, sizeof *infos);
}

ZN_API nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v2(nvmlDevice_t dev, unsigned int *count,
                                                             nvmlProcessInfo_t *infos)
{
    ZN_NVML_CHECK(dev);
    return one_process(count, infos, sizeof *infos);
}

ZN_API nvmlReturn_t nvmlDeviceGetComputeRunningProcesses(nvmlDevice_t dev, unsigned int *count,
                                                          nvmlProcessInfo_v1_t *infos)
{
    ZN_NVML_CHECK(dev);
    return one_process(count, infos, sizeof *infos);
}

/* No graphics work on a CPU device. */
ZN_API nvmlReturn_t nvmlDeviceGetGraphicsRunningProcesses_v3(nvmlDevice_t dev, unsigned int *count,
                                                              nvmlProcessInfo_t *infos)
{
    ZN_NVML_CHECK(dev);
    if (!count)
        return NVML_ERROR_INVALID_ARGUMENT;
    *count = 0;
    return NVML_SUCCESS;
}
