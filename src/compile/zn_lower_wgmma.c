/* zn_lower_wgmma.c: sm_90a's warpgroup matrix multiply (wgmma).
 *
 *   wgmma.mma_async.sync.aligned.m64nNkK.dtype.atype.btype
 *       d, a-desc | {a regs}, b-desc, scale-d, imm-scale-a, imm-scale-b
 *       {, imm-trans-a}, imm-trans-b
 *   wgmma.fence / commit_group / wait_group N .sync.aligned
 *
 * Four warps (a warpgroup) compute D (64 x N) = A (64 x K) B (K x N) + D
 * together, but each warp's share is its own: warp w of the group (warp
 * index % 4) holds rows 16w..16w+15 of D and needs only those rows of A
 * and all of B. Its D registers are mma.sync's m16n8 accumulator fragments
 * of the N/8 column blocks in order, and A in registers is mma.sync's
 * m16n8k16 (m16n8k8 for tf32) A fragment. So each warp runs N/8 mma.sync
 * tiles (zn_mma_tile_m16n8: the same arithmetic as mma.sync), with A and
 * B gathered from shared memory where descriptors give them. The
 * instruction completes when it is issued, which is one valid schedule
 * of an asynchronous operation; fence, commit_group and wait_group then
 * have nothing to wait for.
 *
 * A matrix descriptor (64 bits): start address >> 4 in bits 0-13,
 * leading-dimension byte offset (LBO) >> 4 in 16-29, stride-dimension
 * byte offset (SBO) >> 4 in 32-45, layout in 62-63 (0 interleave, 1
 * 128-byte swizzle, 2 64-byte, 3 32-byte). The canonical layouts, in
 * 16-byte chunks of T elements (T = 16 / element size), as CUTLASS's
 * make_gmma_desc documents them, for element (r, k) of a K-major operand
 * (r a row of A or a column of B):
 *   interleave: (r % 8) * 16 + (r / 8) * SBO + (k / T) * LBO
 *   swizzled (W = 2, 4, 8 chunks for 32, 64, 128 bytes):
 *               (r % 8) * 16W + (r / 8) * SBO + (k / T) * 16
 * and for an MN-major one (imm-trans 1; f16/bf16 only), chunk q = r / T:
 *   interleave: q * SBO + (k % 8) * 16 + (k / 8) * LBO
 *   swizzled:   (q % W) * 16 + (q / W) * LBO + (k % 8) * 16W + (k / 8) * SBO
 * plus (k % T or r % T) times the element size; the swizzle (CUTLASS's
 * Swizzle<B,4,3>) then XORs address bits 7.. into bits 4.. of the shared
 * address itself (the descriptor's base offset, for patterns not aligned
 * to their repeat, is not modelled: CUTLASS writes 0). Supported: f16 and
 * bf16 (k16) into f32, f16 into f16, tf32 (k8) into f32, e4m3/e5m2 (k32)
 * into f32 or f16, s8/u8 (k32, .satfinite) into s32 (8-bit inputs go
 * through mma.sync's m16n8k32 tiles, 4 k values per register) and b1
 * (k256, .and.popc) into s32: 32 k values per register, so in bytes the
 * layouts and fragments are the 8-bit ones, and each word pair adds
 * popc(a AND b) (mma.sync's m16n8k256 tile). */
#include "zn_lower.h"

#include <stdio.h>
#include <stdlib.h>

enum { DESC_INTERLEAVE = 0, DESC_B128 = 1, DESC_B64 = 2, DESC_B32 = 3 };

typedef struct wg_shape {
    unsigned n, k;          /* m64nNkK */
    ptx_type dt, at, bt;    /* accumulator and input types (fp8: E4M3X2/E5M2X2) */
    unsigned esz;           /* input element bytes */
} wg_shape;

static bool eight_bit(ptx_type t)
{
    return t == PTX_T_S8 || t == PTX_T_U8 || t == PTX_T_E4M3X2 || t == PTX_T_E5M2X2;
}

static bool fp8(ptx_type t)
{
    return t == PTX_T_E4M3X2 || t == PTX_T_E5M2X2;
}

