/* ref_int.c: integer references (add/sub/mul/mad/sad/div/min/max/abs/neg,
 * carry chains, logic, shifts), from the PTX ISA's descriptions. */
#include "sweep.h"

typedef __int128 i128;
typedef unsigned __int128 u128;

#define U32(x) ((uint32_t)(x))
#define S32(x) ((int32_t)(uint32_t)(x))
#define S16(x) ((int16_t)(uint16_t)(x))
#define S64(x) ((int64_t)(x))
#define REF(id) void ref_##id(const uint64_t *in, uint64_t *out)
#define A in[0]
#define B in[1]
#define C in[2]
#define D in[3]

static int64_t sat32(int64_t v) { return v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : v; }

REF(add_s32) { out[0] = U32(A + B); }
REF(add_s64) { out[0] = A + B; }
REF(add_u16) { out[0] = (uint16_t)(A + B); }
REF(add_sat_s32) { out[0] = U32(sat32((int64_t)S32(A) + S32(B))); }
REF(sub_s32) { out[0] = U32(A - B); }
REF(sub_s64) { out[0] = A - B; }
REF(sub_u16) { out[0] = (uint16_t)(A - B); }
REF(sub_sat_s32) { out[0] = U32(sat32((int64_t)S32(A) - S32(B))); }

/* the chains as one wide operation: out[0] low word, out[1] high word */
REF(addc_u32) { uint64_t lo = (uint64_t)U32(A) + U32(B); out[0] = U32(lo); out[1] = U32(C + D + (lo >> 32)); }
REF(addc_cc_u32)
{
    uint64_t lo = (uint64_t)U32(A) + U32(B), hi = (uint64_t)U32(C) + U32(D) + (lo >> 32);
    out[0] = U32(lo);
    out[1] = U32(U32(hi) + (hi >> 32));   /* high word plus its carry-out */
}
REF(subc_u32)
{
    uint32_t borrow = U32(A) < U32(B);
    out[0] = U32(A - B);
    out[1] = U32(C - D - borrow);
}
REF(subc_cc_u32)
{
    uint32_t b0 = U32(A) < U32(B);
    uint64_t need = (uint64_t)U32(D) + b0;
    uint32_t b1 = U32(C) < need;
    out[0] = U32(A - B);
    /* subc.u32 %r30, 0, 0 after a borrow gives -1 */
    out[1] = U32(U32(C) - need - b1);
}
REF(addc_u64) { uint64_t lo = A + B; out[0] = lo; out[1] = C + D + (lo < A); }
REF(madc_u32)
{
    uint64_t p = (uint64_t)U32(A) * U32(B);
    uint64_t lo = (uint64_t)U32(p) + U32(C);
    out[0] = U32(lo);
    out[1] = U32((p >> 32) + U32(D) + (lo >> 32));
}
REF(madc_hi_cc_u32)
{
    uint64_t p = (uint64_t)U32(A) * U32(B);
    uint64_t hi = (p >> 32) + U32(C);
    uint64_t lo = (uint64_t)U32(p) + U32(D) + (hi >> 32);
    out[0] = U32(hi);
    out[1] = U32(U32(lo) + (lo >> 32));
}

REF(mul_lo_s32) { out[0] = U32(A * B); }
REF(mul_hi_s32) { out[0] = U32((uint64_t)((int64_t)S32(A) * S32(B)) >> 32); }
REF(mul_hi_u32) { out[0] = U32(((uint64_t)U32(A) * U32(B)) >> 32); }
REF(mul_wide_s32) { out[0] = (uint64_t)((int64_t)S32(A) * S32(B)); }
REF(mul_wide_u32) { out[0] = (uint64_t)U32(A) * U32(B); }
REF(mul_wide_s16) { out[0] = U32((int32_t)S16(A) * S16(B)); }
REF(mul_wide_u16) { out[0] = U32((uint32_t)(uint16_t)A * (uint16_t)B); }
REF(mul_lo_u16) { out[0] = (uint16_t)((uint32_t)(uint16_t)A * (uint16_t)B); }
REF(mul_lo_s64) { out[0] = A * B; }
REF(mul_hi_s64) { out[0] = (uint64_t)((u128)((i128)S64(A) * S64(B)) >> 64); }
REF(mul_hi_u64) { out[0] = (uint64_t)(((u128)A * B) >> 64); }

