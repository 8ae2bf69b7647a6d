/* test_drv_texview.c: resource views (cuTexObjectCreate's fourth argument,
 * cuTexObjectGetResourceViewDesc) and the array queries
 * (cuArrayGetMemoryRequirements and the mipmapped form, cuArrayGetPlane,
 * the sparse-property queries, cuDeviceGetTexture1DLinearMaxWidth).
 *
 * Views are checked through PTX kernels against values the test computes
 * from the data it uploaded: a u32 view of a float array and of a 4 x u8
 * array returns the stored bits; a view of mip levels 2..3 samples level 2
 * at LOD 0, level 3 at LOD 1 and clamps there; a view of layers 1..3 of a
 * layered array maps layer 0 to 1 and clamps past 3; tld4 (.2d and
 * .a2d) gathers from the view's first level and its layers; txq reports the
 * view's width, level count and layer count. Output buffers are poisoned
 * before every launch. Misuse: every documented constraint of a view.
 */
#include <cuda.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "drv_test.h"
#include "drv_test_tex.h"

/* The frame the four float kernels share: thread tid reads the 16-byte
 * record in[tid] from [%rd5]; body leaves the result in %f4..%f7, stored
 * to out[tid]. */
#define F32_KERNEL(name, body) \
    ".visible .entry " name "(.param .u64 tex, .param .u64 in, .param .u64 out)\n" \
    "{\n" \
    "    .reg .b32 %r<4>;\n" \
    "    .reg .b64 %rd<8>;\n" \
    "    .reg .f32 %f<8>;\n" \
    "    ld.param.u64 %rd1, [tex];\n" \
    "    ld.param.u64 %rd2, [in];\n" \
    "    ld.param.u64 %rd3, [out];\n" \
    "    mov.u32 %r1, %tid.x;\n" \
    "    mul.wide.u32 %rd4, %r1, 16;\n" \
    "    add.s64 %rd5, %rd2, %rd4;\n" \
    "    add.s64 %rd6, %rd3, %rd4;\n" \
    body \
    "    st.global.v4.f32 [%rd6], {%f4, %f5, %f6, %f7};\n" \
    "    ret;\n" \
    "}\n"

/* in[i] = {layer (u32), u, v, lod}; out[i] = the texel's 4 components */
static const char ptx[] =
    DRV_PTX_HEAD
    F32_KERNEL("lvl_a2d",
        "    ld.global.u32 %r2, [%rd5];\n"
        "    ld.global.f32 %f1, [%rd5+4];\n"
        "    ld.global.f32 %f2, [%rd5+8];\n"
        "    ld.global.f32 %f3, [%rd5+12];\n"
        "    tex.level.a2d.v4.f32.f32 {%f4, %f5, %f6, %f7}, [%rd1, {%r2, %f1, %f2, %f2}], %f3;\n")
    F32_KERNEL("lvl_2d",
        "    ld.global.f32 %f1, [%rd5+4];\n"
        "    ld.global.f32 %f2, [%rd5+8];\n"
        "    ld.global.f32 %f3, [%rd5+12];\n"
        "    tex.level.2d.v4.f32.f32 {%f4, %f5, %f6, %f7}, [%rd1, {%f1, %f2}], %f3;\n")
    /* in[i] = {x, y} (s32); out[i] = 4 raw u32 components */
    ".visible .entry raw_2d(.param .u64 tex, .param .u64 in, .param .u64 out)\n"
    "{\n"
    "    .reg .b32 %r<12>;\n"
    "    .reg .b64 %rd<8>;\n"
    "    ld.param.u64 %rd1, [tex];\n"
    "    ld.param.u64 %rd2, [in];\n"
    "    ld.param.u64 %rd3, [out];\n"
    "    mov.u32 %r1, %tid.x;\n"
    "    mul.wide.u32 %rd4, %r1, 8;\n"
    "    add.s64 %rd5, %rd2, %rd4;\n"
    "    mul.wide.u32 %rd4, %r1, 16;\n"
    "    add.s64 %rd6, %rd3, %rd4;\n"
    "    ld.global.u32 %r2, [%rd5];\n"
    "    ld.global.u32 %r3, [%rd5+4];\n"
    "    tex.2d.v4.u32.s32 {%r4, %r5, %r6, %r7}, [%rd1, {%r2, %r3}];\n"
    "    st.global.v4.u32 [%rd6], {%r4, %r5, %r6, %r7};\n"
    "    ret;\n"
    "}\n"
    /* in[i] = {layer (u32), x, y, -}; out[i] = tld4.r (gather of red) */
    F32_KERNEL("g_a2d",
        "    ld.global.u32 %r2, [%rd5];\n"
        "    ld.global.f32 %f1, [%rd5+4];\n"
        "    ld.global.f32 %f2, [%rd5+8];\n"
        "    tld4.r.a2d.v4.f32.f32 {%f4, %f5, %f6, %f7}, [%rd1, {%r2, %f1, %f2, %f2}];\n")
    F32_KERNEL("g_2d",
        "    ld.global.f32 %f1, [%rd5+4];\n"
        "    ld.global.f32 %f2, [%rd5+8];\n"
        "    tld4.r.2d.v4.f32.f32 {%f4, %f5, %f6, %f7}, [%rd1, {%f1, %f2}];\n")
    ".visible .entry q(.param .u64 tex, .param .u64 out)\n"
    "{\n"
    "    .reg .b32 %r<8>;\n"
    "    .reg .b64 %rd<4>;\n"
    "    ld.param.u64 %rd1, [tex];\n"
    "    ld.param.u64 %rd2, [out];\n"
    "    txq.width.b32 %r1, [%rd1];\n"
    "    txq.height.b32 %r2, [%rd1];\n"
    "    txq.num_mipmap_levels.b32 %r3, [%rd1];\n"
    "    txq.array_size.b32 %r4, [%rd1];\n"
    "    st.global.v4.u32 [%rd2], {%r1, %r2, %r3, %r4};\n"
    "    ret;\n"
    "}\n";

