/* zn_lower_async.c: cp.async (shared <- global copies, done at once, so
 * commit_group / wait_group / wait_all have nothing left to wait for),
 * ldmatrix / stmatrix / movmatrix (8x8 b16 matrices spread over the warp:
 * lane l holds row l/4, columns 2(l%4) and 2(l%4)+1, or the transpose), and
 * atomics on f16/bf16/f16x2/bf16x2 (one LLVM atomicrmw per 16-bit element,
 * lanes in ascending order). */
#include "zn_lower.h"

static LLVMValueRef lane_const(zn_lfn *l, LLVMTypeRef t, uint64_t (*f)(int, void *), void *ud)
{
    LLVMValueRef e[ZN_LANES];
    for (int i = 0; i < ZN_LANES; i++)
        e[i] = LLVMConstInt(t, f(i, ud), 0);
    return LLVMConstVector(e, ZN_LANES);
}

static LLVMValueRef shuffle(zn_lfn *l, LLVMValueRef v, const int *from)
{
    LLVMValueRef e[ZN_LANES];
    for (int i = 0; i < ZN_LANES; i++)
        e[i] = LLVMConstInt(l->m->t_i32, (unsigned)from[i], 0);
    return LLVMBuildShuffleVector(l->b, v, LLVMGetPoison(LLVMTypeOf(v)),
                                  LLVMConstVector(e, ZN_LANES), "");
}

static LLVMValueRef addrs(zn_lfn *l, const ptx_opnd *o, ptx_space sp)
{
    return LLVMBuildPtrToInt(l->b, zn_mem_ptrs(l, o, sp), ll_vec(l->m->t_i64), "");
}

/* ---- cp.async ---------------------------------------------------------------- */

/* cp.async.{ca,cg}.shared{::cta}.global [dst], [src], cp-size{, src-size};
 * bytes at and beyond src-size are zero (and not read). */
static void lower_cp_async(zn_lfn *l, const ptx_ins *ins)
{
    zn_lmod *m = l->m;
    LLVMBuilderRef b = l->b;
    uint64_t f = ins->flags;
    if (f & (PTX_F(commit_group) | PTX_F(wait_group) | PTX_F(wait_all)))
        return; /* every copy is already complete */
    const ptx_opnd *o = ins->opnds;
    if (!(f & PTX_F(async)) || ins->nopnds < 3 || o[0].kind != PTX_OPND_ADDR ||
        o[1].kind != PTX_OPND_ADDR || o[2].kind != PTX_OPND_IMM ||
        (o[2].ival != 4 && o[2].ival != 8 && o[2].ival != 16)) {
        zn_lerr_unsupported(l);
        return;
    }
    unsigned nw = (unsigned)o[2].ival / 4;
    LLVMValueRef dst = addrs(l, &o[0], PTX_SPACE_SHARED);
    LLVMValueRef src = addrs(l, &o[1], PTX_SPACE_GLOBAL);
    /* [dst], [src], cp-size{, src-size | ignore-src}{, cache-policy}: with
     * .L2::cache_hint the last operand is the policy */
    unsigned nsz = ins->nopnds - (zn_has_mod(ins, PTX_MOD_L2_cache_hint) ? 1u : 0u);
    LLVMValueRef ssz = NULL;
    if (nsz > 3 && o[3].kind == PTX_OPND_REG && o[3].reg >= 0 &&
        l->f->regs[o[3].reg].type == PTX_T_PRED) { /* ignore-src: all zeros */
        LLVMValueRef p = zn_src(l, &o[3], PTX_T_PRED); /* !p: zn_src negates */
        ssz = LLVMBuildSelect(b, p, LLVMConstNull(ll_vec(m->t_i32)),
                              ll_const_vec(m->t_i32, (uint64_t)o[2].ival), "");
    } else if (nsz > 3 && o[3].kind != PTX_OPND_NONE) {
        ssz = zn_src(l, &o[3], PTX_T_U32);
    }
    /* memcheck: the whole destination; the source only without a src-size
     * (which may read fewer bytes) */
    zn_check_access(l, dst, (unsigned)o[2].ival, PTX_SPACE_SHARED, ZN_CHECK_WRITE);
    if (!ssz)
        zn_check_access(l, src, (unsigned)o[2].ival, PTX_SPACE_GLOBAL, 0);
    LLVMValueRef emask = l->emask, w[4];
    for (unsigned i = 0; i < nw; i++) {
        LLVMValueRef a = LLVMBuildAdd(b, src, ll_const_vec(m->t_i64, 4 * i), "");
        if (!ssz) {
            zn_access_load(l, a, m->t_i32, 1, &w[i]);
            continue;
        }
        /* bytes of this word below src-size: load only when there is one */
        LLVMValueRef have = LLVMBuildSub(b, ssz, ll_const_vec(m->t_i32, 4 * i), "");
        LLVMValueRef any = LLVMBuildICmp(b, LLVMIntSGT, have, LLVMConstNull(ll_vec(m->t_i32)), "");
        l->emask = LLVMBuildAnd(b, emask, any, "");
        zn_access_load(l, a, m->t_i32, 1, &w[i]);
        l->emask = emask;
        LLVMValueRef n = ll_intrin2(l, "llvm.umin", LLVMBuildSelect(b, any, have,
                                    LLVMConstNull(ll_vec(m->t_i32)), ""), ll_const_vec(m->t_i32, 4));
        LLVMValueRef keep = LLVMBuildLShr(b, LLVMBuildTrunc(b, ll_const_vec(m->t_i64, 0xffffffffull),
                                          ll_vec(m->t_i32), ""),
                                          LLVMBuildMul(b, LLVMBuildSub(b, ll_const_vec(m->t_i32, 4), n, ""),
                                                       ll_const_vec(m->t_i32, 8), ""), "");
        keep = LLVMBuildSelect(b, any, keep, LLVMConstNull(ll_vec(m->t_i32)), "");
        w[i] = LLVMBuildAnd(b, LLVMBuildFreeze(b, w[i], ""), keep, "");
    }
    zn_access_store(l, dst, w, nw, 4);
}

