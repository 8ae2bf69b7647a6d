/* zinc_cache.c: `zinc cache`: look at and manage the kernel cache
 * (docs/cache.md). `info` and `evict` are the older names of `stats` and
 * `prune`. */
#include "zinc_cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "cache/zn_cache.h"
#include "cache/zn_cache_admin.h"

static void cache_usage(FILE *f)
{
    fprintf(f, "usage: zinc cache [stats|path|prune|clear|warm APP...]\n"
               "  stats  where the cache is, entries, size, limit, ages (default;\n"
               "         alias: info)\n"
               "  path   print the cache folder\n"
               "  prune [--max-size BYTES] [--older-than AGE] [--verify]\n"
               "         remove least recently used entries beyond the limit\n"
               "         (CUDA_CACHE_MAXSIZE by default), entries unused for AGE\n"
               "         (seconds, or with s/m/h/d), with --verify damaged entries,\n"
               "         and temp files of writers that died (alias: evict)\n"
               "  clear  remove every entry\n"
               "  warm   compile APP's kernels into the cache without running it\n");
}

/* "90", "30m", "12h", "7d" as seconds; -1 if malformed. */
static int64_t parse_age(const char *s)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || v < 0)
        return -1;
    int64_t mul = !*end ? 1 : !strcmp(end, "s") ? 1 : !strcmp(end, "m") ? 60
                : !strcmp(end, "h") ? 3600 : !strcmp(end, "d") ? 86400 : 0;
    if (!mul || v > INT64_MAX / mul)
        return -1;
    return (int64_t)v * mul;
}

static int parse_size(const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s || *end || s[0] == '-')
        return -1;
    *out = v;
    return 0;
}

static int cache_prune(int argc, char **argv, int old_name)
{
    zn_cache_prune_opts o = { .max_bytes = zn_cache_max_size(), .max_age_s = 0 };
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--verify")) {
            o.verify = 1;
        } else if (!strcmp(a, "--max-size") && i + 1 < argc) {
            if (parse_size(argv[++i], &o.max_bytes)) {
                fprintf(stderr, "zinc cache prune: bad size '%s'\n", argv[i]);
                return 1;
            }
        } else if (!strcmp(a, "--older-than") && i + 1 < argc) {
            o.max_age_s = parse_age(argv[++i]);
            if (o.max_age_s < 0) {
                fprintf(stderr, "zinc cache prune: bad age '%s'\n", argv[i]);
                return 1;
            }
        } else {
            fprintf(stderr, "zinc cache prune: unknown argument '%s'\n", a);
            cache_usage(stderr);
            return 1;
        }
    }
    zn_cache_prune_result r;
    if (zn_cache_prune(&o, &r) != 0) {
        printf("no cache folder: nothing to prune\n");
        return 0;
    }
    if (old_name) {     /* the output `zinc cache evict` always had */
        printf("evicted %llu entr%s\n", (unsigned long long)r.evicted,
               r.evicted == 1 ? "y" : "ies");
        return 0;
    }
    printf("evicted %llu (least recently used), aged %llu, damaged %llu, temp files %llu; "
           "%llu bytes freed\n", (unsigned long long)r.evicted, (unsigned long long)r.aged,
           (unsigned long long)r.damaged, (unsigned long long)r.temps,
           (unsigned long long)r.bytes_freed);
    return 0;
}

static void print_age(const char *label, int64_t t, time_t now)
{
    if (!t) {
        printf("%s-\n", label);
        return;
    }
    long long s = (long long)(now - t);
    if (s < 0)
        s = 0;
    if (s < 3600)
        printf("%s%lld s ago\n", label, s);
    else if (s < 86400 * 2)
        printf("%s%lld h ago\n", label, s / 3600);
    else
        printf("%s%lld days ago\n", label, s / 86400);
}

static int cache_stats(int have_dir, const char *dir)
{
    zn_cache_usage u;
    zn_cache_usage_get(&u);
    time_t now = time(NULL);
    printf("kernel cache: %s\n", zn_cache_enabled() ? "enabled" : "disabled (CUDA_CACHE_DISABLE)");
    printf("folder:       %s/kernels\n", have_dir ? dir : "(none)");
    printf("entries:      %llu\n", (unsigned long long)u.entries);
    printf("size:         %llu bytes\n", (unsigned long long)u.bytes);
    printf("max size:     %llu bytes (CUDA_CACHE_MAXSIZE)\n", (unsigned long long)u.max_bytes);
    printf("used:         %.1f%%\n", u.max_bytes ? 100.0 * (double)u.bytes / (double)u.max_bytes
                                                 : 0.0);
    printf("largest:      %llu bytes\n", (unsigned long long)u.largest);
    printf("mean:         %llu bytes\n",
           (unsigned long long)(u.entries ? u.bytes / u.entries : 0));
    print_age("least recent: ", u.oldest, now);
    print_age("most recent:  ", u.newest, now);
    printf("temp files:   %llu\n", (unsigned long long)u.temps);
    printf("other files:  %llu\n", (unsigned long long)u.others);
    printf("compiler:     %s, build %.16s\n", ZINC_COMPILER_VERSION, zn_build_id());
    return 0;
}

int zinc_cmd_cache(int argc, char **argv)
{
    const char *what = argc > 0 ? argv[0] : "stats";
    char dir[4096];
    int have_dir = zn_cache_dir(dir, sizeof dir) == 0;
    if (!strcmp(what, "-h") || !strcmp(what, "--help")) {
        cache_usage(stdout);
        return 0;
    }
    if (!strcmp(what, "warm"))
        return zinc_cache_warm(argc - 1, argv + 1);
    if (!strcmp(what, "path")) {
        if (!have_dir) {
            fprintf(stderr, "zinc cache: no cache folder (set CUDA_CACHE_PATH or HOME)\n");
            return 1;
        }
        printf("%s\n", dir);
        return 0;
    }
    if (!strcmp(what, "clear")) {
        printf("removed %d entr%s\n", zn_cache_clear(), "ies");
        return 0;
    }
    if (!strcmp(what, "prune") || !strcmp(what, "evict"))
        return cache_prune(argc - 1, argv + 1, !strcmp(what, "evict"));
    if (!strcmp(what, "stats") || !strcmp(what, "info"))
        return cache_stats(have_dir, dir);
    fprintf(stderr, "zinc cache: unknown action '%s'\n", what);
    cache_usage(stderr);
    return 1;
}
