/* zn_exec_cdp.c: the device runtime API that kernels call to launch
 * kernels (dynamic parallelism; zn_rt_ops.cdp, lowered by zn_lower_cdp.c).
 *
 * A launch is two calls: GetParameterBuffer[V2] hands out a buffer that the
 * thread fills with the child's parameters (at the kernel's .param
 * offsets), LaunchDevice[V2] queues it. Both buffers and queued work live
 * on the grid's zn_cdp_list (zn_exec.h), which the launcher runs after the
 * grid, in launch order, and frees. Streams made on the device are names
 * only: every piece of work of a grid already runs in launch order, one
 * after the other, which is one of the orders a GPU may choose; for the
 * same reason an event recorded on the device is complete whenever a
 * stream waits on it. Results are cudaError_t values (the device runtime's
 * own API). */
#include "zn_exec_internal.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

enum { ERR_SUCCESS = 0, ERR_INVALID_VALUE = 1, ERR_MEMORY_ALLOCATION = 2,
       ERR_INVALID_CONFIGURATION = 9, ERR_INVALID_PITCH = 12, ERR_MAX_DEPTH = 65,
       ERR_INVALID_HANDLE = 400, ERR_NOT_SUPPORTED = 801 };

static const struct { int code; const char *name, *text; } errors[] = {
    {0, "cudaSuccess", "no error"},
    {1, "cudaErrorInvalidValue", "invalid argument"},
    {2, "cudaErrorMemoryAllocation", "out of memory"},
    {9, "cudaErrorInvalidConfiguration", "invalid configuration argument"},
    {12, "cudaErrorInvalidPitchValue", "invalid pitch argument"},
    {65, "cudaErrorLaunchMaxDepthExceeded",
     "launch would exceed maximum depth of nested launches"},
    {69, "cudaErrorLaunchPendingCountExceeded",
     "launch would exceed maximum outstanding pending launch count"},
    {98, "cudaErrorInvalidDeviceFunction", "invalid device function"},
    {101, "cudaErrorInvalidDevice", "invalid device ordinal"},
    {215, "cudaErrorUnsupportedLimit", "limit is not supported on this architecture"},
    {400, "cudaErrorInvalidResourceHandle", "invalid resource handle"},
    {801, "cudaErrorNotSupported", "operation not supported"},
};

static const char *error_text(int code, bool name)
{
    for (size_t i = 0; i < sizeof errors / sizeof *errors; i++)
        if (errors[i].code == code)
            return name ? errors[i].name : errors[i].text;
    return name ? "cudaErrorUnknown" : "unknown error";
}

/* A thread's last error (only threads whose last call failed have one). */
struct zn_cdp_err {
    uint64_t thread;
    int err;
};

void zn_cdp_list_init(zn_cdp_list *q, unsigned depth,
                      int (*check)(void *, const char *, const uint32_t *,
                                   const uint32_t *, uint32_t),
                      int (*query)(void *, uint32_t, const uint64_t *), void *host)
{
    memset(q, 0, sizeof *q);
    pthread_mutex_init(&q->lock, NULL);
    q->tail = &q->head;
    q->depth = depth;
    q->check = check;
    q->query = query;
    q->host = host;
}

void zn_cdp_list_fini(zn_cdp_list *q)
{
    for (zn_cdp_work *w = q->all, *n; w; w = n) {
        n = w->all_next;
        free(w);
    }
    q->all = q->head = NULL;
    q->tail = &q->head;
    free(q->errs);
    q->errs = NULL;
    q->nerrs = q->cap_errs = 0;
    pthread_mutex_destroy(&q->lock);
}

static zn_cdp_list *list_of(zn_warp_ctx *w)
{
    const zn_block_run *run = w->block->exec;
    return run && run->job->l ? run->job->l->cdp : NULL;
}

/* The grid-wide number of the calling thread (block, then thread). */
static uint64_t thread_of(const zn_warp_ctx *w, uint32_t lane)
{
    const zn_block_ctx *b = w->block;
    uint64_t block = ((uint64_t)b->ctaid[2] * b->nctaid[1] + b->ctaid[1]) * b->nctaid[0] +
                     b->ctaid[0];
    return block << 10 | (w->warpid * ZN_WARP_SIZE + lane);
}

