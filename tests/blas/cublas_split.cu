// cublas_split.cu: GEMMs large enough for Zinc's libcublas to cut into
// panels for the worker pool (rows of C when m > n, columns otherwise,
// also when C is one column or one row and gemv does the panel), and
// batches it spreads over the pool, and f16 widened for GemmEx, checked against
// products in double written here. Every type (S, D, C, Z), every
// transpose (and conjugate transpose for complex), beta = 0 over a C full
// of NaN and beta = 0.5 over numbers; rows below m in each column of C
// must stay as they were. Run with ZINC_THREADS=4 so the panels exist on
// any machine.
#include <complex>
#include <cublas_v2.h>
#include <cuda_fp16.h>
#include <dlfcn.h>

#include "blas_test.h"

typedef std::complex<double> zd;

template <typename T> struct elem;
template <> struct elem<float> {
    static zd get(const float *p, size_t i) { return p[i]; }
    static void put(float *p, size_t i, zd v) { p[i] = (float)v.real(); }
    static double tol() { return 1e-5; }
    static bool cplx() { return false; }
};
template <> struct elem<double> {
    static zd get(const double *p, size_t i) { return p[i]; }
    static void put(double *p, size_t i, zd v) { p[i] = v.real(); }
    static double tol() { return 1e-12; }
    static bool cplx() { return false; }
};
template <> struct elem<cuComplex> {
    static zd get(const cuComplex *p, size_t i) { return zd(p[i].x, p[i].y); }
    static void put(cuComplex *p, size_t i, zd v) { p[i] = make_cuComplex((float)v.real(), (float)v.imag()); }
    static double tol() { return 1e-5; }
    static bool cplx() { return true; }
};
template <> struct elem<cuDoubleComplex> {
    static zd get(const cuDoubleComplex *p, size_t i) { return zd(p[i].x, p[i].y); }
    static void put(cuDoubleComplex *p, size_t i, zd v) { p[i] = make_cuDoubleComplex(v.real(), v.imag()); }
    static double tol() { return 1e-12; }
    static bool cplx() { return true; }
};

static cublasStatus_t gemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m,
                           int n, int k, const float *al, const float *a, int lda, const float *b,
                           int ldb, const float *be, float *c, int ldc)
{
    return cublasSgemm(h, ta, tb, m, n, k, al, a, lda, b, ldb, be, c, ldc);
}
static cublasStatus_t gemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m,
                           int n, int k, const double *al, const double *a, int lda,
                           const double *b, int ldb, const double *be, double *c, int ldc)
{
    return cublasDgemm(h, ta, tb, m, n, k, al, a, lda, b, ldb, be, c, ldc);
}
static cublasStatus_t gemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m,
                           int n, int k, const cuComplex *al, const cuComplex *a, int lda,
                           const cuComplex *b, int ldb, const cuComplex *be, cuComplex *c, int ldc)
{
    return cublasCgemm(h, ta, tb, m, n, k, al, a, lda, b, ldb, be, c, ldc);
}
static cublasStatus_t gemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m,
                           int n, int k, const cuDoubleComplex *al, const cuDoubleComplex *a,
                           int lda, const cuDoubleComplex *b, int ldb, const cuDoubleComplex *be,
                           cuDoubleComplex *c, int ldc)
{
    return cublasZgemm(h, ta, tb, m, n, k, al, a, lda, b, ldb, be, c, ldc);
}

// element (i, l) of op(X), X column-major with leading dimension ld
template <typename T>
static zd opel(const T *x, int ld, cublasOperation_t t, int i, int l)
{
    if (t == CUBLAS_OP_N)
        return elem<T>::get(x, i + (size_t)l * ld);
    zd v = elem<T>::get(x, l + (size_t)i * ld);
    return t == CUBLAS_OP_C ? std::conj(v) : v;
}

