/* ptx_parse_body.c: function bodies.
 *
 *   body      -> "{" { statement } "}"
 *   statement -> "{" { statement } "}"          (scope: flattened)
 *              | .reg [.vN] .type reg { "," reg } ";"   reg -> name | name "<" N ">"
 *              | [.extern] (.local | .shared | .param | .const | .global) var-decl ";"
 *              | .loc ... | .pragma "..." ";"
 *              | label ":"
 *              | name ":" .callprototype [ "(" params ")" ] _ "(" params ")" [.noreturn] ";"
 *              | name ":" .branchtargets label { "," label } ";"
 *              | instruction                    (ptx_parse_ins.c)
 * Scopes: names are bound on a stack (p->binds + p->scope map); a name
 * declared inside { } gets the suffix "$s<N>" (N numbers the scopes of the
 * function) so the flat function has unique, valid PTX names. */
#include <stdio.h>
#include <string.h>
#include "ptx_internal.h"

enum { MAX_REGS = 1 << 22, MAX_DEPTH = 256 };

const ptx_bind *ptx_lookup_bind(ptx_parser *p, const char *s, size_t n)
{
    int64_t b;
    if (ptx_map_get(&p->scope, s, n, &b) && b >= 0)
        return &((ptx_bind *)p->binds.data)[b];
    return NULL;
}

const char *ptx_declare(ptx_parser *p, const ptx_tok *at, const char *name,
                        size_t len, ptx_bind_kind kind, int32_t idx, void *ptr)
{
    uint32_t scope = p->depth ? p->scope_id[p->depth - 1] : 0;
    int64_t old;
    bool found = ptx_map_get(&p->scope, name, len, &old) && old >= 0;
    if (found && ((ptx_bind *)p->binds.data)[old].scope == scope)
        ptx_error_at(p, at, "'%.*s' already declared in this scope",
                     (int)(len > 64 ? 64 : len), name);
    const char *key = ptx_arena_strndup(p->a, name, len);
    const char *uniq = key;
    if (scope) {
        char *u = ptx_arena_alloc(p->a, len + 16);
        snprintf(u, len + 16, "%s$s%u", key, scope);
        uniq = u;
    }
    ptx_bind *b = ptx_vec_push(&p->binds);
    b->name = key;
    b->uniq = uniq;
    b->kind = kind;
    b->idx = idx;
    b->scope = scope;
    b->prev = found ? old : -1;
    b->ptr = ptr;
    ptx_map_set(&p->scope, key, len, p->binds.n - 1);
    return uniq;
}

static void push_scope(ptx_parser *p, const ptx_tok *at)
{
    if (p->depth == MAX_DEPTH)
        ptx_error_at(p, at, "scopes nested too deeply");
    p->scope_id[p->depth] = ++p->nscopes;
    p->scope_mark[p->depth] = p->binds.n;
    p->depth++;
}

static void pop_scope(ptx_parser *p)
{
    p->depth--;
    ptx_bind *b = p->binds.data;
    for (uint32_t i = p->binds.n; i-- > p->scope_mark[p->depth];)
        ptx_map_set(&p->scope, b[i].name, strlen(b[i].name), b[i].prev);
    p->binds.n = p->scope_mark[p->depth];
}

static void add_reg(ptx_parser *p, const ptx_tok *at, const char *name, size_t len,
                    ptx_type type, uint8_t vec)
{
    if (p->regs.n >= MAX_REGS)
        ptx_error_at(p, at, "too many registers");
    uint32_t id = p->regs.n;
    const char *uniq = ptx_declare(p, at, name, len, PTX_BIND_REG, (int32_t)id, NULL);
    ptx_reg *r = ptx_vec_push(&p->regs);
    r->name = uniq;
    r->type = type;
    r->vec = vec;
}

