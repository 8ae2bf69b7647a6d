/* zn_lower_multicast.c: the .multicast::cluster forms of cp.async.bulk and
 * cp.async.bulk.tensor (sm_90): the data goes to the same offset in the
 * shared memory of every block of the cluster named in the 16-bit
 * ctaMask, and each of those blocks' mbarriers at the mbarrier's offset
 * completes the bytes.
 *
 * One loop over the ranks 0..15 (not unrolled: each step holds two lane
 * loops): the lanes whose mask has bit k copy (plain bulk copies; the
 * tensor runtime has copied already) and complete on rank k's mbarrier,
 * which another block's threads may update at once: in a module with
 * .shared::cluster the mbarrier updates are compare-and-swap loops
 * (zn_lower_mbarrier.c). */
#include "zn_lower.h"

void zn_lower_multicast(zn_lfn *l, LLVMValueRef cta_mask, LLVMValueRef dst, LLVMValueRef src,
                        LLVMValueRef mbar, LLVMValueRef n)
{
    zn_lmod *m = l->m;
    LLVMBuilderRef b = l->b;
    LLVMBasicBlockRef pre = LLVMGetInsertBlock(b);
    LLVMBasicBlockRef loop = LLVMAppendBasicBlockInContext(m->ctx, l->fn, "mc.rank");
    LLVMBasicBlockRef body = LLVMAppendBasicBlockInContext(m->ctx, l->fn, "mc.body");
    LLVMBasicBlockRef next = LLVMAppendBasicBlockInContext(m->ctx, l->fn, "mc.next");
    LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(m->ctx, l->fn, "mc.done");
    LLVMBuildBr(b, loop);

    LLVMPositionBuilderAtEnd(b, loop);
    LLVMValueRef k = LLVMBuildPhi(b, m->t_i32, "mc.k");
    LLVMValueRef zero = LLVMConstInt(m->t_i32, 0, 0);
    LLVMAddIncoming(k, &zero, &pre, 1);
    LLVMValueRef kv = ll_splat(l, k);
    LLVMValueRef bit = LLVMBuildAnd(b, LLVMBuildLShr(b, cta_mask, kv, ""),
                                    ll_const_vec(m->t_i32, 1), "");
    LLVMValueRef use = LLVMBuildAnd(b, l->emask, LLVMBuildICmp(b, LLVMIntNE, bit,
                                                               ll_const_vec(m->t_i32, 0), ""), "");
    LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntNE, ll_mask_to_i32(l, use), zero, ""), body, next);

    LLVMPositionBuilderAtEnd(b, body);
    LLVMValueRef saved = l->emask;
    l->emask = use;
    if (src)
        zn_bulk_copy(l, zn_cluster_rank_ptrs(l, dst, kv), src, n);
    zn_mbarrier_complete_tx(l, zn_cluster_rank_ptrs(l, mbar, kv), n);
    l->emask = saved;
    LLVMBuildBr(b, next);

    LLVMPositionBuilderAtEnd(b, next);
    LLVMValueRef k1 = LLVMBuildAdd(b, k, LLVMConstInt(m->t_i32, 1, 0), "");
    LLVMAddIncoming(k, &k1, &next, 1);
    LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntULT, k1, LLVMConstInt(m->t_i32, ZN_CLUSTER_MAX, 0),
                                     ""), loop, done);
    LLVMPositionBuilderAtEnd(b, done);
}
