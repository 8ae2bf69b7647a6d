/* zn_lower_func.c: one PTX function -> one LLVM function that runs a warp.
 *
 * Divergence scheme (per-lane program counters):
 *   The body is split into basic blocks numbered in textual order. The warp
 *   keeps `pc` (<32 x i32>: the block each lane waits at, ZN_PC_DONE once it
 *   returned or exited) and the block mask (lanes running the current
 *   block). A branch sends the taken lanes to T and the others to F. If the
 *   whole mask agrees and no other lane is waiting anywhere, it jumps
 *   straight to the LLVM block (the converged fast path), leaving the
 *   running lanes' pcs stale. Otherwise it
 *   records the pcs and the warp resumes at the LOWEST pc among waiting
 *   lanes, with every lane waiting there as the new mask. Lanes therefore
 *   reconverge at the first block in text order where they meet, which is
 *   the join point of nvcc's layout, and any CFG still runs correctly.
 *
 *   The lowest waiting block is found without a dispatcher: lanes only ever
 *   wait past the block that runs, except those a backward branch just sent
 *   back, so after a divergent branch the warp goes to the backward target
 *   if any lane took it, else to the next block in text order. Each block
 *   some lane can wait at has a resume test (`resume_bbs[k]`: run block k
 *   with the lanes whose pc is k, or try block k + 1). So the control flow
 *   graph keeps the shape of the PTX (a chain of tests beside the blocks)
 *   instead of every branch meeting in one switch over all blocks, where
 *   every live register needed a phi and most were spilled (4.4 KB frame
 *   for an 8-line reduction). brx.idx, which can send lanes anywhere,
 *   restarts the chain at block 0.
 *
 * Kernels:  i32 zk_<name>(zn_warp_ctx *w)          -> ZN_KSTATUS_*
 * .func:    i64 zf_<name>(w, i32 mask, ptr param..., ptr ret...)
 *           -> (status << 32) | lanes that executed `exit`.
 *   Each param/ret pointer holds 32 lane copies, lane l at p + l * size.
 */
#include "zn_lower.h"
#include "util/zn_log.h"

#include <stdlib.h>
#include <string.h>
#include <stdio.h>

bool zn_func_is_runtime(const ptx_func *f)
{
    return f->is_decl && ptx_is_runtime_extern(f->name);
}

LLVMValueRef zn_declare_func(zn_lmod *m, const ptx_func *f)
{
    if (f->is_decl)
        return NULL;
    size_t n = strlen(f->name) + 4;
    char *name = malloc(n);
    snprintf(name, n, "%s%s", f->is_entry ? "zk_" : "zf_", f->name);
    LLVMValueRef fn;
    if (f->is_entry) {
        LLVMTypeRef ft = LLVMFunctionType(m->t_i32, &m->t_ptr, 1, 0);
        fn = LLVMAddFunction(m->mod, name, ft);
    } else {
        uint32_t np = 2 + f->nparams + f->nrets;
        LLVMTypeRef *args = malloc(np * sizeof *args);
        args[0] = m->t_ptr;
        args[1] = m->t_i32;
        for (uint32_t i = 2; i < np; i++)
            args[i] = m->t_ptr;
        fn = LLVMAddFunction(m->mod, name, LLVMFunctionType(m->t_i64, args, np, 0));
        /* address-taken functions stay visible so that relocations in
         * global initialisers can find them */
        if (!zn_func_address_taken(m->pm, f))
            LLVMSetLinkage(fn, LLVMInternalLinkage);
        free(args);
    }
    free(name);
    if (m->cpu && *m->cpu)
        LLVMAddTargetDependentFunctionAttr(fn, "target-cpu", m->cpu);
    if (m->features && *m->features)
        LLVMAddTargetDependentFunctionAttr(fn, "target-features", m->features);
    return fn;
}

/* ---- block structure ------------------------------------------------------ */

/* Blocks start at labels and after branches; with bar_leaders also at
 * each barrier that may park (zn_lower_park.c). */
static void split_blocks(zn_lfn *l, bool bar_leaders)
{
    const ptx_func *f = l->f;
    uint32_t n = f->nins;
    bool *lead = calloc(n + 1, 1);
    lead[0] = true;
    for (uint32_t i = 0; i < f->nlabels; i++)
        if (f->labels[i].ins <= n)
            lead[f->labels[i].ins] = true;
    for (uint32_t i = 0; i < n; i++)
        if (ptx_op_table[f->ins[i].op].flags & PTX_OF_BRANCH)
            lead[i + 1] = true;
    for (uint32_t i = 0; i < n && bar_leaders; i++)
        if (zn_bar_parkable(&f->ins[i]))
            lead[i] = true;
    /* a block at n exists only when a label points past the last ins */
    bool end_block = false;
    for (uint32_t i = 0; i < f->nlabels; i++)
        if (f->labels[i].ins == n)
            end_block = true;
    lead[n] = end_block || n == 0;

    l->block_of_ins = malloc((n + 1) * sizeof(uint32_t));
    l->block_start = malloc((n + 2) * sizeof(uint32_t));
    uint32_t k = 0;
    for (uint32_t i = 0; i <= n; i++) {
        if (lead[i])
            l->block_start[k++] = i;
        l->block_of_ins[i] = k - 1;
    }
    l->nblocks = k;
    l->block_start[k] = n;
    if (!lead[n])
        l->block_of_ins[n] = k; /* falling off the end: done */
    free(lead);
}

