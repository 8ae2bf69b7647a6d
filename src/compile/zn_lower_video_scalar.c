/* zn_lower_video_scalar.c: the scalar video instructions, in the PTX ISA's
 * stages (Scalar Video Instructions):
 *
 *     vop.dtype.atype.btype{.sat}{.op2} d{.dsel}, a{.asel}, b{.bsel}{, c};
 *     vop = vadd vsub vabsdiff vmin vmax; vshl/vshr.dtype.atype.u32 with
 *     .clamp or .wrap; vset.atype.btype.cmp (no .sat, result 1 or 0);
 *     vmad.dtype.atype.btype{.po}{.sat}{.shr7|.shr15} d, {-}a, {-}b, {-}c
 *
 * 1. a and b: the selected byte (.b0-.b3), half (.h0/.h1) or the word,
 *    sign- or zero-extended by its type to 33 bits (here i64);
 * 2. the operation, exact, an .s34 value (vshl keeps the shifted value's
 *    low 34 bits, sign-extended: the width the ISA gives the intermediate);
 * 3. .sat clamps to dtype's range, of the byte or half that d.dsel names,
 *    else of 32 bits;
 * 4. .add/.min/.max with c (extended by dtype), or d.dsel merges the low
 *    byte or half into c's bits; d is the low 32 bits.
 * vmad follows its own pseudocode: a 128-bit product, one's complement
 * negation plus one, c sign-extended when the final result is signed. */
#include "zn_lower.h"

static LLVMValueRef c64(zn_lfn *l, uint64_t v)
{
    return ll_const_vec(l->m->t_i64, v);
}

static LLVMTypeRef vi64(zn_lfn *l)
{
    return ll_vec(l->m->t_i64);
}

/* partSelectSignExtend: the selected part of o, extended to i64 */
static LLVMValueRef part(zn_lfn *l, const ptx_opnd *o, bool sign)
{
    LLVMValueRef v = zn_src(l, o, PTX_T_U32);
    if (o->vsel)
        v = ll_unpack(l, v, o->vsel == 'b' ? 8 : 16, o->sel[0], sign);
    return sign ? LLVMBuildSExt(l->b, v, vi64(l), "") : LLVMBuildZExt(l->b, v, vi64(l), "");
}

static LLVMValueRef clamp(zn_lfn *l, LLVMValueRef v, int64_t lo, int64_t hi)
{
    v = ll_intrin2(l, "llvm.smax", v, c64(l, (uint64_t)lo));
    return ll_intrin2(l, "llvm.smin", v, c64(l, (uint64_t)hi));
}

/* vshl/vshr: the shift count clamped to 32 or wrapped to 0..31 */
static LLVMValueRef shift(zn_lfn *l, const ptx_ins *ins, LLVMValueRef x, LLVMValueRef n)
{
    LLVMBuilderRef b = l->b;
    if (ins->flags & PTX_F(wrap))
        n = LLVMBuildAnd(b, n, c64(l, 31), "");
    else
        n = ll_intrin2(l, "llvm.umin", n, c64(l, 32));
    if (ins->op == PTX_OP_vshr)
        return LLVMBuildAShr(b, x, n, "");
    LLVMValueRef s = LLVMBuildShl(b, x, n, "");
    return LLVMBuildAShr(b, LLVMBuildShl(b, s, c64(l, 30), ""), c64(l, 30), "");
}

/* optMerge: the low byte or half of r in the place d.dsel names, the rest
 * of c (both i32) */
static LLVMValueRef merge(zn_lfn *l, const ptx_opnd *d, LLVMValueRef r, LLVMValueRef c)
{
    LLVMBuilderRef b = l->b;
    unsigned w = d->vsel == 'b' ? 8 : 16, at = w * d->sel[0];
    uint32_t field = (uint32_t)((1ull << w) - 1) << at;
    r = LLVMBuildAnd(b, LLVMBuildShl(b, r, ll_const_vec(l->m->t_i32, at), ""),
                     ll_const_vec(l->m->t_i32, field), "");
    return LLVMBuildOr(b, r, LLVMBuildAnd(b, c, ll_const_vec(l->m->t_i32, ~field), ""), "");
}

static bool scalar_ok(const ptx_ins *ins)
{
    bool set = ins->op == PTX_OP_vset, shifts = ins->op == PTX_OP_vshl || ins->op == PTX_OP_vshr;
    unsigned nt = set ? 2 : 3;
    bool ok = ins->ntypes == nt && ins->subop <= PTX_SUB_MAX &&
              (ins->subop == PTX_SUB_NONE || ins->nopnds == 4);
    for (unsigned i = 0; ok && i < nt; i++)
        ok = zn_video_type_ok(ins->type[i]);
    if (set)
        return ok && !(ins->flags & PTX_F(sat)) && ins->cmp >= PTX_CMP_EQ &&
               ins->cmp <= PTX_CMP_GE;
    bool clamp = (ins->flags & PTX_F(clamp)) != 0, wrap = (ins->flags & PTX_F(wrap)) != 0;
    return ok && (!shifts || (ins->type[2] == PTX_T_U32 && clamp != wrap));
}

static void lower_vmad(zn_lfn *l, const ptx_ins *ins);

