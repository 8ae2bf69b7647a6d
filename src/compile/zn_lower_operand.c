/* zn_lower_operand.c: PTX operands as <32 x T> values: registers,
 * immediates, special registers and symbol addresses; register writes under
 * the execution mask. */
#include "zn_lower.h"
#include "zn_global_ref.h"

#include <stdio.h>
#include <string.h>

LLVMTypeRef zn_scalar_type(zn_lmod *m, ptx_type t)
{
    switch (t) {
    case PTX_T_PRED: return m->t_i1;
    case PTX_T_B8: case PTX_T_U8: case PTX_T_S8: return m->t_i8;
    case PTX_T_B16: case PTX_T_U16: case PTX_T_S16:
    case PTX_T_F16: case PTX_T_BF16: return m->t_i16;
    case PTX_T_F32: return m->t_f32;
    case PTX_T_F64: return m->t_f64;
    case PTX_T_B64: case PTX_T_U64: case PTX_T_S64: return m->t_i64;
    case PTX_T_B128: return m->t_i128;
    default: return m->t_i32; /* b32 u32 s32 f16x2 bf16x2 tf32 e4m3x2 ... */
    }
}

LLVMTypeRef zn_vec_type(zn_lmod *m, ptx_type t)
{
    return ll_vec(zn_scalar_type(m, t));
}

/* the value a masked write keeps for the other lanes: not a read of the
 * register by the running lanes (zn_lower_deadregs.c) */
static LLVMValueRef load_old(zn_lfn *l, int32_t reg, bool scalar)
{
    return LLVMBuildLoad2(l->b, scalar ? ll_elem(l->reg_ty[reg]) : l->reg_ty[reg],
                          l->regs[reg], "");
}

LLVMValueRef zn_load_reg_scalar(zn_lfn *l, int32_t reg)
{
    zn_dead_regs_note_read(l, reg);
    return load_old(l, reg, true);
}

LLVMValueRef zn_load_reg(zn_lfn *l, int32_t reg)
{
    if (l->reg_uni && l->reg_uni[reg])
        return ll_splat(l, zn_load_reg_scalar(l, reg));
    zn_dead_regs_note_read(l, reg);
    return load_old(l, reg, false);
}

/* In a block that all live lanes run, an unguarded write may cover all 32
 * lanes: the others have finished. Only for operations whose every lane
 * is defined (no poison may reach a later branch through a dead lane). */
static bool write_all_lanes(zn_lfn *l)
{
    const ptx_ins *ins = l->ins;
    return ins && l->blk_conv && l->blk_conv[l->cur_block] && ins->guard_reg < 0 &&
           (zn_op_is_pure(ins->op) || ins->op == PTX_OP_ld || ins->op == PTX_OP_ldu);
}

LLVMValueRef zn_guard_mask(zn_lfn *l, const ptx_ins *ins)
{
    if (ins->guard_reg < 0)
        return l->mask;
    LLVMValueRef p = zn_load_reg(l, ins->guard_reg);
    p = ll_coerce(l, p, ll_vec(l->m->t_i1), false);
    if (ins->guard_neg)
        p = LLVMBuildNot(l->b, p, "");
    return LLVMBuildAnd(l->b, l->mask, p, "");
}

/* ---- kernel parameter layout --------------------------------------------- */

uint32_t zn_param_offset(const ptx_func *f, uint32_t idx, uint32_t *total)
{
    uint32_t off = 0, at = 0;
    for (uint32_t i = 0; i < f->nparams; i++) {
        uint32_t a = f->params[i].align ? f->params[i].align : 1;
        off = (off + a - 1) / a * a;
        if (i == idx)
            at = off;
        off += (uint32_t)f->params[i].size;
    }
    if (total)
        *total = off;
    return at;
}

/* ---- variables ------------------------------------------------------------ */

