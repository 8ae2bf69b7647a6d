/* zn_drv_array_planar.c: CUDA arrays of the planar (video) formats and
 * their planes (cuArrayGetPlane).
 *
 * Supported: NV12, P010, P016 (4:2:0), NV16, P210, P216 (4:2:2),
 * Y444_PLANAR8/10 (three full planes) and YUV444_8bit/16bit_SemiPlanar.
 * Such an array is 2D only (no depth, layers or cubemap), Width even (and
 * Height even for 4:2:0); NumChannels is what the descriptor said (1..3:
 * cudart passes 3, the count of YUV components).
 *
 * Layout: the planes lie one after the other in one zeroed buffer, luma
 * first, exactly as pitch-linear NV12 etc. are laid out with pitch
 * Width * channel size. The parent array is described to copies as rows of
 * that pitch (element size = channel size, rows = all planes' bytes /
 * pitch), so cuMemcpy2D/3D of a whole NV12 frame to or from the parent
 * moves both planes. Each plane is a zn_array view (plane_of set) over
 * its part of the buffer, made at creation with the format CUDA documents
 * for it: UNSIGNED_INT8 (8-bit formats) or UNSIGNED_INT16, 1 channel for
 * luma, 2 for interleaved chroma, half width for 4:2:x, half height for
 * 4:2:0. Views are ordinary arrays for copies, texture and surface objects
 * (the parent's SURFACE_LDST flag carries over), go with the parent's
 * cuArrayDestroy, and cannot be destroyed themselves. A texture object on
 * the parent itself (CUDA samples NV12 as YUV) is not supported: the
 * texture layer refuses the format with CUDA_ERROR_INVALID_VALUE.
 */
#include "zn_drv.h"
#include "../util/zn_log.h"

#include <stdlib.h>

#define ZN_PLANAR_MAX_DIM 65536u

typedef struct {
    CUarray_format fmt;
    uint8_t cs;        /* bytes per channel */
    uint8_t nplanes;
    uint8_t xdiv, ydiv; /* chroma subsampling */
    uint8_t cch;       /* channels of each chroma plane */
} planar_info;

static const planar_info planar_table[] = {
    {CU_AD_FORMAT_NV12, 1, 2, 2, 2, 2},
    {CU_AD_FORMAT_P010, 2, 2, 2, 2, 2},
    {CU_AD_FORMAT_P016, 2, 2, 2, 2, 2},
    {CU_AD_FORMAT_NV16, 1, 2, 2, 1, 2},
    {CU_AD_FORMAT_P210, 2, 2, 2, 1, 2},
    {CU_AD_FORMAT_P216, 2, 2, 2, 1, 2},
    {CU_AD_FORMAT_Y444_PLANAR8, 1, 3, 1, 1, 1},
    {CU_AD_FORMAT_Y444_PLANAR10, 2, 3, 1, 1, 1},
    {CU_AD_FORMAT_YUV444_8bit_SemiPlanar, 1, 2, 1, 1, 2},
    {CU_AD_FORMAT_YUV444_16bit_SemiPlanar, 2, 2, 1, 1, 2},
};

static const planar_info *planar_find(CUarray_format f)
{
    for (size_t i = 0; i < sizeof planar_table / sizeof planar_table[0]; i++)
        if (planar_table[i].fmt == f)
            return &planar_table[i];
    return NULL;
}

bool zn_array_planar_is(CUarray_format f)
{
    return planar_find(f) != NULL;
}

