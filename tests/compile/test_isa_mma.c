/* test_isa_mma.c: isa_mma.ptx (source: isa_mma.cu): mma.sync in every
 * sm_80 shape Zinc supports, ldmatrix / movmatrix, wmma m16n16k16, cp.async
 * and f16/bf16 atomics, each against a C reference computed here from the
 * row-major inputs. Values are small integers (or halves of them), so every
 * product and sum is exact and the order of additions cannot matter. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "zn_test_harness.h"

static zn_jit_module *jm;

static uint16_t f2h(float f) /* exact for the small values used here */
{
    if (f == 0)
        return signbit(f) ? 0x8000 : 0;
    uint32_t u;
    memcpy(&u, &f, 4);
    uint32_t s = (u >> 16) & 0x8000;
    int e = (int)((u >> 23) & 0xff) - 127 + 15;
    return (uint16_t)(s | (uint32_t)e << 10 | ((u >> 13) & 0x3ff));
}

static float h2f(uint16_t h)
{
    int e = (h >> 10) & 0x1f;
    float m = (float)(h & 0x3ff);
    float v = e ? ldexpf(1024 + m, e - 25) : ldexpf(m, -24);
    return (h & 0x8000) ? -v : v;
}

static uint16_t f2bf(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return (uint16_t)(u >> 16);
}

static int small(int i, int mod) /* deterministic small values, some negative */
{
    return (int)((unsigned)(i * 2654435761u) >> 7) % mod - mod / 2;
}

static void test_mma_k16_f32(int bf)
{
    uint16_t A[16 * 16], B[16 * 8];
    float C[16 * 8], D[16 * 8], a[16 * 16], bm[16 * 8];
    for (int i = 0; i < 256; i++) {
        a[i] = (float)small(i, 9) * 0.5f;
        A[i] = bf ? f2bf(a[i]) : f2h(a[i]);
    }
    for (int i = 0; i < 128; i++) {
        bm[i] = (float)small(i + 1000, 7);
        B[i] = bf ? f2bf(bm[i]) : f2h(bm[i]);
        C[i] = (float)small(i + 77, 11);
    }
    uint16_t *pA = A, *pB = B;
    float *pC = C, *pD = D;
    void *args[] = {&pA, &pB, &pC, &pD, &bf};
    CHECK(zt_run(jm, "mma_k16_f32", ZT_DIM1(1), ZT_DIM1(32), 0, args) == 0, "mma_k16_f32 status");
    for (int r = 0; r < 16; r++)
        for (int c = 0; c < 8; c++) {
            float want = C[r * 8 + c];
            for (int k = 0; k < 16; k++)
                want += a[r * 16 + k] * bm[k * 8 + c];
            CHECK(D[r * 8 + c] == want, "mma m16n8k16 %s D[%d][%d] = %g, want %g",
                  bf ? "bf16" : "f16", r, c, D[r * 8 + c], want);
        }
}

static void test_mma_k8_f16(void)
{
    uint16_t A[16 * 8], B[8 * 8], C[16 * 8], D[16 * 8];
    for (int i = 0; i < 128; i++) {
        A[i] = f2h((float)small(i + 5, 7));
        C[i] = f2h((float)small(i + 9, 13) * 0.25f);
    }
    for (int i = 0; i < 64; i++)
        B[i] = f2h((float)small(i + 3, 5));
    uint16_t *pA = A, *pB = B, *pC = C, *pD = D;
    void *args[] = {&pA, &pB, &pC, &pD};
    CHECK(zt_run(jm, "mma_k8_f16", ZT_DIM1(1), ZT_DIM1(32), 0, args) == 0, "mma_k8_f16 status");
    for (int r = 0; r < 16; r++)
        for (int c = 0; c < 8; c++) {
            float want = h2f(C[r * 8 + c]);
            for (int k = 0; k < 8; k++)
                want += h2f(A[r * 8 + k]) * h2f(B[k * 8 + c]);
            CHECK(h2f(D[r * 8 + c]) == want, "mma m16n8k8 f16 D[%d][%d] = %g, want %g", r, c,
                  h2f(D[r * 8 + c]), want);
        }
}

