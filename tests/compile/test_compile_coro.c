/* test_compile_coro.c: kernels with barriers compiled as coroutines.
 *
 * A kernel whose barriers are all in its own body is an LLVM coroutine
 * (zn_lower_coro.c, uses_barrier 2): a warp that must wait suspends and
 * the executor resumes it (exec/zn_exec_coro.c). Checked against C
 * references, on blocks of 1 to 32 warps (a partial last warp too):
 * values live across many barriers in a loop, warps that exit before the
 * others' barriers, bar.red, a spin-wait that only ends if its nanosleep
 * lets another warp run, bar.arrive with a counted bar.sync, a named
 * barrier met while other warps wait at bar.sync 0, and a
 * barrier in a called function (which keeps the kernel on fibers,
 * uses_barrier 1), a trap in one warp in the middle of a loop of barriers
 * (the launch fails; the worker's frames serve the next launch). The same
 * kernels again with ZINC_NO_CORO_BATCH=1 (the executor resumes each warp
 * through its frame instead of the compiled zk_K.batch loop,
 * zn_coro_batch.c), with ZINC_NO_CORO_START=1 too and alone (the executor
 * starts each warp with a call instead of the zk_K.start loop; a trap
 * before the first barrier stops that loop mid-way) and with
 * ZINC_NO_CORO=1 (fibers). */
#include <stdlib.h>
#include <string.h>
#include "zn_test_harness.h"

#define POISON 0xdeadbeefu

/* mixed's body (below) */
#define MIXED_BODY \
    "  ld.param.u64 %rd1, [p];\n  cvta.to.global.u64 %rd2, %rd1;\n" \
    "  mov.u32 %r1, %tid.x;\n  mov.u32 %r2, %ntid.x;\n  mov.u32 %r7, %ctaid.x;\n" \
    "  mov.u32 %r4, s;\n  shl.b32 %r3, %r1, 2;\n  add.s32 %r5, %r4, %r3;\n" \
    "  mad.lo.s32 %r6, %r1, 13, %r7;\n  st.shared.u32 [%r5], %r6;\n  bar.sync 0;\n" \
    "  add.s32 %r8, %r1, 32;\n  rem.u32 %r8, %r8, %r2;\n  shl.b32 %r8, %r8, 2;\n" \
    "  add.s32 %r8, %r4, %r8;\n  ld.shared.u32 %r9, [%r8];\n  mov.u32 %r10, 0;\n" \
    "  setp.lt.u32 %p1, %r1, 64;\n  @%p1 bra JOIN;\n" \
    "  setp.ge.u32 %p2, %r1, 128;\n  @%p2 bra JOIN;\n" \
    "  add.s32 %r11, %r5, 1024;\n  st.shared.u32 [%r11], %r9;\n  bar.sync 1, 64;\n" \
    "  xor.b32 %r12, %r1, 32;\n  shl.b32 %r12, %r12, 2;\n  add.s32 %r12, %r4, %r12;\n" \
    "  ld.shared.u32 %r10, [%r12+1024];\n  st.shared.u32 [%r5+1536], %r10;\n" \
    "JOIN:\n  bar.sync 0;\n  and.b32 %r15, %r1, 63;\n  shl.b32 %r15, %r15, 2;\n" \
    "  add.s32 %r15, %r4, %r15;\n  ld.shared.u32 %r16, [%r15+1792];\n" \
    "  mad.lo.s32 %r13, %r9, 3, %r10;\n  add.s32 %r13, %r13, %r16;\n" \
    "  mad.lo.s32 %r14, %r7, %r2, %r1;\n  mul.wide.u32 %rd3, %r14, 4;\n" \
    "  add.s64 %rd4, %rd2, %rd3;\n  st.global.u32 [%rd4], %r13;\n"