static CUmodule mod;
static CUdeviceptr din, dout;

/* Runs kernel `name` on n queries (16-byte in/out records); out poisoned. */
static void run(const char *name, CUtexObject t, const void *in, size_t inbytes, unsigned n,
                void *out)
{
    CUfunction f;
    OK(cuModuleGetFunction(&f, mod, name));
    OK(cuMemcpyHtoD(din, in, inbytes));
    void *args[] = {&t, &din, &dout};
    drv_launch_out(f, 1, 1, n, args, dout, out, 16 * (size_t)n);
}

static void query(CUtexObject t, uint32_t q[4])
{
    CUfunction f;
    OK(cuModuleGetFunction(&f, mod, "q"));
    void *args[] = {&t, &dout};
    drv_launch_out(f, 1, 1, 1, args, dout, q, 16);
}

/* tld4's four texels of (x, y) in texel units on an n x n image with
 * clamp addressing: (i, j+1), (i+1, j+1), (i+1, j), (i, j), i = floor(x - 0.5) */
static void gather_ref(const float *img, unsigned n, float x, float y, float want[4])
{
    int i = (int)floorf(x - 0.5f), j = (int)floorf(y - 0.5f);
    const int at[4][2] = {{i, j + 1}, {i + 1, j + 1}, {i + 1, j}, {i, j}};
    for (unsigned k = 0; k < 4; k++) {
        int cx = at[k][0] < 0 ? 0 : at[k][0] >= (int)n ? (int)n - 1 : at[k][0];
        int cy = at[k][1] < 0 ? 0 : at[k][1] >= (int)n ? (int)n - 1 : at[k][1];
        want[k] = img[cy * (int)n + cx];
    }
}

static CUDA_RESOURCE_VIEW_DESC view_of(const CUDA_ARRAY3D_DESCRIPTOR *d)
{
    CUDA_RESOURCE_VIEW_DESC v;
    memset(&v, 0, sizeof v);
    v.width = d->Width;
    v.height = d->Height;
    v.depth = d->Depth;
    return v;
}

