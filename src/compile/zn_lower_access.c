/* zn_lower_access.c: a warp's loads and stores, shaped at run time.
 *
 * GPU code touches memory in three shapes: lane i at base + i * stride with
 * stride the size of what each lane reads (contiguous: one vector access
 * under the mask), the same address in every active lane (one scalar
 * access), or anything else (gather/scatter). The compiler cannot know which
 * at compile time: the lane -> thread mapping depends on ntid.x, and masked
 * register writes leave stale values in inactive lanes. So every access tests
 * the addresses of its active lanes at run time, which costs a few vector
 * compares, far less than a gather or scatter.
 *
 * A contiguous warp is one test and one access. Otherwise the test is made
 * per half warp (16 lanes, one AVX-512 register of f32): 2D blocks of
 * 16 x N threads put two rows in one warp, so each half is contiguous
 * (a[ty][tx]) or uniform (a[ty][k]) while the whole warp is neither.
 *
 * A .v2/.v4 access of n elements is contiguous when lane i starts at
 * base + i * n * size; it is then one load/store of 16 * n elements with
 * the mask widened and the elements (de)interleaved by shuffles. Inactive
 * lanes load zero, never poison: a block that all live lanes run writes
 * loads to every lane.
 *
 * Where the affine-address analysis (zn_lower_affine.c) proves a shape at
 * compile time (the whole warp contiguous or at one address, or for 16 x N
 * blocks each half contiguous or at one address), the access is that shape
 * at a scalar base under scalar run-time facts, and the test above is only
 * the fall-back when they fail. */
#include "zn_lower.h"

#include <stdlib.h>

#define ZN_PART 16                       /* lanes per shape test */
#define ZN_NPARTS (ZN_LANES / ZN_PART)

/* One half warp: its addresses (<16 x i64>) and mask (<16 x i1>). */
typedef struct zn_part {
    LLVMValueRef a, m;
    unsigned w;                          /* lanes: 16, or 32 for the whole warp */
} zn_part;

/* Run-time facts about a part's active lanes. */
typedef struct zn_shape {
    LLVMValueRef mi;     /* i32 mask bits of the part */
    LLVMValueRef ak;     /* i64 address of the first active lane */
    LLVMValueRef base;   /* i64 address lane 0 would have if contiguous */
    LLVMValueRef contig; /* i1 */
} zn_shape;

static LLVMValueRef c32(zn_lfn *l, uint64_t v)
{
    return LLVMConstInt(l->m->t_i32, v, 0);
}

static LLVMValueRef c64(zn_lfn *l, uint64_t v)
{
    return LLVMConstInt(l->m->t_i64, v, 0);
}

static LLVMTypeRef pvec(LLVMTypeRef t, unsigned w)
{
    return LLVMVectorType(t, w);
}

/* lanes [first, first + 16) of a 32-lane vector */
static LLVMValueRef lanes_of(zn_lfn *l, LLVMValueRef v, unsigned first)
{
    return ll_lanes(l, v, first, ZN_PART);
}

static LLVMValueRef splat_part(zn_lfn *l, LLVMValueRef s, unsigned w)
{
    return ll_splat_n(l, s, w);
}

static LLVMValueRef part_bits(zn_lfn *l, LLVMValueRef m, unsigned w)
{
    LLVMValueRef b = LLVMBuildBitCast(l->b, m, LLVMIntTypeInContext(l->m->ctx, w), "");
    return w < 32 ? LLVMBuildZExt(l->b, b, l->m->t_i32, "") : b;
}

/* i1: no active lane of the part has `bad` set */
static LLVMValueRef none_active(zn_lfn *l, const zn_part *p, LLVMValueRef bad)
{
    bad = LLVMBuildAnd(l->b, bad, p->m, "");
    return LLVMBuildICmp(l->b, LLVMIntEQ, part_bits(l, bad, p->w), c32(l, 0), "");
}

static zn_shape shape_of(zn_lfn *l, const zn_part *p, uint64_t stride)
{
    zn_lmod *m = l->m;
    zn_shape s;
    s.mi = part_bits(l, p->m, p->w);
    LLVMTypeRef ct = m->t_i32;
    LLVMValueRef args[2] = {s.mi, LLVMConstInt(m->t_i1, 0, 0)};
    /* an empty mask gives 32; `& (w - 1)` keeps the extract in range (no
     * lane is touched then anyway) */
    LLVMValueRef k = ll_intrin(l, "llvm.cttz", &ct, 1, args, 2);
    k = LLVMBuildAnd(l->b, k, c32(l, p->w - 1), "");
    /* a variable-index extract gave every access a stack temporary that
     * codegen never reuses (CUB's onesweep kernel: 700 KB of its 870 KB
     * frame); in big functions it reads back from the function's buffer
     * (zn_ll.c). The lowest active address (a reduction) did that job
     * before, slower per access (bench/transpose 11 %, docs/compile-time.md). */
    s.ak = ll_extract_dyn(l, p->a, k);
    LLVMValueRef k64 = LLVMBuildZExt(l->b, k, m->t_i64, "");
    s.base = LLVMBuildSub(l->b, s.ak, LLVMBuildMul(l->b, k64, c64(l, stride), ""), "");
    LLVMValueRef off[ZN_LANES];
    for (unsigned j = 0; j < p->w; j++)
        off[j] = c64(l, j * stride);
    LLVMValueRef want = LLVMBuildAdd(l->b, splat_part(l, s.base, p->w),
                                     LLVMConstVector(off, p->w), "");
    s.contig = none_active(l, p, LLVMBuildICmp(l->b, LLVMIntNE, p->a, want, ""));
    return s;
}

