/* zn_exec_tex.c: the texture sampler and surface accesses (zn_rt_ops.tex).
 *
 * One call serves a whole warp: the compiled code stores the handles and
 * coordinates of its 32 lanes, the active lanes are done here one by one.
 * Semantics follow the CUDA Programming Guide's "Texture Fetching"
 * appendix: normalized coordinates are scaled by the size after wrap or
 * mirror (both only with normalized coordinates; otherwise clamp);
 * nearest-point sampling reads T[floor(x)]; linear filtering reads the
 * texels around x - 0.5 and blends them with weights kept, as NVIDIA's
 * hardware does, in 9-bit fixed point with 8 fractional bits, the 2D and
 * 3D corner weights rounded to 1/256 too (corner_weights; measured on an
 * H200); texel
 * indices outside the texture are clamped, wrapped, mirrored or replaced
 * by the border colour. 8- and 16-bit integer formats read without
 * CU_TRSF_READ_AS_INTEGER become floats in [0, 1] (unsigned) or [-1, 1]
 * (signed); 32-bit integers are always read as integers (linear filtering
 * of integers blends them and rounds to the nearest integer). Channels
 * the format lacks read 0, alpha included (as on an H200). Surfaces address
 * x in bytes (sust.p: in elements); out-of-range accesses trap, clamp to
 * the nearest element or read zero / drop the store. sust.p converts its
 * .b32 values to the array's format: floats for HALF/FLOAT arrays (half
 * rounds to nearest even), integers saturated to 8/16-bit channels.
 *
 * Mipmaps: the LOD is 0 for plain tex, the operand of tex.level, or for
 * tex.grad the H200's approximate log2 of the footprint the gradients span
 * in level-0 texels (lod_2d, measured); then the descriptor's bias and
 * min/max clamps apply and the point mip filter samples the nearest level,
 * the linear one blends the two around the LOD with the LOD's fraction
 * truncated to 8 bits (measured on an H200). Cubemaps: tex.cube
 * picks the face of the major axis and samples it as a normalized 2D layer
 * clamped to its edges, or with CU_TRSF_SEAMLESS_CUBEMAP and linear
 * filtering, with the texels past an edge taken from the neighbouring face
 * (seamless_fetch; past a corner, seamless_corner_weights); tex.grad.cube
 * projects the gradients onto that face.
 *
 * Optional operands: a texel offset (-8..+7 per dimension) moves the
 * lookup by whole texels of the level sampled, before filtering and the
 * address mode; a depth compare value changes nothing (as on an H200:
 * CUDA's descriptors enable no compare). Integer coordinates read 0
 * outside the texture. tld4 gathers from 2D layers and from cubemap faces
 * (level 0).
 *
 * Sparse arrays (descriptor field `sparse`, zn_exec_sparse.h): texels and
 * surface elements are found through the tile table; those in tiles that
 * are not resident read 0 and take no writes, and the `{d}|p` form is
 * false when any texel a lookup read (every texel the filter touched)
 * was one. A sparse level's data pointer is NULL, so other arrays pay one
 * predictable test of the pointer they load anyway.
 */
#include "zn_exec_tex.h"
#include "zn_exec_texbc.h"
#include "../util/zn_bits.h"

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

/* CUarray_format, CUaddress_mode, CU_TRSF values (cuda.h) */
enum { F_U8 = 0x01, F_U16 = 0x02, F_U32 = 0x03, F_S8 = 0x08, F_S16 = 0x09, F_S32 = 0x0a,
       F_HALF = 0x10, F_FLOAT = 0x20 };
enum { A_WRAP = 0, A_CLAMP = 1, A_MIRROR = 2, A_BORDER = 3 };
#define TRSF_READ_AS_INTEGER 0x01u
#define TRSF_NORMALIZED_COORDINATES 0x02u
#define TRSF_SRGB 0x10u
#define TRSF_SEAMLESS_CUBEMAP 0x40u

/* one texel: floats, or raw integers for element reads of integer formats */
typedef union texel {
    float f[4];
    uint32_t u[4];
} texel;

float zn_tex_half_to_float(uint16_t h)
{
    uint32_t s = (uint32_t)(h >> 15) << 31, e = (h >> 10) & 0x1f, m = h & 0x3ff, bits;
    if (e == 0x1f) {
        bits = s | 0x7f800000u | m << 13;
    } else if (e) {
        bits = s | (e + 112) << 23 | m << 13;
    } else if (m) { /* subnormal: renormalize */
        int k = 0;
        while (!(m & 0x400)) {
            m <<= 1;
            k++;
        }
        bits = s | (uint32_t)(113 - k) << 23 | (m & 0x3ff) << 13;
    } else {
        bits = s;
    }
    return zn_f32_from_bits(bits);
}

static bool is_int_format(uint32_t fmt)
{
    return fmt != F_HALF && fmt != F_FLOAT && !zn_texbc_is(fmt);
}

/* 8- and 16-bit integers become [0, 1] / [-1, 1] floats unless read as
 * integers; 32-bit integers always read as integers */
static bool reads_normalized(const zn_tex_desc *d)
{
    return is_int_format(d->format) && d->csize < 4 && !(d->flags & TRSF_READ_AS_INTEGER);
}

/* sRGB -> linear of an 8-bit value: NVIDIA's hardware uses a table, not
 * the sRGB standard's curve (off by up to 0.004 from it; the linear
 * segment is c * 5 / 16384). These are the H200's values of texels 0..255
 * (CU_TRSF_SRGB, point sampling, read as normalized floats). R, G and B
 * convert, never alpha, before any filtering. */
static const float srgb_lut[256] = {
#include "zn_tex_srgb_h200.inc"
};

static float srgb_to_linear(uint32_t v)
{
    return srgb_lut[v & 255];
}

/* The channels (R, G, B first) that sRGB converts: 3, 1 of a two-channel
 * 8-bit texture (the H200 converts only the first), 0 without sRGB. */
static unsigned srgb_channels(const zn_tex_desc *d)
{
    if (zn_texbc_is(d->format)) /* each UNORM colour format is one below its _SRGB variant */
        return zn_texbc_srgb(d->format) ||
                       ((d->flags & TRSF_SRGB) && zn_texbc_srgb(d->format + 1))
                   ? 3
                   : 0;
    if (!(d->flags & TRSF_SRGB) || d->format != F_U8 || !reads_normalized(d))
        return 0;
    return d->nch == 2 ? 1 : 3;
}

