/* test_drv_planar.c: planar (video) CUDA arrays. NV12 (cuArrayCreate) and
 * P016 (cuArray3DCreate): descriptors of the array and of its planes,
 * planes filled with cuMemcpy2D from pitched host rows, read back through
 * the parent (the frame's bytes in NV12/P016 pitch-linear layout, computed
 * here) and through a texture object on each plane read by a PTX kernel
 * (tex.2d with integer coordinates, integer reads); a whole frame copied
 * into the parent and read through the chroma plane; 4:2:2 and 4:4:4
 * plane shapes; misuse (odd sizes, depth, layers, a plane past the last,
 * destroying a plane, a texture on the parent, stale plane handles, a
 * mipmapped NV12 array).
 */
#include <cuda.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "drv_test.h"
#include "drv_test_tex.h"

/* out[ctaid.x * ntid.x + tid.x] = the 4 u32 components of texel
 * (tid.x, ctaid.x) */
static const char ptx[] =
    DRV_PTX_HEAD
    ".visible .entry fetch(.param .u64 tex, .param .u64 out)\n"
    "{\n"
    "    .reg .b32 %r<12>;\n"
    "    .reg .b64 %rd<8>;\n"
    "    ld.param.u64 %rd1, [tex];\n"
    "    ld.param.u64 %rd2, [out];\n"
    "    mov.u32 %r1, %tid.x;\n"
    "    mov.u32 %r2, %ctaid.x;\n"
    "    mov.u32 %r3, %ntid.x;\n"
    "    mad.lo.s32 %r8, %r2, %r3, %r1;\n"
    "    mul.wide.u32 %rd4, %r8, 16;\n"
    "    add.s64 %rd6, %rd2, %rd4;\n"
    "    tex.2d.v4.u32.s32 {%r4, %r5, %r6, %r7}, [%rd1, {%r1, %r2}];\n"
    "    st.global.v4.u32 [%rd6], {%r4, %r5, %r6, %r7};\n"
    "    ret;\n"
    "}\n";

#define W 32u
#define H 16u

static CUmodule mod;
static CUdeviceptr dout;

/* the test's values: luma and the two chroma components of (x, y) */
static uint16_t luma(unsigned x, unsigned y, uint16_t mask)
{
    return (uint16_t)((x * 37u + y * 101u + 5u) & mask);
}
static uint16_t chroma(unsigned x, unsigned y, unsigned c, uint16_t mask)
{
    return (uint16_t)((x * 11u + y * 53u + c * 29u + 200u) * (c ? 7u : 3u) & mask);
}

/* Reads every texel of plane p (w x h, integer reads) through a texture
 * object; out[i][c] for texel i = y * w + x. */
static void fetch_plane(CUarray p, unsigned w, unsigned h, uint32_t (*out)[4])
{
    CUtexObject t = drv_tex_point_obj(p, CU_TRSF_READ_AS_INTEGER);
    CUfunction f;
    OK(cuModuleGetFunction(&f, mod, "fetch"));
    void *args[] = {&t, &dout};
    drv_launch_out(f, h, 1, w, args, dout, out, (size_t)w * h * 16);
    OK(cuTexObjectDestroy(t));
}

static void expect_desc(CUarray a, CUarray_format f, size_t w, size_t h, unsigned nch)
{
    CUDA_ARRAY_DESCRIPTOR d;
    memset(&d, 0xff, sizeof d);
    OK(cuArrayGetDescriptor(&d, a));
    EXPECT(d.Format == f && d.Width == w && d.Height == h && d.NumChannels == nch);
    CUDA_ARRAY3D_DESCRIPTOR d3;
    memset(&d3, 0xff, sizeof d3);
    OK(cuArray3DGetDescriptor(&d3, a));
    EXPECT(d3.Format == f && d3.Width == w && d3.Height == h && d3.Depth == 0 &&
           d3.NumChannels == nch);
}

