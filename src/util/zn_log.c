#include "zn_log.h"

#include <stdio.h>
#include <stdlib.h>
#include <pthread.h>

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

void zn_log(int level, const char *fmt, ...)
{
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
