/* zn_lower_prefetch.c: software prefetch for loads that stride far in a
 * loop, for loads and stores that stream block by block, and PTX's own
 * prefetch instructions; the same loop and step facts find grid-stride
 * loops for zn_lower_coro.c (zn_grid_loops).
 *
 * A warp runs a grid-stride loop (`for (i = tid; i < n; i += gridDim.x *
 * blockDim.x)`) by itself, iteration after iteration, each load
 * gridDim.x * blockDim.x elements past the last: a stride of tens of KiB,
 * a new page every time, which the CPU's prefetchers do not follow. Every
 * iteration then waits for DRAM (bench/histogram: 128 blocks of 256
 * threads, 32 KiB per step, about 100 ns per warp iteration). For a
 * global or generic load (or store: prefetched for writing, saving the
 * read-for-ownership wait) in a loop whose address moves by the same amount
 * every iteration by a multiple of a register computed from %nctaid (the
 * grid's size), when that step is a page or more beyond the bytes the
 * loop's accesses through the same register span (tested at run time),
 * the load is preceded by a prefetch of the lines ZN_PF_AHEAD iterations
 * ahead (lanes 0 and 31).
 *
 * The same far run-time step with a small constant step from one block to
 * the next in x (a loop over a tile's rows, `in[(by + j) * w + bx + tx]`
 * with j += blockDim.y: bench/transpose) gets a prefetch of the lines the
 * block ZN_PF_BLOCKS_AHEAD blocks on will read: a worker runs consecutive
 * blocks, and a block's 32 row streams (64 with the stores) are more than
 * the hardware tracks (transpose 65-82 -> 40-47 ms under the same load).
 * Other walks are left to the hardware: prefetching every far step made
 * bench/softmax (blockDim.x strides) 1.2x slower and bench/mmvq (a loop
 * unrolled over its whole constant 4352-byte step, read through several
 * registers) 1.1-2x, and even the run-time test costs sgemm and softmax
 * 3-4%. Loads and stores outside loops that move from block to block
 * prefetch ZN_PF_BLOCKS_AHEAD blocks on too, which ones depending on the
 * CPU's own prefetchers (stream_ahead: Intel's and AMD Zen's differ).
 *
 * The steps are found on the PTX. Per iteration: a loop is a backward
 * `bra` (body [target, branch]); a register written nowhere in the body is
 * invariant, one written once as `r = r + u` (u invariant) is an induction
 * register stepping by u, and add/sub/mov/cvt/cvta/mul/mul.wide/mad/shl of
 * those, written once in the body, step by the matching combination (a
 * step may be a constant times one or two registers); any other pure
 * integer operation of invariant sources is invariant. Per block: the same
 * rules over every write in the function, %ctaid.x stepping by 1, kernel
 * parameters invariant, and a register's writes all agreeing (`r = r + u`
 * agrees with any). A prefetch is a hint: a wrong step (a definition
 * skipped in some iterations, 32-bit wrap-around) costs a useless
 * prefetch, never a wrong result or a fault. */
#include "zn_lower.h"

#include <stdlib.h>

#define ZN_PF_AHEAD 8          /* iterations ahead */
#define ZN_PF_BLOCKS_AHEAD 4   /* blocks ahead (tiles' rows, streams) */
#define ZN_PF_MIN_GAP 4096     /* gaps below a page are the hardware's */
#define ZN_PF_MIN_STREAM 512   /* constant steps per block the hardware follows */
#define ZN_PF_DEPTH 16         /* definitions followed, one chain */
#define ZN_PF_WORK 4096        /* registers visited, one walk */

/* a step: scale * sext64(register reg) * sext64(register reg2), either
 * register absent when < 0 (both: the constant scale) */
typedef struct pf_step {
    int32_t reg, reg2;
    int64_t scale;
} pf_step;

/* PF_SELF (ctaid walks): an operand that is the register being defined,
 * as in r = r + 4: consistent with whatever r's other definitions say */
enum { PF_FAIL, PF_INV, PF_STEP, PF_SELF };

/* steps wrap like the registers they come from (no overflow to trap on) */
static int64_t wrap_mul(int64_t a, int64_t b)
{
    return (int64_t)((uint64_t)a * (uint64_t)b);
}

