/* zn_lower_invariant.c: registers whose value in each lane never changes
 * while the warp runs, so that their writes need no execution mask.
 *
 * A register write is normally select(mask, new, old): lanes outside the
 * mask keep their value. For a register with ONE static definition that is
 * a pure function of time-invariant inputs (immediates, kernel parameters,
 * %tid/%ntid/%ctaid..., symbol addresses, and other such registers), every
 * execution of the definition computes the same value for a given lane. So
 * writing all 32 lanes is exact: a lane that ran the definition before gets
 * its own value back, and a lane that never ran it would read an undefined
 * register. The write is then a plain SSA value; the definition in the entry
 * block dominates every use, mem2reg needs no phis, and LLVM can see that
 * e.g. a parameter is a splat and keep it scalar.
 *
 * Least fixed point: a register starts variant and becomes invariant once
 * every source of its definition is, so `r = r + 1` in a loop never does. */
#include "zn_lower.h"

#include <stdlib.h>

bool zn_op_is_pure(ptx_op op)
{
    switch (op) {
    case PTX_OP_add: case PTX_OP_sub: case PTX_OP_mul: case PTX_OP_mad:
    case PTX_OP_div: case PTX_OP_abs: case PTX_OP_neg: case PTX_OP_min:
    case PTX_OP_max: case PTX_OP_rem: case PTX_OP_mul24: case PTX_OP_mad24:
    case PTX_OP_sad:
    case PTX_OP_and: case PTX_OP_or: case PTX_OP_xor: case PTX_OP_not:
    case PTX_OP_cnot: case PTX_OP_shl: case PTX_OP_shr: case PTX_OP_bfe:
    case PTX_OP_bfi: case PTX_OP_bfind: case PTX_OP_brev: case PTX_OP_clz:
    case PTX_OP_popc: case PTX_OP_prmt: case PTX_OP_lop3: case PTX_OP_shf:
    case PTX_OP_bmsk: case PTX_OP_szext: case PTX_OP_dp4a: case PTX_OP_dp2a:
    case PTX_OP_vadd2: case PTX_OP_vadd4: case PTX_OP_vsub2: case PTX_OP_vsub4:
    case PTX_OP_vavrg2: case PTX_OP_vavrg4: case PTX_OP_vabsdiff2: case PTX_OP_vabsdiff4:
    case PTX_OP_vmin2: case PTX_OP_vmin4: case PTX_OP_vmax2: case PTX_OP_vmax4:
    case PTX_OP_vset2: case PTX_OP_vset4: case PTX_OP_vadd: case PTX_OP_vsub:
    case PTX_OP_vabsdiff: case PTX_OP_vmin: case PTX_OP_vmax: case PTX_OP_vshl:
    case PTX_OP_vshr: case PTX_OP_vmad: case PTX_OP_vset:
    case PTX_OP_fma: case PTX_OP_rcp: case PTX_OP_sqrt: case PTX_OP_rsqrt:
    case PTX_OP_ex2: case PTX_OP_lg2: case PTX_OP_sin: case PTX_OP_cos:
    case PTX_OP_tanh: case PTX_OP_copysign: case PTX_OP_testp:
    case PTX_OP_setp: case PTX_OP_set: case PTX_OP_selp: case PTX_OP_slct:
    case PTX_OP_cvt: case PTX_OP_mov: case PTX_OP_cvta: case PTX_OP_isspacep:
        return true;
    default: /* addc/subc/madc read the carry flag; loads, warp ops, ... */
        return false;
    }
}

static bool sreg_invariant(ptx_sreg s)
{
    switch (s) {
    case PTX_SREG_CLOCK: case PTX_SREG_CLOCK_HI: case PTX_SREG_CLOCK64:
    case PTX_SREG_GLOBALTIMER: case PTX_SREG_GLOBALTIMER_LO:
    case PTX_SREG_GLOBALTIMER_HI:
        return false;
    default:
        return true;
    }
}

