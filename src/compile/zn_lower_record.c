/* zn_lower_record.c: runs of 32- or 64-bit shared or global loads or
 * stores of one address register's consecutive items become per-lane
 * 16-byte accesses and in-register transposes.
 *
 * CUB's block loads and stores (BLOCK_LOAD_WARP_TRANSPOSE in its scan and
 * radix sort) move a thread's K items between registers and shared memory
 * at `sh[lane * K + i]`, i = 0 .. K-1: K ld/st.shared.u32 at offsets 0, 4,
 * .. 4(K-1) from one register whose lanes are 4K bytes apart. One by one,
 * each is a gather or scatter of 32 lanes (zn_lower_access.c's strided
 * path), and the hosts of this machine kind take 1-1.5 cycles per gathered
 * or scattered element. Taken together they are K contiguous items per
 * lane: per 4 items, a 4 x 4 transpose of 32-bit elements within each
 * 128-bit chunk (8 unpacks per 16 lanes) and one 16-byte access per lane
 * (64-bit items: per 2, one unpack pair). A C model of the scan's 15 items
 * on the Zen 4 host: 30 scatters 198-224 ns per warp, the record stores
 * 51; 30 gathers 177 ns, the record loads 40.
 *
 * The run (zn_record_plan, run_from): instructions of one PTX block, all
 * ld or all st, unguarded, no memory-model qualifier, one 4- or 8-byte
 * type, not vectors, in .shared (not ::cluster) or .global (a thread's
 * items in place: the same bytes as the accesses one by one, so the same
 * faults), at [%a + c + size * j] for j = 0 .. K-1 with one %a, K items
 * filling a 16-byte chunk at least; loads into K distinct registers other
 * than %a; at most REC_GAP pure instructions between two of them (nvcc
 * computes each value next to its store), which run_from checks can let
 * the run happen at its head: the first load, the last store. For stores,
 * the affine analysis must prove at the head lane l at base + l * s with
 * |s| >= size * K, so that no two lanes' records overlap and the order of
 * the stores cannot matter; loads never conflict and read each lane's
 * record at its own address where nothing is proven. At run time the
 * record path needs the analysis' facts and every lane active; the
 * instructions one by one are the fall-back (stores with others between:
 * plain scatters). When K is not a multiple of a chunk's items the last
 * group overlaps the one before it (loads read items again, stores write
 * the same values again).
 * Not under memcheck or racecheck, which check each access.
 * ZINC_NO_RECORDS=1 turns it off (A/B; not in the kernel cache key). */
#include "zn_lower.h"
#include "util/zn_log.h"

#include <stdlib.h>

#define REC_MAX 64  /* instructions in one run */
#define REC_GAP 4   /* pure instructions between two of them */

/* l->rec_act[i]: REC_NONE, REC_DROP, or at the run's head (its first
 * load, its last store) REC_HEAD + the index of its first instruction */
enum { REC_NONE, REC_DROP, REC_HEAD };

/* an instruction that may be part of a run; its address operand */
static const ptx_opnd *member(const ptx_ins *x)
{
    if ((x->op != PTX_OP_ld && x->op != PTX_OP_st) || x->guard_reg >= 0 || x->vec > 1 ||
        x->nopnds != 2 || (ptx_type_size(x->type[0]) != 4 && ptx_type_size(x->type[0]) != 8) ||
        (x->space != PTX_SPACE_SHARED && x->space != PTX_SPACE_GLOBAL) || zn_strong_access(x) ||
        zn_ins_shared_cluster(x))
        return NULL;
    const ptx_opnd *a = &x->opnds[x->op == PTX_OP_st ? 0 : 1];
    const ptx_opnd *d = &x->opnds[x->op == PTX_OP_st ? 1 : 0];
    if (a->kind != PTX_OPND_ADDR || a->reg < 0 || a->var || a->sym || a->func || a->nelems ||
        d->kind != PTX_OPND_REG || d->reg2 >= 0)
        return NULL;
    return a;
}

