// nvml_query.cu: NVML on Zinc, linked -lnvidia-ml against Zinc's library
// (the toolkit ships no nvml.h: the few declarations used are below, from
// NVML's public ABI). NVML and the CUDA runtime must describe one device:
// same name, UUID and compute capability; count 1; host RAM as memory.
#include <unistd.h>

#include "blas_test.h"

extern "C" {
typedef struct nvmlDevice_st *nvmlDevice_t;
typedef struct { unsigned long long total, free, used; } nvmlMemory_t;
typedef struct { unsigned int version; unsigned long long total, reserved, free, used; } nvmlMemory_v2_t;
typedef struct { unsigned int gpu, memory; } nvmlUtilization_t;
typedef struct {
    char busIdLegacy[16];
    unsigned int domain, bus, device, pciDeviceId, pciSubSystemId;
    char busId[32];
} nvmlPciInfo_t;
typedef struct { unsigned int pid; unsigned long long usedGpuMemory; unsigned int gi, ci; } nvmlProcessInfo_t;
int nvmlInit_v2(void);
int nvmlShutdown(void);
const char *nvmlErrorString(int);
int nvmlSystemGetDriverVersion(char *, unsigned int);
int nvmlSystemGetCudaDriverVersion_v2(int *);
int nvmlDeviceGetCount_v2(unsigned int *);
int nvmlDeviceGetHandleByIndex_v2(unsigned int, nvmlDevice_t *);
int nvmlDeviceGetHandleByUUID(const char *, nvmlDevice_t *);
int nvmlDeviceGetHandleByPciBusId_v2(const char *, nvmlDevice_t *);
int nvmlDeviceGetName(nvmlDevice_t, char *, unsigned int);
int nvmlDeviceGetUUID(nvmlDevice_t, char *, unsigned int);
int nvmlDeviceGetIndex(nvmlDevice_t, unsigned int *);
int nvmlDeviceGetPciInfo_v3(nvmlDevice_t, nvmlPciInfo_t *);
int nvmlDeviceGetMemoryInfo(nvmlDevice_t, nvmlMemory_t *);
int nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t, nvmlMemory_v2_t *);
int nvmlDeviceGetUtilizationRates(nvmlDevice_t, nvmlUtilization_t *);
int nvmlDeviceGetCudaComputeCapability(nvmlDevice_t, int *, int *);
int nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t, unsigned int *, nvmlProcessInfo_t *);
int nvmlDeviceGetPowerUsage(nvmlDevice_t, unsigned int *);
int nvmlDeviceGetTemperature(nvmlDevice_t, int, unsigned int *);
}

#define NVML_OK(x) do { int r_ = (x); CHECK(r_ == 0, "%s -> %d (%s)", #x, r_, nvmlErrorString(r_)); } while (0)

