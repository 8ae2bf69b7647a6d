/* surface.cu: surface objects on CUDA arrays.
 *
 * surf2Dwrite fills a float and a uchar4 array from a formula, surf2Dread
 * reads them back into linear memory and cudaMemcpy2DFromArray copies
 * them out; both must equal the formula computed here. Then the boundary
 * modes: out-of-range reads with cudaBoundaryModeZero give 0 and with
 * cudaBoundaryModeClamp the nearest element; out-of-range writes with
 * Zero are dropped (the array is unchanged); surf3Dwrite/surf3Dread round
 * trip a 3D array and surf1DLayeredwrite a layered one. Last, a read out
 * of range with cudaBoundaryModeTrap must fail the launch. Outputs are
 * poisoned before each launch.
 */
#include "zn_test.h"

enum { W = 37, H = 9, D = 4, L = 3 };

static __host__ __device__ float fval(int x, int y, int z)
{
    return (float)(x * 1000 + y * 10 + z) * 0.5f - 17.0f;
}

static __host__ __device__ uchar4 cval(int x, int y)
{
    return make_uchar4((unsigned char)(x * 7 + y), (unsigned char)(y * 31 + 3),
                       (unsigned char)(x ^ y), (unsigned char)(255 - x));
}

__global__ void k_write2d(cudaSurfaceObject_t sf, cudaSurfaceObject_t sc)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x < W) {
        surf2Dwrite(fval(x, y, 0), sf, x * (int)sizeof(float), y);
        surf2Dwrite(cval(x, y), sc, x * (int)sizeof(uchar4), y);
    }
}

__global__ void k_read2d(cudaSurfaceObject_t sf, cudaSurfaceObject_t sc, float *of, uchar4 *oc)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x < W) {
        of[y * W + x] = surf2Dread<float>(sf, x * (int)sizeof(float), y);
        oc[y * W + x] = surf2Dread<uchar4>(sc, x * (int)sizeof(uchar4), y);
    }
}

/* lane i reads element (x0 + i, y0 + i) with both modes */
__global__ void k_read_oob(cudaSurfaceObject_t sf, int x0, int y0, float *zero, float *clamp)
{
    int i = threadIdx.x, x = x0 + i, y = y0 + i;
    zero[i] = surf2Dread<float>(sf, x * (int)sizeof(float), y, cudaBoundaryModeZero);
    clamp[i] = surf2Dread<float>(sf, x * (int)sizeof(float), y, cudaBoundaryModeClamp);
}

__global__ void k_write_oob(cudaSurfaceObject_t sf)
{
    int i = threadIdx.x;
    surf2Dwrite(-1.0f, sf, (W + i) * (int)sizeof(float), i % H, cudaBoundaryModeZero);
    surf2Dwrite(-2.0f, sf, i % W * (int)sizeof(float), H + i, cudaBoundaryModeZero);
    surf2Dwrite(-3.0f, sf, -(1 + i) * (int)sizeof(float), 0, cudaBoundaryModeZero);
}

__global__ void k_3d(cudaSurfaceObject_t s3, cudaSurfaceObject_t sl, float *out)
{
    int x = threadIdx.x, y = blockIdx.x, z = blockIdx.y;
    if (x < W) {
        surf3Dwrite(fval(x, y, z), s3, x * (int)sizeof(float), y, z);
        if (y == 0 && z < L)
            surf1DLayeredwrite(fval(x, 7, z), sl, x * (int)sizeof(float), z);
    }
    __syncthreads();
    if (x < W)
        out[(z * H + y) * W + x] = surf3Dread<float>(s3, x * (int)sizeof(float), y, z);
}

