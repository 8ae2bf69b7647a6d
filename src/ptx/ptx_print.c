/* ptx_print.c: writes a module back as PTX text that ptxas accepts.
 *
 * Layout: header directives and .file table; a prototype for every .func
 * (so initializers and calls may name functions in any order); the module
 * variables in order; then each function with a body. Bodies are flat
 * (scopes were flattened with unique names): locals, registers (runs
 * %r0..%rN-1 written back as %r<N>), then instructions with labels. A call
 * through a .callprototype and a brx.idx with a target list get their
 * declaration written just before them. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ptx_internal.h"
#include "util/zn_log.h"

typedef struct sbuf {
    char *s;
    size_t n, cap;
} sbuf;

__attribute__((format(printf, 2, 3)))
static void out(sbuf *b, const char *fmt, ...)
{
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        /* the first call has no buffer yet: NULL + 0 is undefined in C */
        int k = vsnprintf(b->s ? b->s + b->n : NULL, b->cap - b->n, fmt, ap);
        va_end(ap);
        if (k >= 0 && (size_t)k < b->cap - b->n) {
            b->n += (size_t)k;
            return;
        }
        size_t cap = b->cap * 2 + (k > 0 ? (size_t)k : 0) + 256;
        char *s = realloc(b->s, cap);
        if (!s)
            zn_die("ptx: out of memory");
        b->s = s;
        b->cap = cap;
    }
}

static const char *space_name(ptx_space s)
{
    static const char *const n[PTX_SPACE_COUNT] = {
        "", ".reg", ".global", ".shared", ".local", ".param", ".const" };
    return (unsigned)s < PTX_SPACE_COUNT ? n[s] : "";
}

static const char *linkage_name(ptx_linkage l)
{
    static const char *const n[] = { "", ".visible ", ".extern ", ".weak ", ".common " };
    return (unsigned)l < 5 ? n[l] : "";
}

static uint64_t read_le(const uint8_t *p, unsigned n)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

static void print_init(sbuf *b, const ptx_var *v)
{
    unsigned esz = ptx_type_size(v->type);
    uint64_t slots = esz ? v->size / esz : 0;
    bool list = slots != 1 || v->vec > 1;
    out(b, " = %s", list ? "{" : "");
    uint32_t r = 0;
    for (uint64_t i = 0; i < slots; i++) {
        if (i)
            out(b, ", ");
        while (r < v->nrelocs && v->relocs[r].offset < i * esz)
            r++;
        if (r < v->nrelocs && v->relocs[r].offset == i * esz) {
            const ptx_reloc *rl = &v->relocs[r];
            out(b, rl->generic ? "generic(%s)" : "%s", rl->sym);
            if (rl->addend)
                out(b, "%+" PRId64, rl->addend);
            continue;
        }
        uint64_t x = read_le(v->init + i * esz, esz);
        if (v->type == PTX_T_F32)
            out(b, "0f%08" PRIX64, x);
        else if (v->type == PTX_T_F64)
            out(b, "0d%016" PRIX64, x);
        else
            out(b, "%" PRIu64, x);
    }
    if (list)
        out(b, "}");
}

/* .space [.ptr .space .align N] [.align N] [.vN] .type name[N] [= init] */
static void print_var(sbuf *b, const ptx_var *v, bool with_init)
{
    out(b, "%s%s", linkage_name(v->linkage), space_name(v->space));
    if (v->space != PTX_SPACE_REG && v->align)
        out(b, " .align %u", v->align);
    if (v->vec > 1)
        out(b, " .v%u", v->vec);
    out(b, " .%s", ptx_type_name(v->type));
    if (v->ptr_attrs) {
        out(b, " .ptr");
        if (v->ptr_space)
            out(b, " %s", space_name(v->ptr_space));
        if (v->ptr_align)
            out(b, " .align %u", v->ptr_align);
    }
    out(b, " %s", v->name);
    uint64_t esz = (uint64_t)ptx_type_size(v->type) * v->vec;
    if (v->unsized)
        out(b, "[]");
    else if (esz && v->size != esz)
        out(b, "[%" PRIu64 "]", v->size / esz);
    if (with_init && (v->init || v->nrelocs))
        print_init(b, v);
}

