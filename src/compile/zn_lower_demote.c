/* zn_lower_demote.c: registers of huge divergent functions stay in memory.
 *
 * Every PTX register is an alloca that mem2reg turns into SSA values. A
 * register that is live across blocks (not block-local, not an invariant
 * defined in block 0) reaches every block lanes can wait at; so mem2reg
 * gives it a phi in each of those blocks (they have their resume test and
 * their textual predecessor as predecessors, zn_lower_func.c, and a
 * masked write select(mask, new, old) reads the old value, so nothing ends
 * the live range). Phis = such registers x wait targets, and in divergent
 * code nearly every block is one (measured with the former dispatcher
 * switch, which had the same shape of phis):
 * CUB's DeviceHistogram sweep kernel has 423 such registers over 636
 * blocks, 269k phis after SROA and
 * still 226k after -O3 (the function is nearly all phis), which is where
 * InstCombine and the register coalescer spent minutes.
 *
 * Those values cannot live in machine registers anyway (hundreds of
 * 32-lane vectors): the register allocator spills them and shuffles the
 * copies at every block. So above a size the function keeps them in
 * their stack slots: each such alloca escapes through one volatile store
 * of its address into a sink slot in the prologue, which SROA and mem2reg
 * respect (an escaped alloca is never promoted); reads and writes are
 * plain loads and stores that LLVM still forwards inside a block. Small
 * functions (every kernel of the benchmarks) are untouched.
 * ZINC_DEMOTE_PHIS=N sets another threshold (0: every function; a huge N:
 * none) for A/B comparisons; it is not part of the cache key. */
#include "zn_lower.h"

#include <stdlib.h>

#include "util/zn_log.h"

/* registers x wait targets above which the cross-block registers are
 * demoted. Measured (docs/compile-time.md): CUB's sweep kernels are 60k to
 * 820k; bench/scan's DeviceScanKernel is 34.6k and runs ~15% slower
 * demoted, so it stays below; the other bench kernels are under 2k. */
#define ZN_DEMOTE_MIN_PHIS 40000u

static void mark(const zn_lfn *l, bool *tgt, uint32_t b)
{
    if (b < l->nblocks)
        tgt[b] = true;
}

/* The blocks lanes can wait at (those zn_goto and brx make goto
 * targets), from the PTX before lowering: the targets and the next block
 * of every branch that is not a uniform jump, and the next block of a
 * block that falls through without all lanes. Only these get a phi per
 * live register (in CUB's and llama.cpp's kernels, bounds checks make
 * nearly every block one). */
static uint32_t wait_targets(const zn_lfn *l)
{
    const ptx_func *f = l->f;
    bool *tgt = calloc(l->nblocks + 1, 1);
    if (!tgt)
        return l->nblocks;
    for (uint32_t k = 0; k < l->nblocks; k++) {
        uint32_t end = l->block_start[k + 1];
        const ptx_ins *t = end > l->block_start[k] ? &f->ins[end - 1] : NULL;
        bool conv = l->blk_conv && l->blk_conv[k];
        if (!t || !(ptx_op_table[t->op].flags & PTX_OF_BRANCH) || t->op == PTX_OP_trap) {
            if (!conv)
                mark(l, tgt, k + 1);
            continue;
        }
        if (t->op == PTX_OP_bra && conv &&
            (t->guard_reg < 0 || (l->reg_uni && l->reg_uni[t->guard_reg])))
            continue;   /* a uniform jump */
        mark(l, tgt, k + 1);
        for (uint32_t o = 0; o < t->nopnds; o++) {
            const ptx_opnd *op = &t->opnds[o];
            const ptx_opnd *el = op->kind == PTX_OPND_LIST ? op->elems : op;
            uint32_t ne = op->kind == PTX_OPND_LIST ? op->nelems : 1;
            for (uint32_t e = 0; e < ne; e++)
                if (el[e].kind == PTX_OPND_LABEL && el[e].label >= 0 &&
                    (uint32_t)el[e].label < f->nlabels)
                    mark(l, tgt, l->block_of_ins[f->labels[el[e].label].ins]);
        }
    }
    uint32_t n = 0;
    for (uint32_t k = 0; k < l->nblocks; k++)
        n += tgt[k];
    free(tgt);
    return n;
}

uint32_t zn_demote_estimate(const zn_lfn *l)
{
    uint32_t n = 0;
    for (uint32_t r = 0; r < l->f->nregs; r++)
        if (zn_reg_crosses_blocks(l, r))
            n++;
    uint64_t p = (uint64_t)n * wait_targets(l);
    return p > UINT32_MAX ? UINT32_MAX : (uint32_t)p;
}

bool zn_reg_crosses_blocks(const zn_lfn *l, uint32_t r)
{
    if (l->reg_blocal && l->reg_blocal[r])
        return false;
    /* an invariant register defined in block 0 is one SSA value that
     * dominates its uses (block 0 is entered from the prologue alone);
     * defined later, it has phis like any other */
    if (l->reg_inv && l->reg_inv[r] && l->reg_def && l->reg_def[r] >= 0 &&
        l->block_of_ins[l->reg_def[r]] == 0)
        return false;
    return true;
}

void zn_demote_regs(zn_lfn *l)
{
    uint32_t est = zn_demote_estimate(l);
    /* ZINC_DEMOTE_PHIS=N: another threshold, for A/B comparisons */
    const char *env = getenv("ZINC_DEMOTE_PHIS");
    uint64_t lim = env && *env ? strtoull(env, NULL, 10) : ZN_DEMOTE_MIN_PHIS;
    bool demote = est > lim;
    zn_log(demote ? ZN_LOG_INFO : ZN_LOG_DEBUG,
           "lower: %s: cross-block registers x wait targets = %u%s", l->f->name, est,
           demote ? ": registers kept in memory" : "");
    if (!demote)
        return;
    l->regs_demoted = true;
    zn_lmod *m = l->m;
    LLVMValueRef sink = LLVMBuildAlloca(l->b, m->t_ptr, "demote.sink");
    for (uint32_t r = 0; r < l->f->nregs; r++) {
        if (!zn_reg_crosses_blocks(l, r))
            continue;
        LLVMValueRef s = LLVMBuildStore(l->b, l->regs[r], sink);
        LLVMSetVolatile(s, 1);
    }
}
