/* zn_lower_approx.c: ex2/lg2/sin/cos/tanh.approx.f32 as straight-line
 * vector code.
 *
 * LLVM's exp2/log2/sin/cos/tanh intrinsics on vectors become one libm call
 * per lane. ex2 (the hot one: every expf) stays in f32 lanes (see
 * approx_ex2_f32). For the others each f32 lane is widened to f64, where a short polynomial
 * after an exact range reduction is accurate to ~1e-10 relative, and the
 * result is rounded back to f32 once: nearly always the correctly rounded
 * value, far inside PTX's bounds (ex2: 2 ulp, lg2: 2^-22 abs, sin/cos:
 * 2^-20.9 abs, tanh: 2^-11 rel). The f64 form also makes the range
 * handling trivial: every f32 input, subnormals included, is a normal f64,
 * and 2^n for |n| <= 200 is a normal f64 whose rounding to f32 gives the
 * right overflow (inf) and gradual underflow. .ftz is applied by the
 * caller to inputs and outputs. */
#include "zn_lower.h"

#include <math.h>

static LLVMValueRef dconst(zn_lfn *l, double v)
{
    return ll_const_fvec(l->m->t_f64, v);
}

/* x's element type's constant v in every lane (f32 or f64 code) */
static LLVMValueRef like(LLVMValueRef x, double v)
{
    return ll_const_fvec(ll_elem(LLVMTypeOf(x)), v);
}

/* Horner: c[0] + x * (c[1] + x * (... c[n-1])), in x's float type */
static LLVMValueRef horner(zn_lfn *l, LLVMValueRef x, const double *c, int n)
{
    LLVMValueRef acc = like(x, c[n - 1]);
    for (int i = n - 2; i >= 0; i--)
        acc = ll_intrin3(l, "llvm.fma", acc, x, like(x, c[i]));
    return acc;
}

/* c[k] = ln2^k / k!: 2^f = e^(f ln 2) = sum c[k] f^k */
static void exp2_series(double *c, int n)
{
    double t = 1.0;
    for (int k = 0; k < n; k++) {
        c[k] = t;
        t *= M_LN2 / (k + 1);
    }
}

/* 2^d for f64 lanes with |d| <= 200 (callers clamp): d = n + f, |f| <= 1/2,
 * 2^f = e^(f ln 2) by its Taylor series to degree 9 (truncation < 1e-13). */
static LLVMValueRef exp2_core(zn_lfn *l, LLVMValueRef d)
{
    zn_lmod *m = l->m;
    double c[10];
    exp2_series(c, 10);
    LLVMValueRef n = ll_intrin1(l, "llvm.rint", d);
    LLVMValueRef p = horner(l, LLVMBuildFSub(l->b, d, n, ""), c, 10);
    LLVMTypeRef vi = ll_vec(m->t_i64);
    LLVMValueRef e = LLVMBuildAdd(l->b, LLVMBuildFPToSI(l->b, n, vi, ""),
                                  ll_const_vec(m->t_i64, 1023), "");
    LLVMValueRef scale = LLVMBuildBitCast(l->b,
        LLVMBuildShl(l->b, e, ll_const_vec(m->t_i64, 52), ""), ll_vec(m->t_f64), "");
    return LLVMBuildFMul(l->b, p, scale, "");
}

static LLVMValueRef clamp(zn_lfn *l, LLVMValueRef d, double lo, double hi)
{
    d = ll_intrin2(l, "llvm.maxnum", d, like(d, lo)); /* NaN -> lo */
    return ll_intrin2(l, "llvm.minnum", d, like(d, hi));
}

/* NaN inputs give NaN (the clamps above lost them) */
static LLVMValueRef keep_nan(zn_lfn *l, LLVMValueRef x, LLVMValueRef r)
{
    LLVMValueRef nan = LLVMBuildFCmp(l->b, LLVMRealUNO, x, x, "");
    return LLVMBuildSelect(l->b, nan, x, r, "");
}

/* ex2.approx.f32 in f32 lanes (twice as many per vector as f64, no
 * conversions: softmax's and GELU's expf is this instruction): x = n + f,
 * |f| <= 1/2 exact, 2^f = e^(f ln 2) by its Taylor series to degree 7
 * (truncation < 6e-9 relative, 0.05 ulp), evaluated with FMAs; then 2^n
 * in two steps of 2^(n/2) so that every scale is a normal f32 and the one
 * rounding is the last multiply (overflow to inf, gradual underflow). The
 * sweep's 2-ulp check over all edge cases and 10^5 random inputs holds
 * it to PTX's bound; the f64 form was ~4x the instructions. */
