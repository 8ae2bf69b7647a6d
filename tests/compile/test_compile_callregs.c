/* test_compile_callregs.c: calls whose parameters and results are .reg
 * registers, `call (%r2), f, (%r1);`.
 *
 * The analyses that decide which registers are the same in every lane, or
 * never change (zn_lower_uniform.c, zn_lower_invariant.c, the affine
 * addresses), walk an instruction's registers with zn_each_reg. It used to
 * skip the (result) and (argument) lists of a call, so a call's result
 * register had no definition in their eyes: a per-lane result counted as
 * uniform, and every lane got lane 0's value. Each kernel here stores a
 * per-lane value that went through a call, checked against the C
 * formula, with the output poisoned first. */
#include <stdlib.h>
#include "zn_test_harness.h"

#define T 128
#define POISON 0xa5a5a5a5u

static const char *ptx =
    ".version 7.8\n.target sm_75\n.address_size 64\n"
    /* r = 3 * a + 1 */
    ".func (.reg .b32 r) lin(.reg .b32 a)\n{\n"
    "  mad.lo.u32 r, a, 3, 1;\n  ret;\n}\n"
    /* two results: q = a / 4, m = a % 4 */
    ".func (.reg .b32 q, .reg .b32 m) qr(.reg .b32 a)\n{\n"
    "  shr.u32 q, a, 2;\n  and.b32 m, a, 3;\n  ret;\n}\n"
    /* out[tid] = lin(tid) */
    ".visible .entry one(.param .u64 po)\n{\n"
    "  .reg .b32 %r<4>;\n  .reg .b64 %rd<4>;\n"
    "  ld.param.u64 %rd1, [po];\n  mov.u32 %r1, %tid.x;\n"
    "  call (%r2), lin, (%r1);\n"
    "  mul.wide.u32 %rd2, %r1, 4;\n  add.s64 %rd3, %rd1, %rd2;\n"
    "  st.global.u32 [%rd3], %r2;\n  ret;\n}\n"
    /* the result as an address: out[lin(tid) % T] = tid, and a branch on
     * the second result: lanes with m == 0 add 1000 */
    ".visible .entry addr(.param .u64 po)\n{\n"
    "  .reg .b32 %r<8>;\n  .reg .b64 %rd<4>;\n  .reg .pred %p1;\n"
    "  ld.param.u64 %rd1, [po];\n  mov.u32 %r1, %tid.x;\n"
    "  call (%r2), lin, (%r1);\n  rem.u32 %r3, %r2, 128;\n"
    "  call (%r4, %r5), qr, (%r1);\n"
    "  add.u32 %r6, %r1, %r4;\n  sub.u32 %r6, %r6, %r4;\n"
    "  setp.ne.u32 %p1, %r5, 0;\n  @%p1 bra DONE;\n"
    "  add.u32 %r6, %r6, 1000;\n"
    "DONE:\n"
    "  mul.wide.u32 %rd2, %r3, 4;\n  add.s64 %rd3, %rd1, %rd2;\n"
    "  st.global.u32 [%rd3], %r6;\n  ret;\n}\n";

int main(void)
{
    zn_jit_module *jm = zt_load_text(ptx, NULL);
    CHECK(jm != NULL, "call kernels did not compile");
    if (!jm)
        return 1;
    uint32_t out[T], want[T];
    uint32_t *po = out;
    void *args[] = {&po};

    for (int i = 0; i < T; i++)
        out[i] = POISON;
    CHECK(zt_run(jm, "one", ZT_DIM1(1), ZT_DIM1(T), 0, args) == 0, "one: status");
    for (int t = 0; t < T; t++)
        CHECK(out[t] == 3u * (uint32_t)t + 1, "one: thread %d got %u, want %u", t, out[t],
              3u * (uint32_t)t + 1);

    /* 3t+1 mod 128 is a permutation of 0..127 (3 is odd) */
    for (int i = 0; i < T; i++)
        out[i] = POISON;
    for (uint32_t t = 0; t < T; t++)
        want[(3 * t + 1) % T] = t + (t % 4 == 0 ? 1000 : 0);
    CHECK(zt_run(jm, "addr", ZT_DIM1(1), ZT_DIM1(T), 0, args) == 0, "addr: status");
    for (int i = 0; i < T; i++)
        CHECK(out[i] == want[i], "addr: out[%d] = %u, want %u", i, out[i], want[i]);

    zn_jit_module_free(jm);
    zt_cleanup();
    if (!zt_failures)
        printf("test_compile_callregs: all passed\n");
    return zt_failures != 0;
}
