/* texture_bptc.cu: BC7 (RGBA UNORM, and its sRGB variant) and BC6H
 * (unsigned and signed half floats) arrays read by tex2D, point sampling
 * of every texel of a 16 x 8 image (8 blocks).
 *
 * The test is the encoder: each block is assembled here bit by bit from
 * chosen modes, partitions, endpoints and indices (field order and sizes
 * from the BPTC specification: the Khronos Data Format Specification,
 * OpenGL's BPTC section), and the expected texels come from those chosen
 * values, never from parsing the block: BC7 endpoints widened by
 * replicating their top bits, ((64 - w) e0 + w e1 + 32) >> 6 with the
 * 2/3/4-bit weights, rotation; BC6H endpoints (raw, or endpoint 0 plus
 * signed deltas modulo 2^bits), unquantized to 16 bits, interpolated,
 * scaled by 31/64 (unsigned) or 31/32 (signed) into half floats. Modes:
 * BC7 0x00 (reserved: transparent black), 1 (two subsets, shared P-bits,
 * partition 13), 2 (three subsets, partition 8), 4 (index selection 1),
 * 5 (rotation), 6 (P-bits); BC6H 3, 11 (bits stored reversed), 15, 30 (two
 * subsets, partition 13) and reserved mode 19 (0, 0, 0, 1). Exact
 * comparisons up to float rounding (the decoders are bit-exact by
 * definition; sRGB: 1e-5).
 */
#include "zn_test.h"
#include "zn_tex_test.h"
#include <math.h>

enum { BW = 4, BH = 2, W = 4 * BW, H = 4 * BH };

__global__ void k_point(cudaTextureObject_t t, float4 *out)
{
    int x = threadIdx.x, y = blockIdx.x;
    out[y * W + x] = tex2D<float4>(t, x + 0.5f, y + 0.5f);
}

/* ---- a little-endian bit writer --------------------------------------------- */

struct block {
    unsigned char b[16];
    unsigned pos;
    double want[16][4]; /* per texel k = 4 j + i */
};

static void put(block &blk, unsigned v, unsigned n)
{
    for (unsigned k = 0; k < n; k++, blk.pos++)
        if ((v >> k) & 1)
            blk.b[blk.pos / 8] |= (unsigned char)(1u << (blk.pos % 8));
}

static void start(block &blk)
{
    memset(&blk, 0, sizeof blk);
}

static unsigned rnd(unsigned bits)
{
    return zt_rand() & ((1u << bits) - 1);
}

static const unsigned w2[4] = {0, 21, 43, 64}, w3[8] = {0, 9, 18, 27, 37, 46, 55, 64},
                      w4[16] = {0, 4, 9, 13, 17, 21, 26, 30, 34, 38, 43, 47, 51, 55, 60, 64};

static unsigned wt(unsigned bits, unsigned idx)
{
    return bits == 2 ? w2[idx] : bits == 3 ? w3[idx] : w4[idx];
}

static unsigned lerp8(unsigned e0, unsigned e1, unsigned w)
{
    return ((64 - w) * e0 + w * e1 + 32) >> 6;
}

/* a value of `bits` bits widened to 8 by replicating its top bits */
static unsigned widen(unsigned v, unsigned bits)
{
    unsigned r = v << (8 - bits);
    return r | (r >> bits);
}

/* ---- BC7 --------------------------------------------------------------------- */

/* Indices of the 16 texels (`bits` each, anchors one fewer): random, the
 * anchors' below half the range. */
static void bc7_indices(block &blk, unsigned bits, const int *anchor, unsigned *idx)
{
    for (int k = 0; k < 16; k++) {
        bool a = anchor[k];
        idx[k] = rnd(bits - (a ? 1 : 0));
        put(blk, idx[k], bits - (a ? 1 : 0));
    }
}

/* mode 6: one subset, 7-bit RGBA endpoints with a P-bit each, 4-bit indices */
static void bc7_mode6(block &blk)
{
    start(blk);
    put(blk, 1u << 6, 7);
    unsigned e[2][4], p[2];
    for (int c = 0; c < 4; c++)
        for (int n = 0; n < 2; n++) {
            e[n][c] = rnd(7);
            put(blk, e[n][c], 7);
        }
    for (int n = 0; n < 2; n++) {
        p[n] = rnd(1);
        put(blk, p[n], 1);
    }
    int anchor[16] = {1};
    unsigned idx[16];
    bc7_indices(blk, 4, anchor, idx);
    for (int k = 0; k < 16; k++)
        for (int c = 0; c < 4; c++)
            blk.want[k][c] = lerp8(e[0][c] << 1 | p[0], e[1][c] << 1 | p[1], w4[idx[k]]) / 255.0;
}

