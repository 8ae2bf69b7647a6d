/* test_compile_window.c: loads whose lanes read inside small windows
 * (zn_lower_lanetab.c predicts the lane offsets, zn_lower_window.c loads
 * each lane group's window and picks the bytes). The kernel indexes like
 * llama.cpp's mul_mat_vec_q: 34-byte blocks, block tid / 4 and piece
 * 8 * (tid % 4) through nvcc's signed-division idiom, a loop-carried
 * pointer stepped by a launch constant and an immediate, and u8, u16,
 * u32 and u64 loads at odd offsets. The last block ends at a page whose
 * next page is unmapped, and lanes past nb are idle there: a byte outside
 * what the lanes read must not be touched. Blocks of 32 x 4 (the
 * prediction holds), 16 x 8 (it does not: the shape tests take over), row
 * counts that leave lane groups partly active, on the host CPU and on
 * x86-64-v3 (no AVX-512: no window path). Checked against the bytes the
 * test wrote; unwritten output keeps its poison. Loads of one register
 * share one run-time test until the register is written (zn_window_forget);
 * the last load follows such a write. The loop's pointer steps
 * by an immediate, so the windows also prefetch ahead (past the unmapped
 * page too, which a prefetch may do: it never faults), unless every block
 * reads the same bytes (the same kernel without its %ctaid row step: in
 * the cache after the first block, no prefetch). Two more kernels (steps,
 * contig) check the tests carried around loops (zn_lower_winslot.c). */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "zn_test_harness.h"

#define POISON 0xa5a5a5a5u
#define WORDS 7 /* per thread per iteration */

/* ROW: what moves x from block to block ("" : nothing, every block reads
 * the same bytes) */
#define WIN_PTX(NAME, ROW)                                                                     \
    ".version 7.0\n.target sm_70\n.address_size 64\n"                                          \
    ".visible .entry " NAME "(.param .u64 px, .param .u64 po, .param .u32 pnb, .param .u32 pbase," \
    " .param .u64 pstride)\n{\n" \
    "  .reg .pred %p<2>;\n  .reg .b16 %rs<3>;\n  .reg .b32 %r<22>;\n  .reg .b64 %rd<20>;\n" \
    "  ld.param.u64 %rd1, [px];\n  ld.param.u64 %rd2, [po];\n" \
    "  ld.param.u32 %r1, [pnb];\n  ld.param.u32 %r15, [pbase];\n" \
    "  ld.param.u64 %rd14, [pstride];\n" \
    "  mov.u32 %r2, %tid.y;\n  shl.b32 %r3, %r2, 5;\n  mov.u32 %r4, %tid.x;\n" \
    "  add.s32 %r5, %r3, %r4;\n" \
    /* kb = tid / 4, q = 8 * (tid % 4), as nvcc writes them for int */ \
    "  shr.s32 %r6, %r5, 31;\n  shr.u32 %r7, %r6, 30;\n  add.s32 %r8, %r5, %r7;\n" \
    "  shr.s32 %r9, %r8, 2;\n  and.b32 %r10, %r8, -4;\n  sub.s32 %r11, %r5, %r10;\n" \
    "  shl.b32 %r12, %r11, 3;\n  cvt.s64.s32 %rd3, %r12;\n" \
    "  mul.wide.s32 %rd4, %r9, 34;\n  add.s64 %rd5, %rd1, %rd4;\n" \
    "  cvt.u64.u32 %rd13, %r15;\n  add.s64 %rd5, %rd5, %rd13;\n" ROW \
    "  mul.wide.u32 %rd6, %r5, 28;\n  add.s64 %rd7, %rd2, %rd6;\n" \
    "LOOP:\n" \
    "  setp.ge.s32 %p1, %r9, %r1;\n  @%p1 bra DONE;\n" \
    "  add.s64 %rd8, %rd5, %rd3;\n" \
    "  ld.global.u8 %r14, [%rd8+2];\n  ld.global.u16 %rs1, [%rd8+2];\n" \
    "  ld.global.u32 %r16, [%rd8+2];\n  ld.global.u64 %rd9, [%rd8+2];\n" \
    "  ld.global.u16 %rs2, [%rd5];\n" \
    "  cvt.u32.u16 %r17, %rs1;\n  cvt.u32.u16 %r18, %rs2;\n" \
    "  mov.b64 {%r19, %r13}, %rd9;\n" \
    "  st.global.u32 [%rd7], %r14;\n  st.global.u32 [%rd7+4], %r17;\n" \
    "  st.global.u32 [%rd7+8], %r16;\n  st.global.u32 [%rd7+12], %r19;\n" \
    "  st.global.u32 [%rd7+16], %r13;\n  st.global.u32 [%rd7+20], %r18;\n" \
    /* the address register moves on: a later load of it must test again, \
     * not reuse the earlier loads' answer (zn_window_forget) */ \
    "  add.s64 %rd8, %rd8, 1;\n  ld.global.u8 %r21, [%rd8+2];\n" \
    "  st.global.u32 [%rd7+24], %r21;\n" \
    "  add.s32 %r9, %r9, 32;\n  add.s64 %rd5, %rd5, 1088;\n  add.s64 %rd7, %rd7, %rd14;\n" \
    "  bra LOOP;\n" \
    "DONE:\n  ret;\n}\n"

