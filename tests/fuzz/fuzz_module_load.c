/* fuzz_module_load.c: cuModuleLoadData on fuzzed PTX text or fatbins.
 *
 * The whole loading path of the driver: image classification, fatbin
 * unpacking, PTX parsing, module variables in device memory with their
 * initialisers and relocations, compilation, kernel lookup. Invariants: a
 * load either succeeds or returns an error and leaves the context usable;
 * after a successful load every .entry that ptx_parse finds is found by
 * cuModuleGetFunction and answers cuFuncGetAttribute, every module .global
 * / .const is found by cuModuleGetGlobal with its size, and unloading
 * succeeds. PTX inputs are passed NUL-terminated (as the API requires);
 * a fatbin is passed only when its header's size lies inside the input
 * (the API has no size argument); wrappers hold pointers and are skipped.
 * Inputs over ZN_FUZZ_MAX_IMAGE bytes are skipped (compile time). */
#define CUDA_ENABLE_DEPRECATED 1
#include <cuda.h>
#include "zn_fuzz.h"
#include "fatbin/zn_fatbin.h"
#include "ptx/ptx_ir.h"

#include <string.h>

#define ZN_FUZZ_MAX_IMAGE 12000

#define DRV(call) do { CUresult r_ = (call); \
    ZN_FUZZ_CHECK(r_ == CUDA_SUCCESS, "%s -> %d", #call, (int)r_); } while (0)

void zn_fuzz_init(void)
{
    setenv("CUDA_CACHE_DISABLE", "1", 1);
    CUdevice dev;
    CUcontext ctx;
    DRV(cuInit(0));
    DRV(cuDeviceGet(&dev, 0));
    DRV(cuDevicePrimaryCtxRetain(&ctx, dev));
    DRV(cuCtxSetCurrent(ctx));
}

/* What ptx_parse sees in the text: each entry and module variable must be
 * reachable through the loaded module. */
static void check_names(CUmodule mod, const char *text, size_t len)
{
    char err[256];
    ptx_module *m = ptx_parse(text, len, "fuzz", err, sizeof err);
    ZN_FUZZ_CHECK(m != NULL, "the driver loaded PTX that ptx_parse rejects: %s", err);
    for (uint32_t i = 0; i < m->nfuncs; i++) {
        const ptx_func *f = &m->funcs[i];
        if (!f->is_entry || f->is_decl)
            continue;
        CUfunction fn;
        DRV(cuModuleGetFunction(&fn, mod, f->name));
        int v;
        DRV(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, fn));
        ZN_FUZZ_CHECK(v >= 1 && v <= 1024, "%s: max threads %d", f->name, v);
        DRV(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_NUM_REGS, fn));
        DRV(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, fn));
    }
    for (uint32_t i = 0; i < m->nvars; i++) {
        const ptx_var *v = &m->vars[i];
        if ((v->space != PTX_SPACE_GLOBAL && v->space != PTX_SPACE_CONST) ||
            v->linkage == PTX_LINK_EXTERN)
            continue;
        CUdeviceptr p;
        size_t sz;
        DRV(cuModuleGetGlobal(&p, &sz, mod, v->name));
        ZN_FUZZ_CHECK(sz == v->size, "%s: %zu bytes, ptx_parse says %llu", v->name, sz,
                      (unsigned long long)v->size);
    }
    ptx_module_free(m);
}

void zn_fuzz_one(const uint8_t *data, size_t size)
{
    if (size < 4 || size > ZN_FUZZ_MAX_IMAGE)
        return;
    uint32_t magic;
    memcpy(&magic, data, 4);
    if (magic == 0x466243B1u)
        return;                     /* a wrapper: pointers, not bytes */
    int is_fatbin = magic == 0xBA55ED50u;
    if (is_fatbin) {
        uint64_t body;
        if (size < 16)
            return;
        memcpy(&body, data + 8, 8);
        uint16_t hsize = (uint16_t)(data[6] | data[7] << 8);
        if (body > size || hsize + body > size)
            return;                 /* its own size says it reads past the input */
    }
    char *image = malloc(size + 1);
    memcpy(image, data, size);
    image[size] = 0;
    CUmodule mod = NULL;
    CUresult r = cuModuleLoadData(&mod, image);
    if (r == CUDA_SUCCESS) {
        if (!is_fatbin && zn_image_classify(image) == ZN_IMAGE_PTX)
            check_names(mod, image, strlen(image));
        DRV(cuModuleUnload(mod));
    } else {
        ZN_FUZZ_CHECK(r != CUDA_ERROR_ILLEGAL_ADDRESS && r != CUDA_ERROR_LAUNCH_FAILED,
                      "a load failed with a sticky kernel error %d", (int)r);
    }
    /* the context is still usable */
    DRV(cuCtxSynchronize());
    free(image);
}
