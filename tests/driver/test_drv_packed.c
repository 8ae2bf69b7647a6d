/* test_drv_packed.c: packed video CUDA arrays (YUY2, Y210, Y216: 4:2:2;
 * AYUV, Y410, Y416: 4:4:4). For each format: the descriptor read back (the
 * channel count cuda.h documents), a frame built here in the format's
 * layout (DXGI's: YUY2 = Y0 U Y1 V, AYUV = V U Y A, Y410 = U | Y << 10 |
 * V << 20 | A << 30, ...) copied in from pitched host rows with cuMemcpy2D
 * and out with cuMemcpy3D byte for byte, one row too wide refused; a PTX
 * kernel reading every pixel through a surface object (suld.b of the
 * element size at x * size bytes) must give the frame's bytes, with the
 * luma where the format puts it; a kernel writing every pixel with sust.b
 * must leave the values the test computes. Misuse: odd 4:2:2 widths, other
 * channel counts, 1D, depth, layers, cubemaps, sparse, deferred mapping,
 * mipmaps (INVALID_VALUE), texture objects on the array or on pitched
 * memory of a packed format (NOT_SUPPORTED: CUDA does not say what a
 * fetch returns), a surface without SURFACE_LDST, planes.
 */
#include <cuda.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "drv_test.h"
#include "drv_test_tex.h"

/* rdN(surf, out): thread (x = tid.x, y = ctaid.x) stores element (x, y),
 * zero-extended, to out[y * ntid.x + x] (u64); wrN(surf): stores the low N
 * bits of v = (y * 1000 + x) * 0x9E3779B1 (64 bits: v, then ~v) there. */
#define SU_HEAD(name, extra)                                                 \
    ".visible .entry " name "(.param .u64 surf" extra ")\n"                  \
    "{\n"                                                                    \
    "    .reg .b16 %h<2>;\n"                                                 \
    "    .reg .b32 %r<8>;\n"                                                 \
    "    .reg .b64 %rd<8>;\n"                                                \
    "    ld.param.u64 %rd1, [surf];\n"                                       \
    "    mov.u32 %r1, %tid.x;\n"                                             \
    "    mov.u32 %r2, %ctaid.x;\n"                                           \
    "    mov.u32 %r3, %ntid.x;\n"
#define SU_READ(name, bytes, load)                                           \
    SU_HEAD(name, ", .param .u64 out")                                       \
    "    ld.param.u64 %rd2, [out];\n"                                        \
    "    mul.lo.u32 %r4, %r1, " #bytes ";\n"                                 \
    "    mad.lo.u32 %r5, %r2, %r3, %r1;\n"                                   \
    load                                                                     \
    "    mul.wide.u32 %rd4, %r5, 8;\n"                                       \
    "    add.s64 %rd5, %rd2, %rd4;\n"                                        \
    "    st.global.u64 [%rd5], %rd3;\n"                                      \
    "    ret;\n"                                                             \
    "}\n"
#define SU_WRITE(name, bytes, store)                                         \
    SU_HEAD(name, "")                                                        \
    "    mul.lo.u32 %r4, %r1, " #bytes ";\n"                                 \
    "    mad.lo.u32 %r5, %r2, 1000, %r1;\n"                                  \
    "    mul.lo.u32 %r6, %r5, 0x9E3779B1;\n"                                 \
    store                                                                    \
    "    ret;\n"                                                             \
    "}\n"

static const char ptx[] =
    DRV_PTX_HEAD
    SU_READ("rd2", 2,
            "    suld.b.2d.b16.trap {%h1}, [%rd1, {%r4, %r2}];\n"
            "    cvt.u64.u16 %rd3, %h1;\n")
    SU_READ("rd4", 4,
            "    suld.b.2d.b32.trap {%r6}, [%rd1, {%r4, %r2}];\n"
            "    cvt.u64.u32 %rd3, %r6;\n")
    SU_READ("rd8", 8, "    suld.b.2d.b64.trap {%rd3}, [%rd1, {%r4, %r2}];\n")
    SU_WRITE("wr2", 2,
             "    cvt.u16.u32 %h1, %r6;\n"
             "    sust.b.2d.b16.trap [%rd1, {%r4, %r2}], {%h1};\n")
    SU_WRITE("wr4", 4, "    sust.b.2d.b32.trap [%rd1, {%r4, %r2}], {%r6};\n")
    SU_WRITE("wr8", 8,
             "    not.b32 %r7, %r6;\n"
             "    mov.b64 %rd3, {%r6, %r7};\n"
             "    sust.b.2d.b64.trap [%rd1, {%r4, %r2}], {%rd3};\n");

