/* zn_cublas_api.h: Zinc's own declarations of the cuBLAS (v2) ABI types.
 *
 * Numbers and layouts are facts of NVIDIA's public ABI (cublas_api.h,
 * library_types.h of CUDA 13); the words are ours. Applications compiled
 * against NVIDIA's headers call our functions through these types, so a
 * value here must never change. The enums are plain C enums (int-sized),
 * exactly as the ABI passes them.
 */
#ifndef ZN_CUBLAS_API_H
#define ZN_CUBLAS_API_H

#include <stddef.h>
#include <stdint.h>

/* Exported API symbols; everything else stays hidden by the build. */
#define ZN_API __attribute__((visibility("default")))

typedef enum {
#define X(name, value, text) name = value,
#include "zn_cublas_status.def"
#undef X
} cublasStatus_t;

typedef enum { CUBLAS_FILL_MODE_LOWER = 0, CUBLAS_FILL_MODE_UPPER = 1, CUBLAS_FILL_MODE_FULL = 2 } cublasFillMode_t;
typedef enum { CUBLAS_DIAG_NON_UNIT = 0, CUBLAS_DIAG_UNIT = 1 } cublasDiagType_t;
typedef enum { CUBLAS_SIDE_LEFT = 0, CUBLAS_SIDE_RIGHT = 1 } cublasSideMode_t;
typedef enum { CUBLAS_OP_N = 0, CUBLAS_OP_T = 1, CUBLAS_OP_C = 2, CUBLAS_OP_CONJG = 3 } cublasOperation_t;
typedef enum { CUBLAS_POINTER_MODE_HOST = 0, CUBLAS_POINTER_MODE_DEVICE = 1 } cublasPointerMode_t;
typedef enum { CUBLAS_ATOMICS_NOT_ALLOWED = 0, CUBLAS_ATOMICS_ALLOWED = 1 } cublasAtomicsMode_t;
typedef int cublasGemmAlgo_t;   /* -1 default, 0..23, 99..115 tensor-op: all run the same here */
typedef int cublasMath_t;       /* 0 default, 1 tensor op, 2 pedantic, 3 tf32; ORed flag 16 */

/* Element types (cudaDataType): only the ones Zinc computes on are named. */
typedef enum {
    CUDA_R_32F = 0, CUDA_R_64F = 1, CUDA_R_16F = 2, CUDA_R_8I = 3,
    CUDA_C_32F = 4, CUDA_C_64F = 5, CUDA_R_32I = 10, CUDA_R_16BF = 14,
} cudaDataType;

typedef enum {
    CUBLAS_COMPUTE_16F = 64, CUBLAS_COMPUTE_16F_PEDANTIC = 65,
    CUBLAS_COMPUTE_32F = 68, CUBLAS_COMPUTE_32F_PEDANTIC = 69,
    CUBLAS_COMPUTE_64F = 70, CUBLAS_COMPUTE_64F_PEDANTIC = 71,
    CUBLAS_COMPUTE_32I = 72, CUBLAS_COMPUTE_32I_PEDANTIC = 73,
    CUBLAS_COMPUTE_32F_FAST_16F = 74, CUBLAS_COMPUTE_32F_FAST_16BF = 75,
    CUBLAS_COMPUTE_32F_FAST_TF32 = 77, CUBLAS_COMPUTE_32F_EMULATED_16BFX9 = 78,
    CUBLAS_COMPUTE_64F_EMULATED_FIXEDPOINT = 79,
} cublasComputeType_t;

typedef enum { ZN_MAJOR_VERSION = 0, ZN_MINOR_VERSION = 1, ZN_PATCH_LEVEL = 2 } libraryPropertyType;

/* What cublasGetVersion reports: the CUDA 13.1 toolkit's cuBLAS. */
#define ZN_CUBLAS_VER_MAJOR 13
#define ZN_CUBLAS_VER_MINOR 1
#define ZN_CUBLAS_VER_PATCH 0
#define ZN_CUBLAS_VERSION (ZN_CUBLAS_VER_MAJOR * 10000 + ZN_CUBLAS_VER_MINOR * 100 + ZN_CUBLAS_VER_PATCH)
#define ZN_CUDART_VERSION 13000

/* Complex numbers are {re, im} pairs, as cuComplex / cuDoubleComplex. */
typedef struct { float x, y; } __attribute__((aligned(8))) cuComplex;
typedef struct { double x, y; } __attribute__((aligned(16))) cuDoubleComplex;
typedef uint16_t zn_half;        /* __half and __nv_bfloat16 are 16-bit structs */

typedef struct cublasContext *cublasHandle_t;
typedef struct CUstream_st *cudaStream_t;
typedef void (*cublasLogCallback)(const char *msg);

#endif
