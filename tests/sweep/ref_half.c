/* ref_half.c: f16, f16x2, bf16 and bf16x2 arithmetic. Each result is
 * computed once in double rounded to odd (exact enough that the final
 * rounding to the 16-bit format is the only one), then encoded with .rn.
 * NaN results are the canonical 0x7fff; .ftz (f16 only) flushes subnormal
 * inputs and results; .sat clamps to [+0, 1]; .relu clamps negatives to +0. */
#include <fenv.h>
#include <math.h>
#include "sweep.h"

#define REF(id) void ref_##id(const uint64_t *in, uint64_t *out)
enum { OP_ADD, OP_SUB, OP_MUL, OP_FMA, OP_MIN, OP_MAX, OP_MINNAN, OP_NEG, OP_ABS };
enum { F_FTZ = 1, F_SAT = 2, F_RELU = 4 };

static float dec(uint16_t h, int bf) { return bf ? sw_bf2f(h) : sw_h2f(h); }
static int is_sub(uint16_t h, int bf) { return (h & (bf ? 0x7f80 : 0x7c00)) == 0 && (h & 0x7fff); }
static int is_nan(uint16_t h, int bf) { return (h & 0x7fff) > (bf ? 0x7f80 : 0x7c00); }

__attribute__((noinline)) static double op64(int op, double x_, double y_, double z_)
{
    volatile double x = x_, y = y_, z = z_;   /* not a const function */
    switch (op) {
    case OP_ADD: return x + y;
    case OP_SUB: return x - y;
    case OP_MUL: return x * y;
    default: return fma(x, y, z);
    }
}

/* a op b (op c) in double, rounded to odd (the operation in a function of
 * its own: GCC may move arithmetic across fesetround) */
static double odd(int op, double a, double b, double c)
{
    feclearexcept(FE_INEXACT);
    fesetround(FE_TOWARDZERO);
    volatile double r = op64(op, a, b, c);
    int inexact = fetestexcept(FE_INEXACT) != 0;
    fesetround(FE_TONEAREST);
    double d = r;
    if (inexact && isfinite(d)) {
        uint64_t u = sw_db(d) | 1;
        d = sw_d(u);
    }
    return d;
}

/* .ftz's tininess (NVIDIA's rule, measured on an H200): r (the exact
 * result rounded to odd) rounded to the format's significand with an
 * unbounded exponent, below the smallest normal */
static int tiny16(double r, int bf)
{
    int e;
    double m = frexp(r, &e), p = bf ? 8 : 11;
    if (!isfinite(r) || r == 0)
        return 0;
    double q = ldexp(nearbyint(ldexp(m, (int)p)), e - (int)p);
    return fabs(q) < (bf ? 0x1p-126 : 0x1p-14);
}

static uint16_t one(int op, uint16_t a, uint16_t b, uint16_t c, int bf, int flags)
{
    if (flags & F_FTZ) {
        if (is_sub(a, bf)) a &= 0x8000;
        if (is_sub(b, bf)) b &= 0x8000;
        if (is_sub(c, bf)) c &= 0x8000;
    }
    switch (op) {
    case OP_NEG: return a ^ 0x8000;
    case OP_ABS: return a & 0x7fff;
    case OP_MIN: case OP_MAX: case OP_MINNAN: {
        if (op == OP_MINNAN && (is_nan(a, bf) || is_nan(b, bf)))
            return 0x7fff;
        if (is_nan(a, bf) && is_nan(b, bf))
            return 0x7fff;
        if (is_nan(a, bf))
            return b;
        if (is_nan(b, bf))
            return a;
        float x = dec(a, bf), y = dec(b, bf);
        int max = op == OP_MAX;
        if (x == y)   /* -0 below +0 */
            return ((a & 0x8000) != 0) == !max ? a : b;
        return (x < y) == !max ? a : b;
    }
    default: break;
    }
    double r = odd(op, dec(a, bf), dec(b, bf), dec(c, bf));
    uint16_t h = bf ? sw_f2bf(r, 0) : sw_f2h(r, 0);
    if ((flags & F_FTZ) && (is_sub(h, bf) || tiny16(r, bf)))
        h &= 0x8000;
    if (is_nan(h, bf))
        return (flags & F_SAT) ? 0 : 0x7fff;
    if (flags & F_SAT) {
        if (h & 0x8000)
            return 0;
        if (dec(h, bf) > 1.0f)
            return bf ? 0x3f80 : 0x3c00;
    }
    if ((flags & F_RELU) && (h & 0x8000))
        return 0;
    return h;
}

