/* zn_lower_affine.c: compile-time affine-address analysis (issue #9).
 *
 * An ld/st whose address register is built only from time-invariant inputs
 * (%tid, launch constants, kernel parameters, symbol addresses, immediates)
 * by add/sub/mul/mad/shl/cvt/cvta has, in the lane holding thread
 * (tid.x, tid.y), the value
 *     a = a0 + (tid.x - tid.x of lane 0) * S + (tid.y - tid.y of lane 0) * Sy
 * (S, Sy compile-time constants; %laneid counts like tid.x). Two lane
 * layouts make that a known shape, each under cheap scalar run-time facts:
 *   - "lin": ntid.x % 32 == 0. tid.x runs t0 .. t0+31 across the warp and
 *     tid.y/tid.z are the same in all lanes: lane l at a0 + l * S.
 *   - "rows": ntid.x = X divides 32 (1, 2, 4, 8, 16) and a warp does not
 *     cross a z plane (ntid.z == 1 or X * ntid.y % 32 == 0): lane
 *     l = r * X + c holds tid.x = c, tid.y = ty0 + r, so lane l is at
 *     a0 + c * S + r * Sy (%laneid is not of that form: no rows then).
 * Every 32 -> 64-bit widening on the way (cvt, mul.wide, the zero extension
 * of a 32-bit address register) must not wrap inside the warp: a run-time
 * test that lane 0's value plus the largest (and smallest) lane offset of
 * the layout does not overflow (the offsets span an interval, so its ends
 * bound every lane). Arithmetic mod 2^w keeps the form as is.
 * zn_lower_access.c turns the shapes into one vector access (lin with
 * S = size, or rows with S = size and Sy = X * size), one scalar access
 * (lin with S = 0) or two half-warp accesses (rows with X = 16: each half
 * contiguous or uniform at a0 or a0 + Sy), none with a per-lane address
 * test. If the run-time facts fail, the access falls back to the run-time
 * shape test of zn_lower_access.c, so the semantics never depend on the
 * analysis.
 *
 * a0 itself is recomputed as a scalar from lane 0's inputs along the same
 * definitions, so the vector path needs none of the per-lane arithmetic.
 * A register read is followed to its definition when that definition is
 * its only one and time-invariant (zn_lower_invariant.c, or this walk with
 * only time-invariant inputs), or when it is the last definition before the
 * read in straight-line code: no label in between, only fall-throughs of
 * conditional branches, so the lanes reading are a subset of those that
 * wrote (nvcc reuses %r for tid.x and then for tid.x + k inside a loop).
 * Registers the uniform analysis stores as scalars read as splats where
 * their value is the one at the access. ZINC_NO_AFFINE=1 turns the analysis
 * off (A/B comparisons). */
#include "zn_lower.h"

#include <stdint.h>
#include <stdlib.h>

#define ZN_AFF_DEPTH 24
#define ZN_AFF_WALK 512 /* instructions a straight-line search looks back */

typedef struct aff_walk {
    zn_lfn *l;
    uint32_t use;      /* index of the ld/st being lowered */
    LLVMValueRef cond1, cond2; /* i1 AND of the facts of lin / rows; NULL: none */
    bool ok1, ok2;     /* the layout can still be proven */
    bool need_lin;     /* uses %tid: the layout facts are needed */
    bool vec;          /* zn_affine_lanes: v0 holds every lane's value (a
                        * vector), no facts are built */
} aff_walk;

/* value of v as a signed number of `bits` bits */
static int64_t norm(int64_t v, unsigned bits)
{
    if (bits == 32)
        return (int32_t)(uint32_t)(uint64_t)v;
    return v;
}

static void add_cond(zn_lfn *l, LLVMValueRef *cond, LLVMValueRef c)
{
    *cond = *cond ? LLVMBuildAnd(l->b, *cond, c, "") : c;
}

static unsigned reg_bits(zn_lfn *l, int32_t r)
{
    return ll_bits(l->reg_ty[r]);
}

/* lane 0 of register r as an integer of its width (every lane in vector
 * mode) */
static LLVMValueRef lane0(aff_walk *w, int32_t r)
{
    zn_lfn *l = w->l;
    LLVMValueRef v = zn_load_reg(l, r);
    LLVMTypeRef it = LLVMIntTypeInContext(l->m->ctx, reg_bits(l, r));
    if (w->vec)
        it = ll_vec(it);
    else if (LLVMGetTypeKind(LLVMTypeOf(v)) == LLVMVectorTypeKind)
        v = LLVMBuildExtractElement(l->b, v, LLVMConstInt(l->m->t_i32, 0, 0), "aff.l0");
    if (LLVMTypeOf(v) != it)
        v = LLVMBuildBitCast(l->b, v, it, "");
    return v;
}

/* lane 0 of a vector the same in every lane (the vector in vector mode) */
static LLVMValueRef first(aff_walk *w, LLVMValueRef v)
{
    if (w->vec || LLVMGetTypeKind(LLVMTypeOf(v)) != LLVMVectorTypeKind)
        return v;
    return LLVMBuildExtractElement(w->l->b, v, LLVMConstInt(w->l->m->t_i32, 0, 0), "");
}

/* An affine value: v0 + dx * s + dy * sy (mod 2^bits), dx/dy the lane's
 * tid.x/tid.y minus lane 0's; v0 is lane 0's value as a scalar computed
 * here (so the vector path needs none of the per-lane address arithmetic).
 * syv, when not NULL, is the tid.y stride as a run-time scalar of the
 * value's width (sy is then 0): a row pitch from a parameter, as in
 * `A[(ty + row0) * n + tx]`, which keeps the rows layout (two half-warps
 * one pitch apart) where a constant pitch was needed before. Not built in
 * vector mode, where no stride is used. */
typedef struct aff_val {
    int64_t s, sy;
    LLVMValueRef syv;
    LLVMValueRef v0;
} aff_val;

static LLVMValueRef cint(aff_walk *w, unsigned bits, uint64_t v)
{
    LLVMTypeRef t = LLVMIntTypeInContext(w->l->m->ctx, bits);
    return w->vec ? ll_const_vec(t, v) : LLVMConstInt(t, v, 0);
}

/* v0 (a scalar or, in vector mode, a vector) converted to `bits` as
 * ll_coerce does for an operand read */
static LLVMValueRef resize(zn_lfn *l, LLVMValueRef v, unsigned bits, bool sign)
{
    LLVMTypeRef vt = LLVMTypeOf(v);
    bool vec = LLVMGetTypeKind(vt) == LLVMVectorTypeKind;
    unsigned have = ll_bits(vec ? LLVMGetElementType(vt) : vt);
    LLVMTypeRef t = LLVMIntTypeInContext(l->m->ctx, bits);
    if (vec)
        t = ll_vec(t);
    if (have == bits)
        return v;
    if (have > bits)
        return LLVMBuildTrunc(l->b, v, t, "");
    return sign ? LLVMBuildSExt(l->b, v, t, "") : LLVMBuildZExt(l->b, v, t, "");
}

