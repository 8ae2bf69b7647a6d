// cublas_api.cu: cuBLAS through the CUDA runtime on Zinc: cudaMalloc'd
// matrices, Sgemm over transposes / ld > rows / alpha-beta (beta = 0 must
// ignore NaN in C), host and device pointer mode, strided and pointer
// batches, GemmEx with bf16 and f16, Level 1/2 spot checks, a kernel
// before and after the BLAS calls (stream order), and proof that the
// libcublas in this process is Zinc's.
#include <cublas_v2.h>
#include <cuda_fp16.h>
#include <dlfcn.h>

#include "blas_test.h"

__global__ void fill_iota(float *p, int n, float scale)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        p[i] = scale * (float)((i * 7) % 13 - 6);
}

__global__ void add_one(float *p, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        p[i] += 1.0f;
}

static double opel(const float *a, int lda, cublasOperation_t t, int i, int l)
{
    return t == CUBLAS_OP_N ? a[i + (size_t)l * lda] : a[l + (size_t)i * lda];
}

static void gemm_ref(cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k, double alpha,
                     const float *a, int lda, const float *b, int ldb, double beta, const float *c0,
                     int ldc, double *out)
{
    for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++) {
            double s = 0;
            for (int l = 0; l < k; l++)
                s += opel(a, lda, ta, i, l) * opel(b, ldb, tb, l, j);
            out[i + (size_t)j * m] = alpha * s + (beta != 0 ? beta * c0[i + (size_t)j * ldc] : 0);
        }
}

static void gather(const float *c, int m, int n, int ldc, float *out)
{
    for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++)
            out[i + (size_t)j * m] = c[i + (size_t)j * ldc];
}

// one shape; n = 1 and m = 1 are matrix-vector products (gemv inside)
static void test_sgemm_shape(cublasHandle_t h, int m, int n, int k)
{
    const int ld = 41, ldc = 40;
    size_t sz = (size_t)ld * ld;
    float *ha = (float *)malloc(sz * 4), *hb = (float *)malloc(sz * 4), *hc = (float *)malloc(sz * 4);
    float *got = (float *)malloc(sz * 4);
    double *ref = (double *)malloc(sz * 8);
    for (size_t i = 0; i < sz; i++) {
        ha[i] = frand1();
        hb[i] = frand1();
        hc[i] = frand1();
    }
    float *da, *db, *dc, *dscal;
    CUDA_OK(cudaMalloc(&da, sz * 4));
    CUDA_OK(cudaMalloc(&db, sz * 4));
    CUDA_OK(cudaMalloc(&dc, sz * 4));
    CUDA_OK(cudaMalloc(&dscal, 2 * 4));
    CUDA_OK(cudaMemcpy(da, ha, sz * 4, cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(db, hb, sz * 4, cudaMemcpyHostToDevice));
    cublasOperation_t ops[2] = { CUBLAS_OP_N, CUBLAS_OP_T };
    const float alphas[3] = { 1.0f, -0.75f, 2.0f }, betas[3] = { 0.0f, 1.0f, 0.5f };
    for (int ta = 0; ta < 2; ta++)
        for (int tb = 0; tb < 2; tb++)
            for (int s = 0; s < 3; s++)
                for (int dev = 0; dev < 2; dev++) {
                    float *c0 = (float *)malloc(sz * 4);
                    memcpy(c0, hc, sz * 4);
                    if (betas[s] == 0.0f)   // poison: beta = 0 must not read C
                        for (size_t i = 0; i < sz; i++)
                            c0[i] = NAN;
                    CUDA_OK(cudaMemcpy(dc, c0, sz * 4, cudaMemcpyHostToDevice));
                    float scal[2] = { alphas[s], betas[s] };
                    const float *pa = scal, *pb = scal + 1;
                    if (dev) {
                        CUDA_OK(cudaMemcpy(dscal, scal, 8, cudaMemcpyHostToDevice));
                        pa = dscal;
                        pb = dscal + 1;
                    }
                    STATUS_OK(cublasSetPointerMode(h, dev ? CUBLAS_POINTER_MODE_DEVICE
                                                          : CUBLAS_POINTER_MODE_HOST));
                    STATUS_OK(cublasSgemm(h, ops[ta], ops[tb], m, n, k, pa, da, ld, db, ld, pb,
                                          dc, ldc));
                    CUDA_OK(cudaMemcpy(got, dc, sz * 4, cudaMemcpyDeviceToHost));
                    float *g = (float *)malloc(sz * 4);
                    gather(got, m, n, ldc, g);
                    gemm_ref(ops[ta], ops[tb], m, n, k, alphas[s], ha, ld, hb, ld, betas[s], c0,
                             ldc, ref);
                    double e = rel_err(g, ref, (size_t)m * n);
                    CHECK(e < 1e-5, "Sgemm %dx%dx%d ta=%d tb=%d alpha=%g beta=%g %s mode: "
                          "rel err %g", m, n, k, ta, tb, alphas[s], betas[s],
                          dev ? "device" : "host", e);
                    // rows below m in each column (ldc > m) stay untouched
                    if (betas[s] != 0.0f)
                        CHECK(got[m] == c0[m], "Sgemm wrote past m in column 0");
                    free(g);
                    free(c0);
                }
    STATUS_OK(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_HOST));
    cudaFree(da);
    cudaFree(db);
    cudaFree(dc);
    cudaFree(dscal);
    free(ha); free(hb); free(hc); free(got); free(ref);
}

