/* zn_drv_texobj.c: texture and surface objects.
 *
 * A CUtexObject / CUsurfObject is the address of a zn_texobj, whose first
 * member is the zn_tex_desc the kernel reads (src/exec/zn_exec_tex.h): one
 * load gives the sampler everything (data, pitch, sizes, format, modes).
 * Resources: CUDA arrays (1D, 2D, 3D, layered, cubemap), mipmapped arrays
 * (every level in zn_tex_desc.level[]), linear memory and pitch2D memory.
 * A resource view (arrays and mipmapped arrays only) rewrites the
 * descriptor: another format of the same element size, a range of mip
 * levels (the first becomes level 0, so the LOD clamps are relative to
 * it) and a range of layers (the first becomes layer 0), or a
 * block-compressed format over a 32-bit unsigned array (2 channels for
 * BC1/BC4, 4 for the others; each element one block, the view 4 times as
 * wide and high). Block-compressed arrays take no view (as documented)
 * and are decoded on fetch (zn_exec_texbc.c). CU_TRSF_SRGB converts the R, G, B
 * channels of 8-bit unsigned textures read as normalized floats (other
 * formats ignore it, an unmeasured choice). CU_TRSF_SEAMLESS_CUBEMAP is
 * taken by cubemaps only (the sampler filters across face edges,
 * zn_exec_tex.c). Packed video arrays (YUY2, AYUV, ...) take surfaces only,
 * as their raw channels (zn_drv_array_packed.c); a texture of one is
 * NOT_SUPPORTED. Destroyed objects are retired handle blocks with a zero
 * magic, so a kernel using one stops with CUDA_ERROR_ILLEGAL_ADDRESS.
 */
#include "zn_drv.h"
#include "../exec/zn_exec_tex.h"
#include "../exec/zn_exec_texbc.h"
#include "../util/zn_log.h"

#include <string.h>

#define TRY_CU(e) do { CUresult r_ = (e); if (r_ != CUDA_SUCCESS) return r_; } while (0)

typedef struct zn_texobj {
    zn_tex_desc d;              /* first: the handle points here */
    CUDA_RESOURCE_DESC res;
    CUDA_TEXTURE_DESC tex;
    CUDA_RESOURCE_VIEW_DESC view;
    bool has_view;
} zn_texobj;

static zn_texobj *texobj_get(unsigned long long h, bool surface)
{
    zn_texobj *t = (zn_texobj *)(uintptr_t)h;
    if (!t || t->d.magic != ZN_TEX_MAGIC || t->d.surface != (surface ? 1u : 0u))
        return NULL;
    return t;
}

/* The geometry of one array (or mip level) into the descriptor. */
static void describe_array(zn_tex_desc *d, const zn_array *a)
{
    d->data = a->data;
    d->sparse = zn_sparse_view(a); /* the sampler goes through its tiles */
    d->pitch = a->pitch;
    d->slice = a->pitch * a->rows;
    d->width = (uint32_t)a->desc.Width;
    d->height = a->desc.Height ? (uint32_t)a->desc.Height : 1; /* texels, not BC blocks */
    d->depth = 1;
    d->cube = 0;
    if (a->desc.Flags & CUDA_ARRAY3D_CUBEMAP)
        d->cube = a->desc.Flags & CUDA_ARRAY3D_LAYERED ? 2 : 1;
    if (a->desc.Flags & (CUDA_ARRAY3D_LAYERED | CUDA_ARRAY3D_CUBEMAP))
        d->layers = (uint32_t)a->desc.Depth;
    else
        d->depth = (uint32_t)a->slices;
}

static void keep_level(zn_tex_desc *d, unsigned i)
{
    d->level[i] = (zn_tex_level){d->data, d->pitch, d->slice, d->width, d->height, d->depth,
                                 d->sparse};
}

/* Packed video formats (zn_drv_array_packed.c): a surface sees the raw
 * channels; a texture is refused, since CUDA does not say what a fetch
 * returns (raw channels, or YUV with shared chroma). */
static CUresult packed_channels(CUarray_format *fmt, unsigned *nch, bool surface)
{
    CUarray_format raw;
    unsigned rn;
    if (!zn_array_packed_raw(*fmt, &raw, &rn))
        return CUDA_SUCCESS;
    if (!surface) {
        zn_log(ZN_LOG_WARN,
               "cuTexObjectCreate: texture reads of packed video format 0x%x are not "
               "supported (CUDA does not define what they return); use a surface object",
               (unsigned)*fmt);
        return CUDA_ERROR_NOT_SUPPORTED;
    }
    *fmt = raw;
    *nch = rn;
    return CUDA_SUCCESS;
}

