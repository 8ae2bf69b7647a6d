/* zn_blas_half.c: binary16 / bfloat16 <-> binary32, round to nearest even
 * (what cuBLAS's f16/bf16 outputs use). Bit-level, no compiler _Float16. */
#include "zn_blas_core.h"
#include "../util/zn_bits.h"

#include <string.h>

float zn_f16_to_f32(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000) << 16;
    uint32_t exp = (h >> 10) & 0x1f, man = h & 0x3ff;
    if (exp == 0x1f)                       /* inf / NaN: keep the payload */
        return zn_f32_from_bits(sign | 0x7f800000u | (man << 13));
    if (exp == 0) {                        /* zero / subnormal: exact in f32 */
        float v = (float)man * 0x1p-24f;
        return sign ? -v : v;
    }
    return zn_f32_from_bits(sign | ((exp + 112) << 23) | (man << 13));
}

uint16_t zn_f32_to_f16(float f)
{
    uint32_t u = zn_bits_from_f32(f);
    uint16_t sign = (uint16_t)((u >> 16) & 0x8000);
    uint32_t a = u & 0x7fffffffu;
    if (a >= 0x7f800000u)                  /* inf, or NaN made quiet */
        return (uint16_t)(sign | 0x7c00 | (a > 0x7f800000u ? 0x200 | ((a >> 13) & 0x3ff) : 0));
    if (a >= 0x477ff000u)                  /* rounds to >= 65520: inf */
        return (uint16_t)(sign | 0x7c00);
    if (a < 0x38800000u) {                 /* below 2^-14: subnormal or zero */
        /* scale so that one f16 subnormal ulp (2^-24) is 1.0, round RNE */
        float v = zn_f32_from_bits(a) * 0x1p24f;
        uint32_t q = (uint32_t)v;
        float rem = v - (float)q;
        if (rem > 0.5f || (rem == 0.5f && (q & 1)))
            q++;
        return (uint16_t)(sign | q);       /* q == 0x400 becomes the min normal */
    }
    uint32_t r = a + 0xfffu + ((a >> 13) & 1);   /* RNE at bit 13 */
    return (uint16_t)(sign | ((r - 0x38000000u) >> 13));
}

float zn_bf16_to_f32(uint16_t h)
{
    return zn_f32_from_bits((uint32_t)h << 16);
}

uint16_t zn_f32_to_bf16(float f)
{
    uint32_t u = zn_bits_from_f32(f);
    if ((u & 0x7fffffffu) > 0x7f800000u)   /* NaN: quiet, keep the sign */
        return (uint16_t)((u >> 16) | 0x40);
    u += 0x7fffu + ((u >> 16) & 1);
    return (uint16_t)(u >> 16);
}
