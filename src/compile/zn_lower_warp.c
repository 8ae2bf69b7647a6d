/* zn_lower_warp.c: warp-level instructions, exact over the execution mask
 * (shfl, vote, activemask, match, redux), and block barriers (bar/barrier,
 * including bar.red through a shared-memory scratch pair of counters). */
#include "zn_lower.h"

static LLVMValueRef cvec(zn_lfn *l, uint64_t v)
{
    return ll_const_vec(l->m->t_i32, v);
}

/* d[lane] = src[idx[lane]] through a stack slot and a gather: any idx. */
static LLVMValueRef permute_gather(zn_lfn *l, LLVMValueRef src, LLVMValueRef idx)
{
    zn_lmod *m = l->m;
    LLVMTypeRef vt = LLVMTypeOf(src);
    LLVMValueRef tmp = ll_entry_alloca(l, vt, "shfl.tmp");
    LLVMBuildStore(l->b, src, tmp);
    LLVMValueRef ix = LLVMBuildZExt(l->b, idx, ll_vec(m->t_i64), "");
    LLVMValueRef ptrs = LLVMBuildGEP2(l->b, ll_elem(vt), tmp, &ix, 1, "");
    LLVMTypeRef over[2] = {vt, ll_vec(m->t_ptr)};
    LLVMValueRef args[4] = {ptrs, LLVMConstInt(m->t_i32, 4, 0), ll_all_ones(l),
                            LLVMGetPoison(vt)};
    return ll_intrin(l, "llvm.masked.gather", over, 2, args, 4);
}

/* i1: every lane of the <32 x i32> a equals b */
static LLVMValueRef all_eq(zn_lfn *l, LLVMValueRef a, LLVMValueRef b)
{
    LLVMValueRef eq = ll_mask_to_i32(l, LLVMBuildICmp(l->b, LLVMIntEQ, a, b, ""));
    return LLVMBuildICmp(l->b, LLVMIntEQ, eq, LLVMConstInt(l->m->t_i32, 0xffffffffu, 0), "");
}

/* The source lane of `lane` for a whole-warp shfl of the given kind by k
 * (clamp 31, no segments), as PTX defines it: out-of-range lanes keep
 * their own value. */
static unsigned shfl_src_lane(unsigned sub, unsigned lane, unsigned k)
{
    switch (sub) {
    case PTX_SUB_DOWN: return lane + k <= 31 ? lane + k : lane;
    case PTX_SUB_UP: return lane >= k ? lane - k : lane;
    default: return lane ^ k; /* PTX_SUB_BFLY */
    }
}

/* d[lane] = src[idx[lane]] for a <32 x T> src and <32 x i32> idx in [0, 31].
 *
 * The gather costs about 20x a register permute and was a large share of
 * warp-shuffle reductions (issue #9). The offsets nvcc uses (down/up/bfly
 * by 16, 8, 4, 2, 1 over the whole warp; idx broadcasts) are usually
 * constants, but they arrive in PTX registers, so idx only becomes a
 * constant after mem2reg. So idx is compared against each such pattern
 * and a select picks the matching shufflevector (a vpermt2d on AVX-512):
 * once idx is constant the comparisons fold, the gather is dead and only
 * the shuffle is left; with a run-time idx the gather stays, plus a few
 * vector compares. A uniform idx (shfl.idx of one lane, at run time too)
 * is a broadcast of that lane. */
static LLVMValueRef permute(zn_lfn *l, unsigned sub, LLVMValueRef src, LLVMValueRef idx)
{
    zn_lmod *m = l->m;
    LLVMBuilderRef b = l->b;
    LLVMTypeRef vt = LLVMTypeOf(src);
    LLVMValueRef r = permute_gather(l, src, idx);
    if (sub == PTX_SUB_IDX) {
        LLVMValueRef j0 = LLVMBuildExtractElement(b, idx, LLVMConstInt(m->t_i32, 0, 0), "");
        LLVMValueRef bc = ll_splat(l, LLVMBuildExtractElement(b, src, j0, ""));
        return LLVMBuildSelect(b, all_eq(l, idx, ll_splat(l, j0)), bc, r, "shfl.bcast");
    }
    for (unsigned k = 1; k <= 16; k <<= 1) {
        LLVMValueRef e[ZN_LANES];
        for (unsigned i = 0; i < ZN_LANES; i++)
            e[i] = LLVMConstInt(m->t_i32, shfl_src_lane(sub, i, k), 0);
        LLVMValueRef pat = LLVMConstVector(e, ZN_LANES);
        LLVMValueRef sh = LLVMBuildShuffleVector(b, src, LLVMGetPoison(vt), pat, "shfl.perm");
        r = LLVMBuildSelect(b, all_eq(l, idx, pat), sh, r, "");
    }
    return r;
}

