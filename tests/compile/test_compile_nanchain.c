/* test_compile_nanchain.c: f32 NaN canonicalisation elided along a chain of
 * arithmetic (issue #9, zn_lower_fpfix.c).
 *
 * PTX gives every f32 arithmetic NaN result as 0x7fffffff. A value read only
 * by add/sub/mul/fma (which canonicalise their own NaN result) needs no
 * canonicalisation of its own: sgemm's chain of 16 FMAs. The IR of such a
 * chain must hold one NaN test (at the end), not one per step; and NaNs of
 * any payload (quiet, signalling, negative, the x86 default NaN made by
 * inf * 0) entering anywhere in the chain must still leave it as
 * 0x7fffffff, while values with another use (a store, a bit move) stay
 * canonical where they are read. Also through the moves of a warp
 * shuffle reduction (mov.b32, shfl, mov.b32 back into the next add).
 * Checked against a C reference. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "util/zn_bits.h"
#include "zn_test_harness.h"

#define N 16            /* steps in the chain */
#define T 128           /* threads (4 warps) */
#define POISON 0xa5a5a5a5u

/* chain: out = 12 FMAs, add, mul, sub, fma on acc = c; tap (when asked)
 * also stores step 4's value and step 8's bits (other uses: canonical) */
static void emit_kernel(char *s, size_t cap, size_t *n, const char *name, int tap)
{
    *n += (size_t)snprintf(s + *n, cap - *n,
        ".visible .entry %s(.param .u64 pa, .param .u64 pb, .param .u64 pc,\n"
        "                   .param .u64 po, .param .u64 pt)\n{\n"
        "  .reg .f32 %%a<%d>;\n  .reg .f32 %%b<%d>;\n  .reg .f32 %%f<%d>;\n"
        "  .reg .b32 %%r<4>;\n  .reg .b64 %%rd<16>;\n"
        "  ld.param.u64 %%rd1, [pa];\n  ld.param.u64 %%rd2, [pb];\n"
        "  ld.param.u64 %%rd3, [pc];\n  ld.param.u64 %%rd4, [po];\n"
        "  ld.param.u64 %%rd5, [pt];\n  mov.u32 %%r1, %%tid.x;\n"
        "  mul.wide.u32 %%rd6, %%r1, %d;\n  add.s64 %%rd7, %%rd1, %%rd6;\n"
        "  add.s64 %%rd8, %%rd2, %%rd6;\n  mul.wide.u32 %%rd9, %%r1, 4;\n"
        "  add.s64 %%rd10, %%rd3, %%rd9;\n  add.s64 %%rd11, %%rd4, %%rd9;\n"
        "  mul.wide.u32 %%rd12, %%r1, 8;\n  add.s64 %%rd13, %%rd5, %%rd12;\n"
        "  ld.global.f32 %%f0, [%%rd10];\n",
        name, N, N, N + 1, 4 * N);
    for (int k = 0; k < N; k++)
        *n += (size_t)snprintf(s + *n, cap - *n,
            "  ld.global.f32 %%a%d, [%%rd7+%d];\n  ld.global.f32 %%b%d, [%%rd8+%d];\n",
            k, 4 * k, k, 4 * k);
    for (int k = 0; k < N; k++) {
        if (k == 12)
            *n += (size_t)snprintf(s + *n, cap - *n, "  add.f32 %%f13, %%f12, %%a12;\n");
        else if (k == 13)
            *n += (size_t)snprintf(s + *n, cap - *n, "  mul.rn.f32 %%f14, %%f13, %%b13;\n");
        else if (k == 14)
            *n += (size_t)snprintf(s + *n, cap - *n, "  sub.f32 %%f15, %%f14, %%a14;\n");
        else
            *n += (size_t)snprintf(s + *n, cap - *n, "  fma.rn.f32 %%f%d, %%a%d, %%b%d, %%f%d;\n",
                                   k + 1, k, k, k);
    }
    *n += (size_t)snprintf(s + *n, cap - *n, "  st.global.f32 [%%rd11], %%f%d;\n", N);
    if (tap)
        *n += (size_t)snprintf(s + *n, cap - *n,
            "  st.global.f32 [%%rd13], %%f4;\n  mov.b32 %%r2, %%f8;\n"
            "  st.global.u32 [%%rd13+4], %%r2;\n");
    *n += (size_t)snprintf(s + *n, cap - *n, "  ret;\n}\n");
}

