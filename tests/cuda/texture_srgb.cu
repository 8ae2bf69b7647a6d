/* texture_srgb.cu: sRGB textures (cudaTextureDesc::sRGB, CU_TRSF_SRGB) on
 * 8-bit unsigned arrays read as normalized floats: R, G and B go through
 * the H200's sRGB -> linear table (zt_srgb_lut, measured; close to the
 * sRGB standard's curve, not equal; of a two-channel texel only the first
 * converts, as on the H200), alpha stays c / 255; missing
 * channels read 0. Linear filtering weighs texels as zt_w2 (H200) and
 * blends the converted values as zt_srgb_blend models the H200 (within
 * ZT_SRGB_SLACK of it), plain ones within 1e-5. Point and linear filtering on uchar4 and uchar2, and the same
 * array without sRGB as a control. The reference is computed here in
 * double precision; outputs are poisoned first.
 */
#include "zn_test.h"
#include "zn_tex_test.h"
#include <math.h>

enum { W = 8, H = 4, N = 256 };

__global__ void k_fetch(cudaTextureObject_t t, const float2 *c, float4 *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = tex2D<float4>(t, c[i].x, c[i].y);
}

static double to_linear(unsigned char v)
{
    return zt_srgb_lut[v];
}

static unsigned char img[H][W][4];

/* channel ch of texel (x, y), clamped, as the texture should read it */
static double texel(int x, int y, int ch, int nch, bool srgb)
{
    x = x < 0 ? 0 : x >= W ? W - 1 : x;
    y = y < 0 ? 0 : y >= H ? H - 1 : y;
    if (ch >= nch)
        return 0.0; /* missing channels, alpha too, read 0 (H200) */
    unsigned char v = img[y][x][ch];
    /* of two channels only the first converts (measured on an H200) */
    return srgb && ch < (nch == 2 ? 1 : 3) ? to_linear(v) : v / 255.0;
}

static double ref(float2 c, int ch, int nch, bool srgb, bool linear)
{
    if (!linear)
        return texel((int)floorf(c.x), (int)floorf(c.y), ch, nch, srgb);
    float xb = c.x - 0.5f, yb = c.y - 0.5f;
    int i = (int)floorf(xb), j = (int)floorf(yb);
    int w[4];
    zt_w2(zt_w256(xb - floorf(xb)), zt_w256(yb - floorf(yb)), w);
    if (srgb && ch < (nch == 2 ? 1 : 3)) {
        const float v[4] = {(float)texel(i, j, ch, nch, srgb), (float)texel(i + 1, j, ch, nch, srgb),
                            (float)texel(i, j + 1, ch, nch, srgb),
                            (float)texel(i + 1, j + 1, ch, nch, srgb)};
        return zt_srgb_blend(v, w, 4);
    }
    return (w[0] * texel(i, j, ch, nch, srgb) + w[1] * texel(i + 1, j, ch, nch, srgb) +
            w[2] * texel(i, j + 1, ch, nch, srgb) + w[3] * texel(i + 1, j + 1, ch, nch, srgb)) /
           256.0;
}

static void run(int nch)
{
    static unsigned char packed[H * W * 4];
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            for (int c = 0; c < 4; c++) {
                img[y][x][c] = (unsigned char)(zt_rand() & 0xff);
                if ((x + y) % 5 == 0)
                    img[y][x][c] = (unsigned char)(zt_rand() % 12); /* the linear segment */
                if (c < nch)
                    packed[(y * W + x) * nch + c] = img[y][x][c];
            }
    cudaChannelFormatDesc cd = cudaCreateChannelDesc(8, nch > 1 ? 8 : 0, nch > 2 ? 8 : 0,
                                                     nch > 2 ? 8 : 0, cudaChannelFormatKindUnsigned);
    cudaArray_t a;
    CK(cudaMallocArray(&a, &cd, W, H));
    CK(cudaMemcpy2DToArray(a, 0, 0, packed, W * nch, W * nch, H, cudaMemcpyHostToDevice));
    static float2 hc[N];
    static float4 hout[N];
    for (int i = 0; i < N; i++)
        hc[i] = make_float2(zt_randf(-1.0f, W + 1.0f), zt_randf(-1.0f, H + 1.0f));
    float2 *dc;
    float4 *dout;
    CK(cudaMalloc(&dc, sizeof hc));
    CK(cudaMalloc(&dout, sizeof hout));
    CK(cudaMemcpy(dc, hc, sizeof hc, cudaMemcpyHostToDevice));
    for (int srgb = 0; srgb < 2; srgb++)
        for (int lin = 0; lin < 2; lin++) {
            cudaTextureDesc td;
            memset(&td, 0, sizeof td);
            td.addressMode[0] = td.addressMode[1] = cudaAddressModeClamp;
            td.filterMode = lin ? cudaFilterModeLinear : cudaFilterModePoint;
            td.readMode = cudaReadModeNormalizedFloat;
            td.sRGB = srgb;
            cudaTextureObject_t t = zt_array_texture(a, &td);
            CK(cudaMemset(dout, 0xff, sizeof hout)); /* poison */
            k_fetch<<<N / 64, 64>>>(t, dc, dout, N);
            CK_LAUNCH();
            CK(cudaMemcpy(hout, dout, sizeof hout, cudaMemcpyDeviceToHost));
            for (int i = 0; i < N; i++) {
                const float got[4] = {hout[i].x, hout[i].y, hout[i].z, hout[i].w};
                for (int ch = 0; ch < 4; ch++) {
                    double want = ref(hc[i], ch, nch, srgb, lin);
                    double tol = 1e-5 * (1.0 + fabs(want));
                    if (srgb && lin && ch < (nch == 2 ? 1 : 3))
                        tol += ZT_SRGB_SLACK;
                    if (!(fabs(got[ch] - want) <= tol))
                        zt_fail("%s uchar%d (%s) at (%g, %g) channel %d: got %.8g want %.8g",
                                srgb ? "sRGB" : "plain", nch, lin ? "linear" : "point",
                                hc[i].x, hc[i].y, ch, got[ch], want);
                }
            }
            CK(cudaDestroyTextureObject(t));
        }
    CK(cudaFreeArray(a));
    CK(cudaFree(dc));
    CK(cudaFree(dout));
    printf("  uchar%d: sRGB and plain, point and linear ok\n", nch);
}

int main(void)
{
    zt_begin("texture_srgb");
    run(4);
    run(2);
    return zt_finish();
}