static void shfl(zn_lfn *l, const ptx_ins *ins)
{
    LLVMBuilderRef b = l->b;
    const ptx_opnd *o = ins->opnds;
    LLVMValueRef a = zn_src(l, &o[1], PTX_T_B32);
    LLVMValueRef bv = LLVMBuildAnd(b, zn_src(l, &o[2], PTX_T_U32), cvec(l, 31), "");
    LLVMValueRef c = zn_src(l, &o[3], PTX_T_U32);
    LLVMValueRef cval = LLVMBuildAnd(b, c, cvec(l, 31), "");
    LLVMValueRef seg = LLVMBuildAnd(b, LLVMBuildLShr(b, c, cvec(l, 8), ""), cvec(l, 31), "");
    LLVMValueRef nseg = LLVMBuildXor(b, seg, cvec(l, 31), "");
    LLVMValueRef lane = l->lane_ids;
    LLVMValueRef minl = LLVMBuildAnd(b, lane, seg, "");
    LLVMValueRef maxl = LLVMBuildOr(b, minl, LLVMBuildAnd(b, cval, nseg, ""), "");
    LLVMValueRef j, ok;
    switch (ins->subop) {
    case PTX_SUB_UP:
        j = LLVMBuildSub(b, lane, bv, "");
        ok = LLVMBuildICmp(b, LLVMIntSGE, j, maxl, "");
        break;
    case PTX_SUB_DOWN:
        j = LLVMBuildAdd(b, lane, bv, "");
        ok = LLVMBuildICmp(b, LLVMIntSLE, j, maxl, "");
        break;
    case PTX_SUB_BFLY:
        j = LLVMBuildXor(b, lane, bv, "");
        ok = LLVMBuildICmp(b, LLVMIntSLE, j, maxl, "");
        break;
    case PTX_SUB_IDX:
        j = LLVMBuildOr(b, minl, LLVMBuildAnd(b, bv, nseg, ""), "");
        ok = LLVMBuildICmp(b, LLVMIntSLE, j, maxl, "");
        break;
    default:
        zn_lerr_unsupported(l);
        return;
    }
    j = LLVMBuildSelect(b, ok, j, lane, "");
    zn_dst(l, &o[0], PTX_T_B32, permute(l, ins->subop, a, j));
    if (o[0].pair && o[0].reg2 >= 0)
        zn_dst_reg(l, o[0].reg2, PTX_T_PRED, ok);
}

static void vote(zn_lfn *l, const ptx_ins *ins)
{
    LLVMBuilderRef b = l->b;
    const ptx_opnd *o = ins->opnds;
    LLVMValueRef p = zn_src(l, &o[1], PTX_T_PRED);
    /* per lane, only the lanes its membermask names count: the halves of
     * a warp split by tiled_partition<16> vote in one instruction with
     * different masks (vote.sync without a mask: all lanes) */
    LLVMValueRef member = ins->nopnds >= 3 ? zn_src(l, &o[2], PTX_T_B32)
                                           : cvec(l, 0xffffffffu);
    LLVMValueRef mi = LLVMBuildAnd(b, ll_splat(l, ll_mask_to_i32(l, l->emask)), member, "");
    LLVMValueRef on = LLVMBuildAnd(b, ll_splat(l, ll_mask_to_i32(l,
                                   LLVMBuildAnd(b, p, l->emask, ""))), member, "");
    LLVMValueRef zero = LLVMConstNull(LLVMTypeOf(on)), r;
    switch (ins->subop) {
    case PTX_SUB_BALLOT:
        zn_dst(l, &o[0], PTX_T_B32, on);
        return;
    case PTX_SUB_ALL: r = LLVMBuildICmp(b, LLVMIntEQ, on, mi, ""); break;
    case PTX_SUB_ANY: r = LLVMBuildICmp(b, LLVMIntNE, on, zero, ""); break;
    case PTX_SUB_UNI:
        r = LLVMBuildOr(b, LLVMBuildICmp(b, LLVMIntEQ, on, mi, ""),
                        LLVMBuildICmp(b, LLVMIntEQ, on, zero, ""), "");
        break;
    default:
        zn_lerr_unsupported(l);
        return;
    }
    zn_dst(l, &o[0], PTX_T_PRED, r);
}