/* A block-compressed texel: its 4 x 4 block is at block (x / 4, y / 4) of
 * rows `pitch` bytes apart; always floats (CU_TRSF_READ_AS_INTEGER does
 * not apply), sRGB formats (or CU_TRSF_SRGB on the UNORM colour ones)
 * converted to linear like 8-bit sRGB textures. */
static void read_bc_texel(const zn_tex_desc *d, uint32_t x, uint32_t y, uint32_t z,
                          uint32_t layer, texel *t)
{
    const uint8_t *p = d->data + (uint64_t)(layer + z) * d->slice + (uint64_t)(y / 4) * d->pitch +
                       (uint64_t)(x / 4) * zn_texbc_block_bytes(d->format);
    zn_texbc_texel(d->format, p, x % 4, y % 4, t->f);
    if (srgb_channels(d)) /* the decoders give n / 255.0f: the table of n */
        for (unsigned c = 0; c < 3; c++)
            t->f[c] = srgb_to_linear((uint32_t)lrintf(t->f[c] * 255.0f));
}

/* Set when a lookup read a texel of a tile that is not resident (the
 * `{d}|p` answer); one zn_exec_tex call runs on one thread throughout. */
static _Thread_local bool tex_miss;

/* Reads texel (x, y, z) of `layer`; indices are already in range. A
 * sparse array's texel in a tile that is not resident reads 0. */
static void read_texel(const zn_tex_desc *d, uint32_t x, uint32_t y, uint32_t z,
                       uint32_t layer, texel *t)
{
    if (zn_texbc_is(d->format)) { /* never sparse (zn_drv_sparse.c) */
        read_bc_texel(d, x, y, z, layer, t);
        return;
    }
    const uint8_t *p = d->data;
    if (__builtin_expect(!p, 0)) { /* a sparse array (data NULL): its tiles */
        p = zn_sparse_addr(d->sparse, x, y, (uint64_t)layer + z);
        if (!p) {
            memset(t, 0, sizeof *t);
            tex_miss = true;
            return;
        }
    } else {
        p += (uint64_t)(layer + z) * d->slice + (uint64_t)y * d->pitch + (uint64_t)x * d->esize;
    }
    bool norm = reads_normalized(d);
    for (uint32_t c = 0; c < 4; c++) {
        if (c >= d->nch) { /* missing channels, alpha too, read 0 (H200) */
            t->u[c] = 0;
            continue;
        }
        const uint8_t *q = p + c * d->csize;
        uint8_t u8;
        uint16_t u16;
        uint32_t u32;
        switch (d->format) {
        case F_U8: memcpy(&u8, q, 1);
            if (!norm)
                t->u[c] = u8;
            else if ((d->flags & TRSF_SRGB) && c < (d->nch == 2 ? 1u : 3u))
                t->f[c] = srgb_to_linear(u8); /* of 2 channels only the first (H200) */
            else
                t->f[c] = u8 / 255.0f;
            break;
        case F_S8: memcpy(&u8, q, 1);
            if (norm) t->f[c] = fmaxf((int8_t)u8 / 127.0f, -1.0f);
            else t->u[c] = (uint32_t)(int32_t)(int8_t)u8;
            break;
        case F_U16: memcpy(&u16, q, 2);
            if (norm) t->f[c] = u16 / 65535.0f; else t->u[c] = u16;
            break;
        case F_S16: memcpy(&u16, q, 2);
            if (norm) t->f[c] = fmaxf((int16_t)u16 / 32767.0f, -1.0f);
            else t->u[c] = (uint32_t)(int32_t)(int16_t)u16;
            break;
        case F_HALF: memcpy(&u16, q, 2);
            t->f[c] = zn_tex_half_to_float(u16);
            break;
        default: /* F_U32, F_S32, F_FLOAT: the bits as stored */
            memcpy(&u32, q, 4);
            t->u[c] = u32;
            break;
        }
    }
}

/* floor(x) as an int, safe for NaN and huge values */
static int32_t ifloor(float x)
{
    if (!(x == x))
        return 0;
    float f = floorf(x);
    if (f < -1073741824.0f)
        return -1073741824;
    if (f > 1073741824.0f)
        return 1073741824;
    return (int32_t)f;
}

/* Maps texel index i of a dimension of n texels by the address mode;
 * false: outside, read the border colour. */
static bool resolve(int32_t i, uint32_t n, uint32_t mode, bool normalized, uint32_t *out)
{
    int64_t N = n;
    if (!normalized && (mode == A_WRAP || mode == A_MIRROR))
        mode = A_CLAMP; /* wrap and mirror need normalized coordinates */
    switch (mode) {
    case A_WRAP:
        *out = (uint32_t)(((i % N) + N) % N);
        return true;
    case A_MIRROR: {
        int64_t k = ((i % (2 * N)) + 2 * N) % (2 * N);
        *out = (uint32_t)(k < N ? k : 2 * N - 1 - k);
        return true;
    }
    case A_BORDER:
        if (i < 0 || i >= N)
            return false;
        *out = (uint32_t)i;
        return true;
    default:
        *out = (uint32_t)(i < 0 ? 0 : i >= N ? N - 1 : i);
        return true;
    }
}

/* A normalized coordinate after wrap/mirror, scaled to texels. */
static float scale_coord(const zn_tex_desc *d, unsigned dim, float c, uint32_t n)
{
    if (!(d->flags & TRSF_NORMALIZED_COORDINATES))
        return c;
    if (d->addr[dim] == A_WRAP) {
        c -= floorf(c);
    } else if (d->addr[dim] == A_MIRROR) {
        float f = floorf(c);
        c -= f;
        if (fmodf(f, 2.0f) != 0.0f)
            c = 1.0f - c;
    }
    return c * (float)n;
}

typedef struct tex_pos {
    unsigned ndim;          /* 1, 2 or 3 */
    float u[3];             /* float coordinates as given (normalized or not) */
    float x[3];             /* texel-space coordinates at the level sampled */
    int32_t ix[3];          /* integer coordinates */
    bool int_coords;
    uint32_t layer;
    int32_t off[3];         /* texel offset (tex/tld4 operand e), else 0 */
    bool gather;            /* tld4: seamless cubemaps need no linear filter */
} tex_pos;

static uint32_t dim_size(const zn_tex_desc *d, unsigned k)
{
    return k == 0 ? d->width : k == 1 ? d->height : d->depth;
}

static bool seamless_fetch(const zn_tex_desc *d, const tex_pos *p, const int32_t *idx,
                           texel *t);