static LLVMValueRef uniform_test(zn_lfn *l, const zn_part *p, const zn_shape *s)
{
    return none_active(l, p, LLVMBuildICmp(l->b, LLVMIntNE, p->a,
                                           splat_part(l, s->ak, p->w), ""));
}

static bool pow2_small(unsigned n)
{
    return n == 1 || n == 2 || n == 4 || n == 8;
}

/* <16n x i1>: lane j's bit for each of its n elements (element i enabled
 * by en[i]; en NULL: all) */
static LLVMValueRef wide_mask(zn_lfn *l, const zn_part *p, unsigned n, const bool *en)
{
    zn_lmod *m = l->m;
    if (n == 1 && (!en || en[0]))
        return p->m;
    LLVMValueRef idx[ZN_LANES * 8], allow[ZN_LANES * 8];
    for (unsigned j = 0; j < p->w; j++)
        for (unsigned i = 0; i < n; i++) {
            idx[j * n + i] = c32(l, j);
            allow[j * n + i] = LLVMConstInt(m->t_i1, !en || en[i], 0);
        }
    LLVMValueRef w = LLVMBuildShuffleVector(l->b, p->m, LLVMGetPoison(LLVMTypeOf(p->m)),
                                            LLVMConstVector(idx, p->w * n), "");
    if (en)
        w = LLVMBuildAnd(l->b, w, LLVMConstVector(allow, p->w * n), "");
    return w;
}

static LLVMValueRef elem_ptrs(zn_lfn *l, const zn_part *p, uint64_t off)
{
    LLVMValueRef a = p->a;
    if (off)
        a = LLVMBuildAdd(l->b, a, splat_part(l, c64(l, off), p->w), "");
    return LLVMBuildIntToPtr(l->b, a, pvec(l->m->t_ptr, p->w), "");
}

static LLVMValueRef scalar_ptr(zn_lfn *l, LLVMValueRef a, uint64_t off)
{
    if (off)
        a = LLVMBuildAdd(l->b, a, c64(l, off), "");
    return LLVMBuildIntToPtr(l->b, a, l->m->t_ptr, "");
}

static LLVMBasicBlockRef new_bb(zn_lfn *l, const char *name)
{
    return LLVMAppendBasicBlockInContext(l->m->ctx, l->fn, name);
}

static void split(zn_lfn *l, LLVMValueRef a, zn_part *parts)
{
    for (unsigned h = 0; h < ZN_NPARTS; h++) {
        parts[h].w = ZN_PART;
        parts[h].a = lanes_of(l, a, h * ZN_PART);
        parts[h].m = lanes_of(l, l->emask, h * ZN_PART);
    }
}

/* ---- loads ----------------------------------------------------------------- */

static void load_contig(zn_lfn *l, const zn_part *p, LLVMValueRef base, LLVMTypeRef et,
                        unsigned n, unsigned size, LLVMValueRef *out)
{
    zn_lmod *m = l->m;
    LLVMTypeRef wt = LLVMVectorType(et, p->w * n);
    LLVMTypeRef over[2] = {wt, m->t_ptr};
    LLVMValueRef args[4] = {scalar_ptr(l, base, 0), c32(l, zn_ld_align(l, size)),
                            wide_mask(l, p, n, NULL), LLVMConstNull(wt)};
    LLVMValueRef w = ll_intrin(l, "llvm.masked.load", over, 2, args, 4);
    if (n == 1) {
        out[0] = w;
        return;
    }
    for (unsigned i = 0; i < n; i++) {
        LLVMValueRef idx[ZN_LANES];
        for (unsigned j = 0; j < p->w; j++)
            idx[j] = c32(l, j * n + i);
        out[i] = LLVMBuildShuffleVector(l->b, w, LLVMGetPoison(wt),
                                        LLVMConstVector(idx, p->w), "");
    }
}

static void load_uniform(zn_lfn *l, const zn_part *p, LLVMValueRef ak, LLVMTypeRef et,
                         unsigned n, unsigned size, LLVMValueRef *out)
{
    for (unsigned i = 0; i < n; i++) {
        LLVMValueRef v = LLVMBuildLoad2(l->b, et, scalar_ptr(l, ak, (uint64_t)i * size), "");
        LLVMSetAlignment(v, zn_ld_align(l, size));
        out[i] = splat_part(l, v, p->w);
    }
}

/* A gather of 8- or 16-bit elements: x86 has no such gather and LLVM
 * scalarizes it (per lane a mask test, a branch, an extract and an
 * insert). Each lane instead gathers the aligned 32-bit word holding its
 * element, which never leaves the element's page, and shifts the element
 * out: one hardware gather. The other bytes of the word are read and
 * dropped (a GPU's sector reads them too). */
