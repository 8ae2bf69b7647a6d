/* ptx_parse_decl.c: variable and parameter declarations, initializers.
 *
 *   var-decl -> { .align N | .v2 | .v4 | .v8 | .type | .ptr [.space] [.align N] }
 *               item { "," item }
 *   item     -> name { "[" [N] "]" } [ "=" init ]
 *   init     -> scalar | "{" init { "," init } "}"
 *   scalar   -> [-] INT | 0fXXXXXXXX | 0dXXXX.. | 1.5 | sym [+ N]
 *             | generic "(" sym ")" [+ N]
 *   params   -> "(" [ (.param | .reg) var-decl { "," ... } ] ")"
 * The space keyword itself is read by the caller. Symbol addresses in
 * initializers become ptx_reloc entries, checked once the module is read. */
#include <string.h>
#include "ptx_internal.h"

enum { MAX_INIT_BYTES = 256u << 20, MAX_INIT_DEPTH = 16 };
#define MAX_VAR_BYTES (UINT64_C(1) << 40)

typedef enum { IT_INT, IT_FBITS, IT_DEC, IT_SYM } item_kind;
typedef struct init_item {
    item_kind kind;
    bool is_f64, generic;
    uint64_t v;
    double d;
    const char *sym;
    int64_t addend;
} init_item;

static void parse_init_scalar(ptx_parser *p, ptx_vec *items)
{
    init_item *it = ptx_vec_push(items);
    ptx_tok t = *ptx_peek(p, 0);
    bool neg = false;
    if (ptx_accept_punct(p, '-')) {
        neg = true;
        t = *ptx_peek(p, 0);
    }
    if (t.kind == PTX_TK_INT) {
        ptx_next(p);
        it->kind = IT_INT;
        it->v = neg ? 0 - t.ival : t.ival;
    } else if (t.kind == PTX_TK_FBITS) {
        ptx_next(p);
        it->kind = IT_FBITS;
        it->is_f64 = t.is_f64;
        it->v = t.ival;
        if (neg)
            it->v ^= t.is_f64 ? UINT64_C(1) << 63 : UINT64_C(1) << 31;
    } else if (t.kind == PTX_TK_DEC) {
        ptx_next(p);
        it->kind = IT_DEC;
        it->d = neg ? -t.dval : t.dval;
    } else if (t.kind == PTX_TK_IDENT && !neg) {
        ptx_next(p);
        it->kind = IT_SYM;
        if (ptx_tok_is(&t, "generic") && ptx_accept_punct(p, '(')) {
            t = ptx_expect_ident(p, "a symbol");
            ptx_expect_punct(p, ')');
            it->generic = true;
        }
        it->sym = ptx_arena_strndup(p->a, t.s, t.len);
        if (ptx_accept_punct(p, '+'))
            it->addend = ptx_parse_int_expr(p);
        else if (ptx_peek(p, 0)->kind == PTX_TK_PUNCT && ptx_peek(p, 0)->c == '-')
            it->addend = ptx_parse_int_expr(p);
    } else {
        ptx_error_at(p, &t, "expected an initializer value");
    }
}

static void parse_init(ptx_parser *p, ptx_vec *items, unsigned depth)
{
    if (depth > MAX_INIT_DEPTH)
        ptx_error_at(p, ptx_peek(p, 0), "initializer nested too deeply");
    if (!ptx_accept_punct(p, '{')) {
        parse_init_scalar(p, items);
        return;
    }
    if (ptx_accept_punct(p, '}'))
        return;
    do
        parse_init(p, items, depth + 1);
    while (ptx_accept_punct(p, ','));
    ptx_expect_punct(p, '}');
}

static uint16_t f32_to_f16_bits(float f);

/* A decimal literal (1.5, 4e444) given to an integer variable: truncated,
 * saturated at the int64 range, NaN as 0 (a plain cast is undefined there). */
static int64_t dec_to_int(double d)
{
    if (d != d)
        return 0;
    if (d >= 9223372036854775808.0)
        return INT64_MAX;
    if (d <= -9223372036854775808.0)
        return INT64_MIN;
    return (int64_t)d;
}

/* Writes one scalar of type t at dst (little endian, as on the device). */
static void store_item(const init_item *it, ptx_type t, uint8_t *dst)
{
    unsigned sz = ptx_type_size(t);
    uint64_t bits = it->v;
    if (t == PTX_T_F32 || t == PTX_T_F64 || t == PTX_T_F16) {
        double d;
        if (it->kind == IT_INT)
            d = (double)(int64_t)it->v;
        else if (it->kind == IT_DEC)
            d = it->d;
        else if (it->is_f64) {
            memcpy(&d, &it->v, 8);
        } else {
            float f;
            uint32_t b = (uint32_t)it->v;
            memcpy(&f, &b, 4);
            d = f;
        }
        if (t == PTX_T_F64) {
            memcpy(&bits, &d, 8);
        } else if (t == PTX_T_F32) {
            float f = (float)d;
            uint32_t b;
            memcpy(&b, &f, 4);
            bits = b;
        } else {
            bits = f32_to_f16_bits((float)d);
        }
    } else if (it->kind == IT_DEC) {
        bits = (uint64_t)dec_to_int(it->d);
    }
    for (unsigned i = 0; i < sz && i < 8; i++)
        dst[i] = (uint8_t)(bits >> (8 * i));
}

