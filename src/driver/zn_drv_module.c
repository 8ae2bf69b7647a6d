/* zn_drv_module.c: modules and libraries: fatbin -> PTX -> native code.
 *
 * Loading takes the PTX the fatbin layer picks for the reported compute
 * capability (or PTX text handed in directly), parses each image, places
 * every module-scope .global/.const variable in device memory (with its
 * initializer and the addresses its initializer takes), and compiles the
 * image against those addresses: by default lazily, each kernel on its
 * first launch (zn_func_ready), as CUDA_MODULE_LOADING=LAZY does on
 * NVIDIA's driver; CUDA_MODULE_LOADING=EAGER compiles every kernel at load
 * (in parallel). Either way loading parses and verifies all the PTX, so a
 * malformed module fails to load. An -rdc program brings one PTX image per
 * translation unit: each is compiled as its own module, .extern variables
 * are bound to the image that defines them, and kernels and variables are
 * looked up across all images. (Calls to .extern functions across images
 * need real linking, which is not done yet.)
 */
#include "../util/zn_file.h"
#include "zn_drv.h"
#include "zn_drv_profile.h"
#include "zn_drv_link.h"
#include "../exec/zn_exec.h"
#include "../fatbin/zn_fatbin.h"
#include "../util/zn_log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ERRLEN 4096

static bool module_valid(const zn_module *m)
{
    return m && m->magic == ZN_MAGIC_MODULE;
}

static bool library_valid(const zn_library *l)
{
    return l && l->magic == ZN_MAGIC_LIBRARY && module_valid(l->mod);
}

static bool var_is_data(const ptx_var *v)
{
    return v->space == PTX_SPACE_GLOBAL || v->space == PTX_SPACE_CONST;
}

static void module_free(zn_module *m)
{
    if (!m)
        return;
    for (unsigned i = 0; i < m->nimgs; i++) {
        zn_image *im = &m->imgs[i];
        if (im->jit)
            zn_jit_module_free(im->jit);
        for (uint32_t g = 0; g < im->nglobals; g++)
            if (im->gsizes[g] != UINT64_MAX && im->globals[g].addr)
                zn_mem_free(im->globals[g].addr);
        free(im->globals);
        free(im->gsizes);
        if (im->ptx)
            ptx_module_free(im->ptx);
    }
    free(m->imgs);
    zn_legacy_free(m);
    /* handles point into these: retired, never freed */
    zn_handle_bury(m->funcs, m->nfuncs * sizeof *m->funcs);
    zn_handle_retire(ZN_HANDLE_MODULE, m, sizeof *m);
}

/* Finds a defined variable by name across the module's images. */
static bool global_find(const zn_module *m, const char *name, void **addr, uint64_t *size)
{
    for (unsigned i = 0; i < m->nimgs; i++) {
        const zn_image *im = &m->imgs[i];
        for (uint32_t g = 0; g < im->nglobals; g++) {
            if (im->gsizes[g] != UINT64_MAX && !strcmp(im->globals[g].name, name)) {
                *addr = im->globals[g].addr;
                *size = im->gsizes[g];
                return true;
            }
        }
    }
    return false;
}

/* Allocates the image's own variables; gsizes UINT64_MAX marks an .extern
 * one, bound later to another image's definition. */
static CUresult image_alloc_globals(zn_image *im)
{
    const ptx_module *p = im->ptx;
    uint32_t n = 0;
    for (uint32_t i = 0; i < p->nvars; i++)
        n += var_is_data(&p->vars[i]);
    im->globals = calloc(n ? n : 1, sizeof *im->globals);
    im->gsizes = calloc(n ? n : 1, sizeof *im->gsizes);
    if (!im->globals || !im->gsizes)
        return CUDA_ERROR_OUT_OF_MEMORY;
    for (uint32_t i = 0; i < p->nvars; i++) {
        const ptx_var *v = &p->vars[i];
        if (!var_is_data(v))
            continue;
        uint32_t g = im->nglobals++;
        im->globals[g].name = v->name;
        if (v->linkage == PTX_LINK_EXTERN) {
            im->gsizes[g] = UINT64_MAX;
            continue;
        }
        size_t size = v->size ? v->size : 1;
        size_t align = v->align > 16 ? v->align : 16;
        void *a = zn_mem_alloc(size, align, ZN_MEM_MODULE);
        if (!a)
            return CUDA_ERROR_OUT_OF_MEMORY;
        if (v->init)
            memcpy(a, v->init, v->size);
        else
            memset(a, 0, size);
        im->globals[g].addr = a;
        im->gsizes[g] = v->size;
    }
    return CUDA_SUCCESS;
}

