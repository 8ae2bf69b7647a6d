/* zn_lower_ftzclean.c: registers that never hold an f32 subnormal (issue
 * #9). A .ftz instruction flushes its f32 sources (four vector operations
 * each: fabs, compare, copysign, select) and its result. A register whose
 * every write is the flushed result of such an instruction cannot hold a
 * subnormal, so the flush of its reads is elided: in a chain of .ftz FMAs
 * (nvcc -use_fast_math, llama.cpp's kernels) only the results are flushed.
 * A register whose every read flushes it (.ftz f32 sources) is flushed
 * where it is written instead, once, and becomes clean too: the load
 * before a loop of .ftz FMAs. Writes that keep a register clean too: f16
 * and integer values converted to f32 (never subnormal there), and moves
 * of a clean register (zn_moved_src: a warp reduction's mov.b32, shfl,
 * mov.b32 back into the next add.ftz; ggml's reductions under
 * -use_fast_math flushed every shuffled value, five vector operations on
 * each step of the chain). Any other register keeps its flushes;
 * functions that call or are called are left alone. */
#include <stdlib.h>
#include "zn_lower.h"

/* the instructions zn_lower_float.c flushes the f32 result of */
bool zn_ftz_flushes_result(const ptx_ins *ins)
{
    if (ins->type[0] != PTX_T_F32 || !(ins->flags & PTX_F(ftz)))
        return false;
    switch (ins->op) {
    case PTX_OP_add: case PTX_OP_sub: case PTX_OP_mul: case PTX_OP_fma: case PTX_OP_mad:
    case PTX_OP_div: case PTX_OP_rcp: case PTX_OP_sqrt: case PTX_OP_rsqrt:
    case PTX_OP_min: case PTX_OP_max: case PTX_OP_abs: case PTX_OP_neg:
    case PTX_OP_ex2: case PTX_OP_lg2: case PTX_OP_sin: case PTX_OP_cos:
        return ins->opnds[0].kind == PTX_OPND_REG && ins->opnds[0].reg2 < 0;
    default:
        return false;
    }
}

/* instructions that flush each f32 register source they read */
static bool flushes_sources(const ptx_ins *ins)
{
    if (!(ins->flags & PTX_F(ftz)))
        return false;
    if (ins->op == PTX_OP_setp || ins->op == PTX_OP_cvt)
        return ins->ntypes > 1 && ins->type[1] == PTX_T_F32;
    return zn_ftz_flushes_result(ins);
}

typedef struct walk {
    zn_lfn *l;
    bool *flag;
    int ndefs;
} walk;

static void clear(int32_t r, void *ud)
{
    walk *w = ud;
    if (r >= 0 && (uint32_t)r < w->l->f->nregs)
        w->flag[r] = false;
}

static void count(int32_t r, void *ud)
{
    (void)r;
    ((walk *)ud)->ndefs++;
}

/* read_ok[r]: every read of r is a source of an instruction that flushes it */
static void reads(zn_lfn *l, bool *read_ok)
{
    const ptx_func *f = l->f;
    walk w = {l, read_ok, 0};
    for (uint32_t i = 0; i < f->nins; i++) {
        const ptx_ins *ins = &f->ins[i];
        bool fl = flushes_sources(ins);
        for (uint32_t k = 0; k < ins->nopnds; k++) {
            const ptx_opnd *o = &ins->opnds[k];
            if (k == 0) { /* destinations are writes; anything else there a read */
                w.ndefs = 0;
                zn_each_def(o, count, &w);
                if (!w.ndefs)
                    zn_each_reg(o, clear, &w);
                continue;
            }
            if (fl && o->kind == PTX_OPND_REG && o->reg2 < 0)
                continue;
            zn_each_reg(o, clear, &w);
        }
    }
}

/* an f32 result never subnormal: f16 (its smallest subnormal is a normal
 * f32) or an integer converted */
static bool never_subnormal(const ptx_ins *ins)
{
    if (!zn_cvt_to_f32(ins) || ins->ntypes < 2)
        return false;
    switch (ins->type[1]) {
    case PTX_T_F16:
    case PTX_T_S8: case PTX_T_S16: case PTX_T_S32: case PTX_T_S64:
    case PTX_T_U8: case PTX_T_U16: case PTX_T_U32: case PTX_T_U64:
        return true;
    default:
        return false;
    }
}

static bool write_keeps_clean(const ptx_ins *ins, const bool *clean)
{
    if (zn_ftz_flushes_result(ins) || never_subnormal(ins))
        return true;
    int mv = zn_moved_src(ins);
    return mv >= 0 && clean[ins->opnds[mv].reg];
}

static uint32_t clean_count(const zn_lfn *l)
{
    uint32_t n = 0;
    for (uint32_t r = 0; r < l->f->nregs; r++)
        n += l->reg_ftz_clean[r];
    return n;
}

/* One pass over the writes; written[r]: r has a write that keeps it clean. */
static void clean_pass(zn_lfn *l, bool *written)
{
    const ptx_func *f = l->f;
    walk w = {l, l->reg_ftz_clean, 0};
    for (uint32_t i = 0; i < f->nins; i++) {
        const ptx_ins *ins = &f->ins[i];
        if (!ins->nopnds)
            continue;
        if (write_keeps_clean(ins, l->reg_ftz_clean)) {
            if (ins->opnds[0].reg >= 0 && (uint32_t)ins->opnds[0].reg < f->nregs)
                written[ins->opnds[0].reg] = true;
            continue;
        }
        zn_each_def(&ins->opnds[0], clear, &w);
    }
}

void zn_ftz_clean_regs(zn_lfn *l)
{
    const ptx_func *f = l->f;
    if (!f->is_entry)
        return;
    for (uint32_t i = 0; i < f->nins; i++)
        if (f->ins[i].op == PTX_OP_call)
            return;
    l->reg_ftz_clean = calloc(f->nregs + 1, sizeof *l->reg_ftz_clean);
    l->reg_ftz_flushdef = calloc(f->nregs + 1, sizeof *l->reg_ftz_flushdef);
    bool *written = calloc(f->nregs + 1, sizeof *written);
    for (uint32_t r = 0; r < f->nregs; r++)
        l->reg_ftz_clean[r] = l->reg_ftz_flushdef[r] = true;
    /* greatest fixed point: a move's destination loses it when its source
     * does, so repeat until nothing changes */
    for (uint32_t before = UINT32_MAX, now = clean_count(l); now != before;
         before = now, now = clean_count(l))
        clean_pass(l, written);
    reads(l, l->reg_ftz_flushdef);
    for (uint32_t r = 0; r < f->nregs; r++) {
        /* flushed where written: only flushing reads, some other write */
        l->reg_ftz_flushdef[r] &= !l->reg_ftz_clean[r];
        /* never written: its reads see whatever the register held */
        l->reg_ftz_clean[r] = (l->reg_ftz_clean[r] && written[r]) || l->reg_ftz_flushdef[r];
    }
    free(written);
}

bool zn_ftz_flush_at_def(const zn_lfn *l, int32_t reg)
{
    return l->reg_ftz_flushdef && l->reg_ftz_flushdef[reg] &&
           !(l->ins && zn_ftz_flushes_result(l->ins));
}

bool zn_ftz_clean(const zn_lfn *l, const ptx_opnd *o)
{
    return l->reg_ftz_clean && o->kind == PTX_OPND_REG && o->reg2 < 0 && o->reg >= 0 &&
           (uint32_t)o->reg < l->f->nregs && l->reg_ftz_clean[o->reg];
}