static void print_params(sbuf *b, const ptx_var *p, uint32_t n)
{
    out(b, "(");
    for (uint32_t i = 0; i < n; i++) {
        out(b, "%s\n\t", i ? "," : "");
        print_var(b, &p[i], false);
    }
    out(b, "%s)", n ? "\n" : "");
}

static void print_signature(sbuf *b, const ptx_func *f)
{
    out(b, "%s%s ", linkage_name(f->linkage), f->is_entry ? ".entry" : ".func");
    if (f->nrets) {
        print_params(b, f->rets, f->nrets);
        out(b, " ");
    }
    out(b, "%s", f->name);
    if (f->nparams || !f->nrets)
        print_params(b, f->params, f->nparams);
    if (f->noreturn)
        out(b, " .noreturn");
    if (f->maxntid[0])
        out(b, "\n.maxntid %u, %u, %u", f->maxntid[0], f->maxntid[1], f->maxntid[2]);
    if (f->reqntid[0])
        out(b, "\n.reqntid %u, %u, %u", f->reqntid[0], f->reqntid[1], f->reqntid[2]);
    if (f->minnctapersm)
        out(b, "\n.minnctapersm %u", f->minnctapersm);
    if (f->maxnreg)
        out(b, "\n.maxnreg %u", f->maxnreg);
    if (f->explicitcluster)
        out(b, "\n.explicitcluster");
    if (f->reqnctapercluster[0])
        out(b, "\n.reqnctapercluster %u, %u, %u", f->reqnctapercluster[0],
            f->reqnctapercluster[1], f->reqnctapercluster[2]);
    if (f->maxclusterrank)
        out(b, "\n.maxclusterrank %u", f->maxclusterrank);
}

static void print_opnd(sbuf *b, const ptx_func *f, const ptx_opnd *o)
{
    switch (o->kind) {
    case PTX_OPND_REG:
        out(b, "%s%s", o->neg ? "!" : o->minus ? "-" : "", f->regs[o->reg].name);
        if (o->vsel)
            out(b, ".%c", o->vsel);
        for (unsigned i = 0; i < o->nsel; i++)
            out(b, "%u", o->sel[i]);
        if (o->pair)
            out(b, "|%s", f->regs[o->reg2].name);
        break;
    case PTX_OPND_SREG:
        out(b, "%s", ptx_sreg_name(o->sreg));
        break;
    case PTX_OPND_IMM:
        out(b, "%" PRId64, o->ival);
        break;
    case PTX_OPND_FIMM:
        if (o->is_f64)
            out(b, "0d%016" PRIX64, o->fbits);
        else
            out(b, "0f%08" PRIX32, (uint32_t)o->fbits);
        break;
    case PTX_OPND_SYM:
        out(b, "%s", o->sym);
        if (o->ival)
            out(b, "%+" PRId64, o->ival);
        break;
    case PTX_OPND_ADDR:
        out(b, "[");
        if (o->reg >= 0)
            out(b, "%s", f->regs[o->reg].name);
        else if (o->sym)
            out(b, "%s", o->sym);
        if (o->reg >= 0 || o->sym) {
            if (o->ival)
                out(b, "+%" PRId64, o->ival);
        } else {
            out(b, "%" PRId64, o->ival);
        }
        for (uint32_t i = 0; i < o->nelems; i++) {
            out(b, ", ");
            print_opnd(b, f, &o->elems[i]);
        }
        out(b, "]");
        break;
    case PTX_OPND_VEC:
    case PTX_OPND_LIST:
        out(b, o->kind == PTX_OPND_VEC ? "{" : "(");
        for (uint32_t i = 0; i < o->nelems; i++) {
            out(b, "%s", i ? ", " : "");
            print_opnd(b, f, &o->elems[i]);
        }
        out(b, o->kind == PTX_OPND_VEC ? "}" : ")");
        if (o->pair) /* tex {d}|p */
            out(b, "|%s", f->regs[o->reg2].name);
        break;
    case PTX_OPND_LABEL:
        out(b, "%s", f->labels[o->label].name);
        break;
    case PTX_OPND_SINK:
        out(b, "_");
        break;
    case PTX_OPND_NONE:
        break;
    }
}

