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

static char *kernel_text(const char *name, const char *body)
{
    static char buf[2][4096];
    static int which;
    char *b = buf[which++ & 1];
    int n = snprintf(b, sizeof buf[0], HEAD, name);
    snprintf(b + n, sizeof buf[0] - (size_t)n, "%s", body);
    return b;
}

/* lane l of the warp holding thread i: bit l set when `keep` holds for it */
static uint32_t warp_mask(const uint32_t *in, uint32_t i, uint32_t block,
                          int (*keep)(uint32_t v, uint32_t k), uint32_t k)
{
    uint32_t first = i / 32 * 32, lanes = block - first % block < 32 ? block - first % block : 32;
    uint32_t m = 0;
    for (uint32_t l = 0; l < lanes; l++)
        if (keep(in[first + l], k))
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

static void run(zn_jit_module *jm, const char *kernel,
                uint32_t (*want)(const uint32_t *, uint32_t, uint32_t),
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
        in[i] = (i * 2654435761u) >> 9;
        out[i] = 0xdeadbeef;
    }
    void *pin = in, *pout = out;
    void *args[] = {&pin, &pout};
    CHECK(zt_run(jm, kernel, ZT_DIM1(blocks), ZT_DIM1(block), 0, args) == 0, "%s %s: status",
          kernel, mode);
    int bad = 0;
    for (uint32_t i = 0; i < n && bad < 4; i++) {
        /* warps are numbered within a block */
        uint32_t b0 = i / block * block;
        uint32_t w = want(in + b0, i - b0, block);
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
    struct {
        const char *name, *body;
        uint32_t (*want)(const uint32_t *, uint32_t, uint32_t);
    } k[] = {
        {"join", join_body, want_join},
        {"loop", loop_body, want_loop},
    };
    zn_compile_keep_ir(1);
    for (int i = 0; i < 2; i++) {
        const char *ptx = kernel_text(k[i].name, k[i].body);
        zn_jit_module *on = NULL, *off = NULL;
        unsetenv("ZINC_NO_DIRECT_BRANCHES");
        char *ir_on = compile_ir(ptx, &on);
        setenv("ZINC_NO_DIRECT_BRANCHES", "1", 1);
        char *ir_off = compile_ir(ptx, &off);
        unsetenv("ZINC_NO_DIRECT_BRANCHES");
        CHECK(ir_on && ir_off && strcmp(ir_on, ir_off) != 0,
              "%s: the IR is the same with and without direct branches", k[i].name);
        free(ir_on);
        free(ir_off);
        zn_jit_module *m[2] = {on, off};
        const char *mode[2] = {"direct", "through the chain"};
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
        printf("test_compile_direct: all passed\n");
    return zt_failures != 0;
}
