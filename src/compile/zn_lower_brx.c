/* zn_lower_brx.c: brx.idx (indirect branch through a .branchtargets
 * list). Each lane's pc becomes the block of its target and the dispatcher
 * runs the lowest waiting block, as after any divergent branch; lanes whose
 * guard is false go on to the next block. An index outside the list sends
 * the lane to the last target (undefined in PTX). */
#include "zn_lower.h"

void zn_lower_brx(zn_lfn *l, const ptx_ins *ins)
{
    zn_lmod *m = l->m;
    LLVMBuilderRef b = l->b;
    const ptx_opnd *list = ins->nopnds >= 2 ? &ins->opnds[1] : NULL;
    if (!list || list->kind != PTX_OPND_LIST || !list->nelems) {
        zn_lerr(l, "brx.idx needs a .branchtargets list");
        return;
    }
    LLVMTypeRef v32 = ll_vec(m->t_i32);
    LLVMValueRef idx = zn_src(l, &ins->opnds[0], PTX_T_U32);
    LLVMValueRef tgt = NULL;
    for (uint32_t i = list->nelems; i-- > 0;) {
        const ptx_opnd *e = &list->elems[i];
        if (e->kind != PTX_OPND_LABEL || e->label < 0 || (uint32_t)e->label >= l->f->nlabels) {
            zn_lerr(l, "brx.idx target must be a label");
            return;
        }
        uint32_t T = l->block_of_ins[l->f->labels[e->label].ins];
        if (T >= l->nblocks)
            T = ZN_PC_DONE;
        else
            l->goto_target[T] = true;
        LLVMValueRef vT = ll_const_vec(m->t_i32, T);
        tgt = tgt ? LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntEQ, idx, ll_const_vec(m->t_i32, i), ""),
                                    vT, tgt, "")
                  : vT;
    }
    uint32_t next = l->cur_block + 1;
    if (next >= l->nblocks)
        next = ZN_PC_DONE;
    else
        l->goto_target[next] = true;
    LLVMValueRef pc = LLVMBuildLoad2(b, v32, l->pc_slot, "pc");
    LLVMValueRef npc = LLVMBuildSelect(b, l->emask, tgt,
        LLVMBuildSelect(b, l->mask, ll_const_vec(m->t_i32, next), pc, ""), "");
    LLVMBuildStore(b, npc, l->pc_slot);
    LLVMBuildBr(b, l->dispatch_bb);
    l->terminated = true;
}
