/* zn_lower_lanetab.c: a load's predicted lane offsets (issue #9).
 *
 * The affine analysis (zn_lower_affine.c) proves addresses of the form
 * base + lane * stride. Quantized kernels (llama.cpp's mul_mat_vec_q)
 * index with tid / 4 and tid % 4 and walk loop-carried pointers, so their
 * lanes read, e.g., base + 34 * (lane / 4) + 8 * (lane % 4): not affine,
 * and gathered (a 16-lane gather costs ~23 cycles on Zen 4, ten times a
 * window load and a byte permute).
 *
 * This file predicts such a pattern: each register's offsets from lane 0
 * as a table of 32 constants, assuming the lin layout (ntid.x a multiple
 * of 32, so %tid.x = lane + a multiple of 32 and %tid.y/z are the same in
 * the warp) and that shifts and masks see lane 0 aligned. It is flow-
 * insensitive: a register with several definitions gets the table they
 * all agree on, where `add r, r, u` with u the same in all lanes (a
 * pointer or index stepping in a loop) keeps any table. The prediction
 * need not be right: zn_lower_access.c checks the actual addresses of the
 * active lanes against it at run time and falls back to its shape tests
 * when they differ, so only speed depends on it. */
#include "zn_lower.h"

#include <stdlib.h>
#include <string.h>

#define LT_MAX_INS 8000u    /* larger functions: no prediction (memory) */
#define LT_DEPTH 32         /* definitions followed from one load (stack) */

enum { LT_UNKNOWN, LT_BUSY, LT_OK, LT_FAIL };

/* A value's table: lane offsets t[0..31], and t[LT_STEP], what one loop
 * iteration adds to every lane (0: none or not known): `add r, r, imm`
 * steps, carried through the same arithmetic as the lanes. */
#define LT_STEP ZN_LANES
#define LT_N (ZN_LANES + 1)

struct zn_lanetab {
    uint8_t *state;         /* per register */
    int64_t (*tab)[LT_N];
    uint32_t *def_start;    /* CSR of each register's defining instructions */
    uint32_t *defs;
    unsigned depth;         /* reg_walk's current recursion */
};

static struct zn_lanetab *lanetab_of(zn_lfn *l)
{
    const ptx_func *f = l->f;
    if (l->lanetab)
        return l->lanetab;
    struct zn_lanetab *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    uint32_t nr = f->nregs;
    t->state = calloc(nr, 1);
    t->tab = malloc((size_t)nr * sizeof *t->tab);
    if (!t->state || !t->tab || !zn_reg_defs(f, &t->def_start, &t->defs))
        goto fail;
    l->lanetab = t;
    return t;
fail:
    zn_lanetab_free(t);
    return NULL;
}

void zn_lanetab_free(struct zn_lanetab *t)
{
    if (!t)
        return;
    free(t->state);
    free(t->tab);
    free(t->def_start);
    free(t->defs);
    free(t);
}

static bool reg_tab(zn_lfn *l, int32_t r, int64_t *out);

static void tab_zero(int64_t *t)
{
    memset(t, 0, LT_N * sizeof *t);
}

bool zn_lanetab_is_zero(const int64_t *t)
{
    for (unsigned i = 0; i < ZN_LANES; i++)
        if (t[i])
            return false;
    return true;
}

static bool opnd_tab(zn_lfn *l, const ptx_opnd *o, int64_t *out)
{
    tab_zero(out);
    switch (o->kind) {
    case PTX_OPND_IMM:
        return true;
    case PTX_OPND_REG:
        return !o->neg && o->reg2 < 0 && reg_tab(l, o->reg, out);
    case PTX_OPND_SREG:
        switch (o->sreg) {
        case PTX_SREG_TID_X: case PTX_SREG_LANEID:
            for (unsigned i = 0; i < ZN_LANES; i++)
                out[i] = i;
            return true;
        case PTX_SREG_TID_Y: case PTX_SREG_TID_Z:
        case PTX_SREG_NTID_X: case PTX_SREG_NTID_Y: case PTX_SREG_NTID_Z:
        case PTX_SREG_CTAID_X: case PTX_SREG_CTAID_Y: case PTX_SREG_CTAID_Z:
        case PTX_SREG_NCTAID_X: case PTX_SREG_NCTAID_Y: case PTX_SREG_NCTAID_Z:
            return true;
        default:
            return false;
        }
    case PTX_OPND_SYM:
        return o->var && (o->var->space == PTX_SPACE_SHARED ||
                          o->var->space == PTX_SPACE_GLOBAL || o->var->space == PTX_SPACE_CONST);
    default:
        return false;
    }
}

static bool int_type(ptx_type t)
{
    switch (t) {
    case PTX_T_B32: case PTX_T_U32: case PTX_T_S32:
    case PTX_T_B64: case PTX_T_U64: case PTX_T_S64:
        return true;
    default:
        return false;
    }
}

