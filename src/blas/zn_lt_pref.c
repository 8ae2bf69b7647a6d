/* zn_lt_pref.c: matmul preferences and the heuristic, which offers the
 * one algorithm Zinc has (OpenBLAS on the host) whenever Matmul can run
 * the problem, so that callers that insist on >= 1 result (llm.c) go on. */
#include "zn_lt.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

static const zn_lt_field pref_fields[] = {
    { CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, offsetof(zn_lt_pref, max_workspace), 8 },
};

ZN_API cublasStatus_t cublasLtMatmulPreferenceInit_internal(cublasLtMatmulPreference_t p, size_t size)
{
    if (!p || size < sizeof(zn_lt_pref))
        return CUBLAS_STATUS_INVALID_VALUE;
    memset(p, 0, sizeof(zn_lt_pref));
    ((zn_lt_pref *)p)->magic = ZN_LT_PREF_MAGIC;
    return CUBLAS_STATUS_SUCCESS;
}

ZN_API cublasStatus_t cublasLtMatmulPreferenceCreate(cublasLtMatmulPreference_t *p)
{
    if (!p)
        return CUBLAS_STATUS_INVALID_VALUE;
    cublasLtMatmulPreference_t n = calloc(1, sizeof *n);
    if (!n)
        return CUBLAS_STATUS_ALLOC_FAILED;
    cublasLtMatmulPreferenceInit_internal(n, sizeof *n);
    *p = n;
    return CUBLAS_STATUS_SUCCESS;
}

ZN_API cublasStatus_t cublasLtMatmulPreferenceDestroy(cublasLtMatmulPreference_t p)
{
    free(p);
    return CUBLAS_STATUS_SUCCESS;
}

/* Every preference is a hint for choosing among GPU kernels: accepted;
 * the workspace limit is kept (our algorithm needs no workspace). */
ZN_API cublasStatus_t cublasLtMatmulPreferenceSetAttribute(cublasLtMatmulPreference_t p, int attr,
                                                           const void *buf, size_t size)
{
    zn_lt_pref *z = (zn_lt_pref *)p;
    if (!z || z->magic != ZN_LT_PREF_MAGIC)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (attr == CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES)
        return zn_lt_set_field(pref_fields, 1, z, attr, buf, size);
    return buf && size > 0 ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_INVALID_VALUE;
}

ZN_API cublasStatus_t cublasLtMatmulPreferenceGetAttribute(cublasLtMatmulPreference_t p, int attr,
                                                           void *buf, size_t size, size_t *written)
{
    zn_lt_pref *z = (zn_lt_pref *)p;
    if (!z || z->magic != ZN_LT_PREF_MAGIC)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    return zn_lt_get_field(pref_fields, 1, z, attr, buf, size, written);
}

ZN_API cublasStatus_t cublasLtMatmulAlgoGetHeuristic(
    cublasLtHandle_t handle, cublasLtMatmulDesc_t desc, cublasLtMatrixLayout_t a,
    cublasLtMatrixLayout_t b, cublasLtMatrixLayout_t c, cublasLtMatrixLayout_t d,
    cublasLtMatmulPreference_t pref, int requested, cublasLtMatmulHeuristicResult_t results[],
    int *returned)
{
    if (!handle)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (requested <= 0 || !results || !returned)
        return CUBLAS_STATUS_INVALID_VALUE;
    *returned = 0;
    cublasStatus_t st = zn_lt_check("cublasLtMatmulAlgoGetHeuristic", zn_lt_desc_of(desc),
                                    zn_lt_layout_of(a), zn_lt_layout_of(b), zn_lt_layout_of(c),
                                    zn_lt_layout_of(d));
    if (st != CUBLAS_STATUS_SUCCESS)
        return st;
    memset(&results[0], 0, sizeof results[0]);
    results[0].algo.data[0] = ZN_LT_ALGO_ID;
    results[0].workspaceSize = 0;
    results[0].state = CUBLAS_STATUS_SUCCESS;
    results[0].wavesCount = 1.0f;
    *returned = 1;
    return CUBLAS_STATUS_SUCCESS;
}
