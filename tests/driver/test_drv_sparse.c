/* test_drv_sparse.c: sparse CUDA arrays (CUDA_ARRAY3D_SPARSE): creation,
 * cuArrayGetSparseProperties / cuMipmappedArrayGetSparseProperties with
 * CUDA's 64 KiB tile shapes and the mip tail (expected values worked out
 * here from the table and the level sizes); tile mapping with
 * cuMemMapArrayAsync to cuMemCreate tile pools: a new array has no
 * resident tile (copies, tex and suld read 0, tex's residency form says
 * 0, writes are dropped), mapped tiles keep what copies and a surface kernel
 * write, unmapped ones read 0 again, remapped ones show the pool's bytes
 * at their offset, two arrays mapped to one pool alias (expected values
 * from the tile order: x fastest, 64 KiB a tile), mip tails, 3D and
 * layered arrays; and the misuse errors. */
#include "drv_test.h"
#include "drv_test_tex.h"

#include <stdint.h>
#include <string.h>

#define TILE 65536ull

/* the kernels' thread coordinates: %r5 = x (one row per block), %r6 = y */
#define SPARSE_XY                                                          \
    "    mov.u32 %r2, %ctaid.x;\n"                                          \
    "    mov.u32 %r3, %ntid.x;\n"                                           \
    "    mov.u32 %r4, %tid.x;\n"                                            \
    "    mad.lo.s32 %r5, %r2, %r3, %r4;\n"                                  \
    "    mov.u32 %r6, %ctaid.y;\n"

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
    SPARSE_XY
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



/* fill(surf, seed): thread (x, y) writes pat(x, y, seed) to element (x, y)
 * of a 32-bit surface */
static const char fill_ptx[] =
    ".version 8.0\n"
    ".target sm_75\n"
    ".address_size 64\n"
    ".visible .entry fill(.param .u64 surf, .param .u32 seed)\n"
    "{\n"
    "    .reg .b32 %r<16>;\n"
    "    .reg .b64 %rd<4>;\n"
    "    ld.param.u64 %rd1, [surf];\n"
    "    ld.param.u32 %r1, [seed];\n"
    SPARSE_XY
    "    mad.lo.s32 %r7, %r6, 7919, %r1;\n"
    "    mad.lo.s32 %r8, %r5, 31, %r7;\n"
    "    add.s32 %r8, %r8, 5;\n"
    "    shl.b32 %r9, %r5, 2;\n"
    "    sust.b.2d.b32.trap [%rd1, {%r9, %r6}], {%r8};\n"
    "    ret;\n"
    "}\n";

/* peek(surf, out, w): thread (x, y) reads element (x, y) with suld into
 * out[y * w + x] */
static const char peek_ptx[] =
    ".version 8.0\n"
    ".target sm_75\n"
    ".address_size 64\n"
    ".visible .entry peek(.param .u64 surf, .param .u64 out, .param .u32 w)\n"
    "{\n"
    "    .reg .b32 %r<16>;\n"
    "    .reg .b64 %rd<8>;\n"
    "    ld.param.u64 %rd1, [surf];\n"
    "    ld.param.u64 %rd2, [out];\n"
    "    ld.param.u32 %r1, [w];\n"
    SPARSE_XY
    "    shl.b32 %r7, %r5, 2;\n"
    "    suld.b.2d.b32.trap {%r8}, [%rd1, {%r7, %r6}];\n"
    "    mad.lo.s32 %r9, %r6, %r1, %r5;\n"
    "    mul.wide.s32 %rd3, %r9, 4;\n"
    "    add.s64 %rd4, %rd2, %rd3;\n"
    "    st.global.u32 [%rd4], %r8;\n"
    "    ret;\n"
    "}\n";

static CUmodule mod_sample, mod_fill, mod_peek;
static CUfunction fn_sample, fn_fill, fn_peek;

/* never 0, so a 0 read is a non-resident tile */
static uint32_t pat(unsigned x, unsigned y, unsigned seed)
{
    return (uint32_t)(y * 7919u + seed + x * 31u + 5u);
}

