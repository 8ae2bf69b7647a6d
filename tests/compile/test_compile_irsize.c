/* test_compile_irsize.c: the lowering's IR grows linearly with the kernel.
 *
 * Block-local registers (written, then read, inside one PTX block) get an
 * undef store at the start of a block so that mem2reg gives them no phis.
 * That store was made in every block for every such register: blocks x
 * registers stores, 3.4 million (200 MB of IR, minutes in LLVM) for CUB's
 * onesweep radix-sort kernel that Thrust's sort uses (issue #3). Only the
 * blocks that mention a register need it. This kernel has NB divergent
 * blocks with 3 block-local registers each; the lowered IR (before
 * optimisation) must hold about 3 * NB undef stores, not (3 * NB)^2 / 3. */
#include <stdlib.h>
#include <string.h>
#include "zn_test_harness.h"

#define NB 150

static char *make_ptx(void)
{
    size_t cap = 64 * 1024 + NB * 512, n = 0;
    char *s = malloc(cap);
    n += (size_t)snprintf(s + n, cap - n,
        ".version 7.0\n.target sm_70\n.address_size 64\n"
        ".visible .entry many_blocks(.param .u64 p)\n{\n"
        "  .reg .pred %%p<%d>;\n  .reg .b32 %%r<%d>;\n  .reg .b64 %%rd<4>;\n"
        "  ld.param.u64 %%rd1, [p];\n  cvta.to.global.u64 %%rd2, %%rd1;\n"
        "  mov.u32 %%r0, %%tid.x;\n  mul.wide.u32 %%rd3, %%r0, 4;\n"
        "  add.s64 %%rd2, %%rd2, %%rd3;\n", NB + 1, 3 * NB + 2);
    for (int b = 0; b < NB; b++) {
        int r = 1 + 3 * b;
        n += (size_t)snprintf(s + n, cap - n,
            "  setp.lt.u32 %%p%d, %%r0, %d;\n  @%%p%d bra L%d;\n"
            "  add.u32 %%r%d, %%r0, %d;\n  mul.lo.u32 %%r%d, %%r%d, 3;\n"
            "  xor.b32 %%r%d, %%r%d, %d;\n  st.global.u32 [%%rd2], %%r%d;\n"
            "L%d:\n", b, b % 32, b, b, r, b, r + 1, r, r + 2, r + 1, b, r + 2, b);
    }
    n += (size_t)snprintf(s + n, cap - n, "  ret;\n}\n");
    return s;
}

int main(void)
{
    zn_compile_keep_ir(1);  /* keeps the IR text (and bypasses the cache) */
    char *ptx = make_ptx();
    const ptx_module *pm = NULL;
    zn_jit_module *jm = zt_load_text(ptx, &pm);
    CHECK(jm != NULL, "module did not compile");
    if (jm) {
        char *ir = zn_jit_ir_text(jm, 0);
        CHECK(ir != NULL, "no IR kept");
        if (ir) {
            size_t undef = zt_count(ir, "undef, ptr");
            printf("test_compile_irsize: %d blocks, %zu undef register stores, %zu bytes of IR\n",
                   NB, undef, strlen(ir));
            /* each of the 3 * NB registers in its own block (a few more
             * for the lowering's own slots); every-block stores: ~ 2 * NB * 3 * NB */
            CHECK(undef >= 3 * NB / 2, "block-local registers are not killed (%zu)", undef);
            CHECK(undef <= 6 * NB, "undef stores grow with blocks x registers (%zu)", undef);
            free(ir);
        }
        zn_jit_module_free(jm);
    }
    zt_cleanup();
    free(ptx);
    if (!zt_failures)
        printf("test_compile_irsize: all passed\n");
    return zt_failures != 0;
}
