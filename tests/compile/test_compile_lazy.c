/* test_compile_lazy.c: lazy compilation (zn_jit_open). Opening compiles
 * nothing; a kernel's first zn_jit_kernel_ready compiles its unit only (the
 * kernel and the .funcs it calls); kernels that share a .func both work in
 * one JIT; two threads readying one kernel at once compile it once; eager
 * opens compile every kernel (in parallel); a module whose initialiser
 * takes a function's address is one unit, compiled at open; a warm second
 * open loads each unit from the kernel cache without compiling; ZINC_OPT=0
 * code computes the same; a kernel's first block shape gets code of its
 * own and other shapes the generic code (zn_jit_kernel_code), except where
 * the generic code came first (eager, cuFuncLoad, a warmed cache) or
 * ZINC_NO_SPECIALIZE=1. Results are checked against C references. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "zn_cache.h"
#include "zn_test_harness.h"

static const char *ptx_three =
    ".version 8.0\n.target sm_80\n.address_size 64\n"
    ".global .align 4 .u32 bias = 5;\n"
    /* helper(x) = x * 3 + bias */
    ".func (.param .b32 r) helper(.param .b32 x)\n{\n"
    "\t.reg .b32 %r<5>;\n"
    "\tld.param.u32 %r1, [x];\n"
    "\tld.global.u32 %r2, [bias];\n"
    "\tmad.lo.s32 %r3, %r1, 3, %r2;\n"
    "\tst.param.b32 [r], %r3;\n\tret;\n}\n"
    /* ka: out[i] = helper(i) */
    ".visible .entry ka(.param .u64 out)\n{\n"
    "\t.reg .b32 %r<5>;\n\t.reg .b64 %rd<5>;\n"
    "\tld.param.u64 %rd1, [out];\n\tmov.u32 %r1, %tid.x;\n"
    "\t{\n\t.param .b32 a;\n\t.param .b32 b;\n"
    "\tst.param.b32 [a], %r1;\n"
    "\tcall.uni (b), helper, (a);\n"
    "\tld.param.b32 %r2, [b];\n\t}\n"
    "\tmul.wide.u32 %rd2, %r1, 4;\n\tadd.s64 %rd3, %rd1, %rd2;\n"
    "\tst.global.u32 [%rd3], %r2;\n\tret;\n}\n"
    /* kb: out[i] = helper(i + 100) */
    ".visible .entry kb(.param .u64 out)\n{\n"
    "\t.reg .b32 %r<5>;\n\t.reg .b64 %rd<5>;\n"
    "\tld.param.u64 %rd1, [out];\n\tmov.u32 %r1, %tid.x;\n"
    "\tadd.s32 %r3, %r1, 100;\n"
    "\t{\n\t.param .b32 a;\n\t.param .b32 b;\n"
    "\tst.param.b32 [a], %r3;\n"
    "\tcall.uni (b), helper, (a);\n"
    "\tld.param.b32 %r2, [b];\n\t}\n"
    "\tmul.wide.u32 %rd2, %r1, 4;\n\tadd.s64 %rd3, %rd1, %rd2;\n"
    "\tst.global.u32 [%rd3], %r2;\n\tret;\n}\n"
    /* kc: out[i] = i ^ 0x55 */
    ".visible .entry kc(.param .u64 out)\n{\n"
    "\t.reg .b32 %r<5>;\n\t.reg .b64 %rd<5>;\n"
    "\tld.param.u64 %rd1, [out];\n\tmov.u32 %r1, %tid.x;\n"
    "\txor.b32 %r2, %r1, 85;\n"
    "\tmul.wide.u32 %rd2, %r1, 4;\n\tadd.s64 %rd3, %rd1, %rd2;\n"
    "\tst.global.u32 [%rd3], %r2;\n\tret;\n}\n";

/* A function's address in an initialiser: not splittable. */
static const char *ptx_fnptr =
    ".version 8.0\n.target sm_80\n.address_size 64\n"
    ".func (.param .b32 r) twice(.param .b32 x)\n{\n"
    "\t.reg .b32 %r<3>;\n\tld.param.u32 %r1, [x];\n\tadd.s32 %r2, %r1, %r1;\n"
    "\tst.param.b32 [r], %r2;\n\tret;\n}\n"
    ".global .align 8 .u64 table[1] = {twice};\n"
    ".visible .entry kf(.param .u64 out)\n{\n"
    "\t.reg .b32 %r<3>;\n\t.reg .b64 %rd<5>;\n"
    "\tld.param.u64 %rd1, [out];\n\tmov.u32 %r1, %tid.x;\n"
    "\tmul.wide.u32 %rd2, %r1, 4;\n\tadd.s64 %rd3, %rd1, %rd2;\n"
    "\tst.global.u32 [%rd3], %r1;\n\tret;\n}\n"
    ".visible .entry kg(.param .u64 out)\n{\n\tret;\n}\n";

