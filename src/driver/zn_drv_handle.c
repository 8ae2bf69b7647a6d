/* zn_drv_handle.c: memory behind CUDA handles, never returned to malloc.
 *
 * A destroyed handle's block keeps a zero magic and is reused only for a
 * handle of the same kind, so a stale handle passed back later reads as
 * invalid (CUDA_ERROR_INVALID_HANDLE / _CONTEXT) or as a live object of its
 * own kind, never as freed memory. Kernel tables of unloaded modules are
 * kept the same way (retired, zeroed, not reused).
 */
#include "zn_drv.h"

#include <stdlib.h>
#include <string.h>

typedef struct retired {
    void **blocks;
    size_t n, cap;
} retired;

static pthread_mutex_t handle_lock = PTHREAD_MUTEX_INITIALIZER;
static retired free_blocks[ZN_HANDLE_KINDS];
static retired graveyard;       /* variable-size blocks, never reused */

static bool push(retired *r, void *p)
{
    if (r->n == r->cap) {
        size_t cap = r->cap ? r->cap * 2 : 16;
        void **b = realloc(r->blocks, cap * sizeof *b);
        if (!b)
            return false;
        r->blocks = b;
        r->cap = cap;
    }
    r->blocks[r->n++] = p;
    return true;
}

void *zn_handle_new(zn_handle_kind k, size_t size)
{
    void *p = NULL;
    pthread_mutex_lock(&handle_lock);
    if (free_blocks[k].n)
        p = free_blocks[k].blocks[--free_blocks[k].n];
    pthread_mutex_unlock(&handle_lock);
    if (p) {
        memset(p, 0, size);
        return p;
    }
    return calloc(1, size);
}

void zn_handle_retire(zn_handle_kind k, void *p, size_t size)
{
    if (!p)
        return;
    memset(p, 0, size);     /* magic 0: invalid from now on */
    pthread_mutex_lock(&handle_lock);
    bool kept = push(&free_blocks[k], p);
    pthread_mutex_unlock(&handle_lock);
    if (!kept)
        free(p);
}

void zn_handle_bury(void *p, size_t size)
{
    if (!p)
        return;
    memset(p, 0, size);
    pthread_mutex_lock(&handle_lock);
    bool kept = push(&graveyard, p);
    pthread_mutex_unlock(&handle_lock);
    if (!kept)
        free(p);
}
