/* zn_lower_lanecmp.c: branches on a lane-affine integer against a uniform
 * one, decided on scalars where every lane goes the same way.
 *
 * `setp.lt.u32 %p, %t, %s; @%p bra L;` (a few plain instructions may lie
 * between), with %t lane-affine (lane l holds t0 + l * S: the thread
 * index and what add/mul/shl/cvt make of it, proven by zn_lower_affine.c's
 * walk) and %s the same in every lane (a uniform register, an immediate):
 * when no lane's t0 + l * S wraps, the warp's 32 values lie between t0
 * and t0 + 31 S, so "every lane passes" is one scalar compare of the right
 * end and "no lane passes" one of the other; for eq, "no lane" is s
 * outside that range (`if (tid == 0)` in every warp but the first), and
 * ne mirrors it. Both tests are sufficient for any mask (the active lanes
 * are some of the 32). Two sides the same in a warp (%tid.y when
 * blockDim.x is a multiple of 32, in code for unknown block shapes) are
 * decided exactly by one compare. A predicate that or/and/xor/not.pred
 * compute from such setps (`if (x >= w || y >= h) return;`, a stencil's
 * border test) is decided through the tree: or holds in every lane when
 * one side does and in none when neither side holds anywhere, and so on;
 * compares no scalar decides count as unknown.
 *
 * zn_goto takes the branch's uniform paths on these tests, before any
 * vector work; only where the lanes may split are the setps lowered again
 * and the vector mask tested as before, so LLVM keeps the vector compare
 * off the uniform paths. A block reduction's warps whose lanes all skip
 * `if (t < s) sh[t] += sh[t + s]` for the rest of the halvings of s ran
 * that compare, a mask move and a test per round: 17 instructions, now 11
 * scalar ones (bench/reduce's tree 12-16 % faster per block). Facts that
 * fail at run time (blockDim.x not a multiple of 32, a wrap inside the
 * warp) make both tests false. ZINC_NO_LANECMP=1 turns this off (A/B
 * runs; in the kernel cache key). */
#include "zn_lower.h"
#include "zn_pipeline.h"

#include <stdlib.h>

#include "util/zn_log.h"

bool zn_lanecmp_disabled(void)
{
    const char *s = getenv("ZINC_NO_LANECMP");
    return s && *s && *s != '0';
}

/* c with the affine operand on the left: `u < t` is `t > u` */
static ptx_cmp mirror(ptx_cmp c)
{
    switch (c) {
    case PTX_CMP_LT: return PTX_CMP_GT;
    case PTX_CMP_LE: return PTX_CMP_GE;
    case PTX_CMP_GT: return PTX_CMP_LT;
    case PTX_CMP_GE: return PTX_CMP_LE;
    case PTX_CMP_LO: return PTX_CMP_HI;
    case PTX_CMP_LS: return PTX_CMP_HS;
    case PTX_CMP_HI: return PTX_CMP_LO;
    case PTX_CMP_HS: return PTX_CMP_LS;
    default: return c;
    }
}

/* an integer compare this decides, and whether it orders signed values
 * (eq and ne test a range: either order, as long as the wrap test uses
 * the same) */
static bool decidable(ptx_cmp c, ptx_type t, bool *sign)
{
    bool s = ptx_type_is_signed(t);
    switch (c) {
    case PTX_CMP_LT: case PTX_CMP_LE: case PTX_CMP_GT: case PTX_CMP_GE:
    case PTX_CMP_EQ: case PTX_CMP_NE:
        *sign = s;
        return true;
    case PTX_CMP_LO: case PTX_CMP_LS: case PTX_CMP_HI: case PTX_CMP_HS:
        *sign = false;
        return true;
    default:
        return false;
    }
}

/* An operand's lane-affine form as instruction `at` reads it: imm or
 * register; *s 0 for one value in every lane. */
static bool opnd_lin(zn_lfn *l, const ptx_opnd *o, unsigned bits, uint32_t at, LLVMValueRef *v0,
                     int64_t *s, LLVMValueRef *cond)
{
    if (o->kind == PTX_OPND_IMM) {
        *v0 = LLVMConstInt(LLVMIntTypeInContext(l->m->ctx, bits), (uint64_t)o->ival, 0);
        *s = 0;
        *cond = NULL;
        return true;
    }
    return o->kind == PTX_OPND_REG && o->reg2 < 0 && !o->pair &&
           zn_affine_reg_lin(l, o->reg, at, v0, s, cond);
}

