#include "zn_log.h"

#include <stdio.h>
#include <stdlib.h>
#include <pthread.h>
#include <stdatomic.h>

static int log_level = -1;
static FILE *log_file;
static pthread_once_t log_once = PTHREAD_ONCE_INIT;

static void log_init(void)
{
    const char *s = getenv("ZINC_LOG");
    log_level = s ? atoi(s) : 0;
    const char *f = getenv("ZINC_LOG_FILE");
    log_file = f ? fopen(f, "a") : NULL;
    if (!log_file)
        log_file = stderr;
}

int zn_log_level(void)
{
    pthread_once(&log_once, log_init);
    return log_level;
}

static _Atomic(zn_log_sink_fn) log_sink;

void zn_log_set_sink(zn_log_sink_fn fn)
{
    atomic_store(&log_sink, fn);
}

void zn_log(int level, const char *fmt, ...)
{
    zn_log_sink_fn sink = level <= ZN_LOG_WARN ? atomic_load(&log_sink) : NULL;
    if (sink) {
        char msg[256];
        va_list sp;
        va_start(sp, fmt);
        vsnprintf(msg, sizeof msg, fmt, sp);
        va_end(sp);
        sink(level, msg);
    }
    if (level > zn_log_level())
        return;
    va_list ap;
    va_start(ap, fmt);
    flockfile(log_file);
    fputs("zinc: ", log_file);
    vfprintf(log_file, fmt, ap);
    fputc('\n', log_file);
    funlockfile(log_file);
    fflush(log_file);
    va_end(ap);
}

void zn_die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("zinc: internal error: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    abort();
}