/* v's tid.y stride as a scalar of `bits` bits */
static LLVMValueRef sy_val(aff_walk *w, const aff_val *v, unsigned bits)
{
    if (v->syv)
        return resize(w->l, v->syv, bits, true);
    return LLVMConstInt(LLVMIntTypeInContext(w->l->m->ctx, bits), (uint64_t)v->sy, 0);
}

/* out's tid.y stride from a's and b's, added or subtracted, when either
 * is a run-time value (out->sy already holds the constant case) */
static void sy_combine(aff_walk *w, const aff_val *a, const aff_val *b, bool add, unsigned bits,
                       aff_val *out)
{
    out->syv = NULL;
    if (!a->syv && !b->syv)
        return;
    LLVMValueRef x = sy_val(w, a, bits), y = sy_val(w, b, bits);
    out->syv = add ? LLVMBuildAdd(w->l->b, x, y, "aff.sy") : LLVMBuildSub(w->l->b, x, y, "aff.sy");
    out->sy = 0;
}

/* i1: the 32-bit x0 + d does not leave the range of the extension
 * (signed or unsigned) */
static LLVMValueRef no_wrap(zn_lfn *l, LLVMValueRef x0, int64_t d, bool sign)
{
    LLVMTypeRef t = l->m->t_i32;
    const char *name = sign ? "llvm.sadd.with.overflow"
                       : d >= 0 ? "llvm.uadd.with.overflow" : "llvm.usub.with.overflow";
    uint64_t k = (uint64_t)(sign || d >= 0 ? d : -d);
    LLVMValueRef args[2] = {x0, LLVMConstInt(t, k, 0)};
    LLVMValueRef res = ll_intrin(l, name, &t, 1, args, 2);
    return LLVMBuildNot(l->b, LLVMBuildExtractValue(l->b, res, 1, "aff.ovf"), "");
}

/* Adds to *cond that every lane offset in [lo, hi] (lo <= 0 <= hi) keeps
 * x0 + offset inside the extension's range; false: cannot be expressed. */
static bool span_ok(zn_lfn *l, LLVMValueRef *cond, LLVMValueRef x0, int64_t lo, int64_t hi,
                    bool sign)
{
    if (hi > INT32_MAX || lo < -(int64_t)INT32_MAX)
        return false;
    if (hi > 0)
        add_cond(l, cond, no_wrap(l, x0, hi, sign));
    if (lo < 0)
        add_cond(l, cond, no_wrap(l, x0, lo, sign));
    return true;
}

static int64_t min0(int64_t v) { return v < 0 ? v : 0; }
static int64_t max0(int64_t v) { return v > 0 ? v : 0; }

/* Run-time facts: zero- or sign-extending a 32-bit value with lane 0 x0
 * and strides s, sy keeps the lanes affine. lin: offsets l * s, l < 32;
 * rows: c * s + r * sy, c < 16, r < 32. false: neither layout holds. */
static bool widen_ok(aff_walk *w, LLVMValueRef x0, int64_t s, int64_t sy, bool sign)
{
    if (s < -(int64_t)INT32_MAX || s > INT32_MAX || sy < -(int64_t)INT32_MAX ||
        sy > INT32_MAX)
        return false;
    if (w->ok1 && !span_ok(w->l, &w->cond1, x0, min0(31 * s), max0(31 * s), sign))
        w->ok1 = false;
    if (w->ok2 && !span_ok(w->l, &w->cond2, x0, min0(15 * s) + min0(31 * sy),
                           max0(15 * s) + max0(31 * sy), sign))
        w->ok2 = false;
    return w->ok1 || w->ok2;
}

/* i1: the 32-bit x0 + d, d a run-time i32 read as signed, does not leave
 * the range of the extension */
static LLVMValueRef no_wrap_rt(zn_lfn *l, LLVMValueRef x0, LLVMValueRef d, bool sign)
{
    LLVMTypeRef t = l->m->t_i32;
    LLVMBuilderRef b = l->b;
    if (sign) {
        LLVMValueRef r = ll_intrin(l, "llvm.sadd.with.overflow", &t, 1,
                                   (LLVMValueRef[]){x0, d}, 2);
        return LLVMBuildNot(b, LLVMBuildExtractValue(b, r, 1, ""), "aff.ok");
    }
    LLVMValueRef up = ll_intrin(l, "llvm.uadd.with.overflow", &t, 1, (LLVMValueRef[]){x0, d}, 2);
    LLVMValueRef down = ll_intrin(l, "llvm.usub.with.overflow", &t, 1,
                                  (LLVMValueRef[]){x0, LLVMBuildNeg(b, d, "")}, 2);
    LLVMValueRef neg = LLVMBuildICmp(b, LLVMIntSLT, d, LLVMConstNull(t), "");
    LLVMValueRef ovf = LLVMBuildSelect(b, neg, LLVMBuildExtractValue(b, down, 1, ""),
                                       LLVMBuildExtractValue(b, up, 1, ""), "");
    return LLVMBuildNot(b, ovf, "aff.ok");
}

/* widen_ok for a 32-bit value with the run-time tid.y stride sy (never
 * in vector mode): lin as there (tid.y the same in every lane); rows only
 * as the two half-warps a run-time stride is used for (affine_plan), whose
 * lane offsets lie between the corners 0, 15 * s, sy and sy + 15 * s. */
static bool widen_pitch_ok(aff_walk *w, LLVMValueRef x0, int64_t s, LLVMValueRef sy, bool sign)
{
    zn_lfn *l = w->l;
    if (s < -(int64_t)INT32_MAX / 31 || s > INT32_MAX / 31)
        return false;
    if (w->ok1 && !span_ok(l, &w->cond1, x0, min0(31 * s), max0(31 * s), sign))
        w->ok1 = false;
    if (w->ok2) {
        LLVMValueRef x1 = LLVMBuildAdd(l->b, x0, sy, "");
        add_cond(l, &w->cond2, no_wrap_rt(l, x0, sy, sign));
        if (s) {
            add_cond(l, &w->cond2, no_wrap(l, x0, 15 * s, sign));
            add_cond(l, &w->cond2, no_wrap(l, x1, 15 * s, sign));
        }
    }
    return w->ok1 || w->ok2;
}

static bool reg_aff(aff_walk *w, int32_t r, uint32_t at, bool tinv, int depth, aff_val *out);
static bool shr_and_aff(aff_walk *w, const ptx_ins *ins, unsigned tb, bool tinv, int depth,
                        aff_val *out);

/* a source operand of the instruction at `at`, used at width `bits` (must
 * match the register's width: no implicit conversion) */
