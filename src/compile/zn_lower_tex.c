/* zn_lower_tex.c: tex (plain, .level, .grad; 1d/2d/3d, layered, cube),
 * tld4, txq, suld.b and sust.b/.p on texture and surface objects (unified
 * mode: the handle is a .u64 register).
 *
 * Each instruction becomes one call of zn_rt_ops.tex for the whole warp
 * (src/exec/zn_exec_tex.c): the lanes' handles and coordinates (and sust
 * values) are stored into a [8 x <32 x i64>] buffer (12 or 16 rows for the
 * forms below), the runtime samples or accesses memory for the active
 * lanes and leaves the results in the same buffer. A nonzero status (a bad
 * handle, a surface access out of range with .trap) ends the kernel with
 * that status. tex.level passes its LOD in io[4], tex.grad its gradients
 * in io[4..6] and io[8..10] (a 12-row buffer), txq.level its level in
 * io[4]; sust.p stores .b32 values the runtime converts to the array's
 * format. The optional operands of tex and tld4, a texel offset vector
 * `{e}` and a depth compare value `f` (`tex.2d.v4.f32.f32 d, [t, {x, y}],
 * {ox, oy}, f;`), go to io[12..14] and io[15] of a 16-row buffer, flagged
 * in the code word. tld4 takes .2d, .a2d, .cube and .acube (level 0, or a
 * resource view's first level; the ISA has no tld4 with a LOD). The
 * sparse-texture form `{d}|p` (CUDA's tex2D(..., &isResident)) asks the
 * runtime (ZN_TEX_F_RESIDENT) whether every texel read was resident, an
 * answer it leaves in io[4]: always 1 but for unmapped tiles of a sparse
 * array (zn_drv_sparse.c). Texture references (.texref variables) and
 * independent mode ([tex, sampler, {...}]) are reported as unsupported.
 */
#include "zn_lower.h"
#include "../exec/zn_exec_tex.h"

static unsigned geometry(const ptx_ins *ins)
{
    if (zn_has_mod(ins, PTX_MOD_g1d))
        return ZN_TEX_G_1D;
    if (zn_has_mod(ins, PTX_MOD_g2d))
        return ZN_TEX_G_2D;
    if (zn_has_mod(ins, PTX_MOD_g3d))
        return ZN_TEX_G_3D;
    if (zn_has_mod(ins, PTX_MOD_a1d))
        return ZN_TEX_G_A1D;
    if (zn_has_mod(ins, PTX_MOD_a2d))
        return ZN_TEX_G_A2D;
    if (zn_has_mod(ins, PTX_MOD_cube))
        return ZN_TEX_G_CUBE;
    if (zn_has_mod(ins, PTX_MOD_acube))
        return ZN_TEX_G_ACUBE;
    return 0;
}

/* coordinates each geometry reads (layer first in layered ones) */
static unsigned ncoords(unsigned g)
{
    switch (g) {
    case ZN_TEX_G_1D: return 1;
    case ZN_TEX_G_2D: case ZN_TEX_G_A1D: return 2;
    case ZN_TEX_G_ACUBE: return 4;
    default: return 3;
    }
}

static bool layered_geom(unsigned g)
{
    return g == ZN_TEX_G_A1D || g == ZN_TEX_G_A2D || g == ZN_TEX_G_ACUBE;
}

/* components of a tex.grad gradient (the dimensions of the geometry) */
static unsigned grad_dims(unsigned g)
{
    return g == ZN_TEX_G_3D || g == ZN_TEX_G_CUBE || g == ZN_TEX_G_ACUBE ? 3
         : g == ZN_TEX_G_2D || g == ZN_TEX_G_A2D ? 2 : 1;
}

