/* zn_lower_lazybar.c: block barriers that a warp owes instead of waiting.
 *
 * A block's warps take turns on one thread, so every __syncthreads costs
 * each warp a suspend and a resume, even a warp with nothing to do until
 * the next barrier. In a shared-memory tree (`for (s = n/2; s; s >>= 1) {
 * if (t < s) sh[t] += sh[t + s]; __syncthreads(); }`) most warps idle from
 * some level on, and 8 warps x 9 barriers of resumes were most of
 * bench/reduce's time.
 *
 * What a barrier orders is memory: every access a thread makes after it
 * comes after every access any thread of the block made before it. So a
 * warp reaching a whole-block `bar.sync 0` only counts it as owed
 * (`owed += 1`) and goes on; before its next instruction that touches
 * memory or anything outside the warp (a load or store other than local,
 * param or const, an atomic, a call, another kind of barrier, a trap...)
 * with any lane active, it pays what it owes: one real barrier per owed
 * one, so the executor sees the same barriers in the same order, each
 * arrival just later, after work that only read and wrote the warp's own
 * registers and so could not tell. A warp that ends owing barriers leaves
 * them: a finished warp counts as arrived (zn_warps_barrier_complete).
 * In the tree above, the warps idle at a level run through the rest of
 * the loop and end without being suspended again.
 *
 * Where to pay is a forward walk over the PTX blocks: a barrier makes
 * "may owe" true, an unguarded instruction that pays makes it false, and a
 * block may owe when any block before it may at its end. It is per lane
 * sound: a lane reaches memory only along PTX edges from the barriers it
 * passed; the count is the warp's, and paying for lanes that did not pass
 * only waits longer. Two kinds of barrier are still waited at where they
 * are: one whose owing would reach a loop without a barrier
 * (mark_calm_loops says why) and one that warps leave at (classify).
 *
 * The block's last warp pays nothing: each barrier completes when it
 * arrives (zn_block_ctx.warps_left, which the exits of such a kernel
 * count down). Checked builds (ZINC_CHECK) still wait: racecheck's
 * epochs count barrier completions.
 *
 * Only in kernels (a .func's return goes back to its caller), without
 * parked barriers (zn_lower_park.c: lanes of one warp arriving apart),
 * cluster barriers or brx.idx. ZINC_NO_LAZY_BARRIER=1 turns it off (in
 * the kernel cache key). */
#include "zn_lower.h"
#include "zn_pipeline.h"
#include "util/zn_log.h"

#include <stdlib.h>
#include <string.h>

bool zn_lazy_barrier_disabled(void)
{
    const char *s = getenv("ZINC_NO_LAZY_BARRIER");
    return s && *s && *s != '0';
}

/* bar.sync 0 / barrier.sync 0 of the whole block, no thread count */
static bool owable(const ptx_ins *ins)
{
    if (!zn_ins_is_block_barrier(ins) ||
        (ins->flags & (PTX_F(arrive) | PTX_F(red_f))))
        return false;
    if (ins->nopnds == 0)
        return true;
    const ptx_opnd *o = &ins->opnds[0];
    return ins->nopnds == 1 && o->kind == PTX_OPND_IMM && o->ival == 0;
}

/* whether the instruction must not run while the warp owes a barrier */
static bool pays(const ptx_ins *ins)
{
    if (zn_op_is_pure(ins->op))
        return false;
    switch (ins->op) {
    case PTX_OP_bra: case PTX_OP_ret: case PTX_OP_exit:
    case PTX_OP_addc: case PTX_OP_subc: case PTX_OP_madc:
    case PTX_OP_shfl: case PTX_OP_vote: case PTX_OP_match: case PTX_OP_redux:
    case PTX_OP_activemask: case PTX_OP_elect: case PTX_OP_fns:
    case PTX_OP_mma: case PTX_OP_movmatrix: case PTX_OP_mapa: case PTX_OP_getctarank:
    case PTX_OP_createpolicy: case PTX_OP_prefetch: case PTX_OP_prefetchu:
    case PTX_OP_alloca: case PTX_OP_stacksave: case PTX_OP_stackrestore:
        return false;   /* the warp's registers only (or a hint) */
    case PTX_OP_ld: case PTX_OP_ldu: case PTX_OP_st:
        return ins->space != PTX_SPACE_LOCAL && ins->space != PTX_SPACE_PARAM &&
               ins->space != PTX_SPACE_CONST;
    case PTX_OP_bar: case PTX_OP_barrier:
        return !(ins->flags & PTX_F(warp)) && !owable(ins);
    default:
        return true;
    }
}

