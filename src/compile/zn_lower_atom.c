/* zn_lower_atom.c: atom and red on global/shared/generic addresses. Each
 * active lane does its own LLVM atomicrmw/cmpxchg, in ascending lane order,
 * and gets the old value back. PTX inc/dec match LLVM's uinc_wrap and
 * udec_wrap exactly.
 *
 * Shared memory is private to a block and all warps of a block run on one
 * worker thread (fibers switch only at barriers), so atom/red.shared with
 * an integer op or f32/f64 add is a plain load, op and store per lane: the
 * same result as the atomic in lane order, without a locked instruction
 * (about 20 cycles each on x86: most of a shared-memory histogram's time,
 * issue #9). */
#include "zn_lower.h"

#include <stdlib.h>

#include "util/zn_log.h"

typedef struct atom_job {
    const ptx_ins *ins;
    LLVMValueRef ptrs, b, c;   /* vectors */
    LLVMTypeRef et;            /* scalar type */
    LLVMAtomicRMWBinOp op;
    bool cas;
    bool plain;                /* shared space: load, op, store */
    LLVMValueRef keys, sbase;  /* plain: <32 x i32> offsets from sbase (i8 *) */
} atom_job;

/* Whether op has a plain form below (fp min/max keep the atomic's exact
 * NaN and signed-zero rules). */
static bool has_plain(LLVMAtomicRMWBinOp op)
{
    switch (op) {
    case LLVMAtomicRMWBinOpAdd: case LLVMAtomicRMWBinOpFAdd: case LLVMAtomicRMWBinOpAnd:
    case LLVMAtomicRMWBinOpOr: case LLVMAtomicRMWBinOpXor: case LLVMAtomicRMWBinOpXchg:
    case LLVMAtomicRMWBinOpMin: case LLVMAtomicRMWBinOpMax: case LLVMAtomicRMWBinOpUMin:
    case LLVMAtomicRMWBinOpUMax: case LLVMAtomicRMWBinOpUIncWrap:
    case LLVMAtomicRMWBinOpUDecWrap:
        return true;
    default:
        return false;
    }
}

/* The new value of a plain (non-atomic) read-modify-write, or NULL when
 * op has no plain form (has_plain). */
static LLVMValueRef plain_op(LLVMBuilderRef b, LLVMAtomicRMWBinOp op, LLVMValueRef old,
                             LLVMValueRef v)
{
    LLVMTypeRef t = LLVMTypeOf(old);
    LLVMValueRef zero = LLVMConstNull(t), one = LLVMConstInt(t, 1, 0);
    switch (op) {
    case LLVMAtomicRMWBinOpAdd: return LLVMBuildAdd(b, old, v, "");
    case LLVMAtomicRMWBinOpFAdd: return LLVMBuildFAdd(b, old, v, "");
    case LLVMAtomicRMWBinOpAnd: return LLVMBuildAnd(b, old, v, "");
    case LLVMAtomicRMWBinOpOr: return LLVMBuildOr(b, old, v, "");
    case LLVMAtomicRMWBinOpXor: return LLVMBuildXor(b, old, v, "");
    case LLVMAtomicRMWBinOpXchg: return v;
    case LLVMAtomicRMWBinOpMin:
        return LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntSLE, old, v, ""), old, v, "");
    case LLVMAtomicRMWBinOpMax:
        return LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntSGE, old, v, ""), old, v, "");
    case LLVMAtomicRMWBinOpUMin:
        return LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntULE, old, v, ""), old, v, "");
    case LLVMAtomicRMWBinOpUMax:
        return LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntUGE, old, v, ""), old, v, "");
    case LLVMAtomicRMWBinOpUIncWrap: /* old >= v ? 0 : old + 1 */
        return LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntUGE, old, v, ""), zero,
                               LLVMBuildAdd(b, old, one, ""), "");
    case LLVMAtomicRMWBinOpUDecWrap: /* old == 0 || old > v ? v : old - 1 */
        return LLVMBuildSelect(b, LLVMBuildOr(b, LLVMBuildICmp(b, LLVMIntEQ, old, zero, ""),
                                              LLVMBuildICmp(b, LLVMIntUGT, old, v, ""), ""),
                               v, LLVMBuildSub(b, old, one, ""), "");
    default: return NULL;
    }
}

