/* drv_test.h: what the driver-API tests share: the checking macros (each
 * failure prints FAIL with file:line and counts), the opening on device 0's
 * primary context, a PTX kernel several tests launch, and the PASS/FAIL
 * ending; main returns drv_test_end(). */
#ifndef DRV_TEST_H
#define DRV_TEST_H

#include <cuda.h>
#include <stdio.h>
#include <time.h>

static int drv_failures;

#define EXPECT(cond) do { if (!(cond)) { \
    printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond); drv_failures++; } } while (0)
#define EXPECT_RC(call, want) do { CUresult r_ = (call); if (r_ != (want)) { \
    const char *n_ = NULL; cuGetErrorName(r_, &n_); \
    printf("FAIL %s:%d: %s -> %d (%s), want %d\n", __FILE__, __LINE__, #call, (int)r_, \
           n_ ? n_ : "?", (int)(want)); drv_failures++; } } while (0)
#define OK(call) EXPECT_RC(call, CUDA_SUCCESS)

/* the first lines of the tests' PTX modules */
#define DRV_PTX_HEAD ".version 8.0\n.target sm_75\n.address_size 64\n"

/* fill(out, n, v) writes out[i] = i * 3 + v for i < n, one thread each
 * (any grid shape). */
static const char drv_fill_ptx[] =
    DRV_PTX_HEAD
    ".visible .entry fill(.param .u64 out, .param .u32 n, .param .u32 v)\n"
    "{\n"
    "    .reg .pred %p<2>;\n"
    "    .reg .b32 %r<8>;\n"
    "    .reg .b64 %rd<4>;\n"
    "    ld.param.u64 %rd1, [out];\n"
    "    ld.param.u32 %r1, [n];\n"
    "    ld.param.u32 %r2, [v];\n"
    "    mov.u32 %r3, %ctaid.x;\n"
    "    mov.u32 %r4, %ntid.x;\n"
    "    mov.u32 %r5, %tid.x;\n"
    "    mad.lo.s32 %r6, %r3, %r4, %r5;\n"
    "    setp.ge.s32 %p1, %r6, %r1;\n"
    "    @%p1 bra DONE;\n"
    "    mad.lo.s32 %r7, %r6, 3, %r2;\n"
    "    cvta.to.global.u64 %rd2, %rd1;\n"
    "    mul.wide.s32 %rd3, %r6, 4;\n"
    "    add.s64 %rd2, %rd2, %rd3;\n"
    "    st.global.u32 [%rd2], %r7;\n"
    "DONE:\n"
    "    ret;\n"
    "}\n";

/* cuInit, device 0, its primary context retained and made current: every
 * test's opening. Failures count as OK's do. *ctx may be NULL; the caller
 * releases the primary context of the device returned. */
static inline CUdevice drv_test_primary_ctx(CUcontext *ctx)
{
    CUdevice dev = 0;
    CUcontext c = NULL;
    OK(cuInit(0));
    OK(cuDeviceGet(&dev, 0));
    OK(cuDevicePrimaryCtxRetain(&c, dev));
    OK(cuCtxSetCurrent(c));
    if (ctx)
        *ctx = c;
    return dev;
}

/* A host function (cuLaunchHostFunc) that stands for slow work the test
 * controls: it sets *flag once the test opens *gate. */
typedef struct drv_gated {
    int *gate, *flag;
} drv_gated;

static inline void CUDA_CB drv_gated_set(void *p)
{
    drv_gated *g = p;
    const struct timespec nap = { 0, 500000 };
    while (!__atomic_load_n(g->gate, __ATOMIC_SEQ_CST))
        nanosleep(&nap, NULL);
    __atomic_store_n(g->flag, 1, __ATOMIC_SEQ_CST);
}

static inline void drv_open_gate(int *gate)
{
    __atomic_store_n(gate, 1, __ATOMIC_SEQ_CST);
}

/* Prints PASS <name> or the failure count; the process's exit status. */
static inline int drv_test_end(const char *name)
{
    if (drv_failures) {
        printf("FAIL %s: %d failures\n", name, drv_failures);
        return 1;
    }
    printf("PASS %s\n", name);
    return 0;
}

#endif
