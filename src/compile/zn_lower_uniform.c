/* zn_lower_uniform.c: divergence analysis. Which blocks always run with
 * every live lane of the warp (convergent), and which registers hold the
 * same value in every live lane (uniform).
 *
 * The dispatcher (zn_lower_func.c) runs the lowest waiting block first.
 * After a divergent branch at block d, the lanes therefore meet again at
 * J = ipdom(d), its immediate post-dominator, provided every block they
 * can reach before J (the region R(d)) comes before J in block order: the
 * dispatcher then empties R(d) before it runs J. Blocks in some R(d) are
 * partial; every other block is entered only from the entry, from
 * convergent blocks through uniform branches, or as some J, so all live
 * lanes run it together. Lanes that a divergent branch sends to a block
 * that only returns count as finished: they read no register again. If any region breaks the order rule, or the CFG
 * is too big or has a block that never reaches an exit, every block counts
 * as partial.
 *
 * A register is uniform when each of its definitions sits in a convergent
 * block, is unguarded or guarded by a uniform predicate, and computes a
 * pure function of uniform inputs (immediates, kernel parameters, %ctaid,
 * %ntid, ..., addresses of module/shared variables, uniform registers) or
 * loads from a uniform address (all lanes read it at the same moment).
 * A branch on a uniform predicate is uniform. Both facts feed each other,
 * so the analysis starts from "all uniform" and only ever marks more
 * registers divergent and more blocks partial until nothing changes. */
#include "zn_lower.h"

#include <stdlib.h>
#include <string.h>
#include "util/zn_log.h"

#define ZN_UNI_MAX_BLOCKS 4096

typedef struct zn_cfg {
    uint32_t n;               /* blocks; node n is the virtual exit */
    uint32_t (*succ)[2];      /* up to two successors (n: exit) */
    uint8_t *nsucc;
    uint64_t *pdom;           /* (n + 1) bitsets of `words` words */
    uint32_t words;
    uint32_t *ipdom;
} zn_cfg;

static bool bit(const uint64_t *s, uint32_t i) { return s[i / 64] >> (i % 64) & 1; }
static void set_bit(uint64_t *s, uint32_t i) { s[i / 64] |= 1ull << (i % 64); }

static const ptx_ins *last_ins(const zn_lfn *l, uint32_t k)
{
    uint32_t s = l->block_start[k], e = l->block_start[k + 1];
    return e > s ? &l->f->ins[e - 1] : NULL;
}

static uint32_t label_block(const zn_lfn *l, const ptx_ins *ins)
{
    const ptx_opnd *o = &ins->opnds[0];
    if (o->kind != PTX_OPND_LABEL || o->label < 0 || (uint32_t)o->label >= l->f->nlabels)
        return UINT32_MAX;
    return l->block_of_ins[l->f->labels[o->label].ins];
}

int zn_block_succs(const zn_lfn *l, uint32_t k, uint32_t out[2])
{
    uint32_t n = l->nblocks, next = k + 1 < n ? k + 1 : n;
    const ptx_ins *t = last_ins(l, k);
    int c = 0;
    if (t && t->op == PTX_OP_bra) {
        uint32_t T = label_block(l, t);
        if (T == UINT32_MAX)
            return -1;
        out[c++] = T >= n ? n : T;
        if (t->guard_reg >= 0)
            out[c++] = next;
    } else if (t && (t->op == PTX_OP_ret || t->op == PTX_OP_exit)) {
        out[c++] = n;
        if (t->guard_reg >= 0)
            out[c++] = next;
    } else if (t && (ptx_op_table[t->op].flags & PTX_OF_BRANCH) && t->op != PTX_OP_trap) {
        return -1; /* brx.idx and anything new */
    } else {
        out[c++] = next;
    }
    return c;
}

static bool build_cfg(zn_lfn *l, zn_cfg *g)
{
    uint32_t n = l->nblocks;
    g->n = n;
    g->succ = calloc(n + 1, sizeof *g->succ);
    g->nsucc = calloc(n + 1, 1);
    for (uint32_t k = 0; k < n; k++) {
        int c = zn_block_succs(l, k, g->succ[k]);
        if (c < 0)
            return false; /* no analysis */
        g->nsucc[k] = (uint8_t)c;
    }
    return true;
}

/* pdom(b) = {b} + intersection of pdom(s) over successors; then ipdom(b) =
 * the strict post-dominator with the largest set of its own. */
