/* ptx_arena.c: the module's arena (a list of chunks freed in one step) and
 * the parser's growable arrays that are finished into it. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "ptx_internal.h"
#include "util/zn_log.h"

enum { ARENA_CHUNK = 64 * 1024 };

typedef struct chunk {
    struct chunk *next;
    size_t used, cap;
    _Alignas(16) unsigned char data[];
} chunk;

struct ptx_arena {
    chunk *head;
};

ptx_arena *ptx_arena_new(void)
{
    ptx_arena *a = calloc(1, sizeof *a);
    if (!a)
        zn_die("ptx: out of memory");
    return a;
}

void ptx_arena_free(ptx_arena *a)
{
    if (!a)
        return;
    for (chunk *c = a->head, *n; c; c = n) {
        n = c->next;
        free(c);
    }
    free(a);
}

void *ptx_arena_alloc(ptx_arena *a, size_t n)
{
    n = (n + 15) & ~(size_t)15;
    chunk *c = a->head;
    if (!c || c->cap - c->used < n) {
        /* big requests get a chunk of their own, kept behind the head so
         * the head's free space is not abandoned */
        size_t cap = n > ARENA_CHUNK / 4 ? n : ARENA_CHUNK;
        chunk *nc = malloc(sizeof *nc + cap);
        if (!nc)
            zn_die("ptx: out of memory (%zu bytes)", n);
        nc->used = 0;
        nc->cap = cap;
        if (c && cap == n) {
            nc->next = c->next;
            c->next = nc;
        } else {
            nc->next = c;
            a->head = nc;
        }
        c = nc;
    }
    void *r = c->data + c->used;
    c->used += n;
    memset(r, 0, n);
    return r;
}

char *ptx_arena_strndup(ptx_arena *a, const char *s, size_t n)
{
    char *r = ptx_arena_alloc(a, n + 1);
    memcpy(r, s, n);
    r[n] = 0;
    return r;
}

/* A vector's storage is allocated with room for a chunk header in front,
 * so that finishing it hands the block to the arena without a copy (large
 * functions have hundreds of thousands of instructions). */
static chunk *vec_chunk(const ptx_vec *v)
{
    return v->data ? (chunk *)((char *)v->data - offsetof(chunk, data)) : NULL;
}

void *ptx_vec_push(ptx_vec *v)
{
    if (v->n == v->cap) {
        uint32_t cap = v->cap ? v->cap * 2 : 16;
        if (cap < v->cap || (size_t)cap * v->esz / v->esz != cap)
            zn_die("ptx: array too large");
        chunk *c = realloc(vec_chunk(v), sizeof(chunk) + (size_t)cap * v->esz);
        if (!c)
            zn_die("ptx: out of memory");
        v->data = c->data;
        v->cap = cap;
    }
    void *r = (char *)v->data + (size_t)v->n++ * v->esz;
    memset(r, 0, v->esz);
    return r;
}

void *ptx_vec_finish(ptx_vec *v, ptx_arena *a)
{
    void *r = NULL;
    chunk *c = vec_chunk(v);
    if (v->n) {
        size_t bytes = (size_t)v->n * v->esz;
        chunk *s = realloc(c, sizeof(chunk) + bytes);   /* shrink to fit */
        if (s)
            c = s;
        c->used = c->cap = bytes;
        /* behind the head, whose free space stays usable */
        if (a->head) {
            c->next = a->head->next;
            a->head->next = c;
        } else {
            c->next = NULL;
            a->head = c;
        }
        r = c->data;
    } else {
        free(c);
    }
    v->data = NULL;
    v->n = v->cap = 0;
    return r;
}

void ptx_vec_free(ptx_vec *v)
{
    free(vec_chunk(v));
    v->data = NULL;
    v->n = v->cap = 0;
}
