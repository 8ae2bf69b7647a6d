/* test_compile_halfvec.c: half2 dot products and .ftz reductions as ggml's
 * mul_mat_vec<half, half> runs them (issue #8/#9).
 *
 * 1. f16x2 arithmetic is f32 arithmetic rounded once to f16
 *    (zn_lower_half.c), and its NaN tests, which InstCombine narrows to
 *    compares of <32 x half>, are compares of floats again after the
 *    optimiser (zn_half_fcmp.c): on a CPU without AVX512-FP16 the
 *    optimised IR must hold no fcmp of half vectors (x86 scalarized each
 *    into 32 vucomiss). The kernel's per-lane half2 accumulators (NaN and
 *    infinity inputs, overflow, subnormal halves, ties) must equal a C
 *    reference that rounds the exact double result to f16 itself.
 * 2. A warp reduction of add.ftz.f32 through mov.b32/shfl/mov.b32 flushes
 *    only the adds' results: their shuffled copies and the cvt.f32.f16
 *    inputs are never subnormal (zn_lower_ftzclean.c). The pre-optimiser
 *    IR's flush compares are counted; the sums are checked.
 *    The f32 results of cvt.f32.f16 that only add.ftz reads are not made
 *    canonical NaNs (the add does that); NaN halves must still sum to
 *    0x7fffffff.
 * 3. A subnormal that reaches an .ftz instruction through moves of a load,
 *    or through a register one of whose writes is a load, is still
 *    flushed. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <llvm-c/Core.h>
#include <llvm-c/TargetMachine.h>
#include "util/zn_bits.h"
#include "zn_test_harness.h"

#define T 64          /* threads: two warps, one block */
#define K 6           /* half2 steps per thread */
#define POISON 0xa5a5a5a5u

static const char *hdot_ptx =
    ".version 7.0\n.target sm_70\n.address_size 64\n"
    ".visible .entry hdot(.param .u64 px, .param .u64 py, .param .u64 pacc, .param .u64 psum)\n{\n"
    "  .reg .pred %p<4>;\n  .reg .b16 %h<8>;\n  .reg .f32 %f<24>;\n  .reg .b32 %r<32>;\n"
    "  .reg .b64 %rd<16>;\n"
    "  ld.param.u64 %rd1, [px];\n  ld.param.u64 %rd2, [py];\n"
    "  ld.param.u64 %rd3, [pacc];\n  ld.param.u64 %rd4, [psum];\n"
    "  mov.u32 %r1, %tid.x;\n"
    "  mul.wide.u32 %rd5, %r1, 4;\n  add.s64 %rd6, %rd1, %rd5;\n"
    "  mul.wide.u32 %rd7, %r1, 8;\n  add.s64 %rd8, %rd2, %rd7;\n"
    "  mov.b32 %r5, 0;\n  mov.u32 %r6, 0;\n"
    "$LOOP:\n"
    "  ld.global.nc.u32 %r7, [%rd6];\n"
    "  ld.global.nc.v2.f32 {%f1, %f2}, [%rd8];\n"
    "  cvt.rn.f16.f32 %h1, %f1;\n  cvt.rn.f16.f32 %h2, %f2;\n"
    "  mov.b32 %r8, {%h1, %h2};\n"
    "  mul.f16x2 %r9, %r7, %r8;\n"
    "  add.f16x2 %r5, %r5, %r9;\n"
    "  add.s64 %rd6, %rd6, 256;\n  add.s64 %rd8, %rd8, 512;\n"
    "  add.u32 %r6, %r6, 1;\n  setp.lt.u32 %p1, %r6, 6;\n  @%p1 bra $LOOP;\n"
    "  add.s64 %rd9, %rd3, %rd5;\n  st.global.u32 [%rd9], %r5;\n"
    "  mov.b32 {%h3, %h4}, %r5;\n"
    "  cvt.f32.f16 %f3, %h3;\n  cvt.f32.f16 %f4, %h4;\n"
    "  add.ftz.f32 %f5, %f3, %f4;\n"
    "  mov.b32 %r10, %f5;\n  shfl.sync.bfly.b32 %r11, %r10, 16, 31, -1;\n"
    "  mov.b32 %f6, %r11;\n  add.ftz.f32 %f7, %f5, %f6;\n"
    "  mov.b32 %r12, %f7;\n  shfl.sync.bfly.b32 %r13, %r12, 8, 31, -1;\n"
    "  mov.b32 %f8, %r13;\n  add.ftz.f32 %f9, %f7, %f8;\n"
    "  mov.b32 %r14, %f9;\n  shfl.sync.bfly.b32 %r15, %r14, 4, 31, -1;\n"
    "  mov.b32 %f10, %r15;\n  add.ftz.f32 %f11, %f9, %f10;\n"
    "  mov.b32 %r16, %f11;\n  shfl.sync.bfly.b32 %r17, %r16, 2, 31, -1;\n"
    "  mov.b32 %f12, %r17;\n  add.ftz.f32 %f13, %f11, %f12;\n"
    "  mov.b32 %r18, %f13;\n  shfl.sync.bfly.b32 %r19, %r18, 1, 31, -1;\n"
    "  mov.b32 %f14, %r19;\n  add.ftz.f32 %f15, %f13, %f14;\n"
    "  add.s64 %rd10, %rd4, %rd5;\n  st.global.f32 [%rd10], %f15;\n"
    "  ret;\n}\n";

