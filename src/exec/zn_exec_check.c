/* zn_exec_check.c: ZINC_CHECK=memcheck,racecheck,leaks at run time.
 *
 * Code compiled in check mode (src/compile/zn_lower_check.c) calls
 * zn_check_rt (zn_rt_ops.memcheck) with the active lanes' addresses before
 * each global, shared, local, generic or atomic access. The allocation
 * table is the device-memory array of zn_exec_mem.c (every cuMemAlloc*,
 * pool, managed, pinned host, module-variable and VMM mapping ends there,
 * with its requested size), plus the host ranges kernels may touch through
 * mapped pointers (cuMemHostRegister, the device heap of malloc in
 * kernels), kept here. A small ring of freed ranges names use after free.
 *
 * Fast path: the warp's lowest and highest address against the allocation
 * this thread hit last (valid while no allocation was freed since), so a
 * coalesced access costs one pass over 32 lanes. Otherwise each lane is
 * looked up (binary search under the table's read lock).
 *
 * The first bad lane of a warp is reported like compute-sanitizer does, the
 * warp returns nonzero and the compiled code ends the grid with
 * ZN_KSTATUS_ILLEGAL_ADDRESS (CUDA_ERROR_ILLEGAL_ADDRESS, sticky).
 *
 * racecheck uses the same compiled calls: zn_check_rt hands each access
 * that memcheck let through to zn_race_access (zn_exec_race.c). */
#include "zn_exec_race.h"
#include <dlfcn.h>
#include <stdarg.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* spaces as PTX numbers them (ptx_ir.h: generic 0, global 2, shared 3,
 * local 4); the executor knows no PTX, so the values are repeated here */
enum { SP_GENERIC = 0, SP_GLOBAL = 2, SP_SHARED = 3, SP_LOCAL = 4 };
enum { F_WRITE = 1, F_ATOMIC = 2 };

#define ZN_FREED_RING 256
/* A generic address this close above the running frame is the warp's own
 * stack (local memory reached through cvta.local): not checked. */
#define ZN_STACK_WINDOW ((uintptr_t)64 << 20)

typedef struct range {
    uintptr_t base;
    size_t size;
} range;

static struct {
    pthread_once_t once;
    unsigned mode;
    pthread_mutex_t lock;           /* freed ring and host ranges */
    range freed[ZN_FREED_RING];
    unsigned nfreed;                /* total noted; ring index = n % size */
    range *hosts;
    size_t nhosts, caphosts;
    _Atomic uint64_t free_gen;      /* bumped on every free: drops fast paths */
    _Atomic unsigned errors;
    pthread_mutex_t print;
} chk = {.once = PTHREAD_ONCE_INIT, .lock = PTHREAD_MUTEX_INITIALIZER,
         .print = PTHREAD_MUTEX_INITIALIZER};

/* The allocations this thread hit last (a kernel reads and writes a few
 * buffers in turn), valid while free_gen == gen. */
#define ZN_HITS 4
static _Thread_local __attribute__((tls_model("initial-exec"))) struct {
    uintptr_t lo[ZN_HITS], hi[ZN_HITS];
    uint64_t gen;
    unsigned next;
} hit;

static void leak_one(void *ud, const void *base, size_t size, zn_mem_kind kind)
{
    size_t *tot = ud;
    static const char *names[] = {"?", "cuMemAlloc", "cuMemHostAlloc", "cuMemAllocManaged"};
    if (kind != ZN_MEM_DEVICE && kind != ZN_MEM_HOST && kind != ZN_MEM_MANAGED)
        return;
    fprintf(stderr, "========= Leaked %zu bytes at 0x%" PRIxPTR " (%s)\n", size,
            (uintptr_t)base, names[kind]);
    tot[0] += size;
    tot[1]++;
}

static void at_exit(void)
{
    if (chk.mode & ZN_CHECK_LEAKS) {
        size_t tot[2] = {0, 0};
        zn_mem_walk(leak_one, tot);
        fprintf(stderr, "========= LEAK SUMMARY: %zu bytes leaked in %zu allocations\n",
                tot[0], tot[1]);
    }
    if (chk.mode & ZN_CHECK_RACECHECK)
        zn_race_at_exit();
    if (chk.mode & ZN_CHECK_MEMCHECK)
        fprintf(stderr, "========= ERROR SUMMARY: %u error%s\n", atomic_load(&chk.errors),
                atomic_load(&chk.errors) == 1 ? "" : "s");
    pthread_mutex_lock(&chk.lock);
    free(chk.hosts);
    chk.hosts = NULL;
    chk.nhosts = chk.caphosts = 0;
    pthread_mutex_unlock(&chk.lock);
}

