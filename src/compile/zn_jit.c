/* zn_jit.c: the compiler's in-process pipeline. Opening a module binds its
 * variables to the caller's addresses (ORC absolute symbols) in one LLJIT
 * and records every kernel's facts from the PTX; code comes later, one
 * unit at a time (a kernel and the .funcs it reaches), from the kernel
 * cache or from lowering, optimising and code generation (then stored in
 * the cache). Every unit's object is added to the same JIT; a unit keeps
 * only its kernel external (zn_internalize), so units that share a .func
 * do not clash. A module that cannot be split is one unit, compiled at
 * open, as are all units when the caller asks for eager compilation. */
#include "zn_pipeline.h"
#include "zn_global_ref.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <llvm-c/Error.h>
#include <llvm-c/LLJIT.h>
#include <llvm-c/Orc.h>
#include "util/zn_log.h"

/* A kernel's code for the block shape of its first launch
 * (zn_jit_kernel_code). */
typedef struct zn_kernel_spec {
    int settled;                    /* the first launch has been seen and on,
                                     * block written (atomic: launches read
                                     * them without the lock) */
    bool on;                        /* ... it asked for code for its shape */
    uint32_t block[3];
    zn_kernel_code code;            /* fn NULL until compiled or loaded */
} zn_kernel_spec;

struct zn_jit_module {
    LLVMOrcLLJITRef jit;
    const ptx_module *pm;           /* the caller's; outlives us */
    zn_compile_opts o;              /* globals: our copy */
    zn_global_addr *globals;
    zn_kernel_info *kernels;
    zn_kernel_spec *spec;           /* per kernel: its code for one block shape */
    uint32_t *kfunc;                /* pm->funcs index of each kernel */
    uint32_t nkernels;
    bool whole;                     /* one unit for the module */
    bool cached;                    /* use the kernel cache */
    bool have_key;
    zn_cache_key key;               /* the module's key (units derive theirs) */
    pthread_mutex_t lock;           /* compiles, fn fields, stats */
    zn_jit_stats st;
    char *ir[2];
};

static atomic_int keep_ir;

void zn_compile_keep_ir(int on)
{
    atomic_store(&keep_ir, on);
}

static int dump_ir(void)
{
    const char *s = getenv("ZINC_DUMP_IR");
    return s && *s && strcmp(s, "0");
}

int zn_compile_env_opt(void)
{
    const char *s = getenv("ZINC_OPT");
    if (!s || !*s)
        return 3;
    int v = atoi(s);
    return v < 0 ? 0 : v > 3 ? 3 : v;
}

int zn_compile_env_eager(void)
{
    const char *s = getenv("CUDA_MODULE_LOADING");
    return s && !strcmp(s, "EAGER");
}

/* Takes the message out of an LLVMErrorRef; 1 if there was an error. */
static int check(LLVMErrorRef e, const char *what, char *err, size_t errlen)
{
    if (!e)
        return 0;
    char *msg = LLVMGetErrorMessage(e);
    snprintf(err, errlen, "%s: %s", what, msg);
    LLVMDisposeErrorMessage(msg);
    return 1;
}

static void *global_of(const zn_compile_opts *o, const char *name)
{
    for (uint32_t i = 0; i < o->nglobals; i++)
        if (!strcmp(o->globals[i].name, name))
            return o->globals[i].addr;
    return NULL;
}

/* The caller's variables as absolute symbols zg_<name> in jd. */
static int define_globals(zn_jit_module *jm, LLVMOrcJITDylibRef jd,
                          const zn_compile_opts *o, char *err, size_t errlen)
{
    if (!o->nglobals)
        return 0;
    LLVMOrcCSymbolMapPair *syms = calloc(o->nglobals, sizeof *syms);
    char name[512];
    for (uint32_t i = 0; i < o->nglobals; i++) {
        zn_global_symbol(o->globals[i].name, name, sizeof name);
        syms[i].Name = LLVMOrcLLJITMangleAndIntern(jm->jit, name);
        syms[i].Sym.Address = (LLVMOrcExecutorAddress)(uintptr_t)o->globals[i].addr;
        syms[i].Sym.Flags.GenericFlags = LLVMJITSymbolGenericFlagsExported;
    }
    /* takes the names; the unit is ours again if the definition fails */
    LLVMOrcMaterializationUnitRef mu = LLVMOrcAbsoluteSymbols(syms, o->nglobals);
    free(syms);
    LLVMErrorRef e = LLVMOrcJITDylibDefine(jd, mu);
    if (e)
        LLVMOrcDisposeMaterializationUnit(mu);
    return check(e, "binding module variables", err, errlen);
}

