/* ref_warp.c: warp-level instructions over the lanes of the member mask
 * (input slot 3; only those lanes execute). From the PTX ISA's pseudo-code:
 * shfl's source lane with its clamp and segment mask (the source value is
 * undefined when that lane does not take part), vote, match, redux and
 * activemask. Lanes outside the mask keep their untouched outputs. */
#include "sweep.h"

#define IN(l, k) in[(l) * SW_NIN + (k)]
#define OUT(l, k) out[(l) * SW_NOUT + (k)]
#define MASK ((uint32_t)in[3])
#define WREF(id) void wref_##id(const uint64_t *in, uint64_t *out)

static void untouched(uint64_t *out)
{
    for (int i = 0; i < SW_LANES * SW_NOUT; i++)
        out[i] = SW_UNTOUCHED;
}
static int member(const uint64_t *in, int l) { return (MASK >> l) & 1; }

enum { UP, DOWN, BFLY, IDX };
static void shfl(const uint64_t *in, uint64_t *out, int mode)
{
    untouched(out);
    for (int l = 0; l < SW_LANES; l++) {
        if (!member(in, l))
            continue;
        int b = (int)(IN(l, 1) & 31), c = (int)(IN(l, 2) & 31);
        int seg = (int)((IN(l, 2) >> 8) & 31);
        int maxl = (l & seg) | (c & ~seg), minl = l & seg, j, p;
        switch (mode) {
        case UP: j = l - b; p = j >= maxl; break;
        case DOWN: j = l + b; p = j <= maxl; break;
        case BFLY: j = l ^ b; p = j <= maxl; break;
        default: j = minl | (b & ~seg); p = j <= maxl; break;
        }
        if (!p)
            j = l;
        OUT(l, 0) = member(in, j) ? (uint32_t)IN(j, 0) : SW_UNDEF;
        OUT(l, 1) = (uint64_t)p;
    }
}
WREF(shfl_up) { shfl(in, out, UP); }
WREF(shfl_down) { shfl(in, out, DOWN); }
WREF(shfl_bfly) { shfl(in, out, BFLY); }
WREF(shfl_idx) { shfl(in, out, IDX); }

/* one value for every member lane */
static void broadcast(const uint64_t *in, uint64_t *out, uint64_t v)
{
    untouched(out);
    for (int l = 0; l < SW_LANES; l++)
        if (member(in, l))
            OUT(l, 0) = v;
}
static uint32_t ballot(const uint64_t *in, int neg)
{
    uint32_t b = 0;
    for (int l = 0; l < SW_LANES; l++)
        if (member(in, l) && ((IN(l, 0) & 1) != (uint64_t)neg))
            b |= 1u << l;
    return b;
}
WREF(vote_all) { broadcast(in, out, ballot(in, 0) == MASK); }
WREF(vote_any) { broadcast(in, out, ballot(in, 0) != 0); }
WREF(vote_uni) { uint32_t b = ballot(in, 0); broadcast(in, out, b == 0 || b == MASK); }
WREF(vote_ballot) { broadcast(in, out, ballot(in, 0)); }
WREF(vote_ballot_not) { broadcast(in, out, ballot(in, 1)); }

WREF(match_any)
{
    untouched(out);
    for (int l = 0; l < SW_LANES; l++) {
        if (!member(in, l))
            continue;
        uint32_t m = 0;
        for (int k = 0; k < SW_LANES; k++)
            if (member(in, k) && IN(k, 0) == IN(l, 0))
                m |= 1u << k;
        OUT(l, 0) = m;
    }
}
WREF(match_all)
{
    int all = 1, first = -1;
    for (int l = 0; l < SW_LANES; l++)
        if (member(in, l)) {
            if (first < 0)
                first = l;
            else if (IN(l, 0) != IN(first, 0))
                all = 0;
        }
    untouched(out);
    for (int l = 0; l < SW_LANES; l++)
        if (member(in, l)) {
            OUT(l, 0) = all ? MASK : 0;
            OUT(l, 1) = (uint64_t)all;
        }
}

enum { R_ADD, R_MINU, R_MAXU, R_MINS, R_MAXS, R_AND, R_OR, R_XOR };
static void redux(const uint64_t *in, uint64_t *out, int op)
{
    uint32_t acc = 0;
    int first = 1;
    for (int l = 0; l < SW_LANES; l++) {
        if (!member(in, l))
            continue;
        uint32_t v = (uint32_t)IN(l, 0);
        if (first) {
            acc = v;
            first = 0;
            continue;
        }
        switch (op) {
        case R_ADD: acc += v; break;
        case R_MINU: acc = v < acc ? v : acc; break;
        case R_MAXU: acc = v > acc ? v : acc; break;
        case R_MINS: acc = (int32_t)v < (int32_t)acc ? v : acc; break;
        case R_MAXS: acc = (int32_t)v > (int32_t)acc ? v : acc; break;
        case R_AND: acc &= v; break;
        case R_OR: acc |= v; break;
        default: acc ^= v; break;
        }
    }
    broadcast(in, out, acc);
}
WREF(redux_add) { redux(in, out, R_ADD); }
WREF(redux_min_u32) { redux(in, out, R_MINU); }
WREF(redux_max_u32) { redux(in, out, R_MAXU); }
WREF(redux_min_s32) { redux(in, out, R_MINS); }
WREF(redux_max_s32) { redux(in, out, R_MAXS); }
WREF(redux_and) { redux(in, out, R_AND); }
WREF(redux_or) { redux(in, out, R_OR); }
WREF(redux_xor) { redux(in, out, R_XOR); }
WREF(activemask) { broadcast(in, out, MASK); }
