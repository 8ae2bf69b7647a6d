/* texture_seamless.cu: seamless cubemap filtering (cudaTextureDesc::
 * seamlessCubemap, CU_TRSF_SEAMLESS_CUBEMAP) with texCubemap and
 * texCubemapLayered, linear and point filtering, texCubemapLod on a
 * mipmapped cube (each level with its own size), on directions close to
 * the cube's edges and corners so that most bilinear footprints cross a
 * face edge.
 *
 * The CPU reference here: the face and (s/m + 1) / 2, (t/m + 1) / 2
 * coordinates of the guide's cubemap table, the four texels around
 * x - 0.5 with 9-bit weights as in texture.cu; a texel past one face edge
 * is found by brute force: the texel of the whole cube whose centre
 * direction is closest (largest cosine) to the direction through the
 * missing texel's centre. A footprint texel past a corner, which no face
 * has, gives its weight wm to the three texels around the cube's corner,
 * as an H200 does (measured: every texel's weight for 1024 directions):
 * round(wm / 3) to each of the two texels past one edge, the rest to the
 * face's own corner texel. Point filtering clamps to the face, as
 * cuTexObjectCreate's reference says. tld4 on cubemaps (inline PTX
 * tld4.r.cube / .acube, with and without a depth compare value, which
 * changes nothing on an H200, see texture_offset.cu; CUDA has no gather
 * function for cubemaps) gathers the same four texels, across edges when
 * seamless (whatever the filter mode), clamped to the face otherwise; past
 * a corner tld4 reads the mean of the three texels around it (OpenGL's
 * ARB_seamless_cube_map recommendation, which Zinc follows: unverified on
 * hardware). Outputs are poisoned before each launch.
 */
#include "zn_test.h"
#include "zn_tex_test.h"
#include <math.h>

enum { CW = 4, N = 512 };

__global__ void k_cube(cudaTextureObject_t t, const float4 *c, float *out, int n, int layered)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = layered ? texCubemapLayered<float>(t, c[i].x, c[i].y, c[i].z, (int)c[i].w)
                         : texCubemap<float>(t, c[i].x, c[i].y, c[i].z);
}

/* tld4.r.cube / .acube; ref >= 0: with that depth compare value */
__global__ void k_gather_cube(cudaTextureObject_t t, const float4 *c, float4 *out, int n,
                              int layered, float ref)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float4 q = c[i], r;
    int layer = (int)q.w;
    if (layered && ref >= 0)
        asm volatile("tld4.r.acube.v4.f32.f32 {%0, %1, %2, %3}, [%4, {%5, %6, %7, %8}], %9;"
                     : "=f"(r.x), "=f"(r.y), "=f"(r.z), "=f"(r.w)
                     : "l"(t), "r"(layer), "f"(q.x), "f"(q.y), "f"(q.z), "f"(ref));
    else if (layered)
        asm volatile("tld4.r.acube.v4.f32.f32 {%0, %1, %2, %3}, [%4, {%5, %6, %7, %8}];"
                     : "=f"(r.x), "=f"(r.y), "=f"(r.z), "=f"(r.w)
                     : "l"(t), "r"(layer), "f"(q.x), "f"(q.y), "f"(q.z));
    else if (ref >= 0)
        asm volatile("tld4.r.cube.v4.f32.f32 {%0, %1, %2, %3}, [%4, {%5, %6, %7, %7}], %8;"
                     : "=f"(r.x), "=f"(r.y), "=f"(r.z), "=f"(r.w)
                     : "l"(t), "f"(q.x), "f"(q.y), "f"(q.z), "f"(ref));
    else
        asm volatile("tld4.r.cube.v4.f32.f32 {%0, %1, %2, %3}, [%4, {%5, %6, %7, %7}];"
                     : "=f"(r.x), "=f"(r.y), "=f"(r.z), "=f"(r.w)
                     : "l"(t), "f"(q.x), "f"(q.y), "f"(q.z));
    out[i] = r;
}

static float store[12][CW * CW];
/* the faces the reference reads: store, or one level of a mipmapped cube */
static const float *face[12];
static int cw = CW;

/* The guide's table: face of the major axis, s and t over m. */
static int ref_face(float x, float y, float z, float *u, float *v)
{
    float ax = fabsf(x), ay = fabsf(y), az = fabsf(z), m, s, t;
    int f;
    if (ax >= ay && ax >= az) {
        m = ax, f = x >= 0 ? 0 : 1, s = x >= 0 ? -z : z, t = -y;
    } else if (ay >= az) {
        m = ay, f = y >= 0 ? 2 : 3, s = x, t = y >= 0 ? z : -z;
    } else {
        m = az, f = z >= 0 ? 4 : 5, s = z >= 0 ? x : -x, t = -y;
    }
    *u = (s / m + 1) / 2;
    *v = (t / m + 1) / 2;
    return f;
}

