/* zn_lower_float.c: floating point arithmetic on f32/f64 and on f16/bf16
 * (scalar and x2: zn_lower_half.c), with .ftz and .sat; PTX's NaN and
 * min/max rules in zn_lower_fpfix.c.
 * The approximate instructions: ex2/lg2/sin/cos/tanh on f32 as vector
 * polynomials (zn_lower_approx.c); rcp/rsqrt as exact division and square
 * root, which vectorise and are within NVIDIA's documented bounds. */
#include "zn_lower.h"

static bool is_half(ptx_type t)
{
    return t == PTX_T_F16 || t == PTX_T_BF16 || t == PTX_T_F16X2 || t == PTX_T_BF16X2;
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
    switch (ins->op) {
    case PTX_OP_add: return LLVMBuildFAdd(b, s[0], s[1], "");
    case PTX_OP_sub: return LLVMBuildFSub(b, s[0], s[1], "");
    case PTX_OP_mul: return LLVMBuildFMul(b, s[0], s[1], "");
    case PTX_OP_fma: case PTX_OP_mad: return ll_intrin3(l, "llvm.fma", s[0], s[1], s[2]);
    case PTX_OP_div: return LLVMBuildFDiv(b, s[0], s[1], "");
    case PTX_OP_abs: return ll_intrin1(l, "llvm.fabs", s[0]);
    case PTX_OP_neg: return LLVMBuildFNeg(b, s[0], "");
    case PTX_OP_min: case PTX_OP_max: return zn_minmax(l, ins, s[0], s[1]);
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

/* .ftz on the result of an f32 mul, fma, div or rcp: NVIDIA GPUs flush a
 * result that is tiny after rounding to 24 bits with an unbounded exponent
 * (IEEE's "after rounding"; measured on an H200), which is not the same as
 * a subnormal result: 0x3f7fffff * 0x00800000 rounds to 0x00800000 in f32
 * but is a zero on the GPU. The operation again with one operand scaled by
 * 2^24 has that rounding (its result is normal where it matters; a lane
 * whose scaled operand overflows has no tiny result) and tells. */
static bool directed(ptx_rnd r);

static bool tiny_rounds_differ(ptx_op op)
{
    return op == PTX_OP_mul || op == PTX_OP_fma || op == PTX_OP_mad || op == PTX_OP_div ||
           op == PTX_OP_rcp;
}

static LLVMValueRef ftz_result(zn_lfn *l, const ptx_ins *ins, LLVMValueRef *s, LLVMValueRef r)
{
    if (!tiny_rounds_differ(ins->op))
        return zn_ftz(l, r);
    LLVMBuilderRef b = l->b;
    LLVMTypeRef vt = LLVMTypeOf(r);
    LLVMValueRef k = ll_const_fvec(ll_elem(vt), 0x1p24);
    /* the second factor is scaled: an immediate or a loop-invariant there
     * (nvcc puts constants second) costs nothing per execution */
    LLVMValueRef t[3] = {s[0], s[1], s[2]};
    ptx_op op = ins->op;
    if (op == PTX_OP_rcp) { /* 2^24 / x */
        t[0] = k;
        t[1] = s[0];
        op = PTX_OP_div;
    } else if (op == PTX_OP_div) { /* (x 2^24) / y */
        t[0] = LLVMBuildFMul(b, s[0], k, "");
    } else {
        t[1] = LLVMBuildFMul(b, s[1], k, "");
        if (op != PTX_OP_mul) {
            t[2] = LLVMBuildFMul(b, s[2], k, "");
            op = PTX_OP_fma;
        }
    }
    LLVMValueRef h;
    if (directed(ins->rnd))
        h = zn_fop_directed(l, op, t, ins->rnd);
    else if (op == PTX_OP_mul)
        h = LLVMBuildFMul(b, t[0], t[1], "");
    else if (op == PTX_OP_div)
        h = LLVMBuildFDiv(b, t[0], t[1], "");
    else
        h = ll_intrin3(l, "llvm.fma", t[0], t[1], t[2]);
    if (!h)
        return zn_ftz(l, r);
    LLVMValueRef tiny = LLVMBuildFCmp(b, LLVMRealOLT, ll_intrin1(l, "llvm.fabs", h),
                                      ll_const_fvec(ll_elem(vt), 0x1p-102), "");
    return LLVMBuildSelect(b, tiny, ll_intrin2(l, "llvm.copysign", LLVMConstNull(vt), r), r, "");
}

/* rcp.approx.ftz.f64 as NVIDIA GPUs compute it (fitted to an H200): from
 * the upper 32 bits of x alone (a NaN whose payload is in the low word is
 * an infinity), the reciprocal truncated to its upper 32 bits (the GPU's
 * own approximation is that or one unit above, in 8% of lanes); a NaN
 * gives 0x7fffffff00000000, a result below the smallest normal a zero */
static LLVMValueRef rcp64_hi(zn_lfn *l, LLVMValueRef x)
{
    LLVMBuilderRef b = l->b;
    LLVMTypeRef vt = LLVMTypeOf(x), vi = ll_vec(l->m->t_i64);
    LLVMValueRef hi_mask = ll_const_vec(l->m->t_i64, 0xffffffff00000000ull);
    LLVMValueRef xh = LLVMBuildBitCast(b, LLVMBuildAnd(b, LLVMBuildBitCast(b, x, vi, ""),
                                                       hi_mask, ""), vt, "");
    xh = zn_ftz64(l, xh);
    LLVMValueRef r = zn_ftz64(l, LLVMBuildFDiv(b, ll_const_fvec(ll_elem(vt), 1.0), xh, ""));
    LLVMValueRef bits = LLVMBuildAnd(b, LLVMBuildBitCast(b, r, vi, ""), hi_mask, "");
    LLVMValueRef nan = LLVMBuildFCmp(b, LLVMRealUNO, xh, xh, "");
    bits = LLVMBuildSelect(b, nan, ll_const_vec(l->m->t_i64, 0x7fffffff00000000ull), bits, "");
    return LLVMBuildBitCast(b, bits, vt, "");
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
    if (f & PTX_F(normal)) /* zeros count as normal on NVIDIA GPUs (an H200) */
        return LLVMBuildOr(b, LLVMBuildAnd(b, LLVMBuildFCmp(b, LLVMRealOGE, a, mn, ""),
                                           LLVMBuildFCmp(b, LLVMRealOLT, a, inf, ""), ""),
                           LLVMBuildFCmp(b, LLVMRealOEQ, a, LLVMConstNull(LLVMTypeOf(a)), ""), "");
    if (f & PTX_F(subnormal))
        return LLVMBuildAnd(b, LLVMBuildFCmp(b, LLVMRealOLT, a, mn, ""),
                            LLVMBuildFCmp(b, LLVMRealONE, a, LLVMConstNull(LLVMTypeOf(a)), ""), "");
    zn_lerr_unsupported(l);
    return NULL;
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
    if (is_half(t)) {
        if (ins->op == PTX_OP_testp || ins->op == PTX_OP_copysign) {
            zn_lerr_unsupported(l);
            return;
        }
        zn_lower_half(l, ins); /* zn_lower_half.c */
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
        if (ftz && !zn_ftz_clean(l, &ins->opnds[1 + i]))
            s[i] = zn_ftz(l, s[i]);
        else if ((ins->flags & PTX_F(ftz)) && t == PTX_T_F64)
            s[i] = zn_ftz64(l, s[i]);
    }
    if (ins->op == PTX_OP_testp) {
        LLVMValueRef p = testp(l, ins, s[0]);
        if (p)
            zn_dst(l, &ins->opnds[0], PTX_T_PRED, p);
        return;
    }
    if (ins->op == PTX_OP_rcp && t == PTX_T_F64 && (ins->flags & PTX_F(approx))) {
        zn_dst(l, &ins->opnds[0], t, rcp64_hi(l, s[0]));
        return;
    }
    LLVMValueRef r = directed(ins->rnd) ? zn_fop_directed(l, ins->op, s, ins->rnd)
                                        : fop(l, ins, s);
    if (!r) {
        zn_lerr_unsupported(l);
        return;
    }
    if (ins->op != PTX_OP_abs && ins->op != PTX_OP_neg && ins->op != PTX_OP_copysign &&
        !zn_nan_canon_elided(l, ins))
        r = zn_canon_nan(l, r); /* zn_lower_fpfix.c: unless every read redoes it */
    if (ins->flags & PTX_F(sat))
        r = zn_fsat(l, r);
    if (ftz)
        r = ftz_result(l, ins, s, r);
    if ((ins->flags & PTX_F(ftz)) && t == PTX_T_F64)
        r = zn_ftz64(l, r); /* rcp.approx.ftz.f64 */
    zn_dst(l, &ins->opnds[0], t, r);
}
