/* zn_lower_cvt.c: cvt between every integer and float type (saturation,
 * rounding to integral values, NaN -> 0 (or the integer indefinite, as
 * NVIDIA GPUs give it) and range saturation for float -> int, NaNs
 * narrowed from f64 as the GPUs do) and mov (registers, immediates, special
 * registers, symbol addresses, {a, b} packing and unpacking). */
#include "zn_lower.h"

static bool is_int(ptx_type t)
{
    return !ptx_type_is_float(t) && t != PTX_T_PRED;
}

static bool halfish(ptx_type t)
{
    return t == PTX_T_F16 || t == PTX_T_BF16;
}

static LLVMTypeRef fp_type(zn_lmod *m, ptx_type t)
{
    switch (t) {
    case PTX_T_F16: return m->t_half;
    case PTX_T_BF16: return m->t_bf16;
    case PTX_T_F64: return m->t_f64;
    default: return m->t_f32;
    }
}

/* a float source as a real FP vector (f16/bf16 bits reinterpreted) */
static LLVMValueRef fp_src(zn_lfn *l, const ptx_opnd *o, ptx_type t)
{
    LLVMValueRef v = zn_src(l, o, t);
    if (halfish(t))
        v = zn_to_half(l, v, t == PTX_T_BF16);
    return v;
}

/* FP vector -> the storage form of float type t (f16 as i16 bits) */
static LLVMValueRef fp_store_form(zn_lfn *l, LLVMValueRef v, ptx_type t)
{
    return halfish(t) ? zn_from_half(l, v) : v;
}

/* A NaN narrowed from f64 as NVIDIA GPUs narrow it (measured on an H200):
 * quiet, with the sign and the top bits of the payload (frac: the
 * destination's fraction bits), as bits of integer type it */
static LLVMValueRef nan_narrow(zn_lfn *l, LLVMValueRef a64, unsigned frac, unsigned expbits,
                               LLVMTypeRef it)
{
    LLVMBuilderRef b = l->b;
    LLVMTypeRef t64 = l->m->t_i64;
    LLVMValueRef u = LLVMBuildBitCast(b, a64, ll_vec(t64), "");
    LLVMValueRef sign = LLVMBuildShl(b, LLVMBuildLShr(b, u, ll_const_vec(t64, 63), ""),
                                     ll_const_vec(t64, frac + expbits), "");
    LLVMValueRef pay = LLVMBuildLShr(b, LLVMBuildAnd(b, u, ll_const_vec(t64, (1ull << 52) - 1), ""),
                                     ll_const_vec(t64, 52 - frac), "");
    uint64_t top = ((1ull << expbits) - 1) << frac | 1ull << (frac - 1);
    LLVMValueRef bits = LLVMBuildOr(b, LLVMBuildOr(b, sign, pay, ""), ll_const_vec(t64, top), "");
    return LLVMBuildTrunc(b, bits, ll_vec(it), "");
}

/* r, or where a64 is a NaN its narrowing (bits of r's width) */
static LLVMValueRef with_nan_narrow(zn_lfn *l, LLVMValueRef a64, LLVMValueRef r, unsigned frac,
                                    unsigned expbits)
{
    LLVMBuilderRef b = l->b;
    LLVMTypeRef rt = LLVMTypeOf(r), it = LLVMIntTypeInContext(l->m->ctx, ll_bits(rt));
    LLVMValueRef nan = LLVMBuildFCmp(b, LLVMRealUNO, a64, a64, "");
    LLVMValueRef bits = LLVMBuildBitCast(b, r, ll_vec(it), "");
    bits = LLVMBuildSelect(b, nan, nan_narrow(l, a64, frac, expbits, it), bits, "");
    return LLVMBuildBitCast(b, bits, rt, "");
}

static LLVMValueRef round_int(zn_lfn *l, LLVMValueRef v, ptx_rnd r)
{
    switch (r) {
    case PTX_RND_RNI: return ll_intrin1(l, "llvm.roundeven", v);
    case PTX_RND_RZI: return ll_intrin1(l, "llvm.trunc", v);
    case PTX_RND_RMI: return ll_intrin1(l, "llvm.floor", v);
    case PTX_RND_RPI: return ll_intrin1(l, "llvm.ceil", v);
    default: return v;
    }
}

