/* zn_drv_entry.c: cuGetProcAddress, answered from one table.
 *
 * The table is zn_drv_api_list.h (implemented rows) plus the stubs of
 * zn_drv_unimpl.c. A request (name, cudaVersion, flags) gets the newest row
 * of `name` whose ABI version <= cudaVersion; with the per-thread flag the
 * _ptds/_ptsz row of that version when there is one.
 */
#include "zn_drv.h"
#include "../util/zn_log.h"

#include <stdlib.h>
#include <string.h>

static const zn_api_entry impl_rows[] = {
#define E(name, version, pt, sym) { #name, version, pt, (void *)sym },
#include "zn_drv_api_list.h"
};

static zn_api_entry *rows;      /* implemented + stubs, sorted by name */
static size_t nrows;
static pthread_once_t rows_once = PTHREAD_ONCE_INIT;

static int row_cmp(const void *a, const void *b)
{
    const zn_api_entry *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    if (c)
        return c;
    if (x->version != y->version)
        return x->version < y->version ? -1 : 1;
    return x->per_thread - y->per_thread;
}

static void rows_build(void)
{
    size_t ni = sizeof impl_rows / sizeof impl_rows[0];
    nrows = ni + zn_api_unimpl_count;
    rows = malloc(nrows * sizeof *rows);
    if (!rows)
        zn_die("out of memory building the proc-address table");
    memcpy(rows, impl_rows, sizeof impl_rows);
    memcpy(rows + ni, zn_api_unimpl, zn_api_unimpl_count * sizeof *rows);
    qsort(rows, nrows, sizeof *rows, row_cmp);
}

/* First row named `name` (binary search), or NULL. */
static const zn_api_entry *rows_find(const char *name)
{
    size_t lo = 0, hi = nrows;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (strcmp(rows[mid].name, name) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < nrows && !strcmp(rows[lo].name, name) ? &rows[lo] : NULL;
}

/* The lookup rule; *status gets a CUdriverProcAddressQueryResult. */
static void *proc_lookup(const char *name, int version, int per_thread, int *status)
{
    pthread_once(&rows_once, rows_build);
    const zn_api_entry *r = rows_find(name);
    if (!r) {
        *status = ZN_CU_PROC_SYMBOL_NOT_FOUND;
        return NULL;
    }
    /* newest plain row and newest per-thread row not newer than version */
    const zn_api_entry *end = rows + nrows, *plain = NULL, *pt = NULL;
    for (; r < end && !strcmp(r->name, name) && r->version <= version; r++) {
        if (r->per_thread)
            pt = r;
        else
            plain = r;
    }
    const zn_api_entry *best = plain;
    if (per_thread && pt && (!plain || pt->version >= plain->version))
        best = pt;
    if (!best) {
        /* older than the oldest ABI version: NVIDIA's driver hands out the
         * oldest one, with CU_GET_PROC_ADDRESS_SUCCESS (measured on an H200) */
        const zn_api_entry *first = rows_find(name);
        if (first && !first->per_thread) {
            *status = ZN_CU_PROC_SUCCESS;
            return first->fn;
        }
        *status = ZN_CU_PROC_VERSION_NOT_SUFFICIENT;
        return NULL;
    }
    *status = ZN_CU_PROC_SUCCESS;
    return best->fn;
}

static CUresult get_proc(const char *symbol, void **pfn, int version, uint64_t flags,
                         int *symbol_status)
{
    int status;
    if (!pfn || !symbol || (flags & ~(uint64_t)ZN_CU_GET_PROC_ADDRESS_FLAGS_MASK))
        return CUDA_ERROR_INVALID_VALUE;
    void *fn = proc_lookup(symbol, version,
                           (flags & ZN_CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) != 0,
                           &status);
    *pfn = fn;
    if (symbol_status)
        *symbol_status = status;
    if (zn_log_level() >= ZN_LOG_DEBUG)
        zn_log(ZN_LOG_DEBUG, "cuGetProcAddress(%s, %d, %llu) -> %s", symbol, version,
               (unsigned long long)flags, fn ? "found" : "not found");
    /* NVIDIA's driver succeeds with a NULL pointer for a name it does not
     * know; *symbol_status says why */
    return CUDA_SUCCESS;
}

CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int cudaVersion,
                             uint64_t flags, int *symbolStatus)
{
    return get_proc(symbol, pfn, cudaVersion, flags, symbolStatus);
}

CUresult cuGetProcAddress(const char *symbol, void **pfn, int cudaVersion, uint64_t flags)
{
    return get_proc(symbol, pfn, cudaVersion, flags, NULL);
}
