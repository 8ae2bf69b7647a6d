/* zn_lower_video.c: the SIMD video instructions on 2 halves or 4 bytes of
 * a 32-bit register: vadd2/4, vsub2/4, vavrg2/4, vabsdiff2/4, vmin2/4,
 * vmax2/4, vset2/4 (CUDA's __vabsdiffu4, __vsadu2 and friends emit
 * vabsdiff4/2). The scalar ones (vadd ... vset, vmad) are in
 * zn_lower_video_scalar.c; both share the element operation and compare.
 *
 *     vop4.dtype.atype.btype{.sat} d{.mask}, a{.asel}, b{.bsel}, c;  merge
 *     vop4.dtype.atype.btype.add   d{.mask}, a{.asel}, b{.bsel}, c;  d = c + sum
 *     vset4.atype.btype.cmp{.add}  d{.mask}, a{.asel}, b{.bsel}, c;
 *
 * The selectors pick each element of a and b from the 8 bytes (4 halves)
 * of the pair {b, a}: .b3210/.h10 (a's own) and .b7654/.h32 (b's) are the
 * defaults. Each is zero- or sign-extended by its operand's type, the
 * operation is exact in 32 bits (vset: 1 or 0), and packing keeps the
 * element's low bits (clamped to the dtype's element range with .sat).
 * The mask names the elements d takes from the operation; the others keep
 * c's (with .add: only masked elements are summed into c). */
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

/* the operation on two extended elements, in their own (wide enough)
 * integer type: exact */
LLVMValueRef zn_video_op(zn_lfn *l, ptx_op o, LLVMValueRef x, LLVMValueRef y)
{
    LLVMBuilderRef b = l->b;
    switch (o) {
    case PTX_OP_vadd: case PTX_OP_vadd2: case PTX_OP_vadd4:
        return LLVMBuildAdd(b, x, y, "");
    case PTX_OP_vsub: case PTX_OP_vsub2: case PTX_OP_vsub4:
        return LLVMBuildSub(b, x, y, "");
    case PTX_OP_vavrg2: case PTX_OP_vavrg4: {
        /* the ISA's rounding: (s + 1) >> 1 for s = x + y >= 0, else s >> 1
         * (half away from zero; CUDA's own __vavgs2 agrees) */
        LLVMTypeRef t = ll_elem(LLVMTypeOf(x));
        LLVMValueRef s = LLVMBuildAdd(b, x, y, "");
        LLVMValueRef up = LLVMBuildZExt(b, LLVMBuildICmp(b, LLVMIntSGE, s, ll_const_vec(t, 0), ""),
                                        LLVMTypeOf(s), "");
        return LLVMBuildAShr(b, LLVMBuildAdd(b, s, up, ""), ll_const_vec(t, 1), "");
    }
    case PTX_OP_vabsdiff: case PTX_OP_vabsdiff2: case PTX_OP_vabsdiff4: {
        LLVMValueRef d = LLVMBuildSub(b, x, y, "");
        return smax(l, d, LLVMBuildNeg(b, d, ""));
    }
    case PTX_OP_vmin: case PTX_OP_vmin2: case PTX_OP_vmin4:
        return smin(l, x, y);
    default:    /* vmax, vmax2, vmax4 */
        return smax(l, x, y);
    }
}

/* vset's compare of two extended (signed) values: i1 */
LLVMValueRef zn_video_cmp(zn_lfn *l, ptx_cmp c, LLVMValueRef x, LLVMValueRef y)
{
    static const LLVMIntPredicate pred[] = {
        [PTX_CMP_EQ] = LLVMIntEQ, [PTX_CMP_NE] = LLVMIntNE, [PTX_CMP_LT] = LLVMIntSLT,
        [PTX_CMP_LE] = LLVMIntSLE, [PTX_CMP_GT] = LLVMIntSGT, [PTX_CMP_GE] = LLVMIntSGE,
    };
    return LLVMBuildICmp(l->b, pred[c], x, y, "");
}

bool zn_video_type_ok(ptx_type t)
{
    return t == PTX_T_U32 || t == PTX_T_S32;
}

/* element i of a SIMD source: selector digits name elements of {b, a}
 * (a's first), written from the highest element down; without one, the
 * operand's own register (from_b: b's elements) */
