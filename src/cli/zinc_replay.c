/* zinc_replay.c: `zinc replay DIR LAUNCH_ID` runs one launch captured by
 * `zinc trace --capture` again, alone, on Zinc's driver through the driver
 * API: loads the kernel's PTX, allocates its buffers (anywhere), patches
 * the pointer parameters, restores the "before" contents, launches, and
 * compares every buffer with the recorded "after" contents byte for byte.
 * Exit status: 0 match, 1 mismatch, 2 error. Format: docs/trace.md. */
#include "zinc_cli.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int (*fn_t)();
#define DRIVER_FNS(X) X(cuInit) X(cuDeviceGet) X(cuDevicePrimaryCtxRetain) X(cuCtxSetCurrent) \
    X(cuModuleLoadData) X(cuModuleGetFunction) X(cuModuleGetGlobal_v2) X(cuMemAlloc_v2)       \
    X(cuMemcpyHtoD_v2) X(cuMemcpyDtoH_v2) X(cuLaunchKernel) X(cuCtxSynchronize)              \
    X(cuGetErrorName)

static struct {
#define X(f) fn_t f;
    DRIVER_FNS(X)
#undef X
} drv;

enum { MAX_BUFS = 256, MAX_PARAMS = 1024, MAX_PATCHES = 1024 };

typedef struct rbuf { size_t size; char global[256]; unsigned long long dev; } rbuf;

typedef struct record {
    char kernel[1024], ptx[PATH_MAX];
    unsigned grid[3], block[3], shared;
    unsigned char *params;
    size_t nparams_bytes;
    unsigned param_off[MAX_PARAMS];
    int nparams;
    rbuf bufs[MAX_BUFS];
    int nbufs;
    struct { unsigned offset; int buf; unsigned long long delta; } patches[MAX_PATCHES];
    int npatches;
} record;

static void *read_all(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = len >= 0 ? malloc((size_t)len + 1) : NULL;
    if (buf && fread(buf, 1, (size_t)len, f) == (size_t)len) {
        buf[len] = 0;
        *n = (size_t)len;
    } else {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    return buf;
}

static int hexval(int c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* One line of launch.txt; false when it is malformed. */
static bool parse_line(record *r, char *line)
{
    char word[32];
    int at = 0;
    if (sscanf(line, "%31s %n", word, &at) < 1)
        return true;
    char *rest = line + at;
    rest[strcspn(rest, "\n")] = 0;
    if (!strcmp(word, "kernel"))
        return snprintf(r->kernel, sizeof r->kernel, "%s", rest) > 0;
    if (!strcmp(word, "ptx"))
        return snprintf(r->ptx, sizeof r->ptx, "%s", rest) > 0;
    if (!strcmp(word, "grid"))
        return sscanf(rest, "%u %u %u", &r->grid[0], &r->grid[1], &r->grid[2]) == 3;
    if (!strcmp(word, "block"))
        return sscanf(rest, "%u %u %u", &r->block[0], &r->block[1], &r->block[2]) == 3;
    if (!strcmp(word, "shared"))
        return sscanf(rest, "%u", &r->shared) == 1;
    if (!strcmp(word, "params")) {
        char *hex;
        r->nparams_bytes = strtoull(rest, &hex, 10);
        while (*hex == ' ')
            hex++;
        if (strlen(hex) != 2 * r->nparams_bytes)
            return false;
        r->params = calloc(r->nparams_bytes + 8, 1);
        for (size_t i = 0; r->params && i < r->nparams_bytes; i++) {
            int hi = hexval(hex[2 * i]), lo = hexval(hex[2 * i + 1]);
            if (hi < 0 || lo < 0)
                return false;
            r->params[i] = (unsigned char)(hi << 4 | lo);
        }
        return r->params != NULL;
    }
    if (!strcmp(word, "param")) {
        int i;
        unsigned off, size;
        if (sscanf(rest, "%d %u %u", &i, &off, &size) != 3 || i != r->nparams ||
            i >= MAX_PARAMS || off + size > r->nparams_bytes)
            return false;
        r->param_off[r->nparams++] = off;
        return true;
    }
    if (!strcmp(word, "buffer")) {
        int i;
        unsigned long long addr;
        rbuf *b = &r->bufs[r->nbufs];
        if (r->nbufs == MAX_BUFS ||
            sscanf(rest, "%d %zu %llx %255s", &i, &b->size, &addr, b->global) != 4 ||
            i != r->nbufs)
            return false;
        if (!strcmp(b->global, "-"))
            b->global[0] = 0;
        r->nbufs++;
        return true;
    }
    if (!strcmp(word, "patch")) {
        if (r->npatches == MAX_PATCHES)
            return false;
        if (sscanf(rest, "%u %d %llu", &r->patches[r->npatches].offset,
                   &r->patches[r->npatches].buf, &r->patches[r->npatches].delta) != 3)
            return false;
        r->npatches++;
        return true;
    }
    return true;    /* result and future keys */
}

static bool load_record(const char *path, record *r)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "zinc replay: cannot read %s\n", path);
        return false;
    }
    char line[1 << 16];
    int n = 0;
    bool ok = true;
    while (ok && fgets(line, sizeof line, f)) {
        n++;
        ok = parse_line(r, line);
        if (!ok)
            fprintf(stderr, "zinc replay: %s:%d: malformed line\n", path, n);
    }
    fclose(f);
    for (int i = 0; ok && i < r->npatches; i++)
        ok = r->patches[i].buf >= 0 && r->patches[i].buf < r->nbufs &&
             r->patches[i].offset + 8 <= r->nparams_bytes;
    return ok && r->kernel[0] && r->params;
}

