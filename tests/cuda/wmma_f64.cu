/* wmma_f64.cu: <mma.h>'s double fragments (wmma m8n8k4, sm_80's DMMA;
 * CUDA's dmmaTensorCoreGemm sample uses them). D = A * B + C0 for a
 * 16 x 24 result, K = 12: each warp one 8 x 8 tile and three k steps, A
 * row- or column-major, B column- or row-major, D stored row- or
 * column-major. The inputs are small integers and halves, so every sum is
 * exact in any order: D must equal the CPU's result bit for bit.
 */
#include <mma.h>
#include <type_traits>
#include "zn_test.h"

using namespace nvcuda;

#define M 16
#define N 24
#define K 12

template <typename LA, typename LB>
__global__ void k_wmma(const double *a, const double *b, const double *c0, double *d,
                       bool d_row)
{
    int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int tm = warp / (N / 8), tn = warp % (N / 8);
    if (tm >= M / 8)
        return;
    wmma::fragment<wmma::matrix_a, 8, 8, 4, double, LA> fa;
    wmma::fragment<wmma::matrix_b, 8, 8, 4, double, LB> fb;
    wmma::fragment<wmma::accumulator, 8, 8, 4, double> fc;
    wmma::load_matrix_sync(fc, c0 + tm * 8 * N + tn * 8, N, wmma::mem_row_major);
    const bool a_row = std::is_same<LA, wmma::row_major>::value;
    const bool b_row = std::is_same<LB, wmma::row_major>::value;
    for (int k = 0; k < K; k += 4) {
        const double *pa = a_row ? a + tm * 8 * K + k : a + k * M + tm * 8;
        const double *pb = b_row ? b + k * N + tn * 8 : b + tn * 8 * K + k;
        wmma::load_matrix_sync(fa, pa, a_row ? K : M);
        wmma::load_matrix_sync(fb, pb, b_row ? N : K);
        wmma::mma_sync(fc, fa, fb, fc);
    }
    if (d_row)
        wmma::store_matrix_sync(d + tm * 8 * N + tn * 8, fc, N, wmma::mem_row_major);
    else
        wmma::store_matrix_sync(d + tn * 8 * M + tm * 8, fc, M, wmma::mem_col_major);
}

template <typename LA, typename LB>
static void run(const char *what, bool d_row)
{
    const bool a_row = std::is_same<LA, wmma::row_major>::value;
    const bool b_row = std::is_same<LB, wmma::row_major>::value;
    static double av[M][K], bv[K][N], ha[M * K], hb[K * N], c0[M * N], got[M * N];
    uint32_t s = 4242;
    for (int i = 0; i < M; i++)
        for (int k = 0; k < K; k++) {
            s = s * 1103515245u + 12345u;
            av[i][k] = (double)((int)(s >> 24) - 128) / 2;
            ha[a_row ? i * K + k : k * M + i] = av[i][k];
        }
    for (int k = 0; k < K; k++)
        for (int j = 0; j < N; j++) {
            s = s * 1103515245u + 12345u;
            bv[k][j] = (double)((int)(s >> 25) - 64);
            hb[b_row ? k * N + j : j * K + k] = bv[k][j];
        }
    for (int i = 0; i < M * N; i++)
        c0[i] = (double)(i % 17) - 8.5;
    double *da, *db, *dc, *dd;
    CK(cudaMalloc(&da, sizeof ha));
    CK(cudaMalloc(&db, sizeof hb));
    CK(cudaMalloc(&dc, sizeof c0));
    CK(cudaMalloc(&dd, sizeof got));
    CK(cudaMemcpy(da, ha, sizeof ha, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(db, hb, sizeof hb, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dc, c0, sizeof c0, cudaMemcpyHostToDevice));
    CK(cudaMemset(dd, 0xff, sizeof got));   /* poison: NaN */
    k_wmma<LA, LB><<<2, 96>>>(da, db, dc, dd, d_row);
    CK_LAUNCH();
    CK(cudaMemcpy(got, dd, sizeof got, cudaMemcpyDeviceToHost));
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            double want = c0[i * N + j];
            for (int k = 0; k < K; k++)
                want += av[i][k] * bv[k][j];
            double g = got[d_row ? i * N + j : j * M + i];
            if (g != want)
                zt_fail("%s: D[%d][%d] = %.17g, want %.17g", what, i, j, g, want);
        }
    CK(cudaFree(da));
    CK(cudaFree(db));
    CK(cudaFree(dc));
    CK(cudaFree(dd));
}

int main(void)
{
    zt_begin("wmma_f64");
    run<wmma::row_major, wmma::col_major>("row.col", true);
    run<wmma::col_major, wmma::row_major>("col.row", false);
    run<wmma::row_major, wmma::row_major>("row.row", true);
    return zt_finish();
}
