/* tma_im2col.cu: tensor memory access in im2col mode (sm_90), built with
 * -arch=sm_90.
 *
 * Maps from cuTensorMapEncodeIm2col (through the runtime's driver entry
 * point) drive cp.async.bulk.tensor's .im2col loads (inline PTX, 3D, 4D
 * and 5D, with their im2col offsets) and .im2col_no_offs stores:
 * - the five loads of Triton's TMA im2col tutorial, whose expected pixel
 *   sequences (measured there on Hopper) are written out below: the plain
 *   box, a padded box (lower and upper corners -1), the offsets shifting
 *   it, a column running on into the next image, and both at once;
 * - a convolution as implicit GEMM: for each filter tap (r, s) one column
 *   of every output pixel's input (the tap as im2col offsets, the stride
 *   as the map's element strides, the padding as the corners), summed
 *   against the weights in the kernel, compared exactly (small integers)
 *   with the convolution's formula on the CPU; strides 1 and 2;
 * - more shapes against the walk the PTX ISA describes (the pixel box per
 *   spatial dimension [lower + offset, dim - 1 + upper + offset], W first,
 *   then H, D and the next image): NWC and NDHWC tensors, 16-bit
 *   channels, a channel window past C (filled), the NaN fill, the 128-byte
 *   swizzle (16-byte chunks XORed by shared address bits 7..9);
 * - a store (.im2col_no_offs) that writes the pixels inside the tensor and
 *   leaves every other byte of the destination poisoned;
 * - the encoder's argument checks, and last an im2col load through a
 *   tile-mode map, which fails the launch with cudaErrorIllegalInstruction.
 * Each load's block copies its whole shared buffer out (poisoned with 0xA5
 * before the copy), so bytes written past the column show.
 */
#include "zn_test.h"
#include <cuda.h>
#include <cudaTypedefs.h>
#include "tma_util.h"

#include <math.h>
#include <vector>

#define SMEM 16384
#define SMEM_POISON 0xA5

struct column {
    int c[5];               /* C, W, (H, (D,)) N */
    unsigned short off[3];  /* W, H, D */
    unsigned bytes;
};

/* one im2col load of column a into dst (shared), on the mbarrier bar */
__device__ void load_column(const CUtensorMap *map, int rank, const column &a, unsigned dst,
                            unsigned bar)
{
    if (rank == 3)
        asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.im2col.mbarrier::complete_tx"
                     "::bytes [%0], [%1, {%2, %3, %4}], [%5], {%6};"
                     :: "r"(dst), "l"(map), "r"(a.c[0]), "r"(a.c[1]), "r"(a.c[2]), "r"(bar),
                        "h"(a.off[0]) : "memory");
    else if (rank == 4)
        asm volatile("cp.async.bulk.tensor.4d.shared::cluster.global.im2col.mbarrier::complete_tx"
                     "::bytes [%0], [%1, {%2, %3, %4, %5}], [%6], {%7, %8};"
                     :: "r"(dst), "l"(map), "r"(a.c[0]), "r"(a.c[1]), "r"(a.c[2]), "r"(a.c[3]),
                        "r"(bar), "h"(a.off[0]), "h"(a.off[1]) : "memory");
    else
        asm volatile("cp.async.bulk.tensor.5d.shared::cluster.global.im2col.mbarrier::complete_tx"
                     "::bytes [%0], [%1, {%2, %3, %4, %5, %6}], [%7], {%8, %9, %10};"
                     :: "r"(dst), "l"(map), "r"(a.c[0]), "r"(a.c[1]), "r"(a.c[2]), "r"(a.c[3]),
                        "r"(a.c[4]), "r"(bar), "h"(a.off[0]), "h"(a.off[1]), "h"(a.off[2])
                     : "memory");
}

