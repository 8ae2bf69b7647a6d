/* zn_drv_batch.c: batched copies (cuMemcpyBatchAsync, cuMemcpy3DBatchAsync)
 * and batched prefetches and discards of managed memory.
 *
 * A batch is checked whole before anything is queued: a bad copy queues
 * none (the 12.8 forms say which in *failIdx; SIZE_MAX when the error is
 * not one copy's). Copies then go to the stream in order as ordinary copy
 * ops (CUDA allows any order inside a batch). A source with
 * CU_MEMCPY_SRC_ACCESS_ORDER_DURING_API_CALL is read before the call
 * returns (staged, or the copy is synchronous, like a pageable source).
 * Location hints and the overlap flag change nothing on a CPU.
 *
 * Prefetches and discards move nothing (managed memory is host memory):
 * they are checked, prefetches record their location for
 * cuMemRangeGetAttribute, and a discard leaves the contents as they are
 * (CUDA leaves them undefined). None of them may use the legacy stream.
 */
#include "zn_drv.h"
#include "../exec/zn_exec.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum {
    ORDER_STREAM = 1, ORDER_DURING_API_CALL = 2, ORDER_ANY = 3,
    FLAG_PREFER_OVERLAP = 1,
    OPERAND_POINTER = 1, OPERAND_ARRAY = 2
};

/* Not the legacy stream (the batch APIs refuse it). */
static CUresult batch_stream(CUstream h, bool pt, zn_stream **s)
{
    CUresult r = zn_stream_enter(h, pt, s);
    if (r == CUDA_SUCCESS && (*s)->kind == ZN_STREAM_LEGACY)
        r = CUDA_ERROR_INVALID_VALUE;
    return r;
}

/* attrs/attrIdxs or locs/locIdxs: n entries, the first index 0, rising,
 * each < count, n <= count. */
static bool idx_ok(const size_t *idx, size_t n, size_t count)
{
    if (!idx || n == 0 || n > count || idx[0] != 0)
        return false;
    for (size_t k = 1; k < n; k++)
        if (idx[k] <= idx[k - 1] || idx[k] >= count)
            return false;
    return true;
}

static bool order_ok(int o)
{
    return o == ORDER_STREAM || o == ORDER_DURING_API_CALL || o == ORDER_ANY;
}

static void free_ops(zn_op **ops, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(ops[i]);
    free(ops);
}

/* Queues ops[0..n) in order (zn_submit takes each); frees the array. */
static CUresult submit_all(zn_stream *s, zn_op **ops, size_t n, const bool *during)
{
    CUresult r = CUDA_SUCCESS;
    for (size_t i = 0; i < n; i++) {
        if (r != CUDA_SUCCESS) {
            free(ops[i]);
            continue;
        }
        if (during[i] && ops[i]->u.cp.src)
            ops[i]->u.cp.src_pageable = true; /* read now: staged or synchronous */
        r = zn_submit(s, ops[i], false);
    }
    free(ops);
    return r;
}

