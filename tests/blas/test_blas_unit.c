/* test_blas_unit.c: Zinc's libcublas called directly on malloc'd memory
 * (device memory is host memory), every Level 1-3 routine and precision
 * checked against naive loops in double / double complex written here.
 * Built against NVIDIA's cublas_v2.h declarations, linked against ours. */
#include <cublas_v2.h>

#include <complex.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef double complex zc;
enum kind { KS, KD, KC, KZ };
static const size_t kind_size[] = { 4, 8, 8, 16 };
static const char *kind_name[] = { "S", "D", "C", "Z" };
static int failures, checks;

static zc get(enum kind k, const void *p, long i)
{
    switch (k) {
    case KS: return ((const float *)p)[i];
    case KD: return ((const double *)p)[i];
    case KC: return ((const float *)p)[2 * i] + I * ((const float *)p)[2 * i + 1];
    default: return ((const double *)p)[2 * i] + I * ((const double *)p)[2 * i + 1];
    }
}

static void set(enum kind k, void *p, long i, zc v)
{
    switch (k) {
    case KS: ((float *)p)[i] = (float)creal(v); break;
    case KD: ((double *)p)[i] = creal(v); break;
    case KC: ((float *)p)[2 * i] = (float)creal(v); ((float *)p)[2 * i + 1] = (float)cimag(v); break;
    default: ((double *)p)[2 * i] = creal(v); ((double *)p)[2 * i + 1] = cimag(v); break;
    }
}

static double frand(void)
{
    return (double)rand() / RAND_MAX * 2.0 - 1.0;
}

static void *rnd(enum kind k, long n)
{
    void *p = malloc((size_t)n * kind_size[k]);
    for (long i = 0; i < n; i++)
        set(k, p, i, k >= KC ? frand() + I * frand() : frand());
    return p;
}

static void *dup(enum kind k, const void *p, long n)
{
    void *q = malloc((size_t)n * kind_size[k]);
    memcpy(q, p, (size_t)n * kind_size[k]);
    return q;
}

static void fill_nan(enum kind k, void *p, long n)
{
    for (long i = 0; i < n; i++)
        set(k, p, i, NAN);
}

static double tol(enum kind k)
{
    return k == KS || k == KC ? 1e-5 : 1e-12;
}

/* Normwise relative error of got (n elements, stride inc) against ref. */
static void expect(const char *what, enum kind k, const void *got, long inc, const zc *ref, long n)
{
    double num = 0, den = 0;
    for (long i = 0; i < n; i++) {
        zc g = get(k, got, i * inc);
        num += cabs(g - ref[i]) * cabs(g - ref[i]);
        den += cabs(ref[i]) * cabs(ref[i]);
    }
    double err = sqrt(num) / (sqrt(den) > 1e-30 ? sqrt(den) : 1.0);
    checks++;
    if (!(err < tol(k))) {
        failures++;
        printf("FAIL %s%s: relative error %g\n", kind_name[k], what, err);
    }
}

static void expect_status(const char *what, cublasStatus_t st)
{
    checks++;
    if (st != CUBLAS_STATUS_SUCCESS) {
        failures++;
        printf("FAIL %s: status %d\n", what, st);
    }
}

/* Element (i, l) of op(A), column-major with leading dimension lda. */
static zc opel(enum kind k, const void *a, int lda, int trans, int i, int l)
{
    if (trans == CUBLAS_OP_N)
        return get(k, a, i + (long)l * lda);
    zc v = get(k, a, l + (long)i * lda);
    return trans == CUBLAS_OP_C ? conj(v) : v;
}

/* Symmetric / Hermitian / triangular element from the uplo triangle. */
static zc symel(enum kind k, const void *a, int lda, int upper, int herm, int i, int j)
{
    bool stored = upper ? i <= j : i >= j;
    zc v = stored ? get(k, a, i + (long)j * lda) : get(k, a, j + (long)i * lda);
    if (herm && !stored)
        v = conj(v);
    if (herm && i == j)
        v = creal(v);
    return v;
}

static zc triel(enum kind k, const void *a, int lda, int upper, int unit, int trans, int i, int j)
{
    int r = trans == CUBLAS_OP_N ? i : j, c = trans == CUBLAS_OP_N ? j : i;
    if (r == c && unit)
        return 1;
    if (upper ? r > c : r < c)
        return 0;
    zc v = get(k, a, r + (long)c * lda);
    return trans == CUBLAS_OP_C ? conj(v) : v;
}

