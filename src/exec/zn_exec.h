/* zn_exec.h: the CPU device model: device memory, the worker pool, launches.
 *
 * The executor knows the kernel ABI (zn_kernel_abi.h) and nothing of PTX or
 * of the driver API. Device memory is host memory inside one reserved
 * virtual range, so device pointers are plain host pointers and finding the
 * allocation that holds an address is a lookup.
 */
#ifndef ZN_EXEC_H
#define ZN_EXEC_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include "zn_kernel_abi.h"

/* Starts the worker pool (nthreads 0 = ZINC_THREADS or one per core) and
 * reserves the device range. Idempotent; 0 on success. */
int zn_exec_init(unsigned nthreads);
unsigned zn_exec_threads(void);

/* ---- device memory ---- */
typedef enum zn_mem_kind {
    ZN_MEM_DEVICE = 1,      /* cuMemAlloc */
    ZN_MEM_HOST = 2,        /* cuMemHostAlloc / cuMemAllocHost (pinned) */
    ZN_MEM_MANAGED = 3,     /* cuMemAllocManaged */
    ZN_MEM_MODULE = 4       /* a module's .global/.const variables */
} zn_mem_kind;

/* Zeroed? No: contents are undefined as on a GPU (fresh pages read 0).
 * Returns NULL when out of memory. align: 0 = 256. */
void *zn_mem_alloc(size_t size, size_t align, zn_mem_kind kind);
/* 0 on success, -1 if p is not the start of a live allocation. */
int zn_mem_free(void *p);
/* Finds the live allocation containing p: 0 and its base/size/kind, or -1. */
int zn_mem_lookup(const void *p, void **base, size_t *size, zn_mem_kind *kind);
/* Bytes in use and the device's total (reported) memory. */
void zn_mem_info(size_t *used, size_t *total);

/* ---- launches ---- */
typedef struct zn_launch {
    zn_kernel_fn fn;
    uint32_t grid[3];
    uint32_t block[3];
    uint32_t static_shared;
    uint32_t dyn_shared;
    uint32_t stack_bytes;       /* per warp; 0 = default */
    int uses_barrier;
    const void *params;         /* packed parameter buffer (copied by caller
                                 * if it must outlive the call) */
} zn_launch;

/* Returned by zn_exec_launch (never by a kernel) for a launch it refuses:
 * no function, a zero dimension, more than 1024 threads per block. */
#define ZN_KSTATUS_INVALID_LAUNCH 64

/* Runs the whole grid and returns when it has finished: ZN_KSTATUS_OK or
 * the first error status a warp returned. */
int zn_exec_launch(const zn_launch *l);

#endif
