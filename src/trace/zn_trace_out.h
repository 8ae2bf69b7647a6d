/* zn_trace_out.h: appending numbers and strings to a bounded buffer without
 * printf, whose floating-point path was most of the tracer's cost per call.
 * Writes stop silently at the end of the buffer. */
#ifndef ZN_TRACE_OUT_H
#define ZN_TRACE_OUT_H

#include <stdint.h>
#include <string.h>

typedef struct zn_tr_out { char *p, *end; } zn_tr_out;

static inline void zo_mem(zn_tr_out *o, const char *s, size_t n)
{
    size_t room = (size_t)(o->end - o->p);
    if (n > room)
        n = room;
    memcpy(o->p, s, n);
    o->p += n;
}

static inline void zo_str(zn_tr_out *o, const char *s) { zo_mem(o, s, strlen(s)); }

static inline void zo_u64(zn_tr_out *o, uint64_t v)
{
    char tmp[24];
    int n = 0;
    do {
        tmp[sizeof tmp - 1 - n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    zo_mem(o, tmp + sizeof tmp - n, (size_t)n);
}

static inline void zo_i64(zn_tr_out *o, int64_t v)
{
    if (v < 0) {
        zo_mem(o, "-", 1);
        zo_u64(o, (uint64_t)0 - (uint64_t)v);
    } else {
        zo_u64(o, (uint64_t)v);
    }
}

static inline void zo_hex(zn_tr_out *o, uint64_t v)
{
    char tmp[18];
    int n = 0;
    do {
        tmp[sizeof tmp - 1 - n++] = "0123456789abcdef"[v & 15];
        v >>= 4;
    } while (v);
    zo_mem(o, "0x", 2);
    zo_mem(o, tmp + sizeof tmp - n, (size_t)n);
}

/* v / 1000 with three decimals: ns -> "us.nnn", us -> "ms.nnn" */
static inline void zo_fixed3(zn_tr_out *o, uint64_t v)
{
    zo_u64(o, v / 1000);
    char frac[4] = { '.', (char)('0' + v / 100 % 10), (char)('0' + v / 10 % 10),
                     (char)('0' + v % 10) };
    zo_mem(o, frac, 4);
}

#endif
