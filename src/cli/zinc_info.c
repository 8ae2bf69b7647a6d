/* zinc_info.c: `zinc info` prints the host CPU Zinc runs kernels on and,
 * when Zinc's libcuda.so.1 is found, what it reports through the driver API
 * (the same calls cudart makes at start-up). */
#define _GNU_SOURCE   /* sched_getaffinity */
#include "zinc_cli.h"

#include <dlfcn.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Driver API entry points, declared here in Zinc's own words: every one
 * returns a CUresult (0 = success); a CUdevice is an int ordinal. */
typedef int (*cu_init_fn)(unsigned flags);
typedef int (*cu_int_fn)(int *out);
typedef int (*cu_device_get_fn)(int *dev, int ordinal);
typedef int (*cu_device_name_fn)(char *name, int len, int dev);
typedef int (*cu_device_attr_fn)(int *value, int attr, int dev);
typedef int (*cu_device_mem_fn)(size_t *bytes, int dev);

/* Device attributes shown: label, CUdevice_attribute value. */
#define ZINC_INFO_ATTRS(X)                 \
    X("compute capability major", 75)      \
    X("compute capability minor", 76)      \
    X("multiprocessors", 16)               \
    X("warp size", 10)                     \
    X("max threads per block", 1)          \
    X("shared memory per block", 8)

static void cpu_model(char *out, size_t n)
{
    snprintf(out, n, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "model name", 10) != 0)
            continue;
        char *colon = strchr(line, ':');
        if (colon) {
            colon += 1 + (colon[1] == ' ');
            colon[strcspn(colon, "\n")] = 0;
            snprintf(out, n, "%s", colon);
        }
        break;
    }
    fclose(f);
}

static int usable_cores(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        return CPU_COUNT(&set);
    return (int)sysconf(_SC_NPROCESSORS_ONLN);
}

static void print_host(void)
{
    char model[256];
    cpu_model(model, sizeof model);
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    printf("host\n");
    printf("  cpu:          %s\n", model);
    printf("  cores:        %d (online %ld)\n", usable_cores(), sysconf(_SC_NPROCESSORS_ONLN));
    printf("  memory:       %.1f GiB\n", pages > 0 && page > 0 ? (double)pages * (double)page / (1 << 30) : 0.0);
    const char *cc = getenv("ZINC_CC"), *threads = getenv("ZINC_THREADS");
    printf("  ZINC_CC:      %s\n", cc ? cc : "(unset: the driver's default)");
    printf("  ZINC_THREADS: %s\n", threads ? threads : "(unset: one worker per core)");
}

/* Asks the library itself; any missing entry point or error is reported. */
static int print_device(const char *libpath)
{
    void *h = dlopen(libpath, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        printf("  driver:       cannot load: %s\n", dlerror());
        return 1;
    }
    cu_init_fn init = (cu_init_fn)dlsym(h, "cuInit");
    cu_int_fn version = (cu_int_fn)dlsym(h, "cuDriverGetVersion");
    cu_int_fn count = (cu_int_fn)dlsym(h, "cuDeviceGetCount");
    cu_device_get_fn get = (cu_device_get_fn)dlsym(h, "cuDeviceGet");
    cu_device_name_fn name = (cu_device_name_fn)dlsym(h, "cuDeviceGetName");
    cu_device_attr_fn attr = (cu_device_attr_fn)dlsym(h, "cuDeviceGetAttribute");
    cu_device_mem_fn mem = (cu_device_mem_fn)dlsym(h, "cuDeviceTotalMem_v2");
    if (!init || !version || !count || !get || !name || !attr || !mem) {
        printf("  driver:       incomplete (missing driver API entry points)\n");
        return 1;
    }
    int rc = init(0), ver = 0, n = 0;
    if (rc != 0 || version(&ver) != 0 || count(&n) != 0) {
        printf("  driver:       cuInit/cuDriverGetVersion/cuDeviceGetCount failed (%d)\n", rc);
        return 1;
    }
    printf("  driver:       CUDA %d.%d, %d device(s)\n", ver / 1000, ver % 1000 / 10, n);
    for (int i = 0; i < n; i++) {
        int dev = 0;
        char devname[256] = "?";
        size_t bytes = 0;
        if (get(&dev, i) != 0)
            continue;
        name(devname, (int)sizeof devname, dev);
        mem(&bytes, dev);
        printf("device %d: %s\n", i, devname);
        printf("  %-26s %.1f GiB\n", "memory:", (double)bytes / (1 << 30));
#define X(label, id) { int v = 0; if (attr(&v, id, dev) == 0) printf("  %-26s %d\n", label ":", v); }
        ZINC_INFO_ATTRS(X)
#undef X
    }
    return 0;
}

int zinc_cmd_info(int argc, char **argv)
{
    print_host();
    char dir[PATH_MAX], lib[PATH_MAX + 16];
    bool found = zinc_lib_dir(dir, sizeof dir);
    snprintf(lib, sizeof lib, "%s/libcuda.so.1", dir);
    printf("zinc\n  libcuda.so.1: %s (%s)\n", lib, found ? "found" : "NOT FOUND; set ZINC_LIB_DIR");
    char audit[PATH_MAX];
    bool audit_found = zinc_audit_lib(audit, sizeof audit);
    printf("  LD_AUDIT lib: %s\n", audit_found ? audit : "libzinc_ld.so NOT FOUND (RPATH can win over Zinc)");
    if (found)
        print_device(lib);
    return 0;
}
