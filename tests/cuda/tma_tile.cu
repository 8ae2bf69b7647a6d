/* tma_tile.cu: tensor memory access (sm_90 TMA), built with -arch=sm_90.
 *
 * Tensor maps from cuTensorMapEncodeTiled (through the runtime's driver
 * entry point, as CUDA's programming guide does it) drive
 * cp.async.bulk.tensor from libcu++'s cuda::device::experimental wrappers:
 * - loads of 2D and 3D boxes that overhang the tensor on every side
 *   (negative coordinates, past the end): elements outside read as 0, or
 *   as NaN with the NaN fill; rows padded in global memory;
 * - the 32, 64 and 128-byte swizzles (16-byte chunks permuted by shared
 *   address: bits 7.. XORed into bits 4..);
 * - element strides along an outer dimension (every other row);
 * - stores from shared memory that skip elements outside the tensor,
 *   plain and swizzled, with bulk commit/wait groups;
 * - cuTensorMapReplaceAddress, and the encoder's argument checks;
 * - the bulk copies beside them: shared to global (bulk groups), shared
 *   to shared completing on an mbarrier, and the L2 prefetches (inline
 *   PTX), which change nothing;
 * - reductions (inline PTX): cp.reduce.async.bulk.tensor add into an f32
 *   tensor and max into an s32 one (out-of-bounds elements untouched), and
 *   cp.reduce.async.bulk into global memory from 8 blocks at once (add,
 *   min, xor, f64 and f16 add, bf16 max; inc from one block) and into
 *   shared memory on an mbarrier;
 * - a map copied to global memory in the kernel (tensormap.cp_fenceproxy,
 *   the tensor-map proxy fences) and used from there;
 * - multicast to a cluster's blocks (clusters of 4, inline PTX): a tensor
 *   box and a plain bulk copy reach the blocks of the ctaMask, each
 *   completing on its own mbarrier; the block left out keeps its poison;
 * - elect.sync under divergence (the lowest lane of the mask that runs it
 *   leads), and the tensor-map proxy fences;
 * - failures: a map that was never encoded (in a re-executed child: a
 *   failed launch ends the context) fails the launch with
 *   cudaErrorIllegalInstruction; last, a map over freed memory with
 *   cudaErrorIllegalAddress.
 * Each block copies its whole shared buffer out (poisoned with 0xA5 before
 * the copy), so bytes written past the box show; the references are
 * computed here from the documented rules.
 */
#include "zn_test.h"
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cooperative_groups.h>
#include <cuda/barrier>
#include "tma_util.h"

#include <math.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

using block_barrier = cuda::barrier<cuda::thread_scope_block>;
namespace cde = cuda::device::experimental;

#define SMEM 8192
#define SMEM_POISON 0xA5

/* via: NULL, or global memory where warp 0 copies the map (through shared
 * memory and tensormap.cp_fenceproxy) for the copy to use */
__global__ void tma_load(const __grid_constant__ CUtensorMap map, int rank, const int *coords,
                         unsigned bytes, unsigned char *out, CUtensorMap *via)
{
    __shared__ alignas(1024) unsigned char smem[SMEM];
    __shared__ alignas(128) CUtensorMap smap;
#pragma nv_diag_suppress static_var_with_dynamic_init
    __shared__ block_barrier bar;
    const CUtensorMap *mp = &map;
    if (via) {
        mp = via + blockIdx.x;
        if (threadIdx.x < 32) {
            if (threadIdx.x == 0)
                smap = map;
            __syncwarp();
            asm volatile("fence.proxy.alias;" ::: "memory");
            asm volatile("tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu"
                         ".sync.aligned [%0], [%1], 128;"
                         ::"l"(mp), "r"((unsigned)__cvta_generic_to_shared(&smap)) : "memory");
            asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" ::"l"(mp)
                         : "memory");
        }
    }
    for (unsigned i = threadIdx.x; i < SMEM; i += blockDim.x)
        smem[i] = SMEM_POISON;
    if (threadIdx.x == 0)
        init(&bar, blockDim.x);
    cde::fence_proxy_async_shared_cta();    /* the poison is visible to the copy */
    __syncthreads();
    const int *c = coords + blockIdx.x * 3;
    block_barrier::arrival_token tok;
    if (threadIdx.x == 0) {
        if (rank == 2)
            cde::cp_async_bulk_tensor_2d_global_to_shared(smem, mp, c[0], c[1], bar);
        else
            cde::cp_async_bulk_tensor_3d_global_to_shared(smem, mp, c[0], c[1], c[2], bar);
        tok = cuda::device::barrier_arrive_tx(bar, 1, bytes);
    } else {
        tok = bar.arrive();
    }
    bar.wait(std::move(tok));
    for (unsigned i = threadIdx.x; i < SMEM; i += blockDim.x)
        out[blockIdx.x * SMEM + i] = smem[i];
}

__global__ void tma_store(const __grid_constant__ CUtensorMap map, const int *coords,
                          const unsigned char *src)
{
    __shared__ alignas(1024) unsigned char smem[SMEM];
    for (unsigned i = threadIdx.x; i < SMEM; i += blockDim.x)
        smem[i] = src[blockIdx.x * SMEM + i];
    cde::fence_proxy_async_shared_cta();
    __syncthreads();
    if (threadIdx.x == 0) {
        const int *c = coords + blockIdx.x * 3;
        cde::cp_async_bulk_tensor_2d_shared_to_global(&map, c[0], c[1], smem);
        cde::cp_async_bulk_commit_group();
        cde::cp_async_bulk_wait_group_read<0>();
    }
}


/* bulk copies without a tensor map: smem <- src (prefetched), then
 * shared::cta -> shared::cluster (this block) on an mbarrier, then
 * shared -> global; out gets the second buffer */
