// tma_replace.cu: tensormap.replace (sm_90a), a kernel retargeting a
// tensor map, as grouped GEMMs and Triton's device-side descriptors do.
//
// The host encodes a 2D f32 map of tensor A (64 x 64, box 16 x 16, zero
// fill). A kernel copies it to shared memory, rewrites the global address
// (to tensor B: 48 rows of 80), both dimensions, the row stride, box
// dimension 0 (8) and the fill mode (NaN), publishes it to global memory
// with tensormap.cp_fenceproxy and loads boxes through it, two of them
// overhanging B's edges. The boxes are checked against B and the NaN fill
// computed here; a box that still came from A, or with A's shape or fill,
// shows as a mismatch.
//
// A second kernel changes the element type in the ISA's numbering, which
// departs from CUtensorMapDataType's after .f32: 9 is .f64 (the driver's
// 9 is bf16) and 10 is .bf16, retargets the map to a tensor of that type
// and loads a 16 x 2 box overhanging its right edge with the NaN fill; the
// box's bytes (element size, the element type's NaN) are checked.
#include "zn_test.h"
#include <cuda.h>
#include <cudaTypedefs.h>
#include "tma_util.h"
#include <math.h>
#include <string.h>

static const int AW = 64, AH = 64, BW = 80, BH = 48, BOX_W = 8, BOX_H = 16;

// Thread 0: the map in shared memory (sm) retargeted to addr, a w x h
// tensor with rows of `stride` bytes, box dimension 0 of bw elements, the
// NaN fill.
__device__ void retarget(unsigned sm, const void *addr, unsigned w, unsigned h,
                         unsigned long long stride, unsigned bw)
{
    unsigned long long a = (unsigned long long)addr;
    asm volatile("tensormap.replace.tile.global_address.shared::cta.b1024.b64 [%0], %1;"
                 :: "r"(sm), "l"(a) : "memory");
    asm volatile("tensormap.replace.tile.global_dim.shared::cta.b1024.b32 [%0], 0, %1;"
                 :: "r"(sm), "r"(w) : "memory");
    asm volatile("tensormap.replace.tile.global_dim.shared::cta.b1024.b32 [%0], 1, %1;"
                 :: "r"(sm), "r"(h) : "memory");
    asm volatile("tensormap.replace.tile.global_stride.shared::cta.b1024.b64 [%0], 0, %1;"
                 :: "r"(sm), "l"(stride) : "memory");
    asm volatile("tensormap.replace.tile.box_dim.shared::cta.b1024.b32 [%0], 0, %1;"
                 :: "r"(sm), "r"(bw) : "memory");
    asm volatile("tensormap.replace.tile.fill_mode.shared::cta.b1024.b32 [%0], 1;"
                 :: "r"(sm) : "memory");
}

// The whole block: the map in shared memory published to gmap (warp 0)
// and acquired by every thread.
__device__ void publish(unsigned sm, CUtensorMap *gmap)
{
    __syncthreads();
    if (threadIdx.x < 32)
        asm volatile("tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu"
                     ".sync.aligned [%0], [%1], 128;" :: "l"(gmap), "r"(sm) : "memory");
    __syncthreads();
    asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" :: "l"(gmap) : "memory");
}

// Thread 0: the box at (x, y) through gmap into sbox, completing `bytes`
// on the mbarrier sbar, and the wait for it, bounded (a box of another
// size never completes the phase); false when it did not complete.
__device__ bool load_box(unsigned sbox, const CUtensorMap *gmap, int x, int y, unsigned sbar,
                         unsigned bytes)
{
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%2, %3}], [%4];"
                 :: "r"(sbox), "l"(gmap), "r"(x), "r"(y), "r"(sbar) : "memory");
    unsigned long long st;
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 %0, [%1], %2;"
                 : "=l"(st) : "r"(sbar), "r"(bytes) : "memory");
    unsigned done = 0;
    for (unsigned n = 0; !done && n < (1u << 20); n++)
        asm volatile("{ .reg .pred p; mbarrier.try_wait.shared::cta.b64 p, [%1], %2;"
                     " selp.u32 %0, 1, 0, p; }" : "=r"(done) : "r"(sbar), "l"(st) : "memory");
    return done != 0;
}

