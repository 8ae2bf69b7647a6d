/* zn_lower_pairld.c: two 16-bit loads of adjacent halves that only feed
 * one mov.b32 %r, {%lo, %hi} become one 32-bit load into %r.
 *
 * Quantized formats keep their int8 quants in blocks behind a half scale
 * (llama.cpp's Q8_0 block is 34 bytes, Q4_0 18), so the quants are only
 * 2-byte aligned and CUDA code reads an int of them as two u16 loads
 * joined by a mov. On a GPU those are two cheap loads. Here each is a warp
 * access with its own shape test, and a 16-bit gather has no x86
 * instruction: LLVM scalarizes it into 32 loads and branches. One 32-bit
 * load (alignment 2) is one shape test and one hardware gather, or one
 * vector load where the lanes are contiguous.
 *
 * The pattern, all in one PTX block and unguarded:
 *   ld.S.u16 %lo, [%a+c]     (the head: becomes ld.S.b32 %r, [%a+c])
 *   ...                      (only pure ops and plain loads up to the mov;
 *   ld.S.u16 %hi, [%a+c+2]    none writes %a or mentions %r, %lo, %hi)
 *   ...
 *   mov.b32 %r, {%lo, %hi}   (dropped, like the second load)
 * %lo and %hi are mentioned nowhere else in the function, so nothing else
 * reads them; nothing between the loads writes memory, so the one load
 * reads what the two would have; %r is written earlier than the mov did,
 * which nothing between notices. ZINC_NO_PAIRLD=1 turns it off (A/B). */
#include "zn_lower.h"

#include <stdlib.h>

/* l->pair_act[i]: PAIR_NONE, PAIR_DROP, or for a head PAIR_HEAD + the
 * index of its mov */
enum { PAIR_NONE, PAIR_DROP, PAIR_HEAD };

static void count_reg(int32_t r, void *ud)
{
    ((uint32_t *)ud)[r]++;
}

static bool half_load(const ptx_ins *ins)
{
    const ptx_opnd *d = &ins->opnds[0], *a = &ins->opnds[1];
    if ((ins->op != PTX_OP_ld) || ins->guard_reg >= 0 || ins->vec > 1 || ins->nopnds != 2 ||
        ptx_type_size(ins->type[0]) != 2 || zn_strong_access(ins) ||
        d->kind != PTX_OPND_REG || d->reg2 >= 0 || a->kind != PTX_OPND_ADDR || a->reg < 0 ||
        a->var || a->sym || a->func || a->nelems)
        return false;
    switch (ins->space) {
    case PTX_SPACE_GLOBAL: case PTX_SPACE_SHARED: case PTX_SPACE_CONST:
    case PTX_SPACE_LOCAL: case PTX_SPACE_GENERIC:
        return true;
    default:
        return false;   /* .param: kernel parameters load otherwise */
    }
}

static bool plain_between(const ptx_func *f, uint32_t from, uint32_t to, int32_t addr)
{
    for (uint32_t i = from + 1; i < to; i++) {
        const ptx_ins *x = &f->ins[i];
        bool load = (x->op == PTX_OP_ld || x->op == PTX_OP_ldu) && !zn_strong_access(x);
        const int32_t regs[3] = {addr, -1, -1};
        if ((!zn_op_is_pure(x->op) && !load) || zn_ins_touches(x, regs, 3, false))
            return false;
    }
    return true;
}

/* k is `mov.b32 %r, {%lo, %hi}`: marks its loads when the pattern holds. */
static void try_mov(zn_lfn *l, uint32_t k, const uint32_t *uses, uint32_t *act)
{
    const ptx_func *f = l->f;
    const ptx_ins *mv = &f->ins[k];
    const ptx_opnd *d = &mv->opnds[0], *s = &mv->opnds[1];
    if (mv->op != PTX_OP_mov || mv->guard_reg >= 0 || mv->nopnds != 2 ||
        ptx_type_size(mv->type[0]) != 4 || d->kind != PTX_OPND_REG || d->reg2 >= 0 ||
        s->kind != PTX_OPND_VEC || s->nelems != 2 || s->reg2 >= 0 ||
        s->elems[0].kind != PTX_OPND_REG || s->elems[1].kind != PTX_OPND_REG)
        return;
    int32_t lo = s->elems[0].reg, hi = s->elems[1].reg;
    if (lo == hi || uses[lo] != 2 || uses[hi] != 2 || l->reg_def[lo] < 0 || l->reg_def[hi] < 0)
        return;
    uint32_t h = (uint32_t)l->reg_def[lo], t = (uint32_t)l->reg_def[hi];
    uint32_t blk = l->block_of_ins[k];
    if (h >= t || t >= k || l->block_of_ins[h] != blk || l->block_of_ins[t] != blk ||
        act[h] != PAIR_NONE || act[t] != PAIR_NONE)
        return;
    const ptx_ins *hl = &f->ins[h], *tl = &f->ins[t];
    if (!half_load(hl) || !half_load(tl) || hl->space != tl->space ||
        hl->opnds[1].reg != tl->opnds[1].reg || tl->opnds[1].ival != hl->opnds[1].ival + 2)
        return;
    int32_t regs[3] = {d->reg, lo, hi};
    for (uint32_t i = h + 1; i < k; i++)
        if (i != t && zn_ins_touches(&f->ins[i], regs, 3, true))
            return;
    if (!plain_between(f, h, k, hl->opnds[1].reg))
        return;
    act[h] = PAIR_HEAD + k;
    act[t] = PAIR_DROP;
    act[k] = PAIR_DROP;
}

void zn_pair_loads(zn_lfn *l)
{
    const ptx_func *f = l->f;
    l->pair_act = NULL;
    if (getenv("ZINC_NO_PAIRLD"))
        return;
    bool any = false;
    for (uint32_t i = 0; i < f->nins && !any; i++)
        any = half_load(&f->ins[i]);
    if (!any)
        return;
    uint32_t *uses = calloc(f->nregs + 1, sizeof *uses);
    uint32_t *act = calloc(f->nins + 1, sizeof *act);
    for (uint32_t i = 0; i < f->nins; i++) {
        const ptx_ins *x = &f->ins[i];
        for (uint32_t o = 0; o < x->nopnds; o++)
            zn_each_reg(&x->opnds[o], count_reg, uses);
        if (x->guard_reg >= 0)
            uses[x->guard_reg]++;
    }
    for (uint32_t k = 0; k < f->nins; k++)
        if (f->ins[k].op == PTX_OP_mov)
            try_mov(l, k, uses, act);
    free(uses);
    l->pair_act = act;
}

bool zn_pair_dropped(const zn_lfn *l, const ptx_ins *ins)
{
    return l->pair_act && l->pair_act[ins - l->f->ins] == PAIR_DROP;
}

bool zn_pair_head(const zn_lfn *l, const ptx_ins *ins, ptx_ins *wide)
{
    uint32_t a = l->pair_act ? l->pair_act[ins - l->f->ins] : PAIR_NONE;
    if (a < PAIR_HEAD)
        return false;
    *wide = *ins;
    wide->type[0] = PTX_T_B32;
    wide->opnds[0] = l->f->ins[a - PAIR_HEAD].opnds[0];   /* the mov's %r */
    return true;
}