/* The unit direction through the centre of texel (i, j) of face f (i, j
 * may lie one texel outside the face): the table read backwards, m = 1. */
static void centre_dir(int f, int i, int j, double d[3])
{
    double s = (2.0 * i + 1) / cw - 1, t = (2.0 * j + 1) / cw - 1;
    switch (f) {
    case 0: d[0] = 1, d[2] = -s, d[1] = -t; break;
    case 1: d[0] = -1, d[2] = s, d[1] = -t; break;
    case 2: d[1] = 1, d[0] = s, d[2] = t; break;
    case 3: d[1] = -1, d[0] = s, d[2] = -t; break;
    case 4: d[2] = 1, d[0] = s, d[1] = -t; break;
    default: d[2] = -1, d[0] = -s, d[1] = -t; break;
    }
    double len = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    for (int k = 0; k < 3; k++)
        d[k] /= len;
}

/* Texel (i, j) of face f of cube c, seamless. */
static float tap(int c, int f, int i, int j)
{
    bool oi = i < 0 || i >= cw, oj = j < 0 || j >= cw;
    if (!oi && !oj)
        return face[6 * c + f][j * cw + i];
    if (oi && oj) {
        int ci = i < 0 ? 0 : cw - 1, cj = j < 0 ? 0 : cw - 1;
        return (tap(c, f, ci, cj) + tap(c, f, i, cj) + tap(c, f, ci, j)) / 3.0f;
    }
    double want[3], best = -2;
    float v = 0;
    centre_dir(f, i, j, want);
    for (int g = 0; g < 6; g++)
        for (int y = 0; y < cw; y++)
            for (int x = 0; x < cw; x++) {
                double d[3];
                centre_dir(g, x, y, d);
                double cosv = d[0] * want[0] + d[1] * want[1] + d[2] * want[2];
                if (cosv > best)
                    best = cosv, v = face[6 * c + g][y * cw + x];
            }
    return v;
}

static float ref_sample(const float4 &dir, int cube, bool linear)
{
    float u, v;
    int f = ref_face(dir.x, dir.y, dir.z, &u, &v);
    float x = u * cw, y = v * cw;
    if (!linear) {
        int i = (int)floorf(x), j = (int)floorf(y);
        i = i < 0 ? 0 : i >= cw ? cw - 1 : i;
        j = j < 0 ? 0 : j >= cw ? cw - 1 : j;
        return face[6 * cube + f][j * cw + i];
    }
    float xb = x - 0.5f, yb = y - 0.5f;
    int i = (int)floorf(xb), j = (int)floorf(yb);
    int w[4];
    zt_w2(zt_w256(xb - floorf(xb)), zt_w256(yb - floorf(yb)), w); /* as an H200 */
    /* a corner past two edges gives its weight to the three texels around
     * the cube's corner: round(wm / 3) to each of the two past one edge,
     * the rest to the face's own (H200) */
    for (int k = 0; k < 4; k++) {
        int ti = i + (k & 1), tj = j + (k >> 1);
        if ((ti < 0 || ti >= cw) && (tj < 0 || tj >= cw)) {
            int third = (w[k] * 85 + 128) >> 8;
            w[k ^ 3] += w[k] - 2 * third;
            w[k ^ 1] += third;
            w[k ^ 2] += third;
            w[k] = 0;
        }
    }
    return (w[0] * tap(cube, f, i, j) + w[1] * tap(cube, f, i + 1, j) +
            w[2] * tap(cube, f, i, j + 1) + w[3] * tap(cube, f, i + 1, j + 1)) / 256.0f;
}

static bool close_to(float got, float want, float tol)
{
    return fabsf(got - want) <= tol * (1.0f + fabsf(want));
}

/* tld4.r on a cube: the four texels around (x, y) - 0.5 in the order (i,
 * j+1), (i+1, j+1), (i+1, j), (i, j); seamless across edges, else clamped
 * to the face; a compare value ref changes nothing (H200). */
static void ref_gather(const float4 &dir, int cube, bool seamless, float ref, float *v)
{
    (void)ref;
    float u, w;
    int f = ref_face(dir.x, dir.y, dir.z, &u, &w);
    int i = (int)floorf(u * cw - 0.5f), j = (int)floorf(w * cw - 0.5f);
    const int at[4][2] = {{i, j + 1}, {i + 1, j + 1}, {i + 1, j}, {i, j}};
    for (int k = 0; k < 4; k++) {
        int x = at[k][0], y = at[k][1];
        if (!seamless) {
            x = x < 0 ? 0 : x >= cw ? cw - 1 : x;
            y = y < 0 ? 0 : y >= cw ? cw - 1 : y;
        }
        v[k] = tap(cube, f, x, y); /* a compare value changes nothing (H200) */
    }
}

