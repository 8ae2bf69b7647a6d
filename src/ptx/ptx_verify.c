/* ptx_verify.c: light structural checks, so that the compiler never sees
 * an instruction it could crash on: operand counts per opcode, operand
 * kinds in the positions that must be registers, addresses or labels,
 * guards that are predicates, a type where the instruction needs one.
 * Deliberately permissive on register widths: nvcc writes things such as
 * "ld.param.u32 %rd2, [p]" (a 32-bit load into a 64-bit register). */
#include <stdarg.h>
#include <stdio.h>
#include "ptx_internal.h"

/* operand count bounds per opcode; ops not listed accept 0..PTX_MAX_OPNDS */
static const struct { uint8_t min, max; } counts[PTX_OP_COUNT] = {
    [PTX_OP_abs] = {2, 2},     [PTX_OP_activemask] = {1, 1},
    [PTX_OP_add] = {3, 3},     [PTX_OP_addc] = {3, 3},
    [PTX_OP_and] = {3, 3},     [PTX_OP_atom] = {3, 4},
    [PTX_OP_bar] = {0, 4},     [PTX_OP_barrier] = {0, 4},
    [PTX_OP_bfe] = {4, 4},     [PTX_OP_bfi] = {5, 5},
    [PTX_OP_bfind] = {2, 2},   [PTX_OP_bra] = {1, 1},
    [PTX_OP_brev] = {2, 2},    [PTX_OP_brkpt] = {0, 0},
    [PTX_OP_call] = {1, 4},    [PTX_OP_clz] = {2, 2},
    [PTX_OP_cnot] = {2, 2},    [PTX_OP_copysign] = {3, 3},
    [PTX_OP_cos] = {2, 2},     [PTX_OP_cvt] = {2, 3},
    [PTX_OP_cvta] = {2, 2},    [PTX_OP_div] = {3, 3},
    [PTX_OP_dp2a] = {4, 4},    [PTX_OP_dp4a] = {4, 4},
    [PTX_OP_ex2] = {2, 2},     [PTX_OP_exit] = {0, 0},
    [PTX_OP_fence] = {0, 0},   [PTX_OP_fma] = {4, 4},
    [PTX_OP_isspacep] = {2, 2}, [PTX_OP_ld] = {2, 3},
    [PTX_OP_ldu] = {2, 2},     [PTX_OP_lg2] = {2, 2},
    [PTX_OP_lop3] = {5, 5},    [PTX_OP_mad] = {4, 4},
    [PTX_OP_mad24] = {4, 4},   [PTX_OP_madc] = {4, 4},
    [PTX_OP_max] = {3, 4},     [PTX_OP_membar] = {0, 0},
    [PTX_OP_min] = {3, 4},     [PTX_OP_mov] = {2, 2},
    [PTX_OP_mul] = {3, 3},     [PTX_OP_mul24] = {3, 3},
    [PTX_OP_neg] = {2, 2},     [PTX_OP_nanosleep] = {1, 1},
    [PTX_OP_not] = {2, 2},     [PTX_OP_or] = {3, 3},
    [PTX_OP_popc] = {2, 2},    [PTX_OP_prmt] = {3, 4},
    [PTX_OP_rcp] = {2, 2},     [PTX_OP_red] = {2, 3},
    [PTX_OP_redux] = {2, 3},   [PTX_OP_rem] = {3, 3},
    [PTX_OP_ret] = {0, 0},     [PTX_OP_rsqrt] = {2, 2},
    [PTX_OP_sad] = {4, 4},     [PTX_OP_selp] = {4, 4},
    [PTX_OP_vadd2] = {4, 4},   [PTX_OP_vadd4] = {4, 4},
    [PTX_OP_vsub2] = {4, 4},   [PTX_OP_vsub4] = {4, 4},
    [PTX_OP_vavrg2] = {4, 4},  [PTX_OP_vavrg4] = {4, 4},
    [PTX_OP_vabsdiff2] = {4, 4}, [PTX_OP_vabsdiff4] = {4, 4},
    [PTX_OP_vmin2] = {4, 4},   [PTX_OP_vmin4] = {4, 4},
    [PTX_OP_vmax2] = {4, 4},   [PTX_OP_vmax4] = {4, 4},
    [PTX_OP_vset2] = {4, 4},   [PTX_OP_vset4] = {4, 4},
    [PTX_OP_vadd] = {3, 4},    [PTX_OP_vsub] = {3, 4},
    [PTX_OP_vabsdiff] = {3, 4}, [PTX_OP_vmin] = {3, 4},
    [PTX_OP_vmax] = {3, 4},    [PTX_OP_vshl] = {3, 4},
    [PTX_OP_vshr] = {3, 4},    [PTX_OP_vset] = {3, 4},
    [PTX_OP_vmad] = {4, 4},
    [PTX_OP_set] = {3, 4},     [PTX_OP_setp] = {3, 4},
    [PTX_OP_shf] = {4, 4},     [PTX_OP_shfl] = {4, 5},
    [PTX_OP_shl] = {3, 3},     [PTX_OP_shr] = {3, 3},
    [PTX_OP_sin] = {2, 2},     [PTX_OP_slct] = {4, 4},
    [PTX_OP_sqrt] = {2, 2},    [PTX_OP_st] = {2, 3},
    [PTX_OP_sub] = {3, 3},     [PTX_OP_subc] = {3, 3},
    [PTX_OP_tanh] = {2, 2},    [PTX_OP_testp] = {2, 2},
    [PTX_OP_trap] = {0, 0},    [PTX_OP_vote] = {2, 3},
    [PTX_OP_xor] = {3, 3},     [PTX_OP_match] = {3, 4},
    [PTX_OP_brx] = {2, 2},     [PTX_OP_bmsk] = {3, 3},
    [PTX_OP_szext] = {3, 3},   [PTX_OP_griddepcontrol] = {0, 0},
    [PTX_OP_setmaxnreg] = {1, 1},
};