static bool shape_of(const ptx_ins *ins, wg_shape *s)
{
    bool found = false;
    ptx_type t[3];
    unsigned nt = 0;
    for (unsigned i = 0; i < ins->nmods; i++) {
        int md = ins->mods[i];
        unsigned n, k;
        char tail;
        if (!found && sscanf(ptx_mod_table[md].name, "m64n%uk%u%c", &n, &k, &tail) == 2) {
            found = true;
            s->n = n, s->k = k;
        } else if (nt < 3 && ptx_mod_table[md].cat == PTX_MC_TYPE) {
            t[nt++] = (ptx_type)(md - PTX_MOD_b8 + PTX_T_B8);
        } else if (nt < 3 && (md == PTX_MOD_e4m3 || md == PTX_MOD_e5m2)) {
            t[nt++] = md == PTX_MOD_e4m3 ? PTX_T_E4M3X2 : PTX_T_E5M2X2;
        } else if (nt < 3 && md == PTX_MOD_b1) {
            t[nt++] = PTX_T_B32;    /* b1: 32 k values per register */
        }
    }
    if (!found || nt != 3)
        return false;
    s->dt = t[0], s->at = t[1], s->bt = t[2];
    if (s->at == PTX_T_B32) {
        s->esz = 1;     /* gathered as the 8-bit types' words */
        return s->k == 256 && s->bt == PTX_T_B32 && s->dt == PTX_T_S32 &&
               ins->subop == PTX_SUB_AND && (ins->flags & PTX_F(popc_f));
    }
    if (eight_bit(s->at)) {
        s->esz = 1;
        bool f = fp8(s->at);
        return s->k == 32 && f == fp8(s->bt) && eight_bit(s->bt) &&
               (f ? s->dt == PTX_T_F32 || s->dt == PTX_T_F16 : s->dt == PTX_T_S32);
    }
    if (s->at != s->bt)
        return false;
    switch (s->at) {
    case PTX_T_F16:
        s->esz = 2;
        return s->k == 16 && (s->dt == PTX_T_F32 || s->dt == PTX_T_F16);
    case PTX_T_BF16:
        s->esz = 2;
        return s->k == 16 && s->dt == PTX_T_F32;
    case PTX_T_TF32:
        s->esz = 4;
        return s->k == 8 && s->dt == PTX_T_F32;
    default:
        return false;
    }
}

static LLVMValueRef k32(zn_lfn *l, uint64_t v)
{
    return ll_const_vec(l->m->t_i32, v);
}

/* one descriptor's fields and what its layout implies, as <32 x i32>
 * (the value may differ per lane), decoded once per instruction */
typedef struct desc {
    LLVMValueRef start, lbo, sbo;
    LLVMValueRef inter;     /* i1: the interleaved layout */
    LLVMValueRef w;         /* 16-byte chunks per swizzled row: 1, 2, 4, 8 */
    LLVMValueRef row;       /* bytes per swizzled row: 16 w */
    LLVMValueRef swz;       /* the swizzle's mask of row bits: w - 1 */
} desc;

static desc read_desc(zn_lfn *l, const ptx_opnd *o)
{
    LLVMBuilderRef b = l->b;
    zn_lmod *m = l->m;
    LLVMValueRef v = zn_src(l, o, PTX_T_B64);
    LLVMTypeRef v32 = ll_vec(m->t_i32);
    LLVMValueRef f[4];
    static const unsigned shift[4] = {0, 16, 32, 62};
    for (int i = 0; i < 4; i++) {
        LLVMValueRef x = LLVMBuildTrunc(b, LLVMBuildLShr(b, v, ll_const_vec(m->t_i64, shift[i]), ""),
                                        v32, "");
        f[i] = LLVMBuildAnd(b, x, k32(l, i == 3 ? 3 : 0x3fff), "");
        if (i < 3)
            f[i] = LLVMBuildShl(b, f[i], k32(l, 4), "");
    }
    /* layout code 0 interleave, 1 128-byte, 2 64-byte, 3 32-byte swizzle:
     * w = 16 >> code, with interleave's 1 */
    LLVMValueRef inter = LLVMBuildICmp(b, LLVMIntEQ, f[3], k32(l, 0), "");
    LLVMValueRef w = LLVMBuildSelect(b, inter, k32(l, 1),
                                     LLVMBuildLShr(b, k32(l, 16), f[3], ""), "");
    return (desc){f[0], f[1], f[2], inter, w, LLVMBuildMul(b, w, k32(l, 16), ""),
                  LLVMBuildSub(b, w, k32(l, 1), "")};
}

/* The shared address of element (r, k) of an operand (r and k: per-lane
 * <32 x i32>), as the header's canonical layouts place it. */
