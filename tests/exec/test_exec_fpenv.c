/* test_exec_fpenv.c: kernels run in PTX's default floating-point
 * environment (round to nearest, subnormals kept) whatever the launching
 * thread's is, on the plain path and on warp fibers (kernels with
 * barriers), and the host thread's own setting is back after the launch.
 * The fiber switch does not save the control register per warp
 * (zn_fpenv.h), so this is what keeps a host's -ffast-math
 * (flush-to-zero) or fesetround out of kernel results. */
#include "exec_test.h"

#if defined(__x86_64__)
#include <xmmintrin.h>

enum { THREADS = 128 };

/* Per lane: the control register it ran with (exception flags masked
 * off), 1e-30f * 1e-10f (a subnormal) and 1 + 2^-30 (rounds to 1 at
 * nearest, up otherwise). A barrier between, when asked, so each warp
 * resumes on its fiber after the others ran. params: uint32_t *out,
 * float *in (1e-30f, 1e-10f, 2^-30), uint32_t barrier */
static int32_t k_fpenv(zn_warp_ctx *w)
{
    uint32_t *out = TEST_PARAM(w, uint32_t *, 0);
    volatile float *in = TEST_PARAM(w, float *, 8);
    uint32_t bar = TEST_PARAM(w, uint32_t, 16);
    if (bar)
        w->rt->barrier(w, 0, 0, 0);
    for (uint32_t lane = 0; lane < 32; lane++) {
        uint32_t t = (uint32_t)test_block_linear(w->block) * THREADS + w->warpid * 32 + lane;
        float sub = in[0] * in[1], one = 1.0f + in[2];
        out[t * 3] = _mm_getcsr() & ~0x3Fu;
        memcpy(&out[t * 3 + 1], &sub, 4);
        memcpy(&out[t * 3 + 2], &one, 4);
        if (bar && lane == 7)
            w->rt->barrier(w, 0, 0, 0);
    }
    return ZN_KSTATUS_OK;
}

static void check(uint32_t nblocks, uint32_t bar)
{
    size_t n = (size_t)nblocks * THREADS * 3;
    uint32_t *out = zn_mem_alloc(n * 4, 0, ZN_MEM_DEVICE);
    float *in = zn_mem_alloc(16, 0, ZN_MEM_DEVICE);
    CHECK(out && in);
    memset(out, 0xee, n * 4);
    in[0] = 1e-30f;
    in[1] = 1e-10f;
    in[2] = 0x1p-30f;
    struct { uint32_t *out; float *in; uint32_t bar; } p = {out, in, bar};
    zn_launch l = test_launch(k_fpenv, nblocks, 1, 1, THREADS, 1, 1, &p);
    l.uses_barrier = bar;
    /* flush-to-zero, denormals-are-zero, round up */
    uint32_t host = (_mm_getcsr() & ~0x3Fu) | 0x8040u | 0x4000u;
    _mm_setcsr(host);
    int32_t st = zn_exec_launch(&l);
    uint32_t after = _mm_getcsr() & ~0x3Fu;
    _mm_setcsr(0x1F80);
    CHECK_EQ(st, ZN_KSTATUS_OK);
    CHECK_EQ(after, host);
    volatile float a = 1e-30f, b = 1e-10f, c = 0x1p-30f;
    float want_sub = a * b, want_one = 1.0f + c;   /* computed at the default */
    uint32_t ws, wo;
    memcpy(&ws, &want_sub, 4);
    memcpy(&wo, &want_one, 4);
    CHECK(ws != 0 && wo == 0x3f800000u);
    for (size_t t = 0; t < n / 3; t++) {
        CHECK_EQ(out[t * 3], 0x1F80u);
        CHECK_EQ(out[t * 3 + 1], ws);
        CHECK_EQ(out[t * 3 + 2], wo);
    }
    CHECK_EQ(zn_mem_free(out), 0);
    CHECK_EQ(zn_mem_free(in), 0);
}

int main(void)
{
    CHECK_EQ(zn_exec_init(2), 0);
    check(1, 0);
    check(37, 0);
    check(1, 1);
    check(37, 1);
    printf("exec_fpenv: ok\n");
    return 0;
}
#else
int main(void)
{
    printf("exec_fpenv: x86-64 only, skipped\n");
    return 0;
}
#endif