/* ops that need no type modifier, or whose first operand is not a result */
static bool typeless(ptx_op op)
{
    switch (op) {
    case PTX_OP_bar: case PTX_OP_barrier: case PTX_OP_bra: case PTX_OP_brkpt:
    case PTX_OP_call: case PTX_OP_exit: case PTX_OP_fence: case PTX_OP_membar:
    case PTX_OP_pmevent: case PTX_OP_prefetch: case PTX_OP_prefetchu: case PTX_OP_ret: case PTX_OP_trap:
    case PTX_OP_brx: case PTX_OP_cp: case PTX_OP_griddepcontrol:
    case PTX_OP_discard: case PTX_OP_isspacep: case PTX_OP_mma: case PTX_OP_wmma:
    case PTX_OP_ldmatrix: case PTX_OP_stmatrix: case PTX_OP_nanosleep:
    case PTX_OP_elect: case PTX_OP_applypriority: case PTX_OP_mbarrier: case PTX_OP_tensormap:
    case PTX_OP_wgmma:
        return true;
    default:
        return false;
    }
}

static bool no_result(ptx_op op)
{
    return typeless(op) || op == PTX_OP_st || op == PTX_OP_red || op == PTX_OP_sust ||
           op == PTX_OP_setmaxnreg;
}

typedef struct vctx {
    const char *name;
    char *err;
    size_t errlen;
} vctx;

__attribute__((format(printf, 3, 4)))
static int fail(const vctx *c, const ptx_ins *ins, const char *fmt, ...)
{
    if (c->err && c->errlen) {
        char msg[200];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
        snprintf(c->err, c->errlen, "%s:%u:%u: %s near '%s'", c->name, ins->line,
                 ins->col, msg, ptx_op_table[ins->op].name);
    }
    return -1;
}

