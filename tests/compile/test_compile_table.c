/* test_compile_table.c: loads from small module tables at lane-varying
 * offsets (zn_lower_table.c: byte permutes of the table instead of a
 * gather). Kernels in the shape nvcc gives llama.cpp's IQ4_NL lookups
 * (`mov.u64 %rd, table; add.s64 %rd, %rd, index; ld.global.nc.u8`): u8
 * from 16- and 128-byte tables (an immediate offset into the second
 * half), u16 and a .const u32 table (indices bounded by their
 * definitions: no run-time test), an index register written twice (the
 * test), indices past the table's end (also a bounded index whose
 * immediate takes it past) (the
 * run-time test falls back and reads the bytes after it: the harness pads
 * each global with 16 bytes, which the kernel sets first), a guarded load (inactive lanes keep their value) and a table
 * the kernel writes before reading it. Each output is checked against the
 * table bytes in C; unwritten output keeps its poison (zt_run_u32). */
#include <stdlib.h>
#include <string.h>
#include "zn_test_harness.h"

static uint8_t t16[16], t128[128], t16w[16];
static uint16_t th[8];
static uint32_t tw[16];

#define HEAD(NAME)                                                                            \
    ".visible .entry " NAME "(.param .u64 pin, .param .u64 pout)\n{\n"                        \
    "  .reg .pred %p<4>;\n  .reg .b16 %rs<2>;\n  .reg .b32 %r<16>;\n  .reg .b64 %rd<12>;\n"                         \
    "  ld.param.u64 %rd1, [pin];\n  ld.param.u64 %rd2, [pout];\n"                            \
    "  mov.u32 %r1, %tid.x;\n  mov.u32 %r2, %ctaid.x;\n  mov.u32 %r3, %ntid.x;\n"            \
    "  mad.lo.s32 %r4, %r2, %r3, %r1;\n  mul.wide.s32 %rd3, %r4, 4;\n"                       \
    "  add.s64 %rd4, %rd1, %rd3;\n  add.s64 %rd5, %rd2, %rd3;\n"                              \
    "  ld.global.u32 %r5, [%rd4];\n"
#define TAIL "  st.global.u32 [%rd5], %r7;\n  ret;\n}\n"

