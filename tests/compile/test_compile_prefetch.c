/* test_compile_prefetch.c: software prefetch (zn_lower_prefetch.c).
 *
 * - A grid-stride loop (`i += nctaid.x * ntid.x`) gets a prefetch ahead of
 *   its load and one for writing ahead of its store, behind the run-time
 *   test of the step; a block-stride loop (`i += ntid.x`) gets none.
 * - Both compute out[i] = 3 * in[i] + 1 right (checked against the same
 *   sum in C, unwritten output keeps its poison) where the input ends
 *   just before a PROT_NONE page: the prefetches run far past it (the
 *   grid's step is 8 KiB, 8 steps ahead), and a prefetch must never fault.
 * - A loop over a tile's rows (a page or more apart) whose address moves
 *   128 bytes from one block to the next prefetches 4 blocks on; 8 KiB per
 *   block does not. Results right where the prefetches run past the input.
 * - A load and a store outside loops whose address moves by blockDim.x
 *   words from one block to the next prefetch (the store for writing) 4
 *   blocks on, from the affine lane-0 address (compiled for x86-64-v3;
 *   for AMD Zen 4, whose prefetchers follow such streams, they do not);
 *   the same kernel reading %tid.y (2D blocks, whose rows Intel's
 *   prefetchers follow) does not, except for Zen 4 (whose prefetchers
 *   track fewer streams than a 2D block's rows), and a constant 128 bytes
 *   per block in 1D does not. Results right where the last blocks'
 *   prefetches run past the input.
 * - PTX's prefetch / prefetchu in their forms lower to prefetches of lines
 *   that are not mapped either, and the kernel still runs. */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "zt_loop_kernel.h"

#define POISON ZT_POISON

static const char *grid_ptx = ZT_LOOP_PTX("gs", ZT_GRID_STRIDE, "");
static const char *block_ptx = ZT_LOOP_PTX("bs", ZT_BLOCK_STRIDE, "");

/* a tile's rows: j = tid.y, tid.y + ntid.y, ... < 32 over rows of pitch w
 * words, x = ctaid.x << SHIFT + tid.x: out = 3 * in + 1 at (j, x) */
#define ROWS_PTX(NAME, SHIFT)                                                          \
    ".version 7.0\n.target sm_70\n.address_size 64\n"                                \
    ".visible .entry " NAME "(.param .u64 pin, .param .u64 pout, .param .u32 pw)\n{\n"  \
    "  .reg .pred %p<2>;\n  .reg .b32 %r<12>;\n  .reg .b64 %rd<12>;\n"                 \
    "  ld.param.u64 %rd1, [pin];\n  ld.param.u64 %rd2, [pout];\n"                    \
    "  ld.param.u32 %r1, [pw];\n  mov.u32 %r2, %ctaid.x;\n"                            \
    "  shl.b32 %r3, %r2, " SHIFT ";\n  mov.u32 %r4, %tid.x;\n  add.s32 %r5, %r3, %r4;\n" \
    "  mov.u32 %r6, %tid.y;\n  mov.u32 %r7, %ntid.y;\n  cvt.s64.s32 %rd3, %r1;\n"      \
    "  cvt.s64.s32 %rd4, %r5;\n  mov.u32 %r8, %r6;\n"                                  \
    "LOOP:\n"                                                                          \
    "  cvt.s64.s32 %rd5, %r8;\n  mul.lo.s64 %rd6, %rd5, %rd3;\n"                       \
    "  add.s64 %rd7, %rd6, %rd4;\n  shl.b64 %rd8, %rd7, 2;\n  add.s64 %rd9, %rd1, %rd8;\n" \
    "  ld.global.u32 %r9, [%rd9];\n  mad.lo.s32 %r10, %r9, 3, 1;\n"                     \
    "  add.s64 %rd10, %rd2, %rd8;\n  st.global.u32 [%rd10], %r10;\n"                   \
    "  add.s32 %r8, %r8, %r7;\n  setp.lt.s32 %p1, %r8, 32;\n  @%p1 bra LOOP;\n"        \
    "  ret;\n}\n"

static const char *rows_ptx = ROWS_PTX("rows", "5");
static const char *rows_far_ptx = ROWS_PTX("rows_far", "11");

