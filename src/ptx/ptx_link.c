/* ptx_link.c: links several PTX modules into one (cuLink*, nvcc -rdc).
 *
 * Symbols with linkage (.visible, .weak, .common, .extern, and every
 * .entry) share one namespace across the images; symbols without linkage
 * are private to their image and are renamed (name$zl<image>) when another
 * image uses the same name. Resolution, as a static linker does it:
 *   - a .visible (strong) definition wins; two of them are an error naming
 *     both images;
 *   - else the first .weak definition;
 *   - else the largest .common variable;
 *   - an .extern (or a body-less prototype) only refers to the winner; one
 *     that nothing defines is an error naming the symbol, except the
 *     functions the runtime provides (vprintf, __assertfail, malloc, free,
 *     the device runtime's __cudaCDP2*: ptx_runtime.c) and `.extern .shared`
 *     arrays (dynamic shared memory), which stay declarations.
 * libcudadevrt's image (nvcc -rdc links it into programs that launch
 * kernels from the device) is left out: Zinc answers its API itself.
 * The result's .version and .target are the highest of the inputs.
 *
 * How: the kept variables and functions are copied (shallow, bodies share
 * the inputs' arrays except the instructions, which are copied to rewrite
 * symbol operands and .loc file numbers) into a temporary module, printed
 * with ptx_print, and the text parsed again: the result owns all its
 * memory and has been checked like any other module.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ptx_internal.h"
#include "util/zn_log.h"

enum { RANK_REF = 0, RANK_COMMON = 1, RANK_WEAK = 2, RANK_STRONG = 3, RANK_LOCAL = -1 };

typedef struct lsym {
    const char *name;
    bool is_func;
    ptx_space space;            /* variables */
    int win_img, win_idx, win_rank;
    int ref_img, ref_idx;       /* the first reference (extern / prototype) */
} lsym;

typedef struct linker {
    const ptx_module *const *mods;
    const char *const *names;
    unsigned n;
    char *err;
    size_t errlen;
    ptx_arena *a;
    lsym *syms;
    uint32_t nsyms, capsyms;
    ptx_map gmap;               /* global name -> index in syms */
    ptx_map lmap;               /* private name -> first image using it */
    ptx_map *ren;               /* per image: private name -> renamed string */
    ptx_map fmap;               /* final function name -> index in out funcs */
    uint32_t *fileoff;          /* per image: first .file number in the result */
} linker;

__attribute__((format(printf, 2, 3)))
static int fail(linker *L, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(L->err, L->errlen, fmt, ap);
    va_end(ap);
    return -1;
}

static const char *img_name(const linker *L, unsigned i)
{
    return L->names && L->names[i] ? L->names[i] : "(image)";
}

static int var_rank(const ptx_var *v)
{
    switch (v->linkage) {
    case PTX_LINK_EXTERN: return RANK_REF;
    case PTX_LINK_COMMON: return RANK_COMMON;
    case PTX_LINK_WEAK: return RANK_WEAK;
    case PTX_LINK_VISIBLE: return RANK_STRONG;
    default: return RANK_LOCAL;
    }
}

static int func_rank(const ptx_func *f)
{
    if (f->linkage == PTX_LINK_NONE && !f->is_entry)
        return RANK_LOCAL;
    if (f->is_decl || f->linkage == PTX_LINK_EXTERN)
        return RANK_REF;
    return f->linkage == PTX_LINK_WEAK ? RANK_WEAK : RANK_STRONG;
}

static const char *space_word(ptx_space s)
{
    static const char *const n[PTX_SPACE_COUNT] = {
        "generic", ".reg", ".global", ".shared", ".local", ".param", ".const" };
    return (unsigned)s < PTX_SPACE_COUNT ? n[s] : "?";
}

static lsym *sym_get(linker *L, const char *name, bool is_func, ptx_space space, unsigned img)
{
    int64_t k;
    if (ptx_map_get(&L->gmap, name, strlen(name), &k))
        return &L->syms[k];
    if (L->nsyms == L->capsyms) {
        L->capsyms = L->capsyms ? L->capsyms * 2 : 64;
        L->syms = realloc(L->syms, L->capsyms * sizeof *L->syms);
        if (!L->syms)
            zn_die("ptx: out of memory");
    }
    lsym *s = &L->syms[L->nsyms];
    *s = (lsym){ .name = name, .is_func = is_func, .space = space, .win_img = -1,
                 .win_idx = -1, .win_rank = -1, .ref_img = (int)img, .ref_idx = -1 };
    ptx_map_set(&L->gmap, name, strlen(name), L->nsyms++);
    return s;
}

