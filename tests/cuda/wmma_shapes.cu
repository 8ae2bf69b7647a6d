/* wmma_shapes.cu: <mma.h>'s other fragment shapes. m32n8k16 and m8n32k16
 * with half and bfloat16 inputs and float accumulators, and with signed
 * and unsigned 8-bit inputs and int accumulators (A row- or
 * column-major, B column- or row-major, D stored row- or column-major),
 * and the sub-byte experimental ones: m8n8k32 on s4 and u4, m8n8k128 on
 * b1 with XOR and AND popcounts. A 32 x 32 (16-bit types) or 8 x 8 result
 * per test, one tile per warp, K = 32 or 2 k steps. Inputs are small
 * integers, so every sum is exact in any order: D must equal the CPU's
 * result exactly.
 */
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <mma.h>
#include <type_traits>
#include "zn_test.h"

using namespace nvcuda;
namespace wx = nvcuda::wmma::experimental;

#define MN 32   /* result M = N for the 16-bit shapes */
#define KK 32

template <int TM, int TN, typename T, typename Acc, typename LA, typename LB>
__global__ void k_wmma(const T *a, const T *b, const Acc *c0, Acc *d, bool d_row)
{
    int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int tm = warp / (MN / TN), tn = warp % (MN / TN);
    if (tm >= MN / TM)
        return;
    wmma::fragment<wmma::matrix_a, TM, TN, 16, T, LA> fa;
    wmma::fragment<wmma::matrix_b, TM, TN, 16, T, LB> fb;
    wmma::fragment<wmma::accumulator, TM, TN, 16, Acc> fc;
    wmma::load_matrix_sync(fc, c0 + tm * TM * MN + tn * TN, MN, wmma::mem_row_major);
    const bool a_row = std::is_same<LA, wmma::row_major>::value;
    const bool b_row = std::is_same<LB, wmma::row_major>::value;
    for (int k = 0; k < KK; k += 16) {
        wmma::load_matrix_sync(fa, a_row ? a + tm * TM * KK + k : a + k * MN + tm * TM,
                               a_row ? KK : MN);
        wmma::load_matrix_sync(fb, b_row ? b + k * MN + tn * TN : b + tn * TN * KK + k,
                               b_row ? MN : KK);
        wmma::mma_sync(fc, fa, fb, fc);
    }
    if (d_row)
        wmma::store_matrix_sync(d + tm * TM * MN + tn * TN, fc, MN, wmma::mem_row_major);
    else
        wmma::store_matrix_sync(d + tn * TN * MN + tm * TM, fc, MN, wmma::mem_col_major);
}

static int small(uint32_t *s, int range)
{
    *s = *s * 1103515245u + 12345u;
    return (int)(*s >> 16) % (2 * range + 1) - range;
}

/* T: half, __nv_bfloat16 (float accumulators), signed or unsigned char
 * (int accumulators) */
