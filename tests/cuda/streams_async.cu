// streams_async.cu: streams run asynchronously and in order; events time
// the stream's progress; the legacy default stream synchronises with
// blocking streams but not with non-blocking ones.
//
// Asynchrony is proven with flags, not timing: a kernel on one stream
// spins until a host function on another stream sets a flag, with a
// timeout; if the two were serialised the kernel would time out.
#include "zn_test.h"

#include <math.h>
#include <unistd.h>

#define SPIN_TIMEOUT_CYCLES (20ll * 1000 * 1000 * 1000)   // several seconds

// Spins until *flag != 0 or the timeout; out[0] = what it saw.
__global__ void wait_flag(volatile int *flag, volatile int *started, int *out)
{
    *started = 1;
    long long t0 = clock64();
    while (*flag == 0 && clock64() - t0 < SPIN_TIMEOUT_CYCLES) {
    }
    out[0] = *flag;
}

// Busy for about `cycles` clock cycles, then writes v.
__global__ void busy_write(long long cycles, int *dst, int v)
{
    long long t0 = clock64();
    while (clock64() - t0 < cycles) {
    }
    *dst = v;
}

__global__ void read_write(const int *src, int *dst, int add)
{
    *dst = *src + add;
}

__global__ void affine(float *x, int n, float a, float b)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] = a * x[i] + b;
}

__global__ void add_vec(const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] += x[i];
}

struct flags { volatile int *flag, *started; };

// Waits (bounded) for the kernel to have started, then releases it.
static void CUDART_CB release(void *p)
{
    flags *f = (flags *)p;
    for (long i = 0; i < 4000000 && !*f->started; i++)
        usleep(1);
    *f->flag = 1;
}

static void test_concurrent_host_func(unsigned stream_flags)
{
    cudaStream_t a, b;
    CK(cudaStreamCreateWithFlags(&a, stream_flags));
    CK(cudaStreamCreateWithFlags(&b, stream_flags));
    int *hflag, *out;
    CK(cudaMallocHost(&hflag, 2 * sizeof(int)));
    CK(cudaMalloc(&out, sizeof(int)));
    hflag[0] = hflag[1] = 0;
    flags f = { hflag, hflag + 1 };
    wait_flag<<<1, 1, 0, a>>>(hflag, hflag + 1, out);
    CK(cudaGetLastError());
    CK(cudaLaunchHostFunc(b, release, &f));
    // the host is not blocked either: the kernel cannot finish yet
    if (cudaStreamQuery(a) != cudaErrorNotReady && hflag[0] == 0)
        zt_fail("stream A idle while its kernel waits");
    CK(cudaStreamSynchronize(b));
    CK(cudaStreamSynchronize(a));
    int seen = 0;
    CK(cudaMemcpy(&seen, out, sizeof seen, cudaMemcpyDeviceToHost));
    if (seen != 1)
        zt_fail("kernel on stream A did not see stream B's host function (flags %u)",
                stream_flags);
    CK(cudaFree(out));
    CK(cudaFreeHost(hflag));
    CK(cudaStreamDestroy(a));
    CK(cudaStreamDestroy(b));
}

