/* zinc_cache_warm.c: `zinc cache warm APP`: compiles every PTX module in
 * APP's fatbins into the kernel cache without running APP, so that its
 * first run loads objects instead of compiling them.
 *
 * It must produce the cache keys the driver will: the same PTX (the one the
 * fatbin layer picks for the compute capability the driver reports), the
 * same options (ZINC_OPT, default 3; host target) and the same units: one
 * per kernel, compiled on worker threads (zn_jit_open eager). Module
 * variables get placeholder memory here: objects refer to them by symbol,
 * so their addresses are not part of a key (zn_jit_cache.c). */
#include "zinc_cli.h"
#include "zinc_oc.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cache/zn_cache.h"
#include "compile/zn_compile.h"
#include "ptx/ptx_ir.h"

/* Any PTX when the driver cannot be asked (the newest one). */
#define ANY_CC 100000u

typedef int (*cu_init_fn)(unsigned flags);
typedef int (*cu_device_attr_fn)(int *value, int attr, int dev);

/* The compute capability Zinc's driver reports (it follows ZINC_CC), as
 * major * 10 + minor; ANY_CC if the driver cannot be loaded. */
static unsigned driver_cc(void)
{
    char dir[PATH_MAX], lib[PATH_MAX + 16];
    if (!zinc_lib_dir(dir, sizeof dir))
        return ANY_CC;
    snprintf(lib, sizeof lib, "%s/libcuda.so.1", dir);
    void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    if (!h)
        return ANY_CC;
    cu_init_fn init = (cu_init_fn)dlsym(h, "cuInit");
    cu_device_attr_fn attr = (cu_device_attr_fn)dlsym(h, "cuDeviceGetAttribute");
    int major = 0, minor = 0;
    unsigned cc = ANY_CC;
    /* 75, 76: CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR / _MINOR */
    if (init && attr && init(0) == 0 && attr(&major, 75, 0) == 0 && attr(&minor, 76, 0) == 0)
        cc = (unsigned)(major * 10 + minor);
    /* not closed: cuInit may have started the driver's threads */
    return cc;
}

static bool var_is_data(const ptx_var *v)
{
    return v->space == PTX_SPACE_GLOBAL || v->space == PTX_SPACE_CONST;
}

/* Compiles one module as the driver does; 0, or -1 with a message. */
static int warm_one(const zn_oc_module *mod, char *err, size_t errlen)
{
    ptx_module *pm = ptx_parse(mod->text, mod->len, "ptx0", err, errlen);
    if (!pm)
        return -1;
    /* placeholder memory for each variable: initialisers that take an
     * address are written into it at load time */
    zn_global_addr *g = calloc(pm->nvars + 1, sizeof *g);
    uint32_t ng = 0;
    for (uint32_t i = 0; i < pm->nvars; i++) {
        const ptx_var *v = &pm->vars[i];
        if (!var_is_data(v))
            continue;
        g[ng].name = v->name;
        g[ng++].addr = calloc(1, v->size > 16 ? v->size : 16);
    }
    zn_compile_opts o = { .opt_level = zn_compile_env_opt(), .globals = g, .nglobals = ng };
    zn_jit_module *jm = zn_jit_open(pm, &o, 1, err, errlen);
    int rc = jm ? 0 : -1;
    zn_jit_module_free(jm);
    for (uint32_t i = 0; i < ng; i++)
        free(g[i].addr);
    free(g);
    ptx_module_free(pm);
    return rc;
}

int zinc_cache_warm(int argc, char **argv)
{
    if (argc < 1 || !strcmp(argv[0], "-h") || !strcmp(argv[0], "--help")) {
        fprintf(argc < 1 ? stderr : stdout,
                "usage: zinc cache warm APP [APP...]\n"
                "  compile the PTX in each executable / shared library / fatbin / .ptx\n"
                "  into the kernel cache, for the compute capability Zinc reports\n");
        return argc < 1 ? 2 : 0;
    }
    if (!zn_cache_enabled()) {
        fprintf(stderr, "zinc cache warm: the cache is disabled (CUDA_CACHE_DISABLE)\n");
        return 1;
    }
    unsigned cc = driver_cc();
    zn_cache_counts before, after;
    zn_cache_get_counts(&before);
    int failed = 0, done = 0;
    for (int a = 0; a < argc; a++) {
        char err[4096];
        zn_oc_inputs in;
        if (zinc_oc_read_cc(argv[a], cc, &in, err, sizeof err)) {
            fprintf(stderr, "zinc cache warm: %s: %s\n", argv[a], err);
            failed++;
            continue;
        }
        for (unsigned i = 0; i < in.n; i++) {
            if (warm_one(&in.mods[i], err, sizeof err)) {
                fprintf(stderr, "zinc cache warm: %s: %s\n", in.mods[i].name, err);
                failed++;
            } else {
                done++;
            }
        }
        zinc_oc_inputs_free(&in);
    }
    zn_cache_get_counts(&after);
    printf("warmed %d module%s (%llu compiled and stored, %llu already cached)%s\n", done,
           done == 1 ? "" : "s", (unsigned long long)(after.stores - before.stores),
           (unsigned long long)(after.hits - before.hits),
           failed ? "; some failed" : "");
    return failed ? 1 : 0;
}
