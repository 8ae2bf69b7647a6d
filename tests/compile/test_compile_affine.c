/* test_compile_affine.c: the affine-address analysis (zn_lower_affine.c).
 * Accesses it proves contiguous are one vector access without a lane test
 * (the IR has an `ld.affine`/`st.affine` block); the results must match a
 * C reference both when its run-time facts hold and when they fail:
 * ntid.x not a multiple of 32 (a warp spans two rows), and a 32 -> 64-bit
 * zero extension that wraps inside the warp (only the lanes past the wrap
 * are active, so lane 0's address is not the base). A register read only
 * by addresses across divergent code (`border`, a stencil's edge test) has
 * no per-lane definition left on the warp's path: its accesses' fall-backs
 * rebuild the lanes' addresses themselves (zn_affine_lanes). Induction
 * registers (`for (j = tid.x; j < lim; j += ntid.x)`) keep their first
 * definition's strides in loops whose lanes leave the latch together
 * (`stride`, where lane 0 leaves first, so the base comes from another
 * lane); a loop that lanes re-enter from outside its latch (`skew`) is
 * refused. Strides other than the element size (`strided`: a 33-word row
 * per thread read, a 17-word one written, as a padded tile's column or
 * CUB's thread-blocked items) are one gather or scatter from lane 0's
 * address with constant lane offsets (an `aff.strided` address vector),
 * checked with the facts holding and failing (48-thread blocks). */
#include <stdlib.h>
#include <string.h>
#include "zn_test_harness.h"