/* mul24: 24-bit operands (sign-extended from bit 23 for .s32), 48-bit product */
static int64_t s24(uint64_t v) { return (int64_t)((int32_t)(U32(v) << 8) >> 8); }
static int64_t u24(uint64_t v) { return (int64_t)(v & 0xffffff); }
REF(mul24_lo_s32) { out[0] = U32(s24(A) * s24(B)); }
REF(mul24_lo_u32) { out[0] = U32(u24(A) * u24(B)); }
REF(mul24_hi_u32) { out[0] = U32((uint64_t)(u24(A) * u24(B)) >> 16); }
REF(mul24_hi_s32) { out[0] = U32((uint64_t)((s24(A) * s24(B)) >> 16)); }
REF(mad24_lo_s32) { out[0] = U32(s24(A) * s24(B) + S32(C)); }

REF(mad_lo_s32) { out[0] = U32(A * B + C); }
REF(mad_hi_s32) { out[0] = U32(((uint64_t)((int64_t)S32(A) * S32(B)) >> 32) + C); }
REF(mad_hi_u32) { out[0] = U32((((uint64_t)U32(A) * U32(B)) >> 32) + C); }
REF(mad_hi_sat_s32) { out[0] = U32(sat32((((int64_t)S32(A) * S32(B)) >> 32) + S32(C))); }
REF(mad_wide_s32) { out[0] = (uint64_t)((int64_t)S32(A) * S32(B)) + C; }
REF(mad_wide_u32) { out[0] = (uint64_t)U32(A) * U32(B) + C; }
REF(mad_lo_s64) { out[0] = A * B + C; }
REF(mad_hi_u64) { out[0] = (uint64_t)(((u128)A * B) >> 64) + C; }
REF(sad_s32) { out[0] = U32(C + (S32(A) < S32(B) ? U32(B) - U32(A) : U32(A) - U32(B))); }
REF(sad_u32) { out[0] = U32(C + (U32(A) < U32(B) ? U32(B) - U32(A) : U32(A) - U32(B))); }

/* A zero divisor (unspecified by the ISA): an H200 gives all ones for each
 * of these eight instructions on its own. The 32-bit remainders are not
 * compared (div_int): next to a division of the same operands ptxas makes
 * them a - q * b = a, which is what Zinc gives. The most negative value
 * over -1 wraps (two's complement), remainder 0. */
REF(div_s32) { out[0] = U32(B) == 0 ? 0xffffffffu : (S32(A) == INT32_MIN && S32(B) == -1) ? U32(A) : U32(S32(A) / S32(B)); }
REF(rem_s32) { out[0] = U32(B) == 0 ? 0 : (S32(B) == -1) ? 0 : U32(S32(A) % S32(B)); }
REF(div_u32) { out[0] = U32(B) == 0 ? 0xffffffffu : U32(A) / U32(B); }
REF(rem_u32) { out[0] = U32(B) == 0 ? 0 : U32(A) % U32(B); }
REF(div_s64) { out[0] = B == 0 ? ~0ull : (S64(A) == INT64_MIN && S64(B) == -1) ? A : (uint64_t)(S64(A) / S64(B)); }
REF(rem_s64) { out[0] = B == 0 ? ~0ull : S64(B) == -1 ? 0 : (uint64_t)(S64(A) % S64(B)); }
REF(div_u64) { out[0] = B == 0 ? ~0ull : A / B; }
REF(rem_u64) { out[0] = B == 0 ? ~0ull : A % B; }