/* Writes the addresses named in global initialisers ({foo, generic(bar)+8})
 * into the variables' memory, which the caller has filled from init.
 * Function addresses only with funcs (they need the compiled module). */
static int apply_relocs(zn_jit_module *jm, bool funcs, char *err, size_t errlen)
{
    const ptx_module *pm = jm->pm;
    const zn_compile_opts *o = &jm->o;
    for (uint32_t i = 0; i < pm->nvars; i++) {
        const ptx_var *v = &pm->vars[i];
        uint8_t *base = v->nrelocs ? global_of(o, v->name) : NULL;
        if (!base)
            continue;
        unsigned width = ptx_type_size(v->type) == 4 ? 4 : 8;
        for (uint32_t r = 0; r < v->nrelocs; r++) {
            const ptx_reloc *rl = &v->relocs[r];
            uint64_t addr = (uint64_t)(uintptr_t)global_of(o, rl->sym);
            const ptx_func *f = ptx_find_func(pm, rl->sym);
            if (!addr && f && !funcs)
                continue;
            if (!addr && f && !f->is_decl) {
                char name[512];
                snprintf(name, sizeof name, "%s%s", f->is_entry ? "zk_" : "zf_", f->name);
                LLVMOrcExecutorAddress a = 0;
                if (check(LLVMOrcLLJITLookup(jm->jit, &a, name), "relocation", err, errlen))
                    return 1;
                addr = a;
            }
            if (!addr) {
                snprintf(err, errlen, "'%s': cannot resolve '%s' in its initialiser",
                         v->name, rl->sym);
                return 1;
            }
            addr += (uint64_t)rl->addend;
            if ((uint64_t)rl->offset + width <= v->size)
                memcpy(base + rl->offset, &addr, width);
        }
    }
    return 0;
}

/* A JIT with the process and libgcc_s symbols and the module's variables
 * (takes t->tm). */
static int create_jit(zn_jit_module *jm, zn_target *t, char *err, size_t errlen)
{
    LLVMOrcLLJITBuilderRef jb = LLVMOrcCreateLLJITBuilder();
    LLVMOrcLLJITBuilderSetJITTargetMachineBuilder(
        jb, LLVMOrcJITTargetMachineBuilderCreateFromTargetMachine(t->tm));
    t->tm = NULL;
    if (check(LLVMOrcCreateLLJIT(&jm->jit, jb), "creating the JIT", err, errlen))
        return -1;
    LLVMOrcJITDylibRef jd = LLVMOrcLLJITGetMainJITDylib(jm->jit);
    /* libm for vector math that LLVM scalarises */
    LLVMOrcDefinitionGeneratorRef gen = NULL;
    if (check(LLVMOrcCreateDynamicLibrarySearchGeneratorForProcess(
                  &gen, LLVMOrcLLJITGetGlobalPrefix(jm->jit), NULL, NULL),
              "process symbols", err, errlen))
        return -1;
    LLVMOrcJITDylibAddGenerator(jd, gen);
    /* compiler runtime calls (__fixsfti for f32 -> i128, ...): libgcc_s,
     * which a program need not have loaded */
    LLVMOrcDefinitionGeneratorRef rt = NULL;
    LLVMErrorRef e = LLVMOrcCreateDynamicLibrarySearchGeneratorForPath(
        &rt, "libgcc_s.so.1", LLVMOrcLLJITGetGlobalPrefix(jm->jit), NULL, NULL);
    if (e)
        LLVMConsumeError(e);
    else
        LLVMOrcJITDylibAddGenerator(jd, rt);
    return define_globals(jm, jd, &jm->o, err, errlen) ? -1 : 0;
}

