/* test_compile_perf.c: kernels3.ptx (source: kernels3.cu) exercises the
 * compiler's fast paths against C references: run-time shaped loads and
 * stores (contiguous under partial masks, uniform, gather/scatter, .v2/.v4,
 * shared), %tid for ntid.x not a multiple of 32 and 2D/3D blocks, invariant
 * registers and uniform branches inside divergent loops, and the vector
 * approximate math (ex2/lg2/sin/cos/tanh) within PTX's error bounds. */
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

static void test_shapes(int n, uint32_t bs)
{
    float *a = malloc(n * sizeof *a), *out = poisoned(3 * n * sizeof *out);
    int *perm = malloc(n * sizeof *perm);
    for (int i = 0; i < n; i++) {
        a[i] = (float)(i * 3 % 17) - 4.0f;
        perm[i] = (i * 7 + 3) % n;
    }
    void *args[] = {&a, &perm, &out, &n};
    uint32_t grid = (n + bs - 1) / bs;
    CHECK(zt_run(jm, "shapes", ZT_DIM1(grid), ZT_DIM1(bs), 0, args) == 0, "shapes status");
    for (int i = 0; i < n; i++) {
        float want = a[i] + 2.0f * a[i / bs] + 4.0f * a[perm[i]];
        CHECK(out[i] == want, "shapes n=%d bs=%u [%d] = %g, want %g", n, bs, i, out[i], want);
        CHECK(out[n + 2 * i] == a[i], "shapes strided [%d] = %g", i, out[n + 2 * i]);
    }
    /* the odd slots of the strided part are never written */
    uint32_t poison;
    memset(&poison, 0x5a, 4);
    for (int i = 0; i + 1 < n; i++) {
        uint32_t bits;
        memcpy(&bits, &out[n + 2 * i + 1], 4);
        CHECK(bits == poison, "shapes: slot %d written", n + 2 * i + 1);
    }
    free(a);
    free(out);
    free(perm);
}

static void test_shapes_vec(int n, uint32_t bs)
{
    float *a = malloc(4 * n * sizeof *a), *o2 = poisoned((2 * n + 2) * sizeof *o2);
    double *od = poisoned((2 * n + 2) * sizeof *od);
    for (int i = 0; i < 4 * n; i++)
        a[i] = (float)(i % 13) * 0.25f - 1.0f;
    void *args[] = {&a, &o2, &od, &n};
    uint32_t grid = (n + bs - 1) / bs;
    CHECK(zt_run(jm, "shapes_vec", ZT_DIM1(grid), ZT_DIM1(bs), 0, args) == 0,
          "shapes_vec status");
    for (int i = 0; i < n; i++) {
        const float *v = &a[4 * i];
        CHECK(o2[2 * i] == v[0] + v[1] && o2[2 * i + 1] == v[2] * v[3],
              "shapes_vec n=%d [%d] = (%g, %g)", n, i, o2[2 * i], o2[2 * i + 1]);
        CHECK(od[2 * i] == (double)v[0] && od[2 * i + 1] == (double)v[3] * 0.5,
              "shapes_vec f64 [%d] = (%g, %g)", i, od[2 * i], od[2 * i + 1]);
    }
    uint32_t poison, bits;
    memset(&poison, 0x5a, 4);
    memcpy(&bits, &o2[2 * n], 4);
    CHECK(bits == poison, "shapes_vec wrote past the end");
    free(a);
    free(o2);
    free(od);
}

static void test_same_store(uint32_t bs)
{
    int *out = poisoned(4 * sizeof *out);
    void *args[] = {&out};
    CHECK(zt_run(jm, "same_store", ZT_DIM1(4), ZT_DIM1(bs), 0, args) == 0, "same_store status");
    for (int b = 0; b < 4; b++) {
        /* some lane with t % 7 == 2 wins (the GPU leaves which one open) */
        CHECK(out[b] >= 2 && out[b] < (int)bs && out[b] % 7 == 2,
              "same_store bs=%u block %d: %d", bs, b, out[b]);
    }
    free(out);
}

static void test_shared_shapes(void)
{
    int a[32], *pa = a, *out = poisoned(32 * sizeof *out);
    for (int i = 0; i < 32; i++)
        a[i] = i * i - 7;
    void *args[] = {&pa, &out};
    CHECK(zt_run(jm, "shared_shapes", ZT_DIM1(1), ZT_DIM1(32), 0, args) == 0,
          "shared_shapes status");
    for (int t = 0; t < 32; t++) {
        int want = a[31 - t] * 3 + 1000 * (a[t ^ 1] * 3) + 100000 * (a[0] * 3);
        CHECK(out[t] == want, "shared_shapes [%d] = %d, want %d", t, out[t], want);
    }
    free(out);
}

