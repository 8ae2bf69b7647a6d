/* zn_cache.h: the on-disk kernel cache: compiled objects keyed by content.
 *
 * Knows nothing of PTX or LLVM: a key is a 32-byte BLAKE2b digest the
 * compiler computes (PTX text, compiler version and build, options, target
 * CPU and features), a payload is opaque bytes (an object file). Follows
 * NVIDIA's environment: CUDA_CACHE_PATH (default $XDG_CACHE_HOME/zinc or
 * ~/.cache/zinc), CUDA_CACHE_DISABLE=1, CUDA_CACHE_MAXSIZE (bytes, default
 * 1 GiB). Entry format and policies: docs/cache.md.
 */
#ifndef ZN_CACHE_H
#define ZN_CACHE_H

#include <stddef.h>
#include <stdint.h>

/* ---- hashing (zn_blake2b.c) ---------------------------------------------- */

typedef struct zn_blake2b {
    uint64_t h[8], t[2];
    uint8_t buf[128];
    unsigned buflen, outlen;
} zn_blake2b;

void zn_blake2b_init(zn_blake2b *s, unsigned outlen); /* 1..64, 0 = 32 */
void zn_blake2b_update(zn_blake2b *s, const void *data, size_t n);
void zn_blake2b_final(zn_blake2b *s, uint8_t *out);   /* outlen bytes */
void zn_hash256(const void *data, size_t n, uint8_t out[32]);
/* n bytes as 2n lowercase hex digits plus a NUL. */
void zn_hex(const uint8_t *b, size_t n, char *out);

/* ---- identity of this build's compiler (zn_build_id.c) ------------------- */

/* ZINC_COMPILER_VERSION: bumped by hand when generated code changes. */
#define ZINC_COMPILER_VERSION "zinc-compiler-1"
/* Hex digest of the compiler's own sources (ptx/, compile/, the kernel
 * ABI), computed at build time: a rebuilt compiler never reads objects of
 * another one. */
const char *zn_build_id(void);

/* ---- configuration from the environment (zn_cache_config.c) -------------- */

typedef struct zn_cache_key {
    uint8_t b[32];
} zn_cache_key;

int zn_cache_enabled(void);            /* not CUDA_CACHE_DISABLE=1 */
/* The cache folder (no trailing slash) into buf; 0, or -1 if none. */
int zn_cache_dir(char *buf, size_t n);
uint64_t zn_cache_max_size(void);      /* CUDA_CACHE_MAXSIZE or 1 GiB */

/* ---- entries (zn_cache_store.c) ------------------------------------------ */

/* The payload stored under key, malloc'd, or NULL (absent, disabled, or
 * damaged: a damaged entry is removed). A hit refreshes the entry's time. */
void *zn_cache_get(const zn_cache_key *key, size_t *len);
/* Stores a payload (atomically: temp file + rename), then evicts least
 * recently used entries beyond the maximum size. 0, or -1 (not stored). */
int zn_cache_put(const zn_cache_key *key, const void *data, size_t len);

/* What this process's gets found: hits, misses, damaged entries removed. */
typedef struct zn_cache_counts {
    uint64_t hits, misses, damaged, stores;
} zn_cache_counts;
void zn_cache_get_counts(zn_cache_counts *c);

/* ---- the whole cache (zn_cache_evict.c) ---------------------------------- */

typedef struct zn_cache_stats {
    uint64_t entries, bytes, max_bytes;
} zn_cache_stats;

/* Removes the oldest entries until at most max bytes remain (and stale
 * temp files); returns the number removed. */
int zn_cache_evict(uint64_t max);
int zn_cache_stat(zn_cache_stats *st);
/* Removes every entry; returns how many. */
int zn_cache_clear(void);

#endif
