/* texture.cu: texture objects on linear memory and CUDA arrays.
 *
 * Every fetch is checked against a CPU sampler written here from the CUDA
 * Programming Guide's "Texture Fetching" appendix: normalized coordinates
 * are wrapped/mirrored then scaled by the size, nearest-point sampling
 * reads T[floor(x)], linear filtering blends the texels around x - 0.5
 * with weights in 9-bit fixed point (8 fractional bits) and the 2D/3D
 * corner weights rounded to 1/256 as an H200 does (zt_corner_weights;
 * 3D within ZT_W3D_SLACK of a weight), out-of-range
 * texels are clamped or read the border colour. Cases: 1D linear memory
 * (tex1Dfetch), 2D float array point and linear with clamp/border/wrap/
 * mirror and normalized coordinates, uchar4 and short2 read as
 * normalized float, half with linear filtering, int4 element reads, tex3D, 1D and 2D layered, tex2Dgather. Outputs are
 * poisoned before each launch.
 */
#include "zn_test.h"
#include "zn_tex_test.h"
#include <cuda_fp16.h>
#include <math.h>

enum { W = 13, H = 7, D = 5, L = 3, N = 256 };

/* ---- the CPU reference ---------------------------------------------------- */

struct ref_tex {
    int dims, w, h, d;          /* d: depth (3D) */
    int nch;
    const float *t;             /* texel (x, y, z|layer) channel c at (((z*h)+y)*w+x)*4+c */
    int addr[3];                /* cudaTextureAddressMode */
    bool linear, normalized;
    float border[4];
};

static int ref_index(const ref_tex &r, int k, int i, bool *outside)
{
    int n = k == 0 ? r.w : k == 1 ? r.h : r.d;
    int mode = r.addr[k];
    if (!r.normalized && (mode == cudaAddressModeWrap || mode == cudaAddressModeMirror))
        mode = cudaAddressModeClamp;
    if (mode == cudaAddressModeBorder) {
        *outside |= i < 0 || i >= n;
        return i;
    }
    if (mode == cudaAddressModeWrap)
        return ((i % n) + n) % n;
    if (mode == cudaAddressModeMirror) {
        int p = ((i % (2 * n)) + 2 * n) % (2 * n);
        return p < n ? p : 2 * n - 1 - p;
    }
    return i < 0 ? 0 : i > n - 1 ? n - 1 : i;
}

static void ref_texel(const ref_tex &r, const int *i, int layer, float *out)
{
    bool outside = false;
    int x = ref_index(r, 0, i[0], &outside);
    int y = r.dims > 1 ? ref_index(r, 1, i[1], &outside) : 0;
    int z = r.dims > 2 ? ref_index(r, 2, i[2], &outside) : layer;
    for (int c = 0; c < 4; c++)
        out[c] = outside ? r.border[c] : r.t[(((size_t)z * r.h + y) * r.w + x) * 4 + c];
}

/* the coordinate in texels after wrap/mirror of a normalized coordinate */
static float ref_coord(const ref_tex &r, int k, float u)
{
    if (!r.normalized)
        return u;
    int n = k == 0 ? r.w : k == 1 ? r.h : r.d;
    if (r.addr[k] == cudaAddressModeWrap)
        u = u - floorf(u);
    else if (r.addr[k] == cudaAddressModeMirror) {
        float f = floorf(u);
        u = ((int)f % 2 == 0) ? u - f : 1.0f - (u - f);
    }
    return u * n;
}

static void ref_sample(const ref_tex &r, const float *u, int layer, float *out)
{
    float x[3];
    for (int k = 0; k < r.dims; k++)
        x[k] = ref_coord(r, k, u[k]);
    if (!r.linear) {
        int i[3];
        for (int k = 0; k < r.dims; k++)
            i[k] = (int)floorf(x[k]);
        ref_texel(r, i, layer, out);
        return;
    }
    int i0[3], a[3], w[8];
    for (int k = 0; k < r.dims; k++) {
        float xb = x[k] - 0.5f;
        i0[k] = (int)floorf(xb);
        a[k] = zt_w256(xb - floorf(xb)); /* 1.8 fixed point */
    }
    zt_corner_weights(r.dims, a, w);
    for (int c = 0; c < 4; c++)
        out[c] = 0;
    for (int corner = 0; corner < (1 << r.dims); corner++) {
        int i[3];
        float wgt = w[corner] / 256.0f;
        for (int k = 0; k < r.dims; k++)
            i[k] = i0[k] + (corner >> k & 1);
        float t[4];
        ref_texel(r, i, layer, t);
        for (int c = 0; c < 4; c++)
            out[c] += wgt * t[c];
    }
}

