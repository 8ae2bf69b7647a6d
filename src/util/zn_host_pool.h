/* zn_host_pool.h: the private export table through which Zinc's other
 * libraries (libcublas, libcublasLt) run host work on libcuda's worker
 * pool. They find it with cuGetExportTable, the way NVIDIA's runtime finds
 * libcuda's private entry points; under another libcuda the UUID is
 * refused and they run their work serially. */
#ifndef ZN_HOST_POOL_H
#define ZN_HOST_POOL_H

#include <stdint.h>

/* "zinc-host-pool" plus a version byte */
#define ZN_HOST_POOL_UUID                                                    \
    { 0x7a, 0x69, 0x6e, 0x63, 0x2d, 0x68, 0x6f, 0x73,                       \
      0x74, 0x2d, 0x70, 0x6f, 0x6f, 0x6c, 0x00, 0x01 }

/* Slot 0 holds the table's size in bytes (as NVIDIA's tables do). */
typedef struct zn_host_pool_table {
    uintptr_t size;
    /* threads that run work at once, the caller's included */
    unsigned (*workers)(void);
    /* fn(arg, i) for every i < n on the pool and the calling thread;
     * returns when all have returned */
    void (*parallel)(uint64_t n, void (*fn)(void *arg, uint64_t i), void *arg);
} zn_host_pool_table;

#endif