static uint64_t x1(int op, const uint64_t *in, int bf, int flags)
{
    return one(op, (uint16_t)in[0], (uint16_t)in[1], (uint16_t)in[2], bf, flags);
}
static uint64_t x2(int op, const uint64_t *in, int bf, int flags)
{
    uint32_t lo = one(op, (uint16_t)in[0], (uint16_t)in[1], (uint16_t)in[2], bf, flags);
    uint32_t hi = one(op, (uint16_t)(in[0] >> 16), (uint16_t)(in[1] >> 16),
                      (uint16_t)(in[2] >> 16), bf, flags);
    return hi << 16 | lo;
}

#define HALF(t, X, BF)                                                    \
    REF(add_##t) { out[0] = X(OP_ADD, in, BF, 0); }                     \
    REF(sub_##t) { out[0] = X(OP_SUB, in, BF, 0); }                     \
    REF(mul_##t) { out[0] = X(OP_MUL, in, BF, 0); }                     \
    REF(fma_rn_##t) { out[0] = X(OP_FMA, in, BF, 0); }                  \
    REF(min_##t) { out[0] = X(OP_MIN, in, BF, 0); }                     \
    REF(max_##t) { out[0] = X(OP_MAX, in, BF, 0); }                     \
    REF(neg_##t) { out[0] = X(OP_NEG, in, BF, 0); }                     \
    REF(abs_##t) { out[0] = X(OP_ABS, in, BF, 0); }                     \
    REF(add_ftz_##t) { out[0] = X(OP_ADD, in, BF, F_FTZ); }             \
    REF(mul_sat_##t) { out[0] = X(OP_MUL, in, BF, F_SAT); }             \
    REF(fma_rn_relu_##t) { out[0] = X(OP_FMA, in, BF, F_RELU); }        \
    REF(min_NaN_##t) { out[0] = X(OP_MINNAN, in, BF, 0); }
HALF(f16, x1, 0)
HALF(f16x2, x2, 0)
HALF(bf16, x1, 1)
HALF(bf16x2, x2, 1)

/* .ftz / .sat on f16 fma, .ftz on sub and f16x2 mul */
REF(fma_rn_ftz_f16) { out[0] = x1(OP_FMA, in, 0, F_FTZ); }
REF(fma_rn_sat_f16) { out[0] = x1(OP_FMA, in, 0, F_SAT); }
REF(fma_rn_ftz_sat_f16x2) { out[0] = x2(OP_FMA, in, 0, F_FTZ | F_SAT); }
REF(sub_ftz_f16) { out[0] = x1(OP_SUB, in, 0, F_FTZ); }
REF(mul_ftz_f16x2) { out[0] = x2(OP_MUL, in, 0, F_FTZ); }

/* min/max.xorsign.abs: min/max of the magnitudes, sign = sign(a) ^ sign(b);
 * a NaN result is the canonical NaN */
static uint16_t xs1(int op, uint16_t a, uint16_t b, int bf)
{
    uint16_t m = one(op, a & 0x7fff, b & 0x7fff, 0, bf, 0);
    return is_nan(m, bf) ? 0x7fff : (uint16_t)(m | ((a ^ b) & 0x8000));
}
REF(min_xorsign_abs_f16) { out[0] = xs1(OP_MIN, (uint16_t)in[0], (uint16_t)in[1], 0); }
REF(max_xorsign_abs_bf16x2)
{
    out[0] = (uint32_t)xs1(OP_MAX, (uint16_t)(in[0] >> 16), (uint16_t)(in[1] >> 16), 1) << 16 |
             xs1(OP_MAX, (uint16_t)in[0], (uint16_t)in[1], 1);
}
