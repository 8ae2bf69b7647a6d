/* texture_offset.cu: the optional operands of PTX tex and tld4 (inline
 * PTX: CUDA's texture functions never emit them): a texel offset vector
 * {e} (-8..+7 per dimension) and a depth compare value f.
 *
 * Offsets move the lookup by whole texels: tex.1d/2d/3d on float
 * coordinates (point and linear filtering, unnormalized clamp and
 * normalized wrap), tex.2d on .s32 coordinates, register and immediate
 * offsets, tld4.2d. Integer (.s32) coordinates read the texel addressed,
 * offset included, and 0 outside the texture whatever the address mode
 * (measured on an H200). Depth compare: the value f changes nothing, the
 * texels read as without it (measured on an H200: CUDA's texture
 * descriptors have no compare function to enable the ISA's per-texel
 * compare); tex.2d, tex.a2d and tld4.r.2d, alone and with an offset. The sparse
 * forms {d}|p (tex2D, tex2DLod, tex2Dgather with &isResident; in a loop
 * too) read as the plain ones with p true (every array is backed). The CPU
 * reference here applies offsets and compares texel by texel with 9-bit
 * weights as texture.cu does; outputs are poisoned before each launch.
 */
#include "zn_test.h"
#include "zn_tex_test.h"
#include <math.h>

enum { W = 8, H = 6, D = 4, L = 2, N = 512 };

/* one lookup: coordinates, offsets, compare value, layer */
struct look {
    float x, y, z, ref;
    int ox, oy, oz, layer;
};

enum {
    K_2D_OFF, K_2D_OFF_IMM, K_2D_S32_OFF, K_1D_OFF, K_3D_OFF, K_2D_CMP, K_2D_OFF_CMP,
    K_A2D_CMP, K_TLD4_OFF, K_TLD4_CMP, K_TLD4_OFF_CMP
};

#define V4 "{%0, %1, %2, %3}"
#define OUT "=f"(r.x), "=f"(r.y), "=f"(r.z), "=f"(r.w)

__global__ void k_look(cudaTextureObject_t t, const look *c, float4 *out, int n, int kind)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    look q = c[i];
    float4 r;
    switch (kind) {
    case K_2D_OFF:
        asm volatile("tex.2d.v4.f32.f32 " V4 ", [%4, {%5, %6}], {%7, %8};"
                     : OUT : "l"(t), "f"(q.x), "f"(q.y), "r"(q.ox), "r"(q.oy));
        break;
    case K_2D_OFF_IMM:
        asm volatile("tex.2d.v4.f32.f32 " V4 ", [%4, {%5, %6}], {3, -2};"
                     : OUT : "l"(t), "f"(q.x), "f"(q.y));
        break;
    case K_2D_S32_OFF:
        asm volatile("tex.2d.v4.f32.s32 " V4 ", [%4, {%5, %6}], {%7, %8};"
                     : OUT : "l"(t), "r"((int)floorf(q.x)), "r"((int)floorf(q.y)), "r"(q.ox),
                       "r"(q.oy));
        break;
    case K_1D_OFF:
        asm volatile("tex.1d.v4.f32.f32 " V4 ", [%4, {%5}], {%6};"
                     : OUT : "l"(t), "f"(q.x), "r"(q.ox));
        break;
    case K_3D_OFF:
        asm volatile("tex.3d.v4.f32.f32 " V4 ", [%4, {%5, %6, %7, %7}], {%8, %9, %10, %10};"
                     : OUT : "l"(t), "f"(q.x), "f"(q.y), "f"(q.z), "r"(q.ox), "r"(q.oy),
                       "r"(q.oz));
        break;
    case K_2D_CMP:
        asm volatile("tex.2d.v4.f32.f32 " V4 ", [%4, {%5, %6}], %7;"
                     : OUT : "l"(t), "f"(q.x), "f"(q.y), "f"(q.ref));
        break;
    case K_2D_OFF_CMP:
        asm volatile("tex.2d.v4.f32.f32 " V4 ", [%4, {%5, %6}], {%7, %8}, %9;"
                     : OUT : "l"(t), "f"(q.x), "f"(q.y), "r"(q.ox), "r"(q.oy), "f"(q.ref));
        break;
    case K_A2D_CMP:
        asm volatile("tex.a2d.v4.f32.f32 " V4 ", [%4, {%5, %6, %7, %7}], %8;"
                     : OUT : "l"(t), "r"(q.layer), "f"(q.x), "f"(q.y), "f"(q.ref));
        break;
    case K_TLD4_OFF:
        asm volatile("tld4.r.2d.v4.f32.f32 " V4 ", [%4, {%5, %6}], {%7, %8};"
                     : OUT : "l"(t), "f"(q.x), "f"(q.y), "r"(q.ox), "r"(q.oy));
        break;
    case K_TLD4_CMP:
        asm volatile("tld4.r.2d.v4.f32.f32 " V4 ", [%4, {%5, %6}], %7;"
                     : OUT : "l"(t), "f"(q.x), "f"(q.y), "f"(q.ref));
        break;
    default:
        asm volatile("tld4.r.2d.v4.f32.f32 " V4 ", [%4, {%5, %6}], {%7, %8}, %9;"
                     : OUT : "l"(t), "f"(q.x), "f"(q.y), "r"(q.ox), "r"(q.oy), "f"(q.ref));
        break;
    }
    out[i] = r;
}

