/* module_load.c: module-load and compile-time benchmark (issue #5, #9).
 *
 * Generates one PTX module of N kernels (default 1000) of realistic size:
 * an element-wise kernel with a bounds check, an unrolled chain of float
 * arithmetic with per-kernel constants, a loop and a store, ~75 PTX lines
 * each. Through Zinc's driver API it measures, in a private kernel cache:
 *   - cold load, lazy (CUDA_MODULE_LOADING=LAZY, Zinc's default) and eager
 *     (every kernel compiled at load, on worker threads);
 *   - cold compile time per kernel and per 1000 PTX lines (eager load, the
 *     cache off, on 1 thread and on all);
 *   - warm load (every unit in the cache), lazy and eager;
 *   - first-launch latency of K kernels cold (compile) and warm (cache),
 *     against a second launch of the same kernel.
 * Each launched kernel's output is checked against a C reference.
 *
 * usage: bench_module_load [N [K]]     (prints one table; exit 1 on a
 * wrong result or a driver error) */
#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef int CUresult;
typedef int CUdevice;
typedef void *CUcontext, *CUmodule, *CUfunction, *CUstream;
typedef unsigned long long CUdeviceptr;

CUresult cuInit(unsigned);
CUresult cuDeviceGet(CUdevice *, int);
CUresult cuCtxCreate_v2(CUcontext *, unsigned, CUdevice);
CUresult cuCtxDestroy_v2(CUcontext);
CUresult cuCtxSynchronize(void);
CUresult cuModuleLoadData(CUmodule *, const void *);
CUresult cuModuleUnload(CUmodule);
CUresult cuModuleGetFunction(CUfunction *, CUmodule, const char *);
CUresult cuMemAlloc_v2(CUdeviceptr *, size_t);
CUresult cuMemFree_v2(CUdeviceptr);
CUresult cuMemcpyHtoD_v2(CUdeviceptr, const void *, size_t);
CUresult cuMemcpyDtoH_v2(void *, CUdeviceptr, size_t);
CUresult cuLaunchKernel(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
                        unsigned, unsigned, CUstream, void **, void **);

