/* zn_lower_affine.c: compile-time affine-address analysis (issue #9).
 *
 * An ld/st whose address register is built only from invariant registers
 * (zn_lower_invariant.c: one pure definition, written in all 32 lanes) by
 * add/sub/mul/mad/shl/cvt/cvta from %tid, launch constants, kernel
 * parameters and immediates has, in lane l, the value
 *     a[l] = a[0] + l * S        (S a compile-time constant)
 * provided two facts hold at run time, both cheap scalar tests:
 *   - %tid.x runs t0, t0+1, ..., t0+31 across the warp and %tid.y/%tid.z are
 *     the same in all lanes, which holds whenever ntid.x is a multiple of 32;
 *   - every 32 -> 64-bit widening on the way (cvt, mul.wide, the zero
 *     extension of a 32-bit address register) does not wrap inside the
 *     warp: x[0] + 31 * s does not overflow (the lanes are monotone, so the
 *     last lane bounds them all). Arithmetic mod 2^w keeps the form as is.
 * When S is the size each lane accesses, the access is one masked vector
 * load/store at a[0] with the execution mask: no per-lane address test. If
 * the run-time facts fail, the access falls back to the run-time shape test
 * of zn_lower_access.c, so the semantics never depend on the analysis.
 *
 * a[0] itself is recomputed as a scalar from lane 0's inputs along the same
 * definitions, so the vector path needs none of the per-lane arithmetic.
 * Registers the uniform analysis stores as scalars read as splats: S = 0.
 * ZINC_NO_AFFINE=1 turns the analysis off (A/B comparisons). */
#include "zn_lower.h"

#include <stdint.h>
#include <stdlib.h>

#define ZN_AFF_DEPTH 24

typedef struct aff_walk {
    zn_lfn *l;
    LLVMValueRef cond; /* i1 AND of the run-time facts; NULL: none needed */
    bool need_lin;     /* uses %tid: ntid.x % 32 == 0 */
} aff_walk;

/* value of v as a signed number of `bits` bits */
static int64_t norm(int64_t v, unsigned bits)
{
    if (bits == 32)
        return (int32_t)(uint32_t)(uint64_t)v;
    return v;
}

static void add_cond(aff_walk *w, LLVMValueRef c)
{
    w->cond = w->cond ? LLVMBuildAnd(w->l->b, w->cond, c, "") : c;
}

static unsigned reg_bits(zn_lfn *l, int32_t r)
{
    return ll_bits(l->reg_ty[r]);
}

/* lane 0 of register r as an integer of its width */
static LLVMValueRef lane0(zn_lfn *l, int32_t r)
{
    LLVMValueRef v = zn_load_reg(l, r);
    if (LLVMGetTypeKind(LLVMTypeOf(v)) == LLVMVectorTypeKind)
        v = LLVMBuildExtractElement(l->b, v, LLVMConstInt(l->m->t_i32, 0, 0), "aff.l0");
    LLVMTypeRef it = LLVMIntTypeInContext(l->m->ctx, reg_bits(l, r));
    if (LLVMTypeOf(v) != it)
        v = LLVMBuildBitCast(l->b, v, it, "");
    return v;
}

/* An affine value: lane l holds v0 + l * s (mod 2^bits); v0 is lane 0's
 * value as a scalar computed here (so the vector path needs none of the
 * per-lane address arithmetic). */
typedef struct aff_val {
    int64_t s;
    LLVMValueRef v0;
} aff_val;

static LLVMValueRef cint(zn_lfn *l, unsigned bits, uint64_t v)
{
    return LLVMConstInt(LLVMIntTypeInContext(l->m->ctx, bits), v, 0);
}

/* v0 converted to `bits` as ll_coerce does for an operand read */
static LLVMValueRef resize(zn_lfn *l, LLVMValueRef v, unsigned bits, bool sign)
{
    unsigned have = ll_bits(LLVMTypeOf(v));
    LLVMTypeRef t = LLVMIntTypeInContext(l->m->ctx, bits);
    if (have == bits)
        return v;
    if (have > bits)
        return LLVMBuildTrunc(l->b, v, t, "");
    return sign ? LLVMBuildSExt(l->b, v, t, "") : LLVMBuildZExt(l->b, v, t, "");
}

/* Run-time fact: zero- or sign-extending a 32-bit value with lane 0 x0
 * and stride s keeps the lanes affine: x0 + 31 * s does not wrap (the lanes
 * are monotone). false: cannot be expressed. */
