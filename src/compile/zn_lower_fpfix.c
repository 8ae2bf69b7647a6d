/* zn_lower_fpfix.c: the parts of PTX float semantics that LLVM's
 * operations do not give by themselves: the canonical NaN result
 * (f32 0x7fffffff, f16/bf16 0x7fff; NVIDIA hardware never propagates a
 * payload), min/max that order -0 below +0 (and .NaN, .xorsign.abs), and
 * round-to-odd narrowing used to round f16/bf16 results only once. */
#include <stdlib.h>
#include "zn_lower.h"

LLVMValueRef zn_canon_nan(zn_lfn *l, LLVMValueRef v)
{
    LLVMTypeRef vt = LLVMTypeOf(v), et = ll_elem(vt);
    if (et != l->m->t_f32)
        return v; /* f64: the payload is not defined by the ISA */
    LLVMValueRef nan = LLVMBuildFCmp(l->b, LLVMRealUNO, v, v, "");
    LLVMValueRef c = LLVMBuildBitCast(l->b, ll_const_vec(l->m->t_i32, 0x7fffffff), vt, "");
    return LLVMBuildSelect(l->b, nan, c, v, "");
}

/* Canonicalisation elided per register (issue #9). An f32 NaN reaching
 * add/sub/mul/fma/mad gives a NaN, which that instruction canonicalises
 * itself: whatever payload the operand's NaN had, the consumer's result is
 * 0x7fffffff. So a register whose every read in the function is a source of
 * such an instruction does not need its own canonicalisation (sgemm's chain
 * of FMAs, each feeding only the next one's addend). Any other read (a
 * store, a compare, min/max, mov, a bit operation, a call argument, a .reg
 * result of a .func) keeps it, whichever definition reaches that read. */
static bool canon_consumer(const ptx_ins *ins)
{
    if (ins->type[0] != PTX_T_F32 || (ins->rnd != PTX_RND_NONE && ins->rnd != PTX_RND_RN))
        return false; /* directed rounding goes through other arithmetic */
    switch (ins->op) {
    case PTX_OP_add: case PTX_OP_sub: case PTX_OP_mul:
        return ins->nopnds == 3;
    case PTX_OP_fma: case PTX_OP_mad:
        return ins->nopnds == 4;
    default:
        return false;
    }
}

static void other_read(int32_t r, void *ud)
{
    zn_lfn *l = ud;
    if (r >= 0 && (uint32_t)r < l->f->nregs)
        l->reg_nan_free[r] = false;
}

/* An instruction that only moves a 32-bit register's bits to its
 * destination: mov.b32/f32 between registers, and shfl's value (each lane
 * gets some lane's bits). A NaN read through it reaches only what reads
 * the destination, so the read is harmless when the destination is
 * NaN-free too: a warp reduction's `v += __shfl_down_sync(v, o)` chain
 * (mov to .b32, shfl, mov back, add) keeps one canonicalisation at its end.
 * The index of the moved source operand, or -1. */
int zn_moved_src(const ptx_ins *ins)
{
    if (ins->nopnds < 2 || ins->opnds[0].kind != PTX_OPND_REG || ins->opnds[0].reg < 0 ||
        ins->opnds[1].kind != PTX_OPND_REG || ins->opnds[1].reg2 >= 0 ||
        ins->guard_reg >= 0)
        return -1;
    ptx_type t = ins->type[0];
    if (t != PTX_T_B32 && t != PTX_T_F32 && t != PTX_T_U32 && t != PTX_T_S32)
        return -1;
    if (ins->op == PTX_OP_mov && ins->nopnds == 2 && ins->opnds[0].reg2 < 0)
        return 1;
    if (ins->op == PTX_OP_shfl)
        return 1;
    return -1;
}

bool zn_cvt_to_f32(const ptx_ins *ins)
{
    return ins->op == PTX_OP_cvt && ins->type[0] == PTX_T_F32 && ins->nopnds >= 2 &&
           ins->opnds[0].kind == PTX_OPND_REG && ins->opnds[0].reg2 < 0;
}

static uint32_t nan_free_count(const zn_lfn *l)
{
    uint32_t n = 0;
    for (uint32_t r = 0; r < l->f->nregs; r++)
        n += l->reg_nan_free[r];
    return n;
}

