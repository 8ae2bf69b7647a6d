/* zn_lower_bits.c: logic and bit manipulation: and/or/xor/not/cnot, shifts
 * (amounts >= width give 0 or the sign, as PTX defines), bfe, bfi, bfind,
 * brev, clz, popc, prmt (all modes), lop3, shf, bmsk, szext, dp4a, dp2a. */
#include "zn_lower.h"

static LLVMValueRef cv(zn_lfn *l, LLVMValueRef like, uint64_t v)
{
    return ll_const_vec(ll_elem(LLVMTypeOf(like)), v);
}

static LLVMValueRef u32src(zn_lfn *l, const ptx_opnd *o)
{
    return zn_src(l, o, PTX_T_U32);
}

/* clamps a u32 shift amount to [0, w-1] and says whether it was >= w */
static LLVMValueRef shift_amt(zn_lfn *l, LLVMValueRef n32, unsigned w,
                              LLVMTypeRef vt, LLVMValueRef *big)
{
    LLVMValueRef wv = ll_const_vec(l->m->t_i32, w);
    *big = LLVMBuildICmp(l->b, LLVMIntUGE, n32, wv, "");
    LLVMValueRef n = LLVMBuildSelect(l->b, *big, ll_const_vec(l->m->t_i32, w - 1), n32, "");
    return ll_coerce(l, n, vt, false);
}

/* bfe/bfi's pos or len (i32 lanes): the low byte for 32-bit operands, as
 * the ISA says; 64-bit ones take the whole value (what an H200 does: pos
 * 0x80000000 is past the msb, len 0x101 is every bit left), here clamped
 * to 64 so that pos + len cannot wrap */
static LLVMValueRef field_arg(zn_lfn *l, LLVMValueRef v, unsigned w)
{
    if (w == 64)
        return ll_intrin2(l, "llvm.umin", v, ll_const_vec(l->m->t_i32, 64));
    return LLVMBuildAnd(l->b, v, ll_const_vec(l->m->t_i32, 0xff), "");
}

static LLVMValueRef bfe(zn_lfn *l, LLVMValueRef a, LLVMValueRef pos,
                        LLVMValueRef len, bool sign)
{
    /* field [pos, top), top = min(pos+len, w); shl then shr, all in i32 math */
    LLVMBuilderRef b = l->b;
    zn_lmod *m = l->m;
    LLVMTypeRef vt = LLVMTypeOf(a);
    unsigned w = ll_bits(vt);
    LLVMValueRef W = ll_const_vec(m->t_i32, w);
    pos = field_arg(l, pos, w);
    len = field_arg(l, len, w);
    LLVMValueRef top = ll_intrin2(l, "llvm.umin", LLVMBuildAdd(b, pos, len, ""), W);
    LLVMValueRef pos_ok = LLVMBuildICmp(b, LLVMIntULT, pos, W, "");
    LLVMValueRef len0 = LLVMBuildICmp(b, LLVMIntEQ, len, LLVMConstNull(LLVMTypeOf(len)), "");
    /* when pos >= w these are garbage but selected away */
    LLVMValueRef safe_top = LLVMBuildSelect(b, pos_ok, top, W, "");
    LLVMValueRef sl = LLVMBuildSub(b, W, safe_top, "");
    LLVMValueRef sr = LLVMBuildAdd(b, sl, LLVMBuildSelect(b, pos_ok, pos,
                                   LLVMConstNull(LLVMTypeOf(pos)), ""), "");
    sr = ll_intrin2(l, "llvm.umin", sr, ll_const_vec(m->t_i32, w - 1));
    LLVMValueRef x = LLVMBuildShl(b, a, ll_coerce(l, sl, vt, false), "");
    x = sign ? LLVMBuildAShr(b, x, ll_coerce(l, sr, vt, false), "")
             : LLVMBuildLShr(b, x, ll_coerce(l, sr, vt, false), "");
    LLVMValueRef beyond = sign ? LLVMBuildAShr(b, a, cv(l, a, w - 1), "")
                               : LLVMConstNull(vt);
    x = LLVMBuildSelect(b, pos_ok, x, beyond, "");
    return LLVMBuildSelect(b, len0, LLVMConstNull(vt), x, "");
}