/* Reinterpreting views: u32 over float, u32 over 4 x u8, float over u32. */
static void test_formats(void)
{
    CUDA_ARRAY3D_DESCRIPTOR d = {4, 2, 0, CU_AD_FORMAT_FLOAT, 1, 0};
    CUarray a;
    OK(cuArray3DCreate(&a, &d));
    float vals[2][4];
    for (int y = 0; y < 2; y++)
        for (int x = 0; x < 4; x++)
            vals[y][x] = -1.5f + 0.37f * (float)(y * 4 + x);
    drv_copy3d(a, vals, sizeof vals[0], 2, 1, true);
    CUDA_RESOURCE_DESC rd = drv_res_array(a);
    CUDA_TEXTURE_DESC td = drv_tex_point(0);
    CUDA_RESOURCE_VIEW_DESC v = view_of(&d);
    v.format = CU_RES_VIEW_FORMAT_UINT_1X32;
    CUtexObject t;
    OK(cuTexObjectCreate(&t, &rd, &td, &v));
    int32_t in[8][2];
    for (int i = 0; i < 8; i++)
        in[i][0] = i % 4, in[i][1] = i / 4;
    uint32_t out[8][4];
    run("raw_2d", t, in, sizeof in, 8, out);
    for (int i = 0; i < 8; i++) {
        uint32_t bits;
        memcpy(&bits, &vals[i / 4][i % 4], 4);
        /* channels the format lacks read 0, alpha too (H200) */
        EXPECT(out[i][0] == bits && out[i][1] == 0 && out[i][2] == 0 && out[i][3] == 0);
    }
    CUDA_RESOURCE_VIEW_DESC back;
    memset(&back, 0x55, sizeof back);
    OK(cuTexObjectGetResourceViewDesc(&back, t));
    EXPECT(back.format == CU_RES_VIEW_FORMAT_UINT_1X32 && back.width == 4 &&
           back.height == 2 && back.depth == 0 && back.lastMipmapLevel == 0);
    OK(cuTexObjectDestroy(t));

    /* misuse: other element size, other extent, levels/layers on a plain
     * array, block-compressed formats, views of linear memory */
    CUDA_RESOURCE_VIEW_DESC bad = v;
    bad.format = CU_RES_VIEW_FORMAT_UINT_2X32;
    EXPECT_RC(cuTexObjectCreate(&t, &rd, &td, &bad), CUDA_ERROR_INVALID_VALUE);
    bad.format = (CUresourceViewFormat)0x40;
    EXPECT_RC(cuTexObjectCreate(&t, &rd, &td, &bad), CUDA_ERROR_INVALID_VALUE);
    bad = v;
    bad.width = 8;
    EXPECT_RC(cuTexObjectCreate(&t, &rd, &td, &bad), CUDA_ERROR_INVALID_VALUE);
    bad = v;
    bad.height = 1;
    EXPECT_RC(cuTexObjectCreate(&t, &rd, &td, &bad), CUDA_ERROR_INVALID_VALUE);
    bad = v;
    bad.lastMipmapLevel = 1;
    EXPECT_RC(cuTexObjectCreate(&t, &rd, &td, &bad), CUDA_ERROR_INVALID_VALUE);
    bad = v;
    bad.lastLayer = 1;
    EXPECT_RC(cuTexObjectCreate(&t, &rd, &td, &bad), CUDA_ERROR_INVALID_VALUE);
    bad = v;
    bad.format = CU_RES_VIEW_FORMAT_UNSIGNED_BC1; /* needs U32 x2 elements */
    EXPECT_RC(cuTexObjectCreate(&t, &rd, &td, &bad), CUDA_ERROR_INVALID_VALUE);
    CUdeviceptr lin;
    OK(cuMemAlloc(&lin, 256));
    CUDA_RESOURCE_DESC rl;
    memset(&rl, 0, sizeof rl);
    rl.resType = CU_RESOURCE_TYPE_LINEAR;
    rl.res.linear.devPtr = lin;
    rl.res.linear.format = CU_AD_FORMAT_FLOAT;
    rl.res.linear.numChannels = 1;
    rl.res.linear.sizeInBytes = 256;
    CUDA_RESOURCE_VIEW_DESC lv;
    memset(&lv, 0, sizeof lv);
    lv.width = 64;
    EXPECT_RC(cuTexObjectCreate(&t, &rl, &td, &lv), CUDA_ERROR_INVALID_VALUE);
    OK(cuTexObjectCreate(&t, &rl, &td, NULL));
    EXPECT_RC(cuTexObjectGetResourceViewDesc(&back, t), CUDA_ERROR_INVALID_VALUE); /* none */
    EXPECT_RC(cuTexObjectGetResourceViewDesc(NULL, t), CUDA_ERROR_INVALID_VALUE);
    OK(cuTexObjectDestroy(t));
    EXPECT_RC(cuTexObjectGetResourceViewDesc(&back, t), CUDA_ERROR_INVALID_VALUE);
    OK(cuMemFree(lin));
    OK(cuArrayDestroy(a));

    /* 4 x u8 read back as one u32 (little endian), and as 4 raw bytes */
    CUDA_ARRAY3D_DESCRIPTOR d8 = {3, 1, 0, CU_AD_FORMAT_UNSIGNED_INT8, 4, 0};
    OK(cuArray3DCreate(&a, &d8));
    uint8_t bytes[12];
    for (int i = 0; i < 12; i++)
        bytes[i] = (uint8_t)(17 * i + 3);
    drv_copy3d(a, bytes, sizeof bytes, 1, 1, true);
    rd.res.array.hArray = a;
    v = view_of(&d8);
    v.format = CU_RES_VIEW_FORMAT_UINT_1X32;
    OK(cuTexObjectCreate(&t, &rd, &td, &v));
    run("raw_2d", t, in, sizeof in, 3, out);
    for (int i = 0; i < 3; i++) {
        uint32_t want;
        memcpy(&want, bytes + 4 * i, 4);
        EXPECT(out[i][0] == want);
    }
    OK(cuTexObjectDestroy(t));
    td.flags = CU_TRSF_READ_AS_INTEGER;
    v.format = CU_RES_VIEW_FORMAT_SINT_4X8;
    OK(cuTexObjectCreate(&t, &rd, &td, &v));
    run("raw_2d", t, in, sizeof in, 3, out);
    for (int i = 0; i < 3; i++)
        for (int c = 0; c < 4; c++)
            EXPECT(out[i][c] == (uint32_t)(int32_t)(int8_t)bytes[4 * i + c]);
    OK(cuTexObjectDestroy(t));
    OK(cuArrayDestroy(a));
}

