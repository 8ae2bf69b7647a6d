/* zn_lower_float.c: floating point arithmetic on f32/f64 and on f16/bf16
 * (scalar and x2, computed in f32 and rounded back once, which is exact for
 * add/sub/mul since f32 has more than 2*11+2 bits), with .ftz and .sat.
 * The approximate instructions: ex2/lg2/sin/cos/tanh on f32 as vector
 * polynomials (zn_lower_approx.c); rcp/rsqrt as exact division and square
 * root, which vectorise and are within NVIDIA's documented bounds. */
#include "zn_lower.h"

static bool is_half(ptx_type t)
{
    return t == PTX_T_F16 || t == PTX_T_BF16;
}

static bool is_half2(ptx_type t)
{
    return t == PTX_T_F16X2 || t == PTX_T_BF16X2;
}

LLVMValueRef zn_ftz(zn_lfn *l, LLVMValueRef v)
{
    /* |v| < FLT_MIN and not zero: flush to a zero of the same sign */
    LLVMTypeRef vt = LLVMTypeOf(v);
    LLVMValueRef a = ll_intrin1(l, "llvm.fabs", v);
    LLVMValueRef small = LLVMBuildFCmp(l->b, LLVMRealOLT, a,
                                       ll_const_fvec(ll_elem(vt), 0x1p-126), "");
    LLVMValueRef z = ll_intrin2(l, "llvm.copysign", LLVMConstNull(vt), v);
    return LLVMBuildSelect(l->b, small, z, v, "");
}

LLVMValueRef zn_fsat(zn_lfn *l, LLVMValueRef v)
{
    LLVMTypeRef et = ll_elem(LLVMTypeOf(v));
    LLVMValueRef r = ll_intrin2(l, "llvm.maxnum", v, ll_const_fvec(et, 0.0)); /* NaN -> 0 */
    return ll_intrin2(l, "llvm.minnum", r, ll_const_fvec(et, 1.0));
}

LLVMValueRef zn_to_half(zn_lfn *l, LLVMValueRef bits, bool bf)
{
    return LLVMBuildBitCast(l->b, bits, ll_vec(bf ? l->m->t_bf16 : l->m->t_half), "");
}

LLVMValueRef zn_from_half(zn_lfn *l, LLVMValueRef h)
{
    return LLVMBuildBitCast(l->b, h, ll_vec(l->m->t_i16), "");
}

/* The operation itself, on vectors of one FP type. */
static LLVMValueRef fop(zn_lfn *l, const ptx_ins *ins, LLVMValueRef *s)
{
    LLVMBuilderRef b = l->b;
    LLVMTypeRef vt = LLVMTypeOf(s[0]), et = ll_elem(vt);
    bool nan = ins->flags & PTX_F(NaN);
    switch (ins->op) {
    case PTX_OP_add: return LLVMBuildFAdd(b, s[0], s[1], "");
    case PTX_OP_sub: return LLVMBuildFSub(b, s[0], s[1], "");
    case PTX_OP_mul: return LLVMBuildFMul(b, s[0], s[1], "");
    case PTX_OP_fma: case PTX_OP_mad: return ll_intrin3(l, "llvm.fma", s[0], s[1], s[2]);
    case PTX_OP_div: return LLVMBuildFDiv(b, s[0], s[1], "");
    case PTX_OP_abs: return ll_intrin1(l, "llvm.fabs", s[0]);
    case PTX_OP_neg: return LLVMBuildFNeg(b, s[0], "");
    case PTX_OP_min: return ll_intrin2(l, nan ? "llvm.minimum" : "llvm.minnum", s[0], s[1]);
    case PTX_OP_max: return ll_intrin2(l, nan ? "llvm.maximum" : "llvm.maxnum", s[0], s[1]);
    case PTX_OP_rcp: return LLVMBuildFDiv(b, ll_const_fvec(et, 1.0), s[0], "");
    case PTX_OP_sqrt: return ll_intrin1(l, "llvm.sqrt", s[0]);
    case PTX_OP_rsqrt:
        return LLVMBuildFDiv(b, ll_const_fvec(et, 1.0), ll_intrin1(l, "llvm.sqrt", s[0]), "");
    case PTX_OP_ex2: case PTX_OP_lg2: case PTX_OP_sin: case PTX_OP_cos:
    case PTX_OP_tanh:
        if (et == l->m->t_f32)
            return zn_approx_f32(l, ins->op, s[0]);
        break;
    case PTX_OP_copysign: return ll_intrin2(l, "llvm.copysign", s[1], s[0]);
    default: return NULL;
    }
    switch (ins->op) {
    case PTX_OP_ex2: return ll_intrin1(l, "llvm.exp2", s[0]);
    case PTX_OP_lg2: return ll_intrin1(l, "llvm.log2", s[0]);
    case PTX_OP_sin: return ll_intrin1(l, "llvm.sin", s[0]);
    case PTX_OP_cos: return ll_intrin1(l, "llvm.cos", s[0]);
    case PTX_OP_tanh: return ll_intrin1(l, "llvm.tanh", s[0]);
    default: return NULL;
    }
}

