/* test_drv_diverged_barrier.c: bar.sync reached by part of a warp first.
 * nvcc often lays an if/else out as "if-arm; JOIN: bar.sync ...; ret;
 * ELSE: else-arm; bra JOIN", so the lanes of the if-arm meet the barrier
 * while the else-arm's lanes are still on a path laid out after it. On a
 * GPU the barrier counts threads: it completes once every thread of the
 * block (those that exited aside) arrived, whichever arm brought them.
 * Each kernel here is that layout written by hand:
 *   join:  odd threads write their shared slot in the else-arm, even ones
 *          in the if-arm; after the barrier every thread reads its
 *          neighbour's (t ^ 1) slot.
 *   loop:  the same inside a loop of 5 rounds, two barriers a round, the
 *          else-arm outside the loop's text.
 *   leave: some else-arm threads exit instead of writing (all of warp 1's,
 *          so that warp's even lanes have nobody left to meet): their
 *          slots keep the value written before the first barrier.
 * Expected values are computed here; the output is poisoned first. */
#include <cuda.h>
#include <stdint.h>
#include <string.h>

#include "drv_test.h"

#define NT 96u      /* three warps */
#define ROUNDS 5u
#define POISON 0xdeadbeefu

/* %r1 = tid, %rd1 = &s[tid], %rd2 = &s[tid ^ 1], %rd3 = &out[tid] (u32);
 * s[tid] = 1000000 + tid, then one converged barrier. */
#define HEAD(name)                                                         \
    ".visible .entry " name "(.param .u64 out)\n"                          \
    "{\n"                                                                  \
    "    .shared .align 4 .b32 s[" "96" "];\n"                             \
    "    .reg .pred %p<4>;\n"                                              \
    "    .reg .b32 %r<12>;\n"                                              \
    "    .reg .b64 %rd<8>;\n"                                              \
    "    ld.param.u64 %rd4, [out];\n"                                      \
    "    cvta.to.global.u64 %rd4, %rd4;\n"                                 \
    "    mov.u32 %r1, %tid.x;\n"                                           \
    "    mov.u64 %rd5, s;\n"                                               \
    "    mul.wide.u32 %rd6, %r1, 4;\n"                                     \
    "    add.s64 %rd1, %rd5, %rd6;\n"                                      \
    "    add.s64 %rd3, %rd4, %rd6;\n"                                      \
    "    xor.b32 %r2, %r1, 1;\n"                                           \
    "    mul.wide.u32 %rd6, %r2, 4;\n"                                     \
    "    add.s64 %rd2, %rd5, %rd6;\n"                                      \
    "    add.u32 %r3, %r1, 1000000;\n"                                     \
    "    st.shared.u32 [%rd1], %r3;\n"                                     \
    "    bar.sync 0;\n"                                                    \
    "    and.b32 %r4, %r1, 1;\n"                                           \
    "    setp.ne.u32 %p1, %r4, 0;\n"

/* even threads: s[t] = 3t; JOIN: barrier, out[t] = s[t ^ 1], return;
 * then the else-arm's label */
#define IF_JOIN                                                            \
    "    @%p1 bra ELSE;\n"                                                 \
    "    mul.lo.u32 %r5, %r1, 3;\n"                                        \
    "    st.shared.u32 [%rd1], %r5;\n"                                     \
    "JOIN:\n"                                                              \
    "    bar.sync 0;\n"                                                    \
    "    ld.shared.u32 %r6, [%rd2];\n"                                     \
    "    st.global.u32 [%rd3], %r6;\n"                                     \
    "    ret;\n"                                                           \
    "ELSE:\n"

