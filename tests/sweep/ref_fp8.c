/* ref_fp8.c: cvt to and from the 8-bit float pairs (e4m3x2, e5m2x2) and to
 * tf32. Written from the PTX ISA and the OCP FP8 formats, by a method of
 * its own: every fp8 code is decoded from its bit fields into an exact
 * double (e4m3: bias 7, no infinities, NaN S.1111.111, largest 448;
 * e5m2: bias 15, IEEE-like, largest 57344), and a conversion to fp8 picks
 * the nearest decoded value by exact comparison in double (ties: the even
 * code), not by shifting bits. .satfinite: beyond the largest finite value
 * (infinities too) -> the largest finite with the sign; NaN -> 0x7f.
 * .relu: negative results (and -0) -> +0, NaN stays NaN. fp8 -> f16 is
 * exact; a NaN gives 0x7fff. tf32: the f32 value rounded to 10 fraction
 * bits by scaling with the tf32 ulp and rounding to an integer; NaNs as an
 * H200 gives them (tf32()). */
#include <fenv.h>
#include <math.h>
#include "sweep.h"

#define REF(id) void ref_##id(const uint64_t *in, uint64_t *out)

/* the magnitude of code c (0..0x7f) of the format, exact; NAN for NaN codes */
static double fp8_value(unsigned c, int e5m2)
{
    unsigned mb = e5m2 ? 2 : 3, eb = e5m2 ? 5 : 4, bias = e5m2 ? 15 : 7;
    unsigned e = (c >> mb) & ((1u << eb) - 1), m = c & ((1u << mb) - 1);
    if (e5m2 && e == 31)
        return m ? NAN : INFINITY;
    if (!e5m2 && e == 15 && m == 7)
        return NAN;
    if (e == 0)
        return ldexp(m, 1 - (int)bias - (int)mb);
    return ldexp(m | (1u << mb), (int)e - (int)bias - (int)mb);
}

/* x -> fp8 code: round to nearest even, .satfinite, optional .relu */
static unsigned fp8_encode(double x, int e5m2, int relu)
{
    unsigned maxc = e5m2 ? 0x7b : 0x7e;
    if (isnan(x))
        return 0x7f;
    unsigned sign = signbit(x) ? 0x80 : 0;
    double a = fabs(x);
    /* codes 0..maxc increase with their value: find the last one <= a */
    unsigned lo = 0, hi = maxc;
    while (lo < hi) {
        unsigned mid = (lo + hi + 1) / 2;
        if (fp8_value(mid, e5m2) <= a)
            lo = mid;
        else
            hi = mid - 1;
    }
    unsigned c = lo;
    if (c < maxc) {
        double below = fp8_value(c, e5m2), above = fp8_value(c + 1, e5m2);
        double mid = below + (above - below) / 2; /* exact: a few bits */
        if (a > mid || (a == mid && (c & 1)))
            c++;
    }
    /* c == maxc for everything beyond: .satfinite */
    if (relu && sign)
        return 0;
    return c | sign;
}

/* fp8 code -> f16 bits (exact) */
static uint16_t fp8_to_h(unsigned c, int e5m2, int relu)
{
    double v = fp8_value(c & 0x7f, e5m2);
    if (isnan(v))
        return 0x7fff;
    if (relu && (c & 0x80))
        return 0;
    return sw_f2h((c & 0x80) ? -v : v, 0);
}

static uint64_t pair_f32(const uint64_t *in, int e5m2, int relu)
{
    return fp8_encode(sw_f(in[0]), e5m2, relu) << 8 | fp8_encode(sw_f(in[1]), e5m2, relu);
}

static uint64_t pair_f16x2(const uint64_t *in, int e5m2, int relu)
{
    return fp8_encode(sw_h2f((uint16_t)(in[0] >> 16)), e5m2, relu) << 8 |
           fp8_encode(sw_h2f((uint16_t)in[0]), e5m2, relu);
}

