/* test_cache_compile.c: the compiler through the kernel cache. A second
 * compile of the same PTX is a hit and runs correctly with variables at
 * other addresses (objects do not embed them); corrupted, truncated and
 * undecodable entries are recompiled, never run; CUDA_CACHE_DISABLE; and
 * several processes compiling the same module at once (this program runs
 * itself as the children: `test_cache_compile child`). */
#include <dirent.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "zn_cache.h"
#include "zn_test_harness.h"

extern char **environ;

static const char *ptx =
    ".version 8.0\n.target sm_80\n.address_size 64\n"
    ".global .align 4 .u32 gtab[4] = {10, 20, 30, 40};\n"
    ".const .align 4 .u32 cadd = 7;\n"
    ".visible .entry k(.param .u64 out)\n{\n"
    "\t.reg .b32 %r<8>;\n\t.reg .b64 %rd<8>;\n"
    "\tld.param.u64 %rd1, [out];\n"
    "\tcvta.to.global.u64 %rd2, %rd1;\n"
    "\tmov.u32 %r1, %tid.x;\n"
    "\tand.b32 %r2, %r1, 3;\n"
    "\tmul.wide.u32 %rd3, %r2, 4;\n"
    "\tmov.u64 %rd4, gtab;\n"
    "\tadd.s64 %rd5, %rd4, %rd3;\n"
    "\tld.global.u32 %r3, [%rd5];\n"
    "\tld.const.u32 %r4, [cadd];\n"
    "\tadd.s32 %r5, %r3, %r4;\n"
    "\tmul.wide.u32 %rd6, %r1, 4;\n"
    "\tadd.s64 %rd7, %rd2, %rd6;\n"
    "\tst.global.u32 [%rd7], %r5;\n"
    "\tret;\n}\n";

static char root[256];
static ptx_module *pm;

/* Compiles with fresh variables holding tab[] and add, runs 64 threads and
 * checks out[i] = tab[i % 4] + add. Returns the number of failures. */
static int compile_and_run(const uint32_t tab[4], uint32_t add, const char *what)
{
    int before = zt_failures;
    /* allocations of different sizes: different addresses each time */
    static size_t pad = 16;
    pad += 4096;
    uint8_t *gmem = calloc(1, pad), *cmem = calloc(1, 64);
    uint32_t *g = (uint32_t *)(gmem + pad - 16);
    memcpy(g, tab, 16);
    memcpy(cmem, &add, 4);
    zn_global_addr globals[2] = {{"gtab", g}, {"cadd", cmem}};
    zn_compile_opts o = {.opt_level = 2, .globals = globals, .nglobals = 2};
    char err[512];
    zn_jit_module *jm = zn_compile(pm, &o, err, sizeof err);
    CHECK(jm != NULL, "%s: compile: %s", what, err);
    if (jm) {
        uint32_t out[64];
        memset(out, 0x5a, sizeof out);
        uint32_t *po = out;
        void *args[] = {&po};
        CHECK(zt_run(jm, "k", ZT_DIM1(1), ZT_DIM1(64), 0, args) == 0, "%s: run", what);
        for (int i = 0; i < 64; i++)
            CHECK(out[i] == tab[i % 4] + add, "%s: out[%d] = %u, want %u", what, i,
                  out[i], tab[i % 4] + add);
        zn_jit_module_free(jm);
    }
    free(gmem);
    free(cmem);
    return zt_failures - before;
}

static zn_cache_counts counts(void)
{
    zn_cache_counts c;
    zn_cache_get_counts(&c);
    return c;
}

/* The one entry's path (the cache must hold exactly one). */
static int entry_path(char *out, size_t n)
{
    char dir[300];
    snprintf(dir, sizeof dir, "%s/kernels", root);
    DIR *d = opendir(dir);
    int found = 0;
    struct dirent *de;
    while (d && (de = readdir(d)))
        if (strstr(de->d_name, ".zco")) {
            snprintf(out, n, "%s/%s", dir, de->d_name);
            found++;
        }
    if (d)
        closedir(d);
    return found;
}

static const uint32_t tab1[4] = {10, 20, 30, 40}, tab2[4] = {1, 2, 3, 4};

static void test_hit(void)
{
    zn_cache_counts c0 = counts();
    compile_and_run(tab1, 7, "first compile");
    zn_cache_counts c1 = counts();
    CHECK(c1.misses == c0.misses + 1 && c1.stores == c0.stores + 1 && c1.hits == c0.hits,
          "first compile should miss and store");
    char p[600];
    CHECK(entry_path(p, sizeof p) == 1, "one entry expected");
    /* other addresses, other values: the cached object binds them at load */
    compile_and_run(tab2, 100, "cached compile");
    zn_cache_counts c2 = counts();
    CHECK(c2.hits == c1.hits + 1 && c2.stores == c1.stores, "second compile should hit");
}