static bool post_dominators(zn_cfg *g)
{
    uint32_t n = g->n, w = (n + 1 + 63) / 64;
    g->words = w;
    g->pdom = malloc((size_t)(n + 1) * w * sizeof(uint64_t));
    memset(g->pdom, 0xff, (size_t)(n + 1) * w * sizeof(uint64_t));
    uint64_t *ex = &g->pdom[(size_t)n * w];
    memset(ex, 0, w * sizeof(uint64_t));
    set_bit(ex, n);
    uint64_t *tmp = malloc(w * sizeof(uint64_t));
    for (bool changed = true; changed;) {
        changed = false;
        for (uint32_t b = n; b-- > 0;) {
            memset(tmp, 0xff, w * sizeof(uint64_t));
            for (uint8_t i = 0; i < g->nsucc[b]; i++) {
                const uint64_t *ps = &g->pdom[(size_t)g->succ[b][i] * w];
                for (uint32_t j = 0; j < w; j++)
                    tmp[j] &= ps[j];
            }
            set_bit(tmp, b);
            uint64_t *pb = &g->pdom[(size_t)b * w];
            if (memcmp(tmp, pb, w * sizeof(uint64_t))) {
                memcpy(pb, tmp, w * sizeof(uint64_t));
                changed = true;
            }
        }
    }
    free(tmp);
    /* a block whose set still holds everything never reaches the exit */
    g->ipdom = malloc((n + 1) * sizeof *g->ipdom);
    uint32_t *size = calloc(n + 1, sizeof *size);
    for (uint32_t b = 0; b <= n; b++)
        for (uint32_t j = 0; j < w; j++)
            size[b] += (uint32_t)__builtin_popcountll(g->pdom[(size_t)b * w + j]);
    bool ok = true;
    for (uint32_t b = 0; b < n && ok; b++) {
        const uint64_t *pb = &g->pdom[(size_t)b * w];
        if (!bit(pb, n))
            ok = false;
        uint32_t best = n;
        for (uint32_t d = 0; d < n; d++)
            if (d != b && bit(pb, d) && size[d] > size[best])
                best = d;
        g->ipdom[b] = best;
    }
    free(size);
    return ok;
}

/* Marks R(d) partial; false when some block of it is not before ipdom(d). */
static bool mark_region(zn_cfg *g, uint32_t d, bool *partial, uint32_t *stack, bool *seen)
{
    uint32_t J = g->ipdom[d], sp = 0;
    memset(seen, 0, g->n + 1);
    for (uint8_t i = 0; i < g->nsucc[d]; i++)
        if (g->succ[d][i] != J && g->succ[d][i] < g->n && !seen[g->succ[d][i]]) {
            seen[g->succ[d][i]] = true;
            stack[sp++] = g->succ[d][i];
        }
    bool ok = true;
    while (sp) {
        uint32_t b = stack[--sp];
        partial[b] = true;
        if (J < g->n && b > J)
            ok = false;
        for (uint8_t i = 0; i < g->nsucc[b]; i++) {
            uint32_t s = g->succ[b][i];
            if (s != J && s < g->n && !seen[s]) {
                seen[s] = true;
                stack[sp++] = s;
            }
        }
    }
    return ok;
}

/* a block that starts with an unguarded ret or exit (or the exit node) */
bool zn_block_is_exit(const zn_lfn *l, uint32_t b)
{
    if (b >= l->nblocks)
        return true;
    uint32_t s = l->block_start[b];
    if (s >= l->block_start[b + 1])
        return false;
    const ptx_ins *ins = &l->f->ins[s];
    return ins->guard_reg < 0 && (ins->op == PTX_OP_ret || ins->op == PTX_OP_exit);
}

static bool sreg_uniform(ptx_sreg s)
{
    switch (s) {
    case PTX_SREG_TID_X: case PTX_SREG_TID_Y: case PTX_SREG_TID_Z:
    case PTX_SREG_LANEID:
    case PTX_SREG_LANEMASK_EQ: case PTX_SREG_LANEMASK_LE: case PTX_SREG_LANEMASK_LT:
    case PTX_SREG_LANEMASK_GE: case PTX_SREG_LANEMASK_GT:
        return false;
    default:
        return true;
    }
}

/* A symbol's address is the same in every lane unless it names per-lane
 * storage (.local, a .func's .param) */