/* .reg [.vN] .type name | name<N> {, ...} ; */
static void parse_reg_decl(ptx_parser *p)
{
    ptx_next(p);
    uint8_t vec = 1;
    ptx_type type = PTX_T_NONE;
    while (ptx_peek(p, 0)->kind == PTX_TK_DIR) {
        const ptx_tok *t = ptx_peek(p, 0);
        if (ptx_tok_is(t, ".v2") || ptx_tok_is(t, ".v4") || ptx_tok_is(t, ".v8")) {
            vec = (uint8_t)(t->s[2] - '0');
        } else if (ptx_tok_is(t, ".align")) {
            ptx_next(p);
            ptx_parse_u32(p, "alignment");
            continue;
        } else {
            ptx_type ty = ptx_lookup_type(t->s + 1, t->len - 1);
            if (!ty || type)
                ptx_error_at(p, t, "expected a register type");
            type = ty;
        }
        ptx_next(p);
    }
    if (!type)
        ptx_error_at(p, ptx_peek(p, 0), "expected a register type");
    do {
        ptx_tok nm = ptx_expect_ident(p, "a register name");
        if (ptx_accept_punct(p, '<')) {
            ptx_tok at = *ptx_peek(p, 0);
            uint32_t n = ptx_parse_u32(p, "register count");
            ptx_expect_punct(p, '>');
            if (n > MAX_REGS - p->regs.n)
                ptx_error_at(p, &at, "too many registers");
            for (uint32_t i = 0; i < n; i++) {
                char *name = ptx_arena_alloc(p->a, nm.len + 12);
                int len = snprintf(name, nm.len + 12, "%.*s%u", (int)nm.len, nm.s, i);
                add_reg(p, &nm, name, (size_t)len, type, vec);
            }
        } else {
            add_reg(p, &nm, nm.s, nm.len, type, vec);
        }
    } while (ptx_accept_punct(p, ','));
    ptx_expect_punct(p, ';');
}

/* [.extern] .local/.shared/.param/.const/.global var-decl ; */
static bool try_var_decl(ptx_parser *p)
{
    const ptx_tok *t = ptx_peek(p, 0);
    ptx_linkage link = PTX_LINK_NONE;
    uint32_t k = 0;
    if (ptx_tok_is(t, ".extern")) {
        link = PTX_LINK_EXTERN;
        t = ptx_peek(p, ++k);
    }
    ptx_space sp;
    if (ptx_tok_is(t, ".local"))
        sp = PTX_SPACE_LOCAL;
    else if (ptx_tok_is(t, ".shared"))
        sp = PTX_SPACE_SHARED;
    else if (ptx_tok_is(t, ".param"))
        sp = PTX_SPACE_PARAM;
    else if (ptx_tok_is(t, ".const"))
        sp = PTX_SPACE_CONST;
    else if (ptx_tok_is(t, ".global"))
        sp = PTX_SPACE_GLOBAL;
    else
        return false;
    for (uint32_t i = 0; i <= k; i++)
        ptx_next(p);
    ptx_parse_var_decl(p, (ptx_decl_ctx){ sp, link, true }, &p->locals, false, false);
    ptx_expect_punct(p, ';');
    return true;
}

int32_t ptx_label_ref(ptx_parser *p, const ptx_tok *t)
{
    int64_t li;
    if (ptx_map_get(&p->labmap, t->s, t->len, &li))
        return (int32_t)li;
    ptx_label *l = ptx_vec_push(&p->labels);
    l->name = ptx_arena_strndup(p->a, t->s, t->len);
    l->ins = UINT32_MAX;    /* not yet defined */
    *(ptx_tok *)ptx_vec_push(&p->labpos) = *t;
    ptx_map_set(&p->labmap, l->name, t->len, p->labels.n - 1);
    return (int32_t)(p->labels.n - 1);
}

static void define_label(ptx_parser *p, const ptx_tok *t)
{
    int32_t li = ptx_label_ref(p, t);
    ptx_label *l = &((ptx_label *)p->labels.data)[li];
    if (l->ins != UINT32_MAX)
        ptx_error_at(p, t, "label '%.*s' defined twice", (int)t->len, t->s);
    l->ins = p->ins.n;
}

/* name: .callprototype [(rets)] _ (params) [.noreturn] ; */
static void parse_callprototype(ptx_parser *p, const ptx_tok *nm)
{
    ptx_next(p);
    ptx_func *f = ptx_arena_alloc(p->a, sizeof *f);
    f->is_decl = true;
    f->line = nm->line;
    p->scratch.esz = sizeof(ptx_var);
    p->scratch.n = 0;
    if (ptx_peek(p, 0)->kind == PTX_TK_PUNCT && ptx_peek(p, 0)->c == '(') {
        ptx_parse_param_list(p, &p->scratch);
        f->nrets = p->scratch.n;
        f->rets = ptx_vec_finish(&p->scratch, p->a);
    }
    ptx_tok u = ptx_expect_ident(p, "'_'");
    if (!ptx_tok_is(&u, "_"))
        ptx_error_at(p, &u, "expected '_' in .callprototype");
    ptx_parse_param_list(p, &p->scratch);
    f->nparams = p->scratch.n;
    f->params = ptx_vec_finish(&p->scratch, p->a);
    if (ptx_tok_is(ptx_peek(p, 0), ".noreturn")) {
        ptx_next(p);
        f->noreturn = true;
    }
    ptx_expect_punct(p, ';');
    f->name = ptx_declare(p, nm, nm->s, nm->len, PTX_BIND_PROTO, 0, f);
}

