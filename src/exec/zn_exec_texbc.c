/* zn_exec_texbc.c: decoders of the block-compressed formats, written from
 * the format definitions (S3TC / Direct3D's BC1-BC5).
 *
 * Texel k = 4 j + i of a block; multi-byte fields are little endian.
 * BC1: two RGB565 colours c0, c1 and 2-bit indices (bits 2k); with
 *   c0 > c1 (as 16-bit numbers) the palette is c0, c1, (2 c0 + c1) / 3,
 *   (c0 + 2 c1) / 3, opaque; otherwise c0, c1, (c0 + c1) / 2 and
 *   transparent black.
 * BC2: 4-bit alphas (bits 4k of the first 8 bytes, a / 15), then a BC1
 *   colour block always read in its four-colour mode.
 * BC3: a BC4 block of alpha, then a four-colour BC1 block.
 * BC4: two endpoints r0, r1 (bytes; signed for SNORM, -128 reading as
 *   -127) and 3-bit indices (bits 16 + 3k): with r0 > r1 eight values r0,
 *   r1 and (6 r0 + r1) / 7 .. (r0 + 6 r1) / 7, else r0, r1, (4 r0 + r1) /
 *   5 .. (r0 + 4 r1) / 5, then 0 (-1 for SNORM) and 1.
 * BC5: two BC4 blocks, red then green.
 * Decoded as an H200 decodes them (measured on every texel of 256 random
 * blocks of each format): BC1-BC3 colours in 8-bit integers, 5/6-bit
 * endpoints widened by bit replication, the interpolated colours by
 * NVIDIA's integer formulas (bc1_texel), then n / 255.0f; BC2 alpha
 * a * 17 / 255; BC4/BC5 UNORM in 16 bits, endpoints r * 257 and the
 * interpolants r0 * (257 - w) + r1 * w with w from fixed tables
 * (bc4_unorm16), then / 65535. BC3's alpha is 8-bit on the H200 and
 * differs from bc4_unorm16 / 257 rounded in about 13% of texels (by one
 * step); the SNORM BC4/BC5 values are 16-bit (/ 32767) and differ from
 * the float palette here by up to 1e-3: neither rule is known yet.
 * BC6H and BC7 (BPTC) are decoded by zn_exec_texbptc.c.
 */
#include "zn_exec_texbc.h"
#include "zn_exec_texbptc.h"

#include <string.h>

static uint64_t load64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8); /* little-endian hosts (x86-64, AArch64) */
    return v;
}

static uint32_t widen5(uint32_t v)
{
    return v << 3 | v >> 2;
}

static uint32_t widen6(uint32_t v)
{
    return v << 2 | v >> 4;
}

/* NVIDIA's BC1 interpolants (8-bit results): (2 p + q) / 3 of 5-bit
 * channels p, q; of 6-bit green, from the widened values P, Q; and the
 * three-colour mode's (p + q) / 2. C division truncates toward zero. */
static uint32_t third5(int32_t p, int32_t q)
{
    return (uint32_t)(((2 * p + q) * 22) / 8);
}

static uint32_t third6(int32_t P, int32_t Q)
{
    int32_t g = Q - P;
    return (uint32_t)((256 * P + g / 4 + 128 + g * 80) / 256);
}

static uint32_t half5(int32_t p, int32_t q)
{
    return (uint32_t)(((p + q) * 33) / 8);
}

static uint32_t half6(int32_t P, int32_t Q)
{
    int32_t g = Q - P;
    return (uint32_t)((256 * P + g / 4 + 128 + g * 128) / 256);
}

/* The BC1 colour block at p; four_colour: BC2/BC3 (no transparent entry). */
static void bc1_texel(const uint8_t *p, unsigned k, bool four_colour, float *rgba)
{
    uint64_t v = load64(p);
    uint32_t c0 = (uint32_t)(v & 0xffff), c1 = (uint32_t)((v >> 16) & 0xffff);
    unsigned idx = (unsigned)(v >> (32 + 2 * k)) & 3;
    const int32_t e[2][3] = {{(int32_t)(c0 >> 11), (int32_t)((c0 >> 5) & 63), (int32_t)(c0 & 31)},
                             {(int32_t)(c1 >> 11), (int32_t)((c1 >> 5) & 63), (int32_t)(c1 & 31)}};
    bool four = four_colour || c0 > c1;
    rgba[3] = 1.0f;
    for (unsigned c = 0; c < 3; c++) {
        bool g = c == 1;
        int32_t A = (int32_t)(g ? widen6((uint32_t)e[0][c]) : widen5((uint32_t)e[0][c]));
        int32_t B = (int32_t)(g ? widen6((uint32_t)e[1][c]) : widen5((uint32_t)e[1][c]));
        uint32_t n;
        if (idx < 2)
            n = (uint32_t)(idx ? B : A);
        else if (four) /* idx 2: nearer c0, idx 3: nearer c1 */
            n = idx == 2 ? (g ? third6(A, B) : third5(e[0][c], e[1][c]))
                         : (g ? third6(B, A) : third5(e[1][c], e[0][c]));
        else
            n = idx == 2 ? (g ? half6(A, B) : half5(e[0][c], e[1][c])) : 0;
        rgba[c] = (float)n / 255.0f;
    }
    if (!four && idx == 3)
        rgba[3] = 0.0f;
}

