/* mma_fp8.cu: mma.sync with 8-bit float inputs (issue #3), inline PTX.
 *
 *   mma.sync.aligned.m16n8k32.row.col.{f32,f16}.{e4m3,e5m2}.{e4m3,e5m2}.{f32,f16}
 *   mma.sync.aligned.m16n8k16.row.col.{f32,f16}.{e4m3,e5m2}.{e4m3,e5m2}.{f32,f16}
 *
 * One warp; every lane builds its A, B and C fragments from row-major
 * matrices with the PTX ISA layouts (those of s8/u8 for the same shape:
 * four fp8 values per .b32 register, consecutive in k), runs the mma and
 * scatters D back. Every result must have the bits of the CPU reference
 * below, which follows what an H200 does (fitted to 2.4 M of its results,
 * docs/gpu-truth.md): the products of k = 4t, 4t+1 (bytes 0-1 of each
 * register) are summed in one tensor-core step from zero, those of bytes
 * 2-3 in a second step onto the first's result, and C is added last with
 * one rounding to nearest (f16 or f32). In a step each product gets the
 * nominal exponent ea + eb + 1 (f16 exponents of its operands, -14 for
 * subnormals) and the accumulator e + 1; every term is truncated toward
 * zero to a multiple of 2^(E - 26), E the largest nominal exponent of a
 * nonzero term, and the exact sum of those is rounded once: to nearest
 * even with f16 accumulators, toward zero with f32. NaN results are the
 * canonical 0x7fff / 0x7fffffff.
 *
 * Inputs: the exact sums of the first version (magnitudes 0.25..3.75, where
 * only the f16 roundings show), then wide exponent ranges, cancellation,
 * two-term rows whose small term sits at the truncation boundary, NaN and
 * infinities; last, 432 elements recorded on an H200 (mma_fp8_h200.inc,
 * chosen where simpler models miss), against both the GPU's bits and the
 * reference. Needs sm_89 PTX (built with -arch=sm_89).
 */
#include <cuda_fp16.h>
#include <math.h>
#include "zn_mma_h200.h"

/* fragment layouts, g = lane >> 2, t = lane & 3 (k in units of elements) */
__device__ __host__ static void a_pos(int lane, int reg, int byte, int *row, int *k)
{
    int g = lane >> 2, t = lane & 3;
    *row = g + ((reg & 1) ? 8 : 0);
    *k = 4 * t + byte + (reg >= 2 ? 16 : 0);
}
__device__ __host__ static void b_pos(int lane, int reg, int byte, int *k, int *col)
{
    int g = lane >> 2, t = lane & 3;
    *col = g;
    *k = 4 * t + byte + 16 * reg;
}
__device__ __host__ static void c_pos(int lane, int i, int *row, int *col)
{
    int g = lane >> 2, t = lane & 3;
    *row = g + ((i & 2) ? 8 : 0);
    *col = 2 * t + (i & 1);
}

/* A: 16 x K codes row-major; B: K x 8 codes (b[k * 8 + n]); C, D: 16 x 8 */
template <int K>
__device__ static void load_ab(const unsigned char *a, const unsigned char *b, unsigned *ar,
                               unsigned *br)
{
    int lane = threadIdx.x;
    for (int r = 0; r < K / 8; r++) {
        unsigned w = 0;
        for (int q = 0; q < 4; q++) {
            int row, k;
            a_pos(lane, r, q, &row, &k);
            w |= (unsigned)a[row * K + k] << (8 * q);
        }
        ar[r] = w;
    }
    for (int r = 0; r < K / 16; r++) {
        unsigned w = 0;
        for (int q = 0; q < 4; q++) {
            int k, col;
            b_pos(lane, r, q, &k, &col);
            w |= (unsigned)b[k * 8 + col] << (8 * q);
        }
        br[r] = w;
    }
}