static LLVMValueRef elem_addr(zn_lfn *l, const desc *d, bool mn_major, unsigned esz,
                              LLVMValueRef r, LLVMValueRef k)
{
    LLVMBuilderRef b = l->b;
    unsigned t = 16 / esz;
    LLVMValueRef off;
#define UDIV(x, c) LLVMBuildUDiv(b, x, k32(l, c), "")
#define UREM(x, c) LLVMBuildURem(b, x, k32(l, c), "")
#define MUL(x, y) LLVMBuildMul(b, x, y, "")
#define ADD(x, y) LLVMBuildAdd(b, x, y, "")
    if (!mn_major) {
        LLVMValueRef kc = UDIV(k, t);
        LLVMValueRef in = ADD(ADD(MUL(UREM(r, 8), k32(l, 16)), MUL(UDIV(r, 8), d->sbo)),
                              MUL(kc, d->lbo));
        LLVMValueRef sw = ADD(ADD(MUL(UREM(r, 8), d->row), MUL(UDIV(r, 8), d->sbo)),
                              MUL(kc, k32(l, 16)));
        off = ADD(LLVMBuildSelect(b, d->inter, in, sw, ""), MUL(UREM(k, t), k32(l, esz)));
    } else {
        LLVMValueRef q = UDIV(r, t);
        LLVMValueRef in = ADD(ADD(MUL(q, d->sbo), MUL(UREM(k, 8), k32(l, 16))),
                              MUL(UDIV(k, 8), d->lbo));
        LLVMValueRef sw = ADD(ADD(MUL(LLVMBuildURem(b, q, d->w, ""), k32(l, 16)),
                                  MUL(LLVMBuildUDiv(b, q, d->w, ""), d->lbo)),
                              ADD(MUL(UREM(k, 8), d->row), MUL(UDIV(k, 8), d->sbo)));
        off = ADD(LLVMBuildSelect(b, d->inter, in, sw, ""), MUL(UREM(r, t), k32(l, esz)));
    }
    LLVMValueRef a = ADD(d->start, off);
    /* Swizzle<B,4,3>: bits 7..7+B of the address into bits 4..4+B */
    LLVMValueRef x = LLVMBuildAnd(b, LLVMBuildLShr(b, a, k32(l, 7), ""), d->swz, "");
    return LLVMBuildXor(b, a, LLVMBuildShl(b, x, k32(l, 4), ""), "");
#undef UDIV
#undef UREM
#undef MUL
#undef ADD
}

/* one element per lane from shared memory: its bits, zero-extended to i32 */
static LLVMValueRef load_elem(zn_lfn *l, LLVMValueRef addr, unsigned esz)
{
    zn_lmod *m = l->m;
    LLVMBuilderRef b = l->b;
    LLVMValueRef a = LLVMBuildAdd(b, zn_shared_base(l),
                                  LLVMBuildZExt(b, addr, ll_vec(m->t_i64), ""), "");
    LLVMValueRef v;
    zn_access_gather(l, a, esz == 2 ? m->t_i16 : m->t_i32, &v);
    return esz == 2 ? LLVMBuildZExt(b, v, ll_vec(m->t_i32), "") : v;
}

/* A fragment element i's (row, k) within the warp's 16 x K tile, and B's
 * (k, n) within an 8-column block: mma.sync's m16n8k16 / m16n8k8 tf32
 * layouts (g = lane / 4, t = lane % 4) */
static void a_pos(bool tf32, int lane, int i, int *row, int *k)
{
    int g = lane >> 2, t = lane & 3;
    if (tf32) {
        *row = g + ((i & 1) ? 8 : 0);
        *k = t + (i >= 2 ? 4 : 0);
    } else {
        *row = g + ((i & 2) ? 8 : 0);
        *k = 2 * t + (i & 1) + (i >= 4 ? 8 : 0);
    }
}

static void b_pos(bool tf32, int lane, int i, int *k, int *n)
{
    int g = lane >> 2, t = lane & 3;
    *n = g;
    *k = tf32 ? t + 4 * i : 2 * t + (i & 1) + (i >= 2 ? 8 : 0);
}

/* 8-bit inputs: element i is register i, a word of 4 k values (m16n8k32's
 * layouts) */
static void a_pos8(bool unused, int lane, int i, int *row, int *k)
{
    (void)unused;
    int g = lane >> 2, t = lane & 3;
    *row = g + ((i & 1) ? 8 : 0);
    *k = 4 * (t + (i >= 2 ? 4 : 0));
}