#define W 32u
#define H 8u
#define SPITCH (W * 8 + 24) /* host rows wider than any format's */

typedef struct {
    CUarray_format f;
    const char *name;
    unsigned nch, bytes;        /* channels, bytes a pixel */
    unsigned bits;              /* bits a component */
    unsigned yshift, ybits;     /* where the luma lies in a pixel (little-endian) */
} fmt_info;

static const fmt_info fmts[] = {
    {CU_AD_FORMAT_YUY2, "YUY2", 2, 2, 8, 0, 8},
    {CU_AD_FORMAT_Y210, "Y210", 2, 4, 10, 6, 10},   /* 10 bits at the top of a word */
    {CU_AD_FORMAT_Y216, "Y216", 2, 4, 16, 0, 16},
    {CU_AD_FORMAT_AYUV, "AYUV", 4, 4, 8, 16, 8},
    {CU_AD_FORMAT_Y410, "Y410", 4, 4, 10, 10, 10},
    {CU_AD_FORMAT_Y416, "Y416", 4, 8, 16, 16, 16},
};

static CUmodule mod;
static CUdeviceptr dout;

/* the frame's components: luma and alpha per pixel, U/V per pixel (4:4:4)
 * or per pair (4:2:2: x / 2), masked to the component's bits */
static uint32_t comp(unsigned c, unsigned x, unsigned y, unsigned bits)
{
    uint32_t v = x * 37u + y * 101u + c * 4099u + 5u;
    v = v * (c + 1u) * 2654435761u >> 7;
    return v & ((1u << bits) - 1u);
}

