/* ref_video_scalar.c: the scalar video instructions (vadd, vsub, vabsdiff,
 * vmin, vmax, vshl, vshr, vset, vmad), from the PTX ISA's pseudocode:
 * partSelectSignExtend takes the byte (.b0-.b3), half (.h0/.h1) or word of
 * a and b and extends it by the operand's type (33 bits); the operation
 * gives an .s34 value (a vshl result keeps its low 34 bits); optSaturate
 * clamps to dtype's range, of the byte or half that d.dsel names, else of
 * 32 bits; optSecondaryOp adds, mins or maxes c (extended by dtype); or
 * optMerge puts the low byte or half into c's bits at dsel. vmad: its own
 * pseudocode, in 128 bits. */
#include "sweep.h"

#define U32(x) ((uint32_t)(x))
#define REF(id) void ref_##id(const uint64_t *in, uint64_t *out)
#define A in[0]
#define B in[1]
#define C in[2]

/* selectors: 0 none, BY(k) byte k, HF(k) half k */
#define BY(k) (0x10 | (k))
#define HF(k) (0x20 | (k))

enum sop { S_ADD, S_SUB, S_ABSDIFF, S_MIN, S_MAX, S_SHL, S_SHR,
           S_EQ, S_NE, S_LT, S_LE, S_GT, S_GE };
enum op2 { O_NONE, O_ADD, O_MIN, O_MAX };

typedef struct vform {
    enum sop op;
    int ds, as, bs;             /* dtype, atype, btype signed */
    int asel, bsel, dsel;       /* BY(k), HF(k) or 0 */
    int sat;
    enum op2 op2;
    int wrap;                   /* vshl/vshr: .wrap, else .clamp */
} vform;

static int sel_bits(int sel)
{
    return sel >> 4 == 1 ? 8 : sel >> 4 == 2 ? 16 : 32;
}

static int64_t part(uint32_t v, int sel, int sign)
{
    int bits = sel_bits(sel);
    uint64_t x = bits == 32 ? v : (v >> (bits * (sel & 15))) & ((1u << bits) - 1);
    return sign && (x >> (bits - 1) & 1) ? (int64_t)x - (1ll << bits) : (int64_t)x;
}

static int64_t clamp(int64_t t, int64_t lo, int64_t hi)
{
    return t < lo ? lo : t > hi ? hi : t;
}

static int64_t primary(const vform *f, int64_t ta, int64_t tb)
{
    int64_t n = f->wrap ? (tb & 31) : tb > 32 ? 32 : tb;
    switch (f->op) {
    case S_ADD: return ta + tb;
    case S_SUB: return ta - tb;
    case S_ABSDIFF: return ta > tb ? ta - tb : tb - ta;
    case S_MIN: return ta < tb ? ta : tb;
    case S_MAX: return ta > tb ? ta : tb;
    case S_SHL: return (int64_t)((uint64_t)ta << n << 30) >> 30;   /* .s34 */
    case S_SHR: return ta >> n;
    case S_EQ: return ta == tb;
    case S_NE: return ta != tb;
    case S_LT: return ta < tb;
    case S_LE: return ta <= tb;
    case S_GT: return ta > tb;
    default: return ta >= tb;
    }
}

static uint32_t scalar(const uint64_t *in, const vform *f)
{
    int shifts = f->op == S_SHL || f->op == S_SHR;
    int64_t t = primary(f, part(U32(A), f->asel, f->as), part(U32(B), f->bsel, shifts ? 0 : f->bs));
    if (f->sat) {
        int w = sel_bits(f->dsel);
        t = f->ds ? clamp(t, -(1ll << (w - 1)), (1ll << (w - 1)) - 1) : clamp(t, 0, (1ll << w) - 1);
    }
    int64_t c = f->ds ? (int64_t)(int32_t)U32(C) : (int64_t)U32(C);
    if (f->op2 == O_ADD)
        t += c;
    else if (f->op2 == O_MIN)
        t = t < c ? t : c;
    else if (f->op2 == O_MAX)
        t = t > c ? t : c;
    if (!f->dsel)
        return U32(t);
    int w = sel_bits(f->dsel), at = w * (f->dsel & 15);
    uint32_t field = (uint32_t)((1ull << w) - 1) << at;
    return ((U32(t) << at) & field) | (U32(C) & ~field);
}

#define SREF(id, ...) REF(id) { out[0] = scalar(in, &(vform){__VA_ARGS__}); }

