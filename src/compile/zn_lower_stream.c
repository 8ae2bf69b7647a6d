/* zn_lower_stream.c: non-temporal stores where a kernel streams its output
 * past the last-level cache (issue #9).
 *
 * A warp's contiguous global store (zn_lower_access.c's store_contig: 32
 * lanes, one vector) reads each line before it writes it (write-allocate)
 * and writes it back later: a STREAM triad moves 16 bytes per element for
 * its 12. A non-temporal store (vmovntps) writes whole lines around the
 * cache. Measured in C on the Zen 4 host of stop 44 (2 threads): triad on
 * 2^24 floats 5.65 -> 4.40 ms, on 2^22 1.02 -> 0.70 ms; but on 2^20 (12
 * MiB in all, inside the 32 MiB L3) 0.081 -> 0.148 ms, and an in-place
 * saxpy (y read, then written) 3.9 -> 4.6 ms: the lines were in the cache
 * already, and the store evicts them. So a store goes around the cache
 * when, at run time,
 *   - the launch writes at least the last-level cache's size through it
 *     (grid threads x the store's bytes per thread: a grid-stride loop's
 *     small grid never qualifies, which is only a missed chance),
 *   - all 32 lanes store and lane 0's address is 64-byte aligned (whole
 *     lines: the warp's store is 64 bytes or a multiple),
 * and, planned on the PTX, the kernel loads nothing through a pointer with
 * the same root (the 64-bit kernel parameter the address is computed
 * from; a root not found counts as all of them), so that an in-place
 * update keeps its cached lines. A wrong root only costs speed: a
 * thread's own loads see its non-temporal stores.
 *
 * Ordering: non-temporal stores are weakly ordered; another core may see
 * them after the thread's later stores. A block's warps share one thread,
 * so its barriers need nothing; before every instruction through which
 * another thread may order its reads after this one's writes (atomics,
 * fences, membar, strong or volatile accesses, calls, mbarriers, async
 * copies, cluster instructions) a kernel with such stores has an sfence
 * (CUB's decoupled look-back publishes each tile that way), and the
 * executor ends each run of blocks with one (zn_exec_block.c) before it
 * reports them done. x86 only (not AMDGPU or AArch64); not under
 * memcheck/racecheck.
 *
 * ZINC_NO_STREAM_STORES=1 turns it off; ZINC_STREAM_MIN_BYTES replaces
 * the cache size in the launch test (0: every launch; tests). Both are in
 * the kernel cache key (zn_jit_cache.c). */
#include "zn_lower.h"
#include "zn_pipeline.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* a register's pointer root: a kernel parameter (>= 0) or one of these */
enum { ROOT_NONE = -1, ROOT_MANY = -2, ROOT_BUSY = -3, ROOT_UNSEEN = -4 };
#define ROOT_DEPTH 32           /* definitions followed from one access */
#define LLC_DEFAULT ((uint64_t)32 << 20)

bool zn_stream_stores_disabled(void)
{
    const char *s = getenv("ZINC_NO_STREAM_STORES");
    return s && *s && *s != '0';
}

/* a size as sysfs writes it: "32768K", "1M", bytes */
static uint64_t parse_size(const char *s)
{
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (*end == 'K' || *end == 'k')
        v <<= 10;
    else if (*end == 'M' || *end == 'm')
        v <<= 20;
    return v;
}

/* the largest cache level the CPU running us reports in sysfs: the L3 of
 * its core complex (sysconf's _SC_LEVEL3_CACHE_SIZE said 320 MiB for the
 * 32 MiB of a Zen 4 VM, the whole socket's), else 32 MiB */
static uint64_t llc_from_sysfs(void)
{
    unsigned best_level = 0;
    uint64_t best = 0;
    for (unsigned i = 0; i < 8; i++) {
        char path[96], buf[32];
        unsigned level = 0;
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%u/level", i);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        if (fscanf(f, "%u", &level) != 1)
            level = 0;
        fclose(f);
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%u/size", i);
        if (level <= best_level || !(f = fopen(path, "r")))
            continue;
        if (fgets(buf, sizeof buf, f) && parse_size(buf)) {
            best_level = level;
            best = parse_size(buf);
        }
        fclose(f);
    }
    return best;
}

static uint64_t llc_bytes(void)
{
    /* compile threads may ask at once: each finds the same */
    static _Atomic uint64_t llc;
    uint64_t n = atomic_load_explicit(&llc, memory_order_relaxed);
    if (!n) {
        n = llc_from_sysfs();
        n = n ? n : LLC_DEFAULT;
        atomic_store_explicit(&llc, n, memory_order_relaxed);
    }
    return n;
}

