/* zn_lower_atom.c: atom and red on global/shared/generic addresses. Each
 * active lane does its own LLVM atomicrmw/cmpxchg, in ascending lane order,
 * and gets the old value back. PTX inc/dec match LLVM's uinc_wrap and
 * udec_wrap exactly. */
#include "zn_lower.h"

typedef struct atom_job {
    const ptx_ins *ins;
    LLVMValueRef ptrs, b, c;   /* vectors */
    LLVMTypeRef et;            /* scalar type */
    LLVMAtomicRMWBinOp op;
    bool cas;
} atom_job;

static LLVMValueRef atom_lane(zn_lfn *l, LLVMValueRef lane, void *ud)
{
    atom_job *j = ud;
    LLVMBuilderRef b = l->b;
    LLVMValueRef p = LLVMBuildExtractElement(b, j->ptrs, lane, "");
    LLVMValueRef v = LLVMBuildExtractElement(b, j->b, lane, "");
    LLVMAtomicOrdering ord = LLVMAtomicOrderingSequentiallyConsistent;
    if (j->cas) {
        LLVMValueRef c = LLVMBuildExtractElement(b, j->c, lane, "");
        LLVMValueRef cmp = v, nv = c;
        bool fp = ll_is_fp(j->et);
        LLVMTypeRef it = LLVMIntTypeInContext(l->m->ctx, ll_bits(j->et));
        if (fp) {
            cmp = LLVMBuildBitCast(b, cmp, it, "");
            nv = LLVMBuildBitCast(b, nv, it, "");
        }
        LLVMValueRef x = LLVMBuildAtomicCmpXchg(b, p, cmp, nv, ord, ord, 0);
        LLVMValueRef old = LLVMBuildExtractValue(b, x, 0, "");
        return fp ? LLVMBuildBitCast(b, old, j->et, "") : old;
    }
    return LLVMBuildAtomicRMW(b, j->op, p, v, ord, 0);
}

static bool pick_op(const ptx_ins *ins, ptx_type t, LLVMAtomicRMWBinOp *op)
{
    bool fp = ptx_type_is_float(t), sign = ptx_type_is_signed(t);
    switch (ins->subop) {
    case PTX_SUB_ADD: *op = fp ? LLVMAtomicRMWBinOpFAdd : LLVMAtomicRMWBinOpAdd; return true;
    case PTX_SUB_MIN:
        *op = fp ? LLVMAtomicRMWBinOpFMin : sign ? LLVMAtomicRMWBinOpMin : LLVMAtomicRMWBinOpUMin;
        return true;
    case PTX_SUB_MAX:
        *op = fp ? LLVMAtomicRMWBinOpFMax : sign ? LLVMAtomicRMWBinOpMax : LLVMAtomicRMWBinOpUMax;
        return true;
    case PTX_SUB_INC: *op = LLVMAtomicRMWBinOpUIncWrap; return !fp;
    case PTX_SUB_DEC: *op = LLVMAtomicRMWBinOpUDecWrap; return !fp;
    case PTX_SUB_EXCH: *op = LLVMAtomicRMWBinOpXchg; return true;
    case PTX_SUB_AND: *op = LLVMAtomicRMWBinOpAnd; return !fp;
    case PTX_SUB_OR: *op = LLVMAtomicRMWBinOpOr; return !fp;
    case PTX_SUB_XOR: *op = LLVMAtomicRMWBinOpXor; return !fp;
    default: return false;
    }
}

void zn_lower_atom(zn_lfn *l, const ptx_ins *ins)
{
    ptx_type t = ins->type[0];
    bool red = ins->op == PTX_OP_red;
    const ptx_opnd *o = ins->opnds;
    unsigned ai = red ? 0 : 1; /* index of [addr] */
    atom_job j = {.ins = ins, .cas = ins->subop == PTX_SUB_CAS};
    if (ins->vec > 1 || t == PTX_T_F16 || t == PTX_T_BF16 || t == PTX_T_F16X2 ||
        t == PTX_T_BF16X2 || t == PTX_T_B128 || (!j.cas && !pick_op(ins, t, &j.op)) ||
        ins->nopnds < ai + 2 || (j.cas && ins->nopnds < ai + 3)) {
        zn_lerr_unsupported(l);
        return;
    }
    j.et = zn_scalar_type(l->m, t);
    j.ptrs = zn_mem_ptrs(l, &o[ai], ins->space);
    zn_check_access(l, LLVMBuildPtrToInt(l->b, j.ptrs, ll_vec(l->m->t_i64), ""),
                    ll_bits(j.et) / 8, ins->space, ZN_CHECK_WRITE | ZN_CHECK_ATOMIC);
    j.b = zn_src(l, &o[ai + 1], t);
    if (j.cas)
        j.c = zn_src(l, &o[ai + 2], t);
    LLVMValueRef r = ll_lane_loop(l, l->emask, red ? NULL : j.et, atom_lane, &j);
    if (!red)
        zn_dst(l, &o[0], t, r);
}