/* The run from instruction i: K, its instructions' indices in idx (K < 2:
 * none). Between two of them up to REC_GAP pure instructions may stand
 * that leave %a alone. A run of stores happens at its last instruction,
 * so those in between must not write the register an earlier store
 * stored; a run of loads happens at its first, so those in between must
 * not read or write a later load's destination (the run ends before
 * such a one). */
static uint32_t run_from(const zn_lfn *l, uint32_t i, uint32_t *idx)
{
    const ptx_func *f = l->f;
    const ptx_ins *h = &f->ins[i];
    const ptx_opnd *ha = member(h);
    bool load = h->op == PTX_OP_ld;
    if (!ha || (load && h->opnds[0].reg == ha->reg))
        return 1;
    int32_t data[REC_MAX];  /* the loads' destinations, the stores' sources */
    int64_t size = ptx_type_size(h->type[0]);
    uint32_t k = 0;
    for (uint32_t p = i; k < REC_MAX && p < f->nins && l->block_of_ins[p] == l->block_of_ins[i];
         p++) {
        const ptx_ins *x = &f->ins[p];
        const ptx_opnd *a = member(x);
        if (a && x->op == h->op && x->type[0] == h->type[0] && a->reg == ha->reg &&
            a->ival == ha->ival + size * k && !(l->pair_act && l->pair_act[p] != 0)) {
            int32_t r = x->opnds[load ? 0 : 1].reg;
            zn_reg_hit s = {data, k, false};
            zn_reg_hit_cb(r, &s);
            if (load && (s.hit || r == ha->reg))
                break;
            idx[k] = p;
            data[k++] = r;
            continue;
        }
        if (!zn_op_is_pure(x->op) || p - idx[k - 1] > REC_GAP ||
            zn_ins_touches(x, &ha->reg, 1, false) || (!load && zn_ins_touches(x, data, k, false)))
            break;
    }
    if (load)   /* what stands between loads j and j + 1 must not touch later ones' registers */
        for (uint32_t j = 0; j + 1 < k; j++)
            for (uint32_t p = idx[j] + 1; p < idx[j + 1]; p++)
                if (zn_ins_touches(&f->ins[p], data + j + 1, k - j - 1, true)) {
                    k = j + 1;
                    break;
                }
    return k;
}

bool zn_records_disabled(void)
{
    const char *s = getenv("ZINC_NO_RECORDS");
    return s && *s && *s != '0';
}

void zn_record_plan(zn_lfn *l)
{
    const ptx_func *f = l->f;
    l->rec_act = NULL;
    if (zn_records_disabled() || l->m->opts->check)
        return;
    uint32_t idx[REC_MAX];
    for (uint32_t i = 0; i < f->nins; i++) {
        if (l->rec_act && l->rec_act[i] != REC_NONE)
            continue;   /* in a run already */
        uint32_t k = run_from(l, i, idx);
        if (k < 2 || k < 16 / ptx_type_size(f->ins[i].type[0]))   /* a group at least */
            continue;
        if (!l->rec_act && !(l->rec_act = calloc(f->nins + 1, sizeof *l->rec_act)))
            return;
        uint32_t head = f->ins[i].op == PTX_OP_ld ? idx[0] : idx[k - 1];
        for (uint32_t j = 0; j < k; j++)
            l->rec_act[idx[j]] = idx[j] == head ? REC_HEAD + i : REC_DROP;
    }
}

bool zn_record_dropped(const zn_lfn *l, const ptx_ins *ins)
{
    return l->rec_act && l->rec_act[ins - l->f->ins] == REC_DROP;
}

bool zn_record_head(const zn_lfn *l, const ptx_ins *ins)
{
    return l->rec_act && l->rec_act[ins - l->f->ins] >= REC_HEAD;
}

/* ---- the record path -------------------------------------------------------- */

/* A record's 16-byte chunk holds n = 16 / size items: 4 of 32 bits or 2
 * of 64. Half a warp's item vectors are <16 x T>, n per group. */

/* unpack{lo,hi} of runs of w elements within each n-element (128-bit)
 * chunk of two <16 x T> (vpunpck{l,h}{dq,qdq}) */
