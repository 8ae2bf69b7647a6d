// cdp_memory: the rest of the device runtime API (nvcc -rdc=true
// -lcudadevrt), checked against the host:
// - cudaMemcpy2DAsync, cudaMemset2DAsync, cudaMemcpy3DAsync and
//   cudaMemset3DAsync on pitched device memory, queued in order after a
//   child that writes the source (every byte of the destinations compared
//   with a CPU reference, the gaps between rows poisoned and kept);
// - a pitch narrower than the width: cudaErrorInvalidPitchValue;
// - cudaFuncGetAttributes (a __launch_bounds__(256) kernel with 1000 bytes
//   of static shared memory), cudaOccupancyMaxActiveBlocksPerMultiprocessor
//   (the host's answer), cudaDeviceGetLimit, cudaDeviceGetCacheConfig and
//   cudaDeviceGetSharedMemConfig after the host set them;
// - a copy and a set into device-heap memory (in-kernel cudaMalloc, plain
//   host memory on Zinc) that a child then reads;
// - last, a device-side copy from an address that is no memory: the host
//   gets cudaErrorIllegalAddress and the process goes on.
#include "zn_test.h"

#include <string.h>

#define W 24        // bytes copied per row
#define H 5         // rows
#define D 3         // slices
#define PITCH 40    // bytes between rows
#define SLICE (PITCH * H)
#define BYTES (SLICE * D)
#define POISON_BYTE 0xee

__global__ void __launch_bounds__(256) shared_user(int *out)
{
    __shared__ char buf[1000];
    buf[threadIdx.x] = (char)threadIdx.x;
    __syncthreads();
    out[threadIdx.x] = buf[255 - threadIdx.x];
}

__global__ void write_source(unsigned char *src)
{
    for (int i = threadIdx.x; i < BYTES; i += blockDim.x)
        src[i] = (unsigned char)(i * 7 + 1);
}

// dst2: src rows 1..H-1 (cols 4..4+W) copied as 2D to rows 0.. at col 8,
// then a 2D set of 3 rows x 10 bytes at (row 1, col 2) to 0x5a;
// dst3: a 3D copy of the W x H x D box from src, then a 3D set of the
// 6 x 2 x 2 box at the start to 0x33. In order: the copies see the child's
// source, the sets land on the copies.
__global__ void regions(unsigned char *src, unsigned char *dst2, unsigned char *dst3, int *errs)
{
    write_source<<<1, 64>>>(src);
    errs[0] = cudaMemcpy2DAsync(dst2 + 8, PITCH, src + PITCH + 4, PITCH, W, H - 1,
                                cudaMemcpyDeviceToDevice, 0);
    errs[1] = cudaMemset2DAsync(dst2 + PITCH + 2, PITCH, 0x5a, 10, 3, 0);
    cudaMemcpy3DParms p;
    memset(&p, 0, sizeof p);
    p.srcPtr.ptr = src;
    p.srcPtr.pitch = PITCH;
    p.srcPtr.xsize = W;
    p.srcPtr.ysize = H;
    p.dstPtr = p.srcPtr;
    p.dstPtr.ptr = dst3;
    p.extent.width = W;
    p.extent.height = H;
    p.extent.depth = D;
    p.kind = cudaMemcpyDeviceToDevice;
    errs[2] = cudaMemcpy3DAsync(&p, 0);
    cudaExtent e;
    e.width = 6;
    e.height = 2;
    e.depth = 2;
    errs[3] = cudaMemset3DAsync(p.dstPtr, 0x33, e, 0);
    errs[4] = cudaMemcpy2DAsync(dst2, 4, src, 4, 8, 2, cudaMemcpyDeviceToDevice, 0);
    errs[5] = cudaGetLastError();
}

__global__ void queries(int *out, size_t *limits)
{
    cudaFuncAttributes fa;
    memset(&fa, 0xff, sizeof fa);
    out[0] = cudaFuncGetAttributes(&fa, shared_user);
    out[1] = fa.maxThreadsPerBlock;
    out[2] = (int)fa.sharedSizeBytes;
    out[3] = fa.maxDynamicSharedSizeBytes;
    int nb = -1;
    out[4] = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb, shared_user, 128, 0);
    out[5] = nb;
    out[6] = cudaDeviceGetLimit(&limits[0], cudaLimitStackSize);
    out[7] = cudaDeviceGetLimit(&limits[1], cudaLimitMallocHeapSize);
    cudaFuncCache cc = cudaFuncCachePreferNone;
    out[8] = cudaDeviceGetCacheConfig(&cc);
    out[9] = cc;
    cudaSharedMemConfig sc = cudaSharedMemBankSizeDefault;
