/* test_lazy_load.c: lazy module loading through the driver API. With the
 * default CUDA_MODULE_LOADING (LAZY), loading compiles nothing and a launch
 * compiles only its kernel (counted in the ZINC_LOG=2 log: "jit: compiled
 * <kernel>"); attributes answer before any launch; a PTX error in a kernel
 * that is never launched still fails the load; two host threads launching
 * one kernel for the first time at once compile it once and both get
 * correct results; CUDA_MODULE_LOADING=EAGER compiles every kernel at load.
 * Outputs are checked against C references. Runs with the cache off. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef int CUresult;
typedef int CUdevice;
typedef void *CUcontext, *CUmodule, *CUfunction;
typedef unsigned long long CUdeviceptr;
CUresult cuInit(unsigned);
CUresult cuDeviceGet(CUdevice *, int);
CUresult cuCtxCreate_v2(CUcontext *, unsigned, CUdevice);
CUresult cuCtxSetCurrent(CUcontext);
CUresult cuCtxDestroy_v2(CUcontext);
CUresult cuCtxSynchronize(void);
CUresult cuModuleLoadData(CUmodule *, const void *);
CUresult cuModuleUnload(CUmodule);
CUresult cuModuleGetFunction(CUfunction *, CUmodule, const char *);
CUresult cuModuleGetGlobal_v2(CUdeviceptr *, size_t *, CUmodule, const char *);
CUresult cuModuleGetLoadingMode(int *);
CUresult cuFuncGetAttribute(int *, int, CUfunction);
CUresult cuMemAlloc_v2(CUdeviceptr *, size_t);
CUresult cuMemFree_v2(CUdeviceptr);
CUresult cuMemcpyHtoD_v2(CUdeviceptr, const void *, size_t);
CUresult cuMemcpyDtoH_v2(void *, CUdeviceptr, size_t);
CUresult cuLaunchKernel(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
                        unsigned, unsigned, void *, void **, void **);

static int failures;
#define CHECK(c, ...)                                                         \
    do {                                                                      \
        if (!(c)) {                                                           \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);              \
            fprintf(stderr, __VA_ARGS__);                                     \
            fputc('\n', stderr);                                              \
            failures++;                                                       \
        }                                                                     \
    } while (0)

/* k<c>(out): out[i] = i * <m> + scale, scale a __device__ variable. */
#define KERNEL(c, m)                                                            \
    ".visible .entry k" c "(.param .u64 out)\n{\n"                              \
    "\t.reg .b32 %r<6>;\n\t.reg .b64 %rd<5>;\n"                                 \
    "\tld.param.u64 %rd1, [out];\n\tmov.u32 %r1, %tid.x;\n"                     \
    "\tld.global.u32 %r2, [scale];\n"                                           \
    "\tmad.lo.s32 %r3, %r1, " m ", %r2;\n"                                      \
    "\tmul.wide.u32 %rd2, %r1, 4;\n\tadd.s64 %rd3, %rd1, %rd2;\n"               \
    "\tst.global.u32 [%rd3], %r3;\n\tret;\n}\n"
#define HEAD ".version 8.0\n.target sm_80\n.address_size 64\n" \
             ".global .align 4 .u32 scale = 1;\n"

static const char *ptx_ok = HEAD KERNEL("a", "2") KERNEL("b", "3") KERNEL("c", "5");
/* kbad is never launched: the load must fail all the same */
static const char *ptx_bad = HEAD KERNEL("a", "2")
    ".visible .entry kbad(.param .u64 out)\n{\n"
    "\t.reg .b32 %r<4>;\n\t.reg .f32 %f<2>;\n"
    "\tadd.s32 %r1, %r2, %undeclared;\n\tret;\n}\n";

static char logpath[64];

/* Lines of the log that contain s. */
static int log_count(const char *s)
{
    FILE *f = fopen(logpath, "r");
    if (!f)
        return -1;
    char line[1024];
    int n = 0;
    while (fgets(line, sizeof line, f))
        n += strstr(line, s) != NULL;
    fclose(f);
    return n;
}

static CUcontext ctx;

/* Launches k<c> on 64 threads and checks out[i] = i * m + scale. */
static void run(CUmodule mod, const char *name, unsigned m, unsigned scale)
{
    CUfunction f;
    CHECK(cuModuleGetFunction(&f, mod, name) == 0, "get %s", name);
    CUdeviceptr d;
    uint32_t out[64];
    memset(out, 0xA5, sizeof out); /* poison */
    CHECK(cuMemAlloc_v2(&d, sizeof out) == 0, "alloc");
    CHECK(cuMemcpyHtoD_v2(d, out, sizeof out) == 0, "poison");
    void *args[1] = {&d};
    CHECK(cuLaunchKernel(f, 1, 1, 1, 64, 1, 1, 0, NULL, args, NULL) == 0, "launch %s", name);
    CHECK(cuCtxSynchronize() == 0, "sync");
    CHECK(cuMemcpyDtoH_v2(out, d, sizeof out) == 0, "copy back");
    for (unsigned i = 0; i < 64; i++)
        if (out[i] != i * m + scale) {
            CHECK(0, "%s: out[%u] = %u, want %u", name, i, out[i], i * m + scale);
            break;
        }
    cuMemFree_v2(d);
}