static unsigned nsrc(ptx_op op)
{
    switch (op) {
    case PTX_OP_add: case PTX_OP_sub: case PTX_OP_mul: case PTX_OP_div:
    case PTX_OP_min: case PTX_OP_max: case PTX_OP_copysign:
        return 2;
    case PTX_OP_fma: case PTX_OP_mad:
        return 3;
    default:
        return 1;
    }
}

static LLVMValueRef testp(zn_lfn *l, const ptx_ins *ins, LLVMValueRef x)
{
    LLVMBuilderRef b = l->b;
    LLVMTypeRef et = ll_elem(LLVMTypeOf(x));
    LLVMValueRef a = ll_intrin1(l, "llvm.fabs", x);
    LLVMValueRef inf = ll_const_fvec(et, __builtin_inf());
    LLVMValueRef mn = ll_const_fvec(et, et == l->m->t_f64 ? 0x1p-1022 : 0x1p-126);
    uint64_t f = ins->flags;
    if (f & PTX_F(finite)) return LLVMBuildFCmp(b, LLVMRealOLT, a, inf, "");
    if (f & PTX_F(infinite)) return LLVMBuildFCmp(b, LLVMRealOEQ, a, inf, "");
    if (f & PTX_F(number)) return LLVMBuildFCmp(b, LLVMRealORD, x, x, "");
    if (f & PTX_F(notanumber)) return LLVMBuildFCmp(b, LLVMRealUNO, x, x, "");
    if (f & PTX_F(normal))
        return LLVMBuildAnd(b, LLVMBuildFCmp(b, LLVMRealOGE, a, mn, ""),
                            LLVMBuildFCmp(b, LLVMRealOLT, a, inf, ""), "");
    if (f & PTX_F(subnormal))
        return LLVMBuildAnd(b, LLVMBuildFCmp(b, LLVMRealOLT, a, mn, ""),
                            LLVMBuildFCmp(b, LLVMRealONE, a, LLVMConstNull(LLVMTypeOf(a)), ""), "");
    zn_lerr_unsupported(l);
    return NULL;
}

/* f16/bf16 lane values (i16 bits) -> f32 */
static LLVMValueRef half_in(zn_lfn *l, LLVMValueRef bits16, bool bf)
{
    return LLVMBuildFPExt(l->b, zn_to_half(l, bits16, bf), ll_vec(l->m->t_f32), "");
}

static LLVMValueRef half_out(zn_lfn *l, LLVMValueRef f, bool bf)
{
    zn_lmod *m = l->m;
    return zn_from_half(l, LLVMBuildFPTrunc(l->b, f, ll_vec(bf ? m->t_bf16 : m->t_half), ""));
}

/* One element (part 0 or 1) of f16x2/bf16x2 sources, or the f16 value. */
static LLVMValueRef half_part(zn_lfn *l, LLVMValueRef v, unsigned part, bool x2)
{
    zn_lmod *m = l->m;
    if (!x2)
        return v;
    if (part)
        v = LLVMBuildLShr(l->b, v, ll_const_vec(m->t_i32, 16), "");
    return LLVMBuildTrunc(l->b, v, ll_vec(m->t_i16), "");
}

