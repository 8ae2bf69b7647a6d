/* zn_nvjitlink.c: Zinc's libnvJitLink.so.13, the CUDA toolkit's JIT linker
 * for programs that run on Zinc.
 *
 * NVIDIA's nvJitLink links cubins, PTX and LTO IR (NVVM bitcode) into a
 * cubin for one GPU architecture. Zinc runs PTX, so this one links PTX:
 * every input is reduced to PTX text (PTX as is; LTO IR as Zinc's NVRTC
 * writes it for -dlto, which is PTX; a fatbin, or a host object or
 * library holding fatbins, gives its PTX entries for the -arch given) and
 * parsed when it is added, so a malformed input fails at nvJitLinkAddData
 * with its position in the error log. nvJitLinkComplete runs ptx_link
 * (src/ptx/ptx_link.c); the linked "cubin" and the linked PTX are both
 * that module as PTX text, NUL-terminated, which Zinc's cuModuleLoadData
 * and cuLibraryLoadData accept. A cubin input (machine code for an NVIDIA
 * GPU) or NVIDIA's own LTO IR is NVJITLINK_ERROR_INVALID_INPUT, and the
 * error log says why.
 *
 * Options: -arch=sm_XX (or compute_XX) is required, as NVIDIA's library
 * requires it; -lto, -ptx, -O<n>, -g, -lineinfo, -verbose (one info line
 * per input), -time and the code generation options (-ftz=, -prec-div=,
 * -prec-sqrt=, -fma=, -maxrregcount=, -Xptxas=, -split-compile=,
 * -kernels-used=, -variables-used=, -optimize-unused-variables, ...) are
 * accepted; anything else is NVJITLINK_ERROR_UNRECOGNIZED_OPTION.
 *
 * Exports the CUDA 13 entry points (__nvJitLink*_13_0, which nvJitLink.h's
 * inline functions call), the plain names NVIDIA's library exports beside
 * them, and nvJitLinkVersion, under NVIDIA's version node
 * (libnvJitLink.map). Zinc's LD_AUDIT library (zinc run) makes apps load
 * this library in place of NVIDIA's. */
#define NVJITLINK_NO_INLINE    /* the plain names are defined here (the end) */
#include <nvJitLink.h>

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../fatbin/zn_fatbin.h"
#include "../ptx/ptx_ir.h"
#include "../util/zn_log.h"

#define API __attribute__((visibility("default")))
#define ZN_MAGIC_JITLINK 0x5a6a6c6bu   /* "Zjlk" */

typedef struct text_log {
    char *text;
    size_t len;
} text_log;

struct nvJitLink {
    uint32_t magic;
    unsigned cc;                /* from -arch: 90 = sm_90 */
    bool verbose;
    ptx_module **mods;
    char **names;
    unsigned n, cap;
    char *linked;               /* nvJitLinkComplete's output */
    text_log error, info;
};

__attribute__((format(printf, 2, 3)))
static void logf_to(text_log *l, const char *fmt, ...)
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

static bool valid(nvJitLinkHandle h)
{
    return h && h->magic == ZN_MAGIC_JITLINK;
}

/* ---- options ------------------------------------------------------------ */

static bool has_prefix(const char *s, const char *p)
{
    return strncmp(s, p, strlen(p)) == 0;
}

/* -arch=sm_XX[a|f] / compute_XX: the compute capability, 0 if malformed */
static unsigned arch_cc(const char *v)
{
    const char *d = has_prefix(v, "sm_") ? v + 3 : has_prefix(v, "compute_") ? v + 8 : NULL;
    if (!d || d[0] < '1' || d[0] > '9')
        return 0;
    char *end;
    unsigned long cc = strtoul(d, &end, 10);
    if (cc < 10 || cc > 1299 || (*end && strcmp(end, "a") && strcmp(end, "f")))
        return 0;
    return (unsigned)cc;
}

