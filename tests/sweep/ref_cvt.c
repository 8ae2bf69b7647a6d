/* ref_cvt.c: cvt in the forms nvcc emits. Integer <-> integer: extension by
 * the source's signedness, truncation, .sat clamps to the destination
 * range; a sub-word destination is extended to its register by the
 * destination's signedness. Float -> integer: round (.rni even, .rzi,
 * .rmi, .rpi), NaN -> 0 or the integer indefinite (f2i), out of range
 * saturates. Integer -> float and f64 -> f32: host conversion under
 * fesetround. f16/bf16: ref_util.c's encoder. NaN results: canonical for
 * f32/f16/bf16 destinations, except from f64 (nan_narrow). */
#include <fenv.h>
#include <math.h>
#include "sweep.h"

#define REF(id) void ref_##id(const uint64_t *in, uint64_t *out)
#define A in[0]
static const int modes[4] = {FE_TONEAREST, FE_TOWARDZERO, FE_DOWNWARD, FE_UPWARD};

/* ---- integer <-> integer ---- */
static int64_t clampi(int64_t v, int64_t lo, int64_t hi) { return v < lo ? lo : v > hi ? hi : v; }
REF(cvt_u32_u16) { out[0] = (uint16_t)A; }
REF(cvt_s32_s16) { out[0] = (uint32_t)(int32_t)(int16_t)A; }
REF(cvt_u16_u32) { out[0] = (uint16_t)A; }
REF(cvt_s16_s32) { out[0] = (uint16_t)A; }
REF(cvt_s32_s8) { out[0] = (uint32_t)(int32_t)(int8_t)A; }
REF(cvt_u32_u8) { out[0] = (uint8_t)A; }
REF(cvt_s64_s32) { out[0] = (uint64_t)(int64_t)(int32_t)A; }
REF(cvt_u64_u32) { out[0] = (uint32_t)A; }
REF(cvt_s64_u32) { out[0] = (uint32_t)A; }
REF(cvt_u32_u64) { out[0] = (uint32_t)A; }
REF(cvt_s32_s64) { out[0] = (uint32_t)A; }
REF(cvt_u64_s32) { out[0] = (uint64_t)(int64_t)(int32_t)A; }
REF(cvt_sat_s16_s32) { out[0] = (uint16_t)clampi((int32_t)A, INT16_MIN, INT16_MAX); }
REF(cvt_sat_u16_s32) { out[0] = (uint16_t)clampi((int32_t)A, 0, UINT16_MAX); }
REF(cvt_sat_s8_s32) { out[0] = (uint16_t)(int16_t)clampi((int32_t)A, INT8_MIN, INT8_MAX); }
REF(cvt_sat_u8_s32) { out[0] = (uint16_t)clampi((int32_t)A, 0, UINT8_MAX); }
REF(cvt_sat_s32_s64) { out[0] = (uint32_t)clampi((int64_t)A, INT32_MIN, INT32_MAX); }
REF(cvt_sat_u32_s64) { out[0] = (uint32_t)clampi((int64_t)A, 0, UINT32_MAX); }
REF(cvt_sat_s32_u32) { out[0] = (uint32_t)A > INT32_MAX ? INT32_MAX : (uint32_t)A; }
REF(cvt_sat_u32_s32) { out[0] = (uint32_t)clampi((int32_t)A, 0, INT32_MAX); }
REF(cvt_sat_u64_s64) { out[0] = (int64_t)A < 0 ? 0 : A; }
REF(cvt_sat_s64_u64) { out[0] = A > INT64_MAX ? INT64_MAX : A; }
REF(cvt_sat_s8_u16) { out[0] = (uint16_t)A > 127 ? 127 : (uint16_t)A; }
REF(cvt_sat_u32_u64) { out[0] = A > UINT32_MAX ? UINT32_MAX : A; }

/* ---- float -> integer ---- */
static long double rnd_int(long double x, int r)
{
    switch (r) {
    case 0: return nearbyintl(x);     /* default mode: ties to even */
    case 1: return truncl(x);
    case 2: return floorl(x);
    default: return ceill(x);
    }
}
/* NaN (measured on an H200): 0 from f32 into 32 bits or fewer; the
 * "integer indefinite" (only the top bit set) from f64 into 32 bits and
 * from either into 64 bits */
