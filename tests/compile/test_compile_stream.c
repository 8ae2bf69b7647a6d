/* test_compile_stream.c: non-temporal stores for kernels that stream their
 * output (issue #9, src/compile/zn_lower_stream.c).
 *
 * A STREAM triad (a = b + s c, one float per thread, guarded by i < n) and
 * its float2 form must get non-temporal stores in their IR (none with
 * ZINC_NO_STREAM_STORES=1), and compute the same values either way: run
 * through the executor with ZINC_STREAM_MIN_BYTES=0 (every launch streams)
 * on 1000 threads in blocks of 128 (a partial last warp takes the cached
 * path), with the output 64-byte aligned and 4 bytes off (a warp's store
 * no longer whole lines: cached), and compiled with the default threshold
 * (this small launch stays cached). Outputs are poisoned first; past n
 * they must stay poisoned. A kernel that also counts its threads with an
 * atomic keeps its non-temporal store, with an sfence before the atomic
 * (they are weakly ordered). Kernels that must keep cached stores: an
 * in-place update (y loaded and stored through one register, and through
 * two registers from the same parameter), a release store, byte stores,
 * and an output pointer loaded from memory. */
#include <stdlib.h>
#include <string.h>
#include "zn_test_harness.h"

#define N 1000u
#define THREADS 1024u   /* 8 blocks of 128 */
#define POISON 0x7fc0dead

#define HEAD ".version 7.0\n.target sm_70\n.address_size 64\n"
/* i = ctaid.x * ntid.x + tid.x in %r1, exit when i >= n (%r2); the byte
 * offset 4 i in %rd5 */
#define INDEX                                                                   \
    "  mov.u32 %r3, %ctaid.x;\n  mov.u32 %r4, %ntid.x;\n  mov.u32 %r5, %tid.x;\n" \
    "  mad.lo.s32 %r1, %r3, %r4, %r5;\n  setp.ge.s32 %p1, %r1, %r2;\n"           \
    "  @%p1 bra DONE;\n  mul.wide.s32 %rd5, %r1, 4;\n"

static const char *ptx_triad =
    HEAD ".visible .entry triad(.param .u32 pn, .param .f32 ps, .param .u64 pa,\n"
    "    .param .u64 pb, .param .u64 pc)\n{\n"
    "  .reg .pred %p<2>;\n  .reg .f32 %f<5>;\n  .reg .b32 %r<6>;\n  .reg .b64 %rd<11>;\n"
    "  ld.param.u32 %r2, [pn];\n  ld.param.f32 %f1, [ps];\n"
    "  ld.param.u64 %rd1, [pa];\n  ld.param.u64 %rd2, [pb];\n  ld.param.u64 %rd3, [pc];\n"
    INDEX
    "  cvta.to.global.u64 %rd4, %rd2;\n  add.s64 %rd6, %rd4, %rd5;\n"
    "  cvta.to.global.u64 %rd7, %rd3;\n  add.s64 %rd8, %rd7, %rd5;\n"
    "  ld.global.f32 %f2, [%rd6];\n  ld.global.f32 %f3, [%rd8];\n"
    "  fma.rn.f32 %f4, %f3, %f1, %f2;\n"
    "  cvta.to.global.u64 %rd9, %rd1;\n  add.s64 %rd10, %rd9, %rd5;\n"
    "  st.global.f32 [%rd10], %f4;\n"
    "DONE:\n  ret;\n}\n";