static LLVMValueRef and_facts(zn_lfn *l, LLVMValueRef a, LLVMValueRef b)
{
    return !a ? b : !b ? a : LLVMBuildAnd(l->b, a, b, "");
}

/* ZN_CMP_BACK: how far before the branch the instructions computing its
 * predicate may be (nvcc puts a mov or two between a setp and its branch,
 * and a bounds test's or.pred tree may start before a load and an
 * address: `setp.eq.s32 %p4, %r2, 0` 14 instructions before `@%p10 bra`
 * in a 5-point stencil) */
#define ZN_CMP_BACK 24

/* The predicate tree of one branch: the setps and or/and/xor/not.pred that
 * compute its guard, in the branch's block, each the last write of its
 * register before the branch with nothing after it (until the branch)
 * writing its sources, so each computes from its sources' values at the
 * branch what its register holds there. */
typedef struct lc_tree {
    zn_lfn *l;
    uint32_t at;        /* the branch */
    zn_lanecmp *out;    /* ins[]: the nodes, lowered again where lanes split */
    unsigned decided;   /* setps decided on scalars */
} lc_tree;

/* the registers an instruction reads (its operands after the first) */
static void sources(const ptx_ins *in, int32_t q[3])
{
    q[0] = q[1] = q[2] = -1;
    for (unsigned a = 1, n = 0; a < in->nopnds && n < 3; a++)
        if (in->opnds[a].kind == PTX_OPND_REG)
            q[n++] = in->opnds[a].reg;
}

/* The instruction that last writes reg before the branch, when it lies in
 * the branch's block within ZN_CMP_BACK, nothing between branches, calls
 * or waits, and nothing after it writes what it reads. NULL otherwise. */
static const ptx_ins *def_before(const lc_tree *t, int32_t reg)
{
    const zn_lfn *l = t->l;
    const ptx_func *f = l->f;
    uint32_t i = t->at;
    int32_t r[3] = {reg, -1, -1};
    for (uint32_t k = i; k-- > 0 && i - k <= ZN_CMP_BACK;) {
        const ptx_ins *in = &f->ins[k];
        if (l->block_of_ins[k] != l->block_of_ins[i] || k < l->hoist_end ||
            in->op == PTX_OP_call ||
            (ptx_op_table[in->op].flags & (PTX_OF_BRANCH | PTX_OF_CONVERGENT)))
            return NULL;
        if (!zn_ins_touches(in, r, 3, false))
            continue;
        int32_t q[3];
        sources(in, q);
        for (uint32_t j = k + 1; j < i; j++)
            if (zn_ins_touches(&f->ins[j], q, 3, false))
                return NULL;
        return in;
    }
    return NULL;
}

static LLVMValueRef i1(zn_lfn *l, bool v)
{
    return LLVMConstInt(l->m->t_i1, v, 0);
}

/* A setp's scalar tests, its operands read at the branch (def_before
 * checked that they are what the setp read). */
