/* zn_exec_race.c: ZINC_CHECK=racecheck, shared-memory races at run time.
 *
 * The checked code of memcheck (src/compile/zn_lower_check.c) calls
 * zn_check_rt before every access; with racecheck on, it passes shared
 * accesses (and generic ones that land in the block's shared window) here.
 *
 * Shadow: one cell per 4-byte word of the block's shared window (per byte
 * for words that see smaller or unaligned accesses), per worker (all
 * warps of a block run on one worker thread, as fibers, so no locks): the
 * last writer (thread, instruction, barrier epoch) and the warps that read
 * since the last barrier (bit mask, one instruction, epoch). The epoch is a
 * per-worker counter bumped when a barrier of the block completes
 * (zn_race_barrier, called by the warp scheduler) and when the worker
 * starts another block, so cells of earlier epochs count as empty and the
 * shadow is never cleared.
 *
 * A hazard is an access that meets, in the same epoch, a write (RAW, WAW)
 * or a read (WAR) of another warp. Warps run their lanes in lockstep, so
 * same-warp pairs are not reported (see docs/memcheck.md for what that
 * leaves out). Atomics are not races and are not recorded. Each pair of
 * instructions is reported once per process; racecheck never stops the
 * kernel.
 *
 * Thread block clusters: blocks of a cluster read and write each other's
 * shared memory (distributed shared memory, mapa), and only a cluster
 * barrier orders accesses of different blocks. So in a cluster launch
 * every access that lands in one of the cluster's windows (its own
 * included) also goes to a per-team shadow of all the windows (one cell
 * per byte, under the shadow's mutex: the blocks run on different
 * threads) that records the last writer's and the readers' cluster ranks
 * under a key of the cluster and its barrier phase; an access meets a
 * hazard when another rank wrote (or, for a write, read) the byte under
 * the same key. Warps of one block stay the per-worker shadow's business;
 * a completed cluster barrier is also a new epoch there. */
#include "zn_exec_race.h"
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

enum { SP_GENERIC = 0, SP_SHARED = 3 };
enum { F_WRITE = 1, F_ATOMIC = 2 };
#define RACE_MAX_WORKERS 1024

typedef struct race_cell {
    const char *wwhere;     /* last write's instruction */
    const char *rwhere;     /* a read since the last barrier */
    uint32_t wepoch, repoch;
    uint32_t rwarps;        /* warps that read in repoch */
    uint16_t wtid, rtid;    /* thread index in the block */
} race_cell;

/* Cells per 4-byte word while the block accesses a word only with aligned
 * accesses of whole words (the common case: one cell per int or float);
 * a word touched by a smaller or unaligned access switches, for the rest
 * of the block, to one cell per byte (its word cell copied to each). */
typedef struct race_shadow {
    uint64_t seq;           /* launch and block the cells belong to */
    uint32_t ctaid[3];
    uint32_t epoch;
    uint32_t bgen;          /* block number on this worker: byte mode marks */
    size_t cap;             /* words */
    race_cell *words;       /* [cap] */
    race_cell *bytes;       /* [cap * 4] */
    uint32_t *bytemode;     /* [cap]: word i is per byte iff == bgen */
} race_shadow;

typedef struct race_pair {
    const char *a, *b;
    unsigned ka, kb;        /* 1 write, 0 read */
} race_pair;

static struct {
    _Atomic(race_shadow *) shadow[RACE_MAX_WORKERS]; /* by worker index */
    pthread_mutex_t lock;   /* reported pairs */
    race_pair *pairs;
    size_t npairs, cap;
    _Atomic uint64_t hazards;
} race = {.lock = PTHREAD_MUTEX_INITIALIZER};

_Atomic bool zn_race_enabled;

static race_shadow *shadow_of(unsigned idx, bool create)
{
    if (idx >= RACE_MAX_WORKERS)
        return NULL;
    race_shadow *s = atomic_load_explicit(&race.shadow[idx], memory_order_acquire);
    if (!s && create) {
        s = calloc(1, sizeof *s);
        if (s)
            atomic_store_explicit(&race.shadow[idx], s, memory_order_release);
    }
    return s;
}

void zn_race_barrier(zn_block_run *run)
{
    if (!atomic_load_explicit(&zn_race_enabled, memory_order_relaxed))
        return;
    race_shadow *s = shadow_of(run->worker->index, false);
    if (s)
        s->epoch++;
}