/* the walks below cost barriers x blocks; past this, no owing */
#define ZN_LAZY_MAX_WORK 4000000u

/* What the plan knows of each instruction. */
enum { K_NONE, K_OWE, K_PAY, K_PAY_GUARDED };

typedef struct lazy_plan {
    zn_lfn *l;
    uint8_t *kind;      /* per ins */
    bool *calm;         /* per ins: in a loop without a block barrier */
    bool *seen;         /* per block, for one barrier's walk */
    uint32_t *stack;
} lazy_plan;

static bool wanted(const zn_lfn *l)
{
    if (!l->is_entry || l->has_park || l->uses_cluster || zn_lazy_barrier_disabled())
        return false;
    const ptx_func *f = l->f;
    uint32_t nbar = 0;
    for (uint32_t i = 0; i < f->nins; i++)
        nbar += owable(&f->ins[i]);
    if (!nbar || (uint64_t)nbar * l->nblocks > ZN_LAZY_MAX_WORK)
        return false;
    uint32_t s[2];
    for (uint32_t k = 0; k < l->nblocks; k++)
        if (zn_block_succs(l, k, s) < 0)
            return false;
    return true;
}

/* calm[i]: instruction i lies between a backward branch and its target
 * with no block barrier there. A payment in such a loop would put a
 * suspend in a loop that had none: every value the loop carries would go
 * through the coroutine frame every iteration (bench/histogram's
 * grid-stride loop after its barrier: 45-52 -> 67-72 ms). */
static bool mark_calm_loops(lazy_plan *p)
{
    const ptx_func *f = p->l->f;
    uint32_t n = f->nins, top;
    uint32_t *bars = calloc(n + 1, sizeof *bars);
    int32_t *depth = calloc(n + 1, sizeof *depth);
    if (!bars || !depth) {
        free(bars);
        free(depth);
        return false;
    }
    for (uint32_t i = 0; i < n; i++)
        bars[i + 1] = bars[i] + zn_ins_is_block_barrier(&f->ins[i]);
    for (uint32_t i = 0; i < n; i++)
        if (zn_ins_backward_branch(f, i, &top) && bars[i + 1] == bars[top]) {
            depth[top]++;
            depth[i + 1]--;
        }
    int32_t d = 0;
    for (uint32_t i = 0; i < n; i++) {
        d += depth[i];
        p->calm[i] = d > 0;
    }
    free(bars);
    free(depth);
    return true;
}

/* Walks from the owing barrier at ins b while the warp owes it; false
 * when a payment it reaches lies in a calm loop. */
static bool owing_is_cheap(lazy_plan *p, uint32_t b)
{
    zn_lfn *l = p->l;
    uint32_t n = l->nblocks, top = 0;
    memset(p->seen, 0, n * sizeof *p->seen);
    uint32_t k = l->block_of_ins[b], from = b + 1;
    for (;;) {
        bool owes = true;
        for (uint32_t i = from; i < l->block_start[k + 1] && owes; i++) {
            if (p->kind[i] != K_PAY && p->kind[i] != K_PAY_GUARDED)
                continue;
            if (p->calm[i])
                return false;
            owes = p->kind[i] == K_PAY_GUARDED;
        }
        uint32_t s[2];
        int c = owes ? zn_block_succs(l, k, s) : 0;
        for (int j = 0; j < c; j++)
            if (s[j] < n && !p->seen[s[j]]) {
                p->seen[s[j]] = true;
                p->stack[top++] = s[j];
            }
        if (!top)
            return true;
        k = p->stack[--top];
        from = l->block_start[k];
    }
}

