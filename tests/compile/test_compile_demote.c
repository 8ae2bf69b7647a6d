/* test_compile_demote.c: huge divergent functions keep their cross-block
 * registers in memory (zn_lower_demote.c).
 *
 * A register live across blocks gets a phi in nearly every block (the
 * dispatcher can enter each), so registers x blocks phis: CUB's sweep
 * kernels had 200k+ of them and took minutes in InstCombine and the
 * register coalescer (issues #3, #9). Above a size the lowering makes
 * those allocas escape so mem2reg leaves them in memory. This kernel has
 * NR accumulators updated under NB divergent branches (NR x 2NB over the
 * limit): the lowered IR must escape them, the optimised IR must have few
 * phis, and every lane's accumulators must match a CPU reference. A small
 * kernel of the same shape must be left in SSA form. */
#include <stdlib.h>
#include <string.h>
#include "zn_test_harness.h"

#define NR 80
#define NB 280
#define NTHREADS 64

static char *make_ptx(const char *name, int nb)
{
    size_t cap = 64 * 1024 + (size_t)nb * 400, n = 0;
    char *s = malloc(cap);
    n += (size_t)snprintf(s + n, cap - n,
        ".version 7.0\n.target sm_70\n.address_size 64\n"
        ".visible .entry %s(.param .u64 p)\n{\n"
        "  .reg .pred %%p<%d>;\n  .reg .b32 %%r<2>;\n  .reg .b32 %%a<%d>;\n"
        "  .reg .b64 %%rd<4>;\n"
        "  ld.param.u64 %%rd1, [p];\n  cvta.to.global.u64 %%rd2, %%rd1;\n"
        "  mov.u32 %%r0, %%tid.x;\n  mul.wide.u32 %%rd3, %%r0, %d;\n"
        "  add.s64 %%rd2, %%rd2, %%rd3;\n", name, nb + 1, NR, NR * 4);
    for (int i = 0; i < NR; i++)
        n += (size_t)snprintf(s + n, cap - n, "  add.u32 %%a%d, %%r0, %d;\n", i, i);
    for (int b = 0; b < nb; b++) {
        int j = b % NR, k = (b * 7 + 3) % NR;
        n += (size_t)snprintf(s + n, cap - n,
            "  setp.lt.u32 %%p%d, %%r0, %d;\n  @%%p%d bra L%d;\n"
            "  add.u32 %%a%d, %%a%d, %%a%d;\n  xor.b32 %%a%d, %%a%d, %u;\n"
            "L%d:\n", b, b % 31 + 1, b, b, j, j, k, j, j, (unsigned)b * 2654435761u, b);
    }
    for (int i = 0; i < NR; i++)
        n += (size_t)snprintf(s + n, cap - n, "  st.global.u32 [%%rd2+%d], %%a%d;\n",
                              i * 4, i);
    n += (size_t)snprintf(s + n, cap - n, "  ret;\n}\n");
    return s;
}

/* what lane t's accumulators end as */
static void reference(int nb, uint32_t t, uint32_t *a)
{
    for (int i = 0; i < NR; i++)
        a[i] = t + (uint32_t)i;
    for (int b = 0; b < nb; b++) {
        if (t < (uint32_t)(b % 31 + 1))
            continue;
        int j = b % NR, k = (b * 7 + 3) % NR;
        a[j] += a[k];
        a[j] ^= (uint32_t)b * 2654435761u;
    }
}

/* compiles and runs one kernel; *sinks: escaping stores in the lowered
 * IR, *phis: phis after optimisation */
static void check_kernel(const char *name, int nb, size_t *sinks, size_t *phis)
{
    char *ptx = make_ptx(name, nb);
    const ptx_module *pm = NULL;
    zn_jit_module *jm = zt_load_text(ptx, &pm);
    CHECK(jm != NULL, "%s did not compile", name);
    *sinks = *phis = 0;
    if (jm) {
        char *ir = zn_jit_ir_text(jm, 0), *opt = zn_jit_ir_text(jm, 1);
        CHECK(ir && opt, "no IR kept");
        if (ir)
            *sinks = zt_count(ir, "store volatile ptr");
        if (opt)
            *phis = zt_count(opt, " = phi ");
        free(ir);
        free(opt);
        uint32_t *out = malloc(NTHREADS * NR * sizeof *out);
        memset(out, 0xA5, NTHREADS * NR * sizeof *out);   /* poison */
        void *arg = out;
        void *args[] = {&arg};
        CHECK(zt_run(jm, name, ZT_DIM1(1), ZT_DIM1(NTHREADS), 0, args) == 0,
              "%s failed", name);
        int bad = 0;
        for (uint32_t t = 0; t < NTHREADS; t++) {
            uint32_t want[NR];
            reference(nb, t, want);
            for (int i = 0; i < NR; i++)
                if (out[t * NR + i] != want[i] && bad++ < 4)
                    fprintf(stderr, "%s: thread %u acc %d: got %08x want %08x\n", name, t,
                            i, out[t * NR + i], want[i]);
        }
        CHECK(bad == 0, "%s: %d wrong accumulators", name, bad);
        free(out);
        zn_jit_module_free(jm);
    }
    free(ptx);
}

int main(void)
{
    unsetenv("ZINC_DEMOTE_PHIS");   /* the built-in threshold */
    zn_compile_keep_ir(1);          /* keeps the IR text (and bypasses the cache) */
    size_t sinks, phis;

    check_kernel("wide", NB, &sinks, &phis);
    printf("test_compile_demote: %d registers x %d blocks: %zu escaped, %zu phis after -O3\n",
           NR, 2 * NB, sinks, phis);
    CHECK(sinks >= NR, "the accumulators were not kept in memory (%zu escaped)", sinks);
    /* in SSA form: about NR phis in each of the 2 * NB blocks; in memory
     * a few per block remain (the pc and mask vectors) */
    CHECK(phis < (size_t)NR * NB / 4, "%zu phis: registers were promoted", phis);

    check_kernel("narrow", 8, &sinks, &phis);
    printf("test_compile_demote: %d registers x %d blocks: %zu escaped, %zu phis after -O3\n",
           NR, 2 * 8, sinks, phis);
    CHECK(sinks == 0, "a small kernel's registers were demoted (%zu)", sinks);

    zt_cleanup();
    if (!zt_failures)
        printf("test_compile_demote: all passed\n");
    return zt_failures != 0;
}
