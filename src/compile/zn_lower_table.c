/* zn_lower_table.c: loads from a small module table as byte permutes.
 *
 * llama.cpp's IQ4_NL / IQ4_XS dot products map each 4-bit quant through
 * a 16-byte table (`kvalues_iq4nl[q & 15]`), and the IQ2 kinds read sign
 * bytes from a 128-byte one: per thread eight u8 loads a step from a
 * module variable plus a lane-varying index, each a 32-lane byte gather
 * (four 8-lane dword gathers and shifts on AVX-512): most of
 * mul_mat_vec_q<IQ4_NL>'s time on Zen 4 (4096 x 4096 on one worker:
 * 4205 ns a row with them, 1528 without).
 *
 * When the PTX address is `var + idx` (an add of a register whose one
 * definition is `mov.u64 r, var`, var a .global or .const module variable
 * of at most 128 bytes), the load reads the whole table into two 64-byte
 * registers (masked to the variable's bytes, so nothing outside it is
 * touched) and picks each lane's bytes with one two-table byte permute
 * (vpermi2b, AVX-512 VBMI) per 64 result bytes. The table is read where
 * the load is, so a kernel writing it sees its own writes as a gather
 * would. The path is taken only when every active lane's offset from the
 * variable lies inside it: proven from the index's definitions (reg_range)
 * or tested at run time, where a failed test runs zn_access_load (an index
 * out of the table reads whatever memory follows, as on the GPU). */
#include "zn_lower.h"

#define TBL_MAX 128     /* two 64-byte permute tables */

/* the module variable v when register r's one definition is `mov r, v` */
static const ptx_var *table_of_reg(zn_lfn *l, int32_t r, const ptx_opnd **sym)
{
    if (r < 0 || !l->reg_def || l->reg_def[r] < 0)
        return NULL;
    const ptx_ins *d = &l->f->ins[l->reg_def[r]];
    if (d->op != PTX_OP_mov || d->nopnds != 2 || d->guard_reg >= 0)
        return NULL;
    const ptx_opnd *o = &d->opnds[1];
    if ((o->kind != PTX_OPND_SYM && o->kind != PTX_OPND_ADDR) || o->reg >= 0 || o->ival)
        return NULL;
    uint32_t idx;
    const ptx_var *v;
    if (zn_var_find(l, o, &idx, &v) != ZN_VAR_MODULE)
        return NULL;
    if ((v->space != PTX_SPACE_GLOBAL && v->space != PTX_SPACE_CONST) || v->unsized ||
        v->size == 0 || v->size > TBL_MAX)
        return NULL;
    *sym = o;
    return v;
}

#define RANGE_DEPTH 8

static bool reg_range(zn_lfn *l, int32_t r, uint64_t *lo, uint64_t *hi, int depth);

static bool opnd_range(zn_lfn *l, const ptx_opnd *o, uint64_t *lo, uint64_t *hi, int depth)
{
    if (o->kind == PTX_OPND_IMM && o->ival >= 0) {
        *lo = *hi = (uint64_t)o->ival;
        return true;
    }
    return o->kind == PTX_OPND_REG && reg_range(l, o->reg, lo, hi, depth);
}

static uint64_t ones(unsigned bits)
{
    return bits >= 64 ? ~0ull : (1ull << bits) - 1;
}

/* [*lo, *hi]: every value register r can hold, when r has one unguarded
 * definition of a few integer forms (masks, logical shifts, widening
 * conversions, small multiples, narrow loads) whose sources are such
 * registers or immediates; false: unknown. A single definition bounds
 * every value the register holds, wherever it is read. */
