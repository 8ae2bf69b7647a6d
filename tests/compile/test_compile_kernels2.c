/* test_compile_kernels2.c: kernels2.ptx (source: kernels2.cu): function
 * pointers through relocated globals, directed rounding (checked against
 * the host FPU in the same rounding mode), f16 arithmetic, bit operations,
 * warp operations under divergence, shared/64-bit atomics, dynamic shared
 * memory after static shared. Built with -frounding-math. */
#include <fenv.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "zn_test_harness.h"

static zn_jit_module *jm;

static void *poisoned(size_t bytes)
{
    void *p = malloc(bytes);
    memset(p, 0x5a, bytes);
    return p;
}

static void test_fptrs(void)
{
    int in[32], *pin = in, *out = poisoned(128);
    for (int i = 0; i < 32; i++)
        in[i] = i * 7 + 3;
    void *args[] = {&pin, &out};
    CHECK(zt_run(jm, "fptrs", ZT_DIM1(1), ZT_DIM1(32), 0, args) == 0, "fptrs status");
    for (int i = 0; i < 32; i++) {
        int a = in[i], b = i + 1;
        int want = a % 3 == 0 ? a + b : a % 3 == 1 ? a * b : a - b;
        CHECK(out[i] == want, "fptr lane %d: %d, want %d", i, out[i], want);
    }
    free(out);
}

static float fr(int mode, float a, float b, char op)
{
    fesetround(mode);
    volatile float x = a, y = b, r;
    switch (op) {
    case '+': r = x + y; break;
    case '*': r = x * y; break;
    case '/': r = x / y; break;
    default: r = sqrtf(x); break;
    }
    fesetround(FE_TONEAREST);
    return r;
}

static void test_rounding(void)
{
    float x[32], y[32], *px = x, *py = y;
    double d[32], *pd = d;
    for (int i = 0; i < 32; i++) {
        x[i] = (float)(i - 13) * 1.37f + 1e-3f * (float)i;
        y[i] = 3.3f / (float)(i + 1) * (i % 5 == 0 ? -1.0f : 1.0f);
        d[i] = (double)x[i] * 1.0000001234 + 1e-12;
    }
    x[5] = 1.0f; y[5] = 1e-30f;          /* far apart: only the sticky bit */
    x[6] = 3e38f; y[6] = 3e38f;          /* overflow */
    x[7] = 2.0f; y[7] = -2.0f;           /* exact zero */
    float *of = poisoned(32 * 10 * 4);
    double *od = poisoned(32 * 2 * 8);
    void *args[] = {&px, &py, &pd, &of, &od};
    CHECK(zt_run(jm, "rounding", ZT_DIM1(1), ZT_DIM1(32), 0, args) == 0, "rounding status");
    for (int i = 0; i < 32; i++) {
        float a = x[i], b = y[i];
        float want[10];
        want[0] = fr(FE_TOWARDZERO, a, b, '+');
        want[1] = fr(FE_DOWNWARD, a, b, '+');
        want[2] = fr(FE_UPWARD, a, b, '+');
        want[3] = fr(FE_TOWARDZERO, a, b, '*');
        want[4] = fr(FE_UPWARD, a, b, '*');
        want[5] = fr(FE_DOWNWARD, a, b, '/');
        want[6] = fr(FE_UPWARD, fabsf(a), 0, 's');
        int ai;
        memcpy(&ai, &a, 4);
        fesetround(FE_TOWARDZERO);
        volatile double vd = d[i];
        want[7] = (float)vd;
        volatile float fm = fmaf(a, b, 1.0f);
        want[9] = fm;
        fesetround(FE_DOWNWARD);
        volatile int vi = ai;
        want[8] = (float)vi;
        fesetround(FE_UPWARD);
        volatile double da = d[i] + (double)a;
        fesetround(FE_TOWARDZERO);
        volatile double dm = d[i] * (double)b;
        fesetround(FE_TONEAREST);
        for (int k = 0; k < 10; k++)
            CHECK(memcmp(&of[i * 10 + k], &want[k], 4) == 0,
                  "rounding lane %d kind %d (%a, %a): %a, want %a", i, k, a, b,
                  of[i * 10 + k], want[k]);
        CHECK(od[i * 2] == da && od[i * 2 + 1] == dm, "f64 rounding lane %d", i);
    }
    free(of);
    free(od);
}