typedef struct match_job {
    LLVMValueRef a;
} match_job;

static LLVMValueRef match_lane(zn_lfn *l, LLVMValueRef lane, void *ud)
{
    match_job *j = ud;
    LLVMValueRef ai = ll_lane_elt(l, j->a, lane);
    LLVMValueRef eq = LLVMBuildICmp(l->b, LLVMIntEQ, j->a, ll_splat(l, ai), "");
    return ll_mask_to_i32(l, LLVMBuildAnd(l->b, eq, l->emask, ""));
}

static void match(zn_lfn *l, const ptx_ins *ins)
{
    const ptx_opnd *o = ins->opnds;
    ptx_type t = ins->type[0];
    match_job j = {.a = zn_src(l, &o[1], t)};
    LLVMValueRef same = ll_lane_loop(l, l->emask, l->m->t_i32, match_lane, &j);
    if (ins->subop == PTX_SUB_ANY) {
        zn_dst(l, &o[0], PTX_T_B32, same);
        return;
    }
    if (ins->subop != PTX_SUB_ALL) {
        zn_lerr_unsupported(l);
        return;
    }
    LLVMValueRef mi = ll_splat(l, ll_mask_to_i32(l, l->emask));
    LLVMValueRef all = LLVMBuildICmp(l->b, LLVMIntEQ, same, mi, "");
    LLVMValueRef allv = ll_splat(l, LLVMBuildICmp(l->b, LLVMIntEQ,
        ll_mask_to_i32(l, LLVMBuildOr(l->b, LLVMBuildNot(l->b, l->emask, ""), all, "")),
        LLVMConstInt(l->m->t_i32, 0xffffffffu, 0), ""));
    zn_dst(l, &o[0], PTX_T_B32, LLVMBuildSelect(l->b, allv, mi,
                                                LLVMConstNull(LLVMTypeOf(mi)), ""));
    if (o[0].pair && o[0].reg2 >= 0)
        zn_dst_reg(l, o[0].reg2, PTX_T_PRED, allv);
}

typedef struct redux_job {
    LLVMValueRef a, member;     /* values, membermasks (<32 x i32>) */
    const char *fn;
    uint64_t id;                /* the reduction's identity */
} redux_job;

static LLVMValueRef redux_lane(zn_lfn *l, LLVMValueRef lane, void *ud)
{
    redux_job *j = ud;
    LLVMBuilderRef b = l->b;
    LLVMValueRef mm = ll_splat(l, ll_lane_elt(l, j->member, lane));
    LLVMValueRef bit = LLVMBuildAnd(b, LLVMBuildLShr(b, mm, l->lane_ids, ""), cvec(l, 1), "");
    LLVMValueRef in = LLVMBuildAnd(b, LLVMBuildICmp(b, LLVMIntNE, bit, cvec(l, 0), ""),
                                   l->emask, "");
    return ll_intrin1(l, j->fn, LLVMBuildSelect(b, in, j->a, cvec(l, j->id), ""));
}