/* Round-to-nearest-even float -> half, for .f16 initializers. */
static uint16_t f32_to_f16_bits(float f)
{
    uint32_t x;
    memcpy(&x, &f, 4);
    uint32_t sign = (x >> 16) & 0x8000, e = (x >> 23) & 0xff, m = x & 0x7fffff;
    if (e == 0xff)
        return (uint16_t)(sign | 0x7c00 | (m ? 0x200 : 0));
    int ee = (int)e - 127 + 15;
    if (ee >= 31)
        return (uint16_t)(sign | 0x7c00);
    if (ee <= 0) {
        if (ee < -10)
            return (uint16_t)sign;
        m |= 0x800000;
        unsigned shift = (unsigned)(14 - ee);
        uint32_t h = m >> shift, rem = m & ((1u << shift) - 1), half = 1u << (shift - 1);
        if (rem > half || (rem == half && (h & 1)))
            h++;
        return (uint16_t)(sign | h);
    }
    uint32_t h = ((uint32_t)ee << 10) | (m >> 13), rem = m & 0x1fff;
    if (rem > 0x1000 || (rem == 0x1000 && (h & 1)))
        h++;
    return (uint16_t)(sign | h);
}

static void layout_init(ptx_parser *p, ptx_var *v, ptx_vec *items, const ptx_tok *at)
{
    unsigned esz = ptx_type_size(v->type);
    if (v->type == PTX_T_PRED || esz == 0)
        ptx_error_at(p, at, "this type cannot be initialised");
    uint64_t slots = v->size / esz;
    if (v->unsized) {
        uint64_t per = v->vec ? v->vec : 1;
        slots = (items->n + per - 1) / per * per;
        v->size = slots * esz;
        v->unsized = false;
    }
    if (items->n > slots)
        ptx_error_at(p, at, "too many initializers for '%s'", v->name);
    if (v->size > MAX_INIT_BYTES)
        ptx_error_at(p, at, "initialised variable too large");
    v->init = ptx_arena_alloc(p->a, v->size ? v->size : 1);
    ptx_vec relocs = { .esz = sizeof(ptx_reloc) };
    const init_item *its = items->data;
    for (uint32_t i = 0; i < items->n; i++) {
        if (its[i].kind == IT_SYM) {
            ptx_reloc *r = ptx_vec_push(&relocs);
            r->offset = i * esz;
            r->sym = its[i].sym;
            r->addend = its[i].addend;
            r->generic = its[i].generic;
        } else {
            store_item(&its[i], v->type, v->init + (size_t)i * esz);
        }
    }
    v->nrelocs = relocs.n;
    v->relocs = ptx_vec_finish(&relocs, p->a);
}

/* name { [N] } [= init] */
static void parse_item(ptx_parser *p, ptx_var *v, bool allow_init, bool in_body)
{
    ptx_tok nm = ptx_expect_ident(p, "a variable name");
    uint64_t count = 1;
    bool first = true;
    while (ptx_accept_punct(p, '[')) {
        if (ptx_accept_punct(p, ']')) {
            if (!first)
                ptx_error_at(p, &nm, "only the first dimension may be unsized");
            v->unsized = true;
        } else {
            ptx_tok at = *ptx_peek(p, 0);
            int64_t d = ptx_parse_int_expr(p);
            if (d <= 0 || (uint64_t)d > MAX_VAR_BYTES || count > MAX_VAR_BYTES / (uint64_t)d)
                ptx_error_at(p, &at, "bad array dimension");
            count *= (uint64_t)d;
            ptx_expect_punct(p, ']');
        }
        first = false;
    }
    uint64_t esz = (uint64_t)ptx_type_size(v->type) * v->vec;
    if (count > MAX_VAR_BYTES / esz)
        ptx_error_at(p, &nm, "variable too large");
    v->size = v->unsized ? 0 : count * esz;
    v->line = nm.line;
    if (in_body)
        v->name = ptx_declare(p, &nm, nm.s, nm.len, PTX_BIND_VAR, 0, NULL);
    else
        v->name = ptx_arena_strndup(p->a, nm.s, nm.len);
    if (ptx_peek(p, 0)->kind == PTX_TK_PUNCT && ptx_peek(p, 0)->c == '=') {
        ptx_tok eq = ptx_next(p);
        if (!allow_init)
            ptx_error_at(p, &eq, "initializer not allowed here");
        /* as ptxas; and a .f16 value has no literal the printer could
         * write back (it was printed as raw bits, re-read as a number) */
        if (v->type == PTX_T_F16)
            ptx_error_at(p, &eq, "no initial value is allowed for .f16 type");
        /* p->items is freed by the parser's cleanup on an error */
        p->items.esz = sizeof(init_item);
        p->items.n = 0;
        parse_init(p, &p->items, 0);
        layout_init(p, v, &p->items, &nm);
    } else if (v->unsized && v->linkage != PTX_LINK_EXTERN && v->space != PTX_SPACE_SHARED &&
               v->space != PTX_SPACE_PARAM) {
        ptx_error_at(p, &nm, "unsized array '%s' needs an initializer", v->name);
    }
}