static CUresult copy_batch(CUdeviceptr *dsts, CUdeviceptr *srcs, size_t *sizes, size_t count,
                           const CUmemcpyAttributes *attrs, size_t *idx, size_t nattrs,
                           size_t *fail, CUstream h, bool pt)
{
    if (fail)
        *fail = SIZE_MAX;
    zn_stream *s;
    CUresult r = batch_stream(h, pt, &s);
    if (r != CUDA_SUCCESS)
        return r;
    if (count == 0 || !dsts || !srcs || !sizes || !attrs || !idx_ok(idx, nattrs, count))
        return CUDA_ERROR_INVALID_VALUE;
    for (size_t k = 0; k < nattrs; k++)
        if (!order_ok(attrs[k].srcAccessOrder) || (attrs[k].flags & ~(unsigned)FLAG_PREFER_OVERLAP))
            return CUDA_ERROR_INVALID_VALUE;
    zn_op **ops = calloc(count, sizeof *ops);
    bool *during = calloc(count, sizeof *during);
    if (!ops || !during) {
        free(ops);
        free(during);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    size_t k = 0;
    for (size_t i = 0; i < count && r == CUDA_SUCCESS; i++) {
        while (k + 1 < nattrs && idx[k + 1] <= i)
            k++;
        during[i] = attrs[k].srcAccessOrder == ORDER_DURING_API_CALL;
        /* unified addressing: each side is checked when it is device memory */
        CUDA_MEMCPY3D d = {
            .srcMemoryType = CU_MEMORYTYPE_UNIFIED, .srcDevice = srcs[i],
            .dstMemoryType = CU_MEMORYTYPE_UNIFIED, .dstDevice = dsts[i],
            .WidthInBytes = sizes[i], .Height = 1, .Depth = 1,
        };
        r = sizes[i] == 0 || !srcs[i] || !dsts[i] ? CUDA_ERROR_INVALID_VALUE
                                                  : zn_op_copy3d(&ops[i], &d);
        if (r != CUDA_SUCCESS && fail)
            *fail = i;
    }
    if (r != CUDA_SUCCESS) {
        free_ops(ops, count);
        free(during);
        return r;
    }
    r = submit_all(s, ops, count, during);
    free(during);
    return r;
}

/* One operand of a 3D batch copy as a side of a CUDA_MEMCPY3D; esize is
 * the copy's element size (1 between pointers, else the array's). */
static CUresult side_3d(const CUmemcpy3DOperand *o, size_t esize, const CUDA_MEMCPY3D_BATCH_OP *op, bool src,
                        CUDA_MEMCPY3D *d)
{
    if (o->type == OPERAND_ARRAY) {
        if (!zn_array_get(o->op.array.array))
            return CUDA_ERROR_INVALID_VALUE;
        CUmemorytype t = CU_MEMORYTYPE_ARRAY;
        if (src) {
            d->srcMemoryType = t;
            d->srcArray = o->op.array.array;
            d->srcXInBytes = o->op.array.x * esize;
            d->srcY = o->op.array.y;
            d->srcZ = o->op.array.z;
        } else {
            d->dstMemoryType = t;
            d->dstArray = o->op.array.array;
            d->dstXInBytes = o->op.array.x * esize;
            d->dstY = o->op.array.y;
            d->dstZ = o->op.array.z;
        }
        return CUDA_SUCCESS;
    }
    if (o->type != OPERAND_POINTER || !o->op.ptr.ptr)
        return CUDA_ERROR_INVALID_VALUE;
    size_t row = o->op.ptr.rowLength, layer = o->op.ptr.layerHeight;
    if ((row && row < op->width) || (layer && layer < op->height))
        return CUDA_ERROR_INVALID_VALUE;
    size_t pitch = (row ? row : op->width) * esize, height = layer ? layer : op->height;
    if (src) {
        d->srcMemoryType = CU_MEMORYTYPE_UNIFIED;
        d->srcDevice = o->op.ptr.ptr;
        d->srcPitch = pitch;
        d->srcHeight = height;
    } else {
        d->dstMemoryType = CU_MEMORYTYPE_UNIFIED;
        d->dstDevice = o->op.ptr.ptr;
        d->dstPitch = pitch;
        d->dstHeight = height;
    }
    return CUDA_SUCCESS;
}

static CUresult op_from_3d(const CUDA_MEMCPY3D_BATCH_OP *op, zn_op **out)
{
    if (!op->width || !op->height || !op->depth || !order_ok(op->srcAccessOrder) ||
        (op->flags & ~(unsigned)FLAG_PREFER_OVERLAP))
        return CUDA_ERROR_INVALID_VALUE;
    size_t es = 1, ed = 1;
    if (op->src.type == OPERAND_ARRAY) {
        zn_array *a = zn_array_get(op->src.op.array.array);
        if (!a)
            return CUDA_ERROR_INVALID_VALUE;
        es = a->esize;
    }
    if (op->dst.type == OPERAND_ARRAY) {
        zn_array *a = zn_array_get(op->dst.op.array.array);
        if (!a)
            return CUDA_ERROR_INVALID_VALUE;
        ed = a->esize;
    }
    if (op->src.type == OPERAND_ARRAY && op->dst.type == OPERAND_ARRAY && es != ed)
        return CUDA_ERROR_INVALID_VALUE;
    size_t esize = op->src.type == OPERAND_ARRAY ? es : ed;
    CUDA_MEMCPY3D d = { .WidthInBytes = op->width * esize, .Height = op->height,
                        .Depth = op->depth };
    CUresult r = side_3d(&op->src, esize, op, true, &d);
    if (r == CUDA_SUCCESS)
        r = side_3d(&op->dst, esize, op, false, &d);
    return r == CUDA_SUCCESS ? zn_op_copy3d(out, &d) : r;
}

static CUresult copy3d_batch(size_t n, const CUDA_MEMCPY3D_BATCH_OP *list, size_t *fail,
                             unsigned long long flags, CUstream h, bool pt)
{
    if (fail)
        *fail = SIZE_MAX;
    zn_stream *s;
    CUresult r = batch_stream(h, pt, &s);
    if (r != CUDA_SUCCESS)
        return r;
    if (n == 0 || !list || flags != 0)
        return CUDA_ERROR_INVALID_VALUE;
    zn_op **ops = calloc(n, sizeof *ops);
    bool *during = calloc(n, sizeof *during);
    if (!ops || !during) {
        free(ops);
        free(during);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    for (size_t i = 0; i < n && r == CUDA_SUCCESS; i++) {
        during[i] = list[i].srcAccessOrder == ORDER_DURING_API_CALL;
        r = op_from_3d(&list[i], &ops[i]);
        if (r != CUDA_SUCCESS && fail)
            *fail = i;
    }
    if (r != CUDA_SUCCESS) {
        free_ops(ops, n);
        free(during);
        return r;
    }
    r = submit_all(s, ops, n, during);
    free(during);
    return r;
}

/* ---- prefetch and discard batches ---- */

/* Each range must be managed memory (module variables included). */
static bool managed_range(CUdeviceptr p, size_t n)
{
    void *base;
    size_t size;
    zn_mem_kind kind;
    return p && n && zn_mem_lookup((void *)(uintptr_t)p, &base, &size, &kind) == 0 &&
           (kind == ZN_MEM_MANAGED || kind == ZN_MEM_MODULE) &&
           p - (uintptr_t)base + n <= size;
}

static CUresult mem_batch(CUdeviceptr *ptrs, size_t *sizes, size_t count, CUmemLocation *locs,
                          size_t *idx, size_t nlocs, unsigned long long flags, bool prefetch,
                          CUstream h, bool pt)
{
    zn_stream *s;
    CUresult r = batch_stream(h, pt, &s);
    if (r != CUDA_SUCCESS)
        return r;
    if (count == 0 || !ptrs || !sizes || flags != 0)
        return CUDA_ERROR_INVALID_VALUE;
    if (prefetch) {
        if (!locs || !idx_ok(idx, nlocs, count))
            return CUDA_ERROR_INVALID_VALUE;
        for (size_t k = 0; k < nlocs; k++) {
            CUmemLocation l = locs[k];
            if ((r = zn_range_check_loc(&l)) != CUDA_SUCCESS)
                return r;
        }
    }
    for (size_t i = 0; i < count; i++)
        if (!managed_range(ptrs[i], sizes[i]))
            return CUDA_ERROR_INVALID_VALUE;
    size_t k = 0;
    for (size_t i = 0; prefetch && i < count && r == CUDA_SUCCESS; i++) {
        while (k + 1 < nlocs && idx[k + 1] <= i)
            k++;
        r = zn_range_prefetched(ptrs[i], sizes[i], locs[k]);
    }
    return r;
}

/* ---- entry points: legacy and per-thread (_ptsz); 12.8 (failIdx) and
 * 13.0 (_v2) copy forms ---- */
#define BOTH(name, params, call)                                        \
    CUresult name params { const bool pt = false; ZN_RET(call); }       \
    CUresult name##_ptsz params { const bool pt = true; ZN_RET(call); }

#define COPY_ARGS CUdeviceptr *dsts, CUdeviceptr *srcs, size_t *sizes, size_t count, \
    CUmemcpyAttributes *attrs, size_t *idx, size_t nattrs
BOTH(cuMemcpyBatchAsync, (COPY_ARGS, size_t *fail, CUstream s),
     copy_batch(dsts, srcs, sizes, count, attrs, idx, nattrs, fail, s, pt))
BOTH(cuMemcpyBatchAsync_v2, (COPY_ARGS, CUstream s),
     copy_batch(dsts, srcs, sizes, count, attrs, idx, nattrs, NULL, s, pt))
BOTH(cuMemcpy3DBatchAsync, (size_t n, CUDA_MEMCPY3D_BATCH_OP *list, size_t *fail, unsigned long long flags,
                            CUstream s), copy3d_batch(n, list, fail, flags, s, pt))
BOTH(cuMemcpy3DBatchAsync_v2, (size_t n, CUDA_MEMCPY3D_BATCH_OP *list, unsigned long long flags,
                               CUstream s), copy3d_batch(n, list, NULL, flags, s, pt))

#define LOC_ARGS CUmemLocation *locs, size_t *idx, size_t nlocs
BOTH(cuMemPrefetchBatchAsync, (CUdeviceptr *p, size_t *n, size_t count, LOC_ARGS,
                               unsigned long long flags, CUstream s),
     mem_batch(p, n, count, locs, idx, nlocs, flags, true, s, pt))
BOTH(cuMemDiscardBatchAsync, (CUdeviceptr *p, size_t *n, size_t count,
                              unsigned long long flags, CUstream s),
     mem_batch(p, n, count, NULL, NULL, 0, flags, false, s, pt))
BOTH(cuMemDiscardAndPrefetchBatchAsync, (CUdeviceptr *p, size_t *n, size_t count, LOC_ARGS,
                                         unsigned long long flags, CUstream s),
     mem_batch(p, n, count, locs, idx, nlocs, flags, true, s, pt))
