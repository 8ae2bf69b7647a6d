/* zn_drv_range.c: what cuMemAdvise and the prefetches recorded about
 * managed memory, and cuMemRangeGetAttribute(s) reading it back.
 *
 * Managed memory is host memory, so advice moves nothing; it is kept per
 * 4 KiB page of each managed allocation that got any (read-mostly,
 * preferred location, which places set accessed-by, the last location a
 * prefetch asked for), so that range queries answer as CUDA defines them:
 * a value holds for the range only when every page in it has it.
 */
#include "zn_drv.h"
#include "../exec/zn_exec.h"

#include <stdlib.h>
#include <string.h>

enum {
    PAGE = 4096,
    LOC_INVALID = 0, LOC_DEVICE = 1, LOC_HOST = 2, LOC_HOST_NUMA = 3, LOC_HOST_NUMA_CURRENT = 4,
    ADV_SET_READ_MOSTLY = 1, ADV_UNSET_READ_MOSTLY, ADV_SET_PREFERRED, ADV_UNSET_PREFERRED,
    ADV_SET_ACCESSED_BY, ADV_UNSET_ACCESSED_BY,
    ATTR_READ_MOSTLY = 1, ATTR_PREFERRED_LOCATION, ATTR_ACCESSED_BY, ATTR_LAST_PREFETCH,
    ATTR_PREFERRED_TYPE, ATTR_PREFERRED_ID, ATTR_LAST_PREFETCH_TYPE, ATTR_LAST_PREFETCH_ID,
    DEVICE_CPU = -1, DEVICE_INVALID = -2,
    ACC_DEVICE0 = 1, ACC_HOST = 2
};

typedef struct page_state {
    uint8_t read_mostly;
    uint8_t acc;                /* ACC_* bits */
    CUmemLocation pref;         /* type LOC_INVALID: none */
    CUmemLocation prefetch;     /* type LOC_INVALID: never prefetched */
} page_state;

typedef struct mrange {
    char *base;
    size_t size;
    page_state *pg;
    struct mrange *next;
} mrange;

static pthread_mutex_t range_lock = PTHREAD_MUTEX_INITIALIZER;
static mrange *ranges;

/* Device 0, the host, or host NUMA node 0 (the current node is 0 too). */
CUresult zn_range_check_loc(CUmemLocation *loc)
{
    switch (loc->type) {
    case LOC_DEVICE:
        return loc->id == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
    case LOC_HOST:
        loc->id = 0;
        return CUDA_SUCCESS;
    case LOC_HOST_NUMA:
        return loc->id == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
    case LOC_HOST_NUMA_CURRENT:
        *loc = (CUmemLocation){ LOC_HOST_NUMA, 0 };
        return CUDA_SUCCESS;
    default:
        return CUDA_ERROR_INVALID_VALUE;
    }
}

/* The managed allocation holding [p, p+n), its page states made on first
 * use (under range_lock); NULL with *why set otherwise. Module variables
 * count as managed: __managed__ ones live there (which of a module's
 * variables are managed is not known from the address). */
static mrange *range_of(CUdeviceptr p, size_t n, bool make, CUresult *why)
{
    void *base;
    size_t size;
    zn_mem_kind kind;
    *why = CUDA_ERROR_INVALID_VALUE;
    if (!p || !n || zn_mem_lookup((void *)(uintptr_t)p, &base, &size, &kind) != 0 ||
        (kind != ZN_MEM_MANAGED && kind != ZN_MEM_MODULE) || p - (uintptr_t)base + n > size)
        return NULL;
    *why = CUDA_SUCCESS;
    for (mrange *m = ranges; m; m = m->next)
        if (m->base == base)
            return m;
    if (!make)
        return NULL;    /* no advice yet: every page at its default */
    mrange *m = calloc(1, sizeof *m);
    page_state *pg = m ? calloc((size + PAGE - 1) / PAGE, sizeof *pg) : NULL;
    if (!pg) {
        free(m);
        *why = CUDA_ERROR_OUT_OF_MEMORY;
        return NULL;
    }
    *m = (mrange){ base, size, pg, ranges };
    ranges = m;
    return m;
}

static void page_span(const mrange *m, CUdeviceptr p, size_t n, size_t *first, size_t *end)
{
    size_t off = (size_t)(p - (uintptr_t)m->base);
    *first = off / PAGE;
    *end = (off + n - 1) / PAGE + 1;
}

CUresult zn_range_advise(CUdeviceptr p, size_t n, int advice, CUmemLocation loc)
{
    if (advice < ADV_SET_READ_MOSTLY || advice > ADV_UNSET_ACCESSED_BY)
        return CUDA_ERROR_INVALID_VALUE;
    bool uses_loc = advice == ADV_SET_PREFERRED || advice == ADV_SET_ACCESSED_BY ||
                    advice == ADV_UNSET_ACCESSED_BY;
    if (uses_loc) {
        CUresult r = zn_range_check_loc(&loc);
        if (r != CUDA_SUCCESS)
            return r;
    }
    CUresult r;
    pthread_mutex_lock(&range_lock);
    mrange *m = range_of(p, n, true, &r);
    if (m) {
        size_t a, b;
        page_span(m, p, n, &a, &b);
        uint8_t bit = loc.type == LOC_DEVICE ? ACC_DEVICE0 : ACC_HOST;
        for (size_t i = a; i < b; i++) {
            page_state *s = &m->pg[i];
            switch (advice) {
            case ADV_SET_READ_MOSTLY: s->read_mostly = 1; break;
            case ADV_UNSET_READ_MOSTLY: s->read_mostly = 0; break;
            case ADV_SET_PREFERRED: s->pref = loc; break;
            case ADV_UNSET_PREFERRED: s->pref = (CUmemLocation){ 0 }; break;
            case ADV_SET_ACCESSED_BY: s->acc |= bit; break;
            default: s->acc &= (uint8_t)~bit; break;
            }
        }
    }
    pthread_mutex_unlock(&range_lock);
    return r;
}

