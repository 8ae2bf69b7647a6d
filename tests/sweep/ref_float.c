/* ref_float.c: f32 and f64 arithmetic in each rounding mode (the host FPU
 * under fesetround; this file is built with -frounding-math), with PTX's
 * .ftz (subnormal inputs become zeros of the same sign, and so do results
 * that are tiny after rounding with an unbounded exponent: NVIDIA's rule), .sat (clamp to [+0, 1], NaN -> +0) and
 * NaN results (f32: the canonical 0x7fffffff; f64: any NaN, see nan_any). */
#include <fenv.h>
#include <math.h>
#include "sweep.h"

#define REF(id) void ref_##id(const uint64_t *in, uint64_t *out)

enum { OP_ADD, OP_SUB, OP_MUL, OP_FMA, OP_DIV, OP_SQRT, OP_RCP };
enum { F_FTZ = 1, F_SAT = 2 };
static const int modes[4] = {FE_TONEAREST, FE_TOWARDZERO, FE_DOWNWARD, FE_UPWARD};

/* The operations sit in functions of their own, called between the
 * fesetround calls: GCC may move plain arithmetic across fesetround even
 * under -frounding-math (it did, at -O3). */
__attribute__((noinline)) static float op32(int op, float a_, float b_, float c_)
{
    volatile float a = a_, b = b_, c = c_;   /* not a const function */
    switch (op) {
    case OP_ADD: return a + b;
    case OP_SUB: return a - b;
    case OP_MUL: return a * b;
    case OP_FMA: return fmaf(a, b, c);
    case OP_DIV: return a / b;
    case OP_SQRT: return sqrtf(a);
    default: return 1.0f / a;
    }
}
__attribute__((noinline)) static double op64(int op, double a_, double b_, double c_)
{
    volatile double a = a_, b = b_, c = c_;   /* not a const function */
    switch (op) {
    case OP_ADD: return a + b;
    case OP_SUB: return a - b;
    case OP_MUL: return a * b;
    case OP_FMA: return fma(a, b, c);
    case OP_DIV: return a / b;
    case OP_SQRT: return sqrt(a);
    default: return 1.0 / a;
    }
}

/* .ftz's tininess (NVIDIA's rule, measured on an H200): the exact result
 * rounded to 24 bits with an unbounded exponent, in the instruction's
 * rounding mode, below the smallest normal. Computed as the double result
 * rounded to odd (so one more rounding is exact), scaled by 2^64 and
 * rounded to f32 where no f32 is subnormal. */
static int tiny_after_rounding(int op, float a, float b, float c, int rnd)
{
    feclearexcept(FE_INEXACT);
    fesetround(FE_TOWARDZERO);
    volatile double r = op64(op, a, b, c);
    int inexact = fetestexcept(FE_INEXACT) != 0;
    double d = r;
    if (inexact && isfinite(d))
        d = sw_d(sw_db(d) | 1);
    fesetround(modes[rnd]);
    volatile float s = (float)(d * 0x1p64);
    fesetround(FE_TONEAREST);
    return fabsf(s) < 0x1p-62f;
}

static uint64_t f32_op(int op, const uint64_t *in, int rnd, int flags)
{
    float a = sw_f(in[0]), b = sw_f(in[1]), c = sw_f(in[2]);
    if (flags & F_FTZ)
        a = sw_ftz_f(a), b = sw_ftz_f(b), c = sw_ftz_f(c);
    fesetround(modes[rnd]);
    volatile float r = op32(op, a, b, c);
    fesetround(FE_TONEAREST);
    float g = r;
    if ((flags & F_FTZ) && !isnan(g) && tiny_after_rounding(op, a, b, c, rnd))
        g = copysignf(0.0f, r);
    if (flags & F_SAT)
        g = isnan(g) ? 0.0f : g <= 0.0f ? 0.0f : g > 1.0f ? 1.0f : g;
    return isnan(g) ? SW_NAN_F32 : sw_fb(g);
}

static uint64_t f64_op(int op, const uint64_t *in, int rnd)
{
    fesetround(modes[rnd]);
    volatile double r = op64(op, sw_d(in[0]), sw_d(in[1]), sw_d(in[2]));
    fesetround(FE_TONEAREST);
    return sw_db(r);
}