static LLVMBasicBlockRef target_bb(zn_lfn *l, uint32_t t)
{
    return t >= l->nblocks ? l->ret_bb : l->bbs[t];
}

static uint32_t norm(zn_lfn *l, uint32_t t)
{
    return t >= l->nblocks ? ZN_PC_DONE : t;
}

/* ---- control transfer ------------------------------------------------------ */

/* Runs block T (at or before the current one) with the lanes waiting there:
 * a backward branch enters the loop header itself, not its resume test, so
 * the loop keeps one entry block (a loop with two is irreducible, and LLVM
 * leaves irreducible loops unoptimised). */
static void enter_back(zn_lfn *l, uint32_t T)
{
    zn_lmod *m = l->m;
    LLVMValueRef pc = LLVMBuildLoad2(l->b, ll_vec(m->t_i32), l->pc_slot, "pc");
    LLVMBuildStore(l->b, LLVMBuildICmp(l->b, LLVMIntEQ, pc, ll_const_vec(m->t_i32, T), ""),
                   l->mask_slot);
    LLVMBuildBr(l->b, l->bbs[T]);
}

/* Ends the current block after its lanes were sent to T (those in
 * `to_T`, or all if NULL) and to the next block: goes to the lowest block a
 * lane waits at (see the top of the file). */
static void resume_lowest(zn_lfn *l, LLVMValueRef to_T, uint32_t T)
{
    LLVMBasicBlockRef next = l->resume_bbs[l->cur_block + 1];
    if (T == ZN_PC_DONE || T > l->cur_block) {
        LLVMBuildBr(l->b, next);
    } else if (!to_T) {
        enter_back(l, T);
    } else {
        LLVMBasicBlockRef back = LLVMAppendBasicBlockInContext(l->m->ctx, l->fn, "br.back");
        LLVMBuildCondBr(l->b, to_T, back, next);
        LLVMPositionBuilderAtEnd(l->b, back);
        enter_back(l, T);
    }
}

bool zn_direct_branches_disabled(void)
{
    const char *s = getenv("ZINC_NO_DIRECT_BRANCHES");
    return s && *s && *s != '0';
}

/* Lanes only wait at blocks after the running one (outside brx.idx
 * functions), so when every running lane goes to the next block, that is
 * the block that runs next, with the lanes already waiting there: no pc
 * store, no resume test. A live lane that is not running has its true pc;
 * a running lane's pc may be stale (some block at or before this one), so
 * only non-running lanes count as waiting there. */
static void run_next(zn_lfn *l, LLVMValueRef run, LLVMValueRef pc, uint32_t next)
{
    zn_lmod *m = l->m;
    LLVMValueRef there = LLVMBuildICmp(l->b, LLVMIntEQ, pc, ll_const_vec(m->t_i32, next), "");
    there = LLVMBuildAnd(l->b, there, LLVMBuildNot(l->b, l->mask, ""), "");
    LLVMBuildStore(l->b, LLVMBuildOr(l->b, run, there, ""), l->mask_slot);
    LLVMBuildBr(l->b, l->bbs[next]);
}

/* A split's direct path, taken when some lane is in `go`: the lanes in
 * `wait` get pc `at`, and `go` runs block `to` at once (with the lanes
 * already waiting there when `join`, see run_next). The builder is left
 * in the block for the case where no lane is in `go`. */
static void split_direct(zn_lfn *l, LLVMValueRef go, LLVMValueRef wait, uint32_t at,
                         LLVMValueRef pc, uint32_t to, bool join)
{
    LLVMBasicBlockRef now = LLVMAppendBasicBlockInContext(l->m->ctx, l->fn, "br.direct");
    LLVMBasicBlockRef rest = LLVMAppendBasicBlockInContext(l->m->ctx, l->fn, "br.rest");
    LLVMBuildCondBr(l->b, ll_any(l, go), now, rest);
    LLVMPositionBuilderAtEnd(l->b, now);
    LLVMBuildStore(l->b, LLVMBuildSelect(l->b, wait, ll_const_vec(l->m->t_i32, at), pc, ""),
                   l->pc_slot);
    if (join) {
        run_next(l, go, pc, to);
    } else {
        LLVMBuildStore(l->b, go, l->mask_slot);
        LLVMBuildBr(l->b, l->bbs[to]);
    }
    LLVMPositionBuilderAtEnd(l->b, rest);
}

/* zn_goto; lc (or NULL): scalar tests that decide the uniform cases of a
 * guarded branch before its vector mask is built (zn_lower_lanecmp.c) */
