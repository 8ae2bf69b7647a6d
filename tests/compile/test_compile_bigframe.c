/* test_compile_bigframe.c: compile-time fixes for huge kernels (issue #9).
 *
 * 1. The frame does not grow with the number of memory accesses. Every
 *    access whose lanes' addresses are tested at run time (contiguous,
 *    one address, else gather) took the first active lane's address with
 *    an extractelement at a variable index, and code generation gave each
 *    one its own stack temporary (256 bytes for 32 addresses, 128 per
 *    half): 700 KB of the 870 KB frame of CUB's onesweep radix-sort
 *    kernel. Functions of more than 2000 PTX instructions avoid it; a
 *    kernel of NLOADS such loads padded past that size is compiled offline
 *    with the frame report; the frame must stay far below NLOADS * 256
 *    bytes. Functions of more than 400 read the address through one
 *    buffer instead (zn_ll.c, ll_extract_dyn): the same kernel padded to
 *    ~700 instructions. And lane loops (per-lane relaxed loads, CUB's
 *    look-back) keep their operands and results in buffers, not vectors
 *    inserted into at a run-time index: the kernel with relaxed loads,
 *    unpadded.
 * 2. The same kernel gives the CPU reference's results with lanes
 *    branched away and the loads' lanes contiguous, at one address, split
 *    per half, and scattered (each run-time shape of the access), both
 *    through default<O3> and through the light pipeline of huge units
 *    (ZINC_LIGHT_OPT_INSTRS=1 forces it), which must promote the registers
 *    to SSA values (fewer register slots after optimisation). */
#include <stdlib.h>
#include <string.h>
#include "ptx/ptx_ir.h"
#include "zn_test_harness.h"

#define NLOADS 100
#define NT 64                       /* two warps */
#define SRC_N (NT * 4 + 32 * NLOADS + 64)

/* the kernel, padded with npad instructions, its loads `ld`; the frame
 * must stay under max_frame bytes */
typedef struct variant {
    const char *what;
    int npad;
    const char *ld;
    int64_t max_frame;
} variant;

static const variant variants[] = {
    {"past 2000", 2000, "ld.global.u32", NLOADS * 64},  /* the lowest address */
    {"past 400", 500, "ld.global.u32", NLOADS * 64},    /* the extract buffer */
    /* lane loops: 1.5 KB of temporaries per load before; what is left is
     * the register allocator's (the running sum saved around each load's
     * cooperative-grid check, a call: 128 bytes per load) */
    {"relaxed", 0, "ld.relaxed.gpu.global.u32", NLOADS * 256},
};

static char *make_ptx(const variant *v)
{
    size_t cap = 4096 + NLOADS * 160 + (size_t)v->npad * 32, n = 0;
    char *s = malloc(cap);
    n += (size_t)snprintf(s + n, cap - n,
        ".version 7.0\n.target sm_70\n.address_size 64\n"
        ".visible .entry many_loads(.param .u64 out, .param .u64 src, .param .u64 idx)\n{\n"
        "  .reg .pred %%p<2>;\n  .reg .b32 %%r<8>;\n  .reg .b64 %%rd<10>;\n"
        "  ld.param.u64 %%rd1, [out];\n  ld.param.u64 %%rd2, [src];\n"
        "  ld.param.u64 %%rd3, [idx];\n  cvta.to.global.u64 %%rd1, %%rd1;\n"
        "  cvta.to.global.u64 %%rd2, %%rd2;\n  cvta.to.global.u64 %%rd3, %%rd3;\n"
        "  mov.u32 %%r0, %%tid.x;\n  rem.u32 %%r1, %%r0, 5;\n"
        "  setp.eq.u32 %%p1, %%r1, 3;\n  @%%p1 bra DONE;\n"
        "  mul.wide.u32 %%rd4, %%r0, 4;\n  add.s64 %%rd5, %%rd3, %%rd4;\n"
        "  ld.global.u32 %%r2, [%%rd5];\n  mul.wide.u32 %%rd6, %%r2, 4;\n"
        "  add.s64 %%rd6, %%rd2, %%rd6;\n  mov.u32 %%r3, 0;\n  mov.u32 %%r5, 0;\n");
    /* padding past the size (PTX instructions) from which accesses avoid
     * variable-index extracts (zn_lower_access.c); folded away by LLVM */
    for (int k = 0; k < v->npad; k++)
        n += (size_t)snprintf(s + n, cap - n, "  add.u32 %%r5, %%r5, 1;\n");
    for (int k = 0; k < NLOADS; k++)
        n += (size_t)snprintf(s + n, cap - n,
                              "  %s %%r4, [%%rd6+%d];\n"
                              "  mad.lo.u32 %%r3, %%r3, 3, %%r4;\n", v->ld, k * 128);
    n += (size_t)snprintf(s + n, cap - n,
        "  add.s64 %%rd7, %%rd1, %%rd4;\n  xor.b32 %%r3, %%r3, %%r5;\n"
        "  st.global.u32 [%%rd7], %%r3;\n"
        "DONE:\n  ret;\n}\n");
    return s;
}

