/* zn_test_harness.c: see zn_test_harness.h. */
#include "zn_test_harness.h"

#include <stdlib.h>
#include <string.h>
#include "exec/zn_exec.h"

int zt_failures;
zt_record zt_rec;

/* what zt_load allocated, freed by zt_cleanup */
#define ZT_MAX_LOADED 32
static ptx_module *loaded[ZT_MAX_LOADED];
static zn_global_addr *loaded_globals[ZT_MAX_LOADED];
static uint32_t loaded_nglobals[ZT_MAX_LOADED];
static int nloaded;

void zt_cleanup(void)
{
    for (int i = 0; i < nloaded; i++) {
        for (uint32_t g = 0; g < loaded_nglobals[i]; g++)
            free(loaded_globals[i][g].addr);
        free(loaded_globals[i]);
        ptx_module_free(loaded[i]);
    }
    nloaded = 0;
}

static void rt_barrier(zn_warp_ctx *w, uint32_t id, uint32_t count, uint32_t mode)
{
    /* the in-test harness cannot switch warps: a barrier is only fine in a
     * single-warp block */
    zt_rec.nbarrier++;
    if (w->block->nthreads > 32) {
        fprintf(stderr, "in-test harness: barrier in a multi-warp block\n");
        abort();
    }
}

/* coroutine kernels' frame: one warp runs at a time, to its end */
static void *rt_coro_frame(zn_warp_ctx *w, uint64_t size)
{
    static void *frame;
    static uint64_t cap;
    if (size > cap) {
        free(frame);
        cap = (size + 63) & ~(uint64_t)63;
        frame = aligned_alloc(64, cap);
    }
    return frame;
}

static void rt_assertfail(zn_warp_ctx *w, const char *msg, const char *file,
                          uint32_t line, const char *func, uint32_t lane)
{
    zt_rec.nassert++;
}

static int32_t rt_vprintf(zn_warp_ctx *w, const char *fmt, const void *args, uint32_t lane)
{
    if (zt_rec.nprintf < 64) {
        zt_rec.printf_lane[zt_rec.nprintf] = (int)lane;
        zt_rec.printf_arg0[zt_rec.nprintf] = args ? *(const int *)args : -1;
    }
    snprintf(zt_rec.last_fmt, sizeof zt_rec.last_fmt, "%s", fmt);
    zt_rec.nprintf++;
    return (int32_t)strlen(fmt);
}

static uint64_t rt_clock(zn_warp_ctx *w)
{
    static uint64_t c;
    return c += 10;
}

static void *rt_malloc(zn_warp_ctx *w, uint64_t n) { return malloc(n); }
static void rt_free(zn_warp_ctx *w, void *p) { free(p); }

static const zn_rt_ops test_rt = {
    .barrier = rt_barrier, .assertfail = rt_assertfail, .vprintf = rt_vprintf,
    .clock64 = rt_clock, .globaltimer = rt_clock, .malloc = rt_malloc, .free = rt_free,
    .coro_frame = rt_coro_frame,
};

static zn_jit_module *compile_text(const char *text, size_t len, const char *name,
                                   const ptx_module **pm_out, const char *cpu)
{
    char err[1024];
    ptx_module *pm = ptx_parse(text, len, name, err, sizeof err);
    if (!pm) {
        CHECK(0, "parse %s: %s", name, err);
        return NULL;
    }
    zn_global_addr *g = calloc(pm->nvars + 1, sizeof *g);
    uint32_t ng = 0;
    for (uint32_t i = 0; i < pm->nvars; i++) {
        const ptx_var *v = &pm->vars[i];
        if (v->space != PTX_SPACE_GLOBAL && v->space != PTX_SPACE_CONST)
            continue;
        void *p = calloc(1, v->size + 16);
        if (v->init)
            memcpy(p, v->init, v->size);
        g[ng].name = v->name;
        g[ng++].addr = p;
    }
    /* past the table the module would leak (LeakSanitizer fails the test
     * with less to go on than this) */
    CHECK(nloaded < ZT_MAX_LOADED, "more than %d modules loaded before zt_cleanup",
          ZT_MAX_LOADED);
    if (nloaded < ZT_MAX_LOADED) {
        loaded[nloaded] = pm;
        loaded_globals[nloaded] = g;
        loaded_nglobals[nloaded++] = ng;
    }
    zn_compile_opts o = {.opt_level = 3, .cpu = cpu, .globals = g, .nglobals = ng};
    zn_jit_module *jm = zn_compile(pm, &o, err, sizeof err);
    if (!jm)
        CHECK(0, "compile %s: %s", name, err);
    if (pm_out)
        *pm_out = pm;
    return jm;
}

