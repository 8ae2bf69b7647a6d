/* zn_ll.c: small helpers that make building warp-SIMD IR concise. */
#include "zn_lower.h"
#include "zn_pipeline.h"

#include <string.h>
#include "util/zn_log.h"

LLVMTypeRef ll_vec(LLVMTypeRef t)
{
    return LLVMVectorType(t, ZN_LANES);
}

LLVMValueRef ll_splat(zn_lfn *l, LLVMValueRef s)
{
    LLVMTypeRef vt = ll_vec(LLVMTypeOf(s));
    LLVMValueRef v = LLVMBuildInsertElement(l->b, LLVMGetPoison(vt), s,
                                            LLVMConstInt(l->m->t_i32, 0, 0), "");
    LLVMValueRef zero = LLVMConstNull(ll_vec(l->m->t_i32));
    return LLVMBuildShuffleVector(l->b, v, LLVMGetPoison(vt), zero, "");
}

LLVMValueRef ll_const_vec(LLVMTypeRef t, uint64_t v)
{
    LLVMValueRef e[ZN_LANES];
    LLVMValueRef c = LLVMConstInt(t, v, 0);
    for (int i = 0; i < ZN_LANES; i++)
        e[i] = c;
    return LLVMConstVector(e, ZN_LANES);
}

LLVMValueRef ll_const_fvec(LLVMTypeRef t, double v)
{
    LLVMValueRef e[ZN_LANES];
    LLVMValueRef c = LLVMConstReal(t, v);
    for (int i = 0; i < ZN_LANES; i++)
        e[i] = c;
    return LLVMConstVector(e, ZN_LANES);
}

LLVMValueRef ll_all_ones(zn_lfn *l)
{
    return ll_const_vec(l->m->t_i1, 1);
}

LLVMValueRef ll_mask_to_i32(zn_lfn *l, LLVMValueRef m)
{
    return LLVMBuildBitCast(l->b, m, l->m->t_i32, "");
}

LLVMValueRef ll_i32_to_mask(zn_lfn *l, LLVMValueRef i)
{
    return LLVMBuildBitCast(l->b, i, ll_vec(l->m->t_i1), "");
}

LLVMValueRef ll_first_lane(zn_lfn *l, LLVMValueRef m)
{
    LLVMTypeRef i32 = l->m->t_i32;
    LLVMValueRef args[2] = {ll_mask_to_i32(l, m), LLVMConstInt(l->m->t_i1, 0, 0)};
    return LLVMBuildAnd(l->b, ll_intrin(l, "llvm.cttz", &i32, 1, args, 2),
                        LLVMConstInt(i32, ZN_LANES - 1, 0), "first.lane");
}

LLVMValueRef ll_any(zn_lfn *l, LLVMValueRef m)
{
    return LLVMBuildICmp(l->b, LLVMIntNE, ll_mask_to_i32(l, m),
                         LLVMConstInt(l->m->t_i32, 0, 0), "");
}

/* Allocas go to the entry block so that mem2reg can promote them. */
LLVMValueRef ll_entry_alloca(zn_lfn *l, LLVMTypeRef t, const char *name)
{
    LLVMBuilderRef b = LLVMCreateBuilderInContext(l->m->ctx);
    LLVMBasicBlockRef entry = LLVMGetEntryBasicBlock(l->fn);
    LLVMValueRef first = LLVMGetFirstInstruction(entry);
    if (first)
        LLVMPositionBuilderBefore(b, first);
    else
        LLVMPositionBuilderAtEnd(b, entry);
    LLVMValueRef a = LLVMBuildAlloca(b, t, name);
    LLVMDisposeBuilder(b);
    return a;
}

LLVMValueRef ll_load_slot(zn_lfn *l, LLVMTypeRef t, LLVMValueRef slot)
{
    LLVMValueRef v = LLVMBuildLoad2(l->b, t, slot, "");
    LLVMSetAlignment(v, 16);
    return v;
}