/* Fills the memory part of the descriptor from a resource description. */
static CUresult describe(zn_tex_desc *d, const CUDA_RESOURCE_DESC *r, bool surface)
{
    if (r->flags)
        return CUDA_ERROR_INVALID_VALUE;
    CUarray_format fmt;
    unsigned nch;
    d->depth = d->height = 1;
    d->nlevels = 1;
    switch (r->resType) {
    case CU_RESOURCE_TYPE_ARRAY: {
        zn_array *a = zn_array_get(r->res.array.hArray);
        if (!a)
            return CUDA_ERROR_INVALID_HANDLE;
        if (surface && !(a->desc.Flags & CUDA_ARRAY3D_SURFACE_LDST))
            return CUDA_ERROR_INVALID_VALUE; /* as CUDA: needs the surface flag */
        if (a->plane[0]) {
            /* its planes have different sizes and formats: one plane at a
             * time (cuArrayGetPlane) is what can be sampled */
            zn_log(ZN_LOG_WARN, "%s: array %p has a planar format (0x%x); create the object "
                   "on one of its planes (cuArrayGetPlane)",
                   surface ? "cuSurfObjectCreate" : "cuTexObjectCreate", (void *)a,
                   (unsigned)a->desc.Format);
            return CUDA_ERROR_INVALID_VALUE;
        }
        fmt = a->desc.Format;
        nch = a->desc.NumChannels;
        TRY_CU(packed_channels(&fmt, &nch, surface));
        describe_array(d, a);
        break;
    }
    case CU_RESOURCE_TYPE_MIPMAPPED_ARRAY: {
        zn_mipmap *m = zn_mipmap_get(r->res.mipmap.hMipmappedArray);
        if (!m)
            return CUDA_ERROR_INVALID_HANDLE;
        if (surface)
            return CUDA_ERROR_INVALID_VALUE; /* surfaces take one level's array */
        fmt = m->level[0]->desc.Format;
        nch = m->level[0]->desc.NumChannels;
        for (unsigned i = m->nlevels; i-- > 0;) { /* level 0 last: it stays in d */
            describe_array(d, m->level[i]);
            keep_level(d, i);
        }
        d->nlevels = m->nlevels;
        break;
    }
    case CU_RESOURCE_TYPE_LINEAR: {
        if (surface)
            return CUDA_ERROR_INVALID_VALUE;
        fmt = r->res.linear.format;
        nch = r->res.linear.numChannels;
        TRY_CU(packed_channels(&fmt, &nch, false));
        size_t es = zn_array_format_size(fmt) * nch;
        if (!r->res.linear.devPtr || !es || r->res.linear.sizeInBytes < es ||
            !zn_mem_range_ok(r->res.linear.devPtr, r->res.linear.sizeInBytes))
            return CUDA_ERROR_INVALID_VALUE;
        d->data = (uint8_t *)(uintptr_t)r->res.linear.devPtr;
        d->width = (uint32_t)(r->res.linear.sizeInBytes / es);
        d->pitch = d->slice = r->res.linear.sizeInBytes;
        break;
    }
    case CU_RESOURCE_TYPE_PITCH2D: {
        if (surface)
            return CUDA_ERROR_INVALID_VALUE;
        const __typeof__(r->res.pitch2D) *p = &r->res.pitch2D;
        fmt = p->format;
        nch = p->numChannels;
        TRY_CU(packed_channels(&fmt, &nch, false));
        size_t es = zn_array_format_size(fmt) * nch;
        if (!p->devPtr || !es || !p->width || !p->height || p->pitchInBytes < p->width * es ||
            !zn_mem_range_ok(p->devPtr, (p->height - 1) * p->pitchInBytes + p->width * es))
            return CUDA_ERROR_INVALID_VALUE;
        d->data = (uint8_t *)(uintptr_t)p->devPtr;
        d->width = (uint32_t)p->width;
        d->height = (uint32_t)p->height;
        d->pitch = p->pitchInBytes;
        d->slice = p->pitchInBytes * p->height;
        break;
    }
    default:
        return CUDA_ERROR_INVALID_VALUE;
    }
    /* block-compressed arrays: a channel is the whole block (unused) */
    uint32_t cs = zn_texbc_is(fmt) ? zn_texbc_block_bytes(fmt) : zn_array_format_size(fmt);
    if (zn_texbc_is(fmt))
        nch = 1;
    if (!cs || (nch != 1 && nch != 2 && nch != 4))
        return CUDA_ERROR_INVALID_VALUE;
    d->format = fmt;
    d->nch = nch;
    d->csize = cs;
    d->esize = cs * nch;
    d->surface = surface ? 1u : 0u;
    if (d->nlevels == 1)
        keep_level(d, 0);
    return CUDA_SUCCESS;
}

