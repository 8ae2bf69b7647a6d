/* zn_cublaslt_api.h: Zinc's own declarations of the cuBLASLt ABI types
 * (numbers and layouts from NVIDIA's public cublasLt.h, CUDA 13). The
 * descriptors are "semi-opaque": applications may place them on their own
 * stack (cublasLt*Init), so ours must fit the sizes NVIDIA fixed. */
#ifndef ZN_CUBLASLT_API_H
#define ZN_CUBLASLT_API_H

#include "zn_cublas_api.h"

typedef struct { uint64_t data[8]; } cublasLtMatrixLayoutOpaque_t;
typedef struct { uint64_t data[8]; } cublasLtMatmulAlgo_t;
typedef struct { uint64_t data[32]; } cublasLtMatmulDescOpaque_t;
typedef struct { uint64_t data[8]; } cublasLtMatmulPreferenceOpaque_t;
typedef cublasLtMatrixLayoutOpaque_t *cublasLtMatrixLayout_t;
typedef cublasLtMatmulDescOpaque_t *cublasLtMatmulDesc_t;
typedef cublasLtMatmulPreferenceOpaque_t *cublasLtMatmulPreference_t;
typedef struct cublasLtContext *cublasLtHandle_t;

typedef struct {
    cublasLtMatmulAlgo_t algo;
    size_t workspaceSize;
    cublasStatus_t state;
    float wavesCount;
    int reserved[4];
} cublasLtMatmulHeuristicResult_t;

typedef void (*cublasLtLoggerCallback_t)(int level, const char *function, const char *message);

/* Matrix layout attributes, with the C type each one takes. */
typedef enum {
    CUBLASLT_MATRIX_LAYOUT_TYPE = 0,                 /* uint32_t cudaDataType */
    CUBLASLT_MATRIX_LAYOUT_ORDER = 1,                /* int32_t cublasLtOrder */
    CUBLASLT_MATRIX_LAYOUT_ROWS = 2,                 /* uint64_t */
    CUBLASLT_MATRIX_LAYOUT_COLS = 3,                 /* uint64_t */
    CUBLASLT_MATRIX_LAYOUT_LD = 4,                   /* int64_t */
    CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT = 5,          /* int32_t */
    CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET = 6, /* int64_t, in elements */
    CUBLASLT_MATRIX_LAYOUT_PLANE_OFFSET = 7,         /* int64_t */
    CUBLASLT_MATRIX_LAYOUT_BATCH_MODE = 8,           /* int32_t */
} cublasLtMatrixLayoutAttribute_t;

typedef enum { CUBLASLT_ORDER_COL = 0, CUBLASLT_ORDER_ROW = 1 } cublasLtOrder_t;

/* Matmul descriptor attributes used here. */
typedef enum {
    CUBLASLT_MATMUL_DESC_COMPUTE_TYPE = 0,          /* int32_t cublasComputeType_t */
    CUBLASLT_MATMUL_DESC_SCALE_TYPE = 1,            /* int32_t cudaDataType */
    CUBLASLT_MATMUL_DESC_POINTER_MODE = 2,          /* int32_t */
    CUBLASLT_MATMUL_DESC_TRANSA = 3,                /* int32_t cublasOperation_t */
    CUBLASLT_MATMUL_DESC_TRANSB = 4,                /* int32_t */
    CUBLASLT_MATMUL_DESC_TRANSC = 5,                /* int32_t */
    CUBLASLT_MATMUL_DESC_FILL_MODE = 6,             /* int32_t */
    CUBLASLT_MATMUL_DESC_EPILOGUE = 7,              /* uint32_t cublasLtEpilogue_t */
    CUBLASLT_MATMUL_DESC_BIAS_POINTER = 8,          /* void * */
    CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE = 10,    /* int64_t */
    CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER = 11, /* void * */
    CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD = 12,      /* int64_t */
    CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_BATCH_STRIDE = 13, /* int64_t */
    CUBLASLT_MATMUL_DESC_ALPHA_VECTOR_BATCH_STRIDE = 14, /* int64_t */
    CUBLASLT_MATMUL_DESC_SM_COUNT_TARGET = 15,      /* int32_t */
    CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_DATA_TYPE = 22, /* int32_t cudaDataType, -1 = D's */
    CUBLASLT_MATMUL_DESC_FAST_ACCUM = 25,           /* int8_t */
    CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE = 26,       /* int32_t cudaDataType, -1 = D's */
} cublasLtMatmulDescAttributes_t;

/* Epilogues: bit flags, as NVIDIA composes them. */
typedef enum {
    CUBLASLT_EPILOGUE_DEFAULT = 1,
    CUBLASLT_EPILOGUE_RELU = 2,
    CUBLASLT_EPILOGUE_RELU_AUX = 2 | 128,
    CUBLASLT_EPILOGUE_BIAS = 4,
    CUBLASLT_EPILOGUE_RELU_BIAS = 2 | 4,
    CUBLASLT_EPILOGUE_RELU_AUX_BIAS = 2 | 128 | 4,
    CUBLASLT_EPILOGUE_DRELU = 8 | 128,
    CUBLASLT_EPILOGUE_DRELU_BGRAD = 8 | 128 | 16,
    CUBLASLT_EPILOGUE_GELU = 32,
    CUBLASLT_EPILOGUE_GELU_AUX = 32 | 128,
    CUBLASLT_EPILOGUE_GELU_BIAS = 32 | 4,
    CUBLASLT_EPILOGUE_GELU_AUX_BIAS = 32 | 128 | 4,
    CUBLASLT_EPILOGUE_DGELU = 64 | 128,
    CUBLASLT_EPILOGUE_DGELU_BGRAD = 64 | 128 | 16,
    CUBLASLT_EPILOGUE_BGRADA = 256,
    CUBLASLT_EPILOGUE_BGRADB = 512,
} cublasLtEpilogue_t;

typedef enum {
    CUBLASLT_MATMUL_PREF_SEARCH_MODE = 0,
    CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES = 1,   /* uint64_t */
    CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK = 3,
    CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES = 5,
    CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES = 6,
    CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES = 7,
    CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES = 8,
    CUBLASLT_MATMUL_PREF_MAX_WAVES_COUNT = 9,
    CUBLASLT_MATMUL_PREF_IMPL_MASK = 12,
} cublasLtMatmulPreferenceAttributes_t;

#endif
