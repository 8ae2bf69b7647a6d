/* zn_lt_matmul.c: cublasLtMatmul,
 *   D = epilogue(alpha op(A) op(B) + beta C [+ bias])
 * for f32 / f16 / bf16 matrices (column- or row-major, strided batches)
 * with f32 (or 16F) compute: each batch entry is widened to f32, multiplied
 * by OpenBLAS, finished by the epilogue in f32 and rounded once to D's
 * type. Device memory is host memory; it runs on the calling thread once
 * the work queued before it has finished (zn_blas_stream.c), so it is in
 * stream order. */
#include "zn_lt.h"
#include "zn_cublas_api.h"

#include <stdlib.h>
#include <string.h>

static bool lt_type_ok(int t)
{
    return zn_blas_f32_type_size(t) != 0;
}

static bool compute_ok(int c)
{
    switch (c) {
    case CUBLAS_COMPUTE_32F: case CUBLAS_COMPUTE_32F_PEDANTIC: case CUBLAS_COMPUTE_32F_FAST_16F:
    case CUBLAS_COMPUTE_32F_FAST_16BF: case CUBLAS_COMPUTE_32F_FAST_TF32:
    case CUBLAS_COMPUTE_16F: case CUBLAS_COMPUTE_16F_PEDANTIC:
        return true;
    default:
        return false;
    }
}

static int64_t op_rows(const zn_lt_layout *l, int trans)
{
    return (int64_t)(trans == CUBLAS_OP_N ? l->rows : l->cols);
}
static int64_t op_cols(const zn_lt_layout *l, int trans)
{
    return (int64_t)(trans == CUBLAS_OP_N ? l->cols : l->rows);
}

/* Sizes past INT32_MAX are a negative int cast to uint64 (and far beyond
 * any memory here): refuse them before they overflow the ld checks. */
static bool dims_ok(const zn_lt_layout *l)
{
    return l->rows <= INT32_MAX && l->cols <= INT32_MAX;
}

static bool op_ok(int op)
{
    return op == CUBLAS_OP_N || op == CUBLAS_OP_T || op == CUBLAS_OP_C;
}

static bool ld_ok(const zn_lt_layout *l)
{
    int64_t need = l->order == CUBLASLT_ORDER_ROW ? (int64_t)l->cols : (int64_t)l->rows;
    return l->ld >= (need > 1 ? need : 1);
}

cublasStatus_t zn_lt_check(const char *fn, const zn_lt_desc *d, const zn_lt_layout *a,
                           const zn_lt_layout *b, const zn_lt_layout *c, const zn_lt_layout *dl)
{
    if (!d || !a || !b || !c || !dl)
        return CUBLAS_STATUS_INVALID_VALUE;
    if (!compute_ok(d->compute) || (d->scale_type != CUDA_R_32F && d->scale_type != CUDA_R_16F)) {
        zn_blas_unsupported(fn, "compute type %d with scale type %d is not supported",
                            d->compute, d->scale_type);
        return CUBLAS_STATUS_NOT_SUPPORTED;
    }
    if (!lt_type_ok(a->type) || !lt_type_ok(b->type) || !lt_type_ok(c->type) ||
        !lt_type_ok(dl->type) || c->type != dl->type) {
        zn_blas_unsupported(fn, "types A %d, B %d, C %d, D %d are not supported", a->type,
                            b->type, c->type, dl->type);
        return CUBLAS_STATUS_NOT_SUPPORTED;
    }
    const zn_lt_layout *all[] = { a, b, c, dl };
    for (int i = 0; i < 4; i++)
        if ((all[i]->order != CUBLASLT_ORDER_COL && all[i]->order != CUBLASLT_ORDER_ROW)) {
            zn_blas_unsupported(fn, "matrix order %d is not supported", all[i]->order);
            return CUBLAS_STATUS_NOT_SUPPORTED;
        }
    if (!zn_lt_epilogue_supported(d->epilogue)) {
        zn_blas_unsupported(fn, "epilogue %u is not supported", d->epilogue);
        return CUBLAS_STATUS_NOT_SUPPORTED;
    }
    if (d->pointer_mode != 0 && d->pointer_mode != 1) {
        zn_blas_unsupported(fn, "pointer mode %d is not supported", d->pointer_mode);
        return CUBLAS_STATUS_NOT_SUPPORTED;
    }
    if (!op_ok(d->transa) || !op_ok(d->transb))
        return CUBLAS_STATUS_INVALID_VALUE;
    for (int i = 0; i < 4; i++)
        if (!dims_ok(all[i]))
            return CUBLAS_STATUS_INVALID_VALUE;
    int64_t m = (int64_t)dl->rows, n = (int64_t)dl->cols, k = op_cols(a, d->transa);
    if (op_rows(a, d->transa) != m || op_rows(b, d->transb) != k || op_cols(b, d->transb) != n ||
        c->rows != dl->rows || c->cols != dl->cols || !ld_ok(a) || !ld_ok(b) || !ld_ok(c) ||
        !ld_ok(dl))
        return CUBLAS_STATUS_INVALID_VALUE;
    int batch = dl->batch_count;
    for (int i = 0; i < 3; i++)
        if (all[i]->batch_count != batch && all[i]->batch_count != 1)
            return CUBLAS_STATUS_INVALID_VALUE;
    return CUBLAS_STATUS_SUCCESS;
}

