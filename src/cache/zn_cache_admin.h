/* zn_cache_admin.h: looking after the cache folder as a whole, for
 * `zinc cache stats` and `zinc cache prune` (zn_cache_admin.c). Kept out of
 * zn_cache.h, which is part of the compiler's build id. */
#ifndef ZN_CACHE_ADMIN_H
#define ZN_CACHE_ADMIN_H

#include <stdint.h>

typedef struct zn_cache_usage {
    uint64_t entries, bytes, max_bytes;
    uint64_t largest;           /* bytes of the largest entry */
    int64_t oldest, newest;     /* last use (mtime, s since the epoch); 0: none */
    uint64_t temps;             /* .tmp-* files: writers at work, or dead */
    uint64_t others;            /* files in kernels/ that are not entries */
} zn_cache_usage;

/* Scans <cache>/kernels without changing anything; 0, or -1 if there is
 * no folder (u is zero but for max_bytes). */
int zn_cache_usage_get(zn_cache_usage *u);

typedef struct zn_cache_prune_opts {
    uint64_t max_bytes;         /* evict least recently used beyond this */
    int64_t max_age_s;          /* > 0: also remove entries unused this long */
    int verify;                 /* read every entry, remove damaged ones */
} zn_cache_prune_opts;

typedef struct zn_cache_prune_result {
    uint64_t aged, damaged, evicted, temps; /* entries removed, by reason */
    uint64_t bytes_freed;
} zn_cache_prune_result;

/* Verifies (if asked), removes entries older than max_age_s and stale temp
 * files, then evicts down to max_bytes. Safe against other processes using
 * the cache (a file already gone is skipped). 0, or -1 without a folder. */
int zn_cache_prune(const zn_cache_prune_opts *o, zn_cache_prune_result *r);

#endif
