/* zn_abi_types.c: LLVM struct types that mirror exec/zn_kernel_abi.h.
 * Field order must follow the ZN_*_FIELD numbers; test_abi_layout checks
 * the offsets against the C structs. */
#include "zn_lower.h"

void zn_abi_types(zn_lmod *m)
{
    LLVMTypeRef i32 = m->t_i32, p = m->t_ptr;
    LLVMTypeRef a3 = LLVMArrayType2(i32, 3);

    LLVMTypeRef block[] = {
        [ZN_BLOCK_FIELD_CTAID] = a3,
        [ZN_BLOCK_FIELD_NCTAID] = a3,
        [ZN_BLOCK_FIELD_NTID] = a3,
        [ZN_BLOCK_FIELD_NTHREADS] = i32,
        [ZN_BLOCK_FIELD_SHARED] = p,
        [ZN_BLOCK_FIELD_SHARED_SIZE] = i32,
        [ZN_BLOCK_FIELD_DYN_SHARED_SIZE] = i32,
        [ZN_BLOCK_FIELD_PARAMS] = p,
        p, /* exec */
        [ZN_BLOCK_FIELD_GRID_WS] = p,
        [ZN_BLOCK_FIELD_CLUSTER_DIM] = a3,
        [ZN_BLOCK_FIELD_CLUSTER_FLAGS] = i32,
        [ZN_BLOCK_FIELD_CLUSTER] = p,
        [ZN_BLOCK_FIELD_WARPS_LEFT] = i32,
    };
    m->t_block = LLVMStructCreateNamed(m->ctx, "zn_block_ctx");
    LLVMStructSetBody(m->t_block, block, sizeof block / sizeof block[0], 0);

    LLVMTypeRef warp[] = {
        [ZN_WARP_FIELD_BLOCK] = p,
        [ZN_WARP_FIELD_WARPID] = i32,
        [ZN_WARP_FIELD_LIVE_MASK] = i32,
        [ZN_WARP_FIELD_RT] = p,
        [ZN_WARP_FIELD_SMID] = i32,
        [ZN_WARP_FIELD_NSMID] = i32,
        p, /* exec */
        [ZN_WARP_FIELD_CO_STATUS] = i32,
        [ZN_WARP_FIELD_CO_FRAME] = p,
        [ZN_WARP_FIELD_CO_WAIT] = LLVMInt64TypeInContext(m->ctx),
        [ZN_WARP_FIELD_CO_CAP] = LLVMInt64TypeInContext(m->ctx),
        [ZN_WARP_FIELD_TID] = LLVMArrayType2(LLVMArrayType2(i32, 32), 3),
    };
    m->t_warp = LLVMStructCreateNamed(m->ctx, "zn_warp_ctx");
    LLVMStructSetBody(m->t_warp, warp, sizeof warp / sizeof warp[0], 0);

    LLVMTypeRef rt[ZN_RT_NFIELDS];
    for (int i = 0; i < ZN_RT_NFIELDS; i++)
        rt[i] = p;
    m->t_rt = LLVMStructCreateNamed(m->ctx, "zn_rt_ops");
    LLVMStructSetBody(m->t_rt, rt, ZN_RT_NFIELDS, 0);
}