#define F32R(op, OP)                                                            \
    REF(op##_rn_f32) { out[0] = f32_op(OP, in, 0, 0); }                       \
    REF(op##_rz_f32) { out[0] = f32_op(OP, in, 1, 0); }                       \
    REF(op##_rm_f32) { out[0] = f32_op(OP, in, 2, 0); }                       \
    REF(op##_rp_f32) { out[0] = f32_op(OP, in, 3, 0); }                       \
    REF(op##_rn_ftz_f32) { out[0] = f32_op(OP, in, 0, F_FTZ); }               \
    REF(op##_rz_ftz_f32) { out[0] = f32_op(OP, in, 1, F_FTZ); }               \
    REF(op##_rm_ftz_f32) { out[0] = f32_op(OP, in, 2, F_FTZ); }               \
    REF(op##_rp_ftz_f32) { out[0] = f32_op(OP, in, 3, F_FTZ); }               \
    REF(op##_rn_sat_f32) { out[0] = f32_op(OP, in, 0, F_SAT); }               \
    REF(op##_rn_ftz_sat_f32) { out[0] = f32_op(OP, in, 0, F_FTZ | F_SAT); }  \
    REF(op##_rn_f64) { out[0] = f64_op(OP, in, 0); }                          \
    REF(op##_rz_f64) { out[0] = f64_op(OP, in, 1); }                          \
    REF(op##_rm_f64) { out[0] = f64_op(OP, in, 2); }                          \
    REF(op##_rp_f64) { out[0] = f64_op(OP, in, 3); }
F32R(add, OP_ADD)
F32R(sub, OP_SUB)
F32R(mul, OP_MUL)
F32R(fma, OP_FMA)
F32R(div, OP_DIV)
F32R(sqrt, OP_SQRT)
F32R(rcp, OP_RCP)

/* min/max: a NaN operand gives the other one, two NaNs the canonical NaN;
 * -0 is below +0. .NaN: any NaN operand gives the canonical NaN.
 * .xorsign.abs: min/max of the magnitudes, sign = sign(a) ^ sign(b). */
static double pick(double a, double b, int max)
{
    if (isnan(a))
        return b;
    if (isnan(b))
        return a;
    if (a == b)   /* +0 / -0 */
        return (signbit(a) != 0) == !max ? a : b;
    return (a < b) == !max ? a : b;
}
static uint64_t mm32(const uint64_t *in, int max, int ftz, int nanprop)
{
    float a = sw_f(in[0]), b = sw_f(in[1]);
    if (ftz)
        a = sw_ftz_f(a), b = sw_ftz_f(b);
    if (nanprop && (isnan(a) || isnan(b)))
        return SW_NAN_F32;
    float r = (float)pick(a, b, max);
    return isnan(r) ? SW_NAN_F32 : sw_fb(r);
}
REF(min_f32) { out[0] = mm32(in, 0, 0, 0); }
REF(max_f32) { out[0] = mm32(in, 1, 0, 0); }
REF(min_ftz_f32) { out[0] = mm32(in, 0, 1, 0); }
REF(max_ftz_f32) { out[0] = mm32(in, 1, 1, 0); }
REF(min_NaN_f32) { out[0] = mm32(in, 0, 0, 1); }
REF(max_NaN_f32) { out[0] = mm32(in, 1, 0, 1); }
REF(min_f64) { out[0] = sw_db(pick(sw_d(in[0]), sw_d(in[1]), 0)); }
REF(max_f64) { out[0] = sw_db(pick(sw_d(in[0]), sw_d(in[1]), 1)); }
static uint64_t xorsign(const uint64_t *in, int max)
{
    float a = sw_f(in[0]), b = sw_f(in[1]);
    float r = (float)pick(fabsf(a), fabsf(b), max);
    if (isnan(r))
        return SW_NAN_F32;
    return sw_fb(r) | (((uint32_t)in[0] ^ (uint32_t)in[1]) & 0x80000000u);
}
REF(min_xorsign_abs_f32) { out[0] = xorsign(in, 0); }
REF(max_xorsign_abs_f32) { out[0] = xorsign(in, 1); }
