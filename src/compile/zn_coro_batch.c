/* zn_coro_batch.c: a coroutine kernel's warps resumed by compiled code.
 *
 * After CoroSplit a coroutine kernel zk_K (zn_lower_coro.c) has a resume
 * function zk_K.resume(frame) that the executor called once per warp per
 * barrier: bench/reduce's block (8 warps, 9 barriers) made 64 such calls,
 * and each paid a call through the frame, the function's prologue and
 * epilogue (five callee-saved registers, a realigned stack frame) and the
 * scheduler's C loop around it: together about as much as the tree step
 * each call ran. Here a coroutine kernel can get
 *
 *   int32_t zk_K.batch(zn_warp_ctx *warps, uint32_t todo, uint32_t nthreads,
 *                      uint32_t *ended)
 *
 * which resumes the warps of `todo` in increasing order and goes on to
 * the next warp as long as each one suspends at bar.sync 0 of the whole
 * block (the executor's lockstep round, exec/zn_exec_coro.c) or ends
 * without error (those are the bits of *ended); it returns -1 when all of
 * them did, else the index of the warp that returned some other way (it
 * failed, yielded, or waits at another barrier), which the executor then
 * handles as it did after one resume; the warps before it have arrived or
 * ended. The executor calls nothing else once a warp has started, so the
 * resume function, inlined into the loop, goes, and its address is no
 * longer stored in the frames (frame[0], the switched-resume ABI's resume
 * pointer).
 *
 * Only kernels with a barrier in a loop get one (ZN_ATTR_BATCH_INLINE on
 * the kernel, set by zn_lower_coro.c): a block suspends once per
 * iteration there, and the call, prologue and epilogue per warp were as
 * much as the work between two barriers (bench/reduce, 9 rounds per
 * block: -29% on one worker). With one or two barriers per block the
 * warps' segments are long: inlining the resume function into the loop
 * only shifted register allocation in them (histogram +1%, transpose
 * within noise; stop 25 saw +4-6% on sgemm and histogram when every
 * kernel was inlined), and a batch loop calling it was slower than the
 * executor's own loop where the warps end after their only barrier
 * (mmvq_thin, reduce_warp +1-3%: the batch's own call and prologue per
 * block). Those keep the resume pointer and the executor's loop.
 *
 * Every coroutine kernel also gets
 *
 *   int32_t zk_K.start(zn_warp_ctx *warps, uint32_t todo, uint32_t nthreads,
 *                      uint32_t *ended)
 *
 * the same loop over warps that have not started, calling the ramp zk_K:
 * the executor's first round of a block is one call instead of a call,
 * status tests and mask updates per warp (bench_ab_env, both orders:
 * shuffle reduction -12..-15 %, tree -3..-6 %, mmvq_thin 0..-5 %). A
 * small ramp is inlined into the loop (START_INLINE_MAX: the tree
 * reduction's 206 instructions); a large one is called, since a second
 * copy doubles its code generation (libcu_barrier's 22000-instruction
 * ramps: codegen 7 -> 12.6 s when inlined).
 */
#include "zn_pipeline.h"
#include "exec/zn_kernel_abi.h"

#include <llvm-c/Error.h>
#include <llvm-c/Transforms/PassBuilder.h>

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SUFFIX ".resume"
/* LLVM instructions up to which a ramp is inlined into zk_K.start */
#define START_INLINE_MAX 500

/* the ramp's string attributes (target CPU and features): the inliner
 * wants the caller's to include the callee's */
static void copy_string_attrs(LLVMValueRef from, LLVMValueRef to)
{
    unsigned n = LLVMGetAttributeCountAtIndex(from, LLVMAttributeFunctionIndex);
    LLVMAttributeRef *a = n ? malloc(n * sizeof *a) : NULL;
    if (!a)
        return;
    LLVMGetAttributesAtIndex(from, LLVMAttributeFunctionIndex, a);
    for (unsigned i = 0; i < n; i++)
        if (LLVMIsStringAttribute(a[i]))
            LLVMAddAttributeAtIndex(to, LLVMAttributeFunctionIndex, a[i]);
    free(a);
}

static LLVMValueRef field(LLVMBuilderRef b, LLVMContextRef c, LLVMValueRef w, size_t off)
{
    LLVMValueRef idx = LLVMConstInt(LLVMInt64TypeInContext(c), off, 0);
    return LLVMBuildGEP2(b, LLVMInt8TypeInContext(c), w, &idx, 1, "");
}

/* true when the warp suspended at bar.sync 0 of the whole block (co_wait:
 * id | mode << 8 | count << 32, count 0 or at least the block's threads) */