static const char ptx[] =
    ".version 7.0\n.target sm_70\n.address_size 64\n"
    /* acc = tid*7 + ctaid; it times: s[tid] = acc; bar; acc = acc*3 +
     * s[(tid+37) % ntid]; bar */
    ".visible .entry rotate(.param .u64 p, .param .u32 it)\n{\n"
    "  .shared .align 4 .b8 s[4096];\n"
    "  .reg .pred %p<4>;\n  .reg .b32 %r<20>;\n  .reg .b64 %rd<6>;\n"
    "  ld.param.u64 %rd1, [p];\n  cvta.to.global.u64 %rd2, %rd1;\n"
    "  ld.param.u32 %r10, [it];\n"
    "  mov.u32 %r1, %tid.x;\n  mov.u32 %r2, %ntid.x;\n"
    "  shl.b32 %r3, %r1, 2;\n  mov.u32 %r4, s;\n  add.s32 %r5, %r4, %r3;\n"
    "  add.s32 %r6, %r1, 37;\n  rem.u32 %r6, %r6, %r2;\n  shl.b32 %r6, %r6, 2;\n"
    "  add.s32 %r6, %r4, %r6;\n"
    "  mov.u32 %r7, %ctaid.x;\n  mad.lo.s32 %r8, %r1, 7, %r7;\n  mov.u32 %r9, 0;\n"
    "LOOP:\n  st.shared.u32 [%r5], %r8;\n  bar.sync 0;\n"
    "  ld.shared.u32 %r11, [%r6];\n  mad.lo.s32 %r8, %r8, 3, %r11;\n  bar.sync 0;\n"
    "  add.s32 %r9, %r9, 1;\n  setp.lt.u32 %p1, %r9, %r10;\n  @%p1 bra LOOP;\n"
    "  mad.lo.s32 %r13, %r7, %r2, %r1;\n  mul.wide.u32 %rd3, %r13, 4;\n"
    "  add.s64 %rd4, %rd2, %rd3;\n  st.global.u32 [%rd4], %r8;\n  ret;\n}\n"
    /* threads >= 64 leave at once; the others: 3 rounds of
     * s[tid] = acc; bar; acc = s[(tid+1) % 64] + 1; bar */
    ".visible .entry early_exit(.param .u64 p)\n{\n"
    "  .shared .align 4 .b8 s[256];\n"
    "  .reg .pred %p<4>;\n  .reg .b32 %r<20>;\n  .reg .b64 %rd<6>;\n"
    "  ld.param.u64 %rd1, [p];\n  cvta.to.global.u64 %rd2, %rd1;\n"
    "  mov.u32 %r1, %tid.x;\n  setp.ge.u32 %p1, %r1, 64;\n  @%p1 bra END;\n"
    "  mov.u32 %r4, s;\n  shl.b32 %r3, %r1, 2;\n  add.s32 %r5, %r4, %r3;\n"
    "  add.s32 %r6, %r1, 1;\n  and.b32 %r6, %r6, 63;\n  shl.b32 %r6, %r6, 2;\n"
    "  add.s32 %r6, %r4, %r6;\n  mov.u32 %r8, %r1;\n  mov.u32 %r9, 0;\n"
    "LOOP:\n  st.shared.u32 [%r5], %r8;\n  bar.sync 0;\n"
    "  ld.shared.u32 %r11, [%r6];\n  add.s32 %r8, %r11, 1;\n  bar.sync 0;\n"
    "  add.s32 %r9, %r9, 1;\n  setp.lt.u32 %p2, %r9, 3;\n  @%p2 bra LOOP;\n"
    "  mov.u32 %r7, %ctaid.x;\n  mov.u32 %r2, %ntid.x;\n  mad.lo.s32 %r13, %r7, %r2, %r1;\n"
    "  mul.wide.u32 %rd3, %r13, 4;\n  add.s64 %rd4, %rd2, %rd3;\n"
    "  st.global.u32 [%rd4], %r8;\nEND:\n  ret;\n}\n"
    /* out[gid] = how many threads of the block have tid % 3 == 0 */
    ".visible .entry redpop(.param .u64 p)\n{\n"
    "  .reg .pred %p<4>;\n  .reg .b32 %r<20>;\n  .reg .b64 %rd<6>;\n"
    "  ld.param.u64 %rd1, [p];\n  cvta.to.global.u64 %rd2, %rd1;\n"
    "  mov.u32 %r1, %tid.x;\n  rem.u32 %r2, %r1, 3;\n  setp.eq.u32 %p1, %r2, 0;\n"
    "  bar.red.popc.u32 %r3, 0, %p1;\n"
    "  mov.u32 %r7, %ctaid.x;\n  mov.u32 %r4, %ntid.x;\n  mad.lo.s32 %r13, %r7, %r4, %r1;\n"
    "  mul.wide.u32 %rd3, %r13, 4;\n  add.s64 %rd4, %rd2, %rd3;\n"
    "  st.global.u32 [%rd4], %r3;\n  ret;\n}\n"
    /* thread 0 spins (nanosleep) until thread 32 (warp 1) publishes
     * ctaid*10+5; out[ctaid] = what it read */
    ".visible .entry spin(.param .u64 p)\n{\n"
    "  .shared .align 4 .b32 flag;\n  .shared .align 4 .b32 data;\n"
    "  .reg .pred %p<4>;\n  .reg .b32 %r<20>;\n  .reg .b64 %rd<6>;\n"
    "  ld.param.u64 %rd1, [p];\n  cvta.to.global.u64 %rd2, %rd1;\n"
    "  mov.u32 %r1, %tid.x;\n  mov.u32 %r7, %ctaid.x;\n"
    "  setp.eq.u32 %p1, %r1, 0;\n  mov.u32 %r5, 0;\n"
    "  @%p1 st.shared.u32 [flag], %r5;\n  bar.sync 0;\n"
    "  @!%p1 bra NOT0;\n"
    "WAIT:\n  ld.volatile.shared.u32 %r2, [flag];\n  setp.ne.u32 %p2, %r2, 0;\n"
    "  @%p2 bra GOT;\n  nanosleep.u32 100;\n  bra WAIT;\n"
    "GOT:\n  ld.volatile.shared.u32 %r3, [data];\n"
    "  mul.wide.u32 %rd3, %r7, 4;\n  add.s64 %rd4, %rd2, %rd3;\n"
    "  st.global.u32 [%rd4], %r3;\n  bra END;\n"
    "NOT0:\n  setp.ne.u32 %p3, %r1, 32;\n  @%p3 bra END;\n"
    "  mad.lo.s32 %r6, %r7, 10, 5;\n  st.volatile.shared.u32 [data], %r6;\n"
    "  membar.cta;\n  mov.u32 %r8, 1;\n  st.volatile.shared.u32 [flag], %r8;\n"
    "END:\n  ret;\n}\n"
    /* warps 0-1 write s[tid] = tid*11 + ctaid and bar.arrive 1, 128;
     * warps 2-3 bar.sync 1, 128, then out[gid] = s[tid - 64] + 1 */
    ".visible .entry counted(.param .u64 p)\n{\n"
    "  .shared .align 4 .b8 s[256];\n"
    "  .reg .pred %p<4>;\n  .reg .b32 %r<20>;\n  .reg .b64 %rd<6>;\n"
    "  ld.param.u64 %rd1, [p];\n  cvta.to.global.u64 %rd2, %rd1;\n"
    "  mov.u32 %r1, %tid.x;\n  mov.u32 %r7, %ctaid.x;\n  mov.u32 %r4, s;\n"
    "  setp.ge.u32 %p1, %r1, 64;\n  @%p1 bra CONS;\n"
    "  shl.b32 %r3, %r1, 2;\n  add.s32 %r5, %r4, %r3;\n  mad.lo.s32 %r6, %r1, 11, %r7;\n"
    "  st.shared.u32 [%r5], %r6;\n  bar.arrive 1, 128;\n  bra END;\n"
    "CONS:\n  bar.sync 1, 128;\n  sub.s32 %r8, %r1, 64;\n  shl.b32 %r3, %r8, 2;\n"
    "  add.s32 %r5, %r4, %r3;\n  ld.shared.u32 %r9, [%r5];\n  add.s32 %r9, %r9, 1;\n"
    "  mad.lo.s32 %r13, %r7, 128, %r1;\n  mul.wide.u32 %rd3, %r13, 4;\n"
    "  add.s64 %rd4, %rd2, %rd3;\n  st.global.u32 [%rd4], %r9;\nEND:\n  ret;\n}\n"
    /* a round of bar.sync 0, then warps 2-3 meet at bar.sync 1, 64 while
     * the others already wait at the next bar.sync 0 (the executor's
     * lockstep rounds hand over to the general loop mid-round):
     * v = s[(tid+32) % ntid]; warps 2-3 also read w = their partner warp's
     * v through s + 1024 and store it at s + 1536; after the last
     * barrier every thread adds x, what thread 64 + tid % 64 stored
     * there: out[gid] = 3 * v + w + x */
    ".visible .entry mixed(.param .u64 p)\n{\n"
    "  .shared .align 4 .b8 s[2048];\n"
    "  .reg .pred %p<4>;\n  .reg .b32 %r<24>;\n  .reg .b64 %rd<6>;\n"
    MIXED_BODY
    "  ret;\n}\n"
    /* the same twice over in a loop: the compiled batch loop (a barrier
     * in a loop) hands over to the general loop at bar.sync 1 */
    ".visible .entry mixed_loop(.param .u64 p)\n{\n"
    "  .shared .align 4 .b8 s[2048];\n"
    "  .reg .pred %p<4>;\n  .reg .b32 %r<24>;\n  .reg .b64 %rd<6>;\n"
    "  mov.u32 %r20, 0;\nAGAIN:\n"
    MIXED_BODY
    "  add.s32 %r20, %r20, 1;\n  setp.lt.u32 %p3, %r20, 2;\n  @%p3 bra AGAIN;\n  ret;\n}\n"
    /* the barrier in a called function: out[gid] = s[(tid+1) % ntid] */
    ".func bsync()\n{\n  bar.sync 0;\n  ret;\n}\n"
    ".visible .entry callee_bar(.param .u64 p)\n{\n"
    "  .shared .align 4 .b8 s[4096];\n"
    "  .reg .b32 %r<20>;\n  .reg .b64 %rd<6>;\n"
    "  ld.param.u64 %rd1, [p];\n  cvta.to.global.u64 %rd2, %rd1;\n"
    "  mov.u32 %r1, %tid.x;\n  mov.u32 %r2, %ntid.x;\n  mov.u32 %r4, s;\n"
    "  shl.b32 %r3, %r1, 2;\n  add.s32 %r5, %r4, %r3;\n  mul.lo.s32 %r6, %r1, 5;\n"
    "  st.shared.u32 [%r5], %r6;\n  call.uni bsync, ();\n"
    "  add.s32 %r8, %r1, 1;\n  rem.u32 %r8, %r8, %r2;\n  shl.b32 %r8, %r8, 2;\n"
    "  add.s32 %r8, %r4, %r8;\n  ld.shared.u32 %r9, [%r8];\n"
    "  mov.u32 %r7, %ctaid.x;\n  mad.lo.s32 %r13, %r7, %r2, %r1;\n"
    "  mul.wide.u32 %rd3, %r13, 4;\n  add.s64 %rd4, %rd2, %rd3;\n"
    "  st.global.u32 [%rd4], %r9;\n  ret;\n}\n"
    /* six rounds of s[tid] = r; bar.sync 0; thread 70 traps in round 3 */
    ".visible .entry trap_mid(.param .u64 p)\n{\n"
    "  .shared .align 4 .b8 s[1024];\n"
    "  .reg .pred %p<4>;\n  .reg .b32 %r<20>;\n"
    "  mov.u32 %r1, %tid.x;\n  mov.u32 %r9, 0;\n  shl.b32 %r3, %r1, 2;\n"
    "  mov.u32 %r4, s;\n  add.s32 %r5, %r4, %r3;\n"
    "LOOP:\n  st.shared.u32 [%r5], %r9;\n  bar.sync 0;\n  add.s32 %r9, %r9, 1;\n"
    "  setp.eq.u32 %p1, %r9, 3;\n  setp.eq.u32 %p2, %r1, 70;\n  and.pred %p3, %p1, %p2;\n"
    "  @%p3 trap;\n  setp.lt.u32 %p1, %r9, 6;\n  @%p1 bra LOOP;\n  ret;\n}\n"
    /* thread 40 traps before the first barrier: zk_K.start stops at warp
     * 1 and hands it back; warps 2.. start later (or never) */
    ".visible .entry trap_first(.param .u64 p)\n{\n"
    "  .shared .align 4 .b8 s[512];\n"
    "  .reg .pred %p<2>;\n  .reg .b32 %r<8>;\n  .reg .b64 %rd<6>;\n"
    "  ld.param.u64 %rd1, [p];\n  cvta.to.global.u64 %rd2, %rd1;\n"
    "  mov.u32 %r1, %tid.x;\n  setp.eq.u32 %p1, %r1, 40;\n  @%p1 trap;\n"
    "  mov.u32 %r4, s;\n  shl.b32 %r3, %r1, 2;\n  add.s32 %r5, %r4, %r3;\n"
    "  st.shared.u32 [%r5], %r1;\n  bar.sync 0;\n  xor.b32 %r6, %r3, 256;\n"
    "  add.s32 %r6, %r4, %r6;\n  ld.shared.u32 %r7, [%r6];\n"
    "  mul.wide.u32 %rd3, %r1, 4;\n  add.s64 %rd4, %rd2, %rd3;\n"
    "  st.global.u32 [%rd4], %r7;\n  ret;\n}\n";