/* One occurrence of a global symbol: image img, index idx in vars/funcs. */
static int sym_add(linker *L, const char *name, bool is_func, ptx_space space,
                   int rank, unsigned img, uint32_t idx)
{
    lsym *s = sym_get(L, name, is_func, space, img);
    if (s->is_func != is_func)
        return fail(L, "link: '%s' is a %s in %s and a %s in %s", name,
                    s->is_func ? "function" : "variable", img_name(L, (unsigned)s->ref_img),
                    is_func ? "function" : "variable", img_name(L, img));
    if (!is_func && s->space != space)
        return fail(L, "link: variable '%s' is %s in %s and %s in %s", name,
                    space_word(s->space), img_name(L, (unsigned)s->ref_img),
                    space_word(space), img_name(L, img));
    if (rank == RANK_REF) {
        if (s->ref_idx < 0) {
            s->ref_img = (int)img;
            s->ref_idx = (int)idx;
        }
        return 0;
    }
    if (rank == RANK_STRONG && s->win_rank == RANK_STRONG)
        return fail(L, "link: duplicate definition of '%s' in %s and in %s", name,
                    img_name(L, (unsigned)s->win_img), img_name(L, img));
    bool take = rank > s->win_rank;
    if (rank == RANK_COMMON && s->win_rank == RANK_COMMON) {
        const ptx_var *old = &L->mods[s->win_img]->vars[s->win_idx];
        take = L->mods[img]->vars[idx].size > old->size;   /* the largest */
    }
    if (take) {
        s->win_img = (int)img;
        s->win_idx = (int)idx;
        s->win_rank = rank;
    }
    return 0;
}

/* A private name of image img: renamed when a global symbol or an earlier
 * image's private symbol has it. */
static void local_add(linker *L, const char *name, unsigned img)
{
    size_t len = strlen(name);
    int64_t v;
    if (ptx_map_get(&L->ren[img], name, len, &v))
        return;                                 /* decided already */
    bool clash = ptx_map_get(&L->gmap, name, len, &v) ||
                 (ptx_map_get(&L->lmap, name, len, &v) && v != (int64_t)img);
    if (!clash) {
        ptx_map_set(&L->lmap, name, len, img);
        return;
    }
    char buf[64];
    for (unsigned k = 0;; k++) {
        if (k)
            snprintf(buf, sizeof buf, "$zl%u_%u", img, k);
        else
            snprintf(buf, sizeof buf, "$zl%u", img);
        size_t bl = strlen(buf);
        char *nn = ptx_arena_alloc(L->a, len + bl + 1);
        memcpy(nn, name, len);
        memcpy(nn + len, buf, bl + 1);
        if (ptx_map_get(&L->gmap, nn, len + bl, &v) || ptx_map_get(&L->lmap, nn, len + bl, &v))
            continue;
        ptx_map_set(&L->lmap, nn, len + bl, img);
        ptx_map_set(&L->ren[img], name, len, (int64_t)(intptr_t)nn);
        return;
    }
}

static const char *final_name(const linker *L, unsigned img, const char *name)
{
    int64_t v;
    if (ptx_map_get(&L->ren[img], name, strlen(name), &v))
        return (const char *)(intptr_t)v;
    return name;
}

static int collect(linker *L)
{
    for (unsigned i = 0; i < L->n; i++) {
        const ptx_module *m = L->mods[i];
        for (uint32_t v = 0; v < m->nvars; v++) {
            int r = var_rank(&m->vars[v]);
            if (r != RANK_LOCAL &&
                sym_add(L, m->vars[v].name, false, m->vars[v].space, r, i, v))
                return -1;
        }
        for (uint32_t f = 0; f < m->nfuncs; f++) {
            int r = func_rank(&m->funcs[f]);
            if (r != RANK_LOCAL && sym_add(L, m->funcs[f].name, true, PTX_SPACE_GENERIC, r, i, f))
                return -1;
        }
    }
    for (uint32_t s = 0; s < L->nsyms; s++) {
        const lsym *y = &L->syms[s];
        if (y->win_img >= 0)
            continue;
        if (y->is_func ? ptx_is_runtime_extern(y->name) : y->space == PTX_SPACE_SHARED)
            continue;   /* kept as a declaration */
        return fail(L, "link: unresolved external %s '%s' (declared in %s, defined in "
                    "no image)", y->is_func ? "function" : "variable", y->name,
                    img_name(L, (unsigned)y->ref_img));
    }
    for (unsigned i = 0; i < L->n; i++) {
        const ptx_module *m = L->mods[i];
        for (uint32_t v = 0; v < m->nvars; v++)
            if (var_rank(&m->vars[v]) == RANK_LOCAL)
                local_add(L, m->vars[v].name, i);
        for (uint32_t f = 0; f < m->nfuncs; f++)
            if (func_rank(&m->funcs[f]) == RANK_LOCAL)
                local_add(L, m->funcs[f].name, i);
    }
    return 0;
}