static void b_pos8(bool unused, int lane, int i, int *k, int *n)
{
    (void)unused;
    int g = lane >> 2, t = lane & 3;
    *n = g;
    *k = 4 * (t + 4 * i);
}

typedef void (*pos_fn)(bool, int, int, int *, int *);

/* per-lane constant vectors of a position function's two coordinates */
static void pos_vecs(zn_lfn *l, pos_fn f, bool tf32, int i, LLVMValueRef *x, LLVMValueRef *y)
{
    LLVMValueRef ex[ZN_LANES], ey[ZN_LANES];
    for (int lane = 0; lane < ZN_LANES; lane++) {
        int a, c;
        f(tf32, lane, i, &a, &c);
        ex[lane] = LLVMConstInt(l->m->t_i32, (unsigned)a, 0);
        ey[lane] = LLVMConstInt(l->m->t_i32, (unsigned)c, 0);
    }
    *x = LLVMConstVector(ex, ZN_LANES);
    *y = LLVMConstVector(ey, ZN_LANES);
}

/* the registers of an operand gathered through a descriptor: n elements,
 * per_reg of them packed per 32-bit register (16-bit ones: low half
 * first); (row, k) of element i from pos, offset by row0 / col0 */
static void gather_regs(zn_lfn *l, const desc *d, bool mn_major, const wg_shape *s, bool is_a,
                        LLVMValueRef row0, unsigned col0, LLVMValueRef *regs)
{
    LLVMBuilderRef b = l->b;
    bool tf32 = s->at == PTX_T_TF32, word = s->esz == 1;
    pos_fn pos = word ? (is_a ? a_pos8 : b_pos8) : is_a ? a_pos : b_pos;
    int n = tf32 || word ? (is_a ? 4 : 2) : (is_a ? 8 : 4), per = s->esz == 2 ? 2 : 1;
    for (int i = 0; i < n; i++) {
        LLVMValueRef x, y;   /* A: (row, k); B: (k, n) */
        pos_vecs(l, pos, tf32, i, &x, &y);
        LLVMValueRef r = is_a ? LLVMBuildAdd(b, x, row0, "") : LLVMBuildAdd(b, y, k32(l, col0), "");
        LLVMValueRef k = is_a ? y : x;
        /* 8-bit: the 4 k values of a register are one aligned word */
        LLVMValueRef v = load_elem(l, elem_addr(l, d, mn_major, s->esz, r, k), word ? 4 : s->esz);
        if (per == 1)
            regs[i] = v;
        else if (i % 2 == 0)
            regs[i / 2] = v;
        else
            regs[i / 2] = LLVMBuildOr(b, regs[i / 2], LLVMBuildShl(b, v, k32(l, 16), ""), "");
    }
}

/* an immediate operand's value (imm-scale-*, imm-trans-*), -2 if not one */
static int64_t imm(const ptx_ins *ins, unsigned i)
{
    return i < ins->nopnds && ins->opnds[i].kind == PTX_OPND_IMM ? ins->opnds[i].ival : -2;
}

