/* cluster_dsmem.cu: thread block clusters (sm_90), built with -arch=sm_90.
 *
 * - the CUDA programming guide's distributed-shared-memory histogram: each
 *   block of a cluster owns a slice of the bins in its shared memory, every
 *   block atomicAdds into the owner's slice through map_shared_rank, then
 *   the slices are added to the global histogram; cudaLaunchKernelEx with
 *   the cluster attribute, clusters of 2 and 4 and a non-portable 16;
 * - a __cluster_dims__(2,2,1) kernel launched with <<<>>>: block_rank,
 *   dim_blocks, block_index and the %cluster* registers against the values
 *   computed here, and a ring exchange through peers' shared memory;
 * - an ordinary launch: the implicit 1x1x1 cluster's registers;
 * - misuse: a grid that is not a multiple of the cluster, a cluster over 8
 *   without the non-portable attribute, over 16 with it, another shape
 *   than the kernel's: cudaErrorInvalidClusterSize;
 * - inline PTX: mapa.shared::cluster.u32, st/ld/atom/red.shared::cluster,
 *   a split barrier.cluster.arrive.release / wait.acquire, fence.acq_rel.cluster;
 * - mbarrier arrivals from other blocks (.shared::cluster, cluster scope);
 * - the occupancy queries and cluster attributes.
 * Outputs are poisoned before each kernel; references are computed here.
 */
#include "zn_test.h"
#include <cooperative_groups.h>

namespace cg = cooperative_groups;


__global__ void cluster_hist(const int *in, int n, int *out, int nbins)
{
    extern __shared__ int smem[];
    cg::cluster_group cluster = cg::this_cluster();
    unsigned rank = cluster.block_rank();
    int per = nbins / (int)cluster.num_blocks();
    for (int i = threadIdx.x; i < per; i += blockDim.x)
        smem[i] = 0;
    cluster.sync();     /* every slice is zeroed before anyone adds to it */
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        int bin = in[i] % nbins;
        int *dst = cluster.map_shared_rank(smem, bin / per);
        atomicAdd(dst + bin % per, 1);
    }
    cluster.sync();     /* no block exits while others still add to it */
    for (int i = threadIdx.x; i < per; i += blockDim.x)
        atomicAdd(&out[rank * per + i], smem[i]);
}

__device__ unsigned sreg(int k)
{
    unsigned v = 0;
    switch (k) {
    case 0: asm volatile("mov.u32 %0, %%clusterid.x;" : "=r"(v)); break;
    case 1: asm volatile("mov.u32 %0, %%clusterid.y;" : "=r"(v)); break;
    case 2: asm volatile("mov.u32 %0, %%nclusterid.x;" : "=r"(v)); break;
    case 3: asm volatile("mov.u32 %0, %%nclusterid.y;" : "=r"(v)); break;
    case 4: asm volatile("mov.u32 %0, %%cluster_ctaid.x;" : "=r"(v)); break;
    case 5: asm volatile("mov.u32 %0, %%cluster_ctaid.y;" : "=r"(v)); break;
    case 6: asm volatile("mov.u32 %0, %%cluster_nctaid.x;" : "=r"(v)); break;
    case 7: asm volatile("mov.u32 %0, %%cluster_nctaid.y;" : "=r"(v)); break;
    case 8: asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(v)); break;
    case 9: asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(v)); break;
    case 10:
        asm volatile("{ .reg .pred p; mov.pred p, %%is_explicit_cluster; selp.u32 %0, 1, 0, p; }"
                     : "=r"(v));
        break;
    }
    return v;
}
#define NSREG 11
#define POISON_WORD 0xdeadbeefu

/* out[block * NSREG + k]: special register k, read by thread 0 */
__global__ void regs_plain(unsigned *out)
{
    unsigned b = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
    if (threadIdx.x == 0)
        for (int k = 0; k < NSREG; k++)
            out[b * NSREG + k] = sreg(k);
}

/* Compile-time 2x2 clusters: the registers, cg's view of the cluster, and
 * each block reading its ring neighbour's shared word. */