static void test_halves(void)
{
    float x[32], *px = x, *o = poisoned(32 * 16);
    for (int i = 0; i < 32; i++)
        x[i] = (float)(i - 11) * 0.731f + 0.01f;
    void *args[] = {&px, &o};
    CHECK(zt_run(jm, "halves", ZT_DIM1(1), ZT_DIM1(32), 0, args) == 0, "halves status");
    for (int i = 0; i < 32; i++) {
        _Float16 a = (_Float16)x[i], b = (_Float16)x[(i + 7) & 31];
        float want[4] = {(float)(_Float16)((float)a + (float)b),
                         (float)(_Float16)((float)a * (float)b),
                         (float)(_Float16)fmaf((float)a, (float)b, (float)a),
                         (float)(_Float16)fmaf((float)b, (float)a, (float)b)};
        for (int k = 0; k < 4; k++)
            CHECK(o[i * 4 + k] == want[k], "half lane %d kind %d: %g, want %g", i, k,
                  o[i * 4 + k], want[k]);
    }
    free(o);
}

/* PTX ISA definitions, written out bit by bit */
static unsigned ref_bfe(unsigned a, unsigned pos, unsigned len, int sign)
{
    pos &= 0xff;
    len &= 0xff;
    unsigned sbit = 0, d = 0;
    if (sign && len)
        sbit = (a >> (pos + len - 1 < 31 ? pos + len - 1 : 31)) & 1;
    for (unsigned i = 0; i < 32; i++) {
        unsigned bit = (i < len && pos + i <= 31) ? (a >> (pos + i)) & 1 : sbit;
        d |= bit << i;
    }
    return d;
}

static unsigned ref_bfi(unsigned a, unsigned b, unsigned pos, unsigned len)
{
    pos &= 0xff;
    len &= 0xff;
    unsigned d = b;
    for (unsigned i = 0; i < len && pos + i <= 31; i++)
        d = (d & ~(1u << (pos + i))) | (((a >> i) & 1) << (pos + i));
    return d;
}

static unsigned ref_prmt(unsigned a, unsigned b, unsigned c)
{
    unsigned char bytes[8];
    for (int k = 0; k < 4; k++) {
        bytes[k] = (unsigned char)(a >> (8 * k));
        bytes[k + 4] = (unsigned char)(b >> (8 * k));
    }
    unsigned d = 0;
    for (int n = 0; n < 4; n++) {
        unsigned sel = (c >> (4 * n)) & 0xf;
        unsigned char v = bytes[sel & 7];
        if (sel & 8)
            v = (v & 0x80) ? 0xff : 0;
        d |= (unsigned)v << (8 * n);
    }
    return d;
}

static int sext24(unsigned v)
{
    return (int)(v << 8) >> 8;
}

static void test_bitops(void)
{
    unsigned in[32], *pin = in, *out = poisoned(32 * 32);
    for (int i = 0; i < 32; i++)
        in[i] = 0x9e3779b9u * (unsigned)(i + 1) ^ ((unsigned)i << 27);
    void *args[] = {&pin, &out};
    CHECK(zt_run(jm, "bitops", ZT_DIM1(1), ZT_DIM1(32), 0, args) == 0, "bitops status");
    for (int i = 0; i < 32; i++) {
        unsigned v = in[i], n = (unsigned)i & 31;
        int dp = i;
        for (int k = 0; k < 4; k++)
            dp += (signed char)(v >> (8 * k)) * (signed char)(0x01fe03fcu >> (8 * k));
        unsigned want[8] = {
            ref_bfe(v, (unsigned)i, (unsigned)(i % 13), 0),
            ref_bfe(v, (unsigned)i, (unsigned)(i % 13), 1),
            ref_bfi(v, 0xffff0000u, (unsigned)i, (unsigned)(i % 9)),
            ref_prmt(v, 0x80ff7f01u, 0x8d5fu + (unsigned)i),
            n ? (0x12345678u << n) | (v >> (32 - n)) : 0x12345678u,
            (unsigned)abs((int)(v & 0xffff) - i * 1000) + 7 +
                (unsigned)((long long)sext24(v) * sext24((unsigned)i)),
            (unsigned)dp,
            (i + 20 >= 32 ? 0 : v << (i + 20)) ^ (unsigned)((int)v >> (i & 7))};
        for (int k = 0; k < 8; k++)
            CHECK(out[i * 8 + k] == want[k], "bitops %#x lane %d kind %d: %#x, want %#x",
                  v, i, k, out[i * 8 + k], want[k]);
    }
    free(out);
}

