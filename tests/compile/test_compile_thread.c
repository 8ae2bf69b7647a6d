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
#include "zn_test_harness.h"

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

/* the kernels add the warp's %activemask at the join: whole warps */
static uint32_t want_diamond_at(const uint32_t *in, uint32_t t, uint32_t block)
{
    return want_diamond(in[t]) + zt_warp_lanes(t, block);
}

static uint32_t want_loop_at(const uint32_t *in, uint32_t t, uint32_t block)
{
    return want_loop(in[t]) + zt_warp_lanes(t, block);
}

int main(void)
{
    const zt_u32_case cases[] = {
        {"diamond", diamond_body, want_diamond_at},
        {"loop", loop_body, want_loop_at},
    };
    static const char *const mode[2] = {"threaded", "not threaded"};
    zt_run_switched(cases, 2, "ZINC_NO_THREAD_JUMPS", mode, 7);
    zt_cleanup();
    if (!zt_failures)
        printf("test_compile_thread: all passed\n");
    return zt_failures != 0;
}