/* what a launch must write through a store for it to go around the cache:
 * ZINC_STREAM_MIN_BYTES (tests: 0 streams every launch), else the LLC */
uint64_t zn_stream_min_bytes(void)
{
    const char *s = getenv("ZINC_STREAM_MIN_BYTES");
    if (s && *s)
        return strtoull(s, NULL, 0);
    return llc_bytes();
}

/* instructions that order memory between threads or hand it to another
 * (a call's callee may do either; an async copy or a cluster instruction
 * reaches memory through the runtime): the non-temporal stores before
 * them must be visible first */
static bool orders_memory(const ptx_ins *ins)
{
    switch (ins->op) {
    case PTX_OP_atom: case PTX_OP_red: case PTX_OP_fence: case PTX_OP_membar:
    case PTX_OP_call: case PTX_OP_cp: case PTX_OP_mbarrier: case PTX_OP_griddepcontrol:
    case PTX_OP_mapa: case PTX_OP_getctarank: case PTX_OP_tensormap: case PTX_OP_sust:
        return true;
    case PTX_OP_barrier: case PTX_OP_bar:
        /* bar.sync of the block's warps orders nothing here (they share
         * one thread); barrier.cluster does */
        return ins->scope == PTX_SCOPE_CLUSTER;
    case PTX_OP_ld: case PTX_OP_ldu: case PTX_OP_st:
        return ins->sem != PTX_SEM_NONE && ins->sem != PTX_SEM_WEAK;
    default:
        return false;
    }
}

typedef struct root_ctx {
    zn_lfn *l;
    int32_t *root;              /* per register: ROOT_* or a parameter */
    uint32_t *def_start, *defs; /* CSR of each register's defining instructions */
    unsigned depth;
} root_ctx;

static int32_t combine(int32_t a, int32_t b)
{
    if (a == ROOT_NONE)
        return b;
    if (b == ROOT_NONE || a == b)
        return a;
    return ROOT_MANY;
}

static int32_t reg_root(root_ctx *c, int32_t r);

/* the root of a source operand */
static int32_t opnd_root(root_ctx *c, const ptx_opnd *o)
{
    switch (o->kind) {
    case PTX_OPND_REG: return reg_root(c, o->reg);
    case PTX_OPND_SYM: return ROOT_MANY;    /* a variable's address */
    default: return ROOT_NONE;              /* immediates, special registers */
    }
}

/* a 64-bit kernel parameter (or a field of one) */
static int32_t param_root(root_ctx *c, const ptx_ins *ins)
{
    uint32_t idx;
    const ptx_var *v;
    if (ptx_type_size(ins->type[0]) != 8 || ins->vec > 1 ||
        zn_var_find(c->l, &ins->opnds[1], &idx, &v) != ZN_VAR_PARAM)
        return ROOT_NONE;   /* an integer */
    return (int32_t)((idx << 12) | ((uint64_t)ins->opnds[1].ival & 0xfff));
}

/* the root of what instruction ins writes: pointers flow through moves,
 * conversions and additive or bitwise arithmetic (a mad's addend); a
 * product, shift or comparison is an offset or a flag */
static int32_t def_root(root_ctx *c, const ptx_ins *ins)
{
    if (zn_is_kernel_param_load(c->l, ins))
        return param_root(c, ins);
    switch (ins->op) {
    case PTX_OP_ld: case PTX_OP_ldu:
        /* a pointer read from memory could be any */
        return ptx_type_size(ins->type[0]) == 8 ? ROOT_MANY : ROOT_NONE;
    case PTX_OP_mad: case PTX_OP_mad24:
        return ins->nopnds == 4 ? opnd_root(c, &ins->opnds[3]) : ROOT_MANY;
    case PTX_OP_mov: case PTX_OP_cvta: case PTX_OP_cvt: case PTX_OP_add: case PTX_OP_sub:
    case PTX_OP_and: case PTX_OP_or: case PTX_OP_xor: case PTX_OP_selp:
    case PTX_OP_min: case PTX_OP_max: {
        int32_t r = ROOT_NONE;
        for (unsigned i = 1; i < ins->nopnds; i++)
            r = combine(r, opnd_root(c, &ins->opnds[i]));
        return r;
    }
    default:
        return ROOT_NONE;
    }
}