static bool sym_uniform(zn_lfn *l, const ptx_opnd *o)
{
    if (o->func && !o->var)
        return true;
    uint32_t idx;
    const ptx_var *v;
    switch (zn_var_find(l, o, &idx, &v)) {
    case ZN_VAR_MODULE: return true;
    case ZN_VAR_PARAM: return l->is_entry;
    case ZN_VAR_LOCAL: return v->space == PTX_SPACE_SHARED;
    default: return false;
    }
}

typedef struct uni_state {
    zn_lfn *l;
    bool *div;
    const bool *tid_x;  /* registers that hold %tid.x and nothing else, where a
                         * warp's tid.x are 32 consecutive values from a
                         * multiple of 32 (zn_lower_shape.c); else NULL */
    bool ok;
    bool changed;
} uni_state;

static void need_uniform(int32_t r, void *ud)
{
    uni_state *s = ud;
    if (r < 0 || (uint32_t)r >= s->l->f->nregs || s->div[r])
        s->ok = false;
}

static void make_divergent(int32_t r, void *ud)
{
    uni_state *s = ud;
    if (r >= 0 && (uint32_t)r < s->l->f->nregs && !s->div[r]) {
        s->div[r] = true;
        s->changed = true;
    }
}

static bool reg_is_div(zn_lfn *l, const bool *div, int32_t r)
{
    if (r < 0 || (uint32_t)r >= l->f->nregs)
        return true;
    return div ? div[r] : !l->reg_uni[r];
}

bool zn_uniform_access(zn_lfn *l, const ptx_ins *ins, const bool *div)
{
    bool st = ins->op == PTX_OP_st;
    if ((ins->op != PTX_OP_ld && ins->op != PTX_OP_ldu && !st) || ins->guard_reg >= 0 ||
        ins->nopnds < 2 || zn_ins_shared_cluster(ins)) /* per-lane rank windows */
        return false;
    switch (ins->space) {
    case PTX_SPACE_GLOBAL: case PTX_SPACE_SHARED: case PTX_SPACE_CONST:
    case PTX_SPACE_GENERIC:
        break;
    default:
        return false;
    }
    const ptx_opnd *a = &ins->opnds[st ? 0 : 1];
    if (a->kind != PTX_OPND_ADDR)
        return false;
    if (a->reg >= 0)
        return !reg_is_div(l, div, a->reg);
    return (a->var || a->sym) && sym_uniform(l, a);
}

/* operand o is %tid.x where s->tid_x applies */
static bool is_tid_x(const uni_state *s, const ptx_opnd *o)
{
    if (o->kind == PTX_OPND_SREG)
        return o->sreg == PTX_SREG_TID_X;
    return o->kind == PTX_OPND_REG && o->reg >= 0 && (uint32_t)o->reg < s->l->f->nregs &&
           s->tid_x[o->reg];
}

/* With a warp's tid.x = 32 w' + lane, what only depends on tid.x / 32 is
 * the same in every lane: tid.x >> k (k >= 5), / (32 m), & ~31-style masks
 * and comparisons with 32 m (< and >=) or 32 m - 1 (<= and >): reduce's
 * `if (t < 32)`, a warp index `t >> 5`. */
static bool warp_index_op(const uni_state *s, const ptx_ins *ins)
{
    if (!s->tid_x || ins->nopnds != 3 || ins->opnds[0].kind != PTX_OPND_REG ||
        ins->opnds[0].reg2 >= 0 || !is_tid_x(s, &ins->opnds[1]) ||
        ins->opnds[2].kind != PTX_OPND_IMM || ins->opnds[2].ival < 0)
        return false;
    uint64_t k = (uint64_t)ins->opnds[2].ival;
    switch (ins->op) {
    case PTX_OP_shr: return k >= 5;
    case PTX_OP_div: return k && k % 32 == 0;
    case PTX_OP_and: return (k & 31) == 0;
    case PTX_OP_setp:
        if (ins->subop != PTX_SUB_NONE)
            return false;
        switch (ins->cmp) {
        case PTX_CMP_LT: case PTX_CMP_GE: case PTX_CMP_LO: case PTX_CMP_HS:
            return k % 32 == 0;
        case PTX_CMP_LE: case PTX_CMP_GT: case PTX_CMP_LS: case PTX_CMP_HI:
            return k % 32 == 31;
        default:
            return false;
        }
    default:
        return false;
    }
}

typedef struct def_count {
    uint32_t *defs;
    uint32_t nregs;
} def_count;

