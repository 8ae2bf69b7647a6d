/* zn_lower_half.c: f16/bf16/f16x2/bf16x2 arithmetic, rounded once.
 *
 * Each element is widened to f64, where add/sub/mul of two half values and
 * the product of fma are exact; the one rounding step of the sum is tracked
 * by its TwoSum residue and folded into a round-to-odd narrowing to f32
 * (zn_round_odd_f32), from which the final rounding to the 16-bit format is
 * correct (24 >= 11 + 2 bits). bf16 <-> f32 are integer operations, so
 * subnormals survive. NaN results are the canonical 0x7fff; .ftz (f16)
 * flushes subnormal inputs and results; .sat clamps to [+0, 1]; .relu gives
 * +0 for negative results.
 *
 * On a CPU with AVX512-FP16 (Intel Sapphire Rapids and later) f16 add, sub,
 * mul and fma without .ftz are the CPU's own binary16 instructions, which
 * round once to nearest even as PTX's .rn does: the same bits in a quarter
 * of the instructions (a warp's 32 halves are one register).
 * ZINC_NO_NATIVE_F16=1 keeps the f64 route (CI sweeps both). */
#include "zn_lower.h"

#include <stdlib.h>

static LLVMValueRef c16(zn_lfn *l, unsigned v)
{
    return ll_const_vec(l->m->t_i16, v);
}

/* f16/bf16 bits -> f32 (exact) */
LLVMValueRef zn_half_to_f32(zn_lfn *l, LLVMValueRef bits, bool bf)
{
    zn_lmod *m = l->m;
    if (bf) {
        LLVMValueRef w = LLVMBuildShl(l->b, LLVMBuildZExt(l->b, bits, ll_vec(m->t_i32), ""),
                                      ll_const_vec(m->t_i32, 16), "");
        return LLVMBuildBitCast(l->b, w, ll_vec(m->t_f32), "");
    }
    return LLVMBuildFPExt(l->b, zn_to_half(l, bits, false), ll_vec(m->t_f32), "");
}

/* f32 -> f16/bf16 bits, round to nearest even (rz: toward zero, bf16 only),
 * NaN -> 0x7fff */
LLVMValueRef zn_f32_to_half(zn_lfn *l, LLVMValueRef f, bool bf, bool rz)
{
    zn_lmod *m = l->m;
    LLVMBuilderRef b = l->b;
    LLVMTypeRef v32 = ll_vec(m->t_i32);
    LLVMValueRef h;
    if (bf) {
        LLVMValueRef u = LLVMBuildBitCast(b, f, v32, "");
        if (!rz) {
            LLVMValueRef lsb = LLVMBuildAnd(b, LLVMBuildLShr(b, u, ll_const_vec(m->t_i32, 16), ""),
                                            ll_const_vec(m->t_i32, 1), "");
            u = LLVMBuildAdd(b, u, LLVMBuildAdd(b, lsb, ll_const_vec(m->t_i32, 0x7fff), ""), "");
        }
        h = LLVMBuildTrunc(b, LLVMBuildLShr(b, u, ll_const_vec(m->t_i32, 16), ""),
                           ll_vec(m->t_i16), "");
    } else if (rz) {
        h = zn_from_half(l, zn_fptrunc_directed(l, f, ll_vec(m->t_half), PTX_RND_RZ));
    } else {
        h = zn_from_half(l, LLVMBuildFPTrunc(b, f, ll_vec(m->t_half), ""));
    }
    LLVMValueRef nan = LLVMBuildFCmp(b, LLVMRealUNO, f, f, "");
    return LLVMBuildSelect(b, nan, c16(l, 0x7fff), h, "");
}

/* exponent field zero: zero or subnormal -> zero of the same sign */
static LLVMValueRef ftz16(zn_lfn *l, LLVMValueRef h, bool bf)
{
    LLVMBuilderRef b = l->b;
    LLVMValueRef e = LLVMBuildAnd(b, h, c16(l, bf ? 0x7f80 : 0x7c00), "");
    LLVMValueRef sub = LLVMBuildICmp(b, LLVMIntEQ, e, c16(l, 0), "");
    return LLVMBuildSelect(b, sub, LLVMBuildAnd(b, h, c16(l, 0x8000), ""), h, "");
}