struct zn_pf_plan {
    uint32_t nloops;
    uint32_t *head, *latch;    /* loop bodies [head, latch] */
    uint32_t *def_start;       /* per register: its writes in defs[] */
    uint32_t *defs;
    int8_t *blk_kind;          /* per register: its step per block (ctaid walks), */
    pf_step *blk_step;         /* computed once: kind + 1 (0 = not yet) */
};

/* loops and every register's writes (the first operand counts as written,
 * as in zn_lower_invariant.c: only more cautious where it is a source) */
static struct zn_pf_plan *plan_build(const ptx_func *f)
{
    struct zn_pf_plan *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->head = malloc((f->nins + 1) * sizeof *p->head);
    p->latch = malloc((f->nins + 1) * sizeof *p->latch);
    p->blk_kind = calloc(f->nregs + 1, sizeof *p->blk_kind);
    p->blk_step = calloc(f->nregs + 1, sizeof *p->blk_step);
    if (!p->head || !p->latch || !p->blk_kind || !p->blk_step)
        return p;
    for (uint32_t i = 0; i < f->nins; i++) {
        const ptx_ins *ins = &f->ins[i];
        if (ins->op == PTX_OP_bra && ins->nopnds >= 1 && ins->opnds[0].kind == PTX_OPND_LABEL &&
            ins->opnds[0].label >= 0 && (uint32_t)ins->opnds[0].label < f->nlabels) {
            uint32_t t = f->labels[ins->opnds[0].label].ins;
            if (t <= i) {
                p->head[p->nloops] = t;
                p->latch[p->nloops++] = i;
            }
        }
    }
    zn_reg_defs(f, &p->def_start, &p->defs);   /* NULL without memory */
    return p;
}

static void plan_free(struct zn_pf_plan *p)
{
    if (!p)
        return;
    free(p->head);
    free(p->latch);
    free(p->def_start);
    free(p->defs);
    free(p->blk_kind);
    free(p->blk_step);
    free(p);
}

void zn_prefetch_free(zn_lfn *l)
{
    plan_free(l->pf_plan);
    l->pf_plan = NULL;
}

/* the function's plan, built on first use; NULL when out of memory */
static struct zn_pf_plan *plan_of(zn_lfn *l)
{
    if (!l->pf_plan)
        l->pf_plan = plan_build(l->f);
    struct zn_pf_plan *p = l->pf_plan;
    return p && p->defs && p->blk_step ? p : NULL;
}

/* the innermost loop holding instruction at, or UINT32_MAX */
static uint32_t innermost_loop(const struct zn_pf_plan *p, uint32_t at)
{
    uint32_t best = UINT32_MAX;
    for (uint32_t k = 0; k < p->nloops; k++)
        if (p->head[k] <= at && at <= p->latch[k] &&
            (best == UINT32_MAX || p->latch[k] - p->head[k] < p->latch[best] - p->head[best]))
            best = k;
    return best;
}

/* A walk finds how a register's value moves: per iteration of the loop
 * [head, latch] (its writes there), or, `ctaid`, from one block to the
 * next in x (all its writes in the function; %ctaid.x steps by 1). */
typedef struct pf_walk {
    zn_lfn *l;
    struct zn_pf_plan *p;
    uint32_t head, latch;
    bool ctaid;
    int32_t self;              /* ctaid: the register being defined */
    unsigned work;             /* registers visited so far */
} pf_walk;

static int step_of(pf_walk *w, const ptx_opnd *o, int depth, pf_step *out);

/* a + b (sign -1: a - b) of two operands' steps */
static int combine(int ka, pf_step a, int kb, pf_step b, int64_t sign, pf_step *out)
{
    if (ka == PF_FAIL || kb == PF_FAIL)
        return PF_FAIL;
    if (ka == PF_SELF || kb == PF_SELF)   /* r + invariant: r's own step */
        return (ka == PF_SELF && kb == PF_INV) || (kb == PF_SELF && ka == PF_INV && sign > 0)
                   ? PF_SELF : PF_FAIL;
    if (kb == PF_INV) {
        *out = a;
        return ka;
    }
    b.scale = wrap_mul(b.scale, sign);
    if (ka == PF_INV) {
        *out = b;
        return PF_STEP;
    }
    if (a.reg != b.reg || a.reg2 != b.reg2)
        return PF_FAIL;
    *out = (pf_step){a.reg, a.reg2, (int64_t)((uint64_t)a.scale + (uint64_t)b.scale)};
    return PF_STEP;
}

/* x * y where at most one steps: a step times an immediate, or a constant
 * step times an invariant register (i += 1 with a run-time pitch) */