/* One pass over the reads. */
static void nan_free_pass(zn_lfn *l)
{
    const ptx_func *f = l->f;
    for (uint32_t i = 0; i < f->nins; i++) {
        const ptx_ins *ins = &f->ins[i];
        bool cons = canon_consumer(ins);
        int mv = zn_moved_src(ins);
        /* a consumer's plain register sources are the reads allowed; every
         * other register an instruction names counts as another read (its
         * destinations too: cautious, and simpler than telling them apart),
         * but a move's destination and, while that is NaN-free, its source */
        for (uint32_t k = 0; k < ins->nopnds; k++) {
            const ptx_opnd *o = &ins->opnds[k];
            if (cons && o->kind == PTX_OPND_REG && o->reg2 < 0)
                continue;
            if (k == 0 && zn_cvt_to_f32(ins))   /* its result, elided like a consumer's */
                continue;
            if (mv >= 0 && k == 0) {
                other_read(o->reg2, l);   /* shfl's predicate */
                continue;
            }
            if (mv >= 0 && k == (uint32_t)mv && l->reg_nan_free[ins->opnds[0].reg])
                continue;
            zn_each_reg(o, other_read, l);
        }
    }
}

void zn_nan_free_regs(zn_lfn *l)
{
    const ptx_func *f = l->f;
    l->reg_nan_free = calloc(f->nregs + 1, sizeof *l->reg_nan_free);
    for (uint32_t r = 0; r < f->nregs; r++)
        l->reg_nan_free[r] = true;
    /* .reg results of a .func are read when it returns (zn_lower_regparam.c):
     * they are the body's first registers */
    if (!f->is_entry) {
        uint32_t id = 0;
        for (uint32_t i = 0; i < f->nrets; i++)
            if (f->rets[i].space == PTX_SPACE_REG)
                other_read((int32_t)id++, l);
    }
    /* greatest fixed point: a move's source loses it when its destination
     * does, so repeat until nothing changes */
    for (uint32_t before = UINT32_MAX, now = nan_free_count(l); now != before;
         before = now, now = nan_free_count(l))
        nan_free_pass(l);
}

bool zn_nan_canon_elided(const zn_lfn *l, const ptx_ins *ins)
{
    const ptx_opnd *d = &ins->opnds[0];
    return l->reg_nan_free && ins->type[0] == PTX_T_F32 && ins->nopnds &&
           d->kind == PTX_OPND_REG && d->reg2 < 0 && d->reg >= 0 &&
           (uint32_t)d->reg < l->f->nregs && l->reg_nan_free[d->reg];
}

/* min/max of two float vectors with the PTX rules: a NaN operand gives the
 * other one (.NaN: the canonical NaN), -0 < +0; .xorsign.abs: min/max of
 * the magnitudes with the sign sign(a) ^ sign(b). */
LLVMValueRef zn_minmax(zn_lfn *l, const ptx_ins *ins, LLVMValueRef a, LLVMValueRef bv)
{
    LLVMBuilderRef b = l->b;
    LLVMTypeRef vt = LLVMTypeOf(a);
    LLVMTypeRef it = ll_vec(LLVMIntTypeInContext(l->m->ctx, ll_bits(vt)));
    bool max = ins->op == PTX_OP_max, nanp = ins->flags & PTX_F(NaN);
    bool xs = ins->flags & PTX_F(xorsign);
    LLVMValueRef sign = NULL;
    if (xs) {
        LLVMValueRef x = LLVMBuildXor(b, LLVMBuildBitCast(b, a, it, ""),
                                      LLVMBuildBitCast(b, bv, it, ""), "");
        sign = LLVMBuildAnd(b, x, LLVMBuildShl(b, ll_const_vec(ll_elem(it), 1),
                            ll_const_vec(ll_elem(it), ll_bits(vt) - 1), ""), "");
        a = ll_intrin1(l, "llvm.fabs", a);
        bv = ll_intrin1(l, "llvm.fabs", bv);
    }
    LLVMValueRef r = ll_intrin2(l, nanp ? (max ? "llvm.maximum" : "llvm.minimum")
                                        : (max ? "llvm.maxnum" : "llvm.minnum"), a, bv);
    /* equal operands (+0 and -0 among them): min ORs the bits, max ANDs */
    LLVMValueRef ia = LLVMBuildBitCast(b, a, it, ""), ib = LLVMBuildBitCast(b, bv, it, "");
    LLVMValueRef eqv = LLVMBuildBitCast(b, max ? LLVMBuildAnd(b, ia, ib, "")
                                               : LLVMBuildOr(b, ia, ib, ""), vt, "");
    r = LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealOEQ, a, bv, ""), eqv, r, "");
    r = zn_canon_nan(l, r);
    if (xs) {
        LLVMValueRef nan = LLVMBuildFCmp(b, LLVMRealUNO, r, r, "");
        LLVMValueRef sr = LLVMBuildBitCast(b, LLVMBuildOr(b, LLVMBuildBitCast(b, r, it, ""),
                                                          sign, ""), vt, "");
        r = LLVMBuildSelect(b, nan, r, sr, "");
    }
    return r;
}