/* integer texels read as integers: never filtered (compared or not) */
static bool raw_ints(const zn_tex_desc *d)
{
    return is_int_format(d->format) && !reads_normalized(d);
}

/* Texel at integer indices idx[] (one per dimension), border if outside. */
static void fetch_texel(const zn_tex_desc *d, const tex_pos *p, const int32_t *idx, texel *t)
{
    if (seamless_fetch(d, p, idx, t))
        return;
    uint32_t r[3] = {0, 0, 0};
    bool norm = (d->flags & TRSF_NORMALIZED_COORDINATES) != 0;
    /* integer coordinates (.s32) read the texel as addressed, offset
     * included, and 0 outside the level whatever the address mode and the
     * border colour (measured on an H200: tex.2d.s32 with and without
     * offsets, clamp and wrap, point and linear textures) */
    if (p->int_coords)
        for (unsigned k = 0; k < p->ndim; k++)
            if (idx[k] < 0 || (uint32_t)idx[k] >= dim_size(d, k)) {
                memset(t, 0, sizeof *t);
                return;
            }
    for (unsigned k = 0; k < p->ndim; k++)
        if (!resolve(idx[k], dim_size(d, k), d->addr[k], norm && !p->int_coords, &r[k])) {
            memcpy(t->f, d->border, sizeof t->f);
            return;
        }
    read_texel(d, r[0], r[1], r[2], p->layer, t);
}

/* A texel. The depth compare operand f of tex and tld4 changes nothing:
 * an H200 returns the texels as read (measured: tex.2d with offsets, every
 * compare value); CUDA's texture descriptors have no compare function to
 * enable it. */
static void fetch(const zn_tex_desc *d, const tex_pos *p, const int32_t *idx, texel *t)
{
    fetch_texel(d, p, idx, t);
}

/* A fraction as a 9-bit fixed-point weight in 1/256ths (0..256), rounded
 * half up: frac(x - 0.5) for the in-level filter. */
static int32_t weight256(float frac)
{
    if (!(frac == frac))
        return 0;
    return (int32_t)floorf(frac * 256.0f + 0.5f);
}

/* The bilinear weights of fractions a and b (1/256ths): the (hi, hi)
 * corner is a * b / 256 rounded half up, the others what makes each row
 * and column sum to its 1D weight, so that the four sum to 256. w[i + 2j]:
 * corner i along the first dimension, j along the second. */
static void weights2(int32_t a, int32_t b, int32_t *w)
{
    int32_t w11 = (a * b + 128) >> 8;
    w[0] = 256 - a - b + w11;
    w[1] = a - w11;
    w[2] = b - w11;
    w[3] = w11;
}

/* Corner weights (1/256ths) of linear filtering, as an H200 computes them
 * (measured: every weight of a 256 x 256 grid of 2D fractions and 2^16
 * random coordinates): per dimension frac(x - 0.5) in 9-bit fixed point
 * (8 fractional bits, rounded half up), in 2D the products rounded as
 * weights2 does. 3D: the x/z pair by weights2, then each of those split
 * along y, hi = w * b / 256 rounded half up: this reproduces 98.9% of the
 * H200's 3D weights; the others are 1/256 off (the exact rule is not
 * known). Corner k: bit d is the upper texel along dimension d. */
static void corner_weights(unsigned ndim, const int32_t *a, int32_t *w)
{
    if (ndim == 1) {
        w[0] = 256 - a[0];
        w[1] = a[0];
        return;
    }
    if (ndim == 2) {
        weights2(a[0], a[1], w);
        return;
    }
    int32_t xz[4];
    weights2(a[0], a[2], xz);
    for (unsigned k = 0; k < 8; k++) {
        int32_t v = xz[(k & 1) + ((k >> 2) & 1) * 2];
        int32_t hi = (v * a[1] + 128) >> 8;
        w[k] = (k >> 1) & 1 ? hi : v - hi;
    }
}

/* Raw integer texel channel c as a number (linear filtering of integers
 * read as integers: the driver accepts it, the H200 blends and rounds). */
static double int_value(const zn_tex_desc *d, const texel *t, unsigned c)
{
    return d->format == F_S8 || d->format == F_S16 || d->format == F_S32 ? (double)(int32_t)t->u[c]
                                                                         : (double)t->u[c];
}

/* UNORM textures the H200 filters in 16-bit fixed point: 8-bit unsigned
 * read as normalized floats (without sRGB) and the block-compressed UNORM
 * formats; each texel is a multiple of 1/65535 (n / 255 = 257 n / 65535),
 * the blend sum(w v) / 256 is rounded half up to a multiple of 1/65535
 * (measured: 2^16 random lookups of 8-bit texels, exact). */
static bool filters_unorm16(const zn_tex_desc *d)
{
    if (zn_texbc_is(d->format))
        return !zn_texbc_srgb(d->format) && !(d->flags & TRSF_SRGB) &&
               d->format != ZN_BC4_SNORM && d->format != ZN_BC5_SNORM &&
               d->format != ZN_BC6H_UF16 && d->format != ZN_BC6H_SF16;
    return d->format == F_U8 && reads_normalized(d) && !(d->flags & TRSF_SRGB);
}

/* Seamless linear filtering of a cubemap face: a footprint corner past
 * two edges (past the cube's corner, on no face) gives its weight wm to
 * the three texels around the corner, round(wm / 3) (as (wm * 85 + 128)
 * >> 8) to each of the two past one edge and the rest to the face's own
 * corner texel (measured on an H200: the weights of every texel of a
 * 4 x 4 cube for 1024 directions, exact). */
static void seamless_corner_weights(const zn_tex_desc *d, const tex_pos *p, const int32_t *base,
                                    int32_t *w)
{
    if (!d->cube || !(d->flags & TRSF_SEAMLESS_CUBEMAP) || p->ndim != 2)
        return;
    int32_t n = (int32_t)d->width;
    for (unsigned k = 0; k < 4; k++) {
        int32_t i = base[0] + (int32_t)(k & 1), j = base[1] + (int32_t)(k >> 1);
        if ((i < 0 || i >= n) && (j < 0 || j >= n)) {
            int32_t third = (w[k] * 85 + 128) >> 8;
            w[k ^ 3] += w[k] - 2 * third;
            w[k ^ 1] += third;
            w[k ^ 2] += third;
            w[k] = 0;
            return;
        }
    }
}


/* x rounded to 11 significant bits (half precision), ties up; x >= 0 */
static float round_half_up11(float x)
{
    if (!(x > 0.0f))
        return 0.0f;
    int e;
    float m = frexpf(x, &e);
    return ldexpf(floorf(m * 2048.0f + 0.5f), e - 11);
}