__global__ void bulk_copies(const __grid_constant__ CUtensorMap map, const unsigned char *src,
                            unsigned char *out)
{
    __shared__ alignas(128) unsigned char a[1024], b[1024];
    __shared__ alignas(8) unsigned long long bar;
    unsigned sa = (unsigned)__cvta_generic_to_shared(a), sb = (unsigned)__cvta_generic_to_shared(b),
             sbar = (unsigned)__cvta_generic_to_shared(&bar);
    if (threadIdx.x == 0) {
        asm volatile("cp.async.bulk.prefetch.L2.global [%0], 1024;" ::"l"(src) : "memory");
        asm volatile("cp.async.bulk.prefetch.tensor.2d.L2.global.tile [%0, {%1, %2}];"
                     ::"l"(&map), "r"(0), "r"(0) : "memory");
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(sbar) : "memory");
    }
    for (unsigned i = threadIdx.x; i < 1024; i += blockDim.x) {
        a[i] = src[blockIdx.x * 1024 + i];
        b[i] = SMEM_POISON;
    }
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    if (threadIdx.x == 0) {
        asm volatile("cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes "
                     "[%0], [%1], 1024, [%2];" ::"r"(sb), "r"(sa), "r"(sbar) : "memory");
        arrive_and_wait(sbar, 1024);
        asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], 1024;"
                     ::"l"(out + blockIdx.x * 1024), "r"(sb) : "memory");
        asm volatile("cp.async.bulk.commit_group;" ::: "memory");
        asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
    }
}

/* every block reduces its box (src) into the tensor at its coordinates:
 * op 0 add (an f32 map), 1 max (an s32 map) */
__global__ void tma_reduce(const __grid_constant__ CUtensorMap map, int op, const int *coords,
                           const unsigned char *src)
{
    __shared__ alignas(1024) unsigned char smem[SMEM];
    for (unsigned i = threadIdx.x; i < SMEM; i += blockDim.x)
        smem[i] = src[blockIdx.x * SMEM + i];
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    if (threadIdx.x == 0) {
        const int *c = coords + blockIdx.x * 3;
        unsigned s = (unsigned)__cvta_generic_to_shared(smem);
        if (op == 0)
            asm volatile("cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group"
                         " [%0, {%1, %2}], [%3];" ::"l"(&map), "r"(c[0]), "r"(c[1]), "r"(s)
                         : "memory");
        else
            asm volatile("cp.reduce.async.bulk.tensor.2d.global.shared::cta.max.tile.bulk_group"
                         " [%0, {%1, %2}], [%3];" ::"l"(&map), "r"(c[0]), "r"(c[1]), "r"(s)
                         : "memory");
        asm volatile("cp.async.bulk.commit_group;" ::: "memory");
        asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
    }
}

#define RED_BYTES 256
enum { R_ADD_U32, R_MIN_S32, R_XOR_B64, R_ADD_F64, R_ADD_F16, R_MAX_BF16, R_INC_U32, R_NOPS };

/* every block reduces its RED_BYTES of src into dst (global) by op */
__global__ void bulk_reduce(int op, const unsigned char *src, unsigned char *dst)
{
    __shared__ alignas(128) unsigned char s[RED_BYTES];
    for (unsigned i = threadIdx.x; i < RED_BYTES; i += blockDim.x)
        s[i] = src[blockIdx.x * RED_BYTES + i];
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    if (threadIdx.x != 0)
        return;
    unsigned ss = (unsigned)__cvta_generic_to_shared(s);
#define RED(form) asm volatile("cp.reduce.async.bulk.global.shared::cta.bulk_group." form \
                               " [%0], [%1], 256;" ::"l"(dst), "r"(ss) : "memory")
    switch (op) {
    case R_ADD_U32: RED("add.u32"); break;
    case R_MIN_S32: RED("min.s32"); break;
    case R_XOR_B64: RED("xor.b64"); break;
    case R_ADD_F64: RED("add.f64"); break;
    case R_ADD_F16: RED("add.noftz.f16"); break;
    case R_MAX_BF16: RED("max.bf16"); break;
    default: RED("inc.u32"); break;
    }
#undef RED
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
}

/* t ^= s in shared memory by one bulk reduction on an mbarrier; out = t */
__global__ void shared_reduce(const unsigned *in, unsigned *out)
{
    __shared__ alignas(128) unsigned s[64], t[64];
    __shared__ alignas(8) unsigned long long bar;
    unsigned ss = (unsigned)__cvta_generic_to_shared(s), st = (unsigned)__cvta_generic_to_shared(t),
             sbar = (unsigned)__cvta_generic_to_shared(&bar);
    for (unsigned i = threadIdx.x; i < 64; i += blockDim.x) {
        s[i] = in[i];
        t[i] = in[64 + i];
    }
    if (threadIdx.x == 0)
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(sbar) : "memory");
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    if (threadIdx.x == 0) {
        asm volatile("cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes"
                     ".xor.b32 [%0], [%1], 256, [%2];" ::"r"(st), "r"(ss), "r"(sbar) : "memory");
        arrive_and_wait(sbar, 256);
    }
    __syncthreads();
    for (unsigned i = threadIdx.x; i < 64; i += blockDim.x)
        out[i] = t[i];
}

/* out[t] = the elected lane | 0x100 in the leader, for the threads that
 * run elect.sync: lanes not divisible by 3 of the mask's own, then lanes
 * 5.. with a mask of 0xffffffe0; others write 0xffff */
__global__ void elect_lanes(const __grid_constant__ CUtensorMap map, unsigned *out)
{
    unsigned lane = threadIdx.x % 32, d = 0xffff, p = 0;
    asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" ::"l"(&map) : "memory");
    if (lane % 3 != 0) {
        unsigned mask = __activemask();
        asm volatile("{ .reg .pred q; elect.sync %0|q, %2; selp.u32 %1, 1, 0, q; }"
                     : "=r"(d), "=r"(p) : "r"(mask));
    }
    out[threadIdx.x] = d | p << 8;
    __syncwarp();
    d = 0xffff, p = 0;
    if (lane >= 5)
        asm volatile("{ .reg .pred q; elect.sync %0|q, %2; selp.u32 %1, 1, 0, q; }"
                     : "=r"(d), "=r"(p) : "r"(0xffffffe0u));
    out[blockDim.x + threadIdx.x] = d | p << 8;
    asm volatile("fence.proxy.tensormap::generic.release.gpu;" ::: "memory");
}

