/* zn_lower_arith.c: integer arithmetic: add/sub (with carry), mul/mad
 * (.lo .hi .wide), mul24/mad24, div/rem (PTX results for x/0 and
 * INT_MIN/-1, never a trap), abs, neg, min, max, sad. */
#include "zn_lower.h"

static ptx_type wide_type(ptx_type t)
{
    switch (t) {
    case PTX_T_U16: return PTX_T_U32;
    case PTX_T_S16: return PTX_T_S32;
    case PTX_T_U32: return PTX_T_U64;
    case PTX_T_S32: return PTX_T_S64;
    case PTX_T_B16: return PTX_T_B32;
    case PTX_T_B32: return PTX_T_B64;
    default: return PTX_T_B128;
    }
}

static LLVMTypeRef int_vec(zn_lfn *l, unsigned bits)
{
    return ll_vec(LLVMIntTypeInContext(l->m->ctx, bits));
}

/* high half of a*b (W-bit) */
static LLVMValueRef mul_hi(zn_lfn *l, LLVMValueRef a, LLVMValueRef b, bool sign)
{
    unsigned w = ll_bits(LLVMTypeOf(a));
    LLVMTypeRef wt = int_vec(l, 2 * w);
    LLVMValueRef ea = sign ? LLVMBuildSExt(l->b, a, wt, "") : LLVMBuildZExt(l->b, a, wt, "");
    LLVMValueRef eb = sign ? LLVMBuildSExt(l->b, b, wt, "") : LLVMBuildZExt(l->b, b, wt, "");
    LLVMValueRef p = LLVMBuildMul(l->b, ea, eb, "");
    p = LLVMBuildLShr(l->b, p, ll_const_vec(ll_elem(wt), w), "");
    return LLVMBuildTrunc(l->b, p, LLVMTypeOf(a), "");
}

static LLVMValueRef mul_wide(zn_lfn *l, LLVMValueRef a, LLVMValueRef b, bool sign)
{
    unsigned w = ll_bits(LLVMTypeOf(a));
    LLVMTypeRef wt = int_vec(l, 2 * w);
    LLVMValueRef ea = sign ? LLVMBuildSExt(l->b, a, wt, "") : LLVMBuildZExt(l->b, a, wt, "");
    LLVMValueRef eb = sign ? LLVMBuildSExt(l->b, b, wt, "") : LLVMBuildZExt(l->b, b, wt, "");
    return LLVMBuildMul(l->b, ea, eb, "");
}

/* a + b + cin with carry out (all W-bit vectors; cin/cout 0/1 as i32) */
static LLVMValueRef add_carry(zn_lfn *l, LLVMValueRef a, LLVMValueRef b,
                              LLVMValueRef cin, bool sub, LLVMValueRef *cout)
{
    unsigned w = ll_bits(LLVMTypeOf(a));
    LLVMTypeRef wt = int_vec(l, w + 1);
    LLVMValueRef ea = LLVMBuildZExt(l->b, a, wt, "");
    LLVMValueRef eb = LLVMBuildZExt(l->b, b, wt, "");
    LLVMValueRef ec = cin ? ll_coerce(l, cin, wt, false) : LLVMConstNull(wt);
    LLVMValueRef r = sub ? LLVMBuildSub(l->b, LLVMBuildSub(l->b, ea, eb, ""), ec, "")
                         : LLVMBuildAdd(l->b, LLVMBuildAdd(l->b, ea, eb, ""), ec, "");
    LLVMValueRef c = LLVMBuildLShr(l->b, r, ll_const_vec(ll_elem(wt), w), "");
    *cout = ll_coerce(l, c, ll_vec(l->m->t_i32), false);
    return LLVMBuildTrunc(l->b, r, LLVMTypeOf(a), "");
}

static void set_cc(zn_lfn *l, LLVMValueRef c)
{
    LLVMTypeRef v32 = ll_vec(l->m->t_i32);
    LLVMValueRef old = LLVMBuildLoad2(l->b, v32, l->cc_slot, "");
    LLVMBuildStore(l->b, LLVMBuildSelect(l->b, l->emask, c, old, ""), l->cc_slot);
}

