// cublaslt_matmul.cu: cuBLASLt as llm.c and PyTorch use it, on Zinc:
// heuristic returning >= 1 algorithm, bf16 in/out with a bias epilogue and
// strided batches (llm.c), f32 with RELU_BIAS / GELU (tanh approximation)
// / GELU_AUX_BIAS / DGELU / DGELU_BGRAD / BGRADA / BGRADB, row-major
// layouts, and beta accumulation. References: double loops here.
#include <cublasLt.h>

#include "blas_test.h"

enum dtype { F32, BF16 };

static double gelu(double x)
{
    return 0.5 * x * (1.0 + tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)));
}

static double gelu_grad(double x)
{
    double u = 0.7978845608028654 * (x + 0.044715 * x * x * x), t = tanh(u);
    return 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * 0.7978845608028654 * (1 + 3 * 0.044715 * x * x);
}

struct mat {
    int rows, cols, ld, batch;
    long long stride;
    enum dtype t;
    bool row_major;
    float *host;     // values as floats (already rounded to t)
    void *dev;
};

static size_t esize(enum dtype t) { return t == F32 ? 4 : 2; }
static size_t count(const mat &m) { return (size_t)m.stride * (m.batch - 1) + (size_t)m.ld * (m.row_major ? m.rows : m.cols); }
static size_t off(const mat &m, int b, int i, int j)
{
    return (size_t)b * m.stride + (m.row_major ? (size_t)i * m.ld + j : (size_t)j * m.ld + i);
}

static mat make(int rows, int cols, int ld, int batch, long long stride, enum dtype t, bool row_major, bool fill)
{
    mat m = { rows, cols, ld, batch, stride, t, row_major, NULL, NULL };
    size_t n = count(m);
    m.host = (float *)malloc(n * 4);
    for (size_t i = 0; i < n; i++) {
        float v = fill ? frand1() : NAN;
        m.host[i] = t == BF16 ? bf16_to_f(f_to_bf16(v)) : v;
    }
    CUDA_OK(cudaMalloc(&m.dev, n * esize(t)));
    if (t == F32) {
        CUDA_OK(cudaMemcpy(m.dev, m.host, n * 4, cudaMemcpyHostToDevice));
    } else {
        unsigned short *tmp = (unsigned short *)malloc(n * 2);
        for (size_t i = 0; i < n; i++) tmp[i] = f_to_bf16(m.host[i]);
        CUDA_OK(cudaMemcpy(m.dev, tmp, n * 2, cudaMemcpyHostToDevice));
        free(tmp);
    }
    return m;
}

static void fetch(mat &m)
{
    size_t n = count(m);
    if (m.t == F32) {
        CUDA_OK(cudaMemcpy(m.host, m.dev, n * 4, cudaMemcpyDeviceToHost));
    } else {
        unsigned short *tmp = (unsigned short *)malloc(n * 2);
        CUDA_OK(cudaMemcpy(tmp, m.dev, n * 2, cudaMemcpyDeviceToHost));
        for (size_t i = 0; i < n; i++) m.host[i] = bf16_to_f(tmp[i]);
        free(tmp);
    }
}

static cublasLtMatrixLayout_t layout(const mat &m)
{
    cublasLtMatrixLayout_t l;
    STATUS_OK(cublasLtMatrixLayoutCreate(&l, m.t == F32 ? CUDA_R_32F : CUDA_R_16BF, m.rows, m.cols, m.ld));
    if (m.row_major) {
        cublasLtOrder_t o = CUBLASLT_ORDER_ROW;
        STATUS_OK(cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_ORDER, &o, sizeof o));
    }
    if (m.batch > 1) {
        int b = m.batch;
        long long s = m.stride;
        STATUS_OK(cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &b, sizeof b));
        STATUS_OK(cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &s, sizeof s));
    }
    return l;
}

struct problem {
    const char *name;
    int m, n, k, batch;
    bool ta, tb, row_major;
    enum dtype t;
    cublasLtEpilogue_t epi;
    float alpha, beta;
    double tol;
};

