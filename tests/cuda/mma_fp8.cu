/* mma_fp8.cu: mma.sync with 8-bit float inputs (issue #3), inline PTX.
 *
 *   mma.sync.aligned.m16n8k32.row.col.{f32,f16}.{e4m3,e5m2}.{e4m3,e5m2}.{f32,f16}
 *   mma.sync.aligned.m16n8k16.row.col.{f32,f16}.{e4m3,e5m2}.{e4m3,e5m2}.{f32,f16}
 *
 * One warp; every lane builds its A, B and C fragments from row-major
 * matrices with the PTX ISA layouts (those of s8/u8 for the same shape:
 * four fp8 values per .b32 register, consecutive in k), runs the mma and
 * scatters D back. The CPU reference decodes the fp8 codes itself and sums
 * in double. Inputs are chosen so the sum is exact in f32 (magnitudes
 * 0.25..3.75 and zeros: every product is a multiple of 2^-10 below 16, a
 * sum of 32 of them and C stays under 2^10), so f32 results must match
 * exactly; f16 results must be the exact sum rounded once to f16.
 * Needs sm_89 PTX (built with -arch=sm_89).
 */
#include <cuda_fp16.h>
#include <math.h>
#include "zn_test.h"

/* fragment layouts, g = lane >> 2, t = lane & 3 (k in units of elements) */
__device__ __host__ static void a_pos(int kk, int lane, int reg, int byte, int *row, int *k)
{
    int g = lane >> 2, t = lane & 3;
    *row = g + ((reg & 1) ? 8 : 0);
    *k = 4 * t + byte + (reg >= 2 ? 16 : 0);
    (void)kk;
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
            a_pos(K, lane, r, q, &row, &k);
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

/* The f32 C fragment of this lane in, the D fragment out (row-major 16x8). */
__device__ static void load_c(const float *c, float cr[4])
{
    int row, col;
    for (int i = 0; i < 4; i++) {
        c_pos(threadIdx.x, i, &row, &col);
        cr[i] = c[row * 8 + col];
    }
}

__device__ static void store_d(float *d, const float dr[4])
{
    int row, col;
    for (int i = 0; i < 4; i++) {
        c_pos(threadIdx.x, i, &row, &col);
        d[row * 8 + col] = dr[i];
    }
}

#define MMA_F32_K32(NAME, TA, TB)                                                              \
    __global__ void NAME(const unsigned char *a, const unsigned char *b, const float *c,      \
                         float *d)                                                             \
    {                                                                                          \
        unsigned ar[4], br[2];                                                                 \
        load_ab<32>(a, b, ar, br);                                                             \
        float cr[4], dr[4];                                                                    \
        load_c(c, cr);                                                                         \
        asm volatile("mma.sync.aligned.m16n8k32.row.col.f32." TA "." TB ".f32 "                \
                     "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"               \
                     : "=f"(dr[0]), "=f"(dr[1]), "=f"(dr[2]), "=f"(dr[3])                      \
                     : "r"(ar[0]), "r"(ar[1]), "r"(ar[2]), "r"(ar[3]), "r"(br[0]), "r"(br[1]), \
                       "f"(cr[0]), "f"(cr[1]), "f"(cr[2]), "f"(cr[3]));                        \
        store_d(d, dr);                                                                        \
    }

#define MMA_F32_K16(NAME, TA, TB)                                                              \
    __global__ void NAME(const unsigned char *a, const unsigned char *b, const float *c,      \
                         float *d)                                                             \
    {                                                                                          \
        unsigned ar[2], br[1];                                                                 \
        load_ab<16>(a, b, ar, br);                                                             \
        float cr[4], dr[4];                                                                    \
        load_c(c, cr);                                                                         \
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32." TA "." TB ".f32 "                \
                     "{%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%8,%9,%10};"                           \
                     : "=f"(dr[0]), "=f"(dr[1]), "=f"(dr[2]), "=f"(dr[3])                      \
                     : "r"(ar[0]), "r"(ar[1]), "r"(br[0]),                                     \
                       "f"(cr[0]), "f"(cr[1]), "f"(cr[2]), "f"(cr[3]));                        \
        store_d(d, dr);                                                                        \
    }

/* f16 C/D: two registers, {c0, c1} and {c2, c3}, low half first */
#define MMA_F16_K32(NAME, TA, TB)                                                              \
    __global__ void NAME(const unsigned char *a, const unsigned char *b, const __half *c,     \
                         __half *d)                                                            \
    {                                                                                          \
        unsigned ar[4], br[2];                                                                 \
        load_ab<32>(a, b, ar, br);                                                             \
        unsigned short ch[4];                                                                  \
        int row, col;                                                                          \
        for (int i = 0; i < 4; i++) {                                                          \
            c_pos(threadIdx.x, i, &row, &col);                                                 \
            ch[i] = __half_as_ushort(c[row * 8 + col]);                                        \
        }                                                                                      \
        unsigned cr0 = ch[0] | (unsigned)ch[1] << 16, cr1 = ch[2] | (unsigned)ch[3] << 16;     \
        unsigned dr0, dr1;                                                                     \
        asm volatile("mma.sync.aligned.m16n8k32.row.col.f16." TA "." TB ".f16 "                \
                     "{%0,%1}, {%2,%3,%4,%5}, {%6,%7}, {%8,%9};"                               \
                     : "=r"(dr0), "=r"(dr1)                                                    \
                     : "r"(ar[0]), "r"(ar[1]), "r"(ar[2]), "r"(ar[3]), "r"(br[0]), "r"(br[1]), \
                       "r"(cr0), "r"(cr1));                                                    \
        unsigned short dh[4] = {(unsigned short)dr0, (unsigned short)(dr0 >> 16),              \
                                (unsigned short)dr1, (unsigned short)(dr1 >> 16)};             \
        for (int i = 0; i < 4; i++) {                                                          \
            c_pos(threadIdx.x, i, &row, &col);                                                 \
            d[row * 8 + col] = __ushort_as_half(dh[i]);                                        \
        }                                                                                      \
    }

MMA_F32_K32(k32_e4m3_e4m3, "e4m3", "e4m3")
MMA_F32_K32(k32_e4m3_e5m2, "e4m3", "e5m2")
MMA_F32_K32(k32_e5m2_e4m3, "e5m2", "e4m3")
MMA_F32_K32(k32_e5m2_e5m2, "e5m2", "e5m2")
MMA_F32_K16(k16_e4m3_e4m3, "e4m3", "e4m3")
MMA_F32_K16(k16_e5m2_e4m3, "e5m2", "e4m3")
MMA_F16_K32(k32h_e4m3_e4m3, "e4m3", "e4m3")
MMA_F16_K32(k32h_e5m2_e5m2, "e5m2", "e5m2")

/* ---- host: fp8 codes and their values ---- */
static double fp8_value(unsigned c, bool e5m2)
{
    double s = (c & 0x80) ? -1.0 : 1.0;
    if (e5m2) {
        int e = (c >> 2) & 31, m = c & 3;
        return s * (e == 0 ? ldexp(m, -16) : ldexp(1.0 + m / 4.0, e - 15));
    }
    int e = (c >> 3) & 15, m = c & 7;
    return s * (e == 0 ? ldexp(m, -9) : ldexp(1.0 + m / 8.0, e - 7));
}

/* a random code with magnitude in [0.25, 4) (1 in 8: zero), random sign */
static unsigned char fp8_code(bool e5m2)
{
    unsigned r = zt_rand();
    if ((r & 7) == 0)
        return (r & 8) ? 0x80 : 0x00;
    unsigned sign = (r >> 4 & 1) << 7;
    if (e5m2) /* exponent field 13..16: 2^-2 .. 2^1 */
        return (unsigned char)(sign | (13 + (r >> 5) % 4) << 2 | (r >> 9 & 3));
    return (unsigned char)(sign | (5 + (r >> 5) % 4) << 3 | (r >> 9 & 7));
}

typedef void (*kern_f32)(const unsigned char *, const unsigned char *, const float *, float *);
typedef void (*kern_f16)(const unsigned char *, const unsigned char *, const __half *, __half *);

static unsigned char *d_a, *d_b;
static void *d_c, *d_d;

static void make_inputs(int K, bool ea5, bool eb5, unsigned char *a, unsigned char *b, double *c)
{
    for (int i = 0; i < 16 * K; i++)
        a[i] = fp8_code(ea5);
    for (int i = 0; i < K * 8; i++)
        b[i] = fp8_code(eb5);
    for (int i = 0; i < 16 * 8; i++)   /* multiples of 1/16 in [-8, 8) */
        c[i] = ((int)(zt_rand() % 256) - 128) / 16.0;
    CK(cudaMemcpy(d_a, a, 16 * K, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_b, b, K * 8, cudaMemcpyHostToDevice));
}

static double ref(int K, bool ea5, bool eb5, const unsigned char *a, const unsigned char *b,
                  const double *c, int row, int col)
{
    double s = c[row * 8 + col];
    for (int k = 0; k < K; k++)
        s += fp8_value(a[row * K + k], ea5) * fp8_value(b[k * 8 + col], eb5);
    return s;
}

static void run_f32(const char *name, kern_f32 kern, int K, bool ea5, bool eb5)
{
    for (int trial = 0; trial < 4; trial++) {
        unsigned char a[16 * 32], b[32 * 8];
        double c[128];
        make_inputs(K, ea5, eb5, a, b, c);
        float cf[128], d[128];
        for (int i = 0; i < 128; i++)
            cf[i] = (float)c[i];
        CK(cudaMemcpy(d_c, cf, sizeof cf, cudaMemcpyHostToDevice));
        CK(cudaMemset(d_d, 0xff, sizeof d));  /* poison: NaN */
        kern<<<1, 32>>>(d_a, d_b, (const float *)d_c, (float *)d_d);
        CK_LAUNCH();
        CK(cudaMemcpy(d, d_d, sizeof d, cudaMemcpyDeviceToHost));
        for (int r = 0; r < 16; r++)
            for (int n = 0; n < 8; n++) {
                double want = ref(K, ea5, eb5, a, b, c, r, n);
                if ((double)d[r * 8 + n] != want || (float)want != want)
                    zt_fail("%s trial %d D[%d][%d]: got %.9g want %.9g", name, trial, r, n,
                            d[r * 8 + n], want);
            }
    }
}

static void run_f16(const char *name, kern_f16 kern, bool ea5, bool eb5)
{
    for (int trial = 0; trial < 4; trial++) {
        unsigned char a[16 * 32], b[32 * 8];
        double c[128];
        make_inputs(32, ea5, eb5, a, b, c);
        __half ch[128], d[128];
        for (int i = 0; i < 128; i++)
            ch[i] = __double2half(c[i]);   /* exact: multiples of 1/16 under 8 */
        CK(cudaMemcpy(d_c, ch, sizeof ch, cudaMemcpyHostToDevice));
        CK(cudaMemset(d_d, 0xff, sizeof d));  /* poison: NaN */
        kern<<<1, 32>>>(d_a, d_b, (const __half *)d_c, (__half *)d_d);
        CK_LAUNCH();
        CK(cudaMemcpy(d, d_d, sizeof d, cudaMemcpyDeviceToHost));
        for (int r = 0; r < 16; r++)
            for (int n = 0; n < 8; n++) {
                double exact = ref(32, ea5, eb5, a, b, c, r, n);
                /* the exact sum is an f32; one rounding to f16 (nearest even) */
                unsigned short want = __half_as_ushort(__float2half_rn((float)exact));
                unsigned short got = __half_as_ushort(d[r * 8 + n]);
                if (got != want || (float)exact != exact)
                    zt_fail("%s trial %d D[%d][%d]: got 0x%04x want 0x%04x (%.9g)", name, trial,
                            r, n, got, want, exact);
            }
    }
}

int main(void)
{
    zt_begin("mma_fp8");
    CK(cudaMalloc(&d_a, 16 * 32));
    CK(cudaMalloc(&d_b, 32 * 8));
    CK(cudaMalloc(&d_c, 128 * sizeof(float)));
    CK(cudaMalloc(&d_d, 128 * sizeof(float)));
    run_f32("m16n8k32 e4m3.e4m3", k32_e4m3_e4m3, 32, false, false);
    run_f32("m16n8k32 e4m3.e5m2", k32_e4m3_e5m2, 32, false, true);
    run_f32("m16n8k32 e5m2.e4m3", k32_e5m2_e4m3, 32, true, false);
    run_f32("m16n8k32 e5m2.e5m2", k32_e5m2_e5m2, 32, true, true);
    run_f32("m16n8k16 e4m3.e4m3", k16_e4m3_e4m3, 16, false, false);
    run_f32("m16n8k16 e5m2.e4m3", k16_e5m2_e4m3, 16, true, false);
    run_f16("m16n8k32 f16 e4m3.e4m3", k32h_e4m3_e4m3, false, false);
    run_f16("m16n8k32 f16 e5m2.e5m2", k32h_e5m2_e5m2, true, true);
    CK(cudaFree(d_a));
    CK(cudaFree(d_b));
    CK(cudaFree(d_c));
    CK(cudaFree(d_d));
    return zt_finish();
}
