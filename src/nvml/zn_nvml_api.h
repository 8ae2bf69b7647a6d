/* zn_nvml_api.h: Zinc's own declarations of the NVML ABI it implements
 * (numbers and struct layouts are facts of NVIDIA's public nvml.h, API
 * version 13; the words are ours). */
#ifndef ZN_NVML_API_H
#define ZN_NVML_API_H

#include <stdint.h>

#define ZN_API __attribute__((visibility("default")))

typedef enum {
#define X(name, value, text) name = value,
#include "zn_nvml_errors.def"
#undef X
} nvmlReturn_t;

typedef struct nvmlDevice_st *nvmlDevice_t;

#define ZN_NVML_NAME_SIZE 96         /* NVML_DEVICE_NAME_V2_BUFFER_SIZE */
#define ZN_NVML_UUID_SIZE 80         /* NVML_DEVICE_UUID_BUFFER_SIZE */
#define ZN_NVML_BUS_ID_SIZE 32       /* NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE */
#define ZN_NVML_BUS_ID_LEGACY_SIZE 16

typedef struct {
    char busIdLegacy[ZN_NVML_BUS_ID_LEGACY_SIZE];
    unsigned int domain, bus, device;
    unsigned int pciDeviceId;        /* device id << 16 | vendor id */
    unsigned int pciSubSystemId;
    char busId[ZN_NVML_BUS_ID_SIZE];
} nvmlPciInfo_t;

typedef struct {
    unsigned int version;
    unsigned int domain, bus, device;
    unsigned int pciDeviceId, pciSubSystemId;
    unsigned int baseClass, subClass;
    char busId[ZN_NVML_BUS_ID_SIZE];
} nvmlPciInfoExt_t;

typedef struct { unsigned long long total, free, used; } nvmlMemory_t;
typedef struct {
    unsigned int version;            /* sizeof | 2 << 24 */
    unsigned long long total, reserved, free, used;
} nvmlMemory_v2_t;
typedef struct { unsigned int gpu, memory; } nvmlUtilization_t;

typedef struct { unsigned int pid; unsigned long long usedGpuMemory; } nvmlProcessInfo_v1_t;
typedef struct {
    unsigned int pid;
    unsigned long long usedGpuMemory;
    unsigned int gpuInstanceId, computeInstanceId;   /* 0xFFFFFFFF without MIG */
} nvmlProcessInfo_t;

#define ZN_NVML_STRUCT_VERSION(type, ver) ((unsigned int)(sizeof(type) | ((ver) << 24U)))

enum { ZN_NVML_TEMPERATURE_GPU = 0 };
enum { ZN_NVML_CLOCK_GRAPHICS = 0, ZN_NVML_CLOCK_SM = 1, ZN_NVML_CLOCK_MEM = 2, ZN_NVML_CLOCK_VIDEO = 3 };

#endif
