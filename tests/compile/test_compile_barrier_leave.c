/* test_compile_barrier_leave.c: which barriers let a warp return at once.
 *
 * A warp whose running lanes all return right after a whole-block barrier
 * returns at the barrier (zn_lower_warp.c, "Warps that leave at a
 * barrier"): the lowered IR of such a kernel has a `bar.leave` block. The
 * shortcut must not be made when something with an effect follows the
 * barrier before the exit, for a counted barrier, for bar.arrive, or
 * when the branch after the barrier goes anywhere but an exit. Results of
 * the leave path are checked by cuda/barrier_leave; this test makes sure
 * the path is taken for the shapes nvcc emits (and only for those). */
#include <stdlib.h>
#include <string.h>
#include "zn_test_harness.h"

#define HEAD ".version 7.0\n.target sm_70\n.address_size 64\n"
#define PARAMS "(.param .u64 p)"
#define PRE                                                                     \
    "  .shared .align 4 .b8 s[512];\n"                                           \
    "  .reg .pred %p<4>;\n  .reg .b32 %r<8>;\n  .reg .b64 %rd<4>;\n"             \
    "  ld.param.u64 %rd1, [p];\n  cvta.to.global.u64 %rd2, %rd1;\n"              \
    "  mov.u32 %r1, %tid.x;\n  shl.b32 %r2, %r1, 2;\n  mov.u32 %r3, s;\n"        \
    "  add.s32 %r4, %r3, %r2;\n  st.shared.u32 [%r4], %r1;\n"
/* the store after the barrier for the warp that stays */
#define POST "  ld.shared.u32 %r6, [%r3+4];\n  st.global.u32 [%rd2], %r6;\nEND:\n  ret;\n}\n"

static const char ptx[] = HEAD
    /* nvcc's shape: the predicate is computed after the barrier */
    ".visible .entry leave_after" PARAMS "\n{\n" PRE
    "  bar.sync 0;\n  shr.u32 %r5, %r1, 5;\n  setp.ne.s32 %p1, %r5, 0;\n"
    "  @%p1 bra END;\n" POST
    /* the predicate set before the barrier, a 2D block's warp */
    ".visible .entry leave_before" PARAMS "\n{\n" PRE
    "  mov.u32 %r5, %tid.y;\n  setp.ne.s32 %p1, %r5, 0;\n"
    "  bar.sync 0;\n  @%p1 bra END;\n" POST
    /* the barrier right before the end */
    ".visible .entry at_end" PARAMS "\n{\n" PRE "  bar.sync 0;\n  ret;\n}\n"
    /* a store between the barrier and the exit: must wait */
    ".visible .entry store_between" PARAMS "\n{\n" PRE
    "  bar.sync 0;\n  st.shared.u32 [%r4], %r2;\n  shr.u32 %r5, %r1, 5;\n"
    "  setp.ne.s32 %p1, %r5, 0;\n  @%p1 bra END;\n" POST
    /* a counted barrier */
    ".visible .entry counted" PARAMS "\n{\n" PRE
    "  bar.sync 1, 64;\n  shr.u32 %r5, %r1, 5;\n  setp.ne.s32 %p1, %r5, 0;\n"
    "  @%p1 bra END;\n" POST
    /* bar.arrive does not wait anyway */
    ".visible .entry arrive" PARAMS "\n{\n" PRE
    "  bar.arrive 1, 64;\n  shr.u32 %r5, %r1, 5;\n  setp.ne.s32 %p1, %r5, 0;\n"
    "  @%p1 bra END;\n" POST
    /* the branch after the barrier skips work but does not exit */
    ".visible .entry no_exit" PARAMS "\n{\n" PRE
    "  bar.sync 0;\n  shr.u32 %r5, %r1, 5;\n  setp.ne.s32 %p1, %r5, 0;\n"
    "  @%p1 bra MID;\n  ld.shared.u32 %r6, [%r3+4];\n  st.shared.u32 [%r4], %r6;\n"
    "MID:\n  st.global.u32 [%rd2], %r1;\n  ret;\n}\n";

/* The lowered IR of one kernel (its `define` up to the next one), or NULL. */
static char *kernel_ir(const char *ir, const char *name)
{
    char key[128];
    snprintf(key, sizeof key, "@zk_%s(", name);
    const char *at = strstr(ir, key);
    if (!at)
        return NULL;
    const char *end = strstr(at, "\ndefine ");
    size_t n = end ? (size_t)(end - at) : strlen(at);
    char *s = malloc(n + 1);
    memcpy(s, at, n);
    s[n] = 0;
    return s;
}

static void expect(const char *ir, const char *name, int leaves)
{
    char *k = kernel_ir(ir, name);
    CHECK(k != NULL, "%s: no lowered function", name);
    if (!k)
        return;
    int has = strstr(k, "bar.leave") != NULL;
    CHECK(has == leaves, "%s: %s", name,
          leaves ? "a warp whose lanes all exit after the barrier still waits"
                 : "the barrier is skipped although the warp has work after it");
    free(k);
}

int main(void)
{
    zn_compile_keep_ir(1);  /* keeps the IR text (and bypasses the cache) */
    const ptx_module *pm = NULL;
    zn_jit_module *jm = zt_load_text(ptx, &pm);
    CHECK(jm != NULL, "module did not compile");
    if (jm) {
        char *ir = zn_jit_ir_text(jm, 0);
        CHECK(ir != NULL, "no IR kept");
        if (ir) {
            expect(ir, "leave_after", 1);
            expect(ir, "leave_before", 1);
            expect(ir, "at_end", 1);
            expect(ir, "store_between", 0);
            expect(ir, "counted", 0);
            expect(ir, "arrive", 0);
            expect(ir, "no_exit", 0);
            free(ir);
        }
        zn_jit_module_free(jm);
    }
    zt_cleanup();
    if (!zt_failures)
        printf("test_compile_barrier_leave: all passed\n");
    return zt_failures != 0;
}
