/* zn_lower_fp8.c: cvt to and from the 8-bit float pairs (e4m3x2, e5m2x2)
 * and to tf32, all in integer bit manipulation on the lanes' vectors (LLVM
 * has no 8-bit float type).
 *
 *   cvt.rn.satfinite{.relu}.{e4m3x2,e5m2x2}.f32   d16, a, b  (a -> high byte)
 *   cvt.rn.satfinite{.relu}.{e4m3x2,e5m2x2}.f16x2 d16, a32   (high half -> high byte)
 *   cvt.rn{.relu}.f16x2.{e4m3x2,e5m2x2}           d32, a16   (exact)
 *   cvt.rna{.satfinite}.tf32.f32, cvt.{rn,rz}{.relu}{.satfinite}.tf32.f32
 * and the decoding of mma's e4m3/e5m2 operands (zn_fp8_to_f32).
 *
 * e4m3: bias 7, no infinities, NaN S.1111.111, largest 448 (0x7e); e5m2:
 * bias 15, IEEE-like, largest 57344 (0x7b). Rounding is to nearest even
 * straight from f32 (an f16 input widens to f32 exactly, so there is one
 * rounding). .satfinite: beyond the largest finite value (infinities too)
 * gives the largest finite value with the sign; NaN gives 0x7f. .relu:
 * negative results (and -0) become +0. fp8 -> f16 is exact; a NaN becomes
 * the canonical f16 NaN 0x7fff (judgement: the payload is not defined). */
#include "zn_lower.h"

static LLVMValueRef k32(zn_lfn *l, uint64_t v)
{
    return ll_const_vec(l->m->t_i32, v);
}

/* <32 x i32> f32 bits -> the fp8 code in the low byte (rn, satfinite) */
static LLVMValueRef f32_to_fp8(zn_lfn *l, LLVMValueRef x, bool e5m2, bool relu)
{
    LLVMBuilderRef b = l->b;
    unsigned mb = e5m2 ? 2 : 3, bias = e5m2 ? 15 : 7, maxc = e5m2 ? 0x7b : 0x7e;
    LLVMValueRef sign = LLVMBuildLShr(b, x, k32(l, 31), "");
    LLVMValueRef ab = LLVMBuildAnd(b, x, k32(l, 0x7fffffff), "");
    LLVMValueRef e = LLVMBuildLShr(b, ab, k32(l, 23), "");
    /* normal target: the f32 bits rebiased, 23 - mb extra fraction bits */
    LLVMValueRef normal = LLVMBuildICmp(b, LLVMIntUGE, e, k32(l, 128 - bias), "");
    LLVMValueRef vn = LLVMBuildSub(b, ab, k32(l, (uint64_t)(127 - bias) << 23), "");
    /* subnormal target: the significand shifted by 151 - bias - mb - e
     * (e = 1 for an f32 subnormal), at most 31 (then everything rounds to 0) */
    LLVMValueRef ez = LLVMBuildICmp(b, LLVMIntEQ, e, k32(l, 0), "");
    LLVMValueRef frac = LLVMBuildAnd(b, ab, k32(l, 0x7fffff), "");
    LLVMValueRef vs = LLVMBuildSelect(b, ez, frac, LLVMBuildOr(b, frac, k32(l, 0x800000), ""), "");
    LLVMValueRef e1 = LLVMBuildSelect(b, ez, k32(l, 1), e, "");
    LLVMValueRef ss = LLVMBuildSub(b, k32(l, 151 - bias - mb), e1, "");
    ss = ll_intrin2(l, "llvm.umin", ss, k32(l, 31));
    LLVMValueRef v = LLVMBuildSelect(b, normal, vn, vs, "");
    LLVMValueRef s = LLVMBuildSelect(b, normal, k32(l, 23 - mb), ss, "");
    /* round to nearest even at bit s */
    LLVMValueRef q = LLVMBuildLShr(b, v, s, "");
    LLVMValueRef one = k32(l, 1);
    LLVMValueRef rmask = LLVMBuildSub(b, LLVMBuildShl(b, one, s, ""), one, "");
    LLVMValueRef rem = LLVMBuildAnd(b, v, rmask, "");
    LLVMValueRef half = LLVMBuildShl(b, one, LLVMBuildSub(b, s, one, ""), "");
    LLVMValueRef gt = LLVMBuildICmp(b, LLVMIntUGT, rem, half, "");
    LLVMValueRef tie = LLVMBuildAnd(b, LLVMBuildICmp(b, LLVMIntEQ, rem, half, ""),
                                    LLVMBuildTrunc(b, q, ll_vec(l->m->t_i1), ""), "");
    q = LLVMBuildAdd(b, q, LLVMBuildZExt(b, LLVMBuildOr(b, gt, tie, ""), ll_vec(l->m->t_i32), ""), "");
    q = ll_intrin2(l, "llvm.umin", q, k32(l, maxc)); /* .satfinite (infinities too) */
    LLVMValueRef neg = LLVMBuildICmp(b, LLVMIntNE, sign, k32(l, 0), "");
    LLVMValueRef r = LLVMBuildOr(b, q, LLVMBuildShl(b, sign, k32(l, 7), ""), "");
    if (relu)
        r = LLVMBuildSelect(b, neg, k32(l, 0), r, "");
    LLVMValueRef nan = LLVMBuildICmp(b, LLVMIntUGT, ab, k32(l, 0x7f800000), "");
    return LLVMBuildSelect(b, nan, k32(l, 0x7f), r, "");
}