static void test_sgemm(cublasHandle_t h)
{
    test_sgemm_shape(h, 37, 29, 23);
    test_sgemm_shape(h, 37, 1, 23);
    test_sgemm_shape(h, 1, 29, 23);
    test_sgemm_shape(h, 1, 1, 23);
}

// Kernel -> cuBLAS -> kernel on one stream: the BLAS call sees the first
// kernel's output and the second kernel sees the BLAS result.
static void test_stream_order(cublasHandle_t h)
{
    const int n = 64;
    float *dx, *dy;
    CUDA_OK(cudaMalloc(&dx, n * 4));
    CUDA_OK(cudaMalloc(&dy, n * 4));
    cudaStream_t s;
    CUDA_OK(cudaStreamCreate(&s));
    STATUS_OK(cublasSetStream(h, s));
    cudaStream_t back = 0;
    STATUS_OK(cublasGetStream(h, &back));
    CHECK(back == s, "cublasGetStream did not return the stream set");
    fill_iota<<<2, 32, 0, s>>>(dx, n, 1.0f);
    fill_iota<<<2, 32, 0, s>>>(dy, n, 0.5f);
    float alpha = 3.0f;
    STATUS_OK(cublasSaxpy(h, n, &alpha, dx, 1, dy, 1));
    add_one<<<2, 32, 0, s>>>(dy, n);
    float hy[64];
    CUDA_OK(cudaMemcpyAsync(hy, dy, n * 4, cudaMemcpyDeviceToHost, s));
    CUDA_OK(cudaStreamSynchronize(s));
    int bad = 0;
    for (int i = 0; i < n; i++) {
        float x = (float)((i * 7) % 13 - 6);
        bad += hy[i] != 3.0f * x + 0.5f * x + 1.0f;
    }
    CHECK(bad == 0, "kernel/cuBLAS/kernel order: %d wrong", bad);
    STATUS_OK(cublasSetStream(h, 0));
    cudaStreamDestroy(s);
    cudaFree(dx);
    cudaFree(dy);
}