void ptx_parse_var_decl(ptx_parser *p, ptx_decl_ctx ctx, ptx_vec *out,
                        bool allow_init, bool single)
{
    ptx_var proto = { .space = ctx.space, .linkage = ctx.linkage, .vec = 1 };
    bool seen_ptr = false;
    for (;;) {
        const ptx_tok *t = ptx_peek(p, 0);
        if (t->kind != PTX_TK_DIR)
            break;
        ptx_type ty = ptx_lookup_type(t->s + 1, t->len - 1);
        if (ty != PTX_T_NONE) {
            if (proto.type)
                ptx_error_at(p, t, "two types in one declaration");
            proto.type = ty;
            ptx_next(p);
        } else if (ptx_tok_is(t, ".align")) {
            ptx_next(p);
            ptx_tok at = *ptx_peek(p, 0);
            uint32_t a = ptx_parse_u32(p, "alignment");
            if (!a || (a & (a - 1)) || a > 65536)
                ptx_error_at(p, &at, "alignment must be a power of two");
            if (seen_ptr)
                proto.ptr_align = a;
            else
                proto.align = a;
        } else if (ptx_tok_is(t, ".v2") || ptx_tok_is(t, ".v4") || ptx_tok_is(t, ".v8")) {
            proto.vec = (uint8_t)(t->s[2] - '0');
            ptx_next(p);
        } else if (ptx_tok_is(t, ".attribute")) {
            /* .global .attribute(.managed): a __managed__ variable */
            ptx_next(p);
            ptx_expect_punct(p, '(');
            const ptx_tok *a = ptx_peek(p, 0);
            if (!ptx_tok_is(a, ".managed"))
                ptx_error_at(p, a, "unknown variable attribute '%.*s'",
                             (int)(a->len > 40 ? 40 : a->len), a->s);
            else
                proto.managed = true;
            ptx_next(p);
            ptx_expect_punct(p, ')');
        } else if (ptx_tok_is(t, ".ptr")) {
            seen_ptr = proto.ptr_attrs = true;
            ptx_next(p);
        } else if (seen_ptr && (ptx_tok_is(t, ".global") || ptx_tok_is(t, ".shared") ||
                                ptx_tok_is(t, ".const") || ptx_tok_is(t, ".local"))) {
            proto.ptr_space = t->s[1] == 'g' ? PTX_SPACE_GLOBAL
                            : t->s[1] == 's' ? PTX_SPACE_SHARED
                            : t->s[1] == 'c' ? PTX_SPACE_CONST : PTX_SPACE_LOCAL;
            ptx_next(p);
        } else {
            ptx_error_at(p, t, "unexpected '%.*s' in a declaration",
                         (int)(t->len > 40 ? 40 : t->len), t->s);
        }
    }
    if (!proto.type)
        ptx_error_at(p, ptx_peek(p, 0), "expected a type");
    if (!proto.align)
        proto.align = ptx_type_size(proto.type) * proto.vec;
    do {
        ptx_var *v = ptx_vec_push(out);
        *v = proto;
        parse_item(p, v, allow_init, ctx.in_body);
    } while (!single && ptx_accept_punct(p, ','));
}

void ptx_parse_param_list(ptx_parser *p, ptx_vec *out)
{
    ptx_expect_punct(p, '(');
    if (ptx_accept_punct(p, ')'))
        return;
    do {
        ptx_tok t = ptx_next(p);
        ptx_space sp;
        if (ptx_tok_is(&t, ".param"))
            sp = PTX_SPACE_PARAM;
        else if (ptx_tok_is(&t, ".reg"))
            sp = PTX_SPACE_REG;
        else
            ptx_error_at(p, &t, "expected .param or .reg");
        ptx_parse_var_decl(p, (ptx_decl_ctx){ sp, PTX_LINK_NONE, false }, out,
                           false, true);
    } while (ptx_accept_punct(p, ','));
    ptx_expect_punct(p, ')');
}
