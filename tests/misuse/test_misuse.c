/* test_misuse: every implemented driver entry point, called wrongly.
 *
 *   test_misuse [--all] [ROW_NAME...]
 *
 * Each row of misuse_rows.def makes one wrong call (NULL outputs, dead or
 * wrong-kind handles, bad sizes, unaligned pointers, bad flags) and states
 * the CUresult CUDA documents. Each row runs in a child process of its own
 * (forked before any CUDA call, so no driver thread is lost) that builds the
 * fixture, makes the call, checks the result, then checks that the driver
 * still works (misuse_sanity). A crash is reported as such, by signal.
 * Rows listed in known_bugs[] are Zinc bugs reported to their owners: they
 * are skipped unless --all (or named), so that the test guards the rest. */
#include "misuse_fixture.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* scratch outputs of the rows */
static const char *s_str;
static void *s_ptr;
static CUdevice s_dev;
static int s_int;
static unsigned s_uint;
static size_t s_size;
static float s_float;
static char s_buf[4096];
static CUcontext s_ctx;
static CUdeviceptr s_dptr;
static CUmodule s_mod;
static CUfunction s_fn;
static CUkernel s_kernel;
static CUstream s_stream;
static CUevent s_event;
static CUmemoryPool s_pool;
static CUgraph s_graph;
static CUgraphExec s_exec;
static CUgraphNode s_node;
static CUlibrary s_lib;
static unsigned long long s_u64;
static CUstreamCaptureStatus s_cstatus;
static CUgraphNodeType s_ntype;
static CUDA_KERNEL_NODE_PARAMS s_kparams;
static CUDA_MEMSET_NODE_PARAMS s_mparams;
static CUmemGenericAllocationHandle s_handle;

static void host_nop(void *u) { (void)u; }
static void CUDA_CB stream_cb(CUstream s, CUresult r, void *u) { (void)s; (void)r; (void)u; }

static CUresult launch(CUfunction f, unsigned grid, unsigned block, unsigned shmem,
                       CUstream st, int with_params)
{
    unsigned n = 1;
    void *args[] = { &fx.dptr, &n };
    return cuLaunchKernel(f, grid, 1, 1, block, 1, 1, shmem, st, with_params ? args : NULL,
                          NULL);
}

static CUresult copy2d_width_over_pitch(void)
{
    CUDA_MEMCPY2D c;
    memset(&c, 0, sizeof c);
    c.srcMemoryType = CU_MEMORYTYPE_HOST;
    c.srcHost = s_buf;
    c.srcPitch = 64;
    c.dstMemoryType = CU_MEMORYTYPE_DEVICE;
    c.dstDevice = fx.dptr;
    c.dstPitch = 8;             /* narrower than a row */
    c.WidthInBytes = 16;
    c.Height = 4;
    return cuMemcpy2D(&c);
}

static CUresult pool_attr_unknown(void)
{
    CUmemoryPool pool;
    CUresult r = cuDeviceGetDefaultMemPool(&pool, 0);
    if (r != CUDA_SUCCESS)
        return r;
    uint64_t v;
    return cuMemPoolGetAttribute(pool, (CUmemPool_attribute)9999, &v);
}

static CUresult launch_coop(unsigned grid)
{
    unsigned n = 1;
    void *args[] = { &fx.dptr, &n };
    return cuLaunchCooperativeKernel(fx.fn, grid, 1, 1, 32, 1, 1, 0, fx.stream, args);
}

/* cuCtxPopCurrent(NULL) is allowed (the popped context is not returned) */
static CUresult pop_then_push(void)
{
    CUresult r = cuCtxPopCurrent(NULL);
    if (r == CUDA_SUCCESS)
        cuCtxPushCurrent(fx.ctx);
    return r;
}

static CUresult prefetch(CUdeviceptr p)
{
    CUmemLocation loc = { .type = CU_MEM_LOCATION_TYPE_DEVICE, .id = 0 };
    return cuMemPrefetchAsync(p, 16, loc, 0, fx.stream);
}

static CUresult advise(CUdeviceptr p)
{
    CUmemLocation loc = { .type = CU_MEM_LOCATION_TYPE_DEVICE, .id = 0 };
    return cuMemAdvise(p, 16, CU_MEM_ADVISE_SET_READ_MOSTLY, loc);
}

static CUresult pool_set_attr_null(void)
{
    CUmemoryPool pool;
    CUresult r = cuDeviceGetDefaultMemPool(&pool, 0);
    return r != CUDA_SUCCESS ? r
         : cuMemPoolSetAttribute(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, NULL);
}

/* NVIDIA's driver: an unknown name succeeds with a NULL pointer and
 * CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND; anything else reads as UNKNOWN */
static CUresult proc_unknown(void)
{
    CUdriverProcAddressQueryResult st = CU_GET_PROC_ADDRESS_SUCCESS;
    s_ptr = (void *)1;
    CUresult r = cuGetProcAddress("cuNoSuchFunction", &s_ptr, 12000, 0, &st);
    if (r == CUDA_SUCCESS && (s_ptr || st != CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND))
        return CUDA_ERROR_UNKNOWN;
    return r;
}