__global__ void __cluster_dims__(2, 2, 1) ring(unsigned *out, unsigned *cgv, unsigned *nb)
{
    __shared__ unsigned word[64];
    cg::cluster_group cluster = cg::this_cluster();
    unsigned b = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
    if (threadIdx.x == 0)
        for (int k = 0; k < NSREG; k++)
            out[b * NSREG + k] = sreg(k);
    if (threadIdx.x < 64)
        word[threadIdx.x] = b * 1000 + threadIdx.x;
    if (threadIdx.x == 0) {
        cgv[b * 8 + 0] = cluster.block_rank();
        cgv[b * 8 + 1] = cluster.num_blocks();
        cgv[b * 8 + 2] = cluster.dim_blocks().x;
        cgv[b * 8 + 3] = cluster.dim_blocks().y;
        cgv[b * 8 + 4] = cluster.block_index().x;
        cgv[b * 8 + 5] = cluster.block_index().y;
    }
    cluster.sync();
    unsigned peer = (cluster.block_rank() + 1) % cluster.num_blocks();
    const unsigned *pw = cluster.map_shared_rank(word, peer);
    if (threadIdx.x < 64)
        nb[b * 64 + threadIdx.x] = pw[threadIdx.x];
    if (threadIdx.x == 0)   /* getctarank.u64 on a generic address */
        cgv[b * 8 + 6] = cluster.query_shared_rank(pw) * 100 + cluster.query_shared_rank(word);
    cluster.sync();
}

/* cfg: a launch of grid x block with smem dynamic shared bytes in clusters
 * of cs blocks along x, by its one attribute attr[0]. */
static void cluster_config(cudaLaunchConfig_t *cfg, cudaLaunchAttribute *attr, dim3 grid,
                           dim3 block, unsigned cs, size_t smem)
{
    *cfg = cudaLaunchConfig_t{};
    cfg->gridDim = grid;
    cfg->blockDim = block;
    cfg->dynamicSmemBytes = smem;
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = cs;
    attr[0].val.clusterDim.y = 1;
    attr[0].val.clusterDim.z = 1;
    cfg->attrs = attr;
    cfg->numAttrs = 1;
}

/* PTX level: 32-bit .shared::cluster addresses from mapa.shared::cluster,
 * st/ld/atom/red.shared::cluster on them (a shared::cta address used as
 * shared::cluster is the executing block's), and a split
 * barrier.cluster.arrive.release / wait.acquire with work between. Block
 * rank r writes r*100+t into its peer's slot[t] (peer = r ^ 1), atomically
 * adds 1 to every block's counter, then reads back its own slots. */
__global__ void ptx_cluster(unsigned *out)
{
    __shared__ unsigned slot[32];
    __shared__ unsigned counter;
    unsigned t = threadIdx.x, rank, nr;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
    asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(nr));
    unsigned own = (unsigned)__cvta_generic_to_shared(slot);
    unsigned cnt = (unsigned)__cvta_generic_to_shared(&counter);
    slot[t] = POISON_WORD;
    if (t == 0)
        asm volatile("st.shared::cluster.u32 [%0], 0;" ::"r"(cnt) : "memory");
    asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;"
                 ::: "memory");
    unsigned peer_slot, v = rank * 100 + t;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;"
                 : "=r"(peer_slot) : "r"(own + 4 * t), "r"(rank ^ 1));
    asm volatile("st.shared::cluster.u32 [%0], %1;" ::"r"(peer_slot), "r"(v) : "memory");
    unsigned qr_peer, qr_own;
    asm volatile("getctarank.shared::cluster.u32 %0, %1;" : "=r"(qr_peer) : "r"(peer_slot));
    asm volatile("getctarank.shared::cluster.u32 %0, %1;" : "=r"(qr_own) : "r"(own));
    if (t == 0) {
        out[blockIdx.x * 40 + 35] = qr_peer;
        out[blockIdx.x * 40 + 36] = qr_own;
    }
    for (unsigned r = 0; r < nr; r++) {
        unsigned pc, old;
        asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(pc) : "r"(cnt), "r"(r));
        if (t & 1)
            asm volatile("red.shared::cluster.add.u32 [%0], 1;" ::"r"(pc) : "memory");
        else {
            asm volatile("atom.shared::cluster.add.u32 %0, [%1], 1;"
                         : "=r"(old) : "r"(pc) : "memory");
            if (old >= 32 * nr)     /* never: at most 32 * nr adds */
                out[blockIdx.x * 40 + 34] = old;
        }
    }
    asm volatile("barrier.cluster.arrive.release.aligned;" ::: "memory");
    unsigned b = blockIdx.x;
    out[b * 40 + 32] = rank;    /* work between arrive and wait */
    asm volatile("barrier.cluster.wait.acquire.aligned;" ::: "memory");
    unsigned mine, c;
    asm volatile("ld.shared::cluster.u32 %0, [%1];" : "=r"(mine) : "r"(own + 4 * t) : "memory");
    out[b * 40 + t] = mine;
    if (t == 0) {
        asm volatile("ld.shared::cluster.u32 %0, [%1];" : "=r"(c) : "r"(cnt) : "memory");
        out[b * 40 + 33] = c;
    }
    asm volatile("fence.acq_rel.cluster;\n\tbarrier.cluster.arrive;\n\tbarrier.cluster.wait;"
                 ::: "memory");
}

