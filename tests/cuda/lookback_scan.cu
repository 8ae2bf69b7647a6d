// lookback_scan: blocks talk to each other through global memory, as CUB's
// single-pass scan does. (1) A hand-written decoupled look-back: each block
// publishes {status, aggregate} in one 8-byte st.relaxed.gpu.v2.u32 and
// spins on ld.relaxed.gpu.v2.u32 of its predecessors; a torn read (status
// new, value old) gives a wrong prefix. (2) cub::DeviceScan::ExclusiveSum,
// which uses the same protocol. Both checked against a host prefix sum.
#include <cub/device/device_scan.cuh>
#include "zn_test.h"

#define TILE 256
#define ST_INVALID 0u
#define ST_AGGREGATE 1u
#define ST_PREFIX 2u

__device__ void publish(unsigned long long *slot, unsigned status, unsigned value)
{
    asm volatile("st.relaxed.gpu.global.v2.u32 [%0], {%1, %2};"
                 :: "l"(slot), "r"(status), "r"(value) : "memory");
}

__device__ void observe(const unsigned long long *slot, unsigned *status, unsigned *value)
{
    asm volatile("ld.relaxed.gpu.global.v2.u32 {%0, %1}, [%2];"
                 : "=r"(*status), "=r"(*value) : "l"(slot) : "memory");
}

// One tile per block; tiles are claimed in order through a counter so that
// a block only ever waits for tiles already being worked on.
__global__ void lookback(const unsigned *in, unsigned *out, unsigned long long *slots,
                         unsigned *tile_counter, int n)
{
    __shared__ unsigned sh[TILE];
    __shared__ unsigned tile_sh, prefix_sh;
    if (threadIdx.x == 0)
        tile_sh = atomicAdd(tile_counter, 1u);
    __syncthreads();
    unsigned tile = tile_sh;
    int i = tile * TILE + threadIdx.x;
    unsigned v = i < n ? in[i] : 0u;
    sh[threadIdx.x] = v;
    __syncthreads();
    for (int s = 1; s < TILE; s <<= 1) {    // Hillis-Steele inclusive scan
        unsigned t = threadIdx.x >= s ? sh[threadIdx.x - s] : 0u;
        __syncthreads();
        sh[threadIdx.x] += t;
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        unsigned agg = sh[TILE - 1], prefix = 0;
        if (tile == 0) {
            publish(&slots[0], ST_PREFIX, agg);
        } else {
            publish(&slots[tile], ST_AGGREGATE, agg);
            for (int p = (int)tile - 1; p >= 0; p--) {
                unsigned st, val;
                do
                    observe(&slots[p], &st, &val);
                while (st == ST_INVALID);
                prefix += val;
                if (st == ST_PREFIX)
                    break;
            }
            publish(&slots[tile], ST_PREFIX, prefix + agg);
        }
        prefix_sh = prefix;
    }
    __syncthreads();
    if (i < n)
        out[i] = prefix_sh + sh[threadIdx.x] - v;   // exclusive
}

static int check(const char *what, const unsigned *got, const unsigned *in, int n)
{
    unsigned acc = 0;
    for (int i = 0; i < n; i++) {
        if (got[i] != acc) {
            zt_fail("%s: out[%d] = %u, want %u", what, i, got[i], acc);
            return 1;
        }
        acc += in[i];
    }
    return 0;
}

int main(void)
{
    zt_begin("lookback_scan");
    const int n = 1 << 21, tiles = (n + TILE - 1) / TILE;
    unsigned *hin = (unsigned *)malloc(n * sizeof *hin), *hout = (unsigned *)malloc(n * sizeof *hout);
    for (int i = 0; i < n; i++)
        hin[i] = zt_rand() & 0xffff;
    unsigned *in, *out, *counter;
    unsigned long long *slots;
    CK(cudaMalloc(&in, n * sizeof *in));
    CK(cudaMalloc(&out, n * sizeof *out));
    CK(cudaMalloc(&slots, tiles * sizeof *slots));
    CK(cudaMalloc(&counter, sizeof *counter));
    CK(cudaMemcpy(in, hin, n * sizeof *in, cudaMemcpyHostToDevice));
    for (int round = 0; round < 4; round++) {
        CK(cudaMemset(slots, 0, tiles * sizeof *slots));
        CK(cudaMemset(counter, 0, sizeof *counter));
        POISON(out, n * sizeof *out);
        lookback<<<tiles, TILE>>>(in, out, slots, counter, n);
        CK_LAUNCH();
        CK(cudaMemcpy(hout, out, n * sizeof *out, cudaMemcpyDeviceToHost));
        if (check("look-back", hout, hin, n))
            break;
    }
    size_t tmp_bytes = 0;
    CK(cub::DeviceScan::ExclusiveSum(NULL, tmp_bytes, in, out, n));
    void *tmp;
    CK(cudaMalloc(&tmp, tmp_bytes));
    for (int round = 0; round < 4; round++) {
        POISON(out, n * sizeof *out);
        CK(cub::DeviceScan::ExclusiveSum(tmp, tmp_bytes, in, out, n));
        CK(cudaDeviceSynchronize());
        CK(cudaMemcpy(hout, out, n * sizeof *out, cudaMemcpyDeviceToHost));
        if (check("cub::DeviceScan::ExclusiveSum", hout, hin, n))
            break;
    }
    CK(cudaFree(tmp));
    CK(cudaFree(in));
    CK(cudaFree(out));
    CK(cudaFree(slots));
    CK(cudaFree(counter));
    free(hin);
    free(hout);
    return zt_finish();
}