static LLVMValueRef approx_ex2_f32(zn_lfn *l, LLVMValueRef x)
{
    zn_lmod *m = l->m;
    LLVMBuilderRef b = l->b;
    LLVMValueRef c = clamp(l, x, -160.0, 160.0);
    LLVMValueRef n = ll_intrin1(l, "llvm.rint", c);
    double k[8];
    exp2_series(k, 8);   /* rounded to f32 by horner's constants */
    LLVMValueRef p = horner(l, LLVMBuildFSub(b, c, n, ""), k, 8);
    LLVMValueRef ni = LLVMBuildFPToSI(b, n, ll_vec(m->t_i32), "");
    LLVMValueRef half[2] = {LLVMBuildAShr(b, ni, ll_const_vec(m->t_i32, 1), ""), NULL};
    half[1] = LLVMBuildSub(b, ni, half[0], "");
    for (int i = 0; i < 2; i++) {   /* p * 2^(n/2) * 2^(n - n/2) */
        LLVMValueRef e = LLVMBuildAdd(b, half[i], ll_const_vec(m->t_i32, 127), "");
        LLVMValueRef scale = LLVMBuildBitCast(b, LLVMBuildShl(b, e, ll_const_vec(m->t_i32, 23),
                                              ""), ll_vec(m->t_f32), "");
        p = LLVMBuildFMul(b, p, scale, "");
    }
    return keep_nan(l, x, p);
}

/* log2(x) = e + log2(m), m in [sqrt(1/2), sqrt(2)); log2(m) =
 * 2/ln2 * atanh(s), s = (m-1)/(m+1), |s| <= 0.172, series to s^17. */
static LLVMValueRef approx_lg2(zn_lfn *l, LLVMValueRef d)
{
    zn_lmod *m = l->m;
    LLVMTypeRef vi = ll_vec(m->t_i64), vd = ll_vec(m->t_f64);
    LLVMValueRef bits = LLVMBuildBitCast(l->b, d, vi, "");
    LLVMValueRef e = LLVMBuildSub(l->b,
        LLVMBuildLShr(l->b, LLVMBuildAnd(l->b, bits, ll_const_vec(m->t_i64, 0x7ff0000000000000ull), ""),
                      ll_const_vec(m->t_i64, 52), ""),
        ll_const_vec(m->t_i64, 1023), "");
    LLVMValueRef mant = LLVMBuildBitCast(l->b, LLVMBuildOr(l->b,
        LLVMBuildAnd(l->b, bits, ll_const_vec(m->t_i64, 0x000fffffffffffffull), ""),
        ll_const_vec(m->t_i64, 0x3ff0000000000000ull), ""), vd, "");
    LLVMValueRef big = LLVMBuildFCmp(l->b, LLVMRealOGT, mant, dconst(l, M_SQRT2), "");
    mant = LLVMBuildSelect(l->b, big, LLVMBuildFMul(l->b, mant, dconst(l, 0.5), ""), mant, "");
    LLVMValueRef ef = LLVMBuildSIToFP(l->b, e, vd, "");
    ef = LLVMBuildSelect(l->b, big, LLVMBuildFAdd(l->b, ef, dconst(l, 1.0), ""), ef, "");
    LLVMValueRef s = LLVMBuildFDiv(l->b, LLVMBuildFSub(l->b, mant, dconst(l, 1.0), ""),
                                   LLVMBuildFAdd(l->b, mant, dconst(l, 1.0), ""), "");
    LLVMValueRef s2 = LLVMBuildFMul(l->b, s, s, "");
    double c[9];
    for (int k = 0; k < 9; k++)
        c[k] = 2.0 / M_LN2 / (2 * k + 1);
    LLVMValueRef r = ll_intrin3(l, "llvm.fma", s, horner(l, s2, c, 9), ef);
    /* 0 -> -inf, negative -> NaN, +inf -> +inf, NaN -> NaN */
    LLVMValueRef zero = LLVMBuildFCmp(l->b, LLVMRealOEQ, d, dconst(l, 0.0), "");
    LLVMValueRef neg = LLVMBuildFCmp(l->b, LLVMRealOLT, d, dconst(l, 0.0), "");
    LLVMValueRef inf = LLVMBuildFCmp(l->b, LLVMRealOEQ, d, dconst(l, INFINITY), "");
    r = LLVMBuildSelect(l->b, inf, d, r, "");
    r = LLVMBuildSelect(l->b, neg, dconst(l, NAN), r, "");
    r = LLVMBuildSelect(l->b, zero, dconst(l, -INFINITY), r, "");
    return keep_nan(l, d, r);
}

/* sin (cos_shift 0) or cos (1): x = k pi/2 + r with |r| <= pi/4 (two-part
 * pi/2, fma), then the Taylor polynomials of sin r / cos r and the quadrant
 * (k + cos_shift) mod 4. Infinite and NaN inputs give NaN. */
