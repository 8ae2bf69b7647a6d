/* ref_approx.c: the approximate instructions. The reference gives the
 * exact value (in double, or long double for f64 forms) in out[0]; each
 * checker accepts Zinc's result within the bound the PTX ISA documents for
 * the instruction (bounds listed in docs/sweep.md), with special values
 * (zeros, infinities, NaN) required exactly as the ISA tabulates them.
 * .ftz forms: subnormal inputs are zeros (the reference flushes them) and
 * a result below the smallest normal may be a zero. */
#include <float.h>
#include <math.h>
#include <string.h>
#include "sweep.h"

#define REF(id) void ref_##id(const uint64_t *in, uint64_t *out)

static double in32(const uint64_t *in, int k, int ftz)
{
    float f = sw_f(in[k]);
    return ftz ? sw_ftz_f(f) : f;
}

/* sin/cos.approx as an H200 computes them (fitted to every lane it gave):
 * the argument in revolutions, x times 1/(2 pi) as an f32 constant with the
 * product rounded toward zero to f32, of which only the fraction counts;
 * then sin/cos of 2 pi times that fraction within 2^-21.6. So the error
 * against sin x grows with |x| (8.6e-5 at x = -1175.4), as on the GPU. */
static double revolutions(double x)
{
    if (!isfinite(x))
        return x;
    double t = x * (double)(float)(1 / (2 * M_PI)); /* exact in double */
    float t32 = (float)t;
    if (fabs((double)t32) > fabs(t))
        t32 = nextafterf(t32, 0.0f);
    return (double)t32 - nearbyint((double)t32);
}

