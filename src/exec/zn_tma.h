/* zn_tma.h: Zinc's encoding of a CUtensorMap (the 128 opaque bytes that
 * cuTensorMapEncodeTiled writes and cp.async.bulk.tensor reads), shared by
 * the driver (zn_drv_tensormap.c, which validates and encodes) and the
 * executor (zn_exec_tma.c, which copies boxes for compiled kernels).
 *
 * The layout is Zinc's own: a CUtensorMap is opaque, and an application
 * only hands it from the encode call to PTX. The magic word makes a map
 * that was never encoded (zeroed or garbage bytes) an error in the kernel
 * rather than a copy from wherever its bytes point. */
#ifndef ZN_TMA_H
#define ZN_TMA_H

#include <stdint.h>

#define ZN_TMA_MAGIC 0x5a544d41u    /* "ZTMA" */
#define ZN_TMA_MAX_RANK 5

enum { ZN_TMA_SWIZZLE_NONE, ZN_TMA_SWIZZLE_32B, ZN_TMA_SWIZZLE_64B, ZN_TMA_SWIZZLE_128B };

typedef struct zn_tmap {
    uint32_t magic;
    uint8_t rank;           /* 1..5 */
    uint8_t esize;          /* element bytes: 1, 2, 4, 8 */
    uint8_t swizzle;        /* ZN_TMA_SWIZZLE_* */
    uint8_t interleave;     /* CUtensorMapInterleave: 0 none, else element
                             * stride 0 counts too */
    uint8_t oob_nan;        /* out-of-bounds elements read as NaN, not 0 */
    uint8_t dtype;          /* CUtensorMapDataType (for reductions) */
    uint8_t im2col;         /* an im2col map (cuTensorMapEncodeIm2col) */
    uint8_t pad_[5];
    uint64_t addr;          /* globalAddress */
    uint32_t dim_m1[ZN_TMA_MAX_RANK];       /* globalDim - 1 (up to 2^32) */
    uint32_t pad2_;
    uint64_t stride[ZN_TMA_MAX_RANK - 1];   /* bytes of dimensions 1.. */
    uint16_t box[ZN_TMA_MAX_RANK];          /* boxDim (1..256) */
    uint8_t estride[ZN_TMA_MAX_RANK];       /* elementStrides (1..8) */
    uint8_t pad3_;
    /* im2col maps: the pixel box's corners along the spatial dimensions
     * 1..rank-2 (W, H, D), relative to the tensor's first and last pixel;
     * channels per pixel (1..256) and pixels per column (1..1024) */
    int16_t lower[ZN_TMA_MAX_RANK - 2], upper[ZN_TMA_MAX_RANK - 2];
    uint16_t cpp, ppc;
} zn_tmap;

_Static_assert(sizeof(zn_tmap) <= 128, "a CUtensorMap is 128 bytes");

/* rt->tma's code: bits 0-3 the rank (0: a bulk copy without a map),
 * bit 4 set when shared memory is the source, bits 8-11 a reduction
 * (cp.reduce.async.bulk), bits 12-15 its element type where no map
 * gives it. io[row][lane]: 0 the shared address, 1 the map (or, without
 * one, the destination), 2-6 the coordinates (without a map, 2 is the
 * byte count), 7 a load's bytes, written back, 8 the ctaMask of a
 * multicast load (bit 5 of the code): the box goes to the same offset in
 * the window of each of those cluster ranks. */
#define ZN_TMA_CODE(rank, store) ((uint32_t)(rank) | ((store) ? 0x10u : 0u))
#define ZN_TMA_MULTICAST 0x20u
/* bit 6: the im2col mode (.im2col loads, .im2col_no_offs stores); row 9
 * holds the im2col offsets, 16 bits each, W's lowest */
#define ZN_TMA_IM2COL 0x40u
#define ZN_TMA_RED(op, elem) ((uint32_t)(op) << 8 | (uint32_t)(elem) << 12)
#define ZN_TMA_IO_ROWS 10
enum { ZN_TMA_RED_NONE, ZN_TMA_RED_ADD, ZN_TMA_RED_MIN, ZN_TMA_RED_MAX, ZN_TMA_RED_INC,
       ZN_TMA_RED_DEC, ZN_TMA_RED_AND, ZN_TMA_RED_OR, ZN_TMA_RED_XOR };
enum { ZN_TMA_EL_NONE, ZN_TMA_EL_U32, ZN_TMA_EL_S32, ZN_TMA_EL_U64, ZN_TMA_EL_S64,
       ZN_TMA_EL_F32, ZN_TMA_EL_F64, ZN_TMA_EL_F16, ZN_TMA_EL_BF16 };

#endif
