/* shared_reserved.cu: the GPU's reserved shared memory (1 KiB per block on
 * sm_80 and later, below the kernel's own .shared variables).
 *
 * - cooperative groups' multi-warp tiles (tiled_partition<64>/<128>): on
 *   sm_80+ CUDA's headers keep their barrier words at
 *   %reserved_smem_offset_1 and never initialise them (the GPU starts
 *   every block with them zero); on older targets they live in the
 *   block_tile_memory the kernel declares. Tile reductions and tile syncs
 *   in many blocks and several launches, against a CPU reference.
 * - the reserved-region special registers, %total_smem_size and
 *   %aggr_smem_size (sm_80+ code only), the first variable's shared
 *   address past the reserved bytes, and CU_DEVICE_ATTRIBUTE_RESERVED_
 *   SHARED_MEMORY_PER_BLOCK.
 * - a store and a load 64 bytes below the first .shared variable succeed,
 *   as they do on an H200 (docs/faults.md).
 */
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include "zn_test.h"

namespace cg = cooperative_groups;

#define BS 256
#define NBLK 24

__global__ void k_tiles(const int *in, int *sum64, int *sum128, int *after)
{
    __shared__ cg::block_tile_memory<BS> scratch;   /* empty on sm_80+ */
    __shared__ int s[BS];
    cg::thread_block block = cg::this_thread_block(scratch);
    unsigned tid = block.thread_rank(), gid = blockIdx.x * BS + tid;
    int v = in[gid];
    cg::thread_block_tile<64> t64 = cg::tiled_partition<64>(block);
    cg::thread_block_tile<128> t128 = cg::tiled_partition<128>(block);
    int r64 = cg::reduce(t64, v, cg::plus<int>());
    int r128 = cg::reduce(t128, v * 3, cg::plus<int>());
    /* a tile barrier orders shared memory inside the tile: read the
     * value of the tile's mirror thread after it */
    s[tid] = v + r64;
    t64.sync();
    int mirror = s[tid - t64.thread_rank() + (63 - t64.thread_rank())];
    sum64[gid] = r64;
    sum128[gid] = r128;
    after[gid] = mirror;
}

struct reserved_info {
    unsigned has, begin, end, cap, off0, off1, total, aggr, dyn, first_var;
    int below;
};

__global__ void k_reserved(reserved_info *out)
{
    __shared__ int first[64];
    extern __shared__ int dyn[];
    unsigned tid = threadIdx.x;
    if (tid < 64)
        first[tid] = (int)tid;
    dyn[tid] = 2 * (int)tid;
    /* 64 bytes below the first variable (integer arithmetic: nvcc warns
     * about a pointer outside its object) */
    volatile int *below = (volatile int *)((uintptr_t)first - 64);
    if (tid == 0)
        below[0] = 12345;
    __syncthreads();
    if (tid != 0)
        return;
    reserved_info r = {};
#if __CUDA_ARCH__ >= 800
    r.has = 1;
    asm volatile("mov.u32 %0, %%reserved_smem_offset_begin;" : "=r"(r.begin));
    asm volatile("mov.u32 %0, %%reserved_smem_offset_end;" : "=r"(r.end));
    asm volatile("mov.u32 %0, %%reserved_smem_offset_cap;" : "=r"(r.cap));
    asm volatile("mov.u32 %0, %%reserved_smem_offset_0;" : "=r"(r.off0));
    asm volatile("mov.u32 %0, %%reserved_smem_offset_1;" : "=r"(r.off1));
    asm volatile("mov.u32 %0, %%aggr_smem_size;" : "=r"(r.aggr));
#endif
    asm volatile("mov.u32 %0, %%total_smem_size;" : "=r"(r.total));
    asm volatile("mov.u32 %0, %%dynamic_smem_size;" : "=r"(r.dyn));
    r.first_var = (unsigned)__cvta_generic_to_shared(first);
    r.below = below[0] + first[5] + dyn[7];
    *out = r;
}

