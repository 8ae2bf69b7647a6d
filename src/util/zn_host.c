#include "zn_host.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void zn_host_cpu(char *model, size_t cap, int *khz)
{
    snprintf(model, cap, "unknown processor");
    *khz = 2000000;
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    char line[512];
    int got_model = 0, got_mhz = 0;
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
            got_model = 1;
        } else if (!got_mhz && !strncmp(line, "cpu MHz", 7)) {
            double mhz = atof(v);
            if (mhz > 0)
                *khz = (int)(mhz * 1000.0);
            got_mhz = 1;
        }
    }
    fclose(f);
}

int zn_host_cc(int *major, int *minor)
{
    *major = 8;
    *minor = 6;
    const char *s = getenv("ZINC_CC");
    if (!s || !*s)
        return 0;
    const char *dot = strchr(s, '.');
    int ma, mi;
    if (dot) {
        ma = atoi(s);
        mi = atoi(dot + 1);
    } else {
        int n = atoi(s);
        ma = n / 10;
        mi = n % 10;
    }
    if (ma < 3 || ma > 20 || mi < 0 || mi > 9)
        return -1;
    *major = ma;
    *minor = mi;
    return 0;
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

void zn_host_uuid(uint8_t u[16])
{
    char model[200], mid[128] = "";
    int khz;
    zn_host_cpu(model, sizeof model, &khz);
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
    u[6] = (uint8_t)((u[6] & 0x0f) | 0x40);
    u[8] = (uint8_t)((u[8] & 0x3f) | 0x80);
}
