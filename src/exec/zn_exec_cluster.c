/* zn_exec_cluster.c: thread block clusters (sm_90).
 *
 * The blocks of a cluster must all be running at once: barrier.cluster
 * waits for every block of the cluster, and a block reads and writes its
 * peers' shared memory (distributed shared memory, mapa). The pool's
 * hand-out runs a worker's blocks one after another, so a cluster launch
 * runs like a small cooperative one (zn_exec_coop.c): teams of one thread
 * per rank. Team t runs clusters t, t + T, t + 2T, ... (T teams, about one
 * CPU per block: pool threads / cluster size, at least one); rank r of a
 * team runs block r of each of them. Each rank is a thread of the gang
 * (zn_exec_gang.c: kept across launches, so a launch pays no thread
 * creation) with its own worker and shared buffer, whose window stays put
 * for the whole launch, so the team's table of windows (zn_cluster_ctx,
 * what compiled mapa reads) is filled once before any block runs. The ranks of a team start each
 * cluster together (team_sync), so a block never sees a peer that
 * still runs the previous cluster.
 *
 * The cluster barrier: a warp's arrival is counted in its block (warps of
 * a block share one thread, no atomics); when every warp of the block has
 * arrived or exited, the block arrives at the team (under the team's
 * mutex), and the last block completes the phase (an atomic counter the
 * waiters poll). A waiting warp lets the block's other warps run and
 * otherwise yields its CPU. A block that has exited counts as arrived for
 * the rest of its cluster. Ordinary launches never come here: they pay
 * nothing for clusters.
 */
#define _GNU_SOURCE
#include "zn_exec_internal.h"
#include "zn_exec_race.h"
#include "util/zn_log.h"

#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

typedef struct zn_cluster_rank {
    zn_worker *wk;                  /* the gang thread's */
    struct zn_cluster_team *team;
    unsigned rank;
    /* the block this rank runs now; only its own thread touches these */
    uint64_t local_phase;           /* the phase its arrivals count for */
    uint32_t arrived_mask;          /* warps arrived in local_phase */
    uint32_t waiting_mask;          /* warps polling in rank_wait */
    int block_arrived;              /* the block has arrived in local_phase */
    uint64_t warp_phase[ZN_MAX_WARPS]; /* phase each warp's arrival was in */
    uint64_t cluster_index;         /* the cluster it runs now */
    uint64_t race_phase;            /* racecheck: the last phase the block passed */
} zn_cluster_rank;

typedef struct zn_cluster_team {
    zn_cluster_ctx ctx;             /* first: block_setup hands it to compiled code */
    zn_job *job;
    unsigned index, nteams, csize;
    uint64_t nclusters;
    pthread_mutex_t m;
    _Atomic uint64_t phase;         /* completed cluster barriers */
    uint32_t arrived, exited;       /* blocks, under m */
    /* ranks start each cluster together (team_sync): arrivals, generation */
    _Atomic uint32_t sync_count, sync_gen;
    _Atomic(struct zn_race_cluster *) race; /* racecheck's shadow of the windows */
    zn_cluster_rank ranks[ZN_CLUSTER_MAX];
} zn_cluster_team;


/* Under t->m: the phase completes when every block has arrived or exited. */
static void team_check(zn_cluster_team *t)
{
    if (t->arrived > 0 && t->arrived + t->exited >= t->csize) {
        t->arrived = 0;
        atomic_fetch_add_explicit(&t->phase, 1, memory_order_release);
    }
}

/* The block of rank r arrives once all its warps have arrived or exited. */
static void block_try_arrive(zn_cluster_rank *r, const zn_block_run *run)
{
    if (r->block_arrived)
        return;
    uint32_t all = run->nwarps >= 32 ? 0xffffffffu : (1u << run->nwarps) - 1;
    uint32_t done = run->job->on_fibers ? run->done_mask : 0;
    if ((r->arrived_mask | done) != all)
        return;
    r->block_arrived = 1;
    zn_cluster_team *t = r->team;
    pthread_mutex_lock(&t->m);
    t->arrived++;
    team_check(t);
    pthread_mutex_unlock(&t->m);
}

static void rank_arrive(zn_cluster_rank *r, const zn_block_run *run, uint32_t warp)
{
    uint64_t ph = atomic_load_explicit(&r->team->phase, memory_order_acquire);
    if (r->block_arrived && ph > r->local_phase) {
        /* the block's last phase completed: this arrival opens the next */
        r->local_phase = ph;
        r->arrived_mask = 0;
        r->block_arrived = 0;
    }
    r->arrived_mask |= 1u << warp;
    r->warp_phase[warp] = r->local_phase;
    block_try_arrive(r, run);
}

/* Warps of rank r that can go on: not polling in rank_wait, or polling
 * for a phase that has completed (they have not run since). */