static const char *ptx =
    ".version 7.0\n.target sm_80\n.address_size 64\n"
    /* out[ty * w + tx] = in[ty * w + tx] + 1 (s32 index, mul.wide) */
    ".visible .entry copy2d(.param .u64 pin, .param .u64 pout, .param .u32 w)\n{\n"
    "  .reg .b32 %r<8>;\n  .reg .b64 %rd<8>;\n"
    "  ld.param.u64 %rd1, [pin];\n  ld.param.u64 %rd2, [pout];\n"
    "  ld.param.u32 %r1, [w];\n"
    "  cvta.to.global.u64 %rd3, %rd1;\n  cvta.to.global.u64 %rd4, %rd2;\n"
    "  mov.u32 %r2, %tid.x;\n  mov.u32 %r3, %tid.y;\n"
    "  mad.lo.s32 %r4, %r3, %r1, %r2;\n"
    "  mul.wide.s32 %rd5, %r4, 4;\n"
    "  add.s64 %rd6, %rd3, %rd5;\n  add.s64 %rd7, %rd4, %rd5;\n"
    "  ld.global.u32 %r5, [%rd6];\n  add.s32 %r6, %r5, 1;\n"
    "  st.global.u32 [%rd7], %r6;\n  ret;\n}\n"
    /* i = tx + off (u32); lanes with i >= 2^31 skip; out[tx] = in[zext(i)] + 1 */
    ".visible .entry zext(.param .u64 pin, .param .u64 pout, .param .u32 off)\n{\n"
    "  .reg .pred %p<2>;\n  .reg .b32 %r<8>;\n  .reg .b64 %rd<12>;\n"
    "  ld.param.u64 %rd1, [pin];\n  ld.param.u64 %rd2, [pout];\n"
    "  ld.param.u32 %r1, [off];\n"
    "  mov.u32 %r2, %tid.x;\n  add.s32 %r3, %r2, %r1;\n"
    "  setp.ge.u32 %p1, %r3, 0x80000000;\n  @%p1 bra DONE;\n"
    "  cvt.u64.u32 %rd3, %r3;\n  shl.b64 %rd4, %rd3, 2;\n"
    "  add.s64 %rd5, %rd1, %rd4;\n  ld.global.u32 %r4, [%rd5];\n"
    "  add.s32 %r5, %r4, 1;\n"
    "  mul.wide.u32 %rd6, %r2, 4;\n  add.s64 %rd7, %rd2, %rd6;\n"
    "  st.global.u32 [%rd7], %r5;\n"
    "DONE:\n  ret;\n}\n"
    /* .v2: out[2t..2t+1] = {in[2t+1], in[2t]} (stride 8 = 2 x 4 bytes) */
    ".visible .entry swap2(.param .u64 pin, .param .u64 pout)\n{\n"
    "  .reg .b32 %r<8>;\n  .reg .b64 %rd<8>;\n"
    "  ld.param.u64 %rd1, [pin];\n  ld.param.u64 %rd2, [pout];\n"
    "  mov.u32 %r1, %ctaid.x;\n  mov.u32 %r2, %ntid.x;\n  mov.u32 %r3, %tid.x;\n"
    "  mad.lo.s32 %r4, %r1, %r2, %r3;\n  cvt.s64.s32 %rd3, %r4;\n"
    "  shl.b64 %rd4, %rd3, 3;\n"
    "  add.s64 %rd5, %rd1, %rd4;\n  add.s64 %rd6, %rd2, %rd4;\n"
    "  ld.global.v2.u32 {%r5, %r6}, [%rd5];\n"
    "  st.global.v2.u32 [%rd6], {%r6, %r5};\n  ret;\n}\n"
    /* shared: buf[t] = in[t] through a two-definition address (run-time
     * shape test), then out[t] = buf[t + 1] through the address of `buf`
     * (affine: mov of the symbol, 32-bit, plus block->shared) */
    ".visible .entry shnext(.param .u64 pin, .param .u64 pout)\n{\n"
    "  .shared .align 4 .b8 buf[1024];\n"
    "  .reg .b32 %r<12>;\n  .reg .b64 %rd<8>;\n"
    "  ld.param.u64 %rd1, [pin];\n  ld.param.u64 %rd2, [pout];\n"
    "  mov.u32 %r1, %tid.x;\n  mul.wide.u32 %rd3, %r1, 4;\n"
    "  add.s64 %rd4, %rd1, %rd3;\n  add.s64 %rd5, %rd2, %rd3;\n"
    "  ld.global.u32 %r5, [%rd4];\n"
    "  shl.b32 %r2, %r1, 2;\n  mov.u32 %r3, buf;\n"
    "  mov.u32 %r8, 0;\n  add.s32 %r8, %r3, %r2;\n"
    "  st.shared.u32 [%r8], %r5;\n"
    "  add.s32 %r4, %r3, %r2;\n  ld.shared.u32 %r6, [%r4+4];\n"
    "  st.global.u32 [%rd5], %r6;\n  ret;\n}\n"
    /* i = ty * w + tx; out[i] = in[i] at x = 0 and x = w - 1, else
     * in[i - 1] + in[i + 1]: the address registers live across the branch */
    ".visible .entry border(.param .u64 pin, .param .u64 pout, .param .u32 w)\n{\n"
    "  .reg .pred %p<4>;\n  .reg .b32 %r<12>;\n  .reg .b64 %rd<8>;\n"
    "  ld.param.u64 %rd1, [pin];\n  ld.param.u64 %rd2, [pout];\n"
    "  ld.param.u32 %r1, [w];\n"
    "  cvta.to.global.u64 %rd3, %rd1;\n  cvta.to.global.u64 %rd4, %rd2;\n"
    "  mov.u32 %r2, %tid.x;\n  mov.u32 %r3, %tid.y;\n"
    "  mad.lo.s32 %r4, %r3, %r1, %r2;\n  mul.wide.s32 %rd5, %r4, 4;\n"
    "  add.s64 %rd6, %rd3, %rd5;\n  add.s64 %rd7, %rd4, %rd5;\n"
    "  setp.eq.s32 %p1, %r2, 0;\n  add.s32 %r5, %r1, -1;\n"
    "  setp.eq.s32 %p2, %r2, %r5;\n  or.pred %p3, %p1, %p2;\n"
    "  @%p3 bra EDGE;\n"
    "  ld.global.u32 %r6, [%rd6+-4];\n  ld.global.u32 %r7, [%rd6+4];\n"
    "  add.s32 %r8, %r6, %r7;\n  st.global.u32 [%rd7], %r8;\n  bra.uni DONE;\n"
    "EDGE:\n  ld.global.u32 %r9, [%rd6];\n  st.global.u32 [%rd7], %r9;\n"
    "DONE:\n  ret;\n}\n"
    /* for (j = tid.x; j < lim[tid.x]; j += ntid.x) out[j] = in[j] + 1 */
    ".visible .entry stride(.param .u64 pin, .param .u64 pout, .param .u64 plim)\n{\n"
    "  .reg .pred %p<2>;\n  .reg .b32 %r<10>;\n  .reg .b64 %rd<12>;\n"
    "  ld.param.u64 %rd1, [pin];\n  ld.param.u64 %rd2, [pout];\n"
    "  ld.param.u64 %rd3, [plim];\n"
    "  mov.u32 %r1, %tid.x;\n  mov.u32 %r2, %ntid.x;\n"
    "  mul.wide.u32 %rd4, %r1, 4;\n  add.s64 %rd5, %rd3, %rd4;\n"
    "  ld.global.u32 %r3, [%rd5];\n  mov.u32 %r4, %r1;\n"
    "HEAD:\n  setp.ge.u32 %p1, %r4, %r3;\n  @%p1 bra DONE;\n"
    "  mul.wide.u32 %rd6, %r4, 4;\n  add.s64 %rd7, %rd1, %rd6;\n"
    "  add.s64 %rd8, %rd2, %rd6;\n  ld.global.u32 %r5, [%rd7];\n"
    "  add.s32 %r6, %r5, 1;\n  st.global.u32 [%rd8], %r6;\n"
    "  add.s32 %r4, %r4, %r2;\n  bra.uni HEAD;\n"
    /* lim[t] = the j that ended the loop: lanes that left wait here (not
     * at a bare ret), so their registers stop moving */
    "DONE:\n  st.global.u32 [%rd5], %r4;\n  ret;\n}\n"
    /* the same walk with j += 32, but lanes with j >= lim[tid.x] leave
     * through the latch and come back to HEAD by another branch: they
     * rejoin lanes that are iterations ahead */
    ".visible .entry skew(.param .u64 pin, .param .u64 pout, .param .u64 plim,\n"
    "                     .param .u32 n)\n{\n"
    "  .reg .pred %p<3>;\n  .reg .b32 %r<10>;\n  .reg .b64 %rd<12>;\n"
    "  ld.param.u64 %rd1, [pin];\n  ld.param.u64 %rd2, [pout];\n"
    "  ld.param.u64 %rd3, [plim];\n  ld.param.u32 %r7, [n];\n"
    "  mov.u32 %r1, %tid.x;\n"
    "  mul.wide.u32 %rd4, %r1, 4;\n  add.s64 %rd5, %rd3, %rd4;\n"
    "  ld.global.u32 %r3, [%rd5];\n  mov.u32 %r4, %r1;\n  mov.u32 %r8, 0;\n"
    "HEAD:\n  setp.ge.u32 %p1, %r4, %r7;\n  @%p1 bra DONE;\n"
    "  mul.wide.u32 %rd6, %r4, 4;\n  add.s64 %rd7, %rd1, %rd6;\n"
    "  add.s64 %rd8, %rd2, %rd6;\n  ld.global.u32 %r5, [%rd7];\n"
    "  add.s32 %r6, %r5, 1;\n  st.global.u32 [%rd8], %r6;\n"
    "  add.s32 %r4, %r4, 32;\n  setp.lt.u32 %p2, %r4, %r3;\n  @%p2 bra HEAD;\n"
    "  add.s32 %r8, %r8, 1;\n  bra.uni HEAD;\n"
    "DONE:\n  ret;\n}\n"
    /* out[i * 17 + 1] = in[i * 33 + 2] + 1, i = ctaid * ntid + tid */
    ".visible .entry strided(.param .u64 pin, .param .u64 pout)\n{\n"
    "  .reg .b32 %r<8>;\n  .reg .b64 %rd<8>;\n"
    "  ld.param.u64 %rd1, [pin];\n  ld.param.u64 %rd2, [pout];\n"
    "  mov.u32 %r1, %tid.x;\n  mov.u32 %r2, %ctaid.x;\n  mov.u32 %r3, %ntid.x;\n"
    "  mad.lo.s32 %r4, %r2, %r3, %r1;\n"
    "  mul.wide.s32 %rd3, %r4, 132;\n  add.s64 %rd4, %rd1, %rd3;\n"
    "  ld.global.u32 %r5, [%rd4+8];\n  add.s32 %r6, %r5, 1;\n"
    "  mul.wide.s32 %rd5, %r4, 68;\n  add.s64 %rd6, %rd2, %rd5;\n"
    "  st.global.u32 [%rd6+4], %r6;\n  ret;\n}\n";

