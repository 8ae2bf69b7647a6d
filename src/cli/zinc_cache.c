/* zinc_cache.c: `zinc cache`: look at and manage the kernel cache
 * (docs/cache.md). */
#include "zinc_cli.h"

#include <stdio.h>
#include <string.h>
#include "cache/zn_cache.h"

static void cache_usage(FILE *f)
{
    fprintf(f, "usage: zinc cache [info|path|clear|evict|warm APP...]\n"
               "  info   where the cache is, its size and limit (default)\n"
               "  path   print the cache folder\n"
               "  clear  remove every entry\n"
               "  evict  remove least recently used entries beyond CUDA_CACHE_MAXSIZE\n"
               "  warm   compile APP's kernels into the cache without running it\n");
}

int zinc_cmd_cache(int argc, char **argv)
{
    const char *what = argc > 0 ? argv[0] : "info";
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
    if (!strcmp(what, "evict")) {
        int n = zn_cache_evict(zn_cache_max_size());
        printf("evicted %d entr%s\n", n, n == 1 ? "y" : "ies");
        return 0;
    }
    if (strcmp(what, "info")) {
        fprintf(stderr, "zinc cache: unknown action '%s'\n", what);
        cache_usage(stderr);
        return 1;
    }
    zn_cache_stats st;
    zn_cache_stat(&st);
    printf("kernel cache: %s\n", zn_cache_enabled() ? "enabled" : "disabled (CUDA_CACHE_DISABLE)");
    printf("folder:       %s/kernels\n", have_dir ? dir : "(none)");
    printf("entries:      %llu\n", (unsigned long long)st.entries);
    printf("size:         %llu bytes\n", (unsigned long long)st.bytes);
    printf("max size:     %llu bytes (CUDA_CACHE_MAXSIZE)\n", (unsigned long long)st.max_bytes);
    printf("compiler:     %s, build %.16s\n", ZINC_COMPILER_VERSION, zn_build_id());
    return 0;
}
