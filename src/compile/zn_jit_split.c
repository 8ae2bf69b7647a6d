/* zn_jit_split.c: which functions a kernel needs, so that a kernel can be
 * compiled (and cached) as a unit of its own: the kernel, every .func it
 * can call or take the address of, transitively (the address of another
 * kernel, for a device-side launch, is its name: zn_lower_operand.c). Variables are not split:
 * compiled code reaches every module variable as an external symbol bound
 * at load time, so a unit sees the same addresses as a whole-module
 * compile. Shared memory is laid out per unit (the variables its functions
 * use; zn_shared_layout), as the unit's kernel facts report it. */
#include "zn_pipeline.h"

#include <stdlib.h>
#include <string.h>

bool zn_jit_splittable(const ptx_module *pm)
{
    /* {fn} in an initialiser: the variable holds one address, so every
     * kernel must call the same copy of fn; compile the module as one */
    for (uint32_t i = 0; i < pm->nvars; i++)
        for (uint32_t r = 0; r < pm->vars[i].nrelocs; r++)
            if (ptx_find_func(pm, pm->vars[i].relocs[r].sym))
                return false;
    return true;
}

/* The index of the defined function named like f (a prototype may come
 * before the body), or -1 (runtime externs such as vprintf). */
static int64_t defined_index(const ptx_module *pm, const ptx_func *f)
{
    if (f >= pm->funcs && f < pm->funcs + pm->nfuncs && !f->is_decl)
        return f - pm->funcs;
    for (uint32_t i = 0; i < pm->nfuncs; i++)
        if (!pm->funcs[i].is_decl && !strcmp(pm->funcs[i].name, f->name))
            return i;
    return -1;
}

static void visit_opnd(const ptx_module *pm, const ptx_opnd *o, bool *want,
                       uint32_t *stack, uint32_t *sp)
{
    /* a kernel's address is its name (zn_sym_addr): not code of the unit */
    if (o->kind == PTX_OPND_SYM && o->func && !o->func->is_entry) {
        int64_t i = defined_index(pm, o->func);
        if (i >= 0 && !want[i]) {
            want[i] = true;
            stack[(*sp)++] = (uint32_t)i;
        }
    }
    for (uint32_t e = 0; e < o->nelems; e++)
        visit_opnd(pm, &o->elems[e], want, stack, sp);
}

void zn_jit_closure(const ptx_module *pm, uint32_t entry, bool *want)
{
    memset(want, 0, pm->nfuncs * sizeof *want);
    uint32_t *stack = malloc((pm->nfuncs + 1) * sizeof *stack), sp = 0;
    if (!stack) { /* then the whole module */
        for (uint32_t i = 0; i < pm->nfuncs; i++)
            want[i] = true;
        return;
    }
    want[entry] = true;
    stack[sp++] = entry;
    while (sp) {
        const ptx_func *f = &pm->funcs[stack[--sp]];
        for (uint32_t i = 0; i < f->nins; i++)
            for (uint32_t o = 0; o < f->ins[i].nopnds; o++)
                visit_opnd(pm, &f->ins[i].opnds[o], want, stack, &sp);
    }
    free(stack);
}