/* Linear filtering of sRGB-converted channels as an H200 does it (both
 * 8-bit and block-compressed sRGB textures; measured: 48 pairs of texels
 * blended at 257 weights each, 95.5% exact, the rest within 1/256): the
 * linear values of the texels with nonzero weight are truncated to 8
 * significant bits of the largest one (multiples of 2^(e - 8), the largest
 * in [2^(e-1), 2^e)), blended exactly and rounded to half precision, ties
 * up. The residue is not explained (a few texel values blend as if
 * smaller than their table entry). */
static float srgb_blend(const texel *t, const int32_t *w, unsigned n, unsigned c)
{
    float mx = 0.0f;
    for (unsigned k = 0; k < n; k++)
        if (w[k] && t[k].f[c] > mx)
            mx = t[k].f[c];
    if (!(mx > 0.0f))
        return 0.0f;
    int e;
    (void)frexpf(mx, &e);
    double acc = 0.0;
    for (unsigned k = 0; k < n; k++)
        acc += (double)w[k] * floor(ldexp((double)t[k].f[c], 8 - e));
    return round_half_up11((float)ldexp(acc / 256.0, e - 8));
}

static void sample(const zn_tex_desc *d, const tex_pos *p, texel *out)
{
    int32_t idx[3];
    if (p->int_coords || d->filter == 0) {
        for (unsigned k = 0; k < p->ndim; k++)
            idx[k] = p->int_coords ? p->ix[k] : ifloor(p->x[k]);
        fetch(d, p, idx, out);
        return;
    }
    /* linear: blend the 2^ndim texels around x - 0.5 */
    int32_t base[3], a[3], w[8];
    for (unsigned k = 0; k < p->ndim; k++) {
        float xb = p->x[k] - 0.5f;
        base[k] = ifloor(xb);
        a[k] = weight256(xb - floorf(xb));
    }
    corner_weights(p->ndim, a, w);
    seamless_corner_weights(d, p, base, w);
    bool ints = raw_ints(d), u16 = !ints && filters_unorm16(d);
    float acc[4] = {0, 0, 0, 0};
    double iacc[4] = {0, 0, 0, 0};
    texel all[8];
    for (unsigned corner = 0; corner < (1u << p->ndim); corner++) {
        for (unsigned k = 0; k < p->ndim; k++)
            idx[k] = base[k] + (int32_t)((corner >> k) & 1);
        texel t;
        fetch(d, p, idx, &t);
        all[corner] = t;
        float wgt = (float)w[corner] * (1.0f / 256.0f);
        for (unsigned c = 0; c < 4; c++) {
            if (ints)
                iacc[c] += w[corner] * int_value(d, &t, c);
            else if (u16)
                iacc[c] += w[corner] * (double)lrintf(t.f[c] * 65535.0f);
            else
                acc[c] += wgt * t.f[c];
        }
    }
    if (ints) /* rounded to the nearest integer */
        for (unsigned c = 0; c < 4; c++)
            out->u[c] = (uint32_t)(int32_t)llround(iacc[c] / 256.0);
    else if (u16)
        for (unsigned c = 0; c < 4; c++)
            out->f[c] = (float)floor(iacc[c] / 256.0 + 0.5) / 65535.0f;
    else
        memcpy(out->f, acc, sizeof acc);
    if (!ints && !u16)
        for (unsigned c = 0, n = srgb_channels(d); c < n; c++)
            out->f[c] = srgb_blend(all, w, 1u << p->ndim, c);
    /* half textures filter to half precision (the H200's results of the
     * two logged lookups are the float blend rounded to the nearest half) */
    if (d->format == F_HALF)
        for (unsigned c = 0; c < 4; c++)
            out->f[c] = zn_tex_half_to_float(zn_tex_float_to_half(out->f[c]));
}

/* The descriptor of mip level i, in *tmp when it differs from d. A
 * cubemap face is sampled as a 2D texture with normalized coordinates
 * clamped to the face (seamless_fetch replaces the clamp when asked). */
static const zn_tex_desc *level_view(const zn_tex_desc *d, unsigned i, zn_tex_desc *tmp)
{
    if (i == 0 && !d->cube)
        return d;
    memcpy(tmp, d, offsetof(zn_tex_desc, level));
    const zn_tex_level *l = &d->level[i];
    tmp->data = l->data;
    tmp->pitch = l->pitch;
    tmp->slice = l->slice;
    tmp->width = l->width;
    tmp->height = l->height;
    tmp->depth = l->depth;
    tmp->sparse = l->sparse;
    if (d->cube) {
        tmp->flags |= TRSF_NORMALIZED_COORDINATES;
        tmp->addr[0] = tmp->addr[1] = A_CLAMP;
    }
    return tmp;
}

/* Samples mip level i: float coordinates are scaled by that level's size. */
static void sample_level(const zn_tex_desc *d, unsigned i, const tex_pos *p0, texel *out)
{
    zn_tex_desc tmp;
    const zn_tex_desc *ld = level_view(d, i, &tmp);
    tex_pos p = *p0;
    /* offsets count texels of the level sampled, after wrap or mirror */
    for (unsigned k = 0; k < p.ndim; k++) {
        if (p.int_coords)
            p.ix[k] += p.off[k];
        else
            p.x[k] = scale_coord(ld, k, p.u[k], dim_size(ld, k)) + (float)p.off[k];
    }
    sample(ld, &p, out);
}

/* log2 of a footprint length as an H200's tex.grad computes it: the
 * exponent plus its table's fraction of the mantissa's top 8 bits, in
 * 1/256ths (zn_tex_lod_h200.inc, measured). */
static const uint8_t lod_frac_h200[256] = {
#include "zn_tex_lod_h200.inc"
};

static float lod_log2(float len)
{
    if (!(len > 0.0f))
        return -INFINITY;
    if (len == INFINITY)
        return INFINITY;
    int e;
    float m = frexpf(len, &e); /* len = m * 2^e, m in [0.5, 1) */
    unsigned j = (unsigned)((m * 2.0f - 1.0f) * 256.0f);
    return (float)(e - 1) + (float)lod_frac_h200[j > 255 ? 255 : j] * (1.0f / 256.0f);
}

/* A 2D vector's length as an H200 approximates it: the longer component
 * plus 11/32 of the shorter (measured: gradients along one direction). */
