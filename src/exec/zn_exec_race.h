/* zn_exec_race.h: ZINC_CHECK=racecheck (zn_exec_race.c), and the report
 * helpers it shares with memcheck (zn_exec_check.c). */
#ifndef ZN_EXEC_RACE_H
#define ZN_EXEC_RACE_H

#include "zn_exec_internal.h"
#include <stdbool.h>

/* Set once by zn_check_mode's initialisation when ZINC_CHECK names
 * racecheck; read (relaxed) by the hot paths below before anything else. */
extern _Atomic bool zn_race_enabled;

/* zn_race_barrier (a barrier's new epoch) is declared in
 * zn_exec_internal.h: the barrier release there calls it. */
/* One warp's access (zn_rt_ops.memcheck's arguments): shared accesses are
 * recorded in the worker's shadow and conflicts with other warps' accesses
 * since the last barrier reported. Never stops the warp. */
void zn_race_access(zn_warp_ctx *w, const uint64_t *addr, uint32_t mask, uint32_t info,
                    const char *where);
/* The summary line at exit; frees the shadows. */
void zn_race_at_exit(void);

/* Thread block clusters: racecheck's shadow of every shared window of a
 * cluster (distributed shared memory), one per team (zn_exec_cluster.c),
 * made at the first access and freed with the launch. */
struct zn_race_cluster;
typedef struct zn_cluster_pos {
    _Atomic(struct zn_race_cluster *) *shadow;
    uint8_t *const *windows;    /* by rank */
    unsigned rank, csize;
    uint64_t key;               /* cluster and barrier phase now */
} zn_cluster_pos;
/* Where the block on run's worker stands in its cluster; false outside a
 * cluster launch (zn_exec_cluster.c). */
bool zn_cluster_race_pos(const zn_block_run *run, zn_cluster_pos *p);
void zn_race_cluster_free(struct zn_race_cluster *c);

/* memcheck's helpers (zn_exec_check.c): "name (PTX line N) in file:line"
 * with the name demangled; fprintf to stderr under the report lock. */
void zn_check_where(char *buf, size_t len, const char *where);
void zn_check_print(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