static bool in_array(const ptx_var *v, const ptx_var *arr, uint32_t n, uint32_t *idx)
{
    if (!arr || v < arr || v >= arr + n)
        return false;
    *idx = (uint32_t)(v - arr);
    return true;
}

static bool by_name(const char *s, const ptx_var *arr, uint32_t n, uint32_t *idx)
{
    for (uint32_t i = 0; s && i < n; i++)
        if (arr[i].name && !strcmp(arr[i].name, s)) {
            *idx = i;
            return true;
        }
    return false;
}

zn_var_kind zn_var_find(zn_lfn *l, const ptx_opnd *o, uint32_t *index,
                        const ptx_var **var)
{
    const ptx_func *f = l->f;
    const ptx_module *pm = l->m->pm;
    const ptx_var *v = o->var;
    uint32_t i;
    zn_var_kind k = ZN_VAR_UNKNOWN;
    if (v && in_array(v, f->params, f->nparams, &i)) k = ZN_VAR_PARAM;
    else if (v && in_array(v, f->rets, f->nrets, &i)) k = ZN_VAR_RET;
    else if (v && in_array(v, f->locals, f->nlocals, &i)) k = ZN_VAR_LOCAL;
    else if (v && in_array(v, pm->vars, pm->nvars, &i)) k = ZN_VAR_MODULE;
    else if (by_name(o->sym, f->locals, f->nlocals, &i)) k = ZN_VAR_LOCAL;
    else if (by_name(o->sym, f->params, f->nparams, &i)) k = ZN_VAR_PARAM;
    else if (by_name(o->sym, f->rets, f->nrets, &i)) k = ZN_VAR_RET;
    else if (by_name(o->sym, pm->vars, pm->nvars, &i)) k = ZN_VAR_MODULE;
    if (k == ZN_VAR_UNKNOWN)
        return k;
    *index = i;
    switch (k) {
    case ZN_VAR_PARAM: *var = &f->params[i]; break;
    case ZN_VAR_RET: *var = &f->rets[i]; break;
    case ZN_VAR_LOCAL: *var = &f->locals[i]; break;
    default: *var = &pm->vars[i]; break;
    }
    return k;
}

/* base + lane * size: the per-lane copies of a .local/.param variable. */
static LLVMValueRef per_lane_addr(zn_lfn *l, LLVMValueRef base, uint64_t size)
{
    zn_lmod *m = l->m;
    LLVMValueRef b = ll_splat(l, LLVMBuildPtrToInt(l->b, base, m->t_i64, ""));
    LLVMValueRef lane = LLVMBuildZExt(l->b, l->lane_ids, ll_vec(m->t_i64), "");
    LLVMValueRef off = LLVMBuildMul(l->b, lane, ll_const_vec(m->t_i64, size), "");
    return LLVMBuildAdd(l->b, b, off, "");
}

/* by symbol, not by address: objects stay cacheable (zn_global_ref.c) */
static LLVMValueRef global_addr(zn_lfn *l, const ptx_var *v)
{
    return zn_global_ref(l, v);
}

/* A kernel's address (what a device-side launch passes to
 * GetParameterBufferV2): the kernel's name as a constant string of the
 * object, one per name, so the executor finds the kernel by name and a
 * kernel need not be compiled with the code that launches it. */
static LLVMValueRef entry_name(zn_lfn *l, const ptx_func *f)
{
    zn_lmod *m = l->m;
    char gname[512];
    snprintf(gname, sizeof gname, "zn.kernel_name.%s", f->name);
    LLVMValueRef g = LLVMGetNamedGlobal(m->mod, gname);
    if (!g) {
        LLVMValueRef s = LLVMConstStringInContext(m->ctx, f->name, (unsigned)strlen(f->name), 0);
        g = LLVMAddGlobal(m->mod, LLVMTypeOf(s), gname);
        LLVMSetInitializer(g, s);
        LLVMSetGlobalConstant(g, 1);
        LLVMSetLinkage(g, LLVMPrivateLinkage);
    }
    return g;
}