/* The address of one of a coroutine kernel's compiled warp loops
 * (zn_coro_batch.c), if the unit has it: suffix ".batch" (kernels with a
 * barrier in a loop that still suspend after optimisation) or ".start". */
static bool lookup_loop(zn_jit_module *jm, const char *kernel, const char *suffix,
                         LLVMOrcExecutorAddress *addr)
{
    size_t n = strlen(kernel), sl = strlen(suffix);
    char *name = malloc(n + sl + 1);
    if (!name)
        return false;
    memcpy(name, kernel, n);
    memcpy(name + n, suffix, sl + 1);
    LLVMErrorRef e = LLVMOrcLLJITLookup(jm->jit, addr, name);
    free(name);
    if (e) {
        LLVMConsumeError(e);
        return false;
    }
    return true;
}

/* Adds a unit's object (taken) and looks up its kernel(s): kernel index
 * ki, or all for the whole module; block: the unit is kernel ki's code for
 * that shape (zn_jit_kernel_code). 0, or -1 with err. */
static int add_unit(zn_jit_module *jm, LLVMMemoryBufferRef obj, int64_t ki,
                    const uint32_t *block, char *err, size_t errlen)
{
    LLVMOrcJITDylibRef jd = LLVMOrcLLJITGetMainJITDylib(jm->jit);
    zn_perfmap *pmap = zn_perfmap_scan(obj);
    if (check(LLVMOrcLLJITAddObjectFile(jm->jit, jd, obj), "adding the object", err, errlen)) {
        zn_perfmap_free(pmap);
        return -1;
    }
    for (uint32_t i = 0; i < jm->nkernels; i++) {
        if (ki >= 0 && i != (uint64_t)ki)
            continue;
        char name[512];
        zn_kernel_symbol(jm->kernels[i].name, block, name, sizeof name);
        LLVMOrcExecutorAddress addr = 0;
        if (check(LLVMOrcLLJITLookup(jm->jit, &addr, name), "code generation", err, errlen)) {
            zn_perfmap_free(pmap);
            return -1;
        }
        zn_kernel_code code = {.fn = (zn_kernel_fn)(uintptr_t)addr};
        zn_perfmap_write(pmap, name, addr);
        /* the executor starts and resumes a coroutine kernel's warps
         * through zk_K.start and zk_K.batch when it has them */
        if (jm->kernels[i].uses_barrier == 2) {
            if (lookup_loop(jm, name, ".batch", &addr))
                code.batch = (zn_batch_fn)(uintptr_t)addr;
            if (lookup_loop(jm, name, ".start", &addr))
                code.start = (zn_batch_fn)(uintptr_t)addr;
        }
        /* fn last, released: zn_jit_kernel_code reads it without the lock */
        zn_kernel_code *spec = block ? &jm->spec[i].code : NULL;
        *(spec ? &spec->batch : &jm->kernels[i].batch) = code.batch;
        *(spec ? &spec->start : &jm->kernels[i].start) = code.start;
        __atomic_store_n(spec ? &spec->fn : &jm->kernels[i].fn, code.fn, __ATOMIC_RELEASE);
    }
    zn_perfmap_free(pmap);
    if (ki < 0)
        return apply_relocs(jm, true, err, errlen);
    return 0;
}

/* The cache key of kernel ki's unit (the module's key when whole), for
 * blocks of shape block (NULL: any). */
static int unit_key(zn_jit_module *jm, int64_t ki, const uint32_t *block, zn_cache_key *key,
                    char *err, size_t errlen)
{
    if (!jm->have_key) {
        zn_target t;
        if (zn_target_init(&t, &jm->o, err, errlen))
            return -1;
        zn_compile_key(jm->pm, &jm->o, &t, &jm->key);
        zn_target_fini(&t);
        jm->have_key = true;
    }
    if (ki < 0)
        *key = jm->key;
    else
        zn_compile_unit_key(&jm->key, jm->kernels[ki].name, block, key);
    return 0;
}

