/* texture_mip.cu: mipmapped arrays (tex1DLod, tex2DLod, tex3DLod,
 * tex2DLayeredLod, tex1DGrad, tex2DGrad, tex2DLayeredGrad,
 * txq.level.width/height; not txq.num_mipmap_levels, whose kernels an H200 does not launch), cubemaps (texCubemap,
 * texCubemapLayered, texCubemapLod/Grad on a mipmapped cubemap), and
 * formatted surface stores (inline-PTX sust.p: values converted to the
 * array's format, read back with cudaMemcpy2DFromArray).
 *
 * Every fetch is checked against a CPU sampler written here: within a
 * level as in texture.cu (CUDA Programming Guide, "Texture Fetching":
 * normalized coordinates scaled by the level's size, point reads
 * T[floor(x)], linear blends the texels around x - 0.5 with 9-bit fixed
 * point weights, clamp addressing). Between levels: the LOD (tex2DLod's
 * operand; for the Grad functions the H200's LOD of the gradients,
 * zt_grad_lod, within its ZT_GRAD_SLACK) plus the bias, clamped to
 * [minMipmapLevelClamp, maxMipmapLevelClamp] and to the levels there are;
 * the point mip filter samples the nearest level, the linear one blends
 * the two levels around the LOD with the LOD's fraction truncated to
 * 1/256 (H200). Cubemaps: the
 * face of the direction's major axis and the (s/m + 1) / 2, (t/m + 1) / 2
 * face coordinates of the guide's cubemap table. Outputs are poisoned
 * before each launch.
 */
#include "zn_test.h"
#include "zn_tex_test.h"
#include <cuda_fp16.h>
#include <math.h>

enum { W0 = 16, H0 = 8, LEVELS = 5, N = 256, CW = 5 };

/* ---- CPU reference --------------------------------------------------------- */

struct level {
    int w, h;
    float *t;                   /* w * h floats, row-major */
};

static float texel(const level &l, int x, int y)
{
    x = x < 0 ? 0 : x >= l.w ? l.w - 1 : x; /* clamp addressing */
    y = y < 0 ? 0 : y >= l.h ? l.h - 1 : y;
    return l.t[y * l.w + x];
}

/* normalized (u, v) on one level; h == 1 with v = 0.5 serves 1D */
static float ref_level(const level &l, float u, float v, bool linear)
{
    float x = u * l.w, y = v * l.h;
    if (!linear)
        return texel(l, (int)floorf(x), (int)floorf(y));
    float xb = x - 0.5f, yb = y - 0.5f;
    int i = (int)floorf(xb), j = (int)floorf(yb);
    int w[4];
    zt_w2(zt_w256(xb - floorf(xb)), zt_w256(yb - floorf(yb)), w); /* as an H200 */
    return (w[0] * texel(l, i, j) + w[1] * texel(l, i + 1, j) + w[2] * texel(l, i, j + 1) +
            w[3] * texel(l, i + 1, j + 1)) / 256.0f;
}

struct mip_cfg {
    bool linear, mip_linear;
    float bias, minc, maxc;
};

static float ref_mip(const level *lv, int n, const mip_cfg &c, float u, float v, float lod)
{
    lod += c.bias;
    lod = fminf(fmaxf(lod, c.minc), c.maxc);
    lod = fminf(fmaxf(lod, 0.0f), (float)(n - 1));
    if (!c.mip_linear)
        return ref_level(lv[(int)floorf(lod + 0.5f)], u, v, c.linear);
    int l0 = (int)floorf(lod);
    float w = zt_mip_weight(lod - l0);
    float s0 = ref_level(lv[l0], u, v, c.linear);
    if (w == 0.0f || l0 + 1 >= n)
        return s0;
    return (1 - w) * s0 + w * ref_level(lv[l0 + 1], u, v, c.linear);
}

static bool close_to(float got, float want, float tol);

/* A tex.grad result: ref_mip at zt_grad_lod's LOD (a multiple of 1/256),
 * or within ZT_GRAD_SLACK steps of it, as far as the H200's LOD is from
 * the model (2/256). *want: the model's value. */
static bool grad_ok(float got, const level *lv, int n, const mip_cfg &c, float u, float v,
                    float lod, float *want)
{
    *want = ref_mip(lv, n, c, u, v, lod);
    for (int d = -ZT_GRAD_SLACK; d <= ZT_GRAD_SLACK; d++)
        if (close_to(got, ref_mip(lv, n, c, u, v, lod + d / 256.0f), 1e-5f))
            return true;
    return false;
}

/* ---- kernels ------------------------------------------------------------------ */

__global__ void k_lod2d(cudaTextureObject_t t, const float4 *c, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = tex2DLod<float>(t, c[i].x, c[i].y, c[i].z);
}

__global__ void k_grad2d(cudaTextureObject_t t, const float2 *c, const float4 *g, float *out,
                         int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = tex2DGrad<float>(t, c[i].x, c[i].y, make_float2(g[i].x, g[i].y),
                                  make_float2(g[i].z, g[i].w));
}

__global__ void k_lod1d(cudaTextureObject_t t, const float2 *c, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = tex1DLod<float>(t, c[i].x, c[i].y);
}

__global__ void k_grad1d(cudaTextureObject_t t, const float4 *c, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = tex1DGrad<float>(t, c[i].x, c[i].y, c[i].z);
}

/* out[0]: the level count; out[1 + 2l], out[2 + 2l]: width, height of level l */
__global__ void k_levels(cudaTextureObject_t t, unsigned *out, int n)
{
    /* no txq.num_mipmap_levels: on an H200 (driver 580.159.04) a kernel
     * holding it fails to launch, cudaErrorSymbolNotFound (500), though
     * ptxas takes it; txq.level works */
    out[0] = (unsigned)n;
    for (int l = 0; l < n; l++) {
        unsigned w, h;
        asm volatile("txq.level.width.b32 %0, [%1], %2;" : "=r"(w) : "l"(t), "r"(l));
        asm volatile("txq.level.height.b32 %0, [%1], %2;" : "=r"(h) : "l"(t), "r"(l));
        out[1 + 2 * l] = w;
        out[2 + 2 * l] = h;
    }
}

