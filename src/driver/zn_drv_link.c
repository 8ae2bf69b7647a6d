/* zn_drv_link.c: the JIT linker (cuLinkCreate/AddData/AddFile/Complete/
 * Destroy) and the linking of an -rdc program's translation units.
 *
 * Zinc links PTX, not machine code: every input is reduced to PTX (PTX text
 * as is; a fatbin, or a host object/library holding fatbins, gives its PTX
 * entries for the reported compute capability; cubins cannot be used) and
 * parsed when it is added, so that a malformed input fails at
 * cuLinkAddData with its position in the error log. cuLinkComplete runs
 * ptx_link (src/ptx/ptx_link.c) and hands back the linked module as PTX
 * text, NUL-terminated: the "cubin" NVIDIA's driver returns is only ever
 * passed on to cuModuleLoadData*, cuLibraryLoadData or written to a file
 * for them, and all of those accept PTX text. It stays valid until
 * cuLinkDestroy.
 *
 * Options (cuLinkCreate): the info and error log buffers are filled with
 * the linker's messages and their SIZE_BYTES values overwritten with the
 * bytes written (NUL included), after each call; CU_JIT_WALL_TIME receives
 * the milliseconds spent (a float in the value slot); CU_JIT_LOG_VERBOSE
 * adds one info line per input. The others tune ptxas and are accepted and
 * ignored. Options given to AddData/AddFile are accepted and ignored.
 */
#include "zn_drv.h"
#include "zn_drv_link.h"
#include "../util/zn_log.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define ZN_MAGIC_LINK 0x5a6c6e6bu   /* "Zlnk" */
#define ERRLEN 4096

typedef struct zn_logbuf {
    char *user;                 /* the caller's buffer, NULL when none */
    size_t cap;                 /* its size, as given at cuLinkCreate */
    int size_opt;               /* index of its SIZE_BYTES option, -1 none */
    char *text;                 /* everything logged so far */
    size_t len;
} zn_logbuf;

struct CUlinkState_st {
    uint32_t magic;
    void **vals;                /* the caller's option values (written back) */
    int wall_opt;               /* index of CU_JIT_WALL_TIME, -1 none */
    bool verbose;
    zn_logbuf info, error;
    double ms;                  /* time spent so far */
    ptx_module **mods;
    char **names;
    unsigned n, cap;
    char *linked;               /* cuLinkComplete's output */
};

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

__attribute__((format(printf, 2, 3)))
static void logf_to(zn_logbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (k < 0)
        return;
    char *t = realloc(b->text, b->len + (size_t)k + 2);
    if (!t)
        return;
    b->text = t;
    va_start(ap, fmt);
    vsnprintf(t + b->len, (size_t)k + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)k;
    t[b->len++] = '\n';
    t[b->len] = 0;
}

/* Copies the logs into the caller's buffers, the sizes and time into its
 * option values. */
static void publish(CUlinkState s)
{
    zn_logbuf *bs[2] = {&s->info, &s->error};
    for (int i = 0; i < 2; i++) {
        zn_logbuf *b = bs[i];
        if (!b->user || !b->cap)
            continue;
        snprintf(b->user, b->cap, "%s", b->text ? b->text : "");
        if (b->size_opt >= 0)
            s->vals[b->size_opt] = (void *)(uintptr_t)(strlen(b->user) + 1);
    }
    if (s->wall_opt >= 0) {
        float ms = (float)s->ms;
        void *slot = NULL;
        memcpy(&slot, &ms, sizeof ms);  /* a float in the pointer-sized slot */
        s->vals[s->wall_opt] = slot;
    }
}

static bool link_valid(CUlinkState s)
{
    return s && s->magic == ZN_MAGIC_LINK;
}

static void link_free(CUlinkState s)
{
    for (unsigned i = 0; i < s->n; i++) {
        ptx_module_free(s->mods[i]);
        free(s->names[i]);
    }
    free(s->mods);
    free(s->names);
    free(s->info.text);
    free(s->error.text);
    free(s->linked);
    s->magic = 0;
    free(s);
}