static const char *kind_name[] = {
    "tex.2d offset", "tex.2d offset {3, -2}", "tex.2d.s32 offset", "tex.1d offset",
    "tex.3d offset", "tex.2d compare", "tex.2d offset compare", "tex.a2d compare",
    "tld4.r offset", "tld4.r compare", "tld4.r offset compare"};

static float img[L][D][H][W]; /* one float channel */

/* the reference's view: dims, sizes, address mode, compare */
struct ref_tex {
    int ndim, n[3];
    bool wrap, norm, linear, cmp;
};

static int addr(int i, int n, bool wrap)
{
    if (wrap)
        return ((i % n) + n) % n;
    return i < 0 ? 0 : i >= n ? n - 1 : i;
}

/* channel 0 of texel idx (a compare value changes nothing: H200) */
static double texel(const ref_tex &rt, const int *idx, int layer, float ref)
{
    (void)ref;
    int x = addr(idx[0], rt.n[0], rt.wrap);
    int y = rt.ndim > 1 ? addr(idx[1], rt.n[1], rt.wrap) : 0;
    int z = rt.ndim > 2 ? addr(idx[2], rt.n[2], rt.wrap) : 0;
    return img[layer][z][y][x];
}

/* texel-space coordinate k of q, offset applied */
static float texcoord(const ref_tex &rt, const look &q, int k)
{
    float u = k == 0 ? q.x : k == 1 ? q.y : q.z;
    int o = k == 0 ? q.ox : k == 1 ? q.oy : q.oz;
    if (rt.norm) {
        u -= floorf(u); /* wrap */
        u *= (float)rt.n[k];
    }
    return u + (float)o;
}

static double ref_tex_sample(const ref_tex &rt, const look &q)
{
    int idx[3];
    if (!rt.linear) {
        for (int k = 0; k < rt.ndim; k++)
            idx[k] = (int)floorf(texcoord(rt, q, k));
        return texel(rt, idx, q.layer, q.ref);
    }
    int base[3], a[3], w[8];
    for (int k = 0; k < rt.ndim; k++) {
        float xb = texcoord(rt, q, k) - 0.5f;
        base[k] = (int)floorf(xb);
        a[k] = zt_w256(xb - floorf(xb)); /* 1.8 fixed point */
    }
    zt_corner_weights(rt.ndim, a, w); /* as an H200 rounds them */
    double acc = 0;
    for (int corner = 0; corner < (1 << rt.ndim); corner++) {
        double wgt = w[corner] / 256.0;
        for (int k = 0; k < rt.ndim; k++)
            idx[k] = base[k] + ((corner >> k) & 1);
        acc += wgt * texel(rt, idx, q.layer, q.ref);
    }
    return acc;
}

/* tld4.r: the four texels around x - 0.5 in the order (i, j+1), (i+1,
 * j+1), (i+1, j), (i, j) */