/* x moves by 4352 bytes a block (a row of mul_mat_vec_q's matrix) */
static const char *ptx = WIN_PTX("win", "  mov.u32 %r20, %ctaid.x;\n"
                                 "  mul.wide.u32 %rd15, %r20, 4352;\n  add.s64 %rd5, %rd5, %rd15;\n");
/* the same bytes in every block (mul_mat_vec_q's vector) */
static const char *ptx_inv = WIN_PTX("win", "");

/* Window tests carried around the loop (zn_lower_winslot.c): %rd5 steps
 * by a uniform register every iteration, so after one passing test the
 * loads of %rd5 and of %rd8 = %rd5 + %rd3 (%rd3 loop-invariant) need no
 * vector test. What must end or move that: a guarded step in iteration
 * podd (the lanes with tid & 4 move 2 bytes further, so the lanes no
 * longer sit at base + T and the loads gather), a copy of %rd17 (the pattern at another base, known
 * from %rd17's own slots) in iteration STEP_COPY and a subtraction (not an
 * addition: tested there, as %rd5 is a term of %rd8) in iteration
 * STEP_SUB. %rd9, which only loads read, is moved by a subtraction there
 * too: its slots are forgotten and its next load tests again. (16-bit loads
 * at even addresses: PTX requires natural alignment, and Zinc's narrow
 * gathers rely on it.) */