static LLVMValueRef whole_block_wait(LLVMBuilderRef b, LLVMContextRef c, LLVMValueRef w,
                                     LLVMValueRef nthreads)
{
    LLVMTypeRef i32 = LLVMInt32TypeInContext(c), i64 = LLVMInt64TypeInContext(c);
    LLVMValueRef cw = LLVMBuildLoad2(b, i64, field(b, c, w, offsetof(zn_warp_ctx, co_wait)),
                                     "wait");
    LLVMValueRef bar0 = LLVMBuildICmp(b, LLVMIntEQ,
        LLVMBuildAnd(b, cw, LLVMConstInt(i64, 0xffff, 0), ""), LLVMConstInt(i64, 0, 0), "");
    LLVMValueRef count = LLVMBuildTrunc(b, LLVMBuildLShr(b, cw, LLVMConstInt(i64, 32, 0), ""),
                                        i32, "count");
    LLVMValueRef all = LLVMBuildOr(b,
        LLVMBuildICmp(b, LLVMIntEQ, count, LLVMConstInt(i32, 0, 0), ""),
        LLVMBuildICmp(b, LLVMIntUGE, count, nthreads, ""), "");
    return LLVMBuildAnd(b, bar0, all, "whole");
}

typedef struct batch_fn {
    LLVMContextRef c;
    LLVMBuilderRef b;
    LLVMValueRef fn;
    LLVMTypeRef i32;
} batch_fn;

static LLVMBasicBlockRef block(batch_fn *bf, const char *name)
{
    return LLVMAppendBasicBlockInContext(bf->c, bf->fn, name);
}

static LLVMValueRef i32c(batch_fn *bf, int64_t v)
{
    return LLVMConstInt(bf->i32, (uint64_t)v, 1);
}

/* what a loop does to each warp: resume it (zk_K.batch), or start it,
 * calling the ramp or with the ramp inlined (zk_K.start) */
typedef enum { LOOP_RESUME, LOOP_START, LOOP_START_INLINED } loop_kind;

/* the loop's next warp: cttz of what is left, its context, the call:
 * resume(frame) or ramp(w) */
static LLVMValueRef run_lowest(batch_fn *bf, LLVMModuleRef mod, LLVMValueRef callee,
                                  loop_kind kind, LLVMValueRef left, LLVMValueRef *w)
{
    LLVMBuilderRef b = bf->b;
    LLVMContextRef c = bf->c;
    LLVMTypeRef i64 = LLVMInt64TypeInContext(c), ptr = LLVMPointerTypeInContext(c, 0);
    unsigned cttz_id = LLVMLookupIntrinsicID("llvm.cttz", 9);
    LLVMValueRef cttz = LLVMGetIntrinsicDeclaration(mod, cttz_id, &bf->i32, 1);
    LLVMValueRef cargs[2] = {left, LLVMConstInt(LLVMInt1TypeInContext(c), 1, 0)};
    LLVMValueRef i = LLVMBuildCall2(b, LLVMIntrinsicGetType(c, cttz_id, &bf->i32, 1), cttz,
                                    cargs, 2, "i");
    LLVMValueRef off = LLVMBuildMul(b, LLVMBuildZExt(b, i, i64, ""),
                                    LLVMConstInt(i64, sizeof(zn_warp_ctx), 0), "");
    *w = LLVMBuildGEP2(b, LLVMInt8TypeInContext(c), LLVMGetParam(bf->fn, 0), &off, 1, "w");
    LLVMBuildStore(b, i32c(bf, ZN_KSTATUS_RUNNING),
                   field(b, c, *w, offsetof(zn_warp_ctx, co_status)));
    LLVMValueRef arg = kind != LOOP_RESUME ? *w
        : LLVMBuildLoad2(b, ptr, field(b, c, *w, offsetof(zn_warp_ctx, co_frame)), "frame");
    LLVMValueRef call = LLVMBuildCall2(b, LLVMGlobalGetValueType(callee), callee, &arg, 1, "");
    LLVMSetInstructionCallConv(call, LLVMGetFunctionCallConv(callee));
    if (kind == LOOP_START_INLINED)
        LLVMAddCallSiteAttribute(call, LLVMAttributeFunctionIndex,
            LLVMCreateEnumAttribute(c, LLVMGetEnumAttributeKindForName("alwaysinline", 12), 0));
    return i;
}

/* int32_t K.batch or K.start(zn_warp_ctx *warps, uint32_t todo,
 * uint32_t nthreads, uint32_t *ended): zn_batch_fn, the loop of `kind` */
