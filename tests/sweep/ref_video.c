/* ref_video.c: the SIMD video instructions (vadd2/4, vsub2/4, vavrg2/4,
 * vabsdiff2/4, vmin2/4, vmax2/4, vset2/4) and add/min/max on .u16x2/.s16x2.
 * From the PTX ISA's semantics: the selectors pick each element of a and b
 * from the halves (bytes) of the pair {b, a}, a's first (defaults .h10 and
 * .h32, .b3210 and .b7654); each is sign- or zero-extended by its own type;
 * the operation is exact (vset: 1 or 0); vavrg rounds a non-negative sum
 * up and floors a negative one; .sat clamps to the dtype's half (byte)
 * range; without .add, d takes the masked elements' low bits in place and
 * c's other elements; with .add, d = c + the masked elements' sum (32-bit
 * wrap-around). */
#include "sweep.h"

#define U32(x) ((uint32_t)(x))
#define REF(id) void ref_##id(const uint64_t *in, uint64_t *out)
#define A in[0]
#define B in[1]
#define C in[2]

enum vop { V_ADD, V_SUB, V_AVRG, V_ABSDIFF, V_MIN, V_MAX,
           V_EQ, V_NE, V_LT, V_LE, V_GT, V_GE };

static int64_t field(uint32_t v, int bits, int i, int sign)
{
    uint32_t x = (v >> (bits * i)) & ((1u << bits) - 1);
    return sign && (x >> (bits - 1)) ? (int64_t)x - (1ll << bits) : (int64_t)x;
}

static int64_t vop(enum vop op, int64_t a, int64_t b)
{
    int64_t s = a + b, d = a - b;
    switch (op) {
    case V_ADD: return s;
    case V_SUB: return d;
    case V_AVRG: return s >= 0 ? (s + 1) / 2 : -((-s + 1) / 2);   /* s >> 1 for s < 0 */
    case V_ABSDIFF: return d < 0 ? -d : d;
    case V_MIN: return a < b ? a : b;
    case V_MAX: return a > b ? a : b;
    case V_EQ: return a == b;
    case V_NE: return a != b;
    case V_LT: return a < b;
    case V_LE: return a <= b;
    case V_GT: return a > b;
    default: return a >= b;
    }
}

/* element i of a source: its selector's nibble i names an element of
 * {b, a} (0..n-1 in a, n..2n-1 in b) */
static int64_t pick(const uint64_t *in, int bits, uint32_t sel, int i, int sign)
{
    int n = 32 / bits, j = (int)(sel >> (4 * i)) & 15;
    return field(j < n ? U32(A) : U32(B), bits, j % n, sign);
}

/* bits: 16 (vop2) or 8 (vop4); ds/as/bs: dtype, atype, btype signed;
 * mode: 0 plain, 1 .sat, 2 .add; asel/bsel: one nibble per element (the
 * selector's digits as written, .h32 -> 0x32); mask: bit i for element i */
static uint32_t vsel(const uint64_t *in, enum vop op, int bits, int ds, int as, int bs,
                     int mode, uint32_t asel, uint32_t bsel, unsigned mask)
{
    int n = 32 / bits;
    uint32_t d = mode == 2 ? U32(C) : 0, m = (1u << bits) - 1;
    for (int i = 0; i < n; i++) {
        if (!(mask >> i & 1)) {
            if (mode != 2)
                d |= U32(C) & (m << (bits * i));
            continue;
        }
        int64_t t = vop(op, pick(in, bits, asel, i, as), pick(in, bits, bsel, i, bs));
        if (mode == 1) {
            int64_t lo = ds ? -(1ll << (bits - 1)) : 0;
            int64_t hi = ds ? (1ll << (bits - 1)) - 1 : (1ll << bits) - 1;
            t = t < lo ? lo : t > hi ? hi : t;
        }
        if (mode == 2)
            d += U32(t);
        else
            d |= (U32(t) & m) << (bits * i);
    }
    return d;
}

/* the default selectors and mask */
static uint32_t video(const uint64_t *in, enum vop op, int bits, int ds, int as, int bs, int mode)
{
    return bits == 16 ? vsel(in, op, 16, ds, as, bs, mode, 0x10, 0x32, 3)
                      : vsel(in, op, 8, ds, as, bs, mode, 0x3210, 0x7654, 15);
}

