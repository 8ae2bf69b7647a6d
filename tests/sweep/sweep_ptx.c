/* sweep_ptx.c: the PTX text of one form's kernel. Each thread loads its
 * inputs from 4 64-bit slots, runs the form's instruction(s) once and
 * stores its outputs to 2 slots. Warp forms first skip the lanes that are
 * not in the member mask (input slot 3), so the instruction runs under
 * divergence with exactly those lanes. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sweep.h"

typedef struct rclass {
    const char *prefix;   /* register family */
    const char *ldst;     /* type of the load/store */
} rclass;

static rclass class_of(char c)
{
    switch (c) {
    case 'p': return (rclass){"%p", "u32"};
    case 'w': case 'b': case 'H': case 'B': case 'Q': return (rclass){"%rs", "u16"};
    case 'f': case 'F': case 'E': return (rclass){"%f", "f32"};
    case 'l': case 'U': case 'K': return (rclass){"%rd", "u64"};
    case 'd': case 'D': return (rclass){"%fd", "f64"};
    default: return (rclass){"%r", "u32"};
    }
}

size_t sw_width(char c)
{
    switch (c) {
    case 'p': return 1;
    case 'b': return 8;
    case 'w': case 'H': case 'B': case 'Q': return 16;
    case 'l': case 'U': case 'd': case 'K': case 'D': return 64;
    default: return 32;
    }
}

static void put(char **buf, size_t *len, size_t *capa, const char *fmt, ...)
{
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        int n = vsnprintf(*buf + *len, *capa - *len, fmt, ap);
        va_end(ap);
        if ((size_t)n < *capa - *len) {
            *len += (size_t)n;
            return;
        }
        *capa = *capa * 2 + (size_t)n + 256;
        *buf = realloc(*buf, *capa);
        if (!*buf)
            abort();
    }
}

void sw_ptx_header(char **buf, size_t *len, size_t *capa)
{
    put(buf, len, capa, ".version 8.5\n.target sm_90\n.address_size 64\n");
}

static void reg_name(char *out, size_t n, char letter, int num)
{
    snprintf(out, n, "%s%d", class_of(letter).prefix, num);
}

/* the template with $0 $1 $a..$d replaced by registers; 0 if malformed */
static int expand(const sw_form *f, char **buf, size_t *len, size_t *capa)
{
    size_t nd = strlen(f->dst), ns = strlen(f->src);
    put(buf, len, capa, "\t");
    for (const char *p = f->ptx; *p; p++) {
        if (*p != '$') {
            put(buf, len, capa, "%c", *p);
            if (*p == ';' && p[1] == ' ')
                put(buf, len, capa, "\n\t"), p++;
            continue;
        }
        char r[16];
        char k = *++p;
        if (k == 'p')   /* the atomic forms' cell */
            snprintf(r, sizeof r, "%%rd9");
        else if (k >= '0' && k <= '1' && (size_t)(k - '0') < nd)
            reg_name(r, sizeof r, f->dst[k - '0'], 20 + (k - '0'));
        else if (k >= 'a' && k <= 'd' && (size_t)(k - 'a') < ns && f->src[k - 'a'] != '_')
            reg_name(r, sizeof r, f->src[k - 'a'], 10 + (k - 'a'));
        else
            return 0;
        put(buf, len, capa, "%s", r);
    }
    put(buf, len, capa, "\n");
    return 1;
}

int sw_ptx_entry(const sw_form *f, char **buf, size_t *len, size_t *capa)
{
    put(buf, len, capa,
        "\n.visible .entry sw_%s(\n\t.param .u64 sw_in,\n\t.param .u64 sw_out,\n"
        "\t.param .u32 sw_n)\n{\n"
        "\t.reg .pred %%p<32>;\n\t.reg .b16 %%rs<32>;\n\t.reg .b32 %%r<32>;\n"
        "\t.reg .f32 %%f<32>;\n\t.reg .b64 %%rd<32>;\n\t.reg .f64 %%fd<32>;\n"
        "\tld.param.u64 %%rd1, [sw_in];\n\tld.param.u64 %%rd2, [sw_out];\n"
        "\tld.param.u32 %%r1, [sw_n];\n"
        "\tmov.u32 %%r2, %%ctaid.x;\n\tmov.u32 %%r3, %%ntid.x;\n\tmov.u32 %%r4, %%tid.x;\n"
        "\tmad.lo.s32 %%r5, %%r2, %%r3, %%r4;\n\tsetp.ge.u32 %%p1, %%r5, %%r1;\n"
        "\t@%%p1 bra SW_DONE;\n"
        "\tcvta.to.global.u64 %%rd3, %%rd1;\n\tmul.wide.u32 %%rd4, %%r5, %d;\n"
        "\tadd.s64 %%rd5, %%rd3, %%rd4;\n"
        "\tcvta.to.global.u64 %%rd6, %%rd2;\n\tmul.wide.u32 %%rd7, %%r5, %d;\n"
        "\tadd.s64 %%rd8, %%rd6, %%rd7;\n",
        f->name, 8 * SW_NIN, 8 * SW_NOUT);
    size_t ns = strlen(f->src), nd = strlen(f->dst);
    for (size_t k = 0; k < ns; k++) {
        char c = f->src[k];
        if (c == '_')
            continue;
        rclass rc = class_of(c);
        if (c == 'p')
            put(buf, len, capa, "\tld.global.u32 %%r29, [%%rd5+%zu];\n"
                "\tsetp.ne.u32 %%p%zu, %%r29, 0;\n", 8 * k, 10 + k);
        else
            put(buf, len, capa, "\tld.global.%s %s%zu, [%%rd5+%zu];\n",
                rc.ldst, rc.prefix, 10 + k, 8 * k);
    }
    if (f->kind == SW_WARP)
        put(buf, len, capa, "\tmov.u32 %%r6, %%laneid;\n\tshr.b32 %%r7, %%r13, %%r6;\n"
            "\tand.b32 %%r7, %%r7, 1;\n\tsetp.eq.u32 %%p2, %%r7, 0;\n"
            "\t@%%p2 bra SW_DONE;\n");
    if (f->kind == SW_ATOM)   /* cell of this lane's group, after the outputs */
        put(buf, len, capa, "\tshr.u32 %%r8, %%r5, %d;\n\tmul.wide.u32 %%rd25, %%r1, %d;\n"
            "\tadd.s64 %%rd26, %%rd6, %%rd25;\n\tmul.wide.u32 %%rd27, %%r8, 8;\n"
            "\tadd.s64 %%rd9, %%rd26, %%rd27;\n", __builtin_ctz(SW_GROUP), 8 * SW_NOUT);
    if (!expand(f, buf, len, capa))
        return 0;
    for (size_t k = 0; k < nd; k++) {
        char c = f->dst[k];
        rclass rc = class_of(c);
        if (c == 'p')
            put(buf, len, capa, "\tselp.u32 %%r29, 1, 0, %%p%zu;\n"
                "\tst.global.u32 [%%rd8+%zu], %%r29;\n", 20 + k, 8 * k);
        else
            put(buf, len, capa, "\tst.global.%s [%%rd8+%zu], %s%zu;\n",
                rc.ldst, 8 * k, rc.prefix, 20 + k);
    }
    put(buf, len, capa, "SW_DONE:\n\tret;\n}\n");
    return 1;
}