/* a2[i] = {b + c, b - c}: a float2 per thread */
static const char *ptx_triad2 =
    HEAD ".visible .entry triad2(.param .u32 pn, .param .f32 ps, .param .u64 pa,\n"
    "    .param .u64 pb, .param .u64 pc)\n{\n"
    "  .reg .pred %p<2>;\n  .reg .f32 %f<6>;\n  .reg .b32 %r<6>;\n  .reg .b64 %rd<12>;\n"
    "  ld.param.u32 %r2, [pn];\n"
    "  ld.param.u64 %rd1, [pa];\n  ld.param.u64 %rd2, [pb];\n  ld.param.u64 %rd3, [pc];\n"
    INDEX
    "  add.s64 %rd6, %rd2, %rd5;\n  add.s64 %rd8, %rd3, %rd5;\n"
    "  ld.global.f32 %f2, [%rd6];\n  ld.global.f32 %f3, [%rd8];\n"
    "  add.f32 %f4, %f2, %f3;\n  sub.f32 %f5, %f2, %f3;\n"
    "  mul.wide.s32 %rd9, %r1, 8;\n  add.s64 %rd10, %rd1, %rd9;\n"
    "  st.global.v2.f32 [%rd10], {%f4, %f5};\n"
    "DONE:\n  ret;\n}\n";

/* y = s x + y through one address register */
static const char *ptx_inplace =
    HEAD ".visible .entry inplace(.param .u32 pn, .param .f32 ps, .param .u64 pa,\n"
    "    .param .u64 pb, .param .u64 pc)\n{\n"
    "  .reg .pred %p<2>;\n  .reg .f32 %f<5>;\n  .reg .b32 %r<6>;\n  .reg .b64 %rd<11>;\n"
    "  ld.param.u32 %r2, [pn];\n  ld.param.f32 %f1, [ps];\n"
    "  ld.param.u64 %rd1, [pa];\n  ld.param.u64 %rd2, [pb];\n"
    INDEX
    "  add.s64 %rd6, %rd2, %rd5;\n  add.s64 %rd7, %rd1, %rd5;\n"
    "  ld.global.f32 %f2, [%rd6];\n  ld.global.f32 %f3, [%rd7];\n"
    "  fma.rn.f32 %f4, %f2, %f1, %f3;\n  st.global.f32 [%rd7], %f4;\n"
    "DONE:\n  ret;\n}\n";

/* the same, the store's address built again from the parameter */
static const char *ptx_inplace2 =
    HEAD ".visible .entry inplace2(.param .u32 pn, .param .f32 ps, .param .u64 pa,\n"
    "    .param .u64 pb, .param .u64 pc)\n{\n"
    "  .reg .pred %p<2>;\n  .reg .f32 %f<5>;\n  .reg .b32 %r<6>;\n  .reg .b64 %rd<11>;\n"
    "  ld.param.u32 %r2, [pn];\n  ld.param.f32 %f1, [ps];\n"
    "  ld.param.u64 %rd1, [pa];\n  ld.param.u64 %rd2, [pb];\n"
    INDEX
    "  add.s64 %rd6, %rd2, %rd5;\n  cvta.to.global.u64 %rd3, %rd1;\n  add.s64 %rd7, %rd3, %rd5;\n"
    "  ld.global.f32 %f2, [%rd6];\n  ld.global.f32 %f3, [%rd7];\n"
    "  fma.rn.f32 %f4, %f2, %f1, %f3;\n"
    "  cvta.to.global.u64 %rd8, %rd1;\n  add.s64 %rd9, %rd8, %rd5;\n"
    "  st.global.f32 [%rd9], %f4;\n"
    "DONE:\n  ret;\n}\n";

/* the triad that also counts its threads with an atomic */
static const char *ptx_counted =
    HEAD ".visible .entry counted(.param .u32 pn, .param .f32 ps, .param .u64 pa,\n"
    "    .param .u64 pb, .param .u64 pc)\n{\n"
    "  .reg .pred %p<2>;\n  .reg .f32 %f<5>;\n  .reg .b32 %r<7>;\n  .reg .b64 %rd<11>;\n"
    "  ld.param.u32 %r2, [pn];\n"
    "  ld.param.u64 %rd1, [pa];\n  ld.param.u64 %rd2, [pb];\n  ld.param.u64 %rd3, [pc];\n"
    INDEX
    "  add.s64 %rd6, %rd2, %rd5;\n  ld.global.f32 %f2, [%rd6];\n"
    "  add.s64 %rd10, %rd1, %rd5;\n  st.global.f32 [%rd10], %f2;\n"
    "  atom.global.add.u32 %r6, [%rd3], 1;\n"
    "DONE:\n  ret;\n}\n";

