/* zn_lower_cmp.c: comparisons and selects: setp/set (every comparison incl.
 * the unordered ones, with the .and/.or/.xor combiner), selp, slct. */
#include "zn_lower.h"

static LLVMValueRef icmp(zn_lfn *l, ptx_cmp c, bool sign, LLVMValueRef a, LLVMValueRef b)
{
    LLVMIntPredicate p;
    switch (c) {
    case PTX_CMP_EQ: p = LLVMIntEQ; break;
    case PTX_CMP_NE: p = LLVMIntNE; break;
    case PTX_CMP_LT: p = sign ? LLVMIntSLT : LLVMIntULT; break;
    case PTX_CMP_LE: p = sign ? LLVMIntSLE : LLVMIntULE; break;
    case PTX_CMP_GT: p = sign ? LLVMIntSGT : LLVMIntUGT; break;
    case PTX_CMP_GE: p = sign ? LLVMIntSGE : LLVMIntUGE; break;
    case PTX_CMP_LO: p = LLVMIntULT; break;
    case PTX_CMP_LS: p = LLVMIntULE; break;
    case PTX_CMP_HI: p = LLVMIntUGT; break;
    case PTX_CMP_HS: p = LLVMIntUGE; break;
    default:
        zn_lerr(l, "comparison not valid for integers");
        p = LLVMIntEQ;
    }
    return LLVMBuildICmp(l->b, p, a, b, "");
}

static LLVMValueRef fcmp(zn_lfn *l, ptx_cmp c, LLVMValueRef a, LLVMValueRef b)
{
    LLVMRealPredicate p;
    switch (c) {
    case PTX_CMP_EQ: p = LLVMRealOEQ; break;
    case PTX_CMP_NE: p = LLVMRealONE; break;
    case PTX_CMP_LT: p = LLVMRealOLT; break;
    case PTX_CMP_LE: p = LLVMRealOLE; break;
    case PTX_CMP_GT: p = LLVMRealOGT; break;
    case PTX_CMP_GE: p = LLVMRealOGE; break;
    case PTX_CMP_EQU: p = LLVMRealUEQ; break;
    case PTX_CMP_NEU: p = LLVMRealUNE; break;
    case PTX_CMP_LTU: p = LLVMRealULT; break;
    case PTX_CMP_LEU: p = LLVMRealULE; break;
    case PTX_CMP_GTU: p = LLVMRealUGT; break;
    case PTX_CMP_GEU: p = LLVMRealUGE; break;
    case PTX_CMP_NUM: p = LLVMRealORD; break;
    case PTX_CMP_NAN: p = LLVMRealUNO; break;
    default:
        zn_lerr(l, "comparison not valid for floating point");
        p = LLVMRealOEQ;
    }
    return LLVMBuildFCmp(l->b, p, a, b, "");
}

/* Compares sources 1 and 2 as type t; part selects the half of an x2 type. */
static LLVMValueRef compare(zn_lfn *l, const ptx_ins *ins, ptx_type t, unsigned part)
{
    zn_lmod *m = l->m;
    const ptx_opnd *o = ins->opnds;
    LLVMValueRef a = zn_src(l, &o[1], t), b = zn_src(l, &o[2], t);
    if (t == PTX_T_F16 || t == PTX_T_BF16 || t == PTX_T_F16X2 || t == PTX_T_BF16X2) {
        bool bf = t == PTX_T_BF16 || t == PTX_T_BF16X2;
        if (t == PTX_T_F16X2 || t == PTX_T_BF16X2) {
            LLVMValueRef sh = ll_const_vec(m->t_i32, 16 * part);
            a = LLVMBuildTrunc(l->b, LLVMBuildLShr(l->b, a, sh, ""), ll_vec(m->t_i16), "");
            b = LLVMBuildTrunc(l->b, LLVMBuildLShr(l->b, b, sh, ""), ll_vec(m->t_i16), "");
        }
        a = LLVMBuildFPExt(l->b, zn_to_half(l, a, bf), ll_vec(m->t_f32), "");
        b = LLVMBuildFPExt(l->b, zn_to_half(l, b, bf), ll_vec(m->t_f32), "");
        return fcmp(l, ins->cmp, a, b);
    }
    if (ptx_type_is_float(t)) {
        if ((ins->flags & PTX_F(ftz)) && t == PTX_T_F32) {
            a = zn_ftz(l, a);
            b = zn_ftz(l, b);
        }
        return fcmp(l, ins->cmp, a, b);
    }
    return icmp(l, ins->cmp, ptx_type_is_signed(t), a, b);
}

static LLVMValueRef combine(zn_lfn *l, const ptx_ins *ins, LLVMValueRef r, LLVMValueRef c)
{
    switch (ins->subop) {
    case PTX_SUB_AND: return LLVMBuildAnd(l->b, r, c, "");
    case PTX_SUB_OR: return LLVMBuildOr(l->b, r, c, "");
    case PTX_SUB_XOR: return LLVMBuildXor(l->b, r, c, "");
    default: return r;
    }
}