static void goto_lanes(zn_lfn *l, LLVMValueRef taken, const zn_lanecmp *lc, uint32_t T,
                       uint32_t F)
{
    zn_lmod *m = l->m;
    LLVMTypeRef v32 = ll_vec(m->t_i32);
    T = norm(l, T);
    F = norm(l, F);
    if (T != ZN_PC_DONE)
        l->goto_target[T] = true;
    if (F != ZN_PC_DONE)
        l->goto_target[F] = true;
    LLVMValueRef pc = LLVMBuildLoad2(l->b, v32, l->pc_slot, "pc");
    uint32_t next = l->cur_block + 1;
    bool direct = !l->has_brx && next < l->nblocks && !zn_direct_branches_disabled();
    bool back = T <= l->cur_block;
    if (!taken && direct && (back || T == next)) {
        /* a loop's back edge: the lanes waiting elsewhere are after this
         * block, so its header runs next with exactly the running lanes
         * (their pcs may go stale, see run_next) */
        if (back)
            LLVMBuildBr(l->b, l->bbs[T]);
        else
            run_next(l, l->mask, pc, next);     /* falls through */
        l->terminated = true;
        return;
    }
    /* The new pcs are stored only where the warp goes on by the resume
     * chain: on the fast paths every running lane goes to one block and
     * runs it, and their pcs may go stale as in uniform_branch (the next
     * zn_goto rewrites them before a resume test reads them; the lanes
     * outside the mask keep theirs either way). Storing them there too
     * kept a pc-vector select on every branch's common path. */
    LLVMValueRef waiting = LLVMBuildICmp(l->b, LLVMIntNE, pc,
                                         ll_const_vec(m->t_i32, ZN_PC_DONE), "");
    waiting = LLVMBuildAnd(l->b, waiting, LLVMBuildNot(l->b, l->mask, ""), "");
    LLVMValueRef others = ll_any(l, waiting);
    if (lc) {
        LLVMValueRef alone = LLVMBuildNot(l->b, others, "");
        LLVMBasicBlockRef some = LLVMAppendBasicBlockInContext(m->ctx, l->fn, "cmp.some");
        LLVMBasicBlockRef split = LLVMAppendBasicBlockInContext(m->ctx, l->fn, "cmp.split");
        LLVMBuildCondBr(l->b, LLVMBuildAnd(l->b, lc->all, alone, ""), target_bb(l, T), some);
        LLVMPositionBuilderAtEnd(l->b, some);
        LLVMBuildCondBr(l->b, LLVMBuildAnd(l->b, lc->none, alone, ""), target_bb(l, F), split);
        LLVMPositionBuilderAtEnd(l->b, split);
        taken = zn_lanecmp_taken(l, lc);
    }
    LLVMValueRef vT = ll_const_vec(m->t_i32, T), vF = ll_const_vec(m->t_i32, F);
    LLVMValueRef npc = taken
        ? LLVMBuildSelect(l->b, taken, vT, LLVMBuildSelect(l->b, l->mask, vF, pc, ""), "")
        : LLVMBuildSelect(l->b, l->mask, vT, pc, "");
    LLVMBasicBlockRef x = LLVMAppendBasicBlockInContext(m->ctx, l->fn, "br.f");
    if (!taken) {
        LLVMBuildCondBr(l->b, others, x, target_bb(l, T));
        LLVMPositionBuilderAtEnd(l->b, x);
        LLVMBuildStore(l->b, npc, l->pc_slot);
        resume_lowest(l, NULL, T);
    } else {
        LLVMValueRef ti = ll_mask_to_i32(l, taken), mi = ll_mask_to_i32(l, l->mask);
        LLVMValueRef zero = LLVMConstInt(m->t_i32, 0, 0);
        LLVMValueRef all = LLVMBuildICmp(l->b, LLVMIntEQ, ti, mi, "");
        LLVMValueRef none = LLVMBuildICmp(l->b, LLVMIntEQ, ti, zero, "");
        LLVMValueRef alone = LLVMBuildNot(l->b, others, "");
        LLVMBasicBlockRef y = LLVMAppendBasicBlockInContext(m->ctx, l->fn, "br.split");
        LLVMBuildCondBr(l->b, LLVMBuildAnd(l->b, all, alone, ""), target_bb(l, T), x);
        LLVMPositionBuilderAtEnd(l->b, x);
        LLVMBuildCondBr(l->b, LLVMBuildAnd(l->b, none, alone, ""), target_bb(l, F), y);
        LLVMPositionBuilderAtEnd(l->b, y);
        /* the lanes not taking the branch */
        LLVMValueRef fl = direct ? LLVMBuildAnd(l->b, l->mask, LLVMBuildNot(l->b, taken, ""), "")
                                 : NULL;
        if (direct && back) {
            /* the lanes going round run the header now, the others wait
             * at F; when none goes round, F's lanes go on as below */
            split_direct(l, taken, fl, F, pc, T, false);
            if (F == next) {
                run_next(l, l->mask, pc, next);
                l->terminated = true;
                return;
            }
        } else if (direct && F == next && T > next) {
            /* a forward split: the lanes not taking the branch run the
             * next block now; only the taken lanes' pcs are needed */
            split_direct(l, fl, taken, T, pc, next, true);
        }
        LLVMBuildStore(l->b, npc, l->pc_slot);
        resume_lowest(l, LLVMBuildICmp(l->b, LLVMIntNE, ti, zero, ""), T);
    }
    l->terminated = true;
}