LLVMValueRef zn_sym_addr(zn_lfn *l, const ptx_opnd *o)
{
    zn_lmod *m = l->m;
    LLVMValueRef a;
    if (o->func && !o->var && o->func->is_entry)
        return ll_splat(l, LLVMBuildPtrToInt(l->b, entry_name(l, o->func), m->t_i64, ""));
    if (o->func && !o->var) {
        const ptx_func *f = o->func;
        uint32_t fi = (uint32_t)(f - m->pm->funcs);
        if (fi >= m->pm->nfuncs || !m->fns[fi]) {
            zn_lerr(l, "address of function '%s' is not supported", f->name);
            return ll_const_vec(m->t_i64, 0);
        }
        a = ll_splat(l, LLVMBuildPtrToInt(l->b, m->fns[fi], m->t_i64, ""));
        return a;
    }
    uint32_t i;
    const ptx_var *v;
    zn_var_kind k = zn_var_find(l, o, &i, &v);
    switch (k) {
    case ZN_VAR_UNKNOWN:
        zn_lerr(l, "unknown symbol '%s'", o->sym ? o->sym : "?");
        return ll_const_vec(m->t_i64, 0);
    case ZN_VAR_PARAM:
        if (l->is_entry) {
            LLVMValueRef p = ll_load_field(l, m->t_block, l->block,
                                           ZN_BLOCK_FIELD_PARAMS, m->t_ptr);
            p = LLVMBuildPtrToInt(l->b, p, m->t_i64, "");
            p = LLVMBuildAdd(l->b, p, LLVMConstInt(m->t_i64,
                             zn_param_offset(l->f, i, NULL), 0), "");
            a = ll_splat(l, p);
        } else {
            a = per_lane_addr(l, l->param_arg[i], v->size);
        }
        break;
    case ZN_VAR_RET:
        a = per_lane_addr(l, l->ret_arg[i], v->size);
        break;
    case ZN_VAR_LOCAL:
        if (v->space == PTX_SPACE_SHARED) {
            a = ll_const_vec(m->t_i64, (uint64_t)zn_shared_offset(m, v));
        } else if (l->local_slot[i]) {
            a = per_lane_addr(l, l->local_slot[i], v->size);
        } else {
            zn_lerr(l, "variable '%s' has no storage", v->name);
            return ll_const_vec(m->t_i64, 0);
        }
        break;
    default: /* module scope */
        if (v->space == PTX_SPACE_SHARED) {
            a = ll_const_vec(m->t_i64, (uint64_t)zn_shared_offset(m, v));
        } else if (v->space == PTX_SPACE_GLOBAL || v->space == PTX_SPACE_CONST) {
            a = global_addr(l, v);
        } else {
            zn_lerr(l, "module-scope variable '%s' in this space is not supported",
                    v->name);
            return ll_const_vec(m->t_i64, 0);
        }
        break;
    }
    if (o->ival)
        a = LLVMBuildAdd(l->b, a, ll_const_vec(m->t_i64, (uint64_t)o->ival), "");
    return a;
}

/* ---- special registers ---------------------------------------------------- */

static LLVMValueRef block_u32(zn_lfn *l, unsigned field, int idx)
{
    zn_lmod *m = l->m;
    LLVMValueRef p = ll_field_ptr(l, m->t_block, l->block, field);
    if (idx >= 0) {
        LLVMValueRef ix[2] = {LLVMConstInt(m->t_i32, 0, 0),
                              LLVMConstInt(m->t_i32, (unsigned)idx, 0)};
        p = LLVMBuildGEP2(l->b, LLVMArrayType2(m->t_i32, 3), p, ix, 2, "");
    }
    return LLVMBuildLoad2(l->b, m->t_i32, p, "");
}