static LLVMValueRef bfi(zn_lfn *l, LLVMValueRef a, LLVMValueRef base,
                        LLVMValueRef pos, LLVMValueRef len)
{
    /* mask computed in 2w bits so that len = w does not overflow */
    LLVMBuilderRef b = l->b;
    zn_lmod *m = l->m;
    LLVMTypeRef vt = LLVMTypeOf(a);
    unsigned w = ll_bits(vt);
    LLVMTypeRef wt = ll_vec(LLVMIntTypeInContext(m->ctx, 2 * w));
    pos = ll_intrin2(l, "llvm.umin", field_arg(l, pos, w), ll_const_vec(m->t_i32, w));
    len = ll_intrin2(l, "llvm.umin", field_arg(l, len, w), ll_const_vec(m->t_i32, w));
    LLVMValueRef one = ll_const_vec(ll_elem(wt), 1);
    LLVMValueRef mk = LLVMBuildSub(b, LLVMBuildShl(b, one, ll_coerce(l, len, wt, false), ""),
                                   one, "");
    LLVMValueRef p = ll_coerce(l, pos, wt, false);
    mk = LLVMBuildTrunc(b, LLVMBuildShl(b, mk, p, ""), vt, "");
    LLVMValueRef ins = LLVMBuildTrunc(b, LLVMBuildShl(b, LLVMBuildZExt(b, a, wt, ""), p, ""),
                                      vt, "");
    return LLVMBuildOr(b, LLVMBuildAnd(b, base, LLVMBuildNot(b, mk, ""), ""),
                       LLVMBuildAnd(b, ins, mk, ""), "");
}

static LLVMValueRef bfind(zn_lfn *l, LLVMValueRef a, bool sign, bool shiftamt)
{
    LLVMBuilderRef b = l->b;
    zn_lmod *m = l->m;
    LLVMTypeRef vt = LLVMTypeOf(a);
    unsigned w = ll_bits(vt);
    LLVMValueRef x = a;
    if (sign) {
        LLVMValueRef neg = LLVMBuildICmp(b, LLVMIntSLT, a, LLVMConstNull(vt), "");
        x = LLVMBuildSelect(b, neg, LLVMBuildNot(b, a, ""), a, "");
    }
    LLVMValueRef lz = ll_intrin2(l, "llvm.ctlz", x, LLVMConstInt(m->t_i1, 0, 0));
    lz = ll_coerce(l, lz, ll_vec(m->t_i32), false);
    LLVMValueRef pos = shiftamt ? lz : LLVMBuildSub(b, ll_const_vec(m->t_i32, w - 1), lz, "");
    LLVMValueRef none = LLVMBuildICmp(b, LLVMIntEQ, x, LLVMConstNull(vt), "");
    return LLVMBuildSelect(b, none, ll_const_vec(m->t_i32, 0xffffffffu), pos, "");
}

/* byte `idx` (0..7, an i32 vector) of the 64-bit value x */
static LLVMValueRef byte_of(zn_lfn *l, LLVMValueRef x, LLVMValueRef idx)
{
    zn_lmod *m = l->m;
    LLVMValueRef sh = LLVMBuildShl(l->b, LLVMBuildZExt(l->b, idx, ll_vec(m->t_i64), ""),
                                   ll_const_vec(m->t_i64, 3), "");
    LLVMValueRef v = LLVMBuildLShr(l->b, x, sh, "");
    return LLVMBuildAnd(l->b, LLVMBuildTrunc(l->b, v, ll_vec(m->t_i32), ""),
                        ll_const_vec(m->t_i32, 0xff), "");
}

