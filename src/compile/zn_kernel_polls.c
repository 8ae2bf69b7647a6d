/* zn_kernel_polls.c: does a kernel poll memory other blocks write?
 *
 * CUB's decoupled look-back (scan, select, radix sort's onesweep) has each
 * block wait for a flag its predecessor block publishes, with strong
 * (.relaxed/.acquire/.volatile) global loads and nanosleep back-off. A GPU
 * starts blocks roughly in index order, so the predecessor is running. The
 * executor hands blocks out in chunks (up to 64 per claim); a worker
 * starting block k + 64 then waits for the other worker to reach block
 * k + 63, and the grid runs chunk after chunk, one worker spinning. Such
 * kernels get their blocks one at a time, in order (zn_launch.polls). */
#include "zn_lower.h"

#include <stdlib.h>

static bool polls_rec(const ptx_module *pm, const ptx_func *f, uint8_t *seen)
{
    uint32_t fi = (uint32_t)(f - pm->funcs);
    if (fi < pm->nfuncs) {
        if (seen[fi])
            return false;
        seen[fi] = 1;
    }
    for (uint32_t i = 0; i < f->nins; i++) {
        const ptx_ins *ins = &f->ins[i];
        if ((ins->op == PTX_OP_ld && zn_strong_access(ins)) || ins->op == PTX_OP_nanosleep)
            return true;
        if (ins->op != PTX_OP_call)
            continue;
        for (uint32_t k = 0; k < ins->nopnds; k++) {
            const ptx_func *g = ins->opnds[k].func;
            if (ins->opnds[k].kind == PTX_OPND_SYM && g && !g->is_decl && polls_rec(pm, g, seen))
                return true;
        }
    }
    return false;
}

bool zn_func_polls(const ptx_module *pm, const ptx_func *f)
{
    uint8_t *seen = calloc(pm->nfuncs + 1, 1);
    bool r = polls_rec(pm, f, seen);
    free(seen);
    return r;
}