template <int TM, int TN, typename T, typename Acc, typename LA, typename LB>
static void run16(const char *what, bool d_row)
{
    const int bias = std::is_same<T, unsigned char>::value ? 8 : 0;
    const bool a_row = std::is_same<LA, wmma::row_major>::value;
    const bool b_row = std::is_same<LB, wmma::row_major>::value;
    static int av[MN][KK], bv[KK][MN];
    static T ha[MN * KK], hb[KK * MN];
    static Acc c0[MN * MN], got[MN * MN];
    uint32_t s = 99 + TM;
    for (int i = 0; i < MN; i++)
        for (int k = 0; k < KK; k++) {
            av[i][k] = small(&s, 8) + bias;
            ha[a_row ? i * KK + k : k * MN + i] = T((float)av[i][k]);
        }
    for (int k = 0; k < KK; k++)
        for (int j = 0; j < MN; j++) {
            bv[k][j] = small(&s, 8) + bias;
            hb[b_row ? k * MN + j : j * KK + k] = T((float)bv[k][j]);
        }
    for (int i = 0; i < MN * MN; i++)
        c0[i] = (Acc)(i % 29 - 14);
    T *da, *db;
    Acc *dc, *dd;
    CK(cudaMalloc(&da, sizeof ha));
    CK(cudaMalloc(&db, sizeof hb));
    CK(cudaMalloc(&dc, sizeof c0));
    CK(cudaMalloc(&dd, sizeof got));
    CK(cudaMemcpy(da, ha, sizeof ha, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(db, hb, sizeof hb, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dc, c0, sizeof c0, cudaMemcpyHostToDevice));
    CK(cudaMemset(dd, 0xff, sizeof got));   /* poison: NaN */
    k_wmma<TM, TN, T, Acc, LA, LB><<<2, 64>>>(da, db, dc, dd, d_row);
    CK_LAUNCH();
    CK(cudaMemcpy(got, dd, sizeof got, cudaMemcpyDeviceToHost));
    for (int i = 0; i < MN; i++)
        for (int j = 0; j < MN; j++) {
            int want = (int)c0[i * MN + j];
            for (int k = 0; k < KK; k++)
                want += av[i][k] * bv[k][j];
            double g = (double)got[d_row ? i * MN + j : j * MN + i];
            if (g != (double)want)
                zt_fail("%s: D[%d][%d] = %g, want %d", what, i, j, g, want);
        }
    CK(cudaFree(da));
    CK(cudaFree(db));
    CK(cudaFree(dc));
    CK(cudaFree(dd));
}

/* Sub-byte: A 8 x K row-major, B K x 8 column-major, packed LSB first, K
 * = 2 fragments' k (64 s4/u4, 256 b1); D row-major. op: 0 multiply-add,
 * 1 XOR popcount, 2 AND popcount. */
template <typename P, int K>
__global__ void k_sub(const unsigned *a, const unsigned *b, const int *c0, int *d, int op)
{
    wmma::fragment<wmma::matrix_a, 8, 8, K, P, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 8, 8, K, P, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 8, 8, K, int> fc;
    wmma::load_matrix_sync(fc, c0, 8, wmma::mem_row_major);
    for (int k = 0; k < 2 * K; k += K) {
        /* k elements into a row: k / 8 words of s4/u4, k / 32 of b1 */
        int kw = k / (K == 128 ? 32 : 8);
        wmma::load_matrix_sync(fa, a + kw, 2 * K);
        wmma::load_matrix_sync(fb, b + kw, 2 * K);
        if constexpr (K == 128) {
            if (op == 2)
                wmma::bmma_sync(fc, fa, fb, fc, wx::bmmaBitOpAND);
            else
                wmma::bmma_sync(fc, fa, fb, fc);
        } else {
            wmma::mma_sync(fc, fa, fb, fc);
        }
    }
    wmma::store_matrix_sync(d, fc, 8, wmma::mem_row_major);
}

/* element e of a packed row of `bits`-bit elements */
static int elem(const unsigned *row, int e, int bits, bool sign)
{
    unsigned v = row[e * bits / 32] >> (e * bits % 32) & ((1u << bits) - 1);
    return sign && bits == 4 && (v & 8) ? (int)v - 16 : (int)v;
}

template <typename P, int K>
static void run_sub(const char *what, int bits, bool sign, int op)
{
    enum { W = 2 * 128 / 32 };      /* words per row (2 fragments of k) */
    int words = 2 * K * bits / 32;
    static unsigned ha[8 * W], hb[8 * W];
    static int c0[64], got[64];
    uint32_t s = 7 + (uint32_t)op * 31 + (uint32_t)bits;
    for (int i = 0; i < 8 * words; i++) {
        s = s * 1103515245u + 12345u;
        ha[i] = s ^ (s >> 13) * 2654435761u;
        s = s * 1103515245u + 12345u;
        hb[i] = s ^ (s >> 11) * 40503u;
    }
    for (int i = 0; i < 64; i++)
        c0[i] = i * 3 - 100;
    unsigned *da, *db;
    int *dc, *dd;
    CK(cudaMalloc(&da, sizeof ha));
    CK(cudaMalloc(&db, sizeof hb));
    CK(cudaMalloc(&dc, sizeof c0));
    CK(cudaMalloc(&dd, sizeof got));
    CK(cudaMemcpy(da, ha, 8 * words * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(db, hb, 8 * words * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dc, c0, sizeof c0, cudaMemcpyHostToDevice));
    CK(cudaMemset(dd, 0x5a, sizeof got));   /* poison */
    k_sub<P, K><<<1, 32>>>(da, db, dc, dd, op);
    CK_LAUNCH();
    CK(cudaMemcpy(got, dd, sizeof got, cudaMemcpyDeviceToHost));
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 8; j++) {
            int want = c0[i * 8 + j];
            const unsigned *ar = ha + i * words, *bc = hb + j * words;
            if (op == 0) {
                for (int e = 0; e < 2 * K; e++)
                    want += elem(ar, e, bits, sign) * elem(bc, e, bits, sign);
            } else {
                for (int w = 0; w < words; w++)
                    want += __builtin_popcount(op == 1 ? ar[w] ^ bc[w] : ar[w] & bc[w]);
            }
            if (got[i * 8 + j] != want)
                zt_fail("%s: D[%d][%d] = %d, want %d", what, i, j, got[i * 8 + j], want);
        }
    CK(cudaFree(da));
    CK(cudaFree(db));
    CK(cudaFree(dc));
    CK(cudaFree(dd));
}

int main(void)
{
    zt_begin("wmma_shapes");
    run16<32, 8, half, float, wmma::row_major, wmma::col_major>("m32n8k16 f16 row.col", true);
    run16<32, 8, half, float, wmma::col_major, wmma::row_major>("m32n8k16 f16 col.row", false);
    run16<8, 32, half, float, wmma::row_major, wmma::row_major>("m8n32k16 f16 row.row", true);
    run16<8, 32, half, float, wmma::col_major, wmma::col_major>("m8n32k16 f16 col.col", false);
    run16<32, 8, __nv_bfloat16, float, wmma::row_major, wmma::col_major>("m32n8k16 bf16", false);
    run16<8, 32, __nv_bfloat16, float, wmma::col_major, wmma::row_major>("m8n32k16 bf16", true);
    run16<32, 8, signed char, int, wmma::row_major, wmma::col_major>("m32n8k16 s8 row.col", true);
    run16<32, 8, unsigned char, int, wmma::col_major, wmma::row_major>("m32n8k16 u8 col.row", false);
    run16<8, 32, signed char, int, wmma::row_major, wmma::row_major>("m8n32k16 s8 row.row", false);
    run16<8, 32, unsigned char, int, wmma::col_major, wmma::col_major>("m8n32k16 u8 col.col", true);
    run_sub<wx::precision::s4, 32>("m8n8k32 s4", 4, true, 0);
    run_sub<wx::precision::u4, 32>("m8n8k32 u4", 4, false, 0);
    run_sub<wx::precision::b1, 128>("m8n8k128 b1 xor", 1, false, 1);
    run_sub<wx::precision::b1, 128>("m8n8k128 b1 and", 1, false, 2);
    return zt_finish();
}