static void test_ptx(void)
{
    const unsigned nblocks = 8, cs = 2;
    unsigned *d, h[nblocks * 40];
    CK(cudaMalloc(&d, sizeof h));
    CK(cudaMemset(d, 0xef, sizeof h));
    cudaLaunchConfig_t cfg;
    cudaLaunchAttribute attr[1];
    cluster_config(&cfg, attr, dim3(nblocks), dim3(32), cs, 0);
    CK(cudaLaunchKernelEx(&cfg, ptx_cluster, d));
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    for (unsigned b = 0; b < nblocks; b++) {
        unsigned rank = b % cs;
        for (unsigned t = 0; t < 32; t++)
            if (h[b * 40 + t] != (rank ^ 1) * 100 + t)
                zt_fail("ptx: block %u slot %u = %u, expected %u", b, t, h[b * 40 + t],
                        (rank ^ 1) * 100 + t);
        if (h[b * 40 + 32] != rank)
            zt_fail("ptx: block %u rank %u, expected %u", b, h[b * 40 + 32], rank);
        if (h[b * 40 + 33] != 32 * cs)
            zt_fail("ptx: block %u counter %u, expected %u", b, h[b * 40 + 33], 32 * cs);
        if (h[b * 40 + 35] != (rank ^ 1) || h[b * 40 + 36] != rank)
            zt_fail("ptx: block %u getctarank %u and %u, expected %u and %u", b,
                    h[b * 40 + 35], h[b * 40 + 36], rank ^ 1, rank);
    }
    CK(cudaFree(d));
}

/* mbarrier at cluster scope: each block's barrier expects one arrival per
 * block of the cluster; every block adds rank + 1 to each peer's word and
 * then arrives remotely (mbarrier.arrive.release.cluster.shared::cluster on
 * a mapa address); each block's thread 0 waits on its own barrier
 * (try_wait.parity.acquire.cluster) and reads its word. */
__global__ void remote_arrive(unsigned *out)
{
    __shared__ unsigned long long bar;
    __shared__ unsigned data;
    cg::cluster_group cl = cg::this_cluster();
    unsigned rank = cl.block_rank(), n = cl.num_blocks();
    unsigned ba = (unsigned)__cvta_generic_to_shared(&bar);
    if (threadIdx.x == 0) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(ba), "r"(n) : "memory");
        data = 0;
    }
    cl.sync();
    if (threadIdx.x < n) {
        unsigned r;
        asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(r) : "r"(ba), "r"(threadIdx.x));
        atomicAdd(cl.map_shared_rank(&data, threadIdx.x), rank + 1);
        asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];" ::"r"(r)
                     : "memory");
    }
    if (threadIdx.x == 0) {
        unsigned done = 0;
        while (!done)
            asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 "
                         "p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                         : "=r"(done) : "r"(ba), "r"(0) : "memory");
        out[blockIdx.x] = data;
    }
    cl.sync();
}