static char *make_ptx(int which)
{
    size_t cap = 16384, n = 0;
    char *s = malloc(cap);
    n += (size_t)snprintf(s + n, cap - n, ".version 7.0\n.target sm_70\n.address_size 64\n");
    if (which & 1)
        emit_kernel(s, cap, &n, "chain", 0);
    if (which & 2)
        emit_kernel(s, cap, &n, "chain_tap", 1);
    return s;
}

static uint32_t canon(float f)
{
    return isnan(f) ? 0x7fffffffu : zn_bits_from_f32(f);
}

/* the reference chain; r4, r8: steps 4 and 8 */
static float ref_chain(const float *a, const float *b, float c, float *r4, float *r8)
{
    float f = c;
    for (int k = 0; k < N; k++) {
        if (k == 12)
            f = f + a[12];
        else if (k == 13)
            f = f * b[13];
        else if (k == 14)
            f = f - a[14];
        else
            f = fmaf(a[k], b[k], f);
        if (k == 3)
            *r4 = f;
        if (k == 7)
            *r8 = f;
    }
    return f;
}

static const uint32_t payloads[] = {
    0x7fc00001u, 0xffc00000u, 0x7f800001u /* signalling */, 0xffffffffu,
    0x7fa5a5a5u, 0xff812345u, 0x7fffffffu,
};
#define NPAY (sizeof payloads / sizeof payloads[0])

static void fill(float *a, float *b, float *c)
{
    uint32_t x = 12345;
    for (int i = 0; i < T * N; i++) {
        x = x * 1103515245u + 12345u;
        a[i] = (float)((int)(x >> 16 & 0xff) - 128) / 64.0f;
        x = x * 1103515245u + 12345u;
        b[i] = (float)((int)(x >> 16 & 0xff) - 128) / 32.0f;
    }
    for (int t = 0; t < T; t++) {
        c[t] = (float)(t % 7) - 3.0f;
        /* where a NaN enters: a or b at step p, c (p == N), none (N + 1),
         * or made inside: inf * 0 at step p % N (N + 2) */
        int p = t % (N + 3), k = (t / (N + 3)) % N;
        uint32_t pay = payloads[t % NPAY];
        if (p < N)
            ((t & 1) ? a : b)[t * N + p] = zn_f32_from_bits(pay);
        else if (p == N)
            c[t] = zn_f32_from_bits(pay);
        else if (p == N + 2) {
            a[t * N + k] = INFINITY;
            b[t * N + k] = 0.0f;
        }
    }
}

static void test_ir(void)
{
    char *ptx = make_ptx(1);
    zn_jit_module *jm = zt_load_text(ptx, NULL);
    CHECK(jm != NULL, "chain did not compile");
    if (jm) {
        char *ir = zn_jit_ir_text(jm, 0);
        CHECK(ir != NULL, "no IR kept");
        if (ir) {
            size_t uno = zt_count(ir, "fcmp uno");
            printf("test_compile_nanchain: %d-step chain, %zu NaN tests in the IR\n", N, uno);
            /* the last step's value is stored: its canonicalisation stays */
            CHECK(uno == 1, "%zu NaN canonicalisations in a %d-step chain (want 1)", uno, N);
            free(ir);
        }
        zn_jit_module_free(jm);
    }
    free(ptx);
}