template <typename T>
static void test_shape(cublasHandle_t h, const char *name, int m, int n, int k)
{
    int big = m > n ? m : n;
    big = big > k ? big : k;
    const int ld = big + 2, ldc = big + 1;     // ldc > m: rows below m exist
    size_t sz = (size_t)ld * big;
    T *ha = (T *)malloc(sz * sizeof(T)), *hb = (T *)malloc(sz * sizeof(T));
    T *c0 = (T *)malloc(sz * sizeof(T)), *got = (T *)malloc(sz * sizeof(T));
    for (size_t i = 0; i < sz; i++) {
        elem<T>::put(ha, i, zd(frand1(), frand1()));
        elem<T>::put(hb, i, zd(frand1(), frand1()));
    }
    T *da = (T *)dev_upload(ha, sz * sizeof(T)), *db = (T *)dev_upload(hb, sz * sizeof(T)), *dc;
    CUDA_OK(cudaMalloc(&dc, sz * sizeof(T)));
    const cublasOperation_t ops[3] = { CUBLAS_OP_N, CUBLAS_OP_T, CUBLAS_OP_C };
    int nops = elem<T>::cplx() ? 3 : 2;
    T alpha, beta;
    zd za(0.75, elem<T>::cplx() ? -0.5 : 0);
    elem<T>::put(&alpha, 0, za);
    for (int ta = 0; ta < nops; ta++)
        for (int tb = 0; tb < nops; tb++)
            for (int bz = 0; bz < 2; bz++) {
                zd zb = bz ? zd(0) : zd(0.5);
                elem<T>::put(&beta, 0, zb);
                for (size_t i = 0; i < sz; i++)
                    elem<T>::put(c0, i, bz ? zd(NAN, NAN) : zd(frand1(), frand1()));
                CUDA_OK(cudaMemcpy(dc, c0, sz * sizeof(T), cudaMemcpyHostToDevice));
                STATUS_OK(gemm(h, ops[ta], ops[tb], m, n, k, &alpha, da, ld, db, ld, &beta, dc,
                               ldc));
                CUDA_OK(cudaMemcpy(got, dc, sz * sizeof(T), cudaMemcpyDeviceToHost));
                double worst = 0, scale = 0;
                bool below = true;
                for (int j = 0; j < n; j++) {
                    for (int i = 0; i < m; i++) {
                        zd s = 0;
                        for (int l = 0; l < k; l++)
                            s += opel(ha, ld, ops[ta], i, l) * opel(hb, ld, ops[tb], l, j);
                        zd ref = za * s + (bz ? zd(0) : zb * elem<T>::get(c0, i + (size_t)j * ldc));
                        double d = std::abs(elem<T>::get(got, i + (size_t)j * ldc) - ref);
                        worst = d > worst || d != d ? d : worst;
                        scale = std::abs(ref) > scale ? std::abs(ref) : scale;
                    }
                    // NaN poison compares unequal: check the bits
                    if (memcmp(&got[m + (size_t)j * ldc], &c0[m + (size_t)j * ldc], sizeof(T)))
                        below = false;
                }
                CHECK(worst <= elem<T>::tol() * scale * k, "%s %dx%dx%d ta=%d tb=%d beta=%s: "
                      "worst error %g (scale %g)", name, m, n, k, ta, tb, bz ? "0" : "0.5",
                      worst, scale);
                CHECK(below, "%s %dx%dx%d ta=%d tb=%d: wrote below row m", name, m, n, k, ta, tb);
            }
    cudaFree(da);
    cudaFree(db);
    cudaFree(dc);
    free(ha); free(hb); free(c0); free(got);
}

template <typename T> static void test_type(cublasHandle_t h, const char *name)
{
    test_shape<T>(h, name, 200, 30, 40);     // row panels
    test_shape<T>(h, name, 30, 200, 40);     // column panels
    test_shape<T>(h, name, 520, 1, 256);     // one column: gemv (real) per row panel
    test_shape<T>(h, name, 1, 520, 256);     // one row: gemv (real) per column panel
}

