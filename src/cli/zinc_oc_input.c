/* zinc_oc_input.c: what `zinc oc` compiles: the PTX modules in a .ptx file,
 * a fatbin (bare or wrapped), or an executable / shared library (its
 * .nv_fatbin section; else any fatbin found by scanning for the magic). */
#include "zinc_oc.h"

#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fatbin/zn_fatbin.h"

#define FATBIN_MAGIC 0xBA55ED50u
/* oc takes the newest PTX of each fatbin */
#define ANY_CC 100000u

static char *read_whole(const char *path, size_t *len, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "cannot open: %s", strerror(errno));
        return NULL;
    }
    size_t cap = 1 << 16, n = 0;
    char *b = malloc(cap + 1);
    size_t k;
    while ((k = fread(b + n, 1, cap - n, f)) > 0) {
        n += k;
        if (n == cap)
            b = realloc(b, (cap *= 2) + 1);
    }
    fclose(f);
    b[n] = 0;
    *len = n;
    return b;
}

/* Section `name` of an ELF64 file, or NULL. */
static const uint8_t *elf_section(const uint8_t *d, size_t n, const char *name, size_t *size)
{
    if (n < sizeof(Elf64_Ehdr) || memcmp(d, ELFMAG, SELFMAG) || d[EI_CLASS] != ELFCLASS64)
        return NULL;
    Elf64_Ehdr eh;
    memcpy(&eh, d, sizeof eh);
    if (!eh.e_shoff || eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shstrndx >= eh.e_shnum ||
        eh.e_shoff + (uint64_t)eh.e_shnum * sizeof(Elf64_Shdr) > n)
        return NULL;
    Elf64_Shdr str;
    memcpy(&str, d + eh.e_shoff + eh.e_shstrndx * sizeof(Elf64_Shdr), sizeof str);
    size_t k = strlen(name) + 1;
    for (unsigned i = 0; i < eh.e_shnum; i++) {
        Elf64_Shdr sh;
        memcpy(&sh, d + eh.e_shoff + i * sizeof(Elf64_Shdr), sizeof sh);
        if (str.sh_offset + sh.sh_name + k > n || sh.sh_type == SHT_NOBITS)
            continue;
        if (!memcmp(d + str.sh_offset + sh.sh_name, name, k) && sh.sh_offset + sh.sh_size <= n) {
            *size = sh.sh_size;
            return d + sh.sh_offset;
        }
    }
    return NULL;
}

/* The first fatbin header in d (8-byte aligned scan), or NULL. */
static const uint8_t *scan_fatbin(const uint8_t *d, size_t n, size_t *size)
{
    for (size_t o = 0; o + 16 <= n; o += 8) {
        uint32_t m;
        memcpy(&m, d + o, 4);
        if (m == FATBIN_MAGIC) {
            *size = n - o;
            return d + o;
        }
    }
    return NULL;
}

static void add_module(zn_oc_inputs *in, char *text, size_t len, const char *name)
{
    in->mods = realloc(in->mods, (in->n + 1) * sizeof *in->mods);
    in->mods[in->n].text = text;
    in->mods[in->n].len = len;
    snprintf(in->mods[in->n].name, sizeof in->mods[in->n].name, "%s", name);
    in->n++;
}

/* Adds the PTX the driver would pick for cc of every fatbin in fb; 0 or -1. */
static int add_fatbin(zn_oc_inputs *in, const char *path, const uint8_t *fb, size_t size,
                      unsigned cc, char *err, size_t errlen)
{
    zn_ptx_image *imgs;
    unsigned nimg;
    if (zn_fatbin_get_ptx_n(fb, size, cc, &imgs, &nimg, err, errlen))
        return -1;
    for (unsigned i = 0; i < nimg; i++) {
        char name[300];
        snprintf(name, sizeof name, "%s[ptx %u, sm_%u]", path, in->n, imgs[i].sm);
        add_module(in, imgs[i].text, imgs[i].len, name);
        imgs[i].text = NULL;
    }
    zn_ptx_images_free(imgs, nimg);
    return 0;
}

int zinc_oc_read(const char *path, zn_oc_inputs *in, char *err, size_t errlen)
{
    return zinc_oc_read_cc(path, ANY_CC, in, err, errlen);
}

int zinc_oc_read_cc(const char *path, unsigned cc, zn_oc_inputs *in, char *err, size_t errlen)
{
    memset(in, 0, sizeof *in);
    size_t n;
    char *d = read_whole(path, &n, err, errlen);
    if (!d)
        return -1;
    const uint8_t *fb = NULL;
    size_t fbsize = 0;
    zn_image_kind kind = zn_image_classify_n(d, n);
    if (kind == ZN_IMAGE_PTX || (kind == ZN_IMAGE_UNKNOWN && strstr(d, ".version"))) {
        add_module(in, d, n, path);
        return 0;
    }
    int rc = -1, nfb = 0;
    if (kind == ZN_IMAGE_FATBIN || kind == ZN_IMAGE_WRAPPER) {
        rc = add_fatbin(in, path, (const uint8_t *)d, n, cc, err, errlen);
        nfb++;
    } else {
        /* linked device code, then -rdc's relocatable device code (PTX) */
        static const char *const sections[] = {".nv_fatbin", "__nv_relfatbin"};
        char first_err[512] = "";
        for (unsigned i = 0; i < 2; i++) {
            if (!(fb = elf_section((const uint8_t *)d, n, sections[i], &fbsize)))
                continue;
            nfb++;
            if (add_fatbin(in, path, fb, fbsize, cc, err, errlen) == 0)
                rc = 0;
            else if (!first_err[0])
                snprintf(first_err, sizeof first_err, "%s", err);
        }
        if (!nfb && (fb = scan_fatbin((const uint8_t *)d, n, &fbsize))) {
            nfb++;
            rc = add_fatbin(in, path, fb, fbsize, cc, err, errlen);
        }
        if (rc && first_err[0])
            snprintf(err, errlen, "%s", first_err);
    }
    if (!nfb)
        snprintf(err, errlen, "not PTX, a fatbin, or a binary that contains one");
    free(d);
    return rc == 0 ? 0 : -1;
}

void zinc_oc_inputs_free(zn_oc_inputs *in)
{
    for (unsigned i = 0; i < in->n; i++)
        free(in->mods[i].text);
    free(in->mods);
    memset(in, 0, sizeof *in);
}
