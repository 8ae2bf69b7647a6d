/* zn_lower_call.c: call to a .func of the module (with the warp's mask;
 * the callee returns the lanes that executed `exit` and a status), and the
 * runtime externs nvcc emits: vprintf, __assertfail, malloc, free, which go
 * to w->rt one lane at a time in lane order, and the device runtime's
 * __cudaCDP2* (zn_lower_cdp.c). */
#include "zn_lower.h"

#include <stdlib.h>
#include <string.h>

typedef struct call_parts {
    const ptx_opnd *rets, *target, *params;
} call_parts;

static void split_call(const ptx_ins *ins, call_parts *c)
{
    memset(c, 0, sizeof *c);
    for (unsigned i = 0; i < ins->nopnds; i++) {
        const ptx_opnd *o = &ins->opnds[i];
        if (o->kind == PTX_OPND_LIST && !c->target)
            c->rets = o;
        else if ((o->kind == PTX_OPND_SYM || o->kind == PTX_OPND_REG) && !c->target)
            c->target = o;
        else if (o->kind == PTX_OPND_LIST && c->target && !c->params)
            c->params = o;
    }
}

/* The per-lane storage of a call argument: a call-scope .param variable, or
 * a temporary holding a register/immediate value of type t. */
static LLVMValueRef arg_slot(zn_lfn *l, const ptx_opnd *e, ptx_type t)
{
    if (e->kind == PTX_OPND_SYM || e->kind == PTX_OPND_ADDR) {
        uint32_t i;
        const ptx_var *v;
        if (zn_var_find(l, e, &i, &v) == ZN_VAR_LOCAL && l->local_slot[i])
            return l->local_slot[i];
        zn_lerr(l, "call argument '%s' is not a call-scope .param", e->sym ? e->sym : "?");
        return NULL;
    }
    LLVMTypeRef vt = zn_vec_type(l->m, t);
    LLVMValueRef tmp = ll_entry_alloca(l, vt, "arg");
    if (e->kind != PTX_OPND_SINK)
        LLVMBuildStore(l->b, zn_src(l, e, t), tmp);
    return tmp;
}

static const ptx_func *callee_of(zn_lfn *l, const ptx_opnd *t)
{
    if (t->func)
        return t->func;
    return t->sym ? ptx_find_func(l->m->pm, t->sym) : NULL;
}

/* ---- runtime externs ------------------------------------------------------- */

typedef struct rt_job {
    const char *name;
    LLVMValueRef a[5];          /* <32 x i64>/<32 x i32> argument vectors */
} rt_job;

static LLVMValueRef lane_arg(zn_lfn *l, rt_job *j, unsigned k, LLVMValueRef lane)
{
    return ll_lane_elt(l, j->a[k], lane);
}

static LLVMValueRef rt_lane(zn_lfn *l, LLVMValueRef lane, void *ud)
{
    rt_job *j = ud;
    zn_lmod *m = l->m;
    LLVMBuilderRef b = l->b;
    LLVMValueRef w = l->w;
    if (!strcmp(j->name, "vprintf")) {
        LLVMTypeRef at[4] = {m->t_ptr, m->t_ptr, m->t_ptr, m->t_i32};
        LLVMValueRef args[4] = {w,
            LLVMBuildIntToPtr(b, lane_arg(l, j, 0, lane), m->t_ptr, ""),
            LLVMBuildIntToPtr(b, lane_arg(l, j, 1, lane), m->t_ptr, ""), lane};
        return LLVMBuildCall2(b, LLVMFunctionType(m->t_i32, at, 4, 0),
                              ll_rt_fn(l, ZN_RT_VPRINTF), args, 4, "");
    }
    if (!strcmp(j->name, "__assertfail")) {
        LLVMTypeRef at[6] = {m->t_ptr, m->t_ptr, m->t_ptr, m->t_i32, m->t_ptr, m->t_i32};
        LLVMValueRef args[6] = {w,
            LLVMBuildIntToPtr(b, lane_arg(l, j, 0, lane), m->t_ptr, ""),
            LLVMBuildIntToPtr(b, lane_arg(l, j, 1, lane), m->t_ptr, ""),
            LLVMBuildTrunc(b, lane_arg(l, j, 2, lane), m->t_i32, ""),
            LLVMBuildIntToPtr(b, lane_arg(l, j, 3, lane), m->t_ptr, ""), lane};
        LLVMBuildCall2(b, LLVMFunctionType(m->t_void, at, 6, 0),
                       ll_rt_fn(l, ZN_RT_ASSERTFAIL), args, 6, "");
        return NULL;
    }
    if (!strcmp(j->name, "malloc")) {
        LLVMTypeRef at[2] = {m->t_ptr, m->t_i64};
        LLVMValueRef args[2] = {w, lane_arg(l, j, 0, lane)};
        LLVMValueRef p = LLVMBuildCall2(b, LLVMFunctionType(m->t_ptr, at, 2, 0),
                                        ll_rt_fn(l, ZN_RT_MALLOC), args, 2, "");
        return LLVMBuildPtrToInt(b, p, m->t_i64, "");
    }
    /* free */
    LLVMTypeRef at[2] = {m->t_ptr, m->t_ptr};
    LLVMValueRef args[2] = {w, LLVMBuildIntToPtr(b, lane_arg(l, j, 0, lane), m->t_ptr, "")};
    LLVMBuildCall2(b, LLVMFunctionType(m->t_void, at, 2, 0), ll_rt_fn(l, ZN_RT_FREE),
                   args, 2, "");
    return NULL;
}

