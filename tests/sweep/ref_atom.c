/* ref_atom.c: checks of the atomics. Their order is up to the machine, so
 * each check asks whether SOME order of the group's operations gives the
 * returned values and the final value (from the ISA's definition of each
 * operation), or, for the idempotent ones, checks the bounds that every
 * order obeys. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sweep.h"

#define AREF(id) int aref_##id(const uint64_t *in, const uint64_t *old, size_t nl, uint64_t init, \
                               uint64_t final, char *why, size_t whylen)
#define OPND(i) in[(i) * SW_NIN]

enum { T_U32, T_U64, T_F32, T_F64 };
static uint64_t add_as(int t, uint64_t a, uint64_t b)
{
    switch (t) {
    case T_U32: return (uint32_t)(a + b);
    case T_U64: return a + b;
    case T_F32: return sw_fb(sw_f(a) + sw_f(b));   /* small integers: exact */
    default: return sw_db(sw_d(a) + sw_d(b));
    }
}

/* addition of positive operands: the returned values are distinct partial
 * sums, so the order is found by walking from init */
static int chain_add(int t, const uint64_t *in, const uint64_t *old, size_t nl, uint64_t init,
                     uint64_t final, int returns, char *why, size_t whylen)
{
    uint64_t cur = init;
    if (!returns) {
        for (size_t i = 0; i < nl; i++)
            cur = add_as(t, cur, OPND(i));
    } else {
        char *used = calloc(nl, 1);
        for (size_t step = 0; step < nl; step++) {
            size_t j = 0;
            while (j < nl && (used[j] || old[j] != cur))
                j++;
            if (j == nl) {
                snprintf(why, whylen, "after %zu steps no lane returned %llx", step, (unsigned long long)cur);
                free(used);
                return 0;
            }
            used[j] = 1;
            cur = add_as(t, cur, OPND(j));
        }
        free(used);
    }
    if (cur != final) {
        snprintf(why, whylen, "final %llx, the sum is %llx", (unsigned long long)final, (unsigned long long)cur);
        return 0;
    }
    return 1;
}
AREF(add_u32) { return chain_add(T_U32, in, old, nl, init, final, 1, why, whylen); }
AREF(add_u64) { return chain_add(T_U64, in, old, nl, init, final, 1, why, whylen); }
AREF(add_f32) { return chain_add(T_F32, in, old, nl, init, final, 1, why, whylen); }
AREF(add_f64) { return chain_add(T_F64, in, old, nl, init, final, 1, why, whylen); }
AREF(red_add_u32) { return chain_add(T_U32, in, old, nl, init, final, 0, why, whylen); }
AREF(red_add_f32) { return chain_add(T_F32, in, old, nl, init, final, 0, why, whylen); }

static int cmp64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}
/* exch: the values returned plus the final one are the initial one plus
 * the values written */
AREF(exch)
{
    uint64_t *x = malloc((nl + 1) * 8), *y = malloc((nl + 1) * 8);
    for (size_t i = 0; i < nl; i++)
        x[i] = old[i], y[i] = OPND(i);   /* 32-bit operands are generated as such */
    x[nl] = final;
    y[nl] = init;
    qsort(x, nl + 1, 8, cmp64);
    qsort(y, nl + 1, 8, cmp64);
    int ok = memcmp(x, y, (nl + 1) * 8) == 0;
    if (!ok)
        snprintf(why, whylen, "returned and final values are not the initial and written ones");
    free(x);
    free(y);
    return ok;
}
/* cas(init -> a): the lanes that saw init succeeded; all of them but the
 * last must have written init again (else no later one could succeed), so
 * at most one wrote something else, the final value, which every other
 * lane then saw */
AREF(cas)
{
    size_t wins = 0, changers = 0, last = nl;
    for (size_t i = 0; i < nl; i++)
        if (old[i] == init) {
            wins++;
            if (OPND(i) != init)
                changers++, last = i;
        }
    if (wins == 0 || changers > 1) {
        snprintf(why, whylen, "%zu lanes saw the initial value, %zu of them changed it", wins, changers);
        return 0;
    }
    uint64_t w = changers ? OPND(last) : init;
    if (final != w) {
        snprintf(why, whylen, "final %llx is not the last winner's %llx", (unsigned long long)final,
                 (unsigned long long)w);
        return 0;
    }
    for (size_t i = 0; i < nl; i++)
        if (old[i] != init && old[i] != final) {
            snprintf(why, whylen, "lane %zu saw %llx, neither initial nor final", i, (unsigned long long)old[i]);
            return 0;
        }
    return 1;
}