static nvJitLinkResult parse_option(nvJitLinkHandle h, const char *o)
{
    static const char *const flags[] = {"-lto", "-ptx", "-g", "-lineinfo", "-time",
                                        "-optimize-unused-variables", "-no-cache"};
    static const char *const valued[] = {"-O", "-ftz=", "-prec-div=", "-prec-sqrt=", "-fma=",
                                         "-maxrregcount=", "-Xptxas=", "-Xptxas", "-split-compile=",
                                         "-split-compile-extended=", "-kernels-used=",
                                         "-variables-used=", "-jump-table-density=",
                                         "-Xnvvm=", "-Xnvvm"};
    if (has_prefix(o, "-arch=")) {
        h->cc = arch_cc(o + 6);
        if (!h->cc) {
            logf_to(&h->error, "error   : unrecognized architecture in '%s'", o);
            return NVJITLINK_ERROR_UNRECOGNIZED_ARCH;
        }
        return NVJITLINK_SUCCESS;
    }
    if (!strcmp(o, "-verbose")) {
        h->verbose = true;
        return NVJITLINK_SUCCESS;
    }
    for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++)
        if (!strcmp(o, flags[i]))
            return NVJITLINK_SUCCESS;
    for (size_t i = 0; i < sizeof valued / sizeof valued[0]; i++)
        if (has_prefix(o, valued[i]))
            return NVJITLINK_SUCCESS;
    logf_to(&h->error, "error   : unrecognized option '%s'", o);
    return NVJITLINK_ERROR_UNRECOGNIZED_OPTION;
}

/* ---- handles -------------------------------------------------------------- */

static void jl_free(nvJitLinkHandle h)
{
    for (unsigned i = 0; i < h->n; i++) {
        ptx_module_free(h->mods[i]);
        free(h->names[i]);
    }
    free(h->mods);
    free(h->names);
    free(h->linked);
    free(h->error.text);
    free(h->info.text);
    h->magic = 0;
    free(h);
}

API nvJitLinkResult __nvJitLinkCreate_13_0(nvJitLinkHandle *handle, uint32_t numOptions,
                                           const char *const *options)
{
    if (!handle || (numOptions && !options))
        return NVJITLINK_ERROR_NULL_INPUT;
    *handle = NULL;
    nvJitLinkHandle h = calloc(1, sizeof *h);
    if (!h)
        return NVJITLINK_ERROR_INTERNAL;
    h->magic = ZN_MAGIC_JITLINK;
    nvJitLinkResult r = NVJITLINK_SUCCESS;
    for (uint32_t i = 0; i < numOptions && r == NVJITLINK_SUCCESS; i++)
        r = options[i] ? parse_option(h, options[i]) : NVJITLINK_ERROR_NULL_INPUT;
    if (r == NVJITLINK_SUCCESS && !h->cc)
        r = NVJITLINK_ERROR_MISSING_ARCH;
    if (r != NVJITLINK_SUCCESS) {
        /* no handle comes back, so no log: ZINC_LOG=1 says why */
        zn_log(ZN_LOG_ERROR, "nvJitLinkCreate: %.*s", h->error.len ? (int)h->error.len - 1 : 21,
               h->error.len ? h->error.text : "no -arch=sm_XX option");
        jl_free(h);
        return r;
    }
    *handle = h;
    return NVJITLINK_SUCCESS;
}

API nvJitLinkResult __nvJitLinkDestroy_13_0(nvJitLinkHandle *handle)
{
    if (!handle)
        return NVJITLINK_ERROR_NULL_INPUT;
    if (!valid(*handle))
        return NVJITLINK_ERROR_INVALID_INPUT;
    jl_free(*handle);
    *handle = NULL;
    return NVJITLINK_SUCCESS;
}

/* ---- inputs ---------------------------------------------------------------- */

static nvJitLinkResult add_ptx(nvJitLinkHandle h, const char *text, size_t len, const char *name)
{
    char err[4096];
    ptx_module *m = ptx_parse(text, len, name, err, sizeof err);
    if (!m) {
        logf_to(&h->error, "error   : %s", err);
        return NVJITLINK_ERROR_PTX_COMPILE;
    }
    if (h->n == h->cap) {
        unsigned cap = h->cap ? h->cap * 2 : 4;
        ptx_module **mods = realloc(h->mods, cap * sizeof *mods);
        if (mods)
            h->mods = mods;
        char **names = realloc(h->names, cap * sizeof *names);
        if (names)
            h->names = names;
        if (!mods || !names) {
            ptx_module_free(m);
            return NVJITLINK_ERROR_INTERNAL;
        }
        h->cap = cap;
    }
    h->mods[h->n] = m;
    h->names[h->n] = strdup(name);
    h->n++;
    if (h->verbose)
        logf_to(&h->info, "info    : added PTX '%s' (.target %s, %u functions, %u variables)",
                name, m->target, m->nfuncs, m->nvars);
    return NVJITLINK_SUCCESS;
}