static void test_tids(zt_dim grid, zt_dim block)
{
    uint32_t nb = grid.x * grid.y * grid.z, nt = block.x * block.y * block.z;
    unsigned *out = poisoned((size_t)nb * nt * 3 * sizeof *out);
    void *args[] = {&out};
    CHECK(zt_run(jm, "tids", grid, block, 0, args) == 0, "tids status");
    int bad = 0;
    for (uint32_t b = 0; b < nb; b++)
        for (uint32_t t = 0; t < nt; t++) {
            const unsigned *o = &out[(b * nt + t) * 3];
            unsigned x = t % block.x, y = t / block.x % block.y, z = t / block.x / block.y;
            if ((o[0] != x || o[1] != y || o[2] != z) && bad++ < 5)
                CHECK(0, "tids block (%u,%u,%u) thread %u: (%u,%u,%u), want (%u,%u,%u)",
                      block.x, block.y, block.z, t, o[0], o[1], o[2], x, y, z);
        }
    CHECK(bad == 0, "tids block (%u,%u,%u): %d wrong", block.x, block.y, block.z, bad);
    free(out);
}

static void test_diverge(uint32_t bs, int flag)
{
    int n = 50, nthreads = 2 * (int)bs;
    int *a = malloc(n * sizeof *a), *out = poisoned(nthreads * sizeof *out);
    for (int i = 0; i < n; i++)
        a[i] = i * 31 % 23 - 11;
    void *args[] = {&a, &out, &n, &flag};
    CHECK(zt_run(jm, "diverge", ZT_DIM1(2), ZT_DIM1(bs), 0, args) == 0, "diverge status");
    for (int t = 0; t < nthreads; t++) {
        int acc = 0;
        for (int k = 0; k < (t & 7) + 1; k++) {
            acc += a[(t + k) % n] + (int)bs * 3;
            if (flag > 0)
                acc ^= k * 17;
            else
                acc += k;
        }
        int w = t % 3 == 0 ? a[t % n] : t * 5 + 1;
        CHECK(out[t] == acc + w, "diverge bs=%u flag=%d [%d] = %d, want %d", bs, flag, t,
              out[t], acc + w);
    }
    free(a);
    free(out);
}

static void test_rowsum(int n, int m, uint32_t bs)
{
    float *a = malloc((size_t)(n * m + 1) * sizeof *a), *out = poisoned((n + 1) * sizeof *out);
    for (int i = 0; i < n * m; i++)
        a[i] = (float)(i % 11) - 5.0f;
    void *args[] = {&a, &out, &n, &m};
    uint32_t grid = (n + bs - 1) / bs;
    CHECK(zt_run(jm, "rowsum", ZT_DIM1(grid), ZT_DIM1(bs), 0, args) == 0, "rowsum status");
    for (int i = 0; i < n; i++) {
        float acc = 0.0f;
        for (int k = 0; k < m; k++)
            acc += a[i * m + k] * (float)(k + 1);
        CHECK(out[i] == acc, "rowsum n=%d m=%d [%d] = %g, want %g", n, m, i, out[i], acc);
    }
    free(a);
    free(out);
}

static void test_rows2d(int w, uint32_t by, uint32_t gy)
{
    int h = (int)(by * gy);
    float *a = malloc((size_t)(w > h ? w : h) * w * sizeof *a);
    float *out = poisoned((size_t)h * w * sizeof *out);
    for (int i = 0; i < (w > h ? w : h) * w; i++)
        a[i] = (float)(i % 9) * 0.5f - 2.0f;
    void *args[] = {&a, &out, &w};
    CHECK(zt_run(jm, "rows2d", (zt_dim){1, gy, 1}, (zt_dim){(uint32_t)w, by, 1}, 0, args) == 0,
          "rows2d status");
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            float acc = 0.0f;
            for (int k = 0; k < w; k++)
                acc += a[y * w + k] * a[k * w + x];
            CHECK(out[y * w + x] == acc, "rows2d w=%d by=%u [%d][%d] = %g, want %g", w, by, y,
                  x, out[y * w + x], acc);
        }
    free(a);
    free(out);
}

