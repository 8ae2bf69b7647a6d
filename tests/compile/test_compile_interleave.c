/* test_compile_interleave.c: grid-stride loops interleave their warps.
 *
 * A kernel without block barriers whose loop steps by a register computed
 * from %nctaid is a coroutine that yields at the loop's backward branch
 * (zn_lower_coro.c), so the block's warps take turns per iteration:
 * - its IR has the split coroutine (a .resume function); a block-stride
 *   loop (`i += ntid.x`) and a grid-stride loop in a kernel with a
 *   bar.sync do not yield (the second is a coroutine for its barrier);
 *   with ZINC_NO_GRID_INTERLEAVE=1 the grid-stride kernel is not one;
 * - out[i] = 3 * in[i] + 1 is right (checked against the same sum in C,
 *   unwritten output keeps its poison) for many iterations, one, none,
 *   and fewer elements than threads, on blocks with a partial last warp;
 * - a grid-stride sum with shfl.sync.bfly and one atom.global.add per
 *   warp (warp collectives after the interleaved loop) is exact. */
#include <stdlib.h>
#include <string.h>
#include "zt_loop_kernel.h"

static const char *grid_ptx = ZT_LOOP_PTX("gs", ZT_GRID_STRIDE, "");
static const char *block_ptx = ZT_LOOP_PTX("bs", ZT_BLOCK_STRIDE, "");
static const char *barrier_ptx = ZT_LOOP_PTX("gsbar", ZT_GRID_STRIDE, "  bar.sync 0;\n");

/* *out += the sum of in[0..n) (u32, wrapping): a grid-stride sum per
 * thread, a butterfly over the warp, lane 0 adds it */
static const char *sum_ptx =
    ".version 7.0\n.target sm_70\n.address_size 64\n"
    ".visible .entry gsum(.param .u64 pin, .param .u64 pout, .param .u64 pn)\n{\n"
    "  .reg .pred %p<3>;\n  .reg .b32 %r<16>;\n  .reg .b64 %rd<12>;\n"
    "  ld.param.u64 %rd1, [pin];\n  ld.param.u64 %rd2, [pout];\n  ld.param.u64 %rd3, [pn];\n"
    "  mov.u32 %r1, %ntid.x;\n  mov.u32 %r2, %ctaid.x;\n  mov.u32 %r3, %tid.x;\n"
    "  mov.u32 %r4, %nctaid.x;\n  mul.wide.u32 %rd4, %r2, %r1;\n  cvt.u64.u32 %rd5, %r3;\n"
    "  add.s64 %rd6, %rd4, %rd5;\n  mul.wide.u32 %rd7, %r4, %r1;\n  mov.u32 %r10, 0;\n"
    "  setp.ge.s64 %p1, %rd6, %rd3;\n  @%p1 bra RED;\n"
    "LOOP:\n  shl.b64 %rd8, %rd6, 2;\n  add.s64 %rd9, %rd1, %rd8;\n"
    "  ld.global.u32 %r5, [%rd9];\n  add.s32 %r10, %r10, %r5;\n"
    "  add.s64 %rd6, %rd6, %rd7;\n  setp.lt.s64 %p1, %rd6, %rd3;\n  @%p1 bra LOOP;\n"
    "RED:\n"
    "  shfl.sync.bfly.b32 %r11, %r10, 16, 31, -1;\n  add.s32 %r10, %r10, %r11;\n"
    "  shfl.sync.bfly.b32 %r11, %r10, 8, 31, -1;\n  add.s32 %r10, %r10, %r11;\n"
    "  shfl.sync.bfly.b32 %r11, %r10, 4, 31, -1;\n  add.s32 %r10, %r10, %r11;\n"
    "  shfl.sync.bfly.b32 %r11, %r10, 2, 31, -1;\n  add.s32 %r10, %r10, %r11;\n"
    "  shfl.sync.bfly.b32 %r11, %r10, 1, 31, -1;\n  add.s32 %r10, %r10, %r11;\n"
    "  and.b32 %r12, %r3, 31;\n  setp.ne.u32 %p2, %r12, 0;\n  @%p2 bra END;\n"
    "  atom.global.add.u32 %r13, [%rd2], %r10;\nEND:\n  ret;\n}\n";