/* ---- kernels ----------------------------------------------------------------- */

__global__ void k_fetch1d(cudaTextureObject_t t, const int *idx, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = tex1Dfetch<float>(t, idx[i]);
}

/* keeps a stream busy (a dependent chain the compiler cannot fold) */
__global__ void k_busy(unsigned *sink, int iters)
{
    unsigned x = threadIdx.x + 1;
    for (int i = 0; i < iters; i++)
        x = x * 1664525u + 1013904223u;
    if (x == 0x12345678u)
        *sink = x;
}

__global__ void k_tex2d(cudaTextureObject_t t, const float2 *c, float4 *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = tex2D<float4>(t, c[i].x, c[i].y);
}

__global__ void k_tex2d_f1(cudaTextureObject_t t, const float2 *c, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = tex2D<float>(t, c[i].x, c[i].y);
}

__global__ void k_tex2d_int(cudaTextureObject_t t, const float2 *c, int4 *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = tex2D<int4>(t, c[i].x, c[i].y);
}

__global__ void k_tex2d_uc4(cudaTextureObject_t t, const float2 *c, uchar4 *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = tex2D<uchar4>(t, c[i].x, c[i].y);
}

__global__ void k_tex3d(cudaTextureObject_t t, const float4 *c, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = tex3D<float>(t, c[i].x, c[i].y, c[i].z);
}

__global__ void k_layered2d(cudaTextureObject_t t, const float4 *c, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = tex2DLayered<float>(t, c[i].x, c[i].y, (int)c[i].w);
}

__global__ void k_layered1d(cudaTextureObject_t t, const float4 *c, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = tex1DLayered<float>(t, c[i].x, (int)c[i].w);
}

__global__ void k_gather(cudaTextureObject_t t, const float2 *c, float4 *out, int n, int comp)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        switch (comp) {
        case 0: out[i] = tex2Dgather<float4>(t, c[i].x, c[i].y, 0); break;
        case 1: out[i] = tex2Dgather<float4>(t, c[i].x, c[i].y, 1); break;
        case 2: out[i] = tex2Dgather<float4>(t, c[i].x, c[i].y, 2); break;
        default: out[i] = tex2Dgather<float4>(t, c[i].x, c[i].y, 3); break;
        }
    }
}

/* ---- helpers ----------------------------------------------------------------- */

static uint32_t rng = 12345;
static float frand(float lo, float hi)
{
    rng = rng * 1664525u + 1013904223u;
    return lo + (hi - lo) * (float)(rng >> 8) / 16777216.0f;
}

template <typename T> static T *dev_alloc(size_t n)
{
    T *p;
    CK(cudaMalloc(&p, n * sizeof(T)));
    CK(cudaMemset(p, 0xff, n * sizeof(T))); /* poison */
    return p;
}

static bool close_to(float got, float want, float tol)
{
    return fabsf(got - want) <= tol * (1.0f + fabsf(want));
}

static cudaTextureObject_t make_tex(cudaArray_t a, cudaTextureAddressMode m0,
                                    cudaTextureAddressMode m1, cudaTextureAddressMode m2,
                                    cudaTextureFilterMode f, bool norm, cudaTextureReadMode rm,
                                    const float *border)
{
    cudaResourceDesc rd;
    memset(&rd, 0, sizeof rd);
    rd.resType = cudaResourceTypeArray;
    rd.res.array.array = a;
    cudaTextureDesc td;
    memset(&td, 0, sizeof td);
    td.addressMode[0] = m0;
    td.addressMode[1] = m1;
    td.addressMode[2] = m2;
    td.filterMode = f;
    td.readMode = rm;
    td.normalizedCoords = norm;
    if (border)
        memcpy(td.borderColor, border, sizeof td.borderColor);
    cudaTextureObject_t t;
    CK(cudaCreateTextureObject(&t, &rd, &td, NULL));
    return t;
}

