/* test_compile_udiv.c: integer division and remainder of values the same
 * in every lane (kernel parameters), which Zinc divides once as scalars
 * instead of by way of f64 vectors (zn_lower_arith.c). Each thread stores
 * div/rem .u32 .s32 .u64 .s64 of the parameters; checked against PTX's
 * rules in C, including division by zero (all ones; a 32-bit remainder
 * by zero is the dividend, a 64-bit one all ones) and INT_MIN / -1
 * (INT_MIN, remainder 0). The IR must not take the f64 route. */
#include <stdlib.h>
#include <string.h>
#include "zn_test_harness.h"

#define POISON 0xa5a5a5a5u

static const char *ptx =
    ".version 7.0\n.target sm_70\n.address_size 64\n"
    ".visible .entry ud(.param .u64 po, .param .u32 pa, .param .u32 pb, .param .u64 pa64,"
    " .param .u64 pb64)\n{\n"
    "  .reg .b32 %r<16>;\n  .reg .b64 %rd<16>;\n"
    "  ld.param.u64 %rd1, [po];\n  ld.param.u32 %r1, [pa];\n  ld.param.u32 %r2, [pb];\n"
    "  ld.param.u64 %rd2, [pa64];\n  ld.param.u64 %rd3, [pb64];\n"
    "  mov.u32 %r3, %tid.x;\n  mul.wide.u32 %rd4, %r3, 48;\n  add.s64 %rd5, %rd1, %rd4;\n"
    "  div.u32 %r4, %r1, %r2;\n  rem.u32 %r5, %r1, %r2;\n"
    "  div.s32 %r6, %r1, %r2;\n  rem.s32 %r7, %r1, %r2;\n"
    "  div.u64 %rd6, %rd2, %rd3;\n  rem.u64 %rd7, %rd2, %rd3;\n"
    "  div.s64 %rd8, %rd2, %rd3;\n  rem.s64 %rd9, %rd2, %rd3;\n"
    "  st.global.u32 [%rd5], %r4;\n  st.global.u32 [%rd5+4], %r5;\n"
    "  st.global.u32 [%rd5+8], %r6;\n  st.global.u32 [%rd5+12], %r7;\n"
    "  st.global.u64 [%rd5+16], %rd6;\n  st.global.u64 [%rd5+24], %rd7;\n"
    "  st.global.u64 [%rd5+32], %rd8;\n  st.global.u64 [%rd5+40], %rd9;\n"
    "  ret;\n}\n";

typedef struct want { uint32_t w32[4]; uint64_t w64[4]; } want;

static want reference(uint32_t a, uint32_t b, uint64_t a64, uint64_t b64)
{
    want w;
    int32_t sa = (int32_t)a, sb = (int32_t)b;
    int64_t sa64 = (int64_t)a64, sb64 = (int64_t)b64;
    w.w32[0] = b ? a / b : UINT32_MAX;
    w.w32[1] = b ? a % b : a;
    w.w32[2] = !b ? UINT32_MAX : (sa == INT32_MIN && sb == -1) ? a : (uint32_t)(sa / sb);
    w.w32[3] = !b ? a : (sa == INT32_MIN && sb == -1) ? 0 : (uint32_t)(sa % sb);
    w.w64[0] = b64 ? a64 / b64 : UINT64_MAX;
    w.w64[1] = b64 ? a64 % b64 : UINT64_MAX;
    w.w64[2] = !b64 ? UINT64_MAX : (sa64 == INT64_MIN && sb64 == -1) ? a64 : (uint64_t)(sa64 / sb64);
    w.w64[3] = !b64 ? UINT64_MAX : (sa64 == INT64_MIN && sb64 == -1) ? 0 : (uint64_t)(sa64 % sb64);
    return w;
}

static void run(zn_jit_module *jm, uint32_t a, uint32_t b, uint64_t a64, uint64_t b64)
{
    enum { THREADS = 40, WORDS = 12 };  /* a partial second warp */
    uint32_t *out = zt_poisoned(THREADS * WORDS, POISON);
    if (!out)
        return;
    void *po = out;
    void *args[] = {&po, &a, &b, &a64, &b64};
    CHECK(zt_run(jm, "ud", ZT_DIM1(1), ZT_DIM1(THREADS), 0, args) == 0, "status");
    want w = reference(a, b, a64, b64);
    for (uint32_t t = 0; t < THREADS; t++) {
        const uint32_t *o = out + t * WORDS;
        for (int k = 0; k < 4; k++)
            CHECK(o[k] == w.w32[k], "thread %u: 32-bit result %d of 0x%x, 0x%x: 0x%x, want 0x%x",
                  t, k, a, b, o[k], w.w32[k]);
        for (int k = 0; k < 4; k++) {
            uint64_t g;
            memcpy(&g, o + 4 + 2 * k, 8);
            CHECK(g == w.w64[k], "thread %u: 64-bit result %d of 0x%llx, 0x%llx: 0x%llx, want 0x%llx",
                  t, k, (unsigned long long)a64, (unsigned long long)b64,
                  (unsigned long long)g, (unsigned long long)w.w64[k]);
        }
    }
    free(out);
}

int main(void)
{
    zn_compile_keep_ir(1);
    zn_jit_module *jm = zt_load_text(ptx, NULL);
    zn_compile_keep_ir(0);
    CHECK(jm != NULL, "ud did not compile");
    if (!jm)
        return 1;
    char *ir = zn_jit_ir_text(jm, 0);
    CHECK(ir && !strstr(ir, "div.f64"), "uniform division takes the f64 vector route");
    free(ir);
    static const struct { uint32_t a, b; uint64_t a64, b64; } cases[] = {
        {7, 2, 7, 2},
        {0xffffffffu, 3, 0xffffffffffffffffull, 3},
        {5, 0, 5, 0},
        {0x80000000u, 0xffffffffu, 0x8000000000000000ull, 0xffffffffffffffffull},
        {(uint32_t)-7, 2, (uint64_t)-7, 2},
        {123456789, 1000, 1234567890123ull, 1000007},
        {(uint32_t)-100, (uint32_t)-7, (uint64_t)-100, (uint64_t)-7},
        {0, 0xffffffffu, 0, 0xffffffffffffffffull},
    };
    for (unsigned i = 0; i < sizeof cases / sizeof *cases; i++)
        run(jm, cases[i].a, cases[i].b, cases[i].a64, cases[i].b64);
    zn_jit_module_free(jm);
    zt_cleanup();
    if (!zt_failures)
        printf("test_compile_udiv: all passed\n");
    return zt_failures != 0;
}