#define STEP_ITERS 8
#define STEP_COPY 2
#define STEP_SUB 5
#define STEP_WORDS 3
static const char *ptx_step =
    ".version 7.0\n.target sm_70\n.address_size 64\n"
    ".visible .entry steps(.param .u64 px, .param .u64 po, .param .u64 pstep, .param .u32 podd)\n{\n"
    "  .reg .pred %p<4>;\n  .reg .b16 %rs<4>;\n  .reg .b32 %r<24>;\n  .reg .b64 %rd<20>;\n"
    "  ld.param.u64 %rd1, [px];\n  ld.param.u64 %rd2, [po];\n  ld.param.u64 %rd16, [pstep];\n"
    "  ld.param.u32 %r22, [podd];\n"
    "  mov.u32 %r2, %tid.y;\n  shl.b32 %r3, %r2, 5;\n  mov.u32 %r4, %tid.x;\n"
    "  add.s32 %r5, %r3, %r4;\n"
    "  shr.s32 %r9, %r5, 2;\n  and.b32 %r11, %r5, 3;\n  shl.b32 %r12, %r11, 3;\n"
    "  cvt.s64.s32 %rd3, %r12;\n  mul.wide.s32 %rd4, %r9, 34;\n  add.s64 %rd5, %rd1, %rd4;\n"
    "  add.s64 %rd17, %rd1, %rd4;\n  add.s64 %rd17, %rd17, 6;\n"
    "  add.s64 %rd9, %rd1, %rd4;\n  add.s64 %rd9, %rd9, 12;\n"
    "  and.b32 %r20, %r5, 4;\n  setp.ne.s32 %p2, %r20, 0;\n"
    "  mul.wide.u32 %rd6, %r5, 4;\n  add.s64 %rd7, %rd2, %rd6;\n"
    "  mov.u32 %r21, 0;\n"
    "LOOP:\n"
    "  add.s64 %rd8, %rd5, %rd3;\n"
    "  ld.global.u16 %rs1, [%rd8+2];\n  ld.global.u16 %rs2, [%rd5];\n"
    "  ld.global.u16 %rs3, [%rd9];\n"
    "  cvt.u32.u16 %r17, %rs1;\n  cvt.u32.u16 %r18, %rs2;\n  cvt.u32.u16 %r19, %rs3;\n"
    "  st.global.u32 [%rd7], %r17;\n  st.global.u32 [%rd7+512], %r18;\n"
    "  st.global.u32 [%rd7+1024], %r19;\n"
    "  setp.ne.s32 %p3, %r21, %r22;\n  @%p3 bra NOODD;\n"
    "  @%p2 add.s64 %rd5, %rd5, 2;\n"
    "NOODD:\n"
    "  add.s64 %rd5, %rd5, %rd16;\n  add.s64 %rd17, %rd17, %rd16;\n  add.s64 %rd9, %rd9, %rd16;\n"
    "  setp.ne.s32 %p1, %r21, 2;\n  @%p1 bra NOCOPY;\n"
    "  mov.b64 %rd5, %rd17;\n"
    "NOCOPY:\n"
    "  setp.ne.s32 %p1, %r21, 5;\n  @%p1 bra NOSUB;\n"
    "  sub.s64 %rd5, %rd17, 4;\n  sub.s64 %rd9, %rd17, 8;\n"
    "NOSUB:\n"
    "  add.s64 %rd7, %rd7, 2048;\n  add.s32 %r21, %r21, 1;\n"
    "  setp.lt.s32 %p1, %r21, 8;\n  @%p1 bra LOOP;\n"
    "  ret;\n}\n";

/* The contiguous run-time shape carried the same way: %rd10 = x + 4 * col
 * where col leaves a first loop (pskip uniform steps of 32), so the affine
 * analysis cannot follow it and each load tests its lanes at run time;
 * after one passing test (or the test of %rd11, the term, at its
 * definition) the loads of the second loop need none. In iteration podd
 * the lanes with tid & 8 step 4 bytes further: the next loads must not be
 * contiguous at the carried base. */
#define CONTIG_ITERS 6
static const char *ptx_contig =
    ".version 7.0\n.target sm_70\n.address_size 64\n"
    ".visible .entry contig(.param .u64 px, .param .u64 po, .param .u32 pskip, .param .u32 podd)\n{\n"
    "  .reg .pred %p<4>;\n  .reg .b32 %r<24>;\n  .reg .b64 %rd<20>;\n"
    "  ld.param.u64 %rd1, [px];\n  ld.param.u64 %rd2, [po];\n"
    "  ld.param.u32 %r1, [pskip];\n  ld.param.u32 %r22, [podd];\n"
    "  mov.u32 %r2, %tid.y;\n  shl.b32 %r3, %r2, 5;\n  mov.u32 %r4, %tid.x;\n"
    "  add.s32 %r5, %r3, %r4;\n  cvt.s64.s32 %rd9, %r5;\n"
    "  mov.u32 %r6, 0;\n"
    "SKIP:\n"
    "  setp.ge.s32 %p1, %r6, %r1;\n  @%p1 bra SKIPPED;\n"
    "  add.s64 %rd9, %rd9, 32;\n  add.s32 %r6, %r6, 1;\n  bra SKIP;\n"
    "SKIPPED:\n"
    "  shl.b64 %rd11, %rd9, 2;\n  add.s64 %rd10, %rd1, %rd11;\n"
    "  and.b32 %r20, %r5, 8;\n  setp.ne.s32 %p2, %r20, 0;\n"
    "  mul.wide.u32 %rd6, %r5, 4;\n  add.s64 %rd7, %rd2, %rd6;\n"
    "  mov.u32 %r21, 0;\n"
    "LOOP:\n"
    "  ld.global.u32 %r17, [%rd10];\n  ld.global.u32 %r18, [%rd10+4];\n"
    "  st.global.u32 [%rd7], %r17;\n  st.global.u32 [%rd7+512], %r18;\n"
    "  setp.ne.s32 %p3, %r21, %r22;\n  @%p3 bra NOODD;\n"
    "  @%p2 add.s64 %rd10, %rd10, 4;\n"
    "NOODD:\n"
    "  add.s64 %rd10, %rd10, 132;\n"
    "  add.s64 %rd7, %rd7, 1024;\n  add.s32 %r21, %r21, 1;\n"
    "  setp.lt.s32 %p1, %r21, 6;\n  @%p1 bra LOOP;\n"
    "  ret;\n}\n";