void zn_goto(zn_lfn *l, LLVMValueRef taken, uint32_t T, uint32_t F)
{
    goto_lanes(l, taken, NULL, T, F);
}

void zn_goto_lanecmp(zn_lfn *l, const zn_lanecmp *lc, uint32_t T, uint32_t F)
{
    goto_lanes(l, l->emask, lc, T, F);
}

void zn_return_status(zn_lfn *l, LLVMValueRef status)
{
    zn_lmod *m = l->m;
    if (l->is_entry) {
        zn_lazy_barrier_exit(l);    /* zn_lower_lazybar.c */
        if (l->coro) {
            /* the executor reads a coroutine's end from co_status */
            LLVMBuildStore(l->b, status, LLVMBuildStructGEP2(l->b, m->t_warp, l->w,
                                                             ZN_WARP_FIELD_CO_STATUS, ""));
            zn_coro_return(l, status);
            return;
        }
        LLVMBuildRet(l->b, status);
        return;
    }
    LLVMValueRef ex = LLVMBuildLoad2(l->b, m->t_i32, l->exited_slot, "");
    LLVMValueRef r = LLVMBuildOr(l->b,
        LLVMBuildShl(l->b, LLVMBuildZExt(l->b, status, m->t_i64, ""),
                     LLVMConstInt(m->t_i64, 32, 0), ""),
        LLVMBuildZExt(l->b, ex, m->t_i64, ""), "");
    LLVMBuildRet(l->b, r);
}

void zn_lanes_exited(zn_lfn *l, LLVMValueRef exited)
{
    zn_lmod *m = l->m;
    LLVMTypeRef v32 = ll_vec(m->t_i32);
    LLVMValueRef em = ll_i32_to_mask(l, exited);
    LLVMValueRef pc = LLVMBuildLoad2(l->b, v32, l->pc_slot, "");
    LLVMBuildStore(l->b, LLVMBuildSelect(l->b, em, ll_const_vec(m->t_i32, ZN_PC_DONE),
                                         pc, ""), l->pc_slot);
    if (!l->is_entry) {
        LLVMValueRef ex = LLVMBuildLoad2(l->b, m->t_i32, l->exited_slot, "");
        LLVMBuildStore(l->b, LLVMBuildOr(l->b, ex, exited, ""), l->exited_slot);
    }
    LLVMValueRef keep = LLVMBuildNot(l->b, em, "");
    l->mask = LLVMBuildAnd(l->b, l->mask, keep, "");
    l->emask = LLVMBuildAnd(l->b, l->emask, keep, "");
    LLVMBuildStore(l->b, l->mask, l->mask_slot);
    /* an empty mask must not run on (a loop would never end); the lanes
     * still waiting are past this block */
    LLVMBasicBlockRef cont = LLVMAppendBasicBlockInContext(m->ctx, l->fn, "live");
    LLVMBuildCondBr(l->b, ll_any(l, l->mask), cont, l->resume_bbs[l->cur_block + 1]);
    LLVMPositionBuilderAtEnd(l->b, cont);
}

/* A branch that all live lanes take the same way in a block they all run:
 * a plain jump. The pcs of the running lanes go stale, which is harmless:
 * the next zn_goto rewrites them before a resume test can read them. */
static void uniform_branch(zn_lfn *l, const ptx_ins *ins, uint32_t T, uint32_t next)
{
    if (ins->guard_reg < 0) {
        LLVMBuildBr(l->b, target_bb(l, T));
    } else {
        LLVMValueRef c = zn_load_reg_scalar(l, ins->guard_reg);
        if (LLVMTypeOf(c) != l->m->t_i1)
            c = LLVMBuildICmp(l->b, LLVMIntNE, c, LLVMConstNull(LLVMTypeOf(c)), "");
        if (ins->guard_neg)
            c = LLVMBuildNot(l->b, c, "");
        LLVMBuildCondBr(l->b, c, target_bb(l, T), target_bb(l, next));
    }
    l->terminated = true;
}