__global__ void im2col_load(const __grid_constant__ CUtensorMap map, int rank, column a,
                            unsigned char *out)
{
    __shared__ alignas(1024) unsigned char smem[SMEM];
    __shared__ alignas(8) unsigned long long bar;
    for (unsigned i = threadIdx.x; i < SMEM; i += blockDim.x)
        smem[i] = SMEM_POISON;
    unsigned sbar = (unsigned)__cvta_generic_to_shared(&bar);
    if (threadIdx.x == 0) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(sbar) : "memory");
        asm volatile("cp.async.bulk.prefetch.tensor.4d.L2.global.im2col [%0, {%1, %1, %1, %1}],"
                     " {%2, %2};" ::"l"(&map), "r"(0), "h"((unsigned short)0) : "memory");
    }
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    if (threadIdx.x == 0) {
        load_column(&map, rank, a, (unsigned)__cvta_generic_to_shared(smem), sbar);
        arrive_and_wait(sbar, a.bytes);
    }
    __syncthreads();
    for (unsigned i = threadIdx.x; i < SMEM; i += blockDim.x)
        out[i] = smem[i];
}

/* shared memory (from src) -> the tensor through an im2col_no_offs store */
__global__ void im2col_store(const __grid_constant__ CUtensorMap map, column a,
                             const unsigned char *src)
{
    __shared__ alignas(1024) unsigned char smem[SMEM];
    for (unsigned i = threadIdx.x; i < SMEM; i += blockDim.x)
        smem[i] = src[i];
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned s = (unsigned)__cvta_generic_to_shared(smem);
        asm volatile("cp.async.bulk.tensor.4d.global.shared::cta.im2col_no_offs.bulk_group"
                     " [%0, {%1, %2, %3, %4}], [%5];"
                     :: "l"(&map), "r"(a.c[0]), "r"(a.c[1]), "r"(a.c[2]), "r"(a.c[3]), "r"(s)
                     : "memory");
        asm volatile("cp.async.bulk.commit_group;" ::: "memory");
        asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
    }
}

/* Convolution of x (N, H, W, C floats, NHWC) with w (CO, R, S, C) as an
 * implicit GEMM: for each tap (r, s) thread 0 loads the column of all
 * npix output pixels' inputs (C channels each), and thread t < npix adds
 * its pixel's dot products with the tap's weights. y: npix x CO. */
#define CONV_CO 4
__global__ void conv_im2col(const __grid_constant__ CUtensorMap map, const float *w, int R,
                            int S, int C, int npix, int pad, float *y)
{
    __shared__ alignas(128) float a[SMEM / 4];
    __shared__ alignas(8) unsigned long long bar;
    unsigned sbar = (unsigned)__cvta_generic_to_shared(&bar);
    if (threadIdx.x == 0)
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(sbar) : "memory");
    __syncthreads();
    float acc[CONV_CO] = {0};
    for (int r = 0; r < R; r++)
        for (int s = 0; s < S; s++) {
            if (threadIdx.x == 0) {
                column col = {{0, -pad, -pad, 0, 0}, {(unsigned short)s, (unsigned short)r, 0},
                              (unsigned)(npix * C * 4)};
                load_column(&map, 4, col, (unsigned)__cvta_generic_to_shared(a), sbar);
                arrive_and_wait(sbar, col.bytes);
            }
            __syncthreads();
            int t = (int)threadIdx.x;
            if (t < npix)
                for (int co = 0; co < CONV_CO; co++)
                    for (int c = 0; c < C; c++)
                        acc[co] += a[t * C + c] * w[((co * R + r) * S + s) * C + c];
            __syncthreads();
        }
    if ((int)threadIdx.x < npix)
        for (int co = 0; co < CONV_CO; co++)
            y[threadIdx.x * CONV_CO + co] = acc[co];
}

static PFN_cuTensorMapEncodeIm2col_v12000 encode;
static PFN_cuTensorMapEncodeTiled_v12000 encode_tiled;

