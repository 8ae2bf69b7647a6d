/* zn_exec_mem.c: device memory inside one reserved virtual range.
 *
 * The range is reserved PROT_NONE at first use. An allocation commits whole
 * pages (mprotect RW) and is followed by one guard page, so running off its
 * end faults instead of silently writing into a neighbour. Freeing returns
 * the pages to the kernel and makes them PROT_NONE again, and new
 * allocations continue after the last one (next-fit with a rover), so a
 * freed address is reused late and a use after free faults meanwhile.
 *
 * The live allocations are one array sorted by address: lookups are a
 * binary search under a read lock, and the free space is the gaps.
 *
 * zn_mem_share (interprocess handles) turns an allocation into shared
 * memory in place: its pages move into a memfd mapped MAP_SHARED over the
 * same addresses, so pointers and contents stay as they were.
 */
#define _GNU_SOURCE /* memfd_create */
#include "zn_exec_internal.h"
#include "util/zn_log.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

typedef struct mem_block {
    uintptr_t base;
    size_t size;        /* as requested */
    size_t span;        /* committed pages + guard page */
    zn_mem_kind kind;
    int fd;             /* zn_mem_share's memfd, or -1 */
    uint64_t tag;       /* its name's tag */
} mem_block;

static struct {
    pthread_once_t once;
    pthread_rwlock_t lock;
    uintptr_t lo, hi;   /* usable part of the reserved range */
    size_t page;
    size_t total;       /* reported device memory */
    size_t used;        /* committed bytes of live allocations */
    uintptr_t rover;    /* next-fit search starts here */
    mem_block *v;
    size_t n, cap;
} mem = {.once = PTHREAD_ONCE_INIT, .lock = PTHREAD_RWLOCK_INITIALIZER};