/* ---- ldmatrix / stmatrix / movmatrix ----------------------------------------- */

static int nmat(const ptx_ins *ins)
{
    for (unsigned i = 0; i < ins->nmods; i++) {
        if (ins->mods[i] == PTX_MOD_x1) return 1;
        if (ins->mods[i] == PTX_MOD_x2) return 2;
        if (ins->mods[i] == PTX_MOD_x4) return 4;
    }
    return 0;
}

static uint64_t col_bytes(int lane, void *ud)
{
    (void)ud;
    return 4u * (unsigned)(lane % 4);
}

static uint64_t trans_bytes(int lane, void *ud)
{
    (void)ud;
    return 2u * (unsigned)(lane / 4);
}

/* Lane l gives the address of row l%8 of matrix l/8. Matrix j of the
 * fragment: lane l holds (row l/4, cols 2(l%4), +1) -- one 32-bit access;
 * .trans: (rows 2(l%4), +1, col l/4) -- two 16-bit accesses. */
static void lower_ldst_matrix(zn_lfn *l, const ptx_ins *ins)
{
    zn_lmod *m = l->m;
    LLVMBuilderRef b = l->b;
    bool st = ins->op == PTX_OP_stmatrix, trans = zn_has_mod(ins, PTX_MOD_trans);
    int n = nmat(ins);
    const ptx_opnd *frag = &ins->opnds[st ? 1 : 0], *addr = &ins->opnds[st ? 0 : 1];
    if (!n || !zn_has_mod(ins, PTX_MOD_m8n8) || ins->nopnds < 2 || addr->kind != PTX_OPND_ADDR ||
        (frag->kind == PTX_OPND_VEC ? (int)frag->nelems : 1) != n) {
        zn_lerr_unsupported(l);
        return;
    }
    /* without .shared the row addresses are generic (llama.cpp's mma.cuh
     * passes a 64-bit pointer into shared memory), not shared offsets */
    LLVMValueRef rows = addrs(l, addr, ins->space);
    LLVMTypeRef v32 = ll_vec(m->t_i32), v16 = ll_vec(m->t_i16);
    for (int j = 0; j < n; j++) {
        const ptx_opnd *r = frag->kind == PTX_OPND_VEC ? &frag->elems[j] : frag;
        int from[ZN_LANES], f0[ZN_LANES], f1[ZN_LANES];
        for (int x = 0; x < ZN_LANES; x++) {
            from[x] = j * 8 + x / 4;
            f0[x] = j * 8 + 2 * (x % 4);
            f1[x] = f0[x] + 1;
        }
        if (!trans) {
            LLVMValueRef a = LLVMBuildAdd(b, shuffle(l, rows, from),
                                          lane_const(l, m->t_i64, col_bytes, NULL), "");
            if (st) {
                LLVMValueRef v = zn_src(l, r, PTX_T_B32);
                zn_access_store(l, a, &v, 1, 4);
            } else {
                LLVMValueRef v;
                zn_access_load(l, a, m->t_i32, 1, &v);
                zn_dst(l, r, PTX_T_B32, v);
            }
            continue;
        }
        LLVMValueRef off = lane_const(l, m->t_i64, trans_bytes, NULL);
        LLVMValueRef a0 = LLVMBuildAdd(b, shuffle(l, rows, f0), off, "");
        LLVMValueRef a1 = LLVMBuildAdd(b, shuffle(l, rows, f1), off, "");
        if (st) {
            LLVMValueRef v = zn_src(l, r, PTX_T_B32);
            LLVMValueRef lo = LLVMBuildTrunc(b, v, v16, "");
            LLVMValueRef hi = LLVMBuildTrunc(b, LLVMBuildLShr(b, v, ll_const_vec(m->t_i32, 16), ""), v16, "");
            zn_access_store(l, a0, &lo, 1, 2);
            zn_access_store(l, a1, &hi, 1, 2);
        } else {
            LLVMValueRef lo, hi;
            zn_access_load(l, a0, m->t_i16, 1, &lo);
            zn_access_load(l, a1, m->t_i16, 1, &hi);
            LLVMValueRef v = LLVMBuildOr(b, LLVMBuildZExt(b, lo, v32, ""),
                LLVMBuildShl(b, LLVMBuildZExt(b, hi, v32, ""), ll_const_vec(m->t_i32, 16), ""), "");
            zn_dst(l, r, PTX_T_B32, v);
        }
    }
}

