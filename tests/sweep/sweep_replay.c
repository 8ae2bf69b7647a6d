/* sweep_replay.c: --replay FILE. FILE holds lanes recorded on a real GPU
 * (--record: "form<TAB>inputs<TAB>outputs", hex; plain or zstd). For each
 * form it holds two things to the GPU's outputs, lane by lane:
 *   - the reference (ref_*.c with the form's checker): where the two
 *     disagree the reference is wrong (the real GPU wins) or the checker
 *     too strict; reported, and a failure unless --ref-report-only;
 *   - Zinc, run on the same inputs: exact forms must give the GPU's bits
 *     (NaN payloads of f64 and integer division by zero as the form's
 *     checker allows); approximate forms are held to their ISA bound
 *     around the exact value, and how many lanes equal the GPU's bits and
 *     the largest distance in ulps is printed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>
#include "sweep.h"
#include "sweep_replay.h"

/* the whole file, decompressed when it is zstd */
static char *slurp(const char *path, size_t *len)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return NULL;
    size_t cap = 1 << 20, n = 0;
    char *buf = malloc(cap);
    for (size_t got; buf && (got = fread(buf + n, 1, cap - n, fp)) > 0;) {
        n += got;
        if (n == cap)
            buf = realloc(buf, cap *= 2);
    }
    fclose(fp);
    if (!buf)
        return NULL;
    if (n >= 4 && !memcmp(buf, "\x28\xb5\x2f\xfd", 4)) { /* zstd's magic */
        ZSTD_DStream *ds = ZSTD_createDStream();
        size_t ocap = n * 4 + (1 << 20), on = 0;
        char *o = malloc(ocap);
        ZSTD_inBuffer ib = {buf, n, 0};
        size_t rc = 1;
        while (o && ib.pos < ib.size && !ZSTD_isError(rc)) {
            if (on == ocap)
                o = realloc(o, ocap *= 2);
            ZSTD_outBuffer ob = {o, ocap, on};
            rc = ZSTD_decompressStream(ds, &ob, &ib);
            on = ob.pos;
        }
        ZSTD_freeDStream(ds);
        free(buf);
        if (!o || ZSTD_isError(rc))
            return free(o), NULL;
        buf = o;
        n = on;
    }
    buf = realloc(buf, n + 1);
    buf[n] = 0;
    *len = n;
    return buf;
}

static size_t parse_hex_list(const char *s, uint64_t *v, size_t max)
{
    size_t k = 0;
    while (*s && *s != '\t' && *s != '\n' && k < max) {
        char *e;
        v[k++] = strtoull(s, &e, 16);
        s = *e == ',' ? e + 1 : e;
    }
    return k;
}

const sw_form *sw_form_named(const char *name, size_t len)
{
    for (size_t i = 0; i < sw_nforms; i++)
        if (strlen(sw_forms[i].name) == len && !memcmp(sw_forms[i].name, name, len))
            return &sw_forms[i];
    return NULL;
}

int sw_replay_load(const char *path, sw_replay_fn fn, void *ctx)
{
    size_t len = 0;
    char *text = slurp(path, &len);
    if (!text) {
        fprintf(stderr, "sweep: cannot read %s\n", path);
        return -1;
    }
    const sw_form *cur = NULL;
    size_t n = 0, cap = 0, bad_lines = 0;
    uint64_t *in = NULL, *out = NULL;
    for (char *line = text, *next; *line; line = next) {
        char *e = strchr(line, '\n');
        next = e ? e + 1 : line + strlen(line);
        if (e)
            *e = 0;
        char *tab = strchr(line, '\t'), *tab2 = tab ? strchr(tab + 1, '\t') : NULL;
        const sw_form *f = tab2 ? sw_form_named(line, (size_t)(tab - line)) : NULL;
        if (!f) {
            bad_lines += *line != 0;
            continue;
        }
        if (f != cur && n) {
            fn(ctx, cur, in, out, n);
            n = 0;
        }
        cur = f;
        if (n == cap) {
            cap = cap ? cap * 2 : 4096;
            in = realloc(in, cap * SW_NIN * 8);
            out = realloc(out, cap * SW_NOUT * 8);
            if (!in || !out)
                abort();
        }
        memset(in + n * SW_NIN, 0, SW_NIN * 8);
        for (size_t k = 0; k < SW_NOUT; k++)
            out[n * SW_NOUT + k] = SW_UNTOUCHED;
        parse_hex_list(tab + 1, in + n * SW_NIN, SW_NIN);
        parse_hex_list(tab2 + 1, out + n * SW_NOUT, SW_NOUT);
        n++;
    }
    if (n)
        fn(ctx, cur, in, out, n);
    free(in);
    free(out);
    free(text);
    if (bad_lines)
        fprintf(stderr, "sweep: %s: %zu lines name no form of the table\n", path, bad_lines);
    return bad_lines ? -1 : 0;
}
