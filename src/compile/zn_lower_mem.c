/* zn_lower_mem.c: ld/ldu/st in every space (.v2/.v4 too), cvta, isspacep,
 * membar/fence, prefetch.
 *
 * Addresses are per-lane i64 host addresses, except the shared space where
 * an address is an offset from block->shared. Loads and stores go through
 * zn_access_load/store (contiguous, uniform or gather/scatter, chosen at run
 * time); kernel parameters are uniform and read with one scalar load.
 * Accesses with memory-model semantics in global/generic memory are atomic
 * per lane (zn_lower_strong.c). */
#include "zn_lower.h"

/* The per-lane i64 address of an [addr] operand as written (space-relative). */
static LLVMValueRef addr_of(zn_lfn *l, const ptx_opnd *o)
{
    zn_lmod *m = l->m;
    if (o->kind == PTX_OPND_SYM || (o->kind == PTX_OPND_ADDR && o->reg < 0 &&
                                    (o->var || o->sym || o->func)))
        return zn_sym_addr(l, o);
    LLVMValueRef a;
    if (o->kind == PTX_OPND_ADDR && o->reg >= 0)
        a = zn_src(l, &(ptx_opnd){.kind = PTX_OPND_REG, .reg = o->reg, .reg2 = -1},
                   PTX_T_U64);
    else if (o->kind == PTX_OPND_ADDR || o->kind == PTX_OPND_IMM)
        a = ll_const_vec(m->t_i64, 0);
    else if (o->kind == PTX_OPND_REG)
        return zn_src(l, o, PTX_T_U64);
    else {
        zn_lerr(l, "bad address operand");
        return ll_const_vec(m->t_i64, 0);
    }
    if (o->ival)
        a = LLVMBuildAdd(l->b, a, ll_const_vec(m->t_i64, (uint64_t)o->ival), "");
    return a;
}

/* host i64 address vector for an address in `space` */
static LLVMValueRef host_addr(zn_lfn *l, LLVMValueRef a, ptx_space space)
{
    if (space == PTX_SPACE_SHARED)
        a = l->ins && zn_ins_shared_cluster(l->ins)
                ? zn_cluster_host_addr(l, a) /* maybe a peer block's (zn_lower_cluster.c) */
                : LLVMBuildAdd(l->b, zn_shared_base(l), a, "");
    return a;
}

/* host pointer vector for an address in `space` */
static LLVMValueRef host_ptrs(zn_lfn *l, LLVMValueRef a, ptx_space space)
{
    return LLVMBuildIntToPtr(l->b, host_addr(l, a, space), ll_vec(l->m->t_ptr), "");
}

/* kernel parameter read: the same for every lane */
static bool kernel_param(zn_lfn *l, const ptx_ins *ins, const ptx_opnd *o,
                         LLVMValueRef *base)
{
    zn_lmod *m = l->m;
    if (!l->is_entry || o->kind != PTX_OPND_ADDR || o->reg >= 0 ||
        (ins->space != PTX_SPACE_PARAM && ins->space != PTX_SPACE_GENERIC))
        return false;
    uint32_t idx;
    const ptx_var *v;
    if (zn_var_find(l, o, &idx, &v) != ZN_VAR_PARAM)
        return false;
    LLVMValueRef p = ll_load_field(l, m->t_block, l->block, ZN_BLOCK_FIELD_PARAMS, m->t_ptr);
    uint64_t off = zn_param_offset(l->f, idx, NULL) + (uint64_t)o->ival;
    LLVMValueRef ix = LLVMConstInt(m->t_i64, off, 0);
    *base = LLVMBuildGEP2(l->b, m->t_i8, p, &ix, 1, "");
    return true;
}

LLVMValueRef zn_mem_addr(zn_lfn *l, const ptx_opnd *o)
{
    return addr_of(l, o);
}

LLVMValueRef zn_mem_ptrs(zn_lfn *l, const ptx_opnd *o, ptx_space space)
{
    return host_ptrs(l, addr_of(l, o), space);
}

/* membar / fence. A block's warps take turns on one worker thread, and
 * every switch between them is a call or a return, so a CTA-scope fence
 * orders nothing the compiler may not move across: a compiler barrier
 * (CUB's decoupled look-back issues membar.cta per tile; as mfence it was
 * 6% of bench/scan). fence.acq_rel at a wider scope is an acq_rel fence
 * (no instruction on x86); membar.gl/sys, fence.sc and the proxy forms
 * stay sequentially consistent. */
