/* test_drv_cluster.c: thread block clusters through the driver API on PTX
 * text: a kernel with .reqnctapercluster and a plain one; function
 * attributes (required shape, non-portable sizes, scheduling policy),
 * cuOccupancyMaxActiveClusters / cuOccupancyMaxPotentialClusterSize against
 * the SM count and per-SM occupancy the driver reports, cuLaunchKernelEx's
 * cluster attribute (errors and a run whose %cluster_ctarank and
 * %cluster_nctarank are checked), a kernel node carrying the attribute. */
#include "drv_test.h"

#include <string.h>

/* out[block] = ctarank | nctarank << 8 | is_explicit << 16 */
#define RANK_BODY                                                        \
    "{\n"                                                                \
    "    .reg .pred %p1;\n"                                              \
    "    .reg .b32 %r<8>;\n"                                             \
    "    .reg .b64 %rd<4>;\n"                                            \
    "    ld.param.u64 %rd1, [out];\n"                                    \
    "    mov.u32 %r1, %tid.x;\n"                                         \
    "    setp.ne.u32 %p1, %r1, 0;\n"                                     \
    "    @%p1 bra DONE;\n"                                               \
    "    mov.u32 %r2, %cluster_ctarank;\n"                               \
    "    mov.u32 %r3, %cluster_nctarank;\n"                              \
    "    mov.pred %p1, %is_explicit_cluster;\n"                          \
    "    selp.u32 %r4, 65536, 0, %p1;\n"                                 \
    "    shl.b32 %r3, %r3, 8;\n"                                         \
    "    or.b32 %r2, %r2, %r3;\n"                                        \
    "    or.b32 %r2, %r2, %r4;\n"                                        \
    "    mov.u32 %r5, %ctaid.x;\n"                                       \
    "    mul.wide.u32 %rd2, %r5, 4;\n"                                   \
    "    add.s64 %rd3, %rd1, %rd2;\n"                                    \
    "    st.global.u32 [%rd3], %r2;\n"                                   \
    "    barrier.cluster.arrive;\n"                                      \
    "    barrier.cluster.wait;\n"                                        \
    "DONE:\n"                                                            \
    "    ret;\n"                                                         \
    "}\n"

static const char ptx[] =
    ".version 8.0\n"
    ".target sm_90\n"
    ".address_size 64\n"
    ".visible .entry fixed(.param .u64 out)\n"
    ".explicitcluster\n"
    ".reqnctapercluster 4, 1, 1\n" RANK_BODY
    ".visible .entry free(.param .u64 out)\n" RANK_BODY
    ".visible .entry must(.param .u64 out)\n"
    ".explicitcluster\n" RANK_BODY
    /* each block stores rank * 10 + 7 into the next rank's word through
     * mapa.shared::cluster + cvta.shared::cluster and a generic store, then
     * reports its own word */
    ".visible .entry xfer(.param .u64 out)\n"
    "{\n"
    "    .reg .b32 %r<8>;\n"
    "    .reg .b64 %rd<6>;\n"
    "    .shared .align 4 .b32 w[1];\n"
    "    mov.u32 %r2, %cluster_ctarank;\n"
    "    mov.u32 %r3, %cluster_nctarank;\n"
    "    add.u32 %r4, %r2, 1;\n"
    "    rem.u32 %r4, %r4, %r3;\n"
    "    mov.u32 %r5, w;\n"
    "    mapa.shared::cluster.u32 %r6, %r5, %r4;\n"
    "    cvt.u64.u32 %rd1, %r6;\n"
    "    cvta.shared::cluster.u64 %rd2, %rd1;\n"
    "    mad.lo.u32 %r7, %r2, 10, 7;\n"
    "    barrier.cluster.arrive;\n"
    "    barrier.cluster.wait;\n"
    "    st.u32 [%rd2], %r7;\n"
    "    barrier.cluster.arrive;\n"
    "    barrier.cluster.wait;\n"
    "    ld.shared.u32 %r7, [w];\n"
    "    mov.u32 %r1, %ctaid.x;\n"
    "    ld.param.u64 %rd3, [out];\n"
    "    mul.wide.u32 %rd4, %r1, 4;\n"
    "    add.s64 %rd5, %rd3, %rd4;\n"
    "    st.global.u32 [%rd5], %r7;\n"
    "    ret;\n"
    "}\n";

