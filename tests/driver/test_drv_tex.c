/* test_drv_tex.c: CUDA arrays, texture and surface objects through the
 * driver API: the error cases of cuArrayCreate/cuArray3DCreate, copies to
 * and from arrays with offsets (cuMemcpy2D/3D, checked element by element
 * against the host data), descriptors read back, texture and surface
 * object creation errors (bad resource, a view of the wrong extent,
 * seamless filtering of a non-cubemap,
 * filtering integers,
 * surfaces without SURFACE_LDST), cubemap array shapes, mipmapped arrays
 * (level sizes, level handles, copies, texture objects on them), and a
 * PTX kernel running txq
 * and tex.2d on a pitch2D texture. cuModuleGetTexRef/SurfRef (which CUDA
 * 13's cuda.h no longer declares) find no reference in a module (Zinc's
 * parser refuses a .texref declaration) after their argument checks. Last,
 * a kernel given a destroyed texture object must fail with
 * CUDA_ERROR_ILLEGAL_ADDRESS.
 */
#include <cuda.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "drv_test.h"
#include "drv_test_tex.h"

static const char ptx[] =
    DRV_PTX_HEAD
    ".visible .entry q(.param .u64 tex, .param .u64 out)\n"
    "{\n"
    "    .reg .b32 %r<8>;\n"
    "    .reg .b64 %rd<4>;\n"
    "    .reg .f32 %f<8>;\n"
    "    ld.param.u64 %rd1, [tex];\n"
    "    ld.param.u64 %rd2, [out];\n"
    "    txq.width.b32 %r1, [%rd1];\n"
    "    txq.height.b32 %r2, [%rd1];\n"
    "    txq.normalized_coords.b32 %r3, [%rd1];\n"
    "    st.global.u32 [%rd2], %r1;\n"
    "    st.global.u32 [%rd2+4], %r2;\n"
    "    st.global.u32 [%rd2+8], %r3;\n"
    "    mov.f32 %f1, 0f40200000;\n"        /* 2.5 */
    "    mov.f32 %f2, 0f3FC00000;\n"        /* 1.5 */
    "    tex.2d.v4.f32.f32 {%f3, %f4, %f5, %f6}, [%rd1, {%f1, %f2}];\n"
    "    st.global.f32 [%rd2+12], %f3;\n"
    "    ret;\n"
    "}\n";

/* cuModuleGetTexRef/SurfRef (deprecated: cuda.h marks them, so they are
 * called through the pointers cudart would get) */
typedef CUresult (*ref_fn)(void **ref, CUmodule mod, const char *name);

static ref_fn ref_getter(const char *name)
{
    void *fn = NULL;
    CUdriverProcAddressQueryResult st;
    OK(cuGetProcAddress(name, &fn, 13000, 0, &st));
    EXPECT(fn != NULL && st == CU_GET_PROC_ADDRESS_SUCCESS);
    return (ref_fn)fn;
}

