/* zn_jit_parallel.c: compiling units to object code, one at a time or on
 * worker threads. A unit is one kernel with the functions it needs
 * (zn_jit_split.c) or, when the module cannot be split, the whole module.
 * Each compile has its own LLVM context and target machine (neither is
 * thread-safe), and the lowering keeps no global state, so units compile
 * in parallel; the caller loads the objects into its JIT in order. */
#define _GNU_SOURCE
#include "zn_pipeline.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int dump_ir(void)
{
    const char *s = getenv("ZINC_DUMP_IR");
    return s && *s && strcmp(s, "0");
}

static char *module_text(LLVMModuleRef mod)
{
    char *t = LLVMPrintModuleToString(mod);
    char *d = strdup(t);
    LLVMDisposeMessage(t);
    return d;
}

LLVMMemoryBufferRef zn_jit_compile_unit(const ptx_module *pm, const zn_compile_opts *o,
                                        int64_t entry, char **ir, char *err, size_t errlen)
{
    zn_target t;
    if (zn_target_init(&t, o, err, errlen))
        return NULL;
    bool *want = NULL;
    if (entry >= 0) {
        want = calloc(pm->nfuncs + 1, sizeof *want);
        if (!want) {
            zn_target_fini(&t);
            snprintf(err, errlen, "out of memory");
            return NULL;
        }
        zn_jit_closure(pm, (uint32_t)entry, want);
    }
    LLVMContextRef ctx = LLVMContextCreate();
    LLVMMemoryBufferRef obj = NULL;
    LLVMModuleRef mod = zn_build_ir_subset(pm, o, &t, ctx, want, err, errlen);
    int failed = !mod;
    if (!failed && entry >= 0) {
        char name[512];
        const uint32_t *block = o->block[0] ? o->block : NULL;
        zn_kernel_symbol(pm->funcs[entry].name, block, name, sizeof name);
        if (block) { /* beside the generic zk_<kernel> in the same JIT */
            char generic[512];
            zn_kernel_symbol(pm->funcs[entry].name, NULL, generic, sizeof generic);
            LLVMValueRef fn = LLVMGetNamedFunction(mod, generic);
            if (fn)
                LLVMSetValueName2(fn, name, strlen(name));
        }
        zn_internalize(mod, name);
    }
    if (!failed && ir) {
        ir[0] = module_text(mod);
        if (dump_ir())
            fprintf(stderr, "; ---- zinc: LLVM IR before optimisation\n%s\n", ir[0]);
    }
    if (!failed)
        failed = zn_optimise(mod, &t, err, errlen) != 0;
    if (!failed && ir) {
        ir[1] = module_text(mod);
        if (dump_ir())
            fprintf(stderr, "; ---- zinc: LLVM IR after optimisation\n%s\n", ir[1]);
    }
    if (!failed)
        failed = zn_emit(mod, &t, LLVMObjectFile, &obj, err, errlen) != 0;
    if (mod)
        LLVMDisposeModule(mod);
    LLVMContextDispose(ctx);
    zn_target_fini(&t);
    free(want);
    return failed ? NULL : obj;
}

void zn_kernel_symbol(const char *kernel, const uint32_t *block, char *out, size_t n)
{
    if (block)
        snprintf(out, n, "zk_%s.b%ux%ux%u", kernel, block[0], block[1], block[2]);
    else
        snprintf(out, n, "zk_%s", kernel);
}

unsigned zn_compile_threads(void)
{
    const char *s = getenv("ZINC_COMPILE_THREADS");
    if (!s || !*s)
        s = getenv("ZINC_THREADS");
    if (s && *s) {
        long v = strtol(s, NULL, 10);
        if (v >= 1)
            return v > 256 ? 256u : (unsigned)v;
    }
    cpu_set_t set;
    if (!sched_getaffinity(0, sizeof set, &set) && CPU_COUNT(&set) > 0)
        return (unsigned)CPU_COUNT(&set);
    return 1;
}

typedef struct pool {
    const ptx_module *pm;
    const zn_compile_opts *o;
    zn_unit_job *jobs;
    uint32_t n;
    atomic_uint next;
} pool;

static void *worker(void *arg)
{
    pool *p = arg;
    for (;;) {
        unsigned i = atomic_fetch_add(&p->next, 1);
        if (i >= p->n)
            break;
        zn_unit_job *j = &p->jobs[i];
        double t0 = zn_now_ms();
        j->err[0] = 0;
        j->obj = zn_jit_compile_unit(p->pm, p->o, j->entry, NULL, j->err, sizeof j->err);
        j->ms = zn_now_ms() - t0;
    }
    return NULL;
}

void zn_jit_compile_units(const ptx_module *pm, const zn_compile_opts *o, zn_unit_job *jobs,
                          uint32_t n)
{
    pool p = {.pm = pm, .o = o, .jobs = jobs, .n = n};
    atomic_init(&p.next, 0);
    unsigned want = zn_compile_threads();
    if (want > n)
        want = n;
    pthread_t *th = want > 1 ? calloc(want - 1, sizeof *th) : NULL;
    unsigned started = 0;
    for (unsigned i = 0; th && i + 1 < want; i++)
        if (!pthread_create(&th[started], NULL, worker, &p))
            started++;
    worker(&p); /* the caller works too */
    for (unsigned i = 0; i < started; i++)
        pthread_join(th[i], NULL);
    free(th);
}
