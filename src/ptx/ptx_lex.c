/* ptx_lex.c: the PTX tokenizer.
 *
 * Identifiers: [A-Za-z_$%][A-Za-z0-9_$]* (so %r12, $L__BB0_2, _Z3fibi_param_0,
 * and "_" the sink). A dot followed by a letter starts a directive or
 * modifier token that may contain "::" (.shared::cta, .L2::cache_hint), so
 * "setp.lt.s32" is IDENT DIR DIR. Numbers: decimal, 0x hex, 0b binary, 0
 * octal, optional U suffix (sign is the parser's unary minus); 0fXXXXXXXX
 * and 0dXXXXXXXXXXXXXXXX float bit patterns; decimal floats (1.5, 2e-3).
 * Comments // and / * * / are skipped; NUL bytes count as blanks. */
#include <stdlib.h>
#include <string.h>
#include "ptx_internal.h"

void ptx_lex_init(ptx_lexer *lx, const char *text, size_t len)
{
    lx->text = text;
    lx->len = len;
    lx->pos = 0;
    lx->line = 1;
    lx->col = 1;
}

static int peekc(const ptx_lexer *lx, size_t k)
{
    return lx->pos + k < lx->len ? (unsigned char)lx->text[lx->pos + k] : -1;
}

static void advance(ptx_lexer *lx)
{
    if (lx->text[lx->pos] == '\n') {
        lx->line++;
        lx->col = 1;
    } else {
        lx->col++;
    }
    lx->pos++;
}

