/* zn_lower_mbarrier.c: mbarrier objects (sm_80+; what cuda::barrier,
 * cuda::pipeline and cuda::memcpy_async emit), cp.async.mbarrier.arrive and
 * the sm_90 bulk copy cp.async.bulk...mbarrier::complete_tx::bytes.
 *
 * The 64-bit object is opaque in PTX; Zinc's encoding:
 *   bits  0..20  pending arrivals of the current phase
 *   bits 21..41  expected arrivals of each phase (init count, less drops)
 *   bits 42..62  the transaction count (bytes expected less bytes done),
 *                two's complement: a copy completes here before its
 *                expect_tx is counted
 *   bit  63      the current phase's parity
 * The phase completes (parity flips, pending reloads from expected) when
 * an operation leaves pending arrivals and transaction count both zero.
 * The state an arrive returns is the object before the arrival, so a wait
 * on it completes once the phase bit differs. Each active lane operates in
 * ascending lane order with plain loads and stores: an mbarrier lives in
 * shared memory, whose block runs all its warps on one worker thread; in a
 * module with thread block clusters a peer block's thread may arrive too
 * (.shared::cluster addresses from mapa), so there the updates are
 * compare-and-swap loops and the loads atomic.
 *
 * test_wait/try_wait that finds an incomplete phase for any lane calls
 * rt->barrier in mode 2 (yield): the warp stays runnable but lets the
 * block's other warps run, since the arrivals it waits for come from them
 * (warps are fibers that otherwise switch only at bar.sync). Copies
 * complete at once (cp.async in zn_lower_async.c, bulk copies here), so
 * cp.async.mbarrier.arrive without .noinc (pending +1, then an arrive)
 * changes nothing and .noinc is one arrive. */
#include "zn_lower.h"

#define MB_CNT_MASK 0x1fffffull
#define MB_EXP_SHIFT 21

/* rt->barrier(w, 0, 0, 2): yield to the block's other warps */
void zn_lower_yield(zn_lfn *l)
{
    LLVMValueRef z = LLVMConstInt(l->m->t_i32, 0, 0);
    zn_call_barrier_rt(l, z, z, 2); /* zn_lower_coro.c */
}

#define MB_TX_SHIFT 42

enum mb_kind { MB_INIT, MB_INVAL, MB_UPDATE, MB_WAIT };

typedef struct mb_job {
    enum mb_kind kind;
    LLVMValueRef ptrs;   /* <32 x ptr> */
    LLVMValueRef arg;    /* <32 x i64>: init count, arrivals, wait token */
    LLVMValueRef tx;     /* <32 x i64> transaction bytes added, or NULL */
    ptx_space space;     /* of ptrs */
    bool arrive, drop, no_complete, parity, tx_sub;
} mb_job;

static LLVMValueRef c64(zn_lfn *l, uint64_t v)
{
    return LLVMConstInt(l->m->t_i64, v, 0);
}

static LLVMValueRef field(zn_lfn *l, LLVMValueRef v, unsigned shift)
{
    LLVMValueRef x = shift ? LLVMBuildLShr(l->b, v, c64(l, shift), "") : v;
    return LLVMBuildAnd(l->b, x, c64(l, MB_CNT_MASK), "");
}

/* bulk copies: n bytes, src to dst (<32 x ptr>, <32 x i64>) */
typedef struct copy_job {
    LLVMValueRef src, dst, n;
} copy_job;

static LLVMValueRef copy_lane(zn_lfn *l, LLVMValueRef lane, void *ud)
{
    copy_job *j = ud;
    LLVMValueRef d = ll_lane_elt(l, j->dst, lane), s = ll_lane_elt(l, j->src, lane);
    LLVMBuildMemCpy(l->b, d, 16, s, 16, ll_lane_elt(l, j->n, lane));
    return NULL;
}

/* memcheck of the 16 bytes at each active lane's ptrs in space */
static void check_ptrs(zn_lfn *l, LLVMValueRef ptrs, ptx_space space, unsigned flags)
{
    zn_check_access(l, LLVMBuildPtrToInt(l->b, ptrs, ll_vec(l->m->t_i64), ""), 16, space, flags);
}