/* One matmul: the layouts, descriptor and scalars, resolved. */
typedef struct {
    const zn_lt_desc *d;
    const zn_lt_layout *la, *lb, *lc, *ld;
    float alpha, beta;
    int64_t m, n, k;
} lt_problem;

static float read_scale(const void *p, int type)
{
    return type == CUDA_R_16F ? zn_f16_to_f32(*(const uint16_t *)p) : *(const float *)p;
}

/* Base of batch entry b of a layout's matrix (a stride of 0 broadcasts). */
static const void *entry(const void *base, const zn_lt_layout *l, int b)
{
    if (l->batch_count == 1)
        b = 0;
    return (const char *)base + (ptrdiff_t)(b * l->batch_stride) * (ptrdiff_t)zn_blas_f32_type_size(l->type);
}

/* Sum of op(X) over the k dimension, for BGRADA (rows of op(A)) and BGRADB
 * (columns of op(B)). x is op-less f32 dense (xr x xc). */
static void bias_grad(float *out, const float *x, int64_t xr, int64_t xc, bool over_cols)
{
    int64_t len = over_cols ? xr : xc;
    for (int64_t i = 0; i < len; i++)
        out[i] = 0.0f;
    for (int64_t j = 0; j < xc; j++)
        for (int64_t i = 0; i < xr; i++)
            out[over_cols ? i : j] += x[j * xr + i];
}

static void store_vec(void *p, int type, const float *v, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        zn_blas_store(p, type, i, 0, 1, false, v[i]);
}

static cublasStatus_t matmul_one(const lt_problem *p, int b, const void *A, const void *B,
                                 const void *C, void *D)
{
    const zn_lt_desc *d = p->d;
    const zn_lt_layout *la = p->la, *lb = p->lb;
    int64_t m = p->m, n = p->n, k = p->k;
    int dtype = p->ld->type;
    int bias_type = d->bias_type >= 0 ? d->bias_type : dtype;
    int aux_type = d->aux_type >= 0 ? d->aux_type : dtype;
    uint32_t epi = d->epilogue;

    float *fa = zn_blas_to_f32(entry(A, la, b), la->type, (int64_t)la->rows, (int64_t)la->cols,
                               la->ld, la->order == CUBLASLT_ORDER_ROW);
    float *fb = zn_blas_to_f32(entry(B, lb, b), lb->type, (int64_t)lb->rows, (int64_t)lb->cols,
                               lb->ld, lb->order == CUBLASLT_ORDER_ROW);
    float *acc = malloc((size_t)(m * n > 0 ? m * n : 1) * sizeof(float));
    float *grad = malloc((size_t)(m > n ? m : n) * sizeof(float) + sizeof(float));
    cublasStatus_t st = CUBLAS_STATUS_ALLOC_FAILED;
    if (!fa || !fb || !acc || !grad)
        goto out;

    zn_blas_sgemm(d->transa != CUBLAS_OP_N, d->transb != CUBLAS_OP_N, (int)m, (int)n, (int)k,
                  p->alpha, fa, (int)(la->rows > 1 ? la->rows : 1), fb,
                  (int)(lb->rows > 1 ? lb->rows : 1), 0.0f, acc, (int)(m > 1 ? m : 1));
    if (p->beta != 0.0f) {
        const void *c = entry(C, p->lc, b);
        bool row = p->lc->order == CUBLASLT_ORDER_ROW;
        for (int64_t j = 0; j < n; j++)
            for (int64_t i = 0; i < m; i++)
                acc[j * m + i] += p->beta * zn_blas_load(c, p->lc->type, i, j, p->lc->ld, row);
    }

    const char *bias = d->bias ? (const char *)d->bias + (ptrdiff_t)(b * d->bias_batch_stride) *
                                     (ptrdiff_t)zn_blas_f32_type_size(bias_type)
                               : NULL;
    char *aux = d->aux ? (char *)d->aux + (ptrdiff_t)(b * d->aux_batch_stride) *
                             (ptrdiff_t)zn_blas_f32_type_size(aux_type)
                       : NULL;
    bool add_bias = (epi & CUBLASLT_EPILOGUE_BIAS) && !(epi & 16);
    bool want_aux = (epi & 128) != 0;
    if ((add_bias && !bias) || (want_aux && (!aux || d->aux_ld < m)) ||
        ((epi & 16 || epi & (256 | 512)) && !d->bias)) {
        st = CUBLAS_STATUS_INVALID_VALUE;
        goto out;
    }
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < m; i++) {
            float v = acc[j * m + i];
            if (add_bias)
                v += zn_blas_load(bias, bias_type, i, 0, 1, false);
            if (epi & 64) {              /* DGELU: gradient times gelu'(aux) */
                v *= zn_lt_gelu_grad(zn_blas_load(aux, aux_type, i, j, d->aux_ld, false));
            } else if (epi & 32) {       /* GELU, keeping its input when AUX */
                if (want_aux)
                    zn_blas_store(aux, aux_type, i, j, d->aux_ld, false, v);
                v = zn_lt_gelu(v);
            } else if (epi & 2) {
                v = v > 0.0f ? v : 0.0f;
            }
            acc[j * m + i] = v;
        }
    if (epi & 16) {                      /* DGELU_BGRAD: row sums of the result */
        bias_grad(grad, acc, m, n, true);
        store_vec((void *)bias, bias_type, grad, m);
    } else if (epi & 256) {              /* BGRADA: sums of op(A) over k */
        bias_grad(grad, fa, (int64_t)la->rows, (int64_t)la->cols, d->transa == CUBLAS_OP_N);
        store_vec((void *)bias, bias_type, grad, m);
    } else if (epi & 512) {              /* BGRADB: sums of op(B) over k */
        bias_grad(grad, fb, (int64_t)lb->rows, (int64_t)lb->cols, d->transb != CUBLAS_OP_N);
        store_vec((void *)bias, bias_type, grad, n);
    }
    bool drow = p->ld->order == CUBLASLT_ORDER_ROW;
    void *dp = (void *)entry(D, p->ld, b);
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < m; i++)
            zn_blas_store(dp, dtype, i, j, p->ld->ld, drow, acc[j * m + i]);
    st = CUBLAS_STATUS_SUCCESS;
