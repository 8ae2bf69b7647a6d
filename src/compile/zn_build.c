/* zn_build.c: the stages from PTX IR to code: lowering and verification,
 * optimisation, code generation; and the kernel facts that need no LLVM. */
#include "zn_pipeline.h"
#include "zn_lower.h"
#include "zn_amdgpu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <llvm-c/Analysis.h>
#include <llvm-c/Support.h>
#include <llvm-c/Error.h>
#include <llvm-c/Transforms/PassBuilder.h>
#include "util/zn_log.h"

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

/* Units bigger than this many LLVM instructions get the light pipeline
 * below instead of default<On>. CUB's onesweep radix-sort kernel (about
 * 200k instructions lowered, issue #3) took 15-30 s in default<O3> (GVN
 * 6 s, InstCombine 4 s) and minutes before registers were demoted
 * (zn_lower_demote.c); code generation costs ~10 s whatever ran before,
 * so the optimiser's share must stay small. Deterministic in the PTX, so
 * cache keys stay valid. */
#define ZN_HUGE_UNIT_INSTRS 150000u

/* What pays in a huge warp function: SROA/mem2reg turns the registers
 * that are not demoted into SSA values (without it every PTX register read
 * is a load from its slot: a 1.4 MB frame instead of 0.87 MB for the
 * onesweep kernel), EarlyCSE and InstCombine fold the lowering's
 * broadcasts and mask tests inside a block, SimplifyCFG merges the
 * memory-access paths' blocks, DSE/ADCE drop the dead stores of undef
 * into block-local registers. All local: no GVN, LICM or loop passes,
 * whose cross-block forwarding lengthens live ranges of 32-lane vectors
 * for the register allocator (measured: docs/compile-time.md). */
static const char zn_light_passes[] =
    "coro-early,function(sroa<modify-cfg>,early-cse<memssa>,instcombine<no-verify-fixpoint>,"
    "simplifycfg,dse,adce),cgscc(coro-split),coro-cleanup";

/* LLVM's own options, once per process before any compile. The greedy
 * register allocator grows each split region up to a complexity budget
 * (default 10 000); in big warp functions with barriers (llama.cpp's
 * mul_mat_q: 4k blocks, hundreds of 32-lane values live across them) that
 * search was 65 % of code generation (Q4_0 mmq_x = 8: 9.8 of 15 s; 4.1 s
 * at 1000, 2.8 s at 100). At 1000 no bench/ kernel's code changes but
 * scan's (run time within noise); at 100 most of them change and
 * histogram/softmax ran 3-4 % slower (docs/compile-time.md). */
void zn_llvm_options(void)
{
    const char *argv[] = {"zinc", "-grow-region-complexity-budget=1000"};
    LLVMParseCommandLineOptions(2, argv, NULL);
}

uint64_t zn_func_instrs(LLVMValueRef f)
{
    uint64_t n = 0;
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb; bb = LLVMGetNextBasicBlock(bb))
        for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i))
            n++;
    return n;
}

static uint64_t count_instrs(LLVMModuleRef mod)
{
    uint64_t n = 0;
    for (LLVMValueRef f = LLVMGetFirstFunction(mod); f; f = LLVMGetNextFunction(f))
        n += zn_func_instrs(f);
    return n;
}

static const char *module_name(LLVMModuleRef mod)
{
    /* the unit's kernel: the one external definition (zn_internalize) */
    for (LLVMValueRef f = LLVMGetFirstFunction(mod); f; f = LLVMGetNextFunction(f))
        if (!LLVMIsDeclaration(f) && LLVMGetLinkage(f) == LLVMExternalLinkage)
            return LLVMGetValueName2(f, &(size_t){0});
    return "module";
}

int zn_optimise(LLVMModuleRef mod, const zn_target *t, char *err, size_t errlen)
{
    char passes[32];
    snprintf(passes, sizeof passes, "default<O%d>", t->opt);
    const char *run = passes;
    uint64_t n = count_instrs(mod);
    zn_log(ZN_LOG_DEBUG, "compile: %s: %llu LLVM instructions", module_name(mod),
           (unsigned long long)n);
    /* ZINC_LIGHT_OPT_INSTRS=N: another threshold (tests, A/B runs; not
     * part of the cache key, like ZINC_DEMOTE_PHIS) */
    const char *env = getenv("ZINC_LIGHT_OPT_INSTRS");
    uint64_t lim = env && *env ? strtoull(env, NULL, 10) : ZN_HUGE_UNIT_INSTRS;
    if (t->opt > 0 && n > lim) {
        run = zn_light_passes;
        zn_log(ZN_LOG_INFO, "compile: %s: %llu LLVM instructions, light optimisation "
               "pipeline", module_name(mod), (unsigned long long)n);
    }
    LLVMPassBuilderOptionsRef po = LLVMCreatePassBuilderOptions();
    LLVMErrorRef e = LLVMRunPasses(mod, run, t->tm, po);
    LLVMDisposePassBuilderOptions(po);
    if (!e) {
        zn_widen_half_fcmp(mod, t);
        return zn_coro_batch(mod, t, err, errlen);
    }
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

zn_shared_size zn_module_static_shared(const ptx_module *pm)
{
    zn_lmod m = {0};
    m.pm = pm;
    zn_shared_layout(&m, NULL);
    free(m.shared);
    return (zn_shared_size){ m.static_shared, m.shared_declared };
}

zn_shared_size zn_unit_static_shared(const ptx_module *pm, uint32_t entry)
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
    return (zn_shared_size){ m.static_shared, m.shared_declared };
}

void zn_kernel_facts(const ptx_module *pm, const ptx_func *f, zn_kernel_info *k)
{
    zn_kernel_facts_shared(pm, f, zn_module_static_shared(pm), k);
}

void zn_kernel_facts_shared(const ptx_module *pm, const ptx_func *f, zn_shared_size shared,
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
    k->static_shared = shared.layout;
    k->shared_declared = shared.declared;
    k->local_bytes = zn_func_local_bytes(f);
    k->uses_barrier = zn_func_coro(pm, f) ? 2 : zn_func_uses_barrier(pm, f);
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
