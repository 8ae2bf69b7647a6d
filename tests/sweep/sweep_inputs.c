/* sweep_inputs.c: the values each operand letter is tested with: edge
 * values (zeros, ones, extremes, subnormals, infinities, NaNs with
 * payloads, powers of two, rounding halfway cases) crossed with each other,
 * then seeded random values biased towards the interesting ranges. */
#include <string.h>
#include "sweep.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static const uint64_t e_i32[] = {
    0, 1, 2, 3, 7, 0xffffffff, 0xfffffffe, 0x7fffffff, 0x80000000, 0x80000001,
    0x7ffffffe, 31, 32, 33, 63, 64, 0xff, 0x100, 0xffff, 0x10000, 0x8000,
    0x7fff, 0xffff8000, 0x55555555, 0xaaaaaaaa, 0x12345678, 0x00800000,
    0xff800000, 0x01000000, 0xfffffff0,
};
static const uint64_t e_small[] = {
    0, 1, 2, 3, 4, 7, 8, 15, 16, 17, 23, 24, 31, 32, 33, 48, 63, 64, 65,
    127, 128, 255, 256, 0xffffffff, 0x80000000, 0x101, 0x1f1f,
};
static const uint64_t e_i16[] = {
    0, 1, 2, 0xffff, 0xfffe, 0x7fff, 0x8000, 0x8001, 0xff, 0x100, 0x80, 0x7f,
    15, 16, 17, 0x5555, 0xaaaa, 0x1234,
};
static const uint64_t e_i8[] = {
    0, 1, 0x7f, 0x80, 0x81, 0xff, 0x17f, 0xff80, 0xaa55, 0x1234,
};
static const uint64_t e_i64[] = {
    0, 1, 2, 3, 0xffffffffffffffffull, 0xfffffffffffffffeull,
    0x7fffffffffffffffull, 0x8000000000000000ull, 0x8000000000000001ull,
    0xffffffffull, 0x100000000ull, 0x7fffffffull, 0x80000000ull,
    0xffffffff80000000ull, 0xffffffff7fffffffull, 63, 64, 65, 31, 32,
    0x5555555555555555ull, 0xaaaaaaaaaaaaaaaaull, 0x123456789abcdef0ull,
    0x0020000000000000ull, 0x0020000000000001ull, 0xffe0000000000000ull,
};
static const uint64_t e_f32[] = {
    0x00000000, 0x80000000, 0x3f800000, 0xbf800000, 0x7f800000, 0xff800000,
    0x7fc00000, 0xffc00000, 0x7fc12345, 0x7f800001, 0xff812345, 0x7fffffff,
    0x00000001, 0x80000001, 0x007fffff, 0x807fffff, 0x00800000, 0x80800000,
    0x7f7fffff, 0xff7fffff, 0x3f000000, 0xbf000000, 0x3fc00000, 0x40200000,
    0xc0200000, 0x40400000, 0x3f800001, 0x3f7fffff, 0x4b000000, 0x4b000001,
    0x4afffffe, 0x4b800001, 0x4f000000, 0xcf000000, 0x4f7fffff, 0x4f800000,
    0xcf000001, 0x5f000000, 0x5f800000, 0xdf000000, 0x477fe000, 0x477ff000,
    0x33800000, 0x33000000, 0x38800000, 0x40490fdb, 0xc0490fdb, 0x3effffff,
    0x00400000, 0x1f800000, 0x5e800000, 0x3f7ffffe, 0x4ac00001, 0xbeaaaaab, 3,
};
/* E: f32 around the fp8 and tf32 rounding points (largest finite values
 * and the halfway points above them, smallest subnormals and half of
 * them, ties between codes) and the usual specials */
