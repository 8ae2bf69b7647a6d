/* zn_lower_round.c: IEEE directed rounding (.rz .rm .rp) without changing
 * the FPU's mode.
 *
 * Each operation is computed round-to-nearest, r, together with a value
 * whose sign is the sign of (exact result - r) (zero when r is exact),
 * obtained with error-free transformations: TwoSum for add, fma residues
 * for mul/div/sqrt, and for f32 an f64 computation whose own error is
 * tracked. r is always one of the two representable values around the
 * exact result, so one step towards the wanted direction fixes it. */
#include "zn_lower.h"

#include <stdlib.h>

static LLVMTypeRef int_of(zn_lfn *l, LLVMTypeRef fvt)
{
    return ll_vec(LLVMIntTypeInContext(l->m->ctx, ll_bits(fvt)));
}

/* next representable value towards +inf (dir = 1) or -inf (dir = -1) */
static LLVMValueRef step(zn_lfn *l, LLVMValueRef x, int dir)
{
    LLVMBuilderRef b = l->b;
    LLVMTypeRef vt = LLVMTypeOf(x), it = int_of(l, vt);
    LLVMValueRef bits = LLVMBuildBitCast(b, x, it, "");
    LLVMValueRef zero = LLVMConstNull(vt);
    LLVMValueRef one = ll_const_vec(ll_elem(it), 1);
    /* moving away from zero adds one to the magnitude bits */
    LLVMValueRef away = dir > 0 ? LLVMBuildFCmp(b, LLVMRealOGE, x, zero, "")
                                : LLVMBuildFCmp(b, LLVMRealOLE, x, zero, "");
    LLVMValueRef nb = LLVMBuildSelect(b, away, LLVMBuildAdd(b, bits, one, ""),
                                      LLVMBuildSub(b, bits, one, ""), "");
    LLVMValueRef r = LLVMBuildBitCast(b, nb, vt, "");
    /* from either zero the next value is the smallest subnormal of that sign */
    LLVMValueRef tiny = LLVMBuildBitCast(b, one, vt, "");
    if (dir < 0)
        tiny = LLVMBuildFNeg(b, tiny, "");
    LLVMValueRef isz = LLVMBuildFCmp(b, LLVMRealOEQ, x, zero, "");
    return LLVMBuildSelect(b, isz, tiny, r, "");
}

LLVMValueRef zn_round_fix(zn_lfn *l, LLVMValueRef r, LLVMValueRef err, ptx_rnd rnd)
{
    LLVMBuilderRef b = l->b;
    LLVMTypeRef vt = LLVMTypeOf(r), et = LLVMTypeOf(err);
    LLVMValueRef ez = LLVMConstNull(et), rz = LLVMConstNull(vt);
    /* an overflow to infinity leaves a NaN residue: the error is -r */
    LLVMValueRef ovf = LLVMBuildAnd(b, LLVMBuildFCmp(b, LLVMRealUNO, err, err, ""),
        LLVMBuildFCmp(b, LLVMRealOEQ, ll_intrin1(l, "llvm.fabs", r),
                      ll_const_fvec(ll_elem(vt), __builtin_inf()), ""), "");
    LLVMValueRef negr = LLVMBuildFNeg(b, r, "");
    if (et != vt)
        negr = LLVMBuildFPExt(b, negr, et, "");
    err = LLVMBuildSelect(b, ovf, negr, err, "");
    LLVMValueRef pos = LLVMBuildFCmp(b, LLVMRealOGT, err, ez, "");
    LLVMValueRef neg = LLVMBuildFCmp(b, LLVMRealOLT, err, ez, "");
    switch (rnd) {
    case PTX_RND_RP:
        return LLVMBuildSelect(b, pos, step(l, r, 1), r, "");
    case PTX_RND_RM:
        return LLVMBuildSelect(b, neg, step(l, r, -1), r, "");
    case PTX_RND_RZ: {
        LLVMValueRef rpos = LLVMBuildFCmp(b, LLVMRealOGT, r, rz, "");
        LLVMValueRef rneg = LLVMBuildFCmp(b, LLVMRealOLT, r, rz, "");
        LLVMValueRef down = LLVMBuildAnd(b, rpos, neg, "");
        LLVMValueRef up = LLVMBuildAnd(b, rneg, pos, "");
        LLVMValueRef x = LLVMBuildSelect(b, down, step(l, r, -1), r, "");
        return LLVMBuildSelect(b, up, step(l, r, 1), x, "");
    }
    default:
        return r;
    }
}

