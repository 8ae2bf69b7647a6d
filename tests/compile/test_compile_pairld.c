/* test_compile_pairld.c: two u16 loads of adjacent halves joined by
 * mov.b32 %r, {%lo, %hi} become one 32-bit load (issue #8/#9,
 * zn_lower_pairld.c), and only where that cannot change the result.
 *
 * Kernel `quants` reads ints of int8 quants the way llama.cpp's Q8_0 code
 * does (34-byte blocks, so only 2-byte aligned): lane t reads block t / 4
 * at byte 2 + 8 (t % 4), two ints; then one int at a lane-contiguous
 * 2-byte-aligned address and one at the same address in every lane. Its
 * IR must have no 16-bit load left. Kernel `kept` has the pattern broken
 * three ways, each of which must keep both loads: a store between the two
 * loads that overwrites the high half, a half read a second time, and the
 * mov's register read between the loads. 100 threads (a partial warp).
 * Every output is checked against a C reference; outputs poisoned first. */
#include <stdlib.h>
#include <string.h>
#include "zn_test_harness.h"

#define T 100
#define BLK 34                         /* bytes per block: half scale + 32 quants */
#define NBLK (T / 4 + 1)
#define POISON 0xa5a5a5a5u

static const char *ptx_quants =
    ".version 7.0\n.target sm_70\n.address_size 64\n"
    ".visible .entry quants(.param .u64 px, .param .u64 po)\n{\n"
    "  .reg .b16 %rs<9>;\n  .reg .b32 %r<12>;\n  .reg .b64 %rd<12>;\n"
    "  ld.param.u64 %rd1, [px];\n  ld.param.u64 %rd2, [po];\n"
    "  mov.u32 %r1, %tid.x;\n"
    "  shr.u32 %r2, %r1, 2;\n  and.b32 %r3, %r1, 3;\n"
    "  mul.wide.u32 %rd3, %r2, 34;\n  mul.wide.u32 %rd4, %r3, 8;\n"
    "  add.s64 %rd5, %rd1, %rd3;\n  add.s64 %rd6, %rd5, %rd4;\n"
    /* block quants: two ints at +2 and +6 */
    "  ld.global.u16 %rs1, [%rd6+2];\n  ld.global.u16 %rs2, [%rd6+4];\n"
    "  mov.b32 %r4, {%rs1, %rs2};\n"
    "  ld.global.u16 %rs3, [%rd6+6];\n  ld.global.u16 %rs4, [%rd6+8];\n"
    "  mov.b32 %r5, {%rs3, %rs4};\n"
    /* lane-contiguous, 2 mod 4: x + 2 + 4 t */
    "  mul.wide.u32 %rd7, %r1, 4;\n  add.s64 %rd8, %rd1, %rd7;\n"
    "  ld.global.u16 %rs5, [%rd8+2];\n  ld.global.u16 %rs6, [%rd8+4];\n"
    "  mov.b32 %r6, {%rs5, %rs6};\n"
    /* one address for all lanes: x + 10 */
    "  ld.global.u16 %rs7, [%rd1+10];\n  ld.global.u16 %rs8, [%rd1+12];\n"
    "  mov.b32 %r7, {%rs7, %rs8};\n"
    "  mul.wide.u32 %rd9, %r1, 16;\n  add.s64 %rd10, %rd2, %rd9;\n"
    "  st.global.v4.u32 [%rd10], {%r4, %r5, %r6, %r7};\n"
    "  ret;\n}\n";

static const char *ptx_kept =
    ".version 7.0\n.target sm_70\n.address_size 64\n"
    ".visible .entry kept(.param .u64 px, .param .u64 po)\n{\n"
    "  .reg .b16 %rs<9>;\n  .reg .b32 %r<12>;\n  .reg .b64 %rd<12>;\n"
    "  ld.param.u64 %rd1, [px];\n  ld.param.u64 %rd2, [po];\n"
    "  mov.u32 %r1, %tid.x;\n  mul.wide.u32 %rd3, %r1, 8;\n"
    "  add.s64 %rd4, %rd1, %rd3;\n"
    /* a store between the loads: the high half is 0x7777 + lane */
    "  ld.global.u16 %rs1, [%rd4];\n"
    "  cvt.u16.u32 %rs5, %r1;\n  add.u16 %rs6, %rs5, 0x7777;\n"
    "  st.global.u16 [%rd4+2], %rs6;\n"
    "  ld.global.u16 %rs2, [%rd4+2];\n  mov.b32 %r4, {%rs1, %rs2};\n"
    /* the low half read again */
    "  ld.global.u16 %rs3, [%rd4+4];\n  ld.global.u16 %rs4, [%rd4+6];\n"
    "  mov.b32 %r5, {%rs3, %rs4};\n  cvt.u32.u16 %r6, %rs3;\n"
    /* the mov's register read between the loads (its old value) */
    "  mov.u32 %r7, 5;\n"
    "  ld.global.u16 %rs7, [%rd4+4];\n  add.u32 %r8, %r7, 1;\n"
    "  ld.global.u16 %rs8, [%rd4+6];\n  mov.b32 %r7, {%rs7, %rs8};\n"
    "  mul.wide.u32 %rd5, %r1, 16;\n  add.s64 %rd6, %rd2, %rd5;\n"
    "  st.global.v4.u32 [%rd6], {%r4, %r5, %r6, %r8};\n"
    "  st.global.u32 [%rd2+1600], %r7;\n"
    "  ret;\n}\n";

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* i16 loads left in the kernel's IR (scalar loads and gathers) */
static size_t half_loads(zn_jit_module *jm)
{
    char *ir = zn_jit_ir_text(jm, 0);
    CHECK(ir != NULL, "no IR kept");
    if (!ir)
        return 0;
    size_t n = zt_count(ir, "load i16") + zt_count(ir, "gather.v32i16") + zt_count(ir, "gather.v16i16") +
               zt_count(ir, "load.v32i16") + zt_count(ir, "load.v16i16") + zt_count(ir, "load.v1i16");
    free(ir);
    return n;
}