/* Loads under a branch on lane bits inside a lane group, as llama.cpp's
 * Q4_K scales (`if (j < 2)` on tid % 16 / 4): 144-byte blocks, block
 * tid / 16, u16 at 2 * (tid % 16 / 4). Groups of 16 lanes read 8 bytes
 * each and the branch leaves half of each group idle: the window path
 * reads the idle lanes' bytes too, which is allowed only when every
 * window lies in one page (x placed so that the idle lanes' bytes of the
 * taken side fall on the unmapped page must fall back and not fault).
 * Word 0: [a + 4] for tid % 16 < 8, [a] otherwise; word 1: [a], every
 * lane. */
static const char *ptx_part =
    ".version 7.0\n.target sm_70\n.address_size 64\n"
    ".visible .entry part(.param .u64 px, .param .u64 po)\n{\n"
    "  .reg .pred %p<2>;\n  .reg .b16 %rs<4>;\n  .reg .b32 %r<24>;\n  .reg .b64 %rd<12>;\n"
    "  ld.param.u64 %rd1, [px];\n  ld.param.u64 %rd2, [po];\n"
    "  mov.u32 %r2, %tid.y;\n  shl.b32 %r3, %r2, 5;\n  mov.u32 %r4, %tid.x;\n"
    "  add.s32 %r5, %r3, %r4;\n"
    /* kb = tid / 16, j = tid % 16, j / 4: nvcc's signed idioms */
    "  shr.s32 %r6, %r5, 31;\n  shr.u32 %r7, %r6, 28;\n  add.s32 %r8, %r5, %r7;\n"
    "  shr.s32 %r9, %r8, 4;\n  and.b32 %r10, %r8, -16;\n  sub.s32 %r11, %r5, %r10;\n"
    "  shr.s32 %r12, %r11, 31;\n  shr.u32 %r13, %r12, 30;\n  add.s32 %r14, %r11, %r13;\n"
    "  shr.s32 %r15, %r14, 2;\n"
    "  mul.wide.s32 %rd3, %r9, 144;\n  add.s64 %rd4, %rd1, %rd3;\n"
    "  mul.wide.s32 %rd5, %r15, 2;\n  add.s64 %rd6, %rd4, %rd5;\n"
    "  mul.wide.u32 %rd7, %r5, 4;\n  add.s64 %rd8, %rd2, %rd7;\n"
    "  setp.lt.s32 %p1, %r11, 8;\n  @%p1 bra LOW;\n"
    "  ld.global.nc.u16 %rs1, [%rd6];\n  bra.uni JOIN;\n"
    "LOW:\n  ld.global.nc.u16 %rs1, [%rd6+4];\n"
    "JOIN:\n  ld.global.nc.u16 %rs2, [%rd6];\n"
    "  cvt.u32.u16 %r16, %rs1;\n  cvt.u32.u16 %r17, %rs2;\n"
    "  st.global.u32 [%rd8], %r16;\n  st.global.u32 [%rd8+512], %r17;\n"
    "  ret;\n}\n";

