/* zn_lower_coro.c: kernels with barriers as LLVM coroutines.
 *
 * A warp that waits at bar.sync must let the block's other warps run. The
 * executor can run each warp on its own fiber (a stack switch inside the
 * barrier call), or, for a kernel compiled here as a coroutine, return to
 * the executor from the barrier and be resumed later: the entry function
 * gets LLVM's switched-resume coroutine intrinsics, every barrier (and
 * yield) is a suspend point, and LLVM's CoroSplit pass
 * keeps only the values live across a suspend in the warp's frame. On an
 * AMD Zen 4 the fiber switch and the reloads of each warp's 4-6 KiB stack
 * frame after it were two thirds of bench/reduce's time (9 barriers per
 * warp, 8 warps per block).
 *
 * The protocol with the executor is in exec/zn_kernel_abi.h (co_status,
 * co_frame, co_wait, rt->coro_frame) and exec/zn_exec_coro.c.
 * Kernels that block somewhere a suspend cannot reach stay on fibers:
 * barriers or spin-waits (mbarrier, nanosleep) in called functions,
 * indirect calls, cluster barriers (their wait polls other threads), and
 * kernels whose frame estimate exceeds what a thread stack may carry.
 * ZINC_NO_CORO=1 keeps every kernel on fibers (A/B runs; part of the
 * kernel cache key).
 *
 * Grid-stride loops (`for (i = tid; i < n; i += gridDim.x * blockDim.x)`)
 * make a kernel without barriers a coroutine too: a warp that runs its
 * whole loop alone touches 128 bytes per page per iteration, one page
 * after another, and the block's next warp then walks the lines next to
 * them, long evicted. With a yield at the loop's backward branch (taken
 * by some lane) the block's warps take turns iteration by iteration, as
 * on a GPU, so each round reads and writes blockDim.x contiguous elements
 * (2^24 floats, 128 blocks of 256 threads, on an Intel Xeon: `y[i] = 2 *
 * x[i]` 12-13 -> 7-8.5 ms, `y[i] = a x[i] + b z[i] + c w[i]` 27 -> 17,
 * a dot product 12.3 -> 6.9). A warp that leaves the loop after its first
 * iteration never yields. Only kernels without block barriers: the yield
 * makes LLVM keep the loop's live values in the coroutine frame, saved
 * every iteration, and a kernel that is a coroutine anyway lost more there
 * than it gained (bench/histogram 28-30 -> 35-39 ms: its conflict-add
 * vectors, 768 bytes); yielding every 4 or 8 iterations instead gave most
 * of the gain back (the three-input sum 28 ms). ZINC_NO_GRID_INTERLEAVE=1
 * turns this off (A/B runs; part of the kernel cache key).
 */
#include "zn_lower.h"
#include "zn_pipeline.h"

#include <stdlib.h>
#include <string.h>

/* A warp frame estimate above this stays on fibers, whose stacks are
 * sized for it (exec's ZN_THREAD_STACK_LIMIT: coroutine code runs on the
 * worker's own stack). */
#define ZN_CORO_STACK_LIMIT (256u << 10)

bool zn_coro_disabled(void)
{
    const char *s = getenv("ZINC_NO_CORO");
    return s && *s && *s != '0';
}

static bool waits_in_callee(const ptx_func *f, uint32_t i)
{
    const ptx_ins *ins = &f->ins[i];
    return zn_ins_is_block_barrier(ins) || ins->op == PTX_OP_mbarrier ||
           ins->op == PTX_OP_nanosleep || zn_ins_spin_edge(f, i) ||
           ((ins->op == PTX_OP_bar || ins->op == PTX_OP_barrier) &&
            ins->scope == PTX_SCOPE_CLUSTER);
}

