/* test_trace_forward.c: the tracing libcuda.so.1 in front of a fake target
 * (ZINC_TRACE_TARGET) whose answers are known: typed wrappers and the
 * generic x86-64 trampoline forward arguments and results unchanged, hand
 * out their own pointers from cuGetProcAddress, and log every call with its
 * decoded arguments and result.
 * usage: test_trace_forward TRACE_LIB FAKE_TARGET OUT_DIR */
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;
#define CHECK(cond, ...)                                                        \
    do {                                                                        \
        if (!(cond)) {                                                          \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                \
            fprintf(stderr, __VA_ARGS__);                                       \
            fputc('\n', stderr);                                                \
            failures++;                                                         \
        }                                                                       \
    } while (0)

typedef int (*proc_fn)(const char *, void **, int, uint64_t, int *);
typedef int (*sum_fn)(int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t,
                      double, int64_t, double, int64_t);
typedef int (*init_fn)(unsigned);
typedef int (*attr_fn)(int *, int, int);
typedef int (*host_fn)(void *, void (*)(void *), void *);

static init_fn traced_init, traced_init_mt;
/* Called by the fake cuLaunchHostFunc: a driver call nested in another. */
static void host_callback(void *user) { *(int *)user = traced_init(6); }

enum { THREADS = 4, CALLS = 200 };