static uint64_t le(const uint8_t *p, int n)
{
    uint64_t v = 0;
    for (int i = n; i-- > 0;)
        v = v << 8 | p[i];
    return v;
}

static void run(zn_jit_module *jm, const uint8_t *page_end, uint32_t bx, uint32_t by,
                int nb, const char *what)
{
    uint32_t slots = 32 * by, iters = (uint32_t)(nb + 31) / 32 + 1;
    size_t nout = (size_t)slots * iters * WORDS;
    uint32_t *out = zt_poisoned(nout, POISON);
    if (!out)
        return;
    uint32_t base = 5; /* bytes before block 0 */
    const uint8_t *x = page_end - 34 * nb - base;
    uint64_t stride = (uint64_t)slots * WORDS * 4;
    void *px = (void *)x, *po = out;
    uint32_t pnb = (uint32_t)nb;
    void *args[] = {&px, &po, &pnb, &base, &stride};
    CHECK(zt_run(jm, "win", ZT_DIM1(1), (zt_dim){bx, by, 1}, 0, args) == 0,
          "%s %ux%u nb %d: status", what, bx, by, nb);
    int bad = 0;
    for (uint32_t ty = 0; ty < by; ty++)
        for (uint32_t tx = 0; tx < bx; tx++) {
            int tid = (int)(32 * ty + tx), kb = tid / 4, q = 8 * (tid % 4);
            for (uint32_t k = 0; k < iters; k++, kb += 32) {
                const uint32_t *o = out + ((size_t)k * slots + (uint32_t)tid) * WORDS;
                const uint8_t *p = x + base + 34 * kb, *a = p + q + 2;
                uint32_t want[WORDS];
                for (int j = 0; j < WORDS; j++)
                    want[j] = POISON;   /* past the last block: nothing read */
                if (kb < nb) {
                    uint64_t u64 = le(a, 8);
                    uint32_t got[WORDS] = {a[0], (uint32_t)le(a, 2), (uint32_t)le(a, 4),
                                           (uint32_t)u64, (uint32_t)(u64 >> 32),
                                           (uint32_t)le(p, 2), a[1]};
                    memcpy(want, got, sizeof want);
                }
                for (int j = 0; j < WORDS; j++) {
                    uint32_t w = want[j];
                    if (o[j] != w && bad++ < 6)
                        CHECK(0, "%s %ux%u nb %d: thread (%u,%u) iteration %u word %d: 0x%08x, "
                              "want 0x%08x", what, bx, by, nb, tx, ty, k, j, o[j], w);
                }
            }
        }
    free(out);
}

/* Runs a carried-test kernel on one block of 32 x 4 threads writing word
 * (k, j) of thread t at out[k * stride + j * 128 + t] (k < iters, j <
 * words) and checks every word of out[iters * stride] against want[]
 * (POISON where nothing is written). */
static void check_carried(zn_jit_module *jm, const char *kernel, void **args, void **pout,
                          const uint32_t *want, uint32_t iters, uint32_t stride,
                          const char *what)
{
    size_t n = (size_t)iters * stride;
    uint32_t *out = zt_poisoned(n, POISON);
    if (!out)
        return;
    *pout = out;
    CHECK(zt_run(jm, kernel, ZT_DIM1(1), (zt_dim){32, 4, 1}, 0, args) == 0, "%s: status", what);
    int bad = 0;
    for (size_t i = 0; i < n; i++)
        if (out[i] != want[i] && bad++ < 6)
            CHECK(0, "%s: iteration %zu word %zu thread %zu: 0x%08x, want 0x%08x", what,
                  i / stride, i % stride / 128, i % 128, out[i], want[i]);
    free(out);
}

/* steps; odd: the iteration that takes the guarded step (none when out
 * of range) */
