/* zn_drv_legacy.c: the driver API of CUDA 1-3 that NVIDIA's libcuda.so.1
 * still exports.
 *
 * - The first forms of calls whose successor only changed behaviour, not
 *   the signature (cuCtxDestroy, cuCtxPushCurrent/PopCurrent, cuEventDestroy,
 *   cuStreamDestroy, cuCtxCreate, cuMemHostRegister): the successor.
 * - The execution control that cuLaunchKernel replaced: a function's block
 *   shape (cuFuncSetBlockShape), dynamic shared memory (cuFuncSetSharedSize)
 *   and a parameter buffer filled by offset (cuParamSetSize/i/f/v), then
 *   cuLaunch (a 1x1 grid), cuLaunchGrid (w x h, on the legacy stream) or
 *   cuLaunchGridAsync. The launch packs the buffer like cuLaunchKernel's
 *   CU_LAUNCH_PARAM_BUFFER_POINTER, so the kernel's parameter layout is
 *   the caller's business, as it was.
 * The forms with 32-bit device pointers and sizes are stubs
 * (zn_drv_unimpl.c); texture references have no module to live in.
 */
#include "zn_drv.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* the largest parameter buffer of a CUDA 1-3 launch */
#define ZN_LEGACY_PARAM_MAX 4096u

struct zn_legacy_launch {
    unsigned block[3];          /* 0: not set */
    unsigned shared;
    unsigned param_size;
    uint8_t params[ZN_LEGACY_PARAM_MAX];
};

/* the state is per function; one lock for all of it (set-up calls only) */
static pthread_mutex_t legacy_lock = PTHREAD_MUTEX_INITIALIZER;

CUresult cuCtxCreate(CUcontext *pctx, unsigned int flags, CUdevice dev)
{
    return cuCtxCreate_v2(pctx, flags, dev);
}

CUresult cuCtxDestroy(CUcontext ctx)
{
    return cuCtxDestroy_v2(ctx);
}

CUresult cuCtxPushCurrent(CUcontext ctx)
{
    return cuCtxPushCurrent_v2(ctx);
}

CUresult cuCtxPopCurrent(CUcontext *pctx)
{
    return cuCtxPopCurrent_v2(pctx);
}

CUresult cuEventDestroy(CUevent e)
{
    return cuEventDestroy_v2(e);
}

CUresult cuStreamDestroy(CUstream s)
{
    return cuStreamDestroy_v2(s);
}

CUresult cuMemHostRegister(void *p, size_t bytes, unsigned int flags)
{
    return cuMemHostRegister_v2(p, bytes, flags);
}

void zn_legacy_free(zn_module *m)
{
    for (unsigned i = 0; i < m->nfuncs; i++) {
        free(m->funcs[i].legacy);
        m->funcs[i].legacy = NULL;
    }
}

/* f's state, created on first use; NULL when f is not a function or out of
 * memory (*r says which). Called with legacy_lock held. */
static struct zn_legacy_launch *state(CUfunction f, CUresult *r)
{
    if (!zn_func_valid(f)) {
        *r = CUDA_ERROR_INVALID_HANDLE;
        return NULL;
    }
    if (!f->legacy && !(f->legacy = calloc(1, sizeof *f->legacy))) {
        *r = CUDA_ERROR_OUT_OF_MEMORY;
        return NULL;
    }
    *r = CUDA_SUCCESS;
    return f->legacy;
}

enum legacy_field { SET_SHAPE, SET_SHARED, SET_SIZE };

/* Sets one of f's launch settings (v[0..2] for the shape, v[0] else). */
static CUresult legacy_set(CUfunction f, enum legacy_field what, const unsigned v[3])
{
    CUresult r;
    pthread_mutex_lock(&legacy_lock);
    struct zn_legacy_launch *l = state(f, &r);
    if (l && what == SET_SHAPE)
        memcpy(l->block, v, sizeof l->block);
    else if (l)
        *(what == SET_SHARED ? &l->shared : &l->param_size) = v[0];
    pthread_mutex_unlock(&legacy_lock);
    return r;
}