static LLVMValueRef simd_elem(zn_lfn *l, const ptx_opnd *o, LLVMValueRef a, LLVMValueRef b,
                              unsigned n, unsigned i, bool from_b, bool sign)
{
    unsigned j = o->vsel ? o->sel[n - 1 - i] : i + (from_b ? n : 0);
    return ll_unpack(l, j < n ? a : b, 32 / n, j % n, sign);
}

/* the elements d takes from the operation: bit i for element i */
static unsigned simd_mask(const ptx_opnd *d, unsigned n)
{
    unsigned m = d->vsel ? 0 : (1u << n) - 1;
    for (unsigned i = 0; i < d->nsel; i++)
        m |= 1u << d->sel[i];
    return m;
}

static bool simd_ok(const ptx_ins *ins, bool set)
{
    unsigned nt = set ? 2 : 3;
    bool sat = (ins->flags & PTX_F(sat)) != 0, add = ins->subop == PTX_SUB_ADD;
    bool ok = ins->ntypes == nt && (ins->subop == PTX_SUB_NONE || add) && !(sat && add);
    for (unsigned i = 0; ok && i < nt; i++)
        ok = zn_video_type_ok(ins->type[i]);
    return ok && (!set || (!sat && ins->cmp >= PTX_CMP_EQ && ins->cmp <= PTX_CMP_GE));
}

void zn_lower_video(zn_lfn *l, const ptx_ins *ins)
{
    LLVMBuilderRef b = l->b;
    const ptx_opnd *o = ins->opnds;
    bool set = ins->op == PTX_OP_vset2 || ins->op == PTX_OP_vset4;
    bool sat = (ins->flags & PTX_F(sat)) != 0, add = ins->subop == PTX_SUB_ADD;
    if (!simd_ok(ins, set)) {
        zn_lerr(l, "SIMD video instruction: types .dtype.atype.btype (vset2/4: .atype.btype"
                   " and eq/ne/lt/le/gt/ge) of .u32/.s32, with .sat or .add (not both)");
        return;
    }
    unsigned n = ptx_video_kind(ins->op), w = 32 / n, nt = set ? 2 : 3;
    unsigned mask = simd_mask(&o[0], n);
    bool sd = !set && ins->type[0] == PTX_T_S32, sa = ins->type[nt - 2] == PTX_T_S32,
         sb = ins->type[nt - 1] == PTX_T_S32;
    LLVMValueRef a = zn_src(l, &o[1], PTX_T_U32), bv = zn_src(l, &o[2], PTX_T_U32);
    LLVMValueRef c = zn_src(l, &o[3], PTX_T_U32);
    LLVMValueRef acc = add ? c : c32(l, 0);
    for (unsigned k = 0; k < n; k++) {
        uint32_t field = ((1u << w) - 1) << (k * w);
        if (!(mask >> k & 1)) {     /* c's element stays */
            if (!add)
                acc = LLVMBuildOr(b, acc, LLVMBuildAnd(b, c, c32(l, field), ""), "");
            continue;
        }
        LLVMValueRef x = simd_elem(l, &o[1], a, bv, n, k, false, sa);
        LLVMValueRef y = simd_elem(l, &o[2], a, bv, n, k, true, sb);
        LLVMValueRef r = set ? LLVMBuildZExt(b, zn_video_cmp(l, ins->cmp, x, y), LLVMTypeOf(x), "")
                             : zn_video_op(l, ins->op, x, y);
        if (add) {
            acc = LLVMBuildAdd(b, acc, r, "");
            continue;
        }
        if (sat) {
            int32_t lo = sd ? -(1 << (w - 1)) : 0, hi = sd ? (1 << (w - 1)) - 1 : (1 << w) - 1;
            r = smin(l, smax(l, r, c32(l, (uint32_t)lo)), c32(l, (uint32_t)hi));
        }
        r = LLVMBuildAnd(b, k ? LLVMBuildShl(b, r, c32(l, k * w), "") : r, c32(l, field), "");
        acc = LLVMBuildOr(b, acc, r, "");
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
        LLVMValueRef r = zn_video_op(l, vop, ll_unpack(l, a, 16, k, sign), ll_unpack(l, bv, 16, k, sign));
        if (relu)
            r = smax(l, r, c32(l, 0));
        r = LLVMBuildAnd(b, r, c32(l, 0xffff), "");
        d = LLVMBuildOr(b, d, k ? LLVMBuildShl(b, r, c32(l, 16), "") : r, "");
    }
    zn_dst(l, &o[0], PTX_T_B32, d);
}
