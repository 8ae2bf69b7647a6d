/* zn_drv_cls.c: context-local storage, the table behind export table
 * c693336e... (cudart keeps its per-context state here).
 *
 * get() runs before almost every runtime call, so it is a short linear scan
 * of a small array under an uncontended mutex. Destructors run when the
 * context is destroyed or the primary context is reset.
 */
#include "zn_drv.h"

static zn_ctx *cls_ctx(CUcontext ctx)
{
    zn_ctx *c = ctx ? ctx : zn_ctx_current();
    return zn_ctx_valid(c) ? c : NULL;
}

static int cls_find(const zn_ctx *c, const void *key)
{
    for (int i = 0; i < c->ncls; i++)
        if (c->cls[i].key == key)
            return i;
    return -1;
}

CUresult zn_cls_put(CUcontext ctx, void *key, void *value,
                    void (*dtor)(CUcontext, void *, void *))
{
    zn_ctx *c = cls_ctx(ctx);
    if (!c)
        return CUDA_ERROR_INVALID_CONTEXT;
    CUresult r = CUDA_SUCCESS;
    pthread_mutex_lock(&c->cls_lock);
    int i = cls_find(c, key);
    if (i < 0 && c->ncls < ZN_CLS_MAX)
        i = c->ncls++;
    if (i >= 0)
        c->cls[i] = (zn_cls_entry){ key, value, dtor };
    else
        r = CUDA_ERROR_OUT_OF_MEMORY;
    pthread_mutex_unlock(&c->cls_lock);
    return r;
}

CUresult zn_cls_delete(CUcontext ctx, void *key)
{
    zn_ctx *c = cls_ctx(ctx);
    if (!c)
        return CUDA_ERROR_INVALID_CONTEXT;
    pthread_mutex_lock(&c->cls_lock);
    int i = cls_find(c, key);
    if (i >= 0)
        c->cls[i] = c->cls[--c->ncls];
    pthread_mutex_unlock(&c->cls_lock);
    return i >= 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

CUresult zn_cls_get(void **value, CUcontext ctx, void *key)
{
    zn_ctx *c = cls_ctx(ctx);
    if (!c)
        return CUDA_ERROR_INVALID_CONTEXT;
    pthread_mutex_lock(&c->cls_lock);
    int i = cls_find(c, key);
    if (i >= 0 && value)
        *value = c->cls[i].value;
    pthread_mutex_unlock(&c->cls_lock);
    return i >= 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

/* Takes the entries out first: a destructor may call back into the driver
 * (cudart's unloads its modules), even into this context's storage. */
void zn_cls_run_dtors(zn_ctx *c)
{
    zn_cls_entry e[ZN_CLS_MAX];
    pthread_mutex_lock(&c->cls_lock);
    int n = c->ncls;
    for (int i = 0; i < n; i++)
        e[i] = c->cls[i];
    c->ncls = 0;
    pthread_mutex_unlock(&c->cls_lock);
    for (int i = 0; i < n; i++)
        if (e[i].dtor)
            e[i].dtor(c, e[i].key, e[i].value);
}
