/* zn_blas_gemm_ex.c: the typed GEMMs (GemmEx, its batched and strided
 * batched forms, SgemmEx, Hgemm, and the ?gemm[Strided]Batched family).
 *
 * One closure handles them all: per batch entry it picks the path from the
 * (A, B, C, compute) types:
 *   f32/f16/bf16 in and out, 32F or 16F compute: inputs widened to f32,
 *     OpenBLAS sgemm, result rounded (RN) to C's type. TF32 / fast modes
 *     run as plain f32 (at least as accurate as the GPU).
 *   f64, c32, c64: dgemm, cgemm, zgemm directly.
 *   i8 x i8 -> i32 with 32I compute: exact integer loops here.
 */
#include "zn_blas_types.h"

#include <stdlib.h>
#include <stdatomic.h>
#include <string.h>

enum path { PATH_NONE, PATH_F32, PATH_MIXED, PATH_D, PATH_C, PATH_Z, PATH_I8 };

static bool is_f32_family(int c)
{
    return c == CUBLAS_COMPUTE_32F || c == CUBLAS_COMPUTE_32F_PEDANTIC ||
           c == CUBLAS_COMPUTE_32F_FAST_16F || c == CUBLAS_COMPUTE_32F_FAST_16BF ||
           c == CUBLAS_COMPUTE_32F_FAST_TF32 || c == CUBLAS_COMPUTE_32F_EMULATED_16BFX9;
}

static bool is_f16_compute(int c)
{
    return c == CUBLAS_COMPUTE_16F || c == CUBLAS_COMPUTE_16F_PEDANTIC;
}

/* Older programs pass a cudaDataType as the compute type (CUDA 10 API). */
static int normalize_compute(int c)
{
    switch (c) {
    case CUDA_R_32F: return CUBLAS_COMPUTE_32F;
    case CUDA_R_64F: return CUBLAS_COMPUTE_64F;
    case CUDA_R_16F: return CUBLAS_COMPUTE_16F;
    case CUDA_R_32I: return CUBLAS_COMPUTE_32I;
    default: return c;
    }
}

static enum path choose(int at, int bt, int ct, int compute)
{
    bool real16 = at == CUDA_R_16F || at == CUDA_R_16BF;
    if (is_f32_family(compute)) {
        if (at == CUDA_R_32F && bt == CUDA_R_32F && ct == CUDA_R_32F)
            return PATH_F32;
        if (at == CUDA_C_32F && bt == CUDA_C_32F && ct == CUDA_C_32F)
            return PATH_C;
        if (real16 && bt == at && (ct == at || ct == CUDA_R_32F))
            return PATH_MIXED;
        return PATH_NONE;
    }
    if (is_f16_compute(compute))
        return at == CUDA_R_16F && bt == CUDA_R_16F && (ct == CUDA_R_16F || ct == CUDA_R_32F)
                   ? PATH_MIXED : PATH_NONE;
    if (compute == CUBLAS_COMPUTE_64F || compute == CUBLAS_COMPUTE_64F_PEDANTIC) {
        if (at == CUDA_R_64F && bt == CUDA_R_64F && ct == CUDA_R_64F)
            return PATH_D;
        if (at == CUDA_C_64F && bt == CUDA_C_64F && ct == CUDA_C_64F)
            return PATH_Z;
        return PATH_NONE;
    }
    if (compute == CUBLAS_COMPUTE_32I || compute == CUBLAS_COMPUTE_32I_PEDANTIC)
        return at == CUDA_R_8I && bt == CUDA_R_8I && ct == CUDA_R_32I ? PATH_I8 : PATH_NONE;
    return PATH_NONE;
}

/* Bytes of alpha/beta: the scale type follows the compute type (and is
 * complex when C is). */
static size_t scale_size(int compute, int ct)
{
    if (is_f16_compute(compute))
        return 2;
    if (compute == CUBLAS_COMPUTE_64F || compute == CUBLAS_COMPUTE_64F_PEDANTIC)
        return ct == CUDA_C_64F ? 16 : 8;
    return ct == CUDA_C_32F ? 8 : 4;
}

