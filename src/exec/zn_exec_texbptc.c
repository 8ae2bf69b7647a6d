/* zn_exec_texbptc.c: decoders of the BPTC formats, BC7 (RGBA, UNORM)
 * and BC6H (RGB half floats, unsigned or signed), written from the Khronos
 * Data Format Specification's "BPTC Compressed Texture Image Formats"
 * (derived from OpenGL 4.5's), whose tables below are the specification's
 * data: the 2- and 3-subset partitions, their anchor texels, the BC6H
 * block layouts (each field a variable and the range of its bits).
 *
 * BC7: the mode is the position of the lowest set bit of byte 0 (none:
 * reserved, transparent black); then partition, rotation, index selection,
 * colour, alpha and P-bits; endpoints are expanded to 8 bits by
 * replicating their top bits and interpolated with the 6-bit weights as
 * ((64 - w) e0 + w e1 + 32) >> 6, exactly as the specification gives it.
 * BC6H: a 2- or 5-bit mode (19, 23, 27, 31 reserved: (0, 0, 0, 1)),
 * endpoints sign-extended and, in transformed modes, deltas of endpoint 0
 * (mod 2^bits), unquantized to 16 bits, interpolated, scaled by 31/64
 * (unsigned) or 31/32 (signed) into half-float bit patterns.
 * Partition 1 of 3 subsets and partition 35 of 2 subsets take the anchors
 * of the anchor tables (3 and 8), where the specification's partition
 * tables mark 15 and 2: the anchor tables agree with Direct3D's.
 */
#include "zn_exec_texbc.h"
#include "zn_exec_texbptc.h"
#include "zn_exec_tex.h"

#include <string.h>

/* A field of a BC6H block: `n` bits of variable var (R0..R3 = 0..3, G 4..7,
 * B 8..11, the mode 12, the partition 13) from bit b towards bit a. */
struct bc6h_field {
    uint8_t var, a, b;
};

static const uint16_t bptc_p2[64] = {
    0xcccc, 0x8888, 0xeeee, 0xecc8, 0xc880, 0xfeec, 0xfec8, 0xec80, 0xc800, 0xffec, 0xfe80,
    0xe800, 0xffe8, 0xff00, 0xfff0, 0xf000, 0xf710, 0x008e, 0x7100, 0x08ce, 0x008c, 0x7310,
    0x3100, 0x8cce, 0x088c, 0x3110, 0x6666, 0x366c, 0x17e8, 0x0ff0, 0x718e, 0x399c, 0xaaaa,
    0xf0f0, 0x5a5a, 0x33cc, 0x3c3c, 0x55aa, 0x9696, 0xa55a, 0x73ce, 0x13c8, 0x324c, 0x3bdc,
    0x6996, 0xc33c, 0x9966, 0x0660, 0x0272, 0x04e4, 0x4e40, 0x2720, 0xc936, 0x936c, 0x39c6,
    0x639c, 0x9336, 0x9cc6, 0x817e, 0xe718, 0xccf0, 0x0fcc, 0x7744, 0xee22,
};
static const uint32_t bptc_p3[64] = {
    0xaa685050, 0x6a5a5040, 0x5a5a4200, 0x5450a0a8, 0xa5a50000, 0xa0a05050, 0x5555a0a0,
    0x5a5a5050, 0xaa550000, 0xaa555500, 0xaaaa5500, 0x90909090, 0x94949494, 0xa4a4a4a4,
    0xa9a59450, 0x2a0a4250, 0xa5945040, 0x0a425054, 0xa5a5a500, 0x55a0a0a0, 0xa8a85454,
    0x6a6a4040, 0xa4a45000, 0x1a1a0500, 0x0050a4a4, 0xaaa59090, 0x14696914, 0x69691400,
    0xa08585a0, 0xaa821414, 0x50a4a450, 0x6a5a0200, 0xa9a58000, 0x5090a0a8, 0xa8a09050,
    0x24242424, 0x00aa5500, 0x24924924, 0x24499224, 0x50a50a50, 0x500aa550, 0xaaaa4444,
    0x66660000, 0xa5a0a5a0, 0x50a050a0, 0x69286928, 0x44aaaa44, 0x66666600, 0xaa444444,
    0x54a854a8, 0x95809580, 0x96969600, 0xa85454a8, 0x80959580, 0xaa141414, 0x96960000,
    0xaaaa1414, 0xa05050a0, 0xa0a5a5a0, 0x96000000, 0x40804080, 0xa9a8a9a8, 0xaaaaaa44,
    0x2a4a5254,
};
static const uint8_t bptc_a2[64] = {
    15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 2, 8, 2, 2, 8, 8, 15,
    2, 8, 2, 2, 8, 8, 2, 2, 15, 15, 6, 8, 2, 8, 15, 15, 2, 8, 2, 2, 2, 15, 15, 6, 6, 2, 6, 8,
    15, 15, 2, 2, 15, 15, 15, 15, 15, 2, 2, 15,
};
static const uint8_t bptc_a32[64] = {
    3, 3, 15, 15, 8, 3, 15, 15, 8, 8, 6, 6, 6, 5, 3, 3, 3, 3, 8, 15, 3, 3, 6, 10, 5, 8, 8, 6,
    8, 5, 15, 15, 8, 15, 3, 5, 6, 10, 8, 15, 15, 3, 15, 5, 15, 15, 15, 15, 3, 15, 5, 5, 5, 8,
    5, 10, 5, 10, 8, 13, 15, 12, 3, 3,
};
static const uint8_t bptc_a33[64] = {
    15, 8, 8, 3, 15, 15, 3, 8, 15, 15, 15, 15, 15, 15, 15, 8, 15, 8, 15, 3, 15, 8, 15, 8, 3,
    15, 6, 10, 15, 15, 10, 8, 15, 3, 15, 10, 10, 8, 9, 10, 6, 15, 8, 15, 3, 6, 6, 8, 15, 3, 15,
    15, 15, 15, 15, 15, 15, 15, 15, 15, 3, 15, 15, 8,
};