static CUresult link_create(unsigned n, CUjit_option *opts, void **vals, CUlinkState *out)
{
    if (!out || (n && (!opts || !vals)))
        return CUDA_ERROR_INVALID_VALUE;
    CUlinkState s = calloc(1, sizeof *s);
    if (!s)
        return CUDA_ERROR_OUT_OF_MEMORY;
    s->magic = ZN_MAGIC_LINK;
    s->vals = vals;
    s->wall_opt = s->info.size_opt = s->error.size_opt = -1;
    for (unsigned i = 0; i < n; i++) {
        switch ((int)opts[i]) {
        case CU_JIT_INFO_LOG_BUFFER: s->info.user = vals[i]; break;
        case CU_JIT_ERROR_LOG_BUFFER: s->error.user = vals[i]; break;
        case CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES:
            s->info.cap = (size_t)(uintptr_t)vals[i];
            s->info.size_opt = (int)i;
            break;
        case CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES:
            s->error.cap = (size_t)(uintptr_t)vals[i];
            s->error.size_opt = (int)i;
            break;
        case CU_JIT_WALL_TIME: s->wall_opt = (int)i; break;
        case CU_JIT_LOG_VERBOSE: s->verbose = vals[i] != NULL; break;
        default:
            if ((unsigned)opts[i] >= CU_JIT_NUM_OPTIONS) {
                free(s);
                return CUDA_ERROR_INVALID_VALUE;
            }
            break;      /* ptxas tuning: no meaning here */
        }
    }
    publish(s);
    *out = s;
    return CUDA_SUCCESS;
}

CUresult cuLinkCreate_v2(unsigned int n, CUjit_option *opts, void **vals, CUlinkState *st)
{
    ZN_CHECK_INIT();
    ZN_RET(link_create(n, opts, vals, st));
}

CUresult cuLinkCreate(unsigned int n, CUjit_option *opts, void **vals, CUlinkState *st)
{
    ZN_CHECK_INIT();
    ZN_RET(link_create(n, opts, vals, st));
}

/* Parses one PTX text and adds it. */
static CUresult add_ptx(CUlinkState s, const char *text, size_t len, const char *name)
{
    char err[ERRLEN];
    while (len && !text[len - 1])
        len--;
    ptx_module *m = ptx_parse(text, len, name, err, sizeof err);
    if (!m) {
        logf_to(&s->error, "error   : %s", err);
        return CUDA_ERROR_INVALID_PTX;
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
            return CUDA_ERROR_OUT_OF_MEMORY;
        }
        s->cap = cap;
    }
    s->mods[s->n] = m;
    s->names[s->n] = strdup(name);
    s->n++;
    if (s->verbose)
        logf_to(&s->info, "info    : added PTX '%s' (.target %s, %u functions, %u variables)",
                name, m->target, m->nfuncs, m->nvars);
    return CUDA_SUCCESS;
}

/* The PTX entries of one fatbin (bare or wrapper) of known size. */
static CUresult add_fatbin(CUlinkState s, const void *data, size_t size, const char *name,
                           unsigned *added)
{
    char err[ERRLEN] = "";
    zn_ptx_image *imgs = NULL;
    unsigned n = 0;
    int rc = zn_fatbin_get_ptx_n(data, size, zn_dev_cc(), &imgs, &n, err, sizeof err);
    if (rc == -2 || (rc == 0 && n == 0)) {
        zn_ptx_images_free(imgs, n);
        return CUDA_SUCCESS;    /* cubins only: the caller says so */
    }
    if (rc != 0) {
        logf_to(&s->error, "error   : %s: malformed fatbin: %s", name, err);
        return CUDA_ERROR_INVALID_IMAGE;
    }
    CUresult r = CUDA_SUCCESS;
    for (unsigned i = 0; i < n && r == CUDA_SUCCESS; i++) {
        char nm[512];
        if (n > 1)
            snprintf(nm, sizeof nm, "%s#%u", name, i);
        else
            snprintf(nm, sizeof nm, "%s", name);
        r = add_ptx(s, imgs[i].text, imgs[i].len, nm);
        *added += r == CUDA_SUCCESS;
    }
    zn_ptx_images_free(imgs, n);
    return r;
}

/* A host object or archive: every fatbin found in it (by its magic). */
typedef struct embedded_ctx {
    CUlinkState s;
    const char *name;
    unsigned *added;
} embedded_ctx;

static int add_embedded(void *u, const void *fatbin, size_t size)
{
    embedded_ctx *c = u;
    return (int)add_fatbin(c->s, fatbin, size, c->name, c->added);
}

static CUresult add_host_object(CUlinkState s, const unsigned char *data, size_t size,
                                const char *name, unsigned *added)
{
    embedded_ctx c = {s, name, added};
    return (CUresult)zn_fatbin_each_embedded(data, size, add_embedded, &c);
}

