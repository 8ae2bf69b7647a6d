/* zn_lower_cluster.c: thread block clusters (sm_90): the %cluster* special
 * registers, mapa, barrier.cluster and .shared::cluster addresses.
 *
 * The block context carries the cluster's shape (cluster_dim, {1,1,1}
 * without a cluster launch) and the cluster's table of shared-memory
 * windows by rank (zn_cluster_ctx, NULL without a cluster launch); the
 * special registers follow from %ctaid and the shape as CUDA defines them
 * (clusters and ranks x fastest).
 *
 * Addresses. A shared::cta address is an offset from the executing
 * block's window (zn_lower_mem.c), and must keep meaning that block's
 * memory when used as a shared::cluster address. A shared::cluster address
 * that mapa made for rank r carries r + 1 in bits 24..28 over the offset
 * (shared memory is at most 228 KiB, well under 2^24): tag 0 is the
 * executing block, tag r + 1 the window of rank r. mapa on a generic
 * address moves it from the executing block's window to rank r's, a plain
 * host address that generic loads, stores and atomics use as they are.
 */
#include "zn_lower.h"

#define CLUSTER_TAG_SHIFT 24
#define CLUSTER_OFF_MASK ((1u << CLUSTER_TAG_SHIFT) - 1)

bool zn_ins_shared_cluster(const ptx_ins *ins)
{
    for (unsigned i = 0; i < ins->nmods; i++)
        if (ins->mods[i] == PTX_MOD_shared_cluster)
            return true;
    return false;
}

bool zn_func_uses_cluster(const ptx_func *f)
{
    for (uint32_t i = 0; i < f->nins; i++)
        if (f->ins[i].op == PTX_OP_mapa || zn_ins_shared_cluster(&f->ins[i]))
            return true;
    return false;
}

/* block->field[d] (an i32 array field) or block->field (d < 0) */
static LLVMValueRef block_u32(zn_lfn *l, unsigned field, int d)
{
    zn_lmod *m = l->m;
    LLVMValueRef p = ll_field_ptr(l, m->t_block, l->block, field);
    if (d >= 0) {
        LLVMValueRef ix[2] = {LLVMConstInt(m->t_i32, 0, 0), LLVMConstInt(m->t_i32, (unsigned)d, 0)};
        p = LLVMBuildGEP2(l->b, LLVMArrayType2(m->t_i32, 3), p, ix, 2, "");
    }
    return LLVMBuildLoad2(l->b, m->t_i32, p, "");
}

/* cluster_dim[d], never 0 (a hand-made block context may leave it 0) */
static LLVMValueRef cluster_dim(zn_lfn *l, int d)
{
    LLVMValueRef v = block_u32(l, ZN_BLOCK_FIELD_CLUSTER_DIM, d);
    LLVMValueRef one = LLVMConstInt(l->m->t_i32, 1, 0);
    return LLVMBuildSelect(l->b, LLVMBuildICmp(l->b, LLVMIntEQ, v, LLVMConstNull(l->m->t_i32), ""),
                           one, v, "cl.dim");
}

static LLVMValueRef cluster_scalar(zn_lfn *l, ptx_sreg s)
{
    LLVMBuilderRef b = l->b;
    switch (s) {
    case PTX_SREG_CLUSTER_NCTAID_X: case PTX_SREG_CLUSTER_NCTAID_Y:
    case PTX_SREG_CLUSTER_NCTAID_Z:
        return cluster_dim(l, (int)(s - PTX_SREG_CLUSTER_NCTAID_X));
    case PTX_SREG_CLUSTER_CTAID_X: case PTX_SREG_CLUSTER_CTAID_Y:
    case PTX_SREG_CLUSTER_CTAID_Z: {
        int d = (int)(s - PTX_SREG_CLUSTER_CTAID_X);
        return LLVMBuildURem(b, block_u32(l, ZN_BLOCK_FIELD_CTAID, d), cluster_dim(l, d), "");
    }
    case PTX_SREG_CLUSTERID_X: case PTX_SREG_CLUSTERID_Y: case PTX_SREG_CLUSTERID_Z: {
        int d = (int)(s - PTX_SREG_CLUSTERID_X);
        return LLVMBuildUDiv(b, block_u32(l, ZN_BLOCK_FIELD_CTAID, d), cluster_dim(l, d), "");
    }
    case PTX_SREG_NCLUSTERID_X: case PTX_SREG_NCLUSTERID_Y: case PTX_SREG_NCLUSTERID_Z: {
        int d = (int)(s - PTX_SREG_NCLUSTERID_X);
        return LLVMBuildUDiv(b, block_u32(l, ZN_BLOCK_FIELD_NCTAID, d), cluster_dim(l, d), "");
    }
    case PTX_SREG_CLUSTER_CTARANK: {
        /* x + dim.x * (y + dim.y * z) */
        LLVMValueRef x = cluster_scalar(l, PTX_SREG_CLUSTER_CTAID_X);
        LLVMValueRef y = cluster_scalar(l, PTX_SREG_CLUSTER_CTAID_Y);
        LLVMValueRef z = cluster_scalar(l, PTX_SREG_CLUSTER_CTAID_Z);
        LLVMValueRef yz = LLVMBuildAdd(b, y, LLVMBuildMul(b, cluster_dim(l, 1), z, ""), "");
        return LLVMBuildAdd(b, x, LLVMBuildMul(b, cluster_dim(l, 0), yz, ""), "cl.rank");
    }
    case PTX_SREG_CLUSTER_NCTARANK:
        return LLVMBuildMul(b, LLVMBuildMul(b, cluster_dim(l, 0), cluster_dim(l, 1), ""),
                            cluster_dim(l, 2), "cl.size");
    case PTX_SREG_IS_EXPLICIT_CLUSTER:
        return LLVMBuildAnd(b, block_u32(l, ZN_BLOCK_FIELD_CLUSTER_FLAGS, -1),
                            LLVMConstInt(l->m->t_i32, 1, 0), "");
    default:
        return NULL;
    }
}

