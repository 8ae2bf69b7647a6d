/* ab_env.c: one compiler setting against another, in one process.
 *
 *   bench_ab_env PTXDIR VAR=A VAR=B [rounds]
 *   (each side may set several: VAR1=x,VAR2=y)
 *
 * The shared hosts this project is measured on run whole processes at one
 * of two speeds (docs/bench.md: up to 1.7x apart), so comparing two builds
 * or two settings across processes needs many runs to see a few percent.
 * Here the suite's per-block-bound kernels (PTXDIR/reduce.ptx,
 * reduce_warp.ptx and mmvq.ptx: nvcc -ptx of the suite's programs) and the
 * shared-atomic histogram (histogram.ptx; its unit is 1 KiB of input, its
 * grid the suite's, grid-stride over fewer bytes) and the 5-point stencil
 * (stencil.ptx, 32 x 8 blocks over a 512 x 256 grid that stays in cache,
 * so its branches and not DRAM set its time, and over the suite's 4096 x
 * 4096 grid, "stencil4k": its row streams) and STREAM's triad
 * (triad.ptx, the suite's 2^24 floats: DRAM-bound, for prefetch
 * settings) are
 * loaded twice with the kernel cache off: VAR=A is set while the first
 * copies compile (at their first launch), VAR=B for the second ("VAR="
 * unsets it). Launches of the two copies then alternate, best of
 * `rounds`, and the table gives ns per block and B/A. Every result is
 * checked against C, so the run also shows that the setting keeps the
 * kernels' semantics. mmvq runs on mmvq_thin's shape (2 blocks per row,
 * 8 of 128 threads busy) with unit scales, so each row is an exact
 * integer dot product. */
#include <cuda.h>
#include <stdint.h>
#include <string.h>
#include "bench_suite.h"

#define CK(call) do { CUresult r_ = (call); if (r_ != CUDA_SUCCESS) { const char *s_ = "?"; \
    cuGetErrorString(r_, &s_); fprintf(stderr, "FAIL %s:%d: %s -> %s\n", __FILE__, __LINE__, #call, s_); \
    exit(1); } } while (0)

enum { COLS = 2 * MMVQ_QK };    /* mmvq_thin's rows: two blocks */

enum { MOD_REDUCE, MOD_REDUCE_WARP, MOD_MMVQ, MOD_HIST, MOD_STENCIL, MOD_TRIAD, NMODS };
static const char *const mod_file[NMODS] = {"reduce.ptx", "reduce_warp.ptx", "mmvq.ptx",
                                            "histogram.ptx", "stencil.ptx", "triad.ptx"};
/* a stencil's grid: the kernel's arguments, device arrays, C's result */
typedef struct st_grid {
    int w, h;
    CUdeviceptr in, out;
    float *want;
    void *args[4];
    unsigned gx, gy;    /* 32 x 8 blocks */
} st_grid;

typedef struct ab_job {
    const char *name, *symbol;
    int mod;
    unsigned grid, bx, by;
    void **args;
    CUdeviceptr out;        /* one float per block, or the histogram's bins */
    const float *want;
    const unsigned *want_bins;  /* the histogram: out is HIST_BINS counts */
    double units;           /* what the table's times are per: blocks, KiB */
    CUfunction f[2];
    double best[2];
    unsigned gy;            /* grid's y (0: 1) */
    unsigned nout;          /* floats in out (0: one per block) */
} ab_job;

