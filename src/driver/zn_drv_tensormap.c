/* zn_drv_tensormap.c: tensor maps for tensor memory access (sm_90 TMA):
 * cuTensorMapEncodeTiled checks its arguments by the rules CUDA documents
 * and writes Zinc's encoding (src/exec/zn_tma.h), which cp.async.bulk.tensor
 * reads in the kernel (src/exec/zn_exec_tma.c).
 *
 * cuTensorMapEncodeIm2col writes the same encoding with the pixel box
 * (corners, channels per pixel, pixels per column) for the im2col mode.
 *
 * Not supported (CUDA_ERROR_NOT_SUPPORTED, with a log line): what CUDA
 * added for sm_100 (packed 4- and 6-bit types, the 128-byte swizzles of
 * 32- and 64-byte atoms, cuTensorMapEncodeIm2colWide), which an sm_90
 * device does not have either. The L2 promotion is accepted and has no
 * effect. */
#include "zn_drv.h"
#include "../exec/zn_tma.h"
#include "util/zn_log.h"

#include <string.h>

enum { DT_U8, DT_U16, DT_U32, DT_I32, DT_U64, DT_I64, DT_F16, DT_F32, DT_F64, DT_BF16,
       DT_F32_FTZ, DT_TF32, DT_TF32_FTZ, DT_16U4_ALIGN8B, DT_16U6_ALIGN16B = 15 };
enum { IL_NONE, IL_16B, IL_32B };

static unsigned elem_bytes(int dtype)
{
    static const unsigned size[] = {1, 2, 4, 4, 8, 8, 2, 4, 8, 2, 4, 4, 4};
    return dtype >= 0 && dtype <= DT_TF32_FTZ ? size[dtype] : 0;
}

static bool is_float(int dtype)
{
    return dtype >= DT_F16 && dtype <= DT_TF32_FTZ;
}

static bool map_aligned(const CUtensorMap *map)
{
    return map && ((uintptr_t)map & 63) == 0;
}

static bool addr_ok(const void *addr, int interleave)
{
    return addr && ((uintptr_t)addr & (interleave == IL_32B ? 31 : 15)) == 0;
}

/* The documented rules on the dims and strides, and the element strides. */
static bool dims_ok(const zn_tmap *m, const uint64_t *dim, const uint64_t *strides,
                    const uint32_t *estrides, int interleave)
{
    for (unsigned d = 0; d < m->rank; d++) {
        if (dim[d] == 0 || dim[d] > (1ull << 32) || estrides[d] == 0 || estrides[d] > 8)
            return false;
        if (d + 1 < m->rank &&
            (strides[d] % (interleave == IL_32B ? 32 : 16) || strides[d] >= (1ull << 40)))
            return false;
    }
    return true;
}

/* The box's inner dimension (inner elements, or channels per pixel): 16-byte
 * rows without interleave, and within the swizzle's span
 * (32 << (swizzle - 1)) when swizzled. */
static bool inner_ok(const zn_tmap *m, uint32_t inner, int interleave)
{
    if (interleave != IL_NONE)
        return true;
    return (inner * m->esize) % 16 == 0 &&
           (m->swizzle == ZN_TMA_SWIZZLE_NONE || inner * m->esize <= (16u << m->swizzle));
}

/* The checks both encoders share; on success *m holds the common fields
 * and the dims, strides and element strides. `who` names the caller in the
 * log line of what is not supported (*rc then CUDA_ERROR_NOT_SUPPORTED). */
static bool map_common(zn_tmap *m, const char *who, CUresult *rc, const CUtensorMap *map,
                       int dtype, uint32_t rank, uint32_t min_rank, void *addr, const uint64_t *dim,
                       const uint64_t *strides, const uint32_t *estrides, int interleave,
                       int swizzle, int l2promotion, int oobfill)
{
    *rc = CUDA_ERROR_INVALID_VALUE;
    if ((dtype >= DT_16U4_ALIGN8B && dtype <= DT_16U6_ALIGN16B) || (swizzle > 3 && swizzle <= 6)) {
        zn_log(ZN_LOG_ERROR, "%s: %s (an sm_100 feature) is not supported", who,
               swizzle > 3 ? "a 128-byte swizzle of 32- or 64-byte atoms" : "a packed data type");
        *rc = CUDA_ERROR_NOT_SUPPORTED;
        return false;
    }
    unsigned es = elem_bytes(dtype);
    if (!map_aligned(map) || !es || rank < min_rank || rank > ZN_TMA_MAX_RANK || !dim ||
        !estrides || (rank > 1 && !strides) || interleave < IL_NONE || interleave > IL_32B ||
        (interleave != IL_NONE && rank < 3) || swizzle < 0 || swizzle > 3 ||
        (interleave == IL_32B && swizzle != ZN_TMA_SWIZZLE_32B) || l2promotion < 0 ||
        l2promotion > 3 || oobfill < 0 || oobfill > 1 || (oobfill && !is_float(dtype)) ||
        !addr_ok(addr, interleave))
        return false;
    *m = (zn_tmap){.magic = ZN_TMA_MAGIC, .rank = (uint8_t)rank, .esize = (uint8_t)es,
                   .swizzle = (uint8_t)swizzle, .interleave = (uint8_t)interleave,
                   .oob_nan = oobfill == 1, .dtype = (uint8_t)dtype,
                   .addr = (uint64_t)(uintptr_t)addr};
    if (!dims_ok(m, dim, strides, estrides, interleave))
        return false;
    for (unsigned d = 0; d < rank; d++) {
        m->dim_m1[d] = (uint32_t)(dim[d] - 1);
        m->estride[d] = (uint8_t)estrides[d];
        if (d + 1 < rank)
            m->stride[d] = strides[d];
    }
    return true;
}

