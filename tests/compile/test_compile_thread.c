/* test_compile_thread.c: branches to trampoline blocks go straight to the
 * trampoline's target (zn_lower_thread.c), and lanes still reconverge.
 *
 * Two kernels written the way nvcc writes if/else (`@p bra THEN; bra.uni
 * ELSE;`, the `bra.uni` a block of its own), with lanes parting by their
 * data: a three-way diamond whose arms end in trampolines, one of them a
 * chain of two, and a loop whose body is such a diamond, its latch a
 * backward branch (never threaded). Each lane's result is checked against
 * the same arithmetic in C, and %activemask at the join (after the loop)
 * must be the whole warp: lanes that did not meet there show as a
 * partial mask. Both run with threading on and off (ZINC_NO_THREAD_JUMPS),
 * on full warps and a partial last warp, and the IR must differ between
 * the two (the pass did something). */
#include <stdlib.h>
#include <string.h>
#include "zn_test_harness.h"

#define HEAD                                                                     \
    ".version 7.0\n.target sm_70\n.address_size 64\n"                            \
    ".visible .entry %s(.param .u64 pin, .param .u64 pout)\n{\n"                \
    "  .reg .pred %%p<8>;\n  .reg .b32 %%r<32>;\n  .reg .b64 %%rd<12>;\n"       \
    "  ld.param.u64 %%rd1, [pin];\n  ld.param.u64 %%rd2, [pout];\n"             \
    "  mov.u32 %%r1, %%tid.x;\n  mov.u32 %%r2, %%ctaid.x;\n  mov.u32 %%r3, %%ntid.x;\n" \
    "  mad.lo.s32 %%r4, %%r2, %%r3, %%r1;\n  mul.wide.s32 %%rd3, %%r4, 4;\n"     \
    "  add.s64 %%rd4, %%rd1, %%rd3;\n  add.s64 %%rd5, %%rd2, %%rd3;\n"          \
    "  ld.global.u32 %%r5, [%%rd4];\n"

/* v & 3 == 0: 3v; == 1: v + 7; else v ^ 0x55 (through a trampoline chain);
 * out = that + activemask at the join */
static const char *diamond_body =
    "  and.b32 %r6, %r5, 3;\n  setp.eq.u32 %p1, %r6, 0;\n"
    "  @%p1 bra THEN;\n  bra.uni ELSE;\n"
    "THEN:\n  mul.lo.u32 %r7, %r5, 3;\n  bra.uni JOIN;\n"
    "ELSE:\n  setp.eq.u32 %p2, %r6, 1;\n  @%p2 bra E1;\n  bra.uni E2;\n"
    "E1:\n  add.u32 %r7, %r5, 7;\n  bra.uni JOIN;\n"
    "E2:\n  xor.b32 %r7, %r5, 85;\n  bra.uni J2;\n"
    "J2:\n  bra.uni JOIN;\n"
    "JOIN:\n  activemask.b32 %r8;\n  add.u32 %r9, %r7, %r8;\n"
    "  st.global.u32 [%rd5], %r9;\n  ret;\n}\n";

/* t = v % 5; acc = sum over k < 6 of (k < t ? k : 100); out = acc + the
 * activemask after the loop */
static const char *loop_body =
    "  rem.u32 %r6, %r5, 5;\n  mov.u32 %r10, 0;\n  mov.u32 %r11, 0;\n"
    "LOOP:\n  setp.lt.u32 %p3, %r11, %r6;\n  @%p3 bra A;\n  bra.uni B;\n"
    "A:\n  add.u32 %r10, %r10, %r11;\n  bra.uni NEXT;\n"
    "B:\n  add.u32 %r10, %r10, 100;\n  bra.uni N2;\n"
    "N2:\n  bra.uni NEXT;\n"
    "NEXT:\n  add.u32 %r11, %r11, 1;\n  setp.lt.u32 %p4, %r11, 6;\n  @%p4 bra LOOP;\n"
    "  activemask.b32 %r8;\n  add.u32 %r9, %r10, %r8;\n"
    "  st.global.u32 [%rd5], %r9;\n  ret;\n}\n";