static CUlaunchConfig config(unsigned grid, unsigned block, CUlaunchAttribute *a, unsigned cx)
{
    CUlaunchConfig c;
    memset(&c, 0, sizeof c);
    c.gridDimX = grid;
    c.gridDimY = c.gridDimZ = 1;
    c.blockDimX = block;
    c.blockDimY = c.blockDimZ = 1;
    if (cx) {
        memset(a, 0, sizeof *a);
        a->id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
        a->value.clusterDim.x = cx;
        a->value.clusterDim.y = a->value.clusterDim.z = 1;
        c.attrs = a;
        c.numAttrs = 1;
    }
    return c;
}

/* Poisons d's 64 words and runs fn(d) to the end: launched by c, or without
 * attributes over grid blocks of 64 threads when c is NULL. */
static void run(const CUlaunchConfig *c, CUfunction fn, unsigned grid, CUdeviceptr d)
{
    void *args[] = {&d};
    OK(cuMemsetD32(d, 0xdeadbeef, 64));
    if (c)
        OK(cuLaunchKernelEx(c, fn, args, NULL));
    else
        OK(cuLaunchKernel(fn, grid, 1, 1, 64, 1, 1, 0, NULL, args, NULL));
    OK(cuCtxSynchronize());
}

static void check_ranks(CUdeviceptr d, unsigned n, unsigned cs, unsigned expl)
{
    unsigned h[64];
    OK(cuMemcpyDtoH(h, d, n * 4));
    for (unsigned b = 0; b < n; b++)
        if (h[b] != ((b % cs) | cs << 8 | expl << 16)) {
            printf("FAIL block %u: %#x, expected %#x\n", b, h[b], (b % cs) | cs << 8 | expl << 16);
            drv_failures++;
        }
}

