/* bench_common.h: timing, sizes, result lines and result checks shared by
 * the benchmarks (CUDA programs, the C/OpenMP references, the PoCL driver).
 * Every benchmark prints one line per measurement:
 *   BENCH <name> n=<elements> ms=<milliseconds per iteration> bytes=<moved>
 * or, from the suite programs, one line per implementation:
 *   BENCH <name> src=<zinc|c|memcpy|pocl> n=<size> ms=<ms> bytes=<moved> flops=<ops>
 * which bench/run.sh turns into a table. ZINC_BENCH_TINY=1 shrinks every
 * suite benchmark to a size that checks results in seconds (the CTest test). */
#ifndef BENCH_COMMON_H
#define BENCH_COMMON_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define BENCH_N (1 << 24)
#define BENCH_THREADS 256
#define BENCH_REPS 10

static inline double bench_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* The whole of dir/file as a string (malloc'd); a missing file ends the
 * program with a FAIL line. */
static inline char *bench_read_text(const char *dir, const char *file)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "FAIL cannot open %s\n", path);
        exit(1);
    }
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *text = (char *)malloc((size_t)len + 1);
    if (!text) {
        fprintf(stderr, "FAIL out of memory reading %s\n", path);
        exit(1);
    }
    size_t got = fread(text, 1, (size_t)len, f);
    fclose(f);
    text[got] = 0;
    return text;
}

static inline void bench_report(const char *name, long n, double ms, double bytes)
{
    printf("BENCH %s n=%ld ms=%.4f bytes=%.0f\n", name, n, ms, bytes);
}

static inline int bench_tiny(void)
{
    const char *e = getenv("ZINC_BENCH_TINY");
    return e && e[0] == '1';
}

static inline long bench_size(long full, long tiny)
{
    return bench_tiny() ? tiny : full;
}

static inline int bench_reps(void)
{
    return bench_tiny() ? 2 : BENCH_REPS;
}

/* BENCH_BEST(ms, stmt...): stmt once as warm-up (JIT, page faults, thread
 * start), then bench_reps() timed runs; ms is the fastest, which damps the
 * noise of other load on a shared machine. stmt must finish its work
 * (synchronize) before it returns. */
#define BENCH_BEST(ms, ...) do { \
    __VA_ARGS__; \
    double best_ = 1e300; \
    for (int r_ = 0; r_ < bench_reps(); r_++) { \
        double t_ = bench_now_ms(); \
        __VA_ARGS__; \
        t_ = bench_now_ms() - t_; \
        if (t_ < best_) best_ = t_; \
    } \
    (ms) = best_; \
} while (0)

static inline void bench_line(const char *name, const char *src, long n, double ms,
                              double bytes, double flops)
{
    printf("BENCH %s src=%s n=%ld ms=%.6f bytes=%.0f flops=%.0f\n", name, src, n, ms, bytes, flops);
    fflush(stdout);
}

/* Compares got against the C reference want: |got - want| <= atol + rtol |want|.
 * Prints the first mismatch and returns 1 on failure. */
static inline int bench_check_f32(const char *name, const float *got, const float *want,
                                  long n, double rtol, double atol)
{
    for (long i = 0; i < n; i++) {
        double g = got[i], w = want[i];
        if (!(fabs(g - w) <= atol + rtol * fabs(w))) {
            fprintf(stderr, "FAIL %s: element %ld = %.9g, C reference %.9g\n", name, i, g, w);
            return 1;
        }
    }
    return 0;
}

static inline int bench_check_u32(const char *name, const unsigned *got, const unsigned *want, long n)
{
    for (long i = 0; i < n; i++)
        if (got[i] != want[i]) {
            fprintf(stderr, "FAIL %s: element %ld = %u, C reference %u\n", name, i, got[i], want[i]);
            return 1;
        }
    return 0;
}

/* Largest |x|: the scale of an absolute tolerance. */
static inline double bench_max_abs(const float *x, long n)
{
    double m = 0;
    for (long i = 0; i < n; i++)
        m = fabs(x[i]) > m ? fabs(x[i]) : m;
    return m;
}

#endif