static const uint64_t e_f8[] = {
    0x00000000, 0x80000000, 0x3f800000, 0xbf800000, 0x7f800000, 0xff800000,
    0x7fc00000, 0xffc12345, 0x00000001, 0x7f7fffff, 0x43e00000, 0xc3e00000,
    0x43e80000, 0x43e7ffff, 0x43e80001, 0x43f00000, 0x47600000, 0xc7600000,
    0x47700000, 0x476fffff, 0x47700001, 0x3b000000, 0x3a800000, 0x3a800001,
    0xba800000, 0x3ac00000, 0x37800000, 0x37000000, 0x37000001, 0x37400000,
    0x3c800000, 0x38800000, 0x3f880000, 0x3f980000, 0x3f900000, 0x3fb00000,
    0xbf880000, 0x3f801000, 0x3f803000, 0x3f800fff, 0x7f7ff000, 0x7f7fefff,
    0xff7ff000, 0x00001000, 0x00000fff, 0x00003000, 0x3c7fffff, 0x387fffff,
};
static const uint64_t e_f64[] = {
    0, 0x8000000000000000ull, 0x3ff0000000000000ull, 0xbff0000000000000ull,
    0x7ff0000000000000ull, 0xfff0000000000000ull, 0x7ff8000000000000ull,
    0xfff8000000000000ull, 0x7ff8000000012345ull, 0x7ff0000000000001ull,
    0x0000000000000001ull, 0x8000000000000001ull, 0x000fffffffffffffull,
    0x0010000000000000ull, 0x7fefffffffffffffull, 0xffefffffffffffffull,
    0x3fe0000000000000ull, 0xbfe0000000000000ull, 0x3ff8000000000000ull,
    0x4004000000000000ull, 0xc004000000000000ull, 0x3ff0000000000001ull,
    0x3fefffffffffffffull, 0x4330000000000000ull, 0x4330000000000001ull,
    0x41dfffffffc00000ull, 0x41e0000000000000ull, 0xc1e0000000000000ull,
    0xc1e0000000200000ull, 0x41efffffffe00000ull, 0x41f0000000000000ull,
    0x43e0000000000000ull, 0xc3e0000000000000ull, 0x43f0000000000000ull,
    0x3ff0000010000000ull, 0x3ff0000030000000ull, 0x3ff0000020000000ull,
    0x36a0000000000000ull, 0x3690000000000000ull, 0x47efffffe0000000ull,
    0x47efffffefffffffull, 0x380fffffe0000000ull, 0x3810000000000000ull,
    0x400921fb54442d18ull, 0x40effc0000000000ull, 0x40effe0000000000ull, 3,
    0x3e70000000000000ull, 0x3f1a36e2eb1c432dull,
};
static const uint64_t e_f16[] = {
    0x0000, 0x8000, 0x3c00, 0xbc00, 0x7c00, 0xfc00, 0x7e00, 0xfe00, 0x7e01,
    0x7c01, 0xfd55, 0x0001, 0x8001, 0x03ff, 0x83ff, 0x0400, 0x8400, 0x7bff,
    0xfbff, 0x3800, 0x3e00, 0x4100, 0xc100, 0x3c01, 0x3bff, 0x6400, 0x6401,
    0x5bff, 0x7800, 0x3555,
};
static const uint64_t e_bf16[] = {
    0x0000, 0x8000, 0x3f80, 0xbf80, 0x7f80, 0xff80, 0x7fc0, 0xffc0, 0x7fc1,
    0x7f81, 0x0001, 0x8001, 0x007f, 0x0080, 0x8080, 0x7f7f, 0xff7f, 0x3f00,
    0x3fc0, 0x4020, 0xc020, 0x3f81, 0x3f7f, 0x4b00, 0x4b01, 0x3eab,
};
static const uint64_t e_pred[] = {0, 1};
static const uint64_t e_none[] = {0};

static uint64_t e_x2[N(e_f16) * N(e_f16)];
static uint64_t e_y2[N(e_bf16) * N(e_bf16)];
/* exhaustive letters: Q every 16-bit pair of fp8 codes; Z f16x2 where each
 * half takes all 2^16 values (low i, high a bijection of i) */
static uint64_t e_q[1 << 16], e_z[1 << 16];

static void pairs(uint64_t *out, const uint64_t *e, size_t n)
{
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++)
            out[i * n + j] = e[i] << 16 | e[j];
}

const uint64_t *sw_edges(char c, size_t *n)
{
    switch (c) {
    case 'p': *n = N(e_pred); return e_pred;
    case 'i': *n = N(e_i32); return e_i32;
    case 's': *n = N(e_small); return e_small;
    case 'w': *n = N(e_i16); return e_i16;
    case 'b': *n = N(e_i8); return e_i8;
    case 'l': *n = N(e_i64); return e_i64;
    case 'f': *n = N(e_f32); return e_f32;
    case 'd': *n = N(e_f64); return e_f64;
    case 'H': *n = N(e_f16); return e_f16;
    case 'E': *n = N(e_f8); return e_f8;
    case 'B': *n = N(e_bf16); return e_bf16;
    case 'X':
        if (!e_x2[1])
            pairs(e_x2, e_f16, N(e_f16));
        *n = N(e_x2);
        return e_x2;
    case 'Y':
        if (!e_y2[1])
            pairs(e_y2, e_bf16, N(e_bf16));
        *n = N(e_y2);
        return e_y2;
    case 'Q': case 'Z':
        if (!e_q[1])
            for (uint64_t i = 0; i < N(e_q); i++) {
                e_q[i] = i;
                e_z[i] = ((i * 40503u + 12345u) & 0xffff) << 16 | i;
            }
        *n = N(e_q);
        return c == 'Q' ? e_q : e_z;
    default: *n = N(e_none); return e_none;
    }
}