static LLVMValueRef mb_lane(zn_lfn *l, LLVMValueRef lane, void *ud)
{
    mb_job *j = ud;
    LLVMBuilderRef b = l->b;
    LLVMTypeRef i64 = l->m->t_i64;
    LLVMValueRef p = ll_lane_elt(l, j->ptrs, lane);
    LLVMValueRef a = ll_lane_elt(l, j->arg, lane);
    if (j->kind == MB_INIT || j->kind == MB_INVAL) {
        LLVMValueRef v = c64(l, 0);
        if (j->kind == MB_INIT) {
            LLVMValueRef n = LLVMBuildAnd(b, a, c64(l, MB_CNT_MASK), "");
            v = LLVMBuildOr(b, n, LLVMBuildShl(b, n, c64(l, MB_EXP_SHIFT), ""), "");
        }
        LLVMSetAlignment(LLVMBuildStore(b, v, p), 8);
        return NULL;
    }
    LLVMValueRef tx = j->tx ? ll_lane_elt(l, j->tx, lane) : NULL;
    LLVMValueRef old = LLVMBuildLoad2(b, i64, p, "mb.old");
    LLVMSetAlignment(old, 8);
    /* In a module with clusters another block's thread may arrive on this
     * object (mbarrier.arrive.shared::cluster through mapa): atomic loads,
     * and updates as a compare-and-swap loop (zn_lower_cluster.c). */
    LLVMBasicBlockRef cas_entry = NULL, cas_loop = NULL;
    LLVMValueRef cas_phi = NULL;
    if (l->uses_cluster) {
        LLVMSetOrdering(old, LLVMAtomicOrderingAcquire);
        if (j->kind != MB_WAIT) {
            cas_entry = LLVMGetInsertBlock(b);
            cas_loop = LLVMAppendBasicBlockInContext(l->m->ctx, l->fn, "mb.cas");
            LLVMBuildBr(b, cas_loop);
            LLVMPositionBuilderAtEnd(b, cas_loop);
            cas_phi = LLVMBuildPhi(b, i64, "mb.seen");
            LLVMAddIncoming(cas_phi, &old, &cas_entry, 1);
            old = cas_phi;
        }
    }
    if (j->kind == MB_WAIT) {
        /* complete when the current phase differs from the token's (or, with
         * .parity, from the parity operand) */
        LLVMValueRef ph = LLVMBuildLShr(b, old, c64(l, 63), "");
        LLVMValueRef want = j->parity ? LLVMBuildAnd(b, a, c64(l, 1), "")
                                      : LLVMBuildLShr(b, a, c64(l, 63), "");
        return LLVMBuildICmp(b, LLVMIntNE, ph, want, "");
    }
    LLVMValueRef pend = field(l, old, 0), exp = field(l, old, MB_EXP_SHIFT);
    LLVMValueRef txc = field(l, old, MB_TX_SHIFT);
    LLVMValueRef ph = LLVMBuildAnd(b, old, c64(l, 1ull << 63), "");
    if (tx) {
        txc = j->tx_sub ? LLVMBuildSub(b, txc, tx, "") : LLVMBuildAdd(b, txc, tx, "");
        txc = LLVMBuildAnd(b, txc, c64(l, MB_CNT_MASK), "");
    }
    if (j->arrive) {
        LLVMValueRef cnt = LLVMBuildAnd(b, a, c64(l, MB_CNT_MASK), "");
        pend = LLVMBuildAnd(b, LLVMBuildSub(b, pend, cnt, ""), c64(l, MB_CNT_MASK), "");
        if (j->drop)
            exp = LLVMBuildAnd(b, LLVMBuildSub(b, exp, cnt, ""), c64(l, MB_CNT_MASK), "");
    }
    LLVMValueRef expf = LLVMBuildShl(b, exp, c64(l, MB_EXP_SHIFT), "");
    LLVMValueRef nv = LLVMBuildOr(b, LLVMBuildOr(b, ph, pend, ""),
                                  LLVMBuildOr(b, expf, LLVMBuildShl(b, txc, c64(l, MB_TX_SHIFT), ""),
                                              ""), "");
    if (!j->no_complete) {
        /* nothing pending: flip the phase, reload the arrival count */
        LLVMValueRef nv_next = LLVMBuildOr(b, LLVMBuildXor(b, ph, c64(l, 1ull << 63), ""),
                                           LLVMBuildOr(b, exp, expf, ""), "");
        LLVMValueRef done = LLVMBuildICmp(b, LLVMIntEQ, LLVMBuildOr(b, pend, txc, ""),
                                          c64(l, 0), "");
        nv = LLVMBuildSelect(b, done, nv_next, nv, "");
    }
    if (cas_loop) {
        LLVMAtomicOrdering ord = LLVMAtomicOrderingSequentiallyConsistent;
        LLVMValueRef x = LLVMBuildAtomicCmpXchg(b, p, old, nv, ord, ord, 0);
        LLVMValueRef seen = LLVMBuildExtractValue(b, x, 0, "");
        LLVMValueRef ok = LLVMBuildExtractValue(b, x, 1, "");
        LLVMBasicBlockRef here = LLVMGetInsertBlock(b);
        LLVMAddIncoming(cas_phi, &seen, &here, 1);
        LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(l->m->ctx, l->fn, "mb.cas.done");
        LLVMBuildCondBr(b, ok, done, cas_loop);
        LLVMPositionBuilderAtEnd(b, done);
        return old;
    }
    LLVMSetAlignment(LLVMBuildStore(b, nv, p), 8);
    return old;
}

