/* zn_exec_texbptc.h: the BPTC decoders (BC6H, BC7) zn_exec_texbc.c calls. */
#ifndef ZN_EXEC_TEXBPTC_H
#define ZN_EXEC_TEXBPTC_H

#include <stdint.h>

/* Texel k (4 j + i) of a BC6H or BC7 block, as RGBA floats (BC6H: the
 * half floats, alpha 1; BC7: normalized, sRGB-encoded for the _SRGB one). */
void zn_texbptc_texel(uint32_t fmt, const uint8_t *block, unsigned k, float *rgba);

#endif
