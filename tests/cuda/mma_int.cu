// mma_int: integer warp matrix multiply-accumulate through inline PTX:
// mma.sync m8n8k16 (s8/u8, llama.cpp's int8 path), m8n8k32 (s4/u4),
// m8n8k128 (b1 .and.popc / .xor.popc), m16n8k32 and m16n8k64 (s4/u4),
// m16n8k128 and m16n8k256 (b1), with and without .satfinite.
// Every lane packs its fragments from row-major matrices with the element
// layouts of the PTX ISA ("Matrix Fragments for mma.m8n8k16" etc., written
// element by element below), and the host checks D against a plain integer
// matmul (64-bit sums, then wrap-around or saturation to s32).
#include "zn_test.h"

enum { F_K16_S8, F_K16_S8_SAT, F_K16_U8S8, F_K32_S4, F_K32_U4, F_K128_XOR, F_K128_AND,
       F_M16K32_S4U4, F_M16K64_S4_SAT, F_M16K128_AND, F_M16K256_XOR, F_COUNT };

struct form {
    const char *name;
    int m, k;          // n is 8
    int bits;          // element width: 8, 4, 1
    bool a_signed, b_signed, sat, xor_op;
};

static const form forms[F_COUNT] = {
    {"m8n8k16.s32.s8.s8.s32", 8, 16, 8, true, true, false, false},
    {"m8n8k16.satfinite.s32.s8.s8.s32", 8, 16, 8, true, true, true, false},
    {"m8n8k16.s32.u8.s8.s32", 8, 16, 8, false, true, false, false},
    {"m8n8k32.s32.s4.s4.s32", 8, 32, 4, true, true, false, false},
    {"m8n8k32.s32.u4.u4.s32", 8, 32, 4, false, false, false, false},
    {"m8n8k128.s32.b1.b1.s32.xor.popc", 8, 128, 1, false, false, false, true},
    {"m8n8k128.s32.b1.b1.s32.and.popc", 8, 128, 1, false, false, false, false},
    {"m16n8k32.s32.s4.u4.s32", 16, 32, 4, true, false, false, false},
    {"m16n8k64.satfinite.s32.s4.s4.s32", 16, 64, 4, true, true, true, false},
    {"m16n8k128.s32.b1.b1.s32.and.popc", 16, 128, 1, false, false, false, false},
    {"m16n8k256.s32.b1.b1.s32.xor.popc", 16, 256, 1, false, false, false, true},
};

#define MMA1(s) asm volatile("mma.sync.aligned." s " {%0,%1}, {%2}, {%3}, {%4,%5};" \
    : "=r"(d[0]), "=r"(d[1]) : "r"(a[0]), "r"(b[0]), "r"(c[0]), "r"(c[1]))
#define MMA2(s) asm volatile("mma.sync.aligned." s " {%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%8,%9,%10};" \
    : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3]) : "r"(a[0]), "r"(a[1]), "r"(b[0]), \
      "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]))
#define MMA4(s) asm volatile("mma.sync.aligned." s " {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};" \
    : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3]) : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), \
      "r"(b[0]), "r"(b[1]), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]))

// A is m x k, B is k x 8 (both row-major, one int per element, already in
// the element's range), C and D m x 8.
__global__ void mma_int(int f, int m, int k, int bits, const int *A, const int *B, const int *C, int *D)
{
    int l = threadIdx.x, g = l >> 2, t = l & 3;
    int e = 32 / bits;                 // elements per 32-bit register
    int na = m * k / 32 / e, nb = k * 8 / 32 / e, nc = m * 8 / 32;
    unsigned mask = bits == 32 ? ~0u : (1u << bits) - 1;
    uint32_t a[4] = {0, 0, 0, 0}, b[2] = {0, 0};
    int c[4] = {0, 0, 0, 0}, d[4] = {0, 0, 0, 0};
    // A element i (0 <= i < na * e) of this lane, as the ISA's tables say
    for (int i = 0; i < na * e; i++) {
        int row, col;
        if (m == 8) {                  // m8n8k16/k32/k128: row g, col t*e + i
            row = g;
            col = t * e + i;
        } else if (na == 2) {          // m16n8k16 s8, k32 s4, k128 b1
            row = g + (i >= e ? 8 : 0);
            col = t * e + i % e;
        } else {                       // m16n8k32 s8, k64 s4, k256 b1
            row = g + ((i >= e && i < 2 * e) || i >= 3 * e ? 8 : 0);
            col = t * e + i % e + (i >= 2 * e ? 4 * e : 0);
        }
        a[i / e] |= ((uint32_t)A[row * k + col] & mask) << (bits * (i % e));
    }
    for (int i = 0; i < nb * e; i++) { // B element i: col g
        int row = t * e + i % e + (i >= e ? 4 * e : 0);
        b[i / e] |= ((uint32_t)B[row * 8 + g] & mask) << (bits * (i % e));
    }
    for (int i = 0; i < nc; i++)       // C/D: row g (+8 for c2, c3), col 2t + (i & 1)
        c[i] = C[(g + (i >= 2 ? 8 : 0)) * 8 + 2 * t + (i & 1)];
    switch (f) {
    case F_K16_S8: MMA1("m8n8k16.row.col.s32.s8.s8.s32"); break;
    case F_K16_S8_SAT: MMA1("m8n8k16.row.col.satfinite.s32.s8.s8.s32"); break;
    case F_K16_U8S8: MMA1("m8n8k16.row.col.s32.u8.s8.s32"); break;
    case F_K32_S4: MMA1("m8n8k32.row.col.s32.s4.s4.s32"); break;
    case F_K32_U4: MMA1("m8n8k32.row.col.s32.u4.u4.s32"); break;
    case F_K128_XOR: MMA1("m8n8k128.row.col.s32.b1.b1.s32.xor.popc"); break;
    case F_K128_AND: MMA1("m8n8k128.row.col.s32.b1.b1.s32.and.popc"); break;
    case F_M16K32_S4U4: MMA2("m16n8k32.row.col.s32.s4.u4.s32"); break;
    case F_M16K64_S4_SAT: MMA4("m16n8k64.row.col.satfinite.s32.s4.s4.s32"); break;
    case F_M16K128_AND: MMA2("m16n8k128.row.col.s32.b1.b1.s32.and.popc"); break;
    case F_M16K256_XOR: MMA4("m16n8k256.row.col.s32.b1.b1.s32.xor.popc"); break;
    }
    for (int i = 0; i < nc; i++)
        D[(g + (i >= 2 ? 8 : 0)) * 8 + 2 * t + (i & 1)] = d[i];
}