/* mode 5: 7-bit colour, 8-bit alpha, 2-bit colour and alpha indices,
 * rotation rot swaps alpha with R (1), G (2) or B (3) */
static void bc7_mode5(block &blk, unsigned rot)
{
    start(blk);
    put(blk, 1u << 5, 6);
    put(blk, rot, 2);
    unsigned e[2][4];
    for (int c = 0; c < 4; c++)
        for (int n = 0; n < 2; n++) {
            e[n][c] = rnd(c < 3 ? 7 : 8);
            put(blk, e[n][c], c < 3 ? 7 : 8);
        }
    int anchor[16] = {1};
    unsigned ci[16], ai[16];
    bc7_indices(blk, 2, anchor, ci);
    bc7_indices(blk, 2, anchor, ai);
    for (int k = 0; k < 16; k++) {
        unsigned v[4];
        for (int c = 0; c < 3; c++)
            v[c] = lerp8(widen(e[0][c], 7), widen(e[1][c], 7), w2[ci[k]]);
        v[3] = lerp8(e[0][3], e[1][3], w2[ai[k]]);
        if (rot) {
            unsigned t = v[3];
            v[3] = v[rot - 1];
            v[rot - 1] = t;
        }
        for (int c = 0; c < 4; c++)
            blk.want[k][c] = v[c] / 255.0;
    }
}

/* mode 4 with index selection 1: 5-bit colour, 6-bit alpha; colour takes
 * the 3-bit secondary indices, alpha the 2-bit primary ones */
static void bc7_mode4(block &blk)
{
    start(blk);
    put(blk, 1u << 4, 5);
    put(blk, 0, 2); /* no rotation */
    put(blk, 1, 1); /* index selection */
    unsigned e[2][4];
    for (int c = 0; c < 4; c++)
        for (int n = 0; n < 2; n++) {
            e[n][c] = rnd(c < 3 ? 5 : 6);
            put(blk, e[n][c], c < 3 ? 5 : 6);
        }
    int anchor[16] = {1};
    unsigned i2[16], i3[16];
    bc7_indices(blk, 2, anchor, i2);
    bc7_indices(blk, 3, anchor, i3);
    for (int k = 0; k < 16; k++) {
        for (int c = 0; c < 3; c++)
            blk.want[k][c] = lerp8(widen(e[0][c], 5), widen(e[1][c], 5), w3[i3[k]]) / 255.0;
        blk.want[k][3] = lerp8(widen(e[0][3], 6), widen(e[1][3], 6), w2[i2[k]]) / 255.0;
    }
}

/* Multi-subset modes: subset[k] of each texel and the anchors. Partition
 * 13 of two subsets: rows 2-3 are subset 1, its anchor texel 15.
 * Partition 8 of three: rows 0-1 subset 0, row 2 subset 1 (anchor 8),
 * row 3 subset 2 (anchor 15). */
static void shape(int ns, int *subset, int *anchor)
{
    for (int k = 0; k < 16; k++) {
        subset[k] = ns == 2 ? (k >= 8) : (k < 8 ? 0 : k < 12 ? 1 : 2);
        anchor[k] = k == 0 || k == 15 || (ns == 3 && k == 8);
    }
}

/* mode 1: two subsets (partition 13), 6-bit RGB, a shared P-bit per
 * subset, 3-bit indices; mode 2: three subsets (partition 8), 5-bit RGB,
 * no P-bits, 2-bit indices. Alpha is 1. */
