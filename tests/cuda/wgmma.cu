// wgmma.cu: sm_90a's warpgroup matrix multiply (wgmma.mma_async) through
// Zinc, against a CPU matrix product.
//
// One warpgroup (128 threads) per case computes D (64 x N) = A (64 x K) B
// (K x N) in K/k steps. The operands sit in shared memory in the canonical
// layouts CUTLASS's make_gmma_desc documents (K-major: 8-row core matrices
// of 16-byte chunks, interleaved or 32/64/128-byte swizzled, the chunk
// index XORed with the row; MN-major for f16/bf16), described by 64-bit
// matrix descriptors; A may come from registers in mma.sync's fragment
// layout. The first step has scale-d = 0 (D = A B), the rest accumulate.
// D is written out by the accumulator fragment layout (warp w: rows 16w..;
// lane l: rows l/4 and l/4 + 8, columns 2(l%4), +1 of each 8-column block).
// Inputs are small integers (products and sums exact in f32), so any
// layout or fragment mistake shows as a wrong element. Cases: f16 -> f32
// with each layout; bf16 with A from registers, B MN-major and imm-scale-a
// -1; f16 -> f16; tf32 -> f32; e4m3 x e5m2 -> f32; s8 x u8 -> s32; b1
// AND-popc -> s32 (each byte 8 bits of k; the reference counts the bits
// A and B share).
#include "zn_test.h"
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <string.h>

enum { INTER = 0, B128 = 1, B64 = 2, B32 = 3 };
enum { F16, BF16, TF32, FP8, I8, B1 };  // B1: k counted in bytes here

// byte offset of element (r, k): r a row of A or a column of B (K-major),
// or the MN index (MN-major); T elements per 16-byte chunk; swizzle
// applied (tile bases are 1024-byte aligned)
__host__ __device__ static unsigned canon(int lay, bool mn, unsigned esz, unsigned r, unsigned k,
                                          unsigned lbo, unsigned sbo)
{
    const unsigned w = lay == INTER ? 1 : lay == B128 ? 8 : lay == B64 ? 4 : 2;
    const unsigned t = 16 / esz;
    unsigned off;
    if (!mn)
        off = lay == INTER ? (r % 8) * 16 + (r / 8) * sbo + (k / t) * lbo
                           : (r % 8) * 16 * w + (r / 8) * sbo + (k / t) * 16;
    else
        off = lay == INTER ? (r / t) * sbo + (k % 8) * 16 + (k / 8) * lbo
                           : ((r / t) % w) * 16 + ((r / t) / w) * lbo + (k % 8) * 16 * w + (k / 8) * sbo;
    off += (mn ? r % t : k % t) * esz;
    const unsigned bits = lay == INTER ? 0 : lay == B128 ? 3 : lay == B64 ? 2 : 1;
    return off ^ (((off >> 7) & ((1u << bits) - 1)) << 4);
}

__device__ static unsigned long long make_desc(const void *smem, int lay, unsigned lbo, unsigned sbo)
{
    unsigned a = (unsigned)__cvta_generic_to_shared(smem);
    return (unsigned long long)((a >> 4) & 0x3fff) | (unsigned long long)((lbo >> 4) & 0x3fff) << 16 |
           (unsigned long long)((sbo >> 4) & 0x3fff) << 32 | (unsigned long long)lay << 62;
}

struct Case {
    const char *name;
    int type, n, k;             // input type, N, total K
    int lay_a, lay_b;           // layouts (A: K-major; B: K- or MN-major)
    bool b_mn, a_regs, acc16, neg_a;
    unsigned lbo_a, sbo_a, lbo_b, sbo_b;
};

// the step's k extent and the byte advance of a K-major descriptor per step
__host__ __device__ static int kstep(int type) { return type == TF32 ? 8 : type >= FP8 ? 32 : 16; }
__host__ __device__ static unsigned esize(int type) { return type == TF32 ? 4 : type >= FP8 ? 1 : 2; }

// one wgmma step; d: the accumulator registers (N/2 f32 or N/4 f16x2)
#define WG_F32_16(T, ad, bd, sd, sa, ta, tb)                                                  \
    asm volatile("{ .reg .pred p; setp.ne.b32 p, %10, 0;\n"                                   \
                 "wgmma.mma_async.sync.aligned.m64n16k16.f32." T "." T                       \
                 " {%0,%1,%2,%3,%4,%5,%6,%7}, %8, %9, p, " sa ", 1, " ta ", " tb "; }"        \
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),    \
                   "+f"(d[6]), "+f"(d[7])                                                      \
                 : "l"(ad), "l"(bd), "r"(sd))