/* bra, ret, exit, trap, brx */
void zn_lower_branch(zn_lfn *l, const ptx_ins *ins)
{
    zn_lmod *m = l->m;
    uint32_t next = l->cur_block + 1;
    LLVMValueRef taken = ins->guard_reg >= 0 ? l->emask : NULL;
    switch (ins->op) {
    case PTX_OP_bra: {
        const ptx_opnd *o = &ins->opnds[0];
        if (o->kind != PTX_OPND_LABEL || o->label < 0 ||
            (uint32_t)o->label >= l->f->nlabels) {
            zn_lerr(l, "branch target must be a label");
            return;
        }
        uint32_t T = l->block_of_ins[l->f->labels[o->label].ins];
        if (ins >= l->f->ins && ins < l->f->ins + l->f->nins &&
            ((l->gs_latch && l->gs_latch[ins - l->f->ins]) ||
             zn_ins_spin_edge(l->f, (uint32_t)(ins - l->f->ins))))
            zn_grid_loop_yield(l);  /* zn_lower_coro.c */
        if (l->blk_conv[l->cur_block] && (ins->guard_reg < 0 || l->reg_uni[ins->guard_reg])) {
            uniform_branch(l, ins, T, next);
            return;
        }
        zn_lanecmp lc;
        if (zn_lanecmp_branch(l, ins, &lc))  /* zn_lower_lanecmp.c */
            zn_goto_lanecmp(l, &lc, zn_thread_target(l, l->cur_block, T),
                            zn_thread_target(l, l->cur_block, next));
        else
            zn_goto(l, taken, zn_thread_target(l, l->cur_block, T),
                    zn_thread_target(l, l->cur_block, next));
        return;
    }
    case PTX_OP_exit:
        if (!l->is_entry) {
            LLVMValueRef ex = LLVMBuildLoad2(l->b, m->t_i32, l->exited_slot, "");
            LLVMValueRef t = ll_mask_to_i32(l, l->emask);
            LLVMBuildStore(l->b, LLVMBuildOr(l->b, ex, t, ""), l->exited_slot);
        }
        zn_goto(l, taken, ZN_PC_DONE, next);
        return;
    case PTX_OP_ret:
        zn_goto(l, taken, ZN_PC_DONE, next);
        return;
    case PTX_OP_trap: {
        LLVMBasicBlockRef tb = LLVMAppendBasicBlockInContext(m->ctx, l->fn, "trap");
        LLVMBasicBlockRef cont = LLVMAppendBasicBlockInContext(m->ctx, l->fn, "notrap");
        LLVMBuildCondBr(l->b, ll_any(l, l->emask), tb, cont);
        LLVMPositionBuilderAtEnd(l->b, tb);
        zn_return_status(l, LLVMConstInt(m->t_i32, ZN_KSTATUS_TRAP, 0));
        LLVMPositionBuilderAtEnd(l->b, cont);
        return; /* falls through to the next block */
    }
    default:
        zn_lerr_unsupported(l);
    }
}

/* ---- the function --------------------------------------------------------- */

/* The block a branch instruction can send lanes to, or UINT32_MAX. */
static uint32_t label_block(const zn_lfn *l, const ptx_opnd *o)
{
    if (o->kind != PTX_OPND_LABEL || o->label < 0 || (uint32_t)o->label >= l->f->nlabels)
        return UINT32_MAX;
    return l->block_of_ins[l->f->labels[o->label].ins];
}

/* Where each resume test goes when no lane waits at its block: the next
 * block, except at a loop header h whose last backward branch is in block
 * L: when nobody waits at h, nobody waits inside the loop either (lanes
 * enter it only through h, and a backward branch leaves nobody waiting
 * inside), so the test skips to L + 1. Without that skip the chain would
 * enter the loop body from outside, a second entry. The skip is only made
 * when no branch from outside h..L targets a block inside, and never with
 * brx.idx (which restarts the chain at block 0). */
static void resume_skips(zn_lfn *l)
{
    uint32_t n = l->nblocks;
    l->resume_skip = malloc((n + 1) * sizeof *l->resume_skip);
    uint32_t *last = calloc(n + 1, sizeof *last);     /* header -> last latch + 1 */
    if (!l->resume_skip || !last) {
        free(last);
        return;
    }
    for (uint32_t k = 0; k <= n; k++)
        l->resume_skip[k] = k + 1;
    if (l->has_brx) {
        free(last);
        return;
    }
    const ptx_func *f = l->f;
    for (uint32_t i = 0; i < f->nins; i++) {
        const ptx_ins *ins = &f->ins[i];
        if (ins->op != PTX_OP_bra || !ins->nopnds)
            continue;
        uint32_t t = label_block(l, &ins->opnds[0]), b = l->block_of_ins[i];
        if (t <= b && t < n && b + 1 > last[t])
            last[t] = b + 1;
    }
    for (uint32_t h = 0; h < n; h++) {
        if (!last[h])
            continue;
        uint32_t end = last[h];     /* the loop is blocks h .. end - 1 */
        bool closed = true;
        for (uint32_t i = 0; i < f->nins && closed; i++) {
            const ptx_ins *ins = &f->ins[i];
            if (ins->op != PTX_OP_bra || !ins->nopnds)
                continue;
            uint32_t t = label_block(l, &ins->opnds[0]), b = l->block_of_ins[i];
            if (t > h && t < end && (b < h || b >= end))
                closed = false;
        }
        if (closed && !zn_park_in(l, h, end))
            l->resume_skip[h] = end;
    }
    free(last);
}

/* The resume tests, one per block some lane can wait at (the others pass
 * straight on), in text order; the end returns. dispatch_bb (brx.idx)
 * starts over at block 0. */
