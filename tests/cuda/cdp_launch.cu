// cdp_launch: dynamic parallelism, kernels launching kernels (nvcc
// -rdc=true -lcudadevrt). Checked against the host: children's writes
// (their parameters packed by the parent at the child's .param offsets,
// a struct among them), a launch tree four levels deep, a tail launch that
// sees every block of its parent done, device-side cudaMalloc/cudaFree,
// cudaMemsetAsync and cudaMemcpyAsync on the device, streams made on the
// device, events recorded and waited for on the device, a device
// attribute, and the error of a launch with too many threads per block
// (cudaErrorInvalidConfiguration from cudaGetLastError, which clears it,
// in the thread that launched and no other).
#include "zn_test.h"

struct packed_args {
    char c;
    double d;
    int3 v;
    short s;
};

__global__ void fill(int *out, int base, int n, packed_args a)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[base + i] = base + i * 3 + a.c + (int)a.d + a.v.x + a.v.y + a.v.z + a.s;
}

__global__ void parent(int *out)
{
    if (threadIdx.x == 1) {
        cudaStream_t s;
        cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
        packed_args a = {1, 2.0, make_int3(3, 4, 5), 6};
        fill<<<2, 64, 0, s>>>(out, blockIdx.x * 128, 100 + blockIdx.x, a);
        cudaStreamDestroy(s);
    }
}

__global__ void tree(int *depth_of, int id, int depth)
{
    if (threadIdx.x == 0) {
        depth_of[id] = depth;
        if (depth < 4) {
            tree<<<1, 32>>>(depth_of, 2 * id + 1, depth + 1);
            tree<<<1, 32>>>(depth_of, 2 * id + 2, depth + 1);
        }
    }
}

__global__ void report(const unsigned *count, unsigned *seen) { *seen = *count; }

__global__ void count_then_tail(unsigned *count, unsigned *seen)
{
    if (threadIdx.x == 0) {
        atomicAdd(count, 1);
        if (blockIdx.x == 0)
            report<<<1, 1, 0, cudaStreamTailLaunch>>>(count, seen);
    }
}

__global__ void sum_and_free(int *p, int n, int *out)
{
    int s = 0;
    for (int i = 0; i < n; i++)
        s += p[i];
    *out = s;
    cudaFree(p);
}

__global__ void never(int *out) { *out = 1; }

__global__ void device_api(int *sum, unsigned char *bytes, int *errs)
{
    int *p = NULL;
    errs[0] = cudaMalloc((void **)&p, 64 * sizeof(int));
    for (int i = 0; p && i < 64; i++)
        p[i] = i * i;
    sum_and_free<<<1, 1>>>(p, 64, sum);
    errs[1] = cudaMemsetAsync(bytes, 0x5a, 16, 0);
    errs[2] = cudaMemcpyAsync(bytes + 8, sum, sizeof(int), cudaMemcpyDeviceToDevice, 0);
    never<<<1, 2048>>>(errs + 6);   // more threads than a block may have
    errs[3] = cudaGetLastError();
    errs[4] = cudaGetLastError();
    errs[5] = cudaPeekAtLastError();
}

__global__ void add_one(int *p) { *p += 1; }

// A child in one device stream, an event recorded after it, a second
// stream waiting on the event, a child there that reads the first one's
// result; and a device attribute read on the device.
__global__ void events_and_attrs(int *v, int *attrs)
{
    cudaStream_t s1, s2;
    cudaEvent_t e;
    attrs[0] = cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking);
    attrs[1] = cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking);
    attrs[2] = cudaEventCreateWithFlags(&e, cudaEventDisableTiming);
    add_one<<<1, 1, 0, s1>>>(v);
    attrs[3] = cudaEventRecord(e, s1);
    attrs[4] = cudaStreamWaitEvent(s2, e, 0);
    add_one<<<1, 1, 0, s2>>>(v);
    attrs[5] = cudaEventDestroy(e);
    attrs[6] = cudaDeviceGetAttribute(&attrs[7], cudaDevAttrMaxThreadsPerBlock, 0);
    attrs[8] = cudaDeviceGetAttribute(&attrs[9], cudaDevAttrWarpSize, 0);
    cudaStreamDestroy(s1);
    cudaStreamDestroy(s2);
}

// The last error belongs to the thread whose call failed.
__global__ void per_thread_errors(int *errs)
{
    if (threadIdx.x == 0)
        never<<<1, 2048>>>(errs + 2);
    __syncthreads();
    errs[threadIdx.x] = cudaGetLastError();
}

