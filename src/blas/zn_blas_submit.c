/* zn_blas_submit.c: where a BLAS closure runs: on the calling thread once
 * the work queued before it has finished (zn_blas_stream.c: the context,
 * not only h->stream), so it sees every kernel queued before it. Queuing
 * it as a host function on the stream instead (args are held by value) is
 * the next step; results returned to host pointers would then need a wait. */
#include "zn_blas.h"

cublasStatus_t zn_blas_submit(cublasHandle_t h, zn_blas_fn fn, const zn_blas_args *args)
{
    zn_blas_stream_sync(h->stream);
    return fn(args);
}

void zn_blas_scalar(zn_scalar *out, const void *p, size_t size)
{
    const unsigned char *s = p;
    unsigned char *d = (unsigned char *)out;
    for (size_t i = 0; i < size && i < sizeof *out; i++)
        d[i] = s[i];
}
