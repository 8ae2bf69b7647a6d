/* zn_lower_strong.c: ld/st with memory-model semantics (.relaxed .acquire
 * .release .acq_rel .sc .volatile) in the global and generic spaces.
 *
 * Other blocks run on other host threads at the same time, so these
 * accesses are how blocks talk to each other (CUB's decoupled look-back
 * publishes a tile's status and value in one 8-byte .v2.u32 store; grid
 * syncs spin on .volatile/.acquire loads). Plain vector accesses would be
 * split per element (another thread could see half a write) and could be
 * hoisted out of a spin loop. Here each active lane does one LLVM atomic
 * access of the whole vector when it is 1, 2, 4 or 8 bytes (naturally
 * aligned, single-copy atomic as on a GPU), element by element otherwise,
 * in ascending lane order. Shared and local memory need none of this: a
 * block's warps are fibers of one host thread. */
#include "zn_lower.h"

bool zn_strong_access(const ptx_ins *ins)
{
    if (ins->sem == PTX_SEM_NONE || ins->sem == PTX_SEM_WEAK)
        return false;
    return ins->space == PTX_SPACE_GLOBAL || ins->space == PTX_SPACE_GENERIC;
}

static LLVMAtomicOrdering ordering(const ptx_ins *ins, bool store)
{
    switch (ins->sem) {
    case PTX_SEM_ACQUIRE:
        return store ? LLVMAtomicOrderingMonotonic : LLVMAtomicOrderingAcquire;
    case PTX_SEM_RELEASE:
        return store ? LLVMAtomicOrderingRelease : LLVMAtomicOrderingMonotonic;
    case PTX_SEM_ACQ_REL:
        return store ? LLVMAtomicOrderingRelease : LLVMAtomicOrderingAcquire;
    case PTX_SEM_SC:
        return LLVMAtomicOrderingSequentiallyConsistent;
    default:
        return LLVMAtomicOrderingMonotonic;
    }
}

typedef struct strong_ctx {
    const ptx_ins *ins;
    LLVMValueRef addr;      /* <32 x i64> host addresses */
    LLVMValueRef val;       /* <32 x iN> for stores */
    LLVMTypeRef it;         /* iN, N = bytes * 8 */
    unsigned bytes;
} strong_ctx;

static LLVMValueRef lane_ptr(zn_lfn *l, strong_ctx *c, LLVMValueRef lane)
{
    LLVMValueRef a = ll_lane_elt(l, c->addr, lane);
    return LLVMBuildIntToPtr(l->b, a, l->m->t_ptr, "");
}

static void mark(const strong_ctx *c, LLVMValueRef access, bool store)
{
    LLVMSetAlignment(access, c->bytes);
    LLVMSetOrdering(access, ordering(c->ins, store));
    if (c->ins->sem == PTX_SEM_VOLATILE)
        LLVMSetVolatile(access, 1);
}

static LLVMValueRef load_lane(zn_lfn *l, LLVMValueRef lane, void *ud)
{
    strong_ctx *c = ud;
    LLVMValueRef v = LLVMBuildLoad2(l->b, c->it, lane_ptr(l, c, lane), "ld.strong");
    mark(c, v, false);
    return v;
}

static LLVMValueRef store_lane(zn_lfn *l, LLVMValueRef lane, void *ud)
{
    strong_ctx *c = ud;
    LLVMValueRef v = ll_lane_elt(l, c->val, lane);
    mark(c, LLVMBuildStore(l->b, v, lane_ptr(l, c, lane)), true);
    return NULL;
}

/* element i of a packed <32 x iN> as <32 x et> */
static LLVMValueRef unpack(zn_lfn *l, LLVMValueRef packed, LLVMTypeRef et, unsigned size,
                           unsigned i)
{
    LLVMTypeRef it = LLVMIntTypeInContext(l->m->ctx, size * 8);
    LLVMValueRef sh = LLVMBuildLShr(l->b, packed,
                                    ll_const_vec(ll_elem(LLVMTypeOf(packed)), (uint64_t)i * size * 8), "");
    LLVMValueRef v = LLVMBuildTrunc(l->b, sh, ll_vec(it), "");
    return LLVMBuildBitCast(l->b, v, ll_vec(et), "");
}