static uint32_t bias_mem[4] = {5};
static uint64_t table_mem[2];

static zn_jit_module *open_mod(const ptx_module *pm, int opt, int eager)
{
    zn_global_addr g[2] = {{"bias", bias_mem}, {"table", table_mem}};
    zn_compile_opts o = {.opt_level = opt, .globals = g, .nglobals = 2};
    char err[1024];
    zn_jit_module *jm = zn_jit_open(pm, &o, eager, err, sizeof err);
    CHECK(jm != NULL, "open: %s", err);
    return jm;
}

static const zn_kernel_info *kern(zn_jit_module *jm, const char *name)
{
    const zn_kernel_info *k = zn_jit_kernel(jm, name);
    CHECK(k != NULL, "no kernel %s", name);
    return k;
}

static uint32_t ref(char which, uint32_t i)
{
    switch (which) {
    case 'a': return i * 3 + 5;
    case 'b': return (i + 100) * 3 + 5;
    default: return i ^ 0x55;
    }
}

/* Readies and runs k<which> on 64 threads; checks against ref. */
static void run_check(zn_jit_module *jm, char which, const char *what)
{
    char name[4] = {'k', which, 0, 0}, err[1024];
    const zn_kernel_info *k = kern(jm, name);
    if (!k)
        return;
    CHECK(zn_jit_kernel_ready(jm, k, err, sizeof err) >= 0, "%s: ready %s: %s", what, name, err);
    CHECK(k->fn != NULL, "%s: %s has no code after ready", what, name);
    if (!k->fn)
        return;
    uint32_t out[64];
    memset(out, 0xA5, sizeof out); /* poison */
    uint32_t *p = out;
    void *args[1] = {&p};
    CHECK(zt_run(jm, name, ZT_DIM1(1), ZT_DIM1(64), 0, args) == 0, "%s: run %s", what, name);
    for (uint32_t i = 0; i < 64; i++)
        if (out[i] != ref(which, i)) {
            CHECK(0, "%s: %s out[%u] = %u, want %u", what, name, i, out[i], ref(which, i));
            break;
        }
}

static void stats_are(zn_jit_module *jm, uint32_t units, uint32_t compiled, uint32_t cached,
                      const char *what)
{
    zn_jit_stats s;
    zn_jit_get_stats(jm, &s);
    CHECK(s.units == units && s.compiled == compiled && s.cached == cached,
          "%s: units %u compiled %u cached %u, want %u %u %u", what, s.units, s.compiled,
          s.cached, units, compiled, cached);
}

typedef struct race {
    zn_jit_module *jm;
    const zn_kernel_info *k;
    pthread_barrier_t *go;
    int rc;
} race;

static void *race_thread(void *arg)
{
    race *r = arg;
    char err[512];
    pthread_barrier_wait(r->go);
    r->rc = zn_jit_kernel_ready(r->jm, r->k, err, sizeof err);
    return NULL;
}

static void test_lazy(const ptx_module *pm)
{
    zn_jit_module *jm = open_mod(pm, 3, 0);
    if (!jm)
        return;
    stats_are(jm, 0, 0, 0, "lazy open");
    CHECK(zn_jit_kernel_count(jm) == 3, "3 kernels listed before compiling");
    for (uint32_t i = 0; i < zn_jit_kernel_count(jm); i++)
        CHECK(zn_jit_kernel_at(jm, i)->fn == NULL && zn_jit_kernel_at(jm, i)->param_bytes == 8,
              "kernel %u: facts without code", i);
    run_check(jm, 'a', "lazy");
    stats_are(jm, 1, 1, 0, "after ka");
    CHECK(kern(jm, "kb")->fn == NULL && kern(jm, "kc")->fn == NULL,
          "readying ka compiled other kernels");
    char err[512];
    CHECK(zn_jit_kernel_ready(jm, kern(jm, "ka"), err, sizeof err) == 0, "ka again: no-op");
    run_check(jm, 'b', "lazy"); /* shares helper with ka: its own copy */
    stats_are(jm, 2, 2, 0, "after kb");
    CHECK(kern(jm, "kc")->fn == NULL, "kc compiled without being asked");
    zn_jit_module_free(jm);
}

