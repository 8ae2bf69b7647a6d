/* wmma_tf32.cu: <mma.h>'s tf32 fragments (wmma m16n16k8, f32 accumulators;
 * CUDA's tf32TensorCoreGemm sample uses them). C = A * B + C0 for a 32 x 48
 * result, K = 32: each warp one 16 x 16 tile and four k steps, A row- or
 * column-major, B column- or row-major, inputs rounded to tf32 with
 * wmma::__float_to_tf32 in the kernel. Against a double-precision CPU
 * reference of the tf32-rounded inputs, within 1e-5 of the sum of the
 * terms' magnitudes (tensor cores' summation order is not specified).
 */
#include <math.h>
#include <mma.h>
#include <type_traits>
#include "zn_test.h"

using namespace nvcuda;

#define M 32
#define N 48
#define K 32

template <typename LA, typename LB>
__global__ void k_wmma(const float *a, const float *b, const float *c0, float *d)
{
    int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int tm = warp / (N / 16), tn = warp % (N / 16);
    if (tm >= M / 16)
        return;
    wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, LA> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, LB> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 8, float> fc;
    wmma::load_matrix_sync(fc, c0 + tm * 16 * N + tn * 16, N, wmma::mem_row_major);
    const bool a_row = std::is_same<LA, wmma::row_major>::value;
    const bool b_row = std::is_same<LB, wmma::row_major>::value;
    for (int k = 0; k < K; k += 8) {
        const float *pa = a_row ? a + tm * 16 * K + k : a + k * M + tm * 16;
        const float *pb = b_row ? b + k * N + tn * 16 : b + tn * 16 * K + k;
        wmma::load_matrix_sync(fa, pa, a_row ? K : M);
        wmma::load_matrix_sync(fb, pb, b_row ? N : K);
        for (int i = 0; i < fa.num_elements; i++)
            fa.x[i] = wmma::__float_to_tf32(fa.x[i]);
        for (int i = 0; i < fb.num_elements; i++)
            fb.x[i] = wmma::__float_to_tf32(fb.x[i]);
        wmma::mma_sync(fc, fa, fb, fc);
    }
    wmma::store_matrix_sync(d + tm * 16 * N + tn * 16, fc, N, wmma::mem_row_major);
}

/* round to nearest, ties away from zero, to 10 mantissa bits (cvt.rna.tf32) */
static float to_tf32(float x)
{
    uint32_t u;
    memcpy(&u, &x, 4);
    if ((u & 0x7f800000u) != 0x7f800000u)
        u = (u + 0x1000u) & 0xffffe000u;
    memcpy(&x, &u, 4);
    return x;
}

template <typename LA, typename LB>
static void run(const char *what)
{
    const bool a_row = std::is_same<LA, wmma::row_major>::value;
    const bool b_row = std::is_same<LB, wmma::row_major>::value;
    static float av[M][K], bv[K][N], ha[M * K], hb[K * N], c0[M * N], got[M * N];
    uint32_t s = 777;
    for (int i = 0; i < M; i++)
        for (int k = 0; k < K; k++) {
            s = s * 1103515245u + 12345u;
            float v = ((float)(s >> 8) / 16777216.0f - 0.5f) * 4.0f;
            av[i][k] = to_tf32(v);
            ha[a_row ? i * K + k : k * M + i] = v;
        }
    for (int k = 0; k < K; k++)
        for (int j = 0; j < N; j++) {
            s = s * 1103515245u + 12345u;
            float v = ((float)(s >> 8) / 16777216.0f - 0.5f) * 2.0f;
            bv[k][j] = to_tf32(v);
            hb[b_row ? k * N + j : j * K + k] = v;
        }
    for (int i = 0; i < M * N; i++)
        c0[i] = (float)(i % 13) - 6.0f;
    float *da, *db, *dc, *dd;
    CK(cudaMalloc(&da, sizeof ha));
    CK(cudaMalloc(&db, sizeof hb));
    CK(cudaMalloc(&dc, sizeof c0));
    CK(cudaMalloc(&dd, sizeof got));
    CK(cudaMemcpy(da, ha, sizeof ha, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(db, hb, sizeof hb, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dc, c0, sizeof c0, cudaMemcpyHostToDevice));
    CK(cudaMemset(dd, 0xff, sizeof got));   /* poison: NaN */
    k_wmma<LA, LB><<<2, 96>>>(da, db, dc, dd);
    CK_LAUNCH();
    CK(cudaMemcpy(got, dd, sizeof got, cudaMemcpyDeviceToHost));
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            double want = c0[i * N + j], mag = fabs(want);
            for (int k = 0; k < K; k++) {
                want += (double)av[i][k] * bv[k][j];
                mag += fabs((double)av[i][k] * bv[k][j]);
            }
            double g = got[i * N + j];
            if (!(fabs(g - want) <= 1e-5 * mag))
                zt_fail("%s: C[%d][%d] = %.9g, want %.9g", what, i, j, g, want);
        }
    CK(cudaFree(da));
    CK(cudaFree(db));
    CK(cudaFree(dc));
    CK(cudaFree(dd));
}

int main(void)
{
    zt_begin("wmma_tf32");
    run<wmma::row_major, wmma::col_major>("row.col");
    run<wmma::col_major, wmma::row_major>("col.row");
    run<wmma::row_major, wmma::row_major>("row.row");
    return zt_finish();
}
