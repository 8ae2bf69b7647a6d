/* zn_lower_regparam.c: .reg parameters and results of a .func (the old
 * ABI: `.func (.reg .u32 r) f(.reg .u32 a)`). The front end makes them the
 * body's first registers (.reg results, then .reg parameters, ids 0..).
 * The caller passes every argument as a pointer to 32 lane-major values
 * (zn_lower_call.c), so the callee copies the .reg parameters into their
 * registers on entry and its .reg results out when it returns. Such a
 * function runs without the uniform analysis' results (rare, old code). */
#include "zn_lower.h"

/* calls f(l, reg id, index in params/rets, is_ret) for every .reg one */
static void each_reg_param(zn_lfn *l, void (*f)(zn_lfn *, uint32_t, uint32_t, bool))
{
    const ptx_func *fn = l->f;
    uint32_t id = 0;
    if (fn->is_entry)
        return;
    for (uint32_t i = 0; i < fn->nrets; i++)
        if (fn->rets[i].space == PTX_SPACE_REG)
            f(l, id++, i, true);
    for (uint32_t i = 0; i < fn->nparams; i++)
        if (fn->params[i].space == PTX_SPACE_REG)
            f(l, id++, i, false);
}

/* the uniform analysis saw no definition of these registers and took them
 * (and what is computed from them) as uniform: drop its results */
static void not_uniform(zn_lfn *l, uint32_t reg, uint32_t i, bool ret)
{
    for (uint32_t r = 0; r < l->f->nregs; r++)
        l->reg_uni[r] = false;
    for (uint32_t k = 0; k < l->nblocks; k++)
        l->blk_conv[k] = l->blk_full[k] = false;
}

static void copy_in(zn_lfn *l, uint32_t reg, uint32_t i, bool ret)
{
    if (ret || reg >= l->f->nregs)
        return;
    LLVMValueRef v = ll_load_slot(l, zn_vec_type(l->m, l->f->params[i].type),
                                  l->param_arg[i]);
    LLVMBuildStore(l->b, ll_coerce(l, v, l->reg_ty[reg], false), l->regs[reg]);
}

static void copy_out(zn_lfn *l, uint32_t reg, uint32_t i, bool ret)
{
    if (!ret || reg >= l->f->nregs)
        return;
    LLVMValueRef v = LLVMBuildLoad2(l->b, l->reg_ty[reg], l->regs[reg], "");
    ll_store_slot(l, ll_coerce(l, v, zn_vec_type(l->m, l->f->rets[i].type), false),
                  l->ret_arg[i]);
}

void zn_reg_params_divergent(zn_lfn *l)
{
    each_reg_param(l, not_uniform);
}

void zn_reg_params_in(zn_lfn *l)
{
    each_reg_param(l, copy_in);
}

void zn_reg_params_out(zn_lfn *l)
{
    each_reg_param(l, copy_out);
}
