/* test_compile_dp4a.c: dp4a in all four signednesses, on the host CPU's
 * features (AVX-512 VNNI's vpdpbusd where the host has it,
 * zn_lower_bits.c) and on x86-64-v3 (AVX2, no VNNI: the per-byte form),
 * so both lowerings are checked on any x86 host. Inputs: bytes at the
 * extremes (0, 1, 0x7f, 0x80, 0xff) and hashed words, accumulators near
 * the 32-bit wrap; against a C reference. 100 threads (a partial warp). */
#include <stdlib.h>
#include <string.h>
#include "zn_test_harness.h"

#define T 100
#define POISON 0xa5a5a5a5u

static const char *ptx =
    ".version 7.0\n.target sm_70\n.address_size 64\n"
    ".visible .entry dots(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 po)\n{\n"
    "  .reg .b32 %r<12>;\n  .reg .b64 %rd<12>;\n"
    "  ld.param.u64 %rd1, [pa];\n  ld.param.u64 %rd2, [pb];\n"
    "  ld.param.u64 %rd3, [pc];\n  ld.param.u64 %rd4, [po];\n"
    "  mov.u32 %r1, %tid.x;\n  mul.wide.u32 %rd5, %r1, 4;\n  mul.wide.u32 %rd6, %r1, 16;\n"
    "  add.s64 %rd7, %rd1, %rd5;\n  add.s64 %rd8, %rd2, %rd5;\n  add.s64 %rd9, %rd3, %rd5;\n"
    "  add.s64 %rd10, %rd4, %rd6;\n"
    "  ld.global.u32 %r2, [%rd7];\n  ld.global.u32 %r3, [%rd8];\n  ld.global.u32 %r4, [%rd9];\n"
    "  dp4a.u32.u32 %r5, %r2, %r3, %r4;\n  dp4a.u32.s32 %r6, %r2, %r3, %r4;\n"
    "  dp4a.s32.u32 %r7, %r2, %r3, %r4;\n  dp4a.s32.s32 %r8, %r2, %r3, %r4;\n"
    "  st.global.v4.u32 [%rd10], {%r5, %r6, %r7, %r8};\n"
    "  ret;\n}\n";

static uint32_t hash(uint32_t x)
{
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    return x ^ (x >> 16);
}

static uint32_t ref_dp4a(uint32_t a, uint32_t b, uint32_t c, int sa, int sb)
{
    uint32_t acc = c;
    for (int i = 0; i < 4; i++) {
        int32_t x = sa ? (int8_t)(a >> 8 * i) : (int32_t)(uint8_t)(a >> 8 * i);
        int32_t y = sb ? (int8_t)(b >> 8 * i) : (int32_t)(uint8_t)(b >> 8 * i);
        acc += (uint32_t)(x * y);
    }
    return acc;
}

static void run(const char *cpu)
{
    zn_jit_module *jm = cpu ? zt_load_text_cpu(ptx, cpu) : zt_load_text(ptx, NULL);
    CHECK(jm != NULL, "dots did not compile for %s", cpu ? cpu : "the host");
    if (!jm)
        return;
    static const uint8_t edge[] = {0x00, 0x01, 0x7f, 0x80, 0xff, 0x81, 0xfe, 0x40};
    uint32_t a[T], b[T], c[T], out[4 * T];
    for (uint32_t t = 0; t < T; t++) {
        if (t < 64) { /* every pair of edge bytes, all four lanes alike */
            a[t] = edge[t % 8] * 0x01010101u;
            b[t] = edge[t / 8] * 0x01010101u;
        } else {
            a[t] = hash(t);
            b[t] = hash(t + 1000);
        }
        c[t] = t % 3 == 0 ? 0x7ffffff0u + t : t % 3 == 1 ? 0xfffffff0u + t : hash(t + 77);
    }
    for (int i = 0; i < 4 * T; i++)
        out[i] = POISON;
    void *pa = a, *pb = b, *pc = c, *po = out;
    void *args[] = {&pa, &pb, &pc, &po};
    CHECK(zt_run(jm, "dots", ZT_DIM1(1), ZT_DIM1(T), 0, args) == 0, "dots status");
    int bad = 0;
    for (int t = 0; t < T; t++)
        for (int k = 0; k < 4; k++) {
            uint32_t want = ref_dp4a(a[t], b[t], c[t], k >= 2, k & 1);
            if (out[4 * t + k] != want && bad++ < 8)
                CHECK(0, "%s: thread %d dp4a.%s32.%s32(0x%08x, 0x%08x, 0x%08x) = 0x%08x, want 0x%08x",
                      cpu ? cpu : "host", t, k >= 2 ? "s" : "u", k & 1 ? "s" : "u", a[t], b[t],
                      c[t], out[4 * t + k], want);
        }
    zn_jit_module_free(jm);
}

int main(void)
{
    run(NULL);
#if defined(__x86_64__)
    run("x86-64-v3");
#endif
    zt_cleanup();
    if (!zt_failures)
        printf("test_compile_dp4a: all passed\n");
    return zt_failures != 0;
}
