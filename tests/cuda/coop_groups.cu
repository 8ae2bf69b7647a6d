/* coop_groups.cu: cooperative groups through Zinc (issue #3).
 *
 * Block-level groups: thread_block sync, tiled_partition<32>/<16>/<4> with
 * shfl and cg::reduce(cg::plus), coalesced_threads() under divergence,
 * labeled_partition. Grid level: a kernel launched with
 * cudaLaunchCooperativeKernel on the largest co-resident grid (occupancy x
 * SMs) that writes in phase 1, grid.sync()s, and reads other blocks' data
 * in phase 2, several rounds; and a too-large cooperative grid refused with
 * cudaErrorCooperativeLaunchTooLarge. All against CPU references. Last, a
 * block that traps while the others wait in grid.sync() fails the launch
 * instead of hanging it.
 */
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include "zn_test.h"

namespace cg = cooperative_groups;

#define BS 256

struct tile_out {
    int rev;            /* thread_block: shared value of thread BS-1-tid */
    int sum32, bcast32; /* tile<32>: reduce, shfl from lane 0 */
    int sum16, xor16;   /* tile<16>: reduce, shfl_xor 1 */
    int sum4, down4;    /* tile<4>: reduce, shfl_down 1 (own value at the end) */
    int meta16;         /* tile<16>.meta_group_rank() */
    int any16, all16, ballot16, any4;   /* tile votes: v < 0, v > -250, v & 1, v % 7 == 0 */
    int csize, crank, csum;   /* coalesced_threads() where v % 3 == 0, else -1 */
    int lsize, lrank, lsum;   /* labeled_partition(tile32, v & 3) */
};

__global__ void k_groups(const int *in, tile_out *out)
{
    __shared__ int s[BS];
    cg::thread_block block = cg::this_thread_block();
    unsigned tid = block.thread_rank();
    unsigned gid = blockIdx.x * BS + tid;
    int v = in[gid];
    tile_out o;
    s[tid] = v;
    block.sync();
    o.rev = s[BS - 1 - tid];

    cg::thread_block_tile<32> t32 = cg::tiled_partition<32>(block);
    o.sum32 = cg::reduce(t32, v, cg::plus<int>());
    o.bcast32 = t32.shfl(v, 0);
    cg::thread_block_tile<16> t16 = cg::tiled_partition<16>(block);
    o.sum16 = cg::reduce(t16, v, cg::plus<int>());
    o.xor16 = t16.shfl_xor(v, 1);
    o.meta16 = (int)t16.meta_group_rank();
    o.any16 = t16.any(v < 0);
    o.all16 = t16.all(v > -250);
    o.ballot16 = (int)t16.ballot(v & 1);
    cg::thread_block_tile<4> t4 = cg::tiled_partition<4>(block);
    o.sum4 = cg::reduce(t4, v, cg::plus<int>());
    o.down4 = t4.shfl_down(v, 1);
    o.any4 = t4.any(v % 7 == 0);

    o.csize = o.crank = o.csum = -1;
    if (v % 3 == 0) {
        cg::coalesced_group g = cg::coalesced_threads();
        o.csize = (int)g.size();
        o.crank = (int)g.thread_rank();
        o.csum = cg::reduce(g, v, cg::plus<int>());
    }
    cg::coalesced_group lg = cg::labeled_partition(t32, v & 3);
    o.lsize = (int)lg.size();
    o.lrank = (int)lg.thread_rank();
    o.lsum = cg::reduce(lg, v, cg::plus<int>());
    out[gid] = o;
}

/* Rounds of: every thread writes its slot of `a` from `b` read across
 * blocks, grid.sync(), swap. Slot i of round r reads slot (i + shift) % n
 * of the previous round, shift = 3 blocks + 5 threads, so every read comes
 * from another block's phase-1 write. */
__global__ void k_grid(int *a, int *b, int rounds, unsigned *info)
{
    cg::grid_group grid = cg::this_grid();
    unsigned n = (unsigned)grid.size();
    unsigned i = (unsigned)grid.thread_rank();
    unsigned shift = 3 * blockDim.x + 5;
    if (i == 0) {
        info[0] = grid.is_valid();
        info[1] = n;
        info[2] = grid.num_blocks();
    }
    a[i] = (int)(i * 7 + 1);            /* phase 1: every block writes */
    for (int r = 0; r < rounds; r++) {
        grid.sync();
        b[i] = a[(i + shift) % n] * 3 + r;  /* phase 2: others' data */
        int *t = a; a = b; b = t;
    }
}