/* __cudaCDP2*: the arguments' and result's slots to zn_lower_cdp */
static void call_device_runtime(zn_lfn *l, const ptx_func *f, const call_parts *c)
{
    uint32_t np = c->params ? c->params->nelems : 0;
    LLVMValueRef slots[ZN_CDP_MAXARGS], ret = NULL;
    if (np > ZN_CDP_MAXARGS || np != f->nparams) {
        zn_lerr(l, "call to '%s' with %u arguments", f->name, np);
        return;
    }
    for (uint32_t i = 0; i < np; i++) {
        ptx_type t = f->params[i].size == 8 ? PTX_T_B64 : PTX_T_B32;
        if (!(slots[i] = arg_slot(l, &c->params->elems[i], t)))
            return;
    }
    if (f->nrets && c->rets && c->rets->nelems &&
        !(ret = arg_slot(l, &c->rets->elems[0], f->rets[0].size <= 4 ? PTX_T_B32 : PTX_T_B64)))
        return;
    zn_lower_cdp(l, f, slots, np, ret);
}

static void call_runtime(zn_lfn *l, const ptx_func *f, const call_parts *c)
{
    zn_lmod *m = l->m;
    if (ptx_is_device_runtime_call(f->name))
        return call_device_runtime(l, f, c);
    rt_job j = {.name = f->name};
    uint32_t np = c->params ? c->params->nelems : 0;
    if (np > 5 || np < (f->nparams < 5 ? f->nparams : 5)) {
        zn_lerr(l, "call to '%s' with %u arguments", f->name, np);
        return;
    }
    for (uint32_t i = 0; i < np; i++) {
        /* lane-major copies of 8 (pointers, sizes) or 4 bytes (line, charSize) */
        ptx_type t = (i < f->nparams && f->params[i].size == 4) ? PTX_T_B32 : PTX_T_B64;
        LLVMValueRef slot = arg_slot(l, &c->params->elems[i], t);
        if (!slot)
            return;
        LLVMValueRef v = ll_load_slot(l, zn_vec_type(m, t), slot);
        j.a[i] = ll_coerce(l, v, ll_vec(m->t_i64), false);
    }
    bool has_ret = !strcmp(f->name, "vprintf") || !strcmp(f->name, "malloc");
    LLVMTypeRef rt = !strcmp(f->name, "vprintf") ? m->t_i32 : m->t_i64;
    LLVMValueRef r = ll_lane_loop(l, l->emask, has_ret ? rt : NULL, rt_lane, &j);
    if (has_ret && c->rets && c->rets->nelems) {
        LLVMValueRef slot = arg_slot(l, &c->rets->elems[0], PTX_T_B64);
        if (!slot)
            return;
        /* write only the lanes that called */
        LLVMValueRef old = ll_load_slot(l, ll_vec(rt), slot);
        ll_store_slot(l, LLVMBuildSelect(l->b, l->emask, r, old, ""), slot);
    }
    if (!strcmp(f->name, "__assertfail")) {
        LLVMBasicBlockRef fail = LLVMAppendBasicBlockInContext(m->ctx, l->fn, "assert");
        LLVMBasicBlockRef cont = LLVMAppendBasicBlockInContext(m->ctx, l->fn, "assert.ok");
        LLVMBuildCondBr(l->b, ll_any(l, l->emask), fail, cont);
        LLVMPositionBuilderAtEnd(l->b, fail);
        zn_return_status(l, LLVMConstInt(m->t_i32, ZN_KSTATUS_ASSERT, 0));
        LLVMPositionBuilderAtEnd(l->b, cont);
    }
}