static const char *errname(int rc)
{
    const char *s = NULL;
    if (drv.cuGetErrorName)
        drv.cuGetErrorName(rc, &s);
    return s ? s : "?";
}

#define CHECK(call)                                                              \
    do {                                                                         \
        int rc_ = (call);                                                        \
        if (rc_ != 0) {                                                          \
            fprintf(stderr, "zinc replay: %s failed: %s (%d)\n", #call, errname(rc_), rc_); \
            return 2;                                                            \
        }                                                                        \
    } while (0)

static bool load_driver(void)
{
    char dir[PATH_MAX], path[PATH_MAX + 16];
    zinc_lib_dir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/libcuda.so.1", dir);
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        fprintf(stderr, "zinc replay: cannot load Zinc's driver: %s\n", dlerror());
        return false;
    }
#define X(f)                                                                     \
    if (!(drv.f = (fn_t)dlsym(h, #f))) {                                         \
        fprintf(stderr, "zinc replay: %s lacks %s\n", path, #f);                 \
        return false;                                                            \
    }
    DRIVER_FNS(X)
#undef X
    return true;
}

/* Allocates or finds every buffer and restores its "before" bytes. */
static int restore(const char *ldir, record *r, void *mod)
{
    for (int i = 0; i < r->nbufs; i++) {
        rbuf *b = &r->bufs[i];
        char path[PATH_MAX + 64];
        size_t n = 0;
        snprintf(path, sizeof path, "%s/buf%d.before", ldir, i);
        void *data = read_all(path, &n);
        if (!data || n != b->size) {
            fprintf(stderr, "zinc replay: %s: missing or not %zu bytes\n", path, b->size);
            free(data);
            return 2;
        }
        if (b->global[0]) {
            size_t size = 0;
            CHECK(drv.cuModuleGetGlobal_v2(&b->dev, &size, mod, b->global));
            if (size != b->size) {
                fprintf(stderr, "zinc replay: global %s is %zu bytes, was %zu\n", b->global,
                        size, b->size);
                free(data);
                return 2;
            }
        } else {
            CHECK(drv.cuMemAlloc_v2(&b->dev, b->size));
        }
        int rc = drv.cuMemcpyHtoD_v2(b->dev, data, b->size);
        free(data);
        CHECK(rc);
    }
    return 0;
}

/* Compares every buffer with its "after" file; returns the differing bytes. */
static size_t compare(const char *ldir, record *r, int *status)
{
    size_t total = 0;
    for (int i = 0; i < r->nbufs; i++) {
        rbuf *b = &r->bufs[i];
        char path[PATH_MAX + 64];
        size_t n = 0;
        snprintf(path, sizeof path, "%s/buf%d.after", ldir, i);
        unsigned char *want = read_all(path, &n);
        unsigned char *got = malloc(b->size ? b->size : 1);
        if (!want || !got || n != b->size || drv.cuMemcpyDtoH_v2(got, b->dev, b->size) != 0) {
            fprintf(stderr, "zinc replay: cannot compare buffer %d (%s)\n", i, path);
            *status = 2;
            free(want);
            free(got);
            continue;
        }
        size_t diff = 0, first = 0;
        for (size_t j = 0; j < b->size; j++)
            if (got[j] != want[j] && diff++ == 0)
                first = j;
        printf("  buffer %d (%s, %zu bytes): %s", i, b->global[0] ? b->global : "parameter",
               b->size, diff ? "MISMATCH" : "match");
        if (diff)
            printf(", %zu bytes differ, first at +%zu (got 0x%02x, recorded 0x%02x)", diff, first,
                   got[first], want[first]);
        printf("\n");
        total += diff;
        free(want);
        free(got);
    }
    return total;
}

int zinc_cmd_replay(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: zinc replay DIR LAUNCH_ID\n");
        return 2;
    }
    char ldir[PATH_MAX], path[PATH_MAX + 32];
    snprintf(ldir, sizeof ldir, "%s/launches/%s", argv[0], argv[1]);
    snprintf(path, sizeof path, "%s/launch.txt", ldir);
    static record r;
    if (!load_record(path, &r) || !load_driver())
        return 2;
    snprintf(path, sizeof path, "%s/%s", argv[0], r.ptx);
    size_t n = 0;
    char *ptx = read_all(path, &n);
    if (!ptx) {
        fprintf(stderr, "zinc replay: cannot read the kernel's PTX %s\n", path);
        return 2;
    }
    int dev = 0;
    void *ctx = NULL, *mod = NULL, *fn = NULL;
    CHECK(drv.cuInit(0));
    CHECK(drv.cuDeviceGet(&dev, 0));
    CHECK(drv.cuDevicePrimaryCtxRetain(&ctx, dev));
    CHECK(drv.cuCtxSetCurrent(ctx));
    CHECK(drv.cuModuleLoadData(&mod, ptx));
    CHECK(drv.cuModuleGetFunction(&fn, mod, r.kernel));
    int rc = restore(ldir, &r, mod);
    if (rc)
        return rc;
    for (int i = 0; i < r.npatches; i++) {
        unsigned long long v = r.bufs[r.patches[i].buf].dev + r.patches[i].delta;
        memcpy(r.params + r.patches[i].offset, &v, 8);
    }
    void *kp[MAX_PARAMS];
    for (int i = 0; i < r.nparams; i++)
        kp[i] = r.params + r.param_off[i];
    printf("zinc replay: launch %s: %s grid (%u,%u,%u) block (%u,%u,%u) shared %u, %d buffer(s)\n",
           argv[1], r.kernel, r.grid[0], r.grid[1], r.grid[2], r.block[0], r.block[1],
           r.block[2], r.shared, r.nbufs);
    CHECK(drv.cuLaunchKernel(fn, r.grid[0], r.grid[1], r.grid[2], r.block[0], r.block[1],
                             r.block[2], r.shared, NULL, kp, NULL));
    CHECK(drv.cuCtxSynchronize());
    int status = 0;
    size_t diff = compare(ldir, &r, &status);
    if (status)
        return status;
    printf("zinc replay: %s\n", diff ? "MISMATCH" : "outputs match the recorded ones");
    free(ptx);
    return diff ? 1 : 0;
}