static int product(pf_walk *w, const ptx_opnd *x, const ptx_opnd *y, int depth, pf_step *out)
{
    pf_step a, b;
    int ka = step_of(w, x, depth, &a), kb = step_of(w, y, depth, &b);
    if (ka == PF_FAIL || kb == PF_FAIL || ka == PF_SELF || kb == PF_SELF)
        return PF_FAIL;
    if (ka == PF_INV && kb == PF_INV)
        return PF_INV;
    if (ka == PF_INV) {
        const ptx_opnd *t = x;
        x = y;
        y = t;
        a = b;
    }
    if (y->kind == PTX_OPND_IMM) {
        *out = (pf_step){a.reg, a.reg2, wrap_mul(a.scale, y->ival)};
        return PF_STEP;
    }
    /* a step times an invariant register: the row pitch of a loop over
     * rows (i += ntid.y; p = base + i * w) */
    if (a.reg2 < 0 && y->kind == PTX_OPND_REG && y->reg2 < 0 && !y->neg && (ka == PF_INV || kb == PF_INV)) {
        *out = a.reg < 0 ? (pf_step){y->reg, -1, a.scale} : (pf_step){a.reg, y->reg, a.scale};
        return PF_STEP;
    }
    return PF_FAIL;
}

static bool int_type(ptx_type t)
{
    return !ptx_type_is_float(t) && t != PTX_T_PRED && ptx_type_size(t) >= 1 &&
           ptx_type_size(t) <= 8;
}

/* a pure integer operation, whose result is invariant where its sources
 * are (CUB's `(tid & -32) * 15 | (tid & 31)` lane offsets) */
static bool pure_int_op(ptx_op op)
{
    switch (op) {
    case PTX_OP_and: case PTX_OP_or: case PTX_OP_xor: case PTX_OP_not: case PTX_OP_shl:
    case PTX_OP_shr: case PTX_OP_min: case PTX_OP_max: case PTX_OP_neg: case PTX_OP_abs:
    case PTX_OP_div: case PTX_OP_rem: case PTX_OP_bfe: case PTX_OP_bfi: case PTX_OP_brev:
    case PTX_OP_clz: case PTX_OP_popc: case PTX_OP_prmt: case PTX_OP_sad: case PTX_OP_mul24:
    case PTX_OP_mad24: case PTX_OP_bmsk: case PTX_OP_szext: case PTX_OP_mul: case PTX_OP_mad:
        return true;
    default:
        return false;
    }
}

static int invariant_sources(pf_walk *w, const ptx_ins *d, int depth)
{
    pf_step a;
    if (!pure_int_op(d->op))
        return PF_FAIL;
    for (uint32_t k = 1; k < d->nopnds; k++)
        if (step_of(w, &d->opnds[k], depth + 1, &a) != PF_INV)
            return PF_FAIL;
    return PF_INV;
}