static const struct bc6h_field bc6h_layout[14][26] = {
    /* mode 0 */
    {{12, 1, 0}, {6, 4, 4}, {10, 4, 4}, {11, 4, 4}, {0, 9, 0}, {4, 9, 0}, {8, 9, 0},
     {1, 4, 0}, {7, 4, 4}, {6, 3, 0}, {5, 4, 0}, {11, 0, 0}, {7, 3, 0}, {9, 4, 0}, {11, 1, 1},
     {10, 3, 0}, {2, 4, 0}, {11, 2, 2}, {3, 4, 0}, {11, 3, 3}, {13, 4, 0}},
    /* mode 1 */
    {{12, 1, 0}, {6, 5, 5}, {7, 4, 4}, {7, 5, 5}, {0, 6, 0}, {11, 0, 0}, {11, 1, 1},
     {10, 4, 4}, {4, 6, 0}, {10, 5, 5}, {11, 2, 2}, {6, 4, 4}, {8, 6, 0}, {11, 3, 3},
     {11, 5, 5}, {11, 4, 4}, {1, 5, 0}, {6, 3, 0}, {5, 5, 0}, {7, 3, 0}, {9, 5, 0},
     {10, 3, 0}, {2, 5, 0}, {3, 5, 0}, {13, 4, 0}},
    /* mode 2 */
    {{12, 4, 0}, {0, 9, 0}, {4, 9, 0}, {8, 9, 0}, {1, 4, 0}, {0, 10, 10}, {6, 3, 0},
     {5, 3, 0}, {4, 10, 10}, {11, 0, 0}, {7, 3, 0}, {9, 3, 0}, {8, 10, 10}, {11, 1, 1},
     {10, 3, 0}, {2, 4, 0}, {11, 2, 2}, {3, 4, 0}, {11, 3, 3}, {13, 4, 0}},
    /* mode 6 */
    {{12, 4, 0}, {0, 9, 0}, {4, 9, 0}, {8, 9, 0}, {1, 3, 0}, {0, 10, 10}, {7, 4, 4},
     {6, 3, 0}, {5, 4, 0}, {4, 10, 10}, {7, 3, 0}, {9, 3, 0}, {8, 10, 10}, {11, 1, 1},
     {10, 3, 0}, {2, 3, 0}, {11, 0, 0}, {11, 2, 2}, {3, 3, 0}, {6, 4, 4}, {11, 3, 3},
     {13, 4, 0}},
    /* mode 10 */
    {{12, 4, 0}, {0, 9, 0}, {4, 9, 0}, {8, 9, 0}, {1, 3, 0}, {0, 10, 10}, {10, 4, 4},
     {6, 3, 0}, {5, 3, 0}, {4, 10, 10}, {11, 0, 0}, {7, 3, 0}, {9, 4, 0}, {8, 10, 10},
     {10, 3, 0}, {2, 3, 0}, {11, 1, 1}, {11, 2, 2}, {3, 3, 0}, {11, 4, 4}, {11, 3, 3},
     {13, 4, 0}},
    /* mode 14 */
    {{12, 4, 0}, {0, 8, 0}, {10, 4, 4}, {4, 8, 0}, {6, 4, 4}, {8, 8, 0}, {11, 4, 4},
     {1, 4, 0}, {7, 4, 4}, {6, 3, 0}, {5, 4, 0}, {11, 0, 0}, {7, 3, 0}, {9, 4, 0}, {11, 1, 1},
     {10, 3, 0}, {2, 4, 0}, {11, 2, 2}, {3, 4, 0}, {11, 3, 3}, {13, 4, 0}},
    /* mode 18 */
    {{12, 4, 0}, {0, 7, 0}, {7, 4, 4}, {10, 4, 4}, {4, 7, 0}, {11, 2, 2}, {6, 4, 4},
     {8, 7, 0}, {11, 3, 3}, {11, 4, 4}, {1, 5, 0}, {6, 3, 0}, {5, 4, 0}, {11, 0, 0},
     {7, 3, 0}, {9, 4, 0}, {11, 1, 1}, {10, 3, 0}, {2, 5, 0}, {3, 5, 0}, {13, 4, 0}},
    /* mode 22 */
    {{12, 4, 0}, {0, 7, 0}, {11, 0, 0}, {10, 4, 4}, {4, 7, 0}, {6, 5, 5}, {6, 4, 4},
     {8, 7, 0}, {7, 5, 5}, {11, 4, 4}, {1, 4, 0}, {7, 4, 4}, {6, 3, 0}, {5, 5, 0}, {7, 3, 0},
     {9, 4, 0}, {11, 1, 1}, {10, 3, 0}, {2, 4, 0}, {11, 2, 2}, {3, 4, 0}, {11, 3, 3},
     {13, 4, 0}},
    /* mode 26 */
    {{12, 4, 0}, {0, 7, 0}, {11, 1, 1}, {10, 4, 4}, {4, 7, 0}, {10, 5, 5}, {6, 4, 4},
     {8, 7, 0}, {11, 5, 5}, {11, 4, 4}, {1, 4, 0}, {7, 4, 4}, {6, 3, 0}, {5, 4, 0},
     {11, 0, 0}, {7, 3, 0}, {9, 5, 0}, {10, 3, 0}, {2, 4, 0}, {11, 2, 2}, {3, 4, 0},
     {11, 3, 3}, {13, 4, 0}},
    /* mode 30 */
    {{12, 4, 0}, {0, 5, 0}, {7, 4, 4}, {11, 0, 0}, {11, 1, 1}, {10, 4, 4}, {4, 5, 0},
     {6, 5, 5}, {10, 5, 5}, {11, 2, 2}, {6, 4, 4}, {8, 5, 0}, {7, 5, 5}, {11, 3, 3},
     {11, 5, 5}, {11, 4, 4}, {1, 5, 0}, {6, 3, 0}, {5, 5, 0}, {7, 3, 0}, {9, 5, 0},
     {10, 3, 0}, {2, 5, 0}, {3, 5, 0}, {13, 4, 0}},
    /* mode 3 */
    {{12, 4, 0}, {0, 9, 0}, {4, 9, 0}, {8, 9, 0}, {1, 9, 0}, {5, 9, 0}, {9, 9, 0}},
    /* mode 7 */
    {{12, 4, 0}, {0, 9, 0}, {4, 9, 0}, {8, 9, 0}, {1, 8, 0}, {0, 10, 10}, {5, 8, 0},
     {4, 10, 10}, {9, 8, 0}, {8, 10, 10}},
    /* mode 11 */
    {{12, 4, 0}, {0, 9, 0}, {4, 9, 0}, {8, 9, 0}, {1, 7, 0}, {0, 10, 11}, {5, 7, 0},
     {4, 10, 11}, {9, 7, 0}, {8, 10, 11}},
    /* mode 15 */
    {{12, 4, 0}, {0, 9, 0}, {4, 9, 0}, {8, 9, 0}, {1, 3, 0}, {0, 10, 15}, {5, 3, 0},
     {4, 10, 15}, {9, 3, 0}, {8, 10, 15}},
};

