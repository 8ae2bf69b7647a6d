// racecheck_cases: ZINC_CHECK=racecheck, one case per run (argv[1]).
//   missing  a block reduction without the __syncthreads between the
//            stores to shared memory and the tree's reads (a read-write
//            race between warps): reported with both source lines
//   clean    the same reduction with the barrier: no report, right sums
//   waw      every thread stores its index to one shared word (write-write)
//   atomics  a shared-memory histogram built with atomicAdd: no report
//   bytes    four warps store to different bytes of the same 4-byte words,
//            then (after a barrier) each reads a neighbour's byte: no report
//   bytes_race  the same without the barrier: a byte-sized race
// racecheck reports and lets the kernel run on: every case must still end
// with cudaSuccess (and the correct cases with right results). CTest
// (tests/cuda/racecheck.cmake) matches the report text.
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    printf("FAIL %s: %s\n", #x, cudaGetErrorString(e_)); exit(1); } } while (0)

#define NT 256
#define NB 4

__global__ void sum_racy(const int *in, int *out)
{
    __shared__ int s[NT];
    s[threadIdx.x] = in[blockIdx.x * NT + threadIdx.x]; // RACE_STORE
    // the bug: no __syncthreads() here
    for (int w = NT / 2; w > 0; w /= 2) {
        if ((int)threadIdx.x < w)
            s[threadIdx.x] += s[threadIdx.x + w]; // RACE_TREE
        __syncthreads();
    }
    if (threadIdx.x == 0)
        out[blockIdx.x] = s[0];
}

__global__ void sum_ok(const int *in, int *out)
{
    __shared__ int s[NT];
    s[threadIdx.x] = in[blockIdx.x * NT + threadIdx.x];
    __syncthreads();
    for (int w = NT / 2; w > 0; w /= 2) {
        if ((int)threadIdx.x < w)
            s[threadIdx.x] += s[threadIdx.x + w];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        out[blockIdx.x] = s[0];
}

__global__ void last_writer(int *out)
{
    __shared__ int s;
    s = threadIdx.x; // WAW_STORE
    __syncthreads();
    if (threadIdx.x == 0)
        out[blockIdx.x] = s;
}

__global__ void shared_histogram(const int *in, int *out)
{
    __shared__ int h[16];
    if (threadIdx.x < 16)
        h[threadIdx.x] = 0;
    __syncthreads();
    atomicAdd(&h[in[blockIdx.x * NT + threadIdx.x] & 15], 1);
    __syncthreads();
    if (threadIdx.x < 16)
        out[blockIdx.x * 16 + threadIdx.x] = h[threadIdx.x];
}

// byte idx of thread t: lane-major, so the 4 bytes of a word belong to 4
// warps (NT = 256: 8 warps, 8 bytes per lane)
__device__ int byte_slot(int t)
{
    return (t % 32) * 8 + t / 32;
}

__global__ void byte_neighbours(int *out, int sync)
{
    __shared__ unsigned char c[NT];
    int t = threadIdx.x;
    c[byte_slot(t)] = (unsigned char)(t + blockIdx.x); // BYTE_STORE
    if (sync)
        __syncthreads();
    out[blockIdx.x * NT + t] = c[byte_slot(t) ^ 1]; // BYTE_LOAD
}

static int *upload(const int *h, size_t n)
{
    int *d;
    CK(cudaMalloc(&d, n * sizeof *d));
    CK(cudaMemcpy(d, h, n * sizeof *d, cudaMemcpyHostToDevice));
    return d;
}

static int *poisoned(size_t n)
{
    int *d;
    CK(cudaMalloc(&d, n * sizeof *d));
    CK(cudaMemset(d, 0xa5, n * sizeof *d)); // poison: 0xa5a5a5a5
    return d;
}

int main(int argc, char **argv)
{
    const char *c = argc > 1 ? argv[1] : "";
    int in[NB * NT];
    for (int i = 0; i < NB * NT; i++)
        in[i] = (i * 7919) % 1000 - 300;
    int *din = upload(in, NB * NT);
    int *dout = poisoned(NB * NT);
    static int out[NB * NT];
    const int poison = (int)0xa5a5a5a5;
    int bad = 0;
    if (!strcmp(c, "missing") || !strcmp(c, "clean")) {
        if (c[0] == 'm')
            sum_racy<<<NB, NT>>>(din, dout);
        else
            sum_ok<<<NB, NT>>>(din, dout);
        CK(cudaGetLastError());
        CK(cudaDeviceSynchronize());
        CK(cudaMemcpy(out, dout, NB * sizeof *out, cudaMemcpyDeviceToHost));
        for (int b = 0; b < NB; b++) {
            int want = 0;
            for (int t = 0; t < NT; t++)
                want += in[b * NT + t];
            // racy: any value but the poison (the kernel ran to its end)
            if (c[0] == 'm' ? out[b] == poison : out[b] != want) {
                printf("FAIL block %d: got %d want %d\n", b, out[b], want);
                bad = 1;
            }
        }
    } else if (!strcmp(c, "waw")) {
        last_writer<<<NB, NT>>>(dout);
        CK(cudaGetLastError());
        CK(cudaDeviceSynchronize());
        CK(cudaMemcpy(out, dout, NB * sizeof *out, cudaMemcpyDeviceToHost));
        for (int b = 0; b < NB; b++)
            if (out[b] < 0 || out[b] >= NT) {
                printf("FAIL block %d: got %d, not a thread index\n", b, out[b]);
                bad = 1;
            }
    } else if (!strcmp(c, "atomics")) {
        shared_histogram<<<NB, NT>>>(din, dout);
        CK(cudaGetLastError());
        CK(cudaDeviceSynchronize());
        CK(cudaMemcpy(out, dout, NB * 16 * sizeof *out, cudaMemcpyDeviceToHost));
        for (int b = 0; b < NB; b++)
            for (int k = 0; k < 16; k++) {
                int want = 0;
                for (int t = 0; t < NT; t++)
                    want += (in[b * NT + t] & 15) == k;
                if (out[b * 16 + k] != want) {
                    printf("FAIL block %d bin %d: got %d want %d\n", b, k, out[b * 16 + k],
                           want);
                    bad = 1;
                }
            }
    } else if (!strcmp(c, "bytes") || !strcmp(c, "bytes_race")) {
        int sync = !strcmp(c, "bytes");
        byte_neighbours<<<NB, NT>>>(dout, sync);
        CK(cudaGetLastError());
        CK(cudaDeviceSynchronize());
        CK(cudaMemcpy(out, dout, NB * NT * sizeof *out, cudaMemcpyDeviceToHost));
        for (int b = 0; b < NB && !bad; b++)
            for (int t = 0; t < NT; t++) {
                int slot = ((t % 32) * 8 + t / 32) ^ 1, src = slot / 8 + (slot % 8) * 32;
                int want = (unsigned char)(src + b);
                // racy: any byte value (the kernel ran to its end)
                if (sync ? out[b * NT + t] != want : (out[b * NT + t] & ~0xff) != 0) {
                    printf("FAIL block %d thread %d: got %d want %d\n", b, t, out[b * NT + t],
                           want);
                    bad = 1;
                    break;
                }
            }
    } else {
        printf("FAIL unknown case '%s'\n", c);
        return 1;
    }
    CK(cudaFree(din));
    CK(cudaFree(dout));
    if (!bad)
        printf("PASS %s\n", c);
    fflush(stdout); // before the summary that ZINC_CHECK prints at exit
    return bad;
}