/* CUresourceViewFormat 0x01-0x18 -> array format and channel count:
 * U8, S8, U16, S16, U32, S32, HALF, FLOAT, each with 1, 2 and 4 channels */
static bool view_format(unsigned vf, uint32_t *fmt, unsigned *nch)
{
    static const uint32_t fmts[8] = {
        CU_AD_FORMAT_UNSIGNED_INT8, CU_AD_FORMAT_SIGNED_INT8, CU_AD_FORMAT_UNSIGNED_INT16,
        CU_AD_FORMAT_SIGNED_INT16, CU_AD_FORMAT_UNSIGNED_INT32, CU_AD_FORMAT_SIGNED_INT32,
        CU_AD_FORMAT_HALF, CU_AD_FORMAT_FLOAT};
    if (vf < 1 || vf > CU_RES_VIEW_FORMAT_FLOAT_4X32)
        return false;
    *fmt = fmts[(vf - 1) / 3];
    *nch = (const unsigned[]){1, 2, 4}[(vf - 1) % 3];
    return true;
}

/* CUresourceViewFormat UNSIGNED_BC1 .. UNSIGNED_BC7 -> the array format */
static uint32_t bc_view_format(unsigned vf)
{
    static const uint32_t fmts[] = {ZN_BC1_UNORM, ZN_BC2_UNORM, ZN_BC3_UNORM, ZN_BC4_UNORM,
                                    ZN_BC4_SNORM, ZN_BC5_UNORM, ZN_BC5_SNORM, ZN_BC6H_UF16,
                                    ZN_BC6H_SF16, ZN_BC7_UNORM};
    return fmts[vf - CU_RES_VIEW_FORMAT_UNSIGNED_BC1];
}

/* Applies a resource view to a descriptor describe() filled from an array
 * or mipmapped array: the rules of cuTexObjectCreate's reference (extent
 * equal to the resource's, mip and layer ranges zero unless the resource
 * has levels / layers). Cubemap layered views take whole cubes. */
