/* zn_nvml_host.c: the host facts behind NVML's answers. The device's
 * name, UUID and compute capability come from src/util/zn_host.c, as the
 * driver's do, so that NVML and the CUDA runtime describe one device; a
 * test compares them. */
#include "zn_nvml.h"
#include "../util/zn_host.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void zn_nvml_probe(struct nvmlDevice_st *d)
{
    char model[200];
    int khz;
    zn_host_cpu(model, sizeof model, &khz);
    d->mhz = (unsigned)(khz / 1000);
    snprintf(d->name, sizeof d->name, "Zinc CPU: %.80s", model);
    zn_host_cc(&d->cc_major, &d->cc_minor);
    uint8_t u[16];
    zn_host_uuid(u);
    snprintf(d->uuid, sizeof d->uuid,
             "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0],
             u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13],
             u[14], u[15]);
    d->pci_domain = 0;
    d->pci_bus = 1;
    d->pci_device = 0;
}

bool zn_nvml_meminfo(unsigned long long *total, unsigned long long *avail)
{
    FILE *f = fopen("/proc/meminfo", "r");
    if (!f)
        return false;
    char line[256];
    unsigned long long kb, t = 0, a = 0;
    while (fgets(line, sizeof line, f)) {
        if (sscanf(line, "MemTotal: %llu kB", &kb) == 1)
            t = kb * 1024;
        else if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1)
            a = kb * 1024;
    }
    fclose(f);
    *total = t;
    *avail = a <= t ? a : t;
    return t > 0;
}

unsigned zn_nvml_cpu_busy(void)
{
    static unsigned long long last_busy, last_total;
    FILE *f = fopen("/proc/stat", "r");
    if (!f)
        return 0;
    unsigned long long v[8] = { 0 };
    int n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
                   &v[4], &v[5], &v[6], &v[7]);
    fclose(f);
    if (n < 4)
        return 0;
    unsigned long long idle = v[3] + v[4], total = 0;
    for (int i = 0; i < 8; i++)
        total += v[i];
    unsigned long long busy = total - idle;
    unsigned long long db = busy - last_busy, dt = total - last_total;
    last_busy = busy;
    last_total = total;
    return dt ? (unsigned)(db * 100 / dt) : 0;
}

bool zn_nvml_temperature(int *millideg)
{
    for (int i = 0; i < 16; i++) {
        char path[64];
        snprintf(path, sizeof path, "/sys/class/thermal/thermal_zone%d/temp", i);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        int t;
        int ok = fscanf(f, "%d", &t) == 1;
        fclose(f);
        if (ok && t > 0) {
            *millideg = t;
            return true;
        }
    }
    return false;
}