static void get_entry_points(void)
{
    encode = driver_entry<PFN_cuTensorMapEncodeIm2col_v12000>("cuTensorMapEncodeIm2col");
    encode_tiled = driver_entry<PFN_cuTensorMapEncodeTiled_v12000>("cuTensorMapEncodeTiled");
}

/* A dense tensor (dimension 0 innermost) in host and device memory. */
struct tensor {
    unsigned rank, esize;
    uint64_t dim[5], stride[4];
    std::vector<unsigned char> host;
    void *dev = nullptr;

    tensor(unsigned r, unsigned es, const uint64_t *d) : rank(r), esize(es)
    {
        uint64_t n = es;
        for (unsigned k = 0; k < r; k++) {
            dim[k] = d[k];
            n *= d[k];
            if (k + 1 < r)
                stride[k] = n;
        }
        host.resize(n);
        CK(cudaMalloc(&dev, n));
    }
    ~tensor() { cudaFree(dev); }
    uint64_t offset(const int64_t *g) const
    {
        uint64_t o = (uint64_t)g[0] * esize;
        for (unsigned k = 1; k < rank; k++)
            o += (uint64_t)g[k] * stride[k - 1];
        return o;
    }
    void upload() { CK(cudaMemcpy(dev, host.data(), host.size(), cudaMemcpyHostToDevice)); }
};

struct im2col_map {
    int lower[3], upper[3];
    unsigned cpp, ppc, estride[5];
    CUtensorMapDataType dtype;
    CUtensorMapSwizzle swizzle;
    CUtensorMapFloatOOBfill fill;
};

static CUresult make_map(CUtensorMap *m, const tensor &t, const im2col_map &p)
{
    return encode(m, p.dtype, t.rank, t.dev, t.dim, t.stride, p.lower, p.upper, p.cpp, p.ppc,
                  p.estride, CU_TENSOR_MAP_INTERLEAVE_NONE, p.swizzle,
                  CU_TENSOR_MAP_L2_PROMOTION_NONE, p.fill);
}

/* The ISA's walk: pixel i of the column, its coordinates in g (g[0] unset);
 * returns whether it lies inside the tensor. */
static bool walk_pixel(const tensor &t, const im2col_map &p, const column &a, unsigned i,
                       int64_t *g)
{
    unsigned ns = t.rank - 2;
    int64_t lo[3], hi[3];
    for (unsigned k = 0; k < ns; k++) {
        lo[k] = p.lower[k] + a.off[k];
        hi[k] = (int64_t)t.dim[k + 1] - 1 + p.upper[k] + a.off[k];
        g[k + 1] = a.c[k + 1] + a.off[k];
    }
    g[t.rank - 1] = a.c[t.rank - 1];
    for (unsigned step = 0; step < i; step++) {
        unsigned k = 0;
        for (; k < ns; k++) {
            g[k + 1] += p.estride[k + 1];
            if (g[k + 1] <= hi[k])
                break;
            g[k + 1] = lo[k];
        }
        if (k == ns)
            g[t.rank - 1] += p.estride[t.rank - 1];
    }
    for (unsigned d = 1; d < t.rank; d++)
        if (g[d] < 0 || g[d] >= (int64_t)t.dim[d])
            return false;
    return true;
}

/* the byte offset in shared memory of the column's byte `off` (the
 * 128-byte swizzle of a 1024-aligned buffer: bits 7..9 into 4..6) */
static unsigned swizzled(unsigned off, CUtensorMapSwizzle sw)
{
    unsigned bits = (unsigned)sw;
    return off ^ ((off >> 3) & (((1u << bits) - 1u) << 4));
}