static bool reg_range(zn_lfn *l, int32_t r, uint64_t *lo, uint64_t *hi, int depth)
{
    if (depth <= 0 || r < 0 || !l->reg_def || l->reg_def[r] < 0)
        return false;
    const ptx_ins *d = &l->f->ins[l->reg_def[r]];
    if (d->guard_reg >= 0 || d->nopnds < 2 || d->opnds[0].kind != PTX_OPND_REG)
        return false;
    unsigned w = ptx_type_size(d->type[0]) * 8;
    uint64_t alo, ahi, blo, bhi;
    bool ka = opnd_range(l, &d->opnds[1], &alo, &ahi, depth - 1);
    bool kb = d->nopnds > 2 && opnd_range(l, &d->opnds[2], &blo, &bhi, depth - 1);
    const ptx_opnd *b = d->nopnds > 2 ? &d->opnds[2] : NULL;
    switch (d->op) {
    case PTX_OP_mov:
        *lo = alo, *hi = ahi;
        return ka && d->nopnds == 2;
    case PTX_OP_and:
        if (!ka && !kb)
            return false;
        *lo = 0;
        *hi = ka && kb ? (ahi < bhi ? ahi : bhi) : ka ? ahi : bhi;
        return true;
    case PTX_OP_shr:
        if (!b || b->kind != PTX_OPND_IMM || b->ival < 0 || b->ival >= 64)
            return false;
        if (!ka) {  /* logical: the type's bits shifted */
            if (ptx_type_is_signed(d->type[0]))
                return false;
            alo = 0, ahi = ones(w);
        } else if (ptx_type_is_signed(d->type[0]) && ahi > ones(w - 1)) {
            return false;
        }
        *lo = alo >> b->ival, *hi = ahi >> b->ival;
        return true;
    case PTX_OP_cvt: {
        unsigned sw = ptx_type_size(d->type[1]) * 8;
        if (!ka) {
            if (ptx_type_is_signed(d->type[1]) || ptx_type_is_float(d->type[1]))
                return false;
            alo = 0, ahi = ones(sw);
        }
        if (ptx_type_is_float(d->type[0]) || ptx_type_is_float(d->type[1]) ||
            ahi > ones(sw < w ? sw : w) || (ptx_type_is_signed(d->type[1]) && ahi > ones(sw - 1)))
            return false;
        *lo = alo, *hi = ahi;
        return true;
    }
    case PTX_OP_shl:
        if (!ka || !b || b->kind != PTX_OPND_IMM || b->ival < 0 || b->ival >= 32 ||
            ahi > (ones(w) >> b->ival))
            return false;
        *lo = alo << b->ival, *hi = ahi << b->ival;
        return true;
    case PTX_OP_mul:
    case PTX_OP_add: {
        bool wide = d->op == PTX_OP_mul && (d->flags & PTX_F(wide));
        if (!ka || !kb || ahi > UINT32_MAX || bhi > UINT32_MAX ||
            (d->op == PTX_OP_mul && !wide && !(d->flags & PTX_F(lo_half))))
            return false;
        *lo = d->op == PTX_OP_mul ? alo * blo : alo + blo;
        *hi = d->op == PTX_OP_mul ? ahi * bhi : ahi + bhi;
        return *hi <= ones(wide ? 2 * w : w);
    }
    case PTX_OP_ld:
        if (ptx_type_is_signed(d->type[0]) || w > 16 || d->opnds[0].kind != PTX_OPND_REG)
            return false;
        *lo = 0, *hi = ones(w);
        return true;
    default:
        return false;
    }
}

/* The table the load at [r + imm] reads from: r's one definition adds a
 * table register to another (*idx) */