/* the modes in bc6h_layout's order, and their parameters: transformed
 * endpoints, partition bits, endpoint bits, delta bits (R, G, B) */
static const struct {
    uint8_t mode, transformed, pb, epb, delta[3];
} bc6h_modes[14] = {
    {0, 1, 5, 10, {5, 5, 5}}, {1, 1, 5, 7, {6, 6, 6}}, {2, 1, 5, 11, {5, 4, 4}},
    {6, 1, 5, 11, {4, 5, 4}}, {10, 1, 5, 11, {4, 4, 5}}, {14, 1, 5, 9, {5, 5, 5}},
    {18, 1, 5, 8, {6, 5, 5}}, {22, 1, 5, 8, {5, 6, 5}}, {26, 1, 5, 8, {5, 5, 6}},
    {30, 0, 5, 6, {6, 6, 6}}, {3, 0, 0, 10, {10, 10, 10}}, {7, 1, 0, 11, {9, 9, 9}},
    {11, 1, 0, 12, {8, 8, 8}}, {15, 1, 0, 16, {4, 4, 4}},
};

static const uint8_t weights2[4] = {0, 21, 43, 64};
static const uint8_t weights3[8] = {0, 9, 18, 27, 37, 46, 55, 64};
static const uint8_t weights4[16] = {0, 4, 9, 13, 17, 21, 26, 30, 34, 38, 43, 47, 51, 55, 60, 64};

