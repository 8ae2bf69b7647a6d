/* test_drv_sparse.c: sparse CUDA arrays (CUDA_ARRAY3D_SPARSE): creation,
 * cuArrayGetSparseProperties / cuMipmappedArrayGetSparseProperties with
 * CUDA's 64 KiB tile shapes and the mip tail (expected values worked out
 * here from the table and the level sizes), copies through a sparse array
 * (it starts zeroed) and sampling with tex's residency form, and misuse
 * errors. Tile mapping (cuMemMapArrayAsync)
 * is not in Zinc yet, so it is not tested. */
#include "drv_test.h"
#include "drv_test_tex.h"

#include <stdint.h>
#include <string.h>

#define TILE 65536ull

/* sample(tex, out, w): thread (x, y) of a w-wide grid reads texel (x, y)
 * with the sparse form of tex; out[2 * (y * w + x)] = red,
 * out[2 * (...) + 1] = the residency predicate (1 or 0) */
static const char sample_ptx[] =
    DRV_PTX_HEAD
    ".visible .entry sample(.param .u64 tex, .param .u64 out, .param .u32 w)\n"
    "{\n"
    "    .reg .pred %p<2>;\n"
    "    .reg .b32 %r<16>;\n"
    "    .reg .b64 %rd<8>;\n"
    "    ld.param.u64 %rd1, [tex];\n"
    "    ld.param.u64 %rd2, [out];\n"
    "    ld.param.u32 %r1, [w];\n"
    "    mov.u32 %r2, %ctaid.x;\n"
    "    mov.u32 %r3, %ntid.x;\n"
    "    mov.u32 %r4, %tid.x;\n"
    "    mad.lo.s32 %r5, %r2, %r3, %r4;\n"
    "    mov.u32 %r6, %ctaid.y;\n"
    "    tex.2d.v4.u32.s32 {%r7, %r8, %r9, %r10}|%p1, [%rd1, {%r5, %r6}];\n"
    "    selp.u32 %r11, 1, 0, %p1;\n"
    "    mad.lo.s32 %r12, %r6, %r1, %r5;\n"
    "    mul.wide.s32 %rd3, %r12, 8;\n"
    "    add.s64 %rd4, %rd2, %rd3;\n"
    "    st.global.v2.u32 [%rd4], {%r7, %r11};\n"
    "    ret;\n"
    "}\n";

static CUDA_ARRAY3D_DESCRIPTOR desc(size_t w, size_t h, size_t d, CUarray_format f,
                                    unsigned nch, unsigned flags)
{
    CUDA_ARRAY3D_DESCRIPTOR r;
    memset(&r, 0, sizeof r);
    r.Width = w;
    r.Height = h;
    r.Depth = d;
    r.Format = f;
    r.NumChannels = nch;
    r.Flags = flags | CUDA_ARRAY3D_SPARSE;
    return r;
}

static unsigned long long tiles(unsigned long long bytes)
{
    return (bytes + TILE - 1) / TILE * TILE;
}

/* one non-mipmapped array: its tile extent and tail */
static void check_array(CUDA_ARRAY3D_DESCRIPTOR d, unsigned tw, unsigned th, unsigned td,
                        unsigned first, unsigned long long tail)
{
    CUarray a = NULL;
    OK(cuArray3DCreate(&a, &d));
    if (!a)
        return;
    CUDA_ARRAY_SPARSE_PROPERTIES p;
    memset(&p, 0xA5, sizeof p);
    OK(cuArrayGetSparseProperties(&p, a));
    EXPECT(p.tileExtent.width == tw && p.tileExtent.height == th && p.tileExtent.depth == td);
    EXPECT(p.miptailFirstLevel == first);
    EXPECT(p.miptailSize == tail);
    EXPECT(p.flags == 0);
    CUDA_ARRAY3D_DESCRIPTOR back;
    OK(cuArray3DGetDescriptor(&back, a));
    EXPECT(back.Flags & CUDA_ARRAY3D_SPARSE);
    OK(cuArrayDestroy(a));
}