/* k with imm == 1 << k, or -1 */
static int log2_imm(const ptx_opnd *o)
{
    if (o->kind != PTX_OPND_IMM || o->ival <= 0 || (o->ival & (o->ival - 1)))
        return -1;
    return __builtin_ctzll((unsigned long long)o->ival);
}

/* a * b where one side is the same in all lanes: only an immediate
 * factor keeps a known table */
static bool mul_tab(zn_lfn *l, const ptx_opnd *oa, const ptx_opnd *ob, int64_t *out)
{
    int64_t ta[LT_N], tb[LT_N];
    if (!opnd_tab(l, oa, ta) || !opnd_tab(l, ob, tb))
        return false;
    bool za = zn_lanetab_is_zero(ta), zb = zn_lanetab_is_zero(tb);
    if (za && zb) {
        tab_zero(out);
        return true;
    }
    const ptx_opnd *imm = zb && ob->kind == PTX_OPND_IMM ? ob : za && oa->kind == PTX_OPND_IMM ? oa
                                                                                             : NULL;
    if (!imm)
        return false;
    const int64_t *v = zb ? ta : tb;
    for (unsigned i = 0; i < LT_N; i++)
        out[i] = (int64_t)((uint64_t)v[i] * (uint64_t)imm->ival);
    return true;
}

static bool ins_tab(zn_lfn *l, const ptx_ins *ins, int64_t *out)
{
    const ptx_opnd *o = ins->opnds;
    int64_t a[LT_N], b[LT_N];
    if (zn_is_kernel_param_load(l, ins)) {
        tab_zero(out);
        return true;
    }
    if ((ins->flags & (PTX_F(cc) | PTX_F(sat))) || !int_type(ins->type[0]))
        return false;
    int k;
    switch (ins->op) {
    case PTX_OP_mov:
        return ins->nopnds == 2 && opnd_tab(l, &o[1], out);
    case PTX_OP_cvt:
        return ins->ntypes >= 2 && int_type(ins->type[1]) && opnd_tab(l, &o[1], out);
    case PTX_OP_cvta:
        return ins->space != PTX_SPACE_LOCAL && opnd_tab(l, &o[1], out);
    case PTX_OP_add: case PTX_OP_sub:
        if (!opnd_tab(l, &o[1], a) || !opnd_tab(l, &o[2], b))
            return false;
        for (unsigned i = 0; i < LT_N; i++)
            out[i] = ins->op == PTX_OP_add ? a[i] + b[i] : a[i] - b[i];
        return true;
    case PTX_OP_mul: case PTX_OP_mad:
        if ((ins->flags & PTX_F(hi_half)) || !mul_tab(l, &o[1], &o[2], out))
            return false;
        if (ins->op == PTX_OP_mad) {
            if (!opnd_tab(l, &o[3], a))
                return false;
            for (unsigned i = 0; i < LT_N; i++)
                out[i] += a[i];
        }
        return true;
    case PTX_OP_shl: case PTX_OP_shr: case PTX_OP_div:
        /* lane 0 assumed a multiple of 1 << k (tid.y * 32 + tid.x >> 2) */
        if (ins->op == PTX_OP_div ? (k = log2_imm(&o[2])) < 0
                                  : o[2].kind != PTX_OPND_IMM || (k = (int)o[2].ival) < 0 || k > 62)
            return false;
        if (!opnd_tab(l, &o[1], a))
            return false;
        for (unsigned i = 0; i < ZN_LANES; i++)
            out[i] = ins->op == PTX_OP_shl ? (int64_t)((uint64_t)a[i] << k) : a[i] >> k;
        out[LT_STEP] = ins->op == PTX_OP_shl ? (int64_t)((uint64_t)a[LT_STEP] << k) : 0;
        return true;
    case PTX_OP_not:
        /* ~x = -1 - x */
        if (!opnd_tab(l, &o[1], a))
            return false;
        for (unsigned i = 0; i < LT_N; i++)
            out[i] = -a[i];
        return true;
    case PTX_OP_or:
        /* an add of bits no lane has (nvcc: `or.b64 %rd, %rd, 2` after a
         * shift); lane 0 assumed without them too */
        if (o[2].kind != PTX_OPND_IMM || !opnd_tab(l, &o[1], out))
            return false;
        for (unsigned i = 0; i < ZN_LANES; i++)
            if ((uint64_t)out[i] & (uint64_t)o[2].ival)
                return false;
        return true;
    case PTX_OP_and: case PTX_OP_rem: {
        uint64_t m;
        if (ins->op == PTX_OP_rem) {
            if ((k = log2_imm(&o[2])) < 0)
                return false;
            m = ((uint64_t)1 << k) - 1;
        } else if (o[2].kind == PTX_OPND_IMM) {
            m = (uint64_t)o[2].ival;
        } else
            return false;
        if (!opnd_tab(l, &o[1], a))
            return false;
        for (unsigned i = 0; i < ZN_LANES; i++)
            out[i] = (int64_t)((uint64_t)a[i] & m);
        out[LT_STEP] = 0;
        return true;
    }
    default:
        return false;
    }
}