/* C and D as 32-bit words per element (f16: the bits in the low half) */
__device__ static void load_c32(const unsigned *c, float cr[4])
{
    int row, col;
    for (int i = 0; i < 4; i++) {
        c_pos(threadIdx.x, i, &row, &col);
        cr[i] = __uint_as_float(c[row * 8 + col]);
    }
}
__device__ static void store_d32(unsigned *d, const float dr[4])
{
    int row, col;
    for (int i = 0; i < 4; i++) {
        c_pos(threadIdx.x, i, &row, &col);
        d[row * 8 + col] = __float_as_uint(dr[i]);
    }
}
/* f16 C/D: two registers, {c0, c1} and {c2, c3}, low half first */
__device__ static void load_c16(const unsigned *c, unsigned cr[2])
{
    int row, col;
    for (int r = 0; r < 2; r++) {
        c_pos(threadIdx.x, 2 * r, &row, &col);
        cr[r] = (c[row * 8 + col] & 0xffff) | c[row * 8 + col + 1] << 16;
    }
}
__device__ static void store_d16(unsigned *d, const unsigned dr[2])
{
    int row, col;
    for (int r = 0; r < 2; r++) {
        c_pos(threadIdx.x, 2 * r, &row, &col);
        d[row * 8 + col] = dr[r] & 0xffff;
        d[row * 8 + col + 1] = dr[r] >> 16;
    }
}

typedef void (*kern_t)(const unsigned char *, const unsigned char *, const unsigned *, unsigned *);

#define KARGS const unsigned char *a, const unsigned char *b, const unsigned *c, unsigned *d

#define MMA_F32_K32(NAME, TA, TB)                                                              \
    __global__ void NAME(KARGS)                                                                \
    {                                                                                          \
        unsigned ar[4], br[2];                                                                 \
        load_ab<32>(a, b, ar, br);                                                             \
        float cr[4], dr[4];                                                                    \
        load_c32(c, cr);                                                                       \
        asm volatile("mma.sync.aligned.m16n8k32.row.col.f32." TA "." TB ".f32 "                \
                     "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"               \
                     : "=f"(dr[0]), "=f"(dr[1]), "=f"(dr[2]), "=f"(dr[3])                      \
                     : "r"(ar[0]), "r"(ar[1]), "r"(ar[2]), "r"(ar[3]), "r"(br[0]), "r"(br[1]), \
                       "f"(cr[0]), "f"(cr[1]), "f"(cr[2]), "f"(cr[3]));                        \
        store_d32(d, dr);                                                                      \
    }