#define W 64
#define H 8
#define POISON 0xa5a5a5a5u

static void test_copy2d(zn_jit_module *jm, uint32_t bx, uint32_t by)
{
    uint32_t in[W * H], out[W * H], *pi = in, *po = out, w = W;
    for (uint32_t i = 0; i < W * H; i++)
        in[i] = 0x9e3779b9u * (i + 1);
    for (uint32_t i = 0; i < W * H; i++)
        out[i] = POISON;
    void *args[] = {&pi, &po, &w};
    CHECK(zt_run(jm, "copy2d", ZT_DIM1(1), (zt_dim){bx, by, 1}, 0, args) == 0,
          "copy2d %ux%u status", bx, by);
    for (uint32_t y = 0; y < H; y++)
        for (uint32_t x = 0; x < W; x++) {
            uint32_t i = y * W + x;
            uint32_t want = (x < bx && y < by) ? in[i] + 1 : POISON;
            CHECK(out[i] == want, "copy2d %ux%u (%u,%u): %08x, want %08x", bx, by, x, y,
                  out[i], want);
        }
}

static void test_strided(zn_jit_module *jm, uint32_t blocks, uint32_t bs)
{
    uint32_t n = blocks * bs;
    uint32_t *in = malloc(33 * n * sizeof *in), *out = malloc(17 * n * sizeof *out);
    CHECK(in && out, "malloc");
    if (!in || !out) {
        free(in);
        free(out);
        return;
    }
    for (uint32_t i = 0; i < 33 * n; i++)
        in[i] = 0x27d4eb2fu * (i + 11);
    for (uint32_t i = 0; i < 17 * n; i++)
        out[i] = POISON;
    void *args[] = {&in, &out};
    CHECK(zt_run(jm, "strided", ZT_DIM1(blocks), ZT_DIM1(bs), 0, args) == 0, "strided status");
    int bad = 0;
    for (uint32_t i = 0; i < 17 * n && bad < 4; i++) {
        uint32_t want = i % 17 == 1 ? in[i / 17 * 33 + 2] + 1 : POISON;
        if (out[i] != want) {
            CHECK(0, "strided %ux%u word %u: %08x, want %08x", blocks, bs, i, out[i], want);
            bad++;
        }
    }
    free(in);
    free(out);
}

