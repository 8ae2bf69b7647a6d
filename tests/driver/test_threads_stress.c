/* test_threads_stress.c: 16 host threads use the driver at once.
 *
 * Each thread pushes the primary context, loads its own PTX module (a
 * kernel adding a per-thread constant, so 16 different compiles run at
 * once) beside one module shared by all threads, and for several rounds:
 * allocates device and pinned memory, copies in on one stream, launches the
 * shared kernel, hands over to a second stream through an event, launches
 * its own kernel, copies out, times the two events and checks every word
 * against a CPU reference. Then the same on the per-thread default stream
 * (CU_STREAM_PER_THREAD). Built under -DZINC_TSAN=ON it is the race test. */
#define CUDA_ENABLE_DEPRECATED 1
#include <cuda.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NTHREADS 16
#define ROUNDS 4
#define N 1000              /* not a multiple of the block: the tail is checked */
#define POISON 0xDEADBEEFu

static atomic_int failures;

#define FAIL(...) do { printf("FAIL %s:%d: ", __FILE__, __LINE__); printf(__VA_ARGS__); \
    printf("\n"); atomic_fetch_add(&failures, 1); } while (0)
#define OK(call) do { CUresult r_ = (call); if (r_ != CUDA_SUCCESS) { \
    const char *n_ = NULL; cuGetErrorName(r_, &n_); \
    FAIL("%s -> %d (%s)", #call, (int)r_, n_ ? n_ : "?"); goto out; } } while (0)

/* out[i] = in[i] * a + b for i < n (shared by every thread) */
static const char shared_ptx[] =
    ".version 8.0\n.target sm_75\n.address_size 64\n"
    ".visible .entry axpb(.param .u64 p0, .param .u64 p1, .param .u32 p2,\n"
    "    .param .u32 p3, .param .u32 p4)\n"
    "{\n"
    "    .reg .pred %p<2>;\n    .reg .b32 %r<10>;\n    .reg .b64 %rd<6>;\n"
    "    ld.param.u64 %rd1, [p0];\n    ld.param.u64 %rd2, [p1];\n"
    "    ld.param.u32 %r1, [p2];\n    ld.param.u32 %r2, [p3];\n    ld.param.u32 %r3, [p4];\n"
    "    mov.u32 %r4, %ctaid.x;\n    mov.u32 %r5, %ntid.x;\n    mov.u32 %r6, %tid.x;\n"
    "    mad.lo.s32 %r7, %r4, %r5, %r6;\n"
    "    setp.ge.s32 %p1, %r7, %r3;\n"
    "    @%p1 bra DONE;\n"
    "    mul.wide.s32 %rd3, %r7, 4;\n"
    "    add.s64 %rd4, %rd2, %rd3;\n"
    "    ld.global.u32 %r8, [%rd4];\n"
    "    mad.lo.s32 %r9, %r8, %r1, %r2;\n"
    "    add.s64 %rd5, %rd1, %rd3;\n"
    "    st.global.u32 [%rd5], %r9;\n"
    "DONE:\n    ret;\n}\n";

/* p[i] += K for i < n; K is the thread's own constant */
static const char own_ptx_fmt[] =
    ".version 8.0\n.target sm_75\n.address_size 64\n"
    ".visible .entry addk(.param .u64 p0, .param .u32 p1)\n"
    "{\n"
    "    .reg .pred %%p<2>;\n    .reg .b32 %%r<10>;\n    .reg .b64 %%rd<4>;\n"
    "    ld.param.u64 %%rd1, [p0];\n    ld.param.u32 %%r1, [p1];\n"
    "    mov.u32 %%r2, %%ctaid.x;\n    mov.u32 %%r3, %%ntid.x;\n    mov.u32 %%r4, %%tid.x;\n"
    "    mad.lo.s32 %%r5, %%r2, %%r3, %%r4;\n"
    "    setp.ge.s32 %%p1, %%r5, %%r1;\n"
    "    @%%p1 bra DONE;\n"
    "    mul.wide.s32 %%rd2, %%r5, 4;\n"
    "    add.s64 %%rd3, %%rd1, %%rd2;\n"
    "    ld.global.u32 %%r6, [%%rd3];\n"
    "    add.s32 %%r7, %%r6, %u;\n"
    "    st.global.u32 [%%rd3], %%r7;\n"
    "DONE:\n    ret;\n}\n";

static CUcontext g_ctx;
static CUfunction g_axpb;
static pthread_barrier_t g_start;

static uint32_t rnd(uint32_t *s)
{
    *s = *s * 1664525u + 1013904223u;
    return *s >> 8;
}

static int check(const char *what, int tid, int round, const uint32_t *got,
                 const uint32_t *in, uint32_t a, uint32_t b, uint32_t k)
{
    for (int i = 0; i < N; i++) {
        uint32_t want = in[i] * a + b + k;
        if (got[i] != want) {
            FAIL("%s thread %d round %d: [%d] = %u, want %u", what, tid, round, i, got[i], want);
            return -1;
        }
    }
    return 0;
}

static void *worker(void *arg)
{
    int tid = (int)(intptr_t)arg;
    CUmodule own = NULL;
    CUfunction addk;
    CUstream s[2] = { NULL, NULL };
    CUevent e[2] = { NULL, NULL };
    CUdeviceptr d_in = 0, d_out = 0;
    uint32_t *h_in = NULL, *h_out = NULL;
    uint32_t k = 1000u * (uint32_t)(tid + 1), seed = 12345u + (uint32_t)tid;
    const unsigned blocks = (N + 127) / 128;
    char ptx[sizeof own_ptx_fmt + 32];
    snprintf(ptx, sizeof ptx, own_ptx_fmt, k);
    pthread_barrier_wait(&g_start);

    OK(cuCtxPushCurrent(g_ctx));
    OK(cuModuleLoadData(&own, ptx));
    OK(cuModuleGetFunction(&addk, own, "addk"));
    OK(cuStreamCreate(&s[0], CU_STREAM_DEFAULT));
    OK(cuStreamCreate(&s[1], CU_STREAM_NON_BLOCKING));
    OK(cuEventCreate(&e[0], CU_EVENT_DEFAULT));
    OK(cuEventCreate(&e[1], CU_EVENT_DEFAULT));
    OK(cuMemAllocHost((void **)&h_out, N * 4));
    h_in = malloc(N * 4);
    if (!h_in) {
        FAIL("malloc");
        goto out;
    }
    for (int round = 0; round < ROUNDS; round++) {
        uint32_t a = rnd(&seed) | 1u, b = rnd(&seed);
        int n = N;
        for (int i = 0; i < N; i++)
            h_in[i] = rnd(&seed);
        OK(cuMemAlloc(&d_in, N * 4));
        OK(cuMemAlloc(&d_out, N * 4));
        OK(cuMemsetD32Async(d_out, POISON, N, s[0]));
        for (int i = 0; i < N; i++)
            h_out[i] = POISON;
        /* s0: in -> axpb; s1 waits on e0, adds k, copies out */
        OK(cuMemcpyHtoDAsync(d_in, h_in, N * 4, s[0]));
        void *pa[] = { &d_out, &d_in, &a, &b, &n };
        OK(cuLaunchKernel(g_axpb, blocks, 1, 1, 128, 1, 1, 0, s[0], pa, NULL));
        OK(cuEventRecord(e[0], s[0]));
        OK(cuStreamWaitEvent(s[1], e[0], 0));
        void *pk[] = { &d_out, &n };
        OK(cuLaunchKernel(addk, blocks, 1, 1, 128, 1, 1, 0, s[1], pk, NULL));
        OK(cuMemcpyDtoHAsync(h_out, d_out, N * 4, s[1]));
        OK(cuEventRecord(e[1], s[1]));
        OK(cuEventSynchronize(e[1]));
        float ms = -1;
        OK(cuEventElapsedTime(&ms, e[0], e[1]));
        if (!(ms >= 0))
            FAIL("thread %d: elapsed %f ms", tid, (double)ms);
        OK(cuStreamSynchronize(s[0]));
        check("streams", tid, round, h_out, h_in, a, b, k);

        /* the per-thread default stream: the same work, in order on it */
        for (int i = 0; i < N; i++)
            h_out[i] = POISON;
        OK(cuMemsetD32Async(d_out, POISON, N, CU_STREAM_PER_THREAD));
        OK(cuLaunchKernel(g_axpb, blocks, 1, 1, 128, 1, 1, 0, CU_STREAM_PER_THREAD, pa, NULL));
        OK(cuLaunchKernel(addk, blocks, 1, 1, 128, 1, 1, 0, CU_STREAM_PER_THREAD, pk, NULL));
        OK(cuMemcpyDtoHAsync(h_out, d_out, N * 4, CU_STREAM_PER_THREAD));
        OK(cuStreamSynchronize(CU_STREAM_PER_THREAD));
        check("per-thread stream", tid, round, h_out, h_in, a, b, k);

        OK(cuMemFree(d_in));
        OK(cuMemFree(d_out));
        d_in = d_out = 0;
    }
    CUcontext popped = NULL;
    OK(cuCtxPopCurrent(&popped));
    if (popped != g_ctx)
        FAIL("thread %d popped %p, pushed %p", tid, (void *)popped, (void *)g_ctx);
    OK(cuCtxPushCurrent(g_ctx));
out:
    /* cleanup with the context current (pushed again above) */
    if (d_in)
        cuMemFree(d_in);
    if (d_out)
        cuMemFree(d_out);
    for (int i = 0; i < 2; i++) {
        if (e[i])
            cuEventDestroy(e[i]);
        if (s[i])
            cuStreamDestroy(s[i]);
    }
    if (h_out)
        cuMemFreeHost(h_out);
    free(h_in);
    if (own && cuModuleUnload(own) != CUDA_SUCCESS)
        FAIL("thread %d: cuModuleUnload", tid);
    cuCtxPopCurrent(NULL);
    return NULL;
}

int main(void)
{
    CUdevice dev;
    CUmodule shared = NULL;
    pthread_t th[NTHREADS];
    if (cuInit(0) != CUDA_SUCCESS || cuDeviceGet(&dev, 0) != CUDA_SUCCESS ||
        cuDevicePrimaryCtxRetain(&g_ctx, dev) != CUDA_SUCCESS) {
        printf("FAIL: no device/primary context\n");
        return 1;
    }
    if (cuCtxPushCurrent(g_ctx) != CUDA_SUCCESS ||
        cuModuleLoadData(&shared, shared_ptx) != CUDA_SUCCESS ||
        cuModuleGetFunction(&g_axpb, shared, "axpb") != CUDA_SUCCESS) {
        printf("FAIL: shared module\n");
        return 1;
    }
    cuCtxPopCurrent(NULL);
    pthread_barrier_init(&g_start, NULL, NTHREADS);
    for (int i = 0; i < NTHREADS; i++)
        if (pthread_create(&th[i], NULL, worker, (void *)(intptr_t)i) != 0) {
            printf("FAIL: pthread_create\n");
            return 1;
        }
    for (int i = 0; i < NTHREADS; i++)
        pthread_join(th[i], NULL);
    pthread_barrier_destroy(&g_start);
    CUcontext cur = (CUcontext)1;
    if (cuCtxGetCurrent(&cur) != CUDA_SUCCESS || cur != NULL)
        FAIL("main thread has a current context after the workers");
    cuCtxPushCurrent(g_ctx);
    if (cuModuleUnload(shared) != CUDA_SUCCESS)
        FAIL("cuModuleUnload(shared)");
    cuCtxPopCurrent(NULL);
    cuDevicePrimaryCtxRelease(dev);
    int f = atomic_load(&failures);
    printf("%s threads_stress: %d threads x %d rounds\n", f ? "FAIL" : "PASS", NTHREADS, ROUNDS);
    return f ? 1 : 0;
}