/* the same range registered twice */
static CUresult host_register_twice(void)
{
    CUresult r = cuMemHostRegister(fx.plain, FX_BYTES, 0);
    if (r != CUDA_SUCCESS)
        return r;
    r = cuMemHostRegister(fx.plain, FX_BYTES, 0);
    CUresult u = cuMemHostUnregister(fx.plain);
    return u != CUDA_SUCCESS ? u : r;
}

#define ROW(name, want, alt, ...) static CUresult row_##name(void) { return __VA_ARGS__; }
#include "misuse_rows.def"
#undef ROW

typedef struct misuse_row {
    const char *name;
    CUresult want, alt;
    CUresult (*call)(void);
} misuse_row;

static const misuse_row rows[] = {
#define ROW(name, want, alt, ...) { #name, want, alt, row_##name },
#include "misuse_rows.def"
#undef ROW
};

/* Rows that fail on Zinc today, each with its bug (also in the report). */
static const struct { const char *name, *why; } known_bugs[] = {
    { NULL, NULL }
};

static const char *known_bug(const char *name)
{
    for (size_t i = 0; known_bugs[i].name; i++)
        if (!strcmp(known_bugs[i].name, name))
            return known_bugs[i].why;
    return NULL;
}

static const char *rname(CUresult r)
{
    const char *s = NULL;
    return cuGetErrorName(r, &s) == CUDA_SUCCESS && s ? s : "?";
}

enum { ROW_OK = 0, ROW_WRONG = 1, ROW_BROKEN = 2, ROW_SETUP = 3, ROW_SUCCESS = 4 };

/* In the child: the whole life of one row. */
static int run_row(const misuse_row *r)
{
    if (misuse_setup() != 0)
        return ROW_SETUP;
    CUresult got = r->call();
    CUcontext cur = NULL;
    cuCtxGetCurrent(&cur);
    if (cur != fx.ctx)          /* a wrongly successful row may have changed it */
        cuCtxSetCurrent(fx.ctx);
    int rc = ROW_OK;
    if (got != r->want && got != r->alt) {
        printf("    %s: got %d %s, want %d %s", r->name, (int)got, rname(got), (int)r->want,
               rname(r->want));
        if (r->alt != r->want)
            printf(" or %d %s", (int)r->alt, rname(r->alt));
        printf("\n");
        rc = got == CUDA_SUCCESS ? ROW_SUCCESS : ROW_WRONG;
    }
    if (misuse_sanity() != 0)
        return ROW_BROKEN;
    return rc;
}

int main(int argc, char **argv)
{
    int all = 0, named = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--all"))
            all = 1;
        else
            named++;
    }
    int fails = 0, skipped = 0, ran = 0;
    size_t nrows = sizeof rows / sizeof rows[0];
    for (size_t i = 0; i < nrows; i++) {
        const misuse_row *r = &rows[i];
        int chosen = !named;
        for (int a = 1; a < argc; a++)
            if (!strcmp(argv[a], r->name))
                chosen = 1;
        if (!chosen)
            continue;
        const char *bug = known_bug(r->name);
        if (bug && !all && !named) {
            printf("SKIP %-36s known bug: %s\n", r->name, bug);
            skipped++;
            continue;
        }
        fflush(stdout);
        pid_t pid = fork();
        if (pid == 0) {
            alarm(60);          /* a hang is a failure too */
            int rc = run_row(r);
            fflush(stdout);     /* _exit does not flush */
            _exit(rc);
        }
        int st = 0;
        waitpid(pid, &st, 0);
        ran++;
        const char *verdict;
        if (WIFSIGNALED(st))
            verdict = WTERMSIG(st) == SIGALRM ? "HANG" : "CRASH";
        else
            switch (WEXITSTATUS(st)) {
            case ROW_OK: verdict = "ok"; break;
            case ROW_WRONG: verdict = "WRONG-RESULT"; break;
            case ROW_SUCCESS: verdict = "WRONG-SUCCESS"; break;
            case ROW_BROKEN: verdict = "STATE-BROKEN"; break;
            case ROW_SETUP: verdict = "SETUP-FAILED"; break;
            default: verdict = "EXIT?"; break;
            }
        int ok = WIFEXITED(st) && WEXITSTATUS(st) == ROW_OK;
        if (WIFSIGNALED(st))
            printf("%-5s %-36s signal %d\n", verdict, r->name, WTERMSIG(st));
        else
            printf("%-5s %-36s\n", ok ? "ok" : verdict, r->name);
        if (!ok)
            fails++;
    }
    printf("test_misuse: %d rows ran, %d failed, %d skipped (known bugs)\n", ran, fails, skipped);
    return fails ? 1 : ran ? 0 : 1;
}
