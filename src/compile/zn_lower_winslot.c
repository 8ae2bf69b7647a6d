/* zn_lower_winslot.c: window tests carried around loops (issue #9).
 *
 * A window load (zn_lower_window.c) first tests that the active lanes'
 * addresses are base + T[lane] for one base: about 15 vector instructions
 * on four vectors of 64-bit addresses. In llama.cpp's mul_mat_vec_q the
 * addresses are pointers stepped by a constant each iteration (`add.s64
 * %rd47, %rd47, 1088`) or such a pointer plus a loop-invariant offset
 * (`add.s64 %rd32, %rd47, %rd5`), so once a test passed, the next
 * iteration's addresses are known to pass too: adding the same value to
 * every lane keeps base + T with base moved by that value.
 *
 * So each address register R that such loads use (and the registers its
 * additions read) gets three slots, carried by mem2reg like any value:
 * valid (i1), base (i64) and cmask (i32), meaning: when valid, every lane
 * in cmask holds R = base + T_R[lane] (T_R: lanetab's prediction for R,
 * offsets from lane 0). After each instruction that writes R:
 *
 *   add/sub R, R, u (u an immediate or a uniform register): base += u,
 *       cmask &= the lanes that ran it (the others did not step);
 *   add D, S, W (mov D, S) where the tables agree (T_D = T_S + T_W):
 *       valid = valid_S & valid_W, base = base_S + base_W,
 *       cmask = cmask_S & cmask_W & the lanes that ran it;
 *   anything else: a register that additions read is tested right there
 *       (once, outside the loop, for an invariant offset); any other is
 *       forgotten (valid = false).
 *
 * A load whose lanes are all in cmask of a valid R skips the vector test;
 * otherwise it tests as before and, when the test passes, fills R's slots.
 * The slots start invalid in the entry block. Only 64-bit registers whose
 * every definition is an ALU instruction take part (a load or call writing
 * R goes through the same hook, but keeping to plain arithmetic keeps the
 * rules above the whole story). Like window loads it needs AVX-512 VBMI
 * and BW (and is off with ZINC_NO_WINDOW); ZINC_NO_WINSLOT=1 turns it
 * off. */
#include "zn_lower.h"

#include <stdlib.h>
#include <string.h>

enum { WS_NONE, WS_ADDR = 1, WS_OPERAND = 2 };  /* bits per register */

struct zn_winslot {
    uint8_t *use;               /* per register: WS_* bits */
    LLVMValueRef *valid, *base, *cmask;     /* allocas per tracked register */
};

static bool reg64(const ptx_func *f, int32_t r)
{
    if (r < 0 || (uint32_t)r >= f->nregs)
        return false;
    switch (f->regs[r].type) {
    case PTX_T_B64: case PTX_T_U64: case PTX_T_S64:
        return true;
    default:
        return false;
    }
}

static bool uniform_reg(const zn_lfn *l, int32_t r)
{
    return l->reg_uni && l->reg_uni[r];
}

/* A term of an addition: an immediate, a uniform register (both add the
 * same to every lane), or a lane-varying 64-bit register. */
static bool plain_reg_opnd(const ptx_opnd *o)
{
    return o->kind == PTX_OPND_REG && !o->neg && o->reg2 < 0;
}

static bool same_all_lanes(const zn_lfn *l, const ptx_opnd *o)
{
    return o->kind == PTX_OPND_IMM || (plain_reg_opnd(o) && uniform_reg(l, o->reg));
}

/* The ALU ops a tracked register may be written by (no memory, no calls:
 * their lowering may write registers outside this file's hook). */
static bool alu_op(ptx_op op)
{
    switch (op) {
    case PTX_OP_add: case PTX_OP_sub: case PTX_OP_mov: case PTX_OP_mul: case PTX_OP_mad:
    case PTX_OP_shl: case PTX_OP_shr: case PTX_OP_and: case PTX_OP_or: case PTX_OP_xor:
    case PTX_OP_cvt: case PTX_OP_cvta: case PTX_OP_selp: case PTX_OP_not: case PTX_OP_neg:
    case PTX_OP_min: case PTX_OP_max: case PTX_OP_div: case PTX_OP_rem:
        return true;
    default:
        return false;
    }
}

/* `add R, R, u` / `add R, u, R` / `sub R, R, u` with u the same in every
 * lane: 1 (+u) or -1 (-u), *by the operand; 0: not a step of R. */