#pragma nv_diag_suppress 1215    // deprecated, still in the device runtime
    out[10] = cudaDeviceGetSharedMemConfig(&sc);
#pragma nv_diag_default 1215
    out[11] = sc;
    // nvcc's libcudadevrt has no __cudaCDP2EventRecordWithFlags: not tested
    out[12] = cudaDeviceGetLimit(&limits[2], cudaLimitMaxL2FetchGranularity);
    out[13] = fa.binaryVersion;
}

__global__ void sum_heap(const int *p, int n, int *out)
{
    int s = 0;
    for (int i = 0; i < n; i++)
        s += p[i];
    *out = s;
    cudaFree((void *)p);
}

// device-heap memory (in-kernel cudaMalloc) as a device copy's destination
// and a 2D set's, then read by a child
__global__ void heap_copy(const int *src, int *out, int *errs)
{
    int *p = NULL;
    errs[0] = cudaMalloc((void **)&p, 64 * sizeof(int));
    errs[1] = cudaMemcpyAsync(p, src, 64 * sizeof(int), cudaMemcpyDeviceToDevice, 0);
    errs[2] = cudaMemset2DAsync(p + 60, 4 * sizeof(int), 0, 2 * sizeof(int), 1, 0);
    sum_heap<<<1, 1>>>(p, 64, out);
}

__global__ void wild_copy(unsigned char *dst)
{
    cudaMemcpyAsync(dst, (const void *)0x10, 64, cudaMemcpyDeviceToDevice, 0);
}

static void check_regions(void)
{
    unsigned char *src, *dst2, *dst3;
    int *errs;
    CK(cudaMalloc(&src, BYTES));
    CK(cudaMalloc(&dst2, BYTES));
    CK(cudaMalloc(&dst3, BYTES));
    CK(cudaMalloc(&errs, 6 * sizeof(int)));
    CK(cudaMemset(src, 0, BYTES));
    CK(cudaMemset(dst2, POISON_BYTE, BYTES));
    CK(cudaMemset(dst3, POISON_BYTE, BYTES));
    CK(cudaMemset(errs, 0xff, 6 * sizeof(int)));
    regions<<<1, 1>>>(src, dst2, dst3, errs);
    CK_LAUNCH();
    static unsigned char s[BYTES], d2[BYTES], d3[BYTES], w2[BYTES], w3[BYTES];
    int herr[6];
    CK(cudaMemcpy(d2, dst2, BYTES, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(d3, dst3, BYTES, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(herr, errs, sizeof herr, cudaMemcpyDeviceToHost));
    // the reference, byte by byte
    for (int i = 0; i < BYTES; i++)
        s[i] = (unsigned char)(i * 7 + 1);
    memset(w2, POISON_BYTE, BYTES);
    memset(w3, POISON_BYTE, BYTES);
    for (int y = 0; y < H - 1; y++)
        for (int x = 0; x < W; x++)
            w2[y * PITCH + 8 + x] = s[(y + 1) * PITCH + 4 + x];
    for (int y = 0; y < 3; y++)
        for (int x = 0; x < 10; x++)
            w2[(y + 1) * PITCH + 2 + x] = 0x5a;
    for (int z = 0; z < D; z++)
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++)
                w3[z * SLICE + y * PITCH + x] = s[z * SLICE + y * PITCH + x];
    for (int z = 0; z < 2; z++)
        for (int y = 0; y < 2; y++)
            for (int x = 0; x < 6; x++)
                w3[z * SLICE + y * PITCH + x] = 0x33;
    for (int i = 0; i < BYTES; i++) {
        if (d2[i] != w2[i]) {
            zt_fail("2D copy/set: byte %d (row %d, col %d) is %#x, want %#x", i, i / PITCH,
                    i % PITCH, d2[i], w2[i]);
            break;
        }
    }
    for (int i = 0; i < BYTES; i++) {
        if (d3[i] != w3[i]) {
            zt_fail("3D copy/set: byte %d (slice %d, row %d, col %d) is %#x, want %#x", i,
                    i / SLICE, i % SLICE / PITCH, i % PITCH, d3[i], w3[i]);
            break;
        }
    }
    const int want[6] = {cudaSuccess, cudaSuccess, cudaSuccess, cudaSuccess,
                         cudaErrorInvalidPitchValue, cudaErrorInvalidPitchValue};
    for (int i = 0; i < 6; i++)
        if (herr[i] != want[i])
            zt_fail("region call %d returned %d, want %d", i, herr[i], want[i]);
    CK(cudaFree(src));
    CK(cudaFree(dst2));
    CK(cudaFree(dst3));
    CK(cudaFree(errs));
}

static void check_queries(void)
{
    CK(cudaDeviceSetLimit(cudaLimitStackSize, 4096));
    CK(cudaDeviceSetCacheConfig(cudaFuncCachePreferShared));
    int *out;
    size_t *limits;
    CK(cudaMalloc(&out, 14 * sizeof(int)));
    CK(cudaMalloc(&limits, 3 * sizeof(size_t)));
    CK(cudaMemset(out, 0xff, 14 * sizeof(int)));
    CK(cudaMemset(limits, 0xff, 3 * sizeof(size_t)));
    queries<<<1, 1>>>(out, limits);
    CK_LAUNCH();
    int h[14];
    size_t hl[2], want_stack = 0, want_heap = 0;
    CK(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(hl, limits, sizeof hl, cudaMemcpyDeviceToHost));
    CK(cudaDeviceGetLimit(&want_stack, cudaLimitStackSize));
    CK(cudaDeviceGetLimit(&want_heap, cudaLimitMallocHeapSize));
    cudaFuncAttributes hfa;
    CK(cudaFuncGetAttributes(&hfa, shared_user));
    int hnb = -1;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&hnb, shared_user, 128, 0));
    if (hfa.sharedSizeBytes != 1000)
        zt_fail("host sharedSizeBytes %zu for 1000 bytes", hfa.sharedSizeBytes);
    const int want[14] = {cudaSuccess, 256, 1000,
                          hfa.maxDynamicSharedSizeBytes,
                          cudaSuccess, hnb, cudaSuccess, cudaSuccess,
                          cudaSuccess, cudaFuncCachePreferShared, cudaSuccess,
                          cudaSharedMemBankSizeFourByte, cudaSuccess, hfa.binaryVersion};
    for (int i = 0; i < 14; i++)
        if (h[i] != want[i])
            zt_fail("device query %d: %d, want %d", i, h[i], want[i]);
    if (hnb <= 0)
        zt_fail("occupancy of a 128-thread block: %d", hnb);
    if (want_stack < 4096 || hl[0] != want_stack || hl[1] != want_heap)
        zt_fail("device limits: stack %zu heap %zu, host %zu and %zu", hl[0], hl[1],
                want_stack, want_heap);
    CK(cudaFree(out));
    CK(cudaFree(limits));
}