/* Is this occurrence the one the result keeps? */
static bool keep(const linker *L, const char *name, int rank, unsigned img, uint32_t idx,
                 bool is_decl)
{
    if (rank == RANK_LOCAL)
        return !is_decl;    /* a private prototype: the result prints its own */
    int64_t k;
    if (!ptx_map_get(&L->gmap, name, strlen(name), &k))
        return false;
    const lsym *s = &L->syms[k];
    if (s->win_img >= 0)
        return s->win_img == (int)img && s->win_idx == (int)idx;
    return s->ref_img == (int)img && s->ref_idx == (int)idx;
}

static void patch_opnd(linker *L, const ptx_module *m, unsigned img, ptx_opnd *o,
                       const ptx_func *out_funcs)
{
    if (o->var && o->var >= m->vars && o->var < m->vars + m->nvars)
        o->sym = final_name(L, img, o->var->name);
    if (o->func && o->func >= m->funcs && o->func < m->funcs + m->nfuncs) {
        const char *fn = final_name(L, img, o->func->name);
        int64_t k;
        o->sym = fn;
        if (ptx_map_get(&L->fmap, fn, strlen(fn), &k))
            o->func = &out_funcs[k];
    }
    if (o->nelems) {
        ptx_opnd *e = ptx_arena_alloc(L->a, o->nelems * sizeof *e);
        memcpy(e, o->elems, o->nelems * sizeof *e);
        for (uint32_t i = 0; i < o->nelems; i++)
            patch_opnd(L, m, img, &e[i], out_funcs);
        o->elems = e;
    }
}

static void copy_relocs(linker *L, unsigned img, ptx_var *v)
{
    if (!v->nrelocs)
        return;
    ptx_reloc *r = ptx_arena_alloc(L->a, v->nrelocs * sizeof *r);
    memcpy(r, v->relocs, v->nrelocs * sizeof *r);
    for (uint32_t i = 0; i < v->nrelocs; i++)
        r[i].sym = final_name(L, img, r[i].sym);
    v->relocs = r;
}

/* Orders the variables so that an initializer names only variables
 * declared before it (ptxas requires it; an .extern that came first in its
 * image may now be defined by a later image). Stable; a cycle keeps the
 * rest in their order. */
static void order_vars(linker *L, ptx_module *out)
{
    uint32_t n = out->nvars, done = 0;
    ptx_var *sorted = ptx_arena_alloc(L->a, (n + 1) * sizeof *sorted);
    bool *placed = ptx_arena_alloc(L->a, n + 1);
    ptx_map names = {0};        /* name -> index in out->vars */
    ptx_map put = {0};          /* names placed */
    for (uint32_t i = 0; i < n; i++)
        ptx_map_set(&names, out->vars[i].name, strlen(out->vars[i].name), i);
    for (bool progress = true; done < n;) {
        bool force = !progress;
        progress = false;
        for (uint32_t i = 0; i < n; i++) {
            if (placed[i])
                continue;
            bool ready = true;
            for (uint32_t r = 0; r < out->vars[i].nrelocs && ready && !force; r++) {
                const char *sym = out->vars[i].relocs[r].sym;
                int64_t v;
                ready = !ptx_map_get(&names, sym, strlen(sym), &v) || v == (int64_t)i ||
                        ptx_map_get(&put, sym, strlen(sym), &v);
            }
            if (!ready)
                continue;
            sorted[done++] = out->vars[i];
            placed[i] = true;
            ptx_map_set(&put, out->vars[i].name, strlen(out->vars[i].name), 1);
            progress = true;
            force = false;
        }
    }
    ptx_map_free(&names);
    ptx_map_free(&put);
    out->vars = sorted;
}