/* the step that definition d gives register r */
static int def_step(pf_walk *w, const ptx_ins *d, int32_t r, int depth, pf_step *out)
{
    const ptx_opnd *o = d->opnds;
    if (zn_is_kernel_param_load(w->l, d) && o[0].kind == PTX_OPND_REG && o[0].reg2 < 0)
        return PF_INV;   /* the same in every iteration and block */
    if (d->guard_reg >= 0 || o[0].kind != PTX_OPND_REG || o[0].reg != r || o[0].reg2 >= 0 ||
        (d->flags & PTX_F(cc)) || !int_type(d->type[0]))
        return PF_FAIL;
    pf_step a, b;
    switch (d->op) {
    case PTX_OP_add: case PTX_OP_sub: {
        if (d->nopnds != 3)
            return PF_FAIL;
        int64_t sign = d->op == PTX_OP_sub ? -1 : 1;
        /* in a loop, r = r + u (or u + r) is the induction register itself */
        bool self1 = o[1].kind == PTX_OPND_REG && o[1].reg == r;
        bool self2 = d->op == PTX_OP_add && o[2].kind == PTX_OPND_REG && o[2].reg == r;
        if ((self1 || self2) && !w->ctaid) {
            const ptx_opnd *u = self1 ? &o[2] : &o[1];
            if (u->kind == PTX_OPND_IMM) {
                *out = (pf_step){-1, -1, wrap_mul(sign, u->ival)};
                return PF_STEP;
            }
            if (u->kind != PTX_OPND_REG || u->reg2 >= 0 || u->neg ||
                step_of(w, u, depth + 1, &a) != PF_INV)
                return PF_FAIL;
            *out = (pf_step){u->reg, -1, sign};
            return PF_STEP;
        }
        int ka = step_of(w, &o[1], depth + 1, &a), kb = step_of(w, &o[2], depth + 1, &b);
        return combine(ka, a, kb, b, sign, out);
    }
    case PTX_OP_mov: case PTX_OP_cvta: case PTX_OP_cvt:
        if (d->nopnds != 2 || (d->op == PTX_OP_cvt && (d->ntypes < 2 || !int_type(d->type[1]))))
            return PF_FAIL;
        return step_of(w, &o[1], depth + 1, out);
    case PTX_OP_mul:
        if (d->nopnds != 3 || (d->flags & PTX_F(hi_half)))
            return invariant_sources(w, d, depth);
        return product(w, &o[1], &o[2], depth + 1, out);
    case PTX_OP_mad: {
        if (d->nopnds != 4 || (d->flags & PTX_F(hi_half)))
            return invariant_sources(w, d, depth);
        int ka = product(w, &o[1], &o[2], depth + 1, &a), kb = step_of(w, &o[3], depth + 1, &b);
        return combine(ka, a, kb, b, 1, out);
    }
    case PTX_OP_shl: {
        if (d->nopnds != 3 || o[2].kind != PTX_OPND_IMM || o[2].ival < 0 || o[2].ival > 32)
            return invariant_sources(w, d, depth);
        int ka = step_of(w, &o[1], depth + 1, &a);
        if (ka == PF_SELF)
            return PF_FAIL;
        if (ka == PF_STEP)
            a.scale = wrap_mul(a.scale, (int64_t)1 << o[2].ival);
        *out = a;
        return ka;
    }
    default:
        return invariant_sources(w, d, depth);
    }
}

/* the step of register r's value per iteration of the walk's loop (its one
 * write there), or per block (every write agreeing, ctaid walks) */
static int reg_step(pf_walk *w, int32_t r, int depth, pf_step *out)
{
    const ptx_func *f = w->l->f;
    struct zn_pf_plan *p = w->p;
    if (depth >= ZN_PF_DEPTH || ++w->work > ZN_PF_WORK)
        return PF_FAIL;
    if (!w->ctaid) {
        uint32_t n = 0, at = 0;
        for (uint32_t k = p->def_start[r]; k < p->def_start[r + 1]; k++) {
            uint32_t i = p->defs[k];
            if (i >= w->head && i <= w->latch) {
                n++;
                at = i;
            }
        }
        if (n == 0)
            return PF_INV;
        return n > 1 ? PF_FAIL : def_step(w, &f->ins[at], r, depth, out);
    }
    if (r == w->self)
        return PF_SELF;
    if (p->blk_kind[r]) {
        *out = p->blk_step[r];
        return p->blk_kind[r] - 1;
    }
    int32_t outer = w->self;
    w->self = r;
    /* every definition must give the same step (PF_SELF ones any) */
    int kind = PF_INV;
    bool inv_seen = false, step_seen = false;
    pf_step st = {-1, -1, 0};
    for (uint32_t k = p->def_start[r]; k < p->def_start[r + 1] && kind != PF_FAIL; k++) {
        pf_step s1;
        int k1 = def_step(w, &f->ins[p->defs[k]], r, depth, &s1);
        if (k1 == PF_SELF)
            continue;
        if (k1 == PF_INV)
            inv_seen = true;
        else if (k1 == PF_STEP && (!step_seen || (s1.reg == st.reg && s1.reg2 == st.reg2 &&
                                                   s1.scale == st.scale))) {
            step_seen = true;
            st = s1;
        } else
            kind = PF_FAIL;
    }
    if (kind != PF_FAIL)
        kind = inv_seen && step_seen ? PF_FAIL : step_seen ? PF_STEP : PF_INV;
    w->self = outer;
    /* results that leaned on an outer register being defined are not
     * this register's alone: not kept */
    if (outer < 0) {
        p->blk_kind[r] = (int8_t)(kind + 1);
        p->blk_step[r] = st;
    }
    *out = st;
    return kind;
}