static void run_steps(zn_jit_module *jm, const uint8_t *x, uint32_t odd, const char *what)
{
    enum { STRIDE = 512 };
    static uint32_t want[STEP_ITERS * STRIDE];
    for (size_t i = 0; i < STEP_ITERS * STRIDE; i++)
        want[i] = POISON;
    for (int tid = 0; tid < 128; tid++) {
        int64_t p = 34 * (tid >> 2), q = 8 * (tid & 3), p9 = p + 12;
        for (uint32_t k = 0; k < STEP_ITERS; k++) {
            uint32_t *w = want + k * STRIDE + tid;
            w[0] = (uint32_t)le(x + p + q + 2, 2);
            w[128] = (uint32_t)le(x + p, 2);
            w[256] = (uint32_t)le(x + p9, 2);
            if (k == odd && (tid & 4))
                p += 2;
            p += 1088;
            p9 += 1088;
            int64_t p17 = 34 * (tid >> 2) + 6 + (int64_t)(k + 1) * 1088;
            if (k == STEP_COPY)
                p = p17;
            if (k == STEP_SUB) {
                p = p17 - 4;
                p9 = p17 - 8;
            }
        }
    }
    uint64_t step = 1088;
    void *px = (void *)x, *po = NULL;
    void *args[] = {&px, &po, &step, &odd};
    check_carried(jm, "steps", args, &po, want, STEP_ITERS, STRIDE, what);
}

/* contig: skip steps of the first loop, the guarded step in iteration odd
 * (none when out of range) */
static void run_contig(zn_jit_module *jm, const uint8_t *x, uint32_t skip, uint32_t odd,
                       const char *what)
{
    enum { STRIDE = 256 };
    static uint32_t want[CONTIG_ITERS * STRIDE];
    for (int tid = 0; tid < 128; tid++) {
        int64_t p = 4 * (tid + 32 * (int64_t)skip);
        for (uint32_t k = 0; k < CONTIG_ITERS; k++) {
            want[k * STRIDE + tid] = (uint32_t)le(x + p, 4);
            want[k * STRIDE + 128 + tid] = (uint32_t)le(x + p + 4, 4);
            if (k == odd && (tid & 8))
                p += 4;
            p += 132;
        }
    }
    void *px = (void *)x, *po = NULL;
    void *args[] = {&px, &po, &skip, &odd};
    check_carried(jm, "contig", args, &po, want, CONTIG_ITERS, STRIDE, what);
}

/* part with its blocks at x */
static void run_part(zn_jit_module *jm, const uint8_t *x, const char *what)
{
    enum { STRIDE = 128 };
    uint32_t want[2 * STRIDE];
    for (int tid = 0; tid < 128; tid++) {
        int j = tid % 16;
        const uint8_t *a = x + 144 * (tid / 16) + 2 * (j / 4);
        want[tid] = (uint32_t)le(a + (j < 8 ? 4 : 0), 2);
        want[STRIDE + tid] = (uint32_t)le(a, 2);
    }
    void *px = (void *)x, *po = NULL;
    void *args[] = {&px, &po};
    check_carried(jm, "part", args, &po, want, 1, 2 * STRIDE, what);
}

/* Compiles a carried-test kernel; on a VBMI host with windows and slots
 * on, its IR must hold `marker` (the carried path). */
static zn_jit_module *load_carried(const char *text, const char *name, const char *marker)
{
    zn_jit_module *jm = zt_load_text(text, NULL);
    CHECK(jm != NULL, "%s did not compile", name);
    char *ir = jm ? zn_jit_ir_text(jm, 0) : NULL;
    if (ir && !getenv("ZINC_NO_WINDOW") && !getenv("ZINC_NO_WINSLOT") &&
        __builtin_cpu_supports("avx512vbmi"))
        CHECK(strstr(ir, marker) != NULL, "%s: no carried test (%s) in the IR", name, marker);
    free(ir);
    return jm;
}

static void run_all(zn_jit_module *jm, const uint8_t *page_end, const char *what)
{
    static const int nbs[] = {2, 5, 16, 31, 64, 100};
    for (unsigned i = 0; i < sizeof nbs / sizeof *nbs; i++) {
        run(jm, page_end, 32, 4, nbs[i], what);
        run(jm, page_end, 16, 8, nbs[i], what);
    }
}