static void ref_gather(const ref_tex &rt, const look &q, double *v)
{
    int i = (int)floorf(texcoord(rt, q, 0) - 0.5f), j = (int)floorf(texcoord(rt, q, 1) - 0.5f);
    const int at[4][2] = {{i, j + 1}, {i + 1, j + 1}, {i + 1, j}, {i, j}};
    for (int k = 0; k < 4; k++)
        v[k] = texel(rt, at[k], q.layer, q.ref);
}

static look hq[N];
static float4 hout[N];
static look *dq;
static float4 *dout;

static void launch(cudaTextureObject_t t, int kind)
{
    CK(cudaMemcpy(dq, hq, sizeof hq, cudaMemcpyHostToDevice));
    CK(cudaMemset(dout, 0xff, sizeof hout)); /* poison */
    k_look<<<N / 64, 64>>>(t, dq, dout, N, kind);
    CK_LAUNCH();
    CK(cudaMemcpy(hout, dout, sizeof hout, cudaMemcpyDeviceToHost));
}

static bool close_to(double got, double want)
{
    return fabs(got - want) <= 1e-5 * (1.0 + fabs(want));
}

/* Random lookups over and around the texture; compare values around the
 * texels' range so that both outcomes occur. */
static void fill_looks(const ref_tex &rt, int layers)
{
    for (int i = 0; i < N; i++) {
        look &q = hq[i];
        float ext[3];
        for (int k = 0; k < 3; k++)
            ext[k] = rt.norm ? 1.0f : (float)rt.n[k];
        q.x = zt_randf(-0.3f * ext[0], 1.3f * ext[0]);
        q.y = zt_randf(-0.3f * ext[1], 1.3f * ext[1]);
        q.z = zt_randf(-0.3f * ext[2], 1.3f * ext[2]);
        q.ox = (int)(zt_rand() % 16) - 8;
        q.oy = (int)(zt_rand() % 16) - 8;
        q.oz = (int)(zt_rand() % 16) - 8;
        q.ref = zt_randf(-1.0f, 11.0f);
        q.layer = (int)(zt_rand() % (unsigned)layers);
    }
}

static void check(const ref_tex &rt, int kind, const char *mode)
{
    bool gather = kind >= K_TLD4_OFF;
    for (int i = 0; i < N; i++) {
        look q = hq[i];
        if (kind == K_2D_OFF_IMM)
            q.ox = 3, q.oy = -2;
        if (kind == K_2D_CMP || kind == K_A2D_CMP || kind == K_TLD4_CMP)
            q.ox = q.oy = 0;
        if (kind == K_2D_S32_OFF)
            q.x = floorf(q.x), q.y = floorf(q.y);
        const float got[4] = {hout[i].x, hout[i].y, hout[i].z, hout[i].w};
        double want[4];
        if (gather) {
            ref_gather(rt, q, want);
        } else if (kind == K_2D_S32_OFF) {
            /* integer coordinates: the texel addressed, 0 outside (H200) */
            int x = (int)q.x + q.ox, y = (int)q.y + q.oy;
            want[0] = x >= 0 && x < rt.n[0] && y >= 0 && y < rt.n[1] ? img[q.layer][0][y][x] : 0.0;
            want[1] = want[2] = want[3] = 0.0;
        } else {
            want[0] = ref_tex_sample(rt, q);
            /* a one-channel float texture: (v, 0, 0, 0), the H200 reads
             * the channels it lacks, alpha too, as 0 */
            want[1] = want[2] = want[3] = 0.0;
        }
        /* 3D linear: the H200's weights are within ZT_W3D_SLACK of the
         * model's (texels up to 11: a few slack steps) */
        double slack = rt.ndim == 3 && rt.linear ? 16 * ZT_W3D_SLACK : 0.0;
        for (int c = 0; c < 4; c++)
            if (!close_to(got[c], want[c]) && !(fabs(got[c] - want[c]) <= slack * (1.0 + fabs(want[c]))))
                zt_fail("%s (%s) at (%g, %g, %g) offset (%d, %d, %d) ref %g layer %d "
                        "component %d: got %.8g want %.8g",
                        kind_name[kind], mode, q.x, q.y, q.z, q.ox, q.oy, q.oz, q.ref, q.layer,
                        c, got[c], want[c]);
    }
}