static LLVMValueRef approx_sincos(zn_lfn *l, LLVMValueRef d, int cos_shift)
{
    zn_lmod *m = l->m;
    LLVMTypeRef vi = ll_vec(m->t_i32);
    LLVMValueRef finite = LLVMBuildFCmp(l->b, LLVMRealOLT, ll_intrin1(l, "llvm.fabs", d),
                                        dconst(l, INFINITY), "");
    LLVMValueRef x = LLVMBuildSelect(l->b, finite, d, dconst(l, 0.0), "");
    LLVMValueRef k = ll_intrin1(l, "llvm.rint", LLVMBuildFMul(l->b, x, dconst(l, M_2_PI), ""));
    LLVMValueRef nk = LLVMBuildFNeg(l->b, k, "");
    LLVMValueRef r = ll_intrin3(l, "llvm.fma", nk, dconst(l, 1.5707963267948966), x);
    r = ll_intrin3(l, "llvm.fma", nk, dconst(l, 6.123233995736766e-17), r);
    /* quadrant: k - 4 floor(k / 4) is exact for every f64 integer */
    LLVMValueRef q = LLVMBuildFSub(l->b, k, LLVMBuildFMul(l->b, dconst(l, 4.0),
        ll_intrin1(l, "llvm.floor", LLVMBuildFMul(l->b, k, dconst(l, 0.25), "")), ""), "");
    LLVMValueRef qi = LLVMBuildAdd(l->b, LLVMBuildFPToSI(l->b, q, vi, ""),
                                   ll_const_vec(m->t_i32, (uint64_t)cos_shift), "");
    LLVMValueRef r2 = LLVMBuildFMul(l->b, r, r, "");
    double cs[7], cc[8];
    double f = 1.0;
    for (int i = 0; i < 15; i++) {
        if (i)
            f /= i;                       /* f = 1 / i! */
        double sg = (i / 2) % 2 ? -1.0 : 1.0;
        if (i % 2 && i / 2 < 7)
            cs[i / 2] = sg * f;           /* sin: r * sum (-1)^j r^2j / (2j+1)! */
        else if (!(i % 2) && i / 2 < 8)
            cc[i / 2] = sg * f;           /* cos: sum (-1)^j r^2j / (2j)! */
    }
    LLVMValueRef sn = LLVMBuildFMul(l->b, r, horner(l, r2, cs, 7), "");
    LLVMValueRef cn = horner(l, r2, cc, 8);
    LLVMValueRef odd = LLVMBuildTrunc(l->b, qi, ll_vec(m->t_i1), "");
    LLVMValueRef negq = LLVMBuildTrunc(l->b, LLVMBuildLShr(l->b, qi, ll_const_vec(m->t_i32, 1), ""),
                                       ll_vec(m->t_i1), "");
    LLVMValueRef v = LLVMBuildSelect(l->b, odd, cn, sn, "");
    v = LLVMBuildSelect(l->b, negq, LLVMBuildFNeg(l->b, v, ""), v, "");
    /* huge arguments lose the reduction; stay a sine at least */
    v = clamp(l, v, -1.0, 1.0);
    return LLVMBuildSelect(l->b, finite, v, dconst(l, NAN), "");
}

/* tanh x = 1 - 2 / (e^2|x| + 1) with the sign of x; |x| < 1/8: the series
 * x - x^3/3 + 2x^5/15 (no cancellation). |x| >= 20 is +-1 in f32. */
static LLVMValueRef approx_tanh(zn_lfn *l, LLVMValueRef d)
{
    LLVMValueRef a = clamp(l, ll_intrin1(l, "llvm.fabs", d), 0.0, 20.0);
    LLVMValueRef e = exp2_core(l, LLVMBuildFMul(l->b, a, dconst(l, 2.0 * M_LOG2E), ""));
    LLVMValueRef t = LLVMBuildFSub(l->b, dconst(l, 1.0),
        LLVMBuildFDiv(l->b, dconst(l, 2.0), LLVMBuildFAdd(l->b, e, dconst(l, 1.0), ""), ""), "");
    t = ll_intrin2(l, "llvm.copysign", t, d);
    LLVMValueRef d2 = LLVMBuildFMul(l->b, d, d, "");
    static const double c[3] = {1.0, -1.0 / 3.0, 2.0 / 15.0};
    LLVMValueRef sm = LLVMBuildFMul(l->b, d, horner(l, d2, c, 3), "");
    LLVMValueRef small = LLVMBuildFCmp(l->b, LLVMRealOLT, a, dconst(l, 0.125), "");
    LLVMValueRef r = LLVMBuildSelect(l->b, small, sm, t, "");
    /* as NVIDIA's tanh.approx (fitted to an H200's f16 and f32 answers):
     * x itself below |x| = 0.0039349, +-1 from |x| = 8 on */
    LLVMValueRef tiny = LLVMBuildFCmp(l->b, LLVMRealOLT, a, dconst(l, 0.0039349), "");
    LLVMValueRef one = LLVMBuildFCmp(l->b, LLVMRealOGE, a, dconst(l, 8.0), "");
    r = LLVMBuildSelect(l->b, tiny, d, r, "");
    r = LLVMBuildSelect(l->b, one, ll_intrin2(l, "llvm.copysign", dconst(l, 1.0), d), r, "");
    return keep_nan(l, d, r);
}