/* fp8 code (low byte of a <32 x i32>) -> f16 bits in the low half */
static LLVMValueRef fp8_to_f16(zn_lfn *l, LLVMValueRef c, bool e5m2, bool relu)
{
    zn_lmod *m = l->m;
    LLVMBuilderRef b = l->b;
    LLVMValueRef mag = LLVMBuildAnd(b, c, k32(l, 0x7f), "");
    LLVMValueRef h, nan;
    if (e5m2) { /* the high byte of an f16 */
        h = LLVMBuildShl(b, mag, k32(l, 8), "");
        nan = LLVMBuildICmp(b, LLVMIntUGT, mag, k32(l, 0x7c), "");
    } else {
        /* normal: exponent field + 8 (bias 15 - 7); subnormal m * 2^-9 is
         * an f16 normal, made by an exact f32 -> f16 conversion */
        LLVMValueRef norm = LLVMBuildAdd(b, LLVMBuildShl(b, mag, k32(l, 7), ""), k32(l, 8 << 10), "");
        LLVMValueRef mf = LLVMBuildUIToFP(b, mag, ll_vec(m->t_f32), "");
        LLVMValueRef eps = LLVMConstBitCast(k32(l, 0x3b000000), ll_vec(m->t_f32)); /* 2^-9 */
        LLVMValueRef sub = zn_f32_to_half(l, LLVMBuildFMul(b, mf, eps, ""), false, false);
        sub = LLVMBuildZExt(b, sub, ll_vec(m->t_i32), "");
        LLVMValueRef issub = LLVMBuildICmp(b, LLVMIntULT, mag, k32(l, 8), "");
        h = LLVMBuildSelect(b, issub, sub, norm, "");
        nan = LLVMBuildICmp(b, LLVMIntEQ, mag, k32(l, 0x7f), "");
    }
    LLVMValueRef neg = LLVMBuildICmp(b, LLVMIntNE, LLVMBuildAnd(b, c, k32(l, 0x80), ""), k32(l, 0), "");
    LLVMValueRef r = LLVMBuildOr(b, h, LLVMBuildSelect(b, neg, k32(l, 0x8000), k32(l, 0), ""), "");
    if (relu)
        r = LLVMBuildSelect(b, neg, k32(l, 0), r, "");
    return LLVMBuildSelect(b, nan, k32(l, 0x7fff), r, "");
}

LLVMValueRef zn_fp8_to_f32(zn_lfn *l, LLVMValueRef c, bool e5m2)
{
    LLVMValueRef h = fp8_to_f16(l, LLVMBuildAnd(l->b, c, k32(l, 0xff), ""), e5m2, false);
    return zn_half_to_f32(l, LLVMBuildTrunc(l->b, h, ll_vec(l->m->t_i16), ""), false);
}

/* f32 bits -> tf32 bits (low 13 bits zero) */
static LLVMValueRef f32_to_tf32(zn_lfn *l, LLVMValueRef x, ptx_rnd rnd, bool sat, bool relu)
{
    LLVMBuilderRef b = l->b;
    LLVMValueRef ab = LLVMBuildAnd(b, x, k32(l, 0x7fffffff), "");
    LLVMValueRef r;
    if (rnd == PTX_RND_RNA) /* half an ulp up, ties away from zero */
        r = LLVMBuildAdd(b, x, k32(l, 0x1000), "");
    else if (rnd == PTX_RND_RZ)
        r = x;
    else /* rn: ties to even */
        r = LLVMBuildAdd(b, x, LLVMBuildAdd(b, k32(l, 0xfff), LLVMBuildAnd(b,
                LLVMBuildLShr(b, x, k32(l, 13), ""), k32(l, 1), ""), ""), "");
    /* an infinite input stays infinite (its fraction is 0) */
    LLVMValueRef inf = LLVMBuildICmp(b, LLVMIntEQ, ab, k32(l, 0x7f800000), "");
    r = LLVMBuildSelect(b, inf, x, r, "");
    r = LLVMBuildAnd(b, r, k32(l, 0xffffe000), "");
    LLVMValueRef sign = LLVMBuildAnd(b, x, k32(l, 0x80000000), "");
    if (sat) {
        LLVMValueRef big = LLVMBuildICmp(b, LLVMIntUGE, LLVMBuildAnd(b, r, k32(l, 0x7fffffff), ""),
                                         k32(l, 0x7f800000), "");
        r = LLVMBuildSelect(b, big, LLVMBuildOr(b, sign, k32(l, 0x7f7fe000), ""), r, "");
    }
    if (relu)
        r = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntNE, sign, k32(l, 0), ""), k32(l, 0), r, "");
    /* NaN, as an H200 gives it: .rn/.rz the canonical NaN with the low
     * bits clear; .rna the input truncated (low payload bits lost: maybe
     * an infinity), .rna.satfinite that less one tf32 ulp */
    LLVMValueRef nan = LLVMBuildICmp(b, LLVMIntUGT, ab, k32(l, 0x7f800000), "");
    LLVMValueRef nv = k32(l, 0x7fffe000);
    if (rnd == PTX_RND_RNA) {
        nv = LLVMBuildAnd(b, x, k32(l, 0xffffe000), "");
        if (sat)
            nv = LLVMBuildSub(b, nv, k32(l, 0x2000), "");
    }
    return LLVMBuildSelect(b, nan, nv, r, "");
}