static void build_resume_chain(zn_lfn *l)
{
    zn_lmod *m = l->m;
    LLVMTypeRef v32 = ll_vec(m->t_i32);
    for (uint32_t k = 0; k < l->nblocks; k++) {
        LLVMPositionBuilderAtEnd(l->b, l->resume_bbs[k]);
        LLVMBasicBlockRef skip = l->resume_bbs[l->resume_skip ? l->resume_skip[k] : k + 1];
        if (!l->goto_target[k]) {
            LLVMBuildBr(l->b, skip);
            continue;
        }
        LLVMValueRef pc = LLVMBuildLoad2(l->b, v32, l->pc_slot, "pc");
        LLVMValueRef here = LLVMBuildICmp(l->b, LLVMIntEQ, pc, ll_const_vec(m->t_i32, k), "");
        LLVMBasicBlockRef run = LLVMAppendBasicBlockInContext(m->ctx, l->fn, "resume.run");
        LLVMBuildCondBr(l->b, ll_any(l, here), run, skip);
        LLVMPositionBuilderAtEnd(l->b, run);
        LLVMBuildStore(l->b, here, l->mask_slot);
        LLVMBuildBr(l->b, l->bbs[k]);
    }
    LLVMPositionBuilderAtEnd(l->b, l->resume_bbs[l->nblocks]);
    zn_park_chain_end(l);
    LLVMPositionBuilderAtEnd(l->b, l->dispatch_bb);
    LLVMBuildBr(l->b, l->resume_bbs[0]);

    LLVMPositionBuilderAtEnd(l->b, l->ret_bb);
    zn_reg_params_out(l);
    zn_return_status(l, LLVMConstInt(m->t_i32, ZN_KSTATUS_OK, 0));
}

static void prologue(zn_lfn *l)
{
    zn_lmod *m = l->m;
    const ptx_func *f = l->f;
    LLVMTypeRef v32 = ll_vec(m->t_i32);

    l->regs = calloc(f->nregs + 1, sizeof *l->regs);
    l->reg_ty = calloc(f->nregs + 1, sizeof *l->reg_ty);
    for (uint32_t i = 0; i < f->nregs; i++) {
        l->reg_ty[i] = zn_vec_type(m, f->regs[i].type);
        /* uniform registers are one scalar (zn_load_reg splats them) */
        LLVMTypeRef st = l->reg_uni[i] ? ll_elem(l->reg_ty[i]) : l->reg_ty[i];
        l->regs[i] = LLVMBuildAlloca(l->b, st, f->regs[i].name);
    }
    l->pc_slot = LLVMBuildAlloca(l->b, v32, "pc.slot");
    l->mask_slot = LLVMBuildAlloca(l->b, ll_vec(m->t_i1), "mask.slot");
    l->cc_slot = LLVMBuildAlloca(l->b, v32, "cc.slot");
    l->exited_slot = LLVMBuildAlloca(l->b, m->t_i32, "exited.slot");
    zn_demote_regs(l);  /* huge functions: cross-block registers in memory */
    l->local_slot = calloc(f->nlocals + 1, sizeof *l->local_slot);
    for (uint32_t i = 0; i < f->nlocals; i++) {
        const ptx_var *v = &f->locals[i];
        if (v->space == PTX_SPACE_LOCAL || v->space == PTX_SPACE_PARAM) {
            uint64_t bytes = (v->size ? v->size : 1) * ZN_LANES;
            LLVMValueRef a = LLVMBuildAlloca(l->b, LLVMArrayType2(m->t_i8, bytes), v->name);
            LLVMSetAlignment(a, v->align > 16 ? v->align : 16);
            l->local_slot[i] = a;
        }
    }
    if (l->coro)
        zn_coro_prologue(l); /* zn_lower_coro.c */
    /* PTX leaves registers undefined until written, and so does Zinc for
     * vector registers: no initial store, so mem2reg gives their phis an
     * undef entry value, which costs no code. A zero here made every warp
     * write its whole spill area on entry (every register flowed through
     * the former dispatcher's phis: 15 KB of zeros per warp in ggml's
     * mul_mat_vec_q) before doing any work. (A frozen poison does not
     * help: the optimiser folds it to zero.) Lanes that a divergent write
     * skipped are only ever read under a mask, where undef is harmless.
     * Uniform registers are one scalar: zero. */
    for (uint32_t i = 0; i < f->nregs; i++)
        if (l->reg_uni[i])
            LLVMBuildStore(l->b, LLVMConstNull(ll_elem(l->reg_ty[i])), l->regs[i]);
    LLVMBuildStore(l->b, LLVMConstNull(v32), l->cc_slot);
    LLVMBuildStore(l->b, LLVMConstInt(m->t_i32, 0, 0), l->exited_slot);
    zn_stagger_prologue(l);
    zn_lazy_barrier_prologue(l);
    zn_winslot_prologue(l);

    zn_sreg_prologue(l);

    LLVMValueRef entry_mask;
    if (l->is_entry) {
        entry_mask = zn_fixed_live_mask(l);
        if (!entry_mask)
            entry_mask = ll_load_field(l, m->t_warp, l->w, ZN_WARP_FIELD_LIVE_MASK, m->t_i32);
    } else {
        entry_mask = LLVMGetParam(l->fn, 1);
        l->param_arg = calloc(f->nparams + 1, sizeof *l->param_arg);
        l->ret_arg = calloc(f->nrets + 1, sizeof *l->ret_arg);
        for (uint32_t i = 0; i < f->nparams; i++)
            l->param_arg[i] = LLVMGetParam(l->fn, 2 + i);
        for (uint32_t i = 0; i < f->nrets; i++)
            l->ret_arg[i] = LLVMGetParam(l->fn, 2 + f->nparams + i);
        zn_reg_params_in(l);
    }
    LLVMValueRef em = ll_i32_to_mask(l, entry_mask);
    LLVMBuildStore(l->b, em, l->mask_slot);
    LLVMBuildStore(l->b, LLVMBuildSelect(l->b, em, LLVMConstNull(v32),
                   ll_const_vec(m->t_i32, ZN_PC_DONE), ""), l->pc_slot);
    LLVMBuildCondBr(l->b, LLVMBuildICmp(l->b, LLVMIntNE, entry_mask,
                    LLVMConstInt(m->t_i32, 0, 0), ""), target_bb(l, 0), l->ret_bb);
}