/* out[t] = ftz(in[t ^ 1] (moved through shfl) * 2^126); out2[t] = the
 * same of a register that an add.ftz writes and, in odd lanes, a load
 * overwrites */
static const char *flush_ptx =
    ".version 7.0\n.target sm_70\n.address_size 64\n"
    ".visible .entry moved(.param .u64 pin, .param .u64 pout, .param .u64 pout2)\n{\n"
    "  .reg .pred %p<4>;\n  .reg .f32 %f<16>;\n  .reg .b32 %r<16>;\n  .reg .b64 %rd<16>;\n"
    "  ld.param.u64 %rd1, [pin];\n  ld.param.u64 %rd2, [pout];\n  ld.param.u64 %rd3, [pout2];\n"
    "  mov.u32 %r1, %tid.x;\n  mul.wide.u32 %rd4, %r1, 4;\n"
    "  add.s64 %rd5, %rd1, %rd4;\n  add.s64 %rd6, %rd2, %rd4;\n  add.s64 %rd7, %rd3, %rd4;\n"
    "  ld.global.f32 %f1, [%rd5];\n"
    "  mov.b32 %r2, %f1;\n  shfl.sync.bfly.b32 %r3, %r2, 1, 31, -1;\n  mov.b32 %f2, %r3;\n"
    "  mul.ftz.f32 %f3, %f2, 0f7E800000;\n"
    "  st.global.f32 [%rd6], %f3;\n"
    "  add.ftz.f32 %f4, %f1, 0f3F800000;\n"
    "  and.b32 %r4, %r1, 1;\n  setp.eq.u32 %p1, %r4, 0;\n  @%p1 bra $SKIP;\n"
    "  ld.global.f32 %f4, [%rd5];\n"
    "$SKIP:\n"
    "  mov.b32 %r5, %f4;\n  mov.b32 %f5, %r5;\n"
    "  mul.ftz.f32 %f6, %f5, 0f7E800000;\n"
    "  st.global.f32 [%rd7], %f6;\n"
    "  ret;\n}\n";

static double h2d(uint16_t h)
{
    int e = h >> 10 & 0x1f, m = h & 0x3ff;
    double v = e == 0 ? ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexp(1024 + m, e - 25);
    return (h & 0x8000) ? -v : v;
}

/* d rounded to nearest even f16; NaN -> 0x7fff */
static uint16_t d2h(double d)
{
    if (isnan(d))
        return 0x7fff;
    uint16_t s = signbit(d) ? 0x8000 : 0;
    double a = fabs(d);
    if (a == 0.0)
        return s;
    if (a >= 65520.0)                       /* 65504 + half an ulp and up */
        return s | 0x7c00;
    int e;
    frexp(a, &e);                           /* a = f * 2^e, f in [0.5, 1) */
    int q = e - 11 < -24 ? -24 : e - 11;    /* the ulp's exponent (subnormals: 2^-24) */
    double n = ldexp(a, -q), r = nearbyint(n);   /* to nearest, ties to even */
    uint32_t v = (uint32_t)r;               /* ulps of 2^q */
    if (q == -24)
        return s | (uint16_t)v;             /* subnormal or the smallest normal */
    /* normal: v in [1024, 2048] (2048: carried into the next binade) */
    int be = q + 25;
    if (v == 2048) {
        v = 1024;
        be++;
    }
    if (be >= 31)
        return s | 0x7c00;
    return s | (uint16_t)(be << 10 | (v - 1024));
}

static float flush(float f)
{
    return (fpclassify(f) == FP_SUBNORMAL) ? copysignf(0.0f, f) : f;
}

static uint32_t canon32(float f)
{
    return isnan(f) ? 0x7fffffffu : zn_bits_from_f32(f);
}