static LLVMValueRef atom_lane(zn_lfn *l, LLVMValueRef lane, void *ud)
{
    atom_job *j = ud;
    LLVMBuilderRef b = l->b;
    LLVMValueRef p;
    if (j->keys) {
        LLVMValueRef k = LLVMBuildZExt(b, ll_lane_elt(l, j->keys, lane), l->m->t_i64, "");
        p = LLVMBuildInBoundsGEP2(b, l->m->t_i8, j->sbase, &k, 1, "");
    } else
        p = ll_lane_elt(l, j->ptrs, lane);
    LLVMValueRef v = ll_lane_elt(l, j->b, lane);
    LLVMAtomicOrdering ord = LLVMAtomicOrderingSequentiallyConsistent;
    if (j->cas) {
        LLVMValueRef c = ll_lane_elt(l, j->c, lane);
        LLVMValueRef cmp = v, nv = c;
        bool fp = ll_is_fp(j->et);
        LLVMTypeRef it = LLVMIntTypeInContext(l->m->ctx, ll_bits(j->et));
        if (fp) {
            cmp = LLVMBuildBitCast(b, cmp, it, "");
            nv = LLVMBuildBitCast(b, nv, it, "");
        }
        LLVMValueRef x = LLVMBuildAtomicCmpXchg(b, p, cmp, nv, ord, ord, 0);
        LLVMValueRef old = LLVMBuildExtractValue(b, x, 0, "");
        return fp ? LLVMBuildBitCast(b, old, j->et, "") : old;
    }
    if (j->plain) {
        unsigned align = ll_bits(j->et) / 8;
        LLVMValueRef old = LLVMBuildLoad2(b, j->et, p, "");
        LLVMSetAlignment(old, align);
        LLVMValueRef nv = plain_op(b, j->op, old, v);
        if (!nv)
            zn_die("zn_lower_atom: no plain form for atomic op %d", (int)j->op);
        LLVMSetAlignment(LLVMBuildStore(b, nv, p), align);
        return old;
    }
    return LLVMBuildAtomicRMW(b, j->op, p, v, ord, 0);
}

/* atom/red.shared.add of one 32-bit value v in every lane (a histogram's
 * `atomicAdd(&bins[b], 1)`) with AVX-512 CD, a half warp at a time: lanes
 * with the same address are found at once (vpconflictd: per lane, the
 * earlier lanes with its address), so lane i's old value is the gathered
 * value plus v times its earlier equal lanes, and one scatter writes
 * old + v, the last lane of each address writing last (a scatter stores
 * in lane order). The same values and memory as the per-lane loop in lane
 * order, without 16 dependent read-modify-writes (measured on Zen 4: 32
 * unrolled scalar `incl (mem)` per warp made bench/histogram 5x slower
 * than this: loads run ahead of older stores whose addresses come late,
 * and each repeated bin flushes the pipeline). */
static bool uniform_value(const zn_lfn *l, const ptx_opnd *v)
{
    return v->kind == PTX_OPND_IMM ||
           (v->kind == PTX_OPND_REG && v->reg2 < 0 && l->reg_uni && l->reg_uni[v->reg]);
}

/* Shared addresses lie in one window far smaller than 2 GiB: their 32-bit
 * offsets in it tell them apart. As a lane loop's operand they are half
 * the bytes of 64-bit pointers (one vector store before the loop, not
 * four: bench/histogram's per-lane loop), and as a gather's and scatter's
 * indices from the block's shared base one 16-lane vpgatherdd/vpscatterdd
 * per half instead of two 8-lane ones. */
static void shared_keys(zn_lfn *l, atom_job *j)
{
    zn_lmod *m = l->m;
    LLVMBuilderRef b = l->b;
    j->keys = LLVMBuildTrunc(b, LLVMBuildSub(b, LLVMBuildPtrToInt(b, j->ptrs, ll_vec(m->t_i64), ""),
                                             zn_shared_base(l), ""),
                             ll_vec(m->t_i32), "");
    j->sbase = LLVMBuildIntToPtr(b, LLVMBuildExtractElement(b, zn_shared_base(l),
                                 LLVMConstInt(m->t_i32, 0, 0), ""), m->t_ptr, "");
}

static LLVMValueRef conflict_add(zn_lfn *l, const atom_job *j)
{
    zn_lmod *m = l->m;
    LLVMBuilderRef b = l->b;
    LLVMTypeRef v16 = LLVMVectorType(m->t_i32, 16), p16 = LLVMVectorType(m->t_ptr, 16);
    LLVMValueRef keys = j->keys, base = j->sbase;
    LLVMValueRef bits = ll_mask_to_i32(l, l->emask), old[2];
    for (unsigned h = 0; h < 2; h++) {
        LLVMValueRef k = ll_lanes(l, keys, 16 * h, 16);
        LLVMValueRef p = LLVMBuildInBoundsGEP2(b, m->t_i8, base, &k, 1, "");
        LLVMValueRef mk = ll_lanes(l, l->emask, 16 * h, 16), v = ll_lanes(l, j->b, 16 * h, 16);
        LLVMValueRef act = LLVMBuildLShr(b, bits, LLVMConstInt(m->t_i32, 16 * h, 0), "");
        LLVMValueRef conf = ll_intrin(l, "llvm.x86.avx512.conflict.d.512", NULL, 0, &k, 1);
        conf = LLVMBuildAnd(b, conf, ll_splat_n(l, act, 16), "");   /* inactive lanes do not count */
        LLVMValueRef cnt = ll_intrin1(l, "llvm.ctpop", conf);
        LLVMTypeRef over[2] = {v16, p16};
        LLVMValueRef gargs[4] = {p, LLVMConstInt(m->t_i32, 4, 0), mk, LLVMConstNull(v16)};
        LLVMValueRef g = ll_intrin(l, "llvm.masked.gather", over, 2, gargs, 4);
        old[h] = LLVMBuildAdd(b, g, LLVMBuildMul(b, cnt, v, ""), "");
        LLVMValueRef sargs[4] = {LLVMBuildAdd(b, old[h], v, ""), p, LLVMConstInt(m->t_i32, 4, 0),
                                 mk};
        ll_intrin(l, "llvm.masked.scatter", over, 2, sargs, 4);
    }
    return ll_join_halves(l, old[0], old[1]);
}