static uint32_t rank_movable(const zn_cluster_rank *r, uint64_t ph)
{
    uint32_t movable = ~r->waiting_mask;
    for (uint32_t m = r->waiting_mask; m; m &= m - 1) {
        unsigned i = (unsigned)__builtin_ctz(m);
        if (r->warp_phase[i] < ph)
            movable |= 1u << i;
    }
    return movable;
}

static int32_t rank_wait(zn_cluster_rank *r, zn_warp_ctx *w, zn_block_run *run)
{
    uint64_t target = r->warp_phase[w->warpid];
    uint32_t bit = 1u << w->warpid;
    int32_t st = ZN_KSTATUS_OK;
    r->waiting_mask |= bit;
    uint64_t ph;
    while ((ph = atomic_load_explicit(&r->team->phase, memory_order_acquire)) <= target) {
        if (atomic_load_explicit(&run->job->status, memory_order_relaxed) != ZN_KSTATUS_OK) {
            st = ZN_KSTATUS_ABORTED;    /* a block failed: the barrier cannot complete */
            break;
        }
        block_try_arrive(r, run);       /* warps may have exited meanwhile */
        /* warps of the block with work to do run first; when all of them
         * wait here, the CPU goes to the peers' threads */
        if (run->job->on_fibers && (run->runnable & ~bit & rank_movable(r, ph)))
            zn_warps_barrier(w, 0, 0, 2);
        else
            sched_yield();
    }
    r->waiting_mask &= ~bit;
    if (st == ZN_KSTATUS_OK && ph > r->race_phase) {
        /* the cluster barrier orders the block's own warps too (a new
         * racecheck epoch, once per phase) */
        r->race_phase = ph;
        zn_race_barrier(run);
    }
    return st;
}

int32_t zn_cluster_barrier(zn_warp_ctx *w, uint32_t mode)
{
    zn_block_run *run = w->block->exec;
    zn_cluster_team *t = run->worker->cluster;
    if (!t) {
        /* no cluster launch: the cluster is this block. The wait is a
         * whole-block barrier (every warp arrives before it waits), on an
         * id of its own so a __syncthreads between arrive and wait stays
         * apart from it. */
        if (mode & 2)
            zn_warps_barrier(w, ZN_MAX_BARRIERS - 1, 0, 0);
        return ZN_KSTATUS_OK;
    }
    zn_cluster_rank *r = &t->ranks[run->worker->cluster_rank];
    if (mode & 1)
        rank_arrive(r, run, w->warpid);
    if (mode & 2)
        return rank_wait(r, w, run);
    return ZN_KSTATUS_OK;
}

/* The block of rank r has finished: it counts as arrived from now on. */
static void rank_exit(zn_cluster_rank *r)
{
    zn_cluster_team *t = r->team;
    pthread_mutex_lock(&t->m);
    uint64_t ph = atomic_load_explicit(&t->phase, memory_order_relaxed);
    if (r->block_arrived && r->local_phase == ph && t->arrived > 0)
        t->arrived--;               /* counted below as exited instead */
    t->exited++;
    if (t->exited == t->csize) {
        /* the cluster is done: clean state for the team's next one */
        t->exited = 0;
        t->arrived = 0;
    } else {
        team_check(t);
    }
    pthread_mutex_unlock(&t->m);
}

/* The team's ranks meet: the last to arrive releases the others. A spin
 * (then yields: ranks may outnumber CPUs) rather than a pthread barrier,
 * whose sleep and wake-up cost about 10 us per cluster. */
static void team_sync(zn_cluster_team *t)
{
    uint32_t gen = atomic_load_explicit(&t->sync_gen, memory_order_acquire);
    if (atomic_fetch_add_explicit(&t->sync_count, 1, memory_order_acq_rel) + 1 == t->csize) {
        atomic_store_explicit(&t->sync_count, 0, memory_order_relaxed);
        atomic_fetch_add_explicit(&t->sync_gen, 1, memory_order_release);
        return;
    }
    for (unsigned i = 0; atomic_load_explicit(&t->sync_gen, memory_order_acquire) == gen; i++) {
        if (i < 256) {
#if defined(__x86_64__)
            __builtin_ia32_pause();
#elif defined(__aarch64__)
            __asm__ volatile("yield");
#endif
        } else {
            sched_yield();
        }
    }
}

/* Linear block index of rank r of cluster c (clusters and ranks x fastest). */
static uint64_t cluster_block(const zn_launch *l, uint64_t c, unsigned r)
{
    uint32_t cd[3], nc[3], ct[3];
    for (int d = 0; d < 3; d++) {
        cd[d] = l->cluster[d] ? l->cluster[d] : 1;
        nc[d] = l->grid[d] / cd[d];
    }
    ct[0] = (uint32_t)(c % nc[0]) * cd[0] + r % cd[0];
    ct[1] = (uint32_t)(c / nc[0] % nc[1]) * cd[1] + r / cd[0] % cd[1];
    ct[2] = (uint32_t)(c / nc[0] / nc[1]) * cd[2] + r / cd[0] / cd[1];
    return ct[0] + (uint64_t)l->grid[0] * (ct[1] + (uint64_t)l->grid[1] * ct[2]);
}