static bool widen_ok(aff_walk *w, LLVMValueRef x0, int64_t s, bool sign)
{
    if (s == 0)
        return true;
    int64_t span = 31 * s;
    if (span > INT32_MAX || span < -(int64_t)INT32_MAX)
        return false;
    zn_lfn *l = w->l;
    LLVMTypeRef t = l->m->t_i32;
    const char *name = sign ? "llvm.sadd.with.overflow"
                       : span >= 0 ? "llvm.uadd.with.overflow" : "llvm.usub.with.overflow";
    uint64_t k = (uint64_t)(sign || span >= 0 ? span : -span);
    LLVMValueRef args[2] = {x0, LLVMConstInt(t, k, 0)};
    LLVMValueRef res = ll_intrin(l, name, &t, 1, args, 2);
    LLVMValueRef ovf = LLVMBuildExtractValue(l->b, res, 1, "aff.ovf");
    add_cond(w, LLVMBuildNot(l->b, ovf, ""));
    return true;
}

static bool reg_aff(aff_walk *w, int32_t r, int depth, aff_val *out);

/* a source operand used at width `bits` (must match the register's width:
 * no implicit conversion) */
static bool opnd_aff(aff_walk *w, const ptx_opnd *o, unsigned bits, int depth, aff_val *out)
{
    zn_lfn *l = w->l;
    switch (o->kind) {
    case PTX_OPND_IMM:
        out->s = 0;
        out->v0 = cint(l, bits, (uint64_t)o->ival);
        return true;
    case PTX_OPND_REG:
        if (o->neg || o->reg2 >= 0 || reg_bits(l, o->reg) != bits)
            return false;
        return reg_aff(w, o->reg, depth, out);
    case PTX_OPND_SREG:
        switch (o->sreg) {
        case PTX_SREG_TID_X:
            w->need_lin = true;
            out->s = 1;
            break;
        case PTX_SREG_TID_Y: case PTX_SREG_TID_Z:
            w->need_lin = true;
            out->s = 0;
            break;
        case PTX_SREG_LANEID:
            out->s = 1;
            break;
        case PTX_SREG_NTID_X: case PTX_SREG_NTID_Y: case PTX_SREG_NTID_Z:
        case PTX_SREG_CTAID_X: case PTX_SREG_CTAID_Y: case PTX_SREG_CTAID_Z:
        case PTX_SREG_NCTAID_X: case PTX_SREG_NCTAID_Y: case PTX_SREG_NCTAID_Z:
            out->s = 0;
            break;
        default:
            return false;
        }
        {
            LLVMValueRef v = zn_sreg(l, o->sreg);
            if (LLVMGetTypeKind(LLVMTypeOf(v)) == LLVMVectorTypeKind)
                v = LLVMBuildExtractElement(l->b, v, LLVMConstInt(l->m->t_i32, 0, 0), "");
            if (LLVMGetTypeKind(LLVMTypeOf(v)) != LLVMIntegerTypeKind)
                return false;
            out->v0 = resize(l, v, bits, false);
        }
        return true;
    case PTX_OPND_SYM: {
        /* the address of a shared/global/const variable: the same in every
         * lane (never local or param: per-lane copies) */
        const ptx_var *v = o->var;
        if (!v || (v->space != PTX_SPACE_SHARED && v->space != PTX_SPACE_GLOBAL &&
                   v->space != PTX_SPACE_CONST))
            return false;
        LLVMValueRef a = zn_src(l, o, bits == 32 ? PTX_T_U32 : PTX_T_U64);
        out->s = 0;
        out->v0 = LLVMBuildExtractElement(l->b, a, LLVMConstInt(l->m->t_i32, 0, 0), "");
        return true;
    }
    default:
        return false;
    }
}

static bool is_int_type(ptx_type t, unsigned *bits)
{
    switch (t) {
    case PTX_T_B32: case PTX_T_U32: case PTX_T_S32:
        *bits = 32;
        return true;
    case PTX_T_B64: case PTX_T_U64: case PTX_T_S64:
        *bits = 64;
        return true;
    default:
        return false;
    }
}

/* stride of a * b where one factor is an immediate (or both uniform) */
static bool mul_stride(const ptx_opnd *a, int64_t sa, const ptx_opnd *b, int64_t sb,
                       int64_t *s)
{
    if (sa == 0 && sb == 0) {
        *s = 0;
        return true;
    }
    if (sb == 0 && b->kind == PTX_OPND_IMM) {
        *s = (int64_t)((uint64_t)sa * (uint64_t)b->ival);
        return true;
    }
    if (sa == 0 && a->kind == PTX_OPND_IMM) {
        *s = (int64_t)((uint64_t)sb * (uint64_t)a->ival);
        return true;
    }
    return false;
}

