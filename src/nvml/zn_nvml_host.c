/* zn_nvml_host.c: the host facts behind NVML's answers. The device's
 * name, UUID, compute capability and PCI address follow the same rules as
 * Zinc's driver (src/driver/zn_drv_device.c), so that NVML and the CUDA
 * runtime describe one device; a test compares them. */
#include "zn_nvml.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "model name" and "cpu MHz" from /proc/cpuinfo. */
static void read_cpuinfo(char *model, size_t cap, unsigned *mhz)
{
    snprintf(model, cap, "unknown processor");
    *mhz = 2000;
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    char line[512];
    bool got_model = false, got_mhz = false;
    while (fgets(line, sizeof line, f) && !(got_model && got_mhz)) {
        char *colon = strchr(line, ':');
        if (!colon)
            continue;
        char *v = colon + 1;
        while (*v == ' ' || *v == '\t')
            v++;
        v[strcspn(v, "\n")] = 0;
        if (!got_model && !strncmp(line, "model name", 10)) {
            snprintf(model, cap, "%s", v);
            got_model = true;
        } else if (!got_mhz && !strncmp(line, "cpu MHz", 7)) {
            double m = atof(v);
            if (m > 0)
                *mhz = (unsigned)m;
            got_mhz = true;
        }
    }
    fclose(f);
}

/* ZINC_CC: "86" or "8.6"; default 8.6. */
static void parse_cc(const char *s, int *major, int *minor)
{
    *major = 8;
    *minor = 6;
    if (!s || !*s)
        return;
    int ma, mi;
    const char *dot = strchr(s, '.');
    if (dot) {
        ma = atoi(s);
        mi = atoi(dot + 1);
    } else {
        ma = atoi(s) / 10;
        mi = atoi(s) % 10;
    }
    if (ma >= 3 && ma <= 20 && mi >= 0 && mi <= 9) {
        *major = ma;
        *minor = mi;
    }
}

static uint64_t fnv1a(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) {
        h ^= b[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

/* The driver's device UUID: a hash of the machine id and CPU model. */
static void make_uuid(unsigned char u[16], const char *model)
{
    char mid[128] = "";
    FILE *f = fopen("/etc/machine-id", "r");
    if (f) {
        if (!fgets(mid, sizeof mid, f))
            mid[0] = 0;
        fclose(f);
    }
    uint64_t h1 = fnv1a(0xcbf29ce484222325ull, mid, strlen(mid));
    h1 = fnv1a(h1, model, strlen(model));
    uint64_t h2 = fnv1a(h1 ^ 0x5a494e43ull, "zinc-device-0", 13);
    memcpy(u, &h1, 8);
    memcpy(u + 8, &h2, 8);
    u[6] = (unsigned char)((u[6] & 0x0f) | 0x40);
    u[8] = (unsigned char)((u[8] & 0x3f) | 0x80);
}

void zn_nvml_probe(struct nvmlDevice_st *d)
{
    char model[200];
    read_cpuinfo(model, sizeof model, &d->mhz);
    snprintf(d->name, sizeof d->name, "Zinc CPU: %.80s", model);
    parse_cc(getenv("ZINC_CC"), &d->cc_major, &d->cc_minor);
    unsigned char u[16];
    make_uuid(u, model);
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
