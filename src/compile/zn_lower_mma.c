/* zn_lower_mma.c: warp matrix multiply-accumulate (mma.sync, wmma.mma) and
 * the fragment loads and stores around it (wmma.load/store).
 *
 * A fragment is spread over the warp: element i of lane l sits at
 * (row, col) of the matrix as the PTX ISA's "Matrix Fragments" tables say
 * (*_loc below). With every register a <32 x T> vector, the multiply is
 * done without leaving vector code: for output element j and each k, the
 * A value every lane needs (row of its D element, column k) is gathered
 * from the A element vectors with constant shuffles (the owner lane and
 * element are known at compile time), likewise B, and D_j += A * B lane by
 * lane. Products of bf16/tf32 values are exact in f32 and are added in k
 * order; f16 ones are summed as the H200's tensor core does (hmma_step,
 * one step with C as its accumulator); f16, bf16, tf32 and f64 shapes run
 * in a helper function per shape and types (mma_call); integer shapes go a
 * 32-bit word of packed elements at a time (see mshape), added with 32-bit
 * wrap-around. fp8 (e4m3, e5m2) operands
 * have the s8 layouts and go a word at a time too: each byte is decoded to
 * f32 (exact) and the products are summed as NVIDIA's H200 sums them
 * (hmma_step: two truncating tensor-core steps, then C).
 *
 * wmma's register layout is implementation-defined; Zinc uses the mma
 * m16n8k16 layouts (A: one m16n8k16 A fragment, f16 A/B: repeated in the
 * upper eight elements; B and C/D: two n8 halves side by side), for f16,
 * bf16 and (a word of 4 bytes per register) s8/u8; m32n8k16 stacks two
 * m16 tiles (s8/u8 A and C/D: four m8 slices), m8n32k16 puts four n8
 * slices side by side; tf32 (m16n16k8) uses the m16n8k8 tf32 layouts the same way, f64
 * (m8n8k4) mma.m8n8k4's, s4/u4 (m8n8k32) and b1 (m8n8k128) those of
 * mma.m8n8k32/k128. */
#include "zn_lower.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ZN_MMA_SLOTS 24   /* mma_call's buffer: A, B and C registers */

/* slot i of an mma_call buffer (array type arr at p) */
static LLVMValueRef buf_slot(zn_lfn *l, LLVMTypeRef arr, LLVMValueRef p, int i)
{
    LLVMValueRef idx[2] = {LLVMConstInt(l->m->t_i32, 0, 0), LLVMConstInt(l->m->t_i32, (unsigned)i, 0)};
    return LLVMBuildInBoundsGEP2(l->b, arr, p, idx, 2, "");
}

typedef enum mclass { MC_F16, MC_INT, MC_TF32, MC_F64, MC_WMMA, MC_FP8 } mclass;

/* Integer shapes (s8/u8, s4/u4, b1) and fp8 are multiplied a 32-bit word at a
 * time: every A register holds consecutive k columns of one row and every
 * B register the same k rows of one column, so D(r, c) is a sum over k
 * words of dot(A word, B word). k counts words for MC_INT (kw = k * bits
 * / 32) and a_loc/b_loc give word positions. */
typedef struct mshape {
    int m, n, k;
    mclass cls;
} mshape;

/* element i of matrix A held by lane l (g = l >> 2, t = l & 3) */
static void a_loc(const mshape *s, int l, int i, int *row, int *col)
{
    int g = l >> 2, t = l & 3;
    switch (s->cls) {
    case MC_F16: case MC_WMMA:
        if (s->m == 32) {   /* wmma m32n8k16: two m16 tiles */
            *row = g + ((i & 2) ? 8 : 0) + ((i & 8) ? 16 : 0);
            *col = 2 * t + (i & 1) + ((i & 4) ? 8 : 0);
            return;
        }
        i &= s->m == 8 ? 3 : 7; /* wmma f16: the distinct elements repeat */
        *row = s->m == 8 ? g : g + ((i & 2) ? 8 : 0);
        *col = s->m == 8 ? 2 * t + (i & 1) + ((i & 2) ? 8 : 0)
                         : 2 * t + (i & 1) + (i >= 4 ? 8 : 0);
        return;
    case MC_TF32:
        *row = g + ((i & 1) ? 8 : 0);
        *col = t + (i >= 2 ? 4 : 0);
        return;
    case MC_F64:
        *row = g;
        *col = t;
        return;
    case MC_INT: case MC_FP8: /* register i: a1/a3 are the rows g + 8
                                * (m16), a2/a3 the second half of k;
                                * wmma s8/u8 m32n8k16: four m8 slices */
        if (s->m == 32) {
            *row = g + 8 * i;
            *col = t;
            return;
        }
        *row = g + (s->m == 16 && (i & 1) ? 8 : 0);
        *col = t + (i >= 2 ? 4 : 0);
        return;
    }
}

static void b_loc(const mshape *s, int l, int i, int *row, int *col)
{
    int g = l >> 2, t = l & 3;
    *col = g;
    switch (s->cls) {
    case MC_F16:
        *row = 2 * t + (i & 1) + (i >= 2 ? 8 : 0);
        return;
    case MC_WMMA:
        /* n8 slices side by side (n16: two, n32: four, n8: one); f16's
         * 16 elements repeat the distinct ones */
        i &= s->n * 4 / 8 - 1;
        *row = 2 * t + (i & 1) + ((i & 2) ? 8 : 0);
        *col = g + 8 * (i >> 2);
        return;
    case MC_TF32:   /* wmma m16n16k8 (n16): two n8 halves side by side */
        *row = t + 4 * (s->n == 16 ? (i & 1) : i);
        *col = g + (s->n == 16 ? 8 * (i >> 1) : 0);
        return;
    case MC_F64:
        *row = t;
        return;
    case MC_INT: case MC_FP8: /* register i: word row t; b1 (m16n8k32
                               * s8, k64 s4, k256 b1) is the second half of k;
                               * wmma s8/u8 (n16): the two n8 halves */
        *row = s->n >= 16 ? t : t + 4 * i;     /* wmma n32: four n8 slices */
        *col = g + (s->n >= 16 ? 8 * i : 0);
        return;
    }
}

static void c_loc(const mshape *s, int l, int i, int *row, int *col)
{
    int g = l >> 2, t = l & 3;
    *row = g + ((i & 2) ? 8 : 0);
    *col = 2 * t + (i & 1) + (i >= 4 ? 8 : 0);
    if (s->m == 8) {        /* m8n8: c0, c1; wmma m8n32k16: four n8 slices */
        *row = g;
        *col = 2 * t + (i & 1) + 8 * (i >> 1);
    } else if (s->m == 32) { /* wmma m32n8k16: four m8 slices */
        *row = g + 8 * (i >> 1);
        *col = 2 * t + (i & 1);
    }
}

typedef void (*loc_fn)(const mshape *, int, int, int *, int *);

/* ---- element vectors ------------------------------------------------------ */

static ptx_type type_of_mod(uint16_t mod)
{
    return (ptx_type)(mod - PTX_MOD_b8 + PTX_T_B8);
}

/* an operand type of mma: a PTX type, or a packed integer element (s8/u8
 * are PTX types; s4/u4/b1 are SHAPE modifiers, they exist only here) */
typedef struct etype {
    ptx_type t;   /* s4/u4: S8/U8; b1: B32; e4m3/e5m2: E4M3X2/E5M2X2 */
    int bits;     /* integer element width (8, 4, 1); 0 for the others */
    bool sign;
} etype;