/* An unsigned BC4 block's texel k in 16 bits: endpoints r * 257, the
 * interpolants r0 * (257 - w) + r1 * w with the H200's weights w (in
 * 1/257ths, close to 257 j / 7 and 257 j / 5). */
static uint32_t bc4_unorm16(const uint8_t *p, unsigned k)
{
    static const uint32_t w8[8] = {0, 0, 36, 72, 113, 144, 185, 221};
    static const uint32_t w6[8] = {0, 0, 48, 96, 161, 209, 0, 0};
    uint64_t v = load64(p);
    unsigned idx = (unsigned)(v >> (16 + 3 * k)) & 7;
    uint32_t r0 = p[0], r1 = p[1];
    if (idx < 2)
        return (idx ? r1 : r0) * 257u;
    if (r0 > r1)
        return r0 * (257u - w8[idx]) + r1 * w8[idx];
    if (idx >= 6)
        return idx == 6 ? 0u : 65535u;
    return r0 * (257u - w6[idx]) + r1 * w6[idx];
}

/* One BC4 channel block at p (BC3's alpha, BC5's red and green). */
static float bc4_value(const uint8_t *p, unsigned k, bool snorm)
{
    uint64_t v = load64(p);
    unsigned idx = (unsigned)(v >> (16 + 3 * k)) & 7;
    float r0, r1;
    bool eight;
    if (snorm) {
        int s0 = (int8_t)p[0], s1 = (int8_t)p[1];
        r0 = (float)(s0 < -127 ? -127 : s0) / 127.0f;
        r1 = (float)(s1 < -127 ? -127 : s1) / 127.0f;
        eight = s0 > s1;
    } else {
        r0 = (float)p[0] / 255.0f;
        r1 = (float)p[1] / 255.0f;
        eight = p[0] > p[1];
    }
    if (idx == 0)
        return r0;
    if (idx == 1)
        return r1;
    if (eight)
        return ((float)(8 - idx) * r0 + (float)(idx - 1) * r1) / 7.0f;
    if (idx == 6)
        return snorm ? -1.0f : 0.0f;
    if (idx == 7)
        return 1.0f;
    return ((float)(6 - idx) * r0 + (float)(idx - 1) * r1) / 5.0f;
}

void zn_texbc_texel(uint32_t fmt, const uint8_t *block, unsigned i, unsigned j, float *rgba)
{
    unsigned k = 4 * j + i;
    rgba[0] = rgba[1] = rgba[2] = 0.0f;
    rgba[3] = 1.0f;
    switch (fmt) {
    case ZN_BC1_UNORM: case ZN_BC1_UNORM_SRGB:
        bc1_texel(block, k, false, rgba);
        break;
    case ZN_BC2_UNORM: case ZN_BC2_UNORM_SRGB:
        bc1_texel(block + 8, k, true, rgba);
        rgba[3] = (float)(((load64(block) >> (4 * k)) & 15) * 17) / 255.0f;
        break;
    case ZN_BC3_UNORM: case ZN_BC3_UNORM_SRGB:
        bc1_texel(block + 8, k, true, rgba);
        rgba[3] = (float)((bc4_unorm16(block, k) + 128) / 257) / 255.0f;
        break;
    case ZN_BC4_UNORM:
        rgba[0] = (float)bc4_unorm16(block, k) / 65535.0f;
        break;
    case ZN_BC4_SNORM:
        rgba[0] = bc4_value(block, k, true);
        break;
    case ZN_BC5_UNORM:
        rgba[0] = (float)bc4_unorm16(block, k) / 65535.0f;
        rgba[1] = (float)bc4_unorm16(block + 8, k) / 65535.0f;
        break;
    case ZN_BC5_SNORM:
        rgba[0] = bc4_value(block, k, true);
        rgba[1] = bc4_value(block + 8, k, true);
        break;
    default: /* BC6H, BC7 */
        zn_texbptc_texel(fmt, block, k, rgba);
        break;
    }
}