static CUresult link_add(CUlinkState s, CUjitInputType type, const void *data, size_t size,
                         const char *name)
{
    if (!link_valid(s))
        return CUDA_ERROR_INVALID_HANDLE;
    if (!data || (!size && type != CU_JIT_INPUT_PTX))
        return CUDA_ERROR_INVALID_VALUE;
    if (s->linked) {
        logf_to(&s->error, "error   : input added after cuLinkComplete");
        return CUDA_ERROR_INVALID_VALUE;
    }
    char dflt[32];
    if (!name || !name[0]) {
        snprintf(dflt, sizeof dflt, "input%u", s->n);
        name = dflt;
    }
    double t0 = now_ms();
    CUresult r = CUDA_SUCCESS;
    unsigned added = 0;
    switch (type) {
    case CU_JIT_INPUT_PTX:
        r = add_ptx(s, data, size ? strnlen(data, size) : strlen(data), name);
        added = r == CUDA_SUCCESS;
        break;
    case CU_JIT_INPUT_FATBINARY:
        r = add_fatbin(s, data, size, name, &added);
        break;
    case CU_JIT_INPUT_OBJECT:
    case CU_JIT_INPUT_LIBRARY:
        r = add_host_object(s, data, size, name, &added);
        break;
    case CU_JIT_INPUT_CUBIN:
        logf_to(&s->error, "error   : %s: a cubin is machine code for an NVIDIA GPU; Zinc "
                "links PTX (add the PTX, or a fatbin that holds it)", name);
        r = CUDA_ERROR_NOT_SUPPORTED;
        break;
    case CU_JIT_INPUT_NVVM:
        /* Zinc's NVRTC hands out PTX as a -dlto program's LTO IR */
        if (zn_image_classify_n(data, size) == ZN_IMAGE_PTX) {
            r = add_ptx(s, data, strnlen(data, size), name);
            added = r == CUDA_SUCCESS;
            break;
        }
        logf_to(&s->error, "error   : %s: NVVM IR (LTO) from NVIDIA's compilers cannot run "
                "on Zinc; add PTX, or compile with NVRTC's -dlto under zinc run (Zinc's NVRTC "
                "hands out PTX as the LTO IR)", name);
        r = CUDA_ERROR_NOT_SUPPORTED;
        break;
    default:
        r = CUDA_ERROR_INVALID_VALUE;
        break;
    }
    if (r == CUDA_SUCCESS && !added && type != CU_JIT_INPUT_PTX) {
        logf_to(&s->error, "error   : %s holds no PTX (only cubins, which are machine code "
                "for an NVIDIA GPU): rebuild it with PTX embedded (e.g. -gencode "
                "arch=compute_XX,code=compute_XX)", name);
        r = CUDA_ERROR_NOT_SUPPORTED;
    }
    if (r == CUDA_ERROR_NOT_SUPPORTED)
        zn_log(ZN_LOG_WARN, "cuLinkAdd: %s: input type %d not supported", name, (int)type);
    s->ms += now_ms() - t0;
    publish(s);
    return r;
}

CUresult cuLinkAddData_v2(CUlinkState st, CUjitInputType type, void *data, size_t size,
                          const char *name, unsigned int n, CUjit_option *opts, void **vals)
{
    ZN_CHECK_INIT();
    if (n && (!opts || !vals))
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    ZN_RET(link_add(st, type, data, size, name));
}

CUresult cuLinkAddData(CUlinkState st, CUjitInputType type, void *data, size_t size,
                       const char *name, unsigned int n, CUjit_option *opts, void **vals)
{
    return cuLinkAddData_v2(st, type, data, size, name, n, opts, vals);
}

static CUresult read_whole(const char *path, char **out, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return CUDA_ERROR_FILE_NOT_FOUND;
    char *buf = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        if (n + 65536 + 1 > cap) {
            cap = (n + 65536 + 1) * 2;
            char *nb = realloc(buf, cap);
            if (!nb) {
                free(buf);
                fclose(f);
                return CUDA_ERROR_OUT_OF_MEMORY;
            }
            buf = nb;
        }
        size_t got = fread(buf + n, 1, 65536, f);
        n += got;
        if (got < 65536)
            break;
    }
    fclose(f);
    buf[n] = 0;
    *out = buf;
    *len = n;
    return CUDA_SUCCESS;
}

CUresult cuLinkAddFile_v2(CUlinkState st, CUjitInputType type, const char *path,
                          unsigned int n, CUjit_option *opts, void **vals)
{
    ZN_CHECK_INIT();
    if (!link_valid(st))
        ZN_RET(CUDA_ERROR_INVALID_HANDLE);
    if (!path || (n && (!opts || !vals)))
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    char *buf;
    size_t len;
    CUresult r = read_whole(path, &buf, &len);
    if (r != CUDA_SUCCESS) {
        logf_to(&st->error, "error   : cannot read '%s'", path);
        publish(st);
        ZN_RET(r);
    }
    r = len ? link_add(st, type, buf, len, path) : CUDA_ERROR_INVALID_VALUE;
    free(buf);
    ZN_RET(r);
}

