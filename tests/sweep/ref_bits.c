/* ref_bits.c: bit manipulation references: prmt (every mode), lop3, bfe,
 * bfi, popc, clz, brev, bfind, bmsk, szext, dp4a/dp2a, selp, slct. */
#include "sweep.h"

#define U32(x) ((uint32_t)(x))
#define S32(x) ((int32_t)(uint32_t)(x))
#define REF(id) void ref_##id(const uint64_t *in, uint64_t *out)
#define A in[0]
#define B in[1]
#define C in[2]
#define D in[3]

/* prmt: bytes 0-3 of a, 4-7 of b */
static uint32_t byte_of(uint64_t a, uint64_t b, unsigned i)
{
    uint64_t v = (uint64_t)U32(b) << 32 | U32(a);
    return (uint32_t)(v >> (8 * (i & 7))) & 0xff;
}
REF(prmt_b32)
{
    uint32_t d = 0;
    for (unsigned i = 0; i < 4; i++) {
        unsigned sel = (U32(C) >> (4 * i)) & 0xf;
        uint32_t x = byte_of(A, B, sel & 7);
        if (sel & 8)   /* replicate the byte's sign */
            x = (x & 0x80) ? 0xff : 0;
        d |= x << (8 * i);
    }
    out[0] = d;
}
/* the named modes use c[1:0]; idx gives the source byte of output byte i */
static uint32_t prmt_mode(const uint64_t *in, unsigned (*idx)(unsigned i, unsigned n))
{
    unsigned n = U32(C) & 3;
    uint32_t d = 0;
    for (unsigned i = 0; i < 4; i++)
        d |= byte_of(A, B, idx(i, n)) << (8 * i);
    return d;
}
static unsigned f4e(unsigned i, unsigned n) { return i + n; }
static unsigned b4e(unsigned i, unsigned n) { return (n - i) & 7; }
static unsigned rc8(unsigned i, unsigned n) { return n; }
static unsigned ecl(unsigned i, unsigned n) { return i > n ? i : n; }
static unsigned ecr(unsigned i, unsigned n) { return i < n ? i : n; }
static unsigned rc16(unsigned i, unsigned n) { return (n & 1) * 2 + (i & 1); }
REF(prmt_f4e) { out[0] = prmt_mode(in, f4e); }
REF(prmt_b4e) { out[0] = prmt_mode(in, b4e); }
REF(prmt_rc8) { out[0] = prmt_mode(in, rc8); }
REF(prmt_ecl) { out[0] = prmt_mode(in, ecl); }
REF(prmt_ecr) { out[0] = prmt_mode(in, ecr); }
REF(prmt_rc16) { out[0] = prmt_mode(in, rc16); }

/* lop3: result bit = imm bit number (a<<2 | b<<1 | c) */
static uint32_t lop3(uint32_t a, uint32_t b, uint32_t c, unsigned imm)
{
    uint32_t d = 0;
    for (unsigned i = 0; i < 32; i++) {
        unsigned k = ((a >> i) & 1) << 2 | ((b >> i) & 1) << 1 | ((c >> i) & 1);
        d |= ((imm >> k) & 1u) << i;
    }
    return d;
}
#define LOP3(h) REF(lop3_##h) { out[0] = lop3(U32(A), U32(B), U32(C), 0x##h); }
LOP3(96) LOP3(e8) LOP3(ca) LOP3(3c) LOP3(f0) LOP3(01) LOP3(fe) LOP3(80)
LOP3(6a) LOP3(1e) LOP3(00) LOP3(ff)

/* bfe: pos = b[7:0], len = c[7:0] (the ISA); bits past the msb are the
 * sign bit of the field (signed) or 0; len 0 gives 0. The 64-bit forms take
 * pos and len whole, as an H200 does (pos 0x80000000 is past the msb,
 * len 0x101 is all the bits left). */
