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
 * Endpoints are normalized (c / 31, c / 63, r / 255, r / 127) and the
 * palette is computed in float, the exact values of the definitions;
 * hardware interpolates at its own precision (Direct3D allows a small
 * tolerance): unverified on NVIDIA hardware. BC6H and BC7 (BPTC) are
 * decoded by zn_exec_texbptc.c.
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

/* channel values of one RGB565 colour, normalized */
static void rgb565(uint32_t c, float *out)
{
    out[0] = (float)(c >> 11) / 31.0f;
    out[1] = (float)((c >> 5) & 63) / 63.0f;
    out[2] = (float)(c & 31) / 31.0f;
}

/* The BC1 colour block at p; four_colour: BC2/BC3 (no transparent entry). */
static void bc1_texel(const uint8_t *p, unsigned k, bool four_colour, float *rgba)
{
    uint64_t v = load64(p);
    uint32_t c0 = (uint32_t)(v & 0xffff), c1 = (uint32_t)((v >> 16) & 0xffff);
    unsigned idx = (unsigned)(v >> (32 + 2 * k)) & 3;
    float e0[3], e1[3];
    rgb565(c0, e0);
    rgb565(c1, e1);
    rgba[3] = 1.0f;
    for (unsigned c = 0; c < 3; c++) {
        float a = e0[c], b = e1[c];
        if (four_colour || c0 > c1) {
            rgba[c] = idx == 0 ? a : idx == 1 ? b
                    : idx == 2 ? (2.0f * a + b) / 3.0f : (a + 2.0f * b) / 3.0f;
        } else {
            rgba[c] = idx == 0 ? a : idx == 1 ? b : idx == 2 ? (a + b) / 2.0f : 0.0f;
        }
    }
    if (!four_colour && c0 <= c1 && idx == 3)
        rgba[3] = 0.0f;
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
        rgba[3] = (float)((load64(block) >> (4 * k)) & 15) / 15.0f;
        break;
    case ZN_BC3_UNORM: case ZN_BC3_UNORM_SRGB:
        bc1_texel(block + 8, k, true, rgba);
        rgba[3] = bc4_value(block, k, false);
        break;
    case ZN_BC4_UNORM: case ZN_BC4_SNORM:
        rgba[0] = bc4_value(block, k, fmt == ZN_BC4_SNORM);
        break;
    case ZN_BC5_UNORM: case ZN_BC5_SNORM:
        rgba[0] = bc4_value(block, k, fmt == ZN_BC5_SNORM);
        rgba[1] = bc4_value(block + 8, k, fmt == ZN_BC5_SNORM);
        break;
    default: /* BC6H, BC7 */
        zn_texbptc_texel(fmt, block, k, rgba);
        break;
    }
}