LLVMValueRef zn_cluster_sreg(zn_lfn *l, ptx_sreg s)
{
    if (s < PTX_SREG_CLUSTERID_X || s > PTX_SREG_IS_EXPLICIT_CLUSTER)
        return NULL;
    LLVMValueRef v = cluster_scalar(l, s);
    return v ? ll_splat(l, v) : NULL;
}

/* <32 x i64> host base of each lane's rank window: rank (<32 x i32>, taken
 * mod 16) in the cluster table; the executing block's window for lanes
 * not in `use` and without a cluster launch (the block is its cluster). */
static LLVMValueRef rank_base(zn_lfn *l, LLVMValueRef rank, LLVMValueRef use)
{
    zn_lmod *m = l->m;
    LLVMBuilderRef b = l->b;
    LLVMValueRef tab = ll_load_field(l, m->t_block, l->block, ZN_BLOCK_FIELD_CLUSTER, m->t_ptr);
    LLVMValueRef have = ll_splat(l, LLVMBuildIsNotNull(b, tab, ""));
    use = LLVMBuildAnd(b, LLVMBuildAnd(b, use, have, ""), l->emask, "");
    LLVMValueRef r16 = LLVMBuildAnd(b, rank, ll_const_vec(m->t_i32, ZN_CLUSTER_MAX - 1), "");
    LLVMValueRef idx = LLVMBuildZExt(b, r16, ll_vec(m->t_i64), "");
    LLVMValueRef ptrs = LLVMBuildGEP2(b, m->t_ptr, tab, &idx, 1, "cl.tab");
    LLVMTypeRef over[2] = {ll_vec(m->t_ptr), ll_vec(m->t_ptr)};
    LLVMValueRef own = LLVMBuildIntToPtr(b, zn_shared_base(l), ll_vec(m->t_ptr), "");
    LLVMValueRef args[4] = {ptrs, LLVMConstInt(m->t_i32, 8, 0), use, own};
    LLVMValueRef base = ll_intrin(l, "llvm.masked.gather", over, 2, args, 4);
    return LLVMBuildPtrToInt(b, base, ll_vec(m->t_i64), "cl.base");
}

LLVMValueRef zn_cluster_host_addr(zn_lfn *l, LLVMValueRef a)
{
    zn_lmod *m = l->m;
    LLVMBuilderRef b = l->b;
    LLVMValueRef a32 = LLVMBuildTrunc(b, a, ll_vec(m->t_i32), "");
    LLVMValueRef tag = LLVMBuildLShr(b, a32, ll_const_vec(m->t_i32, CLUSTER_TAG_SHIFT), "");
    LLVMValueRef tagged = LLVMBuildICmp(b, LLVMIntNE, tag, ll_const_vec(m->t_i32, 0), "");
    LLVMValueRef rank = LLVMBuildSub(b, tag, ll_const_vec(m->t_i32, 1), "");
    LLVMValueRef base = rank_base(l, rank, tagged);
    LLVMValueRef off = LLVMBuildAnd(b, a, ll_const_vec(m->t_i64, CLUSTER_OFF_MASK), "");
    /* an untagged address is the executing block's, as written */
    off = LLVMBuildSelect(b, tagged, off, a, "");
    return LLVMBuildAdd(b, base, off, "cl.addr");
}

