/* zn_blas_mat.c: typed matrix elements as f32 (the mixed-precision paths
 * convert 16-bit inputs to f32 and compute in f32, as cuBLAS does for
 * CUBLAS_COMPUTE_32F). */
#include "zn_blas_core.h"
#include "zn_cublas_api.h"

#include <stdlib.h>

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

float *zn_blas_to_f32(const void *p, int type, int64_t rows, int64_t cols, int64_t ld, bool row_major)
{
    float *out = malloc((size_t)(rows * cols > 0 ? rows * cols : 1) * sizeof(float));
    if (!out)
        return NULL;
    for (int64_t j = 0; j < cols; j++)
        for (int64_t i = 0; i < rows; i++)
            out[j * rows + i] = zn_blas_load(p, type, i, j, ld, row_major);
    return out;
}