static int txq_query(const ptx_ins *ins)
{
    static const struct { int mod, q; } tab[] = {
        {PTX_MOD_width, ZN_TXQ_WIDTH}, {PTX_MOD_height, ZN_TXQ_HEIGHT},
        {PTX_MOD_depth, ZN_TXQ_DEPTH}, {PTX_MOD_channel_data_type, ZN_TXQ_CHANNEL_DATA_TYPE},
        {PTX_MOD_channel_order, ZN_TXQ_CHANNEL_ORDER},
        {PTX_MOD_normalized_coords, ZN_TXQ_NORMALIZED_COORDS},
        {PTX_MOD_filter_mode, ZN_TXQ_FILTER_MODE}, {PTX_MOD_addr_mode_0, ZN_TXQ_ADDR_MODE_0},
        {PTX_MOD_addr_mode_1, ZN_TXQ_ADDR_MODE_1}, {PTX_MOD_addr_mode_2, ZN_TXQ_ADDR_MODE_2},
        {PTX_MOD_array_size, ZN_TXQ_ARRAY_SIZE},
        {PTX_MOD_num_mipmap_levels, ZN_TXQ_NUM_MIPMAP_LEVELS},
        {PTX_MOD_num_samples, ZN_TXQ_NUM_SAMPLES},
    };
    for (unsigned i = 0; i < sizeof tab / sizeof tab[0]; i++)
        if (zn_has_mod(ins, tab[i].mod))
            return tab[i].q;
    return -1;
}

static int result_type(ptx_type t)
{
    switch (t) {
    case PTX_T_F32: return ZN_TEX_T_F32;
    case PTX_T_S32: return ZN_TEX_T_S32;
    case PTX_T_U32: return ZN_TEX_T_U32;
    default: return -1;
    }
}

static int log2_size(ptx_type t)
{
    switch (t) {
    case PTX_T_B8: return 0;
    case PTX_T_B16: return 1;
    case PTX_T_B32: return 2;
    case PTX_T_B64: return 3;
    default: return -1;
    }
}

typedef struct tex_call {
    LLVMValueRef io;            /* [8 x <32 x i64>] */
    LLVMTypeRef io_ty;
} tex_call;

static LLVMValueRef io_slot(zn_lfn *l, tex_call *c, unsigned k)
{
    LLVMValueRef idx[2] = {LLVMConstInt(l->m->t_i32, 0, 0), LLVMConstInt(l->m->t_i32, k, 0)};
    return LLVMBuildInBoundsGEP2(l->b, c->io_ty, c->io, idx, 2, "");
}

static void io_put(zn_lfn *l, tex_call *c, unsigned k, const ptx_opnd *o, ptx_type t)
{
    LLVMValueRef v = zn_src(l, o, t);
    LLVMBuildStore(l->b, ll_coerce(l, v, ll_vec(l->m->t_i64), false), io_slot(l, c, k));
}

static LLVMValueRef io_get(zn_lfn *l, tex_call *c, unsigned k, unsigned bits)
{
    LLVMValueRef v = LLVMBuildLoad2(l->b, ll_vec(l->m->t_i64), io_slot(l, c, k), "");
    return ll_coerce(l, v, ll_vec(LLVMIntTypeInContext(l->m->ctx, bits)), false);
}

/* The call itself and the exit on a nonzero status. */
static void emit_call(zn_lfn *l, tex_call *c, LLVMValueRef handles, uint32_t code)
{
    zn_lmod *m = l->m;
    LLVMValueRef hs = ll_entry_alloca(l, ll_vec(m->t_i64), "tex.h");
    LLVMBuildStore(l->b, handles, hs);
    LLVMTypeRef at[5] = {m->t_ptr, m->t_i32, m->t_i32, m->t_ptr, m->t_ptr};
    LLVMValueRef args[5] = {l->w, LLVMConstInt(m->t_i32, code, 0), ll_mask_to_i32(l, l->emask),
                            hs, c->io};
    LLVMValueRef r = LLVMBuildCall2(l->b, LLVMFunctionType(m->t_i32, at, 5, 0),
                                    ll_rt_fn(l, ZN_RT_TEX), args, 5, "");
    LLVMBasicBlockRef bad = LLVMAppendBasicBlockInContext(m->ctx, l->fn, "tex.bad");
    LLVMBasicBlockRef ok = LLVMAppendBasicBlockInContext(m->ctx, l->fn, "tex.ok");
    LLVMBuildCondBr(l->b, LLVMBuildICmp(l->b, LLVMIntNE, r, LLVMConstInt(m->t_i32, 0, 0), ""),
                    bad, ok);
    LLVMPositionBuilderAtEnd(l->b, bad);
    zn_return_status(l, r);
    LLVMPositionBuilderAtEnd(l->b, ok);
}

/* Operand checks shared by all five: [handle, {coords}] with a register
 * handle; returns the handles as <32 x i64> or NULL after an error. */