void zn_lower_video_scalar(zn_lfn *l, const ptx_ins *ins)
{
    LLVMBuilderRef b = l->b;
    const ptx_opnd *o = ins->opnds;
    if (ins->op == PTX_OP_vmad) {
        lower_vmad(l, ins);
        return;
    }
    if (!scalar_ok(ins)) {
        zn_lerr(l, "scalar video instruction: types .dtype.atype.btype of .u32/.s32 (vset:"
                   " .atype.btype and eq/ne/lt/le/gt/ge; vshl/vshr: .u32 btype and .clamp or"
                   " .wrap), .add/.min/.max only with operand c");
        return;
    }
    bool set = ins->op == PTX_OP_vset;
    unsigned nt = set ? 2 : 3;
    bool sd = !set && ins->type[0] == PTX_T_S32;
    LLVMValueRef x = part(l, &o[1], ins->type[nt - 2] == PTX_T_S32);
    LLVMValueRef y = part(l, &o[2], ins->type[nt - 1] == PTX_T_S32);
    LLVMValueRef r;
    if (set)
        r = LLVMBuildZExt(b, zn_video_cmp(l, ins->cmp, x, y), vi64(l), "");
    else if (ins->op == PTX_OP_vshl || ins->op == PTX_OP_vshr)
        r = shift(l, ins, x, y);
    else
        r = zn_video_op(l, ins->op, x, y);
    if (ins->flags & PTX_F(sat)) {
        unsigned w = o[0].vsel == 'b' ? 8 : o[0].vsel == 'h' ? 16 : 32;
        r = sd ? clamp(l, r, -(INT64_C(1) << (w - 1)), (INT64_C(1) << (w - 1)) - 1)
               : clamp(l, r, 0, (INT64_C(1) << w) - 1);
    }
    if (ins->subop != PTX_SUB_NONE) {
        LLVMValueRef c = zn_src(l, &o[3], PTX_T_U32);
        c = sd ? LLVMBuildSExt(b, c, vi64(l), "") : LLVMBuildZExt(b, c, vi64(l), "");
        r = ins->subop == PTX_SUB_ADD ? LLVMBuildAdd(b, r, c, "")
          : ll_intrin2(l, ins->subop == PTX_SUB_MIN ? "llvm.smin" : "llvm.smax", r, c);
    }
    r = LLVMBuildTrunc(b, r, ll_vec(l->m->t_i32), "");
    if (o[0].vsel)
        r = merge(l, &o[0], r, zn_src(l, &o[3], PTX_T_U32));
    zn_dst(l, &o[0], PTX_T_B32, r);
}

/* vmad: (a*b) + c in 128 bits; -(a*b) and -c as the one's complement plus
 * the lsb; .po adds the lsb alone */
static void lower_vmad(zn_lfn *l, const ptx_ins *ins)
{
    LLVMBuilderRef b = l->b;
    const ptx_opnd *o = ins->opnds;
    bool sa = ins->type[1] == PTX_T_S32, sb = ins->type[2] == PTX_T_S32;
    bool nprod = o[1].minus != o[2].minus, nc = o[3].minus, po = (ins->flags & PTX_F(po)) != 0;
    bool sh7 = (ins->flags & PTX_F(shr7)) != 0, sh15 = (ins->flags & PTX_F(shr15)) != 0;
    if (ins->ntypes != 3 || !zn_video_type_ok(ins->type[0]) || !zn_video_type_ok(ins->type[1]) ||
        !zn_video_type_ok(ins->type[2]) || (nprod && nc) || (po && (nprod || nc)) ||
        (sh7 && sh15)) {
        zn_lerr(l, "vmad: types .dtype.atype.btype of .u32/.s32; negate (a*b) or c, not both"
                   " nor with .po; one of .shr7/.shr15");
        return;
    }
    bool sfinal = sa || sb || nprod || nc;
    LLVMTypeRef v128 = ll_vec(l->m->t_i128), t128 = l->m->t_i128;
    LLVMValueRef x = LLVMBuildSExt(b, part(l, &o[1], sa), v128, "");
    LLVMValueRef y = LLVMBuildSExt(b, part(l, &o[2], sb), v128, "");
    LLVMValueRef t = LLVMBuildMul(b, x, y, "");
    LLVMValueRef c = zn_src(l, &o[3], PTX_T_U32);
    if (nprod)
        t = LLVMBuildNot(b, t, "");
    else if (nc)
        c = LLVMBuildNot(b, c, "");
    c = sfinal ? LLVMBuildSExt(b, c, v128, "") : LLVMBuildZExt(b, c, v128, "");
    t = LLVMBuildAdd(b, t, c, "");
    if (po || nprod || nc)
        t = LLVMBuildAdd(b, t, ll_const_vec(t128, 1), "");
    if (sh7 || sh15)
        t = LLVMBuildAShr(b, t, ll_const_vec(t128, sh7 ? 7 : 15), "");
    LLVMValueRef r = LLVMBuildTrunc(b, t, vi64(l), "");
    if (ins->flags & PTX_F(sat))
        r = sfinal ? clamp(l, r, INT32_MIN, INT32_MAX)
                   : ll_intrin2(l, "llvm.umin", r, c64(l, UINT32_MAX));
    zn_dst(l, &o[0], PTX_T_B32, LLVMBuildTrunc(b, r, ll_vec(l->m->t_i32), ""));
}