static int step_of(const zn_lfn *l, const ptx_ins *ins, int32_t r, const ptx_opnd **by)
{
    if ((ins->op != PTX_OP_add && ins->op != PTX_OP_sub) || ins->nopnds != 3 ||
        (ins->flags & (PTX_F(cc) | PTX_F(sat))) || !reg64(l->f, r))
        return 0;
    const ptx_opnd *o = ins->opnds;
    for (int i = 1; i <= 2; i++) {
        if (!plain_reg_opnd(&o[i]) || o[i].reg != r || !same_all_lanes(l, &o[3 - i]))
            continue;
        if (ins->op == PTX_OP_sub && i != 1)
            return 0;
        *by = &o[3 - i];
        return ins->op == PTX_OP_sub ? -1 : 1;
    }
    return 0;
}

/* `add D, S, W` or `mov D, S` with D not among its operands and T_D =
 * T_S + T_W: the terms in t[0..1] (NULL: none). */
static bool sum_of(zn_lfn *l, const ptx_ins *ins, int32_t d, const ptx_opnd *t[2])
{
    const ptx_opnd *o = ins->opnds;
    t[0] = t[1] = NULL;
    if (ins->flags & (PTX_F(cc) | PTX_F(sat)))
        return false;
    if (ins->op == PTX_OP_mov && ins->nopnds == 2)
        t[0] = &o[1];
    else if (ins->op == PTX_OP_add && ins->nopnds == 3) {
        t[0] = &o[1];
        t[1] = &o[2];
    } else
        return false;
    int64_t td[ZN_LANES], sum[ZN_LANES] = {0};
    if (!zn_lanetab_reg(l, d, td))
        return false;
    for (unsigned k = 0; k < 2 && t[k]; k++) {
        if (same_all_lanes(l, t[k]))
            continue;
        int64_t tk[ZN_LANES];
        if (!plain_reg_opnd(t[k]) || t[k]->reg == d || !reg64(l->f, t[k]->reg) ||
            !zn_lanetab_reg(l, t[k]->reg, tk))
            return false;
        for (unsigned i = 0; i < ZN_LANES; i++)
            sum[i] += tk[i];
    }
    return memcmp(td, sum, sizeof td) == 0;
}

/* whether every definition of r is an unguarded-or-guarded ALU op */
static bool alu_defs_only(const zn_lfn *l, const uint32_t *start, const uint32_t *defs, int32_t r)
{
    for (uint32_t i = start[r]; i < start[r + 1]; i++) {
        const ptx_ins *ins = &l->f->ins[defs[i]];
        if (!alu_op(ins->op) || ins->opnds[0].kind != PTX_OPND_REG || ins->opnds[0].reg2 >= 0)
            return false;
    }
    return start[r] < start[r + 1];
}

/* The load's address register when it may take a window or a contiguous
 * run-time shape (over-approximate: the slots of a register no load uses
 * are dead code). */
static int32_t window_reg(zn_lfn *l, const ptx_ins *ins)
{
    if ((ins->op != PTX_OP_ld && ins->op != PTX_OP_ldu) || ins->nopnds < 2 ||
        ins->space == PTX_SPACE_SHARED || zn_ins_shared_cluster(ins))
        return -1;
    const ptx_opnd *a = &ins->opnds[1];
    if (a->kind != PTX_OPND_ADDR || a->reg < 0 || a->var || a->sym || a->func ||
        !reg64(l->f, a->reg) || uniform_reg(l, a->reg))
        return -1;
    int64_t t[ZN_LANES], step;
    const ptx_ins *was = l->ins;
    l->ins = ins;
    bool ok = zn_lanetab_addr(l, t, &step) && !zn_lanetab_is_zero(t);
    l->ins = was;
    return ok ? a->reg : -1;
}

void zn_winslot_plan(zn_lfn *l)
{
    const ptx_func *f = l->f;
    const char *off = getenv("ZINC_NO_WINSLOT");
    if ((off && *off && *off != '0') || getenv("ZINC_NO_WINDOW") ||
        !zn_target_has(l->m, "avx512vbmi") || !zn_target_has(l->m, "avx512bw"))
        return;
    uint32_t *start = NULL, *defs = NULL;
    struct zn_winslot *s = calloc(1, sizeof *s);
    int32_t *work = malloc((f->nregs + 1) * sizeof *work);
    if (!s || !work || !(s->use = calloc(f->nregs + 1, 1)) || !zn_reg_defs(f, &start, &defs))
        goto out;
    unsigned nw = 0, ntracked = 0;
    for (uint32_t i = 0; i < f->nins; i++) {
        int32_t r = window_reg(l, &f->ins[i]);
        if (r >= 0 && !s->use[r] && alu_defs_only(l, start, defs, r)) {
            s->use[r] = WS_ADDR;
            work[nw++] = r;
        }
    }
    /* the lane-varying terms of the tracked registers' additions */
    while (nw) {
        int32_t r = work[--nw];
        for (uint32_t i = start[r]; i < start[r + 1]; i++) {
            const ptx_ins *ins = &f->ins[defs[i]];
            const ptx_opnd *t[2], *by;
            if (step_of(l, ins, r, &by) || !sum_of(l, ins, r, t))
                continue;
            for (unsigned k = 0; k < 2 && t[k]; k++) {
                int32_t x = t[k]->kind == PTX_OPND_REG ? t[k]->reg : -1;
                if (x < 0 || uniform_reg(l, x))
                    continue;
                if (!s->use[x] && !alu_defs_only(l, start, defs, x))
                    continue;   /* never valid: the sum is retested at its load */
                if (!s->use[x])
                    work[nw++] = x;
                s->use[x] |= WS_OPERAND;
            }
        }
    }
    for (uint32_t r = 0; r < f->nregs; r++)
        ntracked += s->use[r] != WS_NONE;
    if (ntracked) {
        s->valid = calloc(f->nregs + 1, sizeof *s->valid);
        s->base = calloc(f->nregs + 1, sizeof *s->base);
        s->cmask = calloc(f->nregs + 1, sizeof *s->cmask);
        if (s->valid && s->base && s->cmask) {
            l->winslot = s;
            s = NULL;
        }
    }
out:
    free(start);
    free(defs);
    free(work);
    zn_winslot_free(s);
}