static void build_batch(LLVMModuleRef mod, LLVMValueRef ramp, LLVMValueRef resume,
                        loop_kind kind, const char *name)
{
    batch_fn bf = {.c = LLVMGetModuleContext(mod)};
    bf.i32 = LLVMInt32TypeInContext(bf.c);
    LLVMTypeRef ptr = LLVMPointerTypeInContext(bf.c, 0);
    LLVMTypeRef at[4] = {ptr, bf.i32, bf.i32, ptr};
    bf.fn = LLVMAddFunction(mod, name, LLVMFunctionType(bf.i32, at, 4, 0));
    copy_string_attrs(ramp, bf.fn);
    LLVMBasicBlockRef entry = block(&bf, "entry"), loop = block(&bf, "loop");
    LLVMBasicBlockRef body = block(&bf, "warp"), ran = block(&bf, "suspended");
    LLVMBasicBlockRef gone = block(&bf, "gone"), next = block(&bf, "next");
    LLVMBasicBlockRef stop = block(&bf, "stop"), done = block(&bf, "done");
    LLVMBuilderRef b = bf.b = LLVMCreateBuilderInContext(bf.c);

    LLVMPositionBuilderAtEnd(b, entry);
    LLVMBuildBr(b, loop);

    LLVMPositionBuilderAtEnd(b, loop);
    LLVMValueRef left = LLVMBuildPhi(b, bf.i32, "todo");
    LLVMValueRef ended = LLVMBuildPhi(b, bf.i32, "ended");
    LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntEQ, left, i32c(&bf, 0), ""), done, body);

    /* a warp that suspended at the whole block's barrier arrived; one that
     * ended without error is done; either way the next one goes on */
    LLVMPositionBuilderAtEnd(b, body);
    LLVMValueRef w;
    LLVMValueRef i = run_lowest(&bf, mod, kind == LOOP_RESUME ? resume : ramp, kind, left, &w);
    LLVMValueRef st = LLVMBuildLoad2(b, bf.i32, field(b, bf.c, w, offsetof(zn_warp_ctx,
                                                                          co_status)), "st");
    LLVMValueRef sw = LLVMBuildSwitch(b, st, stop, 2);
    LLVMAddCase(sw, i32c(&bf, ZN_KSTATUS_RUNNING), ran);
    LLVMAddCase(sw, i32c(&bf, ZN_KSTATUS_OK), gone);

    LLVMPositionBuilderAtEnd(b, ran);
    LLVMBuildCondBr(b, whole_block_wait(b, bf.c, w, LLVMGetParam(bf.fn, 2)), next, stop);

    LLVMPositionBuilderAtEnd(b, gone);
    LLVMValueRef bit = LLVMBuildShl(b, i32c(&bf, 1), i, "");
    LLVMValueRef ended_more = LLVMBuildOr(b, ended, bit, "");
    LLVMBuildBr(b, next);

    LLVMPositionBuilderAtEnd(b, next);
    LLVMValueRef ended_next = LLVMBuildPhi(b, bf.i32, "");
    LLVMValueRef einc[2] = {ended, ended_more};
    LLVMBasicBlockRef eincb[2] = {ran, gone};
    LLVMAddIncoming(ended_next, einc, eincb, 2);
    LLVMValueRef rest = LLVMBuildAnd(b, left, LLVMBuildSub(b, left, i32c(&bf, 1), ""), "rest");
    LLVMBuildBr(b, loop);
    LLVMValueRef linc[2] = {LLVMGetParam(bf.fn, 1), rest};
    LLVMValueRef dinc[2] = {i32c(&bf, 0), ended_next};
    LLVMBasicBlockRef lincb[2] = {entry, next};
    LLVMAddIncoming(left, linc, lincb, 2);
    LLVMAddIncoming(ended, dinc, lincb, 2);

    LLVMPositionBuilderAtEnd(b, stop);
    LLVMBuildStore(b, ended, LLVMGetParam(bf.fn, 3));
    LLVMBuildRet(b, i);
    LLVMPositionBuilderAtEnd(b, done);
    LLVMBuildStore(b, ended, LLVMGetParam(bf.fn, 3));
    LLVMBuildRet(b, i32c(&bf, -1));
    LLVMDisposeBuilder(b);
}

/* drops the stores of the resume function's address (into the frames),
 * one at a time: erasing a user invalidates the use list being walked */
static void drop_resume_stores(LLVMValueRef resume)
{
    for (bool again = true; again;) {
        again = false;
        for (LLVMUseRef u = LLVMGetFirstUse(resume); u; u = LLVMGetNextUse(u)) {
            LLVMValueRef user = LLVMGetUser(u);
            if (LLVMIsAStoreInst(user) && LLVMGetOperand(user, 0) == resume) {
                LLVMInstructionEraseFromParent(user);
                again = true;
                break;
            }
        }
    }
}