static void test_tail_ops(int n, int c, uint32_t bs)
{
    uint32_t grid = (n + bs - 1) / bs;
    int *a = malloc(n * sizeof *a), *out = poisoned((n + grid) * sizeof *out);
    for (int i = 0; i < n; i++)
        a[i] = i * 13 % 7;
    int *pc = &c;
    void *args[] = {&a, &out, &n, &pc};
    CHECK(zt_run(jm, "tail_ops", ZT_DIM1(grid), ZT_DIM1(bs), 0, args) == 0, "tail_ops status");
    int *s = malloc(n * sizeof *s);
    for (int i = 0; i < n; i++) {
        s[i] = 0;
        for (int k = 0; k < c; k++)
            s[i] += a[(i + k) % n];
    }
    for (int i = 0; i < n; i++) {
        /* the ballot sees the lanes of i's warp (in its block) below n */
        int blk = i / (int)bs, t = i % (int)bs, w0 = blk * (int)bs + t / 32 * 32;
        int odd = 0;
        for (int j = w0; j < w0 + 32 && j < (blk + 1) * (int)bs && j < n; j++)
            odd += s[j] & 1;
        CHECK(out[i] == s[i] + odd, "tail_ops n=%d c=%d bs=%u [%d] = %d, want %d", n, c, bs, i,
              out[i], s[i] + odd);
    }
    for (uint32_t b = 0; b < grid; b++) {
        /* lane 3 of each warp with i < n writes; the last such warp wins */
        int want = -1;
        for (uint32_t t = 3; t < bs; t += 32)
            if ((int)(b * bs + t) < n)
                want = c + 1000 * (int)(t / 32);
        if (want >= 0)
            CHECK(out[n + b] == want, "tail_ops block %u: %d, want %d", b, out[n + b], want);
    }
    free(a);
    free(out);
    free(s);
}

/* Hand-written control flow that nvcc does not emit: the taken side of a
 * divergent branch placed after the join (lanes meet only through the
 * dispatcher), and a register that is uniform before a divergent region,
 * changed inside it, and read after it. */
static const char odd_cfg_ptx[] =
    ".version 8.0\n.target sm_80\n.address_size 64\n"
    ".visible .entry odd_cfg(.param .u64 out, .param .u32 u)\n{\n"
    "  .reg .pred %p<3>;\n  .reg .b32 %r<8>;\n  .reg .b64 %rd<4>;\n"
    "  ld.param.u64 %rd1, [out];\n  ld.param.u32 %r4, [u];\n"
    "  mov.u32 %r1, %tid.x;\n  mov.u32 %r2, 3;\n  add.u32 %r5, %r4, 1;\n"
    "  setp.lt.u32 %p1, %r1, 5;\n  @%p1 bra THEN;\n"
    "JOIN:\n  add.u32 %r2, %r2, 7;\n  setp.gt.u32 %p2, %r4, 2;\n  @%p2 bra SKIP;\n"
    "  mul.lo.u32 %r2, %r2, 2;\n"
    "SKIP:\n  add.u32 %r3, %r2, %r5;\n  mul.wide.u32 %rd2, %r1, 4;\n"
    "  add.s64 %rd3, %rd1, %rd2;\n  st.global.u32 [%rd3], %r3;\n  ret;\n"
    "THEN:\n  add.u32 %r2, %r2, 100;\n  add.u32 %r5, %r5, %r1;\n  bra JOIN;\n}\n";

/* the same program laid out as nvcc would: the analysis keeps JOIN and
 * SKIP convergent and the branch on %p2 uniform */
static const char odd_cfg2_ptx[] =
    ".version 8.0\n.target sm_80\n.address_size 64\n"
    ".visible .entry odd_cfg(.param .u64 out, .param .u32 u)\n{\n"
    "  .reg .pred %p<3>;\n  .reg .b32 %r<8>;\n  .reg .b64 %rd<4>;\n"
    "  ld.param.u64 %rd1, [out];\n  ld.param.u32 %r4, [u];\n"
    "  mov.u32 %r1, %tid.x;\n  mov.u32 %r2, 3;\n  add.u32 %r5, %r4, 1;\n"
    "  setp.lt.u32 %p1, %r1, 5;\n  @!%p1 bra JOIN;\n"
    "  add.u32 %r2, %r2, 100;\n  add.u32 %r5, %r5, %r1;\n"
    "JOIN:\n  add.u32 %r2, %r2, 7;\n  setp.gt.u32 %p2, %r4, 2;\n  @%p2 bra SKIP;\n"
    "  mul.lo.u32 %r2, %r2, 2;\n"
    "SKIP:\n  add.u32 %r3, %r2, %r5;\n  mul.wide.u32 %rd2, %r1, 4;\n"
    "  add.s64 %rd3, %rd1, %rd2;\n  st.global.u32 [%rd3], %r3;\n  ret;\n}\n";

