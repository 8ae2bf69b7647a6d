/* zn_global_ref.c: references to module variables through symbols that the
 * loader resolves (see zn_global_ref.h). */
#include "zn_global_ref.h"

#include <stdio.h>
#include <string.h>

void zn_global_symbol(const char *name, char *out, size_t n)
{
    snprintf(out, n, "zg_%s", name);
}

LLVMValueRef zn_global_ref(zn_lfn *l, const ptx_var *v)
{
    zn_lmod *m = l->m;
    const zn_compile_opts *o = m->opts;
    /* a caller that gives addresses must give this one (offline compiles
     * give none and resolve nothing) */
    if (o && o->globals) {
        uint32_t i = 0;
        while (i < o->nglobals && strcmp(o->globals[i].name, v->name))
            i++;
        if (i == o->nglobals) {
            zn_lerr(l, "no address given for variable '%s'", v->name);
            return ll_const_vec(m->t_i64, 0);
        }
    }
    char sym[512];
    zn_global_symbol(v->name, sym, sizeof sym);
    LLVMValueRef g = LLVMGetNamedGlobal(m->mod, sym);
    if (!g) {
        /* an opaque byte: only its address is ever taken */
        g = LLVMAddGlobal(m->mod, m->t_i8, sym);
        LLVMSetLinkage(g, LLVMExternalLinkage);
    }
    return ll_splat(l, LLVMBuildPtrToInt(l->b, g, m->t_i64, ""));
}