static const uint8_t prmt_modes[6][4][4] = { /* [mode][sel][byte 0..3] */
    {{0, 1, 2, 3}, {1, 2, 3, 4}, {2, 3, 4, 5}, {3, 4, 5, 6}}, /* f4e */
    {{0, 7, 6, 5}, {1, 0, 7, 6}, {2, 1, 0, 7}, {3, 2, 1, 0}}, /* b4e */
    {{0, 0, 0, 0}, {1, 1, 1, 1}, {2, 2, 2, 2}, {3, 3, 3, 3}}, /* rc8 */
    {{0, 1, 2, 3}, {1, 1, 2, 3}, {2, 2, 2, 3}, {3, 3, 3, 3}}, /* ecl */
    {{0, 0, 0, 0}, {0, 1, 1, 1}, {0, 1, 2, 2}, {0, 1, 2, 3}}, /* ecr */
    {{0, 1, 0, 1}, {2, 3, 2, 3}, {0, 1, 0, 1}, {2, 3, 2, 3}}, /* rc16 */
};

static LLVMValueRef prmt(zn_lfn *l, const ptx_ins *ins, LLVMValueRef a,
                         LLVMValueRef bv, LLVMValueRef c)
{
    LLVMBuilderRef b = l->b;
    zn_lmod *m = l->m;
    LLVMTypeRef v64 = ll_vec(m->t_i64);
    LLVMValueRef x = LLVMBuildOr(b, LLVMBuildZExt(b, a, v64, ""),
        LLVMBuildShl(b, LLVMBuildZExt(b, bv, v64, ""), ll_const_vec(m->t_i64, 32), ""), "");
    int mode = -1;
    if (ins->flags & PTX_F(f4e)) mode = 0;
    else if (ins->flags & PTX_F(b4e)) mode = 1;
    else if (ins->flags & PTX_F(rc8)) mode = 2;
    else if (ins->flags & PTX_F(ecl)) mode = 3;
    else if (ins->flags & PTX_F(ecr)) mode = 4;
    else if (ins->flags & PTX_F(rc16)) mode = 5;
    LLVMValueRef d = LLVMConstNull(ll_vec(m->t_i32));
    for (unsigned i = 0; i < 4; i++) {
        LLVMValueRef byte;
        if (mode < 0) {
            LLVMValueRef sel = LLVMBuildAnd(b, LLVMBuildLShr(b, c,
                                            ll_const_vec(m->t_i32, 4 * i), ""),
                                            ll_const_vec(m->t_i32, 0xf), "");
            byte = byte_of(l, x, LLVMBuildAnd(b, sel, ll_const_vec(m->t_i32, 7), ""));
            LLVMValueRef rep = LLVMBuildICmp(b, LLVMIntNE,
                LLVMBuildAnd(b, sel, ll_const_vec(m->t_i32, 8), ""),
                LLVMConstNull(ll_vec(m->t_i32)), "");
            LLVMValueRef sx = LLVMBuildSelect(b,
                LLVMBuildICmp(b, LLVMIntNE, LLVMBuildAnd(b, byte, ll_const_vec(m->t_i32, 0x80), ""),
                              LLVMConstNull(ll_vec(m->t_i32)), ""),
                ll_const_vec(m->t_i32, 0xff), LLVMConstNull(ll_vec(m->t_i32)), "");
            byte = LLVMBuildSelect(b, rep, sx, byte, "");
        } else {
            LLVMValueRef s = LLVMBuildAnd(b, c, ll_const_vec(m->t_i32, 3), "");
            LLVMValueRef idx = ll_const_vec(m->t_i32, prmt_modes[mode][0][i]);
            for (unsigned k = 1; k < 4; k++)
                idx = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntEQ, s,
                                      ll_const_vec(m->t_i32, k), ""),
                                      ll_const_vec(m->t_i32, prmt_modes[mode][k][i]), idx, "");
            byte = byte_of(l, x, idx);
        }
        d = LLVMBuildOr(b, d, LLVMBuildShl(b, byte, ll_const_vec(m->t_i32, 8 * i), ""), "");
    }
    return d;
}

