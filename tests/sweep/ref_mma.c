/* ref_mma.c: integer mma.sync m8n8 (k16 s8/u8, k32 s4/u4, k128 b1) over
 * the 32 lanes of a warp. From the PTX ISA's fragment tables ("Matrix
 * Fragments for mma.m8n8k16/k32/k128"): lane l (g = l >> 2, t = l & 3)
 * holds A row g, columns t*e .. t*e+e-1 in its A register (element i in
 * bits [i*w, i*w+w)), B column g, rows t*e .. t*e+e-1, and C/D row g,
 * columns 2t and 2t+1 (e = 32 / w elements of width w per register).
 * D = C + A*B with 32-bit wrap-around, or clamped to s32 with .satfinite;
 * b1: the product is a AND b or a XOR b (popc of the bits). Here C0 = C1 =
 * the lane's input slot 2. */
#include "sweep.h"

/* element i of width w of a register, signed or not */
static int64_t elem(uint32_t r, int w, int i, int sign)
{
    uint32_t v = (r >> (w * i)) & (w == 32 ? ~0u : (1u << w) - 1);
    return sign && (v >> (w - 1)) ? (int64_t)v - ((int64_t)1 << w) : (int64_t)v;
}

/* bitop: 0 multiply, 1 and, 2 xor */
static void mma_m8n8(const uint64_t *in, uint64_t *out, int w, int asign, int bsign, int sat, int bitop)
{
    int e = 32 / w, k = 4 * e;
    for (int l = 0; l < SW_LANES; l++) {
        int g = l >> 2, t = l & 3;
        for (int j = 0; j < 2; j++) {
            int col = 2 * t + j;
            int64_t s = 0;
            for (int x = 0; x < k; x++) {
                /* A(g, x): lane 4g + x/e, element x%e; B(x, col): lane 4col + x/e */
                int64_t a = elem((uint32_t)in[(4 * g + x / e) * SW_NIN + 0], w, x % e, asign);
                int64_t b = elem((uint32_t)in[(4 * col + x / e) * SW_NIN + 1], w, x % e, bsign);
                s += bitop == 1 ? (a & b) : bitop == 2 ? (a ^ b) : a * b;
            }
            int64_t d = (int64_t)(int32_t)(uint32_t)in[l * SW_NIN + 2] + s;
            if (sat)
                d = d > INT32_MAX ? INT32_MAX : d < INT32_MIN ? INT32_MIN : d;
            out[l * SW_NOUT + j] = (uint32_t)d;
        }
    }
}

void wref_mma_m8n8k16_s8(const uint64_t *in, uint64_t *out) { mma_m8n8(in, out, 8, 1, 1, 0, 0); }
void wref_mma_m8n8k16_u8_s8(const uint64_t *in, uint64_t *out) { mma_m8n8(in, out, 8, 0, 1, 0, 0); }
void wref_mma_m8n8k16_sat_s8(const uint64_t *in, uint64_t *out) { mma_m8n8(in, out, 8, 1, 1, 1, 0); }
void wref_mma_m8n8k32_s4(const uint64_t *in, uint64_t *out) { mma_m8n8(in, out, 4, 1, 1, 0, 0); }
void wref_mma_m8n8k32_u4_s4(const uint64_t *in, uint64_t *out) { mma_m8n8(in, out, 4, 0, 1, 0, 0); }
void wref_mma_m8n8k128_xor(const uint64_t *in, uint64_t *out) { mma_m8n8(in, out, 1, 0, 0, 0, 2); }
void wref_mma_m8n8k128_and(const uint64_t *in, uint64_t *out) { mma_m8n8(in, out, 1, 0, 0, 0, 1); }