static float approx_len(float x, float y)
{
    x = fabsf(x);
    y = fabsf(y);
    return fmaxf(x, y) + 0.34375f * fminf(x, y);
}

/* x truncated to 10 significant bits (toward zero) */
static float trunc10(float x)
{
    int e;
    float m = frexpf(x, &e);
    return ldexpf(truncf(m * 1024.0f), e - 10);
}

/* The LOD of 2D gradients gx, gy in level-0 texels as an H200 computes it
 * (isotropic filtering, maxAnisotropy ignored; measured on 16384 random,
 * axis-aligned, parallel and orthogonal gradient pairs of 16 x 8 to
 * 1024 x 1024 textures: 95% exact, all within 2/256): the components and
 * their sums kept to 10 significant bits, the footprint length is the
 * longest of approx_len of gx, gy, and 11/16 of gx + gy and of gx - gy
 * (parallel gradients make a longer footprint than either, as the
 * ellipse's major axis does; orthogonal ones do not), then lod_log2. */
static float lod_2d(const float *gx, const float *gy)
{
    float a = trunc10(gx[0]), b = trunc10(gx[1]), c = trunc10(gy[0]), d = trunc10(gy[1]);
    float l = fmaxf(approx_len(a, b), approx_len(c, d));
    l = fmaxf(l, 0.6875f * approx_len(trunc10(a + c), trunc10(b + d)));
    l = fmaxf(l, 0.6875f * approx_len(trunc10(a - c), trunc10(b - d)));
    return lod_log2(l);
}

/* tex.grad: the gradients in level-0 texels; 1D and 2D as lod_2d (1D with
 * a zero second component), 3D log2 of the longer gradient (unmeasured). */
static float grad_lod(const zn_tex_desc *d, unsigned nd, const uint64_t *io, unsigned lane)
{
    bool norm = (d->flags & TRSF_NORMALIZED_COORDINATES) || d->cube;
    float gx[3] = {0, 0, 0}, gy[3] = {0, 0, 0};
    for (unsigned k = 0; k < nd; k++) {
        float s = norm ? (float)dim_size(d, k) : 1.0f;
        gx[k] = zn_f32_from_bits((uint32_t)io[(4 + k) * 32 + lane]) * s;
        gy[k] = zn_f32_from_bits((uint32_t)io[(8 + k) * 32 + lane]) * s;
    }
    if (nd <= 2)
        return lod_2d(gx, gy);
    float lx = gx[0] * gx[0] + gx[1] * gx[1] + gx[2] * gx[2];
    float ly = gy[0] * gy[0] + gy[1] * gy[1] + gy[2] * gy[2];
    return 0.5f * log2f(fmaxf(lx, ly)); /* log2(sqrt(m)) */
}

/* The LOD after the bias and the descriptor's clamps, then picks one level
 * (point mip filter: the nearest) or blends two (linear: the weight is the
 * LOD's fraction truncated to a multiple of 1/256, as measured on an
 * H200). Plain tex uses LOD 0. */
static void sample_mip(const zn_tex_desc *d, const tex_pos *p, float lod, texel *out)
{
    if (d->nlevels <= 1) {
        sample_level(d, 0, p, out);
        return;
    }
    lod += d->mip_bias;
    lod = fminf(fmaxf(lod, d->mip_min), d->mip_max);
    lod = fminf(fmaxf(lod, 0.0f), (float)(d->nlevels - 1));
    if (!(lod == lod))
        lod = 0.0f;
    if (d->mip_filter == 0 || raw_ints(d)) {
        sample_level(d, (unsigned)floorf(lod + 0.5f), p, out);
        return;
    }
    unsigned l0 = (unsigned)floorf(lod);
    /* the level weight: the LOD's fraction truncated to 8 bits (H200) */
    float w = floorf((lod - (float)l0) * 256.0f) * (1.0f / 256.0f);
    sample_level(d, l0, p, out);
    if (w == 0.0f || l0 + 1 >= d->nlevels)
        return;
    texel hi;
    sample_level(d, l0 + 1, p, &hi);
    for (unsigned c = 0; c < 4; c++)
        out->f[c] = (1.0f - w) * out->f[c] + w * hi.f[c];
}

/* tld4: component `comp` of the four texels bilinear filtering of (x, y)
 * would read, in the order (i, j+1), (i+1, j+1), (i+1, j), (i, j); on a
 * cubemap, of the face's level 0 (across its edges with seamless
 * filtering, whatever the filter mode). */
static void gather(const zn_tex_desc *d0, const tex_pos *p0, unsigned comp, texel *out)
{
    zn_tex_desc tmp;
    const zn_tex_desc *d = level_view(d0, 0, &tmp);
    tex_pos p = *p0;
    p.gather = true;
    for (unsigned k = 0; k < p.ndim; k++)
        p.x[k] = scale_coord(d, k, p.u[k], dim_size(d, k)) + (float)p.off[k];
    int32_t i = ifloor(p.x[0] - 0.5f), j = ifloor(p.x[1] - 0.5f);
    const int32_t at[4][2] = {{i, j + 1}, {i + 1, j + 1}, {i + 1, j}, {i, j}};
    for (unsigned k = 0; k < 4; k++) {
        texel t;
        fetch(d, &p, at[k], &t);
        out->u[k] = t.u[comp];
    }
}

static unsigned geom_dims(unsigned g)
{
    return g == ZN_TEX_G_3D || g == ZN_TEX_G_CUBE || g == ZN_TEX_G_ACUBE ? 3
         : g == ZN_TEX_G_2D || g == ZN_TEX_G_A2D ? 2 : 1;
}

/* Coordinates of one lane: layered geometries put the layer first. */
static void lane_pos(const zn_tex_desc *d, unsigned g, bool int_coords, const uint64_t *io,
                     unsigned lane, tex_pos *p)
{
    memset(p, 0, sizeof *p);
    p->ndim = geom_dims(g);
    p->int_coords = int_coords;
    unsigned first = 0;
    if (g == ZN_TEX_G_A1D || g == ZN_TEX_G_A2D) {
        uint32_t l = (uint32_t)io[lane];
        p->layer = d->layers ? (l < d->layers ? l : d->layers - 1) : 0;
        first = 1;
    }
    for (unsigned k = 0; k < p->ndim; k++) {
        uint32_t v = (uint32_t)io[(first + k) * 32 + lane];
        p->ix[k] = (int32_t)v;
        p->u[k] = zn_f32_from_bits(v);
    }
}

/* The cubemap table of the CUDA Programming Guide: per face, the axis and
 * sign giving m (the major axis's magnitude), s and t. */