/* 2D float4 array W x H, texels in ref layout */
static void test_2d_float4(void)
{
    static float host[W * H * 4];
    for (int i = 0; i < W * H * 4; i++)
        host[i] = frand(-4, 4);
    cudaChannelFormatDesc cd = cudaCreateChannelDesc<float4>();
    cudaArray_t a;
    CK(cudaMallocArray(&a, &cd, W, H));
    CK(cudaMemcpy2DToArray(a, 0, 0, host, W * sizeof(float4), W * sizeof(float4), H,
                           cudaMemcpyHostToDevice));
    /* the array reads back as written */
    static float back[W * H * 4];
    memset(back, 0, sizeof back);
    CK(cudaMemcpy2DFromArray(back, W * sizeof(float4), a, 0, 0, W * sizeof(float4), H,
                             cudaMemcpyDeviceToHost));
    if (memcmp(back, host, sizeof back))
        zt_fail("2D array copy round trip differs");

    float2 hc[N];
    float2 *dc = dev_alloc<float2>(N);
    float4 *dout = dev_alloc<float4>(N);
    float4 hout[N];
    const float border[4] = {0.25f, -0.5f, 0.75f, 1.5f};
    struct mode { const char *name; cudaTextureAddressMode m; cudaTextureFilterMode f; bool norm; };
    const mode modes[] = {
        {"point clamp", cudaAddressModeClamp, cudaFilterModePoint, false},
        {"linear clamp", cudaAddressModeClamp, cudaFilterModeLinear, false},
        {"point border", cudaAddressModeBorder, cudaFilterModePoint, false},
        {"linear border", cudaAddressModeBorder, cudaFilterModeLinear, false},
        {"linear wrap norm", cudaAddressModeWrap, cudaFilterModeLinear, true},
        {"point mirror norm", cudaAddressModeMirror, cudaFilterModePoint, true},
        {"linear mirror norm", cudaAddressModeMirror, cudaFilterModeLinear, true},
        {"linear clamp norm", cudaAddressModeClamp, cudaFilterModeLinear, true},
    };
    for (const mode &md : modes) {
        for (int i = 0; i < N; i++) {
            if (md.norm)
                hc[i] = make_float2(frand(-1.7f, 2.3f), frand(-1.2f, 2.1f));
            else
                hc[i] = make_float2(frand(-3, W + 3), frand(-3, H + 3));
            if (i < 16) /* texel centres and edges exactly */
                hc[i] = md.norm ? make_float2((i + 0.5f) / W, (i % H + 0.5f) / H)
                                : make_float2((float)i - 1.5f, (float)(i % H));
        }
        CK(cudaMemcpy(dc, hc, sizeof hc, cudaMemcpyHostToDevice));
        CK(cudaMemset(dout, 0xff, N * sizeof(float4)));
        cudaTextureObject_t t = make_tex(a, md.m, md.m, md.m, md.f, md.norm,
                                         cudaReadModeElementType, border);
        k_tex2d<<<(N + 63) / 64, 64>>>(t, dc, dout, N);
        CK_LAUNCH();
        CK(cudaMemcpy(hout, dout, sizeof hout, cudaMemcpyDeviceToHost));
        ref_tex r = {2, W, H, 1, 4, host, {md.m, md.m, md.m}, md.f == cudaFilterModeLinear,
                     md.norm, {border[0], border[1], border[2], border[3]}};
        for (int i = 0; i < N; i++) {
            float u[2] = {hc[i].x, hc[i].y}, want[4];
            ref_sample(r, u, 0, want);
            const float got[4] = {hout[i].x, hout[i].y, hout[i].z, hout[i].w};
            for (int c = 0; c < 4; c++)
                if (!close_to(got[c], want[c], 1e-5f))
                    zt_fail("2D %s at (%g, %g) channel %d: got %g want %g", md.name, u[0],
                            u[1], c, got[c], want[c]);
        }
        CK(cudaDestroyTextureObject(t));
    }
    CK(cudaFreeArray(a));
    CK(cudaFree(dc));
    CK(cudaFree(dout));
    printf("  2D float4: point/linear, clamp/border/wrap/mirror, normalized ok\n");
}