typedef struct fatbin_ctx {
    nvJitLinkHandle h;
    const char *name;
    unsigned added;
} fatbin_ctx;

/* the PTX entries of one fatbin (bare or wrapper) for the -arch given */
static int add_fatbin(void *u, const void *data, size_t size)
{
    fatbin_ctx *c = u;
    char err[4096] = "";
    zn_ptx_image *imgs = NULL;
    unsigned n = 0;
    int rc = zn_fatbin_get_ptx_n(data, size, c->h->cc, &imgs, &n, err, sizeof err);
    if (rc == -2 || (rc == 0 && n == 0)) {
        zn_ptx_images_free(imgs, n);
        return NVJITLINK_SUCCESS;   /* cubins only: the caller says so */
    }
    if (rc != 0) {
        logf_to(&c->h->error, "error   : %s: malformed fatbin: %s", c->name, err);
        return NVJITLINK_ERROR_INVALID_INPUT;
    }
    nvJitLinkResult r = NVJITLINK_SUCCESS;
    for (unsigned i = 0; i < n && r == NVJITLINK_SUCCESS; i++) {
        char nm[512];
        snprintf(nm, sizeof nm, n > 1 ? "%s#%u" : "%s", c->name, i);
        r = add_ptx(c->h, imgs[i].text, imgs[i].len, nm);
        c->added += r == NVJITLINK_SUCCESS;
    }
    zn_ptx_images_free(imgs, n);
    return (int)r;
}

static bool is_archive(const void *data, size_t size)
{
    return size >= 8 && !memcmp(data, "!<arch>\n", 8);
}

/* NVJITLINK_INPUT_ANY: what the bytes are */
static nvJitLinkInputType classify(const void *data, size_t size)
{
    switch (zn_image_classify_n(data, size)) {
    case ZN_IMAGE_PTX: return NVJITLINK_INPUT_PTX;
    case ZN_IMAGE_WRAPPER: case ZN_IMAGE_FATBIN: return NVJITLINK_INPUT_FATBIN;
    case ZN_IMAGE_ELF: {
        /* e_machine 190 (EM_CUDA): a cubin; anything else a host object */
        const unsigned char *e = data;
        return size > 19 && e[18] == 190 && e[19] == 0 ? NVJITLINK_INPUT_CUBIN
                                                       : NVJITLINK_INPUT_OBJECT;
    }
    default:
        return is_archive(data, size) ? NVJITLINK_INPUT_LIBRARY : NVJITLINK_INPUT_NONE;
    }
}

static nvJitLinkResult add_input(nvJitLinkHandle h, nvJitLinkInputType type, const void *data,
                                 size_t size, const char *name)
{
    if (h->linked) {
        logf_to(&h->error, "error   : %s: input added after nvJitLinkComplete", name);
        return NVJITLINK_ERROR_INVALID_INPUT;
    }
    if (type == NVJITLINK_INPUT_ANY)
        type = classify(data, size);
    bool ptx = zn_image_classify_n(data, size) == ZN_IMAGE_PTX;
    fatbin_ctx c = {h, name, 0};
    nvJitLinkResult r;
    switch (type) {
    case NVJITLINK_INPUT_PTX:
    case NVJITLINK_INPUT_LTOIR:
        if (!ptx) {
            logf_to(&h->error, "error   : %s: %s", name, type == NVJITLINK_INPUT_PTX
                    ? "not PTX text"
                    : "LTO IR from NVIDIA's compilers (NVVM bitcode) cannot run on Zinc; compile "
                      "with NVRTC's -dlto under zinc run (Zinc's NVRTC hands out PTX as LTO IR), "
                      "or add PTX");
            return NVJITLINK_ERROR_INVALID_INPUT;
        }
        return add_ptx(h, data, strnlen(data, size), name);
    case NVJITLINK_INPUT_FATBIN:
        r = (nvJitLinkResult)add_fatbin(&c, data, size);
        break;
    case NVJITLINK_INPUT_OBJECT:
    case NVJITLINK_INPUT_LIBRARY:
        r = (nvJitLinkResult)zn_fatbin_each_embedded(data, size, add_fatbin, &c);
        break;
    case NVJITLINK_INPUT_CUBIN:
        logf_to(&h->error, "error   : %s: a cubin is machine code for an NVIDIA GPU; Zinc links "
                "PTX (add the PTX, or a fatbin that holds it)", name);
        return NVJITLINK_ERROR_INVALID_INPUT;
    default:
        logf_to(&h->error, "error   : %s: unrecognized input (input type %d)", name, (int)type);
        return NVJITLINK_ERROR_UNRECOGNIZED_INPUT;
    }
    if (r == NVJITLINK_SUCCESS && !c.added) {
        logf_to(&h->error, "error   : %s holds no PTX for sm_%u or older (only cubins, which "
                "are machine code for an NVIDIA GPU): rebuild it with PTX embedded (e.g. "
                "-gencode arch=compute_XX,code=compute_XX)", name, h->cc);
        r = NVJITLINK_ERROR_MISSING_FATBIN;
    }
    return r;
}