static CUresult apply_view(zn_tex_desc *d, const CUDA_RESOURCE_DESC *r,
                           const CUDA_RESOURCE_VIEW_DESC *v)
{
    const zn_array *a0;
    if (r->resType == CU_RESOURCE_TYPE_ARRAY)
        a0 = zn_array_get(r->res.array.hArray);
    else if (r->resType == CU_RESOURCE_TYPE_MIPMAPPED_ARRAY)
        a0 = zn_mipmap_get(r->res.mipmap.hMipmappedArray)->level[0];
    else
        return CUDA_ERROR_INVALID_VALUE; /* views are for (mipmapped) arrays */
    if (zn_texbc_is(a0->desc.Format))
        return CUDA_ERROR_INVALID_VALUE; /* no views of block-compressed arrays */
    unsigned scale = 1; /* a block-compressed view is 4 times as wide and high */
    if (v->format >= CU_RES_VIEW_FORMAT_UNSIGNED_BC1 &&
        v->format <= CU_RES_VIEW_FORMAT_UNSIGNED_BC7) {
        uint32_t fmt = bc_view_format(v->format);
        if (d->format != CU_AD_FORMAT_UNSIGNED_INT32 ||
            d->esize != zn_texbc_block_bytes(fmt))
            return CUDA_ERROR_INVALID_VALUE; /* U32 x2 (BC1, BC4) or x4 elements */
        d->format = fmt;
        d->nch = 1;
        d->csize = d->esize;
        scale = 4;
        for (unsigned i = 0; i < d->nlevels; i++) {
            d->level[i].width *= 4;
            d->level[i].height *= 4;
        }
    } else if (v->format != CU_RES_VIEW_FORMAT_NONE) {
        uint32_t fmt;
        unsigned nch;
        if (!view_format(v->format, &fmt, &nch) ||
            zn_array_format_size(fmt) * nch != d->esize)
            return CUDA_ERROR_INVALID_VALUE; /* same width: same element size */
        d->format = fmt;
        d->nch = nch;
        d->csize = zn_array_format_size(fmt);
    }
    if (v->width != scale * a0->desc.Width || v->height != scale * a0->desc.Height ||
        v->depth != a0->desc.Depth || (scale > 1 && !a0->desc.Height))
        return CUDA_ERROR_INVALID_VALUE;
    if (v->firstMipmapLevel > v->lastMipmapLevel || v->lastMipmapLevel >= d->nlevels)
        return CUDA_ERROR_INVALID_VALUE;
    unsigned flags = a0->desc.Flags;
    bool layered = (flags & CUDA_ARRAY3D_LAYERED) != 0;
    if (v->firstLayer > v->lastLayer || (!layered && v->lastLayer) ||
        (layered && v->lastLayer >= d->layers))
        return CUDA_ERROR_INVALID_VALUE;
    if (layered && (flags & CUDA_ARRAY3D_CUBEMAP) &&
        (v->firstLayer % 6 || (v->lastLayer + 1) % 6))
        return CUDA_ERROR_INVALID_VALUE;
    if (a0->sparse && v->firstLayer) {
        /* tiles are found by layer from 0: a view would need its own offset */
        zn_log(ZN_LOG_WARN, "cuTexObjectCreate: a view from layer %u of a sparse array is "
               "not supported", v->firstLayer);
        return CUDA_ERROR_NOT_SUPPORTED;
    }
    unsigned first = v->firstMipmapLevel, n = v->lastMipmapLevel - first + 1;
    for (unsigned i = 0; i < n; i++) {
        d->level[i] = d->level[first + i];
        if (v->firstLayer) /* never on a sparse array, whose data is NULL */
            d->level[i].data += (uint64_t)v->firstLayer * d->level[i].slice;
    }
    d->nlevels = n;
    if (layered)
        d->layers = v->lastLayer - v->firstLayer + 1;
    const zn_tex_level *l = &d->level[0];
    d->data = l->data;
    d->pitch = l->pitch;
    d->slice = l->slice;
    d->width = l->width;
    d->height = l->height;
    d->depth = l->depth;
    return CUDA_SUCCESS;
}

static CUresult tex_create(CUtexObject *out, const CUDA_RESOURCE_DESC *r,
                           const CUDA_TEXTURE_DESC *td, const CUDA_RESOURCE_VIEW_DESC *view)
{
    if (!out || !r || !td)
        return CUDA_ERROR_INVALID_VALUE;
    for (int i = 0; i < 3; i++)
        if ((unsigned)td->addressMode[i] > CU_TR_ADDRESS_MODE_BORDER)
            return CUDA_ERROR_INVALID_VALUE;
    if ((unsigned)td->filterMode > CU_TR_FILTER_MODE_LINEAR ||
        (unsigned)td->mipmapFilterMode > CU_TR_FILTER_MODE_LINEAR)
        return CUDA_ERROR_INVALID_VALUE;
    zn_tex_desc d;
    memset(&d, 0, sizeof d);
    TRY_CU(describe(&d, r, false));
    if (view)
        TRY_CU(apply_view(&d, r, view));
    if ((td->flags & CU_TRSF_SEAMLESS_CUBEMAP) && !d.cube)
        return CUDA_ERROR_INVALID_VALUE; /* only for cubemap (mipmapped) arrays */
    /* NVIDIA's driver refuses the sRGB block-compressed formats (BC1-BC3,
     * BC7 _SRGB) without CU_TRSF_SRGB (measured on an H200: cudart's
     * cudaTextureDesc::sRGB = 0 gives cudaErrorInvalidValue). Linear
     * filtering of integers read as integers is accepted (and blends
     * them: zn_exec_tex.c). */
    if (zn_texbc_srgb(d.format) && !(td->flags & CU_TRSF_SRGB))
        return CUDA_ERROR_INVALID_VALUE;
    zn_texobj *t = zn_handle_new(ZN_HANDLE_TEXOBJ, sizeof *t);
    if (!t)
        return CUDA_ERROR_OUT_OF_MEMORY;
    t->d = d;
    for (int i = 0; i < 3; i++)
        t->d.addr[i] = td->addressMode[i];
    if (r->resType == CU_RESOURCE_TYPE_LINEAR) {
        /* tex1Dfetch: integer indices, zeros outside, no filtering */
        t->d.addr[0] = CU_TR_ADDRESS_MODE_BORDER;
        memset(t->d.border, 0, sizeof t->d.border);
        t->d.filter = CU_TR_FILTER_MODE_POINT;
    } else {
        memcpy(t->d.border, td->borderColor, sizeof t->d.border);
        t->d.filter = td->filterMode;
    }
    t->d.flags = td->flags;
    t->d.mip_filter = td->mipmapFilterMode;
    t->d.mip_bias = td->mipmapLevelBias;
    t->d.mip_min = td->minMipmapLevelClamp;
    t->d.mip_max = td->maxMipmapLevelClamp;
    t->res = *r;
    t->tex = *td;
    if (view) {
        t->view = *view;
        t->has_view = true;
    }
    t->d.magic = ZN_TEX_MAGIC;
    *out = (CUtexObject)(uintptr_t)t;
    return CUDA_SUCCESS;
}

