/* ptx_parse_ins.c: one instruction.
 *
 *   instruction -> [ "@" ["!"] pred ] opcode { .modifier } [ operand { "," operand } ] ";"
 *   operand     -> reg [ "|" reg ]          (dst pair %r|%p)
 *                | ["-"] reg [ ".b" digits | ".h" digits ]  (video selectors)
 *                | "!" reg | [-] number | sreg (%tid.x, %laneid, ...)
 *                | sym [ (+|-) N ] | label | "_"
 *                | "[" (reg | sym | N) [ (+|-) expr ] "]"
 *                | "{" operand { "," operand } "}"
 *                | "(" [ operand { "," operand } ] ")"   (call argument lists)
 * The dotted opcode is split with the tables: the opcode, then each
 * modifier in order (kept as written) and decoded into ptx_ins fields.
 * Register names resolve now; labels may be forward (checked at the end of
 * the function); other names are kept by name and resolved once the whole
 * module is read (ptx_resolve.c), so functions may be used before they are
 * defined. */
#include <string.h>
#include "ptx_internal.h"

enum { MAX_ELEMS = 256 };

static void parse_operand(ptx_parser *p, ptx_ins *ins, ptx_opnd *o, unsigned pos,
                          unsigned depth);

_Static_assert(PTX_MOD_ballot - PTX_MOD_add == PTX_SUB_BALLOT - PTX_SUB_ADD, "subop order");
_Static_assert(PTX_MOD_mmio - PTX_MOD_relaxed == PTX_SEM_MMIO - PTX_SEM_RELAXED, "sem order");
_Static_assert(PTX_MOD_cluster - PTX_MOD_cta == PTX_SCOPE_CLUSTER - PTX_SCOPE_CTA, "scope order");
_Static_assert(PTX_MOD_rs - PTX_MOD_rn == PTX_RND_RS - PTX_RND_RN, "rnd order");
_Static_assert(PTX_MOD_nan - PTX_MOD_eq == PTX_CMP_NAN - PTX_CMP_EQ, "cmp order");

static void add_mod(ptx_parser *p, ptx_ins *ins, const ptx_tok *t)
{
    int m = ptx_lookup_mod(t->s + 1, t->len - 1, ins->op);
    if (!m)
        ptx_error_at(p, t, "unknown modifier for '%s'", ptx_op_table[ins->op].name);
    if (ins->nmods == PTX_MAX_MODS)
        ptx_error_at(p, t, "too many modifiers");
    ins->mods[ins->nmods++] = (uint16_t)m;
    switch (ptx_mod_table[m].cat) {
    case PTX_MC_TYPE:
        if (ins->ntypes < 3)
            ins->type[ins->ntypes++] = (ptx_type)(m - PTX_MOD_b8 + PTX_T_B8);
        break;
    case PTX_MC_SPACE: {
        ptx_space sp = m == PTX_MOD_global ? PTX_SPACE_GLOBAL
                     : m == PTX_MOD_local ? PTX_SPACE_LOCAL
                     : m == PTX_MOD_param ? PTX_SPACE_PARAM
                     : m == PTX_MOD_const ? PTX_SPACE_CONST : PTX_SPACE_SHARED;
        if (ins->space == PTX_SPACE_GENERIC)
            ins->space = sp;
        else
            ins->space2 = sp;
        break;
    }
    case PTX_MC_VEC:
        ins->vec = m == PTX_MOD_v2 ? 2 : m == PTX_MOD_v4 ? 4 : 8;
        break;
    case PTX_MC_RND:
        ins->rnd = (ptx_rnd)(m - PTX_MOD_rn + PTX_RND_RN);
        break;
    case PTX_MC_CMP:
        ins->cmp = (ptx_cmp)(m - PTX_MOD_eq + PTX_CMP_EQ);
        break;
    case PTX_MC_SUBOP:
        ins->subop = (ptx_subop)(m - PTX_MOD_add + PTX_SUB_ADD);
        break;
    case PTX_MC_SEM:
        ins->sem = (ptx_sem)(m - PTX_MOD_relaxed + PTX_SEM_RELAXED);
        break;
    case PTX_MC_SCOPE:
        ins->scope = (ptx_scope)(m - PTX_MOD_cta + PTX_SCOPE_CTA);
        break;
    case PTX_MC_FLAG:
        ins->flags |= UINT64_C(1) << (m - PTX_MOD_ftz);
        break;
    default:
        break;  /* cache hints, shapes: kept in mods[] only */
    }
}

