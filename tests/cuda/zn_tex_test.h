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
    0x0p+0, 0x1.4p-12, 0x1.4p-11, 0x1.ep-11, 0x1.4p-10, 0x1.9p-10,
    0x1.ep-10, 0x1.18p-9, 0x1.4p-9, 0x1.68p-9, 0x1.9p-9, 0x1.b8p-9,
    0x1.ep-9, 0x1.08p-8, 0x1.2p-8, 0x1.38p-8, 0x1.54p-8, 0x1.7p-8,
    0x1.8cp-8, 0x1.acp-8, 0x1.ccp-8, 0x1.ecp-8, 0x1.06p-7, 0x1.18p-7,
    0x1.2cp-7, 0x1.3ep-7, 0x1.52p-7, 0x1.68p-7, 0x1.7cp-7, 0x1.92p-7,
    0x1.aap-7, 0x1.cp-7, 0x1.d8p-7, 0x1.f4p-7, 0x1.06p-6, 0x1.14p-6,
    0x1.22p-6, 0x1.3p-6, 0x1.3ep-6, 0x1.4cp-6, 0x1.5cp-6, 0x1.6cp-6,
    0x1.7cp-6, 0x1.8cp-6, 0x1.9cp-6, 0x1.aep-6, 0x1.cp-6, 0x1.d2p-6,
    0x1.e4p-6, 0x1.f8p-6, 0x1.06p-5, 0x1.1p-5, 0x1.1ap-5, 0x1.24p-5,
    0x1.2ep-5, 0x1.38p-5, 0x1.44p-5, 0x1.5p-5, 0x1.5ap-5, 0x1.66p-5,
    0x1.72p-5, 0x1.7ep-5, 0x1.8ap-5, 0x1.98p-5, 0x1.a4p-5, 0x1.bp-5,
    0x1.cp-5, 0x1.ccp-5, 0x1.d8p-5, 0x1.e8p-5, 0x1.f4p-5, 0x1.02p-4,
    0x1.0ap-4, 0x1.1p-4, 0x1.18p-4, 0x1.2p-4, 0x1.28p-4, 0x1.3p-4,
    0x1.38p-4, 0x1.4p-4, 0x1.48p-4, 0x1.52p-4, 0x1.5ap-4, 0x1.62p-4,
    0x1.6cp-4, 0x1.74p-4, 0x1.7ep-4, 0x1.86p-4, 0x1.9p-4, 0x1.9ap-4,
    0x1.a2p-4, 0x1.acp-4, 0x1.b6p-4, 0x1.cp-4, 0x1.cap-4, 0x1.d4p-4,
    0x1.ep-4, 0x1.e8p-4, 0x1.f4p-4, 0x1p-3, 0x1.04p-3, 0x1.0ap-3,
    0x1.1p-3, 0x1.16p-3, 0x1.1cp-3, 0x1.22p-3, 0x1.28p-3, 0x1.2ep-3,
    0x1.34p-3, 0x1.3ap-3, 0x1.4p-3, 0x1.46p-3, 0x1.4cp-3, 0x1.52p-3,
    0x1.58p-3, 0x1.6p-3, 0x1.66p-3, 0x1.6cp-3, 0x1.74p-3, 0x1.7ap-3,
    0x1.8p-3, 0x1.88p-3, 0x1.8ep-3, 0x1.96p-3, 0x1.9cp-3, 0x1.a4p-3,
    0x1.acp-3, 0x1.b2p-3, 0x1.bap-3, 0x1.c2p-3, 0x1.cap-3, 0x1.dp-3,
    0x1.d8p-3, 0x1.ep-3, 0x1.e8p-3, 0x1.fp-3, 0x1.f8p-3, 0x1p-2,
    0x1.04p-2, 0x1.08p-2, 0x1.0cp-2, 0x1.1p-2, 0x1.14p-2, 0x1.1ap-2,
    0x1.1ep-2, 0x1.22p-2, 0x1.26p-2, 0x1.2ap-2, 0x1.3p-2, 0x1.34p-2,
    0x1.38p-2, 0x1.3cp-2, 0x1.42p-2, 0x1.46p-2, 0x1.4ap-2, 0x1.5p-2,
    0x1.54p-2, 0x1.5ap-2, 0x1.5ep-2, 0x1.64p-2, 0x1.68p-2, 0x1.6cp-2,
    0x1.72p-2, 0x1.78p-2, 0x1.7cp-2, 0x1.82p-2, 0x1.86p-2, 0x1.8cp-2,
    0x1.9p-2, 0x1.96p-2, 0x1.9cp-2, 0x1.a2p-2, 0x1.a6p-2, 0x1.acp-2,
    0x1.b2p-2, 0x1.b6p-2, 0x1.bcp-2, 0x1.c2p-2, 0x1.c8p-2, 0x1.cep-2,
    0x1.d4p-2, 0x1.dap-2, 0x1.ep-2, 0x1.e4p-2, 0x1.ecp-2, 0x1.fp-2,
    0x1.f8p-2, 0x1.fcp-2, 0x1.02p-1, 0x1.04p-1, 0x1.08p-1, 0x1.0ap-1,
    0x1.0ep-1, 0x1.12p-1, 0x1.14p-1, 0x1.18p-1, 0x1.1ap-1, 0x1.1ep-1,
    0x1.22p-1, 0x1.24p-1, 0x1.28p-1, 0x1.2cp-1, 0x1.2ep-1, 0x1.32p-1,
    0x1.36p-1, 0x1.38p-1, 0x1.3cp-1, 0x1.4p-1, 0x1.42p-1, 0x1.46p-1,
    0x1.4ap-1, 0x1.4ep-1, 0x1.52p-1, 0x1.54p-1, 0x1.58p-1, 0x1.5cp-1,
    0x1.6p-1, 0x1.64p-1, 0x1.66p-1, 0x1.6ap-1, 0x1.6ep-1, 0x1.72p-1,
    0x1.76p-1, 0x1.7ap-1, 0x1.7ep-1, 0x1.82p-1, 0x1.86p-1, 0x1.8ap-1,
    0x1.8ep-1, 0x1.92p-1, 0x1.96p-1, 0x1.9ap-1, 0x1.9ep-1, 0x1.a2p-1,
    0x1.a6p-1, 0x1.aap-1, 0x1.aep-1, 0x1.b2p-1, 0x1.b6p-1, 0x1.bap-1,
    0x1.bep-1, 0x1.c2p-1, 0x1.c6p-1, 0x1.cap-1, 0x1.dp-1, 0x1.d4p-1,
    0x1.d8p-1, 0x1.dcp-1, 0x1.ep-1, 0x1.e4p-1, 0x1.e8p-1, 0x1.ecp-1,
    0x1.f4p-1, 0x1.f8p-1, 0x1.fcp-1, 0x1p+0
};

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