#define FORMS(name, op, bits)                                                        \
    REF(name##_u32) { out[0] = video(in, op, bits, 0, 0, 0, 0); }                   \
    REF(name##_s32_sat) { out[0] = video(in, op, bits, 1, 1, 1, 1); }               \
    REF(name##_us_sat) { out[0] = video(in, op, bits, 0, 1, 0, 1); }                \
    REF(name##_s32_add) { out[0] = video(in, op, bits, 1, 1, 1, 2); }
FORMS(vadd2, V_ADD, 16)
FORMS(vsub2, V_SUB, 16)
FORMS(vavrg2, V_AVRG, 16)
FORMS(vabsdiff2, V_ABSDIFF, 16)
FORMS(vmin2, V_MIN, 16)
FORMS(vmax2, V_MAX, 16)
FORMS(vadd4, V_ADD, 8)
FORMS(vsub4, V_SUB, 8)
FORMS(vavrg4, V_AVRG, 8)
FORMS(vabsdiff4, V_ABSDIFF, 8)
FORMS(vmin4, V_MIN, 8)
FORMS(vmax4, V_MAX, 8)

/* selectors and masks (the rows' PTX spells the same digits) */
#define SEL_FORMS(name, op)                                                           \
    REF(name##2_sel_sat) { out[0] = vsel(in, op, 16, 1, 1, 0, 1, 0x23, 0x01, 2); }    \
    REF(name##2_sel_add) { out[0] = vsel(in, op, 16, 0, 0, 1, 2, 0x33, 0x10, 1); }    \
    REF(name##4_sel_sat) { out[0] = vsel(in, op, 8, 1, 0, 1, 1, 0x7520, 0x1364, 0xa); } \
    REF(name##4_sel_add) { out[0] = vsel(in, op, 8, 0, 1, 1, 2, 0x0123, 0x4444, 7); }
SEL_FORMS(vadd, V_ADD)
SEL_FORMS(vsub, V_SUB)
SEL_FORMS(vavrg, V_AVRG)
SEL_FORMS(vabsdiff, V_ABSDIFF)
SEL_FORMS(vmin, V_MIN)
SEL_FORMS(vmax, V_MAX)

/* vset2/vset4: every compare with mixed types, .add; selectors and masks */
#define SET_FORMS(cmp, op)                                                              \
    REF(vset2_##cmp) { out[0] = vsel(in, op, 16, 0, 1, 0, 0, 0x10, 0x32, 3); }         \
    REF(vset4_##cmp) { out[0] = vsel(in, op, 8, 0, 0, 1, 0, 0x3210, 0x7654, 15); }
SET_FORMS(eq, V_EQ)
SET_FORMS(ne, V_NE)
SET_FORMS(lt, V_LT)
SET_FORMS(le, V_LE)
SET_FORMS(gt, V_GT)
SET_FORMS(ge, V_GE)
REF(vset2_lt_add) { out[0] = vsel(in, V_LT, 16, 0, 1, 1, 2, 0x10, 0x32, 3); }
REF(vset4_ge_add) { out[0] = vsel(in, V_GE, 8, 0, 1, 1, 2, 0x3210, 0x7654, 15); }
REF(vset2_sel) { out[0] = vsel(in, V_NE, 16, 0, 0, 1, 0, 0x02, 0x31, 1); }
REF(vset2_sel_add) { out[0] = vsel(in, V_GT, 16, 0, 1, 0, 2, 0x21, 0x30, 2); }
REF(vset4_sel) { out[0] = vsel(in, V_LE, 8, 0, 1, 0, 0, 0x7654, 0x3210, 0xd); }
REF(vset4_sel_add) { out[0] = vsel(in, V_EQ, 8, 0, 0, 0, 2, 0x1155, 0x5511, 6); }

/* .u16x2/.s16x2: per half, wrap-around add, min and max */
static uint32_t x2(const uint64_t *in, enum vop op, int sign)
{
    uint32_t d = 0;
    for (int i = 0; i < 2; i++)
        d |= (U32(vop(op, field(U32(A), 16, i, sign), field(U32(B), 16, i, sign))) & 0xffff)
             << (16 * i);
    return d;
}
REF(add_u16x2) { out[0] = x2(in, V_ADD, 0); }
REF(add_s16x2) { out[0] = x2(in, V_ADD, 1); }
REF(min_u16x2) { out[0] = x2(in, V_MIN, 0); }
REF(min_s16x2) { out[0] = x2(in, V_MIN, 1); }
REF(max_u16x2) { out[0] = x2(in, V_MAX, 0); }
REF(max_s16x2) { out[0] = x2(in, V_MAX, 1); }