static LLVMValueRef unpack(zn_lfn *l, LLVMValueRef a, LLVMValueRef b, unsigned n, unsigned w,
                           bool hi)
{
    LLVMValueRef idx[16];
    for (unsigned c = 0; c < 16 / n; c++)
        for (unsigned e = 0; e < n; e++) {
            unsigned from = (e / w) % 2 ? 16 : 0;   /* a's run, then b's */
            unsigned at = n * c + (hi ? n / 2 : 0) + e / w / 2 * w + e % w;
            idx[n * c + e] = LLVMConstInt(l->m->t_i32, from + at, 0);
        }
    return LLVMBuildShuffleVector(l->b, a, b, LLVMConstVector(idx, 16), "");
}

/* x[i] chunk c element j -> out[j] chunk c element i, for n x <16 x T>
 * (its own inverse): the items of 16 lanes <-> the records of lanes
 * n * c + j */
static void transpose(zn_lfn *l, unsigned n, const LLVMValueRef x[4], LLVMValueRef out[4])
{
    if (n == 2) {
        out[0] = unpack(l, x[0], x[1], 2, 1, false);
        out[1] = unpack(l, x[0], x[1], 2, 1, true);
        return;
    }
    LLVMValueRef t0 = unpack(l, x[0], x[1], 4, 1, false), t1 = unpack(l, x[0], x[1], 4, 1, true);
    LLVMValueRef t2 = unpack(l, x[2], x[3], 4, 1, false), t3 = unpack(l, x[2], x[3], 4, 1, true);
    out[0] = unpack(l, t0, t2, 4, 2, false);
    out[1] = unpack(l, t0, t2, 4, 2, true);
    out[2] = unpack(l, t1, t3, 4, 2, false);
    out[3] = unpack(l, t1, t3, 4, 2, true);
}

/* lane's items g .. g + n - 1, from the lane's i64 address */
static LLVMValueRef record_ptr(zn_lfn *l, LLVMValueRef lane_addr, unsigned size, unsigned g)
{
    zn_lmod *m = l->m;
    return LLVMBuildIntToPtr(l->b, LLVMBuildAdd(l->b, lane_addr,
                                                LLVMConstInt(m->t_i64, (uint64_t)size * g, 0), ""),
                             m->t_ptr, "rec");
}

/* the first item of group g: 0, n, 2n, .. and k - n last */
static unsigned group_at(unsigned g, unsigned n, unsigned k)
{
    return n * g + n <= k ? n * g : k - n;
}

static void record_load(zn_lfn *l, const ptx_ins *const *mem, unsigned k,
                        const LLVMValueRef *lane)
{
    zn_lmod *m = l->m;
    ptx_type t = mem[0]->type[0];
    unsigned size = ptx_type_size(t), n = 16 / size;
    LLVMTypeRef et = zn_scalar_type(m, t), qt = LLVMVectorType(et, n);
    LLVMValueRef half[2][REC_MAX];
    for (unsigned g = 0; n * g < k; g++) {
        unsigned w = group_at(g, n, k);
        for (unsigned h = 0; h < 2; h++) {
            LLVMValueRef rec[4], items[4];
            for (unsigned j = 0; j < n; j++) {
                LLVMValueRef q[8];
                for (unsigned c = 0; c < 16 / n; c++) {
                    LLVMValueRef p = record_ptr(l, lane[16 * h + n * c + j], size, w);
                    q[c] = LLVMBuildLoad2(l->b, qt, p, "");
                    LLVMSetAlignment(q[c], size);
                }
                rec[j] = ll_concat(l, q, 16 / n);
            }
            transpose(l, n, rec, items);
            for (unsigned i = 0; i < n; i++)
                half[h][w + i] = items[i];
        }
    }
    for (unsigned i = 0; i < k; i++)
        zn_dst(l, &mem[i]->opnds[0], t, ll_join_halves(l, half[0][i], half[1][i]));
}

