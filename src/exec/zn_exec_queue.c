/* zn_exec_queue.c: ordered work queues, each drained by its own thread.
 *
 * A queue runs its items one at a time in the order they were pushed, on a
 * thread of its own, so work on one queue overlaps the host and every other
 * queue. Each item gets a ticket (1, 2, ...); `completed` is the ticket of
 * the last item that finished, so "is position t reached" is one atomic
 * load. Queues are pooled and never freed: a handle that outlives its
 * stream still reads a monotonic counter, and creating a stream reuses a
 * parked thread instead of spawning one.
 *
 * An idle queue may run a short item on the caller's thread instead
 * (zn_queue_inline_begin/end): the ticket is claimed as usual and the
 * worker will not start a later item until that one has completed.
 */
#include "zn_exec_internal.h"
#include "util/zn_log.h"

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>

typedef struct queue_item {
    struct queue_item *next;
    uint64_t ticket;
    zn_queue_fn fn;
    void *arg;
} queue_item;

struct zn_queue {
    pthread_mutex_t m;
    pthread_cond_t work;        /* the worker: an item is ready */
    pthread_cond_t done;        /* waiters: completed moved */
    queue_item *head, *tail;
    _Atomic uint64_t submitted;
    _Atomic uint64_t completed;
    int nwaiters;
    int started;
    zn_queue *next_free;
};

static pthread_mutex_t free_lock = PTHREAD_MUTEX_INITIALIZER;
static zn_queue *free_queues;

/* Tens of microseconds of polling before sleeping (pauses, and a
 * sched_yield every 16th step: zn_spin_step): a short item on an idle
 * queue finishes within it, and the waiter avoids a futex round trip. */
#define ZN_QUEUE_SPIN 2000

/* An emptied queue's thread polls about as long before it sleeps: a host
 * that launches again right after synchronising (a launch/sync loop,
 * a framework's next step) finds it awake instead of paying a futex wake
 * of a sleeping thread (tens of microseconds on an idle VM). */
static void queue_idle_spin(zn_queue *q)
{
    uint64_t seen = atomic_load(&q->submitted);
    pthread_mutex_unlock(&q->m);
    for (int i = 0; i < ZN_QUEUE_SPIN && atomic_load(&q->submitted) == seen; i++)
        zn_spin_step(i);
    pthread_mutex_lock(&q->m);
}

static void *queue_thread(void *arg)
{
    zn_queue *q = arg;
    pthread_mutex_lock(&q->m);
    bool spun = false;
    for (;;) {
        /* the head runs only once everything before it (inline items too)
         * has completed */
        while (!q->head || atomic_load(&q->completed) + 1 != q->head->ticket) {
            if (!q->head && !spun) {
                queue_idle_spin(q);
                spun = true;
                continue;
            }
            pthread_cond_wait(&q->work, &q->m);
        }
        spun = false;
        queue_item *it = q->head;
        q->head = it->next;
        if (!q->head)
            q->tail = NULL;
        pthread_mutex_unlock(&q->m);
        it->fn(it->arg);
        pthread_mutex_lock(&q->m);
        atomic_store(&q->completed, it->ticket);
        if (q->nwaiters)
            pthread_cond_broadcast(&q->done);
        free(it);
    }
    return NULL;
}

/* Queue threads are detached; kernels run on them. */
static int queue_start(zn_queue *q)
{
    return zn_exec_thread_spawn(NULL, (size_t)16 << 20, queue_thread, q);
}

zn_queue *zn_queue_get(void)
{
    pthread_mutex_lock(&free_lock);
    zn_queue *q = free_queues;
    if (q)
        free_queues = q->next_free;
    pthread_mutex_unlock(&free_lock);
    if (q)
        return q;
    q = calloc(1, sizeof *q);
    if (!q)
        return NULL;
    pthread_mutex_init(&q->m, NULL);
    pthread_cond_init(&q->work, NULL);
    pthread_cond_init(&q->done, NULL);
    return q;
}

static void queue_free(void *arg)
{
    zn_queue *q = arg;
    pthread_mutex_lock(&free_lock);
    q->next_free = free_queues;
    free_queues = q;
    pthread_mutex_unlock(&free_lock);
}

/* The last item of a queue gives it back: a later owner's first item gets
 * the next ticket and so runs after everything queued here. */
void zn_queue_put(zn_queue *q)
{
    if (!q)
        return;
    if (zn_queue_done(q, zn_queue_last(q)) || !zn_queue_push(q, queue_free, q)) {
        zn_queue_wait(q, zn_queue_last(q), true);
        queue_free(q);
    }
}

uint64_t zn_queue_push(zn_queue *q, zn_queue_fn fn, void *arg)
{
    queue_item *it = malloc(sizeof *it);
    if (!it)
        return 0;
    it->next = NULL;
    it->fn = fn;
    it->arg = arg;
    pthread_mutex_lock(&q->m);
    if (!q->started) {
        if (queue_start(q) != 0) {
            pthread_mutex_unlock(&q->m);
            free(it);
            zn_log(ZN_LOG_ERROR, "stream queue: cannot start a thread");
            return 0;
        }
        q->started = 1;
    }
    uint64_t ticket = atomic_load(&q->submitted) + 1;
    it->ticket = ticket;
    atomic_store(&q->submitted, ticket);
    if (q->tail)
        q->tail->next = it;
    else
        q->head = it;
    q->tail = it;
    if (q->head == it)
        pthread_cond_signal(&q->work);
    pthread_mutex_unlock(&q->m);
    return ticket;      /* not it->ticket: the worker may have freed it */
}

uint64_t zn_queue_last(zn_queue *q)
{
    return atomic_load(&q->submitted);
}

bool zn_queue_done(zn_queue *q, uint64_t ticket)
{
    return atomic_load(&q->completed) >= ticket;
}

void zn_queue_wait(zn_queue *q, uint64_t ticket, bool spin)
{
    if (spin)
        for (int i = 0; i < ZN_QUEUE_SPIN && atomic_load(&q->completed) < ticket; i++)
            zn_spin_step(i);
    if (atomic_load(&q->completed) >= ticket)
        return;
    pthread_mutex_lock(&q->m);
    q->nwaiters++;
    while (atomic_load(&q->completed) < ticket)
        pthread_cond_wait(&q->done, &q->m);
    q->nwaiters--;
    pthread_mutex_unlock(&q->m);
}

uint64_t zn_queue_inline_begin(zn_queue *q)
{
    uint64_t t = 0;
    pthread_mutex_lock(&q->m);
    if (atomic_load(&q->submitted) == atomic_load(&q->completed)) {
        t = atomic_load(&q->submitted) + 1;
        atomic_store(&q->submitted, t);
    }
    pthread_mutex_unlock(&q->m);
    return t;
}

void zn_queue_inline_end(zn_queue *q, uint64_t ticket)
{
    pthread_mutex_lock(&q->m);
    atomic_store(&q->completed, ticket);
    if (q->nwaiters)
        pthread_cond_broadcast(&q->done);
    if (q->head)
        pthread_cond_signal(&q->work);
    pthread_mutex_unlock(&q->m);
}