static void check_heap(void)
{
    int h[64], *src, *out, *errs, got = -1, herr[3];
    for (int i = 0; i < 64; i++)
        h[i] = i * 5 - 7;
    CK(cudaMalloc(&src, sizeof h));
    CK(cudaMalloc(&out, sizeof(int)));
    CK(cudaMalloc(&errs, sizeof herr));
    CK(cudaMemcpy(src, h, sizeof h, cudaMemcpyHostToDevice));
    CK(cudaMemset(out, 0xff, sizeof(int)));
    CK(cudaMemset(errs, 0xff, sizeof herr));
    heap_copy<<<1, 1>>>(src, out, errs);
    CK_LAUNCH();
    CK(cudaMemcpy(&got, out, sizeof got, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(herr, errs, sizeof herr, cudaMemcpyDeviceToHost));
    int want = 0;
    for (int i = 0; i < 60; i++)    // elements 60 and 61 set to 0 after the copy
        want += h[i];
    want += h[62] + h[63];
    if (got != want || herr[0] || herr[1] || herr[2])
        zt_fail("device-heap copy: sum %d (want %d), results %d %d %d", got, want, herr[0],
                herr[1], herr[2]);
    CK(cudaFree(src));
    CK(cudaFree(out));
    CK(cudaFree(errs));
}

int main()
{
    zt_begin("cdp_memory");
    check_regions();
    check_queries();
    check_heap();
    // a copy from no memory faults the context, the process goes on
    unsigned char *dst;
    CK(cudaMalloc(&dst, 64));
    wild_copy<<<1, 1>>>(dst);
    cudaError_t e = cudaDeviceSynchronize();
    if (e != cudaErrorIllegalAddress)
        zt_fail("device copy from address 0x10: %s, want cudaErrorIllegalAddress",
                cudaGetErrorName(e));
    return zt_finish();
}