API nvJitLinkResult __nvJitLinkAddData_13_0(nvJitLinkHandle handle, nvJitLinkInputType inputType,
                                            const void *data, size_t size, const char *name)
{
    if (!valid(handle))
        return NVJITLINK_ERROR_INVALID_INPUT;
    if (!data || !size)
        return NVJITLINK_ERROR_NULL_INPUT;
    return add_input(handle, inputType, data, size, name && *name ? name : "input");
}

API nvJitLinkResult __nvJitLinkAddFile_13_0(nvJitLinkHandle handle, nvJitLinkInputType inputType,
                                            const char *fileName)
{
    if (!valid(handle))
        return NVJITLINK_ERROR_INVALID_INPUT;
    if (!fileName)
        return NVJITLINK_ERROR_NULL_INPUT;
    FILE *f = fopen(fileName, "rb");
    if (!f) {
        logf_to(&handle->error, "error   : cannot open '%s'", fileName);
        return NVJITLINK_ERROR_INVALID_INPUT;
    }
    char *buf = NULL;
    size_t len = 0, cap = 0, got;
    do {
        if (len + 65536 + 1 > cap) {
            cap = (len + 65536 + 1) * 2;
            char *nb = realloc(buf, cap);
            if (!nb) {
                free(buf);
                fclose(f);
                return NVJITLINK_ERROR_INTERNAL;
            }
            buf = nb;
        }
        got = fread(buf + len, 1, 65536, f);
        len += got;
    } while (got == 65536);
    fclose(f);
    buf[len] = 0;
    nvJitLinkResult r = len ? add_input(handle, inputType, buf, len, fileName)
                            : NVJITLINK_ERROR_INVALID_INPUT;
    free(buf);
    return r;
}

/* ---- linking and its results ----------------------------------------------- */

API nvJitLinkResult __nvJitLinkComplete_13_0(nvJitLinkHandle handle)
{
    if (!valid(handle))
        return NVJITLINK_ERROR_INVALID_INPUT;
    if (handle->linked)
        return NVJITLINK_SUCCESS;
    if (!handle->n) {
        logf_to(&handle->error, "error   : nothing to link (no input was added)");
        return NVJITLINK_ERROR_INVALID_INPUT;
    }
    char err[4096];
    char *text = NULL;
    ptx_module *m = ptx_link((const ptx_module *const *)handle->mods,
                             (const char *const *)handle->names, handle->n, &text, err, sizeof err);
    if (!m) {
        logf_to(&handle->error, "error   : %s", err);
        return NVJITLINK_ERROR_FINALIZE;
    }
    logf_to(&handle->info, "info    : linked %u PTX input(s) into one module (.target %s)",
            handle->n, m->target);
    ptx_module_free(m);
    handle->linked = text;
    return NVJITLINK_SUCCESS;
}

static nvJitLinkResult linked_size(nvJitLinkHandle h, size_t *size)
{
    if (!valid(h))
        return NVJITLINK_ERROR_INVALID_INPUT;
    if (!size)
        return NVJITLINK_ERROR_NULL_INPUT;
    if (!h->linked)
        return NVJITLINK_ERROR_INVALID_INPUT;   /* nvJitLinkComplete has not succeeded */
    *size = strlen(h->linked) + 1;
    return NVJITLINK_SUCCESS;
}

static nvJitLinkResult linked_copy(nvJitLinkHandle h, void *out)
{
    size_t n;
    nvJitLinkResult r = linked_size(h, &n);
    if (r == NVJITLINK_SUCCESS && !out)
        r = NVJITLINK_ERROR_NULL_INPUT;
    if (r == NVJITLINK_SUCCESS)
        memcpy(out, h->linked, n);
    return r;
}