static const struct { uint8_t axis[3]; int8_t sign[3]; } cube_tab[6] = {
    {{0, 2, 1}, {1, -1, -1}}, /* +x: m = x, s = -z, t = -y */
    {{0, 2, 1}, {-1, 1, -1}}, /* -x: m = -x, s = z, t = -y */
    {{1, 0, 2}, {1, 1, 1}},   /* +y: m = y, s = x, t = z */
    {{1, 0, 2}, {-1, 1, -1}}, /* -y: m = -y, s = x, t = -z */
    {{2, 0, 1}, {1, 1, -1}},  /* +z: m = z, s = x, t = -y */
    {{2, 0, 1}, {-1, -1, -1}}, /* -z: m = -z, s = -x, t = -y */
};

/* The face of the direction's major axis (ties go to x, then y). */
static unsigned cube_face(const float *v)
{
    float ax = fabsf(v[0]), ay = fabsf(v[1]), az = fabsf(v[2]);
    if (ax >= ay && ax >= az)
        return v[0] >= 0 ? 0 : 1;
    if (ay >= az)
        return v[1] >= 0 ? 2 : 3;
    return v[2] >= 0 ? 4 : 5;
}

/* Seamless cubemap filtering: texel (i, j) of the face one texel past an
 * edge is the texel of the neighbouring face that the direction through
 * its centre reaches. In units of half a texel the centre is at
 * s = 2i + 1 - n, t = 2j + 1 - n on a face at distance m = n; past an
 * edge |s| (or |t|) is n + 1, so that axis becomes the major one, and the
 * new face's coordinates (s' / m' + 1) / 2 are computed exactly in
 * integers. */
static void cube_neighbour(const zn_tex_desc *d, uint32_t cube0, unsigned face, int32_t i,
                           int32_t j, texel *t)
{
    int64_t n = d->width, v[3], loc[3] = {n, 2 * (int64_t)i + 1 - n, 2 * (int64_t)j + 1 - n};
    for (unsigned k = 0; k < 3; k++)
        v[cube_tab[face].axis[k]] = cube_tab[face].sign[k] * loc[k];
    unsigned ax = 0;
    for (unsigned k = 1; k < 3; k++)
        if ((v[k] < 0 ? -v[k] : v[k]) > (v[ax] < 0 ? -v[ax] : v[ax]))
            ax = k;
    unsigned f2 = 2 * ax + (v[ax] < 0);
    int64_t m = cube_tab[f2].sign[0] * v[cube_tab[f2].axis[0]], xy[2];
    for (unsigned k = 0; k < 2; k++) {
        int64_t c = cube_tab[f2].sign[k + 1] * v[cube_tab[f2].axis[k + 1]];
        xy[k] = (c + m) * n / (2 * m);
        xy[k] = xy[k] < 0 ? 0 : xy[k] >= n ? n - 1 : xy[k];
    }
    read_texel(d, (uint32_t)xy[0], (uint32_t)xy[1], 0, cube0 + f2, t);
}

/* Linear filtering of a cubemap with CU_TRSF_SEAMLESS_CUBEMAP: texels past
 * one edge come from the neighbouring face; past a corner, where no face
 * has the texel, it is the mean of the three texels around the corner (the
 * rule OpenGL's ARB_seamless_cube_map recommends; what tld4 returns there
 * is unverified on hardware; linear filtering gives that texel no weight,
 * seamless_corner_weights). False: not a seamless lookup. */
static bool seamless_fetch(const zn_tex_desc *d, const tex_pos *p, const int32_t *idx,
                           texel *t)
{
    if (!d->cube || !(d->flags & TRSF_SEAMLESS_CUBEMAP) || (d->filter == 0 && !p->gather) ||
        p->int_coords || p->ndim != 2)
        return false;
    int32_t n = (int32_t)d->width, i = idx[0], j = idx[1];
    bool out_i = i < 0 || i >= n, out_j = j < 0 || j >= n;
    if (!out_i && !out_j)
        return false;
    unsigned face = p->layer % 6;
    uint32_t cube0 = p->layer - face;
    if (out_i && out_j) {
        int32_t ci = i < 0 ? 0 : n - 1, cj = j < 0 ? 0 : n - 1;
        texel a, b, c;
        read_texel(d, (uint32_t)ci, (uint32_t)cj, 0, p->layer, &a);
        cube_neighbour(d, cube0, face, i, cj, &b);
        cube_neighbour(d, cube0, face, ci, j, &c);
        for (unsigned k = 0; k < 4; k++)
            t->f[k] = (a.f[k] + b.f[k] + c.f[k]) / 3.0f;
        return true;
    }
    cube_neighbour(d, cube0, face, i, j, t);
    return true;
}

/* tex.cube / tex.acube: face coordinates (s/m + 1) / 2, (t/m + 1) / 2 of
 * the face cube_face picks; the layer is 6 * cube + face. */
static void cube_pos(const zn_tex_desc *d, unsigned g, const uint64_t *io, unsigned lane,
                     tex_pos *p, float *dir)
{
    memset(p, 0, sizeof *p);
    unsigned first = g == ZN_TEX_G_ACUBE;
    for (unsigned k = 0; k < 3; k++)
        dir[k] = zn_f32_from_bits((uint32_t)io[(first + k) * 32 + lane]);
    unsigned face = cube_face(dir);
    float m = cube_tab[face].sign[0] * dir[cube_tab[face].axis[0]];
    float s = cube_tab[face].sign[1] * dir[cube_tab[face].axis[1]];
    float t = cube_tab[face].sign[2] * dir[cube_tab[face].axis[2]];
    p->ndim = 2;
    p->u[0] = (s / m + 1.0f) * 0.5f;
    p->u[1] = (t / m + 1.0f) * 0.5f;
    uint32_t cube = first ? (uint32_t)io[lane] : 0, cubes = d->layers / 6;
    if (cube >= cubes)
        cube = cubes ? cubes - 1 : 0;
    p->layer = cube * 6 + face;
    if (d->layers && p->layer >= d->layers)
        p->layer = d->layers - 1;
}

/* tex.grad.cube: the direction's gradients projected onto the face, the
 * derivative of (s/m + 1) / 2 being (ds m - s dm) / (2 m^2), in level-0
 * texels, then lod_2d as for 2D gradients. The guides do not spell this
 * out: the usual projection, and the H200's 2D rule, unverified on
 * cubemaps. */
