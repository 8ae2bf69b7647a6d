/* zn_lower_check.c: ZINC_CHECK=memcheck/racecheck code (zn_compile_opts.check).
 *
 * Before a checked memory instruction runs, the active lanes' host
 * addresses go to the runtime's memcheck service (zn_rt_ops.memcheck,
 * src/exec/zn_exec_check.c) with the access size, its space and a constant
 * string naming the instruction (function, PTX line, .loc source line). A
 * nonzero answer means the runtime has reported a bad access: the warp
 * returns ZN_KSTATUS_ILLEGAL_ADDRESS before touching memory, as a GPU
 * fault ends the grid. Off (no code at all) unless the module is compiled
 * in check mode; the mode is part of the kernel cache key. racecheck
 * (src/exec/zn_exec_race.c) uses the same calls: the runtime records the
 * shared accesses and never answers nonzero for a race. */
#include "zn_lower.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int zn_check_env(void)
{
    const char *s = getenv("ZINC_CHECK");
    if (!s)
        return 0;
    /* a comma-separated list; "memcheck" and "racecheck" both need the
     * checked code (the same code: the runtime decides what each call
     * does), "leaks" needs none */
    static const char *const modes[] = {"memcheck", "racecheck"};
    for (unsigned i = 0; i < 2; i++) {
        size_t n = strlen(modes[i]);
        for (const char *p = s; (p = strstr(p, modes[i])) != NULL; p += n)
            if ((p == s || p[-1] == ',') && (p[n] == 0 || p[n] == ','))
                return 1;
    }
    return 0;
}

/* The per-lane .local depot of the function when there is exactly one
 * (nvcc's __local_depot): its base and per-lane size; 0 otherwise. */
static void local_depot(zn_lfn *l, LLVMValueRef *base, uint64_t *span)
{
    zn_lmod *m = l->m;
    const ptx_func *f = l->f;
    int found = -1;
    for (uint32_t i = 0; i < f->nlocals; i++)
        if (f->locals[i].space == PTX_SPACE_LOCAL && l->local_slot[i]) {
            if (found >= 0) {
                found = -2;
                break;
            }
            found = (int)i;
        }
    if (found < 0) {
        *base = LLVMConstInt(m->t_i64, 0, 0);
        *span = 0;
        return;
    }
    *base = LLVMBuildPtrToInt(l->b, l->local_slot[found], m->t_i64, "");
    *span = f->locals[found].size ? f->locals[found].size : 1;
}

/* "name (PTX line N) in file:line" for the report's "at" line. */
static LLVMValueRef where_string(zn_lfn *l)
{
    const ptx_module *pm = l->m->pm;
    const ptx_ins *ins = l->ins;
    char buf[512];
    int n = snprintf(buf, sizeof buf, "%s (PTX line %u)", l->f->name, ins ? ins->line : 0);
    if (ins && ins->loc_line && ins->loc_file < pm->nfiles && pm->files[ins->loc_file] &&
        n > 0 && (size_t)n < sizeof buf)
        snprintf(buf + n, sizeof buf - (size_t)n, " in %s:%u", pm->files[ins->loc_file],
                 ins->loc_line);
    return LLVMBuildGlobalStringPtr(l->b, buf, "zn.chk.where");
}

void zn_check_access(zn_lfn *l, LLVMValueRef addrs, unsigned size, ptx_space space,
                     unsigned flags)
{
    zn_lmod *m = l->m;
    if (!m->opts || !m->opts->check || size == 0)
        return;
    if (space != PTX_SPACE_GLOBAL && space != PTX_SPACE_SHARED &&
        space != PTX_SPACE_LOCAL && space != PTX_SPACE_GENERIC)
        return;
    if (!l->chk_slot) { /* one spill slot per function */
        l->chk_slot = ll_entry_alloca(l, ll_vec(m->t_i64), "chk.addrs");
        LLVMSetAlignment(l->chk_slot, 64);
    }
    LLVMBuildStore(l->b, addrs, l->chk_slot);
    LLVMValueRef lbase = LLVMConstInt(m->t_i64, 0, 0);
    uint64_t lspan = 0;
    if (space == PTX_SPACE_LOCAL)
        local_depot(l, &lbase, &lspan);
    uint32_t info = (size & 0xffffu) | ((uint32_t)space << 16) | (flags << 24);
    /* the vectorised half of the fast path: the active lanes' lowest and
     * highest address (global/generic), for the runtime's last-hit test */
    LLVMValueRef lo = LLVMConstInt(m->t_i64, 1, 0), hi = LLVMConstInt(m->t_i64, 0, 0);
    if (space == PTX_SPACE_GLOBAL || space == PTX_SPACE_GENERIC) {
        lo = ll_intrin1(l, "llvm.vector.reduce.umin",
                        LLVMBuildSelect(l->b, l->emask, addrs,
                                        ll_const_vec(m->t_i64, UINT64_MAX), ""));
        hi = ll_intrin1(l, "llvm.vector.reduce.umax",
                        LLVMBuildSelect(l->b, l->emask, addrs, ll_const_vec(m->t_i64, 0), ""));
    }
    LLVMTypeRef at[9] = {m->t_ptr, m->t_ptr, m->t_i32, m->t_i32, m->t_ptr,
                         m->t_i64, m->t_i64, m->t_i64, m->t_i64};
    LLVMValueRef args[9] = {l->w, l->chk_slot, ll_mask_to_i32(l, l->emask),
                            LLVMConstInt(m->t_i32, info, 0), where_string(l), lbase,
                            LLVMConstInt(m->t_i64, lspan, 0), lo, hi};
    LLVMValueRef r = LLVMBuildCall2(l->b, LLVMFunctionType(m->t_i32, at, 9, 0),
                                    ll_rt_fn(l, ZN_RT_MEMCHECK), args, 9, "chk");
    LLVMBasicBlockRef bad = LLVMAppendBasicBlockInContext(m->ctx, l->fn, "chk.bad");
    LLVMBasicBlockRef ok = LLVMAppendBasicBlockInContext(m->ctx, l->fn, "chk.ok");
    LLVMBuildCondBr(l->b, LLVMBuildICmp(l->b, LLVMIntNE, r, LLVMConstInt(m->t_i32, 0, 0), ""),
                    bad, ok);
    LLVMPositionBuilderAtEnd(l->b, bad);
    zn_return_status(l, LLVMConstInt(m->t_i32, ZN_KSTATUS_ILLEGAL_ADDRESS, 0));
    LLVMPositionBuilderAtEnd(l->b, ok);
}
