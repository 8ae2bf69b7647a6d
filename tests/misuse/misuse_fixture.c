/* misuse_fixture.c: builds the handles of misuse_fixture.h and checks that
 * the driver still works after a row. */
#include "misuse_fixture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

misuse_fixture fx;

const char misuse_ptx[] =
    ".version 7.0\n.target sm_75\n.address_size 64\n"
    ".global .align 4 .u32 gvar[4];\n"
    ".visible .entry inc(.param .u64 inc_p, .param .u32 inc_n)\n"
    "{\n"
    "    .reg .pred %p<2>;\n    .reg .b32 %r<8>;\n    .reg .b64 %rd<4>;\n"
    "    ld.param.u64 %rd1, [inc_p];\n    ld.param.u32 %r1, [inc_n];\n"
    "    mov.u32 %r2, %ctaid.x;\n    mov.u32 %r3, %ntid.x;\n    mov.u32 %r4, %tid.x;\n"
    "    mad.lo.s32 %r5, %r2, %r3, %r4;\n"
    "    setp.ge.u32 %p1, %r5, %r1;\n    @%p1 bra DONE;\n"
    "    cvta.to.global.u64 %rd2, %rd1;\n    mul.wide.u32 %rd3, %r5, 4;\n"
    "    add.s64 %rd2, %rd2, %rd3;\n"
    "    ld.global.u32 %r6, [%rd2];\n    add.s32 %r6, %r6, 1;\n    st.global.u32 [%rd2], %r6;\n"
    "DONE:\n    ret;\n}\n";

#define TRY(call) do { CUresult r_ = (call); if (r_ != CUDA_SUCCESS) { \
    printf("    setup: %s -> %d\n", #call, (int)r_); return -1; } } while (0)

static void host_fn(void *u) { (void)u; }

int misuse_setup(void)
{
    size_t sz;
    TRY(cuInit(0));
    TRY(cuDeviceGet(&fx.dev, 0));
    TRY(cuDevicePrimaryCtxRetain(&fx.ctx, fx.dev));
    TRY(cuCtxSetCurrent(fx.ctx));
    TRY(cuModuleLoadData(&fx.mod, misuse_ptx));
    TRY(cuModuleGetFunction(&fx.fn, fx.mod, "inc"));
    TRY(cuModuleGetGlobal(&fx.gvar, &sz, fx.mod, "gvar"));
    TRY(cuMemAlloc(&fx.dptr, FX_BYTES));
    TRY(cuStreamCreate(&fx.stream, CU_STREAM_NON_BLOCKING));
    TRY(cuEventCreate(&fx.event, 0));
    TRY(cuEventCreate(&fx.event2, 0));
    TRY(cuEventCreate(&fx.event_notime, CU_EVENT_DISABLE_TIMING));
    TRY(cuEventCreate(&fx.event_unrecorded, 0));
    TRY(cuEventRecord(fx.event, fx.stream));
    TRY(cuEventRecord(fx.event2, fx.stream));
    TRY(cuEventRecord(fx.event_notime, fx.stream));
    TRY(cuLibraryLoadData(&fx.lib, misuse_ptx, NULL, NULL, 0, NULL, NULL, 0));
    TRY(cuLibraryGetKernel(&fx.kernel, fx.lib, "inc"));
    TRY(cuMemAllocHost(&fx.host, FX_BYTES));
    fx.plain = calloc(1, FX_BYTES);
    TRY(cuGraphCreate(&fx.graph, 0));
    CUDA_HOST_NODE_PARAMS hp = { .fn = host_fn, .userData = NULL };
    TRY(cuGraphAddHostNode(&fx.host_node, fx.graph, NULL, 0, &hp));
    TRY(cuGraphInstantiate(&fx.exec, fx.graph, 0));

    /* the dead ones */
    TRY(cuCtxCreate(&fx.dead_ctx, NULL, 0, fx.dev));
    TRY(cuCtxDestroy(fx.dead_ctx));
    TRY(cuCtxSetCurrent(fx.ctx));
    TRY(cuModuleLoadData(&fx.dead_mod, misuse_ptx));
    TRY(cuModuleGetFunction(&fx.dead_fn, fx.dead_mod, "inc"));
    TRY(cuModuleUnload(fx.dead_mod));
    TRY(cuMemAlloc(&fx.dead_dptr, FX_BYTES));
    TRY(cuMemFree(fx.dead_dptr));
    TRY(cuStreamCreate(&fx.dead_stream, 0));
    TRY(cuStreamDestroy(fx.dead_stream));
    TRY(cuEventCreate(&fx.dead_event, 0));
    TRY(cuEventDestroy(fx.dead_event));
    TRY(cuLibraryLoadData(&fx.dead_lib, misuse_ptx, NULL, NULL, 0, NULL, NULL, 0));
    TRY(cuLibraryUnload(fx.dead_lib));
    TRY(cuGraphCreate(&fx.dead_graph, 0));
    TRY(cuGraphInstantiate(&fx.dead_exec, fx.dead_graph, 0));
    TRY(cuGraphExecDestroy(fx.dead_exec));
    TRY(cuGraphDestroy(fx.dead_graph));
    return 0;
}

int misuse_sanity(void)
{
    CUcontext cur = NULL;
    TRY(cuCtxGetCurrent(&cur));
    if (cur != fx.ctx) {
        printf("    sanity: the current context changed\n");
        return -1;
    }
    unsigned n = FX_BYTES / 4;
    uint32_t out[FX_BYTES / 4];
    TRY(cuMemsetD32(fx.dptr, 41, n));
    void *args[] = { &fx.dptr, &n };
    TRY(cuLaunchKernel(fx.fn, 2, 1, 1, 32, 1, 1, 0, fx.stream, args, NULL));
    TRY(cuStreamSynchronize(fx.stream));
    TRY(cuMemcpyDtoH(out, fx.dptr, sizeof out));
    for (unsigned i = 0; i < n; i++)
        if (out[i] != 42) {
            printf("    sanity: element %u is %u after the kernel, want 42\n", i, out[i]);
            return -1;
        }
    TRY(cuCtxSynchronize());
    TRY(cuStreamQuery(fx.stream));
    TRY(cuEventQuery(fx.event));
    return 0;
}
