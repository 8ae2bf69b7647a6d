/* test_drv_diverged_shuffle.c: lanes that part inside a loop must meet
 * again before the next iteration's shuffle. Two loop shapes nvcc emits,
 * written by hand (src/compile/zn_lower_layout.c lays them out again):
 *   latch_above: the latch sits above the header (the entry jumps over
 *          it); odd lanes skip an if-arm and branch to the latch early.
 *   two_backs: a `continue` with a back edge of its own: odd lanes loop
 *          back from one block, even lanes from another.
 * Each iteration starts with a butterfly sum of (tid + round) over the
 * warp, which is only right with all 32 lanes; even lanes also fold
 * acc = acc * 3 + 1 in their arm. Expected values are computed here; the
 * output is poisoned first. */
#include <cuda.h>
#include <stdint.h>
#include <string.h>

#include "drv_test.h"

#define NT 64u      /* two warps */
#define ROUNDS 5u
#define POISON 0xdeadbeefu

/* %r1 = tid, %rd3 = &out[tid], %p1 = odd lane, round %r7 = 0, acc %r8 = 0 */
#define HEAD(name)                                                         \
    ".visible .entry " name "(.param .u64 out)\n"                          \
    "{\n"                                                                  \
    "    .reg .pred %p<4>;\n"                                              \
    "    .reg .b32 %r<12>;\n"                                              \
    "    .reg .b64 %rd<8>;\n"                                              \
    "    ld.param.u64 %rd4, [out];\n"                                      \
    "    cvta.to.global.u64 %rd4, %rd4;\n"                                 \
    "    mov.u32 %r1, %tid.x;\n"                                           \
    "    mul.wide.u32 %rd6, %r1, 4;\n"                                     \
    "    add.s64 %rd3, %rd4, %rd6;\n"                                      \
    "    and.b32 %r4, %r1, 1;\n"                                           \
    "    setp.ne.u32 %p1, %r4, 0;\n"                                       \
    "    mov.u32 %r7, 0;\n"                                                \
    "    mov.u32 %r8, 0;\n"

/* acc += warp sum of (tid + round) */
#define WARP_SUM                                                           \
    "    add.u32 %r5, %r1, %r7;\n"                                         \
    "    shfl.sync.bfly.b32 %r6, %r5, 16, 31, -1;\n"                       \
    "    add.u32 %r5, %r5, %r6;\n"                                         \
    "    shfl.sync.bfly.b32 %r6, %r5, 8, 31, -1;\n"                        \
    "    add.u32 %r5, %r5, %r6;\n"                                         \
    "    shfl.sync.bfly.b32 %r6, %r5, 4, 31, -1;\n"                        \
    "    add.u32 %r5, %r5, %r6;\n"                                         \
    "    shfl.sync.bfly.b32 %r6, %r5, 2, 31, -1;\n"                        \
    "    add.u32 %r5, %r5, %r6;\n"                                         \
    "    shfl.sync.bfly.b32 %r6, %r5, 1, 31, -1;\n"                        \
    "    add.u32 %r5, %r5, %r6;\n"                                         \
    "    add.u32 %r8, %r8, %r5;\n"

static const char ptx[] =
    ".version 8.0\n.target sm_75\n.address_size 64\n"
    HEAD("latch_above")
    "    bra.uni TOP;\n"
    "LATCH:\n"
    "    add.u32 %r7, %r7, 1;\n"
    "TOP:\n"
    "    setp.lt.u32 %p2, %r7, 5;\n"
    "    @!%p2 bra DONE;\n"
    WARP_SUM
    "    @%p1 bra LATCH;\n"
    "    mad.lo.u32 %r8, %r8, 3, 1;\n"
    "    bra.uni LATCH;\n"
    "DONE:\n"
    "    st.global.u32 [%rd3], %r8;\n"
    "    ret;\n"
    "}\n"
    HEAD("two_backs")
    "TOP:\n"
    WARP_SUM
    "    add.u32 %r7, %r7, 1;\n"
    "    setp.lt.u32 %p2, %r7, 5;\n"
    "    @%p1 bra CONT;\n"
    "    mad.lo.u32 %r8, %r8, 3, 1;\n"
    "    @%p2 bra TOP;\n"
    "    bra.uni DONE;\n"
    "CONT:\n"
    "    @%p2 bra TOP;\n"
    "DONE:\n"
    "    st.global.u32 [%rd3], %r8;\n"
    "    ret;\n"
    "}\n";

static uint32_t expected(uint32_t t)
{
    uint32_t warp0 = t / 32 * 32, acc = 0;
    for (uint32_t r = 0; r < ROUNDS; r++) {
        uint32_t sum = 0;
        for (uint32_t l = 0; l < 32; l++)
            sum += warp0 + l + r;
        acc += sum;
        if (!(t & 1))
            acc = acc * 3 + 1;
    }
    return acc;
}

static void check(CUmodule mod, const char *name, CUdeviceptr out)
{
    CUfunction fn;
    uint32_t got[NT];
    OK(cuModuleGetFunction(&fn, mod, name));
    OK(cuMemsetD32(out, POISON, NT));
    void *args[] = {&out};
    OK(cuLaunchKernel(fn, 1, 1, 1, NT, 1, 1, 0, NULL, args, NULL));
    OK(cuCtxSynchronize());
    memset(got, 0, sizeof got);
    OK(cuMemcpyDtoH(got, out, sizeof got));
    for (uint32_t t = 0; t < NT; t++)
        if (got[t] != expected(t)) {
            printf("FAIL %s: thread %u got %u, want %u\n", name, t, got[t], expected(t));
            drv_failures++;
            return;
        }
}

int main(void)
{
    CUcontext ctx;
    CUdevice dev = drv_test_primary_ctx(&ctx);
    CUmodule mod;
    OK(cuModuleLoadData(&mod, ptx));
    CUdeviceptr out;
    OK(cuMemAlloc(&out, NT * 4));
    check(mod, "latch_above", out);
    check(mod, "two_backs", out);
    OK(cuMemFree(out));
    OK(cuModuleUnload(mod));
    OK(cuDevicePrimaryCtxRelease(dev));
    return drv_test_end("drv_diverged_shuffle");
}