/* 1D linear memory, tex1Dfetch: integer indices, zeros outside */
static void test_fetch1d(void)
{
    const int n = 100;
    float host[n];
    for (int i = 0; i < n; i++)
        host[i] = frand(-10, 10);
    float *buf;
    CK(cudaMalloc(&buf, sizeof host));
    CK(cudaMemcpy(buf, host, sizeof host, cudaMemcpyHostToDevice));
    cudaResourceDesc rd;
    memset(&rd, 0, sizeof rd);
    rd.resType = cudaResourceTypeLinear;
    rd.res.linear.devPtr = buf;
    rd.res.linear.desc = cudaCreateChannelDesc<float>();
    rd.res.linear.sizeInBytes = sizeof host;
    cudaTextureDesc td;
    memset(&td, 0, sizeof td);
    td.readMode = cudaReadModeElementType;
    cudaTextureObject_t t;
    CK(cudaCreateTextureObject(&t, &rd, &td, NULL));
    int hidx[N];
    for (int i = 0; i < N; i++)
        hidx[i] = i % 7 == 3 ? n + i : i % 11 == 5 ? -i : i % n;
    int *didx = dev_alloc<int>(N);
    float *dout = dev_alloc<float>(N);
    CK(cudaMemcpy(didx, hidx, sizeof hidx, cudaMemcpyHostToDevice));
    k_fetch1d<<<N / 64, 64>>>(t, didx, dout, N);
    CK_LAUNCH();
    float hout[N];
    CK(cudaMemcpy(hout, dout, sizeof hout, cudaMemcpyDeviceToHost));
    for (int i = 0; i < N; i++) {
        float want = hidx[i] >= 0 && hidx[i] < n ? host[hidx[i]] : 0.0f;
        if (hout[i] != want)
            zt_fail("tex1Dfetch(%d): got %g want %g", hidx[i], hout[i], want);
    }
    /* destroyed right after an asynchronous launch that reads it, behind
     * a busy kernel on the same stream: the queued kernel still reads it
     * (CUDA's NV12toBGRandResize sample does this) */
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CK(cudaMemset(dout, 0xff, N * sizeof(float)));
    k_busy<<<1, 32, 0, s>>>((unsigned *)dout, 2000000);
    k_fetch1d<<<N / 64, 64, 0, s>>>(t, didx, dout, N);
    CK(cudaGetLastError());
    CK(cudaDestroyTextureObject(t));
    CK(cudaStreamSynchronize(s));
    CK(cudaStreamDestroy(s));
    CK(cudaMemcpy(hout, dout, sizeof hout, cudaMemcpyDeviceToHost));
    for (int i = 0; i < N; i++) {
        float want = hidx[i] >= 0 && hidx[i] < n ? host[hidx[i]] : 0.0f;
        if (hout[i] != want)
            zt_fail("tex1Dfetch(%d) behind a destroy: got %g want %g", hidx[i], hout[i], want);
    }
    CK(cudaFree(buf));
    CK(cudaFree(didx));
    CK(cudaFree(dout));
    printf("  tex1Dfetch on linear memory ok\n");
}