static const double scal_pair[2] = { 0.7, -0.3 };

/* ---- Level 1 ---- */
#define LEVEL1(T, type, K)                                                                    \
    static void level1_##T(cublasHandle_t h)                                                  \
    {                                                                                         \
        enum kind k = K;                                                                      \
        int n = 37;                                                                           \
        type *x = rnd(k, 2 * n), *y = rnd(k, 3 * n), alpha;                                   \
        set(k, &alpha, 0, k >= KC ? 0.7 - 0.4 * I : 0.7);                                     \
        zc ref[3 * 37];                                                                       \
        for (int i = 0; i < n; i++)                                                           \
            ref[i] = get(k, &alpha, 0) * get(k, x, 2 * i) + get(k, y, 3 * i);                 \
        expect_status("axpy", cublas##T##axpy(h, n, &alpha, x, 2, y, 3));                     \
        expect("axpy", k, y, 3, ref, n);                                                      \
        for (int i = 0; i < n; i++)                                                           \
            ref[i] = get(k, &alpha, 0) * get(k, x, 2 * i);                                    \
        expect_status("scal", cublas##T##scal(h, n, &alpha, x, 2));                           \
        expect("scal", k, x, 2, ref, n);                                                      \
        for (int i = 0; i < n; i++)                                                           \
            ref[i] = get(k, x, 2 * i);                                                        \
        expect_status("copy", cublas##T##copy(h, n, x, 2, y, 3));                             \
        expect("copy", k, y, 3, ref, n);                                                      \
        type *u = rnd(k, n), *v = rnd(k, n), *u0 = dup(k, u, n), *v0 = dup(k, v, n);          \
        expect_status("swap", cublas##T##swap(h, n, u, 1, v, 1));                             \
        for (int i = 0; i < n; i++)                                                           \
            ref[i] = get(k, v0, i);                                                           \
        expect("swap", k, u, 1, ref, n);                                                      \
        for (int i = 0; i < n; i++)                                                           \
            ref[i] = get(k, u0, i);                                                           \
        expect("swap", k, v, 1, ref, n);                                                      \
        /* reductions (nrm2, asum: real results; i?amax/i?amin: 1-based) */                   \
        double nrm = 0, asum = 0, best = -1, worst = 1e300;                                   \
        int imax = 0, imin = 0;                                                               \
        for (int i = 0; i < n; i++) {                                                         \
            zc e = get(k, u, i);                                                              \
            nrm += cabs(e) * cabs(e);                                                         \
            double a1 = fabs(creal(e)) + fabs(cimag(e));                                      \
            asum += a1;                                                                       \
            if (a1 > best) { best = a1; imax = i + 1; }                                       \
            if (a1 < worst) { worst = a1; imin = i + 1; }                                     \
        }                                                                                     \
        zc r1 = sqrt(nrm), r2 = asum;                                                         \
        int im = -1, in = -1;                                                                 \
        expect_status("amax", cublasI##type##_amax(h, n, u, 1, &im));                         \
        expect_status("amin", cublasI##type##_amin(h, n, u, 1, &in));                         \
        checks++;                                                                             \
        if (im != imax || in != imin) {                                                       \
            failures++;                                                                       \
            printf("FAIL %s amax/amin: %d/%d, want %d/%d\n", #T, im, in, imax, imin);         \
        }                                                                                     \
        level1_real_##T(h, u, n, r1, r2);                                                     \
        level1_dot_##T(h, u0, v0, n);                                                         \
        free(x); free(y); free(u); free(v); free(u0); free(v0);                               \
    }

/* Name glue: I + lower-case letter. */
#define cublasIfloat_amax cublasIsamax
#define cublasIfloat_amin cublasIsamin
#define cublasIdouble_amax cublasIdamax
#define cublasIdouble_amin cublasIdamin
#define cublasIcuComplex_amax cublasIcamax
#define cublasIcuComplex_amin cublasIcamin
#define cublasIcuDoubleComplex_amax cublasIzamax
#define cublasIcuDoubleComplex_amin cublasIzamin

#define NRM_ASUM(T, type, rtype, K, NRM, ASUM)                                                \
    static void level1_real_##T(cublasHandle_t h, const type *u, int n, zc nrm, zc asum)      \
    {                                                                                         \
        rtype r = -1;                                                                         \
        expect_status("nrm2", NRM(h, n, u, 1, &r));                                           \
        expect("nrm2", K == KC ? KS : K == KZ ? KD : K, &r, 1, &nrm, 1);                      \
        expect_status("asum", ASUM(h, n, u, 1, &r));                                          \
        expect("asum", K == KC ? KS : K == KZ ? KD : K, &r, 1, &asum, 1);                     \
    }
NRM_ASUM(S, float, float, KS, cublasSnrm2, cublasSasum)
NRM_ASUM(D, double, double, KD, cublasDnrm2, cublasDasum)
NRM_ASUM(C, cuComplex, float, KC, cublasScnrm2, cublasScasum)
NRM_ASUM(Z, cuDoubleComplex, double, KZ, cublasDznrm2, cublasDzasum)

/* dot and rot; pointer mode device for the dot result. */
#define DOT_REAL(T, type, K)                                                                  \
    static void level1_dot_##T(cublasHandle_t h, const type *x, const type *y, int n)         \
    {                                                                                         \
        zc ref = 0;                                                                           \
        for (int i = 0; i < n; i++)                                                           \
            ref += get(K, x, i) * get(K, y, i);                                               \
        type *r = malloc(sizeof *r);                                                          \
        cublasSetPointerMode(h, CUBLAS_POINTER_MODE_DEVICE);                                  \
        expect_status("dot", cublas##T##dot(h, n, x, 1, y, 1, r));                            \
        cublasSetPointerMode(h, CUBLAS_POINTER_MODE_HOST);                                    \
        expect("dot", K, r, 1, &ref, 1);                                                      \
        type *a = dup(K, x, n), *b = dup(K, y, n), c = (type)scal_pair[0], s = (type)scal_pair[1]; \
        zc ra[64], rb[64];                                                                    \
        for (int i = 0; i < n; i++) {                                                         \
            ra[i] = c * get(K, x, i) + s * get(K, y, i);                                      \
            rb[i] = c * get(K, y, i) - s * get(K, x, i);                                      \
        }                                                                                     \
        expect_status("rot", cublas##T##rot(h, n, a, 1, b, 1, &c, &s));                       \
        expect("rot x", K, a, 1, ra, n);                                                      \
        expect("rot y", K, b, 1, rb, n);                                                      \
        free(r); free(a); free(b);                                                            \
    }
DOT_REAL(S, float, KS)
DOT_REAL(D, double, KD)

#define DOT_CPLX(T, type, rtype, K, RS)                                                       \
    static void level1_dot_##T(cublasHandle_t h, const type *x, const type *y, int n)         \
    {                                                                                         \
        zc ru = 0, rc = 0;                                                                    \
        for (int i = 0; i < n; i++) {                                                         \
            ru += get(K, x, i) * get(K, y, i);                                                \
            rc += conj(get(K, x, i)) * get(K, y, i);                                          \
        }                                                                                     \
        type r;                                                                               \
        expect_status("dotu", cublas##T##dotu(h, n, x, 1, y, 1, &r));                         \
        expect("dotu", K, &r, 1, &ru, 1);                                                     \
        expect_status("dotc", cublas##T##dotc(h, n, x, 1, y, 1, &r));                         \
        expect("dotc", K, &r, 1, &rc, 1);                                                     \
        rtype c = (rtype)scal_pair[0];                                                        \
        type s;                                                                               \
        set(K, &s, 0, 0.3 + 0.2 * I);                                                         \
        zc sv = get(K, &s, 0);                                                                \
        type *a = dup(K, x, n), *b = dup(K, y, n);                                            \
        zc ra[64], rb[64];                                                                    \
        for (int i = 0; i < n; i++) {                                                         \
            ra[i] = c * get(K, x, i) + sv * get(K, y, i);                                     \
            rb[i] = c * get(K, y, i) - conj(sv) * get(K, x, i);                               \
        }                                                                                     \
        expect_status("rot", cublas##T##rot(h, n, a, 1, b, 1, &c, &s));                       \
        expect("rot x", K, a, 1, ra, n);                                                      \
        expect("rot y", K, b, 1, rb, n);                                                      \
        rtype rs = (rtype)scal_pair[1];                                                       \
        memcpy(a, x, n * sizeof *a);                                                          \
        memcpy(b, y, n * sizeof *b);                                                          \
        for (int i = 0; i < n; i++) {                                                         \
            ra[i] = c * get(K, x, i) + rs * get(K, y, i);                                     \
            rb[i] = c * get(K, y, i) - rs * get(K, x, i);                                     \
        }                                                                                     \
        expect_status("srot", RS(h, n, a, 1, b, 1, &c, &rs));                                 \
        expect("srot x", K, a, 1, ra, n);                                                     \
        expect("srot y", K, b, 1, rb, n);                                                     \
        free(a); free(b);                                                                     \
    }
DOT_CPLX(C, cuComplex, float, KC, cublasCsrot)
DOT_CPLX(Z, cuDoubleComplex, double, KZ, cublasZdrot)

LEVEL1(S, float, KS)
LEVEL1(D, double, KD)
LEVEL1(C, cuComplex, KC)
LEVEL1(Z, cuDoubleComplex, KZ)

/* ---- Level 2 ---- */
#define LEVEL2(T, type, K, SYMV, GER)                                                         \
    static void level2_##T(cublasHandle_t h)                                                  \
    {                                                                                         \
        enum kind k = K;                                                                      \
        int m = 23, n = 17, lda = 29;                                                         \
        type *A = rnd(k, (long)lda * 29), *x = rnd(k, 64), *y = rnd(k, 64), alpha, beta;      \
        set(k, &alpha, 0, k >= KC ? 1.1 + 0.3 * I : 1.1);                                     \
        zc ref[64], a0 = get(k, &alpha, 0);                                                   \
        int ops = k >= KC ? 3 : 2;                                                            \
        for (int op = 0; op < ops; op++)                                                      \
            for (int bz = 0; bz < 2; bz++) {                                                  \
                set(k, &beta, 0, bz ? 0.0 : -0.5);                                            \
                int len = op == CUBLAS_OP_N ? m : n, xl = op == CUBLAS_OP_N ? n : m;          \
                if (bz)                                                                       \
                    fill_nan(k, y, 64);                                                       \
                for (int i = 0; i < len; i++) {                                               \
                    zc s = 0;                                                                 \
                    for (int l = 0; l < xl; l++)                                              \
                        s += opel(k, A, lda, op, i, l) * get(k, x, l);                        \
                    ref[i] = a0 * s + (bz ? 0 : get(k, &beta, 0) * get(k, y, 2 * i));         \
                }                                                                             \
                expect_status("gemv", cublas##T##gemv(h, op, m, n, &alpha, A, lda, x, 1,      \
                                                      &beta, y, 2));                          \
                expect(bz ? "gemv beta=0" : "gemv", k, y, 2, ref, len);                       \
            }                                                                                 \
        for (int i = 0; i < 64; i++) /* gemv left NaN between the strided elements */        \
            set(k, y, i, frand());                                                            \
        /* symv, both triangles */                                                            \
        for (int up = 0; up < 2; up++) {                                                      \
            set(k, &beta, 0, 0.25);                                                           \
            for (int i = 0; i < n; i++) {                                                     \
                zc s = 0;                                                                     \
                for (int j = 0; j < n; j++)                                                   \
                    s += symel(k, A, lda, up, 0, i, j) * get(k, x, j);                        \
                ref[i] = a0 * s + 0.25 * get(k, y, i);                                        \
            }                                                                                 \
            expect_status("symv", cublas##T##symv(h, up, n, &alpha, A, lda, x, 1, &beta, y, 1)); \
            expect("symv", k, y, 1, ref, n);                                                  \
        }                                                                                     \
        /* ger: A += alpha x y^T (complex: geru) */                                           \
        zc gref[29 * 29];                                                                     \
        for (int j = 0; j < n; j++)                                                           \
            for (int i = 0; i < m; i++)                                                       \
                gref[i + j * m] = get(k, A, i + (long)j * lda) + a0 * get(k, x, i) * get(k, y, j); \
        expect_status("ger", GER(h, m, n, &alpha, x, 1, y, 1, A, lda));                       \
        for (int j = 0; j < n; j++)                                                           \
            expect("ger", k, (char *)A + (size_t)j * lda * sizeof(type), 1, gref + j * m, m); \
        /* trmv, trsv: every uplo / op / diag */                                              \
        for (long i = 0; i < (long)lda * 29; i++) /* well conditioned for trsv */            \
            set(k, A, i, 0.2 * get(k, A, i));                                                 \
        for (int i = 0; i < n; i++)                                                           \
            set(k, A, i + (long)i * lda, 4.0 + get(k, A, i + (long)i * lda));                 \
        for (int up = 0; up < 2; up++)                                                        \
            for (int op = 0; op < ops; op++)                                                  \
                for (int unit = 0; unit < 2; unit++) {                                        \
                    type *v = dup(k, x, n);                                                   \
                    for (int i = 0; i < n; i++) {                                             \
                        zc s = 0;                                                             \
                        for (int j = 0; j < n; j++)                                           \
                            s += triel(k, A, lda, up, unit, op, i, j) * get(k, x, j);         \
                        ref[i] = s;                                                           \
                    }                                                                         \
                    expect_status("trmv", cublas##T##trmv(h, up, op, unit, n, A, lda, v, 1)); \
                    expect("trmv", k, v, 1, ref, n);                                          \
                    /* trsv undoes trmv */                                                    \
                    for (int i = 0; i < n; i++)                                               \
                        ref[i] = get(k, x, i);                                                \
                    expect_status("trsv", cublas##T##trsv(h, up, op, unit, n, A, lda, v, 1)); \
                    expect("trsv", k, v, 1, ref, n);                                          \
                    free(v);                                                                  \
                }                                                                             \
        free(A); free(x); free(y);                                                            \
    }
LEVEL2(S, float, KS, cublasSsymv, cublasSger)
LEVEL2(D, double, KD, cublasDsymv, cublasDger)
LEVEL2(C, cuComplex, KC, cublasCsymv, cublasCgeru)
LEVEL2(Z, cuDoubleComplex, KZ, cublasZsymv, cublasZgeru)

/* ---- Level 3 ---- */
#define LEVEL3(T, type, K)                                                                    \
    static void level3_##T(cublasHandle_t h)                                                  \
    {                                                                                         \
        enum kind k = K;                                                                      \
        int m = 19, n = 13, kk = 11, ld = 24, ldc = 21;                                       \
        type *A = rnd(k, 24 * 24), *B = rnd(k, 24 * 24), *C = rnd(k, 24 * 24);                \
        type *C0 = dup(k, C, 24 * 24), alpha, beta;                                           \
        set(k, &alpha, 0, k >= KC ? 0.9 - 0.2 * I : 0.9);                                     \
        zc a0 = get(k, &alpha, 0), ref[24 * 24];                                              \
        int ops = k >= KC ? 3 : 2;                                                            \
        for (int ta = 0; ta < ops; ta++)                                                      \
            for (int tb = 0; tb < ops; tb++)                                                  \
                for (int bz = 0; bz < 2; bz++) {                                              \
                    memcpy(C, C0, 24 * 24 * sizeof(type));                                    \
                    if (bz)                                                                   \
                        fill_nan(k, C, 24 * 24);                                              \
                    set(k, &beta, 0, bz ? 0.0 : 0.5);                                         \
                    for (int j = 0; j < n; j++)                                               \
                        for (int i = 0; i < m; i++) {                                         \
                            zc s = 0;                                                         \
                            for (int l = 0; l < kk; l++)                                      \
                                s += opel(k, A, ld, ta, i, l) * opel(k, B, ld, tb, l, j);     \
                            ref[i + j * m] = a0 * s + (bz ? 0 : 0.5 * get(k, C0, i + j * ldc)); \
                        }                                                                     \
                    expect_status("gemm", cublas##T##gemm(h, ta, tb, m, n, kk, &alpha, A, ld, \
                                                          B, ld, &beta, C, ldc));             \
                    for (int j = 0; j < n; j++)                                               \
                        expect(bz ? "gemm beta=0" : "gemm", k, (char *)C + (size_t)j * ldc * sizeof(type), \
                               1, ref + j * m, m);                                            \
                }                                                                             \
        /* symm: left and right, both triangles */                                            \
        set(k, &beta, 0, 0.5);                                                                \
        for (int side = 0; side < 2; side++)                                                  \
            for (int up = 0; up < 2; up++) {                                                  \
                memcpy(C, C0, 24 * 24 * sizeof(type));                                        \
                for (int j = 0; j < n; j++)                                                   \
                    for (int i = 0; i < m; i++) {                                             \
                        zc s = 0;                                                             \
                        int kl = side ? n : m;                                                \
                        for (int l = 0; l < kl; l++)                                          \
                            s += side ? get(k, B, i + l * ld) * symel(k, A, ld, up, 0, l, j)  \
                                      : symel(k, A, ld, up, 0, i, l) * get(k, B, l + j * ld); \
                        ref[i + j * m] = a0 * s + 0.5 * get(k, C0, i + j * ldc);              \
                    }                                                                         \
                expect_status("symm", cublas##T##symm(h, side, up, m, n, &alpha, A, ld, B, ld, \
                                                      &beta, C, ldc));                        \
                for (int j = 0; j < n; j++)                                                   \
                    expect("symm", k, (char *)C + (size_t)j * ldc * sizeof(type), 1, ref + j * m, m); \
            }                                                                                 \
        /* syrk / syr2k: only the uplo triangle changes */                                    \
        for (int up = 0; up < 2; up++)                                                        \
            for (int tr = 0; tr < 2; tr++)                                                    \
                for (int two = 0; two < 2; two++) {                                           \
                    memcpy(C, C0, 24 * 24 * sizeof(type));                                    \
                    for (int j = 0; j < n; j++)                                               \
                        for (int i = 0; i < n; i++) {                                         \
                            bool in = up ? i <= j : i >= j;                                   \
                            zc s = 0;                                                         \
                            for (int l = 0; l < kk; l++) {                                    \
                                zc ai = tr ? get(k, A, l + i * ld) : get(k, A, i + l * ld);   \
                                zc aj = tr ? get(k, A, l + j * ld) : get(k, A, j + l * ld);   \
                                zc bi = tr ? get(k, B, l + i * ld) : get(k, B, i + l * ld);   \
                                zc bj = tr ? get(k, B, l + j * ld) : get(k, B, j + l * ld);   \
                                s += two ? ai * bj + bi * aj : ai * aj;                       \
                            }                                                                 \
                            ref[i + j * n] = in ? a0 * s + 0.5 * get(k, C0, i + j * ldc)      \
                                                : get(k, C0, i + j * ldc);                    \
                        }                                                                     \
                    expect_status("syrk", two ? cublas##T##syr2k(h, up, tr, n, kk, &alpha, A, ld, B, \
                                                                 ld, &beta, C, ldc)           \
                                              : cublas##T##syrk(h, up, tr, n, kk, &alpha, A, ld, \
                                                                &beta, C, ldc));              \
                    for (int j = 0; j < n; j++)                                               \
                        expect(two ? "syr2k" : "syrk", k,                                     \
                               (char *)C + (size_t)j * ldc * sizeof(type), 1, ref + j * n, n); \
                }                                                                             \
        /* trmm (out of place) then trsm (in place) undoing it */                             \
        for (int i = 0; i < 24 * 24; i++)                                                     \
            set(k, A, i, 0.2 * get(k, A, i));                                                 \
        for (int i = 0; i < 24; i++)                                                          \
            set(k, A, i + i * ld, 4.0 + get(k, A, i + i * ld));                               \
        for (int side = 0; side < 2; side++)                                                  \
            for (int up = 0; up < 2; up++)                                                    \
                for (int op = 0; op < ops; op++)                                              \
                    for (int unit = 0; unit < 2; unit++) {                                    \
                        fill_nan(k, C, 24 * 24);                                              \
                        for (int j = 0; j < n; j++)                                           \
                            for (int i = 0; i < m; i++) {                                     \
                                zc s = 0;                                                     \
                                int kl = side ? n : m;                                        \
                                for (int l = 0; l < kl; l++)                                  \
                                    s += side ? get(k, B, i + l * ld) * triel(k, A, ld, up, unit, op, l, j) \
                                              : triel(k, A, ld, up, unit, op, i, l) * get(k, B, l + j * ld); \
                                ref[i + j * m] = a0 * s;                                      \
                            }                                                                 \
                        expect_status("trmm", cublas##T##trmm(h, side, up, op, unit, m, n, &alpha, \
                                                              A, ld, B, ld, C, ldc));         \
                        for (int j = 0; j < n; j++)                                           \
                            expect("trmm", k, (char *)C + (size_t)j * ldc * sizeof(type), 1,  \
                                   ref + j * m, m);                                           \
                        for (int j = 0; j < n; j++)                                           \
                            for (int i = 0; i < m; i++)                                       \
                                ref[i + j * m] = get(k, B, i + j * ld);                       \
                        expect_status("trsm", cublas##T##trsm(h, side, up, op, unit, m, n, &alpha, \
                                                              A, ld, C, ldc));                \
                        for (int j = 0; j < n; j++)                                           \
                            for (int i = 0; i < m; i++)                                       \
                                ref[i + j * m] *= a0 * a0;                                    \
                        /* trsm(alpha, trmm(alpha, B)) = alpha B */                           \
                        for (int j = 0; j < n; j++)                                           \
                            expect("trsm", k, (char *)C + (size_t)j * ldc * sizeof(type), 1,  \
                                   ref + j * m, m);                                           \
                    }                                                                         \
        free(A); free(B); free(C); free(C0);                                                  \
    }
LEVEL3(S, float, KS)
LEVEL3(D, double, KD)
LEVEL3(C, cuComplex, KC)
LEVEL3(Z, cuDoubleComplex, KZ)

/* ---- GemmEx family: bf16 / f16 / i8 inputs, strided and pointer batches ---- */
static unsigned short to_bf16(float f)
{
    unsigned u;
    memcpy(&u, &f, 4);
    return (unsigned short)((u + 0x7fff + ((u >> 16) & 1)) >> 16);
}
static float from_bf16(unsigned short h)
{
    unsigned u = (unsigned)h << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static void gemm_ex(cublasHandle_t h)
{
    int m = 20, n = 9, k = 14, ld = 24, batch = 3;
    long sa = 24 * 24, total = sa * batch;
    unsigned short *A = malloc(total * 2), *B = malloc(total * 2), *Cb = malloc(total * 2);
    float *C = malloc(total * 4);
    for (long i = 0; i < total; i++) {
        A[i] = to_bf16((float)frand());
        B[i] = to_bf16((float)frand());
        C[i] = NAN;
        Cb[i] = 0x7fc0;
    }
    float alpha = 1.5f, beta = 0.0f;
    expect_status("GemmStridedBatchedEx bf16->f32",
                  cublasGemmStridedBatchedEx(h, CUBLAS_OP_T, CUBLAS_OP_N, m, n, k, &alpha, A,
                                             CUDA_R_16BF, ld, sa, B, CUDA_R_16BF, ld, sa, &beta,
                                             C, CUDA_R_32F, ld, sa, batch, CUBLAS_COMPUTE_32F,
                                             CUBLAS_GEMM_DEFAULT));
    expect_status("GemmStridedBatchedEx bf16->bf16",
                  cublasGemmStridedBatchedEx(h, CUBLAS_OP_T, CUBLAS_OP_N, m, n, k, &alpha, A,
                                             CUDA_R_16BF, ld, sa, B, CUDA_R_16BF, ld, sa, &beta,
                                             Cb, CUDA_R_16BF, ld, sa, batch,
                                             CUBLAS_COMPUTE_32F_FAST_TF32, CUBLAS_GEMM_DEFAULT));
    for (int b = 0; b < batch; b++) {
        zc ref[24 * 24];
        float got[24 * 24];
        for (int j = 0; j < n; j++)
            for (int i = 0; i < m; i++) {
                double s = 0;
                for (int l = 0; l < k; l++)
                    s += (double)from_bf16(A[b * sa + l + i * ld]) * from_bf16(B[b * sa + l + j * ld]);
                ref[i + j * m] = alpha * s;
                got[i + j * m] = from_bf16(Cb[b * sa + i + j * ld]);
            }
        for (int j = 0; j < n; j++)
            expect(" GemmStridedBatchedEx bf16->f32", KS, C + b * sa + j * ld, 1, ref + j * m, m);
        double num = 0, den = 0;
        for (int i = 0; i < m * n; i++) {
            num += (got[i] - creal(ref[i])) * (got[i] - creal(ref[i]));
            den += creal(ref[i]) * creal(ref[i]);
        }
        checks++;
        if (!(sqrt(num / den) < 1e-2)) {
            failures++;
            printf("FAIL GemmStridedBatchedEx bf16 out: error %g\n", sqrt(num / den));
        }
    }
    /* SgemmBatched with pointer arrays and device pointer mode */
    float *fa = rnd(KS, total), *fb = rnd(KS, total), *fc = rnd(KS, total), *fc0 = dup(KS, fc, total);
    const float *pa[3], *pb[3];
    float *pc[3];
    for (int b = 0; b < batch; b++) {
        pa[b] = fa + b * sa;
        pb[b] = fb + (batch - 1 - b) * sa;
        pc[b] = fc + b * sa;
    }
    float *dalpha = malloc(4), *dbeta = malloc(4);
    *dalpha = -0.5f;
    *dbeta = 2.0f;
    cublasSetPointerMode(h, CUBLAS_POINTER_MODE_DEVICE);
    expect_status("SgemmBatched", cublasSgemmBatched(h, CUBLAS_OP_N, CUBLAS_OP_T, m, n, k, dalpha,
                                                     pa, ld, pb, ld, dbeta, pc, ld, batch));
    cublasSetPointerMode(h, CUBLAS_POINTER_MODE_HOST);
    for (int b = 0; b < batch; b++) {
        zc ref[24 * 24];
        for (int j = 0; j < n; j++)
            for (int i = 0; i < m; i++) {
                double s = 0;
                for (int l = 0; l < k; l++)
                    s += (double)pa[b][i + l * ld] * pb[b][j + l * ld];
                ref[i + j * m] = -0.5 * s + 2.0 * fc0[b * sa + i + j * ld];
            }
        for (int j = 0; j < n; j++)
            expect(" SgemmBatched", KS, pc[b] + j * ld, 1, ref + j * m, m);
    }
    /* int8 x int8 -> int32, exact */
    signed char *ia = malloc(sa), *ib = malloc(sa);
    int *ic = malloc(sa * 4);
    for (long i = 0; i < sa; i++) {
        ia[i] = (signed char)(rand() % 256 - 128);
        ib[i] = (signed char)(rand() % 256 - 128);
        ic[i] = rand() % 1000;
    }
    int ialpha = 3, ibeta = -2, *ic0 = dup(KS, ic, sa);
    expect_status("GemmEx i8", cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &ialpha, ia,
                                            CUDA_R_8I, ld, ib, CUDA_R_8I, ld, &ibeta, ic,
                                            CUDA_R_32I, ld, CUBLAS_COMPUTE_32I, CUBLAS_GEMM_DEFAULT));
    int bad = 0;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++) {
            long s = 0;
            for (int l = 0; l < k; l++)
                s += (long)ia[i + l * ld] * ib[l + j * ld];
            bad += ic[i + j * ld] != (int)(3 * s - 2 * (long)ic0[i + j * ld]);
        }
    checks++;
    if (bad) {
        failures++;
        printf("FAIL GemmEx i8: %d wrong\n", bad);
    }
    /* an unsupported combination must say so */
    checks++;
    if (cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, A, CUDA_R_16BF, ld, fb,
                     CUDA_R_32F, ld, &beta, C, CUDA_R_32F, ld, CUBLAS_COMPUTE_64F,
                     CUBLAS_GEMM_DEFAULT) != CUBLAS_STATUS_NOT_SUPPORTED) {
        failures++;
        printf("FAIL GemmEx bf16 x f32 with 64F compute: not NOT_SUPPORTED\n");
    }
    free(A); free(B); free(C); free(Cb); free(fa); free(fb); free(fc); free(fc0);
    free(dalpha); free(dbeta); free(ia); free(ib); free(ic); free(ic0);
}

int main(void)
{
    srand(1234);
    cublasHandle_t h;
    expect_status("create", cublasCreate(&h));
    level1_S(h); level1_D(h); level1_C(h); level1_Z(h);
    level2_S(h); level2_D(h); level2_C(h); level2_Z(h);
    level3_S(h); level3_D(h); level3_C(h); level3_Z(h);
    gemm_ex(h);
    float v[8] = { 1, 2, 3, 4, 5, 6, 7, 8 }, w[8] = { 0 };
    expect_status("SetVector", cublasSetVector(4, 4, v, 2, w, 1));
    checks++;
    if (w[0] != 1 || w[1] != 3 || w[3] != 7) {
        failures++;
        printf("FAIL SetVector strides\n");
    }
    checks++;
    if (strcmp(cublasGetStatusName(CUBLAS_STATUS_NOT_SUPPORTED), "CUBLAS_STATUS_NOT_SUPPORTED")) {
        failures++;
        printf("FAIL GetStatusName\n");
    }
    expect_status("destroy", cublasDestroy(h));
    printf("%s: %d checks, %d failures\n", failures ? "FAIL" : "PASS", checks, failures);
    return failures != 0;
}
