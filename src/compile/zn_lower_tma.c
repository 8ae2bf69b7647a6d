/* zn_lower_tma.c: tensor memory access (sm_90), tile mode:
 *
 *   cp.async.bulk.tensor.Nd.shared::cluster.global{.tile}
 *       .mbarrier::complete_tx::bytes{.L2::cache_hint}
 *       [dst], [tensorMap, {c0, ..}], [mbar]{, policy};
 *   cp.async.bulk.tensor.Nd.global.shared::cta{.tile}.bulk_group
 *       {.L2::cache_hint} [tensorMap, {c0, ..}], [src]{, policy};
 *
 * Each active lane's box is copied by the runtime (rt->tma,
 * src/exec/zn_exec_tma.c) at once; a load then completes the box's bytes on
 * its mbarrier, in lane order. The cache policy is a hint with no meaning
 * on a CPU. With .multicast::cluster (one more operand, the 16-bit
 * ctaMask) the runtime copies the box to each block of the mask, and the
 * bytes complete on each one's mbarrier (zn_lower_multicast.c).
 *
 * The im2col mode: a load with .im2col takes one more operand after the
 * mbarrier, the im2col offsets {w, h, d} (16-bit, rank - 2 of them),
 * packed into one io row; stores and reductions with .im2col_no_offs use
 * the same pixel walk with no offsets (the map says the mode).
 *
 * Reductions, element by element and atomic (zn_exec_tma_reduce.c):
 *
 *   cp.reduce.async.bulk.tensor.Nd.global.shared::cta.op{.tile}.bulk_group
 *       [tensorMap, {c0, ..}], [src]       (the map's element type)
 *   cp.reduce.async.bulk.global.shared::cta.bulk_group.op{.noftz}.type
 *       [dst], [src], size{, policy}
 *   cp.reduce.async.bulk.shared::cluster.shared::cta
 *       .mbarrier::complete_tx::bytes.op.type [dst], [src], size, [mbar] */
#include "zn_lower.h"
#include "../exec/zn_tma.h"

static unsigned rank_of(const ptx_ins *ins)
{
    static const int dims[] = {PTX_MOD_g1d, PTX_MOD_g2d, PTX_MOD_g3d, PTX_MOD_g4d, PTX_MOD_g5d};
    for (unsigned r = 0; r < 5; r++)
        if (zn_has_mod(ins, dims[r]))
            return r + 1;
    return 0;
}

/* the tensor map's address: a register (generic, cvta.param of a
 * __grid_constant__ parameter) or a .param/.const/.global symbol */
static LLVMValueRef map_ptrs(zn_lfn *l, const ptx_opnd *a)
{
    ptx_opnd base = *a;
    base.elems = NULL;
    base.nelems = 0;
    ptx_space sp = a->reg < 0 && a->var ? a->var->space : PTX_SPACE_GENERIC;
    return zn_mem_ptrs(l, &base, sp);
}

static LLVMValueRef io_row(zn_lfn *l, LLVMValueRef io, unsigned row)
{
    LLVMValueRef idx[2] = {LLVMConstInt(l->m->t_i32, 0, 0), LLVMConstInt(l->m->t_i32, row, 0)};
    return LLVMBuildInBoundsGEP2(l->b, LLVMArrayType2(ll_vec(l->m->t_i64), ZN_TMA_IO_ROWS), io,
                                 idx, 2, "");
}

/* the rt->tma operand table: ZN_TMA_IO_ROWS rows of 32 lanes */
static LLVMValueRef new_io(zn_lfn *l)
{
    return ll_entry_alloca(l, LLVMArrayType2(ll_vec(l->m->t_i64), ZN_TMA_IO_ROWS), "tma.io");
}

static void io_put(zn_lfn *l, LLVMValueRef io, unsigned row, LLVMValueRef v)
{
    LLVMTypeRef i64v = ll_vec(l->m->t_i64);
    if (LLVMGetTypeKind(LLVMGetElementType(LLVMTypeOf(v))) == LLVMPointerTypeKind)
        v = LLVMBuildPtrToInt(l->b, v, i64v, "");
    else
        v = LLVMBuildSExt(l->b, v, i64v, "");
    LLVMBuildStore(l->b, v, io_row(l, io, row));
}