static void init_opnd(ptx_opnd *o)
{
    memset(o, 0, sizeof *o);
    o->reg = o->reg2 = o->label = -1;
}

static bool is_f64_ins(const ptx_ins *ins)
{
    for (unsigned i = 0; i < ins->ntypes; i++)
        if (ins->type[i] == PTX_T_F64)
            return true;
    return false;
}

static void set_dec(const ptx_ins *ins, ptx_opnd *o, double d)
{
    o->kind = PTX_OPND_FIMM;
    o->is_f64 = is_f64_ins(ins);
    if (o->is_f64) {
        memcpy(&o->fbits, &d, 8);
    } else {
        float f = (float)d;
        uint32_t b;
        memcpy(&b, &f, 4);
        o->fbits = b;
    }
}

static const ptx_bind *need_reg(ptx_parser *p, const ptx_tok *t)
{
    const ptx_bind *b = ptx_lookup_bind(p, t->s, t->len);
    if (!b || b->kind != PTX_BIND_REG)
        ptx_error_at(p, t, "expected a register");
    return b;
}

static void parse_offset(ptx_parser *p, ptx_opnd *o)
{
    const ptx_tok *t = ptx_peek(p, 0);
    if (t->kind == PTX_TK_PUNCT && t->len == 1 && t->c == '+') {
        ptx_next(p);
        o->ival = ptx_parse_int_expr(p);
    } else if (t->kind == PTX_TK_PUNCT && t->len == 1 && t->c == '-') {
        o->ival = ptx_parse_int_expr(p);
    }
}

/* An identifier that is not a register or a scoped name: a module symbol,
 * a parameter, or a function, possibly defined later. */
static void set_sym(ptx_parser *p, ptx_opnd *o, const ptx_tok *t)
{
    o->sym = ptx_arena_strndup(p->a, t->s, t->len);
}

/* Whether a video selector suits operand pos of ins: scalar ops take .b0-.b3
 * or .h0/.h1 on a, b and d (vmad: not on d); vop2/vset2 .hxy (x, y 0..3) on
 * a and b, mask .h0 .h1 .h10 on d; vop4/vset4 .bxyzw (0..7) on a and b, a
 * mask of descending bytes (.b3210, .b20, ...) on d; never on c. */
static const char *vsel_rule(const ptx_ins *ins, const ptx_opnd *o, unsigned pos)
{
    unsigned kind = ptx_video_kind(ins->op), n = o->nsel;
    if (!kind)
        return "operand selectors are only for video instructions";
    if (pos == 0 && ins->op == PTX_OP_vmad)
        return "vmad takes no destination selector";
    if (pos > 2)
        return "operand c takes no selector";
    bool ok = true;
    for (unsigned i = 0; i < n; i++)
        ok = ok && o->sel[i] < (kind == 4 && pos ? 8 : 4);
    if (kind == 1) {
        if (!ok || n != 1 || (o->vsel == 'h' && o->sel[0] > 1))
            return "expected .b0, .b1, .b2, .b3, .h0 or .h1";
    } else if (kind == 2 && pos) {
        if (!ok || n != 2 || o->vsel != 'h')
            return "expected .hxy, x and y in 0..3";
    } else if (kind == 2) {
        if (o->vsel != 'h' || !(n == 1 ? o->sel[0] < 2 : n == 2 && o->sel[0] == 1 &&
                                                      o->sel[1] == 0))
            return "expected the mask .h0, .h1 or .h10";
    } else if (pos) {
        if (!ok || n != 4 || o->vsel != 'b')
            return "expected .bxyzw, each digit in 0..7";
    } else {
        for (unsigned i = 1; i < n; i++)
            ok = ok && o->sel[i] < o->sel[i - 1];
        if (!ok || o->vsel != 'b')
            return "expected a mask of bytes 3..0 in descending order (.b3210, .b20, ...)";
    }
    return NULL;
}

