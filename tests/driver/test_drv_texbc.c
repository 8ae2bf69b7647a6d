/* test_drv_texbc.c: block-compressed CUDA arrays and views through the
 * driver API: what cuArray3DCreate refuses (channel counts other than the
 * format's, 1D, surface access) and takes (BC5 layered, BC6H, BC7), the
 * descriptor read back in texels, cuMemcpy2D in blocks (a copy as wide as
 * the texels is refused), mipmap levels of 4 x 4 and smaller; the view
 * rules (U32 x2 for BC1/BC4, x4 for the others, 4 times the array's
 * width and height, no view of a BC array) and a PTX kernel reading
 * hand-built BC1 and BC4 blocks through a view and an array, point and
 * linear, and the levels of a mipmapped BC1 array (tex.level), against
 * values stated here.
 */
#include <cuda.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "drv_test.h"
#include "drv_test_tex.h"

/* out[i] = tex.2d (red, green) at (x[i], y[i]) for 8 lookups */
static const char ptx[] =
    DRV_PTX_HEAD
    ".visible .entry look(.param .u64 tex, .param .u64 xy, .param .u64 out)\n"
    "{\n"
    "    .reg .b32 %r<4>;\n"
    "    .reg .b64 %rd<8>;\n"
    "    .reg .f32 %f<8>;\n"
    "    ld.param.u64 %rd1, [tex];\n"
    "    ld.param.u64 %rd2, [xy];\n"
    "    ld.param.u64 %rd3, [out];\n"
    "    mov.u32 %r1, %tid.x;\n"
    "    mul.wide.u32 %rd4, %r1, 8;\n"
    "    add.s64 %rd5, %rd2, %rd4;\n"
    "    add.s64 %rd6, %rd3, %rd4;\n"
    "    ld.global.v2.f32 {%f1, %f2}, [%rd5];\n"
    "    tex.2d.v4.f32.f32 {%f3, %f4, %f5, %f6}, [%rd1, {%f1, %f2}];\n"
    "    st.global.v2.f32 [%rd6], {%f3, %f4};\n"
    "    ret;\n"
    "}\n"
    /* out[i] = tex.level.2d (red, green, blue) at (0.5, 0.5), LOD i */
    ".visible .entry lod(.param .u64 tex, .param .u64 out)\n"
    "{\n"
    "    .reg .b32 %r<4>;\n"
    "    .reg .b64 %rd<8>;\n"
    "    .reg .f32 %f<8>;\n"
    "    ld.param.u64 %rd1, [tex];\n"
    "    ld.param.u64 %rd3, [out];\n"
    "    mov.u32 %r1, %tid.x;\n"
    "    cvt.rn.f32.u32 %f7, %r1;\n"
    "    mul.wide.u32 %rd4, %r1, 12;\n"
    "    add.s64 %rd6, %rd3, %rd4;\n"
    "    mov.f32 %f1, 0f3F000000;\n"
    "    tex.level.2d.v4.f32.f32 {%f3, %f4, %f5, %f6}, [%rd1, {%f1, %f1}], %f7;\n"
    "    st.global.f32 [%rd6], %f3;\n"
    "    st.global.f32 [%rd6+4], %f4;\n"
    "    st.global.f32 [%rd6+8], %f5;\n"
    "    ret;\n"
    "}\n";

