/* zn_jit_perfmap.c: names compiled kernel code for `perf` (ZINC_PERF_MAP=1).
 *
 * perf reads /tmp/perf-<pid>.map ("start size name" in hex, one function
 * per line) to name samples in code that no file backs. A unit's object is
 * scanned before the JIT takes it (its functions' offsets and sizes in
 * .text); once the kernel's address is known, .text's load address
 * follows, and every function in the kernel's section (.text, or .ltext
 * in the large code model: the kernel, its coroutine's .resume/.destroy,
 * its .funcs) gets a line. `zinc oc --emit obj` and
 * objdump then give the instructions at each offset. */
#include "zn_pipeline.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <llvm-c/Object.h>

typedef struct pm_sym {
    char *name;
    uint64_t off, size;
    uintptr_t sec;          /* its section (where its bytes are in the object) */
} pm_sym;

struct zn_perfmap {
    pm_sym *syms;
    size_t n;
};

static pthread_mutex_t map_lock = PTHREAD_MUTEX_INITIALIZER;

static bool enabled(void)
{
    const char *s = getenv("ZINC_PERF_MAP");
    return s && *s && strcmp(s, "0");
}

zn_perfmap *zn_perfmap_scan(LLVMMemoryBufferRef obj)
{
    if (!enabled())
        return NULL;
    char *msg = NULL;
    LLVMBinaryRef bin = LLVMCreateBinary(obj, NULL, &msg);
    if (!bin) {
        LLVMDisposeMessage(msg);
        return NULL;
    }
    zn_perfmap *pm = calloc(1, sizeof *pm);
    LLVMSymbolIteratorRef si = LLVMObjectFileCopySymbolIterator(bin);
    LLVMSectionIteratorRef sec = LLVMObjectFileCopySectionIterator(bin);
    size_t cap = 0;
    for (; pm && !LLVMObjectFileIsSymbolIteratorAtEnd(bin, si); LLVMMoveToNextSymbol(si)) {
        uint64_t size = LLVMGetSymbolSize(si);
        const char *name = LLVMGetSymbolName(si);
        if (!size || !name || !*name)
            continue;
        LLVMMoveToContainingSection(sec, si);
        if (LLVMObjectFileIsSectionIteratorAtEnd(bin, sec))
            continue;
        uintptr_t sec_id = (uintptr_t)LLVMGetSectionContents(sec);
        if (pm->n == cap) {
            cap = cap ? 2 * cap : 16;
            pm_sym *p = realloc(pm->syms, cap * sizeof *p);
            if (!p)
                break;
            pm->syms = p;
        }
        char *dup = strdup(name);
        if (!dup)
            break;
        pm->syms[pm->n++] = (pm_sym){dup, LLVMGetSymbolAddress(si), size, sec_id};
    }
    LLVMDisposeSectionIterator(sec);
    LLVMDisposeSymbolIterator(si);
    LLVMDisposeBinary(bin);
    return pm;
}

void zn_perfmap_write(zn_perfmap *pm, const char *kernel_sym, uint64_t addr)
{
    if (!pm)
        return;
    const pm_sym *k = NULL;
    for (size_t i = 0; i < pm->n && !k; i++)
        if (!strcmp(pm->syms[i].name, kernel_sym))
            k = &pm->syms[i];
    if (!k)
        return;
    uint64_t text = addr - k->off;
    char path[64];
    snprintf(path, sizeof path, "/tmp/perf-%d.map", (int)getpid());
    pthread_mutex_lock(&map_lock);
    FILE *f = fopen(path, "a");
    if (f) {
        for (size_t i = 0; i < pm->n; i++)
            if (pm->syms[i].sec == k->sec)
                fprintf(f, "%llx %llx %s\n", (unsigned long long)(text + pm->syms[i].off),
                    (unsigned long long)pm->syms[i].size, pm->syms[i].name);
        fclose(f);
    }
    pthread_mutex_unlock(&map_lock);
    /* written once per unit */
    for (size_t i = 0; i < pm->n; i++)
        free(pm->syms[i].name);
    pm->n = 0;
}

void zn_perfmap_free(zn_perfmap *pm)
{
    if (!pm)
        return;
    for (size_t i = 0; i < pm->n; i++)
        free(pm->syms[i].name);
    free(pm->syms);
    free(pm);
}