static cudaTextureObject_t make_tex(cudaArray_t a, bool linear, bool norm)
{
    cudaTextureDesc td;
    memset(&td, 0, sizeof td);
    for (int k = 0; k < 3; k++)
        td.addressMode[k] = norm ? cudaAddressModeWrap : cudaAddressModeClamp;
    td.filterMode = linear ? cudaFilterModeLinear : cudaFilterModePoint;
    td.readMode = cudaReadModeElementType;
    td.normalizedCoords = norm;
    return zt_array_texture(a, &td);
}

/* A W x H (x D, or x L layers) float array of random texels in [0, 10). */
static cudaArray_t upload(int ndim, bool layered)
{
    int depth = ndim == 3 ? D : layered ? L : 0, slices = depth ? depth : 1;
    int rows = ndim == 1 ? 1 : H;
    static float packed[L * D * H * W];
    for (int s = 0; s < slices; s++)
        for (int y = 0; y < rows; y++)
            for (int x = 0; x < W; x++) {
                float v = zt_randf(0.0f, 10.0f);
                img[layered ? s : 0][ndim == 3 ? s : 0][y][x] = v;
                packed[(s * rows + y) * W + x] = v;
            }
    cudaChannelFormatDesc cd = cudaCreateChannelDesc<float>();
    cudaArray_t a;
    CK(cudaMalloc3DArray(&a, &cd, make_cudaExtent(W, ndim == 1 ? 0 : H, depth),
                         layered ? cudaArrayLayered : 0));
    cudaMemcpy3DParms p;
    memset(&p, 0, sizeof p);
    p.srcPtr = make_cudaPitchedPtr(packed, W * sizeof(float), W, rows);
    p.dstArray = a;
    p.extent = make_cudaExtent(W, rows, slices);
    p.kind = cudaMemcpyHostToDevice;
    CK(cudaMemcpy3D(&p));
    return a;
}

static void run(int ndim, bool layered, const int *kinds, int nkinds, bool cmp)
{
    cudaArray_t a = upload(ndim, layered);
    for (int lin = 0; lin < 2; lin++)
        for (int norm = 0; norm < 2; norm++) {
            ref_tex rt = {ndim, {W, ndim > 1 ? H : 1, ndim > 2 ? D : 1}, norm != 0, norm != 0,
                          lin != 0, cmp};
            cudaTextureObject_t t = make_tex(a, lin, norm);
            fill_looks(rt, layered ? L : 1);
            char mode[64];
            snprintf(mode, sizeof mode, "%s, %s", lin ? "linear" : "point",
                     norm ? "normalized wrap" : "clamp");
            for (int k = 0; k < nkinds; k++) {
                if (kinds[k] == K_2D_S32_OFF && norm)
                    continue; /* integer coordinates are never normalized */
                ref_tex r2 = rt;
                if (kinds[k] == K_2D_S32_OFF)
                    r2.linear = false; /* integer coordinates read one texel */
                launch(t, kinds[k]);
                check(r2, kinds[k], mode);
            }
            CK(cudaDestroyTextureObject(t));
        }
    CK(cudaFreeArray(a));
}

/* tex2D / tex2DLod / tex2Dgather with isResident (PTX {d}|p), and in a
 * loop; res[i] collects the four flags, poisoned to false first */
__global__ void k_resident(cudaTextureObject_t t, const look *c, float4 *out, int *res, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    bool r0 = false, r1 = false, r2 = false, r3 = true;
    out[4 * i] = tex2D<float4>(t, c[i].x, c[i].y, &r0);
    out[4 * i + 1] = tex2DLod<float4>(t, c[i].x, c[i].y, 0.0f, &r1);
    out[4 * i + 2] = tex2Dgather<float4>(t, c[i].x, c[i].y, &r2, 0);
    float acc = 0;
    for (int k = 0; k < c[i].ox + 8; k++) { /* 0..15 trips */
        bool rk = false;
        acc += tex2D<float4>(t, c[i].x + k, c[i].y, &rk).x;
        r3 = r3 && rk;
    }
    out[4 * i + 3] = make_float4(acc, 0, 0, 1);
    res[i] = r0 | r1 << 1 | r2 << 2 | r3 << 3;
}

