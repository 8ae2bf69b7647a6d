/* test_compile_records.c: runs of 32-bit shared loads and stores of one
 * register's consecutive words (a thread's K items at sh[t * S/4 + i], as
 * CUB's block loads and stores move them) become 16-byte accesses per lane
 * and 4 x 4 transposes (zn_lower_record.c).
 *
 * Each kernel writes K items of thread t to its record at sh + t * S, then
 * after a barrier thread t folds the K words of its own record, or of
 * thread t ^ 1's (t | 1's), into its output. The stores or the loads are a run (adjacent
 * instructions) or are kept apart by an instruction between each, so that
 * each side is tested on its own and together: K = 15 at S = 60 (CUB's
 * scan), K = 7 at a padded S = 32 and K = 5 at S = 20 (the last group of 4
 * overlaps the one before), K = 4; stores by the odd threads only (the
 * record path needs a full warp: the fall-back runs); 64-bit items, K =
 * 7, 3 (padded) and 2. Each is compiled
 * with and without ZINC_NO_RECORDS (the IRs must differ) and run on blocks
 * of 128 and of 48 threads (a half-empty last warp: the fall-back). K = 4
 * at S = 8 overlaps the lanes' records, where the order of the stores
 * decides what lands: its stores must not take the record path (one
 * `rec.each` block in its IR, the loads'), and its words must be those the
 * stores leave in program order. Loads at lanes the affine analysis
 * cannot place (thread t ^ 1's record) read each lane's record at its own
 * address.
 * Outputs are poisoned; every value is checked against a C reference. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "zn_test_harness.h"

#define MAXK 15

/* the kernels' item i of thread t */
static uint32_t item(const uint32_t *in, uint32_t t, unsigned i)
{
    return in[t] * (2 * i + 1) + i;
}

static uint32_t fold(const uint32_t *w, unsigned k)
{
    uint32_t acc = 0;
    for (unsigned i = 0; i < k; i++)
        acc = acc * 31 + w[i];
    return acc;
}

/* K items of thread `src` folded */
static uint32_t fold_items(const uint32_t *in, uint32_t src, unsigned k)
{
    uint32_t w[MAXK];
    for (unsigned i = 0; i < k; i++)
        w[i] = item(in, src, i);
    return fold(w, k);
}

static uint32_t want_15(const uint32_t *in, uint32_t t, uint32_t block)
{
    (void)block;
    return fold_items(in, t ^ 1, 15);
}
static uint32_t want_7(const uint32_t *in, uint32_t t, uint32_t block)
{
    (void)block;
    return fold_items(in, t ^ 1, 7);
}
static uint32_t want_own15(const uint32_t *in, uint32_t t, uint32_t block)
{
    (void)block;
    return fold_items(in, t, 15);
}
static uint32_t want_own7(const uint32_t *in, uint32_t t, uint32_t block)
{
    (void)block;
    return fold_items(in, t, 7);
}
static uint32_t want_own5(const uint32_t *in, uint32_t t, uint32_t block)
{
    (void)block;
    return fold_items(in, t, 5);
}
static uint32_t want_own4(const uint32_t *in, uint32_t t, uint32_t block)
{
    (void)block;
    return fold_items(in, t, 4);
}
static uint32_t want_odd(const uint32_t *in, uint32_t t, uint32_t block)
{
    (void)block;
    return fold_items(in, t | 1, 7);
}

/* K = 4 at S = 8: word 2t + j holds item j of t for j = 2, 3 and, below,
 * items 2 and 3 of t - 1, which the later stores wrote over t's 0 and 1 */
static uint32_t want_overlap(const uint32_t *in, uint32_t t, uint32_t block)
{
    (void)block;
    uint32_t w[4] = {t ? item(in, t - 1, 2) : item(in, 0, 0), t ? item(in, t - 1, 3) : item(in, 0, 1),
                     item(in, t, 2), item(in, t, 3)};
    return fold(w, 4);
}

/* The body for zt_u32_kernel (tid in %r1, input in %r5, output address in
 * %rd5): K items to sh + tid * S (a run when st_run, else one `add` after
 * each store); a barrier; the K words of thread (tid op 1)'s record folded
 * (a run of loads when ld_run). odd_only: only odd threads store. */