static LLVMValueRef int_sat(zn_lfn *l, LLVMValueRef a, bool asign, ptx_type dt)
{
    zn_lmod *m = l->m;
    LLVMTypeRef wt = ll_vec(m->t_i128);
    unsigned dw = ll_bits(zn_scalar_type(m, dt));
    bool dsign = ptx_type_is_signed(dt);
    LLVMValueRef x = asign ? LLVMBuildSExt(l->b, a, wt, "") : LLVMBuildZExt(l->b, a, wt, "");
    if (ll_bits(LLVMTypeOf(a)) == 128)
        x = a;
    unsigned long long lo, hi;
    if (dsign) {
        hi = (dw == 64) ? (unsigned long long)INT64_MAX : (1ull << (dw - 1)) - 1;
        lo = (unsigned long long)(-(long long)hi - 1);
    } else {
        hi = dw == 64 ? ~0ull : (1ull << dw) - 1;
        lo = 0;
    }
    LLVMValueRef lov = LLVMConstIntOfArbitraryPrecision(m->t_i128, 2,
        (uint64_t[]){lo, dsign ? ~0ull : 0});
    LLVMValueRef hiv = LLVMConstIntOfArbitraryPrecision(m->t_i128, 2, (uint64_t[]){hi, 0});
    LLVMValueRef e[ZN_LANES], f[ZN_LANES];
    for (int i = 0; i < ZN_LANES; i++) {
        e[i] = lov;
        f[i] = hiv;
    }
    x = ll_intrin2(l, "llvm.smax", x, LLVMConstVector(e, ZN_LANES));
    x = ll_intrin2(l, "llvm.smin", x, LLVMConstVector(f, ZN_LANES));
    return LLVMBuildTrunc(l->b, x, zn_vec_type(m, dt), "");
}

static bool directed(ptx_rnd r)
{
    return r == PTX_RND_RZ || r == PTX_RND_RM || r == PTX_RND_RP;
}

/* .relu on f16/bf16 bits: negative (-0 too) -> +0, NaN -> 0x7fff */
LLVMValueRef zn_relu16(zn_lfn *l, LLVMValueRef h, bool bf)
{
    LLVMBuilderRef b = l->b;
    LLVMTypeRef t = l->m->t_i16;
    LLVMValueRef nan = LLVMBuildICmp(b, LLVMIntUGT, LLVMBuildAnd(b, h, ll_const_vec(t, 0x7fff), ""),
                                     ll_const_vec(t, bf ? 0x7f80 : 0x7c00), "");
    LLVMValueRef neg = LLVMBuildICmp(b, LLVMIntSLT, h, LLVMConstNull(ll_vec(t)), "");
    LLVMValueRef r = LLVMBuildSelect(b, neg, LLVMConstNull(ll_vec(t)), h, "");
    return LLVMBuildSelect(b, nan, ll_const_vec(t, 0x7fff), r, "");
}

/* .satfinite on f16/bf16 bits: an infinity (from an infinite input or
 * one past the largest finite value) -> the largest finite value of its
 * sign; NaN stays NaN */
static LLVMValueRef satfinite16(zn_lfn *l, LLVMValueRef h, bool bf)
{
    LLVMBuilderRef b = l->b;
    LLVMTypeRef t = l->m->t_i16;
    unsigned inf = bf ? 0x7f80 : 0x7c00;
    LLVMValueRef is_inf = LLVMBuildICmp(b, LLVMIntEQ, LLVMBuildAnd(b, h, ll_const_vec(t, 0x7fff), ""),
                                        ll_const_vec(t, inf), "");
    return LLVMBuildSelect(b, is_inf, LLVMBuildSub(b, h, ll_const_vec(t, 1), ""), h, "");
}