static bool is_fp8(ptx_type t)
{
    return t == PTX_T_E4M3X2 || t == PTX_T_E5M2X2;
}

bool zn_lower_cvt_small(zn_lfn *l, const ptx_ins *ins)
{
    zn_lmod *m = l->m;
    LLVMBuilderRef b = l->b;
    ptx_type dt = ins->type[0], at = ins->type[1];
    bool relu = ins->flags & PTX_F(relu), sat = ins->flags & PTX_F(satfinite);
    const ptx_opnd *o = ins->opnds;
    LLVMTypeRef v32 = ll_vec(m->t_i32);
    if (is_fp8(dt)) {
        bool e5 = dt == PTX_T_E5M2X2;
        LLVMValueRef hi, lo;
        if (ins->rnd != PTX_RND_RN || !sat) {
            zn_lerr_unsupported(l);
            return true;
        }
        if (at == PTX_T_F32 && ins->nopnds >= 3) {
            hi = zn_src(l, &o[1], PTX_T_B32);
            lo = zn_src(l, &o[2], PTX_T_B32);
        } else if (at == PTX_T_F16X2 && ins->nopnds == 2) {
            LLVMValueRef a = zn_src(l, &o[1], PTX_T_B32);
            LLVMTypeRef v16 = ll_vec(m->t_i16);
            LLVMValueRef h1 = LLVMBuildTrunc(b, LLVMBuildLShr(b, a, k32(l, 16), ""), v16, "");
            LLVMValueRef h0 = LLVMBuildTrunc(b, a, v16, "");
            hi = LLVMBuildBitCast(b, zn_half_to_f32(l, h1, false), v32, "");
            lo = LLVMBuildBitCast(b, zn_half_to_f32(l, h0, false), v32, "");
        } else {
            zn_lerr_unsupported(l);
            return true;
        }
        LLVMValueRef d = LLVMBuildOr(b, LLVMBuildShl(b, f32_to_fp8(l, hi, e5, relu), k32(l, 8), ""),
                                     f32_to_fp8(l, lo, e5, relu), "");
        zn_dst(l, &o[0], PTX_T_B16, LLVMBuildTrunc(b, d, ll_vec(m->t_i16), ""));
        return true;
    }
    if (is_fp8(at)) {
        bool e5 = at == PTX_T_E5M2X2;
        if (dt != PTX_T_F16X2 || ins->rnd != PTX_RND_RN || sat) {
            zn_lerr_unsupported(l);
            return true;
        }
        LLVMValueRef a = LLVMBuildZExt(b, zn_src(l, &o[1], PTX_T_B16), v32, "");
        LLVMValueRef h1 = fp8_to_f16(l, LLVMBuildLShr(b, a, k32(l, 8), ""), e5, relu);
        LLVMValueRef h0 = fp8_to_f16(l, LLVMBuildAnd(b, a, k32(l, 0xff), ""), e5, relu);
        zn_dst(l, &o[0], PTX_T_B32, LLVMBuildOr(b, LLVMBuildShl(b, h1, k32(l, 16), ""), h0, ""));
        return true;
    }
    if (dt == PTX_T_TF32) {
        bool ok = at == PTX_T_F32 && (ins->rnd == PTX_RND_RNA ? !relu
                                      : ins->rnd == PTX_RND_RN || ins->rnd == PTX_RND_RZ);
        if (!ok) {
            zn_lerr_unsupported(l);
            return true;
        }
        zn_dst(l, &o[0], PTX_T_B32, f32_to_tf32(l, zn_src(l, &o[1], PTX_T_B32), ins->rnd, sat, relu));
        return true;
    }
    return false;
}
