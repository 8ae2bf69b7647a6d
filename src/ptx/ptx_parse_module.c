/* ptx_parse_module.c: the module level of the grammar (see ptx_parse.c)
 * and function headers; bodies are in ptx_parse_body.c. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ptx_internal.h"

/* ---- module-level directives ---------------------------------------------- */

static void parse_version(ptx_parser *p)
{
    ptx_tok t = ptx_next(p);
    if (t.kind != PTX_TK_DEC && t.kind != PTX_TK_INT)
        ptx_error_at(p, &t, "expected a version number");
    unsigned maj = 0, min = 0;
    const char *s = t.s, *e = t.s + t.len;
    for (; s < e && *s != '.'; s++)
        maj = maj * 10 + (unsigned)(*s - '0');
    for (s++; s < e; s++)
        min = min * 10 + (unsigned)(*s - '0');
    if (maj > 99 || min > 99)
        ptx_error_at(p, &t, "bad version number");
    p->m->version_major = maj;
    p->m->version_minor = min;
}

static void parse_target(ptx_parser *p)
{
    do {
        ptx_tok t = ptx_expect_ident(p, "a target name");
        if (t.len > 3 && !memcmp(t.s, "sm_", 3)) {
            if (t.len >= sizeof p->m->target)
                ptx_error_at(p, &t, "target name too long");
            memcpy(p->m->target, t.s, t.len);
            p->m->target[t.len] = 0;
            p->m->sm = (uint32_t)strtoul(p->m->target + 3, NULL, 10);
        }
        /* texmode_*, debug, map_f64_to_f32: accepted, no meaning here */
    } while (ptx_accept_punct(p, ','));
}

/* .file N "name" [, timestamp, size]  (no semicolon) */
static void parse_file(ptx_parser *p)
{
    ptx_tok nt = *ptx_peek(p, 0);
    uint32_t n = ptx_parse_u32(p, "file number");
    if (n > 65535)
        ptx_error_at(p, &nt, "file number too large");
    ptx_tok s = ptx_next(p);
    if (s.kind != PTX_TK_STRING)
        ptx_error_at(p, &s, "expected a file name string");
    if (ptx_accept_punct(p, ',')) {
        ptx_parse_int_expr(p);
        ptx_expect_punct(p, ',');
        ptx_parse_int_expr(p);
    }
    ptx_module *m = p->m;
    if (n >= m->nfiles) {
        char **f = ptx_arena_alloc(p->a, (n + 1) * sizeof *f);
        if (m->nfiles)
            memcpy(f, m->files, m->nfiles * sizeof *f);
        m->files = f;
        m->nfiles = n + 1;
    }
    m->files[n] = ptx_arena_strndup(p->a, s.s + 1, s.len - 2);
}

/* Skips the rest of the current line (.loc has no terminator). */
static void skip_line(ptx_parser *p, uint32_t line)
{
    while (ptx_peek(p, 0)->kind != PTX_TK_EOF && ptx_peek(p, 0)->line == line)
        ptx_next(p);
}

/* .loc file line col [, function_name lbl [+off], inlined_at f l c] */
void ptx_parse_loc(ptx_parser *p)
{
    ptx_tok d = ptx_next(p);
    const ptx_tok *t = ptx_peek(p, 0);
    if (t->kind == PTX_TK_INT && t->line == d.line) {
        p->loc_file = (uint32_t)ptx_next(p).ival;
        t = ptx_peek(p, 0);
        if (t->kind == PTX_TK_INT && t->line == d.line)
            p->loc_line = (uint32_t)ptx_next(p).ival;
    }
    skip_line(p, d.line);
}

static void skip_to_semicolon(ptx_parser *p)
{
    while (!ptx_accept_punct(p, ';')) {
        if (ptx_peek(p, 0)->kind == PTX_TK_EOF)
            ptx_error_at(p, ptx_peek(p, 0), "expected ';'");
        ptx_next(p);
    }
}

void ptx_skip_pragma(ptx_parser *p)
{
    ptx_next(p);
    skip_to_semicolon(p);
}

/* .section .debug_xxx { ... }: DWARF from -G; skipped, balanced braces. */
static void skip_section(ptx_parser *p)
{
    ptx_next(p);
    ptx_tok nm = ptx_next(p);
    if (nm.kind != PTX_TK_DIR && nm.kind != PTX_TK_IDENT)
        ptx_error_at(p, &nm, "expected a section name");
    ptx_tok open = *ptx_peek(p, 0);
    ptx_expect_punct(p, '{');
    for (unsigned depth = 1; depth;) {
        ptx_tok t = ptx_next(p);
        if (t.kind == PTX_TK_EOF)
            ptx_error_at(p, &t, "expected '}' (to close '{' at line %u)", open.line);
        if (t.kind == PTX_TK_PUNCT && t.c == '{')
            depth++;
        if (t.kind == PTX_TK_PUNCT && t.c == '}')
            depth--;
    }
}