static uint32_t *poisoned(size_t n)
{
    uint32_t *p = malloc(n * 4);
    for (size_t i = 0; i < n; i++)
        p[i] = POISON;
    return p;
}

static bool want_batch, want_start;

/* the kernels with a barrier in a loop: resumed by zk_K.batch */
static bool loops(const char *name)
{
    static const char *const with[] = {"rotate", "early_exit", "trap_mid", "mixed_loop"};
    for (size_t i = 0; i < sizeof with / sizeof with[0]; i++)
        if (!strcmp(name, with[i]))
            return true;
    return false;
}

/* uses_barrier, and a coroutine's batch and start functions unless
 * turned off */
static void expect_mode(const zn_jit_module *jm, const char *name, int want)
{
    const zn_kernel_info *k = zn_jit_kernel(jm, name);
    CHECK(k && k->uses_barrier == want, "%s: uses_barrier %d, want %d", name,
          k ? k->uses_barrier : -1, want);
    bool batch = want == 2 && want_batch && loops(name);
    CHECK(k && (k->batch != NULL) == batch, "%s: batch %p, want %s", name,
          k ? (void *)(uintptr_t)k->batch : NULL, batch ? "one" : "none");
    bool start = want == 2 && want_start;
    CHECK(k && (k->start != NULL) == start, "%s: start %p, want %s", name,
          k ? (void *)(uintptr_t)k->start : NULL, start ? "one" : "none");
}