uint64_t sw_rand(sw_rng *r)
{
    /* splitmix64: small, seedable, good enough for test inputs */
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static uint64_t pick(sw_rng *r, char c)
{
    size_t n;
    const uint64_t *e = sw_edges(c, &n);
    return e[sw_rand(r) % n];
}

/* a float near an edge or in the usual range, else any bit pattern */
static uint64_t rand_float(sw_rng *r, char c, int mbits, int ebits)
{
    uint64_t x = sw_rand(r), w = (uint64_t)(1 + mbits + ebits);
    uint64_t mask = w == 64 ? ~0ull : (1ull << w) - 1;
    int bias = (1 << (ebits - 1)) - 1;
    switch (x & 3) {
    case 0: /* an edge, moved by a few ulps */
        return (pick(r, c) + (sw_rand(r) % 7) - 3) & mask;
    case 1: { /* exponent within +-24 of 1.0 */
        uint64_t e = (uint64_t)(bias - 24 + (int)(sw_rand(r) % 49));
        return ((sw_rand(r) & 1) << (w - 1)) | e << mbits | (sw_rand(r) & ((1ull << mbits) - 1));
    }
    default:
        return sw_rand(r) & mask;
    }
}

uint64_t sw_random(sw_rng *r, char c)
{
    uint64_t x = sw_rand(r);
    switch (c) {
    case 'p': return x & 1;
    case 's': return (x & 7) == 0 ? (uint32_t)sw_rand(r) : sw_rand(r) % 72;
    case 'i':
        switch (x & 3) {
        case 0: return (uint32_t)(pick(r, c) + (sw_rand(r) % 5) - 2);
        case 1: return (uint32_t)(int32_t)(int64_t)(sw_rand(r) % 129 - 64);
        default: return (uint32_t)sw_rand(r);
        }
    case 'l':
        switch (x & 3) {
        case 0: return pick(r, c) + (sw_rand(r) % 5) - 2;
        case 1: return (uint64_t)(int64_t)(sw_rand(r) % 129) - 64;
        case 2: return (uint64_t)(int64_t)(int32_t)sw_rand(r);
        default: return sw_rand(r);
        }
    case 'w': return (x & 3) ? (uint16_t)sw_rand(r) : (uint16_t)pick(r, c);
    case 'b': return (uint16_t)sw_rand(r);
    case 'f': case 'E': return rand_float(r, c, 23, 8);
    case 'd': return rand_float(r, c, 52, 11);
    case 'H': return rand_float(r, c, 10, 5);
    case 'B': return rand_float(r, c, 7, 8);
    case 'k': return 1 + sw_rand(r) % 1000;
    case 'K': return 1 + sw_rand(r) % 100000;
    case 'F': return sw_fb((float)(1 + sw_rand(r) % 100));
    case 'D': return sw_db((double)(1 + sw_rand(r) % 1000));
    case 'X': return rand_float(r, 'H', 10, 5) << 16 | rand_float(r, 'H', 10, 5);
    case 'Y': return rand_float(r, 'B', 7, 8) << 16 | rand_float(r, 'B', 7, 8);
    case 'Q': return (uint16_t)x;
    case 'Z': return rand_float(r, 'H', 10, 5) << 16 | rand_float(r, 'H', 10, 5);
    default: return 0;
    }
}

/* ---- warp forms: values that are uniform or repeated across a warp ---- */
static uint32_t rand_mask(sw_rng *r)
{
    uint64_t x = sw_rand(r);
    switch (x % 10) {
    case 0: case 1: case 2: return 0xffffffffu;
    case 3: return 1u << (sw_rand(r) % 32);
    case 4: case 5: { /* a contiguous run of lanes */
        uint32_t lo = (uint32_t)(sw_rand(r) % 32), n = 1 + (uint32_t)(sw_rand(r) % (32 - lo));
        return (uint32_t)(((1ull << n) - 1) << lo);
    }
    default: {
        uint32_t m = (uint32_t)sw_rand(r);
        return m ? m : 1;
    }
    }
}

static uint32_t rand_clamp(sw_rng *r)
{
    static const uint32_t c[] = {0x1f, 0x0, 0x101f, 0x181f, 0x1c1f, 0x1e1f, 0x1000,
                                 0x1800, 0x1c00, 0x1f00, 0x0f, 0x7, 0x1f1f};
    uint64_t x = sw_rand(r);
    return (x & 7) ? c[sw_rand(r) % N(c)] : (uint32_t)sw_rand(r) & 0x1f1f;
}

static void gen_warp(const sw_form *f, uint64_t *in, sw_rng *r)
{
    size_t ns = strlen(f->src);
    for (size_t k = 0; k < ns; k++) {
        char c = f->src[k];
        int uniform = (sw_rand(r) & 1) != 0;
        uint64_t u = sw_random(r, c == 'L' ? 's' : c == 'V' ? 'i' : c == 'U' ? 'l' : c);
        uint32_t m = rand_mask(r), cl = rand_clamp(r);
        uint64_t few[3] = {sw_rand(r), sw_rand(r), sw_rand(r)};
        if (c == 'V')
            for (int j = 0; j < 3; j++)
                few[j] = (uint32_t)few[j];
        for (int lane = 0; lane < SW_LANES; lane++) {
            uint64_t *v = &in[lane * SW_NIN + k];
            switch (c) {
            case 'm': *v = m; break;
            case 'M': *v = 0xffffffffu; break; /* mma: the whole warp */
            case 'C': *v = cl; break;
            case 'L': *v = uniform ? u % 40 : sw_rand(r) % ((sw_rand(r) & 3) ? 32 : 256); break;
            case 'V': case 'U': *v = uniform ? few[0] : few[sw_rand(r) % 3]; break;
            case 'p': *v = uniform ? (u & 1) : sw_rand(r) & 1; break;
            case '_': *v = 0; break;
            default: *v = sw_random(r, c); break;
            }
        }
    }
}

size_t sw_edge_count(const sw_form *f)
{
    size_t total = 1, cnt;
    for (size_t k = 0; f->src[k]; k++) {
        sw_edges(f->src[k], &cnt);
        total = total > (1u << 24) ? total : total * cnt;
    }
    return total;
}

size_t sw_gen_inputs(const sw_form *f, uint64_t *in, size_t cap, size_t nrandom, sw_rng *r)
{
    size_t ns = strlen(f->src), n = 0;
    memset(in, 0, cap * SW_NIN * sizeof *in);
    if (f->kind == SW_WARP) {
        /* whole warps; nrandom counts lanes */
        size_t warps = (nrandom + SW_LANES - 1) / SW_LANES;
        if (warps < 8)
            warps = 8;
        for (size_t w = 0; w < warps && (w + 1) * SW_LANES <= cap; w++, n += SW_LANES)
            gen_warp(f, in + w * SW_LANES * SW_NIN, r);
        return n;
    }
    /* cross product of the edge values (mixed radix), capped at half */
    size_t cnt[SW_NIN], total = 1;
    const uint64_t *e[SW_NIN];
    for (size_t k = 0; k < ns; k++) {
        e[k] = sw_edges(f->src[k], &cnt[k]);
        total = total > cap ? total : total * cnt[k];
    }
    size_t ecap = cap / 2 > nrandom ? cap - nrandom : cap / 2;
    if (total <= ecap) {
        for (size_t i = 0; i < total; i++, n++) {
            size_t x = i;
            for (size_t k = 0; k < ns; k++) {
                in[n * SW_NIN + k] = e[k][x % cnt[k]];
                x /= cnt[k];
            }
        }
    } else {
        for (; n < ecap; n++)
            for (size_t k = 0; k < ns; k++)
                in[n * SW_NIN + k] = e[k][sw_rand(r) % cnt[k]];
    }
    /* random values, sometimes mixed with an edge in another operand */
    for (size_t i = 0; i < nrandom && n < cap; i++, n++)
        for (size_t k = 0; k < ns; k++)
            in[n * SW_NIN + k] = (sw_rand(r) % 5 == 0) ? pick(r, f->src[k]) : sw_random(r, f->src[k]);
    return n;
}