static LLVMValueRef get_cc(zn_lfn *l)
{
    return LLVMBuildLoad2(l->b, ll_vec(l->m->t_i32), l->cc_slot, "");
}

/* A vector of 32-bit quotients (remainders) by way of f64: the operands
 * and the truncated quotient are exact (|a|, |b| < 2^32, so the rounding
 * error of a / b, below 2^-21 / b in any rounding mode, never reaches the
 * next integer, at least 1 / b away), and x86 divides vectors only in
 * floating point: a <32 x i32> udiv was 32 scalar divides (nvcc's
 * grid-stride trip count, index / width in 2D kernels). sb has no zero
 * lanes and no INT_MIN / -1. */
static LLVMValueRef divrem32_f64(zn_lfn *l, LLVMValueRef a, LLVMValueRef sb, bool sign, bool rem)
{
    LLVMBuilderRef b = l->b;
    LLVMTypeRef vt = LLVMTypeOf(a);
    LLVMTypeRef vd = LLVMVectorType(l->m->t_f64, LLVMGetVectorSize(vt));
    LLVMValueRef fa = sign ? LLVMBuildSIToFP(b, a, vd, "") : LLVMBuildUIToFP(b, a, vd, "");
    LLVMValueRef fb = sign ? LLVMBuildSIToFP(b, sb, vd, "") : LLVMBuildUIToFP(b, sb, vd, "");
    LLVMValueRef fq = LLVMBuildFDiv(b, fa, fb, "div.f64");
    LLVMValueRef q = sign ? LLVMBuildFPToSI(b, fq, vt, "") : LLVMBuildFPToUI(b, fq, vt, "");
    return rem ? LLVMBuildSub(b, a, LLVMBuildMul(b, q, sb, ""), "") : q;
}

/* a per-lane 32-bit division by a divisor that is not a constant (LLVM
 * divides by constants with a multiply and shifts) */
static bool div_by_f64(LLVMValueRef b)
{
    LLVMTypeRef t = LLVMTypeOf(b);
    return LLVMGetTypeKind(t) == LLVMVectorTypeKind && ll_bits(t) == 32 && !LLVMIsConstant(b);
}

/* an integer constant of type t, a scalar or each lane of a vector */
static LLVMValueRef cst(LLVMTypeRef t, uint64_t v)
{
    return LLVMGetTypeKind(t) == LLVMVectorTypeKind ? ll_const_vec(ll_elem(t), v)
                                                     : LLVMConstInt(t, v, 0);
}

/* Division and remainder without traps: x/0 = all ones; x%0 = all ones
 * for 64 bits and x for 32 (an H200 gives all ones for rem.u32 on its own
 * but x where ptxas computes it as x - q * y next to the division, as nvcc's
 * code for a / b and a % b does); INT_MIN/-1 = INT_MIN, INT_MIN%-1 = 0. */
static LLVMValueRef safe_divrem(zn_lfn *l, LLVMValueRef a, LLVMValueRef b,
                                bool sign, bool rem)
{
    /* the same in every lane (a uniform division: ggml's channel ratios,
     * each warp's start): one scalar divide, not the f64 vector route */
    LLVMValueRef xa = ll_splat_scalar(a), xb = ll_splat_scalar(b);
    if (xa && xb && !(LLVMIsConstant(xa) && LLVMIsConstant(xb)))
        return ll_splat(l, safe_divrem(l, xa, xb, sign, rem));
    LLVMTypeRef vt = LLVMTypeOf(a);
    unsigned w = ll_bits(vt);
    LLVMValueRef zero = LLVMConstNull(vt), one = cst(vt, 1);
    LLVMValueRef ones = cst(vt, ~0ull);
    LLVMValueRef bz = LLVMBuildICmp(l->b, LLVMIntEQ, b, zero, "");
    LLVMValueRef bad = bz;
    if (sign) {
        LLVMValueRef minv = cst(vt, 1ull << (w - 1));
        LLVMValueRef ovf = LLVMBuildAnd(l->b,
            LLVMBuildICmp(l->b, LLVMIntEQ, a, minv, ""),
            LLVMBuildICmp(l->b, LLVMIntEQ, b, ones, ""), "");
        bad = LLVMBuildOr(l->b, bz, ovf, "");
        LLVMValueRef sb = LLVMBuildSelect(l->b, bad, one, b, "");
        LLVMValueRef q = div_by_f64(b) ? divrem32_f64(l, a, sb, true, rem)
                         : rem ? LLVMBuildSRem(l->b, a, sb, "") : LLVMBuildSDiv(l->b, a, sb, "");
        /* overflow: INT_MIN / -1 = INT_MIN (= a), INT_MIN % -1 = 0 */
        LLVMValueRef ovr = rem ? zero : a;
        LLVMValueRef zr = rem && w < 64 ? a : ones;
        q = LLVMBuildSelect(l->b, ovf, ovr, q, "");
        return LLVMBuildSelect(l->b, bz, zr, q, "");
    }
    LLVMValueRef sb = LLVMBuildSelect(l->b, bz, one, b, "");
    LLVMValueRef q = div_by_f64(b) ? divrem32_f64(l, a, sb, false, rem)
                     : rem ? LLVMBuildURem(l->b, a, sb, "") : LLVMBuildUDiv(l->b, a, sb, "");
    return LLVMBuildSelect(l->b, bz, rem && w < 64 ? a : ones, q, "");
}