/* the kernel's IR (kept by zn_compile_keep_ir) has a coroutine's resume
 * function or not */
static zn_jit_module *load_checking(const char *ptx, bool want, const char *why)
{
    return zt_load_ir_has(ptx, ".resume", want, "ZINC_NO_CORO", why);
}

static void run_shapes(zn_jit_module *jm, const char *kernel, const uint32_t *in, uint64_t n)
{
    zt_run_loop(jm, kernel, in, n, 16, 128);    /* 16 iterations or so per thread */
    zt_run_loop(jm, kernel, in, n, 7, 100);     /* a partial last warp */
    zt_run_loop(jm, kernel, in, 2048, 16, 128); /* exactly one iteration */
    zt_run_loop(jm, kernel, in, 100, 8, 64);    /* fewer elements than threads */
    zt_run_loop(jm, kernel, in, 0, 4, 64);      /* none */
}

static void run_sum(zn_jit_module *jm, const uint32_t *in, uint64_t n, uint32_t blocks,
                    uint32_t threads)
{
    uint32_t want = 0, got = 0x1234;
    for (uint64_t i = 0; i < n; i++)
        want += in[i];
    want += 0x1234;
    void *pin = (void *)in, *pout = &got;
    void *args[] = {&pin, &pout, &n};
    CHECK(zt_run_exec(jm, "gsum", ZT_DIM1(blocks), ZT_DIM1(threads), 0, args) == 0,
          "gsum %ux%u: status", blocks, threads);
    CHECK(got == want, "gsum %ux%u n=%llu: 0x%08x, want 0x%08x", blocks, threads,
          (unsigned long long)n, got, want);
}

int main(void)
{
    uint64_t n = 40000;
    uint32_t *in = malloc(n * sizeof *in);
    CHECK(in != NULL, "malloc");
    if (!in)
        return 1;
    for (uint64_t i = 0; i < n; i++)
        in[i] = (uint32_t)(i * 2654435761u + 12345);

    zn_compile_keep_ir(1); /* keeps the IR text (and bypasses the cache) */
    zn_jit_module *gs = load_checking(grid_ptx, true, "grid-stride loop");
    zn_jit_module *bs = load_checking(block_ptx, false, "block-stride loop");
    zn_jit_module *bar = load_checking(barrier_ptx, true, "grid-stride loop with a barrier");
    zn_jit_module *sum = load_checking(sum_ptx, true, "grid-stride sum");
    if (bar && gs && !getenv("ZINC_NO_CORO")) {
        /* the yield's block keeps its name in the kept IR; the kernel with
         * a barrier has none (its only suspend point is the barrier) */
        char *ir = zn_jit_ir_text(gs, 0), *irb = zn_jit_ir_text(bar, 0);
        CHECK(ir && strstr(ir, "gs.yield"), "grid-stride loop: no gs.yield block in the IR");
        CHECK(irb && !strstr(irb, "gs.yield"), "grid-stride loop with a barrier: yields");
        free(ir);
        free(irb);
    }
    setenv("ZINC_NO_GRID_INTERLEAVE", "1", 1);
    zn_jit_module *whole = load_checking(grid_ptx, false, "ZINC_NO_GRID_INTERLEAVE=1");
    unsetenv("ZINC_NO_GRID_INTERLEAVE");
    zn_compile_keep_ir(0);

    zn_jit_module *all[] = {gs, bs, bar, whole};
    const char *names[] = {"gs", "bs", "gsbar", "gs"};
    for (int k = 0; k < 4; k++)
        if (all[k]) {
            /* gsbar's barrier sits in a loop whose trip count differs per
             * thread: only shapes where every thread runs as many */
            if (k == 2)
                zt_run_loop(all[k], names[k], in, 2048 * 4, 16, 128);
            else
                run_shapes(all[k], names[k], in, n);
            zn_jit_module_free(all[k]);
        }
    if (sum) {
        run_sum(sum, in, n, 16, 128);
        run_sum(sum, in, n, 5, 96);
        run_sum(sum, in, 50, 4, 64);
        zn_jit_module_free(sum);
    }
    free(in);
    zt_cleanup();
    if (!zt_failures)
        printf("test_compile_interleave: all passed\n");
    return zt_failures != 0;
}