/* the triad's store with release semantics */
static const char *ptx_release =
    HEAD ".visible .entry release(.param .u32 pn, .param .f32 ps, .param .u64 pa,\n"
    "    .param .u64 pb, .param .u64 pc)\n{\n"
    "  .reg .pred %p<2>;\n  .reg .f32 %f<5>;\n  .reg .b32 %r<6>;\n  .reg .b64 %rd<11>;\n"
    "  ld.param.u32 %r2, [pn];\n  ld.param.u64 %rd1, [pa];\n  ld.param.u64 %rd2, [pb];\n"
    INDEX
    "  add.s64 %rd6, %rd2, %rd5;\n  ld.global.f32 %f2, [%rd6];\n"
    "  add.s64 %rd10, %rd1, %rd5;\n  st.release.gpu.global.f32 [%rd10], %f2;\n"
    "DONE:\n  ret;\n}\n";

/* one byte per thread: a warp's 32 bytes are half a line */
static const char *ptx_bytes =
    HEAD ".visible .entry bytes(.param .u32 pn, .param .f32 ps, .param .u64 pa,\n"
    "    .param .u64 pb, .param .u64 pc)\n{\n"
    "  .reg .pred %p<2>;\n  .reg .b16 %rs<2>;\n  .reg .b32 %r<6>;\n  .reg .b64 %rd<11>;\n"
    "  ld.param.u32 %r2, [pn];\n  ld.param.u64 %rd1, [pa];\n"
    INDEX
    "  cvt.u64.u32 %rd6, %r1;\n  add.s64 %rd7, %rd1, %rd6;\n"
    "  cvt.u16.u32 %rs1, %r1;\n  st.global.u8 [%rd7], %rs1;\n"
    "DONE:\n  ret;\n}\n";

/* the output pointer read from memory (*pc) */
static const char *ptx_loaded =
    HEAD ".visible .entry loaded(.param .u32 pn, .param .f32 ps, .param .u64 pa,\n"
    "    .param .u64 pb, .param .u64 pc)\n{\n"
    "  .reg .pred %p<2>;\n  .reg .f32 %f<5>;\n  .reg .b32 %r<6>;\n  .reg .b64 %rd<11>;\n"
    "  ld.param.u32 %r2, [pn];\n  ld.param.u64 %rd2, [pb];\n  ld.param.u64 %rd3, [pc];\n"
    INDEX
    "  ld.global.u64 %rd1, [%rd3];\n"
    "  add.s64 %rd6, %rd2, %rd5;\n  ld.global.f32 %f2, [%rd6];\n"
    "  add.s64 %rd10, %rd1, %rd5;\n  st.global.f32 [%rd10], %f2;\n"
    "DONE:\n  ret;\n}\n";

/* non-temporal stores in the module's optimised IR */
static size_t nt_stores(zn_jit_module *jm)
{
    char *ir = zn_jit_ir_text(jm, 1);
    CHECK(ir, "no IR kept");
    size_t n = ir ? zt_count(ir, "!nontemporal") : 0;
    free(ir);
    return n;
}

/* compiled with its IR kept (zt_load_switched keeps it too) */
static zn_jit_module *load_ir(const char *ptx)
{
    zn_compile_keep_ir(1);
    zn_jit_module *jm = zt_load_text(ptx, NULL);
    zn_compile_keep_ir(0);
    return jm;
}

static float *buffer(size_t floats)
{
    float *p = aligned_alloc(64, floats * sizeof(float));
    if (!p)
        abort();
    return p;
}

/* runs a triad-shaped kernel (n, s, a, b, c) with a poisoned at a + off
 * and checks every float of it: want(i, k) for i < n, the poison after */