/* Mip levels 2..3 of a 5-level 16 x 16 mipmapped array. */
static void test_levels(void)
{
    CUDA_ARRAY3D_DESCRIPTOR d = {16, 16, 0, CU_AD_FORMAT_FLOAT, 1, 0};
    CUmipmappedArray m;
    OK(cuMipmappedArrayCreate(&m, &d, 5));
    float lvdata[16 * 16];
    for (unsigned l = 0; l < 5; l++) {
        unsigned n = 16u >> l;
        for (unsigned i = 0; i < n * n; i++)
            lvdata[i] = (float)(100 * l + i);
        CUarray a;
        OK(cuMipmappedArrayGetLevel(&a, m, l));
        drv_copy3d(a, lvdata, n * 4, n, 1, true);
    }
    CUDA_RESOURCE_DESC rd = drv_res_mipmap(m);
    CUDA_TEXTURE_DESC td = drv_tex_point(CU_TRSF_NORMALIZED_COORDINATES);
    td.mipmapFilterMode = CU_TR_FILTER_MODE_POINT;
    td.maxMipmapLevelClamp = 16.0f;
    CUDA_RESOURCE_VIEW_DESC v = view_of(&d);
    v.firstMipmapLevel = 2;
    v.lastMipmapLevel = 3;
    CUtexObject t;
    OK(cuTexObjectCreate(&t, &rd, &td, &v));
    uint32_t q[4];
    query(t, q);
    EXPECT(q[0] == 4 && q[1] == 4 && q[2] == 2);
    /* texel (x, y) of the view's level vl at LOD vl (and LOD 7: clamped) */
    float in[24][4];
    float want[24];
    unsigned n = 0;
    for (unsigned vl = 0; vl < 3; vl++) {
        unsigned real = 2 + (vl < 2 ? vl : 1), size = 16u >> real;
        for (unsigned k = 0; k < 8; k++) {
            unsigned x = (k * 3) % size, y = (k * 5 + vl) % size;
            in[n][0] = 0.0f;
            in[n][1] = ((float)x + 0.5f) / (float)size;
            in[n][2] = ((float)y + 0.5f) / (float)size;
            in[n][3] = vl < 2 ? (float)vl : 7.0f;
            want[n] = (float)(100 * real + y * size + x);
            n++;
        }
    }
    float out[24][4];
    run("lvl_2d", t, in, sizeof in, n, out);
    for (unsigned i = 0; i < n; i++)
        EXPECT(out[i][0] == want[i] && out[i][3] == 0.0f); /* no alpha: 0 (H200) */
    /* tld4 reads the view's level 0: array level 2 (4 x 4) */
    float gin[16][4], gout[16][4];
    float l2[16];
    for (unsigned i = 0; i < 16; i++)
        l2[i] = (float)(200 + i);
    for (unsigned i = 0; i < 16; i++) {
        gin[i][0] = 0.0f;
        gin[i][1] = ((float)(i % 4) + 0.25f * (float)(i % 3)) / 4.0f;
        gin[i][2] = ((float)(i / 4) + 0.3f) / 4.0f;
        gin[i][3] = 0.0f;
    }
    run("g_2d", t, gin, sizeof gin, 16, gout);
    for (unsigned i = 0; i < 16; i++) {
        float want[4];
        gather_ref(l2, 4, gin[i][1] * 4.0f, gin[i][2] * 4.0f, want);
        for (unsigned k = 0; k < 4; k++)
            EXPECT(gout[i][k] == want[k]);
    }
    OK(cuTexObjectDestroy(t));
    /* the LOD clamps are relative to the first level: minMipmapLevelClamp 1
     * makes LOD 0 read the view's level 1 (array level 3) */
    td.minMipmapLevelClamp = 1.0f;
    OK(cuTexObjectCreate(&t, &rd, &td, &v));
    run("lvl_2d", t, in, sizeof in, 8, out);
    for (unsigned i = 0; i < 8; i++) {
        unsigned x = (unsigned)(in[i][1] * 4.0f) / 2, y = (unsigned)(in[i][2] * 4.0f) / 2;
        EXPECT(out[i][0] == (float)(300 + y * 2 + x));
    }
    OK(cuTexObjectDestroy(t));
    CUDA_RESOURCE_VIEW_DESC bad = v;
    bad.lastMipmapLevel = 5;
    EXPECT_RC(cuTexObjectCreate(&t, &rd, &td, &bad), CUDA_ERROR_INVALID_VALUE);
    bad = v;
    bad.firstMipmapLevel = 4;
    EXPECT_RC(cuTexObjectCreate(&t, &rd, &td, &bad), CUDA_ERROR_INVALID_VALUE); /* > last */
    OK(cuMipmappedArrayDestroy(m));
}