static void run_resident(void)
{
    cudaArray_t a = upload(2, false);
    ref_tex rt = {2, {W, H, 1}, false, false, true, false};
    cudaTextureObject_t t = make_tex(a, true, false);
    fill_looks(rt, 1);
    static float4 out[4 * N];
    static int res[N];
    float4 *dout;
    int *dres;
    CK(cudaMalloc(&dout, sizeof out));
    CK(cudaMalloc(&dres, sizeof res));
    CK(cudaMemcpy(dq, hq, sizeof hq, cudaMemcpyHostToDevice));
    CK(cudaMemset(dout, 0xff, sizeof out)); /* poison */
    CK(cudaMemset(dres, 0, sizeof res));
    k_resident<<<N / 64, 64>>>(t, dq, dout, dres, N);
    CK_LAUNCH();
    CK(cudaMemcpy(out, dout, sizeof out, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(res, dres, sizeof res, cudaMemcpyDeviceToHost));
    for (int i = 0; i < N; i++) {
        look q = hq[i];
        int trips = q.ox + 8;
        q.ox = q.oy = 0;
        double g[4], acc = 0;
        ref_gather(rt, q, g);
        for (int k = 0; k < trips; k++) {
            look qk = q;
            qk.x += (float)k;
            acc += ref_tex_sample(rt, qk);
        }
        /* one-channel float texture: (v, 0, 0, 0) (H200) */
        const double want[4][4] = {{ref_tex_sample(rt, q), 0, 0, 0},
                                   {ref_tex_sample(rt, q), 0, 0, 0},
                                   {g[0], g[1], g[2], g[3]},
                                   {acc, 0, 0, 1}};
        for (int r = 0; r < 4; r++) {
            const float got[4] = {out[4 * i + r].x, out[4 * i + r].y, out[4 * i + r].z,
                                  out[4 * i + r].w};
            for (int ch = 0; ch < 4; ch++)
                if (!(fabs(got[ch] - want[r][ch]) <= 1e-5 * (1.0 + fabs(want[r][ch]))))
                    zt_fail("isResident lookup %d at (%g, %g) channel %d: got %.8g want %.8g",
                            r, q.x, q.y, ch, got[ch], want[r][ch]);
        }
        if (res[i] != 15)
            zt_fail("isResident flags at (%g, %g): %#x, want 0xf", q.x, q.y, res[i]);
    }
    CK(cudaDestroyTextureObject(t));
    CK(cudaFreeArray(a));
    CK(cudaFree(dout));
    CK(cudaFree(dres));
    printf("  sparse forms ({d}|p): resident, same texels ok\n");
}

int main(void)
{
    zt_begin("texture_offset");
    CK(cudaMalloc(&dq, sizeof hq));
    CK(cudaMalloc(&dout, sizeof hout));
    const int k2[] = {K_2D_OFF, K_2D_OFF_IMM, K_2D_S32_OFF, K_TLD4_OFF};
    run(2, false, k2, 4, false);
    printf("  tex.2d (float, .s32, immediate) and tld4 offsets ok\n");
    const int k1[] = {K_1D_OFF};
    run(1, false, k1, 1, false);
    const int k3[] = {K_3D_OFF};
    run(3, false, k3, 1, false);
    printf("  tex.1d and tex.3d offsets ok\n");
    const int kc[] = {K_2D_CMP, K_2D_OFF_CMP, K_TLD4_CMP, K_TLD4_OFF_CMP};
    run(2, false, kc, 4, true);
    const int ka[] = {K_A2D_CMP};
    run(2, true, ka, 1, true);
    printf("  depth compare (tex.2d, tex.a2d, tld4.r; with offsets) ok\n");
    run_resident();
    CK(cudaFree(dq));
    CK(cudaFree(dout));
    return zt_finish();
}