/* The types written on the instruction, in order (mma has four). */
static int ins_types(const ptx_ins *ins, etype *t, int max)
{
    int n = 0;
    for (unsigned i = 0; i < ins->nmods && n < max; i++) {
        int md = ins->mods[i];
        if (ptx_mod_table[md].cat == PTX_MC_TYPE) {
            ptx_type pt = type_of_mod((uint16_t)md);
            int bits = pt == PTX_T_S8 || pt == PTX_T_U8 ? 8 : 0;
            t[n++] = (etype){pt, bits, pt == PTX_T_S8};
        } else if (md == PTX_MOD_s4 || md == PTX_MOD_u4) {
            t[n++] = (etype){md == PTX_MOD_s4 ? PTX_T_S8 : PTX_T_U8, 4, md == PTX_MOD_s4};
        } else if (md == PTX_MOD_b1) {
            t[n++] = (etype){PTX_T_B32, 1, false};
        } else if (md == PTX_MOD_e4m3 || md == PTX_MOD_e5m2) {
            t[n++] = (etype){md == PTX_MOD_e4m3 ? PTX_T_E4M3X2 : PTX_T_E5M2X2, 8, false};
        }
    }
    return n;
}

static unsigned per_reg(ptx_type t)
{
    switch (t) {
    case PTX_T_F16: case PTX_T_BF16: return 2;
    default: return 1; /* packed integers are handled a word at a time */
    }
}

/* The register operand r of a {..} fragment as <32 x i32> (f64: double). */
static LLVMValueRef frag_reg(zn_lfn *l, const ptx_opnd *v, unsigned r, ptx_type t)
{
    const ptx_opnd *o = v->kind == PTX_OPND_VEC ? &v->elems[r] : v;
    return zn_src(l, o, t == PTX_T_F64 ? PTX_T_F64 : t == PTX_T_F32 ? PTX_T_F32 : PTX_T_B32);
}

/* The type frag_reg gives a register of element type t. */
static LLVMTypeRef frag_reg_type(zn_lmod *m, ptx_type t)
{
    return ll_vec(t == PTX_T_F64 ? m->t_f64 : t == PTX_T_F32 ? m->t_f32 : m->t_i32);
}

/* Element i of a fragment, from the register r that holds it, as the
 * arithmetic type: f32 (f16, bf16, tf32, f32), i32 (s8/u8/s32) or f64. */
static LLVMValueRef decode_elem(zn_lfn *l, LLVMValueRef r, unsigned i, ptx_type t)
{
    zn_lmod *m = l->m;
    LLVMBuilderRef b = l->b;
    switch (t) {
    case PTX_T_F16: case PTX_T_BF16: {
        if (i & 1)
            r = LLVMBuildLShr(b, r, ll_const_vec(m->t_i32, 16), "");
        LLVMValueRef h = LLVMBuildTrunc(b, r, ll_vec(m->t_i16), "");
        return zn_half_to_f32(l, h, t == PTX_T_BF16);
    }
    case PTX_T_TF32: /* the low 13 bits are not part of a tf32 */
        r = LLVMBuildAnd(b, r, ll_const_vec(m->t_i32, 0xffffe000u), "");
        return LLVMBuildBitCast(b, r, ll_vec(m->t_f32), "");
    default:
        return r;
    }
}

static LLVMValueRef frag_elem(zn_lfn *l, const ptx_opnd *v, unsigned i, ptx_type t)
{
    return decode_elem(l, frag_reg(l, v, i / per_reg(t), t), i, t);
}

/* lanes' values src[idx[l]][from[l]] as one vector (constant shuffles) */
static LLVMValueRef gather(zn_lfn *l, LLVMValueRef *src, const int *idx, const int *from)
{
    zn_lmod *m = l->m;
    LLVMValueRef res = NULL;
    bool done[64] = {false};
    for (int lane = 0; lane < ZN_LANES; lane++) {
        int i = idx[lane];
        if (done[i])
            continue;
        done[i] = true;
        LLVMValueRef sm[ZN_LANES], bm[ZN_LANES];
        for (int x = 0; x < ZN_LANES; x++) {
            sm[x] = LLVMConstInt(m->t_i32, idx[x] == i ? (unsigned)from[x] : 0, 0);
            bm[x] = LLVMConstInt(m->t_i1, idx[x] == i, 0);
        }
        LLVMValueRef sh = LLVMBuildShuffleVector(l->b, src[i], LLVMGetPoison(LLVMTypeOf(src[i])),
                                                 LLVMConstVector(sm, ZN_LANES), "");
        res = res ? LLVMBuildSelect(l->b, LLVMConstVector(bm, ZN_LANES), sh, res, "") : sh;
    }
    return res;
}

/* where (element, lane) each matrix position lives */
typedef struct owner { int8_t i, lane; } owner;

static void invert(const mshape *s, loc_fn loc, int nel, owner *tab, int cols)
{
    for (int lane = 0; lane < ZN_LANES; lane++)
        for (int i = 0; i < nel; i++) {
            int r, c;
            loc(s, lane, i, &r, &c);
            tab[r * cols + c] = (owner){(int8_t)i, (int8_t)lane};
        }
}

/* d = a * b + c for fragments given as element vectors */
/* s32 c + sum with .satfinite: clamped to the s32 range (the sum itself,
 * at most 32 products of 8-bit or 64 of 4-bit values, cannot overflow) */
static LLVMValueRef add_sat(zn_lfn *l, LLVMValueRef c, LLVMValueRef sum)
{
    zn_lmod *m = l->m;
    LLVMTypeRef v64 = ll_vec(m->t_i64);
    LLVMValueRef w = LLVMBuildAdd(l->b, LLVMBuildSExt(l->b, c, v64, ""),
                                  LLVMBuildSExt(l->b, sum, v64, ""), "");
    w = ll_intrin2(l, "llvm.smax", w, ll_const_vec(m->t_i64, (uint64_t)(int64_t)INT32_MIN));
    w = ll_intrin2(l, "llvm.smin", w, ll_const_vec(m->t_i64, INT32_MAX));
    return LLVMBuildTrunc(l->b, w, ll_vec(m->t_i32), "");
}

/* element j of a packed word, sign- or zero-extended to i32 */
static LLVMValueRef unpack(zn_lfn *l, LLVMValueRef w, const etype *e, int j)
{
    return ll_unpack(l, w, (unsigned)e->bits, (unsigned)j, e->sign);
}

/* the integer product of an A word and a B word: the dot product of their
 * packed elements, or for b1 popc(a AND/XOR b) */
typedef struct intop {
    etype a, b;
    bool xor_popc;
    bool acc16;   /* fp8: f16 C/D */
} intop;

static LLVMValueRef int_dot(zn_lfn *l, const intop *op, LLVMValueRef a, LLVMValueRef b)
{
    if (op->a.bits == 1) {
        LLVMValueRef x = op->xor_popc ? LLVMBuildXor(l->b, a, b, "") : LLVMBuildAnd(l->b, a, b, "");
        return ll_intrin1(l, "llvm.ctpop", x);
    }
    LLVMValueRef sum = NULL;
    for (int j = 0; j < 32 / op->a.bits; j++) {
        LLVMValueRef p = LLVMBuildMul(l->b, unpack(l, a, &op->a, j), unpack(l, b, &op->b, j), "");
        sum = sum ? LLVMBuildAdd(l->b, sum, p, "") : p;
    }
    return sum;
}

static bool is_fp8(ptx_type t)
{
    return t == PTX_T_E4M3X2 || t == PTX_T_E5M2X2;
}