template <int CASE>
__global__ void __launch_bounds__(128) wg_kernel(Case c, const unsigned *ga, const unsigned *gb, float *out)
{
    // A: 64 x K, B: N x K (or K x N) elements, each 16- or 32-bit, in
    // shared memory already laid out by the host (bytes copied as given)
    extern __shared__ __align__(1024) unsigned char smem[];
    unsigned char *sa = smem, *sb = smem + 16384;
    for (int i = threadIdx.x; i < 16384 / 4; i += blockDim.x) {
        ((unsigned *)sa)[i] = ga[i];
        ((unsigned *)sb)[i] = gb[i];
    }
    __syncthreads();
    const int lane = threadIdx.x % 32, w = threadIdx.x / 32, g = lane / 4, t = lane % 4;
    float d[16];
    unsigned h[8];
    int id[8];
    for (int i = 0; i < 8; i++)
        id[i] = 77;
    for (int i = 0; i < 16; i++)
        d[i] = -1.0f;   // scale-d = 0 must ignore this
    for (int i = 0; i < 8; i++)
        h[i] = 0xbc00bc00u;
    const int steps = c.k / kstep(c.type);
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
    for (int s = 0; s < steps; s++) {
        int k0 = s * kstep(c.type);
        // K-major descriptors step by the k offset's address (in-atom for
        // swizzled layouts, as CUTLASS advances them); MN-major by k groups
        unsigned ea = esize(c.type);
        unsigned long long ad = make_desc(sa + canon(INTER, false, ea, 0, k0, c.lbo_a, c.sbo_a) *
                                                   (c.lay_a == INTER) +
                                              (c.lay_a != INTER ? k0 * ea : 0),
                                          c.lay_a, c.lbo_a, c.sbo_a);
        unsigned long long bd = make_desc(sb + (c.b_mn ? (k0 / 8) * (c.lay_b == INTER ? c.lbo_b : c.sbo_b)
                                                   : c.lay_b == INTER ? (k0 / (16 / ea)) * c.lbo_b
                                                                      : k0 * ea),
                                          c.lay_b, c.lbo_b, c.sbo_b);
        int sd = s > 0;
        if (CASE == 0)
            WG_F32_16("f16", ad, bd, sd, "1", "0", "0");
        if (CASE == 1) {
            // A from registers: mma.sync's m16n8k16 A fragment of rows 16w..
            unsigned a[4];
            for (int r = 0; r < 4; r++) {
                int row = 16 * w + g + ((r & 1) ? 8 : 0), k = k0 + 2 * t + ((r & 2) ? 8 : 0);
                unsigned lo = *(const unsigned short *)(sa + canon(c.lay_a, false, 2, row, k, c.lbo_a, c.sbo_a));
                unsigned hi = *(const unsigned short *)(sa + canon(c.lay_a, false, 2, row, k + 1, c.lbo_a, c.sbo_a));
                a[r] = lo | hi << 16;
            }
            asm volatile("{ .reg .pred p; setp.ne.b32 p, %13, 0;\n"
                         "wgmma.mma_async.sync.aligned.m64n16k16.f32.bf16.bf16"
                         " {%0,%1,%2,%3,%4,%5,%6,%7}, {%8,%9,%10,%11}, %12, p, -1, 1, 1; }"
                         : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),
                           "+f"(d[6]), "+f"(d[7])
                         : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(bd), "r"(sd));
        }
        if (CASE == 2)
            asm volatile("{ .reg .pred p; setp.ne.b32 p, %6, 0;\n"
                         "wgmma.mma_async.sync.aligned.m64n16k16.f16.f16.f16"
                         " {%0,%1,%2,%3}, %4, %5, p, 1, 1, 0, 0; }"
                         : "+r"(h[0]), "+r"(h[1]), "+r"(h[2]), "+r"(h[3])
                         : "l"(ad), "l"(bd), "r"(sd));
        if (CASE == 3)
            asm volatile("{ .reg .pred p; setp.ne.b32 p, %10, 0;\n"
                         "wgmma.mma_async.sync.aligned.m64n16k8.f32.tf32.tf32"
                         " {%0,%1,%2,%3,%4,%5,%6,%7}, %8, %9, p, 1, 1; }"
                         : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),
                           "+f"(d[6]), "+f"(d[7])
                         : "l"(ad), "l"(bd), "r"(sd));
        if (CASE == 4)
            WG_F32_16("f16", ad, bd, sd, "1", "0", "1");   // B MN-major
        if (CASE == 5)
            asm volatile("{ .reg .pred p; setp.ne.b32 p, %10, 0;\n"
                         "wgmma.mma_async.sync.aligned.m64n16k32.f32.e4m3.e5m2"
                         " {%0,%1,%2,%3,%4,%5,%6,%7}, %8, %9, p, 1, 1; }"
                         : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),
                           "+f"(d[6]), "+f"(d[7])
                         : "l"(ad), "l"(bd), "r"(sd));
        if (CASE == 6)
            asm volatile("{ .reg .pred p; setp.ne.b32 p, %10, 0;\n"
                         "wgmma.mma_async.sync.aligned.m64n16k32.s32.s8.u8"
                         " {%0,%1,%2,%3,%4,%5,%6,%7}, %8, %9, p; }"
                         : "+r"(id[0]), "+r"(id[1]), "+r"(id[2]), "+r"(id[3]), "+r"(id[4]), "+r"(id[5]),
                           "+r"(id[6]), "+r"(id[7])
                         : "l"(ad), "l"(bd), "r"(sd));
        if (CASE == 7)
            asm volatile("{ .reg .pred p; setp.ne.b32 p, %10, 0;\n"
                         "wgmma.mma_async.sync.aligned.m64n16k256.s32.b1.b1.and.popc"
                         " {%0,%1,%2,%3,%4,%5,%6,%7}, %8, %9, p; }"
                         : "+r"(id[0]), "+r"(id[1]), "+r"(id[2]), "+r"(id[3]), "+r"(id[4]), "+r"(id[5]),
                           "+r"(id[6]), "+r"(id[7])
                         : "l"(ad), "l"(bd), "r"(sd));
    }
    asm volatile("wgmma.commit_group.sync.aligned;\nwgmma.wait_group.sync.aligned 0;" ::: "memory");
    for (int j = 0; j < c.n / 8; j++)
        for (int i = 0; i < 4; i++) {
            int row = 16 * w + g + ((i & 2) ? 8 : 0), col = 8 * j + 2 * t + (i & 1);
            float v = c.acc16 ? __half2float(__ushort_as_half((unsigned short)(h[2 * j + i / 2] >> (16 * (i & 1)))))
                      : CASE >= 6 ? (float)id[4 * j + i] : d[4 * j + i];
            out[row * c.n + col] = v;
        }
}