static uint64_t bfe(uint64_t a, uint32_t b, uint32_t c, unsigned msb, int sign)
{
    uint64_t pos = msb == 63 ? b : b & 0xff, len = msb == 63 ? c : c & 0xff;
    if (len == 0)
        return 0;
    uint64_t top = pos + len - 1 > msb ? msb : pos + len - 1;
    uint64_t sbit = sign ? (a >> top) & 1 : 0, d = 0;
    for (unsigned i = 0; i <= msb; i++) {
        uint64_t bit = (i < len && pos + i <= msb) ? (a >> (pos + i)) & 1 : sbit;
        d |= bit << i;
    }
    return d;
}
REF(bfe_u32) { out[0] = bfe(U32(A), U32(B), U32(C), 31, 0); }
REF(bfe_s32) { out[0] = bfe(U32(A), U32(B), U32(C), 31, 1); }
REF(bfe_u64) { out[0] = bfe(A, U32(B), U32(C), 63, 0); }
REF(bfe_s64) { out[0] = bfe(A, U32(B), U32(C), 63, 1); }

/* bfi: insert len = d[7:0] low bits of a into b at pos = c[7:0]; the
 * 64-bit form takes pos and len whole (as bfe) */
static uint64_t bfi(uint64_t a, uint64_t b, uint32_t c, uint32_t d, unsigned msb)
{
    uint64_t pos = msb == 63 ? c : c & 0xff, len = msb == 63 ? d : d & 0xff;
    for (uint64_t i = 0; i < len && pos + i <= msb; i++)
        b = (b & ~(1ull << (pos + i))) | ((a >> i) & 1) << (pos + i);
    return b;
}
REF(bfi_b32) { out[0] = bfi(U32(A), U32(B), U32(C), U32(D), 31); }
REF(bfi_b64) { out[0] = bfi(A, B, U32(C), U32(D), 63); }

static unsigned popc(uint64_t x) { unsigned n = 0; for (; x; x &= x - 1) n++; return n; }
static unsigned clz(uint64_t x, unsigned w) { unsigned n = 0; for (int i = (int)w - 1; i >= 0 && !((x >> i) & 1); i--) n++; return n; }
REF(popc_b32) { out[0] = popc(U32(A)); }
REF(popc_b64) { out[0] = popc(A); }
REF(clz_b32) { out[0] = clz(U32(A), 32); }
REF(clz_b64) { out[0] = clz(A, 64); }
static uint64_t brev(uint64_t x, unsigned w)
{
    uint64_t d = 0;
    for (unsigned i = 0; i < w; i++)
        d |= ((x >> i) & 1) << (w - 1 - i);
    return d;
}
REF(brev_b32) { out[0] = brev(U32(A), 32); }
REF(brev_b64) { out[0] = brev(A, 64); }

/* bfind: the msb that differs from the sign (signed) or is set; -1 if none;
 * .shiftamt gives the left shift that brings it to the msb instead */
static uint32_t bfind(uint64_t a, unsigned w, int sign, int shiftamt)
{
    if (sign && ((a >> (w - 1)) & 1))
        a = ~a;
    if (w < 64)
        a &= (1ull << w) - 1;
    if (!a)
        return 0xffffffffu;
    unsigned pos = w - 1 - clz(a, w);
    return shiftamt ? w - 1 - pos : pos;
}
REF(bfind_u32) { out[0] = bfind(U32(A), 32, 0, 0); }
REF(bfind_s32) { out[0] = bfind(U32(A), 32, 1, 0); }
REF(bfind_u64) { out[0] = bfind(A, 64, 0, 0); }
REF(bfind_s64) { out[0] = bfind(A, 64, 1, 0); }
REF(bfind_shiftamt_u32) { out[0] = bfind(U32(A), 32, 0, 1); }
REF(bfind_shiftamt_s32) { out[0] = bfind(U32(A), 32, 1, 1); }

/* bmsk: a mask of b bits from bit a; .clamp limits both to 32, .wrap
 * takes them mod 32 */