static LLVMValueRef handle_of(zn_lfn *l, const ptx_opnd *a, bool want_coords)
{
    if (a->kind != PTX_OPND_ADDR) {
        zn_lerr(l, "expected a [handle, {coordinates}] operand");
        return NULL;
    }
    if (a->reg < 0) {
        zn_lerr(l, "texture/surface references ('%s') are not supported: use texture "
                   "and surface objects", a->sym ? a->sym : "?");
        return NULL;
    }
    if (want_coords ? a->nelems != 1 || a->elems[0].kind != PTX_OPND_VEC : a->nelems != 0) {
        zn_lerr(l, a->nelems > 1 ? "independent texture mode (a separate sampler) is not "
                                   "supported" : "malformed texture/surface address");
        return NULL;
    }
    return ll_coerce(l, zn_load_reg(l, a->reg), ll_vec(l->m->t_i64), false);
}

/* a LOD, level or gradient component: a register or an immediate */
static bool scalar_opnd(const ptx_opnd *o)
{
    return o->kind == PTX_OPND_REG || o->kind == PTX_OPND_IMM || o->kind == PTX_OPND_FIMM;
}

static void store_coords(zn_lfn *l, tex_call *c, const ptx_opnd *v, unsigned g, ptx_type ct)
{
    unsigned n = ncoords(g);
    bool layered = layered_geom(g);
    for (unsigned k = 0; k < n && k < v->nelems; k++)
        io_put(l, c, k, &v->elems[k], layered && k == 0 ? PTX_T_U32 : ct);
}

/* components of a texel offset vector: 1d and a1d one, 2d and a2d two,
 * 3d three (of a four-element vector) */
static unsigned offset_dims(unsigned g)
{
    return g == ZN_TEX_G_3D ? 3 : g == ZN_TEX_G_2D || g == ZN_TEX_G_A2D ? 2 : 1;
}

/* The optional trailing operands of tex / tld4 after the `fixed` ones: a
 * texel offset vector {e} (not on cubemaps) and a depth compare value f
 * (not on 3d; float coordinates only), as ptxas accepts them. Stores them
 * in io[12..15]; returns the ZN_TEX_F_* flags, or ~0u after an error. */
static uint32_t optional_opnds(zn_lfn *l, const ptx_ins *ins, tex_call *c, unsigned fixed,
                               unsigned g, ptx_type ct)
{
    uint32_t flags = 0;
    unsigned i = fixed;
    bool cube = g == ZN_TEX_G_CUBE || g == ZN_TEX_G_ACUBE;
    if (i < ins->nopnds && ins->opnds[i].kind == PTX_OPND_VEC) {
        const ptx_opnd *v = &ins->opnds[i++];
        unsigned n = offset_dims(g);
        if (cube || v->nelems < n) {
            zn_lerr(l, cube ? "cubemap lookups take no texel offset"
                            : "texel offset: expected %u components", n);
            return ~0u;
        }
        for (unsigned k = 0; k < n; k++) {
            if (!scalar_opnd(&v->elems[k])) {
                zn_lerr(l, "texel offset: expected .s32 registers or immediates");
                return ~0u;
            }
            io_put(l, c, ZN_TEX_IO_OFFSET + k, &v->elems[k], PTX_T_S32);
        }
        flags |= ZN_TEX_F_OFFSET;
    }
    if (i < ins->nopnds) {
        const ptx_opnd *f = &ins->opnds[i++];
        if (!scalar_opnd(f) || g == ZN_TEX_G_3D || ct != PTX_T_F32) {
            zn_lerr(l, g == ZN_TEX_G_3D ? "3d lookups take no depth compare value"
                       : ct != PTX_T_F32 ? "depth compare needs .f32 coordinates"
                                         : "depth compare: expected a scalar .f32 value");
            return ~0u;
        }
        io_put(l, c, ZN_TEX_IO_COMPARE, f, PTX_T_F32);
        flags |= ZN_TEX_F_COMPARE;
    }
    if (i != ins->nopnds) {
        zn_lerr(l, "too many texture operands");
        return ~0u;
    }
    return flags;
}