static void lower_fence(zn_lfn *l, const ptx_ins *ins)
{
    for (unsigned i = 0; i < ins->nmods; i++)
        if (ins->mods[i] == PTX_MOD_proxy) {
            LLVMBuildFence(l->b, LLVMAtomicOrderingSequentiallyConsistent, 0, "");
            return;
        }
    if (ins->scope == PTX_SCOPE_CTA) {
        LLVMBuildFence(l->b, LLVMAtomicOrderingSequentiallyConsistent, 1, "");
        return;
    }
    bool acq_rel = ins->op == PTX_OP_fence && ins->sem == PTX_SEM_ACQ_REL;
    LLVMBuildFence(l->b, acq_rel ? LLVMAtomicOrderingAcquireRelease
                                 : LLVMAtomicOrderingSequentiallyConsistent, 0, "");
}

/* A load from one address for all lanes (zn_uniform_load): no lane test,
 * one scalar load per element. The block runs with at least one lane and
 * the load is unguarded, so the access happens on a GPU too. */
/* the i64 host address of a statically uniform [addr] operand */
static LLVMValueRef uniform_addr(zn_lfn *l, const ptx_ins *ins, const ptx_opnd *a)
{
    zn_lmod *m = l->m;
    LLVMValueRef zero = LLVMConstInt(m->t_i32, 0, 0), addr;
    if (a->reg >= 0) {
        addr = zn_load_reg_scalar(l, a->reg);
        if (LLVMTypeOf(addr) != m->t_i64)
            addr = LLVMBuildZExt(l->b, addr, m->t_i64, "");
        if (a->ival)
            addr = LLVMBuildAdd(l->b, addr, LLVMConstInt(m->t_i64, (uint64_t)a->ival, 0), "");
    } else {
        addr = LLVMBuildExtractElement(l->b, zn_sym_addr(l, a), zero, "");
    }
    if (ins->space == PTX_SPACE_SHARED)
        addr = LLVMBuildAdd(l->b, addr, LLVMBuildExtractElement(l->b, zn_shared_base(l), zero, ""), "");
    return addr;
}

static void lower_ld_uniform(zn_lfn *l, const ptx_ins *ins)
{
    zn_lmod *m = l->m;
    ptx_type t = ins->type[0];
    const ptx_opnd *d = &ins->opnds[0], *a = &ins->opnds[1];
    unsigned n = d->kind == PTX_OPND_VEC ? d->nelems : 1;
    unsigned size = ptx_type_size(t);
    LLVMTypeRef et = zn_scalar_type(m, t);
    LLVMValueRef addr = uniform_addr(l, ins, a);
    for (unsigned i = 0; i < n; i++) {
        LLVMValueRef p = LLVMBuildIntToPtr(l->b, LLVMBuildAdd(l->b, addr,
                                           LLVMConstInt(m->t_i64, (uint64_t)i * size, 0), ""),
                                           m->t_ptr, "");
        LLVMValueRef v = LLVMBuildLoad2(l->b, et, p, "ld.uniform");
        LLVMSetAlignment(v, zn_ld_align(l, size));
        const ptx_opnd *di = d->kind == PTX_OPND_VEC ? &d->elems[i] : d;
        zn_dst(l, di, t, ll_splat(l, v));
    }
}

static void lower_ld_one(zn_lfn *l, const ptx_ins *ins);

/* A paired 16-bit load (zn_lower_pairld.c) loads both halves at once; a
 * run of record loads (zn_lower_record.c) all of its words. */
static void lower_ld(zn_lfn *l, const ptx_ins *ins)
{
    ptx_ins wide;
    if (zn_record_head(l, ins)) {
        zn_lower_record(l, ins, lower_ld_one);
        return;
    }
    if (!zn_pair_head(l, ins, &wide)) {
        lower_ld_one(l, ins);
        return;
    }
    l->load_align = 2;
    lower_ld_one(l, &wide);
    l->load_align = 0;
}