/* ---- functions ------------------------------------------------------------- */

static uint32_t parse_dims3(ptx_parser *p, uint32_t out[3])
{
    uint32_t n = 0;
    do {
        if (n == 3)
            ptx_error_at(p, ptx_peek(p, 0), "at most 3 dimensions");
        out[n++] = ptx_parse_u32(p, "dimension");
    } while (ptx_accept_punct(p, ','));
    for (uint32_t i = n; i < 3; i++)
        out[i] = 1;
    return n;
}

static void parse_perf_directives(ptx_parser *p, ptx_func *f)
{
    for (;;) {
        const ptx_tok *t = ptx_peek(p, 0);
        if (t->kind != PTX_TK_DIR)
            return;
        if (ptx_tok_is(t, ".noreturn")) {
            ptx_next(p);
            f->noreturn = true;
        } else if (ptx_tok_is(t, ".maxntid")) {
            ptx_next(p);
            parse_dims3(p, f->maxntid);
        } else if (ptx_tok_is(t, ".reqntid")) {
            ptx_next(p);
            parse_dims3(p, f->reqntid);
        } else if (ptx_tok_is(t, ".minnctapersm")) {
            ptx_next(p);
            f->minnctapersm = ptx_parse_u32(p, ".minnctapersm");
        } else if (ptx_tok_is(t, ".maxnreg")) {
            ptx_next(p);
            f->maxnreg = ptx_parse_u32(p, ".maxnreg");
        } else if (ptx_tok_is(t, ".maxclusterrank")) {
            ptx_next(p);
            f->maxclusterrank = ptx_parse_u32(p, ".maxclusterrank");
        } else if (ptx_tok_is(t, ".reqnctapercluster")) {
            ptx_next(p);
            parse_dims3(p, f->reqnctapercluster);
        } else if (ptx_tok_is(t, ".explicitcluster")) {
            ptx_next(p);
            f->explicitcluster = true;
        } else if (ptx_tok_is(t, ".pragma")) {
            ptx_skip_pragma(p);
        } else {
            return;
        }
    }
}

/* Binds a module-level name; a definition replaces a declaration. */
static void bind_module_sym(ptx_parser *p, const ptx_tok *at, const char *name,
                            uint32_t idx, bool is_func, bool is_def)
{
    int64_t old;
    size_t n = strlen(name);
    if (ptx_map_get(&p->msyms, name, n, &old)) {
        bool old_func = old & 1;
        if (old_func != is_func)
            ptx_error_at(p, at, "'%s' redeclared as a different kind of symbol", name);
        bool old_def = is_func
            ? !((ptx_func *)p->funcs.data)[old >> 1].is_decl
            : ((ptx_var *)p->vars.data)[old >> 1].linkage != PTX_LINK_EXTERN;
        if (old_def && is_def)
            ptx_error_at(p, at, "redefinition of '%s'", name);
        if (!is_def)
            return;
    }
    ptx_map_set(&p->msyms, name, n, ((int64_t)idx << 1) | is_func);
}