zn_jit_module *zt_load(const char *path, const ptx_module **pm_out)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        CHECK(0, "cannot open %s", path);
        return NULL;
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *text = malloc((size_t)n + 1);
    size_t got = fread(text, 1, (size_t)n, f);
    fclose(f);
    text[got] = 0;
    zn_jit_module *jm = compile_text(text, got, path, pm_out, NULL);
    free(text);
    return jm;
}

uint32_t *zt_poisoned(size_t n, uint32_t poison)
{
    uint32_t *out = malloc((n ? n : 1) * sizeof *out);
    CHECK(out != NULL, "malloc of %zu words", n);
    for (size_t i = 0; out && i < n; i++)
        out[i] = poison;
    return out;
}

zn_jit_module *zt_load_text(const char *text, const ptx_module **pm_out)
{
    return compile_text(text, strlen(text), "inline.ptx", pm_out, NULL);
}

zn_jit_module *zt_load_text_cpu(const char *text, const char *cpu)
{
    return compile_text(text, strlen(text), "inline.ptx", NULL, cpu);
}

static void run_u32(const zn_jit_module *jm, const char *kernel, uint32_t blocks, uint32_t block,
                    unsigned shift, zt_want_u32 want, const char *mode, bool exec)
{
    uint32_t n = blocks * block;
    uint32_t *in = malloc(n * sizeof *in), *out = malloc(n * sizeof *out);
    CHECK(in && out, "malloc");
    if (in && out) {
        for (uint32_t i = 0; i < n; i++) {
            in[i] = (i * 2654435761u) >> shift;
            out[i] = 0xdeadbeef;
        }
        void *pin = in, *pout = out;
        void *args[] = {&pin, &pout};
        CHECK((exec ? zt_run_exec : zt_run)(jm, kernel, ZT_DIM1(blocks), ZT_DIM1(block), 0,
                                             args) == 0,
              "%s %s: status", kernel, mode);
        int bad = 0;
        for (uint32_t i = 0; i < n && bad < 4; i++) {
            uint32_t b0 = i / block * block, w = want(in + b0, i - b0, block);
            if (out[i] != w) {
                CHECK(0, "%s %s (blocks of %u): thread %u: 0x%08x, want 0x%08x", kernel, mode,
                      block, i, out[i], w);
                bad++;
            }
        }
    }
    free(in);
    free(out);
}

void zt_run_u32(const zn_jit_module *jm, const char *kernel, uint32_t blocks, uint32_t block,
                unsigned shift, zt_want_u32 want, const char *mode)
{
    run_u32(jm, kernel, blocks, block, shift, want, mode, false);
}

void zt_run_u32_exec(const zn_jit_module *jm, const char *kernel, uint32_t blocks,
                     uint32_t block, unsigned shift, zt_want_u32 want, const char *mode)
{
    run_u32(jm, kernel, blocks, block, shift, want, mode, true);
}

#define ZT_U32_HEAD                                                              \
    ".version 7.0\n.target sm_70\n.address_size 64\n"                            \
    ".visible .entry %s(.param .u64 pin, .param .u64 pout)\n{\n"                \
    "  .reg .pred %%p<8>;\n  .reg .b32 %%r<32>;\n  .reg .b64 %%rd<12>;\n"       \
    "  ld.param.u64 %%rd1, [pin];\n  ld.param.u64 %%rd2, [pout];\n"             \
    "  mov.u32 %%r1, %%tid.x;\n  mov.u32 %%r2, %%ctaid.x;\n  mov.u32 %%r3, %%ntid.x;\n" \
    "  mad.lo.s32 %%r4, %%r2, %%r3, %%r1;\n  mul.wide.s32 %%rd3, %%r4, 4;\n"     \
    "  add.s64 %%rd4, %%rd1, %%rd3;\n  add.s64 %%rd5, %%rd2, %%rd3;\n"          \
    "  ld.global.u32 %%r5, [%%rd4];\n"

const char *zt_u32_kernel(const char *name, const char *body)
{
    static char buf[2][16384];
    static int which;
    char *b = buf[which++ & 1];
    int n = snprintf(b, sizeof buf[0], ZT_U32_HEAD, name);
    snprintf(b + n, sizeof buf[0] - (size_t)n, "%s", body);
    return b;
}

void zt_run_switched(const zt_u32_case *cases, int n, const char *var,
                     const char *const mode[2], unsigned shift)
{
    for (int i = 0; i < n; i++) {
        zn_jit_module *m[2];
        zt_load_switched(zt_u32_kernel(cases[i].name, cases[i].body), var, m);
        for (int j = 0; j < 2; j++) {
            if (!m[j])
                continue;
            zt_run_u32(m[j], cases[i].name, 4, 128, shift, cases[i].want, mode[j]);
            zt_run_u32(m[j], cases[i].name, 3, 48, shift, cases[i].want, mode[j]);
            zn_jit_module_free(m[j]);
        }
    }
}

