/* zn_trace_wrappers.c: the exported wrappers and the signature table, both
 * expanded from zn_trace_sigs.def. */
#include "zn_trace_wrap.h"

#include "zn_trace_sigs.def"

#undef S0
#undef S1
#undef S2
#undef S3
#undef S4
#undef S5
#undef S6
#undef S7
#undef S8
#undef S9
#undef S10
#undef S11

#define ROW(sym, hook, n, ...) \
    [ZN_TS_##sym] = { #sym, ZN_TH_##hook, n, { __VA_ARGS__ }, (void *)sym },
#define S0(sym, hook) ROW(sym, hook, 0, 0)
#define S1(sym, hook, ...) ROW(sym, hook, 1, ZN_TR_KINDS(__VA_ARGS__))
#define S2(sym, hook, ...) ROW(sym, hook, 2, ZN_TR_KINDS(__VA_ARGS__))
#define S3(sym, hook, ...) ROW(sym, hook, 3, ZN_TR_KINDS(__VA_ARGS__))
#define S4(sym, hook, ...) ROW(sym, hook, 4, ZN_TR_KINDS(__VA_ARGS__))
#define S5(sym, hook, ...) ROW(sym, hook, 5, ZN_TR_KINDS(__VA_ARGS__))
#define S6(sym, hook, ...) ROW(sym, hook, 6, ZN_TR_KINDS(__VA_ARGS__))
#define S7(sym, hook, ...) ROW(sym, hook, 7, ZN_TR_KINDS(__VA_ARGS__))
#define S8(sym, hook, ...) ROW(sym, hook, 8, ZN_TR_KINDS(__VA_ARGS__))
#define S9(sym, hook, ...) ROW(sym, hook, 9, ZN_TR_KINDS(__VA_ARGS__))
#define S10(sym, hook, ...) ROW(sym, hook, 10, ZN_TR_KINDS(__VA_ARGS__))
#define S11(sym, hook, ...) ROW(sym, hook, 11, ZN_TR_KINDS(__VA_ARGS__))

/* kind names -> ZN_TK_ enumerators, for up to 11 arguments */
#define ZN_TR_K1(a) ZN_TK_##a
#define ZN_TR_K2(a, ...) ZN_TK_##a, ZN_TR_K1(__VA_ARGS__)
#define ZN_TR_K3(a, ...) ZN_TK_##a, ZN_TR_K2(__VA_ARGS__)
#define ZN_TR_K4(a, ...) ZN_TK_##a, ZN_TR_K3(__VA_ARGS__)
#define ZN_TR_K5(a, ...) ZN_TK_##a, ZN_TR_K4(__VA_ARGS__)
#define ZN_TR_K6(a, ...) ZN_TK_##a, ZN_TR_K5(__VA_ARGS__)
#define ZN_TR_K7(a, ...) ZN_TK_##a, ZN_TR_K6(__VA_ARGS__)
#define ZN_TR_K8(a, ...) ZN_TK_##a, ZN_TR_K7(__VA_ARGS__)
#define ZN_TR_K9(a, ...) ZN_TK_##a, ZN_TR_K8(__VA_ARGS__)
#define ZN_TR_K10(a, ...) ZN_TK_##a, ZN_TR_K9(__VA_ARGS__)
#define ZN_TR_K11(a, ...) ZN_TK_##a, ZN_TR_K10(__VA_ARGS__)
#define ZN_TR_NARG(...) ZN_TR_NARG_(__VA_ARGS__, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1)
#define ZN_TR_NARG_(_1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, n, ...) n
#define ZN_TR_CAT(a, b) ZN_TR_CAT_(a, b)
#define ZN_TR_CAT_(a, b) a##b
#define ZN_TR_KINDS(...) ZN_TR_CAT(ZN_TR_K, ZN_TR_NARG(__VA_ARGS__))(__VA_ARGS__)

const zn_tr_sig zn_tr_sigs[ZN_TS_COUNT] = {
#include "zn_trace_sigs.def"
};

void *zn_tr_real[ZN_TS_COUNT];