static bool is_alpha(int c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
static bool is_digit(int c) { return c >= '0' && c <= '9'; }
static bool is_ident(int c) { return is_alpha(c) || is_digit(c) || c == '_' || c == '$'; }
static int hexval(int c)
{
    if (is_digit(c))
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Skips blanks and comments; false (with t->msg) on an unterminated one. */
static bool skip_blank(ptx_lexer *lx, ptx_tok *t)
{
    for (;;) {
        int c = peekc(lx, 0);
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' ||
            c == '\v' || c == 0) {
            advance(lx);
        } else if (c == '/' && peekc(lx, 1) == '/') {
            while (peekc(lx, 0) != -1 && peekc(lx, 0) != '\n')
                advance(lx);
        } else if (c == '/' && peekc(lx, 1) == '*') {
            t->line = lx->line;
            t->col = lx->col;
            advance(lx);
            advance(lx);
            while (!(peekc(lx, 0) == '*' && peekc(lx, 1) == '/')) {
                if (peekc(lx, 0) == -1) {
                    t->msg = "unterminated comment";
                    return false;
                }
                advance(lx);
            }
            advance(lx);
            advance(lx);
        } else {
            return true;
        }
    }
}

static void lex_number(ptx_lexer *lx, ptx_tok *t)
{
    int c0 = peekc(lx, 0), c1 = peekc(lx, 1);
    uint64_t v = 0;
    if (c0 == '0' && (c1 == 'f' || c1 == 'F' || c1 == 'd' || c1 == 'D')) {
        unsigned nd = (c1 == 'f' || c1 == 'F') ? 8 : 16;
        advance(lx);
        advance(lx);
        unsigned i = 0;
        for (; hexval(peekc(lx, 0)) >= 0; i++) {
            v = (v << 4) | (uint64_t)hexval(peekc(lx, 0));
            advance(lx);
        }
        t->kind = PTX_TK_FBITS;
        t->ival = v;
        t->is_f64 = nd == 16;
        if (i != nd)
            t->msg = nd == 8 ? "float literal 0f needs 8 hex digits"
                             : "double literal 0d needs 16 hex digits";
    } else if (c0 == '0' && (c1 == 'x' || c1 == 'X' || c1 == 'b' || c1 == 'B')) {
        unsigned shift = (c1 == 'x' || c1 == 'X') ? 4 : 1;
        advance(lx);
        advance(lx);
        unsigned nd = 0;
        for (int d; (d = hexval(peekc(lx, 0))) >= 0 && d < (1 << shift); nd++) {
            if (v >> (64 - shift))
                t->msg = "integer constant too large";
            v = (v << shift) | (uint64_t)d;
            advance(lx);
        }
        if (!nd)
            t->msg = "malformed number";
        t->kind = PTX_TK_INT;
    } else {
        /* decimal or octal integer, or a decimal float */
        size_t start = lx->pos;
        while (is_digit(peekc(lx, 0)))
            advance(lx);
        int c = peekc(lx, 0);
        if ((c == '.' && is_digit(peekc(lx, 1))) || c == 'e' || c == 'E') {
            if (c == '.') {
                advance(lx);
                while (is_digit(peekc(lx, 0)))
                    advance(lx);
            }
            c = peekc(lx, 0);
            if (c == 'e' || c == 'E') {
                advance(lx);
                if (peekc(lx, 0) == '+' || peekc(lx, 0) == '-')
                    advance(lx);
                if (!is_digit(peekc(lx, 0)))
                    t->msg = "malformed float literal";
                while (is_digit(peekc(lx, 0)))
                    advance(lx);
            }
            char buf[64];
            size_t n = lx->pos - start;
            if (n >= sizeof buf) {
                t->msg = "float literal too long";
                n = sizeof buf - 1;
            }
            memcpy(buf, lx->text + start, n);
            buf[n] = 0;
            t->kind = PTX_TK_DEC;
            t->dval = strtod(buf, NULL);
        } else {
            bool octal = lx->text[start] == '0' && lx->pos - start > 1;
            unsigned base = octal ? 8 : 10;
            for (size_t i = start; i < lx->pos; i++) {
                unsigned d = (unsigned)(lx->text[i] - '0');
                if (d >= base)
                    t->msg = "bad digit in octal constant";
                if (v > (UINT64_MAX - d) / base)
                    t->msg = "integer constant too large";
                v = v * base + d;
            }
            t->kind = PTX_TK_INT;
        }
    }
    if (t->kind == PTX_TK_INT && (peekc(lx, 0) == 'U' || peekc(lx, 0) == 'u'))
        advance(lx);
    t->ival = t->kind == PTX_TK_DEC ? 0 : v;
    if (is_ident(peekc(lx, 0)) && !t->msg)
        t->msg = "malformed number";
    while (is_ident(peekc(lx, 0)))
        advance(lx);
}

void ptx_lex_next(ptx_lexer *lx, ptx_tok *t)
{
    memset(t, 0, sizeof *t);
    if (!skip_blank(lx, t)) {
        t->kind = PTX_TK_ERROR;
        t->s = lx->text + lx->pos;
        return;
    }
    t->line = lx->line;
    t->col = lx->col;
    t->s = lx->text + lx->pos;
    size_t start = lx->pos;
    int c = peekc(lx, 0);
    if (c == -1) {
        t->kind = PTX_TK_EOF;
    } else if (is_alpha(c) || c == '_' || c == '$' || c == '%') {
        advance(lx);
        while (is_ident(peekc(lx, 0)))
            advance(lx);
        t->kind = PTX_TK_IDENT;
    } else if (c == '.' && (is_alpha(peekc(lx, 1)) || peekc(lx, 1) == '_' ||
                            (is_digit(peekc(lx, 1)) && is_alpha(peekc(lx, 2))))) {
        /* also .1d .2d .3d .2dms: texture geometries */
        advance(lx);
        for (;;) {
            while (is_ident(peekc(lx, 0)))
                advance(lx);
            if (peekc(lx, 0) == ':' && peekc(lx, 1) == ':' && is_ident(peekc(lx, 2))) {
                advance(lx);
                advance(lx);
                continue;
            }
            break;
        }
        t->kind = PTX_TK_DIR;
    } else if (is_digit(c)) {
        lex_number(lx, t);
    } else if (c == '"') {
        advance(lx);
        for (;;) {
            int d = peekc(lx, 0);
            if (d == -1 || d == '\n') {
                t->msg = "unterminated string";
                break;
            }
            advance(lx);
            if (d == '\\' && peekc(lx, 0) != -1 && peekc(lx, 0) != '\n')
                advance(lx);
            else if (d == '"')
                break;
        }
        t->kind = PTX_TK_STRING;
    } else if (strchr("{}[]()<>,;:+-!@|=*/~&^?", c)) {
        advance(lx);
        t->kind = PTX_TK_PUNCT;
        t->c = (char)c;
        if (c == ':' && peekc(lx, 0) == ':')
            advance(lx);
    } else {
        advance(lx);
        t->msg = "unexpected character";
    }
    t->len = (uint32_t)(lx->pos - start);
    if (t->msg)
        t->kind = PTX_TK_ERROR;
}