API nvJitLinkResult __nvJitLinkGetLinkedCubinSize_13_0(nvJitLinkHandle handle, size_t *size)
{
    return linked_size(handle, size);
}

API nvJitLinkResult __nvJitLinkGetLinkedCubin_13_0(nvJitLinkHandle handle, void *cubin)
{
    return linked_copy(handle, cubin);
}

API nvJitLinkResult __nvJitLinkGetLinkedPtxSize_13_0(nvJitLinkHandle handle, size_t *size)
{
    return linked_size(handle, size);
}

API nvJitLinkResult __nvJitLinkGetLinkedPtx_13_0(nvJitLinkHandle handle, char *ptx)
{
    return linked_copy(handle, ptx);
}

static nvJitLinkResult log_size(nvJitLinkHandle h, const text_log *l, size_t *size)
{
    if (!valid(h))
        return NVJITLINK_ERROR_INVALID_INPUT;
    if (!size)
        return NVJITLINK_ERROR_NULL_INPUT;
    *size = l->len + 1;
    return NVJITLINK_SUCCESS;
}

static nvJitLinkResult log_copy(nvJitLinkHandle h, const text_log *l, char *out)
{
    if (!valid(h))
        return NVJITLINK_ERROR_INVALID_INPUT;
    if (!out)
        return NVJITLINK_ERROR_NULL_INPUT;
    if (l->len)
        memcpy(out, l->text, l->len);
    out[l->len] = 0;
    return NVJITLINK_SUCCESS;
}

API nvJitLinkResult __nvJitLinkGetErrorLogSize_13_0(nvJitLinkHandle handle, size_t *size)
{
    return log_size(handle, valid(handle) ? &handle->error : NULL, size);
}

API nvJitLinkResult __nvJitLinkGetErrorLog_13_0(nvJitLinkHandle handle, char *log)
{
    return log_copy(handle, valid(handle) ? &handle->error : NULL, log);
}

API nvJitLinkResult __nvJitLinkGetInfoLogSize_13_0(nvJitLinkHandle handle, size_t *size)
{
    return log_size(handle, valid(handle) ? &handle->info : NULL, size);
}

API nvJitLinkResult __nvJitLinkGetInfoLog_13_0(nvJitLinkHandle handle, char *log)
{
    return log_copy(handle, valid(handle) ? &handle->info : NULL, log);
}

API nvJitLinkResult nvJitLinkVersion(unsigned int *major, unsigned int *minor)
{
    if (!major || !minor)
        return NVJITLINK_ERROR_NULL_INPUT;
    *major = 13;
    *minor = 0;
    return NVJITLINK_SUCCESS;
}

/* ---- the plain names (NVIDIA's library exports them too) ------------------ */

#define PLAIN(name, params, args)                          \
    API nvJitLinkResult name params;                       \
    API nvJitLinkResult name params { return __##name##_13_0 args; }
PLAIN(nvJitLinkCreate, (nvJitLinkHandle *h, uint32_t n, const char **o), (h, n, o))
PLAIN(nvJitLinkDestroy, (nvJitLinkHandle *h), (h))
PLAIN(nvJitLinkAddData, (nvJitLinkHandle h, nvJitLinkInputType t, const void *d, size_t n,
                         const char *name), (h, t, d, n, name))
PLAIN(nvJitLinkAddFile, (nvJitLinkHandle h, nvJitLinkInputType t, const char *f), (h, t, f))
PLAIN(nvJitLinkComplete, (nvJitLinkHandle h), (h))
PLAIN(nvJitLinkGetLinkedCubinSize, (nvJitLinkHandle h, size_t *n), (h, n))
PLAIN(nvJitLinkGetLinkedCubin, (nvJitLinkHandle h, void *c), (h, c))
PLAIN(nvJitLinkGetLinkedPtxSize, (nvJitLinkHandle h, size_t *n), (h, n))
PLAIN(nvJitLinkGetLinkedPtx, (nvJitLinkHandle h, char *p), (h, p))
PLAIN(nvJitLinkGetErrorLogSize, (nvJitLinkHandle h, size_t *n), (h, n))
PLAIN(nvJitLinkGetErrorLog, (nvJitLinkHandle h, char *l), (h, l))
PLAIN(nvJitLinkGetInfoLogSize, (nvJitLinkHandle h, size_t *n), (h, n))
PLAIN(nvJitLinkGetInfoLog, (nvJitLinkHandle h, char *l), (h, l))
