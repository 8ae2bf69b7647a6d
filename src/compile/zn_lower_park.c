/* zn_lower_park.c: a block barrier met by part of a warp first.
 *
 * The dispatcher runs the lowest waiting block first (zn_lower_func.c),
 * which is where lanes reconverge in nvcc's layouts, with one exception
 * that matters for barriers: nvcc often lays an if/else out as
 *     if-arm; JOIN: bar.sync; ...; ret; ELSE: else-arm; bra JOIN
 * so the if-arm's lanes reach the barrier while the else-arm's lanes still
 * wait at a block after it. Running the barrier for them alone made the
 * warp arrive twice (once per arm), one phase out of step with the rest of
 * the block: the if-arm's lanes read shared memory the else-arm had not
 * written yet (cuda-samples' eigenvalues).
 *
 * On a GPU bar.sync counts threads, so the fix is to let lanes wait at the
 * barrier: a barrier that starts its block k (split_blocks makes it so)
 * first looks for live lanes waiting at a block that can still come back
 * to k. If there are any, the running lanes park there (pc = k | PARK,
 * which no resume test matches) and the warp goes on with the next block.
 * When lanes reach k again with nobody left who could follow, the parked
 * lanes join the mask and the warp calls the barrier once. If every other
 * lane finished instead, the end of the resume chain unparks the lanes
 * and starts the chain over.
 *
 * A barrier parks only where no convergent block (zn_lower_uniform.c)
 * can run while its lanes are parked: such a block assumes every live
 * lane runs it (strands_convergent). In the layout above the uniform
 * analysis finds no convergent block after the branch anyway. */
#include "zn_lower.h"

#include <stdlib.h>

#define ZN_PC_PARK 0x40000000u      /* below ZN_PC_DONE, above any block */
#define ZN_PARK_MAX_BLOCKS 8192

bool zn_bar_parkable(const ptx_ins *ins)
{
    return (ins->op == PTX_OP_bar || ins->op == PTX_OP_barrier) &&
           ins->scope != PTX_SCOPE_CLUSTER && ins->guard_reg < 0 &&
           !(ins->flags & (PTX_F(warp) | PTX_F(red_f) | PTX_F(arrive)));
}

/* brx.idx restarts the chain anywhere: no parking in its function */
static bool may_park(const zn_lfn *l)
{
    return l->nblocks <= ZN_PARK_MAX_BLOCKS && !l->has_brx;
}

bool zn_park_wants_split(const zn_lfn *l)
{
    if (!may_park(l))
        return false;
    const ptx_func *f = l->f;
    for (uint32_t i = 0; i < f->nins; i++) {
        uint32_t k = l->block_of_ins[i];
        if (zn_bar_parkable(&f->ins[i]) && !l->blk_conv[k] && l->block_start[k] != i)
            return true;
    }
    return false;
}

/* zn_block_succs without the exit: the blocks a lane in b can go to */
static uint32_t successors(const zn_lfn *l, uint32_t b, uint32_t out[2])
{
    uint32_t all[2], n = 0;
    int c = zn_block_succs(l, b, all);
    for (int j = 0; j < c; j++)
        if (all[j] < l->nblocks)
            out[n++] = all[j];
    return n;
}

/* Whether lanes parked at k could miss a convergent block: one that the
 * lanes they wait for (blocks after k in `back`, which reach k) or they
 * themselves can run, or any after k (lanes waiting there would run it
 * without them). Such barriers keep the old behaviour (the lanes at hand
 * call it). `back` is clobbered. */
static bool strands_convergent(const zn_lfn *l, uint32_t k, uint8_t *back, uint32_t *stack)
{
    uint32_t n = l->nblocks, top = 0, succ[2];
    for (uint32_t b = k; b < n; b++)
        if (l->blk_conv[b])
            return true;
    for (uint32_t b = 0; b < n; b++) {
        if (b >= k && back[b]) {
            stack[top++] = b;
            back[b] = 2;
        } else {
            back[b] = 0;
        }
    }
    while (top) {
        uint32_t b = stack[--top];
        if (l->blk_conv[b])
            return true;
        for (uint32_t j = 0, c = successors(l, b, succ); j < c; j++)
            if (back[succ[j]] != 2) {
                back[succ[j]] = 2;
                stack[top++] = succ[j];
            }
    }
    return false;
}

/* For each parking barrier block k: the range of blocks after k from
 * which a lane can come back to k (park_lo/park_hi; park_hi[k] == 0: the
 * barrier does not park). Found by walking the CFG backwards from k. A
 * barrier in a convergent block never parks (nobody waits elsewhere). */