/* a 32-bit value widened to 64 bits (cvt, mul.wide, a u64 read): it must
 * stay affine */
static bool widen_src(aff_walk *w, aff_val *v, bool sign)
{
    if (!widen_ok(w, v->v0, v->s, sign))
        return false;
    v->v0 = resize(w->l, v->v0, 64, sign);
    return true;
}

static bool ins_aff(aff_walk *w, const ptx_ins *ins, unsigned dbits, int depth, aff_val *out)
{
    zn_lfn *l = w->l;
    LLVMBuilderRef b = l->b;
    unsigned tb;
    aff_val va, vb, vc;
    const ptx_opnd *o = ins->opnds;
    if (zn_is_kernel_param_load(l, ins)) {
        out->s = 0;
        out->v0 = lane0(l, o[0].reg);
        return true;
    }
    if (ins->flags & (PTX_F(cc) | PTX_F(sat)))
        return false;
    switch (ins->op) {
    case PTX_OP_mov:
        if (ins->nopnds != 2 || !is_int_type(ins->type[0], &tb) || tb != dbits)
            return false;
        return opnd_aff(w, &o[1], dbits, depth, out);
    case PTX_OP_cvta: {
        /* generic <-> global/const/param: the same address; shared: plus or
         * minus block->shared, the same in every lane. Never local (per-lane
         * depots). The source is read as u64 (zero-extended). */
        if (ins->space == PTX_SPACE_LOCAL || !is_int_type(ins->type[0], &tb) ||
            tb != dbits || o[1].kind != PTX_OPND_REG || o[1].ival)
            return false;
        unsigned sbits = reg_bits(l, o[1].reg);
        if ((sbits != 32 && sbits != 64) || !opnd_aff(w, &o[1], sbits, depth, &va))
            return false;
        if (sbits < 64 && !widen_src(w, &va, false))
            return false;
        LLVMValueRef v = va.v0;
        if (ins->space == PTX_SPACE_SHARED) {
            LLVMValueRef sb = LLVMBuildExtractElement(b, l->shared_base,
                                                      LLVMConstInt(l->m->t_i32, 0, 0), "");
            v = (ins->flags & PTX_F(to)) ? LLVMBuildSub(b, v, sb, "") : LLVMBuildAdd(b, v, sb, "");
        }
        out->s = norm(va.s, dbits);
        out->v0 = resize(l, v, dbits, false);
        return true;
    }
    case PTX_OP_add: case PTX_OP_sub:
        if (!is_int_type(ins->type[0], &tb) || tb != dbits ||
            !opnd_aff(w, &o[1], tb, depth, &va) || !opnd_aff(w, &o[2], tb, depth, &vb))
            return false;
        out->s = norm(ins->op == PTX_OP_add ? va.s + vb.s : va.s - vb.s, dbits);
        out->v0 = ins->op == PTX_OP_add ? LLVMBuildAdd(b, va.v0, vb.v0, "")
                                        : LLVMBuildSub(b, va.v0, vb.v0, "");
        return true;
    case PTX_OP_shl:
        if (!is_int_type(ins->type[0], &tb) || tb != dbits || o[2].kind != PTX_OPND_IMM ||
            o[2].ival < 0 || o[2].ival >= (int64_t)tb || !opnd_aff(w, &o[1], tb, depth, &va))
            return false;
        out->s = norm((int64_t)((uint64_t)va.s << o[2].ival), dbits);
        out->v0 = LLVMBuildShl(b, va.v0, cint(l, tb, (uint64_t)o[2].ival), "");
        return true;
    case PTX_OP_mul: case PTX_OP_mad: {
        bool wide = ins->flags & PTX_F(wide);
        if (!is_int_type(ins->type[0], &tb) || (ins->flags & PTX_F(hi_half)) ||
            (wide ? (tb != 32 || dbits != 64) : tb != dbits))
            return false;
        if (!opnd_aff(w, &o[1], tb, depth, &va) || !opnd_aff(w, &o[2], tb, depth, &vb) ||
            !mul_stride(&o[1], va.s, &o[2], vb.s, &out->s))
            return false;
        if (wide) {
            bool sign = ptx_type_is_signed(ins->type[0]);
            if (!widen_src(w, &va, sign) || !widen_src(w, &vb, sign))
                return false;
        }
        out->v0 = LLVMBuildMul(b, va.v0, vb.v0, "");
        if (ins->op == PTX_OP_mad) {
            if (!opnd_aff(w, &o[3], dbits, depth, &vc))
                return false;
            out->s += vc.s;
            out->v0 = LLVMBuildAdd(b, out->v0, vc.v0, "");
        }
        out->s = norm(out->s, dbits);
        return true;
    }
    case PTX_OP_cvt: {
        unsigned sbits;
        if (ins->ntypes < 2 || !is_int_type(ins->type[0], &tb) || tb != dbits ||
            !is_int_type(ins->type[1], &sbits) || o[1].kind != PTX_OPND_REG ||
            !opnd_aff(w, &o[1], sbits, depth, &va))
            return false;
        bool sign = ptx_type_is_signed(ins->type[1]);
        if (sbits < tb && !widen_src(w, &va, sign))
            return false;
        out->s = norm(va.s, dbits);
        out->v0 = resize(l, va.v0, dbits, sign);
        return true;
    }
    default:
        return false;
    }
}