static CUmemGenericAllocationHandle pool(size_t bytes, int tile_pool)
{
    CUmemAllocationProp pr;
    memset(&pr, 0, sizeof pr);
    pr.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    pr.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    pr.location.id = 0;
    pr.allocFlags.usage = tile_pool ? CU_MEM_CREATE_USAGE_TILE_POOL : 0;
    CUmemGenericAllocationHandle h = 0;
    OK(cuMemCreate(&h, bytes, &pr, 0));
    return h;
}

/* level 0, layer 0 of a 2D array: the box (x, y, w, h) mapped to h at
 * offset off, or unmapped (h 0) */
static CUarrayMapInfo box(CUarray a, unsigned x, unsigned y, unsigned w, unsigned hgt,
                          CUmemGenericAllocationHandle h, unsigned long long off)
{
    CUarrayMapInfo m;
    memset(&m, 0, sizeof m);
    m.resourceType = CU_RESOURCE_TYPE_ARRAY;
    m.resource.array = a;
    m.subresourceType = CU_ARRAY_SPARSE_SUBRESOURCE_TYPE_SPARSE_LEVEL;
    m.subresource.sparseLevel.offsetX = x;
    m.subresource.sparseLevel.offsetY = y;
    m.subresource.sparseLevel.extentWidth = w;
    m.subresource.sparseLevel.extentHeight = hgt;
    m.subresource.sparseLevel.extentDepth = 1;
    m.memOperationType = h ? CU_MEM_OPERATION_TYPE_MAP : CU_MEM_OPERATION_TYPE_UNMAP;
    m.memHandleType = CU_MEM_HANDLE_TYPE_GENERIC;
    m.memHandle.memHandle = h;
    m.offset = off;
    m.deviceBitMask = 1;
    return m;
}

static void map1(CUarrayMapInfo m, CUstream s)
{
    OK(cuMemMapArrayAsync(&m, 1, s));
    OK(cuStreamSynchronize(s));
}

/* a 2D 32-bit array to and from host rows of w elements */
static void copy2d(CUarray a, uint32_t *host, unsigned w, unsigned h, int to_array,
                   CUstream s)
{
    CUDA_MEMCPY2D c;
    memset(&c, 0, sizeof c);
    if (to_array) {
        c.srcMemoryType = CU_MEMORYTYPE_HOST;
        c.srcHost = host;
        c.srcPitch = w * 4;
        c.dstMemoryType = CU_MEMORYTYPE_ARRAY;
        c.dstArray = a;
    } else {
        for (size_t i = 0; i < (size_t)w * h; i++)
            host[i] = 0xCDCDCDCDu; /* poison */
        c.srcMemoryType = CU_MEMORYTYPE_ARRAY;
        c.srcArray = a;
        c.dstMemoryType = CU_MEMORYTYPE_HOST;
        c.dstHost = host;
        c.dstPitch = w * 4;
    }
    c.WidthInBytes = w * 4;
    c.Height = h;
    OK(cuMemcpy2DAsync(&c, s));
    OK(cuStreamSynchronize(s));
}

/* tex with the residency form over the whole array: val[y * w + x] and
 * res[...] (1 resident, 0 not) */