/* uchar4 read as normalized float, linear filtering; int4 element reads */
static void test_uchar4_int4(void)
{
    static uchar4 hu[W * H];
    static float ref[W * H * 4];
    for (int i = 0; i < W * H; i++) {
        unsigned char v[4];
        for (int c = 0; c < 4; c++) {
            v[c] = (unsigned char)(frand(0, 256));
            ref[i * 4 + c] = v[c] / 255.0f;
        }
        hu[i] = make_uchar4(v[0], v[1], v[2], v[3]);
    }
    cudaChannelFormatDesc cd = cudaCreateChannelDesc<uchar4>();
    cudaArray_t a;
    CK(cudaMallocArray(&a, &cd, W, H));
    CK(cudaMemcpy2DToArray(a, 0, 0, hu, W * sizeof(uchar4), W * sizeof(uchar4), H,
                           cudaMemcpyHostToDevice));
    cudaTextureObject_t t = make_tex(a, cudaAddressModeClamp, cudaAddressModeClamp,
                                     cudaAddressModeClamp, cudaFilterModeLinear, false,
                                     cudaReadModeNormalizedFloat, NULL);
    float2 hc[N];
    for (int i = 0; i < N; i++)
        hc[i] = make_float2(frand(-1, W + 1), frand(-1, H + 1));
    float2 *dc = dev_alloc<float2>(N);
    float4 *dout = dev_alloc<float4>(N);
    CK(cudaMemcpy(dc, hc, sizeof hc, cudaMemcpyHostToDevice));
    k_tex2d<<<N / 64, 64>>>(t, dc, dout, N);
    CK_LAUNCH();
    float4 hout[N];
    CK(cudaMemcpy(hout, dout, sizeof hout, cudaMemcpyDeviceToHost));
    ref_tex r = {2, W, H, 1, 4, ref, {1, 1, 1}, true, false, {0, 0, 0, 0}};
    for (int i = 0; i < N; i++) {
        float u[2] = {hc[i].x, hc[i].y}, want[4];
        ref_sample(r, u, 0, want);
        const float got[4] = {hout[i].x, hout[i].y, hout[i].z, hout[i].w};
        for (int c = 0; c < 4; c++)
            if (!close_to(got[c], want[c], 1e-5f))
                zt_fail("uchar4 normalized at (%g, %g) channel %d: got %g want %g", u[0], u[1],
                        c, got[c], want[c]);
    }
    CK(cudaDestroyTextureObject(t));

    /* the same array read as uchar4 elements: the bytes as stored */
    t = make_tex(a, cudaAddressModeBorder, cudaAddressModeBorder, cudaAddressModeBorder,
                 cudaFilterModePoint, false, cudaReadModeElementType, NULL);
    uchar4 *duc = dev_alloc<uchar4>(N);
    k_tex2d_uc4<<<N / 64, 64>>>(t, dc, duc, N);
    CK_LAUNCH();
    uchar4 huc[N];
    CK(cudaMemcpy(huc, duc, sizeof huc, cudaMemcpyDeviceToHost));
    for (int i = 0; i < N; i++) {
        int x = (int)floorf(hc[i].x), y = (int)floorf(hc[i].y);
        uchar4 w = x >= 0 && x < W && y >= 0 && y < H ? hu[y * W + x] : make_uchar4(0, 0, 0, 0);
        if (memcmp(&huc[i], &w, 4))
            zt_fail("uchar4 element at (%g, %g): got %d %d %d %d", hc[i].x, hc[i].y, huc[i].x,
                    huc[i].y, huc[i].z, huc[i].w);
    }
    CK(cudaDestroyTextureObject(t));
    CK(cudaFree(duc));
    CK(cudaFreeArray(a));

    /* int4 element reads, point sampling */
    static int4 hi[W * H];
    for (int i = 0; i < W * H; i++)
        hi[i] = make_int4(i * 3 - 50, -i, i * 1000003, 7 - i);
    cd = cudaCreateChannelDesc<int4>();
    CK(cudaMallocArray(&a, &cd, W, H));
    CK(cudaMemcpy2DToArray(a, 0, 0, hi, W * sizeof(int4), W * sizeof(int4), H,
                           cudaMemcpyHostToDevice));
    t = make_tex(a, cudaAddressModeClamp, cudaAddressModeClamp, cudaAddressModeClamp,
                 cudaFilterModePoint, false, cudaReadModeElementType, NULL);
    int4 *dio = dev_alloc<int4>(N);
    k_tex2d_int<<<N / 64, 64>>>(t, dc, dio, N);
    CK_LAUNCH();
    int4 hio[N];
    CK(cudaMemcpy(hio, dio, sizeof hio, cudaMemcpyDeviceToHost));
    for (int i = 0; i < N; i++) {
        int x = (int)floorf(hc[i].x), y = (int)floorf(hc[i].y);
        x = x < 0 ? 0 : x >= W ? W - 1 : x;
        y = y < 0 ? 0 : y >= H ? H - 1 : y;
        int4 w = hi[y * W + x];
        if (hio[i].x != w.x || hio[i].y != w.y || hio[i].z != w.z || hio[i].w != w.w)
            zt_fail("int4 at (%g, %g): got %d %d %d %d", hc[i].x, hc[i].y, hio[i].x, hio[i].y,
                    hio[i].z, hio[i].w);
    }
    CK(cudaDestroyTextureObject(t));
    CK(cudaFreeArray(a));
    CK(cudaFree(dc));
    CK(cudaFree(dout));
    CK(cudaFree(dio));
    printf("  uchar4 normalized float, uchar4 and int4 element reads ok\n");
}