static void lower_half(zn_lfn *l, const ptx_ins *ins)
{
    zn_lmod *m = l->m;
    ptx_type t = ins->type[0];
    bool x2 = is_half2(t), bf = t == PTX_T_BF16 || t == PTX_T_BF16X2;
    unsigned n = nsrc(ins->op);
    LLVMValueRef raw[3], res[2];
    for (unsigned i = 0; i < n; i++)
        raw[i] = zn_src(l, &ins->opnds[1 + i], t);
    for (unsigned p = 0; p < (x2 ? 2u : 1u); p++) {
        LLVMValueRef s[3];
        LLVMValueRef h0 = half_part(l, raw[0], p, x2);
        if (ins->op == PTX_OP_neg || ins->op == PTX_OP_abs) {
            /* sign-bit operations keep NaN payloads exact */
            LLVMValueRef sb = ll_const_vec(m->t_i16, 0x8000);
            res[p] = ins->op == PTX_OP_neg ? LLVMBuildXor(l->b, h0, sb, "")
                     : LLVMBuildAnd(l->b, h0, ll_const_vec(m->t_i16, 0x7fff), "");
            continue;
        }
        for (unsigned i = 0; i < n; i++)
            s[i] = half_in(l, half_part(l, raw[i], p, x2), bf);
        LLVMValueRef r = fop(l, ins, s);
        if (!r) {
            zn_lerr_unsupported(l);
            return;
        }
        if (ins->flags & PTX_F(sat))
            r = zn_fsat(l, r);
        if (ins->flags & PTX_F(relu))
            r = ll_intrin2(l, "llvm.maxnum", r, LLVMConstNull(LLVMTypeOf(r)));
        res[p] = half_out(l, r, bf);
    }
    LLVMValueRef d = res[0];
    if (x2) {
        LLVMTypeRef v32 = ll_vec(m->t_i32);
        d = LLVMBuildOr(l->b, LLVMBuildZExt(l->b, res[0], v32, ""),
                        LLVMBuildShl(l->b, LLVMBuildZExt(l->b, res[1], v32, ""),
                                     ll_const_vec(m->t_i32, 16), ""), "");
    }
    zn_dst(l, &ins->opnds[0], t, d);
}

static bool directed(ptx_rnd r)
{
    return r == PTX_RND_RZ || r == PTX_RND_RM || r == PTX_RND_RP;
}

void zn_lower_float(zn_lfn *l, const ptx_ins *ins)
{
    ptx_type t = ins->type[0];
    if (directed(ins->rnd) && (t != PTX_T_F32 && t != PTX_T_F64)) {
        zn_lerr_unsupported(l); /* f16 arithmetic with directed rounding */
        return;
    }
    if (is_half(t) || is_half2(t)) {
        if (ins->op == PTX_OP_testp || ins->op == PTX_OP_copysign) {
            zn_lerr_unsupported(l);
            return;
        }
        lower_half(l, ins);
        return;
    }
    if (t != PTX_T_F32 && t != PTX_T_F64) {
        zn_lerr_unsupported(l);
        return;
    }
    bool ftz = (ins->flags & PTX_F(ftz)) && t == PTX_T_F32;
    LLVMValueRef s[3];
    unsigned n = nsrc(ins->op);
    for (unsigned i = 0; i < n; i++) {
        s[i] = zn_src(l, &ins->opnds[1 + i], t);
        if (ftz)
            s[i] = zn_ftz(l, s[i]);
    }
    if (ins->op == PTX_OP_testp) {
        LLVMValueRef p = testp(l, ins, s[0]);
        if (p)
            zn_dst(l, &ins->opnds[0], PTX_T_PRED, p);
        return;
    }
    LLVMValueRef r = directed(ins->rnd) ? zn_fop_directed(l, ins->op, s, ins->rnd)
                                        : fop(l, ins, s);
    if (!r) {
        zn_lerr_unsupported(l);
        return;
    }
    if (ins->flags & PTX_F(sat))
        r = zn_fsat(l, r);
    if (ins->flags & PTX_F(relu))
        r = ll_intrin2(l, "llvm.maxnum", r, LLVMConstNull(LLVMTypeOf(r)));
    if (ftz)
        r = zn_ftz(l, r);
    zn_dst(l, &ins->opnds[0], t, r);
}