LLVMValueRef zn_fop_directed1(zn_lfn *l, ptx_op op, LLVMValueRef *s, ptx_rnd rnd);

/* TwoSum: s = a + b rounded, *e = the exact error (a + b = s + e) */
static LLVMValueRef two_sum(zn_lfn *l, LLVMValueRef a, LLVMValueRef bv, LLVMValueRef *e)
{
    LLVMBuilderRef b = l->b;
    LLVMValueRef s = LLVMBuildFAdd(b, a, bv, "");
    LLVMValueRef bb = LLVMBuildFSub(b, s, a, "");
    LLVMValueRef ea = LLVMBuildFSub(b, a, LLVMBuildFSub(b, s, bb, ""), "");
    LLVMValueRef eb = LLVMBuildFSub(b, bv, bb, "");
    *e = LLVMBuildFAdd(b, ea, eb, "");
    return s;
}

/* exact zero sums are -0 when rounding down unless both addends are +0 */
static LLVMValueRef zero_sign(zn_lfn *l, LLVMValueRef r, LLVMValueRef a, LLVMValueRef bv,
                              ptx_rnd rnd)
{
    if (rnd != PTX_RND_RM)
        return r;
    LLVMBuilderRef b = l->b;
    LLVMTypeRef vt = LLVMTypeOf(r), it = int_of(l, LLVMTypeOf(a));
    LLVMValueRef az = LLVMBuildICmp(b, LLVMIntEQ, LLVMBuildBitCast(b, a, it, ""),
                                    LLVMConstNull(it), "");
    LLVMValueRef bz = LLVMBuildICmp(b, LLVMIntEQ, LLVMBuildBitCast(b, bv, it, ""),
                                    LLVMConstNull(it), "");
    LLVMValueRef isz = LLVMBuildFCmp(b, LLVMRealOEQ, r, LLVMConstNull(vt), "");
    LLVMValueRef negz = LLVMBuildFNeg(b, LLVMConstNull(vt), "");
    LLVMValueRef want = LLVMBuildSelect(b, LLVMBuildAnd(b, az, bz, ""), LLVMConstNull(vt),
                                        negz, "");
    return LLVMBuildSelect(b, isz, want, r, "");
}

/* a + b with directed rounding (sub: the caller negates b) */
static LLVMValueRef add_dir(zn_lfn *l, LLVMValueRef a, LLVMValueRef bv, ptx_rnd rnd)
{
    zn_lmod *m = l->m;
    LLVMBuilderRef b = l->b;
    LLVMTypeRef vt = LLVMTypeOf(a);
    LLVMValueRef e, r, err;
    if (ll_elem(vt) == m->t_f32) {
        LLVMTypeRef dt = ll_vec(m->t_f64);
        LLVMValueRef s = two_sum(l, LLVMBuildFPExt(b, a, dt, ""), LLVMBuildFPExt(b, bv, dt, ""), &e);
        r = LLVMBuildFPTrunc(b, s, vt, "");
        err = LLVMBuildFAdd(b, LLVMBuildFSub(b, s, LLVMBuildFPExt(b, r, dt, ""), ""), e, "");
    } else {
        r = two_sum(l, a, bv, &err);
    }
    return zero_sign(l, zn_round_fix(l, r, err, rnd), a, bv, rnd);
}

/* The wider type in which a product of two values is exact: f64 for f32,
 * fp128 (113 bits, soft float from libgcc_s) for f64. The wide exponent
 * range also keeps every residue below exact, even for subnormal results. */