LLVMValueRef ll_unpack(zn_lfn *l, LLVMValueRef w, unsigned bits, unsigned j, bool sign)
{
    LLVMTypeRef i32 = l->m->t_i32;
    if (sign) {
        w = LLVMBuildShl(l->b, w, ll_const_vec(i32, 32 - bits - bits * j), "");
        return LLVMBuildAShr(l->b, w, ll_const_vec(i32, 32 - bits), "");
    }
    if (j)
        w = LLVMBuildLShr(l->b, w, ll_const_vec(i32, bits * j), "");
    return LLVMBuildAnd(l->b, w, ll_const_vec(i32, (1u << bits) - 1), "");
}

void ll_store_slot(zn_lfn *l, LLVMValueRef v, LLVMValueRef slot)
{
    LLVMSetAlignment(LLVMBuildStore(l->b, v, slot), 16);
}

LLVMValueRef ll_entry_alloca_bytes(zn_lfn *l, uint64_t bytes, uint32_t align,
                                   const char *name)
{
    LLVMValueRef a = ll_entry_alloca(l, LLVMArrayType2(l->m->t_i8, bytes ? bytes : 1),
                                     name);
    LLVMSetAlignment(a, align < 16 ? 16 : align);
    return a;
}

LLVMValueRef ll_intrin(zn_lfn *l, const char *name, LLVMTypeRef *over,
                       unsigned nover, LLVMValueRef *args, unsigned nargs)
{
    unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
    if (!id)
        zn_die("unknown intrinsic %s", name);
    LLVMValueRef fn = LLVMGetIntrinsicDeclaration(l->m->mod, id, over, nover);
    LLVMTypeRef ft = LLVMIntrinsicGetType(l->m->ctx, id, over, nover);
    return LLVMBuildCall2(l->b, ft, fn, args, nargs, "");
}

LLVMValueRef ll_intrin1(zn_lfn *l, const char *name, LLVMValueRef a)
{
    LLVMTypeRef t = LLVMTypeOf(a);
    return ll_intrin(l, name, &t, 1, &a, 1);
}

LLVMValueRef ll_intrin2(zn_lfn *l, const char *name, LLVMValueRef a,
                        LLVMValueRef b)
{
    LLVMTypeRef t = LLVMTypeOf(a);
    LLVMValueRef args[2] = {a, b};
    return ll_intrin(l, name, &t, 1, args, 2);
}

LLVMValueRef ll_intrin3(zn_lfn *l, const char *name, LLVMValueRef a,
                        LLVMValueRef b, LLVMValueRef c)
{
    LLVMTypeRef t = LLVMTypeOf(a);
    LLVMValueRef args[3] = {a, b, c};
    return ll_intrin(l, name, &t, 1, args, 3);
}

LLVMTypeRef ll_elem(LLVMTypeRef t)
{
    return LLVMGetTypeKind(t) == LLVMVectorTypeKind ? LLVMGetElementType(t) : t;
}

unsigned ll_bits(LLVMTypeRef t)
{
    t = ll_elem(t);
    switch (LLVMGetTypeKind(t)) {
    case LLVMIntegerTypeKind: return LLVMGetIntTypeWidth(t);
    case LLVMHalfTypeKind: case LLVMBFloatTypeKind: return 16;
    case LLVMFloatTypeKind: return 32;
    case LLVMDoubleTypeKind: return 64;
    case LLVMPointerTypeKind: return 64;
    default: return 0;
    }
}

bool ll_is_fp(LLVMTypeRef t)
{
    switch (LLVMGetTypeKind(ll_elem(t))) {
    case LLVMHalfTypeKind: case LLVMBFloatTypeKind:
    case LLVMFloatTypeKind: case LLVMDoubleTypeKind:
        return true;
    default:
        return false;
    }
}

static LLVMTypeRef int_vec(zn_lfn *l, unsigned bits)
{
    return ll_vec(LLVMIntTypeInContext(l->m->ctx, bits));
}