/* short2 read as normalized float ([-1, 1]), half with linear filtering
 * (the blend rounded to the nearest half, as the H200's results were);
 * only the channels the formats have are compared */
static void test_short2_half(void)
{
    static short2 hs[W * H];
    static __half hh[W * H];
    static float rs[W * H * 4], rh[W * H * 4];
    for (int i = 0; i < W * H; i++) {
        short a = (short)frand(-32768, 32768), b = (short)frand(-32768, 32768);
        if (i == 0)
            a = -32768; /* reads -1, not below */
        hs[i] = make_short2(a, b);
        rs[i * 4] = fmaxf(a / 32767.0f, -1.0f);
        rs[i * 4 + 1] = fmaxf(b / 32767.0f, -1.0f);
        hh[i] = __float2half(frand(-100, 100));
        rh[i * 4] = __half2float(hh[i]);
    }
    struct {
        const char *name; cudaChannelFormatDesc cd; const void *src; size_t es; const float *ref;
        int nch; cudaTextureFilterMode f; cudaTextureReadMode rm;
    } cases[] = {
        {"short2", cudaCreateChannelDesc<short2>(), hs, sizeof(short2), rs, 2,
         cudaFilterModePoint, cudaReadModeNormalizedFloat},
        {"half", cudaCreateChannelDescHalf(), hh, sizeof(__half), rh, 1, cudaFilterModeLinear,
         cudaReadModeElementType},
    };
    float2 hc[N];
    for (int i = 0; i < N; i++)
        hc[i] = make_float2(frand(-1, W + 1), frand(-1, H + 1));
    float2 *dc = dev_alloc<float2>(N);
    float4 *dout = dev_alloc<float4>(N);
    CK(cudaMemcpy(dc, hc, sizeof hc, cudaMemcpyHostToDevice));
    for (auto &cs : cases) {
        cudaArray_t a;
        CK(cudaMallocArray(&a, &cs.cd, W, H));
        CK(cudaMemcpy2DToArray(a, 0, 0, cs.src, W * cs.es, W * cs.es, H,
                               cudaMemcpyHostToDevice));
        cudaTextureObject_t t = make_tex(a, cudaAddressModeClamp, cudaAddressModeClamp,
                                         cudaAddressModeClamp, cs.f, false, cs.rm, NULL);
        CK(cudaMemset(dout, 0xff, N * sizeof(float4)));
        k_tex2d<<<N / 64, 64>>>(t, dc, dout, N);
        CK_LAUNCH();
        float4 hout[N];
        CK(cudaMemcpy(hout, dout, sizeof hout, cudaMemcpyDeviceToHost));
        ref_tex r = {2, W, H, 1, cs.nch, cs.ref, {1, 1, 1}, cs.f == cudaFilterModeLinear, false,
                     {0, 0, 0, 0}};
        for (int i = 0; i < N; i++) {
            float u[2] = {hc[i].x, hc[i].y}, want[4];
            ref_sample(r, u, 0, want);
            if (cs.cd.f == cudaChannelFormatKindFloat) /* half: filtered to half (H200) */
                for (int c = 0; c < cs.nch; c++)
                    want[c] = __half2float(__float2half(want[c]));
            const float got[4] = {hout[i].x, hout[i].y, hout[i].z, hout[i].w};
            for (int c = 0; c < cs.nch; c++)
                if (!close_to(got[c], want[c], 1e-5f))
                    zt_fail("%s at (%g, %g) channel %d: got %g want %g", cs.name, u[0], u[1],
                            c, got[c], want[c]);
        }
        CK(cudaDestroyTextureObject(t));
        CK(cudaFreeArray(a));
    }
    CK(cudaFree(dc));
    CK(cudaFree(dout));
    printf("  short2 normalized float, half linear ok\n");
}