static unsigned weight(unsigned bits, unsigned idx)
{
    return bits == 2 ? weights2[idx] : bits == 3 ? weights3[idx] : weights4[idx];
}

/* n (<= 32) bits of the 128-bit block from bit `at`, little endian */
static uint32_t bits_at(const uint8_t *p, unsigned at, unsigned n)
{
    uint32_t v = 0;
    for (unsigned k = 0; k < n; k++)
        v |= (uint32_t)((p[(at + k) >> 3] >> ((at + k) & 7)) & 1) << k;
    return v;
}

/* Subset of texel k and whether it is its subset's anchor. */
static unsigned subset_of(unsigned ns, unsigned part, unsigned k, bool *anchor)
{
    unsigned s = ns == 1 ? 0 : ns == 2 ? (bptc_p2[part] >> k) & 1 : (bptc_p3[part] >> (2 * k)) & 3;
    *anchor = k == 0 || (ns == 2 && k == bptc_a2[part]) ||
              (ns == 3 && (k == bptc_a32[part] || k == bptc_a33[part]));
    return s;
}

/* The index of texel k in an index field starting at `at` (IB bits per
 * texel, one less for anchors; anchor_of gives the anchors). */
static unsigned index_of(const uint8_t *p, unsigned at, unsigned ib, unsigned ns, unsigned part,
                         unsigned k)
{
    unsigned pos = at;
    for (unsigned t = 0; t < k; t++) {
        bool anc;
        subset_of(ns, part, t, &anc);
        pos += ib - (anc ? 1 : 0);
    }
    bool anc;
    subset_of(ns, part, k, &anc);
    return bits_at(p, pos, ib - (anc ? 1 : 0));
}

/* ---- BC7 ------------------------------------------------------------------ */

static const struct {
    uint8_t ns, pb, rb, isb, cb, ab, epb, spb, ib, ib2;
} bc7_modes[8] = {
    {3, 4, 0, 0, 4, 0, 1, 0, 3, 0}, {2, 6, 0, 0, 6, 0, 0, 1, 3, 0},
    {3, 6, 0, 0, 5, 0, 0, 0, 2, 0}, {2, 6, 0, 0, 7, 0, 1, 0, 2, 0},
    {1, 0, 2, 1, 5, 6, 0, 0, 2, 3}, {1, 0, 2, 0, 7, 8, 0, 0, 2, 2},
    {1, 0, 0, 0, 7, 7, 1, 0, 4, 0}, {2, 6, 0, 0, 5, 5, 1, 0, 2, 0},
};