static LLVMValueRef gather_narrow(zn_lfn *l, const zn_part *p, LLVMTypeRef et, uint64_t off)
{
    zn_lmod *m = l->m;
    LLVMBuilderRef b = l->b;
    LLVMValueRef a = p->a;
    if (off)
        a = LLVMBuildAdd(b, a, splat_part(l, c64(l, off), p->w), "");
    LLVMValueRef word = LLVMBuildAnd(b, a, splat_part(l, c64(l, ~(uint64_t)3), p->w), "");
    LLVMValueRef sh = LLVMBuildShl(b, LLVMBuildTrunc(b, LLVMBuildAnd(b, a,
                                       splat_part(l, c64(l, 3), p->w), ""),
                                   pvec(m->t_i32, p->w), ""),
                                   splat_part(l, c32(l, 3), p->w), "");
    LLVMTypeRef wt = pvec(m->t_i32, p->w);
    LLVMTypeRef over[2] = {wt, pvec(m->t_ptr, p->w)};
    LLVMValueRef args[4] = {LLVMBuildIntToPtr(b, word, pvec(m->t_ptr, p->w), ""), c32(l, 4),
                            p->m, LLVMConstNull(wt)};
    LLVMValueRef w = ll_intrin(l, "llvm.masked.gather", over, 2, args, 4);
    LLVMTypeRef it = LLVMIntTypeInContext(m->ctx, ll_bits(et));
    LLVMValueRef v = LLVMBuildTrunc(b, LLVMBuildLShr(b, w, sh, ""), pvec(it, p->w), "");
    return it == et ? v : LLVMBuildBitCast(b, v, pvec(et, p->w), "");
}

static void load_gather(zn_lfn *l, const zn_part *p, LLVMTypeRef et, unsigned n,
                        unsigned size, LLVMValueRef *out)
{
    zn_lmod *m = l->m;
    LLVMTypeRef vt = pvec(et, p->w);
    LLVMTypeRef over[2] = {vt, pvec(m->t_ptr, p->w)};
    if (size < 4 && !getenv("ZINC_NO_NARROW_GATHER")) {
        for (unsigned i = 0; i < n; i++)
            out[i] = gather_narrow(l, p, et, (uint64_t)i * size);
        return;
    }
    for (unsigned i = 0; i < n; i++) {
        LLVMValueRef args[4] = {elem_ptrs(l, p, (uint64_t)i * size), c32(l, zn_ld_align(l, size)),
                                p->m, LLVMConstNull(vt)};
        out[i] = ll_intrin(l, "llvm.masked.gather", over, 2, args, 4);
    }
}

/* One part: contiguous, uniform or gather, chosen at run time. */
static void load_part(zn_lfn *l, const zn_part *p, LLVMTypeRef et, unsigned n,
                      LLVMValueRef *out)
{
    unsigned size = ll_bits(et) / 8;
    if (!pow2_small(n)) {
        load_gather(l, p, et, n, size, out);
        return;
    }
    zn_shape s = shape_of(l, p, (uint64_t)n * size);
    LLVMBasicBlockRef bb_vec = new_bb(l, "ld.vec"), bb_chk = new_bb(l, "ld.chk"),
        bb_uni = new_bb(l, "ld.uni"), bb_gat = new_bb(l, "ld.gather"),
        bb_join = new_bb(l, "ld.join");
    LLVMValueRef vv[8], vu[8], vg[8];
    LLVMBuildCondBr(l->b, s.contig, bb_vec, bb_chk);

    LLVMPositionBuilderAtEnd(l->b, bb_vec);
    load_contig(l, p, s.base, et, n, size, vv);
    LLVMBasicBlockRef end_vec = LLVMGetInsertBlock(l->b);
    LLVMBuildBr(l->b, bb_join);

    LLVMPositionBuilderAtEnd(l->b, bb_chk);
    LLVMBuildCondBr(l->b, uniform_test(l, p, &s), bb_uni, bb_gat);

    LLVMPositionBuilderAtEnd(l->b, bb_uni);
    load_uniform(l, p, s.ak, et, n, size, vu);
    LLVMBasicBlockRef end_uni = LLVMGetInsertBlock(l->b);
    LLVMBuildBr(l->b, bb_join);

    LLVMPositionBuilderAtEnd(l->b, bb_gat);
    load_gather(l, p, et, n, size, vg);
    LLVMBasicBlockRef end_gat = LLVMGetInsertBlock(l->b);
    LLVMBuildBr(l->b, bb_join);

    LLVMPositionBuilderAtEnd(l->b, bb_join);
    for (unsigned i = 0; i < n; i++) {
        out[i] = LLVMBuildPhi(l->b, pvec(et, p->w), "ld");
        LLVMValueRef in_v[3] = {vv[i], vu[i], vg[i]};
        LLVMBasicBlockRef in_b[3] = {end_vec, end_uni, end_gat};
        LLVMAddIncoming(out[i], in_v, in_b, 3);
    }
}

/* The whole warp contiguous (one test, one access); otherwise each half
 * on its own. carry: may use and fill zn_lower_winslot.c's slots (not on
 * an affine plan's rare fall-back path, whose slots would keep their
 * terms' tests alive in the kernel's main path). */