typedef struct kill_ctx {
    zn_lfn *l;
    uint32_t *stamp;    /* per register: last block + 1 it was killed in */
    uint32_t mark;
} kill_ctx;

static void kill_reg(int32_t r, void *ud)
{
    kill_ctx *c = ud;
    zn_lfn *l = c->l;
    if (r < 0 || (uint32_t)r >= l->f->nregs || c->stamp[r] == c->mark)
        return;
    c->stamp[r] = c->mark;
    if (l->reg_blocal[r] && !l->reg_uni[r])
        LLVMBuildStore(l->b, LLVMGetUndef(l->reg_ty[r]), l->regs[r]);
}

/* every register an operand names, in any position (as the block-local
 * scan in zn_lower_blocklocal.c sees them) */
static void kill_opnd(const ptx_opnd *o, kill_ctx *c)
{
    if (o->kind == PTX_OPND_NONE)
        return;
    kill_reg(o->reg, c);
    kill_reg(o->reg2, c);
    for (uint32_t i = 0; i < o->nelems; i++)
        kill_opnd(&o->elems[i], c);
}

static void kill_block_locals(zn_lfn *l, uint32_t k, uint32_t *stamp)
{
    if (!stamp) {   /* out of memory: every block-local register (correct, larger) */
        for (uint32_t r = 0; r < l->f->nregs; r++)
            if (l->reg_blocal[r] && !l->reg_uni[r])
                LLVMBuildStore(l->b, LLVMGetUndef(l->reg_ty[r]), l->regs[r]);
        return;
    }
    kill_ctx c = {l, stamp, k + 1};
    for (uint32_t i = l->block_start[k]; i < l->block_start[k + 1]; i++) {
        const ptx_ins *ins = &l->f->ins[i];
        kill_reg(ins->guard_reg, &c);
        for (uint32_t o = 0; o < ins->nopnds; o++)
            kill_opnd(&ins->opnds[o], &c);
    }
}

/* A block that all live lanes run (zn_lower_uniform.c) is entered with
 * nobody waiting elsewhere: every lane outside the mask has finished, or
 * waits at a block that only returns, which in a kernel is the same. So
 * its pcs are known: DONE outside the mask, and for the running lanes
 * anything (zn_goto rewrites them before a resume test reads them). Saying
 * so here keeps the pc vector from living across convergent code: no phi
 * for it around a loop, no spill around each barrier call (two zmm per
 * warp in bench/reduce's loop), and zn_goto's "does anyone wait
 * elsewhere" test folds to false. Not in a .func: its lanes waiting at an
 * `exit` block must still run it to report the exit to the caller. */
static void converged_pcs(zn_lfn *l, uint32_t k)
{
    zn_lmod *m = l->m;
    LLVMBuildStore(l->b, LLVMBuildSelect(l->b, l->mask, ll_const_vec(m->t_i32, k),
                                         ll_const_vec(m->t_i32, ZN_PC_DONE), ""),
                   l->pc_slot);
}