/* One 4:2:0 frame: cs = 1 (NV12) or 2 (P016). */
static void test_420(CUarray a, unsigned cs)
{
    const uint16_t mask = cs == 1 ? 0xff : 0xffff;
    const CUarray_format pf = cs == 1 ? CU_AD_FORMAT_UNSIGNED_INT8 : CU_AD_FORMAT_UNSIGNED_INT16;
    CUarray y = NULL, uv = NULL, bad = NULL;
    OK(cuArrayGetPlane(&y, a, 0));
    OK(cuArrayGetPlane(&uv, a, 1));
    EXPECT(y && uv && y != uv && y != a);
    EXPECT_RC(cuArrayGetPlane(&bad, a, 2), CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(cuArrayGetPlane(NULL, a, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT(bad == NULL);
    CUarray y2 = NULL;
    OK(cuArrayGetPlane(&y2, a, 0));
    EXPECT(y2 == y);
    expect_desc(y, pf, W, H, 1);
    expect_desc(uv, pf, W / 2, H / 2, 2);
    EXPECT_RC(cuArrayGetPlane(&bad, y, 0), CUDA_ERROR_INVALID_VALUE); /* a plane has none */
    EXPECT_RC(cuArrayDestroy(y), CUDA_ERROR_INVALID_HANDLE);          /* goes with a */

    /* planes from pitched host rows (pitch wider than a row) */
    enum { SP = 160 };
    static uint8_t src[H * SP];
    memset(src, 0x5a, sizeof src);
    for (unsigned r = 0; r < H; r++)
        for (unsigned x = 0; x < W; x++) {
            uint16_t v = luma(x, r, mask);
            memcpy(src + r * SP + x * cs, &v, cs); /* little-endian: low bytes */
        }
    drv_put(y, src, SP, W * cs, H);
    memset(src, 0x5a, sizeof src);
    for (unsigned r = 0; r < H / 2; r++)
        for (unsigned x = 0; x < W / 2; x++)
            for (unsigned c = 0; c < 2; c++) {
                uint16_t v = chroma(x, r, c, mask);
                memcpy(src + r * SP + (2 * x + c) * cs, &v, cs);
            }
    drv_put(uv, src, SP, W * cs, H / 2);

    /* the parent: W * cs bytes a row, luma rows then chroma rows */
    static uint8_t frame[H * 3 / 2 * W * 2], want[H * 3 / 2 * W * 2];
    size_t rowb = (size_t)W * cs;
    memset(frame, 0xee, sizeof frame);
    drv_get(frame, rowb, a, rowb, H * 3 / 2);
    for (unsigned r = 0; r < H; r++)
        for (unsigned x = 0; x < W; x++) {
            uint16_t v = luma(x, r, mask);
            memcpy(want + r * rowb + x * cs, &v, cs);
        }
    for (unsigned r = 0; r < H / 2; r++)
        for (unsigned x = 0; x < W / 2; x++)
            for (unsigned c = 0; c < 2; c++) {
                uint16_t v = chroma(x, r, c, mask);
                memcpy(want + (H + r) * rowb + (2 * x + c) * cs, &v, cs);
            }
    EXPECT(memcmp(frame, want, rowb * H * 3 / 2) == 0);
    /* the frame is exactly W x 1.5 H rows: one row more is out of range */
    CUDA_MEMCPY2D c = drv_copy_a2h(frame, rowb, a, rowb, H * 3 / 2 + 1);
    EXPECT_RC(cuMemcpy2D(&c), CUDA_ERROR_INVALID_VALUE);

    /* each plane through a texture object */
    static uint32_t out[W * H][4];
    fetch_plane(y, W, H, out);
    bool ok = true;
    for (unsigned r = 0; r < H; r++)
        for (unsigned x = 0; x < W; x++)
            ok &= out[r * W + x][0] == luma(x, r, mask);
    EXPECT(ok);
    fetch_plane(uv, W / 2, H / 2, out);
    ok = true;
    for (unsigned r = 0; r < H / 2; r++)
        for (unsigned x = 0; x < W / 2; x++)
            ok &= out[r * (W / 2) + x][0] == chroma(x, r, 0, mask) &&
                  out[r * (W / 2) + x][1] == chroma(x, r, 1, mask);
    EXPECT(ok);

    /* a whole frame into the parent, read through the chroma plane */
    for (size_t i = 0; i < rowb * H * 3 / 2; i++)
        want[i] = (uint8_t)(i * 7 + 1);
    drv_put(a, want, rowb, rowb, H * 3 / 2);
    static uint8_t chr[H / 2 * W * 2];
    memset(chr, 0xee, sizeof chr);
    drv_get(chr, rowb, uv, rowb, H / 2);
    EXPECT(memcmp(chr, want + rowb * H, rowb * H / 2) == 0);

    /* no texture on the parent itself (Zinc does not sample YUV) */
    CUDA_RESOURCE_DESC rd = drv_res_array(a);
    CUDA_TEXTURE_DESC td = drv_tex_point(CU_TRSF_READ_AS_INTEGER);
    CUtexObject t = 0;
    EXPECT_RC(cuTexObjectCreate(&t, &rd, &td, NULL), CUDA_ERROR_INVALID_VALUE);

    OK(cuArrayDestroy(a));
    EXPECT_RC(cuArrayGetDescriptor(&(CUDA_ARRAY_DESCRIPTOR){0}, y), CUDA_ERROR_INVALID_HANDLE);
    EXPECT_RC(cuArrayGetDescriptor(&(CUDA_ARRAY_DESCRIPTOR){0}, uv), CUDA_ERROR_INVALID_HANDLE);
}

/* plane shapes of the 4:2:2 and 4:4:4 formats */
static void test_shapes(void)
{
    static const struct {
        CUarray_format f;
        CUarray_format pf;
        unsigned nplanes, cw, ch, cch; /* chroma width / height divisors, channels */
    } fm[] = {
        {CU_AD_FORMAT_NV16, CU_AD_FORMAT_UNSIGNED_INT8, 2, 2, 1, 2},
        {CU_AD_FORMAT_P210, CU_AD_FORMAT_UNSIGNED_INT16, 2, 2, 1, 2},
        {CU_AD_FORMAT_P216, CU_AD_FORMAT_UNSIGNED_INT16, 2, 2, 1, 2},
        {CU_AD_FORMAT_P010, CU_AD_FORMAT_UNSIGNED_INT16, 2, 2, 2, 2},
        {CU_AD_FORMAT_Y444_PLANAR8, CU_AD_FORMAT_UNSIGNED_INT8, 3, 1, 1, 1},
        {CU_AD_FORMAT_Y444_PLANAR10, CU_AD_FORMAT_UNSIGNED_INT16, 3, 1, 1, 1},
        {CU_AD_FORMAT_YUV444_8bit_SemiPlanar, CU_AD_FORMAT_UNSIGNED_INT8, 2, 1, 1, 2},
        {CU_AD_FORMAT_YUV444_16bit_SemiPlanar, CU_AD_FORMAT_UNSIGNED_INT16, 2, 1, 1, 2},
    };
    for (size_t i = 0; i < sizeof fm / sizeof fm[0]; i++) {
        CUDA_ARRAY3D_DESCRIPTOR d = {8, 6, 0, fm[i].f, 3, 0};
        CUarray a = NULL, p = NULL;
        OK(cuArray3DCreate(&a, &d));
        OK(cuArrayGetPlane(&p, a, 0));
        expect_desc(p, fm[i].pf, 8, 6, 1);
        for (unsigned k = 1; k < fm[i].nplanes; k++) {
            OK(cuArrayGetPlane(&p, a, k));
            expect_desc(p, fm[i].pf, 8 / fm[i].cw, 6 / fm[i].ch, fm[i].cch);
        }
        EXPECT_RC(cuArrayGetPlane(&p, a, fm[i].nplanes), CUDA_ERROR_INVALID_VALUE);
        /* the last plane's last row is the parent's last bytes: write them
         * through the plane, read them through the parent */
        size_t cs = fm[i].pf == CU_AD_FORMAT_UNSIGNED_INT8 ? 1 : 2;
        size_t pw = (8 / fm[i].cw) * fm[i].cch * cs;
        if (fm[i].nplanes == 1)
            pw = 8 * cs;
        uint8_t row[32], got[32];
        memset(got, 0xee, sizeof got);
        for (unsigned b = 0; b < pw; b++)
            row[b] = (uint8_t)(b * 9 + i + 1);
        size_t ph = 6 / fm[i].ch;
        CUDA_MEMCPY2D c = drv_copy_h2a(p, row, pw, pw, 1);
        c.dstY = ph - 1;
        OK(cuMemcpy2D(&c));
        size_t rowb = 8 * cs;
        size_t bytes = 8 * 6 * cs + (fm[i].nplanes - 1) * ph * pw; /* every plane */
        static uint8_t frame[8 * 6 * 2 * 3];
        memset(frame, 0xee, sizeof frame);
        drv_get(frame, rowb, a, rowb, bytes / rowb);
        memcpy(got, frame + bytes - pw, pw);
        EXPECT(memcmp(got, row, pw) == 0);
        OK(cuArrayDestroy(a));
    }
}

static void test_misuse(void)
{
    CUarray a = NULL;
    CUDA_ARRAY3D_DESCRIPTOR d = {33, 16, 0, CU_AD_FORMAT_NV12, 3, 0};
    EXPECT_RC(cuArray3DCreate(&a, &d), CUDA_ERROR_INVALID_VALUE); /* odd width */
    d.Width = 32;
    d.Height = 15;
    EXPECT_RC(cuArray3DCreate(&a, &d), CUDA_ERROR_INVALID_VALUE); /* odd height, 4:2:0 */
    d.Format = CU_AD_FORMAT_NV16;
    OK(cuArray3DCreate(&a, &d)); /* 4:2:2: full-height chroma */
    OK(cuArrayDestroy(a));
    d.Format = CU_AD_FORMAT_NV12;
    d.Height = 16;
    d.Depth = 2;
    EXPECT_RC(cuArray3DCreate(&a, &d), CUDA_ERROR_INVALID_VALUE); /* 3D */
    d.Flags = CUDA_ARRAY3D_LAYERED;
    EXPECT_RC(cuArray3DCreate(&a, &d), CUDA_ERROR_INVALID_VALUE); /* layered */
    d.Depth = 0;
    d.Flags = 0;
    d.Height = 0;
    EXPECT_RC(cuArray3DCreate(&a, &d), CUDA_ERROR_INVALID_VALUE); /* 1D */
    d.Height = 16;
    d.NumChannels = 4;
    EXPECT_RC(cuArray3DCreate(&a, &d), CUDA_ERROR_INVALID_VALUE);
    /* no mipmapped video arrays */
    CUmipmappedArray m = NULL;
    d.NumChannels = 3;
    EXPECT_RC(cuMipmappedArrayCreate(&m, &d, 1), CUDA_ERROR_INVALID_VALUE);
    EXPECT(m == NULL);
    /* packed video formats (YUY2, ...): test_drv_packed.c */
    /* a plain array has no planes */
    CUDA_ARRAY_DESCRIPTOR pd = {8, 8, CU_AD_FORMAT_UNSIGNED_INT8, 1};
    CUarray plain = NULL, p = NULL;
    OK(cuArrayCreate(&plain, &pd));
    EXPECT_RC(cuArrayGetPlane(&p, plain, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT(p == NULL);
    OK(cuArrayDestroy(plain));
    /* surface flag carries to the planes */
    CUDA_ARRAY3D_DESCRIPTOR sd = {16, 8, 0, CU_AD_FORMAT_NV12, 3, CUDA_ARRAY3D_SURFACE_LDST};
    OK(cuArray3DCreate(&a, &sd));
    OK(cuArrayGetPlane(&p, a, 1));
    CUDA_RESOURCE_DESC rd = drv_res_array(p);
    CUsurfObject s = 0;
    OK(cuSurfObjectCreate(&s, &rd));
    OK(cuSurfObjectDestroy(s));
    OK(cuArrayDestroy(a));
}

int main(void)
{
    CUdevice dev = drv_test_primary_ctx(NULL);
    OK(cuModuleLoadData(&mod, ptx));
    OK(cuMemAlloc(&dout, (size_t)W * H * 16));

    CUarray a = NULL;
    CUDA_ARRAY_DESCRIPTOR d2 = {W, H, CU_AD_FORMAT_NV12, 3};
    OK(cuArrayCreate(&a, &d2));
    expect_desc(a, CU_AD_FORMAT_NV12, W, H, 3);
    test_420(a, 1);
    CUDA_ARRAY3D_DESCRIPTOR d3 = {W, H, 0, CU_AD_FORMAT_P016, 3, 0};
    OK(cuArray3DCreate(&a, &d3));
    expect_desc(a, CU_AD_FORMAT_P016, W, H, 3);
    test_420(a, 2);
    test_shapes();
    test_misuse();

    OK(cuMemFree(dout));
    OK(cuModuleUnload(mod));
    OK(cuDevicePrimaryCtxRelease(dev));
    return drv_test_end("drv_planar");
}