bool zn_func_coro(const ptx_module *pm, const ptx_func *f)
{
    if (!f->is_entry || zn_coro_disabled() ||
        (!zn_func_uses_barrier(pm, f) && !zn_func_grid_interleaved(pm, f)))
        return false;
    if (64u * 1024 + f->nregs * 256u + zn_func_local_bytes(f) * ZN_LANES > ZN_CORO_STACK_LIMIT)
        return false;
    for (uint32_t i = 0; i < f->nins; i++) {
        const ptx_ins *ins = &f->ins[i];
        if ((ins->op == PTX_OP_bar || ins->op == PTX_OP_barrier) && ins->scope == PTX_SCOPE_CLUSTER)
            return false;
        if (ins->op != PTX_OP_call)
            continue;
        bool direct = false;
        for (uint32_t k = 0; k < ins->nopnds; k++) {
            const ptx_opnd *o = &ins->opnds[k];
            if (o->kind != PTX_OPND_SYM || !o->func)
                continue;
            direct = true;
            if (!o->func->is_decl && zn_func_reaches(pm, o->func, waits_in_callee))
                return false;
        }
        if (!direct)
            return false;   /* through a pointer: the callee is unknown */
    }
    return true;
}

bool zn_grid_interleave_disabled(void)
{
    const char *s = getenv("ZINC_NO_GRID_INTERLEAVE");
    return s && *s && *s != '0';
}

/* an entry whose grid-stride loops may interleave: not turned off, and
 * no block barriers (a coroutine with barriers keeps its loops whole) */
static bool may_interleave(const ptx_module *pm, const ptx_func *f)
{
    return f->is_entry && !zn_grid_interleave_disabled() && !zn_func_uses_barrier(pm, f);
}

bool zn_func_grid_interleaved(const ptx_module *pm, const ptx_func *f)
{
    return may_interleave(pm, f) && zn_grid_loops(f, NULL);
}

void zn_grid_yield_latches(zn_lfn *l, const ptx_module *pm, const ptx_func *f)
{
    if (!l->coro || !may_interleave(pm, f) || !(l->gs_latch = calloc(l->f->nins + 1, 1)))
        return;
    if (!zn_grid_loops(l->f, l->gs_latch)) {
        free(l->gs_latch);
        l->gs_latch = NULL;
    }
}

void zn_grid_loop_yield(zn_lfn *l)
{
    zn_lmod *m = l->m;
    LLVMBasicBlockRef go = LLVMAppendBasicBlockInContext(m->ctx, l->fn, "gs.yield");
    LLVMBasicBlockRef cont = LLVMAppendBasicBlockInContext(m->ctx, l->fn, "gs.next");
    LLVMBuildCondBr(l->b, ll_any(l, l->emask), go, cont);
    LLVMPositionBuilderAtEnd(l->b, go);
    zn_lower_yield(l);
    LLVMBuildBr(l->b, cont);
    LLVMPositionBuilderAtEnd(l->b, cont);
}

static LLVMValueRef intrinsic(zn_lfn *l, const char *name, LLVMTypeRef *over, size_t nover,
                              LLVMValueRef *args, unsigned nargs)
{
    LLVMModuleRef mod = l->m->mod;
    unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
    LLVMValueRef fn = LLVMGetIntrinsicDeclaration(mod, id, over, nover);
    LLVMTypeRef ft = LLVMIntrinsicGetType(l->m->ctx, id, over, nover);
    return LLVMBuildCall2(l->b, ft, fn, args, nargs, "");
}

/* A block barrier between a backward branch and its target (nvcc lays a
 * loop's body out between them): a block then suspends once per
 * iteration. */
static bool barrier_in_loop(const ptx_func *f)
{
    for (uint32_t j = 0, top; j < f->nins; j++) {
        if (!zn_ins_backward_branch(f, j, &top))
            continue;
        for (uint32_t k = top; k < j; k++)
            if (zn_ins_is_block_barrier(&f->ins[k]))
                return true;
    }
    return false;
}

/* In the entry block, after its allocas: the frame from the executor and
 * coro.begin. */