/* an endpoint channel of `bits` bits (P-bit included) widened to 8 */
static unsigned expand8(unsigned v, unsigned bits)
{
    v <<= 8 - bits;
    return v | v >> bits;
}

static void bc7_texel(const uint8_t *p, unsigned k, float *rgba)
{
    unsigned mode = 0;
    while (mode < 8 && !((p[0] >> mode) & 1))
        mode++;
    if (mode == 8) { /* reserved */
        rgba[0] = rgba[1] = rgba[2] = rgba[3] = 0.0f;
        return;
    }
    const __typeof__(bc7_modes[0]) *m = &bc7_modes[mode];
    unsigned pos = mode + 1;
    unsigned part = bits_at(p, pos, m->pb);
    pos += m->pb;
    unsigned rot = bits_at(p, pos, m->rb);
    pos += m->rb;
    unsigned isb = bits_at(p, pos, m->isb);
    pos += m->isb;
    unsigned ep[3][2][4]; /* subset, endpoint, channel */
    for (unsigned c = 0; c < 4; c++) {
        unsigned n = c < 3 ? m->cb : m->ab;
        for (unsigned s = 0; s < m->ns; s++)
            for (unsigned e = 0; e < 2; e++) {
                ep[s][e][c] = bits_at(p, pos, n);
                pos += n;
            }
    }
    unsigned pbit[3][2] = {{0, 0}, {0, 0}, {0, 0}};
    for (unsigned s = 0; s < m->ns; s++)
        for (unsigned e = 0; e < 2; e++) {
            if (m->epb)
                pbit[s][e] = bits_at(p, pos + 2 * s + e, 1);
            else if (m->spb)
                pbit[s][e] = bits_at(p, pos + s, 1);
        }
    pos += m->epb ? 2 * m->ns : m->spb ? m->ns : 0;
    bool anchor;
    unsigned s = subset_of(m->ns, part, k, &anchor);
    /* primary indices, then (modes 4, 5) secondary ones anchored at texel 0 */
    unsigned i1 = index_of(p, pos, m->ib, m->ns, part, k);
    unsigned nidx1 = 16 * m->ib - m->ns;
    unsigned i2 = m->ib2 ? index_of(p, pos + nidx1, m->ib2, 1, 0, k) : i1;
    unsigned cbits = isb ? m->ib2 : m->ib, abits = m->ib2 ? (isb ? m->ib : m->ib2) : m->ib;
    unsigned ci = isb ? i2 : i1, ai = m->ib2 ? (isb ? i1 : i2) : i1;
    unsigned out[4];
    for (unsigned c = 0; c < 4; c++) {
        unsigned n = c < 3 ? m->cb : m->ab;
        if (!n) {
            out[c] = 255;
            continue;
        }
        unsigned pb = m->epb || m->spb, e0 = ep[s][0][c], e1 = ep[s][1][c];
        if (pb) {
            e0 = e0 << 1 | pbit[s][0];
            e1 = e1 << 1 | pbit[s][1];
        }
        e0 = expand8(e0, n + pb);
        e1 = expand8(e1, n + pb);
        unsigned w = c < 3 ? weight(cbits, ci) : weight(abits, ai);
        out[c] = ((64 - w) * e0 + w * e1 + 32) >> 6;
    }
    if (rot) { /* swap alpha with R, G or B */
        unsigned t = out[3];
        out[3] = out[rot - 1];
        out[rot - 1] = t;
    }
    for (unsigned c = 0; c < 4; c++)
        rgba[c] = (float)out[c] / 255.0f;
}

/* ---- BC6H ----------------------------------------------------------------- */

static int32_t sign_extend(uint32_t v, unsigned bits)
{
    return bits >= 32 ? (int32_t)v : (int32_t)(v << (32 - bits)) >> (32 - bits);
}