static bool reg_aff(aff_walk *w, int32_t r, int depth, aff_val *out)
{
    zn_lfn *l = w->l;
    if (r < 0 || (uint32_t)r >= l->f->nregs)
        return false;
    if (l->reg_uni && l->reg_uni[r]) { /* scalar storage: a splat */
        out->s = 0;
        out->v0 = lane0(l, r);
        return true;
    }
    if (depth >= ZN_AFF_DEPTH || !l->reg_inv || !l->reg_inv[r] || !l->reg_def ||
        l->reg_def[r] < 0)
        return false;
    const ptx_ins *ins = &l->f->ins[l->reg_def[r]];
    if (ins->guard_reg >= 0 || ins->nopnds < 2 || ins->opnds[0].kind != PTX_OPND_REG ||
        ins->opnds[0].reg != r)
        return false;
    return ins_aff(w, ins, reg_bits(l, r), depth + 1, out);
}

bool zn_affine_contig(zn_lfn *l, uint64_t stride, LLVMValueRef *cond, LLVMValueRef *base)
{
    const ptx_ins *ins = l->ins;
    if (!ins || getenv("ZINC_NO_AFFINE") || zn_ins_shared_cluster(ins))
        return false;   /* .shared::cluster: per-lane rank windows */
    const ptx_opnd *a;
    if (ins->op == PTX_OP_ld || ins->op == PTX_OP_ldu)
        a = &ins->opnds[1];
    else if (ins->op == PTX_OP_st)
        a = &ins->opnds[0];
    else
        return false;
    if (a->kind != PTX_OPND_ADDR || a->reg < 0 || a->var || a->sym || a->func)
        return false;
    aff_walk w = {.l = l};
    aff_val v;
    unsigned bits = reg_bits(l, a->reg);
    if ((bits != 32 && bits != 64) || !reg_aff(&w, a->reg, 0, &v))
        return false;
    /* the address is the register read as u64, plus the offset, plus
     * block->shared for the shared space (zn_lower_mem.c) */
    if (bits == 32 && !widen_src(&w, &v, false))
        return false;
    if ((uint64_t)v.s != stride)
        return false;
    LLVMValueRef a0 = v.v0;
    if (a->ival)
        a0 = LLVMBuildAdd(l->b, a0, LLVMConstInt(l->m->t_i64, (uint64_t)a->ival, 0), "");
    if (ins->space == PTX_SPACE_SHARED)
        a0 = LLVMBuildAdd(l->b, a0, LLVMBuildExtractElement(l->b, l->shared_base,
                          LLVMConstInt(l->m->t_i32, 0, 0), ""), "");
    if (w.need_lin) {
        LLVMValueRef nx = LLVMBuildExtractElement(l->b, zn_sreg(l, PTX_SREG_NTID_X),
                                                  LLVMConstInt(l->m->t_i32, 0, 0), "");
        LLVMValueRef low = LLVMBuildAnd(l->b, nx, LLVMConstInt(LLVMTypeOf(nx), 31, 0), "");
        add_cond(&w, LLVMBuildICmp(l->b, LLVMIntEQ, low, LLVMConstNull(LLVMTypeOf(nx)),
                                   "aff.lin"));
    }
    *cond = w.cond;
    *base = a0;
    return true;
}