static void redux(zn_lfn *l, const ptx_ins *ins)
{
    const ptx_opnd *o = ins->opnds;
    ptx_type t = ins->type[0];
    bool sign = ptx_type_is_signed(t);
    if (ptx_type_is_float(t)) {
        zn_lerr_unsupported(l);
        return;
    }
    LLVMValueRef a = zn_src(l, &o[1], t);
    const char *fn;
    uint64_t id;
    switch (ins->subop) {
    case PTX_SUB_ADD: fn = "llvm.vector.reduce.add"; id = 0; break;
    case PTX_SUB_AND: fn = "llvm.vector.reduce.and"; id = 0xffffffffu; break;
    case PTX_SUB_OR: fn = "llvm.vector.reduce.or"; id = 0; break;
    case PTX_SUB_XOR: fn = "llvm.vector.reduce.xor"; id = 0; break;
    case PTX_SUB_MIN:
        fn = sign ? "llvm.vector.reduce.smin" : "llvm.vector.reduce.umin";
        id = sign ? 0x7fffffffu : 0xffffffffu;
        break;
    case PTX_SUB_MAX:
        fn = sign ? "llvm.vector.reduce.smax" : "llvm.vector.reduce.umax";
        id = sign ? 0x80000000u : 0;
        break;
    default:
        zn_lerr_unsupported(l);
        return;
    }
    if (ins->nopnds >= 3 && o[2].kind == PTX_OPND_IMM && (uint32_t)o[2].ival == 0xffffffffu) {
        a = LLVMBuildSelect(l->b, l->emask, a, cvec(l, id), "");
        zn_dst(l, &o[0], t, ll_splat(l, ll_intrin1(l, fn, a)));
        return;
    }
    /* Any other membermask: each lane reduces over the lanes its own mask
     * names. Lanes of one warp may pass different masks in the same
     * instruction: cg::reduce on tiled_partition<16> (sm_80+) has each
     * half of the warp reduce over its own 16 lanes. */
    redux_job j = {a, zn_src(l, &o[2], PTX_T_B32), fn, id};
    zn_dst(l, &o[0], t, ll_lane_loop(l, l->emask, l->m->t_i32, redux_lane, &j));
}

/* elect.sync d|p, membermask (sm_90): the lowest active lane of
 * membermask leads; d is its lane id in every lane of the mask, p is true
 * in the leader alone. Each lane works from its own membermask, which
 * CUDA requires to be the same in all of them. */
static void elect(zn_lfn *l, const ptx_ins *ins)
{
    const ptx_opnd *o = ins->opnds;
    if (ins->nopnds != 2 || !o[0].pair || o[0].reg2 < 0) {
        zn_lerr(l, "elect.sync: expected d|p, membermask");
        return;
    }
    LLVMTypeRef v32 = ll_vec(l->m->t_i32);
    LLVMValueRef active = ll_splat(l, ll_mask_to_i32(l, l->emask));
    LLVMValueRef cand = LLVMBuildAnd(l->b, zn_src(l, &o[1], PTX_T_B32), active, "");
    LLVMValueRef args[2] = {cand, LLVMConstInt(l->m->t_i1, 0, 0)};
    LLVMValueRef lead = ll_intrin(l, "llvm.cttz", &v32, 1, args, 2);
    if (o[0].kind != PTX_OPND_SINK)
        zn_dst(l, &o[0], PTX_T_B32, lead);
    zn_dst_reg(l, o[0].reg2, PTX_T_PRED, LLVMBuildICmp(l->b, LLVMIntEQ, lead, l->lane_ids, ""));
}

void zn_lower_warp(zn_lfn *l, const ptx_ins *ins)
{
    switch (ins->op) {
    case PTX_OP_shfl: shfl(l, ins); return;
    case PTX_OP_vote: vote(l, ins); return;
    case PTX_OP_match: match(l, ins); return;
    case PTX_OP_redux: redux(l, ins); return;
    case PTX_OP_elect: elect(l, ins); return;
    case PTX_OP_activemask:
        zn_dst(l, &ins->opnds[0], PTX_T_B32, ll_splat(l, ll_mask_to_i32(l, l->emask)));
        return;
    default:
        zn_lerr_unsupported(l);
    }
}

/* ---- barriers -------------------------------------------------------------- */

/* a uniform operand: lane 0 of the vector */
static LLVMValueRef uniform_u32(zn_lfn *l, const ptx_opnd *o)
{
    LLVMValueRef v = zn_src(l, o, PTX_T_U32);
    return LLVMBuildExtractElement(l->b, v, LLVMConstInt(l->m->t_i32, 0, 0), "");
}

static void call_barrier(zn_lfn *l, LLVMValueRef id, LLVMValueRef count, unsigned mode)
{
    zn_call_barrier_rt(l, id, count, mode); /* zn_lower_coro.c */
}

