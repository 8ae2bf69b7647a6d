/* zn_trace_modules.c: module images and the names behind handles.
 *
 * Every loaded image is saved under modules/mod<N>/: the containers as
 * loaded (fatbin<k>.bin, or image.ptx / image.cubin for a bare image) and
 * each entry decompressed (e<fatbin>.<index>.sm_<NN>.ptx / .cubin).
 * Library/module handles map to their image, kernel/function handles to
 * their name and image; a kernel's parameter layout (offsets and sizes)
 * comes from its .entry in the PTX, parsed with Zinc's PTX front end the
 * first time it is launched. */
#include "zn_trace.h"
#include "fatbin/zn_fatbin_payloads.h"
#include "ptx/ptx_ir.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_PTX = 64 };

struct zn_tr_module {
    int id;
    int nptx;
    char *ptx_file[MAX_PTX];    /* relative to the trace folder */
    char *ptx_text[MAX_PTX];
    size_t ptx_len[MAX_PTX];
    ptx_module *parsed[MAX_PTX];
    bool parse_failed[MAX_PTX];
};

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static zn_tr_map *modules;  /* CUlibrary / CUmodule -> zn_tr_module */
static zn_tr_map *kernels;  /* CUkernel / CUfunction -> zn_tr_kernel */
static int next_module = 1;
static _Atomic uint64_t generation;     /* bumped when a handle changes record */

static void maps(void)
{
    if (!modules) {
        modules = zn_tr_map_new();
        kernels = zn_tr_map_new();
    }
}

int zn_tr_module_id(const zn_tr_module *m) { return m ? m->id : 0; }

/* ---- saving an image ---- */
static void save_container(void *u, unsigned fb, const void *p, size_t len)
{
    zn_tr_module *m = u;
    char rel[128];
    snprintf(rel, sizeof rel, "modules/mod%d/fatbin%u.bin", m->id, fb);
    zn_tr_write_file(rel, p, len);
}

static void keep_ptx(zn_tr_module *m, const char *rel, const char *text, size_t len)
{
    if (m->nptx == MAX_PTX)
        return;
    char *copy = malloc(len + 1);
    if (!copy)
        return;
    memcpy(copy, text, len);
    copy[len] = 0;
    m->ptx_file[m->nptx] = strdup(rel);
    m->ptx_text[m->nptx] = copy;
    m->ptx_len[m->nptx] = len;
    m->nptx++;
}

static void save_payload(void *u, const zn_fatbin_payload *p)
{
    zn_tr_module *m = u;
    bool ptx = p->e.kind == 1;
    char rel[160];
    snprintf(rel, sizeof rel, "modules/mod%d/e%u.%u.%s_%u.%s", m->id, p->fatbin, p->index,
             ptx ? "compute" : "sm", p->e.sm, ptx ? "ptx" : p->e.kind == 2 ? "cubin" : "bin");
    zn_tr_write_file(rel, p->data, p->len);
    if (ptx)
        keep_ptx(m, rel, p->data, p->len);
}

/* Size of an ELF64 image from its header: the section table ends it. */
static size_t elf_size(const unsigned char *p)
{
    uint64_t shoff;
    uint16_t shentsize, shnum;
    memcpy(&shoff, p + 0x28, 8);
    memcpy(&shentsize, p + 0x3a, 2);
    memcpy(&shnum, p + 0x3c, 2);
    return shoff < (1ull << 32) ? (size_t)(shoff + (uint64_t)shentsize * shnum) : 0;
}