static void load_rt(zn_lfn *l, LLVMValueRef a, LLVMTypeRef et, unsigned n,
                    LLVMValueRef *out, bool carry)
{
    unsigned size = ll_bits(et) / 8;
    zn_part whole = {.a = a, .m = l->emask, .w = ZN_LANES};
    if (!pow2_small(n)) {
        load_gather(l, &whole, et, n, size, out);
        return;
    }
    LLVMBasicBlockRef bb_join = new_bb(l, "ld.done"), end_known = NULL;
    /* contiguous at a base carried from an earlier test (zn_lower_winslot.c):
     * no test (the F16 decode's mul_mat_vec steps, whose pointers the
     * affine analysis cannot follow out of the remainder loop) */
    LLVMValueRef known, kbase, vk[8];
    const ptx_opnd *ao = NULL;
    if (carry && zn_winslot_contig(l, (uint64_t)n * size, &known, &kbase, &ao)) {
        LLVMBasicBlockRef bb_known = new_bb(l, "ld.known"), bb_test = new_bb(l, "ld.test");
        LLVMBuildCondBr(l->b, known, bb_known, bb_test);
        LLVMPositionBuilderAtEnd(l->b, bb_known);
        load_contig(l, &whole, kbase, et, n, size, vk);
        end_known = LLVMGetInsertBlock(l->b);
        LLVMBuildBr(l->b, bb_join);
        LLVMPositionBuilderAtEnd(l->b, bb_test);
    }
    zn_shape s = shape_of(l, &whole, (uint64_t)n * size);
    LLVMBasicBlockRef bb_vec = new_bb(l, "ld.warp"), bb_parts = new_bb(l, "ld.halves");
    LLVMBuildCondBr(l->b, s.contig, bb_vec, bb_parts);

    LLVMValueRef vv[8], vp[8];
    LLVMPositionBuilderAtEnd(l->b, bb_vec);
    if (ao)
        zn_winslot_tested(l, ao, LLVMConstInt(l->m->t_i1, 1, 0), s.base);
    load_contig(l, &whole, s.base, et, n, size, vv);
    LLVMBasicBlockRef end_vec = LLVMGetInsertBlock(l->b);
    LLVMBuildBr(l->b, bb_join);

    LLVMPositionBuilderAtEnd(l->b, bb_parts);
    zn_part parts[ZN_NPARTS];
    LLVMValueRef res[ZN_NPARTS][8];
    split(l, a, parts);
    for (unsigned h = 0; h < ZN_NPARTS; h++)
        load_part(l, &parts[h], et, n, res[h]);
    for (unsigned i = 0; i < n; i++)
        vp[i] = ll_join_halves(l, res[0][i], res[1][i]);
    LLVMBasicBlockRef end_parts = LLVMGetInsertBlock(l->b);
    LLVMBuildBr(l->b, bb_join);

    LLVMPositionBuilderAtEnd(l->b, bb_join);
    for (unsigned i = 0; i < n; i++) {
        out[i] = LLVMBuildPhi(l->b, ll_vec(et), "ld");
        LLVMValueRef in_v[3] = {vv[i], vp[i], end_known ? vk[i] : NULL};
        LLVMBasicBlockRef in_b[3] = {end_vec, end_parts, end_known};
        LLVMAddIncoming(out[i], in_v, in_b, end_known ? 3 : 2);
    }
}

/* ---- stores ---------------------------------------------------------------- */

/* The n element vectors interleaved lane-major: <v0[0], v1[0], ..., v0[1], ...> */
static LLVMValueRef interleave(zn_lfn *l, LLVMValueRef *v, unsigned n, unsigned w)
{
    LLVMValueRef cat[8];
    for (unsigned i = 0; i < n; i++)
        cat[i] = v[i];
    ll_concat(l, cat, n);   /* one vector of w * n elements */
    if (n == 1)
        return cat[0];
    LLVMValueRef idx[ZN_LANES * 8];
    for (unsigned j = 0; j < w; j++)
        for (unsigned i = 0; i < n; i++)
            idx[j * n + i] = c32(l, i * w + j);
    return LLVMBuildShuffleVector(l->b, cat[0], LLVMGetPoison(LLVMTypeOf(cat[0])),
                                  LLVMConstVector(idx, w * n), "");
}

static void store_contig(zn_lfn *l, const zn_part *p, LLVMValueRef base, LLVMValueRef *v,
                         unsigned n, unsigned size)
{
    zn_lmod *m = l->m;
    bool en[8];
    LLVMValueRef vals[8];
    LLVMTypeRef vt = NULL;
    for (unsigned i = 0; i < n; i++)
        if (v[i])
            vt = LLVMTypeOf(v[i]);
    for (unsigned i = 0; i < n; i++) {
        en[i] = v[i] != NULL;
        vals[i] = v[i] ? v[i] : LLVMGetPoison(vt);
    }
    LLVMValueRef w = interleave(l, vals, n, p->w);
    LLVMTypeRef over[2] = {LLVMTypeOf(w), m->t_ptr};
    LLVMValueRef args[4] = {w, scalar_ptr(l, base, 0), c32(l, size), wide_mask(l, p, n, en)};
    bool all = true;
    for (unsigned i = 0; i < n; i++)
        all &= en[i];
    if (!l->stream_now || p->w != ZN_LANES || !all) {
        ll_intrin(l, "llvm.masked.store", over, 2, args, 4);
        return;
    }
    /* whole lines of a streaming launch go around the cache (zn_lower_stream.c) */
    LLVMBasicBlockRef bb_nt = new_bb(l, "st.nt"), bb_c = new_bb(l, "st.cached"),
        bb_join = new_bb(l, "st.nt.done");
    LLVMBuildCondBr(l->b, zn_stream_test(l, p->m, base, (uint64_t)n * size), bb_nt, bb_c);
    LLVMPositionBuilderAtEnd(l->b, bb_nt);
    zn_stream_store_vec(l, w, args[1]);
    LLVMBuildBr(l->b, bb_join);
    LLVMPositionBuilderAtEnd(l->b, bb_c);
    ll_intrin(l, "llvm.masked.store", over, 2, args, 4);
    LLVMBuildBr(l->b, bb_join);
    LLVMPositionBuilderAtEnd(l->b, bb_join);
}

/* Same address in every active lane of the part: the highest active lane's
 * value lands last, as with a scatter. */