static void bar_red(zn_lfn *l, const ptx_ins *ins, LLVMValueRef id, LLVMValueRef count)
{
    zn_lmod *m = l->m;
    LLVMBuilderRef b = l->b;
    const ptx_opnd *o = ins->opnds;
    LLVMValueRef c = zn_src(l, &o[ins->nopnds - 1], PTX_T_PRED);
    LLVMValueRef sh = ll_load_field(l, m->t_block, l->block, ZN_BLOCK_FIELD_SHARED, m->t_ptr);
    LLVMValueRef i0 = LLVMConstInt(m->t_i64, (uint64_t)m->bar_red_off, 0);
    LLVMValueRef i1 = LLVMConstInt(m->t_i64, (uint64_t)m->bar_red_off + 4, 0);
    LLVMValueRef pt = LLVMBuildGEP2(b, m->t_i8, sh, &i0, 1, "");
    LLVMValueRef pf = LLVMBuildGEP2(b, m->t_i8, sh, &i1, 1, "");
    LLVMValueRef z = LLVMConstInt(m->t_i32, 0, 0);
    /* 1: nobody still reads the previous result; 2: counters are zero */
    call_barrier(l, id, count, 0);
    LLVMBuildStore(b, z, pt);
    LLVMBuildStore(b, z, pf);
    call_barrier(l, id, count, 0);
    LLVMValueRef on = ll_mask_to_i32(l, LLVMBuildAnd(b, c, l->emask, ""));
    LLVMValueRef off = ll_mask_to_i32(l, LLVMBuildAnd(b, LLVMBuildNot(b, c, ""), l->emask, ""));
    LLVMAtomicOrdering ord = LLVMAtomicOrderingSequentiallyConsistent;
    LLVMBuildAtomicRMW(b, LLVMAtomicRMWBinOpAdd, pt, ll_intrin1(l, "llvm.ctpop", on), ord, 0);
    LLVMBuildAtomicRMW(b, LLVMAtomicRMWBinOpAdd, pf, ll_intrin1(l, "llvm.ctpop", off), ord, 0);
    call_barrier(l, id, count, 0);
    LLVMValueRef nt = LLVMBuildLoad2(b, m->t_i32, pt, "");
    LLVMValueRef nf = LLVMBuildLoad2(b, m->t_i32, pf, "");
    if (ins->flags & PTX_F(popc_f)) {
        zn_dst(l, &o[0], PTX_T_U32, ll_splat(l, nt));
        return;
    }
    LLVMValueRef r = ins->subop == PTX_SUB_AND ? LLVMBuildICmp(b, LLVMIntEQ, nf, z, "")
                                               : LLVMBuildICmp(b, LLVMIntNE, nt, z, "");
    zn_dst(l, &o[0], PTX_T_PRED, ll_splat(l, r));
}

/* Warps between barriers. On a GPU a block's warps run side by side, so
 * every warp's first shared-memory store after a barrier (typically an
 * initialisation: buf[tid] = x) lands long before any warp's later stores
 * (results written after real work). Zinc runs one warp up to its next
 * barrier before the next warp starts, so a later warp's initialisation
 * could overwrite an earlier warp's results: a race on paper that GPU
 * timing hides, and that kernels rely on (ggml's flash-attention vector
 * kernel fills KQ[tid] and then lane 0 of each warp writes scores into
 * other warps' slots, with no barrier between: wrong results for head size
 * 64 before this). So in a function with block barriers a warp's first
 * shared store after a barrier yields to the block's next warp (which
 * runs to its own first store), emulating that order; later stores do
 * not yield. */
static bool has_block_barrier(const ptx_func *f)
{
    for (uint32_t i = 0; i < f->nins; i++)
        if (zn_ins_is_block_barrier(&f->ins[i]))
            return true;
    return false;
}

void zn_stagger_prologue(zn_lfn *l)
{
    if (!has_block_barrier(l->f))
        return;
    l->seg_store_slot = LLVMBuildAlloca(l->b, l->m->t_i8, "seg.stored");
    LLVMBuildStore(l->b, LLVMConstInt(l->m->t_i8, 0, 0), l->seg_store_slot);
}

/* Whether the warp's path from the instruction after `at` ends its
 * segment before any store, branch or call: at a block barrier (*bar), the
 * other warps run anyway, so a yield would only cost a switch (a
 * reduction's `sdata[tid] = v; __syncthreads();`). With `onward` (the
 * store's block runs with all the warp's live lanes) unguarded forward
 * branches are followed and an unguarded `exit` or the kernel's `ret` ends
 * it too (`if (warp > 0) { part[warp] = v; return; } __syncthreads();`:
 * the yield cost a suspend and a resume, 4-warp blocks 1.27 -> 0.84 ms
 * per 32000); a guarded branch may split the lanes, and lanes left behind
 * would store later. */