/* movmatrix.sync.aligned.m8n8.trans.b16 d, a: element (r, c) of the source
 * is half c%2 of lane 4r + c/2; lane l's half h of d is element
 * (2(l%4) + h, l/4) of the source. */
static void lower_movmatrix(zn_lfn *l, const ptx_ins *ins)
{
    zn_lmod *m = l->m;
    LLVMBuilderRef b = l->b;
    if (!zn_has_mod(ins, PTX_MOD_trans) || ins->nopnds < 2) {
        zn_lerr_unsupported(l);
        return;
    }
    LLVMTypeRef v32 = ll_vec(m->t_i32), v16 = ll_vec(m->t_i16);
    LLVMValueRef a = zn_src(l, &ins->opnds[1], PTX_T_B32);
    LLVMValueRef half[2] = {LLVMBuildTrunc(b, a, v16, ""),
                            LLVMBuildTrunc(b, LLVMBuildLShr(b, a, ll_const_vec(m->t_i32, 16), ""), v16, "")};
    LLVMValueRef out[2];
    for (int h = 0; h < 2; h++) {
        int from[ZN_LANES];
        LLVMValueRef sel[ZN_LANES];
        for (int x = 0; x < ZN_LANES; x++) {
            int r = 2 * (x % 4) + h, c = x / 4;
            from[x] = 4 * r + c / 2;
            sel[x] = LLVMConstInt(m->t_i1, c % 2, 0);
        }
        out[h] = LLVMBuildSelect(b, LLVMConstVector(sel, ZN_LANES), shuffle(l, half[1], from),
                                 shuffle(l, half[0], from), "");
    }
    LLVMValueRef d = LLVMBuildOr(b, LLVMBuildZExt(b, out[0], v32, ""),
        LLVMBuildShl(b, LLVMBuildZExt(b, out[1], v32, ""), ll_const_vec(m->t_i32, 16), ""), "");
    zn_dst(l, &ins->opnds[0], PTX_T_B32, d);
}

/* ---- f16 / bf16 atomics ------------------------------------------------------ */

typedef struct atom16_job {
    LLVMValueRef ptrs, v;      /* <32 x ptr>, <32 x i32> (one or two halves) */
    LLVMTypeRef ht;            /* half or bfloat */
    LLVMAtomicRMWBinOp op;
    unsigned parts;
} atom16_job;