static void store_uniform(zn_lfn *l, const zn_part *p, LLVMValueRef ak, LLVMValueRef mi,
                          LLVMValueRef *v, unsigned n, unsigned size)
{
    zn_lmod *m = l->m;
    LLVMTypeRef ct = m->t_i32;
    LLVMValueRef args[2] = {mi, LLVMConstInt(m->t_i1, 0, 0)};
    LLVMValueRef lz = ll_intrin(l, "llvm.ctlz", &ct, 1, args, 2);
    LLVMValueRef last = LLVMBuildAnd(l->b, LLVMBuildSub(l->b, c32(l, 31), lz, ""),
                                     c32(l, p->w - 1), "");
    for (unsigned i = 0; i < n; i++) {
        if (!v[i])
            continue;
        LLVMValueRef e = ll_extract_dyn(l, v[i], last);
        LLVMValueRef st = LLVMBuildStore(l->b, e, scalar_ptr(l, ak, (uint64_t)i * size));
        LLVMSetAlignment(st, size);
    }
}

static void store_scatter(zn_lfn *l, const zn_part *p, LLVMValueRef *v, unsigned n,
                          unsigned size)
{
    zn_lmod *m = l->m;
    for (unsigned i = 0; i < n; i++) {
        if (!v[i])
            continue;
        LLVMTypeRef over[2] = {LLVMTypeOf(v[i]), pvec(m->t_ptr, p->w)};
        LLVMValueRef args[4] = {v[i], elem_ptrs(l, p, (uint64_t)i * size), c32(l, size),
                                p->m};
        ll_intrin(l, "llvm.masked.scatter", over, 2, args, 4);
    }
}

static void store_part(zn_lfn *l, const zn_part *p, LLVMValueRef *v, unsigned n,
                       unsigned size)
{
    if (!pow2_small(n)) {
        store_scatter(l, p, v, n, size);
        return;
    }
    zn_shape s = shape_of(l, p, (uint64_t)n * size);
    LLVMBasicBlockRef bb_vec = new_bb(l, "st.vec"), bb_chk = new_bb(l, "st.chk"),
        bb_uni = new_bb(l, "st.uni"), bb_sca = new_bb(l, "st.scatter"),
        bb_join = new_bb(l, "st.join");
    LLVMBuildCondBr(l->b, s.contig, bb_vec, bb_chk);

    LLVMPositionBuilderAtEnd(l->b, bb_vec);
    store_contig(l, p, s.base, v, n, size);
    LLVMBuildBr(l->b, bb_join);

    LLVMPositionBuilderAtEnd(l->b, bb_chk);
    LLVMBuildCondBr(l->b, uniform_test(l, p, &s), bb_uni, bb_sca);

    LLVMPositionBuilderAtEnd(l->b, bb_uni);
    store_uniform(l, p, s.ak, s.mi, v, n, size);
    LLVMBuildBr(l->b, bb_join);

    LLVMPositionBuilderAtEnd(l->b, bb_sca);
    store_scatter(l, p, v, n, size);
    LLVMBuildBr(l->b, bb_join);

    LLVMPositionBuilderAtEnd(l->b, bb_join);
}

static void store_rt(zn_lfn *l, LLVMValueRef a, LLVMValueRef *v, unsigned n,
                     unsigned size)
{
    zn_part whole = {.a = a, .m = l->emask, .w = ZN_LANES};
    if (!pow2_small(n)) {
        store_scatter(l, &whole, v, n, size);
        return;
    }
    zn_shape s = shape_of(l, &whole, (uint64_t)n * size);
    LLVMBasicBlockRef bb_vec = new_bb(l, "st.warp"), bb_parts = new_bb(l, "st.halves"),
        bb_join = new_bb(l, "st.done");
    LLVMBuildCondBr(l->b, s.contig, bb_vec, bb_parts);

    LLVMPositionBuilderAtEnd(l->b, bb_vec);
    store_contig(l, &whole, s.base, v, n, size);
    LLVMBuildBr(l->b, bb_join);

    /* lower lanes first: where addresses overlap, the highest lane's value
     * lands last, as a 32-lane scatter would leave it */
    LLVMPositionBuilderAtEnd(l->b, bb_parts);
    zn_part parts[ZN_NPARTS];
    split(l, a, parts);
    for (unsigned h = 0; h < ZN_NPARTS; h++) {
        LLVMValueRef pv[8];
        for (unsigned i = 0; i < n; i++)
            pv[i] = v[i] ? lanes_of(l, v[i], h * ZN_PART) : NULL;
        store_part(l, &parts[h], pv, n, size);
    }
    LLVMBuildBr(l->b, bb_join);
    LLVMPositionBuilderAtEnd(l->b, bb_join);
}

/* ---- compile-time shapes (zn_lower_affine.c) ------------------------------- */

/* One load/store of the whole part at one address (the lanes' addresses are
 * all `a`), done only when a lane of the part is active (a partial warp's
 * missing rows may point past the tile): a <1 x T> masked access (x86
 * codegen makes it a test and a branch). Loads splat the value; stores
 * write the highest active lane's value, as a scatter would leave it. */
static LLVMValueRef any_mask1(zn_lfn *l, const zn_part *p)
{
    LLVMValueRef any = LLVMBuildICmp(l->b, LLVMIntNE, part_bits(l, p->m, p->w), c32(l, 0), "");
    return LLVMBuildInsertElement(l->b, LLVMGetPoison(LLVMVectorType(l->m->t_i1, 1)), any,
                                  c32(l, 0), "");
}