static bool word_in(const char *list, const char *w)
{
    size_t n = strlen(w);
    for (const char *p = list; (p = strstr(p, w)) != NULL; p += n)
        if ((p == list || p[-1] == ',') && (p[n] == 0 || p[n] == ','))
            return true;
    return false;
}

static void check_init(void)
{
    const char *s = getenv("ZINC_CHECK");
    if (!s || !*s)
        return;
    if (word_in(s, "memcheck"))
        chk.mode |= ZN_CHECK_MEMCHECK;
    if (word_in(s, "leaks") || word_in(s, "leak-check"))
        chk.mode |= ZN_CHECK_LEAKS;
    if (word_in(s, "racecheck")) {
        chk.mode |= ZN_CHECK_RACECHECK;
        atomic_store(&zn_race_enabled, true);
    }
    if (chk.mode)
        atexit(at_exit);
}

unsigned zn_check_mode(void)
{
    pthread_once(&chk.once, check_init);
    return chk.mode;
}

void zn_check_note_free(const void *p, size_t size)
{
    if (!(zn_check_mode() & ZN_CHECK_MEMCHECK))
        return;
    pthread_mutex_lock(&chk.lock);
    chk.freed[chk.nfreed++ % ZN_FREED_RING] = (range){(uintptr_t)p, size};
    pthread_mutex_unlock(&chk.lock);
    atomic_fetch_add(&chk.free_gen, 1);
}

void zn_check_host_add(uintptr_t p, size_t n)
{
    if (!(zn_check_mode() & ZN_CHECK_MEMCHECK) || !p)
        return;
    pthread_mutex_lock(&chk.lock);
    if (chk.nhosts == chk.caphosts) {
        size_t cap = chk.caphosts ? chk.caphosts * 2 : 16;
        range *v = realloc(chk.hosts, cap * sizeof *v);
        if (!v) {
            pthread_mutex_unlock(&chk.lock);
            return;
        }
        chk.hosts = v;
        chk.caphosts = cap;
    }
    chk.hosts[chk.nhosts++] = (range){p, n};
    pthread_mutex_unlock(&chk.lock);
}

void zn_check_host_remove(uintptr_t p)
{
    if (!(zn_check_mode() & ZN_CHECK_MEMCHECK) || !p)
        return;
    pthread_mutex_lock(&chk.lock);
    for (size_t i = 0; i < chk.nhosts; i++)
        if (chk.hosts[i].base == p) {
            chk.hosts[i] = chk.hosts[--chk.nhosts];
            break;
        }
    pthread_mutex_unlock(&chk.lock);
    atomic_fetch_add(&chk.free_gen, 1);
}

/* [a, a+n) inside one live allocation; caches it as the last hit */
static bool in_live(uintptr_t a, size_t n, uint64_t gen)
{
    if (hit.gen == gen)
        for (unsigned k = 0; k < ZN_HITS; k++)
            if (a >= hit.lo[k] && a + n <= hit.hi[k] && a + n > a)
                return true;
    void *base;
    size_t size;
    if (zn_mem_lookup((void *)a, &base, &size, NULL) != 0)
        return false;
    uintptr_t b = (uintptr_t)base;
    if (a + n > b + size)
        return false;
    if (hit.gen != gen) {
        memset(&hit, 0, sizeof hit);
        hit.gen = gen;
    }
    hit.lo[hit.next] = b;
    hit.hi[hit.next] = b + size;
    hit.next = (hit.next + 1) % ZN_HITS;
    return true;
}

static bool in_host(uintptr_t a, size_t n)
{
    bool ok = false;
    pthread_mutex_lock(&chk.lock);
    for (size_t i = 0; i < chk.nhosts && !ok; i++)
        ok = a >= chk.hosts[i].base && a - chk.hosts[i].base + n <= chk.hosts[i].size;
    pthread_mutex_unlock(&chk.lock);
    return ok;
}

static bool freed_at(uintptr_t a, range *out)
{
    bool found = false;
    pthread_mutex_lock(&chk.lock);
    unsigned n = chk.nfreed < ZN_FREED_RING ? chk.nfreed : ZN_FREED_RING;
    for (unsigned k = 0; k < n && !found; k++) { /* newest first */
        const range *r = &chk.freed[(chk.nfreed - 1 - k) % ZN_FREED_RING];
        if (a >= r->base && a - r->base < r->size) {
            *out = *r;
            found = true;
        }
    }
    pthread_mutex_unlock(&chk.lock);
    return found;
}

static const char *space_name(unsigned sp)
{
    return sp == SP_SHARED ? "__shared__" : sp == SP_LOCAL ? "__local__" : "__global__";
}