static int32_t reg_root(root_ctx *c, int32_t r)
{
    if (r < 0)
        return ROOT_NONE;
    int32_t s = c->root[r];
    if (s == ROOT_BUSY)
        return ROOT_NONE;   /* a loop's step: the other definitions decide */
    if (s != ROOT_UNSEEN)
        return s;
    if (c->depth >= ROOT_DEPTH)
        return ROOT_MANY;
    c->root[r] = ROOT_BUSY;
    c->depth++;
    int32_t out = ROOT_NONE;
    for (uint32_t k = c->def_start[r]; k < c->def_start[r + 1] && out != ROOT_MANY; k++)
        out = combine(out, def_root(c, &c->l->f->ins[c->defs[k]]));
    c->depth--;
    c->root[r] = out;
    return out;
}

/* the root of an [addr] operand */
static int32_t addr_root(root_ctx *c, const ptx_opnd *a)
{
    if (a->kind != PTX_OPND_ADDR)
        return ROOT_MANY;
    return a->reg >= 0 ? reg_root(c, a->reg) : ROOT_MANY;
}

/* a global load or store of the plan's concern */
static bool global_access(const ptx_ins *ins)
{
    return ins->space == PTX_SPACE_GLOBAL || ins->space == PTX_SPACE_GENERIC;
}

/* the bytes a thread stores with st */
static uint64_t store_bytes(const ptx_ins *ins)
{
    const ptx_opnd *s = &ins->opnds[1];
    return (uint64_t)(s->kind == PTX_OPND_VEC ? s->nelems : 1) * ptx_type_size(ins->type[0]);
}

/* a store whose warp writes whole lines: st.global of 1, 2, 4 or 8
 * elements of 2, 4 or 8 bytes with every element given */
static bool line_store(const ptx_ins *ins)
{
    if (ins->op != PTX_OP_st || ins->space != PTX_SPACE_GLOBAL || ins->nopnds < 2 ||
        orders_memory(ins))
        return false;
    const ptx_opnd *s = &ins->opnds[1];
    bool vec = s->kind == PTX_OPND_VEC;
    if ((vec && s->nelems > 8) || ptx_type_size(ins->type[0]) < 2 ||
        (ZN_LANES * store_bytes(ins)) % 64)
        return false;
    for (unsigned i = 0; vec && i < s->nelems; i++)
        if (s->elems[i].kind == PTX_OPND_SINK)
            return false;
    return true;
}

static bool plan_wanted(const zn_lfn *l)
{
    const zn_lmod *m = l->m;
    if (!l->is_entry || m->opts->check || zn_stream_stores_disabled() ||
        !zn_target_has(m, "sse2"))
        return false;
    const ptx_func *f = l->f;
    for (uint32_t i = 0; i < f->nins; i++)
        if (line_store(&f->ins[i]))
            return true;
    return false;
}

void zn_stream_plan(zn_lfn *l)
{
    if (!plan_wanted(l))
        return;
    const ptx_func *f = l->f;
    root_ctx c = {.l = l};
    c.root = malloc(f->nregs * sizeof *c.root);
    int32_t *loaded = malloc(f->nins * sizeof *loaded);
    uint32_t nloaded = 0;
    if (!c.root || !loaded || !zn_reg_defs(f, &c.def_start, &c.defs))
        goto out;
    for (uint32_t r = 0; r < f->nregs; r++)
        c.root[r] = ROOT_UNSEEN;
    /* the roots the kernel loads through */
    for (uint32_t i = 0; i < f->nins; i++) {
        const ptx_ins *ins = &f->ins[i];
        bool load = (ins->op == PTX_OP_ld || ins->op == PTX_OP_ldu) && ins->nopnds >= 2 &&
                    global_access(ins);
        if (!load && ins->op != PTX_OP_tex && ins->op != PTX_OP_tld4 && ins->op != PTX_OP_suld)
            continue;
        int32_t r = load ? addr_root(&c, &ins->opnds[1]) : ROOT_MANY;
        if (r == ROOT_MANY)
            goto out;       /* it may read anything */
        if (r >= 0)
            loaded[nloaded++] = r;
    }
    for (uint32_t i = 0; i < f->nins; i++) {
        const ptx_ins *ins = &f->ins[i];
        if (!line_store(ins))
            continue;
        int32_t r = addr_root(&c, &ins->opnds[0]);
        bool read = r < 0;
        for (uint32_t k = 0; k < nloaded && !read; k++)
            read = loaded[k] == r;
        if (read)
            continue;
        if (!l->stream_st && !(l->stream_st = calloc(f->nins, 1)))
            goto out;
        l->stream_st[i] = 1;
        uint64_t bytes = store_bytes(ins);
        if (!l->stream_min || bytes < l->stream_min)
            l->stream_min = bytes;
    }
out:
    free(c.root);
    free(c.def_start);
    free(c.defs);
    free(loaded);
}

