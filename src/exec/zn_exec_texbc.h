/* zn_exec_texbc.h: block-compressed texel formats (BC1-BC7) for the
 * sampler (zn_exec_tex.c) and the driver's arrays (zn_drv_array.c).
 *
 * A block-compressed array stores 4 x 4 texel blocks of 8 bytes (BC1,
 * BC4) or 16 bytes (the others), rows of blocks one after another;
 * zn_texbc_texel decodes one texel of one block.
 */
#ifndef ZN_EXEC_TEXBC_H
#define ZN_EXEC_TEXBC_H

#include <stdbool.h>
#include <stdint.h>

/* the CUarray_format values (cuda.h) */
enum {
    ZN_BC1_UNORM = 0x91, ZN_BC1_UNORM_SRGB, ZN_BC2_UNORM, ZN_BC2_UNORM_SRGB, ZN_BC3_UNORM,
    ZN_BC3_UNORM_SRGB, ZN_BC4_UNORM, ZN_BC4_SNORM, ZN_BC5_UNORM, ZN_BC5_SNORM, ZN_BC6H_UF16,
    ZN_BC6H_SF16, ZN_BC7_UNORM, ZN_BC7_UNORM_SRGB
};

static inline bool zn_texbc_is(uint32_t fmt)
{
    return fmt >= ZN_BC1_UNORM && fmt <= ZN_BC7_UNORM_SRGB;
}

/* bytes per 4 x 4 block */
static inline uint32_t zn_texbc_block_bytes(uint32_t fmt)
{
    return fmt <= ZN_BC1_UNORM_SRGB || fmt == ZN_BC4_UNORM || fmt == ZN_BC4_SNORM ? 8 : 16;
}

/* channels CUDA documents for the format (BC4 1, BC5 2, BC6H 3, else 4) */
static inline unsigned zn_texbc_channels(uint32_t fmt)
{
    return fmt == ZN_BC4_UNORM || fmt == ZN_BC4_SNORM ? 1
         : fmt == ZN_BC5_UNORM || fmt == ZN_BC5_SNORM ? 2
         : fmt == ZN_BC6H_UF16 || fmt == ZN_BC6H_SF16 ? 3 : 4;
}

/* the sRGB-encoded variants (their R, G, B are converted after decoding) */
static inline bool zn_texbc_srgb(uint32_t fmt)
{
    return fmt == ZN_BC1_UNORM_SRGB || fmt == ZN_BC2_UNORM_SRGB || fmt == ZN_BC3_UNORM_SRGB ||
           fmt == ZN_BC7_UNORM_SRGB;
}

/* Texel (i, j) (0..3 each, i across) of the block at `block`, as RGBA
 * floats: normalized for UNORM/SNORM formats (still sRGB-encoded for the
 * _SRGB ones), missing channels (0, 0, 1). */
void zn_texbc_texel(uint32_t fmt, const uint8_t *block, unsigned i, unsigned j, float *rgba);

#endif
