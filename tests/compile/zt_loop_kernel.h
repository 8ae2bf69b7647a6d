/* zt_loop_kernel.h: a PTX kernel with a strided loop, out[i] = 3 * in[i]
 * + 1 for i < n, and the run that checks it against the same sum in C
 * (test_compile_prefetch, test_compile_interleave). */
#ifndef ZT_LOOP_KERNEL_H
#define ZT_LOOP_KERNEL_H

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "zn_test_harness.h"

#define ZT_POISON 0xa5a5a5a5u

/* STRIDE: sets %rd7, the loop's step in elements, from %r1 (ntid) and %r4
 * (nctaid); BODY_END: before the loop's end test (a barrier, or "") */
#define ZT_LOOP_PTX(NAME, STRIDE, BODY_END)                                            \
    ".version 7.0\n.target sm_70\n.address_size 64\n"                                \
    ".visible .entry " NAME "(.param .u64 pin, .param .u64 pout, .param .u64 pn)\n{\n" \
    "  .reg .pred %p<2>;\n  .reg .b32 %r<8>;\n  .reg .b64 %rd<12>;\n"                 \
    "  ld.param.u64 %rd1, [pin];\n  ld.param.u64 %rd2, [pout];\n"                    \
    "  ld.param.u64 %rd3, [pn];\n"                                                     \
    "  mov.u32 %r1, %ntid.x;\n  mov.u32 %r2, %ctaid.x;\n  mov.u32 %r3, %tid.x;\n"    \
    "  mov.u32 %r4, %nctaid.x;\n"                                                      \
    "  mul.wide.u32 %rd4, %r2, %r1;\n  cvt.u64.u32 %rd5, %r3;\n"                      \
    "  add.s64 %rd6, %rd4, %rd5;\n" STRIDE                                             \
    "  setp.ge.s64 %p1, %rd6, %rd3;\n  @%p1 bra DONE;\n"                              \
    "LOOP:\n"                                                                          \
    "  shl.b64 %rd8, %rd6, 2;\n  add.s64 %rd9, %rd1, %rd8;\n"                         \
    "  ld.global.u32 %r5, [%rd9];\n  mad.lo.s32 %r6, %r5, 3, 1;\n"                     \
    "  add.s64 %rd10, %rd2, %rd8;\n  st.global.u32 [%rd10], %r6;\n"                   \
    "  add.s64 %rd6, %rd6, %rd7;\n" BODY_END                                           \
    "  setp.lt.s64 %p1, %rd6, %rd3;\n  @%p1 bra LOOP;\n"                              \
    "DONE:\n  ret;\n}\n"

#define ZT_GRID_STRIDE "  mul.wide.u32 %rd7, %r4, %r1;\n"   /* nctaid.x * ntid.x */
#define ZT_BLOCK_STRIDE "  cvt.u64.u32 %rd7, %r1;\n"        /* ntid.x */

/* Runs kernel (ZT_LOOP_PTX's parameters) over in[0..n) through the
 * executor; out[n..n+64) must keep its poison. */
static inline void zt_run_loop(zn_jit_module *jm, const char *kernel, const uint32_t *in,
                               uint64_t n, uint32_t blocks, uint32_t threads)
{
    uint32_t *out = malloc((n + 64) * sizeof *out);
    CHECK(out != NULL, "malloc");
    if (!out)
        return;
    for (uint64_t i = 0; i < n + 64; i++)
        out[i] = ZT_POISON;
    void *pin = (void *)in, *pout = out;
    void *args[] = {&pin, &pout, &n};
    CHECK(zt_run_exec(jm, kernel, ZT_DIM1(blocks), ZT_DIM1(threads), 0, args) == 0,
          "%s %ux%u: status", kernel, blocks, threads);
    int bad = 0;
    for (uint64_t i = 0; i < n + 64; i++) {
        uint32_t want = i < n ? 3 * in[i] + 1 : ZT_POISON;
        if (out[i] != want && bad++ < 5)
            CHECK(0, "%s %ux%u n=%llu: out[%llu] = 0x%08x, want 0x%08x", kernel, blocks,
                  threads, (unsigned long long)n, (unsigned long long)i, out[i], want);
    }
    free(out);
}

/* Compiles ptx (with zn_compile_keep_ir on) and checks that its IR has
 * `what` (want) or not, unless the environment variable `off` is set (a
 * run with the feature turned off). */
static inline zn_jit_module *zt_load_ir_has_cpu(const char *ptx, const char *cpu,
                                                const char *what, bool want, const char *off,
                                                const char *why)
{
    zn_jit_module *jm = cpu ? zt_load_text_cpu(ptx, cpu) : zt_load_text(ptx, NULL);
    CHECK(jm != NULL, "%s: did not compile", why);
    if (!jm)
        return NULL;
    char *ir = zn_jit_ir_text(jm, 0);
    CHECK(ir != NULL, "%s: IR kept", why);
    if (ir && !getenv(off))
        CHECK((strstr(ir, what) != NULL) == want, "%s: %s %s in the IR", why, what,
              want ? "missing" : "present");
    free(ir);
    return jm;
}

/* the same for this host's CPU */
static inline zn_jit_module *zt_load_ir_has(const char *ptx, const char *what, bool want,
                                            const char *off, const char *why)
{
    return zt_load_ir_has_cpu(ptx, NULL, what, want, off, why);
}

#endif