void zn_coro_prologue(zn_lfn *l)
{
    zn_lmod *m = l->m;
    LLVMAddAttributeAtIndex(l->fn, LLVMAttributeFunctionIndex,
        LLVMCreateEnumAttribute(m->ctx, LLVMGetEnumAttributeKindForName("presplitcoroutine", 17), 0));
    /* zn_coro_batch.c inlines the resume function into its warp loop then */
    if (barrier_in_loop(l->f))
        LLVMAddAttributeAtIndex(l->fn, LLVMAttributeFunctionIndex,
            LLVMCreateStringAttribute(m->ctx, ZN_ATTR_BATCH_INLINE,
                                      sizeof ZN_ATTR_BATCH_INLINE - 1, "", 0));
    LLVMValueRef null = LLVMConstNull(m->t_ptr);
    LLVMValueRef idargs[4] = {LLVMConstInt(m->t_i32, 64, 0), null, null, null};
    LLVMValueRef id = intrinsic(l, "llvm.coro.id", NULL, 0, idargs, 4);
    LLVMValueRef size = intrinsic(l, "llvm.coro.size", &m->t_i64, 1, NULL, 0);
    /* the warp's buffer from the last block when the frame fits (size is
     * a constant after CoroSplit), else ask the executor */
    LLVMBuilderRef b = l->b;
    LLVMValueRef cap = LLVMBuildLoad2(b, m->t_i64, LLVMBuildStructGEP2(b, m->t_warp, l->w,
                                      ZN_WARP_FIELD_CO_CAP, ""), "coro.cap");
    LLVMValueRef ready = LLVMBuildLoad2(b, m->t_ptr, LLVMBuildStructGEP2(b, m->t_warp, l->w,
                                        ZN_WARP_FIELD_CO_FRAME, ""), "coro.ready");
    LLVMBasicBlockRef from = LLVMGetInsertBlock(b);
    LLVMBasicBlockRef ask = LLVMAppendBasicBlockInContext(m->ctx, l->fn, "coro.alloc");
    LLVMBasicBlockRef have = LLVMAppendBasicBlockInContext(m->ctx, l->fn, "coro.have");
    LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntULE, size, cap, ""), have, ask);
    LLVMPositionBuilderAtEnd(b, ask);
    LLVMTypeRef at[2] = {m->t_ptr, m->t_i64};
    LLVMValueRef fargs[2] = {l->w, size};
    LLVMValueRef got = LLVMBuildCall2(b, LLVMFunctionType(m->t_ptr, at, 2, 0),
                                      ll_rt_fn(l, ZN_RT_CORO_FRAME), fargs, 2, "");
    LLVMBuildBr(b, have);
    LLVMPositionBuilderAtEnd(b, have);
    LLVMValueRef mem = LLVMBuildPhi(b, m->t_ptr, "coro.mem");
    LLVMValueRef inc[2] = {ready, got};
    LLVMBasicBlockRef incb[2] = {from, ask};
    LLVMAddIncoming(mem, inc, incb, 2);
    LLVMValueRef bargs[2] = {id, mem};
    l->coro_hdl = intrinsic(l, "llvm.coro.begin", NULL, 0, bargs, 2);
    /* the executor resumes through it; the store is also what makes the
     * frame escape (coro.begin is noalias: a frame nobody else can see
     * would have its stores, the resume function's address among them,
     * deleted as dead) */
    LLVMBuildStore(l->b, l->coro_hdl,
                   LLVMBuildStructGEP2(l->b, m->t_warp, l->w, ZN_WARP_FIELD_CO_FRAME, ""));
    /* Every way out goes through one coro.end (LLVM allows one that is not
     * an unwind): the entry function returns the phi (RUNNING when it
     * suspended), a resume function returns at coro.end. */
    LLVMBasicBlockRef here = LLVMGetInsertBlock(l->b);
    l->coro_exit_bb = LLVMAppendBasicBlockInContext(m->ctx, l->fn, "coro.exit");
    LLVMPositionBuilderAtEnd(l->b, l->coro_exit_bb);
    l->coro_exit_st = LLVMBuildPhi(l->b, m->t_i32, "coro.status");
    LLVMValueRef eargs[3] = {l->coro_hdl, LLVMConstInt(m->t_i1, 0, 0),
                             LLVMConstNull(LLVMTokenTypeInContext(m->ctx))};
    intrinsic(l, "llvm.coro.end", NULL, 0, eargs, 3);
    LLVMBuildRet(l->b, l->coro_exit_st);
    l->coro_suspend_bb = LLVMAppendBasicBlockInContext(m->ctx, l->fn, "coro.suspended");
    LLVMPositionBuilderAtEnd(l->b, l->coro_suspend_bb);
    zn_coro_return(l, LLVMConstInt(m->t_i32, (uint64_t)(int64_t)ZN_KSTATUS_RUNNING, 1));
    LLVMPositionBuilderAtEnd(l->b, here);
}