static void check_mipmap(CUDA_ARRAY3D_DESCRIPTOR d, unsigned levels, unsigned tw,
                         unsigned th, unsigned td, unsigned first, unsigned long long tail)
{
    CUmipmappedArray m = NULL;
    OK(cuMipmappedArrayCreate(&m, &d, levels));
    if (!m)
        return;
    CUDA_ARRAY_SPARSE_PROPERTIES p;
    memset(&p, 0xA5, sizeof p);
    OK(cuMipmappedArrayGetSparseProperties(&p, m));
    EXPECT(p.tileExtent.width == tw && p.tileExtent.height == th && p.tileExtent.depth == td);
    EXPECT(p.miptailFirstLevel == first);
    EXPECT(p.miptailSize == tail);
    EXPECT(p.flags == 0);
    OK(cuMipmappedArrayDestroy(m));
}

static void properties(void)
{
    /* 2D: 1, 4, 8, 16-byte elements; 100 x 300 u8 is smaller than one
     * 256 x 256 tile, so all of it is the tail */
    check_array(desc(100, 300, 0, CU_AD_FORMAT_UNSIGNED_INT8, 1, 0), 256, 256, 1, 0,
                tiles(100 * 300));
    check_array(desc(1024, 512, 0, CU_AD_FORMAT_FLOAT, 1, 0), 128, 128, 1, 1, 0);
    check_array(desc(1024, 512, 0, CU_AD_FORMAT_HALF, 4, 0), 128, 64, 1, 1, 0);
    check_array(desc(512, 512, 0, CU_AD_FORMAT_FLOAT, 4, 0), 64, 64, 1, 1, 0);
    check_array(desc(512, 100, 0, CU_AD_FORMAT_SIGNED_INT16, 1, 0), 256, 128, 1, 0,
                tiles(512 * 100 * 2));
    /* 3D: other shapes */
    check_array(desc(64, 64, 64, CU_AD_FORMAT_UNSIGNED_INT16, 1, 0), 32, 32, 32, 1, 0);
    check_array(desc(64, 64, 64, CU_AD_FORMAT_FLOAT, 4, 0), 16, 16, 16, 1, 0);
    check_array(desc(64, 64, 8, CU_AD_FORMAT_UNSIGNED_INT8, 1, 0), 64, 32, 32, 0,
                tiles(64 * 64 * 8));
    /* layered 2D: 2D tiles, the layer count is not a depth */
    check_array(desc(256, 256, 4, CU_AD_FORMAT_UNSIGNED_INT8, 1, CUDA_ARRAY3D_LAYERED), 256,
                256, 1, 1, 0);

    /* mipmapped 2D float 1024^2, 11 levels: levels 0-3 hold 128 x 128
     * tiles, 64 x 64 down to 1 x 1 are the tail */
    unsigned long long t = 0;
    for (unsigned s = 64; s; s >>= 1)
        t += (unsigned long long)s * s * 4;
    check_mipmap(desc(1024, 1024, 0, CU_AD_FORMAT_FLOAT, 1, 0), 11, 128, 128, 1, 4, tiles(t));
    /* 3D u8 256 x 128 x 64, 4 levels: level 2 (64 x 32 x 16) is thinner
     * than a 64 x 32 x 32 tile */
    check_mipmap(desc(256, 128, 64, CU_AD_FORMAT_UNSIGNED_INT8, 1, 0), 4, 64, 32, 32, 2,
                 tiles(64 * 32 * 16 + 32 * 16 * 8));
    /* layered half2, 3 layers: the tail (64 x 64, level 3) is per layer */
    check_mipmap(desc(512, 512, 3, CU_AD_FORMAT_HALF, 2, CUDA_ARRAY3D_LAYERED), 4, 128, 128, 1,
                 3, tiles(64 * 64 * 4));
    /* no level small enough: no tail */
    check_mipmap(desc(512, 256, 0, CU_AD_FORMAT_UNSIGNED_INT8, 1, 0), 1, 256, 256, 1, 1, 0);
}


/* sampled through a texture object with the residency form of tex: the
 * values copied in, and resident (Zinc backs every tile) */
static void sample(CUarray a, unsigned w, unsigned h)
{
    CUmodule mod = NULL;
    CUfunction f = NULL;
    OK(cuModuleLoadData(&mod, sample_ptx));
    if (!mod)
        return;
    OK(cuModuleGetFunction(&f, mod, "sample"));
    CUtexObject t = drv_tex_point_obj(a, CU_TRSF_READ_AS_INTEGER);
    size_t bytes = (size_t)w * h * 8;
    CUdeviceptr out = 0;
    OK(cuMemAlloc(&out, bytes));
    unsigned wv = w;
    void *args[] = {&t, &out, &wv};
    static uint32_t got[300 * 200 * 2];
    drv_launch_out(f, w / 4, h, 4, args, out, got, bytes);
    int same = 1, resident = 1;
    for (unsigned y = 0; y < h; y++)
        for (unsigned x = 0; x < w; x++) {
            same &= got[2 * (y * w + x)] == (uint32_t)(y * 7919 + x * 31 + 5);
            resident &= got[2 * (y * w + x) + 1] == 1;
        }
    EXPECT(same);
    EXPECT(resident);
    OK(cuMemFree(out));
    OK(cuTexObjectDestroy(t));
    OK(cuModuleUnload(mod));
}