int main(void)
{
    CUcontext ctx;
    CUdevice dev = drv_test_primary_ctx(&ctx);
    CUmodule mod;
    CUfunction fixed, fr, must, xfer;
    OK(cuModuleLoadData(&mod, ptx));
    OK(cuModuleGetFunction(&fixed, mod, "fixed"));
    OK(cuModuleGetFunction(&fr, mod, "free"));
    OK(cuModuleGetFunction(&must, mod, "must"));
    OK(cuModuleGetFunction(&xfer, mod, "xfer"));
    int v = -1;
    OK(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH, dev));
    EXPECT(v == 1);

    /* attributes */
    OK(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH, fixed));
    EXPECT(v == 4);
    OK(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET, fixed));
    EXPECT(v == 1);
    OK(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET, fr));
    EXPECT(v == 0);
    EXPECT_RC(cuFuncSetAttribute(fixed, CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH, 2),
              CUDA_ERROR_INVALID_VALUE);
    OK(cuFuncSetAttribute(fr, CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE, 1));
    OK(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE, fr));
    EXPECT(v == 1);
    EXPECT_RC(cuFuncSetAttribute(fr, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 2),
              CUDA_ERROR_INVALID_VALUE);

    /* occupancy against SMs x blocks per SM */
    int sms = 0, per_sm = 0, n = -1;
    OK(cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev));
    OK(cuOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, fr, 256, 0));
    CUlaunchAttribute a;
    CUlaunchConfig c = config(8, 256, &a, 2);
    OK(cuOccupancyMaxActiveClusters(&n, fr, &c));
    EXPECT(n == sms * per_sm / 2);
    c = config(8, 256, &a, 0);
    EXPECT_RC(cuOccupancyMaxActiveClusters(&n, fr, &c), CUDA_ERROR_INVALID_CLUSTER_SIZE);
    OK(cuOccupancyMaxActiveClusters(&n, fixed, &c));    /* its own shape: 4 */
    EXPECT(n == sms * per_sm / 4);
    OK(cuOccupancyMaxPotentialClusterSize(&n, fixed, &c));
    EXPECT(n == 4);
    OK(cuOccupancyMaxPotentialClusterSize(&n, fr, &c));
    EXPECT(n == (sms * per_sm < 8 ? sms * per_sm : 8));

    /* launches */
    CUdeviceptr d;
    OK(cuMemAlloc(&d, 64 * 4));
    void *args[] = {&d};
    run(NULL, fixed, 8, d);
    check_ranks(d, 8, 4, 1);
    EXPECT_RC(cuLaunchKernel(fixed, 6, 1, 1, 64, 1, 1, 0, NULL, args, NULL),
              CUDA_ERROR_INVALID_CLUSTER_SIZE);
    c = config(12, 64, &a, 3);
    run(&c, fr, 0, d);
    check_ranks(d, 12, 3, 1);
    run(NULL, fr, 5, d);
    check_ranks(d, 5, 1, 0);    /* the implicit 1x1x1 cluster */
    c = config(12, 64, &a, 12);
    EXPECT_RC(cuLaunchKernelEx(&c, fr, args, NULL), CUDA_ERROR_INVALID_CLUSTER_SIZE);
    OK(cuFuncSetAttribute(fr, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1));
    run(&c, fr, 0, d);
    check_ranks(d, 12, 12, 1);
    c = config(12, 64, &a, 2);
    EXPECT_RC(cuLaunchKernelEx(&c, fixed, args, NULL), CUDA_ERROR_INVALID_CLUSTER_SIZE);

    /* a required width set on the function: plain launches use it, a launch
     * attribute must match it */
    OK(cuFuncSetAttribute(fr, CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH, 2));
    OK(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH, fr));
    EXPECT(v == 2);
    run(NULL, fr, 10, d);
    check_ranks(d, 10, 2, 1);
    c = config(12, 64, &a, 4);
    EXPECT_RC(cuLaunchKernelEx(&c, fr, args, NULL), CUDA_ERROR_INVALID_CLUSTER_SIZE);
    OK(cuFuncSetAttribute(fr, CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH, 0));

    /* .explicitcluster: a shape must be given */
    OK(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET, must));
    EXPECT(v == 1);
    EXPECT_RC(cuLaunchKernel(must, 4, 1, 1, 64, 1, 1, 0, NULL, args, NULL),
              CUDA_ERROR_INVALID_CLUSTER_SIZE);
    c = config(4, 64, &a, 2);
    run(&c, must, 0, d);
    check_ranks(d, 4, 2, 1);

    /* a generic store into the next rank's shared word */
    c = config(12, 32, &a, 3);
    run(&c, xfer, 0, d);
    unsigned hx[12];
    OK(cuMemcpyDtoH(hx, d, sizeof hx));
    for (unsigned b = 0; b < 12; b++)
        EXPECT(hx[b] == ((b % 3 + 2) % 3) * 10 + 7);

    /* cooperative and clustered at once: refused */
    CUlaunchAttribute two[2];
    c = config(4, 64, &two[0], 2);
    memset(&two[1], 0, sizeof two[1]);
    two[1].id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
    two[1].value.cooperative = 1;
    c.numAttrs = 2;
    EXPECT_RC(cuLaunchKernelEx(&c, fr, args, NULL), CUDA_ERROR_NOT_SUPPORTED);

    /* a kernel node with the attribute */
    CUgraph g;
    CUgraphNode node;
    CUgraphExec x;
    CUDA_KERNEL_NODE_PARAMS kp;
    memset(&kp, 0, sizeof kp);
    kp.func = fr;
    kp.gridDimX = 8;
    kp.gridDimY = kp.gridDimZ = 1;
    kp.blockDimX = 32;
    kp.blockDimY = kp.blockDimZ = 1;
    kp.kernelParams = args;
    OK(cuGraphCreate(&g, 0));
    OK(cuGraphAddKernelNode(&node, g, NULL, 0, &kp));
    CUlaunchAttributeValue av;
    memset(&av, 0, sizeof av);
    av.clusterDim.x = 3;
    av.clusterDim.y = av.clusterDim.z = 1;
    EXPECT_RC(cuGraphKernelNodeSetAttribute(node, CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION, &av),
              CUDA_ERROR_INVALID_CLUSTER_SIZE);     /* 8 blocks */
    av.clusterDim.x = 4;
    OK(cuGraphKernelNodeSetAttribute(node, CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION, &av));
    memset(&av, 0, sizeof av);
    OK(cuGraphKernelNodeGetAttribute(node, CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION, &av));
    EXPECT(av.clusterDim.x == 4 && av.clusterDim.y == 1);
    OK(cuGraphInstantiate(&x, g, 0));
    OK(cuMemsetD32(d, 0xdeadbeef, 64));
    OK(cuGraphLaunch(x, NULL));
    OK(cuCtxSynchronize());
    check_ranks(d, 8, 4, 1);
    OK(cuGraphExecDestroy(x));
    OK(cuGraphDestroy(g));

    OK(cuMemFree(d));
    OK(cuModuleUnload(mod));
    OK(cuDevicePrimaryCtxRelease(dev));
    return drv_test_end("drv_cluster");
}