static LLVMValueRef lop3(zn_lfn *l, LLVMValueRef a, LLVMValueRef bv,
                         LLVMValueRef c, unsigned lut)
{
    LLVMBuilderRef b = l->b;
    LLVMValueRef na = LLVMBuildNot(b, a, ""), nb = LLVMBuildNot(b, bv, ""),
                 nc = LLVMBuildNot(b, c, "");
    LLVMValueRef d = LLVMConstNull(LLVMTypeOf(a));
    for (unsigned i = 0; i < 8; i++) {
        if (!(lut >> i & 1))
            continue;
        LLVMValueRef t = LLVMBuildAnd(b, (i & 4) ? a : na, (i & 2) ? bv : nb, "");
        t = LLVMBuildAnd(b, t, (i & 1) ? c : nc, "");
        d = LLVMBuildOr(b, d, t, "");
    }
    return d;
}

/* One AVX-512 VNNI vpdpbusd per half warp: acc + the dot products of the
 * unsigned bytes of u and the signed bytes of s, 4 per lane. */
static LLVMValueRef dpbusd(zn_lfn *l, LLVMValueRef acc, LLVMValueRef u, LLVMValueRef s)
{
    LLVMValueRef r[2];
    for (unsigned k = 0; k < 2; k++) {
        LLVMValueRef args[3] = {ll_lanes(l, acc, 16 * k, 16), ll_lanes(l, u, 16 * k, 16),
                                ll_lanes(l, s, 16 * k, 16)};
        r[k] = ll_intrin(l, "llvm.x86.avx512.vpdpbusd.512", NULL, 0, args, 3);
    }
    return ll_join_halves(l, r[0], r[1]);
}

/* dp4a with AVX-512 VNNI, whose vpdpbusd multiplies unsigned by signed
 * bytes: the other signednesses move a byte range by 128 and take the
 * difference back out (a * b = (a + 128) * b - 128 * b for signed a;
 * a * b = a * (b - 128) + 128 * a for unsigned b), all mod 2^32 as dp4a
 * wraps. 4-8 instructions for a warp where the per-byte form (shifts,
 * extends and vpmulld) was about a third of the CPU time of a quantized
 * matrix-vector kernel (bench/mmvq.cu). */
LLVMValueRef zn_dot4_vnni(zn_lfn *l, LLVMValueRef a, LLVMValueRef bv, LLVMValueRef acc,
                          bool sa, bool sb)
{
    zn_lmod *m = l->m;
    LLVMBuilderRef b = l->b;
    LLVMValueRef k80 = ll_const_vec(m->t_i32, 0x80808080u), zero = ll_const_vec(m->t_i32, 0);
    if (!sa && sb)
        return dpbusd(l, acc, a, bv);
    if (sa && !sb)
        return dpbusd(l, acc, bv, a);
    if (sa) /* both signed */
        return LLVMBuildSub(b, dpbusd(l, acc, LLVMBuildXor(b, a, k80, ""), bv),
                            dpbusd(l, zero, k80, bv), "");
    LLVMValueRef sum_a = dpbusd(l, zero, a, ll_const_vec(m->t_i32, 0x01010101u));
    return LLVMBuildAdd(b, dpbusd(l, acc, a, LLVMBuildXor(b, bv, k80, "")),
                        LLVMBuildShl(b, sum_a, ll_const_vec(m->t_i32, 7), ""), "");
}

static LLVMValueRef dot(zn_lfn *l, const ptx_ins *ins, bool four)
{
    LLVMBuilderRef b = l->b;
    zn_lmod *m = l->m;
    LLVMTypeRef v32 = ll_vec(m->t_i32);
    bool sa = ptx_type_is_signed(ins->type[0]);
    bool sb = ptx_type_is_signed(ins->ntypes > 1 ? ins->type[1] : ins->type[0]);
    LLVMValueRef a = u32src(l, &ins->opnds[1]);
    LLVMValueRef bv = u32src(l, &ins->opnds[2]);
    LLVMValueRef acc = u32src(l, &ins->opnds[3]);
    if (four && zn_target_has(m, "avx512vnni"))
        return zn_dot4_vnni(l, a, bv, acc, sa, sb);
    unsigned base = (!four && (ins->flags & PTX_F(hi_half))) ? 2 : 0;
    unsigned n = four ? 4 : 2, aw = four ? 8 : 16;
    LLVMTypeRef at = ll_vec(LLVMIntTypeInContext(m->ctx, aw));
    for (unsigned i = 0; i < n; i++) {
        LLVMValueRef ai = LLVMBuildTrunc(b, LLVMBuildLShr(b, a, ll_const_vec(m->t_i32, aw * i), ""), at, "");
        LLVMValueRef bi = LLVMBuildTrunc(b, LLVMBuildLShr(b, bv,
                                         ll_const_vec(m->t_i32, 8 * (base + i)), ""),
                                         ll_vec(m->t_i8), "");
        ai = sa ? LLVMBuildSExt(b, ai, v32, "") : LLVMBuildZExt(b, ai, v32, "");
        bi = sb ? LLVMBuildSExt(b, bi, v32, "") : LLVMBuildZExt(b, bi, v32, "");
        acc = LLVMBuildAdd(b, acc, LLVMBuildMul(b, ai, bi, ""), "");
    }
    return acc;
}