static void load_one(zn_lfn *l, const zn_part *p, LLVMValueRef a, LLVMTypeRef et,
                     unsigned n, unsigned size, LLVMValueRef *out)
{
    LLVMTypeRef vt = LLVMVectorType(et, 1);
    LLVMTypeRef over[2] = {vt, l->m->t_ptr};
    LLVMValueRef m1 = any_mask1(l, p);
    for (unsigned i = 0; i < n; i++) {
        LLVMValueRef args[4] = {scalar_ptr(l, a, (uint64_t)i * size),
                                c32(l, zn_ld_align(l, size)), m1, LLVMConstNull(vt)};
        LLVMValueRef v = ll_intrin(l, "llvm.masked.load", over, 2, args, 4);
        out[i] = splat_part(l, LLVMBuildExtractElement(l->b, v, c32(l, 0), ""), p->w);
    }
}

static void store_one(zn_lfn *l, const zn_part *p, LLVMValueRef a, LLVMValueRef *v,
                      unsigned n, unsigned size)
{
    zn_lmod *m = l->m;
    LLVMTypeRef ct = m->t_i32;
    LLVMValueRef args[2] = {part_bits(l, p->m, p->w), LLVMConstInt(m->t_i1, 0, 0)};
    LLVMValueRef lz = ll_intrin(l, "llvm.ctlz", &ct, 1, args, 2);
    LLVMValueRef last = LLVMBuildAnd(l->b, LLVMBuildSub(l->b, c32(l, 31), lz, ""),
                                     c32(l, p->w - 1), "");
    LLVMValueRef m1 = any_mask1(l, p);
    for (unsigned i = 0; i < n; i++) {
        if (!v[i])
            continue;
        LLVMValueRef e = ll_extract_dyn(l, v[i], last);
        LLVMValueRef ev = LLVMBuildInsertElement(l->b, LLVMGetPoison(LLVMVectorType(
                                                 LLVMTypeOf(e), 1)), e, c32(l, 0), "");
        LLVMTypeRef over[2] = {LLVMTypeOf(ev), m->t_ptr};
        LLVMValueRef sargs[4] = {ev, scalar_ptr(l, a, (uint64_t)i * size), c32(l, size), m1};
        ll_intrin(l, "llvm.masked.store", over, 2, sargs, 4);
    }
}

/* The shapes the affine analysis can prove, tried in this order, each
 * under its run-time fact; the run-time test is the last resort. */
enum { AFF_WARP, AFF_UNI, AFF_HALVES, AFF_STRIDED, AFF_RT, AFF_NPATHS };

typedef struct aff_plan {
    LLVMValueRef cond[AFF_NPATHS]; /* NULL: path not taken */
    LLVMValueRef base, sy;         /* i64 lane 0 address; per row of 16 */
    bool halves_contig;            /* halves contiguous (else uniform) */
    int64_t s;                     /* bytes from lane to lane (AFF_STRIDED) */
} aff_plan;

/* lane l's address base + l * s: a gather or scatter with no per-lane
 * address arithmetic and no shape test (tile[threadIdx.x][j] of a padded
 * tile, CUB's thread-blocked items) */
static zn_part strided_part(zn_lfn *l, const aff_plan *pl)
{
    LLVMValueRef off[ZN_LANES];
    for (unsigned i = 0; i < ZN_LANES; i++)
        off[i] = c64(l, (uint64_t)((int64_t)i * pl->s));
    LLVMValueRef a = LLVMBuildAdd(l->b, splat_part(l, pl->base, ZN_LANES),
                                  LLVMConstVector(off, ZN_LANES), "aff.strided");
    return (zn_part){.a = a, .m = l->emask, .w = ZN_LANES};
}

static bool is_true(LLVMValueRef c)
{
    return LLVMIsAConstantInt(c) && LLVMConstIntGetZExtValue(c) == 1;
}

static LLVMValueRef or_cond(zn_lfn *l, LLVMValueRef a, LLVMValueRef b)
{
    return !a ? b : !b ? a : LLVMBuildOr(l->b, a, b, "");
}

static LLVMValueRef rows_with(zn_lfn *l, const zn_aff_addr *f, uint64_t x, const char *name)
{
    return LLVMBuildAnd(l->b, f->rows, LLVMBuildICmp(l->b, LLVMIntEQ, f->ntid_x,
                        LLVMConstInt(LLVMTypeOf(f->ntid_x), x, 0), ""), name);
}

/* false: nothing proven, the run-time test alone. e = bytes per lane.
 * Rows of X lanes (lane r * X + c at base + c * s + r * sy) are one
 * contiguous run when s == e and sy == X * e, or s == 0, sy == e and
 * X == 1; all one address when s == sy == 0; two halves of 16 each
 * contiguous or uniform when X == 16 and s is e or 0. */