static size_t elem_size(int type)
{
    switch (type) {
    case CUDA_R_8I: return 1;
    case CUDA_R_16F: case CUDA_R_16BF: return 2;
    case CUDA_R_32F: case CUDA_R_32I: return 4;
    case CUDA_R_64F: case CUDA_C_32F: return 8;
    case CUDA_C_64F: return 16;
    default: return 0;
    }
}

static float scalar_f32(const zn_scalar *s, int compute)
{
    return is_f16_compute(compute) ? zn_f16_to_f32(s->h) : s->f;
}

/* f16/bf16 (or f32 output) through f32: widen, sgemm, round. */
static cublasStatus_t gemm_mixed(const zn_blas_args *a, const void *A, const void *B, void *C)
{
    int ta = a->trans != CUBLAS_OP_N, tb = a->transb != CUBLAS_OP_N;
    int ar = ta ? a->k : a->m, ac = ta ? a->m : a->k;
    int br = tb ? a->n : a->k, bc = tb ? a->k : a->n;
    float alpha = scalar_f32(&a->alpha, a->compute), beta = scalar_f32(&a->beta, a->compute);
    float *fa = zn_blas_to_f32(A, a->atype, ar, ac, a->lda, false);
    float *fb = zn_blas_to_f32(B, a->btype, br, bc, a->ldb, false);
    float *fc = beta != 0.0f ? zn_blas_to_f32(C, a->ctype, a->m, a->n, a->ldc, false)
                             : malloc((size_t)a->m * a->n * sizeof(float));
    cublasStatus_t st = CUBLAS_STATUS_ALLOC_FAILED;
    if (fa && fb && fc) {
        zn_blas_sgemm(ta, tb, a->m, a->n, a->k, alpha, fa, zn_max1(ar), fb, zn_max1(br), beta,
                      fc, a->m);
        for (int j = 0; j < a->n; j++)
            for (int i = 0; i < a->m; i++)
                zn_blas_store(C, a->ctype, i, j, a->ldc, false, fc[(size_t)j * a->m + i]);
        st = CUBLAS_STATUS_SUCCESS;
    }
    free(fa);
    free(fb);
    free(fc);
    return st;
}

/* i8 x i8 -> i32, exact: products summed in 64 bits, then scaled in 64
 * bits and wrapped to 32 as the GPU's integer units do. */
static cublasStatus_t gemm_i8(const zn_blas_args *a, const void *A, const void *B, void *C)
{
    const int8_t *pa = A, *pb = B;
    int32_t *pc = C;
    int ta = a->trans != CUBLAS_OP_N, tb = a->transb != CUBLAS_OP_N;
    for (int j = 0; j < a->n; j++)
        for (int i = 0; i < a->m; i++) {
            int64_t s = 0;
            for (int l = 0; l < a->k; l++) {
                int64_t x = ta ? pa[(size_t)i * a->lda + l] : pa[(size_t)l * a->lda + i];
                int64_t y = tb ? pb[(size_t)l * a->ldb + j] : pb[(size_t)j * a->ldb + l];
                s += x * y;
            }
            int32_t *c = &pc[(size_t)j * a->ldc + i];
            int64_t r = (int64_t)a->alpha.i * s + (a->beta.i ? (int64_t)a->beta.i * *c : 0);
            *c = (int32_t)(uint32_t)r;
        }
    return CUBLAS_STATUS_SUCCESS;
}

static void clear_c(const zn_blas_args *a, void *C, size_t elem)
{
    for (int j = 0; j < a->n; j++)
        memset((char *)C + (size_t)j * a->ldc * elem, 0, (size_t)a->m * elem);
}