static LLVMValueRef run_lanes(zn_lfn *l, mb_job *j, LLVMTypeRef res)
{
    /* memcheck: the 8-byte object (the space is shared or generic) */
    zn_check_access(l, LLVMBuildPtrToInt(l->b, j->ptrs, ll_vec(l->m->t_i64), ""), 8, j->space,
                    j->kind == MB_WAIT ? 0 : ZN_CHECK_WRITE);
    return ll_lane_loop(l, l->emask, res, mb_lane, j);
}

/* the count or token operand as <32 x i64> (a default of dflt when absent) */
static LLVMValueRef arg64(zn_lfn *l, const ptx_ins *ins, unsigned i, ptx_type t, uint64_t dflt)
{
    if (i >= ins->nopnds || ins->opnds[i].kind == PTX_OPND_NONE)
        return ll_const_vec(l->m->t_i64, dflt);
    LLVMValueRef v = zn_src(l, &ins->opnds[i], t);
    if (t == PTX_T_U32)
        v = LLVMBuildZExt(l->b, v, ll_vec(l->m->t_i64), "");
    return v;
}

/* cp.async.mbarrier.arrive{.noinc}.shared{::cta}.b64 [addr] */
static void lower_cp_arrive(zn_lfn *l, const ptx_ins *ins)
{
    if (ins->nopnds != 1 || ins->opnds[0].kind != PTX_OPND_ADDR) {
        zn_lerr_unsupported(l);
        return;
    }
    if (!zn_has_mod(ins, PTX_MOD_noinc))
        return; /* pending +1 now, -1 when the (finished) copies complete */
    mb_job j = {.kind = MB_UPDATE, .ptrs = zn_mem_ptrs(l, &ins->opnds[0], ins->space),
                .space = ins->space, .arg = ll_const_vec(l->m->t_i64, 1), .arrive = true};
    run_lanes(l, &j, NULL);
}

/* Each active lane copies n (<32 x i64>) bytes from src to dst, now:
 * bulk stores, and tensormap.cp_fenceproxy (zn_lower_tma.c) */
void zn_bulk_copy(zn_lfn *l, LLVMValueRef dst, LLVMValueRef src, LLVMValueRef n)
{
    copy_job j = {.src = src, .dst = dst, .n = n};
    ll_lane_loop(l, l->emask, NULL, copy_lane, &j);
}

/* cp.async.bulk.global.shared::cta.bulk_group{.L2::cache_hint}
 *     [dst], [src], size{, policy}: each active lane's bytes, now */
static void lower_bulk_store(zn_lfn *l, const ptx_ins *ins, unsigned hint)
{
    const ptx_opnd *o = ins->opnds;
    if (ins->nopnds != 3 + hint || o[0].kind != PTX_OPND_ADDR || o[1].kind != PTX_OPND_ADDR) {
        zn_lerr_unsupported(l);
        return;
    }
    LLVMValueRef dst = zn_mem_ptrs(l, &o[0], PTX_SPACE_GLOBAL);
    LLVMValueRef src = zn_mem_ptrs(l, &o[1], PTX_SPACE_SHARED);
    LLVMValueRef n = arg64(l, ins, 2, PTX_T_U32, 0);
    check_ptrs(l, dst, PTX_SPACE_GLOBAL, ZN_CHECK_WRITE);
    check_ptrs(l, src, PTX_SPACE_SHARED, 0);
    zn_bulk_copy(l, dst, src, n);
}

/* cp.async.bulk.shared::cluster.{global,shared::cta}.mbarrier::complete_tx::bytes
 *     {.L2::cache_hint} [dst], [src], size, [mbar]{, policy}: each active
 * lane copies size bytes (a multiple of 16) and completes that many
 * transaction bytes on mbar; the bulk store form goes to lower_bulk_store.
 * The cache policy is a hint. */