LLVMValueRef ll_coerce(zn_lfn *l, LLVMValueRef v, LLVMTypeRef to, bool sign)
{
    LLVMTypeRef from = LLVMTypeOf(v);
    if (from == to)
        return v;
    unsigned fb = ll_bits(from), tb = ll_bits(to);
    if (ll_is_fp(from))
        v = LLVMBuildBitCast(l->b, v, int_vec(l, fb), "");
    if (fb != tb) {
        LLVMTypeRef it = int_vec(l, tb);
        if (fb > tb)
            v = LLVMBuildTrunc(l->b, v, it, "");
        else if (sign)
            v = LLVMBuildSExt(l->b, v, it, "");
        else
            v = LLVMBuildZExt(l->b, v, it, "");
    }
    if (LLVMTypeOf(v) != to)
        v = LLVMBuildBitCast(l->b, v, to, "");
    return v;
}

LLVMValueRef ll_field_ptr(zn_lfn *l, LLVMTypeRef st, LLVMValueRef p,
                          unsigned field)
{
    return LLVMBuildStructGEP2(l->b, st, p, field, "");
}

LLVMValueRef ll_load_field(zn_lfn *l, LLVMTypeRef st, LLVMValueRef p,
                           unsigned field, LLVMTypeRef ty)
{
    return LLVMBuildLoad2(l->b, ty, ll_field_ptr(l, st, p, field), "");
}

LLVMValueRef ll_rt_fn(zn_lfn *l, unsigned field)
{
    zn_lmod *m = l->m;
    LLVMValueRef rt = ll_load_field(l, m->t_warp, l->w, ZN_WARP_FIELD_RT, m->t_ptr);
    return ll_load_field(l, m->t_rt, rt, field, m->t_ptr);
}

/* Run-time lane indices go through memory the code owns. An
 * extractelement or insertelement at a run-time index into a 32-lane
 * vector makes LLVM store the whole vector to a stack temporary of its own
 * and reload it: per lane inside lane loops (CUB's decoupled look-back,
 * 8-byte relaxed loads per lane: 8 zmm moves per lane), and a temporary
 * per site that code generation never shares (CUB's scan kernel: 124 KB
 * of a warp's 141 KB frame, each access's first-lane address touching a
 * new cache line). Instead the function has a few 256-byte buffers: one
 * for extracts in big functions (stored and read back at once), one for
 * lane loops' results and one per operand a lane loop's body reads
 * (stored before the loop, read per lane). Types whose vector is not laid
 * out like an array of its elements (i1) keep the vector instructions. */
static bool lane_array_type(LLVMTypeRef t)
{
    LLVMTypeKind k = LLVMGetTypeKind(t);
    if (k != LLVMIntegerTypeKind && k != LLVMFloatTypeKind && k != LLVMDoubleTypeKind &&
        k != LLVMHalfTypeKind && k != LLVMBFloatTypeKind && k != LLVMPointerTypeKind)
        return false;
    unsigned bits = k == LLVMPointerTypeKind ? 64 : ll_bits(t);
    return bits >= 8 && bits <= 64 && !(bits & (bits - 1));
}

/* the function's buffer in *slot, made on first use */
static LLVMValueRef fn_buffer(zn_lfn *l, LLVMValueRef *slot, const char *name)
{
    if (!*slot)
        *slot = ll_entry_alloca_bytes(l, ZN_LANES * 8, 64, name);
    return *slot;
}

/* &buf[lane] as an array of et */
static LLVMValueRef lane_slot(zn_lfn *l, LLVMValueRef buf, LLVMTypeRef et, LLVMValueRef lane)
{
    return LLVMBuildInBoundsGEP2(l->b, et, buf, &lane, 1, "");
}

/* a shuffle that puts lane 0 of its first operand in every lane */
static bool lane0_shuffle(LLVMValueRef v)
{
    if (!LLVMIsAShuffleVectorInst(v))
        return false;
    unsigned n = LLVMGetNumMaskElements(v);
    for (unsigned i = 0; i < n; i++)
        if (LLVMGetMaskValue(v, i) != 0)
            return false;
    return true;
}

/* a constant or a splat: any lane of it folds to one scalar */
static bool same_lanes(LLVMValueRef v)
{
    return LLVMIsConstant(v) || lane0_shuffle(v);
}

