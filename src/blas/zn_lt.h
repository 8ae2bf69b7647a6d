/* zn_lt.h: cuBLASLt internals shared by the files of libcublasLt.so.13:
 * what our descriptors hold (inside NVIDIA's fixed opaque sizes) and the
 * epilogue helpers. */
#ifndef ZN_LT_H
#define ZN_LT_H

#include "zn_cublaslt_api.h"
#include "zn_blas_core.h"

#include <stdbool.h>

struct cublasLtContext {
    int unused;
};

typedef struct {
    uint32_t magic;       /* ZN_LT_LAYOUT_MAGIC once created or initialized */
    int32_t type;         /* cudaDataType */
    int32_t order;        /* cublasLtOrder */
    int32_t batch_count;
    uint64_t rows, cols;
    int64_t ld;
    int64_t batch_stride; /* elements */
} zn_lt_layout;

typedef struct {
    uint32_t magic;
    int32_t compute, scale_type, pointer_mode;
    int32_t transa, transb;
    uint32_t epilogue;
    int32_t bias_type;    /* -1: D's type */
    int32_t aux_type;     /* -1: D's type */
    const void *bias;
    int64_t bias_batch_stride;
    void *aux;
    int64_t aux_ld, aux_batch_stride;
} zn_lt_desc;

typedef struct {
    uint32_t magic;
    uint64_t max_workspace;
} zn_lt_pref;

#define ZN_LT_LAYOUT_MAGIC 0x4c4e5a31u   /* "1ZNL" */
#define ZN_LT_DESC_MAGIC 0x444e5a31u
#define ZN_LT_PREF_MAGIC 0x504e5a31u
/* The one algorithm the heuristic offers; Matmul accepts it (or NULL). */
#define ZN_LT_ALGO_ID 0x5a494e43u        /* "ZINC" */

_Static_assert(sizeof(zn_lt_layout) <= sizeof(cublasLtMatrixLayoutOpaque_t), "layout fits");
_Static_assert(sizeof(zn_lt_desc) <= sizeof(cublasLtMatmulDescOpaque_t), "desc fits");
_Static_assert(sizeof(zn_lt_pref) <= sizeof(cublasLtMatmulPreferenceOpaque_t), "pref fits");

static inline zn_lt_layout *zn_lt_layout_of(cublasLtMatrixLayout_t l)
{
    zn_lt_layout *z = (zn_lt_layout *)l;
    return z && z->magic == ZN_LT_LAYOUT_MAGIC ? z : NULL;
}
static inline zn_lt_desc *zn_lt_desc_of(cublasLtMatmulDesc_t d)
{
    zn_lt_desc *z = (zn_lt_desc *)d;
    return z && z->magic == ZN_LT_DESC_MAGIC ? z : NULL;
}

/* Attribute get/set against a table of (attribute, offset, size). */
typedef struct {
    int attr;
    size_t offset, size;
} zn_lt_field;

cublasStatus_t zn_lt_set_field(const zn_lt_field *tab, size_t n, void *obj, int attr,
                               const void *buf, size_t size);
cublasStatus_t zn_lt_get_field(const zn_lt_field *tab, size_t n, const void *obj, int attr,
                               void *buf, size_t size, size_t *written);

/* zn_lt_matmul.c: whether cublasLtMatmul can run this problem (logs
 * why not under the name fn). */
cublasStatus_t zn_lt_check(const char *fn, const zn_lt_desc *d, const zn_lt_layout *a,
                           const zn_lt_layout *b, const zn_lt_layout *c, const zn_lt_layout *dl);

/* zn_lt_epilogue.c */
bool zn_lt_epilogue_supported(uint32_t epi);
float zn_lt_gelu(float x);           /* tanh approximation, as cuBLASLt */
float zn_lt_gelu_grad(float x);      /* its derivative */

#endif