int main(void)
{
    long pg = sysconf(_SC_PAGESIZE);
    size_t len = 4 * (size_t)pg;
    uint8_t *mem = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(mem != MAP_FAILED, "mmap");
    if (mem == MAP_FAILED)
        return 1;
    CHECK(mprotect(mem + 3 * pg, (size_t)pg, PROT_NONE) == 0, "mprotect");
    for (long i = 0; i < 3 * pg; i++)
        mem[i] = (uint8_t)(i * 151 + 29 + (i >> 8));
    const uint8_t *page_end = mem + 3 * pg;

    zn_compile_keep_ir(1); /* keeps the IR text (and bypasses the cache) */
    zn_jit_module *jm = zt_load_text(ptx, NULL);
    CHECK(jm != NULL, "win did not compile");
    if (jm) {
        char *ir = zn_jit_ir_text(jm, 0);
        CHECK(ir != NULL, "IR kept");
        __builtin_cpu_init();
        if (ir && !getenv("ZINC_NO_WINDOW") && __builtin_cpu_supports("avx512vbmi"))
        {
            CHECK(strstr(ir, "ld.win") != NULL, "no window path in the IR on a VBMI host");
            /* the pointer steps by 1088 in the loop: windows prefetch ahead */
            CHECK(strstr(ir, "@llvm.prefetch") != NULL, "window loads in the loop do not prefetch");
        }
        free(ir);
        /* what every block reads is in the cache after the first one */
        zn_jit_module *inv = zt_load_text(ptx_inv, NULL);
        ir = inv ? zn_jit_ir_text(inv, 0) : NULL;
        CHECK(ir != NULL, "win (block-invariant) did not compile");
        if (ir && !getenv("ZINC_NO_WINDOW") && __builtin_cpu_supports("avx512vbmi")) {
            CHECK(strstr(ir, "ld.win") != NULL, "no window path in the block-invariant IR");
            CHECK(strstr(ir, "@llvm.prefetch") == NULL,
                  "window loads of what every block reads prefetch");
        }
        free(ir);
        if (inv) {
            run_all(inv, page_end, "host, block-invariant");
            zn_jit_module_free(inv);
        }
        run_all(jm, page_end, "host");
        zn_jit_module_free(jm);
    }
    if ((jm = load_carried(ptx_step, "steps", "win.known"))) {
        /* the guarded step before the copy, after it (the slots known
         * valid then must forget the lanes that moved), never */
        run_steps(jm, mem, 0, "steps, guarded step in iteration 0");
        run_steps(jm, mem, 3, "steps, guarded step in iteration 3");
        run_steps(jm, mem, 99, "steps, no guarded step");
        zn_jit_module_free(jm);
    }
    if ((jm = load_carried(ptx_contig, "contig", "ld.known"))) {
        run_contig(jm, mem, 0, 99, "contig, no skip, no guarded step");
        run_contig(jm, mem, 3, 99, "contig, 3 skips, no guarded step");
        run_contig(jm, mem, 1, 0, "contig, guarded step in iteration 0");
        run_contig(jm, mem, 2, 3, "contig, guarded step in iteration 3");
        zn_jit_module_free(jm);
    }
    if ((jm = load_carried(ptx_part, "part", "win.page"))) {
        run_part(jm, mem + 1000, "part, mid-page");
        /* the last block's taken side reads its bytes 4..7, the page's
         * last; its idle lanes' bytes 8..11 are on the unmapped page */
        run_part(jm, page_end - 8 - 7 * 144, "part, idle lanes' bytes past the page");
        zn_jit_module_free(jm);
    }
    zn_compile_keep_ir(0);
    jm = zt_load_text_cpu(ptx, "x86-64-v3");
    CHECK(jm != NULL, "win did not compile for x86-64-v3");
    if (jm) {
        run_all(jm, page_end, "x86-64-v3");
        zn_jit_module_free(jm);
    }
    munmap(mem, len);
    zt_cleanup();
    if (!zt_failures)
        printf("test_compile_window: all passed\n");
    return zt_failures != 0;
}