static LLVMTypeRef wide_of(zn_lfn *l, LLVMTypeRef vt)
{
    zn_lmod *m = l->m;
    return ll_vec(ll_elem(vt) == m->t_f32 ? m->t_f64 : LLVMFP128TypeInContext(m->ctx));
}

/* r = the wide value w rounded to nearest in vt; the error's sign is that of
 * (w - r) + e, where e is the (smaller) residue of w itself. w - r is exact
 * in the wide type, and when it is not zero it outweighs e. */
static LLVMValueRef narrow_fix(zn_lfn *l, LLVMValueRef w, LLVMValueRef e, LLVMTypeRef vt,
                               ptx_rnd rnd)
{
    LLVMBuilderRef b = l->b;
    LLVMValueRef r = LLVMBuildFPTrunc(b, w, vt, "");
    LLVMValueRef d = LLVMBuildFSub(b, w, LLVMBuildFPExt(b, r, LLVMTypeOf(w), ""), "");
    if (e)
        d = LLVMBuildFAdd(b, d, e, "");
    return zn_round_fix(l, r, d, rnd);
}

static LLVMValueRef mul_dir(zn_lfn *l, LLVMValueRef a, LLVMValueRef bv, ptx_rnd rnd)
{
    LLVMBuilderRef b = l->b;
    LLVMTypeRef vt = LLVMTypeOf(a), wt = wide_of(l, vt);
    LLVMValueRef p = LLVMBuildFMul(b, LLVMBuildFPExt(b, a, wt, ""),
                                   LLVMBuildFPExt(b, bv, wt, ""), ""); /* exact */
    return narrow_fix(l, p, NULL, vt, rnd);
}

static LLVMValueRef fma_dir(zn_lfn *l, LLVMValueRef a, LLVMValueRef bv, LLVMValueRef c,
                            ptx_rnd rnd)
{
    LLVMBuilderRef b = l->b;
    LLVMTypeRef vt = LLVMTypeOf(a), wt = wide_of(l, vt);
    LLVMValueRef p = LLVMBuildFMul(b, LLVMBuildFPExt(b, a, wt, ""),
                                   LLVMBuildFPExt(b, bv, wt, ""), ""); /* exact */
    LLVMValueRef e, s = two_sum(l, p, LLVMBuildFPExt(b, c, wt, ""), &e);
    LLVMValueRef r = narrow_fix(l, s, e, vt, rnd);
    if (rnd != PTX_RND_RM)
        return r;
    /* an exact zero sum is -0 when rounding down unless both terms are +0 */
    LLVMValueRef wz = LLVMConstNull(wt);
    LLVMValueRef exact0 = LLVMBuildAnd(b, LLVMBuildFCmp(b, LLVMRealOEQ, s, wz, ""),
                                       LLVMBuildFCmp(b, LLVMRealOEQ, e, wz, ""), "");
    LLVMValueRef z = zero_sign(l, r, LLVMBuildFPTrunc(b, p, vt, ""), c, rnd);
    return LLVMBuildSelect(b, exact0, z, r, "");
}

/* q = a / b: the wide quotient rounded to vt; when that is exact in the wide
 * type, a - r*b (exact there: r*b fits, Sterbenz) gives the error's sign */
static LLVMValueRef div_dir(zn_lfn *l, LLVMValueRef a, LLVMValueRef bv, ptx_rnd rnd)
{
    LLVMBuilderRef b = l->b;
    LLVMTypeRef vt = LLVMTypeOf(a), wt = wide_of(l, vt);
    LLVMValueRef wa = LLVMBuildFPExt(b, a, wt, ""), wb = LLVMBuildFPExt(b, bv, wt, "");
    LLVMValueRef q = LLVMBuildFDiv(b, wa, wb, "");
    LLVMValueRef r = LLVMBuildFPTrunc(b, q, vt, "");
    LLVMValueRef wr = LLVMBuildFPExt(b, r, wt, "");
    LLVMValueRef d = LLVMBuildFSub(b, q, wr, "");
    LLVMValueRef rem = LLVMBuildFSub(b, wa, LLVMBuildFMul(b, wr, wb, ""), "");
    rem = LLVMBuildFMul(b, rem, ll_intrin2(l, "llvm.copysign",
                                           ll_const_fvec(ll_elem(wt), 1.0), wb), "");
    LLVMValueRef dz = LLVMBuildFCmp(b, LLVMRealOEQ, d, LLVMConstNull(wt), "");
    return zn_round_fix(l, r, LLVMBuildSelect(b, dz, rem, d, ""), rnd);
}