/* The shadow for w's block, switched to it (new epoch) when the worker has
 * moved on to another block or launch; NULL without memory. */
static race_shadow *block_shadow(zn_warp_ctx *w)
{
    const zn_block_ctx *b = w->block;
    const zn_block_run *run = b->exec;
    race_shadow *s = shadow_of(run->worker->index, true); /* smid is shared */
    if (!s)
        return NULL;
    size_t nw = ((size_t)b->shared_size + 3) / 4;
    if (s->cap < nw) {
        race_cell *wc = calloc(nw, sizeof *wc), *bc = calloc(nw * 4, sizeof *bc);
        uint32_t *bm = calloc(nw, sizeof *bm);
        if (!wc || !bc || !bm) {
            free(wc);
            free(bc);
            free(bm);
            return NULL;
        }
        free(s->words);
        free(s->bytes);
        free(s->bytemode);
        s->words = wc;
        s->bytes = bc;
        s->bytemode = bm;
        s->cap = nw;
        s->bgen = 0; /* every word back to word mode (bytemode is 0) */
    }
    uint64_t seq = run->job ? run->job->seq : 0;
    if (s->seq != seq || memcmp(s->ctaid, b->ctaid, sizeof s->ctaid) != 0 || s->epoch == 0 ||
        s->bgen == 0) {
        s->seq = seq;
        memcpy(s->ctaid, b->ctaid, sizeof s->ctaid);
        s->epoch++;
        if (s->epoch == 0) /* 0 marks never-used cells */
            s->epoch = 1;
        s->bgen++;
        if (s->bgen == 0)
            s->bgen = 1;
    }
    return s;
}

static void dsm_access(zn_warp_ctx *w, const uint64_t *addr, uint32_t mask, unsigned size,
                       unsigned write, const char *where);

static const char *kind_name(unsigned k)
{
    return k ? "Write" : "Read";
}

static void thread_xyz(const zn_block_ctx *b, uint32_t t, uint32_t out[3])
{
    uint32_t nx = b->ntid[0] ? b->ntid[0] : 1, ny = b->ntid[1] ? b->ntid[1] : 1;
    out[0] = t % nx;
    out[1] = t / nx % ny;
    out[2] = t / nx / ny;
}

/* What both reports print of a pair: the two instructions' places and
 * the two threads' coordinates in the block. */
typedef struct race_text {
    char wa[640], wb[640];
    uint32_t xa[3], xb[3];
} race_text;

static void race_text_fill(race_text *t, const zn_block_ctx *b, const race_pair *p, uint32_t ta,
                           uint32_t tb)
{
    zn_check_where(t->wa, sizeof t->wa, p->a);
    zn_check_where(t->wb, sizeof t->wb, p->b);
    thread_xyz(b, ta, t->xa);
    thread_xyz(b, tb, t->xb);
}

/* One conflict found in a warp's access: the earlier access (a) and this
 * one (b), the threads, the shared offset and how many lanes hit it. */
typedef struct race_hit {
    race_pair p;
    uint32_t ta, tb, off;
    unsigned lanes;
} race_hit;

/* Whether p is a pair of instructions not reported before (then it is
 * remembered). either_order: (b, a) counts as the same pair, for blocks of
 * different clusters, which meet the two accesses in either order. */
static bool pair_first(const race_pair *p, bool either_order)
{
    bool first = false;
    pthread_mutex_lock(&race.lock);
    for (size_t i = 0; i < race.npairs; i++) {
        const race_pair *q = &race.pairs[i];
        if ((q->a == p->a && q->b == p->b && q->ka == p->ka && q->kb == p->kb) ||
            (either_order && q->a == p->b && q->b == p->a && q->ka == p->kb && q->kb == p->ka))
            goto out;
    }
    if (race.npairs == race.cap) {
        size_t cap = race.cap ? race.cap * 2 : 16;
        race_pair *v = realloc(race.pairs, cap * sizeof *v);
        if (!v)
            goto out;
        race.pairs = v;
        race.cap = cap;
    }
    race.pairs[race.npairs++] = *p;
    first = true;
out:
    pthread_mutex_unlock(&race.lock);
    return first;
}