static const ptx_var *table_plan(zn_lfn *l, const ptx_ins *ins, const ptx_opnd **sym,
                                 const ptx_opnd **idx)
{
    const ptx_opnd *a = &ins->opnds[1];
    if (a->kind != PTX_OPND_ADDR || a->reg < 0 ||
        (ins->space != PTX_SPACE_GLOBAL && ins->space != PTX_SPACE_CONST &&
         ins->space != PTX_SPACE_GENERIC) ||
        !l->reg_def || l->reg_def[a->reg] < 0)
        return NULL;
    const ptx_ins *d = &l->f->ins[l->reg_def[a->reg]];
    if (d->op != PTX_OP_add || d->nopnds != 3 || d->guard_reg >= 0 ||
        ptx_type_size(d->type[0]) != 8)
        return NULL;
    for (unsigned k = 1; k <= 2; k++)
        if (d->opnds[k].kind == PTX_OPND_REG) {
            const ptx_var *v = table_of_reg(l, d->opnds[k].reg, sym);
            if (v) {
                *idx = &d->opnds[3 - k];
                return v;
            }
        }
    return NULL;
}

static LLVMValueRef table_half(zn_lfn *l, LLVMValueRef base, uint64_t from, uint64_t bytes)
{
    zn_lmod *m = l->m;
    LLVMTypeRef v64 = LLVMVectorType(m->t_i8, 64);
    if (bytes <= from)
        return LLVMConstNull(v64);
    uint64_t n = bytes - from > 64 ? 64 : bytes - from;
    uint64_t bits = n == 64 ? ~0ull : (1ull << n) - 1;
    LLVMValueRef mask = LLVMBuildBitCast(l->b, LLVMConstInt(m->t_i64, bits, 0),
                                         LLVMVectorType(m->t_i1, 64), "");
    LLVMValueRef p = LLVMBuildIntToPtr(l->b, LLVMBuildAdd(l->b, base,
                                       LLVMConstInt(m->t_i64, from, 0), ""), m->t_ptr, "");
    LLVMTypeRef over[2] = {v64, m->t_ptr};
    LLVMValueRef args[4] = {p, LLVMConstInt(m->t_i32, 1, 0), mask, LLVMConstNull(v64)};
    return ll_intrin(l, "llvm.masked.load", over, 2, args, 4);
}

/* lanes [first, first + n) of off: their `size` bytes each as 64 permute
 * indices into the table (byte k of lane i at off[i] + k) */
static LLVMValueRef byte_indices(zn_lfn *l, LLVMValueRef off8, unsigned first, unsigned size)
{
    zn_lmod *m = l->m;
    LLVMValueRef sel[64], add[64];
    for (unsigned j = 0; j < 64; j++) {
        unsigned lane = first + j / size;   /* u8: 32 lanes fill half */
        sel[j] = LLVMConstInt(m->t_i32, lane < ZN_LANES ? lane : 0, 0);
        add[j] = LLVMConstInt(m->t_i8, j % size, 0);
    }
    LLVMValueRef spread = LLVMBuildShuffleVector(l->b, off8, LLVMGetPoison(LLVMTypeOf(off8)),
                                                 LLVMConstVector(sel, 64), "");
    return LLVMBuildAdd(l->b, spread, LLVMConstVector(add, 64), "");
}

/* each active lane's `size` bytes at its offset off (<32 x i64>, inside
 * the table of tsize bytes at base) as <32 x et>; inactive lanes zero, as
 * the gather leaves them */
static LLVMValueRef table_pick(zn_lfn *l, LLVMValueRef base, uint64_t tsize, LLVMValueRef off,
                               LLVMTypeRef et)
{
    zn_lmod *m = l->m;
    LLVMBuilderRef b = l->b;
    unsigned size = ll_bits(et) / 8;
    LLVMValueRef lo = table_half(l, base, 0, tsize), hi = table_half(l, base, 64, tsize);
    LLVMValueRef off8 = LLVMBuildTrunc(b, off, ll_vec(m->t_i8), "");
    LLVMValueRef part[4];
    unsigned nparts = ZN_LANES * size / 64 ? ZN_LANES * size / 64 : 1;
    for (unsigned k = 0; k < nparts; k++) {
        LLVMValueRef args[3] = {lo, byte_indices(l, off8, k * 64 / size, size), hi};
        part[k] = ll_intrin(l, "llvm.x86.avx512.vpermi2var.qi.512", NULL, 0, args, 3);
    }
    LLVMValueRef bytes = nparts == 1 ? part[0] : ll_concat(l, part, nparts);
    if (ZN_LANES * size < 64)   /* u8: the first 32 of 64 bytes */
        bytes = ll_lanes(l, bytes, 0, ZN_LANES);
    return LLVMBuildSelect(b, l->emask, LLVMBuildBitCast(b, bytes, ll_vec(et), ""),
                           LLVMConstNull(ll_vec(et)), "tbl.ld");
}

