/* zn_lower_video.c: the SIMD video instructions on 2 halves or 4 bytes of
 * a 32-bit register: vadd2/4, vsub2/4, vavrg2/4, vabsdiff2/4, vmin2/4,
 * vmax2/4 (CUDA's __vabsdiffu4, __vsadu2 and friends emit vabsdiff4/2).
 *
 *     vop4.dtype.atype.btype{.sat} d, a, b, c;   element results packed
 *     vop4.dtype.atype.btype.add   d, a, b, c;   d = c + the elements' sum
 *
 * Each element of a and b is zero- or sign-extended by its type, the
 * operation is exact in 32 bits, and packing keeps the element's low bits
 * (clamped to the dtype's element range with .sat). Only the default
 * selectors and mask (every element, in place) are supported; selector or
 * mask suffixes do not parse. */
#include "zn_lower.h"

static LLVMValueRef c32(zn_lfn *l, uint32_t v)
{
    return ll_const_vec(l->m->t_i32, v);
}

static LLVMValueRef smax(zn_lfn *l, LLVMValueRef a, LLVMValueRef c)
{
    return ll_intrin2(l, "llvm.smax", a, c);
}

static LLVMValueRef smin(zn_lfn *l, LLVMValueRef a, LLVMValueRef c)
{
    return ll_intrin2(l, "llvm.smin", a, c);
}

/* the operation on two extended elements: exact, they are 17 bits at most */
static LLVMValueRef op(zn_lfn *l, ptx_op o, LLVMValueRef x, LLVMValueRef y)
{
    LLVMBuilderRef b = l->b;
    switch (o) {
    case PTX_OP_vadd2: case PTX_OP_vadd4:
        return LLVMBuildAdd(b, x, y, "");
    case PTX_OP_vsub2: case PTX_OP_vsub4:
        return LLVMBuildSub(b, x, y, "");
    case PTX_OP_vavrg2: case PTX_OP_vavrg4: {
        /* the ISA's rounding: (s + 1) >> 1 for s = x + y >= 0, else s >> 1
         * (half away from zero; CUDA's own __vavgs2 agrees) */
        LLVMValueRef s = LLVMBuildAdd(b, x, y, "");
        LLVMValueRef up = LLVMBuildZExt(b, LLVMBuildICmp(b, LLVMIntSGE, s, c32(l, 0), ""),
                                        LLVMTypeOf(s), "");
        return LLVMBuildAShr(b, LLVMBuildAdd(b, s, up, ""), c32(l, 1), "");
    }
    case PTX_OP_vabsdiff2: case PTX_OP_vabsdiff4: {
        LLVMValueRef d = LLVMBuildSub(b, x, y, "");
        return smax(l, d, LLVMBuildNeg(b, d, ""));
    }
    case PTX_OP_vmin2: case PTX_OP_vmin4:
        return smin(l, x, y);
    default:    /* vmax2, vmax4 */
        return smax(l, x, y);
    }
}

static bool is_simd4(ptx_op o)
{
    return o == PTX_OP_vadd4 || o == PTX_OP_vsub4 || o == PTX_OP_vavrg4 ||
           o == PTX_OP_vabsdiff4 || o == PTX_OP_vmin4 || o == PTX_OP_vmax4;
}

static bool int32_type(ptx_type t)
{
    return t == PTX_T_U32 || t == PTX_T_S32;
}

void zn_lower_video(zn_lfn *l, const ptx_ins *ins)
{
    LLVMBuilderRef b = l->b;
    const ptx_opnd *o = ins->opnds;
    bool sat = (ins->flags & PTX_F(sat)) != 0, add = ins->subop == PTX_SUB_ADD;
    if (ins->ntypes != 3 || !int32_type(ins->type[0]) || !int32_type(ins->type[1]) ||
        !int32_type(ins->type[2]) || (ins->subop != PTX_SUB_NONE && !add) || (sat && add)) {
        zn_lerr(l, "video instruction: types must be .dtype.atype.btype of .u32/.s32, "
                   "with .sat or .add (not both)");
        return;
    }
    unsigned n = is_simd4(ins->op) ? 4 : 2, w = 32 / n;
    bool sd = ins->type[0] == PTX_T_S32, sa = ins->type[1] == PTX_T_S32,
         sb = ins->type[2] == PTX_T_S32;
    LLVMValueRef a = zn_src(l, &o[1], PTX_T_U32), bv = zn_src(l, &o[2], PTX_T_U32);
    LLVMValueRef acc = add ? zn_src(l, &o[3], PTX_T_U32) : c32(l, 0);
    for (unsigned k = 0; k < n; k++) {
        LLVMValueRef r = op(l, ins->op, ll_unpack(l, a, w, k, sa), ll_unpack(l, bv, w, k, sb));
        if (add) {
            acc = LLVMBuildAdd(b, acc, r, "");
            continue;
        }
        if (sat) {
            int32_t lo = sd ? -(1 << (w - 1)) : 0, hi = sd ? (1 << (w - 1)) - 1 : (1 << w) - 1;
            r = smin(l, smax(l, r, c32(l, (uint32_t)lo)), c32(l, (uint32_t)hi));
        }
        r = LLVMBuildAnd(b, r, c32(l, (1u << w) - 1), "");
        acc = LLVMBuildOr(b, acc, k ? LLVMBuildShl(b, r, c32(l, k * w), "") : r, "");
    }
    zn_dst(l, &o[0], PTX_T_B32, acc);
}

/* add/min/max on two packed 16-bit integers (PTX 8.0, sm_90; CUDA's
 * __vadd2/__vmaxs2 and friends use them there): each half on its own, add
 * wrapping, min.relu/max.relu clamping negative results to 0. */
void zn_lower_int16x2(zn_lfn *l, const ptx_ins *ins)
{
    LLVMBuilderRef b = l->b;
    const ptx_opnd *o = ins->opnds;
    bool sign = ins->type[0] == PTX_T_S16X2, relu = (ins->flags & PTX_F(relu)) != 0;
    ptx_op vop = ins->op == PTX_OP_add ? PTX_OP_vadd2
               : ins->op == PTX_OP_min ? PTX_OP_vmin2 : PTX_OP_vmax2;
    if ((ins->op != PTX_OP_add && ins->op != PTX_OP_min && ins->op != PTX_OP_max) ||
        ins->nopnds != 3 || (ins->flags & ~(PTX_F(relu))) != 0 ||
        (relu && (!sign || vop == PTX_OP_vadd2))) {
        zn_lerr(l, "packed 16-bit integers: add, min and max (.relu: min/max.s16x2 only)");
        return;
    }
    LLVMValueRef a = zn_src(l, &o[1], PTX_T_U32), bv = zn_src(l, &o[2], PTX_T_U32);
    LLVMValueRef d = c32(l, 0);
    for (unsigned k = 0; k < 2; k++) {
        LLVMValueRef r = op(l, vop, ll_unpack(l, a, 16, k, sign), ll_unpack(l, bv, 16, k, sign));
        if (relu)
            r = smax(l, r, c32(l, 0));
        r = LLVMBuildAnd(b, r, c32(l, 0xffff), "");
        d = LLVMBuildOr(b, d, k ? LLVMBuildShl(b, r, c32(l, 16), "") : r, "");
    }
    zn_dst(l, &o[0], PTX_T_B32, d);
}
