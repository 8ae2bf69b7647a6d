/* test_cache_race.c: 8 processes share one empty kernel cache at once.
 *
 * Every child compiles and runs the same module (the one every process
 * races on) and, between those, modules of its own whose stores push the
 * cache past a CUDA_CACHE_MAXSIZE of about three entries, so entries are
 * evicted and rewritten while the others read them. Checked: every compile
 * succeeds and its kernel computes the CPU reference; no child ever read a
 * damaged entry (the store's reads check header and BLAKE2b checksum and
 * count what they refuse); hits happened; afterwards the folder holds no
 * temp file, stays within the limit, and every entry in it reads back
 * valid. The children are this program run as `test_cache_race child I`. */
#include <dirent.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "zn_cache.h"
#include "zn_test_harness.h"

extern char **environ;

#define NPROC 8
#define ROUNDS 6

/* out[i] = tab[i % 4] + K; K is what makes modules differ (the key covers
 * the PTX). */
static const char ptx_fmt[] =
    ".version 8.0\n.target sm_80\n.address_size 64\n"
    ".global .align 4 .u32 gtab[4];\n"
    ".visible .entry k(.param .u64 out)\n{\n"
    "\t.reg .b32 %%r<8>;\n\t.reg .b64 %%rd<8>;\n"
    "\tld.param.u64 %%rd1, [out];\n"
    "\tcvta.to.global.u64 %%rd2, %%rd1;\n"
    "\tmov.u32 %%r1, %%tid.x;\n"
    "\tand.b32 %%r2, %%r1, 3;\n"
    "\tmul.wide.u32 %%rd3, %%r2, 4;\n"
    "\tmov.u64 %%rd4, gtab;\n"
    "\tadd.s64 %%rd5, %%rd4, %%rd3;\n"
    "\tld.global.u32 %%r3, [%%rd5];\n"
    "\tadd.s32 %%r5, %%r3, %u;\n"
    "\tmul.wide.u32 %%rd6, %%r1, 4;\n"
    "\tadd.s64 %%rd7, %%rd2, %%rd6;\n"
    "\tst.global.u32 [%%rd7], %%r5;\n"
    "\tret;\n}\n";

/* Compiles the module with constant k, runs 64 threads, checks them. */
static int compile_and_run(uint32_t k, const char *what)
{
    int before = zt_failures;
    char text[sizeof ptx_fmt + 16], err[512];
    snprintf(text, sizeof text, ptx_fmt, k);
    ptx_module *pm = ptx_parse(text, strlen(text), "race.ptx", err, sizeof err);
    CHECK(pm != NULL, "%s: parse: %s", what, err);
    if (!pm)
        return 1;
    uint32_t tab[4] = { 3, 1000, 77, 123456 };
    zn_global_addr globals[1] = { { "gtab", tab } };
    zn_compile_opts o = { .opt_level = 2, .globals = globals, .nglobals = 1 };
    zn_jit_module *jm = zn_compile(pm, &o, err, sizeof err);
    CHECK(jm != NULL, "%s: compile: %s", what, err);
    if (jm) {
        uint32_t out[64];
        memset(out, 0x5a, sizeof out);
        uint32_t *po = out;
        void *args[] = { &po };
        CHECK(zt_run(jm, "k", ZT_DIM1(1), ZT_DIM1(64), 0, args) == 0, "%s: run", what);
        for (int i = 0; i < 64; i++)
            CHECK(out[i] == tab[i % 4] + k, "%s: out[%d] = %u, want %u", what, i, out[i],
                  tab[i % 4] + k);
        zn_jit_module_free(jm);
    }
    ptx_module_free(pm);
    return zt_failures - before;
}

/* A child: the shared module (k = 0) and its own ones in turn. Reports its
 * counts on stdout as "counts HITS MISSES DAMAGED STORES". */
static int child(int me)
{
    for (int r = 0; r < ROUNDS; r++) {
        compile_and_run(0, "shared module");
        compile_and_run(1u + (uint32_t)me * 100u + (uint32_t)r, "own module");
    }
    zn_cache_counts c;
    zn_cache_get_counts(&c);
    printf("counts %llu %llu %llu %llu\n", (unsigned long long)c.hits,
           (unsigned long long)c.misses, (unsigned long long)c.damaged,
           (unsigned long long)c.stores);
    return zt_failures != 0;
}

/* Size of one entry, from a compile into a scratch cache of our own. */
static long long entry_size(const char *dir)
{
    char kdir[512], path[1024];
    snprintf(kdir, sizeof kdir, "%s/kernels", dir);
    DIR *d = opendir(kdir);
    long long sz = -1;
    struct dirent *de;
    while (d && (de = readdir(d))) {
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", kdir, de->d_name);
        if (strstr(de->d_name, ".zco") && !stat(path, &st))
            sz = (long long)st.st_size;
    }
    if (d)
        closedir(d);
    return sz;
}