/* ld.param of a kernel parameter: the same value all through the launch */
bool zn_is_kernel_param_load(zn_lfn *l, const ptx_ins *ins)
{
    if ((ins->op != PTX_OP_ld && ins->op != PTX_OP_ldu) || !l->is_entry ||
        (ins->space != PTX_SPACE_PARAM && ins->space != PTX_SPACE_GENERIC))
        return false;
    const ptx_opnd *a = &ins->opnds[1];
    uint32_t idx;
    const ptx_var *v;
    return a->kind == PTX_OPND_ADDR && a->reg < 0 &&
           zn_var_find(l, a, &idx, &v) == ZN_VAR_PARAM;
}

/* Calls f on every register an operand names. */
void zn_each_reg(const ptx_opnd *o, void (*f)(int32_t, void *), void *ud)
{
    switch (o->kind) {
    case PTX_OPND_REG:
        f(o->reg, ud);
        if (o->reg2 >= 0)
            f(o->reg2, ud);
        return;
    case PTX_OPND_ADDR:
        if (o->reg >= 0)
            f(o->reg, ud);
        /* tex/tld4/suld/sust: [handle, {coordinates}] reads the coordinates */
        for (uint32_t i = 0; i < o->nelems; i++)
            zn_each_reg(&o->elems[i], f, ud);
        return;
    case PTX_OPND_VEC:
        for (uint32_t i = 0; i < o->nelems; i++)
            zn_each_reg(&o->elems[i], f, ud);
        if (o->reg2 >= 0) /* tex {d}|p */
            f(o->reg2, ud);
        return;
    case PTX_OPND_LIST:
        /* a call's (results) and (arguments) of .reg parameters: missing
         * them left a call's result registers undefined to the analyses,
         * so a .func's per-lane result counted as uniform */
        for (uint32_t i = 0; i < o->nelems; i++)
            zn_each_reg(&o->elems[i], f, ud);
        return;
    default:
        return;
    }
}

void zn_each_def(const ptx_opnd *o, void (*f)(int32_t, void *), void *ud)
{
    if (o->kind != PTX_OPND_ADDR) /* st/red [addr]: the register is read */
        zn_each_reg(o, f, ud);
}

typedef struct defs_fill {
    uint32_t *start, *defs;
    uint32_t at;
    bool fill;
} defs_fill;

static void add_def(int32_t r, void *ud)
{
    defs_fill *d = ud;
    if (r < 0)
        return;
    if (d->fill)
        d->defs[d->start[r]++] = d->at;
    else
        d->start[r + 1]++;
}

bool zn_reg_defs(const ptx_func *f, uint32_t **start, uint32_t **defs)
{
    defs_fill d = {calloc((size_t)f->nregs + 1, sizeof *d.start), NULL, 0, false};
    if (!d.start)
        goto fail;
    for (d.at = 0; d.at < f->nins; d.at++)
        if (f->ins[d.at].nopnds)
            zn_each_def(&f->ins[d.at].opnds[0], add_def, &d);
    for (uint32_t r = 0; r < f->nregs; r++)
        d.start[r + 1] += d.start[r];
    if (!(d.defs = malloc(((size_t)d.start[f->nregs] + 1) * sizeof *d.defs)))
        goto fail;
    /* fill with start as cursors, then shift it back */
    d.fill = true;
    for (d.at = 0; d.at < f->nins; d.at++)
        if (f->ins[d.at].nopnds)
            zn_each_def(&f->ins[d.at].opnds[0], add_def, &d);
    for (uint32_t r = f->nregs; r > 0; r--)
        d.start[r] = d.start[r - 1];
    d.start[0] = 0;
    *start = d.start;
    *defs = d.defs;
    return true;
fail:
    free(d.start);
    *start = *defs = NULL;
    return false;
}

void zn_reg_hit_cb(int32_t r, void *ud)
{
    zn_reg_hit *h = ud;
    for (uint32_t k = 0; k < h->n; k++)
        h->hit |= r >= 0 && r == h->r[k];
}