int main()
{
    zt_begin("cdp_launch");
    int *out;
    CK(cudaMalloc(&out, 4 * 128 * sizeof(int)));
    CK(cudaMemset(out, 0xff, 4 * 128 * sizeof(int)));
    parent<<<4, 64>>>(out);
    CK_LAUNCH();
    int h[4 * 128];
    CK(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost));
    for (int b = 0; b < 4; b++)
        for (int i = 0; i < 128; i++) {
            int want = i < 100 + b ? b * 128 + i * 3 + 21 : -1;
            if (h[b * 128 + i] != want)
                zt_fail("fill block %d [%d]: %d, want %d", b, i, h[b * 128 + i], want);
        }

    int *depth_of, hd[31];
    CK(cudaMalloc(&depth_of, sizeof hd));
    CK(cudaMemset(depth_of, 0xff, sizeof hd));
    tree<<<1, 32>>>(depth_of, 0, 0);
    CK_LAUNCH();
    CK(cudaMemcpy(hd, depth_of, sizeof hd, cudaMemcpyDeviceToHost));
    for (int id = 0, d = 0; id < 31; id++) {
        if (id == (1 << (d + 1)) - 1)
            d++;
        if (hd[id] != d)
            zt_fail("tree node %d: depth %d, want %d", id, hd[id], d);
    }

    unsigned *cnt, hs = 0;
    CK(cudaMalloc(&cnt, 2 * sizeof(unsigned)));
    CK(cudaMemset(cnt, 0, 2 * sizeof(unsigned)));
    count_then_tail<<<37, 32>>>(cnt, cnt + 1);
    CK_LAUNCH();
    CK(cudaMemcpy(&hs, cnt + 1, sizeof hs, cudaMemcpyDeviceToHost));
    if (hs != 37)
        zt_fail("tail launch saw %u blocks done, want 37", hs);

    int *sum, *errs, hsum, herr[7];
    unsigned char *bytes, hb[16];
    CK(cudaMalloc(&sum, sizeof(int)));
    CK(cudaMalloc(&bytes, 16));
    CK(cudaMalloc(&errs, sizeof herr));
    CK(cudaMemset(sum, 0xff, sizeof(int)));
    CK(cudaMemset(bytes, 0, 16));
    CK(cudaMemset(errs, 0xff, sizeof herr));
    device_api<<<1, 1>>>(sum, bytes, errs);
    CK_LAUNCH();
    CK(cudaMemcpy(&hsum, sum, sizeof hsum, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(hb, bytes, 16, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(herr, errs, sizeof herr, cudaMemcpyDeviceToHost));
    int want_sum = 0;
    for (int i = 0; i < 64; i++)
        want_sum += i * i;
    if (hsum != want_sum)
        zt_fail("device cudaMalloc'd sum %d, want %d", hsum, want_sum);
    for (int i = 0; i < 16; i++) {
        /* the set, then the copy of the sum over bytes 8..11, in order */
        int want = i >= 8 && i < 12 ? (unsigned char)(want_sum >> (8 * (i - 8))) : 0x5a;
        if (hb[i] != want)
            zt_fail("device memset/memcpy byte %d: %#x, want %#x", i, hb[i], want);
    }
    const int want_err[7] = {cudaSuccess, cudaSuccess, cudaSuccess,
                             cudaErrorInvalidConfiguration, cudaSuccess, cudaSuccess, -1};
    for (int i = 0; i < 7; i++)
        if (herr[i] != want_err[i])
            zt_fail("device API result %d: %d, want %d", i, herr[i], want_err[i]);

    int *attrs, hattrs[10], hv;
    CK(cudaMalloc(&attrs, sizeof hattrs));
    CK(cudaMemset(attrs, 0xff, sizeof hattrs));
    CK(cudaMemset(sum, 0, sizeof(int)));
    events_and_attrs<<<1, 1>>>(sum, attrs);
    CK_LAUNCH();
    CK(cudaMemcpy(hattrs, attrs, sizeof hattrs, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(&hv, sum, sizeof hv, cudaMemcpyDeviceToHost));
    int max_threads = 0;
    CK(cudaDeviceGetAttribute(&max_threads, cudaDevAttrMaxThreadsPerBlock, 0));
    for (int i = 0; i < 10; i++) {
        int want = i == 7 ? max_threads : i == 9 ? 32 : cudaSuccess;
        if (hattrs[i] != want)
            zt_fail("events/attributes result %d: %d, want %d", i, hattrs[i], want);
    }
    if (hv != 2)
        zt_fail("two children through an event: %d, want 2", hv);

    CK(cudaMemset(errs, 0xff, 3 * sizeof(int)));
    per_thread_errors<<<1, 2>>>(errs);
    CK_LAUNCH();
    CK(cudaMemcpy(herr, errs, 3 * sizeof(int), cudaMemcpyDeviceToHost));
    if (herr[0] != cudaErrorInvalidConfiguration || herr[1] != cudaSuccess || herr[2] != -1)
        zt_fail("per-thread last errors %d %d %d, want %d 0 -1", herr[0], herr[1], herr[2],
                cudaErrorInvalidConfiguration);
    return zt_finish();
}