static int hexval(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* After the race: no temp files, the limit holds, every entry reads back
 * valid through the checked read. */
static void check_folder(const char *root, long long max)
{
    char kdir[512], path[1024];
    snprintf(kdir, sizeof kdir, "%s/kernels", root);
    DIR *d = opendir(kdir);
    CHECK(d != NULL, "no kernels folder in %s", root);
    if (!d)
        return;
    zn_cache_counts c0, c1;
    zn_cache_get_counts(&c0);
    long long total = 0;
    int entries = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (de->d_name[0] == '.' && (!de->d_name[1] || !strcmp(de->d_name, "..")))
            continue;
        CHECK(strncmp(de->d_name, ".tmp-", 5), "temp file left behind: %s", de->d_name);
        if (strlen(de->d_name) != 68 || strcmp(de->d_name + 64, ".zco"))
            continue;
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", kdir, de->d_name);
        if (stat(path, &st))
            continue;
        total += (long long)st.st_size;
        entries++;
        zn_cache_key key;
        for (int i = 0; i < 32; i++)
            key.b[i] = (uint8_t)(hexval(de->d_name[2 * i]) << 4 | hexval(de->d_name[2 * i + 1]));
        size_t len = 0;
        void *p = zn_cache_get(&key, &len);
        CHECK(p != NULL && len > 0, "entry %s does not read back", de->d_name);
        free(p);
    }
    closedir(d);
    zn_cache_get_counts(&c1);
    CHECK(c1.damaged == c0.damaged, "%llu damaged entries in the folder",
          (unsigned long long)(c1.damaged - c0.damaged));
    CHECK(entries > 0, "the race left no entry");
    CHECK(total <= max, "entries take %lld bytes, limit %lld", total, max);
    printf("folder after the race: %d entries, %lld bytes (limit %lld)\n", entries, total, max);
}

int main(int argc, char **argv)
{
    if (argc > 2 && !strcmp(argv[1], "child"))
        return child(atoi(argv[2]));

    char root[64], probe[64];
    snprintf(root, sizeof root, "/tmp/zn-cache-race-XXXXXX");
    snprintf(probe, sizeof probe, "/tmp/zn-cache-probe-XXXXXX");
    if (!mkdtemp(root) || !mkdtemp(probe))
        return 2;
    unsetenv("CUDA_CACHE_DISABLE");
    unsetenv("CUDA_CACHE_MAXSIZE");
    setenv("CUDA_CACHE_PATH", probe, 1);
    compile_and_run(0, "probe");
    long long esz = entry_size(probe);
    CHECK(esz > 0, "the probe compile stored no entry");
    if (esz <= 0)
        return 1;
    /* about three entries: each child's own stores evict the shared one */
    long long max = esz * 3 + esz / 2;
    char maxs[32];
    snprintf(maxs, sizeof maxs, "%lld", max);
    setenv("CUDA_CACHE_PATH", root, 1);
    setenv("CUDA_CACHE_MAXSIZE", maxs, 1);

    pid_t pid[NPROC];
    int fds[NPROC][2];
    for (int i = 0; i < NPROC; i++) {
        char idx[16];
        snprintf(idx, sizeof idx, "%d", i);
        char *cargv[] = { argv[0], (char *)"child", idx, NULL };
        posix_spawn_file_actions_t fa;
        posix_spawn_file_actions_init(&fa);
        if (pipe(fds[i]) != 0)
            return 2;
        posix_spawn_file_actions_adddup2(&fa, fds[i][1], 1);
        posix_spawn_file_actions_addclose(&fa, fds[i][0]);
        CHECK(posix_spawn(&pid[i], argv[0], &fa, NULL, cargv, environ) == 0, "spawn %d", i);
        posix_spawn_file_actions_destroy(&fa);
        close(fds[i][1]);
    }
    unsigned long long hits = 0, stores = 0;
    for (int i = 0; i < NPROC; i++) {
        char buf[4096];
        size_t n = 0;
        ssize_t k;
        while (n < sizeof buf - 1 && (k = read(fds[i][0], buf + n, sizeof buf - 1 - n)) > 0)
            n += (size_t)k;
        buf[n] = 0;
        close(fds[i][0]);
        int st = 0;
        waitpid(pid[i], &st, 0);
        CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child %d failed (status %d): %s", i,
              st, buf);
        unsigned long long h, m, dmg, s;
        const char *line = strstr(buf, "counts ");
        CHECK(line && sscanf(line, "counts %llu %llu %llu %llu", &h, &m, &dmg, &s) == 4,
              "child %d: no counts in its output", i);
        if (line) {
            CHECK(dmg == 0, "child %d read %llu damaged entries", i, dmg);
            CHECK(h + m >= 2 * ROUNDS, "child %d: %llu lookups, want %d", i, h + m, 2 * ROUNDS);
            hits += h;
            stores += s;
        }
    }
    CHECK(hits > 0, "no child ever hit the cache");
    CHECK(stores > 0, "no child stored an entry");
    printf("%d processes: %llu hits, %llu stores\n", NPROC, hits, stores);
    check_folder(root, max);

    char cmd[200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s'", root, probe);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", root);
    if (zt_failures)
        fprintf(stderr, "%d check(s) failed\n", zt_failures);
    else
        printf("cache race: all checks passed\n");
    return zt_failures != 0;
}
