/* zn_link_inputs.c: the inputs of a PTX link (zn_link_inputs.h). */
#include "zn_link_inputs.h"
#include "../fatbin/zn_fatbin.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ERRLEN 4096

void zn_text_logf(zn_text_log *l, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (k < 0)
        return;
    char *t = realloc(l->text, l->len + (size_t)k + 2);
    if (!t)
        return;
    l->text = t;
    va_start(ap, fmt);
    vsnprintf(t + l->len, (size_t)k + 1, fmt, ap);
    va_end(ap);
    l->len += (size_t)k;
    t[l->len++] = '\n';
    t[l->len] = 0;
}

zn_link_rc zn_link_add_ptx(zn_link_inputs *s, const char *text, size_t len, const char *name)
{
    char err[ERRLEN];
    while (len && !text[len - 1])
        len--;
    ptx_module *m = ptx_parse(text, len, name, err, sizeof err);
    if (!m) {
        zn_text_logf(&s->error, "error   : %s", err);
        return ZN_LINK_BAD_PTX;
    }
    if (s->n == s->cap) {
        unsigned cap = s->cap ? s->cap * 2 : 4;
        ptx_module **mods = realloc(s->mods, cap * sizeof *mods);
        if (mods)
            s->mods = mods;
        char **names = realloc(s->names, cap * sizeof *names);
        if (names)
            s->names = names;
        if (!mods || !names) {
            ptx_module_free(m);
            return ZN_LINK_NO_MEMORY;
        }
        s->cap = cap;
    }
    s->mods[s->n] = m;
    s->names[s->n] = strdup(name);
    s->n++;
    if (s->verbose)
        zn_text_logf(&s->info, "info    : added PTX '%s' (.target %s, %u functions, %u variables)",
                     name, m->target, m->nfuncs, m->nvars);
    return ZN_LINK_OK;
}

/* the PTX entries of one fatbin (bare or wrapper) of known size; *added
 * counts them (0 when it holds cubins only) */
static zn_link_rc add_fatbin_entries(zn_link_inputs *s, const void *data, size_t size,
                                     const char *name, unsigned *added)
{
    char err[ERRLEN] = "";
    zn_ptx_image *imgs = NULL;
    unsigned n = 0;
    int rc = zn_fatbin_get_ptx_n(data, size, s->cc, &imgs, &n, err, sizeof err);
    if (rc == -2 || (rc == 0 && n == 0)) {
        zn_ptx_images_free(imgs, n);
        return ZN_LINK_OK;
    }
    if (rc != 0) {
        zn_text_logf(&s->error, "error   : %s: malformed fatbin: %s", name, err);
        return ZN_LINK_BAD_FATBIN;
    }
    zn_link_rc r = ZN_LINK_OK;
    for (unsigned i = 0; i < n && r == ZN_LINK_OK; i++) {
        char nm[512];
        snprintf(nm, sizeof nm, n > 1 ? "%s#%u" : "%s", name, i);
        r = zn_link_add_ptx(s, imgs[i].text, imgs[i].len, nm);
        *added += r == ZN_LINK_OK;
    }
    zn_ptx_images_free(imgs, n);
    return r;
}

static zn_link_rc none_found(zn_link_inputs *s, zn_link_rc r, unsigned added, const char *name)
{
    if (r != ZN_LINK_OK || added)
        return r;
    zn_text_logf(&s->error, "error   : %s holds no PTX (only cubins, which are machine code for "
                 "an NVIDIA GPU): rebuild it with PTX embedded (e.g. -gencode "
                 "arch=compute_XX,code=compute_XX)", name);
    return ZN_LINK_NO_PTX;
}

zn_link_rc zn_link_add_fatbin(zn_link_inputs *s, const void *data, size_t size, const char *name)
{
    unsigned added = 0;
    zn_link_rc r = add_fatbin_entries(s, data, size, name, &added);
    return none_found(s, r, added, name);
}

typedef struct embedded_ctx {
    zn_link_inputs *s;
    const char *name;
    unsigned added;
} embedded_ctx;

static int add_embedded(void *u, const void *fatbin, size_t size)
{
    embedded_ctx *c = u;
    return (int)add_fatbin_entries(c->s, fatbin, size, c->name, &c->added);
}

zn_link_rc zn_link_add_object(zn_link_inputs *s, const void *data, size_t size, const char *name)
{
    embedded_ctx c = {s, name, 0};
    zn_link_rc r = (zn_link_rc)zn_fatbin_each_embedded(data, size, add_embedded, &c);
    return none_found(s, r, c.added, name);
}

ptx_module *zn_link_inputs_link(zn_link_inputs *s, char **text)
{
    char err[ERRLEN];
    *text = NULL;
    if (!s->n) {
        zn_text_logf(&s->error, "error   : nothing to link (no input was added)");
        return NULL;
    }
    ptx_module *m = ptx_link((const ptx_module *const *)s->mods, (const char *const *)s->names,
                             s->n, text, err, sizeof err);
    if (!m)
        zn_text_logf(&s->error, "error   : %s", err);
    return m;
}

void zn_link_inputs_free(zn_link_inputs *s)
{
    for (unsigned i = 0; i < s->n; i++) {
        ptx_module_free(s->mods[i]);
        free(s->names[i]);
    }
    free(s->mods);
    free(s->names);
    free(s->info.text);
    free(s->error.text);
    memset(s, 0, sizeof *s);
}
