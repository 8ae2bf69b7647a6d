/* zn_lower_window.c: loads whose lanes read inside small windows.
 *
 * When zn_lower_lanetab.c predicts a load's lane offsets T (lane l at
 * base + T[l]) and every group of P consecutive lanes reads within 64
 * bytes, the warp loads each group's window with one masked byte load
 * (only the bytes the group's lanes read: a masked-off byte never faults,
 * so no byte outside what the gather would touch is read) and picks its
 * lanes' bytes with a constant shuffle (vpermb with AVX-512 VBMI). On
 * Zen 4 that is ~10x cheaper than the 16-lane gather it replaces.
 *
 * At run time the path is taken only when the active lanes' addresses are
 * exactly base + T[l] for one base and every group is either fully active
 * or idle (an idle group's byte mask is empty: it loads zeros, the value
 * of inactive lanes everywhere in zn_lower_access.c), or all the windows
 * lie in one page (a partly active group then reads its idle lanes' bytes
 * too, never a fault the gather would not have had; they are zeroed);
 * otherwise the caller gathers, so a wrong prediction costs a test, never
 * a wrong value. ZINC_NO_WINDOW=1 turns it off (A/B comparisons). */
#include "zn_lower.h"

#include <stdlib.h>

#define WIN_BYTES 64
/* the smallest page x86-64 and AArch64 hosts protect memory by */
#define WIN_PAGE_SHIFT 12
/* A window load in a loop whose address steps by an immediate also
 * prefetches this far ahead in the step's direction, unless every block
 * reads the same bytes (the ctaid walk of zn_lower_prefetch.c: in the
 * cache after the first block; mul_mat_vec_q's vector: 121 -> 61
 * prefetches in bench/mmvq's kernel, 4096 x 4096 on one worker 2.63-2.88
 * -> 2.55-2.64 ms): a warp runs its whole
 * loop before the next warp starts, so its windows (llama.cpp's
 * mul_mat_vec_q: 272 bytes every 1088) are a strided stream the hardware
 * prefetchers miss, and each iteration's code is too long for out-of-order
 * execution to reach the next one's loads. About two such iterations
 * ahead: 32000 x 4096 mmvq on one worker 92 -> 56-66 ms (1024: 72, 3072
 * and 4096 within noise of 2048). */
#define WIN_PREFETCH 2048

static LLVMValueRef c64(zn_lfn *l, uint64_t v)
{
    return LLVMConstInt(l->m->t_i64, v, 0);
}

static bool is_contiguous(const int64_t *t, unsigned size)
{
    for (unsigned i = 0; i < ZN_LANES; i++)
        if (t[i] != (int64_t)(i * size))
            return false;
    return true;
}

/* the lane bits of a group of p lanes, at lane 0 */
static uint64_t group_bits(unsigned p)
{
    return p == ZN_LANES ? UINT32_MAX : ((uint64_t)1 << p) - 1;
}

/* lowest offset of group g of p lanes; *span: its bytes */
static int64_t group_lo(const int64_t *t, unsigned g, unsigned p, unsigned size, int64_t *span)
{
    int64_t lo = t[g * p], hi = t[g * p];
    for (unsigned i = g * p; i < (g + 1) * p; i++) {
        lo = t[i] < lo ? t[i] : lo;
        hi = t[i] > hi ? t[i] : hi;
    }
    *span = hi - lo + size;
    return lo;
}

/* The bytes `ahead` of a window into the cache (prefetches never fault). */
static void prefetch(zn_lfn *l, LLVMValueRef addr, int64_t ahead)
{
    zn_lmod *m = l->m;
    LLVMValueRef p = LLVMBuildIntToPtr(l->b, LLVMBuildAdd(l->b, addr, c64(l, (uint64_t)ahead), ""),
                                       m->t_ptr, "");
    LLVMTypeRef pt = m->t_ptr;
    LLVMValueRef args[4] = {p, LLVMConstInt(m->t_i32, 0, 0), LLVMConstInt(m->t_i32, 3, 0),
                            LLVMConstInt(m->t_i32, 1, 0)};  /* read, keep, data */
    ll_intrin(l, "llvm.prefetch", &pt, 1, args, 4);
}