static const char *unit_name(const zn_jit_module *jm, int64_t ki)
{
    return ki < 0 ? "(whole module)" : jm->kernels[ki].name;
}

/* Loads kernel ki's unit from the cache; 1 if it did. */
static int load_cached(zn_jit_module *jm, int64_t ki, const uint32_t *block,
                       const zn_cache_key *key, bool log_miss)
{
    char hex[17];
    zn_hex(key->b, 8, hex);
    size_t len = 0;
    void *bytes = zn_cache_get(key, &len);
    if (!bytes) {
        if (log_miss)
            zn_log(ZN_LOG_INFO, "kernel cache: miss %s", hex);
        return 0;
    }
    LLVMMemoryBufferRef obj =
        LLVMCreateMemoryBufferWithMemoryRangeCopy(bytes, len, "zinc-cached-object");
    free(bytes);
    char err[512];
    if (add_unit(jm, obj, ki, block, err, sizeof err)) {
        zn_log(ZN_LOG_WARN, "kernel cache: entry %s did not load (%s): recompiling", hex, err);
        return 0;
    }
    zn_log(ZN_LOG_INFO, "kernel cache: hit %s (%zu bytes): %s", hex, len, unit_name(jm, ki));
    jm->st.units++;
    jm->st.cached++;
    return 1;
}

/* Adds a freshly compiled unit (obj taken) and stores it in the cache once
 * it has loaded: a cached object is one that works. */
static int add_compiled(zn_jit_module *jm, LLVMMemoryBufferRef obj, int64_t ki,
                        const uint32_t *block, const zn_cache_key *key, double ms, char *err,
                        size_t errlen)
{
    void *copy = NULL;
    size_t len = 0;
    if (key && (copy = malloc((len = LLVMGetBufferSize(obj)) + 1)))
        memcpy(copy, LLVMGetBufferStart(obj), len);
    int rc = add_unit(jm, obj, ki, block, err, errlen);
    if (!rc && copy)
        zn_cache_put(key, copy, len);
    free(copy);
    if (!rc) {
        if (block)
            zn_log(ZN_LOG_INFO, "jit: compiled %s for blocks of %ux%ux%u in %.1f ms",
                   unit_name(jm, ki), block[0], block[1], block[2], ms);
        else
            zn_log(ZN_LOG_INFO, "jit: compiled %s in %.1f ms", unit_name(jm, ki), ms);
        jm->st.units++;
        jm->st.compiled++;
    }
    return rc;
}

/* Kernel ki's unit (-1: the whole module) from the cache or compiled; block:
 * its code for that shape only. Called with the lock held. */
static int build_unit(zn_jit_module *jm, int64_t ki, const uint32_t *block, char *err,
                      size_t errlen)
{
    double t0 = zn_now_ms();
    zn_cache_key key;
    bool cached = jm->cached && !unit_key(jm, ki, block, &key, err, errlen);
    int rc = 0;
    if (!cached || !load_cached(jm, ki, block, &key, true)) {
        bool keep = ki < 0 && (atomic_load(&keep_ir) || dump_ir());
        char *ir[2] = {NULL, NULL};
        int64_t entry = ki < 0 ? -1 : (int64_t)jm->kfunc[ki];
        zn_compile_opts o = jm->o;
        if (block)
            memcpy(o.block, block, sizeof o.block);
        LLVMMemoryBufferRef obj =
            zn_jit_compile_unit(jm->pm, &o, entry, keep ? ir : NULL, err, errlen);
        rc = obj ? add_compiled(jm, obj, ki, block, cached ? &key : NULL, zn_now_ms() - t0,
                                err, errlen)
                 : -1;
        jm->ir[0] = ir[0];
        jm->ir[1] = ir[1];
    }
    jm->st.compile_ms += zn_now_ms() - t0;
    return rc;
}

/* Every kernel not compiled yet: cache hits first, then the misses on
 * worker threads, loaded in kernel order. Called with the lock held. */