CUresult cuLinkAddFile(CUlinkState st, CUjitInputType type, const char *path,
                       unsigned int n, CUjit_option *opts, void **vals)
{
    return cuLinkAddFile_v2(st, type, path, n, opts, vals);
}

CUresult cuLinkComplete(CUlinkState st, void **cubin, size_t *size)
{
    ZN_CHECK_INIT();
    if (!link_valid(st))
        ZN_RET(CUDA_ERROR_INVALID_HANDLE);
    if (!cubin || !size)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    if (!st->linked) {
        if (!st->n) {
            logf_to(&st->error, "error   : nothing to link (no input was added)");
            publish(st);
            ZN_RET(CUDA_ERROR_INVALID_VALUE);
        }
        double t0 = now_ms();
        char err[ERRLEN];
        char *text = NULL;
        ptx_module *m = ptx_link((const ptx_module *const *)st->mods,
                                 (const char *const *)st->names, st->n, &text, err, sizeof err);
        st->ms += now_ms() - t0;
        if (!m) {
            logf_to(&st->error, "error   : %s", err);
            zn_log(ZN_LOG_ERROR, "cuLinkComplete: %s", err);
            publish(st);
            ZN_RET(CUDA_ERROR_INVALID_PTX);
        }
        unsigned nk = 0, nf = 0;    /* definitions (funcs holds prototypes too) */
        for (uint32_t i = 0; i < m->nfuncs; i++) {
            nk += m->funcs[i].is_entry;
            nf += !m->funcs[i].is_entry && !m->funcs[i].is_decl;
        }
        logf_to(&st->info, "info    : linked %u PTX input(s) into one module (.target %s, "
                "%u kernel(s), %u function(s), %u variable(s)) in %.3f ms", st->n, m->target,
                nk, nf, m->nvars, st->ms);
        ptx_module_free(m);
        st->linked = text;
    }
    publish(st);
    *cubin = st->linked;
    *size = strlen(st->linked) + 1;
    ZN_RET(CUDA_SUCCESS);
}

CUresult cuLinkDestroy(CUlinkState st)
{
    ZN_CHECK_INIT();
    if (!link_valid(st))
        ZN_RET(CUDA_ERROR_INVALID_HANDLE);
    link_free(st);
    ZN_RET(CUDA_SUCCESS);
}

/* ---- -rdc programs: the module loader's hook ---- */

CUresult zn_link_ptx_images(zn_ptx_image **imgs, unsigned *n, char *err, size_t errlen)
{
    unsigned k = *n;
    ptx_module **mods = calloc(k, sizeof *mods);
    char (*names)[32] = calloc(k, sizeof *names);
    const char **np = calloc(k, sizeof *np);
    zn_ptx_image *one = calloc(1, sizeof *one);
    CUresult r = mods && names && np && one ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
    uint32_t sm = 0;
    int newer = 1;
    for (unsigned i = 0; i < k && r == CUDA_SUCCESS; i++) {
        snprintf(names[i], sizeof names[i], "ptx%u", i);
        np[i] = names[i];
        mods[i] = ptx_parse((*imgs)[i].text, (*imgs)[i].len, names[i], err, errlen);
        if (!mods[i])
            r = CUDA_ERROR_INVALID_PTX;
        if ((*imgs)[i].sm > sm)
            sm = (*imgs)[i].sm;
        newer &= (*imgs)[i].newer_than_device;
    }
    char *text = NULL;
    if (r == CUDA_SUCCESS) {
        ptx_module *m = ptx_link((const ptx_module *const *)mods, np, k, &text, err, errlen);
        if (m)
            ptx_module_free(m);
        else
            r = CUDA_ERROR_INVALID_PTX;
    }
    for (unsigned i = 0; i < k && mods; i++)
        ptx_module_free(mods[i]);
    free(mods);
    free(names);
    free(np);
    if (r != CUDA_SUCCESS) {
        zn_log(ZN_LOG_ERROR, "module: linking %u -rdc PTX images: %s", k, err);
        free(one);
        return r;
    }
    zn_log(ZN_LOG_INFO, "module: linked %u -rdc PTX images into one", k);
    one->text = text;
    one->len = strlen(text);
    one->sm = sm;
    one->newer_than_device = newer;
    zn_ptx_images_free(*imgs, k);
    *imgs = one;
    *n = 1;
    return CUDA_SUCCESS;
}
