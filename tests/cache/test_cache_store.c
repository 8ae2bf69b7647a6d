/* test_cache_store.c: entries round-trip; damaged entries (flipped byte,
 * truncation, wrong key, foreign file) are refused and removed; eviction
 * keeps the cache under CUDA_CACHE_MAXSIZE and removes the least recently
 * used first; CUDA_CACHE_DISABLE turns it off; the path variables. */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "zn_cache.h"

static int failures;
#define CHECK(c, ...)                                                         \
    do {                                                                      \
        if (!(c)) {                                                           \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);              \
            fprintf(stderr, __VA_ARGS__);                                     \
            fputc('\n', stderr);                                              \
            failures++;                                                       \
        }                                                                     \
    } while (0)

static char root[256];

static zn_cache_key key_of(int i)
{
    zn_cache_key k;
    char s[32];
    snprintf(s, sizeof s, "key %d", i);
    zn_hash256(s, strlen(s), k.b);
    return k;
}

static void path_of(int i, char *out, size_t n)
{
    zn_cache_key k = key_of(i);
    char hex[65];
    zn_hex(k.b, 32, hex);
    snprintf(out, n, "%s/kernels/%s.zco", root, hex);
}

static int exists(int i)
{
    char p[512];
    path_of(i, p, sizeof p);
    return access(p, F_OK) == 0;
}

static uint8_t *payload(int i, size_t n)
{
    uint8_t *p = malloc(n);
    for (size_t j = 0; j < n; j++)
        p[j] = (uint8_t)(j * 13 + (size_t)i);
    return p;
}

/* Sets an entry's mtime `age` seconds into the past. */
static void age(int i, int secs)
{
    char p[512];
    path_of(i, p, sizeof p);
    struct timespec t[2];
    clock_gettime(CLOCK_REALTIME, &t[0]);
    t[0].tv_sec -= secs;
    t[1] = t[0];
    utimensat(AT_FDCWD, p, t, 0);
}

static void test_roundtrip(void)
{
    zn_cache_key k = key_of(1);
    uint8_t *p = payload(1, 5000);
    CHECK(zn_cache_get(&k, &(size_t){0}) == NULL, "empty cache hit");
    CHECK(zn_cache_put(&k, p, 5000) == 0, "put");
    size_t n = 0;
    uint8_t *q = zn_cache_get(&k, &n);
    CHECK(q && n == 5000 && !memcmp(p, q, n), "round trip");
    free(q);
    zn_cache_key k2 = key_of(2);
    CHECK(zn_cache_get(&k2, &n) == NULL, "other key hit");
    free(p);
}

/* Damages entry 1 with f, expects a miss and the file removed. */
static void damaged(const char *what, void (*f)(const char *path))
{
    zn_cache_key k = key_of(1);
    uint8_t *p = payload(1, 5000);
    CHECK(zn_cache_put(&k, p, 5000) == 0, "put");
    char path[512];
    path_of(1, path, sizeof path);
    f(path);
    size_t n;
    void *q = zn_cache_get(&k, &n);
    CHECK(q == NULL, "%s entry was returned", what);
    CHECK(!exists(1), "%s entry was not removed", what);
    free(q);
    /* and the entry can be written again */
    CHECK(zn_cache_put(&k, p, 5000) == 0 && (q = zn_cache_get(&k, &n)) && n == 5000,
          "rewrite after %s", what);
    free(q);
    free(p);
}

static void flip_payload(const char *path)
{
    FILE *f = fopen(path, "r+b");
    fseek(f, 96 + 1234, SEEK_SET);
    int c = fgetc(f);
    fseek(f, 96 + 1234, SEEK_SET);
    fputc(c ^ 0x10, f);
    fclose(f);
}

static void flip_magic(const char *path)
{
    FILE *f = fopen(path, "r+b");
    fputc('X', f);
    fclose(f);
}

static void truncate_half(const char *path) { truncate(path, 96 + 2500); }
static void truncate_header(const char *path) { truncate(path, 40); }

static void wrong_key(const char *path)
{
    /* a valid entry of key 7 copied under key 1's name */
    zn_cache_key k7 = key_of(7);
    uint8_t *p = payload(1, 5000);
    zn_cache_put(&k7, p, 5000);
    char p7[512];
    path_of(7, p7, sizeof p7);
    rename(p7, path);
    free(p);
}

static void test_damage(void)
{
    damaged("a corrupted", flip_payload);
    damaged("a bad-magic", flip_magic);
    damaged("a truncated", truncate_half);
    damaged("a header-only", truncate_header);
    damaged("another key's", wrong_key);
}

