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
 * - last, a kernel handed a map that was never encoded fails the launch.
 * Each block copies its whole shared buffer out (poisoned with 0xA5 before
 * the copy), so bytes written past the box show; the references are
 * computed here from the documented rules.
 */
#include "zn_test.h"
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda/barrier>

#include <math.h>
#include <vector>

using block_barrier = cuda::barrier<cuda::thread_scope_block>;
namespace cde = cuda::device::experimental;

#define SMEM 8192
#define SMEM_POISON 0xA5

__global__ void tma_load(const __grid_constant__ CUtensorMap map, int rank, const int *coords,
                         unsigned bytes, unsigned char *out)
{
    __shared__ alignas(1024) unsigned char smem[SMEM];
#pragma nv_diag_suppress static_var_with_dynamic_init
    __shared__ block_barrier bar;
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
            cde::cp_async_bulk_tensor_2d_global_to_shared(smem, &map, c[0], c[1], bar);
        else
            cde::cp_async_bulk_tensor_3d_global_to_shared(smem, &map, c[0], c[1], c[2], bar);
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

static PFN_cuTensorMapEncodeTiled_v12000 encode;
static PFN_cuTensorMapReplaceAddress_v12000 replace_address;

static void get_entry_points(void)
{
    cudaDriverEntryPointQueryResult q;
    CK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", (void **)&encode, 12000,
                                        cudaEnableDefault, &q));
    if (q != cudaDriverEntryPointSuccess || !encode) {
        printf("FAIL cuTensorMapEncodeTiled not found\n");
        exit(1);
    }
    CK(cudaGetDriverEntryPointByVersion("cuTensorMapReplaceAddress", (void **)&replace_address,
                                        12000, cudaEnableDefault, &q));
    if (q != cudaDriverEntryPointSuccess || !replace_address) {
        printf("FAIL cuTensorMapReplaceAddress not found\n");
        exit(1);
    }
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
                        const std::vector<int> &coords)
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
    tma_load<<<nb, 128>>>(m, (int)t.rank, dc, bytes, dout);
    CK_LAUNCH();
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

static void check_encode_errors(const tensor &t)
{
    CUtensorMap m;
    const uint32_t box[3] = {32, 8, 1}, es[3] = {1, 1, 1}, big[3] = {257, 8, 1},
                   odd[3] = {3, 8, 1}, es9[3] = {1, 9, 1}, wide[3] = {64, 8, 1};
    const uint64_t badstride[2] = {100, 0};
    struct {
        const char *what;
        CUresult r;
    } cases[] = {
        {"rank 0", encode(&m, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 0, t.dev, t.dim, t.stride, box, es,
                          CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                          CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE)},
        {"rank 6", encode(&m, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 6, t.dev, t.dim, t.stride, box, es,
                          CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                          CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE)},
        {"address not 16-byte aligned",
         encode(&m, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, t.dev + 8, t.dim, t.stride, box, es,
                CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE)},
        {"stride not a multiple of 16",
         encode(&m, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, t.dev, t.dim, badstride, box, es,
                CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE)},
        {"box of 257", encode(&m, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, t.dev, t.dim, t.stride, big,
                              es, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                              CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE)},
        {"box row of 12 bytes",
         encode(&m, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, t.dev, t.dim, t.stride, odd, es,
                CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE)},
        {"element stride 9",
         encode(&m, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, t.dev, t.dim, t.stride, box, es9,
                CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE)},
        {"256-byte rows with the 128-byte swizzle",
         encode(&m, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, t.dev, t.dim, t.stride, wide, es,
                CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE)},
        {"interleave on a 2D tensor",
         encode(&m, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, t.dev, t.dim, t.stride, box, es,
                CU_TENSOR_MAP_INTERLEAVE_16B, CU_TENSOR_MAP_SWIZZLE_NONE,
                CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE)},
        {"NaN fill of integers",
         encode(&m, CU_TENSOR_MAP_DATA_TYPE_INT32, 2, t.dev, t.dim, t.stride, box, es,
                CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                CU_TENSOR_MAP_L2_PROMOTION_NONE,
                CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA)},
        {"map not 64-byte aligned",
         encode((CUtensorMap *)((char *)&m + 8), CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, t.dev, t.dim,
                t.stride, box, es, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE)},
        {"replace with an unaligned address", replace_address(&m, t.dev + 4)},
    };
    for (auto &c : cases)
        if (c.r != CUDA_ERROR_INVALID_VALUE)
            zt_fail("encode with %s: got %d, expected CUDA_ERROR_INVALID_VALUE", c.what, (int)c.r);
}

int main(void)
{
    zt_begin("tma_tile");
    get_entry_points();
    /* 100 x 37 floats in rows of 112 */
    const uint64_t dim2[2] = {100, 37};
    tensor t2 = make_tensor(2, 4, dim2, 448);
    std::vector<int> c2;
    const int xs[] = {-8, 0, 32, 80}, ys[] = {-3, 0, 30};
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
        int *dc;
        unsigned char *dout;
        std::vector<unsigned char> out(SMEM), exp(SMEM);
        const int c[3] = {4, 2, 0};
        CK(cudaMalloc(&dc, sizeof c));
        CK(cudaMalloc(&dout, SMEM));
        CK(cudaMemcpy(dc, c, sizeof c, cudaMemcpyHostToDevice));
        unsigned bytes = expect_load(copy, plain, c, exp.data());
        tma_load<<<1, 64>>>(m, 2, dc, bytes, dout);
        CK_LAUNCH();
        CK(cudaMemcpy(out.data(), dout, SMEM, cudaMemcpyDeviceToHost));
        if (memcmp(out.data(), exp.data(), SMEM))
            zt_fail("a load through a replaced address differs");
        CK(cudaFree(dc));
        CK(cudaFree(dout));
        CK(cudaFree(copy.dev));
    }
    check_encode_errors(t2);

    /* a map that was never encoded: the launch fails (the context with it) */
    {
        CUtensorMap junk;
        memset(&junk, 0, sizeof junk);
        int *dc;
        unsigned char *dout;
        CK(cudaMalloc(&dc, 3 * sizeof(int)));
        CK(cudaMalloc(&dout, SMEM));
        CK(cudaMemset(dc, 0, 3 * sizeof(int)));
        tma_load<<<1, 32>>>(junk, 2, dc, 4096, dout);
        cudaError_t e = cudaDeviceSynchronize();
        if (e == cudaSuccess)
            zt_fail("a load through a zeroed tensor map succeeded");
        else
            printf("zeroed tensor map: %s\n", cudaGetErrorName(e));
    }
    return zt_finish();
}