/* a sparse array reads zero before anything is written, and holds what
 * is copied in */
static void copies(void)
{
    enum { W = 300, H = 200 };
    CUDA_ARRAY3D_DESCRIPTOR d = desc(W, H, 0, CU_AD_FORMAT_UNSIGNED_INT32, 1, 0);
    CUarray a = NULL;
    OK(cuArray3DCreate(&a, &d));
    if (!a)
        return;
    static uint32_t in[H][W], out[H][W];
    memset(out, 0xCD, sizeof out);
    drv_get(out, sizeof out[0], a, sizeof out[0], H);
    int zero = 1;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            zero &= out[y][x] == 0;
    EXPECT(zero);

    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            in[y][x] = (uint32_t)(y * 7919 + x * 31 + 5);
    drv_put(a, in, sizeof in[0], sizeof in[0], H);
    memset(out, 0xCD, sizeof out);
    drv_get(out, sizeof out[0], a, sizeof out[0], H);
    int same = 1;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            same &= out[y][x] == (uint32_t)(y * 7919 + x * 31 + 5);
    EXPECT(same);
    sample(a, W, H);
    OK(cuArrayDestroy(a));
}

static void misuse(void)
{
    CUarray a = NULL;
    /* 1D: sparse tiles are 2D or 3D */
    CUDA_ARRAY3D_DESCRIPTOR d = desc(1024, 0, 0, CU_AD_FORMAT_FLOAT, 1, 0);
    EXPECT_RC(cuArray3DCreate(&a, &d), CUDA_ERROR_INVALID_VALUE);
    d = desc(1024, 1024, 0, CU_AD_FORMAT_FLOAT, 1, CUDA_ARRAY3D_DEFERRED_MAPPING);
    EXPECT_RC(cuArray3DCreate(&a, &d), CUDA_ERROR_INVALID_VALUE);
    d = desc(1024, 1024, 0, CU_AD_FORMAT_BC1_UNORM, 4, 0);
    EXPECT_RC(cuArray3DCreate(&a, &d), CUDA_ERROR_NOT_SUPPORTED);
    EXPECT(a == NULL);

    /* a non-sparse array, a NULL result, a bad handle */
    d = desc(256, 256, 0, CU_AD_FORMAT_FLOAT, 1, 0);
    d.Flags = 0;
    CUarray plain = NULL;
    OK(cuArray3DCreate(&plain, &d));
    CUDA_ARRAY_SPARSE_PROPERTIES p;
    EXPECT_RC(cuArrayGetSparseProperties(&p, plain), CUDA_ERROR_INVALID_VALUE);
    CUmipmappedArray m = NULL;
    OK(cuMipmappedArrayCreate(&m, &d, 2));
    EXPECT_RC(cuMipmappedArrayGetSparseProperties(&p, m), CUDA_ERROR_INVALID_VALUE);
    d.Flags = CUDA_ARRAY3D_SPARSE;
    CUarray sp = NULL;
    OK(cuArray3DCreate(&sp, &d));
    EXPECT_RC(cuArrayGetSparseProperties(NULL, sp), CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(cuArrayGetSparseProperties(&p, (CUarray)&drv_failures), CUDA_ERROR_INVALID_HANDLE);
    EXPECT_RC(cuMipmappedArrayGetSparseProperties(&p, (CUmipmappedArray)&drv_failures),
              CUDA_ERROR_INVALID_HANDLE);
    OK(cuArrayDestroy(sp));
    OK(cuMipmappedArrayDestroy(m));
    OK(cuArrayDestroy(plain));
}

int main(void)
{
    CUdevice dev = drv_test_primary_ctx(NULL);
    properties();
    copies();
    misuse();
    OK(cuDevicePrimaryCtxRelease(dev));
    return drv_test_end("drv_sparse");
}
