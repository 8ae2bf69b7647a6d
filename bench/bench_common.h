/* bench_common.h: timing and the result line shared by the benchmarks.
 * Every benchmark prints one line per measurement:
 *   BENCH <name> n=<elements> ms=<milliseconds per iteration> bytes=<moved>
 * which bench/run.sh turns into a table. */
#ifndef BENCH_COMMON_H
#define BENCH_COMMON_H

#include <stdio.h>
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

static inline void bench_report(const char *name, long n, double ms, double bytes)
{
    printf("BENCH %s n=%ld ms=%.4f bytes=%.0f\n", name, n, ms, bytes);
}

#endif
