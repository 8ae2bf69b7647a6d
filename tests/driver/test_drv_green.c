/* test_drv_green: green contexts, SM partitions of the device (an SM of
 * Zinc's device is one executor worker):
 * - resources: the device's SMs, a split into groups and a remainder, the
 *   split's rules (no second split, descriptors of one split only, counts
 *   in range), descriptors;
 * - a green context of one SM: its converted context, resources, id,
 *   streams (cuGreenCtxStreamCreate and streams made while it is current),
 *   cuStreamGetGreenCtx / cuStreamGetCtx_v2, and a grid of 64 blocks run
 *   in it: every block reports the same %smid (one worker), where the
 *   primary context's grids may use every worker;
 * - events: a record on the primary context covers the green context's
 *   work; cuGreenCtxRecordEvent; misuse and destruction. */
#include "drv_test.h"

#include <stdint.h>
#include <string.h>
#include <unistd.h>

/* smid(out): out[ctaid.x] = %smid after a short busy loop (so that the
 * blocks of a grid overlap in time and every worker that may run them
 * does) */
static const char smid_ptx[] =
    DRV_PTX_HEAD
    ".visible .entry smid(.param .u64 out)\n"
    "{\n"
    "    .reg .pred %p<2>;\n"
    "    .reg .b32 %r<6>;\n"
    "    .reg .b64 %rd<4>;\n"
    "    mov.u32 %r1, 0;\n"
    "LOOP:\n"
    "    add.u32 %r1, %r1, 1;\n"
    "    setp.lt.u32 %p1, %r1, 200000;\n"
    "    @%p1 bra LOOP;\n"
    "    mov.u32 %r2, %tid.x;\n"
    "    setp.ne.u32 %p1, %r2, 0;\n"
    "    @%p1 bra DONE;\n"
    "    ld.param.u64 %rd1, [out];\n"
    "    cvta.to.global.u64 %rd1, %rd1;\n"
    "    mov.u32 %r3, %ctaid.x;\n"
    "    mul.wide.u32 %rd2, %r3, 4;\n"
    "    add.s64 %rd3, %rd1, %rd2;\n"
    "    mov.u32 %r4, %smid;\n"
    "    st.global.u32 [%rd3], %r4;\n"
    "DONE:\n"
    "    ret;\n"
    "}\n";

#define BLOCKS 64

/* distinct %smid values of a 64-block grid run on stream s */
static int distinct_smids(CUfunction f, CUdeviceptr out, CUstream s)
{
    OK(cuMemsetD32(out, 0xffffffffu, BLOCKS));
    void *args[] = { &out };
    OK(cuLaunchKernel(f, BLOCKS, 1, 1, 32, 1, 1, 0, s, args, NULL));
    OK(cuStreamSynchronize(s));
    uint32_t ids[BLOCKS];
    OK(cuMemcpyDtoH(ids, out, sizeof ids));
    uint64_t seen = 0;
    for (int i = 0; i < BLOCKS; i++) {
        if (ids[i] >= 64) {
            printf("FAIL block %d: %%smid %u\n", i, ids[i]);
            drv_failures++;
            return -1;
        }
        seen |= 1ull << ids[i];
    }
    return __builtin_popcountll(seen);
}