static void lower_cp_bulk(zn_lfn *l, const ptx_ins *ins)
{
    const ptx_opnd *o = ins->opnds;
    unsigned hint = zn_has_mod(ins, PTX_MOD_L2_cache_hint) ? 1 : 0;
    if (zn_has_mod(ins, PTX_MOD_bulk_group) && ins->space == PTX_SPACE_GLOBAL &&
        !zn_has_mod(ins, PTX_MOD_mbar_complete_tx)) {
        lower_bulk_store(l, ins, hint);
        return;
    }
    unsigned mc = zn_has_mod(ins, PTX_MOD_multicast_cluster) ? 1 : 0;
    if (!zn_has_mod(ins, PTX_MOD_mbar_complete_tx) || ins->nopnds != 4 + mc + hint ||
        o[0].kind != PTX_OPND_ADDR || o[1].kind != PTX_OPND_ADDR || o[3].kind != PTX_OPND_ADDR ||
        (mc && !zn_has_mod(ins, PTX_MOD_global))) {
        zn_lerr_unsupported(l);
        return;
    }
    ptx_space from = zn_has_mod(ins, PTX_MOD_global) ? PTX_SPACE_GLOBAL : PTX_SPACE_SHARED;
    if (mc) {   /* [dst], [src], size, [mbar], ctaMask: to each block of the mask */
        LLVMValueRef src = zn_mem_ptrs(l, &o[1], from);
        check_ptrs(l, src, from, 0);
        zn_lower_multicast(l, zn_src(l, &o[4], PTX_T_U32), zn_mem_addr(l, &o[0]), src,
                           zn_mem_addr(l, &o[3]), arg64(l, ins, 2, PTX_T_U32, 0));
        return;
    }
    /* the copy first, then its bytes count (every lane's, in lane order) */
    LLVMValueRef dst = zn_mem_ptrs(l, &o[0], PTX_SPACE_SHARED);
    LLVMValueRef src = zn_mem_ptrs(l, &o[1], from), n = arg64(l, ins, 2, PTX_T_U32, 0);
    check_ptrs(l, dst, PTX_SPACE_SHARED, ZN_CHECK_WRITE);
    check_ptrs(l, src, from, 0);
    zn_bulk_copy(l, dst, src, n);
    zn_mbarrier_complete_tx(l, zn_mem_ptrs(l, &o[3], PTX_SPACE_SHARED), n);
}

/* complete tx bytes (<32 x i64>) on the mbarriers at ptrs (shared), the
 * active lanes in order: the end of a bulk tensor copy (zn_lower_tma.c) */
void zn_mbarrier_complete_tx(zn_lfn *l, LLVMValueRef ptrs, LLVMValueRef tx)
{
    mb_job j = {.kind = MB_UPDATE, .ptrs = ptrs, .space = PTX_SPACE_SHARED,
                .arg = ll_const_vec(l->m->t_i64, 0), .tx = tx, .tx_sub = true};
    run_lanes(l, &j, NULL);
}

static void lower_wait(zn_lfn *l, const ptx_ins *ins, mb_job *j)
{
    /* {test,try}_wait{.parity} waitComplete, [addr], state|parity{, hint} */
    j->kind = MB_WAIT;
    j->parity = zn_has_mod(ins, PTX_MOD_parity);
    if (ins->nopnds < 3) {
        zn_lerr_unsupported(l);
        return;
    }
    j->arg = arg64(l, ins, 2, j->parity ? PTX_T_U32 : PTX_T_B64, 0);
    LLVMValueRef done = run_lanes(l, j, l->m->t_i1);
    /* lanes not run keep a poison element: count only active ones */
    done = LLVMBuildSelect(l->b, l->emask, done, LLVMConstAllOnes(ll_vec(l->m->t_i1)), "");
    done = LLVMBuildFreeze(l->b, done, "");
    LLVMBasicBlockRef y = LLVMAppendBasicBlockInContext(l->m->ctx, l->fn, "mb.yield");
    LLVMBasicBlockRef cont = LLVMAppendBasicBlockInContext(l->m->ctx, l->fn, "mb.cont");
    LLVMValueRef all = ll_mask_to_i32(l, done);
    LLVMBuildCondBr(l->b, LLVMBuildICmp(l->b, LLVMIntEQ, all,
                                        LLVMConstInt(l->m->t_i32, 0xffffffffu, 0), ""),
                    cont, y);
    LLVMPositionBuilderAtEnd(l->b, y);
    zn_lower_yield(l);
    LLVMBuildBr(l->b, cont);
    LLVMPositionBuilderAtEnd(l->b, cont);
    zn_dst(l, &ins->opnds[0], PTX_T_PRED, done);
}