__global__ void retarget_and_load(const __grid_constant__ CUtensorMap map, const float *b,
                                  CUtensorMap *gmap, const int *coords, float *out)
{
    __shared__ alignas(128) CUtensorMap smap;
    __shared__ alignas(1024) float box[BOX_H * BOX_W];
    __shared__ alignas(8) unsigned long long bar;
    unsigned sm = (unsigned)__cvta_generic_to_shared(&smap);
    if (threadIdx.x == 0) {
        smap = map;
        asm volatile("fence.proxy.alias;" ::: "memory");
        retarget(sm, b, BW, BH, BW * sizeof(float), BOX_W);
        asm volatile("tensormap.replace.tile.rank.shared::cta.b1024.b32 [%0], 1;"
                     :: "r"(sm) : "memory");   // rank 2, as it was
    }
    publish(sm, gmap);
    unsigned sbar = (unsigned)__cvta_generic_to_shared(&bar);
    unsigned sbox = (unsigned)__cvta_generic_to_shared(box);
    for (int i = 0; i < 3; i++) {
        for (int e = threadIdx.x; e < BOX_H * BOX_W; e += blockDim.x)
            box[e] = -7.0f;     // poison
        if (threadIdx.x == 0)
            asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(sbar) : "memory");
        asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
        __syncthreads();
        if (threadIdx.x == 0 &&
            !load_box(sbox, gmap, coords[2 * i], coords[2 * i + 1], sbar, (unsigned)sizeof box))
            box[0] = 12345.0f;  // not a value of B or the fill
        __syncthreads();
        for (int e = threadIdx.x; e < BOX_H * BOX_W; e += blockDim.x)
            out[i * BOX_H * BOX_W + e] = box[e];
        __syncthreads();
    }
}

// the map retyped to the ISA's element type 9 (.f64) or 10 (.bf16) over
// src (RT_W x RT_H elements of esize bytes), a box of RT_BOX x 2 elements
// at (RT_X, 1) loaded into out
static const int RT_W = 16, RT_H = 4, RT_BOX = 16, RT_X = 8;
__global__ void retype_and_load(const __grid_constant__ CUtensorMap map, int f64,
                                const void *src, CUtensorMap *gmap, unsigned char *out)
{
    __shared__ alignas(128) CUtensorMap smap;
    __shared__ alignas(1024) unsigned char box[RT_BOX * 2 * 8];
    __shared__ alignas(8) unsigned long long bar;
    unsigned sm = (unsigned)__cvta_generic_to_shared(&smap);
    unsigned esize = f64 ? 8 : 2;
    if (threadIdx.x == 0) {
        smap = map;
        asm volatile("fence.proxy.alias;" ::: "memory");
        if (f64)
            asm volatile("tensormap.replace.tile.elemtype.shared::cta.b1024.b32 [%0], 9;"
                         :: "r"(sm) : "memory");
        else
            asm volatile("tensormap.replace.tile.elemtype.shared::cta.b1024.b32 [%0], 10;"
                         :: "r"(sm) : "memory");
        retarget(sm, src, RT_W, RT_H, RT_W * esize, RT_BOX);
        asm volatile("tensormap.replace.tile.box_dim.shared::cta.b1024.b32 [%0], 1, %1;"
                     :: "r"(sm), "r"(2) : "memory");
    }
    publish(sm, gmap);
    for (unsigned e = threadIdx.x; e < sizeof box; e += blockDim.x)
        box[e] = 0xA5;
    unsigned sbar = (unsigned)__cvta_generic_to_shared(&bar);
    if (threadIdx.x == 0)
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(sbar) : "memory");
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    if (threadIdx.x == 0 && !load_box((unsigned)__cvta_generic_to_shared(box), gmap, RT_X, 1,
                                      sbar, RT_BOX * 2 * esize))
        box[0] = 0x5a;  // not a byte either type's box has there
    __syncthreads();
    for (unsigned e = threadIdx.x; e < sizeof box; e += blockDim.x)
        out[e] = box[e];
}

