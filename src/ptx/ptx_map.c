/* ptx_map.c: a string -> int64 hash map with open addressing (linear
 * probing). Keys are not copied: they point into the source text or the
 * arena, both of which outlive the map. */
#include <stdlib.h>
#include <string.h>
#include "ptx_internal.h"
#include "util/zn_log.h"

static uint32_t hash_str(const char *s, size_t n)
{
    uint32_t h = 2166136261u;           /* FNV-1a */
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 16777619u;
    return h;
}

static ptx_map_slot *find_slot(const ptx_map *m, const char *k, size_t n,
                               uint32_t h)
{
    uint32_t mask = m->cap - 1;
    for (uint32_t i = h & mask;; i = (i + 1) & mask) {
        ptx_map_slot *s = &m->slots[i];
        if (!s->key || (s->hash == h && s->klen == n && !memcmp(s->key, k, n)))
            return s;
    }
}

bool ptx_map_get(const ptx_map *m, const char *k, size_t n, int64_t *val)
{
    if (!m->cap)
        return false;
    ptx_map_slot *s = find_slot(m, k, n, hash_str(k, n));
    if (!s->key)
        return false;
    *val = s->val;
    return true;
}

static void grow(ptx_map *m)
{
    ptx_map old = *m;
    m->cap = old.cap ? old.cap * 2 : 64;
    m->slots = calloc(m->cap, sizeof *m->slots);
    if (!m->slots)
        zn_die("ptx: out of memory");
    for (uint32_t i = 0; i < old.cap; i++)
        if (old.slots[i].key)
            *find_slot(m, old.slots[i].key, old.slots[i].klen,
                       old.slots[i].hash) = old.slots[i];
    free(old.slots);
}

int64_t ptx_map_set(ptx_map *m, const char *k, size_t n, int64_t val)
{
    if ((m->n + 1) * 4 >= m->cap * 3)
        grow(m);
    uint32_t h = hash_str(k, n);
    ptx_map_slot *s = find_slot(m, k, n, h);
    if (s->key) {
        int64_t prev = s->val;
        s->val = val;
        return prev;
    }
    s->key = k;
    s->klen = (uint32_t)n;
    s->hash = h;
    s->val = val;
    m->n++;
    return -1;
}

void ptx_map_free(ptx_map *m)
{
    free(m->slots);
    m->slots = NULL;
    m->cap = m->n = 0;
}
