/* zn_trace_fmt.c: how each parameter kind and each CUresult is printed. */
#include "zn_trace.h"
#include "zn_trace_out.h"

#include <string.h>

static const struct { int value; const char *name; } results[] = {
#define R(name, value, desc) { value, #name },
#include "driver/zn_cuda_errors.def"
#undef R
};

const char *zn_tr_result_name(CUresult r)
{
    for (size_t i = 0; i < sizeof results / sizeof results[0]; i++)
        if (results[i].value == r)
            return results[i].name;
    return NULL;
}

static size_t fmt_str(char *out, size_t n, const char *s)
{
    if (!s)
        return (size_t)snprintf(out, n, "NULL");
    return (size_t)snprintf(out, n, "\"%.*s\"", (int)strnlen(s, 160), s);
}

/* The common kinds, without printf. */
static size_t fmt_fast(char *out, size_t n, zn_tr_kind k, uint64_t v)
{
    zn_tr_out o = { out, out + n - 1 };
    switch (k) {
    case ZN_TK_I: zo_i64(&o, (int32_t)v); break;
    case ZN_TK_U: case ZN_TK_U8: case ZN_TK_U16: case ZN_TK_SZ: case ZN_TK_U64:
        zo_u64(&o, v);
        break;
    case ZN_TK_X: case ZN_TK_DP: zo_hex(&o, v); break;
    default:
        if (v)
            zo_hex(&o, v);
        else
            zo_mem(&o, "NULL", 4);
        break;
    }
    *o.p = 0;
    return (size_t)(o.p - out);
}

/* An out-parameter after a successful call: "->value". */
static size_t fmt_out(char *out, size_t n, zn_tr_kind k, const void *p)
{
    switch (k) {
    case ZN_TK_OI: {
        size_t m = (size_t)snprintf(out, n, "->");
        return m < n ? m + fmt_fast(out + m, n - m, ZN_TK_I, (uint64_t)(uint32_t)*(const int *)p)
                     : m;
    }
    case ZN_TK_OU: return (size_t)snprintf(out, n, "->%u", *(const unsigned *)p);
    case ZN_TK_OSZ: return (size_t)snprintf(out, n, "->%zu", *(const size_t *)p);
    case ZN_TK_ODP:
        return (size_t)snprintf(out, n, "->0x%llx", *(const unsigned long long *)p);
    case ZN_TK_OH: {
        size_t m = (size_t)snprintf(out, n, "->");
        return m < n ? m + fmt_fast(out + m, n - m, ZN_TK_P, (uint64_t)(uintptr_t)*(void *const *)p)
                     : m;
    }
    case ZN_TK_OSTR: return (size_t)snprintf(out, n, "->\"%.*s\"", (int)strnlen(p, 64),
                                             (const char *)p);
    case ZN_TK_OSTRP: {
        size_t m = (size_t)snprintf(out, n, "->");
        return m + fmt_str(out + (m < n ? m : n), m < n ? n - m : 0, *(const char *const *)p);
    }
    case ZN_TK_OF: return (size_t)snprintf(out, n, "->%g", (double)*(const float *)p);
    case ZN_TK_OU64: return (size_t)snprintf(out, n, "->%llu", *(const unsigned long long *)p);
    default: return 0;
    }
}

size_t zn_tr_fmt_arg(char *out, size_t n, zn_tr_kind k, uint64_t v, bool after, bool ok)
{
    if (n == 0)
        return 0;
    switch (k) {
    case ZN_TK_I: case ZN_TK_U: case ZN_TK_U8: case ZN_TK_U16: case ZN_TK_SZ: case ZN_TK_U64:
    case ZN_TK_X: case ZN_TK_DP: case ZN_TK_H: case ZN_TK_P:
        return fmt_fast(out, n, k, v);
    case ZN_TK_STR: return fmt_str(out, n, (const char *)(uintptr_t)v);
    case ZN_TK_ERR: {
        const char *name = zn_tr_result_name((CUresult)v);
        return name ? (size_t)snprintf(out, n, "%s", name)
                    : (size_t)snprintf(out, n, "%d", (int)v);
    }
    case ZN_TK_LOC:
        return (size_t)snprintf(out, n, "{type %d, id %d}", (int)(uint32_t)v, (int)(v >> 32));
    case ZN_TK_UUID: {
        const unsigned char *b = (const unsigned char *)(uintptr_t)v;
        if (!b)
            return (size_t)snprintf(out, n, "NULL");
        return (size_t)snprintf(out, n,
            "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
            b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11],
            b[12], b[13], b[14], b[15]);
    }
    default:
        if (!after || !ok || !v)
            return fmt_fast(out, n, ZN_TK_P, v);
        return fmt_out(out, n, k, (const void *)(uintptr_t)v);
    }
}
