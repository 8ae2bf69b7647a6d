/* zn_blas_submit.c: a cuBLAS closure queued in stream order on the
 * handle's stream (zn_blas_stream.c). A routine that returns a result to a
 * host pointer (dot, nrm2, asum, amax, amin in host pointer mode) waits
 * for it, as cuBLAS does; the others return at once. A routine that fails
 * when it runs (none do after the argument checks; the log would say so)
 * cannot report it to its caller any more, like an asynchronous kernel. */
#include "zn_blas.h"

typedef struct closure {
    zn_blas_fn fn;
    zn_blas_args args;
} closure;

static void run_closure(void *p)
{
    const closure *c = p;
    cublasStatus_t st = c->fn(&c->args);
    if (st != CUBLAS_STATUS_SUCCESS)
        zn_blas_unsupported("cuBLAS", "a queued routine failed when it ran: %s",
                            zn_blas_status_name(st));
}

cublasStatus_t zn_blas_submit(cublasHandle_t h, zn_blas_fn fn, const zn_blas_args *args)
{
    closure c = { fn, *args };
    bool wait = args->result && h->pointer_mode == CUBLAS_POINTER_MODE_HOST;
    return zn_blas_enqueue(h->stream, run_closure, &c, sizeof c, wait)
               ? CUBLAS_STATUS_EXECUTION_FAILED
               : CUBLAS_STATUS_SUCCESS;
}

void zn_blas_scalar(zn_scalar *out, const void *p, size_t size)
{
    const unsigned char *s = p;
    unsigned char *d = (unsigned char *)out;
    for (size_t i = 0; i < size && i < sizeof *out; i++)
        d[i] = s[i];
}