static void test_zext(zn_jit_module *jm, uint32_t off)
{
    uint32_t in[64], out[32], *pi = in, *po = out;
    for (uint32_t i = 0; i < 64; i++)
        in[i] = 1000 + i * 7;
    for (uint32_t i = 0; i < 32; i++)
        out[i] = POISON;
    void *args[] = {&pi, &po, &off};
    CHECK(zt_run(jm, "zext", ZT_DIM1(1), ZT_DIM1(32), 0, args) == 0, "zext status");
    for (uint32_t t = 0; t < 32; t++) {
        uint32_t i = t + off;
        uint32_t want = i >= 0x80000000u ? POISON : in[i] + 1;
        CHECK(out[t] == want, "zext off %08x lane %u: %u, want %u", off, t, out[t], want);
    }
}

static void test_swap2(zn_jit_module *jm, uint32_t blocks, uint32_t bs)
{
    uint32_t n = blocks * bs;
    uint32_t *in = malloc(2 * n * sizeof *in), *out = malloc(2 * n * sizeof *out);
    for (uint32_t i = 0; i < 2 * n; i++) {
        in[i] = 0x85ebca6bu * (i + 3);
        out[i] = POISON;
    }
    void *args[] = {&in, &out};
    CHECK(zt_run(jm, "swap2", ZT_DIM1(blocks), ZT_DIM1(bs), 0, args) == 0, "swap2 status");
    for (uint32_t t = 0; t < n; t++)
        CHECK(out[2 * t] == in[2 * t + 1] && out[2 * t + 1] == in[2 * t],
              "swap2 %ux%u thread %u: %08x %08x", blocks, bs, t, out[2 * t], out[2 * t + 1]);
    free(in);
    free(out);
}