static void lower_ld_one(zn_lfn *l, const ptx_ins *ins)
{
    zn_lmod *m = l->m;
    ptx_type t = ins->type[0];
    const ptx_opnd *d = &ins->opnds[0], *a = &ins->opnds[1];
    unsigned n = d->kind == PTX_OPND_VEC ? d->nelems : 1;
    unsigned size = ptx_type_size(t);
    LLVMTypeRef et = zn_scalar_type(m, t);
    LLVMValueRef base;
    if (kernel_param(l, ins, a, &base)) {
        for (unsigned i = 0; i < n; i++) {
            LLVMValueRef ix = LLVMConstInt(m->t_i64, i * size, 0);
            LLVMValueRef p = LLVMBuildGEP2(l->b, m->t_i8, base, &ix, 1, "");
            LLVMValueRef v = LLVMBuildLoad2(l->b, et, p, "");
            LLVMSetAlignment(v, 1);
            const ptx_opnd *di = d->kind == PTX_OPND_VEC ? &d->elems[i] : d;
            zn_dst(l, di, t, ll_splat(l, v));
        }
        return;
    }
    if (l->m->opts->check) /* memcheck (zn_lower_check.c) */
        zn_check_access(l, host_addr(l, addr_of(l, a), ins->space), n * size, ins->space, 0);
    zn_prefetch_ahead(l, ins); /* zn_lower_prefetch.c */
    LLVMValueRef out[8];
    if (n > 8) {
        zn_lerr(l, "vector load of %u elements", n);
        return;
    }
    if (zn_strong_access(ins))
        zn_strong_load(l, ins, host_addr(l, addr_of(l, a), ins->space), et, n, size, out);
    else if (zn_uniform_access(l, ins, NULL)) {
        lower_ld_uniform(l, ins);
        return;
    } else {
        LLVMValueRef ha = host_addr(l, addr_of(l, a), ins->space);
        if (n != 1 || !zn_table_load(l, ins, ha, et, out)) /* zn_lower_table.c */
            zn_access_load(l, ha, et, n, out);
    }
    for (unsigned i = 0; i < n; i++) {
        const ptx_opnd *di = d->kind == PTX_OPND_VEC ? &d->elems[i] : d;
        zn_dst(l, di, t, out[i]);
    }
}

/* A store to one address from all active lanes (zn_uniform_access): the
 * highest active lane's value lands last, as a scatter would leave it. */
static void lower_st_uniform(zn_lfn *l, const ptx_ins *ins, LLVMValueRef *vals, unsigned n,
                             unsigned size)
{
    zn_lmod *m = l->m;
    LLVMValueRef addr = uniform_addr(l, ins, &ins->opnds[0]);
    LLVMTypeRef ct = m->t_i32;
    LLVMValueRef args[2] = {ll_mask_to_i32(l, l->emask), LLVMConstInt(m->t_i1, 0, 0)};
    LLVMValueRef lz = ll_intrin(l, "llvm.ctlz", &ct, 1, args, 2);
    LLVMValueRef last = LLVMBuildAnd(l->b, LLVMBuildSub(l->b, LLVMConstInt(ct, 31, 0), lz, ""),
                                     LLVMConstInt(ct, 31, 0), "");
    for (unsigned i = 0; i < n; i++) {
        if (!vals[i])
            continue;
        LLVMValueRef p = LLVMBuildIntToPtr(l->b, LLVMBuildAdd(l->b, addr,
                                           LLVMConstInt(m->t_i64, (uint64_t)i * size, 0), ""),
                                           m->t_ptr, "");
        LLVMValueRef st = LLVMBuildStore(l->b, ll_extract_dyn(l, vals[i], last), p);
        LLVMSetAlignment(st, size);
    }
}