/* `add/sub r, r, u` (or `add r, u, r`) with u the same in all lanes: 1,
 * with *step what it adds when u is an immediate (else 0); 0: not a step */
static int is_step(zn_lfn *l, const ptx_ins *ins, int32_t r, int64_t *step)
{
    if ((ins->op != PTX_OP_add && ins->op != PTX_OP_sub) || ins->nopnds != 3 ||
        (ins->flags & PTX_F(cc)))
        return 0;
    const ptx_opnd *o = ins->opnds;
    int self = -1;
    for (int i = 1; i <= 2; i++)
        if (o[i].kind == PTX_OPND_REG && o[i].reg == r && !o[i].neg && o[i].reg2 < 0)
            self = i;
    if (self < 0 || (ins->op == PTX_OP_sub && self != 1))
        return 0;
    int64_t u[LT_N];
    const ptx_opnd *by = &o[3 - self];
    if (!opnd_tab(l, by, u) || !zn_lanetab_is_zero(u))
        return 0;
    *step = by->kind != PTX_OPND_IMM ? 0 : ins->op == PTX_OP_sub ? -by->ival : by->ival;
    return 1;
}

/* The table of r from all its definitions (memoized); uniform registers
 * (scalar storage) have no lane offsets but may step. */
static bool reg_walk(zn_lfn *l, int32_t r)
{
    struct zn_lanetab *t = l->lanetab;
    if (t->state[r] != LT_UNKNOWN)
        return t->state[r] == LT_OK;
    if (t->depth >= LT_DEPTH)
        return false;   /* not memoized: a shallower walk may succeed */
    t->depth++;
    t->state[r] = LT_BUSY;
    bool have = false, ok = true, varied = false;
    int64_t v[LT_N], step = 0;
    for (uint32_t i = t->def_start[r]; ok && i < t->def_start[r + 1]; i++) {
        const ptx_ins *ins = &l->f->ins[t->defs[i]];
        if (ins->nopnds < 2 || ins->opnds[0].kind != PTX_OPND_REG || ins->opnds[0].reg != r ||
            ins->opnds[0].reg2 >= 0) {
            ok = false;
            break;
        }
        int64_t s;
        if (is_step(l, ins, r, &s)) {
            /* immediate steps must agree; others (a launch constant added
             * once or per iteration) leave the offsets and are not known */
            varied |= step && s && s != step;
            step = s ? s : step;
            continue;
        }
        if (!ins_tab(l, ins, v))
            ok = false;
        else if (!have) {
            memcpy(t->tab[r], v, sizeof v);
            have = true;
        } else {
            /* the same offsets from lane 0 */
            for (unsigned j = 1; j < ZN_LANES; j++)
                if (v[j] - v[0] != t->tab[r][j] - t->tab[r][0])
                    ok = false;
            varied |= v[LT_STEP] != t->tab[r][LT_STEP];
        }
    }
    t->depth--;
    t->state[r] = ok && have ? LT_OK : LT_FAIL;
    if (ok && have)
        t->tab[r][LT_STEP] = varied ? 0 : t->tab[r][LT_STEP] + step;
    return ok && have;
}

static bool reg_tab(zn_lfn *l, int32_t r, int64_t *out)
{
    if (r < 0 || (uint32_t)r >= l->f->nregs)
        return false;
    bool ok = reg_walk(l, r);
    if (l->reg_uni && l->reg_uni[r]) {
        int64_t step = ok ? l->lanetab->tab[r][LT_STEP] : 0;
        tab_zero(out);
        out[LT_STEP] = step;
        return true;
    }
    if (ok)
        memcpy(out, l->lanetab->tab[r], sizeof l->lanetab->tab[r]);
    return ok;
}

bool zn_lanetab_addr(zn_lfn *l, int64_t *out, int64_t *step)
{
    const ptx_ins *ins = l->ins;
    if (!ins || (ins->op != PTX_OP_ld && ins->op != PTX_OP_ldu) || l->f->nins > LT_MAX_INS ||
        ins->space == PTX_SPACE_LOCAL || ins->space == PTX_SPACE_PARAM)
        return false;
    const ptx_opnd *a = &ins->opnds[1];
    if (a->kind != PTX_OPND_ADDR || a->reg < 0 || a->var || a->sym || a->func)
        return false;
    int64_t v[LT_N];
    if (!lanetab_of(l) || !reg_tab(l, a->reg, v))
        return false;
    for (unsigned i = 0; i < ZN_LANES; i++)
        out[i] = v[i] - v[0];
    *step = v[LT_STEP];
    return true;
}

bool zn_lanetab_reg(zn_lfn *l, int32_t r, int64_t *out)
{
    int64_t v[LT_N];
    if (l->f->nins > LT_MAX_INS || !lanetab_of(l) || !reg_tab(l, r, v))
        return false;
    for (unsigned i = 0; i < ZN_LANES; i++)
        out[i] = v[i] - v[0];
    return true;
}