static void test_shnext(zn_jit_module *jm, uint32_t bs)
{
    uint32_t in[256], out[256], *pi = in, *po = out;
    for (uint32_t i = 0; i < 256; i++) {
        in[i] = 0xc2b2ae35u * (i + 5);
        out[i] = POISON;
    }
    void *args[] = {&pi, &po};
    CHECK(zt_run(jm, "shnext", ZT_DIM1(1), ZT_DIM1(bs), 0, args) == 0, "shnext status");
    /* a warp's store lands before its load; the last lane of a warp reads
     * the next warp's slot, not written yet */
    for (uint32_t t = 0; t < bs; t++)
        if (t % 32 != 31 && t + 1 < bs)
            CHECK(out[t] == in[t + 1], "shnext %u thread %u: %08x, want %08x", bs, t, out[t],
                  in[t + 1]);
}

static void test_border(zn_jit_module *jm, uint32_t bx, uint32_t by)
{
    uint32_t in[W * H], out[W * H], *pi = in, *po = out, w = bx;
    for (uint32_t i = 0; i < W * H; i++) {
        in[i] = 0x27d4eb2fu * (i + 11);
        out[i] = POISON;
    }
    void *args[] = {&pi, &po, &w};
    CHECK(zt_run(jm, "border", ZT_DIM1(1), (zt_dim){bx, by, 1}, 0, args) == 0,
          "border %ux%u status", bx, by);
    for (uint32_t i = 0; i < W * H; i++) {
        uint32_t x = i % bx, want = POISON;
        if (i < bx * by)
            want = x == 0 || x == bx - 1 ? in[i] : in[i - 1] + in[i + 1];
        CHECK(out[i] == want, "border %ux%u element %u: %08x, want %08x", bx, by, i, out[i],
              want);
    }
}

/* lanes leave at different iterations: lim[t] = 40 + 7 * t (lane 0
 * first; stride stores the j it ended at back there), or descending for
 * skew */
static void test_loops(zn_jit_module *jm, const char *name, uint32_t bs)
{
    enum { N = 1024 };
    uint32_t in[N], out[N], lim[64], *pi = in, *po = out, *pl = lim, n = 700;
    for (uint32_t i = 0; i < N; i++) {
        in[i] = 0x165667b1u * (i + 3);
        out[i] = POISON;
    }
    bool skew = strcmp(name, "skew") == 0;
    for (uint32_t t = 0; t < 64; t++)
        lim[t] = skew ? 900 - 9 * t : 40 + 7 * t;
    void *args[] = {&pi, &po, &pl, &n};
    CHECK(zt_run(jm, name, ZT_DIM1(1), ZT_DIM1(bs), 0, args) == 0, "%s %u status", name, bs);
    uint32_t want[N];
    for (uint32_t i = 0; i < N; i++)
        want[i] = POISON;
    for (uint32_t t = 0; t < bs; t++)
        for (uint32_t j = t; skew ? j < n : j < lim[t]; j += skew ? 32 : bs)
            want[j] = in[j] + 1;
    for (uint32_t i = 0; i < N; i++)
        CHECK(out[i] == want[i], "%s %u element %u: %08x, want %08x", name, bs, i, out[i],
              want[i]);
    for (uint32_t t = 0; t < bs && !skew; t++) {
        uint32_t j = t, l0 = 40 + 7 * t;
        while (j < l0)
            j += bs;
        CHECK(lim[t] == j, "%s %u thread %u ended at %u, want %u", name, bs, t, lim[t], j);
    }
}

/* the IR of kernel `name` before optimisation has `want` proven loads
 * (blocks named ld.affine*) */
static void check_affine_in(const char *ir, const char *name, int want)
{
    char key[64];
    snprintf(key, sizeof key, "@zk_%s(", name);
    const char *f = strstr(ir, key);
    CHECK(f != NULL, "%s in the IR", name);
    if (!f)
        return;
    const char *end = strstr(f, "\n}\n");
    int n = 0;
    for (const char *p = strstr(f, "\nld.affine"); p && (!end || p < end);
         p = strstr(p + 1, "\nld.affine"))
        n++;
    CHECK(n == want, "%s: %d proven loads, want %d", name, n, want);
}

/* In the optimised IR of `border`, no 64-bit lane vector arithmetic in the
 * kernel's own blocks (B<n>, entry): only on the accesses' fall-back paths */