static void run_check(zn_jit_module *jm, const char *kernel, unsigned per, unsigned off,
                      float (*want)(uint32_t i, unsigned k), const char *mode)
{
    float *a = buffer(THREADS * per + 16), *b = buffer(THREADS), *c = buffer(THREADS);
    uint32_t poison = POISON;
    for (uint32_t i = 0; i < THREADS * per + 16; i++)
        memcpy(&a[i], &poison, 4);
    for (uint32_t i = 0; i < THREADS; i++) {
        b[i] = (float)i;
        c[i] = (float)(2 * i + 1);
    }
    uint32_t n = N;
    float s = 3.0f;
    float *out = a + off / sizeof(float);
    void *args[5] = {&n, &s, &out, &b, &c};
    int st = zt_run_exec(jm, kernel, ZT_DIM1(THREADS / 128), ZT_DIM1(128), 0, args);
    CHECK(st == 0, "%s %s: status %d", kernel, mode, st);
    int bad = 0;
    for (uint32_t i = 0; i < THREADS && bad < 4; i++)
        for (unsigned k = 0; k < per; k++) {
            float got = out[i * per + k];
            uint32_t bits;
            memcpy(&bits, &got, 4);
            bool ok = i < N ? got == want(i, k) : bits == POISON;
            if (!ok) {
                CHECK(0, "%s %s: out[%u].%u = %g (0x%08x), want %g", kernel, mode, i, k,
                      (double)got, bits, i < N ? (double)want(i, k) : 0.0);
                bad++;
            }
        }
    free(a);
    free(b);
    free(c);
}

static float want_triad(uint32_t i, unsigned k)
{
    (void)k;
    return (float)(2 * i + 1) * 3.0f + (float)i;
}

static float want_triad2(uint32_t i, unsigned k)
{
    return k == 0 ? (float)i + (float)(2 * i + 1) : (float)i - (float)(2 * i + 1);
}

/* compiles `ptx` with streaming on (every launch) and off, checks the IR
 * of both and runs both, aligned and 4 bytes off */
static void streamed(const char *ptx, const char *kernel, unsigned per,
                     float (*want)(uint32_t, unsigned))
{
    zn_jit_module *mods[2];
    setenv("ZINC_STREAM_MIN_BYTES", "0", 1);
    zt_load_switched(ptx, "ZINC_NO_STREAM_STORES", mods);
    unsetenv("ZINC_STREAM_MIN_BYTES");
    if (!mods[0] || !mods[1]) {
        CHECK(0, "%s: did not compile", kernel);
        return;
    }
    CHECK(nt_stores(mods[0]) > 0, "%s: no non-temporal store", kernel);
    CHECK(nt_stores(mods[1]) == 0, "%s: non-temporal stores with ZINC_NO_STREAM_STORES=1",
          kernel);
    static const char *const mode[2] = {"streamed", "cached"};
    for (int v = 0; v < 2; v++) {
        run_check(mods[v], kernel, per, 0, want, mode[v]);
        run_check(mods[v], kernel, per, 4, want, mode[v]);
    }
    zn_jit_module_free(mods[0]);
    zn_jit_module_free(mods[1]);

    /* the default threshold: the code is there, this launch too small */
    zn_jit_module *jm = load_ir(ptx);
    if (!jm) {
        CHECK(0, "%s: did not compile", kernel);
        return;
    }
    CHECK(nt_stores(jm) > 0, "%s: no non-temporal store (default threshold)", kernel);
    run_check(jm, kernel, per, 0, want, "small launch");
    zn_jit_module_free(jm);
}

static void kept_cached(const char *ptx, const char *kernel)
{
    setenv("ZINC_STREAM_MIN_BYTES", "0", 1);
    zn_jit_module *jm = load_ir(ptx);
    unsetenv("ZINC_STREAM_MIN_BYTES");
    if (!jm) {
        CHECK(0, "%s: did not compile", kernel);
        return;
    }
    CHECK(nt_stores(jm) == 0, "%s: has non-temporal stores", kernel);
    zn_jit_module_free(jm);
}