static void test_create(void)
{
    CUarray a = NULL;
    CUDA_ARRAY3D_DESCRIPTOR d = {10, 6, 0, CU_AD_FORMAT_BC1_UNORM, 4, 0};
    CUDA_ARRAY3D_DESCRIPTOR bad = d;
    bad.NumChannels = 2;
    EXPECT_RC(cuArray3DCreate(&a, &bad), CUDA_ERROR_INVALID_VALUE);
    bad = d;
    bad.Height = 0; /* no 1D block-compressed arrays */
    EXPECT_RC(cuArray3DCreate(&a, &bad), CUDA_ERROR_INVALID_VALUE);
    bad = d;
    bad.Flags = CUDA_ARRAY3D_SURFACE_LDST;
    EXPECT_RC(cuArray3DCreate(&a, &bad), CUDA_ERROR_INVALID_VALUE);
    bad = d;
    bad.Format = CU_AD_FORMAT_BC6H_UF16; /* three channels */
    EXPECT_RC(cuArray3DCreate(&a, &bad), CUDA_ERROR_INVALID_VALUE);
    bad.NumChannels = 3;
    OK(cuArray3DCreate(&a, &bad));
    OK(cuArrayDestroy(a));
    bad = d;
    bad.Format = CU_AD_FORMAT_BC7_UNORM_SRGB;
    OK(cuArray3DCreate(&a, &bad));
    OK(cuArrayDestroy(a));
    CUDA_ARRAY3D_DESCRIPTOR bc5 = {8, 8, 0, CU_AD_FORMAT_BC5_SNORM, 2, CUDA_ARRAY3D_LAYERED};
    bc5.Depth = 3;
    OK(cuArray3DCreate(&a, &bc5));
    OK(cuArrayDestroy(a));

    /* 10 x 6 texels: 3 x 2 blocks of 8 bytes */
    OK(cuArray3DCreate(&a, &d));
    CUDA_ARRAY3D_DESCRIPTOR g;
    OK(cuArray3DGetDescriptor(&g, a));
    EXPECT(g.Width == 10 && g.Height == 6 && g.Format == CU_AD_FORMAT_BC1_UNORM &&
           g.NumChannels == 4);
    uint8_t src[6 * 8], back[6 * 8];
    for (unsigned i = 0; i < sizeof src; i++)
        src[i] = (uint8_t)(i * 37 + 11);
    CUDA_MEMCPY2D c = drv_copy_h2a(a, src, 24, 24, 2);
    OK(cuMemcpy2D(&c));
    c.WidthInBytes = 32; /* 4 blocks: wider than the array */
    c.srcPitch = 32;
    EXPECT_RC(cuMemcpy2D(&c), CUDA_ERROR_INVALID_VALUE);
    c.WidthInBytes = 24;
    c.srcPitch = 24;
    c.Height = 6; /* texel rows are not block rows */
    EXPECT_RC(cuMemcpy2D(&c), CUDA_ERROR_INVALID_VALUE);
    c = drv_copy_a2h(back, 16, a, 16, 1);
    c.srcXInBytes = 8; /* block (1, 1) and (2, 1) */
    c.srcY = 1;
    OK(cuMemcpy2D(&c));
    EXPECT(!memcmp(back, src + 24 + 8, 16));

    /* no views of block-compressed arrays */
    CUDA_RESOURCE_DESC rd = drv_res_array(a);
    CUDA_TEXTURE_DESC td = drv_tex_point(0);
    CUDA_RESOURCE_VIEW_DESC v;
    memset(&v, 0, sizeof v);
    v.format = CU_RES_VIEW_FORMAT_UNSIGNED_BC1;
    v.width = 10;
    v.height = 6;
    CUtexObject t;
    EXPECT_RC(cuTexObjectCreate(&t, &rd, &td, &v), CUDA_ERROR_INVALID_VALUE);
    OK(cuTexObjectCreate(&t, &rd, &td, NULL));
    OK(cuTexObjectDestroy(t));
    OK(cuArrayDestroy(a));

    /* mip levels: 8, 4, 2, 1 texels: one block each from level 1 on */
    CUmipmappedArray m;
    CUDA_ARRAY3D_DESCRIPTOR md = {8, 8, 0, CU_AD_FORMAT_BC3_UNORM, 4, 0};
    OK(cuMipmappedArrayCreate(&m, &md, 4));
    CUarray l3;
    OK(cuMipmappedArrayGetLevel(&l3, m, 3));
    OK(cuArray3DGetDescriptor(&g, l3));
    EXPECT(g.Width == 1 && g.Height == 1);
    drv_put(l3, src, 16, 16, 1); /* the whole 1 x 1 level is one 16-byte block */
    OK(cuMipmappedArrayDestroy(m));
}

static void test_views(void)
{
    CUarray a2, a4;
    CUDA_ARRAY3D_DESCRIPTOR d2 = {2, 1, 0, CU_AD_FORMAT_UNSIGNED_INT32, 2, 0};
    CUDA_ARRAY3D_DESCRIPTOR d4 = {2, 1, 0, CU_AD_FORMAT_UNSIGNED_INT32, 4, 0};
    OK(cuArray3DCreate(&a2, &d2));
    OK(cuArray3DCreate(&a4, &d4));
    CUDA_RESOURCE_DESC rd = drv_res_array(a4);
    CUDA_TEXTURE_DESC td = drv_tex_point(0);
    CUDA_RESOURCE_VIEW_DESC v;
    memset(&v, 0, sizeof v);
    v.format = CU_RES_VIEW_FORMAT_UNSIGNED_BC1; /* 8-byte blocks: needs U32 x2 */
    v.width = 8;
    v.height = 4;
    CUtexObject t;
    EXPECT_RC(cuTexObjectCreate(&t, &rd, &td, &v), CUDA_ERROR_INVALID_VALUE);
    v.format = CU_RES_VIEW_FORMAT_SIGNED_BC6H;
    OK(cuTexObjectCreate(&t, &rd, &td, &v));
    OK(cuTexObjectDestroy(t));
    v.format = CU_RES_VIEW_FORMAT_UNSIGNED_BC3;
    OK(cuTexObjectCreate(&t, &rd, &td, &v));
    OK(cuTexObjectDestroy(t));
    v.width = 2; /* the array's own width */
    EXPECT_RC(cuTexObjectCreate(&t, &rd, &td, &v), CUDA_ERROR_INVALID_VALUE);
    rd.res.array.hArray = a2;
    v.format = CU_RES_VIEW_FORMAT_UNSIGNED_BC3; /* 16-byte blocks: needs U32 x4 */
    v.width = 8;
    EXPECT_RC(cuTexObjectCreate(&t, &rd, &td, &v), CUDA_ERROR_INVALID_VALUE);
    OK(cuArrayDestroy(a2));
    OK(cuArrayDestroy(a4));
}