static LLVMValueRef lanemask(zn_lfn *l, LLVMIntPredicate pr)
{
    /* bit j of lane i's mask is set when j <pr> i */
    zn_lmod *m = l->m;
    LLVMValueRef one = ll_const_vec(m->t_i64, 1);
    LLVMValueRef lane = LLVMBuildZExt(l->b, l->lane_ids, ll_vec(m->t_i64), "");
    LLVMValueRef bit = LLVMBuildShl(l->b, one, lane, "");         /* 1 << i */
    LLVMValueRef lt = LLVMBuildSub(l->b, bit, one, "");            /* j < i */
    LLVMValueRef r;
    switch (pr) {
    case LLVMIntEQ: r = bit; break;
    case LLVMIntULT: r = lt; break;
    case LLVMIntULE: r = LLVMBuildOr(l->b, lt, bit, ""); break;
    case LLVMIntUGT: r = LLVMBuildNot(l->b, LLVMBuildOr(l->b, lt, bit, ""), ""); break;
    default: r = LLVMBuildNot(l->b, lt, ""); break;              /* UGE */
    }
    return LLVMBuildTrunc(l->b, r, ll_vec(m->t_i32), "");
}

/* %tid.x/y/z: the executor fills them per warp once per launch
 * (zn_warp_set_tid), so the prologue loads them; before, every warp of
 * every block divided its thread indices by ntid.x and ntid.y. */
LLVMValueRef zn_load_tid(zn_lfn *l, unsigned d)
{
    LLVMValueRef fixed = zn_fixed_tid(l, d); /* code for one block shape */
    if (fixed)
        return fixed;
    zn_lmod *m = l->m;
    LLVMTypeRef all = LLVMArrayType2(LLVMArrayType2(m->t_i32, ZN_LANES), 3);
    LLVMValueRef base = ll_field_ptr(l, m->t_warp, l->w, ZN_WARP_FIELD_TID);
    LLVMValueRef idx[2] = {LLVMConstInt(m->t_i32, 0, 0), LLVMConstInt(m->t_i32, d, 0)};
    LLVMValueRef p = LLVMBuildInBoundsGEP2(l->b, all, base, idx, 2, "");
    LLVMValueRef v = LLVMBuildLoad2(l->b, ll_vec(m->t_i32), p, "tid");
    LLVMSetAlignment(v, 4);
    return v;
}

/* block->shared as an i64 splat, loaded here */
static LLVMValueRef load_shared_base(zn_lfn *l)
{
    zn_lmod *m = l->m;
    LLVMValueRef sh = ll_load_field(l, m->t_block, l->block, ZN_BLOCK_FIELD_SHARED, m->t_ptr);
    return ll_splat(l, LLVMBuildPtrToInt(l->b, sh, m->t_i64, ""));
}

