/* test_compile_kernels.c: runs the nvcc-generated kernels of kernels.ptx
 * (source: kernels.cu) through the compiler and the in-test harness and
 * compares every output with a reference computed here in C. Output
 * buffers are poisoned first so that a missing store is caught. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "zn_test_harness.h"

#define POISON 0x5a5a5a5au
static zn_jit_module *jm;

static void *poisoned(size_t bytes)
{
    void *p = malloc(bytes);
    memset(p, 0x5a, bytes);
    return p;
}

static void test_vecadd(void)
{
    enum { N = 100, T = 144 }; /* blocks of 48 threads: warp 1 has 16 lanes */
    float *a = malloc(T * 4), *b = malloc(T * 4);
    uint32_t *c = poisoned(T * 4);
    for (int i = 0; i < T; i++) {
        a[i] = (float)i * 0.5f;
        b[i] = 1000.0f - (float)i;
    }
    int n = N;
    void *args[] = {&a, &b, &c, &n};
    CHECK(zt_run(jm, "vecadd", ZT_DIM1(3), ZT_DIM1(48), 0, args) == 0, "vecadd status");
    for (int i = 0; i < T; i++) {
        float want = a[i] + b[i], got;
        memcpy(&got, &c[i], 4);
        if (i < N)
            CHECK(got == want, "vecadd[%d] = %g, want %g", i, got, want);
        else
            CHECK(c[i] == POISON, "vecadd wrote past n at %d", i);
    }
    free(a); free(b); free(c);
}

static void test_diverge(void)
{
    enum { N = 77 };
    int *out = poisoned(128 * 4);
    int n = N;
    void *args[] = {&out, &n};
    CHECK(zt_run(jm, "diverge", ZT_DIM1(2), ZT_DIM1(64), 0, args) == 0, "diverge status");
    for (int i = 0; i < 128; i++) {
        int want = i % 3 == 0 ? i * 2 : i % 3 == 1 ? -i : i * i;
        if (i < N)
            CHECK(out[i] == want, "diverge[%d] = %d, want %d", i, out[i], want);
        else
            CHECK((uint32_t)out[i] == POISON, "diverge wrote %d", i);
    }
    free(out);
}

static void test_loops(void)
{
    enum { T = 64 };
    int in[T], *out = poisoned(T * 4);
    for (int i = 0; i < T; i++)
        in[i] = (i * 7) % 23;
    int *pin = in;
    void *args[] = {&pin, &out};
    CHECK(zt_run(jm, "loops", ZT_DIM1(1), ZT_DIM1(T), 0, args) == 0, "loops status");
    for (int i = 0; i < T; i++) {
        int s = 0;
        for (int j = 0; j < in[i]; j++) {
            if (j % 5 == 3)
                continue;
            if (s > 500)
                break;
            s += j * (i + 1);
        }
        CHECK(out[i] == s, "loops[%d] = %d, want %d", i, out[i], s);
    }
    free(out);
}

static int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

static void test_fib(void)
{
    int in[32], *out = poisoned(32 * 4), *pin = in;
    for (int i = 0; i < 32; i++)
        in[i] = (i * 5) % 16;
    void *args[] = {&pin, &out};
    CHECK(zt_run(jm, "fibk", ZT_DIM1(1), ZT_DIM1(32), 0, args) == 0, "fib status");
    for (int i = 0; i < 32; i++)
        CHECK(out[i] == fib(in[i]), "fib(%d) = %d, want %d", in[i], out[i], fib(in[i]));
    free(out);
}

static void test_localarr(void)
{
    int in[40], *out = poisoned(40 * 4), *pin = in;
    for (int i = 0; i < 40; i++)
        in[i] = i * 3 + 1;
    void *args[] = {&pin, &out};
    CHECK(zt_run(jm, "localarr", ZT_DIM1(1), ZT_DIM1(40), 0, args) == 0, "localarr status");
    for (int i = 0; i < 40; i++) {
        int arr[16];
        for (int k = 0; k < 16; k++)
            arr[k] = k * k + i;
        arr[in[i] & 15] += 1000;
        int want = arr[(i * 7) & 15] + arr[in[i] & 15];
        CHECK(out[i] == want, "localarr[%d] = %d, want %d", i, out[i], want);
    }
    free(out);
}