/* f32: in f64 like div; f64: scaled up by 2^108 when tiny so that the fma
 * residue is exact (the root of a tiny f64 is a normal number, so scaling
 * it back down by 2^54 is exact) */
static LLVMValueRef sqrt_dir(zn_lfn *l, LLVMValueRef a, ptx_rnd rnd)
{
    zn_lmod *m = l->m;
    LLVMBuilderRef b = l->b;
    LLVMTypeRef vt = LLVMTypeOf(a);
    if (ll_elem(vt) == m->t_f32) {
        LLVMTypeRef wt = ll_vec(m->t_f64);
        LLVMValueRef wa = LLVMBuildFPExt(b, a, wt, "");
        LLVMValueRef q = ll_intrin1(l, "llvm.sqrt", wa);
        LLVMValueRef r = LLVMBuildFPTrunc(b, q, vt, "");
        LLVMValueRef wr = LLVMBuildFPExt(b, r, wt, "");
        LLVMValueRef d = LLVMBuildFSub(b, q, wr, "");
        LLVMValueRef rem = LLVMBuildFSub(b, wa, LLVMBuildFMul(b, wr, wr, ""), "");
        LLVMValueRef dz = LLVMBuildFCmp(b, LLVMRealOEQ, d, LLVMConstNull(wt), "");
        return zn_round_fix(l, r, LLVMBuildSelect(b, dz, rem, d, ""), rnd);
    }
    LLVMValueRef tiny = LLVMBuildFCmp(b, LLVMRealOLT, ll_intrin1(l, "llvm.fabs", a),
                                      ll_const_fvec(m->t_f64, 0x1p-900), "");
    LLVMValueRef sa = LLVMBuildSelect(b, tiny, LLVMBuildFMul(b, a,
                                      ll_const_fvec(m->t_f64, 0x1p108), ""), a, "");
    LLVMValueRef q = ll_intrin1(l, "llvm.sqrt", sa);
    LLVMValueRef rem = ll_intrin3(l, "llvm.fma", LLVMBuildFNeg(b, q, ""), q, sa);
    LLVMValueRef r = zn_round_fix(l, q, rem, rnd);
    return LLVMBuildSelect(b, tiny, LLVMBuildFMul(b, r, ll_const_fvec(m->t_f64, 0x1p-54), ""),
                           r, "");
}

/* infinite operands give exact results: no step then */
static LLVMValueRef keep_inf(zn_lfn *l, LLVMValueRef r, LLVMValueRef fixed,
                             LLVMValueRef *s, unsigned n, bool div)
{
    LLVMBuilderRef b = l->b;
    LLVMTypeRef et = ll_elem(LLVMTypeOf(s[0]));
    LLVMValueRef exact = ll_const_vec(l->m->t_i1, 0);
    for (unsigned i = 0; i < n; i++) {
        LLVMValueRef inf = LLVMBuildFCmp(b, LLVMRealOEQ, ll_intrin1(l, "llvm.fabs", s[i]),
                                         ll_const_fvec(et, __builtin_inf()), "");
        exact = LLVMBuildOr(b, exact, inf, "");
    }
    if (div) /* x / 0 is an exact infinity */
        exact = LLVMBuildOr(b, exact, LLVMBuildFCmp(b, LLVMRealOEQ, s[n - 1],
                                                    LLVMConstNull(LLVMTypeOf(s[0])), ""), "");
    return LLVMBuildSelect(b, exact, r, fixed, "");
}

