/* zn_lower_shape.c: code for one block shape (issue #9).
 *
 * The JIT compiles a kernel for the block shape of its first launch
 * (zn_jit_kernel_code, zn_compile_opts.block) and keeps the generic code
 * for other shapes. With the shape known, %ntid and %nwarpid are constants,
 * so the run-time layout facts of the affine-address analysis (ntid.x a
 * multiple of 32, a power of two below it, ...) fold away with the access
 * paths they guard, and %tid is computed from the warp's index in a form
 * that shows which lanes are consecutive:
 *   - ntid.x % 32 == 0: tid.x = (32 w) % X + lane, tid.y and tid.z the same
 *     in all lanes (uniform: scalar registers, plain branches);
 *   - X * Y divides 32: tid.x and tid.y constant vectors, tid.z = 32 w /
 *     (X Y) + lane / (X Y);
 *   - X divides 32 and Y a multiple of 32 / X: tid.x constant, tid.y =
 *     (32 w / X) % Y + lane / X, tid.z uniform;
 *   - one warp: every %tid a constant vector.
 * Each form equals zn_warp_set_tid's t % X, (t / X) % Y, t / (X Y) for
 * t = 32 w + lane in all 32 lanes, live or not. Other shapes (33 x 3)
 * load %tid as the generic code does. */
#include "zn_lower.h"

const uint32_t *zn_fixed_block(const zn_lmod *m)
{
    return m->opts && m->opts->block[0] ? m->opts->block : NULL;
}

/* the layout that zn_fixed_tid computes for shape n */
typedef enum shape_form {
    FORM_NONE,
    FORM_ONE_WARP,   /* X Y Z <= 32 */
    FORM_ROWS_WHOLE, /* X % 32 == 0 */
    FORM_PLANES,     /* 32 % (X Y) == 0 */
    FORM_ROWS,       /* 32 % X == 0, Y % (32 / X) == 0 */
} shape_form;

static shape_form form_of(const uint32_t n[3])
{
    uint64_t xy = (uint64_t)n[0] * n[1];
    if (xy * n[2] <= ZN_LANES)
        return FORM_ONE_WARP;
    if (n[0] % ZN_LANES == 0)
        return FORM_ROWS_WHOLE;
    if (ZN_LANES % xy == 0)
        return FORM_PLANES;
    if (ZN_LANES % n[0] == 0 && n[1] % (ZN_LANES / n[0]) == 0)
        return FORM_ROWS;
    return FORM_NONE;
}

bool zn_fixed_tid_uniform(const zn_lmod *m, ptx_sreg s)
{
    const uint32_t *n = zn_fixed_block(m);
    if (!n)
        return false;
    switch (s) {
    case PTX_SREG_TID_X: return n[0] == 1;
    case PTX_SREG_TID_Y: return n[0] % ZN_LANES == 0 || (n[0] == 1 && n[1] == 1);
    case PTX_SREG_TID_Z: return ((uint64_t)n[0] * n[1]) % ZN_LANES == 0 || n[2] == 1;
    default: return false;
    }
}

static LLVMValueRef c32(zn_lfn *l, uint32_t v)
{
    return LLVMConstInt(l->m->t_i32, v, 0);
}

/* <32 x i32> of what lane i adds: i % X (d = 0), (i / X) % Y (d = 1),
 * i / div (d = 2) */
static LLVMValueRef lane_consts(zn_lfn *l, const uint32_t n[3], unsigned d, uint32_t div)
{
    LLVMValueRef e[ZN_LANES];
    for (uint32_t i = 0; i < ZN_LANES; i++)
        e[i] = c32(l, d == 0 ? i % n[0] : d == 1 ? (i / n[0]) % n[1] : i / div);
    return LLVMConstVector(e, ZN_LANES);
}

LLVMValueRef zn_fixed_tid(zn_lfn *l, unsigned d)
{
    const uint32_t *n = zn_fixed_block(l->m);
    if (!n)
        return NULL;
    shape_form form = form_of(n);
    if (form == FORM_NONE)
        return NULL;
    uint32_t xy = n[0] * n[1];
    if (form == FORM_ONE_WARP)  /* warp 0: t = lane */
        return lane_consts(l, n, d, xy);
    zn_lmod *m = l->m;
    LLVMBuilderRef b = l->b;
    LLVMValueRef w32 = LLVMBuildMul(b, ll_load_field(l, m->t_warp, l->w, ZN_WARP_FIELD_WARPID,
                                                     m->t_i32), c32(l, ZN_LANES), "t0");
    switch (form) {
    case FORM_ROWS_WHOLE: {
        if (d == 0)
            return LLVMBuildAdd(b, ll_splat(l, LLVMBuildURem(b, w32, c32(l, n[0]), "")),
                                l->lane_ids, "tid.x");
        LLVMValueRef q = LLVMBuildUDiv(b, w32, c32(l, n[0]), "");
        return ll_splat(l, d == 1 ? LLVMBuildURem(b, q, c32(l, n[1]), "")
                                  : LLVMBuildUDiv(b, q, c32(l, n[1]), ""));
    }
    case FORM_PLANES:
        if (d < 2)
            return lane_consts(l, n, d, xy);
        return LLVMBuildAdd(b, ll_splat(l, LLVMBuildUDiv(b, w32, c32(l, xy), "")),
                            lane_consts(l, n, 2, xy), "tid.z");
    default: { /* FORM_ROWS */
        if (d == 0)
            return lane_consts(l, n, 0, 1);
        LLVMValueRef q = LLVMBuildUDiv(b, w32, c32(l, n[0]), "");
        if (d == 2)
            return ll_splat(l, LLVMBuildUDiv(b, q, c32(l, n[1]), ""));
        return LLVMBuildAdd(b, ll_splat(l, LLVMBuildURem(b, q, c32(l, n[1]), "")),
                            lane_consts(l, n, 2, n[0]), "tid.y");
    }
    }
}

LLVMValueRef zn_fixed_live_mask(zn_lfn *l)
{
    const uint32_t *n = zn_fixed_block(l->m);
    if (!n)
        return NULL;
    /* zn_exec_block.c: only a block's last warp can be partial */
    uint64_t threads = (uint64_t)n[0] * n[1] * n[2];
    if (threads % ZN_LANES == 0)
        return c32(l, UINT32_MAX);
    if (threads < ZN_LANES)
        return c32(l, (1u << threads) - 1);
    return NULL;
}

void zn_fixed_shape_sregs(zn_lfn *l)
{
    const uint32_t *n = zn_fixed_block(l->m);
    if (!n)
        return;
    LLVMValueRef *c = l->sreg_cache;
    for (unsigned d = 0; d < 3; d++)
        c[PTX_SREG_NTID_X + d] = ll_const_vec(l->m->t_i32, n[d]);
    uint64_t threads = (uint64_t)n[0] * n[1] * n[2];
    c[PTX_SREG_NWARPID] = ll_const_vec(l->m->t_i32, (threads + ZN_LANES - 1) / ZN_LANES);
}