static void count_def(int32_t r, void *ud)
{
    def_count *c = ud;
    if (r >= 0 && (uint32_t)r < c->nregs)
        c->defs[r]++;
}

/* per register: its only definition is `mov r, %tid.x` (NULL: none is
 * needed, the block shape does not give the form) */
static bool *tid_x_regs(zn_lfn *l)
{
    const uint32_t *n = zn_fixed_block(l->m);
    if (!n || n[0] % ZN_LANES)
        return NULL;
    const ptx_func *f = l->f;
    bool *is = calloc(f->nregs + 1, 1);
    uint32_t *defs = calloc(f->nregs + 1, sizeof *defs);
    if (!is || !defs) {
        free(defs);
        free(is);
        return NULL;
    }
    for (uint32_t i = 0; i < f->nins; i++) {
        const ptx_ins *ins = &f->ins[i];
        if (!ins->nopnds)
            continue;
        const ptx_opnd *d = &ins->opnds[0];
        def_count c = {defs, f->nregs};
        zn_each_def(d, count_def, &c);
        if (d->kind == PTX_OPND_REG && d->reg >= 0 && (uint32_t)d->reg < f->nregs)
            is[d->reg] = ins->op == PTX_OP_mov && ins->guard_reg < 0 && ins->nopnds == 2 &&
                         ins->opnds[1].kind == PTX_OPND_SREG &&
                         ins->opnds[1].sreg == PTX_SREG_TID_X;
    }
    for (uint32_t r = 0; r < f->nregs; r++)
        is[r] = is[r] && defs[r] == 1;
    free(defs);
    return is;
}

static bool uniform_def(uni_state *s, const ptx_ins *ins)
{
    zn_lfn *l = s->l;
    if (warp_index_op(s, ins)) {
        s->ok = true;
        if (ins->guard_reg >= 0)
            need_uniform(ins->guard_reg, s);
        return s->ok;
    }
    if (!zn_op_is_pure(ins->op) && !zn_is_kernel_param_load(l, ins) &&
        !(ins->op != PTX_OP_st && zn_uniform_access(l, ins, s->div)))
        return false;
    if (ins->flags & PTX_F(cc))
        return false;
    s->ok = true;
    if (ins->guard_reg >= 0)
        need_uniform(ins->guard_reg, s);
    for (uint32_t i = 1; i < ins->nopnds && s->ok; i++) {
        const ptx_opnd *o = &ins->opnds[i];
        if (o->kind == PTX_OPND_SREG && !sreg_uniform(o->sreg) &&
            !zn_fixed_tid_uniform(l->m, o->sreg))
            return false;
        if ((o->kind == PTX_OPND_SYM || (o->kind == PTX_OPND_ADDR && o->reg < 0 &&
             (o->var || o->sym || o->func))) && !sym_uniform(l, o))
            return false;
        zn_each_reg(o, need_uniform, s);
    }
    return s->ok;
}

static void give_up(zn_lfn *l)
{
    for (uint32_t k = 0; k < l->nblocks; k++)
        l->blk_conv[k] = false;
    for (uint32_t r = 0; r < l->f->nregs; r++)
        l->reg_uni[r] = false;
}

/* Which convergent blocks run with every lane the warp began with: none if
 * lanes can end one by one (a ret or exit in a partial block or under a
 * divergent guard, a call: a .func's exit ends lanes); otherwise those
 * that no divergent branch to a block that only returns (gone[k]: the
 * lanes it sends there are finished, above) reaches, by any path: also
 * through blocks that are not convergent themselves (`if (i >= n)
 * return;` and then an if/else on i, as nvcc expands a 64-bit division:
 * the join after it ran with the constant mask, and the lanes past n
 * stored there, in llama.cpp's copy and rope kernels). */
