/* zn_lower_blocklocal.c: registers that never live across a block boundary.
 *
 * Every PTX register is an alloca that mem2reg turns into SSA values, and
 * since a warp's lanes may be parked at any block (the dispatcher jumps to
 * block starts), a register whose value flows between blocks gets a phi in
 * every block and the dispatcher: it is live everywhere, spilled, and its
 * 32-lane vector reloaded and stored back around every barrier and
 * dispatch. Most registers nvcc emits are temporaries written and read
 * inside one block. For those no lane ever needs the value a block was
 * entered with: at every block start the register's value is dead for
 * every lane, wherever the lane is parked. zn_lower_func.c stores undef
 * into such a register at the start of each block that names it (the only
 * blocks that read it), so mem2reg sees it live into no block: no phis.
 *
 * A register qualifies when, in every block, each read comes after an
 * unguarded full write in the same block. Conservatively, only pure ops and
 * loads count as full writes of their first operand; a guarded write
 * (@p) keeps the old value in lanes where p is false, so it counts as a
 * read; any other mention (first operand of a non-pure op, an address, a
 * guard) is a read. .func register parameters and results are excluded:
 * the prologue writes and the return reads them outside any block. */
#include "zn_lower.h"

#include <stdlib.h>

typedef struct scan {
    uint8_t *state;     /* per register in the current block: 0 unseen, 1 written */
    bool *exposed;      /* read before any full write in some block */
    uint32_t nregs;
} scan;

static void on_read(int32_t r, void *ud)
{
    scan *s = ud;
    if (r >= 0 && (uint32_t)r < s->nregs && !s->state[r])
        s->exposed[r] = true;
}

static void on_write(int32_t r, void *ud)
{
    scan *s = ud;
    if (r >= 0 && (uint32_t)r < s->nregs)
        s->state[r] = 1;
}

/* Every register an operand names, in any position: unlike zn_each_reg,
 * also the coordinates of texture/surface addresses and call lists, since
 * a read missed here would be clobbered. */
static void each_named_reg(const ptx_opnd *o, void (*f)(int32_t, void *), void *ud)
{
    if (o->reg >= 0 && o->kind != PTX_OPND_NONE)
        f(o->reg, ud);
    if (o->reg2 >= 0 && o->kind != PTX_OPND_NONE)
        f(o->reg2, ud);
    for (uint32_t i = 0; i < o->nelems; i++)
        each_named_reg(&o->elems[i], f, ud);
}

/* The registers a full write's first operand writes: REG (with a %r|%p
 * pair's second) or the REG elements of a VEC. */
static void each_written_reg(const ptx_opnd *o, void (*f)(int32_t, void *), void *ud)
{
    if (o->kind == PTX_OPND_REG) {
        f(o->reg, ud);
        if (o->reg2 >= 0)
            f(o->reg2, ud);
    } else if (o->kind == PTX_OPND_VEC) {
        for (uint32_t i = 0; i < o->nelems; i++)
            if (o->elems[i].kind == PTX_OPND_REG)
                f(o->elems[i].reg, ud);
    }
}

static bool full_write(const ptx_ins *ins)
{
    if (ins->guard_reg >= 0 || !ins->nopnds)
        return false;
    ptx_opnd_kind k = ins->opnds[0].kind;
    if (k != PTX_OPND_REG && k != PTX_OPND_VEC)
        return false;
    return zn_op_is_pure(ins->op) || ins->op == PTX_OP_ld || ins->op == PTX_OP_ldu;
}

void zn_ins_regs(const ptx_ins *ins, void (*read)(int32_t, void *),
                 void (*write)(int32_t, void *), void *ud)
{
    bool full = full_write(ins);
    read(ins->guard_reg, ud);
    for (uint32_t o = full ? 1 : 0; o < ins->nopnds; o++)
        each_named_reg(&ins->opnds[o], read, ud);
    if (full)
        each_written_reg(&ins->opnds[0], write, ud);
}

void zn_block_local_regs(zn_lfn *l)
{
    const ptx_func *f = l->f;
    scan s = { calloc(f->nregs + 1, 1), calloc(f->nregs + 1, sizeof(bool)), f->nregs };
    l->reg_blocal = calloc(f->nregs + 1, sizeof(bool));
    for (uint32_t k = 0; k < l->nblocks; k++) {
        for (uint32_t r = 0; r < f->nregs; r++)
            s.state[r] = 0;
        for (uint32_t i = l->block_start[k]; i < l->block_start[k + 1]; i++)
            zn_ins_regs(&f->ins[i], on_read, on_write, &s);
    }
    uint32_t first_free = 0;    /* .func .reg parameters and results come first */
    if (!f->is_entry) {
        for (uint32_t i = 0; i < f->nrets; i++)
            first_free += f->rets[i].space == PTX_SPACE_REG;
        for (uint32_t i = 0; i < f->nparams; i++)
            first_free += f->params[i].space == PTX_SPACE_REG;
    }
    for (uint32_t r = first_free; r < f->nregs; r++)
        l->reg_blocal[r] = !s.exposed[r];
    free(s.state);
    free(s.exposed);
}