static void setp(zn_lfn *l, const ptx_ins *ins)
{
    const ptx_opnd *o = ins->opnds;
    ptx_type t = ins->type[0];
    bool comb = ins->subop == PTX_SUB_AND || ins->subop == PTX_SUB_OR ||
                ins->subop == PTX_SUB_XOR;
    LLVMValueRef c = comb ? zn_src(l, &o[3], PTX_T_PRED) : NULL;
    bool x2 = t == PTX_T_F16X2 || t == PTX_T_BF16X2;
    LLVMValueRef r = compare(l, ins, t, 0);
    LLVMValueRef p = comb ? combine(l, ins, r, c) : r;
    LLVMValueRef q;
    if (x2) {
        LLVMValueRef r1 = compare(l, ins, t, 1);
        q = comb ? combine(l, ins, r1, c) : r1;
    } else {
        LLVMValueRef nr = LLVMBuildNot(l->b, r, "");
        q = comb ? combine(l, ins, nr, c) : nr;
    }
    zn_dst(l, &o[0], PTX_T_PRED, p);
    if (o[0].pair && o[0].reg2 >= 0)
        zn_dst_reg(l, o[0].reg2, PTX_T_PRED, q);
}

/* What set writes for "true": 1.0 in a float destination (in each half
 * of an f16x2/bf16x2 one), all ones in an integer one (in each half when
 * the sources are x2). A 16-bit float destination once got all ones,
 * which is an f16 NaN: ggml's flash-attention exp correction
 * (set.eq.f16.f16 then fma.rn.f16) turned whole rows into NaN. */
static uint64_t set_true_bits(ptx_type dt)
{
    switch (dt) {
    case PTX_T_F16: case PTX_T_F16X2: return 0x3c00u;
    case PTX_T_BF16: case PTX_T_BF16X2: return 0x3f80u;
    default: return ~0ull;
    }
}

static void set(zn_lfn *l, const ptx_ins *ins)
{
    zn_lmod *m = l->m;
    const ptx_opnd *o = ins->opnds;
    ptx_type dt = ins->type[0], st = ins->ntypes > 1 ? ins->type[1] : ins->type[0];
    bool comb = ins->subop == PTX_SUB_AND || ins->subop == PTX_SUB_OR ||
                ins->subop == PTX_SUB_XOR;
    LLVMValueRef c = comb ? zn_src(l, &o[3], PTX_T_PRED) : NULL;
    LLVMValueRef r = compare(l, ins, st, 0);
    if (comb)
        r = combine(l, ins, r, c);
    LLVMValueRef d;
    if (dt == PTX_T_F32) {
        d = LLVMBuildSelect(l->b, r, ll_const_fvec(m->t_f32, 1.0),
                            ll_const_fvec(m->t_f32, 0.0), "");
    } else if (st == PTX_T_F16X2 || st == PTX_T_BF16X2) {
        /* one compare per half, each into its half of the 32-bit result */
        LLVMValueRef r1 = compare(l, ins, st, 1);
        if (comb)
            r1 = combine(l, ins, r1, c);
        uint32_t t = (uint32_t)set_true_bits(dt) & 0xffffu;
        LLVMValueRef zero = ll_const_vec(m->t_i32, 0);
        LLVMValueRef lo = LLVMBuildSelect(l->b, r, ll_const_vec(m->t_i32, t), zero, "");
        LLVMValueRef hi = LLVMBuildSelect(l->b, r1, ll_const_vec(m->t_i32, t << 16), zero, "");
        d = LLVMBuildOr(l->b, lo, hi, "");
    } else {
        LLVMTypeRef vt = zn_vec_type(m, dt);
        LLVMTypeRef et = LLVMGetElementType(vt);
        d = LLVMBuildSelect(l->b, r, ll_const_vec(et, set_true_bits(dt)),
                            LLVMConstNull(vt), "");
    }
    zn_dst(l, &o[0], dt, d);
}

void zn_lower_cmp(zn_lfn *l, const ptx_ins *ins)
{
    const ptx_opnd *o = ins->opnds;
    ptx_type t = ins->type[0];
    switch (ins->op) {
    case PTX_OP_setp:
        setp(l, ins);
        return;
    case PTX_OP_set:
        set(l, ins);
        return;
    case PTX_OP_selp: {
        LLVMValueRef a = zn_src(l, &o[1], t), b = zn_src(l, &o[2], t);
        LLVMValueRef c = zn_src(l, &o[3], PTX_T_PRED);
        zn_dst(l, &o[0], t, LLVMBuildSelect(l->b, c, a, b, ""));
        return;
    }
    case PTX_OP_slct: {
        ptx_type ct = ins->ntypes > 1 ? ins->type[1] : PTX_T_S32;
        LLVMValueRef a = zn_src(l, &o[1], t), b = zn_src(l, &o[2], t);
        LLVMValueRef c = zn_src(l, &o[3], ct), ge;
        if (ct == PTX_T_F32) {
            if (ins->flags & PTX_F(ftz))
                c = zn_ftz(l, c);
            ge = LLVMBuildFCmp(l->b, LLVMRealOGE, c, LLVMConstNull(LLVMTypeOf(c)), "");
        } else {
            ge = LLVMBuildICmp(l->b, LLVMIntSGE, c, LLVMConstNull(LLVMTypeOf(c)), "");
        }
        zn_dst(l, &o[0], t, LLVMBuildSelect(l->b, ge, a, b, ""));
        return;
    }
    default:
        zn_lerr_unsupported(l);
    }
}