/* i1: the launch writes at least the threshold through `bytes` per thread */
static LLVMValueRef stream_launch(zn_lfn *l, uint64_t bytes)
{
    zn_lmod *m = l->m;
    LLVMValueRef n = LLVMConstInt(m->t_i64, bytes, 0), zero = LLVMConstInt(m->t_i32, 0, 0);
    static const ptx_sreg dims[6] = {PTX_SREG_NCTAID_X, PTX_SREG_NCTAID_Y, PTX_SREG_NCTAID_Z,
                                     PTX_SREG_NTID_X, PTX_SREG_NTID_Y, PTX_SREG_NTID_Z};
    for (unsigned d = 0; d < 6; d++) {
        LLVMValueRef v = LLVMBuildExtractElement(l->b, zn_sreg(l, dims[d]), zero, "");
        n = LLVMBuildMul(l->b, n, LLVMBuildZExt(l->b, v, m->t_i64, ""), "");
    }
    return LLVMBuildICmp(l->b, LLVMIntUGE, n, LLVMConstInt(m->t_i64, zn_stream_min_bytes(), 0),
                         "streams");
}

/* Starts a block run only in launches that stream `bytes` per thread
 * (`when` true) or only in the others; returns the block to go on in,
 * which the caller branches to and moves to after that code. */
static LLVMBasicBlockRef launch_only(zn_lfn *l, uint64_t bytes, bool when, const char *name)
{
    LLVMBasicBlockRef bb_do = LLVMAppendBasicBlockInContext(l->m->ctx, l->fn, name),
        bb_go = LLVMAppendBasicBlockInContext(l->m->ctx, l->fn, "stream.go");
    LLVMValueRef c = stream_launch(l, bytes);
    LLVMBuildCondBr(l->b, c, when ? bb_do : bb_go, when ? bb_go : bb_do);
    LLVMPositionBuilderAtEnd(l->b, bb_do);
    return bb_go;
}

static void go_on(zn_lfn *l, LLVMBasicBlockRef bb_go)
{
    LLVMBuildBr(l->b, bb_go);
    LLVMPositionBuilderAtEnd(l->b, bb_go);
}

/* the fence only in launches where a store may stream: an atomic-heavy
 * kernel with a small grid pays one uniform branch, not a fence */
void zn_stream_fence(zn_lfn *l, const ptx_ins *ins)
{
    if (!l->stream_st || !orders_memory(ins))
        return;
    LLVMBasicBlockRef go = launch_only(l, l->stream_min, true, "sfence");
    ll_intrin(l, "llvm.x86.sse.sfence", NULL, 0, NULL, 0);
    go_on(l, go);
}

/* ins' write prefetch (zn_lower_prefetch.c) only in launches where its
 * lines stay cached */
void zn_stream_prefetch_store(zn_lfn *l, const ptx_ins *ins)
{
    LLVMBasicBlockRef go = launch_only(l, store_bytes(ins), false, "st.pf");
    zn_prefetch_store_ahead(l, ins);
    go_on(l, go);
}

bool zn_stream_store(const zn_lfn *l, const ptx_ins *ins)
{
    return l->stream_st && ins >= l->f->ins && ins < l->f->ins + l->f->nins &&
           l->stream_st[ins - l->f->ins];
}

LLVMValueRef zn_stream_test(zn_lfn *l, LLVMValueRef mask, LLVMValueRef base, uint64_t bytes)
{
    zn_lmod *m = l->m;
    LLVMValueRef full = LLVMBuildICmp(l->b, LLVMIntEQ, ll_mask_to_i32(l, mask),
                                      LLVMConstInt(m->t_i32, UINT32_MAX, 0), "");
    LLVMValueRef line = LLVMBuildICmp(l->b, LLVMIntEQ,
        LLVMBuildAnd(l->b, base, LLVMConstInt(m->t_i64, 63, 0), ""),
        LLVMConstInt(m->t_i64, 0, 0), "");
    return LLVMBuildAnd(l->b, LLVMBuildAnd(l->b, full, line, ""),
                        stream_launch(l, bytes), "nt");
}

void zn_stream_store_vec(zn_lfn *l, LLVMValueRef v, LLVMValueRef ptr)
{
    LLVMContextRef ctx = l->m->ctx;
    LLVMValueRef st = LLVMBuildStore(l->b, v, ptr);
    LLVMSetAlignment(st, 64);
    LLVMMetadataRef one = LLVMValueAsMetadata(LLVMConstInt(l->m->t_i32, 1, 0));
    LLVMSetMetadata(st, LLVMGetMDKindIDInContext(ctx, "nontemporal", 11),
                    LLVMMetadataAsValue(ctx, LLVMMDNodeInContext2(ctx, &one, 1)));
}
