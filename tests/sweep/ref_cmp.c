/* ref_cmp.c: comparisons (setp/set with every compare, unordered ones
 * true when either operand is NaN, ordered ones false), boolean
 * combiners, testp classes, copysign, abs/neg of floats. */
#include <math.h>
#include "sweep.h"

#define REF(id) void ref_##id(const uint64_t *in, uint64_t *out)
#define A in[0]
#define B in[1]
#define C in[2]

/* integer compares */
#define ICMP(t, T)                                                             \
    REF(setp_eq_##t) { out[0] = (T)A == (T)B; }                              \
    REF(setp_ne_##t) { out[0] = (T)A != (T)B; }                              \
    REF(setp_lt_##t) { out[0] = (T)A < (T)B; }                               \
    REF(setp_le_##t) { out[0] = (T)A <= (T)B; }                              \
    REF(setp_gt_##t) { out[0] = (T)A > (T)B; }                               \
    REF(setp_ge_##t) { out[0] = (T)A >= (T)B; }                              \
    REF(setp_lo_##t) { out[0] = (T)A < (T)B; }                               \
    REF(setp_ls_##t) { out[0] = (T)A <= (T)B; }                              \
    REF(setp_hi_##t) { out[0] = (T)A > (T)B; }                               \
    REF(setp_hs_##t) { out[0] = (T)A >= (T)B; }
ICMP(s32, int32_t)
ICMP(u32, uint32_t)
ICMP(s64, int64_t)
ICMP(u64, uint64_t)
ICMP(s16, int16_t)
ICMP(b32, uint32_t)

/* float compares on doubles (exact for f32/f16 values) */
static int fcmp(double a, double b, int op)
{
    int un = isnan(a) || isnan(b);
    switch (op) {
    case 0: return !un && a == b;
    case 1: return !un && a != b;
    case 2: return !un && a < b;
    case 3: return !un && a <= b;
    case 4: return !un && a > b;
    case 5: return !un && a >= b;
    case 6: return un || a == b;
    case 7: return un || a != b;
    case 8: return un || a < b;
    case 9: return un || a <= b;
    case 10: return un || a > b;
    case 11: return un || a >= b;
    case 12: return !un;
    default: return un;
    }
}
#define FCMP(t, conv)                                                          \
    REF(setp_eq_##t) { out[0] = fcmp(conv(A), conv(B), 0); }                  \
    REF(setp_ne_##t) { out[0] = fcmp(conv(A), conv(B), 1); }                  \
    REF(setp_lt_##t) { out[0] = fcmp(conv(A), conv(B), 2); }                  \
    REF(setp_le_##t) { out[0] = fcmp(conv(A), conv(B), 3); }                  \
    REF(setp_gt_##t) { out[0] = fcmp(conv(A), conv(B), 4); }                  \
    REF(setp_ge_##t) { out[0] = fcmp(conv(A), conv(B), 5); }                  \
    REF(setp_equ_##t) { out[0] = fcmp(conv(A), conv(B), 6); }                 \
    REF(setp_neu_##t) { out[0] = fcmp(conv(A), conv(B), 7); }                 \
    REF(setp_ltu_##t) { out[0] = fcmp(conv(A), conv(B), 8); }                 \
    REF(setp_leu_##t) { out[0] = fcmp(conv(A), conv(B), 9); }                 \
    REF(setp_gtu_##t) { out[0] = fcmp(conv(A), conv(B), 10); }                \
    REF(setp_geu_##t) { out[0] = fcmp(conv(A), conv(B), 11); }                \
    REF(setp_num_##t) { out[0] = fcmp(conv(A), conv(B), 12); }                \
    REF(setp_nan_##t) { out[0] = fcmp(conv(A), conv(B), 13); }
static double f32v(uint64_t v) { return sw_f(v); }
static double f64v(uint64_t v) { return sw_d(v); }
static double f16v(uint64_t v) { return sw_h2f((uint16_t)v); }
FCMP(f32, f32v)
FCMP(f64, f64v)
FCMP(f16, f16v)
REF(setp_lt_ftz_f32) { out[0] = fcmp(sw_ftz_f(sw_f(A)), sw_ftz_f(sw_f(B)), 2); }
REF(setp_eq_ftz_f32) { out[0] = fcmp(sw_ftz_f(sw_f(A)), sw_ftz_f(sw_f(B)), 0); }

/* two destinations: p = cmp (combined with c), q = !cmp (combined) */
REF(setp_lt_pq_s32) { int t = (int32_t)A < (int32_t)B; out[0] = t; out[1] = !t; }
REF(setp_lt_and_s32) { out[0] = ((int32_t)A < (int32_t)B) && C; }
REF(setp_ge_or_f32) { out[0] = fcmp(sw_f(A), sw_f(B), 5) || C; }
REF(setp_ltu_xor_pq_f32)
{
    int t = fcmp(sw_f(A), sw_f(B), 8), c = !C;   /* the template negates c */
    out[0] = t ^ c;
    out[1] = !t ^ c;
}
/* set: all ones (integer) or 1.0f (float) when true */
REF(set_lt_u32_s32) { out[0] = (int32_t)A < (int32_t)B ? 0xffffffffu : 0; }
REF(set_gtu_f32_f32) { out[0] = fcmp(sw_f(A), sw_f(B), 10) ? 0x3f800000u : 0; }
REF(set_eq_s32_f64) { out[0] = fcmp(sw_d(A), sw_d(B), 0) ? 0xffffffffu : 0; }
/* a 16-bit float destination gets 1.0 in its format (0x3c00 f16, 0x3f80
 * bf16); x2 sources compare each half into the same half of the result */
static double bf16v(uint64_t v) { return sw_bf2f((uint16_t)v); }
static uint64_t set_x2(uint64_t a, uint64_t b, int op, uint32_t t, double (*conv)(uint64_t),
                       int c)
{
    uint32_t lo = fcmp(conv(a & 0xffff), conv(b & 0xffff), op) && c ? t : 0;
    uint32_t hi = fcmp(conv((a >> 16) & 0xffff), conv((b >> 16) & 0xffff), op) && c ? t : 0;
    return lo | hi << 16;
}
REF(set_eq_f16_f16) { out[0] = fcmp(f16v(A), f16v(B), 0) ? 0x3c00u : 0; }
REF(set_lt_bf16_f32) { out[0] = fcmp(sw_f(A), sw_f(B), 2) ? 0x3f80u : 0; }
REF(set_ltu_u16_f16) { out[0] = fcmp(f16v(A), f16v(B), 8) ? 0xffffu : 0; }
REF(set_gt_u32_f16x2) { out[0] = set_x2(A, B, 4, 0xffffu, f16v, 1); }
REF(set_eq_f16x2_f16x2) { out[0] = set_x2(A, B, 0, 0x3c00u, f16v, 1); }
REF(set_neu_and_f16x2_f16x2) { out[0] = set_x2(A, B, 7, 0x3c00u, f16v, (int)C); }
REF(set_ge_bf16x2_bf16x2) { out[0] = set_x2(A, B, 5, 0x3f80u, bf16v, 1); }

/* testp.normal: zeros count as normal (measured on an H200) */
#define TESTP(t, conv)                                                          \
    REF(testp_finite_##t) { out[0] = isfinite(conv(A)); }                      \
    REF(testp_infinite_##t) { out[0] = isinf(conv(A)) != 0; }                  \
    REF(testp_number_##t) { out[0] = !isnan(conv(A)); }                       \
    REF(testp_notanumber_##t) { out[0] = isnan(conv(A)) != 0; }                \
    REF(testp_normal_##t) { out[0] = fpclassify(conv(A)) == FP_NORMAL || conv(A) == 0; }      \
    REF(testp_subnormal_##t) { out[0] = fpclassify(conv(A)) == FP_SUBNORMAL; }
static float f32n(uint64_t v) { return sw_f(v); }
TESTP(f32, f32n)
TESTP(f64, sw_d)

/* copysign d, a, b: b with the sign of a (bit operations: NaNs kept) */
REF(copysign_f32) { out[0] = ((uint32_t)B & 0x7fffffffu) | ((uint32_t)A & 0x80000000u); }
REF(copysign_f64) { out[0] = (B & ~(1ull << 63)) | (A & (1ull << 63)); }

/* abs/neg: sign bit operations, NaN payloads kept; .ftz flushes first */
static uint64_t ftzbits(uint64_t a)
{
    return (((uint32_t)a & 0x7f800000u) == 0) ? ((uint32_t)a & 0x80000000u) : (uint32_t)a;
}
REF(abs_f32) { out[0] = (uint32_t)A & 0x7fffffffu; }
REF(abs_ftz_f32) { out[0] = ftzbits(A) & 0x7fffffffu; }
REF(neg_f32) { out[0] = (uint32_t)A ^ 0x80000000u; }
REF(neg_ftz_f32) { out[0] = ftzbits(A) ^ 0x80000000u; }
REF(abs_f64) { out[0] = A & ~(1ull << 63); }
REF(neg_f64) { out[0] = A ^ (1ull << 63); }