/* Calls from several threads at once: every one logged, none mixed up. */
static void *thread_calls(void *arg)
{
    intptr_t bad = 0;
    for (int i = 0; i < CALLS; i++)
        bad += traced_init_mt(9) != 16;
    return (void *)bad;
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    static char buf[1 << 20];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = 0;
    fclose(f);
    return buf;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: %s TRACE_LIB FAKE_TARGET OUT_DIR\n", argv[0]);
        return 2;
    }
    setenv("ZINC_TRACE_TARGET", argv[2], 1);
    setenv("ZINC_TRACE_DIR", argv[3], 1);
    void *fake = dlopen(argv[2], RTLD_NOW | RTLD_LOCAL);
    void *tr = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!fake || !tr) {
        fprintf(stderr, "FAIL dlopen: %s\n", dlerror());
        return 1;
    }
    proc_fn proc = (proc_fn)dlsym(tr, "cuGetProcAddress_v2");
    init_fn init = (init_fn)dlsym(tr, "cuInit");
    CHECK(proc && init, "tracer lacks cuGetProcAddress_v2 / cuInit");
    if (!proc || !init)
        return 1;
    CHECK(init != (init_fn)dlsym(fake, "cuInit"), "cuInit is not wrapped");

    /* typed wrapper: result forwarded */
    CHECK(init(5) == 12, "cuInit(5) forwarded as %d, want 12", init(5));

    /* generic trampoline: 8 integer arguments in registers and on the stack,
     * two doubles in xmm registers, a result computed by the target */
    void *p = NULL;
    int st = -1;
    CHECK(proc("cuFakeSum", &p, 13000, 0, &st) == 0 && p && st == 0, "cuFakeSum not found");
    CHECK(p != dlsym(fake, "cuFakeSum"), "cuFakeSum handed out unwrapped");
    int64_t a[10] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 };
    double x = 0.25, y = 0.5;
    int want = 100000; /* not a CUresult: printed as a number */
    for (int i = 0; i < 10; i++)
        want += (int)((i + 1) * a[i]);
    want += (int)(x * 100) + (int)(y * 1000);
    if (p) {
        int got = ((sum_fn)p)(a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], x, a[8], y, a[9]);
        CHECK(got == want, "cuFakeSum through the trampoline = %d, want %d", got, want);
    }

    /* a typed wrapper handed out by cuGetProcAddress: out-parameter decoded */
    void *q = NULL;
    CHECK(proc("cuDeviceGetAttribute", &q, 2000, 0, NULL) == 0 && q, "no cuDeviceGetAttribute");
    CHECK(q == dlsym(tr, "cuDeviceGetAttribute"), "cuGetProcAddress did not hand out the wrapper");
    int v = 0;
    if (q)
        CHECK(((attr_fn)q)(&v, 4, 1) == 0 && v == 41, "cuDeviceGetAttribute gave %d", v);

    /* a call made during another call is logged after it, one level deeper */
    traced_init = init;
    int nested = 0;
    host_fn host = (host_fn)dlsym(tr, "cuLaunchHostFunc");
    CHECK(host && host((void *)0x1234, host_callback, &nested) == 0 && nested == 13,
          "cuLaunchHostFunc did not run the callback through the tracer");

    traced_init_mt = init;
    pthread_t th[THREADS];
    for (int i = 0; i < THREADS; i++)
        pthread_create(&th[i], NULL, thread_calls, NULL);
    for (int i = 0; i < THREADS; i++) {
        void *bad;
        pthread_join(th[i], &bad);
        CHECK(bad == NULL, "thread %d: cuInit(9) forwarded wrongly", i);
    }

    /* unknown names stay unknown */
    void *r = (void *)1;
    CHECK(proc("cuNoSuchThing", &r, 13000, 0, NULL) == 500 && r == NULL,
          "cuNoSuchThing should be NOT_FOUND with a NULL pointer");

    dlclose(tr);    /* runs the tracer's destructor: log.txt and timeline.json written */
    char path[4096];
    snprintf(path, sizeof path, "%s/log.txt", argv[3]);
    const char *log = slurp(path);
    CHECK(log != NULL, "no %s", path);
    if (log) {
        char line[256];
        CHECK(strstr(log, "cuInit(0x5) = 12 ("), "no cuInit line with its result:\n%s", log);
        snprintf(line, sizeof line, "cuFakeSum(0x1, 0x2, 0x3, 0x4, 0x5, 0x6) = %d (", want);
        CHECK(strstr(log, line), "no '%s' line:\n%s", line, log);
        CHECK(strstr(log, "cuDeviceGetAttribute(->41, 4, 1) = CUDA_SUCCESS ("),
              "no decoded cuDeviceGetAttribute line:\n%s", log);
        const char *l = strstr(log, "cuGetProcAddress_v2(\"cuNoSuchThing\", 0x");
        const char *eol = l ? strchr(l, '\n') : NULL;
        const char *res = l ? strstr(l, ", 13000, 0, NULL) = CUDA_ERROR_NOT_FOUND (") : NULL;
        CHECK(l && eol && res && res < eol, "no NOT_FOUND lookup line:\n%s", log);
    }
    int mt_lines = 0, threads_seen[64] = { 0 };
    for (const char *l = log; l && (l = strstr(l, " T")) != NULL; l++) {
        int t = atoi(l + 2);
        const char *eol = strchr(l, '\n');
        const char *call = strstr(l, " cuInit(0x9) = 16 (");
        if (call && eol && call < eol && t > 0 && t < 64) {
            mt_lines++;
            threads_seen[t] = 1;
        }
    }
    int nthreads = 0;
    for (int t = 0; t < 64; t++)
        nthreads += threads_seen[t];
    CHECK(mt_lines == THREADS * CALLS && nthreads == THREADS,
          "%d cuInit(0x9) lines from %d threads, want %d from %d", mt_lines, nthreads,
          THREADS * CALLS, THREADS);
    const char *outer = log ? strstr(log, " T1 cuLaunchHostFunc(0x1234, 0x") : NULL;
    const char *inner = log ? strstr(log, " T1   cuInit(0x6) = 13 (") : NULL;
    CHECK(outer && inner && outer < inner, "nested call not after its parent, indented:\n%s", log);
    snprintf(path, sizeof path, "%s/timeline.json", argv[3]);
    const char *tl = slurp(path);
    CHECK(tl && tl[0] == '[' && strstr(tl, "\"name\":\"cuFakeSum\"") && strstr(tl, "]\n"),
          "timeline.json lacks the cuFakeSum event or is not closed");
    if (failures)
        return 1;
    printf("PASS test_trace_forward\n");
    return 0;
}
