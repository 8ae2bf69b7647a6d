/* zn_lower_module.c: module-wide facts: error reporting, the shared memory
 * layout, and per-function summaries (barriers, local bytes). */
#include "zn_lower.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void verr(zn_lmod *m, const ptx_ins *ins, const ptx_func *f,
                 const char *fmt, va_list ap)
{
    if (m->failed)
        return;
    m->failed = 1;
    size_t n = 0;
    if (ins)
        n = (size_t)snprintf(m->err, m->errlen, "ptx:%u:%u: ", ins->line, ins->col);
    else if (f)
        n = (size_t)snprintf(m->err, m->errlen, "ptx:%u: ", f->line);
    if (n < m->errlen)
        n += (size_t)vsnprintf(m->err + n, m->errlen - n, fmt, ap);
    if (f && n < m->errlen)
        snprintf(m->err + n, m->errlen - n, " (in '%s')", f->name);
}

void zn_lerr(zn_lfn *l, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    verr(l->m, l->ins, l->f, fmt, ap);
    va_end(ap);
}

void zn_merr(zn_lmod *m, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    verr(m, NULL, NULL, fmt, ap);
    va_end(ap);
}

void zn_lerr_unsupported(zn_lfn *l)
{
    const ptx_ins *ins = l->ins;
    char buf[256];
    size_t n = (size_t)snprintf(buf, sizeof buf, "%s", ptx_op_table[ins->op].name);
    for (unsigned i = 0; i < ins->nmods && n < sizeof buf; i++) {
        unsigned md = ins->mods[i];
        if (md > 0 && md < PTX_MOD_COUNT)
            n += (size_t)snprintf(buf + n, sizeof buf - n, ".%s", ptx_mod_table[md].name);
    }
    zn_lerr(l, "unsupported instruction '%s'", buf);
}

/* ---- shared memory layout ------------------------------------------------- */

static bool is_bar_red(const ptx_ins *ins)
{
    return (ins->op == PTX_OP_bar || ins->op == PTX_OP_barrier) &&
           (ins->flags & PTX_F(red_f));
}

static void place(zn_lmod *m, const ptx_var *v, uint32_t *off)
{
    zn_shared_slot *s = &m->shared[m->nshared++];
    s->var = v;
    if (v->unsized || v->size == 0) {
        s->offset = UINT32_MAX; /* dynamic: fixed up below */
        return;
    }
    uint32_t a = v->align ? v->align : 1;
    *off = (*off + a - 1) / a * a;
    s->offset = *off;
    *off += (uint32_t)v->size;
}

/* Marks the module-scope variables an operand names (by pointer, or by
 * name when it was reached through another pointer). */
static void mark_vars(const ptx_module *pm, const ptx_opnd *o, bool *used)
{
    if ((o->kind == PTX_OPND_SYM || o->kind == PTX_OPND_ADDR) && o->var) {
        const ptx_var *v = o->var;
        /* no pointer arithmetic on a module without variables (NULL) */
        if (pm->nvars && v >= pm->vars && v < pm->vars + pm->nvars)
            used[v - pm->vars] = true;
        else
            for (uint32_t i = 0; i < pm->nvars; i++)
                if (!strcmp(pm->vars[i].name, v->name))
                    used[i] = true;
    }
    for (uint32_t e = 0; e < o->nelems; e++)
        mark_vars(pm, &o->elems[e], used);
}

/* The layout of the shared variables the functions in want[] use (all when
 * want is NULL). A lazily compiled unit (a kernel and the .funcs it reaches,
 * zn_jit_closure) lays out only its own variables, so a module with many
 * kernels (llama.cpp's mmvq: 265 KB of static shared over 80 kernels) does
 * not give every kernel the sum, which is past the device limit. */