void zn_sreg_prologue(zn_lfn *l)
{
    zn_lmod *m = l->m;
    LLVMValueRef e[ZN_LANES];
    for (int i = 0; i < ZN_LANES; i++)
        e[i] = LLVMConstInt(m->t_i32, (unsigned)i, 0);
    l->lane_ids = LLVMConstVector(e, ZN_LANES);
    l->block = ll_load_field(l, m->t_warp, l->w, ZN_WARP_FIELD_BLOCK, m->t_ptr);

    LLVMValueRef *c = l->sreg_cache;
    for (int d = 0; d < 3; d++) {
        c[PTX_SREG_NTID_X + d] = ll_splat(l, block_u32(l, ZN_BLOCK_FIELD_NTID, d));
        c[PTX_SREG_CTAID_X + d] = ll_splat(l, block_u32(l, ZN_BLOCK_FIELD_CTAID, d));
        c[PTX_SREG_NCTAID_X + d] = ll_splat(l, block_u32(l, ZN_BLOCK_FIELD_NCTAID, d));
    }
    LLVMValueRef wid = ll_load_field(l, m->t_warp, l->w, ZN_WARP_FIELD_WARPID, m->t_i32);
    c[PTX_SREG_WARPID] = ll_splat(l, wid);
    c[PTX_SREG_LANEID] = l->lane_ids;
    for (unsigned d = 0; d < 3; d++)
        c[PTX_SREG_TID_X + d] = zn_load_tid(l, d);
    LLVMValueRef nth = block_u32(l, ZN_BLOCK_FIELD_NTHREADS, -1);
    c[PTX_SREG_NWARPID] = ll_splat(l, LLVMBuildUDiv(l->b,
        LLVMBuildAdd(l->b, nth, LLVMConstInt(m->t_i32, ZN_LANES - 1, 0), ""),
        LLVMConstInt(m->t_i32, ZN_LANES, 0), ""));
    c[PTX_SREG_SMID] = ll_splat(l, ll_load_field(l, m->t_warp, l->w,
                                                 ZN_WARP_FIELD_SMID, m->t_i32));
    c[PTX_SREG_NSMID] = ll_splat(l, ll_load_field(l, m->t_warp, l->w,
                                                  ZN_WARP_FIELD_NSMID, m->t_i32));
    c[PTX_SREG_GRIDID] = ll_const_vec(m->t_i64, 1);
    /* 0 outside a device graph: Zinc refuses graphs instantiated for
     * device launch (zn_drv_graph.c), so no kernel runs inside one */
    c[PTX_SREG_CURRENT_GRAPH_EXEC] = ll_const_vec(m->t_i64, 0);
    c[PTX_SREG_LANEMASK_EQ] = lanemask(l, LLVMIntEQ);
    c[PTX_SREG_LANEMASK_LT] = lanemask(l, LLVMIntULT);
    c[PTX_SREG_LANEMASK_LE] = lanemask(l, LLVMIntULE);
    c[PTX_SREG_LANEMASK_GT] = lanemask(l, LLVMIntUGT);
    c[PTX_SREG_LANEMASK_GE] = lanemask(l, LLVMIntUGE);
    c[PTX_SREG_DYNAMIC_SMEM_SIZE] = ll_splat(l, block_u32(l, ZN_BLOCK_FIELD_DYN_SHARED_SIZE, -1));
    /* block->shared_size is the whole window: reserved + static + dynamic */
    LLVMValueRef window = block_u32(l, ZN_BLOCK_FIELD_SHARED_SIZE, -1);
    c[PTX_SREG_AGGR_SMEM_SIZE] = ll_splat(l, window);
    c[PTX_SREG_TOTAL_SMEM_SIZE] = ll_splat(l, LLVMBuildSub(l->b, window,
                                          LLVMConstInt(m->t_i32, ZN_SMEM_RESERVED, 0), ""));
    c[PTX_SREG_RESERVED_SMEM_BEGIN] = ll_const_vec(m->t_i32, 0);
    c[PTX_SREG_RESERVED_SMEM_END] = ll_const_vec(m->t_i32, ZN_SMEM_RESERVED);
    c[PTX_SREG_RESERVED_SMEM_CAP] = ll_const_vec(m->t_i32, ZN_SMEM_RESERVED);
    c[PTX_SREG_RESERVED_SMEM_0] = ll_const_vec(m->t_i32, 0);
    c[PTX_SREG_RESERVED_SMEM_1] = ll_const_vec(m->t_i32, ZN_SMEM_RESERVED_CG);
    for (int i = 0; i < 32; i++)
        c[PTX_SREG_ENVREG0 + i] = ll_const_vec(m->t_i32, 0);
    /* cooperative groups' grid.sync() finds its barrier workspace as
     * %envreg1:%envreg2 (high:low), 0 outside cooperative launches */
    LLVMValueRef ws = LLVMBuildPtrToInt(l->b, ll_load_field(l, m->t_block, l->block,
                                        ZN_BLOCK_FIELD_GRID_WS, m->t_ptr), m->t_i64, "");
    c[PTX_SREG_ENVREG0 + 2] = ll_splat(l, LLVMBuildTrunc(l->b, ws, m->t_i32, ""));
    c[PTX_SREG_ENVREG0 + 1] = ll_splat(l, LLVMBuildTrunc(l->b,
        LLVMBuildLShr(l->b, ws, LLVMConstInt(m->t_i64, 32, 0), ""), m->t_i32, ""));
    l->shared_base = load_shared_base(l);
    zn_fixed_shape_sregs(l);
}