static void test_shuffles(void)
{
    int in[32], *out = poisoned(32 * 5 * 4), *pin = in;
    for (int i = 0; i < 32; i++)
        in[i] = i * i * 3 + 7;
    void *args[] = {&pin, &out};
    CHECK(zt_run(jm, "shuffles", ZT_DIM1(1), ZT_DIM1(32), 0, args) == 0, "shfl status");
    int s[32], x[32], t[32];
    memcpy(s, in, sizeof s);
    memcpy(x, in, sizeof x);
    for (int o = 16; o > 0; o /= 2) {
        for (int i = 0; i < 32; i++)
            t[i] = s[i] + (i + o < 32 ? s[i + o] : s[i]);
        memcpy(s, t, sizeof s);
    }
    for (int o = 1; o < 32; o *= 2) {
        for (int i = 0; i < 32; i++)
            t[i] = x[i] ^ x[i ^ o];
        memcpy(x, t, sizeof x);
    }
    for (int i = 0; i < 32; i++) {
        int want[5] = {s[i], x[i], in[(i * 5) & 31], i >= 3 ? in[i - 3] : in[i],
                       (i % 8) + 2 < 8 ? in[i + 2] : in[i]};
        for (int k = 0; k < 5; k++)
            CHECK(out[i * 5 + k] == want[k], "shfl lane %d kind %d: %d, want %d",
                  i, k, out[i * 5 + k], want[k]);
    }
    free(out);
}

static void test_votes(void)
{
    int in[32], *pin = in;
    unsigned *out = poisoned(32 * 4 * 4);
    for (int i = 0; i < 32; i++)
        in[i] = (i * 7) % 13;
    void *args[] = {&pin, &out};
    CHECK(zt_run(jm, "votes", ZT_DIM1(1), ZT_DIM1(32), 0, args) == 0, "votes status");
    unsigned m = 0, ballot = 0;
    int any = 0, all = 1;
    for (int i = 0; i < 32; i++)
        if (i % 3 != 0) {
            m |= 1u << i;
            ballot |= (unsigned)(in[i] > 5) << i;
            any |= in[i] > 8;
            all &= in[i] >= 0;
        }
    for (int i = 0; i < 32; i++) {
        bool on = i % 3 != 0;
        unsigned want[4] = {on ? ballot : 0, on ? (unsigned)any : 0,
                            on ? (unsigned)all : 0, on ? m : 0};
        for (int k = 0; k < 4; k++)
            CHECK(out[i * 4 + k] == want[k], "votes lane %d kind %d: %#x, want %#x",
                  i, k, out[i * 4 + k], want[k]);
    }
    free(out);
}

static void test_atomics(void)
{
    enum { N = 203, T = 256 };
    int in[T], *pin = in, counter = 0, hist[17] = {0};
    unsigned mx = 0, inc = 0;
    float fsum = 0;
    int *cas = poisoned(T * 4);
    for (int i = 0; i < T; i++)
        in[i] = (i * 31) % 1000;
    hist[16] = -1;
    int *pc = &counter, *ph = hist, n = N;
    unsigned *pmx = &mx, *pinc = &inc;
    float *pf = &fsum;
    void *args[] = {&pin, &pc, &ph, &pmx, &pf, &pinc, &cas, &n};
    CHECK(zt_run(jm, "atomics", ZT_DIM1(4), ZT_DIM1(64), 0, args) == 0, "atomics status");
    CHECK(counter == N, "counter %d", counter);
    int want_h[16] = {0};
    unsigned want_mx = 0;
    for (int i = 0; i < N; i++) {
        want_h[in[i] & 15]++;
        if ((unsigned)in[i] > want_mx)
            want_mx = (unsigned)in[i];
    }
    for (int k = 0; k < 16; k++)
        CHECK(hist[k] == want_h[k], "hist[%d] = %d, want %d", k, hist[k], want_h[k]);
    CHECK(mx == want_mx, "max %u, want %u", mx, want_mx);
    CHECK(fsum == 0.5f * N, "fsum %g", fsum);
    CHECK(inc == N % 10, "inc %u, want %u", inc, N % 10);
    /* old values of the exchanges + the final value = {-1, 0..N-1} */
    char seen[N + 1] = {0};
    for (int i = 0; i <= N; i++) {
        int v = i < N ? cas[i] : hist[16];
        CHECK(v >= -1 && v < N && !seen[v + 1], "exch value %d at %d", v, i);
        if (v >= -1 && v < N)
            seen[v + 1] = 1;
    }
    free(cas);
}

static bool close_rel(double a, double b, double tol)
{
    return fabs(a - b) <= tol * fmax(1.0, fabs(b));
}