/* Part p of a source. An f16x2/bf16x2 register's 32 lanes are 64 halves
 * in memory order (lane k's low half, then its high one), and every
 * operation here is elementwise, so the two <32 x i16> vectors `one` works
 * on are the first and the last 32 of those halves: each is one 512-bit
 * register as it stands. Splitting each lane into its low and high halves
 * instead took narrowing moves, shifts and a re-packing around every
 * operation (ggml's half2 dot products). */
static LLVMValueRef part(zn_lfn *l, LLVMValueRef v, unsigned p, bool x2)
{
    if (!x2)
        return v;
    LLVMValueRef h = LLVMBuildBitCast(l->b, v, LLVMVectorType(l->m->t_i16, 2 * ZN_LANES), "");
    return ll_lanes(l, h, p * ZN_LANES, ZN_LANES);
}

static unsigned nsrc(ptx_op op)
{
    switch (op) {
    case PTX_OP_add: case PTX_OP_sub: case PTX_OP_mul: case PTX_OP_min: case PTX_OP_max:
        return 2;
    case PTX_OP_fma: case PTX_OP_mad:
        return 3;
    default:
        return 1;
    }
}

/* .sat's -0 -> +0 and .relu, on the result's bits */
static LLVMValueRef relu_sat_tail(zn_lfn *l, const ptx_ins *ins, LLVMValueRef o, bool bf)
{
    LLVMBuilderRef b = l->b;
    if (ins->flags & PTX_F(sat))
        o = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntEQ, o, c16(l, 0x8000), ""),
                            c16(l, 0), o, "");
    if (ins->flags & PTX_F(relu)) /* o's NaN is already the canonical one */
        o = zn_relu16(l, o, bf);
    return o;
}

/* whether ins is f16 arithmetic the CPU's binary16 instructions do exactly */
static bool native_f16(zn_lfn *l, const ptx_ins *ins, bool bf)
{
    switch (ins->op) {
    case PTX_OP_add: case PTX_OP_sub: case PTX_OP_mul: case PTX_OP_fma: case PTX_OP_mad:
        break;
    default:
        return false;
    }
    const char *off = getenv("ZINC_NO_NATIVE_F16");
    return !bf && !(ins->flags & PTX_F(ftz)) &&
           (ins->rnd == PTX_RND_NONE || ins->rnd == PTX_RND_RN) &&
           zn_target_has(l->m, "avx512fp16") && !(off && *off && *off != '0');
}

/* the native f16 result's bits (NaN canonical), .sat applied */
static LLVMValueRef native_one(zn_lfn *l, const ptx_ins *ins, LLVMValueRef *h)
{
    zn_lmod *m = l->m;
    LLVMBuilderRef b = l->b;
    LLVMValueRef x[3];
    for (unsigned i = 0; i < nsrc(ins->op); i++)
        x[i] = zn_to_half(l, h[i], false);
    LLVMValueRef r;
    switch (ins->op) {
    case PTX_OP_add: r = LLVMBuildFAdd(b, x[0], x[1], ""); break;
    case PTX_OP_sub: r = LLVMBuildFSub(b, x[0], x[1], ""); break;
    case PTX_OP_mul: r = LLVMBuildFMul(b, x[0], x[1], ""); break;
    default: {
        LLVMTypeRef vh = LLVMTypeOf(x[0]);
        r = ll_intrin(l, "llvm.fma", &vh, 1, x, 3);
        break;
    }
    }
    if (ins->flags & PTX_F(sat)) /* exact both ways: r is a half */
        r = LLVMBuildFPTrunc(b, zn_fsat(l, LLVMBuildFPExt(b, r, ll_vec(m->t_f32), "")),
                             LLVMTypeOf(r), "");
    LLVMValueRef nan = LLVMBuildFCmp(b, LLVMRealUNO, r, r, "");
    return LLVMBuildSelect(b, nan, c16(l, 0x7fff), zn_from_half(l, r), "");
}