/* Block `fail` traps before the grid barrier the others wait in. */
__global__ void k_grid_trap(int *out, unsigned fail)
{
    cg::grid_group grid = cg::this_grid();
    if (blockIdx.x == fail)
        __trap();
    grid.sync();
    out[grid.thread_rank()] = 1;
}

static void check_groups(void)
{
    const int nblocks = 16, n = nblocks * BS;
    int *h_in = (int *)malloc(n * sizeof(int));
    for (int i = 0; i < n; i++)
        h_in[i] = (int)(zt_rand() % 1000) - 300;
    int *d_in;
    tile_out *d_out;
    CK(cudaMalloc(&d_in, n * sizeof(int)));
    CK(cudaMalloc(&d_out, n * sizeof(tile_out)));
    CK(cudaMemcpy(d_in, h_in, n * sizeof(int), cudaMemcpyHostToDevice));
    CK(cudaMemset(d_out, 0xA5, n * sizeof(tile_out)));   /* poison */
    k_groups<<<nblocks, BS>>>(d_in, d_out);
    CK_LAUNCH();
    tile_out *h = (tile_out *)malloc(n * sizeof(tile_out));
    CK(cudaMemcpy(h, d_out, n * sizeof(tile_out), cudaMemcpyDeviceToHost));

    for (int i = 0; i < n; i++) {
        int tid = i % BS, blk = i / BS;
        int w0 = i & ~31, t16 = i & ~15, t4 = i & ~3;
        tile_out e;
        e.rev = h_in[blk * BS + BS - 1 - tid];
        e.sum32 = e.sum16 = e.sum4 = 0;
        for (int k = 0; k < 32; k++) e.sum32 += h_in[w0 + k];
        for (int k = 0; k < 16; k++) e.sum16 += h_in[t16 + k];
        for (int k = 0; k < 4; k++) e.sum4 += h_in[t4 + k];
        e.bcast32 = h_in[w0];
        e.xor16 = h_in[i ^ 1];
        e.down4 = (i & 3) == 3 ? h_in[i] : h_in[i + 1];
        e.meta16 = tid / 16;
        e.any16 = 0, e.all16 = 1, e.ballot16 = 0, e.any4 = 0;
        for (int k = 0; k < 16; k++) {
            int x = h_in[t16 + k];
            e.any16 |= x < 0;
            e.all16 &= x > -250;
            e.ballot16 |= (x & 1) << k;
        }
        for (int k = 0; k < 4; k++)
            e.any4 |= h_in[t4 + k] % 7 == 0;
        e.csize = e.crank = e.csum = -1;
        if (h_in[i] % 3 == 0) {
            e.csize = e.crank = e.csum = 0;
            for (int k = 0; k < 32; k++) {
                int x = h_in[w0 + k];
                if (x % 3 != 0)
                    continue;
                e.csize++;
                e.csum += x;
                if (w0 + k < i)
                    e.crank++;
            }
        }
        e.lsize = e.lrank = e.lsum = 0;
        for (int k = 0; k < 32; k++) {
            int x = h_in[w0 + k];
            if ((x & 3) != (h_in[i] & 3))
                continue;
            e.lsize++;
            e.lsum += x;
            if (w0 + k < i)
                e.lrank++;
        }
#define F(f) if (h[i].f != e.f) zt_fail("groups thread %d " #f ": got %d want %d", i, h[i].f, e.f)
        F(rev); F(sum32); F(bcast32); F(sum16); F(xor16); F(sum4); F(down4); F(meta16);
        F(any16); F(all16); F(ballot16); F(any4);
        F(csize); F(crank); F(csum); F(lsize); F(lrank); F(lsum);
#undef F
    }
    free(h);
    free(h_in);
    CK(cudaFree(d_in));
    CK(cudaFree(d_out));
}

