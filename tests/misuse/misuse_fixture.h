/* misuse_fixture.h: the live and dead handles the misuse rows use.
 *
 * setup() makes a context with a module (kernel "inc"), a stream, events,
 * a library, a graph and device/host buffers, then a dead one of each kind
 * (created, then destroyed). sanity() proves the state is intact: the
 * context is current, a kernel runs, copies and sets work, no sticky error. */
#ifndef MISUSE_FIXTURE_H
#define MISUSE_FIXTURE_H

#define CUDA_ENABLE_DEPRECATED 1
#include <cuda.h>
#include <stddef.h>
#include <stdint.h>

#define FX_BYTES 256            /* size of fx.dptr */

typedef struct misuse_fixture {
    CUdevice dev;
    CUcontext ctx;
    CUmodule mod;
    CUfunction fn;              /* inc(u32 *p, u32 n): p[i] += 1 */
    CUdeviceptr dptr, gvar;     /* a FX_BYTES allocation; module's .global gvar */
    CUstream stream;
    CUevent event, event2, event_notime, event_unrecorded;
    CUlibrary lib;
    CUkernel kernel;            /* "inc" of lib */
    CUgraphNode host_node;      /* the graph's one node (a host node) */
    CUgraph graph;
    CUgraphExec exec;
    void *host;                 /* FX_BYTES of cuMemAllocHost */
    void *plain;                /* FX_BYTES of malloc: not registered */
    /* dead handles: made, then destroyed */
    CUcontext dead_ctx;
    CUmodule dead_mod;
    CUfunction dead_fn;
    CUdeviceptr dead_dptr;
    CUstream dead_stream;
    CUevent dead_event;
    CUlibrary dead_lib;
    CUgraph dead_graph;
    CUgraphExec dead_exec;
} misuse_fixture;

extern misuse_fixture fx;
extern const char misuse_ptx[];

/* 0 on success, else prints what failed. */
int misuse_setup(void);
int misuse_sanity(void);

#endif