/* In a coroutine the entry block's splat is live across every barrier, so
 * LLVM keeps its 32 lanes (256 bytes) in each warp's frame, stored by
 * every warp and reloaded after each suspend (CoroSplit does not
 * rematerialize a shufflevector). There each use loads the scalar again
 * (a load is not moved across a suspend) and splats it. */
LLVMValueRef zn_shared_base(zn_lfn *l)
{
    return l->coro ? load_shared_base(l) : l->shared_base;
}

static LLVMValueRef rt_time(zn_lfn *l, unsigned field)
{
    zn_lmod *m = l->m;
    LLVMTypeRef ft = LLVMFunctionType(m->t_i64, &m->t_ptr, 1, 0);
    LLVMValueRef w = l->w;
    return ll_splat(l, LLVMBuildCall2(l->b, ft, ll_rt_fn(l, field), &w, 1, ""));
}

LLVMValueRef zn_sreg(zn_lfn *l, ptx_sreg s)
{
    zn_lmod *m = l->m;
    LLVMTypeRef v32 = ll_vec(m->t_i32);
    switch (s) {
    case PTX_SREG_CLOCK64: return rt_time(l, ZN_RT_CLOCK64);
    case PTX_SREG_CLOCK:
        return LLVMBuildTrunc(l->b, rt_time(l, ZN_RT_CLOCK64), v32, "");
    case PTX_SREG_CLOCK_HI:
        return LLVMBuildTrunc(l->b, LLVMBuildLShr(l->b, rt_time(l, ZN_RT_CLOCK64),
                              ll_const_vec(m->t_i64, 32), ""), v32, "");
    case PTX_SREG_GLOBALTIMER: return rt_time(l, ZN_RT_GLOBALTIMER);
    case PTX_SREG_GLOBALTIMER_LO:
        return LLVMBuildTrunc(l->b, rt_time(l, ZN_RT_GLOBALTIMER), v32, "");
    case PTX_SREG_GLOBALTIMER_HI:
        return LLVMBuildTrunc(l->b, LLVMBuildLShr(l->b, rt_time(l, ZN_RT_GLOBALTIMER),
                              ll_const_vec(m->t_i64, 32), ""), v32, "");
    default:
        if (s > PTX_SREG_NONE && s < PTX_SREG_COUNT && l->sreg_cache[s])
            return l->sreg_cache[s];
        LLVMValueRef cl = zn_cluster_sreg(l, s); /* zn_lower_cluster.c */
        if (cl)
            return cl;
        zn_lerr(l, "unsupported special register");
        return ll_const_vec(m->t_i32, 0);
    }
}

/* ---- sources -------------------------------------------------------------- */