/* the shared buffer an im2col load of column a should leave */
static std::vector<unsigned char> expected_load(const tensor &t, const im2col_map &p,
                                                const column &a)
{
    std::vector<unsigned char> e(SMEM, SMEM_POISON);
    unsigned es = t.esize, row = p.cpp * es;
    for (unsigned i = 0; i < p.ppc; i++) {
        int64_t g[5];
        bool in = walk_pixel(t, p, a, i, g);
        for (unsigned c = 0; c < p.cpp; c++) {
            g[0] = a.c[0] + (int64_t)c;
            bool inside = in && g[0] >= 0 && g[0] < (int64_t)t.dim[0];
            for (unsigned b = 0; b < es; b++) {
                unsigned char v = 0;
                if (inside)
                    v = t.host[t.offset(g) + b];
                else if (p.fill)
                    v = b == es - 1 ? 0x7f : 0xff;
                e[swizzled(i * row + c * es + b, p.swizzle)] = v;
            }
        }
    }
    return e;
}

static unsigned char *d_out;

static void check_load(const char *what, const tensor &t, const im2col_map &p, column a)
{
    CUtensorMap m;
    CUresult rc = make_map(&m, t, p);
    if (rc != CUDA_SUCCESS) {
        zt_fail("%s: cuTensorMapEncodeIm2col returned %d", what, (int)rc);
        return;
    }
    a.bytes = p.ppc * p.cpp * t.esize;
    im2col_load<<<1, 128>>>(m, (int)t.rank, a, d_out);
    CK_LAUNCH();
    std::vector<unsigned char> got(SMEM);
    CK(cudaMemcpy(got.data(), d_out, SMEM, cudaMemcpyDeviceToHost));
    std::vector<unsigned char> want = expected_load(t, p, a);
    for (unsigned i = 0; i < SMEM; i++)
        if (got[i] != want[i]) {
            zt_fail("%s: shared byte %u = 0x%02x, expected 0x%02x", what, i, got[i], want[i]);
            return;
        }
}

static im2col_map plain_map(CUtensorMapDataType dt, unsigned cpp, unsigned ppc)
{
    im2col_map p = {{0, 0, 0}, {0, 0, 0}, cpp, ppc, {1, 1, 1, 1, 1}, dt,
                    CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE};
    return p;
}

/* Triton's tutorial: a [2, 4, 4, 32] f32 NHWC tensor whose pixels are
 * 1..32 (every channel of a pixel the same there; here + 1000 c), 16-pixel
 * columns; the expected first channels are the tutorial's. */
static void tutorial_cases(void)
{
    uint64_t dims[4] = {32, 4, 4, 2};
    tensor t(4, 4, dims);
    for (uint64_t i = 0; i < t.host.size() / 4; i++) {
        float v = (float)(1 + i / 32) + 1000.0f * (float)(i % 32);
        memcpy(&t.host[i * 4], &v, 4);
    }
    t.upload();
    static const struct {
        const char *what;
        int corner, h, w;
        unsigned short off;
        float first[16];
    } cases[] = {
        {"tutorial 1 (plain)", 0, 0, 0, 0, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}},
        {"tutorial 2 (padded)", -1, -1, -1, 0, {0, 0, 0, 0, 0, 1, 2, 3, 0, 5, 6, 7, 0, 9, 10, 11}},
        {"tutorial 3 (offsets)", -1, -1, -1, 1,
         {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}},
        {"tutorial 4 (next image)", 0, 1, 3, 0,
         {8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23}},
        {"tutorial 5 (both)", -1, 1, 2, 0, {7, 0, 9, 10, 11, 0, 0, 0, 0, 0, 17, 18, 19, 0, 21, 22}},
    };
    for (const auto &k : cases) {
        im2col_map p = plain_map(CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 32, 16);
        p.lower[0] = p.lower[1] = p.upper[0] = p.upper[1] = k.corner;
        column a = {{0, k.w, k.h, 0, 0}, {k.off, k.off, 0}, 0};
        check_load(k.what, t, p, a);
        /* the tutorial's own numbers, apart from the walk above */
        std::vector<float> got(16 * 32);
        CK(cudaMemcpy(got.data(), d_out, got.size() * 4, cudaMemcpyDeviceToHost));
        for (unsigned i = 0; i < 16; i++)
            for (unsigned c = 0; c < 32; c += 31) {
                float want = k.first[i] == 0 ? 0.0f : k.first[i] + 1000.0f * (float)c;
                if (got[i * 32 + c] != want)
                    zt_fail("%s: pixel %u channel %u = %g, expected %g", k.what, i, c,
                            got[i * 32 + c], want);
            }
    }
}