int zn_shared_layout(zn_lmod *m, const bool *want)
{
    const ptx_module *pm = m->pm;
    uint32_t n = 0;
    bool red = false;
    bool *used = calloc(pm->nvars + 1, sizeof *used);
    if (!used)
        return -1;
    for (uint32_t i = 0; i < pm->nvars; i++)
        n += pm->vars[i].space == PTX_SPACE_SHARED;
    for (uint32_t f = 0; f < pm->nfuncs; f++) {
        const ptx_func *fn = &pm->funcs[f];
        for (uint32_t i = 0; i < fn->nlocals; i++)
            n += fn->locals[i].space == PTX_SPACE_SHARED;
        if (want && !want[f])
            continue;
        for (uint32_t i = 0; i < fn->nins; i++) {
            red |= is_bar_red(&fn->ins[i]);
            if (want)
                for (uint32_t o = 0; o < fn->ins[i].nopnds; o++)
                    mark_vars(pm, &fn->ins[i].opnds[o], used);
        }
    }
    m->shared = calloc(n + 1, sizeof *m->shared);
    if (!m->shared) {
        free(used);
        return -1;
    }
    uint32_t off = ZN_SMEM_RESERVED;    /* the window's reserved bytes first */
    for (uint32_t i = 0; i < pm->nvars; i++)
        if (pm->vars[i].space == PTX_SPACE_SHARED && (!want || used[i]))
            place(m, &pm->vars[i], &off);
    free(used);
    for (uint32_t f = 0; f < pm->nfuncs; f++) {
        const ptx_func *fn = &pm->funcs[f];
        if (want && !want[f])
            continue;
        for (uint32_t i = 0; i < fn->nlocals; i++)
            if (fn->locals[i].space == PTX_SPACE_SHARED)
                place(m, &fn->locals[i], &off);
    }
    m->shared_declared = off - ZN_SMEM_RESERVED;
    m->bar_red_off = -1;
    if (red) {
        off = (off + 3) & ~3u;
        m->bar_red_off = (int32_t)off;
        off += 8;
    }
    /* reported rounded up to 16 so that static + dynamic needs no padding
     * rule on the executor's side */
    m->static_shared = ((off + 15) & ~15u) - ZN_SMEM_RESERVED;
    m->dyn_shared_off = ZN_SMEM_RESERVED + m->static_shared;
    for (uint32_t i = 0; i < m->nshared; i++)
        if (m->shared[i].offset == UINT32_MAX)
            m->shared[i].offset = m->dyn_shared_off;
    return 0;
}

int64_t zn_shared_offset(zn_lmod *m, const ptx_var *v)
{
    for (uint32_t i = 0; i < m->nshared; i++)
        if (m->shared[i].var == v)
            return m->shared[i].offset;
    /* the same name reached through another pointer */
    for (uint32_t i = 0; i < m->nshared; i++)
        if (!strcmp(m->shared[i].var->name, v->name))
            return m->shared[i].offset;
    return 0;
}

/* ---- per-function summaries ----------------------------------------------- */

/* Whether f, or a function it calls (directly or not), has an instruction
 * for which pred holds. */
static bool reaches_rec(const ptx_module *pm, const ptx_func *f,
                        bool (*pred)(const ptx_func *, uint32_t), uint8_t *seen)
{
    uint32_t fi = (uint32_t)(f - pm->funcs);
    if (fi < pm->nfuncs) {
        if (seen[fi])
            return false;
        seen[fi] = 1;
    }
    for (uint32_t i = 0; i < f->nins; i++) {
        const ptx_ins *ins = &f->ins[i];
        if (pred(f, i))
            return true;
        if (ins->op != PTX_OP_call)
            continue;
        for (uint32_t k = 0; k < ins->nopnds; k++) {
            const ptx_func *g = ins->opnds[k].func;
            if (ins->opnds[k].kind == PTX_OPND_SYM && g && !g->is_decl &&
                reaches_rec(pm, g, pred, seen))
                return true;
        }
    }
    return false;
}

bool zn_func_reaches(const ptx_module *pm, const ptx_func *f,
                     bool (*pred)(const ptx_func *, uint32_t))
{
    uint8_t *seen = calloc(pm->nfuncs + 1, 1);
    bool r = reaches_rec(pm, f, pred, seen);
    free(seen);
    return r;
}

bool zn_ins_is_block_barrier(const ptx_ins *ins)
{
    return (ins->op == PTX_OP_bar || ins->op == PTX_OP_barrier) && !(ins->flags & PTX_F(warp));
}

uint32_t zn_bra_target(const ptx_func *f, const ptx_ins *br)
{
    const ptx_opnd *o = &br->opnds[0];
    if (br->op != PTX_OP_bra || br->nopnds < 1 || o->kind != PTX_OPND_LABEL || o->label < 0 ||
        (uint32_t)o->label >= f->nlabels)
        return UINT32_MAX;
    return f->labels[o->label].ins;
}