/* flush f64 subnormals to a zero of the same sign */
LLVMValueRef zn_ftz64(zn_lfn *l, LLVMValueRef v)
{
    LLVMTypeRef vt = LLVMTypeOf(v);
    LLVMValueRef small = LLVMBuildFCmp(l->b, LLVMRealOLT, ll_intrin1(l, "llvm.fabs", v),
                                       ll_const_fvec(ll_elem(vt), 0x1p-1022), "");
    LLVMValueRef z = ll_intrin2(l, "llvm.copysign", LLVMConstNull(vt), v);
    return LLVMBuildSelect(l->b, small, z, v, "");
}

/* An f64 (or f32) value w whose exact value is w + e (e: a residue, or
 * NULL for 0) rounded to f32 by rounding to odd: the result has 24 bits
 * and, when inexact, an odd last bit, so rounding it once more to a format
 * of at most 22 bits (f16, bf16) is the correct rounding of w + e. */
LLVMValueRef zn_round_odd_f32(zn_lfn *l, LLVMValueRef w, LLVMValueRef e)
{
    zn_lmod *m = l->m;
    LLVMBuilderRef b = l->b;
    LLVMTypeRef ft = ll_vec(m->t_f32), it = ll_vec(m->t_i32);
    bool narrow = ll_elem(LLVMTypeOf(w)) != m->t_f32;
    LLVMValueRef r = narrow ? LLVMBuildFPTrunc(b, w, ft, "") : w;
    LLVMValueRef d = narrow ? LLVMBuildFSub(b, w, LLVMBuildFPExt(b, r, LLVMTypeOf(w), ""), "")
                            : NULL;
    if (e)
        d = d ? LLVMBuildFAdd(b, d, e, "") : e;
    if (!d)
        return r;
    LLVMValueRef zero = LLVMConstNull(LLVMTypeOf(d));
    LLVMValueRef bits = LLVMBuildBitCast(b, r, it, "");
    LLVMValueRef even = LLVMBuildICmp(b, LLVMIntEQ, LLVMBuildAnd(b, bits,
                                      ll_const_vec(m->t_i32, 1), ""),
                                      LLVMConstNull(it), "");
    LLVMValueRef finite = LLVMBuildFCmp(b, LLVMRealOLT, ll_intrin1(l, "llvm.fabs", r),
                                        ll_const_fvec(m->t_f32, __builtin_inf()), "");
    LLVMValueRef inexact = LLVMBuildFCmp(b, LLVMRealONE, d, zero, "");
    LLVMValueRef fix = LLVMBuildAnd(b, LLVMBuildAnd(b, even, finite, ""), inexact, "");
    /* the odd neighbour lies on the side of the error: away from zero when
     * the error has r's sign (r == 0: sign of the error, magnitude bits 1) */
    LLVMValueRef rneg = LLVMBuildICmp(b, LLVMIntSLT, bits, LLVMConstNull(it), "");
    LLVMValueRef eneg = LLVMBuildFCmp(b, LLVMRealOLT, d, zero, "");
    LLVMValueRef rz = LLVMBuildFCmp(b, LLVMRealOEQ, r, LLVMConstNull(ft), "");
    LLVMValueRef away = LLVMBuildOr(b, LLVMBuildICmp(b, LLVMIntEQ, rneg, eneg, ""), rz, "");
    LLVMValueRef one = ll_const_vec(m->t_i32, 1);
    LLVMValueRef nb = LLVMBuildSelect(b, away, LLVMBuildAdd(b, bits, one, ""),
                                      LLVMBuildSub(b, bits, one, ""), "");
    /* from a zero: the smallest subnormal with the error's sign */
    LLVMValueRef tiny = LLVMBuildSelect(b, eneg, ll_const_vec(m->t_i32, 0x80000001u), one, "");
    nb = LLVMBuildSelect(b, rz, tiny, nb, "");
    return LLVMBuildBitCast(b, LLVMBuildSelect(b, fix, nb, bits, ""), ft, "");
}