void zn_lower_func(zn_lmod *m, const ptx_func *f, LLVMValueRef fn)
{
    zn_lfn L = {0}, *l = &L;
    l->m = m;
    l->b = m->b;
    l->f = f;
    l->fn = fn;
    l->is_entry = f->is_entry;
    l->coro = zn_func_coro(m->pm, f); /* zn_lower_coro.c */
    l->uses_cluster = zn_module_uses_cluster(m); /* zn_lower_cluster.c */
    l->w = LLVMGetParam(fn, 0);
    for (uint32_t i = 0; i < f->nins; i++)     /* the same in any block order */
        l->has_brx |= f->ins[i].op == PTX_OP_brx;
    split_blocks(l, false);
    zn_uniform_analysis(l);
    /* unchecked (no analysis): laid out again whenever the order differs */
    if ((l->own_f = zn_layout_func(l, l->layout_irregular || l->uniform_skipped))) {
        /* blocks reordered so that lanes reconverge (zn_lower_layout.c) */
        zn_log(ZN_LOG_DEBUG, "layout: %s: blocks reordered for reconvergence", f->name);
        free(l->block_of_ins);
        free(l->block_start);
        free(l->blk_conv);
        free(l->blk_full);
        free(l->reg_uni);
        l->f = l->own_f;
        l->layout_irregular = l->uniform_skipped = false;
        split_blocks(l, false);
        zn_uniform_analysis(l);
    }
    zn_grid_yield_latches(l, m->pm, f);
    if (zn_park_wants_split(l)) {   /* irregular: barriers start blocks */
        free(l->block_of_ins);
        free(l->block_start);
        free(l->blk_conv);
        free(l->blk_full);
        free(l->reg_uni);
        split_blocks(l, true);
        zn_uniform_analysis(l);
    }
    l->goto_target = calloc(l->nblocks + 1, sizeof *l->goto_target);
    zn_invariant_regs(l);
    zn_block_local_regs(l);
    zn_nan_free_regs(l); /* zn_lower_fpfix.c */
    zn_ftz_clean_regs(l); /* zn_lower_ftzclean.c */
    zn_reg_params_divergent(l); /* zn_lower_regparam.c */
    zn_pair_loads(l);
    zn_record_plan(l);
    zn_stream_plan(l);
    zn_park_plan(l);
    zn_thread_plan(l);
    zn_lazy_barrier_plan(l);
    zn_winslot_plan(l);
    LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(m->ctx, fn, "entry");
    l->bbs = calloc(l->nblocks + 1, sizeof *l->bbs);
    for (uint32_t k = 0; k < l->nblocks; k++) {
        char name[32];
        snprintf(name, sizeof name, "B%u", k);
        l->bbs[k] = LLVMAppendBasicBlockInContext(m->ctx, fn, name);
    }
    l->resume_bbs = calloc(l->nblocks + 1, sizeof *l->resume_bbs);
    for (uint32_t k = 0; k <= l->nblocks; k++)
        l->resume_bbs[k] = LLVMAppendBasicBlockInContext(m->ctx, fn, "resume");
    l->dispatch_bb = LLVMAppendBasicBlockInContext(m->ctx, fn, "dispatch");
    l->ret_bb = LLVMAppendBasicBlockInContext(m->ctx, fn, "done");
    LLVMPositionBuilderAtEnd(l->b, entry);
    zn_dead_regs_begin(l);
    prologue(l);
    f = l->f;   /* from here on, the function as laid out */
    uint32_t *stamp = calloc(f->nregs + 1, sizeof *stamp);
    LLVMValueRef live = l->is_entry ? zn_fixed_live_mask(l) : NULL;
    LLVMValueRef full = live ? ll_i32_to_mask(l, live) : NULL;

    for (uint32_t k = 0; k < l->nblocks && !m->failed; k++) {
        LLVMPositionBuilderAtEnd(l->b, l->bbs[k]);
        l->cur_block = k;
        l->mask = LLVMBuildLoad2(l->b, ll_vec(m->t_i1), l->mask_slot, "mask");
        if (full && l->blk_conv[k] && l->blk_full[k]) {
            /* every lane the warp began with, a constant for one block
             * shape (zn_lower_shape.c): masked accesses become plain */
            l->mask = full;
            LLVMBuildStore(l->b, full, l->mask_slot);
        }
        l->terminated = false;
        zn_window_forget(l, NULL);
        /* block-local registers enter every block dead: no phis for them.
         * Only those the block mentions need the undef store (elsewhere
         * nothing reads them before a store); all of them in every block
         * was blocks x registers stores: 3.4M in CUB's onesweep radix sort
         * kernel (200 MB of IR, minutes in LLVM). */
        kill_block_locals(l, k, stamp);
        if (l->is_entry && l->blk_conv[k])
            converged_pcs(l, k);
        uint32_t end = l->block_start[k + 1];
        for (uint32_t i = l->block_start[k]; i < end && !l->terminated && !m->failed; i++) {
            if (i < l->hoist_end)
                continue;   /* lowered above a barrier already */
            l->ins = &f->ins[i];
            l->emask = zn_guard_mask(l, l->ins);
            zn_lazy_barrier_pay(l, l->ins);
            zn_lower_ins(l, l->ins);
            zn_window_forget(l, l->ins);
        }
        if (!l->terminated) {
            if (l->blk_conv[k])
                LLVMBuildBr(l->b, target_bb(l, k + 1)); /* nobody waits elsewhere */
            else
                zn_goto(l, NULL, k + 1, k + 1);
        }
    }
    l->ins = NULL;
    free(stamp);
    if (!m->failed) {
        zn_dead_regs_finish(l);     /* knows the goto targets now */
        resume_skips(l);
        build_resume_chain(l);
        zn_drop_dead_writes(l);
    }
    free(l->regs);
    free(l->reg_ty);
    free(l->local_slot);
    free(l->param_arg);
    free(l->ret_arg);
    free(l->block_of_ins);
    free(l->block_start);
    free(l->bbs);
    free(l->resume_bbs);
    free(l->resume_skip);
    free(l->goto_target);
    free(l->thread_stops);
    free(l->park_lo);
    free(l->park_hi);
    free(l->reg_inv);
    free(l->reg_def);
    free(l->aff_join);
    free(l->aff_loop);
    zn_prefetch_free(l);
    free(l->gs_latch);
    zn_lanetab_free(l->lanetab);
    zn_winslot_free(l->winslot);
    free(l->reg_uni);
    zn_layout_free(l->own_f);
    free(l->reg_nan_free);
    free(l->reg_ftz_clean);
    free(l->reg_ftz_flushdef);
    free(l->blk_conv);
    free(l->blk_full);
    free(l->reg_blocal);
    zn_dead_regs_free(l);
    free(l->pair_act);
    free(l->rec_act);
    free(l->stream_st);
    free(l->lazy_at);
}
