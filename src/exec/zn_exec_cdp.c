/* zn_exec_cdp.c: the device runtime API that kernels call to launch
 * kernels (dynamic parallelism; zn_rt_ops.cdp, lowered by zn_lower_cdp.c).
 *
 * A launch is two calls: GetParameterBuffer[V2] hands out a buffer that the
 * thread fills with the child's parameters (at the kernel's .param
 * offsets), LaunchDevice[V2] queues it. Both buffers and queued work live
 * on the grid's zn_cdp_list (zn_exec.h), which the launcher runs after the
 * grid, in launch order, and frees. Streams made on the device are names
 * only: every piece of work of a grid already runs in launch order, one
 * after the other, which is one of the orders a GPU may choose. Results
 * are cudaError_t values (the device runtime's own API). */
#include "zn_exec_internal.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

enum { ERR_SUCCESS = 0, ERR_INVALID_VALUE = 1, ERR_MEMORY_ALLOCATION = 2,
       ERR_INVALID_CONFIGURATION = 9, ERR_MAX_DEPTH = 65, ERR_NOT_SUPPORTED = 801 };

static const struct { int code; const char *name, *text; } errors[] = {
    {0, "cudaSuccess", "no error"},
    {1, "cudaErrorInvalidValue", "invalid argument"},
    {2, "cudaErrorMemoryAllocation", "out of memory"},
    {9, "cudaErrorInvalidConfiguration", "invalid configuration argument"},
    {65, "cudaErrorLaunchMaxDepthExceeded",
     "launch would exceed maximum depth of nested launches"},
    {69, "cudaErrorLaunchPendingCountExceeded",
     "launch would exceed maximum outstanding pending launch count"},
    {98, "cudaErrorInvalidDeviceFunction", "invalid device function"},
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

void zn_cdp_list_init(zn_cdp_list *q, unsigned depth,
                      int (*check)(void *, const char *, const uint32_t *,
                                   const uint32_t *, uint32_t), void *host)
{
    memset(q, 0, sizeof *q);
    pthread_mutex_init(&q->lock, NULL);
    q->tail = &q->head;
    q->depth = depth;
    q->check = check;
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
    pthread_mutex_destroy(&q->lock);
}

static zn_cdp_list *list_of(zn_warp_ctx *w)
{
    const zn_block_run *run = w->block->exec;
    return run && run->job->l ? run->job->l->cdp : NULL;
}

static int fail(zn_cdp_list *q, int err)
{
    if (q)
        atomic_store(&q->last_error, err);
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

static uint64_t param_buffer(zn_cdp_list *q, const char *func, const uint32_t *grid,
                             const uint32_t *block, uint32_t shmem)
{
    zn_cdp_work *x = work_new(q, ZN_CDP_WORK_KERNEL, ZN_CDP_PARAM_BYTES);
    if (!x)
        return fail(q, ERR_MEMORY_ALLOCATION), 0;
    x->func = func;
    if (grid)
        memcpy(x->grid, grid, sizeof x->grid);
    if (block)
        memcpy(x->block, block, sizeof x->block);
    x->shmem = shmem;
    return (uint64_t)(uintptr_t)x->params;
}

static int launch(zn_cdp_list *q, zn_cdp_work *x)
{
    if (!x || !x->func)
        return fail(q, ERR_INVALID_VALUE);
    if (q->depth >= ZN_CDP_MAX_DEPTH)
        return fail(q, ERR_MAX_DEPTH);
    int err = q->check ? q->check(q->host, x->func, x->grid, x->block, x->shmem) : 0;
    if (err)
        return fail(q, err);
    work_queue(q, x);
    return ERR_SUCCESS;
}

static int plain_work(zn_cdp_list *q, int kind, void *dst, const void *src, size_t n, int byte)
{
    zn_cdp_work *x = work_new(q, kind, 0);
    if (!x)
        return fail(q, ERR_MEMORY_ALLOCATION);
    x->dst = dst;
    x->src = src;
    x->n = n;
    x->byte = byte;
    work_queue(q, x);
    return ERR_SUCCESS;
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
    (void)lane;
    zn_cdp_list *q = list_of(w);
    static _Atomic uint64_t streams = 0x100;
    if (!q && op != ZN_CDP_ERROR_STRING && op != ZN_CDP_ERROR_NAME)
        return op == ZN_CDP_PARAM_BUFFER_V2 || op == ZN_CDP_PARAM_BUFFER ? 0 : ERR_NOT_SUPPORTED;
    switch (op) {
    case ZN_CDP_PARAM_BUFFER_V2:
        return param_buffer(q, (const char *)(uintptr_t)a[0], (const uint32_t *)(uintptr_t)a[1],
                            (const uint32_t *)(uintptr_t)a[2], (uint32_t)a[3]);
    case ZN_CDP_PARAM_BUFFER:
        if (a[1] > ZN_CDP_PARAM_BYTES || a[0] > 16)
            return fail(q, ERR_INVALID_VALUE), 0;
        return param_buffer(q, NULL, NULL, NULL, 0);
    case ZN_CDP_LAUNCH_V2:
        return (uint64_t)launch(q, work_find(q, a[0]));
    case ZN_CDP_LAUNCH: {
        zn_cdp_work *x = work_find(q, a[1]);
        if (x) {
            x->func = (const char *)(uintptr_t)a[0];
            memcpy(x->grid, (const void *)(uintptr_t)a[2], sizeof x->grid);
            memcpy(x->block, (const void *)(uintptr_t)a[3], sizeof x->block);
            x->shmem = (uint32_t)a[4];
        }
        return (uint64_t)launch(q, x);
    }
    case ZN_CDP_STREAM_CREATE:
        if (!a[0])
            return fail(q, ERR_INVALID_VALUE);
        *(uint64_t *)(uintptr_t)a[0] = atomic_fetch_add(&streams, 0x10);
        return ERR_SUCCESS;
    case ZN_CDP_STREAM_DESTROY:
        return ERR_SUCCESS;
    case ZN_CDP_GET_LAST_ERROR:
        return (uint64_t)atomic_exchange(&q->last_error, ERR_SUCCESS);
    case ZN_CDP_PEEK_LAST_ERROR:
        return (uint64_t)atomic_load(&q->last_error);
    case ZN_CDP_ERROR_STRING:
    case ZN_CDP_ERROR_NAME:
        return (uint64_t)(uintptr_t)error_text((int)(int32_t)a[0], op == ZN_CDP_ERROR_NAME);
    case ZN_CDP_MALLOC: {
        if (!a[0])
            return fail(q, ERR_INVALID_VALUE);
        void *p = zn_exec_rt_ops.malloc(w, a[1]);
        *(void **)(uintptr_t)a[0] = p;
        return p || !a[1] ? ERR_SUCCESS : (uint64_t)fail(q, ERR_MEMORY_ALLOCATION);
    }
    case ZN_CDP_FREE:
        zn_exec_rt_ops.free(w, (void *)(uintptr_t)a[0]);
        return ERR_SUCCESS;
    case ZN_CDP_MEMCPY_ASYNC:
        return (uint64_t)plain_work(q, ZN_CDP_WORK_COPY, (void *)(uintptr_t)a[0],
                                    (const void *)(uintptr_t)a[1], a[2], 0);
    case ZN_CDP_MEMSET_ASYNC:
        return (uint64_t)plain_work(q, ZN_CDP_WORK_SET, (void *)(uintptr_t)a[0], NULL, a[2],
                                    (int)(a[1] & 0xff));
    case ZN_CDP_GET_DEVICE:
        return (uint64_t)put_int(a[0], 0);
    case ZN_CDP_GET_DEVICE_COUNT:
        return (uint64_t)put_int(a[0], 1);
    case ZN_CDP_RUNTIME_VERSION:
        return (uint64_t)put_int(a[0], 13000);
    default:
        return (uint64_t)fail(q, ERR_NOT_SUPPORTED);
    }
}
