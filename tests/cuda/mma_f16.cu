/* mma_f16.cu: mma.sync with f16 inputs, inline PTX.
 *
 *   mma.sync.aligned.m16n8k16.row.col.{f32,f16}.f16.f16.{f32,f16}
 *   mma.sync.aligned.m16n8k8.row.col.{f32,f16}.f16.f16.{f32,f16}
 *
 * One warp builds its fragments from row-major matrices with the PTX ISA
 * layouts, runs the mma (twice in a row for the K = 32 cases) and scatters
 * D back. Every result must have the bits of the CPU reference below, the
 * H200's tensor-core step (docs/gpu-truth.md; 884,736 recorded results):
 * one step of all k products with C as its accumulator. Each product gets
 * the nominal exponent ea + eb + 1 (f16 exponents, -14 for subnormals), C
 * e + 1; every term is truncated toward zero to a multiple of 2^(E - 26),
 * E the largest nominal exponent of a nonzero term, and the exact sum is
 * rounded once: to nearest even for f16 accumulators, toward zero for f32.
 * Infinities and NaN as IEEE sums, NaN results canonical (0x7fff,
 * 0x7fffffff); all terms zero: the IEEE signed-zero sum.
 *
 * Inputs: random f16 over the whole range (subnormals too), rows of equal
 * exponents and maximal significands, all positive (sums past 2^31
 * truncation units),
 * cancellation, specials; last, 201 elements recorded on an H200
 * (mma_f16_h200.inc, chosen where simpler models miss), against both the
 * GPU's bits and the reference.
 */
#include <cuda_fp16.h>
#include <math.h>
#include "zn_mma_h200.h"

/* A: 16 x 32 f16 bits row-major; B: 32 x 8 (b[k * 8 + n]); C, D: 16 x 8
 * words (f16 bits in the low half, or f32). NS steps of K (8 or 16) from
 * k = 0. */
template <int K, bool F32, int NS>
__global__ void kmma(const unsigned short *a, const unsigned short *b, const unsigned *c,
                     unsigned *d)
{
    int lane = threadIdx.x, g = lane >> 2, t = lane & 3;
    float cf[4];
    unsigned ch[2];
    for (int i = 0; i < 4; i++)
        cf[i] = __uint_as_float(c[(g + ((i & 2) ? 8 : 0)) * 8 + 2 * t + (i & 1)]);
    for (int r = 0; r < 2; r++) {
        int e = (g + 8 * r) * 8 + 2 * t;
        ch[r] = (c[e] & 0xffff) | c[e + 1] << 16;
    }
    for (int s = 0; s < NS; s++) {
        int o = s * K;
        unsigned ar[4], br[2];
        for (int i = 0; i < 4; i++) {
            int row = g + ((i & 1) ? 8 : 0), k = o + 2 * t + ((i & 2) ? 8 : 0);
            ar[i] = a[row * 32 + k] | (unsigned)a[row * 32 + k + 1] << 16;
        }
        for (int i = 0; i < 2; i++) {
            int k = o + 2 * t + 8 * i;
            br[i] = b[k * 8 + g] | (unsigned)b[(k + 1) * 8 + g] << 16;
        }
        if (K == 16 && F32)
            asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, "
                         "{%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                         : "+f"(cf[0]), "+f"(cf[1]), "+f"(cf[2]), "+f"(cf[3])
                         : "r"(ar[0]), "r"(ar[1]), "r"(ar[2]), "r"(ar[3]), "r"(br[0]), "r"(br[1]));
        if (K == 16 && !F32)
            asm volatile("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%0,%1}, "
                         "{%2,%3,%4,%5}, {%6,%7}, {%0,%1};"
                         : "+r"(ch[0]), "+r"(ch[1])
                         : "r"(ar[0]), "r"(ar[1]), "r"(ar[2]), "r"(ar[3]), "r"(br[0]), "r"(br[1]));
        if (K == 8 && F32)
            asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, "
                         "{%4,%5}, {%6}, {%0,%1,%2,%3};"
                         : "+f"(cf[0]), "+f"(cf[1]), "+f"(cf[2]), "+f"(cf[3])
                         : "r"(ar[0]), "r"(ar[1]), "r"(br[0]));
        if (K == 8 && !F32)
            asm volatile("mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16 {%0,%1}, "
                         "{%2,%3}, {%4}, {%0,%1};"
                         : "+r"(ch[0]), "+r"(ch[1])
                         : "r"(ar[0]), "r"(ar[1]), "r"(br[0]));
    }
    for (int i = 0; i < 4; i++) {
        int e = (g + ((i & 2) ? 8 : 0)) * 8 + 2 * t + (i & 1);
        d[e] = F32 ? __float_as_uint(cf[i]) : (ch[i >> 1] >> (16 * (i & 1))) & 0xffff;
    }
}

typedef void (*kfn)(const unsigned short *, const unsigned short *, const unsigned *, unsigned *);
typedef struct variant {
    const char *name;
    kfn kern;
    int K, ns;
    bool f32;
} variant;
static const variant variants[] = {
    {"m16n8k16 f32", kmma<16, true, 1>, 16, 1, true},
    {"m16n8k16 f16", kmma<16, false, 1>, 16, 1, false},
    {"m16n8k8 f32", kmma<8, true, 1>, 8, 1, true},
    {"m16n8k8 f16", kmma<8, false, 1>, 8, 1, false},
    {"2 x m16n8k16 f32", kmma<16, true, 2>, 16, 2, true},
    {"2 x m16n8k16 f16", kmma<16, false, 2>, 16, 2, false},
};
#define NVARIANTS (int)(sizeof variants / sizeof variants[0])