static float cube_grad_lod(const zn_tex_desc *d, const float *dir, const uint64_t *io,
                           unsigned lane)
{
    unsigned face = cube_face(dir);
    float v[3], g[2][2];
    for (unsigned k = 0; k < 3; k++)
        v[k] = cube_tab[face].sign[k] * dir[cube_tab[face].axis[k]];
    for (unsigned gi = 0; gi < 2; gi++) {
        float gv[3];
        for (unsigned k = 0; k < 3; k++)
            gv[k] = cube_tab[face].sign[k] *
                    zn_f32_from_bits((uint32_t)io[(4 + 4 * gi + cube_tab[face].axis[k]) * 32 + lane]);
        g[gi][0] = (gv[1] * v[0] - v[1] * gv[0]) / (2.0f * v[0] * v[0]) * (float)d->width;
        g[gi][1] = (gv[2] * v[0] - v[2] * gv[0]) / (2.0f * v[0] * v[0]) * (float)d->width;
    }
    return lod_2d(g[0], g[1]);
}

/* txq; txq.level passes its (s32) level in io[4]: sizes of that level,
 * 0 past the last one */
static uint32_t txq(const zn_tex_desc *d, uint32_t code, const uint64_t *io, unsigned lane)
{
    unsigned q = (code >> 16) & 15;
    if ((code >> 12) & 1) {
        int32_t lv = (int32_t)(uint32_t)io[4 * 32 + lane];
        uint32_t n = d->nlevels ? d->nlevels : 1;
        if (lv < 0 || (uint32_t)lv >= n)
            return 0;
        const zn_tex_level *l = &d->level[lv];
        return q == ZN_TXQ_WIDTH ? l->width : q == ZN_TXQ_HEIGHT ? l->height : l->depth;
    }
    switch (q) {
    case ZN_TXQ_WIDTH: return d->width;
    case ZN_TXQ_HEIGHT: return d->height;
    case ZN_TXQ_DEPTH: return d->depth;
    case ZN_TXQ_CHANNEL_DATA_TYPE: return d->format;
    case ZN_TXQ_CHANNEL_ORDER: return d->nch;
    case ZN_TXQ_NORMALIZED_COORDS: return (d->flags & TRSF_NORMALIZED_COORDINATES) ? 1 : 0;
    case ZN_TXQ_FILTER_MODE: return d->filter;
    case ZN_TXQ_ADDR_MODE_0: return d->addr[0];
    case ZN_TXQ_ADDR_MODE_1: return d->addr[1];
    case ZN_TXQ_ADDR_MODE_2: return d->addr[2];
    case ZN_TXQ_ARRAY_SIZE:
        return d->cube == 1 ? 0 : d->cube == 2 ? d->layers / 6 : d->layers;
    case ZN_TXQ_NUM_MIPMAP_LEVELS: return d->nlevels ? d->nlevels : 1;
    default: return 0; /* num_samples: not multisampled */
    }
}

/* float -> IEEE half, round to nearest even (sust.p into a HALF array) */
uint16_t zn_tex_float_to_half(float f)
{
    uint32_t x;
    memcpy(&x, &f, 4);
    uint32_t sign = (x >> 16) & 0x8000u, e = (x >> 23) & 0xff, m = x & 0x7fffffu;
    if (e == 0xff)
        return (uint16_t)(sign | 0x7c00u | (m ? 0x200u : 0));
    int32_t he = (int32_t)e - 112; /* rebias 127 -> 15 */
    if (he >= 31)
        return (uint16_t)(sign | 0x7c00u);
    uint32_t mant = m | 0x800000u, shift = 13;
    if (he <= 0) { /* subnormal (or zero) half */
        if (he < -10)
            return (uint16_t)sign;
        shift = (uint32_t)(14 - he);
        he = 0;
    } else {
        mant &= 0x7fffffu;
    }
    uint32_t h = mant >> shift, rem = mant & ((1u << shift) - 1), half = 1u << (shift - 1);
    if (rem > half || (rem == half && (h & 1)))
        h++; /* a carry into the exponent is still the right encoding */
    return (uint16_t)(sign | (((uint32_t)he << 10) + h));
}

static uint32_t sat_u(uint32_t v, uint32_t max)
{
    return v > max ? max : v;
}

