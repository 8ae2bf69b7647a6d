/* zn_lower_tmreplace.c: tensormap.replace (sm_90a), a kernel rewriting one
 * field of a tensor map in global or shared memory:
 *
 *   tensormap.replace.tile.{global_address,rank}{.ss}.b1024.type [map], v
 *   tensormap.replace.tile.{box_dim,global_dim,global_stride,element_stride}
 *       {.ss}.b1024.type [map], ord, v
 *   tensormap.replace.tile.{elemtype,interleave_layout,swizzle_mode,
 *       fill_mode}{.ss}.b1024.b32 [map], imm
 *
 * Each active lane stores into Zinc's encoding of the map (exec/zn_tma.h).
 * The values are those that code written for NVIDIA's GPUs passes (Triton's
 * and TransformerEngine's tensormap updates): the address, dimension sizes
 * and strides in bytes as they are, the rank less one, swizzle and fill as
 * CUtensorMapSwizzle / CUtensorMapFloatOOBfill number them, and the element
 * type in the ISA's own numbering (LLVM's NVVM dialect spells it out),
 * which follows CUtensorMapDataType up to .f32 (7) and then differs:
 * 8 .f32.ftz, 9 .f64, 10 .bf16, 11 .tf32, 12 .tf32.ftz; the packed 13-15
 * (sm_100) are a load-time error. A field set out of range fails the next
 * copy through the map (zn_exec_tma.c). */
#include "zn_lower.h"
#include "../exec/zn_tma.h"

#include <stddef.h>

/* the ISA's element types 0..12 -> CUtensorMapDataType (which the map
 * keeps, for reductions) and element bytes */
static const uint8_t isa_dtype[13] = {0, 1, 2, 3, 4, 5, 6, 7, 10, 8, 9, 11, 12};
static const uint8_t elem_bytes[13] = {1, 2, 4, 4, 8, 8, 2, 4, 4, 8, 2, 4, 4};

static void store(zn_lfn *l, LLVMValueRef map, size_t off, LLVMValueRef v, LLVMTypeRef t)
{
    zn_lmod *m = l->m;
    LLVMBuilderRef b = l->b;
    LLVMValueRef a = LLVMBuildAdd(b, map, ll_const_vec(m->t_i64, off), "");
    if (LLVMTypeOf(v) != ll_vec(t))
        v = LLVMBuildTrunc(b, v, ll_vec(t), "");
    zn_access_scatter(l, a, v, ll_bits(t) / 8);
}

static LLVMValueRef imm_vec(zn_lfn *l, LLVMTypeRef t, uint64_t v)
{
    return ll_const_vec(t, v);
}

void zn_lower_tensormap_replace(zn_lfn *l, const ptx_ins *ins)
{
    zn_lmod *m = l->m;
    LLVMBuilderRef b = l->b;
    const ptx_opnd *o = ins->opnds;
    bool ordered = zn_has_mod(ins, PTX_MOD_box_dim) || zn_has_mod(ins, PTX_MOD_global_dim) ||
                   zn_has_mod(ins, PTX_MOD_global_stride) || zn_has_mod(ins, PTX_MOD_element_stride);
    if (!zn_has_mod(ins, PTX_MOD_tile) || ins->nopnds != (ordered ? 3 : 2) ||
        o[0].kind != PTX_OPND_ADDR || (ordered && o[1].kind != PTX_OPND_IMM)) {
        zn_lerr_unsupported(l);
        return;
    }
    LLVMValueRef map = LLVMBuildPtrToInt(b, zn_mem_ptrs(l, &o[0], ins->space), ll_vec(m->t_i64), "");
    int64_t ord = ordered ? o[1].ival : 0;
    const ptx_opnd *val = &o[ordered ? 2 : 1];
    if (ord < 0 || ord >= ZN_TMA_MAX_RANK ||
        (zn_has_mod(ins, PTX_MOD_global_stride) && ord >= ZN_TMA_MAX_RANK - 1)) {
        zn_lerr(l, "tensormap.replace: dimension %lld out of range", (long long)ord);
        return;
    }
    if (zn_has_mod(ins, PTX_MOD_global_address)) {
        store(l, map, offsetof(zn_tmap, addr), zn_src(l, val, PTX_T_B64), m->t_i64);
    } else if (zn_has_mod(ins, PTX_MOD_rank_f)) {
        LLVMValueRef v = LLVMBuildAdd(b, zn_src(l, val, PTX_T_B32), imm_vec(l, m->t_i32, 1), "");
        store(l, map, offsetof(zn_tmap, rank), v, m->t_i8);
    } else if (zn_has_mod(ins, PTX_MOD_box_dim)) {
        store(l, map, offsetof(zn_tmap, box) + 2 * (size_t)ord, zn_src(l, val, PTX_T_B32), m->t_i16);
    } else if (zn_has_mod(ins, PTX_MOD_global_dim)) {
        LLVMValueRef v = LLVMBuildSub(b, zn_src(l, val, PTX_T_B32), imm_vec(l, m->t_i32, 1), "");
        store(l, map, offsetof(zn_tmap, dim_m1) + 4 * (size_t)ord, v, m->t_i32);
    } else if (zn_has_mod(ins, PTX_MOD_global_stride)) {
        store(l, map, offsetof(zn_tmap, stride) + 8 * (size_t)ord, zn_src(l, val, PTX_T_B64), m->t_i64);
    } else if (zn_has_mod(ins, PTX_MOD_element_stride)) {
        store(l, map, offsetof(zn_tmap, estride) + (size_t)ord, zn_src(l, val, PTX_T_B32), m->t_i8);
    } else if (val->kind != PTX_OPND_IMM) {
        zn_lerr_unsupported(l);
    } else if (zn_has_mod(ins, PTX_MOD_elemtype)) {
        if (val->ival < 0 || val->ival > 12) {
            zn_lerr(l, "tensormap.replace: element type %lld (a packed sm_100 type) is not "
                       "supported", (long long)val->ival);
            return;
        }
        store(l, map, offsetof(zn_tmap, dtype), imm_vec(l, m->t_i8, isa_dtype[val->ival]), m->t_i8);
        store(l, map, offsetof(zn_tmap, esize), imm_vec(l, m->t_i8, elem_bytes[val->ival]), m->t_i8);
    } else if (zn_has_mod(ins, PTX_MOD_interleave_layout) && val->ival == 0) {
        store(l, map, offsetof(zn_tmap, interleave), imm_vec(l, m->t_i8, 0), m->t_i8);
    } else if (zn_has_mod(ins, PTX_MOD_swizzle_mode) && val->ival >= 0 && val->ival <= 3) {
        store(l, map, offsetof(zn_tmap, swizzle), imm_vec(l, m->t_i8, (uint64_t)val->ival), m->t_i8);
    } else if (zn_has_mod(ins, PTX_MOD_fill_mode) && (val->ival == 0 || val->ival == 1)) {
        store(l, map, offsetof(zn_tmap, oob_nan), imm_vec(l, m->t_i8, (uint64_t)val->ival), m->t_i8);
    } else {
        /* swizzle_atomicity (sm_100), interleaved layouts, other values */
        zn_lerr_unsupported(l);
    }
}