bool zn_coro_batch_disabled(void)
{
    const char *s = getenv("ZINC_NO_CORO_BATCH");
    return s && *s && *s != '0';
}

bool zn_coro_start_disabled(void)
{
    const char *s = getenv("ZINC_NO_CORO_START");
    return s && *s && *s != '0';
}

/* zk_K + suffix, or NULL without memory */
static char *suffixed(const char *ramp, const char *suffix)
{
    size_t n = strlen(ramp), sl = strlen(suffix);
    char *s = malloc(n + sl + 1);
    if (s) {
        memcpy(s, ramp, n);
        memcpy(s + n, suffix, sl + 1);
    }
    return s;
}

enum { MADE_START = 1, MADE_BATCH = 2 };

/* zk_K.start and, for ZN_ATTR_BATCH_INLINE kernels, zk_K.batch of the
 * kernel whose resume function is `resume`: MADE_* bits, -1 without memory */
static int build_loops(LLVMModuleRef mod, LLVMValueRef resume, const char *ramp_name)
{
    LLVMValueRef ramp = LLVMGetNamedFunction(mod, ramp_name);
    if (!ramp || LLVMIsDeclaration(ramp))
        return 0;
    char *start_name = suffixed(ramp_name, ".start"), *batch_name = suffixed(ramp_name, ".batch");
    if (!start_name || !batch_name) {
        free(start_name);
        free(batch_name);
        return -1;
    }
    bool batch = !zn_coro_batch_disabled() && !LLVMGetNamedFunction(mod, batch_name) &&
                 LLVMGetStringAttributeAtIndex(ramp, LLVMAttributeFunctionIndex,
                                               ZN_ATTR_BATCH_INLINE,
                                               sizeof ZN_ATTR_BATCH_INLINE - 1);
    int made = 0;
    if (!zn_coro_start_disabled() && !LLVMGetNamedFunction(mod, start_name)) {
        build_batch(mod, ramp, resume, zn_func_instrs(ramp) <= START_INLINE_MAX ?
                    LOOP_START_INLINED : LOOP_START, start_name);
        made |= MADE_START;
    }
    if (batch) {
        build_batch(mod, ramp, resume, LOOP_RESUME, batch_name);
        made |= MADE_BATCH;
    }
    free(start_name);
    free(batch_name);
    return made;
}

int zn_coro_batch(LLVMModuleRef mod, const zn_target *t, char *err, size_t errlen)
{
    if (t->amdgpu || (zn_coro_batch_disabled() && zn_coro_start_disabled()))
        return 0;
    unsigned built = 0;
    for (LLVMValueRef f = LLVMGetFirstFunction(mod); f; f = LLVMGetNextFunction(f)) {
        size_t n = 0;
        const char *name = LLVMGetValueName2(f, &n);
        size_t sl = sizeof SUFFIX - 1;
        if (LLVMIsDeclaration(f) || n <= sl || strcmp(name + n - sl, SUFFIX) ||
            strncmp(name, "zk_", 3))
            continue;
        /* mangled C++ names run to thousands of bytes */
        char *ramp_name = malloc(n - sl + 1);
        int made = -1;
        if (ramp_name) {
            memcpy(ramp_name, name, n - sl);
            ramp_name[n - sl] = 0;
            made = build_loops(mod, f, ramp_name);
            free(ramp_name);
        }
        if (made < 0) {
            snprintf(err, errlen, "coroutine batches: out of memory");
            return -1;
        }
        built += made != 0;
        if (!(made & MADE_BATCH))
            continue;
        drop_resume_stores(f);
        LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex,
            LLVMCreateEnumAttribute(LLVMGetModuleContext(mod),
                                    LLVMGetEnumAttributeKindForName("alwaysinline", 12), 0));
        LLVMRemoveEnumAttributeAtIndex(f, LLVMAttributeFunctionIndex,
                                       LLVMGetEnumAttributeKindForName("noinline", 8));
    }
    if (!built)
        return 0;
    LLVMPassBuilderOptionsRef po = LLVMCreatePassBuilderOptions();
    LLVMErrorRef e = LLVMRunPasses(mod, "always-inline,globaldce", t->tm, po);
    LLVMDisposePassBuilderOptions(po);
    if (!e)
        return 0;
    char *msg = LLVMGetErrorMessage(e);
    snprintf(err, errlen, "coroutine batches: %s", msg);
    LLVMDisposeErrorMessage(msg);
    return -1;
}
