/* zn_drv_profile.c: ZINC_PROFILE=1, a summary like nvprof's: for each
 * kernel, how many grids ran, their total and mean wall-clock time (around
 * zn_exec_launch, on whichever thread ran the grid) and the compile time of
 * its module. Printed on stderr by an atexit handler registered at the
 * first record. Kernels are told apart by name. */
#include "zn_drv_profile.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct zn_prof_kernel {
    char *name;
    unsigned long long launches;
    double run_s, compile_s;
} zn_prof_kernel;

static pthread_mutex_t prof_lock = PTHREAD_MUTEX_INITIALIZER;
static zn_prof_kernel *prof_k;
static size_t prof_n, prof_cap;
static int prof_registered;

int zn_prof_on(void)
{
    static int on = -1;
    if (on < 0) {
        const char *e = getenv("ZINC_PROFILE");
        on = e && *e && strcmp(e, "0") != 0;
    }
    return on;
}

double zn_prof_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int by_run_time(const void *a, const void *b)
{
    const zn_prof_kernel *x = a, *y = b;
    return (x->run_s < y->run_s) - (x->run_s > y->run_s);
}

static void prof_report(void)
{
    pthread_mutex_lock(&prof_lock);
    double total = 0;
    for (size_t i = 0; i < prof_n; i++)
        total += prof_k[i].run_s;
    qsort(prof_k, prof_n, sizeof *prof_k, by_run_time);
    fprintf(stderr, "==zinc== profile (ZINC_PROFILE): kernel times are host wall clock\n");
    fprintf(stderr, "==zinc== %7s %12s %9s %12s %12s  %s\n", "Time(%)", "Total(ms)",
            "Launches", "Mean(us)", "Compile(ms)", "Kernel");
    for (size_t i = 0; i < prof_n; i++) {
        const zn_prof_kernel *k = &prof_k[i];
        fprintf(stderr, "==zinc== %7.2f %12.3f %9llu %12.1f %12.1f  %s\n",
                total > 0 ? 100.0 * k->run_s / total : 0.0, k->run_s * 1e3, k->launches,
                k->launches ? k->run_s * 1e6 / (double)k->launches : 0.0,
                k->compile_s * 1e3, k->name);
    }
    for (size_t i = 0; i < prof_n; i++)
        free(prof_k[i].name);
    free(prof_k);
    prof_k = NULL;
    prof_n = prof_cap = 0;
    pthread_mutex_unlock(&prof_lock);
}

/* The record of name, added if new; call with prof_lock held. NULL when
 * out of memory (the sample is dropped). */
static zn_prof_kernel *prof_find(const char *name)
{
    if (!prof_registered) {
        prof_registered = 1;
        atexit(prof_report);
    }
    for (size_t i = 0; i < prof_n; i++)
        if (!strcmp(prof_k[i].name, name))
            return &prof_k[i];
    if (prof_n == prof_cap) {
        size_t cap = prof_cap ? prof_cap * 2 : 16;
        zn_prof_kernel *k = realloc(prof_k, cap * sizeof *k);
        if (!k)
            return NULL;
        prof_k = k;
        prof_cap = cap;
    }
    zn_prof_kernel *k = &prof_k[prof_n];
    memset(k, 0, sizeof *k);
    if (!(k->name = strdup(name)))
        return NULL;
    prof_n++;
    return k;
}

void zn_prof_compile(const zn_jit_module *jm, double sec)
{
    if (!zn_prof_on() || !jm)
        return;
    pthread_mutex_lock(&prof_lock);
    for (uint32_t i = 0; i < zn_jit_kernel_count(jm); i++) {
        zn_prof_kernel *k = prof_find(zn_jit_kernel_at(jm, i)->name);
        if (k)
            k->compile_s += sec;
    }
    pthread_mutex_unlock(&prof_lock);
}

void zn_prof_compile_kernel(const char *name, double sec)
{
    if (!zn_prof_on() || !name)
        return;
    pthread_mutex_lock(&prof_lock);
    zn_prof_kernel *k = prof_find(name);
    if (k)
        k->compile_s += sec;
    pthread_mutex_unlock(&prof_lock);
}

void zn_prof_launch(const char *name, double sec)
{
    if (!zn_prof_on() || !name)
        return;
    pthread_mutex_lock(&prof_lock);
    zn_prof_kernel *k = prof_find(name);
    if (k) {
        k->launches++;
        k->run_s += sec;
    }
    pthread_mutex_unlock(&prof_lock);
}
