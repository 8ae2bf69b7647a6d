/* zn_lower_thread.c: branches to blocks that only jump on go straight to
 * where those blocks jump.
 *
 * nvcc ends an if's condition with `@p bra THEN; bra.uni ELSE;`: the
 * `bra.uni` is a block of its own (a trampoline). Lanes that take the
 * else-arm wait at the trampoline first, and when it runs, its branch has
 * to ask whether lanes wait elsewhere (the then-arm's, which come first in
 * text order), at the cost of a pc vector update and a test of every lane
 * on the common path where the warp does not diverge at all (10-15% of
 * bench/stencil's kernel). Sent to the trampoline's target at once, those
 * lanes are where the trampoline would have put them before anything past
 * it runs, so the blocks after it run with the same lanes waiting where
 * they would have waited. Before it the lanes wait further on than they
 * used to; that is harmless unless something between looks at where lanes
 * wait: a barrier (parking, zn_lower_park.c) or a loop (a header entered
 * from inside, the resume chain's loop skips), so a branch is only
 * threaded when no block from the one after it up to the trampoline
 * contains a barrier, starts a loop or ends one, and only forward (the
 * trampoline is not a loop header and jumps forward). Functions with
 * brx.idx, whose lanes can wait anywhere, are left alone.
 * ZINC_NO_THREAD_JUMPS=1 turns it off (in the kernel cache key). */
#include "zn_lower.h"

#include <stdlib.h>

bool zn_thread_jumps_disabled(void)
{
    const char *s = getenv("ZINC_NO_THREAD_JUMPS");
    return s && *s && *s != '0';
}

static uint32_t target_of(const zn_lfn *l, const ptx_ins *ins)
{
    const ptx_opnd *o = &ins->opnds[0];
    if (ins->nopnds < 1 || o->kind != PTX_OPND_LABEL || o->label < 0 ||
        (uint32_t)o->label >= l->f->nlabels)
        return UINT32_MAX;
    return l->block_of_ins[l->f->labels[o->label].ins];
}

void zn_thread_plan(zn_lfn *l)
{
    const ptx_func *f = l->f;
    uint32_t n = l->nblocks;
    if (zn_thread_jumps_disabled() || l->has_brx)
        return;
    bool *stop = calloc(n + 1, sizeof *stop);
    uint32_t *prefix = malloc((n + 2) * sizeof *prefix);
    if (!stop || !prefix) {
        free(stop);
        free(prefix);
        return;
    }
    for (uint32_t i = 0; i < f->nins; i++) {
        const ptx_ins *ins = &f->ins[i];
        uint32_t b = l->block_of_ins[i];
        if (zn_ins_is_block_barrier(ins))
            stop[b] = true;
        if (ins->op == PTX_OP_bra) {
            uint32_t t = target_of(l, ins);
            if (t <= b && t < n)
                stop[t] = stop[b] = true;   /* a loop's header and latch */
        }
    }
    prefix[0] = 0;
    for (uint32_t k = 0; k <= n; k++)
        prefix[k + 1] = prefix[k] + stop[k];
    free(stop);
    l->thread_stops = prefix;
}

uint32_t zn_thread_target(const zn_lfn *l, uint32_t from, uint32_t t)
{
    const uint32_t *p = l->thread_stops;
    for (unsigned hop = 0; p && hop < 8 && t > from && t < l->nblocks; hop++) {
        uint32_t s = l->block_start[t];
        const ptx_ins *ins = &l->f->ins[s];
        if (l->block_start[t + 1] != s + 1 || ins->op != PTX_OP_bra || ins->guard_reg >= 0)
            break;
        uint32_t x = target_of(l, ins);
        /* no barrier or loop in (from, t]; t jumps forward */
        if (x == UINT32_MAX || x <= t || p[t + 1] != p[from + 1])
            break;
        t = x;
    }
    return t;
}