static cublasStatus_t gemm_one(const zn_blas_args *a, const void *A, const void *B, void *C)
{
    switch ((enum path)a->path) {
    case PATH_F32:
        zn_blas_sgemm(a->trans != CUBLAS_OP_N, a->transb != CUBLAS_OP_N, a->m, a->n, a->k,
                      a->alpha.f, A, a->lda, B, a->ldb, a->beta.f, C, a->ldc);
        return CUBLAS_STATUS_SUCCESS;
    case PATH_MIXED:
        return gemm_mixed(a, A, B, C);
    case PATH_D:
        if (a->beta.d == 0.0)
            clear_c(a, C, 8);
        zn_blas_gemm_d(a->trans, a->transb, a->m, a->n, a->k, &a->alpha, A, a->lda, B, a->ldb,
                       &a->beta, C, a->ldc);
        return CUBLAS_STATUS_SUCCESS;
    case PATH_C:
        if (zn_zero_c(&a->beta))
            clear_c(a, C, 8);
        zn_blas_gemm_c(a->trans, a->transb, a->m, a->n, a->k, &a->alpha, A, a->lda, B, a->ldb,
                       &a->beta, C, a->ldc);
        return CUBLAS_STATUS_SUCCESS;
    case PATH_Z:
        if (zn_zero_z(&a->beta))
            clear_c(a, C, 16);
        zn_blas_gemm_z(a->trans, a->transb, a->m, a->n, a->k, &a->alpha, A, a->lda, B, a->ldb,
                       &a->beta, C, a->ldc);
        return CUBLAS_STATUS_SUCCESS;
    case PATH_I8:
        return gemm_i8(a, A, B, C);
    default:
        return CUBLAS_STATUS_NOT_SUPPORTED;
    }
}

/* Batch entry b's matrices, from pointer arrays or strides. */
static cublasStatus_t gemm_entry(const zn_blas_args *a, int b)
{
    if (a->a_array)
        return gemm_one(a, a->a_array[b], a->b_array[b], a->c_array[b]);
    return gemm_one(a, (const char *)a->a + (ptrdiff_t)b * a->stride_a * (ptrdiff_t)elem_size(a->atype),
                    (const char *)a->b + (ptrdiff_t)b * a->stride_b * (ptrdiff_t)elem_size(a->btype),
                    (char *)a->c + (ptrdiff_t)b * a->stride_c * (ptrdiff_t)elem_size(a->ctype));
}

typedef struct batch_run {
    const zn_blas_args *a;
    _Atomic int status;     /* the first entry's failure */
} batch_run;

static void batch_part(void *p, uint64_t b)
{
    batch_run *r = p;
    cublasStatus_t st = gemm_entry(r->a, (int)b);
    int ok = CUBLAS_STATUS_SUCCESS;
    if (st != CUBLAS_STATUS_SUCCESS)
        atomic_compare_exchange_strong(&r->status, &ok, (int)st);
}

/* The closure. A batch of at least as many entries as workers runs its
 * entries at once (llama.cpp's attention: many small products); a shorter
 * one runs them in turn, each split into panels when large. */
static cublasStatus_t run_gemm_ex(const zn_blas_args *a)
{
    unsigned w = zn_blas_par_share((double)a->m * a->n * a->k * a->batch);
    if (w > 1 && (unsigned)a->batch >= w) {
        batch_run r = {.a = a};
        atomic_init(&r.status, CUBLAS_STATUS_SUCCESS);
        zn_blas_par_for((uint64_t)a->batch, batch_part, &r);
        return (cublasStatus_t)atomic_load(&r.status);
    }
    for (int b = 0; b < a->batch; b++) {
        cublasStatus_t st = gemm_entry(a, b);
        if (st != CUBLAS_STATUS_SUCCESS)
            return st;
    }
    return CUBLAS_STATUS_SUCCESS;
}

/* Everything the typed GEMMs have in common. `a` holds the pointers,
 * strides and batch; the rest are checked and captured here. */