/* ---- calls to module functions ------------------------------------------ */

static void call_func(zn_lfn *l, const ptx_func *f, LLVMValueRef fn, const call_parts *c)
{
    zn_lmod *m = l->m;
    uint32_t np = c->params ? c->params->nelems : 0;
    uint32_t nr = c->rets ? c->rets->nelems : 0;
    if (np != f->nparams || nr != f->nrets) {
        zn_lerr(l, "call to '%s': %u arguments and %u results, expected %u and %u",
                f->name, np, nr, f->nparams, f->nrets);
        return;
    }
    uint32_t n = 2 + np + nr;
    LLVMValueRef *args = calloc(n, sizeof *args);
    LLVMTypeRef *at = calloc(n, sizeof *at);
    args[0] = l->w;
    args[1] = ll_mask_to_i32(l, l->emask);
    at[0] = m->t_ptr;
    at[1] = m->t_i32;
    for (uint32_t i = 0; i < np + nr && !m->failed; i++) {
        const ptx_var *pv = i < np ? &f->params[i] : &f->rets[i - np];
        const ptx_opnd *e = i < np ? &c->params->elems[i] : &c->rets->elems[i - np];
        args[2 + i] = arg_slot(l, e, pv->type);
        at[2 + i] = m->t_ptr;
    }
    if (m->failed) {
        free(args);
        free(at);
        return;
    }
    LLVMValueRef r = LLVMBuildCall2(l->b, LLVMFunctionType(m->t_i64, at, n, 0), fn,
                                    args, n, "");
    /* results written to register temporaries go back to the registers */
    for (uint32_t i = 0; i < nr; i++) {
        const ptx_opnd *e = &c->rets->elems[i];
        if (e->kind == PTX_OPND_REG)
            zn_dst(l, e, f->rets[i].type,
                   ll_load_slot(l, zn_vec_type(m, f->rets[i].type), args[2 + np + i]));
    }
    free(args);
    free(at);
    LLVMValueRef status = LLVMBuildTrunc(l->b, LLVMBuildLShr(l->b, r,
                                         LLVMConstInt(m->t_i64, 32, 0), ""), m->t_i32, "");
    LLVMBasicBlockRef bad = LLVMAppendBasicBlockInContext(m->ctx, l->fn, "call.fail");
    LLVMBasicBlockRef ok = LLVMAppendBasicBlockInContext(m->ctx, l->fn, "call.ok");
    LLVMBuildCondBr(l->b, LLVMBuildICmp(l->b, LLVMIntNE, status,
                                        LLVMConstInt(m->t_i32, 0, 0), ""), bad, ok);
    LLVMPositionBuilderAtEnd(l->b, bad);
    zn_return_status(l, status);
    LLVMPositionBuilderAtEnd(l->b, ok);
    zn_lanes_exited(l, LLVMBuildTrunc(l->b, r, m->t_i32, ""));
}

/* call through a per-lane function pointer: one call per distinct target,
 * each with the lanes that point at it */
