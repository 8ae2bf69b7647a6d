/* graph_test.h: what the graph driver tests share: checking macros, a PTX
 * module with one kernel, and a context/stream fixture.
 *
 * fill(out, n, v) writes out[i] = i * 3 + v for i < n (one thread each). */
#ifndef GRAPH_TEST_H
#define GRAPH_TEST_H

#include <cuda.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static int gt_failures;

#define EXPECT(cond) do { if (!(cond)) { \
    printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond); gt_failures++; } } while (0)
#define EXPECT_RC(call, want) do { CUresult r_ = (call); if (r_ != (want)) { \
    const char *n_ = NULL; cuGetErrorName(r_, &n_); \
    printf("FAIL %s:%d: %s -> %d (%s), want %d\n", __FILE__, __LINE__, #call, (int)r_, \
           n_ ? n_ : "?", (int)(want)); gt_failures++; } } while (0)
#define OK(call) EXPECT_RC(call, CUDA_SUCCESS)

static const char gt_ptx[] =
    ".version 8.0\n"
    ".target sm_75\n"
    ".address_size 64\n"
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

typedef struct gt_fixture {
    CUcontext ctx;
    CUmodule mod;
    CUfunction fill;
    CUstream s;
} gt_fixture;

static inline int gt_setup(gt_fixture *f)
{
    CUdevice dev;
    if (cuInit(0) || cuDeviceGet(&dev, 0) || cuDevicePrimaryCtxRetain(&f->ctx, dev) ||
        cuCtxSetCurrent(f->ctx) || cuModuleLoadData(&f->mod, gt_ptx) ||
        cuModuleGetFunction(&f->fill, f->mod, "fill") ||
        cuStreamCreate(&f->s, CU_STREAM_NON_BLOCKING)) {
        printf("FAIL setup\n");
        return -1;
    }
    return 0;
}

static inline void gt_teardown(gt_fixture *f)
{
    OK(cuStreamDestroy(f->s));
    OK(cuModuleUnload(f->mod));
    OK(cuDevicePrimaryCtxRelease(0));
}

/* Kernel node parameters for fill(out, n, v); args must outlive the call. */
static inline CUDA_KERNEL_NODE_PARAMS gt_fill_params(const gt_fixture *f, void **args,
                                                     unsigned n)
{
    CUDA_KERNEL_NODE_PARAMS p;
    memset(&p, 0, sizeof p);
    p.func = f->fill;
    p.gridDimX = (n + 63) / 64;
    p.gridDimY = p.gridDimZ = 1;
    p.blockDimX = 64;
    p.blockDimY = p.blockDimZ = 1;
    p.kernelParams = args;
    return p;
}

/* Counts the words of d[0..n) (device memory) that differ from want(i). */
static inline unsigned gt_check_fill(CUdeviceptr d, unsigned n, uint32_t v)
{
    uint32_t h[4096];
    if (n > 4096 || cuMemcpyDtoH(h, d, n * 4) != CUDA_SUCCESS)
        return n ? n : 1;
    unsigned bad = 0;
    for (unsigned i = 0; i < n; i++)
        bad += h[i] != i * 3 + v;
    return bad;
}

/* Counts the words of d[0..n) that differ from the constant v. */
static inline unsigned gt_check_const(CUdeviceptr d, unsigned n, uint32_t v)
{
    uint32_t h[4096];
    if (n > 4096 || cuMemcpyDtoH(h, d, n * 4) != CUDA_SUCCESS)
        return n ? n : 1;
    unsigned bad = 0;
    for (unsigned i = 0; i < n; i++)
        bad += h[i] != v;
    return bad;
}

static inline int gt_end(const char *name)
{
    if (gt_failures) {
        printf("FAIL %s: %d failures\n", name, gt_failures);
        return 1;
    }
    printf("PASS %s\n", name);
    return 0;
}

#endif
