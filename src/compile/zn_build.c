/* zn_build.c: the stages from PTX IR to code: lowering and verification,
 * optimisation, code generation; and the kernel facts that need no LLVM. */
#include "zn_pipeline.h"
#include "zn_lower.h"
#include "zn_amdgpu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <llvm-c/Analysis.h>
#include <llvm-c/Error.h>
#include <llvm-c/Transforms/PassBuilder.h>

static int dump_ir(void)
{
    const char *s = getenv("ZINC_DUMP_IR");
    return s && *s && strcmp(s, "0");
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

/* Lowers the functions in want[] (all when NULL); the others are left out
 * (want[] is closed under calls and address-taking, zn_jit_closure). 0 on
 * success. */
static int lower_module(zn_lmod *m, const bool *want)
{
    const ptx_module *pm = m->pm;
    if (zn_shared_layout(m, want) != 0)
        return -1;
    m->fns = calloc(pm->nfuncs + 1, sizeof *m->fns);
    for (uint32_t i = 0; i < pm->nfuncs; i++) {
        const ptx_func *f = &pm->funcs[i];
        if (f->is_decl || (want && !want[i]))
            continue;
        /* a prototype and a definition of the same name: use the definition */
        m->fns[i] = zn_declare_func(m, f);
    }
    for (uint32_t i = 0; i < pm->nfuncs && !m->failed; i++)
        if (m->fns[i])
            zn_lower_func(m, &pm->funcs[i], m->fns[i]);
    return m->failed ? -1 : 0;
}

LLVMModuleRef zn_build_ir(const ptx_module *pm, const zn_compile_opts *o,
                          const zn_target *t, LLVMContextRef ctx, char *err,
                          size_t errlen)
{
    return zn_build_ir_subset(pm, o, t, ctx, NULL, err, errlen);
}

LLVMModuleRef zn_build_ir_subset(const ptx_module *pm, const zn_compile_opts *o,
                                 const zn_target *t, LLVMContextRef ctx, const bool *want,
                                 char *err, size_t errlen)
{
    zn_lmod M = {0}, *m = &M;
    m->ctx = ctx;
    m->mod = LLVMModuleCreateWithNameInContext("zinc", ctx);
    m->b = LLVMCreateBuilderInContext(ctx);
    m->pm = pm;
    m->opts = o;
    m->cpu = t->cpu;
    m->features = t->features;
    m->err = err;
    m->errlen = errlen;
    init_types(m);

    LLVMTargetDataRef td = LLVMCreateTargetDataLayout(t->tm);
    char *dl = LLVMCopyStringRepOfTargetData(td);
    LLVMDisposeTargetData(td);
    char *lower_dl = t->amdgpu ? zn_amdgpu_lowering_layout(dl) : strdup(dl);
    LLVMSetDataLayout(m->mod, lower_dl);
    free(lower_dl);
    LLVMSetTarget(m->mod, t->triple);

    int failed = lower_module(m, want) != 0;
    if (!failed && t->amdgpu)
        zn_amdgpu_private_allocas(m->mod, dl);
    LLVMDisposeMessage(dl);
    char *vmsg = NULL;
    if (!failed && LLVMVerifyModule(m->mod, LLVMReturnStatusAction, &vmsg)) {
        snprintf(err, errlen, "internal error: invalid LLVM IR: %.400s", vmsg);
        if (dump_ir()) {
            char *s = LLVMPrintModuleToString(m->mod);
            fputs(s, stderr);
            LLVMDisposeMessage(s);
        }
        failed = 1;
    }
    if (vmsg)
        LLVMDisposeMessage(vmsg);
    LLVMDisposeBuilder(m->b);
    free(m->fns);
    free(m->shared);
    if (failed) {
        LLVMDisposeModule(m->mod);
        return NULL;
    }
    return m->mod;
}

int zn_optimise(LLVMModuleRef mod, const zn_target *t, char *err, size_t errlen)
{
    char passes[32];
    snprintf(passes, sizeof passes, "default<O%d>", t->opt);
    LLVMPassBuilderOptionsRef po = LLVMCreatePassBuilderOptions();
    LLVMErrorRef e = LLVMRunPasses(mod, passes, t->tm, po);
    LLVMDisposePassBuilderOptions(po);
    if (!e)
        return 0;
    char *msg = LLVMGetErrorMessage(e);
    snprintf(err, errlen, "optimisation: %s", msg);
    LLVMDisposeErrorMessage(msg);
    return -1;
}

int zn_emit(LLVMModuleRef mod, const zn_target *t, LLVMCodeGenFileType kind,
            LLVMMemoryBufferRef *out, char *err, size_t errlen)
{
    char *msg = NULL;
    if (LLVMTargetMachineEmitToMemoryBuffer(t->tm, mod, kind, &msg, out)) {
        snprintf(err, errlen, "code generation for %s: %s", t->triple, msg ? msg : "?");
        LLVMDisposeMessage(msg);
        return -1;
    }
    return 0;
}

uint32_t zn_module_static_shared(const ptx_module *pm)
{
    zn_lmod m = {0};
    m.pm = pm;
    zn_shared_layout(&m, NULL);
    free(m.shared);
    return m.static_shared;
}

uint32_t zn_unit_static_shared(const ptx_module *pm, uint32_t entry)
{
    bool *want = calloc(pm->nfuncs + 1, sizeof *want);
    if (!want)
        return zn_module_static_shared(pm);
    zn_jit_closure(pm, entry, want);
    zn_lmod m = {0};
    m.pm = pm;
    zn_shared_layout(&m, want);
    free(m.shared);
    free(want);
    return m.static_shared;
}

void zn_kernel_facts(const ptx_module *pm, const ptx_func *f, zn_kernel_info *k)
{
    zn_kernel_facts_shared(pm, f, zn_module_static_shared(pm), k);
}

void zn_kernel_facts_shared(const ptx_module *pm, const ptx_func *f, uint32_t static_shared,
                            zn_kernel_info *k)
{
    k->name = strdup(f->name);
    k->nparams = f->nparams;
    uint32_t *po = calloc(f->nparams + 1, sizeof *po);
    uint32_t *ps = calloc(f->nparams + 1, sizeof *ps);
    k->param_bytes = 0;
    for (uint32_t i = 0; i < f->nparams; i++) {
        po[i] = zn_param_offset(f, i, &k->param_bytes);
        ps[i] = (uint32_t)f->params[i].size;
    }
    if (!f->nparams)
        k->param_bytes = 0;
    k->param_offset = po;
    k->param_size = ps;
    k->static_shared = static_shared;
    k->local_bytes = zn_func_local_bytes(f);
    k->uses_barrier = zn_func_uses_barrier(pm, f);
    k->polls = zn_func_polls(pm, f);
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
    for (int d = 0; d < 3; d++) {
        k->reqntid[d] = f->reqntid[d];
        k->cluster_dim[d] = f->reqnctapercluster[d];
    }
    k->explicit_cluster = f->explicitcluster || f->reqnctapercluster[0];
    k->max_cluster_rank = f->maxclusterrank;
}

/* A unit of one kernel: every definition but the kernel becomes internal,
 * so units of one module that share a .func can sit in one JIT (each has
 * its own copy) and O3 may inline or drop what the kernel does not use. */
void zn_internalize(LLVMModuleRef mod, const char *keep)
{
    for (LLVMValueRef f = LLVMGetFirstFunction(mod); f; f = LLVMGetNextFunction(f)) {
        if (LLVMIsDeclaration(f))
            continue;
        size_t n = 0;
        const char *name = LLVMGetValueName2(f, &n);
        if (strcmp(name, keep))
            LLVMSetLinkage(f, LLVMInternalLinkage);
    }
    for (LLVMValueRef g = LLVMGetFirstGlobal(mod); g; g = LLVMGetNextGlobal(g))
        if (!LLVMIsDeclaration(g))
            LLVMSetLinkage(g, LLVMInternalLinkage);
}