static char *body(unsigned k, unsigned s, bool st_run, bool ld_run, const char *op, unsigned c,
                  bool odd_only)
{
    size_t cap = 16384, n = 0;
    char *b = malloc(cap);
#define P(...) (n += (size_t)snprintf(b + n, cap - n, __VA_ARGS__))
    P("  .shared .align 16 .b32 sh[2048];\n  mov.u32 %%r6, sh;\n  mov.u32 %%r26, 0;\n");
    P("  mad.lo.s32 %%r7, %%r1, %u, %%r6;\n", s);
    for (unsigned i = 0; i < k; i++)
        P("  mad.lo.s32 %%r%u, %%r5, %u, %u;\n", 10 + i, 2 * i + 1, i);
    if (odd_only)
        P("  and.b32 %%r8, %%r1, 1;\n  setp.eq.u32 %%p1, %%r8, 0;\n  @%%p1 bra SKIP;\n");
    for (unsigned i = 0; i < k; i++) {
        P("  st.shared.u32 [%%r7+%u], %%r%u;\n", 4 * i, 10 + i);
        if (!st_run)
            P("  add.u32 %%r26, %%r26, %%r%u;\n", 10 + i);
    }
    if (odd_only)
        P("SKIP:\n");
    P("  bar.sync 0;\n  %s.%s %%r8, %%r1, %u;\n  mad.lo.s32 %%r9, %%r8, %u, %%r6;\n", op,
      strcmp(op, "add") ? "b32" : "u32", c, s);
    for (unsigned i = 0; i < k; i++) {
        P("  ld.shared.u32 %%r%u, [%%r9+%u];\n", 10 + i, 4 * i);
        if (!ld_run)
            P("  add.u32 %%r26, %%r26, 1;\n");
    }
    P("  mov.u32 %%r25, 0;\n");
    for (unsigned i = 0; i < k; i++)
        P("  mad.lo.s32 %%r25, %%r25, 31, %%r%u;\n", 10 + i);
    P("  st.global.u32 [%%rd5], %%r25;\n  ret;\n}\n");
#undef P
    return b;
}

/* 64-bit items: item64(t, i) folded as u64 words, the output its halves'
 * xor */
static uint64_t item64(const uint32_t *in, uint32_t t, unsigned i)
{
    return (uint64_t)in[t] * (2 * i + 1) + i;
}

static uint32_t fold64(const uint32_t *in, uint32_t src, unsigned k)
{
    uint64_t acc = 0;
    for (unsigned i = 0; i < k; i++)
        acc = acc * 31 + item64(in, src, i);
    return (uint32_t)acc ^ (uint32_t)(acc >> 32);
}

static uint32_t want64_7x(const uint32_t *in, uint32_t t, uint32_t block)
{
    (void)block;
    return fold64(in, t ^ 1, 7);
}
static uint32_t want64_7(const uint32_t *in, uint32_t t, uint32_t block)
{
    (void)block;
    return fold64(in, t, 7);
}
static uint32_t want64_3(const uint32_t *in, uint32_t t, uint32_t block)
{
    (void)block;
    return fold64(in, t, 3);
}
static uint32_t want64_2(const uint32_t *in, uint32_t t, uint32_t block)
{
    (void)block;
    return fold64(in, t, 2);
}

/* body() with K 64-bit items (u64 loads and stores, both runs) */
static char *body64(unsigned k, unsigned s, const char *op, unsigned c)
{
    size_t cap = 16384, n = 0;
    char *b = malloc(cap);
#define P(...) (n += (size_t)snprintf(b + n, cap - n, __VA_ARGS__))
    P("  .reg .b64 %%q<24>;\n  .shared .align 16 .b32 sh[2048];\n  mov.u32 %%r6, sh;\n");
    P("  mad.lo.s32 %%r7, %%r1, %u, %%r6;\n", s);
    for (unsigned i = 0; i < k; i++)
        P("  mul.wide.u32 %%q%u, %%r5, %u;\n  add.u64 %%q%u, %%q%u, %u;\n", i, 2 * i + 1, i, i, i);
    for (unsigned i = 0; i < k; i++)
        P("  st.shared.u64 [%%r7+%u], %%q%u;\n", 8 * i, i);
    P("  bar.sync 0;\n  %s.%s %%r8, %%r1, %u;\n  mad.lo.s32 %%r9, %%r8, %u, %%r6;\n", op,
      strcmp(op, "add") ? "b32" : "u32", c, s);
    for (unsigned i = 0; i < k; i++)
        P("  ld.shared.u64 %%q%u, [%%r9+%u];\n", i, 8 * i);
    P("  mov.u64 %%q20, 0;\n");
    for (unsigned i = 0; i < k; i++)
        P("  mad.lo.s64 %%q20, %%q20, 31, %%q%u;\n", i);
    P("  cvt.u32.u64 %%r25, %%q20;\n  shr.u64 %%q21, %%q20, 32;\n  cvt.u32.u64 %%r24, %%q21;\n"
      "  xor.b32 %%r25, %%r25, %%r24;\n  st.global.u32 [%%rd5], %%r25;\n  ret;\n}\n");
#undef P
    return b;
}

