/* zn_exec_vmm.c: physical allocations mapped into reserved virtual ranges
 * (the executor's side of cuMemCreate / cuMemMap / cuMemSetAccess).
 *
 * A physical allocation is a memfd of its size: mapping it MAP_SHARED |
 * MAP_FIXED at an address inside a reservation (zn_mem_reserve) makes the
 * same pages appear there, as often as it is mapped. A mapping starts
 * inaccessible (PROT_NONE) until access is set, as on a GPU. Unmapping puts
 * plain reserved address space back. The live mappings are an
 * address-sorted array, so zn_mem_lookup finds them like allocations.
 */
#define _GNU_SOURCE /* memfd_create */
#include "zn_exec_internal.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

typedef struct vmm_map {
    uintptr_t base;
    size_t size;
    void *cookie;       /* the caller's handle of the physical allocation */
    int prot;           /* ZN_VMM_PROT_* */
} vmm_map;

static struct {
    pthread_mutex_t lock;
    vmm_map *v;
    size_t n, cap;
} vmm = {.lock = PTHREAD_MUTEX_INITIALIZER};

int zn_vmm_phys_create(size_t size)
{
    int fd = memfd_create("zinc-vmm", MFD_CLOEXEC);
    if (fd < 0)
        return -1;
    if (ftruncate(fd, (off_t)size) != 0) {
        close(fd);
        return -1;
    }
    zn_mem_account((int64_t)size);
    return fd;
}

void zn_vmm_phys_release(int fd, size_t size)
{
    if (fd >= 0) {
        close(fd);      /* pages live on while some mapping holds them */
        zn_mem_account(-(int64_t)size);
    }
}

/* Index of the first mapping whose base is > addr. */
static size_t vmm_upper(uintptr_t a)
{
    size_t lo = 0, hi = vmm.n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (vmm.v[mid].base <= a)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Does [a, a+n) overlap a live mapping? (lock held) */
static bool vmm_overlaps(uintptr_t a, size_t n)
{
    size_t k = vmm_upper(a);
    if (k > 0 && vmm.v[k - 1].base + vmm.v[k - 1].size > a)
        return true;
    return k < vmm.n && vmm.v[k].base < a + n;
}

int zn_vmm_map(void *p, size_t size, int fd, size_t offset, void *cookie)
{
    void *rb;
    size_t rs;
    uintptr_t a = (uintptr_t)p;
    long page = sysconf(_SC_PAGESIZE);
    if (!size || a % (uintptr_t)page || size % (size_t)page || offset % (size_t)page ||
        zn_mem_reserved_at(p, size, &rb, &rs) != 0)
        return -1;
    int rc = -1;
    pthread_mutex_lock(&vmm.lock);
    if (vmm_overlaps(a, size))
        goto out;
    if (vmm.n == vmm.cap) {
        size_t cap = vmm.cap ? vmm.cap * 2 : 64;
        vmm_map *v = realloc(vmm.v, cap * sizeof *v);
        if (!v)
            goto out;
        vmm.v = v;
        vmm.cap = cap;
    }
    if (mmap(p, size, PROT_NONE, MAP_SHARED | MAP_FIXED, fd, (off_t)offset) == MAP_FAILED)
        goto out;
    size_t k = vmm_upper(a);
    memmove(&vmm.v[k + 1], &vmm.v[k], (vmm.n - k) * sizeof *vmm.v);
    vmm.v[k] = (vmm_map){a, size, cookie, ZN_VMM_PROT_NONE};
    vmm.n++;
    rc = 0;
out:
    pthread_mutex_unlock(&vmm.lock);
    return rc;
}

/* [a, a+n) must be exactly a run of whole, adjacent mappings: index of the
 * first and one past the last, or -1. (lock held) */
static int vmm_span(uintptr_t a, size_t n, size_t *first, size_t *end)
{
    size_t k = vmm_upper(a);
    if (k == 0 || vmm.v[k - 1].base != a)
        return -1;
    size_t i = k - 1;
    uintptr_t at = a;
    while (i < vmm.n && vmm.v[i].base == at && at < a + n)
        at += vmm.v[i++].size;
    if (at != a + n)
        return -1;
    *first = k - 1;
    *end = i;
    return 0;
}

int zn_vmm_unmap(void *p, size_t size)
{
    size_t first, end;
    int rc = -1;
    pthread_mutex_lock(&vmm.lock);
    if (vmm_span((uintptr_t)p, size, &first, &end) == 0 &&
        mmap(p, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED,
             -1, 0) != MAP_FAILED) {
        memmove(&vmm.v[first], &vmm.v[end], (vmm.n - end) * sizeof *vmm.v);
        vmm.n -= end - first;
        rc = 0;
        zn_check_note_free(p, size); /* memcheck: unmapped is freed */
    }
    pthread_mutex_unlock(&vmm.lock);
    return rc;
}

int zn_vmm_protect(void *p, size_t size, int prot)
{
    size_t first, end;
    int rc = -1;
    int mp = prot == ZN_VMM_PROT_READWRITE ? PROT_READ | PROT_WRITE
           : prot == ZN_VMM_PROT_READ ? PROT_READ : PROT_NONE;
    pthread_mutex_lock(&vmm.lock);
    if (vmm_span((uintptr_t)p, size, &first, &end) == 0 && mprotect(p, size, mp) == 0) {
        for (size_t i = first; i < end; i++)
            vmm.v[i].prot = prot;
        rc = 0;
    }
    pthread_mutex_unlock(&vmm.lock);
    return rc;
}

int zn_vmm_query(const void *p, void **base, size_t *size, void **cookie, int *prot)
{
    uintptr_t a = (uintptr_t)p;
    int rc = -1;
    pthread_mutex_lock(&vmm.lock);
    size_t k = vmm_upper(a);
    if (k > 0 && a - vmm.v[k - 1].base < vmm.v[k - 1].size) {
        const vmm_map *m = &vmm.v[k - 1];
        if (base)
            *base = (void *)m->base;
        if (size)
            *size = m->size;
        if (cookie)
            *cookie = m->cookie;
        if (prot)
            *prot = m->prot;
        rc = 0;
    }
    pthread_mutex_unlock(&vmm.lock);
    return rc;
}

bool zn_vmm_any_in(const void *p, size_t size)
{
    pthread_mutex_lock(&vmm.lock);
    bool any = vmm_overlaps((uintptr_t)p, size);
    pthread_mutex_unlock(&vmm.lock);
    return any;
}
