/* test_compile_deadregs.c: registers end after their last live block
 * (zn_lower_deadregs.c).
 *
 * libcu++'s cooperative memcpy_async is a loop unrolled into steps with a
 * divergent exit each, and each step's address and index registers live
 * only into the next step; but every block after a register's definition
 * can be entered from the resume chain, so without undef stores each one
 * got a phi in every block of the loop (280 registers x 65 blocks, 35 s of
 * LLVM for one kernel). This kernel has the same shape: NS steps per trip,
 * per-step registers, a sum carried through the loop and read after it
 * by lanes that left at every step. The optimised IR must have far fewer
 * phis than with ZINC_NO_DEAD_REGS=1, and every lane's sum must match a
 * CPU reference either way. */
#include <stdlib.h>
#include <string.h>
#include "zn_test_harness.h"

#define NS 40
#define NTHREADS 64
#define MAXC (3 * NS + 7)

static char *make_ptx(void)
{
    size_t cap = 4096 + (size_t)NS * 512, n = 0;
    char *s = malloc(cap);
    n += (size_t)snprintf(s + n, cap - n,
        ".version 7.0\n.target sm_70\n.address_size 64\n"
        ".visible .entry steps(.param .u64 pin, .param .u64 pout)\n{\n"
        "  .reg .pred %%p<%d>;\n  .reg .b32 %%r<5>;\n  .reg .b32 %%v<%d>;\n"
        "  .reg .b32 %%i<%d>;\n  .reg .b64 %%a<%d>;\n  .reg .b64 %%rd<6>;\n"
        "  ld.param.u64 %%rd1, [pin];\n  ld.param.u64 %%rd2, [pout];\n"
        "  cvta.to.global.u64 %%rd1, %%rd1;\n  cvta.to.global.u64 %%rd2, %%rd2;\n"
        "  mov.u32 %%r0, %%tid.x;\n  mul.lo.u32 %%r1, %%r0, 7;\n"
        "  rem.u32 %%r1, %%r1, %d;\n  mov.u32 %%r2, 0;\n  mov.u32 %%r3, 0;\n"
        "  mul.wide.u32 %%rd3, %%r0, 4;\n  add.s64 %%rd4, %%rd1, %%rd3;\n"
        "LOOP:\n  mov.b64 %%a0, %%rd4;\n  mov.u32 %%i0, %%r3;\n",
        NS + 1, NS + 1, NS + 1, NS + 1, MAXC);
    for (int k = 1; k <= NS; k++)
        n += (size_t)snprintf(s + n, cap - n,
            "  setp.ge.u32 %%p%d, %%i%d, %%r1;\n  @%%p%d bra EXIT;\n"
            "  ld.global.u32 %%v%d, [%%a%d];\n  mad.lo.u32 %%r2, %%r2, 3, %%v%d;\n"
            "  xor.b32 %%r2, %%r2, %%i%d;\n  add.s64 %%a%d, %%a%d, %d;\n"
            "  add.u32 %%i%d, %%i%d, 1;\n",
            k, k - 1, k, k, k - 1, k, k - 1, k, k - 1, NTHREADS * 4, k, k - 1);
    n += (size_t)snprintf(s + n, cap - n,
        "  mov.b64 %%rd4, %%a%d;\n  mov.u32 %%r3, %%i%d;\n  bra.uni LOOP;\n"
        "EXIT:\n  add.s64 %%rd5, %%rd2, %%rd3;\n  st.global.u32 [%%rd5], %%r2;\n"
        "  ret;\n}\n", NS, NS);
    return s;
}

/* compiles and runs the kernel; returns the phis after optimisation */
static size_t check_kernel(const char *how, const uint32_t *in)
{
    char *ptx = make_ptx();
    const ptx_module *pm = NULL;
    zn_jit_module *jm = zt_load_text(ptx, &pm);
    size_t phis = 0;
    CHECK(jm != NULL, "%s: did not compile", how);
    if (jm) {
        char *opt = zn_jit_ir_text(jm, 1);
        CHECK(opt != NULL, "no IR kept");
        if (opt)
            phis = zt_count(opt, " = phi ");
        free(opt);
        uint32_t *out = malloc(NTHREADS * sizeof *out);
        memset(out, 0xA5, NTHREADS * sizeof *out);   /* poison */
        const void *pin = in;
        void *pout = out;
        void *args[] = {&pin, &pout};
        CHECK(zt_run(jm, "steps", ZT_DIM1(1), ZT_DIM1(NTHREADS), 0, args) == 0,
              "%s: launch failed", how);
        int bad = 0;
        for (uint32_t t = 0; t < NTHREADS; t++) {
            uint32_t c = t * 7 % MAXC, sum = 0;
            for (uint32_t i = 0; i < c; i++)
                sum = (sum * 3 + in[i * NTHREADS + t]) ^ i;
            if (out[t] != sum && bad++ < 4)
                fprintf(stderr, "%s: thread %u (%u steps): got %08x want %08x\n", how, t, c,
                        out[t], sum);
        }
        CHECK(bad == 0, "%s: %d wrong sums", how, bad);
        free(out);
        zn_jit_module_free(jm);
    }
    free(ptx);
    return phis;
}

int main(void)
{
    zn_compile_keep_ir(1);          /* keeps the IR text (and bypasses the cache) */
    uint32_t *in = malloc(MAXC * NTHREADS * sizeof *in);
    for (uint32_t i = 0; i < MAXC * NTHREADS; i++)
        in[i] = i * 2654435761u ^ 0x5bd1e995u;

    unsetenv("ZINC_NO_DEAD_REGS");
    size_t ended = check_kernel("ended", in);
    setenv("ZINC_NO_DEAD_REGS", "1", 1);
    size_t kept = check_kernel("kept", in);
    unsetenv("ZINC_NO_DEAD_REGS");
    printf("test_compile_deadregs: %d steps: %zu phis after -O3, %zu without the undef stores\n",
           NS, ended, kept);
    /* kept: the per-step registers flow through every step's block */
    CHECK(ended * 4 < kept, "%zu phis against %zu: registers were not ended", ended, kept);

    free(in);
    zt_cleanup();
    if (!zt_failures)
        printf("test_compile_deadregs: all passed\n");
    return zt_failures != 0;
}