/* a selector glued to a register: ".b" or ".h" and 1 to 4 digits */
static void parse_vsel(ptx_parser *p, const ptx_ins *ins, ptx_opnd *o, const ptx_tok *reg,
                       unsigned pos)
{
    const ptx_tok *d = ptx_peek(p, 0);
    if (d->kind != PTX_TK_DIR || d->s != reg->s + reg->len)
        return;
    ptx_tok t = ptx_next(p);
    bool ok = t.len >= 3 && t.len <= 6 && (t.s[1] == 'b' || t.s[1] == 'h');
    for (uint32_t i = 2; ok && i < t.len; i++)
        ok = t.s[i] >= '0' && t.s[i] <= '9';
    if (!ok)
        ptx_error_at(p, &t, "bad operand selector '%.*s': expected .b or .h and 1 to 4 digits",
                     (int)t.len, t.s);
    o->vsel = t.s[1];
    o->nsel = (uint8_t)(t.len - 2);
    for (unsigned i = 0; i < o->nsel; i++)
        o->sel[i] = (uint8_t)(t.s[i + 2] - '0');
    const char *why = vsel_rule(ins, o, pos);
    if (why)
        ptx_error_at(p, &t, "bad selector '%.*s' on operand %u of '%s': %s", (int)t.len, t.s,
                     pos, ptx_op_table[ins->op].name, why);
}

static void parse_ident(ptx_parser *p, ptx_ins *ins, ptx_opnd *o, const ptx_tok *t,
                        unsigned pos)
{
    /* %tid.x and friends: an identifier glued to a ".x" token (a register
     * glued to one is a video operand selector) */
    const ptx_tok *d = ptx_peek(p, 0);
    const ptx_bind *b = ptx_lookup_bind(p, t->s, t->len);
    if (t->s[0] == '%' && d->kind == PTX_TK_DIR && d->s == t->s + t->len &&
        !(b && b->kind == PTX_BIND_REG)) {
        ptx_sreg s = ptx_lookup_sreg(t->s, t->len + d->len);
        if (!s)
            ptx_error_at(p, t, "unknown special register");
        ptx_next(p);
        o->kind = PTX_OPND_SREG;
        o->sreg = s;
        return;
    }
    if (b) {
        switch (b->kind) {
        case PTX_BIND_REG:
            o->kind = PTX_OPND_REG;
            o->reg = b->idx;
            parse_vsel(p, ins, o, t, pos);
            if (ptx_accept_punct(p, '|')) {
                ptx_tok t2 = ptx_expect_ident(p, "a predicate register");
                o->pair = true;
                o->reg2 = need_reg(p, &t2)->idx;
            }
            return;
        case PTX_BIND_VAR:
            o->kind = PTX_OPND_SYM;
            o->sym = b->uniq;
            parse_offset(p, o);
            return;
        case PTX_BIND_PROTO:
            o->kind = PTX_OPND_SYM;
            o->sym = b->uniq;
            o->func = b->ptr;
            return;
        case PTX_BIND_BTARGETS:
            *o = *(const ptx_opnd *)b->ptr;
            return;
        }
    }
    ptx_sreg s = t->s[0] == '%' ? ptx_lookup_sreg(t->s, t->len) : PTX_SREG_NONE;
    if (s) {
        o->kind = PTX_OPND_SREG;
        o->sreg = s;
    } else if (ptx_tok_is(t, "_")) {
        o->kind = PTX_OPND_SINK;
    } else if (ptx_tok_is(t, "WARP_SZ")) {
        o->kind = PTX_OPND_IMM;
        o->ival = 32;
    } else if (ins->op == PTX_OP_bra || (ins->op == PTX_OP_brx && pos > 0)) {
        o->kind = PTX_OPND_LABEL;
        o->label = ptx_label_ref(p, t);
    } else if (t->s[0] == '%') {
        ptx_error_at(p, t, "undeclared register");
    } else {
        o->kind = PTX_OPND_SYM;
        set_sym(p, o, t);
        parse_offset(p, o);
    }
}

 /* "{" a, b "}" or "(" a, b ")" */