static void test_fmath(void)
{
    float x[32], *px = x;
    double y[32], *py = y;
    float *of = poisoned(32 * 6 * 4);
    double *od = poisoned(32 * 4 * 8);
    for (int i = 0; i < 32; i++) {
        x[i] = (float)(i - 16) * 0.37f;
        y[i] = (i - 10) * 1.3;
    }
    void *args[] = {&px, &py, &of, &od};
    CHECK(zt_run(jm, "fmath", ZT_DIM1(1), ZT_DIM1(32), 0, args) == 0, "fmath status");
    for (int i = 0; i < 32; i++) {
        float a = x[i];
        double d = y[i];
        float wf[6] = {sqrtf(fabsf(a)), a / (a + 3.0f), fmaf(a, 1.5f, -2.0f),
                       fminf(a, 0.25f) + fmaxf(a, -0.5f),
                       floorf(a) + ceilf(a) + truncf(a), expf(a * 0.1f)};
        for (int k = 0; k < 5; k++)
            CHECK(of[i * 6 + k] == wf[k] || (isnan(of[i * 6 + k]) && isnan(wf[k])),
                  "fmath f32 lane %d kind %d: %.9g, want %.9g", i, k, of[i * 6 + k], wf[k]);
        CHECK(close_rel(of[i * 6 + 5], wf[5], 1e-5), "expf lane %d: %.9g vs %.9g",
              i, of[i * 6 + 5], wf[5]);
        double wd[4] = {sqrt(fabs(d)), d / (d + 7.0), fma(d, d, 1.0), (double)a * d};
        for (int k = 0; k < 4; k++)
            CHECK(od[i * 4 + k] == wd[k], "fmath f64 lane %d kind %d: %.17g, want %.17g",
                  i, k, od[i * 4 + k], wd[k]);
    }
    free(of);
    free(od);
}

/* PTX float -> int: NaN gives 0, out of range saturates */
static int64_t sat_i(double v, double lo, double hi)
{
    if (isnan(v))
        return 0;
    if (v <= lo)
        return (int64_t)lo;
    if (v >= hi)
        return (int64_t)hi;
    return (int64_t)v;
}

static void test_convs(void)
{
    float x[32], *px = x;
    const float special[] = {0.5f, 1.5f, 2.5f, -0.5f, -1.5f, -2.7f, 3.999f, 1e10f,
                             -1e10f, NAN, INFINITY, -INFINITY, 2147483520.0f,
                             -2147483648.0f, 4294967040.0f, 1e-40f};
    for (int i = 0; i < 32; i++)
        x[i] = i < 16 ? special[i] : (float)(i - 24) * 0.77f;
    int *oi = poisoned(32 * 16);
    unsigned *ou = poisoned(32 * 4);
    float *of = poisoned(32 * 12);
    void *args[] = {&px, &oi, &ou, &of};
    CHECK(zt_run(jm, "convs", ZT_DIM1(1), ZT_DIM1(32), 0, args) == 0, "convs status");
    for (int i = 0; i < 32; i++) {
        float a = x[i];
        int want[4] = {
            (int)sat_i(nearbyint(a), INT_MIN, INT_MAX), (int)sat_i(trunc(a), INT_MIN, INT_MAX),
            (int)sat_i(floor(a), INT_MIN, INT_MAX), (int)sat_i(ceil(a), INT_MIN, INT_MAX)};
        for (int k = 0; k < 4; k++)
            CHECK(oi[i * 4 + k] == want[k], "cvt %g kind %d: %d, want %d", a, k,
                  oi[i * 4 + k], want[k]);
        unsigned wu = (unsigned)sat_i(trunc(a), 0, UINT_MAX);
        CHECK(ou[i] == wu, "cvt.u32 %g: %u, want %u", a, ou[i], wu);
        float h = (float)(_Float16)a;
        float ll = (float)sat_i(trunc((double)(a * 1000.0f)), -9223372036854775808.0,
                                9223372036854775807.0);
        if (isinf(a * 1000.0f) || fabsf(a * 1000.0f) >= 9.2e18f)
            ll = a * 1000.0f > 0 ? 9223372036854775807.0f : -9223372036854775808.0f;
        if (isnan(a)) /* the integer indefinite, as NVIDIA GPUs give it */
            ll = -9223372036854775808.0f;
        CHECK(of[i * 3] == a || (isnan(a) && isnan(of[i * 3])), "f64 round trip %g", a);
        CHECK(of[i * 3 + 1] == h || (isnan(h) && isnan(of[i * 3 + 1])),
              "f16 round trip %g: %g, want %g", a, of[i * 3 + 1], h);
        CHECK(of[i * 3 + 2] == ll, "s64 %g: %g, want %g", a, of[i * 3 + 2], ll);
    }
    free(oi); free(ou); free(of);
}