/* tld4 on the cube (array a) of run(): seamless or not, compared or not */
static void run_gather(cudaArray_t a, bool layered, const float4 *dc, const float4 *hc)
{
    static float4 hout[N];
    float4 *dout;
    CK(cudaMalloc(&dout, sizeof hout));
    for (int seamless = 0; seamless < 2; seamless++)
        for (int cmp = 0; cmp < 2; cmp++) {
            cudaTextureDesc td;
            memset(&td, 0, sizeof td);
            td.filterMode = cudaFilterModePoint; /* tld4 does not filter */
            td.readMode = cudaReadModeElementType;
            td.normalizedCoords = 1;
            td.seamlessCubemap = seamless;
            cudaTextureObject_t t = zt_array_texture(a, &td);
            float ref = cmp ? 150.0f : -1.0f; /* faces hold 100 f + [-10, 10) */
            CK(cudaMemset(dout, 0xff, sizeof hout)); /* poison */
            k_gather_cube<<<N / 64, 64>>>(t, dc, dout, N, layered, ref);
            CK_LAUNCH();
            CK(cudaMemcpy(hout, dout, sizeof hout, cudaMemcpyDeviceToHost));
            for (int i = 0; i < N; i++) {
                float want[4];
                ref_gather(hc[i], (int)hc[i].w, seamless, ref, want);
                const float got[4] = {hout[i].x, hout[i].y, hout[i].z, hout[i].w};
                for (int k = 0; k < 4; k++)
                    if (!close_to(got[k], want[k], 1e-6f))
                        zt_fail("tld4.r.%s (%s%s) dir (%g, %g, %g) cube %d texel %d: got %g "
                                "want %g", layered ? "acube" : "cube",
                                seamless ? "seamless" : "clamped", cmp ? ", compare" : "",
                                hc[i].x, hc[i].y, hc[i].z, (int)hc[i].w, k, got[k], want[k]);
            }
            CK(cudaDestroyTextureObject(t));
        }
    CK(cudaFree(dout));
}

/* Directions near an edge (two components of nearly equal size) or, every
 * fourth, near a corner (three); never an exact tie between axes. */
static float4 edge_dir(int i, int cubes)
{
    float d[3];
    int major = i % 3, second = (i / 3) % 3;
    if (second == major)
        second = (major + 1) % 3;
    for (int k = 0; k < 3; k++)
        d[k] = zt_randf(-0.8f, 0.8f);
    d[major] = 1.0f;
    d[second] = zt_randf(0.80f, 0.999f);
    if (i % 4 == 0)
        d[3 - major - second] = zt_randf(0.80f, 0.999f);
    for (int k = 0; k < 3; k++)
        if (zt_rand() & 1)
            d[k] = -d[k];
    float scale = zt_randf(0.5f, 3.0f);
    return make_float4(d[0] * scale, d[1] * scale, d[2] * scale, (float)(i % cubes));
}

static void run(bool layered)
{
    const int cubes = layered ? 2 : 1, layers = 6 * cubes;
    cw = CW;
    for (int f = 0; f < layers; f++) {
        face[f] = store[f];
        for (int i = 0; i < CW * CW; i++)
            store[f][i] = 100.0f * f + zt_randf(-10, 10);
    }
    cudaArray_t a = zt_cube_upload(&store[0][0], CW, layers, layered);
    static float4 hc[N];
    static float hout[N];
    float4 *dc;
    float *dout;
    CK(cudaMalloc(&dc, sizeof hc));
    CK(cudaMalloc(&dout, sizeof hout));
    for (int i = 0; i < N; i++)
        hc[i] = edge_dir(i, cubes);
    CK(cudaMemcpy(dc, hc, sizeof hc, cudaMemcpyHostToDevice));
    for (int lin = 0; lin < 2; lin++) {
        cudaTextureDesc td;
        memset(&td, 0, sizeof td);
        /* ignored with seamless filtering: wrap would otherwise matter */
        td.addressMode[0] = td.addressMode[1] = td.addressMode[2] = cudaAddressModeWrap;
        td.filterMode = lin ? cudaFilterModeLinear : cudaFilterModePoint;
        td.readMode = cudaReadModeElementType;
        td.normalizedCoords = 1;
        td.seamlessCubemap = 1;
        cudaTextureObject_t t = zt_array_texture(a, &td);
        CK(cudaMemset(dout, 0xff, sizeof hout)); /* poison */
        k_cube<<<N / 64, 64>>>(t, dc, dout, N, layered);
        CK_LAUNCH();
        CK(cudaMemcpy(hout, dout, sizeof hout, cudaMemcpyDeviceToHost));
        int crossed = 0;
        for (int i = 0; i < N; i++) {
            int cube = (int)hc[i].w;
            float want = ref_sample(hc[i], cube, lin);
            float u, v;
            ref_face(hc[i].x, hc[i].y, hc[i].z, &u, &v);
            float x = u * CW - 0.5f, y = v * CW - 0.5f;
            crossed += x < 0 || y < 0 || x > CW - 1 || y > CW - 1;
            if (!close_to(hout[i], want, 1e-5f))
                zt_fail("seamless texCubemap%s (%s) dir (%g, %g, %g) cube %d: got %g want %g",
                        layered ? "Layered" : "", lin ? "linear" : "point", hc[i].x, hc[i].y,
                        hc[i].z, cube, hout[i], want);
        }
        if (crossed < N / 2) /* the test must exercise the edges */
            zt_fail("only %d of %d footprints cross an edge", crossed, N);
        CK(cudaDestroyTextureObject(t));
    }
    run_gather(a, layered, dc, hc);
    CK(cudaFreeArray(a));
    CK(cudaFree(dc));
    CK(cudaFree(dout));
    printf("  seamless cubemap%s: edges and corners, point/linear, tld4 ok\n",
           layered ? " layered" : "");
}

