/* zn_nvml.h: libnvidia-ml internals: the one device (the host CPU, as
 * Zinc's driver presents it) and the host facts behind the queries. */
#ifndef ZN_NVML_H
#define ZN_NVML_H

#include "zn_nvml_api.h"

#include <stdbool.h>
#include <stddef.h>

struct nvmlDevice_st {
    char name[ZN_NVML_NAME_SIZE];    /* "Zinc CPU: <model name>", as the driver */
    char uuid[ZN_NVML_UUID_SIZE];    /* "GPU-xxxxxxxx-...", the driver's cuDeviceGetUuid */
    int cc_major, cc_minor;
    unsigned int mhz;
    unsigned int pci_domain, pci_bus, pci_device;
};

/* zn_nvml_init.c: NULL before nvmlInit or after the last nvmlShutdown. */
nvmlDevice_t zn_nvml_device(void);
bool zn_nvml_ready(void);

/* zn_nvml_host.c: what the host tells. */
void zn_nvml_probe(struct nvmlDevice_st *d);
bool zn_nvml_meminfo(unsigned long long *total, unsigned long long *avail);
/* Busy percentage of all CPUs since the previous call (first: since boot). */
unsigned zn_nvml_cpu_busy(void);
/* Millidegrees C from /sys/class/thermal, false when none. */
bool zn_nvml_temperature(int *millideg);

#define ZN_NVML_CHECK(dev)                                 \
    do {                                                   \
        if (!zn_nvml_ready())                              \
            return NVML_ERROR_UNINITIALIZED;               \
        if ((dev) != zn_nvml_device())                     \
            return NVML_ERROR_INVALID_ARGUMENT;            \
    } while (0)

#endif