static void call_indirect(zn_lfn *l, const ptx_ins *ins, const call_parts *c)
{
    zn_lmod *m = l->m;
    LLVMBuilderRef b = l->b;
    const ptx_opnd *last = &ins->opnds[ins->nopnds - 1];
    const ptx_func *proto = last->kind == PTX_OPND_SYM ? last->func : NULL;
    uint32_t np = c->params ? c->params->nelems : 0;
    uint32_t nr = c->rets ? c->rets->nelems : 0;
    if (!proto || proto->nparams != np || proto->nrets != nr) {
        zn_lerr(l, "indirect call without a matching .callprototype");
        return;
    }
    uint32_t n = 2 + np + nr;
    LLVMValueRef *args = calloc(n, sizeof *args);
    LLVMTypeRef *at = calloc(n, sizeof *at);
    at[0] = m->t_ptr;
    at[1] = m->t_i32;
    args[0] = l->w;
    for (uint32_t i = 0; i < np + nr && !m->failed; i++) {
        const ptx_var *pv = i < np ? &proto->params[i] : &proto->rets[i - np];
        const ptx_opnd *e = i < np ? &c->params->elems[i] : &c->rets->elems[i - np];
        args[2 + i] = arg_slot(l, e, pv->type);
        at[2 + i] = m->t_ptr;
    }
    if (m->failed) {
        free(args);
        free(at);
        return;
    }
    LLVMValueRef fptrs = zn_src(l, c->target, PTX_T_U64);
    LLVMValueRef rem = ll_entry_alloca(l, m->t_i32, "icall.rem");
    LLVMValueRef exs = ll_entry_alloca(l, m->t_i32, "icall.exited");
    LLVMBuildStore(b, ll_mask_to_i32(l, l->emask), rem);
    LLVMBuildStore(b, LLVMConstInt(m->t_i32, 0, 0), exs);
    LLVMBasicBlockRef head = LLVMAppendBasicBlockInContext(m->ctx, l->fn, "icall");
    LLVMBasicBlockRef body = LLVMAppendBasicBlockInContext(m->ctx, l->fn, "icall.one");
    LLVMBasicBlockRef bad = LLVMAppendBasicBlockInContext(m->ctx, l->fn, "icall.fail");
    LLVMBasicBlockRef next = LLVMAppendBasicBlockInContext(m->ctx, l->fn, "icall.next");
    LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(m->ctx, l->fn, "icall.done");
    LLVMBuildBr(b, head);
    LLVMPositionBuilderAtEnd(b, head);
    LLVMValueRef r0 = LLVMBuildLoad2(b, m->t_i32, rem, "");
    LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntEQ, r0, LLVMConstInt(m->t_i32, 0, 0), ""),
                    done, body);
    LLVMPositionBuilderAtEnd(b, body);
    LLVMValueRef lane = ll_intrin2(l, "llvm.cttz", r0, LLVMConstInt(m->t_i1, 1, 0));
    LLVMValueRef fp = LLVMBuildExtractElement(b, fptrs, lane, "");
    LLVMValueRef same = LLVMBuildAnd(b, LLVMBuildICmp(b, LLVMIntEQ, fptrs, ll_splat(l, fp), ""),
                                     ll_i32_to_mask(l, r0), "");
    args[1] = ll_mask_to_i32(l, same);
    LLVMValueRef r = LLVMBuildCall2(b, LLVMFunctionType(m->t_i64, at, n, 0),
                                    LLVMBuildIntToPtr(b, fp, m->t_ptr, ""), args, n, "");
    LLVMValueRef status = LLVMBuildTrunc(b, LLVMBuildLShr(b, r, LLVMConstInt(m->t_i64, 32, 0), ""),
                                         m->t_i32, "");
    LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntNE, status, LLVMConstInt(m->t_i32, 0, 0), ""),
                    bad, next);
    LLVMPositionBuilderAtEnd(b, bad);
    zn_return_status(l, status);
    LLVMPositionBuilderAtEnd(b, next);
    LLVMValueRef ex = LLVMBuildLoad2(b, m->t_i32, exs, "");
    LLVMBuildStore(b, LLVMBuildOr(b, ex, LLVMBuildTrunc(b, r, m->t_i32, ""), ""), exs);
    LLVMBuildStore(b, LLVMBuildAnd(b, r0, LLVMBuildNot(b, args[1], ""), ""), rem);
    LLVMBuildBr(b, head);
    LLVMPositionBuilderAtEnd(b, done);
    for (uint32_t i = 0; i < nr; i++) {
        const ptx_opnd *e = &c->rets->elems[i];
        if (e->kind == PTX_OPND_REG)
            zn_dst(l, e, proto->rets[i].type,
                   ll_load_slot(l, zn_vec_type(m, proto->rets[i].type), args[2 + np + i]));
    }
    free(args);
    free(at);
    zn_lanes_exited(l, LLVMBuildLoad2(b, m->t_i32, exs, ""));
}

void zn_lower_call(zn_lfn *l, const ptx_ins *ins)
{
    call_parts c;
    split_call(ins, &c);
    if (c.target && c.target->kind == PTX_OPND_REG) {
        call_indirect(l, ins, &c);
        return;
    }
    if (!c.target || c.target->kind != PTX_OPND_SYM) {
        zn_lerr(l, "call without a target");
        return;
    }
    const ptx_func *f = callee_of(l, c.target);
    if (!f) {
        zn_lerr(l, "call to unknown function '%s'", c.target->sym ? c.target->sym : "?");
        return;
    }
    /* a prototype may precede the definition: find the body by name */
    const ptx_module *pm = l->m->pm;
    for (uint32_t i = 0; i < pm->nfuncs; i++)
        if (l->m->fns[i] && !strcmp(pm->funcs[i].name, f->name))
            return call_func(l, &pm->funcs[i], l->m->fns[i], &c);
    if (zn_func_is_runtime(f))
        return call_runtime(l, f, &c);
    zn_lerr(l, "call to undefined external function '%s'", f->name);
}
