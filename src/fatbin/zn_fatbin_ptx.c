/* zn_fatbin_ptx.c: which PTX to compile. Per fatbin, the entry with the
 * highest target the device's compute capability allows; when every entry
 * targets a newer arch, the lowest (the compiler may still cope). */
#include "zn_fatbin_internal.h"

#include <stdio.h>
#include <stdlib.h>

typedef struct pick {
    unsigned cc;
    zn_fb_item *best;         /* per fatbin; best[i].data == NULL: none yet */
    unsigned nbest;
    unsigned ncubin;
    char cubins[96];          /* "sm_75, sm_86" for the no-PTX message */
} pick;

/* True when candidate a should replace the current choice b. */
static bool better(const zn_fb_item *a, const zn_fb_item *b, unsigned cc)
{
    bool a_fits = a->e.sm <= cc, b_fits = b->e.sm <= cc;
    if (a_fits != b_fits)
        return a_fits;
    if (a->e.sm != b->e.sm)
        return a_fits ? a->e.sm > b->e.sm : a->e.sm < b->e.sm;
    return a->e.ptx_version >= b->e.ptx_version;
}

static void note_cubin(pick *p, uint32_t sm)
{
    char one[24] = "a cubin";
    if (sm)
        snprintf(one, sizeof one, "sm_%u", sm);
    size_t used = strlen(p->cubins);
    if (used + 16 < sizeof p->cubins)
        snprintf(p->cubins + used, sizeof p->cubins - used, "%s%s", used ? ", " : "", one);
    p->ncubin++;
}

static int pick_visit(void *u, const zn_fb_item *it, char *err, size_t errlen)
{
    pick *p = u;
    if (it->e.kind == ZN_FB_KIND_ELF)
        note_cubin(p, it->e.sm);
    if (it->e.kind != ZN_FB_KIND_PTX)
        return 0;
    if (it->fatbin >= p->nbest) {
        unsigned n = it->fatbin + 1;
        zn_fb_item *grown = realloc(p->best, n * sizeof *grown);
        if (!grown) {
            zn_fb_errf(err, errlen, "out of memory");
            return -1;
        }
        memset(grown + p->nbest, 0, (n - p->nbest) * sizeof *grown);
        p->best = grown;
        p->nbest = n;
    }
    zn_fb_item *cur = &p->best[it->fatbin];
    if (!cur->data || better(it, cur, p->cc))
        *cur = *it;
    return 0;
}

/* The text without its trailing NULs; an interior NUL means corruption. */
static int to_image(const zn_fb_item *it, unsigned cc, zn_ptx_image *img, char *err, size_t errlen)
{
    char *text;
    size_t len;
    if (zn_fb_payload(it, &text, &len, err, errlen) < 0)
        return -1;
    while (len > 0 && text[len - 1] == 0)
        len--;
    size_t real = strnlen(text, len);
    if (len == 0 || real != len) {
        zn_fb_errf(err, errlen, "fatbin %u, entry %u: PTX text %s", it->fatbin, it->index,
                   len == 0 ? "is empty" : "contains a NUL byte");
        free(text);
        return -1;
    }
    text[len] = 0;
    *img = (zn_ptx_image){ .text = text, .len = len, .sm = it->e.sm,
                           .newer_than_device = it->e.sm > cc };
    return 0;
}

static int no_ptx(const pick *p, char *err, size_t errlen)
{
    zn_fb_errf(err, errlen,
               "the binary has no PTX (%s%s%s), and Zinc compiles PTX; rebuild with e.g. "
               "`-gencode arch=compute_75,code=compute_75` or `-arch=sm_75` (which embeds PTX by default)",
               p->ncubin ? "only cubins for " : "no code at all", p->cubins,
               p->ncubin * 8 > sizeof p->cubins ? ", ..." : "");
    return -2;
}

int zn_fatbin_get_ptx_n(const void *image, size_t size, unsigned cc,
                        zn_ptx_image **out, unsigned *nout, char *err, size_t errlen)
{
    *out = NULL;
    *nout = 0;
    pick p = { .cc = cc };
    int rc = zn_fb_walk(image, size, pick_visit, &p, err, errlen);
    unsigned have = 0;
    for (unsigned i = 0; rc >= 0 && i < p.nbest; i++)
        have += p.best[i].data != NULL;
    if (rc >= 0 && have == 0)
        rc = no_ptx(&p, err, errlen);
    zn_ptx_image *imgs = rc >= 0 ? calloc(have, sizeof *imgs) : NULL;
    if (rc >= 0 && !imgs) {
        zn_fb_errf(err, errlen, "out of memory");
        rc = -1;
    }
    unsigned n = 0;
    for (unsigned i = 0; rc >= 0 && i < p.nbest; i++) {
        if (!p.best[i].data)
            continue;
        if (to_image(&p.best[i], cc, &imgs[n], err, errlen) < 0)
            rc = -1;
        else
            n++;
    }
    free(p.best);
    if (rc < 0) {
        zn_ptx_images_free(imgs, n);
        return rc < -1 ? rc : -1;
    }
    *out = imgs;
    *nout = n;
    return 0;
}

int zn_fatbin_get_ptx(const void *image, unsigned cc, zn_ptx_image **out,
                      unsigned *nout, char *err, size_t errlen)
{
    return zn_fatbin_get_ptx_n(image, 0, cc, out, nout, err, errlen);
}

void zn_ptx_images_free(zn_ptx_image *imgs, unsigned n)
{
    if (!imgs)
        return;
    for (unsigned i = 0; i < n; i++)
        free(imgs[i].text);
    free(imgs);
}
