#include "test_fatbin_util.h"

#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int tf_failures;
bool tf_quiet;

uint8_t *tf_read_file(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        exit(2);
    }
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *buf = malloc(len > 0 ? (size_t)len : 1);
    if (!buf || fread(buf, 1, (size_t)len, f) != (size_t)len) {
        fprintf(stderr, "%s: read failed\n", path);
        exit(2);
    }
    fclose(f);
    *n = (size_t)len;
    return buf;
}

/* Next non-empty normalised line of s into out; false at the end. */
static bool next_line(const char **s, const char *end, char *out, size_t cap)
{
    while (*s < end) {
        const char *nl = memchr(*s, '\n', (size_t)(end - *s));
        const char *le = nl ? nl : end;
        size_t o = 0;
        bool blank = true;
        for (const char *p = *s; p < le && o + 1 < cap; p++) {
            if (p + 1 < le && p[0] == '/' && p[1] == '/')
                break;
            bool ws = *p == ' ' || *p == '\t' || *p == '\r';
            if (ws) {
                blank = true;
                continue;
            }
            if (blank && o > 0)
                out[o++] = ' ';
            blank = false;
            out[o++] = *p;
        }
        out[o] = 0;
        *s = nl ? nl + 1 : end;
        if (o > 0)
            return true;
    }
    return false;
}

bool tf_ptx_equiv(const char *a, size_t an, const char *b, size_t bn)
{
    const char *ae = a + an, *be = b + bn;
    char la[4096], lb[4096];
    int lines = 0;
    for (;;) {
        bool ga = next_line(&a, ae, la, sizeof la), gb = next_line(&b, be, lb, sizeof lb);
        if (!ga || !gb) {
            if (ga != gb && !tf_quiet)
                printf("  PTX differs in length after %d lines\n", lines);
            return ga == gb && lines > 0;
        }
        lines++;
        if (strcmp(la, lb) != 0) {
            if (!tf_quiet)
                printf("  PTX line %d differs:\n    %s\n    %s\n", lines, la, lb);
            return false;
        }
    }
}

const uint8_t *tf_elf_section(const uint8_t *elf, size_t n, const char *name, size_t *size)
{
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)elf;
    if (n < sizeof *eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
        eh->e_shoff + (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr) > n || eh->e_shstrndx >= eh->e_shnum)
        return NULL;
    const Elf64_Shdr *sh = (const Elf64_Shdr *)(elf + eh->e_shoff);
    const char *names = (const char *)elf + sh[eh->e_shstrndx].sh_offset;
    for (unsigned i = 0; i < eh->e_shnum; i++) {
        if (strcmp(names + sh[i].sh_name, name) == 0 && sh[i].sh_type != SHT_NOBITS &&
            sh[i].sh_offset + sh[i].sh_size <= n) {
            *size = sh[i].sh_size;
            return elf + sh[i].sh_offset;
        }
    }
    return NULL;
}

const uint8_t *tf_elf_va(const uint8_t *elf, size_t n, uint64_t va)
{
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)elf;
    const Elf64_Phdr *ph = (const Elf64_Phdr *)(elf + eh->e_phoff);
    for (unsigned i = 0; i < eh->e_phnum; i++) {
        if (ph[i].p_type == PT_LOAD && va >= ph[i].p_vaddr && va < ph[i].p_vaddr + ph[i].p_filesz &&
            ph[i].p_offset + (va - ph[i].p_vaddr) < n)
            return elf + ph[i].p_offset + (va - ph[i].p_vaddr);
    }
    return NULL;
}