/* the im2col offsets {w, h, d} (16 bits each, unsigned) into row 9, W's
 * in the lowest bits */
static void io_put_offsets(zn_lfn *l, LLVMValueRef io, const ptx_opnd *v)
{
    LLVMTypeRef i64v = ll_vec(l->m->t_i64);
    LLVMValueRef packed = ll_const_vec(l->m->t_i64, 0);
    for (unsigned k = 0; k < v->nelems; k++) {
        LLVMValueRef e = LLVMBuildZExt(l->b, zn_src(l, &v->elems[k], PTX_T_U16), i64v, "");
        packed = LLVMBuildOr(l->b, packed,
                             LLVMBuildShl(l->b, e, ll_const_vec(l->m->t_i64, 16u * k), ""), "");
    }
    LLVMBuildStore(l->b, packed, io_row(l, io, 9));
}

/* rt->tma(w, code, mask, io) and the warp's exit on a nonzero status */
static void call_rt(zn_lfn *l, LLVMValueRef io, uint32_t code)
{
    zn_lmod *m = l->m;
    LLVMTypeRef at[4] = {m->t_ptr, m->t_i32, m->t_i32, m->t_ptr};
    LLVMValueRef args[4] = {l->w, LLVMConstInt(m->t_i32, code, 0), ll_mask_to_i32(l, l->emask),
                            io};
    LLVMValueRef r = LLVMBuildCall2(l->b, LLVMFunctionType(m->t_i32, at, 4, 0),
                                    ll_rt_fn(l, ZN_RT_TMA), args, 4, "tma");
    LLVMBasicBlockRef bad = LLVMAppendBasicBlockInContext(m->ctx, l->fn, "tma.bad");
    LLVMBasicBlockRef ok = LLVMAppendBasicBlockInContext(m->ctx, l->fn, "tma.ok");
    LLVMBuildCondBr(l->b, LLVMBuildICmp(l->b, LLVMIntNE, r, LLVMConstInt(m->t_i32, 0, 0), ""),
                    bad, ok);
    LLVMPositionBuilderAtEnd(l->b, bad);
    zn_return_status(l, r);
    LLVMPositionBuilderAtEnd(l->b, ok);
}

static unsigned red_of(const ptx_ins *ins)
{
    if (!zn_has_mod(ins, PTX_MOD_reduce_m))
        return ZN_TMA_RED_NONE;
    switch (ins->subop) {
    case PTX_SUB_ADD: return ZN_TMA_RED_ADD;
    case PTX_SUB_MIN: return ZN_TMA_RED_MIN;
    case PTX_SUB_MAX: return ZN_TMA_RED_MAX;
    case PTX_SUB_INC: return ZN_TMA_RED_INC;
    case PTX_SUB_DEC: return ZN_TMA_RED_DEC;
    case PTX_SUB_AND: return ZN_TMA_RED_AND;
    case PTX_SUB_OR: return ZN_TMA_RED_OR;
    case PTX_SUB_XOR: return ZN_TMA_RED_XOR;
    default: return ZN_TMA_RED_NONE;
    }
}

/* the element type of a reduction without a map, where the ISA allows
 * the operation on it (ZN_TMA_EL_NONE otherwise) */
static unsigned red_elem(unsigned op, ptx_type t)
{
    bool bits = op == ZN_TMA_RED_AND || op == ZN_TMA_RED_OR || op == ZN_TMA_RED_XOR;
    bool minmax = op == ZN_TMA_RED_MIN || op == ZN_TMA_RED_MAX;
    switch (t) {
    case PTX_T_B32: return bits ? ZN_TMA_EL_U32 : ZN_TMA_EL_NONE;
    case PTX_T_B64: return bits ? ZN_TMA_EL_U64 : ZN_TMA_EL_NONE;
    case PTX_T_U32: return bits ? ZN_TMA_EL_NONE : ZN_TMA_EL_U32;
    case PTX_T_S32: return op == ZN_TMA_RED_ADD || minmax ? ZN_TMA_EL_S32 : ZN_TMA_EL_NONE;
    case PTX_T_U64: return op == ZN_TMA_RED_ADD || minmax ? ZN_TMA_EL_U64 : ZN_TMA_EL_NONE;
    case PTX_T_S64: return minmax ? ZN_TMA_EL_S64 : ZN_TMA_EL_NONE;
    case PTX_T_F32: return op == ZN_TMA_RED_ADD ? ZN_TMA_EL_F32 : ZN_TMA_EL_NONE;
    case PTX_T_F64: return op == ZN_TMA_RED_ADD ? ZN_TMA_EL_F64 : ZN_TMA_EL_NONE;
    case PTX_T_F16: return op == ZN_TMA_RED_ADD || minmax ? ZN_TMA_EL_F16 : ZN_TMA_EL_NONE;
    case PTX_T_BF16: return op == ZN_TMA_RED_ADD || minmax ? ZN_TMA_EL_BF16 : ZN_TMA_EL_NONE;
    default: return ZN_TMA_EL_NONE;
    }
}