static void sample(CUarray a, unsigned w, unsigned h, uint32_t *val, uint32_t *res)
{
    CUDA_RESOURCE_DESC rd;
    memset(&rd, 0, sizeof rd);
    rd.resType = CU_RESOURCE_TYPE_ARRAY;
    rd.res.array.hArray = a;
    CUDA_TEXTURE_DESC td;
    memset(&td, 0, sizeof td);
    td.addressMode[0] = td.addressMode[1] = CU_TR_ADDRESS_MODE_CLAMP;
    td.flags = CU_TRSF_READ_AS_INTEGER;
    CUtexObject t = 0;
    OK(cuTexObjectCreate(&t, &rd, &td, NULL));
    size_t bytes = (size_t)w * h * 8;
    CUdeviceptr out = 0;
    OK(cuMemAlloc(&out, bytes));
    unsigned wv = w;
    void *args[] = {&t, &out, &wv};
    OK(cuLaunchKernel(fn_sample, w / 4, h, 1, 4, 1, 1, 0, NULL, args, NULL));
    OK(cuCtxSynchronize());
    static uint32_t got[512 * 256 * 2];
    OK(cuMemcpyDtoH(got, out, bytes));
    for (size_t i = 0; i < (size_t)w * h; i++) {
        val[i] = got[2 * i];
        res[i] = got[2 * i + 1];
    }
    OK(cuMemFree(out));
    OK(cuTexObjectDestroy(t));
}

/* the whole array read through a surface (suld) */
static void peek(CUarray a, unsigned w, unsigned h, uint32_t *val)
{
    CUDA_RESOURCE_DESC rd;
    memset(&rd, 0, sizeof rd);
    rd.resType = CU_RESOURCE_TYPE_ARRAY;
    rd.res.array.hArray = a;
    CUsurfObject sf = 0;
    OK(cuSurfObjectCreate(&sf, &rd));
    size_t bytes = (size_t)w * h * 4;
    CUdeviceptr out = 0;
    OK(cuMemAlloc(&out, bytes));
    OK(cuMemsetD8(out, 0xCD, bytes));
    unsigned wv = w;
    void *args[] = {&sf, &out, &wv};
    OK(cuLaunchKernel(fn_peek, w / 4, h, 1, 4, 1, 1, 0, NULL, args, NULL));
    OK(cuCtxSynchronize());
    OK(cuMemcpyDtoH(val, out, bytes));
    OK(cuMemFree(out));
    OK(cuSurfObjectDestroy(sf));
}

static void fill(CUarray a, unsigned w, unsigned h, unsigned seed)
{
    CUDA_RESOURCE_DESC rd;
    memset(&rd, 0, sizeof rd);
    rd.resType = CU_RESOURCE_TYPE_ARRAY;
    rd.res.array.hArray = a;
    CUsurfObject sf = 0;
    OK(cuSurfObjectCreate(&sf, &rd));
    void *args[] = {&sf, &seed};
    OK(cuLaunchKernel(fn_fill, w / 4, h, 1, 4, 1, 1, 0, NULL, args, NULL));
    OK(cuCtxSynchronize());
    OK(cuSurfObjectDestroy(sf));
}

enum { AW = 300, AH = 200, T32 = 128 }; /* 3 x 2 tiles of 128 x 128 */
static uint32_t want_a[AH][AW];

/* every element of a (AW x AH) read by copy, by tex and by suld against
 * want_a; resident tiles are those where resident(tx, ty) */
static int check_a(CUarray a, const int resident[2][3])
{
    static uint32_t got[AH][AW], val[AH][AW], res[AH][AW], su[AH][AW];
    copy2d(a, &got[0][0], AW, AH, 0, NULL);
    sample(a, AW, AH, &val[0][0], &res[0][0]);
    peek(a, AW, AH, &su[0][0]);
    int ok = 1;
    for (unsigned y = 0; y < AH; y++)
        for (unsigned x = 0; x < AW; x++) {
            uint32_t w = want_a[y][x];
            int r = resident[y / T32][x / T32];
            ok &= got[y][x] == w && val[y][x] == w && su[y][x] == w &&
                  res[y][x] == (uint32_t)r;
        }
    return ok;
}

static void set_want(unsigned seed, const int resident[2][3])
{
    for (unsigned y = 0; y < AH; y++)
        for (unsigned x = 0; x < AW; x++)
            want_a[y][x] = resident[y / T32][x / T32] ? pat(x, y, seed) : 0;
}