static bool affine_plan(zn_lfn *l, unsigned n, unsigned size, aff_plan *pl)
{
    zn_aff_addr f;
    if (!pow2_small(n) || !zn_affine_addr(l, &f))
        return false;
    int64_t e = (int64_t)n * size;
    *pl = (aff_plan){.base = f.base, .sy = c64(l, (uint64_t)f.sy), .halves_contig = f.s == e,
                     .s = f.s};
    if (f.s == e)
        pl->cond[AFF_WARP] = f.lin;
    else if (f.s == 0)
        pl->cond[AFF_UNI] = f.lin;
    else if (f.lin && !getenv("ZINC_NO_STRIDED"))
        pl->cond[AFF_STRIDED] = f.lin;
    if (f.rows && f.ntid_x && f.syv) {
        /* a run-time pitch: only the two halves, each a row */
        pl->sy = f.syv;
        if (f.s == e || f.s == 0)
            pl->cond[AFF_HALVES] = rows_with(l, &f, ZN_PART, "aff.halves");
    } else if (f.rows && f.ntid_x) {
        int64_t k = f.sy / e;
        if (f.s == e && f.sy > 0 && f.sy % e == 0 && k < 32 && !(k & (k - 1)))
            pl->cond[AFF_WARP] = or_cond(l, pl->cond[AFF_WARP],
                                         rows_with(l, &f, (uint64_t)k, "aff.row"));
        else if (f.s == 0 && f.sy == e)   /* a[ty] in blocks of 1 x N */
            pl->cond[AFF_WARP] = or_cond(l, pl->cond[AFF_WARP], rows_with(l, &f, 1, "aff.col"));
        if (f.s == 0 && f.sy == 0)
            pl->cond[AFF_UNI] = or_cond(l, pl->cond[AFF_UNI], f.rows);
        if (f.s == e || f.s == 0)
            pl->cond[AFF_HALVES] = rows_with(l, &f, ZN_PART, "aff.halves");
    }
    return pl->cond[AFF_WARP] || pl->cond[AFF_UNI] || pl->cond[AFF_HALVES] ||
           pl->cond[AFF_STRIDED];
}

static void plan_part(zn_lfn *l, unsigned h, zn_part *p, LLVMValueRef *base,
                      const aff_plan *pl)
{
    p->w = ZN_PART;
    p->a = NULL;
    p->m = lanes_of(l, l->emask, h * ZN_PART);
    *base = h ? LLVMBuildAdd(l->b, pl->base, pl->sy, "") : pl->base;
}

static void load_path(zn_lfn *l, int k, const aff_plan *pl, LLVMValueRef a, LLVMTypeRef et,
                      unsigned n, LLVMValueRef *out)
{
    unsigned size = ll_bits(et) / 8;
    zn_part whole = {.a = a, .m = l->emask, .w = ZN_LANES};
    switch (k) {
    case AFF_WARP:
        load_contig(l, &whole, pl->base, et, n, size, out);
        return;
    case AFF_UNI:
        load_one(l, &whole, pl->base, et, n, size, out);
        return;
    case AFF_HALVES: {
        LLVMValueRef res[ZN_NPARTS][8];
        for (unsigned h = 0; h < ZN_NPARTS; h++) {
            zn_part p;
            LLVMValueRef b;
            plan_part(l, h, &p, &b, pl);
            if (pl->halves_contig)
                load_contig(l, &p, b, et, n, size, res[h]);
            else
                load_one(l, &p, b, et, n, size, res[h]);
        }
        for (unsigned i = 0; i < n; i++)
            out[i] = ll_join_halves(l, res[0][i], res[1][i]);
        return;
    }
    case AFF_STRIDED: {
        zn_part p = strided_part(l, pl);
        load_gather(l, &p, et, n, size, out);
        return;
    }
    default:
        load_rt(l, a, et, n, out, false);
        return;
    }
}

static void store_path(zn_lfn *l, int k, const aff_plan *pl, LLVMValueRef a, LLVMValueRef *v,
                       unsigned n, unsigned size)
{
    zn_part whole = {.a = a, .m = l->emask, .w = ZN_LANES};
    switch (k) {
    case AFF_WARP:
        store_contig(l, &whole, pl->base, v, n, size);
        return;
    case AFF_UNI:
        store_one(l, &whole, pl->base, v, n, size);
        return;
    case AFF_HALVES:
        /* lower lanes first: the highest lane's value lands last */
        for (unsigned h = 0; h < ZN_NPARTS; h++) {
            zn_part p;
            LLVMValueRef b, pv[8];
            plan_part(l, h, &p, &b, pl);
            for (unsigned i = 0; i < n; i++)
                pv[i] = v[i] ? lanes_of(l, v[i], h * ZN_PART) : NULL;
            if (pl->halves_contig)
                store_contig(l, &p, b, pv, n, size);
            else
                store_one(l, &p, b, pv, n, size);
        }
        return;
    case AFF_STRIDED: {
        zn_part p = strided_part(l, pl);
        store_scatter(l, &p, v, n, size);
        return;
    }
    default:
        store_rt(l, a, v, n, size);
        return;
    }
}

/* Marks a conditional branch as almost never going to its false side: the
 * run-time fall-back of a proven shape, whose facts are launch constants.
 * The register allocator then keeps that path's values (the per-lane
 * address vectors, hoisted out of loops) spilled there, not in the hot
 * path. */
static void rarely_false(zn_lfn *l, LLVMValueRef br)
{
    LLVMContextRef ctx = l->m->ctx;
    LLVMMetadataRef md[3] = {
        LLVMMDStringInContext2(ctx, "branch_weights", 14),
        LLVMValueAsMetadata(LLVMConstInt(l->m->t_i32, 1u << 20, 0)),
        LLVMValueAsMetadata(LLVMConstInt(l->m->t_i32, 1, 0)),
    };
    LLVMSetMetadata(br, LLVMGetMDKindIDInContext(ctx, "prof", 4),
                    LLVMMetadataAsValue(ctx, LLVMMDNodeInContext2(ctx, md, 3)));
}

/* Runs the plan's paths as a chain of tests (the first always-true one
 * ends it); loads join their results with phis. */