LLVMValueRef ll_splat_scalar(LLVMValueRef v)
{
    if (lane0_shuffle(v)) {
        LLVMValueRef ins = LLVMGetOperand(v, 0);
        if (!LLVMIsAInsertElementInst(ins))
            return NULL;
        LLVMValueRef at = LLVMGetOperand(ins, 2);
        return LLVMIsAConstantInt(at) && LLVMConstIntGetZExtValue(at) == 0
                   ? LLVMGetOperand(ins, 1) : NULL;
    }
    if (!LLVMIsConstant(v) || LLVMGetTypeKind(LLVMTypeOf(v)) != LLVMVectorTypeKind)
        return NULL;
    LLVMValueRef e0 = LLVMGetAggregateElement(v, 0);
    for (unsigned i = 1; e0 && i < LLVMGetVectorSize(LLVMTypeOf(v)); i++)
        if (LLVMGetAggregateElement(v, i) != e0)
            return NULL;
    return e0;
}

/* v goes through a buffer: an array of its elements fits, and its lanes
 * are not all one value (an extract of those folds away) */
static bool buffer_vector(LLVMValueRef v)
{
    LLVMTypeRef t = LLVMTypeOf(v);
    return LLVMGetTypeKind(t) == LLVMVectorTypeKind && LLVMGetVectorSize(t) <= ZN_LANES &&
           lane_array_type(LLVMGetElementType(t)) && !same_lanes(v);
}

/* PTX instructions above which ll_extract_dyn uses the buffer. Below, the
 * extract stays an extractelement: few sites, and InstCombine folds many of
 * them (the first lane of an affine address is its base plus a constant);
 * through the buffer bench/sgemm and transpose ran 3-4% slower. */
#define ZN_EXTRACT_BUF_MIN_INS 400u

/* Lane k of a <32 x i32|float> with AVX-512: its halves permuted by a
 * splat of k in one two-table permute (vpermi2d), lane 0 of the result.
 * LLVM lowers a variable extractelement as a store of both halves to the
 * stack and a reload of one element (a lane-0 store such as reduce_warp's
 * `warp_sums[warp] = v` takes the last active lane's value that way);
 * NULL for other shapes and targets. */
static LLVMValueRef extract_permute(zn_lfn *l, LLVMValueRef v, LLVMValueRef k)
{
    zn_lmod *m = l->m;
    LLVMTypeRef t = LLVMTypeOf(v), et = LLVMGetElementType(t);
    if (LLVMGetVectorSize(t) != ZN_LANES || (et != m->t_i32 && et != m->t_f32) ||
        !zn_target_has(m, "avx512f"))
        return NULL;
    LLVMBuilderRef b = l->b;
    LLVMTypeRef v16 = LLVMVectorType(m->t_i32, 16);
    LLVMValueRef x = et == m->t_i32 ? v : LLVMBuildBitCast(b, v, ll_vec(m->t_i32), "");
    LLVMValueRef half[2];
    for (unsigned h = 0; h < 2; h++) {
        LLVMValueRef idx[16];
        for (unsigned i = 0; i < 16; i++)
            idx[i] = LLVMConstInt(m->t_i32, h * 16 + i, 0);
        half[h] = LLVMBuildShuffleVector(b, x, LLVMGetPoison(LLVMTypeOf(x)),
                                         LLVMConstVector(idx, 16), "");
    }
    LLVMValueRef k32 = LLVMBuildZExtOrBitCast(b, k, m->t_i32, "");
    LLVMValueRef sel = LLVMBuildShuffleVector(
        b, LLVMBuildInsertElement(b, LLVMGetPoison(v16), k32, LLVMConstInt(m->t_i32, 0, 0), ""),
        LLVMGetPoison(v16), LLVMConstNull(v16), "");
    LLVMValueRef args[3] = {half[0], sel, half[1]};
    LLVMValueRef r = ll_intrin(l, "llvm.x86.avx512.vpermi2var.d.512", NULL, 0, args, 3);
    LLVMValueRef e = LLVMBuildExtractElement(b, r, LLVMConstInt(m->t_i32, 0, 0), "");
    return et == m->t_i32 ? e : LLVMBuildBitCast(b, e, et, "");
}