static bool segment_ends(const ptx_func *f, uint32_t at, bool onward, uint32_t *bar)
{
    uint32_t i = at + 1;
    for (unsigned n = 0; i < f->nins && n < 64; n++, i++) {
        const ptx_ins *ins = &f->ins[i];
        *bar = i;
        if (zn_ins_is_block_barrier(ins))
            return !(ins->flags & PTX_F(arrive));
        switch (ins->op) {
        case PTX_OP_exit:
            return onward && ins->guard_reg < 0;
        case PTX_OP_ret:
            return onward && ins->guard_reg < 0 && f->is_entry;
        case PTX_OP_bra: {
            uint32_t to = zn_bra_target(f, ins);
            if (!onward || ins->guard_reg >= 0 || to == UINT32_MAX || to <= i)
                return false;
            i = to - 1;   /* the loop's i++ lands on it */
            continue;
        }
        case PTX_OP_st: case PTX_OP_atom: case PTX_OP_red: case PTX_OP_brx:
        case PTX_OP_call: case PTX_OP_trap: case PTX_OP_mbarrier: case PTX_OP_cp:
        case PTX_OP_nanosleep:
            return false;
        default:
            continue;
        }
    }
    return false;
}

/* the path from `at` reaches a block barrier straight on, *bar */
static bool barrier_follows(const ptx_func *f, uint32_t at, uint32_t *bar)
{
    return segment_ends(f, at, false, bar);
}

static bool shared_access(const ptx_ins *ins, ptx_op op)
{
    return ins->op == op && ins->space == PTX_SPACE_SHARED;
}

/* Shared reads early in a segment, and a store that ends it (a barrier
 * follows) after real work: llm.c's fp32 softmax backward keeps a block
 * sum per row in `acc[warp] = sum; sync; total = reduce(acc[lane]);
 * <loops over the row>` and the next row's `acc[warp] = sum` comes with no
 * barrier between. On a GPU every warp reads acc right after the barrier,
 * long before any warp's next store; Zinc ran warp 0 through its next
 * store before warp 1's reads (the 124M-shaped test_gpt2fp32cu's loss went
 * off by 0.015). Such a store yields first, when it is the warp's first
 * shared store of the segment, so every warp makes its reads before it.
 * "Real work" is a loop between the reads and the store, in program order
 * (nvcc unrolls llm.c's row loop) or around them (the store at the top of
 * the loop body, the reads after the barrier below it); a reduction's
 * `s[t] += s[t + k]; sync` has its reads next to the store and keeps
 * going without a yield. */

/* in program order: a shared load, a loop, the store at `at`, with no
 * barrier before it (looked at over the last 4096 instructions) */
static bool read_then_loop(const ptx_func *f, uint32_t at)
{
    bool loop = false;
    for (uint32_t j = at, seen = 0; j-- > 0 && seen < 4096; seen++) {
        const ptx_ins *ins = &f->ins[j];
        uint32_t target;
        if (zn_ins_is_block_barrier(ins))
            return false;
        if (zn_ins_backward_branch(f, j, &target))
            loop = true;
        else if (loop && shared_access(ins, PTX_OP_ld))
            return true;
    }
    return false;
}

/* the store at `at`, the first shared store of a loop body, and the
 * barrier after it at `bar`, with shared reads between that barrier and
 * the loop's backward branch */
static bool read_through_loop(const ptx_func *f, uint32_t at, uint32_t bar)
{
    for (uint32_t x = bar + 1; x < f->nins; x++) {
        uint32_t head;
        if (!zn_ins_backward_branch(f, x, &head) || head > at)
            continue;
        bool first = true, reads = false;
        for (uint32_t j = head; j < at; j++)
            first &= !shared_access(&f->ins[j], PTX_OP_st);
        for (uint32_t j = bar + 1; j < x; j++)
            reads |= shared_access(&f->ins[j], PTX_OP_ld);
        if (first && reads)
            return true;
    }
    return false;
}