static bool decide_setp(zn_lfn *l, const ptx_ins *sp, uint32_t i, LLVMValueRef *all_out,
                        LLVMValueRef *none_out)
{
    bool sign;
    if (sp->nopnds != 3 || sp->opnds[0].pair || sp->subop == PTX_SUB_AND ||
        sp->subop == PTX_SUB_OR || sp->subop == PTX_SUB_XOR ||
        !decidable(sp->cmp, sp->type[0], &sign))
        return false;
    ptx_type t = sp->type[0];
    unsigned bits = t == PTX_T_U32 || t == PTX_T_S32 || t == PTX_T_B32   ? 32
                    : t == PTX_T_U64 || t == PTX_T_S64 || t == PTX_T_B64 ? 64
                                                                         : 0;
    if (!bits)
        return false;
    LLVMValueRef a0, b0, fa, fb;
    int64_t sa, sb;
    if (!opnd_lin(l, &sp->opnds[1], bits, i, &a0, &sa, &fa) ||
        !opnd_lin(l, &sp->opnds[2], bits, i, &b0, &sb, &fb) || (sa != 0 && sb != 0) ||
        ll_bits(LLVMTypeOf(a0)) != bits || ll_bits(LLVMTypeOf(b0)) != bits)
        return false;   /* at most one side lane-affine, both as wide as t */
    /* flat: both sides the same in every lane under the facts (%tid.y
     * with blockDim.x a multiple of 32): one compare decides exactly */
    bool flat = sa == 0 && sb == 0;
    ptx_cmp c = sp->cmp;
    if (sa == 0 && !flat) {     /* the affine one on the left */
        LLVMValueRef x = a0;
        a0 = b0, b0 = x;
        sa = sb;
        c = mirror(c);
    }
    /* the last lane's value t0 + 31 S must not wrap: the compare then
     * orders the 32 values as the integers they are */
    int64_t lim = (int64_t)1 << (bits - 2);
    if (sa <= -lim / 31 || sa >= lim / 31)
        return false;
    zn_lmod *m = l->m;
    LLVMBuilderRef b = l->b;
    LLVMTypeRef it = LLVMIntTypeInContext(m->ctx, bits);
    LLVMValueRef lo = a0, hi = a0, fits = NULL;
    if (!flat) {
        LLVMValueRef span = LLVMConstInt(it, (uint64_t)(31 * (sa < 0 ? -sa : sa)), 0);
        const char *op = sign ? (sa > 0 ? "llvm.sadd.with.overflow" : "llvm.ssub.with.overflow")
                              : (sa > 0 ? "llvm.uadd.with.overflow" : "llvm.usub.with.overflow");
        LLVMValueRef args[2] = {a0, span};
        LLVMValueRef r = ll_intrin(l, op, &it, 1, args, 2);
        LLVMValueRef last = LLVMBuildExtractValue(b, r, 0, "lane31");
        fits = LLVMBuildNot(b, LLVMBuildExtractValue(b, r, 1, ""), "");
        lo = sa > 0 ? a0 : last;
        hi = sa > 0 ? last : a0;
    }
    LLVMIntPredicate lt = sign ? LLVMIntSLT : LLVMIntULT, le = sign ? LLVMIntSLE : LLVMIntULE;
    LLVMIntPredicate gt = sign ? LLVMIntSGT : LLVMIntUGT, ge = sign ? LLVMIntSGE : LLVMIntUGE;
    LLVMValueRef all, none;
    switch (c) {
    case PTX_CMP_LT: case PTX_CMP_LO:
        all = LLVMBuildICmp(b, lt, hi, b0, "");
        none = LLVMBuildICmp(b, ge, lo, b0, "");
        break;
    case PTX_CMP_LE: case PTX_CMP_LS:
        all = LLVMBuildICmp(b, le, hi, b0, "");
        none = LLVMBuildICmp(b, gt, lo, b0, "");
        break;
    case PTX_CMP_GT: case PTX_CMP_HI:
        all = LLVMBuildICmp(b, gt, lo, b0, "");
        none = LLVMBuildICmp(b, le, hi, b0, "");
        break;
    case PTX_CMP_EQ: case PTX_CMP_NE: {
        /* 32 different values: never all equal; none when s is outside
         * them (`if (tid == 0)` in every warp but the first). Flat: one
         * value, equal or not. */
        LLVMValueRef out = LLVMBuildOr(b, LLVMBuildICmp(b, lt, b0, lo, ""),
                                       LLVMBuildICmp(b, gt, b0, hi, ""), "");
        LLVMValueRef in = flat ? LLVMBuildNot(b, out, "") : i1(l, false);
        all = c == PTX_CMP_NE ? out : in;
        none = c == PTX_CMP_NE ? in : out;
        break;
    }
    default:    /* GE, HS */
        all = LLVMBuildICmp(b, ge, lo, b0, "");
        none = LLVMBuildICmp(b, lt, hi, b0, "");
        break;
    }
    LLVMValueRef facts = and_facts(l, and_facts(l, fa, fb), fits);
    if (!facts)
        facts = i1(l, true);
    *all_out = LLVMBuildAnd(b, all, facts, "lanes.all");
    *none_out = LLVMBuildAnd(b, none, facts, "lanes.none");
    return true;
}

/* Scalar tests that predicate `reg` holds in every lane / in none at the
 * branch. A predicate not computed by such a tree is unknown (both
 * false); every instruction of the tree is kept in t->ins to be lowered
 * again where the lanes split. or: every lane when one side holds in
 * every lane, none when both hold in none; and mirrors it; not swaps;
 * xor: every lane when one side holds everywhere and the other nowhere. */