void zt_load_switched(const char *text, const char *var, zn_jit_module *mods[2])
{
    char *ir[2] = {NULL, NULL};
    zn_compile_keep_ir(1);
    for (int i = 0; i < 2; i++) {
        if (i)
            setenv(var, "1", 1);
        else
            unsetenv(var);
        mods[i] = zt_load_text(text, NULL);
        CHECK(mods[i] != NULL, "did not compile with %s %s", var, i ? "set" : "unset");
        ir[i] = mods[i] ? zn_jit_ir_text(mods[i], 0) : NULL;
    }
    unsetenv(var);
    zn_compile_keep_ir(0);
    CHECK(ir[0] && ir[1] && strcmp(ir[0], ir[1]) != 0, "the IR is the same with and without %s",
          var);
    free(ir[0]);
    free(ir[1]);
}

static uint8_t *pack(const zn_kernel_info *k, void **args)
{
    uint8_t *buf = calloc(1, k->param_bytes + 16);
    for (uint32_t i = 0; i < k->nparams; i++)
        memcpy(buf + k->param_offset[i], args[i], k->param_size[i]);
    return buf;
}

int zt_run(const zn_jit_module *jm, const char *kernel, zt_dim grid, zt_dim block,
           uint32_t dyn_shared, void **args)
{
    const zn_kernel_info *k = jm ? zn_jit_kernel(jm, kernel) : NULL;
    if (!k) {
        CHECK(0, "no kernel %s", kernel);
        return -1;
    }
    uint8_t *params = pack(k, args);
    uint32_t nth = block.x * block.y * block.z;
    /* the window: the GPU's reserved bytes, then static and dynamic */
    uint32_t shared_size = ZN_SMEM_RESERVED + ((k->static_shared + 15) & ~15u) + dyn_shared;
    uint8_t *shared = calloc(1, shared_size + 16);
    int status = ZN_KSTATUS_OK;
    for (uint32_t bz = 0; bz < grid.z; bz++)
    for (uint32_t by = 0; by < grid.y; by++)
    for (uint32_t bx = 0; bx < grid.x; bx++) {
        zn_block_ctx bc = {
            .ctaid = {bx, by, bz}, .nctaid = {grid.x, grid.y, grid.z},
            .ntid = {block.x, block.y, block.z}, .nthreads = nth,
            .shared = shared, .shared_size = shared_size,
            .dyn_shared_size = dyn_shared, .params = params,
        };
        for (uint32_t w = 0; w * 32 < nth; w++) {
            uint32_t live = nth - w * 32 >= 32 ? 0xffffffffu
                                               : (1u << (nth - w * 32)) - 1;
            zn_warp_ctx wc = {.block = &bc, .warpid = w, .live_mask = live,
                              .rt = &test_rt, .smid = 0, .nsmid = 1,
                              .co_status = ZN_KSTATUS_RUNNING};
            zn_warp_set_tid(&wc, bc.ntid);
            int s = k->fn(&wc);
            /* a coroutine kernel suspends at each barrier (co_wait holds
             * what rt->barrier would get): count it, resume the warp */
            while (k->uses_barrier == 2 && wc.co_status == ZN_KSTATUS_RUNNING) {
                rt_barrier(&wc, (uint32_t)(wc.co_wait & 0xff), (uint32_t)(wc.co_wait >> 32),
                           (uint32_t)(wc.co_wait >> 8 & 0xff));
                uint32_t ended;
                if (k->batch)   /* this warp alone: warps[0] */
                    (void)k->batch(&wc, 1, nth, &ended);
                else
                    (*(void (**)(void *))wc.co_frame)(wc.co_frame);
                s = wc.co_status;
            }
            if (s && !status)
                status = s;
        }
    }
    free(shared);
    free(params);
    return status;
}

int zt_run_exec(const zn_jit_module *jm, const char *kernel, zt_dim grid,
                zt_dim block, uint32_t dyn_shared, void **args)
{
    const zn_kernel_info *k = jm ? zn_jit_kernel(jm, kernel) : NULL;
    if (!k) {
        CHECK(0, "no kernel %s", kernel);
        return -1;
    }
    if (zn_exec_init(0)) {
        CHECK(0, "zn_exec_init failed");
        return -1;
    }
    uint8_t *params = pack(k, args);
    zn_launch l = {
        .fn = k->fn, .batch = k->batch, .start = k->start, .grid = {grid.x, grid.y, grid.z},
        .block = {block.x, block.y, block.z}, .static_shared = k->static_shared,
        .dyn_shared = dyn_shared, .stack_bytes = k->stack_bytes,
        .uses_barrier = k->uses_barrier, .params = params,
    };
    int s = zn_exec_launch(&l);
    free(params);
    return s;
}