/* out[i] = 3 * in[i] + 1 for i = ctaid.x * BLOCK + INDEX < n, no loop */
#define STREAM_PTX(NAME, BLOCK, INDEX)                                                 \
    ".version 7.0\n.target sm_70\n.address_size 64\n"                                \
    ".visible .entry " NAME "(.param .u64 pin, .param .u64 pout, .param .u64 pn)\n{\n" \
    "  .reg .pred %p<2>;\n  .reg .b32 %r<10>;\n  .reg .b64 %rd<12>;\n"                 \
    "  ld.param.u64 %rd1, [pin];\n  ld.param.u64 %rd2, [pout];\n"                    \
    "  ld.param.u64 %rd3, [pn];\n"                                                     \
    "  mov.u32 %r1, %ntid.x;\n  mov.u32 %r2, %ctaid.x;\n  mov.u32 %r3, %tid.x;\n"    \
    "  mul.wide.u32 %rd4, %r2, " BLOCK ";\n" INDEX "  cvt.u64.u32 %rd5, %r9;\n"        \
    "  add.s64 %rd6, %rd4, %rd5;\n"                                                    \
    "  setp.ge.s64 %p1, %rd6, %rd3;\n  @%p1 bra DONE;\n"                              \
    "  shl.b64 %rd8, %rd6, 2;\n  add.s64 %rd9, %rd1, %rd8;\n"                         \
    "  ld.global.u32 %r5, [%rd9];\n  mad.lo.s32 %r6, %r5, 3, 1;\n"                     \
    "  add.s64 %rd10, %rd2, %rd8;\n  st.global.u32 [%rd10], %r6;\n"                   \
    "DONE:\n  ret;\n}\n"

#define INDEX_1D "  mov.u32 %r9, %r3;\n"
static const char *stream_ptx = STREAM_PTX("stream", "%r1", INDEX_1D);
static const char *stream_2d_ptx =
    STREAM_PTX("stream_2d", "%r1", "  mov.u32 %r7, %tid.y;\n  mad.lo.s32 %r9, %r7, %r1, %r3;\n");
static const char *stream_small_ptx = STREAM_PTX("stream_small", "32", INDEX_1D);

static const char *hint_ptx =
    ".version 8.0\n.target sm_80\n.address_size 64\n"
    ".visible .entry hint(.param .u64 pin, .param .u64 pout)\n{\n"
    "  .reg .b32 %r<4>;\n  .reg .b64 %rd<8>;\n"
    "  ld.param.u64 %rd1, [pin];\n  ld.param.u64 %rd2, [pout];\n"
    "  mov.u32 %r1, %tid.x;\n  mul.wide.u32 %rd3, %r1, 4;\n  add.s64 %rd4, %rd1, %rd3;\n"
    "  prefetch.global.L2 [%rd4+65536];\n  prefetch.global.L1 [%rd4];\n"
    "  prefetch.L1 [%rd4+-4096];\n  prefetchu.L1 [%rd4+4096];\n"
    "  prefetch.global.L2::evict_last [%rd4+8192];\n"
    "  ld.global.u32 %r2, [%rd4];\n  add.s64 %rd5, %rd2, %rd3;\n"
    "  st.global.u32 [%rd5], %r2;\n  ret;\n}\n";

/* the kernel's IR (kept by zn_compile_keep_ir) contains `what` or not */
static zn_jit_module *load_checking(const char *ptx, const char *what, bool want, const char *why)
{
    return zt_load_ir_has(ptx, what, want, "ZINC_NO_PREFETCH", why);
}

/* Which block streams prefetch depends on the CPU (zn_lower_prefetch.c's
 * stream_ahead): checked for a CPU that is not Zen and runs on any x86-64
 * host this project runs on (x86-64-v3), and for Zen 4 (compiled only) */
static zn_jit_module *load_stream_checking(const char *ptx, const char *cpu, const char *what,
                                           bool want, const char *why)
{
    return zt_load_ir_has_cpu(ptx, cpu, what, want, "ZINC_NO_PREFETCH", why);
}

/* 32 rows of w words ending at the protected page; blocks of 32 x 8 */
static void run_rows(zn_jit_module *jm, const uint8_t *page_end, uint32_t w)
{
    size_t n = (size_t)32 * w;
    const uint32_t *in = (const uint32_t *)page_end - n;
    uint32_t *out = zt_poisoned(n, POISON);
    if (!out)
        return;
    void *pin = (void *)in, *pout = out;
    void *args[] = {&pin, &pout, &w};
    CHECK(zt_run(jm, "rows", ZT_DIM1(w / 32), (zt_dim){32, 8, 1}, 0, args) == 0, "rows %u: status", w);
    int bad = 0;
    for (size_t i = 0; i < n; i++)
        if (out[i] != 3 * in[i] + 1 && bad++ < 5)
            CHECK(0, "rows %u: out[%zu] = 0x%08x, want 0x%08x", w, i, out[i], 3 * in[i] + 1);
    free(out);
}