#define MC_BOX 1024     /* a 32 x 8 f32 box */
#define MC_PLAIN 256

/* clusters of 4: rank 0 multicasts its cluster's box, rank 1 a plain bulk
 * copy, to the ranks in mask; each block then writes what it holds */
__global__ void __cluster_dims__(4, 1, 1)
tma_multicast(const __grid_constant__ CUtensorMap map, const int *coords,
              const unsigned char *src, unsigned mask, unsigned char *out)
{
    __shared__ alignas(1024) unsigned char box[MC_BOX];
    __shared__ alignas(128) unsigned char plain[MC_PLAIN];
    __shared__ alignas(8) unsigned long long bar;
    cooperative_groups::cluster_group cl = cooperative_groups::this_cluster();
    unsigned rank = cl.block_rank(), ci = blockIdx.x / 4;
    unsigned sbox = (unsigned)__cvta_generic_to_shared(box),
             splain = (unsigned)__cvta_generic_to_shared(plain),
             sbar = (unsigned)__cvta_generic_to_shared(&bar);
    for (unsigned i = threadIdx.x; i < MC_BOX; i += blockDim.x)
        box[i] = SMEM_POISON;
    for (unsigned i = threadIdx.x; i < MC_PLAIN; i += blockDim.x)
        plain[i] = SMEM_POISON;
    if (threadIdx.x == 0) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(sbar) : "memory");
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    cl.sync();  /* every block's barrier is ready before anything lands */
    if (threadIdx.x == 0) {
        unsigned short m16 = (unsigned short)mask;
        if (rank == 0)
            asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile"
                         ".mbarrier::complete_tx::bytes.multicast::cluster"
                         " [%0], [%1, {%2, %3}], [%4], %5;"
                         ::"r"(sbox), "l"(&map), "r"(coords[2 * ci]), "r"(coords[2 * ci + 1]),
                         "r"(sbar), "h"(m16) : "memory");
        if (rank == 1)
            asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes"
                         ".multicast::cluster [%0], [%1], 256, [%2], %3;"
                         ::"r"(splain), "l"(src + ci * MC_PLAIN), "r"(sbar), "h"(m16) : "memory");
        /* what this block receives may land before or after its own arrival */
        arrive_and_wait(sbar, mask >> rank & 1 ? MC_BOX + MC_PLAIN : 0);
    }
    __syncthreads();
    unsigned char *o = out + blockIdx.x * (MC_BOX + MC_PLAIN);
    for (unsigned i = threadIdx.x; i < MC_BOX; i += blockDim.x)
        o[i] = box[i];
    for (unsigned i = threadIdx.x; i < MC_PLAIN; i += blockDim.x)
        o[MC_BOX + i] = plain[i];
    cl.sync();
}

static PFN_cuTensorMapEncodeTiled_v12000 encode;
static PFN_cuTensorMapReplaceAddress_v12000 replace_address;

static void get_entry_points(void)
{
    encode = driver_entry<PFN_cuTensorMapEncodeTiled_v12000>("cuTensorMapEncodeTiled");
    replace_address =
        driver_entry<PFN_cuTensorMapReplaceAddress_v12000>("cuTensorMapReplaceAddress");
}

/* A tensor in host and device memory: dims elements of esize bytes, rows
 * padded to pitch bytes, each byte a function of its offset. */
struct tensor {
    unsigned rank, esize;
    uint64_t dim[3], stride[2];     /* stride[d]: bytes of dimension d + 1 */
    std::vector<unsigned char> host;
    unsigned char *dev;
};

static tensor make_tensor(unsigned rank, unsigned esize, const uint64_t *dim, uint64_t pitch)
{
    tensor t = {rank, esize, {1, 1, 1}, {0, 0}, {}, NULL};
    for (unsigned d = 0; d < rank; d++)
        t.dim[d] = dim[d];
    t.stride[0] = pitch;
    t.stride[1] = pitch * t.dim[1];
    size_t bytes = t.stride[1] * t.dim[2];
    t.host.resize(bytes);
    for (size_t i = 0; i < bytes; i++)
        t.host[i] = (unsigned char)(i * 7 + i / 251 + 1);
    CK(cudaMalloc(&t.dev, bytes));
    CK(cudaMemcpy(t.dev, t.host.data(), bytes, cudaMemcpyHostToDevice));
    return t;
}

struct box {
    uint32_t dim[3], estride[3];
    int swizzle;    /* CUtensorMapSwizzle: 0..3 */
    bool nan_fill;
};

static CUtensorMap map_of(const tensor &t, const box &b, CUtensorMapDataType dt)
{
    CUtensorMap m;
    CUresult r = encode(&m, dt, t.rank, t.dev, t.dim, t.stride, b.dim, b.estride,
                        CU_TENSOR_MAP_INTERLEAVE_NONE, (CUtensorMapSwizzle)b.swizzle,
                        CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
                        b.nan_fill ? CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA
                                   : CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS) {
        printf("FAIL cuTensorMapEncodeTiled -> %d\n", (int)r);
        exit(1);
    }
    return m;
}

static unsigned count_along(const box &b, unsigned d)
{
    return d == 0 ? b.dim[0] : (b.dim[d] + b.estride[d] - 1) / b.estride[d];
}

/* where element byte `off` of the dense box lands in shared memory (the
 * box starts 1024-aligned): Swizzle<B,4,3> */
static size_t swizzle(size_t off, int mode)
{
    size_t mask = ((1u << mode) - 1u) << 4;
    return off ^ ((off >> 3) & mask);
}