int main(void)
{
    zt_begin("shared_reserved");
    const int n = NBLK * BS;
    int *h_in = (int *)malloc(n * sizeof(int));
    int *h64 = (int *)malloc(n * sizeof(int)), *h128 = (int *)malloc(n * sizeof(int));
    int *hafter = (int *)malloc(n * sizeof(int));
    for (int i = 0; i < n; i++)
        h_in[i] = (int)((i * 2654435761u) >> 20) % 1000 - 500;
    int *d_in, *d64, *d128, *dafter;
    CK(cudaMalloc(&d_in, n * sizeof(int)));
    CK(cudaMalloc(&d64, n * sizeof(int)));
    CK(cudaMalloc(&d128, n * sizeof(int)));
    CK(cudaMalloc(&dafter, n * sizeof(int)));
    CK(cudaMemcpy(d_in, h_in, n * sizeof(int), cudaMemcpyHostToDevice));
    for (int launch = 0; launch < 3; launch++) {
        CK(cudaMemset(d64, 0xab, n * sizeof(int)));     /* poison */
        CK(cudaMemset(d128, 0xab, n * sizeof(int)));
        CK(cudaMemset(dafter, 0xab, n * sizeof(int)));
        k_tiles<<<NBLK, BS>>>(d_in, d64, d128, dafter);
        CK_LAUNCH();
        CK(cudaMemcpy(h64, d64, n * sizeof(int), cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(h128, d128, n * sizeof(int), cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(hafter, dafter, n * sizeof(int), cudaMemcpyDeviceToHost));
        for (int i = 0; i < n; i++) {
            int b64 = i / 64 * 64, b128 = i / 128 * 128, want64 = 0, want128 = 0;
            for (int k = 0; k < 64; k++)
                want64 += h_in[b64 + k];
            for (int k = 0; k < 128; k++)
                want128 += 3 * h_in[b128 + k];
            int m = b64 + 63 - (i - b64);
            if (h64[i] != want64)
                zt_fail("launch %d: tile<64> sum at %d: %d, want %d", launch, i, h64[i], want64);
            if (h128[i] != want128)
                zt_fail("launch %d: tile<128> sum at %d: %d, want %d", launch, i, h128[i],
                        want128);
            if (hafter[i] != h_in[m] + want64)
                zt_fail("launch %d: after tile sync at %d: %d, want %d", launch, i, hafter[i],
                        h_in[m] + want64);
        }
    }

    reserved_info *d_info, info;
    CK(cudaMalloc(&d_info, sizeof info));
    CK(cudaMemset(d_info, 0xff, sizeof info));
    const unsigned dyn_bytes = 128 * sizeof(int);
    k_reserved<<<1, 128, dyn_bytes>>>(d_info);
    CK_LAUNCH();
    CK(cudaMemcpy(&info, d_info, sizeof info, cudaMemcpyDeviceToHost));
    int reserved = -1;
    CK(cudaDeviceGetAttribute(&reserved, cudaDevAttrReservedSharedMemoryPerBlock, 0));
    if (reserved != 1024)
        zt_fail("reserved shared memory per block %d, want 1024", reserved);
    /* 256 static bytes (first[64]), 512 dynamic */
    if (info.total != 256 + dyn_bytes || info.dyn != dyn_bytes)
        zt_fail("%%total_smem_size %u, %%dynamic_smem_size %u; want %u, %u", info.total,
                info.dyn, 256 + dyn_bytes, dyn_bytes);
    if (info.first_var < (unsigned)reserved)
        zt_fail("first .shared variable at shared address %u, inside the reserved %d bytes",
                info.first_var, reserved);
    if (info.has) {
        if (info.begin != 0 || info.end != 1024 || info.cap != 1024)
            zt_fail("reserved region [%u, %u) cap %u, want [0, 1024) cap 1024", info.begin,
                    info.end, info.cap);
        if (info.off1 < info.begin || info.off1 + 288 > info.end || info.off0 >= info.end)
            zt_fail("%%reserved_smem_offset_0 %u / _1 %u: cooperative groups need 288 bytes "
                    "at _1 inside the region", info.off0, info.off1);
        if (info.aggr != info.total + 1024)
            zt_fail("%%aggr_smem_size %u, want %u", info.aggr, info.total + 1024);
    }
    if (info.below != 12345 + 5 + 14)
        zt_fail("store/load 64 bytes below the first variable: %d, want %d", info.below,
                12345 + 5 + 14);
    CK(cudaFree(d_info));
    CK(cudaFree(d_in));
    CK(cudaFree(d64));
    CK(cudaFree(d128));
    CK(cudaFree(dafter));
    free(h_in);
    free(h64);
    free(h128);
    free(hafter);
    return zt_finish();
}
