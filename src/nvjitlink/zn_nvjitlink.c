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

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../fatbin/zn_fatbin.h"
#include "../link/zn_link_inputs.h"
#include "../util/zn_file.h"
#include "../util/zn_log.h"

#define API __attribute__((visibility("default")))
#define ZN_MAGIC_JITLINK 0x5a6a6c6bu   /* "Zjlk" */

struct nvJitLink {
    uint32_t magic;
    zn_link_inputs in;          /* in.cc from -arch; the logs */
    char *linked;               /* nvJitLinkComplete's output */
};

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
        h->in.cc = arch_cc(o + 6);
        if (!h->in.cc) {
            zn_text_logf(&h->in.error, "error   : unrecognized architecture in '%s'", o);
            return NVJITLINK_ERROR_UNRECOGNIZED_ARCH;
        }
        return NVJITLINK_SUCCESS;
    }
    if (!strcmp(o, "-verbose")) {
        h->in.verbose = true;
        return NVJITLINK_SUCCESS;
    }
    for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++)
        if (!strcmp(o, flags[i]))
            return NVJITLINK_SUCCESS;
    for (size_t i = 0; i < sizeof valued / sizeof valued[0]; i++)
        if (has_prefix(o, valued[i]))
            return NVJITLINK_SUCCESS;
    zn_text_logf(&h->in.error, "error   : unrecognized option '%s'", o);
    return NVJITLINK_ERROR_UNRECOGNIZED_OPTION;
}

/* ---- handles -------------------------------------------------------------- */

static void jl_free(nvJitLinkHandle h)
{
    zn_link_inputs_free(&h->in);
    free(h->linked);
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
    if (r == NVJITLINK_SUCCESS && !h->in.cc)
        r = NVJITLINK_ERROR_MISSING_ARCH;
    if (r != NVJITLINK_SUCCESS) {
        /* no handle comes back, so no log: ZINC_LOG=1 says why */
        const char *why = h->in.error.text ? h->in.error.text : "no -arch=sm_XX option";
        zn_log(ZN_LOG_ERROR, "nvJitLinkCreate: %.*s", (int)strcspn(why, "\n"), why);
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

static nvJitLinkResult from_rc(zn_link_rc r)
{
    switch (r) {
    case ZN_LINK_OK: return NVJITLINK_SUCCESS;
    case ZN_LINK_BAD_PTX: return NVJITLINK_ERROR_PTX_COMPILE;
    case ZN_LINK_BAD_FATBIN: return NVJITLINK_ERROR_INVALID_INPUT;
    case ZN_LINK_NO_PTX: return NVJITLINK_ERROR_MISSING_FATBIN;
    default: return NVJITLINK_ERROR_INTERNAL;
    }
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
    zn_link_inputs *in = &h->in;
    if (h->linked) {
        zn_text_logf(&in->error, "error   : %s: input added after nvJitLinkComplete", name);
        return NVJITLINK_ERROR_INVALID_INPUT;
    }
    if (type == NVJITLINK_INPUT_ANY)
        type = classify(data, size);
    switch (type) {
    case NVJITLINK_INPUT_PTX:
    case NVJITLINK_INPUT_LTOIR:
        if (zn_image_classify_n(data, size) != ZN_IMAGE_PTX) {
            zn_text_logf(&in->error, "error   : %s: %s", name, type == NVJITLINK_INPUT_PTX
                         ? "not PTX text"
                         : "LTO IR from NVIDIA's compilers (NVVM bitcode) cannot run on Zinc; "
                           "compile with NVRTC's -dlto under zinc run (Zinc's NVRTC hands out PTX "
                           "as LTO IR), or add PTX");
            return NVJITLINK_ERROR_INVALID_INPUT;
        }
        return from_rc(zn_link_add_ptx(in, data, strnlen(data, size), name));
    case NVJITLINK_INPUT_FATBIN:
        return from_rc(zn_link_add_fatbin(in, data, size, name));
    case NVJITLINK_INPUT_OBJECT:
    case NVJITLINK_INPUT_LIBRARY:
        return from_rc(zn_link_add_object(in, data, size, name));
    case NVJITLINK_INPUT_CUBIN:
        zn_text_logf(&in->error, "error   : %s: a cubin is machine code for an NVIDIA GPU; Zinc "
                     "links PTX (add the PTX, or a fatbin that holds it)", name);
        return NVJITLINK_ERROR_INVALID_INPUT;
    default:
        zn_text_logf(&in->error, "error   : %s: unrecognized input (input type %d)", name, (int)type);
        return NVJITLINK_ERROR_UNRECOGNIZED_INPUT;
    }
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
    size_t len = 0;
    char *buf = zn_read_file(fileName, &len);
    if (!buf) {
        zn_text_logf(&handle->in.error, "error   : cannot read '%s'", fileName);
        return NVJITLINK_ERROR_INVALID_INPUT;
    }
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
    char *text = NULL;
    ptx_module *m = zn_link_inputs_link(&handle->in, &text);
    if (!m)
        return handle->in.n ? NVJITLINK_ERROR_FINALIZE : NVJITLINK_ERROR_INVALID_INPUT;
    zn_text_logf(&handle->in.info, "info    : linked %u PTX input(s) into one module (.target %s)",
                 handle->in.n, m->target);
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

static nvJitLinkResult log_size(nvJitLinkHandle h, const zn_text_log *l, size_t *size)
{
    if (!valid(h))
        return NVJITLINK_ERROR_INVALID_INPUT;
    if (!size)
        return NVJITLINK_ERROR_NULL_INPUT;
    *size = l->len + 1;
    return NVJITLINK_SUCCESS;
}

static nvJitLinkResult log_copy(nvJitLinkHandle h, const zn_text_log *l, char *out)
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
    return log_size(handle, valid(handle) ? &handle->in.error : NULL, size);
}

API nvJitLinkResult __nvJitLinkGetErrorLog_13_0(nvJitLinkHandle handle, char *log)
{
    return log_copy(handle, valid(handle) ? &handle->in.error : NULL, log);
}

API nvJitLinkResult __nvJitLinkGetInfoLogSize_13_0(nvJitLinkHandle handle, size_t *size)
{
    return log_size(handle, valid(handle) ? &handle->in.info : NULL, size);
}

API nvJitLinkResult __nvJitLinkGetInfoLog_13_0(nvJitLinkHandle handle, char *log)
{
    return log_copy(handle, valid(handle) ? &handle->in.info : NULL, log);
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
