/* zn_blas_stream.c: keeps a BLAS call in order with the work queued before
 * it. Zinc's streams run asynchronously, so before a BLAS routine reads
 * device memory that work must have finished; the routine then runs on the
 * calling thread, and work queued after it starts only once it has
 * returned.
 *
 * Waiting for the handle's stream alone is not enough: on a blocking
 * stream, CUDA orders the call after the legacy default stream too, and
 * applications rely on it (llm.c clears a buffer with cudaMemset on the
 * legacy stream, then multiplies into it with cuBLASLt on its own
 * stream). So the wait is for the whole context, which also covers
 * events other streams wait on. The driver is found in the process
 * (cudart has loaded it), not linked, so the library also works beside
 * any libcuda.so.1. */
#include "zn_blas_core.h"

#include <dlfcn.h>
#include <pthread.h>

typedef int (*ctx_sync_fn)(void);

static ctx_sync_fn ctx_sync;
static pthread_once_t sync_once = PTHREAD_ONCE_INIT;

static void find_ctx_sync(void)
{
    void *drv = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (drv)
        ctx_sync = (ctx_sync_fn)dlsym(drv, "cuCtxSynchronize");
}

void zn_blas_stream_sync(void *stream)
{
    (void)stream;
    pthread_once(&sync_once, find_ctx_sync);
    if (ctx_sync)
        ctx_sync();
}