bool zn_window_plan(zn_lfn *l, unsigned size, zn_window *w)
{
    if (getenv("ZINC_NO_WINDOW") || !zn_target_has(l->m, "avx512vbmi") ||
        !zn_target_has(l->m, "avx512bw") || size > 8 || !zn_lanetab_addr(l, w->t, &w->step) ||
        zn_lanetab_is_zero(w->t) || is_contiguous(w->t, size))
        return false;
    /* what every block reads at the same address (mul_mat_vec_q's
     * vector) is in the cache after the first block: no prefetch */
    if (w->step && l->ins->nopnds >= 2 && zn_prefetch_block_invariant(l, &l->ins->opnds[1]))
        w->step = 0;
    /* the widest groups that fit a window: fewer loads and shuffles */
    for (unsigned p = ZN_LANES; p >= 4; p /= 2) {
        bool fits = true;
        for (unsigned g = 0; fits && g < ZN_LANES / p; g++) {
            int64_t span;
            group_lo(w->t, g, p, size, &span);
            fits = span <= WIN_BYTES;
        }
        if (fits) {
            w->p = p;
            w->size = size;
            return true;
        }
    }
    return false;
}

/* Whether the active lanes of v are exactly base + t[lane] for one base
 * (set in *base). base is a - T of the first active lane, and every active
 * lane must equal it (so any lane's value would be safe: a wrong one fails
 * the test; frozen, as with no lane active it is an inactive lane's, which
 * no byte mask then uses). Not the lanes' lowest a - T: that umin over
 * four vectors of 64-bit lanes was a chain of ~14 instructions per test,
 * this extract a store and a load (bench/mmvq_thin 9-11 % faster per
 * block, mmvq's 4096 x 4096 10 %, on Zen 4). */
LLVMValueRef zn_window_lanes_at(zn_lfn *l, LLVMValueRef v, const int64_t *t, LLVMValueRef *base)
{
    LLVMBuilderRef b = l->b;
    LLVMValueRef tv[ZN_LANES];
    for (unsigned i = 0; i < ZN_LANES; i++)
        tv[i] = c64(l, (uint64_t)t[i]);
    LLVMValueRef d = LLVMBuildSub(b, v, LLVMConstVector(tv, ZN_LANES), "win.d");
    *base = LLVMBuildFreeze(b, ll_extract_dyn(l, d, ll_first_lane(l, l->emask)), "win.base");
    LLVMValueRef off = LLVMBuildAnd(b, LLVMBuildICmp(b, LLVMIntNE, d, ll_splat(l, *base), ""),
                                    l->emask, "");
    return LLVMBuildICmp(b, LLVMIntEQ, ll_mask_to_i32(l, off),
                         LLVMConstInt(l->m->t_i32, 0, 0), "win.shape");
}

/* The test where zn_lower_winslot.c may already know the answer (the
 * address register stepped since a test passed): the vector test only
 * where it does not. */
static LLVMValueRef slot_test(zn_lfn *l, zn_window *w, LLVMValueRef a, LLVMValueRef known,
                              LLVMValueRef kbase)
{
    zn_lmod *m = l->m;
    LLVMBuilderRef b = l->b;
    const ptx_opnd *ao = &l->ins->opnds[1];
    LLVMBasicBlockRef from = LLVMGetInsertBlock(b),
        bb_test = LLVMAppendBasicBlockInContext(m->ctx, l->fn, "win.test"),
        bb_join = LLVMAppendBasicBlockInContext(m->ctx, l->fn, "win.tested");
    LLVMBuildCondBr(b, known, bb_join, bb_test);
    LLVMPositionBuilderAtEnd(b, bb_test);
    LLVMValueRef tbase, texact = zn_window_lanes_at(l, a, w->t, &tbase);
    zn_winslot_tested(l, ao, texact, tbase);
    LLVMBasicBlockRef end_test = LLVMGetInsertBlock(b);
    LLVMBuildBr(b, bb_join);
    LLVMPositionBuilderAtEnd(b, bb_join);
    LLVMBasicBlockRef in_b[2] = {from, end_test};
    LLVMValueRef in_base[2] = {kbase, tbase}, in_exact[2] = {LLVMConstInt(m->t_i1, 1, 0), texact};
    w->base = LLVMBuildPhi(b, m->t_i64, "win.base");
    LLVMAddIncoming(w->base, in_base, in_b, 2);
    LLVMValueRef exact = LLVMBuildPhi(b, m->t_i1, "win.shape");
    LLVMAddIncoming(exact, in_exact, in_b, 2);
    return exact;
}