/* detected: the file check catches it (else only loading the object does) */
static void damage_and_recompile(const char *what, void (*damage)(const char *),
                                 int detected)
{
    char p[600];
    if (entry_path(p, sizeof p) != 1) {
        CHECK(0, "%s: no entry", what);
        return;
    }
    damage(p);
    zn_cache_counts c0 = counts();
    compile_and_run(tab2, 5, what);
    zn_cache_counts c1 = counts();
    if (detected)
        CHECK(c1.hits == c0.hits && c1.damaged == c0.damaged + 1,
              "%s: the damaged entry was not refused", what);
    CHECK(c1.stores == c0.stores + 1, "%s: not recompiled and stored", what);
    /* repaired: the next compile hits */
    compile_and_run(tab1, 9, what);
    CHECK(counts().hits == c1.hits + 1, "%s: entry not repaired", what);
}

static void flip_byte(const char *path)
{
    FILE *f = fopen(path, "r+b");
    fseek(f, 0, SEEK_END);
    long mid = ftell(f) / 2;
    fseek(f, mid, SEEK_SET);
    int c = fgetc(f);
    fseek(f, mid, SEEK_SET);
    fputc(c ^ 0x01, f);
    fclose(f);
}

static void truncate_entry(const char *path)
{
    FILE *f = fopen(path, "r+b");
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fclose(f);
    CHECK(truncate(path, n - 100) == 0, "truncate");
}

/* A well-formed entry whose payload is not an object file. */
static void garbage_object(const char *path)
{
    const char *name = strrchr(path, '/') + 1;
    zn_cache_key key;
    for (int i = 0; i < 32; i++) {
        unsigned b;
        sscanf(name + 2 * i, "%2x", &b);
        key.b[i] = (uint8_t)b;
    }
    static const char junk[] = "\177ELF but not really an object file";
    CHECK(zn_cache_put(&key, junk, sizeof junk) == 0, "put garbage");
}

static void test_disable(void)
{
    zn_cache_clear();
    setenv("CUDA_CACHE_DISABLE", "1", 1);
    zn_cache_counts c0 = counts();
    compile_and_run(tab1, 1, "disabled");
    compile_and_run(tab1, 2, "disabled");
    zn_cache_counts c1 = counts();
    char p[600];
    CHECK(c1.hits == c0.hits && c1.stores == c0.stores && entry_path(p, sizeof p) == 0,
          "CUDA_CACHE_DISABLE=1: the cache was used");
    unsetenv("CUDA_CACHE_DISABLE");
}

static void test_processes(const char *self)
{
    enum { N = 4 };
    zn_cache_clear();
    pid_t pid[N];
    char *argv[] = {(char *)self, "child", NULL};
    for (int i = 0; i < N; i++)
        CHECK(posix_spawn(&pid[i], self, NULL, NULL, argv, environ) == 0, "spawn");
    for (int i = 0; i < N; i++) {
        int st = -1;
        waitpid(pid[i], &st, 0);
        CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child %d failed (status %d)", i, st);
    }
    char p[600];
    CHECK(entry_path(p, sizeof p) == 1, "concurrent compiles: one entry expected");
    zn_cache_counts c0 = counts();
    compile_and_run(tab2, 3, "after concurrent compiles");
    CHECK(counts().hits == c0.hits + 1, "entry written concurrently is not valid");
}

int main(int argc, char **argv)
{
    char err[512];
    pm = ptx_parse(ptx, strlen(ptx), "cache.ptx", err, sizeof err);
    if (!pm) {
        fprintf(stderr, "parse: %s\n", err);
        return 1;
    }
    if (argc > 1 && !strcmp(argv[1], "child")) {
        int bad = compile_and_run(tab1, 11, "child");
        ptx_module_free(pm);
        return bad != 0;
    }
    snprintf(root, sizeof root, "/tmp/zn-cache-compile-XXXXXX");
    if (!mkdtemp(root))
        return 2;
    setenv("CUDA_CACHE_PATH", root, 1);
    unsetenv("CUDA_CACHE_DISABLE");
    unsetenv("CUDA_CACHE_MAXSIZE");

    test_hit();
    damage_and_recompile("corrupted entry", flip_byte, 1);
    damage_and_recompile("truncated entry", truncate_entry, 1);
    damage_and_recompile("undecodable object", garbage_object, 0);
    test_disable();
    test_processes(argv[0]);

    zn_cache_clear();
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", root);
    ptx_module_free(pm);
    if (zt_failures)
        fprintf(stderr, "%d check(s) failed\n", zt_failures);
    else
        printf("cache compile: all checks passed\n");
    return zt_failures != 0;
}