out:
    free(fa);
    free(fb);
    free(acc);
    free(grad);
    return st;
}

/* A matmul queued on its stream (zn_blas_stream.c), descriptors copied. */
typedef struct lt_queued {
    zn_lt_desc d;
    zn_lt_layout la, lb, lc, ld;
    lt_problem p;
    const void *A, *B, *C;
    void *D;
} lt_queued;

static void run_queued(void *data)
{
    lt_queued *q = data;
    q->p.d = &q->d;
    q->p.la = &q->la;
    q->p.lb = &q->lb;
    q->p.lc = &q->lc;
    q->p.ld = &q->ld;
    for (int b = 0; b < q->ld.batch_count; b++) {
        cublasStatus_t st = matmul_one(&q->p, b, q->A, q->B, q->C, q->D);
        if (st != CUBLAS_STATUS_SUCCESS) {
            zn_blas_unsupported("cublasLtMatmul", "failed when it ran: %s",
                                zn_blas_status_name(st));
            return;
        }
    }
}

ZN_API cublasStatus_t cublasLtMatmul(cublasLtHandle_t handle, cublasLtMatmulDesc_t desc,
                                     const void *alpha, const void *A, cublasLtMatrixLayout_t ad,
                                     const void *B, cublasLtMatrixLayout_t bd, const void *beta,
                                     const void *C, cublasLtMatrixLayout_t cd, void *D,
                                     cublasLtMatrixLayout_t dd, const cublasLtMatmulAlgo_t *algo,
                                     void *workspace, size_t workspace_size, cudaStream_t stream)
{
    if (!handle)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    lt_problem p = { .d = zn_lt_desc_of(desc), .la = zn_lt_layout_of(ad),
                     .lb = zn_lt_layout_of(bd), .lc = zn_lt_layout_of(cd),
                     .ld = zn_lt_layout_of(dd) };
    cublasStatus_t st = zn_lt_check("cublasLtMatmul", p.d, p.la, p.lb, p.lc, p.ld);
    if (st != CUBLAS_STATUS_SUCCESS)
        return st;
    if (algo && algo->data[0] != ZN_LT_ALGO_ID) {
        zn_blas_unsupported("cublasLtMatmul", "algorithm %#llx was not made by Zinc's heuristic",
                            (unsigned long long)algo->data[0]);
        return CUBLAS_STATUS_INVALID_VALUE;
    }
    if (!alpha || !beta || !A || !B || !D)
        return CUBLAS_STATUS_INVALID_VALUE;
    p.alpha = read_scale(alpha, p.d->scale_type);
    p.beta = read_scale(beta, p.d->scale_type);
    if (p.beta != 0.0f && !C)
        return CUBLAS_STATUS_INVALID_VALUE;
    p.m = (int64_t)p.ld->rows;
    p.n = (int64_t)p.ld->cols;
    p.k = op_cols(p.la, p.d->transa);
    if (p.m == 0 || p.n == 0)
        return CUBLAS_STATUS_SUCCESS;
    /* the descriptors may be destroyed once this returns: copy them */
    lt_queued q = { .d = *p.d, .la = *p.la, .lb = *p.lb, .lc = *p.lc, .ld = *p.ld, .p = p,
                    .A = A, .B = B, .C = C, .D = D };
    return zn_blas_enqueue(stream, run_queued, &q, sizeof q, false)
               ? CUBLAS_STATUS_EXECUTION_FAILED
               : CUBLAS_STATUS_SUCCESS;
}