__global__ void k_trap(cudaSurfaceObject_t sf, float *out)
{
    out[threadIdx.x] = surf2Dread<float>(sf, (W + (int)threadIdx.x) * (int)sizeof(float), 0,
                                         cudaBoundaryModeTrap);
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

int main(void)
{
    zt_begin("surface");
    cudaChannelFormatDesc fd = cudaCreateChannelDesc<float>();
    cudaChannelFormatDesc ud = cudaCreateChannelDesc<uchar4>();
    cudaArray_t af, ac;
    CK(cudaMallocArray(&af, &fd, W, H, cudaArraySurfaceLoadStore));
    CK(cudaMallocArray(&ac, &ud, W, H, cudaArraySurfaceLoadStore));
    cudaSurfaceObject_t sf = make_surf(af), sc = make_surf(ac);

    /* round trip: write, read back through the surface and through a copy */
    float *of;
    uchar4 *oc;
    CK(cudaMalloc(&of, W * H * sizeof(float)));
    CK(cudaMalloc(&oc, W * H * sizeof(uchar4)));
    CK(cudaMemset(of, 0xff, W * H * sizeof(float)));
    CK(cudaMemset(oc, 0xff, W * H * sizeof(uchar4)));
    k_write2d<<<dim3(2, H), 32>>>(sf, sc);
    CK_LAUNCH();
    k_read2d<<<dim3(2, H), 32>>>(sf, sc, of, oc);
    CK_LAUNCH();
    static float hf[W * H], cf[W * H];
    static uchar4 hc[W * H], cc[W * H];
    CK(cudaMemcpy(hf, of, sizeof hf, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(hc, oc, sizeof hc, cudaMemcpyDeviceToHost));
    memset(cf, 0, sizeof cf);
    memset(cc, 0, sizeof cc);
    CK(cudaMemcpy2DFromArray(cf, W * sizeof(float), af, 0, 0, W * sizeof(float), H,
                             cudaMemcpyDeviceToHost));
    CK(cudaMemcpy2DFromArray(cc, W * sizeof(uchar4), ac, 0, 0, W * sizeof(uchar4), H,
                             cudaMemcpyDeviceToHost));
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            int i = y * W + x;
            uchar4 w = cval(x, y);
            if (hf[i] != fval(x, y, 0) || cf[i] != fval(x, y, 0))
                zt_fail("float (%d, %d): read %g copy %g want %g", x, y, hf[i], cf[i],
                        fval(x, y, 0));
            if (memcmp(&hc[i], &w, 4) || memcmp(&cc[i], &w, 4))
                zt_fail("uchar4 (%d, %d) differs", x, y);
        }
    printf("  surf2Dwrite / surf2Dread round trip ok\n");

    /* out-of-range reads: zero and clamp */
    float *dz, *dcl;
    CK(cudaMalloc(&dz, 32 * sizeof(float)));
    CK(cudaMalloc(&dcl, 32 * sizeof(float)));
    const int starts[3][2] = {{-5, -3}, {W - 20, H - 20}, {W - 8, -10}};
    for (auto &st : starts) {
        CK(cudaMemset(dz, 0xff, 32 * sizeof(float)));
        CK(cudaMemset(dcl, 0xff, 32 * sizeof(float)));
        k_read_oob<<<1, 32>>>(sf, st[0], st[1], dz, dcl);
        CK_LAUNCH();
        float z[32], c[32];
        CK(cudaMemcpy(z, dz, sizeof z, cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(c, dcl, sizeof c, cudaMemcpyDeviceToHost));
        for (int i = 0; i < 32; i++) {
            int x = st[0] + i, y = st[1] + i;
            bool in = x >= 0 && x < W && y >= 0 && y < H;
            int cx = x < 0 ? 0 : x >= W ? W - 1 : x, cy = y < 0 ? 0 : y >= H ? H - 1 : y;
            if (z[i] != (in ? fval(x, y, 0) : 0.0f))
                zt_fail("zero mode (%d, %d): got %g", x, y, z[i]);
            if (c[i] != fval(cx, cy, 0))
                zt_fail("clamp mode (%d, %d): got %g want %g", x, y, c[i], fval(cx, cy, 0));
        }
    }
    /* out-of-range writes with Zero are dropped */
    k_write_oob<<<1, 32>>>(sf);
    CK_LAUNCH();
    CK(cudaMemcpy2DFromArray(cf, W * sizeof(float), af, 0, 0, W * sizeof(float), H,
                             cudaMemcpyDeviceToHost));
    for (int i = 0; i < W * H; i++)
        if (cf[i] != fval(i % W, i / W, 0))
            zt_fail("out-of-range write changed (%d, %d) to %g", i % W, i / W, cf[i]);
    printf("  boundary modes zero / clamp ok\n");

    /* 3D and 1D layered surfaces */
    cudaArray_t a3, al;
    CK(cudaMalloc3DArray(&a3, &fd, make_cudaExtent(W, H, D), cudaArraySurfaceLoadStore));
    CK(cudaMalloc3DArray(&al, &fd, make_cudaExtent(W, 0, L),
                         cudaArraySurfaceLoadStore | cudaArrayLayered));
    cudaSurfaceObject_t s3 = make_surf(a3), sl = make_surf(al);
    float *o3;
    CK(cudaMalloc(&o3, W * H * D * sizeof(float)));
    CK(cudaMemset(o3, 0xff, W * H * D * sizeof(float)));
    k_3d<<<dim3(H, D), 64>>>(s3, sl, o3);
    CK_LAUNCH();
    static float h3[W * H * D], hl[W * L];
    CK(cudaMemcpy(h3, o3, sizeof h3, cudaMemcpyDeviceToHost));
    for (int z = 0; z < D; z++)
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++)
                if (h3[(z * H + y) * W + x] != fval(x, y, z))
                    zt_fail("3D (%d, %d, %d): got %g", x, y, z, h3[(z * H + y) * W + x]);
    cudaMemcpy3DParms p;
    memset(&p, 0, sizeof p);
    memset(hl, 0, sizeof hl);
    p.srcArray = al;
    p.dstPtr = make_cudaPitchedPtr(hl, W * sizeof(float), W, 1);
    p.extent = make_cudaExtent(W, 1, L);
    p.kind = cudaMemcpyDeviceToHost;
    CK(cudaMemcpy3D(&p));
    for (int z = 0; z < L; z++)
        for (int x = 0; x < W; x++)
            if (hl[z * W + x] != fval(x, 7, z))
                zt_fail("1D layered (%d | %d): got %g", x, z, hl[z * W + x]);
    printf("  surf3D, surf1DLayered ok\n");
    CK(cudaDestroySurfaceObject(sc));
    CK(cudaDestroySurfaceObject(s3));
    CK(cudaDestroySurfaceObject(sl));
    CK(cudaFreeArray(ac));
    CK(cudaFreeArray(a3));
    CK(cudaFreeArray(al));
    CK(cudaFree(of));
    CK(cudaFree(oc));
    CK(cudaFree(dcl));
    CK(cudaFree(o3));

    /* trap mode: the launch fails (a sticky error: the last launch) */
    k_trap<<<1, 32>>>(sf, dz);
    cudaError_t e = cudaDeviceSynchronize();
    if (e == cudaSuccess)
        zt_fail("a trapping out-of-range surface read succeeded");
    else
        printf("  trap mode: %s\n", cudaGetErrorName(e));
    /* the context is unusable now; release what the driver still holds */
    (void)cudaDestroySurfaceObject(sf);
    (void)cudaFreeArray(af);
    (void)cudaFree(dz);
    return zt_finish();
}