static int step_of(pf_walk *w, const ptx_opnd *o, int depth, pf_step *out)
{
    switch (o->kind) {
    case PTX_OPND_IMM: case PTX_OPND_SYM:
        return PF_INV;
    case PTX_OPND_SREG:
        if (w->ctaid && o->sreg == PTX_SREG_CTAID_X) {
            *out = (pf_step){-1, -1, 1};
            return PF_STEP;
        }
        return o->sreg == PTX_SREG_CLOCK || o->sreg == PTX_SREG_CLOCK_HI ||
               o->sreg == PTX_SREG_CLOCK64 ? PF_FAIL : PF_INV;
    case PTX_OPND_REG:
        if (o->reg2 >= 0 || o->neg)
            return PF_FAIL;
        return reg_step(w, o->reg, depth, out);
    default:
        return PF_FAIL;
    }
}

/* r's value is computed from %nctaid (written once in the function, as
 * the stride of a grid-stride loop is) */
static bool grid_derived(const ptx_func *f, const struct zn_pf_plan *p, int32_t r, int depth)
{
    if (depth > ZN_PF_DEPTH || p->def_start[r + 1] - p->def_start[r] != 1)
        return false;
    const ptx_ins *d = &f->ins[p->defs[p->def_start[r]]];
    for (uint32_t k = 1; k < d->nopnds; k++) {
        const ptx_opnd *o = &d->opnds[k];
        if (o->kind == PTX_OPND_SREG && (o->sreg == PTX_SREG_NCTAID_X ||
                                         o->sreg == PTX_SREG_NCTAID_Y || o->sreg == PTX_SREG_NCTAID_Z))
            return true;
        if (o->kind == PTX_OPND_REG && o->reg != r && grid_derived(f, p, o->reg, depth + 1))
            return true;
    }
    return false;
}

/* The loop [head, latch] steps by a grid-sized amount: an add in its body
 * takes a register computed from %nctaid and written outside the body
 * (`i += gridDim.x * blockDim.x`, or nvcc's unrolled chains of
 * `p = q + 4 * stride`). */
static bool grid_step(const ptx_func *f, const struct zn_pf_plan *p, uint32_t head,
                      uint32_t latch, const ptx_ins *ins)
{
    if (ins->op != PTX_OP_add || ins->nopnds != 3)
        return false;
    for (int k = 1; k < 3; k++) {
        const ptx_opnd *u = &ins->opnds[k];
        if (u->kind != PTX_OPND_REG || u->reg2 >= 0 || !grid_derived(f, p, u->reg, 0))
            continue;
        bool inside = false;
        for (uint32_t d = p->def_start[u->reg]; d < p->def_start[u->reg + 1]; d++)
            inside |= p->defs[d] >= head && p->defs[d] <= latch;
        if (!inside)
            return true;
    }
    return false;
}

static bool global_access(const ptx_ins *ins)
{
    return (ins->op == PTX_OP_ld || ins->op == PTX_OP_st || ins->op == PTX_OP_atom ||
            ins->op == PTX_OP_red) &&
           (ins->space == PTX_SPACE_GLOBAL || ins->space == PTX_SPACE_GENERIC);
}

bool zn_grid_loops(const ptx_func *f, uint8_t *latch)
{
    struct zn_pf_plan *p = plan_build(f);
    bool any = false;
    for (uint32_t k = 0; p && p->defs && k < p->nloops && (latch || !any); k++) {
        bool step = false, mem = false;
        for (uint32_t i = p->head[k]; i <= p->latch[k]; i++) {
            step |= grid_step(f, p, p->head[k], p->latch[k], &f->ins[i]);
            mem |= global_access(&f->ins[i]);
        }
        if (step && mem) {
            any = true;
            if (latch)
                latch[p->latch[k]] = 1;
        }
    }
    plan_free(p);
    return any;
}

/* the step's registers are integers (a step read from them makes sense) */
static bool int_regs(const ptx_func *f, pf_step s)
{
    return (s.reg < 0 || int_type(f->regs[s.reg].type)) &&
           (s.reg2 < 0 || int_type(f->regs[s.reg2].type));
}

/* the step of address a of the access in loop `loop` per iteration, when
 * it is a multiple of a register (a run-time amount) */
static bool access_step(zn_lfn *l, const struct zn_pf_plan *p, uint32_t loop, const ptx_opnd *a,
                        pf_step *out)
{
    pf_walk w = {.l = l, .p = (struct zn_pf_plan *)p, .head = p->head[loop],
                 .latch = p->latch[loop], .self = -1};
    ptx_opnd r = {.kind = PTX_OPND_REG, .reg = a->reg, .reg2 = -1};
    /* constant steps are left alone: a large one is mostly a loop unrolled
     * over it, whose loads through several registers read it all */
    return step_of(&w, &r, 0, out) == PF_STEP && out->scale != 0 && out->reg >= 0 &&
           int_regs(l->f, *out);
}