static void decide(lc_tree *t, int32_t reg, LLVMValueRef *all, LLVMValueRef *none)
{
    zn_lfn *l = t->l;
    zn_lanecmp *o = t->out;
    LLVMBuilderRef b = l->b;
    *all = *none = i1(l, false);
    const ptx_ins *in = def_before(t, reg);
    /* every node recursed into is kept first, so the cap bounds the depth */
    if (!in || in->guard_reg >= 0 || o->n == ZN_LANECMP_NODES)
        return;
    for (unsigned k = 0; k < o->n; k++)
        if (o->ins[k] == in)
            return;     /* read twice: decided once is enough for a test */
    if (in->op == PTX_OP_setp) {
        if (decide_setp(l, in, t->at, all, none)) {
            o->ins[o->n++] = in;
            t->decided++;
        }
        return;
    }
    bool logic = (in->op == PTX_OP_or || in->op == PTX_OP_and || in->op == PTX_OP_xor ||
                  in->op == PTX_OP_not) &&
                 in->type[0] == PTX_T_PRED && !in->opnds[0].pair;
    /* (not one that reads what it writes: lowered again, `not %p, %p`
     * would flip it) */
    for (unsigned a = 1; logic && a < in->nopnds; a++)
        logic = in->opnds[a].kind == PTX_OPND_REG && in->opnds[a].reg2 < 0 &&
                !in->opnds[a].pair && !in->opnds[a].neg && in->opnds[a].reg != reg;
    if (!logic)
        return;
    o->ins[o->n++] = in;
    LLVMValueRef a_all, a_none, b_all, b_none;
    decide(t, in->opnds[1].reg, &a_all, &a_none);
    if (in->op == PTX_OP_not) {
        *all = a_none;
        *none = a_all;
        return;
    }
    decide(t, in->opnds[2].reg, &b_all, &b_none);
    if (in->op == PTX_OP_xor) {     /* one side everywhere, the other nowhere */
        *all = LLVMBuildOr(b, LLVMBuildAnd(b, a_all, b_none, ""),
                           LLVMBuildAnd(b, a_none, b_all, ""), "");
        *none = LLVMBuildOr(b, LLVMBuildAnd(b, a_all, b_all, ""),
                            LLVMBuildAnd(b, a_none, b_none, ""), "");
        return;
    }
    bool or = in->op == PTX_OP_or;
    *all = or ? LLVMBuildOr(b, a_all, b_all, "") : LLVMBuildAnd(b, a_all, b_all, "");
    *none = or ? LLVMBuildAnd(b, a_none, b_none, "") : LLVMBuildOr(b, a_none, b_none, "");
}

static int by_index(const void *a, const void *b)
{
    const ptx_ins *x = *(const ptx_ins *const *)a, *y = *(const ptx_ins *const *)b;
    return (x > y) - (x < y);
}

bool zn_lanecmp_branch(zn_lfn *l, const ptx_ins *bra, zn_lanecmp *out)
{
    const ptx_func *f = l->f;
    if (zn_lanecmp_disabled() || bra->guard_reg < 0 || bra <= f->ins || bra >= f->ins + f->nins)
        return false;
    out->n = 0;
    lc_tree t = {.l = l, .at = (uint32_t)(bra - f->ins), .out = out};
    LLVMValueRef all, none;
    decide(&t, bra->guard_reg, &all, &none);
    if (!t.decided)
        return false;
    qsort(out->ins, out->n, sizeof out->ins[0], by_index);
    zn_log(ZN_LOG_DEBUG, "lanecmp: %s: the branch at PTX line %u tests scalars first (%u "
           "compares decided, %u instructions)", f->name, bra->line, t.decided, out->n);
    out->all = bra->guard_neg ? none : all;
    out->none = bra->guard_neg ? all : none;
    return true;
}

LLVMValueRef zn_lanecmp_taken(zn_lfn *l, const zn_lanecmp *lc)
{
    const ptx_ins *bra = l->ins;
    for (unsigned k = 0; k < lc->n; k++) {  /* in program order */
        l->ins = lc->ins[k];
        l->emask = zn_guard_mask(l, lc->ins[k]);
        zn_lower_ins(l, lc->ins[k]);
    }
    l->ins = bra;
    l->emask = zn_guard_mask(l, bra);
    return l->emask;
}