/* map, write, read, unmap, remap; then a second array aliasing the pool */
static void mapping(void)
{
    CUDA_ARRAY3D_DESCRIPTOR d =
        desc(AW, AH, 0, CU_AD_FORMAT_UNSIGNED_INT32, 1, CUDA_ARRAY3D_SURFACE_LDST);
    CUarray a = NULL;
    OK(cuArray3DCreate(&a, &d));
    CUmemGenericAllocationHandle h = pool(2u << 20, 1);
    CUstream s = NULL;
    OK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    if (!a || !h || !s)
        return;
    static uint32_t in[AH][AW];
    const int none[2][3] = {{0, 0, 0}, {0, 0, 0}}, all[2][3] = {{1, 1, 1}, {1, 1, 1}};
    const int hole[2][3] = {{1, 0, 1}, {1, 1, 1}};

    /* new: nothing resident; writes (copy, surface) are dropped */
    set_want(0, none);
    EXPECT(check_a(a, none));
    for (unsigned y = 0; y < AH; y++)
        for (unsigned x = 0; x < AW; x++)
            in[y][x] = pat(x, y, 0);
    copy2d(a, &in[0][0], AW, AH, 1, NULL);
    fill(a, AW, AH, 9);
    EXPECT(check_a(a, none));

    /* the whole level (its last tiles stop at the edge) from offset 64 KiB,
     * then a copy queued behind it on the same stream */
    CUarrayMapInfo m = box(a, 0, 0, AW, AH, h, TILE);
    OK(cuMemMapArrayAsync(&m, 1, s));
    copy2d(a, &in[0][0], AW, AH, 1, s);
    set_want(0, all);
    EXPECT(check_a(a, all));

    /* tile (1, 0) unmapped: zeros and residency 0 there only */
    map1(box(a, T32, 0, T32, T32, 0, 0), s);
    set_want(0, hole);
    EXPECT(check_a(a, hole));
    copy2d(a, &in[0][0], AW, AH, 1, NULL); /* dropped in the hole */
    EXPECT(check_a(a, hole));

    /* remapped to fresh pool bytes (past the 6 tiles): resident, zero;
     * then a surface kernel writes everything */
    map1(box(a, T32, 0, T32, T32, h, 7 * TILE), s);
    for (unsigned y = 0; y < T32; y++)
        for (unsigned x = T32; x < 2 * T32; x++)
            want_a[y][x] = 0;
    EXPECT(check_a(a, all));
    fill(a, AW, AH, 1);
    set_want(1, all);
    EXPECT(check_a(a, all));
    /* back to offset 2 x 64 KiB, tile 1 in x-fastest order: the bytes the
     * first copy left there */
    map1(box(a, T32, 0, T32, T32, h, 2 * TILE), s);
    for (unsigned y = 0; y < T32; y++)
        for (unsigned x = T32; x < 2 * T32; x++)
            want_a[y][x] = pat(x, y, 0);
    EXPECT(check_a(a, all));

    /* the same bytes through cuMemMap: a's tile k at 64 KiB x (k + 1),
     * element (x, y) at ((y % 128) x 128 + x % 128) x 4 inside it (Zinc's
     * layout; CUDA's is opaque) */
    const size_t psize = 2u << 20;
    CUdeviceptr va = 0;
    OK(cuMemAddressReserve(&va, psize, 0, 0, 0));
    OK(cuMemMap(va, psize, 0, h, 0));
    CUmemAccessDesc ad;
    memset(&ad, 0, sizeof ad);
    ad.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    ad.location.id = 0;
    ad.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    OK(cuMemSetAccess(va, psize, &ad, 1));
    static uint32_t raw[7 * TILE / 4];
    memset(raw, 0xCD, sizeof raw);
    OK(cuMemcpyDtoH(raw, va, sizeof raw));
    int same = 1;
    for (unsigned y = 0; y < AH; y++)
        for (unsigned x = 0; x < AW; x++) {
            unsigned k = y / T32 * 3 + x / T32;
            same &= raw[TILE / 4 * (k + 1) + (y % T32) * T32 + x % T32] == want_a[y][x];
        }
    EXPECT(same);
    OK(cuMemUnmap(va, psize));
    OK(cuMemAddressFree(va, psize));

    /* b: 256 x 256 (2 x 2 tiles) on the same bytes; its tile k is a's tile
     * k (a's row of 3 tiles, then the next), element for element. The
     * handle is released: the mapped tiles keep the pool. */
    enum { BW = 256 };
    CUDA_ARRAY3D_DESCRIPTOR db = desc(BW, BW, 0, CU_AD_FORMAT_UNSIGNED_INT32, 1, 0);
    CUarray b = NULL;
    OK(cuArray3DCreate(&b, &db));
    map1(box(b, 0, 0, BW, BW, h, TILE), s);
    OK(cuMemRelease(h));
    static uint32_t gb[BW][BW], wb[BW][BW];
    copy2d(b, &gb[0][0], BW, BW, 0, NULL);
    int ok = 1;
    for (unsigned y = 0; y < BW; y++)
        for (unsigned x = 0; x < BW; x++) {
            unsigned k = y / T32 * 2 + x / T32;
            unsigned ax = k % 3 * T32 + x % T32, ay = k / 3 * T32 + y % T32;
            wb[y][x] = ax < AW && ay < AH ? want_a[ay][ax] : 0;
            ok &= gb[y][x] == wb[y][x];
        }
    EXPECT(ok);
    /* and writes through b show in a */
    for (unsigned y = 0; y < BW; y++)
        for (unsigned x = 0; x < BW; x++)
            gb[y][x] = pat(x, y, 2);
    copy2d(b, &gb[0][0], BW, BW, 1, NULL);
    for (unsigned y = 0; y < AH; y++)
        for (unsigned x = 0; x < AW; x++) {
            unsigned k = y / T32 * 3 + x / T32;
            if (k < 4)
                want_a[y][x] = pat(k % 2 * T32 + x % T32, k / 2 * T32 + y % T32, 2);
        }
    EXPECT(check_a(a, all));
    OK(cuArrayDestroy(b));
    OK(cuArrayDestroy(a));
    OK(cuStreamDestroy(s));
}