/* the first shared store after a barrier (seg_store_slot clear) yields */
static void stagger_yield(zn_lfn *l)
{
    zn_lmod *m = l->m;
    LLVMValueRef done = LLVMBuildLoad2(l->b, m->t_i8, l->seg_store_slot, "");
    LLVMValueRef first = LLVMBuildAnd(l->b, LLVMBuildICmp(l->b, LLVMIntEQ, done,
                                                          LLVMConstInt(m->t_i8, 0, 0), ""),
                                      ll_any(l, l->emask), "");
    LLVMBasicBlockRef go = LLVMAppendBasicBlockInContext(m->ctx, l->fn, "stagger");
    LLVMBasicBlockRef cont = LLVMAppendBasicBlockInContext(m->ctx, l->fn, "stagger.done");
    LLVMBuildCondBr(l->b, first, go, cont);
    LLVMPositionBuilderAtEnd(l->b, go);
    LLVMBuildStore(l->b, LLVMConstInt(m->t_i8, 1, 0), l->seg_store_slot);
    zn_lower_yield(l);
    LLVMBuildBr(l->b, cont);
    LLVMPositionBuilderAtEnd(l->b, cont);
}

void zn_shared_store_stagger(zn_lfn *l)
{
    uint32_t at = (uint32_t)(l->ins - l->f->ins), bar;
    bool onward = l->blk_conv && l->blk_conv[l->cur_block];
    if (l->seg_store_slot && !segment_ends(l->f, at, onward, &bar))
        stagger_yield(l);
}

void zn_shared_store_stagger_before(zn_lfn *l)
{
    uint32_t at = (uint32_t)(l->ins - l->f->ins), bar;
    if (l->seg_store_slot && barrier_follows(l->f, at, &bar) &&
        (read_then_loop(l->f, at) || read_through_loop(l->f, at, bar)))
        stagger_yield(l);
}

static void stagger_reset(zn_lfn *l)
{
    if (l->seg_store_slot)
        LLVMBuildStore(l->b, LLVMConstInt(l->m->t_i8, 0, 0), l->seg_store_slot);
}

/* Warps that leave at a barrier. A warp whose every lane exits straight
 * after a whole-block barrier (nothing but pure instructions, then a
 * branch to an exit, or an exit) would wait only to return: ggml's
 * mul_mat_vec_q and reduce_warp's `__syncthreads(); if (warp != 0)
 * return;`. Such a warp returns at the barrier instead: the executor
 * counts a finished warp as arrived at whole-block barriers (as a GPU
 * counts exited threads), and it has no side effect left, so the block
 * computes the same while the warp is never suspended and resumed (two
 * fiber switches per warp per block). The pure instructions between the
 * barrier and the branch (nvcc computes `warp != 0` there) are lowered
 * before the barrier: they read only registers, which a barrier does not
 * change, and every lane runs them either way. Only in a kernel (a .func's
 * return leads back to its caller), in a block that all live lanes run
 * (nobody waits elsewhere), for an unguarded bar.sync/barrier.sync without
 * a thread count. Returns the instruction whose guard says which lanes
 * exit (an unguarded one: all), or NULL. */
static const ptx_ins *exit_after_barrier(const zn_lfn *l, const ptx_ins *bar, unsigned nargs)
{
    const ptx_func *f = l->f;
    uint32_t at = (uint32_t)(bar - f->ins), k = l->block_of_ins[at];
    if (!l->is_entry || !l->blk_conv || !l->blk_conv[k] || bar->guard_reg >= 0 ||
        nargs > 1 || (bar->flags & (PTX_F(arrive) | PTX_F(red_f))))
        return NULL;
    uint32_t end = l->block_start[k + 1];
    for (uint32_t j = at + 1; j < end; j++) {
        const ptx_ins *ins = &f->ins[j];
        if (zn_op_is_pure(ins->op) && !(ins->flags & PTX_F(cc)))
            continue;
        bool leaves;
        if (ins->op == PTX_OP_ret || ins->op == PTX_OP_exit) {
            leaves = true;
        } else if (ins->op == PTX_OP_bra && ins->nopnds && ins->opnds[0].kind == PTX_OPND_LABEL &&
                   ins->opnds[0].label >= 0 && (uint32_t)ins->opnds[0].label < f->nlabels) {
            uint32_t t = l->block_of_ins[f->labels[ins->opnds[0].label].ins];
            leaves = zn_block_is_exit(l, t);
        } else {
            return NULL;
        }
        return leaves ? ins : NULL;
    }
    return NULL;
}