/* AVX-512's embedded rounding: add/sub/mul/div/sqrt/fma of 512-bit
 * vectors round in the direction the instruction names (EVEX.b with a
 * rounding-control field, exceptions suppressed) whatever the MXCSR mode;
 * IEEE-exact, subnormals included (kernels run without FTZ/DAZ,
 * exec/zn_fpenv.h). One instruction per 16 f32 / 8 f64 lanes instead of
 * the error-free transformations below (CUDA's expf does an fma.rm per
 * element). ZINC_NO_EMBEDDED_ROUNDING=1 keeps the portable path (CI sweeps
 * it that way too). NULL: not this op or type. */
static LLVMValueRef embedded(zn_lfn *l, ptx_op op, LLVMValueRef *s, ptx_rnd rnd)
{
    zn_lmod *m = l->m;
    LLVMTypeRef et = ll_elem(LLVMTypeOf(s[0]));
    if ((et != m->t_f32 && et != m->t_f64) || !zn_target_has(m, "avx512f") ||
        getenv("ZINC_NO_EMBEDDED_ROUNDING"))
        return NULL;
    const char *name;
    unsigned n = 2;
    bool f32 = et == m->t_f32;
    switch (op) {
    case PTX_OP_add: name = f32 ? "llvm.x86.avx512.add.ps.512" : "llvm.x86.avx512.add.pd.512"; break;
    case PTX_OP_sub: name = f32 ? "llvm.x86.avx512.sub.ps.512" : "llvm.x86.avx512.sub.pd.512"; break;
    case PTX_OP_mul: name = f32 ? "llvm.x86.avx512.mul.ps.512" : "llvm.x86.avx512.mul.pd.512"; break;
    case PTX_OP_div: case PTX_OP_rcp:
        name = f32 ? "llvm.x86.avx512.div.ps.512" : "llvm.x86.avx512.div.pd.512";
        break;
    case PTX_OP_sqrt:
        name = f32 ? "llvm.x86.avx512.sqrt.ps.512" : "llvm.x86.avx512.sqrt.pd.512";
        n = 1;
        break;
    case PTX_OP_fma: case PTX_OP_mad:
        name = f32 ? "llvm.x86.avx512.vfmadd.ps.512" : "llvm.x86.avx512.vfmadd.pd.512";
        n = 3;
        break;
    default:
        return NULL;
    }
    LLVMValueRef src[3];
    if (op == PTX_OP_rcp) {   /* 1 / s[0]: rcp has no s[1] */
        src[0] = ll_const_fvec(et, 1.0);
        src[1] = s[0];
    } else {
        for (unsigned i = 0; i < n; i++)   /* sqrt has no s[1], add no s[2] */
            src[i] = s[i];
    }
    /* _MM_FROUND_NO_EXC | towards -inf (1), +inf (2), zero (3) */
    unsigned rc = 8 | (rnd == PTX_RND_RM ? 1 : rnd == PTX_RND_RP ? 2 : 3);
    unsigned w = f32 ? 16 : 8;
    LLVMValueRef part[ZN_LANES / 8];
    for (unsigned p = 0; p < ZN_LANES / w; p++) {
        LLVMValueRef args[4];
        for (unsigned i = 0; i < n; i++)
            args[i] = ll_lanes(l, src[i], p * w, w);
        args[n] = LLVMConstInt(m->t_i32, rc, 0);
        part[p] = ll_intrin(l, name, NULL, 0, args, n + 1);
    }
    return ll_concat(l, part, ZN_LANES / w);
}