/* a mipmapped array's level 1 (one tile) and mip tail (levels 2, 3) */
static void miptail(void)
{
    CUDA_ARRAY3D_DESCRIPTOR d = desc(256, 256, 0, CU_AD_FORMAT_FLOAT, 1, 0);
    CUmipmappedArray mm = NULL;
    OK(cuMipmappedArrayCreate(&mm, &d, 4));
    CUmemGenericAllocationHandle h = pool(2u << 20, 1);
    if (!mm || !h)
        return;
    CUarray l1 = NULL, l2 = NULL, l3 = NULL;
    OK(cuMipmappedArrayGetLevel(&l1, mm, 1));
    OK(cuMipmappedArrayGetLevel(&l2, mm, 2));
    OK(cuMipmappedArrayGetLevel(&l3, mm, 3));
    static uint32_t in[128 * 128], got[128 * 128];
    for (unsigned i = 0; i < 128 * 128; i++)
        in[i] = pat(i % 128, i / 128, 3);
    copy2d(l2, in, 64, 64, 1, NULL);
    copy2d(l2, got, 64, 64, 0, NULL);
    int zero = 1;
    for (unsigned i = 0; i < 64 * 64; i++)
        zero &= got[i] == 0;
    EXPECT(zero);

    CUarrayMapInfo m[2];
    memset(m, 0, sizeof m);
    for (unsigned i = 0; i < 2; i++) {
        m[i].resourceType = CU_RESOURCE_TYPE_MIPMAPPED_ARRAY;
        m[i].resource.mipmap = mm;
        m[i].memOperationType = CU_MEM_OPERATION_TYPE_MAP;
        m[i].memHandleType = CU_MEM_HANDLE_TYPE_GENERIC;
        m[i].memHandle.memHandle = h;
        m[i].deviceBitMask = 1;
    }
    m[0].subresourceType = CU_ARRAY_SPARSE_SUBRESOURCE_TYPE_SPARSE_LEVEL;
    m[0].subresource.sparseLevel.level = 1;
    m[0].subresource.sparseLevel.extentWidth = 128;
    m[0].subresource.sparseLevel.extentHeight = 128;
    m[0].subresource.sparseLevel.extentDepth = 1;
    m[1].subresourceType = CU_ARRAY_SPARSE_SUBRESOURCE_TYPE_MIPTAIL;
    m[1].subresource.miptail.size = TILE; /* 64 x 64 x 4 + 32 x 32 x 4 bytes */
    m[1].offset = 3 * TILE;
    /* the tail as a level, a tail past its size, a level's own handle */
    CUarrayMapInfo bad = m[0];
    bad.subresource.sparseLevel.level = 2;
    bad.subresource.sparseLevel.extentWidth = bad.subresource.sparseLevel.extentHeight = 64;
    EXPECT_RC(cuMemMapArrayAsync(&bad, 1, NULL), CUDA_ERROR_INVALID_VALUE);
    bad = m[1];
    bad.subresource.miptail.size = 2 * TILE;
    EXPECT_RC(cuMemMapArrayAsync(&bad, 1, NULL), CUDA_ERROR_INVALID_VALUE);
    bad = box(l1, 0, 0, 128, 128, h, 0);
    EXPECT_RC(cuMemMapArrayAsync(&bad, 1, NULL), CUDA_ERROR_INVALID_VALUE);

    OK(cuMemMapArrayAsync(m, 2, NULL));
    copy2d(l1, in, 128, 128, 1, NULL);
    copy2d(l2, in, 64, 64, 1, NULL);
    copy2d(l3, in, 32, 32, 1, NULL);
    int same = 1;
    copy2d(l1, got, 128, 128, 0, NULL);
    for (unsigned i = 0; i < 128 * 128; i++)
        same &= got[i] == in[i];
    copy2d(l2, got, 64, 64, 0, NULL);
    for (unsigned i = 0; i < 64 * 64; i++) /* rows of 64 out of in[] */
        same &= got[i] == in[i];
    copy2d(l3, got, 32, 32, 0, NULL);
    for (unsigned i = 0; i < 32 * 32; i++)
        same &= got[i] == in[i];
    EXPECT(same);
    /* the tail unmapped: levels 2 and 3 read 0, level 1 keeps its tile */
    m[1].memOperationType = CU_MEM_OPERATION_TYPE_UNMAP;
    m[1].memHandle.memHandle = 0;
    m[1].offset = 0;
    OK(cuMemMapArrayAsync(&m[1], 1, NULL));
    copy2d(l3, got, 32, 32, 0, NULL);
    zero = 1;
    for (unsigned i = 0; i < 32 * 32; i++)
        zero &= got[i] == 0;
    copy2d(l1, got, 128, 128, 0, NULL);
    for (unsigned i = 0; i < 128 * 128; i++)
        zero &= got[i] == in[i];
    EXPECT(zero);
    OK(cuMipmappedArrayDestroy(mm));
    OK(cuMemRelease(h));
}

