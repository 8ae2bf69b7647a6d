/* zn_blas_stream.c: keeps a BLAS call in order with the work queued on its
 * stream. Zinc's streams run asynchronously, so before a BLAS routine reads
 * device memory the stream must have finished what was queued before it;
 * the routine then runs on the calling thread, and work queued after it
 * starts only once it has returned. The driver is found in the process
 * (cudart has loaded it), not linked, so the library also works beside any
 * libcuda.so.1. */
#include "zn_blas_core.h"

#include <dlfcn.h>
#include <pthread.h>

typedef int (*stream_sync_fn)(void *stream);

static stream_sync_fn stream_sync;
static pthread_once_t stream_once = PTHREAD_ONCE_INIT;

static void find_stream_sync(void)
{
    void *drv = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (drv)
        stream_sync = (stream_sync_fn)dlsym(drv, "cuStreamSynchronize");
}

void zn_blas_stream_sync(void *stream)
{
    pthread_once(&stream_once, find_stream_sync);
    if (stream_sync)
        stream_sync(stream);
}
