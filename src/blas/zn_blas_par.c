/* zn_blas_par.c: BLAS work spread over Zinc's worker pool.
 *
 * OpenBLAS's own threads spin (sched_yield) for a while after each call,
 * beside the pool threads that run the next kernels: on 2 CPUs llama.cpp's
 * tiny F32 model (a gemv or gemm per weight matrix between kernels) ran
 * at 15-18k tokens/s prompt and 680-1480 decode with them, 24-42k and
 * 1310-2560 this way (alternated runs, a shared host). So when
 * libcuda is Zinc's (its host-pool export table answers), OpenBLAS runs
 * one thread per call and a large GEMM is cut into panels of C that the
 * pool multiplies at once, each panel one single-threaded OpenBLAS call.
 * ZINC_BLAS_POOL=0 leaves OpenBLAS its threads. */
#define _GNU_SOURCE
#include "zn_blas_core.h"
#include "util/zn_host_pool.h"

#include <cblas.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>

/* Below this many multiply-adds a GEMM runs whole on the calling thread:
 * a hand-off to the pool costs a few microseconds, about what one core
 * takes for 2^17 multiply-adds (llama.cpp's tiny-model FFN gemv, 2^14,
 * stays serial; its 32000 x 64 output layer, 2^21, is split). */
#define PAR_MIN_MACS ((double)(1u << 17))
/* Row panels start on multiples of this (a 64-byte line of floats). */
#define PAR_ROW_ALIGN 16

static const zn_host_pool_table *pool;
static pthread_once_t pool_once = PTHREAD_ONCE_INIT;
/* Set while this thread runs a part: nested work stays serial.
 * initial-exec: read with a plain %fs offset, not __tls_get_addr; under
 * CI's preloaded ASan (GCC 12, glibc 2.36) a __tls_get_addr call for this
 * library's static TLS on a thread libcuda created left a bogus dynamic-TLS
 * range that crashed LeakSanitizer's scan at exit. */
static __attribute__((tls_model("initial-exec"))) _Thread_local bool in_part;

typedef int (*export_table_fn)(const void **table, const void *uuid);

static void find_pool(void)
{
    const char *env = getenv("ZINC_BLAS_POOL");
    if (env && env[0] == '0')
        return;     /* OpenBLAS keeps its own threads */
    /* cublasCreate may be the process's first CUDA call, before cudart
     * has loaded the driver: load it, as NVIDIA's cublasCreate does */
    void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (!h)
        h = dlopen("libcuda.so.1", RTLD_NOW);
    export_table_fn get = h ? (export_table_fn)dlsym(h, "cuGetExportTable") : NULL;
    static const unsigned char uuid[16] = ZN_HOST_POOL_UUID;
    const void *t = NULL;
    if (get && get(&t, uuid) == 0 && t &&
        ((const zn_host_pool_table *)t)->size >= sizeof(zn_host_pool_table))
        pool = t;
    if (pool)
        openblas_set_num_threads(1);
}

unsigned zn_blas_par_workers(void)
{
    pthread_once(&pool_once, find_pool);
    if (!pool || in_part)
        return 1;
    return pool->workers();
}

typedef struct par_call {
    void (*fn)(void *arg, uint64_t i);
    void *arg;
} par_call;

static void run_part(void *p, uint64_t i)
{
    const par_call *c = p;
    bool outer = in_part;
    in_part = true;
    c->fn(c->arg, i);
    in_part = outer;
}

unsigned zn_blas_par_share(double macs)
{
    unsigned w = zn_blas_par_workers();
    return macs < PAR_MIN_MACS ? 1 : w;
}

void zn_blas_par_for(uint64_t n, void (*fn)(void *arg, uint64_t i), void *arg)
{
    if (zn_blas_par_workers() < 2 || n < 2) {
        for (uint64_t i = 0; i < n; i++)
            fn(arg, i);
        return;
    }
    par_call c = {fn, arg};
    pool->parallel(n, run_part, &c);
}

/* ---- GEMM panels ---- */
typedef struct split_ctx {
    const zn_gemm_split *whole;
    bool by_cols;           /* panels of C's columns, else of its rows */
    int step, len;          /* panel width and the split dimension */
} split_ctx;

static void gemm_panel(void *p, uint64_t i)
{
    const split_ctx *x = p;
    zn_gemm_split s = *x->whole;
    int lo = (int)i * x->step, len = x->len - lo < x->step ? x->len - lo : x->step;
    size_t e = s.elem;
    if (x->by_cols) {
        s.n = len;
        s.b = (const char *)s.b + (s.transb ? (size_t)lo : (size_t)lo * s.ldb) * e;
        s.c = (char *)s.c + (size_t)lo * s.ldc * e;
    } else {
        s.m = len;
        s.a = (const char *)s.a + (s.transa ? (size_t)lo * s.lda : (size_t)lo) * e;
        s.c = (char *)s.c + (size_t)lo * e;
    }
    s.run(&s);
}

void zn_blas_gemm_split(const zn_gemm_split *s)
{
    unsigned w = zn_blas_par_share((double)s->m * s->n * s->k);
    if (w < 2) {
        s->run(s);
        return;
    }
    /* Cut the longer side of C: each panel re-reads (and OpenBLAS
     * re-packs) the whole of the other operand. */
    split_ctx x = {.whole = s, .by_cols = s->n >= s->m};
    x.len = x.by_cols ? s->n : s->m;
    x.step = (int)((x.len + w - 1) / w);
    if (!x.by_cols)
        x.step = (x.step + PAR_ROW_ALIGN - 1) / PAR_ROW_ALIGN * PAR_ROW_ALIGN;
    int parts = (x.len + x.step - 1) / x.step;
    if (parts < 2) {
        s->run(s);
        return;
    }
    zn_blas_par_for((uint64_t)parts, gemm_panel, &x);
}