LLVMValueRef ll_extract_dyn(zn_lfn *l, LLVMValueRef v, LLVMValueRef k)
{
    if (LLVMIsConstant(k) || same_lanes(v))
        return LLVMBuildExtractElement(l->b, v, k, "");
    LLVMValueRef p = extract_permute(l, v, k);
    if (p)
        return p;
    if (l->f->nins <= ZN_EXTRACT_BUF_MIN_INS || !buffer_vector(v))
        return LLVMBuildExtractElement(l->b, v, k, "");
    LLVMValueRef buf = fn_buffer(l, &l->buf_extract, "extract.buf");
    LLVMSetAlignment(LLVMBuildStore(l->b, v, buf), 64);
    LLVMTypeRef et = LLVMGetElementType(LLVMTypeOf(v));
    return LLVMBuildLoad2(l->b, et, lane_slot(l, buf, et, k), "");
}

LLVMValueRef ll_lane_elt(zn_lfn *l, LLVMValueRef v, LLVMValueRef lane)
{
    if (!l->lane_pre || !buffer_vector(v) || l->nlane_in == ZN_LANE_LOOP_INS)
        return LLVMBuildExtractElement(l->b, v, lane, "");
    LLVMTypeRef et = LLVMGetElementType(LLVMTypeOf(v));
    LLVMValueRef arr = fn_buffer(l, &l->buf_lane_in[l->nlane_in++], "lane.in");
    LLVMBasicBlockRef cur = LLVMGetInsertBlock(l->b);
    LLVMPositionBuilderBefore(l->b, l->lane_pre);
    LLVMSetAlignment(LLVMBuildStore(l->b, v, arr), 64);
    LLVMPositionBuilderAtEnd(l->b, cur);
    return LLVMBuildLoad2(l->b, et, lane_slot(l, arr, et, lane), "");
}

LLVMValueRef ll_lane_loop(zn_lfn *l, LLVMValueRef mask, LLVMTypeRef res_ty,
                          ll_lane_body body, void *ud)
{
    zn_lmod *m = l->m;
    LLVMValueRef res = NULL;
    /* a loop in another's body (none today) keeps its result in a vector
     * and its operands in the buffers after the outer loop's */
    LLVMValueRef outer = l->lane_pre;
    unsigned outer_in = l->nlane_in;
    bool in_array = res_ty && lane_array_type(res_ty) && !outer;
    if (in_array) {
        res = fn_buffer(l, &l->buf_lane_res, "lane.res");
    } else if (res_ty) {
        res = ll_entry_alloca(l, ll_vec(res_ty), "lane.res");
        LLVMBuildStore(l->b, LLVMGetPoison(ll_vec(res_ty)), res);
    }
    /* over the set bits of the mask, lowest first: a trip count LLVM
     * cannot know, so it does not unroll the 32 lanes (it did once the
     * body had no vector insert to weigh: 3x the code) */
    LLVMValueRef bits = ll_mask_to_i32(l, mask), zero = LLVMConstInt(m->t_i32, 0, 0);
    LLVMBasicBlockRef pre = LLVMGetInsertBlock(l->b);
    LLVMBasicBlockRef head = LLVMAppendBasicBlockInContext(m->ctx, l->fn, "lane.do");
    LLVMBasicBlockRef latch = LLVMAppendBasicBlockInContext(m->ctx, l->fn, "lane.next");
    LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(m->ctx, l->fn, "lane.done");
    LLVMValueRef enter = LLVMBuildCondBr(l->b, LLVMBuildICmp(l->b, LLVMIntEQ, bits, zero, ""),
                                         done, head);

    LLVMPositionBuilderAtEnd(l->b, head);
    LLVMValueRef rem = LLVMBuildPhi(l->b, m->t_i32, "lanes.left");
    LLVMTypeRef ct = m->t_i32;
    LLVMValueRef cargs[2] = {rem, LLVMConstInt(m->t_i1, 1, 0)};
    LLVMValueRef i = ll_intrin(l, "llvm.cttz", &ct, 1, cargs, 2);
    l->lane_pre = enter;
    l->nlane_in = outer ? outer_in : 0;
    LLVMValueRef r = body(l, i, ud);
    l->lane_pre = outer;
    l->nlane_in = outer_in;
    if (in_array && r) {
        LLVMBuildStore(l->b, r, lane_slot(l, res, res_ty, i));
    } else if (res && r) {
        LLVMValueRef cur = LLVMBuildLoad2(l->b, ll_vec(res_ty), res, "");
        LLVMBuildStore(l->b, LLVMBuildInsertElement(l->b, cur, r, i, ""), res);
    }
    LLVMBuildBr(l->b, latch);

    LLVMPositionBuilderAtEnd(l->b, latch);
    LLVMValueRef rest = LLVMBuildAnd(l->b, rem,
                                     LLVMBuildSub(l->b, rem, LLVMConstInt(m->t_i32, 1, 0), ""), "");
    LLVMBuildCondBr(l->b, LLVMBuildICmp(l->b, LLVMIntEQ, rest, zero, ""), done, head);
    LLVMValueRef in_v[2] = {bits, rest};
    LLVMBasicBlockRef in_b[2] = {pre, latch};
    LLVMAddIncoming(rem, in_v, in_b, 2);

    LLVMPositionBuilderAtEnd(l->b, done);
    if (!res)
        return NULL;
    LLVMValueRef v = LLVMBuildLoad2(l->b, ll_vec(res_ty), res, "");
    if (in_array)
        LLVMSetAlignment(v, 64);
    return v;
}