bool zn_bar_leaves(const zn_lfn *l, const ptx_ins *bar)
{
    /* bar.sync/barrier.sync's operands: the id, then a thread count */
    return exit_after_barrier(l, bar, bar->nopnds) != NULL;
}

/* Lowers the pure instructions between the barrier and `leave` now, then
 * returns when every running lane leaves (exit_after_barrier); else the
 * code goes on to the barrier. */
static void leave_at_barrier(zn_lfn *l, const ptx_ins *bar, const ptx_ins *leave)
{
    zn_lmod *m = l->m;
    for (const ptx_ins *p = bar + 1; p < leave && !m->failed; p++) {
        l->ins = p;
        l->emask = zn_guard_mask(l, p);
        zn_lower_ins(l, p);
        zn_window_forget(l, p);
    }
    l->ins = bar;
    l->emask = l->mask;     /* the barrier is unguarded */
    l->hoist_end = (uint32_t)(leave - l->f->ins);
    LLVMValueRef go = leave->guard_reg < 0 ? NULL : zn_guard_mask(l, leave);
    LLVMBasicBlockRef ex = LLVMAppendBasicBlockInContext(m->ctx, l->fn, "bar.leave");
    LLVMBasicBlockRef stay = LLVMAppendBasicBlockInContext(m->ctx, l->fn, "bar.stay");
    LLVMValueRef all = go ? LLVMBuildICmp(l->b, LLVMIntEQ, ll_mask_to_i32(l, go),
                                          ll_mask_to_i32(l, l->mask), "")
                          : LLVMConstInt(m->t_i1, 1, 0);
    LLVMBuildCondBr(l->b, all, ex, stay);
    LLVMPositionBuilderAtEnd(l->b, ex);
    zn_return_status(l, LLVMConstInt(m->t_i32, ZN_KSTATUS_OK, 0));
    LLVMPositionBuilderAtEnd(l->b, stay);
}

void zn_lower_bar(zn_lfn *l, const ptx_ins *ins)
{
    zn_lmod *m = l->m;
    const ptx_opnd *o = ins->opnds;
    bool red = ins->flags & PTX_F(red_f);
    if (ins->flags & PTX_F(warp)) {
        /* bar.warp.sync: the lanes of a warp run in lock step already,
         * on one thread: its memory ordering is the compiler's alone (an
         * mfence here cost CUB's warp scans) */
        LLVMBuildFence(l->b, LLVMAtomicOrderingSequentiallyConsistent, 1, "");
        return;
    }
    unsigned first = red ? 1 : 0;
    unsigned nargs = ins->nopnds - first - (red ? 1 : 0);
    LLVMValueRef id = nargs >= 1 ? uniform_u32(l, &o[first]) : LLVMConstInt(m->t_i32, 0, 0);
    LLVMValueRef count = nargs >= 2 ? uniform_u32(l, &o[first + 1])
                                    : LLVMConstInt(m->t_i32, 0, 0);
    if (red) {
        if (m->bar_red_off < 0) {
            zn_lerr(l, "internal: no scratch for bar.red");
            return;
        }
        bar_red(l, ins, id, count);
        stagger_reset(l);
        return;
    }
    if (zn_park_at(l, l->cur_block) && ins == &l->f->ins[l->block_start[l->cur_block]])
        zn_park_at_barrier(l);  /* zn_lower_park.c */
    const ptx_ins *leave = exit_after_barrier(l, ins, nargs);
    if (leave)
        leave_at_barrier(l, ins, leave);
    LLVMBasicBlockRef go = LLVMAppendBasicBlockInContext(m->ctx, l->fn, "bar");
    LLVMBasicBlockRef cont = LLVMAppendBasicBlockInContext(m->ctx, l->fn, "bar.done");
    LLVMBuildCondBr(l->b, ll_any(l, l->emask), go, cont);
    LLVMPositionBuilderAtEnd(l->b, go);
    if (!zn_lazy_barrier_owe(l, ins))   /* zn_lower_lazybar.c */
        call_barrier(l, id, count, (ins->flags & PTX_F(arrive)) ? 1 : 0);
    stagger_reset(l);
    LLVMBuildBr(l->b, cont);
    LLVMPositionBuilderAtEnd(l->b, cont);
}