static void test_run(void)
{
    char *ptx = make_ptx(3);
    zn_jit_module *jm = zt_load_text(ptx, NULL);
    CHECK(jm != NULL, "chain kernels did not compile");
    free(ptx);
    if (!jm)
        return;
    float *a = malloc(sizeof(float) * T * N), *b = malloc(sizeof(float) * T * N);
    float c[T];
    uint32_t out[T], tap[2 * T];
    fill(a, b, c);
    for (int kern = 0; kern < 2; kern++) {
        const char *name = kern ? "chain_tap" : "chain";
        for (int i = 0; i < T; i++)
            out[i] = POISON;
        for (int i = 0; i < 2 * T; i++)
            tap[i] = POISON;
        float *pa = a, *pb = b, *pc = c;
        uint32_t *po = out, *pt = tap;
        void *args[] = {&pa, &pb, &pc, &po, &pt};
        CHECK(zt_run(jm, name, ZT_DIM1(1), ZT_DIM1(T), 0, args) == 0, "%s status", name);
        int nan = 0, bad = 0;
        for (int t = 0; t < T; t++) {
            float r4, r8, r = ref_chain(a + t * N, b + t * N, c[t], &r4, &r8);
            nan += isnan(r) != 0;
            if (out[t] != canon(r) && bad++ < 8)
                CHECK(0, "%s thread %d: 0x%08x, want 0x%08x", name, t, out[t], canon(r));
            if (kern && (tap[2 * t] != canon(r4) || tap[2 * t + 1] != canon(r8)) && bad++ < 8)
                CHECK(0, "%s thread %d taps: 0x%08x 0x%08x, want 0x%08x 0x%08x", name, t,
                      tap[2 * t], tap[2 * t + 1], canon(r4), canon(r8));
            if (!kern && (tap[2 * t] != POISON || tap[2 * t + 1] != POISON))
                CHECK(0, "chain wrote the tap buffer (thread %d)", t);
        }
        CHECK(nan >= T / 2 && nan < T, "%s: %d NaN results of %d: inputs wrong", name, nan, T);
    }
    free(a);
    free(b);
    zn_jit_module_free(jm);
}

/* A warp reduction as nvcc writes `v += __shfl_down_sync(~0u, v, o)`: the
 * value moves to a .b32 register, through shfl, back, into the add. The
 * moves only carry bits to the next add, so only the stored sum keeps its
 * canonicalisation; shfl_tap also stores the bits that the third shfl
 * moved (the second add's result, read by a store through mov and shfl:
 * that add must stay canonical). */
static const char *shfl_ptx =
    ".version 7.0\n.target sm_70\n.address_size 64\n"
    ".visible .entry shfl_red(.param .u64 pi, .param .u64 po, .param .u64 pt, .param .u32 tap)\n{\n"
    "  .reg .pred %p<8>;\n  .reg .f32 %f<16>;\n  .reg .b32 %r<24>;\n  .reg .b64 %rd<8>;\n"
    "  ld.param.u64 %rd1, [pi];\n  ld.param.u64 %rd2, [po];\n  ld.param.u64 %rd3, [pt];\n"
    "  ld.param.u32 %r20, [tap];\n"
    "  mov.u32 %r1, %tid.x;\n  mul.wide.u32 %rd4, %r1, 4;\n"
    "  add.s64 %rd5, %rd1, %rd4;\n  add.s64 %rd6, %rd2, %rd4;\n  add.s64 %rd7, %rd3, %rd4;\n"
    "  ld.global.f32 %f0, [%rd5];\n"
    "  mov.b32 %r2, %f0;\n  shfl.sync.down.b32 %r3|%p1, %r2, 16, 31, -1;\n"
    "  mov.b32 %f1, %r3;\n  add.f32 %f2, %f0, %f1;\n"
    "  mov.b32 %r4, %f2;\n  shfl.sync.down.b32 %r5|%p2, %r4, 8, 31, -1;\n"
    "  mov.b32 %f3, %r5;\n  add.f32 %f4, %f2, %f3;\n"
    "  mov.b32 %r6, %f4;\n  shfl.sync.down.b32 %r7|%p3, %r6, 4, 31, -1;\n"
    "  setp.ne.u32 %p6, %r20, 0;\n  @%p6 st.global.u32 [%rd7], %r7;\n"
    "  mov.b32 %f5, %r7;\n  add.f32 %f6, %f4, %f5;\n"
    "  mov.b32 %r8, %f6;\n  shfl.sync.down.b32 %r9|%p4, %r8, 2, 31, -1;\n"
    "  mov.b32 %f7, %r9;\n  add.f32 %f8, %f6, %f7;\n"
    "  mov.b32 %r10, %f8;\n  shfl.sync.down.b32 %r11|%p5, %r10, 1, 31, -1;\n"
    "  mov.b32 %f9, %r11;\n  add.f32 %f10, %f8, %f9;\n"
    "  st.global.f32 [%rd6], %f10;\n  ret;\n}\n";