/* Whether the active lanes' addresses a are exactly base + T[lane] for one
 * base (set in w->base). A load of the same address register as one of
 * the last ZN_WIN_SEEN tests, in the same straight-line code with the same
 * lanes and nothing writing the register since, only adds
 * the difference of their immediates: the register's lane offsets are
 * the same T, so the earlier answer holds (llama.cpp's unrolled
 * mul_mat_vec_q reads 4-6 times from each of its 4 pointers per step, and
 * each test is ~15 vector instructions). */
static LLVMValueRef exact_test(zn_lfn *l, zn_window *w, LLVMValueRef a)
{
    LLVMBuilderRef b = l->b;
    const ptx_opnd *ao = &l->ins->opnds[1];
    for (unsigned k = 0; k < ZN_WIN_SEEN; k++) {
        const zn_win_seen *e = &l->win_seen[k];
        if (e->emask && e->reg == ao->reg && e->space == (int)l->ins->space &&
            e->emask == l->emask) {
            w->base = LLVMBuildAdd(b, e->base, c64(l, (uint64_t)(ao->ival - e->imm)),
                                   "win.base");
            return e->exact;
        }
    }
    LLVMValueRef known, kbase;
    LLVMValueRef exact = zn_winslot_known(l, ao, &known, &kbase)
                             ? slot_test(l, w, a, known, kbase)
                             : zn_window_lanes_at(l, a, w->t, &w->base);
    zn_win_seen *e = &l->win_seen[l->win_next++ % ZN_WIN_SEEN];
    e->reg = ao->reg;
    e->space = (int)l->ins->space;
    e->imm = ao->ival;
    e->emask = l->emask;
    e->base = w->base;
    e->exact = exact;
    return exact;
}

/* entries with emask NULL are empty */
static void forget_def(int32_t r, void *ud)
{
    zn_lfn *l = ud;
    for (unsigned k = 0; k < ZN_WIN_SEEN; k++)
        if (l->win_seen[k].reg == r)
            l->win_seen[k].emask = NULL;
}

void zn_window_forget(zn_lfn *l, const ptx_ins *ins)
{
    zn_winslot_def(l, ins);     /* slots follow the registers across blocks */
    if (!ins || ins->op == PTX_OP_call ||
        (ptx_op_table[ins->op].flags & (PTX_OF_BRANCH | PTX_OF_CONVERGENT))) {
        for (unsigned k = 0; k < ZN_WIN_SEEN; k++)
            l->win_seen[k].emask = NULL;
        return;
    }
    if (ins->nopnds)
        zn_each_def(&ins->opnds[0], forget_def, l);
}

/* Whether every byte the warp's windows may read lies in one page: the
 * bytes base + [lowest T, highest T + size). */
static LLVMValueRef one_page(zn_lfn *l, const zn_window *w)
{
    LLVMBuilderRef b = l->b;
    int64_t lo = w->t[0], hi = w->t[0];
    for (unsigned i = 1; i < ZN_LANES; i++) {
        lo = w->t[i] < lo ? w->t[i] : lo;
        hi = w->t[i] > hi ? w->t[i] : hi;
    }
    LLVMValueRef first = LLVMBuildAdd(b, w->base, c64(l, (uint64_t)lo), "");
    LLVMValueRef last = LLVMBuildAdd(b, w->base, c64(l, (uint64_t)(hi + w->size - 1)), "");
    LLVMValueRef pg = c64(l, WIN_PAGE_SHIFT);
    return LLVMBuildICmp(b, LLVMIntEQ, LLVMBuildLShr(b, first, pg, ""),
                         LLVMBuildLShr(b, last, pg, ""), "win.page");
}

