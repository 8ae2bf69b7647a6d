/* zn_trace_wrap.h: Sn(sym, hook, kinds...) -> an exported wrapper `sym`
 * with n typed parameters that packs its arguments, logs the call around
 * the target's `sym`, and returns its result (or what a hook made of it).
 * Included by zn_trace_wrappers.c only, around zn_trace_sigs.def. */
#ifndef ZN_TRACE_WRAP_H
#define ZN_TRACE_WRAP_H

#include "zn_trace.h"

#include <string.h>

#define K(name, ctype, out) typedef ctype ZN_TK_T_##name;
#include "zn_trace_kinds.def"
#undef K

/* Any argument (at most 8 bytes) as a 64-bit word, zero-extended. */
#define ZN_TR_PACK(a) ({ uint64_t v_ = 0; memcpy(&v_, &(a), sizeof(a)); v_; })
/* What a wrapper answers when the target lacks the symbol. */
#define ZN_TR_MISSING 801 /* CUDA_ERROR_NOT_SUPPORTED */

#define S0(sym, hook) \
ZN_TR_API CUresult sym(void) \
{ \
    uint64_t av[1] = { 0 }; \
    zn_tr_frame f = { .sig = ZN_TS_##sym, .av = av, .nargs = 0 }; \
    zn_tr_enter(&f); \
    CUresult (*fn)(void) = (CUresult (*)(void))zn_tr_real[ZN_TS_##sym]; \
    CUresult r = fn ? fn() : ZN_TR_MISSING; \
    zn_tr_leave(&f, r); \
    return f.result; \
}

#define S1(sym, hook, k1) \
ZN_TR_API CUresult sym(ZN_TK_T_##k1 a1) \
{ \
    uint64_t av[1] = { ZN_TR_PACK(a1) }; \
    zn_tr_frame f = { .sig = ZN_TS_##sym, .av = av, .nargs = 1 }; \
    zn_tr_enter(&f); \
    CUresult (*fn)(ZN_TK_T_##k1) = (CUresult (*)(ZN_TK_T_##k1))zn_tr_real[ZN_TS_##sym]; \
    CUresult r = fn ? fn(a1) : ZN_TR_MISSING; \
    zn_tr_leave(&f, r); \
    return f.result; \
}

#define S2(sym, hook, k1, k2) \
ZN_TR_API CUresult sym(ZN_TK_T_##k1 a1, ZN_TK_T_##k2 a2) \
{ \
    uint64_t av[2] = { ZN_TR_PACK(a1), ZN_TR_PACK(a2) }; \
    zn_tr_frame f = { .sig = ZN_TS_##sym, .av = av, .nargs = 2 }; \
    zn_tr_enter(&f); \
    CUresult (*fn)(ZN_TK_T_##k1, ZN_TK_T_##k2) = (CUresult (*)(ZN_TK_T_##k1, ZN_TK_T_##k2))zn_tr_real[ZN_TS_##sym]; \
    CUresult r = fn ? fn(a1, a2) : ZN_TR_MISSING; \
    zn_tr_leave(&f, r); \
    return f.result; \
}

#define S3(sym, hook, k1, k2, k3) \
ZN_TR_API CUresult sym(ZN_TK_T_##k1 a1, ZN_TK_T_##k2 a2, ZN_TK_T_##k3 a3) \
{ \
    uint64_t av[3] = { ZN_TR_PACK(a1), ZN_TR_PACK(a2), ZN_TR_PACK(a3) }; \
    zn_tr_frame f = { .sig = ZN_TS_##sym, .av = av, .nargs = 3 }; \
    zn_tr_enter(&f); \
    CUresult (*fn)(ZN_TK_T_##k1, ZN_TK_T_##k2, ZN_TK_T_##k3) = (CUresult (*)(ZN_TK_T_##k1, ZN_TK_T_##k2, ZN_TK_T_##k3))zn_tr_real[ZN_TS_##sym]; \
    CUresult r = fn ? fn(a1, a2, a3) : ZN_TR_MISSING; \
    zn_tr_leave(&f, r); \
    return f.result; \
}

#define S4(sym, hook, k1, k2, k3, k4) \
ZN_TR_API CUresult sym(ZN_TK_T_##k1 a1, ZN_TK_T_##k2 a2, ZN_TK_T_##k3 a3, ZN_TK_T_##k4 a4) \
{ \
    uint64_t av[4] = { ZN_TR_PACK(a1), ZN_TR_PACK(a2), ZN_TR_PACK(a3), ZN_TR_PACK(a4) }; \
    zn_tr_frame f = { .sig = ZN_TS_##sym, .av = av, .nargs = 4 }; \
    zn_tr_enter(&f); \
    CUresult (*fn)(ZN_TK_T_##k1, ZN_TK_T_##k2, ZN_TK_T_##k3, ZN_TK_T_##k4) = (CUresult (*)(ZN_TK_T_##k1, ZN_TK_T_##k2, ZN_TK_T_##k3, ZN_TK_T_##k4))zn_tr_real[ZN_TS_##sym]; \
    CUresult r = fn ? fn(a1, a2, a3, a4) : ZN_TR_MISSING; \
    zn_tr_leave(&f, r); \
    return f.result; \
}

#define S5(sym, hook, k1, k2, k3, k4, k5) \
ZN_TR_API CUresult sym(ZN_TK_T_##k1 a1, ZN_TK_T_##k2 a2, ZN_TK_T_##k3 a3, ZN_TK_T_##k4 a4, ZN_TK_T_##k5 a5) \
{ \
    uint64_t av[5] = { ZN_TR_PACK(a1), ZN_TR_PACK(a2), ZN_TR_PACK(a3), ZN_TR_PACK(a4), ZN_TR_PACK(a5) }; \
    zn_tr_frame f = { .sig = ZN_TS_##sym, .av = av, .nargs = 5 }; \
    zn_tr_enter(&f); \
    CUresult (*fn)(ZN_TK_T_##k1, ZN_TK_T_##k2, ZN_TK_T_##k3, ZN_TK_T_##k4, ZN_TK_T_##k5) = (CUresult (*)(ZN_TK_T_##k1, ZN_TK_T_##k2, ZN_TK_T_##k3, ZN_TK_T_##k4, ZN_TK_T_##k5))zn_tr_real[ZN_TS_##sym]; \
    CUresult r = fn ? fn(a1, a2, a3, a4, a5) : ZN_TR_MISSING; \
    zn_tr_leave(&f, r); \
    return f.result; \
}

#define S6(sym, hook, k1, k2, k3, k4, k5, k6) \
ZN_TR_API CUresult sym(ZN_TK_T_##k1 a1, ZN_TK_T_##k2 a2, ZN_TK_T_##k3 a3, ZN_TK_T_##k4 a4, ZN_TK_T_##k5 a5, ZN_TK_T_##k6 a6) \
{ \
    uint64_t av[6] = { ZN_TR_PACK(a1), ZN_TR_PACK(a2), ZN_TR_PACK(a3), ZN_TR_PACK(a4), ZN_TR_PACK(a5), ZN_TR_PACK(a6) }; \
    zn_tr_frame f = { .sig = ZN_TS_##sym, .av = av, .nargs = 6 }; \
    zn_tr_enter(&f); \
    CUresult (*fn)(ZN_TK_T_##k1, ZN_TK_T_##k2, ZN_TK_T_##k3, ZN_TK_T_##k4, ZN_TK_T_##k5, ZN_TK_T_##k6) = (CUresult (*)(ZN_TK_T_##k1, ZN_TK_T_##k2, ZN_TK_T_##k3, ZN_TK_T_##k4, ZN_TK_T_##k5, ZN_TK_T_##k6))zn_tr_real[ZN_TS_##sym]; \
    CUresult r = fn ? fn(a1, a2, a3, a4, a5, a6) : ZN_TR_MISSING; \
    zn_tr_leave(&f, r); \
    return f.result; \
}

#define S7(sym, hook, k1, k2, k3, k4, k5, k6, k7) \
ZN_TR_API CUresult sym(ZN_TK_T_##k1 a1, ZN_TK_T_##k2 a2, ZN_TK_T_##k3 a3, ZN_TK_T_##k4 a4, ZN_TK_T_##k5 a5, ZN_TK_T_##k6 a6, ZN_TK_T_##k7 a7) \
{ \
    uint64_t av[7] = { ZN_TR_PACK(a1), ZN_TR_PACK(a2), ZN_TR_PACK(a3), ZN_TR_PACK(a4), ZN_TR_PACK(a5), ZN_TR_PACK(a6), ZN_TR_PACK(a7) }; \
    zn_tr_frame f = { .sig = ZN_TS_##sym, .av = av, .nargs = 7 }; \
    zn_tr_enter(&f); \
    CUresult (*fn)(ZN_TK_T_##k1, ZN_TK_T_##k2, ZN_TK_T_##k3, ZN_TK_T_##k4, ZN_TK_T_##k5, ZN_TK_T_##k6, ZN_TK_T_##k7) = (CUresult (*)(ZN_TK_T_##k1, ZN_TK_T_##k2, ZN_TK_T_##k3, ZN_TK_T_##k4, ZN_TK_T_##k5, ZN_TK_T_##k6, ZN_TK_T_##k7))zn_tr_real[ZN_TS_##sym]; \
    CUresult r = fn ? fn(a1, a2, a3, a4, a5, a6, a7) : ZN_TR_MISSING; \
    zn_tr_leave(&f, r); \
    return f.result; \
}

#define S8(sym, hook, k1, k2, k3, k4, k5, k6, k7, k8) \
ZN_TR_API CUresult sym(ZN_TK_T_##k1 a1, ZN_TK_T_##k2 a2, ZN_TK_T_##k3 a3, ZN_TK_T_##k4 a4, ZN_TK_T_##k5 a5, ZN_TK_T_##k6 a6, ZN_TK_T_##k7 a7, ZN_TK_T_##k8 a8) \
{ \
    uint64_t av[8] = { ZN_TR_PACK(a1), ZN_TR_PACK(a2), ZN_TR_PACK(a3), ZN_TR_PACK(a4), ZN_TR_PACK(a5), ZN_TR_PACK(a6), ZN_TR_PACK(a7), ZN_TR_PACK(a8) }; \
    zn_tr_frame f = { .sig = ZN_TS_##sym, .av = av, .nargs = 8 }; \
    zn_tr_enter(&f); \
    CUresult (*fn)(ZN_TK_T_##k1, ZN_TK_T_##k2, ZN_TK_T_##k3, ZN_TK_T_##k4, ZN_TK_T_##k5, ZN_TK_T_##k6, ZN_TK_T_##k7, ZN_TK_T_##k8) = (CUresult (*)(ZN_TK_T_##k1, ZN_TK_T_##k2, ZN_TK_T_##k3, ZN_TK_T_##k4, ZN_TK_T_##k5, ZN_TK_T_##k6, ZN_TK_T_##k7, ZN_TK_T_##k8))zn_tr_real[ZN_TS_##sym]; \
    CUresult r = fn ? fn(a1, a2, a3, a4, a5, a6, a7, a8) : ZN_TR_MISSING; \
    zn_tr_leave(&f, r); \
    return f.result; \
}

#define S9(sym, hook, k1, k2, k3, k4, k5, k6, k7, k8, k9) \
ZN_TR_API CUresult sym(ZN_TK_T_##k1 a1, ZN_TK_T_##k2 a2, ZN_TK_T_##k3 a3, ZN_TK_T_##k4 a4, ZN_TK_T_##k5 a5, ZN_TK_T_##k6 a6, ZN_TK_T_##k7 a7, ZN_TK_T_##k8 a8, ZN_TK_T_##k9 a9) \
{ \
    uint64_t av[9] = { ZN_TR_PACK(a1), ZN_TR_PACK(a2), ZN_TR_PACK(a3), ZN_TR_PACK(a4), ZN_TR_PACK(a5), ZN_TR_PACK(a6), ZN_TR_PACK(a7), ZN_TR_PACK(a8), ZN_TR_PACK(a9) }; \
    zn_tr_frame f = { .sig = ZN_TS_##sym, .av = av, .nargs = 9 }; \
    zn_tr_enter(&f); \
    CUresult (*fn)(ZN_TK_T_##k1, ZN_TK_T_##k2, ZN_TK_T_##k3, ZN_TK_T_##k4, ZN_TK_T_##k5, ZN_TK_T_##k6, ZN_TK_T_##k7, ZN_TK_T_##k8, ZN_TK_T_##k9) = (CUresult (*)(ZN_TK_T_##k1, ZN_TK_T_##k2, ZN_TK_T_##k3, ZN_TK_T_##k4, ZN_TK_T_##k5, ZN_TK_T_##k6, ZN_TK_T_##k7, ZN_TK_T_##k8, ZN_TK_T_##k9))zn_tr_real[ZN_TS_##sym]; \
    CUresult r = fn ? fn(a1, a2, a3, a4, a5, a6, a7, a8, a9) : ZN_TR_MISSING; \
    zn_tr_leave(&f, r); \
    return f.result; \
}

#define S10(sym, hook, k1, k2, k3, k4, k5, k6, k7, k8, k9, k10) \
ZN_TR_API CUresult sym(ZN_TK_T_##k1 a1, ZN_TK_T_##k2 a2, ZN_TK_T_##k3 a3, ZN_TK_T_##k4 a4, ZN_TK_T_##k5 a5, ZN_TK_T_##k6 a6, ZN_TK_T_##k7 a7, ZN_TK_T_##k8 a8, ZN_TK_T_##k9 a9, ZN_TK_T_##k10 a10) \
{ \
    uint64_t av[10] = { ZN_TR_PACK(a1), ZN_TR_PACK(a2), ZN_TR_PACK(a3), ZN_TR_PACK(a4), ZN_TR_PACK(a5), ZN_TR_PACK(a6), ZN_TR_PACK(a7), ZN_TR_PACK(a8), ZN_TR_PACK(a9), ZN_TR_PACK(a10) }; \
    zn_tr_frame f = { .sig = ZN_TS_##sym, .av = av, .nargs = 10 }; \
    zn_tr_enter(&f); \
    CUresult (*fn)(ZN_TK_T_##k1, ZN_TK_T_##k2, ZN_TK_T_##k3, ZN_TK_T_##k4, ZN_TK_T_##k5, ZN_TK_T_##k6, ZN_TK_T_##k7, ZN_TK_T_##k8, ZN_TK_T_##k9, ZN_TK_T_##k10) = (CUresult (*)(ZN_TK_T_##k1, ZN_TK_T_##k2, ZN_TK_T_##k3, ZN_TK_T_##k4, ZN_TK_T_##k5, ZN_TK_T_##k6, ZN_TK_T_##k7, ZN_TK_T_##k8, ZN_TK_T_##k9, ZN_TK_T_##k10))zn_tr_real[ZN_TS_##sym]; \
    CUresult r = fn ? fn(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10) : ZN_TR_MISSING; \
    zn_tr_leave(&f, r); \
    return f.result; \
}

#define S11(sym, hook, k1, k2, k3, k4, k5, k6, k7, k8, k9, k10, k11) \
ZN_TR_API CUresult sym(ZN_TK_T_##k1 a1, ZN_TK_T_##k2 a2, ZN_TK_T_##k3 a3, ZN_TK_T_##k4 a4, ZN_TK_T_##k5 a5, ZN_TK_T_##k6 a6, ZN_TK_T_##k7 a7, ZN_TK_T_##k8 a8, ZN_TK_T_##k9 a9, ZN_TK_T_##k10 a10, ZN_TK_T_##k11 a11) \
{ \
    uint64_t av[11] = { ZN_TR_PACK(a1), ZN_TR_PACK(a2), ZN_TR_PACK(a3), ZN_TR_PACK(a4), ZN_TR_PACK(a5), ZN_TR_PACK(a6), ZN_TR_PACK(a7), ZN_TR_PACK(a8), ZN_TR_PACK(a9), ZN_TR_PACK(a10), ZN_TR_PACK(a11) }; \
    zn_tr_frame f = { .sig = ZN_TS_##sym, .av = av, .nargs = 11 }; \
    zn_tr_enter(&f); \
    CUresult (*fn)(ZN_TK_T_##k1, ZN_TK_T_##k2, ZN_TK_T_##k3, ZN_TK_T_##k4, ZN_TK_T_##k5, ZN_TK_T_##k6, ZN_TK_T_##k7, ZN_TK_T_##k8, ZN_TK_T_##k9, ZN_TK_T_##k10, ZN_TK_T_##k11) = (CUresult (*)(ZN_TK_T_##k1, ZN_TK_T_##k2, ZN_TK_T_##k3, ZN_TK_T_##k4, ZN_TK_T_##k5, ZN_TK_T_##k6, ZN_TK_T_##k7, ZN_TK_T_##k8, ZN_TK_T_##k9, ZN_TK_T_##k10, ZN_TK_T_##k11))zn_tr_real[ZN_TS_##sym]; \
    CUresult r = fn ? fn(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11) : ZN_TR_MISSING; \
    zn_tr_leave(&f, r); \
    return f.result; \
}

#endif