static void check_border_ir(const char *ir)
{
    const char *f = strstr(ir, "@zk_border(");
    CHECK(f != NULL, "border in the optimised IR");
    if (!f)
        return;
    const char *end = strstr(f, "\n}\n");
    char label[64] = "entry";
    for (const char *p = f; p && (!end || p < end); p = strchr(p, '\n'), p = p ? p + 1 : p) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        if (n && p[0] != ' ' && memchr(p, ':', n)) {
            size_t k = (size_t)((const char *)memchr(p, ':', n) - p);
            snprintf(label, sizeof label, "%.*s", (int)(k < 63 ? k : 63), p);
            continue;
        }
        char line[512];
        snprintf(line, sizeof line, "%.*s", (int)(n < 511 ? n : 511), p);
        bool own = strcmp(label, "entry") == 0 ||
                   (label[0] == 'B' && label[1] >= '0' && label[1] <= '9');
        bool arith = strstr(line, "<32 x i64>") &&
                     (strstr(line, "= mul ") || strstr(line, "= shl ") ||
                      strstr(line, "= add ") || strstr(line, "= sext ") ||
                      strstr(line, "= mul nsw ") || strstr(line, "= add nsw "));
        CHECK(!(own && arith), "border: lane-vector address arithmetic in block %s: %s",
              label, line);
    }
}

int main(void)
{
    zn_compile_keep_ir(1);
    zn_jit_module *jm = zt_load_text(ptx, NULL);
    CHECK(jm != NULL, "affine kernels compile");
    if (!jm)
        return 1;
    /* the analysis proved every access contiguous: a vector path with no
     * lane test exists for each (unless ZINC_NO_AFFINE asks otherwise) */
    char *ir = zn_jit_ir_text(jm, 0);
    CHECK(ir != NULL, "IR kept");
    if (ir && !getenv("ZINC_NO_AFFINE")) {
        CHECK(strstr(ir, "ld.affine") != NULL, "no ld.affine block in the IR");
        CHECK(strstr(ir, "st.affine") != NULL, "no st.affine block in the IR");
        /* lim[tid.x] in both; in[j] only where j is an induction */
        check_affine_in(ir, "stride", 2);
        check_affine_in(ir, "skew", 1);
        if (!getenv("ZINC_NO_STRIDED"))
            CHECK(strstr(ir, "aff.strided") != NULL, "no strided address vector in the IR");
    }
    free(ir);
    ir = zn_jit_ir_text(jm, 1);
    CHECK(ir != NULL, "optimised IR kept");
    if (ir && !getenv("ZINC_NO_AFFINE")) {
        check_border_ir(ir);
    }
    free(ir);
    test_copy2d(jm, 64, 8);  /* facts hold: one vector access per warp */
    test_copy2d(jm, 32, 4);
    test_copy2d(jm, 48, 2);  /* ntid.x % 32 != 0: warp 1 spans two rows */
    test_copy2d(jm, 16, 8);
    test_copy2d(jm, 8, 8);
    test_copy2d(jm, 5, 7);
    test_zext(jm, 0);           /* no wrap: the vector path */
    test_zext(jm, 16);
    test_zext(jm, 0xfffffff0u); /* lanes 0..15 wrap past 2^32 and are off */
    test_strided(jm, 3, 64);    /* facts hold: a gather and a scatter */
    test_strided(jm, 2, 48);    /* they fail: the run-time shape test */
    test_swap2(jm, 3, 64);
    test_swap2(jm, 2, 48);      /* the last warp of each block is half full */
    test_swap2(jm, 1, 7);
    test_shnext(jm, 128);
    test_shnext(jm, 48);
    test_border(jm, 64, 8);   /* lin: the fast paths */
    test_border(jm, 32, 4);
    test_border(jm, 48, 2);   /* the fall-backs rebuild the addresses */
    test_border(jm, 5, 7);
    test_loops(jm, "stride", 64);
    test_loops(jm, "stride", 32);
    test_loops(jm, "stride", 48);
    test_loops(jm, "skew", 64);
    test_loops(jm, "skew", 32);
    zn_jit_module_free(jm);
    zt_cleanup();
    if (zt_failures)
        fprintf(stderr, "%d failure(s)\n", zt_failures);
    else
        printf("PASS compile_affine\n");
    return zt_failures != 0;
}
