/* zn_nvml_device.c: the device list (one device) and its identity: name,
 * UUID, PCI address, index, compute capability. */
#include "zn_nvml.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

ZN_API nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *count)
{
    if (!zn_nvml_ready())
        return NVML_ERROR_UNINITIALIZED;
    if (!count)
        return NVML_ERROR_INVALID_ARGUMENT;
    *count = 1;
    return NVML_SUCCESS;
}

ZN_API nvmlReturn_t nvmlDeviceGetCount(unsigned int *count)
{
    return nvmlDeviceGetCount_v2(count);
}

ZN_API nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t *dev)
{
    if (!zn_nvml_ready())
        return NVML_ERROR_UNINITIALIZED;
    if (index != 0 || !dev)
        return NVML_ERROR_INVALID_ARGUMENT;
    *dev = zn_nvml_device();
    return NVML_SUCCESS;
}

ZN_API nvmlReturn_t nvmlDeviceGetHandleByIndex(unsigned int index, nvmlDevice_t *dev)
{
    return nvmlDeviceGetHandleByIndex_v2(index, dev);
}

ZN_API nvmlReturn_t nvmlDeviceGetHandleByUUID(const char *uuid, nvmlDevice_t *dev)
{
    if (!zn_nvml_ready())
        return NVML_ERROR_UNINITIALIZED;
    if (!uuid || !dev)
        return NVML_ERROR_INVALID_ARGUMENT;
    if (strcasecmp(uuid, zn_nvml_device()->uuid) != 0)
        return NVML_ERROR_NOT_FOUND;
    *dev = zn_nvml_device();
    return NVML_SUCCESS;
}

static void bus_ids(const struct nvmlDevice_st *d, char *full, size_t nf, char *legacy, size_t nl)
{
    if (full)
        snprintf(full, nf, "%08X:%02X:%02X.0", d->pci_domain, d->pci_bus, d->pci_device);
    if (legacy)
        snprintf(legacy, nl, "%04X:%02X:%02X.0", d->pci_domain, d->pci_bus, d->pci_device);
}

/* Accepts either spelling ("00000000:01:00.0" or "0000:01:00.0"), any case. */
ZN_API nvmlReturn_t nvmlDeviceGetHandleByPciBusId_v2(const char *bus_id, nvmlDevice_t *dev)
{
    if (!zn_nvml_ready())
        return NVML_ERROR_UNINITIALIZED;
    if (!bus_id || !dev)
        return NVML_ERROR_INVALID_ARGUMENT;
    unsigned dom, bus, devn;
    if (sscanf(bus_id, "%x:%x:%x", &dom, &bus, &devn) != 3)
        return NVML_ERROR_INVALID_ARGUMENT;
    const struct nvmlDevice_st *d = zn_nvml_device();
    if (dom != d->pci_domain || bus != d->pci_bus || devn != d->pci_device)
        return NVML_ERROR_NOT_FOUND;
    *dev = zn_nvml_device();
    return NVML_SUCCESS;
}

ZN_API nvmlReturn_t nvmlDeviceGetHandleByPciBusId(const char *bus_id, nvmlDevice_t *dev)
{
    return nvmlDeviceGetHandleByPciBusId_v2(bus_id, dev);
}

static nvmlReturn_t put_string(char *out, unsigned int len, const char *s)
{
    if (!out)
        return NVML_ERROR_INVALID_ARGUMENT;
    if ((size_t)snprintf(out, len, "%s", s) >= len)
        return NVML_ERROR_INSUFFICIENT_SIZE;
    return NVML_SUCCESS;
}

ZN_API nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t dev, char *name, unsigned int length)
{
    ZN_NVML_CHECK(dev);
    return put_string(name, length, dev->name);
}

ZN_API nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t dev, char *uuid, unsigned int length)
{
    ZN_NVML_CHECK(dev);
    return put_string(uuid, length, dev->uuid);
}

ZN_API nvmlReturn_t nvmlDeviceGetIndex(nvmlDevice_t dev, unsigned int *index)
{
    ZN_NVML_CHECK(dev);
    if (!index)
        return NVML_ERROR_INVALID_ARGUMENT;
    *index = 0;
    return NVML_SUCCESS;
}

ZN_API nvmlReturn_t nvmlDeviceGetMinorNumber(nvmlDevice_t dev, unsigned int *minor)
{
    return nvmlDeviceGetIndex(dev, minor);
}

ZN_API nvmlReturn_t nvmlDeviceGetCudaComputeCapability(nvmlDevice_t dev, int *major, int *minor)
{
    ZN_NVML_CHECK(dev);
    if (!major || !minor)
        return NVML_ERROR_INVALID_ARGUMENT;
    *major = dev->cc_major;
    *minor = dev->cc_minor;
    return NVML_SUCCESS;
}

/* The PCI info versions differ only in which fields exist: v1 lacks
 * pciSubSystemId and busId (older layout), v2/v3 match nvmlPciInfo_t. */
ZN_API nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t dev, nvmlPciInfo_t *pci)
{
    ZN_NVML_CHECK(dev);
    if (!pci)
        return NVML_ERROR_INVALID_ARGUMENT;
    memset(pci, 0, sizeof *pci);
    pci->domain = dev->pci_domain;
    pci->bus = dev->pci_bus;
    pci->device = dev->pci_device;
    pci->pciDeviceId = 0;            /* no PCI function: the CPU */
    bus_ids(dev, pci->busId, sizeof pci->busId, pci->busIdLegacy, sizeof pci->busIdLegacy);
    return NVML_SUCCESS;
}

ZN_API nvmlReturn_t nvmlDeviceGetPciInfo_v2(nvmlDevice_t dev, nvmlPciInfo_t *pci)
{
    return nvmlDeviceGetPciInfo_v3(dev, pci);
}

ZN_API nvmlReturn_t nvmlDeviceGetPciInfoExt(nvmlDevice_t dev, nvmlPciInfoExt_t *pci)
{
    ZN_NVML_CHECK(dev);
    if (!pci)
        return NVML_ERROR_INVALID_ARGUMENT;
    if (pci->version != ZN_NVML_STRUCT_VERSION(nvmlPciInfoExt_t, 1))
        return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
    unsigned int v = pci->version;
    memset(pci, 0, sizeof *pci);
    pci->version = v;
    pci->domain = dev->pci_domain;
    pci->bus = dev->pci_bus;
    pci->device = dev->pci_device;
    pci->baseClass = 0x03;           /* display controller, as a GPU would be */
    pci->subClass = 0x02;
    bus_ids(dev, pci->busId, sizeof pci->busId, NULL, 0);
    return NVML_SUCCESS;
}