/* ---- fp8 accumulation as NVIDIA's H200 does it ------------------------------
 * ptxas turns an fp8 mma.sync into f16 tensor-core steps: the bytes are
 * widened to f16 (exact), bytes 0-1 of every word (k = 4t, 4t+1) go through
 * one HMMA (for m16n8k32 an m16n8k16 of 16 products, for m16n8k16 an
 * m16n8k8 of 8) from a zero accumulator, bytes 2-3 through a second one that accumulates
 * onto the first's result, and C is added last (HADD2 for f16, FADD for
 * f32, both round to nearest). Inside one step, fitted bit for bit to
 * 2.4 M H200 results (docs/gpu-truth.md): every term is given the nominal
 * exponent ea + eb + 1 (a product, with a and b's f16 exponents, -14 for
 * subnormals) or e + 1 (the accumulator), truncated toward zero to a
 * multiple of 2^(E - 26) with E the largest nominal exponent of a nonzero
 * term, the truncated terms are summed exactly and the sum is rounded once:
 * to nearest even for an f16 accumulator, toward zero for f32. */
static LLVMValueRef ci32(zn_lfn *l, int64_t v)
{
    return ll_const_vec(l->m->t_i32, (uint64_t)v);
}

/* the unbiased exponent of f32 lanes, at least lo */
static LLVMValueRef fexp(zn_lfn *l, LLVMValueRef v, int lo)
{
    LLVMBuilderRef b = l->b;
    LLVMValueRef u = LLVMBuildBitCast(b, v, ll_vec(l->m->t_i32), "");
    u = LLVMBuildAnd(b, LLVMBuildLShr(b, u, ci32(l, 23), ""), ci32(l, 255), "");
    return ll_intrin2(l, "llvm.smax", LLVMBuildSub(b, u, ci32(l, 127), ""), ci32(l, lo));
}

/* 2^e as f32 lanes, e in [-126, 127] */
static LLVMValueRef pow2(zn_lfn *l, LLVMValueRef e)
{
    LLVMValueRef u = LLVMBuildShl(l->b, LLVMBuildAdd(l->b, e, ci32(l, 127), ""), ci32(l, 23), "");
    return LLVMBuildBitCast(l->b, u, ll_vec(l->m->t_f32), "");
}

/* the f16 exponent of f32 lanes holding f16 values (-14 for subnormals),
 * -1000 for a zero, so that a product with a zero operand never sets the
 * step's largest exponent */
static LLVMValueRef hexp(zn_lfn *l, LLVMValueRef v)
{
    LLVMValueRef z = LLVMBuildFCmp(l->b, LLVMRealOEQ, v, LLVMConstNull(LLVMTypeOf(v)), "");
    return LLVMBuildSelect(l->b, z, ci32(l, -1000), fexp(l, v, -14), "");
}

/* fp8 words: the four bytes of every A and B word vector decoded to f32
 * once (dec[q][i]: byte q of word i), gathered like integer words, and
 * their f16 exponents (xe; -1000 for a zero, so that a product with a
 * zero operand never sets the step's largest exponent) */
static void fp8_decode(zn_lfn *l, LLVMValueRef *w, int n, bool e5m2, LLVMValueRef dec[4][16],
                       LLVMValueRef xe[4][16])
{
    for (int i = 0; i < n; i++)
        for (int q = 0; q < 4; q++) {
            LLVMValueRef x = q ? LLVMBuildLShr(l->b, w[i], ci32(l, (uint64_t)(8 * q)), "") : w[i];
            dec[q][i] = zn_fp8_to_f32(l, x, e5m2);
            xe[q][i] = hexp(l, dec[q][i]);
        }
}

/* the largest of v[0..n-1], n >= 1, as a balanced tree (a long chain of
 * smax is what LLVM's machine combiner spends its time reassociating) */
static LLVMValueRef max_tree(zn_lfn *l, const LLVMValueRef *v, int n)
{
    if (n == 1)
        return v[0];
    return ll_intrin2(l, "llvm.smax", max_tree(l, v, n / 2), max_tree(l, v + n / 2, n - n / 2));
}

/* One step: acc (an f16 or f32 value in f32 lanes; NULL: +0) plus the n
 * products pa[i] * pb[i] (f16 values or decoded fp8, exact in f32; xa, xb:
 * their f16 exponents, -1000 for a zero), n <= 16. f16 inputs (wide) have
 * significands up to 2047/1024, so 16 products and the accumulator can
 * reach 17 * 2^27 units: the two halves are summed in i32 and joined in
 * i64. They also take C as the step's accumulator (fp8 adds it later), so
 * an f32 C can be tiny or huge: where every term is zero or only C is
 * nonzero the step is exact, and the IEEE sum is kept (signed zeros). */
static LLVMValueRef hmma_step(zn_lfn *l, LLVMValueRef acc, const LLVMValueRef *pa,
                              const LLVMValueRef *pb, const LLVMValueRef *xa,
                              const LLVMValueRef *xb, int n, bool acc16, bool wide)
{
    LLVMBuilderRef b = l->b;
    LLVMTypeRef vf = ll_vec(l->m->t_f32), vi = ll_vec(l->m->t_i32);
    LLVMValueRef none = ci32(l, -1000), fzero = LLVMConstNull(vf);
    LLVMValueRef ne[17] = {NULL};
    /* nominal exponents less one (E is their maximum plus one), before
     * any product: the products are then made and dropped one at a time,
     * which keeps the register pressure of these large blocks low */
    for (int i = 0; i < n; i++)
        ne[i] = LLVMBuildAdd(b, xa[i], xb[i], "");
    if (acc) {
        LLVMValueRef e = fexp(l, acc, acc16 ? -14 : -126);
        ne[n] = LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealOEQ, acc, fzero, ""), none, e, "");
    }
    LLVMValueRef E = max_tree(l, ne, acc ? n + 1 : n);
    E = LLVMBuildAdd(b, E, ci32(l, 1), "");
    /* the quantum 2^q; clamped only where every term is zero, only an f32
     * C is nonzero (both: the plain sum below) or one is not finite (the
     * select at the end) */
    LLVMValueRef q = LLVMBuildSub(b, E, ci32(l, 26), "");
    q = ll_intrin2(l, "llvm.smin", ll_intrin2(l, "llvm.smax", q, ci32(l, -126)), ci32(l, 127));
    LLVMValueRef down = pow2(l, LLVMBuildNeg(b, q, "")), up = pow2(l, q);
    /* a term is below 2^27 units of 2^q (E >= its nominal exponent, and a
     * product's significand is below 4); fp8 significands are at most
     * 1.875, so there 16 products and the accumulator stay below 2^31 and
     * i32 is exact, while f16 inputs (wide) sum two halves of at most nine
     * terms in i32 and join them in i64. fptosi truncates toward zero. */
    LLVMValueRef half[2] = {NULL, NULL}, plain = NULL;
    for (int i = 0; i <= n; i++) {
        if (i == n && !acc)
            break;
        LLVMValueRef p = i < n ? LLVMBuildFMul(b, pa[i], pb[i], "") : acc;
        LLVMValueRef t = LLVMBuildFPToSI(b, LLVMBuildFMul(b, p, down, ""), vi, "");
        int h = wide && (i >= 8 && i < n);
        half[h] = half[h] ? LLVMBuildAdd(b, half[h], t, "") : t;
        if (!wide || i < n)
            plain = plain ? LLVMBuildFAdd(b, plain, p, "") : p;
    }
    LLVMValueRef sum = half[0];
    if (wide) {
        LLVMTypeRef v64 = ll_vec(l->m->t_i64);
        sum = LLVMBuildSExt(b, sum, v64, "");
        if (half[1])
            sum = LLVMBuildAdd(b, sum, LLVMBuildSExt(b, half[1], v64, ""), "");
    }
    LLVMTypeRef it = wide ? l->m->t_i64 : l->m->t_i32;
    int bits = wide ? 64 : 32;
    /* the magnitude to 24 bits: toward zero (f32), or to odd so that the
     * rounding to f16 below is the only one */
    LLVMValueRef zero = ll_const_vec(it, 0), one = ll_const_vec(it, 1);
    LLVMValueRef mag = ll_intrin2(l, "llvm.abs", sum, LLVMConstInt(l->m->t_i1, 0, 0));
    LLVMValueRef lz = ll_intrin2(l, "llvm.ctlz", mag, LLVMConstInt(l->m->t_i1, 0, 0));
    LLVMValueRef sh = ll_intrin2(l, "llvm.smax", LLVMBuildSub(b, ll_const_vec(it, (uint64_t)(bits - 24)), lz, ""), zero);
    LLVMValueRef unit = LLVMBuildShl(b, one, sh, "");
    LLVMValueRef low = LLVMBuildAnd(b, mag, LLVMBuildSub(b, unit, one, ""), "");
    LLVMValueRef kept = LLVMBuildSub(b, mag, low, "");
    if (acc16)
        kept = LLVMBuildOr(b, kept, LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntNE, low, zero, ""),
                                                    unit, zero, ""), "");
    LLVMValueRef r = LLVMBuildFMul(b, LLVMBuildSIToFP(b, kept, vf, ""), up, "");
    r = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntSLT, sum, zero, ""), LLVMBuildFNeg(b, r, ""),
                        r, "");
    if (acc16)
        r = zn_half_to_f32(l, zn_f32_to_half(l, r, false, false), false);
    /* infinities and NaN: IEEE sums (finite products stay far from f32's
     * overflow, so a non-finite sum of them means such an operand) */
    LLVMValueRef finf = ll_const_fvec(l->m->t_f32, INFINITY);
    LLVMValueRef inf = LLVMBuildFCmp(b, LLVMRealUEQ, ll_intrin1(l, "llvm.fabs", plain), finf, "");
    if (wide) {
        if (acc) {
            inf = LLVMBuildOr(b, inf, LLVMBuildFCmp(b, LLVMRealUEQ, ll_intrin1(l, "llvm.fabs", acc), finf, ""), "");
            plain = LLVMBuildFAdd(b, plain, acc, "");
        }
        inf = LLVMBuildOr(b, inf, LLVMBuildICmp(b, LLVMIntSLT, E, ci32(l, -100), ""), "");
    }
    return LLVMBuildSelect(b, inf, plain, r, "");
}