static char *kernel_text(const char *name, const char *body)
{
    static char buf[2][4096];
    static int which;
    char *b = buf[which++ & 1];
    int n = snprintf(b, sizeof buf[0], HEAD, name);
    snprintf(b + n, sizeof buf[0] - (size_t)n, "%s", body);
    return b;
}

static uint32_t want_diamond(uint32_t v)
{
    switch (v & 3) {
    case 0: return v * 3;
    case 1: return v + 7;
    default: return v ^ 85;
    }
}

static uint32_t want_loop(uint32_t v)
{
    uint32_t t = v % 5, acc = 0;
    for (uint32_t k = 0; k < 6; k++)
        acc += k < t ? k : 100;
    return acc;
}

/* threads in blocks of `block`; the warp's mask as a full launch sees it */
static void run(zn_jit_module *jm, const char *kernel, uint32_t (*want)(uint32_t),
                uint32_t blocks, uint32_t block, const char *mode)
{
    uint32_t n = blocks * block;
    uint32_t *in = malloc(n * sizeof *in), *out = malloc(n * sizeof *out);
    CHECK(in && out, "malloc");
    if (!in || !out) {
        free(in);
        free(out);
        return;
    }
    for (uint32_t i = 0; i < n; i++) {
        in[i] = (i * 2654435761u) >> 7;
        out[i] = 0xdeadbeef;
    }
    void *pin = in, *pout = out;
    void *args[] = {&pin, &pout};
    CHECK(zt_run(jm, kernel, ZT_DIM1(blocks), ZT_DIM1(block), 0, args) == 0, "%s %s: status",
          kernel, mode);
    int bad = 0;
    for (uint32_t i = 0; i < n && bad < 4; i++) {
        uint32_t lanes = (i % block) / 32 * 32 + 32 <= block ? 32 : block % 32;
        uint32_t mask = lanes == 32 ? 0xffffffffu : (1u << lanes) - 1;
        uint32_t w = want(in[i]) + mask;
        if (out[i] != w) {
            CHECK(0, "%s %s (blocks of %u): thread %u: 0x%08x, want 0x%08x", kernel, mode, block, i,
                  out[i], w);
            bad++;
        }
    }
    free(in);
    free(out);
}

static char *compile_ir(const char *ptx, zn_jit_module **jm)
{
    *jm = zt_load_text(ptx, NULL);
    CHECK(*jm != NULL, "did not compile");
    return *jm ? zn_jit_ir_text(*jm, 0) : NULL;
}

int main(void)
{
    struct { const char *name, *body; uint32_t (*want)(uint32_t); } k[] = {
        {"diamond", diamond_body, want_diamond},
        {"loop", loop_body, want_loop},
    };
    zn_compile_keep_ir(1);
    for (int i = 0; i < 2; i++) {
        const char *ptx = kernel_text(k[i].name, k[i].body);
        zn_jit_module *on = NULL, *off = NULL;
        unsetenv("ZINC_NO_THREAD_JUMPS");
        char *ir_on = compile_ir(ptx, &on);
        setenv("ZINC_NO_THREAD_JUMPS", "1", 1);
        char *ir_off = compile_ir(ptx, &off);
        unsetenv("ZINC_NO_THREAD_JUMPS");
        CHECK(ir_on && ir_off && strcmp(ir_on, ir_off) != 0,
              "%s: the IR is the same with and without threading", k[i].name);
        free(ir_on);
        free(ir_off);
        zn_jit_module *m[2] = {on, off};
        const char *mode[2] = {"threaded", "not threaded"};
        for (int j = 0; j < 2; j++) {
            if (!m[j])
                continue;
            run(m[j], k[i].name, k[i].want, 4, 128, mode[j]);
            run(m[j], k[i].name, k[i].want, 3, 48, mode[j]);
            zn_jit_module_free(m[j]);
        }
    }
    zn_compile_keep_ir(0);
    zt_cleanup();
    if (!zt_failures)
        printf("test_compile_thread: all passed\n");
    return zt_failures != 0;
}
