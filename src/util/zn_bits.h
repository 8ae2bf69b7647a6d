/* zn_bits.h: a float's bits and back, without aliasing tricks. */
#ifndef ZN_BITS_H
#define ZN_BITS_H

#include <stdint.h>
#include <string.h>

static inline float zn_f32_from_bits(uint32_t u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static inline uint32_t zn_bits_from_f32(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

#endif