/* D element j of an fp8 mma (ia/fa, ib/fb: where each word of the row and
 * column lives, per k word) */
static LLVMValueRef fp8_dot(zn_lfn *l, const mshape *s, LLVMValueRef ad[2][4][16],
                            LLVMValueRef bd[2][4][16], int (*ia)[ZN_LANES], int (*fa)[ZN_LANES],
                            int (*ib)[ZN_LANES], int (*fb)[ZN_LANES], LLVMValueRef c, bool acc16)
{
    LLVMValueRef pa[2][2][16], pb[2][2][16], acc = NULL;  /* [value/exponent][step][term] */
    int n = 0;
    for (int k = 0; k < s->k; k++, n += 2)
        for (int q = 0; q < 4; q++)
            for (int x = 0; x < 2; x++) {
                pa[x][q >> 1][n + (q & 1)] = gather(l, ad[x][q], ia[k], fa[k]);
                pb[x][q >> 1][n + (q & 1)] = gather(l, bd[x][q], ib[k], fb[k]);
            }
    for (int h = 0; h < 2; h++)
        acc = hmma_step(l, acc, pa[0][h], pb[0][h], pa[1][h], pb[1][h], n, acc16, false);
    LLVMValueRef d = LLVMBuildFAdd(l->b, c, acc, "");
    return acc16 ? d : zn_canon_nan(l, d); /* f16: NaN -> 0x7fff when written */
}

/* iop: NULL for floating point, else integer (or fp8) words; hmma: f16
 * inputs, summed as one tensor-core step with C as its accumulator (1: an
 * f16 accumulator, 2: f32), 0: others (bf16, tf32, f64; unmeasured, summed
 * exactly in k order) */
static void mma_core(zn_lfn *l, const mshape *s, LLVMValueRef *ae, int na, LLVMValueRef *be,
                     int nb, LLVMValueRef *ce, LLVMValueRef *de, int nc, const intop *iop, bool sat,
                     int hmma)
{
    LLVMBuilderRef b = l->b;
    owner *ta = calloc((size_t)s->m * s->k, sizeof *ta);
    owner *tb = calloc((size_t)s->k * s->n, sizeof *tb);
    invert(s, a_loc, na, ta, s->k);
    invert(s, b_loc, nb, tb, s->n);
    bool fp8 = iop && is_fp8(iop->a.t);
    LLVMValueRef ad[2][4][16], bd[2][4][16];
    if (fp8) {
        fp8_decode(l, ae, na, iop->a.t == PTX_T_E5M2X2, ad[0], ad[1]);
        fp8_decode(l, be, nb, iop->b.t == PTX_T_E5M2X2, bd[0], bd[1]);
    }
    /* 8-bit words: one VNNI dot product each (llama.cpp's mul_mat_q runs
     * hundreds of s8 m8n8k16 per tile) */
    bool vnni = iop && iop->a.bits == 8 && iop->b.bits == 8 &&
                zn_target_has(l->m, "avx512vnni");
    LLVMValueRef xa[16], xb[16];  /* f16 inputs: exponents once per element */
    for (int i = 0; hmma && i < na; i++)
        xa[i] = hexp(l, ae[i]);
    for (int i = 0; hmma && i < nb; i++)
        xb[i] = hexp(l, be[i]);
    for (int j = 0; j < nc; j++) {
        LLVMValueRef acc = sat ? LLVMConstNull(LLVMTypeOf(ce[j])) : ce[j];
        int ia[16][ZN_LANES], fa[16][ZN_LANES], ib[16][ZN_LANES], fb[16][ZN_LANES];
        for (int k = 0; k < s->k; k++)
            for (int lane = 0; lane < ZN_LANES; lane++) {
                int r, c;
                c_loc(s, lane, j, &r, &c);
                owner oa = ta[r * s->k + k], ob = tb[k * s->n + c];
                ia[k][lane] = oa.i, fa[k][lane] = oa.lane, ib[k][lane] = ob.i, fb[k][lane] = ob.lane;
            }
        if (fp8) {
            de[j] = fp8_dot(l, s, ad, bd, ia, fa, ib, fb, ce[j], iop->acc16);
            continue;
        }
        if (hmma) {
            /* ptxas makes an f16 mma.sync (m16n8k16, m16n8k8; wmma: one
             * per n8 half) a single HMMA with C as its accumulator: all k
             * products and C in one truncating step (docs/gpu-truth.md) */
            LLVMValueRef pa[16], pb[16], pxa[16], pxb[16];
            for (int k = 0; k < s->k; k++) {
                pa[k] = gather(l, ae, ia[k], fa[k]), pxa[k] = gather(l, xa, ia[k], fa[k]);
                pb[k] = gather(l, be, ib[k], fb[k]), pxb[k] = gather(l, xb, ib[k], fb[k]);
            }
            de[j] = hmma_step(l, ce[j], pa, pb, pxa, pxb, s->k, hmma == 1, true);
            if (hmma == 2)
                de[j] = zn_canon_nan(l, de[j]);
            continue;
        }
        for (int k = 0; k < s->k; k++) {
            LLVMValueRef av = gather(l, ae, ia[k], fa[k]), bv = gather(l, be, ib[k], fb[k]);
            acc = !iop ? LLVMBuildFAdd(b, acc, LLVMBuildFMul(b, av, bv, ""), "")
                  : vnni ? zn_dot4_vnni(l, av, bv, acc, iop->a.sign, iop->b.sign)
                         : LLVMBuildAdd(b, acc, int_dot(l, iop, av, bv), "");
        }
        de[j] = sat ? add_sat(l, ce[j], acc) : acc;
    }
    free(ta);
    free(tb);
}