static void test_odd_cfg(const zn_jit_module *m, uint32_t bs, unsigned u)
{
    unsigned *out = poisoned(bs * sizeof *out);
    void *args[] = {&out, &u};
    CHECK(zt_run(m, "odd_cfg", ZT_DIM1(1), ZT_DIM1(bs), 0, args) == 0, "odd_cfg status");
    for (unsigned t = 0; t < bs; t++) {
        unsigned r2 = 3 + (t < 5 ? 100 : 0) + 7, r5 = u + 1 + (t < 5 ? t : 0);
        if (!(u > 2))
            r2 *= 2;
        CHECK(out[t] == r2 + r5, "odd_cfg bs=%u u=%u [%u] = %u, want %u", bs, u, t, out[t],
              r2 + r5);
    }
    free(out);
}

/* the f32 ulp at v (v finite) */
static double ulp_of(double v)
{
    return v == 0 ? 0x1p-149 : fmax(ldexp(1.0, ilogb(v) - 23), 0x1p-149);
}

/* error of r against the exact f(x) in units of the f32 ulp at f(x) */
static double ulps(float r, double exact)
{
    if (isnan(exact))
        return isnan(r) ? 0 : 1e30;
    if (isinf((float)exact)) /* beyond FLT_MAX after rounding */
        return r == (float)exact ? 0 : 1e30;
    return fabs((double)r - exact) / ulp_of(exact);
}

static void test_approx(void)
{
    enum { N = 96 };
    float x[N], *px = x, *out = poisoned(9 * N * sizeof *out);
    static const float special[] = {0.0f, -0.0f, 1.0f, -1.0f, 0.5f, 2.0f, 100.0f, -100.0f,
                                    127.9f, 128.0f, -126.0f, -149.5f, -160.0f, 1e-40f,
                                    -1e-40f, INFINITY, -INFINITY, NAN, 3.14159265f,
                                    -3.14159265f, 1e5f, 0x1p-126f, 0.01f, -7.5f};
    int ns = sizeof special / sizeof special[0];
    for (int i = 0; i < N; i++)
        x[i] = i < ns ? special[i] : (float)(i - 60) * 0.731f + 0.0137f * (float)i;
    int n = N;
    void *args[] = {&px, &out, &n};
    CHECK(zt_run(jm, "approx", ZT_DIM1(3), ZT_DIM1(32), 0, args) == 0, "approx status");
    for (int i = 0; i < N; i++) {
        double v = x[i], vf = fabs(v) < 0x1p-126 ? copysign(0.0, v) : v;
        const float *o = out;
        /* ex2: 2 ulp (ftz: subnormal results flush to zero) */
        CHECK(ulps(o[i], exp2(v)) <= 2, "ex2(%a) = %a, want %a", x[i], o[i], exp2(v));
        double e2 = exp2(vf);
        if (fabs(e2) < 0x1p-126)
            CHECK(o[N + i] == 0.0f, "ex2.ftz(%a) = %a, want 0", x[i], o[N + i]);
        else
            CHECK(ulps(o[N + i], e2) <= 2, "ex2.ftz(%a) = %a", x[i], o[N + i]);
        /* lg2: absolute 2^-22 (relative 2 ulp away from 1) */
        double l2 = log2(v), l2f = log2(vf);
        CHECK(isnan(l2) ? isnan(o[2 * N + i]) : isinf(l2) ? o[2 * N + i] == l2
              : fabs(o[2 * N + i] - l2) <= fmax(0x1p-22, 2 * ulp_of(l2)),
              "lg2(%a) = %a, want %a", x[i], o[2 * N + i], l2);
        CHECK(isnan(l2f) ? isnan(o[3 * N + i]) : isinf(l2f) ? o[3 * N + i] == l2f
              : fabs(o[3 * N + i] - l2f) <= fmax(0x1p-22, 2 * ulp_of(l2f)),
              "lg2.ftz(%a) = %a, want %a", x[i], o[3 * N + i], l2f);
        /* sin/cos: absolute 2^-20.5 around the GPU's own reduction (the
         * argument in revolutions, rounded toward zero to f32: fitted to
         * an H200, docs/sweep.md); NaN for inf and NaN */
        if (isfinite(v)) {
            double t = v * (double)(float)(1 / (2 * M_PI));
            float t32 = (float)t;
            if (fabs((double)t32) > fabs(t))
                t32 = nextafterf(t32, 0.0f);
            double y = 2 * M_PI * ((double)t32 - nearbyint((double)t32));
            CHECK(fabs(o[4 * N + i] - sin(y)) <= 6.75e-7 /* 2^-20.5 */, "sin(%a) = %a, want %a", x[i],
                  o[4 * N + i], sin(y));
            CHECK(fabs(o[5 * N + i] - cos(y)) <= 6.75e-7, "cos(%a) = %a, want %a", x[i],
                  o[5 * N + i], cos(y));
        } else {
            CHECK(isnan(o[4 * N + i]) && isnan(o[5 * N + i]), "sin/cos(%a) not NaN", x[i]);
        }
        /* tanh: relative 2^-10.98 (exact signed zeros) */
        double th = tanh(v);
        CHECK(isnan(th) ? isnan(o[6 * N + i])
              : fabs(o[6 * N + i] - th) <= fabs(th) * 4.93e-4 /* 2^-10.98 */ + 0x1p-149 &&
                !signbit(o[6 * N + i]) == !signbit(th),
              "tanh(%a) = %a, want %a", x[i], o[6 * N + i], th);
        /* rsqrt, rcp: 1 ulp is more than enough for the exact ops used */
        CHECK(ulps(o[7 * N + i], 1.0 / sqrt(v)) <= 1, "rsqrt(%a) = %a", x[i], o[7 * N + i]);
        CHECK(ulps(o[8 * N + i], 1.0 / v) <= 1, "rcp(%a) = %a", x[i], o[8 * N + i]);
    }
    free(out);
}