static bool opnd_aff(aff_walk *w, const ptx_opnd *o, unsigned bits, uint32_t at, bool tinv,
                     int depth, aff_val *out)
{
    zn_lfn *l = w->l;
    out->sy = 0;
    out->syv = NULL;
    switch (o->kind) {
    case PTX_OPND_IMM:
        out->s = 0;
        out->v0 = cint(w, bits, (uint64_t)o->ival);
        return true;
    case PTX_OPND_REG:
        if (o->neg || o->reg2 >= 0 || reg_bits(l, o->reg) != bits)
            return false;
        return reg_aff(w, o->reg, at, tinv, depth, out);
    case PTX_OPND_SREG:
        switch (o->sreg) {
        case PTX_SREG_TID_X:
            w->need_lin = true;
            out->s = 1;
            break;
        case PTX_SREG_TID_Y:
            w->need_lin = true;
            out->s = 0;
            out->sy = 1;
            break;
        case PTX_SREG_TID_Z:
            w->need_lin = true;
            out->s = 0;
            break;
        case PTX_SREG_LANEID: /* l, not c + r * X: only the lin layout */
            w->ok2 = false;
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
            /* vector mode: %tid loaded here, so that the lane addresses
             * built from it stay on the fall-back path (LICM would hoist
             * them out of a loop from the prologue's copy, and a coroutine
             * would keep them in its frame across barriers) */
            LLVMValueRef v = w->vec && o->sreg >= PTX_SREG_TID_X && o->sreg <= PTX_SREG_TID_Z
                                 ? zn_load_tid(l, (unsigned)(o->sreg - PTX_SREG_TID_X))
                                 : zn_sreg(l, o->sreg);
            LLVMTypeRef vt = LLVMTypeOf(v);
            bool is_vec = LLVMGetTypeKind(vt) == LLVMVectorTypeKind;
            if (LLVMGetTypeKind(is_vec ? LLVMGetElementType(vt) : vt) != LLVMIntegerTypeKind)
                return false;
            v = w->vec && !is_vec ? ll_splat(l, v) : first(w, v);
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
        out->v0 = first(w, a);
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

/* strides of a * b: one factor the same in every lane and an immediate
 * (or both the same in every lane). A run-time factor u the same in every
 * lane times a value with only a tid.y stride (`(ctaid.y * ntid.y + tid.y)
 * * width`) has the run-time stride sy * u: *rt says which factor is u (1:
 * b, 2: a), for the caller to build once the factors have their final
 * width. Other run-time products keep only the lin layout, where tid.y is
 * the same in every lane. */
static bool mul_stride(aff_walk *w, const ptx_opnd *o1, const aff_val *a, const ptx_opnd *o2,
                       const aff_val *b, aff_val *out, int *rt)
{
    bool ua = a->s == 0 && a->sy == 0 && !a->syv, ub = b->s == 0 && b->sy == 0 && !b->syv;
    *rt = 0;
    out->syv = NULL;
    if (ua && ub) {
        out->s = out->sy = 0;
        return true;
    }
    if (ub && o2->kind == PTX_OPND_IMM) {
        out->s = (int64_t)((uint64_t)a->s * (uint64_t)o2->ival);
        out->sy = (int64_t)((uint64_t)a->sy * (uint64_t)o2->ival);
        *rt = a->syv ? 1 : 0;
        return true;
    }
    if (ua && o1->kind == PTX_OPND_IMM) {
        out->s = (int64_t)((uint64_t)b->s * (uint64_t)o1->ival);
        out->sy = (int64_t)((uint64_t)b->sy * (uint64_t)o1->ival);
        *rt = b->syv ? 2 : 0;
        return true;
    }
    if (a->s == 0 && b->s == 0) {
        out->s = out->sy = 0;
        if (!w->vec && (ua || ub) && w->ok2) {
            *rt = ub ? 1 : 2;
            return true;
        }
        w->ok2 = false;
        return w->ok1;
    }
    return false;
}

/* a 32-bit value widened to 64 bits (cvt, mul.wide, a u64 read): it must
 * stay affine */
static bool widen_src(aff_walk *w, aff_val *v, bool sign)
{
    if (v->syv) {
        if (!widen_pitch_ok(w, v->v0, v->s, v->syv, sign))
            return false;
        /* no lane wraps: the lanes differ by the pitch as a signed value */
        v->syv = resize(w->l, v->syv, 64, true);
    } else if (!w->vec && !widen_ok(w, v->v0, v->s, v->sy, sign))
        return false;
    v->v0 = resize(w->l, v->v0, 64, sign);
    return true;
}

static void norm_val(aff_val *v, unsigned bits)
{
    v->s = norm(v->s, bits);
    v->sy = norm(v->sy, bits);
}

static bool uniform_val(const aff_val *v)
{
    return v->s == 0 && v->sy == 0 && !v->syv;
}

/* Bit ops on lane values x = v0 + lane * s (lin only: rows need other
 * facts): the run-time fact that the low k bits of v0 plus the largest
 * lane offset 31 * s stay below 2^k, so that above bit k every lane has
 * lane 0's bits and below it lane 0's plus its offset (`tid >> 5` and
 * `tid & ~31` the same in the warp, `tid & 31` the lane: CUB's warp-
 * striped loads). false: it cannot hold. */
static bool low_bits_fit(aff_walk *w, const aff_val *x, unsigned k, unsigned bits)
{
    if (x->s < 0 || k >= bits || k > 62)
        return false;
    uint64_t span = 31 * (uint64_t)x->s, lim = ((uint64_t)1 << k) - 1;
    if (span > lim)
        return false;
    w->ok2 = false;
    if (!w->ok1)
        return false;
    if (!w->vec) {
        zn_lfn *l = w->l;
        LLVMTypeRef t = LLVMIntTypeInContext(l->m->ctx, bits);
        LLVMValueRef low = LLVMBuildAnd(l->b, x->v0, LLVMConstInt(t, lim, 0), "");
        add_cond(l, &w->cond1, LLVMBuildICmp(l->b, LLVMIntULE, low,
                                             LLVMConstInt(t, lim - span, 0), "aff.bits"));
    }
    return true;
}

/* and/shr by an immediate: a uniform value stays uniform; a lane value
 * masked to its low k bits keeps its stride, masked to its high bits or
 * shifted right by k it is the same in every lane (low_bits_fit) */
static bool bits_aff(aff_walk *w, const ptx_ins *ins, const aff_val *x, unsigned tb,
                     aff_val *out)
{
    LLVMBuilderRef b = w->l->b;
    const ptx_opnd *o = ins->opnds;
    uint64_t all = tb == 64 ? ~(uint64_t)0 : ((uint64_t)1 << tb) - 1;
    bool uni = uniform_val(x);
    *out = (aff_val){0};
    if (ins->op == PTX_OP_shr) {
        if (o[2].ival < 0 || o[2].ival >= (int64_t)tb)
            return false;
        LLVMValueRef k = cint(w, tb, (uint64_t)o[2].ival);
        out->v0 = ptx_type_is_signed(ins->type[0]) ? LLVMBuildAShr(b, x->v0, k, "")
                                                   : LLVMBuildLShr(b, x->v0, k, "");
        return uni || low_bits_fit(w, x, (unsigned)o[2].ival, tb);
    }
    uint64_t m = (uint64_t)o[2].ival & all, high = ~m & all;
    out->v0 = LLVMBuildAnd(b, x->v0, cint(w, tb, m), "");
    if (uni)
        return true;
    if (!(m & (m + 1))) {   /* 2^k - 1 */
        out->s = x->s;
        return low_bits_fit(w, x, (unsigned)__builtin_popcountll(m), tb);
    }
    if (!(high & (high + 1)))   /* ~(2^k - 1) */
        return low_bits_fit(w, x, (unsigned)__builtin_popcountll(high), tb);
    return false;
}

/* a | b with one side u the same in every lane and the other x = x0 +
 * lane * s: an add when u has none of the bits x's lanes can have (the
 * run-time facts u & (2^k - 1) == 0 and x0 + 31 * s < 2^k; lin only) */
static bool or_aff(aff_walk *w, const aff_val *a, const aff_val *b, unsigned tb, aff_val *out)
{
    zn_lfn *l = w->l;
    *out = (aff_val){.v0 = LLVMBuildOr(l->b, a->v0, b->v0, "")};
    bool ua = uniform_val(a), ub = uniform_val(b);
    if (ua && ub)
        return true;
    if (ua == ub)
        return false;
    const aff_val *u = ua ? a : b, *x = ua ? b : a;
    uint64_t span = 31 * (uint64_t)x->s;
    unsigned k = 64 - (unsigned)__builtin_clzll(span | 1);
    if (x->s <= 0 || k >= tb || k > 62)
        return false;
    w->ok2 = false;
    if (!w->ok1)
        return false;
    out->s = x->s;
    if (!w->vec) {
        LLVMTypeRef t = LLVMIntTypeInContext(l->m->ctx, tb);
        uint64_t lim = ((uint64_t)1 << k) - 1;
        LLVMValueRef clear = LLVMBuildICmp(l->b, LLVMIntEQ,
            LLVMBuildAnd(l->b, u->v0, LLVMConstInt(t, lim, 0), ""), LLVMConstNull(t), "");
        LLVMValueRef fits = LLVMBuildICmp(l->b, LLVMIntULE, x->v0,
                                          LLVMConstInt(t, lim - span, 0), "");
        add_cond(l, &w->cond1, LLVMBuildAnd(l->b, clear, fits, "aff.or"));
    }
    return true;
}

static bool ins_aff(aff_walk *w, uint32_t at, bool tinv, unsigned dbits, int depth,
                    aff_val *out)
{
    zn_lfn *l = w->l;
    const ptx_ins *ins = &l->f->ins[at];
    LLVMBuilderRef b = l->b;
    unsigned tb;
    aff_val va, vb, vc;
    const ptx_opnd *o = ins->opnds;
    if (zn_is_kernel_param_load(l, ins)) {
        /* its register read at the access holds the parameter only when
         * this is its one definition */
        if (l->reg_def[o[0].reg] != (int32_t)at)
            return false;
        out->s = out->sy = 0;
        out->syv = NULL;
        out->v0 = lane0(w, o[0].reg);
        return true;
    }
    if (ins->flags & (PTX_F(cc) | PTX_F(sat)))
        return false;
    switch (ins->op) {
    case PTX_OP_mov:
        if (ins->nopnds != 2 || !is_int_type(ins->type[0], &tb) || tb != dbits)
            return false;
        return opnd_aff(w, &o[1], dbits, at, tinv, depth, out);
    case PTX_OP_cvta: {
        /* generic <-> global/const/param: the same address; shared: plus or
         * minus block->shared, the same in every lane. Never local (per-lane
         * depots). The source is read as u64 (zero-extended). */
        if (ins->space == PTX_SPACE_LOCAL || !is_int_type(ins->type[0], &tb) ||
            tb != dbits || o[1].kind != PTX_OPND_REG || o[1].ival)
            return false;
        unsigned sbits = reg_bits(l, o[1].reg);
        if ((sbits != 32 && sbits != 64) || !opnd_aff(w, &o[1], sbits, at, tinv, depth, &va))
            return false;
        if (sbits < 64 && !widen_src(w, &va, false))
            return false;
        LLVMValueRef v = va.v0;
        if (ins->space == PTX_SPACE_SHARED) {
            LLVMValueRef sb = first(w, zn_shared_base(l));
            v = (ins->flags & PTX_F(to)) ? LLVMBuildSub(b, v, sb, "") : LLVMBuildAdd(b, v, sb, "");
        }
        *out = va;
        norm_val(out, dbits);
        out->v0 = resize(l, v, dbits, false);
        if (va.syv)
            out->syv = resize(l, va.syv, dbits, false);
        return true;
    }
    case PTX_OP_add: case PTX_OP_sub: {
        if (!is_int_type(ins->type[0], &tb) || tb != dbits ||
            !opnd_aff(w, &o[1], tb, at, tinv, depth, &va) ||
            !opnd_aff(w, &o[2], tb, at, tinv, depth, &vb))
            return false;
        bool add = ins->op == PTX_OP_add;
        out->s = add ? va.s + vb.s : va.s - vb.s;
        out->sy = add ? va.sy + vb.sy : va.sy - vb.sy;
        sy_combine(w, &va, &vb, add, tb, out);
        norm_val(out, dbits);
        out->v0 = add ? LLVMBuildAdd(b, va.v0, vb.v0, "") : LLVMBuildSub(b, va.v0, vb.v0, "");
        return true;
    }
    case PTX_OP_shl:
        if (!is_int_type(ins->type[0], &tb) || tb != dbits || o[2].kind != PTX_OPND_IMM ||
            o[2].ival < 0 || o[2].ival >= (int64_t)tb ||
            !opnd_aff(w, &o[1], tb, at, tinv, depth, &va))
            return false;
        out->s = (int64_t)((uint64_t)va.s << o[2].ival);
        out->sy = (int64_t)((uint64_t)va.sy << o[2].ival);
        out->syv = va.syv ? LLVMBuildShl(b, va.syv, cint(w, tb, (uint64_t)o[2].ival), "aff.sy")
                          : NULL;
        norm_val(out, dbits);
        out->v0 = LLVMBuildShl(b, va.v0, cint(w, tb, (uint64_t)o[2].ival), "");
        return true;
    case PTX_OP_mul: case PTX_OP_mad: {
        bool wide = ins->flags & PTX_F(wide);
        if (!is_int_type(ins->type[0], &tb) || (ins->flags & PTX_F(hi_half)) ||
            (wide ? (tb != 32 || dbits != 64) : tb != dbits))
            return false;
        int rt;
        if (!opnd_aff(w, &o[1], tb, at, tinv, depth, &va) ||
            !opnd_aff(w, &o[2], tb, at, tinv, depth, &vb) ||
            !mul_stride(w, &o[1], &va, &o[2], &vb, out, &rt))
            return false;
        /* the factor with the tid.y stride, before a widening drops it */
        aff_val yf = rt == 1 ? va : vb;
        if (wide) {
            bool sign = ptx_type_is_signed(ins->type[0]);
            if (!widen_src(w, &va, sign) || !widen_src(w, &vb, sign))
                return false;
        }
        out->v0 = LLVMBuildMul(b, va.v0, vb.v0, "");
        if (rt && w->ok2) {
            out->syv = LLVMBuildMul(b, sy_val(w, &yf, dbits), rt == 1 ? vb.v0 : va.v0,
                                    "aff.sy");
        } else if (rt && !w->ok1) {
            return false;   /* a widening dropped rows, and lin failed before */
        }
        if (ins->op == PTX_OP_mad) {
            if (!opnd_aff(w, &o[3], dbits, at, tinv, depth, &vc))
                return false;
            aff_val prod = *out;
            out->s += vc.s;
            out->sy += vc.sy;
            sy_combine(w, &prod, &vc, true, dbits, out);
            out->v0 = LLVMBuildAdd(b, out->v0, vc.v0, "");
        }
        norm_val(out, dbits);
        return true;
    }
    case PTX_OP_and: case PTX_OP_shr:
        if (!is_int_type(ins->type[0], &tb) || tb != dbits || o[2].kind != PTX_OPND_IMM)
            return false;
        if (ins->op == PTX_OP_and && shr_and_aff(w, ins, tb, tinv, depth, out)) {
            norm_val(out, dbits);
            return true;
        }
        if (!opnd_aff(w, &o[1], tb, at, tinv, depth, &va) || !bits_aff(w, ins, &va, tb, out))
            return false;
        norm_val(out, dbits);
        return true;
    case PTX_OP_or:
        if (!is_int_type(ins->type[0], &tb) || tb != dbits ||
            !opnd_aff(w, &o[1], tb, at, tinv, depth, &va) ||
            !opnd_aff(w, &o[2], tb, at, tinv, depth, &vb) || !or_aff(w, &va, &vb, tb, out))
            return false;
        norm_val(out, dbits);
        return true;
    case PTX_OP_cvt: {
        unsigned sbits;
        if (ins->ntypes < 2 || !is_int_type(ins->type[0], &tb) || tb != dbits ||
            !is_int_type(ins->type[1], &sbits) || o[1].kind != PTX_OPND_REG ||
            !opnd_aff(w, &o[1], sbits, at, tinv, depth, &va))
            return false;
        bool sign = ptx_type_is_signed(ins->type[1]);
        if (sbits < tb && !widen_src(w, &va, sign))
            return false;
        *out = va;
        norm_val(out, dbits);
        out->v0 = resize(l, va.v0, dbits, sign);
        if (va.syv)
            out->syv = resize(l, va.syv, dbits, sign);
        return true;
    }
    default:
        return false;
    }
}

/* ---- which definition a read sees ------------------------------------------ */

/* Facts about the function built on first use: aff_join[i] (i <= nins):
 * some label points at instruction i (a join: lanes may arrive from
 * elsewhere); aff_join[nins + 1]: it reads %tid.y or %tid.z. */
static const bool *fn_facts(zn_lfn *l)
{
    const ptx_func *f = l->f;
    if (l->aff_join)
        return l->aff_join;
    l->aff_join = calloc(f->nins + 2, 1);
    if (!l->aff_join)
        return NULL;
    for (uint32_t k = 0; k < f->nlabels; k++)
        if (f->labels[k].ins <= f->nins)
            l->aff_join[f->labels[k].ins] = true;
    for (uint32_t i = 0; i < f->nins; i++)
        for (uint32_t o = 0; o < f->ins[i].nopnds; o++) {
            const ptx_opnd *op = &f->ins[i].opnds[o];
            if (op->kind == PTX_OPND_SREG &&
                (op->sreg == PTX_SREG_TID_Y || op->sreg == PTX_SREG_TID_Z))
                l->aff_join[f->nins + 1] = true;
        }
    return l->aff_join;
}

static bool is_join(zn_lfn *l, uint32_t i)
{
    const bool *j = fn_facts(l);
    return !j || j[i];
}

/* the function reads %tid.y/z: it expects 2D blocks, where rows pay */
bool zn_func_uses_2d(zn_lfn *l)
{
    const bool *j = fn_facts(l);
    return j && j[l->f->nins + 1];
}

typedef struct def_probe {
    int32_t r;
    bool hit;
} def_probe;

static void probe_def(int32_t r, void *ud)
{
    def_probe *p = ud;
    if (r == p->r)
        p->hit = true;
}

static bool writes_reg(const ptx_ins *ins, int32_t r)
{
    def_probe p = {r, false};
    if (ins->nopnds)
        zn_each_def(&ins->opnds[0], probe_def, &p);
    return p.hit;
}

/* The last write of r before instruction `at` in straight-line code (no
 * label on the way, only fall-throughs of bra): its index, or -1. Every
 * lane reading r at `at` ran that write in the same pass. */
static int32_t straight_def(zn_lfn *l, int32_t r, uint32_t at)
{
    const ptx_func *f = l->f;
    for (uint32_t i = at, n = 0; i > 0 && n < ZN_AFF_WALK; n++) {
        if (is_join(l, i))
            return -1;
        const ptx_ins *p = &f->ins[--i];
        if ((ptx_op_table[p->op].flags & PTX_OF_BRANCH) && p->op != PTX_OP_bra)
            return -1;
        if (writes_reg(p, r))
            return (int32_t)i;
    }
    return -1;
}

/* r keeps its value from `at` to the access: no write and no join between
 * them in straight-line code */
static bool same_at_use(zn_lfn *l, int32_t r, uint32_t at, uint32_t use)
{
    if (at > use || use - at > ZN_AFF_WALK)
        return false;
    for (uint32_t i = at; i < use; i++) {
        const ptx_ins *p = &l->f->ins[i];
        if (writes_reg(p, r) || is_join(l, i + 1) ||
            ((ptx_op_table[p->op].flags & PTX_OF_BRANCH) && p->op != PTX_OP_bra))
            return false;
    }
    return true;
}

/* ins writes register r as a whole, unguarded: a definition the walk can
 * evaluate in place of a read of r */
static bool plain_def(const ptx_ins *ins, int32_t r)
{
    return ins->guard_reg < 0 && ins->nopnds >= 2 && ins->opnds[0].kind == PTX_OPND_REG &&
           ins->opnds[0].reg == r && ins->opnds[0].reg2 < 0;
}

/* o reads register r, plainly */
static bool reads_reg(const ptx_opnd *o, int32_t r)
{
    return o->kind == PTX_OPND_REG && o->reg == r && !o->neg && o->reg2 < 0;
}

/* the instruction index a label operand names; UINT32_MAX: not a label */
static uint32_t label_ins(const ptx_func *f, const ptx_opnd *o)
{
    if (o->kind != PTX_OPND_LABEL || o->label < 0 || (uint32_t)o->label >= f->nlabels)
        return UINT32_MAX;
    return f->labels[o->label].ins;
}

/* ---- induction registers ------------------------------------------------- */

/* r has one definition, built by integer ops from launch constants only
 * (immediates, kernel parameters, %ntid, %nctaid, %ctaid): the same value
 * in every lane that wrote it and every time. A grid-stride loop's step
 * `blockDim.x * gridDim.x` is computed after the `if (i < n)` that guards
 * the loop, where the uniform analysis does not keep it as a scalar (lanes
 * that skip the guard keep older values), yet every lane in the loop wrote
 * it there. */
static bool launch_const(zn_lfn *l, int32_t r, int depth)
{
    if (r < 0 || (uint32_t)r >= l->f->nregs)
        return false;
    if (l->reg_uni && l->reg_uni[r] && l->reg_inv && l->reg_inv[r])
        return true;
    int32_t d = l->reg_def ? l->reg_def[r] : -1;
    if (d < 0 || depth > 8)
        return false;
    const ptx_ins *ins = &l->f->ins[d];
    unsigned tb;
    if (!plain_def(ins, r) || !is_int_type(ins->type[0], &tb) ||
        (ins->flags & (PTX_F(cc) | PTX_F(sat))))
        return false;
    if (zn_is_kernel_param_load(l, ins))
        return true;
    switch (ins->op) {
    case PTX_OP_mov: case PTX_OP_cvt: case PTX_OP_add: case PTX_OP_sub: case PTX_OP_mul:
    case PTX_OP_mad: case PTX_OP_shl: case PTX_OP_shr: case PTX_OP_and: case PTX_OP_or:
        break;
    default:
        return false;
    }
    for (unsigned i = 1; i < ins->nopnds; i++) {
        const ptx_opnd *o = &ins->opnds[i];
        switch (o->kind) {
        case PTX_OPND_IMM:
            continue;
        case PTX_OPND_REG:
            if (o->reg2 >= 0 || !launch_const(l, o->reg, depth + 1))
                return false;
            continue;
        case PTX_OPND_SREG:
            switch (o->sreg) {
            case PTX_SREG_NTID_X: case PTX_SREG_NTID_Y: case PTX_SREG_NTID_Z:
            case PTX_SREG_NCTAID_X: case PTX_SREG_NCTAID_Y: case PTX_SREG_NCTAID_Z:
            case PTX_SREG_CTAID_X: case PTX_SREG_CTAID_Y: case PTX_SREG_CTAID_Z:
                continue;
            default:
                return false;
            }
        default:
            return false;
        }
    }
    return true;
}

/* r's loop, if r is an induction register: written once before a loop
 * (A) and by `add r, r, u` inside it (B, u an immediate or a register the
 * same in every lane and in time), the loop being [head, latch] where the
 * latch is the first branch after B, a `bra` back to head, and every other
 * branch inside is `ret`/`exit` or goes forward, and nothing outside
 * branches into it. Under the lowest-waiting-block-first order
 * (zn_lower_func.c) the lanes in such a loop then leave its latch together,
 * so every lane active at a read has run B as often as the others: r is
 * A's affine value plus the same multiple of u in every active lane.
 * Facts per register, computed once: [4r] state (0 unknown, 1 no, 2 yes),
 * then A, head, latch. */
static const int32_t *loop_facts(zn_lfn *l, int32_t r)
{
    const ptx_func *f = l->f;
    if (!l->aff_loop) {
        l->aff_loop = calloc((size_t)f->nregs * 4 + 4, sizeof *l->aff_loop);
        if (!l->aff_loop)
            return NULL;
    }
    int32_t *e = &l->aff_loop[4 * (size_t)r];
    if (e[0])
        return e[0] == 2 ? e : NULL;
    e[0] = 1;
    int32_t d[2], n = 0;
    for (uint32_t i = 0; i < f->nins && n <= 2; i++)
        if (writes_reg(&f->ins[i], r)) {
            if (n < 2)
                d[n] = (int32_t)i;
            n++;
        }
    if (n != 2)
        return NULL;
    const ptx_ins *a = &f->ins[d[0]], *b = &f->ins[d[1]];
    unsigned tb;
    if (!plain_def(a, r) || !plain_def(b, r) || b->op != PTX_OP_add || b->nopnds != 3 ||
        (b->flags & (PTX_F(cc) | PTX_F(sat))) || !is_int_type(b->type[0], &tb) ||
        tb != reg_bits(l, r))
        return NULL;
    /* r + u or u + r */
    const ptx_opnd *u = reads_reg(&b->opnds[1], r) ? &b->opnds[2]
                        : reads_reg(&b->opnds[2], r) ? &b->opnds[1] : NULL;
    bool u_ok = u && (u->kind == PTX_OPND_IMM ||
                      (u->kind == PTX_OPND_REG && !u->neg && u->reg2 < 0 && u->reg != r &&
                       launch_const(l, u->reg, 0)));
    if (!u_ok)
        return NULL;
    /* the latch: the first branch after B */
    uint32_t latch = (uint32_t)d[1] + 1;
    while (latch < f->nins && !(ptx_op_table[f->ins[latch].op].flags & PTX_OF_BRANCH))
        latch++;
    if (latch >= f->nins || f->ins[latch].op != PTX_OP_bra)
        return NULL;
    uint32_t head = label_ins(f, &f->ins[latch].opnds[0]);
    if (head == UINT32_MAX || head <= (uint32_t)d[0] || head > (uint32_t)d[1])
        return NULL;
    for (uint32_t i = 0; i < f->nins; i++) {
        const ptx_ins *p = &f->ins[i];
        if (!(ptx_op_table[p->op].flags & PTX_OF_BRANCH) || i == latch)
            continue;
        bool inside = i >= head && i <= latch;
        if (p->op != PTX_OP_bra) {
            if (inside && p->op != PTX_OP_ret && p->op != PTX_OP_exit)
                return NULL;
            continue;
        }
        uint32_t t = label_ins(f, &p->opnds[0]);
        if (t == UINT32_MAX || (inside ? t <= i : (t >= head && t <= latch)))
            return NULL;
    }
    e[0] = 2;
    e[1] = d[0];
    e[2] = (int32_t)head;
    e[3] = (int32_t)latch;
    return e;
}

/* r read at `at` inside its loop (and unchanged until the access): A's
 * strides; lane 0's value taken from the first active lane's, since lane
 * 0 may have left the loop. */
static bool induction(aff_walk *w, int32_t r, uint32_t at, int depth, aff_val *out)
{
    zn_lfn *l = w->l;
    const int32_t *e = loop_facts(l, r);
    if (!e || at < (uint32_t)e[2] || at > (uint32_t)e[3] || !same_at_use(l, r, at, w->use))
        return false;
    unsigned bits = reg_bits(l, r);
    aff_val va;
    if (!ins_aff(w, (uint32_t)e[1], true, bits, depth + 1, &va))
        return false;
    out->s = va.s;
    out->sy = va.sy;
    out->syv = va.syv;
    if (w->vec) {
        out->v0 = lane0(w, r);
        return true;
    }
    /* v0 = r[j] - (dx_j * s + dy_j * sy), j the first active lane */
    LLVMBuilderRef b = l->b;
    LLVMTypeRef i32 = l->m->t_i32, it = LLVMIntTypeInContext(l->m->ctx, bits);
    LLVMValueRef j = ll_first_lane(l, l->emask);
    LLVMValueRef rv = zn_load_reg(l, r);
    if (LLVMGetElementType(LLVMTypeOf(rv)) != it)
        rv = LLVMBuildBitCast(b, rv, ll_vec(it), "");
    LLVMValueRef v = ll_extract_dyn(l, rv, j);
    const ptx_sreg sr[2] = {PTX_SREG_TID_X, PTX_SREG_TID_Y};
    const int64_t st[2] = {va.s, va.sy};
    for (int k = 0; k < 2; k++) {
        if (!st[k] && !(k == 1 && va.syv))
            continue;
        LLVMValueRef t = zn_sreg(l, sr[k]);
        LLVMValueRef dt = LLVMBuildSub(b, ll_extract_dyn(l, t, j),
                                       LLVMBuildExtractElement(b, t, LLVMConstInt(i32, 0, 0), ""),
                                       "");
        LLVMValueRef stride = k == 1 ? sy_val(w, &va, bits) : LLVMConstInt(it, (uint64_t)st[k], 0);
        LLVMValueRef off = LLVMBuildMul(b, resize(l, dt, bits, true), stride, "");
        v = LLVMBuildSub(b, v, off, "");
    }
    out->v0 = v;
    return true;
}

/* r read at `at` is the scalar the uniform analysis keeps */
static bool scalar_reg(aff_walk *w, int32_t r, uint32_t at, bool tinv)
{
    zn_lfn *l = w->l;
    bool inv = l->reg_inv && l->reg_inv[r];
    return l->reg_uni && l->reg_uni[r] && (inv || (!tinv && same_at_use(l, r, at, w->use)));
}

/* The definition of r that the walk follows from `at`: r's one pure
 * definition when it is invariant, the write straight before, else r's
 * only write, reached from elsewhere (then *tinv: the value may be an
 * earlier iteration's); -1 when r has several and none is straight
 * before (an induction variable, perhaps). */
static int32_t reaching_def(zn_lfn *l, int32_t r, uint32_t at, bool *tinv)
{
    int32_t d;
    if (l->reg_inv && l->reg_inv[r] && l->reg_def[r] >= 0)
        return l->reg_def[r];
    if ((d = straight_def(l, r, at)) >= 0)
        return d;
    d = l->reg_def[r];
    if (d >= 0)
        *tinv = true;
    return d;
}

/* `and` of `shr x, k` with a mask m whose zero low bits reach bit k's
 * neighbours: (x >> k) & m keeps only bits of x at k + j and up, where
 * ~(2^j - 1) is m with the top k bits (zero after the shift) set. nvcc
 * writes `warp_sums[tid >> 5]` of floats as (tid >> 3) & 0x1ffffffc, which
 * is then the same in every lane under low_bits_fit at k + j (lin only).
 * false: not that pattern, or it cannot hold. */
static bool shr_and_aff(aff_walk *w, const ptx_ins *ins, unsigned tb, bool tinv, int depth,
                        aff_val *out)
{
    zn_lfn *l = w->l;
    const ptx_opnd *o = ins->opnds;
    uint64_t all = tb == 64 ? ~(uint64_t)0 : ((uint64_t)1 << tb) - 1;
    int32_t r = o[1].reg;
    uint32_t at = (uint32_t)(ins - l->f->ins);
    if (o[1].kind != PTX_OPND_REG || o[1].neg || o[1].reg2 >= 0 || r < 0 ||
        (uint32_t)r >= l->f->nregs || reg_bits(l, r) != tb || scalar_reg(w, r, at, tinv) ||
        depth >= ZN_AFF_DEPTH || !l->reg_def)
        return false;
    int32_t d = reaching_def(l, r, at, &tinv);
    if (d < 0)
        return false;
    const ptx_ins *sh = &l->f->ins[d];
    unsigned sb;
    if (sh->op != PTX_OP_shr || !plain_def(sh, r) || (sh->flags & PTX_F(cc)) ||
        !is_int_type(sh->type[0], &sb) || sb != tb || ptx_type_is_signed(sh->type[0]) ||
        sh->opnds[2].kind != PTX_OPND_IMM || sh->opnds[2].ival <= 0 ||
        sh->opnds[2].ival >= (int64_t)tb)
        return false;
    unsigned k = (unsigned)sh->opnds[2].ival;
    uint64_t m = (uint64_t)o[2].ival & all, top = all & ~(all >> k);
    uint64_t low = ~(m | top) & all;     /* must be 2^j - 1, j >= 1 */
    if (!low || (low & (low + 1)))
        return false;
    unsigned j = (unsigned)__builtin_popcountll(low);
    aff_val x;
    if (!opnd_aff(w, &sh->opnds[1], tb, (uint32_t)d, tinv, depth + 1, &x) || x.sy || x.syv)
        return false;
    LLVMBuilderRef b = l->b;
    *out = (aff_val){0};
    out->v0 = LLVMBuildAnd(b, LLVMBuildLShr(b, x.v0, cint(w, tb, k), ""), cint(w, tb, m), "");
    return uniform_val(&x) || low_bits_fit(w, &x, k + j, tb);
}

/* The value register r has when the instruction at `at` reads it. tinv: the
 * value must also be the same every time (it is then reused at a later
 * read), so only time-invariant inputs qualify. */
static bool reg_aff(aff_walk *w, int32_t r, uint32_t at, bool tinv, int depth, aff_val *out)
{
    zn_lfn *l = w->l;
    if (r < 0 || (uint32_t)r >= l->f->nregs)
        return false;
    if (scalar_reg(w, r, at, tinv)) {
        out->s = out->sy = 0; /* scalar storage: a splat */
        out->syv = NULL;
        out->v0 = lane0(w, r);
        return true;
    }
    if (depth >= ZN_AFF_DEPTH || !l->reg_def)
        return false;
    int32_t d = reaching_def(l, r, at, &tinv);
    if (d < 0)
        return !tinv && induction(w, r, at, depth, out);
    const ptx_ins *ins = &l->f->ins[d];
    if (!plain_def(ins, r))
        return false;
    return ins_aff(w, (uint32_t)d, tinv, reg_bits(l, r), depth + 1, out);
}

/* ---- the access ---------------------------------------------------------------- */

static LLVMValueRef sreg0(zn_lfn *l, ptx_sreg s)
{
    return LLVMBuildExtractElement(l->b, zn_sreg(l, s), LLVMConstInt(l->m->t_i32, 0, 0), "");
}

/* The [reg+imm] address of the ld/st being lowered, if the walk may
 * follow it; NULL otherwise. */
static const ptx_opnd *access_addr(zn_lfn *l)
{
    const ptx_ins *ins = l->ins;
    if (!ins || getenv("ZINC_NO_AFFINE") || zn_ins_shared_cluster(ins))
        return NULL;    /* .shared::cluster: per-lane rank windows */
    const ptx_opnd *a;
    if (ins->op == PTX_OP_ld || ins->op == PTX_OP_ldu)
        a = &ins->opnds[1];
    else if (ins->op == PTX_OP_st)
        a = &ins->opnds[0];
    else
        return NULL;
    if (a->kind != PTX_OPND_ADDR || a->reg < 0 || a->var || a->sym || a->func)
        return NULL;
    return a;
}

LLVMValueRef zn_affine_lanes(zn_lfn *l)
{
    const ptx_opnd *a = access_addr(l);
    if (!a)
        return NULL;
    const ptx_ins *ins = l->ins;
    aff_walk w = {.l = l, .use = (uint32_t)(ins - l->f->ins), .ok1 = true, .ok2 = true,
                  .vec = true};
    aff_val v;
    unsigned bits = reg_bits(l, a->reg);
    if ((bits != 32 && bits != 64) || !reg_aff(&w, a->reg, w.use, false, 0, &v))
        return NULL;
    LLVMValueRef x = resize(l, v.v0, 64, false);  /* the register read as u64 */
    if (a->ival)
        x = LLVMBuildAdd(l->b, x, ll_const_vec(l->m->t_i64, (uint64_t)a->ival), "");
    if (ins->space == PTX_SPACE_SHARED)
        x = LLVMBuildAdd(l->b, zn_shared_base(l), x, "");
    return x;
}

bool zn_affine_addr(zn_lfn *l, zn_aff_addr *out)
{
    const ptx_opnd *a = access_addr(l);
    if (!a)
        return false;
    const ptx_ins *ins = l->ins;
    /* rows only where 2D blocks are expected: each layout is a path of
     * code at every access */
    aff_walk w = {.l = l, .use = (uint32_t)(ins - l->f->ins), .ok1 = true, .ok2 = zn_func_uses_2d(l)};
    aff_val v;
    unsigned bits = reg_bits(l, a->reg);
    if ((bits != 32 && bits != 64) || !reg_aff(&w, a->reg, w.use, false, 0, &v))
        return false;
    /* the address is the register read as u64, plus the offset, plus
     * block->shared for the shared space (zn_lower_mem.c) */
    if (bits == 32 && !widen_src(&w, &v, false))
        return false;
    LLVMValueRef a0 = v.v0;
    if (a->ival)
        a0 = LLVMBuildAdd(l->b, a0, LLVMConstInt(l->m->t_i64, (uint64_t)a->ival, 0), "");
    if (ins->space == PTX_SPACE_SHARED)
        a0 = LLVMBuildAdd(l->b, a0, LLVMBuildExtractElement(l->b, zn_shared_base(l),
                          LLVMConstInt(l->m->t_i32, 0, 0), ""), "");
    LLVMTypeRef i1 = l->m->t_i1;
    *out = (zn_aff_addr){.s = v.s, .sy = v.sy, .syv = v.syv, .base = a0};
    if (!w.need_lin) { /* no %tid: the lanes are a0 + l * s whatever the block */
        out->lin = w.cond1 ? w.cond1 : LLVMConstInt(i1, 1, 0);
        return w.ok1;
    }
    LLVMValueRef nx = sreg0(l, PTX_SREG_NTID_X);
    LLVMTypeRef t = LLVMTypeOf(nx);
    out->ntid_x = nx;
    if (w.ok1) {
        LLVMValueRef low = LLVMBuildAnd(l->b, nx, LLVMConstInt(t, 31, 0), "");
        add_cond(l, &w.cond1, LLVMBuildICmp(l->b, LLVMIntEQ, low, LLVMConstNull(t), "aff.lin"));
        out->lin = w.cond1;
    }
    if (w.ok2) {
        /* X a power of two below 32; the warp stays in one z plane */
        LLVMValueRef pow2 = LLVMBuildICmp(l->b, LLVMIntEQ,
            LLVMBuildAnd(l->b, nx, LLVMBuildSub(l->b, nx, LLVMConstInt(t, 1, 0), ""), ""),
            LLVMConstNull(t), "");
        LLVMValueRef small = LLVMBuildICmp(l->b, LLVMIntULT, nx, LLVMConstInt(t, 32, 0), "");
        LLVMValueRef ny = sreg0(l, PTX_SREG_NTID_Y), nz = sreg0(l, PTX_SREG_NTID_Z);
        LLVMValueRef plane = LLVMBuildOr(l->b,
            LLVMBuildICmp(l->b, LLVMIntEQ, nz, LLVMConstInt(t, 1, 0), ""),
            LLVMBuildICmp(l->b, LLVMIntEQ,
                          LLVMBuildAnd(l->b, LLVMBuildMul(l->b, nx, ny, ""),
                                       LLVMConstInt(t, 31, 0), ""),
                          LLVMConstNull(t), ""), "");
        add_cond(l, &w.cond2, LLVMBuildAnd(l->b, LLVMBuildAnd(l->b, pow2, small, ""), plane,
                                           "aff.2d"));
        out->rows = w.cond2;
    }
    return out->lin || out->rows;
}

bool zn_affine_reg_lin(zn_lfn *l, int32_t r, uint32_t at, LLVMValueRef *v0, int64_t *s,
                       LLVMValueRef *cond)
{
    if (getenv("ZINC_NO_AFFINE"))
        return false;
    aff_walk w = {.l = l, .use = at, .ok1 = true};
    aff_val v;
    unsigned bits = reg_bits(l, r);
    if ((bits != 32 && bits != 64) || !reg_aff(&w, r, at, false, 0, &v) || !w.ok1 ||
        LLVMGetTypeKind(LLVMTypeOf(v.v0)) != LLVMIntegerTypeKind ||
        ll_bits(LLVMTypeOf(v.v0)) != bits)
        return false;
    if (w.need_lin) {   /* %tid.x runs t0 .. t0 + 31 across the warp */
        LLVMValueRef nx = sreg0(l, PTX_SREG_NTID_X);
        LLVMTypeRef t = LLVMTypeOf(nx);
        LLVMValueRef low = LLVMBuildAnd(l->b, nx, LLVMConstInt(t, 31, 0), "");
        add_cond(l, &w.cond1, LLVMBuildICmp(l->b, LLVMIntEQ, low, LLVMConstNull(t), "aff.lin"));
    }
    *v0 = v.v0;
    *s = v.s;
    *cond = w.cond1;
    return true;
}