/* vadd ... vmax: the same nine forms each (the rows in sweep_ops.def) */
#define ARITH(n, o)                                                                    \
    SREF(n##_u32, .op = o)                                                             \
    SREF(n##_s32_sat, .op = o, .ds = 1, .as = 1, .bs = 1, .sat = 1)                     \
    SREF(n##_sel_sat, .op = o, .as = 1, .asel = BY(1), .bsel = HF(1), .sat = 1)            \
    SREF(n##_add, .op = o, .ds = 1, .bs = 1, .asel = HF(0), .op2 = O_ADD)                 \
    SREF(n##_sat_min, .op = o, .bs = 1, .bsel = BY(3), .sat = 1, .op2 = O_MIN)            \
    SREF(n##_max, .op = o, .ds = 1, .as = 1, .bs = 1, .asel = BY(2), .bsel = HF(1),         \
         .op2 = O_MAX)                                                                   \
    SREF(n##_h1_sat, .op = o, .ds = 1, .as = 1, .asel = HF(0), .bsel = BY(0), .dsel = HF(1), \
         .sat = 1)                                                                       \
    SREF(n##_b2_sat, .op = o, .dsel = BY(2), .sat = 1)                                    \
    SREF(n##_b0, .op = o, .ds = 1, .asel = BY(3), .bsel = BY(1), .dsel = BY(0))
ARITH(vadd, S_ADD)
ARITH(vsub, S_SUB)
ARITH(vabsdiff, S_ABSDIFF)
ARITH(vmin, S_MIN)
ARITH(vmax, S_MAX)

#define SHIFT(n, o)                                                                    \
    SREF(n##_clamp, .op = o)                                                           \
    SREF(n##_wrap, .op = o, .ds = 1, .as = 1, .wrap = 1)                                \
    SREF(n##_sel_sat, .op = o, .as = 1, .asel = HF(1), .sat = 1)                          \
    SREF(n##_s_sat, .op = o, .ds = 1, .sat = 1)                                          \
    SREF(n##_sat_add, .op = o, .ds = 1, .as = 1, .asel = BY(0), .sat = 1, .op2 = O_ADD,     \
         .wrap = 1)                                                                      \
    SREF(n##_h0, .op = o, .bsel = BY(0), .dsel = HF(0))                                    \
    SREF(n##_sat_max, .op = o, .ds = 1, .as = 1, .bsel = HF(0), .sat = 1, .op2 = O_MAX)
SHIFT(vshl, S_SHL)
SHIFT(vshr, S_SHR)

/* vset: every compare (s32 a, u32 b), then secondary ops and merges */
SREF(vset_eq, .op = S_EQ, .as = 1)
SREF(vset_ne, .op = S_NE, .as = 1)
SREF(vset_lt, .op = S_LT, .as = 1)
SREF(vset_le, .op = S_LE, .as = 1)
SREF(vset_gt, .op = S_GT, .as = 1)
SREF(vset_ge, .op = S_GE, .as = 1)
SREF(vset_lt_add, .op = S_LT, .bs = 1, .asel = BY(2), .bsel = HF(1), .op2 = O_ADD)
SREF(vset_ge_min, .op = S_GE, .as = 1, .bs = 1, .op2 = O_MIN)
SREF(vset_ne_max, .op = S_NE, .asel = HF(1), .op2 = O_MAX)
SREF(vset_gt_b1, .op = S_GT, .as = 1, .bs = 1, .asel = BY(3), .bsel = BY(0), .dsel = BY(1))
SREF(vset_le_h1, .op = S_LE, .bsel = HF(0), .dsel = HF(1))

/* vmad: na/nb/nc negate a, b, c; scale 0, 7 or 15 */
typedef struct mform {
    int as, bs, na, nb, nc, po, sat, scale, asel, bsel;
} mform;

static uint32_t vmad(const uint64_t *in, const mform *f)
{
    int64_t ta = part(U32(A), f->asel, f->as), tb = part(U32(B), f->bsel, f->bs);
    int neg = f->na ^ f->nb;
    int sfinal = f->as || f->bs || neg || f->nc;
    __int128 t = (__int128)ta * tb, lsb = 0;
    uint32_t c = U32(C);
    if (f->po)
        lsb = 1;
    else if (neg)
        t = ~t, lsb = 1;
    else if (f->nc)
        c = ~c, lsb = 1;
    t += (sfinal ? (__int128)(int32_t)c : (__int128)c) + lsb;
    uint64_t r = (uint64_t)(t >> f->scale);
    if (f->sat && sfinal)
        r = (uint64_t)clamp((int64_t)r, INT32_MIN, INT32_MAX);
    else if (f->sat)
        r = r > UINT32_MAX ? UINT32_MAX : r;
    return U32(r);
}

#define MREF(id, ...) REF(id) { out[0] = vmad(in, &(mform){__VA_ARGS__}); }
MREF(vmad_u32)
MREF(vmad_s32, .as = 1, .bs = 1)
MREF(vmad_us_sat, .bs = 1, .sat = 1)
MREF(vmad_su_sat_nc, .as = 1, .sat = 1, .nc = 1)
MREF(vmad_na, .na = 1)
MREF(vmad_nb_sat, .as = 1, .bs = 1, .nb = 1, .sat = 1)
MREF(vmad_shr15, .asel = HF(0), .bsel = HF(0), .scale = 15)
MREF(vmad_po_sat_shr7, .po = 1, .sat = 1, .scale = 7)
MREF(vmad_po_shr15, .as = 1, .bs = 1, .asel = BY(1), .bsel = HF(1), .po = 1, .scale = 15)
MREF(vmad_u32_sat, .sat = 1)
MREF(vmad_nab_sat, .na = 1, .nb = 1, .sat = 1)
MREF(vmad_nc_sat, .nc = 1, .sat = 1)
MREF(vmad_na_sat_shr7, .bs = 1, .na = 1, .asel = HF(1), .bsel = BY(2), .sat = 1, .scale = 7)