static void save_image(zn_tr_module *m, const void *image, size_t size)
{
    char rel[128], err[256];
    zn_image_kind kind = size ? zn_image_classify_n(image, size) : zn_image_classify(image);
    if (kind == ZN_IMAGE_PTX) {
        size_t len = strnlen(image, size ? size : (1u << 30));
        snprintf(rel, sizeof rel, "modules/mod%d/image.ptx", m->id);
        zn_tr_write_file(rel, image, len);
        keep_ptx(m, rel, image, len);
        return;
    }
    if (kind == ZN_IMAGE_ELF) {
        snprintf(rel, sizeof rel, "modules/mod%d/image.cubin", m->id);
        zn_tr_write_file(rel, image, size ? size : elf_size(image));
        return;
    }
    zn_fatbin_containers(image, size, save_container, m);
    if (zn_fatbin_payloads(image, size, save_payload, m, err, sizeof err) < 0)
        zn_tr_note("module %d: cannot read the image: %s", m->id, err);
}

static void *read_file(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = len >= 0 ? malloc((size_t)len + 1) : NULL;
    if (buf && fread(buf, 1, (size_t)len, f) == (size_t)len) {
        buf[len] = 0;
        *n = (size_t)len;
    } else {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    return buf;
}

/* cuLibraryLoadData / cuLibraryLoadFromFile / cuModuleLoadData(Ex) /
 * cuModuleLoadFatBinary / cuModuleLoad: (handle *out, image or file, ...) */
void zn_tr_module_hook(zn_tr_frame *f, bool post)
{
    void **out = (void **)(uintptr_t)f->av[0];
    const void *arg = (const void *)(uintptr_t)f->av[1];
    if (!post || f->result != 0 || !out || !*out || !arg)
        return;
    zn_tr_hook h = zn_tr_sigs[f->sig].hook;
    zn_tr_module *m = calloc(1, sizeof *m);
    if (!m)
        return;
    pthread_mutex_lock(&mu);
    maps();
    m->id = next_module++;
    zn_tr_map_put(modules, (uint64_t)(uintptr_t)*out, m);
    pthread_mutex_unlock(&mu);
    if (h == ZN_TH_libfile || h == ZN_TH_modfile) {
        size_t n = 0;
        void *image = read_file(arg, &n);
        if (image)
            save_image(m, image, n);
        free(image);
    } else {
        save_image(m, arg, 0);
    }
    zn_tr_note("module %d = %p: %d PTX image(s) saved in modules/mod%d", m->id, *out, m->nptx,
               m->id);
}

/* cuLibraryGetKernel(k*, lib, name) / cuModuleGetFunction(f*, mod, name) /
 * cuKernelGetFunction(f*, k) / cuLibraryGetModule(mod*, lib) */
void zn_tr_handle_hook(zn_tr_frame *f, bool post)
{
    void **out = (void **)(uintptr_t)f->av[0];
    uint64_t from = f->av[1];
    if (!post || f->result != 0 || !out || !*out)
        return;
    zn_tr_hook h = zn_tr_sigs[f->sig].hook;
    pthread_mutex_lock(&mu);
    maps();
    if (h == ZN_TH_libmod) {
        zn_tr_module *m = zn_tr_map_get(modules, from);
        if (m)
            zn_tr_map_put(modules, (uint64_t)(uintptr_t)*out, m);
    } else if (h == ZN_TH_kfunc) {
        zn_tr_kernel *k = zn_tr_map_get(kernels, from);
        if (k && zn_tr_map_get(kernels, (uint64_t)(uintptr_t)*out) != k) {
            atomic_fetch_add(&generation, 1);
            zn_tr_map_put(kernels, (uint64_t)(uintptr_t)*out, k);
        }
    } else {
        /* a handle seen before keeps its record unless it now names another
         * kernel (handles are reused after an unload) */
        const char *name = (const char *)(uintptr_t)f->av[2];
        zn_tr_kernel *old = zn_tr_map_get(kernels, (uint64_t)(uintptr_t)*out);
        if (old && old->mod_handle == from && name && !strcmp(old->name, name)) {
            pthread_mutex_unlock(&mu);
            return;
        }
        atomic_fetch_add(&generation, 1);
        zn_tr_kernel *k = calloc(1, sizeof *k);
        if (k && name && (k->name = strdup(name))) {
            k->mod = zn_tr_map_get(modules, from);
            k->mod_handle = from;
            k->lib = h == ZN_TH_getkernel;
            k->nparams = -2;    /* not resolved yet */
            zn_tr_map_put(kernels, (uint64_t)(uintptr_t)*out, k);
        } else {
            free(k);
        }
    }
    pthread_mutex_unlock(&mu);
}

/* The parsed PTX image that defines `name` (-1 when none). */
static int find_entry(zn_tr_module *m, const char *name, const ptx_func **fn)
{
    for (int i = 0; i < m->nptx; i++) {
        if (!m->parsed[i] && !m->parse_failed[i]) {
            char err[512];
            m->parsed[i] = ptx_parse(m->ptx_text[i], m->ptx_len[i], m->ptx_file[i], err,
                                     sizeof err);
            if (!m->parsed[i]) {
                m->parse_failed[i] = true;
                zn_tr_note("cannot parse %s: %s", m->ptx_file[i], err);
            }
        }
        const ptx_func *f = m->parsed[i] ? ptx_find_func(m->parsed[i], name) : NULL;
        if (f && f->is_entry) {
            *fn = f;
            return i;
        }
    }
    return -1;
}

static void resolve_params(zn_tr_kernel *k)
{
    const ptx_func *fn = NULL;
    k->nparams = -1;
    if (!k->mod || find_entry(k->mod, k->name, &fn) < 0)
        return;
    k->params = calloc(fn->nparams ? fn->nparams : 1, sizeof *k->params);
    if (!k->params)
        return;
    uint32_t off = 0;
    for (uint32_t i = 0; i < fn->nparams; i++) {
        uint32_t align = fn->params[i].align ? fn->params[i].align : 1;
        off = (off + align - 1) / align * align;
        k->params[i] = (zn_tr_param){ off, (uint32_t)fn->params[i].size };
        off += (uint32_t)fn->params[i].size;
    }
    k->param_bytes = off;
    k->nparams = (int)fn->nparams;
}

/* The last lookup of this thread (launch loops launch the same kernel),
 * valid while no handle has been given another record. */
static __thread uint64_t last_handle, last_generation;
static __thread zn_tr_kernel *last_kernel;

zn_tr_kernel *zn_tr_kernel_of(uint64_t handle)
{
    uint64_t gen = atomic_load(&generation);
    if (handle && handle == last_handle && gen == last_generation)
        return last_kernel;     /* records are never freed; params resolve once */
    pthread_mutex_lock(&mu);
    maps();
    zn_tr_kernel *k = zn_tr_map_get(kernels, handle);
    if (k && k->nparams == -2)
        resolve_params(k);
    pthread_mutex_unlock(&mu);
    if (k) {
        last_handle = handle;
        last_kernel = k;
        last_generation = gen;
    }
    return k;
}

const char *zn_tr_kernel_ptx(const zn_tr_kernel *k)
{
    const ptx_func *fn;
    pthread_mutex_lock(&mu);
    int i = k->mod ? find_entry(k->mod, k->name, &fn) : -1;
    pthread_mutex_unlock(&mu);
    return i < 0 ? NULL : k->mod->ptx_file[i];
}

void zn_tr_module_globals(const zn_tr_kernel *k,
                          void (*cb)(void *u, const char *name, uint64_t size), void *u)
{
    const ptx_func *fn;
    pthread_mutex_lock(&mu);
    int i = k->mod ? find_entry(k->mod, k->name, &fn) : -1;
    pthread_mutex_unlock(&mu);
    if (i < 0)
        return;
    const ptx_module *pm = k->mod->parsed[i];
    for (uint32_t v = 0; v < pm->nvars; v++) {
        const ptx_var *var = &pm->vars[v];
        if ((var->space == PTX_SPACE_GLOBAL || var->space == PTX_SPACE_CONST) &&
            var->linkage != PTX_LINK_EXTERN && var->size > 0)
            cb(u, var->name, var->size);
    }
}