/* ---- host: the reference ---- */
static unsigned bits_of(double v, bool f32)
{
    if (isnan(v))
        return f32 ? 0x7fffffffu : 0x7fff;
    return f32 ? zt_f2u((float)v) : __half_as_ushort(__double2half(v)); /* v is exact */
}

/* D(row, col) as bits */
static unsigned ref(const variant *v, const unsigned short *a, const unsigned short *b,
                    const unsigned *c, int row, int col)
{
    unsigned cw = c[row * 8 + col];
    double acc = v->f32 ? (double)zt_u2f(cw) : mma_half_value(cw & 0xffff);
    for (int s = 0; s < v->ns; s++) {
        double pa[16], pb[16];
        for (int k = 0; k < v->K; k++) {
            pa[k] = mma_half_value(a[row * 32 + s * v->K + k]);
            pb[k] = mma_half_value(b[(s * v->K + k) * 8 + col]);
        }
        acc = mma_step(acc, pa, pb, v->K, !v->f32, true);
        if (isnan(acc))
            acc = NAN;
    }
    return bits_of(acc, v->f32);
}

/* ---- inputs ---- */
static unsigned short hrand(int elo, int ehi)
{
    int e = elo + (int)(zt_rand() % (unsigned)(ehi - elo + 1)) + 15;
    unsigned s = (zt_rand() & 1) << 15;
    return (unsigned short)(s | (e < 0 ? 0 : e > 30 ? 30 : e) << 10 | (zt_rand() & 1023));
}

#define NMODES 4
static const char *mode_name[NMODES] = {"wide", "big", "cancel", "special"};

static void make_inputs(const variant *v, int mode, unsigned short *a, unsigned short *b,
                        unsigned *c)
{
    for (int i = 0; i < 16 * 32; i++)
        a[i] = mode == 0 ? hrand(-16, 15) : mode == 1 ? (unsigned short)(0x3800 | 0x3f0 | (zt_rand() & 15))
             : mode == 2 ? hrand(-3, 5) : hrand(-4, 4);
    for (int i = 0; i < 32 * 8; i++)
        b[i] = mode == 0 ? hrand(-16, 15) : mode == 1 ? (unsigned short)(0x5800 | 0x3f0 | (zt_rand() & 15))
             : mode == 2 ? hrand(-3, 5) : hrand(-4, 4);
    if (mode == 3) /* infinities, NaN, zeros */
        for (int i = 0; i < 16 * 32; i += 1 + (int)(zt_rand() % 7)) {
            static const unsigned short sp[] = {0x7c00, 0xfc00, 0x7e00, 0x0000, 0x8000};
            a[i] = sp[zt_rand() % 5];
            if (i < 32 * 8 && (zt_rand() & 1))
                b[i] = sp[zt_rand() % 5];
        }
    for (int i = 0; i < 128; i++) {
        unsigned short h = mode == 0 ? hrand(-24, 15) : mode == 1 ? (unsigned short)(0x5400 | (zt_rand() & 1023))
                         : mode == 2 ? hrand(8, 12) : hrand(-5, 15);
        if (v->f32) {
            float f = (float)mma_half_value(h);
            unsigned u = zt_f2u(f);
            if (mode == 0 && (zt_rand() & 1)) /* full f32 significands, tiny and huge */
                u = (zt_rand() & 0x80000000u) | ((1 + zt_rand() % 253) << 23) | (zt_rand() & 0x7fffff);
            c[i] = u;
        } else
            c[i] = h;
    }
}

static zn_mma_host<variant, unsigned short, ref, make_inputs> host;

/* ---- elements recorded on an H200 ---- */
static const char *const h200_cases[] = {
#include "mma_f16_h200.inc"
};

/* fp8 code -> f16 bits (exact) */
static unsigned short fp8_half(unsigned c, bool e5m2)
{
    if (e5m2)
        return (unsigned short)(c << 8);
    unsigned s = (c & 0x80) << 8, e = (c >> 3) & 15, m = c & 7;
    if (e == 15 && m == 7)
        return (unsigned short)(s | 0x7e00);
    double v = e == 0 ? ldexp(m, -9) : ldexp(1.0 + m / 8.0, (int)e - 7);
    return (unsigned short)(s | __half_as_ushort(__double2half(v)));
}

/* m16n8k16 cases with the variant's accumulator and steps */
static bool takes(const variant *v, const zn_mma_case *cs)
{
    return v->K == 16 && cs->K == 16 * v->ns && (strcmp(cs->tc, "f32") == 0) == v->f32;
}

/* the case's fp8 codes as f16 (exact): A row e, B column e */
static bool fill(const variant *v, const zn_mma_case *cs, int e, unsigned short *a,
                 unsigned short *b)
{
    (void)v;
    for (int k = 0; k < cs->K; k++) {
        unsigned x, y;
        if (sscanf(cs->ha + 2 * k, "%2x", &x) != 1 || sscanf(cs->hb + 2 * k, "%2x", &y) != 1)
            return false;
        a[e * 32 + k] = fp8_half(x, !strcmp(cs->ta, "e5m2"));
        b[k * 8 + e] = fp8_half(y, !strcmp(cs->tb, "e5m2"));
    }
    return true;
}

int main(void)
{
    zt_begin("mma_f16");
    return host.all(variants, NVARIANTS, mode_name, NMODES, h200_cases,
                    (int)(sizeof h200_cases / sizeof h200_cases[0]), takes, fill);
}