static void bc7_subsets(block &blk, int mode)
{
    start(blk);
    int ns = mode == 1 ? 2 : 3, cb = mode == 1 ? 6 : 5, ib = mode == 1 ? 3 : 2;
    put(blk, 1u << mode, mode + 1);
    put(blk, mode == 1 ? 13 : 8, 6);
    unsigned e[3][2][3], p[3] = {0, 0, 0};
    for (int c = 0; c < 3; c++)
        for (int s = 0; s < ns; s++)
            for (int n = 0; n < 2; n++) {
                e[s][n][c] = rnd(cb);
                put(blk, e[s][n][c], cb);
            }
    if (mode == 1)
        for (int s = 0; s < ns; s++) {
            p[s] = rnd(1);
            put(blk, p[s], 1);
        }
    int subset[16], anchor[16];
    shape(ns, subset, anchor);
    unsigned idx[16];
    bc7_indices(blk, ib, anchor, idx);
    for (int k = 0; k < 16; k++) {
        int s = subset[k];
        for (int c = 0; c < 3; c++) {
            unsigned a = mode == 1 ? widen(e[s][0][c] << 1 | p[s], 7) : widen(e[s][0][c], 5);
            unsigned b = mode == 1 ? widen(e[s][1][c] << 1 | p[s], 7) : widen(e[s][1][c], 5);
            blk.want[k][c] = lerp8(a, b, wt(ib, idx[k])) / 255.0;
        }
        blk.want[k][3] = 1.0;
    }
}

/* ---- BC6H -------------------------------------------------------------------- */

static int sext(unsigned v, int bits)
{
    return (int)(v << (32 - bits)) >> (32 - bits);
}

static int unq(int c, int bits, bool sgn)
{
    if (!sgn) {
        if (bits >= 15)
            return c;
        if (c == 0)
            return 0;
        if (c == (1 << bits) - 1)
            return 0xffff;
        return ((c << 16) + 0x8000) >> bits;
    }
    if (bits >= 16)
        return c;
    int a = c < 0 ? -c : c, q;
    q = a == 0 ? 0 : a >= (1 << (bits - 1)) - 1 ? 0x7fff : ((a << 15) + 0x4000) >> (bits - 1);
    return c < 0 ? -q : q;
}

static double half_value(unsigned h)
{
    int e = (h >> 10) & 31, m = h & 1023;
    double v = e ? ldexp(1024 + m, e - 25) : ldexp(m, -24);
    return h & 0x8000 ? -v : v;
}

/* the texel of endpoints a, b (unquantized) at weight w */
static double bc6h_value(int a, int b, unsigned w, bool sgn)
{
    int v = (a * (64 - (int)w) + b * (int)w + 32) >> 6;
    if (!sgn)
        return half_value((unsigned)(v * 31) >> 6);
    unsigned mag = (unsigned)((v < 0 ? -v : v) * 31) >> 5;
    return half_value((v < 0 ? 0x8000u : 0) | mag);
}

/* One-subset modes 3 (raw 10-bit endpoints), 11 (12-bit endpoint 0,
 * 8-bit delta, the top two bits of endpoint 0 stored reversed after the
 * delta) and 15 (16-bit, 4-bit delta, top six bits reversed). */
static void bc6h_one(block &blk, int mode, bool sgn)
{
    start(blk);
    int epb = mode == 3 ? 10 : mode == 11 ? 12 : 16, db = mode == 3 ? 10 : mode == 11 ? 8 : 4;
    put(blk, (unsigned)mode, 5);
    unsigned e0[3], d[3];
    for (int c = 0; c < 3; c++)
        e0[c] = rnd(epb);
    for (int c = 0; c < 3; c++)
        put(blk, e0[c] & 1023, 10);
    for (int c = 0; c < 3; c++) {
        d[c] = rnd(db);
        put(blk, d[c], db);
        for (int bit = epb - 1; bit >= 10; bit--) /* reversed: the top bit first */
            put(blk, (e0[c] >> bit) & 1, 1);
    }
    unsigned idx[16];
    int anchor[16] = {1};
    for (int k = 0; k < 16; k++) {
        idx[k] = rnd(anchor[k] ? 3 : 4);
        put(blk, idx[k], anchor[k] ? 3 : 4);
    }
    for (int c = 0; c < 3; c++) {
        int a = sgn ? sext(e0[c], epb) : (int)e0[c], b;
        if (mode == 3) {
            b = sgn ? sext(d[c], epb) : (int)d[c];
        } else {
            unsigned sum = (e0[c] + (unsigned)sext(d[c], db)) & ((1u << epb) - 1);
            b = sgn ? sext(sum, epb) : (int)sum;
        }
        int ua = unq(a, epb, sgn), ub = unq(b, epb, sgn);
        for (int k = 0; k < 16; k++)
            blk.want[k][c] = bc6h_value(ua, ub, w4[idx[k]], sgn);
    }
    for (int k = 0; k < 16; k++)
        blk.want[k][3] = 1.0;
}