static unsigned short f2h(float f) { __half h = __float2half(f); unsigned short u; memcpy(&u, &h, 2); return u; }
static unsigned short f2bf(float f) { __nv_bfloat16 h = __float2bfloat16(f); unsigned short u; memcpy(&u, &h, 2); return u; }
static unsigned f2u(float f) { unsigned u; memcpy(&u, &f, 4); return u; }

// element bits of v as operand type `type` (fp8: A e4m3, B e5m2; i8: A s8, B u8)
static void put(unsigned char *p, int type, bool is_b, float v)
{
    if (type == F16 || type == BF16) {
        unsigned short u = type == BF16 ? f2bf(v) : f2h(v);
        memcpy(p, &u, 2);
    } else if (type == TF32) {
        unsigned u = f2u(v);
        memcpy(p, &u, 4);
    } else if (type == FP8) {
        *p = is_b ? __nv_fp8_e5m2(v).__x : __nv_fp8_e4m3(v).__x;
    } else {
        *p = (unsigned char)(int)v;
    }
}

template <int CASE>
static void run_case(const Case &c)
{
    const int M = 64;
    static float a[64 * 128], bm[128 * 64];
    static unsigned char sa[16384], sb[16384];
    memset(sa, 0, sizeof sa);
    memset(sb, 0, sizeof sb);
    unsigned esz = esize(c.type);
    for (int r = 0; r < M; r++)
        for (int k = 0; k < c.k; k++) {
            a[r * c.k + k] = (float)(c.type == B1 ? (int)(zt_rand() & 255) : (int)(zt_rand() % 7) - 3);
            put(sa + canon(c.lay_a, false, esz, r, k, c.lbo_a, c.sbo_a), c.type, false, a[r * c.k + k]);
        }
    for (int n = 0; n < c.n; n++)
        for (int k = 0; k < c.k; k++) {
            // u8 B: 0..4; the others -2..2
            bm[k * c.n + n] = (float)(c.type == B1 ? (int)(zt_rand() & 255)
                                                   : (int)(zt_rand() % 5) - (c.type == I8 ? 0 : 2));
            put(sb + canon(c.lay_b, c.b_mn, esz, n, k, c.lbo_b, c.sbo_b), c.type, true, bm[k * c.n + n]);
        }
    unsigned *ga, *gb;
    float *out;
    CK(cudaMalloc(&ga, sizeof sa));
    CK(cudaMalloc(&gb, sizeof sb));
    CK(cudaMallocManaged(&out, M * c.n * sizeof(float)));
    CK(cudaMemcpy(ga, sa, sizeof sa, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(gb, sb, sizeof sb, cudaMemcpyHostToDevice));
    for (int i = 0; i < M * c.n; i++)
        out[i] = 12345.0f;  // poison
    CK(cudaFuncSetAttribute(wg_kernel<CASE>, cudaFuncAttributeMaxDynamicSharedMemorySize, 32768));
    wg_kernel<CASE><<<1, 128, 32768>>>(c, ga, gb, out);
    CK_LAUNCH();
    CK(cudaDeviceSynchronize());
    int bad = 0;
    for (int r = 0; r < M && bad < 3; r++)
        for (int n = 0; n < c.n && bad < 3; n++) {
            float want = 0;
            for (int k = 0; k < c.k; k++)
                want += c.type == B1 ? (float)__builtin_popcount((unsigned)a[r * c.k + k] &
                                                                 (unsigned)bm[k * c.n + n])
                                     : (c.neg_a ? -a[r * c.k + k] : a[r * c.k + k]) * bm[k * c.n + n];
            if (out[r * c.n + n] != want) {
                zt_fail("%s: D[%d][%d] = %g, want %g", c.name, r, n, out[r * c.n + n], want);
                bad++;
            }
        }
    CK(cudaFree(ga));
    CK(cudaFree(gb));
    CK(cudaFree(out));
}

int main()
{
    zt_begin("wgmma");
    // K-major interleave: 8-row x 16-byte core matrices; LBO between the
    // k chunks (four for K 32: two steps), SBO between 8-row groups
    Case inter = {"f16 interleave", F16, 16, 32, INTER, INTER, false, false, false, false,
                  128, 512, 128, 512};
    run_case<0>(inter);
    // 128-byte swizzle: rows of 64 f16 (K 64, four steps), 8-row atoms of 1 KiB
    Case b128 = {"f16 128B swizzle", F16, 16, 64, B128, B128, false, false, false, false, 16, 1024, 16, 1024};
    run_case<0>(b128);
    Case b64 = {"f16 64B swizzle", F16, 16, 32, B64, B64, false, false, false, false, 16, 512, 16, 512};
    run_case<0>(b64);
    Case b32 = {"f16 32B swizzle", F16, 16, 16, B32, B32, false, false, false, false, 16, 256, 16, 256};
    run_case<0>(b32);
    // bf16, A from registers (-A), B MN-major 32-byte swizzle: rows of 16
    // N values (one atom wide), 8 k per atom (SBO to the next 8 k)
    Case bf = {"bf16 A regs, B MN-major", BF16, 16, 32, B128, B32, true, true, false, true,
               512, 1024, 512, 256};
    run_case<1>(bf);
    Case h16 = {"f16 into f16", F16, 16, 32, B64, B64, false, false, true, false, 16, 512, 16, 512};
    run_case<2>(h16);
    // tf32: 4 per chunk; 128-byte rows of 32 (K 32, four steps of 8)
    Case tf = {"tf32 128B swizzle", TF32, 16, 32, B128, B128, false, false, false, false, 16, 1024, 16, 1024};
    run_case<3>(tf);
    Case mn = {"f16 B MN-major 128B", F16, 16, 16, B128, B128, true, false, false, false, 16, 1024, 2048, 1024};
    run_case<4>(mn);
    // e4m3 x e5m2: 64-byte swizzle, rows of 64 (K 64, two steps of 32)
    Case f8 = {"e4m3 x e5m2 64B swizzle", FP8, 16, 64, B64, B64, false, false, false, false, 16, 512, 16, 512};
    run_case<5>(f8);
    // s8 x u8: interleaved, 16 per chunk: K 64 is four chunks, LBO 128, SBO 512
    Case i8 = {"s8 x u8 interleave", I8, 16, 64, INTER, INTER, false, false, false, false, 128, 512, 128, 512};
    run_case<6>(i8);
    // b1: the same bytes as s8's layout (256 bits of k = 32 bytes a step)
    Case b1 = {"b1 and.popc interleave", B1, 16, 64, INTER, INTER, false, false, false, false, 128, 512, 128, 512};
    run_case<7>(b1);
    return zt_finish();
}
