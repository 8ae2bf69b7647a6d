/* zn_blas_stream.c: runs a BLAS routine in stream order.
 *
 * Zinc's streams run asynchronously, so a routine must not read device
 * memory before the work queued ahead of it has run, and work queued after
 * it must wait for it. zn_blas_enqueue queues the routine as a host
 * function on the handle's stream (cuLaunchHostFunc): the driver orders it
 * like any other op, including a blocking stream's implicit wait for the
 * legacy default stream (llm.c clears a buffer with cudaMemset on the
 * legacy stream, then multiplies into it with cuBLASLt on its own stream).
 *
 * While the stream captures (llama.cpp's CUDA graphs), the host function
 * becomes a host node of the captured graph and the routine's copied
 * arguments a user object owned by that graph, so every replay runs the
 * routine again on the same arguments, and they live as long as the graph
 * or any instantiation of it does.
 *
 * The driver is found in the process (cudart has loaded it), not linked,
 * so the library also loads beside another libcuda.so.1; without the entry
 * points it needs, the routine runs inline after a context-wide wait. */
#include "zn_blas_core.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdalign.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define CAPTURE_STATUS_ACTIVE 1
#define USER_OBJECT_NO_DESTRUCTOR_SYNC 1u
#define GRAPH_USER_OBJECT_MOVE 1u

typedef int (*ctx_sync_fn)(void);
typedef int (*stream_sync_fn)(void *stream);
typedef int (*host_func_fn)(void *stream, void (*fn)(void *), void *user);
typedef int (*capture_info_fn)(void *stream, int *status, unsigned long long *id, void **graph,
                               const void **deps, const void **edges, size_t *ndeps);
typedef int (*uobj_create_fn)(void **obj, void *ptr, void (*destroy)(void *), unsigned refs,
                              unsigned flags);
typedef int (*graph_retain_fn)(void *graph, void *obj, unsigned n, unsigned flags);

static struct {
    ctx_sync_fn ctx_sync;
    stream_sync_fn stream_sync;
    host_func_fn host_func;
    capture_info_fn capture_info;
    uobj_create_fn uobj_create;
    graph_retain_fn graph_retain;
} drv;
static pthread_once_t drv_once = PTHREAD_ONCE_INIT;

static void find_driver(void)
{
    void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (!h)
        return;
    drv.ctx_sync = (ctx_sync_fn)dlsym(h, "cuCtxSynchronize");
    drv.stream_sync = (stream_sync_fn)dlsym(h, "cuStreamSynchronize");
    drv.host_func = (host_func_fn)dlsym(h, "cuLaunchHostFunc");
    drv.capture_info = (capture_info_fn)dlsym(h, "cuStreamGetCaptureInfo_v3");
    drv.uobj_create = (uobj_create_fn)dlsym(h, "cuUserObjectCreate");
    drv.graph_retain = (graph_retain_fn)dlsym(h, "cuGraphRetainUserObject");
}

void zn_blas_stream_sync(void *stream)
{
    (void)stream;
    pthread_once(&drv_once, find_driver);
    if (drv.ctx_sync)
        drv.ctx_sync();
}

/* A queued routine and its copied arguments. */
typedef struct queued {
    void (*run)(void *data);
    bool one_shot;                  /* free after running (not captured) */
    alignas(max_align_t) unsigned char data[];
} queued;

static void run_queued(void *p)
{
    queued *q = p;
    q->run(q->data);
    if (q->one_shot)
        free(q);
}

/* The graph `stream` is capturing into, or NULL. */
static void *capturing_graph(void *stream, int *err)
{
    int status = 0;
    unsigned long long id = 0;
    void *graph = NULL;
    *err = drv.capture_info(stream, &status, &id, &graph, NULL, NULL, NULL);
    return !*err && status == CAPTURE_STATUS_ACTIVE ? graph : NULL;
}

int zn_blas_enqueue(void *stream, void (*run)(void *data), const void *data, size_t size,
                    bool wait)
{
    pthread_once(&drv_once, find_driver);
    if (!drv.host_func || !drv.stream_sync || !drv.capture_info || !drv.uobj_create ||
        !drv.graph_retain) {
        zn_blas_stream_sync(stream);
        run((void *)data);
        return 0;
    }
    queued *q = malloc(sizeof *q + size);
    if (!q)
        return -1;
    q->run = run;
    memcpy(q->data, data, size);
    int err;
    void *graph = capturing_graph(stream, &err);
    if (err) {
        free(q);
        return err;
    }
    q->one_shot = !graph;
    if (graph) {
        void *obj;
        err = drv.uobj_create(&obj, q, free, 1, USER_OBJECT_NO_DESTRUCTOR_SYNC);
        if (err) {
            free(q);
            return err;
        }
        /* the graph owns q from here, whatever happens next */
        err = drv.graph_retain(graph, obj, 1, GRAPH_USER_OBJECT_MOVE);
        if (err)
            return err;
    }
    err = drv.host_func(stream, run_queued, q);
    if (err) {
        if (q->one_shot)
            free(q);
        return err;
    }
    return wait && !graph ? drv.stream_sync(stream) : 0;
}