static void classify(lazy_plan *p)
{
    const ptx_func *f = p->l->f;
    for (uint32_t i = 0; i < f->nins; i++) {
        const ptx_ins *ins = &f->ins[i];
        p->kind[i] = owable(ins) ? K_OWE : !pays(ins) ? K_NONE
                     : ins->guard_reg >= 0 ? K_PAY_GUARDED : K_PAY;
        /* warps that leave right after it return at it already
         * (zn_bar_leaves), and the ones that stay wait for them either
         * way: owing there only adds the checks (bench/mmvq_thin 1-2%,
         * ggml's mul_mat_vec_q has the same shape) */
        if (p->kind[i] == K_OWE && zn_bar_leaves(p->l, ins))
            p->kind[i] = K_PAY;
    }
    /* a barrier whose owing would reach a calm loop is waited at (it
     * pays what the warp owes before it, like any other); that shortens
     * the others' walks, so until nothing changes */
    for (bool changed = true; changed;) {
        changed = false;
        for (uint32_t i = 0; i < f->nins; i++)
            if (p->kind[i] == K_OWE && !owing_is_cheap(p, i)) {
                p->kind[i] = f->ins[i].guard_reg >= 0 ? K_PAY_GUARDED : K_PAY;
                changed = true;
            }
    }
}

/* walks block k from `owes`, marking what it meets when mark; returns
 * whether the warp may owe at its end */
static bool walk_block(zn_lfn *l, const uint8_t *kind, uint32_t k, bool owes, bool mark)
{
    for (uint32_t i = l->block_start[k]; i < l->block_start[k + 1]; i++) {
        if (kind[i] == K_OWE) {
            if (mark)
                l->lazy_at[i] = ZN_LAZY_OWE;
            owes = true;
        } else if (owes && kind[i] != K_NONE) {
            if (mark)
                l->lazy_at[i] = ZN_LAZY_PAY;
            owes = kind[i] == K_PAY_GUARDED;
        }
    }
    return owes;
}

/* "may owe" at each block's start, forward to a fixed point */
static void place_payments(zn_lfn *l, const uint8_t *kind, bool *in)
{
    uint32_t n = l->nblocks;
    for (bool changed = true; changed;) {
        changed = false;
        for (uint32_t k = 0; k < n; k++) {
            if (!walk_block(l, kind, k, in[k], false))
                continue;
            uint32_t s[2];
            int c = zn_block_succs(l, k, s);
            for (int j = 0; j < c; j++)
                if (s[j] < n && !in[s[j]])
                    in[s[j]] = changed = true;
        }
    }
    for (uint32_t k = 0; k < n; k++)
        (void)walk_block(l, kind, k, in[k], true);
}

void zn_lazy_barrier_plan(zn_lfn *l)
{
    if (!wanted(l))
        return;
    uint32_t n = l->nblocks, nins = l->f->nins;
    lazy_plan p = {.l = l};
    p.kind = calloc(nins + 1, 1);
    p.calm = calloc(nins + 1, sizeof *p.calm);
    p.seen = calloc(n + 1, sizeof *p.seen);
    p.stack = calloc(n + 1, sizeof *p.stack);
    l->lazy_at = calloc(nins + 1, 1);
    if (p.kind && p.calm && p.seen && p.stack && l->lazy_at && mark_calm_loops(&p)) {
        classify(&p);
        memset(p.seen, 0, (n + 1) * sizeof *p.seen);
        place_payments(l, p.kind, p.seen);
        uint32_t owed = 0, paid = 0;
        for (uint32_t i = 0; i < nins; i++) {
            owed += l->lazy_at[i] == ZN_LAZY_OWE;
            paid += l->lazy_at[i] == ZN_LAZY_PAY;
        }
        zn_log(ZN_LOG_DEBUG, "lazybar: %s: %u barriers owed, %u payments", l->f->name, owed,
               paid);
        if (!owed) {    /* nothing to count: no owed slot, no exit count */
            free(l->lazy_at);
            l->lazy_at = NULL;
        }
    } else {
        free(l->lazy_at);
        l->lazy_at = NULL;
    }
    free(p.kind);
    free(p.calm);
    free(p.seen);
    free(p.stack);
}