static void put16(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

/* pixel (x, y) of format fi, as the format lays it out in memory */
static void pack(const fmt_info *fi, unsigned x, unsigned y, uint8_t *p)
{
    enum { Y, U, V, A };
    unsigned b = fi->bits;
    bool pair = fi->nch == 2; /* 4:2:2: U (even x) or V (odd x) of the pair */
    uint32_t yv = comp(Y, x, y, b), uv = comp(x % 2 ? V : U, pair ? x / 2 : x, y, b);
    uint32_t u = comp(U, x, y, b), v = comp(V, x, y, b), a = comp(A, x, y, b);
    switch (fi->f) {
    case CU_AD_FORMAT_YUY2: p[0] = (uint8_t)yv, p[1] = (uint8_t)uv; break;
    case CU_AD_FORMAT_Y210: put16(p, yv << 6), put16(p + 2, uv << 6); break;
    case CU_AD_FORMAT_Y216: put16(p, yv), put16(p + 2, uv); break;
    case CU_AD_FORMAT_AYUV: p[0] = (uint8_t)v, p[1] = (uint8_t)u, p[2] = (uint8_t)yv,
                            p[3] = (uint8_t)a; break;
    case CU_AD_FORMAT_Y410: {
        uint32_t w = u | yv << 10 | v << 20 | (a & 3u) << 30;
        put16(p, w), put16(p + 2, w >> 16);
        break;
    }
    default: put16(p, u), put16(p + 2, yv), put16(p + 4, v), put16(p + 6, a); break;
    }
}

static uint64_t load_le(const uint8_t *p, unsigned n)
{
    uint64_t v = 0;
    for (unsigned i = n; i-- > 0;)
        v = v << 8 | p[i];
    return v;
}

static CUarray create(const fmt_info *fi, unsigned flags)
{
    CUDA_ARRAY3D_DESCRIPTOR d = {W, H, 0, fi->f, fi->nch, flags};
    CUarray a = NULL;
    OK(cuArray3DCreate(&a, &d));
    CUDA_ARRAY_DESCRIPTOR g;
    memset(&g, 0xff, sizeof g);
    OK(cuArrayGetDescriptor(&g, a));
    EXPECT(g.Format == fi->f && g.Width == W && g.Height == H && g.NumChannels == fi->nch);
    CUDA_ARRAY3D_DESCRIPTOR g3;
    memset(&g3, 0xff, sizeof g3);
    OK(cuArray3DGetDescriptor(&g3, a));
    EXPECT(g3.Format == fi->f && g3.Width == W && g3.Height == H && g3.Depth == 0 &&
           g3.NumChannels == fi->nch && g3.Flags == flags);
    return a;
}

static CUsurfObject surface_of(CUarray a)
{
    CUDA_RESOURCE_DESC rd = drv_res_array(a);
    CUsurfObject s = 0;
    OK(cuSurfObjectCreate(&s, &rd));
    return s;
}

/* frame in, out byte for byte, and read through a surface */
static void test_frame(const fmt_info *fi)
{
    const size_t rowb = (size_t)W * fi->bytes;
    CUarray a = create(fi, CUDA_ARRAY3D_SURFACE_LDST);
    static uint8_t src[H * SPITCH], frame[H * W * 8], back[H * W * 8];
    memset(src, 0x5a, sizeof src);
    for (unsigned y = 0; y < H; y++)
        for (unsigned x = 0; x < W; x++) {
            pack(fi, x, y, src + y * SPITCH + x * fi->bytes);
            pack(fi, x, y, frame + y * rowb + x * fi->bytes);
        }
    drv_put(a, src, SPITCH, rowb, H);
    CUDA_MEMCPY2D wide = drv_copy_h2a(a, src, SPITCH, rowb + fi->bytes, H);
    EXPECT_RC(cuMemcpy2D(&wide), CUDA_ERROR_INVALID_VALUE); /* one pixel past a row */

    memset(back, 0xee, sizeof back);
    drv_copy3d(a, back, rowb, H, 1, false);
    EXPECT(memcmp(back, frame, rowb * H) == 0);
    /* two pixels from (3, 5): an x offset in bytes */
    CUDA_MEMCPY2D part = drv_copy_a2h(back, 2 * fi->bytes, a, 2 * fi->bytes, 1);
    part.srcXInBytes = 3 * fi->bytes;
    part.srcY = 5;
    memset(back, 0xee, sizeof back);
    OK(cuMemcpy2D(&part));
    EXPECT(memcmp(back, frame + 5 * rowb + 3 * fi->bytes, 2 * fi->bytes) == 0);

    CUsurfObject s = surface_of(a);
    char name[4] = {'r', 'd', (char)('0' + fi->bytes), 0};
    CUfunction f;
    OK(cuModuleGetFunction(&f, mod, name));
    static uint64_t got[H * W];
    void *args[] = {&s, &dout};
    drv_launch_out(f, H, 1, W, args, dout, got, sizeof got);
    unsigned bad_bytes = 0, bad_luma = 0;
    for (unsigned y = 0; y < H; y++)
        for (unsigned x = 0; x < W; x++) {
            uint64_t e = got[y * W + x];
            bad_bytes += e != load_le(frame + y * rowb + x * fi->bytes, fi->bytes);
            bad_luma += (e >> fi->yshift & ((1u << fi->ybits) - 1u)) != comp(0, x, y, fi->bits);
        }
    if (bad_bytes || bad_luma) {
        printf("FAIL %s surface read: %u elements differ, %u lumas\n", fi->name, bad_bytes,
               bad_luma);
        drv_failures++;
    }
    OK(cuSurfObjectDestroy(s));
    OK(cuArrayDestroy(a));
}

/* every pixel written through a surface */
static void test_write(const fmt_info *fi)
{
    CUarray a = create(fi, CUDA_ARRAY3D_SURFACE_LDST);
    CUsurfObject s = surface_of(a);
    char name[4] = {'w', 'r', (char)('0' + fi->bytes), 0};
    CUfunction f;
    OK(cuModuleGetFunction(&f, mod, name));
    void *args[] = {&s};
    OK(cuLaunchKernel(f, H, 1, 1, W, 1, 1, 0, NULL, args, NULL));
    OK(cuCtxSynchronize());
    const size_t rowb = (size_t)W * fi->bytes;
    static uint8_t back[H * W * 8];
    memset(back, 0xee, sizeof back);
    drv_get(back, rowb, a, rowb, H);
    unsigned bad = 0;
    for (unsigned y = 0; y < H; y++)
        for (unsigned x = 0; x < W; x++) {
            uint32_t v = (y * 1000u + x) * 0x9E3779B1u;
            uint64_t want = fi->bytes == 8 ? (uint64_t)~v << 32 | v
                          : fi->bytes == 4 ? v : (v & 0xffffu);
            bad += load_le(back + y * rowb + x * fi->bytes, fi->bytes) != want;
        }
    if (bad) {
        printf("FAIL %s surface write: %u elements differ\n", fi->name, bad);
        drv_failures++;
    }
    OK(cuSurfObjectDestroy(s));
    OK(cuArrayDestroy(a));
}

static void expect_refused(CUDA_ARRAY3D_DESCRIPTOR d)
{
    CUarray a = NULL;
    EXPECT_RC(cuArray3DCreate(&a, &d), CUDA_ERROR_INVALID_VALUE);
    EXPECT(a == NULL);
}

static void test_misuse(void)
{
    const CUDA_ARRAY3D_DESCRIPTOR yuy2 = {W, H, 0, CU_AD_FORMAT_YUY2, 2, 0};
    CUDA_ARRAY3D_DESCRIPTOR d = yuy2;
    d.Width = W + 1; /* a U/V pair spans two pixels */
    expect_refused(d);
    d = yuy2;
    d.NumChannels = 1;
    expect_refused(d);
    d.NumChannels = 4;
    expect_refused(d);
    d = yuy2;
    d.Height = 0;
    expect_refused(d);
    d = yuy2;
    d.Depth = 2;
    expect_refused(d);
    d.Flags = CUDA_ARRAY3D_LAYERED;
    expect_refused(d);
    d = (CUDA_ARRAY3D_DESCRIPTOR){W, W, 6, CU_AD_FORMAT_AYUV, 4, CUDA_ARRAY3D_CUBEMAP};
    expect_refused(d);
    d = yuy2;
    d.Flags = CUDA_ARRAY3D_SPARSE;
    expect_refused(d);
    d.Flags = CUDA_ARRAY3D_DEFERRED_MAPPING;
    expect_refused(d);
    d = (CUDA_ARRAY3D_DESCRIPTOR){W + 1, H, 0, CU_AD_FORMAT_Y410, 2, 0}; /* 4:4:4: odd is fine */
    expect_refused(d); /* ... but Y410 has 4 channels */
    d.NumChannels = 4;
    CUarray a = NULL;
    OK(cuArray3DCreate(&a, &d));
    OK(cuArrayDestroy(a));
    CUDA_ARRAY_DESCRIPTOR d2 = {W, H, CU_AD_FORMAT_Y216, 2}; /* cuArrayCreate too */
    OK(cuArrayCreate(&a, &d2));
    d2.NumChannels = 1;
    CUarray b = NULL;
    EXPECT_RC(cuArrayCreate(&b, &d2), CUDA_ERROR_INVALID_VALUE);
    CUmipmappedArray m = NULL;
    EXPECT_RC(cuMipmappedArrayCreate(&m, &yuy2, 1), CUDA_ERROR_INVALID_VALUE);
    EXPECT(m == NULL);

    /* no planes; no surface without SURFACE_LDST; no texture objects */
    CUarray p = NULL;
    EXPECT_RC(cuArrayGetPlane(&p, a, 0), CUDA_ERROR_INVALID_VALUE);
    CUDA_RESOURCE_DESC rd = drv_res_array(a);
    CUsurfObject s = 0;
    EXPECT_RC(cuSurfObjectCreate(&s, &rd), CUDA_ERROR_INVALID_VALUE);
    CUDA_TEXTURE_DESC td = drv_tex_point(CU_TRSF_READ_AS_INTEGER);
    CUtexObject t = 0;
    EXPECT_RC(cuTexObjectCreate(&t, &rd, &td, NULL), CUDA_ERROR_NOT_SUPPORTED);
    td = drv_tex_point(0);
    td.filterMode = CU_TR_FILTER_MODE_LINEAR;
    EXPECT_RC(cuTexObjectCreate(&t, &rd, &td, NULL), CUDA_ERROR_NOT_SUPPORTED);
    CUDA_RESOURCE_DESC pr = drv_res_pitch2d(dout, CU_AD_FORMAT_AYUV, 4, 4, 2, 256);
    EXPECT_RC(cuTexObjectCreate(&t, &pr, &td, NULL), CUDA_ERROR_NOT_SUPPORTED);
    EXPECT(t == 0);
    OK(cuArrayDestroy(a));
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    CUdevice dev = drv_test_primary_ctx(NULL);
    OK(cuModuleLoadData(&mod, ptx));
    OK(cuMemAlloc(&dout, (size_t)W * H * 8));
    for (size_t i = 0; i < sizeof fmts / sizeof fmts[0]; i++) {
        test_frame(&fmts[i]);
        test_write(&fmts[i]);
    }
    test_misuse();
    OK(cuMemFree(dout));
    OK(cuModuleUnload(mod));
    OK(cuDevicePrimaryCtxRelease(dev));
    return drv_test_end("drv_packed");
}
