/* zn_blas_mat.c: typed matrix elements as f32 (the mixed-precision paths
 * convert 16-bit inputs to f32 and compute in f32, as cuBLAS does for
 * CUBLAS_COMPUTE_32F). */
#include "zn_blas_core.h"
#include "zn_cublas_api.h"

#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

size_t zn_blas_f32_type_size(int type)
{
    switch (type) {
    case CUDA_R_32F: return 4;
    case CUDA_R_16F: return 2;
    case CUDA_R_16BF: return 2;
    default: return 0;
    }
}

static int64_t offset(int64_t i, int64_t j, int64_t ld, bool row_major)
{
    return row_major ? i * ld + j : j * ld + i;
}

float zn_blas_load(const void *p, int type, int64_t i, int64_t j, int64_t ld, bool row_major)
{
    int64_t o = offset(i, j, ld, row_major);
    switch (type) {
    case CUDA_R_16F: return zn_f16_to_f32(((const uint16_t *)p)[o]);
    case CUDA_R_16BF: return zn_bf16_to_f32(((const uint16_t *)p)[o]);
    default: return ((const float *)p)[o];
    }
}

void zn_blas_store(void *p, int type, int64_t i, int64_t j, int64_t ld, bool row_major, float v)
{
    int64_t o = offset(i, j, ld, row_major);
    switch (type) {
    case CUDA_R_16F: ((uint16_t *)p)[o] = zn_f32_to_f16(v); break;
    case CUDA_R_16BF: ((uint16_t *)p)[o] = zn_f32_to_bf16(v); break;
    default: ((float *)p)[o] = v; break;
    }
}

#if defined(__x86_64__)
/* F16C: eight exact conversions per instruction. llama.cpp's decode
 * widens its f16 V cache for every token's GemmBatchedEx; element by
 * element that was 5-6 % of a 1024-token F32 decode's samples. (An f16
 * signalling NaN comes out quiet, unlike zn_f16_to_f32's; the product
 * is NaN either way.) */
__attribute__((target("avx,f16c"))) static void f16_run_f16c(const uint16_t *s, float *d,
                                                             int64_t n)
{
    int64_t i = 0;
    for (; i + 8 <= n; i += 8)
        _mm256_storeu_ps(d + i, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(s + i))));
    for (; i < n; i++)
        d[i] = zn_f16_to_f32(s[i]);
}
#endif

/* n consecutive elements of `type` at p as floats at out */
static void run_to_f32(const void *p, int type, float *out, int64_t n)
{
    const uint16_t *h = p;
    switch (type) {
    case CUDA_R_16F:
#if defined(__x86_64__)
        if (__builtin_cpu_supports("f16c")) {
            f16_run_f16c(h, out, n);
            return;
        }
#endif
        for (int64_t i = 0; i < n; i++)
            out[i] = zn_f16_to_f32(h[i]);
        return;
    case CUDA_R_16BF:
        for (int64_t i = 0; i < n; i++)
            out[i] = zn_bf16_to_f32(h[i]);
        return;
    default:
        memcpy(out, p, (size_t)n * sizeof(float));
        return;
    }
}

float *zn_blas_to_f32(const void *p, int type, int64_t rows, int64_t cols, int64_t ld, bool row_major)
{
    float *out = malloc((size_t)(rows * cols > 0 ? rows * cols : 1) * sizeof(float));
    if (!out)
        return NULL;
    size_t esize = zn_blas_f32_type_size(type);
    for (int64_t j = 0; j < cols; j++) {
        if (!row_major) {   /* a column is a run */
            run_to_f32((const char *)p + (size_t)(j * ld) * esize, type, out + j * rows, rows);
            continue;
        }
        for (int64_t i = 0; i < rows; i++)
            out[j * rows + i] = zn_blas_load(p, type, i, j, ld, row_major);
    }
    return out;
}