void zn_lazy_barrier_prologue(zn_lfn *l)
{
    if (!l->lazy_at)
        return;
    l->owed_slot = LLVMBuildAlloca(l->b, l->m->t_i32, "bar.owed");
    LLVMBuildStore(l->b, LLVMConstInt(l->m->t_i32, 0, 0), l->owed_slot);
}

bool zn_lazy_barrier_owe(zn_lfn *l, const ptx_ins *ins)
{
    if (!l->lazy_at || l->lazy_at[ins - l->f->ins] != ZN_LAZY_OWE)
        return false;
    LLVMBuilderRef b = l->b;
    LLVMValueRef n = LLVMBuildLoad2(b, l->m->t_i32, l->owed_slot, "owed");
    LLVMBuildStore(b, LLVMBuildAdd(b, n, LLVMConstInt(l->m->t_i32, 1, 0), ""), l->owed_slot);
    return true;
}

void zn_lazy_barrier_pay(zn_lfn *l, const ptx_ins *ins)
{
    if (!l->lazy_at || l->lazy_at[ins - l->f->ins] != ZN_LAZY_PAY)
        return;
    zn_lmod *m = l->m;
    LLVMBuilderRef b = l->b;
    LLVMValueRef zero = LLVMConstInt(m->t_i32, 0, 0);
    LLVMValueRef n = LLVMBuildLoad2(b, m->t_i32, l->owed_slot, "owed");
    LLVMValueRef go = LLVMBuildAnd(b, LLVMBuildICmp(b, LLVMIntNE, n, zero, ""),
                                   ll_any(l, l->emask), "");
    LLVMBasicBlockRef loop = LLVMAppendBasicBlockInContext(m->ctx, l->fn, "bar.pay");
    LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(m->ctx, l->fn, "bar.paid");
    if (!l->m->opts->check) {
        /* the block's last warp completes every barrier it arrives at
         * (checked builds wait: racecheck counts the barriers' epochs) */
        LLVMBasicBlockRef alone = LLVMAppendBasicBlockInContext(m->ctx, l->fn, "bar.alone");
        LLVMBasicBlockRef wait = LLVMAppendBasicBlockInContext(m->ctx, l->fn, "bar.wait");
        LLVMBuildCondBr(b, go, alone, done);
        LLVMPositionBuilderAtEnd(b, alone);
        LLVMValueRef left = ll_load_field(l, m->t_block, l->block, ZN_BLOCK_FIELD_WARPS_LEFT,
                                          m->t_i32);
        LLVMValueRef last = LLVMBuildICmp(b, LLVMIntULE, left, LLVMConstInt(m->t_i32, 1, 0), "");
        LLVMBuildCondBr(b, last, wait, loop);
        LLVMPositionBuilderAtEnd(b, wait);
        LLVMBuildStore(b, zero, l->owed_slot);
        LLVMBuildBr(b, done);
    } else {
        LLVMBuildCondBr(b, go, loop, done);
    }
    LLVMPositionBuilderAtEnd(b, loop);
    zn_call_barrier_rt(l, zero, zero, 0);   /* may suspend: a block of its own */
    n = LLVMBuildLoad2(b, m->t_i32, l->owed_slot, "owed");
    n = LLVMBuildSub(b, n, LLVMConstInt(m->t_i32, 1, 0), "");
    LLVMBuildStore(b, n, l->owed_slot);
    LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntNE, n, zero, ""), loop, done);
    LLVMPositionBuilderAtEnd(b, done);
}

void zn_lazy_barrier_exit(zn_lfn *l)
{
    if (!l->lazy_at)
        return;
    zn_lmod *m = l->m;
    LLVMBuilderRef b = l->b;
    LLVMValueRef p = LLVMBuildStructGEP2(b, m->t_block, l->block, ZN_BLOCK_FIELD_WARPS_LEFT, "");
    LLVMValueRef n = LLVMBuildLoad2(b, m->t_i32, p, "left");
    LLVMBuildStore(b, LLVMBuildSub(b, n, LLVMConstInt(m->t_i32, 1, 0), ""), p);
}