/* tex3D with linear filtering; 1D and 2D layered textures */
static void test_3d_layered(void)
{
    static float h3[W * H * D], r3[W * H * D * 4];
    for (int i = 0; i < W * H * D; i++) {
        h3[i] = frand(-2, 2);
        r3[i * 4] = h3[i];
        r3[i * 4 + 1] = r3[i * 4 + 2] = 0;
        r3[i * 4 + 3] = 1;
    }
    cudaChannelFormatDesc cd = cudaCreateChannelDesc<float>();
    float4 hc[N];
    float4 *dc = dev_alloc<float4>(N);
    float *dout = dev_alloc<float>(N);
    float hout[N];
    struct { const char *name; unsigned flags; cudaExtent e; int dims; } cases[] = {
        {"3D", 0, make_cudaExtent(W, H, D), 3},
        {"2D layered", cudaArrayLayered, make_cudaExtent(W, H, L), 2},
        {"1D layered", cudaArrayLayered, make_cudaExtent(W, 0, L), 1},
    };
    for (auto &cs : cases) {
        cudaArray_t a;
        CK(cudaMalloc3DArray(&a, &cd, cs.e, cs.flags));
        size_t rows = cs.e.height ? cs.e.height : 1;
        cudaMemcpy3DParms p;
        memset(&p, 0, sizeof p);
        p.srcPtr = make_cudaPitchedPtr(h3, W * sizeof(float), W, rows);
        p.dstArray = a;
        p.extent = make_cudaExtent(W, rows, cs.e.depth);
        p.kind = cudaMemcpyHostToDevice;
        CK(cudaMemcpy3D(&p));
        /* the reference reads slice/layer z of rows x W texels */
        static float rl[W * H * D * 4];
        for (size_t z = 0; z < cs.e.depth; z++)
            for (size_t y = 0; y < rows; y++)
                for (int x = 0; x < W; x++)
                    for (int c = 0; c < 4; c++)
                        rl[((z * rows + y) * W + x) * 4 + c] =
                            r3[((z * rows + y) * W + x) * 4 + c];
        cudaTextureObject_t t = make_tex(a, cudaAddressModeClamp, cudaAddressModeBorder,
                                         cudaAddressModeClamp, cudaFilterModeLinear, false,
                                         cudaReadModeElementType, NULL);
        for (int i = 0; i < N; i++)
            hc[i] = make_float4(frand(-1, W + 1), frand(-1, H + 1), frand(-1, D + 1),
                                (float)(i % L));
        CK(cudaMemcpy(dc, hc, sizeof hc, cudaMemcpyHostToDevice));
        CK(cudaMemset(dout, 0xff, N * sizeof(float)));
        if (cs.dims == 3)
            k_tex3d<<<N / 64, 64>>>(t, dc, dout, N);
        else if (cs.dims == 2)
            k_layered2d<<<N / 64, 64>>>(t, dc, dout, N);
        else
            k_layered1d<<<N / 64, 64>>>(t, dc, dout, N);
        CK_LAUNCH();
        CK(cudaMemcpy(hout, dout, sizeof hout, cudaMemcpyDeviceToHost));
        ref_tex r = {cs.dims, W, (int)rows, (int)cs.e.depth, 1, rl,
                     {cudaAddressModeClamp, cudaAddressModeBorder, cudaAddressModeClamp},
                     true, false, {0, 0, 0, 0}};
        for (int i = 0; i < N; i++) {
            float u[3] = {hc[i].x, hc[i].y, hc[i].z}, want[4];
            ref_sample(r, u, cs.dims == 3 ? 0 : (int)hc[i].w, want);
            /* 3D: the H200's weights are within ZT_W3D_SLACK of the model's
             * (texels in [-2, 2]: a few slack steps of 4) */
            float tol = cs.dims == 3 ? (float)(8 * ZT_W3D_SLACK) : 1e-5f;
            if (!close_to(hout[i], want[0], tol))
                zt_fail("%s at (%g, %g, %g | %g): got %g want %g", cs.name, u[0], u[1], u[2],
                        hc[i].w, hout[i], want[0]);
        }
        CK(cudaDestroyTextureObject(t));
        CK(cudaFreeArray(a));
    }
    CK(cudaFree(dc));
    CK(cudaFree(dout));
    printf("  tex3D, 1D and 2D layered ok\n");
}