static bool is_proto(const ptx_module *m, const ptx_func *f)
{
    return f && (f < m->funcs || f >= m->funcs + m->nfuncs);
}

static void print_ins(sbuf *b, const ptx_func *f, const ptx_ins *ins, uint32_t idx)
{
    bool brx = ins->op == PTX_OP_brx && ins->nopnds == 2 &&
               ins->opnds[1].kind == PTX_OPND_LIST;
    if (brx) {
        const ptx_opnd *l = &ins->opnds[1];
        out(b, "$__zn_bt%u: .branchtargets ", idx);
        for (uint32_t i = 0; i < l->nelems; i++)
            out(b, "%s%s", i ? ", " : "", f->labels[l->elems[i].label].name);
        out(b, ";\n");
    }
    out(b, "\t");
    if (ins->guard_reg >= 0)
        out(b, "@%s%s ", ins->guard_neg ? "!" : "", f->regs[ins->guard_reg].name);
    out(b, "%s", ptx_op_table[ins->op].name);
    for (unsigned i = 0; i < ins->nmods; i++)
        out(b, ".%s", ptx_mod_table[ins->mods[i]].name);
    for (uint32_t k = 0; k < ins->nopnds; k++) {
        out(b, k ? ", " : " ");
        if (brx && k == 1)
            out(b, "$__zn_bt%u", idx);
        else
            print_opnd(b, f, &ins->opnds[k]);
    }
    out(b, ";\n");
}

/* Registers: a run %r0, %r1, ... %rN-1 of one type is written as %r<N>. */
static void print_regs(sbuf *b, const ptx_func *f)
{
    uint32_t first = 0;     /* .reg parameters are declared in the signature */
    for (uint32_t i = 0; i < f->nrets; i++)
        first += f->rets[i].space == PTX_SPACE_REG;
    for (uint32_t i = 0; i < f->nparams; i++)
        first += f->params[i].space == PTX_SPACE_REG;
    for (uint32_t i = first; i < f->nregs;) {
        const ptx_reg *r = &f->regs[i];
        size_t pl = strlen(r->name);
        uint32_t n = 1;
        if (pl > 1 && r->name[pl - 1] == '0' && !(r->name[pl - 2] >= '0' && r->name[pl - 2] <= '9')) {
            pl--;
            char want[24];
            while (i + n < f->nregs) {
                const ptx_reg *q = &f->regs[i + n];
                snprintf(want, sizeof want, "%u", n);
                if (q->type != r->type || q->vec != r->vec || strncmp(q->name, r->name, pl) ||
                    strcmp(q->name + pl, want))
                    break;
                n++;
            }
        }
        out(b, "\t.reg");
        if (r->vec > 1)
            out(b, " .v%u", r->vec);
        if (n > 1)
            out(b, " .%s %.*s<%u>;\n", ptx_type_name(r->type), (int)pl, r->name, n);
        else
            out(b, " .%s %s;\n", ptx_type_name(r->type), r->name);
        i += n;
    }
}

static void print_protos(sbuf *b, const ptx_module *m, const ptx_func *f)
{
    for (uint32_t i = 0; i < f->nins; i++) {
        const ptx_ins *ins = &f->ins[i];
        if (ins->op != PTX_OP_call || !ins->nopnds)
            continue;
        const ptx_opnd *o = &ins->opnds[ins->nopnds - 1];
        if (o->kind != PTX_OPND_SYM || !is_proto(m, o->func))
            continue;
        bool seen = false;   /* written for an earlier call already? */
        for (uint32_t j = 0; j < i && !seen; j++) {
            const ptx_ins *pj = &f->ins[j];
            seen = pj->op == PTX_OP_call && pj->nopnds &&
                   pj->opnds[pj->nopnds - 1].func == o->func;
        }
        if (seen)
            continue;
        const ptx_func *pr = o->func;
        out(b, "%s: .callprototype ", pr->name);
        if (pr->nrets) {
            print_params(b, pr->rets, pr->nrets);
            out(b, " ");
        }
        out(b, "_ ");
        print_params(b, pr->params, pr->nparams);
        out(b, "%s;\n", pr->noreturn ? " .noreturn" : "");
    }
}