static void test_intdiv(void)
{
    int a[32], b[32], *pa = a, *pb = b;
    int *q = poisoned(128), *r = poisoned(128);
    unsigned *uq = poisoned(128), *ur = poisoned(128);
    for (int i = 0; i < 32; i++) {
        a[i] = (i * 7919) % 1000 - 500;
        b[i] = (i % 4 == 0) ? 0 : (i % 5) - 2;
    }
    a[1] = INT_MIN; b[1] = -1;
    a[2] = INT_MIN; b[2] = 0;
    a[3] = 17; b[3] = -1;
    void *args[] = {&pa, &pb, &q, &r, &uq, &ur};
    CHECK(zt_run(jm, "intdiv", ZT_DIM1(1), ZT_DIM1(32), 0, args) == 0, "intdiv status");
    for (int i = 0; i < 32; i++) {
        int wq, wr;
        unsigned ua = (unsigned)a[i], ub = (unsigned)b[i];
        if (b[i] == 0) {
            wq = -1;
            wr = a[i];
        } else if (a[i] == INT_MIN && b[i] == -1) {
            wq = INT_MIN;
            wr = 0;
        } else {
            wq = a[i] / b[i];
            wr = a[i] % b[i];
        }
        unsigned wuq = ub ? ua / ub : 0xffffffffu, wur = ub ? ua % ub : ua;
        CHECK(q[i] == wq && r[i] == wr, "%d / %d: %d r %d, want %d r %d", a[i], b[i],
              q[i], r[i], wq, wr);
        CHECK(uq[i] == wuq && ur[i] == wur, "%u /u %u: %u r %u", ua, ub, uq[i], ur[i]);
    }
    free(q); free(r); free(uq); free(ur);
}

static void test_sharedwarp(void)
{
    int in[32], *pin = in, *out = poisoned(128);
    for (int i = 0; i < 32; i++)
        in[i] = i * 11 - 40;
    void *args[] = {&pin, &out};
    CHECK(zt_run(jm, "sharedwarp", ZT_DIM1(1), ZT_DIM1(32), 0, args) == 0, "shared status");
    for (int i = 0; i < 32; i++) {
        int want = in[(32 - i) & 31] * 3 + in[i] * 3;
        CHECK(out[i] == want, "shared[%d] = %d, want %d", i, out[i], want);
    }
    free(out);
}

static void test_blockreduce(void)
{
    enum { B = 3, T = 128 };
    int in[B * T], *pin = in, *out = poisoned(2 * B * 4);
    for (int i = 0; i < B * T; i++)
        in[i] = (i * 13) % 21;
    void *args[] = {&pin, &out};
    int s = zt_run_exec(jm, "blockreduce", ZT_DIM1(B), ZT_DIM1(T), T * 4, args);
    CHECK(s == 0, "blockreduce status %d", s);
    for (int b = 0; b < B; b++) {
        int sum = 0, cnt = 0;
        for (int i = 0; i < T; i++) {
            sum += in[b * T + i];
            cnt += in[b * T + i] > 10;
        }
        CHECK(out[b] == sum, "block %d sum %d, want %d", b, out[b], sum);
        CHECK(out[B + b] == cnt, "block %d count %d, want %d", b, out[B + b], cnt);
    }
    const zn_kernel_info *k = zn_jit_kernel(jm, "blockreduce");
    CHECK(k && k->uses_barrier, "blockreduce uses_barrier");
    free(out);
}

static void test_exits(void)
{
    int in[32], *pin = in, *out = poisoned(128);
    for (int i = 0; i < 32; i++)
        in[i] = i * 3;
    void *args[] = {&pin, &out};
    CHECK(zt_run(jm, "exits", ZT_DIM1(1), ZT_DIM1(32), 0, args) == 0, "exits status");
    for (int i = 0; i < 32; i++)
        CHECK(out[i] == ((in[i] & 1) ? 1 : 2), "exit lane %d: %d", i, out[i]);
    free(out);
}

