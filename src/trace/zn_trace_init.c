/* zn_trace_init.c: settings, the output folder and the target driver.
 *
 * ZINC_TRACE_DIR     output folder (default ./zinc-trace-<pid>)
 * ZINC_TRACE_TARGET  the driver to forward to (default: libcuda.so.1 in the
 *                    folder above this library's, i.e. Zinc's build/lib)
 * ZINC_TRACE_CAPTURE 1: save the buffers of every launch (zinc trace --capture)
 * ZINC_TRACE_SYNC    1: wait for every launch and copy, so that their
 *                    timeline events span their execution (zinc trace --sync)
 * ZINC_TRACE_FLUSH   1: write log.txt after every outermost call
 */
#define _GNU_SOURCE
#include "zn_trace.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

zn_tr_config zn_tr_cfg;
static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static atomic_bool inited;

static void mkdirs(const char *path)
{
    char p[8192];
    snprintf(p, sizeof p, "%s", path);
    for (char *s = p + 1; *s; s++) {
        if (*s == '/') {
            *s = 0;
            mkdir(p, 0755);
            *s = '/';
        }
    }
    mkdir(p, 0755);
}

FILE *zn_tr_open(const char *relpath, const char *mode)
{
    char path[8192];
    snprintf(path, sizeof path, "%s/%s", zn_tr_cfg.dir, relpath);
    char *slash = strrchr(path, '/');
    *slash = 0;
    mkdirs(path);
    *slash = '/';
    FILE *f = fopen(path, mode);
    if (!f)
        fprintf(stderr, "zinc trace: cannot write %s: %s\n", path, strerror(errno));
    return f;
}

bool zn_tr_write_file(const char *relpath, const void *data, size_t n)
{
    FILE *f = zn_tr_open(relpath, "wb");
    if (!f)
        return false;
    bool ok = fwrite(data, 1, n, f) == n;
    return fclose(f) == 0 && ok;
}

/* The target: $ZINC_TRACE_TARGET, else ../libcuda.so.1 from this library. */
static void target_path(char *out, size_t n)
{
    const char *env = getenv("ZINC_TRACE_TARGET");
    if (env && *env) {
        snprintf(out, n, "%s", env);
        return;
    }
    Dl_info info;
    if (dladdr((void *)&target_path, &info) && info.dli_fname) {
        char self[PATH_MAX];
        if (realpath(info.dli_fname, self)) {
            char *slash = strrchr(self, '/');
            *slash = 0;
            snprintf(out, n, "%s/../libcuda.so.1", self);
            return;
        }
    }
    snprintf(out, n, "libcuda.so.1");
}

static bool is_self(const char *path)
{
    Dl_info info;
    char a[PATH_MAX], b[PATH_MAX];
    return dladdr((void *)&is_self, &info) && info.dli_fname && realpath(info.dli_fname, a) &&
           realpath(path, b) && strcmp(a, b) == 0;
}

static void open_target(void)
{
    target_path(zn_tr_cfg.target_path, sizeof zn_tr_cfg.target_path);
    if (is_self(zn_tr_cfg.target_path)) {
        fprintf(stderr, "zinc trace: the target %s is the tracer itself\n", zn_tr_cfg.target_path);
        return;
    }
    int flags = RTLD_NOW | RTLD_LOCAL;
#if !defined(__SANITIZE_ADDRESS__)
    /* The target's calls to its own entry points stay inside it, even when
     * the app linked against libcuda.so.1 (this library) directly.
     * (ASan refuses RTLD_DEEPBIND.) */
    flags |= RTLD_DEEPBIND;
#endif
    zn_tr_cfg.target = dlopen(zn_tr_cfg.target_path, flags);
    if (!zn_tr_cfg.target) {
        fprintf(stderr, "zinc trace: cannot load the target driver: %s\n", dlerror());
        return;
    }
    for (int i = 0; i < ZN_TS_COUNT; i++)
        zn_tr_real[i] = dlsym(zn_tr_cfg.target, zn_tr_sigs[i].name);
}

static void init_once_fn(void)
{
    zn_tr_now_ns();     /* starts the clock */
    zn_tr_cfg.pid = (int)getpid();
    const char *dir = getenv("ZINC_TRACE_DIR");
    if (dir && *dir)
        snprintf(zn_tr_cfg.dir, sizeof zn_tr_cfg.dir, "%s", dir);
    else
        snprintf(zn_tr_cfg.dir, sizeof zn_tr_cfg.dir, "zinc-trace-%d", zn_tr_cfg.pid);
    mkdirs(zn_tr_cfg.dir);
    const char *cap = getenv("ZINC_TRACE_CAPTURE");
    zn_tr_cfg.capture = cap && strcmp(cap, "1") == 0;
    const char *sync = getenv("ZINC_TRACE_SYNC");
    zn_tr_cfg.sync = zn_tr_cfg.capture || (sync && strcmp(sync, "1") == 0);
    open_target();
    zn_tr_proc_init();
    atomic_store(&inited, true);
    zn_tr_note("zinc trace: pid %d, target %s%s, capture %s, sync %s", zn_tr_cfg.pid,
               zn_tr_cfg.target_path, zn_tr_cfg.target ? "" : " (NOT LOADED)",
               zn_tr_cfg.capture ? "on" : "off", zn_tr_cfg.sync ? "on" : "off");
}

void zn_tr_sync(void)
{
    if (zn_tr_real[ZN_TS_cuCtxSynchronize])
        ZN_TR_REAL(cuCtxSynchronize)();
}

void zn_tr_init(void)
{
    if (!atomic_load_explicit(&inited, memory_order_acquire))
        pthread_once(&init_once, init_once_fn);
}

/* At exit (after the runtime's own atexit teardown): write what is left. */
__attribute__((destructor)) static void zn_tr_fini(void)
{
    if (!atomic_load(&inited))
        return;
    zn_tr_log_flush(true);
    zn_tr_tl_close();
}