/* The expected shared buffer of a load at c; the box's byte count. */
static unsigned expect_load(const tensor &t, const box &b, const int *c, unsigned char *exp)
{
    memset(exp, SMEM_POISON, SMEM);
    unsigned n0 = count_along(b, 0), n1 = t.rank > 1 ? count_along(b, 1) : 1,
             n2 = t.rank > 2 ? count_along(b, 2) : 1, es = t.esize;
    for (unsigned i2 = 0; i2 < n2; i2++)
        for (unsigned i1 = 0; i1 < n1; i1++)
            for (unsigned i0 = 0; i0 < n0; i0++) {
                int64_t g0 = c[0] + (int64_t)i0, g1 = c[1] + (int64_t)i1 * b.estride[1],
                        g2 = t.rank > 2 ? c[2] + (int64_t)i2 * b.estride[2] : 0;
                bool in = g0 >= 0 && g0 < (int64_t)t.dim[0] && g1 >= 0 &&
                          g1 < (int64_t)t.dim[1] && g2 >= 0 && g2 < (int64_t)t.dim[2];
                size_t off = (((size_t)i2 * n1 + i1) * n0 + i0) * es;
                unsigned char *e = exp + swizzle(off, b.swizzle);
                if (in)
                    memcpy(e, &t.host[g2 * t.stride[1] + g1 * t.stride[0] + g0 * es], es);
                else if (b.nan_fill) {
                    memset(e, 0xff, es);
                    e[es - 1] = 0x7f;
                } else
                    memset(e, 0, es);
            }
    return n0 * n1 * n2 * es;
}

static void check_loads(const char *what, const tensor &t, const box &b, CUtensorMapDataType dt,
                        const std::vector<int> &coords, bool via_global = false)
{
    unsigned nb = (unsigned)coords.size() / 3;
    CUtensorMap m = map_of(t, b, dt);
    int *dc;
    unsigned char *dout;
    std::vector<unsigned char> out((size_t)nb * SMEM), exp(SMEM);
    CK(cudaMalloc(&dc, coords.size() * sizeof(int)));
    CK(cudaMalloc(&dout, out.size()));
    CK(cudaMemcpy(dc, coords.data(), coords.size() * sizeof(int), cudaMemcpyHostToDevice));
    CK(cudaMemset(dout, 0x3c, out.size()));
    unsigned bytes = expect_load(t, b, &coords[0], exp.data());
    CUtensorMap *via = NULL;
    if (via_global)
        CK(cudaMalloc(&via, nb * sizeof(CUtensorMap)));
    tma_load<<<nb, 128>>>(m, (int)t.rank, dc, bytes, dout, via);
    CK_LAUNCH();
    if (via)
        CK(cudaFree(via));
    CK(cudaMemcpy(out.data(), dout, out.size(), cudaMemcpyDeviceToHost));
    for (unsigned k = 0; k < nb; k++) {
        expect_load(t, b, &coords[3 * k], exp.data());
        for (unsigned i = 0; i < SMEM; i++)
            if (out[(size_t)k * SMEM + i] != exp[i]) {
                zt_fail("%s: box at (%d,%d,%d) byte %u: got 0x%02x, expected 0x%02x", what,
                        coords[3 * k], coords[3 * k + 1], coords[3 * k + 2], i,
                        out[(size_t)k * SMEM + i], exp[i]);
                break;
            }
    }
    CK(cudaFree(dc));
    CK(cudaFree(dout));
}

/* Stores of a byte pattern from shared memory: in-bounds elements of each
 * box change, every other byte of the tensor keeps the poison. */