static void test_race(const ptx_module *pm)
{
    zn_jit_module *jm = open_mod(pm, 3, 0);
    if (!jm)
        return;
    pthread_barrier_t go;
    pthread_barrier_init(&go, NULL, 2);
    race r[2];
    pthread_t th[2];
    for (int i = 0; i < 2; i++) {
        r[i] = (race){.jm = jm, .k = kern(jm, "kc"), .go = &go, .rc = -2};
        pthread_create(&th[i], NULL, race_thread, &r[i]);
    }
    for (int i = 0; i < 2; i++)
        pthread_join(th[i], NULL);
    pthread_barrier_destroy(&go);
    CHECK(r[0].rc >= 0 && r[1].rc >= 0 && r[0].rc + r[1].rc == 1,
          "two threads readying kc: %d %d, want one 1 and one 0", r[0].rc, r[1].rc);
    stats_are(jm, 1, 1, 0, "race");
    run_check(jm, 'c', "race");
    zn_jit_module_free(jm);
}

static const uint32_t shape_a[3] = {64, 1, 1}, shape_b[3] = {32, 2, 1};

/* zn_jit_kernel_code for kernel `name` and shape; checks its status */
static zn_kernel_code code_for(zn_jit_module *jm, const char *name, const uint32_t *shape,
                               int want_rc, const char *what)
{
    zn_kernel_code c = {NULL, NULL, NULL};
    char err[512];
    int rc = zn_jit_kernel_code(jm, kern(jm, name), shape, &c, err, sizeof err);
    CHECK(rc == want_rc && c.fn, "%s: %s: status %d (want %d), code %p: %s", what, name, rc,
          want_rc, (void *)(uintptr_t)c.fn, rc < 0 ? err : "");
    return c;
}

static void test_shapes(const ptx_module *pm)
{
    zn_jit_module *jm = open_mod(pm, 3, 0);
    if (!jm)
        return;
    zn_kernel_code a = code_for(jm, "ka", shape_a, 1, "first shape");
    CHECK(kern(jm, "ka")->fn == NULL, "the first shape compiled the generic code too");
    stats_are(jm, 1, 1, 0, "first shape");
    zn_kernel_code a2 = code_for(jm, "ka", shape_a, 0, "first shape again");
    CHECK(a2.fn == a.fn, "the first shape's code changed");
    zn_kernel_code b = code_for(jm, "ka", shape_b, 1, "another shape");
    CHECK(b.fn == kern(jm, "ka")->fn && b.fn != a.fn, "another shape: not the generic code");
    stats_are(jm, 2, 2, 0, "two shapes");
    CHECK(code_for(jm, "ka", shape_a, 0, "first shape after").fn == a.fn,
          "the first shape lost its code");
    run_check(jm, 'a', "generic after a shape"); /* NULL shape: generic, ready */
    /* cuFuncLoad's order: the generic code first is kept for every shape */
    run_check(jm, 'b', "loaded before launch");
    CHECK(code_for(jm, "kb", shape_a, 0, "loaded first").fn == kern(jm, "kb")->fn,
          "code loaded before the first launch should serve it");
    setenv("ZINC_NO_SPECIALIZE", "1", 1);
    CHECK(code_for(jm, "kc", shape_a, 1, "ZINC_NO_SPECIALIZE").fn == kern(jm, "kc")->fn,
          "ZINC_NO_SPECIALIZE=1 should give the generic code");
    unsetenv("ZINC_NO_SPECIALIZE");
    stats_are(jm, 4, 4, 0, "shapes");
    zn_jit_module_free(jm);
    jm = open_mod(pm, 3, 1);    /* eager: no compile at launch */
    if (jm) {
        CHECK(code_for(jm, "ka", shape_a, 0, "eager").fn == kern(jm, "ka")->fn,
              "eager: a launch should run the code compiled at open");
        stats_are(jm, 3, 3, 0, "eager shapes");
        zn_jit_module_free(jm);
    }
}

static void test_eager(const ptx_module *pm, int opt)
{
    zn_jit_module *jm = open_mod(pm, opt, 1);
    if (!jm)
        return;
    stats_are(jm, 3, 3, 0, "eager");
    for (uint32_t i = 0; i < zn_jit_kernel_count(jm); i++)
        CHECK(zn_jit_kernel_at(jm, i)->fn != NULL, "eager: kernel %u has no code", i);
    run_check(jm, 'a', opt ? "eager" : "eager -O0");
    run_check(jm, 'b', opt ? "eager" : "eager -O0");
    run_check(jm, 'c', opt ? "eager" : "eager -O0");
    zn_jit_module_free(jm);
}