static void record_store(zn_lfn *l, const ptx_ins *const *mem, unsigned k,
                         const LLVMValueRef *lane)
{
    ptx_type t = mem[0]->type[0];
    unsigned size = ptx_type_size(t), n = 16 / size;
    LLVMValueRef v[REC_MAX];
    for (unsigned i = 0; i < k; i++)
        v[i] = zn_src(l, &mem[i]->opnds[1], t);
    bool shared = mem[0]->space == PTX_SPACE_SHARED;
    if (shared)
        zn_shared_store_stagger_before(l);
    for (unsigned g = 0; n * g < k; g++) {
        unsigned w = group_at(g, n, k);
        for (unsigned h = 0; h < 2; h++) {
            LLVMValueRef items[4], rec[4];
            for (unsigned i = 0; i < n; i++)
                items[i] = ll_lanes(l, v[w + i], 16 * h, 16);
            transpose(l, n, items, rec);
            for (unsigned j = 0; j < n; j++)
                for (unsigned c = 0; c < 16 / n; c++) {
                    LLVMValueRef q = ll_lanes(l, rec[j], n * c, n);
                    LLVMValueRef st = LLVMBuildStore(
                        l->b, q, record_ptr(l, lane[16 * h + n * c + j], size, w));
                    LLVMSetAlignment(st, size);
                }
        }
    }
    if (shared)
        zn_shared_store_stagger(l);
}

/* The run's instructions one by one at the head: as they stand, or (a
 * run of stores with instructions between, lowered at its last) as plain
 * scatters, whose addresses the affine walk would take from the wrong
 * place. */
static void each(zn_lfn *l, const ptx_ins *const *mem, unsigned k, bool gaps,
                 zn_lower_one_fn one)
{
    const ptx_ins *head = l->ins;
    if (gaps && mem[0]->op == PTX_OP_st) {
        unsigned size = ptx_type_size(mem[0]->type[0]);
        bool shared = mem[0]->space == PTX_SPACE_SHARED;
        if (shared)
            zn_shared_store_stagger_before(l);
        for (unsigned i = 0; i < k; i++) {
            LLVMValueRef a = LLVMBuildPtrToInt(l->b, zn_mem_ptrs(l, &mem[i]->opnds[0],
                                                                 mem[i]->space),
                                               ll_vec(l->m->t_i64), "");
            zn_access_scatter(l, a, zn_src(l, &mem[i]->opnds[1], mem[i]->type[0]), size);
        }
        if (shared)
            zn_shared_store_stagger(l);
        return;
    }
    for (unsigned i = 0; i < k; i++) {
        l->ins = mem[i];
        l->emask = zn_guard_mask(l, l->ins);
        one(l, l->ins);
    }
    l->ins = head;
    l->emask = zn_guard_mask(l, head);
}

/* The lanes' i64 addresses of the run's first access: lane 0's base plus
 * l * s where the stride is proven, else each lane's own from a (loads) */
static void lane_addrs(zn_lfn *l, LLVMValueRef base, int64_t s, LLVMValueRef a,
                       LLVMValueRef lane[ZN_LANES])
{
    zn_lmod *m = l->m;
    for (unsigned j = 0; j < ZN_LANES; j++) {
        uint64_t off = (uint64_t)((int64_t)j * s);
        lane[j] = !a ? LLVMBuildAdd(l->b, base, LLVMConstInt(m->t_i64, off, 0), "")
                     : LLVMBuildExtractElement(l->b, a, LLVMConstInt(m->t_i32, j, 0), "");
    }
}