static void test_eviction(void)
{
    zn_cache_clear();
    /* 10 entries of 10000 bytes (+96 header) under a 50000-byte limit */
    setenv("CUDA_CACHE_MAXSIZE", "50000", 1);
    uint8_t *p = payload(3, 10000);
    for (int i = 10; i < 14; i++) {
        zn_cache_key k = key_of(i);
        CHECK(zn_cache_put(&k, p, 10000) == 0, "put %d", i);
        age(i, 100 - i); /* 10 is the oldest */
    }
    /* a hit makes 10 the most recently used: 11 is now the oldest */
    size_t n;
    zn_cache_key k10 = key_of(10);
    void *q = zn_cache_get(&k10, &n);
    CHECK(q != NULL, "hit 10");
    free(q);
    for (int i = 14; i < 20; i++) {
        zn_cache_key k = key_of(i);
        CHECK(zn_cache_put(&k, p, 10000) == 0, "put %d", i);
        age(i, 60 - i);
        zn_cache_stats st;
        zn_cache_stat(&st);
        CHECK(st.bytes <= 50000, "cache holds %llu bytes > max", (unsigned long long)st.bytes);
    }
    /* 4 entries fit (4 * 10096): 10 (used after 11..13 were written and
     * newer than the aged 14..19) and the three newest, 17..19 */
    for (int i = 10; i < 20; i++)
        CHECK(exists(i) == (i == 10 || i >= 17), "entry %d %s", i,
              exists(i) ? "kept" : "evicted");
    /* with a limit of 2 entries, the one just used and the newest stay */
    age(10, 200);
    zn_cache_key k17 = key_of(17);
    q = zn_cache_get(&k17, &n);
    free(q);
    zn_cache_evict(2 * 10096);
    CHECK(exists(17) && exists(19) && !exists(10) && !exists(18),
          "LRU: 17 (just used) and 19 (newest) should stay");
    /* an entry larger than the whole cache is not stored */
    setenv("CUDA_CACHE_MAXSIZE", "5000", 1);
    zn_cache_key k30 = key_of(30);
    CHECK(zn_cache_put(&k30, p, 10000) != 0 && !exists(30), "oversized entry stored");
    unsetenv("CUDA_CACHE_MAXSIZE");
    CHECK(zn_cache_max_size() == 1ull << 30, "default max size");
    free(p);
}

static void test_disable(void)
{
    zn_cache_clear();
    zn_cache_key k = key_of(40);
    uint8_t *p = payload(40, 100);
    setenv("CUDA_CACHE_DISABLE", "1", 1);
    CHECK(!zn_cache_enabled(), "CUDA_CACHE_DISABLE=1 not seen");
    CHECK(zn_cache_put(&k, p, 100) != 0 && !exists(40), "stored while disabled");
    setenv("CUDA_CACHE_DISABLE", "0", 1);
    CHECK(zn_cache_enabled(), "CUDA_CACHE_DISABLE=0 disables");
    CHECK(zn_cache_put(&k, p, 100) == 0, "put");
    setenv("CUDA_CACHE_DISABLE", "1", 1);
    size_t n;
    CHECK(zn_cache_get(&k, &n) == NULL, "hit while disabled");
    unsetenv("CUDA_CACHE_DISABLE");
    void *q = zn_cache_get(&k, &n);
    CHECK(q != NULL, "entry lost by disabling");
    free(q);
    free(p);
}

static void test_paths(void)
{
    char d[512];
    setenv("CUDA_CACHE_PATH", "/x/y/", 1);
    CHECK(!zn_cache_dir(d, sizeof d) && !strcmp(d, "/x/y"), "CUDA_CACHE_PATH: %s", d);
    unsetenv("CUDA_CACHE_PATH");
    setenv("XDG_CACHE_HOME", "/xdg", 1);
    CHECK(!zn_cache_dir(d, sizeof d) && !strcmp(d, "/xdg/zinc"), "XDG_CACHE_HOME: %s", d);
    unsetenv("XDG_CACHE_HOME");
    setenv("HOME", "/home/u", 1);
    CHECK(!zn_cache_dir(d, sizeof d) && !strcmp(d, "/home/u/.cache/zinc"), "HOME: %s", d);
    setenv("CUDA_CACHE_PATH", root, 1);
}

int main(void)
{
    snprintf(root, sizeof root, "/tmp/zn-cache-store-XXXXXX");
    if (!mkdtemp(root))
        return 2;
    setenv("CUDA_CACHE_PATH", root, 1);
    unsetenv("CUDA_CACHE_DISABLE");
    unsetenv("CUDA_CACHE_MAXSIZE");
    CHECK(strlen(zn_build_id()) == 64, "build id '%s'", zn_build_id());
    test_roundtrip();
    test_damage();
    test_eviction();
    test_disable();
    test_paths();
    zn_cache_clear();
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", root);
    if (!failures)
        printf("cache store: all checks passed\n");
    return failures != 0;
}
