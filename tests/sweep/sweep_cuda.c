/* sweep_cuda.c: Zinc's libcuda.so.1, opened with dlopen, through the few
 * driver API calls the sweep needs. The types are declared here in the
 * sweep's own words (a CUDA driver ABI fact each), so that the sweep builds
 * without the toolkit. */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include "sweep.h"

typedef int CUres;
typedef unsigned long long CUptr;
enum { JIT_ERROR_LOG_BUFFER = 5, JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6 };

static struct {
    CUres (*Init)(unsigned);
    CUres (*DeviceGet)(int *, int);
    CUres (*CtxCreate)(void **, unsigned, int);
    CUres (*ModuleLoadDataEx)(void **, const void *, unsigned, int *, void **);
    CUres (*ModuleUnload)(void *);
    CUres (*ModuleGetFunction)(void **, void *, const char *);
    CUres (*MemAlloc)(CUptr *, size_t);
    CUres (*MemFree)(CUptr);
    CUres (*HtoD)(CUptr, const void *, size_t);
    CUres (*DtoH)(void *, CUptr, size_t);
    CUres (*Launch)(void *, unsigned, unsigned, unsigned, unsigned, unsigned,
                    unsigned, unsigned, void *, void **, void **);
    CUres (*Sync)(void);
    CUres (*ErrorName)(CUres, const char **);
} cu;

static const char *ename(CUres r)
{
    const char *s = NULL;
    if (cu.ErrorName)
        cu.ErrorName(r, &s);
    return s ? s : "?";
}

#define SYM(field, name)                                                      \
    do {                                                                      \
        *(void **)&cu.field = dlsym(h, name);                                 \
        if (!cu.field) {                                                      \
            snprintf(err, errlen, "%s: no symbol %s", libpath, name);         \
            return 0;                                                         \
        }                                                                     \
    } while (0)

int sw_cuda_open(const char *libpath, char *err, size_t errlen)
{
    void *h = dlopen(libpath, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(err, errlen, "dlopen %s: %s", libpath, dlerror());
        return 0;
    }
    SYM(Init, "cuInit");
    SYM(DeviceGet, "cuDeviceGet");
    SYM(CtxCreate, "cuCtxCreate_v2");
    SYM(ModuleLoadDataEx, "cuModuleLoadDataEx");
    SYM(ModuleUnload, "cuModuleUnload");
    SYM(ModuleGetFunction, "cuModuleGetFunction");
    SYM(MemAlloc, "cuMemAlloc_v2");
    SYM(MemFree, "cuMemFree_v2");
    SYM(HtoD, "cuMemcpyHtoD_v2");
    SYM(DtoH, "cuMemcpyDtoH_v2");
    SYM(Launch, "cuLaunchKernel");
    SYM(Sync, "cuCtxSynchronize");
    SYM(ErrorName, "cuGetErrorName");
    int dev;
    void *ctx;
    CUres r;
    if ((r = cu.Init(0)) || (r = cu.DeviceGet(&dev, 0)) || (r = cu.CtxCreate(&ctx, 0, dev))) {
        snprintf(err, errlen, "device set-up failed: %s", ename(r));
        return 0;
    }
    return 1;
}

void *sw_cuda_load(const char *ptx, char *err, size_t errlen)
{
    void *mod = NULL;
    static char log[8192];
    log[0] = 0;
    int opts[2] = {JIT_ERROR_LOG_BUFFER, JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *vals[2] = {log, (void *)(size_t)sizeof log};
    CUres r = cu.ModuleLoadDataEx(&mod, ptx, 2, opts, vals);
    if (r) {
        snprintf(err, errlen, "cuModuleLoadDataEx: %s: %s", ename(r), log);
        return NULL;
    }
    return mod;
}

void sw_cuda_unload(void *mod)
{
    if (mod)
        cu.ModuleUnload(mod);
}

int sw_cuda_run(void *mod, const char *name, const uint64_t *in, uint64_t *out,
                size_t nlanes, size_t extra, char *err, size_t errlen)
{
    void *fn;
    CUptr din = 0, dout = 0;
    size_t isz = nlanes * SW_NIN * 8, osz = (nlanes * SW_NOUT + extra) * 8;
    CUres r = cu.ModuleGetFunction(&fn, mod, name);
    if (r) {
        snprintf(err, errlen, "cuModuleGetFunction(%s): %s", name, ename(r));
        return 0;
    }
    unsigned n = (unsigned)nlanes, block = 128;
    void *args[3] = {&din, &dout, &n};
    int ok = !(r = cu.MemAlloc(&din, isz)) && !(r = cu.MemAlloc(&dout, osz)) &&
             !(r = cu.HtoD(din, in, isz)) && !(r = cu.HtoD(dout, out, osz)) &&
             !(r = cu.Launch(fn, (n + block - 1) / block, 1, 1, block, 1, 1, 0, NULL, args, NULL)) &&
             !(r = cu.Sync()) && !(r = cu.DtoH(out, dout, osz));
    if (!ok)
        snprintf(err, errlen, "running %s: %s", name, ename(r));
    if (din)
        cu.MemFree(din);
    if (dout)
        cu.MemFree(dout);
    return ok;
}