void zn_coro_return(zn_lfn *l, LLVMValueRef status)
{
    LLVMBasicBlockRef from = LLVMGetInsertBlock(l->b);
    LLVMAddIncoming(l->coro_exit_st, &status, &from, 1);
    LLVMBuildBr(l->b, l->coro_exit_bb);
}

/* rt->barrier(w, id, count, mode); a coroutine instead stores the
 * arguments in w->co_wait and suspends: the executor does the barrier's
 * bookkeeping and resumes the warp when it may go on (no call, so nothing
 * is saved around one before the frame stores). */
void zn_call_barrier_rt(zn_lfn *l, LLVMValueRef id, LLVMValueRef count, unsigned mode)
{
    zn_lmod *m = l->m;
    if (!l->coro_hdl) {
        LLVMTypeRef at[4] = {m->t_ptr, m->t_i32, m->t_i32, m->t_i32};
        LLVMTypeRef ft = LLVMFunctionType(m->t_void, at, 4, 0);
        LLVMValueRef args[4] = {l->w, id, count, LLVMConstInt(m->t_i32, mode, 0)};
        LLVMBuildCall2(l->b, ft, ll_rt_fn(l, ZN_RT_BARRIER), args, 4, "");
        return;
    }
    LLVMBuilderRef b = l->b;
    LLVMValueRef lo = LLVMBuildOr(b, LLVMBuildZExt(b, id, m->t_i64, ""),
                                  LLVMConstInt(m->t_i64, (uint64_t)mode << 8, 0), "");
    LLVMValueRef hi = LLVMBuildShl(b, LLVMBuildZExt(b, count, m->t_i64, ""),
                                   LLVMConstInt(m->t_i64, 32, 0), "");
    LLVMBuildStore(b, LLVMBuildOr(b, lo, hi, "co.wait"),
                   LLVMBuildStructGEP2(b, m->t_warp, l->w, ZN_WARP_FIELD_CO_WAIT, ""));
    LLVMBasicBlockRef cont = LLVMAppendBasicBlockInContext(m->ctx, l->fn, "coro.resumed");
    LLVMValueRef save = intrinsic(l, "llvm.coro.save", NULL, 0, &l->coro_hdl, 1);
    LLVMValueRef sargs[2] = {save, LLVMConstInt(m->t_i1, 0, 0)};
    LLVMValueRef s = intrinsic(l, "llvm.coro.suspend", NULL, 0, sargs, 2);
    /* -1 suspended, 0 resumed, 1 destroyed (never: frames are reused) */
    LLVMValueRef sw = LLVMBuildSwitch(b, s, l->coro_suspend_bb, 2);
    LLVMAddCase(sw, LLVMConstInt(m->t_i8, 0, 0), cont);
    LLVMAddCase(sw, LLVMConstInt(m->t_i8, 1, 0), l->coro_suspend_bb);
    LLVMPositionBuilderAtEnd(b, cont);
}
