/* zn_jit.c: the compiler's pipeline: lower every function of a PTX module
 * to LLVM IR, verify, optimise with the new pass manager for the host CPU,
 * and load the result into this process with ORC LLJIT. */
#include "zn_lower.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <llvm-c/Analysis.h>
#include <llvm-c/Error.h>
#include <llvm-c/LLJIT.h>
#include <llvm-c/Orc.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>
#include <llvm-c/Transforms/PassBuilder.h>
#include "util/zn_log.h"

struct zn_jit_module {
    LLVMOrcLLJITRef jit;
    zn_kernel_info *kernels;
    uint32_t nkernels;
    char *ir[2];
};

static atomic_int keep_ir;
static pthread_once_t llvm_once = PTHREAD_ONCE_INIT;

void zn_compile_keep_ir(int on)
{
    atomic_store(&keep_ir, on);
}

static void llvm_init(void)
{
    LLVMInitializeNativeTarget();
    LLVMInitializeNativeAsmPrinter();
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

static void init_types(zn_lmod *m)
{
    LLVMContextRef c = m->ctx;
    m->t_void = LLVMVoidTypeInContext(c);
    m->t_i1 = LLVMInt1TypeInContext(c);
    m->t_i8 = LLVMInt8TypeInContext(c);
    m->t_i16 = LLVMInt16TypeInContext(c);
    m->t_i32 = LLVMInt32TypeInContext(c);
    m->t_i64 = LLVMInt64TypeInContext(c);
    m->t_i128 = LLVMInt128TypeInContext(c);
    m->t_half = LLVMHalfTypeInContext(c);
    m->t_bf16 = LLVMBFloatTypeInContext(c);
    m->t_f32 = LLVMFloatTypeInContext(c);
    m->t_f64 = LLVMDoubleTypeInContext(c);
    m->t_ptr = LLVMPointerTypeInContext(c, 0);
    zn_abi_types(m);
}

static LLVMTargetMachineRef make_tm(const char *cpu, const char *features,
                                    int opt, char *err, size_t errlen)
{
    char *triple = LLVMGetDefaultTargetTriple();
    LLVMTargetRef target;
    char *msg = NULL;
    if (LLVMGetTargetFromTriple(triple, &target, &msg)) {
        snprintf(err, errlen, "no LLVM target for %s: %s", triple, msg);
        LLVMDisposeMessage(msg);
        LLVMDisposeMessage(triple);
        return NULL;
    }
    LLVMCodeGenOptLevel lvl = opt <= 0 ? LLVMCodeGenLevelNone
                            : opt == 1 ? LLVMCodeGenLevelLess
                            : opt == 2 ? LLVMCodeGenLevelDefault
                            : LLVMCodeGenLevelAggressive;
    LLVMTargetMachineRef tm = LLVMCreateTargetMachine(target, triple, cpu, features,
                                                      lvl, LLVMRelocDefault,
                                                      LLVMCodeModelJITDefault);
    LLVMDisposeMessage(triple);
    if (!tm)
        snprintf(err, errlen, "cannot create a target machine for %s", cpu);
    return tm;
}

/* Lowers the whole module; 0 on success. */
static int lower_module(zn_lmod *m)
{
    const ptx_module *pm = m->pm;
    zn_shared_layout(m);
    m->fns = calloc(pm->nfuncs + 1, sizeof *m->fns);
    for (uint32_t i = 0; i < pm->nfuncs; i++) {
        const ptx_func *f = &pm->funcs[i];
        if (f->is_decl)
            continue;
        /* a prototype and a definition of the same name: use the definition */
        m->fns[i] = zn_declare_func(m, f);
    }
    for (uint32_t i = 0; i < pm->nfuncs && !m->failed; i++)
        if (m->fns[i])
            zn_lower_func(m, &pm->funcs[i], m->fns[i]);
    return m->failed ? -1 : 0;
}

static void fill_info(zn_jit_module *jm, const zn_lmod *m, const ptx_func *f,
                      zn_kernel_info *k)
{
    k->name = strdup(f->name);
    k->nparams = f->nparams;
    uint32_t *po = calloc(f->nparams + 1, sizeof *po);
    uint32_t *ps = calloc(f->nparams + 1, sizeof *ps);
    for (uint32_t i = 0; i < f->nparams; i++) {
        po[i] = zn_param_offset(f, i, &k->param_bytes);
        ps[i] = (uint32_t)f->params[i].size;
    }
    if (!f->nparams)
        k->param_bytes = 0;
    k->param_offset = po;
    k->param_size = ps;
    k->static_shared = m->static_shared;
    k->local_bytes = zn_func_local_bytes(f);
    k->uses_barrier = zn_func_uses_barrier(m->pm, f);
    /* registers are spilled vectors of 32 lanes; calls can recurse */
    bool calls = false;
    for (uint32_t i = 0; i < f->nins; i++)
        calls |= f->ins[i].op == PTX_OP_call;
    k->stack_bytes = 64 * 1024 + f->nregs * 256u + k->local_bytes * ZN_LANES;
    if (calls)
        k->stack_bytes += 1024 * 1024;
    uint32_t mt = 1;
    for (int d = 0; d < 3; d++)
        if (f->maxntid[d])
            mt *= f->maxntid[d];
    k->max_threads = (f->maxntid[0] && mt < 1024) ? mt : 1024;
    for (int d = 0; d < 3; d++)
        k->reqntid[d] = f->reqntid[d];
    (void)jm;
}

static void *global_of(const zn_compile_opts *o, const char *name)
{
    for (uint32_t i = 0; i < o->nglobals; i++)
        if (!strcmp(o->globals[i].name, name))
            return o->globals[i].addr;
    return NULL;
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

zn_jit_module *zn_compile(const ptx_module *pm, const zn_compile_opts *o,
                          char *err, size_t errlen)
{
    pthread_once(&llvm_once, llvm_init);
    zn_compile_opts defaults = {.opt_level = 3};
    if (!o)
        o = &defaults;
    int opt = o->opt_level < 0 ? 0 : o->opt_level > 3 ? 3 : o->opt_level;
    bool keep = atomic_load(&keep_ir) || dump_ir();
    err[0] = 0;

    char *host_cpu = LLVMGetHostCPUName();
    char *host_feat = LLVMGetHostCPUFeatures();
    const char *cpu = o->cpu ? o->cpu : host_cpu;
    const char *feat = o->features ? o->features : host_feat;

    zn_jit_module *jm = calloc(1, sizeof *jm);
    LLVMOrcThreadSafeContextRef tsctx = LLVMOrcCreateNewThreadSafeContext();
    zn_lmod M = {0}, *m = &M;
    m->ctx = LLVMOrcThreadSafeContextGetContext(tsctx);
    m->mod = LLVMModuleCreateWithNameInContext("zinc", m->ctx);
    m->b = LLVMCreateBuilderInContext(m->ctx);
    m->pm = pm;
    m->opts = o;
    m->cpu = cpu;
    m->features = feat;
    m->err = err;
    m->errlen = errlen;
    init_types(m);

    LLVMTargetMachineRef tm = make_tm(cpu, feat, opt, err, errlen);
    LLVMModuleRef mod = m->mod;
    int failed = !tm;
    if (!failed) {
        LLVMTargetDataRef td = LLVMCreateTargetDataLayout(tm);
        char *dl = LLVMCopyStringRepOfTargetData(td);
        LLVMSetDataLayout(mod, dl);
        LLVMDisposeMessage(dl);
        LLVMDisposeTargetData(td);
        char *triple = LLVMGetTargetMachineTriple(tm);
        LLVMSetTarget(mod, triple);
        LLVMDisposeMessage(triple);
        failed = lower_module(m) != 0;
    }
    char *vmsg = NULL;
    if (!failed && LLVMVerifyModule(mod, LLVMReturnStatusAction, &vmsg)) {
        snprintf(err, errlen, "internal error: invalid LLVM IR: %.400s", vmsg);
        if (dump_ir()) {
            char *t = LLVMPrintModuleToString(mod);
            fputs(t, stderr);
            LLVMDisposeMessage(t);
        }
        failed = 1;
    }
    if (vmsg)
        LLVMDisposeMessage(vmsg);
    if (!failed && keep) {
        char *t = LLVMPrintModuleToString(mod);
        jm->ir[0] = strdup(t);
        LLVMDisposeMessage(t);
        if (dump_ir())
            fprintf(stderr, "; ---- zinc: LLVM IR before optimisation\n%s\n", jm->ir[0]);
    }
    if (!failed) {
        char passes[32];
        snprintf(passes, sizeof passes, "default<O%d>", opt);
        LLVMPassBuilderOptionsRef po = LLVMCreatePassBuilderOptions();
        failed = check(LLVMRunPasses(mod, passes, tm, po), "optimisation", err, errlen);
        LLVMDisposePassBuilderOptions(po);
    }
    if (!failed && keep) {
        char *t = LLVMPrintModuleToString(mod);
        jm->ir[1] = strdup(t);
        LLVMDisposeMessage(t);
        if (dump_ir())
            fprintf(stderr, "; ---- zinc: LLVM IR after optimisation\n%s\n", jm->ir[1]);
    }
    LLVMDisposeBuilder(m->b);
    free(m->fns);
    free(m->shared);

    if (failed) {
        LLVMDisposeModule(mod);
        LLVMOrcDisposeThreadSafeContext(tsctx);
        if (tm)
            LLVMDisposeTargetMachine(tm);
        LLVMDisposeMessage(host_cpu);
        LLVMDisposeMessage(host_feat);
        zn_jit_module_free(jm);
        return NULL;
    }

    /* the JIT compiles with the same CPU and features (takes tm) */
    LLVMOrcLLJITBuilderRef jb = LLVMOrcCreateLLJITBuilder();
    LLVMOrcLLJITBuilderSetJITTargetMachineBuilder(
        jb, LLVMOrcJITTargetMachineBuilderCreateFromTargetMachine(tm));
    if (check(LLVMOrcCreateLLJIT(&jm->jit, jb), "creating the JIT", err, errlen)) {
        LLVMDisposeModule(mod);
        LLVMOrcDisposeThreadSafeContext(tsctx);
        failed = 1;
    }
    LLVMOrcJITDylibRef jd = NULL;
    if (!failed) {
        jd = LLVMOrcLLJITGetMainJITDylib(jm->jit);
        LLVMOrcDefinitionGeneratorRef gen = NULL;
        failed = check(LLVMOrcCreateDynamicLibrarySearchGeneratorForProcess(
                           &gen, LLVMOrcLLJITGetGlobalPrefix(jm->jit), NULL, NULL),
                       "process symbols", err, errlen);
        if (!failed)
            LLVMOrcJITDylibAddGenerator(jd, gen);
        LLVMOrcThreadSafeModuleRef tsm = LLVMOrcCreateNewThreadSafeModule(mod, tsctx);
        LLVMOrcDisposeThreadSafeContext(tsctx);
        if (!failed)
            failed = check(LLVMOrcLLJITAddLLVMIRModule(jm->jit, jd, tsm),
                           "adding the module", err, errlen);
        else
            LLVMOrcDisposeThreadSafeModule(tsm);
    }
    uint32_t nk = 0;
    for (uint32_t i = 0; i < pm->nfuncs; i++)
        nk += pm->funcs[i].is_entry && !pm->funcs[i].is_decl;
    jm->kernels = calloc(nk + 1, sizeof *jm->kernels);
    for (uint32_t i = 0; i < pm->nfuncs && !failed; i++) {
        const ptx_func *f = &pm->funcs[i];
        if (!f->is_entry || f->is_decl)
            continue;
        zn_kernel_info *k = &jm->kernels[jm->nkernels++];
        fill_info(jm, m, f, k);
        char name[512];
        snprintf(name, sizeof name, "zk_%s", f->name);
        LLVMOrcExecutorAddress addr = 0;
        failed = check(LLVMOrcLLJITLookup(jm->jit, &addr, name), "code generation",
                       err, errlen);
        k->fn = (zn_kernel_fn)(uintptr_t)addr;
    }
    if (!failed)
        failed = apply_relocs(jm, pm, o, err, errlen);
    LLVMDisposeMessage(host_cpu);
    LLVMDisposeMessage(host_feat);
    if (failed) {
        zn_jit_module_free(jm);
        return NULL;
    }
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