static uint32_t bmsk(uint32_t pos, uint32_t width)
{
    uint64_t m = ((1ull << width) - 1) << pos;
    return U32(m);
}
REF(bmsk_clamp) { out[0] = bmsk(U32(A) > 32 ? 32 : U32(A), U32(B) > 32 ? 32 : U32(B)); }
REF(bmsk_wrap) { out[0] = bmsk(U32(A) & 31, U32(B) & 31); }
/* szext: extend the low N bits of a, N = b clamped to 32 or mod 32 */
static uint32_t szext(uint32_t a, uint32_t n, int sign)
{
    if (n == 0)
        return 0;
    if (n >= 32)
        return a;
    uint32_t m = (1u << n) - 1, v = a & m;
    if (sign && ((v >> (n - 1)) & 1))
        v |= ~m;
    return v;
}
REF(szext_clamp_s32) { out[0] = szext(U32(A), U32(B) > 32 ? 32 : U32(B), 1); }
REF(szext_wrap_u32) { out[0] = szext(U32(A), U32(B) & 31, 0); }

/* dp4a: c + the four byte products; dp2a: two 16-bit halves of a times two
 * bytes of b (bytes 0-1 for .lo, 2-3 for .hi) */
static int64_t part(uint32_t v, unsigned bits, unsigned i, int sign)
{
    uint32_t x = (v >> (bits * i)) & ((1u << bits) - 1);
    if (sign && (x >> (bits - 1)))
        return (int64_t)x - (1ll << bits);
    return x;
}
static uint32_t dp4a(const uint64_t *in, int sa, int sb)
{
    int64_t s = S32(C);
    for (unsigned i = 0; i < 4; i++)
        s += part(U32(A), 8, i, sa) * part(U32(B), 8, i, sb);
    return U32(s);
}
static uint32_t dp2a(const uint64_t *in, int hi, int sa, int sb)
{
    int64_t s = S32(C);
    for (unsigned i = 0; i < 2; i++)
        s += part(U32(A), 16, i, sa) * part(U32(B), 8, i + 2 * hi, sb);
    return U32(s);
}
REF(dp4a_uu) { out[0] = dp4a(in, 0, 0); }
REF(dp4a_us) { out[0] = dp4a(in, 0, 1); }
REF(dp4a_su) { out[0] = dp4a(in, 1, 0); }
REF(dp4a_ss) { out[0] = dp4a(in, 1, 1); }
REF(dp2a_lo_uu) { out[0] = dp2a(in, 0, 0, 0); }
REF(dp2a_lo_us) { out[0] = dp2a(in, 0, 0, 1); }
REF(dp2a_lo_su) { out[0] = dp2a(in, 0, 1, 0); }
REF(dp2a_lo_ss) { out[0] = dp2a(in, 0, 1, 1); }
REF(dp2a_hi_uu) { out[0] = dp2a(in, 1, 0, 0); }
REF(dp2a_hi_us) { out[0] = dp2a(in, 1, 0, 1); }
REF(dp2a_hi_su) { out[0] = dp2a(in, 1, 1, 0); }
REF(dp2a_hi_ss) { out[0] = dp2a(in, 1, 1, 1); }

REF(selp_b32) { out[0] = C ? U32(A) : U32(B); }
REF(selp_b64) { out[0] = C ? A : B; }
REF(selp_f32) { out[0] = C ? U32(A) : U32(B); }
/* slct: a if c >= 0 else b; for f32 c, -0 counts as >= 0 and NaN does not */
REF(slct_s32_s32) { out[0] = S32(C) >= 0 ? U32(A) : U32(B); }
REF(slct_b32_f32) { out[0] = sw_f(C) >= 0.0f ? U32(A) : U32(B); }
REF(slct_ftz_b32_f32) { out[0] = sw_ftz_f(sw_f(C)) >= 0.0f ? U32(A) : U32(B); }
