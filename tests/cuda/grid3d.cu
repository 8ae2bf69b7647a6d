// grid3d: a 3D grid of 3D blocks of several shapes; every thread records
// blockIdx, threadIdx, blockDim and gridDim at its linear index, and every
// field is checked. A last launch uses gridDim.x beyond 65535.
#include "zn_test.h"

__global__ void ids(unsigned *out)
{
    unsigned block = (blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x;
    unsigned tid = (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
    unsigned lin = block * (blockDim.x * blockDim.y * blockDim.z) + tid;
    unsigned *o = out + 12 * lin;
    o[0] = blockIdx.x; o[1] = blockIdx.y; o[2] = blockIdx.z;
    o[3] = threadIdx.x; o[4] = threadIdx.y; o[5] = threadIdx.z;
    o[6] = blockDim.x; o[7] = blockDim.y; o[8] = blockDim.z;
    o[9] = gridDim.x; o[10] = gridDim.y; o[11] = gridDim.z;
}

__global__ void wide(unsigned *out)
{
    out[blockIdx.x * blockDim.x + threadIdx.x] = blockIdx.x ^ (threadIdx.x << 20);
}

// One launch of ids over grid x block; every field of every thread checked.
static void check_ids(dim3 grid, dim3 block)
{
    unsigned total = grid.x * grid.y * grid.z * block.x * block.y * block.z;
    unsigned *dout, *out = (unsigned *)malloc(total * 12 * sizeof(unsigned));
    CK(cudaMalloc(&dout, total * 12 * sizeof(unsigned)));
    POISON(dout, total * 12 * sizeof(unsigned));
    ids<<<grid, block>>>(dout);
    CK_LAUNCH();
    CK(cudaMemcpy(out, dout, total * 12 * sizeof(unsigned), cudaMemcpyDeviceToHost));
    unsigned lin = 0, bad = 0;
    for (unsigned bz = 0; bz < grid.z; bz++)
    for (unsigned by = 0; by < grid.y; by++)
    for (unsigned bx = 0; bx < grid.x; bx++)
    for (unsigned tz = 0; tz < block.z; tz++)
    for (unsigned ty = 0; ty < block.y; ty++)
    for (unsigned tx = 0; tx < block.x; tx++, lin++) {
        unsigned want[12] = {bx, by, bz, tx, ty, tz, block.x, block.y, block.z, grid.x, grid.y, grid.z};
        static const char *field[12] = {"blockIdx.x", "blockIdx.y", "blockIdx.z", "threadIdx.x",
            "threadIdx.y", "threadIdx.z", "blockDim.x", "blockDim.y", "blockDim.z",
            "gridDim.x", "gridDim.y", "gridDim.z"};
        for (int f = 0; f < 12; f++)
            if (out[12 * lin + f] != want[f] && bad++ < 8)
                zt_fail("block %ux%ux%u, thread %u: %s = %u, want %u", block.x, block.y, block.z,
                        lin, field[f], out[12 * lin + f], want[f]);
    }
    CK(cudaFree(dout));
    free(out);
}

int main()
{
    zt_begin("grid3d");
    // x under a warp (the per-lane division), and x of 32 or more (one
    // division per warp: ntid.y a power of two or not, several z planes)
    static const dim3 blocks[] = {dim3(4, 6, 3), dim3(32, 3, 2), dim3(32, 4, 3),
                                  dim3(48, 3, 3), dim3(64, 2, 2)};
    for (const dim3 &block : blocks)
        check_ids(dim3(5, 3, 4), block);

    const unsigned wblocks = 70001, wthreads = 32, wn = wblocks * wthreads;
    unsigned *dw, *w = (unsigned *)malloc(wn * sizeof(unsigned));
    CK(cudaMalloc(&dw, wn * sizeof(unsigned)));
    POISON(dw, wn * sizeof(unsigned));
    wide<<<wblocks, wthreads>>>(dw);
    CK_LAUNCH();
    CK(cudaMemcpy(w, dw, wn * sizeof(unsigned), cudaMemcpyDeviceToHost));
    for (unsigned i = 0; i < wn; i++)
        if (w[i] != ((i / wthreads) ^ ((i % wthreads) << 20)))
            zt_fail("wide[%u] = %u", i, w[i]);
    CK(cudaFree(dw));
    free(w);
    return zt_finish();
}
