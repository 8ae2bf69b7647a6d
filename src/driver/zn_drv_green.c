/* zn_drv_green.c: green contexts, spatial partitions of the device.
 *
 * An SM of Zinc's device is one of the executor's workers (the device
 * reports as many SMs as it has workers), so a partition of N SMs is a
 * budget of N workers: the grids of a green context run on at most N
 * threads at once, the launching one included (zn_launch.max_workers),
 * while other contexts' grids use the rest. Partitions may be of any size
 * (minSmPartitionSize and smCoscheduledAlignment are 1): there are no GPU
 * processing clusters to align to.
 *
 * A resource (CUdevResource) keeps in its driver bytes the device and the
 * split it came from (0: a whole resource, from a Get*DevResource call), so
 * that a descriptor joins only the outputs of one split, and a split's
 * outputs are not split again, as CUDA requires. A green context is a
 * context of its own (zn_ctx_new: its own streams, not current until made
 * so) whose converted form (cuCtxFromGreenCtx) it is; it holds a retain of
 * the primary context and is on the primary context's list, so that a
 * context-wide record on the primary covers its work too
 * (zn_drv_submit.c). Cooperative and cluster launches still see the whole
 * device.
 */
#include "zn_drv.h"

#include <pthread.h>
#include <string.h>

#define RES_MAGIC 0x5a726573u   /* "Zres" */

/* what a resource keeps in CUdevResource.internal */
typedef struct res_tag {
    uint32_t magic;
    int32_t dev;
    uint64_t split;             /* 0: whole; else the split it came from */
} res_tag;
_Static_assert(sizeof(res_tag) <= sizeof(((CUdevResource *)0)->internal), "resource tag");
_Static_assert(sizeof(CUdevResource) == 144, "CUdevResource layout");

/* CUDA has no call that destroys a descriptor: equal ones are one object,
 * kept on a list (at most one per SM count per device) */
struct zn_res_desc {
    uint32_t magic;
    CUdevice dev;
    unsigned sms;
    struct zn_res_desc *next;
};
static struct zn_res_desc *descs;
static pthread_mutex_t descs_lock = PTHREAD_MUTEX_INITIALIZER;

struct zn_green {
    uint32_t magic;
    unsigned long long id;
    unsigned sms;
    zn_ctx *ctx;                /* the converted context */
    struct zn_green *next;      /* on the primary context's list */
};

static _Atomic uint64_t next_split = 1;
static _Atomic unsigned long long next_green_id = 1;