CUresult cuTexObjectCreate(CUtexObject *out, const CUDA_RESOURCE_DESC *r,
                           const CUDA_TEXTURE_DESC *td, const CUDA_RESOURCE_VIEW_DESC *view)
{
    ZN_CHECK_INIT();
    ZN_RET(tex_create(out, r, td, view));
}

CUresult cuSurfObjectCreate(CUsurfObject *out, const CUDA_RESOURCE_DESC *r)
{
    ZN_CHECK_INIT();
    if (!out || !r)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    if (r->resType != CU_RESOURCE_TYPE_ARRAY)
        ZN_RET(CUDA_ERROR_INVALID_VALUE); /* surfaces live in arrays only */
    zn_tex_desc d;
    memset(&d, 0, sizeof d);
    CUresult e = describe(&d, r, true);
    if (e != CUDA_SUCCESS)
        ZN_RET(e);
    zn_texobj *t = zn_handle_new(ZN_HANDLE_TEXOBJ, sizeof *t);
    if (!t)
        ZN_RET(CUDA_ERROR_OUT_OF_MEMORY);
    t->d = d;
    t->res = *r;
    t->d.magic = ZN_TEX_MAGIC;
    *out = (CUsurfObject)(uintptr_t)t;
    ZN_RET(CUDA_SUCCESS);
}

/* Destroys wait for the context's queued work first, as cuMemFree does:
 * a kernel launched before may still read the object (CUDA's
 * NV12toBGRandResize sample destroys its textures right after an
 * asynchronous launch, which a GPU's driver allows). */
static CUresult destroy(unsigned long long h, bool surface)
{
    zn_texobj *t = texobj_get(h, surface);
    if (!t)
        return CUDA_ERROR_INVALID_VALUE;
    zn_ctx *c;
    if (zn_ctx_enter(&c) == CUDA_SUCCESS)
        zn_ctx_wait_all(c);
    zn_handle_retire(ZN_HANDLE_TEXOBJ, t, sizeof *t);
    return CUDA_SUCCESS;
}

CUresult cuTexObjectDestroy(CUtexObject h)
{
    ZN_CHECK_INIT();
    ZN_RET(destroy(h, false));
}

CUresult cuSurfObjectDestroy(CUsurfObject h)
{
    ZN_CHECK_INIT();
    ZN_RET(destroy(h, true));
}

static CUresult get_res(CUDA_RESOURCE_DESC *r, unsigned long long h, bool surface)
{
    zn_texobj *t = texobj_get(h, surface);
    if (!t || !r)
        return CUDA_ERROR_INVALID_VALUE;
    *r = t->res;
    return CUDA_SUCCESS;
}

CUresult cuTexObjectGetResourceDesc(CUDA_RESOURCE_DESC *r, CUtexObject h)
{
    ZN_CHECK_INIT();
    ZN_RET(get_res(r, h, false));
}

CUresult cuSurfObjectGetResourceDesc(CUDA_RESOURCE_DESC *r, CUsurfObject h)
{
    ZN_CHECK_INIT();
    ZN_RET(get_res(r, h, true));
}

CUresult cuTexObjectGetTextureDesc(CUDA_TEXTURE_DESC *td, CUtexObject h)
{
    ZN_CHECK_INIT();
    zn_texobj *t = texobj_get(h, false);
    if (!t || !td)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    *td = t->tex;
    ZN_RET(CUDA_SUCCESS);
}

CUresult cuTexObjectGetResourceViewDesc(CUDA_RESOURCE_VIEW_DESC *v, CUtexObject h)
{
    ZN_CHECK_INIT();
    zn_texobj *t = texobj_get(h, false);
    if (!t || !v || !t->has_view) /* no view given: INVALID_VALUE, as documented */
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    *v = t->view;
    ZN_RET(CUDA_SUCCESS);
}