static void test_remote_arrive(void)
{
    const unsigned nblocks = 16, cs = 4;
    unsigned *d, h[nblocks];
    CK(cudaMalloc(&d, sizeof h));
    CK(cudaMemset(d, 0xef, sizeof h));
    cudaLaunchConfig_t cfg;
    cudaLaunchAttribute attr[1];
    cluster_config(&cfg, attr, dim3(nblocks), dim3(64), cs, 0);
    CK(cudaLaunchKernelEx(&cfg, remote_arrive, d));
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    for (unsigned b = 0; b < nblocks; b++)
        if (h[b] != cs * (cs + 1) / 2)
            zt_fail("remote arrive: block %u word %u, expected %u", b, h[b], cs * (cs + 1) / 2);
    CK(cudaFree(d));
}

static void check_hist(const char *what, const int *h, const int *ref, int nbins)
{
    for (int i = 0; i < nbins; i++)
        if (h[i] != ref[i])
            zt_fail("%s: bin %d = %d, expected %d", what, i, h[i], ref[i]);
}

static cudaError_t launch_hist(dim3 grid, dim3 block, unsigned csize, size_t smem,
                               const int *in, int n, int *out, int nbins)
{
    cudaLaunchConfig_t cfg;
    cudaLaunchAttribute attr[1];
    cluster_config(&cfg, attr, grid, block, csize, smem);
    return cudaLaunchKernelEx(&cfg, cluster_hist, in, n, out, nbins);
}