static void run(cublasLtHandle_t lt, const problem &p)
{
    int m = p.m, n = p.n, k = p.k, B = p.batch;
    // A is m x k (k x m stored when ta), B is k x n (n x k when tb); ld > rows
    int ar = p.ta ? k : m, ac = p.ta ? m : k, br = p.tb ? n : k, bc = p.tb ? k : n;
    int lda = (p.row_major ? ac : ar) + 3, ldb = (p.row_major ? bc : br) + 1, ldc = (p.row_major ? n : m) + 2;
    long long sa = (long long)lda * (p.row_major ? ar : ac) + 7, sb = (long long)ldb * (p.row_major ? br : bc);
    long long sc = (long long)ldc * (p.row_major ? m : n);
    mat A = make(ar, ac, lda, B, sa, p.t, p.row_major, true);
    mat Bm = make(br, bc, ldb, B, sb, p.t, p.row_major, true);
    mat C = make(m, n, ldc, B, sc, p.t, p.row_major, true);
    mat D = make(m, n, ldc, B, sc, p.t, p.row_major, false);   // NaN-poisoned output
    bool bias_in = p.epi == CUBLASLT_EPILOGUE_BIAS || p.epi == CUBLASLT_EPILOGUE_RELU_BIAS ||
                   p.epi == CUBLASLT_EPILOGUE_GELU_BIAS || p.epi == CUBLASLT_EPILOGUE_GELU_AUX_BIAS;
    bool bias_out = p.epi == CUBLASLT_EPILOGUE_DGELU_BGRAD || p.epi == CUBLASLT_EPILOGUE_BGRADA ||
                    p.epi == CUBLASLT_EPILOGUE_BGRADB;
    bool aux_out = p.epi == CUBLASLT_EPILOGUE_GELU_AUX || p.epi == CUBLASLT_EPILOGUE_GELU_AUX_BIAS;
    bool aux_in = p.epi == CUBLASLT_EPILOGUE_DGELU || p.epi == CUBLASLT_EPILOGUE_DGELU_BGRAD;
    int bias_len = p.epi == CUBLASLT_EPILOGUE_BGRADB ? n : m;
    // bias is f32 (llm.c's bias gradients) or D's type (forward biases)
    mat bias = make(bias_len, 1, bias_len, 1, 0, bias_in ? p.t : F32, false, bias_in);
    mat aux = make(m, n, m, 1, 0, p.t, false, aux_in);

    cublasLtMatmulDesc_t desc;
    STATUS_OK(cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    cublasOperation_t ta = p.ta ? CUBLAS_OP_T : CUBLAS_OP_N, tb = p.tb ? CUBLAS_OP_T : CUBLAS_OP_N;
    STATUS_OK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta));
    STATUS_OK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb));
    STATUS_OK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &p.epi, sizeof p.epi));
    if (bias_in || bias_out) {
        cudaDataType bt = bias.t == F32 ? CUDA_R_32F : CUDA_R_16BF;
        STATUS_OK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &bt, sizeof bt));
        STATUS_OK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias.dev, sizeof bias.dev));
    }
    if (aux_in || aux_out) {
        int64_t ld = m;
        STATUS_OK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER, &aux.dev, sizeof aux.dev));
        STATUS_OK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD, &ld, sizeof ld));
    }
    cublasLtEpilogue_t back;
    size_t written = 0;
    STATUS_OK(cublasLtMatmulDescGetAttribute(desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &back, sizeof back, &written));
    CHECK(back == p.epi && written == sizeof back, "%s: epilogue attribute round trip", p.name);

    cublasLtMatrixLayout_t la = layout(A), lb = layout(Bm), lc = layout(C), ld = layout(D);
    cublasLtMatmulPreference_t pref;
    STATUS_OK(cublasLtMatmulPreferenceCreate(&pref));
    size_t ws = 32 << 20;
    STATUS_OK(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws));
    cublasLtMatmulHeuristicResult_t heur;
    int found = 0;
    STATUS_OK(cublasLtMatmulAlgoGetHeuristic(lt, desc, la, lb, lc, ld, pref, 1, &heur, &found));
    CHECK(found >= 1, "%s: heuristic returned %d algorithms", p.name, found);
    void *work;
    CUDA_OK(cudaMalloc(&work, ws));
    STATUS_OK(cublasLtMatmul(lt, desc, &p.alpha, A.dev, la, Bm.dev, lb, &p.beta, C.dev, lc, D.dev, ld,
                             &heur.algo, work, ws, 0));
    CUDA_OK(cudaDeviceSynchronize());
    fetch(D);
    if (aux_out) fetch(aux);
    if (bias_out) fetch(bias);

    double *ref = (double *)malloc(sizeof(double) * m * n * B), *pre = (double *)malloc(sizeof(double) * m * n);
    float *got = (float *)malloc(sizeof(float) * m * n * B);
    double *bref = (double *)calloc(bias_len, sizeof(double));
    for (int b = 0; b < B; b++)
        for (int j = 0; j < n; j++)
            for (int i = 0; i < m; i++) {
                double s = 0;
                for (int l = 0; l < k; l++) {
                    double av = p.ta ? A.host[off(A, b, l, i)] : A.host[off(A, b, i, l)];
                    double bv = p.tb ? Bm.host[off(Bm, b, j, l)] : Bm.host[off(Bm, b, l, j)];
                    s += av * bv;
                    if (p.epi == CUBLASLT_EPILOGUE_BGRADA && j == 0) bref[i] += av;
                    if (p.epi == CUBLASLT_EPILOGUE_BGRADB && i == 0) bref[j] += bv;
                }
                double v = p.alpha * s + p.beta * C.host[off(C, b, i, j)];
                if (bias_in) v += bias.host[i];
                pre[i + j * m] = v;
                if (p.epi & 64) v *= gelu_grad(aux.host[i + j * m]);
                else if (p.epi & 32) v = gelu(v);
                else if (p.epi & 2) v = v > 0 ? v : 0;
                if (p.epi == CUBLASLT_EPILOGUE_DGELU_BGRAD) bref[i] += v;
                ref[(size_t)b * m * n + i + j * m] = v;
                got[(size_t)b * m * n + i + j * m] = D.host[off(D, b, i, j)];
            }
    double e = rel_err(got, ref, (size_t)m * n * B);
    CHECK(e < p.tol, "%s: D rel err %g (tol %g)", p.name, e, p.tol);
    if (aux_out) {
        double ea = rel_err(aux.host, pre, (size_t)m * n);
        CHECK(ea < p.tol, "%s: aux (GELU input) rel err %g", p.name, ea);
    }
    if (bias_out) {
        double eb = rel_err(bias.host, bref, bias_len);
        CHECK(eb < p.tol, "%s: bias gradient rel err %g", p.name, eb);
    }
    // a bias epilogue's row below m (ld > m) must stay NaN (untouched)
    if (!p.row_major)
        CHECK(isnan(D.host[m]), "%s: wrote past the rows of D", p.name);
    free(ref); free(pre); free(got); free(bref);
    cublasLtMatmulPreferenceDestroy(pref);
    cublasLtMatrixLayoutDestroy(la); cublasLtMatrixLayoutDestroy(lb);
    cublasLtMatrixLayoutDestroy(lc); cublasLtMatrixLayoutDestroy(ld);
    cublasLtMatmulDescDestroy(desc);
    mat all[] = { A, Bm, C, D, bias, aux };
    for (int i = 0; i < 6; i++) { cudaFree(all[i].dev); free(all[i].host); }
    cudaFree(work);
}

