/* wmma_int8.cu: <mma.h>'s 8-bit integer fragments (wmma m16n16k16 on s8
 * and u8, s32 accumulators; CUDA's immaTensorCoreGemm sample uses them).
 * C = A * B + C0 for a 32 x 48 result, K = 64: each warp takes one 16 x 16
 * tile and four k steps, with A row- or column-major and B column- or
 * row-major (leading dimensions other than 16), against an exact CPU
 * reference. Inputs cover the extremes (-128, 127, 255).
 */
#include <mma.h>
#include <type_traits>
#include "zn_test.h"

using namespace nvcuda;

#define M 32
#define N 48
#define K 64

template <typename T, typename LA, typename LB>
__global__ void k_wmma(const T *a, const T *b, const int *c0, int *d)
{
    int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int tm = warp / (N / 16), tn = warp % (N / 16);
    if (tm >= M / 16)
        return;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, T, LA> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, T, LB> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, int> fc;
    wmma::load_matrix_sync(fc, c0 + tm * 16 * N + tn * 16, N, wmma::mem_row_major);
    const bool a_row = std::is_same<LA, wmma::row_major>::value;
    const bool b_row = std::is_same<LB, wmma::row_major>::value;
    for (int k = 0; k < K; k += 16) {
        /* A is M x K, B is K x N, stored in the layout named */
        const T *pa = a_row ? a + tm * 16 * K + k : a + k * M + tm * 16;
        const T *pb = b_row ? b + k * N + tn * 16 : b + tn * 16 * K + k;
        wmma::load_matrix_sync(fa, pa, a_row ? K : M);
        wmma::load_matrix_sync(fb, pb, b_row ? N : K);
        wmma::mma_sync(fc, fa, fb, fc);
    }
    wmma::store_matrix_sync(d + tm * 16 * N + tn * 16, fc, N, wmma::mem_row_major);
}

template <typename T, typename LA, typename LB>
static void run(const char *what, bool sign)
{
    const bool a_row = std::is_same<LA, wmma::row_major>::value;
    const bool b_row = std::is_same<LB, wmma::row_major>::value;
    static int av[M][K], bv[K][N], c0[M * N], want[M * N], got[M * N];
    T ha[M * K], hb[K * N];
    uint32_t s = 12345;
    for (int i = 0; i < M; i++)
        for (int k = 0; k < K; k++) {
            s = s * 1103515245u + 12345u;
            int v = sign ? (int)(s >> 24) - 128 : (int)(s >> 24);
            if ((i + k) % 17 == 0)
                v = sign ? ((i & 1) ? 127 : -128) : 255;
            av[i][k] = v;
            ha[a_row ? i * K + k : k * M + i] = (T)v;
        }
    for (int k = 0; k < K; k++)
        for (int j = 0; j < N; j++) {
            s = s * 1103515245u + 12345u;
            int v = sign ? (int)(s >> 24) - 128 : (int)(s >> 24);
            if ((k * 3 + j) % 19 == 0)
                v = sign ? -128 : 255;
            bv[k][j] = v;
            hb[b_row ? k * N + j : j * K + k] = (T)v;
        }
    for (int i = 0; i < M * N; i++)
        c0[i] = (int)(i * 7919u % 20001u) - 10000;
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            int acc = c0[i * N + j];
            for (int k = 0; k < K; k++)
                acc += av[i][k] * bv[k][j];
            want[i * N + j] = acc;
        }
    T *da, *db;
    int *dc, *dd;
    CK(cudaMalloc(&da, sizeof ha));
    CK(cudaMalloc(&db, sizeof hb));
    CK(cudaMalloc(&dc, sizeof c0));
    CK(cudaMalloc(&dd, sizeof got));
    CK(cudaMemcpy(da, ha, sizeof ha, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(db, hb, sizeof hb, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dc, c0, sizeof c0, cudaMemcpyHostToDevice));
    CK(cudaMemset(dd, 0xa5, sizeof got));   /* poison */
    k_wmma<T, LA, LB><<<2, 96>>>(da, db, dc, dd);
    CK_LAUNCH();
    CK(cudaMemcpy(got, dd, sizeof got, cudaMemcpyDeviceToHost));
    for (int i = 0; i < M * N; i++)
        if (got[i] != want[i])
            zt_fail("%s: C[%d][%d] = %d, want %d", what, i / N, i % N, got[i], want[i]);
    CK(cudaFree(da));
    CK(cudaFree(db));
    CK(cudaFree(dc));
    CK(cudaFree(dd));
}

int main(void)
{
    zt_begin("wmma_int8");
    run<signed char, wmma::row_major, wmma::col_major>("s8 row.col", true);
    run<signed char, wmma::col_major, wmma::row_major>("s8 col.row", true);
    run<unsigned char, wmma::row_major, wmma::row_major>("u8 row.row", false);
    run<unsigned char, wmma::col_major, wmma::col_major>("u8 col.col", false);
    return zt_finish();
}