static const char ptx[] =
    ".version 8.0\n.target sm_75\n.address_size 64\n"
    /* even: s[t] = 3t; odd: s[t] = 5t + 7; out[t] = s[t ^ 1] */
    HEAD("join")
    IF_JOIN
    "    mad.lo.u32 %r5, %r1, 5, 7;\n"
    "    st.shared.u32 [%rd1], %r5;\n"
    "    bra.uni JOIN;\n"
    "}\n"
    /* round i: even s[t] = 3t + i, odd s[t] = 5t + 7i; barrier;
     * acc = acc * 31 + s[t ^ 1]; barrier; out[t] = acc */
    HEAD("loop")
    "    mov.u32 %r7, 0;\n"
    "    mov.u32 %r8, 0;\n"
    "LOOP:\n"
    "    @%p1 bra ELSE;\n"
    "    mad.lo.u32 %r5, %r1, 3, %r7;\n"
    "    st.shared.u32 [%rd1], %r5;\n"
    "JOIN:\n"
    "    bar.sync 0;\n"
    "    ld.shared.u32 %r6, [%rd2];\n"
    "    mad.lo.u32 %r8, %r8, 31, %r6;\n"
    "    bar.sync 0;\n"
    "    add.u32 %r7, %r7, 1;\n"
    "    setp.lt.u32 %p2, %r7, " "5" ";\n"
    "    @%p2 bra LOOP;\n"
    "    st.global.u32 [%rd3], %r8;\n"
    "    ret;\n"
    "ELSE:\n"
    "    mul.lo.u32 %r9, %r7, 7;\n"
    "    mad.lo.u32 %r5, %r1, 5, %r9;\n"
    "    st.shared.u32 [%rd1], %r5;\n"
    "    bra.uni JOIN;\n"
    "}\n"
    /* as join, but odd threads with t >= 64 or t % 4 == 3 exit in the
     * else-arm (out[t] stays poisoned for them) */
    HEAD("leave")
    IF_JOIN
    "    and.b32 %r9, %r1, 3;\n"
    "    setp.eq.u32 %p2, %r9, 3;\n"
    "    setp.ge.or.u32 %p2, %r1, 64, %p2;\n"
    "    @%p2 bra OUT;\n"
    "    mad.lo.u32 %r5, %r1, 5, 7;\n"
    "    st.shared.u32 [%rd1], %r5;\n"
    "    bra.uni JOIN;\n"
    "OUT:\n"
    "    exit;\n"
    "}\n";

static uint32_t slot(uint32_t t, uint32_t round)
{
    return t & 1 ? 5 * t + 7 * round : 3 * t + round;
}

/* the join and leave kernels' else-arm writes 5t + 7 */
static uint32_t join_slot(uint32_t t)
{
    return t & 1 ? 5 * t + 7 : 3 * t;
}

static uint32_t leaves(uint32_t t)
{
    return (t & 1) && (t >= 64 || (t & 3) == 3);
}

static void run(CUmodule mod, const char *name, CUdeviceptr out, uint32_t *host)
{
    CUfunction fn;
    OK(cuModuleGetFunction(&fn, mod, name));
    OK(cuMemsetD32(out, POISON, NT));
    void *args[] = {&out};
    OK(cuLaunchKernel(fn, 2, 1, 1, NT, 1, 1, 0, NULL, args, NULL));
    OK(cuCtxSynchronize());
    memset(host, 0, NT * 4);
    OK(cuMemcpyDtoH(host, out, NT * 4));
}

int main(void)
{
    CUcontext ctx;
    CUdevice dev = drv_test_primary_ctx(&ctx);
    CUmodule mod;
    OK(cuModuleLoadData(&mod, ptx));
    CUdeviceptr out;
    OK(cuMemAlloc(&out, NT * 4));
    uint32_t got[NT];

    run(mod, "join", out, got);
    for (uint32_t t = 0; t < NT; t++)
        if (got[t] != join_slot(t ^ 1)) {
            printf("FAIL join: thread %u read %u, want %u\n", t, got[t], join_slot(t ^ 1));
            drv_failures++;
            break;
        }

    run(mod, "loop", out, got);
    for (uint32_t t = 0; t < NT; t++) {
        uint32_t acc = 0;
        for (uint32_t i = 0; i < ROUNDS; i++)
            acc = acc * 31 + slot(t ^ 1, i);
        if (got[t] != acc) {
            printf("FAIL loop: thread %u got %u, want %u\n", t, got[t], acc);
            drv_failures++;
            break;
        }
    }

    run(mod, "leave", out, got);
    for (uint32_t t = 0; t < NT; t++) {
        uint32_t p = t ^ 1;
        uint32_t want = leaves(t) ? POISON : leaves(p) ? 1000000 + p : join_slot(p);
        if (got[t] != want) {
            printf("FAIL leave: thread %u got %u, want %u\n", t, got[t], want);
            drv_failures++;
            break;
        }
    }

    OK(cuMemFree(out));
    OK(cuModuleUnload(mod));
    OK(cuDevicePrimaryCtxRelease(dev));
    return drv_test_end("drv_diverged_barrier");
}