__global__ void k_cube_lod(cudaTextureObject_t t, const float4 *c, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = texCubemapLod<float>(t, c[i].x, c[i].y, c[i].z, c[i].w);
}

/* A mipmapped 8 x 8 cube, 3 levels: texCubemapLod at whole LODs (point mip
 * filter) filters each level seamlessly with that level's size. */
static void run_mip(void)
{
    enum { M0 = 8, ML = 3 };
    static float lv[ML][6][M0 * M0];
    cudaMipmappedArray_t m = zt_cube_mip_random(&lv[0][0][0], M0, ML, 1000.0f, 100.0f);
    cudaTextureDesc td;
    memset(&td, 0, sizeof td);
    td.filterMode = cudaFilterModeLinear;
    td.mipmapFilterMode = cudaFilterModePoint;
    td.maxMipmapLevelClamp = ML - 1;
    td.readMode = cudaReadModeElementType;
    td.normalizedCoords = 1;
    td.seamlessCubemap = 1;
    cudaTextureObject_t t = zt_mip_texture(m, &td);
    static float4 hc[N];
    static float hout[N];
    for (int i = 0; i < N; i++) {
        hc[i] = edge_dir(i, 1);
        hc[i].w = (float)(i % ML);
    }
    float4 *dc;
    float *dout;
    CK(cudaMalloc(&dc, sizeof hc));
    CK(cudaMalloc(&dout, sizeof hout));
    CK(cudaMemcpy(dc, hc, sizeof hc, cudaMemcpyHostToDevice));
    CK(cudaMemset(dout, 0xff, sizeof hout)); /* poison */
    k_cube_lod<<<N / 64, 64>>>(t, dc, dout, N);
    CK_LAUNCH();
    CK(cudaMemcpy(hout, dout, sizeof hout, cudaMemcpyDeviceToHost));
    for (int i = 0; i < N; i++) {
        int l = (int)hc[i].w;
        cw = M0 >> l;
        for (int f = 0; f < 6; f++)
            face[f] = lv[l][f];
        float want = ref_sample(hc[i], 0, true);
        if (!close_to(hout[i], want, 1e-5f))
            zt_fail("seamless texCubemapLod dir (%g, %g, %g) lod %d: got %g want %g", hc[i].x,
                    hc[i].y, hc[i].z, l, hout[i], want);
    }
    CK(cudaDestroyTextureObject(t));
    CK(cudaFreeMipmappedArray(m));
    CK(cudaFree(dc));
    CK(cudaFree(dout));
    printf("  seamless mipmapped cubemap: texCubemapLod per level ok\n");
}

/* Seamless filtering needs a cubemap: a 2D array is refused. */
static void misuse(void)
{
    cudaChannelFormatDesc cd = cudaCreateChannelDesc<float>();
    cudaArray_t a;
    CK(cudaMallocArray(&a, &cd, 4, 4));
    cudaResourceDesc rd;
    memset(&rd, 0, sizeof rd);
    rd.resType = cudaResourceTypeArray;
    rd.res.array.array = a;
    cudaTextureDesc td;
    memset(&td, 0, sizeof td);
    td.filterMode = cudaFilterModeLinear;
    td.normalizedCoords = 1;
    td.seamlessCubemap = 1;
    cudaTextureObject_t t = 0;
    if (cudaCreateTextureObject(&t, &rd, &td, NULL) != cudaErrorInvalidValue)
        zt_fail("seamless filtering on a 2D array was not refused");
    cudaGetLastError();
    CK(cudaFreeArray(a));
}

int main(void)
{
    zt_begin("texture_seamless");
    run(false);
    run(true);
    run_mip();
    misuse();
    return zt_finish();
}