static void check_grid_sync(void)
{
    const int bs = 128, rounds = 5;
    int per_sm = 0, sms = 0, coop = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k_grid, bs, 0));
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    CK(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, 0));
    if (per_sm < 1 || sms < 1 || !coop) {
        zt_fail("occupancy %d blocks/SM, %d SMs, cooperative launch %d", per_sm, sms, coop);
        return;
    }
    unsigned nblocks = (unsigned)(per_sm * sms), n = nblocks * bs;
    printf("grid sync: %u blocks of %d threads (%d per SM x %d SMs), %d rounds\n",
           nblocks, bs, per_sm, sms, rounds);
    int *d_a, *d_b;
    unsigned *d_info;
    CK(cudaMalloc(&d_a, n * sizeof(int)));
    CK(cudaMalloc(&d_b, n * sizeof(int)));
    CK(cudaMalloc(&d_info, 3 * sizeof(unsigned)));
    CK(cudaMemset(d_a, 0xA5, n * sizeof(int)));
    CK(cudaMemset(d_b, 0xA5, n * sizeof(int)));
    CK(cudaMemset(d_info, 0xA5, 3 * sizeof(unsigned)));
    int r = rounds;
    void *args[] = {&d_a, &d_b, &r, &d_info};
    CK(cudaLaunchCooperativeKernel((void *)k_grid, dim3(nblocks), dim3(bs), args, 0, 0));
    CK(cudaDeviceSynchronize());

    /* CPU reference of the same rounds */
    unsigned shift = 3 * bs + 5;
    int *ra = (int *)malloc(n * sizeof(int)), *rb = (int *)malloc(n * sizeof(int));
    for (unsigned i = 0; i < n; i++)
        ra[i] = (int)(i * 7 + 1);
    for (int k = 0; k < rounds; k++) {
        for (unsigned i = 0; i < n; i++)
            rb[i] = ra[(i + shift) % n] * 3 + k;
        int *t = ra; ra = rb; rb = t;
    }
    /* after an odd number of rounds the kernel's last writes are in b */
    int *h = (int *)malloc(n * sizeof(int));
    CK(cudaMemcpy(h, rounds % 2 ? d_b : d_a, n * sizeof(int), cudaMemcpyDeviceToHost));
    for (unsigned i = 0; i < n; i++)
        if (h[i] != ra[i])
            zt_fail("grid sync slot %u: got %d want %d", i, h[i], ra[i]);
    unsigned info[3];
    CK(cudaMemcpy(info, d_info, sizeof info, cudaMemcpyDeviceToHost));
    if (info[0] != 1 || info[1] != n || info[2] != nblocks)
        zt_fail("grid group: valid %u size %u blocks %u, want 1 %u %u", info[0], info[1],
                info[2], n, nblocks);

    /* one block more than can be co-resident: refused, not sticky */
    cudaError_t e = cudaLaunchCooperativeKernel((void *)k_grid, dim3(nblocks + 1), dim3(bs),
                                                args, 0, 0);
    if (e != cudaErrorCooperativeLaunchTooLarge)
        zt_fail("too large cooperative grid: %s (%d), want cudaErrorCooperativeLaunchTooLarge",
                cudaGetErrorString(e), (int)e);
    (void)cudaGetLastError();
    CK(cudaDeviceSynchronize());
    free(ra);
    free(rb);
    free(h);
    CK(cudaFree(d_a));
    CK(cudaFree(d_b));
    CK(cudaFree(d_info));
}

/* A block traps while the rest of the grid waits in grid.sync(): the
 * launch fails with cudaErrorLaunchFailure, as a GPU kills the grid, rather
 * than the waiting blocks spinning forever. The error is sticky: last. */
static void check_grid_trap(void)
{
    const unsigned nblocks = 8, bs = 64;
    int *d_out;
    CK(cudaMalloc(&d_out, nblocks * bs * sizeof(int)));
    unsigned fail = 5;
    void *args[] = {&d_out, &fail};
    cudaError_t e = cudaLaunchCooperativeKernel((void *)k_grid_trap, dim3(nblocks), dim3(bs),
                                                args, 0, 0);
    if (e == cudaSuccess)
        e = cudaDeviceSynchronize();
    if (e != cudaErrorLaunchFailure)
        zt_fail("trap in one block of a cooperative grid: %s (%d), want "
                "cudaErrorLaunchFailure", cudaGetErrorString(e), (int)e);
}

int main(void)
{
    zt_begin("coop_groups");
    check_groups();
    check_grid_sync();
    check_grid_trap();
    return zt_finish();
}