/* The thread's last error; clear: and forget it (cudaGetLastError). */
static int last_error(zn_cdp_list *q, uint64_t t, bool clear)
{
    int err = 0;
    pthread_mutex_lock(&q->lock);
    for (uint32_t i = 0; i < q->nerrs; i++)
        if (q->errs[i].thread == t) {
            err = q->errs[i].err;
            if (clear)
                q->errs[i] = q->errs[--q->nerrs];
            break;
        }
    pthread_mutex_unlock(&q->lock);
    return err;
}

/* Records err as the thread's last error and returns it. */
static int fail_at(zn_cdp_list *q, uint64_t t, int err)
{
    pthread_mutex_lock(&q->lock);
    uint32_t i = 0;
    while (i < q->nerrs && q->errs[i].thread != t)
        i++;
    if (i == q->nerrs && q->nerrs == q->cap_errs) {
        uint32_t cap = q->cap_errs ? 2 * q->cap_errs : 16;
        struct zn_cdp_err *e = realloc(q->errs, cap * sizeof *e);
        if (e) {
            q->errs = e;
            q->cap_errs = cap;
        }
    }
    if (i < q->cap_errs) {
        q->errs[i].thread = t;
        q->errs[i].err = err;
        if (i == q->nerrs)
            q->nerrs++;
    }
    pthread_mutex_unlock(&q->lock);
    return err;
}

/* A new buffer of params bytes, on the list (NULL: out of memory). */
static zn_cdp_work *work_new(zn_cdp_list *q, int kind, size_t params)
{
    zn_cdp_work *x = calloc(1, sizeof *x + params);
    if (!x)
        return NULL;
    x->kind = kind;
    pthread_mutex_lock(&q->lock);
    x->all_next = q->all;
    q->all = x;
    pthread_mutex_unlock(&q->lock);
    return x;
}

/* The not yet launched buffer whose parameters start at p, or NULL. */
static zn_cdp_work *work_find(zn_cdp_list *q, uint64_t p)
{
    zn_cdp_work *found = NULL;
    pthread_mutex_lock(&q->lock);
    for (zn_cdp_work *x = q->all; x && !found; x = x->all_next) /* newest first */
        if ((uint64_t)(uintptr_t)x->params == p && x->kind == ZN_CDP_WORK_KERNEL && !x->next &&
            q->tail != &x->next)
            found = x;
    pthread_mutex_unlock(&q->lock);
    return found;
}

static void work_queue(zn_cdp_list *q, zn_cdp_work *x)
{
    pthread_mutex_lock(&q->lock);
    *q->tail = x;
    q->tail = &x->next;
    pthread_mutex_unlock(&q->lock);
}

static uint64_t param_buffer(zn_cdp_list *q, uint64_t t, const char *func,
                             const uint32_t *grid, const uint32_t *block, uint32_t shmem)
{
    zn_cdp_work *x = work_new(q, ZN_CDP_WORK_KERNEL, ZN_CDP_PARAM_BYTES);
    if (!x)
        return fail_at(q, t, ERR_MEMORY_ALLOCATION), 0;
    x->func = func;
    if (grid)
        memcpy(x->grid, grid, sizeof x->grid);
    if (block)
        memcpy(x->block, block, sizeof x->block);
    x->shmem = shmem;
    return (uint64_t)(uintptr_t)x->params;
}

static int launch(zn_cdp_list *q, uint64_t t, zn_cdp_work *x)
{
    if (!x || !x->func)
        return fail_at(q, t, ERR_INVALID_VALUE);
    if (q->depth >= ZN_CDP_MAX_DEPTH)
        return fail_at(q, t, ERR_MAX_DEPTH);
    int err = q->check ? q->check(q->host, x->func, x->grid, x->block, x->shmem) : 0;
    if (err)
        return fail_at(q, t, err);
    work_queue(q, x);
    return ERR_SUCCESS;
}

/* A copy or set, queued. The addresses are checked when it runs
 * (zn_drv_cdp.c): a bad one faults the context, as the copy engine's access
 * would. */
static int region_work(zn_cdp_list *q, uint64_t t, int kind, const zn_cdp_region *r, int byte)
{
    if (r->h > 1 && (r->dpitch < r->n || (kind == ZN_CDP_WORK_COPY && r->spitch < r->n)))
        return fail_at(q, t, ERR_INVALID_PITCH);
    zn_cdp_work *x = work_new(q, kind, 0);
    if (!x)
        return fail_at(q, t, ERR_MEMORY_ALLOCATION);
    x->r = *r;
    x->byte = byte;
    work_queue(q, x);
    return ERR_SUCCESS;
}

