/* test_blas_badargs.c: Zinc's libcublas / libcublasLt given bad arguments
 * (negative sizes, leading dimensions too small, null handle, invalid
 * operation / pointer-mode enums, null required pointers) must return the
 * status NVIDIA documents and leave every output untouched; zero-size
 * problems return SUCCESS and touch nothing. Plain C, NVIDIA's headers for
 * the declarations, linked against Zinc's libraries. */
#include <cublasLt.h>
#include <cublas_v2.h>

#include <stdint.h>
#include <stdio.h>
#include <string.h>

static int failures, checks;

#define EXPECT(call, want)                                                                   \
    do {                                                                                     \
        int got_ = (int)(call);                                                              \
        checks++;                                                                            \
        if (got_ != (int)(want)) {                                                           \
            failures++;                                                                      \
            printf("FAIL %s:%d: %s -> %d, want %s (%d)\n", __FILE__, __LINE__, #call, got_,  \
                   #want, (int)(want));                                                      \
        }                                                                                    \
    } while (0)

#define BAD CUBLAS_STATUS_INVALID_VALUE
#define NOINIT CUBLAS_STATUS_NOT_INITIALIZED
#define OK CUBLAS_STATUS_SUCCESS
#define N 8
#define SENTINEL -12345.0f

/* Outputs start as SENTINEL; every rejected call must leave them so. */
static float A[N * N], B[N * N], C[N * N], x[N], y[N];

static void reset(void)
{
    for (int i = 0; i < N * N; i++) {
        A[i] = 1.0f;
        B[i] = 2.0f;
        C[i] = SENTINEL;
    }
    for (int i = 0; i < N; i++) {
        x[i] = 1.0f;
        y[i] = SENTINEL;
    }
}

static void expect_untouched(const char *what, int line)
{
    checks++;
    for (int i = 0; i < N * N; i++)
        if (C[i] != SENTINEL || (i < N && y[i] != SENTINEL)) {
            failures++;
            printf("FAIL %s:%d: %s wrote its output (C[%d] = %g, y = %g)\n", __FILE__, line,
                   what, i, C[i], i < N ? y[i] : 0.0f);
            return;
        }
}
#define UNTOUCHED(what) expect_untouched(what, __LINE__)

static const float one = 1.0f, zero = 0.0f;
static const cublasOperation_t NT = CUBLAS_OP_N, TT = CUBLAS_OP_T;
static const cublasOperation_t BADOP = (cublasOperation_t)99;

static void test_handle(void)
{
    EXPECT(cublasCreate(NULL), BAD);
    EXPECT(cublasDestroy(NULL), NOINIT);
    EXPECT(cublasSetPointerMode(NULL, CUBLAS_POINTER_MODE_HOST), NOINIT);
    EXPECT(cublasSgemm(NULL, NT, NT, N, N, N, &one, A, N, B, N, &zero, C, N), NOINIT);
    EXPECT(cublasDgemm(NULL, NT, NT, N, N, N, NULL, NULL, N, NULL, N, NULL, NULL, N), NOINIT);
    EXPECT(cublasSgemv(NULL, NT, N, N, &one, A, N, x, 1, &zero, y, 1), NOINIT);
    EXPECT(cublasSaxpy(NULL, N, &one, x, 1, y, 1), NOINIT);
    EXPECT(cublasGemmEx(NULL, NT, NT, N, N, N, &one, A, CUDA_R_32F, N, B, CUDA_R_32F, N, &zero,
                        C, CUDA_R_32F, N, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT), NOINIT);
    UNTOUCHED("null-handle calls");
}

static void test_pointer_mode(cublasHandle_t h)
{
    cublasPointerMode_t m;
    EXPECT(cublasSetPointerMode(h, (cublasPointerMode_t)7), BAD);
    EXPECT(cublasSetPointerMode(h, (cublasPointerMode_t)-1), BAD);
    EXPECT(cublasGetPointerMode(h, NULL), BAD);
    EXPECT(cublasGetPointerMode(h, &m), OK);
    checks++;
    if (m != CUBLAS_POINTER_MODE_HOST) {
        failures++;
        printf("FAIL %s:%d: a rejected mode changed the pointer mode to %d\n", __FILE__,
               __LINE__, (int)m);
    }
}

static void test_gemm(cublasHandle_t h)
{
    EXPECT(cublasSgemm(h, NT, NT, -1, N, N, &one, A, N, B, N, &zero, C, N), BAD);
    EXPECT(cublasSgemm(h, NT, NT, N, -1, N, &one, A, N, B, N, &zero, C, N), BAD);
    EXPECT(cublasSgemm(h, NT, NT, N, N, -1, &one, A, N, B, N, &zero, C, N), BAD);
    EXPECT(cublasSgemm(h, NT, NT, N, N, N, &one, A, N - 1, B, N, &zero, C, N), BAD);  /* lda < m */
    EXPECT(cublasSgemm(h, TT, NT, N, N, 4, &one, A, 3, B, N, &zero, C, N), BAD);      /* lda < k */
    EXPECT(cublasSgemm(h, NT, NT, N, N, N, &one, A, N, B, N - 1, &zero, C, N), BAD);  /* ldb < k */
    EXPECT(cublasSgemm(h, NT, TT, N, N, 4, &one, A, N, B, N - 1, &zero, C, N), BAD);  /* ldb < n */
    EXPECT(cublasSgemm(h, NT, NT, N, N, N, &one, A, N, B, N, &zero, C, N - 1), BAD);  /* ldc < m */
    EXPECT(cublasSgemm(h, NT, NT, 1, 1, 1, &one, A, 0, B, 1, &zero, C, 1), BAD);      /* ld 0 */
    EXPECT(cublasSgemm(h, BADOP, NT, N, N, N, &one, A, N, B, N, &zero, C, N), BAD);
    EXPECT(cublasSgemm(h, NT, (cublasOperation_t)-1, N, N, N, &one, A, N, B, N, &zero, C, N), BAD);
    EXPECT(cublasSgemm(h, NT, NT, N, N, N, NULL, A, N, B, N, &zero, C, N), BAD);
    EXPECT(cublasSgemm(h, NT, NT, N, N, N, &one, A, N, B, N, NULL, C, N), BAD);
    EXPECT(cublasSgemm(h, NT, NT, N, N, N, &one, NULL, N, B, N, &zero, C, N), BAD);
    EXPECT(cublasSgemm(h, NT, NT, N, N, N, &one, A, N, NULL, N, &zero, C, N), BAD);
    EXPECT(cublasSgemm(h, NT, NT, N, N, N, &one, A, N, B, N, &zero, NULL, N), BAD);
    const double d1 = 1.0;
    EXPECT(cublasDgemm(h, NT, NT, N, N, -5, &d1, (const double *)A, N, (const double *)B, N,
                       &d1, (double *)C, N), BAD);
    UNTOUCHED("rejected gemm");

    /* Zero-size problems: SUCCESS, nothing read or written. */
    EXPECT(cublasSgemm(h, NT, NT, 0, N, N, &one, A, 1, B, N, &zero, C, 1), OK);
    EXPECT(cublasSgemm(h, NT, NT, N, 0, N, &one, A, N, B, N, &zero, C, N), OK);
    EXPECT(cublasSgemm(h, NT, NT, 0, 0, 0, NULL, NULL, 1, NULL, 1, NULL, NULL, 1), OK);
    UNTOUCHED("zero-size gemm");
    /* Sanity: the same valid call does write C (so UNTOUCHED can fail). */
    EXPECT(cublasSgemm(h, NT, NT, N, N, N, &one, A, N, B, N, &zero, C, N), OK);
    checks++;
    if (C[0] != 2.0f * N || C[N * N - 1] != 2.0f * N) {
        failures++;
        printf("FAIL %s:%d: valid sgemm gave C[0] = %g, want %g\n", __FILE__, __LINE__, C[0],
               2.0 * N);
    }
}

static void test_gemv_axpy(cublasHandle_t h)
{
    EXPECT(cublasSgemv(h, NT, -1, N, &one, A, N, x, 1, &zero, y, 1), BAD);
    EXPECT(cublasSgemv(h, NT, N, -1, &one, A, N, x, 1, &zero, y, 1), BAD);
    EXPECT(cublasSgemv(h, NT, N, N, &one, A, N - 1, x, 1, &zero, y, 1), BAD);
    EXPECT(cublasSgemv(h, NT, N, N, &one, A, N, x, 0, &zero, y, 1), BAD);
    EXPECT(cublasSgemv(h, NT, N, N, &one, A, N, x, 1, &zero, y, 0), BAD);
    EXPECT(cublasSgemv(h, BADOP, N, N, &one, A, N, x, 1, &zero, y, 1), BAD);
    EXPECT(cublasSgemv(h, NT, N, N, NULL, A, N, x, 1, &zero, y, 1), BAD);
    EXPECT(cublasSgemv(h, NT, N, N, &one, A, N, x, 1, NULL, y, 1), BAD);
    EXPECT(cublasSgemv(h, NT, N, N, &one, NULL, N, x, 1, &zero, y, 1), BAD);
    EXPECT(cublasSgemv(h, NT, N, N, &one, A, N, NULL, 1, &zero, y, 1), BAD);
    EXPECT(cublasSgemv(h, NT, N, N, &one, A, N, x, 1, &zero, NULL, 1), BAD);
    EXPECT(cublasSgemv(h, NT, 0, N, &one, A, 1, x, 1, &zero, y, 1), OK);
    /* axpy: n <= 0 is the BLAS quick return (SUCCESS, nothing touched). */
    EXPECT(cublasSaxpy(h, -3, &one, x, 1, y, 1), OK);
    EXPECT(cublasSaxpy(h, 0, NULL, NULL, 1, NULL, 1), OK);
    EXPECT(cublasSaxpy(h, N, NULL, x, 1, y, 1), BAD);
    EXPECT(cublasSaxpy(h, N, &one, NULL, 1, y, 1), BAD);
    EXPECT(cublasSaxpy(h, N, &one, x, 1, NULL, 1), BAD);
    UNTOUCHED("rejected gemv / axpy");
}

static void test_gemm_ex(cublasHandle_t h)
{
#define GEX(ta, tb, m, n, k, al, a, lda, b, ldb, be, c, ldc, ct)                               \
    cublasGemmEx(h, ta, tb, m, n, k, al, a, CUDA_R_32F, lda, b, CUDA_R_32F, ldb, be, c, ct,   \
                 ldc, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT)
    EXPECT(GEX(NT, NT, -1, N, N, &one, A, N, B, N, &zero, C, N, CUDA_R_32F), BAD);
    EXPECT(GEX(NT, NT, N, N, -1, &one, A, N, B, N, &zero, C, N, CUDA_R_32F), BAD);
    EXPECT(GEX(NT, NT, N, N, N, &one, A, 2, B, N, &zero, C, N, CUDA_R_32F), BAD);
    EXPECT(GEX(NT, NT, N, N, N, &one, A, N, B, 2, &zero, C, N, CUDA_R_32F), BAD);
    EXPECT(GEX(NT, NT, N, N, N, &one, A, N, B, N, &zero, C, 2, CUDA_R_32F), BAD);
    EXPECT(GEX(BADOP, NT, N, N, N, &one, A, N, B, N, &zero, C, N, CUDA_R_32F), BAD);
    EXPECT(GEX(NT, NT, N, N, N, NULL, A, N, B, N, &zero, C, N, CUDA_R_32F), BAD);
    EXPECT(GEX(NT, NT, N, N, N, &one, A, N, B, N, NULL, C, N, CUDA_R_32F), BAD);
    EXPECT(GEX(NT, NT, N, N, N, &one, NULL, N, B, N, &zero, C, N, CUDA_R_32F), BAD);
    EXPECT(GEX(NT, NT, N, N, N, &one, A, N, B, N, &zero, NULL, N, CUDA_R_32F), BAD);
    /* f32 x f32 -> f64 output with f32 compute is no combination cuBLAS has. */
    EXPECT(GEX(NT, NT, N, N, N, &one, A, N, B, N, &zero, C, N, CUDA_R_64F),
           CUBLAS_STATUS_NOT_SUPPORTED);
    EXPECT(GEX(NT, NT, 0, N, N, &one, A, 1, B, N, &zero, C, 1, CUDA_R_32F), OK);
    UNTOUCHED("rejected / zero-size GemmEx");
#undef GEX
}

/* cuBLASLt: a valid N x N f32 problem, then one thing broken at a time. */
static cublasLtMatrixLayout_t lay(uint64_t rows, uint64_t cols, int64_t ld)
{
    cublasLtMatrixLayout_t l = NULL;
    EXPECT(cublasLtMatrixLayoutCreate(&l, CUDA_R_32F, rows, cols, ld), OK);
    return l;
}

static void test_lt(void)
{
    cublasLtHandle_t lt;
    cublasLtMatmulDesc_t d;
    EXPECT(cublasLtCreate(NULL), BAD);
    EXPECT(cublasLtCreate(&lt), OK);
    EXPECT(cublasLtMatmulDescCreate(&d, CUBLAS_COMPUTE_32F, CUDA_R_32F), OK);
    cublasLtMatrixLayout_t a = lay(N, N, N), small_ld = lay(N, N, N - 1), wrong = lay(N, N - 1, N),
                           huge = lay((uint64_t)-1, N, N), empty = lay(0, N, 1);
#define MM(h, dd, al, pa, la, pb, lb, be, pc, lc, pd, ld)                                      \
    cublasLtMatmul(h, dd, al, pa, la, pb, lb, be, pc, lc, pd, ld, NULL, NULL, 0, 0)
    EXPECT(MM(NULL, d, &one, A, a, B, a, &zero, C, a, C, a), NOINIT);
    EXPECT(MM(lt, NULL, &one, A, a, B, a, &zero, C, a, C, a), BAD);
    EXPECT(MM(lt, d, &one, A, NULL, B, a, &zero, C, a, C, a), BAD);
    EXPECT(MM(lt, d, &one, A, small_ld, B, a, &zero, C, a, C, a), BAD);   /* lda < rows */
    EXPECT(MM(lt, d, &one, A, a, B, small_ld, &zero, C, a, C, a), BAD);   /* ldb < rows */
    EXPECT(MM(lt, d, &one, A, a, B, a, &zero, C, a, C, small_ld), BAD);   /* ldd < rows */
    EXPECT(MM(lt, d, &one, A, wrong, B, a, &zero, C, a, C, a), BAD);      /* k mismatch */
    EXPECT(MM(lt, d, &one, A, huge, B, a, &zero, C, huge, C, huge), BAD); /* "negative" rows */
    EXPECT(MM(lt, d, NULL, A, a, B, a, &zero, C, a, C, a), BAD);
    EXPECT(MM(lt, d, &one, A, a, B, a, NULL, C, a, C, a), BAD);
    EXPECT(MM(lt, d, &one, NULL, a, B, a, &zero, C, a, C, a), BAD);
    EXPECT(MM(lt, d, &one, A, a, NULL, a, &zero, C, a, C, a), BAD);
    EXPECT(MM(lt, d, &one, A, a, B, a, &zero, C, a, NULL, a), BAD);
    EXPECT(MM(lt, d, &one, A, a, B, a, &one, NULL, a, C, a), BAD);       /* beta != 0 needs C */
    int32_t badop = 99;
    /* An invalid operation is refused when set, or else by Matmul. */
    if (cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_TRANSA, &badop, sizeof badop) == OK)
        EXPECT(MM(lt, d, &one, A, a, B, a, &zero, C, a, C, a), BAD);
    int32_t nop = CUBLAS_OP_N;
    EXPECT(cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_TRANSA, &nop, sizeof nop), OK);
    UNTOUCHED("rejected Lt matmul");
    cublasLtMatrixLayout_t ea = lay(0, N, 1);
    EXPECT(MM(lt, d, &one, A, ea, B, a, &zero, C, empty, C, empty), OK);  /* m = 0 */
    UNTOUCHED("zero-size Lt matmul");
#undef MM
    cublasLtMatrixLayout_t all[] = { a, small_ld, wrong, huge, empty, ea };
    for (unsigned i = 0; i < sizeof all / sizeof all[0]; i++)
        EXPECT(cublasLtMatrixLayoutDestroy(all[i]), OK);
    EXPECT(cublasLtMatmulDescDestroy(d), OK);
    EXPECT(cublasLtDestroy(lt), OK);
}

int main(void)
{
    cublasHandle_t h;
    reset();
    test_handle();
    if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) {
        printf("FAIL cublasCreate\n");
        return 1;
    }
    test_pointer_mode(h);
    reset();
    test_gemm(h);
    reset();
    test_gemv_axpy(h);
    reset();
    test_gemm_ex(h);
    EXPECT(cublasDestroy(h), OK);
    reset();
    test_lt();
    printf("%s blas.badargs: %d checks, %d failures\n", failures ? "FAIL" : "PASS", checks,
           failures);
    return failures != 0;
}