// A chain of dependent copies and kernels on one stream.
static void test_order(void)
{
    const int n = 4096;
    cudaStream_t s;
    CK(cudaStreamCreate(&s));
    float *hx, *hy, *dx, *dy, *dz;
    CK(cudaMallocHost(&hx, n * sizeof(float)));
    CK(cudaMallocHost(&hy, n * sizeof(float)));
    CK(cudaMalloc(&dx, n * sizeof(float)));
    CK(cudaMalloc(&dy, n * sizeof(float)));
    CK(cudaMalloc(&dz, n * sizeof(float)));
    float *ref = (float *)malloc(n * sizeof(float));
    for (int i = 0; i < n; i++)
        hx[i] = (float)(i % 97);
    CK(cudaMemcpyAsync(dx, hx, n * sizeof(float), cudaMemcpyHostToDevice, s));
    CK(cudaMemsetAsync(dy, 0, n * sizeof(float), s));
    for (int k = 0; k < 8; k++) {
        affine<<<(n + 255) / 256, 256, 0, s>>>(dx, n, 1.5f, (float)k);
        add_vec<<<(n + 255) / 256, 256, 0, s>>>(dx, dy, n);
    }
    CK(cudaMemcpyAsync(dz, dy, n * sizeof(float), cudaMemcpyDeviceToDevice, s));
    affine<<<(n + 255) / 256, 256, 0, s>>>(dz, n, 2.0f, -1.0f);
    CK(cudaMemcpyAsync(hy, dz, n * sizeof(float), cudaMemcpyDeviceToHost, s));
    CK(cudaStreamSynchronize(s));
    for (int i = 0; i < n; i++) {
        float x = (float)(i % 97), y = 0;
        for (int k = 0; k < 8; k++) {
            x = 1.5f * x + (float)k;
            y += x;
        }
        ref[i] = 2.0f * y - 1.0f;
    }
    for (int i = 0; i < n; i++)
        if (hy[i] != ref[i])
            zt_fail("order: y[%d] = %g, expected %g", i, hy[i], ref[i]);
    // a pageable source may be reused as soon as the async copy returns
    float *page = (float *)malloc(n * sizeof(float));
    for (int i = 0; i < n; i++)
        page[i] = 7.0f;
    busy_write<<<1, 1, 0, s>>>(100 * 1000 * 1000, (int *)dz, 0);
    CK(cudaMemcpyAsync(dx, page, n * sizeof(float), cudaMemcpyHostToDevice, s));
    for (int i = 0; i < n; i++)
        page[i] = -1.0f;
    CK(cudaMemcpyAsync(page, dx, n * sizeof(float), cudaMemcpyDeviceToHost, s));
    CK(cudaStreamSynchronize(s));
    for (int i = 0; i < n; i++)
        if (page[i] != 7.0f) {
            zt_fail("pageable staging: %d = %g", i, page[i]);
            break;
        }
    free(page);
    free(ref);
    CK(cudaFree(dx));
    CK(cudaFree(dy));
    CK(cudaFree(dz));
    CK(cudaFreeHost(hx));
    CK(cudaFreeHost(hy));
    CK(cudaStreamDestroy(s));
}

static void test_events(void)
{
    cudaStream_t s;
    CK(cudaStreamCreate(&s));
    int *d;
    CK(cudaMalloc(&d, sizeof(int)));
    cudaEvent_t e0, e1, e2, nt;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    CK(cudaEventCreateWithFlags(&e2, cudaEventBlockingSync));
    CK(cudaEventCreateWithFlags(&nt, cudaEventDisableTiming));
    CK(cudaEventRecord(e0, s));
    busy_write<<<1, 1, 0, s>>>(200 * 1000 * 1000, d, 1);     // ~0.1 s
    CK(cudaEventRecord(e1, s));
    busy_write<<<1, 1, 0, s>>>(200 * 1000 * 1000, d, 2);
    CK(cudaEventRecord(e2, s));
    CK(cudaEventRecord(nt, s));
    // the record is taken when the stream gets there, not at the call
    if (cudaEventQuery(e2) != cudaErrorNotReady)
        zt_fail("event query: e2 complete before its stream got there");
    CK(cudaEventSynchronize(e2));
    CK(cudaEventQuery(e2));
    float a = 0, b = 0, ab = 0;
    CK(cudaEventElapsedTime(&a, e0, e1));
    CK(cudaEventElapsedTime(&b, e1, e2));
    CK(cudaEventElapsedTime(&ab, e0, e2));
    if (!(a > 1.0f && b > 1.0f))
        zt_fail("elapsed times %g ms, %g ms: expected > 1 ms each", a, b);
    if (fabsf(ab - (a + b)) > 0.01f)
        zt_fail("elapsed e0..e2 %g ms != %g + %g", ab, a, b);
    float neg = 0;
    CK(cudaEventElapsedTime(&neg, e1, e0));
    if (fabsf(neg + a) > 0.01f)
        zt_fail("elapsed e1..e0 %g ms, expected %g", neg, -a);
    float x;
    if (cudaEventElapsedTime(&x, e0, nt) != cudaErrorInvalidResourceHandle)
        zt_fail("elapsed time with a disable-timing event did not fail");
    (void)cudaGetLastError();
    // a stream waits for an event of another
    cudaStream_t t;
    CK(cudaStreamCreate(&t));
    int *h;
    CK(cudaMallocHost(&h, sizeof(int)));
    *h = 0;
    busy_write<<<1, 1, 0, s>>>(200 * 1000 * 1000, d, 42);
    CK(cudaEventRecord(e1, s));
    CK(cudaStreamWaitEvent(t, e1, 0));
    CK(cudaMemcpyAsync(h, d, sizeof(int), cudaMemcpyDeviceToHost, t));
    CK(cudaStreamSynchronize(t));
    if (*h != 42)
        zt_fail("stream wait event: read %d before the writer finished", *h);
    CK(cudaFreeHost(h));
    CK(cudaFree(d));
    CK(cudaEventDestroy(e0));
    CK(cudaEventDestroy(e1));
    CK(cudaEventDestroy(e2));
    CK(cudaEventDestroy(nt));
    CK(cudaStreamDestroy(s));
    CK(cudaStreamDestroy(t));
}

