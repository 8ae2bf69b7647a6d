/* zn_cache_config.c: where the cache is and how big it may grow, from
 * NVIDIA's environment variables (read on every call: cheap, and tests
 * change them). */
#include "zn_cache.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_MAX (1ull << 30)

int zn_cache_enabled(void)
{
    const char *s = getenv("CUDA_CACHE_DISABLE");
    return !(s && *s && strtol(s, NULL, 10) != 0);
}

int zn_cache_dir(char *buf, size_t n)
{
    const char *p = getenv("CUDA_CACHE_PATH");
    int k;
    if (p && *p) {
        k = snprintf(buf, n, "%s", p);
    } else if ((p = getenv("XDG_CACHE_HOME")) && *p == '/') {
        k = snprintf(buf, n, "%s/zinc", p);
    } else if ((p = getenv("HOME")) && *p) {
        k = snprintf(buf, n, "%s/.cache/zinc", p);
    } else {
        return -1;
    }
    if (k <= 0 || (size_t)k >= n)
        return -1;
    while (k > 1 && buf[k - 1] == '/')
        buf[--k] = 0;
    return 0;
}

uint64_t zn_cache_max_size(void)
{
    const char *s = getenv("CUDA_CACHE_MAXSIZE");
    if (!s || !*s)
        return DEFAULT_MAX;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    return (*end || v == 0) ? DEFAULT_MAX : v;
}
