/* bench_suite.h: what every implementation of a suite benchmark shares (the
 * CUDA program run by Zinc, the C/OpenMP reference, the OpenCL kernel on
 * PoCL): problem sizes, the input pattern and the reference functions, so
 * all of them compute the same thing on the same data. */
#ifndef BENCH_SUITE_H
#define BENCH_SUITE_H

#include <stdint.h>
#include "bench_common.h"

/* Sizes: full run, then ZINC_BENCH_TINY=1 (odd sizes on purpose: the
 * bounds checks of every kernel are exercised). */
#define SZ_SAXPY      bench_size(1L << 24, 4099)
#define SZ_TRIAD      bench_size(1L << 24, 4099)
#define SZ_REDUCE     bench_size(1L << 24, 4099)
#define SZ_GEMM       ((int)bench_size(512, 48))
#define SZ_STENCIL_W  ((int)bench_size(4096, 70))
#define SZ_STENCIL_H  ((int)bench_size(4096, 37))
#define SZ_HIST       bench_size(1L << 26, 100003)
#define SZ_SOFTMAX_R  ((int)bench_size(4096, 7))
#define SZ_SOFTMAX_C  ((int)bench_size(1024, 300))
#define SZ_SCAN       bench_size(1L << 24, 5001)
#define SZ_TRANS_W    ((int)bench_size(4096, 96))
#define SZ_TRANS_H    ((int)bench_size(4096, 41))
#define SZ_NBODY      ((int)bench_size(4096, 100))
#define SZ_MMVQ_ROWS  ((int)bench_size(4096, 40))
#define SZ_MMVQ_COLS  ((int)bench_size(4096, 256))
#define SZ_MMVQ_THIN_ROWS ((int)bench_size(32000, 300))
#define SZ_LAUNCHES   ((int)bench_size(20000, 200))

#define HIST_BINS 256
#define HIST_BLOCKS 128          /* grid of the histogram kernel (grid-stride) */
#define GEMM_TILE 16
#define TRANS_TILE 32
#define NBODY_EPS2 0.01f
#define NBODY_DT 0.01f
#define NBODY_FLOPS 20.0         /* per interaction, the usual count */
#define SAXPY_A 0.5f
#define TRIAD_S 3.0f
#define MMVQ_QK 32               /* quants per block (llama.cpp's Q8_0 / Q8_1) */
#define MMVQ_X_BYTES 34          /* matrix block: half scale + 32 int8 */
#define MMVQ_Y_BYTES 36          /* vector block: half scale, half sum, 32 int8 */

/* The input pattern: a hash of the index, so any size is reproducible. */
static inline uint32_t bench_hash(uint32_t x)
{
    x ^= x >> 16;
    x *= 0x7feb352dU;
    x ^= x >> 15;
    x *= 0x846ca68bU;
    x ^= x >> 16;
    return x;
}

/* uniform in [-1, 1) */
static inline float bench_unit(uint32_t i, uint32_t seed)
{
    return (float)(bench_hash(i * 2654435761U + seed) >> 8) * (2.0f / 16777216.0f) - 1.0f;
}

/* The scale k/1024 (k = 1 + h % 64) as IEEE half bits: exact, so every
 * implementation reads the same value. */
static inline uint16_t mmvq_scale_bits(uint32_t h)
{
    uint32_t k = 1 + h % 64, e = 31 - (uint32_t)__builtin_clz(k);
    return (uint16_t)((e + 5) << 10 | (k - (1u << e)) << (10 - e));
}

/* mmvq's inputs: nx matrix blocks of MMVQ_X_BYTES (half scale, 32 int8)
 * and nb vector blocks of MMVQ_Y_BYTES (half scale, half sum 0, 32 int8),
 * little-endian as on the GPU. */
static inline void mmvq_fill(uint8_t *x, long nx, uint8_t *y, long nb)
{
    for (long b = 0; b < nx; b++) {
        uint8_t *p = x + b * MMVQ_X_BYTES;
        uint16_t d = mmvq_scale_bits(bench_hash((uint32_t)b + 11));
        p[0] = (uint8_t)d;
        p[1] = (uint8_t)(d >> 8);
        for (int i = 0; i < MMVQ_QK; i++)
            p[2 + i] = (uint8_t)bench_hash((uint32_t)(b * MMVQ_QK + i));
    }
    for (long b = 0; b < nb; b++) {
        uint8_t *p = y + b * MMVQ_Y_BYTES;
        uint16_t d = mmvq_scale_bits(bench_hash((uint32_t)b + 977));
        p[0] = (uint8_t)d;
        p[1] = (uint8_t)(d >> 8);
        p[2] = p[3] = 0;
        for (int i = 0; i < MMVQ_QK; i++)
            p[4 + i] = (uint8_t)bench_hash((uint32_t)(b * MMVQ_QK + i) ^ 0x5bd1e995u);
    }
}

static inline void bench_fill(float *x, long n, uint32_t seed)
{
    for (long i = 0; i < n; i++)
        x[i] = bench_unit((uint32_t)i, seed);
}

#ifdef __cplusplus
extern "C" {
#endif
/* ref_suite.c: the same algorithms in plain C with OpenMP. */
void ref_saxpy(long n, float a, const float *x, float *y);
void ref_triad(long n, float s, const float *b, const float *c, float *a);
void ref_block_sum(long n, const float *in, float *partial);   /* BENCH_THREADS per block */
void ref_sgemm(int n, const float *A, const float *B, float *C);   /* row-major C = A B */
void ref_stencil(int w, int h, const float *in, float *out);
void ref_histogram(long n, const unsigned char *in, unsigned *hist);
void ref_softmax(int rows, int cols, const float *in, float *out);
void ref_scan_excl(long n, const int *in, int *out);
void ref_transpose(int w, int h, const float *in, float *out);   /* in h x w, out w x h */
/* x: rows x cols/32 blocks of MMVQ_X_BYTES, y: cols/32 blocks of MMVQ_Y_BYTES */
void ref_mmvq_q8(int rows, int cols, const void *x, const void *y, float *dst);
void ref_nbody(int n, const float *pos, const float *vel, float *pos_out, float *vel_out);
/* The memory-bandwidth reference: fastest time of a parallel memcpy that
 * moves `bytes` in all (bytes / 2 read, bytes / 2 written). */
double ref_memcpy_ms(double bytes);
#ifdef __cplusplus
}
#endif

#endif