static void test_hist(void)
{
    const int n = 1 << 16, nbins = 256;
    int *hin = (int *)malloc(n * sizeof(int)), ref[nbins] = {0}, h[nbins];
    unsigned s = 12345;
    for (int i = 0; i < n; i++) {
        s = s * 1103515245u + 12345u;
        hin[i] = (int)((s >> 8) % 100000);
        ref[hin[i] % nbins]++;
    }
    int *din, *dout;
    CK(cudaMalloc(&din, n * sizeof(int)));
    CK(cudaMalloc(&dout, nbins * sizeof(int)));
    CK(cudaMemcpy(din, hin, n * sizeof(int), cudaMemcpyHostToDevice));
    const unsigned sizes[] = {2, 4, 16};
    for (unsigned si = 0; si < 3; si++) {
        unsigned cs = sizes[si];
        if (cs > 8)
            CK(cudaFuncSetAttribute(cluster_hist,
                                    cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
        CK(cudaMemset(dout, 0, nbins * sizeof(int)));
        CK(launch_hist(dim3(cs * 4), dim3(128), cs, nbins / cs * sizeof(int), din, n, dout, nbins));
        CK(cudaDeviceSynchronize());
        memset(h, 0xee, sizeof h);
        CK(cudaMemcpy(h, dout, sizeof h, cudaMemcpyDeviceToHost));
        char what[64];
        snprintf(what, sizeof what, "histogram, clusters of %u", cs);
        check_hist(what, h, ref, nbins);
    }
    CK(cudaFree(din));
    CK(cudaFree(dout));
    free(hin);
}

/* The registers CUDA defines for block (x, y) of grid g in clusters cd. */
static void expect_regs(unsigned x, unsigned y, dim3 g, dim3 cd, int expl, unsigned *e)
{
    e[0] = x / cd.x; e[1] = y / cd.y;
    e[2] = g.x / cd.x; e[3] = g.y / cd.y;
    e[4] = x % cd.x; e[5] = y % cd.y;
    e[6] = cd.x; e[7] = cd.y;
    e[8] = x % cd.x + cd.x * (y % cd.y);
    e[9] = cd.x * cd.y * cd.z;
    e[10] = (unsigned)expl;
}

static void check_regs(const char *what, const unsigned *got, dim3 g, dim3 cd, int expl)
{
    static const char *names[NSREG] = {"clusterid.x", "clusterid.y", "nclusterid.x",
        "nclusterid.y", "cluster_ctaid.x", "cluster_ctaid.y", "cluster_nctaid.x",
        "cluster_nctaid.y", "cluster_ctarank", "cluster_nctarank", "is_explicit_cluster"};
    for (unsigned y = 0; y < g.y; y++)
        for (unsigned x = 0; x < g.x; x++) {
            unsigned e[NSREG], b = x + g.x * y;
            expect_regs(x, y, g, cd, expl, e);
            for (int k = 0; k < NSREG; k++)
                if (got[b * NSREG + k] != e[k])
                    zt_fail("%s: block (%u,%u) %%%s = %u, expected %u", what, x, y, names[k],
                            got[b * NSREG + k], e[k]);
        }
}

static void test_regs_and_ring(void)
{
    dim3 g(6, 4), blk(96);
    unsigned nb = g.x * g.y;
    unsigned *dregs, *dcg, *dnb;
    CK(cudaMalloc(&dregs, nb * NSREG * sizeof(unsigned)));
    CK(cudaMalloc(&dcg, nb * 8 * sizeof(unsigned)));
    CK(cudaMalloc(&dnb, nb * 64 * sizeof(unsigned)));
    unsigned *h = (unsigned *)malloc(nb * 64 * sizeof(unsigned));

    /* an ordinary launch: the implicit 1x1x1 cluster */
    CK(cudaMemset(dregs, 0xef, nb * NSREG * sizeof(unsigned)));
    regs_plain<<<g, blk>>>(dregs);
    CK_LAUNCH();
    CK(cudaMemcpy(h, dregs, nb * NSREG * sizeof(unsigned), cudaMemcpyDeviceToHost));
    check_regs("plain launch", h, g, dim3(1, 1, 1), 0);

    /* __cluster_dims__(2,2,1) through <<<>>> */
    CK(cudaMemset(dregs, 0xef, nb * NSREG * sizeof(unsigned)));
    CK(cudaMemset(dcg, 0xef, nb * 8 * sizeof(unsigned)));
    CK(cudaMemset(dnb, 0xef, nb * 64 * sizeof(unsigned)));
    ring<<<g, blk>>>(dregs, dcg, dnb);
    CK_LAUNCH();
    CK(cudaMemcpy(h, dregs, nb * NSREG * sizeof(unsigned), cudaMemcpyDeviceToHost));
    check_regs("__cluster_dims__(2,2,1)", h, g, dim3(2, 2, 1), 1);
    CK(cudaMemcpy(h, dcg, nb * 8 * sizeof(unsigned), cudaMemcpyDeviceToHost));
    for (unsigned y = 0; y < g.y; y++)
        for (unsigned x = 0; x < g.x; x++) {
            unsigned b = x + g.x * y, rank = x % 2 + 2 * (y % 2);
            unsigned e[7] = {rank, 4, 2, 2, x % 2, y % 2, (rank + 1) % 4 * 100 + rank};
            for (int k = 0; k < 7; k++)
                if (h[b * 8 + k] != e[k])
                    zt_fail("cg view: block (%u,%u) field %d = %u, expected %u", x, y, k,
                            h[b * 8 + k], e[k]);
        }
    CK(cudaMemcpy(h, dnb, nb * 64 * sizeof(unsigned), cudaMemcpyDeviceToHost));
    for (unsigned y = 0; y < g.y; y++)
        for (unsigned x = 0; x < g.x; x++) {
            unsigned b = x + g.x * y, rank = x % 2 + 2 * (y % 2), pr = (rank + 1) % 4;
            unsigned px = x - x % 2 + pr % 2, py = y - y % 2 + pr / 2, pb = px + g.x * py;
            for (unsigned t = 0; t < 64; t++)
                if (h[b * 64 + t] != pb * 1000 + t)
                    zt_fail("ring: block (%u,%u) word %u = %u, expected %u", x, y, t,
                            h[b * 64 + t], pb * 1000 + t);
        }
    CK(cudaFree(dregs));
    CK(cudaFree(dcg));
    CK(cudaFree(dnb));
    free(h);
}

static void expect_err(const char *what, cudaError_t got, cudaError_t want)
{
    (void)cudaGetLastError();
    if (got != want)
        zt_fail("%s: %s (%d), expected %s (%d)", what, cudaGetErrorName(got), (int)got,
                cudaGetErrorName(want), (int)want);
}

static void test_misuse(void)
{
    int *d;
    CK(cudaMalloc(&d, 1024 * sizeof(int)));
    CK(cudaFuncSetAttribute(cluster_hist, cudaFuncAttributeNonPortableClusterSizeAllowed, 0));
    expect_err("grid 6 in clusters of 4", launch_hist(dim3(6), dim3(64), 4, 256, d, 0, d, 256),
               cudaErrorInvalidClusterSize);
    expect_err("portable cluster of 16", launch_hist(dim3(16), dim3(64), 16, 64, d, 0, d, 256),
               cudaErrorInvalidClusterSize);
    CK(cudaFuncSetAttribute(cluster_hist, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    expect_err("cluster of 32", launch_hist(dim3(32), dim3(64), 32, 64, d, 0, d, 256),
               cudaErrorInvalidClusterSize);
    /* ring's compile-time shape is 2x2: another one is refused */
    cudaLaunchConfig_t cfg;
    cudaLaunchAttribute attr[1];
    cluster_config(&cfg, attr, dim3(4, 4), dim3(64), 4, 0);
    unsigned *u = (unsigned *)d;
    expect_err("ring with clusters of 4x1", cudaLaunchKernelEx(&cfg, ring, u, u, u),
               cudaErrorInvalidClusterSize);
    /* ring in a grid that is no multiple of 2x2 */
    expect_err("ring on a 3x2 grid", (ring<<<dim3(3, 2), 64>>>(u, u, u), cudaGetLastError()),
               cudaErrorInvalidClusterSize);
    CK(cudaDeviceSynchronize());
    CK(cudaFree(d));
}

static void test_queries(void)
{
    int v = -1;
    CK(cudaDeviceGetAttribute(&v, cudaDevAttrClusterLaunch, 0));
    if (v != 1)
        zt_fail("cudaDevAttrClusterLaunch = %d, expected 1", v);
    cudaFuncAttributes fa;
    CK(cudaFuncGetAttributes(&fa, ring));
    if (fa.requiredClusterWidth != 2 || fa.requiredClusterHeight != 2 ||
        fa.requiredClusterDepth != 1 || fa.clusterDimMustBeSet != 1)
        zt_fail("ring's attributes: cluster %d x %d x %d, must be set %d (expected 2x2x1, 1)",
                fa.requiredClusterWidth, fa.requiredClusterHeight, fa.requiredClusterDepth,
                fa.clusterDimMustBeSet);
    CK(cudaFuncSetAttribute(cluster_hist, cudaFuncAttributeNonPortableClusterSizeAllowed, 0));
    CK(cudaFuncGetAttributes(&fa, cluster_hist));
    if (fa.requiredClusterWidth != 0 || fa.nonPortableClusterSizeAllowed != 0)
        zt_fail("cluster_hist: required width %d, non-portable %d (expected 0, 0)",
                fa.requiredClusterWidth, fa.nonPortableClusterSizeAllowed);

    /* occupancy: SMs x resident blocks per SM, in clusters */
    int sms = 0, per_sm = 0;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, cluster_hist, 128, 1024));
    cudaLaunchConfig_t cfg;
    cudaLaunchAttribute attr[1];
    cluster_config(&cfg, attr, dim3(8), dim3(128), 4, 1024);
    int nc = -1;
    CK(cudaOccupancyMaxActiveClusters(&nc, cluster_hist, &cfg));
    if (nc != sms * per_sm / 4)
        zt_fail("max active clusters of 4 = %d, expected %d SMs x %d / 4", nc, sms, per_sm);
    int cs = -1;
    cfg.numAttrs = 0;
    CK(cudaOccupancyMaxPotentialClusterSize(&cs, cluster_hist, &cfg));
    int want = sms * per_sm < 8 ? sms * per_sm : 8;
    if (cs != want)
        zt_fail("max potential cluster size = %d, expected %d", cs, want);
    CK(cudaFuncSetAttribute(cluster_hist, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    CK(cudaOccupancyMaxPotentialClusterSize(&cs, cluster_hist, &cfg));
    want = sms * per_sm < 16 ? sms * per_sm : 16;
    if (cs != want)
        zt_fail("max potential non-portable cluster size = %d, expected %d", cs, want);
    cfg.blockDim = dim3(64);
    CK(cudaOccupancyMaxPotentialClusterSize(&cs, ring, &cfg));
    if (cs != 4)
        zt_fail("ring's potential cluster size = %d, expected its 4", cs);
}

int main(void)
{
    zt_begin("cluster_dsmem");
    test_hist();
    test_regs_and_ring();
    test_ptx();
    test_remote_arrive();
    test_misuse();
    test_queries();
    return zt_finish();
}