static uint64_t to_f16x2(const uint64_t *in, int e5m2, int relu)
{
    unsigned a = (uint16_t)in[0];
    return (uint64_t)fp8_to_h(a >> 8, e5m2, relu) << 16 | fp8_to_h(a & 0xff, e5m2, relu);
}

REF(cvt_rn_satfinite_e4m3x2_f32) { out[0] = pair_f32(in, 0, 0); }
REF(cvt_rn_satfinite_e5m2x2_f32) { out[0] = pair_f32(in, 1, 0); }
REF(cvt_rn_satfinite_relu_e4m3x2_f32) { out[0] = pair_f32(in, 0, 1); }
REF(cvt_rn_satfinite_relu_e5m2x2_f32) { out[0] = pair_f32(in, 1, 1); }
REF(cvt_rn_satfinite_e4m3x2_f16x2) { out[0] = pair_f16x2(in, 0, 0); }
REF(cvt_rn_satfinite_e5m2x2_f16x2) { out[0] = pair_f16x2(in, 1, 0); }
REF(cvt_rn_satfinite_relu_e4m3x2_f16x2) { out[0] = pair_f16x2(in, 0, 1); }
REF(cvt_rn_satfinite_relu_e5m2x2_f16x2) { out[0] = pair_f16x2(in, 1, 1); }
REF(cvt_rn_f16x2_e4m3x2) { out[0] = to_f16x2(in, 0, 0); }
REF(cvt_rn_f16x2_e5m2x2) { out[0] = to_f16x2(in, 1, 0); }
REF(cvt_rn_relu_f16x2_e4m3x2) { out[0] = to_f16x2(in, 0, 1); }
REF(cvt_rn_relu_f16x2_e5m2x2) { out[0] = to_f16x2(in, 1, 1); }

/* ---- tf32: rnd 0 rn (ties even), 1 rz, 4 rna (ties away) ---- */
static double round_to_int(double y, int rnd)
{
    if (rnd == 1)
        return trunc(y);
    if (rnd == 4)
        return round(y);
    double r = floor(y), f = y - r; /* exact: |y| < 2^12 */
    return f > 0.5 || (f == 0.5 && fmod(r, 2) != 0) ? r + 1 : r;
}

static uint64_t tf32(uint64_t x, int rnd, int sat, int relu)
{
    float f = sw_f(x);
    /* NaN (measured on an H200): .rn/.rz/.relu give the canonical NaN with
     * the tf32 low bits clear; .rna keeps the input's bits, truncated (a NaN
     * with only low payload bits becomes an infinity); .rna.satfinite
     * subtracts one tf32 ulp from that, as it does to an infinity */
    if (isnan(f)) {
        uint32_t t = (uint32_t)x & ~0x1fffu;
        return rnd != 4 ? 0x7fffe000u : sat ? t - 0x2000u : t;
    }
    double v = f, r = v;
    if (isfinite(v) && v != 0) {
        int e = ilogb(v) < -126 ? -126 : ilogb(v);
        double q = ldexp(1, e - 10); /* the tf32 ulp at v */
        r = copysign(round_to_int(v / q, rnd) * q, v); /* -tiny -> -0 */
    }
    const double maxv = ldexp(2047, 117); /* (2 - 2^-10) * 2^127 */
    if (fabs(r) > maxv)
        r = sat ? copysign(maxv, v) : copysign(INFINITY, v);
    if (relu && signbit(r))
        r = 0;
    return sw_fb((float)r);
}

REF(cvt_rna_tf32_f32) { out[0] = tf32(in[0], 4, 0, 0); }
REF(cvt_rna_satfinite_tf32_f32) { out[0] = tf32(in[0], 4, 1, 0); }
REF(cvt_rn_tf32_f32) { out[0] = tf32(in[0], 0, 0, 0); }
REF(cvt_rz_tf32_f32) { out[0] = tf32(in[0], 1, 0, 0); }
REF(cvt_rn_relu_tf32_f32) { out[0] = tf32(in[0], 0, 0, 1); }