bool zn_ins_backward_branch(const ptx_func *f, uint32_t i, uint32_t *top)
{
    uint32_t to = zn_bra_target(f, &f->ins[i]);
    if (to == UINT32_MAX || to > i)
        return false;
    *top = to;
    return true;
}

/* A spin-wait: a backward branch closing a short loop that polls memory
 * (strong loads, or atom.cas/exch taking a lock) and writes nothing else,
 * as cooperative groups' multi-warp tile barrier does:
 * `while (ld_acquire_cta(arrived) & warp_bit);`. On a GPU the warps it
 * waits for run meanwhile; here the spinner yields at the back edge
 * (zn_lower_branch), so its kernel is one whose warps can wait. Loops
 * with nanosleep yield there already; a store, call or barrier in the
 * body means it is work, not a wait. */
#define ZN_SPIN_MAX_INS 24

bool zn_ins_spin_edge(const ptx_func *f, uint32_t i)
{
    uint32_t top;
    if (!zn_ins_backward_branch(f, i, &top) || i - top > ZN_SPIN_MAX_INS)
        return false;
    bool polls = false;
    for (uint32_t k = top; k < i; k++) {
        const ptx_ins *p = &f->ins[k];
        if (p->op == PTX_OP_ld)
            polls |= zn_strong_access(p);
        else if (p->op == PTX_OP_atom &&
                 (p->subop == PTX_SUB_CAS || p->subop == PTX_SUB_EXCH))
            polls = true;
        else if ((ptx_op_table[p->op].flags & PTX_OF_SIDE) && p->op != PTX_OP_fence &&
                 p->op != PTX_OP_membar)
            return false;
    }
    return polls;
}

static bool needs_fibers(const ptx_func *f, uint32_t i)
{
    /* mbarrier waits and spin-waits yield to the block's other warps */
    const ptx_ins *ins = &f->ins[i];
    return zn_ins_is_block_barrier(ins) || ins->op == PTX_OP_mbarrier || zn_ins_spin_edge(f, i);
}

bool zn_func_uses_barrier(const ptx_module *pm, const ptx_func *f)
{
    return zn_func_reaches(pm, f, needs_fibers);
}

/* CUB's decoupled look-back (scan, select, radix sort's onesweep) has each
 * block wait for a flag its predecessor block publishes, with strong
 * (.relaxed/.acquire/.volatile) global loads and nanosleep back-off. A GPU
 * starts blocks roughly in index order, so the predecessor is running. The
 * executor hands blocks out in chunks (up to 64 per claim); a worker
 * starting block k + 64 then waits for the other worker to reach block
 * k + 63, and the grid runs chunk after chunk, one worker spinning. Such
 * kernels get their blocks one at a time, in order (zn_launch.polls). */
static bool is_poll(const ptx_func *f, uint32_t i)
{
    const ptx_ins *ins = &f->ins[i];
    return (ins->op == PTX_OP_ld && zn_strong_access(ins)) || ins->op == PTX_OP_nanosleep;
}

bool zn_func_polls(const ptx_module *pm, const ptx_func *f)
{
    return zn_func_reaches(pm, f, is_poll);
}

uint32_t zn_func_local_bytes(const ptx_func *f)
{
    uint64_t n = 0;
    for (uint32_t i = 0; i < f->nlocals; i++)
        if (f->locals[i].space == PTX_SPACE_LOCAL)
            n += f->locals[i].size;
    return (uint32_t)n;
}

/* named in a global's initialiser or used as a value (not a call target) */
bool zn_func_address_taken(const ptx_module *pm, const ptx_func *f)
{
    for (uint32_t i = 0; i < pm->nvars; i++)
        for (uint32_t r = 0; r < pm->vars[i].nrelocs; r++)
            if (!strcmp(pm->vars[i].relocs[r].sym, f->name))
                return true;
    for (uint32_t g = 0; g < pm->nfuncs; g++) {
        const ptx_func *h = &pm->funcs[g];
        for (uint32_t i = 0; i < h->nins; i++) {
            const ptx_ins *ins = &h->ins[i];
            if (ins->op == PTX_OP_call)
                continue;
            for (uint32_t k = 0; k < ins->nopnds; k++)
                if (ins->opnds[k].kind == PTX_OPND_SYM && ins->opnds[k].func &&
                    !strcmp(ins->opnds[k].func->name, f->name))
                    return true;
        }
    }
    return false;
}