/* idx[t] for each access shape */
static uint32_t index_of(int shape, uint32_t t)
{
    uint32_t lane = t % 32, w = t / 32;
    switch (shape) {
    case 0: return t + 5;                                   /* contiguous */
    case 1: return 7 + w;                                   /* one address per warp */
    case 2: return lane < 16 ? lane + 3 : 100 + w;          /* contiguous half, uniform half */
    default: return (lane * 13) % 32 * 3 + w;               /* scattered */
    }
}

static void run_shapes(const char *what, const ptx_module **pm, const char *ptx, int npad)
{
    zn_jit_module *jm = zt_load_text(ptx, pm);
    CHECK(jm != NULL, "%s: module did not compile", what);
    if (!jm)
        return;
    uint32_t *src = malloc(SRC_N * sizeof *src), idx[NT], out[NT];
    for (uint32_t i = 0; i < SRC_N; i++)
        src[i] = i * 2654435761u ^ (i >> 3);
    for (int shape = 0; shape < 4; shape++) {
        for (uint32_t t = 0; t < NT; t++)
            idx[t] = index_of(shape, t);
        memset(out, 0xA5, sizeof out);     /* poison */
        void *o = out, *sp = src, *ip = idx;
        void *args[3] = {&o, &sp, &ip};
        int st = zt_run(jm, "many_loads", ZT_DIM1(1), ZT_DIM1(NT), 0, args);
        CHECK(st == 0, "%s: shape %d: status %d", what, shape, st);
        int bad = 0;
        for (uint32_t t = 0; t < NT; t++) {
            uint32_t want = 0xA5A5A5A5u;
            if (t % 5 != 3) {
                want = 0;
                for (int k = 0; k < NLOADS; k++)
                    want = want * 3 + src[idx[t] + 32 * k];
                want ^= (uint32_t)npad;
            }
            if (out[t] != want && bad++ < 3)
                CHECK(0, "%s: shape %d: thread %u: %08x, want %08x", what, shape, t, out[t],
                      want);
        }
    }
    free(src);
    char *ir0 = zn_jit_ir_text(jm, 0), *ir1 = zn_jit_ir_text(jm, 1);
    CHECK(ir0 && ir1, "%s: no IR kept", what);
    if (ir0 && ir1) {
        /* register slots (`alloca <32 x`) left after optimisation */
        size_t before = zt_count(ir0, "alloca <32 x"), after = zt_count(ir1, "alloca <32 x");
        printf("test_compile_bigframe: %s: register slots %zu -> %zu\n", what, before, after);
        CHECK(after * 2 < before, "%s: registers not promoted (%zu -> %zu slots)", what,
              before, after);
    }
    free(ir0);
    free(ir1);
    zn_jit_module_free(jm);
}

/* 1. the frame, from the offline compiler's report */
static void check_frame(const variant *v, const char *ptx)
{
    char err[512] = "";
    ptx_module *m = ptx_parse(ptx, strlen(ptx), "bigframe.ptx", err, sizeof err);
    CHECK(m != NULL, "parse: %s", err);
    if (m) {
        zn_compile_opts co = {.opt_level = 3};
        zn_offline r;
        memset(&r, 0, sizeof r);
        int rc = zn_compile_offline(m, &co, ZN_OFFLINE_REPORT | (1u << ZN_STAGE_OBJ), &r, err,
                                    sizeof err);
        CHECK(rc == 0 && r.nkernels == 1, "offline compile: %s", err);
        if (rc == 0 && r.nkernels == 1) {
            int64_t frame = r.kernels[0].frame_bytes;
            printf("test_compile_bigframe: %s: %d loads, frame %lld bytes\n", v->what,
                   NLOADS, (long long)frame);
            CHECK(frame >= 0, "no frame measured");
            /* one temporary per access was >= NLOADS * 256 bytes */
            CHECK(frame < v->max_frame, "%s: frame grows with the accesses: %lld bytes",
                  v->what, (long long)frame);
        }
        zn_offline_free(&r);
        ptx_module_free(m);
    }
}

int main(void)
{
    for (size_t i = 0; i < sizeof variants / sizeof variants[0]; i++) {
        const variant *v = &variants[i];
        char *ptx = make_ptx(v);
        check_frame(v, ptx);
        /* 2. results through both pipelines */
        zn_compile_keep_ir(1);  /* keeps the IR texts (and bypasses the cache) */
        const ptx_module *pm = NULL;
        char what[64];
        unsetenv("ZINC_LIGHT_OPT_INSTRS");
        snprintf(what, sizeof what, "%s, O3", v->what);
        run_shapes(what, &pm, ptx, v->npad);
        setenv("ZINC_LIGHT_OPT_INSTRS", "1", 1);
        snprintf(what, sizeof what, "%s, light", v->what);
        run_shapes(what, &pm, ptx, v->npad);
        unsetenv("ZINC_LIGHT_OPT_INSTRS");
        zn_compile_keep_ir(0);
        free(ptx);
    }
    zt_cleanup();
    if (!zt_failures)
        printf("test_compile_bigframe: all passed\n");
    return zt_failures != 0;
}