/* Binds .extern variables and writes the addresses initializers take. */
static CUresult module_link_data(zn_module *m)
{
    for (unsigned i = 0; i < m->nimgs; i++) {
        zn_image *im = &m->imgs[i];
        uint64_t size;
        for (uint32_t g = 0; g < im->nglobals; g++) {
            if (im->gsizes[g] != UINT64_MAX)
                continue;
            if (!global_find(m, im->globals[g].name, &im->globals[g].addr, &size)) {
                zn_log(ZN_LOG_ERROR, "module: .extern variable '%s' is defined in no image",
                       im->globals[g].name);
                return CUDA_ERROR_INVALID_PTX;
            }
        }
        const ptx_module *p = im->ptx;
        for (uint32_t v = 0, g = 0; v < p->nvars; v++) {
            const ptx_var *var = &p->vars[v];
            if (!var_is_data(var))
                continue;
            char *base = im->globals[g++].addr;
            if (var->linkage == PTX_LINK_EXTERN)
                continue;
            for (uint32_t r = 0; r < var->nrelocs; r++) {
                const ptx_reloc *rl = &var->relocs[r];
                void *target;
                if (!global_find(m, rl->sym, &target, &size)) {
                    zn_log(ZN_LOG_WARN, "module: address of '%s' in the initializer of '%s' "
                           "is not supported yet (left 0)", rl->sym, var->name);
                    continue;
                }
                uint64_t val = (uint64_t)(uintptr_t)target + (uint64_t)rl->addend;
                if (rl->offset + 8 <= var->size)
                    memcpy(base + rl->offset, &val, 8);
            }
        }
    }
    return CUDA_SUCCESS;
}

static CUresult module_collect_funcs(zn_module *m)
{
    unsigned n = 0;
    for (unsigned i = 0; i < m->nimgs; i++)
        n += zn_jit_kernel_count(m->imgs[i].jit);
    m->funcs = calloc(n ? n : 1, sizeof *m->funcs);
    if (!m->funcs)
        return CUDA_ERROR_OUT_OF_MEMORY;
    for (unsigned i = 0; i < m->nimgs; i++) {
        uint64_t cbytes = 0;
        const ptx_module *p = m->imgs[i].ptx;
        for (uint32_t v = 0; v < p->nvars; v++)
            if (p->vars[v].space == PTX_SPACE_CONST && p->vars[v].linkage != PTX_LINK_EXTERN)
                cbytes += p->vars[v].size;
        for (uint32_t k = 0; k < zn_jit_kernel_count(m->imgs[i].jit); k++) {
            zn_func *f = &m->funcs[m->nfuncs++];
            f->magic = ZN_MAGIC_FUNC;
            f->mod = m;
            f->ki = zn_jit_kernel_at(m->imgs[i].jit, k);
            f->jit = m->imgs[i].jit;
            f->name = f->ki->name;
            f->const_bytes = (uint32_t)cbytes;
            int room = 48 * 1024 - (int)f->ki->static_shared;
            f->max_dyn_shared = room > 0 ? room : 0;
            f->carveout = -1;
        }
    }
    return CUDA_SUCCESS;
}