LLVMValueRef zn_cluster_rank_ptrs(zn_lfn *l, LLVMValueRef a, LLVMValueRef rank)
{
    zn_lmod *m = l->m;
    LLVMValueRef off = LLVMBuildAnd(l->b, a, ll_const_vec(m->t_i64, CLUSTER_OFF_MASK), "");
    LLVMValueRef addr = LLVMBuildAdd(l->b, rank_base(l, rank, ll_all_ones(l)), off, "");
    return LLVMBuildIntToPtr(l->b, addr, ll_vec(m->t_ptr), "cl.peer");
}

/* mapa{.shared::cluster}.u32/.u64 d, a, rank */
void zn_lower_mapa(zn_lfn *l, const ptx_ins *ins)
{
    zn_lmod *m = l->m;
    LLVMBuilderRef b = l->b;
    if (ins->nopnds != 3) {
        zn_lerr_unsupported(l);
        return;
    }
    ptx_type t = ins->type[0];
    LLVMValueRef rank = zn_src(l, &ins->opnds[2], PTX_T_U32);
    const ptx_opnd *ao = &ins->opnds[1];
    LLVMValueRef a;
    bool var = ao->kind == PTX_OPND_SYM || ao->kind == PTX_OPND_ADDR;
    if (var)
        a = zn_sym_addr(l, ao);     /* a .shared variable: its window offset */
    else
        a = zn_src(l, ao, PTX_T_U64);
    if (zn_ins_shared_cluster(ins) || ins->space == PTX_SPACE_SHARED) {
        /* offset in the window | (rank + 1) << 24 */
        LLVMValueRef a32 = LLVMBuildAnd(b, LLVMBuildTrunc(b, a, ll_vec(m->t_i32), ""),
                                        ll_const_vec(m->t_i32, CLUSTER_OFF_MASK), "");
        LLVMValueRef tag = LLVMBuildAnd(b, LLVMBuildAdd(b, rank, ll_const_vec(m->t_i32, 1), ""),
                                        ll_const_vec(m->t_i32, 0x1f), "");
        LLVMValueRef d = LLVMBuildOr(b, a32, LLVMBuildShl(b, tag, ll_const_vec(m->t_i32,
                                     CLUSTER_TAG_SHIFT), ""), "mapa");
        zn_dst(l, &ins->opnds[0], t, ll_coerce(l, d, zn_vec_type(m, t), false));
        return;
    }
    /* generic: the same offset in rank's window */
    LLVMValueRef off = var ? a : LLVMBuildSub(b, a, zn_shared_base(l), "");
    LLVMValueRef d = LLVMBuildAdd(b, rank_base(l, rank, ll_all_ones(l)), off, "mapa");
    zn_dst(l, &ins->opnds[0], t, ll_coerce(l, d, zn_vec_type(m, t), false));
}

/* barrier.cluster.arrive{.release,.relaxed}{.aligned},
 * barrier.cluster.wait{.acquire}{.aligned}: one runtime call per warp. */
void zn_lower_cluster_barrier(zn_lfn *l, const ptx_ins *ins)
{
    zn_lmod *m = l->m;
    LLVMBuilderRef b = l->b;
    unsigned mode = 0;
    if (ins->flags & PTX_F(arrive))
        mode |= 1;
    if (ins->flags & PTX_F(wait))
        mode |= 2;
    if (!mode)
        mode = 3;   /* barrier.cluster alone: arrive and wait */
    LLVMBasicBlockRef go = LLVMAppendBasicBlockInContext(m->ctx, l->fn, "clbar");
    LLVMBasicBlockRef dead = LLVMAppendBasicBlockInContext(m->ctx, l->fn, "clbar.dead");
    LLVMBasicBlockRef cont = LLVMAppendBasicBlockInContext(m->ctx, l->fn, "clbar.done");
    LLVMBuildCondBr(b, ll_any(l, l->emask), go, cont);
    LLVMPositionBuilderAtEnd(b, go);
    LLVMBuildFence(b, LLVMAtomicOrderingSequentiallyConsistent, 0, "");
    LLVMTypeRef at[2] = {m->t_ptr, m->t_i32};
    LLVMValueRef args[2] = {l->w, LLVMConstInt(m->t_i32, mode, 0)};
    LLVMValueRef st = LLVMBuildCall2(b, LLVMFunctionType(m->t_i32, at, 2, 0),
                                     ll_rt_fn(l, ZN_RT_CLUSTER_BARRIER), args, 2, "clbar.st");
    LLVMBuildFence(b, LLVMAtomicOrderingSequentiallyConsistent, 0, "");
    /* nonzero: another block failed, the barrier cannot complete */
    LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntNE, st, LLVMConstInt(m->t_i32, 0, 0), ""),
                    dead, cont);
    LLVMPositionBuilderAtEnd(b, dead);
    zn_return_status(l, st);
    LLVMPositionBuilderAtEnd(b, cont);
}