/* The "Address ..." line for a bad global/generic address. */
static void global_where(char *buf, size_t len, uintptr_t a, unsigned size)
{
    void *nb;
    size_t ns;
    range fr;
    if (zn_mem_lookup((void *)a, &nb, &ns, NULL) == 0) {
        snprintf(buf, len, "Address 0x%" PRIxPTR " is %zu bytes into the allocation at 0x%"
                 PRIxPTR " of size %zu bytes; the %u-byte access runs past its end",
                 a, (size_t)(a - (uintptr_t)nb), (uintptr_t)nb, ns, size);
    } else if (freed_at(a, &fr)) {
        snprintf(buf, len, "Address 0x%" PRIxPTR " is %zu bytes inside a freed allocation "
                 "at 0x%" PRIxPTR " of size %zu bytes (use after free)", a,
                 (size_t)(a - fr.base), fr.base, fr.size);
    } else if (zn_mem_nearest((void *)a, &nb, &ns) == 0) {
        uintptr_t b = (uintptr_t)nb;
        if (a >= b + ns)
            snprintf(buf, len, "Address 0x%" PRIxPTR " is %" PRIuPTR " bytes after the "
                     "nearest allocation at 0x%" PRIxPTR " of size %zu bytes", a,
                     a - (b + ns), b, ns);
        else
            snprintf(buf, len, "Address 0x%" PRIxPTR " is %" PRIuPTR " bytes before the "
                     "nearest allocation at 0x%" PRIxPTR " of size %zu bytes", a, b - a, b, ns);
    } else {
        snprintf(buf, len, "Address 0x%" PRIxPTR " is out of bounds (no allocation is live)", a);
    }
}

/* "name (PTX line ...)" with a C++ name demangled when the process has
 * libstdc++'s demangler (nvcc links every app with it). */
void zn_check_where(char *buf, size_t len, const char *where)
{
    typedef char *(*demangle_fn)(const char *, char *, size_t *, int *);
    const char *rest = where ? strstr(where, " (") : NULL;
    demangle_fn dm = (demangle_fn)(uintptr_t)dlsym(RTLD_DEFAULT, "__cxa_demangle");
    char name[256];
    if (!rest || !dm || where[0] != '_' || (size_t)(rest - where) >= sizeof name) {
        snprintf(buf, len, "%s", where ? where : "?");
        return;
    }
    memcpy(name, where, (size_t)(rest - where));
    name[rest - where] = 0;
    int st = -1;
    char *d = dm(name, NULL, NULL, &st);
    snprintf(buf, len, "%s%s", st == 0 && d ? d : name, rest);
    free(d);
}

static void report(zn_warp_ctx *w, unsigned lane, uintptr_t a, uint32_t info,
                   const char *where, const char *addr_line)
{
    const zn_block_ctx *b = w->block;
    unsigned size = info & 0xffffu, sp = (info >> 16) & 0xffu, fl = info >> 24;
    uint32_t t = w->warpid * ZN_WARP_SIZE + lane;
    uint32_t nx = b->ntid[0] ? b->ntid[0] : 1, ny = b->ntid[1] ? b->ntid[1] : 1;
    char at[640];
    zn_check_where(at, sizeof at, where);
    atomic_fetch_add(&chk.errors, 1);
    pthread_mutex_lock(&chk.print);
    fprintf(stderr,
            "========= Invalid %s %s of size %u bytes\n"
            "=========     at %s\n"
            "=========     by thread (%u,%u,%u) in block (%u,%u,%u)\n"
            "=========     %s\n"
            "=========\n",
            space_name(sp), (fl & F_ATOMIC) ? "atomic" : (fl & F_WRITE) ? "write" : "read",
            size, at, t % nx, t / nx % ny, t / nx / ny, b->ctaid[0],
            b->ctaid[1], b->ctaid[2], addr_line);
    (void)a;
    fflush(stderr);
    pthread_mutex_unlock(&chk.print);
}

void zn_check_print(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    pthread_mutex_lock(&chk.print);
    vfprintf(stderr, fmt, ap);
    fflush(stderr);
    pthread_mutex_unlock(&chk.print);
    va_end(ap);
}

/* Thread block clusters: the shared window of any block of the cluster
 * (distributed shared memory through mapa) is good memory. */
static bool in_cluster_shared(const zn_block_ctx *b, uintptr_t a, unsigned size)
{
    if (!b->cluster)
        return false;
    uintptr_t n = b->shared_size;
    for (unsigned r = 0; r < ZN_CLUSTER_MAX; r++) {
        uintptr_t p = (uintptr_t)b->cluster->shared[r];
        if (p && a >= p && size <= n && a - p <= n - size)
            return true;
    }
    return false;
}