/* Loads PTX images (already chosen and decompressed) into a new module. */
static CUresult module_from_ptx(zn_ctx *ctx, zn_ptx_image *ptx, unsigned nptx,
                                char *errbuf, zn_module **out)
{
    zn_module *m = zn_handle_new(ZN_HANDLE_MODULE, sizeof *m);
    if (!m)
        return CUDA_ERROR_OUT_OF_MEMORY;
    m->magic = ZN_MAGIC_MODULE;
    m->ctx = ctx;
    m->imgs = calloc(nptx, sizeof *m->imgs);
    if (!m->imgs) {
        module_free(m);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    CUresult r = CUDA_SUCCESS;
    for (unsigned i = 0; i < nptx && r == CUDA_SUCCESS; i++) {
        char name[32];
        snprintf(name, sizeof name, "ptx%u", i);
        /* device-side cudaGraphSetConditional (zn_drv_graph_cond.c) */
        size_t plen = 0;
        char *patched = zn_gcond_ptx_patch(ptx[i].text, ptx[i].len, &plen);
        m->imgs[i].ptx = ptx_parse(patched ? patched : ptx[i].text,
                                   patched ? plen : ptx[i].len, name, errbuf, ERRLEN);
        free(patched);
        m->nimgs = i + 1;
        if (!m->imgs[i].ptx) {
            zn_log(ZN_LOG_ERROR, "PTX parse error: %s", errbuf);
            r = CUDA_ERROR_INVALID_PTX;
            break;
        }
        if (i == 0 || ptx[i].sm > m->sm)
            m->sm = ptx[i].sm ? ptx[i].sm : m->imgs[i].ptx->sm;
        r = image_alloc_globals(&m->imgs[i]);
    }
    if (r == CUDA_SUCCESS)
        r = module_link_data(m);
    int eager = zn_compile_env_eager();
    for (unsigned i = 0; i < m->nimgs && r == CUDA_SUCCESS; i++) {
        zn_image *im = &m->imgs[i];
        zn_compile_opts o = { .opt_level = zn_compile_env_opt(), .globals = im->globals,
                              .nglobals = im->nglobals };
        double t0 = zn_prof_on() ? zn_prof_now() : 0;
        im->jit = zn_jit_open(im->ptx, &o, eager, errbuf, ERRLEN);
        if (t0)
            zn_prof_compile(im->jit, zn_prof_now() - t0);
        if (!im->jit) {
            zn_log(ZN_LOG_ERROR, "PTX compile error: %s", errbuf);
            r = CUDA_ERROR_INVALID_PTX;
        }
    }
    if (r == CUDA_SUCCESS)
        r = module_collect_funcs(m);
    if (r != CUDA_SUCCESS) {
        module_free(m);
        return r;
    }
    zn_log(ZN_LOG_INFO, "module loaded: %u PTX image(s), %u kernel(s), %s", m->nimgs,
           m->nfuncs, eager ? "compiled (CUDA_MODULE_LOADING=EAGER)" : "compiled on first launch");
    *out = m;
    return CUDA_SUCCESS;
}

/* Any image the loaders accept -> a module. errbuf (ERRLEN bytes) keeps
 * the message of a failure for cuModuleLoadDataEx's error log. */
static CUresult module_load(const void *image, char *errbuf, zn_module **out)
{
    zn_ctx *ctx;
    CUresult r = zn_ctx_enter(&ctx);
    if (r == CUDA_ERROR_INVALID_CONTEXT) {
        /* libraries are context-independent: cudart loads them before any
         * context is current */
        ctx = zn_ctx_primary(0);
        r = CUDA_SUCCESS;
    }
    if (r != CUDA_SUCCESS)
        return r;
    if (!image || !out)
        return CUDA_ERROR_INVALID_VALUE;
    errbuf[0] = 0;
    zn_image_kind kind = zn_image_classify(image);
    if (kind == ZN_IMAGE_PTX) {
        zn_ptx_image one = { .text = (char *)image, .len = strlen(image), .sm = 0 };
        return module_from_ptx(ctx, &one, 1, errbuf, out);
    }
    if (kind == ZN_IMAGE_ELF) {
        snprintf(errbuf, ERRLEN, "the image is a cubin (machine code for an NVIDIA GPU); "
                 "Zinc runs PTX: rebuild with PTX embedded (e.g. -gencode "
                 "arch=compute_XX,code=compute_XX)");
        zn_log(ZN_LOG_ERROR, "module: %s", errbuf);
        return CUDA_ERROR_NO_BINARY_FOR_GPU;
    }
    zn_ptx_image *imgs = NULL;
    unsigned n = 0;
    int rc = zn_fatbin_get_ptx(image, zn_dev_cc(), &imgs, &n, errbuf, ERRLEN);
    if (rc == -2 || (rc == 0 && n == 0)) {
        zn_log(ZN_LOG_ERROR, "module: %s", errbuf[0] ? errbuf : "no PTX in the image");
        zn_ptx_images_free(imgs, n);
        return CUDA_ERROR_NO_BINARY_FOR_GPU;
    }
    if (rc != 0) {
        zn_log(ZN_LOG_ERROR, "module: %s", errbuf);
        return CUDA_ERROR_INVALID_IMAGE;
    }
    if (imgs[0].newer_than_device)
        zn_log(ZN_LOG_WARN, "module: the PTX targets sm_%u, newer than the reported "
               "compute capability %u.%u; compiling it anyway", imgs[0].sm,
               zn_dev_cc() / 10, zn_dev_cc() % 10);
    /* -rdc: one PTX image per translation unit; link them into one
     * (zn_drv_link.c) so that calls and symbols resolve across units */
    if (n > 1 && (r = zn_link_ptx_images(&imgs, &n, errbuf, ERRLEN)) != CUDA_SUCCESS) {
        zn_ptx_images_free(imgs, n);
        return r;
    }
    r = module_from_ptx(ctx, imgs, n, errbuf, out);
    zn_ptx_images_free(imgs, n);
    return r;
}

/* Whole file, NUL-terminated (PTX files are text). */
static CUresult read_file(const char *fname, char **out)
{
    if (!fname)
        return CUDA_ERROR_INVALID_VALUE;
    size_t len;
    *out = zn_read_file(fname, &len);
    return *out ? CUDA_SUCCESS : CUDA_ERROR_FILE_NOT_FOUND;
}

/* ---- modules ---- */

CUresult cuModuleLoadData(CUmodule *mod, const void *image)
{
    char err[ERRLEN];
    ZN_RET(module_load(image, err, mod));
}

CUresult cuModuleLoadFatBinary(CUmodule *mod, const void *fatbin)
{
    char err[ERRLEN];
    ZN_RET(module_load(fatbin, err, mod));
}

/* Honours the JIT log options (the rest tune ptxas and mean nothing here). */
CUresult cuModuleLoadDataEx(CUmodule *mod, const void *image, unsigned int n,
                            CUjit_option *opts, void **vals)
{
    char err[ERRLEN];
    CUresult r = zn_jit_options_check(n, opts, vals);
    if (r != CUDA_SUCCESS)
        ZN_RET(r);
    r = module_load(image, err, mod);
    char *ebuf = NULL, *ibuf = NULL;
    int esz_i = -1, isz_i = -1;
    for (unsigned i = 0; i < n; i++) {
        switch (opts[i]) {
        case CU_JIT_ERROR_LOG_BUFFER: ebuf = vals[i]; break;
        case CU_JIT_INFO_LOG_BUFFER: ibuf = vals[i]; break;
        case CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES: esz_i = (int)i; break;
        case CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES: isz_i = (int)i; break;
        default: break;
        }
    }
    if (ebuf && esz_i >= 0) {
        size_t cap = (size_t)(uintptr_t)vals[esz_i];
        const char *msg = r == CUDA_SUCCESS ? "" : err;
        if (cap) {
            snprintf(ebuf, cap, "%s", msg);
            vals[esz_i] = (void *)(uintptr_t)(strlen(ebuf) + 1);
        }
    }
    if (ibuf && isz_i >= 0 && (size_t)(uintptr_t)vals[isz_i]) {
        ibuf[0] = 0;
        vals[isz_i] = (void *)(uintptr_t)1;
    }
    ZN_RET(r);
}

CUresult cuModuleLoad(CUmodule *mod, const char *fname)
{
    ZN_CHECK_INIT();
    char *buf, err[ERRLEN];
    CUresult r = read_file(fname, &buf);
    if (r != CUDA_SUCCESS)
        ZN_RET(r);
    r = module_load(buf, err, mod);
    free(buf);
    ZN_RET(r);
}

CUresult cuModuleUnload(CUmodule mod)
{
    ZN_CHECK_INIT();
    if (!module_valid(mod))
        ZN_RET(CUDA_ERROR_INVALID_HANDLE);
    module_free(mod);
    ZN_RET(CUDA_SUCCESS);
}

static CUresult func_find(const zn_module *m, const char *name, zn_func **out)
{
    if (!name || !out)
        return CUDA_ERROR_INVALID_VALUE;
    for (unsigned i = 0; i < m->nfuncs; i++) {
        if (!strcmp(m->funcs[i].name, name)) {
            *out = &m->funcs[i];
            return CUDA_SUCCESS;
        }
    }
    return CUDA_ERROR_NOT_FOUND;
}

CUresult cuModuleGetFunction(CUfunction *f, CUmodule mod, const char *name)
{
    ZN_CHECK_INIT();
    if (!module_valid(mod))
        ZN_RET(CUDA_ERROR_INVALID_HANDLE);
    ZN_RET(func_find(mod, name, f));
}

static CUresult global_get(CUdeviceptr *dptr, size_t *bytes, const zn_module *m,
                           const char *name)
{
    void *addr;
    uint64_t size;
    if (!name)
        return CUDA_ERROR_INVALID_VALUE;
    if (!global_find(m, name, &addr, &size))
        return CUDA_ERROR_NOT_FOUND;
    if (dptr)
        *dptr = (CUdeviceptr)(uintptr_t)addr;
    if (bytes)
        *bytes = size;
    return CUDA_SUCCESS;
}

CUresult cuModuleGetGlobal_v2(CUdeviceptr *dptr, size_t *bytes, CUmodule mod,
                              const char *name)
{
    ZN_CHECK_INIT();
    if (!module_valid(mod))
        ZN_RET(CUDA_ERROR_INVALID_HANDLE);
    if (!dptr && !bytes)        /* either output may be NULL, not both (NVIDIA) */
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    ZN_RET(global_get(dptr, bytes, mod, name));
}

/* CU_MODULE_LAZY_LOADING (2) unless CUDA_MODULE_LOADING=EAGER. */
CUresult cuModuleGetLoadingMode(int *mode)
{
    ZN_CHECK_INIT();
    if (!mode)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    *mode = zn_compile_env_eager() ? ZN_CU_MODULE_EAGER_LOADING : 2;
    ZN_RET(CUDA_SUCCESS);
}

CUresult cuModuleGetFunctionCount(unsigned int *count, CUmodule mod)
{
    ZN_CHECK_INIT();
    if (!module_valid(mod))
        ZN_RET(CUDA_ERROR_INVALID_HANDLE);
    if (!count)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    *count = mod->nfuncs;
    ZN_RET(CUDA_SUCCESS);
}

CUresult cuModuleEnumerateFunctions(CUfunction *fns, unsigned int n, CUmodule mod)
{
    ZN_CHECK_INIT();
    if (!module_valid(mod))
        ZN_RET(CUDA_ERROR_INVALID_HANDLE);
    if (!fns)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    /* at most n handles (CUDA: "a maximum number of numFunctions") */
    for (unsigned i = 0; i < mod->nfuncs && i < n; i++)
        fns[i] = &mod->funcs[i];
    ZN_RET(CUDA_SUCCESS);
}

/* Texture and surface references: nvcc 13 cannot emit .texref/.surfref
 * (CUDA 13's cuda.h no longer declares these calls) and Zinc's PTX parser
 * refuses a module declaring one, so no loaded module has a reference:
 * after the handle and argument checks every name is CUDA_ERROR_NOT_FOUND,
 * CUDA's answer for a name the module does not have. */
static CUresult ref_lookup(void **ref, CUmodule mod, const char *name, const char *call)
{
    if (!module_valid(mod))
        return CUDA_ERROR_INVALID_HANDLE;
    if (!ref || !name)
        return CUDA_ERROR_INVALID_VALUE;
    zn_log(ZN_LOG_WARN, "%s(\"%s\"): modules have no texture/surface references (Zinc "
                        "supports texture and surface objects): CUDA_ERROR_NOT_FOUND", call, name);
    return CUDA_ERROR_NOT_FOUND;
}

CUresult cuModuleGetTexRef(void **tex_ref, CUmodule mod, const char *name)
{
    ZN_CHECK_INIT();
    ZN_RET(ref_lookup(tex_ref, mod, name, "cuModuleGetTexRef"));
}

CUresult cuModuleGetSurfRef(void **surf_ref, CUmodule mod, const char *name)
{
    ZN_CHECK_INIT();
    ZN_RET(ref_lookup(surf_ref, mod, name, "cuModuleGetSurfRef"));
}

/* ---- libraries: a context-independent wrapper around one module ---- */

static CUresult library_wrap(zn_module *m, CUlibrary *lib)
{
    zn_library *l = zn_handle_new(ZN_HANDLE_LIBRARY, sizeof *l);
    if (!l) {
        module_free(m);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    l->magic = ZN_MAGIC_LIBRARY;
    l->mod = m;
    m->lib = l;
    *lib = l;
    return CUDA_SUCCESS;
}

CUresult cuLibraryLoadData(CUlibrary *lib, const void *code, CUjit_option *jopts,
                           void **jvals, unsigned int njit, CUlibraryOption *lopts,
                           void **lvals, unsigned int nlib)
{
    char err[ERRLEN];
    zn_module *m;
    if (!lib)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    CUresult r = zn_jit_options_check(njit, jopts, jvals);
    if (r == CUDA_SUCCESS && nlib && (!lopts || !lvals))
        r = CUDA_ERROR_INVALID_VALUE;
    if (r != CUDA_SUCCESS)
        ZN_RET(r);
    r = module_load(code, err, &m);
    if (r != CUDA_SUCCESS)
        ZN_RET(r);
    ZN_RET(library_wrap(m, lib));
}

CUresult cuLibraryLoadFromFile(CUlibrary *lib, const char *fname, CUjit_option *jopts,
                               void **jvals, unsigned int njit, CUlibraryOption *lopts,
                               void **lvals, unsigned int nlib)
{
    ZN_CHECK_INIT();
    char *buf, err[ERRLEN];
    zn_module *m;
    if (!lib)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    CUresult r = read_file(fname, &buf);
    if (r != CUDA_SUCCESS)
        ZN_RET(r);
    r = module_load(buf, err, &m);
    free(buf);
    if (r != CUDA_SUCCESS)
        ZN_RET(r);
    ZN_RET(library_wrap(m, lib));
}

CUresult cuLibraryUnload(CUlibrary lib)
{
    ZN_CHECK_INIT();
    if (!library_valid(lib))
        ZN_RET(CUDA_ERROR_INVALID_HANDLE);
    module_free(lib->mod);
    zn_handle_retire(ZN_HANDLE_LIBRARY, lib, sizeof *lib);
    ZN_RET(CUDA_SUCCESS);
}

CUresult cuLibraryGetKernel(CUkernel *k, CUlibrary lib, const char *name)
{
    ZN_CHECK_INIT();
    if (!library_valid(lib))
        ZN_RET(CUDA_ERROR_INVALID_HANDLE);
    ZN_RET(func_find(lib->mod, name, k));
}

CUresult cuLibraryGetModule(CUmodule *mod, CUlibrary lib)
{
    ZN_CHECK_INIT();
    if (!library_valid(lib))
        ZN_RET(CUDA_ERROR_INVALID_HANDLE);
    if (!mod)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    *mod = lib->mod;
    ZN_RET(CUDA_SUCCESS);
}

CUresult cuLibraryGetGlobal(CUdeviceptr *dptr, size_t *bytes, CUlibrary lib,
                            const char *name)
{
    ZN_CHECK_INIT();
    if (!library_valid(lib))
        ZN_RET(CUDA_ERROR_INVALID_HANDLE);
    ZN_RET(global_get(dptr, bytes, lib->mod, name));
}

CUresult cuLibraryEnumerateKernels(CUkernel *kernels, unsigned int n, CUlibrary lib)
{
    ZN_CHECK_INIT();
    if (!library_valid(lib))
        ZN_RET(CUDA_ERROR_INVALID_HANDLE);
    if (!kernels || n < lib->mod->nfuncs)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    for (unsigned i = 0; i < lib->mod->nfuncs; i++)
        kernels[i] = &lib->mod->funcs[i];
    ZN_RET(CUDA_SUCCESS);
}

/* a kernel handle is a function of the library's module */
CUresult cuKernelGetLibrary(CUlibrary *lib, CUkernel k)
{
    ZN_CHECK_INIT();
    if (!lib)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    if (!zn_func_valid(k) || !k->mod->lib)
        ZN_RET(CUDA_ERROR_INVALID_HANDLE);
    *lib = k->mod->lib;
    ZN_RET(CUDA_SUCCESS);
}

CUresult cuLibraryGetKernelCount(unsigned int *count, CUlibrary lib)
{
    ZN_CHECK_INIT();
    if (!library_valid(lib))
        ZN_RET(CUDA_ERROR_INVALID_HANDLE);
    if (!count)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    *count = lib->mod->nfuncs;
    ZN_RET(CUDA_SUCCESS);
}

/* __managed__ variables: all device memory is host memory, so a managed
 * variable is an ordinary module variable whose address the host may use. */
CUresult cuLibraryGetManaged(CUdeviceptr *dptr, size_t *bytes, CUlibrary lib,
                             const char *name)
{
    ZN_CHECK_INIT();
    if (!library_valid(lib))
        ZN_RET(CUDA_ERROR_INVALID_HANDLE);
    if (name && !zn_module_var_managed(lib->mod, name)) {
        zn_log(ZN_LOG_WARN, "cuLibraryGetManaged: %s is not a __managed__ variable", name);
        ZN_RET(CUDA_ERROR_NOT_FOUND);
    }
    ZN_RET(global_get(dptr, bytes, lib->mod, name));
}