/* "VAR=value" sets VAR, "VAR=" unsets it; several joined by commas */
static void set_vars(const char *list)
{
    char *all = strdup(list), *save = NULL;
    for (char *kv = strtok_r(all, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(kv, '=');
        if (!eq) {
            fprintf(stderr, "FAIL '%s' is not VAR=value\n", kv);
            exit(2);
        }
        *eq = 0;
        if (eq[1])
            setenv(kv, eq + 1, 1);
        else
            unsetenv(kv);
    }
    free(all);
}

static CUdeviceptr alloc(size_t bytes)
{
    CUdeviceptr p;
    CK(cuMemAllocManaged(&p, bytes, CU_MEM_ATTACH_GLOBAL));
    return p;
}

/* small integers, so 0.5 c + 0.125 (l + r + u + d) is exact */
static void st_make(st_grid *g, int w, int h)
{
    g->w = w, g->h = h;
    g->in = alloc((size_t)w * h * 4), g->out = alloc((size_t)w * h * 4);
    float *in = (float *)(uintptr_t)g->in;
    g->want = malloc((size_t)w * h * 4);
    for (long i = 0; i < (long)w * h; i++)
        in[i] = (float)((i * 5) % 7) - 3.0f;
    ref_stencil(w, h, in, g->want);
    g->args[0] = &g->w, g->args[1] = &g->h, g->args[2] = &g->in, g->args[3] = &g->out;
    g->gx = (unsigned)(w + 31) / 32, g->gy = (unsigned)(h + 7) / 8;
}

static void st_free(st_grid *g)
{
    CK(cuMemFree(g->in));
    CK(cuMemFree(g->out));
    free(g->want);
}

static void launch(const ab_job *j, int v)
{
    if (j->want_bins)   /* a histogram starts from zero */
        CK(cuMemsetD32Async(j->out, 0, HIST_BINS, 0));
    CK(cuLaunchKernel(j->f[v], j->grid, j->gy ? j->gy : 1, 1, j->bx, j->by, 1, 0, 0, j->args,
                      NULL));
}

/* every block's result against C; poisoned first so unwritten output shows */
static int check(const ab_job *j, int v)
{
    if (j->want_bins) {
        unsigned *bins = (unsigned *)(uintptr_t)j->out;
        memset(bins, 0xff, HIST_BINS * sizeof(unsigned));
        launch(j, v);
        CK(cuCtxSynchronize());
        for (unsigned b = 0; b < HIST_BINS; b++)
            if (bins[b] != j->want_bins[b]) {
                fprintf(stderr, "FAIL %s (%s): bin %u has %u, want %u\n", j->name,
                        v ? "B" : "A", b, bins[b], j->want_bins[b]);
                return 1;
            }
        return 0;
    }
    float *out = (float *)(uintptr_t)j->out;
    unsigned n = j->nout ? j->nout : j->grid;
    memset(out, 0xff, n * sizeof(float));
    launch(j, v);
    CK(cuCtxSynchronize());
    for (unsigned b = 0; b < n; b++)
        if (out[b] != j->want[b]) {
            fprintf(stderr, "FAIL %s (%s): output %u is %g, want %g\n", j->name, v ? "B" : "A",
                    b, out[b], j->want[b]);
            return 1;
        }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: %s PTXDIR VAR=A VAR=B [rounds]\n", argv[0]);
        return 2;
    }
    int rounds = argc > 4 ? atoi(argv[4]) : 20;
    /* n: whole blocks of BENCH_THREADS */
    int n = (int)bench_size(1 << 22, 1 << 14), rows = SZ_MMVQ_THIN_ROWS, cols = COLS;
    setenv("CUDA_CACHE_DISABLE", "1", 1);   /* both copies compile here */
    CK(cuInit(0));
    CUdevice dev;
    CUcontext ctx;
    CK(cuDeviceGet(&dev, 0));
    CK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CK(cuCtxSetCurrent(ctx));

    /* sums of small integers: exact in float in any order */
    const unsigned blocks = (unsigned)n / BENCH_THREADS;
    CUdeviceptr x = alloc((size_t)n * 4), sums = alloc((size_t)blocks * 4);
    float *hx = (float *)(uintptr_t)x, *want_sum = malloc((size_t)blocks * 4);
    for (int i = 0; i < n; i++)
        hx[i] = (float)(i % 7) - 3.0f;
    for (unsigned b = 0; b < blocks; b++) {
        want_sum[b] = 0;
        for (int i = 0; i < BENCH_THREADS; i++)
            want_sum[b] += hx[b * BENCH_THREADS + i];
    }
    /* thin: scales 1.0 (half 0x3c00), so each row is an integer dot product */
    CUdeviceptr bx = alloc((size_t)rows * 2 * MMVQ_X_BYTES), by = alloc(2 * MMVQ_Y_BYTES);
    CUdeviceptr dots = alloc((size_t)rows * 4);
    uint8_t *hb = (uint8_t *)(uintptr_t)bx, *hy = (uint8_t *)(uintptr_t)by;
    for (size_t i = 0; i < (size_t)rows * 2 * MMVQ_X_BYTES; i++)
        hb[i] = (uint8_t)((i * 2654435761u) >> 13);
    for (int i = 0; i < 2 * MMVQ_Y_BYTES; i++)
        hy[i] = (uint8_t)(i * 37 + 11);
    float *want_dot = malloc((size_t)rows * 4);
    for (int r = 0; r < rows; r++) {
        long dot = 0;
        for (int k = 0; k < 2; k++) {
            uint8_t *bk = hb + ((size_t)r * 2 + k) * MMVQ_X_BYTES, *yk = hy + k * MMVQ_Y_BYTES;
            bk[0] = 0x00, bk[1] = 0x3c;
            yk[0] = 0x00, yk[1] = 0x3c;
            for (int i = 0; i < MMVQ_QK; i++)
                dot += (long)(int8_t)bk[2 + i] * (int8_t)yk[4 + i];
        }
        want_dot[r] = (float)dot;
    }
    /* histogram: bytes hashed as the suite's are, counted here */
    long hn = (long)bench_size(1 << 24, 100003);
    CUdeviceptr hin = alloc((size_t)hn), bins = alloc(HIST_BINS * sizeof(unsigned));
    uint8_t *hh = (uint8_t *)(uintptr_t)hin;
    unsigned *want_bins = calloc(HIST_BINS, sizeof(unsigned));
    for (long i = 0; i < hn; i++) {
        hh[i] = (uint8_t)((bench_hash((uint32_t)i) & 0xff) & (bench_hash((uint32_t)i + 7) | 0x3f));
        want_bins[hh[i]]++;
    }
    /* the stencil in cache (2 MiB in and out: its branches) and on the
     * suite's grid (DRAM: its streams) */
    st_grid stc, stm;
    st_make(&stc, 512, 256);
    st_make(&stm, SZ_STENCIL_W, SZ_STENCIL_H);
    /* triad: a = b + 3 c on small integers, exact */
    int tn = (int)SZ_TRIAD, tblocks = (tn + BENCH_THREADS - 1) / BENCH_THREADS;
    float ts = TRIAD_S;
    CUdeviceptr tb = alloc((size_t)tn * 4), tc = alloc((size_t)tn * 4), ta = alloc((size_t)tn * 4);
    float *htb = (float *)(uintptr_t)tb, *htc = (float *)(uintptr_t)tc;
    float *want_tr = malloc((size_t)tn * 4);
    for (int i = 0; i < tn; i++) {
        htb[i] = (float)(i % 11) - 5.0f;
        htc[i] = (float)(i % 13) - 6.0f;
        want_tr[i] = htb[i] + ts * htc[i];
    }
    void *a_sum[] = {&x, &sums, &n}, *a_dot[] = {&bx, &by, &dots, &cols};
    void *a_tr[] = {&tn, &ts, &tb, &tc, &ta};
    void *a_hist[] = {&hin, &hn, &bins};
    ab_job jobs[] = {
        {"tree", "_Z9block_sumPKfPfi", MOD_REDUCE, blocks, BENCH_THREADS, 1, a_sum, sums,
         want_sum, NULL, blocks, {0}, {1e30, 1e30}, 0, 0},
        {"shfl", "_Z14block_sum_shflPKfPfi", MOD_REDUCE_WARP, blocks, BENCH_THREADS, 1, a_sum,
         sums, want_sum, NULL, blocks, {0}, {1e30, 1e30}, 0, 0},
        {"thin", "_Z7mmvq_q8PK5blk_xPK5blk_yPfi", MOD_MMVQ, rows, 32, 4, a_dot, dots, want_dot,
         NULL, rows, {0}, {1e30, 1e30}, 0, 0},
        {"hist/KiB", "_Z12histogram256PKhlPj", MOD_HIST, HIST_BLOCKS, BENCH_THREADS, 1, a_hist,
         bins, NULL, want_bins, hn / 1024.0, {0}, {1e30, 1e30}, 0, 0},
        {"stencil", "_Z8stencil5iiPKfPf", MOD_STENCIL, stc.gx, 32, 8, stc.args, stc.out,
         stc.want, NULL, stc.gx * stc.gy, {0}, {1e30, 1e30}, stc.gy, (unsigned)(stc.w * stc.h)},
        {"stencil4k", "_Z8stencil5iiPKfPf", MOD_STENCIL, stm.gx, 32, 8, stm.args, stm.out,
         stm.want, NULL, stm.gx * stm.gy, {0}, {1e30, 1e30}, stm.gy, (unsigned)(stm.w * stm.h)},
        {"triad", "_Z5triadifPKfS0_Pf", MOD_TRIAD, (unsigned)tblocks, BENCH_THREADS, 1, a_tr,
         ta, want_tr, NULL, tblocks, {0}, {1e30, 1e30}, 0, (unsigned)tn},
    };
    const int njobs = sizeof jobs / sizeof *jobs;

    char *ptx[NMODS];
    for (int i = 0; i < NMODS; i++)
        ptx[i] = bench_read_text(argv[1], mod_file[i]);
    CUmodule mod[2][NMODS];
    int bad = 0;
    for (int v = 0; v < 2; v++) {
        set_vars(argv[2 + v]);
        for (int i = 0; i < NMODS; i++)
            CK(cuModuleLoadData(&mod[v][i], ptx[i]));
        for (int k = 0; k < njobs; k++) {
            CK(cuModuleGetFunction(&jobs[k].f[v], mod[v][jobs[k].mod], jobs[k].symbol));
            bad |= check(&jobs[k], v);     /* the first launch compiles */
        }
    }
    for (int r = 0; r < rounds; r++)
        for (int k = 0; k < njobs; k++)
            for (int v = 0; v < 2; v++) {
                /* one untimed launch: the job before may have pushed this
                 * one's data out of the cache (the stencil's 1 MiB) */
                launch(&jobs[k], v);
                CK(cuCtxSynchronize());
                double t0 = bench_now_ms();
                for (int i = 0; i < 5; i++)
                    launch(&jobs[k], v);
                CK(cuCtxSynchronize());
                double ms = (bench_now_ms() - t0) / 5;
                if (ms < jobs[k].best[v])
                    jobs[k].best[v] = ms;
            }
    for (int k = 0; k < njobs; k++)
        bad |= check(&jobs[k], 0) | check(&jobs[k], 1);
    printf("A: %s  B: %s  (best of %d x 5 launches, alternated)\n", argv[2], argv[3], rounds);
    printf("kernel     A ns/block  B ns/block    B/A\n");
    for (int k = 0; k < njobs; k++)
        printf("%-8s %12.1f %11.1f %6.3f\n", jobs[k].name, jobs[k].best[0] * 1e6 / jobs[k].units,
               jobs[k].best[1] * 1e6 / jobs[k].units, jobs[k].best[1] / jobs[k].best[0]);
    for (int v = 0; v < 2; v++)
        for (int i = 0; i < NMODS; i++)
            CK(cuModuleUnload(mod[v][i]));
    CK(cuMemFree(x));
    CK(cuMemFree(sums));
    CK(cuMemFree(bx));
    CK(cuMemFree(by));
    CK(cuMemFree(dots));
    CK(cuMemFree(hin));
    CK(cuMemFree(bins));
    st_free(&stc);
    st_free(&stm);
    CK(cuMemFree(ta));
    CK(cuMemFree(tb));
    CK(cuMemFree(tc));
    for (int i = 0; i < NMODS; i++)
        free(ptx[i]);
    free(want_sum);
    free(want_dot);
    free(want_bins);
    free(want_tr);
    CK(cuDevicePrimaryCtxRelease(dev));
    if (bad)
        return 1;
    printf("PASS ab_env\n");
    return 0;
}
