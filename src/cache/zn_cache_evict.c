/* zn_cache_evict.c: the cache as a whole: size, least-recently-used
 * eviction (a hit refreshes an entry's mtime), clearing. Several processes
 * may evict at once: a file already gone is simply skipped. */
#include "zn_cache_internal.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* A temp file older than this was left by a writer that died. */
#define STALE_TMP_S 600

typedef struct entry {
    char name[80];
    uint64_t size;
    struct timespec mtime;
} entry;

static int is_entry_name(const char *n)
{
    size_t k = strlen(n);
    if (k != 64 + strlen(ZN_CACHE_SUFFIX) || strcmp(n + 64, ZN_CACHE_SUFFIX))
        return 0;
    for (int i = 0; i < 64; i++)
        if (!strchr("0123456789abcdef", n[i]))
            return 0;
    return 1;
}

/* Lists the entries (and removes stale temp files); count or -1. */
static int list(const char *dir, entry **out)
{
    DIR *d = opendir(dir);
    *out = NULL;
    if (!d)
        return -1;
    int n = 0, cap = 0;
    time_t now = time(NULL);
    struct dirent *de;
    char path[4400];
    while ((de = readdir(d))) {
        int tmp = !strncmp(de->d_name, ZN_CACHE_TMP_PREFIX, strlen(ZN_CACHE_TMP_PREFIX));
        if (!tmp && !is_entry_name(de->d_name))
            continue;
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        if (stat(path, &st) || !S_ISREG(st.st_mode))
            continue;
        if (tmp) {
            if (now - st.st_mtime > STALE_TMP_S)
                unlink(path);
            continue;
        }
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            entry *e = realloc(*out, (size_t)cap * sizeof *e);
            if (!e)
                break;
            *out = e;
        }
        entry *e = &(*out)[n++];
        snprintf(e->name, sizeof e->name, "%.70s", de->d_name); /* entries: 68 chars */
        e->size = (uint64_t)st.st_size;
        e->mtime = st.st_mtim;
    }
    closedir(d);
    return n;
}

static int older_first(const void *a, const void *b)
{
    const entry *x = a, *y = b;
    if (x->mtime.tv_sec != y->mtime.tv_sec)
        return x->mtime.tv_sec < y->mtime.tv_sec ? -1 : 1;
    if (x->mtime.tv_nsec != y->mtime.tv_nsec)
        return x->mtime.tv_nsec < y->mtime.tv_nsec ? -1 : 1;
    return strcmp(x->name, y->name);
}

int zn_cache_evict(uint64_t max)
{
    char dir[4096], path[4400];
    entry *e;
    if (zn_cache_entries_dir(dir, sizeof dir, 0))
        return 0;
    int n = list(dir, &e);
    uint64_t total = 0;
    for (int i = 0; i < n; i++)
        total += e[i].size;
    int removed = 0;
    if (total > max) {
        qsort(e, (size_t)n, sizeof *e, older_first);
        for (int i = 0; i < n && total > max; i++) {
            snprintf(path, sizeof path, "%s/%s", dir, e[i].name);
            if (!unlink(path))
                removed++;
            total -= e[i].size; /* gone either way: someone else removed it */
        }
    }
    free(e);
    return removed;
}

int zn_cache_stat(zn_cache_stats *st)
{
    char dir[4096];
    entry *e;
    memset(st, 0, sizeof *st);
    st->max_bytes = zn_cache_max_size();
    if (zn_cache_entries_dir(dir, sizeof dir, 0))
        return -1;
    int n = list(dir, &e);
    for (int i = 0; i < n; i++)
        st->bytes += e[i].size;
    st->entries = n > 0 ? (uint64_t)n : 0;
    free(e);
    return 0;
}

int zn_cache_clear(void)
{
    char dir[4096], path[4400];
    entry *e;
    if (zn_cache_entries_dir(dir, sizeof dir, 0))
        return 0;
    int n = list(dir, &e), removed = 0;
    for (int i = 0; i < n; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, e[i].name);
        removed += unlink(path) == 0;
    }
    free(e);
    return removed;
}