CUresult cuFuncSetBlockShape(CUfunction f, int x, int y, int z)
{
    ZN_CHECK_INIT();
    if (x <= 0 || y <= 0 || z <= 0)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    const unsigned v[3] = { (unsigned)x, (unsigned)y, (unsigned)z };
    ZN_RET(legacy_set(f, SET_SHAPE, v));
}

CUresult cuFuncSetSharedSize(CUfunction f, unsigned int bytes)
{
    ZN_CHECK_INIT();
    const unsigned v[3] = { bytes, 0, 0 };
    ZN_RET(legacy_set(f, SET_SHARED, v));
}

CUresult cuParamSetSize(CUfunction f, unsigned int bytes)
{
    ZN_CHECK_INIT();
    if (bytes > ZN_LEGACY_PARAM_MAX)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    const unsigned v[3] = { bytes, 0, 0 };
    ZN_RET(legacy_set(f, SET_SIZE, v));
}

/* bytes at offset of f's parameter buffer */
static CUresult param_set(CUfunction f, int offset, const void *p, unsigned bytes)
{
    if (offset < 0 || (uint64_t)(unsigned)offset + bytes > ZN_LEGACY_PARAM_MAX || (bytes && !p))
        return CUDA_ERROR_INVALID_VALUE;
    CUresult r;
    pthread_mutex_lock(&legacy_lock);
    struct zn_legacy_launch *l = state(f, &r);
    if (l && bytes)
        memcpy(l->params + offset, p, bytes);
    pthread_mutex_unlock(&legacy_lock);
    return r;
}

CUresult cuParamSeti(CUfunction f, int offset, unsigned int v)
{
    ZN_CHECK_INIT();
    ZN_RET(param_set(f, offset, &v, sizeof v));
}

CUresult cuParamSetf(CUfunction f, int offset, float v)
{
    ZN_CHECK_INIT();
    ZN_RET(param_set(f, offset, &v, sizeof v));
}

CUresult cuParamSetv(CUfunction f, int offset, void *p, unsigned int bytes)
{
    ZN_CHECK_INIT();
    ZN_RET(param_set(f, offset, p, bytes));
}

/* A grid of gw x gh blocks of f with its set-up state. The buffer is
 * copied first: cuLaunchKernel packs it into the launch, so later
 * cuParamSet* calls do not reach a launch already made. A function whose
 * block shape was never set cannot launch (CUDA_ERROR_INVALID_VALUE). */
static CUresult launch_grid(CUfunction f, int gw, int gh, CUstream s)
{
    ZN_CHECK_INIT();
    if (gw <= 0 || gh <= 0)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    CUresult r;
    pthread_mutex_lock(&legacy_lock);
    struct zn_legacy_launch *l = state(f, &r), copy;
    if (l)
        memcpy(&copy, l, offsetof(struct zn_legacy_launch, params) + l->param_size);
    pthread_mutex_unlock(&legacy_lock);
    if (!l)
        ZN_RET(r);
    if (!copy.block[0])
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    size_t size = copy.param_size;
    void *extra[] = { ZN_CU_LAUNCH_PARAM_BUFFER_POINTER, copy.params,
                      ZN_CU_LAUNCH_PARAM_BUFFER_SIZE, &size, ZN_CU_LAUNCH_PARAM_END };
    return cuLaunchKernel(f, (unsigned)gw, (unsigned)gh, 1, copy.block[0], copy.block[1],
                          copy.block[2], copy.shared, s, NULL, extra);
}

CUresult cuLaunch(CUfunction f)
{
    return launch_grid(f, 1, 1, NULL);
}

CUresult cuLaunchGrid(CUfunction f, int gw, int gh)
{
    return launch_grid(f, gw, gh, NULL);
}

CUresult cuLaunchGridAsync(CUfunction f, int gw, int gh, CUstream s)
{
    return launch_grid(f, gw, gh, s);
}