#define MINMAX(t, T, W)                                                       \
    REF(min_##t) { out[0] = (W)((T)A < (T)B ? A : B); }                     \
    REF(max_##t) { out[0] = (W)((T)A > (T)B ? A : B); }
MINMAX(s32, int32_t, uint32_t)
MINMAX(u32, uint32_t, uint32_t)
MINMAX(s64, int64_t, uint64_t)
MINMAX(u64, uint64_t, uint64_t)
MINMAX(s16, int16_t, uint16_t)
MINMAX(u16, uint16_t, uint16_t)

REF(abs_s32) { out[0] = S32(A) < 0 ? U32(0u - U32(A)) : U32(A); }
REF(abs_s64) { out[0] = S64(A) < 0 ? 0 - A : A; }
REF(abs_s16) { out[0] = (uint16_t)(S16(A) < 0 ? 0u - (uint16_t)A : (uint16_t)A); }
REF(neg_s32) { out[0] = U32(0u - U32(A)); }
REF(neg_s64) { out[0] = 0 - A; }

REF(and_b32) { out[0] = U32(A & B); }
REF(or_b32) { out[0] = U32(A | B); }
REF(xor_b32) { out[0] = U32(A ^ B); }
REF(and_b64) { out[0] = A & B; }
REF(or_b64) { out[0] = A | B; }
REF(xor_b64) { out[0] = A ^ B; }
REF(and_pred) { out[0] = (A & B) & 1; }
REF(or_pred) { out[0] = (A | B) & 1; }
REF(xor_pred) { out[0] = (A ^ B) & 1; }
REF(not_b32) { out[0] = U32(~A); }
REF(not_b64) { out[0] = ~A; }
REF(not_pred) { out[0] = !A; }
REF(cnot_b32) { out[0] = U32(A) == 0; }
REF(cnot_b16) { out[0] = (uint16_t)A == 0; }

/* shift amounts are unsigned and clamp: >= width gives 0 (or sign fill) */
REF(shl_b32) { out[0] = U32(B) >= 32 ? 0 : U32(U32(A) << U32(B)); }
REF(shr_u32) { out[0] = U32(B) >= 32 ? 0 : U32(A) >> U32(B); }
REF(shr_s32) { out[0] = U32(S32(A) >> (U32(B) >= 32 ? 31 : U32(B))); }
REF(shl_b64) { out[0] = U32(B) >= 64 ? 0 : A << U32(B); }
REF(shr_u64) { out[0] = U32(B) >= 64 ? 0 : A >> U32(B); }
REF(shr_s64) { out[0] = (uint64_t)(S64(A) >> (U32(B) >= 64 ? 63 : U32(B))); }
REF(shl_b16) { out[0] = U32(B) >= 16 ? 0 : (uint16_t)((uint16_t)A << U32(B)); }
REF(shr_s16) { out[0] = (uint16_t)(S16(A) >> (U32(B) >= 16 ? 15 : U32(B))); }
REF(shr_u16) { out[0] = U32(B) >= 16 ? 0 : (uint16_t)((uint16_t)A >> U32(B)); }

/* shf: the 64-bit {b:a} shifted; wrap takes c mod 32, clamp min(c, 32) */
static uint32_t shf(uint64_t a, uint64_t b, uint32_t n, int left)
{
    uint64_t v = (uint64_t)U32(b) << 32 | U32(a);
    return left ? U32((v << n) >> 32) : U32(v >> n);
}
REF(shf_l_wrap) { out[0] = shf(A, B, U32(C) & 31, 1); }
REF(shf_l_clamp) { out[0] = shf(A, B, U32(C) > 32 ? 32 : U32(C), 1); }
REF(shf_r_wrap) { out[0] = shf(A, B, U32(C) & 31, 0); }
REF(shf_r_clamp) { out[0] = shf(A, B, U32(C) > 32 ? 32 : U32(C), 0); }

/* mov {a, b}: the first element is the low part */
REF(mov_pack_b32) { out[0] = (uint32_t)(uint16_t)B << 16 | (uint16_t)A; }
REF(mov_unpack_b32) { out[0] = (uint16_t)A; out[1] = (uint16_t)(A >> 16); }
REF(mov_pack_b64) { out[0] = (uint64_t)U32(B) << 32 | U32(A); }
REF(mov_unpack_b64) { out[0] = U32(A); out[1] = U32(A >> 32); }