int main(int argc, char **argv)
{
    jm = zt_load(argc > 1 ? argv[1] : ZT_KERNELS3_PTX, NULL);
    if (!jm)
        return 1;
    static const int sizes[] = {1, 31, 32, 33, 100, 257};
    static const uint32_t blocks[] = {32, 48, 64, 100, 256};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        for (size_t j = 0; j < sizeof blocks / sizeof blocks[0]; j++) {
            test_shapes(sizes[i], blocks[j]);
            test_shapes_vec(sizes[i], blocks[j]);
        }
    test_same_store(32);
    test_same_store(100);
    test_shared_shapes();
    static const zt_dim tb[] = {{32, 1, 1}, {48, 1, 1}, {100, 1, 1}, {16, 8, 1}, {8, 4, 2},
                                {5, 3, 2}, {33, 2, 3}, {64, 2, 1}, {1, 1, 40}, {31, 3, 1},
                                {1024, 1, 1}, {3, 1, 1}};
    for (size_t i = 0; i < sizeof tb / sizeof tb[0]; i++)
        test_tids((zt_dim){2, 2, 1}, tb[i]);
    for (uint32_t bs = 16; bs <= 112; bs += 24) {
        test_diverge(bs, 1);
        test_diverge(bs, 0);
    }
    static const int rs[][2] = {{1, 1}, {33, 0}, {33, 5}, {100, 7}, {64, 13}};
    for (size_t i = 0; i < sizeof rs / sizeof rs[0]; i++) {
        test_rowsum(rs[i][0], rs[i][1], 32);
        test_rowsum(rs[i][0], rs[i][1], 48);
    }
    test_tail_ops(70, 3, 32);
    test_tail_ops(70, 0, 64);
    test_tail_ops(100, 5, 48);
    test_rows2d(16, 4, 3);
    test_rows2d(16, 3, 2);
    test_rows2d(8, 8, 2);
    test_rows2d(24, 2, 3);
    test_rows2d(4, 5, 1);
    zn_jit_module *odd[2] = {zt_load_text(odd_cfg_ptx, NULL), zt_load_text(odd_cfg2_ptx, NULL)};
    for (int k = 0; k < 2; k++) {
        CHECK(odd[k] != NULL, "odd_cfg %d compiles", k);
        for (uint32_t bs = 3; odd[k] && bs <= 64; bs += 61 / 3)
            for (unsigned u = 1; u < 10; u += 8)
                test_odd_cfg(odd[k], bs, u);
        if (odd[k])
            zn_jit_module_free(odd[k]);
    }
    test_approx();
    zn_jit_module_free(jm);
    zt_cleanup();
    if (zt_failures)
        fprintf(stderr, "%d check(s) failed\n", zt_failures);
    else
        printf("compile_perf: all checks passed\n");
    return zt_failures != 0;
}