/* 3D u8 64^3 (tiles 64 x 32 x 32): only z 32..63 mapped; layered u8
 * 256 x 256 x 2 (a tile a layer): only layer 1 mapped */
static void slices(void)
{
    CUmemGenericAllocationHandle h = pool(2u << 20, 1);
    static uint8_t in[64 * 64 * 64], got[64 * 64 * 64]; /* the larger of the two */
    for (unsigned layered = 0; layered < 2; layered++) {
        unsigned w = layered ? 256 : 64, hh = layered ? 256 : 64, dd = layered ? 2 : 64;
        CUDA_ARRAY3D_DESCRIPTOR d = desc(w, hh, dd, CU_AD_FORMAT_UNSIGNED_INT8, 1,
                                         layered ? CUDA_ARRAY3D_LAYERED : 0);
        CUarray a = NULL;
        OK(cuArray3DCreate(&a, &d));
        if (!a || !h)
            return;
        CUarrayMapInfo m = box(a, 0, 0, w, hh, h, TILE);
        if (layered) {
            m.subresource.sparseLevel.layer = 1;
        } else {
            m.subresource.sparseLevel.offsetZ = 32;
            m.subresource.sparseLevel.extentDepth = 32;
        }
        map1(m, NULL);
        size_t n = (size_t)w * hh * dd;
        for (size_t i = 0; i < n; i++)
            in[i] = (uint8_t)(i % 251 + 1);
        CUDA_MEMCPY3D c;
        memset(&c, 0, sizeof c);
        c.srcMemoryType = CU_MEMORYTYPE_HOST;
        c.srcHost = in;
        c.srcPitch = w;
        c.srcHeight = hh;
        c.dstMemoryType = CU_MEMORYTYPE_ARRAY;
        c.dstArray = a;
        c.WidthInBytes = w;
        c.Height = hh;
        c.Depth = dd;
        OK(cuMemcpy3D(&c));
        CUDA_MEMCPY3D r = c;
        r.srcMemoryType = CU_MEMORYTYPE_ARRAY;
        r.srcArray = a;
        r.srcHost = NULL;
        r.dstMemoryType = CU_MEMORYTYPE_HOST;
        r.dstArray = NULL;
        r.dstHost = got;
        r.dstPitch = w;
        r.dstHeight = hh;
        memset(got, 0xCD, n);
        OK(cuMemcpy3D(&r));
        int ok = 1;
        size_t half = n / 2; /* z < 32, or layer 0: not resident */
        for (size_t i = 0; i < n; i++)
            ok &= got[i] == (i < half ? 0 : in[i]);
        EXPECT(ok);
        OK(cuArrayDestroy(a));
    }
    OK(cuMemRelease(h));
}