/* An mma as a call: one internal noinline function per shape and types in
 * the module, its fragments passed through an array of 32-lane vectors (A,
 * B, C in; D over C). Kernels unroll dozens to thousands of
 * mma.sync/wmma.mma into a block (CUDA's dmmaTensorCoreGemm: 2048 per
 * kernel), each with its cross-lane gathers (and the f16 step costs four
 * times the IR of a plain k-order sum); inline, LLVM's machine combiner
 * and register allocator took over ten times as long on such blocks (f64:
 * over 11 minutes and 5.6 GB; immaTensorCoreGemm's u8 wmma 732 s of
 * compile, against 99 s for the same kernel in f16 through the helper).
 * Floating-point shapes of both instructions, and integer wmma, take it;
 * integer and fp8 mma.sync stay inline (a few per kernel, llama.cpp's). */
static const char *type_name(ptx_type t)
{
    switch (t) {
    case PTX_T_F16: return "f16";
    case PTX_T_BF16: return "bf16";
    case PTX_T_TF32: return "tf32";
    case PTX_T_F64: return "f64";
    default: return "f32";
    }
}

/* an integer or fp8 element type in a helper's name */
static void etype_name(char *buf, size_t n, const etype *e)
{
    if (is_fp8(e->t))
        snprintf(buf, n, "%s", e->t == PTX_T_E5M2X2 ? "e5m2" : "e4m3");
    else
        snprintf(buf, n, "%c%d", e->sign ? 's' : 'u', e->bits);
}

/* ra/rb: A's and B's registers as frag_reg gives them (na, nb: elements of
 * types at, bt, decoded inside the helper: 16-bit pairs stay packed in the
 * caller); ce: C's nc elements; de: D's; iop and sat as for mma_core. */
static void mma_call(zn_lfn *l, const mshape *s, LLVMValueRef *ra, int na, ptx_type at,
                     LLVMValueRef *rb, int nb, ptx_type bt, LLVMValueRef *ce, LLVMValueRef *de,
                     int nc, int hmma, const intop *iop, bool sat)
{
    zn_lmod *m = l->m;
    LLVMTypeRef vc = LLVMTypeOf(ce[0]), ta = frag_reg_type(m, at), tb = frag_reg_type(m, bt);
    int nra = na / (int)per_reg(at), nrb = nb / (int)per_reg(bt), nall = nra + nrb + nc;
    /* slots of 256 bytes: a <32 x double> or anything smaller */
    LLVMTypeRef arr = LLVMArrayType(ll_vec(m->t_i64), ZN_MMA_SLOTS);
    static const char *cls_name[] = {"mma", "int", "tf32", "f64", "wmma", "fp8"};
    char name[96];
    if (iop) {
        char a[8], b[8];
        etype_name(a, sizeof a, &iop->a);
        etype_name(b, sizeof b, &iop->b);
        snprintf(name, sizeof name, "zn.imma.%s.m%dn%dk%d.%s.%s.%s%s%s", cls_name[s->cls], s->m,
                 s->n, s->k, a, b, vc == ll_vec(m->t_i32) ? "s32" : iop->acc16 ? "f16" : "f32",
                 sat ? ".sat" : "", iop->xor_popc ? ".xor" : "");
    } else {
        snprintf(name, sizeof name, "zn.%s.%s.m%dn%dk%d.%s.%s.%s", hmma ? "hmma" : "fmma",
                 cls_name[s->cls], s->m, s->n, s->k, type_name(at), type_name(bt),
                 hmma == 1 ? "f16" : vc == ll_vec(m->t_f64) ? "f64" : "f32");
    }
    LLVMTypeRef ft = LLVMFunctionType(m->t_void, &m->t_ptr, 1, 0);
    LLVMValueRef fn = LLVMGetNamedFunction(m->mod, name);
    if (!fn) {
        fn = LLVMAddFunction(m->mod, name, ft);
        LLVMSetLinkage(fn, LLVMInternalLinkage);
        const char *attrs[] = {"noinline", "nounwind"};
        for (int i = 0; i < 2; i++) {
            unsigned k = LLVMGetEnumAttributeKindForName(attrs[i], strlen(attrs[i]));
            LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(m->ctx, k, 0));
        }
        if (m->cpu && *m->cpu)
            LLVMAddTargetDependentFunctionAttr(fn, "target-cpu", m->cpu);
        if (m->features && *m->features)
            LLVMAddTargetDependentFunctionAttr(fn, "target-features", m->features);
        zn_lfn h = {.m = m, .fn = fn};
        h.b = LLVMCreateBuilderInContext(m->ctx);
        LLVMPositionBuilderAtEnd(h.b, LLVMAppendBasicBlockInContext(m->ctx, fn, "entry"));
        LLVMValueRef p = LLVMGetParam(fn, 0), ae[16], be[16], c[8], d[8];
        for (int i = 0; i < na; i++) {
            LLVMValueRef r = LLVMBuildLoad2(h.b, ta, buf_slot(&h, arr, p, i / (int)per_reg(at)), "");
            ae[i] = decode_elem(&h, r, (unsigned)i, at);
        }
        for (int i = 0; i < nb; i++) {
            LLVMValueRef r = LLVMBuildLoad2(h.b, tb, buf_slot(&h, arr, p, nra + i / (int)per_reg(bt)), "");
            be[i] = decode_elem(&h, r, (unsigned)i, bt);
        }
        for (int j = 0; j < nc; j++)
            c[j] = LLVMBuildLoad2(h.b, vc, buf_slot(&h, arr, p, nra + nrb + j), "");
        mma_core(&h, s, ae, na, be, nb, c, d, nc, iop, sat, hmma);
        for (int j = 0; j < nc; j++)
            LLVMBuildStore(h.b, d[j], buf_slot(&h, arr, p, nra + nrb + j));
        LLVMBuildRetVoid(h.b);
        LLVMDisposeBuilder(h.b);
    }
    /* one buffer per function, for the largest call (f16 wmma: 8 + 8 + 8) */
    if (!l->hmma_buf)
        l->hmma_buf = ll_entry_alloca(l, arr, "mma.buf");
    LLVMValueRef buf = l->hmma_buf;
    for (int i = 0; i < nall; i++) {
        LLVMValueRef v = i < nra ? ra[i] : i < nra + nrb ? rb[i - nra] : ce[i - nra - nrb];
        LLVMBuildStore(l->b, v, buf_slot(l, arr, buf, i));
    }
    LLVMBuildCall2(l->b, ft, fn, &buf, 1, "");
    for (int j = 0; j < nc; j++)
        de[j] = LLVMBuildLoad2(l->b, vc, buf_slot(l, arr, buf, nra + nrb + j), "");
}

/* One m16n8k16 (f16, bf16) or m16n8k8 (tf32) tile for wgmma
 * (zn_lower_wgmma.c), as mma.sync computes it: ra, rb: A's 4 and B's 2
 * registers in mma.sync's fragment layout (<32 x i32>), ce: C's 4 elements
 * (f32; an f16 accumulator's values widened), de: D's 4 elements. */
void zn_mma_tile_m16n8(zn_lfn *l, ptx_type at, bool acc16, LLVMValueRef *ra, LLVMValueRef *rb,
                       LLVMValueRef *ce, LLVMValueRef *de)
{
    bool tf32 = at == PTX_T_TF32;
    mshape s = {16, 8, tf32 ? 8 : 16, tf32 ? MC_TF32 : MC_F16};
    int hmma = at == PTX_T_F16 ? (acc16 ? 1 : 2) : 0;
    mma_call(l, &s, ra, tf32 ? 4 : 8, at, rb, tf32 ? 2 : 4, at, ce, de, 4, hmma, NULL, false);
}

