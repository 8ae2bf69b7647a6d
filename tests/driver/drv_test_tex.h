/* drv_test_tex.h: the set-up the array, texture and surface tests share:
 * 2D copies between host rows and CUDA arrays (the CUDA_MEMCPY2D built, for
 * tests that change a field to make it fail, or run), 3D copies, the
 * resource description of an array, mipmapped array or pitched memory,
 * point-sampled texture objects, and a launch whose output buffer is
 * poisoned first and read back after. Failures count through drv_test.h's
 * OK. */
#ifndef DRV_TEST_TEX_H
#define DRV_TEST_TEX_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "drv_test.h"

#define DRV_POISON 0xa5 /* what drv_launch_out fills the output with first */

/* a 2D copy of wbytes x h between host rows (pitch) and the array's
 * top-left corner: into the array, or out of it */
static inline CUDA_MEMCPY2D drv_copy2d(CUarray a, const void *host, size_t pitch, size_t wbytes,
                                       size_t h, bool into_array)
{
    CUDA_MEMCPY2D c;
    memset(&c, 0, sizeof c);
    c.srcMemoryType = into_array ? CU_MEMORYTYPE_HOST : CU_MEMORYTYPE_ARRAY;
    c.dstMemoryType = into_array ? CU_MEMORYTYPE_ARRAY : CU_MEMORYTYPE_HOST;
    if (into_array) {
        c.srcHost = host;
        c.srcPitch = pitch;
        c.dstArray = a;
    } else {
        c.srcArray = a;
        c.dstHost = (void *)(uintptr_t)host;
        c.dstPitch = pitch;
    }
    c.WidthInBytes = wbytes;
    c.Height = h;
    return c;
}

static inline CUDA_MEMCPY2D drv_copy_h2a(CUarray dst, const void *src, size_t spitch,
                                         size_t wbytes, size_t h)
{
    return drv_copy2d(dst, src, spitch, wbytes, h, true);
}

static inline CUDA_MEMCPY2D drv_copy_a2h(void *dst, size_t dpitch, CUarray src, size_t wbytes,
                                         size_t h)
{
    return drv_copy2d(src, dst, dpitch, wbytes, h, false);
}

static inline void drv_put(CUarray dst, const void *src, size_t spitch, size_t wbytes, size_t h)
{
    CUDA_MEMCPY2D c = drv_copy_h2a(dst, src, spitch, wbytes, h);
    OK(cuMemcpy2D(&c));
}

static inline void drv_get(void *dst, size_t dpitch, CUarray src, size_t wbytes, size_t h)
{
    CUDA_MEMCPY2D c = drv_copy_a2h(dst, dpitch, src, wbytes, h);
    OK(cuMemcpy2D(&c));
}

/* cuMemcpy3D of packed host rows of rowbytes, rows x depth of them (depth
 * slices or layers), into the array or out of it */
static inline void drv_copy3d(CUarray a, const void *host, size_t rowbytes, size_t rows,
                              size_t depth, bool into_array)
{
    CUDA_MEMCPY2D c2 = drv_copy2d(a, host, rowbytes, rowbytes, rows, into_array);
    CUDA_MEMCPY3D c;
    memset(&c, 0, sizeof c);
    c.srcMemoryType = c2.srcMemoryType;
    c.srcHost = c2.srcHost;
    c.srcArray = c2.srcArray;
    c.srcPitch = c2.srcPitch;
    c.srcHeight = rows;
    c.dstMemoryType = c2.dstMemoryType;
    c.dstHost = c2.dstHost;
    c.dstArray = c2.dstArray;
    c.dstPitch = c2.dstPitch;
    c.dstHeight = rows;
    c.WidthInBytes = rowbytes;
    c.Height = rows;
    c.Depth = depth;
    OK(cuMemcpy3D(&c));
}

static inline CUDA_RESOURCE_DESC drv_res_array(CUarray a)
{
    CUDA_RESOURCE_DESC rd;
    memset(&rd, 0, sizeof rd);
    rd.resType = CU_RESOURCE_TYPE_ARRAY;
    rd.res.array.hArray = a;
    return rd;
}

static inline CUDA_RESOURCE_DESC drv_res_mipmap(CUmipmappedArray m)
{
    CUDA_RESOURCE_DESC rd = drv_res_array(NULL);
    rd.resType = CU_RESOURCE_TYPE_MIPMAPPED_ARRAY;
    rd.res.mipmap.hMipmappedArray = m;
    return rd;
}

/* pitched device memory: w x h elements of nch channels of fmt */
static inline CUDA_RESOURCE_DESC drv_res_pitch2d(CUdeviceptr p, CUarray_format fmt, unsigned nch,
                                                 size_t w, size_t h, size_t pitch)
{
    CUDA_RESOURCE_DESC rd = drv_res_array(NULL);
    rd.resType = CU_RESOURCE_TYPE_PITCH2D;
    rd.res.pitch2D.devPtr = p;
    rd.res.pitch2D.format = fmt;
    rd.res.pitch2D.numChannels = nch;
    rd.res.pitch2D.width = w;
    rd.res.pitch2D.height = h;
    rd.res.pitch2D.pitchInBytes = pitch;
    return rd;
}

/* point sampling, x and y clamped, flags (CU_TRSF_*) */
static inline CUDA_TEXTURE_DESC drv_tex_point(unsigned flags)
{
    CUDA_TEXTURE_DESC td;
    memset(&td, 0, sizeof td);
    td.addressMode[0] = td.addressMode[1] = CU_TR_ADDRESS_MODE_CLAMP;
    td.filterMode = CU_TR_FILTER_MODE_POINT;
    td.flags = flags;
    return td;
}

/* a texture object on array a with drv_tex_point(flags); 0 on failure */
static inline CUtexObject drv_tex_point_obj(CUarray a, unsigned flags)
{
    CUDA_RESOURCE_DESC rd = drv_res_array(a);
    CUDA_TEXTURE_DESC td = drv_tex_point(flags);
    CUtexObject t = 0;
    OK(cuTexObjectCreate(&t, &rd, &td, NULL));
    return t;
}

/* Poisons bytes of out, runs f on gx x gy blocks of bx threads with args,
 * waits, and copies those bytes to host. */
static inline void drv_launch_out(CUfunction f, unsigned gx, unsigned gy, unsigned bx,
                                  void **args, CUdeviceptr out, void *host, size_t bytes)
{
    OK(cuMemsetD8(out, DRV_POISON, bytes));
    OK(cuLaunchKernel(f, gx, gy, 1, bx, 1, 1, 0, NULL, args, NULL));
    OK(cuCtxSynchronize());
    OK(cuMemcpyDtoH(host, out, bytes));
}

#endif