/* BC1 block: red (c0 = 0xf800) > green (c1 = 0x07e0), texel k has index
 * k % 4: red, green, (2/3, 1/3), (1/3, 2/3). BC4 block: r0 = 0 < r1 = 255
 * (six values), texel k has index (k % 8): 0, 1, 1/5, 2/5, 3/5, 4/5, 0, 1. */
static const uint8_t bc1_block[8] = {0x00, 0xf8, 0xe0, 0x07, 0xe4, 0xe4, 0xe4, 0xe4};

static void bc4_block(uint8_t *b)
{
    memset(b, 0, 8);
    b[0] = 0, b[1] = 255;
    for (unsigned k = 0; k < 16; k++)
        for (unsigned bit = 0; bit < 3; bit++)
            if (((k % 8) >> bit) & 1)
                b[(16 + 3 * k + bit) / 8] |= (uint8_t)(1u << ((16 + 3 * k + bit) % 8));
}

static void run_look(CUfunction f, CUtexObject t, const float *xy, float *got)
{
    CUdeviceptr dxy, dout;
    OK(cuMemAlloc(&dxy, 64));
    OK(cuMemAlloc(&dout, 64));
    OK(cuMemcpyHtoD(dxy, xy, 64));
    void *args[] = {&t, &dxy, &dout};
    drv_launch_out(f, 1, 1, 8, args, dout, got, 64);
    OK(cuMemFree(dxy));
    OK(cuMemFree(dout));
}

static bool near(float a, float b)
{
    return fabsf(a - b) <= 1e-6f;
}

static void test_sampling(CUmodule mod)
{
    CUfunction f;
    OK(cuModuleGetFunction(&f, mod, "look"));
    /* a BC1 view of one U32 x2 element: 4 x 4 texels */
    CUarray a;
    CUDA_ARRAY3D_DESCRIPTOR d = {1, 1, 0, CU_AD_FORMAT_UNSIGNED_INT32, 2, 0};
    OK(cuArray3DCreate(&a, &d));
    drv_put(a, bc1_block, 8, 8, 1);
    CUDA_RESOURCE_DESC rd = drv_res_array(a);
    CUDA_TEXTURE_DESC td = drv_tex_point(0);
    td.filterMode = CU_TR_FILTER_MODE_LINEAR;
    CUDA_RESOURCE_VIEW_DESC v;
    memset(&v, 0, sizeof v);
    v.format = CU_RES_VIEW_FORMAT_UNSIGNED_BC1;
    v.width = 4;
    v.height = 4;
    CUtexObject t;
    OK(cuTexObjectCreate(&t, &rd, &td, &v));
    /* texel centres 0..3 of row 2, then between texels 0 and 1 (half red,
     * half green), between 2 and 3, and a row and column clamp */
    const float xy[16] = {0.5f, 2.5f, 1.5f, 2.5f, 2.5f, 2.5f, 3.5f, 2.5f,
                          1.0f, 0.5f, 3.0f, 3.5f, -3.0f, 0.5f, 9.0f, 9.0f};
    /* as an H200 decodes BC1 (8-bit, NVIDIA's interpolants: (2 c0 + c1) / 3
     * of 0 and 255 is 170 in 5-bit red, 80 in 6-bit green) and filters
     * UNORM texels (16-bit fixed point: the half of 65535 rounds up) */
    const float h = 32768 / 65535.0f;
    const float want[16] = {1, 0, 0, 1, 170 / 255.0f, 80 / 255.0f, 85 / 255.0f, 175 / 255.0f,
                            h, h, h, h, 1, 0, 85 / 255.0f, 175 / 255.0f};
    float got[16];
    run_look(f, t, xy, got);
    for (int i = 0; i < 16; i++)
        if (!near(got[i], want[i])) {
            printf("FAIL BC1 view lookup %d channel %d: got %.8g want %.8g\n", i / 2, i % 2,
                   got[i], want[i]);
            drv_failures++;
        }
    OK(cuTexObjectDestroy(t));
    OK(cuArrayDestroy(a));

    /* a BC4 array of 4 x 4 texels, point sampling */
    CUDA_ARRAY3D_DESCRIPTOR d4 = {4, 4, 0, CU_AD_FORMAT_BC4_UNORM, 1, 0};
    OK(cuArray3DCreate(&a, &d4));
    uint8_t b[8];
    bc4_block(b);
    drv_put(a, b, 8, 8, 1);
    t = drv_tex_point_obj(a, 0);
    const float xy4[16] = {0.5f, 0.5f, 1.5f, 0.5f, 2.5f, 0.5f, 3.5f, 0.5f,
                           0.5f, 1.5f, 1.5f, 1.5f, 2.5f, 1.5f, 3.5f, 1.5f};
    /* an H200 decodes BC4 UNORM in 16 bits: r0 (257 - w) + r1 w, w 48, 96,
     * 161, 209 for the six-value ramp's interpolants */
    const float want4[8] = {0, 1, 12240 / 65535.0f, 24480 / 65535.0f, 41055 / 65535.0f,
                            53295 / 65535.0f, 0, 1};
    run_look(f, t, xy4, got);
    for (int i = 0; i < 8; i++)
        if (!near(got[2 * i], want4[i]) || got[2 * i + 1] != 0.0f) {
            printf("FAIL BC4 texel %d: got (%.8g, %.8g) want (%.8g, 0)\n", i, got[2 * i],
                   got[2 * i + 1], want4[i]);
            drv_failures++;
        }
    OK(cuTexObjectDestroy(t));
    OK(cuArrayDestroy(a));
}

