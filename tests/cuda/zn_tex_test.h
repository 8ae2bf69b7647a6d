/* zn_tex_test.h: texture set-up that several tests/cuda texture programs
 * share (after zn_test.h): float cubemaps (layered or mipmapped) uploaded
 * from host faces, and texture objects over an array or a mipmapped
 * array. */
#ifndef ZN_TEX_TEST_H
#define ZN_TEX_TEST_H

#include "zn_test.h"

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