void zn_lower_bits(zn_lfn *l, const ptx_ins *ins)
{
    zn_lmod *m = l->m;
    LLVMBuilderRef b = l->b;
    ptx_type t = ins->type[0];
    bool sign = ptx_type_is_signed(t);
    const ptx_opnd *o = ins->opnds;
    LLVMValueRef a, bv, c, r, big;
    unsigned w = ll_bits(zn_scalar_type(m, t));

    switch (ins->op) {
    case PTX_OP_and: case PTX_OP_or: case PTX_OP_xor:
        a = zn_src(l, &o[1], t);
        bv = zn_src(l, &o[2], t);
        r = ins->op == PTX_OP_and ? LLVMBuildAnd(b, a, bv, "")
          : ins->op == PTX_OP_or ? LLVMBuildOr(b, a, bv, "") : LLVMBuildXor(b, a, bv, "");
        zn_dst(l, &o[0], t, r);
        return;
    case PTX_OP_not:
        zn_dst(l, &o[0], t, LLVMBuildNot(b, zn_src(l, &o[1], t), ""));
        return;
    case PTX_OP_cnot:
        a = zn_src(l, &o[1], t);
        r = LLVMBuildICmp(b, LLVMIntEQ, a, LLVMConstNull(LLVMTypeOf(a)), "");
        zn_dst(l, &o[0], t, LLVMBuildZExt(b, r, LLVMTypeOf(a), ""));
        return;
    case PTX_OP_shl: case PTX_OP_shr: {
        a = zn_src(l, &o[1], t);
        LLVMValueRef n = shift_amt(l, u32src(l, &o[2]), w, LLVMTypeOf(a), &big);
        if (ins->op == PTX_OP_shr && sign) {
            r = LLVMBuildAShr(b, a, n, ""); /* n clamped to w-1: sign fill */
        } else {
            r = ins->op == PTX_OP_shl ? LLVMBuildShl(b, a, n, "") : LLVMBuildLShr(b, a, n, "");
            r = LLVMBuildSelect(b, big, LLVMConstNull(LLVMTypeOf(a)), r, "");
        }
        zn_dst(l, &o[0], t, r);
        return;
    }
    case PTX_OP_bfe:
        a = zn_src(l, &o[1], t);
        zn_dst(l, &o[0], t, bfe(l, a, u32src(l, &o[2]), u32src(l, &o[3]), sign));
        return;
    case PTX_OP_bfi:
        a = zn_src(l, &o[1], t);
        bv = zn_src(l, &o[2], t);
        zn_dst(l, &o[0], t, bfi(l, a, bv, u32src(l, &o[3]), u32src(l, &o[4])));
        return;
    case PTX_OP_bfind:
        a = zn_src(l, &o[1], t);
        zn_dst(l, &o[0], PTX_T_U32, bfind(l, a, sign, ins->flags & PTX_F(shiftamt)));
        return;
    case PTX_OP_brev:
        zn_dst(l, &o[0], t, ll_intrin1(l, "llvm.bitreverse", zn_src(l, &o[1], t)));
        return;
    case PTX_OP_clz: case PTX_OP_popc:
        a = zn_src(l, &o[1], t);
        r = ins->op == PTX_OP_clz
            ? ll_intrin2(l, "llvm.ctlz", a, LLVMConstInt(m->t_i1, 0, 0))
            : ll_intrin1(l, "llvm.ctpop", a);
        zn_dst(l, &o[0], PTX_T_U32, ll_coerce(l, r, ll_vec(m->t_i32), false));
        return;
    case PTX_OP_prmt:
        a = u32src(l, &o[1]);
        bv = u32src(l, &o[2]);
        c = u32src(l, &o[3]);
        zn_dst(l, &o[0], PTX_T_B32, prmt(l, ins, a, bv, c));
        return;
    case PTX_OP_lop3:
        if (ins->nopnds < 5 || o[4].kind != PTX_OPND_IMM) {
            zn_lerr(l, "lop3 needs an immediate lookup table");
            return;
        }
        a = zn_src(l, &o[1], t);
        bv = zn_src(l, &o[2], t);
        c = zn_src(l, &o[3], t);
        zn_dst(l, &o[0], t, lop3(l, a, bv, c, (unsigned)o[4].ival & 0xff));
        return;
    case PTX_OP_shf: {
        a = u32src(l, &o[1]);
        bv = u32src(l, &o[2]);
        c = u32src(l, &o[3]);
        bool left = ins->flags & PTX_F(left);
        LLVMValueRef n = (ins->flags & PTX_F(wrap))
            ? LLVMBuildAnd(b, c, ll_const_vec(m->t_i32, 31), "")
            : ll_intrin2(l, "llvm.umin", c, ll_const_vec(m->t_i32, 32));
        LLVMValueRef is32 = LLVMBuildICmp(b, LLVMIntEQ, n, ll_const_vec(m->t_i32, 32), "");
        r = left ? ll_intrin3(l, "llvm.fshl", bv, a, n) : ll_intrin3(l, "llvm.fshr", bv, a, n);
        r = LLVMBuildSelect(b, is32, left ? a : bv, r, "");
        zn_dst(l, &o[0], PTX_T_B32, r);
        return;
    }
    case PTX_OP_bmsk: {
        a = u32src(l, &o[1]);
        bv = u32src(l, &o[2]);
        LLVMTypeRef v64 = ll_vec(m->t_i64);
        bool wrap = ins->flags & PTX_F(wrap);
        LLVMValueRef pos = wrap ? LLVMBuildAnd(b, a, ll_const_vec(m->t_i32, 31), "")
                                : ll_intrin2(l, "llvm.umin", a, ll_const_vec(m->t_i32, 32));
        LLVMValueRef len = wrap ? LLVMBuildAnd(b, bv, ll_const_vec(m->t_i32, 31), "")
                                : ll_intrin2(l, "llvm.umin", bv, ll_const_vec(m->t_i32, 32));
        LLVMValueRef one = ll_const_vec(m->t_i64, 1);
        LLVMValueRef mk = LLVMBuildSub(b, LLVMBuildShl(b, one, LLVMBuildZExt(b, len, v64, ""), ""),
                                       one, "");
        mk = LLVMBuildShl(b, mk, LLVMBuildZExt(b, pos, v64, ""), "");
        zn_dst(l, &o[0], PTX_T_B32, LLVMBuildTrunc(b, mk, ll_vec(m->t_i32), ""));
        return;
    }
    case PTX_OP_szext: {
        a = u32src(l, &o[1]);
        bv = u32src(l, &o[2]);
        LLVMValueRef n = (ins->flags & PTX_F(wrap))
            ? LLVMBuildAnd(b, bv, ll_const_vec(m->t_i32, 31), "")
            : ll_intrin2(l, "llvm.umin", bv, ll_const_vec(m->t_i32, 32));
        LLVMValueRef zero = LLVMConstNull(ll_vec(m->t_i32));
        r = bfe(l, a, zero, n, sign);
        zn_dst(l, &o[0], t, r);
        return;
    }
    case PTX_OP_dp4a: case PTX_OP_dp2a:
        zn_dst(l, &o[0], PTX_T_B32, dot(l, ins, ins->op == PTX_OP_dp4a));
        return;
    default:
        zn_lerr_unsupported(l);
    }
}