#define UN32(name, expr)                                                              \
    REF(name##_approx_f32) { double x = in32(in, 0, 0); out[0] = sw_db(expr); }     \
    REF(name##_approx_ftz_f32) { double x = in32(in, 0, 1); out[0] = sw_db(expr); }
UN32(ex2, exp2(x))
UN32(lg2, x == 0 ? -INFINITY : log2(x))
UN32(sin, sin(2 * M_PI * revolutions(x)))
UN32(cos, cos(2 * M_PI * revolutions(x)))
UN32(rsqrt, x == 0 ? copysign(INFINITY, x) : 1.0 / sqrt(x))
UN32(sqrt, sqrt(x))
UN32(rcp, 1.0 / x)
REF(tanh_approx_f32) { out[0] = sw_db(tanh(in32(in, 0, 0))); }
REF(div_approx_f32) { out[0] = sw_db(in32(in, 0, 0) / in32(in, 1, 0)); }
REF(div_approx_ftz_f32) { out[0] = sw_db(in32(in, 0, 1) / in32(in, 1, 1)); }
REF(div_full_f32) { out[0] = sw_db(in32(in, 0, 0) / in32(in, 1, 0)); }
REF(div_full_ftz_f32) { out[0] = sw_db(in32(in, 0, 1) / in32(in, 1, 1)); }
/* rcp.approx.ftz.f64 as an H200 computes it (fitted to every lane it
 * gave): from the upper 32 bits of the input alone (a NaN whose payload is
 * in the low word is an infinity), an approximation truncated to the
 * upper 32 bits of the result; a NaN gives 0x7fffffff00000000, a result
 * below the smallest normal a zero. The reference gives that truncation of
 * the exact reciprocal; the GPU's is the same or one unit above it in 92%
 * and 8% of lanes (chk_rcp_approx_f64). */
REF(rcp_approx_ftz_f64)
{
    uint64_t hi = in[0] & 0xffffffff00000000ull;
    double x = sw_ftz_d(sw_d(hi));
    if (isnan(x)) {
        out[0] = 0x7fffffff00000000ull;
        return;
    }
    double r = (double)(1.0L / x);
    if (fabs(r) < DBL_MIN)
        r = copysign(0.0, r);
    out[0] = sw_db(r) & 0xffffffff00000000ull;
}
/* f64: the exact value rounded to double is the reference */
REF(rsqrt_approx_f64)
{
    double x = sw_d(in[0]);
    out[0] = sw_db(x == 0 ? copysign(INFINITY, x) : (double)(1.0L / sqrtl(x)));
}

/* the size of one ulp of a float of magnitude |x| (subnormal ulps below) */
static double ulp32(double x)
{
    int e;
    frexp(fabs(x) < FLT_MIN ? FLT_MIN : x, &e);
    return ldexp(1.0, e - 24);
}
static double ulp64(double x)
{
    int e;
    frexp(fabs(x) < DBL_MIN ? DBL_MIN : x, &e);
    return ldexp(1.0, e - 53);
}

/* got (as a double) against want: ulps, relative and absolute bounds, the
 * largest applies */
static int near(double g, double want, int f32, int ftz, double ulps, double rel, double abs_)
{
    if (isnan(want))
        return isnan(g);
    if (isnan(g))
        return 0;
    double top = f32 ? FLT_MAX : DBL_MAX;
    if (isinf(want) || isinf(g)) {
        if (g == want)
            return 1;
        /* results at the top of the range may saturate either way */
        double big = isinf(g) ? want : g;
        return signbit(g) == signbit(want) && fabs(big) >= top * (1 - 8 * (f32 ? FLT_EPSILON : DBL_EPSILON));
    }
    if (ftz && fabs(want) < (f32 ? FLT_MIN : DBL_MIN) * (1 + 4 * FLT_EPSILON) && g == 0)
        return 1;
    double tol = ulps * (f32 ? ulp32(want) : ulp64(want));
    if (rel * fabs(want) > tol)
        tol = rel * fabs(want);
    if (abs_ > tol)
        tol = abs_;
    return fabs(g - want) <= tol;
}

static int ftz_of(const sw_form *f) { return strstr(f->ptx, ".ftz") != NULL; }
#define CHK(name) int name(const sw_form *f, const uint64_t *in, const uint64_t *got, const uint64_t *want)
#define G32 ((double)sw_f(got[0]))
#define W (sw_d(want[0]))

/* ex2.approx.f32: 2 ulp over the full range */
CHK(chk_ex2_approx) { return near(G32, W, 1, ftz_of(f), 2, 0, 0); }
/* lg2.approx.f32: absolute error 2^-21.5 (the ISA says 2^-22.6; an H200
 * reaches 2^-21.97 at x = 0.398 in 10^5 samples), else 2 ulp */
CHK(chk_lg2_approx) { return near(G32, W, 1, ftz_of(f), 2, 0, 0x1.6a09e6p-22); }
/* sin/cos.approx.f32: absolute error 2^-20.5 around the GPU's reduction
 * (revolutions(); the GPU is within 2^-21.6 of it) */
static int trig(const uint64_t *in, const uint64_t *got, const uint64_t *want)
{
    (void)in;
    return near(G32, W, 1, 0, 0, 0, 0x1.6a09e6p-21);
}
CHK(chk_sin_approx) { return trig(in, got, want); }
CHK(chk_cos_approx) { return trig(in, got, want); }
/* rsqrt.approx.f32: relative error 2^-22.9; sqrt.approx.f32: 2^-23 */
CHK(chk_rsqrt_approx) { return near(G32, W, 1, ftz_of(f), 1, 0x1.1p-23, 0); }
CHK(chk_sqrt_approx) { return near(G32, W, 1, ftz_of(f), 1, 0x1p-23, 0); }
/* rcp.approx.f32: 1 ulp */
CHK(chk_rcp_approx) { return near(G32, W, 1, ftz_of(f), 1, 0, 0); }
/* tanh.approx.f32: relative error 2^-10.987 */
CHK(chk_tanh_approx) { return near(G32, W, 1, 0, 2, 0x1.0p-11, 0); }
/* div.approx.f32: 2 ulp for |b| in [2^-126, 2^126], unspecified outside */
CHK(chk_div_approx)
{
    double b = fabs((double)sw_f(in[1]));
    if (isfinite(b) && b != 0 && (b < 0x1p-126 || b > 0x1p126))
        return 1;
    return near(G32, W, 1, ftz_of(f), 2, 0, 0);
}
/* div.full.f32: 2 ulp over the full range */
CHK(chk_div_full) { return near(G32, W, 1, ftz_of(f), 2, 0, 0); }
/* rcp.approx.ftz.f64: the low word zero, the upper one the reference's or
 * one unit further from zero; special values exactly */
CHK(chk_rcp_approx_f64)
{
    uint64_t g = got[0], w = want[0];
    if (g == w)
        return 1;
    return (g & 0xffffffffu) == 0 && !isnan(sw_d(w)) && !isinf(sw_d(w)) && sw_d(w) != 0 &&
           (g >> 63) == (w >> 63) && (g >> 32) - (w >> 32) == 1;
}
/* rsqrt.approx.f64: relative 2^-22 (judgement; an H200 is within it) */
CHK(chk_rsqrt_approx_f64) { return near(sw_d(got[0]), W, 0, 0, 1, 0x1p-22, 0); }

/* ex2 and tanh on f16/bf16 (and pairs): the reference is the exact value
 * rounded to the 16-bit format (.ftz bf16: subnormal inputs are zeros); the
 * checker accepts 2 ulps of the format (judgement: the ISA's relative
 * bounds, 2^-9.9 for ex2.approx.f16 and 2^-7 for bf16, are about that) and
 * any NaN for a NaN. */
static uint16_t half_of(uint64_t v, int k) { return (uint16_t)(v >> (16 * k)); }
static uint16_t ref16(int tanh_, uint16_t h, int bf)
{
    double x = bf ? sw_bf2f(h) : sw_h2f(h);
    int ftz = bf && !tanh_;     /* ex2.approx.ftz.bf16: inputs and results */
    if (ftz && (h & 0x7f80) == 0)
        x = copysign(0.0, x);
    double r = tanh_ ? tanh(x) : exp2(x);
    uint16_t o = bf ? sw_f2bf(r, 0) : sw_f2h(r, 0);
    return ftz && (o & 0x7f80) == 0 ? o & 0x8000 : o;
}
#define UN16(name, t, bf, pair)                                                        \
    REF(name)                                                                          \
    {                                                                                  \
        out[0] = ref16(t, half_of(in[0], 0), bf);                                      \
        if (pair)                                                                      \
            out[0] |= (uint64_t)ref16(t, half_of(in[0], 1), bf) << 16;                 \
    }
UN16(ex2_approx_f16, 0, 0, 0)
UN16(ex2_approx_f16x2, 0, 0, 1)
UN16(ex2_approx_ftz_bf16, 0, 1, 0)
UN16(ex2_approx_ftz_bf16x2, 0, 1, 1)
UN16(tanh_approx_f16, 1, 0, 0)
UN16(tanh_approx_f16x2, 1, 0, 1)
UN16(tanh_approx_bf16, 1, 1, 0)
UN16(tanh_approx_bf16x2, 1, 1, 1)

static int ord16(uint16_t h) { return h & 0x8000 ? -(int)(h & 0x7fff) : (int)(h & 0x7fff); }
CHK(chk_half_approx)
{
    int bf = strchr(f->dst, 'B') || strchr(f->dst, 'Y');
    int pair = strchr(f->dst, 'X') || strchr(f->dst, 'Y');
    uint16_t top = bf ? 0x7f80 : 0x7c00;
    for (int k = 0; k <= pair; k++) {
        uint16_t g = half_of(got[0], k), w = half_of(want[0], k);
        int gn = (g & 0x7fff) > top, wn = (w & 0x7fff) > top;
        if (gn || wn) {
            if (gn != wn)
                return 0;
            continue;
        }
        int d = ord16(g) - ord16(w);
        if (d < -2 || d > 2)
            return 0;
    }
    return 1;
}