/* the in-place update also computes the right values */
static float want_inplace(uint32_t i, unsigned k)
{
    (void)k;
    return (float)i * 3.0f + (float)(2 * i + 1);
}

static void run_inplace(void)
{
    setenv("ZINC_STREAM_MIN_BYTES", "0", 1);
    zn_jit_module *jm = zt_load_text(ptx_inplace, NULL);
    unsetenv("ZINC_STREAM_MIN_BYTES");
    if (!jm)
        return;
    float *y = buffer(THREADS), *x = buffer(THREADS);
    for (uint32_t i = 0; i < THREADS; i++) {
        x[i] = (float)i;
        y[i] = (float)(2 * i + 1);
    }
    uint32_t n = N;
    float s = 3.0f;
    void *args[5] = {&n, &s, &y, &x, &x};
    CHECK(zt_run_exec(jm, "inplace", ZT_DIM1(THREADS / 128), ZT_DIM1(128), 0, args) == 0,
          "inplace: status");
    for (uint32_t i = 0; i < THREADS; i++) {
        float want = i < N ? want_inplace(i, 0) : (float)(2 * i + 1);
        if (y[i] != want) {
            CHECK(0, "inplace: y[%u] = %g, want %g", i, (double)y[i], (double)want);
            break;
        }
    }
    free(x);
    free(y);
    zn_jit_module_free(jm);
}

/* counted: a[i] = b[i] streamed, the atomic after an sfence, and every
 * thread counted */
static void run_counted(void)
{
    setenv("ZINC_STREAM_MIN_BYTES", "0", 1);
    zn_jit_module *jm = load_ir(ptx_counted);
    unsetenv("ZINC_STREAM_MIN_BYTES");
    if (!jm) {
        CHECK(0, "counted: did not compile");
        return;
    }
    char *ir = zn_jit_ir_text(jm, 1);
    if (ir) {
        /* the sfence sits in a block of its own, run in launches that
         * stream: the text's order says nothing */
        const char *nt = strstr(ir, "!nontemporal"), *fence = strstr(ir, "@llvm.x86.sse.sfence");
        CHECK(nt && fence, "counted: non-temporal store %s, sfence %s", nt ? "yes" : "no",
              fence ? "yes" : "no");
        free(ir);
    }
    float *a = buffer(THREADS), *b = buffer(THREADS);
    uint32_t *count = calloc(16, sizeof *count), poison = POISON;
    for (uint32_t i = 0; i < THREADS; i++) {
        memcpy(&a[i], &poison, 4);
        b[i] = (float)i;
    }
    uint32_t n = N;
    float s = 0.0f;
    void *args[5] = {&n, &s, &a, &b, &count};
    CHECK(zt_run_exec(jm, "counted", ZT_DIM1(THREADS / 128), ZT_DIM1(128), 0, args) == 0,
          "counted: status");
    CHECK(count[0] == N, "counted: %u threads counted, want %u", count[0], N);
    for (uint32_t i = 0; i < THREADS; i++) {
        uint32_t bits;
        memcpy(&bits, &a[i], 4);
        if (i < N ? a[i] != (float)i : bits != POISON) {
            CHECK(0, "counted: a[%u] = %g (0x%08x)", i, (double)a[i], bits);
            break;
        }
    }
    free(a);
    free(b);
    free(count);
    zn_jit_module_free(jm);
}

int main(void)
{
    streamed(ptx_triad, "triad", 1, want_triad);
    streamed(ptx_triad2, "triad2", 2, want_triad2);
    kept_cached(ptx_inplace, "inplace");
    kept_cached(ptx_inplace2, "inplace2");
    kept_cached(ptx_release, "release");
    kept_cached(ptx_bytes, "bytes");
    kept_cached(ptx_loaded, "loaded");
    run_inplace();
    run_counted();
    zt_cleanup();
    if (zt_failures) {
        fprintf(stderr, "%d failure(s)\n", zt_failures);
        return 1;
    }
    printf("PASS compile_stream\n");
    return 0;
}