static void test_status(void)
{
    int *out = poisoned(128), k = 5;
    void *args[] = {&out, &k};
    CHECK(zt_run(jm, "traps", ZT_DIM1(1), ZT_DIM1(32), 0, args) == ZN_KSTATUS_TRAP,
          "trap status");
    k = 100;
    CHECK(zt_run(jm, "traps", ZT_DIM1(1), ZT_DIM1(32), 0, args) == 0, "no trap");
    CHECK(out[31] == 7, "trap kernel ran");
    zt_rec.nassert = 0;
    k = 3;
    CHECK(zt_run(jm, "asserts", ZT_DIM1(1), ZT_DIM1(32), 0, args) == ZN_KSTATUS_ASSERT,
          "assert status");
    CHECK(zt_rec.nassert == 1, "assertfail calls %d", zt_rec.nassert);
    k = 100;
    zt_rec.nassert = 0;
    CHECK(zt_run(jm, "asserts", ZT_DIM1(1), ZT_DIM1(32), 0, args) == 0, "no assert");
    CHECK(zt_rec.nassert == 0, "assertfail called without cause");
    free(out);
}

static void test_printf(void)
{
    int k = 5;
    void *args[] = {&k};
    zt_rec.nprintf = 0;
    CHECK(zt_run(jm, "prints", ZT_DIM1(1), ZT_DIM1(32), 0, args) == 0, "printf status");
    CHECK(zt_rec.nprintf == 5, "printf calls %d", zt_rec.nprintf);
    for (int i = 0; i < 5 && i < zt_rec.nprintf; i++)
        CHECK(zt_rec.printf_lane[i] == i && zt_rec.printf_arg0[i] == i,
              "printf %d: lane %d arg %d", i, zt_rec.printf_lane[i], zt_rec.printf_arg0[i]);
    CHECK(!strcmp(zt_rec.last_fmt, "lane %d of %d\n"), "printf format '%s'", zt_rec.last_fmt);
}

static void test_tid2d(void)
{
    int *out = poisoned(64 * 4);
    void *args[] = {&out};
    CHECK(zt_run(jm, "tid2d", (zt_dim){1, 2, 1}, (zt_dim){8, 4, 2}, 0, args) == 0, "tid2d");
    for (int z = 0; z < 2; z++)
        for (int y = 0; y < 4; y++)
            for (int x = 0; x < 8; x++) {
                int t = z * 32 + y * 8 + x;
                int want = x | (y << 8) | (z << 16) | (1 << 24);
                CHECK(out[t] == want, "tid2d %d: %#x, want %#x", t, out[t], want);
            }
    free(out);
}

static unsigned byte_perm(unsigned x, unsigned y, unsigned s)
{
    uint64_t v = (uint64_t)y << 32 | x;
    unsigned r = 0;
    for (int n = 0; n < 4; n++)
        r |= (unsigned)((v >> (((s >> (4 * n)) & 7) * 8)) & 0xff) << (8 * n);
    return r;
}

static void test_bits(void)
{
    unsigned in[32], *pin = in, *out = poisoned(32 * 24);
    for (int i = 0; i < 32; i++)
        in[i] = i == 0 ? 0 : 0x9e3779b9u * (unsigned)i ^ ((unsigned)i << 20);
    void *args[] = {&pin, &out};
    CHECK(zt_run(jm, "bits", ZT_DIM1(1), ZT_DIM1(32), 0, args) == 0, "bits status");
    for (int i = 0; i < 32; i++) {
        unsigned v = in[i], brev = 0;
        for (int k = 0; k < 32; k++)
            brev |= ((v >> k) & 1) << (31 - k);
        unsigned sh = (unsigned)i & 31;
        unsigned want[6] = {
            (unsigned)__builtin_popcount(v), v ? (unsigned)__builtin_clz(v) : 32, brev,
            byte_perm(v, 0x12345678u, (0x3210u + (unsigned)i) & 0x7777u),
            sh ? (v >> sh) | (v << (32 - sh)) : v,
            (unsigned)(((uint64_t)v * 0x9e3779b9u) >> 32) + (unsigned)(((uint64_t)v * 12345u) >> 7)};
        for (int k = 0; k < 6; k++)
            CHECK(out[i * 6 + k] == want[k], "bits %#x kind %d: %#x, want %#x", v, k,
                  out[i * 6 + k], want[k]);
    }
    free(out);
}

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : ZT_KERNELS_PTX;
    jm = zt_load(path, NULL);
    if (!jm)
        return 1;
    test_vecadd();
    test_diverge();
    test_loops();
    test_fib();
    test_localarr();
    test_shuffles();
    test_votes();
    test_atomics();
    test_fmath();
    test_convs();
    test_intdiv();
    test_sharedwarp();
    test_exits();
    test_status();
    test_printf();
    test_tid2d();
    test_bits();
    test_blockreduce();
    zn_jit_module_free(jm);
    zt_cleanup();
    if (zt_failures)
        fprintf(stderr, "%d check(s) failed\n", zt_failures);
    else
        printf("test_compile_kernels: all passed\n");
    return zt_failures != 0;
}