static void test_mma_int8(void)
{
    int8_t A[16 * 32], B[32 * 8];
    int C[16 * 8], D[16 * 8];
    for (int i = 0; i < 16 * 32; i++)
        A[i] = (int8_t)(small(i, 256));
    for (int i = 0; i < 32 * 8; i++)
        B[i] = (int8_t)(small(i + 31, 256));
    for (int i = 0; i < 128; i++)
        C[i] = small(i, 100000);
    int8_t *pA = A, *pB = B;
    int *pC = C, *pD = D;
    for (int sat = 0; sat < 2; sat++) {
        if (sat) /* near the ends of the range: .satfinite clamps, s32 wraps */
            for (int i = 0; i < 128; i++)
                C[i] = i % 2 ? INT32_MAX - small(i, 2000) - 1000 : INT32_MIN + small(i, 2000) + 1000;
        void *args[] = {&pA, &pB, &pC, &pD, &sat};
        CHECK(zt_run(jm, "mma_k32_s8", ZT_DIM1(1), ZT_DIM1(32), 0, args) == 0, "mma_k32_s8 status");
        for (int r = 0; r < 16; r++)
            for (int c = 0; c < 8; c++) {
                int64_t want = C[r * 8 + c];
                for (int k = 0; k < 32; k++)
                    want += A[r * 32 + k] * B[k * 8 + c];
                if (sat)
                    want = want > INT32_MAX ? INT32_MAX : want < INT32_MIN ? INT32_MIN : want;
                CHECK(D[r * 8 + c] == (int)want, "mma m16n8k32 s8%s D[%d][%d] = %d, want %d",
                      sat ? " satfinite" : "", r, c, D[r * 8 + c], (int)want);
            }
    }
    for (int i = 0; i < 128; i++)
        C[i] = small(i, 100000);
    /* m16n8k16 u8 x s8: A 16x16 unsigned */
    uint8_t U[16 * 16];
    for (int i = 0; i < 256; i++)
        U[i] = (uint8_t)(small(i + 7, 256) + 128);
    uint8_t *pU = U;
    void *args2[] = {&pU, &pB, &pC, &pD};
    CHECK(zt_run(jm, "mma_k16_u8s8", ZT_DIM1(1), ZT_DIM1(32), 0, args2) == 0, "mma_k16_u8s8 status");
    for (int r = 0; r < 16; r++)
        for (int c = 0; c < 8; c++) {
            int want = C[r * 8 + c];
            for (int k = 0; k < 16; k++)
                want += U[r * 16 + k] * B[k * 8 + c];
            CHECK(D[r * 8 + c] == want, "mma m16n8k16 u8.s8 D[%d][%d] = %d, want %d", r, c,
                  D[r * 8 + c], want);
        }
}

static void test_mma_tf32(void)
{
    float A[16 * 8], B[8 * 8], C[16 * 8], D[16 * 8];
    for (int i = 0; i < 128; i++) {
        /* the low 13 bits must be ignored: add noise there */
        A[i] = (float)small(i, 15);
        uint32_t u;
        memcpy(&u, &A[i], 4);
        u |= (uint32_t)i & 0x1fff;
        if (A[i] == 0)
            u = 0;
        memcpy(&A[i], &u, 4);
        C[i] = (float)small(i + 3, 21);
    }
    for (int i = 0; i < 64; i++)
        B[i] = (float)small(i + 11, 9) * 0.125f;
    float *pA = A, *pB = B, *pC = C, *pD = D;
    void *args[] = {&pA, &pB, &pC, &pD};
    for (int k4 = 0; k4 < 2; k4++) {
        int K = k4 ? 4 : 8;
        CHECK(zt_run(jm, k4 ? "mma_k4_tf32" : "mma_k8_tf32", ZT_DIM1(1), ZT_DIM1(32), 0, args) == 0,
              "mma tf32 status");
        for (int r = 0; r < 16; r++)
            for (int c = 0; c < 8; c++) {
                float want = C[r * 8 + c];
                for (int k = 0; k < K; k++) {
                    uint32_t u;
                    memcpy(&u, &A[r * K + k], 4);
                    u &= 0xffffe000u;
                    float a;
                    memcpy(&a, &u, 4);
                    want += a * B[k * 8 + c];
                }
                CHECK(D[r * 8 + c] == want, "mma m16n8k%d tf32 D[%d][%d] = %g, want %g", K, r, c,
                      D[r * 8 + c], want);
            }
    }
}

static void test_mma_f64(void)
{
    double A[32], B[32], C[64], D[64];
    for (int i = 0; i < 32; i++) {
        A[i] = small(i, 17) * 0.25;
        B[i] = small(i + 40, 13);
    }
    for (int i = 0; i < 64; i++)
        C[i] = small(i + 5, 101);
    double *pA = A, *pB = B, *pC = C, *pD = D;
    void *args[] = {&pA, &pB, &pC, &pD};
    CHECK(zt_run(jm, "mma_f64", ZT_DIM1(1), ZT_DIM1(32), 0, args) == 0, "mma_f64 status");
    for (int r = 0; r < 8; r++)
        for (int c = 0; c < 8; c++) {
            double want = C[r * 8 + c];
            for (int k = 0; k < 4; k++)
                want += A[r * 4 + k] * B[k * 8 + c];
            CHECK(D[r * 8 + c] == want, "mma m8n8k4 f64 D[%d][%d] = %g, want %g", r, c, D[r * 8 + c], want);
        }
}