#define MMA_F32_K16(NAME, TA, TB)                                                              \
    __global__ void NAME(KARGS)                                                                \
    {                                                                                          \
        unsigned ar[2], br[1];                                                                 \
        load_ab<16>(a, b, ar, br);                                                             \
        float cr[4], dr[4];                                                                    \
        load_c32(c, cr);                                                                       \
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32." TA "." TB ".f32 "                \
                     "{%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%8,%9,%10};"                           \
                     : "=f"(dr[0]), "=f"(dr[1]), "=f"(dr[2]), "=f"(dr[3])                      \
                     : "r"(ar[0]), "r"(ar[1]), "r"(br[0]),                                     \
                       "f"(cr[0]), "f"(cr[1]), "f"(cr[2]), "f"(cr[3]));                        \
        store_d32(d, dr);                                                                      \
    }

#define MMA_F16_K32(NAME, TA, TB)                                                              \
    __global__ void NAME(KARGS)                                                                \
    {                                                                                          \
        unsigned ar[4], br[2], cr[2], dr[2];                                                   \
        load_ab<32>(a, b, ar, br);                                                             \
        load_c16(c, cr);                                                                       \
        asm volatile("mma.sync.aligned.m16n8k32.row.col.f16." TA "." TB ".f16 "                \
                     "{%0,%1}, {%2,%3,%4,%5}, {%6,%7}, {%8,%9};"                               \
                     : "=r"(dr[0]), "=r"(dr[1])                                                \
                     : "r"(ar[0]), "r"(ar[1]), "r"(ar[2]), "r"(ar[3]), "r"(br[0]), "r"(br[1]), \
                       "r"(cr[0]), "r"(cr[1]));                                                \
        store_d16(d, dr);                                                                      \
    }

#define MMA_F16_K16(NAME, TA, TB)                                                              \
    __global__ void NAME(KARGS)                                                                \
    {                                                                                          \
        unsigned ar[2], br[1], cr[2], dr[2];                                                   \
        load_ab<16>(a, b, ar, br);                                                             \
        load_c16(c, cr);                                                                       \
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f16." TA "." TB ".f16 "                \
                     "{%0,%1}, {%2,%3}, {%4}, {%5,%6};"                                        \
                     : "=r"(dr[0]), "=r"(dr[1])                                                \
                     : "r"(ar[0]), "r"(ar[1]), "r"(br[0]), "r"(cr[0]), "r"(cr[1]));            \
        store_d16(d, dr);                                                                      \
    }

MMA_F32_K32(k32_e4m3_e4m3, "e4m3", "e4m3")
MMA_F32_K32(k32_e4m3_e5m2, "e4m3", "e5m2")
MMA_F32_K32(k32_e5m2_e4m3, "e5m2", "e4m3")
MMA_F32_K32(k32_e5m2_e5m2, "e5m2", "e5m2")
MMA_F32_K16(k16_e4m3_e4m3, "e4m3", "e4m3")
MMA_F32_K16(k16_e4m3_e5m2, "e4m3", "e5m2")
MMA_F32_K16(k16_e5m2_e4m3, "e5m2", "e4m3")
MMA_F32_K16(k16_e5m2_e5m2, "e5m2", "e5m2")
MMA_F16_K32(k32h_e4m3_e4m3, "e4m3", "e4m3")
MMA_F16_K32(k32h_e4m3_e5m2, "e4m3", "e5m2")
MMA_F16_K32(k32h_e5m2_e4m3, "e5m2", "e4m3")
MMA_F16_K32(k32h_e5m2_e5m2, "e5m2", "e5m2")
MMA_F16_K16(k16h_e4m3_e4m3, "e4m3", "e4m3")
MMA_F16_K16(k16h_e4m3_e5m2, "e4m3", "e5m2")
MMA_F16_K16(k16h_e5m2_e4m3, "e5m2", "e4m3")
MMA_F16_K16(k16h_e5m2_e5m2, "e5m2", "e5m2")

struct variant {
    const char *name;
    kern_t kern;
    int K;
    bool a5, b5, f16;
};
static const variant variants[] = {
    {"m16n8k32 f32 e4m3.e4m3", k32_e4m3_e4m3, 32, false, false, false},
    {"m16n8k32 f32 e4m3.e5m2", k32_e4m3_e5m2, 32, false, true, false},
    {"m16n8k32 f32 e5m2.e4m3", k32_e5m2_e4m3, 32, true, false, false},
    {"m16n8k32 f32 e5m2.e5m2", k32_e5m2_e5m2, 32, true, true, false},
    {"m16n8k16 f32 e4m3.e4m3", k16_e4m3_e4m3, 16, false, false, false},
    {"m16n8k16 f32 e4m3.e5m2", k16_e4m3_e5m2, 16, false, true, false},
    {"m16n8k16 f32 e5m2.e4m3", k16_e5m2_e4m3, 16, true, false, false},
    {"m16n8k16 f32 e5m2.e5m2", k16_e5m2_e5m2, 16, true, true, false},
    {"m16n8k32 f16 e4m3.e4m3", k32h_e4m3_e4m3, 32, false, false, true},
    {"m16n8k32 f16 e4m3.e5m2", k32h_e4m3_e5m2, 32, false, true, true},
    {"m16n8k32 f16 e5m2.e4m3", k32h_e5m2_e4m3, 32, true, false, true},
    {"m16n8k32 f16 e5m2.e5m2", k32h_e5m2_e5m2, 32, true, true, true},
    {"m16n8k16 f16 e4m3.e4m3", k16h_e4m3_e4m3, 16, false, false, true},
    {"m16n8k16 f16 e4m3.e5m2", k16h_e4m3_e5m2, 16, false, true, true},
    {"m16n8k16 f16 e5m2.e4m3", k16h_e5m2_e4m3, 16, true, false, true},
    {"m16n8k16 f16 e5m2.e5m2", k16h_e5m2_e5m2, 16, true, true, true},
};
#define NVARIANTS (int)(sizeof variants / sizeof variants[0])

/* ---- host: fp8 codes, their values, the reference ---- */
static double fp8_value(unsigned c, bool e5m2)
{
    double s = (c & 0x80) ? -1.0 : 1.0;
    if (e5m2) {
        int e = (c >> 2) & 31, m = c & 3;
        if (e == 31)
            return m ? NAN : s * INFINITY;
        return s * (e == 0 ? ldexp(m, -16) : ldexp(1.0 + m / 4.0, e - 15));
    }
    int e = (c >> 3) & 15, m = c & 7;
    if (e == 15 && m == 7)
        return NAN;
    return s * (e == 0 ? ldexp(m, -9) : ldexp(1.0 + m / 8.0, e - 7));
}

/* D(row, col) as bits: f16 in the low half or f32 */
static unsigned ref(const variant *v, const unsigned char *a, const unsigned char *b,
                    const unsigned *c, int row, int col)
{
    int K = v->K, n = 0;
    double pa[2][16], pb[2][16];
    for (int k = 0; k < K; k++) {
        int h = (k >> 1) & 1, i = (k >> 2) * 2 + (k & 1);
        pa[h][i] = fp8_value(a[row * K + k], v->a5);
        pb[h][i] = fp8_value(b[k * 8 + col], v->b5);
        n = i + 1;
    }
    double acc = mma_step(0.0, pa[0], pb[0], n, v->f16, false);
    acc = mma_step(acc, pa[1], pb[1], n, v->f16, false);
    unsigned cw = c[row * 8 + col];
    if (v->f16) {
        double d = mma_round_f16(acc + mma_half_value(cw));
        return isnan(d) ? 0x7fff : __half_as_ushort(__double2half(d)); /* d is an f16 */
    }
    float d = (float)(acc + (double)zt_u2f(cw)); /* double rounding harmless: 53 >= 2 * 24 + 2 */
    return isnan(d) ? 0x7fffffffu : zt_f2u(d);
}

/* ---- inputs ---- */
/* a code with exponent in [elo, ehi] (below the normal range: subnormal) */
static unsigned char fp8_code(bool e5m2, int elo, int ehi)
{
    int e = elo + (int)(zt_rand() % (unsigned)(ehi - elo + 1));
    unsigned sign = (zt_rand() & 1) << 7, m = zt_rand();
    if (e5m2) {
        int f = e + 15 < 0 ? 0 : e + 15 > 30 ? 30 : e + 15;
        return (unsigned char)(sign | f << 2 | (m & 3));
    }
    int f = e + 7 < 0 ? 0 : e + 7 > 15 ? 15 : e + 7;
    m &= 7;
    if (f == 15 && m == 7)
        m = 6;
    return (unsigned char)(sign | f << 3 | m);
}

/* C with exponent in [elo, ehi] (f16: full mantissa; f32: 24 bits) */
static unsigned c_word(bool f16, int elo, int ehi)
{
    int e = elo + (int)(zt_rand() % (unsigned)(ehi - elo + 1));
    double v = ldexp(1.0 + (zt_rand() & 0x7fffff) / 8388608.0, e) * ((zt_rand() & 1) ? -1 : 1);
    return f16 ? __half_as_ushort(__double2half(v)) : zt_f2u((float)v);
}

enum { EXACT, WIDE, CANCEL, TWO_TERM, SPECIAL, NMODES };
static const char *mode_name[NMODES] = {"exact", "wide", "cancel", "two-term", "special"};

static void make_inputs(const variant *v, int mode, unsigned char *a, unsigned char *b,
                        unsigned *c)
{
    int K = v->K;
    memset(a, 0, 16 * 32);
    for (int i = 0; i < 16 * K; i++) {
        unsigned r = zt_rand();
        switch (mode) {
        case EXACT: /* magnitude 0.25..3.75, 1 in 8 a signed zero */
            a[i] = (r & 7) == 0 ? (unsigned char)((r & 8) << 4) : fp8_code(v->a5, -2, 1);
            break;
        case WIDE:
            a[i] = r % 6 == 0 ? 0 : fp8_code(v->a5, -10, 5);
            break;
        case CANCEL:
            a[i] = fp8_code(v->a5, 0, 4);
            break;
        case TWO_TERM:
            break;
        case SPECIAL:
            a[i] = r % 5 == 0 ? (unsigned char)(r >> 8) : fp8_code(v->a5, -3, 3);
            break;
        }
    }
    for (int i = 0; i < K * 8; i++) {
        unsigned r = zt_rand();
        switch (mode) {
        case EXACT:
            b[i] = (r & 7) == 0 ? (unsigned char)((r & 8) << 4) : fp8_code(v->b5, -2, 1);
            break;
        case WIDE:
            b[i] = r % 6 == 0 ? 0x80 : fp8_code(v->b5, -10, 5);
            break;
        case CANCEL:
            b[i] = fp8_code(v->b5, 0, 4);
            break;
        case TWO_TERM: /* B = 1 */
            b[i] = v->b5 ? 0x3c : 0x38;
            break;
        case SPECIAL:
            b[i] = r % 5 == 0 ? (unsigned char)(r >> 8) : fp8_code(v->b5, -3, 3);
            break;
        }
    }
    if (mode == TWO_TERM) /* a large term and one 2^0..2^14 times smaller */
        for (int row = 0; row < 16; row++) {
            int e = -2 + (int)(zt_rand() % 9);
            a[row * K + zt_rand() % K] = fp8_code(v->a5, e, e);
            int e2 = e - (int)(zt_rand() % 15);
            a[row * K + zt_rand() % K] = fp8_code(v->a5, e2, e2);
        }
    for (int i = 0; i < 128; i++) {
        unsigned r = zt_rand();
        switch (mode) {
        case EXACT: { /* multiples of 1/16 in [-8, 8): exact in f16 */
            double x = ((int)(r % 256) - 128) / 16.0;
            c[i] = v->f16 ? __half_as_ushort(__double2half(x)) : zt_f2u((float)x);
            break;
        }
        case WIDE:
            c[i] = r % 6 == 0 ? (r & 64 ? (v->f16 ? 0x8000 : 0x80000000u) : 0)
                              : c_word(v->f16, -24, 12);
            break;
        case CANCEL:
            c[i] = c_word(v->f16, 6, 11);
            break;
        case TWO_TERM:
            c[i] = r % 4 == 0 ? 0 : c_word(v->f16, -14, 11);
            break;
        case SPECIAL: {
            unsigned inf = v->f16 ? 0x7c00 : 0x7f800000u, sign = v->f16 ? 0x8000 : 0x80000000u;
            c[i] = r % 8 == 0 ? inf | (r & 8 ? sign : 0) | (r & 16 ? 1 : 0)
                              : c_word(v->f16, -5, 15);
            break;
        }
        }
    }
}

static zn_mma_host<variant, unsigned char, ref, make_inputs> host;

/* ---- elements recorded on an H200 ----
 * "K atype btype ctype A-row B-column C D", codes in k order, C and D as
 * f16 or f32 bits; the element is D[row][col] of an mma whose other
 * rows and columns do not matter for it. */
static const char *const h200_cases[] = {
#include "mma_fp8_h200.inc"
};

static int hexbytes(const char *s, unsigned char *out, int n)
{
    for (int i = 0; i < n; i++) {
        unsigned x;
        if (sscanf(s + 2 * i, "%2x", &x) != 1)
            return -1;
        out[i] = (unsigned char)x;
    }
    return 0;
}

/* cases of the variant's K and input and accumulator types */
static bool takes(const variant *v, const zn_mma_case *cs)
{
    return cs->K == v->K && (strcmp(cs->ta, "e5m2") == 0) == v->a5 &&
           (strcmp(cs->tb, "e5m2") == 0) == v->b5 && (strcmp(cs->tc, "f16") == 0) == v->f16;
}

/* the case's codes: A row e, B column e */
static bool fill(const variant *v, const zn_mma_case *cs, int e, unsigned char *a,
                 unsigned char *b)
{
    unsigned char col[32];
    if (hexbytes(cs->ha, &a[e * v->K], v->K) || hexbytes(cs->hb, col, v->K))
        return false;
    for (int k = 0; k < v->K; k++)
        b[k * 8 + e] = col[k];
    return true;
}

int main(void)
{
    zt_begin("mma_fp8");
    return host.all(variants, NVARIANTS, mode_name, NMODES, h200_cases,
                    (int)(sizeof h200_cases / sizeof h200_cases[0]), takes, fill);
}
