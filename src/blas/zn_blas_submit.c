/* zn_blas_submit.c: where a BLAS closure runs. Zinc's streams execute at
 * enqueue, so running it now keeps it in order with the kernels around it.
 * With asynchronous streams this becomes an enqueue of a host function on
 * h->stream (args captured by copy: scalars are already held by value). */
#include "zn_blas.h"

cublasStatus_t zn_blas_submit(cublasHandle_t h, zn_blas_fn fn, const zn_blas_args *args)
{
    (void)h;
    return fn(args);
}

void zn_blas_scalar(zn_scalar *out, const void *p, size_t size)
{
    const unsigned char *s = p;
    unsigned char *d = (unsigned char *)out;
    for (size_t i = 0; i < size && i < sizeof *out; i++)
        d[i] = s[i];
}