/* Gang thread i is rank i % csize of team i / csize. */
static void rank_main(void *arg, zn_worker *wk, unsigned i)
{
    zn_cluster_team *teams = arg, *t = &teams[i / teams[0].csize];
    zn_cluster_rank *r = &t->ranks[i % t->csize];
    r->wk = wk;
    wk->cluster = t;
    wk->cluster_rank = r->rank;
    zn_job *job = t->job;
    if (zn_block_prepare(job, wk) == 0)
        t->ctx.shared[r->rank] = wk->run.blk.shared;
    team_sync(t);        /* every window is in the table */
    for (uint64_t c = t->index; c < t->nclusters; c += t->nteams) {
        r->local_phase = atomic_load_explicit(&t->phase, memory_order_acquire);
        r->race_phase = r->local_phase;
        r->cluster_index = c;
        r->arrived_mask = 0;
        r->waiting_mask = 0;
        r->block_arrived = 0;
        uint64_t b = cluster_block(job->l, c, r->rank);
        if (atomic_load_explicit(&job->status, memory_order_relaxed) == ZN_KSTATUS_OK)
            zn_block_run_range(job, wk, b, b + 1);
        rank_exit(r);
        team_sync(t);
    }
    wk->cluster = NULL;     /* the thread's next launch may be no cluster's */
}

bool zn_cluster_race_pos(const zn_block_run *run, zn_cluster_pos *p)
{
    zn_cluster_team *t = run->worker ? run->worker->cluster : NULL;
    if (!t)
        return false;
    const zn_cluster_rank *r = &t->ranks[run->worker->cluster_rank];
    p->shadow = &t->race;
    p->windows = (uint8_t *const *)t->ctx.shared;
    p->rank = r->rank;
    p->csize = t->csize;
    /* the cluster and its barrier phase: accesses of different blocks are
     * ordered only across a completed cluster barrier */
    p->key = (r->cluster_index + 1) << 32 |
             (uint32_t)atomic_load_explicit(&t->phase, memory_order_acquire);
    return true;
}

/* ---- the launch ---- */

int zn_exec_launch_cluster(const zn_launch *l)
{
    if (!zn_launch_valid(l))
        return ZN_KSTATUS_INVALID_LAUNCH;
    uint64_t csize = 1;
    for (int i = 0; i < 3; i++) {
        uint32_t cd = l->cluster[i] ? l->cluster[i] : 1;
        if (l->grid[i] % cd != 0)
            return ZN_KSTATUS_INVALID_LAUNCH;
        csize *= cd;
    }
    if (csize > ZN_CLUSTER_MAX)
        return ZN_KSTATUS_INVALID_LAUNCH;
    if (zn_exec_init(0) != 0)
        return ZN_KSTATUS_TRAP;

    static _Atomic uint64_t cluster_seq = (uint64_t)3 << 61; /* apart from pool and coop */
    zn_job job = {.l = l};
    zn_job_setup(&job, l);
    job.seq = atomic_fetch_add(&cluster_seq, 1);
    job.chunk = 1;
    job.grid_ws = NULL;     /* grid.sync() traps, as outside a cooperative launch */

    uint64_t nclusters = job.nblocks / csize;
    unsigned workers = zn_pool_workers();
    uint64_t nteams = workers / csize ? workers / csize : 1;
    if (nteams > nclusters)
        nteams = nclusters;
    zn_cluster_team *teams = calloc(nteams, sizeof *teams);
    if (!teams) {
        zn_log(ZN_LOG_ERROR, "cluster launch: out of memory");
        return ZN_KSTATUS_TRAP;
    }
    uint64_t teams_made = 0;
    for (; teams_made < nteams; teams_made++) {
        zn_cluster_team *t = &teams[teams_made];
        t->job = &job;
        t->index = (unsigned)teams_made;
        t->nteams = (unsigned)nteams;
        t->csize = (unsigned)csize;
        t->nclusters = nclusters;
        atomic_init(&t->phase, 0);
        atomic_init(&t->sync_count, 0);
        atomic_init(&t->sync_gen, 0);
        for (unsigned ri = 0; ri < csize; ri++) {
            t->ranks[ri].team = t;
            t->ranks[ri].rank = ri;
        }
        if (pthread_mutex_init(&t->m, NULL) != 0)
            break;
    }
    /* every rank's thread is had before any block starts */
    if (teams_made < nteams ||
        zn_gang_run((unsigned)(nteams * csize), rank_main, teams) != 0) {
        zn_log(ZN_LOG_ERROR, "cluster launch: no thread for each of %llu blocks",
               (unsigned long long)(nteams * csize));
        zn_job_fail(&job, ZN_KSTATUS_TRAP);
    }
    for (uint64_t ti = 0; ti < teams_made; ti++) {
        pthread_mutex_destroy(&teams[ti].m);
        zn_race_cluster_free(atomic_load(&teams[ti].race));
    }
    free(teams);
    return atomic_load(&job.status);
}
