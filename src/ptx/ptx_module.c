/* ptx_module.c: freeing a module and looking names up in it. */
#include <string.h>
#include "ptx_internal.h"

void ptx_module_free(ptx_module *m)
{
    if (m)
        ptx_arena_free(m->arena);   /* the module itself lives in it */
}

/* The definition when there is one, else the (first) declaration. */
const ptx_func *ptx_find_func(const ptx_module *m, const char *name)
{
    const ptx_func *decl = NULL;
    for (uint32_t i = 0; i < m->nfuncs; i++) {
        if (strcmp(m->funcs[i].name, name))
            continue;
        if (!m->funcs[i].is_decl)
            return &m->funcs[i];
        if (!decl)
            decl = &m->funcs[i];
    }
    return decl;
}

const ptx_var *ptx_find_var(const ptx_module *m, const char *name)
{
    const ptx_var *ext = NULL;
    for (uint32_t i = 0; i < m->nvars; i++) {
        if (strcmp(m->vars[i].name, name))
            continue;
        if (m->vars[i].linkage != PTX_LINK_EXTERN)
            return &m->vars[i];
        if (!ext)
            ext = &m->vars[i];
    }
    return ext;
}
