/* test_compile_affine_rows.c: the "rows" layout of the affine-address
 * analysis (zn_lower_affine.c, zn_lower_access.c). In a block whose x
 * extent X divides 32 a warp is 32 / X rows of X threads; a 16 x 16 tile in
 * shared memory then has accesses proven at compile time: tile[ty][tx] is
 * one contiguous run when X == 16 (`aff.row`), tile[ty][0] and tile[0][tx]
 * are two half warps, each uniform or contiguous (`aff.halves`). The
 * address registers are built the way nvcc builds SGEMM's: %r2 holds tid.x
 * before the loop and is redefined inside it, so the analysis must take
 * tid.x from the definition that reaches each read, and must not for the
 * read inside the loop (tile[0][r2], r2 = (tx + it) % ntid.x). Results
 * against a C reference for X = 1, 2, 4, 8, 16 and X = 12 (not a divisor:
 * the run-time shape test), full and partial warps. */
#include <stdlib.h>
#include <string.h>
#include "zn_test_harness.h"

static const char *ptx =
    ".version 7.0\n.target sm_80\n.address_size 64\n"
    ".visible .entry tile16(.param .u64 pin, .param .u64 pout, .param .u32 n)\n{\n"
    "  .shared .align 4 .b8 tile[1024];\n"
    "  .reg .pred %p<4>;\n  .reg .b32 %r<40>;\n  .reg .b64 %rd<16>;\n"
    "  ld.param.u64 %rd1, [pin];\n  ld.param.u64 %rd2, [pout];\n"
    "  ld.param.u32 %r1, [n];\n"
    "  mov.u32 %r2, %tid.x;\n  mov.u32 %r3, %tid.y;\n  mov.u32 %r30, %ntid.x;\n"
    "  shl.b32 %r4, %r3, 6;\n  mov.u32 %r5, tile;\n"
    "  add.s32 %r6, %r5, %r4;\n"          /* &tile[ty][0] */
    "  shl.b32 %r7, %r2, 2;\n"            /* tx * 4: %r2 is tid.x here */
    "  add.s32 %r8, %r6, %r7;\n"          /* &tile[ty][tx] */
    "  add.s32 %r9, %r5, %r7;\n"          /* &tile[0][tx] */
    "  shl.b32 %r10, %r3, 4;\n  add.s32 %r11, %r10, %r2;\n"
    "  mul.wide.u32 %rd3, %r11, 4;\n"
    "  add.s64 %rd4, %rd1, %rd3;\n  add.s64 %rd5, %rd2, %rd3;\n"
    "  ld.global.u32 %r12, [%rd4];\n"     /* in[ty * 16 + tx]: a row when X == 16 */
    "  mov.u32 %r20, 0;\n  mov.u32 %r21, 0;\n"
    "LOOP:\n"
    "  add.s32 %r13, %r12, %r21;\n"
    "  st.shared.u32 [%r8], %r13;\n"      /* tile[ty][tx] = in + it */
    "  bar.sync 0;\n"
    "  ld.shared.u32 %r14, [%r6];\n"      /* tile[ty][0]: one value per row */
    "  ld.shared.u32 %r15, [%r9];\n"      /* tile[0][tx]: the same in every row */
    "  shl.b32 %r16, %r2, 2;\n  add.s32 %r17, %r5, %r16;\n"
    "  ld.shared.u32 %r18, [%r17];\n"     /* tile[0][(tx + it) % X]: not affine */
    "  add.s32 %r20, %r20, %r14;\n  mad.lo.s32 %r20, %r15, 3, %r20;\n"
    "  mad.lo.s32 %r20, %r18, 5, %r20;\n"
    "  bar.sync 0;\n"
    "  add.s32 %r2, %r2, 1;\n  rem.u32 %r2, %r2, %r30;\n"
    "  add.s32 %r21, %r21, 1;\n  setp.lt.u32 %p1, %r21, %r1;\n"
    "  @%p1 bra LOOP;\n"
    "  st.global.u32 [%rd5], %r20;\n  ret;\n}\n";

#define T 16
#define ITERS 3
#define POISON 0xa5a5a5a5u

static void run(zn_jit_module *jm, uint32_t bx, uint32_t by)
{
    uint32_t in[T * T], out[T * T], *pi = in, *po = out, n = ITERS;
    for (uint32_t i = 0; i < T * T; i++) {
        in[i] = 0x9e3779b9u * (i + 1) >> 8;
        out[i] = POISON;
    }
    void *args[] = {&pi, &po, &n};
    CHECK(zt_run_exec(jm, "tile16", ZT_DIM1(1), (zt_dim){bx, by, 1}, 0, args) == 0,
          "tile16 %ux%u status", bx, by);
    for (uint32_t y = 0; y < T; y++)
        for (uint32_t x = 0; x < T; x++) {
            uint32_t want = POISON;
            if (x < bx && y < by) {
                want = 0;
                for (uint32_t it = 0; it < ITERS; it++)
                    want += (in[y * T] + it) + 3 * (in[x] + it) +
                            5 * (in[(x + it) % bx] + it);
            }
            CHECK(out[y * T + x] == want, "tile16 %ux%u (%u,%u): %08x, want %08x", bx, by,
                  x, y, out[y * T + x], want);
        }
}

static size_t count(const char *s, const char *what)
{
    size_t n = 0;
    for (const char *p = s; (p = strstr(p, what)); p += strlen(what))
        n++;
    return n;
}

int main(void)
{
    zn_compile_keep_ir(1);
    zn_jit_module *jm = zt_load_text(ptx, NULL);
    CHECK(jm != NULL, "rows kernel compiles");
    if (!jm)
        return 1;
    char *ir = zn_jit_ir_text(jm, 0);
    CHECK(ir != NULL, "IR kept");
    if (ir && !getenv("ZINC_NO_AFFINE")) {
        /* the tile store and the global load: one run when ntid.x == 16;
         * the three tile reads before the non-affine one: halves */
        CHECK(count(ir, "aff.row") >= 2, "%zu aff.row tests, want >= 2", count(ir, "aff.row"));
        CHECK(count(ir, "aff.halves") >= 3, "%zu aff.halves tests, want >= 3",
              count(ir, "aff.halves"));
        /* st + ld.global + 2 tile loads proven, the rotating load not */
        CHECK(count(ir, "\nld.affine") >= 2 && count(ir, "\nst.affine") >= 1,
              "affine blocks: %zu ld, %zu st", count(ir, "\nld.affine"),
              count(ir, "\nst.affine"));
    }
    free(ir);
    run(jm, 16, 16);  /* rows of 16: one vector access / two halves */
    run(jm, 16, 4);
    run(jm, 16, 3);   /* the last warp half full */
    run(jm, 8, 8);    /* rows of 8, 4, 2, 1 */
    run(jm, 4, 16);
    run(jm, 2, 16);
    run(jm, 1, 16);
    run(jm, 12, 5);   /* not a divisor of 32: run-time shapes */
    run(jm, 5, 3);
    zn_jit_module_free(jm);
    zt_cleanup();
    if (zt_failures)
        fprintf(stderr, "%d failure(s)\n", zt_failures);
    else
        printf("PASS compile_affine_rows\n");
    return zt_failures != 0;
}
