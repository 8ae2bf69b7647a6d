/* zn_drv_copy.c: cuMemcpy* and cuMemset*, synchronous and "async".
 *
 * Device memory is host memory, so every copy is a memcpy once its device
 * side has been checked: a device pointer must lie in a live allocation
 * with room for the whole copy, else CUDA_ERROR_INVALID_VALUE. Host
 * pointers cannot be checked. Async forms check their stream and then run
 * at once, which keeps stream order trivially. Each operation is one static
 * function; the legacy and per-thread (_ptds/_ptsz) entry points share it.
 */
#include "zn_drv.h"

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
    return zn_mem_range_ok(p, 1) && !zn_mem_range_ok(p, n) ? CUDA_ERROR_INVALID_VALUE
                                                            : CUDA_SUCCESS;
}

static CUresult enter(CUstream s)
{
    zn_ctx *c;
    CUresult r = zn_ctx_enter(&c);
    if (r != CUDA_SUCCESS)
        return r;
    return zn_stream_valid(s) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

#define TRY(e) do { CUresult r_ = (e); if (r_ != CUDA_SUCCESS) return r_; } while (0)

/* ---- linear copies ---- */

static CUresult copy_any(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s)
{
    TRY(enter(s));
    TRY(chk_any(dst, n));
    TRY(chk_any(src, n));
    if (n)
        memmove(PTR(dst), PTR(src), n);
    return CUDA_SUCCESS;
}

static CUresult copy_htod(CUdeviceptr dst, const void *src, size_t n, CUstream s)
{
    TRY(enter(s));
    TRY(chk_dev(dst, n));
    TRY(chk_host(src, n));
    if (n)
        memcpy(PTR(dst), src, n);
    return CUDA_SUCCESS;
}

static CUresult copy_dtoh(void *dst, CUdeviceptr src, size_t n, CUstream s)
{
    TRY(enter(s));
    TRY(chk_dev(src, n));
    TRY(chk_host(dst, n));
    if (n)
        memcpy(dst, PTR(src), n);
    return CUDA_SUCCESS;
}

static CUresult copy_dtod(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s)
{
    TRY(enter(s));
    TRY(chk_dev(dst, n));
    TRY(chk_dev(src, n));
    if (n)
        memmove(PTR(dst), PTR(src), n);
    return CUDA_SUCCESS;
}

static CUresult copy_peer(CUdeviceptr dst, CUcontext dctx, CUdeviceptr src,
                          CUcontext sctx, size_t n, CUstream s)
{
    if (!zn_ctx_valid(dctx) || !zn_ctx_valid(sctx))
        return CUDA_ERROR_INVALID_CONTEXT;
    return copy_dtod(dst, src, n, s);
}

/* ---- pitched copies: one row at a time, all through copy_3d ---- */

typedef struct side3d {
    CUmemorytype type;
    const void *host;
    CUdeviceptr dev;
    CUarray array;
    size_t x, y, z, pitch, height;
} side3d;

/* Resolves one side to its first byte and checks its whole extent. */
static CUresult side_base(const side3d *sd, size_t w, size_t h, size_t d, char **out)
{
    if (sd->type == CU_MEMORYTYPE_ARRAY)
        return CUDA_ERROR_NOT_SUPPORTED;    /* CUDA arrays are not implemented */
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
    return CUDA_SUCCESS;
}

static CUresult copy_3d(const side3d *src, const side3d *dst, size_t w, size_t h,
                        size_t d, CUstream s)
{
    TRY(enter(s));
    if (w == 0 || h == 0 || d == 0)
        return CUDA_SUCCESS;
    char *sp, *dp;
    TRY(side_base(src, w, h, d, &sp));
    TRY(side_base(dst, w, h, d, &dp));
    for (size_t z = 0; z < d; z++)
        for (size_t y = 0; y < h; y++)
            memmove(dp + (z * dst->height + y) * dst->pitch,
                    sp + (z * src->height + y) * src->pitch, w);
    return CUDA_SUCCESS;
}

static CUresult copy_2d(const CUDA_MEMCPY2D *p, CUstream s)
{
    if (!p)
        return CUDA_ERROR_INVALID_VALUE;
    side3d src = { p->srcMemoryType, p->srcHost, p->srcDevice, p->srcArray,
                   p->srcXInBytes, p->srcY, 0, p->srcPitch, p->Height + p->srcY };
    side3d dst = { p->dstMemoryType, p->dstHost, p->dstDevice, p->dstArray,
                   p->dstXInBytes, p->dstY, 0, p->dstPitch, p->Height + p->dstY };
    if (p->Height <= 1) {   /* a single row needs no pitch */
        src.pitch = src.pitch ? src.pitch : p->srcXInBytes + p->WidthInBytes;
        dst.pitch = dst.pitch ? dst.pitch : p->dstXInBytes + p->WidthInBytes;
    }
    return copy_3d(&src, &dst, p->WidthInBytes, p->Height, 1, s);
}

static CUresult copy_3dp(const CUDA_MEMCPY3D *p, CUstream s)
{
    if (!p)
        return CUDA_ERROR_INVALID_VALUE;
    side3d src = { p->srcMemoryType, p->srcHost, p->srcDevice, p->srcArray,
                   p->srcXInBytes, p->srcY, p->srcZ, p->srcPitch,
                   p->srcHeight ? p->srcHeight : p->srcY + p->Height };
    side3d dst = { p->dstMemoryType, p->dstHost, p->dstDevice, p->dstArray,
                   p->dstXInBytes, p->dstY, p->dstZ, p->dstPitch,
                   p->dstHeight ? p->dstHeight : p->dstY + p->Height };
    if (p->Height <= 1 && p->Depth <= 1) {
        src.pitch = src.pitch ? src.pitch : p->srcXInBytes + p->WidthInBytes;
        dst.pitch = dst.pitch ? dst.pitch : p->dstXInBytes + p->WidthInBytes;
    }
    return copy_3d(&src, &dst, p->WidthInBytes, p->Height, p->Depth, s);
}

/* ---- sets: elem is 1, 2 or 4 bytes; rows of w elements, h rows ---- */

static CUresult set_2d(CUdeviceptr dst, size_t pitch, uint32_t v, unsigned elem, size_t w,
                       size_t h, CUstream s)
{
    TRY(enter(s));
    if (w == 0 || h == 0)
        return CUDA_SUCCESS;
    if (dst % elem || (h > 1 && (pitch < w * elem || pitch % elem)))
        return CUDA_ERROR_INVALID_VALUE;
    TRY(chk_dev(dst, (h - 1) * pitch + w * elem));
    for (size_t y = 0; y < h; y++) {
        char *row = PTR(dst) + y * pitch;
        if (elem == 1) {
            memset(row, (int)(v & 0xff), w);
        } else if (elem == 2) {
            uint16_t x = (uint16_t)v;
            for (size_t i = 0; i < w; i++)
                memcpy(row + 2 * i, &x, 2);
        } else {
            for (size_t i = 0; i < w; i++)
                memcpy(row + 4 * i, &v, 4);
        }
    }
    return CUDA_SUCCESS;
}

/* ---- entry points ---- */

/* SYNC(name, params, call): the legacy entry point and its _ptds twin. */
#define SYNC(name, params, call)                \
    CUresult name params { ZN_RET(call); }      \
    CUresult name##_ptds params { ZN_RET(call); }
/* ASYNC(name, params, call): the legacy entry point and its _ptsz twin. */
#define ASYNC(name, params, call)               \
    CUresult name params { ZN_RET(call); }      \
    CUresult name##_ptsz params { ZN_RET(call); }

SYNC(cuMemcpy, (CUdeviceptr dst, CUdeviceptr src, size_t n), copy_any(dst, src, n, NULL))
SYNC(cuMemcpyHtoD_v2, (CUdeviceptr dst, const void *src, size_t n),
     copy_htod(dst, src, n, NULL))
SYNC(cuMemcpyDtoH_v2, (void *dst, CUdeviceptr src, size_t n), copy_dtoh(dst, src, n, NULL))
SYNC(cuMemcpyDtoD_v2, (CUdeviceptr dst, CUdeviceptr src, size_t n),
     copy_dtod(dst, src, n, NULL))
SYNC(cuMemcpyPeer, (CUdeviceptr dst, CUcontext dctx, CUdeviceptr src, CUcontext sctx,
                    size_t n), copy_peer(dst, dctx, src, sctx, n, NULL))
SYNC(cuMemcpy2D_v2, (const CUDA_MEMCPY2D *p), copy_2d(p, NULL))
SYNC(cuMemcpy2DUnaligned_v2, (const CUDA_MEMCPY2D *p), copy_2d(p, NULL))
SYNC(cuMemcpy3D_v2, (const CUDA_MEMCPY3D *p), copy_3dp(p, NULL))
SYNC(cuMemsetD8_v2, (CUdeviceptr dst, unsigned char v, size_t n),
     set_2d(dst, n, v, 1, n, 1, NULL))
SYNC(cuMemsetD16_v2, (CUdeviceptr dst, unsigned short v, size_t n),
     set_2d(dst, 2 * n, v, 2, n, 1, NULL))
SYNC(cuMemsetD32_v2, (CUdeviceptr dst, unsigned int v, size_t n),
     set_2d(dst, 4 * n, v, 4, n, 1, NULL))
SYNC(cuMemsetD2D8_v2, (CUdeviceptr dst, size_t pitch, unsigned char v, size_t w, size_t h),
     set_2d(dst, pitch, v, 1, w, h, NULL))
SYNC(cuMemsetD2D16_v2, (CUdeviceptr dst, size_t pitch, unsigned short v, size_t w, size_t h),
     set_2d(dst, pitch, v, 2, w, h, NULL))
SYNC(cuMemsetD2D32_v2, (CUdeviceptr dst, size_t pitch, unsigned int v, size_t w, size_t h),
     set_2d(dst, pitch, v, 4, w, h, NULL))

ASYNC(cuMemcpyAsync, (CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s),
      copy_any(dst, src, n, s))
ASYNC(cuMemcpyHtoDAsync_v2, (CUdeviceptr dst, const void *src, size_t n, CUstream s),
      copy_htod(dst, src, n, s))
ASYNC(cuMemcpyDtoHAsync_v2, (void *dst, CUdeviceptr src, size_t n, CUstream s),
      copy_dtoh(dst, src, n, s))
ASYNC(cuMemcpyDtoDAsync_v2, (CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s),
      copy_dtod(dst, src, n, s))
ASYNC(cuMemcpyPeerAsync, (CUdeviceptr dst, CUcontext dctx, CUdeviceptr src, CUcontext sctx,
                          size_t n, CUstream s), copy_peer(dst, dctx, src, sctx, n, s))
ASYNC(cuMemcpy2DAsync_v2, (const CUDA_MEMCPY2D *p, CUstream s), copy_2d(p, s))
ASYNC(cuMemcpy3DAsync_v2, (const CUDA_MEMCPY3D *p, CUstream s), copy_3dp(p, s))
ASYNC(cuMemsetD8Async, (CUdeviceptr dst, unsigned char v, size_t n, CUstream s),
      set_2d(dst, n, v, 1, n, 1, s))
ASYNC(cuMemsetD16Async, (CUdeviceptr dst, unsigned short v, size_t n, CUstream s),
      set_2d(dst, 2 * n, v, 2, n, 1, s))
ASYNC(cuMemsetD32Async, (CUdeviceptr dst, unsigned int v, size_t n, CUstream s),
      set_2d(dst, 4 * n, v, 4, n, 1, s))
ASYNC(cuMemsetD2D8Async, (CUdeviceptr dst, size_t pitch, unsigned char v, size_t w, size_t h,
                          CUstream s), set_2d(dst, pitch, v, 1, w, h, s))
ASYNC(cuMemsetD2D16Async, (CUdeviceptr dst, size_t pitch, unsigned short v, size_t w,
                           size_t h, CUstream s), set_2d(dst, pitch, v, 2, w, h, s))
ASYNC(cuMemsetD2D32Async, (CUdeviceptr dst, size_t pitch, unsigned int v, size_t w,
                           size_t h, CUstream s), set_2d(dst, pitch, v, 4, w, h, s))