/* A window offset as reported: from the kernel's first .shared byte, past
 * the window's reserved bytes (zn_kernel_abi.h) */
static int user_off(uint32_t off)
{
    return (int)off - (int)ZN_SMEM_RESERVED;
}

static void report(zn_warp_ctx *w, const race_hit *h)
{
    atomic_fetch_add(&race.hazards, h->lanes);
    if (!pair_first(&h->p, false))
        return;

    const zn_block_ctx *b = w->block;
    race_text t;
    race_text_fill(&t, b, &h->p, h->ta, h->tb);
    zn_check_print("========= Race reported between %s access at %s\n"
                   "=========     and %s access at %s [%u hazard%s]\n"
                   "=========     threads (%u,%u,%u) and (%u,%u,%u) in block (%u,%u,%u), "
                   "shared offset %d\n"
                   "=========\n",
                   kind_name(h->p.ka), t.wa, kind_name(h->p.kb), t.wb, h->lanes,
                   h->lanes == 1 ? "" : "s", t.xa[0], t.xa[1], t.xa[2], t.xb[0], t.xb[1],
                   t.xb[2], b->ctaid[0], b->ctaid[1], b->ctaid[2], user_off(h->off));
}

/* The conflict of one byte with the earlier accesses of other warps, if
 * any: fills h (a first hit) or counts a lane for the same pair. */
static bool cell_conflict(const race_cell *c, uint32_t epoch, uint32_t warp, unsigned write,
                          race_pair *p, uint32_t *ta)
{
    if (c->wepoch == epoch && (uint32_t)(c->wtid / ZN_WARP_SIZE) != warp) {
        *p = (race_pair){c->wwhere, NULL, 1, write};
        *ta = c->wtid;
        return true;
    }
    uint32_t others = c->rwarps & ~(1u << warp);
    if (write && c->repoch == epoch && others) {
        /* rwhere/rtid are the latest reader's; name another warp's thread
         * when that was this warp */
        *p = (race_pair){c->rwhere, NULL, 0, 1};
        *ta = (uint32_t)(c->rtid / ZN_WARP_SIZE) != warp ? c->rtid
                                                          : __builtin_ctz(others) * ZN_WARP_SIZE;
        return true;
    }
    return false;
}

/* The state of one lane's access while its cells are visited. */
typedef struct race_lane {
    uint32_t epoch, warp, tid, off;
    unsigned write;
    const char *where;
    bool counted;           /* this lane already counted as a hazard */
} race_lane;

static inline __attribute__((always_inline)) void touch(race_cell *c, race_lane *ln,
                                                        race_hit *hit)
{
    race_pair p;
    uint32_t ta;
    if (!ln->counted && cell_conflict(c, ln->epoch, ln->warp, ln->write, &p, &ta)) {
        p.b = ln->where;
        if (hit->lanes == 0)
            *hit = (race_hit){p, ta, ln->tid, ln->off, 0};
        if (p.a == hit->p.a && p.ka == hit->p.ka)
            hit->lanes++;
        ln->counted = true;
    }
    if (ln->write) {
        c->wepoch = ln->epoch;
        c->wtid = (uint16_t)ln->tid;
        c->wwhere = ln->where;
    } else {
        if (c->repoch != ln->epoch) {
            c->repoch = ln->epoch;
            c->rwarps = 0;
        }
        c->rwarps |= 1u << ln->warp;
        c->rtid = (uint16_t)ln->tid;
        c->rwhere = ln->where;
    }
}