/* cp.reduce.async.bulk (no map): to global memory in a bulk group, or to
 * shared::cluster completing size bytes on an mbarrier */
static void lower_bulk_reduce(zn_lfn *l, const ptx_ins *ins)
{
    const ptx_opnd *o = ins->opnds;
    unsigned op = red_of(ins), el = red_elem(op, ins->type[0]);
    bool mbar = zn_has_mod(ins, PTX_MOD_mbar_complete_tx);
    unsigned want = mbar ? 4 : 3 + (zn_has_mod(ins, PTX_MOD_L2_cache_hint) ? 1u : 0u);
    if (!op || el == ZN_TMA_EL_NONE || ins->nopnds != want || o[0].kind != PTX_OPND_ADDR ||
        o[1].kind != PTX_OPND_ADDR || (mbar && o[3].kind != PTX_OPND_ADDR) ||
        (!mbar && !zn_has_mod(ins, PTX_MOD_bulk_group))) {
        zn_lerr(l, "cp.reduce.async.bulk: expected .global.shared::cta.bulk_group or "
                   ".shared::cluster.shared::cta.mbarrier::complete_tx::bytes with an "
                   "operation and type the ISA pairs");
        return;
    }
    LLVMValueRef io = new_io(l);
    io_put(l, io, 0, zn_mem_ptrs(l, &o[1], PTX_SPACE_SHARED));
    io_put(l, io, 1, zn_mem_ptrs(l, &o[0], mbar ? PTX_SPACE_SHARED : PTX_SPACE_GLOBAL));
    LLVMValueRef n = LLVMBuildZExt(l->b, zn_src(l, &o[2], PTX_T_U32), ll_vec(l->m->t_i64), "");
    LLVMBuildStore(l->b, n, io_row(l, io, 2));
    call_rt(l, io, ZN_TMA_CODE(0, true) | ZN_TMA_RED(op, el));
    if (mbar)
        zn_mbarrier_complete_tx(l, zn_mem_ptrs(l, &o[3], PTX_SPACE_SHARED), n);
}