static unsigned device_sms(void)
{
    int n = 1;
    zn_dev_attr(&n, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
    return n > 0 ? (unsigned)n : 1;
}

static void res_fill(CUdevResource *r, CUdevice dev, unsigned sms, uint64_t split)
{
    memset(r, 0, sizeof *r);
    r->type = ZN_CU_DEV_RESOURCE_TYPE_SM;
    res_tag t = { RES_MAGIC, dev, split };
    memcpy(r->internal, &t, sizeof t);
    r->sm.smCount = sms;
    r->sm.minSmPartitionSize = 1;
    r->sm.smCoscheduledAlignment = 1;
}

/* An SM resource this driver made; its tag in *t. */
static CUresult res_check(const CUdevResource *r, res_tag *t)
{
    if (!r)
        return CUDA_ERROR_INVALID_VALUE;
    if (r->type != ZN_CU_DEV_RESOURCE_TYPE_SM)
        return CUDA_ERROR_INVALID_RESOURCE_TYPE;
    memcpy(t, r->internal, sizeof *t);
    return t->magic == RES_MAGIC ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

static bool green_valid(const struct zn_green *g)
{
    return g && g->magic == ZN_MAGIC_GREEN;
}

static CUresult resource_of(CUdevResource *res, int type, CUdevice dev, unsigned sms)
{
    if (!res)
        return CUDA_ERROR_INVALID_VALUE;
    if (type != ZN_CU_DEV_RESOURCE_TYPE_SM)
        return CUDA_ERROR_INVALID_RESOURCE_TYPE;
    res_fill(res, dev, sms, 0);
    return CUDA_SUCCESS;
}

CUresult cuDeviceGetDevResource(CUdevice dev, CUdevResource *res, int type)
{
    ZN_CHECK_INIT();
    if (dev < 0 || dev >= ZN_NDEVICES)
        ZN_RET(CUDA_ERROR_INVALID_DEVICE);
    ZN_RET(resource_of(res, type, dev, device_sms()));
}

CUresult cuCtxGetDevResource(CUcontext ctx, CUdevResource *res, int type)
{
    ZN_CHECK_INIT();
    if (!zn_ctx_valid(ctx))
        ZN_RET(CUDA_ERROR_INVALID_CONTEXT);
    ZN_RET(resource_of(res, type, ctx->device, ctx->sm_limit ? ctx->sm_limit : device_sms()));
}

CUresult cuGreenCtxGetDevResource(CUgreenCtx g, CUdevResource *res, int type)
{
    ZN_CHECK_INIT();
    if (!green_valid(g))
        ZN_RET(CUDA_ERROR_INVALID_HANDLE);
    ZN_RET(resource_of(res, type, g->ctx->device, g->sms));
}

#define SPLIT_FLAGS 3u  /* IGNORE_SM_COSCHEDULING | MAX_POTENTIAL_CLUSTER_SIZE */

/* Groups of max(min_count, 1) SMs, as many as fit (or as *ngroups asks),
 * the rest in *remaining. */
CUresult cuDevSmResourceSplitByCount(CUdevResource *result, unsigned int *ngroups,
                                     const CUdevResource *input, CUdevResource *remaining,
                                     unsigned int flags, unsigned int min_count)
{
    ZN_CHECK_INIT();
    res_tag t;
    if (!ngroups || (flags & ~SPLIT_FLAGS))
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    CUresult r = res_check(input, &t);
    if (r != CUDA_SUCCESS)
        ZN_RET(r);
    if (t.split)    /* a split's output: make a green context of it first */
        ZN_RET(CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION);
    unsigned total = input->sm.smCount, size = min_count ? min_count : 1;
    if (min_count > total || (result && !*ngroups))
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    unsigned n = total / size;
    if (result && *ngroups < n)
        n = *ngroups;
    uint64_t id = atomic_fetch_add(&next_split, 1);
    CUdevResource rest;
    res_fill(&rest, t.dev, total - n * size, id);   /* input may alias an output */
    for (unsigned i = 0; result && i < n; i++)
        res_fill(&result[i], t.dev, size, id);
    if (remaining)
        *remaining = rest;
    *ngroups = n;
    ZN_RET(CUDA_SUCCESS);
}

/* One descriptor for one resource, or for outputs of one split. */
CUresult cuDevResourceGenerateDesc(CUdevResourceDesc *pdesc, CUdevResource *res, unsigned int n)
{
    ZN_CHECK_INIT();
    if (!pdesc || !res || !n)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    res_tag first, t;
    unsigned sms = 0;
    for (unsigned i = 0; i < n; i++) {
        CUresult r = res_check(&res[i], &t);
        if (r != CUDA_SUCCESS)
            ZN_RET(r);
        if (i == 0)
            first = t;
        else if (t.dev != first.dev || !t.split || t.split != first.split)
            ZN_RET(CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION);
        sms += res[i].sm.smCount;
    }
    if (!sms)
        ZN_RET(CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION);
    pthread_mutex_lock(&descs_lock);
    struct zn_res_desc *d = descs;
    while (d && (d->dev != first.dev || d->sms != sms))
        d = d->next;
    if (!d && (d = zn_handle_new(ZN_HANDLE_RESDESC, sizeof *d))) {
        d->magic = ZN_MAGIC_RESDESC;
        d->dev = first.dev;
        d->sms = sms;
        d->next = descs;
        descs = d;
    }
    pthread_mutex_unlock(&descs_lock);
    if (!d)
        ZN_RET(CUDA_ERROR_OUT_OF_MEMORY);
    *pdesc = d;
    ZN_RET(CUDA_SUCCESS);
}

CUresult cuGreenCtxCreate(CUgreenCtx *pg, CUdevResourceDesc desc, CUdevice dev,
                          unsigned int flags)
{
    ZN_CHECK_INIT();
    if (!pg || flags != ZN_CU_GREEN_CTX_DEFAULT_STREAM || !desc ||
        desc->magic != ZN_MAGIC_RESDESC)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    if (dev < 0 || dev >= ZN_NDEVICES || dev != desc->dev)
        ZN_RET(CUDA_ERROR_INVALID_DEVICE);
    CUcontext primary;
    CUresult r = cuDevicePrimaryCtxRetain(&primary, dev);
    if (r != CUDA_SUCCESS)
        ZN_RET(r);
    struct zn_green *g = zn_handle_new(ZN_HANDLE_GREEN, sizeof *g);
    zn_ctx *c = g ? zn_ctx_new(primary->flags, dev) : NULL;
    if (!c) {
        if (g)
            zn_handle_retire(ZN_HANDLE_GREEN, g, sizeof *g);
        cuDevicePrimaryCtxRelease_v2(dev);
        ZN_RET(CUDA_ERROR_OUT_OF_MEMORY);
    }
    g->magic = ZN_MAGIC_GREEN;
    g->id = atomic_fetch_add(&next_green_id, 1);
    g->sms = desc->sms;
    g->ctx = c;
    c->green = g;
    c->sm_limit = desc->sms;
    pthread_mutex_lock(&primary->stream_lock);
    g->next = primary->greens;
    primary->greens = g;
    pthread_mutex_unlock(&primary->stream_lock);
    *pg = g;
    ZN_RET(CUDA_SUCCESS);
}

/* Its work finishes first; streams made in it go with it (as for
 * cuCtxDestroy; CUDA asks the program to destroy them before). */
CUresult cuGreenCtxDestroy(CUgreenCtx g)
{
    ZN_CHECK_INIT();
    if (!green_valid(g))
        ZN_RET(CUDA_ERROR_INVALID_HANDLE);
    CUdevice dev = g->ctx->device;
    zn_ctx *primary = zn_ctx_primary(dev);
    pthread_mutex_lock(&primary->stream_lock);
    for (struct zn_green **p = &primary->greens; *p; p = &(*p)->next)
        if (*p == g) {
            *p = g->next;
            break;
        }
    pthread_mutex_unlock(&primary->stream_lock);
    zn_ctx_free(g->ctx);
    g->magic = 0;
    zn_handle_retire(ZN_HANDLE_GREEN, g, sizeof *g);
    ZN_RET(cuDevicePrimaryCtxRelease_v2(dev));
}

CUresult cuCtxFromGreenCtx(CUcontext *pctx, CUgreenCtx g)
{
    ZN_CHECK_INIT();
    if (!pctx)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    if (!green_valid(g))
        ZN_RET(CUDA_ERROR_INVALID_HANDLE);
    *pctx = g->ctx;
    ZN_RET(CUDA_SUCCESS);
}

CUresult cuGreenCtxRecordEvent(CUgreenCtx g, CUevent e)
{
    if (!green_valid(g))
        ZN_RET(CUDA_ERROR_INVALID_HANDLE);
    return cuCtxRecordEvent(g->ctx, e);
}

CUresult cuGreenCtxWaitEvent(CUgreenCtx g, CUevent e)
{
    if (!green_valid(g))
        ZN_RET(CUDA_ERROR_INVALID_HANDLE);
    return cuCtxWaitEvent(g->ctx, e);
}

/* CU_STREAM_NON_BLOCKING is required. */
CUresult cuGreenCtxStreamCreate(CUstream *ps, CUgreenCtx g, unsigned int flags, int priority)
{
    ZN_CHECK_INIT();
    if (!green_valid(g))
        ZN_RET(CUDA_ERROR_INVALID_HANDLE);
    if (flags != ZN_CU_STREAM_NON_BLOCKING)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    ZN_RET(zn_stream_create(g->ctx, flags, priority, ps));
}

/* NULL: the current context's green context, if it is one. */
CUresult cuGreenCtxGetId(CUgreenCtx g, unsigned long long *id)
{
    ZN_CHECK_INIT();
    if (!id)
        ZN_RET(CUDA_ERROR_INVALID_VALUE);
    if (!g) {
        zn_ctx *c = zn_ctx_current();
        g = c ? c->green : NULL;
        if (!g)
            ZN_RET(CUDA_ERROR_INVALID_CONTEXT);
    }
    if (!green_valid(g))
        ZN_RET(CUDA_ERROR_INVALID_HANDLE);
    *id = g->id;
    ZN_RET(CUDA_SUCCESS);
}

/* The streams of the primary context's green contexts, for a record on the
 * primary (under the primary's stream lock, which guards the list). */
void zn_green_each_ctx(zn_ctx *primary, void (*fn)(zn_ctx *, void *), void *arg)
{
    for (struct zn_green *g = primary->greens; g; g = g->next)
        fn(g->ctx, arg);
}