void zn_lower_mbarrier(zn_lfn *l, const ptx_ins *ins)
{
    if (ins->op == PTX_OP_cp) {
        if ((ins->flags & (PTX_F(commit_group) | PTX_F(wait_group))) ||
            zn_has_mod(ins, PTX_MOD_prefetch_m))
            return; /* bulk groups (every bulk copy is complete), prefetches */
        if (zn_has_mod(ins, PTX_MOD_tensor) || zn_has_mod(ins, PTX_MOD_reduce_m))
            zn_lower_tma(l, ins); /* tensor copies, bulk reductions */
        else if (zn_has_mod(ins, PTX_MOD_bulk))
            lower_cp_bulk(l, ins);
        else
            lower_cp_arrive(l, ins);
        return;
    }
    const ptx_opnd *o = ins->opnds;
    mb_job j = {0};
    if (ins->nopnds < 1) {
        zn_lerr_unsupported(l);
        return;
    }
    if (zn_has_mod(ins, PTX_MOD_pending_count)) {
        /* mbarrier.pending_count.b64 count, state */
        if (ins->nopnds != 2) {
            zn_lerr_unsupported(l);
            return;
        }
        LLVMValueRef s = zn_src(l, &o[1], PTX_T_B64);
        s = LLVMBuildAnd(l->b, s, ll_const_vec(l->m->t_i64, MB_CNT_MASK), "");
        zn_dst(l, &o[0], PTX_T_U32, LLVMBuildTrunc(l->b, s, ll_vec(l->m->t_i32), ""));
        return;
    }
    bool arrive = (ins->flags & PTX_F(arrive)) || zn_has_mod(ins, PTX_MOD_arrive_drop);
    bool expect = zn_has_mod(ins, PTX_MOD_expect_tx), complete = zn_has_mod(ins, PTX_MOD_complete_tx);
    if (!arrive && (expect || complete)) {
        /* mbarrier.{expect,complete}_tx [addr], txCount */
        if (ins->nopnds != 2 || o[0].kind != PTX_OPND_ADDR) {
            zn_lerr_unsupported(l);
            return;
        }
        j = (mb_job){.kind = MB_UPDATE, .ptrs = zn_mem_ptrs(l, &o[0], ins->space),
                     .space = ins->space, .arg = ll_const_vec(l->m->t_i64, 0),
                     .tx = arg64(l, ins, 1, PTX_T_U32, 0), .tx_sub = complete};
        run_lanes(l, &j, NULL);
        return;
    }
    if (zn_has_mod(ins, PTX_MOD_init) || zn_has_mod(ins, PTX_MOD_inval)) {
        /* mbarrier.init [addr], count; mbarrier.inval [addr] */
        j.kind = zn_has_mod(ins, PTX_MOD_init) ? MB_INIT : MB_INVAL;
        if (o[0].kind != PTX_OPND_ADDR || (j.kind == MB_INIT && ins->nopnds != 2)) {
            zn_lerr_unsupported(l);
            return;
        }
        j.ptrs = zn_mem_ptrs(l, &o[0], ins->space);
        j.space = ins->space;
        j.arg = arg64(l, ins, 1, PTX_T_U32, 0);
        run_lanes(l, &j, NULL);
        return;
    }
    if (ins->nopnds < 2 || o[1].kind != PTX_OPND_ADDR) {
        zn_lerr_unsupported(l);
        return;
    }
    j.ptrs = zn_mem_ptrs(l, &o[1], ins->space);
    j.space = ins->space;
    if (zn_has_mod(ins, PTX_MOD_test_wait) || zn_has_mod(ins, PTX_MOD_try_wait)) {
        lower_wait(l, ins, &j);
        return;
    }
    if (arrive && !complete) {
        /* arrive{_drop}{.noComplete} state, [addr]{, count};
         * arrive{_drop}.expect_tx state, [addr], txCount (one arrival) */
        j.kind = MB_UPDATE;
        j.arrive = true;
        j.drop = zn_has_mod(ins, PTX_MOD_arrive_drop);
        j.no_complete = zn_has_mod(ins, PTX_MOD_noComplete);
        if (expect) {
            j.tx = arg64(l, ins, 2, PTX_T_U32, 0);
            j.arg = ll_const_vec(l->m->t_i64, 1);
        } else {
            j.arg = arg64(l, ins, 2, PTX_T_U32, 1);
        }
        LLVMValueRef old = run_lanes(l, &j, l->m->t_i64);
        zn_dst(l, &o[0], PTX_T_B64, old);
        return;
    }
    zn_lerr_unsupported(l);
}