static void check_rotate(const zn_jit_module *jm, uint32_t nblocks, uint32_t nt, uint32_t it)
{
    uint32_t *out = poisoned((size_t)nblocks * nt), *acc = malloc(nt * 4), *s = malloc(nt * 4);
    void *po = out;
    void *args[] = {&po, &it};
    CHECK(zt_run_exec(jm, "rotate", ZT_DIM1(nblocks), ZT_DIM1(nt), 0, args) == 0, "rotate status");
    int bad = 0;
    for (uint32_t b = 0; b < nblocks; b++) {
        for (uint32_t t = 0; t < nt; t++)
            acc[t] = t * 7 + b;
        for (uint32_t r = 0; r < it; r++) {
            memcpy(s, acc, nt * 4);
            for (uint32_t t = 0; t < nt; t++)
                acc[t] = acc[t] * 3 + s[(t + 37) % nt];
        }
        for (uint32_t t = 0; t < nt; t++)
            bad += out[(size_t)b * nt + t] != acc[t];
    }
    CHECK(bad == 0, "rotate %u x %u, %u rounds: %d wrong", nblocks, nt, it, bad);
    free(out);
    free(acc);
    free(s);
}

static void check_early_exit(const zn_jit_module *jm)
{
    enum { NB = 3, NT = 256 };
    uint32_t *out = poisoned(NB * NT), acc[64], s[64];
    void *po = out;
    void *args[] = {&po};
    CHECK(zt_run_exec(jm, "early_exit", ZT_DIM1(NB), ZT_DIM1(NT), 0, args) == 0, "status");
    for (uint32_t t = 0; t < 64; t++)
        acc[t] = t;
    for (int r = 0; r < 3; r++) {
        memcpy(s, acc, sizeof s);
        for (uint32_t t = 0; t < 64; t++)
            acc[t] = s[(t + 1) % 64] + 1;
    }
    int bad = 0;
    for (uint32_t b = 0; b < NB; b++)
        for (uint32_t t = 0; t < NT; t++)
            bad += out[b * NT + t] != (t < 64 ? acc[t] : POISON);
    CHECK(bad == 0, "early_exit: %d wrong", bad);
    free(out);
}

