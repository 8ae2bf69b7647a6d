/* ref_video.c: the SIMD video instructions (vadd2/4, vsub2/4, vavrg2/4,
 * vabsdiff2/4, vmin2/4, vmax2/4) with the default selectors and mask, and
 * add/min/max on .u16x2/.s16x2. From the PTX ISA's semantics: each half
 * (byte) of a and b is sign- or zero-extended by its own type; the
 * operation is exact; vavrg rounds a non-negative sum up and floors a
 * negative one; .sat clamps to the dtype's half (byte) range; without
 * .add, each element keeps its low bits in place; with .add, d = c + the
 * elements' sum (32-bit wrap-around). */
#include "sweep.h"

#define U32(x) ((uint32_t)(x))
#define REF(id) void ref_##id(const uint64_t *in, uint64_t *out)
#define A in[0]
#define B in[1]
#define C in[2]

enum vop { V_ADD, V_SUB, V_AVRG, V_ABSDIFF, V_MIN, V_MAX };

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
    default: return a > b ? a : b;
    }
}

/* bits: 16 (vop2) or 8 (vop4); da/aa/ba: dtype, atype, btype signed;
 * mode: 0 plain, 1 .sat, 2 .add */
static uint32_t video(const uint64_t *in, enum vop op, int bits, int ds, int as, int bs, int mode)
{
    int n = 32 / bits;
    uint32_t d = mode == 2 ? U32(C) : 0;
    for (int i = 0; i < n; i++) {
        int64_t t = vop(op, field(U32(A), bits, i, as), field(U32(B), bits, i, bs));
        if (mode == 1) {
            int64_t lo = ds ? -(1ll << (bits - 1)) : 0;
            int64_t hi = ds ? (1ll << (bits - 1)) - 1 : (1ll << bits) - 1;
            t = t < lo ? lo : t > hi ? hi : t;
        }
        if (mode == 2)
            d += U32(t);
        else
            d |= (U32(t) & ((1u << bits) - 1)) << (bits * i);
    }
    return d;
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