static void test_warpdiv(void)
{
    int in[32], *pin = in, *out = poisoned(256);
    for (int i = 0; i < 32; i++)
        in[i] = i * 5 + (i % 3);
    void *args[] = {&pin, &out};
    CHECK(zt_run(jm, "warpdiv", ZT_DIM1(1), ZT_DIM1(32), 0, args) == 0, "warpdiv status");
    int sum = 0;
    for (int i = 0; i < 32; i++)
        if (in[i] & 1)
            sum += in[i];
    for (int i = 0; i < 32; i++) {
        if (!(in[i] & 1)) {
            CHECK(out[i * 2] == -1 && out[i * 2 + 1] == 0, "inactive lane %d", i);
            continue;
        }
        unsigned m = 0;
        for (int j = 0; j < 32; j++)
            if ((in[j] & 1) && in[j] % 4 == in[i] % 4)
                m |= 1u << j;
        CHECK(out[i * 2] == sum, "redux lane %d: %d, want %d", i, out[i * 2], sum);
        CHECK((unsigned)out[i * 2 + 1] == m, "match lane %d: %#x, want %#x", i,
              (unsigned)out[i * 2 + 1], m);
    }
    free(out);
}

static void test_sharedatom(void)
{
    enum { T = 64 };
    int in[T], *pin = in, out[9];
    unsigned long long o64 = 5, *po64 = &o64;
    int *pout = out;
    for (int i = 0; i < T; i++)
        in[i] = (i * 37) % 101 - 50;
    memset(out, 0x5a, sizeof out);
    out[8] = INT_MAX;
    void *args[] = {&pin, &po64, &pout};
    CHECK(zt_run_exec(jm, "sharedatom", ZT_DIM1(1), ZT_DIM1(T), 0, args) == 0,
          "sharedatom status");
    int cnt[8] = {0}, mn = INT_MAX;
    unsigned long long s = 5;
    for (int i = 0; i < T; i++) {
        cnt[in[i] & 7]++;
        s += (unsigned long long)in[i] << 33;
        mn = in[i] < mn ? in[i] : mn;
    }
    for (int k = 0; k < 8; k++)
        CHECK(out[k] == cnt[k], "shared count %d: %d, want %d", k, out[k], cnt[k]);
    CHECK(o64 == s, "atom.add.u64 %llx, want %llx", o64, s);
    CHECK(out[8] == mn, "atom.min %d, want %d", out[8], mn);
}

static void test_dyninit(void)
{
    int in[32], *pin = in, *out = poisoned(128);
    for (int i = 0; i < 32; i++)
        in[i] = i * 3 - 7;
    void *args[] = {&out, &pin};
    CHECK(zt_run(jm, "dyninit", ZT_DIM1(1), ZT_DIM1(32), 128, args) == 0, "dyninit status");
    for (int i = 0; i < 32; i++) {
        int j = 31 - i;
        CHECK(out[i] == in[j] + (j & 3) * 100, "dyn shared lane %d: %d", i, out[i]);
    }
    free(out);
}

int main(int argc, char **argv)
{
    jm = zt_load(argc > 1 ? argv[1] : ZT_KERNELS2_PTX, NULL);
    if (!jm)
        return 1;
    test_fptrs();
    test_rounding();
    test_halves();
    test_bitops();
    test_warpdiv();
    test_dyninit();
    test_sharedatom();
    zn_jit_module_free(jm);
    zt_cleanup();
    if (zt_failures)
        fprintf(stderr, "%d check(s) failed\n", zt_failures);
    else
        printf("test_compile_kernels2: all passed\n");
    return zt_failures != 0;
}
