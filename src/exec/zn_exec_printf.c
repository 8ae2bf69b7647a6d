/* zn_exec_printf.c: CUDA device printf.
 *
 * Compiled code passes the format and a packed argument buffer: arguments
 * in order, each at its natural alignment, after C's default promotions
 * (char and short become 4-byte int, float becomes double), pointers and
 * strings as 8-byte addresses. Each conversion is re-created as a host
 * format of its own and printed with its argument read at the right size.
 */
#include "zn_exec_internal.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

typedef struct pf_buf {
    char *p;
    size_t len, cap;
    int oom;
} pf_buf;

static void pf_reserve(pf_buf *b, size_t more)
{
    if (b->oom || b->len + more + 1 <= b->cap)
        return;
    size_t cap = b->cap ? b->cap : 128;
    while (cap < b->len + more + 1)
        cap *= 2;
    char *p = realloc(b->p, cap);
    if (!p) {
        b->oom = 1;
        return;
    }
    b->p = p;
    b->cap = cap;
}

static void pf_put(pf_buf *b, const char *s, size_t n)
{
    pf_reserve(b, n);
    if (b->oom)
        return;
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = 0;
}

/* Appends one conversion; spec is a host format built below. */
static void pf_fmt(pf_buf *b, const char *spec, ...)
{
    va_list ap;
    va_start(ap, spec);
    int n = vsnprintf(NULL, 0, spec, ap);
    va_end(ap);
    if (n < 0)
        return;
    pf_reserve(b, (size_t)n);
    if (b->oom)
        return;
    va_start(ap, spec);
    vsnprintf(b->p + b->len, (size_t)n + 1, spec, ap);
    va_end(ap);
    b->len += (size_t)n;
}

/* Reads the next argument of `size` bytes at its natural alignment. */
static uint64_t pf_arg(const uint8_t *args, size_t *off, size_t size)
{
    *off = (*off + size - 1) & ~(size - 1);
    uint64_t v = 0;
    if (args) {
        if (size == 4) {
            uint32_t v32;
            memcpy(&v32, args + *off, 4);
            v = v32;
        } else {
            memcpy(&v, args + *off, 8);
        }
    }
    *off += size;
    return v;
}

/* One conversion starting after '%'; returns the characters consumed and
 * counts the arguments it used in *nargs. */
static size_t pf_conversion(pf_buf *b, const char *f, const uint8_t *args,
                            size_t *off, int *nargs)
{
    char spec[64];
    size_t n = 0, i = 0;
    spec[n++] = '%';
    while (f[i] && strchr("-+ #0'", f[i]) && n < 8)
        spec[n++] = f[i++];
    for (int part = 0; part < 2; part++) { /* width, then .precision */
        if (part == 1) {
            if (f[i] != '.')
                break;
            spec[n++] = f[i++];
        }
        if (f[i] == '*') {
            int v = (int32_t)pf_arg(args, off, 4);
            (*nargs)++;
            n += (size_t)snprintf(spec + n, 16, "%d", v);
            i++;
        } else {
            while (f[i] >= '0' && f[i] <= '9' && n < 40)
                spec[n++] = f[i++];
            while (f[i] >= '0' && f[i] <= '9')
                i++;
        }
    }
    int lng = 0, shrt = 0; /* l/ll/j/z/t/q: 8 bytes; h, hh: narrowed */
    for (;; i++) {
        char c = f[i];
        if (c && strchr("ljztq", c))
            lng = 1;
        else if (c == 'h')
            shrt++;
        else if (c != 'L')  /* long double: printed as double */
            break;
    }
    char conv = f[i];
    if (!conv)
        return i;
    i++;
    switch (conv) {
    case 'd': case 'i': {
        uint64_t raw = pf_arg(args, off, lng ? 8 : 4);
        long long v = lng ? (long long)(int64_t)raw : (long long)(int32_t)raw;
        if (!lng && shrt == 1)
            v = (short)v;
        else if (!lng && shrt >= 2)
            v = (signed char)v;
        memcpy(spec + n, "lld", 4);
        pf_fmt(b, spec, v);
        break;
    }
    case 'u': case 'o': case 'x': case 'X': {
        unsigned long long v = pf_arg(args, off, lng ? 8 : 4);
        if (!lng && shrt == 1)
            v = (unsigned short)v;
        else if (!lng && shrt >= 2)
            v = (unsigned char)v;
        spec[n++] = 'l';
        spec[n++] = 'l';
        spec[n++] = conv;
        spec[n] = 0;
        pf_fmt(b, spec, v);
        break;
    }
    case 'c':
        spec[n++] = 'c';
        spec[n] = 0;
        pf_fmt(b, spec, (int)(int32_t)pf_arg(args, off, 4));
        break;
    case 's': {
        const char *s = (const char *)(uintptr_t)pf_arg(args, off, 8);
        spec[n++] = 's';
        spec[n] = 0;
        pf_fmt(b, spec, s ? s : "(null)");
        break;
    }
    case 'p':
        spec[n++] = 'p';
        spec[n] = 0;
        pf_fmt(b, spec, (void *)(uintptr_t)pf_arg(args, off, 8));
        break;
    case 'f': case 'F': case 'e': case 'E': case 'g': case 'G': case 'a': case 'A': {
        uint64_t raw = pf_arg(args, off, 8);
        double d;
        memcpy(&d, &raw, sizeof d);
        spec[n++] = conv;
        spec[n] = 0;
        pf_fmt(b, spec, d);
        break;
    }
    case 'n':           /* writes nothing on the device either */
        pf_arg(args, off, 8);
        break;
    case '%':
        pf_put(b, "%", 1);
        return i;
    default:            /* unknown: printed as written */
        pf_put(b, f - 1, i + 1);
        return i;
    }
    (*nargs)++;
    return i;
}

int zn_printf_format(const char *fmt, const void *args, char **out, size_t *len)
{
    *out = NULL;
    *len = 0;
    if (!fmt)
        return -1;
    pf_buf b = {0};
    size_t off = 0;
    int nargs = 0;
    const char *f = fmt;
    while (*f) {
        const char *pct = strchr(f, '%');
        size_t lit = pct ? (size_t)(pct - f) : strlen(f);
        pf_put(&b, f, lit);
        f += lit;
        if (!pct)
            break;
        f++;
        f += pf_conversion(&b, f, args, &off, &nargs);
    }
    if (b.oom) {
        free(b.p);
        return -2;
    }
    pf_reserve(&b, 0);
    if (b.oom) {
        free(b.p);
        return -2;
    }
    if (b.p)
        b.p[b.len] = 0;
    *out = b.p;
    *len = b.len;
    return nargs;
}
