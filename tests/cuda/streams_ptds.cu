// streams_ptds.cu: built with --default-stream per-thread. Each host
// thread's default stream is its own: a kernel on one thread's default
// stream waits for a flag that a host function on another thread's
// default stream sets (bounded spin); were the two default streams one,
// the kernel would time out. Also checks cudaStreamPerThread and ordering
// on the per-thread stream.
#include "zn_test.h"

#include <pthread.h>
#include <unistd.h>

#define SPIN_TIMEOUT_CYCLES (20ll * 1000 * 1000 * 1000)

__global__ void wait_flag(volatile int *flag, volatile int *started, int *out)
{
    *started = 1;
    long long t0 = clock64();
    while (*flag == 0 && clock64() - t0 < SPIN_TIMEOUT_CYCLES) {
    }
    out[0] = *flag;
}

__global__ void scale_add(int *x, int n, int a, int b)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] = a * x[i] + b;
}

static volatile int *hflag, *hstarted;
static int *dout;

static void CUDART_CB release(void *)
{
    for (long i = 0; i < 4000000 && !*hstarted; i++)
        usleep(1);
    *hflag = 1;
}

static void *waiter(void *)
{
    wait_flag<<<1, 1>>>(hflag, hstarted, dout);     // this thread's default stream
    CK(cudaGetLastError());
    CK(cudaStreamSynchronize(0));
    return NULL;
}

static void *releaser(void *)
{
    for (long i = 0; i < 4000000 && !*hstarted; i++)
        usleep(1);
    CK(cudaLaunchHostFunc(0, release, NULL));        // this thread's default stream
    CK(cudaStreamSynchronize(cudaStreamPerThread));
    return NULL;
}

int main(void)
{
    zt_begin("streams_ptds");
    int *h;
    CK(cudaMallocHost(&h, 2 * sizeof(int)));
    h[0] = h[1] = 0;
    hflag = h;
    hstarted = h + 1;
    CK(cudaMalloc(&dout, sizeof(int)));
    pthread_t a, b;
    pthread_create(&a, NULL, waiter, NULL);
    pthread_create(&b, NULL, releaser, NULL);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    int seen = 0;
    CK(cudaMemcpy(&seen, dout, sizeof seen, cudaMemcpyDeviceToHost));
    if (seen != 1)
        zt_fail("the two threads' default streams were serialised");

    // in-order work on the per-thread stream, by its handle and by 0
    const int n = 1000;
    int *d, ref[n], got[n];
    CK(cudaMalloc(&d, n * sizeof(int)));
    for (int i = 0; i < n; i++)
        ref[i] = i;
    CK(cudaMemcpyAsync(d, ref, n * sizeof(int), cudaMemcpyHostToDevice, cudaStreamPerThread));
    for (int k = 0; k < 5; k++) {
        scale_add<<<(n + 127) / 128, 128, 0, k % 2 ? cudaStreamPerThread : 0>>>(d, n, 3, k);
        for (int i = 0; i < n; i++)
            ref[i] = 3 * ref[i] + k;
    }
    CK(cudaMemcpy(got, d, sizeof got, cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++)
        if (got[i] != ref[i]) {
            zt_fail("x[%d] = %d, expected %d", i, got[i], ref[i]);
            break;
        }
    unsigned flags = 99;
    CK(cudaStreamGetFlags(cudaStreamPerThread, &flags));
    if (flags != 0)
        zt_fail("per-thread stream flags %u", flags);
    CK(cudaFree(d));
    CK(cudaFree(dout));
    CK(cudaFreeHost(h));
    return zt_finish();
}