/* tex2Dgather: component c of the 2x2 footprint, in the order
 * (i, j+1), (i+1, j+1), (i+1, j), (i, j) around (x - 0.5, y - 0.5) */
static void test_gather(void)
{
    static float host[W * H * 4];
    for (int i = 0; i < W * H * 4; i++)
        host[i] = frand(0, 100);
    cudaChannelFormatDesc cd = cudaCreateChannelDesc<float4>();
    cudaArray_t a;
    CK(cudaMallocArray(&a, &cd, W, H, cudaArrayTextureGather));
    CK(cudaMemcpy2DToArray(a, 0, 0, host, W * sizeof(float4), W * sizeof(float4), H,
                           cudaMemcpyHostToDevice));
    cudaTextureObject_t t = make_tex(a, cudaAddressModeClamp, cudaAddressModeClamp,
                                     cudaAddressModeClamp, cudaFilterModePoint, false,
                                     cudaReadModeElementType, NULL);
    float2 hc[N];
    for (int i = 0; i < N; i++)
        hc[i] = make_float2(frand(-1, W + 1), frand(-1, H + 1));
    float2 *dc = dev_alloc<float2>(N);
    float4 *dout = dev_alloc<float4>(N);
    CK(cudaMemcpy(dc, hc, sizeof hc, cudaMemcpyHostToDevice));
    ref_tex r = {2, W, H, 1, 4, host, {1, 1, 1}, false, false, {0, 0, 0, 0}};
    for (int comp = 0; comp < 4; comp++) {
        CK(cudaMemset(dout, 0xff, N * sizeof(float4)));
        k_gather<<<N / 64, 64>>>(t, dc, dout, N, comp);
        CK_LAUNCH();
        float4 hout[N];
        CK(cudaMemcpy(hout, dout, sizeof hout, cudaMemcpyDeviceToHost));
        for (int i = 0; i < N; i++) {
            int x = (int)floorf(hc[i].x - 0.5f), y = (int)floorf(hc[i].y - 0.5f);
            const int at[4][2] = {{x, y + 1}, {x + 1, y + 1}, {x + 1, y}, {x, y}};
            const float got[4] = {hout[i].x, hout[i].y, hout[i].z, hout[i].w};
            for (int k = 0; k < 4; k++) {
                float want[4];
                ref_texel(r, at[k], 0, want);
                if (got[k] != want[comp])
                    zt_fail("gather comp %d at (%g, %g) [%d]: got %g want %g", comp, hc[i].x,
                            hc[i].y, k, got[k], want[comp]);
            }
        }
    }
    CK(cudaDestroyTextureObject(t));
    CK(cudaFreeArray(a));
    CK(cudaFree(dc));
    CK(cudaFree(dout));
    printf("  tex2Dgather ok\n");
}

int main(void)
{
    zt_begin("texture");
    test_fetch1d();
    test_2d_float4();
    test_uchar4_int4();
    test_short2_half();
    test_3d_layered();
    test_gather();
    return zt_finish();
}