static void test_quants(void)
{
    zn_jit_module *jm = zt_load_text(ptx_quants, NULL);
    CHECK(jm != NULL, "quants did not compile");
    if (!jm)
        return;
    size_t n16 = half_loads(jm);
    printf("test_compile_pairld: quants: %zu 16-bit loads left in the IR\n", n16);
    CHECK(n16 == 0, "%zu 16-bit loads left: the pairs were not joined", n16);
    uint8_t *x = malloc(NBLK * BLK + 16);
    for (int i = 0; i < NBLK * BLK + 16; i++)
        x[i] = (uint8_t)(i * 37 + 11);
    uint32_t *out = malloc(sizeof(uint32_t) * 4 * T);
    for (int i = 0; i < 4 * T; i++)
        out[i] = POISON;
    void *px = x, *po = out;
    void *args[] = {&px, &po};
    CHECK(zt_run(jm, "quants", ZT_DIM1(1), ZT_DIM1(T), 0, args) == 0, "quants status");
    int bad = 0;
    for (int t = 0; t < T && bad < 8; t++) {
        const uint8_t *q = x + (t / 4) * BLK + 8 * (t % 4);
        uint32_t want[4] = {le32(q + 2), le32(q + 6), le32(x + 2 + 4 * t), le32(x + 10)};
        for (int k = 0; k < 4; k++)
            if (out[4 * t + k] != want[k] && bad++ < 8)
                CHECK(0, "quants thread %d int %d: 0x%08x, want 0x%08x", t, k, out[4 * t + k],
                      want[k]);
    }
    free(x);
    free(out);
    zn_jit_module_free(jm);
}

static void test_kept(void)
{
    zn_jit_module *jm = zt_load_text(ptx_kept, NULL);
    CHECK(jm != NULL, "kept did not compile");
    if (!jm)
        return;
    size_t n16 = half_loads(jm);
    CHECK(n16 >= 6, "only %zu 16-bit loads in `kept`: a pair was joined that must not be", n16);
    uint8_t *x = malloc(8 * T), *x0 = malloc(8 * T);
    for (int i = 0; i < 8 * T; i++)
        x[i] = x0[i] = (uint8_t)(i * 53 + 7);
    uint32_t *out = malloc(sizeof(uint32_t) * (4 * T + 1));
    for (int i = 0; i < 4 * T + 1; i++)
        out[i] = POISON;
    void *px = x, *po = out;
    void *args[] = {&px, &po};
    CHECK(zt_run(jm, "kept", ZT_DIM1(1), ZT_DIM1(T), 0, args) == 0, "kept status");
    int bad = 0;
    for (int t = 0; t < T; t++) {
        const uint8_t *q = x0 + 8 * t;
        uint32_t hi = (0x7777u + (uint32_t)t) & 0xffff;
        uint32_t want[4] = {(uint32_t)(q[0] | q[1] << 8) | hi << 16, le32(q + 4),
                            (uint32_t)(q[4] | q[5] << 8), 6};
        for (int k = 0; k < 4; k++)
            if (out[4 * t + k] != want[k] && bad++ < 8)
                CHECK(0, "kept thread %d value %d: 0x%08x, want 0x%08x", t, k, out[4 * t + k],
                      want[k]);
    }
    /* lanes store %r7 to one address: the highest lane's value lands */
    CHECK(out[4 * T] == le32(x0 + 8 * (T - 1) + 4), "kept: 0x%08x, want 0x%08x", out[4 * T],
          le32(x0 + 8 * (T - 1) + 4));
    free(x);
    free(x0);
    free(out);
    zn_jit_module_free(jm);
}

int main(void)
{
    zn_compile_keep_ir(1); /* keeps the IR text (and bypasses the cache) */
    /* the IR is checked for 16-bit loads: window loads (zn_lower_window.c)
     * would read the same halves as byte windows */
    setenv("ZINC_NO_WINDOW", "1", 1);
    test_quants();
    test_kept();
    zt_cleanup();
    if (!zt_failures)
        printf("test_compile_pairld: all passed\n");
    return zt_failures != 0;
}