static cublasStatus_t gemm_ex(const char *fn, cublasHandle_t h, zn_blas_args *a, int ta, int tb,
                              int m, int n, int k, const void *alpha, int lda, int ldb,
                              const void *beta, int ldc, int compute)
{
    ZN_BLAS_CHECK_HANDLE(h);
    compute = normalize_compute(compute);
    if (!zn_blas_op_ok(ta) || !zn_blas_op_ok(tb) || m < 0 || n < 0 || k < 0 || a->batch < 0 ||
        lda < zn_max1(ta == CUBLAS_OP_N ? m : k) || ldb < zn_max1(tb == CUBLAS_OP_N ? k : n) ||
        ldc < zn_max1(m))
        return CUBLAS_STATUS_INVALID_VALUE;
    enum path p = choose(a->atype, a->btype, a->ctype, compute);
    if (p == PATH_NONE) {
        zn_blas_unsupported(fn, "A type %d, B type %d, C type %d with compute type %d "
                            "is not supported", a->atype, a->btype, a->ctype, compute);
        return CUBLAS_STATUS_NOT_SUPPORTED;
    }
    if (m == 0 || n == 0 || a->batch == 0)
        return CUBLAS_STATUS_SUCCESS;
    /* Required pointers: the matrices, or the pointer arrays of *Batched. */
    bool arrays = a->a_array || a->b_array || a->c_array;
    const void *pa = arrays ? (const void *)a->a_array : a->a;
    const void *pb = arrays ? (const void *)a->b_array : a->b;
    const void *pc = arrays ? (const void *)a->c_array : a->c;
    if (!alpha || !beta || !pc || (k > 0 && (!pa || !pb)))
        return CUBLAS_STATUS_INVALID_VALUE;
    a->trans = ta;
    a->transb = tb;
    a->m = m;
    a->n = n;
    a->k = k;
    a->lda = lda;
    a->ldb = ldb;
    a->ldc = ldc;
    a->compute = compute;
    a->path = p;
    size_t ss = scale_size(compute, a->ctype);
    zn_blas_scalar(&a->alpha, alpha, ss);
    zn_blas_scalar(&a->beta, beta, ss);
    return zn_blas_submit(h, run_gemm_ex, a);
}

ZN_API cublasStatus_t cublasGemmEx(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb,
                                   int m, int n, int k, const void *alpha, const void *A,
                                   cudaDataType at, int lda, const void *B, cudaDataType bt,
                                   int ldb, const void *beta, void *C, cudaDataType ct, int ldc,
                                   cublasComputeType_t compute, cublasGemmAlgo_t algo)
{
    zn_blas_args a = { .a = A, .b = B, .c = C, .atype = at, .btype = bt, .ctype = ct,
                       .batch = 1 };
    return gemm_ex("cublasGemmEx", h, &a, ta, tb, m, n, k, alpha, lda, ldb, beta, ldc, compute);
}

ZN_API cublasStatus_t cublasGemmBatchedEx(cublasHandle_t h, cublasOperation_t ta,
                                          cublasOperation_t tb, int m, int n, int k,
                                          const void *alpha, const void *const A[],
                                          cudaDataType at, int lda, const void *const B[],
                                          cudaDataType bt, int ldb, const void *beta,
                                          void *const C[], cudaDataType ct, int ldc, int batch,
                                          cublasComputeType_t compute, cublasGemmAlgo_t algo)
{
    zn_blas_args a = { .a_array = A, .b_array = B, .c_array = C, .atype = at, .btype = bt,
                       .ctype = ct, .batch = batch };
    return gemm_ex("cublasGemmBatchedEx", h, &a, ta, tb, m, n, k, alpha, lda, ldb, beta, ldc,
                   compute);
}

ZN_API cublasStatus_t cublasGemmStridedBatchedEx(
    cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
    const void *alpha, const void *A, cudaDataType at, int lda, long long sa, const void *B,
    cudaDataType bt, int ldb, long long sb, const void *beta, void *C, cudaDataType ct, int ldc,
    long long sc, int batch, cublasComputeType_t compute, cublasGemmAlgo_t algo)
{
    zn_blas_args a = { .a = A, .b = B, .c = C, .atype = at, .btype = bt, .ctype = ct,
                       .stride_a = sa, .stride_b = sb, .stride_c = sc, .batch = batch };
    return gemm_ex("cublasGemmStridedBatchedEx", h, &a, ta, tb, m, n, k, alpha, lda, ldb, beta,
                   ldc, compute);
}