// Legacy stream: waits for earlier blocking-stream work, and later
// blocking-stream work waits for it.
static void test_legacy(void)
{
    cudaStream_t s;
    CK(cudaStreamCreate(&s));
    int *d;
    CK(cudaMalloc(&d, 4 * sizeof(int)));
    CK(cudaMemset(d, 0, 4 * sizeof(int)));
    busy_write<<<1, 1, 0, s>>>(200 * 1000 * 1000, d + 0, 10);
    read_write<<<1, 1>>>(d + 0, d + 1, 1);            // legacy: after s
    busy_write<<<1, 1>>>(100 * 1000 * 1000, d + 3, 5); // legacy
    read_write<<<1, 1, 0, s>>>(d + 1, d + 2, 1);      // s: after legacy
    CK(cudaStreamSynchronize(s));
    int h[4];
    CK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    if (h[0] != 10 || h[1] != 11 || h[2] != 12 || h[3] != 5)
        zt_fail("legacy sync: %d %d %d %d, expected 10 11 12 5", h[0], h[1], h[2], h[3]);
    CK(cudaFree(d));
    CK(cudaStreamDestroy(s));

    // non-blocking streams do not wait for the legacy stream
    cudaStream_t nb;
    CK(cudaStreamCreateWithFlags(&nb, cudaStreamNonBlocking));
    int *hflag, *out;
    CK(cudaMallocHost(&hflag, 2 * sizeof(int)));
    CK(cudaMalloc(&out, sizeof(int)));
    hflag[0] = hflag[1] = 0;
    flags f = { hflag, hflag + 1 };
    wait_flag<<<1, 1>>>(hflag, hflag + 1, out);
    CK(cudaLaunchHostFunc(nb, release, &f));
    CK(cudaDeviceSynchronize());
    int seen = 0;
    CK(cudaMemcpy(&seen, out, sizeof seen, cudaMemcpyDeviceToHost));
    if (seen != 1)
        zt_fail("non-blocking stream waited for the legacy stream");
    CK(cudaFree(out));
    CK(cudaFreeHost(hflag));
    CK(cudaStreamDestroy(nb));
}

static void test_priorities(void)
{
    int least = 1, greatest = 1;
    CK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    cudaStream_t s;
    CK(cudaStreamCreateWithPriority(&s, cudaStreamDefault, greatest));
    int p = 99;
    CK(cudaStreamGetPriority(s, &p));
    if (p != greatest || least != 0 || greatest >= 0)
        zt_fail("priorities: range [%d, %d], stream got %d", least, greatest, p);
    CK(cudaStreamDestroy(s));
}

int main(void)
{
    zt_begin("streams_async");
    test_concurrent_host_func(cudaStreamDefault);
    test_concurrent_host_func(cudaStreamNonBlocking);
    test_order();
    test_events();
    test_legacy();
    test_priorities();
    return zt_finish();
}