static void test_shfl(void)
{
    zn_jit_module *jm = zt_load_text(shfl_ptx, NULL);
    CHECK(jm != NULL, "shfl_red did not compile");
    if (!jm)
        return;
    char *ir = zn_jit_ir_text(jm, 0);
    if (ir) {
        /* the store's value, and the second add's (read by the tap) */
        size_t uno = zt_count(ir, "fcmp uno");
        CHECK(uno == 2, "%zu NaN canonicalisations in a 5-step shuffle reduction (want 2)", uno);
        free(ir);
    }
    float in[T];
    uint32_t x = 777;
    for (int i = 0; i < T; i++) {
        x = x * 1103515245u + 12345u;
        in[i] = (float)((int)(x >> 16 & 0xff) - 128) / 16.0f;
    }
    for (int w = 0; w < T / 32; w++)   /* warp w: a NaN of some payload at lane 3 * w + 1 */
        if (w > 0)
            in[32 * w + 3 * w + 1] = zn_f32_from_bits(payloads[w % NPAY]);
    for (int tapped = 0; tapped < 2; tapped++) {
        uint32_t out[T], tap[T];
        for (int i = 0; i < T; i++)
            out[i] = tap[i] = POISON;
        float *pi = in;
        uint32_t *po = out, *pt = tap, ptap = (uint32_t)tapped;
        void *args[] = {&pi, &po, &pt, &ptap};
        CHECK(zt_run(jm, "shfl_red", ZT_DIM1(1), ZT_DIM1(T), 0, args) == 0, "shfl_red status");
        int bad = 0;
        for (int w = 0; w < T / 32; w++) {
            float v[32], t3[32];
            for (int l = 0; l < 32; l++)
                v[l] = in[32 * w + l];
            for (int o = 16; o > 0; o /= 2) {
                float nv[32];
                for (int l = 0; l < 32; l++) {
                    float s = l + o < 32 ? v[l + o] : v[l];
                    if (o == 4)
                        t3[l] = s;
                    nv[l] = v[l] + s;
                }
                memcpy(v, nv, sizeof v);
            }
            for (int l = 0; l < 32; l++) {
                int t = 32 * w + l;
                uint32_t want_tap = tapped ? canon(t3[l]) : POISON;
                if ((out[t] != canon(v[l]) || tap[t] != want_tap) && bad++ < 8)
                    CHECK(0, "shfl_red tap %d thread %d: 0x%08x tap 0x%08x, want 0x%08x "
                          "tap 0x%08x", tapped, t, out[t], tap[t], canon(v[l]), want_tap);
            }
        }
    }
    zn_jit_module_free(jm);
}

int main(void)
{
    zn_compile_keep_ir(1); /* keeps the IR text (and bypasses the cache) */
    test_ir();
    test_run();
    test_shfl();
    zt_cleanup();
    if (!zt_failures)
        printf("test_compile_nanchain: all passed\n");
    return zt_failures != 0;
}