/* SgemmEx: typed inputs, f32 scalars and compute. */
ZN_API cublasStatus_t cublasSgemmEx(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb,
                                    int m, int n, int k, const float *alpha, const void *A,
                                    cudaDataType at, int lda, const void *B, cudaDataType bt,
                                    int ldb, const float *beta, void *C, cudaDataType ct, int ldc)
{
    zn_blas_args a = { .a = A, .b = B, .c = C, .atype = at, .btype = bt, .ctype = ct,
                       .batch = 1 };
    return gemm_ex("cublasSgemmEx", h, &a, ta, tb, m, n, k, alpha, lda, ldb, beta, ldc,
                   CUBLAS_COMPUTE_32F);
}

/* The precision-named batched GEMMs: X(T, type, data type, compute). */
#define ZN_GEMM_BATCH_TYPES(X)                                  \
    X(S, float, CUDA_R_32F, CUBLAS_COMPUTE_32F)                 \
    X(D, double, CUDA_R_64F, CUBLAS_COMPUTE_64F)                \
    X(C, cuComplex, CUDA_C_32F, CUBLAS_COMPUTE_32F)             \
    X(Z, cuDoubleComplex, CUDA_C_64F, CUBLAS_COMPUTE_64F)       \
    X(H, zn_half, CUDA_R_16F, CUBLAS_COMPUTE_16F)

#define DEF_GEMM_BATCHED(T, type, dt, compute)                                               \
    ZN_API cublasStatus_t cublas##T##gemmStridedBatched(                                     \
        cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,   \
        const type *alpha, const type *A, int lda, long long sa, const type *B, int ldb,     \
        long long sb, const type *beta, type *C, int ldc, long long sc, int batch)           \
    {                                                                                        \
        zn_blas_args a = { .a = A, .b = B, .c = C, .atype = dt, .btype = dt, .ctype = dt,    \
                           .stride_a = sa, .stride_b = sb, .stride_c = sc, .batch = batch }; \
        return gemm_ex("cublas" #T "gemmStridedBatched", h, &a, ta, tb, m, n, k, alpha, lda, \
                       ldb, beta, ldc, compute);                                             \
    }                                                                                        \
    ZN_API cublasStatus_t cublas##T##gemmBatched(                                            \
        cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,   \
        const type *alpha, const type *const A[], int lda, const type *const B[], int ldb,   \
        const type *beta, type *const C[], int ldc, int batch)                               \
    {                                                                                        \
        zn_blas_args a = { .a_array = (const void *const *)A,                                \
                           .b_array = (const void *const *)B,                                \
                           .c_array = (void *const *)C, .atype = dt, .btype = dt,            \
                           .ctype = dt, .batch = batch };                                    \
        return gemm_ex("cublas" #T "gemmBatched", h, &a, ta, tb, m, n, k, alpha, lda, ldb,   \
                       beta, ldc, compute);                                                  \
    }
ZN_GEMM_BATCH_TYPES(DEF_GEMM_BATCHED)

/* Hgemm: f16 everything; computed in f32 and rounded once (the GPU may
 * round partial sums to f16; this is at least as accurate). */
ZN_API cublasStatus_t cublasHgemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb,
                                  int m, int n, int k, const zn_half *alpha, const zn_half *A,
                                  int lda, const zn_half *B, int ldb, const zn_half *beta,
                                  zn_half *C, int ldc)
{
    zn_blas_args a = { .a = A, .b = B, .c = C, .atype = CUDA_R_16F, .btype = CUDA_R_16F,
                       .ctype = CUDA_R_16F, .batch = 1 };
    return gemm_ex("cublasHgemm", h, &a, ta, tb, m, n, k, alpha, lda, ldb, beta, ldc,
                   CUBLAS_COMPUTE_16F);
}
