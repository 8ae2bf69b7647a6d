/* zn_drv_copy.c: cuMemcpy* and cuMemset*, synchronous and "async".
 *
 * Device memory is host memory, so every copy is a memcpy once its device
 * side has been checked: a device pointer must lie in a live allocation
 * with room for the whole copy, else CUDA_ERROR_INVALID_VALUE. Host
 * pointers cannot be checked. Each call is checked at once and becomes a
 * copy or set op submitted to its stream (zn_drv_submit.c): async forms
 * return, synchronous ones (the default stream) return when it is done.
 * Pageable host memory follows CUDA: a pageable source is staged, a
 * pageable destination makes the copy synchronous. Each operation is one
 * static function; the legacy and per-thread (_ptds/_ptsz) entry points
 * share it. A CUDA array side (CU_MEMORYTYPE_ARRAY) of a 2D/3D copy is its
 * packed host buffer (zn_drv_array.c), or for a sparse array its tiles
 * (zn_sparse_copy: non-resident ones read 0 and take no writes).
 */
#include "zn_drv.h"
#include "../exec/zn_exec.h"
#include "../exec/zn_exec_sparse.h"

#include <stdlib.h>
#include <string.h>

#define PTR(d) ((char *)(uintptr_t)(d))

static CUresult chk_dev(CUdeviceptr p, size_t n)
{
    if (n == 0)
        return CUDA_SUCCESS;
    return zn_mem_range_ok(p, n) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

static CUresult chk_host(const void *p, size_t n)
{
    return n == 0 || p ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

/* A pointer of unknown kind (unified addressing): checked only if it falls
 * inside device memory. */
static CUresult chk_any(CUdeviceptr p, size_t n)
{
    if (n == 0)
        return CUDA_SUCCESS;
    if (!p)
        return CUDA_ERROR_INVALID_VALUE;
    /* inside the device range but in no allocation (freed, never
     * allocated): not host memory either, so an error, not a fault */
    if (zn_mem_in_device_range(PTR(p)))
        return zn_mem_range_ok(p, n) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
    return CUDA_SUCCESS;
}

#define TRY(e) do { CUresult r_ = (e); if (r_ != CUDA_SUCCESS) return r_; } while (0)

/* Pageable: host memory Zinc does not know (not pinned, not registered,
 * not in the device range); CUDA copies from it synchronously or through
 * a staging buffer, and so does zn_submit. */
static bool pageable(const void *p)
{
    return !zn_mem_is_pinned(p);
}

/* ---- linear copies ---- */

static CUresult copy_linear(void *dst, const void *src, size_t n, bool dpage, bool spage,
                            CUstream h, bool pt, bool sync)
{
    zn_stream *s;
    TRY(zn_stream_enter(h, pt, &s));
    zn_op *op = zn_op_new(ZN_OP_COPY, 0);
    if (!op)
        return CUDA_ERROR_OUT_OF_MEMORY;
    op->u.cp.dst = dst;
    op->u.cp.src = src;
    op->u.cp.w = n;
    op->u.cp.h = op->u.cp.d = 1;
    op->u.cp.dst_pageable = dpage;
    op->u.cp.src_pageable = spage;
    return zn_submit(s, op, sync);
}

static CUresult copy_any(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream h, bool pt,
                         bool sync)
{
    TRY(chk_any(dst, n));
    TRY(chk_any(src, n));
    if (!n)
        return copy_linear(NULL, NULL, 0, false, false, h, pt, sync);
    return copy_linear(PTR(dst), PTR(src), n, pageable(PTR(dst)), pageable(PTR(src)), h, pt,
                       sync);
}

static CUresult copy_htod(CUdeviceptr dst, const void *src, size_t n, CUstream h, bool pt,
                          bool sync)
{
    TRY(chk_dev(dst, n));
    TRY(chk_host(src, n));
    return copy_linear(PTR(dst), src, n, false, n && pageable(src), h, pt, sync);
}

static CUresult copy_dtoh(void *dst, CUdeviceptr src, size_t n, CUstream h, bool pt,
                          bool sync)
{
    TRY(chk_dev(src, n));
    TRY(chk_host(dst, n));
    return copy_linear(dst, PTR(src), n, n && pageable(dst), false, h, pt, sync);
}

static CUresult copy_dtod(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream h, bool pt,
                          bool sync)
{
    TRY(chk_dev(dst, n));
    TRY(chk_dev(src, n));
    return copy_linear(PTR(dst), PTR(src), n, false, false, h, pt, sync);
}

static CUresult copy_peer(CUdeviceptr dst, CUcontext dctx, CUdeviceptr src,
                          CUcontext sctx, size_t n, CUstream h, bool pt, bool sync)
{
    /* NULL names the current context (NVIDIA's driver copies) */
    if ((dctx && !zn_ctx_valid(dctx)) || (sctx && !zn_ctx_valid(sctx)))
        return CUDA_ERROR_INVALID_CONTEXT;
    return copy_dtod(dst, src, n, h, pt, sync);
}

/* ---- pitched copies: all through one 3D description ---- */

typedef struct side3d {
    CUmemorytype type;
    const void *host;
    CUdeviceptr dev;
    CUarray array;
    size_t x, y, z, pitch, height;
    const zn_sparse_level *sparse; /* a sparse array side (array_base) */
} side3d;

/* A CUDA array side (zn_drv_array.c): packed rows, so its pitch and
 * height come from the array; x is in bytes, y in rows, z in slices or
 * layers, and the whole box must lie inside the array. */
static CUresult array_base(side3d *sd, size_t w, size_t h, size_t d, char **out)
{
    zn_array *a = zn_array_get(sd->array);
    if (!a)
        return CUDA_ERROR_INVALID_VALUE;
    if (sd->x + w > a->pitch || sd->y + h > a->rows || sd->z + d > a->slices)
        return CUDA_ERROR_INVALID_VALUE;
    sd->pitch = a->pitch;
    sd->height = a->rows;
    sd->sparse = zn_sparse_view(a);
    if (sd->sparse) { /* tile by tile when run (zn_sparse_copy): whole elements */
        if (sd->x % a->esize || w % a->esize)
            return CUDA_ERROR_INVALID_VALUE;
        *out = NULL;
        return CUDA_SUCCESS;
    }
    *out = (char *)a->data + (sd->z * a->rows + sd->y) * a->pitch + sd->x;
    return CUDA_SUCCESS;
}

/* Resolves one side to its first byte and checks its whole extent. */
static CUresult side_base(side3d *sd, size_t w, size_t h, size_t d, char **out,
                          bool *is_pageable)
{
    if (sd->type == CU_MEMORYTYPE_ARRAY) {
        *is_pageable = false;   /* Zinc's own memory, like device memory */
        return array_base(sd, w, h, d, out);
    }
    if (sd->type != CU_MEMORYTYPE_HOST && sd->type != CU_MEMORYTYPE_DEVICE &&
        sd->type != CU_MEMORYTYPE_UNIFIED)
        return CUDA_ERROR_INVALID_VALUE;
    if ((h > 1 || d > 1) && sd->pitch < sd->x + w)
        return CUDA_ERROR_INVALID_VALUE;
    if (d > 1 && sd->height < sd->y + h)
        return CUDA_ERROR_INVALID_VALUE;
    size_t off = (sd->z * sd->height + sd->y) * sd->pitch + sd->x;
    size_t span = ((d - 1) * sd->height + (h - 1)) * sd->pitch + w;
    if (sd->type == CU_MEMORYTYPE_HOST) {
        TRY(chk_host(sd->host, span));
        *out = (char *)sd->host + off;
    } else {
        CUresult r = sd->type == CU_MEMORYTYPE_DEVICE ? chk_dev(sd->dev + off, span)
                                                      : chk_any(sd->dev + off, span);
        TRY(r);
        *out = PTR(sd->dev) + off;
    }
    *is_pageable = sd->type != CU_MEMORYTYPE_DEVICE && pageable(*out);
    return CUDA_SUCCESS;
}

static CUresult op_3d(zn_op **out, const side3d *src0, const side3d *dst0, size_t w,
                      size_t h, size_t d)
{
    side3d s = *src0, t = *dst0; /* an array side gets its pitch and height */
    side3d *src = &s, *dst = &t;
    zn_op *op = zn_op_new(ZN_OP_COPY, 0);
    if (!op)
        return CUDA_ERROR_OUT_OF_MEMORY;
    if (w && h && d) {
        char *sp, *dp;
        CUresult r = side_base(src, w, h, d, &sp, &op->u.cp.src_pageable);
        if (r == CUDA_SUCCESS)
            r = side_base(dst, w, h, d, &dp, &op->u.cp.dst_pageable);
        if (r != CUDA_SUCCESS) {
            free(op);
            return r;
        }
        op->u.cp.src = sp;
        op->u.cp.dst = dp;
        op->u.cp.w = w;
        op->u.cp.h = h;
        op->u.cp.d = d;
        op->u.cp.spitch = src->pitch;
        op->u.cp.sslice = src->pitch * src->height;
        op->u.cp.dpitch = dst->pitch;
        op->u.cp.dslice = dst->pitch * dst->height;
        op->u.cp.ssp = src->sparse;
        op->u.cp.dsp = dst->sparse;
        size_t so[3] = {src->x, src->y, src->z}, dor[3] = {dst->x, dst->y, dst->z};
        memcpy(op->u.cp.sorg, so, sizeof so);
        memcpy(op->u.cp.dorg, dor, sizeof dor);
    }
    *out = op;
    return CUDA_SUCCESS;
}

CUresult zn_op_copy3d(zn_op **out, const CUDA_MEMCPY3D *p)
{
    if (!p)
        return CUDA_ERROR_INVALID_VALUE;
    side3d src = { p->srcMemoryType, p->srcHost, p->srcDevice, p->srcArray,
                   p->srcXInBytes, p->srcY, p->srcZ, p->srcPitch,
                   p->srcHeight ? p->srcHeight : p->srcY + p->Height, NULL };
    side3d dst = { p->dstMemoryType, p->dstHost, p->dstDevice, p->dstArray,
                   p->dstXInBytes, p->dstY, p->dstZ, p->dstPitch,
                   p->dstHeight ? p->dstHeight : p->dstY + p->Height, NULL };
    if (p->Height <= 1 && p->Depth <= 1) {
        src.pitch = src.pitch ? src.pitch : p->srcXInBytes + p->WidthInBytes;
        dst.pitch = dst.pitch ? dst.pitch : p->dstXInBytes + p->WidthInBytes;
    }
    return op_3d(out, &src, &dst, p->WidthInBytes, p->Height, p->Depth);
}

static CUresult copy_2d(const CUDA_MEMCPY2D *p, CUstream h, bool pt, bool sync)
{
    zn_stream *s;
    TRY(zn_stream_enter(h, pt, &s));
    if (!p)
        return CUDA_ERROR_INVALID_VALUE;
    side3d src = { p->srcMemoryType, p->srcHost, p->srcDevice, p->srcArray,
                   p->srcXInBytes, p->srcY, 0, p->srcPitch, p->Height + p->srcY, NULL };
    side3d dst = { p->dstMemoryType, p->dstHost, p->dstDevice, p->dstArray,
                   p->dstXInBytes, p->dstY, 0, p->dstPitch, p->Height + p->dstY, NULL };
    if (p->Height <= 1) {   /* a single row needs no pitch */
        src.pitch = src.pitch ? src.pitch : p->srcXInBytes + p->WidthInBytes;
        dst.pitch = dst.pitch ? dst.pitch : p->dstXInBytes + p->WidthInBytes;
    }
    zn_op *op;
    TRY(op_3d(&op, &src, &dst, p->WidthInBytes, p->Height, 1));
    return zn_submit(s, op, sync);
}

static CUresult copy_3dp(const CUDA_MEMCPY3D *p, CUstream h, bool pt, bool sync)
{
    zn_stream *s;
    TRY(zn_stream_enter(h, pt, &s));
    zn_op *op;
    TRY(zn_op_copy3d(&op, p));
    return zn_submit(s, op, sync);
}

/* One side of a cuMemcpy{AtoA,AtoD,AtoH,DtoA,HtoA}: host, device or array
 * memory at a byte offset. */
typedef struct side1d {
    CUmemorytype type;
    const void *host;
    CUdeviceptr dev;
    CUarray array;
    size_t off;
} side1d;

#define A1(a, o) ((side1d){ .type = CU_MEMORYTYPE_ARRAY, .array = (a), .off = (o) })
#define H1(p) ((side1d){ .type = CU_MEMORYTYPE_HOST, .host = (p) })
#define D1(p) ((side1d){ .type = CU_MEMORYTYPE_DEVICE, .dev = (p) })

/* n bytes from byte offset off of an array's first row: a 3D copy of one
 * row, which checks the array bounds (a copy past the row's end is
 * CUDA_ERROR_INVALID_VALUE). */
static CUresult copy_1d(side1d dst, side1d src, size_t n, CUstream h, bool pt, bool sync)
{
    CUDA_MEMCPY3D p = { 0 };
    p.srcMemoryType = src.type;
    p.srcHost = src.host;
    p.srcDevice = src.dev;
    p.srcArray = src.array;
    p.srcXInBytes = src.type == CU_MEMORYTYPE_ARRAY ? src.off : 0;
    p.dstMemoryType = dst.type;
    p.dstHost = (void *)dst.host;
    p.dstDevice = dst.dev;
    p.dstArray = dst.array;
    p.dstXInBytes = dst.type == CU_MEMORYTYPE_ARRAY ? dst.off : 0;
    p.WidthInBytes = n;
    p.Height = p.Depth = 1;
    return copy_3dp(&p, h, pt, sync);
}

/* CUDA_MEMCPY3D_PEER is CUDA_MEMCPY3D with the two reserved pointers
 * naming the contexts; every context is on device 0, so once both are
 * valid it is the same copy. A side that is a CUDA array ignores its
 * context (as in CUDA). */
static CUresult copy_3d_peer(const CUDA_MEMCPY3D_PEER *p, CUstream h, bool pt, bool sync)
{
    if (!p)
        return CUDA_ERROR_INVALID_VALUE;
    if ((p->srcMemoryType != CU_MEMORYTYPE_ARRAY && !zn_ctx_valid(p->srcContext)) ||
        (p->dstMemoryType != CU_MEMORYTYPE_ARRAY && !zn_ctx_valid(p->dstContext)))
        return CUDA_ERROR_INVALID_CONTEXT;
    CUDA_MEMCPY3D q;
    _Static_assert(sizeof q == sizeof *p, "CUDA_MEMCPY3D_PEER layout");
    memcpy(&q, p, sizeof q);
    q.reserved0 = q.reserved1 = NULL;
    return copy_3dp(&q, h, pt, sync);
}

/* ---- sets: elem is 1, 2 or 4 bytes; rows of w elements, h rows ---- */

CUresult zn_op_set(zn_op **out, CUdeviceptr dst, size_t pitch, uint32_t v, unsigned elem,
                   size_t w, size_t h)
{
    if (elem != 1 && elem != 2 && elem != 4)
        return CUDA_ERROR_INVALID_VALUE;
    if (w && h) {
        if (dst % elem || (h > 1 && (pitch < w * elem || pitch % elem)))
            return CUDA_ERROR_INVALID_VALUE;
        TRY(chk_dev(dst, (h - 1) * pitch + w * elem));
    }
    zn_op *op = zn_op_new(ZN_OP_SET, 0);
    if (!op)
        return CUDA_ERROR_OUT_OF_MEMORY;
    op->u.set.dst = PTR(dst);
    op->u.set.pitch = pitch;
    op->u.set.v = v;
    op->u.set.elem = elem;
    op->u.set.w = w && h ? w : 0;
    op->u.set.h = w && h ? h : 0;
    *out = op;
    return CUDA_SUCCESS;
}

static CUresult set_2d(CUdeviceptr dst, size_t pitch, uint32_t v, unsigned elem, size_t w,
                       size_t h, CUstream hs, bool pt, bool sync)
{
    zn_stream *s;
    TRY(zn_stream_enter(hs, pt, &s));
    zn_op *op;
    TRY(zn_op_set(&op, dst, pitch, v, elem, w, h));
    return zn_submit(s, op, sync);
}

/* ---- entry points ---- */

/* SYNC(name, params, call): the legacy entry point and its _ptds twin. */
#define SYNC(name, params, call)                                                      \
    CUresult name params { const bool pt = false, sync = true; ZN_RET(call); }        \
    CUresult name##_ptds params { const bool pt = true, sync = true; ZN_RET(call); }
/* ASYNC(name, params, call): the legacy entry point and its _ptsz twin. */
#define ASYNC(name, params, call)                                                     \
    CUresult name params { const bool pt = false, sync = false; ZN_RET(call); }       \
    CUresult name##_ptsz params { const bool pt = true, sync = false; ZN_RET(call); }

SYNC(cuMemcpy, (CUdeviceptr dst, CUdeviceptr src, size_t n), copy_any(dst, src, n, NULL, pt, sync))
SYNC(cuMemcpyHtoD_v2, (CUdeviceptr dst, const void *src, size_t n),
     copy_htod(dst, src, n, NULL, pt, sync))
SYNC(cuMemcpyDtoH_v2, (void *dst, CUdeviceptr src, size_t n), copy_dtoh(dst, src, n, NULL, pt, sync))
SYNC(cuMemcpyDtoD_v2, (CUdeviceptr dst, CUdeviceptr src, size_t n),
     copy_dtod(dst, src, n, NULL, pt, sync))
SYNC(cuMemcpyPeer, (CUdeviceptr dst, CUcontext dctx, CUdeviceptr src, CUcontext sctx,
                    size_t n), copy_peer(dst, dctx, src, sctx, n, NULL, pt, sync))
SYNC(cuMemcpy2D_v2, (const CUDA_MEMCPY2D *p), copy_2d(p, NULL, pt, sync))
SYNC(cuMemcpy2DUnaligned_v2, (const CUDA_MEMCPY2D *p), copy_2d(p, NULL, pt, sync))
SYNC(cuMemcpy3D_v2, (const CUDA_MEMCPY3D *p), copy_3dp(p, NULL, pt, sync))
SYNC(cuMemcpy3DPeer, (const CUDA_MEMCPY3D_PEER *p), copy_3d_peer(p, NULL, pt, sync))
SYNC(cuMemcpyAtoA_v2, (CUarray dst, size_t doff, CUarray src, size_t soff, size_t n),
     copy_1d(A1(dst, doff), A1(src, soff), n, NULL, pt, sync))
SYNC(cuMemcpyAtoD_v2, (CUdeviceptr dst, CUarray src, size_t soff, size_t n),
     copy_1d(D1(dst), A1(src, soff), n, NULL, pt, sync))
SYNC(cuMemcpyAtoH_v2, (void *dst, CUarray src, size_t soff, size_t n),
     copy_1d(H1(dst), A1(src, soff), n, NULL, pt, sync))
SYNC(cuMemcpyDtoA_v2, (CUarray dst, size_t doff, CUdeviceptr src, size_t n),
     copy_1d(A1(dst, doff), D1(src), n, NULL, pt, sync))
SYNC(cuMemcpyHtoA_v2, (CUarray dst, size_t doff, const void *src, size_t n),
     copy_1d(A1(dst, doff), H1(src), n, NULL, pt, sync))
SYNC(cuMemsetD8_v2, (CUdeviceptr dst, unsigned char v, size_t n),
     set_2d(dst, n, v, 1, n, 1, NULL, pt, sync))
SYNC(cuMemsetD16_v2, (CUdeviceptr dst, unsigned short v, size_t n),
     set_2d(dst, 2 * n, v, 2, n, 1, NULL, pt, sync))
SYNC(cuMemsetD32_v2, (CUdeviceptr dst, unsigned int v, size_t n),
     set_2d(dst, 4 * n, v, 4, n, 1, NULL, pt, sync))
SYNC(cuMemsetD2D8_v2, (CUdeviceptr dst, size_t pitch, unsigned char v, size_t w, size_t h),
     set_2d(dst, pitch, v, 1, w, h, NULL, pt, sync))
SYNC(cuMemsetD2D16_v2, (CUdeviceptr dst, size_t pitch, unsigned short v, size_t w, size_t h),
     set_2d(dst, pitch, v, 2, w, h, NULL, pt, sync))
SYNC(cuMemsetD2D32_v2, (CUdeviceptr dst, size_t pitch, unsigned int v, size_t w, size_t h),
     set_2d(dst, pitch, v, 4, w, h, NULL, pt, sync))

ASYNC(cuMemcpyAsync, (CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s),
      copy_any(dst, src, n, s, pt, sync))
ASYNC(cuMemcpyHtoDAsync_v2, (CUdeviceptr dst, const void *src, size_t n, CUstream s),
      copy_htod(dst, src, n, s, pt, sync))
ASYNC(cuMemcpyDtoHAsync_v2, (void *dst, CUdeviceptr src, size_t n, CUstream s),
      copy_dtoh(dst, src, n, s, pt, sync))
ASYNC(cuMemcpyDtoDAsync_v2, (CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s),
      copy_dtod(dst, src, n, s, pt, sync))
ASYNC(cuMemcpyPeerAsync, (CUdeviceptr dst, CUcontext dctx, CUdeviceptr src, CUcontext sctx,
                          size_t n, CUstream s), copy_peer(dst, dctx, src, sctx, n, s, pt, sync))
ASYNC(cuMemcpy2DAsync_v2, (const CUDA_MEMCPY2D *p, CUstream s), copy_2d(p, s, pt, sync))
ASYNC(cuMemcpy3DAsync_v2, (const CUDA_MEMCPY3D *p, CUstream s), copy_3dp(p, s, pt, sync))
ASYNC(cuMemcpy3DPeerAsync, (const CUDA_MEMCPY3D_PEER *p, CUstream s),
      copy_3d_peer(p, s, pt, sync))
ASYNC(cuMemcpyAtoHAsync_v2, (void *dst, CUarray src, size_t soff, size_t n, CUstream s),
      copy_1d(H1(dst), A1(src, soff), n, s, pt, sync))
ASYNC(cuMemcpyHtoAAsync_v2, (CUarray dst, size_t doff, const void *src, size_t n, CUstream s),
      copy_1d(A1(dst, doff), H1(src), n, s, pt, sync))
ASYNC(cuMemsetD8Async, (CUdeviceptr dst, unsigned char v, size_t n, CUstream s),
      set_2d(dst, n, v, 1, n, 1, s, pt, sync))
ASYNC(cuMemsetD16Async, (CUdeviceptr dst, unsigned short v, size_t n, CUstream s),
      set_2d(dst, 2 * n, v, 2, n, 1, s, pt, sync))
ASYNC(cuMemsetD32Async, (CUdeviceptr dst, unsigned int v, size_t n, CUstream s),
      set_2d(dst, 4 * n, v, 4, n, 1, s, pt, sync))
ASYNC(cuMemsetD2D8Async, (CUdeviceptr dst, size_t pitch, unsigned char v, size_t w, size_t h,
                          CUstream s), set_2d(dst, pitch, v, 1, w, h, s, pt, sync))
ASYNC(cuMemsetD2D16Async, (CUdeviceptr dst, size_t pitch, unsigned short v, size_t w,
                           size_t h, CUstream s), set_2d(dst, pitch, v, 2, w, h, s, pt, sync))
ASYNC(cuMemsetD2D32Async, (CUdeviceptr dst, size_t pitch, unsigned int v, size_t w,
                           size_t h, CUstream s), set_2d(dst, pitch, v, 4, w, h, s, pt, sync))