/* x: K x T half2 words (lane-major per step), y: K x T float pairs */
static void fill(uint32_t *x, float *y)
{
    static const uint16_t special[] = {
        0x7e00, 0xfd55 /* NaN payload */, 0x7c00, 0xfc00, 0x0001, 0x83ff, 0x0400, 0x7bff,
        0x3c00, 0xbc00, 0x0000, 0x8000, 0x3555, 0x5bff,
    };
    static const uint32_t fspecial[] = {
        0x7fc00000u, 0xff800001u /* signalling */, 0x7f800000u, 0x47800000u /* 65536 */,
        0x477ff000u /* 65520: rounds to infinity */, 0x477fe000u /* 65504 */,
        0x33800000u /* 2^-24 */, 0x33000000u /* 2^-25: a tie to 0 */, 0x00000001u,
        0x3f801000u /* 1 + 2^-11: a tie to even */, 0x3f803000u,
    };
    uint32_t s = 2024;
    for (int k = 0; k < K; k++)
        for (int t = 0; t < T; t++) {
            uint32_t lo, hi;
            s = s * 1103515245u + 12345u;
            lo = 0x3000 + (s >> 8) % 0x1800;     /* about 0.125 .. 16, both signs below */
            s = s * 1103515245u + 12345u;
            hi = 0x3000 + (s >> 8) % 0x1800;
            if (s >> 30 & 1)
                lo |= 0x8000;
            if (s >> 29 & 1)
                hi |= 0x8000;
            s = s * 1103515245u + 12345u;
            float a = (float)((int)(s >> 12 & 0xfff) - 2048) / 256.0f;
            s = s * 1103515245u + 12345u;
            float b = (float)((int)(s >> 12 & 0xfff) - 2048) / 1024.0f;
            /* warp 0: special values in lane k * 5 + ... (a few lanes each step) */
            if (t < 32 && (t + k) % 3 == 0)
                lo = special[(t + 2 * k) % (sizeof special / sizeof *special)];
            if (t < 32 && (t + k) % 4 == 1)
                a = zn_f32_from_bits(fspecial[(t + k) % (sizeof fspecial / sizeof *fspecial)]);
            if (t < 32 && (t + 3 * k) % 5 == 2)
                b = zn_f32_from_bits(fspecial[(3 * t + k) % (sizeof fspecial / sizeof *fspecial)]);
            x[k * T + t] = hi << 16 | lo;
            y[2 * (k * T + t)] = a;
            y[2 * (k * T + t) + 1] = b;
        }
}

static uint32_t ref_acc(const uint32_t *x, const float *y, int t)
{
    uint16_t acc[2] = {0, 0};
    for (int k = 0; k < K; k++)
        for (int p = 0; p < 2; p++) {
            uint16_t xh = (uint16_t)(x[k * T + t] >> (16 * p));
            uint16_t yh = d2h((double)y[2 * (k * T + t) + p]);
            uint16_t prod = d2h(h2d(xh) * h2d(yh));      /* exact in double */
            acc[p] = d2h(h2d(acc[p]) + h2d(prod));       /* exact in double */
        }
    return (uint32_t)acc[1] << 16 | acc[0];
}

static bool host_has_fp16(void)
{
    char *f = LLVMGetHostCPUFeatures();
    bool has = f && strstr(f, "+avx512fp16") != NULL;
    LLVMDisposeMessage(f);
    return has;
}

/* fcmps whose operands are half vectors, in IR text */
static size_t half_fcmps(const char *ir)
{
    size_t n = 0;
    for (const char *p = strstr(ir, "fcmp "); p; p = strstr(p + 1, "fcmp ")) {
        const char *e = strchr(p, '\n');
        const char *h = strstr(p, "x half>");
        n += h && (!e || h < e);
    }
    return n;
}

/* the f32 flushes (|x| < 2^-126) in IR text */
static size_t flushes(const char *ir)
{
    size_t n = 0;
    for (const char *p = strstr(ir, "fcmp olt <32 x float>"); p;
         p = strstr(p + 1, "fcmp olt <32 x float>")) {
        const char *e = strchr(p, '\n');
        const char *c = strstr(p, "0x3810000000000000");
        n += c && (!e || c < e);
    }
    return n;
}