/* Layers 1..3 of a 5-layer 4 x 4 layered array; cubemap views take cubes. */
static void test_layers(void)
{
    CUDA_ARRAY3D_DESCRIPTOR d = {4, 4, 5, CU_AD_FORMAT_FLOAT, 1, CUDA_ARRAY3D_LAYERED};
    CUarray a;
    OK(cuArray3DCreate(&a, &d));
    float vals[5 * 16];
    for (unsigned i = 0; i < 5 * 16; i++)
        vals[i] = (float)(1000 * (i / 16) + i % 16);
    drv_copy3d(a, vals, 16, 4, 5, true);
    CUDA_RESOURCE_DESC rd = drv_res_array(a);
    CUDA_TEXTURE_DESC td = drv_tex_point(0);
    CUDA_RESOURCE_VIEW_DESC v = view_of(&d);
    v.firstLayer = 1;
    v.lastLayer = 3;
    CUtexObject t;
    OK(cuTexObjectCreate(&t, &rd, &td, &v));
    uint32_t q[4];
    query(t, q);
    EXPECT(q[0] == 4 && q[1] == 4 && q[3] == 3);
    float in[16][4];
    float want[16];
    for (unsigned i = 0; i < 16; i++) {
        uint32_t layer = i % 5; /* 3 and 4 are past the view: its last layer */
        unsigned x = i % 4, y = (i * 3) % 4;
        memcpy(&in[i][0], &layer, 4);
        in[i][1] = (float)x + 0.5f;
        in[i][2] = (float)y + 0.5f;
        in[i][3] = 0.0f;
        unsigned real = 1 + (layer < 3 ? layer : 2);
        want[i] = (float)(1000 * real + y * 4 + x);
    }
    float out[16][4];
    run("lvl_a2d", t, in, sizeof in, 16, out);
    for (unsigned i = 0; i < 16; i++)
        EXPECT(out[i][0] == want[i]);
    /* tld4.a2d: the gather of the view's layer (past the end: its last) */
    for (unsigned i = 0; i < 16; i++) {
        in[i][1] = 0.2f + 0.27f * (float)i;
        in[i][2] = 3.9f - 0.23f * (float)i;
    }
    run("g_a2d", t, in, sizeof in, 16, out);
    for (unsigned i = 0; i < 16; i++) {
        uint32_t layer;
        memcpy(&layer, &in[i][0], 4);
        float gw[4];
        gather_ref(vals + 16 * (1 + (layer < 3 ? layer : 2)), 4, in[i][1], in[i][2], gw);
        for (unsigned k = 0; k < 4; k++)
            EXPECT(out[i][k] == gw[k]);
    }
    OK(cuTexObjectDestroy(t));
    CUDA_RESOURCE_VIEW_DESC bad = v;
    bad.lastLayer = 5;
    EXPECT_RC(cuTexObjectCreate(&t, &rd, &td, &bad), CUDA_ERROR_INVALID_VALUE);
    bad = v;
    bad.firstLayer = 4;
    EXPECT_RC(cuTexObjectCreate(&t, &rd, &td, &bad), CUDA_ERROR_INVALID_VALUE);
    bad = v;
    bad.depth = 3;   /* the extent is the array's, not the view's */
    EXPECT_RC(cuTexObjectCreate(&t, &rd, &td, &bad), CUDA_ERROR_INVALID_VALUE);
    OK(cuArrayDestroy(a));

    CUDA_ARRAY3D_DESCRIPTOR cd = {4, 4, 12, CU_AD_FORMAT_FLOAT, 1,
                                  CUDA_ARRAY3D_CUBEMAP | CUDA_ARRAY3D_LAYERED};
    OK(cuArray3DCreate(&a, &cd));
    rd.res.array.hArray = a;
    v = view_of(&cd);
    v.firstLayer = 6;
    v.lastLayer = 11;
    OK(cuTexObjectCreate(&t, &rd, &td, &v));
    query(t, q);
    EXPECT(q[3] == 1); /* one cube */
    OK(cuTexObjectDestroy(t));
    v.lastLayer = 8;   /* half a cube */
    EXPECT_RC(cuTexObjectCreate(&t, &rd, &td, &v), CUDA_ERROR_INVALID_VALUE);
    OK(cuArrayDestroy(a));
}