/* zt_run_u32 through zn_exec_launch (the barrier needs it) */
static void run(const zn_jit_module *jm, const char *kernel, uint32_t blocks, uint32_t block,
                zt_want_u32 want, const char *mode)
{
    uint32_t n = blocks * block;
    uint32_t *in = malloc(n * sizeof *in), *out = malloc(n * sizeof *out);
    CHECK(in && out, "malloc");
    if (in && out) {
        for (uint32_t i = 0; i < n; i++) {
            in[i] = i * 2654435761u;
            out[i] = 0xdeadbeef;
        }
        void *pin = in, *pout = out;
        void *args[] = {&pin, &pout};
        CHECK(zt_run_exec(jm, kernel, ZT_DIM1(blocks), ZT_DIM1(block), 0, args) == 0,
              "%s %s: status", kernel, mode);
        int bad = 0;
        for (uint32_t i = 0; i < n && bad < 4; i++) {
            uint32_t b0 = i / block * block, w = want(in + b0, i - b0, block);
            if (out[i] != w) {
                CHECK(0, "%s %s (blocks of %u): thread %u: 0x%08x, want 0x%08x", kernel, mode,
                      block, i, out[i], w);
                bad++;
            }
        }
    }
    free(in);
    free(out);
}

/* K = 4 at S = 8, blocks of 32 (the records overlap between neighbouring
 * lanes, never between warps) */
static void test_overlap(void)
{
    char *bd = body(4, 8, true, true, "add", 0, false);   /* its own record */
    zn_compile_keep_ir(1);
    zn_jit_module *jm = zt_load_text(zt_u32_kernel("overlap", bd), NULL);
    zn_compile_keep_ir(0);
    free(bd);
    CHECK(jm != NULL, "overlap did not compile");
    if (!jm)
        return;
    char *ir = zn_jit_ir_text(jm, 0);
    /* the loads' run reads records at the lanes' addresses (loads never
     * conflict); the stores' run must not take the record path */
    CHECK(ir && zt_count(ir, "\nrec.each") == 1, "%zu record paths, want the loads' only",
          ir ? zt_count(ir, "\nrec.each") : 0);
    free(ir);
    run(jm, "overlap", 4, 32, want_overlap, "overlapping records");
    zn_jit_module_free(jm);
}

int main(void)
{
    char *b[11] = {
        body(15, 60, true, false, "xor", 1, false), body(15, 60, false, true, "add", 0, false),
        body(7, 32, true, true, "xor", 1, false),   body(7, 32, false, true, "add", 0, false),
        body(5, 20, true, true, "add", 0, false),   body(4, 16, true, true, "add", 0, false),
        body(7, 28, true, true, "or", 1, true),     body64(7, 56, "xor", 1),
        body64(7, 56, "add", 0),                    body64(3, 32, "add", 0),
        body64(2, 16, "add", 0),
    };
    const zt_u32_case cases[] = {
        {"stores15", b[0], want_15},    {"loads15", b[1], want_own15}, {"stores7pad", b[2], want_7},
        {"loads7pad", b[3], want_own7}, {"both5", b[4], want_own5},    {"both4", b[5], want_own4},
        {"odd7", b[6], want_odd},       {"wide7x", b[7], want64_7x},   {"wide7", b[8], want64_7},
        {"wide3pad", b[9], want64_3},   {"wide2", b[10], want64_2},
    };
    const char *const mode[2] = {"records", "ZINC_NO_RECORDS"};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        zn_jit_module *m[2];
        zt_load_switched(zt_u32_kernel(cases[i].name, cases[i].body), "ZINC_NO_RECORDS", m);
        for (int j = 0; j < 2; j++) {
            if (!m[j])
                continue;
            run(m[j], cases[i].name, 4, 128, cases[i].want, mode[j]);
            run(m[j], cases[i].name, 3, 48, cases[i].want, mode[j]);
            zn_jit_module_free(m[j]);
        }
    }
    for (int i = 0; i < 11; i++)
        free(b[i]);
    test_overlap();
    zt_cleanup();
    if (!zt_failures)
        printf("test_compile_records: all passed\n");
    return zt_failures != 0;
}
