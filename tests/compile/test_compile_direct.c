/* test_compile_direct.c: lanes that go on to the next block or round a
 * loop run there directly, not through the resume chain
 * (zn_lower_func.c, run_next), and still meet the lanes already waiting.
 *
 * Two kernels whose lanes part by their data:
 *   - join: lanes with v % 8 == 0 jump ahead to C; of the others, 1..3 take
 *     a branch past C to D and 4..7 fall through into C, where they must
 *     run together with the lanes already waiting there: C adds
 *     %activemask, which must be exactly the lanes with v % 8 not in 1..3;
 *   - loop: v % 8 + 1 trips, each adding popc(%activemask): the back edge
 *     must take exactly the lanes still going round.
 * Each lane's result is checked against C, with the warp's lanes as a
 * launch sees them (full warps and a partial last warp), with the direct
 * paths on and off (ZINC_NO_DIRECT_BRANCHES), and the IR must differ
 * between the two. */
#include "zn_test_harness.h"

static const char *join_body =
    "  and.b32 %r6, %r5, 7;\n  setp.eq.u32 %p1, %r6, 0;\n  @%p1 bra C;\n"
    "  mul.lo.u32 %r7, %r5, 5;\n  setp.lt.u32 %p2, %r6, 4;\n  @%p2 bra D;\n"
    "C:\n  activemask.b32 %r8;\n  add.u32 %r7, %r5, 11;\n  add.u32 %r7, %r7, %r8;\n"
    "  bra.uni J;\n"
    "D:\n  xor.b32 %r7, %r7, 51;\n"
    "J:\n  st.global.u32 [%rd5], %r7;\n  ret;\n}\n";

static const char *loop_body =
    "  and.b32 %r6, %r5, 7;\n  mov.u32 %r10, 0;\n  mov.u32 %r11, 0;\n"
    "L:\n  activemask.b32 %r8;\n  popc.b32 %r9, %r8;\n  add.u32 %r10, %r10, %r9;\n"
    "  add.u32 %r11, %r11, 1;\n  setp.le.u32 %p3, %r11, %r6;\n  @%p3 bra L;\n"
    "  activemask.b32 %r8;\n  mul.lo.u32 %r10, %r10, 1000;\n  add.u32 %r10, %r10, %r8;\n"
    "  st.global.u32 [%rd5], %r10;\n  ret;\n}\n";

/* the lanes of thread i's warp (i within its block) for which `keep` holds */
static uint32_t warp_mask(const uint32_t *in, uint32_t i, uint32_t block,
                          int (*keep)(uint32_t v, uint32_t k), uint32_t k)
{
    uint32_t first = i / 32 * 32, present = zt_warp_lanes(i, block), m = 0;
    for (uint32_t l = 0; l < 32; l++)
        if ((present >> l & 1) && keep(in[first + l], k))
            m |= 1u << l;
    return m;
}

static int at_c(uint32_t v, uint32_t k)
{
    (void)k;
    return v % 8 == 0 || v % 8 >= 4;
}

static int still_looping(uint32_t v, uint32_t k)
{
    return v % 8 >= k;
}

static uint32_t want_join(const uint32_t *in, uint32_t i, uint32_t block)
{
    uint32_t v = in[i];
    if (v % 8 >= 1 && v % 8 <= 3)
        return (v * 5) ^ 51;
    return v + 11 + warp_mask(in, i, block, at_c, 0);
}

static uint32_t want_loop(const uint32_t *in, uint32_t i, uint32_t block)
{
    uint32_t acc = 0;
    for (uint32_t k = 0; k <= in[i] % 8; k++)
        acc += (uint32_t)__builtin_popcount(warp_mask(in, i, block, still_looping, k));
    return acc * 1000 + warp_mask(in, i, block, still_looping, 0);
}

int main(void)
{
    const zt_u32_case cases[] = {
        {"join", join_body, want_join},
        {"loop", loop_body, want_loop},
    };
    static const char *const mode[2] = {"direct", "through the chain"};
    zt_run_switched(cases, 2, "ZINC_NO_DIRECT_BRANCHES", mode, 9);
    zt_cleanup();
    if (!zt_failures)
        printf("test_compile_direct: all passed\n");
    return zt_failures != 0;
}