__global__ void k_cube(cudaTextureObject_t t, const float4 *c, float *out, int n, int layered)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = layered ? texCubemapLayered<float>(t, c[i].x, c[i].y, c[i].z, (int)c[i].w)
                         : texCubemap<float>(t, c[i].x, c[i].y, c[i].z);
}

__global__ void k_lod3d(cudaTextureObject_t t, const float4 *c, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = tex3DLod<float>(t, c[i].x, c[i].y, c[i].z, c[i].w);
}

__global__ void k_cube_lod(cudaTextureObject_t t, const float4 *c, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = texCubemapLod<float>(t, c[i].x, c[i].y, c[i].z, c[i].w);
}

/* sust.p: formatted stores of 32-bit values (float for float/half arrays,
 * integers for integer ones); x counts elements, not bytes */
__global__ void k_sustp4(cudaSurfaceObject_t s, const uint4 *v, int w, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        asm volatile("sust.p.2d.v4.b32.trap [%0, {%1, %2}], {%3, %4, %5, %6};"
                     :: "l"(s), "r"(i % w), "r"(i / w), "r"(v[i].x), "r"(v[i].y), "r"(v[i].z),
                        "r"(v[i].w) : "memory");
}

__global__ void k_sustp2(cudaSurfaceObject_t s, const uint4 *v, int w, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        asm volatile("sust.p.2d.v2.b32.trap [%0, {%1, %2}], {%3, %4};"
                     :: "l"(s), "r"(i % w), "r"(i / w), "r"(v[i].x), "r"(v[i].y) : "memory");
}

/* c: x, y, layer, lod; g: dPdx, dPdy */
__global__ void k_layered_lod(cudaTextureObject_t t, const float4 *c, const float4 *g,
                              float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = tex2DLayeredLod<float>(t, c[i].x, c[i].y, (int)c[i].z, c[i].w);
        out[n + i] = tex2DLayeredGrad<float>(t, c[i].x, c[i].y, (int)c[i].z,
                                             make_float2(g[i].x, g[i].y),
                                             make_float2(g[i].z, g[i].w));
    }
}

/* fills level l through a surface, value 1000 l + 10 y + x */
__global__ void k_fill_level(cudaSurfaceObject_t s, int w, int h, int l)
{
    int x = threadIdx.x, y = blockIdx.x;
    if (x < w && y < h)
        surf2Dwrite(1000.0f * l + 10.0f * y + x, s, x * (int)sizeof(float), y);
}

__global__ void k_cube_grad(cudaTextureObject_t t, const float4 *c, const float4 *gx,
                            const float4 *gy, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = texCubemapGrad<float>(t, c[i].x, c[i].y, c[i].z, gx[i], gy[i]);
}

/* ---- helpers --------------------------------------------------------------------- */

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

static cudaSurfaceObject_t make_surf(cudaArray_t a)
{
    cudaResourceDesc rd;
    memset(&rd, 0, sizeof rd);
    rd.resType = cudaResourceTypeArray;
    rd.res.array.array = a;
    cudaSurfaceObject_t s;
    CK(cudaCreateSurfaceObject(&s, &rd));
    return s;
}

static cudaTextureObject_t make_mip_tex(cudaMipmappedArray_t m, const mip_cfg &c)
{
    cudaTextureDesc td;
    memset(&td, 0, sizeof td);
    td.addressMode[0] = td.addressMode[1] = cudaAddressModeClamp;
    td.filterMode = c.linear ? cudaFilterModeLinear : cudaFilterModePoint;
    td.mipmapFilterMode = c.mip_linear ? cudaFilterModeLinear : cudaFilterModePoint;
    td.mipmapLevelBias = c.bias;
    td.minMipmapLevelClamp = c.minc;
    td.maxMipmapLevelClamp = c.maxc;
    td.readMode = cudaReadModeElementType;
    td.normalizedCoords = 1;
    cudaTextureObject_t t = zt_mip_texture(m, &td);
    return t;
}

static const mip_cfg cfgs[] = {
    {false, false, 0.0f, 0.0f, LEVELS - 1},
    {true, false, 0.0f, 0.0f, LEVELS - 1},
    {false, true, 0.0f, 0.0f, LEVELS - 1},
    {true, true, 0.0f, 0.0f, LEVELS - 1},
    {true, true, 0.5f, 0.75f, 2.5f}, /* bias and both clamps */
};

/* ---- 2D mipmapped float array ------------------------------------------------------ */