/* a tensor of rank r with the given dims, its bytes a hash of the offset */
static void fill_hash(tensor &t, uint32_t seed)
{
    for (uint64_t i = 0; i < t.host.size(); i++)
        t.host[i] = (unsigned char)((i * 2654435761u + seed) >> 13);
    t.upload();
}

static void shape_cases(void)
{
    {   /* NWC, f32, the window past C, offsets, W element stride 2 */
        uint64_t dims[3] = {12, 40, 3};
        tensor t(3, 4, dims);
        fill_hash(t, 1);
        im2col_map p = plain_map(CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 8, 50);
        p.lower[0] = -3;
        p.upper[0] = 2;
        check_load("NWC", t, p, column{{0, -3, 0, 0, 0}, {1, 0, 0}, 0});
        check_load("NWC channels past C", t, p, column{{8, 30, 1, 0, 0}, {4, 0, 0}, 0});
        p.estride[1] = 2;
        check_load("NWC W stride 2", t, p, column{{4, -3, 0, 0, 0}, {2, 0, 0}, 0});
        p.fill = CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA;
        check_load("NWC NaN fill", t, p, column{{-4, -3, 0, 0, 0}, {0, 0, 0}, 0});
    }
    {   /* NDHWC, 16-bit channels, strides on H and D */
        uint64_t dims[5] = {16, 5, 4, 3, 2};
        tensor t(5, 2, dims);
        fill_hash(t, 2);
        im2col_map p = plain_map(CU_TENSOR_MAP_DATA_TYPE_UINT16, 8, 70);
        p.lower[0] = p.lower[1] = p.lower[2] = -1;
        p.upper[0] = 1;
        p.upper[1] = 0;
        p.upper[2] = -1;
        check_load("NDHWC", t, p, column{{8, -1, -1, -1, 0}, {1, 2, 1}, 0});
        p.estride[2] = 2;
        p.estride[3] = 2;
        check_load("NDHWC strides", t, p, column{{0, 0, -1, -1, 0}, {0, 1, 0}, 0});
    }
    {   /* NHWC, 128-byte swizzle (32 f32 channels per pixel) */
        uint64_t dims[4] = {40, 6, 5, 2};
        tensor t(4, 4, dims);
        fill_hash(t, 3);
        im2col_map p = plain_map(CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 32, 64);
        p.swizzle = CU_TENSOR_MAP_SWIZZLE_128B;
        p.lower[0] = p.lower[1] = -2;
        p.upper[0] = p.upper[1] = 1;
        check_load("NHWC 128B swizzle", t, p, column{{4, -2, -2, 0, 0}, {3, 2, 0}, 0});
    }
}