static void run_plan(zn_lfn *l, aff_plan *pl, LLVMValueRef a, LLVMTypeRef et, unsigned n,
                     LLVMValueRef *out, LLVMValueRef *v, unsigned size)
{
    LLVMValueRef res[AFF_NPATHS][8];
    LLVMBasicBlockRef ends[AFF_NPATHS];
    unsigned npaths = 0;
    LLVMBasicBlockRef join = new_bb(l, out ? "ld.aff.done" : "st.aff.done");
    pl->cond[AFF_RT] = LLVMConstInt(l->m->t_i1, 1, 0);
    for (int k = 0; k < AFF_NPATHS; k++) {
        if (!pl->cond[k])
            continue;
        bool last = is_true(pl->cond[k]);
        LLVMBasicBlockRef path = NULL, next = NULL;
        if (!last) {
            path = new_bb(l, k == AFF_RT ? "aff.rt" : out ? "ld.affine" : "st.affine");
            next = new_bb(l, "aff.next");
            LLVMValueRef br = LLVMBuildCondBr(l->b, pl->cond[k], path, next);
            bool rt_next = true; /* the fall-back is all that is left */
            for (int j = k + 1; j < AFF_RT; j++)
                rt_next &= !pl->cond[j];
            if (rt_next)
                rarely_false(l, br);
            LLVMPositionBuilderAtEnd(l->b, path);
        }
        /* the fall-back rebuilds the lanes' addresses itself, so that the
         * address register's vector is computed only on this path */
        LLVMValueRef ak = k == AFF_RT ? zn_affine_lanes(l) : NULL;
        if (!ak)
            ak = a;
        if (out)
            load_path(l, k, pl, ak, et, n, res[npaths]);
        else
            store_path(l, k, pl, ak, v, n, size);
        ends[npaths++] = LLVMGetInsertBlock(l->b);
        LLVMBuildBr(l->b, join);
        if (last)
            break;
        LLVMPositionBuilderAtEnd(l->b, next);
    }
    LLVMPositionBuilderAtEnd(l->b, join);
    if (!out)
        return;
    for (unsigned i = 0; i < n; i++) {
        out[i] = LLVMBuildPhi(l->b, ll_vec(et), "ld");
        LLVMValueRef in_v[AFF_NPATHS];
        for (unsigned p = 0; p < npaths; p++)
            in_v[p] = res[p][i];
        LLVMAddIncoming(out[i], in_v, ends, npaths);
    }
}

/* A predicted window load (zn_lower_window.c), a gather where the
 * prediction does not hold; false: no prediction. */
static bool load_window(zn_lfn *l, LLVMValueRef a, LLVMTypeRef et, LLVMValueRef *out)
{
    zn_window w;
    if (!zn_window_plan(l, ll_bits(et) / 8, &w))
        return false;
    LLVMBasicBlockRef bb_win = new_bb(l, "ld.win"), bb_rt = new_bb(l, "ld.win.rt"),
        bb_join = new_bb(l, "ld.win.done");
    LLVMBuildCondBr(l->b, zn_window_test(l, &w, a), bb_win, bb_rt);

    LLVMPositionBuilderAtEnd(l->b, bb_win);
    LLVMValueRef vw = zn_window_fetch(l, &w, et);
    LLVMBasicBlockRef end_win = LLVMGetInsertBlock(l->b);
    LLVMBuildBr(l->b, bb_join);

    /* the prediction failed: a plain gather, not the shape tests (the
     * lanes are rarely contiguous or uniform then, and the tests' code
     * doubled mul_mat_vec_q's compile time) */
    LLVMPositionBuilderAtEnd(l->b, bb_rt);
    LLVMValueRef vr;
    zn_part whole = {.a = a, .m = l->emask, .w = ZN_LANES};
    load_gather(l, &whole, et, 1, ll_bits(et) / 8, &vr);
    LLVMBasicBlockRef end_rt = LLVMGetInsertBlock(l->b);
    LLVMBuildBr(l->b, bb_join);

    LLVMPositionBuilderAtEnd(l->b, bb_join);
    *out = LLVMBuildPhi(l->b, ll_vec(et), "ld");
    LLVMValueRef in_v[2] = {vw, vr};
    LLVMBasicBlockRef in_b[2] = {end_win, end_rt};
    LLVMAddIncoming(*out, in_v, in_b, 2);
    return true;
}

void zn_access_load(zn_lfn *l, LLVMValueRef a, LLVMTypeRef et, unsigned n,
                    LLVMValueRef *out)
{
    unsigned size = ll_bits(et) / 8;
    aff_plan pl;
    if (!affine_plan(l, n, size, &pl)) {
        if (n != 1 || !load_window(l, a, et, out))
            load_rt(l, a, et, n, out, true);
        return;
    }
    run_plan(l, &pl, a, et, n, out, NULL, size);
}

void zn_access_gather(zn_lfn *l, LLVMValueRef a, LLVMTypeRef et, LLVMValueRef *out)
{
    zn_part whole = {.a = a, .m = l->emask, .w = ZN_LANES};
    load_gather(l, &whole, et, 1, ll_bits(et) / 8, out);
}

void zn_access_scatter(zn_lfn *l, LLVMValueRef a, LLVMValueRef v, unsigned size)
{
    zn_part whole = {.a = a, .m = l->emask, .w = ZN_LANES};
    store_scatter(l, &whole, &v, 1, size);
}

void zn_access_store(zn_lfn *l, LLVMValueRef a, LLVMValueRef *v, unsigned n,
                     unsigned size)
{
    bool any = false;
    for (unsigned i = 0; i < n; i++)
        any |= v[i] != NULL;
    if (!any)
        return;
    aff_plan pl;
    if (!affine_plan(l, n, size, &pl)) {
        store_rt(l, a, v, n, size);
        return;
    }
    run_plan(l, &pl, a, NULL, n, NULL, v, size);
}