/* Mode 30: two subsets (partition 13), raw 6-bit endpoints R0..R3 (R0,
 * R1 subset 0; R2, R3 subset 1), 3-bit indices; the layout of the
 * specification's table: M, R0, G3.4, B3.0, B3.1, B2.4, G0, G2.5, B2.5,
 * B3.2, G2.4, B0, G3.5, B3.3, B3.5, B3.4, R1, G2.3..0, G1, G3.3..0, B1,
 * B2.3..0, R2, R3, PB. */
static void bc6h_mode30(block &blk, bool sgn)
{
    start(blk);
    unsigned v[3][4]; /* channel, endpoint */
    for (int c = 0; c < 3; c++)
        for (int n = 0; n < 4; n++)
            v[c][n] = rnd(6);
    const unsigned R = 0, G = 1, B = 2;
    struct { unsigned c, n, hi, lo; } f[] = {
        {R, 0, 5, 0}, {G, 3, 4, 4}, {B, 3, 0, 0}, {B, 3, 1, 1}, {B, 2, 4, 4}, {G, 0, 5, 0},
        {G, 2, 5, 5}, {B, 2, 5, 5}, {B, 3, 2, 2}, {G, 2, 4, 4}, {B, 0, 5, 0}, {G, 3, 5, 5},
        {B, 3, 3, 3}, {B, 3, 5, 5}, {B, 3, 4, 4}, {R, 1, 5, 0}, {G, 2, 3, 0}, {G, 1, 5, 0},
        {G, 3, 3, 0}, {B, 1, 5, 0}, {B, 2, 3, 0}, {R, 2, 5, 0}, {R, 3, 5, 0}};
    put(blk, 30, 5);
    for (unsigned i = 0; i < sizeof f / sizeof f[0]; i++)
        put(blk, v[f[i].c][f[i].n] >> f[i].lo, f[i].hi - f[i].lo + 1);
    put(blk, 13, 5);
    int subset[16], anchor[16];
    shape(2, subset, anchor);
    unsigned idx[16];
    for (int k = 0; k < 16; k++) {
        idx[k] = rnd(anchor[k] ? 2 : 3);
        put(blk, idx[k], anchor[k] ? 2 : 3);
    }
    for (int k = 0; k < 16; k++) {
        int s = subset[k];
        for (int c = 0; c < 3; c++) {
            int a = sgn ? sext(v[c][2 * s], 6) : (int)v[c][2 * s];
            int b = sgn ? sext(v[c][2 * s + 1], 6) : (int)v[c][2 * s + 1];
            blk.want[k][c] = bc6h_value(unq(a, 6, sgn), unq(b, 6, sgn), w3[idx[k]], sgn);
        }
        blk.want[k][3] = 1.0;
    }
}

/* ---- runs -------------------------------------------------------------------- */

static block blocks[BH][BW];

/* the H200's sRGB table of a BC7 channel (an 8-bit value n / 255) */
static double to_linear(double c)
{
    return zt_srgb_lut[(int)lrint(c * 255.0)];
}