void zn_park_plan(zn_lfn *l)
{
    uint32_t n = l->nblocks;
    if (!may_park(l))
        return;
    const ptx_func *f = l->f;
    /* predecessor lists, CSR */
    uint32_t *npred = calloc(n + 1, sizeof *npred), *first = calloc(n + 2, sizeof *first);
    uint32_t *pred = malloc((2 * n + 1) * sizeof *pred), *stack = malloc((n + 1) * sizeof *stack);
    uint8_t *seen = malloc(n + 1);
    l->park_lo = calloc(n + 1, sizeof *l->park_lo);
    l->park_hi = calloc(n + 1, sizeof *l->park_hi);
    if (!npred || !first || !pred || !stack || !seen || !l->park_lo || !l->park_hi)
        goto out;
    uint32_t succ[2];
    for (uint32_t b = 0; b < n; b++)
        for (uint32_t j = 0, c = successors(l, b, succ); j < c; j++)
            npred[succ[j]]++;
    for (uint32_t b = 0; b < n; b++)
        first[b + 1] = first[b] + npred[b];
    for (uint32_t b = 0; b < n; b++)
        npred[b] = first[b];
    for (uint32_t b = 0; b < n; b++)
        for (uint32_t j = 0, c = successors(l, b, succ); j < c; j++)
            pred[npred[succ[j]]++] = b;
    for (uint32_t k = 0; k < n; k++) {
        uint32_t s = l->block_start[k];
        if (s >= l->block_start[k + 1] || !zn_bar_parkable(&f->ins[s]) || l->blk_conv[k])
            continue;
        for (uint32_t b = 0; b < n; b++)
            seen[b] = 0;
        uint32_t top = 0, lo = UINT32_MAX, hi = 0;
        stack[top++] = k;
        seen[k] = 1;
        while (top) {
            uint32_t b = stack[--top];
            for (uint32_t j = first[b]; j < first[b + 1]; j++) {
                uint32_t p = pred[j];
                if (seen[p])
                    continue;
                seen[p] = 1;
                stack[top++] = p;
                if (p > k) {
                    lo = p < lo ? p : lo;
                    hi = p > hi ? p : hi;
                }
            }
        }
        if (hi && !strands_convergent(l, k, seen, stack)) {
            l->park_lo[k] = lo;
            l->park_hi[k] = hi;
            l->has_park = true;
        }
    }
out:
    free(npred);
    free(first);
    free(pred);
    free(stack);
    free(seen);
}

bool zn_park_at(const zn_lfn *l, uint32_t k)
{
    return l->park_hi && l->park_hi[k];
}

/* Before the barrier that starts block k (zn_lower_bar): park, or take
 * the lanes parked here into the mask. */
void zn_park_at_barrier(zn_lfn *l)
{
    zn_lmod *m = l->m;
    LLVMBuilderRef b = l->b;
    uint32_t k = l->cur_block, lo = l->park_lo[k], hi = l->park_hi[k];
    LLVMTypeRef v32 = ll_vec(m->t_i32);
    l->goto_target[k] = true;   /* the chain's restart must find it */
    LLVMValueRef pc = LLVMBuildLoad2(b, v32, l->pc_slot, "pc");
    LLVMValueRef off = LLVMBuildSub(b, pc, ll_const_vec(m->t_i32, lo), "");
    LLVMValueRef may_come = LLVMBuildICmp(b, LLVMIntULE, off, ll_const_vec(m->t_i32, hi - lo), "");
    may_come = LLVMBuildAnd(b, may_come, LLVMBuildNot(b, l->mask, ""), "");
    LLVMBasicBlockRef park = LLVMAppendBasicBlockInContext(m->ctx, l->fn, "bar.park");
    LLVMBasicBlockRef join = LLVMAppendBasicBlockInContext(m->ctx, l->fn, "bar.join");
    LLVMBuildCondBr(b, ll_any(l, may_come), park, join);

    LLVMPositionBuilderAtEnd(b, park);
    LLVMBuildStore(b, LLVMBuildSelect(b, l->mask, ll_const_vec(m->t_i32, k | ZN_PC_PARK), pc, ""),
                   l->pc_slot);
    LLVMBuildBr(b, l->resume_bbs[k + 1]);

    LLVMPositionBuilderAtEnd(b, join);
    LLVMValueRef here = LLVMBuildICmp(b, LLVMIntEQ, pc, ll_const_vec(m->t_i32, k | ZN_PC_PARK), "");
    LLVMBuildStore(b, LLVMBuildSelect(b, here, ll_const_vec(m->t_i32, k), pc, ""), l->pc_slot);
    l->mask = LLVMBuildOr(b, l->mask, here, "");
    l->emask = l->mask;
    LLVMBuildStore(b, l->mask, l->mask_slot);
}

/* The end of the resume chain (positioned there): lanes still parked
 * wait for nobody (the others finished): unpark them and start over. */
void zn_park_chain_end(zn_lfn *l)
{
    zn_lmod *m = l->m;
    LLVMBuilderRef b = l->b;
    if (!l->has_park) {
        LLVMBuildBr(b, l->ret_bb);
        return;
    }
    LLVMTypeRef v32 = ll_vec(m->t_i32);
    LLVMValueRef pc = LLVMBuildLoad2(b, v32, l->pc_slot, "pc");
    LLVMValueRef off = LLVMBuildSub(b, pc, ll_const_vec(m->t_i32, ZN_PC_PARK), "");
    LLVMValueRef parked = LLVMBuildICmp(b, LLVMIntULT, off,
                                        ll_const_vec(m->t_i32, ZN_PC_DONE - ZN_PC_PARK), "");
    LLVMBasicBlockRef again = LLVMAppendBasicBlockInContext(m->ctx, l->fn, "unpark");
    LLVMBuildCondBr(b, ll_any(l, parked), again, l->ret_bb);
    LLVMPositionBuilderAtEnd(b, again);
    LLVMBuildStore(b, LLVMBuildSelect(b, parked, off, pc, ""), l->pc_slot);
    LLVMBuildBr(b, l->resume_bbs[0]);
}

/* Whether blocks h .. end - 1 hold a parking barrier (the chain's
 * restart must not skip such a loop). */
bool zn_park_in(const zn_lfn *l, uint32_t h, uint32_t end)
{
    for (uint32_t k = h; k < end && l->park_hi; k++)
        if (l->park_hi[k])
            return true;
    return false;
}