/* the step of address a from one block to the next in x (ctaid walk) */
static bool block_step(zn_lfn *l, const ptx_opnd *a, pf_step *out)
{
    pf_walk w = {.l = l, .p = l->pf_plan, .head = 0, .latch = l->f->nins ? l->f->nins - 1 : 0,
                 .ctaid = true, .self = -1};
    ptx_opnd r = {.kind = PTX_OPND_REG, .reg = a->reg, .reg2 = -1};
    return step_of(&w, &r, 0, out) == PF_STEP && out->scale != 0 && int_regs(l->f, *out);
}

bool zn_prefetch_block_invariant(zn_lfn *l, const ptx_opnd *a)
{
    if (a->kind != PTX_OPND_ADDR)
        return false;
    if (a->reg < 0)
        return true;    /* a variable's address */
    struct zn_pf_plan *p = plan_of(l);
    if (!p)
        return false;
    pf_walk w = {.l = l, .p = p, .head = 0, .latch = l->f->nins ? l->f->nins - 1 : 0,
                 .ctaid = true, .self = -1};
    ptx_opnd r = {.kind = PTX_OPND_REG, .reg = a->reg, .reg2 = -1};
    pf_step s;
    return step_of(&w, &r, 0, &s) == PF_INV;
}

/* the bytes the accesses of loop `loop` through the register of address
 * a span around it per iteration (an unrolled loop reads its whole step) */
static int64_t loop_span(zn_lfn *l, const ptx_opnd *a, uint32_t loop)
{
    const struct zn_pf_plan *p = l->pf_plan;
    int64_t lo = a->ival, hi = a->ival;
    for (uint32_t i = p->head[loop]; i <= p->latch[loop]; i++)
        for (uint32_t k = 0; k < l->f->ins[i].nopnds; k++) {
            const ptx_opnd *o = &l->f->ins[i].opnds[k];
            if (o->kind == PTX_OPND_ADDR && o->reg == a->reg) {
                lo = o->ival < lo ? o->ival : lo;
                hi = o->ival > hi ? o->ival : hi;
            }
        }
    return hi - lo;
}

/* How far ahead to prefetch the load at `at`, whose loop steps by a
 * register: a grid stride (a multiple of %nctaid) ZN_PF_AHEAD steps, else
 * a small constant step per block in x (a tile's row in a loop over the
 * tile's rows, which the warp walks a page or more apart: many streams at
 * once, more than the hardware tracks) ZN_PF_BLOCKS_AHEAD blocks, the
 * blocks a worker runs next. 0: no prefetch. */
static int64_t blocks_ahead(zn_lfn *l, const ptx_opnd *a)
{
    pf_step c;
    if (!block_step(l, a, &c) || c.reg >= 0 || c.scale >= ZN_PF_MIN_GAP ||
        c.scale <= -ZN_PF_MIN_GAP)
        return 0;
    return c.scale * ZN_PF_BLOCKS_AHEAD;
}

/* the lines of lanes 0 and 31 of ptrs, moved by `ahead` bytes (NULL:
 * none). Constant lanes cost a register extract where the first active
 * lane would cost a spill of the whole address vector; an inactive lane's
 * address is merely a useless hint. */
static void prefetch_line(zn_lfn *l, LLVMValueRef p, bool write)
{
    zn_lmod *m = l->m;
    LLVMValueRef args[4] = {p, LLVMConstInt(m->t_i32, write, 0), LLVMConstInt(m->t_i32, 3, 0),
                            LLVMConstInt(m->t_i32, 1, 0)};
    LLVMTypeRef over = m->t_ptr;
    ll_intrin(l, "llvm.prefetch", &over, 1, args, 4);
}

static void prefetch_lanes(zn_lfn *l, LLVMValueRef ptrs, LLVMValueRef ahead, bool write)
{
    zn_lmod *m = l->m;
    LLVMBuilderRef b = l->b;
    for (unsigned k = 0; k < 2; k++) {
        LLVMValueRef p = LLVMBuildExtractElement(b, ptrs, LLVMConstInt(m->t_i32, k ? 31 : 0, 0), "");
        if (ahead)
            p = LLVMBuildGEP2(b, m->t_i8, p, &ahead, 1, "pf");
        prefetch_line(l, p, write);
    }
}