/* Whether f32 arithmetic rounded to the 16-bit format gives the correctly
 * rounded result: to nearest, a + b and a * b of p-bit numbers rounded
 * first to q >= 2p + 2 bits and then to p bits round once (Figueroa, "When
 * is double rounding innocuous?", 1995); f32 has q = 24, f16 p = 11, bf16
 * p = 8. An f16 product (22 bits, exponents -48..32) is even exact in
 * f32; a bf16 product can fall below f32's subnormals, so it keeps the f64
 * route, as fma does (a 22-bit product plus a third operand). Checked
 * over all 2^32 non-NaN pairs of f16 and of bf16 addends: no difference
 * from one rounding. The f64 route with its TwoSum residue took four
 * times the instructions, on vectors of doubles (ggml's half2 dot
 * products). */
static bool f32_rounds_once(const ptx_ins *ins, bool bf)
{
    if (ins->rnd != PTX_RND_NONE && ins->rnd != PTX_RND_RN)
        return false;
    return ins->op == PTX_OP_add || ins->op == PTX_OP_sub || (ins->op == PTX_OP_mul && !bf);
}

/* Whether an f16 fma's product and TwoSum residue are exact in f32: the
 * product of two f16 values has 22 bits and exponents -48 .. 32, the sum
 * with a third stays far from f32's overflow and subnormals, so the sum
 * and its residue in f32 are its exact value, which zn_round_odd_f32 then
 * rounds to odd as it does from f64 (24 >= 11 + 2 bits). A bf16 product
 * can fall below f32's subnormals: f64. */
static bool f32_exact_product(const ptx_ins *ins, bool bf)
{
    return !bf && (ins->op == PTX_OP_fma || ins->op == PTX_OP_mad) &&
           (ins->rnd == PTX_RND_NONE || ins->rnd == PTX_RND_RN);
}

/* f32 lanes as type t (f32 or f64) */
static LLVMValueRef widen(zn_lfn *l, LLVMValueRef v, LLVMTypeRef t)
{
    return LLVMTypeOf(v) == t ? v : LLVMBuildFPExt(l->b, v, t, "");
}