static void test_whole(void)
{
    char err[1024];
    ptx_module *pm = ptx_parse(ptx_fnptr, strlen(ptx_fnptr), "fnptr", err, sizeof err);
    CHECK(pm != NULL, "parse: %s", err);
    if (!pm)
        return;
    table_mem[0] = 0;
    zn_jit_module *jm = open_mod(pm, 2, 0);
    if (jm) {
        stats_are(jm, 1, 1, 0, "not splittable: one unit at open");
        CHECK(table_mem[0] != 0, "function address written into the initialiser");
        CHECK(kern(jm, "kf")->fn && kern(jm, "kg")->fn, "every kernel compiled at open");
        zn_jit_module_free(jm);
    }
    ptx_module_free(pm);
}

static void test_cache(const ptx_module *pm)
{
    zn_jit_module *jm = open_mod(pm, 3, 0);
    if (!jm)
        return;
    run_check(jm, 'a', "cold");
    stats_are(jm, 1, 1, 0, "cold");
    zn_jit_module_free(jm);
    /* a second "run": ka's unit from the cache, kb still compiled */
    jm = open_mod(pm, 3, 0);
    if (!jm)
        return;
    run_check(jm, 'a', "warm");
    stats_are(jm, 1, 0, 1, "warm ka");
    run_check(jm, 'b', "warm");
    stats_are(jm, 2, 1, 1, "warm kb");
    zn_jit_module_free(jm);
    /* eager after: two cached, one compiled */
    jm = open_mod(pm, 3, 1);
    if (jm) {
        stats_are(jm, 3, 1, 2, "eager warm");
        run_check(jm, 'c', "eager warm");
        zn_jit_module_free(jm);
    }
    /* a warmed cache (generic code only) serves a first launch as it is */
    jm = open_mod(pm, 3, 0);
    if (!jm)
        return;
    zn_kernel_code c = code_for(jm, "kc", shape_a, 1, "warmed");
    CHECK(c.fn == kern(jm, "kc")->fn, "warmed cache: not its generic code");
    stats_are(jm, 1, 0, 1, "warmed: loaded, nothing compiled");
    zn_jit_module_free(jm);
}

/* In an empty cache: a first shape's code is stored under its own key and
 * serves the next run. */
static void test_shape_cache(const ptx_module *pm)
{
    zn_jit_module *jm = open_mod(pm, 3, 0);
    if (!jm)
        return;
    code_for(jm, "kb", shape_b, 1, "kb's first shape");
    stats_are(jm, 1, 1, 0, "kb's shape compiled");
    zn_jit_module_free(jm);
    jm = open_mod(pm, 3, 0);
    if (jm) {
        zn_kernel_code c = code_for(jm, "kb", shape_b, 1, "kb's shape cached");
        CHECK(kern(jm, "kb")->fn == NULL && c.fn, "kb's shape: its own code from the cache");
        stats_are(jm, 1, 0, 1, "kb's shape from the cache");
        zn_jit_module_free(jm);
    }
}

int main(void)
{
    char dir[] = "/tmp/zinc-lazy-test.XXXXXX";
    if (!mkdtemp(dir))
        return 1;
    setenv("CUDA_CACHE_DISABLE", "1", 1);
    unsetenv("ZINC_DUMP_IR");
    char err[1024];
    ptx_module *pm = ptx_parse(ptx_three, strlen(ptx_three), "three", err, sizeof err);
    CHECK(pm != NULL, "parse: %s", err);
    if (pm) {
        test_lazy(pm);
        test_race(pm);
        test_shapes(pm);
        test_eager(pm, 3);
        test_eager(pm, 0);
        test_whole();
        unsetenv("CUDA_CACHE_DISABLE");
        char sub[sizeof dir + 8];
        snprintf(sub, sizeof sub, "%s/shape", dir);
        setenv("CUDA_CACHE_PATH", sub, 1);
        test_shape_cache(pm);
        setenv("CUDA_CACHE_PATH", dir, 1);
        test_cache(pm);
        ptx_module_free(pm);
    }
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
    if (zt_failures) {
        fprintf(stderr, "%d failure(s)\n", zt_failures);
        return 1;
    }
    printf("PASS compile_lazy\n");
    return 0;
}
