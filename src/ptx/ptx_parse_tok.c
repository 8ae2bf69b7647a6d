/* ptx_parse_tok.c: the parser's token stream (a small lookahead ring over
 * the lexer), its error exit (name:line:col: message near 'tok', then a
 * longjmp to ptx_parse, which frees everything), and constant integer
 * expressions. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ptx_internal.h"

/* ---- errors and tokens ---------------------------------------------------- */

void ptx_error_at(ptx_parser *p, const ptx_tok *t, const char *fmt, ...)
{
    if (p->err && p->errlen) {
        char msg[256];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
        if (!t || t->kind == PTX_TK_EOF) {
            snprintf(p->err, p->errlen, "%s:%u:%u: %s near end of input",
                     p->name, t ? t->line : p->prev_line, t ? t->col : 0, msg);
        } else {
            /* quote at most 32 printable bytes of the token */
            char near[40];
            unsigned n = t->len < 32 ? t->len : 32, k = 0;
            for (unsigned i = 0; i < n; i++) {
                unsigned char c = (unsigned char)t->s[i];
                near[k++] = (c >= 32 && c < 127) ? (char)c : '?';
            }
            near[k] = 0;
            snprintf(p->err, p->errlen, "%s:%u:%u: %s near '%s'", p->name,
                     t->line, t->col, msg, near);
        }
    }
    longjmp(p->jb, 1);
}

const ptx_tok *ptx_peek(ptx_parser *p, uint32_t k)
{
    while (p->la_n <= k) {
        ptx_tok *t = &p->la[(p->la_head + p->la_n) % PTX_LOOKAHEAD];
        ptx_lex_next(&p->lx, t);
        p->la_n++;
        if (t->kind == PTX_TK_ERROR)
            ptx_error_at(p, t, "%s", t->msg);
    }
    return &p->la[(p->la_head + k) % PTX_LOOKAHEAD];
}

ptx_tok ptx_next(ptx_parser *p)
{
    ptx_tok t = *ptx_peek(p, 0);
    if (t.kind != PTX_TK_EOF) {
        p->la_head = (p->la_head + 1) % PTX_LOOKAHEAD;
        p->la_n--;
    }
    p->prev_line = t.line;
    return t;
}

bool ptx_tok_is(const ptx_tok *t, const char *s)
{
    size_t n = strlen(s);
    return t->kind != PTX_TK_EOF && t->kind != PTX_TK_PUNCT && t->len == n &&
           !memcmp(t->s, s, n);
}

bool ptx_accept_punct(ptx_parser *p, char c)
{
    const ptx_tok *t = ptx_peek(p, 0);
    if (t->kind == PTX_TK_PUNCT && t->c == c && t->len == 1) {
        ptx_next(p);
        return true;
    }
    return false;
}

void ptx_expect_punct(ptx_parser *p, char c)
{
    if (!ptx_accept_punct(p, c))
        ptx_error_at(p, ptx_peek(p, 0), "expected '%c'", c);
}

ptx_tok ptx_expect_ident(ptx_parser *p, const char *what)
{
    const ptx_tok *t = ptx_peek(p, 0);
    if (t->kind != PTX_TK_IDENT)
        ptx_error_at(p, t, "expected %s", what);
    return ptx_next(p);
}

/* Constant integer: [-|~|!] (INT | "(" expr ")") with + - * between terms;
 * enough for what compilers write in directives and operands. Nesting is
 * bounded so that hostile input cannot exhaust the stack. */
enum { MAX_EXPR_DEPTH = 64 };

static int64_t parse_expr(ptx_parser *p, unsigned depth);

static int64_t parse_int_term(ptx_parser *p, unsigned depth)
{
    const ptx_tok *t = ptx_peek(p, 0);
    if (depth > MAX_EXPR_DEPTH)
        ptx_error_at(p, t, "expression nested too deeply");
    if (ptx_accept_punct(p, '-'))
        return (int64_t)(0 - (uint64_t)parse_int_term(p, depth + 1));
    if (ptx_accept_punct(p, '~'))
        return ~parse_int_term(p, depth + 1);
    if (ptx_accept_punct(p, '!'))
        return !parse_int_term(p, depth + 1);
    if (ptx_accept_punct(p, '(')) {
        int64_t v = parse_expr(p, depth + 1);
        ptx_expect_punct(p, ')');
        return v;
    }
    if (t->kind != PTX_TK_INT)
        ptx_error_at(p, t, "expected an integer");
    return (int64_t)ptx_next(p).ival;
}

static int64_t parse_expr(ptx_parser *p, unsigned depth)
{
    int64_t v = parse_int_term(p, depth);
    for (;;) {
        const ptx_tok *t = ptx_peek(p, 0);
        if (t->kind != PTX_TK_PUNCT || t->len != 1)
            return v;
        if (t->c == '+') {
            ptx_next(p);
            v = (int64_t)((uint64_t)v + (uint64_t)parse_int_term(p, depth));
        } else if (t->c == '-') {
            ptx_next(p);
            v = (int64_t)((uint64_t)v - (uint64_t)parse_int_term(p, depth));
        } else if (t->c == '*') {
            ptx_next(p);
            v = (int64_t)((uint64_t)v * (uint64_t)parse_int_term(p, depth));
        } else {
            return v;
        }
    }
}

int64_t ptx_parse_int_expr(ptx_parser *p)
{
    return parse_expr(p, 0);
}

uint32_t ptx_parse_u32(ptx_parser *p, const char *what)
{
    ptx_tok t = *ptx_peek(p, 0);
    int64_t v = ptx_parse_int_expr(p);
    if (v < 0 || v > UINT32_MAX)
        ptx_error_at(p, &t, "%s out of range", what);
    return (uint32_t)v;
}