int main(void)
{
    CUcontext primary;
    CUdevice dev = drv_test_primary_ctx(&primary);
    int sms = 0;
    OK(cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev));

    /* resources and splits */
    CUdevResource all, again, groups[64], rest;
    memset(&all, 0, sizeof all);
    OK(cuDeviceGetDevResource(dev, &all, CU_DEV_RESOURCE_TYPE_SM));
    EXPECT(all.type == CU_DEV_RESOURCE_TYPE_SM && (int)all.sm.smCount == sms);
    EXPECT(all.sm.minSmPartitionSize == 1 && all.sm.smCoscheduledAlignment == 1);
    EXPECT_RC(cuDeviceGetDevResource(dev, &again, CU_DEV_RESOURCE_TYPE_INVALID),
              CUDA_ERROR_INVALID_RESOURCE_TYPE);
    EXPECT_RC(cuDeviceGetDevResource(1, &again, CU_DEV_RESOURCE_TYPE_SM),
              CUDA_ERROR_INVALID_DEVICE);
    unsigned n = 0;
    OK(cuDevSmResourceSplitByCount(NULL, &n, &all, NULL, 0, 1));
    EXPECT((int)n == sms);
    n = 1;
    OK(cuDevSmResourceSplitByCount(groups, &n, &all, &rest, 0, 1));
    EXPECT(n == 1 && groups[0].sm.smCount == 1 && (int)rest.sm.smCount == sms - 1);
    EXPECT_RC(cuDevSmResourceSplitByCount(groups, &n, &all, NULL, 0, (unsigned)sms + 1),
              CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(cuDevSmResourceSplitByCount(groups, &n, &all, NULL, 8, 1),
              CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(cuDevSmResourceSplitByCount(NULL, &n, &groups[0], NULL, 0, 1),
              CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION);
    CUdevResourceDesc desc, both, mixed;
    OK(cuDevResourceGenerateDesc(&desc, groups, 1));
    CUdevResource pair[2] = { groups[0], rest };
    if (sms > 1)
        OK(cuDevResourceGenerateDesc(&both, pair, 2));
    pair[1] = all;
    EXPECT_RC(cuDevResourceGenerateDesc(&mixed, pair, 2),
              CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION);
    EXPECT_RC(cuDevResourceGenerateDesc(&mixed, pair, 0), CUDA_ERROR_INVALID_VALUE);

    /* a green context of one SM */
    CUgreenCtx g = NULL;
    EXPECT_RC(cuGreenCtxCreate(&g, desc, dev, 0), CUDA_ERROR_INVALID_VALUE);
    OK(cuGreenCtxCreate(&g, desc, dev, CU_GREEN_CTX_DEFAULT_STREAM));
    CUcontext gctx = NULL, cur = NULL;
    OK(cuCtxFromGreenCtx(&gctx, g));
    EXPECT(gctx && gctx != primary);
    OK(cuCtxGetCurrent(&cur));
    EXPECT(cur == primary);         /* creation does not make it current */
    CUdevResource gr;
    OK(cuGreenCtxGetDevResource(g, &gr, CU_DEV_RESOURCE_TYPE_SM));
    EXPECT(gr.sm.smCount == 1);
    OK(cuCtxGetDevResource(gctx, &gr, CU_DEV_RESOURCE_TYPE_SM));
    EXPECT(gr.sm.smCount == 1);
    OK(cuCtxGetDevResource(primary, &gr, CU_DEV_RESOURCE_TYPE_SM));
    EXPECT((int)gr.sm.smCount == sms);
    unsigned long long id = 0, id2 = 0;
    OK(cuGreenCtxGetId(g, &id));
    EXPECT(id != 0);
    EXPECT_RC(cuGreenCtxGetId(NULL, &id2), CUDA_ERROR_INVALID_CONTEXT);

    CUmodule mod;
    CUfunction f;
    CUdeviceptr out;
    OK(cuModuleLoadData(&mod, smid_ptx));
    OK(cuModuleGetFunction(&f, mod, "smid"));
    OK(cuMemAlloc(&out, BLOCKS * 4));

    CUstream gs, made, none = NULL;
    EXPECT_RC(cuGreenCtxStreamCreate(&gs, g, 0, 0), CUDA_ERROR_INVALID_VALUE);
    OK(cuGreenCtxStreamCreate(&gs, g, CU_STREAM_NON_BLOCKING, 0));
    CUgreenCtx sg = NULL;
    CUcontext sc = NULL;
    OK(cuStreamGetGreenCtx(gs, &sg));
    EXPECT(sg == g);
    OK(cuStreamGetCtx_v2(gs, &sc, &sg));
    EXPECT(sc == primary && sg == g);
    /* grids of the green context run on one worker */
    EXPECT(distinct_smids(f, out, gs) == 1);
    /* while it is current, new streams and the legacy stream are its own */
    OK(cuCtxSetCurrent(gctx));
    OK(cuGreenCtxGetId(NULL, &id2));
    EXPECT(id2 == id);
    OK(cuStreamCreate(&made, CU_STREAM_NON_BLOCKING));
    OK(cuStreamGetGreenCtx(made, &sg));
    EXPECT(sg == g);
    OK(cuStreamGetGreenCtx(none, &sg));
    EXPECT(sg == g);
    EXPECT(distinct_smids(f, out, made) == 1);
    EXPECT(distinct_smids(f, out, NULL) == 1);
    OK(cuStreamDestroy(made));
    OK(cuCtxSetCurrent(primary));
    OK(cuStreamGetGreenCtx(none, &sg));
    EXPECT(sg == NULL);
    int wide = distinct_smids(f, out, NULL);
    EXPECT(wide >= 1 && wide <= sms);

    /* a record on the primary context covers the green context's work; a
     * record on the green context too */
    int done = 0, done2 = 0, gate = 0, gate2 = 0;
    drv_gated g1 = { &gate, &done }, g2 = { &gate2, &done2 };
    CUevent e, eg;
    OK(cuEventCreate(&e, 0));
    OK(cuLaunchHostFunc(gs, drv_gated_set, &g1));
    OK(cuCtxRecordEvent(primary, e));
    EXPECT_RC(cuEventQuery(e), CUDA_ERROR_NOT_READY);
    drv_open_gate(&gate);
    OK(cuEventSynchronize(e));
    EXPECT(__atomic_load_n(&done, __ATOMIC_SEQ_CST) == 1);
    OK(cuCtxSetCurrent(gctx));
    OK(cuEventCreate(&eg, 0));
    OK(cuCtxSetCurrent(primary));
    OK(cuLaunchHostFunc(gs, drv_gated_set, &g2));
    OK(cuGreenCtxRecordEvent(g, eg));
    EXPECT_RC(cuEventQuery(eg), CUDA_ERROR_NOT_READY);
    drv_open_gate(&gate2);
    OK(cuEventSynchronize(eg));
    EXPECT(__atomic_load_n(&done2, __ATOMIC_SEQ_CST) == 1);
    OK(cuGreenCtxWaitEvent(g, eg));
    OK(cuEventDestroy(e));
    OK(cuEventDestroy(eg));

    /* destruction; misuse */
    OK(cuStreamDestroy(gs));
    EXPECT_RC(cuCtxDestroy(gctx), CUDA_ERROR_INVALID_CONTEXT);
    OK(cuGreenCtxDestroy(g));
    EXPECT_RC(cuGreenCtxDestroy(g), CUDA_ERROR_INVALID_HANDLE);
    EXPECT_RC(cuCtxFromGreenCtx(&gctx, g), CUDA_ERROR_INVALID_HANDLE);
    EXPECT_RC(cuGreenCtxStreamCreate(&gs, NULL, CU_STREAM_NON_BLOCKING, 0),
              CUDA_ERROR_INVALID_HANDLE);
    OK(cuMemFree(out));
    OK(cuModuleUnload(mod));
    OK(cuDevicePrimaryCtxRelease(dev));
    return drv_test_end("drv_green");
}
