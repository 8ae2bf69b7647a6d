/* ref_util.c: bit-level helpers of the references: float views of the
 * 64-bit slots, flush-to-zero, and f16/bf16 encoding with each PTX
 * rounding mode, written out digit by digit so that no host conversion
 * (which may itself be what is under test elsewhere) is trusted. */
#include <math.h>
#include <string.h>
#include "sweep.h"

float sw_f(uint64_t v) { uint32_t u = (uint32_t)v; float f; memcpy(&f, &u, 4); return f; }
double sw_d(uint64_t v) { double d; memcpy(&d, &v, 8); return d; }
uint64_t sw_fb(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
uint64_t sw_db(double d) { uint64_t u; memcpy(&u, &d, 8); return u; }

float sw_ftz_f(float x) { return fpclassify(x) == FP_SUBNORMAL ? copysignf(0.0f, x) : x; }
double sw_ftz_d(double x) { return fpclassify(x) == FP_SUBNORMAL ? copysign(0.0, x) : x; }
int sw_isnan_f(uint64_t v) { return ((uint32_t)v & 0x7fffffffu) > 0x7f800000u; }
int sw_isnan_d(uint64_t v) { return (v & ~(1ull << 63)) > 0x7ff0000000000000ull; }

/* a small binary format: mbits stored mantissa bits, exponent bias */
static float decode(uint32_t h, int mbits, int ebits)
{
    uint32_t sign = h >> (mbits + ebits), e = (h >> mbits) & ((1u << ebits) - 1);
    uint32_t m = h & ((1u << mbits) - 1);
    int bias = (1 << (ebits - 1)) - 1;
    double v;
    if (e == (1u << ebits) - 1)
        v = m ? NAN : INFINITY;
    else if (e == 0)
        v = ldexp(m, 1 - bias - mbits);
    else
        v = ldexp(m | (1u << mbits), (int)e - bias - mbits);
    return (float)(sign ? -v : v);
}

float sw_h2f(uint16_t h) { return decode(h, 10, 5); }
float sw_bf2f(uint16_t h) { return decode(h, 7, 8); }

/* rounds x to the format; rnd 0 rn (ties to even), 1 rz, 2 rm, 3 rp.
 * NaN -> the canonical NaN 0x7fff (the ISA's f16/bf16 NaN result). */
static uint16_t encode(double x, int rnd, int mbits, int ebits)
{
    int bias = (1 << (ebits - 1)) - 1, emax = bias, emin = 1 - bias;
    uint32_t sign = signbit(x) ? 1u << (mbits + ebits) : 0;
    uint32_t inf = ((1u << ebits) - 1) << mbits, maxf = inf - 1;
    if (isnan(x))
        return 0x7fff;
    double a = fabs(x);
    if (isinf(a))
        return (uint16_t)(sign | inf);
    if (a == 0)
        return (uint16_t)sign;
    int e;
    frexp(a, &e);
    e -= 1;                          /* a in [2^e, 2^(e+1)) */
    if (e < emin)
        e = emin;
    double n = ldexp(a, mbits - e);  /* exact: a power-of-two scaling */
    double f = floor(n), rest = n - f;
    int up;
    switch (rnd) {
    case 0: up = rest > 0.5 || (rest == 0.5 && fmod(f, 2) != 0); break;
    case 1: up = 0; break;
    case 2: up = sign && rest > 0; break;
    default: up = !sign && rest > 0; break;
    }
    double r = ldexp(f + up, e - mbits);
    if (r > ldexp(2.0 - ldexp(1, -mbits), emax)) {
        int to_inf = rnd == 0 || (rnd == 2 && sign) || (rnd == 3 && !sign);
        return (uint16_t)(sign | (to_inf ? inf : maxf));
    }
    if (r < ldexp(1, emin))          /* subnormal (or the smallest normal) */
        return (uint16_t)(sign | (uint32_t)ldexp(r, mbits - emin));
    int re;
    frexp(r, &re);
    re -= 1;
    uint32_t m = (uint32_t)(ldexp(r, mbits - re)) & ((1u << mbits) - 1);
    return (uint16_t)(sign | (uint32_t)(re + bias) << mbits | m);
}

uint16_t sw_f2h(double x, int rnd) { return encode(x, rnd, 10, 5); }
uint16_t sw_f2bf(double x, int rnd) { return encode(x, rnd, 7, 8); }