static LLVMValueRef imm_value(zn_lfn *l, LLVMTypeRef vt, const ptx_opnd *o)
{
    zn_lmod *m = l->m;
    LLVMTypeRef et = ll_elem(vt);
    if (o->kind == PTX_OPND_IMM) {
        if (ll_is_fp(et))
            return ll_const_fvec(et, (double)o->ival);
        return ll_const_vec(et, (uint64_t)o->ival);
    }
    /* FIMM: a bit pattern of an f32 or f64 */
    double val;
    if (o->is_f64) {
        memcpy(&val, &o->fbits, 8);
    } else {
        uint32_t b32 = (uint32_t)o->fbits;
        float f;
        memcpy(&f, &b32, 4);
        val = f;
    }
    unsigned bits = ll_bits(et);
    if (ll_is_fp(et) && LLVMGetTypeKind(et) != LLVMHalfTypeKind &&
        LLVMGetTypeKind(et) != LLVMBFloatTypeKind) {
        /* exact bits when the widths agree (keeps NaN payloads) */
        if ((bits == 64) == o->is_f64) {
            LLVMValueRef iv = ll_const_vec(LLVMIntTypeInContext(m->ctx, bits), o->fbits);
            return LLVMConstBitCast(iv, vt);
        }
        return ll_const_fvec(et, val);
    }
    if ((bits == 64 && o->is_f64) || (bits == 32 && !o->is_f64))
        return ll_const_vec(et, o->fbits);
    if (bits == 32) {
        float f = (float)val;
        uint32_t u;
        memcpy(&u, &f, 4);
        return ll_const_vec(et, u);
    }
    if (bits == 64) {
        uint64_t u;
        memcpy(&u, &val, 8);
        return ll_const_vec(et, u);
    }
    if (bits == 16) {
        /* an f16 constant written as 0f...: round through LLVM's folder */
        LLVMValueRef f = ll_const_fvec(m->t_f32, val);
        LLVMValueRef h = LLVMBuildFPTrunc(l->b, f, ll_vec(m->t_half), "");
        return LLVMBuildBitCast(l->b, h, vt, "");
    }
    return ll_const_vec(et, o->fbits);
}

LLVMValueRef zn_src(zn_lfn *l, const ptx_opnd *o, ptx_type t)
{
    zn_lmod *m = l->m;
    LLVMTypeRef vt = zn_vec_type(m, t);
    bool sign = ptx_type_is_signed(t);
    LLVMValueRef v;
    switch (o->kind) {
    case PTX_OPND_REG:
        v = zn_load_reg(l, o->reg);
        if (LLVMTypeOf(v) == ll_vec(m->t_i1) && t != PTX_T_PRED)
            v = LLVMBuildZExt(l->b, v, vt, "");
        else if (t == PTX_T_PRED && LLVMTypeOf(v) != ll_vec(m->t_i1))
            v = LLVMBuildICmp(l->b, LLVMIntNE, v, LLVMConstNull(LLVMTypeOf(v)), "");
        else
            v = ll_coerce(l, v, vt, sign);
        if (o->neg)
            v = LLVMBuildNot(l->b, v, "");
        return v;
    case PTX_OPND_SREG:
        return ll_coerce(l, zn_sreg(l, o->sreg), vt, false);
    case PTX_OPND_IMM:
    case PTX_OPND_FIMM:
        if (t == PTX_T_PRED)
            return ll_const_vec(m->t_i1, o->ival != 0);
        return imm_value(l, vt, o);
    case PTX_OPND_SYM:
        return ll_coerce(l, zn_sym_addr(l, o), vt, false);
    case PTX_OPND_VEC: {
        /* {a, b, ...}: pack the elements, first one lowest */
        unsigned bits = ll_bits(vt);
        unsigned eb = bits / (o->nelems ? o->nelems : 1);
        LLVMTypeRef it = ll_vec(LLVMIntTypeInContext(m->ctx, bits));
        LLVMTypeRef et = ll_vec(LLVMIntTypeInContext(m->ctx, eb));
        LLVMValueRef acc = LLVMConstNull(it);
        ptx_type ety = eb == 8 ? PTX_T_B8 : eb == 16 ? PTX_T_B16 : eb == 32 ? PTX_T_B32 : PTX_T_B64;
        for (uint32_t i = 0; i < o->nelems; i++) {
            if (o->elems[i].kind == PTX_OPND_SINK)
                continue;
            LLVMValueRef e = ll_coerce(l, zn_src(l, &o->elems[i], ety), et, false);
            e = LLVMBuildZExt(l->b, e, it, "");
            if (i)
                e = LLVMBuildShl(l->b, e, ll_const_vec(ll_elem(it), i * eb), "");
            acc = LLVMBuildOr(l->b, acc, e, "");
        }
        return ll_coerce(l, acc, vt, false);
    }
    default:
        zn_lerr(l, "unexpected operand kind");
        return LLVMGetPoison(vt);
    }
}