static void mem_reserve(void)
{
    mem.page = (size_t)sysconf(_SC_PAGESIZE);
    /* the largest range the system lets us reserve, from 64 GiB down */
    for (size_t sz = (size_t)64 << 30; sz >= ((size_t)256 << 20); sz /= 2) {
        void *p = mmap(NULL, sz, PROT_NONE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (p == MAP_FAILED)
            continue;
        /* the first page is never handed out */
        mem.lo = (uintptr_t)p + mem.page;
        mem.hi = (uintptr_t)p + sz;
        mem.rover = mem.lo;
        size_t phys = (size_t)sysconf(_SC_PHYS_PAGES) * mem.page;
        mem.total = phys && phys < sz ? phys : sz;
        zn_log(ZN_LOG_INFO, "device memory: reserved %zu MiB at %p, reporting %zu MiB",
               sz >> 20, p, mem.total >> 20);
        return;
    }
    zn_log(ZN_LOG_ERROR, "device memory: cannot reserve an address range");
}

static int mem_ready(void)
{
    pthread_once(&mem.once, mem_reserve);
    return mem.hi != 0;
}

/* Index of the first block whose base is > addr. */
static size_t mem_upper(uintptr_t addr)
{
    size_t lo = 0, hi = mem.n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (mem.v[mid].base <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* First gap at or after `from` that holds span bytes at the alignment;
 * the address, or 0. */
static uintptr_t mem_find_gap(uintptr_t from, size_t span, size_t align)
{
    size_t k = mem_upper(from);
    uintptr_t cand = from;
    if (k > 0 && mem.v[k - 1].base + mem.v[k - 1].span > cand)
        cand = mem.v[k - 1].base + mem.v[k - 1].span;
    for (;; k++) {
        uintptr_t limit = k < mem.n ? mem.v[k].base : mem.hi;
        uintptr_t at = (cand + align - 1) & ~(uintptr_t)(align - 1);
        if (at >= cand && at <= limit && limit - at >= span)
            return at;
        if (k >= mem.n)
            return 0;
        cand = mem.v[k].base + mem.v[k].span;
    }
}

static int mem_insert(mem_block b)
{
    if (mem.n == mem.cap) {
        size_t cap = mem.cap ? mem.cap * 2 : 256;
        mem_block *v = realloc(mem.v, cap * sizeof *v);
        if (!v)
            return -1;
        mem.v = v;
        mem.cap = cap;
    }
    size_t k = mem_upper(b.base);
    memmove(&mem.v[k + 1], &mem.v[k], (mem.n - k) * sizeof *mem.v);
    mem.v[k] = b;
    mem.n++;
    return 0;
}

void *zn_mem_alloc(size_t size, size_t align, zn_mem_kind kind)
{
    if (!mem_ready())
        return NULL;
    if (align == 0)
        align = 256;
    if (align & (align - 1))
        return NULL;
    if (align < mem.page)
        align = mem.page;
    if (size == 0)
        size = 1;
    if (size > mem.hi - mem.lo)
        return NULL;
    size_t committed = (size + mem.page - 1) / mem.page * mem.page;
    size_t span = committed + mem.page;

    void *result = NULL;
    pthread_rwlock_wrlock(&mem.lock);
    uintptr_t at = mem_find_gap(mem.rover, span, align);
    if (!at)
        at = mem_find_gap(mem.lo, span, align);
    if (at && mprotect((void *)at, committed, PROT_READ | PROT_WRITE) == 0) {
        mem_block b = {at, size, span, kind, -1, 0};
        if (mem_insert(b) == 0) {
            mem.used += committed;
            mem.rover = at + span;
            result = (void *)at;
        } else {
            mprotect((void *)at, committed, PROT_NONE);
        }
    }
    pthread_rwlock_unlock(&mem.lock);
    return result;
}

int zn_mem_free(void *p)
{
    void *rb;
    size_t rs;
    if (zn_mem_reserved_at(p, 1, &rb, &rs) == 0)
        return -1;      /* a virtual range goes through zn_mem_unreserve */
    if (!p || !mem_ready())
        return -1;
    uintptr_t a = (uintptr_t)p;
    int rc = -1;
    pthread_rwlock_wrlock(&mem.lock);
    size_t k = mem_upper(a);
    if (k > 0 && mem.v[k - 1].base == a) {
        mem_block b = mem.v[k - 1];
        size_t committed = b.span - mem.page;
        zn_check_note_free((void *)b.base, b.size); /* memcheck: use after free */
        if (b.fd >= 0) {
            /* shared: drop the mapping (importers keep their own) */
            mmap((void *)a, committed, PROT_NONE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
            close(b.fd);
        } else {
            /* give the pages back (fresh pages read zero) and fault on reuse */
            madvise((void *)a, committed, MADV_DONTNEED);
            mprotect((void *)a, committed, PROT_NONE);
        }
        memmove(&mem.v[k - 1], &mem.v[k], (mem.n - k) * sizeof *mem.v);
        mem.n--;
        mem.used -= committed;
        rc = 0;
    }
    pthread_rwlock_unlock(&mem.lock);
    return rc;
}

int zn_mem_lookup(const void *p, void **base, size_t *size, zn_mem_kind *kind)
{
    uintptr_t a = (uintptr_t)p;
    if (!mem_ready() || a < mem.lo || a >= mem.hi)
        return -1;
    int rc = -1;
    pthread_rwlock_rdlock(&mem.lock);
    size_t k = mem_upper(a);
    if (k > 0 && a - mem.v[k - 1].base < mem.v[k - 1].size &&
        mem.v[k - 1].kind == ZN_MEM_RESERVED) {
        /* a virtual range: only its mapped parts are memory */
        void *cookie;
        int prot;
        rc = zn_vmm_query(p, base, size, &cookie, &prot);
        if (rc == 0 && kind)
            *kind = ZN_MEM_DEVICE;
    } else if (k > 0 && a - mem.v[k - 1].base < mem.v[k - 1].size) {
        const mem_block *b = &mem.v[k - 1];
        if (base)
            *base = (void *)b->base;
        if (size)
            *size = b->size;
        if (kind)
            *kind = b->kind;
        rc = 0;
    }
    pthread_rwlock_unlock(&mem.lock);
    return rc;
}

int zn_mem_nearest(const void *p, void **base, size_t *size)
{
    uintptr_t a = (uintptr_t)p;
    if (!mem_ready())
        return -1;
    int rc = -1;
    pthread_rwlock_rdlock(&mem.lock);
    size_t k = mem_upper(a);
    /* the block before a (ends below or at it) or the one after */
    const mem_block *before = k > 0 ? &mem.v[k - 1] : NULL;
    const mem_block *after = k < mem.n ? &mem.v[k] : NULL;
    const mem_block *pick = before;
    if (!before || (after && after->base - a < a - (before->base + before->size)))
        pick = after;
    if (pick) {
        *base = (void *)pick->base;
        *size = pick->size;
        rc = 0;
    }
    pthread_rwlock_unlock(&mem.lock);
    return rc;
}

void zn_mem_walk(void (*fn)(void *ud, const void *base, size_t size, zn_mem_kind kind),
                 void *ud)
{
    if (!mem_ready())
        return;
    pthread_rwlock_rdlock(&mem.lock);
    for (size_t i = 0; i < mem.n; i++)
        fn(ud, (void *)mem.v[i].base, mem.v[i].size, mem.v[i].kind);
    pthread_rwlock_unlock(&mem.lock);
}

size_t zn_mem_live_prefix(const void *p, size_t n)
{
    const char *q = p;
    size_t done = 0;
    void *base;
    size_t size;
    /* adjacent mappings of a virtual range (cuMemMap) form one span */
    while (done < n && zn_mem_lookup(q, &base, &size, NULL) == 0) {
        size_t room = size - (size_t)(q - (char *)base);
        if (n - done <= room)
            return n;
        done += room;
        q += room;
    }
    return done;
}

bool zn_mem_in_device_range(const void *p)
{
    uintptr_t a = (uintptr_t)p;
    return mem_ready() && a >= mem.lo - mem.page && a < mem.hi;
}

void zn_mem_info(size_t *used, size_t *total)
{
    mem_ready();
    pthread_rwlock_rdlock(&mem.lock);
    if (used)
        *used = mem.used;
    if (total)
        *total = mem.total;
    pthread_rwlock_unlock(&mem.lock);
}

/* ---- virtual ranges (cuMemAddressReserve): blocks that are never
 * committed here; zn_exec_vmm.c maps physical memory into them ---- */

void *zn_mem_reserve(size_t size, size_t align, uintptr_t hint)
{
    if (!mem_ready() || size == 0)
        return NULL;
    if (align < mem.page)
        align = mem.page;
    if (align & (align - 1))
        return NULL;
    size = (size + mem.page - 1) / mem.page * mem.page;
    if (size > mem.hi - mem.lo)
        return NULL;
    void *result = NULL;
    pthread_rwlock_wrlock(&mem.lock);
    uintptr_t at = 0;
    /* the hint is honoured when that exact range is free */
    if (hint && hint % align == 0 && hint >= mem.lo && hint <= mem.hi - size &&
        mem_find_gap(hint, size, align) == hint)
        at = hint;
    if (!at)
        at = mem_find_gap(mem.rover, size, align);
    if (!at)
        at = mem_find_gap(mem.lo, size, align);
    if (at) {
        mem_block b = {at, size, size, ZN_MEM_RESERVED, -1, 0};
        if (mem_insert(b) == 0) {
            mem.rover = at + size;
            result = (void *)at;
        }
    }
    pthread_rwlock_unlock(&mem.lock);
    return result;
}

int zn_mem_reserved_at(const void *p, size_t n, void **base, size_t *size)
{
    uintptr_t a = (uintptr_t)p;
    if (!mem_ready() || a < mem.lo || a >= mem.hi)
        return -1;
    int rc = -1;
    pthread_rwlock_rdlock(&mem.lock);
    size_t k = mem_upper(a);
    if (k > 0 && mem.v[k - 1].kind == ZN_MEM_RESERVED &&
        a - mem.v[k - 1].base < mem.v[k - 1].size &&
        n <= mem.v[k - 1].size - (a - mem.v[k - 1].base)) {
        *base = (void *)mem.v[k - 1].base;
        *size = mem.v[k - 1].size;
        rc = 0;
    }
    pthread_rwlock_unlock(&mem.lock);
    return rc;
}

int zn_mem_unreserve(void *p, size_t size)
{
    uintptr_t a = (uintptr_t)p;
    if (!mem_ready())
        return -1;
    int rc = -1;
    pthread_rwlock_wrlock(&mem.lock);
    size_t k = mem_upper(a);
    if (k > 0 && mem.v[k - 1].base == a && mem.v[k - 1].kind == ZN_MEM_RESERVED &&
        (size == 0 || (size + mem.page - 1) / mem.page * mem.page == mem.v[k - 1].size)) {
        /* back to plain reserved address space, whatever was left there */
        mmap(p, mem.v[k - 1].size, PROT_NONE,
             MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
        memmove(&mem.v[k - 1], &mem.v[k], (mem.n - k) * sizeof *mem.v);
        mem.n--;
        rc = 0;
    }
    pthread_rwlock_unlock(&mem.lock);
    return rc;
}

void zn_mem_account(int64_t delta)
{
    if (!mem_ready())
        return;
    pthread_rwlock_wrlock(&mem.lock);
    mem.used += (size_t)delta;
    pthread_rwlock_unlock(&mem.lock);
}

/* ---- interprocess sharing (zn_drv_ipc.c) ---- */

int zn_mem_share(const void *p, uint64_t tag, zn_mem_shared *out)
{
    uintptr_t a = (uintptr_t)p;
    if (!mem_ready() || a < mem.lo || a >= mem.hi)
        return -1;
    int rc = -1;
    pthread_rwlock_wrlock(&mem.lock);
    size_t k = mem_upper(a);
    mem_block *b = k > 0 ? &mem.v[k - 1] : NULL;
    if (!b || a - b->base >= b->size || b->kind != ZN_MEM_DEVICE)
        goto out;
    size_t committed = b->span - mem.page;
    if (b->fd < 0) {
        char name[40];
        snprintf(name, sizeof name, "zinc-ipc-%016" PRIx64, tag);
        int fd = memfd_create(name, MFD_CLOEXEC);
        if (fd < 0)
            goto out;
        /* copy the contents in (pwrite: no page faults on the file's side;
         * 256 MiB took 216 ms against 582 ms through a mapping), then put
         * the file over the same pages */
        size_t done = 0;
        while (done < committed) {
            ssize_t w = pwrite(fd, (char *)b->base + done, committed - done, (off_t)done);
            if (w <= 0)
                break;
            done += (size_t)w;
        }
        if (done < committed) {
            close(fd);
            goto out;
        }
        if (mmap((void *)b->base, committed, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED,
                 fd, 0) == MAP_FAILED) {
            close(fd);
            goto out;
        }
        b->fd = fd;
        b->tag = tag;
    }
    out->base = (void *)b->base;
    out->size = b->size;
    out->span = committed;
    out->fd = b->fd;
    out->tag = b->tag;
    rc = 0;
out:
    pthread_rwlock_unlock(&mem.lock);
    return rc;
}

void *zn_mem_map_fd(int fd, size_t size, size_t offset, void *cookie)
{
    if (!mem_ready() || !size || offset % mem.page)
        return NULL;
    size = (size + mem.page - 1) / mem.page * mem.page;
    /* one page more than mapped: the guard page an allocation has */
    void *p = zn_mem_reserve(size + mem.page, 0, 0);
    if (!p)
        return NULL;
    if (zn_vmm_map(p, size, fd, offset, cookie) != 0) {
        zn_mem_unreserve(p, 0);
        return NULL;
    }
    if (zn_vmm_protect(p, size, ZN_VMM_PROT_READWRITE) != 0) {
        zn_vmm_unmap(p, size);
        zn_mem_unreserve(p, 0);
        return NULL;
    }
    return p;
}

int zn_mem_unmap_fd(void *p, size_t size)
{
    size = (size + mem.page - 1) / mem.page * mem.page;
    if (zn_vmm_unmap(p, size) != 0)
        return -1;
    return zn_mem_unreserve(p, 0);
}