static void parse_group(ptx_parser *p, ptx_ins *ins, ptx_opnd *o, char close,
                        unsigned depth)
{
    ptx_opnd tmp[MAX_ELEMS];
    uint32_t n = 0;
    o->kind = close == '}' ? PTX_OPND_VEC : PTX_OPND_LIST;
    if (!ptx_accept_punct(p, close)) {
        do {
            if (n == MAX_ELEMS)
                ptx_error_at(p, ptx_peek(p, 0), "too many elements");
            parse_operand(p, ins, &tmp[n++], 0, depth + 1);
        } while (ptx_accept_punct(p, ','));
        ptx_expect_punct(p, close);
    }
    if (n) {
        o->elems = ptx_arena_alloc(p->a, n * sizeof *tmp);
        memcpy(o->elems, tmp, n * sizeof *tmp);
    }
    o->nelems = n;
    /* tex/tld4 {d}|p: the vector and a texel-residency predicate */
    if (close == '}' && ptx_accept_punct(p, '|')) {
        ptx_tok t2 = ptx_expect_ident(p, "a predicate register");
        o->pair = true;
        o->reg2 = need_reg(p, &t2)->idx;
    }
}

/* "[" base [+ off] "]" */
static void parse_address(ptx_parser *p, ptx_ins *ins, ptx_opnd *o, unsigned depth)
{
    o->kind = PTX_OPND_ADDR;
    const ptx_tok *t = ptx_peek(p, 0);
    if (t->kind == PTX_TK_IDENT) {
        ptx_tok nm = ptx_next(p);
        const ptx_bind *b = ptx_lookup_bind(p, nm.s, nm.len);
        if (b && b->kind == PTX_BIND_REG)
            o->reg = b->idx;
        else if (b && b->kind == PTX_BIND_VAR)
            o->sym = b->uniq;
        else if (b || nm.s[0] == '%')
            ptx_error_at(p, &nm, "expected a register or a variable");
        else
            set_sym(p, o, &nm);
        parse_offset(p, o);
    } else {
        o->ival = ptx_parse_int_expr(p);
    }
    /* texture/surface: [handle, {coords}] or [tex, sampler, {coords}] */
    ptx_opnd tmp[2];
    uint32_t n = 0;
    while (ptx_accept_punct(p, ',')) {
        if (n == 2)
            ptx_error_at(p, ptx_peek(p, 0), "too many address components");
        parse_operand(p, ins, &tmp[n++], 0, depth + 1);
    }
    if (n) {
        o->elems = ptx_arena_alloc(p->a, n * sizeof *tmp);
        memcpy(o->elems, tmp, n * sizeof *tmp);
        o->nelems = n;
    }
    ptx_expect_punct(p, ']');
}