void zn_race_access(zn_warp_ctx *w, const uint64_t *addr, uint32_t mask, uint32_t info,
                    const char *where)
{
    unsigned size = info & 0xffffu, sp = (info >> 16) & 0xffu, fl = info >> 24;
    if ((sp != SP_SHARED && sp != SP_GENERIC) || (fl & F_ATOMIC) || size == 0)
        return;
    const zn_block_ctx *b = w->block;
    uintptr_t sh = (uintptr_t)b->shared, shn = b->shared_size;
    if (shn == 0)
        return;
    if (b->cluster)
        dsm_access(w, addr, mask, size, (fl & F_WRITE) ? 1 : 0, where);
    race_shadow *s = block_shadow(w);
    if (!s)
        return;
    unsigned write = (fl & F_WRITE) ? 1 : 0;
    uint32_t epoch = s->epoch, warp = w->warpid;
    race_hit hit = {.lanes = 0};
    for (uint32_t m = mask; m; m &= m - 1) {
        unsigned lane = (unsigned)__builtin_ctz(m);
        uintptr_t a = (uintptr_t)addr[lane];
        if (a < sh || size > shn || a - sh > shn - size)
            continue; /* not shared (generic), or memcheck's business */
        uint32_t off = (uint32_t)(a - sh);
        race_lane ln = {epoch, warp, warp * ZN_WARP_SIZE + lane, off, write, where, false};
        if ((off & 3) == 0 && (size & 3) == 0) {
            for (uint32_t k = off; k < off + size; k += 4) {
                ln.off = k;
                if (s->bytemode[k / 4] != s->bgen)
                    touch(&s->words[k / 4], &ln, &hit);
                else
                    for (uint32_t j = k; j < k + 4; j++)
                        touch(&s->bytes[j], &ln, &hit);
            }
            continue;
        }
        for (uint32_t k = off; k < off + size; k++) {
            uint32_t wi = k / 4;
            if (s->bytemode[wi] != s->bgen) { /* the word goes per byte */
                for (uint32_t j = 0; j < 4; j++)
                    s->bytes[wi * 4 + j] = s->words[wi];
                s->bytemode[wi] = s->bgen;
            }
            ln.off = k;
            touch(&s->bytes[k], &ln, &hit);
        }
    }
    if (hit.lanes)
        report(w, &hit);
}

/* ---- distributed shared memory of a cluster ---- */

typedef struct dsm_cell {
    const char *wwhere, *rwhere;
    uint64_t wkey, rkey;        /* 0: never */
    uint16_t wtid, rtid;
    uint16_t rranks;            /* ranks that read under rkey */
    uint8_t wrank, rrank;
} dsm_cell;

struct zn_race_cluster {
    pthread_mutex_t m;
    unsigned csize;
    size_t bytes;               /* per window */
    dsm_cell *cells;            /* [csize * bytes] */
};

void zn_race_cluster_free(struct zn_race_cluster *c)
{
    if (!c)
        return;
    pthread_mutex_destroy(&c->m);
    free(c->cells);
    free(c);
}

static struct zn_race_cluster *cluster_shadow(const zn_cluster_pos *p, size_t bytes)
{
    struct zn_race_cluster *c = atomic_load_explicit(p->shadow, memory_order_acquire);
    if (c)
        return c->bytes == bytes ? c : NULL;
    pthread_mutex_lock(&race.lock);     /* the team's ranks race to make it */
    c = atomic_load_explicit(p->shadow, memory_order_acquire);
    if (!c && (c = calloc(1, sizeof *c)) != NULL) {
        c->cells = calloc((size_t)p->csize * bytes, sizeof *c->cells);
        if (!c->cells) {
            free(c);
            c = NULL;
        } else {
            pthread_mutex_init(&c->m, NULL);
            c->csize = p->csize;
            c->bytes = bytes;
            atomic_store_explicit(p->shadow, c, memory_order_release);
        }
    }
    pthread_mutex_unlock(&race.lock);
    return c && c->bytes == bytes ? c : NULL;
}

typedef struct dsm_hit {
    race_pair p;
    uint32_t ta, tb, off;
    unsigned ra, window, lanes;
} dsm_hit;

static void report_dsm(zn_warp_ctx *w, const dsm_hit *h, unsigned rank)
{
    atomic_fetch_add(&race.hazards, h->lanes);
    if (!pair_first(&h->p, true))
        return;

    const zn_block_ctx *b = w->block;
    race_text t;
    race_text_fill(&t, b, &h->p, h->ta, h->tb);
    zn_check_print("========= Race reported between %s access at %s\n"
                   "=========     and %s access at %s [%u hazard%s]\n"
                   "=========     threads (%u,%u,%u) of cluster rank %u and (%u,%u,%u) of "
                   "cluster rank %u (block (%u,%u,%u)), distributed shared memory of "
                   "cluster rank %u, offset %d\n"
                   "=========\n",
                   kind_name(h->p.ka), t.wa, kind_name(h->p.kb), t.wb, h->lanes,
                   h->lanes == 1 ? "" : "s", t.xa[0], t.xa[1], t.xa[2], h->ra, t.xb[0],
                   t.xb[1], t.xb[2], rank, b->ctaid[0], b->ctaid[1], b->ctaid[2], h->window,
                   user_off(h->off));
}