/* The same for 8-bit inputs (m16n8k32: s8/u8 into s32, with sat for
 * .satfinite; e4m3/e5m2 into f32 or, acc16, f16): ra, rb: A's 4 and B's
 * 2 registers of 4 bytes each, as mma.sync's fragments hold them. */
void zn_mma_tile_m16n8_8bit(zn_lfn *l, ptx_type at, ptx_type bt, bool acc16, bool sat,
                            LLVMValueRef *ra, LLVMValueRef *rb, LLVMValueRef *ce, LLVMValueRef *de)
{
    bool fp8 = is_fp8(at);
    mshape s = {16, 8, 8, fp8 ? MC_FP8 : MC_INT};
    intop iop = {{at, 8, at == PTX_T_S8}, {bt, 8, bt == PTX_T_S8}, false, acc16};
    mma_core(l, &s, ra, 4, rb, 2, ce, de, 4, &iop, sat, 0);
}

/* the m16n8k256 b1 tile, .and.popc (wgmma's b1) */
void zn_mma_tile_m16n8_b1(zn_lfn *l, LLVMValueRef *ra, LLVMValueRef *rb, LLVMValueRef *ce,
                          LLVMValueRef *de)
{
    mshape s = {16, 8, 8, MC_INT};
    intop iop = {{PTX_T_B32, 1, false}, {PTX_T_B32, 1, false}, false, false};
    mma_core(l, &s, ra, 4, rb, 2, ce, de, 4, &iop, false, 0);
}

/* D elements (arithmetic type) -> the destination registers */
static void write_frag(zn_lfn *l, const ptx_opnd *v, LLVMValueRef *de, int nd, ptx_type t)
{
    zn_lmod *m = l->m;
    LLVMBuilderRef b = l->b;
    if (t == PTX_T_F16 || t == PTX_T_BF16) {
        for (int r = 0; r < nd / 2; r++) {
            LLVMValueRef lo = zn_f32_to_half(l, de[2 * r], t == PTX_T_BF16, false);
            LLVMValueRef hi = zn_f32_to_half(l, de[2 * r + 1], t == PTX_T_BF16, false);
            LLVMTypeRef v32 = ll_vec(m->t_i32);
            LLVMValueRef w = LLVMBuildOr(b, LLVMBuildZExt(b, lo, v32, ""),
                LLVMBuildShl(b, LLVMBuildZExt(b, hi, v32, ""), ll_const_vec(m->t_i32, 16), ""), "");
            zn_dst(l, &v->elems[r], PTX_T_B32, w);
        }
        return;
    }
    for (int r = 0; r < nd; r++)
        zn_dst(l, &v->elems[r], t == PTX_T_F32 || t == PTX_T_F64 ? t : PTX_T_S32, de[r]);
}

static bool shape_of(const ptx_ins *ins, const etype *ae, mshape *s)
{
    static const struct { int mod, m, n, k; } shapes[] = {
        {PTX_MOD_m16n8k4, 16, 8, 4}, {PTX_MOD_m16n8k8, 16, 8, 8},
        {PTX_MOD_m16n8k16, 16, 8, 16}, {PTX_MOD_m16n8k32, 16, 8, 32},
        {PTX_MOD_m8n8k4, 8, 8, 4}, {PTX_MOD_m16n16k16, 16, 16, 16},
        {PTX_MOD_m8n8k16, 8, 8, 16}, {PTX_MOD_m8n8k32, 8, 8, 32},
        {PTX_MOD_m8n8k128, 8, 8, 128}, {PTX_MOD_m16n8k64, 16, 8, 64},
        {PTX_MOD_m16n8k128, 16, 8, 128}, {PTX_MOD_m16n8k256, 16, 8, 256},
        {PTX_MOD_m16n16k8, 16, 16, 8}, {PTX_MOD_m32n8k16, 32, 8, 16},
        {PTX_MOD_m8n32k16, 8, 32, 16},
    };
    ptx_type at = ae->t;
    unsigned i = 0, n = sizeof shapes / sizeof shapes[0];
    while (i < n && !zn_has_mod(ins, shapes[i].mod))
        i++;
    if (i == n)
        return false;
    s->m = shapes[i].m, s->n = shapes[i].n, s->k = shapes[i].k;
    bool wmma = ins->op == PTX_OP_wmma;
    switch (at) {
    case PTX_T_F16: case PTX_T_BF16:
        s->cls = wmma ? MC_WMMA : MC_F16;
        return wmma ? s->k == 16 : s->m == 16 && s->n == 8 && (s->k == 8 || s->k == 16);
    case PTX_T_TF32:
        s->cls = MC_TF32;
        if (wmma)
            return s->m == 16 && s->n == 16 && s->k == 8;
        return s->n == 8 && s->m == 16 && (s->k == 4 || s->k == 8);
    case PTX_T_F64: s->cls = MC_F64; return s->m == 8 && s->k == 4;
    case PTX_T_S8: case PTX_T_U8: case PTX_T_B32: {
        /* wmma s8/u8: m16n16k16 only, k in words (A as m16n8k16's A, B
         * and C/D as two n8 halves side by side) */
        if (wmma && ae->bits == 8) {
            bool ok = s->k == 16;   /* m16n16, m32n8, m8n32 */
            s->cls = MC_INT;
            s->k = 4;
            return ok;
        }
        /* wmma s4/u4 m8n8k32, b1 m8n8k128: mma.m8n8k32/k128's layouts */
        /* in words: m8n8 k4 (m8n8k16 s8, k32 s4, k128 b1); m16n8 k4 or k8 */
        if (!ae->bits || s->n != 8)
            return false;
        s->cls = MC_INT;
        int kw = s->k * ae->bits / 32;
        s->k = kw;
        return s->m == 8 ? kw == 4 : (kw == 4 || kw == 8);
    }
    case PTX_T_E4M3X2: case PTX_T_E5M2X2: { /* m16n8k16, m16n8k32: 4 or 8 words */
        s->cls = MC_FP8;
        s->k = s->k * 8 / 32;
        return !wmma && s->m == 16 && s->n == 8 && (s->k == 4 || s->k == 8);
    }
    default: return false;
    }
}

/* mma.sync.aligned.shape.row.col.dtype.atype.btype.ctype d, a, b, c
 * (f16 inputs may name only dtype.ctype); wmma.mma.sync.aligned.alayout.
 * blayout.m16n16k16.dtype(.atype.btype).ctype */
