/* zn_tex_test.h: texture set-up that several tests/cuda texture programs
 * share (after zn_test.h): float cubemaps (layered or mipmapped) uploaded
 * from host faces, and texture objects over an array or a mipmapped
 * array. */
#ifndef ZN_TEX_TEST_H
#define ZN_TEX_TEST_H

#include "zn_test.h"
#include <math.h>

/* Linear filtering as NVIDIA's hardware weighs the texels (measured on an
 * H200: every weight of a 256 x 256 grid of 2D fractions, 2^16 random
 * 2D coordinates, 2^16 random 3D fractions): per dimension frac(x - 0.5)
 * in 9-bit fixed point, zt_w256 (1/256ths, rounded half up, 0..256); in
 * 2D the (upper, upper) corner is a * b / 256 rounded half up and the
 * others complete their row and column, so the four sum to 256. 3D: the
 * x/z pair so, then each of those split along y the same way; this
 * reproduces 98.9% of the H200's 3D weights, the rest are 1/256 off
 * (ZT_W3D_SLACK: the rule is not known). Corner k: bit d set is the upper
 * texel along dimension d; weights in 1/256ths. */
#define ZT_W3D_SLACK (1.0 / 256.0)
static inline int zt_w256(float frac)
{
    return (int)floorf(frac * 256.0f + 0.5f);
}

static inline void zt_w2(int a, int b, int *w)
{
    int w11 = (a * b + 128) / 256;
    w[0] = 256 - a - b + w11;
    w[1] = a - w11;
    w[2] = b - w11;
    w[3] = w11;
}

static inline void zt_corner_weights(int ndim, const int *a, int *w)
{
    if (ndim == 1) {
        w[0] = 256 - a[0];
        w[1] = a[0];
    } else if (ndim == 2) {
        zt_w2(a[0], a[1], w);
    } else {
        int xz[4];
        zt_w2(a[0], a[2], xz);
        for (int k = 0; k < 8; k++) {
            int v = xz[(k & 1) + ((k >> 2) & 1) * 2], hi = (v * a[1] + 128) / 256;
            w[k] = (k >> 1) & 1 ? hi : v - hi;
        }
    }
}

/* sRGB -> linear of 8-bit values as an H200 reads them (CU_TRSF_SRGB,
 * point sampling, texels 0..255): a table, off the sRGB standard's curve
 * by up to 0.004 (its linear segment is v * 5 / 16384). */
static const float zt_srgb_lut[256] = {
#include "../../src/exec/zn_tex_srgb_h200.inc"
};

/* tex.grad's LOD as an H200 computes it (measured, docs/gpu-truth.md):
 * gradients gx, gy in level-0 texels; the footprint length is the longest
 * of zt_len of gx, gy and 11/16 of gx + gy and gx - gy, zt_len being the
 * longer component plus 11/32 of the shorter; its log2 is the exponent
 * plus a table's fraction of the mantissa's top 8 bits; the components
 * and their sums are kept to 10 significant bits. 95% of the H200's LODs
 * are this exactly, all within ZT_GRAD_SLACK (2/256) of it. 1D: y 0. */
#define ZT_GRAD_SLACK 2
static const unsigned char zt_lod_frac[256] = {
#include "../../src/exec/zn_tex_lod_h200.inc"
};

static inline float zt_len(float x, float y)
{
    x = fabsf(x);
    y = fabsf(y);
    return fmaxf(x, y) + 0.34375f * fminf(x, y);
}

static inline float zt_trunc10(float x)
{
    int e;
    float m = frexpf(x, &e);
    return ldexpf(truncf(m * 1024.0f), e - 10);
}

static inline float zt_grad_lod(float gxx, float gxy, float gyx, float gyy)
{
    float a = zt_trunc10(gxx), b = zt_trunc10(gxy), c = zt_trunc10(gyx), d = zt_trunc10(gyy);
    float l = fmaxf(zt_len(a, b), zt_len(c, d));
    l = fmaxf(l, 0.6875f * zt_len(zt_trunc10(a + c), zt_trunc10(b + d)));
    l = fmaxf(l, 0.6875f * zt_len(zt_trunc10(a - c), zt_trunc10(b - d)));
    if (!(l > 0.0f))
        return -INFINITY;
    int e;
    float m = frexpf(l, &e);
    int j = (int)((m * 2.0f - 1.0f) * 256.0f);
    return (float)(e - 1) + zt_lod_frac[j > 255 ? 255 : j] / 256.0f;
}

/* Linear filtering of sRGB-converted values v[k] (weights w[k] in 1/256ths,
 * n texels) as an H200 does it: values truncated to 8 significant bits of
 * the largest one with a nonzero weight, blended exactly, rounded to half
 * precision (ties up). 95.5% of the H200's blends are this exactly, all
 * within ZT_SRGB_SLACK. */