static const char *kernels =
    HEAD("u8")
    "  and.b32 %r6, %r5, 15;\n  cvt.u64.u32 %rd6, %r6;\n  mov.u64 %rd7, t16;\n"
    "  add.s64 %rd8, %rd7, %rd6;\n  ld.global.nc.u8 %r7, [%rd8];\n" TAIL
    HEAD("half2")
    "  shr.u32 %r11, %r5, 4;\n  and.b32 %r6, %r11, 63;\n  cvt.u64.u32 %rd6, %r6;\n"
    "  mov.u64 %rd7, t128;\n  add.s64 %rd8, %rd6, %rd7;\n  ld.global.u8 %r7, [%rd8+64];\n" TAIL
    HEAD("u16")
    "  shr.u32 %r11, %r5, 11;\n  and.b32 %r6, %r11, 7;\n  mul.wide.u32 %rd6, %r6, 2;\n"
    "  mov.u64 %rd7, th;\n  add.s64 %rd8, %rd7, %rd6;\n  ld.global.u16 %r7, [%rd8];\n" TAIL
    HEAD("u32")
    "  shr.u32 %r11, %r5, 14;\n  and.b32 %r6, %r11, 15;\n  mul.wide.u32 %rd6, %r6, 4;\n"
    "  mov.u64 %rd7, tw;\n  add.s64 %rd8, %rd7, %rd6;\n  ld.const.u32 %r7, [%rd8];\n" TAIL
    /* bytes past t16 (the harness's padding) set first: 200 + k at 16 + k */
    HEAD("past")
    "  mov.u64 %rd7, t16;\n  and.b32 %r9, %r1, 15;\n  cvt.u64.u32 %rd9, %r9;\n"
    "  add.s64 %rd10, %rd7, %rd9;\n  add.s32 %r10, %r9, 200;\n  st.global.u8 [%rd10+16], %r10;\n"
    "  shr.u32 %r11, %r5, 18;\n  and.b32 %r6, %r11, 31;\n  cvt.u64.u32 %rd6, %r6;\n"
    "  add.s64 %rd8, %rd7, %rd6;\n  ld.global.nc.u8 %r7, [%rd8];\n" TAIL
    /* an index bounded to [0, 3] but an immediate of 16: past t16 (bytes
     * set first as in past), so the bound proves nothing */
    HEAD("imm_past")
    "  mov.u64 %rd7, t16;\n  and.b32 %r9, %r1, 15;\n  cvt.u64.u32 %rd9, %r9;\n"
    "  add.s64 %rd10, %rd7, %rd9;\n  add.s32 %r10, %r9, 200;\n  st.global.u8 [%rd10+16], %r10;\n"
    "  and.b32 %r6, %r5, 3;\n  cvt.u64.u32 %rd6, %r6;\n"
    "  add.s64 %rd8, %rd7, %rd6;\n  ld.global.nc.u8 %r7, [%rd8+16];\n" TAIL
    /* the index register written twice: no bound known, the run-time test */
    HEAD("twice")
    "  shr.u32 %r6, %r5, 3;\n  and.b32 %r6, %r6, 15;\n  cvt.u64.u32 %rd6, %r6;\n"
    "  mov.u64 %rd7, t16;\n  add.s64 %rd8, %rd7, %rd6;\n  ld.global.nc.u8 %r7, [%rd8];\n" TAIL
    HEAD("guarded")
    "  mov.u32 %r7, 57005;\n  and.b32 %r8, %r5, 1;\n  setp.ne.u32 %p1, %r8, 0;\n"
    "  shr.u32 %r11, %r5, 1;\n  and.b32 %r6, %r11, 15;\n  cvt.u64.u32 %rd6, %r6;\n"
    "  mov.u64 %rd7, t16;\n  add.s64 %rd8, %rd7, %rd6;\n  @%p1 ld.global.nc.u8 %r7, [%rd8];\n" TAIL
    HEAD("written")
    "  mov.u64 %rd7, t16w;\n  mov.u16 %rs1, 119;\n  st.global.u8 [%rd7+5], %rs1;\n"
    "  and.b32 %r6, %r5, 15;\n  cvt.u64.u32 %rd6, %r6;\n"
    "  add.s64 %rd8, %rd7, %rd6;\n  ld.global.u8 %r7, [%rd8];\n" TAIL;

static uint32_t want_u8(const uint32_t *in, uint32_t t, uint32_t b)
{
    (void)b;
    return t16[in[t] & 15];
}
static uint32_t want_half2(const uint32_t *in, uint32_t t, uint32_t b)
{
    (void)b;
    return t128[64 + (in[t] >> 4 & 63)];
}
static uint32_t want_u16(const uint32_t *in, uint32_t t, uint32_t b)
{
    (void)b;
    return th[in[t] >> 11 & 7];
}
static uint32_t want_u32(const uint32_t *in, uint32_t t, uint32_t b)
{
    (void)b;
    return tw[in[t] >> 14 & 15];
}
static uint32_t want_past(const uint32_t *in, uint32_t t, uint32_t b)
{
    (void)b;
    uint32_t i = in[t] >> 18 & 31;
    return i < 16 ? t16[i] : 200 + i - 16;
}
static uint32_t want_imm_past(const uint32_t *in, uint32_t t, uint32_t b)
{
    (void)b;
    return 200 + (in[t] & 3);
}
static uint32_t want_twice(const uint32_t *in, uint32_t t, uint32_t b)
{
    (void)b;
    return t16[in[t] >> 3 & 15];
}
static uint32_t want_guarded(const uint32_t *in, uint32_t t, uint32_t b)
{
    (void)b;
    return in[t] & 1 ? t16[in[t] >> 1 & 15] : 57005;
}
static uint32_t want_written(const uint32_t *in, uint32_t t, uint32_t b)
{
    (void)b;
    uint32_t i = in[t] & 15;
    return i == 5 ? 119 : t16w[i];
}