void zn_lower_wgmma(zn_lfn *l, const ptx_ins *ins)
{
    zn_lmod *m = l->m;
    LLVMBuilderRef b = l->b;
    if (!zn_has_mod(ins, PTX_MOD_mma_async)) {
        /* fence, commit_group, wait_group: every wgmma has completed */
        if (zn_has_mod(ins, PTX_MOD_fence_f) || (ins->flags & (PTX_F(commit_group) | PTX_F(wait_group))))
            return;
        zn_lerr_unsupported(l);
        return;
    }
    wg_shape s;
    const ptx_opnd *o = ins->opnds;
    if (!shape_of(ins, &s) || ins->nopnds < 4 || o[0].kind != PTX_OPND_VEC) {
        zn_lerr_unsupported(l);
        return;
    }
    bool a_regs = o[1].kind == PTX_OPND_VEC, half = s.esz == 2, integer = s.dt == PTX_T_S32;
    bool acc16 = s.dt == PTX_T_F16, sat = ins->flags & PTX_F(satfinite);
    unsigned nd = acc16 ? s.n / 4 : s.n / 2;
    /* d, a, b, scale-d; then imm-scale-a, imm-scale-b (floating point);
     * then f16/bf16's imm-trans-a (A in shared memory only), imm-trans-b */
    unsigned want = integer ? 4 : !half ? 6 : a_regs ? 7 : 8;
    int64_t sa = integer ? 1 : imm(ins, 4), sb = integer ? 1 : imm(ins, 5);
    int64_t ta = half && !a_regs ? imm(ins, 6) : 0, tb = half ? imm(ins, want - 1) : 0;
    if (ins->nopnds != want || o[0].nelems != nd || (a_regs && o[1].nelems != 4) ||
        (sa != 1 && sa != -1) || (sb != 1 && sb != -1) || (ta != 0 && ta != 1) ||
        (tb != 0 && tb != 1) || (sat && !integer)) {
        zn_lerr(l, "wgmma: operands do not match the shape and types");
        return;
    }
    /* rows 16w.. of A and D: w, the warp's rank in its warpgroup */
    LLVMValueRef row0 = LLVMBuildMul(b, LLVMBuildAnd(b, zn_sreg(l, PTX_SREG_WARPID), k32(l, 3), ""),
                                     k32(l, 16), "");
    /* imm-scale -1: every element's sign bit flipped */
    LLVMValueRef neg = k32(l, s.esz == 1 ? 0x80808080u : half ? 0x80008000u : 0x80000000u);
    LLVMValueRef ra[4];
    if (a_regs) {
        for (int r = 0; r < 4; r++)
            ra[r] = zn_src(l, &o[1].elems[r], PTX_T_B32);
    } else {
        desc da = read_desc(l, &o[1]);
        gather_regs(l, &da, ta == 1, &s, true, row0, 0, ra);
    }
    if (sa == -1)
        for (int r = 0; r < 4; r++)
            ra[r] = LLVMBuildXor(b, ra[r], neg, "");
    /* scale-d: false makes D = A B */
    LLVMValueRef keep = o[3].kind == PTX_OPND_IMM ? LLVMConstInt(m->t_i1, o[3].ival != 0, 0) : NULL;
    LLVMValueRef keepv = keep ? NULL : zn_src(l, &o[3], PTX_T_PRED);
    desc db = read_desc(l, &o[2]);
    LLVMTypeRef vc = ll_vec(integer ? m->t_i32 : m->t_f32);
    for (unsigned j = 0; j < s.n / 8; j++) {
        LLVMValueRef rb[2], ce[4], de[4];
        gather_regs(l, &db, tb == 1, &s, false, NULL, 8 * j, rb);
        if (sb == -1)
            for (int r = 0; r < 2; r++)
                rb[r] = LLVMBuildXor(b, rb[r], neg, "");
        for (int i = 0; i < 4; i++) {
            if (acc16) {
                LLVMValueRef w = zn_src(l, &o[0].elems[2 * j + i / 2], PTX_T_B32);
                if (i & 1)
                    w = LLVMBuildLShr(b, w, k32(l, 16), "");
                ce[i] = zn_half_to_f32(l, LLVMBuildTrunc(b, w, ll_vec(m->t_i16), ""), false);
            } else {
                ce[i] = zn_src(l, &o[0].elems[4 * j + i], integer ? PTX_T_S32 : PTX_T_F32);
            }
            LLVMValueRef zero = LLVMConstNull(vc);
            ce[i] = keep ? (LLVMIsNull(keep) ? zero : ce[i])
                         : LLVMBuildSelect(b, keepv, ce[i], zero, "");
        }
        if (s.at == PTX_T_B32)
            zn_mma_tile_m16n8_b1(l, ra, rb, ce, de);
        else if (s.esz == 1)
            zn_mma_tile_m16n8_8bit(l, s.at, s.bt, acc16, sat, ra, rb, ce, de);
        else
            zn_mma_tile_m16n8(l, s.at, acc16, ra, rb, ce, de);
        if (acc16) {
            for (int r = 0; r < 2; r++) {
                LLVMTypeRef v32 = ll_vec(m->t_i32);
                LLVMValueRef lo = LLVMBuildZExt(b, zn_f32_to_half(l, de[2 * r], false, false), v32, "");
                LLVMValueRef hi = LLVMBuildZExt(b, zn_f32_to_half(l, de[2 * r + 1], false, false), v32, "");
                zn_dst(l, &o[0].elems[2 * j + r], PTX_T_B32,
                       LLVMBuildOr(b, lo, LLVMBuildShl(b, hi, k32(l, 16), ""), ""));
            }
        } else {
            for (int i = 0; i < 4; i++)
                zn_dst(l, &o[0].elems[4 * j + i], integer ? PTX_T_S32 : PTX_T_F32, de[i]);
        }
    }
}