static void parse_operand(ptx_parser *p, ptx_ins *ins, ptx_opnd *o, unsigned pos,
                          unsigned depth)
{
    init_opnd(o);
    if (depth > 2)
        ptx_error_at(p, ptx_peek(p, 0), "operand nested too deeply");
    ptx_tok t = ptx_next(p);
    switch (t.kind) {
    case PTX_TK_IDENT:
        parse_ident(p, ins, o, &t, pos);
        return;
    case PTX_TK_INT:
        o->kind = PTX_OPND_IMM;
        o->ival = (int64_t)t.ival;
        return;
    case PTX_TK_FBITS:
        o->kind = PTX_OPND_FIMM;
        o->fbits = t.ival;
        o->is_f64 = t.is_f64;
        return;
    case PTX_TK_DEC:
        set_dec(ins, o, t.dval);
        return;
    case PTX_TK_PUNCT:
        if (t.len != 1)
            break;
        if (t.c == '[') {
            parse_address(p, ins, o, depth);
            return;
        }
        if (t.c == '{') {
            parse_group(p, ins, o, '}', depth);
            return;
        }
        if (t.c == '(') {
            parse_group(p, ins, o, ')', depth);
            return;
        }
        if (t.c == '!') {
            ptx_tok r = ptx_expect_ident(p, "a predicate register");
            o->kind = PTX_OPND_REG;
            o->reg = need_reg(p, &r)->idx;
            o->neg = true;
            return;
        }
        if (t.c == '-' || t.c == '~') {
            const ptx_tok *n = ptx_peek(p, 0);
            const ptx_bind *rb = n->kind == PTX_TK_IDENT ? ptx_lookup_bind(p, n->s, n->len)
                                                         : NULL;
            if (t.c == '-' && rb && rb->kind == PTX_BIND_REG) {
                /* -%r: vmad's negated operands */
                ptx_tok r = ptx_next(p);
                o->kind = PTX_OPND_REG;
                o->reg = rb->idx;
                o->minus = true;
                if (ins->op != PTX_OP_vmad || pos == 0)
                    ptx_error_at(p, &t, "a negated register is only a source of vmad");
                parse_vsel(p, ins, o, &r, pos);
                return;
            }
            if (t.c == '-' && n->kind == PTX_TK_FBITS) {
                ptx_tok f = ptx_next(p);
                o->kind = PTX_OPND_FIMM;
                o->is_f64 = f.is_f64;
                o->fbits = f.ival ^ (f.is_f64 ? UINT64_C(1) << 63 : UINT64_C(1) << 31);
                return;
            }
            if (t.c == '-' && n->kind == PTX_TK_DEC) {
                set_dec(ins, o, -ptx_next(p).dval);
                return;
            }
            /* re-read the sign as part of a constant expression */
            int64_t v = ptx_parse_int_expr(p);
            o->kind = PTX_OPND_IMM;
            o->ival = t.c == '-' ? (int64_t)(0 - (uint64_t)v) : ~v;
            return;
        }
        break;
    default:
        break;
    }
    ptx_error_at(p, &t, "expected an operand");
}

void ptx_parse_instruction(ptx_parser *p)
{
    int32_t guard = -1;
    bool gneg = false;
    if (ptx_accept_punct(p, '@')) {
        gneg = ptx_accept_punct(p, '!');
        ptx_tok g = ptx_expect_ident(p, "a guard predicate");
        guard = need_reg(p, &g)->idx;
    }
    ptx_tok t = ptx_expect_ident(p, "an instruction");
    int op = ptx_lookup_op(t.s, t.len);
    if (op < 0)
        ptx_error_at(p, &t, "unknown instruction");
    ptx_ins *ins = ptx_vec_push(&p->ins);
    ins->op = (ptx_op)op;
    ins->guard_reg = guard;
    ins->guard_neg = gneg;
    ins->vec = 1;
    ins->line = t.line;
    ins->col = t.col;
    ins->loc_file = p->loc_file;
    ins->loc_line = p->loc_line;
    while (ptx_peek(p, 0)->kind == PTX_TK_DIR) {
        ptx_tok m = ptx_next(p);
        add_mod(p, ins, &m);
    }
    if (!ptx_accept_punct(p, ';')) {
        do {
            if (ins->nopnds == PTX_MAX_OPNDS)
                ptx_error_at(p, ptx_peek(p, 0), "too many operands");
            parse_operand(p, ins, &ins->opnds[ins->nopnds], ins->nopnds, 0);
            ins->nopnds++;
        } while (ptx_accept_punct(p, ','));
        ptx_expect_punct(p, ';');
    }
    /* a scalar video op merges into d.dsel from c: no secondary op then */
    if (ptx_video_kind(ins->op) == 1 && ins->nopnds && ins->opnds[0].vsel &&
        (ins->nopnds != 4 || ins->subop != PTX_SUB_NONE))
        ptx_error_at(p, &t, "a destination selector needs operand c and no secondary operation");
}