/* inc/dec with one bound b: every order gives the same sequence */
static int sequence(const uint64_t *in, const uint64_t *old, size_t nl, uint64_t init, uint64_t final,
                    int inc, char *why, size_t whylen)
{
    uint32_t b = (uint32_t)in[2], cur = (uint32_t)init;
    uint64_t *x = malloc(nl * 8), *y = malloc(nl * 8);
    for (size_t i = 0; i < nl; i++) {
        y[i] = cur;
        x[i] = old[i];
        cur = inc ? (cur >= b ? 0 : cur + 1) : ((cur == 0 || cur > b) ? b : cur - 1);
    }
    qsort(x, nl, 8, cmp64);
    qsort(y, nl, 8, cmp64);
    int ok = memcmp(x, y, nl * 8) == 0 && final == cur;
    if (!ok)
        snprintf(why, whylen, "bound %x: expected final %x and the sequence from the initial value", b, cur);
    free(x);
    free(y);
    return ok;
}
AREF(inc) { return sequence(in, old, nl, init, final, 1, why, whylen); }
AREF(dec) { return sequence(in, old, nl, init, final, 0, why, whylen); }

/* and/or/xor/min/max: the final value is the fold; each returned value lies
 * between the initial and the final one */
enum { B_AND, B_OR, B_XOR, B_MINU, B_MAXU, B_MINS, B_MAXS, B_MAXS64 };
static int below(int op, uint64_t a, uint64_t b)   /* a at or before b in the op's order */
{
    switch (op) {
    case B_MINU: return (uint32_t)a >= (uint32_t)b;
    case B_MAXU: return (uint32_t)a <= (uint32_t)b;
    case B_MINS: return (int32_t)a >= (int32_t)b;
    case B_MAXS: return (int32_t)a <= (int32_t)b;
    default: return (int64_t)a <= (int64_t)b;
    }
}
static uint64_t fold(int op, uint64_t a, uint64_t b)
{
    switch (op) {
    case B_AND: return (uint32_t)(a & b);
    case B_OR: return (uint32_t)(a | b);
    case B_XOR: return (uint32_t)(a ^ b);
    case B_MAXS64: return below(op, a, b) ? b : a;
    default: return (uint32_t)(below(op, a, b) ? b : a);
    }
}
static int bounds(int op, const uint64_t *in, const uint64_t *old, size_t nl, uint64_t init, uint64_t final,
                  char *why, size_t whylen)
{
    uint64_t cur = init;
    for (size_t i = 0; i < nl; i++)
        cur = fold(op, cur, OPND(i));
    if (cur != final) {
        snprintf(why, whylen, "final %llx, the fold is %llx", (unsigned long long)final, (unsigned long long)cur);
        return 0;
    }
    for (size_t i = 0; i < nl; i++) {
        int ok;
        switch (op) {
        case B_AND: ok = (old[i] & final) == final && (old[i] & ~init) == 0; break;
        case B_OR: ok = (old[i] & init) == init && (old[i] & ~final) == 0; break;
        case B_XOR: ok = 1; break;
        default: ok = below(op, init, old[i]) && below(op, old[i], final); break;
        }
        if (!ok) {
            snprintf(why, whylen, "lane %zu returned %llx, outside initial..final", i, (unsigned long long)old[i]);
            return 0;
        }
    }
    return 1;
}
AREF(and) { return bounds(B_AND, in, old, nl, init, final, why, whylen); }
AREF(or) { return bounds(B_OR, in, old, nl, init, final, why, whylen); }
AREF(xor) { return bounds(B_XOR, in, old, nl, init, final, why, whylen); }
AREF(min_u32) { return bounds(B_MINU, in, old, nl, init, final, why, whylen); }
AREF(max_u32) { return bounds(B_MAXU, in, old, nl, init, final, why, whylen); }
AREF(min_s32) { return bounds(B_MINS, in, old, nl, init, final, why, whylen); }
AREF(max_s32) { return bounds(B_MAXS, in, old, nl, init, final, why, whylen); }
AREF(max_s64) { return bounds(B_MAXS64, in, old, nl, init, final, why, whylen); }
