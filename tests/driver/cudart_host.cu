// cudart_host.cu: NVIDIA's CUDA runtime (static) on Zinc's libcuda.so.1,
// host-side calls only. That any call succeeds proves cudart accepted the
// export tables and the integrity answer (a wrong one fails every call
// with error 103); the rest checks the answers against the device's
// documented limits and against data copied through device memory.
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;

#define CHECK(call)                                                            \
    do {                                                                       \
        cudaError_t e_ = (call);                                               \
        if (e_ != cudaSuccess) {                                               \
            printf("FAIL %s:%d: %s -> %d (%s)\n", __FILE__, __LINE__, #call,   \
                   (int)e_, cudaGetErrorString(e_));                          \
            failures++;                                                        \
        }                                                                      \
    } while (0)

#define EXPECT(cond)                                                           \
    do {                                                                       \
        if (!(cond)) {                                                         \
            printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond);            \
            failures++;                                                        \
        }                                                                      \
    } while (0)

static void CUDART_CB host_fn(void *p) { (*(int *)p)++; }

int main(void)
{
    int n = 0;
    CHECK(cudaGetDeviceCount(&n));
    EXPECT(n == 1);

    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    printf("device: %s, cc %d.%d, %d SMs, %zu MiB\n", prop.name, prop.major, prop.minor,
           prop.multiProcessorCount, prop.totalGlobalMem >> 20);
    EXPECT(strncmp(prop.name, "Zinc CPU", 8) == 0);
    EXPECT(prop.major == 7 && prop.minor == 5);     // ZINC_CC=7.5 in the test env
    EXPECT(prop.warpSize == 32);
    EXPECT(prop.maxThreadsPerBlock == 1024);
    EXPECT(prop.maxThreadsDim[2] == 64);
    EXPECT(prop.maxGridSize[0] == 2147483647);
    EXPECT(prop.multiProcessorCount >= 1);
    EXPECT(prop.sharedMemPerBlock == 48 * 1024);
    EXPECT(prop.unifiedAddressing == 1);
    EXPECT(prop.managedMemory == 1);

    int v = 0;
    CHECK(cudaDriverGetVersion(&v));
    EXPECT(v >= 13000);

    // memory round trip through device memory and memset
    const size_t N = 1 << 16;
    int *h = (int *)malloc(N * sizeof(int)), *back = (int *)malloc(N * sizeof(int));
    for (size_t i = 0; i < N; i++)
        h[i] = (int)(i * 2654435761u);
    int *d = NULL, *d2 = NULL;
    CHECK(cudaMalloc(&d, N * sizeof(int)));
    CHECK(cudaMalloc(&d2, N * sizeof(int)));
    CHECK(cudaMemcpy(d, h, N * sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d2, d, N * sizeof(int), cudaMemcpyDeviceToDevice));
    CHECK(cudaMemcpy(back, d2, N * sizeof(int), cudaMemcpyDeviceToHost));
    EXPECT(memcmp(h, back, N * sizeof(int)) == 0);
    CHECK(cudaMemset(d2, 0x5a, N * sizeof(int)));
    CHECK(cudaMemcpy(back, d2, N * sizeof(int), cudaMemcpyDefault));
    EXPECT(back[0] == 0x5a5a5a5a && back[N - 1] == 0x5a5a5a5a);

    // streams, async copies, events, host functions
    cudaStream_t s;
    cudaEvent_t e0, e1;
    CHECK(cudaStreamCreate(&s));
    CHECK(cudaEventCreate(&e0));
    CHECK(cudaEventCreate(&e1));
    int *pinned = NULL;
    CHECK(cudaMallocHost(&pinned, N * sizeof(int)));
    CHECK(cudaEventRecord(e0, s));
    CHECK(cudaMemcpyAsync(d, h, N * sizeof(int), cudaMemcpyHostToDevice, s));
    CHECK(cudaMemcpyAsync(pinned, d, N * sizeof(int), cudaMemcpyDeviceToHost, s));
    int calls = 0;
    CHECK(cudaLaunchHostFunc(s, host_fn, &calls));
    CHECK(cudaEventRecord(e1, s));
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaEventSynchronize(e1));
    EXPECT(calls == 1);
    EXPECT(memcmp(pinned, h, N * sizeof(int)) == 0);
    float ms = -1;
    CHECK(cudaEventElapsedTime(&ms, e0, e1));
    EXPECT(ms >= 0 && ms < 10000);
    EXPECT(cudaStreamQuery(s) == cudaSuccess);

    // pointer attributes: device, pinned host, managed, plain host
    cudaPointerAttributes a;
    CHECK(cudaPointerGetAttributes(&a, d + 5));
    EXPECT(a.type == cudaMemoryTypeDevice && a.device == 0 && a.devicePointer == d + 5);
    CHECK(cudaPointerGetAttributes(&a, pinned));
    EXPECT(a.type == cudaMemoryTypeHost && a.hostPointer == pinned);
    int *m = NULL;
    CHECK(cudaMallocManaged(&m, 4096));
    CHECK(cudaPointerGetAttributes(&a, m));
    EXPECT(a.type == cudaMemoryTypeManaged);
    m[10] = 7;  // managed memory is host memory
    EXPECT(m[10] == 7);
    int local = 0;
    CHECK(cudaPointerGetAttributes(&a, &local));
    EXPECT(a.type == cudaMemoryTypeUnregistered);

    // stream-ordered allocation through the default pool; capture queries
    cudaMemPool_t pool;
    CHECK(cudaDeviceGetDefaultMemPool(&pool, 0));
    unsigned long long thr = ~0ull, used = 0;
    CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &thr));
    int *da = NULL;
    CHECK(cudaMallocAsync(&da, 4000, s));
    CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &used));
    EXPECT(used >= 4000);
    CHECK(cudaMemcpyAsync(da, h, 4000, cudaMemcpyHostToDevice, s));
    CHECK(cudaMemcpyAsync(back, da, 4000, cudaMemcpyDeviceToHost, s));
    CHECK(cudaFreeAsync(da, s));
    CHECK(cudaStreamSynchronize(s));
    EXPECT(memcmp(h, back, 4000) == 0);
    cudaStreamCaptureStatus cs = cudaStreamCaptureStatusActive;
    CHECK(cudaStreamIsCapturing(s, &cs));
    EXPECT(cs == cudaStreamCaptureStatusNone);

    size_t fr = 0, tot = 0;
    CHECK(cudaMemGetInfo(&fr, &tot));
    EXPECT(tot > 0 && fr <= tot);

    // a bad pointer is an error, not a crash
    EXPECT(cudaMemcpy(back, (int *)d + N, 64, cudaMemcpyDeviceToHost) != cudaSuccess);
    cudaGetLastError();

    CHECK(cudaFree(m));
    CHECK(cudaFreeHost(pinned));
    CHECK(cudaEventDestroy(e0));
    CHECK(cudaEventDestroy(e1));
    CHECK(cudaStreamDestroy(s));
    CHECK(cudaFree(d));
    CHECK(cudaFree(d2));
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaDeviceReset());
    free(h);
    free(back);
    if (failures) {
        printf("FAIL cudart_host: %d failure(s)\n", failures);
        return 1;
    }
    printf("PASS cudart_host\n");
    return 0;
}