static void test_mip2d(void)
{
    static float store[LEVELS][W0 * H0];
    level lv[LEVELS];
    cudaChannelFormatDesc cd = cudaCreateChannelDesc<float>();
    cudaMipmappedArray_t m;
    CK(cudaMallocMipmappedArray(&m, &cd, make_cudaExtent(W0, H0, 0), LEVELS, 0));
    for (int l = 0; l < LEVELS; l++) {
        int w = W0 >> l > 0 ? W0 >> l : 1, h = H0 >> l > 0 ? H0 >> l : 1;
        lv[l] = {w, h, store[l]};
        for (int i = 0; i < w * h; i++)
            store[l][i] = zt_randf(-8, 8) + 100.0f * l; /* levels far apart */
        cudaArray_t a;
        CK(cudaGetMipmappedArrayLevel(&a, m, l));
        cudaChannelFormatDesc got_cd;
        cudaExtent ext;
        unsigned flags;
        CK(cudaArrayGetInfo(&got_cd, &ext, &flags, a));
        if ((int)ext.width != w || (int)ext.height != h || got_cd.x != 32)
            zt_fail("level %d is %zux%zu (%d bits), want %dx%d", l, ext.width, ext.height,
                    got_cd.x, w, h);
        CK(cudaMemcpy2DToArray(a, 0, 0, store[l], w * sizeof(float), w * sizeof(float), h,
                               cudaMemcpyHostToDevice));
        static float back[W0 * H0];
        memset(back, 0, sizeof back);
        CK(cudaMemcpy2DFromArray(back, w * sizeof(float), a, 0, 0, w * sizeof(float), h,
                                 cudaMemcpyDeviceToHost));
        if (memcmp(back, store[l], w * h * sizeof(float)))
            zt_fail("level %d copy round trip differs", l);
    }
    cudaArray_t past;
    if (cudaGetMipmappedArrayLevel(&past, m, LEVELS) == cudaSuccess)
        zt_fail("cudaGetMipmappedArrayLevel accepted level %d of %d", LEVELS, LEVELS);
    (void)cudaGetLastError();

    float4 hc[N];
    float2 hc2[N];
    float4 hg[N];
    float hout[N];
    float4 *dc = dev_alloc<float4>(N);
    float2 *dc2 = dev_alloc<float2>(N);
    float4 *dg = dev_alloc<float4>(N);
    float *dout = dev_alloc<float>(N);
    unsigned *dn = dev_alloc<unsigned>(1 + 2 * LEVELS);
    for (const mip_cfg &c : cfgs) {
        cudaTextureObject_t t = make_mip_tex(m, c);
        /* tex2DLod: integer LODs, fractions, below 0 and past the last level */
        for (int i = 0; i < N; i++) {
            float lod = i < 32 ? (float)(i % 7) - 1.0f : zt_randf(-1.5f, 6.0f);
            hc[i] = make_float4(zt_randf(-0.1f, 1.1f), zt_randf(-0.1f, 1.1f), lod, 0);
        }
        CK(cudaMemcpy(dc, hc, sizeof hc, cudaMemcpyHostToDevice));
        CK(cudaMemset(dout, 0xff, N * sizeof(float)));
        k_lod2d<<<N / 64, 64>>>(t, dc, dout, N);
        CK_LAUNCH();
        CK(cudaMemcpy(hout, dout, sizeof hout, cudaMemcpyDeviceToHost));
        for (int i = 0; i < N; i++) {
            float want = ref_mip(lv, LEVELS, c, hc[i].x, hc[i].y, hc[i].z);
            if (!close_to(hout[i], want, 1e-5f))
                zt_fail("tex2DLod (lin %d, mip lin %d, bias %g) at (%g, %g) lod %g: got %g "
                        "want %g", c.linear, c.mip_linear, c.bias, hc[i].x, hc[i].y, hc[i].z,
                        hout[i], want);
        }
        /* tex2DGrad: the H200's LOD of the gradients in level-0 texels */
        for (int i = 0; i < N; i++) {
            hc2[i] = make_float2(zt_randf(0.0f, 1.0f), zt_randf(0.0f, 1.0f));
            float s = exp2f(zt_randf(-2.0f, 5.0f)) / W0;
            hg[i] = make_float4(s * zt_randf(-1, 1), s * zt_randf(-1, 1),
                                s * zt_randf(-1, 1), s * zt_randf(-1, 1));
        }
        CK(cudaMemcpy(dc2, hc2, sizeof hc2, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(dg, hg, sizeof hg, cudaMemcpyHostToDevice));
        CK(cudaMemset(dout, 0xff, N * sizeof(float)));
        k_grad2d<<<N / 64, 64>>>(t, dc2, dg, dout, N);
        CK_LAUNCH();
        CK(cudaMemcpy(hout, dout, sizeof hout, cudaMemcpyDeviceToHost));
        for (int i = 0; i < N; i++) {
            float xx = hg[i].x * W0, xy = hg[i].y * H0, yx = hg[i].z * W0, yy = hg[i].w * H0;
            float lod = zt_grad_lod(xx, xy, yx, yy), want;
            if (!grad_ok(hout[i], lv, LEVELS, c, hc2[i].x, hc2[i].y, lod, &want))
                zt_fail("tex2DGrad (lin %d, mip lin %d) at (%g, %g) lod %g: got %g want %g",
                        c.linear, c.mip_linear, hc2[i].x, hc2[i].y, lod, hout[i], want);
        }
        CK(cudaMemset(dn, 0xff, (1 + 2 * LEVELS) * sizeof(unsigned)));
        k_levels<<<1, 1>>>(t, dn, LEVELS);
        CK_LAUNCH();
        unsigned q[1 + 2 * LEVELS];
        CK(cudaMemcpy(q, dn, sizeof q, cudaMemcpyDeviceToHost));
        for (int l = 0; l < LEVELS; l++)
            if (q[1 + 2 * l] != (unsigned)lv[l].w || q[2 + 2 * l] != (unsigned)lv[l].h)
                zt_fail("txq.level %d: %ux%u, want %dx%d", l, q[1 + 2 * l], q[2 + 2 * l],
                        lv[l].w, lv[l].h);
        CK(cudaDestroyTextureObject(t));
    }
    CK(cudaFreeMipmappedArray(m));
    CK(cudaFree(dc));
    CK(cudaFree(dc2));
    CK(cudaFree(dg));
    CK(cudaFree(dout));
    CK(cudaFree(dn));
    printf("  2D mipmapped: tex2DLod, tex2DGrad, point/linear in and between levels, bias "
           "and clamps, txq ok\n");
}

/* ---- 1D mipmapped float array ---------------------------------------------------- */

static void test_mip1d(void)
{
    enum { W1 = 32, L1 = 6 };
    static float store[L1][W1];
    level lv[L1];
    cudaChannelFormatDesc cd = cudaCreateChannelDesc<float>();
    cudaMipmappedArray_t m;
    CK(cudaMallocMipmappedArray(&m, &cd, make_cudaExtent(W1, 0, 0), L1, 0));
    for (int l = 0; l < L1; l++) {
        int w = W1 >> l;
        lv[l] = {w, 1, store[l]};
        for (int i = 0; i < w; i++)
            store[l][i] = zt_randf(-1, 1) - 10.0f * l;
        cudaArray_t a;
        CK(cudaGetMipmappedArrayLevel(&a, m, l));
        CK(cudaMemcpy2DToArray(a, 0, 0, store[l], w * sizeof(float), w * sizeof(float), 1,
                               cudaMemcpyHostToDevice));
    }
    const mip_cfg c = {true, true, 0.0f, 0.0f, L1 - 1};
    cudaTextureObject_t t = make_mip_tex(m, c);
    float2 hc[N];
    float hout[N];
    float2 *dc = dev_alloc<float2>(N);
    float *dout = dev_alloc<float>(N);
    for (int i = 0; i < N; i++)
        hc[i] = make_float2(zt_randf(-0.1f, 1.1f), zt_randf(-0.5f, 6.5f));
    CK(cudaMemcpy(dc, hc, sizeof hc, cudaMemcpyHostToDevice));
    k_lod1d<<<N / 64, 64>>>(t, dc, dout, N);
    CK_LAUNCH();
    CK(cudaMemcpy(hout, dout, sizeof hout, cudaMemcpyDeviceToHost));
    for (int i = 0; i < N; i++) {
        float want = ref_mip(lv, L1, c, hc[i].x, 0.5f, hc[i].y);
        if (!close_to(hout[i], want, 1e-5f))
            zt_fail("tex1DLod at %g lod %g: got %g want %g", hc[i].x, hc[i].y, hout[i], want);
    }
    /* tex1DGrad: the H200's 2D LOD rule with zero y components (its 2D
     * rule measured; 1D assumed to follow it) */
    float4 hg[N];
    float4 *dg = dev_alloc<float4>(N);
    for (int i = 0; i < N; i++)
        hg[i] = make_float4(zt_randf(0, 1), exp2f(zt_randf(-2, 7)) / W1 * zt_randf(-1, 1),
                            exp2f(zt_randf(-2, 7)) / W1 * zt_randf(-1, 1), 0);
    CK(cudaMemcpy(dg, hg, sizeof hg, cudaMemcpyHostToDevice));
    CK(cudaMemset(dout, 0xff, N * sizeof(float)));
    k_grad1d<<<N / 64, 64>>>(t, dg, dout, N);
    CK_LAUNCH();
    CK(cudaMemcpy(hout, dout, sizeof hout, cudaMemcpyDeviceToHost));
    for (int i = 0; i < N; i++) {
        float gx = hg[i].y * W1, gy = hg[i].z * W1;
        float lod = zt_grad_lod(gx, 0.0f, gy, 0.0f), want;
        if (!grad_ok(hout[i], lv, L1, c, hg[i].x, 0.5f, lod, &want))
            zt_fail("tex1DGrad at %g grads %g %g: got %g want %g", hg[i].x, hg[i].y, hg[i].z,
                    hout[i], want);
    }
    CK(cudaDestroyTextureObject(t));
    CK(cudaFreeMipmappedArray(m));
    CK(cudaFree(dc));
    CK(cudaFree(dg));
    CK(cudaFree(dout));
    printf("  1D mipmapped: tex1DLod, tex1DGrad trilinear ok\n");
}

/* ---- cubemaps ---------------------------------------------------------------------- */

/* The guide's cubemap table: face, then s, t over the major axis m. */
static int ref_face(float x, float y, float z, float *u, float *v)
{
    float ax = fabsf(x), ay = fabsf(y), az = fabsf(z), m, s, t;
    int f;
    if (ax > ay && ax > az) {
        m = ax;
        f = x >= 0 ? 0 : 1;
        s = x >= 0 ? -z : z;
        t = -y;
    } else if (ay > ax && ay > az) {
        m = ay;
        f = y >= 0 ? 2 : 3;
        s = x;
        t = y >= 0 ? z : -z;
    } else {
        m = az;
        f = z >= 0 ? 4 : 5;
        s = z >= 0 ? x : -x;
        t = -y;
    }
    *u = (s / m + 1) / 2;
    *v = (t / m + 1) / 2;
    return f;
}

/* m, s, t of vector (x, y, z) on face f, per the guide's table */
static void ref_mst(int f, float x, float y, float z, float *m, float *s, float *t)
{
    switch (f) {
    case 0: *m = x, *s = -z, *t = -y; break;
    case 1: *m = -x, *s = z, *t = -y; break;
    case 2: *m = y, *s = x, *t = z; break;
    case 3: *m = -y, *s = x, *t = -z; break;
    case 4: *m = z, *s = x, *t = -y; break;
    default: *m = -z, *s = -x, *t = -y; break;
    }
}

static void test_cube(bool layered_cube)
{
    const int cubes = layered_cube ? 2 : 1, layers = 6 * cubes;
    static float store[12][CW * CW];
    for (int f = 0; f < layers; f++)
        for (int i = 0; i < CW * CW; i++)
            store[f][i] = 1000.0f * f + zt_randf(-10, 10); /* a face shows in the value */
    cudaArray_t a = zt_cube_upload(&store[0][0], CW, layers, layered_cube);
    float4 hc[N];
    float hout[N];
    float4 *dc = dev_alloc<float4>(N);
    float *dout = dev_alloc<float>(N);
    for (int lin = 0; lin < 2; lin++) {
        cudaTextureDesc td;
        memset(&td, 0, sizeof td);
        td.addressMode[0] = td.addressMode[1] = td.addressMode[2] = cudaAddressModeClamp;
        td.filterMode = lin ? cudaFilterModeLinear : cudaFilterModePoint;
        td.readMode = cudaReadModeElementType;
        td.normalizedCoords = 1;
        cudaTextureObject_t t = zt_array_texture(a, &td);
        for (int i = 0; i < N; i++) {
            /* every face as major axis in turn; no ties */
            float d[3] = {zt_randf(-0.9f, 0.9f), zt_randf(-0.9f, 0.9f), zt_randf(-0.9f, 0.9f)};
            int axis = i % 3;
            d[axis] = (i / 3 % 2 ? -1.0f : 1.0f) * zt_randf(1.0f, 3.0f);
            for (int k = 0; k < 3; k++)
                if (k != axis)
                    d[k] *= fabsf(d[axis]);
            hc[i] = make_float4(d[0], d[1], d[2], (float)(i % cubes));
        }
        CK(cudaMemcpy(dc, hc, sizeof hc, cudaMemcpyHostToDevice));
        CK(cudaMemset(dout, 0xff, N * sizeof(float)));
        k_cube<<<N / 64, 64>>>(t, dc, dout, N, layered_cube);
        CK_LAUNCH();
        CK(cudaMemcpy(hout, dout, sizeof hout, cudaMemcpyDeviceToHost));
        for (int i = 0; i < N; i++) {
            float u, v;
            int f = ref_face(hc[i].x, hc[i].y, hc[i].z, &u, &v);
            level l = {CW, CW, store[f + 6 * (int)hc[i].w]};
            float want = ref_level(l, u, v, lin);
            if (!close_to(hout[i], want, 1e-5f))
                zt_fail("texCubemap%s (%s) dir (%g, %g, %g) cube %g: got %g want %g (face %d)",
                        layered_cube ? "Layered" : "", lin ? "linear" : "point", hc[i].x,
                        hc[i].y, hc[i].z, hc[i].w, hout[i], want, f);
        }
        CK(cudaDestroyTextureObject(t));
    }
    CK(cudaFreeArray(a));
    CK(cudaFree(dc));
    CK(cudaFree(dout));
    printf("  cubemap%s: face selection, point/linear ok\n", layered_cube ? " layered" : "");
}

/* 3D mipmapped: 8 x 4 x 4, 4 levels; trilinear in a level, point between */
static void test_mip3d(void)
{
    enum { X = 8, Y = 4, Z = 4, L3 = 4 };
    static float store[L3][X * Y * Z];
    int dims[L3][3];
    cudaChannelFormatDesc cd = cudaCreateChannelDesc<float>();
    cudaMipmappedArray_t m;
    CK(cudaMallocMipmappedArray(&m, &cd, make_cudaExtent(X, Y, Z), L3, 0));
    for (int l = 0; l < L3; l++) {
        int w = X >> l, h = Y >> l > 0 ? Y >> l : 1, d = Z >> l > 0 ? Z >> l : 1;
        dims[l][0] = w, dims[l][1] = h, dims[l][2] = d;
        for (int i = 0; i < w * h * d; i++)
            store[l][i] = zt_randf(-1, 1) + 50.0f * l;
        cudaArray_t a;
        CK(cudaGetMipmappedArrayLevel(&a, m, l));
        cudaMemcpy3DParms p;
        memset(&p, 0, sizeof p);
        p.srcPtr = make_cudaPitchedPtr(store[l], w * sizeof(float), w, h);
        p.dstArray = a;
        p.extent = make_cudaExtent(w, h, d);
        p.kind = cudaMemcpyHostToDevice;
        CK(cudaMemcpy3D(&p));
    }
    cudaTextureDesc td;
    memset(&td, 0, sizeof td);
    td.addressMode[0] = td.addressMode[1] = td.addressMode[2] = cudaAddressModeClamp;
    td.filterMode = cudaFilterModeLinear;
    td.mipmapFilterMode = cudaFilterModePoint;
    td.maxMipmapLevelClamp = L3 - 1;
    td.readMode = cudaReadModeElementType;
    td.normalizedCoords = 1;
    cudaTextureObject_t t = zt_mip_texture(m, &td);
    float4 hc[N];
    float hout[N];
    float4 *dc = dev_alloc<float4>(N);
    float *dout = dev_alloc<float>(N);
    for (int i = 0; i < N; i++)
        hc[i] = make_float4(zt_randf(0, 1), zt_randf(0, 1), zt_randf(0, 1), zt_randf(-0.4f, 3.4f));
    CK(cudaMemcpy(dc, hc, sizeof hc, cudaMemcpyHostToDevice));
    k_lod3d<<<N / 64, 64>>>(t, dc, dout, N);
    CK_LAUNCH();
    CK(cudaMemcpy(hout, dout, sizeof hout, cudaMemcpyDeviceToHost));
    for (int i = 0; i < N; i++) {
        float lod = fminf(fmaxf(hc[i].w, 0.0f), (float)(L3 - 1));
        int l = (int)floorf(lod + 0.5f), w = dims[l][0], h = dims[l][1], d = dims[l][2];
        float x = hc[i].x * w - 0.5f, y = hc[i].y * h - 0.5f, z = hc[i].z * d - 0.5f;
        int i0 = (int)floorf(x), j0 = (int)floorf(y), k0 = (int)floorf(z);
        int fr[3] = {zt_w256(x - floorf(x)), zt_w256(y - floorf(y)), zt_w256(z - floorf(z))}, cw[8];
        zt_corner_weights(3, fr, cw);
        float want = 0;
        for (int corner = 0; corner < 8; corner++) {
            int ii = i0 + (corner & 1), jj = j0 + (corner >> 1 & 1), kk = k0 + (corner >> 2);
            ii = ii < 0 ? 0 : ii >= w ? w - 1 : ii;
            jj = jj < 0 ? 0 : jj >= h ? h - 1 : jj;
            kk = kk < 0 ? 0 : kk >= d ? d - 1 : kk;
            float wt = cw[corner] / 256.0f;
            want += wt * store[l][(kk * h + jj) * w + ii];
        }
        /* the H200's 3D weights are within ZT_W3D_SLACK of the model's */
        if (!close_to(hout[i], want, (float)(16 * ZT_W3D_SLACK)))
            zt_fail("tex3DLod at (%g, %g, %g) lod %g: got %g want %g", hc[i].x, hc[i].y,
                    hc[i].z, hc[i].w, hout[i], want);
    }
    CK(cudaDestroyTextureObject(t));
    CK(cudaFreeMipmappedArray(m));
    CK(cudaFree(dc));
    CK(cudaFree(dout));
    printf("  3D mipmapped: tex3DLod ok\n");
}

/* levels written through surfaces on cudaGetMipmappedArrayLevel's arrays,
 * read back by tex2DLod at texel centres (point filters): each level holds
 * what its surface wrote */
static void test_mip_surface(void)
{
    enum { X = 16, Y = 8, LV = 4 };
    cudaChannelFormatDesc cd = cudaCreateChannelDesc<float>();
    cudaMipmappedArray_t m;
    CK(cudaMallocMipmappedArray(&m, &cd, make_cudaExtent(X, Y, 0), LV,
                                cudaArraySurfaceLoadStore));
    for (int l = 0; l < LV; l++) {
        cudaArray_t a;
        CK(cudaGetMipmappedArrayLevel(&a, m, l));
        cudaSurfaceObject_t s = make_surf(a);
        k_fill_level<<<Y >> l, X >> l>>>(s, X >> l, Y >> l, l);
        CK_LAUNCH();
        CK(cudaDestroySurfaceObject(s));
    }
    const mip_cfg c = {false, false, 0.0f, 0.0f, LV - 1};
    cudaTextureObject_t t = make_mip_tex(m, c);
    enum { NQ = LV * X * Y };
    static float4 hc[NQ];
    static float want[NQ], hout[NQ];
    int n = 0;
    for (int l = 0; l < LV; l++)
        for (int y = 0; y < Y >> l; y++)
            for (int x = 0; x < X >> l; x++, n++) {
                hc[n] = make_float4((x + 0.5f) / (X >> l), (y + 0.5f) / (Y >> l), (float)l, 0);
                want[n] = 1000.0f * l + 10.0f * y + x;
            }
    float4 *dc = dev_alloc<float4>(n);
    float *dout = dev_alloc<float>(n);
    CK(cudaMemcpy(dc, hc, n * sizeof(float4), cudaMemcpyHostToDevice));
    k_lod2d<<<(n + 63) / 64, 64>>>(t, dc, dout, n);
    CK_LAUNCH();
    CK(cudaMemcpy(hout, dout, n * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++)
        if (hout[i] != want[i])
            zt_fail("level written by surface, tex2DLod (%g, %g) lod %g: got %g want %g",
                    hc[i].x, hc[i].y, hc[i].z, hout[i], want[i]);
    CK(cudaDestroyTextureObject(t));
    CK(cudaFreeMipmappedArray(m));
    CK(cudaFree(dc));
    CK(cudaFree(dout));
    printf("  mip levels written by surf2Dwrite, read by tex2DLod ok\n");
}

/* 2D layered mipmapped 8 x 4, 3 layers, 4 levels: tex2DLayeredLod and
 * tex2DLayeredGrad, linear in and between levels */
static void test_mip_layered(void)
{
    enum { X = 8, Y = 4, NL = 3, LV = 4 };
    static float store[LV][NL][X * Y];
    cudaChannelFormatDesc cd = cudaCreateChannelDesc<float>();
    cudaMipmappedArray_t m;
    CK(cudaMallocMipmappedArray(&m, &cd, make_cudaExtent(X, Y, NL), LV, cudaArrayLayered));
    for (int l = 0; l < LV; l++) {
        int w = X >> l, h = Y >> l > 0 ? Y >> l : 1;
        for (int y = 0; y < NL; y++)
            for (int i = 0; i < w * h; i++)
                store[l][y][i] = 1000.0f * y + 100.0f * l + zt_randf(-10, 10);
        static float packed[NL * X * Y];
        for (int y = 0; y < NL; y++)
            memcpy(packed + y * w * h, store[l][y], w * h * sizeof(float));
        cudaArray_t a;
        CK(cudaGetMipmappedArrayLevel(&a, m, l));
        cudaMemcpy3DParms p;
        memset(&p, 0, sizeof p);
        p.srcPtr = make_cudaPitchedPtr(packed, w * sizeof(float), w, h);
        p.dstArray = a;
        p.extent = make_cudaExtent(w, h, NL);
        p.kind = cudaMemcpyHostToDevice;
        CK(cudaMemcpy3D(&p));
    }
    const mip_cfg c = {true, true, 0.0f, 0.0f, LV - 1};
    cudaTextureObject_t t = make_mip_tex(m, c);
    float4 hc[N], hg[N];
    float hout[2 * N];
    float4 *dc = dev_alloc<float4>(N), *dg = dev_alloc<float4>(N);
    float *dout = dev_alloc<float>(2 * N);
    for (int i = 0; i < N; i++) {
        hc[i] = make_float4(zt_randf(0, 1), zt_randf(0, 1), (float)(i % NL), zt_randf(-0.5f, 3.5f));
        float sc = exp2f(zt_randf(-2, 4)) / X;
        hg[i] = make_float4(sc * zt_randf(-1, 1), sc * zt_randf(-1, 1), sc * zt_randf(-1, 1),
                            sc * zt_randf(-1, 1));
    }
    CK(cudaMemcpy(dc, hc, sizeof hc, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dg, hg, sizeof hg, cudaMemcpyHostToDevice));
    k_layered_lod<<<N / 64, 64>>>(t, dc, dg, dout, N);
    CK_LAUNCH();
    CK(cudaMemcpy(hout, dout, sizeof hout, cudaMemcpyDeviceToHost));
    for (int i = 0; i < N; i++) {
        level lv[LV];
        for (int l = 0; l < LV; l++)
            lv[l] = {X >> l, Y >> l > 0 ? Y >> l : 1, store[l][(int)hc[i].z]};
        float want = ref_mip(lv, LV, c, hc[i].x, hc[i].y, hc[i].w);
        if (!close_to(hout[i], want, 1e-5f))
            zt_fail("tex2DLayeredLod at (%g, %g) layer %g lod %g: got %g want %g", hc[i].x,
                    hc[i].y, hc[i].z, hc[i].w, hout[i], want);
        float xx = hg[i].x * X, xy = hg[i].y * Y, yx = hg[i].z * X, yy = hg[i].w * Y;
        float lod = zt_grad_lod(xx, xy, yx, yy);
        if (!grad_ok(hout[N + i], lv, LV, c, hc[i].x, hc[i].y, lod, &want))
            zt_fail("tex2DLayeredGrad at (%g, %g) layer %g lod %g: got %g want %g", hc[i].x,
                    hc[i].y, hc[i].z, lod, hout[N + i], want);
    }
    CK(cudaDestroyTextureObject(t));
    CK(cudaFreeMipmappedArray(m));
    CK(cudaFree(dc));
    CK(cudaFree(dg));
    CK(cudaFree(dout));
    printf("  2D layered mipmapped: tex2DLayeredLod, tex2DLayeredGrad ok\n");
}

/* mipmapped cubemap 8 x 8, 4 levels: texCubemapLod and texCubemapGrad,
 * point in a level, linear between levels */
static void test_cube_mip(void)
{
    enum { CM = 8, LC = 4 };
    static float store[LC][6][CM * CM];
    cudaMipmappedArray_t m = zt_cube_mip_random(&store[0][0][0], CM, LC, 100.0f, 1000.0f);
    cudaTextureDesc td;
    memset(&td, 0, sizeof td);
    td.filterMode = cudaFilterModePoint;
    td.mipmapFilterMode = cudaFilterModeLinear;
    td.maxMipmapLevelClamp = LC - 1;
    td.readMode = cudaReadModeElementType;
    td.normalizedCoords = 1;
    cudaTextureObject_t t = zt_mip_texture(m, &td);
    float4 hc[N];
    float hout[N];
    float4 *dc = dev_alloc<float4>(N);
    float *dout = dev_alloc<float>(N);
    for (int i = 0; i < N; i++) {
        float d[3] = {zt_randf(-0.9f, 0.9f), zt_randf(-0.9f, 0.9f), zt_randf(-0.9f, 0.9f)};
        d[i % 3] = i / 3 % 2 ? -1.0f : 1.0f;
        hc[i] = make_float4(d[0], d[1], d[2], zt_randf(-0.5f, 3.5f));
    }
    CK(cudaMemcpy(dc, hc, sizeof hc, cudaMemcpyHostToDevice));
    k_cube_lod<<<N / 64, 64>>>(t, dc, dout, N);
    CK_LAUNCH();
    CK(cudaMemcpy(hout, dout, sizeof hout, cudaMemcpyDeviceToHost));
    for (int i = 0; i < N; i++) {
        float u, v;
        int f = ref_face(hc[i].x, hc[i].y, hc[i].z, &u, &v);
        level lv[LC];
        for (int l = 0; l < LC; l++)
            lv[l] = {CM >> l, CM >> l, store[l][f]};
        const mip_cfg c = {false, true, 0.0f, 0.0f, LC - 1};
        float want = ref_mip(lv, LC, c, u, v, hc[i].w);
        if (!close_to(hout[i], want, 1e-5f))
            zt_fail("texCubemapLod dir (%g, %g, %g) lod %g: got %g want %g", hc[i].x, hc[i].y,
                    hc[i].z, hc[i].w, hout[i], want);
    }
    /* texCubemapGrad: the gradients projected on the face, d((s/m + 1) / 2)
     * = (ds m - s dm) / (2 m^2), in level-0 texels, then the H200's 2D LOD
     * rule (Zinc's reading, unverified on hardware) */
    float4 hgx[N], hgy[N];
    float4 *dgx = dev_alloc<float4>(N), *dgy = dev_alloc<float4>(N);
    for (int i = 0; i < N; i++) {
        float sx = exp2f(zt_randf(-3, 4)) / CM, sy = exp2f(zt_randf(-3, 4)) / CM;
        hgx[i] = make_float4(sx * zt_randf(-1, 1), sx * zt_randf(-1, 1), sx * zt_randf(-1, 1), 0);
        hgy[i] = make_float4(sy * zt_randf(-1, 1), sy * zt_randf(-1, 1), sy * zt_randf(-1, 1), 0);
    }
    CK(cudaMemcpy(dgx, hgx, sizeof hgx, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dgy, hgy, sizeof hgy, cudaMemcpyHostToDevice));
    CK(cudaMemset(dout, 0xff, N * sizeof(float)));
    k_cube_grad<<<N / 64, 64>>>(t, dc, dgx, dgy, dout, N);
    CK_LAUNCH();
    CK(cudaMemcpy(hout, dout, sizeof hout, cudaMemcpyDeviceToHost));
    for (int i = 0; i < N; i++) {
        float u, v, mm, ss, tt;
        int f = ref_face(hc[i].x, hc[i].y, hc[i].z, &u, &v);
        ref_mst(f, hc[i].x, hc[i].y, hc[i].z, &mm, &ss, &tt);
        float du[2], dv[2];
        for (int k = 0; k < 2; k++) {
            const float4 &g = k ? hgy[i] : hgx[i];
            float gm, gs, gt;
            ref_mst(f, g.x, g.y, g.z, &gm, &gs, &gt);
            du[k] = (gs * mm - ss * gm) / (2.0f * mm * mm) * CM;
            dv[k] = (gt * mm - tt * gm) / (2.0f * mm * mm) * CM;
        }
        float lod = zt_grad_lod(du[0], dv[0], du[1], dv[1]);
        level lv[LC];
        for (int l = 0; l < LC; l++)
            lv[l] = {CM >> l, CM >> l, store[l][f]};
        const mip_cfg c = {false, true, 0.0f, 0.0f, LC - 1};
        float want;
        if (!grad_ok(hout[i], lv, LC, c, u, v, lod, &want))
            zt_fail("texCubemapGrad dir (%g, %g, %g) lod %g: got %g want %g", hc[i].x, hc[i].y,
                    hc[i].z, lod, hout[i], want);
    }
    CK(cudaDestroyTextureObject(t));
    CK(cudaFreeMipmappedArray(m));
    CK(cudaFree(dc));
    CK(cudaFree(dgx));
    CK(cudaFree(dgy));
    CK(cudaFree(dout));
    printf("  mipmapped cubemap: texCubemapLod, texCubemapGrad ok\n");
}

static uint32_t fbits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

/* sust.p into float4, half2 (round to nearest even), uchar4 and short2
 * (integers saturated to the channel: Zinc's choice, unverified on
 * hardware) arrays; each array read back and compared element by element. */
static void test_sustp(void)
{
    enum { SW = 7, SH = 3, SN = SW * SH };
    uint4 hv[SN];
    uint4 *dv = dev_alloc<uint4>(SN);
    cudaArray_t a;
    /* float4 */
    cudaChannelFormatDesc cf4 = cudaCreateChannelDesc<float4>();
    CK(cudaMallocArray(&a, &cf4, SW, SH, cudaArraySurfaceLoadStore));
    static float poison[SN * 4]; /* every array starts as 0xff bytes */
    memset(poison, 0xff, sizeof poison);
    CK(cudaMemcpy2DToArray(a, 0, 0, poison, SW * 16, SW * 16, SH, cudaMemcpyHostToDevice));
    for (int i = 0; i < SN; i++)
        hv[i] = make_uint4(fbits(zt_randf(-5, 5)), fbits(zt_randf(-5, 5)),
                           fbits(zt_randf(-5, 5)), fbits(zt_randf(-5, 5)));
    CK(cudaMemcpy(dv, hv, sizeof hv, cudaMemcpyHostToDevice));
    cudaSurfaceObject_t s = make_surf(a);
    k_sustp4<<<1, 32>>>(s, dv, SW, SN);
    CK_LAUNCH();
    static uint32_t back[SN * 4];
    CK(cudaMemcpy2DFromArray(back, SW * 16, a, 0, 0, SW * 16, SH, cudaMemcpyDeviceToHost));
    for (int i = 0; i < SN; i++) {
        const uint32_t want[4] = {hv[i].x, hv[i].y, hv[i].z, hv[i].w};
        for (int c = 0; c < 4; c++)
            if (back[i * 4 + c] != want[c])
                zt_fail("sust.p float4 element %d channel %d: got 0x%08x want 0x%08x", i, c,
                        back[i * 4 + c], want[c]);
    }
    CK(cudaDestroySurfaceObject(s));
    CK(cudaFreeArray(a));
    /* half2: v4 stores, the extra components ignored */
    cudaChannelFormatDesc ch2 = cudaCreateChannelDescHalf2();
    CK(cudaMallocArray(&a, &ch2, SW, SH, cudaArraySurfaceLoadStore));
    CK(cudaMemcpy2DToArray(a, 0, 0, poison, SW * 4, SW * 4, SH, cudaMemcpyHostToDevice));
    for (int i = 0; i < SN; i++)
        hv[i] = make_uint4(fbits(zt_randf(-70000, 70000) / (i % 5 ? 1000 : 1)),
                           fbits(zt_randf(-1e-5f, 1e-5f)), fbits(1.0f), fbits(2.0f));
    CK(cudaMemcpy(dv, hv, sizeof hv, cudaMemcpyHostToDevice));
    s = make_surf(a);
    k_sustp4<<<1, 32>>>(s, dv, SW, SN);
    CK_LAUNCH();
    static __half hb[SN * 2];
    CK(cudaMemcpy2DFromArray(hb, SW * 4, a, 0, 0, SW * 4, SH, cudaMemcpyDeviceToHost));
    for (int i = 0; i < SN; i++) {
        float in[2];
        memcpy(&in[0], &hv[i].x, 4);
        memcpy(&in[1], &hv[i].y, 4);
        for (int c = 0; c < 2; c++) {
            __half w = __float2half_rn(in[c]);
            uint16_t gb, wb;
            memcpy(&gb, &hb[i * 2 + c], 2);
            memcpy(&wb, &w, 2);
            if (gb != wb)
                zt_fail("sust.p half2 element %d channel %d (%g): got 0x%04x want 0x%04x", i, c,
                        in[c], gb, wb);
        }
    }
    CK(cudaDestroySurfaceObject(s));
    CK(cudaFreeArray(a));
    /* uchar4 (unsigned, v4) and short2 (signed, v2): saturated integers */
    cudaChannelFormatDesc cu4 = cudaCreateChannelDesc<uchar4>();
    CK(cudaMallocArray(&a, &cu4, SW, SH, cudaArraySurfaceLoadStore));
    CK(cudaMemcpy2DToArray(a, 0, 0, poison, SW * 4, SW * 4, SH, cudaMemcpyHostToDevice));
    for (int i = 0; i < SN; i++)
        hv[i] = make_uint4(zt_rand() % 300, zt_rand() % 256, i % 3 ? 7 : 0xffffffffu, i);
    CK(cudaMemcpy(dv, hv, sizeof hv, cudaMemcpyHostToDevice));
    s = make_surf(a);
    k_sustp4<<<1, 32>>>(s, dv, SW, SN);
    CK_LAUNCH();
    static uint8_t ub[SN * 4];
    CK(cudaMemcpy2DFromArray(ub, SW * 4, a, 0, 0, SW * 4, SH, cudaMemcpyDeviceToHost));
    for (int i = 0; i < SN; i++) {
        const uint32_t in[4] = {hv[i].x, hv[i].y, hv[i].z, hv[i].w};
        for (int c = 0; c < 4; c++) {
            uint32_t want = in[c] > 255 ? 255 : in[c];
            if (ub[i * 4 + c] != want)
                zt_fail("sust.p uchar4 element %d channel %d (%u): got %u want %u", i, c, in[c],
                        ub[i * 4 + c], want);
        }
    }
    CK(cudaDestroySurfaceObject(s));
    CK(cudaFreeArray(a));
    cudaChannelFormatDesc cs2 = cudaCreateChannelDesc<short2>();
    CK(cudaMallocArray(&a, &cs2, SW, SH, cudaArraySurfaceLoadStore));
    CK(cudaMemcpy2DToArray(a, 0, 0, poison, SW * 4, SW * 4, SH, cudaMemcpyHostToDevice));
    for (int i = 0; i < SN; i++)
        hv[i] = make_uint4((uint32_t)(int32_t)(zt_rand() % 100000) - 50000u,
                           (uint32_t)(i - 10), 0, 0);
    CK(cudaMemcpy(dv, hv, sizeof hv, cudaMemcpyHostToDevice));
    s = make_surf(a);
    k_sustp2<<<1, 32>>>(s, dv, SW, SN);
    CK_LAUNCH();
    static int16_t sb[SN * 2];
    CK(cudaMemcpy2DFromArray(sb, SW * 4, a, 0, 0, SW * 4, SH, cudaMemcpyDeviceToHost));
    for (int i = 0; i < SN; i++) {
        const int32_t in[2] = {(int32_t)hv[i].x, (int32_t)hv[i].y};
        for (int c = 0; c < 2; c++) {
            int32_t want = in[c] < -32768 ? -32768 : in[c] > 32767 ? 32767 : in[c];
            if (sb[i * 2 + c] != want)
                zt_fail("sust.p short2 element %d channel %d (%d): got %d want %d", i, c, in[c],
                        sb[i * 2 + c], want);
        }
    }
    CK(cudaDestroySurfaceObject(s));
    CK(cudaFreeArray(a));
    CK(cudaFree(dv));
    printf("  sust.p: float4, half2, uchar4, short2 ok\n");
}

int main(void)
{
    zt_begin("texture_mip");
    test_mip2d();
    test_mip1d();
    test_cube(false);
    test_cube(true);
    test_mip3d();
    test_mip_surface();
    test_mip_layered();
    test_cube_mip();
    test_sustp();
    return zt_finish();
}