static void lower_st_one(zn_lfn *l, const ptx_ins *ins)
{
    ptx_type t = ins->type[0];
    const ptx_opnd *a = &ins->opnds[0], *s = &ins->opnds[1];
    unsigned n = s->kind == PTX_OPND_VEC ? s->nelems : 1;
    unsigned size = ptx_type_size(t);
    LLVMValueRef vals[8];
    if (n > 8) {
        zn_lerr(l, "vector store of %u elements", n);
        return;
    }
    for (unsigned i = 0; i < n; i++) {
        const ptx_opnd *si = s->kind == PTX_OPND_VEC ? &s->elems[i] : s;
        vals[i] = si->kind == PTX_OPND_SINK ? NULL : zn_src(l, si, t);
    }
    if (ins->space == PTX_SPACE_SHARED)
        zn_shared_store_stagger_before(l);
    if (l->m->opts->check) /* memcheck (zn_lower_check.c) */
        zn_check_access(l, host_addr(l, addr_of(l, a), ins->space), n * size, ins->space,
                        ZN_CHECK_WRITE);
    /* a store that may go around the cache (zn_lower_stream.c) is not
     * fetched ahead into it in a launch where it does */
    l->stream_now = zn_stream_store(l, ins);
    if (l->stream_now)
        zn_stream_prefetch_store(l, ins);
    else
        zn_prefetch_store_ahead(l, ins); /* zn_lower_prefetch.c */
    if (zn_strong_access(ins))
        zn_strong_store(l, ins, host_addr(l, addr_of(l, a), ins->space), vals, n, size);
    else if (zn_uniform_access(l, ins, NULL))
        lower_st_uniform(l, ins, vals, n, size);
    else
        zn_access_store(l, host_addr(l, addr_of(l, a), ins->space), vals, n, size);
    l->stream_now = false;
    if (ins->space == PTX_SPACE_SHARED)
        zn_shared_store_stagger(l);
}

/* a run of record stores (zn_lower_record.c) at its first */
static void lower_st(zn_lfn *l, const ptx_ins *ins)
{
    if (zn_record_head(l, ins))
        zn_lower_record(l, ins, lower_st_one);
    else
        lower_st_one(l, ins);
}

static void lower_cvta(zn_lfn *l, const ptx_ins *ins)
{
    ptx_type t = ins->type[0];
    LLVMValueRef a = addr_of(l, &ins->opnds[1]);
    if (ins->space == PTX_SPACE_SHARED) {
        /* cvta.shared::cluster: a mapa-tagged address may be a peer's
         * (zn_lower_cluster.c); .to gives an offset in the executing block */
        a = (ins->flags & PTX_F(to)) ? LLVMBuildSub(l->b, a, zn_shared_base(l), "")
            : zn_ins_shared_cluster(ins) ? zn_cluster_host_addr(l, a)
                                         : LLVMBuildAdd(l->b, a, zn_shared_base(l), "");
    }
    /* local, global, const, param: generic and space addresses coincide */
    zn_dst(l, &ins->opnds[0], t, ll_coerce(l, a, zn_vec_type(l->m, t), false));
}

static void lower_isspacep(zn_lfn *l, const ptx_ins *ins)
{
    zn_lmod *m = l->m;
    LLVMValueRef a = addr_of(l, &ins->opnds[1]);
    LLVMValueRef size = LLVMBuildZExt(l->b, zn_sreg(l, PTX_SREG_TOTAL_SMEM_SIZE),
                                      ll_vec(m->t_i64), "");
    LLVMValueRef in_sh = LLVMBuildICmp(l->b, LLVMIntULT,
                                       LLVMBuildSub(l->b, a, zn_shared_base(l), ""), size, "");
    LLVMValueRef r;
    switch (ins->space) {
    case PTX_SPACE_SHARED: r = in_sh; break;
    case PTX_SPACE_GLOBAL: r = LLVMBuildNot(l->b, in_sh, ""); break;
    default: r = ll_const_vec(m->t_i1, 0); break;
    }
    zn_dst(l, &ins->opnds[0], PTX_T_PRED, r);
}

void zn_lower_mem(zn_lfn *l, const ptx_ins *ins)
{
    switch (ins->op) {
    case PTX_OP_ld: case PTX_OP_ldu:
        lower_ld(l, ins);
        return;
    case PTX_OP_st:
        lower_st(l, ins);
        return;
    case PTX_OP_cvta:
        lower_cvta(l, ins);
        return;
    case PTX_OP_isspacep:
        lower_isspacep(l, ins);
        return;
    case PTX_OP_membar: case PTX_OP_fence:
        lower_fence(l, ins);
        return;
    case PTX_OP_prefetch: case PTX_OP_prefetchu:
        zn_lower_prefetch(l, ins); /* zn_lower_prefetch.c */
        return;
    default:
        zn_lerr_unsupported(l);
    }
}