static int build_all(zn_jit_module *jm, char *err, size_t errlen)
{
    double t0 = zn_now_ms();
    zn_unit_job *jobs = calloc(jm->nkernels + 1, sizeof *jobs);
    zn_cache_key *keys = calloc(jm->nkernels + 1, sizeof *keys);
    uint32_t *kof = calloc(jm->nkernels + 1, sizeof *kof);
    bool *keyed = calloc(jm->nkernels + 1, sizeof *keyed);
    uint32_t n = 0;
    int rc = 0;
    if (!jobs || !keys || !kof || !keyed) {
        snprintf(err, errlen, "out of memory");
        rc = -1;
    }
    for (uint32_t i = 0; !rc && i < jm->nkernels; i++) {
        if (jm->kernels[i].fn)
            continue;
        bool cached = jm->cached && !unit_key(jm, i, NULL, &keys[n], err, errlen);
        if (cached && load_cached(jm, i, NULL, &keys[n], true))
            continue;
        keyed[n] = cached;
        jobs[n].entry = jm->kfunc[i];
        kof[n++] = i;
    }
    if (!rc && n)
        zn_jit_compile_units(jm->pm, &jm->o, jobs, n);
    for (uint32_t j = 0; j < n; j++) {
        if (rc || !jobs[j].obj) {
            if (!rc)
                snprintf(err, errlen, "%s", jobs[j].err);
            if (jobs[j].obj)
                LLVMDisposeMemoryBuffer(jobs[j].obj);
            rc = -1;
            continue;
        }
        rc = add_compiled(jm, jobs[j].obj, kof[j], NULL, keyed[j] ? &keys[j] : NULL,
                          jobs[j].ms, err, errlen);
    }
    free(jobs);
    free(keys);
    free(kof);
    free(keyed);
    jm->st.compile_ms += zn_now_ms() - t0;
    return rc;
}