/* name: .branchtargets L1, L2, ... ; -> a LIST operand of labels */
static void parse_branchtargets(ptx_parser *p, const ptx_tok *nm)
{
    ptx_next(p);
    p->scratch.esz = sizeof(ptx_opnd);
    p->scratch.n = 0;
    do {
        ptx_tok t = ptx_expect_ident(p, "a label");
        ptx_opnd *o = ptx_vec_push(&p->scratch);
        o->kind = PTX_OPND_LABEL;
        o->reg = o->reg2 = -1;
        o->label = ptx_label_ref(p, &t);
    } while (ptx_accept_punct(p, ','));
    ptx_expect_punct(p, ';');
    ptx_opnd *list = ptx_arena_alloc(p->a, sizeof *list);
    list->kind = PTX_OPND_LIST;
    list->reg = list->reg2 = list->label = -1;
    list->nelems = p->scratch.n;
    list->elems = ptx_vec_finish(&p->scratch, p->a);
    ptx_declare(p, nm, nm->s, nm->len, PTX_BIND_BTARGETS, 0, list);
}

static void finish_function(ptx_parser *p)
{
    ptx_func *f = p->fn;
    ptx_label *l = p->labels.data;
    for (uint32_t i = 0; i < p->labels.n; i++)
        if (l[i].ins == UINT32_MAX)
            ptx_error_at(p, &((ptx_tok *)p->labpos.data)[i],
                         "undefined label '%s'", l[i].name);
    f->nregs = p->regs.n;
    f->regs = ptx_vec_finish(&p->regs, p->a);
    f->nlocals = p->locals.n;
    f->locals = ptx_vec_finish(&p->locals, p->a);
    f->nins = p->ins.n;
    f->ins = ptx_vec_finish(&p->ins, p->a);
    f->nlabels = p->labels.n;
    f->labels = ptx_vec_finish(&p->labels, p->a);
    ptx_vec_free(&p->labpos);
    ptx_vec_free(&p->binds);
    ptx_map_free(&p->scope);
    ptx_map_free(&p->labmap);
    p->nscopes = 0;
}

/* Parameters declared .reg (old style, hand-written PTX) are registers in
 * the body: they become the function's first registers, returns first,
 * then parameters, in order of declaration. */
static void bind_reg_params(ptx_parser *p, const ptx_tok *at, const ptx_var *v, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        if (v[i].space == PTX_SPACE_REG)
            add_reg(p, at, v[i].name, strlen(v[i].name), v[i].type, v[i].vec);
}

void ptx_parse_body(ptx_parser *p)
{
    ptx_tok open = ptx_next(p);     /* "{" */
    p->depth = 0;
    p->nscopes = 0;
    p->loc_file = p->loc_line = 0;
    uint32_t open_line[MAX_DEPTH];
    bind_reg_params(p, &open, p->fn->rets, p->fn->nrets);
    bind_reg_params(p, &open, p->fn->params, p->fn->nparams);
    for (;;) {
        const ptx_tok *t = ptx_peek(p, 0);
        if (t->kind == PTX_TK_EOF)
            ptx_error_at(p, t, "expected '}' (to close '{' at line %u)",
                         p->depth ? open_line[p->depth - 1] : open.line);
        if (t->kind == PTX_TK_PUNCT && t->c == '}') {
            ptx_next(p);
            if (!p->depth)
                break;
            pop_scope(p);
        } else if (t->kind == PTX_TK_PUNCT && t->c == '{') {
            ptx_tok b = ptx_next(p);
            push_scope(p, &b);
            open_line[p->depth - 1] = b.line;
        } else if (t->kind == PTX_TK_DIR) {
            if (ptx_tok_is(t, ".reg"))
                parse_reg_decl(p);
            else if (ptx_tok_is(t, ".loc"))
                ptx_parse_loc(p);
            else if (ptx_tok_is(t, ".pragma"))
                ptx_skip_pragma(p);
            else if (!try_var_decl(p))
                ptx_error_at(p, t, "unexpected directive in a function body");
        } else if (t->kind == PTX_TK_IDENT && ptx_peek(p, 1)->kind == PTX_TK_PUNCT &&
                   ptx_peek(p, 1)->c == ':' && ptx_peek(p, 1)->len == 1) {
            ptx_tok nm = ptx_next(p);
            ptx_next(p);
            if (ptx_tok_is(ptx_peek(p, 0), ".callprototype"))
                parse_callprototype(p, &nm);
            else if (ptx_tok_is(ptx_peek(p, 0), ".branchtargets"))
                parse_branchtargets(p, &nm);
            else
                define_label(p, &nm);
        } else {
            ptx_parse_instruction(p);
        }
    }
    finish_function(p);
}