LLVMValueRef zn_window_test(zn_lfn *l, zn_window *w, LLVMValueRef a)
{
    zn_lmod *m = l->m;
    LLVMBuilderRef b = l->b;
    LLVMValueRef ok = exact_test(l, w, a);
    w->mi = ll_mask_to_i32(l, l->emask);
    /* each group all active or all idle: the mask is its groups' lowest
     * bits times a whole group's bits (the groups do not overlap, so the
     * product has no carries) */
    uint64_t lowest = 0;
    for (unsigned g = 0; g < ZN_LANES / w->p; g++)
        lowest |= (uint64_t)1 << (g * w->p);
    LLVMValueRef low = LLVMBuildAnd(b, w->mi, LLVMConstInt(m->t_i32, lowest, 0), "");
    LLVMValueRef whole = LLVMBuildICmp(b, LLVMIntEQ, w->mi,
                                       LLVMBuildMul(b, low, LLVMConstInt(m->t_i32,
                                                    group_bits(w->p), 0), ""), "win.whole");
    /* or a group partly active (a branch on lane bits inside the group:
     * llama.cpp's Q4_K scales, `if (j < 2)` of 4-lane groups) reads its
     * idle lanes' bytes as well, which is safe when all the windows lie in
     * one page with an active lane's bytes: memory is protected by pages
     * (the fetch zeroes those lanes) */
    return LLVMBuildAnd(b, ok, LLVMBuildOr(b, whole, one_page(l, w), ""), "");
}

LLVMValueRef zn_window_fetch(zn_lfn *l, const zn_window *w, LLVMTypeRef et)
{
    zn_lmod *m = l->m;
    LLVMBuilderRef b = l->b;
    LLVMTypeRef bytes = LLVMVectorType(m->t_i8, WIN_BYTES);
    unsigned ng = ZN_LANES / w->p, gb = w->p * w->size; /* result bytes per group */
    LLVMValueRef part[ZN_LANES / 4];
    for (unsigned g = 0; g < ng; g++) {
        int64_t span, lo = group_lo(w->t, g, w->p, w->size, &span);
        /* bytes the group's lanes read, relative to its window */
        uint64_t need = 0;
        LLVMValueRef idx[ZN_LANES * 8]; /* p * size result bytes, up to 256 */
        for (unsigned i = 0; i < w->p; i++)
            for (unsigned k = 0; k < w->size; k++) {
                unsigned at = (unsigned)(w->t[g * w->p + i] - lo) + k;
                need |= (uint64_t)1 << at;
                idx[i * w->size + k] = LLVMConstInt(m->t_i32, at, 0);
            }
        LLVMValueRef busy = LLVMBuildICmp(b, LLVMIntNE,
            LLVMBuildAnd(b, w->mi, LLVMConstInt(m->t_i32,
                         group_bits(w->p) << (g * w->p), 0),
                         ""),
            LLVMConstInt(m->t_i32, 0, 0), "");
        LLVMValueRef bm = LLVMBuildSelect(b, busy, c64(l, need), c64(l, 0), "");
        bm = LLVMBuildBitCast(b, bm, LLVMVectorType(m->t_i1, WIN_BYTES), "");
        LLVMValueRef addr = LLVMBuildAdd(b, w->base, c64(l, (uint64_t)lo), "");
        LLVMTypeRef over[2] = {bytes, m->t_ptr};
        LLVMValueRef args[4] = {LLVMBuildIntToPtr(b, addr, m->t_ptr, ""),
                                LLVMConstInt(m->t_i32, 1, 0), bm, LLVMConstNull(bytes)};
        LLVMValueRef win = ll_intrin(l, "llvm.masked.load", over, 2, args, 4);
        if (w->step)
            prefetch(l, addr, w->step > 0 ? WIN_PREFETCH : -WIN_PREFETCH);
        part[g] = LLVMBuildShuffleVector(b, win, LLVMGetPoison(bytes),
                                         LLVMConstVector(idx, gb), "win.pick");
    }
    LLVMTypeRef it = LLVMIntTypeInContext(m->ctx, w->size * 8);
    LLVMValueRef v = LLVMBuildBitCast(b, ll_concat(l, part, ng), ll_vec(it), "");
    /* idle lanes of a partly active group read memory: zeros like the
     * gather's (a destination's merge under the same mask folds this) */
    v = LLVMBuildSelect(b, l->emask, v, LLVMConstNull(ll_vec(it)), "");
    return it == et ? v : LLVMBuildBitCast(b, v, ll_vec(et), "win.ld");
}
