/* ptx_parse.c: ptx_parse(), the front end's entry point.
 *
 * What works (tests/ptx/test_ptx_parse.c; every sample also goes through
 * print -> ptxas): all of `nvcc -ptx` output for sm_75..sm_90a that the
 * samples in tests/ptx cover: integer/float/f64/f16/bf16/fp8 arithmetic and
 * conversions, atomics (scoped, cas, f16x2/bf16x2), warp ops (shfl with
 * %r|%p, vote, match, redux, elect), barriers, fences, call sequences in
 * { } scopes with .param declarations, .callprototype calls through
 * pointers, brx.idx with .branchtargets, printf/assert, demoted .shared
 * variables, __local_depot, initialised variables (nested lists, floats,
 * {sym, generic(sym)+N}), extern unsized .shared, .ptr param attributes,
 * wmma/mma/ldmatrix, cp.async, texture/surface instructions, -lineinfo
 * (.file/.loc) and -G (.section skipped) output, thrust/CUB kernels.
 * Malformed input gives "name:line:col: message near 'tok'" and never
 * crashes or leaks (a longjmp back here frees the arena and the parser's
 * vectors; the tests truncate and mutate real files, also under ASan).
 *
 * Files: ptx_lex.c (tokens), ptx_parse_tok.c (token stream, errors,
 * constant expressions), ptx_parse_module.c (module level, function
 * headers), ptx_parse_decl.c (variables, parameters, initializers),
 * ptx_parse_body.c (bodies, scopes, registers, labels), ptx_parse_ins.c
 * (instructions and operands), ptx_resolve.c (names -> ptx_var/ptx_func
 * once the module is read, so that use before definition works), then
 * ptx_verify.c.
 *
 * Grammar of the module level:
 *   module    -> { directive }
 *   directive -> .version N.M | .target id {, id} | .address_size N
 *              | .file N "name" [, N, N] | .loc ... (to end of line)
 *              | .pragma "..." ; | .section .name { ... }  (skipped)
 *              | [linkage] var-decl ;         linkage: .visible .extern .weak .common
 *              | [linkage] function
 *   function  -> (.entry | .func) [ "(" params ")" ] name [ "(" params ")" ]
 *                { .noreturn | .maxntid N[,N[,N]] | .reqntid ... | .minnctapersm N
 *                | .maxnreg N | .maxclusterrank N | .reqnctapercluster ...
 *                | .explicitcluster | .pragma "..." ; }
 *                ( ";" | body )
 * .version and .target are required (ptxas requires them too).
 *
 * Not handled: .alias, legacy .texref/.samplerref/.surfref variables, the
 * sm_90 TMA/wgmma/mbarrier modifier families beyond those in ptx_mods.def
 * (an unknown modifier is an error with its position). */
#include <stdio.h>
#include <stdlib.h>
#include "ptx_internal.h"

/* ---- entry point ------------------------------------------------------------ */

static void parser_cleanup(ptx_parser *p)
{
    ptx_vec_free(&p->vars);
    ptx_vec_free(&p->funcs);
    ptx_vec_free(&p->items);
    ptx_vec_free(&p->scratch);
    ptx_vec_free(&p->labpos);
    ptx_vec_free(&p->regs);
    ptx_vec_free(&p->locals);
    ptx_vec_free(&p->ins);
    ptx_vec_free(&p->labels);
    ptx_vec_free(&p->binds);
    ptx_map_free(&p->msyms);
    ptx_map_free(&p->scope);
    ptx_map_free(&p->labmap);
}

ptx_module *ptx_parse(const char *text, size_t len, const char *name,
                      char *err, size_t errlen)
{
    if (err && errlen)
        err[0] = 0;
    /* trailing NULs (fatbin padding) are not part of the text */
    while (len && text[len - 1] == 0)
        len--;
    ptx_parser *p = calloc(1, sizeof *p);
    if (!p) {
        if (err && errlen)
            snprintf(err, errlen, "%s: out of memory", name ? name : "<ptx>");
        return NULL;
    }
    ptx_lex_init(&p->lx, text, len);
    p->name = name ? name : "<ptx>";
    p->err = err;
    p->errlen = errlen;
    p->a = ptx_arena_new();
    p->m = ptx_arena_alloc(p->a, sizeof *p->m);
    p->m->arena = p->a;
    p->m->address_size = 64;
    p->vars.esz = p->locals.esz = sizeof(ptx_var);
    p->funcs.esz = sizeof(ptx_func);
    p->regs.esz = sizeof(ptx_reg);
    p->ins.esz = sizeof(ptx_ins);
    p->labels.esz = sizeof(ptx_label);
    p->binds.esz = sizeof(ptx_bind);
    p->labpos.esz = sizeof(ptx_tok);
    if (setjmp(p->jb)) {
        parser_cleanup(p);
        ptx_arena_free(p->a);
        free(p);
        return NULL;
    }
    ptx_parse_module(p);
    ptx_module *m = p->m;
    ptx_tok start = { .kind = PTX_TK_IDENT, .s = "", .line = 1, .col = 1 };
    if (!m->version_major)
        ptx_error_at(p, &start, "missing .version directive");
    if (!m->target[0])
        ptx_error_at(p, &start, "missing .target directive");
    m->nvars = p->vars.n;
    m->vars = ptx_vec_finish(&p->vars, p->a);
    m->nfuncs = p->funcs.n;
    m->funcs = ptx_vec_finish(&p->funcs, p->a);
    ptx_resolve_module(p);
    parser_cleanup(p);
    const char *nm = p->name;
    free(p);
    if (ptx_verify_named(m, nm, err, errlen)) {
        ptx_module_free(m);
        return NULL;
    }
    return m;
}