static void test_hdot(void)
{
    zn_jit_module *jm = zt_load_text(hdot_ptx, NULL);
    CHECK(jm != NULL, "hdot did not compile");
    if (!jm)
        return;
    char *pre = zn_jit_ir_text(jm, 0), *opt = zn_jit_ir_text(jm, 1);
    CHECK(pre && opt, "no IR kept");
    if (pre && opt) {
        size_t hf = half_fcmps(opt), fl = flushes(pre);
        printf("test_compile_halfvec: hdot: %zu fcmps of half vectors after the optimiser, "
               "%zu f32 flushes before it\n", hf, fl);
        if (!host_has_fp16())
            CHECK(hf == 0, "%zu fcmps of <N x half> left for the backend to scalarize", hf);
        /* six add.ftz, each flushing its result only */
        CHECK(fl == 6, "%zu f32 flushes in the reduction (want 6: the adds' results)", fl);
        /* NaN tests: the two cvt.rn.f16.f32, the two halves of mul.f16x2
         * and of add.f16x2, the stored sum; not the cvt.f32.f16 results,
         * which only add.ftz reads (it canonicalises its own NaN) */
        size_t uno = zt_count(pre, "fcmp uno");
        CHECK(uno == 7, "%zu NaN tests before the optimiser (want 7)", uno);
    }
    free(pre);
    free(opt);
    uint32_t *x = malloc(sizeof(uint32_t) * K * T);
    float *y = malloc(sizeof(float) * 2 * K * T);
    uint32_t acc[T], sum[T];
    fill(x, y);
    for (int i = 0; i < T; i++)
        acc[i] = sum[i] = POISON;
    uint32_t *px = x, *pacc = acc, *psum = sum;
    float *py = y;
    void *args[] = {&px, &py, &pacc, &psum};
    CHECK(zt_run(jm, "hdot", ZT_DIM1(1), ZT_DIM1(T), 0, args) == 0, "hdot status");
    int bad = 0, nan = 0, inf = 0, finite = 0;
    float part[T];
    for (int t = 0; t < T; t++) {
        uint32_t want = ref_acc(x, y, t);
        nan += (want & 0x7fff) > 0x7c00 || (want >> 16 & 0x7fff) > 0x7c00;
        inf += (want & 0x7fff) == 0x7c00 || (want >> 16 & 0x7fff) == 0x7c00;
        finite += (want & 0x7c00) != 0x7c00 && (want >> 16 & 0x7c00) != 0x7c00;
        if (acc[t] != want && bad++ < 8)
            CHECK(0, "hdot lane %d: half2 0x%08x, want 0x%08x", t, acc[t], want);
        part[t] = flush((float)h2d((uint16_t)want) + (float)h2d((uint16_t)(want >> 16)));
    }
    CHECK(nan > 2 && inf > 2 && finite >= 32, "inputs give %d NaN, %d infinite, %d finite lanes",
          nan, inf, finite);
    for (int o = 16; o > 0; o >>= 1) {   /* the butterfly, as the kernel pairs them */
        float nx[T];
        for (int t = 0; t < T; t++)
            nx[t] = flush(part[t] + part[(t & ~31) | ((t & 31) ^ o)]);
        memcpy(part, nx, sizeof part);
    }
    for (int t = 0; t < T; t++)
        if (sum[t] != canon32(part[t]) && bad++ < 12)
            CHECK(0, "hdot lane %d: sum 0x%08x, want 0x%08x", t, sum[t], canon32(part[t]));
    CHECK(isnan(part[0]) && !isnan(part[32]), "warp 0 should sum to NaN, warp 1 not");
    free(x);
    free(y);
    zn_jit_module_free(jm);
}

static void test_moved(void)
{
    zn_jit_module *jm = zt_load_text(flush_ptx, NULL);
    CHECK(jm != NULL, "moved did not compile");
    if (!jm)
        return;
    float in[32];
    uint32_t out[32], out2[32];
    for (int t = 0; t < 32; t++) {
        /* subnormals of both signs, the smallest normal, ordinary values */
        static const uint32_t v[] = {0x00000001u, 0x80400000u, 0x007fffffu, 0x00800000u,
                                     0x3f800000u, 0xc0400000u, 0x00012345u, 0x80000000u};
        in[t] = zn_f32_from_bits(v[t % 8]);
        out[t] = out2[t] = POISON;
    }
    float *pin = in;
    uint32_t *po = out, *po2 = out2;
    void *args[] = {&pin, &po, &po2};
    CHECK(zt_run(jm, "moved", ZT_DIM1(1), ZT_DIM1(32), 0, args) == 0, "moved status");
    for (int t = 0; t < 32; t++) {
        float w = flush(flush(in[t ^ 1]) * 0x1p126f);
        CHECK(out[t] == zn_bits_from_f32(w), "moved lane %d: 0x%08x, want 0x%08x (input 0x%08x)", t, out[t],
              zn_bits_from_f32(w), zn_bits_from_f32(in[t ^ 1]));
        float r = (t & 1) ? in[t] : flush(flush(in[t]) + 1.0f);
        float w2 = flush(flush(r) * 0x1p126f);
        CHECK(out2[t] == zn_bits_from_f32(w2), "moved lane %d (second): 0x%08x, want 0x%08x", t, out2[t],
              zn_bits_from_f32(w2));
    }
    zn_jit_module_free(jm);
}

int main(void)
{
    zn_compile_keep_ir(1);
    test_hdot();
    test_moved();
    zn_compile_keep_ir(0);
    zt_cleanup();
    return zt_failures ? 1 : 0;
}
