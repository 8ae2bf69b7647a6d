/* zn_trace_proc.c: cuGetProcAddress answers. The target's pointer is
 * swapped for the wrapper of the same function. At start, each row's symbol
 * is looked up in the target (dlsym), and each (name, ABI version,
 * per-thread) of the driver's entry list (driver/zn_drv_api_list.h) is asked
 * of the target's own cuGetProcAddress, so "the target's pointer p is row i"
 * is exact whatever version rule the target applies, and also for a driver
 * whose answers are not its exported symbols. A pointer that is no row's
 * (a function without a signature here) gets a generic trampoline that logs
 * it by the name it was asked for. */
#include "zn_trace.h"

#include <string.h>

static zn_tr_map *by_real;      /* target fn -> our wrapper */

typedef struct api_row { const char *name; int version, per_thread; const char *symbol; } api_row;

static const api_row api_rows[] = {
#define E(name, version, pt, sym) { #name, version, pt, #sym },
#include "driver/zn_drv_api_list.h"
};

static int sig_index(const char *symbol)
{
    for (int i = 0; i < ZN_TS_COUNT; i++)
        if (!strcmp(zn_tr_sigs[i].name, symbol))
            return i;
    return -1;
}

void zn_tr_proc_init(void)
{
    by_real = zn_tr_map_new();
    for (int i = 0; i < ZN_TS_COUNT; i++)
        if (zn_tr_real[i])
            zn_tr_map_put(by_real, (uint64_t)(uintptr_t)zn_tr_real[i], zn_tr_sigs[i].wrapper);
    zn_tr_real_cuGetProcAddress_v2_fn proc = ZN_TR_REAL(cuGetProcAddress_v2);
    if (!proc)
        return;
    for (size_t r = 0; r < sizeof api_rows / sizeof api_rows[0]; r++) {
        const api_row *row = &api_rows[r];
        int i = sig_index(row->symbol);
        void *fn = NULL;
        if (i < 0 || proc(row->name, &fn, row->version, row->per_thread ? 2 : 0, NULL) != 0 ||
            !fn || zn_tr_wrapper_of(fn))
            continue;
        zn_tr_map_put(by_real, (uint64_t)(uintptr_t)fn, zn_tr_sigs[i].wrapper);
    }
}

void *zn_tr_wrapper_of(void *fn)
{
    return zn_tr_map_get(by_real, (uint64_t)(uintptr_t)fn);
}

/* cuGetProcAddress(symbol, void **pfn, version, flags[, status]) */
void zn_tr_proc_hook(zn_tr_frame *f)
{
    void **pfn = (void **)(uintptr_t)f->av[1];
    const char *name = (const char *)(uintptr_t)f->av[0];
    if (f->result != 0 || !pfn || !*pfn || !name)
        return;
    void *w = zn_tr_wrapper_of(*pfn);
    *pfn = w ? w : zn_tr_tramp(name, *pfn, 6);
}