static void lower_sample(zn_lfn *l, const ptx_ins *ins, tex_call *c)
{
    bool tld4 = ins->op == PTX_OP_tld4;
    unsigned g = geometry(ins);
    int rt = result_type(ins->type[0]);
    ptx_type ct = ins->ntypes > 1 ? ins->type[1] : PTX_T_F32;
    const ptx_opnd *d = &ins->opnds[0];
    bool cube = g == ZN_TEX_G_CUBE || g == ZN_TEX_G_ACUBE;
    unsigned lod = zn_has_mod(ins, PTX_MOD_level) ? ZN_TEX_LOD_LEVEL
                 : zn_has_mod(ins, PTX_MOD_grad) ? ZN_TEX_LOD_GRAD : ZN_TEX_LOD_ZERO;
    unsigned nops = lod == ZN_TEX_LOD_LEVEL ? 3 : lod == ZN_TEX_LOD_GRAD ? 4 : 2;
    /* tld4 takes .2d, .a2d, .cube and .acube and no LOD (ptxas knows no
     * tld4.level) */
    if (!g ||
        (tld4 && ((g != ZN_TEX_G_2D && g != ZN_TEX_G_A2D && !cube) || lod ||
                  ct != PTX_T_F32)) ||
        rt < 0 || ins->vec != 4 ||
        (ct != PTX_T_F32 && ct != PTX_T_S32) || ((cube || lod) && ct != PTX_T_F32) ||
        ins->nopnds < nops || ins->nopnds > nops + 2 ||
        d->kind != PTX_OPND_VEC || d->nelems != 4) {
        zn_lerr_unsupported(l);
        return;
    }
    unsigned comp = 0;
    if (tld4) {
        comp = (ins->flags & PTX_F(right)) ? 0 : zn_has_mod(ins, PTX_MOD_g) ? 1
             : zn_has_mod(ins, PTX_MOD_b) ? 2 : zn_has_mod(ins, PTX_MOD_a) ? 3 : 4;
        if (comp == 4) {
            zn_lerr_unsupported(l);
            return;
        }
    }
    LLVMValueRef h = handle_of(l, &ins->opnds[1], true);
    if (!h)
        return;
    if (ins->opnds[1].elems[0].nelems < ncoords(g)) {
        zn_lerr(l, "too few texture coordinates");
        return;
    }
    store_coords(l, c, &ins->opnds[1].elems[0], g, ct);
    if (lod == ZN_TEX_LOD_LEVEL) {
        if (!scalar_opnd(&ins->opnds[2])) {
            zn_lerr(l, "tex.level: expected a scalar level of detail");
            return;
        }
        io_put(l, c, 4, &ins->opnds[2], PTX_T_F32);
    } else if (lod == ZN_TEX_LOD_GRAD) {
        unsigned n = grad_dims(g);
        for (unsigned k = 0; k < 2; k++) {
            const ptx_opnd *v = &ins->opnds[2 + k];
            bool vec = v->kind == PTX_OPND_VEC;
            if ((vec ? v->nelems : 1u) < n) {
                zn_lerr(l, "tex.grad: expected %u gradient components", n);
                return;
            }
            for (unsigned j = 0; j < n; j++) {
                const ptx_opnd *e = vec ? &v->elems[j] : v;
                if (!scalar_opnd(e)) {
                    zn_lerr(l, "tex.grad: malformed gradient");
                    return;
                }
                io_put(l, c, 4 + 4 * k + j, e, PTX_T_F32);
            }
        }
    }
    uint32_t opt = optional_opnds(l, ins, c, nops, g, ct);
    if (opt == ~0u)
        return;
    bool resident = d->pair && d->reg2 >= 0;
    if (resident)
        opt |= ZN_TEX_F_RESIDENT;
    emit_call(l, c, h, ZN_TEX_CODE(tld4 ? ZN_TEX_K_TLD4 : ZN_TEX_K_TEX, g,
                                   ct == PTX_T_S32 ? ZN_TEX_T_S32 : ZN_TEX_T_F32, rt,
                                   tld4 ? comp : lod, 0, 4) | opt);
    for (unsigned k = 0; k < 4; k++)
        zn_dst(l, &d->elems[k], ins->type[0], io_get(l, c, k, 32));
    /* {d}|p: the runtime's residency answer, per lane */
    if (resident) {
        LLVMValueRef r = io_get(l, c, ZN_TEX_IO_RESIDENT, 32);
        zn_dst_reg(l, d->reg2, PTX_T_PRED,
                   LLVMBuildICmp(l->b, LLVMIntNE, r, LLVMConstNull(LLVMTypeOf(r)), ""));
    }
}