void zn_winslot_free(struct zn_winslot *s)
{
    if (!s)
        return;
    free(s->use);
    free(s->valid);
    free(s->base);
    free(s->cmask);
    free(s);
}

void zn_winslot_prologue(zn_lfn *l)
{
    struct zn_winslot *s = l->winslot;
    zn_lmod *m = l->m;
    if (!s)
        return;
    for (uint32_t r = 0; r < l->f->nregs; r++) {
        if (!s->use[r])
            continue;
        s->valid[r] = LLVMBuildAlloca(l->b, m->t_i1, "win.valid");
        s->base[r] = LLVMBuildAlloca(l->b, m->t_i64, "win.rbase");
        s->cmask[r] = LLVMBuildAlloca(l->b, m->t_i32, "win.cmask");
        LLVMBuildStore(l->b, LLVMConstInt(m->t_i1, 0, 0), s->valid[r]);
        LLVMBuildStore(l->b, LLVMConstInt(m->t_i64, 0, 0), s->base[r]);
        LLVMBuildStore(l->b, LLVMConstInt(m->t_i32, 0, 0), s->cmask[r]);
    }
}

/* what an operand adds to every lane, as i64 */
static LLVMValueRef lane_constant(zn_lfn *l, const ptx_opnd *o)
{
    if (o->kind == PTX_OPND_IMM)
        return LLVMConstInt(l->m->t_i64, (uint64_t)o->ival, 0);
    LLVMValueRef v = zn_load_reg_scalar(l, o->reg);
    return LLVMTypeOf(v) == l->m->t_i64 ? v : LLVMBuildZExt(l->b, v, l->m->t_i64, "");
}

static LLVMValueRef load_slot(zn_lfn *l, LLVMValueRef slot, LLVMTypeRef t, const char *name)
{
    return LLVMBuildLoad2(l->b, t, slot, name);
}

static void set_slots(zn_lfn *l, int32_t r, LLVMValueRef valid, LLVMValueRef base,
                      LLVMValueRef cmask)
{
    struct zn_winslot *s = l->winslot;
    LLVMBuildStore(l->b, valid, s->valid[r]);
    LLVMBuildStore(l->b, base, s->base[r]);
    LLVMBuildStore(l->b, cmask, s->cmask[r]);
}

static void after_def(zn_lfn *l, const ptx_ins *ins, int32_t r)
{
    zn_lmod *m = l->m;
    LLVMBuilderRef b = l->b;
    struct zn_winslot *s = l->winslot;
    LLVMValueRef ran = ll_mask_to_i32(l, l->emask);
    const ptx_opnd *by, *t[2];
    int sign = step_of(l, ins, r, &by);
    if (sign) {
        LLVMValueRef u = lane_constant(l, by), base = load_slot(l, s->base[r], m->t_i64, "");
        base = sign > 0 ? LLVMBuildAdd(b, base, u, "") : LLVMBuildSub(b, base, u, "");
        LLVMBuildStore(b, base, s->base[r]);
        LLVMBuildStore(b, LLVMBuildAnd(b, load_slot(l, s->cmask[r], m->t_i32, ""), ran, ""),
                       s->cmask[r]);
        return;
    }
    if (sum_of(l, ins, r, t)) {
        LLVMValueRef valid = LLVMConstInt(m->t_i1, 1, 0), base = LLVMConstInt(m->t_i64, 0, 0),
                     cmask = ran;
        for (unsigned k = 0; k < 2 && t[k]; k++) {
            if (same_all_lanes(l, t[k])) {
                base = LLVMBuildAdd(b, base, lane_constant(l, t[k]), "");
                continue;
            }
            int32_t x = t[k]->reg;
            if (!s->use[x]) {   /* never tested: the sum is not known */
                valid = LLVMConstInt(m->t_i1, 0, 0);
                continue;
            }
            valid = LLVMBuildAnd(b, valid, load_slot(l, s->valid[x], m->t_i1, ""), "");
            base = LLVMBuildAdd(b, base, load_slot(l, s->base[x], m->t_i64, ""), "");
            cmask = LLVMBuildAnd(b, cmask, load_slot(l, s->cmask[x], m->t_i32, ""), "");
        }
        set_slots(l, r, valid, base, cmask);
        return;
    }
    if (s->use[r] & WS_OPERAND) {
        /* a term of a sum: tested here, once per definition */
        int64_t tr[ZN_LANES];
        if (zn_lanetab_reg(l, r, tr)) {
            LLVMValueRef base;
            LLVMValueRef exact = zn_window_lanes_at(l, zn_load_reg(l, r), tr, &base);
            set_slots(l, r, exact, base, ran);
            return;
        }
    }
    LLVMBuildStore(b, LLVMConstInt(m->t_i1, 0, 0), s->valid[r]);
}