/* the low 24 bits, sign- or zero-extended to 32 */
static LLVMValueRef low24(zn_lfn *l, LLVMValueRef a, bool sign)
{
    LLVMValueRef s8 = ll_const_vec(l->m->t_i32, 8);
    LLVMValueRef x = LLVMBuildShl(l->b, a, s8, "");
    return sign ? LLVMBuildAShr(l->b, x, s8, "") : LLVMBuildLShr(l->b, x, s8, "");
}

static LLVMValueRef sat_s32(zn_lfn *l, LLVMValueRef wide64)
{
    zn_lmod *m = l->m;
    LLVMValueRef lo = ll_const_vec(m->t_i64, (uint64_t)(int64_t)INT32_MIN);
    LLVMValueRef hi = ll_const_vec(m->t_i64, (uint64_t)INT32_MAX);
    LLVMValueRef v = ll_intrin2(l, "llvm.smax", wide64, lo);
    v = ll_intrin2(l, "llvm.smin", v, hi);
    return LLVMBuildTrunc(l->b, v, ll_vec(m->t_i32), "");
}

void zn_lower_int(zn_lfn *l, const ptx_ins *ins)
{
    zn_lmod *m = l->m;
    ptx_type t = ins->type[0];
    bool sign = ptx_type_is_signed(t);
    const ptx_opnd *o = ins->opnds;
    LLVMBuilderRef b = l->b;
    bool sat = ins->flags & PTX_F(sat), cc = ins->flags & PTX_F(cc);
    LLVMValueRef a, bb, c, r, carry;
    if (t == PTX_T_U16X2 || t == PTX_T_S16X2) {
        zn_lower_int16x2(l, ins);   /* zn_lower_video.c */
        return;
    }

    switch (ins->op) {
    case PTX_OP_add: case PTX_OP_sub: case PTX_OP_addc: case PTX_OP_subc: {
        bool sub = ins->op == PTX_OP_sub || ins->op == PTX_OP_subc;
        a = zn_src(l, &o[1], t);
        bb = zn_src(l, &o[2], t);
        if (sat) {
            r = ll_intrin2(l, sub ? "llvm.ssub.sat" : "llvm.sadd.sat", a, bb);
        } else if (cc || ins->op == PTX_OP_addc || ins->op == PTX_OP_subc) {
            LLVMValueRef cin = (ins->op == PTX_OP_addc || ins->op == PTX_OP_subc)
                               ? get_cc(l) : NULL;
            r = add_carry(l, a, bb, cin, sub, &carry);
            if (cc)
                set_cc(l, carry);
        } else {
            r = sub ? LLVMBuildSub(b, a, bb, "") : LLVMBuildAdd(b, a, bb, "");
        }
        zn_dst(l, &o[0], t, r);
        return;
    }
    case PTX_OP_mul: case PTX_OP_mad: case PTX_OP_madc: {
        a = zn_src(l, &o[1], t);
        bb = zn_src(l, &o[2], t);
        bool mad = ins->op != PTX_OP_mul;
        ptx_type rt = t;
        if (ins->flags & PTX_F(wide)) {
            rt = wide_type(t);
            r = mul_wide(l, a, bb, sign);
        } else if (ins->flags & PTX_F(hi_half)) {
            r = mul_hi(l, a, bb, sign);
        } else {
            r = LLVMBuildMul(b, a, bb, "");
        }
        if (mad) {
            c = zn_src(l, &o[3], rt);
            if (sat && t == PTX_T_S32) {
                LLVMTypeRef v64 = ll_vec(m->t_i64);
                r = sat_s32(l, LLVMBuildAdd(b, LLVMBuildSExt(b, r, v64, ""),
                                            LLVMBuildSExt(b, c, v64, ""), ""));
            } else if (cc || ins->op == PTX_OP_madc) {
                r = add_carry(l, r, c, ins->op == PTX_OP_madc ? get_cc(l) : NULL,
                              false, &carry);
                if (cc)
                    set_cc(l, carry);
            } else {
                r = LLVMBuildAdd(b, r, c, "");
            }
        }
        zn_dst(l, &o[0], rt, r);
        return;
    }
    case PTX_OP_mul24: case PTX_OP_mad24: {
        a = low24(l, zn_src(l, &o[1], t), sign);
        bb = low24(l, zn_src(l, &o[2], t), sign);
        LLVMValueRef p = mul_wide(l, a, bb, sign); /* 48-bit product in i64 */
        if (ins->flags & PTX_F(hi_half))
            r = LLVMBuildTrunc(b, LLVMBuildLShr(b, p, ll_const_vec(m->t_i64, 16), ""),
                               ll_vec(m->t_i32), "");
        else
            r = LLVMBuildTrunc(b, p, ll_vec(m->t_i32), "");
        if (ins->op == PTX_OP_mad24) {
            c = zn_src(l, &o[3], t);
            if (sat && t == PTX_T_S32) {
                LLVMTypeRef v64 = ll_vec(m->t_i64);
                r = sat_s32(l, LLVMBuildAdd(b, LLVMBuildSExt(b, r, v64, ""),
                                            LLVMBuildSExt(b, c, v64, ""), ""));
            } else {
                r = LLVMBuildAdd(b, r, c, "");
            }
        }
        zn_dst(l, &o[0], t, r);
        return;
    }
    case PTX_OP_div: case PTX_OP_rem:
        a = zn_src(l, &o[1], t);
        bb = zn_src(l, &o[2], t);
        zn_dst(l, &o[0], t, safe_divrem(l, a, bb, sign, ins->op == PTX_OP_rem));
        return;
    case PTX_OP_abs:
        a = zn_src(l, &o[1], t);
        r = ll_intrin2(l, "llvm.abs", a, LLVMConstInt(m->t_i1, 0, 0));
        zn_dst(l, &o[0], t, r);
        return;
    case PTX_OP_neg:
        a = zn_src(l, &o[1], t);
        zn_dst(l, &o[0], t, LLVMBuildNeg(b, a, ""));
        return;
    case PTX_OP_min: case PTX_OP_max: {
        a = zn_src(l, &o[1], t);
        bb = zn_src(l, &o[2], t);
        bool mx = ins->op == PTX_OP_max;
        const char *fn = sign ? (mx ? "llvm.smax" : "llvm.smin")
                              : (mx ? "llvm.umax" : "llvm.umin");
        r = ll_intrin2(l, fn, a, bb);
        if (ins->flags & PTX_F(relu))
            r = ll_intrin2(l, "llvm.smax", r, LLVMConstNull(LLVMTypeOf(r)));
        zn_dst(l, &o[0], t, r);
        return;
    }
    case PTX_OP_sad: {
        a = zn_src(l, &o[1], t);
        bb = zn_src(l, &o[2], t);
        c = zn_src(l, &o[3], t);
        LLVMValueRef gt = LLVMBuildICmp(b, sign ? LLVMIntSGT : LLVMIntUGT, a, bb, "");
        LLVMValueRef d = LLVMBuildSelect(b, gt, LLVMBuildSub(b, a, bb, ""),
                                         LLVMBuildSub(b, bb, a, ""), "");
        zn_dst(l, &o[0], t, LLVMBuildAdd(b, c, d, ""));
        return;
    }
    default:
        zn_lerr_unsupported(l);
    }
}