/* the run-time test, the table path and zn_access_load as the other;
 * false: not a table load (nothing emitted) */
bool zn_table_load(zn_lfn *l, const ptx_ins *ins, LLVMValueRef a, LLVMTypeRef et,
                   LLVMValueRef *out)
{
    zn_lmod *m = l->m;
    LLVMBuilderRef b = l->b;
    unsigned size = ll_bits(et) / 8;
    const ptx_opnd *sym = NULL, *idx = NULL;
    const ptx_var *v = table_plan(l, ins, &sym, &idx);
    if (!v || (size != 1 && size != 2 && size != 4) || v->size < size ||
        !zn_target_has(m, "avx512vbmi") || !zn_target_has(m, "avx512bw"))
        return false;
    LLVMValueRef base = LLVMBuildExtractElement(b, zn_sym_addr(l, sym),
                                                LLVMConstInt(m->t_i32, 0, 0), "tbl.base");
    LLVMValueRef off = LLVMBuildSub(b, a, ll_splat(l, base), "tbl.off");
    /* the index's definitions bound it inside the table (`q & 15`): no test */
    uint64_t lo, hi;
    int64_t imm = ins->opnds[1].ival;
    if (imm >= 0 && (uint64_t)imm + size <= v->size &&
        opnd_range(l, idx, &lo, &hi, RANGE_DEPTH) && hi <= v->size - size - (uint64_t)imm) {
        *out = table_pick(l, base, v->size, off, et);
        return true;
    }
    LLVMValueRef out_of = LLVMBuildICmp(b, LLVMIntUGT, off,
                                        ll_const_vec(m->t_i64, v->size - size), "");
    LLVMValueRef bad = ll_mask_to_i32(l, LLVMBuildAnd(b, out_of, l->emask, ""));
    LLVMValueRef inside = LLVMBuildICmp(b, LLVMIntEQ, bad, LLVMConstInt(m->t_i32, 0, 0),
                                        "tbl.inside");
    LLVMBasicBlockRef bb_tbl = LLVMAppendBasicBlockInContext(m->ctx, l->fn, "ld.table"),
        bb_other = LLVMAppendBasicBlockInContext(m->ctx, l->fn, "ld.table.other"),
        bb_join = LLVMAppendBasicBlockInContext(m->ctx, l->fn, "ld.table.done");
    LLVMBuildCondBr(b, inside, bb_tbl, bb_other);

    LLVMPositionBuilderAtEnd(b, bb_tbl);
    LLVMValueRef vt = table_pick(l, base, v->size, off, et);
    LLVMBasicBlockRef end_tbl = LLVMGetInsertBlock(b);
    LLVMBuildBr(b, bb_join);

    LLVMPositionBuilderAtEnd(b, bb_other);
    LLVMValueRef vo;
    zn_access_load(l, a, et, 1, &vo);
    LLVMBasicBlockRef end_other = LLVMGetInsertBlock(b);
    LLVMBuildBr(b, bb_join);

    LLVMPositionBuilderAtEnd(b, bb_join);
    *out = LLVMBuildPhi(b, ll_vec(et), "ld");
    LLVMValueRef in_v[2] = {vt, vo};
    LLVMBasicBlockRef in_b[2] = {end_tbl, end_other};
    LLVMAddIncoming(*out, in_v, in_b, 2);
    return true;
}
