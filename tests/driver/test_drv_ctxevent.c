/* test_drv_ctxevent: context-wide events (cuCtxRecordEvent, cuCtxWaitEvent).
 * Host functions that wait for a gate the test opens (or sleep) and then
 * set a flag stand for slow work:
 * - a context record covers the work of every stream at the time of the
 *   call (a blocking and a non-blocking stream): not ready while their
 *   gate is shut, and after cuEventSynchronize both flags are set; work
 *   queued after the record (behind a second gate) is not part of it;
 * - after cuCtxWaitEvent on an event recorded behind a slow function,
 *   work queued on an existing non-blocking stream, on the legacy stream
 *   and on a stream created after the call all see its flag set;
 * - misuse: another context's event, a dead event, no context, a context
 *   with a capturing stream. */
#include "drv_test.h"

#include <stdint.h>
#include <unistd.h>

#define SLOW_US 300000

static void CUDA_CB slow_set(void *p)
{
    usleep(SLOW_US);
    __atomic_store_n((int *)p, 1, __ATOMIC_SEQ_CST);
}

typedef struct reader {
    int *flag;
    int seen;
} reader;

static void CUDA_CB read_flag(void *p)
{
    reader *r = p;
    r->seen = __atomic_load_n(r->flag, __ATOMIC_SEQ_CST);
}

static void record(CUcontext ctx)
{
    CUstream a, b;
    OK(cuStreamCreate(&a, 0));
    OK(cuStreamCreate(&b, CU_STREAM_NON_BLOCKING));
    int fa = 0, fb = 0, later = 0, first = 0, second = 0;
    drv_gated ga = { &first, &fa }, gb = { &first, &fb }, gl = { &second, &later };
    OK(cuLaunchHostFunc(a, drv_gated_set, &ga));
    OK(cuLaunchHostFunc(b, drv_gated_set, &gb));
    CUevent e;
    OK(cuEventCreate(&e, 0));
    OK(cuCtxRecordEvent(ctx, e));
    EXPECT_RC(cuEventQuery(e), CUDA_ERROR_NOT_READY);
    OK(cuLaunchHostFunc(a, drv_gated_set, &gl));       /* after the record */
    drv_open_gate(&first);
    OK(cuEventSynchronize(e));      /* would wait for ever if it covered gl */
    EXPECT(__atomic_load_n(&fa, __ATOMIC_SEQ_CST) == 1);
    EXPECT(__atomic_load_n(&fb, __ATOMIC_SEQ_CST) == 1);
    EXPECT(__atomic_load_n(&later, __ATOMIC_SEQ_CST) == 0);
    OK(cuEventQuery(e));
    drv_open_gate(&second);
    OK(cuStreamSynchronize(a));
    EXPECT(later == 1);
    /* a record with nothing pending is complete */
    OK(cuCtxRecordEvent(ctx, e));
    OK(cuEventSynchronize(e));
    OK(cuEventDestroy(e));
    OK(cuStreamDestroy(a));
    OK(cuStreamDestroy(b));
}

static void wait(CUcontext ctx)
{
    CUstream a, b, c;
    OK(cuStreamCreate(&a, CU_STREAM_NON_BLOCKING));
    OK(cuStreamCreate(&b, CU_STREAM_NON_BLOCKING));
    int x = 0;
    CUevent e, never;
    OK(cuEventCreate(&e, CU_EVENT_DISABLE_TIMING));
    OK(cuEventCreate(&never, 0));
    OK(cuCtxWaitEvent(ctx, never));                 /* never recorded: nothing to wait for */
    OK(cuLaunchHostFunc(a, slow_set, &x));
    OK(cuEventRecord(e, a));
    OK(cuCtxWaitEvent(ctx, e));
    reader on_b = { &x, -1 }, on_legacy = { &x, -1 }, on_new = { &x, -1 };
    OK(cuLaunchHostFunc(b, read_flag, &on_b));
    OK(cuLaunchHostFunc(NULL, read_flag, &on_legacy));
    OK(cuStreamCreate(&c, CU_STREAM_NON_BLOCKING));
    OK(cuLaunchHostFunc(c, read_flag, &on_new));
    OK(cuCtxSynchronize());
    EXPECT(on_b.seen == 1);
    EXPECT(on_legacy.seen == 1);
    EXPECT(on_new.seen == 1);
    OK(cuEventDestroy(e));
    OK(cuEventDestroy(never));
    OK(cuStreamDestroy(a));
    OK(cuStreamDestroy(b));
    OK(cuStreamDestroy(c));
}

static void misuse(CUdevice dev, CUcontext ctx)
{
    CUevent e, dead;
    OK(cuEventCreate(&e, 0));
    OK(cuEventCreate(&dead, 0));
    OK(cuEventDestroy(dead));
    EXPECT_RC(cuCtxRecordEvent(ctx, dead), CUDA_ERROR_INVALID_HANDLE);
    EXPECT_RC(cuCtxWaitEvent(ctx, NULL), CUDA_ERROR_INVALID_HANDLE);
    EXPECT_RC(cuCtxRecordEvent(NULL, e), CUDA_ERROR_INVALID_CONTEXT);
    /* an event of another context */
    CUcontext other;
    OK(cuCtxCreate(&other, NULL, 0, dev));
    EXPECT_RC(cuCtxRecordEvent(other, e), CUDA_ERROR_INVALID_HANDLE);
    EXPECT_RC(cuCtxWaitEvent(other, e), CUDA_ERROR_INVALID_HANDLE);
    OK(cuCtxDestroy(other));
    OK(cuCtxSetCurrent(ctx));
    /* a capturing stream */
    CUstream s;
    OK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    OK(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_RELAXED));
    EXPECT_RC(cuCtxRecordEvent(ctx, e), CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
    EXPECT_RC(cuCtxWaitEvent(ctx, e), CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
    CUgraph g = NULL;
    OK(cuStreamEndCapture(s, &g));
    if (g)
        OK(cuGraphDestroy(g));
    OK(cuStreamDestroy(s));
    OK(cuEventDestroy(e));
}

int main(void)
{
    CUcontext ctx;
    CUdevice dev = drv_test_primary_ctx(&ctx);
    record(ctx);
    wait(ctx);
    misuse(dev, ctx);
    OK(cuDevicePrimaryCtxRelease(dev));
    return drv_test_end("drv_ctxevent");
}