static void conv_case(int stride)
{
    const int N = 2, H = 6, W = 6, C = 16, R = 3, S = 3, pad = 1;
    const int OH = (H + 2 * pad - R) / stride + 1, OW = (W + 2 * pad - S) / stride + 1;
    const int npix = N * OH * OW;
    uint64_t dims[4] = {C, W, H, N};
    tensor x(4, 4, dims);
    std::vector<float> xv(N * H * W * C), wv(CONV_CO * R * S * C);
    for (auto &v : xv)
        v = (float)((int)(zt_rand() % 7) - 3);
    for (auto &v : wv)
        v = (float)((int)(zt_rand() % 5) - 2);
    memcpy(x.host.data(), xv.data(), xv.size() * 4);
    x.upload();
    im2col_map p = plain_map(CU_TENSOR_MAP_DATA_TYPE_FLOAT32, C, (unsigned)npix);
    p.lower[0] = p.lower[1] = -pad;
    p.upper[0] = (OW - 1) * stride + 1 - W - pad;
    p.upper[1] = (OH - 1) * stride + 1 - H - pad;
    p.estride[1] = p.estride[2] = (unsigned)stride;
    CUtensorMap m;
    CUresult rc = make_map(&m, x, p);
    if (rc != CUDA_SUCCESS) {
        zt_fail("conv stride %d: cuTensorMapEncodeIm2col returned %d", stride, (int)rc);
        return;
    }
    float *dw, *dy;
    CK(cudaMalloc(&dw, wv.size() * 4));
    CK(cudaMalloc(&dy, npix * CONV_CO * 4));
    CK(cudaMemcpy(dw, wv.data(), wv.size() * 4, cudaMemcpyHostToDevice));
    POISON(dy, npix * CONV_CO * 4);
    conv_im2col<<<1, 128>>>(m, dw, R, S, C, npix, pad, dy);
    CK_LAUNCH();
    std::vector<float> y(npix * CONV_CO);
    CK(cudaMemcpy(y.data(), dy, y.size() * 4, cudaMemcpyDeviceToHost));
    for (int n = 0; n < N; n++)
        for (int oh = 0; oh < OH; oh++)
            for (int ow = 0; ow < OW; ow++)
                for (int co = 0; co < CONV_CO; co++) {
                    float want = 0;
                    for (int r = 0; r < R; r++)
                        for (int s = 0; s < S; s++) {
                            int ih = oh * stride + r - pad, iw = ow * stride + s - pad;
                            if (ih < 0 || ih >= H || iw < 0 || iw >= W)
                                continue;
                            for (int c = 0; c < C; c++)
                                want += xv[((n * H + ih) * W + iw) * C + c] *
                                        wv[((co * R + r) * S + s) * C + c];
                        }
                    int pix = (n * OH + oh) * OW + ow;
                    float got = y[pix * CONV_CO + co];
                    if (got != want) {
                        zt_fail("conv stride %d: y[n=%d, %d, %d, co=%d] = %g, expected %g", stride,
                                n, oh, ow, co, got, want);
                        return;
                    }
                }
    cudaFree(dw);
    cudaFree(dy);
}

static void store_case(void)
{
    uint64_t dims[4] = {8, 5, 4, 2};
    tensor t(4, 4, dims);
    im2col_map p = plain_map(CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 8, 30);
    p.lower[0] = p.lower[1] = -1;
    p.upper[0] = 0;
    p.upper[1] = -1;
    CUtensorMap m;
    if (make_map(&m, t, p) != CUDA_SUCCESS) {
        zt_fail("store: cuTensorMapEncodeIm2col failed");
        return;
    }
    std::vector<unsigned char> src(SMEM);
    for (unsigned i = 0; i < SMEM; i++)
        src[i] = (unsigned char)(i * 7 + 3);
    unsigned char *dsrc;
    CK(cudaMalloc(&dsrc, SMEM));
    CK(cudaMemcpy(dsrc, src.data(), SMEM, cudaMemcpyHostToDevice));
    POISON(t.dev, t.host.size());
    column a = {{0, -1, 1, 0, 0}, {0, 0, 0}, 0};
    im2col_store<<<1, 128>>>(m, a, dsrc);
    CK_LAUNCH();
    std::vector<unsigned char> got(t.host.size()), want(t.host.size(), 0xFF);
    CK(cudaMemcpy(got.data(), t.dev, got.size(), cudaMemcpyDeviceToHost));
    for (unsigned i = 0; i < p.ppc; i++) {
        int64_t g[5];
        if (!walk_pixel(t, p, a, i, g))
            continue;
        g[0] = 0;
        memcpy(&want[t.offset(g)], &src[i * 32], 32);
    }
    for (size_t i = 0; i < got.size(); i++)
        if (got[i] != want[i]) {
            zt_fail("store: tensor byte %zu = 0x%02x, expected 0x%02x", i, got[i], want[i]);
            break;
        }
    cudaFree(dsrc);
}