static void test_ldmatrix(void)
{
    uint16_t in[32 * 8];
    uint32_t out[32 * 16];
    for (int i = 0; i < 256; i++)
        in[i] = (uint16_t)(i * 3 + 1);
    memset(out, 0, sizeof out);
    uint16_t *pin = in;
    uint32_t *pout = out;
    void *args[] = {&pin, &pout};
    CHECK(zt_run(jm, "ldmatrix_all", ZT_DIM1(1), ZT_DIM1(32), 0, args) == 0, "ldmatrix status");
    /* matrix j is rows 8j..8j+7 of the 32x8 tile */
#define EL(j, r, c) ((uint32_t)in[((j) * 8 + (r)) * 8 + (c)])
    for (int l = 0; l < 32; l++) {
        int r = l / 4, c = 2 * (l % 4);
        uint32_t *o = &out[l * 16];
        CHECK(o[0] == (EL(0, r, c) | EL(0, r, c + 1) << 16), "ldmatrix x1 lane %d: %08x", l, o[0]);
        for (int j = 0; j < 2; j++)
            CHECK(o[1 + j] == (EL(j, r, c) | EL(j, r, c + 1) << 16), "ldmatrix x2 lane %d m%d", l, j);
        for (int j = 0; j < 4; j++) {
            CHECK(o[3 + j] == (EL(j, r, c) | EL(j, r, c + 1) << 16), "ldmatrix x4 lane %d m%d", l, j);
            /* .trans: lane l holds (rows c, c+1; column r) */
            uint32_t t = EL(j, c, r) | EL(j, c + 1, r) << 16;
            CHECK(o[7 + j] == t, "ldmatrix x4.trans lane %d m%d: %08x, want %08x", l, j, o[7 + j], t);
        }
        uint32_t mt = EL(0, c, r) | EL(0, c + 1, r) << 16; /* movmatrix of x1 */
        CHECK(o[15] == mt, "movmatrix lane %d: %08x, want %08x", l, o[15], mt);
    }
#undef EL
}

static void test_stmatrix(void)
{
    uint32_t frag[32 * 4];
    uint16_t out[32 * 12];
    for (int i = 0; i < 128; i++)
        frag[i] = 0x00010001u * (uint32_t)i + 0x30000u * (uint32_t)(i % 7);
    memset(out, 0, sizeof out);
    uint32_t *pf = frag;
    uint16_t *po = out;
    void *args[] = {&pf, &po};
    CHECK(zt_run(jm, "stmatrix_all", ZT_DIM1(1), ZT_DIM1(32), 0, args) == 0, "stmatrix status");
    /* element (r, c) of matrix j is half c%2 of register j of lane 4r + c/2 */
    for (int j = 0; j < 4; j++)
        for (int r = 0; r < 8; r++)
            for (int c = 0; c < 8; c++) {
                uint32_t w = frag[(4 * r + c / 2) * 4 + j];
                uint16_t want = (uint16_t)(c % 2 ? w >> 16 : w);
                uint16_t got = out[(j * 8 + r) * 8 + c];
                CHECK(got == want, "stmatrix x4 m%d (%d,%d): %04x, want %04x", j, r, c, got, want);
                if (j < 2) { /* .trans: the tile gets the transpose */
                    got = out[256 + (j * 8 + c) * 8 + r];
                    CHECK(got == want, "stmatrix x2.trans m%d (%d,%d): %04x, want %04x", j, r, c,
                          got, want);
                }
            }
}

static void test_cp_async(void)
{
    uint32_t in[96 * 4], out[96 * 4];
    for (int i = 0; i < 96 * 4; i++)
        in[i] = 0x01000193u * (uint32_t)(i + 1);
    memset(out, 0xee, sizeof out);
    uint32_t *pin = in, *pout = out;
    void *args[] = {&pin, &pout};
    CHECK(zt_run(jm, "cp_async_copy", ZT_DIM1(1), ZT_DIM1(32), 0, args) == 0, "cp.async status");
    for (int i = 0; i < 96 * 4; i++) {
        int lane = (i / 4) % 32;
        uint32_t want = in[i];
        if (i >= 64 * 4 && (i % 4) == 0 && (lane & 1)) /* src-size 0: zero fill */
            want = 0;
        CHECK(out[i] == want, "cp.async word %d: %08x, want %08x", i, out[i], want);
    }
}