bool zn_module_uses_cluster(zn_lmod *m)
{
    if (!m->uses_cluster) {
        m->uses_cluster = 1;
        for (uint32_t i = 0; i < m->pm->nfuncs; i++)
            if (zn_func_uses_cluster(&m->pm->funcs[i]))
                m->uses_cluster = 2;
    }
    return m->uses_cluster == 2;
}

/* getctarank{.shared::cluster}.u32/.u64 d, a: the rank whose shared
 * window holds a. A .shared::cluster address carries it in its tag (0: the
 * executing block); a generic one is looked up in the cluster table. An
 * address in no window gives the executing block's rank. */
void zn_lower_getctarank(zn_lfn *l, const ptx_ins *ins)
{
    zn_lmod *m = l->m;
    LLVMBuilderRef b = l->b;
    if (ins->nopnds != 2) {
        zn_lerr_unsupported(l);
        return;
    }
    LLVMTypeRef v32 = ll_vec(m->t_i32);
    LLVMValueRef own = zn_cluster_sreg(l, PTX_SREG_CLUSTER_CTARANK);
    const ptx_opnd *ao = &ins->opnds[1];
    bool var = ao->kind == PTX_OPND_SYM || ao->kind == PTX_OPND_ADDR;
    LLVMValueRef a = var ? zn_sym_addr(l, ao) : zn_src(l, ao, PTX_T_U64);
    LLVMValueRef d;
    if (zn_ins_shared_cluster(ins) || ins->space == PTX_SPACE_SHARED) {
        LLVMValueRef tag = LLVMBuildLShr(b, LLVMBuildTrunc(b, a, v32, ""),
                                         ll_const_vec(m->t_i32, CLUSTER_TAG_SHIFT), "");
        LLVMValueRef tagged = LLVMBuildICmp(b, LLVMIntNE, tag, ll_const_vec(m->t_i32, 0), "");
        LLVMValueRef tr = LLVMBuildSub(b, tag, ll_const_vec(m->t_i32, 1), "");
        d = LLVMBuildSelect(b, tagged, tr, own, "");
    } else {
        if (var)    /* a .shared variable named in a generic getctarank */
            a = LLVMBuildAdd(b, a, zn_shared_base(l), "");
        LLVMValueRef tab = ll_load_field(l, m->t_block, l->block, ZN_BLOCK_FIELD_CLUSTER, m->t_ptr);
        LLVMValueRef size = LLVMBuildZExt(b, ll_load_field(l, m->t_block, l->block,
                                          ZN_BLOCK_FIELD_SHARED_SIZE, m->t_i32), m->t_i64, "");
        LLVMBasicBlockRef entry = LLVMGetInsertBlock(b);
        LLVMBasicBlockRef look = LLVMAppendBasicBlockInContext(m->ctx, l->fn, "ctarank.look");
        LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(m->ctx, l->fn, "ctarank.done");
        LLVMBuildCondBr(b, LLVMBuildIsNotNull(b, tab, ""), look, done);
        LLVMPositionBuilderAtEnd(b, look);
        LLVMValueRef found = own;
        LLVMValueRef vsize = ll_splat(l, size);
        for (unsigned r = 0; r < ZN_CLUSTER_MAX; r++) {
            LLVMValueRef ix = LLVMConstInt(m->t_i64, r, 0);
            LLVMValueRef slot = LLVMBuildGEP2(b, m->t_ptr, tab, &ix, 1, "");
            LLVMValueRef base = LLVMBuildLoad2(b, m->t_ptr, slot, "");
            base = ll_splat(l, LLVMBuildPtrToInt(b, base, m->t_i64, ""));
            LLVMValueRef in = LLVMBuildICmp(b, LLVMIntULT, LLVMBuildSub(b, a, base, ""), vsize, "");
            found = LLVMBuildSelect(b, in, ll_const_vec(m->t_i32, r), found, "");
        }
        LLVMBasicBlockRef look_end = LLVMGetInsertBlock(b);
        LLVMBuildBr(b, done);
        LLVMPositionBuilderAtEnd(b, done);
        d = LLVMBuildPhi(b, v32, "ctarank");
        LLVMValueRef in_v[2] = {own, found};
        LLVMBasicBlockRef in_b[2] = {entry, look_end};
        LLVMAddIncoming(d, in_v, in_b, 2);
    }
    zn_dst(l, &ins->opnds[0], PTX_T_U32, d);
}