static void lower_mma(zn_lfn *l, const ptx_ins *ins)
{
    etype t[4];
    int nt = ins_types(ins, t, 4);
    etype dt, at, bt, ct;
    if (nt == 4) {
        dt = t[0], at = t[1], bt = t[2], ct = t[3];
    } else if (nt == 2) {
        dt = t[0], ct = t[1], at = bt = (etype){PTX_T_F16, 0, false};
    } else {
        zn_lerr_unsupported(l);
        return;
    }
    mshape s;
    bool fp8 = is_fp8(at.t);
    bool integer = at.bits != 0 && !fp8;
    if (ins->nopnds < 4 || ins->opnds[0].kind != PTX_OPND_VEC || ins->opnds[1].kind != PTX_OPND_VEC ||
        ins->opnds[2].kind != PTX_OPND_VEC || ins->opnds[3].kind != PTX_OPND_VEC) {
        zn_lerr_unsupported(l);
        return;
    }
    if (!shape_of(ins, &at, &s)) {
        zn_lerr_unsupported(l);
        return;
    }
    bool sat = ins->flags & PTX_F(satfinite);
    /* A and B: the same element width; b1 needs .and.popc or .xor.popc;
     * .satfinite only on s8/s4 */
    bool b1 = at.bits == 1;
    bool popc_ok = (ins->flags & PTX_F(popc_f)) &&
                   (ins->subop == PTX_SUB_AND || ins->subop == PTX_SUB_XOR);
    /* fp8: e4m3/e5m2 in any combination, f32 or f16 accumulators */
    bool fp8_ok = is_fp8(bt.t) && dt.t == ct.t && (dt.t == PTX_T_F32 || dt.t == PTX_T_F16);
    if (at.bits != bt.bits || (integer && (dt.t != PTX_T_S32 || ct.t != PTX_T_S32)) ||
        b1 != popc_ok || (sat && (!integer || b1)) || fp8 != is_fp8(bt.t) || (fp8 && !fp8_ok)) {
        zn_lerr_unsupported(l);
        return;
    }
    int na = (int)(ins->opnds[1].nelems * per_reg(at.t));
    int nb = (int)(ins->opnds[2].nelems * per_reg(bt.t));
    int nc = (int)(ins->opnds[3].nelems * per_reg(ct.t));
    int nd = (int)(ins->opnds[0].nelems * per_reg(dt.t));
    /* wmma f16 A and B fragments hold 16 elements whatever the shape (the
     * distinct ones repeated); the others exactly their share */
    bool rep_a = s.cls == MC_WMMA && at.t == PTX_T_F16, rep_b = s.cls == MC_WMMA && bt.t == PTX_T_F16;
    if (na > 16 || nb > 16 || nc > 8 || nd != nc || (rep_a ? na != 16 : s.m * s.k != 32 * na) ||
        (rep_b ? nb != 16 : s.k * s.n != 32 * nb) || s.m * s.n != 32 * nc) {
        zn_lerr(l, "mma: fragment sizes do not match the shape");
        return;
    }
    LLVMValueRef ae[16], be[16], ce[8], de[8];
    for (int i = 0; i < nc; i++)
        ce[i] = frag_elem(l, &ins->opnds[3], (unsigned)i, ct.t);
    intop iop = {at, bt, ins->subop == PTX_SUB_XOR, ct.t == PTX_T_F16};
    /* f16 inputs: the tensor core's accumulator is D's type (a C of the
     * other type is converted first; f16 -> f32 is exact) */
    int hmma = at.t == PTX_T_F16 && (s.cls == MC_F16 || s.cls == MC_WMMA) ? (dt.t == PTX_T_F16 ? 1 : 2) : 0;
    if (hmma == 1 && ct.t == PTX_T_F32)
        for (int i = 0; i < nc; i++)
            ce[i] = zn_half_to_f32(l, zn_f32_to_half(l, ce[i], false, false), false);
    bool half_in = at.t == PTX_T_F16 || at.t == PTX_T_BF16;
    bool int_wmma = ins->op == PTX_OP_wmma && (integer || fp8);
    if (hmma || int_wmma ||
        ((s.cls == MC_F64 || s.cls == MC_TF32 || half_in) && !sat && !integer && !fp8)) {
        LLVMValueRef ra[16], rb[16];
        for (int r = 0; r < na / (int)per_reg(at.t); r++)
            ra[r] = frag_reg(l, &ins->opnds[1], (unsigned)r, at.t);
        for (int r = 0; r < nb / (int)per_reg(bt.t); r++)
            rb[r] = frag_reg(l, &ins->opnds[2], (unsigned)r, bt.t);
        mma_call(l, &s, ra, na, at.t, rb, nb, bt.t, ce, de, nc, hmma,
                 integer || fp8 ? &iop : NULL, sat);
    } else {
        for (int i = 0; i < na; i++)
            ae[i] = frag_elem(l, &ins->opnds[1], (unsigned)i, at.t);
        for (int i = 0; i < nb; i++)
            be[i] = frag_elem(l, &ins->opnds[2], (unsigned)i, bt.t);
        mma_core(l, &s, ae, na, be, nb, ce, de, nc, integer || fp8 ? &iop : NULL, sat, 0);
    }
    write_frag(l, &ins->opnds[0], de, nd, dt.t);
}

/* ---- wmma.load / wmma.store -------------------------------------------------- */

/* Each lane's offset, in elements from the fragment's first, of element i
 * (loc's row and column; in a packed-byte fragment, byte `byte` of word i:
 * k = 4 * word + byte, a column of A or a row of B) in a row- or
 * column-major matrix with the given stride. */
static LLVMValueRef frag_offsets(zn_lfn *l, const mshape *s, loc_fn loc, int i, int byte,
                                 bool col_major, LLVMValueRef stride)
{
    zn_lmod *m = l->m;
    LLVMValueRef ro[ZN_LANES], co[ZN_LANES];
    for (int lane = 0; lane < ZN_LANES; lane++) {
        int r, c;
        loc(s, lane, i, &r, &c);
        if (byte >= 0 && loc == a_loc)
            c = 4 * c + byte;
        else if (byte >= 0)
            r = 4 * r + byte;
        if (col_major) {
            int x = r;
            r = c, c = x;
        }
        ro[lane] = LLVMConstInt(m->t_i64, (unsigned)r, 0);
        co[lane] = LLVMConstInt(m->t_i64, (unsigned)c, 0);
    }
    return LLVMBuildAdd(l->b, LLVMBuildMul(l->b, LLVMConstVector(ro, ZN_LANES), stride, ""),
                        LLVMConstVector(co, ZN_LANES), "");
}

/* wmma.load.{a,b}...m16n16k16.{s8,u8}: each fragment register is a word of
 * 4 k-consecutive bytes (a_loc/b_loc of the MC_INT shape give its row and
 * word column, or word row and column): one 32-bit load where k runs
 * along memory (A row-major, B column-major; wmma strides are multiples
 * of 16 bytes), else four byte loads packed. */
static void wmma_load_bytes(zn_lfn *l, const mshape *shape, loc_fn loc, const ptx_opnd *frag,
                            LLVMValueRef base, LLVMValueRef stride, bool col_major)
{
    zn_lmod *m = l->m;
    LLVMBuilderRef b = l->b;
    mshape s = {shape->m, shape->n, 4, MC_INT};
    bool along_k = (loc == a_loc) != col_major;
    for (unsigned i = 0; i < frag->nelems && i < 4; i++) {
        LLVMValueRef word = NULL;
        for (int j = 0; j < (along_k ? 1 : 4); j++) {
            LLVMValueRef off = frag_offsets(l, &s, loc, (int)i, j, col_major, stride), v;
            zn_access_gather(l, LLVMBuildAdd(b, base, off, ""), along_k ? m->t_i32 : m->t_i8, &v);
            if (!along_k) {
                v = LLVMBuildZExt(b, v, ll_vec(m->t_i32), "");
                if (j)
                    v = LLVMBuildShl(b, v, ll_const_vec(m->t_i32, 8u * (unsigned)j), "");
            }
            word = word ? LLVMBuildOr(b, word, v, "") : v;
        }
        zn_dst(l, &frag->elems[i], PTX_T_B32, word);
    }
}

/* wmma.load.{a,b}...m8n8k32.{s4,u4} / m8n8k128.b1: one register, a word
 * of 32 / bits k-consecutive elements (mma.m8n8k32's layouts: lane 4g + t
 * holds word t of row g of A, row-major, or of column g of B,
 * column-major): the word at (g * stride + t * 32 / bits) elements. */