static void check_redpop(const zn_jit_module *jm, uint32_t nt)
{
    uint32_t *out = poisoned(2 * nt);
    void *po = out;
    void *args[] = {&po};
    CHECK(zt_run_exec(jm, "redpop", ZT_DIM1(2), ZT_DIM1(nt), 0, args) == 0, "status");
    uint32_t want = (nt + 2) / 3;
    int bad = 0;
    for (uint32_t i = 0; i < 2 * nt; i++)
        bad += out[i] != want;
    CHECK(bad == 0, "redpop %u: %d wrong (want %u, got %u)", nt, bad, want, out[0]);
    free(out);
}

static void check_spin(const zn_jit_module *jm)
{
    enum { NB = 5 };
    uint32_t *out = poisoned(NB);
    void *po = out;
    void *args[] = {&po};
    CHECK(zt_run_exec(jm, "spin", ZT_DIM1(NB), ZT_DIM1(64), 0, args) == 0, "status");
    for (uint32_t b = 0; b < NB; b++)
        CHECK(out[b] == b * 10 + 5, "spin block %u: %#x", b, out[b]);
    free(out);
}

static void check_counted(const zn_jit_module *jm)
{
    enum { NB = 4, NT = 128 };
    uint32_t *out = poisoned(NB * NT);
    void *po = out;
    void *args[] = {&po};
    CHECK(zt_run_exec(jm, "counted", ZT_DIM1(NB), ZT_DIM1(NT), 0, args) == 0, "status");
    int bad = 0;
    for (uint32_t b = 0; b < NB; b++)
        for (uint32_t t = 0; t < NT; t++)
            bad += out[b * NT + t] != (t < 64 ? POISON : (t - 64) * 11 + b + 1);
    CHECK(bad == 0, "counted: %d wrong", bad);
    free(out);
}