int main()
{
    cudaDeviceProp prop;
    CUDA_OK(cudaGetDeviceProperties(&prop, 0));
    NVML_OK(nvmlInit_v2());
    check_loaded_from_zinc("libnvidia-ml.so.1");
    unsigned int count = 0;
    NVML_OK(nvmlDeviceGetCount_v2(&count));
    CHECK(count == 1, "device count %u", count);
    nvmlDevice_t dev;
    NVML_OK(nvmlDeviceGetHandleByIndex_v2(0, &dev));
    CHECK(nvmlDeviceGetHandleByIndex_v2(1, &dev) != 0, "index 1 accepted");
    NVML_OK(nvmlDeviceGetHandleByIndex_v2(0, &dev));
    char name[96];
    NVML_OK(nvmlDeviceGetName(dev, name, sizeof name));
    CHECK(strcmp(name, prop.name) == 0, "NVML name '%s' vs CUDA '%s'", name, prop.name);
    CHECK(nvmlDeviceGetName(dev, name, 4) == 7, "short buffer not INSUFFICIENT_SIZE");
    char uuid[80], want[80];
    const unsigned char *u = (const unsigned char *)prop.uuid.bytes;
    snprintf(want, sizeof want,
             "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0], u[1],
             u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
    NVML_OK(nvmlDeviceGetUUID(dev, uuid, sizeof uuid));
    CHECK(strcmp(uuid, want) == 0, "NVML UUID %s vs CUDA %s", uuid, want);
    nvmlDevice_t by;
    NVML_OK(nvmlDeviceGetHandleByUUID(uuid, &by));
    CHECK(by == dev, "handle by UUID differs");
    int major = 0, minor = 0;
    NVML_OK(nvmlDeviceGetCudaComputeCapability(dev, &major, &minor));
    CHECK(major == prop.major && minor == prop.minor, "NVML cc %d.%d vs CUDA %d.%d", major, minor,
          prop.major, prop.minor);
    nvmlPciInfo_t pci;
    NVML_OK(nvmlDeviceGetPciInfo_v3(dev, &pci));
    CHECK((int)pci.bus == prop.pciBusID && (int)pci.device == prop.pciDeviceID &&
              (int)pci.domain == prop.pciDomainID,
          "PCI %x:%x:%x vs CUDA %x:%x:%x", pci.domain, pci.bus, pci.device, prop.pciDomainID,
          prop.pciBusID, prop.pciDeviceID);
    NVML_OK(nvmlDeviceGetHandleByPciBusId_v2(pci.busId, &by));
    CHECK(by == dev, "handle by PCI bus id %s differs", pci.busId);
    unsigned int index = 9;
    NVML_OK(nvmlDeviceGetIndex(dev, &index));
    CHECK(index == 0, "index %u", index);
    nvmlMemory_t mem;
    NVML_OK(nvmlDeviceGetMemoryInfo(dev, &mem));
    long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
    unsigned long long phys = (unsigned long long)pages * (unsigned long long)psize;
    CHECK(mem.total > 0 && mem.free <= mem.total && mem.used + mem.free == mem.total,
          "memory total %llu free %llu used %llu", mem.total, mem.free, mem.used);
    CHECK(mem.total == phys, "memory total %llu vs host RAM %llu", mem.total, phys);
    nvmlMemory_v2_t mem2;
    mem2.version = (unsigned int)(sizeof mem2 | (2u << 24));
    NVML_OK(nvmlDeviceGetMemoryInfo_v2(dev, &mem2));
    CHECK(mem2.total == mem.total, "memory v2 total %llu", mem2.total);
    nvmlUtilization_t util;
    NVML_OK(nvmlDeviceGetUtilizationRates(dev, &util));
    CHECK(util.gpu <= 100, "utilization %u%%", util.gpu);
    unsigned int nproc = 4;
    nvmlProcessInfo_t procs[4];
    NVML_OK(nvmlDeviceGetComputeRunningProcesses_v3(dev, &nproc, procs));
    CHECK(nproc == 1 && procs[0].pid == (unsigned)getpid(), "processes: %u, pid %u", nproc,
          nproc ? procs[0].pid : 0);
    unsigned int mw;
    CHECK(nvmlDeviceGetPowerUsage(dev, &mw) == 3, "power usage is not NOT_SUPPORTED");
    unsigned int temp;
    int tr = nvmlDeviceGetTemperature(dev, 0, &temp);
    CHECK(tr == 0 || tr == 3, "temperature: %d", tr);
    int cver = 0;
    NVML_OK(nvmlSystemGetCudaDriverVersion_v2(&cver));
    int dver = 0;
    CUDA_OK(cudaDriverGetVersion(&dver));
    CHECK(cver == dver, "NVML CUDA driver version %d vs cudaDriverGetVersion %d", cver, dver);
    char drv[80];
    NVML_OK(nvmlSystemGetDriverVersion(drv, sizeof drv));
    NVML_OK(nvmlShutdown());
    CHECK(nvmlDeviceGetCount_v2(&count) == 1, "query after shutdown is not UNINITIALIZED");
    return finish("nvml_query");
}