static uint64_t f2i(long double x, int r, int sign, int bits, int from64)
{
    if (isnan(x))
        return bits == 64 ? 1ull << 63 : from64 && bits == 32 ? 0x80000000u : 0;
    long double v = rnd_int(x, r);
    long double lo = sign ? -ldexpl(1, bits - 1) : 0;
    long double hi = sign ? ldexpl(1, bits - 1) - 1 : ldexpl(1, bits) - 1;
    if (v < lo)
        v = lo;
    if (v > hi)
        v = hi;
    uint64_t u = sign ? (uint64_t)(int64_t)v : (uint64_t)v;
    return bits == 64 ? u : u & ((1ull << bits) - 1);
}
#define F2I(r, R, it, S, W)                                                          \
    REF(cvt_##r##_##it##_f32) { out[0] = f2i(sw_f(A), R, S, W, 0); }            \
    REF(cvt_##r##_##it##_f64) { out[0] = f2i(sw_d(A), R, S, W, 1); }
#define F2I_ALL(r, R) F2I(r, R, s32, 1, 32) F2I(r, R, u32, 0, 32) F2I(r, R, s64, 1, 64) F2I(r, R, u64, 0, 64)
F2I_ALL(rni, 0)
F2I_ALL(rzi, 1)
F2I_ALL(rmi, 2)
F2I_ALL(rpi, 3)
REF(cvt_rzi_s16_f32) { out[0] = f2i(sw_f(A), 1, 1, 16, 0); }
REF(cvt_rni_u16_f32) { out[0] = f2i(sw_f(A), 0, 0, 16, 0); }
REF(cvt_rpi_ftz_s32_f32) { out[0] = f2i(sw_ftz_f(sw_f(A)), 3, 1, 32, 0); }
REF(cvt_rmi_ftz_s32_f32) { out[0] = f2i(sw_ftz_f(sw_f(A)), 2, 1, 32, 0); }
REF(cvt_rni_s32_f16) { out[0] = f2i(sw_h2f((uint16_t)A), 0, 1, 32, 0); }
REF(cvt_rzi_u32_f16) { out[0] = f2i(sw_h2f((uint16_t)A), 1, 0, 32, 0); }

/* ---- integer -> float ----
 * conversions in functions of their own (see ref_float.c: GCC may move
 * arithmetic across fesetround) */
__attribute__((noinline)) static float ld2f(long double x_) { volatile long double x = x_; return (float)x; }
__attribute__((noinline)) static double ld2d(long double x_) { volatile long double x = x_; return (double)x; }
__attribute__((noinline)) static float d2f_(double x_) { volatile double x = x_; return (float)x; }
static uint64_t i2f32(uint64_t v, int sign, int bits, int r)
{
    volatile long double x = sign ? (long double)(int64_t)(bits == 32 ? (uint64_t)(int64_t)(int32_t)v : v)
                                  : (long double)(bits == 32 ? (uint32_t)v : v);
    fesetround(modes[r]);
    volatile float f = ld2f(x);
    fesetround(FE_TONEAREST);
    return sw_fb(f);
}
static uint64_t i2f64(uint64_t v, int sign, int bits, int r)
{
    volatile long double x = sign ? (long double)(int64_t)(bits == 32 ? (uint64_t)(int64_t)(int32_t)v : v)
                                  : (long double)(bits == 32 ? (uint32_t)v : v);
    fesetround(modes[r]);
    volatile double d = ld2d(x);
    fesetround(FE_TONEAREST);
    return sw_db(d);
}
#define I2F(r, R)                                                                     \
    REF(cvt_##r##_f32_s32) { out[0] = i2f32(A, 1, 32, R); }                        \
    REF(cvt_##r##_f32_u32) { out[0] = i2f32(A, 0, 32, R); }                        \
    REF(cvt_##r##_f32_s64) { out[0] = i2f32(A, 1, 64, R); }                        \
    REF(cvt_##r##_f32_u64) { out[0] = i2f32(A, 0, 64, R); }                        \
    REF(cvt_##r##_f64_s32) { out[0] = i2f64(A, 1, 32, R); }                        \
    REF(cvt_##r##_f64_u32) { out[0] = i2f64(A, 0, 32, R); }                        \
    REF(cvt_##r##_f64_s64) { out[0] = i2f64(A, 1, 64, R); }                        \
    REF(cvt_##r##_f64_u64) { out[0] = i2f64(A, 0, 64, R); }
I2F(rn, 0)
I2F(rz, 1)
I2F(rm, 2)
I2F(rp, 3)
REF(cvt_rn_f32_s16) { out[0] = sw_fb((float)(int16_t)A); }
REF(cvt_rn_f16_s32) { out[0] = sw_f2h((double)(int32_t)A, 0); }
REF(cvt_rz_f16_u32) { out[0] = sw_f2h((double)(uint32_t)A, 1); }

/* ---- float -> float ---- */
static uint64_t canon32(float f) { return isnan(f) ? SW_NAN_F32 : sw_fb(f); }
REF(cvt_f64_f32) { out[0] = sw_db((double)sw_f(A)); }
REF(cvt_ftz_f64_f32) { out[0] = sw_db((double)sw_ftz_f(sw_f(A))); }
/* a NaN narrowed from f64 (measured on an H200): quiet, with the sign and
 * the top bits of the payload (frac: the destination's fraction bits) */
static uint64_t nan_narrow(uint64_t a, int frac, int expbits)
{
    uint64_t top = (a >> 63) << (frac + expbits), quiet = 1ull << (frac - 1);
    return top | ((1ull << expbits) - 1) << frac | quiet | ((a & ((1ull << 52) - 1)) >> (52 - frac));
}
static uint64_t d2f(uint64_t a, int r, int ftz, int sat)
{
    volatile double d = sw_d(a);
    if (isnan(d) && !sat)
        return nan_narrow(a, 23, 8);
    /* .ftz: a result tiny after rounding with an unbounded exponent is a
     * zero (NVIDIA's rule, measured on an H200) */
    if (ftz) {
        fesetround(modes[r]);
        volatile float s = (float)(d * 0x1p64);
        fesetround(FE_TONEAREST);
        if (fabsf(s) < 0x1p-62f)
            return sw_fb(copysignf(0.0f, (float)d));
    }
    fesetround(modes[r]);
    volatile float f = d2f_(d);
    fesetround(FE_TONEAREST);
    float g = f;
    if (ftz)
        g = sw_ftz_f(g);
    if (sat)
        g = isnan(g) ? 0.0f : g <= 0.0f ? 0.0f : g > 1.0f ? 1.0f : g;
    return canon32(g);
}
REF(cvt_rn_f32_f64) { out[0] = d2f(A, 0, 0, 0); }
REF(cvt_rz_f32_f64) { out[0] = d2f(A, 1, 0, 0); }
REF(cvt_rm_f32_f64) { out[0] = d2f(A, 2, 0, 0); }
REF(cvt_rp_f32_f64) { out[0] = d2f(A, 3, 0, 0); }
REF(cvt_rn_ftz_f32_f64) { out[0] = d2f(A, 0, 1, 0); }
REF(cvt_rn_sat_f32_f64) { out[0] = d2f(A, 0, 0, 1); }
#define F2FI(r, R)                                                                     \
    REF(cvt_##r##_f32_f32) { out[0] = canon32((float)rnd_int(sw_f(A), R)); }       \
    REF(cvt_##r##_f64_f64) { out[0] = sw_db((double)rnd_int(sw_d(A), R)); }
F2FI(rni, 0)
F2FI(rzi, 1)
F2FI(rmi, 2)
F2FI(rpi, 3)
REF(cvt_rni_ftz_f32_f32) { out[0] = canon32((float)rnd_int(sw_ftz_f(sw_f(A)), 0)); }
REF(cvt_ftz_f32_f32) { out[0] = canon32(sw_ftz_f(sw_f(A))); }
static float sat(float g) { return isnan(g) ? 0.0f : g <= 0.0f ? 0.0f : g > 1.0f ? 1.0f : g; }
REF(cvt_sat_f32_f32) { out[0] = sw_fb(sat(sw_f(A))); }
REF(cvt_rzi_sat_f32_f32) { out[0] = sw_fb(sat((float)rnd_int(sw_f(A), 1))); }

/* ---- f16 / bf16 ---- */
REF(cvt_rn_f16_f32) { out[0] = sw_f2h(sw_f(A), 0); }
REF(cvt_rz_f16_f32) { out[0] = sw_f2h(sw_f(A), 1); }
REF(cvt_rm_f16_f32) { out[0] = sw_f2h(sw_f(A), 2); }
REF(cvt_rp_f16_f32) { out[0] = sw_f2h(sw_f(A), 3); }
REF(cvt_rn_ftz_f16_f32) { out[0] = sw_f2h(sw_ftz_f(sw_f(A)), 0); }
REF(cvt_rn_sat_f16_f32) { out[0] = sw_f2h(sat(sw_f(A)), 0); }
REF(cvt_f32_f16) { out[0] = sw_fb(sw_h2f((uint16_t)A)); }
REF(cvt_ftz_f32_f16) { out[0] = sw_fb(sw_h2f((uint16_t)A)); }
REF(cvt_rn_f16_f64) { out[0] = isnan(sw_d(A)) ? nan_narrow(A, 10, 5) : sw_f2h(sw_d(A), 0); }
REF(cvt_f64_f16) { out[0] = sw_db(sw_h2f((uint16_t)A)); }
REF(cvt_rn_bf16_f32) { out[0] = sw_f2bf(sw_f(A), 0); }
REF(cvt_rz_bf16_f32) { out[0] = sw_f2bf(sw_f(A), 1); }
REF(cvt_rm_bf16_f32) { out[0] = sw_f2bf(sw_f(A), 2); }
REF(cvt_rp_bf16_f32) { out[0] = sw_f2bf(sw_f(A), 3); }
REF(cvt_f32_bf16) { out[0] = sw_fb(sw_bf2f((uint16_t)A)); }
/* {a, b} -> d with a in the upper half */
REF(cvt_rn_f16x2_f32) { out[0] = (uint32_t)sw_f2h(sw_f(A), 0) << 16 | sw_f2h(sw_f(in[1]), 0); }
REF(cvt_rn_bf16x2_f32) { out[0] = (uint32_t)sw_f2bf(sw_f(A), 0) << 16 | sw_f2bf(sw_f(in[1]), 0); }
static uint16_t relu16(uint16_t h) { return (h & 0x7fff) > 0x7c00 ? 0x7fff : (h & 0x8000) ? 0 : h; }
REF(cvt_rn_relu_f16x2_f32)
{
    out[0] = (uint32_t)relu16(sw_f2h(sw_f(A), 0)) << 16 | relu16(sw_f2h(sw_f(in[1]), 0));
}

/* bf16 from f64 (one rounding), and .relu (NaN -> 0x7fff, negative -> +0) */
REF(cvt_rn_bf16_f64) { out[0] = isnan(sw_d(A)) ? nan_narrow(A, 7, 8) : sw_f2bf(sw_d(A), 0); }
static uint16_t relubf(uint16_t h) { return (h & 0x7fff) > 0x7f80 ? 0x7fff : (h & 0x8000) ? 0 : h; }
REF(cvt_rn_relu_bf16_f32) { out[0] = relubf(sw_f2bf(sw_f(A), 0)); }
REF(cvt_rn_relu_bf16x2_f32)
{
    out[0] = (uint32_t)relubf(sw_f2bf(sw_f(A), 0)) << 16 | relubf(sw_f2bf(sw_f(in[1]), 0));
}

/* .rz pairs, and .satfinite: an infinity (input or rounded) becomes the
 * largest finite value of its sign, NaN stays the canonical NaN */
static uint16_t satfin(uint16_t h, int bf)
{
    uint16_t inf = bf ? 0x7f80 : 0x7c00;
    return (h & 0x7fff) == inf ? (uint16_t)((h & 0x8000) | (inf - 1)) : h;
}
static uint32_t pair(uint16_t hi, uint16_t lo) { return (uint32_t)hi << 16 | lo; }
REF(cvt_rz_f16x2_f32) { out[0] = pair(sw_f2h(sw_f(A), 1), sw_f2h(sw_f(in[1]), 1)); }
REF(cvt_rz_bf16x2_f32) { out[0] = pair(sw_f2bf(sw_f(A), 1), sw_f2bf(sw_f(in[1]), 1)); }
REF(cvt_rz_relu_f16x2_f32) { out[0] = pair(relu16(sw_f2h(sw_f(A), 1)), relu16(sw_f2h(sw_f(in[1]), 1))); }
REF(cvt_rz_relu_bf16x2_f32) { out[0] = pair(relubf(sw_f2bf(sw_f(A), 1)), relubf(sw_f2bf(sw_f(in[1]), 1))); }
REF(cvt_rn_satfinite_f16x2_f32)
{
    out[0] = pair(satfin(sw_f2h(sw_f(A), 0), 0), satfin(sw_f2h(sw_f(in[1]), 0), 0));
}
REF(cvt_rn_satfinite_bf16x2_f32)
{
    out[0] = pair(satfin(sw_f2bf(sw_f(A), 0), 1), satfin(sw_f2bf(sw_f(in[1]), 0), 1));
}
REF(cvt_rz_satfinite_f16x2_f32)
{
    out[0] = pair(satfin(sw_f2h(sw_f(A), 1), 0), satfin(sw_f2h(sw_f(in[1]), 1), 0));
}
REF(cvt_rn_relu_satfinite_bf16x2_f32)
{
    out[0] = pair(relubf(satfin(sw_f2bf(sw_f(A), 0), 1)), relubf(satfin(sw_f2bf(sw_f(in[1]), 0), 1)));
}
REF(cvt_rn_relu_f16_f32) { out[0] = relu16(sw_f2h(sw_f(A), 0)); }
REF(cvt_rn_satfinite_f16_f32) { out[0] = satfin(sw_f2h(sw_f(A), 0), 0); }
REF(cvt_rz_satfinite_f16_f32) { out[0] = satfin(sw_f2h(sw_f(A), 1), 0); }
REF(cvt_rn_satfinite_bf16_f32) { out[0] = satfin(sw_f2bf(sw_f(A), 0), 1); }
REF(cvt_rz_relu_satfinite_bf16_f32) { out[0] = relubf(satfin(sw_f2bf(sw_f(A), 1), 1)); }