static unsigned long long rng = 0x9e3779b97f4a7c15ull;
static unsigned rnd(void)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (unsigned)(rng >> 16);
}

// a random element of the given width and signedness
static int elem(int bits, bool sign)
{
    int v = (int)(rnd() & ((1u << bits) - 1));
    return sign && v >= 1 << (bits - 1) ? v - (1 << bits) : v;
}

static void run(int fi, int trial)
{
    const form &F = forms[fi];
    int m = F.m, k = F.k;
    int *A, *B, *C, *D;
    CK(cudaMallocManaged(&A, sizeof(int) * m * k));
    CK(cudaMallocManaged(&B, sizeof(int) * k * 8));
    CK(cudaMallocManaged(&C, sizeof(int) * m * 8));
    CK(cudaMallocManaged(&D, sizeof(int) * m * 8));
    for (int i = 0; i < m * k; i++)
        A[i] = trial == 0 && F.bits > 1 ? (F.a_signed ? -(1 << (F.bits - 1)) : (1 << F.bits) - 1)
                                        : elem(F.bits, F.a_signed);
    for (int i = 0; i < k * 8; i++)
        B[i] = trial == 0 && F.bits > 1 ? (F.b_signed ? -(1 << (F.bits - 1)) : (1 << F.bits) - 1)
                                        : elem(F.bits, F.b_signed);
    for (int i = 0; i < m * 8; i++) {
        // near the s32 limits in some elements, so that .satfinite clamps
        // and the plain forms wrap
        int r = (int)(rnd() % 4);
        C[i] = r == 0 ? 2147483647 - (int)(rnd() % 2000) : r == 1 ? -2147483647 - 1 + (int)(rnd() % 2000)
                                                               : (int)(rnd() % 200001) - 100000;
    }
    for (int i = 0; i < m * 8; i++)
        D[i] = 0x5a5a5a5a; // poison
    mma_int<<<1, 32>>>(fi, m, k, F.bits, A, B, C, D);
    CK_LAUNCH();
    long bad = 0;
    for (int r = 0; r < m; r++)
        for (int c = 0; c < 8; c++) {
            long long s = 0;
            for (int x = 0; x < k; x++) {
                long long av = A[r * k + x], bv = B[x * 8 + c];
                s += F.bits == 1 ? (F.xor_op ? (av ^ bv) : (av & bv)) : av * bv;
            }
            long long w = (long long)C[r * 8 + c] + s;
            int want;
            if (F.sat)
                want = w > 2147483647LL ? 2147483647 : w < -2147483648LL ? (int)(-2147483647 - 1) : (int)w;
            else
                want = (int)(uint32_t)(unsigned long long)w;
            if (D[r * 8 + c] != want && bad++ < 3)
                zt_fail("%s trial %d: D[%d][%d] = %d, want %d", F.name, trial, r, c, D[r * 8 + c], want);
        }
    CK(cudaFree(A));
    CK(cudaFree(B));
    CK(cudaFree(C));
    CK(cudaFree(D));
}

int main(void)
{
    zt_begin("mma_int");
    for (int f = 0; f < F_COUNT; f++)
        for (int trial = 0; trial < 4; trial++)
            run(f, trial);
    return zt_finish();
}