static void check_mixed(const zn_jit_module *jm, const char *name, uint32_t nt)
{
    enum { NB = 3 };
    uint32_t *out = poisoned(NB * nt);
    void *po = out;
    void *args[] = {&po};
    CHECK(zt_run_exec(jm, name, ZT_DIM1(NB), ZT_DIM1(nt), 0, args) == 0, "%s status", name);
    int bad = 0;
    for (uint32_t b = 0; b < NB; b++)
        for (uint32_t t = 0; t < nt; t++) {
            uint32_t v = (t + 32) % nt * 13 + b, p = t ^ 32;
            uint32_t w = t >= 64 && t < 128 ? (p + 32) % nt * 13 + b : 0;
            uint32_t q = 64 + t % 64, x = ((q ^ 32) + 32) % nt * 13 + b;
            bad += out[b * nt + t] != 3 * v + w + x;
        }
    CHECK(bad == 0, "%s %u: %d wrong", name, nt, bad);
    free(out);
}

static void check_callee(const zn_jit_module *jm, uint32_t nt)
{
    uint32_t *out = poisoned(3 * nt);
    void *po = out;
    void *args[] = {&po};
    CHECK(zt_run_exec(jm, "callee_bar", ZT_DIM1(3), ZT_DIM1(nt), 0, args) == 0, "status");
    int bad = 0;
    for (uint32_t i = 0; i < 3 * nt; i++)
        bad += out[i] != ((i % nt) + 1) % nt * 5;
    CHECK(bad == 0, "callee_bar %u: %d wrong", nt, bad);
    free(out);
}