static LLVMValueRef offset_addr(zn_lfn *l, LLVMValueRef a, uint64_t off)
{
    return off ? LLVMBuildAdd(l->b, a, ll_const_vec(l->m->t_i64, off), "") : a;
}

/* In a cooperative launch (the block's grid workspace is set) every strong
 * load first calls rt->spin: grid.sync() polls with such loads while the
 * blocks it waits for are threads that need a core (exec/zn_exec_coop.c);
 * when it says the grid has failed, the warp returns that status.
 * Elsewhere it costs a load and a predictable branch. */
static void spin_hint(zn_lfn *l)
{
    zn_lmod *m = l->m;
    LLVMValueRef ws = ll_load_field(l, m->t_block, l->block, ZN_BLOCK_FIELD_GRID_WS, m->t_ptr);
    LLVMBasicBlockRef call = LLVMAppendBasicBlockInContext(m->ctx, l->fn, "coop.spin");
    LLVMBasicBlockRef cont = LLVMAppendBasicBlockInContext(m->ctx, l->fn, "coop.cont");
    LLVMBuildCondBr(l->b, LLVMBuildIsNotNull(l->b, ws, ""), call, cont);
    LLVMPositionBuilderAtEnd(l->b, call);
    LLVMValueRef w = l->w;
    LLVMValueRef st = LLVMBuildCall2(l->b, LLVMFunctionType(m->t_i32, &m->t_ptr, 1, 0),
                                     ll_rt_fn(l, ZN_RT_SPIN), &w, 1, "spin");
    /* nonzero: the grid failed elsewhere, the barrier cannot complete */
    LLVMBasicBlockRef dead = LLVMAppendBasicBlockInContext(m->ctx, l->fn, "coop.dead");
    LLVMBuildCondBr(l->b, LLVMBuildICmp(l->b, LLVMIntNE, st, LLVMConstInt(m->t_i32, 0, 0), ""),
                    dead, cont);
    LLVMPositionBuilderAtEnd(l->b, dead);
    zn_return_status(l, st);
    LLVMPositionBuilderAtEnd(l->b, cont);
}

void zn_strong_load(zn_lfn *l, const ptx_ins *ins, LLVMValueRef a, LLVMTypeRef et,
                    unsigned n, unsigned size, LLVMValueRef *out)
{
    unsigned bytes = n * size;
    if (bytes > 8) {    /* no wider single-copy atomic access: per element */
        for (unsigned i = 0; i < n; i++)
            zn_strong_load(l, ins, offset_addr(l, a, (uint64_t)i * size), et, 1, size, &out[i]);
        return;
    }
    spin_hint(l);
    strong_ctx c = {ins, a, NULL, LLVMIntTypeInContext(l->m->ctx, bytes * 8), bytes};
    LLVMValueRef packed = ll_lane_loop(l, l->emask, c.it, load_lane, &c);
    for (unsigned i = 0; i < n; i++)
        out[i] = unpack(l, packed, et, size, i);
}

void zn_strong_store(zn_lfn *l, const ptx_ins *ins, LLVMValueRef a, LLVMValueRef *vals,
                     unsigned n, unsigned size)
{
    unsigned bytes = n * size;
    bool sink = false;
    for (unsigned i = 0; i < n; i++)
        sink |= !vals[i];
    if (bytes > 8 || sink) {    /* per element; a sink element is not written */
        for (unsigned i = 0; i < n; i++)
            if (vals[i])
                zn_strong_store(l, ins, offset_addr(l, a, (uint64_t)i * size), &vals[i], 1, size);
        return;
    }
    LLVMTypeRef it = LLVMIntTypeInContext(l->m->ctx, bytes * 8);
    LLVMTypeRef et_int = LLVMIntTypeInContext(l->m->ctx, size * 8);
    LLVMValueRef packed = ll_const_vec(it, 0);
    for (unsigned i = 0; i < n; i++) {
        LLVMValueRef v = LLVMBuildBitCast(l->b, vals[i], ll_vec(et_int), "");
        v = LLVMBuildZExt(l->b, v, ll_vec(it), "");
        if (i)
            v = LLVMBuildShl(l->b, v, ll_const_vec(it, (uint64_t)i * size * 8), "");
        packed = LLVMBuildOr(l->b, packed, v, "");
    }
    strong_ctx c = {ins, a, packed, it, bytes};
    ll_lane_loop(l, l->emask, NULL, store_lane, &c);
}