static void test_wmma(void)
{
    uint16_t A[256], B[256];
    float a[256], bm[256], C[256], D[256];
    for (int i = 0; i < 256; i++) {
        a[i] = (float)small(i, 9);
        bm[i] = (float)small(i + 500, 7) * 0.5f;
        A[i] = f2h(a[i]);
        B[i] = f2h(bm[i]);   /* B col-major: B[c * 16 + k] */
        C[i] = (float)small(i + 9, 31);
    }
    uint16_t *pA = A, *pB = B;
    float *pC = C, *pD = D;
    void *args[] = {&pA, &pB, &pC, &pD};
    CHECK(zt_run(jm, "wmma_f16", ZT_DIM1(1), ZT_DIM1(32), 0, args) == 0, "wmma_f16 status");
    for (int r = 0; r < 16; r++)
        for (int c = 0; c < 16; c++) {
            float want = C[r * 16 + c];
            for (int k = 0; k < 16; k++)
                want += a[r * 16 + k] * bm[c * 16 + k];
            CHECK(D[r * 16 + c] == want, "wmma f16 D[%d][%d] = %g, want %g", r, c, D[r * 16 + c], want);
        }
    /* bf16: A col-major (A[k * 16 + r]), B row-major (B[k * 16 + c]), D col-major */
    for (int i = 0; i < 256; i++) {
        A[i] = f2bf(a[i]);
        B[i] = f2bf(bm[i]);
    }
    void *args2[] = {&pA, &pB, &pD};
    CHECK(zt_run(jm, "wmma_bf16", ZT_DIM1(1), ZT_DIM1(32), 0, args2) == 0, "wmma_bf16 status");
    for (int r = 0; r < 16; r++)
        for (int c = 0; c < 16; c++) {
            float want = 0;
            for (int k = 0; k < 16; k++)
                want += a[k * 16 + r] * bm[k * 16 + c];
            CHECK(D[c * 16 + r] == want, "wmma bf16 D[%d][%d] = %g, want %g", r, c, D[c * 16 + r], want);
        }
}

static void test_atom_half(void)
{
    uint16_t h = f2h(3.0f), old[32];
    uint32_t h2 = (uint32_t)f2h(-1.0f) << 16 | f2h(0.25f);
    uint32_t b2 = (uint32_t)f2bf(100.0f) << 16 | f2bf(-2.0f); /* - 32 * 0.5: exact */
    uint16_t *ph = &h, *po = old;
    uint32_t *ph2 = &h2, *pb2 = &b2;
    void *args[] = {&ph, &ph2, &pb2, &po};
    CHECK(zt_run(jm, "atom_half", ZT_DIM1(1), ZT_DIM1(32), 0, args) == 0, "atom_half status");
    CHECK(h2f(h) == 35.0f, "atom.add.f16: %g, want 35", h2f(h));
    int seen[32] = {0};
    for (int l = 0; l < 32; l++) {
        float o = h2f(old[l]);
        int k = (int)o - 3;
        CHECK(k >= 0 && k < 32 && o == (float)(k + 3), "atom.add.f16 old value %g", o);
        if (k >= 0 && k < 32)
            seen[k]++;
    }
    for (int k = 0; k < 32; k++)
        CHECK(seen[k] == 1, "atom.add.f16: partial sum %d returned %d times", k + 3, seen[k]);
    CHECK(h2f((uint16_t)h2) == 16.25f && h2f((uint16_t)(h2 >> 16)) == 63.0f,
          "red.add.f16x2: %08x", h2);
    float blo, bhi;
    uint32_t u = b2 << 16;
    memcpy(&blo, &u, 4);
    u = b2 & 0xffff0000u;
    memcpy(&bhi, &u, 4);
    CHECK(blo == 30.0f && bhi == 84.0f, "red.add.bf16x2: %g %g, want 30 84", blo, bhi);
}

int main(void)
{
    jm = zt_load(ZT_ISA_MMA_PTX, NULL);
    CHECK(jm != NULL, "isa_mma.ptx does not compile");
    if (!jm)
        return 1;
    test_mma_k16_f32(0);
    test_mma_k16_f32(1);
    test_mma_k8_f16();
    test_mma_int8();
    test_mma_tf32();
    test_mma_f64();
    test_ldmatrix();
    test_stmatrix();
    test_cp_async();
    test_wmma();
    test_atom_half();
    zn_jit_module_free(jm);
    zt_cleanup();
    if (zt_failures)
        fprintf(stderr, "%d failures\n", zt_failures);
    else
        printf("isa_mma: all passed\n");
    return zt_failures != 0;
}
