/* ptx_resolve.c: binds names kept as text during parsing (parameters,
 * function-local and module variables, functions) to their ptx_var /
 * ptx_func once the whole module has been read, so that functions and
 * variables may be used before their definition. Scoped names were made
 * unique while parsing, so one flat map per function suffices. */
#include <string.h>
#include "ptx_internal.h"

static void fail(ptx_parser *p, const ptx_ins *ins, const char *sym,
                 const char *msg)
{
    ptx_tok t = { .kind = PTX_TK_IDENT, .s = sym, .len = (uint32_t)strlen(sym),
                  .line = ins ? ins->line : 0, .col = ins ? ins->col : 0 };
    ptx_error_at(p, &t, "%s '%s'", msg, sym);
}

static bool lookup_module(ptx_parser *p, const char *sym, const ptx_var **v,
                          const ptx_func **f)
{
    int64_t x;
    if (!ptx_map_get(&p->msyms, sym, strlen(sym), &x))
        return false;
    if (x & 1)
        *f = &p->m->funcs[x >> 1];
    else
        *v = &p->m->vars[x >> 1];
    return true;
}

static void resolve_opnd(ptx_parser *p, const ptx_map *local, const ptx_ins *ins,
                         ptx_opnd *o)
{
    for (uint32_t i = 0; i < o->nelems; i++)
        resolve_opnd(p, local, ins, &o->elems[i]);
    if ((o->kind != PTX_OPND_SYM && o->kind != PTX_OPND_ADDR) || !o->sym)
        return;
    if (o->var || o->func)
        return;     /* a .callprototype, bound while parsing */
    int64_t x;
    if (ptx_map_get(local, o->sym, strlen(o->sym), &x)) {
        o->var = (const ptx_var *)(intptr_t)x;
        return;
    }
    if (!lookup_module(p, o->sym, &o->var, &o->func))
        fail(p, ins, o->sym, "undefined symbol");
    if (o->func && o->kind == PTX_OPND_ADDR)
        fail(p, ins, o->sym, "function used as an address");
}

static void add_vars(ptx_map *map, ptx_var *v, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        ptx_map_set(map, v[i].name, strlen(v[i].name), (int64_t)(intptr_t)&v[i]);
}

void ptx_resolve_module(ptx_parser *p)
{
    ptx_module *m = p->m;
    for (uint32_t fi = 0; fi < m->nfuncs; fi++) {
        ptx_func *f = &m->funcs[fi];
        if (f->is_decl)
            continue;
        /* p->scope is free between functions; reuse it as the flat map */
        ptx_map *local = &p->scope;
        add_vars(local, f->params, f->nparams);
        add_vars(local, f->rets, f->nrets);
        add_vars(local, f->locals, f->nlocals);
        for (uint32_t i = 0; i < f->nins; i++)
            for (uint32_t k = 0; k < f->ins[i].nopnds; k++)
                resolve_opnd(p, local, &f->ins[i], &f->ins[i].opnds[k]);
        ptx_map_free(local);
    }
    for (uint32_t vi = 0; vi < m->nvars; vi++) {
        const ptx_var *v = &m->vars[vi];
        for (uint32_t r = 0; r < v->nrelocs; r++) {
            const ptx_var *tv = NULL;
            const ptx_func *tf = NULL;
            if (!lookup_module(p, v->relocs[r].sym, &tv, &tf)) {
                ptx_tok t = { .kind = PTX_TK_IDENT, .s = v->relocs[r].sym,
                              .len = (uint32_t)strlen(v->relocs[r].sym),
                              .line = v->line, .col = 1 };
                ptx_error_at(p, &t, "undefined symbol '%s' in initializer",
                             v->relocs[r].sym);
            }
        }
    }
}