/* f32/f64 arithmetic with .rz/.rm/.rp; NULL if not supported */
LLVMValueRef zn_fop_directed(zn_lfn *l, ptx_op op, LLVMValueRef *s, ptx_rnd rnd)
{
    LLVMValueRef e = embedded(l, op, s, rnd);
    if (e)
        return e;
    LLVMValueRef r = zn_fop_directed1(l, op, s, rnd);
    if (!r)
        return NULL;
    LLVMBuilderRef b = l->b;
    LLVMValueRef rn;
    switch (op) {
    case PTX_OP_add: rn = LLVMBuildFAdd(b, s[0], s[1], ""); return keep_inf(l, rn, r, s, 2, false);
    case PTX_OP_sub: rn = LLVMBuildFSub(b, s[0], s[1], ""); return keep_inf(l, rn, r, s, 2, false);
    case PTX_OP_mul: rn = LLVMBuildFMul(b, s[0], s[1], ""); return keep_inf(l, rn, r, s, 2, false);
    case PTX_OP_div: rn = LLVMBuildFDiv(b, s[0], s[1], ""); return keep_inf(l, rn, r, s, 2, true);
    case PTX_OP_rcp:
        rn = LLVMBuildFDiv(b, ll_const_fvec(ll_elem(LLVMTypeOf(s[0])), 1.0), s[0], "");
        return keep_inf(l, rn, r, s, 1, true);
    case PTX_OP_sqrt: return keep_inf(l, ll_intrin1(l, "llvm.sqrt", s[0]), r, s, 1, false);
    default:
        return keep_inf(l, ll_intrin3(l, "llvm.fma", s[0], s[1], s[2]), r, s, 3, false);
    }
}

LLVMValueRef zn_fop_directed1(zn_lfn *l, ptx_op op, LLVMValueRef *s, ptx_rnd rnd)
{
    LLVMTypeRef et = ll_elem(LLVMTypeOf(s[0]));
    switch (op) {
    case PTX_OP_add: return add_dir(l, s[0], s[1], rnd);
    case PTX_OP_sub: return add_dir(l, s[0], LLVMBuildFNeg(l->b, s[1], ""), rnd);
    case PTX_OP_mul: return mul_dir(l, s[0], s[1], rnd);
    case PTX_OP_div: return div_dir(l, s[0], s[1], rnd);
    case PTX_OP_rcp: return div_dir(l, ll_const_fvec(et, 1.0), s[0], rnd);
    case PTX_OP_sqrt: return sqrt_dir(l, s[0], rnd);
    case PTX_OP_fma: case PTX_OP_mad:
        return fma_dir(l, s[0], s[1], s[2], rnd);
    default: return NULL;
    }
}

/* float narrowing (f64 -> f32, f32/f64 -> f16/bf16) with directed rounding */
LLVMValueRef zn_fptrunc_directed(zn_lfn *l, LLVMValueRef a, LLVMTypeRef to, ptx_rnd rnd)
{
    LLVMBuilderRef b = l->b;
    LLVMValueRef r = LLVMBuildFPTrunc(b, a, to, "");
    LLVMValueRef err = LLVMBuildFSub(b, a, LLVMBuildFPExt(b, r, LLVMTypeOf(a), ""), "");
    /* an infinite input converts exactly: it is not an overflow */
    LLVMValueRef isinf = LLVMBuildFCmp(b, LLVMRealOEQ, ll_intrin1(l, "llvm.fabs", a),
        ll_const_fvec(ll_elem(LLVMTypeOf(a)), __builtin_inf()), "");
    err = LLVMBuildSelect(b, isinf, LLVMConstNull(LLVMTypeOf(err)), err, "");
    return zn_round_fix(l, r, err, rnd);
}

/* integer -> float with directed rounding: the error's sign comes from
 * comparing with the exact integer in 128 bits */
LLVMValueRef zn_itofp_directed(zn_lfn *l, LLVMValueRef a, bool sign, LLVMTypeRef to,
                               ptx_rnd rnd)
{
    zn_lmod *m = l->m;
    LLVMBuilderRef b = l->b;
    LLVMTypeRef wt = ll_vec(m->t_i128);
    LLVMValueRef r = sign ? LLVMBuildSIToFP(b, a, to, "") : LLVMBuildUIToFP(b, a, to, "");
    LLVMValueRef wa = sign ? LLVMBuildSExt(b, a, wt, "") : LLVMBuildZExt(b, a, wt, "");
    LLVMTypeRef over[2] = {wt, to};
    LLVMValueRef back = ll_intrin(l, "llvm.fptosi.sat", over, 2, &r, 1);
    LLVMValueRef d = LLVMBuildSub(b, wa, back, "");
    LLVMValueRef err = LLVMBuildSIToFP(b, d, to, ""); /* sign kept, never 0 if d != 0 */
    return zn_round_fix(l, r, err, rnd);
}