static void run(cudaChannelFormatDesc cd, const char *name, bool srgb)
{
    static unsigned char packed[BH * BW * 16];
    for (int by = 0; by < BH; by++)
        for (int bx = 0; bx < BW; bx++)
            memcpy(packed + (by * BW + bx) * 16, blocks[by][bx].b, 16);
    cudaArray_t a;
    CK(cudaMallocArray(&a, &cd, W, H));
    CK(cudaMemcpy2DToArray(a, 0, 0, packed, BW * 16, BW * 16, BH, cudaMemcpyHostToDevice));
    cudaResourceDesc rd;
    memset(&rd, 0, sizeof rd);
    rd.resType = cudaResourceTypeArray;
    rd.res.array.array = a;
    cudaTextureDesc td;
    memset(&td, 0, sizeof td);
    td.filterMode = cudaFilterModePoint;
    /* cudart wants normalized reads of BC7 and element reads of BC6H */
    td.readMode = cd.f == cudaChannelFormatKindUnsignedBlockCompressed6H ||
                          cd.f == cudaChannelFormatKindSignedBlockCompressed6H
                      ? cudaReadModeElementType
                      : cudaReadModeNormalizedFloat;
    cudaTextureObject_t t;
    if (srgb) { /* NVIDIA's driver wants cudaTextureDesc::sRGB for BC7 sRGB */
        if (cudaCreateTextureObject(&t, &rd, &td, NULL) != cudaErrorInvalidValue)
            zt_fail("%s without cudaTextureDesc::sRGB: not refused", name);
        cudaGetLastError();
        td.sRGB = 1;
    }
    CK(cudaCreateTextureObject(&t, &rd, &td, NULL));
    static float4 hout[W * H];
    float4 *dout;
    CK(cudaMalloc(&dout, sizeof hout));
    CK(cudaMemset(dout, 0xff, sizeof hout)); /* poison */
    k_point<<<H, W>>>(t, dout);
    CK_LAUNCH();
    CK(cudaMemcpy(hout, dout, sizeof hout, cudaMemcpyDeviceToHost));
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            const block &blk = blocks[y / 4][x / 4];
            const double *want = blk.want[(y % 4) * 4 + x % 4];
            const float got[4] = {hout[y * W + x].x, hout[y * W + x].y, hout[y * W + x].z,
                                  hout[y * W + x].w};
            for (int c = 0; c < 4; c++) {
                /* sRGB: the H200's table of the decoded 8-bit value */
                double wv = srgb && c < 3 ? to_linear(want[c]) : want[c];
                double tol = 1e-7;
                if (!(fabs(got[c] - wv) <= tol * (1 + fabs(wv))) && !(got[c] == (float)wv))
                    zt_fail("%s block (%d, %d) texel (%d, %d) channel %d: got %.9g want %.9g",
                            name, x / 4, y / 4, x % 4, y % 4, c, got[c], wv);
            }
        }
    CK(cudaDestroyTextureObject(t));
    CK(cudaFree(dout));
    CK(cudaFreeArray(a));
    printf("  %s ok\n", name);
}

static void bc7(bool srgb)
{
    bc7_mode6(blocks[0][0]);
    bc7_mode5(blocks[0][1], 1);
    bc7_mode5(blocks[0][2], 3);
    bc7_mode4(blocks[0][3]);
    bc7_subsets(blocks[1][0], 1);
    bc7_subsets(blocks[1][1], 2);
    bc7_mode6(blocks[1][2]);
    start(blocks[1][3]); /* byte 0 zero: reserved, transparent black */
    for (int k = 0; k < 16; k++)
        blocks[1][3].b[k] = k ? (unsigned char)zt_rand() : 0;
    run(srgb ? cudaCreateChannelDesc<cudaChannelFormatKindUnsignedBlockCompressed7SRGB>()
             : cudaCreateChannelDesc<cudaChannelFormatKindUnsignedBlockCompressed7>(),
        srgb ? "BC7 sRGB" : "BC7", srgb);
}

static void bc6h(bool sgn)
{
    bc6h_one(blocks[0][0], 3, sgn);
    bc6h_one(blocks[0][1], 11, sgn);
    bc6h_one(blocks[0][2], 15, sgn);
    bc6h_mode30(blocks[0][3], sgn);
    bc6h_one(blocks[1][0], 11, sgn);
    bc6h_mode30(blocks[1][1], sgn);
    bc6h_one(blocks[1][2], 15, sgn);
    start(blocks[1][3]); /* mode 19: reserved, (0, 0, 0, 1) */
    put(blocks[1][3], 19, 5);
    for (int k = 1; k < 16; k++)
        blocks[1][3].b[k] = (unsigned char)zt_rand();
    for (int k = 0; k < 16; k++)
        blocks[1][3].want[k][3] = 1.0;
    run(sgn ? cudaCreateChannelDesc<cudaChannelFormatKindSignedBlockCompressed6H>()
            : cudaCreateChannelDesc<cudaChannelFormatKindUnsignedBlockCompressed6H>(),
        sgn ? "BC6H signed" : "BC6H unsigned", false);
}

int main(void)
{
    zt_begin("texture_bptc");
    bc7(false);
    bc7(true);
    bc6h(false);
    bc6h(true);
    return zt_finish();
}
