/* zn_exec_gang.c: threads for launches whose blocks must all run at once.
 *
 * Cooperative grids (zn_exec_coop.c) and thread block clusters
 * (zn_exec_cluster.c) need a thread per co-running block. Creating and
 * joining those threads, with a fresh shared-memory buffer and fiber
 * stacks each, cost about 150-300 us per launch, against a few us for an
 * ordinary one. So they are kept: a gang thread, once made, parks on an
 * idle list with its worker (shared buffer, fibers, racecheck index) and
 * is handed the next such launch. zn_gang_run takes n threads (making
 * the missing ones) before any of them starts, so a launch either has all
 * its blocks running at once or runs none, as before. The calling thread
 * runs one of the n parts itself.
 *
 * A parked thread polls its start flag for a few tens of microseconds
 * (a launch/synchronise loop finds it awake), then sleeps on a semaphore
 * that the starter posts only when it saw the thread asleep (both sides
 * use sequentially consistent flags, so a wake-up is never lost). Threads
 * are never destroyed: they are as many as the largest such launch
 * needed at once.
 */
#define _GNU_SOURCE
#include "zn_exec_internal.h"
#include "util/zn_log.h"

#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdlib.h>

#define ZN_GANG_STACK ((size_t)16 << 20)    /* as the pool's workers */
#define ZN_GANG_SPIN 2000                   /* polls before a parked thread sleeps */
#define ZN_GANG_WAIT_SPIN 2000              /* polls before the starter sleeps */

typedef struct gang {
    pthread_mutex_t m;
    pthread_cond_t cv;
    _Atomic unsigned left;      /* threads still running fn; changed under m */
} gang;

typedef struct gang_thread {
    zn_worker wk;
    sem_t wake;
    _Atomic int go, sleeping;
    zn_gang_fn fn;
    void *arg;
    unsigned i;
    gang *g;
    struct gang_thread *next;   /* on the idle list */
} gang_thread;

static pthread_mutex_t idle_lock = PTHREAD_MUTEX_INITIALIZER;
static gang_thread *idle;
static unsigned made;           /* threads made: their worker indices */

static inline void gang_pause(void)
{
#if defined(__x86_64__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ volatile("yield");
#endif
}

static void *gang_main(void *arg)
{
    gang_thread *t = arg;
    for (;;) {
        for (unsigned i = 0; !atomic_load(&t->go); i++) {
            if (i < ZN_GANG_SPIN) {
                gang_pause();
                continue;
            }
            atomic_store(&t->sleeping, 1);
            if (!atomic_load(&t->go))
                while (sem_wait(&t->wake) != 0 && errno == EINTR)
                    ;
            atomic_store(&t->sleeping, 0);
            i = 0;
        }
        atomic_store(&t->go, 0);
        gang *g = t->g;
        t->fn(t->arg, &t->wk, t->i);
        /* the starter takes m before g goes away, so this is g's last use */
        pthread_mutex_lock(&g->m);
        if (atomic_fetch_sub(&g->left, 1) == 1)
            pthread_cond_signal(&g->cv);
        pthread_mutex_unlock(&g->m);
    }
    return NULL;
}

static gang_thread *gang_thread_new(void)
{
    gang_thread *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    if (sem_init(&t->wake, 0, 0) != 0) {
        free(t);
        return NULL;
    }
    pthread_mutex_lock(&idle_lock);
    /* past the pool's workers, so per-worker state (racecheck) is its own */
    t->wk.index = zn_pool_workers() + made++;
    pthread_mutex_unlock(&idle_lock);
    /* here, not on the new thread: a starter may borrow the worker at once
     * (a native fiber is whichever thread runs it) */
    zn_fiber_init_native(&t->wk.native);
    if (zn_exec_thread_spawn(NULL, ZN_GANG_STACK, gang_main, t) != 0) {
        sem_destroy(&t->wake);
        free(t);
        return NULL;
    }
    return t;
}

static void gang_park(gang_thread **v, unsigned n)
{
    pthread_mutex_lock(&idle_lock);
    for (unsigned k = 0; k < n; k++) {
        v[k]->next = idle;
        idle = v[k];
    }
    pthread_mutex_unlock(&idle_lock);
}

int zn_gang_run(unsigned n, zn_gang_fn fn, void *arg)
{
    if (!n)
        return 0;
    gang_thread **v = malloc(n * sizeof *v);
    if (!v)
        return -1;
    unsigned got = 0;
    pthread_mutex_lock(&idle_lock);
    while (got < n && idle) {
        v[got++] = idle;
        idle = idle->next;
    }
    pthread_mutex_unlock(&idle_lock);
    while (got < n && (v[got] = gang_thread_new()) != NULL)
        got++;
    if (got < n) {
        zn_log(ZN_LOG_ERROR, "launch: only %u of %u block threads could be had", got, n);
        gang_park(v, got);
        free(v);
        return -1;
    }
    gang g = {.m = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};
    atomic_init(&g.left, n - 1);
    /* the caller runs i = 0 itself, on v[0]'s worker (v[0]'s thread stays
     * parked and never touches it): one thread fewer to wake and schedule */
    for (unsigned k = 1; k < n; k++) {
        gang_thread *t = v[k];
        t->fn = fn;
        t->arg = arg;
        t->i = k;
        t->g = &g;
        atomic_store(&t->go, 1);
        if (atomic_load(&t->sleeping))
            sem_post(&t->wake);
    }
    fn(arg, &v[0]->wk, 0);
    for (unsigned i = 0; atomic_load(&g.left) && i < ZN_GANG_WAIT_SPIN; i++)
        gang_pause();
    pthread_mutex_lock(&g.m);
    while (atomic_load(&g.left))
        pthread_cond_wait(&g.cv, &g.m);
    pthread_mutex_unlock(&g.m);
    pthread_mutex_destroy(&g.m);
    pthread_cond_destroy(&g.cv);
    gang_park(v, n);
    free(v);
    return 0;
}