static void test_refs(CUmodule mod)
{
    ref_fn tex = ref_getter("cuModuleGetTexRef"), surf = ref_getter("cuModuleGetSurfRef");
    if (!tex || !surf)
        return;
    void *ref = (void *)1;
    EXPECT_RC(tex(&ref, mod, "tex"), CUDA_ERROR_NOT_FOUND);
    EXPECT_RC(surf(&ref, mod, "surf"), CUDA_ERROR_NOT_FOUND);
    EXPECT(ref == (void *)1); /* untouched on failure */
    EXPECT_RC(tex(&ref, NULL, "tex"), CUDA_ERROR_INVALID_HANDLE);
    EXPECT_RC(surf(&ref, NULL, "surf"), CUDA_ERROR_INVALID_HANDLE);
    EXPECT_RC(tex(NULL, mod, "tex"), CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(surf(&ref, mod, NULL), CUDA_ERROR_INVALID_VALUE);
    /* a module declaring a texture reference does not load */
    static const char texref_ptx[] = ".version 8.0\n.target sm_75\n.address_size 64\n"
                                     ".global .texref tr;\n.visible .entry k() { ret; }\n";
    CUmodule m2 = NULL;
    EXPECT(cuModuleLoadData(&m2, texref_ptx) != CUDA_SUCCESS && m2 == NULL);
}

static void test_arrays(void)
{
    CUarray a = NULL;
    CUDA_ARRAY_DESCRIPTOR d = {16, 8, CU_AD_FORMAT_FLOAT, 1};
    EXPECT_RC(cuArrayCreate(&a, NULL), CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(cuArrayCreate(NULL, &d), CUDA_ERROR_INVALID_VALUE);
    CUDA_ARRAY_DESCRIPTOR bad = d;
    bad.NumChannels = 3;
    EXPECT_RC(cuArrayCreate(&a, &bad), CUDA_ERROR_INVALID_VALUE);
    bad = d;
    bad.Format = (CUarray_format)0x77;
    EXPECT_RC(cuArrayCreate(&a, &bad), CUDA_ERROR_INVALID_VALUE);
    bad = d;
    bad.Width = 0;
    EXPECT_RC(cuArrayCreate(&a, &bad), CUDA_ERROR_INVALID_VALUE);
    /* cubemaps: square faces, 6 layers (a multiple of 6 when layered) */
    CUDA_ARRAY3D_DESCRIPTOR cube = {8, 8, 6, CU_AD_FORMAT_FLOAT, 1, CUDA_ARRAY3D_CUBEMAP};
    OK(cuArray3DCreate(&a, &cube));
    CUDA_ARRAY3D_DESCRIPTOR cg;
    OK(cuArray3DGetDescriptor(&cg, a));
    EXPECT(cg.Width == 8 && cg.Height == 8 && cg.Depth == 6 && cg.Flags == CUDA_ARRAY3D_CUBEMAP);
    OK(cuArrayDestroy(a));
    CUDA_ARRAY3D_DESCRIPTOR badcube = cube;
    badcube.Height = 7;
    EXPECT_RC(cuArray3DCreate(&a, &badcube), CUDA_ERROR_INVALID_VALUE);
    badcube = cube;
    badcube.Depth = 12; /* two cubes need the layered flag */
    EXPECT_RC(cuArray3DCreate(&a, &badcube), CUDA_ERROR_INVALID_VALUE);
    badcube.Flags |= CUDA_ARRAY3D_LAYERED;
    OK(cuArray3DCreate(&a, &badcube));
    OK(cuArrayDestroy(a));
    badcube.Depth = 9;
    EXPECT_RC(cuArray3DCreate(&a, &badcube), CUDA_ERROR_INVALID_VALUE);
    CUDA_ARRAY3D_DESCRIPTOR layered0 = {8, 8, 0, CU_AD_FORMAT_FLOAT, 1, CUDA_ARRAY3D_LAYERED};
    EXPECT_RC(cuArray3DCreate(&a, &layered0), CUDA_ERROR_INVALID_VALUE);

    OK(cuArrayCreate(&a, &d));
    CUDA_ARRAY_DESCRIPTOR g;
    memset(&g, 0, sizeof g);
    OK(cuArrayGetDescriptor(&g, a));
    EXPECT(g.Width == 16 && g.Height == 8 && g.Format == CU_AD_FORMAT_FLOAT &&
           g.NumChannels == 1);
    CUDA_ARRAY3D_DESCRIPTOR g3;
    OK(cuArray3DGetDescriptor(&g3, a));
    EXPECT(g3.Width == 16 && g3.Height == 8 && g3.Depth == 0);

    /* copy a 5 x 3 box of host rows (pitch 40 bytes) to (x=4, y=2) */
    float src[3][10], back[8][16];
    for (int y = 0; y < 3; y++)
        for (int x = 0; x < 10; x++)
            src[y][x] = (float)(y * 100 + x);
    CUDA_MEMCPY2D c = drv_copy_h2a(a, src, sizeof src[0], 5 * sizeof(float), 3);
    c.srcXInBytes = 2 * sizeof(float);
    c.dstXInBytes = 4 * sizeof(float);
    c.dstY = 2;
    OK(cuMemcpy2D(&c));
    CUDA_MEMCPY2D over = c;
    over.dstY = 6;  /* rows 6..8 of 8 */
    EXPECT_RC(cuMemcpy2D(&over), CUDA_ERROR_INVALID_VALUE);
    over = c;
    over.dstXInBytes = 12 * sizeof(float);  /* columns 12..16 of 16 */
    EXPECT_RC(cuMemcpy2D(&over), CUDA_ERROR_INVALID_VALUE);
    memset(back, 0, sizeof back);
    drv_get(back, sizeof back[0], a, sizeof back[0], 8);
    int bad_el = 0;
    for (int y = 0; y < 8; y++)
        for (int x = 0; x < 16; x++) {
            bool in = y >= 2 && y < 5 && x >= 4 && x < 9;
            float want = in ? (float)((y - 2) * 100 + (x - 4 + 2)) : 0.0f;
            bad_el += back[y][x] != want;
        }
    EXPECT(bad_el == 0);
    OK(cuArrayDestroy(a));
    EXPECT_RC(cuArrayDestroy(a), CUDA_ERROR_INVALID_HANDLE);
    EXPECT_RC(cuArrayGetDescriptor(&g, a), CUDA_ERROR_INVALID_HANDLE);

    /* 3D: uchar2 4 x 3 x 5, one slice written at z = 3 with cuMemcpy3D */
    CUDA_ARRAY3D_DESCRIPTOR d3 = {4, 3, 5, CU_AD_FORMAT_UNSIGNED_INT8, 2, 0};
    OK(cuArray3DCreate(&a, &d3));
    unsigned char slice[3][8], all[5][3][8];
    for (int i = 0; i < 24; i++)
        slice[i / 8][i % 8] = (unsigned char)(i + 1);
    CUDA_MEMCPY3D m;
    memset(&m, 0, sizeof m);
    m.srcMemoryType = CU_MEMORYTYPE_HOST;
    m.srcHost = slice;
    m.srcPitch = 8;
    m.srcHeight = 3;
    m.dstMemoryType = CU_MEMORYTYPE_ARRAY;
    m.dstArray = a;
    m.dstZ = 3;
    m.WidthInBytes = 8;
    m.Height = 3;
    m.Depth = 1;
    OK(cuMemcpy3D(&m));
    CUDA_MEMCPY3D mo = m;
    mo.Depth = 3;   /* slices 3..5 of 5 */
    EXPECT_RC(cuMemcpy3D(&mo), CUDA_ERROR_INVALID_VALUE);
    memset(&m, 0, sizeof m);
    memset(all, 0xee, sizeof all);
    m.srcMemoryType = CU_MEMORYTYPE_ARRAY;
    m.srcArray = a;
    m.dstMemoryType = CU_MEMORYTYPE_HOST;
    m.dstHost = all;
    m.dstPitch = 8;
    m.dstHeight = 3;
    m.WidthInBytes = 8;
    m.Height = 3;
    m.Depth = 5;
    OK(cuMemcpy3D(&m));
    bad_el = 0;
    for (int z = 0; z < 5; z++)
        for (int i = 0; i < 24; i++)
            bad_el += all[z][i / 8][i % 8] != (z == 3 ? slice[i / 8][i % 8] : 0);
    EXPECT(bad_el == 0);
    OK(cuArrayDestroy(a));
}

/* Mipmapped arrays: level sizes, level handles, the level count limit,
 * texture objects on them, and what may not be done with a level. */
static void test_mipmaps(const CUDA_TEXTURE_DESC *td)
{
    void *fn = NULL; /* cudart finds it through cuGetProcAddress */
    OK(cuGetProcAddress("cuMipmappedArrayCreate", &fn, 13000, 0, NULL));
    EXPECT(fn == (void *)cuMipmappedArrayCreate);
    CUmipmappedArray mm;
    CUDA_ARRAY3D_DESCRIPTOR md = {20, 6, 0, CU_AD_FORMAT_FLOAT, 2, 0};
    EXPECT_RC(cuMipmappedArrayCreate(&mm, &md, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(cuMipmappedArrayCreate(&mm, &md, 6), CUDA_ERROR_INVALID_VALUE); /* 20: 5 */
    EXPECT_RC(cuMipmappedArrayCreate(NULL, &md, 2), CUDA_ERROR_INVALID_VALUE);
    OK(cuMipmappedArrayCreate(&mm, &md, 5));
    const size_t want_w[5] = {20, 10, 5, 2, 1}, want_h[5] = {6, 3, 1, 1, 1};
    CUarray lv[5];
    for (unsigned i = 0; i < 5; i++) {
        OK(cuMipmappedArrayGetLevel(&lv[i], mm, i));
        CUDA_ARRAY3D_DESCRIPTOR g;
        OK(cuArray3DGetDescriptor(&g, lv[i]));
        EXPECT(g.Width == want_w[i] && g.Height == want_h[i] && g.Depth == 0 &&
               g.NumChannels == 2 && g.Format == CU_AD_FORMAT_FLOAT);
    }
    CUarray past;
    EXPECT_RC(cuMipmappedArrayGetLevel(&past, mm, 5), CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(cuMipmappedArrayGetLevel(&past, (CUmipmappedArray)&drv_failures, 0),
              CUDA_ERROR_INVALID_HANDLE);
    EXPECT_RC(cuArrayDestroy(lv[1]), CUDA_ERROR_INVALID_HANDLE); /* owned by mm */
    /* a level takes copies like any array: 10 x 3 float2 in and back */
    float in[3][20], back[3][20];
    for (int y = 0; y < 3; y++)
        for (int x = 0; x < 20; x++)
            in[y][x] = (float)(y * 100 + x), back[y][x] = -1.0f;
    drv_put(lv[1], in, sizeof in[0], 10 * 8, 3);
    drv_get(back, sizeof back[0], lv[1], 10 * 8, 3);
    EXPECT(memcmp(in, back, sizeof in) == 0);
    /* texture objects on it; not surfaces (those take one level's array) */
    CUDA_RESOURCE_DESC r = drv_res_mipmap(mm);
    CUDA_TEXTURE_DESC t2 = *td;
    t2.mipmapFilterMode = CU_TR_FILTER_MODE_LINEAR;
    t2.maxMipmapLevelClamp = 4.0f;
    CUtexObject t;
    OK(cuTexObjectCreate(&t, &r, &t2, NULL));
    CUDA_RESOURCE_DESC rb;
    CUDA_TEXTURE_DESC tb;
    OK(cuTexObjectGetResourceDesc(&rb, t));
    EXPECT(rb.resType == CU_RESOURCE_TYPE_MIPMAPPED_ARRAY && rb.res.mipmap.hMipmappedArray == mm);
    OK(cuTexObjectGetTextureDesc(&tb, t));
    EXPECT(tb.mipmapFilterMode == CU_TR_FILTER_MODE_LINEAR && tb.maxMipmapLevelClamp == 4.0f);
    OK(cuTexObjectDestroy(t));
    t2.mipmapFilterMode = (CUfilter_mode)7;
    EXPECT_RC(cuTexObjectCreate(&t, &r, &t2, NULL), CUDA_ERROR_INVALID_VALUE);
    CUsurfObject s;
    EXPECT_RC(cuSurfObjectCreate(&s, &r), CUDA_ERROR_INVALID_VALUE);
    OK(cuMipmappedArrayDestroy(mm));
    EXPECT_RC(cuMipmappedArrayDestroy(mm), CUDA_ERROR_INVALID_HANDLE);
    /* 3D: depth shrinks too; layered and cubemap: the layers stay */
    CUDA_ARRAY3D_DESCRIPTOR d3 = {8, 4, 16, CU_AD_FORMAT_HALF, 1, 0};
    OK(cuMipmappedArrayCreate(&mm, &d3, 5));
    CUDA_ARRAY3D_DESCRIPTOR g;
    OK(cuMipmappedArrayGetLevel(&past, mm, 3));
    OK(cuArray3DGetDescriptor(&g, past));
    EXPECT(g.Width == 1 && g.Height == 1 && g.Depth == 2);
    OK(cuMipmappedArrayDestroy(mm));
    CUDA_ARRAY3D_DESCRIPTOR cl = {16, 16, 12, CU_AD_FORMAT_FLOAT, 4,
                                  CUDA_ARRAY3D_CUBEMAP | CUDA_ARRAY3D_LAYERED};
    EXPECT_RC(cuMipmappedArrayCreate(&mm, &cl, 6), CUDA_ERROR_INVALID_VALUE); /* 16: 5 */
    OK(cuMipmappedArrayCreate(&mm, &cl, 5));
    OK(cuMipmappedArrayGetLevel(&past, mm, 2));
    OK(cuArray3DGetDescriptor(&g, past));
    EXPECT(g.Width == 4 && g.Height == 4 && g.Depth == 12 && g.Flags == cl.Flags);
    OK(cuMipmappedArrayDestroy(mm));
}

static void test_objects(CUmodule mod)
{
    CUarray a;
    CUDA_ARRAY3D_DESCRIPTOR d = {8, 8, 0, CU_AD_FORMAT_SIGNED_INT16, 1, 0};
    OK(cuArray3DCreate(&a, &d));
    CUDA_RESOURCE_DESC rd = drv_res_array(a);
    CUDA_TEXTURE_DESC td = drv_tex_point(0);
    td.addressMode[0] = td.addressMode[1] = CU_TR_ADDRESS_MODE_BORDER;
    td.filterMode = CU_TR_FILTER_MODE_LINEAR;
    td.borderColor[2] = 0.5f;
    CUtexObject t = 0;
    EXPECT_RC(cuTexObjectCreate(&t, NULL, &td, NULL), CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(cuTexObjectCreate(&t, &rd, NULL, NULL), CUDA_ERROR_INVALID_VALUE);
    CUDA_RESOURCE_VIEW_DESC view;
    memset(&view, 0, sizeof view);
    /* a view must give the array's extent (test_drv_texview.c: views) */
    EXPECT_RC(cuTexObjectCreate(&t, &rd, &td, &view), CUDA_ERROR_INVALID_VALUE);
    CUDA_TEXTURE_DESC srgb = td;   /* sRGB (texture_srgb.cu) is no error */
    srgb.flags = CU_TRSF_SRGB;
    OK(cuTexObjectCreate(&t, &rd, &srgb, NULL));
    OK(cuTexObjectDestroy(t));
    CUDA_TEXTURE_DESC seamless = td;
    seamless.flags = CU_TRSF_SEAMLESS_CUBEMAP | CU_TRSF_NORMALIZED_COORDINATES;
    /* seamless filtering is for cubemaps only */
    EXPECT_RC(cuTexObjectCreate(&t, &rd, &seamless, NULL), CUDA_ERROR_INVALID_VALUE);
    CUDA_TEXTURE_DESC asint = td;
    /* integers read as integers, linear filtering: NVIDIA's driver takes
     * it (an H200 blends the integers and rounds) */
    asint.flags = CU_TRSF_READ_AS_INTEGER;
    OK(cuTexObjectCreate(&t, &rd, &asint, NULL));
    OK(cuTexObjectDestroy(t));
    CUDA_TEXTURE_DESC badmode = td;
    badmode.addressMode[1] = (CUaddress_mode)9;
    EXPECT_RC(cuTexObjectCreate(&t, &rd, &badmode, NULL), CUDA_ERROR_INVALID_VALUE);
    CUDA_RESOURCE_DESC mip = rd;
    mip.resType = CU_RESOURCE_TYPE_MIPMAPPED_ARRAY;
    EXPECT_RC(cuTexObjectCreate(&t, &mip, &td, NULL), CUDA_ERROR_INVALID_HANDLE);
    CUDA_RESOURCE_DESC stale = rd;
    stale.res.array.hArray = (CUarray)&drv_failures;
    EXPECT_RC(cuTexObjectCreate(&t, &stale, &td, NULL), CUDA_ERROR_INVALID_HANDLE);

    OK(cuTexObjectCreate(&t, &rd, &td, NULL));
    CUDA_RESOURCE_DESC rb;
    CUDA_TEXTURE_DESC tb;
    OK(cuTexObjectGetResourceDesc(&rb, t));
    EXPECT(rb.resType == CU_RESOURCE_TYPE_ARRAY && rb.res.array.hArray == a);
    OK(cuTexObjectGetTextureDesc(&tb, t));
    EXPECT(tb.filterMode == CU_TR_FILTER_MODE_LINEAR && tb.borderColor[2] == 0.5f &&
           tb.addressMode[1] == CU_TR_ADDRESS_MODE_BORDER);
    OK(cuTexObjectDestroy(t));
    EXPECT_RC(cuTexObjectDestroy(t), CUDA_ERROR_INVALID_VALUE);

    /* surfaces: only arrays made with CUDA_ARRAY3D_SURFACE_LDST */
    CUsurfObject s;
    EXPECT_RC(cuSurfObjectCreate(&s, &rd), CUDA_ERROR_INVALID_VALUE);
    CUarray as;
    d.Flags = CUDA_ARRAY3D_SURFACE_LDST;
    OK(cuArray3DCreate(&as, &d));
    rd.res.array.hArray = as;
    OK(cuSurfObjectCreate(&s, &rd));
    OK(cuSurfObjectGetResourceDesc(&rb, s));
    EXPECT(rb.res.array.hArray == as);
    EXPECT_RC(cuTexObjectDestroy(s), CUDA_ERROR_INVALID_VALUE); /* not a texture */
    OK(cuSurfObjectDestroy(s));
    EXPECT_RC(cuSurfObjectDestroy(s), CUDA_ERROR_INVALID_VALUE);
    OK(cuArrayDestroy(as));
    OK(cuArrayDestroy(a));

    test_mipmaps(&td);

    /* pitch2D texture, 5 x 4 floats in rows of 64 bytes; txq and tex.2d */
    CUdeviceptr img, out;
    OK(cuMemAlloc(&img, 64 * 4));
    OK(cuMemAlloc(&out, 32));
    float rows[4][16];
    for (int y = 0; y < 4; y++)
        for (int x = 0; x < 16; x++)
            rows[y][x] = (float)(y * 10 + x);
    OK(cuMemcpyHtoD(img, rows, sizeof rows));
    rd = drv_res_pitch2d(img, CU_AD_FORMAT_FLOAT, 1, 5, 4, 16); /* pitch < 5 floats */
    td = drv_tex_point(0);
    EXPECT_RC(cuTexObjectCreate(&t, &rd, &td, NULL), CUDA_ERROR_INVALID_VALUE);
    rd.res.pitch2D.pitchInBytes = 64;
    OK(cuTexObjectCreate(&t, &rd, &td, NULL));
    CUfunction f;
    OK(cuModuleGetFunction(&f, mod, "q"));
    void *args[] = {&t, &out};
    uint32_t res[5];
    drv_launch_out(f, 1, 1, 1, args, out, res, sizeof res);
    float texel;
    memcpy(&texel, &res[3], 4);
    EXPECT(res[0] == 5 && res[1] == 4 && res[2] == 0);
    EXPECT(texel == 12.0f);  /* (2.5, 1.5): texel (2, 1) */
    OK(cuTexObjectDestroy(t));

    /* a destroyed object in a kernel: an illegal address (sticky, so last) */
    OK(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL));
    EXPECT_RC(cuCtxSynchronize(), CUDA_ERROR_ILLEGAL_ADDRESS);
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    EXPECT_RC(cuArrayCreate(NULL, NULL), CUDA_ERROR_NOT_INITIALIZED);
    CUdevice dev = drv_test_primary_ctx(NULL);
    CUmodule mod;
    OK(cuModuleLoadData(&mod, ptx));
    test_arrays();
    test_refs(mod);
    test_objects(mod);
    OK(cuModuleUnload(mod));
    OK(cuDevicePrimaryCtxRelease(dev));
    return drv_test_end("drv_tex");
}