static void map_write(CUtensorMap *map, const zn_tmap *m)
{
    memset(map, 0, sizeof *map);
    memcpy(map, m, sizeof *m);
}

CUresult cuTensorMapEncodeTiled(CUtensorMap *map, int dtype, uint32_t rank, void *addr,
                                const uint64_t *dim, const uint64_t *strides,
                                const uint32_t *box, const uint32_t *estrides, int interleave,
                                int swizzle, int l2promotion, int oobfill)
{
    ZN_CHECK_INIT();
    zn_tmap m;
    CUresult rc;
    if (!map_common(&m, "cuTensorMapEncodeTiled", &rc, map, dtype, rank, 1, addr, dim, strides,
                    estrides, interleave, swizzle, l2promotion, oobfill))
        ZN_RET(rc);
    if (!box || !inner_ok(&m, box[0], interleave))
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    for (unsigned d = 0; d < rank; d++) {
        if (box[d] == 0 || box[d] > 256)
            ZN_RET(CUDA_ERROR_INVALID_VALUE);
        m.box[d] = (uint16_t)box[d];
    }
    map_write(map, &m);
    ZN_RET(CUDA_SUCCESS);
}

/* The pixel box of an im2col map: corners along W, H, D (array index 0 is
 * W, as the dimensions go), each within the range its rank allows, and a
 * box of at least one pixel along each. */
static bool corners_ok(zn_tmap *m, const uint64_t *dim, const int *lower, const int *upper)
{
    static const int range[] = {32768, 128, 16};    /* ranks 3, 4, 5 */
    unsigned ns = m->rank - 2u;
    int lim = range[ns - 1];
    for (unsigned k = 0; k < ns; k++) {
        if (lower[k] < -lim || lower[k] >= lim || upper[k] < -lim || upper[k] >= lim ||
            (int64_t)dim[k + 1] + upper[k] - lower[k] <= 0)
            return false;
        m->lower[k] = (int16_t)lower[k];
        m->upper[k] = (int16_t)upper[k];
    }
    return true;
}

CUresult cuTensorMapEncodeIm2col(CUtensorMap *map, int dtype, uint32_t rank, void *addr,
                                 const uint64_t *dim, const uint64_t *strides, const int *lower,
                                 const int *upper, uint32_t cpp, uint32_t ppc,
                                 const uint32_t *estrides, int interleave, int swizzle,
                                 int l2promotion, int oobfill)
{
    ZN_CHECK_INIT();
    zn_tmap m;
    CUresult rc;
    if (!map_common(&m, "cuTensorMapEncodeIm2col", &rc, map, dtype, rank, 3, addr, dim, strides,
                    estrides, interleave, swizzle, l2promotion, oobfill))
        ZN_RET(rc);
    if (!lower || !upper || cpp == 0 || cpp > 256 || ppc == 0 || ppc > 1024 ||
        !inner_ok(&m, cpp, interleave) || !corners_ok(&m, dim, lower, upper))
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    m.im2col = 1;
    m.cpp = (uint16_t)cpp;
    m.ppc = (uint16_t)ppc;
    map_write(map, &m);
    ZN_RET(CUDA_SUCCESS);
}

CUresult cuTensorMapReplaceAddress(CUtensorMap *map, void *addr)
{
    ZN_CHECK_INIT();
    zn_tmap m;
    if (!map_aligned(map))
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    memcpy(&m, map, sizeof m);
    if (m.magic != ZN_TMA_MAGIC || !addr_ok(addr, m.interleave))
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    m.addr = (uint64_t)(uintptr_t)addr;
    memcpy(map, &m, sizeof m);
    ZN_RET(CUDA_SUCCESS);
}