static void test_batched(cublasHandle_t h)
{
    const int m = 16, n = 12, k = 20, lda = 20, ldb = 24, ldc = 18, batch = 4;
    const long long sa = (long long)lda * k + 5, sb = (long long)ldb * n + 3, sc = (long long)ldc * n;
    size_t na = sa * batch, nb = sb * batch, nc = sc * batch;
    float *ha = (float *)malloc(na * 4), *hb = (float *)malloc(nb * 4), *hc = (float *)malloc(nc * 4);
    for (size_t i = 0; i < na; i++) ha[i] = frand1();
    for (size_t i = 0; i < nb; i++) hb[i] = frand1();
    for (size_t i = 0; i < nc; i++) hc[i] = frand1();
    float *da, *db, *dc;
    CUDA_OK(cudaMalloc(&da, na * 4));
    CUDA_OK(cudaMalloc(&db, nb * 4));
    CUDA_OK(cudaMalloc(&dc, nc * 4));
    CUDA_OK(cudaMemcpy(da, ha, na * 4, cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(db, hb, nb * 4, cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(dc, hc, nc * 4, cudaMemcpyHostToDevice));
    float alpha = 0.5f, beta = -1.0f;
    STATUS_OK(cublasSgemmStridedBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, da, lda, sa,
                                        db, ldb, sb, &beta, dc, ldc, sc, batch));
    float *got = (float *)malloc(nc * 4), g[16 * 12];
    double ref[16 * 12];
    CUDA_OK(cudaMemcpy(got, dc, nc * 4, cudaMemcpyDeviceToHost));
    for (int b = 0; b < batch; b++) {
        gemm_ref(CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, alpha, ha + b * sa, lda, hb + b * sb, ldb, beta,
                 hc + b * sc, ldc, ref);
        gather(got + b * sc, m, n, ldc, g);
        double e = rel_err(g, ref, (size_t)m * n);
        CHECK(e < 1e-5, "SgemmStridedBatched batch %d: rel err %g", b, e);
    }
    // pointer-array batches (arrays in device memory), reversed B order
    const float **dA, **dB;
    float **dC;
    const float *pa[4], *pb[4];
    float *pc[4];
    for (int b = 0; b < batch; b++) {
        pa[b] = da + b * sa;
        pb[b] = db + (batch - 1 - b) * sb;
        pc[b] = dc + b * sc;
    }
    CUDA_OK(cudaMemcpy(dc, hc, nc * 4, cudaMemcpyHostToDevice));
    CUDA_OK(cudaMalloc(&dA, sizeof pa));
    CUDA_OK(cudaMalloc(&dB, sizeof pb));
    CUDA_OK(cudaMalloc(&dC, sizeof pc));
    CUDA_OK(cudaMemcpy(dA, pa, sizeof pa, cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(dB, pb, sizeof pb, cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(dC, pc, sizeof pc, cudaMemcpyHostToDevice));
    STATUS_OK(cublasSgemmBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, dA, lda, dB, ldb,
                                 &beta, dC, ldc, batch));
    CUDA_OK(cudaMemcpy(got, dc, nc * 4, cudaMemcpyDeviceToHost));
    for (int b = 0; b < batch; b++) {
        gemm_ref(CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, alpha, ha + b * sa, lda,
                 hb + (batch - 1 - b) * sb, ldb, beta, hc + b * sc, ldc, ref);
        gather(got + b * sc, m, n, ldc, g);
        double e = rel_err(g, ref, (size_t)m * n);
        CHECK(e < 1e-5, "SgemmBatched batch %d: rel err %g", b, e);
    }
    cudaFree(da); cudaFree(db); cudaFree(dc); cudaFree(dA); cudaFree(dB); cudaFree(dC);
    free(ha); free(hb); free(hc); free(got);
}

// GemmStridedBatchedEx with bf16 inputs (as llm.c's attention) and f32 /
// bf16 outputs, and GemmEx with f16 -> f16.
static void test_gemm_ex(cublasHandle_t h)
{
    const int m = 24, n = 20, k = 32, batch = 3;
    const long long sa = (long long)k * m, sb = (long long)k * n, sc = (long long)m * n;
    unsigned short *ha = (unsigned short *)malloc(sa * batch * 2), *hb = (unsigned short *)malloc(sb * batch * 2);
    for (long long i = 0; i < sa * batch; i++) ha[i] = f_to_bf16(frand1());
    for (long long i = 0; i < sb * batch; i++) hb[i] = f_to_bf16(frand1());
    void *da, *db, *dc, *dcb;
    CUDA_OK(cudaMalloc(&da, sa * batch * 2));
    CUDA_OK(cudaMalloc(&db, sb * batch * 2));
    CUDA_OK(cudaMalloc(&dc, sc * batch * 4));
    CUDA_OK(cudaMalloc(&dcb, sc * batch * 2));
    CUDA_OK(cudaMemcpy(da, ha, sa * batch * 2, cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(db, hb, sb * batch * 2, cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemset(dc, 0xff, sc * batch * 4));   // NaN everywhere
    float alpha = 0.125f, beta = 0.0f;
    // C = alpha * A^T B with A stored k x m (lda = k), B k x n
    STATUS_OK(cublasGemmStridedBatchedEx(h, CUBLAS_OP_T, CUBLAS_OP_N, m, n, k, &alpha, da,
                                         CUDA_R_16BF, k, sa, db, CUDA_R_16BF, k, sb, &beta, dc,
                                         CUDA_R_32F, m, sc, batch, CUBLAS_COMPUTE_32F,
                                         CUBLAS_GEMM_DEFAULT));
    STATUS_OK(cublasGemmStridedBatchedEx(h, CUBLAS_OP_T, CUBLAS_OP_N, m, n, k, &alpha, da,
                                         CUDA_R_16BF, k, sa, db, CUDA_R_16BF, k, sb, &beta, dcb,
                                         CUDA_R_16BF, m, sc, batch, CUBLAS_COMPUTE_32F,
                                         CUBLAS_GEMM_DEFAULT_TENSOR_OP));
    float *got = (float *)malloc(sc * batch * 4);
    unsigned short *gotb = (unsigned short *)malloc(sc * batch * 2);
    CUDA_OK(cudaMemcpy(got, dc, sc * batch * 4, cudaMemcpyDeviceToHost));
    CUDA_OK(cudaMemcpy(gotb, dcb, sc * batch * 2, cudaMemcpyDeviceToHost));
    double *ref = (double *)malloc(sc * 8);
    float *gb = (float *)malloc(sc * 4);
    for (int b = 0; b < batch; b++) {
        for (int j = 0; j < n; j++)
            for (int i = 0; i < m; i++) {
                double s = 0;
                for (int l = 0; l < k; l++)
                    s += (double)bf16_to_f(ha[b * sa + l + i * k]) * bf16_to_f(hb[b * sb + l + j * k]);
                ref[i + j * m] = alpha * s;
            }
        double e = rel_err(got + b * sc, ref, sc);
        CHECK(e < 1e-5, "GemmStridedBatchedEx bf16->f32 batch %d: rel err %g", b, e);
        for (long long i = 0; i < sc; i++) gb[i] = bf16_to_f(gotb[b * sc + i]);
        e = rel_err(gb, ref, sc);
        CHECK(e < 1e-2, "GemmStridedBatchedEx bf16->bf16 batch %d: rel err %g", b, e);
    }
    // f16 in, f16 out, 32F compute
    __half *hh = (__half *)malloc(sa * 2), *hh2 = (__half *)malloc(sb * 2), *hout = (__half *)malloc(sc * 2);
    for (long long i = 0; i < sa; i++) hh[i] = __float2half(frand1());
    for (long long i = 0; i < sb; i++) hh2[i] = __float2half(frand1());
    CUDA_OK(cudaMemcpy(da, hh, sa * 2, cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(db, hh2, sb * 2, cudaMemcpyHostToDevice));
    STATUS_OK(cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, m, n, k, &alpha, da, CUDA_R_16F, k, db,
                           CUDA_R_16F, k, &beta, dcb, CUDA_R_16F, m, CUBLAS_COMPUTE_32F,
                           CUBLAS_GEMM_DEFAULT));
    CUDA_OK(cudaMemcpy(hout, dcb, sc * 2, cudaMemcpyDeviceToHost));
    for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++) {
            double s = 0;
            for (int l = 0; l < k; l++)
                s += (double)__half2float(hh[l + i * k]) * __half2float(hh2[l + j * k]);
            ref[i + j * m] = alpha * s;
            gb[i + j * m] = __half2float(hout[i + j * m]);
        }
    double e = rel_err(gb, ref, sc);
    CHECK(e < 2e-3, "GemmEx f16->f16: rel err %g", e);
    // Hgemm: f16 scalars too; beta = 1 accumulates onto the GemmEx result
    __half ha1 = __float2half(0.5f), hb1 = __float2half(1.0f);
    STATUS_OK(cublasHgemm(h, CUBLAS_OP_T, CUBLAS_OP_N, m, n, k, &ha1, (const __half *)da, k,
                          (const __half *)db, k, &hb1, (__half *)dcb, m));
    CUDA_OK(cudaMemcpy(hout, dcb, sc * 2, cudaMemcpyDeviceToHost));
    for (int i = 0; i < m * n; i++) {
        ref[i] = (double)gb[i] + ref[i] * (0.5 / alpha);
        gb[i] = __half2float(hout[i]);
    }
    e = rel_err(gb, ref, sc);
    CHECK(e < 2e-3, "Hgemm: rel err %g", e);
    // a combination cuBLAS itself rejects: NOT_SUPPORTED, not garbage
    cublasStatus_t st = cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, da, CUDA_R_16F,
                                     m, db, CUDA_R_16BF, k, &beta, dc, CUDA_R_32F, m,
                                     CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
    CHECK(st == CUBLAS_STATUS_NOT_SUPPORTED, "GemmEx f16 x bf16: status %d", (int)st);
    cudaFree(da); cudaFree(db); cudaFree(dc); cudaFree(dcb);
    free(ha); free(hb); free(got); free(gotb); free(ref); free(gb); free(hh); free(hh2); free(hout);
}

static void test_level12(cublasHandle_t h)
{
    const int n = 100;
    float hx[100], hy[100];
    for (int i = 0; i < n; i++) {
        hx[i] = frand1();
        hy[i] = frand1();
    }
    float *dx, *dy, *dres;
    CUDA_OK(cudaMalloc(&dx, n * 4));
    CUDA_OK(cudaMalloc(&dy, n * 4));
    CUDA_OK(cudaMalloc(&dres, 4));
    STATUS_OK(cublasSetVector(n, 4, hx, 1, dx, 1));
    STATUS_OK(cublasSetVector(n, 4, hy, 1, dy, 1));
    double dot = 0, nrm = 0;
    int imax = 0;
    for (int i = 0; i < n; i++) {
        dot += (double)hx[i] * hy[i];
        nrm += (double)hx[i] * hx[i];
        if (fabsf(hx[i]) > fabsf(hx[imax])) imax = i;
    }
    float r = 0;
    STATUS_OK(cublasSdot(h, n, dx, 1, dy, 1, &r));
    CHECK(fabs(r - dot) < 1e-5 * (1 + fabs(dot)), "Sdot %g vs %g", r, dot);
    STATUS_OK(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_DEVICE));
    STATUS_OK(cublasSnrm2(h, n, dx, 1, dres));
    STATUS_OK(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_HOST));
    CUDA_OK(cudaMemcpy(&r, dres, 4, cudaMemcpyDeviceToHost));
    CHECK(fabs(r - sqrt(nrm)) < 1e-5 * sqrt(nrm), "Snrm2 (device result) %g vs %g", r, sqrt(nrm));
    int idx = 0;
    STATUS_OK(cublasIsamax(h, n, dx, 1, &idx));
    CHECK(idx == imax + 1, "Isamax %d vs %d (1-based)", idx, imax + 1);
    // Sgemv with a 10 x 10 block of x as A (lda 10), y = A^T x
    float hyg[10];
    STATUS_OK(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_HOST));
    float one = 1.0f, zero = 0.0f;
    CUDA_OK(cudaMemset(dy, 0xff, n * 4));
    STATUS_OK(cublasSgemv(h, CUBLAS_OP_T, 10, 10, &one, dx, 10, dx, 1, &zero, dy, 1));
    STATUS_OK(cublasGetVector(10, 4, dy, 1, hyg, 1));
    double gref[10];
    for (int j = 0; j < 10; j++) {
        gref[j] = 0;
        for (int i = 0; i < 10; i++)
            gref[j] += (double)hx[i + 10 * j] * hx[i];
    }
    double e = rel_err(hyg, gref, 10);
    CHECK(e < 1e-5, "Sgemv T beta=0 (NaN y): rel err %g", e);
    cudaFree(dx); cudaFree(dy); cudaFree(dres);
}

int main()
{
    srand(7);
    cublasHandle_t h;
    STATUS_OK(cublasCreate(&h));
    int ver = 0;
    STATUS_OK(cublasGetVersion(h, &ver));
    CHECK(ver >= 130000, "cublasGetVersion %d", ver);
    check_loaded_from_zinc("libcublas.so.13");
    if (!getenv("ZINC_EXPECT_NVIDIA"))
        CHECK(dlsym(RTLD_DEFAULT, "zn_cublas_implementation") != NULL,
              "the loaded libcublas has no zn_cublas_implementation");
    test_level12(h);
    test_sgemm(h);
    test_stream_order(h);
    test_batched(h);
    test_gemm_ex(h);
    STATUS_OK(cublasDestroy(h));
    return finish("cublas_api");
}