static void encoder_checks(void)
{
    uint64_t dims[4] = {32, 4, 4, 2};
    tensor t(4, 4, dims);
    CUtensorMap m;
    struct {
        const char *what;
        void (*edit)(im2col_map &, tensor &);
    } bad[] = {
        {"channels per pixel 0", [](im2col_map &p, tensor &) { p.cpp = 0; }},
        {"channels per pixel 257", [](im2col_map &p, tensor &) { p.cpp = 257; }},
        {"pixels per column 1025", [](im2col_map &p, tensor &) { p.ppc = 1025; }},
        {"a 4D corner of 128", [](im2col_map &p, tensor &) { p.lower[1] = 128; }},
        {"a 4D corner of -129", [](im2col_map &p, tensor &) { p.upper[0] = -129; }},
        {"an empty pixel box", [](im2col_map &p, tensor &) { p.lower[0] = 2, p.upper[0] = -2; }},
        {"rows of 24 bytes", [](im2col_map &p, tensor &) { p.cpp = 6; }},
        {"64-byte rows, 32-byte swizzle",
         [](im2col_map &p, tensor &) { p.cpp = 16, p.swizzle = CU_TENSOR_MAP_SWIZZLE_32B; }},
        {"an element stride of 9", [](im2col_map &p, tensor &) { p.estride[2] = 9; }},
        {"NaN fill of integers", [](im2col_map &p, tensor &) {
             p.dtype = CU_TENSOR_MAP_DATA_TYPE_INT32;
             p.fill = CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA;
         }},
        {"rank 2", [](im2col_map &, tensor &x) { x.rank = 2; }},
    };
    for (auto &k : bad) {
        im2col_map p = plain_map(CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 32, 16);
        tensor &x = t;
        unsigned rank = x.rank;
        k.edit(p, x);
        CUresult rc = make_map(&m, x, p);
        x.rank = rank;
        if (rc != CUDA_ERROR_INVALID_VALUE)
            zt_fail("encoder: %s gave %d, expected CUDA_ERROR_INVALID_VALUE", k.what, (int)rc);
    }
    im2col_map p = plain_map(CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 32, 1024);
    p.lower[0] = -128;
    p.upper[1] = 127;
    if (make_map(&m, t, p) != CUDA_SUCCESS)
        zt_fail("encoder: the widest 4D corners and 1024 pixels were refused");
}

/* last: an .im2col load through a tile-mode map ends the context */
static void wrong_mode(void)
{
    uint64_t dims[4] = {32, 4, 4, 2};
    tensor t(4, 4, dims);
    CUtensorMap m;
    cuuint32_t box[4] = {32, 4, 4, 1}, es[4] = {1, 1, 1, 1};
    if (encode_tiled(&m, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 4, t.dev, t.dim, t.stride, box, es,
                     CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                     CU_TENSOR_MAP_L2_PROMOTION_NONE,
                     CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) != CUDA_SUCCESS) {
        zt_fail("wrong mode: cuTensorMapEncodeTiled failed");
        return;
    }
    column a = {{0, 0, 0, 0, 0}, {0, 0, 0}, 2048};
    im2col_load<<<1, 128>>>(m, 4, a, d_out);
    cudaError_t e = cudaDeviceSynchronize();
    if (e != cudaErrorIllegalInstruction)
        zt_fail("wrong mode: %s, expected cudaErrorIllegalInstruction", cudaGetErrorName(e));
}

int main()
{
    zt_begin("tma_im2col");
    get_entry_points();
    CK(cudaMalloc(&d_out, SMEM));
    tutorial_cases();
    shape_cases();
    conv_case(1);
    conv_case(2);
    store_case();
    encoder_checks();
    wrong_mode();
    return zt_finish();
}