/* A view of w x h elements of nch channels at data (not owned). */
static zn_array *plane_new(zn_array *parent, const planar_info *pi, size_t w, size_t h,
                           unsigned nch, uint8_t *data)
{
    zn_array *v = zn_handle_new(ZN_HANDLE_ARRAY, sizeof *v);
    if (!v)
        return NULL;
    v->desc.Width = w;
    v->desc.Height = h;
    v->desc.Depth = 0;
    v->desc.Format = pi->cs == 1 ? CU_AD_FORMAT_UNSIGNED_INT8 : CU_AD_FORMAT_UNSIGNED_INT16;
    v->desc.NumChannels = nch;
    v->desc.Flags = parent->desc.Flags;
    v->csize = pi->cs;
    v->esize = pi->cs * nch;
    v->pitch = w * v->esize;
    v->rows = h;
    v->slices = 1;
    v->data = data;
    v->plane_of = parent;
    v->magic = ZN_MAGIC_ARRAY;
    return v;
}

CUresult zn_array_planar_create(CUarray *out, const CUDA_ARRAY3D_DESCRIPTOR *d)
{
    const planar_info *pi = planar_find(d->Format);
    if (!out || !pi)
        return CUDA_ERROR_INVALID_VALUE;
    const unsigned known = CUDA_ARRAY3D_SURFACE_LDST | CUDA_ARRAY3D_TEXTURE_GATHER;
    if ((d->Flags & ~known) || d->Depth || !d->Width || !d->Height ||
        d->Width > ZN_PLANAR_MAX_DIM || d->Height > ZN_PLANAR_MAX_DIM ||
        d->Width % pi->xdiv || d->Height % pi->ydiv || !d->NumChannels ||
        d->NumChannels > 3) {
        zn_log(ZN_LOG_WARN,
               "cuArray3DCreate: planar format 0x%x needs a 2D array (no layers, depth or "
               "cubemap), Width divisible by %u, Height by %u, 1-3 channels",
               (unsigned)d->Format, (unsigned)pi->xdiv, (unsigned)pi->ydiv);
        return CUDA_ERROR_INVALID_VALUE;
    }
    size_t luma = d->Width * d->Height * pi->cs;
    size_t cw = d->Width / pi->xdiv, chh = d->Height / pi->ydiv;
    size_t chroma = cw * chh * pi->cch * pi->cs; /* bytes per chroma plane */
    size_t bytes = luma + (pi->nplanes - 1) * chroma;
    /* rows: every plane's bytes are a multiple of the pitch */
    zn_array *a = zn_array_alloc(d, pi->cs, pi->cs, d->Width * pi->cs,
                                 bytes / (d->Width * pi->cs), 1);
    if (!a)
        return CUDA_ERROR_OUT_OF_MEMORY;
    a->plane[0] = plane_new(a, pi, d->Width, d->Height, 1, a->data);
    for (unsigned p = 1; p < pi->nplanes && a->plane[p - 1]; p++)
        a->plane[p] = plane_new(a, pi, cw, chh, pi->cch, a->data + luma + (p - 1) * chroma);
    if (!a->plane[pi->nplanes - 1]) {
        zn_array_planar_free(a);
        free(a->data);
        zn_handle_retire(ZN_HANDLE_ARRAY, a, sizeof *a);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    a->magic = ZN_MAGIC_ARRAY;
    *out = a;
    return CUDA_SUCCESS;
}

void zn_array_planar_free(zn_array *a)
{
    for (unsigned p = 0; p < 3; p++) {
        if (a->plane[p])
            zn_handle_retire(ZN_HANDLE_ARRAY, a->plane[p], sizeof *a->plane[p]);
        a->plane[p] = NULL;
    }
}

CUresult cuArrayGetPlane(CUarray *plane, CUarray h, unsigned int idx)
{
    ZN_CHECK_INIT();
    zn_array *a = zn_array_get(h);
    if (!a)
        ZN_RET(CUDA_ERROR_INVALID_HANDLE);
    if (!plane)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    if (!a->plane[0]) {
        zn_log(ZN_LOG_WARN, "cuArrayGetPlane: the array has no planes (not a planar format)");
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    }
    if (idx >= 3 || !a->plane[idx])
        ZN_RET(CUDA_ERROR_INVALID_VALUE); /* past the format's last plane */
    *plane = a->plane[idx];
    ZN_RET(CUDA_SUCCESS);
}