int main()
{
    srand(11);
    cublasLtHandle_t lt;
    STATUS_OK(cublasLtCreate(&lt));
    CHECK(cublasLtGetVersion() >= 130000, "cublasLtGetVersion %zu", cublasLtGetVersion());
    check_loaded_from_zinc("libcublasLt.so.13");
    const problem probs[] = {
        // llm.c forward: out = inp W^T + bias, bf16, (ta = T, tb = N)
        { "llmc_fwd_bias_bf16", 48, 40, 32, 1, true, false, false, BF16, CUBLASLT_EPILOGUE_BIAS, 1.0f, 0.0f, 1e-2 },
        { "strided_batch_bf16", 24, 16, 20, 3, true, false, false, BF16, CUBLASLT_EPILOGUE_DEFAULT, 1.0f, 0.0f, 1e-2 },
        { "f32_default_beta", 33, 17, 29, 1, false, true, false, F32, CUBLASLT_EPILOGUE_DEFAULT, 0.5f, -1.0f, 1e-5 },
        { "f32_relu_bias", 31, 19, 23, 2, false, false, false, F32, CUBLASLT_EPILOGUE_RELU_BIAS, 1.0f, 0.0f, 1e-5 },
        { "f32_relu", 16, 16, 16, 1, true, true, false, F32, CUBLASLT_EPILOGUE_RELU, 1.0f, 0.0f, 1e-5 },
        { "f32_gelu", 20, 12, 18, 1, false, false, false, F32, CUBLASLT_EPILOGUE_GELU, 1.0f, 0.0f, 1e-5 },
        { "f32_gelu_bias", 20, 12, 18, 1, true, false, false, F32, CUBLASLT_EPILOGUE_GELU_BIAS, 1.0f, 0.0f, 1e-5 },
        { "bf16_gelu_aux_bias", 32, 24, 16, 1, true, false, false, BF16, CUBLASLT_EPILOGUE_GELU_AUX_BIAS, 1.0f, 0.0f, 1e-2 },
        { "f32_gelu_aux", 24, 8, 16, 1, false, false, false, F32, CUBLASLT_EPILOGUE_GELU_AUX, 1.0f, 0.0f, 1e-5 },
        { "f32_dgelu", 24, 8, 16, 1, false, true, false, F32, CUBLASLT_EPILOGUE_DGELU, 1.0f, 0.0f, 1e-5 },
        { "f32_dgelu_bgrad", 24, 8, 16, 1, false, true, false, F32, CUBLASLT_EPILOGUE_DGELU_BGRAD, 1.0f, 0.0f, 1e-5 },
        { "f32_bgrada", 24, 16, 12, 1, true, false, false, F32, CUBLASLT_EPILOGUE_BGRADA, 1.0f, 0.0f, 1e-5 },
        // llm.c backward weight gradient: dW += inp^T dout with bias grad (BGRADB)
        { "bf16_bgradb_accumulate", 32, 48, 40, 1, false, true, false, BF16, CUBLASLT_EPILOGUE_BGRADB, 1.0f, 1.0f, 1e-2 },
        { "f32_row_major", 21, 14, 9, 2, false, false, true, F32, CUBLASLT_EPILOGUE_BIAS, 1.5f, 0.25f, 1e-5 },
        { "f32_row_major_t", 21, 14, 9, 1, true, true, true, F32, CUBLASLT_EPILOGUE_DEFAULT, 1.0f, 0.0f, 1e-5 },
    };
    for (size_t i = 0; i < sizeof probs / sizeof probs[0]; i++)
        run(lt, probs[i]);
    STATUS_OK(cublasLtDestroy(lt));
    return finish("cublaslt_matmul");
}
