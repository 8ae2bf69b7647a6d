/* zn_cache_admin.c: stats and pruning of the whole cache folder. The
 * per-entry check repeats the reader's (zn_cache_store.c) without touching
 * the entry's time, so verifying does not reorder the LRU list. */
#include "zn_cache_admin.h"
#include "zn_cache_internal.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* A temp file older than this was left by a writer that died (as in
 * zn_cache_evict.c). */
#define STALE_TMP_S 600

static int entry_name(const char *n)
{
    if (strlen(n) != 64 + strlen(ZN_CACHE_SUFFIX) || strcmp(n + 64, ZN_CACHE_SUFFIX))
        return 0;
    for (int i = 0; i < 64; i++)
        if (!strchr("0123456789abcdef", n[i]))
            return 0;
    return 1;
}

static int is_temp(const char *n)
{
    return !strncmp(n, ZN_CACHE_TMP_PREFIX, strlen(ZN_CACHE_TMP_PREFIX));
}

int zn_cache_usage_get(zn_cache_usage *u)
{
    char dir[4096], path[4400];
    memset(u, 0, sizeof *u);
    u->max_bytes = zn_cache_max_size();
    if (zn_cache_entries_dir(dir, sizeof dir, 0))
        return -1;
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
            continue;
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        if (stat(path, &st))
            continue;       /* removed meanwhile */
        if (is_temp(de->d_name)) {
            u->temps++;
        } else if (!entry_name(de->d_name) || !S_ISREG(st.st_mode)) {
            u->others++;
        } else {
            u->entries++;
            u->bytes += (uint64_t)st.st_size;
            if ((uint64_t)st.st_size > u->largest)
                u->largest = (uint64_t)st.st_size;
            int64_t t = (int64_t)st.st_mtime;
            if (!u->oldest || t < u->oldest)
                u->oldest = t;
            if (t > u->newest)
                u->newest = t;
        }
    }
    closedir(d);
    return 0;
}

static uint64_t le(const uint8_t *p, int n)
{
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static int hexval(char c)
{
    return c <= '9' ? c - '0' : c - 'a' + 10;
}

/* 1 when the file is a complete, undamaged entry for the key its name
 * spells. */
static int entry_valid(const char *path, const char *name)
{
    int ok = 0, fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 1;           /* gone: nothing to remove */
    struct stat st;
    uint8_t h[ZN_CH_SIZE], key[32], sum[32];
    for (int i = 0; i < 32; i++)
        key[i] = (uint8_t)(hexval(name[2 * i]) << 4 | hexval(name[2 * i + 1]));
    if (fstat(fd, &st) || st.st_size < ZN_CH_SIZE || pread(fd, h, sizeof h, 0) != ZN_CH_SIZE)
        goto out;
    uint64_t len = le(h + ZN_CH_LEN, 8);
    if (memcmp(h + ZN_CH_MAGIC, ZN_CACHE_MAGIC, 8) || le(h + ZN_CH_FORMAT, 4) != ZN_CACHE_FORMAT ||
        le(h + ZN_CH_HDRSIZE, 4) != ZN_CH_SIZE || memcmp(h + ZN_CH_KEY, key, 32) ||
        (uint64_t)st.st_size != ZN_CH_SIZE + len)
        goto out;
    uint8_t *p = malloc(len ? len : 1);
    if (!p) {
        ok = 1;             /* cannot tell: keep it */
        goto out;
    }
    if (pread(fd, p, len, ZN_CH_SIZE) == (ssize_t)len) {
        zn_hash256(p, len, sum);
        ok = !memcmp(sum, h + ZN_CH_SUM, 32);
    }
    free(p);
out:
    close(fd);
    return ok;
}

typedef struct pentry {
    char name[72];
    uint64_t size;
    struct timespec mtime;
} pentry;

static int lru_first(const void *a, const void *b)
{
    const pentry *x = a, *y = b;
    if (x->mtime.tv_sec != y->mtime.tv_sec)
        return x->mtime.tv_sec < y->mtime.tv_sec ? -1 : 1;
    if (x->mtime.tv_nsec != y->mtime.tv_nsec)
        return x->mtime.tv_nsec < y->mtime.tv_nsec ? -1 : 1;
    return strcmp(x->name, y->name);
}

int zn_cache_prune(const zn_cache_prune_opts *o, zn_cache_prune_result *r)
{
    char dir[4096], path[4400];
    memset(r, 0, sizeof *r);
    if (zn_cache_entries_dir(dir, sizeof dir, 0))
        return -1;
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    pentry *e = NULL;
    size_t n = 0, cap = 0;
    time_t now = time(NULL);
    struct dirent *de;
    while ((de = readdir(d))) {
        int tmp = is_temp(de->d_name);
        if (!tmp && !entry_name(de->d_name))
            continue;
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        if (stat(path, &st) || !S_ISREG(st.st_mode))
            continue;
        int drop = 0;
        uint64_t *why = NULL;
        if (tmp) {
            drop = now - st.st_mtime > STALE_TMP_S;
            why = &r->temps;
        } else if (o->max_age_s > 0 && now - st.st_mtime > o->max_age_s) {
            drop = 1;
            why = &r->aged;
        } else if (o->verify && !entry_valid(path, de->d_name)) {
            drop = 1;
            why = &r->damaged;
        }
        if (drop) {
            if (!unlink(path)) {
                (*why)++;
                r->bytes_freed += (uint64_t)st.st_size;
            }
            continue;
        }
        if (tmp)
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            pentry *ne = realloc(e, cap * sizeof *e);
            if (!ne)
                break;
            e = ne;
        }
        memcpy(e[n].name, de->d_name, 64 + sizeof ZN_CACHE_SUFFIX); /* entry_name: 68 + NUL */
        e[n].size = (uint64_t)st.st_size;
        e[n].mtime = st.st_mtim;
        n++;
    }
    closedir(d);
    uint64_t total = 0;
    for (size_t i = 0; i < n; i++)
        total += e[i].size;
    if (total > o->max_bytes) {
        qsort(e, n, sizeof *e, lru_first);
        for (size_t i = 0; i < n && total > o->max_bytes; i++) {
            snprintf(path, sizeof path, "%s/%s", dir, e[i].name);
            if (!unlink(path)) {
                r->evicted++;
                r->bytes_freed += e[i].size;
            }
            total -= e[i].size;     /* gone either way */
        }
    }
    free(e);
    return 0;
}