/* one element: i16 bits in, i16 bits out; NULL if unsupported */
static LLVMValueRef one(zn_lfn *l, const ptx_ins *ins, LLVMValueRef *h, bool bf)
{
    zn_lmod *m = l->m;
    LLVMBuilderRef b = l->b;
    unsigned n = nsrc(ins->op);
    bool ftz = ins->flags & PTX_F(ftz);
    if (ins->op == PTX_OP_neg)
        return LLVMBuildXor(b, h[0], c16(l, 0x8000), "");
    if (ins->op == PTX_OP_abs)
        return LLVMBuildAnd(b, h[0], c16(l, 0x7fff), "");
    if (native_f16(l, ins, bf))
        return relu_sat_tail(l, ins, native_one(l, ins, h), bf);
    LLVMValueRef f[3];
    for (unsigned i = 0; i < n; i++)
        f[i] = zn_half_to_f32(l, ftz ? ftz16(l, h[i], bf) : h[i], bf);
    LLVMValueRef r;
    LLVMTypeRef dt = ll_vec(m->t_f64);
    switch (ins->op) {
    case PTX_OP_min: case PTX_OP_max:
        r = zn_minmax(l, ins, f[0], f[1]);
        break;
    case PTX_OP_add: case PTX_OP_sub: case PTX_OP_mul:
        if (f32_rounds_once(ins, bf)) {
            r = ins->op == PTX_OP_add ? LLVMBuildFAdd(b, f[0], f[1], "")
              : ins->op == PTX_OP_sub ? LLVMBuildFSub(b, f[0], f[1], "")
                                      : LLVMBuildFMul(b, f[0], f[1], "");
            break;
        }
        /* fall through */
    case PTX_OP_fma: case PTX_OP_mad: {
        LLVMValueRef x, y, e;
        if (f32_exact_product(ins, bf))
            dt = ll_vec(m->t_f32);
        LLVMValueRef d0 = widen(l, f[0], dt), d1 = widen(l, f[1], dt);
        if (ins->op == PTX_OP_add || ins->op == PTX_OP_sub) {
            x = d0;
            y = ins->op == PTX_OP_sub ? LLVMBuildFNeg(b, d1, "") : d1;
        } else {
            x = LLVMBuildFMul(b, d0, d1, ""); /* exact */
            /* mul: -0 is the additive identity that keeps x's sign */
            y = ins->op == PTX_OP_mul ? LLVMBuildFNeg(b, LLVMConstNull(dt), "")
                                      : widen(l, f[2], dt);
        }
        LLVMValueRef s = LLVMBuildFAdd(b, x, y, "");
        LLVMValueRef bb = LLVMBuildFSub(b, s, x, "");
        e = LLVMBuildFAdd(b, LLVMBuildFSub(b, x, LLVMBuildFSub(b, s, bb, ""), ""),
                          LLVMBuildFSub(b, y, bb, ""), "");
        /* an infinite or NaN sum leaves a NaN residue: no rounding to track */
        LLVMValueRef fin = LLVMBuildFCmp(b, LLVMRealORD, e, e, "");
        e = LLVMBuildSelect(b, fin, e, LLVMConstNull(dt), "");
        r = zn_round_odd_f32(l, s, e);
        break;
    }
    case PTX_OP_ex2: case PTX_OP_tanh:
        r = zn_approx_f32_precise(l, ins->op, f[0]);
        break;
    default:
        return NULL;
    }
    if (ins->flags & PTX_F(sat))
        r = zn_fsat(l, r);
    /* ex2/tanh.approx on f16/bf16 truncate their f32 approximation (an
     * H200's results over all 2^16 inputs are the truncation in 99.3% and
     * 99.6% (ex2 f16/bf16), 88% and 98.5% (tanh) of lanes; rounding to
     * nearest matched 49-93%) */
    bool trunc = ins->op == PTX_OP_ex2 || ins->op == PTX_OP_tanh;
    LLVMValueRef o = zn_f32_to_half(l, r, bf, trunc);
    if (trunc && !bf) { /* but past the f16 range it is an infinity */
        LLVMValueRef big = LLVMBuildFCmp(b, LLVMRealOGE, ll_intrin1(l, "llvm.fabs", r),
                                         ll_const_fvec(m->t_f32, 65536.0), "");
        o = LLVMBuildSelect(b, big, LLVMBuildOr(b, LLVMBuildAnd(b, o, c16(l, 0x8000), ""),
                                                c16(l, 0x7c00), ""), o, "");
    }
    if (ftz && !bf && !trunc) {
        /* a result tiny after rounding to 11 bits with an unbounded
         * exponent is a zero (NVIDIA's rule, see ftz_result in
         * zn_lower_float.c; subnormal results are among them): r scaled by
         * 2^10 rounds to f16 as a normal number where it matters (r is
         * rounded to odd: one more rounding is exact) */
        LLVMValueRef s = zn_f32_to_half(l, LLVMBuildFMul(b, r, ll_const_fvec(m->t_f32, 0x1p10), ""),
                                        false, false);
        LLVMValueRef tiny = LLVMBuildICmp(b, LLVMIntULT, LLVMBuildAnd(b, s, c16(l, 0x7fff), ""),
                                          c16(l, 0x2c00), ""); /* 2^-4 */
        o = LLVMBuildSelect(b, tiny, LLVMBuildAnd(b, o, c16(l, 0x8000), ""), o, "");
    } else if (ftz) {
        o = ftz16(l, o, bf);
    }
    return relu_sat_tail(l, ins, o, bf);
}

void zn_lower_half(zn_lfn *l, const ptx_ins *ins)
{
    zn_lmod *m = l->m;
    ptx_type t = ins->type[0];
    bool x2 = t == PTX_T_F16X2 || t == PTX_T_BF16X2;
    bool bf = t == PTX_T_BF16 || t == PTX_T_BF16X2;
    unsigned n = nsrc(ins->op);
    LLVMValueRef raw[3], res[2];
    for (unsigned i = 0; i < n; i++)
        raw[i] = zn_src(l, &ins->opnds[1 + i], t);
    for (unsigned p = 0; p < (x2 ? 2u : 1u); p++) {
        LLVMValueRef h[3];
        for (unsigned i = 0; i < n; i++)
            h[i] = part(l, raw[i], p, x2);
        res[p] = one(l, ins, h, bf);
        if (!res[p]) {
            zn_lerr_unsupported(l);
            return;
        }
    }
    LLVMValueRef d = res[0];
    if (x2) /* the halves back in memory order (part) */
        d = LLVMBuildBitCast(l->b, ll_join_halves(l, res[0], res[1]), ll_vec(m->t_i32), "");
    zn_dst(l, &ins->opnds[0], t, d);
}