static int32_t memcheck(zn_warp_ctx *w, const uint64_t *addr, uint32_t mask, uint32_t info,
                        const char *where, uint64_t lbase, uint64_t lspan, uint64_t lo,
                        uint64_t hi)
{
    unsigned size = info & 0xffffu, sp = (info >> 16) & 0xffu;
    uint64_t gen = atomic_load_explicit(&chk.free_gen, memory_order_acquire);
    const zn_block_ctx *b = w->block;
    uintptr_t sh = (uintptr_t)b->shared, shn = b->shared_size;
    if (sp == SP_GLOBAL || sp == SP_GENERIC) {
        /* fast path: the warp's span inside an allocation hit lately
         * (lo/hi come from the compiled code's vector reductions) */
        if (lo > hi) {
            lo = UINT64_MAX;
            for (uint32_t m = mask; m; m &= m - 1) {
                uint64_t a = addr[__builtin_ctz(m)];
                lo = a < lo ? a : lo;
                hi = a > hi ? a : hi;
            }
        }
        if (hit.gen == gen && hi + size > hi)
            for (unsigned k = 0; k < ZN_HITS; k++)
                if (lo >= hit.lo[k] && hi + size <= hit.hi[k])
                    return 0;
    }
    char line[320];
    char probe;
    uintptr_t frame = (uintptr_t)&probe;
    for (uint32_t m = mask; m; m &= m - 1) {
        unsigned lane = (unsigned)__builtin_ctz(m);
        uintptr_t a = (uintptr_t)addr[lane];
        unsigned s = sp;
        if ((s == SP_GENERIC || s == SP_SHARED) && in_cluster_shared(b, a, size))
            continue;
        /* a generic address: the shared window first (its guard area
         * included), then local (this stack), then global */
        if (s == SP_GENERIC && a >= sh && a - sh < shn + 65536 &&
            !zn_mem_in_device_range((void *)a))
            s = SP_SHARED;
        if (s == SP_SHARED) {
            if (a >= sh && size <= shn && a - sh <= shn - size)
                continue;
            /* offsets from the kernel's first .shared byte, past the
             * window's reserved bytes (zn_kernel_abi.h) */
            snprintf(line, sizeof line, "Address 0x%" PRIxPTR " is at shared offset %" PRIdPTR
                     "; the block's shared memory is %" PRIuPTR " bytes", a,
                     (intptr_t)(a - sh) - (intptr_t)ZN_SMEM_RESERVED, shn - ZN_SMEM_RESERVED);
        } else if (s == SP_LOCAL) {
            if (!lspan)
                continue; /* depot unknown (several .local variables) */
            uintptr_t lb = (uintptr_t)lbase + lane * (uintptr_t)lspan;
            if (a >= lb && size <= lspan && a - lb <= lspan - size)
                continue;
            if (a >= lb + lspan)
                snprintf(line, sizeof line, "Address 0x%" PRIxPTR " is %" PRIuPTR " bytes after "
                         "the thread's local memory of %" PRIu64 " bytes", a,
                         a - (lb + lspan), lspan);
            else if (a >= lb)
                snprintf(line, sizeof line, "Address 0x%" PRIxPTR " is %" PRIuPTR " bytes into "
                         "the thread's local memory of %" PRIu64 " bytes; the %u-byte access "
                         "runs past its end", a, a - lb, lspan, size);
            else
                snprintf(line, sizeof line, "Address 0x%" PRIxPTR " is %" PRIuPTR " bytes before "
                         "the thread's local memory of %" PRIu64 " bytes", a, lb - a, lspan);
        } else {
            if (in_live(a, size, gen))
                continue;
            if (!zn_mem_in_device_range((void *)a) &&
                ((a >= frame && a - frame < ZN_STACK_WINDOW) || in_host(a, size)))
                continue;
            global_where(line, sizeof line, a, size);
        }
        report(w, lane, a, (info & ~(0xffu << 16)) | (s << 16), where, line);
        return 1;
    }
    return 0;
}

int32_t zn_check_rt(zn_warp_ctx *w, const uint64_t *addr, uint32_t mask, uint32_t info,
                    const char *where, uint64_t lbase, uint64_t lspan, uint64_t lo,
                    uint64_t hi)
{
    mask &= w->live_mask;
    if (!mask)
        return 0;
    /* read once (pthread_once): the first checked access may come first */
    if ((zn_check_mode() & ZN_CHECK_MEMCHECK) &&
        memcheck(w, addr, mask, info, where, lbase, lspan, lo, hi))
        return 1;
    if (atomic_load_explicit(&zn_race_enabled, memory_order_relaxed))
        zn_race_access(w, addr, mask, info, where);
    return 0;
}