/* an endpoint of `bits` bits to the 16-bit range of the interpolation */
static int32_t unquantize(int32_t c, unsigned bits, bool is_signed)
{
    if (!is_signed) {
        if (bits >= 15)
            return c;
        if (c == 0)
            return 0;
        if (c == (1 << bits) - 1)
            return 0xffff;
        return ((c << 16) + 0x8000) >> bits;
    }
    if (bits >= 16)
        return c;
    bool neg = c < 0;
    int32_t a = neg ? -c : c, q;
    if (a == 0)
        q = 0;
    else if (a >= (1 << (bits - 1)) - 1)
        q = 0x7fff;
    else
        q = ((a << 15) + 0x4000) >> (bits - 1);
    return neg ? -q : q;
}

/* the interpolated value as the bits of a half float */
static uint16_t finish_unquantize(int32_t c, bool is_signed)
{
    if (!is_signed)
        return (uint16_t)((c * 31) >> 6);
    bool neg = c < 0;
    int32_t a = ((neg ? -c : c) * 31) >> 5;
    return (uint16_t)((neg ? 0x8000 : 0) | a);
}

static void bc6h_texel(const uint8_t *p, unsigned k, bool is_signed, float *rgba)
{
    unsigned mode = bits_at(p, 0, 2);
    if (mode >= 2)
        mode = bits_at(p, 0, 5);
    unsigned mi = 0;
    while (mi < 14 && bc6h_modes[mi].mode != mode)
        mi++;
    rgba[0] = rgba[1] = rgba[2] = 0.0f;
    rgba[3] = 1.0f;
    if (mi == 14)
        return; /* reserved mode */
    const __typeof__(bc6h_modes[0]) *m = &bc6h_modes[mi];
    unsigned ns = m->pb ? 2 : 1, header = ns == 2 ? 82 : 65;
    uint32_t var[14];
    memset(var, 0, sizeof var);
    unsigned pos = 0;
    for (unsigned f = 0; pos < header; f++) {
        const struct bc6h_field *fl = &bc6h_layout[mi][f];
        int step = fl->a >= fl->b ? 1 : -1;
        unsigned n = (unsigned)(fl->a >= fl->b ? fl->a - fl->b : fl->b - fl->a) + 1;
        for (unsigned t = 0; t < n; t++)
            var[fl->var] |= (uint32_t)bits_at(p, pos + t, 1) << (fl->b + step * (int)t);
        pos += n;
    }
    unsigned part = var[13];
    int32_t e[4][3]; /* endpoint, channel */
    for (unsigned i = 0; i < 2 * ns; i++)
        for (unsigned c = 0; c < 3; c++) {
            uint32_t v = var[c * 4 + i];
            unsigned bits = i == 0 || !m->transformed ? m->epb : m->delta[c];
            e[i][c] = (is_signed || (i > 0 && m->transformed)) ? sign_extend(v, bits)
                                                                : (int32_t)v;
        }
    if (m->transformed) /* deltas of endpoint 0, modulo 2^epb */
        for (unsigned i = 1; i < 2 * ns; i++)
            for (unsigned c = 0; c < 3; c++) {
                uint32_t v = (uint32_t)(e[0][c] + e[i][c]) & ((1u << m->epb) - 1);
                e[i][c] = is_signed ? sign_extend(v, m->epb) : (int32_t)v;
            }
    bool anchor;
    unsigned s = subset_of(ns, part, k, &anchor);
    unsigned ib = ns == 2 ? 3 : 4;
    unsigned idx = index_of(p, header, ib, ns, part, k);
    int32_t w = (int32_t)weight(ib, idx);
    for (unsigned c = 0; c < 3; c++) {
        int32_t a = unquantize(e[2 * s][c], m->epb, is_signed);
        int32_t b = unquantize(e[2 * s + 1][c], m->epb, is_signed);
        int32_t v = (a * (64 - w) + b * w + 32) >> 6;
        rgba[c] = zn_tex_half_to_float(finish_unquantize(v, is_signed));
    }
}

void zn_texbptc_texel(uint32_t fmt, const uint8_t *block, unsigned k, float *rgba)
{
    if (fmt == ZN_BC7_UNORM || fmt == ZN_BC7_UNORM_SRGB)
        bc7_texel(block, k, rgba);
    else
        bc6h_texel(block, k, fmt == ZN_BC6H_SF16, rgba);
}
