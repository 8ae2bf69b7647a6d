/* zn_trace_map.c: pointer-keyed hash map (open addressing, linear probing),
 * guarded by a mutex: handles are looked up a few times per call at most. */
#include "zn_trace.h"

#include <pthread.h>
#include <stdlib.h>

typedef struct slot { uint64_t key; void *value; } slot;

struct zn_tr_map {
    pthread_mutex_t mu;
    slot *slots;
    size_t cap, used;   /* cap: a power of two */
};

static size_t hash(uint64_t k, size_t cap)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    k ^= k >> 33;
    return (size_t)k & (cap - 1);
}

zn_tr_map *zn_tr_map_new(void)
{
    zn_tr_map *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    pthread_mutex_init(&m->mu, NULL);
    m->cap = 256;
    m->slots = calloc(m->cap, sizeof *m->slots);
    return m;
}

static void put_locked(zn_tr_map *m, uint64_t key, void *value)
{
    size_t i = hash(key, m->cap);
    while (m->slots[i].key && m->slots[i].key != key)
        i = (i + 1) & (m->cap - 1);
    if (!m->slots[i].key)
        m->used++;
    m->slots[i] = (slot){ key, value };
}

static void grow(zn_tr_map *m)
{
    slot *old = m->slots;
    size_t ocap = m->cap;
    slot *s = calloc(ocap * 2, sizeof *s);
    if (!s)
        return;
    m->slots = s;
    m->cap = ocap * 2;
    m->used = 0;
    for (size_t i = 0; i < ocap; i++)
        if (old[i].key)
            put_locked(m, old[i].key, old[i].value);
    free(old);
}

void zn_tr_map_put(zn_tr_map *m, uint64_t key, void *value)
{
    if (!m || !m->slots || !key)
        return;
    pthread_mutex_lock(&m->mu);
    if (2 * (m->used + 1) > m->cap)
        grow(m);
    put_locked(m, key, value);
    pthread_mutex_unlock(&m->mu);
}

void *zn_tr_map_get(zn_tr_map *m, uint64_t key)
{
    if (!m || !m->slots || !key)
        return NULL;
    pthread_mutex_lock(&m->mu);
    void *v = NULL;
    for (size_t i = hash(key, m->cap); m->slots[i].key; i = (i + 1) & (m->cap - 1)) {
        if (m->slots[i].key == key) {
            v = m->slots[i].value;
            break;
        }
    }
    pthread_mutex_unlock(&m->mu);
    return v;
}