/* The merged module (shallow copies into L->a); *srcimg: each function's image. */
static ptx_module *merge(linker *L, unsigned **srcimg)
{
    ptx_module *out = ptx_arena_alloc(L->a, sizeof *out);
    uint32_t nv = 0, nf = 0, nfiles = 0;
    for (unsigned i = 0; i < L->n; i++) {
        const ptx_module *m = L->mods[i];
        nv += m->nvars;
        nf += m->nfuncs;
        L->fileoff[i] = nfiles;             /* image i's file f -> nfiles + f */
        nfiles += m->nfiles > 1 ? m->nfiles - 1 : 0;
        if (i == 0 || m->sm > out->sm) {
            out->sm = m->sm;
            memcpy(out->target, m->target, sizeof out->target);
        }
        if (i == 0 || m->version_major > out->version_major ||
            (m->version_major == out->version_major && m->version_minor > out->version_minor)) {
            out->version_major = m->version_major;
            out->version_minor = m->version_minor;
        }
        if (m->address_size > out->address_size)
            out->address_size = m->address_size;
    }
    /* .file numbers: image i's file n becomes fileoff[i] + n (0 stays "none") */
    out->files = ptx_arena_alloc(L->a, (nfiles + 1) * sizeof *out->files);
    for (unsigned i = 0; i < L->n; i++)
        for (uint32_t f = 1; f < L->mods[i]->nfiles; f++)
            out->files[L->fileoff[i] + f] = L->mods[i]->files[f];
    out->nfiles = nfiles + 1;
    out->vars = ptx_arena_alloc(L->a, (nv + 1) * sizeof *out->vars);
    out->funcs = ptx_arena_alloc(L->a, (nf + 1) * sizeof *out->funcs);
    *srcimg = calloc(nf + 1, sizeof **srcimg);
    if (!*srcimg)
        zn_die("ptx: out of memory");
    for (unsigned i = 0; i < L->n; i++) {
        const ptx_module *m = L->mods[i];
        for (uint32_t v = 0; v < m->nvars; v++) {
            const ptx_var *src = &m->vars[v];
            if (!keep(L, src->name, var_rank(src), i, v, false))
                continue;
            ptx_var *d = &out->vars[out->nvars++];
            *d = *src;
            d->name = final_name(L, i, src->name);
            copy_relocs(L, i, d);
        }
        for (uint32_t f = 0; f < m->nfuncs; f++) {
            const ptx_func *src = &m->funcs[f];
            if (!keep(L, src->name, func_rank(src), i, f, src->is_decl))
                continue;
            (*srcimg)[out->nfuncs] = i;
            ptx_func *d = &out->funcs[out->nfuncs];
            *d = *src;
            d->name = final_name(L, i, src->name);
            ptx_map_set(&L->fmap, d->name, strlen(d->name), out->nfuncs++);
        }
    }
    order_vars(L, out);
    /* bodies: copy the instructions, rewrite symbols and .loc files */
    for (uint32_t f = 0; f < out->nfuncs; f++) {
        ptx_func *d = &out->funcs[f];
        unsigned img = (*srcimg)[f];
        if (!d->nins)
            continue;
        ptx_ins *ins = ptx_arena_alloc(L->a, d->nins * sizeof *ins);
        memcpy(ins, d->ins, d->nins * sizeof *ins);
        for (uint32_t k = 0; k < d->nins; k++) {
            if (ins[k].loc_file)
                ins[k].loc_file += L->fileoff[img];
            for (unsigned o = 0; o < ins[k].nopnds; o++)
                patch_opnd(L, L->mods[img], img, &ins[k].opnds[o], out->funcs);
        }
        d->ins = ins;
    }
    return out;
}

ptx_module *ptx_link(const ptx_module *const *mods, const char *const *names, unsigned n,
                     char **text_out, char *err, size_t errlen)
{
    if (text_out)
        *text_out = NULL;
    if (!mods || !n) {
        snprintf(err, errlen, "link: no input");
        return NULL;
    }
    /* without libcudadevrt's image (ptx_runtime.c) */
    const ptx_module **kept = calloc(n, sizeof *kept);
    const char **kept_names = calloc(n, sizeof *kept_names);
    if (!kept || !kept_names)
        zn_die("ptx: out of memory");
    unsigned nk = 0;
    for (unsigned i = 0; i < n; i++)
        if (!ptx_is_device_runtime_image(mods[i]) || n == 1) {
            kept_names[nk] = names ? names[i] : NULL;
            kept[nk++] = mods[i];
        }
    linker L = { .mods = kept, .names = names ? kept_names : NULL, .n = nk, .err = err,
                 .errlen = errlen };
    n = nk;
    L.a = ptx_arena_new();
    L.ren = calloc(n, sizeof *L.ren);
    L.fileoff = calloc(n, sizeof *L.fileoff);
    if (!L.ren || !L.fileoff)
        zn_die("ptx: out of memory");
    ptx_module *res = NULL;
    unsigned *srcimg = NULL;
    if (collect(&L) == 0) {
        ptx_module *merged = merge(&L, &srcimg);
        char *text = ptx_print(merged);
        char perr[512];
        res = ptx_parse(text, strlen(text), "linked", perr, sizeof perr);
        if (!res)
            snprintf(err, errlen, "link: the linked module does not parse: %s", perr);
        if (res && text_out)
            *text_out = text;
        else
            free(text);
    }
    free(srcimg);
    for (unsigned i = 0; i < n; i++)
        ptx_map_free(&L.ren[i]);
    free(L.ren);
    free(L.fileoff);
    free(L.syms);
    ptx_map_free(&L.gmap);
    ptx_map_free(&L.lmap);
    ptx_map_free(&L.fmap);
    ptx_arena_free(L.a);
    free(kept);
    free(kept_names);
    return res;
}