// Strided and pointer-array batches spread over the pool, one entry per
// part: f32, and f16 in with f32 out (each entry widened on its own).
static void test_batches(cublasHandle_t h)
{
    const int m = 43, n = 36, k = 45, batch = 8;   // columns of 43, 45: vector + tail
    const long long sa = (long long)m * k, sb = (long long)k * n, sc = (long long)m * n;
    float *ha = (float *)malloc(sa * batch * 4), *hb = (float *)malloc(sb * batch * 4);
    __half *fa = (__half *)malloc(sa * batch * 2), *fb = (__half *)malloc(sb * batch * 2);
    for (long long i = 0; i < sa * batch; i++) {
        fa[i] = __float2half(frand1());
        ha[i] = __half2float(fa[i]);
    }
    for (long long i = 0; i < sb * batch; i++) {
        fb[i] = __float2half(frand1());
        hb[i] = __half2float(fb[i]);
    }
    float *da = (float *)dev_upload(ha, sa * batch * 4), *db = (float *)dev_upload(hb, sb * batch * 4);
    __half *dfa = (__half *)dev_upload(fa, sa * batch * 2), *dfb = (__half *)dev_upload(fb, sb * batch * 2);
    float *dc, *got = (float *)malloc(sc * batch * 4);
    CUDA_OK(cudaMalloc(&dc, sc * batch * 4));
    // pointer arrays: entry b multiplies A[b] by B[batch - 1 - b]
    const void *pa[batch], *pb[batch];
    void *pc[batch];
    for (int b = 0; b < batch; b++) {
        pa[b] = dfa + b * sa;
        pb[b] = dfb + (batch - 1 - b) * sb;
        pc[b] = dc + b * sc;
    }
    const void **dpa = (const void **)dev_upload(pa, sizeof pa);
    const void **dpb = (const void **)dev_upload(pb, sizeof pb);
    void **dpc = (void **)dev_upload(pc, sizeof pc);
    const float alpha = 0.5f, beta = 0.0f;
    for (int arrays = 0; arrays < 2; arrays++) {
        CUDA_OK(cudaMemset(dc, 0xff, sc * batch * 4));    // NaN
        if (arrays)
            STATUS_OK(cublasGemmBatchedEx(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, dpa,
                                          CUDA_R_16F, m, dpb, CUDA_R_16F, k, &beta, dpc,
                                          CUDA_R_32F, m, batch, CUBLAS_COMPUTE_32F,
                                          CUBLAS_GEMM_DEFAULT));
        else
            STATUS_OK(cublasSgemmStridedBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, da,
                                                m, sa, db, k, sb, &beta, dc, m, sc, batch));
        CUDA_OK(cudaMemcpy(got, dc, sc * batch * 4, cudaMemcpyDeviceToHost));
        double *ref = (double *)malloc(sc * 8);
        for (int b = 0; b < batch; b++) {
            const float *B = hb + (arrays ? batch - 1 - b : b) * sb;
            for (int j = 0; j < n; j++)
                for (int i = 0; i < m; i++) {
                    double s = 0;
                    for (int l = 0; l < k; l++)
                        s += (double)ha[b * sa + i + l * m] * B[l + j * k];
                    ref[i + j * m] = alpha * s;
                }
            double e = rel_err(got + b * sc, ref, sc);
            CHECK(e < 1e-6, "%s batch entry %d: rel err %g",
                  arrays ? "GemmBatchedEx f16->f32" : "SgemmStridedBatched", b, e);
        }
        free(ref);
    }
    cudaFree(da); cudaFree(db); cudaFree(dc); cudaFree(dfa); cudaFree(dfb);
    cudaFree(dpa); cudaFree(dpb); cudaFree(dpc);
    free(ha); free(hb); free(fa); free(fb); free(got);
}

