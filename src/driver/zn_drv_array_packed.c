/* zn_drv_array_packed.c: CUDA arrays of the packed video formats (YUY2,
 * Y210, Y216: 4:2:2; AYUV, Y410, Y416: 4:4:4).
 *
 * cuda.h gives each format's channel count and depth and nothing more, so
 * the layout is the one these names have in DXGI / Media Foundation,
 * where the formats come from: an element is one pixel and rows are packed
 * like any array's (pitch = Width * element size), so cuMemcpy2D/3D move a
 * frame with WidthInBytes = Width * element size.
 *
 *   format  channels  bytes  a pixel, in memory order
 *   YUY2    2         2      Y, then U (even x) or V (odd x), 8 bits each
 *   Y210    2         4      the same in 16-bit words, 10 bits in the top
 *   Y216    2         4      the same in 16-bit words
 *   AYUV    4         4      V, U, Y, A (8 bits each)
 *   Y410    4         4      one 32-bit word: U 0-9, Y 10-19, V 20-29, A 30-31
 *   Y416    4         8      U, Y, V, A (16 bits each)
 *
 * The descriptor must give that channel count (the one reported back); the
 * 4:2:2 ones need an even Width (a U/V pair spans two pixels). Such an
 * array is 2D only: CUDA defines no depth, layers, cubemaps, mipmaps or
 * sparse/deferred backing for them, so those are CUDA_ERROR_INVALID_VALUE
 * with a log line. Surfaces (CUDA_ARRAY3D_SURFACE_LDST) see the elements
 * as their raw channels (zn_array_packed_raw: YUY2 is u8 x 2, Y410 one u32,
 * ...), so suld/sust move whole pixels and sust.p stores channels. Texture
 * objects are refused with CUDA_ERROR_NOT_SUPPORTED: the CUDA docs do not
 * say what a fetch of these formats returns (raw channels or YUV with the
 * chroma shared by two pixels), and Zinc does not guess.
 */
#include "zn_drv.h"
#include "../util/zn_log.h"

#define ZN_PACKED_MAX_DIM 65536u

typedef struct {
    CUarray_format fmt;
    const char *name;
    uint8_t nch;          /* channels the descriptor gives and reports */
    uint8_t xdiv;         /* 2: 4:2:2 (Width even) */
    CUarray_format raw;   /* what a surface sees: raw channel format ... */
    uint8_t raw_nch;      /* ... and count */
} packed_info;

static const packed_info packed_table[] = {
    {CU_AD_FORMAT_YUY2, "YUY2", 2, 2, CU_AD_FORMAT_UNSIGNED_INT8, 2},
    {CU_AD_FORMAT_Y210, "Y210", 2, 2, CU_AD_FORMAT_UNSIGNED_INT16, 2},
    {CU_AD_FORMAT_Y216, "Y216", 2, 2, CU_AD_FORMAT_UNSIGNED_INT16, 2},
    {CU_AD_FORMAT_AYUV, "AYUV", 4, 1, CU_AD_FORMAT_UNSIGNED_INT8, 4},
    {CU_AD_FORMAT_Y410, "Y410", 4, 1, CU_AD_FORMAT_UNSIGNED_INT32, 1},
    {CU_AD_FORMAT_Y416, "Y416", 4, 1, CU_AD_FORMAT_UNSIGNED_INT16, 4},
};

static const packed_info *packed_find(CUarray_format f)
{
    for (size_t i = 0; i < sizeof packed_table / sizeof packed_table[0]; i++)
        if (packed_table[i].fmt == f)
            return &packed_table[i];
    return NULL;
}

bool zn_array_packed_is(CUarray_format f)
{
    return packed_find(f) != NULL;
}

bool zn_array_packed_raw(CUarray_format f, CUarray_format *raw, unsigned *nch)
{
    const packed_info *pi = packed_find(f);
    if (!pi)
        return false;
    *raw = pi->raw;
    *nch = pi->raw_nch;
    return true;
}

CUresult zn_array_packed_create(CUarray *out, const CUDA_ARRAY3D_DESCRIPTOR *d)
{
    const packed_info *pi = packed_find(d->Format);
    if (!out || !pi)
        return CUDA_ERROR_INVALID_VALUE;
    const unsigned known = CUDA_ARRAY3D_SURFACE_LDST | CUDA_ARRAY3D_TEXTURE_GATHER;
    if ((d->Flags & ~known) || d->Depth || !d->Width || !d->Height ||
        d->Width > ZN_PACKED_MAX_DIM || d->Height > ZN_PACKED_MAX_DIM ||
        d->Width % pi->xdiv || d->NumChannels != pi->nch) {
        zn_log(ZN_LOG_WARN,
               "cuArray3DCreate: packed format %s needs a 2D array (no depth, layers, "
               "cubemap, sparse or deferred mapping), Width divisible by %u, %u channels",
               pi->name, (unsigned)pi->xdiv, (unsigned)pi->nch);
        return CUDA_ERROR_INVALID_VALUE;
    }
    uint32_t cs = zn_array_format_size(pi->raw), es = cs * pi->raw_nch;
    zn_array *a = zn_array_alloc(d, cs, es, d->Width * es, d->Height, 1);
    if (!a)
        return CUDA_ERROR_OUT_OF_MEMORY;
    a->magic = ZN_MAGIC_ARRAY;
    *out = a;
    return CUDA_SUCCESS;
}