// The element-type check: the retyped box's bytes against src's and the
// type's NaN (0x7fff..ff in its size) past the edge; the rest of the
// buffer keeps its poison.
static void retype_case(const CUtensorMap &map, CUtensorMap *gmap, bool f64)
{
    const unsigned es = f64 ? 8 : 2;
    unsigned char *src, *out;
    CK(cudaMallocManaged(&src, RT_W * RT_H * es));
    CK(cudaMallocManaged(&out, RT_BOX * 2 * 8));
    for (unsigned i = 0; i < RT_W * RT_H * es; i++)
        src[i] = (unsigned char)(i * 37 + 11);
    retype_and_load<<<1, 64>>>(map, f64, src, gmap, out);
    CK_LAUNCH();
    CK(cudaDeviceSynchronize());
    for (unsigned i = 0; i < RT_BOX * 2 * 8; i++) {
        unsigned row = i / (RT_BOX * es), col = i / es % RT_BOX, b = i % es;
        unsigned x = RT_X + col, y = 1 + row;
        unsigned char want = row >= 2 ? 0xA5
                             : x < (unsigned)RT_W ? src[(y * RT_W + x) * es + b]
                             : b == es - 1 ? 0x7f : 0xff;
        if (out[i] != want) {
            zt_fail("element type %d: box byte %u = 0x%02x, want 0x%02x", f64 ? 9 : 10, i, out[i],
                    want);
            break;
        }
    }
    CK(cudaFree(src));
    CK(cudaFree(out));
}

int main()
{
    zt_begin("tma_replace");
    PFN_cuTensorMapEncodeTiled_v12000 encode =
        driver_entry<PFN_cuTensorMapEncodeTiled_v12000>("cuTensorMapEncodeTiled");
    float *a, *b, *out;
    int *coords;
    CUtensorMap *gmap;
    CK(cudaMallocManaged(&a, AW * AH * sizeof(float)));
    CK(cudaMallocManaged(&b, BW * BH * sizeof(float)));
    CK(cudaMallocManaged(&out, 3 * BOX_H * BOX_W * sizeof(float)));
    CK(cudaMallocManaged(&coords, 6 * sizeof(int)));
    CK(cudaMalloc(&gmap, sizeof(CUtensorMap)));
    for (int i = 0; i < AW * AH; i++)
        a[i] = 1000.0f + (float)i;
    for (int i = 0; i < BW * BH; i++)
        b[i] = (float)i;
    const int xy[6] = {8, 4, 76, 40, 0, 32};   // inside; overhanging both edges; the last rows
    memcpy(coords, xy, sizeof xy);
    CUtensorMap map;
    cuuint64_t dims[2] = {AW, AH}, strides[1] = {AW * sizeof(float)};
    cuuint32_t boxd[2] = {16, 16}, es[2] = {1, 1};
    if (encode(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, a, dims, strides, boxd, es,
               CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
               CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) != CUDA_SUCCESS)
        zt_fail("cuTensorMapEncodeTiled failed");
    for (int i = 0; i < 3 * BOX_H * BOX_W; i++)
        out[i] = 12345.0f;
    retarget_and_load<<<1, 64>>>(map, b, gmap, coords, out);
    CK_LAUNCH();
    CK(cudaDeviceSynchronize());
    for (int i = 0, bad = 0; i < 3 && bad < 4; i++)
        for (int r = 0; r < BOX_H && bad < 4; r++)
            for (int c = 0; c < BOX_W && bad < 4; c++) {
                int x = xy[2 * i] + c, y = xy[2 * i + 1] + r;
                float got = out[(i * BOX_H + r) * BOX_W + c];
                bool oob = x >= BW || y >= BH;
                if (oob ? !isnan(got) : got != b[y * BW + x]) {
                    zt_fail("box %d (%d, %d): element (%d, %d) = %g, want %s%g", i, xy[2 * i],
                            xy[2 * i + 1], x, y, got, oob ? "NaN, not " : "", oob ? 0.0f : b[y * BW + x]);
                    bad++;
                }
            }
    retype_case(map, gmap, true);
    retype_case(map, gmap, false);
    CK(cudaFree(a));
    CK(cudaFree(b));
    CK(cudaFree(out));
    CK(cudaFree(coords));
    CK(cudaFree(gmap));
    return zt_finish();
}