static void parse_function(ptx_parser *p, ptx_linkage linkage)
{
    ptx_tok kw = ptx_next(p);
    ptx_func *f = &p->curfn;
    memset(f, 0, sizeof *f);
    f->is_entry = ptx_tok_is(&kw, ".entry");
    f->linkage = linkage;
    f->line = kw.line;
    /* .func .attribute(.unified(...)): skipped */
    if (ptx_tok_is(ptx_peek(p, 0), ".attribute")) {
        ptx_next(p);
        ptx_expect_punct(p, '(');
        for (unsigned d = 1; d;) {
            ptx_tok t = ptx_next(p);
            if (t.kind == PTX_TK_EOF)
                ptx_error_at(p, &t, "expected ')'");
            d += (t.kind == PTX_TK_PUNCT && t.c == '(');
            d -= (t.kind == PTX_TK_PUNCT && t.c == ')');
        }
    }
    if (ptx_peek(p, 0)->kind == PTX_TK_PUNCT && ptx_peek(p, 0)->c == '(') {
        if (f->is_entry)
            ptx_error_at(p, ptx_peek(p, 0), "an .entry has no return parameters");
        ptx_parse_param_list(p, &p->locals);
        f->nrets = p->locals.n;
        f->rets = ptx_vec_finish(&p->locals, p->a);
    }
    ptx_tok nm = ptx_expect_ident(p, "a function name");
    f->name = ptx_arena_strndup(p->a, nm.s, nm.len);
    if (ptx_peek(p, 0)->kind == PTX_TK_PUNCT && ptx_peek(p, 0)->c == '(') {
        ptx_parse_param_list(p, &p->locals);
        f->nparams = p->locals.n;
        f->params = ptx_vec_finish(&p->locals, p->a);
    }
    parse_perf_directives(p, f);
    f->is_decl = !(ptx_peek(p, 0)->kind == PTX_TK_PUNCT && ptx_peek(p, 0)->c == '{');
    bind_module_sym(p, &nm, f->name, p->funcs.n, true, !f->is_decl);
    /* reserve the slot now so that recursive calls and the symbol map see
     * the function; its contents are written when the body is done */
    ptx_vec_push(&p->funcs);
    uint32_t slot = p->funcs.n - 1;
    if (f->is_decl) {
        ptx_expect_punct(p, ';');
    } else {
        p->fn = f;
        ptx_parse_body(p);
        p->fn = NULL;
    }
    ((ptx_func *)p->funcs.data)[slot] = *f;
}

/* [linkage] (var-decl | function) */
static void parse_toplevel_decl(ptx_parser *p)
{
    ptx_linkage link = PTX_LINK_NONE;
    const ptx_tok *t = ptx_peek(p, 0);
    ptx_tok start = *t;     /* t points into the lookahead ring */
    if (ptx_tok_is(t, ".visible"))
        link = PTX_LINK_VISIBLE;
    else if (ptx_tok_is(t, ".extern"))
        link = PTX_LINK_EXTERN;
    else if (ptx_tok_is(t, ".weak"))
        link = PTX_LINK_WEAK;
    else if (ptx_tok_is(t, ".common"))
        link = PTX_LINK_COMMON;
    if (link)
        t = (ptx_next(p), ptx_peek(p, 0));
    if (ptx_tok_is(t, ".entry") || ptx_tok_is(t, ".func")) {
        parse_function(p, link);
        return;
    }
    ptx_space sp;
    if (ptx_tok_is(t, ".global"))
        sp = PTX_SPACE_GLOBAL;
    else if (ptx_tok_is(t, ".const"))
        sp = PTX_SPACE_CONST;
    else if (ptx_tok_is(t, ".shared"))
        sp = PTX_SPACE_SHARED;
    else if (ptx_tok_is(t, ".local"))
        sp = PTX_SPACE_LOCAL;
    else
        ptx_error_at(p, t, "expected a declaration");
    ptx_next(p);
    uint32_t first = p->vars.n;
    ptx_parse_var_decl(p, (ptx_decl_ctx){ sp, link, false }, &p->vars, true, false);
    ptx_expect_punct(p, ';');
    for (uint32_t i = first; i < p->vars.n; i++) {
        ptx_var *v = &((ptx_var *)p->vars.data)[i];
        bind_module_sym(p, &start, v->name, i, false, v->linkage != PTX_LINK_EXTERN);
    }
}

void ptx_parse_module(ptx_parser *p)
{
    for (;;) {
        const ptx_tok *t = ptx_peek(p, 0);
        if (t->kind == PTX_TK_EOF)
            return;
        if (t->kind != PTX_TK_DIR)
            ptx_error_at(p, t, "expected a directive");
        if (ptx_tok_is(t, ".version")) {
            ptx_next(p);
            parse_version(p);
        } else if (ptx_tok_is(t, ".target")) {
            ptx_next(p);
            parse_target(p);
        } else if (ptx_tok_is(t, ".address_size")) {
            ptx_next(p);
            ptx_tok at = *ptx_peek(p, 0);
            p->m->address_size = ptx_parse_u32(p, ".address_size");
            if (p->m->address_size != 32 && p->m->address_size != 64)
                ptx_error_at(p, &at, ".address_size must be 32 or 64");
        } else if (ptx_tok_is(t, ".file")) {
            ptx_next(p);
            parse_file(p);
        } else if (ptx_tok_is(t, ".loc")) {
            ptx_parse_loc(p);
        } else if (ptx_tok_is(t, ".pragma")) {
            ptx_skip_pragma(p);
        } else if (ptx_tok_is(t, ".section")) {
            skip_section(p);
        } else {
            parse_toplevel_decl(p);
        }
    }
}