// Every finite f16 value, both infinities and three tail elements, widened
// for GemmEx (one column of A times 1): each product must be the value
// exactly, bit for bit (subnormals included; the vector path converts
// eight at a time, the tail one by one).
static void test_f16_widening(cublasHandle_t h)
{
    __half *ha = (__half *)malloc(65536 * 2);
    int m = 0;
    for (unsigned u = 0; u < 65536; u++) {
        unsigned short bits = (unsigned short)u;
        if ((bits & 0x7c00) == 0x7c00 && (bits & 0x3ff))
            continue;   // NaN
        memcpy(&ha[m++], &bits, 2);
    }
    m -= 5;             // 63490 values: not a multiple of 8
    __half one = __float2half(1.0f);
    __half *da = (__half *)dev_upload(ha, (size_t)m * 2), *db = (__half *)dev_upload(&one, 2);
    float *dc, *got = (float *)malloc((size_t)m * 4);
    CUDA_OK(cudaMalloc(&dc, (size_t)m * 4));
    CUDA_OK(cudaMemset(dc, 0xff, (size_t)m * 4));
    const float alpha = 1.0f, beta = 0.0f;
    STATUS_OK(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, m, 1, 1, &alpha, da, CUDA_R_16F, m, db,
                           CUDA_R_16F, 1, &beta, dc, CUDA_R_32F, m, CUBLAS_COMPUTE_32F,
                           CUBLAS_GEMM_DEFAULT));
    CUDA_OK(cudaMemcpy(got, dc, (size_t)m * 4, cudaMemcpyDeviceToHost));
    int bad = 0, first = -1;
    for (int i = 0; i < m; i++) {
        float want = __half2float(ha[i]);
        // -0 * 1 may come out +0 (C is cleared, then accumulated into)
        if (want == 0.0f ? got[i] != 0.0f : memcmp(&want, &got[i], 4) != 0) {
            bad++;
            first = first < 0 ? i : first;
        }
    }
    CHECK(bad == 0, "GemmEx f16 widening: %d of %d values wrong (first at %d)", bad, m, first);
    cudaFree(da); cudaFree(db); cudaFree(dc);
    free(ha); free(got);
}

// k = 0: C = beta C, also for one column or one row (where gemv, which
// returns at once for an empty product, must not be used).
static void test_k0(cublasHandle_t h)
{
    const int shapes[3][2] = { { 7, 1 }, { 1, 7 }, { 7, 3 } };
    float *dc, *da, got[21];
    CUDA_OK(cudaMalloc(&dc, sizeof got));
    CUDA_OK(cudaMalloc(&da, sizeof got));
    for (int s = 0; s < 3; s++)
        for (int bz = 0; bz < 2; bz++) {
            int m = shapes[s][0], n = shapes[s][1];
            float c0[21];
            for (int i = 0; i < 21; i++)
                c0[i] = bz ? NAN : (float)(i + 1);
            CUDA_OK(cudaMemcpy(dc, c0, sizeof c0, cudaMemcpyHostToDevice));
            const float alpha = 1.0f, beta = bz ? 0.0f : 0.5f;
            STATUS_OK(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, 0, &alpha, da, m, da, 1,
                                  &beta, dc, m));
            CUDA_OK(cudaMemcpy(got, dc, sizeof got, cudaMemcpyDeviceToHost));
            int bad = 0;
            for (int i = 0; i < m * n; i++)
                bad += got[i] != (bz ? 0.0f : 0.5f * c0[i]);
            CHECK(bad == 0, "Sgemm %dx%dx0 beta=%g: %d elements not beta C", m, n, beta, bad);
        }
    cudaFree(dc);
    cudaFree(da);
}

int main(void)
{
    srand(77);
    cublasHandle_t h;
    STATUS_OK(cublasCreate(&h));
    check_loaded_from_zinc("libcublas.so.13");
    // Zinc's libcublas found libcuda's pool and took OpenBLAS to one thread
    if (!getenv("ZINC_EXPECT_NVIDIA")) {
        int (*ob_threads)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "openblas_get_num_threads");
        CHECK(ob_threads && ob_threads() == 1, "OpenBLAS runs %d threads, not 1",
              ob_threads ? ob_threads() : -1);
    }
    test_type<float>(h, "Sgemm");
    test_type<double>(h, "Dgemm");
    test_type<cuComplex>(h, "Cgemm");
    test_type<cuDoubleComplex>(h, "Zgemm");
    test_batches(h);
    test_f16_widening(h);
    test_k0(h);
    STATUS_OK(cublasDestroy(h));
    return finish("cublas_split");
}
