/* zn_exec_tex.h: texture and surface objects as compiled code sees them.
 *
 * A CUtexObject / CUsurfObject is the host address of a zn_tex_desc (all
 * device memory is host memory), so a kernel decodes it with one load.
 * The driver (zn_drv_texobj.c) fills it; the runtime function
 * zn_rt_ops.tex (zn_exec_tex.c) reads it for tex, tld4, txq, suld, sust.
 */
#ifndef ZN_EXEC_TEX_H
#define ZN_EXEC_TEX_H

#include <stdint.h>
#include "zn_kernel_abi.h"
#include "zn_exec_sparse.h"

#define ZN_TEX_MAGIC 0x5a4e5458u /* "ZNTX": a stale or foreign handle faults */
#define ZN_TEX_MAX_LEVELS 17    /* mip levels of a 65536-wide array */

/* Where one mip level lives (level 0 repeats the descriptor's fields). */
typedef struct zn_tex_level {
    uint8_t *data;
    uint64_t pitch, slice;
    uint32_t width, height, depth;
    const zn_sparse_level *sparse; /* a sparse array's level: its tiles (data NULL) */
} zn_tex_level;

typedef struct zn_tex_desc {
    uint32_t magic;
    uint32_t surface;       /* 1: surface object (suld/sust) */
    uint8_t *data;          /* element (0, 0, 0) of layer 0 */
    uint64_t pitch;         /* bytes from one row to the next */
    uint64_t slice;         /* bytes from one 2D slice (or layer) to the next */
    uint32_t width, height, depth; /* elements; 1 where the geometry has none */
    uint32_t layers;        /* layered arrays: the layer count, else 0 */
    uint32_t format;        /* CUarray_format */
    uint32_t nch;           /* channels: 1, 2 or 4 */
    uint32_t csize;         /* bytes per channel */
    uint32_t esize;         /* bytes per element (nch * csize) */
    uint32_t addr[3];       /* CUaddress_mode per dimension */
    uint32_t filter;        /* CUfilter_mode */
    uint32_t flags;         /* CU_TRSF_* (read as integer, normalized coords) */
    float border[4];
    uint32_t cube;          /* 1: cubemap, 2: cubemap layered (6 layers a cube) */
    uint32_t nlevels;       /* mip levels: 1 unless a mipmapped array */
    uint32_t mip_filter;    /* CUfilter_mode between levels */
    float mip_bias, mip_min, mip_max; /* LOD bias and clamps (texture descriptor) */
    const zn_sparse_level *sparse; /* level 0 of a sparse array (data NULL), else NULL */
    zn_tex_level level[ZN_TEX_MAX_LEVELS];
} zn_tex_desc;

/* The `code` word of a zn_rt_ops.tex call, built by zn_lower_tex.c. */
enum {
    ZN_TEX_K_TEX = 1, ZN_TEX_K_TLD4 = 2, ZN_TEX_K_TXQ = 3, ZN_TEX_K_SULD = 4,
    ZN_TEX_K_SUST = 5, ZN_TEX_K_SUSTP = 6 /* sust.p: formatted, x in elements */
};
enum {
    ZN_TEX_G_1D = 1, ZN_TEX_G_2D, ZN_TEX_G_3D, ZN_TEX_G_A1D, ZN_TEX_G_A2D, ZN_TEX_G_CUBE,
    ZN_TEX_G_ACUBE
};
/* tex: where the level of detail comes from (the `sel` field) */
enum { ZN_TEX_LOD_ZERO = 0, ZN_TEX_LOD_LEVEL = 1, ZN_TEX_LOD_GRAD = 2 };
enum { ZN_TEX_T_F32 = 0, ZN_TEX_T_S32 = 1, ZN_TEX_T_U32 = 2 };
enum { ZN_SU_TRAP = 0, ZN_SU_CLAMP = 1, ZN_SU_ZERO = 2 };
enum {
    ZN_TXQ_WIDTH = 0, ZN_TXQ_HEIGHT, ZN_TXQ_DEPTH, ZN_TXQ_CHANNEL_DATA_TYPE,
    ZN_TXQ_CHANNEL_ORDER, ZN_TXQ_NORMALIZED_COORDS, ZN_TXQ_FILTER_MODE,
    ZN_TXQ_ADDR_MODE_0, ZN_TXQ_ADDR_MODE_1, ZN_TXQ_ADDR_MODE_2, ZN_TXQ_ARRAY_SIZE,
    ZN_TXQ_NUM_MIPMAP_LEVELS, ZN_TXQ_NUM_SAMPLES
};
/* kind | geometry << 4 | coordinate type << 8 | result type << 10 |
 * (tld4 component, tex LOD source, or surface out-of-range mode) << 12 |
 * (txq query, or log2 of the surface element size) << 16 |
 * surface vector length << 20 */
#define ZN_TEX_CODE(kind, geom, ct, rt, sel, q, vec)                                   \
    ((uint32_t)(kind) | (uint32_t)(geom) << 4 | (uint32_t)(ct) << 8 |                  \
     (uint32_t)(rt) << 10 | (uint32_t)(sel) << 12 | (uint32_t)(q) << 16 |              \
     (uint32_t)(vec) << 20)

/* Optional operands of tex / tld4 (code bits above the fields above): a
 * texel offset vector (.s32, in io[12..14]) and a depth compare value
 * (.f32, in io[15]). */
#define ZN_TEX_F_OFFSET (1u << 24)
#define ZN_TEX_F_COMPARE (1u << 25)
#define ZN_TEX_IO_OFFSET 12
#define ZN_TEX_IO_COMPARE 15
/* The sparse form `{d}|p` of tex / tld4: the runtime also writes, per
 * lane, 1 to io[4] when every texel it read was resident, else 0. */
#define ZN_TEX_F_RESIDENT (1u << 26)
#define ZN_TEX_IO_RESIDENT 4

/* zn_rt_ops.tex: io is [8][32] 64-bit words ([12][32] for tex.grad,
 * [16][32] with an offset or a compare value), component-major: the
 * inputs (coordinates in io[0..3]; sust values, the tex.level LOD or the
 * tex.grad x gradient in io[4..7]; the tex.grad y gradient in io[8..11];
 * offsets in io[12..14], the compare value in io[15]) of each lane in
 * mask, then the results (io[0..3]). Returns a ZN_KSTATUS. */
int32_t zn_exec_tex(zn_warp_ctx *w, uint32_t code, uint32_t mask, const uint64_t *handles,
                    uint64_t *io);

/* an IEEE half (its bits) as a float, exactly */
float zn_tex_half_to_float(uint16_t h);
/* and back, round to nearest even */
uint16_t zn_tex_float_to_half(float f);

#endif
