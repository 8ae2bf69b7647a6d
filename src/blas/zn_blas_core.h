/* zn_blas_core.h: what libcublas and libcublasLt share (static library
 * zn_blas_core): 16-bit float conversions, typed <-> f32 matrices, the f32
 * GEMM with cuBLAS's beta = 0 rule, and the "not supported" log line. */
#ifndef ZN_BLAS_CORE_H
#define ZN_BLAS_CORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cblas.h>

/* zn_blas_half.c: IEEE binary16 and bfloat16, round to nearest even. */
float zn_f16_to_f32(uint16_t h);
uint16_t zn_f32_to_f16(float f);
float zn_bf16_to_f32(uint16_t h);
uint16_t zn_f32_to_bf16(float f);

/* zn_blas_mat.c. `type` is a cudaDataType value (R_32F, R_16F, R_16BF).
 * Bytes of one element, 0 for a type the f32 path cannot hold. */
size_t zn_blas_f32_type_size(int type);
/* Element (i, j) of a rows x cols matrix of `type` at p, column-major
 * with leading dimension ld (row-major when row_major). */
float zn_blas_load(const void *p, int type, int64_t i, int64_t j, int64_t ld, bool row_major);
void zn_blas_store(void *p, int type, int64_t i, int64_t j, int64_t ld, bool row_major, float v);
/* A dense column-major f32 copy (ld = rows) of a typed matrix; NULL when
 * out of memory. free() it. */
float *zn_blas_to_f32(const void *p, int type, int64_t rows, int64_t cols, int64_t ld, bool row_major);

/* zn_blas_gemm.c: C = alpha op(A) op(B) + beta C, column-major, with
 * trans 0 = N, else T. beta == 0 writes C without reading it (NaN in C is
 * ignored, as cuBLAS does). */
void zn_blas_sgemm(int transa, int transb, int m, int n, int k, float alpha,
                   const float *a, int lda, const float *b, int ldb, float beta,
                   float *c, int ldc);

/* cuBLAS's operation numbering (0 N, 1 T, 2 C) as CBLAS's. */
static inline enum CBLAS_TRANSPOSE zn_cblas_trans(int op)
{
    return op == 0 ? CblasNoTrans : op == 1 ? CblasTrans : CblasConjTrans;
}

/* C = alpha op(A) op(B) + beta C by CBLAS, column-major, split over the
 * worker pool when large; ops 0 = N, 1 = T, 2 = conjugate T (cuBLAS's
 * numbering). Scalars point to the element type (float, double, or the
 * complex pairs); CBLAS's rules for beta = 0. */
#define ZN_DECL_GEMM(t)                                                                      \
    void zn_blas_gemm_##t(int transa, int transb, int m, int n, int k, const void *alpha,   \
                          const void *a, int lda, const void *b, int ldb, const void *beta,  \
                          void *c, int ldc);
ZN_DECL_GEMM(s)
ZN_DECL_GEMM(d)
ZN_DECL_GEMM(c)
ZN_DECL_GEMM(z)

/* zn_blas_par.c: work on libcuda's worker pool when libcuda is Zinc's
 * (then OpenBLAS runs one thread per call), else on the calling thread.
 * Threads that run work at once: 1 without the pool or inside a part. */
unsigned zn_blas_par_workers(void);
/* The workers worth using for this many multiply-adds (1 when a hand-off
 * to the pool would cost more than it saves). */
unsigned zn_blas_par_share(double macs);
/* fn(arg, i) for every i < n; returns when all have returned. */
void zn_blas_par_for(uint64_t n, void (*fn)(void *arg, uint64_t i), void *arg);

/* One GEMM to cut into panels of C: run() multiplies a panel serially
 * (its sizes and pointers are the panel's, the rest the whole's). */
typedef struct zn_gemm_split {
    int transa, transb, m, n, k;
    const void *a;
    int lda;
    const void *b;
    int ldb;
    void *c;
    int ldc;
    const void *alpha, *beta;
    size_t elem;                /* bytes per element */
    void (*run)(const struct zn_gemm_split *panel);
} zn_gemm_split;
/* Runs s whole when small or without the pool, else its panels at once. */
void zn_blas_gemm_split(const zn_gemm_split *s);

/* zn_blas_log.c: "zinc: <fn>: <why>" at ZINC_LOG >= 1. */
void zn_blas_unsupported(const char *fn, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* zn_blas_stream.c: wait until what was queued before a BLAS call on
 * `stream` (a CUstream / cudaStream_t) has run: the whole context, since a
 * blocking stream is also ordered after the legacy default stream. */
void zn_blas_stream_sync(void *stream);
/* Queues run(copy of data) on `stream` (as a captured graph's host node
 * while the stream captures); with wait, returns once it ran (not while
 * capturing). 0 or the driver's error. */
int zn_blas_enqueue(void *stream, void (*run)(void *data), const void *data, size_t size,
                    bool wait);

/* zn_blas_status.c: name and text of a cublasStatus_t. */
const char *zn_blas_status_name(int status);
const char *zn_blas_status_string(int status);

#endif