/* cudaPitchedPtr, cudaExtent, cudaPos and cudaMemcpy3DParms (driver_types.h) */
typedef struct { char *ptr; size_t pitch, xsize, ysize; } pitched_ptr;
typedef struct { size_t w, h, d; } extent3;
typedef struct {
    void *src_array;
    extent3 src_pos;
    pitched_ptr src;
    void *dst_array;
    extent3 dst_pos;
    pitched_ptr dst;
    extent3 extent;
    int kind;
} memcpy3d_parms;

static int copy_3d(zn_cdp_list *q, uint64_t t, const memcpy3d_parms *p)
{
    if (!p)
        return fail_at(q, t, ERR_INVALID_VALUE);
    if (p->src_array || p->dst_array)   /* CUDA arrays: host API only */
        return fail_at(q, t, ERR_NOT_SUPPORTED);
    const pitched_ptr *s = &p->src, *d = &p->dst;
    zn_cdp_region r = {
        .dst = d->ptr + p->dst_pos.d * d->pitch * d->ysize + p->dst_pos.h * d->pitch +
               p->dst_pos.w,
        .src = s->ptr + p->src_pos.d * s->pitch * s->ysize + p->src_pos.h * s->pitch +
               p->src_pos.w,
        .n = p->extent.w, .h = p->extent.h, .d = p->extent.d,
        .dpitch = d->pitch, .spitch = s->pitch,
        .dslice = d->pitch * d->ysize, .sslice = s->pitch * s->ysize,
    };
    return region_work(q, t, ZN_CDP_WORK_COPY, &r, 0);
}

static int put_int(uint64_t p, int v)
{
    if (!p)
        return ERR_INVALID_VALUE;
    memcpy((void *)(uintptr_t)p, &v, sizeof v);
    return ERR_SUCCESS;
}