/* .relu and .satfinite of a cvt to f16/bf16 (either order gives the same) */
static LLVMValueRef relu_satfinite16(zn_lfn *l, const ptx_ins *ins, LLVMValueRef h, bool bf)
{
    if (ins->flags & PTX_F(satfinite))
        h = satfinite16(l, h, bf);
    if (ins->flags & PTX_F(relu))
        h = zn_relu16(l, h, bf);
    return h;
}

static void cvt_pack_x2(zn_lfn *l, const ptx_ins *ins)
{
    /* cvt.{rn,rz}.f16x2.f32 d, a, b: a -> upper half, b -> lower half */
    zn_lmod *m = l->m;
    ptx_type dt = ins->type[0];
    bool bf = dt == PTX_T_BF16X2;
    LLVMTypeRef v32 = ll_vec(m->t_i32);
    LLVMValueRef h[2];
    for (int i = 0; i < 2; i++) {
        h[i] = zn_f32_to_half(l, zn_src(l, &ins->opnds[1 + i], PTX_T_F32), bf,
                              ins->rnd == PTX_RND_RZ);
        h[i] = relu_satfinite16(l, ins, h[i], bf);
        h[i] = LLVMBuildZExt(l->b, h[i], v32, "");
    }
    LLVMValueRef d = LLVMBuildOr(l->b, LLVMBuildShl(l->b, h[0], ll_const_vec(m->t_i32, 16), ""),
                                 h[1], "");
    zn_dst(l, &ins->opnds[0], dt, d);
}