/* cuMemMapArrayAsync's errors; nothing of a list with a bad entry is done */
static void map_misuse(void)
{
    CUDA_ARRAY3D_DESCRIPTOR d = desc(AW, AH, 0, CU_AD_FORMAT_UNSIGNED_INT32, 1, 0);
    CUarray a = NULL, plain = NULL;
    OK(cuArray3DCreate(&a, &d));
    d.Flags = 0;
    OK(cuArray3DCreate(&plain, &d));
    CUmemGenericAllocationHandle h = pool(2u << 20, 1), q = pool(2u << 20, 0);
    if (!a || !plain || !h || !q)
        return;
    const CUresult IV = CUDA_ERROR_INVALID_VALUE;
    CUarrayMapInfo m = box(a, 0, 0, T32, T32, h, 1000); /* pool offset not tile aligned */
    EXPECT_RC(cuMemMapArrayAsync(&m, 1, NULL), IV);
    m = box(a, 0, 0, 2 * T32, T32, h, (2u << 20) - TILE); /* past the pool's end */
    EXPECT_RC(cuMemMapArrayAsync(&m, 1, NULL), IV);
    m = box(a, 64, 0, T32, T32, h, 0); /* offset not tile aligned */
    EXPECT_RC(cuMemMapArrayAsync(&m, 1, NULL), IV);
    m = box(a, 0, 0, 100, T32, h, 0); /* extent neither whole tiles nor to the edge */
    EXPECT_RC(cuMemMapArrayAsync(&m, 1, NULL), IV);
    m = box(a, 0, 0, 3 * T32, T32, h, 0); /* past the array's edge */
    EXPECT_RC(cuMemMapArrayAsync(&m, 1, NULL), IV);
    m = box(a, 0, 0, T32, T32, h, 0);
    m.subresource.sparseLevel.extentDepth = 2; /* a 2D array */
    EXPECT_RC(cuMemMapArrayAsync(&m, 1, NULL), IV);
    m = box(a, 0, 0, T32, T32, h, 0);
    m.subresource.sparseLevel.layer = 1; /* not layered */
    EXPECT_RC(cuMemMapArrayAsync(&m, 1, NULL), IV);
    m = box(a, 0, 0, T32, T32, h, 0);
    m.memHandleType = (CUmemHandleType)1; /* wrong handle type */
    EXPECT_RC(cuMemMapArrayAsync(&m, 1, NULL), IV);
    m = box(a, 0, 0, T32, T32, q, 0); /* not a tile pool */
    EXPECT_RC(cuMemMapArrayAsync(&m, 1, NULL), IV);
    m = box(a, 0, 0, T32, T32, (CUmemGenericAllocationHandle)(uintptr_t)&drv_failures, 0);
    EXPECT_RC(cuMemMapArrayAsync(&m, 1, NULL), CUDA_ERROR_INVALID_HANDLE);
    m = box(a, 0, 0, T32, T32, 0, 0);
    m.memHandle.memHandle = h; /* unmap takes no handle */
    EXPECT_RC(cuMemMapArrayAsync(&m, 1, NULL), IV);
    m = box(a, 0, 0, T32, T32, h, 0);
    m.memOperationType = (CUmemOperationType)3;
    EXPECT_RC(cuMemMapArrayAsync(&m, 1, NULL), IV);
    m = box(a, 0, 0, T32, T32, h, 0);
    m.deviceBitMask = 2;
    EXPECT_RC(cuMemMapArrayAsync(&m, 1, NULL), IV);
    m = box(a, 0, 0, T32, T32, h, 0);
    m.flags = 1;
    EXPECT_RC(cuMemMapArrayAsync(&m, 1, NULL), IV);
    m = box(a, 0, 0, T32, T32, h, 0);
    m.subresourceType = CU_ARRAY_SPARSE_SUBRESOURCE_TYPE_MIPTAIL; /* a has no tail */
    m.subresource.miptail.size = TILE;
    EXPECT_RC(cuMemMapArrayAsync(&m, 1, NULL), IV);
    m = box(plain, 0, 0, T32, T32, h, 0); /* not sparse */
    EXPECT_RC(cuMemMapArrayAsync(&m, 1, NULL), IV);
    m = box((CUarray)&drv_failures, 0, 0, T32, T32, h, 0);
    EXPECT_RC(cuMemMapArrayAsync(&m, 1, NULL), CUDA_ERROR_INVALID_HANDLE);
    EXPECT_RC(cuMemMapArrayAsync(NULL, 1, NULL), IV);
    OK(cuMemMapArrayAsync(NULL, 0, NULL));
    /* a good entry, then a bad one: the first is not mapped either */
    CUarrayMapInfo two[2] = {box(a, 0, 0, T32, T32, h, 0), box(a, 0, 0, T32, T32, h, 1)};
    EXPECT_RC(cuMemMapArrayAsync(two, 2, NULL), IV);
    OK(cuCtxSynchronize());
    static uint32_t got[AH][AW];
    copy2d(a, &got[0][0], AW, AH, 0, NULL);
    EXPECT(got[0][0] == 0);
    OK(cuMemRelease(q));
    OK(cuMemRelease(h));
    OK(cuArrayDestroy(plain));
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
    OK(cuModuleLoadData(&mod_sample, sample_ptx));
    OK(cuModuleGetFunction(&fn_sample, mod_sample, "sample"));
    OK(cuModuleLoadData(&mod_fill, fill_ptx));
    OK(cuModuleGetFunction(&fn_fill, mod_fill, "fill"));
    OK(cuModuleLoadData(&mod_peek, peek_ptx));
    OK(cuModuleGetFunction(&fn_peek, mod_peek, "peek"));
    if (!fn_sample || !fn_fill || !fn_peek)
        return drv_test_end("drv_sparse");
    mapping();
    miptail();
    slices();
    map_misuse();
    misuse();
    OK(cuModuleUnload(mod_peek));
    OK(cuModuleUnload(mod_fill));
    OK(cuModuleUnload(mod_sample));
    OK(cuDevicePrimaryCtxRelease(dev));
    return drv_test_end("drv_sparse");
}