static LLVMValueRef atom16_lane(zn_lfn *l, LLVMValueRef lane, void *ud)
{
    atom16_job *j = ud;
    zn_lmod *m = l->m;
    LLVMBuilderRef b = l->b;
    LLVMValueRef p = ll_lane_elt(l, j->ptrs, lane);
    LLVMValueRef v = ll_lane_elt(l, j->v, lane);
    LLVMValueRef res = LLVMConstInt(m->t_i32, 0, 0);
    for (unsigned k = 0; k < j->parts; k++) {
        LLVMValueRef ix = LLVMConstInt(m->t_i64, 2 * k, 0);
        LLVMValueRef pk = LLVMBuildGEP2(b, m->t_i8, p, &ix, 1, "");
        LLVMValueRef h = LLVMBuildTrunc(b, LLVMBuildLShr(b, v, LLVMConstInt(m->t_i32, 16 * k, 0), ""),
                                        m->t_i16, "");
        LLVMValueRef old = LLVMBuildAtomicRMW(b, j->op, pk, LLVMBuildBitCast(b, h, j->ht, ""),
                                              LLVMAtomicOrderingSequentiallyConsistent, 0);
        old = LLVMBuildZExt(b, LLVMBuildBitCast(b, old, m->t_i16, ""), m->t_i32, "");
        res = LLVMBuildOr(b, res, LLVMBuildShl(b, old, LLVMConstInt(m->t_i32, 16 * k, 0), ""), "");
    }
    return res;
}

bool zn_is_atom16(const ptx_ins *ins)
{
    ptx_type t = ins->type[0];
    return t == PTX_T_F16 || t == PTX_T_BF16 || t == PTX_T_F16X2 || t == PTX_T_BF16X2;
}

/* atom/red.add{.noftz}.{f16,bf16,f16x2,bf16x2}, min/max, exch: the x2
 * forms update each half atomically (the pair is not one atomic access) */
void zn_lower_atom16(zn_lfn *l, const ptx_ins *ins)
{
    zn_lmod *m = l->m;
    ptx_type t = ins->type[0];
    bool red = ins->op == PTX_OP_red;
    unsigned ai = red ? 0 : 1;
    atom16_job j = {.parts = (t == PTX_T_F16X2 || t == PTX_T_BF16X2) ? 2 : 1};
    j.ht = (t == PTX_T_BF16 || t == PTX_T_BF16X2) ? m->t_bf16 : m->t_half;
    switch (ins->subop) {
    case PTX_SUB_ADD: j.op = LLVMAtomicRMWBinOpFAdd; break;
    case PTX_SUB_MIN: j.op = LLVMAtomicRMWBinOpFMin; break;
    case PTX_SUB_MAX: j.op = LLVMAtomicRMWBinOpFMax; break;
    case PTX_SUB_EXCH: j.op = LLVMAtomicRMWBinOpXchg; break;
    default:
        zn_lerr_unsupported(l);
        return;
    }
    if (ins->vec > 1 || ins->nopnds < ai + 2) {
        zn_lerr_unsupported(l);
        return;
    }
    j.ptrs = zn_mem_ptrs(l, &ins->opnds[ai], ins->space);
    j.v = LLVMBuildZExt(l->b, zn_src(l, &ins->opnds[ai + 1], j.parts == 2 ? PTX_T_B32 : PTX_T_B16),
                        ll_vec(m->t_i32), "");
    LLVMValueRef r = ll_lane_loop(l, l->emask, red ? NULL : m->t_i32, atom16_lane, &j);
    if (!red)
        zn_dst(l, &ins->opnds[0], j.parts == 2 ? PTX_T_B32 : PTX_T_B16,
               j.parts == 2 ? r : LLVMBuildTrunc(l->b, r, ll_vec(m->t_i16), ""));
}

void zn_lower_async(zn_lfn *l, const ptx_ins *ins)
{
    switch (ins->op) {
    case PTX_OP_cp: lower_cp_async(l, ins); return;
    case PTX_OP_ldmatrix: case PTX_OP_stmatrix: lower_ldst_matrix(l, ins); return;
    case PTX_OP_movmatrix: lower_movmatrix(l, ins); return;
    default: zn_lerr_unsupported(l);
    }
}
