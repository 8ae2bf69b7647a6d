/* zn_cache_store.c: reading and writing one entry. Writers never expose a
 * partial file (temp file + rename); readers check everything (a damaged
 * entry is removed and reported as a miss, never returned). */
#include "zn_cache_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "util/zn_log.h"

static atomic_ulong n_hits, n_misses, n_damaged, n_stores;

void zn_cache_get_counts(zn_cache_counts *c)
{
    c->hits = atomic_load(&n_hits);
    c->misses = atomic_load(&n_misses);
    c->damaged = atomic_load(&n_damaged);
    c->stores = atomic_load(&n_stores);
}

static void put_le(uint8_t *p, uint64_t v, int n)
{
    for (int i = 0; i < n; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get_le(const uint8_t *p, int n)
{
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static int mkdir_p(char *path)
{
    for (char *s = path + 1; *s; s++) {
        if (*s != '/')
            continue;
        *s = 0;
        int r = mkdir(path, 0755);
        *s = '/';
        if (r && errno != EEXIST)
            return -1;
    }
    return mkdir(path, 0755) && errno != EEXIST ? -1 : 0;
}

int zn_cache_entries_dir(char *buf, size_t n, int create)
{
    char root[4000];
    if (zn_cache_dir(root, sizeof root))
        return -1;
    int k = snprintf(buf, n, "%s/kernels", root);
    if (k <= 0 || (size_t)k >= n)
        return -1;
    return create ? mkdir_p(buf) : 0;
}

static int entry_path(const zn_cache_key *key, char *buf, size_t n, int create)
{
    char dir[4096], hex[65];
    if (zn_cache_entries_dir(dir, sizeof dir, create))
        return -1;
    zn_hex(key->b, 32, hex);
    int k = snprintf(buf, n, "%s/%s%s", dir, hex, ZN_CACHE_SUFFIX);
    return k > 0 && (size_t)k < n ? 0 : -1;
}

static int read_all(int fd, uint8_t *p, size_t n)
{
    while (n) {
        ssize_t r = read(fd, p, n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        p += r;
        n -= (size_t)r;
    }
    return 0;
}

static int write_all(int fd, const uint8_t *p, size_t n)
{
    while (n) {
        ssize_t r = write(fd, p, n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        p += r;
        n -= (size_t)r;
    }
    return 0;
}

/* Why the header/payload are not a valid entry for key, or NULL. */
static const char *check_entry(const uint8_t *h, const zn_cache_key *key,
                               const uint8_t *payload, uint64_t len, uint64_t fsize)
{
    if (memcmp(h + ZN_CH_MAGIC, ZN_CACHE_MAGIC, 8))
        return "bad magic";
    if (get_le(h + ZN_CH_FORMAT, 4) != ZN_CACHE_FORMAT ||
        get_le(h + ZN_CH_HDRSIZE, 4) != ZN_CH_SIZE)
        return "other format version";
    if (memcmp(h + ZN_CH_KEY, key->b, 32))
        return "key mismatch";
    if (fsize != ZN_CH_SIZE + len)
        return "truncated or padded";
    if (!payload)
        return NULL;
    uint8_t sum[32];
    zn_hash256(payload, len, sum);
    return memcmp(sum, h + ZN_CH_SUM, 32) ? "checksum mismatch" : NULL;
}

/* Removes a damaged entry, unless another process has replaced it since. */
static void drop(const char *path, const struct stat *seen)
{
    struct stat now;
    if (!stat(path, &now) && now.st_ino == seen->st_ino && now.st_dev == seen->st_dev)
        unlink(path);
}

void *zn_cache_get(const zn_cache_key *key, size_t *len)
{
    char path[4200];
    if (!zn_cache_enabled() || entry_path(key, path, sizeof path, 0))
        return NULL;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        atomic_fetch_add(&n_misses, 1);
        return NULL;
    }
    struct stat st;
    uint8_t h[ZN_CH_SIZE];
    uint8_t *payload = NULL;
    const char *why = NULL;
    if (fstat(fd, &st) || st.st_size < ZN_CH_SIZE || read_all(fd, h, ZN_CH_SIZE)) {
        why = "short header";
    } else {
        uint64_t n = get_le(h + ZN_CH_LEN, 8);
        why = check_entry(h, key, NULL, n, (uint64_t)st.st_size);
        if (!why) {
            payload = malloc(n ? n : 1);
            if (!payload || read_all(fd, payload, n))
                why = "short payload";
            else
                why = check_entry(h, key, payload, n, (uint64_t)st.st_size);
            *len = n;
        }
    }
    if (why) {
        zn_log(ZN_LOG_WARN, "kernel cache: damaged entry %s (%s): removed, recompiling",
               path, why);
        drop(path, &st);
        free(payload);
        payload = NULL;
        atomic_fetch_add(&n_damaged, 1);
        atomic_fetch_add(&n_misses, 1);
    } else {
        futimens(fd, NULL); /* LRU: a hit is a use */
        atomic_fetch_add(&n_hits, 1);
    }
    close(fd);
    return payload;
}

int zn_cache_put(const zn_cache_key *key, const void *data, size_t len)
{
    static atomic_uint seq;
    char path[4200], dir[4096], tmp[4300];
    uint64_t max = zn_cache_max_size();
    if (!zn_cache_enabled() || ZN_CH_SIZE + (uint64_t)len > max ||
        entry_path(key, path, sizeof path, 1) || zn_cache_entries_dir(dir, sizeof dir, 0))
        return -1;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    snprintf(tmp, sizeof tmp, "%s/" ZN_CACHE_TMP_PREFIX "%ld-%u-%lx", dir, (long)getpid(),
             atomic_fetch_add(&seq, 1), (unsigned long)ts.tv_nsec);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) {
        zn_log(ZN_LOG_WARN, "kernel cache: cannot write in %s", dir);
        return -1;
    }
    uint8_t h[ZN_CH_SIZE] = {0};
    memcpy(h + ZN_CH_MAGIC, ZN_CACHE_MAGIC, 8);
    put_le(h + ZN_CH_FORMAT, ZN_CACHE_FORMAT, 4);
    put_le(h + ZN_CH_HDRSIZE, ZN_CH_SIZE, 4);
    memcpy(h + ZN_CH_KEY, key->b, 32);
    put_le(h + ZN_CH_LEN, len, 8);
    zn_hash256(data, len, h + ZN_CH_SUM);
    int bad = write_all(fd, h, sizeof h) || write_all(fd, data, len);
    bad |= close(fd) != 0;
    /* rename is atomic: readers see the old entry, none, or this whole one */
    if (bad || rename(tmp, path)) {
        unlink(tmp);
        zn_log(ZN_LOG_WARN, "kernel cache: cannot store %s", path);
        return -1;
    }
    atomic_fetch_add(&n_stores, 1);
    zn_cache_evict(max);
    return 0;
}
