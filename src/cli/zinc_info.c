/* zinc_info.c: `zinc info` prints the host CPU Zinc runs kernels on (and
 * the features LLVM compiles for), the kernel cache, the versions, and,
 * when Zinc's libcuda.so.1 is found, what it reports through the driver API
 * (the same calls cudart makes at start-up), every device attribute
 * included (docs/info.md). */
#define _GNU_SOURCE   /* sched_getaffinity */
#include "zinc_cli.h"

#include <dlfcn.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <llvm-c/Core.h>
#include <llvm-c/TargetMachine.h>
#include "cache/zn_cache.h"

#ifndef ZINC_VERSION
#define ZINC_VERSION "unknown"
#endif

/* Driver API entry points, declared here in Zinc's own words: every one
 * returns a CUresult (0 = success); a CUdevice is an int ordinal. */
typedef int (*cu_init_fn)(unsigned flags);
typedef int (*cu_int_fn)(int *out);
typedef int (*cu_device_get_fn)(int *dev, int ordinal);
typedef int (*cu_device_name_fn)(char *name, int len, int dev);
typedef int (*cu_device_attr_fn)(int *value, int attr, int dev);
typedef int (*cu_device_mem_fn)(size_t *bytes, int dev);
typedef int (*cu_device_uuid_fn)(unsigned char uuid[16], int dev);

/* Every CUdevice_attribute, named once: the driver's own table. The value
 * expressions (over the driver's device struct) are not used here. */
static const struct {
    int id;
    const char *name;
} all_attrs[] = {
#define A(num, NAME, value) { num, #NAME },
#include "../driver/zn_drv_attrs.def"
#undef A
};

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

/* The CPU and features LLVM generates kernel code for ("+avx2,...": only
 * the enabled ones are listed), wrapped to fit a terminal. */
static void print_llvm_target(void)
{
    char *cpu = LLVMGetHostCPUName(), *feats = LLVMGetHostCPUFeatures();
    printf("  llvm cpu:     %s\n", cpu ? cpu : "?");
    printf("  llvm features:");
    int col = 80, n = 0;
    for (char *f = feats ? strtok(feats, ",") : NULL; f; f = strtok(NULL, ",")) {
        if (f[0] != '+')
            continue;
        int w = (int)strlen(f + 1) + 1;
        if (col + w > 78) {
            printf("\n   ");
            col = 3;
        }
        printf(" %s", f + 1);
        col += w;
        n++;
    }
    printf("%s\n", n ? "" : " (none)");
    LLVMDisposeMessage(cpu);
    LLVMDisposeMessage(feats);
}

static void print_cache(void)
{
    char dir[4096];
    zn_cache_stats st;
    int have = zn_cache_dir(dir, sizeof dir) == 0;
    zn_cache_stat(&st);
    printf("kernel cache\n");
    printf("  state:        %s\n", zn_cache_enabled() ? "enabled" : "disabled (CUDA_CACHE_DISABLE)");
    printf("  folder:       %s%s\n", have ? dir : "(none)", have ? "/kernels" : "");
    printf("  entries:      %llu\n", (unsigned long long)st.entries);
    printf("  size:         %llu bytes (max %llu)\n", (unsigned long long)st.bytes,
           (unsigned long long)st.max_bytes);
}

static void print_versions(void)
{
    unsigned maj = 0, min = 0, patch = 0;
    LLVMGetVersion(&maj, &min, &patch);
    printf("versions\n");
    printf("  zinc:         %s\n", ZINC_VERSION);
    printf("  compiler:     %s, build %.16s\n", ZINC_COMPILER_VERSION, zn_build_id());
    printf("  llvm:         %u.%u.%u\n", maj, min, patch);
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
    cu_device_uuid_fn uuid = (cu_device_uuid_fn)dlsym(h, "cuDeviceGetUuid");
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
    printf("  driver ABI:   %d (cuDriverGetVersion)\n", ver);
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
        unsigned char u[16];
        if (uuid && uuid(u, dev) == 0)
            printf("  %-26s GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x\n",
                   "uuid:", u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9],
                   u[10], u[11], u[12], u[13], u[14], u[15]);
        printf("  attributes (cuDeviceGetAttribute; those it answers):\n");
        for (size_t a = 0; a < sizeof all_attrs / sizeof all_attrs[0]; a++) {
            int v = 0;
            if (attr(&v, all_attrs[a].id, dev) == 0)
                printf("    %3d %-48s %d\n", all_attrs[a].id, all_attrs[a].name, v);
        }
    }
    return 0;
}

int zinc_cmd_info(int argc, char **argv)
{
    print_host();
    print_llvm_target();
    print_cache();
    print_versions();
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