void zn_lower_record(zn_lfn *l, const ptx_ins *head, zn_lower_one_fn one)
{
    zn_lmod *m = l->m;
    const ptx_func *fn = l->f;
    uint32_t idx[REC_MAX];
    unsigned k = run_from(l, l->rec_act[head - fn->ins] - REC_HEAD, idx);
    const ptx_ins *mem[REC_MAX];
    for (unsigned i = 0; i < k; i++)
        mem[i] = &fn->ins[idx[i]];
    bool gaps = idx[k - 1] - idx[0] != k - 1, load = head->op == PTX_OP_ld;
    /* the head is the first load or the last store: the affine walk reads
     * its address, at its place */
    int64_t size = ptx_type_size(head->type[0]), span = size * k;
    zn_aff_addr f;
    bool proven = zn_affine_addr(l, &f) && f.lin;
    bool apart = proven && (f.s >= span || f.s <= -span);
    /* Loads never conflict: without a proven stride each lane may read its
     * own record from its own address (the partial- and full-tile paths
     * of a CUB block load meet with two definitions of the address, which
     * the affine walk does not follow), unless the lanes share one address
     * (a uniform loop over a block's partial sums: bench/softmax 6 %
     * slower that way than with its scalar loads), which a run-time test
     * sends to the fall-back too. A proven stride that is not apart keeps
     * the accesses as proven (contiguous lanes: vector loads). Stores need
     * records apart. */
    bool dynamic = !proven && load && !zn_uniform_access(l, head, NULL);
    zn_log(ZN_LOG_DEBUG, "records: %s: %u %s at PTX line %u%s: %s", fn->name, k,
           load ? "loads" : "stores", mem[0]->line, gaps ? " (with others between)" : "",
           apart ? "lane records" : dynamic ? "lane records at the lanes' addresses"
                  : !proven ? "no lane stride proven, or one address"
                  : f.s == 0 ? "one address in all lanes" : "records overlap");
    if (!apart && !dynamic) {
        each(l, mem, k, gaps, one);
        return;
    }
    if (head->space == PTX_SPACE_GLOBAL) {   /* as the run's first access would */
        if (load)
            zn_prefetch_ahead(l, head);
        else
            zn_prefetch_store_ahead(l, head);
    }
    LLVMValueRef cond = LLVMBuildICmp(l->b, LLVMIntEQ, ll_mask_to_i32(l, l->emask),
                                      LLVMConstInt(m->t_i32, 0xffffffffu, 0), "rec.ok");
    LLVMValueRef a = NULL;
    if (apart) {
        cond = LLVMBuildAnd(l->b, f.lin, cond, "");
    } else {   /* dynamic: not one address in all lanes */
        a = LLVMBuildPtrToInt(l->b, zn_mem_ptrs(l, &mem[0]->opnds[1], mem[0]->space),
                              ll_vec(m->t_i64), "");
        LLVMValueRef a0 = LLVMBuildExtractElement(l->b, a, LLVMConstInt(m->t_i32, 0, 0), "");
        LLVMValueRef ne = LLVMBuildICmp(l->b, LLVMIntNE, a, ll_splat(l, a0), "");
        cond = LLVMBuildAnd(l->b, cond, ll_any(l, ne), "");
    }
    LLVMBasicBlockRef bb_rec = LLVMAppendBasicBlockInContext(m->ctx, l->fn, "rec");
    LLVMBasicBlockRef bb_each = LLVMAppendBasicBlockInContext(m->ctx, l->fn, "rec.each");
    LLVMBasicBlockRef bb_done = LLVMAppendBasicBlockInContext(m->ctx, l->fn, "rec.done");
    LLVMBuildCondBr(l->b, cond, bb_rec, bb_each);

    LLVMPositionBuilderAtEnd(l->b, bb_rec);
    LLVMValueRef lane[ZN_LANES];
    /* a store run's head is its last: lane 0's first item size * (K - 1) below */
    LLVMValueRef base = apart && !load
                            ? LLVMBuildSub(l->b, f.base,
                                           LLVMConstInt(m->t_i64, (uint64_t)(span - size), 0), "")
                            : apart ? f.base : NULL;
    lane_addrs(l, base, apart ? f.s : 0, a, lane);
    if (load)
        record_load(l, mem, k, lane);
    else
        record_store(l, mem, k, lane);
    LLVMBuildBr(l->b, bb_done);

    LLVMPositionBuilderAtEnd(l->b, bb_each);
    each(l, mem, k, gaps, one);
    LLVMBuildBr(l->b, bb_done);

    LLVMPositionBuilderAtEnd(l->b, bb_done);
    zn_window_forget(l, NULL);  /* what either side tested does not dominate here */
}