/* the module text: the tables' declarations, then the kernels */
static char *module_text(void)
{
    size_t cap = 16384 + strlen(kernels);
    char *s = malloc(cap);
    if (!s)
        return NULL;
    size_t n = (size_t)snprintf(s, cap, ".version 7.0\n.target sm_70\n.address_size 64\n");
    struct { const char *decl; const uint8_t *bytes; unsigned count, size; } tabs[] = {
        {".global .align 1 .b8 t16[16]", t16, 16, 1},
        {".global .align 1 .b8 t128[128]", t128, 128, 1},
        {".global .align 1 .b8 t16w[16]", t16w, 16, 1},
        {".global .align 2 .b16 th[8]", (const uint8_t *)th, 8, 2},
        {".const .align 4 .b32 tw[16]", (const uint8_t *)tw, 16, 4},
    };
    for (unsigned k = 0; k < sizeof tabs / sizeof *tabs; k++) {
        n += (size_t)snprintf(s + n, cap - n, "%s = {", tabs[k].decl);
        for (unsigned i = 0; i < tabs[k].count; i++) {
            uint32_t v = 0;
            memcpy(&v, tabs[k].bytes + i * tabs[k].size, tabs[k].size);
            n += (size_t)snprintf(s + n, cap - n, "%s%u", i ? ", " : "", v);
        }
        n += (size_t)snprintf(s + n, cap - n, "};\n");
    }
    snprintf(s + n, cap - n, "%s", kernels);
    return s;
}

int main(void)
{
    for (unsigned i = 0; i < 128; i++)
        t128[i] = (uint8_t)(i * 37 + 11);
    for (unsigned i = 0; i < 16; i++) {
        t16[i] = (uint8_t)(0x81 + i * 23);
        t16w[i] = (uint8_t)(i * 5 + 3);
        tw[i] = 0x9e3779b9u * (i + 1);
    }
    for (unsigned i = 0; i < 8; i++)
        th[i] = (uint16_t)(0xbeef + i * 4099);
    char *text = module_text();
    CHECK(text != NULL, "module text");
    if (!text)
        return 1;
    zn_compile_keep_ir(1);
    zn_jit_module *jm = zt_load_text(text, NULL);
    zn_compile_keep_ir(0);
    CHECK(jm != NULL, "the table kernels did not compile");
    if (jm) {
        char *ir = zn_jit_ir_text(jm, 0);
        __builtin_cpu_init();
        if (ir && __builtin_cpu_supports("avx512vbmi") && __builtin_cpu_supports("avx512bw"))
        {
            CHECK(strstr(ir, "ld.table") != NULL, "no table path in the IR on a VBMI host");
            /* a run-time test (defined and branched on) in past, imm_past and
             * twice only */
            CHECK(zt_count(ir, "%tbl.inside") == 6, "%zu uses of run-time table tests, want 6",
                  zt_count(ir, "%tbl.inside"));
        }
        free(ir);
        static const struct { const char *name; zt_want_u32 want; } cases[] = {
            {"u8", want_u8}, {"half2", want_half2}, {"u16", want_u16}, {"u32", want_u32},
            {"past", want_past}, {"imm_past", want_imm_past}, {"twice", want_twice},
            {"guarded", want_guarded},
            {"written", want_written},
        };
        for (unsigned c = 0; c < sizeof cases / sizeof *cases; c++) {
            zt_run_u32(jm, cases[c].name, 4, 128, 0, cases[c].want, cases[c].name);
            zt_run_u32(jm, cases[c].name, 3, 48, 5, cases[c].want, cases[c].name);
        }
        zn_jit_module_free(jm);
    }
    free(text);
    zt_cleanup();
    if (!zt_failures)
        printf("test_compile_table: all passed\n");
    return zt_failures != 0;
}