LLVMValueRef ll_lanes(zn_lfn *l, LLVMValueRef v, unsigned first, unsigned n)
{
    LLVMValueRef idx[ZN_LANES];
    for (unsigned j = 0; j < n; j++)
        idx[j] = LLVMConstInt(l->m->t_i32, first + j, 0);
    return LLVMBuildShuffleVector(l->b, v, LLVMGetPoison(LLVMTypeOf(v)),
                                  LLVMConstVector(idx, n), "");
}

LLVMValueRef ll_concat(zn_lfn *l, LLVMValueRef *v, unsigned n)
{
    unsigned len = LLVMGetVectorSize(LLVMTypeOf(v[0]));
    for (unsigned cnt = n; cnt > 1; len *= 2, cnt /= 2)
        for (unsigned i = 0; i < cnt / 2; i++) {
            LLVMValueRef idx[LL_CONCAT_MAX];
            if (2 * len > LL_CONCAT_MAX)
                zn_die("ll_concat: %u elements, at most %u", 2 * len, LL_CONCAT_MAX);
            for (unsigned j = 0; j < 2 * len; j++)
                idx[j] = LLVMConstInt(l->m->t_i32, j, 0);
            v[i] = LLVMBuildShuffleVector(l->b, v[2 * i], v[2 * i + 1],
                                          LLVMConstVector(idx, 2 * len), "");
        }
    return v[0];
}

LLVMValueRef ll_join_halves(zn_lfn *l, LLVMValueRef lo, LLVMValueRef hi)
{
    LLVMValueRef v[2] = {lo, hi};
    return ll_concat(l, v, 2);
}

LLVMValueRef ll_splat_n(zn_lfn *l, LLVMValueRef s, unsigned w)
{
    LLVMTypeRef vt = LLVMVectorType(LLVMTypeOf(s), w);
    LLVMValueRef v = LLVMBuildInsertElement(l->b, LLVMGetPoison(vt), s,
                                            LLVMConstInt(l->m->t_i32, 0, 0), "");
    return LLVMBuildShuffleVector(l->b, v, LLVMGetPoison(vt),
                                  LLVMConstNull(LLVMVectorType(l->m->t_i32, w)), "");
}

bool zn_target_is_zen(const zn_lmod *m)
{
    return m->cpu && !strncmp(m->cpu, "znver", 5);
}

bool zn_target_has(const zn_lmod *m, const char *feat)
{
    return zn_features_have(m->features, feat);
}
