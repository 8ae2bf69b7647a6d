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
#include "../link/zn_link_inputs.h"
#include "../util/zn_file.h"
#include "../util/zn_log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define ZN_MAGIC_LINK 0x5a6c6e6bu   /* "Zlnk" */

/* a caller's log buffer (CU_JIT_*_LOG_BUFFER and its size option) */
typedef struct zn_userbuf {
    char *user;                 /* NULL when none */
    size_t cap;                 /* its size, as given at cuLinkCreate */
    int size_opt;               /* index of its SIZE_BYTES option, -1 none */
} zn_userbuf;

struct CUlinkState_st {
    uint32_t magic;
    void **vals;                /* the caller's option values (written back) */
    int wall_opt;               /* index of CU_JIT_WALL_TIME, -1 none */
    zn_userbuf info_buf, error_buf;
    zn_link_inputs in;          /* the inputs and the logs */
    double ms;                  /* time spent so far */
    char *linked;               /* cuLinkComplete's output */
};

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Copies the logs into the caller's buffers, the sizes and time into its
 * option values. */
static void publish(CUlinkState s)
{
    zn_userbuf *bs[2] = {&s->info_buf, &s->error_buf};
    const zn_text_log *ls[2] = {&s->in.info, &s->in.error};
    for (int i = 0; i < 2; i++) {
        zn_userbuf *b = bs[i];
        if (!b->user || !b->cap)
            continue;
        snprintf(b->user, b->cap, "%s", ls[i]->text ? ls[i]->text : "");
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
    zn_link_inputs_free(&s->in);
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
    s->wall_opt = s->info_buf.size_opt = s->error_buf.size_opt = -1;
    s->in.cc = zn_dev_cc();
    for (unsigned i = 0; i < n; i++) {
        switch ((int)opts[i]) {
        case CU_JIT_INFO_LOG_BUFFER: s->info_buf.user = vals[i]; break;
        case CU_JIT_ERROR_LOG_BUFFER: s->error_buf.user = vals[i]; break;
        case CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES:
            s->info_buf.cap = (size_t)(uintptr_t)vals[i];
            s->info_buf.size_opt = (int)i;
            break;
        case CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES:
            s->error_buf.cap = (size_t)(uintptr_t)vals[i];
            s->error_buf.size_opt = (int)i;
            break;
        case CU_JIT_WALL_TIME: s->wall_opt = (int)i; break;
        case CU_JIT_LOG_VERBOSE: s->in.verbose = vals[i] != NULL; break;
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

static CUresult from_rc(zn_link_rc r)
{
    switch (r) {
    case ZN_LINK_OK: return CUDA_SUCCESS;
    case ZN_LINK_BAD_PTX: return CUDA_ERROR_INVALID_PTX;
    case ZN_LINK_BAD_FATBIN: return CUDA_ERROR_INVALID_IMAGE;
    case ZN_LINK_NO_PTX: return CUDA_ERROR_NOT_SUPPORTED;
    default: return CUDA_ERROR_OUT_OF_MEMORY;
    }
}

static CUresult link_add(CUlinkState s, CUjitInputType type, const void *data, size_t size,
                         const char *name)
{
    if (!link_valid(s))
        return CUDA_ERROR_INVALID_HANDLE;
    if (!data || (!size && type != CU_JIT_INPUT_PTX))
        return CUDA_ERROR_INVALID_VALUE;
    if (s->linked) {
        zn_text_logf(&s->in.error, "error   : input added after cuLinkComplete");
        return CUDA_ERROR_INVALID_VALUE;
    }
    char dflt[32];
    if (!name || !name[0]) {
        snprintf(dflt, sizeof dflt, "input%u", s->in.n);
        name = dflt;
    }
    double t0 = now_ms();
    CUresult r;
    switch (type) {
    case CU_JIT_INPUT_NVVM:
        /* Zinc's NVRTC hands out PTX as a -dlto program's LTO IR */
        if (zn_image_classify_n(data, size) != ZN_IMAGE_PTX) {
            zn_text_logf(&s->in.error, "error   : %s: NVVM IR (LTO) from NVIDIA's compilers cannot "
                         "run on Zinc; add PTX, or compile with NVRTC's -dlto under zinc run "
                         "(Zinc's NVRTC hands out PTX as the LTO IR)", name);
            r = CUDA_ERROR_NOT_SUPPORTED;
            break;
        }
        /* fall through */
    case CU_JIT_INPUT_PTX:
        r = from_rc(zn_link_add_ptx(&s->in, data, size ? strnlen(data, size) : strlen(data), name));
        break;
    case CU_JIT_INPUT_FATBINARY:
        r = from_rc(zn_link_add_fatbin(&s->in, data, size, name));
        break;
    case CU_JIT_INPUT_OBJECT:
    case CU_JIT_INPUT_LIBRARY:
        r = from_rc(zn_link_add_object(&s->in, data, size, name));
        break;
    case CU_JIT_INPUT_CUBIN:
        zn_text_logf(&s->in.error, "error   : %s: a cubin is machine code for an NVIDIA GPU; Zinc "
                     "links PTX (add the PTX, or a fatbin that holds it)", name);
        r = CUDA_ERROR_NOT_SUPPORTED;
        break;
    default:
        r = CUDA_ERROR_INVALID_VALUE;
        break;
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

CUresult cuLinkAddFile_v2(CUlinkState st, CUjitInputType type, const char *path,
                          unsigned int n, CUjit_option *opts, void **vals)
{
    ZN_CHECK_INIT();
    if (!link_valid(st))
        ZN_RET(CUDA_ERROR_INVALID_HANDLE);
    if (!path || (n && (!opts || !vals)))
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    size_t len = 0;
    char *buf = zn_read_file(path, &len);
    if (!buf) {
        zn_text_logf(&st->in.error, "error   : cannot read '%s'", path);
        publish(st);
        ZN_RET(CUDA_ERROR_FILE_NOT_FOUND);
    }
    CUresult r = len ? link_add(st, type, buf, len, path) : CUDA_ERROR_INVALID_VALUE;
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
        double t0 = now_ms();
        char *text = NULL;
        ptx_module *m = zn_link_inputs_link(&st->in, &text);
        st->ms += now_ms() - t0;
        if (!m) {
            zn_log(ZN_LOG_ERROR, "cuLinkComplete: %s", st->in.error.text ? st->in.error.text : "");
            publish(st);
            ZN_RET(st->in.n ? CUDA_ERROR_INVALID_PTX : CUDA_ERROR_INVALID_VALUE);
        }
        unsigned nk = 0, nf = 0;    /* definitions (funcs holds prototypes too) */
        for (uint32_t i = 0; i < m->nfuncs; i++) {
            nk += m->funcs[i].is_entry;
            nf += !m->funcs[i].is_entry && !m->funcs[i].is_decl;
        }
        zn_text_logf(&st->in.info, "info    : linked %u PTX input(s) into one module (.target %s, "
                     "%u kernel(s), %u function(s), %u variable(s)) in %.3f ms", st->in.n,
                     m->target, nk, nf, m->nvars, st->ms);
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