static void lower_txq(zn_lfn *l, const ptx_ins *ins, tex_call *c)
{
    int q = txq_query(ins);
    /* txq.level.{width,height,depth} d, [t], lod: the sizes of mip level lod */
    bool level = zn_has_mod(ins, PTX_MOD_level);
    if (q < 0 || ins->nopnds != (level ? 3u : 2u) ||
        (level && q != ZN_TXQ_WIDTH && q != ZN_TXQ_HEIGHT && q != ZN_TXQ_DEPTH)) {
        zn_lerr_unsupported(l);
        return;
    }
    LLVMValueRef h = handle_of(l, &ins->opnds[1], false);
    if (!h)
        return;
    if (level && !scalar_opnd(&ins->opnds[2])) {
        zn_lerr(l, "txq.level: expected a scalar level");
        return;
    }
    if (level)
        io_put(l, c, 4, &ins->opnds[2], PTX_T_S32);
    emit_call(l, c, h, ZN_TEX_CODE(ZN_TEX_K_TXQ, 0, 0, 0, level, q, 1));
    zn_dst(l, &ins->opnds[0], PTX_T_B32, io_get(l, c, 0, 32));
}

static void lower_surface(zn_lfn *l, const ptx_ins *ins, tex_call *c)
{
    bool st = ins->op == PTX_OP_sust, fmt = st && zn_has_mod(ins, PTX_MOD_p_fmt);
    unsigned g = geometry(ins), vec = ins->vec ? ins->vec : 1;
    int lg = log2_size(ins->type[0]);
    unsigned mode = zn_has_mod(ins, PTX_MOD_zero) ? ZN_SU_ZERO
                  : (ins->flags & PTX_F(clamp)) ? ZN_SU_CLAMP : ZN_SU_TRAP;
    const ptx_opnd *a = &ins->opnds[st ? 0 : 1], *v = &ins->opnds[st ? 1 : 0];
    if ((fmt ? lg != 2 : !zn_has_mod(ins, PTX_MOD_b)) || !g || g > ZN_TEX_G_A2D || lg < 0 ||
        (vec != 1 && vec != 2 && vec != 4) || (lg == 3 && vec == 4) || ins->nopnds != 2) {
        zn_lerr_unsupported(l); /* suld.p does not exist; sust.p takes .b32 */
        return;
    }
    unsigned nv = v->kind == PTX_OPND_VEC ? v->nelems : 1;
    if (nv != vec) {
        zn_lerr(l, "expected %u values", vec);
        return;
    }
    LLVMValueRef h = handle_of(l, a, true);
    if (!h)
        return;
    if (a->elems[0].nelems < ncoords(g)) {
        zn_lerr(l, "too few surface coordinates");
        return;
    }
    store_coords(l, c, &a->elems[0], g, PTX_T_S32);
    if (st)
        for (unsigned k = 0; k < vec; k++)
            io_put(l, c, 4 + k, v->kind == PTX_OPND_VEC ? &v->elems[k] : v, ins->type[0]);
    emit_call(l, c, h, ZN_TEX_CODE(fmt ? ZN_TEX_K_SUSTP : st ? ZN_TEX_K_SUST : ZN_TEX_K_SULD,
                                   g, ZN_TEX_T_S32, 0, mode, lg, vec));
    if (!st)
        for (unsigned k = 0; k < vec; k++)
            zn_dst(l, v->kind == PTX_OPND_VEC ? &v->elems[k] : v, ins->type[0],
                   io_get(l, c, k, 8u << lg));
}

void zn_lower_tex(zn_lfn *l, const ptx_ins *ins)
{
    tex_call c;
    /* tex.grad needs rows 8..11 for its y gradient; offsets and a compare
     * value (operands past the fixed ones) rows 12..15 */
    bool sample = ins->op == PTX_OP_tex || ins->op == PTX_OP_tld4;
    bool grad = ins->op == PTX_OP_tex && zn_has_mod(ins, PTX_MOD_grad);
    unsigned fixed = zn_has_mod(ins, PTX_MOD_level) ? 3 : grad ? 4 : 2;
    unsigned rows = sample && ins->nopnds > fixed ? 16 : grad ? 12 : 8;
    c.io_ty = LLVMArrayType2(ll_vec(l->m->t_i64), rows);
    c.io = ll_entry_alloca(l, c.io_ty, "tex.io");
    switch (ins->op) {
    case PTX_OP_tex: case PTX_OP_tld4:
        lower_sample(l, ins, &c);
        return;
    case PTX_OP_txq:
        lower_txq(l, ins, &c);
        return;
    default:
        lower_surface(l, ins, &c);
    }
}