#define NELEM 1024
#define CK(x)                                                                    \
    do {                                                                         \
        CUresult r_ = (x);                                                       \
        if (r_) {                                                                \
            fprintf(stderr, "FAIL %s:%d: %s = %d\n", __FILE__, __LINE__, #x, r_); \
            exit(1);                                                             \
        }                                                                        \
    } while (0)

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* CPU time of the whole process (all threads): on a loaded machine the
 * wall time says little about the compiler's own cost. */
static double cpu_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static double last_cpu; /* CPU ms of the last load() */

/* Kernel i's constants: a = 1 + (i % 7) / 8, b = (i % 13) / 16. */
static float ca(unsigned i) { return 1.0f + (float)(i % 7) / 8.0f; }
static float cb(unsigned i) { return (float)(i % 13) / 16.0f; }

static uint32_t fbits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

/* The C reference of kernel i (same operation order, no contraction:
 * the PTX uses mul.rn and add.rn). */
static float ref(unsigned i, float x)
{
    volatile float v = x;
    for (int s = 0; s < 8; s++) {
        v = v * ca(i);
        v = v + cb(i);
        v = fmaxf(v, -4.0f);
        v = fminf(v, 1024.0f);
    }
    float acc = 0;
    for (int t = 0; t < 4; t++) {
        volatile float p = v * (float)t;
        acc = acc + p;
    }
    return acc;
}

static size_t lines;

static void emit(char **buf, size_t *len, size_t *cap, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
#include <stdarg.h>
static void emit(char **buf, size_t *len, size_t *cap, const char *fmt, ...)
{
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(*buf + *len, *cap - *len, fmt, ap);
        va_end(ap);
        if (n >= 0 && *len + (size_t)n < *cap) {
            *len += (size_t)n;
            for (int i = 0; i < n; i++)
                lines += (*buf)[*len - n + i] == '\n';
            return;
        }
        *cap = *cap * 2 + 4096;
        *buf = realloc(*buf, *cap);
        if (!*buf)
            exit(1);
    }
}

static char *gen_module(unsigned n)
{
    size_t len = 0, cap = 1 << 20;
    char *b = malloc(cap);
    lines = 0;
    emit(&b, &len, &cap, ".version 8.0\n.target sm_80\n.address_size 64\n\n");
    for (unsigned k = 0; k < n; k++) {
        emit(&b, &len, &cap,
             ".visible .entry k%u(.param .u64 out, .param .u64 in, .param .u32 n)\n{\n"
             "\t.reg .pred %%p<4>;\n\t.reg .b32 %%r<16>;\n\t.reg .f32 %%f<48>;\n"
             "\t.reg .b64 %%rd<8>;\n"
             "\tld.param.u64 %%rd1, [out];\n\tld.param.u64 %%rd2, [in];\n"
             "\tld.param.u32 %%r1, [n];\n"
             "\tmov.u32 %%r2, %%ctaid.x;\n\tmov.u32 %%r3, %%ntid.x;\n"
             "\tmov.u32 %%r4, %%tid.x;\n\tmad.lo.s32 %%r5, %%r2, %%r3, %%r4;\n"
             "\tsetp.ge.u32 %%p1, %%r5, %%r1;\n\t@%%p1 bra DONE;\n"
             "\tcvta.to.global.u64 %%rd3, %%rd2;\n\tmul.wide.u32 %%rd4, %%r5, 4;\n"
             "\tadd.s64 %%rd5, %%rd3, %%rd4;\n\tld.global.f32 %%f1, [%%rd5];\n",
             k);
        for (int s = 0; s < 8; s++)
            emit(&b, &len, &cap,
                 "\tmul.rn.f32 %%f%d, %%f%d, 0f%08X;\n\tadd.rn.f32 %%f%d, %%f%d, 0f%08X;\n"
                 "\tmax.f32 %%f%d, %%f%d, 0fC0800000;\n\tmin.f32 %%f%d, %%f%d, 0f44800000;\n",
                 2 + 4 * s, 1 + 4 * s, fbits(ca(k)), 3 + 4 * s, 2 + 4 * s, fbits(cb(k)),
                 4 + 4 * s, 3 + 4 * s, 5 + 4 * s, 4 + 4 * s);
        emit(&b, &len, &cap,
             "\tmov.f32 %%f40, 0f00000000;\n\tmov.u32 %%r6, 0;\n"
             "LOOP:\n\tcvt.rn.f32.u32 %%f41, %%r6;\n"
             "\tmul.rn.f32 %%f42, %%f33, %%f41;\n\tadd.rn.f32 %%f40, %%f40, %%f42;\n"
             "\tadd.s32 %%r6, %%r6, 1;\n\tsetp.lt.u32 %%p2, %%r6, 4;\n\t@%%p2 bra LOOP;\n"
             "\tcvta.to.global.u64 %%rd6, %%rd1;\n\tadd.s64 %%rd7, %%rd6, %%rd4;\n"
             "\tst.global.f32 [%%rd7], %%f40;\nDONE:\n\tret;\n}\n\n");
    }
    return b;
}

static CUdeviceptr d_in, d_out;
static float h_in[NELEM];
static int bad;

static double launch(CUmodule m, unsigned k, int check)
{
    char name[32];
    snprintf(name, sizeof name, "k%u", k);
    CUfunction f;
    CK(cuModuleGetFunction(&f, m, name));
    unsigned n = NELEM;
    void *args[3] = {&d_out, &d_in, &n};
    float *h_out = malloc(sizeof(float) * NELEM);
    memset(h_out, 0xff, sizeof(float) * NELEM);
    CK(cuMemcpyHtoD_v2(d_out, h_out, sizeof(float) * NELEM)); /* poison */
    double t0 = now_ms();
    CK(cuLaunchKernel(f, NELEM / 256, 1, 1, 256, 1, 1, 0, NULL, args, NULL));
    CK(cuCtxSynchronize());
    double t = now_ms() - t0;
    if (check) {
        CK(cuMemcpyDtoH_v2(h_out, d_out, sizeof(float) * NELEM));
        for (unsigned i = 0; i < NELEM; i++)
            if (h_out[i] != ref(k, h_in[i])) {
                fprintf(stderr, "FAIL k%u out[%u] = %g, want %g\n", k, i, h_out[i],
                        ref(k, h_in[i]));
                bad = 1;
                break;
            }
    }
    free(h_out);
    return t;
}

static double load(const char *ptx, const char *mode, CUmodule *m)
{
    setenv("CUDA_MODULE_LOADING", mode, 1);
    double c0 = cpu_ms(), t0 = now_ms();
    CK(cuModuleLoadData(m, ptx));
    double t = now_ms() - t0;
    last_cpu = cpu_ms() - c0;
    return t;
}

/* First and second launches of K kernels spread over the module. */
static void first_launches(CUmodule m, unsigned n, unsigned kk, double *first, double *second)
{
    *first = *second = 0;
    double c = 0;
    for (unsigned j = 0; j < kk; j++) {
        unsigned k = (unsigned)((uint64_t)j * n / kk);
        double c0 = cpu_ms();
        *first += launch(m, k, 1);
        c += cpu_ms() - c0;
        *second += launch(m, k, 0);
    }
    last_cpu = c / kk;
    *first /= kk;
    *second /= kk;
}

int main(int argc, char **argv)
{
    unsigned n = argc > 1 ? (unsigned)atoi(argv[1]) : 1000;
    unsigned kk = argc > 2 ? (unsigned)atoi(argv[2]) : 20;
    if (n < 1)
        n = 1;
    if (kk > n)
        kk = n;
    if (kk < 1)
        kk = 1;
    char dir[] = "/tmp/zinc-bench-load.XXXXXX";
    if (!mkdtemp(dir))
        return 1;
    setenv("CUDA_CACHE_PATH", dir, 1);
    unsetenv("ZINC_DUMP_IR");
    char *ptx = gen_module(n);
    size_t nlines = lines;
    CK(cuInit(0));
    CUdevice dev;
    CUcontext ctx;
    CK(cuDeviceGet(&dev, 0));
    CK(cuCtxCreate_v2(&ctx, 0, dev));
    for (unsigned i = 0; i < NELEM; i++)
        h_in[i] = (float)((int)(i % 97) - 48) / 8.0f;
    CK(cuMemAlloc_v2(&d_in, sizeof h_in));
    CK(cuMemAlloc_v2(&d_out, sizeof h_in));
    CK(cuMemcpyHtoD_v2(d_in, h_in, sizeof h_in));

    CUmodule m;
    double t, f1, f2;
    printf("module: %u kernels, %zu PTX lines, %.1f MB; %u kernels launched per mode\n", n,
           nlines, strlen(ptx) / 1e6, kk);
    printf("%-44s %9s %9s %11s %11s\n", "measure", "wall ms", "cpu ms", "wall/kernel",
           "cpu/kernel");

    /* cold: the cache off */
    setenv("CUDA_CACHE_DISABLE", "1", 1);
    t = load(ptx, "LAZY", &m);
    printf("%-44s %9.1f %9.1f %11.4f %11.4f\n", "cold load, lazy (parse, verify, handles)", t, last_cpu, t / n,
           last_cpu / n);
    first_launches(m, n, kk, &f1, &f2);
    printf("%-44s %9s %9s %11.2f %11.2f\n", "  first launch, cold (compiles its unit)", "", "", f1, last_cpu);
    printf("%-44s %9s %9s %11.2f\n", "  second launch", "", "", f2);
    CK(cuModuleUnload(m));
    setenv("ZINC_COMPILE_THREADS", "1", 1);
    t = load(ptx, "EAGER", &m);
    printf("%-44s %9.1f %9.1f %11.2f %11.2f\n", "cold load, eager, 1 compile thread", t, last_cpu, t / n,
           last_cpu / n);
    printf("%-44s %9.1f %9.1f\n", "  cold compile per 1000 PTX lines, 1 thread",
           t * 1000.0 / nlines, last_cpu * 1000.0 / nlines);
    CK(cuModuleUnload(m));
    unsetenv("ZINC_COMPILE_THREADS");
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    t = load(ptx, "EAGER", &m);
    char what[64];
    snprintf(what, sizeof what, "cold load, eager, %ld compile threads", cpus);
    printf("%-44s %9.1f %9.1f %11.2f %11.2f\n", what, t, last_cpu, t / n, last_cpu / n);
    CK(cuModuleUnload(m));

    /* warm: fill the cache with an eager load, then load again */
    unsetenv("CUDA_CACHE_DISABLE");
    t = load(ptx, "EAGER", &m);
    printf("%-44s %9.1f %9.1f %11.2f %11.2f\n", "cache fill (eager load, empty cache)", t, last_cpu, t / n,
           last_cpu / n);
    CK(cuModuleUnload(m));
    t = load(ptx, "EAGER", &m);
    printf("%-44s %9.1f %9.1f %11.4f %11.4f\n", "warm load, eager (every unit from the cache)", t, last_cpu, t / n,
           last_cpu / n);
    CK(cuModuleUnload(m));
    t = load(ptx, "LAZY", &m);
    printf("%-44s %9.1f %9.1f %11.4f %11.4f\n", "warm load, lazy", t, last_cpu, t / n,
           last_cpu / n);
    first_launches(m, n, kk, &f1, &f2);
    printf("%-44s %9s %9s %11.2f %11.2f\n", "  first launch, warm (loads its unit)", "", "", f1, last_cpu);
    printf("%-44s %9s %9s %11.2f\n", "  second launch", "", "", f2);
    CK(cuModuleUnload(m));

    CK(cuMemFree_v2(d_in));
    CK(cuMemFree_v2(d_out));
    CK(cuCtxDestroy_v2(ctx));
    free(ptx);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
    if (bad)
        return 1;
    printf("PASS module_load\n");
    return 0;
}