zn_jit_module *zn_jit_open(const ptx_module *pm, const zn_compile_opts *o, int eager,
                           char *err, size_t errlen)
{
    zn_compile_opts opts = {.opt_level = 3};
    if (o)
        opts = *o;
    if (zn_check_env())
        opts.check = 1; /* ZINC_CHECK=memcheck (zn_lower_check.c) */
    err[0] = 0;
    if (opts.triple && *opts.triple) {
        zn_target probe;
        if (zn_target_init(&probe, &opts, err, errlen))
            return NULL;
        bool host = probe.host;
        zn_target_fini(&probe);
        if (!host) {
            snprintf(err, errlen, "cannot run code for '%s' in this process", opts.triple);
            return NULL;
        }
    }
    zn_target t;
    if (zn_target_init(&t, &opts, err, errlen))
        return NULL;
    zn_jit_module *jm = calloc(1, sizeof *jm);
    uint32_t nk = 0;
    for (uint32_t i = 0; i < pm->nfuncs; i++)
        nk += pm->funcs[i].is_entry && !pm->funcs[i].is_decl;
    if (jm) {
        jm->kernels = calloc(nk + 1, sizeof *jm->kernels);
        jm->spec = calloc(nk + 1, sizeof *jm->spec);
        jm->kfunc = calloc(nk + 1, sizeof *jm->kfunc);
        /* in process, every variable the code uses needs an address */
        jm->globals = calloc(opts.nglobals + 1, sizeof *jm->globals);
    }
    if (!jm || !jm->kernels || !jm->spec || !jm->kfunc || !jm->globals) {
        zn_target_fini(&t);
        if (jm) {
            free(jm->kernels);
            free(jm->spec);
            free(jm->kfunc);
            free(jm->globals);
            free(jm);
        }
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    pthread_mutex_init(&jm->lock, NULL);
    jm->pm = pm;
    if (opts.nglobals)
        memcpy(jm->globals, opts.globals, opts.nglobals * sizeof *jm->globals);
    opts.globals = jm->globals;
    jm->o = opts;
    bool keep = atomic_load(&keep_ir) || dump_ir();
    jm->cached = !keep && zn_cache_enabled();
    jm->whole = keep || !zn_jit_splittable(pm);
    int failed = create_jit(jm, &t, err, errlen);
    zn_target_fini(&t);
    zn_shared_size ss = zn_module_static_shared(pm);
    for (uint32_t i = 0; i < pm->nfuncs && !failed; i++) {
        const ptx_func *f = &pm->funcs[i];
        if (!f->is_entry || f->is_decl)
            continue;
        jm->kfunc[jm->nkernels] = i;
        /* a unit of its own lays out only its shared variables */
        zn_kernel_facts_shared(pm, f, jm->whole ? ss : zn_unit_static_shared(pm, i),
                               &jm->kernels[jm->nkernels++]);
    }
    if (!failed)
        failed = apply_relocs(jm, false, err, errlen);
    if (!failed && jm->whole)
        failed = build_unit(jm, -1, NULL, err, errlen);
    else if (!failed && eager)
        failed = build_all(jm, err, errlen);
    if (failed) {
        zn_jit_module_free(jm);
        return NULL;
    }
    return jm;
}

zn_jit_module *zn_compile(const ptx_module *pm, const zn_compile_opts *o,
                          char *err, size_t errlen)
{
    return zn_jit_open(pm, o, 1, err, errlen);
}

bool zn_specialize_disabled(void)
{
    const char *s = getenv("ZINC_NO_SPECIALIZE");
    return s && *s && strcmp(s, "0");
}

/* kernel k's index in jm, -1 with err if it is another module's */
static int64_t kernel_index(const zn_jit_module *jm, const zn_kernel_info *k, char *err,
                            size_t errlen)
{
    if (k < jm->kernels || k >= jm->kernels + jm->nkernels) {
        snprintf(err, errlen, "kernel of another module");
        return -1;
    }
    return k - jm->kernels;
}

/* the generic code of kernel ki, compiled or loaded if need be; with the
 * lock held */
static int generic_code(zn_jit_module *jm, int64_t ki, zn_kernel_code *out, char *err,
                        size_t errlen)
{
    int rc = 0;
    if (!jm->kernels[ki].fn)
        rc = build_unit(jm, jm->whole ? -1 : ki, NULL, err, errlen) ? -1 : 1;
    *out = (zn_kernel_code){jm->kernels[ki].fn, jm->kernels[ki].batch, jm->kernels[ki].start};
    return rc;
}

/* At kernel ki's first launch, from the cache: its code for that shape (1),
 * else its generic code (0; `zinc cache warm` stores generic code, as it
 * cannot know the shapes, and a warmed cache promised a launch that
 * compiles nothing), else nothing (-1). With the lock held. */
static int first_launch_cached(zn_jit_module *jm, int64_t ki, const uint32_t *block)
{
    zn_cache_key key;
    char err[256];
    if (!jm->cached || unit_key(jm, ki, block, &key, err, sizeof err))
        return -1;
    if (load_cached(jm, ki, block, &key, false))
        return 1;
    if (!unit_key(jm, ki, NULL, &key, err, sizeof err) && load_cached(jm, ki, NULL, &key, false))
        return 0;
    return -1;
}

int zn_jit_kernel_ready(zn_jit_module *jm, const zn_kernel_info *k, char *err,
                        size_t errlen)
{
    zn_kernel_code code;
    return zn_jit_kernel_code(jm, k, NULL, &code, err, errlen);
}

int zn_jit_kernel_code(zn_jit_module *jm, const zn_kernel_info *k, const uint32_t block[3],
                       zn_kernel_code *out, char *err, size_t errlen)
{
    int64_t ki = kernel_index(jm, k, err, errlen);
    if (ki < 0)
        return -1;
    zn_kernel_spec *s = &jm->spec[ki];
    if (block && __atomic_load_n(&s->settled, __ATOMIC_ACQUIRE)) {
        /* every launch comes here: no lock once the code is there (another
         * kernel of the module may be compiling under it) */
        bool same = s->on && !memcmp(s->block, block, sizeof s->block);
        zn_kernel_code *c = same ? &s->code : NULL;
        zn_kernel_fn fn = __atomic_load_n(c ? &c->fn : &jm->kernels[ki].fn, __ATOMIC_ACQUIRE);
        if (fn) {
            *out = (zn_kernel_code){fn, c ? c->batch : jm->kernels[ki].batch,
                                    c ? c->start : jm->kernels[ki].start};
            return 0;
        }
    }
    pthread_mutex_lock(&jm->lock);
    int cached = -1;
    if (block && !__atomic_load_n(&s->settled, __ATOMIC_RELAXED)) {
        /* code loaded before the first launch (CUDA_MODULE_LOADING=EAGER,
         * cuFuncLoad) is kept for every shape: no compile at launch then */
        s->on = !jm->whole && !k->fn && !zn_specialize_disabled();
        memcpy(s->block, block, sizeof s->block);
        if (s->on) {
            double t0 = zn_now_ms();
            cached = first_launch_cached(jm, ki, block);
            jm->st.compile_ms += zn_now_ms() - t0;
        }
        if (cached == 0) {
            s->on = false;
            zn_log(ZN_LOG_INFO, "jit: %s: the cache holds its generic code only: using it",
                   k->name);
        }
        __atomic_store_n(&s->settled, 1, __ATOMIC_RELEASE);
    }
    int rc;
    if (block && s->on && !memcmp(s->block, block, sizeof s->block)) {
        rc = 0;
        if (!s->code.fn)
            rc = build_unit(jm, ki, s->block, err, errlen) ? -1 : 1;
        *out = s->code;
    } else {
        rc = generic_code(jm, ki, out, err, errlen);
    }
    pthread_mutex_unlock(&jm->lock);
    return rc == 0 && cached >= 0 ? 1 : rc;  /* loaded from the cache just now */
}

bool zn_jit_kernel_loaded(zn_jit_module *jm, const zn_kernel_info *k)
{
    char err[64];
    int64_t ki = kernel_index(jm, k, err, sizeof err);
    if (ki < 0)
        return false;
    pthread_mutex_lock(&jm->lock);
    bool loaded = k->fn != NULL || jm->spec[ki].code.fn != NULL;
    pthread_mutex_unlock(&jm->lock);
    return loaded;
}

void zn_jit_get_stats(zn_jit_module *jm, zn_jit_stats *s)
{
    pthread_mutex_lock(&jm->lock);
    *s = jm->st;
    pthread_mutex_unlock(&jm->lock);
}

void zn_jit_module_free(zn_jit_module *jm)
{
    if (!jm)
        return;
    if (jm->jit) {
        LLVMErrorRef e = LLVMOrcDisposeLLJIT(jm->jit);
        if (e) {
            char *msg = LLVMGetErrorMessage(e);
            zn_log(ZN_LOG_WARN, "disposing a JIT: %s", msg);
            LLVMDisposeErrorMessage(msg);
        }
    }
    for (uint32_t i = 0; i < jm->nkernels; i++) {
        free((void *)jm->kernels[i].name);
        free((void *)jm->kernels[i].param_offset);
        free((void *)jm->kernels[i].param_size);
    }
    pthread_mutex_destroy(&jm->lock);
    free(jm->kernels);
    free(jm->spec);
    free(jm->kfunc);
    free(jm->globals);
    free(jm->ir[0]);
    free(jm->ir[1]);
    free(jm);
}

const zn_kernel_info *zn_jit_kernel(const zn_jit_module *jm, const char *name)
{
    for (uint32_t i = 0; i < jm->nkernels; i++)
        if (!strcmp(jm->kernels[i].name, name))
            return &jm->kernels[i];
    return NULL;
}

uint32_t zn_jit_kernel_count(const zn_jit_module *jm)
{
    return jm->nkernels;
}

const zn_kernel_info *zn_jit_kernel_at(const zn_jit_module *jm, uint32_t i)
{
    return i < jm->nkernels ? &jm->kernels[i] : NULL;
}

char *zn_jit_ir_text(const zn_jit_module *jm, int stage)
{
    if (stage < 0 || stage > 1 || !jm->ir[stage])
        return NULL;
    return strdup(jm->ir[stage]);
}