bool zn_ins_touches(const ptx_ins *ins, const int32_t *r, uint32_t n, bool reads_too)
{
    zn_reg_hit h = {r, n, false};
    if (ins->nopnds)
        zn_each_def(&ins->opnds[0], zn_reg_hit_cb, &h);
    for (uint32_t o = 0; reads_too && o < ins->nopnds; o++)
        zn_each_reg(&ins->opnds[o], zn_reg_hit_cb, &h);
    if (reads_too && ins->guard_reg >= 0)
        zn_reg_hit_cb(ins->guard_reg, &h);
    return h.hit;
}

typedef struct inv_state {
    uint32_t nregs;
    uint32_t *ndefs;
    int32_t *def;        /* the defining instruction when ndefs == 1 */
    bool *inv;
    int32_t cur;
    bool ok;
} inv_state;

static void count_def(int32_t r, void *ud)
{
    inv_state *s = ud;
    if (r >= 0 && (uint32_t)r < s->nregs) {
        s->ndefs[r]++;
        s->def[r] = s->cur;
    }
}

static void need_inv(int32_t r, void *ud)
{
    inv_state *s = ud;
    if (r < 0 || (uint32_t)r >= s->nregs || !s->inv[r])
        s->ok = false;
}

static bool sources_invariant(inv_state *s, const ptx_ins *ins)
{
    s->ok = true;
    if (ins->guard_reg >= 0)
        need_inv(ins->guard_reg, s);
    for (uint32_t i = 1; i < ins->nopnds && s->ok; i++) {
        const ptx_opnd *o = &ins->opnds[i];
        if (o->kind == PTX_OPND_SREG && !sreg_invariant(o->sreg))
            s->ok = false;
        zn_each_reg(o, need_inv, s);
    }
    return s->ok;
}

void zn_invariant_regs(zn_lfn *l)
{
    const ptx_func *f = l->f;
    inv_state s = {.nregs = f->nregs};
    s.ndefs = calloc(f->nregs + 1, sizeof *s.ndefs);
    s.def = calloc(f->nregs + 1, sizeof *s.def);
    s.inv = calloc(f->nregs + 1, sizeof *s.inv);
    /* every register named by a first operand counts as written (a source
     * there, as in `bar.sync %r1`, only makes the analysis more cautious),
     * except the address of st/red */
    for (uint32_t i = 0; i < f->nins; i++) {
        s.cur = (int32_t)i;
        if (f->ins[i].nopnds)
            zn_each_def(&f->ins[i].opnds[0], count_def, &s);
    }
    bool *cand = calloc(f->nregs + 1, sizeof *cand);
    for (uint32_t r = 0; r < f->nregs; r++) {
        if (s.ndefs[r] != 1)
            continue;
        const ptx_ins *ins = &f->ins[s.def[r]];
        const ptx_opnd *d = &ins->opnds[0];
        /* plain register destinations only: pairs and {vec} splits write
         * through other paths */
        cand[r] = d->kind == PTX_OPND_REG && d->reg2 < 0 && d->reg == (int32_t)r &&
                  (zn_op_is_pure(ins->op) || zn_is_kernel_param_load(l, ins)) &&
                  !(ins->flags & PTX_F(cc));
    }
    for (bool changed = true; changed;) {
        changed = false;
        for (uint32_t r = 0; r < f->nregs; r++)
            if (cand[r] && !s.inv[r] && sources_invariant(&s, &f->ins[s.def[r]])) {
                s.inv[r] = true;
                changed = true;
            }
    }
    free(cand);
    for (uint32_t r = 0; r < f->nregs; r++)
        if (s.ndefs[r] != 1)
            s.def[r] = -1;
    free(s.ndefs);
    l->reg_def = s.def; /* for the affine-address analysis */
    l->reg_inv = s.inv;
}