uint64_t zn_exec_cdp(zn_warp_ctx *w, uint32_t op, const uint64_t *a, uint32_t lane)
{
    zn_cdp_list *q = list_of(w);
    static _Atomic uint64_t handles = 0x100;    /* device streams and events */
    if (op == ZN_CDP_ERROR_STRING || op == ZN_CDP_ERROR_NAME)
        return (uint64_t)(uintptr_t)error_text((int)(int32_t)a[0], op == ZN_CDP_ERROR_NAME);
    if (!q)
        return op == ZN_CDP_PARAM_BUFFER_V2 || op == ZN_CDP_PARAM_BUFFER ? 0 : ERR_NOT_SUPPORTED;
    uint64_t t = thread_of(w, lane);
    switch (op) {
    case ZN_CDP_PARAM_BUFFER_V2:
        return param_buffer(q, t, (const char *)(uintptr_t)a[0],
                            (const uint32_t *)(uintptr_t)a[1], (const uint32_t *)(uintptr_t)a[2],
                            (uint32_t)a[3]);
    case ZN_CDP_PARAM_BUFFER:
        if (a[1] > ZN_CDP_PARAM_BYTES || a[0] > 16)
            return fail_at(q, t, ERR_INVALID_VALUE), 0;
        return param_buffer(q, t, NULL, NULL, NULL, 0);
    case ZN_CDP_LAUNCH_V2:
        return (uint64_t)launch(q, t, work_find(q, a[0]));
    case ZN_CDP_LAUNCH: {
        zn_cdp_work *x = work_find(q, a[1]);
        if (x) {
            x->func = (const char *)(uintptr_t)a[0];
            memcpy(x->grid, (const void *)(uintptr_t)a[2], sizeof x->grid);
            memcpy(x->block, (const void *)(uintptr_t)a[3], sizeof x->block);
            x->shmem = (uint32_t)a[4];
        }
        return (uint64_t)launch(q, t, x);
    }
    case ZN_CDP_STREAM_DESTROY:
    case ZN_CDP_EVENT_DESTROY:
        return ERR_SUCCESS;
    case ZN_CDP_STREAM_CREATE:
    case ZN_CDP_EVENT_CREATE:
        if (!a[0])
            return (uint64_t)fail_at(q, t, ERR_INVALID_VALUE);
        *(uint64_t *)(uintptr_t)a[0] = atomic_fetch_add(&handles, 0x10);
        return ERR_SUCCESS;
    case ZN_CDP_EVENT_RECORD:
    case ZN_CDP_STREAM_WAIT_EVENT:
        /* the grid's work runs in launch order: what came before a record
         * has run before anything launched after a wait on it */
        return a[op == ZN_CDP_EVENT_RECORD ? 0 : 1] ? ERR_SUCCESS
                                                    : (uint64_t)fail_at(q, t, ERR_INVALID_HANDLE);
    case ZN_CDP_DEVICE_ATTRIBUTE:
    case ZN_CDP_FUNC_ATTRIBUTES:
    case ZN_CDP_OCCUPANCY:
    case ZN_CDP_DEVICE_LIMIT:
    case ZN_CDP_CACHE_CONFIG:
    case ZN_CDP_SHMEM_CONFIG: {
        int err = a[0] && q->query ? q->query(q->host, op, a) : ERR_INVALID_VALUE;
        return err ? (uint64_t)fail_at(q, t, err) : ERR_SUCCESS;
    }
    case ZN_CDP_GET_LAST_ERROR:
    case ZN_CDP_PEEK_LAST_ERROR:
        return (uint64_t)last_error(q, t, op == ZN_CDP_GET_LAST_ERROR);
    case ZN_CDP_MALLOC: {
        if (!a[0])
            return (uint64_t)fail_at(q, t, ERR_INVALID_VALUE);
        void *p = zn_exec_rt_ops.malloc(w, a[1]);
        *(void **)(uintptr_t)a[0] = p;
        return p || !a[1] ? ERR_SUCCESS : (uint64_t)fail_at(q, t, ERR_MEMORY_ALLOCATION);
    }
    case ZN_CDP_FREE:
        zn_exec_rt_ops.free(w, (void *)(uintptr_t)a[0]);
        return ERR_SUCCESS;
    case ZN_CDP_MEMCPY_ASYNC:
    case ZN_CDP_MEMSET_ASYNC: {
        bool set = op == ZN_CDP_MEMSET_ASYNC;
        zn_cdp_region r = { (void *)(uintptr_t)a[0], set ? NULL : (const void *)(uintptr_t)a[1],
                     a[2], 1, 1, 0, 0, 0, 0 };
        return (uint64_t)region_work(q, t, set ? ZN_CDP_WORK_SET : ZN_CDP_WORK_COPY, &r,
                                     (int)(a[1] & 0xff));
    }
    case ZN_CDP_MEMCPY_2D: {
        zn_cdp_region r = { (void *)(uintptr_t)a[0], (const void *)(uintptr_t)a[2], a[4], a[5], 1,
                     a[1], a[3], 0, 0 };
        return (uint64_t)region_work(q, t, ZN_CDP_WORK_COPY, &r, 0);
    }
    case ZN_CDP_MEMSET_2D: {
        zn_cdp_region r = { (void *)(uintptr_t)a[0], NULL, a[3], a[4], 1, a[1], 0, 0, 0 };
        return (uint64_t)region_work(q, t, ZN_CDP_WORK_SET, &r, (int)(a[2] & 0xff));
    }
    case ZN_CDP_MEMCPY_3D:
        return (uint64_t)copy_3d(q, t, (const memcpy3d_parms *)(uintptr_t)a[0]);
    case ZN_CDP_MEMSET_3D: {
        const pitched_ptr *p = (const pitched_ptr *)(uintptr_t)a[0];
        const extent3 *e = (const extent3 *)(uintptr_t)a[2];
        zn_cdp_region r = { p->ptr, NULL, e->w, e->h, e->d, p->pitch, 0, p->pitch * p->ysize, 0 };
        return (uint64_t)region_work(q, t, ZN_CDP_WORK_SET, &r, (int)(a[1] & 0xff));
    }
    case ZN_CDP_GET_DEVICE:
        return (uint64_t)put_int(a[0], 0);
    case ZN_CDP_GET_DEVICE_COUNT:
        return (uint64_t)put_int(a[0], 1);
    case ZN_CDP_RUNTIME_VERSION:
        return (uint64_t)put_int(a[0], 13000);  /* the device runtime of CUDA 13 */
    default:
        return (uint64_t)fail_at(q, t, ERR_NOT_SUPPORTED);
    }
}