static int32_t sat_s(int32_t v, int32_t lo, int32_t hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

/* sust.p: component v (.f32 for float arrays, .u32/.s32 for integer ones,
 * saturated to the channel) stored into channel c of element p. */
static void store_formatted(const zn_tex_desc *d, uint8_t *p, unsigned c, uint32_t v)
{
    uint8_t *q = p + c * d->csize;
    uint8_t u8;
    uint16_t u16;
    switch (d->format) {
    case F_U8: u8 = (uint8_t)sat_u(v, 0xff); memcpy(q, &u8, 1); break;
    case F_S8: u8 = (uint8_t)sat_s((int32_t)v, -128, 127); memcpy(q, &u8, 1); break;
    case F_U16: u16 = (uint16_t)sat_u(v, 0xffff); memcpy(q, &u16, 2); break;
    case F_S16: u16 = (uint16_t)sat_s((int32_t)v, -32768, 32767); memcpy(q, &u16, 2); break;
    case F_HALF: u16 = zn_tex_float_to_half(zn_f32_from_bits(v)); memcpy(q, &u16, 2); break;
    default: memcpy(q, &v, 4); break; /* F_U32, F_S32, F_FLOAT: as given */
    }
}

/* A surface access of a sparse array, in range: each component (or the
 * element, sust.p) goes to its tile; one whose tile is not resident
 * reads 0 or is not written. Components are naturally aligned and tile
 * rows are at least 256 bytes, so none straddles two tiles. */
static int32_t surface_sparse(const zn_tex_desc *d, bool fmt, bool st, const int64_t *c,
                              uint64_t layer, unsigned esz, unsigned vec, uint64_t *io,
                              unsigned lane)
{
    uint64_t s = layer + (uint64_t)c[2], y = (uint64_t)c[1];
    if (fmt) {
        uint8_t *p = zn_sparse_addr(d->sparse, (uint64_t)c[0] / d->esize, y, s);
        for (unsigned v = 0; p && v < vec && v < d->nch; v++)
            store_formatted(d, p, v, (uint32_t)io[(4 + v) * 32 + lane]);
        return ZN_KSTATUS_OK;
    }
    for (unsigned v = 0; v < vec; v++) {
        uint64_t bx = (uint64_t)c[0] + (uint64_t)v * esz;
        uint8_t *p = zn_sparse_addr(d->sparse, bx / d->esize, y, s);
        if (p)
            p += bx % d->esize;
        if (st) {
            if (p)
                memcpy(p, &io[(4 + v) * 32 + lane], esz); /* little endian */
        } else {
            uint64_t x = 0;
            if (p)
                memcpy(&x, p, esz);
            io[v * 32 + lane] = x;
        }
    }
    return ZN_KSTATUS_OK;
}

/* Surface access of one lane; returns a ZN_KSTATUS. */
static int32_t surface(const zn_tex_desc *d, uint32_t code, uint64_t *io, unsigned lane)
{
    unsigned g = (code >> 4) & 15, mode = (code >> 12) & 3;
    unsigned esz = 1u << ((code >> 16) & 3), vec = (code >> 20) & 7, size = esz * vec;
    bool fmt = (code & 15) == ZN_TEX_K_SUSTP, st = fmt || (code & 15) == ZN_TEX_K_SUST;
    if (fmt)
        size = d->esize; /* x counts elements: one element is written */
    unsigned first = g == ZN_TEX_G_A1D || g == ZN_TEX_G_A2D, nd = geom_dims(g);
    int64_t c[3] = {0, 0, 0};
    int64_t lim[3] = {(int64_t)d->width * d->esize - size, (int64_t)d->height - 1,
                      (int64_t)d->depth - 1};
    int64_t layer = first ? (int64_t)(uint32_t)io[lane] : 0;
    bool out = first && layer >= (int64_t)(d->layers ? d->layers : 1);
    for (unsigned k = 0; k < nd; k++) {
        c[k] = (int32_t)(uint32_t)io[(first + k) * 32 + lane];
        if (fmt && k == 0)
            c[k] *= d->esize;
        if (c[k] < 0 || c[k] > lim[k])
            out = true;
    }
    if (out) {
        if (mode == ZN_SU_TRAP)
            return ZN_KSTATUS_ILLEGAL_ADDRESS;
        if (mode == ZN_SU_ZERO) {
            if (!st)
                for (unsigned v = 0; v < vec; v++)
                    io[v * 32 + lane] = 0;
            return ZN_KSTATUS_OK;
        }
        for (unsigned k = 0; k < nd; k++)
            c[k] = c[k] < 0 ? 0 : c[k] > lim[k] ? lim[k] : c[k];
        if (d->layers && layer >= d->layers)
            layer = d->layers - 1;
        if (lim[0] < 0)
            return ZN_KSTATUS_ILLEGAL_ADDRESS; /* access wider than a row */
    }
    if (__builtin_expect(!d->data, 0)) /* a sparse array */
        return surface_sparse(d, fmt, st, c, (uint64_t)layer, esz, vec, io, lane);
    uint8_t *p = d->data + (uint64_t)(layer + c[2]) * d->slice + (uint64_t)c[1] * d->pitch +
                 (uint64_t)c[0];
    if (fmt) { /* components past the array's channels are ignored */
        for (unsigned v = 0; v < vec && v < d->nch; v++)
            store_formatted(d, p, v, (uint32_t)io[(4 + v) * 32 + lane]);
        return ZN_KSTATUS_OK;
    }
    for (unsigned v = 0; v < vec; v++) {
        if (st)
            memcpy(p + v * esz, &io[(4 + v) * 32 + lane], esz); /* little endian */
        else {
            uint64_t x = 0;
            memcpy(&x, p + v * esz, esz);
            io[v * 32 + lane] = x;
        }
    }
    return ZN_KSTATUS_OK;
}

int32_t zn_exec_tex(zn_warp_ctx *w, uint32_t code, uint32_t mask, const uint64_t *handles,
                    uint64_t *io)
{
    (void)w;
    unsigned kind = code & 15, g = (code >> 4) & 15;
    bool int_coords = ((code >> 8) & 3) == ZN_TEX_T_S32;
    for (unsigned lane = 0; lane < 32; lane++) {
        if (!(mask >> lane & 1))
            continue;
        const zn_tex_desc *d = (const zn_tex_desc *)(uintptr_t)handles[lane];
        if (!d || d->magic != ZN_TEX_MAGIC)
            return ZN_KSTATUS_ILLEGAL_ADDRESS;
        if (kind == ZN_TEX_K_TXQ) {
            io[lane] = txq(d, code, io, lane);
            continue;
        }
        if (kind == ZN_TEX_K_SULD || kind == ZN_TEX_K_SUST || kind == ZN_TEX_K_SUSTP) {
            int32_t s = surface(d, code, io, lane);
            if (s != ZN_KSTATUS_OK)
                return s;
            continue;
        }
        tex_pos p;
        float dir[3];
        bool cube = g == ZN_TEX_G_CUBE || g == ZN_TEX_G_ACUBE;
        if (cube)
            cube_pos(d, g, io, lane, &p, dir);
        else
            lane_pos(d, g, int_coords, io, lane, &p);
        /* offsets: the low 4 bits, sign-extended (the ISA's -8..+7) */
        if (code & ZN_TEX_F_OFFSET)
            for (unsigned k = 0; k < 3; k++) {
                uint32_t o = (uint32_t)io[(ZN_TEX_IO_OFFSET + k) * 32 + lane] & 15u;
                p.off[k] = k < p.ndim ? (int32_t)(o ^ 8u) - 8 : 0;
            }
        /* ZN_TEX_F_COMPARE: the compare value is ignored (fetch) */
        texel t;
        if (code & ZN_TEX_F_RESIDENT) /* thread-local: touched only when asked */
            tex_miss = false;
        if (kind == ZN_TEX_K_TLD4) {
            gather(d, &p, (code >> 12) & 3, &t);
        } else {
            unsigned lodsrc = (code >> 12) & 3;
            float lod = lodsrc == ZN_TEX_LOD_LEVEL ? zn_f32_from_bits((uint32_t)io[4 * 32 + lane])
                      : lodsrc == ZN_TEX_LOD_GRAD
                          ? (cube ? cube_grad_lod(d, dir, io, lane)
                                  : grad_lod(d, geom_dims(g), io, lane))
                      : 0.0f;
            sample_mip(d, &p, lod, &t);
        }
        /* an .s32/.u32 result of a float texel, or the reverse, keeps the bits */
        for (unsigned c = 0; c < 4; c++)
            io[c * 32 + lane] = t.u[c];
        if (code & ZN_TEX_F_RESIDENT)
            io[ZN_TEX_IO_RESIDENT * 32 + lane] = !tex_miss;
    }
    return ZN_KSTATUS_OK;
}