static void full_blocks(zn_lfn *l, const zn_cfg *g, const bool *gone)
{
    uint32_t n = l->nblocks;
    for (uint32_t k = 0; k < n; k++)
        for (uint32_t i = l->block_start[k]; i < l->block_start[k + 1]; i++) {
            const ptx_ins *ins = &l->f->ins[i];
            if (ins->op == PTX_OP_call ||
                ((ins->op == PTX_OP_ret || ins->op == PTX_OP_exit) &&
                 (!l->blk_conv[k] || (ins->guard_reg >= 0 && !l->reg_uni[ins->guard_reg]))))
                return;
        }
    /* each block is pushed at most twice: as gone and when reached */
    bool *reached = calloc(n + 1, 1);
    uint32_t *stack = malloc(2 * ((size_t)n + 1) * sizeof *stack);
    if (!reached || !stack) {
        free(reached);
        free(stack);
        return;     /* no block is full */
    }
    uint32_t top = 0;
    for (uint32_t k = 0; k < n; k++)
        if (gone[k])
            stack[top++] = k;
    while (top) {
        uint32_t k = stack[--top];
        for (uint32_t j = 0; j < g->nsucc[k]; j++) {
            uint32_t s = g->succ[k][j];
            if (s < n && !reached[s]) {
                reached[s] = true;
                stack[top++] = s;
            }
        }
    }
    for (uint32_t k = 0; k < n; k++)
        l->blk_full[k] = l->blk_conv[k] && !reached[k];
    free(reached);
    free(stack);
}

void zn_uniform_analysis(zn_lfn *l)
{
    const ptx_func *f = l->f;
    uint32_t n = l->nblocks;
    l->blk_conv = calloc(n + 1, sizeof *l->blk_conv);
    l->reg_uni = calloc(f->nregs + 1, sizeof *l->reg_uni);
    l->blk_full = calloc(n + 1, sizeof *l->blk_full);
    if (n > ZN_UNI_MAX_BLOCKS || getenv("ZINC_NO_UNIFORM")) {
        l->uniform_skipped = true;
        return;
    }
    zn_cfg g = {0};
    bool *partial = calloc(n + 1, 1), *seen = calloc(n + 1, 1);
    bool *div = calloc(f->nregs + 1, 1);
    uint32_t *stack = malloc((n + 1) * sizeof *stack);
    bool ok = build_cfg(l, &g) && post_dominators(&g);
    bool *tid_x = tid_x_regs(l);
    uni_state s = {.l = l, .div = div, .tid_x = tid_x};
    bool *region_done = calloc(n + 1, 1);
    bool *gone = calloc(n + 1, 1);  /* a divergent branch sends lanes to their end */
    for (bool again = ok; again && ok;) {
        s.changed = false;
        for (uint32_t k = 0; k < n; k++)
            for (uint32_t i = l->block_start[k]; i < l->block_start[k + 1]; i++) {
                const ptx_ins *ins = &f->ins[i];
                if (ins->nopnds && (partial[k] || !uniform_def(&s, ins)))
                    zn_each_def(&ins->opnds[0], make_divergent, &s);
            }
        /* each divergent branch marks its region once */
        for (uint32_t k = 0; k < n && ok; k++) {
            const ptx_ins *t = last_ins(l, k);
            if (!t || t->op != PTX_OP_bra || t->guard_reg < 0 || !div[t->guard_reg] ||
                region_done[k])
                continue;
            region_done[k] = true;
            /* lanes sent to a block that only returns are as good as
             * finished: they read no register again, and `if (i >= n)
             * return;` leaves the rest convergent */
            if (zn_block_is_exit(l, g.succ[k][0]) || zn_block_is_exit(l, g.succ[k][1])) {
                gone[k] = true;
                continue;
            }
            ok = mark_region(&g, k, partial, stack, seen);
            l->layout_irregular |= !ok;
            s.changed = true;
        }
        again = s.changed;
    }
    free(region_done);
    if (ok && stack) {
        for (uint32_t k = 0; k < n; k++)
            l->blk_conv[k] = !partial[k];
        for (uint32_t r = 0; r < f->nregs; r++)
            l->reg_uni[r] = !div[r];
        if (l->blk_full && gone)
            full_blocks(l, &g, gone);
    } else {
        give_up(l);
    }
    if (zn_log_level() >= ZN_LOG_DEBUG) {
        uint32_t nc = 0, nu = 0;
        for (uint32_t k = 0; k < n; k++)
            nc += l->blk_conv[k];
        for (uint32_t r = 0; r < f->nregs; r++)
            nu += l->reg_uni[r];
        zn_log(ZN_LOG_DEBUG, "uniform: %s: %u/%u blocks convergent, %u/%u registers uniform%s",
               f->name, nc, n, nu, f->nregs, ok ? "" : " (irregular CFG: none)");
    }
    free(partial);
    free(gone);
    free(tid_x);
    free(seen);
    free(div);
    free(stack);
    free(g.succ);
    free(g.nsucc);
    free(g.pdom);
    free(g.ipdom);
}
