/* zn_lower_ins.c: the lowering dispatch, one case per PTX opcode family. */
#include "zn_lower.h"

/* cp.async.mbarrier.arrive (not a copy) and cp.async.bulk (completes on an
 * mbarrier) */
static bool cp_mbarrier(const ptx_ins *ins)
{
    for (unsigned i = 0; i < ins->nmods; i++)
        if (ins->mods[i] == PTX_MOD_mbarrier_m || ins->mods[i] == PTX_MOD_bulk)
            return true;
    return false;
}

void zn_lower_ins(zn_lfn *l, const ptx_ins *ins)
{
    bool fp = ptx_type_is_float(ins->type[0]);
    if (zn_pair_dropped(l, ins))
        return;   /* done by its pair's first load (zn_lower_pairld.c) */
    if (zn_record_dropped(l, ins))
        return;   /* done by its run's first access (zn_lower_record.c) */
    zn_stream_fence(l, ins);   /* non-temporal stores visible first (zn_lower_stream.c) */
    switch (ins->op) {
    case PTX_OP_add: case PTX_OP_sub: case PTX_OP_mul: case PTX_OP_mad:
    case PTX_OP_div: case PTX_OP_abs: case PTX_OP_neg: case PTX_OP_min:
    case PTX_OP_max:
        if (fp)
            zn_lower_float(l, ins);
        else
            zn_lower_int(l, ins);
        return;
    case PTX_OP_rem: case PTX_OP_mul24: case PTX_OP_mad24: case PTX_OP_addc:
    case PTX_OP_subc: case PTX_OP_madc: case PTX_OP_sad:
        zn_lower_int(l, ins);
        return;
    case PTX_OP_and: case PTX_OP_or: case PTX_OP_xor: case PTX_OP_not:
    case PTX_OP_cnot: case PTX_OP_shl: case PTX_OP_shr: case PTX_OP_bfe:
    case PTX_OP_bfi: case PTX_OP_bfind: case PTX_OP_brev: case PTX_OP_clz:
    case PTX_OP_popc: case PTX_OP_prmt: case PTX_OP_lop3: case PTX_OP_shf:
    case PTX_OP_bmsk: case PTX_OP_szext: case PTX_OP_dp4a: case PTX_OP_dp2a:
        zn_lower_bits(l, ins);
        return;
    case PTX_OP_vadd2: case PTX_OP_vadd4: case PTX_OP_vsub2: case PTX_OP_vsub4:
    case PTX_OP_vavrg2: case PTX_OP_vavrg4: case PTX_OP_vabsdiff2: case PTX_OP_vabsdiff4:
    case PTX_OP_vmin2: case PTX_OP_vmin4: case PTX_OP_vmax2: case PTX_OP_vmax4:
    case PTX_OP_vset2: case PTX_OP_vset4:
        zn_lower_video(l, ins);
        return;
    case PTX_OP_vadd: case PTX_OP_vsub: case PTX_OP_vabsdiff: case PTX_OP_vmin:
    case PTX_OP_vmax: case PTX_OP_vshl: case PTX_OP_vshr: case PTX_OP_vmad:
    case PTX_OP_vset:
        zn_lower_video_scalar(l, ins);
        return;
    case PTX_OP_fma: case PTX_OP_rcp: case PTX_OP_sqrt: case PTX_OP_rsqrt:
    case PTX_OP_ex2: case PTX_OP_lg2: case PTX_OP_sin: case PTX_OP_cos:
    case PTX_OP_tanh: case PTX_OP_copysign: case PTX_OP_testp:
        zn_lower_float(l, ins);
        return;
    case PTX_OP_setp: case PTX_OP_set: case PTX_OP_selp: case PTX_OP_slct:
        zn_lower_cmp(l, ins);
        return;
    case PTX_OP_cvt:
        zn_lower_cvt(l, ins);
        return;
    case PTX_OP_mov:
        zn_lower_mov(l, ins);
        return;
    case PTX_OP_ld: case PTX_OP_ldu: case PTX_OP_st: case PTX_OP_cvta:
    case PTX_OP_isspacep: case PTX_OP_membar: case PTX_OP_fence:
    case PTX_OP_prefetch: case PTX_OP_prefetchu:
        zn_lower_mem(l, ins);
        return;
    case PTX_OP_atom: case PTX_OP_red:
        if (zn_is_atom16(ins))
            zn_lower_atom16(l, ins); /* zn_lower_async.c */
        else
            zn_lower_atom(l, ins);
        return;
    case PTX_OP_wgmma:
        zn_lower_wgmma(l, ins); /* zn_lower_wgmma.c */
        return;
    case PTX_OP_mma: case PTX_OP_wmma:
        zn_lower_mma(l, ins);
        return;
    case PTX_OP_cp: case PTX_OP_ldmatrix: case PTX_OP_stmatrix: case PTX_OP_movmatrix:
        if (ins->op == PTX_OP_cp && cp_mbarrier(ins))
            zn_lower_mbarrier(l, ins); /* cp.async.mbarrier.arrive */
        else
            zn_lower_async(l, ins);
        return;
    case PTX_OP_mbarrier:
        zn_lower_mbarrier(l, ins); /* zn_lower_mbarrier.c */
        return;
    case PTX_OP_tensormap:
        zn_lower_tensormap(l, ins); /* zn_lower_tma.c */
        return;
    case PTX_OP_shfl: case PTX_OP_vote: case PTX_OP_activemask: case PTX_OP_elect:
    case PTX_OP_match: case PTX_OP_redux:
        zn_lower_warp(l, ins);
        return;
    case PTX_OP_bar: case PTX_OP_barrier:
        if (ins->scope == PTX_SCOPE_CLUSTER)
            zn_lower_cluster_barrier(l, ins); /* zn_lower_cluster.c */
        else
            zn_lower_bar(l, ins);
        return;
    case PTX_OP_mapa:
        zn_lower_mapa(l, ins); /* zn_lower_cluster.c */
        return;
    case PTX_OP_getctarank:
        zn_lower_getctarank(l, ins); /* zn_lower_cluster.c */
        return;
    case PTX_OP_call:
        zn_lower_call(l, ins);
        return;
    case PTX_OP_tex: case PTX_OP_tld4: case PTX_OP_txq: case PTX_OP_suld: case PTX_OP_sust:
        zn_lower_tex(l, ins); /* zn_lower_tex.c */
        return;
    case PTX_OP_brx:
        zn_lower_brx(l, ins); /* zn_lower_brx.c */
        return;
    case PTX_OP_bra: case PTX_OP_ret: case PTX_OP_exit: case PTX_OP_trap:
        zn_lower_branch(l, ins);
        return;
    case PTX_OP_nanosleep:
        /* spin-wait backoff (libcu++'s barrier on sm_70): let the block's
         * other warps, which the spinner may wait for, run */
        zn_lower_yield(l);
        return;
    case PTX_OP_pmevent: case PTX_OP_discard:
    case PTX_OP_griddepcontrol: case PTX_OP_brkpt:
    case PTX_OP_setmaxnreg: /* moves registers between warpgroups: a CPU has none to move */
        return; /* no effect on a CPU */
    default:
        zn_lerr_unsupported(l);
    }
}