/* prefetch_lanes for the access being lowered (l->ins, address a): when
 * the affine walk proves lanes base + lane * s (zn_lower_affine.c), lanes
 * 0 and 31 come from its scalar lane-0 address, which the access computes
 * anyway, instead of two extracts from the <32 x i64> address vector (about
 * ten vector instructions per stream per warp: saxpy streams three). Its
 * run-time facts are not tested: a prefetch is a hint. */
static void prefetch_access(zn_lfn *l, const ptx_opnd *a, ptx_space space, LLVMValueRef ahead,
                            bool write)
{
    zn_aff_addr aa;
    if (!zn_affine_addr(l, &aa) || !aa.lin) {
        prefetch_lanes(l, zn_mem_ptrs(l, a, space), ahead, write);
        return;
    }
    zn_lmod *m = l->m;
    LLVMBuilderRef b = l->b;
    for (unsigned k = 0; k < 2; k++) {
        LLVMValueRef off = LLVMConstInt(m->t_i64, (uint64_t)(k ? 31 * aa.s : 0), 0);
        if (ahead)
            off = LLVMBuildAdd(b, off, ahead, "");
        prefetch_line(l, LLVMBuildIntToPtr(b, LLVMBuildAdd(b, aa.base, off, ""), m->t_ptr, "pf"),
                      write);
    }
}

/* times * the step s, lane 0's (the same in all lanes of the walks that
 * use it, though the divergence analysis may not know it) */
static LLVMValueRef step_bytes(zn_lfn *l, pf_step s, int64_t times)
{
    zn_lmod *m = l->m;
    LLVMBuilderRef b = l->b;
    LLVMValueRef step = LLVMConstInt(m->t_i64, (uint64_t)wrap_mul(s.scale, times), 0);
    for (int k = 0; k < 2; k++) {
        int32_t reg = k ? s.reg2 : s.reg;
        if (reg < 0)
            continue;
        LLVMValueRef v = LLVMBuildExtractElement(b, zn_load_reg(l, reg), LLVMConstInt(m->t_i32, 0, 0), "");
        if (LLVMTypeOf(v) != m->t_i64)
            v = LLVMBuildSExt(b, v, m->t_i64, "");
        step = LLVMBuildMul(b, step, v, "pf.step");
    }
    return step;
}

/* ZINC_NO_PREFETCH=1 (A/B runs) */
static bool prefetch_disabled(void)
{
    const char *e = getenv("ZINC_NO_PREFETCH");
    return e && *e && *e != '0';
}

/* global or generic, through a register, in the function being lowered */
static bool prefetchable(zn_lfn *l, const ptx_ins *ins, const ptx_opnd *a)
{
    return l->ins && l->ins >= l->f->ins && l->ins < l->f->ins + l->f->nins &&
           (ins->space == PTX_SPACE_GLOBAL || ins->space == PTX_SPACE_GENERIC) &&
           a->kind == PTX_OPND_ADDR && a->reg >= 0 && !prefetch_disabled();
}

/* A load or store outside every loop whose address moves from one block
 * to the next in x (saxpy's x[blockIdx.x * blockDim.x + threadIdx.x],
 * CUB's tile loads) is one stream per worker, block after block: it
 * prefetches (a store: for writing) the lines the block
 * ZN_PF_BLOCKS_AHEAD on will touch. On an Intel Xeon, saxpy 5.1-5.5 ->
 * 4.3-4.5 ms, triad 7.9-8.7 -> 6.2-6.7: the hardware's prefetchers, which
 * start again at every page, ran too little ahead of the warps. */
/* ZN_PF_MIN_LINE: a 2D block's constant step in x below a cache line
 * (a block writing one word) is no stream */
#define ZN_PF_MIN_LINE 64