static bool is_pred(const ptx_func *f, int32_t r)
{
    return r >= 0 && (uint32_t)r < f->nregs && f->regs[r].type == PTX_T_PRED;
}

static int check_ins(const vctx *c, const ptx_func *f, const ptx_ins *ins)
{
    ptx_op op = ins->op;
    if (ins->guard_reg >= 0 && !is_pred(f, ins->guard_reg))
        return fail(c, ins, "guard is not a .pred register");
    if (counts[op].max && (ins->nopnds < counts[op].min || ins->nopnds > counts[op].max))
        return fail(c, ins, "wrong number of operands (%u)", ins->nopnds);
    if (!typeless(op) && ins->ntypes == 0)
        return fail(c, ins, "instruction needs a type");
    if (op == PTX_OP_cvt && ins->ntypes < 2)
        return fail(c, ins, "cvt needs two types");
    if (ins->nopnds && !no_result(op)) {
        ptx_opnd_kind k = ins->opnds[0].kind;
        if (k != PTX_OPND_REG && k != PTX_OPND_VEC && k != PTX_OPND_SINK)
            return fail(c, ins, "destination must be a register");
    }
    switch (op) {
    case PTX_OP_ld: case PTX_OP_ldu: case PTX_OP_atom:
        if (ins->opnds[1].kind != PTX_OPND_ADDR)
            return fail(c, ins, "second operand must be an address");
        break;
    case PTX_OP_st: case PTX_OP_red:
        if (ins->opnds[0].kind != PTX_OPND_ADDR)
            return fail(c, ins, "first operand must be an address");
        break;
    case PTX_OP_bra:
        if (ins->opnds[0].kind != PTX_OPND_LABEL)
            return fail(c, ins, "branch target must be a label");
        break;
    case PTX_OP_brx:
        if (ins->opnds[1].kind != PTX_OPND_LIST)
            return fail(c, ins, "brx.idx needs a .branchtargets list");
        break;
    case PTX_OP_setp:
        if (ins->opnds[0].kind == PTX_OPND_REG && !is_pred(f, ins->opnds[0].reg))
            return fail(c, ins, "setp destination must be a .pred register");
        break;
    case PTX_OP_call: {
        /* call [(rets),] target [, (args)] [, proto] */
        uint32_t t = ins->opnds[0].kind == PTX_OPND_LIST ? 1 : 0;
        if (t >= ins->nopnds)
            return fail(c, ins, "call without a target");
        const ptx_opnd *o = &ins->opnds[t];
        if (!(o->kind == PTX_OPND_SYM && o->func) && o->kind != PTX_OPND_REG)
            return fail(c, ins, "call target must be a function or a register");
        break;
    }
    case PTX_OP_setmaxnreg: {
        /* setmaxnreg.{inc,dec}.sync.aligned.u32 imm, imm in 24..256 by 8 */
        const ptx_opnd *o = &ins->opnds[0];
        if (ins->subop != PTX_SUB_INC && ins->subop != PTX_SUB_DEC)
            return fail(c, ins, "setmaxnreg needs .inc or .dec");
        if (o->kind != PTX_OPND_IMM || o->ival < 24 || o->ival > 256 || o->ival % 8)
            return fail(c, ins, "setmaxnreg's count must be a constant from 24 to 256, a multiple of 8");
        break;
    }
    default:
        break;
    }
    return 0;
}

PTX_HIDDEN int ptx_verify_named(const ptx_module *m, const char *name, char *err,
                                size_t errlen)
{
    vctx c = { name, err, errlen };
    for (uint32_t i = 0; i < m->nfuncs; i++) {
        const ptx_func *f = &m->funcs[i];
        for (uint32_t k = 0; k < f->nins; k++)
            if (check_ins(&c, f, &f->ins[k]))
                return -1;
    }
    return 0;
}

int ptx_verify(const ptx_module *m, char *err, size_t errlen)
{
    return ptx_verify_named(m, "ptx", err, errlen);
}