/* ---- destinations --------------------------------------------------------- */

void zn_dst_reg(zn_lfn *l, int32_t reg, ptx_type t, LLVMValueRef v)
{
    LLVMTypeRef st = l->reg_ty[reg];
    if (LLVMTypeOf(v) == ll_vec(l->m->t_i1) && st != LLVMTypeOf(v))
        v = LLVMBuildZExt(l->b, v, ll_vec(LLVMIntTypeInContext(l->m->ctx, ll_bits(st))), "");
    else if (st == ll_vec(l->m->t_i1) && LLVMTypeOf(v) != st)
        v = LLVMBuildICmp(l->b, LLVMIntNE, v, LLVMConstNull(LLVMTypeOf(v)), "");
    v = ll_coerce(l, v, st, ptx_type_is_signed(t));
    if (ll_bits(ll_elem(st)) == 32 && zn_ftz_flush_at_def(l, reg)) /* zn_lower_ftzclean.c */
        v = LLVMBuildBitCast(l->b, zn_ftz(l, LLVMBuildBitCast(l->b, v, ll_vec(l->m->t_f32), "")),
                             st, "");
    if (l->reg_uni && l->reg_uni[reg]) {
        /* every lane computed the same value from uniform inputs */
        LLVMValueRef s = LLVMBuildExtractElement(l->b, v, LLVMConstInt(l->m->t_i32, 0, 0), "");
        if (l->ins && l->ins->guard_reg >= 0)
            s = LLVMBuildSelect(l->b, ll_any(l, l->emask), s, load_old(l, reg, true), "");
        LLVMBuildStore(l->b, s, l->regs[reg]);
        return;
    }
    if ((l->reg_inv && l->reg_inv[reg]) || write_all_lanes(l)) {
        LLVMBuildStore(l->b, v, l->regs[reg]);
        return;
    }
    LLVMValueRef old = load_old(l, reg, false);
    LLVMBuildStore(l->b, LLVMBuildSelect(l->b, l->emask, v, old, ""), l->regs[reg]);
}

void zn_dst(zn_lfn *l, const ptx_opnd *o, ptx_type t, LLVMValueRef v)
{
    switch (o->kind) {
    case PTX_OPND_REG:
        zn_dst_reg(l, o->reg, t, v);
        return;
    case PTX_OPND_SINK:
        return;
    case PTX_OPND_VEC: {
        /* {a, b} = v: split, first element lowest */
        unsigned bits = ll_bits(LLVMTypeOf(v));
        unsigned n = o->nelems ? o->nelems : 1, eb = bits / n;
        LLVMTypeRef it = ll_vec(LLVMIntTypeInContext(l->m->ctx, bits));
        LLVMTypeRef et = ll_vec(LLVMIntTypeInContext(l->m->ctx, eb));
        ptx_type ety = eb == 8 ? PTX_T_B8 : eb == 16 ? PTX_T_B16 : eb == 32 ? PTX_T_B32 : PTX_T_B64;
        LLVMValueRef iv = ll_coerce(l, v, it, false);
        for (uint32_t i = 0; i < n; i++) {
            LLVMValueRef e = i ? LLVMBuildLShr(l->b, iv, ll_const_vec(ll_elem(it), i * eb), "") : iv;
            zn_dst(l, &o->elems[i], ety, LLVMBuildTrunc(l->b, e, et, ""));
        }
        return;
    }
    default:
        zn_lerr(l, "destination must be a register");
    }
}