#define ZT_SRGB_SLACK (1.0 / 256.0)
static inline float zt_srgb_blend(const float *v, const int *w, int n)
{
    float mx = 0.0f;
    for (int k = 0; k < n; k++)
        if (w[k] && v[k] > mx)
            mx = v[k];
    if (!(mx > 0.0f))
        return 0.0f;
    int e;
    (void)frexpf(mx, &e);
    double acc = 0.0;
    for (int k = 0; k < n; k++)
        acc += (double)w[k] * floor(ldexp((double)v[k], 8 - e));
    float x = (float)ldexp(acc / 256.0, e - 8);
    if (!(x > 0.0f))
        return 0.0f;
    float m = frexpf(x, &e);
    return ldexpf(floorf(m * 2048.0f + 0.5f), e - 11);
}

/* The weight of the upper level of trilinear (linear mipmap) filtering:
 * the LOD's fraction truncated to a multiple of 1/256 (H200). */
static inline float zt_mip_weight(float frac)
{
    return floorf(frac * 256.0f) / 256.0f;
}

/* A float cubemap array (layered: `faces` is a multiple of 6) of n x n
 * faces from host, faces packed one after another. */
static inline cudaArray_t zt_cube_upload(const float *host, int n, int faces, bool layered)
{
    cudaChannelFormatDesc cd = cudaCreateChannelDesc<float>();
    cudaArray_t a;
    CK(cudaMalloc3DArray(&a, &cd, make_cudaExtent(n, n, faces),
                         cudaArrayCubemap | (layered ? cudaArrayLayered : 0)));
    cudaMemcpy3DParms p;
    memset(&p, 0, sizeof p);
    p.srcPtr = make_cudaPitchedPtr((void *)host, n * sizeof(float), n, n);
    p.dstArray = a;
    p.extent = make_cudaExtent(n, n, faces);
    p.kind = cudaMemcpyHostToDevice;
    CK(cudaMemcpy3D(&p));
    return a;
}

/* A float cubemap of n x n faces with `levels` mip levels, from host laid
 * out as [levels][6][n * n]: level l's face f holds its (n >> l)^2 texels
 * packed at the start of its n * n slot. */
static inline cudaMipmappedArray_t zt_cube_mip_upload(const float *host, int n, int levels)
{
    cudaChannelFormatDesc cd = cudaCreateChannelDesc<float>();
    cudaMipmappedArray_t m;
    CK(cudaMallocMipmappedArray(&m, &cd, make_cudaExtent(n, n, 6), levels, cudaArrayCubemap));
    float *packed = (float *)malloc(6 * (size_t)n * n * sizeof(float));
    for (int l = 0; l < levels; l++) {
        int w = n >> l;
        for (int f = 0; f < 6; f++)
            memcpy(packed + f * w * w, host + ((size_t)l * 6 + f) * n * n, w * w * sizeof(float));
        cudaArray_t a;
        CK(cudaGetMipmappedArrayLevel(&a, m, l));
        cudaMemcpy3DParms p;
        memset(&p, 0, sizeof p);
        p.srcPtr = make_cudaPitchedPtr(packed, w * sizeof(float), w, w);
        p.dstArray = a;
        p.extent = make_cudaExtent(w, w, 6);
        p.kind = cudaMemcpyHostToDevice;
        CK(cudaMemcpy3D(&p));
    }
    free(packed);
    return m;
}

/* zt_cube_mip_upload of random faces: level l's face f holds
 * per_level * l + per_face * f + [-10, 10), so that a wrong level or face
 * shows; host ([levels][6][n * n]) keeps them for the CPU reference. */
static inline cudaMipmappedArray_t zt_cube_mip_random(float *host, int n, int levels,
                                                      float per_level, float per_face)
{
    for (int l = 0; l < levels; l++) {
        int w = n >> l;
        for (int f = 0; f < 6; f++)
            for (int i = 0; i < w * w; i++)
                host[((size_t)l * 6 + f) * n * n + i] =
                    per_level * l + per_face * f + zt_randf(-10, 10);
    }
    return zt_cube_mip_upload(host, n, levels);
}

/* A texture object reading the CUDA array a through td. */
static inline cudaTextureObject_t zt_array_texture(cudaArray_t a, const cudaTextureDesc *td)
{
    cudaResourceDesc rd;
    memset(&rd, 0, sizeof rd);
    rd.resType = cudaResourceTypeArray;
    rd.res.array.array = a;
    cudaTextureObject_t t;
    CK(cudaCreateTextureObject(&t, &rd, td, NULL));
    return t;
}

/* A texture object reading the whole mipmapped array m through td. */
static inline cudaTextureObject_t zt_mip_texture(cudaMipmappedArray_t m, const cudaTextureDesc *td)
{
    cudaResourceDesc rd;
    memset(&rd, 0, sizeof rd);
    rd.resType = cudaResourceTypeMipmappedArray;
    rd.res.mipmap.mipmap = m;
    cudaTextureObject_t t;
    CK(cudaCreateTextureObject(&t, &rd, td, NULL));
    return t;
}

#endif
