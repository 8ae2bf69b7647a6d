/* video_simd.cu: the SIMD video instructions (vabsdiff2/4 behind CUDA's
 * __vabsdiff and __vsad intrinsics, as CUDA's stereoDisparity sample uses
 * them; vadd/vsub/vavrg/vmin/vmax 2/4 with .sat and .add through inline
 * PTX) against a CPU reference that extracts the elements itself. Inputs
 * are random words plus edge patterns (0, all ones, 0x80 and 0x7f bytes,
 * 0x8000 and 0x7fff halves). sm_90 code also runs add/min/max on
 * .u16x2/.s16x2 (CUDA's __vadd2 and friends use them there).
 */
#include "zn_test.h"

#define N 4096
#define NOUT 21

template <int OP> __device__ unsigned vasm(unsigned a, unsigned b, unsigned c);
#define VASM(k, text)                                                          \
    template <> __device__ unsigned vasm<k>(unsigned a, unsigned b, unsigned c) \
    {                                                                          \
        unsigned d;                                                            \
        asm(text " %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));       \
        return d;                                                              \
    }
VASM(0, "vadd4.u32.u32.u32.sat")
VASM(1, "vsub4.s32.s32.s32.sat")
VASM(2, "vavrg4.u32.u32.u32")
VASM(3, "vmin4.s32.s32.s32")
VASM(4, "vmax2.u32.u32.u32")
VASM(5, "vsub2.s32.s32.s32.add")
VASM(6, "vadd2.s32.s32.s32.sat")
VASM(7, "vabsdiff4.u32.u32.u32.add")
VASM(8, "vmax4.s32.u32.s32")
VASM(9, "vavrg2.s32.s32.s32")

__global__ void k_video(const unsigned *a, const unsigned *b, const unsigned *c, unsigned *out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= N)
        return;
    unsigned x = a[i], y = b[i], z = c[i], *o = out + (size_t)i * NOUT;
    o[0] = __vabsdiffu4(x, y);
    o[1] = __vabsdiffs4(x, y);
    o[2] = __vabsdiffu2(x, y);
    o[3] = __vsadu4(x, y);
    o[4] = __vsadu2(x, y);
    o[5] = vasm<0>(x, y, z);
    o[6] = vasm<1>(x, y, z);
    o[7] = vasm<2>(x, y, z);
    o[8] = vasm<3>(x, y, z);
    o[9] = vasm<4>(x, y, z);
    o[10] = vasm<5>(x, y, z);
    o[11] = vasm<6>(x, y, z);
    o[12] = vasm<7>(x, y, z);
    o[13] = vasm<8>(x, y, z);
    o[14] = vasm<9>(x, y, z);
    o[15] = __vabsdiffs2(x, y);
    unsigned p[4] = {0, 0, 0, 0}, has = 0;
#if __CUDA_ARCH__ >= 900
    has = 1;
    asm("add.u16x2 %0, %1, %2;" : "=r"(p[0]) : "r"(x), "r"(y));
    asm("add.s16x2 %0, %1, %2;" : "=r"(p[1]) : "r"(x), "r"(y));
    asm("min.relu.s16x2 %0, %1, %2;" : "=r"(p[2]) : "r"(x), "r"(y));
    asm("max.u16x2 %0, %1, %2;" : "=r"(p[3]) : "r"(x), "r"(y));
#endif
    for (int k = 0; k < 4; k++)
        o[16 + k] = p[k];
    o[20] = has;
}

/* ---- CPU reference ---------------------------------------------------- */

enum { ADD, SUB, AVRG, ABSDIFF, MIN, MAX };

static long elem(unsigned x, int k, int w, bool sign)
{
    unsigned e = (x >> (k * w)) & ((1u << w) - 1);
    return sign && (e >> (w - 1)) ? (long)e - (1L << w) : (long)e;
}

/* n elements of w bits; sd/sa/sb: signedness of d, a, b */
static unsigned ref(int op, int n, bool sd, bool sa, bool sb, bool sat, bool add, unsigned a,
                    unsigned b, unsigned c)
{
    int w = 32 / n;
    unsigned d = 0;
    long sum = 0;
    for (int k = 0; k < n; k++) {
        long x = elem(a, k, w, sa), y = elem(b, k, w, sb), r;
        switch (op) {
        case ADD: r = x + y; break;
        case SUB: r = x - y; break;
        /* the ISA: a non-negative sum rounds up, a negative one down */
        case AVRG: r = x + y >= 0 ? (x + y + 1) / 2 : -((-(x + y) + 1) / 2); break;
        case ABSDIFF: r = x > y ? x - y : y - x; break;
        case MIN: r = x < y ? x : y; break;
        default: r = x > y ? x : y; break;
        }
        if (add) {
            sum += r;
            continue;
        }
        if (sat) {
            long lo = sd ? -(1L << (w - 1)) : 0, hi = sd ? (1L << (w - 1)) - 1 : (1L << w) - 1;
            r = r < lo ? lo : r > hi ? hi : r;
        }
        d |= ((unsigned)r & ((1u << w) - 1)) << (k * w);
    }
    return add ? c + (unsigned)sum : d;
}

int main(void)
{
    zt_begin("video_simd");
    static unsigned ha[N], hb[N], hc[N], hout[N * NOUT];
    const unsigned edge[] = {0, 0xffffffffu, 0x80808080u, 0x7f7f7f7fu, 0x80007fffu,
                             0x7fff8000u, 0x01ff80feu, 0xfe017f81u};
    uint64_t s = 0x9e3779b97f4a7c15ull;
    for (int i = 0; i < N; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        ha[i] = (unsigned)(s >> 32);
        hb[i] = (unsigned)s;
        hc[i] = (unsigned)(s >> 16);
        if (i < 64) {
            ha[i] = edge[i % 8];
            hb[i] = edge[i / 8];
        }
    }
    unsigned *da, *db, *dc, *dout;
    CK(cudaMalloc(&da, sizeof ha));
    CK(cudaMalloc(&db, sizeof hb));
    CK(cudaMalloc(&dc, sizeof hc));
    CK(cudaMalloc(&dout, sizeof hout));
    CK(cudaMemcpy(da, ha, sizeof ha, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(db, hb, sizeof hb, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dc, hc, sizeof hc, cudaMemcpyHostToDevice));
    CK(cudaMemset(dout, 0xa5, sizeof hout));   /* poison */
    k_video<<<N / 128, 128>>>(da, db, dc, dout);
    CK_LAUNCH();
    CK(cudaMemcpy(hout, dout, sizeof hout, cudaMemcpyDeviceToHost));
    static const char *names[NOUT] = {
        "__vabsdiffu4", "__vabsdiffs4", "__vabsdiffu2", "__vsadu4", "__vsadu2",
        "vadd4.u32.u32.u32.sat", "vsub4.s32.s32.s32.sat", "vavrg4.u32.u32.u32",
        "vmin4.s32.s32.s32", "vmax2.u32.u32.u32", "vsub2.s32.s32.s32.add",
        "vadd2.s32.s32.s32.sat", "vabsdiff4.u32.u32.u32.add", "vmax4.s32.u32.s32",
        "vavrg2.s32.s32.s32", "__vabsdiffs2", "add.u16x2", "add.s16x2", "min.relu.s16x2",
        "max.u16x2", "sm_90 code"};
    for (int i = 0; i < N; i++) {
        unsigned a = ha[i], b = hb[i], c = hc[i], want[NOUT];
        want[0] = ref(ABSDIFF, 4, false, false, false, false, false, a, b, 0);
        want[1] = ref(ABSDIFF, 4, true, true, true, false, false, a, b, 0);
        want[2] = ref(ABSDIFF, 2, false, false, false, false, false, a, b, 0);
        want[3] = ref(ABSDIFF, 4, false, false, false, false, true, a, b, 0);
        want[4] = ref(ABSDIFF, 2, false, false, false, false, true, a, b, 0);
        want[5] = ref(ADD, 4, false, false, false, true, false, a, b, c);
        want[6] = ref(SUB, 4, true, true, true, true, false, a, b, c);
        want[7] = ref(AVRG, 4, false, false, false, false, false, a, b, c);
        want[8] = ref(MIN, 4, true, true, true, false, false, a, b, c);
        want[9] = ref(MAX, 2, false, false, false, false, false, a, b, c);
        want[10] = ref(SUB, 2, true, true, true, false, true, a, b, c);
        want[11] = ref(ADD, 2, true, true, true, true, false, a, b, c);
        want[12] = ref(ABSDIFF, 4, false, false, false, false, true, a, b, c);
        want[13] = ref(MAX, 4, true, false, true, false, false, a, b, c);
        want[14] = ref(AVRG, 2, true, true, true, false, false, a, b, c);
        want[15] = ref(ABSDIFF, 2, true, true, true, false, false, a, b, 0);
        bool has = hout[i * NOUT + 20] == 1;
        want[16] = has ? ref(ADD, 2, false, false, false, false, false, a, b, 0) : 0;
        want[17] = has ? ref(ADD, 2, true, true, true, false, false, a, b, 0) : 0;
        unsigned m = ref(MIN, 2, true, true, true, false, false, a, b, 0);
        for (int h = 0; h < 2; h++)     /* .relu: negative halves become 0 */
            if (m >> (16 * h + 15) & 1)
                m &= ~(0xffffu << (16 * h));
        want[18] = has ? m : 0;
        want[19] = has ? ref(MAX, 2, false, false, false, false, false, a, b, 0) : 0;
        want[20] = hout[i * NOUT + 20] <= 1 ? hout[i * NOUT + 20] : 0;
        for (int k = 0; k < NOUT; k++)
            if (hout[i * NOUT + k] != want[k])
                zt_fail("%s(0x%08x, 0x%08x, 0x%08x) = 0x%08x, want 0x%08x", names[k], a, b, c,
                        hout[i * NOUT + k], want[k]);
    }
    CK(cudaFree(da));
    CK(cudaFree(db));
    CK(cudaFree(dc));
    CK(cudaFree(dout));
    return zt_finish();
}
