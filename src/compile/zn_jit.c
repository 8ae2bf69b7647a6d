/* zn_jit.c: the compiler's in-process pipeline. A module's object code
 * comes from the kernel cache or from lowering, optimising and code
 * generation for this host (then stored in the cache); either way it is
 * loaded the same way, with ORC LLJIT, and module variables are bound to
 * the caller's addresses as absolute symbols at load time. */
#include "zn_pipeline.h"
#include "zn_global_ref.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <llvm-c/Error.h>
#include <llvm-c/LLJIT.h>
#include <llvm-c/Orc.h>
#include "util/zn_log.h"

struct zn_jit_module {
    LLVMOrcLLJITRef jit;
    zn_kernel_info *kernels;
    uint32_t nkernels;
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

static char *module_text(LLVMModuleRef mod)
{
    char *t = LLVMPrintModuleToString(mod);
    char *d = strdup(t);
    LLVMDisposeMessage(t);
    return d;
}

/* PTX -> object code for t; ir[] gets the IR texts when keep. */
static LLVMMemoryBufferRef compile_object(const ptx_module *pm, const zn_compile_opts *o,
                                          const zn_target *t, bool keep, char *ir[2],
                                          char *err, size_t errlen)
{
    LLVMContextRef ctx = LLVMContextCreate();
    LLVMMemoryBufferRef obj = NULL;
    LLVMModuleRef mod = zn_build_ir(pm, o, t, ctx, err, errlen);
    int failed = !mod;
    if (!failed && keep) {
        ir[0] = module_text(mod);
        if (dump_ir())
            fprintf(stderr, "; ---- zinc: LLVM IR before optimisation\n%s\n", ir[0]);
    }
    if (!failed)
        failed = zn_optimise(mod, t, err, errlen) != 0;
    if (!failed && keep) {
        ir[1] = module_text(mod);
        if (dump_ir())
            fprintf(stderr, "; ---- zinc: LLVM IR after optimisation\n%s\n", ir[1]);
    }
    if (!failed)
        failed = zn_emit(mod, t, LLVMObjectFile, &obj, err, errlen) != 0;
    if (mod)
        LLVMDisposeModule(mod);
    LLVMContextDispose(ctx);
    return failed ? NULL : obj;
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
 * into the variables' memory, which the caller has filled from init. */
static int apply_relocs(zn_jit_module *jm, const ptx_module *pm,
                        const zn_compile_opts *o, char *err, size_t errlen)
{
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

/* Loads an object into a new JIT (takes obj and t->tm), binds variables,
 * finds every kernel, applies initialiser relocations. */
static zn_jit_module *load_object(const ptx_module *pm, const zn_compile_opts *o,
                                  zn_target *t, LLVMMemoryBufferRef obj, char *err,
                                  size_t errlen)
{
    zn_jit_module *jm = calloc(1, sizeof *jm);
    LLVMOrcLLJITBuilderRef jb = LLVMOrcCreateLLJITBuilder();
    LLVMOrcLLJITBuilderSetJITTargetMachineBuilder(
        jb, LLVMOrcJITTargetMachineBuilderCreateFromTargetMachine(t->tm));
    t->tm = NULL;
    int failed = check(LLVMOrcCreateLLJIT(&jm->jit, jb), "creating the JIT", err, errlen);
    LLVMOrcJITDylibRef jd = NULL;
    if (!failed) {
        jd = LLVMOrcLLJITGetMainJITDylib(jm->jit);
        /* libm for vector math that LLVM scalarises */
        LLVMOrcDefinitionGeneratorRef gen = NULL;
        failed = check(LLVMOrcCreateDynamicLibrarySearchGeneratorForProcess(
                           &gen, LLVMOrcLLJITGetGlobalPrefix(jm->jit), NULL, NULL),
                       "process symbols", err, errlen);
        if (!failed)
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
    }
    if (!failed)
        failed = define_globals(jm, jd, o, err, errlen);
    if (!failed) {
        failed = check(LLVMOrcLLJITAddObjectFile(jm->jit, jd, obj), "adding the object",
                       err, errlen);
        obj = NULL;
    }
    if (obj)
        LLVMDisposeMemoryBuffer(obj);
    uint32_t nk = 0;
    for (uint32_t i = 0; i < pm->nfuncs; i++)
        nk += pm->funcs[i].is_entry && !pm->funcs[i].is_decl;
    jm->kernels = calloc(nk + 1, sizeof *jm->kernels);
    for (uint32_t i = 0; i < pm->nfuncs && !failed; i++) {
        const ptx_func *f = &pm->funcs[i];
        if (!f->is_entry || f->is_decl)
            continue;
        zn_kernel_info *k = &jm->kernels[jm->nkernels++];
        zn_kernel_facts(pm, f, k);
        char name[512];
        snprintf(name, sizeof name, "zk_%s", f->name);
        LLVMOrcExecutorAddress addr = 0;
        failed = check(LLVMOrcLLJITLookup(jm->jit, &addr, name), "code generation",
                       err, errlen);
        k->fn = (zn_kernel_fn)(uintptr_t)addr;
    }
    if (!failed)
        failed = apply_relocs(jm, pm, o, err, errlen);
    if (failed) {
        zn_jit_module_free(jm);
        return NULL;
    }
    return jm;
}

/* The cached object for key, loaded; NULL if absent or unusable. */
static zn_jit_module *load_cached(const ptx_module *pm, const zn_compile_opts *o,
                                  zn_target *t, const zn_cache_key *key)
{
    char hex[17];
    zn_hex(key->b, 8, hex);
    size_t len = 0;
    void *bytes = zn_cache_get(key, &len);
    if (!bytes) {
        zn_log(ZN_LOG_INFO, "kernel cache: miss %s", hex);
        return NULL;
    }
    LLVMMemoryBufferRef obj =
        LLVMCreateMemoryBufferWithMemoryRangeCopy(bytes, len, "zinc-cached-object");
    free(bytes);
    char err[512];
    zn_jit_module *jm = load_object(pm, o, t, obj, err, sizeof err);
    if (jm)
        zn_log(ZN_LOG_INFO, "kernel cache: hit %s (%zu bytes)", hex, len);
    else
        zn_log(ZN_LOG_WARN, "kernel cache: entry %s did not load (%s): recompiling", hex, err);
    return jm;
}

zn_jit_module *zn_compile(const ptx_module *pm, const zn_compile_opts *o,
                          char *err, size_t errlen)
{
    static const zn_global_addr none[1];
    zn_compile_opts opts = {.opt_level = 3};
    if (o)
        opts = *o;
    /* in process, every variable the code uses needs an address (NULL
     * globals means "none given", unlike offline compiles) */
    if (!opts.globals)
        opts.globals = none, opts.nglobals = 0;
    o = &opts;
    err[0] = 0;
    if (o->triple && *o->triple) {
        zn_target probe;
        if (zn_target_init(&probe, o, err, errlen))
            return NULL;
        bool host = probe.host;
        zn_target_fini(&probe);
        if (!host) {
            snprintf(err, errlen, "cannot run code for '%s' in this process", o->triple);
            return NULL;
        }
    }
    zn_target t;
    if (zn_target_init(&t, o, err, errlen))
        return NULL;
    bool keep = atomic_load(&keep_ir) || dump_ir();
    bool cached = !keep && zn_cache_enabled();
    zn_cache_key key;
    zn_jit_module *jm = NULL;
    if (cached) {
        zn_compile_key(pm, o, &t, &key);
        jm = load_cached(pm, o, &t, &key);
        if (jm) {
            zn_target_fini(&t);
            return jm;
        }
        if (!t.tm) { /* a failed load took the target machine */
            zn_target_fini(&t);
            if (zn_target_init(&t, o, err, errlen))
                return NULL;
        }
    }
    char *ir[2] = {NULL, NULL};
    LLVMMemoryBufferRef obj = compile_object(pm, o, &t, keep, ir, err, errlen);
    /* stored only once it has loaded: a cached object is one that works */
    void *copy = NULL;
    size_t len = 0;
    if (obj && cached && (copy = malloc((len = LLVMGetBufferSize(obj)) + 1)))
        memcpy(copy, LLVMGetBufferStart(obj), len);
    if (obj)
        jm = load_object(pm, o, &t, obj, err, errlen);
    if (jm && copy)
        zn_cache_put(&key, copy, len);
    free(copy);
    if (jm) {
        jm->ir[0] = ir[0];
        jm->ir[1] = ir[1];
    } else {
        free(ir[0]);
        free(ir[1]);
    }
    zn_target_fini(&t);
    return jm;
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
    free(jm->kernels);
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
