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
 * 7, 3 (padded) and 2; runs with other instructions between (each value
 * computed before its store, folded after its load; a load's register
 * read before it loads, which ends the run there); loads from one address
 * in all lanes (thread 0's record: the fall-back). Each is compiled with
 * and without ZINC_NO_RECORDS (the IRs must differ) and run on blocks of
 * 128 and of 48 threads (a half-empty last warp: the fall-back). K = 4 at
 * S = 8 overlaps the lanes' records, where the order of the stores decides
 * what lands: its stores must not take the record path (nor its loads,
 * whose proven stride is not apart either: no `rec.each` block in its IR),
 * and its words must be those the stores leave in program order; stores
 * whose registers change after them are no run. Loads at lanes the affine
 * analysis cannot place (thread t ^ 1's record) read each lane's record at
 * its own address.
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

/* the case being checked: K items of 32 or 64 bits, the record folded
 * is thread t's own, t ^ 1's or t | 1's (zt_want_u32 has no user data) */
static struct {
    unsigned k;
    bool wide;
    const char *op;       /* "add" (own, with c 0), "xor", "or", "and" (thread 0's) */
    bool peek;            /* plus thread t's own item 1 (PEEK) */
} cur;

static uint32_t want_case(const uint32_t *in, uint32_t t, uint32_t block)
{
    (void)block;
    uint32_t src = !strcmp(cur.op, "xor") ? t ^ 1 : !strcmp(cur.op, "or") ? t | 1
                   : !strcmp(cur.op, "and") ? 0 : t;
    if (cur.peek && cur.wide) {
        uint64_t acc = 0;
        for (unsigned i = 0; i < cur.k; i++)
            acc = acc * 31 + item64(in, src, i);
        acc += item64(in, t, 1);
        return (uint32_t)acc ^ (uint32_t)(acc >> 32);
    }
    if (cur.peek)
        return fold_items(in, src, cur.k) + item(in, t, 1);
    return cur.wide ? fold64(in, src, cur.k) : fold_items(in, src, cur.k);
}

/* K = 4 at S = 8: word 2t + j holds item j of t for j = 2, 3 and, below,
 * items 2 and 3 of t - 1, which the later stores wrote over t's 0 and 1 */
static uint32_t want_overlap(const uint32_t *in, uint32_t t, uint32_t block)
{
    (void)block;
    uint32_t w[4] = {t ? item(in, t - 1, 2) : item(in, 0, 0),
                     t ? item(in, t - 1, 3) : item(in, 0, 1), item(in, t, 2), item(in, t, 3)};
    return fold(w, 4);
}

/* The body for zt_u32_kernel (tid in %r1, input in %r5, output address in
 * %rd5): K items (64-bit when wide) in %v0.. to sh + tid * S (a run when
 * st_run, else a `membar` after each store); a barrier; the K items of
 * thread (tid op c)'s record folded (a run of loads when ld_run).
 * odd_only: only odd threads store. gaps: each item computed just before
 * its store, folded just after its load (runs with other instructions
 * between), each stored register changed after its store (no run), or
 * the second load's register read after the first load (PEEK: the run of
 * loads starts at the second; the output adds the value it had). */
enum { GAP_ST = 1, GAP_LD = 2, CLOBBER = 4, PEEK = 8 };   /* body()'s `gaps` */

static char *body(unsigned k, unsigned s, bool wide, bool st_run, bool ld_run, const char *op,
                  unsigned c, bool odd_only, unsigned gaps)
{
    size_t cap = 16384, n = 0;
    unsigned bits = wide ? 64 : 32;
    char *b = malloc(cap);
#define P(...) (n += (size_t)snprintf(b + n, cap - n, __VA_ARGS__))
    P("  .reg .b%u %%v<24>;\n  .shared .align 16 .b32 sh[2048];\n", bits);
    P("  mov.u32 %%r6, sh;\n  mov.u32 %%r26, 0;\n  mad.lo.s32 %%r7, %%r1, %u, %%r6;\n", s);
    if (odd_only)
        P("  and.b32 %%r8, %%r1, 1;\n  setp.eq.u32 %%p1, %%r8, 0;\n  @%%p1 bra SKIP;\n");
    /* the items: all first, or each just before its store (GAP_ST) */
#define ITEM(j)                                                                                \
    (wide ? P("  mul.wide.u32 %%v%u, %%r5, %u;\n  add.u64 %%v%u, %%v%u, %u;\n", j, 2 * j + 1, j, \
              j, j)                                                                            \
          : P("  mad.lo.s32 %%v%u, %%r5, %u, %u;\n", j, 2 * j + 1, j))
    for (unsigned i = 0; i < k && !(gaps & GAP_ST); i++)
        ITEM(i);
    for (unsigned i = 0; i < k; i++) {
        if (gaps & GAP_ST)
            ITEM(i);
        P("  st.shared.u%u [%%r7+%u], %%v%u;\n", bits, bits / 8 * i, i);
        if (gaps & CLOBBER)   /* the stored register changed after its store */
            P("  add.u%u %%v%u, %%v%u, 1000;\n", bits, i, i);
        if (!st_run)   /* not pure: ends a run */
            P("  membar.cta;\n");
    }
    if (odd_only)
        P("SKIP:\n");
    P("  bar.sync 0;\n  %s.%s %%r8, %%r1, %u;\n  mad.lo.s32 %%r9, %%r8, %u, %%r6;\n", op,
      strcmp(op, "add") ? "b32" : "u32", c, s);
    P("  mov.u%u %%v20, 0;\n", bits);
    for (unsigned i = 0; i < k; i++) {
        P("  ld.shared.u%u %%v%u, [%%r9+%u];\n", bits, i, bits / 8 * i);
        if (gaps & GAP_LD)   /* each item folded right after its load */
            P("  mad.lo.s%u %%v20, %%v20, 31, %%v%u;\n", bits, i);
        if ((gaps & PEEK) && i == 0)   /* the next load's register before it loads */
            P("  add.u%u %%v22, %%v1, 0;\n", bits);
        if (!ld_run)
            P("  membar.cta;\n");
    }
    for (unsigned i = 0; i < k && !(gaps & GAP_LD); i++)
        P("  mad.lo.s%u %%v20, %%v20, 31, %%v%u;\n", bits, i);
    if (gaps & PEEK)
        P("  add.u%u %%v20, %%v20, %%v22;\n", bits);
    if (wide)
        P("  cvt.u32.u64 %%r25, %%v20;\n  shr.u64 %%v21, %%v20, 32;\n  cvt.u32.u64 %%r24, %%v21;\n"
          "  xor.b32 %%r25, %%r25, %%r24;\n  st.global.u32 [%%rd5], %%r25;\n");
    else
        P("  st.global.u32 [%%rd5], %%v20;\n");
    P("  ret;\n}\n");
#undef ITEM
#undef P
    return b;
}

/* A kernel whose stores must not take the record path: `paths` record
 * paths (`rec.each` blocks) in its IR, the loads'; run on 4 blocks of
 * `block` threads and checked with want. */
static void stores_kept(const char *name, char *bd, size_t paths, uint32_t block,
                        zt_want_u32 want, const char *mode)
{
    zn_compile_keep_ir(1);
    zn_jit_module *jm = zt_load_text(zt_u32_kernel(name, bd), NULL);
    zn_compile_keep_ir(0);
    free(bd);
    CHECK(jm != NULL, "%s did not compile", name);
    if (!jm)
        return;
    char *ir = zn_jit_ir_text(jm, 0);
    CHECK(ir && zt_count(ir, "\nrec.each") == paths, "%s: %zu record paths, want %zu", name,
          ir ? zt_count(ir, "\nrec.each") : 0, paths);
    free(ir);
    zt_run_u32_exec(jm, name, 4, block, 0, want, mode);
    zn_jit_module_free(jm);
}

int main(void)
{
    static const struct {
        const char *name;
        unsigned k, s;
        bool wide, st_run, ld_run, odd_only;
        const char *op;
        unsigned gaps;
    } cases[] = {
        {"stores15", 15, 60, false, true, false, false, "xor", 0},
        {"loads15", 15, 60, false, false, true, false, "add", 0},
        {"stores7pad", 7, 32, false, true, true, false, "xor", 0},
        {"loads7pad", 7, 32, false, false, true, false, "add", 0},
        {"both5", 5, 20, false, true, true, false, "add", 0},
        {"both4", 4, 16, false, true, true, false, "add", 0},
        {"odd7", 7, 28, false, true, true, true, "or", 0},
        {"wide7x", 7, 56, true, true, true, false, "xor", 0},
        {"wide7", 7, 56, true, true, true, false, "add", 0},
        {"wide3pad", 3, 32, true, true, true, false, "add", 0},
        {"wide2", 2, 16, true, true, true, false, "add", 0},
        {"gapst15", 15, 60, false, true, false, false, "xor", GAP_ST},
        {"gapld15", 15, 60, false, false, true, false, "add", GAP_LD},
        {"gapboth7", 7, 28, false, true, true, false, "add", GAP_ST | GAP_LD},
        {"gapwide5x", 5, 40, true, true, true, false, "xor", GAP_ST | GAP_LD},
        {"gapodd6", 6, 24, false, true, true, true, "or", GAP_ST | GAP_LD},
        {"peek7x", 7, 28, false, true, true, false, "xor", PEEK},
        {"peekwide5x", 5, 40, true, true, true, false, "xor", PEEK},
        {"one7", 7, 28, false, true, true, false, "and", 0},   /* one address: fall-back */
    };
    const char *const mode[2] = {"records", "ZINC_NO_RECORDS"};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        unsigned c = strcmp(cases[i].op, "add") && strcmp(cases[i].op, "and") ? 1 : 0;
        char *bd = body(cases[i].k, cases[i].s, cases[i].wide, cases[i].st_run, cases[i].ld_run,
                        cases[i].op, c, cases[i].odd_only, cases[i].gaps);
        cur.k = cases[i].k;
        cur.wide = cases[i].wide;
        cur.op = cases[i].op;
        cur.peek = cases[i].gaps & PEEK;
        zn_jit_module *m[2];
        zt_load_switched(zt_u32_kernel(cases[i].name, bd), "ZINC_NO_RECORDS", m);
        free(bd);
        for (int j = 0; j < 2; j++) {
            if (!m[j])
                continue;
            zt_run_u32_exec(m[j], cases[i].name, 4, 128, 0, want_case, mode[j]);
            zt_run_u32_exec(m[j], cases[i].name, 3, 48, 0, want_case, mode[j]);
            zn_jit_module_free(m[j]);
        }
        zt_cleanup();
    }
    /* K = 4 at S = 8, blocks of 32 (the records overlap between
     * neighbouring lanes, never between warps); each thread reads its own,
     * a proven stride that is not apart: the loads stay as proven too */
    stores_kept("overlap", body(4, 8, false, true, true, "add", 0, false, 0), 0, 32,
                want_overlap, "overlapping records");
    /* each stored register changed after its store: the stores are no run
     * (the record path would store the changed values) */
    cur.k = 7;
    cur.wide = false;
    cur.op = "add";
    cur.peek = false;
    stores_kept("clobber", body(7, 28, false, true, true, "add", 0, false, CLOBBER), 1, 128,
                want_case, "stored registers changed");
    zt_cleanup();
    if (!zt_failures)
        printf("test_compile_records: all passed\n");
    return zt_failures != 0;
}