/* a trap mid-loop fails the launch; the next launch runs */
static void check_trap(const zn_jit_module *jm)
{
    void *po = NULL;
    void *args[] = {&po};
    int st = zt_run_exec(jm, "trap_mid", ZT_DIM1(6), ZT_DIM1(128), 0, args);
    CHECK(st == ZN_KSTATUS_TRAP, "trap_mid: status %d, want %d", st, ZN_KSTATUS_TRAP);
    check_rotate(jm, 3, 256, 20);
    uint32_t *out = poisoned(128);
    po = out;
    st = zt_run_exec(jm, "trap_first", ZT_DIM1(5), ZT_DIM1(128), 0, args);
    CHECK(st == ZN_KSTATUS_TRAP, "trap_first: status %d, want %d", st, ZN_KSTATUS_TRAP);
    free(out);
    check_rotate(jm, 3, 256, 20);
}

static void run_all(int coro)
{
    zn_jit_module *jm = zt_load_text(ptx, NULL);
    CHECK(jm != NULL, "compile");
    if (!jm)
        return;
    int m = coro ? 2 : 1;
    expect_mode(jm, "rotate", m);
    expect_mode(jm, "early_exit", m);
    expect_mode(jm, "redpop", m);
    expect_mode(jm, "spin", m);
    expect_mode(jm, "counted", m);
    expect_mode(jm, "callee_bar", 1);
    expect_mode(jm, "trap_mid", m);
    expect_mode(jm, "trap_first", m);
    check_rotate(jm, 3, 256, 20);
    check_rotate(jm, 2, 1000, 5);   /* 32 warps, the last of 8 lanes */
    check_rotate(jm, 4, 32, 7);     /* one warp: never waits */
    check_rotate(jm, 1, 70, 300);
    check_early_exit(jm);
    check_redpop(jm, 256);
    check_redpop(jm, 100);
    check_spin(jm);
    check_counted(jm);
    expect_mode(jm, "mixed", m);
    expect_mode(jm, "mixed_loop", m);
    check_mixed(jm, "mixed", 128);
    check_mixed(jm, "mixed", 256);
    check_mixed(jm, "mixed_loop", 128);
    check_mixed(jm, "mixed_loop", 256);
    check_callee(jm, 256);
    check_trap(jm);
    zn_jit_module_free(jm);
}

int main(void)
{
    unsetenv("ZINC_NO_CORO");
    unsetenv("ZINC_NO_CORO_BATCH");
    unsetenv("ZINC_NO_CORO_START");
    want_batch = want_start = true;
    run_all(1);
    setenv("ZINC_NO_CORO_BATCH", "1", 1);
    want_batch = false;
    run_all(1);
    setenv("ZINC_NO_CORO_START", "1", 1);
    want_start = false;
    run_all(1);
    unsetenv("ZINC_NO_CORO_BATCH");
    want_batch = true;
    run_all(1);
    unsetenv("ZINC_NO_CORO_START");
    setenv("ZINC_NO_CORO", "1", 1);
    run_all(0);
    zt_cleanup();
    if (!zt_failures)
        printf("test_compile_coro: all passed\n");
    return zt_failures != 0;
}