/* sin/cos.approx's argument as NVIDIA GPUs take it (fitted to every lane
 * an H200 gave): in revolutions, x times 1/(2 pi) as an f32 constant, the
 * product rounded toward zero to f32, of which only the fraction counts.
 * Returns 2 pi times that fraction (f64), for approx_sincos: so the error
 * against sin x grows with |x| as on the GPU (8.6e-5 at x = -1175.4), and
 * the result stays within 2^-21 of the GPU's everywhere. */
static LLVMValueRef gpu_revolutions(zn_lfn *l, LLVMValueRef d)
{
    zn_lmod *m = l->m;
    LLVMBuilderRef b = l->b;
    LLVMTypeRef v32 = ll_vec(m->t_f32), vi = ll_vec(m->t_i32);
    LLVMValueRef t = LLVMBuildFMul(b, d, dconst(l, (double)(float)(1 / (2 * M_PI))), ""); /* exact */
    LLVMValueRef t32 = LLVMBuildFPTrunc(b, t, v32, "");
    /* toward zero: one step back where rounding went up in magnitude */
    LLVMValueRef up = LLVMBuildFCmp(b, LLVMRealOGT,
                                    ll_intrin1(l, "llvm.fabs", LLVMBuildFPExt(b, t32, ll_vec(m->t_f64), "")),
                                    ll_intrin1(l, "llvm.fabs", t), "");
    LLVMValueRef bits = LLVMBuildBitCast(b, t32, vi, "");
    bits = LLVMBuildSub(b, bits, LLVMBuildZExt(b, up, vi, ""), "");
    LLVMValueRef td = LLVMBuildFPExt(b, LLVMBuildBitCast(b, bits, v32, ""), ll_vec(m->t_f64), "");
    LLVMValueRef frac = LLVMBuildFSub(b, td, ll_intrin1(l, "llvm.rint", td), ""); /* exact */
    return LLVMBuildFMul(b, frac, dconst(l, 2 * M_PI), "");
}

/* ex2/tanh for 16-bit results (zn_lower_half.c), which NVIDIA GPUs give as
 * the truncation of an f32 value: here computed in f64 and rounded to f32
 * (the f64 value's own error, ~1e-13, is below that rounding: 2^1 stays
 * 2). Fitted to every 16-bit input of an H200: ex2 takes |x| < 2^-23 as 0
 * (its input is fixed point: 2^-2^-24 is 1.0); tanh's own limits are in
 * approx_tanh. */
LLVMValueRef zn_approx_f32_precise(zn_lfn *l, ptx_op op, LLVMValueRef x)
{
    zn_lmod *m = l->m;
    LLVMBuilderRef b = l->b;
    LLVMValueRef d = LLVMBuildFPExt(b, x, ll_vec(m->t_f64), "");
    LLVMValueRef r;
    if (op == PTX_OP_ex2) { /* f16/bf16 inputs: 2^x stays inside (2^-200, 2^200) */
        LLVMValueRef tiny = LLVMBuildFCmp(b, LLVMRealOLT, ll_intrin1(l, "llvm.fabs", d),
                                          dconst(l, 0x1p-23), "");
        d = LLVMBuildSelect(b, tiny, dconst(l, 0.0), d, "");
        r = keep_nan(l, d, exp2_core(l, clamp(l, d, -200.0, 200.0)));
    } else {
        r = approx_tanh(l, d);
    }
    return LLVMBuildFPTrunc(b, r, ll_vec(m->t_f32), "");
}

LLVMValueRef zn_approx_f32(zn_lfn *l, ptx_op op, LLVMValueRef x)
{
    zn_lmod *m = l->m;
    if (op == PTX_OP_ex2)
        return approx_ex2_f32(l, x);
    LLVMValueRef d = LLVMBuildFPExt(l->b, x, ll_vec(m->t_f64), "");
    LLVMValueRef r;
    switch (op) {
    case PTX_OP_lg2: r = approx_lg2(l, d); break;
    case PTX_OP_sin: r = approx_sincos(l, gpu_revolutions(l, d), 0); break;
    case PTX_OP_cos: r = approx_sincos(l, gpu_revolutions(l, d), 1); break;
    case PTX_OP_tanh: r = approx_tanh(l, d); break;
    default: return NULL;
    }
    return LLVMBuildFPTrunc(l->b, r, ll_vec(m->t_f32), "");
}