void zn_lower_tma(zn_lfn *l, const ptx_ins *ins)
{
    const ptx_opnd *o = ins->opnds;
    unsigned rank = rank_of(ins), red = red_of(ins);
    if (zn_has_mod(ins, PTX_MOD_reduce_m) && !zn_has_mod(ins, PTX_MOD_tensor)) {
        lower_bulk_reduce(l, ins);
        return;
    }
    bool store = ins->space == PTX_SPACE_GLOBAL && zn_has_mod(ins, PTX_MOD_bulk_group);
    bool load = zn_has_mod(ins, PTX_MOD_mbar_complete_tx);
    unsigned mi = load ? 1 : 0;     /* the [tensorMap, {coordinates}] operand */
    unsigned fixed = load ? 3 : 2;
    bool hint = zn_has_mod(ins, PTX_MOD_L2_cache_hint);
    unsigned mc = zn_has_mod(ins, PTX_MOD_multicast_cluster) ? 1 : 0;
    bool im2col = zn_has_mod(ins, PTX_MOD_im2col), no_offs = zn_has_mod(ins, PTX_MOD_im2col_no_offs);
    unsigned offs = im2col ? 1 : 0;     /* the im2col offsets' operand */
    if (!rank || load == store || (zn_has_mod(ins, PTX_MOD_reduce_m) && (!red || load)) ||
        (mc && !load) || (im2col && (!load || rank < 3)) || (no_offs && (!store || rank < 3)) ||
        ins->nopnds != fixed + offs + mc + (hint ? 1u : 0u) ||
        (im2col && (o[3].kind != PTX_OPND_VEC || o[3].nelems != rank - 2)) ||
        o[0].kind != PTX_OPND_ADDR || o[1].kind != PTX_OPND_ADDR ||
        (load && o[2].kind != PTX_OPND_ADDR) || o[mi].nelems != 1 ||
        o[mi].elems[0].kind != PTX_OPND_VEC || o[mi].elems[0].nelems != rank ||
        (o[mi].reg < 0 && !o[mi].var)) {
        zn_lerr(l, "cp.async.bulk.tensor: expected a load "
                   "(.shared::cluster.global{.tile,.im2col}.mbarrier::complete_tx::bytes, "
                   "an im2col load with rank - 2 offsets) or a store "
                   "(.global.shared::cta{.tile,.im2col_no_offs}.bulk_group) with one "
                   "coordinate per dimension");
        return;
    }
    LLVMValueRef io = new_io(l);
    io_put(l, io, 0, zn_mem_ptrs(l, &o[load ? 0 : 1], PTX_SPACE_SHARED));
    io_put(l, io, 1, map_ptrs(l, &o[mi]));
    const ptx_opnd *v = &o[mi].elems[0];
    for (unsigned d = 0; d < rank; d++)
        io_put(l, io, 2 + d, zn_src(l, &v->elems[d], PTX_T_S32));
    if (im2col)
        io_put_offsets(l, io, &o[3]);
    else if (no_offs)
        LLVMBuildStore(l->b, ll_const_vec(l->m->t_i64, 0), io_row(l, io, 9));
    LLVMValueRef cta_mask = NULL;
    if (mc) {
        cta_mask = LLVMBuildAnd(l->b, zn_src(l, &o[3 + offs], PTX_T_U32),
                                ll_const_vec(l->m->t_i32, 0xffff), "");
        io_put(l, io, 8, cta_mask);
    }
    call_rt(l, io, ZN_TMA_CODE(rank, store) | ZN_TMA_RED(red, 0) | (mc ? ZN_TMA_MULTICAST : 0) |
                       (im2col || no_offs ? ZN_TMA_IM2COL : 0));
    if (mc) {
        LLVMValueRef bytes = LLVMBuildLoad2(l->b, ll_vec(l->m->t_i64), io_row(l, io, 7), "");
        zn_lower_multicast(l, cta_mask, zn_mem_addr(l, &o[0]), NULL, zn_mem_addr(l, &o[2]), bytes);
    } else if (load) {
        LLVMValueRef bytes = LLVMBuildLoad2(l->b, ll_vec(l->m->t_i64), io_row(l, io, 7), "");
        zn_mbarrier_complete_tx(l, zn_mem_ptrs(l, &o[2], PTX_SPACE_SHARED), bytes);
    }
}

/* tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release
 *     .{cta,cluster,gpu,sys}.sync.aligned [dst], [src], 128: a tensor map
 * written in shared memory, copied to global memory for the async proxy;
 * maps are read by plain loads here, so a copy then a fence */
void zn_lower_tensormap(zn_lfn *l, const ptx_ins *ins)
{
    const ptx_opnd *o = ins->opnds;
    if (zn_has_mod(ins, PTX_MOD_replace)) {
        zn_lower_tensormap_replace(l, ins); /* zn_lower_tmreplace.c */
        return;
    }
    if (!zn_has_mod(ins, PTX_MOD_cp_fenceproxy) || ins->nopnds != 3 ||
        o[0].kind != PTX_OPND_ADDR || o[1].kind != PTX_OPND_ADDR || o[2].kind != PTX_OPND_IMM ||
        o[2].ival != 128) {
        zn_lerr(l, "tensormap: only cp_fenceproxy of 128 bytes and replace");
        return;
    }
    zn_bulk_copy(l, zn_mem_ptrs(l, &o[0], PTX_SPACE_GLOBAL), zn_mem_ptrs(l, &o[1], PTX_SPACE_SHARED),
                 ll_const_vec(l->m->t_i64, 128));
    LLVMBuildFence(l->b, LLVMAtomicOrderingSequentiallyConsistent, 0, "");
}