static void stream_ahead(zn_lfn *l, const ptx_opnd *a, ptx_space space, bool write)
{
    /* Which streams the hardware follows differs by CPU. Intel's
     * prefetchers restart at every page, so a 1D block's stream (a
     * run-time step of blockDim.x elements, or a constant of 512 bytes or
     * more) gets the prefetch (saxpy, triad -15 %, stop 24), but the rows
     * of a 2D block (bench/stencil: 32 x 8 blocks, 128 bytes per block in
     * x) are left to it (even a run-time test of the step cost 5 %). AMD
     * Zen's follow one contiguous stream: there a run-time step gets none
     * (triad 4-27 % faster without, bench_ab_env, six alternated runs),
     * CUB's constant tile steps keep theirs (scan 8 % faster with them),
     * and the ten row streams of a 2D stencil block are more than they
     * track: prefetched four blocks on, bench_ab_env's 4096 x 4096 stencil
     * ran 22-28 % faster. */
    pf_step c;
    if (!block_step(l, a, &c))
        return;
    bool zen = zn_target_is_zen(l->m);
    bool small = c.reg < 0 && c.scale < ZN_PF_MIN_STREAM && c.scale > -ZN_PF_MIN_STREAM;
    bool want = zn_func_uses_2d(l)
                    ? zen && (c.reg >= 0 || c.scale >= ZN_PF_MIN_LINE ||
                              c.scale <= -ZN_PF_MIN_LINE)
                    : !small && !(zen && c.reg >= 0);
    if (want)
        prefetch_access(l, a, space, step_bytes(l, c, ZN_PF_BLOCKS_AHEAD), write);
}

/* the prefetch ahead of the load or store (write) ins at address a */
static void access_ahead(zn_lfn *l, const ptx_ins *ins, const ptx_opnd *a, bool write)
{
    struct zn_pf_plan *p = prefetchable(l, ins, a) ? plan_of(l) : NULL;
    if (!p)
        return;
    uint32_t loop = innermost_loop(p, (uint32_t)(l->ins - l->f->ins));
    if (loop == UINT32_MAX) {
        stream_ahead(l, a, ins->space, write);
        return;
    }
    pf_step s = {-1, -1, 0};
    int64_t blocks = 0;
    if (!access_step(l, p, loop, a, &s))
        return;
    bool grid = grid_derived(l->f, p, s.reg, 0) ||
                (s.reg2 >= 0 && grid_derived(l->f, p, s.reg2, 0));
    if (!grid && !(blocks = blocks_ahead(l, a)))
        return;
    int64_t span = loop_span(l, a, loop);
    zn_lmod *m = l->m;
    LLVMBuilderRef b = l->b;
    /* the loop's step, lane 0's (the same in all lanes of these loops,
     * though the divergence analysis may not know it); only a gap the
     * hardware does not follow gets the prefetch (the test is
     * loop-invariant: well predicted) */
    LLVMValueRef step = step_bytes(l, s, 1);
    /* |step| - span >= gap, as one unsigned compare */
    uint64_t edge = (uint64_t)(ZN_PF_MIN_GAP + span);
    LLVMValueRef far = LLVMBuildICmp(b, LLVMIntUGT, LLVMBuildAdd(b, step, LLVMConstInt(m->t_i64, edge - 1, 0), ""),
                                     LLVMConstInt(m->t_i64, 2 * edge - 2, 0), "pf.far");
    LLVMBasicBlockRef yes = LLVMAppendBasicBlockInContext(m->ctx, l->fn, "pf.far");
    LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(m->ctx, l->fn, "pf.done");
    LLVMBuildCondBr(b, far, yes, done);
    LLVMPositionBuilderAtEnd(b, yes);
    prefetch_access(l, a, ins->space,
                    grid ? LLVMBuildMul(b, step, LLVMConstInt(m->t_i64, ZN_PF_AHEAD, 0), "")
                         : LLVMConstInt(m->t_i64, (uint64_t)blocks, 0), write);
    LLVMBuildBr(b, done);
    LLVMPositionBuilderAtEnd(b, done);
}

void zn_prefetch_ahead(zn_lfn *l, const ptx_ins *ins)
{
    if (ins->nopnds >= 2)
        access_ahead(l, ins, &ins->opnds[1], false);
}

void zn_prefetch_store_ahead(zn_lfn *l, const ptx_ins *ins)
{
    if (ins->nopnds >= 1)
        access_ahead(l, ins, &ins->opnds[0], true);
}

/* prefetch{u}: the lines of lanes 0 and 31 (a warp's lanes usually read
 * one contiguous run). A prefetch never faults: bad addresses need no
 * check. .tensormap and forms without an address do nothing. */
void zn_lower_prefetch(zn_lfn *l, const ptx_ins *ins)
{
    if (ins->nopnds < 1 || ins->opnds[0].kind != PTX_OPND_ADDR)
        return;
    prefetch_lanes(l, zn_mem_ptrs(l, &ins->opnds[0], ins->space), NULL, false);
}