/* A mipmapped 8 x 8 BC1 array, 4 levels (2 x 2 blocks, then one block
 * each): level l's blocks are solid colour l (c0 = c1, every index 0),
 * pure red, green, blue and white; tex.level at LOD l reads it. */
static void test_mip_levels(CUmodule mod)
{
    static const uint16_t colour[4] = {0xf800, 0x07e0, 0x001f, 0xffff};
    static const float want[4][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {1, 1, 1}};
    CUmipmappedArray m;
    CUDA_ARRAY3D_DESCRIPTOR md = {8, 8, 0, CU_AD_FORMAT_BC1_UNORM, 4, 0};
    OK(cuMipmappedArrayCreate(&m, &md, 4));
    for (unsigned l = 0; l < 4; l++) {
        uint8_t blocks[4][8];
        memset(blocks, 0, sizeof blocks);
        for (unsigned b = 0; b < 4; b++) {
            blocks[b][0] = blocks[b][2] = (uint8_t)colour[l];
            blocks[b][1] = blocks[b][3] = (uint8_t)(colour[l] >> 8);
        }
        CUarray la;
        OK(cuMipmappedArrayGetLevel(&la, m, l));
        drv_put(la, blocks, l ? 8 : 16, l ? 8 : 16, l ? 1 : 2); /* level 0: 2 x 2 blocks */
    }
    CUDA_RESOURCE_DESC rd = drv_res_mipmap(m);
    CUDA_TEXTURE_DESC td = drv_tex_point(CU_TRSF_NORMALIZED_COORDINATES);
    td.maxMipmapLevelClamp = 3;
    CUtexObject t;
    OK(cuTexObjectCreate(&t, &rd, &td, NULL));
    CUfunction f;
    OK(cuModuleGetFunction(&f, mod, "lod"));
    CUdeviceptr dout;
    OK(cuMemAlloc(&dout, 48));
    void *args[] = {&t, &dout};
    float got[4][3];
    drv_launch_out(f, 1, 1, 4, args, dout, got, 48);
    for (unsigned l = 0; l < 4; l++)
        for (unsigned c = 0; c < 3; c++)
            if (got[l][c] != want[l][c]) {
                printf("FAIL BC1 mip level %u channel %u: got %.8g want %.8g\n", l, c,
                       got[l][c], want[l][c]);
                drv_failures++;
            }
    OK(cuMemFree(dout));
    OK(cuTexObjectDestroy(t));
    OK(cuMipmappedArrayDestroy(m));
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    CUdevice dev = drv_test_primary_ctx(NULL);
    CUmodule mod;
    OK(cuModuleLoadData(&mod, ptx));
    test_create();
    test_views();
    test_sampling(mod);
    test_mip_levels(mod);
    OK(cuModuleUnload(mod));
    OK(cuDevicePrimaryCtxRelease(dev));
    return drv_test_end("drv_texbc");
}