static void check_stores(const char *what, const box &b, const std::vector<int> &coords)
{
    const uint64_t dim[2] = {50, 20};
    tensor t = make_tensor(2, 4, dim, 208);
    unsigned nb = (unsigned)coords.size() / 3, n0 = b.dim[0], n1 = b.dim[1];
    size_t bytes = t.host.size();
    std::vector<unsigned char> src((size_t)nb * SMEM), exp(bytes, SMEM_POISON), out(bytes);
    for (size_t i = 0; i < src.size(); i++)
        src[i] = (unsigned char)(i * 13 + 5);
    /* boxes do not overlap, so the order of the blocks does not matter */
    for (unsigned k = 0; k < nb; k++)
        for (unsigned i1 = 0; i1 < n1; i1++)
            for (unsigned i0 = 0; i0 < n0; i0++) {
                int64_t g0 = coords[3 * k] + (int64_t)i0, g1 = coords[3 * k + 1] + (int64_t)i1;
                if (g0 < 0 || g0 >= (int64_t)dim[0] || g1 < 0 || g1 >= (int64_t)dim[1])
                    continue;
                size_t off = ((size_t)i1 * n0 + i0) * 4;
                memcpy(&exp[g1 * t.stride[0] + g0 * 4], &src[k * SMEM + swizzle(off, b.swizzle)],
                       4);
            }
    CUtensorMap m = map_of(t, b, CU_TENSOR_MAP_DATA_TYPE_FLOAT32);
    int *dc;
    unsigned char *dsrc;
    CK(cudaMalloc(&dc, coords.size() * sizeof(int)));
    CK(cudaMalloc(&dsrc, src.size()));
    CK(cudaMemcpy(dc, coords.data(), coords.size() * sizeof(int), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dsrc, src.data(), src.size(), cudaMemcpyHostToDevice));
    CK(cudaMemset(t.dev, SMEM_POISON, bytes));
    tma_store<<<nb, 96>>>(m, dc, dsrc);
    CK_LAUNCH();
    CK(cudaMemcpy(out.data(), t.dev, bytes, cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < bytes; i++)
        if (out[i] != exp[i]) {
            zt_fail("%s: tensor byte %zu: got 0x%02x, expected 0x%02x", what, i, out[i], exp[i]);
            break;
        }
    CK(cudaFree(dc));
    CK(cudaFree(dsrc));
    CK(cudaFree(t.dev));
}

/* tma_reduce: overlapping boxes reduced into a 50 x 20 tensor of 4-byte
 * elements (f32 add or s32 max); elements outside the tensor skipped */
static void check_tensor_reduce(int op)
{
    const uint64_t dim[2] = {50, 20};
    tensor t = make_tensor(2, 4, dim, 208);
    std::vector<int> coords = {0, 0, 0, 8, 4, 0, -8, -4, 0, 40, 16, 0, 10, 2, 0};
    unsigned nb = (unsigned)coords.size() / 3, n0 = 16, n1 = 8;
    std::vector<unsigned char> src((size_t)nb * SMEM);
    size_t words = t.host.size() / 4;
    std::vector<int32_t> init(words), exp(words), out(words), sv(src.size() / 4);
    for (size_t i = 0; i < words; i++)
        init[i] = (int32_t)((i * 2654435761u) >> 7) - (1 << 24);
    for (size_t i = 0; i < sv.size(); i++)
        sv[i] = (int32_t)((i * 40503u + 7) % 2001) - 1000;
    if (op == 0) {  /* small integers as floats: every sum is exact */
        for (auto &v : init)
            v = (int32_t)[](float f) { int32_t b; memcpy(&b, &f, 4); return b; }((float)(v % 4096));
        for (auto &v : sv)
            v = (int32_t)[](float f) { int32_t b; memcpy(&b, &f, 4); return b; }((float)v);
    }
    memcpy(src.data(), sv.data(), src.size());
    exp = init;
    for (unsigned k = 0; k < nb; k++)
        for (unsigned i1 = 0; i1 < n1; i1++)
            for (unsigned i0 = 0; i0 < n0; i0++) {
                int64_t g0 = coords[3 * k] + (int64_t)i0, g1 = coords[3 * k + 1] + (int64_t)i1;
                if (g0 < 0 || g0 >= (int64_t)dim[0] || g1 < 0 || g1 >= (int64_t)dim[1])
                    continue;
                int32_t &e = exp[(g1 * t.stride[0] + g0 * 4) / 4];
                int32_t v = sv[(k * SMEM + (i1 * n0 + i0) * 4) / 4];
                if (op == 0) {
                    float a, b;
                    memcpy(&a, &e, 4);
                    memcpy(&b, &v, 4);
                    a += b;
                    memcpy(&e, &a, 4);
                } else if (v > e) {
                    e = v;
                }
            }
    box b = {{16, 8, 1}, {1, 1, 1}, 0, false};
    CUtensorMap m = map_of(t, b, op == 0 ? CU_TENSOR_MAP_DATA_TYPE_FLOAT32
                                         : CU_TENSOR_MAP_DATA_TYPE_INT32);
    int *dc;
    unsigned char *dsrc;
    CK(cudaMalloc(&dc, coords.size() * sizeof(int)));
    CK(cudaMalloc(&dsrc, src.size()));
    CK(cudaMemcpy(dc, coords.data(), coords.size() * sizeof(int), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dsrc, src.data(), src.size(), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(t.dev, init.data(), t.host.size(), cudaMemcpyHostToDevice));
    tma_reduce<<<nb, 64>>>(m, op, dc, dsrc);
    CK_LAUNCH();
    CK(cudaMemcpy(out.data(), t.dev, t.host.size(), cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < words; i++)
        if (out[i] != exp[i]) {
            zt_fail("tensor reduction %s: word %zu: got 0x%08x, expected 0x%08x",
                    op == 0 ? "add.f32" : "max.s32", i, (unsigned)out[i], (unsigned)exp[i]);
            break;
        }
    CK(cudaFree(dc));
    CK(cudaFree(dsrc));
    CK(cudaFree(t.dev));
}

/* one element of a bulk reduction, as the ISA defines it */
static void reduce_ref(int op, unsigned char *d, const unsigned char *s)
{
    uint32_t a32, b32;
    uint64_t a64, b64;
    memcpy(&a32, d, 4);
    memcpy(&b32, s, 4);
    memcpy(&a64, d, 8);
    memcpy(&b64, s, 8);
    switch (op) {
    case R_ADD_U32: a32 += b32; memcpy(d, &a32, 4); break;
    case R_MIN_S32: if ((int32_t)b32 < (int32_t)a32) memcpy(d, &b32, 4); break;
    case R_INC_U32: a32 = a32 >= b32 ? 0 : a32 + 1; memcpy(d, &a32, 4); break;
    case R_XOR_B64: a64 ^= b64; memcpy(d, &a64, 8); break;
    case R_ADD_F64: {
        double x, y;
        memcpy(&x, d, 8);
        memcpy(&y, s, 8);
        x += y;
        memcpy(d, &x, 8);
        break;
    }
    case R_ADD_F16: {
        __half x, y;
        memcpy(&x, d, 2);
        memcpy(&y, s, 2);
        __half r = __float2half_rn(__half2float(x) + __half2float(y));
        memcpy(d, &r, 2);
        break;
    }
    default: { /* max.bf16: no NaNs in the inputs; +0 above -0 */
        __nv_bfloat16 x, y;
        memcpy(&x, d, 2);
        memcpy(&y, s, 2);
        float fx = __bfloat162float(x), fy = __bfloat162float(y);
        if (fy > fx || (fy == fx && !(s[1] & 0x80)))
            memcpy(d, s, 2);
        break;
    }
    }
}

static unsigned elem_bytes_of(int op)
{
    return op == R_XOR_B64 || op == R_ADD_F64 ? 8 : op == R_ADD_F16 || op == R_MAX_BF16 ? 2 : 4;
}

/* a value of the op's type from a counter: small integers for the float
 * adds of many blocks (exact in any order), any finite bf16 for max */
static void make_elem(int op, unsigned char *p, uint32_t k, bool exact)
{
    uint64_t v = (uint64_t)k * 0x9e3779b97f4a7c15ull;
    v ^= v >> 29;
    if (op == R_ADD_F64) {
        double x = exact ? (double)(int)(v % 201) - 100 : (double)(int64_t)v * 1e-10;
        memcpy(p, &x, 8);
    } else if (op == R_ADD_F16) {
        __half h = exact ? __float2half_rn((float)(int)(v % 61) - 30.0f) : __ushort_as_half(0);
        if (!exact) {
            unsigned short u = (unsigned short)(v & 0x7bff) | (unsigned short)(v >> 48 & 0x8000);
            h = __ushort_as_half(u);     /* finite: the exponent is below 31 */
        }
        memcpy(p, &h, 2);
    } else if (op == R_MAX_BF16) {
        unsigned short u = (unsigned short)((v & 0x7eff) | (v >> 40 & 0x8000));
        memcpy(p, &u, 2);
    } else if (op == R_INC_U32) {
        uint32_t x = (uint32_t)(v % 7);
        memcpy(p, &x, 4);
    } else {
        memcpy(p, &v, elem_bytes_of(op));
    }
}

static void check_bulk_reduce(int op, unsigned nb, bool exact)
{
    unsigned es = elem_bytes_of(op);
    std::vector<unsigned char> src((size_t)nb * RED_BYTES), init(RED_BYTES), exp, out(RED_BYTES);
    for (unsigned i = 0; i < RED_BYTES / es; i++)
        make_elem(op, &init[i * es], i + 1000, exact);
    for (unsigned i = 0; i < src.size() / es; i++)
        make_elem(op, &src[i * es], i, exact);
    exp = init;
    for (unsigned k = 0; k < nb; k++)
        for (unsigned i = 0; i < RED_BYTES; i += es)
            reduce_ref(op, &exp[i], &src[k * RED_BYTES + i]);
    unsigned char *dsrc, *ddst;
    CK(cudaMalloc(&dsrc, src.size()));
    CK(cudaMalloc(&ddst, RED_BYTES));
    CK(cudaMemcpy(dsrc, src.data(), src.size(), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(ddst, init.data(), RED_BYTES, cudaMemcpyHostToDevice));
    bulk_reduce<<<nb, 32>>>(op, dsrc, ddst);
    CK_LAUNCH();
    CK(cudaMemcpy(out.data(), ddst, RED_BYTES, cudaMemcpyDeviceToHost));
    for (unsigned i = 0; i < RED_BYTES; i++)
        if (out[i] != exp[i]) {
            zt_fail("bulk reduction %d over %u blocks: byte %u: got 0x%02x, expected 0x%02x", op,
                    nb, i, out[i], exp[i]);
            break;
        }
    CK(cudaFree(dsrc));
    CK(cudaFree(ddst));
}

static void check_shared_reduce(void)
{
    std::vector<unsigned> in(128), out(64);
    for (unsigned i = 0; i < 128; i++)
        in[i] = i * 0x01000193u + 0x811c9dc5u;
    unsigned *din, *dout;
    CK(cudaMalloc(&din, 128 * 4));
    CK(cudaMalloc(&dout, 64 * 4));
    CK(cudaMemcpy(din, in.data(), 128 * 4, cudaMemcpyHostToDevice));
    CK(cudaMemset(dout, SMEM_POISON, 64 * 4));
    shared_reduce<<<1, 64>>>(din, dout);
    CK_LAUNCH();
    CK(cudaMemcpy(out.data(), dout, 64 * 4, cudaMemcpyDeviceToHost));
    for (unsigned i = 0; i < 64; i++)
        if (out[i] != (in[i] ^ in[64 + i])) {
            zt_fail("shared bulk xor: word %u: got 0x%08x, expected 0x%08x", i, out[i],
                    in[i] ^ in[64 + i]);
            break;
        }
    CK(cudaFree(din));
    CK(cudaFree(dout));
}

/* cuTensorMapEncodeTiled's arguments: a valid 2D f32 map, which each
 * error case below changes in one place */
struct enc_args {
    CUtensorMap *map;
    CUtensorMapDataType dtype;
    uint32_t rank;
    void *addr;
    const uint64_t *dim, *strides;
    const uint32_t *box, *estrides;
    CUtensorMapInterleave interleave;
    CUtensorMapSwizzle swizzle;
    CUtensorMapFloatOOBfill oob;
};

static CUresult encode_with(const enc_args &a)
{
    return encode(a.map, a.dtype, a.rank, a.addr, a.dim, a.strides, a.box, a.estrides,
                  a.interleave, a.swizzle, CU_TENSOR_MAP_L2_PROMOTION_NONE, a.oob);
}

static void check_encode_errors(const tensor &t)
{
    static CUtensorMap m;
    static const uint32_t box[3] = {32, 8, 1}, es[3] = {1, 1, 1}, big[3] = {257, 8, 1},
                          odd[3] = {3, 8, 1}, es9[3] = {1, 9, 1}, wide[3] = {64, 8, 1};
    static const uint64_t badstride[2] = {100, 0};
    const enc_args ok = {&m, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, t.dev, t.dim, t.stride, box, es,
                         CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                         CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE};
    if (encode_with(ok) != CUDA_SUCCESS)
        zt_fail("encode of the valid map failed");
    struct {
        const char *what;
        void (*change)(enc_args &);
    } cases[] = {
        {"rank 0", [](enc_args &a) { a.rank = 0; }},
        {"rank 6", [](enc_args &a) { a.rank = 6; }},
        {"address not 16-byte aligned", [](enc_args &a) { a.addr = (char *)a.addr + 8; }},
        {"stride not a multiple of 16", [](enc_args &a) { a.strides = badstride; }},
        {"box of 257", [](enc_args &a) { a.box = big; }},
        {"box row of 12 bytes", [](enc_args &a) { a.box = odd; }},
        {"element stride 9", [](enc_args &a) { a.estrides = es9; }},
        {"256-byte rows with the 128-byte swizzle",
         [](enc_args &a) { a.box = wide; a.swizzle = CU_TENSOR_MAP_SWIZZLE_128B; }},
        {"interleave on a 2D tensor", [](enc_args &a) { a.interleave = CU_TENSOR_MAP_INTERLEAVE_16B; }},
        {"NaN fill of integers",
         [](enc_args &a) {
             a.dtype = CU_TENSOR_MAP_DATA_TYPE_INT32;
             a.oob = CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA;
         }},
        {"map not 64-byte aligned",
         [](enc_args &a) { a.map = (CUtensorMap *)((char *)a.map + 8); }},
    };
    for (auto &c : cases) {
        enc_args a = ok;
        c.change(a);
        CUresult r = encode_with(a);
        if (r != CUDA_ERROR_INVALID_VALUE)
            zt_fail("encode with %s: got %d, expected CUDA_ERROR_INVALID_VALUE", c.what, (int)r);
    }
    CUresult r = replace_address(&m, t.dev + 4);
    if (r != CUDA_ERROR_INVALID_VALUE)
        zt_fail("replace with an unaligned address: got %d, expected CUDA_ERROR_INVALID_VALUE",
                (int)r);
}

/* One block (64 threads) loads the 2D box at c through m; out (SMEM
 * bytes, poisoned first) gets its shared buffer unless NULL. Returns the
 * launch's error. */
static cudaError_t load_one(const CUtensorMap &m, const int *c, unsigned bytes,
                            unsigned char *out)
{
    int *dc;
    unsigned char *dout;
    CK(cudaMalloc(&dc, 3 * sizeof(int)));
    CK(cudaMalloc(&dout, SMEM));
    CK(cudaMemcpy(dc, c, 3 * sizeof(int), cudaMemcpyHostToDevice));
    CK(cudaMemset(dout, 0x3c, SMEM));
    tma_load<<<1, 64>>>(m, 2, dc, bytes, dout, NULL);
    cudaError_t e = cudaDeviceSynchronize();
    if (e == cudaSuccess && out)
        CK(cudaMemcpy(out, dout, SMEM, cudaMemcpyDeviceToHost));
    if (e == cudaSuccess) {
        CK(cudaFree(dc));
        CK(cudaFree(dout));
    }
    return e;
}

/* the child: a load through a zeroed map must fail with
 * cudaErrorIllegalInstruction */
static int junk_map_child(void)
{
    CUtensorMap junk;
    memset(&junk, 0, sizeof junk);
    const int c[3] = {0, 0, 0};
    cudaError_t e = load_one(junk, c, 4096, NULL);
    printf("zeroed tensor map: %s\n", cudaGetErrorName(e));
    return e == cudaErrorIllegalInstruction ? 0 : 1;
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "junk-map"))
        return junk_map_child();
    zt_begin("tma_tile");
    get_entry_points();
    /* 100 x 37 floats in rows of 112 */
    const uint64_t dim2[2] = {100, 37};
    tensor t2 = make_tensor(2, 4, dim2, 448);
    std::vector<int> c2;
    const int xs[] = {-8, 0, 32, 80, -40, 112}, ys[] = {-3, 0, 30};  /* the last two miss */
    for (int x : xs)
        for (int y : ys)
            c2.insert(c2.end(), {x, y, 0});
    box plain = {{32, 8, 1}, {1, 1, 1}, 0, false};
    check_loads("2D f32 box", t2, plain, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, c2);
    box nan = plain;
    nan.nan_fill = true;
    check_loads("2D f32 NaN fill", t2, nan, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, c2);
    box sw128 = {{32, 16, 1}, {1, 1, 1}, 3, false};
    check_loads("128-byte swizzle", t2, sw128, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, c2);
    box sw64 = {{16, 16, 1}, {1, 1, 1}, 2, false};
    check_loads("64-byte swizzle", t2, sw64, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, c2);
    box sw32 = {{8, 16, 1}, {1, 1, 1}, 1, false};
    check_loads("32-byte swizzle", t2, sw32, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, c2);

    /* 3D: 40 x 9 x 5 halves, rows of 96 bytes; every other row */
    const uint64_t dim3[3] = {40, 9, 5};
    tensor t3 = make_tensor(3, 2, dim3, 96);
    std::vector<int> c3 = {0, 0, 0, -8, -2, -1, 24, 5, 3, 16, 7, 4};
    box strided = {{16, 6, 2}, {1, 2, 1}, 0, false};
    check_loads("3D f16 element strides", t3, strided, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, c3);
    box nan3 = strided;
    nan3.nan_fill = true;
    check_loads("3D bf16 NaN fill", t3, nan3, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, c3);
    check_loads("3D through a map in global memory", t3, strided,
                CU_TENSOR_MAP_DATA_TYPE_FLOAT16, c3, true);

    /* stores: 50 x 20 floats, boxes 16 x 8 and 32 x 8 (swizzled) */
    std::vector<int> cs = {0, 0, 0, 16, 0, 0, -8, 8, 0, 40, 16, 0};
    box st = {{16, 8, 1}, {1, 1, 1}, 0, false};
    check_stores("store", st, cs);
    std::vector<int> cw = {0, 0, 0, 32, 8, 0, -16, 16, 0};
    box stw = {{32, 8, 1}, {1, 1, 1}, 3, false};
    check_stores("swizzled store", stw, cw);

    /* a replaced address: the same map on a copy of the tensor */
    {
        tensor copy = make_tensor(2, 4, dim2, 448);
        for (auto &v : copy.host)
            v = (unsigned char)(v ^ 0x5a);
        CK(cudaMemcpy(copy.dev, copy.host.data(), copy.host.size(), cudaMemcpyHostToDevice));
        CUtensorMap m = map_of(t2, plain, CU_TENSOR_MAP_DATA_TYPE_FLOAT32);
        if (replace_address(&m, copy.dev) != CUDA_SUCCESS)
            zt_fail("cuTensorMapReplaceAddress failed");
        std::vector<unsigned char> out(SMEM), exp(SMEM);
        const int c[3] = {4, 2, 0};
        unsigned bytes = expect_load(copy, plain, c, exp.data());
        CK(load_one(m, c, bytes, out.data()));
        if (memcmp(out.data(), exp.data(), SMEM))
            zt_fail("a load through a replaced address differs");
        CK(cudaFree(copy.dev));
    }
    check_encode_errors(t2);
    check_tensor_reduce(0);
    check_tensor_reduce(1);
    for (int op = 0; op < R_NOPS; op++)
        check_bulk_reduce(op, op == R_INC_U32 ? 1 : 8, true);
    check_bulk_reduce(R_ADD_F16, 1, false);  /* rounding of arbitrary halves */
    check_bulk_reduce(R_ADD_F64, 1, false);
    check_shared_reduce();
    {
        const unsigned nb = 8, mask = 0xb, per = MC_BOX + MC_PLAIN;  /* ranks 0, 1, 3 */
        const int coords[4] = {-8, 30, 64, 4};
        std::vector<unsigned char> src(2 * MC_PLAIN), out(nb * per), exp(SMEM);
        for (size_t i = 0; i < src.size(); i++)
            src[i] = (unsigned char)(i * 11 + 1);
        int *dc;
        unsigned char *dsrc, *dout;
        CK(cudaMalloc(&dc, sizeof coords));
        CK(cudaMalloc(&dsrc, src.size()));
        CK(cudaMalloc(&dout, out.size()));
        CK(cudaMemcpy(dc, coords, sizeof coords, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(dsrc, src.data(), src.size(), cudaMemcpyHostToDevice));
        tma_multicast<<<nb, 64>>>(map_of(t2, plain, CU_TENSOR_MAP_DATA_TYPE_FLOAT32), dc, dsrc,
                                  mask, dout);
        CK_LAUNCH();
        CK(cudaMemcpy(out.data(), dout, out.size(), cudaMemcpyDeviceToHost));
        for (unsigned blk = 0; blk < nb; blk++) {
            unsigned ci = blk / 4, rank = blk % 4;
            bool in = mask >> rank & 1;
            const int c[3] = {coords[2 * ci], coords[2 * ci + 1], 0};
            expect_load(t2, plain, c, exp.data());
            for (unsigned i = 0; i < per; i++) {
                unsigned char e = !in ? SMEM_POISON : i < MC_BOX ? exp[i]
                                                    : src[ci * MC_PLAIN + i - MC_BOX];
                if (out[blk * per + i] != e) {
                    zt_fail("multicast: block %u byte %u: got 0x%02x, expected 0x%02x", blk, i,
                            out[blk * per + i], e);
                    break;
                }
            }
        }
        CK(cudaFree(dc));
        CK(cudaFree(dsrc));
        CK(cudaFree(dout));
    }
    {
        unsigned *dout;
        std::vector<unsigned> out(128);
        CK(cudaMalloc(&dout, 128 * 4));
        CK(cudaMemset(dout, SMEM_POISON, 128 * 4));
        elect_lanes<<<1, 64>>>(map_of(t2, plain, CU_TENSOR_MAP_DATA_TYPE_FLOAT32), dout);
        CK_LAUNCH();
        CK(cudaMemcpy(out.data(), dout, 128 * 4, cudaMemcpyDeviceToHost));
        for (unsigned t = 0; t < 64; t++) {
            unsigned lane = t % 32;
            unsigned e1 = lane % 3 ? 1u | (lane == 1) << 8 : 0xffffu;
            unsigned e2 = lane >= 5 ? 5u | (lane == 5) << 8 : 0xffffu;
            if (out[t] != e1 || out[64 + t] != e2)
                zt_fail("elect.sync, thread %u: got 0x%x / 0x%x, expected 0x%x / 0x%x", t, out[t],
                        out[64 + t], e1, e2);
        }
        CK(cudaFree(dout));
    }

    {
        const unsigned nb = 3;
        std::vector<unsigned char> src(nb * 1024), out(nb * 1024);
        for (size_t i = 0; i < src.size(); i++)
            src[i] = (unsigned char)(i * 29 + 3);
        unsigned char *dsrc, *dout;
        CK(cudaMalloc(&dsrc, src.size()));
        CK(cudaMalloc(&dout, out.size()));
        CK(cudaMemcpy(dsrc, src.data(), src.size(), cudaMemcpyHostToDevice));
        CK(cudaMemset(dout, SMEM_POISON, out.size()));
        CUtensorMap m = map_of(t2, plain, CU_TENSOR_MAP_DATA_TYPE_FLOAT32);
        bulk_copies<<<nb, 64>>>(m, dsrc, dout);
        CK_LAUNCH();
        CK(cudaMemcpy(out.data(), dout, out.size(), cudaMemcpyDeviceToHost));
        for (size_t i = 0; i < out.size(); i++)
            if (out[i] != src[i]) {
                zt_fail("bulk copies: byte %zu: got 0x%02x, expected 0x%02x", i, out[i], src[i]);
                break;
            }
        CK(cudaFree(dsrc));
        CK(cudaFree(dout));
    }

    /* a map that was never encoded, in a child: the launch fails (and the
     * context with it) */
    {
        char self[4096], arg0[] = "tma_tile", arg1[] = "junk-map";
        char *cargv[] = {arg0, arg1, NULL};
        ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
        pid_t pid;
        int status = -1;
        if (n <= 0) {
            zt_fail("readlink /proc/self/exe");
        } else {
            self[n] = '\0';
            if (posix_spawn(&pid, self, NULL, NULL, cargv, environ) != 0)
                zt_fail("posix_spawn");
            else if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
                     WEXITSTATUS(status) != 0)
                zt_fail("the zeroed-map child exited with status %d", status);
        }
    }
    /* last: a map over memory freed since (the context fails) */
    {
        tensor gone = make_tensor(2, 4, dim2, 448);
        CUtensorMap m = map_of(gone, plain, CU_TENSOR_MAP_DATA_TYPE_FLOAT32);
        CK(cudaFree(gone.dev));
        const int c[3] = {0, 0, 0};
        cudaError_t e = load_one(m, c, 1024, NULL);
        if (e != cudaErrorIllegalAddress)
            zt_fail("a load from freed memory: %s, expected cudaErrorIllegalAddress",
                    cudaGetErrorName(e));
    }
    return zt_finish();
}