static void wmma_load_words(zn_lfn *l, const ptx_opnd *frag, LLVMValueRef base,
                            LLVMValueRef stride, int bits)
{
    zn_lmod *m = l->m;
    LLVMBuilderRef b = l->b;
    LLVMValueRef g[ZN_LANES], t[ZN_LANES];
    for (int lane = 0; lane < ZN_LANES; lane++) {
        g[lane] = LLVMConstInt(m->t_i64, (unsigned)(lane >> 2), 0);
        t[lane] = LLVMConstInt(m->t_i64, (unsigned)((lane & 3) * 32 / bits), 0);
    }
    LLVMValueRef el = LLVMBuildAdd(b, LLVMBuildMul(b, LLVMConstVector(g, ZN_LANES), stride, ""),
                                   LLVMConstVector(t, ZN_LANES), "");
    LLVMValueRef off = LLVMBuildLShr(b, LLVMBuildMul(b, el, ll_const_vec(m->t_i64, (uint64_t)bits), ""),
                                     ll_const_vec(m->t_i64, 3), "");
    LLVMValueRef v;
    zn_access_gather(l, LLVMBuildAdd(b, base, off, ""), m->t_i32, &v);
    zn_dst(l, &frag->elems[0], PTX_T_B32, v);
}

/* wmma.load.{a,b,c}.sync.aligned.layout.shape{.space}.type d, [p]{, stride}
 * wmma.store.d.sync.aligned.layout.shape{.space}.type [p], d{, stride}
 * shape: m16n16k16, m32n8k16 and m8n32k16, m16n16k8 (tf32),
 * m8n8k4 (f64: mma.m8n8k4's layout, one double per register), m8n8k32
 * (s4/u4) and m8n8k128 (b1) */
static void lower_wmma_ldst(zn_lfn *l, const ptx_ins *ins)
{
    zn_lmod *m = l->m;
    LLVMBuilderRef b = l->b;
    bool store = zn_has_mod(ins, PTX_MOD_store);
    etype t[2];
    int nt = ins_types(ins, t, 2);
    const ptx_opnd *frag = &ins->opnds[store ? 1 : 0], *addr = &ins->opnds[store ? 0 : 1];
    bool k8 = zn_has_mod(ins, PTX_MOD_m16n16k8);   /* tf32 A/B, f32 C/D */
    bool f64 = zn_has_mod(ins, PTX_MOD_m8n8k4);
    bool k16 = zn_has_mod(ins, PTX_MOD_m16n16k16), m32 = zn_has_mod(ins, PTX_MOD_m32n8k16),
         n32 = zn_has_mod(ins, PTX_MOD_m8n32k16);
    bool sub = zn_has_mod(ins, PTX_MOD_m8n8k32) || zn_has_mod(ins, PTX_MOD_m8n8k128); /* s4/u4, b1 */
    if (nt < 1 || !(k16 || m32 || n32 || k8 || f64 || sub) || frag->kind != PTX_OPND_VEC ||
        addr->kind != PTX_OPND_ADDR || f64 != (t[0].t == PTX_T_F64)) {
        zn_lerr_unsupported(l);
        return;
    }
    ptx_type et = t[0].t;
    bool col_major = zn_has_mod(ins, PTX_MOD_col);
    mshape s = k8 ? (mshape){16, 16, 8, MC_TF32} : f64 ? (mshape){8, 8, 4, MC_F64}
             : sub ? (mshape){8, 8, 4, MC_INT}
             : (mshape){m32 ? 32 : n32 ? 8 : 16, m32 ? 8 : n32 ? 32 : 16, 16, MC_WMMA};
    loc_fn loc = zn_has_mod(ins, PTX_MOD_a) ? a_loc : zn_has_mod(ins, PTX_MOD_b) ? b_loc : c_loc;
    unsigned esize = f64 ? 8 : et == PTX_T_F32 || et == PTX_T_S32 || (k8 && et == PTX_T_TF32) ? 4
                   : et == PTX_T_F16 || et == PTX_T_BF16 ? 2 : 0;
    bool bytes = (et == PTX_T_S8 || et == PTX_T_U8) && t[0].bits == 8 && !store && loc != c_loc;
    bool words = sub && !store && loc != c_loc;     /* packed s4/u4/b1 */
    if ((!esize && !bytes && !words) || (sub && (words ? t[0].bits >= 8 ||
        col_major != (loc == b_loc) : et != PTX_T_S32))) {
        zn_lerr_unsupported(l);
        return;
    }
    unsigned pr = per_reg(et), nel = frag->nelems * pr;
    LLVMTypeRef v64 = ll_vec(m->t_i64);
    LLVMValueRef base = LLVMBuildPtrToInt(b, zn_mem_ptrs(l, addr, ins->space), v64, "");
    /* without a stride, the matrix's own leading dimension */
    int rows = loc == a_loc ? s.m : loc == b_loc ? s.k : s.m;
    int cols = loc == a_loc ? s.k : loc == b_loc ? s.n : s.n;
    if (words)  /* k in elements: 32 s4/u4 or 128 b1 per row of A */
        rows = loc == a_loc ? 8 : 32 * 4 / t[0].bits, cols = loc == a_loc ? 32 * 4 / t[0].bits : 8;
    LLVMValueRef stride = ins->nopnds > 2 ? zn_src(l, &ins->opnds[2], PTX_T_U32)
                                          : ll_const_vec(m->t_i32, (uint64_t)(col_major ? rows : cols));
    stride = LLVMBuildZExt(b, stride, v64, "");
    if (bytes) {
        wmma_load_bytes(l, &s, loc, frag, base, stride, col_major);
        return;
    }
    if (words) {
        wmma_load_words(l, frag, base, stride, t[0].bits);
        return;
    }
    LLVMTypeRef st = esize == 8 ? m->t_f64 : esize == 4 ? m->t_i32 : m->t_i16;
    ptx_type rt = f64 ? PTX_T_F64 : PTX_T_B32;
    LLVMValueRef regs[8];
    for (unsigned i = 0; i < nel && i < 16; i++) {
        LLVMValueRef off = frag_offsets(l, &s, loc, (int)i, -1, col_major, stride);
        LLVMValueRef a = LLVMBuildAdd(b, base, LLVMBuildMul(b, off, ll_const_vec(m->t_i64, esize), ""), "");
        LLVMValueRef r32 = frag_reg(l, frag, i / pr, rt);
        if (store) {
            LLVMValueRef v = pr == 2 ? LLVMBuildTrunc(b, (i & 1) ? LLVMBuildLShr(b, r32,
                                 ll_const_vec(m->t_i32, 16), "") : r32, ll_vec(m->t_i16), "")
                                     : r32;
            zn_access_scatter(l, a, v, esize);
            continue;
        }
        LLVMValueRef v;
        zn_access_gather(l, a, st, &v);
        if (pr == 2) {
            v = LLVMBuildZExt(b, v, ll_vec(m->t_i32), "");
            if (i & 1)
                regs[i / 2] = LLVMBuildOr(b, regs[i / 2], LLVMBuildShl(b, v,
                                          ll_const_vec(m->t_i32, 16), ""), "");
            else
                regs[i / 2] = v;
        } else {
            regs[i] = v;
        }
    }
    if (store)
        return;
    for (unsigned r = 0; r < frag->nelems && r < 8; r++)
        zn_dst(l, &frag->elems[r], rt, regs[r]);
}

void zn_lower_mma(zn_lfn *l, const ptx_ins *ins)
{
    if (ins->op == PTX_OP_mma || (ins->op == PTX_OP_wmma && zn_has_mod(ins, PTX_MOD_mma_f)))
        lower_mma(l, ins);
    else if (ins->op == PTX_OP_wmma)
        lower_wmma_ldst(l, ins);
    else
        zn_lerr_unsupported(l);
}