typedef struct def_ctx {
    zn_lfn *l;
    const ptx_ins *ins;
} def_ctx;

static void each_def(int32_t r, void *ud)
{
    def_ctx *c = ud;
    if (r >= 0 && (uint32_t)r < c->l->f->nregs && c->l->winslot->use[r])
        after_def(c->l, c->ins, r);
}

void zn_winslot_def(zn_lfn *l, const ptx_ins *ins)
{
    if (!l->winslot || !ins || !ins->nopnds || !l->emask)
        return;
    def_ctx c = {l, ins};
    zn_each_def(&ins->opnds[0], each_def, &c);
}

/* whether [addr] a of the load being lowered has slots (a tracked
 * address register, outside the shared window) */
static bool tracked_addr(const zn_lfn *l, const ptx_opnd *a)
{
    const ptx_ins *ins = l->ins;
    return l->winslot && ins && a->kind == PTX_OPND_ADDR && a->reg >= 0 &&
           (uint32_t)a->reg < l->f->nregs && (l->winslot->use[a->reg] & WS_ADDR) &&
           ins->space != PTX_SPACE_SHARED && !zn_ins_shared_cluster(ins);
}

bool zn_winslot_known(zn_lfn *l, const ptx_opnd *a, LLVMValueRef *hit, LLVMValueRef *base)
{
    struct zn_winslot *s = l->winslot;
    zn_lmod *m = l->m;
    LLVMBuilderRef b = l->b;
    if (!tracked_addr(l, a))
        return false;
    int32_t r = a->reg;
    LLVMValueRef ran = ll_mask_to_i32(l, l->emask);
    LLVMValueRef outside = LLVMBuildAnd(b, ran, LLVMBuildNot(b, load_slot(l, s->cmask[r],
                                        m->t_i32, ""), ""), "");
    *hit = LLVMBuildAnd(b, load_slot(l, s->valid[r], m->t_i1, "win.valid"),
                        LLVMBuildICmp(b, LLVMIntEQ, outside, LLVMConstInt(m->t_i32, 0, 0), ""),
                        "win.known");
    *base = LLVMBuildAdd(b, load_slot(l, s->base[r], m->t_i64, ""),
                         LLVMConstInt(m->t_i64, (uint64_t)a->ival, 0), "win.kbase");
    return true;
}

void zn_winslot_tested(zn_lfn *l, const ptx_opnd *a, LLVMValueRef exact, LLVMValueRef base)
{
    LLVMValueRef rbase = LLVMBuildSub(l->b, base, LLVMConstInt(l->m->t_i64, (uint64_t)a->ival, 0),
                                      "");
    set_slots(l, a->reg, exact, rbase, ll_mask_to_i32(l, l->emask));
}

bool zn_winslot_contig(zn_lfn *l, uint64_t stride, LLVMValueRef *hit, LLVMValueRef *base,
                       const ptx_opnd **ao)
{
    const ptx_ins *ins = l->ins;
    if (!ins || (ins->op != PTX_OP_ld && ins->op != PTX_OP_ldu) || ins->nopnds < 2)
        return false;
    const ptx_opnd *a = &ins->opnds[1];
    int64_t t[ZN_LANES];
    if (!tracked_addr(l, a) || !zn_lanetab_reg(l, a->reg, t))
        return false;
    for (unsigned i = 0; i < ZN_LANES; i++)
        if (t[i] != (int64_t)(i * stride))
            return false;
    *ao = a;
    return zn_winslot_known(l, a, hit, base);
}