CUresult zn_range_prefetched(CUdeviceptr p, size_t n, CUmemLocation loc)
{
    CUresult r = zn_range_check_loc(&loc);
    if (r != CUDA_SUCCESS)
        return r;
    pthread_mutex_lock(&range_lock);
    mrange *m = range_of(p, n, true, &r);
    if (m) {
        size_t a, b;
        page_span(m, p, n, &a, &b);
        for (size_t i = a; i < b; i++)
            m->pg[i].prefetch = loc;
    }
    pthread_mutex_unlock(&range_lock);
    return r;
}

void zn_range_forget(void *base)
{
    pthread_mutex_lock(&range_lock);
    for (mrange **pp = &ranges; *pp; pp = &(*pp)->next) {
        if ((*pp)->base == base) {
            mrange *m = *pp;
            *pp = m->next;
            free(m->pg);
            free(m);
            break;
        }
    }
    pthread_mutex_unlock(&range_lock);
}

/* ---- queries ---- */

/* The location all pages share (pref or prefetch), else type invalid. */
static CUmemLocation common_loc(const mrange *m, size_t a, size_t b, bool pref)
{
    if (!m)
        return (CUmemLocation){ 0 };
    CUmemLocation l = pref ? m->pg[a].pref : m->pg[a].prefetch;
    for (size_t i = a + 1; i < b && l.type; i++) {
        CUmemLocation x = pref ? m->pg[i].pref : m->pg[i].prefetch;
        if (x.type != l.type || x.id != l.id)
            l = (CUmemLocation){ 0 };
    }
    return l;
}

/* CUDA's device-id view of a location: 0, CU_DEVICE_CPU, CU_DEVICE_INVALID. */
static int loc_device(CUmemLocation l)
{
    return l.type == LOC_DEVICE ? l.id : l.type == LOC_HOST ? DEVICE_CPU : DEVICE_INVALID;
}

static CUresult query(void *data, size_t size, int attr, const mrange *m, size_t a, size_t b)
{
    if (!data)
        return CUDA_ERROR_INVALID_VALUE;
    if (attr == ATTR_ACCESSED_BY) {
        if (size == 0 || size % 4)
            return CUDA_ERROR_INVALID_VALUE;
        uint8_t all = m ? 0xff : 0;
        for (size_t i = a; m && i < b; i++)
            all &= m->pg[i].acc;
        int *out = data;
        size_t k = 0, cap = size / 4;
        if ((all & ACC_DEVICE0) && k < cap)
            out[k++] = 0;
        if ((all & ACC_HOST) && k < cap)
            out[k++] = DEVICE_CPU;
        while (k < cap)
            out[k++] = DEVICE_INVALID;
        return CUDA_SUCCESS;
    }
    if (size != 4)  /* every other attribute is 32 bits (CUmemLocationType is an enum) */
        return CUDA_ERROR_INVALID_VALUE;
    int v;
    CUmemLocation l;
    switch (attr) {
    case ATTR_READ_MOSTLY:
        v = m != NULL;
        for (size_t i = a; m && i < b; i++)
            v &= m->pg[i].read_mostly;
        break;
    case ATTR_PREFERRED_LOCATION:
    case ATTR_LAST_PREFETCH:
        v = loc_device(common_loc(m, a, b, attr == ATTR_PREFERRED_LOCATION));
        break;
    case ATTR_PREFERRED_TYPE:
    case ATTR_LAST_PREFETCH_TYPE:
        v = common_loc(m, a, b, attr == ATTR_PREFERRED_TYPE).type;
        break;
    case ATTR_PREFERRED_ID:
    case ATTR_LAST_PREFETCH_ID:
        l = common_loc(m, a, b, attr == ATTR_PREFERRED_ID);
        v = l.type == LOC_DEVICE || l.type == LOC_HOST_NUMA ? l.id : DEVICE_INVALID;
        break;
    default:
        return CUDA_ERROR_INVALID_VALUE;
    }
    memcpy(data, &v, 4);
    return CUDA_SUCCESS;
}

static CUresult range_attrs(void **data, size_t *sizes, const int *attrs, size_t nattrs,
                            CUdeviceptr p, size_t n)
{
    zn_ctx *c;
    CUresult r = zn_ctx_enter(&c);
    if (r != CUDA_SUCCESS)
        return r;
    if (!data || !sizes || !attrs || nattrs == 0)
        return CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&range_lock);
    mrange *m = range_of(p, n, false, &r);
    size_t a = 0, b = 0;
    if (m)
        page_span(m, p, n, &a, &b);
    for (size_t i = 0; i < nattrs && r == CUDA_SUCCESS; i++)
        r = query(data[i], sizes[i], attrs[i], m, a, b);
    pthread_mutex_unlock(&range_lock);
    return r;
}

CUresult cuMemRangeGetAttribute(void *data, size_t size, int attr, CUdeviceptr p, size_t n)
{
    ZN_RET(range_attrs(&data, &size, &attr, 1, p, n));
}

CUresult cuMemRangeGetAttributes(void **data, size_t *sizes, int *attrs, size_t nattrs,
                                 CUdeviceptr p, size_t n)
{
    ZN_RET(range_attrs(data, sizes, attrs, nattrs, p, n));
}