typedef struct job {
    CUmodule mod;
    pthread_barrier_t *go;
} job;

static void *racer(void *arg)
{
    job *j = arg;
    cuCtxSetCurrent(ctx);
    pthread_barrier_wait(j->go);
    run(j->mod, "kc", 5, 7);
    return NULL;
}

int main(void)
{
    snprintf(logpath, sizeof logpath, "/tmp/zinc-lazy-log.%d", (int)getpid());
    setenv("ZINC_LOG", "2", 1);
    setenv("ZINC_LOG_FILE", logpath, 1);
    setenv("CUDA_CACHE_DISABLE", "1", 1);
    unsetenv("CUDA_MODULE_LOADING");
    unsetenv("ZINC_DUMP_IR");
    CUdevice dev;
    if (cuInit(0) || cuDeviceGet(&dev, 0) || cuCtxCreate_v2(&ctx, 0, dev)) {
        fprintf(stderr, "FAIL: no context\n");
        return 1;
    }
    int mode = 0;
    CHECK(cuModuleGetLoadingMode(&mode) == 0 && mode == 2, "loading mode %d, want LAZY (2)", mode);

    CUmodule mod;
    CHECK(cuModuleLoadData(&mod, ptx_bad) == 218 /* INVALID_PTX */,
          "PTX error in an unlaunched kernel: the load must fail");

    CHECK(cuModuleLoadData(&mod, ptx_ok) == 0, "lazy load");
    CHECK(log_count("jit: compiled") == 0, "the load compiled %d unit(s)", log_count("jit: compiled"));
    CUfunction fb;
    int v = -1;
    CHECK(cuModuleGetFunction(&fb, mod, "kb") == 0, "get kb");
    CHECK(cuFuncGetAttribute(&v, 0 /* MAX_THREADS_PER_BLOCK */, fb) == 0 && v == 1024,
          "max threads before compiling: %d", v);
    CHECK(cuFuncGetAttribute(&v, 4 /* NUM_REGS */, fb) == 0 && v > 0, "regs: %d", v);
    /* a __device__ variable is there before any launch */
    CUdeviceptr dscale;
    size_t bytes = 0;
    uint32_t seven = 7;
    CHECK(cuModuleGetGlobal_v2(&dscale, &bytes, mod, "scale") == 0 && bytes == 4, "scale");
    CHECK(cuMemcpyHtoD_v2(dscale, &seven, 4) == 0, "write scale");
    run(mod, "ka", 2, 7);
    CHECK(log_count("jit: compiled ka") == 1 && log_count("jit: compiled") == 1,
          "launching ka compiled %d unit(s), want only ka", log_count("jit: compiled"));
    run(mod, "ka", 2, 7);
    CHECK(log_count("jit: compiled") == 1, "a second launch compiled again");

    /* two threads, first launch of kc at once */
    pthread_barrier_t go;
    pthread_barrier_init(&go, NULL, 2);
    job j = {mod, &go};
    pthread_t th[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&th[i], NULL, racer, &j);
    for (int i = 0; i < 2; i++)
        pthread_join(th[i], NULL);
    pthread_barrier_destroy(&go);
    CHECK(log_count("jit: compiled kc") == 1, "kc compiled %d times", log_count("jit: compiled kc"));
    CHECK(log_count("jit: compiled kb") == 0, "kb compiled without a launch");
    cuModuleUnload(mod);

    setenv("CUDA_MODULE_LOADING", "EAGER", 1);
    CHECK(cuModuleGetLoadingMode(&mode) == 0 && mode == 1, "loading mode %d, want EAGER", mode);
    int before = log_count("jit: compiled");
    CHECK(cuModuleLoadData(&mod, ptx_ok) == 0, "eager load");
    CHECK(log_count("jit: compiled") == before + 3, "eager load compiled %d unit(s), want 3",
          log_count("jit: compiled") - before);
    run(mod, "kb", 3, 1);
    CHECK(log_count("jit: compiled") == before + 3, "a launch after an eager load compiled");
    cuModuleUnload(mod);
    cuCtxDestroy_v2(ctx);
    unlink(logpath);
    if (failures) {
        fprintf(stderr, "%d failure(s)\n", failures);
        return 1;
    }
    printf("PASS lazy_load\n");
    return 0;
}