static void test_queries(CUdevice dev)
{
    CUDA_ARRAY3D_DESCRIPTOR d = {100, 50, 0, CU_AD_FORMAT_FLOAT, 4, 0};
    CUarray plain, deferred;
    OK(cuArray3DCreate(&plain, &d));
    CUDA_ARRAY_MEMORY_REQUIREMENTS r;
    EXPECT_RC(cuArrayGetMemoryRequirements(&r, plain, dev), CUDA_ERROR_INVALID_VALUE);
    d.Flags = CUDA_ARRAY3D_DEFERRED_MAPPING;
    OK(cuArray3DCreate(&deferred, &d));
    memset(&r, 0xff, sizeof r);
    OK(cuArrayGetMemoryRequirements(&r, deferred, dev));
    CUmemAllocationProp prop;
    memset(&prop, 0, sizeof prop);
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    size_t gran = 0;
    OK(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    EXPECT(r.size >= 100 * 50 * 16 && r.alignment && r.size % r.alignment == 0 &&
           gran && r.size % gran == 0 && r.alignment % gran == 0);
    EXPECT_RC(cuArrayGetMemoryRequirements(&r, deferred, 1), CUDA_ERROR_INVALID_DEVICE);
    EXPECT_RC(cuArrayGetMemoryRequirements(NULL, deferred, dev), CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(cuArrayGetMemoryRequirements(&r, (CUarray)&drv_failures, dev),
              CUDA_ERROR_INVALID_HANDLE);

    /* mipmapped: every level counts */
    CUDA_ARRAY3D_DESCRIPTOR md = {1024, 1024, 0, CU_AD_FORMAT_FLOAT, 1,
                                  CUDA_ARRAY3D_DEFERRED_MAPPING};
    CUmipmappedArray m, mplain;
    OK(cuMipmappedArrayCreate(&m, &md, 11));
    size_t total = 0;
    for (unsigned l = 0; l < 11; l++)
        total += (size_t)(1024 >> l) * (1024 >> l) * 4;
    OK(cuMipmappedArrayGetMemoryRequirements(&r, m, dev));
    EXPECT(r.size >= total && r.size < total + r.alignment && r.size % gran == 0);
    md.Flags = 0;
    OK(cuMipmappedArrayCreate(&mplain, &md, 2));
    EXPECT_RC(cuMipmappedArrayGetMemoryRequirements(&r, mplain, dev), CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(cuMipmappedArrayGetMemoryRequirements(&r, (CUmipmappedArray)&drv_failures, dev),
              CUDA_ERROR_INVALID_HANDLE);

    /* planes: only of planar arrays (test_drv_planar.c tests those);
     * sparse properties: only of sparse arrays (test_drv_sparse.c) */
    CUarray plane = NULL;
    EXPECT_RC(cuArrayGetPlane(&plane, plain, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(cuArrayGetPlane(&plane, (CUarray)&drv_failures, 0), CUDA_ERROR_INVALID_HANDLE);
    EXPECT(plane == NULL);
    CUDA_ARRAY_SPARSE_PROPERTIES sp;
    EXPECT_RC(cuArrayGetSparseProperties(&sp, plain), CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(cuMipmappedArrayGetSparseProperties(&sp, m), CUDA_ERROR_INVALID_VALUE);
    CUarray sparse = NULL;
    d.Flags = CUDA_ARRAY3D_SPARSE;
    OK(cuArray3DCreate(&sparse, &d));
    OK(cuArrayGetSparseProperties(&sp, sparse));
    EXPECT(sp.tileExtent.width == 64 && sp.tileExtent.height == 64); /* 16-byte elements */
    OK(cuArrayDestroy(sparse));

    /* widest linear 1D texture: the device attribute, for every format */
    int attr = 0;
    OK(cuDeviceGetAttribute(&attr, CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LINEAR_WIDTH, dev));
    EXPECT(attr > 0);
    const CUarray_format fmts[] = {CU_AD_FORMAT_UNSIGNED_INT8, CU_AD_FORMAT_SIGNED_INT16,
                                   CU_AD_FORMAT_UNSIGNED_INT32, CU_AD_FORMAT_HALF,
                                   CU_AD_FORMAT_FLOAT};
    for (unsigned i = 0; i < 5; i++)
        for (unsigned c = 1; c <= 4; c *= 2) {
            size_t w = 0;
            OK(cuDeviceGetTexture1DLinearMaxWidth(&w, fmts[i], c, dev));
            EXPECT(w == (size_t)attr);
        }
    size_t w;
    EXPECT_RC(cuDeviceGetTexture1DLinearMaxWidth(&w, CU_AD_FORMAT_FLOAT, 3, dev),
              CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(cuDeviceGetTexture1DLinearMaxWidth(&w, (CUarray_format)0x77, 1, dev),
              CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(cuDeviceGetTexture1DLinearMaxWidth(NULL, CU_AD_FORMAT_FLOAT, 1, dev),
              CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(cuDeviceGetTexture1DLinearMaxWidth(&w, CU_AD_FORMAT_FLOAT, 1, 7),
              CUDA_ERROR_INVALID_DEVICE);
    OK(cuMipmappedArrayDestroy(m));
    OK(cuMipmappedArrayDestroy(mplain));
    OK(cuArrayDestroy(plain));
    OK(cuArrayDestroy(deferred));
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    CUdevice dev = drv_test_primary_ctx(NULL);
    OK(cuModuleLoadData(&mod, ptx));
    OK(cuMemAlloc(&din, 16 * 64));
    OK(cuMemAlloc(&dout, 16 * 64));
    test_formats();
    test_levels();
    test_layers();
    test_queries(dev);
    OK(cuMemFree(din));
    OK(cuMemFree(dout));
    OK(cuModuleUnload(mod));
    OK(cuDevicePrimaryCtxRelease(dev));
    return drv_test_end("drv_texview");
}