void zn_lower_cvt(zn_lfn *l, const ptx_ins *ins)
{
    zn_lmod *m = l->m;
    LLVMBuilderRef b = l->b;
    const ptx_opnd *o = ins->opnds;
    if (ins->ntypes < 2) {
        zn_lerr(l, "cvt needs two types");
        return;
    }
    ptx_type dt = ins->type[0], at = ins->type[1];
    bool sat = ins->flags & PTX_F(sat), ftz = ins->flags & PTX_F(ftz);
    if (zn_lower_cvt_small(l, ins)) /* fp8 pairs, tf32 (zn_lower_fp8.c) */
        return;
    if (dt == PTX_T_F16X2 || dt == PTX_T_BF16X2) {
        if (at == PTX_T_F32 && ins->nopnds >= 3 &&
            (ins->rnd == PTX_RND_RN || ins->rnd == PTX_RND_RZ || ins->rnd == PTX_RND_NONE)) {
            cvt_pack_x2(l, ins);
            return;
        }
        zn_lerr_unsupported(l);
        return;
    }
    if (dt == PTX_T_PRED || at == PTX_T_PRED || dt == PTX_T_TF32 || at == PTX_T_TF32 ||
        dt == PTX_T_E4M3X2 || dt == PTX_T_E5M2X2 || at == PTX_T_E4M3X2 ||
        at == PTX_T_E5M2X2 || at == PTX_T_F16X2 || at == PTX_T_BF16X2) {
        zn_lerr_unsupported(l);
        return;
    }
    LLVMValueRef r;
    if (is_int(dt) && is_int(at)) {
        LLVMValueRef a = zn_src(l, &o[1], at);
        if (sat)
            r = int_sat(l, a, ptx_type_is_signed(at), dt);
        else
            r = ll_coerce(l, a, zn_vec_type(m, dt), ptx_type_is_signed(at));
        zn_dst(l, &o[0], dt, r);
        return;
    }
    if (is_int(at)) { /* int -> float */
        LLVMValueRef a = zn_src(l, &o[1], at);
        LLVMTypeRef ft = ll_vec(fp_type(m, dt));
        if (directed(ins->rnd))
            r = zn_itofp_directed(l, a, ptx_type_is_signed(at), ft, ins->rnd);
        else
            r = ptx_type_is_signed(at) ? LLVMBuildSIToFP(b, a, ft, "") : LLVMBuildUIToFP(b, a, ft, "");
        if (sat)
            r = zn_fsat(l, r);
        if (ftz && dt == PTX_T_F32)
            r = zn_ftz(l, r);
        zn_dst(l, &o[0], dt, fp_store_form(l, r, dt));
        return;
    }
    LLVMValueRef a = fp_src(l, &o[1], at);
    if (at == PTX_T_BF16) /* LLVM's bf16 -> f32 may flush subnormals */
        a = zn_half_to_f32(l, zn_src(l, &o[1], at), true);
    if (ftz && at == PTX_T_F32 && !zn_ftz_clean(l, &o[1]))
        a = zn_ftz(l, a);
    if (is_int(dt)) { /* float -> int: round, then saturate (NaN -> 0) */
        if (halfish(at))
            a = LLVMBuildFPExt(b, a, ll_vec(m->t_f32), "");
        a = round_int(l, a, ins->rnd == PTX_RND_NONE ? PTX_RND_RZI : ins->rnd);
        LLVMTypeRef it = zn_vec_type(m, dt);
        LLVMTypeRef over[2] = {it, LLVMTypeOf(a)};
        r = ll_intrin(l, ptx_type_is_signed(dt) ? "llvm.fptosi.sat" : "llvm.fptoui.sat",
                      over, 2, &a, 1);
        unsigned w = ll_bits(zn_scalar_type(m, dt));
        if (w == 64 || (w == 32 && at == PTX_T_F64)) {
            /* NaN: the "integer indefinite" (only the top bit set), as an
             * H200 gives it from f64 and into 64 bits (0 otherwise) */
            LLVMValueRef nan = LLVMBuildFCmp(b, LLVMRealUNO, a, a, "");
            r = LLVMBuildSelect(b, nan, ll_const_vec(zn_scalar_type(m, dt), 1ull << (w - 1)), r, "");
        }
        zn_dst(l, &o[0], dt, r);
        return;
    }
    /* float -> float */
    if (dt == PTX_T_BF16 && !sat && (ins->rnd == PTX_RND_RN || ins->rnd == PTX_RND_RZ ||
                                     ins->rnd == PTX_RND_RM || ins->rnd == PTX_RND_RP ||
                                     ins->rnd == PTX_RND_NONE)) {
        /* integer rounding keeps bf16 subnormals (LLVM's fptrunc to bfloat
         * flushed them under .rm/.rp); f64 and f16 sources go through f32
         * (f64: rounded to odd, so the result rounds once) */
        bool rz = ins->rnd == PTX_RND_RZ, dir = ins->rnd == PTX_RND_RM || ins->rnd == PTX_RND_RP;
        LLVMValueRef a64 = a;
        if (at == PTX_T_F64)
            a = rz ? zn_fptrunc_directed(l, a, ll_vec(m->t_f32), PTX_RND_RZ)
                   : zn_round_odd_f32(l, a, NULL);
        else if (at == PTX_T_F16)
            a = LLVMBuildFPExt(b, a, ll_vec(m->t_f32), "");
        LLVMValueRef h = zn_f32_to_half(l, a, true, rz || dir);
        if (dir) { /* truncated; one step away from zero when bits were
                    * dropped and the direction is away from zero */
            LLVMTypeRef v32 = ll_vec(m->t_i32);
            LLVMValueRef u = LLVMBuildBitCast(b, a, v32, "");
            LLVMValueRef lost = LLVMBuildICmp(b, LLVMIntNE, LLVMBuildAnd(b, u,
                                              ll_const_vec(m->t_i32, 0xffff), ""),
                                              LLVMConstNull(v32), "");
            LLVMValueRef neg = LLVMBuildICmp(b, LLVMIntSLT, u, LLVMConstNull(v32), "");
            LLVMValueRef away = ins->rnd == PTX_RND_RP ? LLVMBuildNot(b, neg, "") : neg;
            LLVMValueRef nan = LLVMBuildFCmp(b, LLVMRealUNO, a, a, "");
            LLVMValueRef step = LLVMBuildAnd(b, LLVMBuildAnd(b, lost, away, ""),
                                             LLVMBuildNot(b, nan, ""), "");
            h = LLVMBuildAdd(b, h, LLVMBuildZExt(b, step, ll_vec(m->t_i16), ""), "");
        }
        if (at == PTX_T_F64)
            h = with_nan_narrow(l, a64, h, 7, 8);
        h = relu_satfinite16(l, ins, h, true);
        zn_dst(l, &o[0], dt, h);
        return;
    }
    LLVMTypeRef ft = ll_vec(fp_type(m, dt));
    unsigned ab = ll_bits(LLVMTypeOf(a)), db = ll_bits(ft);
    bool bf_pair = (at == PTX_T_BF16) != (dt == PTX_T_BF16);
    if (ins->rnd >= PTX_RND_RNI && ins->rnd <= PTX_RND_RPI) {
        r = round_int(l, a, ins->rnd);
        if (dt != at)
            r = db > ab ? LLVMBuildFPExt(b, r, ft, "") : LLVMBuildFPTrunc(b, r, ft, "");
    } else if (db == ab && bf_pair) { /* f16 <-> bf16 goes through f32 */
        r = LLVMBuildFPTrunc(b, LLVMBuildFPExt(b, a, ll_vec(m->t_f32), ""), ft, "");
    } else if (db > ab) {
        r = LLVMBuildFPExt(b, a, ft, "");
    } else if (db < ab) {
        r = directed(ins->rnd) ? zn_fptrunc_directed(l, a, ft, ins->rnd)
                               : LLVMBuildFPTrunc(b, a, ft, "");
    } else {
        r = a;
    }
    if (dt == PTX_T_F32 && !zn_nan_canon_elided(l, ins)) /* unless every read redoes it */
        r = zn_canon_nan(l, r);
    if (dt == PTX_T_F32 && at == PTX_T_F64)
        r = with_nan_narrow(l, a, r, 23, 8);
    if (sat)
        r = zn_fsat(l, r);
    if (ftz && dt == PTX_T_F32 && at == PTX_T_F64) {
        /* tiny after rounding to 24 bits with an unbounded exponent is a
         * zero (NVIDIA's .ftz rule, see ftz_result in zn_lower_float.c):
         * a scaled by 2^64 rounds as a normal f32 where it matters */
        LLVMValueRef s = LLVMBuildFMul(b, a, ll_const_fvec(m->t_f64, 0x1p64), "");
        s = directed(ins->rnd) ? zn_fptrunc_directed(l, s, ft, ins->rnd)
                               : LLVMBuildFPTrunc(b, s, ft, "");
        LLVMValueRef tiny = LLVMBuildFCmp(b, LLVMRealOLT, ll_intrin1(l, "llvm.fabs", s),
                                          ll_const_fvec(m->t_f32, 0x1p-62), "");
        r = LLVMBuildSelect(b, tiny, ll_intrin2(l, "llvm.copysign", LLVMConstNull(ft), r), r, "");
    } else if (ftz && dt == PTX_T_F32) {
        r = zn_ftz(l, r);
    }
    LLVMValueRef st = fp_store_form(l, r, dt);
    if (halfish(dt)) { /* NaN -> 0x7fff; from f64 the GPU's narrowing */
        LLVMValueRef nan = LLVMBuildFCmp(b, LLVMRealUNO, r, r, "");
        st = LLVMBuildSelect(b, nan, ll_const_vec(m->t_i16, 0x7fff), st, "");
        if (at == PTX_T_F64 && dt == PTX_T_F16)
            st = with_nan_narrow(l, a, st, 10, 5);
        st = relu_satfinite16(l, ins, st, dt == PTX_T_BF16);
    }
    zn_dst(l, &o[0], dt, st);
}

void zn_lower_mov(zn_lfn *l, const ptx_ins *ins)
{
    ptx_type t = ins->type[0];
    if (ins->nopnds < 2) {
        zn_lerr(l, "mov needs two operands");
        return;
    }
    LLVMValueRef v = zn_src(l, &ins->opnds[1], t);
    zn_dst(l, &ins->opnds[0], t, v);
}