/* One byte of a window: a hazard against another rank's access under the
 * same key, then this access recorded. */
static void dsm_touch(dsm_cell *c, uint64_t key, unsigned rank, uint32_t tid, unsigned write,
                      const char *where, uint32_t off, unsigned window, bool *counted,
                      dsm_hit *hit)
{
    race_pair p = {NULL, where, 0, write};
    uint32_t ta = 0;
    unsigned ra = 0;
    bool found = false;
    if (c->wkey == key && c->wrank != rank) {
        p.a = c->wwhere;
        p.ka = 1;
        ta = c->wtid;
        ra = c->wrank;
        found = true;
    } else if (write && c->rkey == key && (c->rranks & ~(1u << rank))) {
        p.a = c->rwhere;
        p.ka = 0;
        ra = c->rrank != rank ? c->rrank : (unsigned)__builtin_ctz(c->rranks & ~(1u << rank));
        ta = c->rrank != rank ? c->rtid : 0;
        found = true;
    }
    if (found && !*counted) {
        if (hit->lanes == 0)
            *hit = (dsm_hit){p, ta, tid, off, ra, window, 0};
        if (p.a == hit->p.a && p.ka == hit->p.ka)
            hit->lanes++;
        *counted = true;
    }
    if (write) {
        c->wkey = key;
        c->wrank = (uint8_t)rank;
        c->wtid = (uint16_t)tid;
        c->wwhere = where;
    } else {
        if (c->rkey != key) {
            c->rkey = key;
            c->rranks = 0;
        }
        c->rranks |= (uint16_t)(1u << rank);
        c->rrank = (uint8_t)rank;
        c->rtid = (uint16_t)tid;
        c->rwhere = where;
    }
}

/* The warp's access against the cluster's windows (a cluster launch). */
static void dsm_access(zn_warp_ctx *w, const uint64_t *addr, uint32_t mask, unsigned size,
                       unsigned write, const char *where)
{
    const zn_block_ctx *b = w->block;
    zn_cluster_pos pos;
    if (!b->cluster || !zn_cluster_race_pos(b->exec, &pos))
        return;
    size_t n = b->shared_size;
    struct zn_race_cluster *c = cluster_shadow(&pos, n);
    if (!c)
        return;
    dsm_hit hit = {.lanes = 0};
    pthread_mutex_lock(&c->m);
    for (uint32_t m = mask; m; m &= m - 1) {
        unsigned lane = (unsigned)__builtin_ctz(m);
        uintptr_t a = (uintptr_t)addr[lane];
        for (unsigned r = 0; r < pos.csize; r++) {
            uintptr_t wb = (uintptr_t)pos.windows[r];
            if (!wb || a < wb || size > n || a - wb > n - size)
                continue;
            uint32_t off = (uint32_t)(a - wb), tid = w->warpid * ZN_WARP_SIZE + lane;
            bool counted = false;
            for (uint32_t k = off; k < off + size; k++)
                dsm_touch(&c->cells[r * n + k], pos.key, pos.rank, tid, write, where, k, r,
                          &counted, &hit);
            break;
        }
    }
    pthread_mutex_unlock(&c->m);
    if (hit.lanes)
        report_dsm(w, &hit, pos.rank);
}

void zn_race_at_exit(void)
{
    pthread_mutex_lock(&race.lock);
    fprintf(stderr, "========= RACECHECK SUMMARY: %zu hazard%s displayed (%zu error%s, "
            "0 warnings); %" PRIu64 " conflicting accesses\n",
            race.npairs, race.npairs == 1 ? "" : "s", race.npairs, race.npairs == 1 ? "" : "s",
            (uint64_t)atomic_load(&race.hazards));
    free(race.pairs);
    race.pairs = NULL;
    race.npairs = race.cap = 0;
    pthread_mutex_unlock(&race.lock);
    for (unsigned i = 0; i < RACE_MAX_WORKERS; i++) {
        race_shadow *s = atomic_exchange(&race.shadow[i], NULL);
        if (s) {
            free(s->words);
            free(s->bytes);
            free(s->bytemode);
            free(s);
        }
    }
}