static void print_body(sbuf *b, const ptx_module *m, const ptx_func *f)
{
    out(b, "\n{\n");
    for (uint32_t i = 0; i < f->nlocals; i++) {
        out(b, "\t");
        print_var(b, &f->locals[i], false);
        out(b, ";\n");
    }
    print_regs(b, f);
    print_protos(b, m, f);
    /* label indices ordered by position (counting sort: positions are
     * 0..nins) so that the body is written in one pass */
    uint32_t *start = calloc((size_t)f->nins + 2, sizeof *start);
    uint32_t *order = malloc(((size_t)f->nlabels + 1) * sizeof *order);
    if (!start || !order)
        zn_die("ptx: out of memory");
    for (uint32_t li = 0; li < f->nlabels; li++)
        start[f->labels[li].ins + 1]++;
    for (uint32_t i = 0; i <= f->nins; i++)
        start[i + 1] += start[i];
    for (uint32_t li = 0; li < f->nlabels; li++)
        order[start[f->labels[li].ins]++] = li;
    /* .loc is written when it differs from the last one WRITTEN (what a
     * re-parse will hold), not from the previous instruction's: a .loc
     * naming an unknown file is not written, and the re-parse gives its
     * instruction the .loc before it */
    uint32_t loc_file = 0, loc_line = 0;
    for (uint32_t i = 0, li = 0; i <= f->nins; i++) {
        for (; li < f->nlabels && f->labels[order[li]].ins == i; li++)
            out(b, "%s:\n", f->labels[order[li]].name);
        if (i < f->nins) {
            const ptx_ins *ins = &f->ins[i];
            if (ins->loc_file && ins->loc_file < m->nfiles && m->files[ins->loc_file] &&
                (loc_line != ins->loc_line || loc_file != ins->loc_file)) {
                out(b, "\t.loc %u %u 0\n", ins->loc_file, ins->loc_line);
                loc_file = ins->loc_file;
                loc_line = ins->loc_line;
            }
            print_ins(b, f, ins, i);
        }
    }
    free(start);
    free(order);
    out(b, "}\n");
}

char *ptx_print(const ptx_module *m)
{
    sbuf b = { 0 };
    out(&b, "//\n// Printed by Zinc's PTX front end\n//\n\n");
    out(&b, ".version %u.%u\n", m->version_major, m->version_minor);
    if (m->target[0])
        out(&b, ".target %s\n", m->target);
    out(&b, ".address_size %u\n\n", m->address_size ? m->address_size : 64);
    for (uint32_t i = 0; i < m->nfiles; i++)
        if (m->files[i])
            out(&b, ".file %u \"%s\"\n", i, m->files[i]);
    /* one prototype per .func name, so any order of use is fine */
    for (uint32_t i = 0; i < m->nfuncs; i++) {
        const ptx_func *f = &m->funcs[i];
        if (f->is_entry || ptx_find_func(m, f->name) != f)
            continue;
        print_signature(&b, f);
        out(&b, ";\n");
    }
    out(&b, "\n");
    for (uint32_t i = 0; i < m->nvars; i++) {
        print_var(&b, &m->vars[i], true);
        out(&b, ";\n");
    }
    for (uint32_t i = 0; i < m->nfuncs; i++) {
        const ptx_func *f = &m->funcs[i];
        if (f->is_decl)
            continue;
        out(&b, "\n");
        print_signature(&b, f);
        print_body(&b, m, f);
    }
    return b.s;
}
