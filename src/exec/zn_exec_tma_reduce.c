/* zn_exec_tma_reduce.c: the element operation of cp.reduce.async.bulk and
 * cp.reduce.async.bulk.tensor (zn_exec_tma.c): dst = dst op src, one
 * element at a time, each atomic (other threads may reduce into the same
 * global memory at once), by compare-and-swap on the element's bytes.
 *
 * As the ISA defines the operations: add wraps on integers; f32 add
 * rounds to nearest even and flushes subnormal inputs and results to
 * sign-preserving zero, as red.add.f32 does (not measured on a GPU); f64
 * add keeps subnormals; f16/bf16 add (.noftz) is computed in float and
 * rounded once more to nearest even, which is exact (float has more than
 * twice their precision plus two bits); min/max of f16/bf16 return the
 * number when one input is NaN; inc/dec are atom.inc/dec's wrapping
 * counters. */
#include "zn_exec_internal.h"
#include "zn_exec_tex.h"
#include "zn_tma.h"
#include "../util/zn_bits.h"

#include <math.h>
#include <string.h>

static float ftz(float f)
{
    return fpclassify(f) == FP_SUBNORMAL ? copysignf(0.0f, f) : f;
}

static float half_value(uint16_t h, unsigned el)
{
    return el == ZN_TMA_EL_BF16 ? zn_f32_from_bits((uint32_t)h << 16) : zn_tex_half_to_float(h);
}

static uint16_t to_half(float f, unsigned el)
{
    if (el != ZN_TMA_EL_BF16)
        return zn_tex_float_to_half(f);
    uint32_t b = zn_bits_from_f32(f);
    if (isnan(f))
        return (uint16_t)((b >> 16) | 0x40);
    return (uint16_t)((b + 0x7fffu + ((b >> 16) & 1)) >> 16);
}

static uint16_t half_op(unsigned op, unsigned el, uint16_t a, uint16_t b)
{
    float x = half_value(a, el), y = half_value(b, el);
    if (op == ZN_TMA_RED_ADD)
        return to_half(x + y, el);
    if (isnan(x))
        return b;
    if (isnan(y))
        return a;
    bool first = op == ZN_TMA_RED_MIN ? x < y || (x == y && (a & 0x8000)) :
                                        x > y || (x == y && !(a & 0x8000));
    return first ? a : b;
}

static uint64_t int_op(unsigned op, bool sign, unsigned bits, uint64_t a, uint64_t b)
{
    uint64_t mask = bits == 64 ? ~0ull : (1ull << bits) - 1;
    int64_t sa = bits == 64 ? (int64_t)a : (int64_t)(int32_t)(uint32_t)a;
    int64_t sb = bits == 64 ? (int64_t)b : (int64_t)(int32_t)(uint32_t)b;
    switch (op) {
    case ZN_TMA_RED_ADD: return (a + b) & mask;
    case ZN_TMA_RED_MIN: return sign ? (sa < sb ? a : b) : (a < b ? a : b);
    case ZN_TMA_RED_MAX: return sign ? (sa > sb ? a : b) : (a > b ? a : b);
    case ZN_TMA_RED_INC: return a >= b ? 0 : a + 1;
    case ZN_TMA_RED_DEC: return a == 0 || a > b ? b : a - 1;
    case ZN_TMA_RED_AND: return a & b;
    case ZN_TMA_RED_OR: return a | b;
    default: return a ^ b;
    }
}

/* the new value of an element holding old (low bits) and reduced by v */
static uint64_t combine(unsigned op, unsigned el, uint64_t old, uint64_t v)
{
    switch (el) {
    case ZN_TMA_EL_F32:
        if (op != ZN_TMA_RED_ADD)
            break;
        return zn_bits_from_f32(ftz(ftz(zn_f32_from_bits((uint32_t)old)) + ftz(zn_f32_from_bits((uint32_t)v))));
    case ZN_TMA_EL_F64: {
        double a, b;
        memcpy(&a, &old, 8);
        memcpy(&b, &v, 8);
        a = op == ZN_TMA_RED_ADD ? a + b : a;
        memcpy(&old, &a, 8);
        return old;
    }
    case ZN_TMA_EL_F16: case ZN_TMA_EL_BF16:
        return half_op(op, el, (uint16_t)old, (uint16_t)v);
    default:
        break;
    }
    bool sign = el == ZN_TMA_EL_S32 || el == ZN_TMA_EL_S64;
    unsigned bits = el == ZN_TMA_EL_U64 || el == ZN_TMA_EL_S64 || el == ZN_TMA_EL_F64 ? 64 : 32;
    return int_op(op, sign, bits, old, v);
}

unsigned zn_tma_elem_bytes(unsigned el)
{
    switch (el) {
    case ZN_TMA_EL_F16: case ZN_TMA_EL_BF16: return 2;
    case ZN_TMA_EL_U64: case ZN_TMA_EL_S64: case ZN_TMA_EL_F64: return 8;
    default: return 4;
    }
}

/* dst = dst op src until no other thread changed dst in between */
#define CAS_LOOP(T)                                                                         \
    do {                                                                                    \
        T v_, old_ = __atomic_load_n((T *)dst, __ATOMIC_RELAXED), new_;                     \
        memcpy(&v_, src, sizeof v_);                                                        \
        do                                                                                  \
            new_ = (T)combine(op, el, old_, v_);                                            \
        while (!__atomic_compare_exchange_n((T *)dst, &old_, new_, 1, __ATOMIC_RELAXED,     \
                                            __ATOMIC_RELAXED));                             \
    } while (0)

void zn_tma_reduce(unsigned op, unsigned el, uint8_t *dst, const uint8_t *src)
{
    switch (zn_tma_elem_bytes(el)) {
    case 2: CAS_LOOP(uint16_t); break;
    case 4: CAS_LOOP(uint32_t); break;
    default: CAS_LOOP(uint64_t); break;
    }
}
