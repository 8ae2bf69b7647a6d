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
 * on a CPU. Multicast to a cluster's blocks and the im2col mode are not
 * supported: an error at load time names the instruction. */
#include "zn_lower.h"
#include "../exec/zn_tma.h"

static bool has_mod(const ptx_ins *ins, int mod)
{
    for (unsigned i = 0; i < ins->nmods; i++)
        if (ins->mods[i] == mod)
            return true;
    return false;
}

static unsigned rank_of(const ptx_ins *ins)
{
    static const int dims[] = {PTX_MOD_g1d, PTX_MOD_g2d, PTX_MOD_g3d, PTX_MOD_g4d, PTX_MOD_g5d};
    for (unsigned r = 0; r < 5; r++)
        if (has_mod(ins, dims[r]))
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

static void io_put(zn_lfn *l, LLVMValueRef io, unsigned row, LLVMValueRef v)
{
    LLVMTypeRef i64v = ll_vec(l->m->t_i64);
    if (LLVMGetTypeKind(LLVMGetElementType(LLVMTypeOf(v))) == LLVMPointerTypeKind)
        v = LLVMBuildPtrToInt(l->b, v, i64v, "");
    else
        v = LLVMBuildSExt(l->b, v, i64v, "");
    LLVMBuildStore(l->b, v, io_row(l, io, row));
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

void zn_lower_tma(zn_lfn *l, const ptx_ins *ins)
{
    const ptx_opnd *o = ins->opnds;
    unsigned rank = rank_of(ins);
    bool store = ins->space == PTX_SPACE_GLOBAL && has_mod(ins, PTX_MOD_bulk_group);
    bool load = has_mod(ins, PTX_MOD_mbar_complete_tx);
    unsigned mi = load ? 1 : 0;     /* the [tensorMap, {coordinates}] operand */
    unsigned fixed = load ? 3 : 2;
    bool hint = has_mod(ins, PTX_MOD_L2_cache_hint);
    if (has_mod(ins, PTX_MOD_im2col) || has_mod(ins, PTX_MOD_multicast_cluster)) {
        zn_lerr(l, "cp.async.bulk.tensor: the im2col mode and multicast are not supported");
        return;
    }
    if (!rank || load == store || ins->nopnds != fixed + (hint ? 1u : 0u) ||
        o[0].kind != PTX_OPND_ADDR || o[1].kind != PTX_OPND_ADDR ||
        (load && o[2].kind != PTX_OPND_ADDR) || o[mi].nelems != 1 ||
        o[mi].elems[0].kind != PTX_OPND_VEC || o[mi].elems[0].nelems != rank ||
        (o[mi].reg < 0 && !o[mi].var)) {
        zn_lerr(l, "cp.async.bulk.tensor: expected the tile-mode load "
                   "(.shared::cluster.global.mbarrier::complete_tx::bytes) or store "
                   "(.global.shared::cta.bulk_group) with one coordinate per dimension");
        return;
    }
    LLVMValueRef io = ll_entry_alloca(l, LLVMArrayType2(ll_vec(l->m->t_i64), ZN_TMA_IO_ROWS),
                                      "tma.io");
    io_put(l, io, 0, zn_mem_ptrs(l, &o[load ? 0 : 1], PTX_SPACE_SHARED));
    io_put(l, io, 1, map_ptrs(l, &o[mi]));
    const ptx_opnd *v = &o[mi].elems[0];
    for (unsigned d = 0; d < rank; d++)
        io_put(l, io, 2 + d, zn_src(l, &v->elems[d], PTX_T_S32));
    call_rt(l, io, ZN_TMA_CODE(rank, store));
    if (load) {
        LLVMValueRef bytes = LLVMBuildLoad2(l->b, ll_vec(l->m->t_i64), io_row(l, io, 7), "");
        zn_mbarrier_complete_tx(l, zn_mem_ptrs(l, &o[2], PTX_SPACE_SHARED), bytes);
    }
}