int main(void)
{
    size_t pg = (size_t)sysconf(_SC_PAGESIZE), len = (size_t)320 << 10;
    uint8_t *mem = mmap(NULL, len + pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(mem != MAP_FAILED, "mmap");
    if (mem == MAP_FAILED)
        return 1;
    CHECK(mprotect(mem + len, pg, PROT_NONE) == 0, "mprotect");
    /* n words ending at the protected page */
    uint64_t n = ((size_t)64 << 10) / 4 - 37;
    uint32_t *in = (uint32_t *)(mem + len) - n;
    for (uint64_t i = 0; i < n; i++)
        in[i] = (uint32_t)(i * 2654435761u + 12345);

    zn_compile_keep_ir(1); /* keeps the IR text (and bypasses the cache) */
    /* llvm.prefetch(ptr, rw = 1, locality 3, data): the store's too */
    zn_jit_module *gs = load_checking(grid_ptx, "i32 1, i32 3, i32 1)", true, "grid-stride loop");
    zn_jit_module *bs = load_checking(block_ptx, "@llvm.prefetch", false, "block-stride loop");
    zn_jit_module *hint = load_checking(hint_ptx, "@llvm.prefetch", true, "prefetch instructions");
    zn_jit_module *rows = load_checking(rows_ptx, "@llvm.prefetch", true, "a tile's rows");
    zn_jit_module *far = load_checking(rows_far_ptx, "@llvm.prefetch", false,
                                       "rows 8 KiB apart per block");
    zn_jit_module *stream = load_stream_checking(stream_ptx, "x86-64-v3", "i32 1, i32 3, i32 1)",
                                                 true, "a block-by-block stream");
    /* its lanes 0 and 31 from the affine lane-0 address, not extracted
     * from the address vector */
    zn_jit_module *stream_aff = load_stream_checking(stream_ptx, "x86-64-v3", "%pf = inttoptr i64",
                                                     true, "a stream's affine prefetch");
    if (stream_aff)
        zn_jit_module_free(stream_aff);
    zn_jit_module *stream_zen = load_stream_checking(stream_ptx, "znver4", "@llvm.prefetch", false,
                                                     "a stream on AMD Zen 4");
    if (stream_zen)     /* compiled only: Zen 4 code need not run here */
        zn_jit_module_free(stream_zen);
    zn_jit_module *s2d = load_stream_checking(stream_2d_ptx, "x86-64-v3", "@llvm.prefetch", false,
                                              "a 2D block's row");
    zn_jit_module *s2d_zen = load_stream_checking(stream_2d_ptx, "znver4", "i32 1, i32 3, i32 1)",
                                                  true, "a 2D block's row on AMD Zen 4");
    if (s2d_zen)
        zn_jit_module_free(s2d_zen);
    zn_jit_module *small = load_checking(stream_small_ptx, "@llvm.prefetch", false,
                                         "128 bytes per block");
    zn_compile_keep_ir(0);
    if (stream) {
        zt_run_loop(stream, "stream", in, n, (uint32_t)((n + 127) / 128), 128);
        zt_run_loop(stream, "stream", in, 1000, 11, 96);  /* fewer elements than threads */
        zn_jit_module_free(stream);
    }
    if (s2d) {
        zt_run_loop(s2d, "stream_2d", in, n, (uint32_t)((n + 255) / 256), 256);
        zn_jit_module_free(s2d);
    }
    if (small) {
        zt_run_loop(small, "stream_small", in, n, (uint32_t)((n + 31) / 32), 32);
        zn_jit_module_free(small);
    }
    if (gs) {
        zt_run_loop(gs, "gs", in, n, 16, 128);  /* an 8 KiB step: prefetched */
        zt_run_loop(gs, "gs", in, n, 3, 96);    /* 1152 bytes: the run-time test says no */
        zt_run_loop(gs, "gs", in, 100, 64, 64); /* fewer elements than threads */
        zn_jit_module_free(gs);
    }
    if (bs) {
        zt_run_loop(bs, "bs", in, n, 1, 256);
        zn_jit_module_free(bs);
    }
    if (rows) {
        run_rows(rows, mem + len, 2048);   /* a 64 KiB step: prefetched 4 blocks on */
        run_rows(rows, mem + len, 64);     /* a 2 KiB step: not */
        zn_jit_module_free(rows);
    }
    if (far)
        zn_jit_module_free(far);
    if (hint) {
        /* the last 64 words: every prefetch but one reaches unmapped memory */
        const uint32_t *last = in + n - 64;
        uint32_t out[64];
        for (int i = 0; i < 64; i++)
            out[i] = POISON;
        void *pin = (void *)last, *pout = out;
        void *args[] = {&pin, &pout};
        CHECK(zt_run(hint, "hint", ZT_DIM1(1), ZT_DIM1(64), 0, args) == 0, "hint: status");
        for (int i = 0; i < 64; i++)
            CHECK(out[i] == last[i], "hint: out[%d] = 0x%08x, want 0x%08x", i, out[i], last[i]);
        zn_jit_module_free(hint);
    }
    munmap(mem, len + pg);
    zt_cleanup();
    if (!zt_failures)
        printf("test_compile_prefetch: all passed\n");
    return zt_failures != 0;
}
