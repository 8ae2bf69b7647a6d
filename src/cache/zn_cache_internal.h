/* zn_cache_internal.h: what the cache's files share. */
#ifndef ZN_CACHE_INTERNAL_H
#define ZN_CACHE_INTERNAL_H

#include "zn_cache.h"

/* Entry file: a fixed header, then the payload. All fields little-endian. */
#define ZN_CACHE_MAGIC "ZNKCACHE"
#define ZN_CACHE_FORMAT 1u
enum {
    ZN_CH_MAGIC = 0,        /* 8 bytes */
    ZN_CH_FORMAT = 8,       /* u32 */
    ZN_CH_HDRSIZE = 12,     /* u32 */
    ZN_CH_KEY = 16,         /* 32 bytes */
    ZN_CH_LEN = 48,         /* u64 payload bytes */
    ZN_CH_SUM = 56,         /* 32 bytes: BLAKE2b-256 of the payload */
    ZN_CH_SIZE = 96         /* header size (88..95 reserved, zero) */
};
#define ZN_CACHE_SUFFIX ".zco"
#define ZN_CACHE_TMP_PREFIX ".tmp-"

/* <cache dir>/kernels, created when `create`; 0 or -1. */
int zn_cache_entries_dir(char *buf, size_t n, int create);

#endif
