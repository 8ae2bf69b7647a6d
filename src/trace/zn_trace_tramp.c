/* zn_trace_tramp.c: the records behind the assembly trampolines
 * (zn_trace_tramp_x86_64.S) and their pre/post hooks, which log the call
 * like a typed wrapper does, with the first `nshow` integer arguments in
 * hex. When the pool is used up, functions are handed out unwrapped. */
#include "zn_trace.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

enum { NTRAMP = 1024, STUB_SIZE = 16 };

typedef struct tramp_rec {
    void *target;
    const char *name;
    int nshow;
    char pad[32 - 2 * sizeof(void *) - sizeof(int)];
} tramp_rec;
_Static_assert(sizeof(tramp_rec) == 32, "REC_SIZE in the .S file");

tramp_rec zn_tr_tramp_recs[NTRAMP];
extern const char zn_tr_tramp_stubs[];

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static int used;
static zn_tr_map *by_target;

void *zn_tr_tramp(const char *name, void *fn, int nshow)
{
    if (!fn)
        return fn;
    pthread_mutex_lock(&mu);
    if (!by_target)
        by_target = zn_tr_map_new();
    void *stub = zn_tr_map_get(by_target, (uint64_t)(uintptr_t)fn);
    if (!stub && used < NTRAMP) {
        char *copy = strdup(name);
        if (copy) {
            /* it goes into timeline.json as is: keep it a plain JSON string */
            for (char *c = copy; *c; c++)
                if (*c == '"' || *c == '\\' || (unsigned char)*c < 0x20)
                    *c = '_';
            zn_tr_tramp_recs[used] = (tramp_rec){ .target = fn, .name = copy, .nshow = nshow };
            stub = (void *)(zn_tr_tramp_stubs + (size_t)used * STUB_SIZE);
            zn_tr_map_put(by_target, (uint64_t)(uintptr_t)fn, stub);
            used++;
        }
    }
    pthread_mutex_unlock(&mu);
    return stub ? stub : fn;
}

/* Frames of trampoline calls in flight on this thread. */
static __thread zn_tr_frame frames[ZN_TR_MAX_DEPTH];
static __thread int nframes;

void *zn_tr_tramp_pre(tramp_rec *rec, const uint64_t *regs);
void zn_tr_tramp_post(tramp_rec *rec, uint64_t rax);

void *zn_tr_tramp_pre(tramp_rec *rec, const uint64_t *regs)
{
    int i = nframes++;
    if (i < ZN_TR_MAX_DEPTH) {
        frames[i] = (zn_tr_frame){ .sig = -1, .name = rec->name, .av = regs,
                                   .nargs = rec->nshow < 6 ? rec->nshow : 6 };
        zn_tr_enter(&frames[i]);
    }
    return rec->target;
}

void zn_tr_tramp_post(tramp_rec *rec, uint64_t rax)
{
    int i = --nframes;
    if (i < ZN_TR_MAX_DEPTH)
        zn_tr_leave(&frames[i], (CUresult)(uint32_t)rax);
}