/* Whether conflict_add pays on this CPU. bench/histogram in one process
 * (bench_ab_env): on Intel Sapphire Rapids the lane loop took 1.25-1.37x
 * as long (stop 40); on AMD Zen 4, whose 16-lane scatter is far slower
 * than Intel's, the lane loop is 4-15 % faster (stop 41, in 9 of 10
 * alternated runs). ZINC_NO_CONFLICT_ADD=1 never uses it, =0 wherever AVX-512 CD is
 * (tests reach both paths on any host; in the kernel cache key). */
static bool conflict_add_wanted(const zn_lmod *m)
{
    const char *s = getenv("ZINC_NO_CONFLICT_ADD");
    if (!zn_target_has(m, "avx512cd"))
        return false;
    if (s && *s)
        return *s == '0';
    return !zn_target_is_zen(m);
}

static bool can_conflict_add(const zn_lfn *l, const atom_job *j, const ptx_opnd *v)
{
    return j->plain && j->op == LLVMAtomicRMWBinOpAdd && LLVMGetTypeKind(j->et) ==
           LLVMIntegerTypeKind && ll_bits(j->et) == 32 && uniform_value(l, v) &&
           conflict_add_wanted(l->m);
}

static bool pick_op(const ptx_ins *ins, ptx_type t, LLVMAtomicRMWBinOp *op)
{
    bool fp = ptx_type_is_float(t), sign = ptx_type_is_signed(t);
    switch (ins->subop) {
    case PTX_SUB_ADD: *op = fp ? LLVMAtomicRMWBinOpFAdd : LLVMAtomicRMWBinOpAdd; return true;
    case PTX_SUB_MIN:
        *op = fp ? LLVMAtomicRMWBinOpFMin : sign ? LLVMAtomicRMWBinOpMin : LLVMAtomicRMWBinOpUMin;
        return true;
    case PTX_SUB_MAX:
        *op = fp ? LLVMAtomicRMWBinOpFMax : sign ? LLVMAtomicRMWBinOpMax : LLVMAtomicRMWBinOpUMax;
        return true;
    case PTX_SUB_INC: *op = LLVMAtomicRMWBinOpUIncWrap; return !fp;
    case PTX_SUB_DEC: *op = LLVMAtomicRMWBinOpUDecWrap; return !fp;
    case PTX_SUB_EXCH: *op = LLVMAtomicRMWBinOpXchg; return true;
    case PTX_SUB_AND: *op = LLVMAtomicRMWBinOpAnd; return !fp;
    case PTX_SUB_OR: *op = LLVMAtomicRMWBinOpOr; return !fp;
    case PTX_SUB_XOR: *op = LLVMAtomicRMWBinOpXor; return !fp;
    default: return false;
    }
}

void zn_lower_atom(zn_lfn *l, const ptx_ins *ins)
{
    ptx_type t = ins->type[0];
    bool red = ins->op == PTX_OP_red;
    const ptx_opnd *o = ins->opnds;
    unsigned ai = red ? 0 : 1; /* index of [addr] */
    atom_job j = {.ins = ins, .cas = ins->subop == PTX_SUB_CAS};
    if (ins->vec > 1 || t == PTX_T_F16 || t == PTX_T_BF16 || t == PTX_T_F16X2 ||
        t == PTX_T_BF16X2 || t == PTX_T_B128 || (!j.cas && !pick_op(ins, t, &j.op)) ||
        ins->nopnds < ai + 2 || (j.cas && ins->nopnds < ai + 3)) {
        zn_lerr_unsupported(l);
        return;
    }
    j.et = zn_scalar_type(l->m, t);
    /* other blocks' threads reach this memory in a module with mapa or
     * .shared::cluster (zn_lower_cluster.c): real atomics there */
    j.plain = ins->space == PTX_SPACE_SHARED && !j.cas && has_plain(j.op) &&
              !l->uses_cluster;
    j.ptrs = zn_mem_ptrs(l, &o[ai], ins->space);
    zn_check_access(l, LLVMBuildPtrToInt(l->b, j.ptrs, ll_vec(l->m->t_i64), ""),
                    ll_bits(j.et) / 8, ins->space, ZN_CHECK_WRITE | ZN_CHECK_ATOMIC);
    if (j.plain && ins->space == PTX_SPACE_SHARED)
        shared_keys(l, &j);
    j.b = zn_src(l, &o[ai + 1], t);
    if (j.cas)
        j.c = zn_src(l, &o[ai + 2], t);
    LLVMValueRef r = can_conflict_add(l, &j, &o[ai + 1])
                         ? conflict_add(l, &j)
                         : ll_lane_loop(l, l->emask, red ? NULL : j.et, atom_lane, &j);
    if (!red)
        zn_dst(l, &o[0], t, r);
}
