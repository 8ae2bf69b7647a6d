/* ocl_bench.c: the PoCL column. Runs the OpenCL C kernels of the cl/ folder (the
 * same kernels as the suite's .cu programs) on the first OpenCL CPU device,
 * on the same sizes and data (bench_suite.h), checks each result against
 * the C reference (ref_suite.c) and prints BENCH <name> src=pocl lines.
 * Usage: ocl_bench CL_DIR [name...] (no names: all). Without an OpenCL
 * platform it prints a SKIP line and exits 0, so the table leaves the
 * column empty. Times are the fastest of bench_reps() runs, each ending
 * with clFinish, after one warm-up run, as the CUDA programs time theirs. */
#define CL_TARGET_OPENCL_VERSION 200
#include <CL/cl.h>
#include <stdlib.h>
#include <string.h>
#include "bench_suite.h"

#define CL(call) do { cl_int e_ = (call); if (e_ != CL_SUCCESS) { \
    fprintf(stderr, "FAIL %s:%d: %s -> OpenCL error %d\n", __FILE__, __LINE__, #call, (int)e_); \
    exit(1); } } while (0)
#define ARG(k, i, v) CL(clSetKernelArg((k), (i), sizeof(v), &(v)))

static cl_context ctx;
static cl_command_queue queue;
static cl_device_id dev;
static const char *cl_dir;

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "FAIL ocl_bench: out of memory\n");
        exit(1);
    }
    memset(p, 0xA5, n);   /* poison */
    return p;
}

static cl_program build(const char *file)
{
    char *src = bench_read_text(cl_dir, file);
    cl_int err;
    const char *srcs[] = { src };
    cl_program p = clCreateProgramWithSource(ctx, 1, srcs, NULL, &err);
    CL(err);
    free(src);
    if (clBuildProgram(p, 1, &dev, "-cl-std=CL2.0", NULL, NULL) != CL_SUCCESS) {
        char log[8192] = "";
        clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, NULL);
        fprintf(stderr, "FAIL ocl_bench: %s/%s does not build:\n%s\n", cl_dir, file, log);
        exit(1);
    }
    return p;
}

static cl_kernel kernel(cl_program p, const char *name)
{
    cl_int err;
    cl_kernel k = clCreateKernel(p, name, &err);
    CL(err);
    return k;
}

/* A device buffer: a copy of init, or poisoned when init is NULL. */
static cl_mem buffer(size_t bytes, const void *init)
{
    cl_int err;
    cl_mem m = clCreateBuffer(ctx, CL_MEM_READ_WRITE, bytes, NULL, &err);
    CL(err);
    if (init) {
        CL(clEnqueueWriteBuffer(queue, m, CL_TRUE, 0, bytes, init, 0, NULL, NULL));
    } else {
        unsigned char poison = 0xA5;
        CL(clEnqueueFillBuffer(queue, m, &poison, 1, 0, bytes, 0, NULL, NULL));
        CL(clFinish(queue));
    }
    return m;
}

static void read_back(cl_mem m, void *host, size_t bytes)
{
    CL(clEnqueueReadBuffer(queue, m, CL_TRUE, 0, bytes, host, 0, NULL, NULL));
}

static size_t round_up(size_t n, size_t m)
{
    return (n + m - 1) / m * m;
}

/* One launch: global size g rounded up to the local size l. */
static void launch(cl_kernel k, cl_uint dims, const size_t *g, const size_t *l)
{
    size_t gr[2];
    for (cl_uint d = 0; d < dims; d++)
        gr[d] = round_up(g[d], l[d]);
    CL(clEnqueueNDRangeKernel(queue, k, dims, NULL, gr, l, 0, NULL, NULL));
}

static void finish(void)
{
    CL(clFinish(queue));
}

static void report(const char *name, int bad, long n, double ms, double bytes, double flops)
{
    if (bad) {
        fprintf(stderr, "FAIL %s: the result on PoCL differs from the C reference\n", name);
        exit(1);
    }
    bench_line(name, "pocl", n, ms, bytes, flops);
}

static void run_saxpy(void)
{
    cl_int n = (cl_int)SZ_SAXPY;
    float *x = xmalloc(n * 4), *y0 = xmalloc(n * 4), *y = xmalloc(n * 4), *want = xmalloc(n * 4);
    bench_fill(x, n, 1);
    bench_fill(y0, n, 2);
    memcpy(want, y0, n * 4);
    cl_program p = build("saxpy.cl");
    cl_kernel k = kernel(p, "saxpy");
    cl_mem dx = buffer(n * 4, x), dy = buffer(n * 4, y0);
    float a = SAXPY_A;
    ARG(k, 0, n); ARG(k, 1, a); ARG(k, 2, dx); ARG(k, 3, dy);
    size_t g = n, l = BENCH_THREADS;
    double ms;
    BENCH_BEST(ms, launch(k, 1, &g, &l); finish());
    read_back(dy, y, n * 4);
    for (int r = 0; r < 1 + bench_reps(); r++)   /* y was updated as often */
        ref_saxpy(n, SAXPY_A, x, want);
    report("saxpy", bench_check_f32("saxpy", y, want, n, 1e-5, 1e-5), n, ms, 12.0 * n, 2.0 * n);
    clReleaseMemObject(dx); clReleaseMemObject(dy); clReleaseKernel(k); clReleaseProgram(p);
    free(x); free(y0); free(y); free(want);
}

static void run_triad(void)
{
    cl_int n = (cl_int)SZ_TRIAD;
    float *b = xmalloc(n * 4), *c = xmalloc(n * 4), *a = xmalloc(n * 4), *want = xmalloc(n * 4);
    bench_fill(b, n, 3);
    bench_fill(c, n, 4);
    cl_program p = build("triad.cl");
    cl_kernel k = kernel(p, "triad");
    cl_mem db = buffer(n * 4, b), dc = buffer(n * 4, c), da = buffer(n * 4, NULL);
    float s = TRIAD_S;
    ARG(k, 0, n); ARG(k, 1, s); ARG(k, 2, db); ARG(k, 3, dc); ARG(k, 4, da);
    size_t g = n, l = BENCH_THREADS;
    double ms;
    BENCH_BEST(ms, launch(k, 1, &g, &l); finish());
    read_back(da, a, n * 4);
    ref_triad(n, TRIAD_S, b, c, want);
    report("triad", bench_check_f32("triad", a, want, n, 1e-5, 1e-6), n, ms, 12.0 * n, 2.0 * n);
    clReleaseMemObject(da); clReleaseMemObject(db); clReleaseMemObject(dc);
    clReleaseKernel(k); clReleaseProgram(p);
    free(a); free(b); free(c); free(want);
}

/* reduce (reduce.cu's data and tree) and reduce_warp (reduce_warp.cu's). */
static void run_reduce(const char *name, const char *kname)
{
    int tree = strcmp(name, "reduce") == 0;
    cl_int n = (cl_int)(tree ? BENCH_N : SZ_REDUCE);
    long blocks = (n + BENCH_THREADS - 1) / BENCH_THREADS;
    float *x = xmalloc(n * 4), *part = xmalloc(blocks * 4), *want = xmalloc(blocks * 4);
    if (tree)
        for (long i = 0; i < n; i++)
            x[i] = (float)(i % 7) - 3.0f;
    else
        bench_fill(x, n, 5);
    cl_program p = build("reduce.cl");
    cl_kernel k = kernel(p, kname);
    cl_mem dx = buffer(n * 4, x), dp = buffer(blocks * 4, NULL);
    ARG(k, 0, dx); ARG(k, 1, dp); ARG(k, 2, n);
    size_t g = n, l = BENCH_THREADS;
    double ms;
    BENCH_BEST(ms, launch(k, 1, &g, &l); finish());
    read_back(dp, part, blocks * 4);
    ref_block_sum(n, x, want);
    report(name, bench_check_f32(name, part, want, blocks, 1e-4, 1e-4), n, ms,
           4.0 * n + 4.0 * blocks, (double)n);
    clReleaseMemObject(dx); clReleaseMemObject(dp); clReleaseKernel(k); clReleaseProgram(p);
    free(x); free(part); free(want);
}

static void run_sgemm(void)
{
    cl_int n = SZ_GEMM;
    size_t nn = (size_t)n * n;
    float *A = xmalloc(nn * 4), *B = xmalloc(nn * 4), *C = xmalloc(nn * 4), *want = xmalloc(nn * 4);
    bench_fill(A, nn, 6);
    bench_fill(B, nn, 7);
    cl_program p = build("sgemm.cl");
    cl_kernel k = kernel(p, "sgemm_tiled");
    cl_mem dA = buffer(nn * 4, A), dB = buffer(nn * 4, B), dC = buffer(nn * 4, NULL);
    ARG(k, 0, n); ARG(k, 1, dA); ARG(k, 2, dB); ARG(k, 3, dC);
    size_t g[2] = { n, n }, l[2] = { GEMM_TILE, GEMM_TILE };
    double ms;
    BENCH_BEST(ms, launch(k, 2, g, l); finish());
    read_back(dC, C, nn * 4);
    ref_sgemm(n, A, B, want);
    report("sgemm", bench_check_f32("sgemm", C, want, nn, 1e-4, 1e-4 * sqrt((double)n)), n, ms,
           0, 2.0 * n * n * n);
    clReleaseMemObject(dA); clReleaseMemObject(dB); clReleaseMemObject(dC);
    clReleaseKernel(k); clReleaseProgram(p);
    free(A); free(B); free(C); free(want);
}

static void run_stencil(void)
{
    cl_int w = SZ_STENCIL_W, h = SZ_STENCIL_H;
    size_t n = (size_t)w * h;
    float *in = xmalloc(n * 4), *out = xmalloc(n * 4), *want = xmalloc(n * 4);
    bench_fill(in, n, 8);
    cl_program p = build("stencil.cl");
    cl_kernel k = kernel(p, "stencil5");
    cl_mem din = buffer(n * 4, in), dout = buffer(n * 4, NULL);
    ARG(k, 0, w); ARG(k, 1, h); ARG(k, 2, din); ARG(k, 3, dout);
    size_t g[2] = { w, h }, l[2] = { 32, 8 };
    double ms;
    BENCH_BEST(ms, launch(k, 2, g, l); finish());
    read_back(dout, out, n * 4);
    ref_stencil(w, h, in, want);
    report("stencil", bench_check_f32("stencil", out, want, n, 1e-5, 1e-6), (long)n, ms, 8.0 * n, 6.0 * n);
    clReleaseMemObject(din); clReleaseMemObject(dout); clReleaseKernel(k); clReleaseProgram(p);
    free(in); free(out); free(want);
}

static void run_histogram(void)
{
    cl_long n = SZ_HIST;
    unsigned char *in = xmalloc(n);
    for (long i = 0; i < n; i++)   /* histogram.cu's input */
        in[i] = (unsigned char)((bench_hash((uint32_t)i) & 0xff) & (bench_hash((uint32_t)i + 7) | 0x3f));
    unsigned *hist = xmalloc(HIST_BINS * 4), *want = xmalloc(HIST_BINS * 4);
    cl_program p = build("histogram.cl");
    cl_kernel k = kernel(p, "histogram256");
    cl_mem din = buffer(n, in), dh = buffer(HIST_BINS * 4, NULL);
    ARG(k, 0, din); ARG(k, 1, n); ARG(k, 2, dh);
    size_t g = (size_t)HIST_BLOCKS * BENCH_THREADS, l = BENCH_THREADS;
    unsigned zero = 0;
    double ms;
    BENCH_BEST(ms, CL(clEnqueueFillBuffer(queue, dh, &zero, 4, 0, HIST_BINS * 4, 0, NULL, NULL));
               launch(k, 1, &g, &l); finish());
    read_back(dh, hist, HIST_BINS * 4);
    ref_histogram(n, in, want);
    report("histogram", bench_check_u32("histogram", hist, want, HIST_BINS), n, ms, (double)n, (double)n);
    clReleaseMemObject(din); clReleaseMemObject(dh); clReleaseKernel(k); clReleaseProgram(p);
    free(in); free(hist); free(want);
}

static void run_softmax(void)
{
    cl_int rows = SZ_SOFTMAX_R, cols = SZ_SOFTMAX_C;
    size_t n = (size_t)rows * cols;
    float *in = xmalloc(n * 4), *out = xmalloc(n * 4), *want = xmalloc(n * 4);
    bench_fill(in, n, 9);
    for (size_t i = 0; i < n; i++)
        in[i] *= 8.0f;
    cl_program p = build("softmax.cl");
    cl_kernel k = kernel(p, "softmax_rows");
    cl_mem din = buffer(n * 4, in), dout = buffer(n * 4, NULL);
    ARG(k, 0, cols); ARG(k, 1, din); ARG(k, 2, dout);
    size_t g = (size_t)rows * BENCH_THREADS, l = BENCH_THREADS;
    double ms;
    BENCH_BEST(ms, launch(k, 1, &g, &l); finish());
    read_back(dout, out, n * 4);
    ref_softmax(rows, cols, in, want);
    report("softmax", bench_check_f32("softmax", out, want, n, 1e-4, 1e-7), (long)n, ms, 8.0 * n, 5.0 * n);
    clReleaseMemObject(din); clReleaseMemObject(dout); clReleaseKernel(k); clReleaseProgram(p);
    free(in); free(out); free(want);
}

/* both rows of bench/mmvq.cu: a 4096 x 4096 layer and the tiny model's
 * 32000 x 64 output layer */
static void run_mmvq_one(cl_kernel k, const char *name, cl_int rows, cl_int cols)
{
    long nb = cols / MMVQ_QK, nx = (long)rows * nb;
    uint8_t *x = xmalloc((size_t)nx * MMVQ_X_BYTES), *y = xmalloc((size_t)nb * MMVQ_Y_BYTES);
    float *out = xmalloc((size_t)rows * 4), *want = xmalloc((size_t)rows * 4);
    mmvq_fill(x, nx, y, nb);
    cl_mem dx = buffer((size_t)nx * MMVQ_X_BYTES, x), dy = buffer((size_t)nb * MMVQ_Y_BYTES, y);
    cl_mem dout = buffer((size_t)rows * 4, NULL);
    ARG(k, 0, dx); ARG(k, 1, dy); ARG(k, 2, dout); ARG(k, 3, cols);
    size_t g = (size_t)rows * 128, l = 128;
    double ms;
    BENCH_BEST(ms, launch(k, 1, &g, &l); finish());
    read_back(dout, out, (size_t)rows * 4);
    ref_mmvq_q8(rows, cols, x, y, want);
    report(name, bench_check_f32(name, out, want, rows, 1e-4, 1e-3), rows, ms,
           (double)nx * MMVQ_X_BYTES + (double)rows * 4, 2.0 * rows * cols);
    clReleaseMemObject(dx); clReleaseMemObject(dy); clReleaseMemObject(dout);
    free(x); free(y); free(out); free(want);
}

static void run_mmvq(void)
{
    cl_program p = build("mmvq.cl");
    cl_kernel k = kernel(p, "mmvq_q8");
    run_mmvq_one(k, "mmvq", SZ_MMVQ_ROWS, SZ_MMVQ_COLS);
    run_mmvq_one(k, "mmvq_thin", SZ_MMVQ_THIN_ROWS, 64);
    clReleaseKernel(k); clReleaseProgram(p);
}

static void run_scan(void)
{
    cl_long n = SZ_SCAN;
    const size_t l = BENCH_THREADS, per_group = l * 16;   /* SCAN_ITEMS in scan.cl */
    cl_int groups = (cl_int)((n + per_group - 1) / per_group);
    int *in = xmalloc(n * 4), *out = xmalloc(n * 4), *want = xmalloc(n * 4);
    for (long i = 0; i < n; i++)   /* scan.cu's input */
        in[i] = (int)(bench_hash((uint32_t)i) % 201) - 100;
    cl_program p = build("scan.cl");
    cl_kernel ks = kernel(p, "scan_sums"), ko = kernel(p, "scan_offsets"), kg = kernel(p, "scan_groups");
    cl_mem din = buffer(n * 4, in), dout = buffer(n * 4, NULL), dsums = buffer(groups * 4, NULL);
    ARG(ks, 0, din); ARG(ks, 1, n); ARG(ks, 2, dsums);
    ARG(ko, 0, dsums); ARG(ko, 1, groups);
    ARG(kg, 0, din); ARG(kg, 1, n); ARG(kg, 2, dsums); ARG(kg, 3, dout);
    size_t g = (size_t)groups * l, one = 1;
    double ms;
    BENCH_BEST(ms, launch(ks, 1, &g, &l); launch(ko, 1, &one, &one); launch(kg, 1, &g, &l); finish());
    read_back(dout, out, n * 4);
    ref_scan_excl(n, in, want);
    report("scan", bench_check_u32("scan", (unsigned *)out, (unsigned *)want, n), n, ms, 8.0 * n, (double)n);
    clReleaseMemObject(din); clReleaseMemObject(dout); clReleaseMemObject(dsums);
    clReleaseKernel(ks); clReleaseKernel(ko); clReleaseKernel(kg); clReleaseProgram(p);
    free(in); free(out); free(want);
}

static void run_transpose(void)
{
    cl_int w = SZ_TRANS_W, h = SZ_TRANS_H;
    size_t n = (size_t)w * h;
    float *in = xmalloc(n * 4), *out = xmalloc(n * 4), *want = xmalloc(n * 4);
    bench_fill(in, n, 10);
    cl_program p = build("transpose.cl");
    cl_kernel k = kernel(p, "transpose_tiled");
    cl_mem din = buffer(n * 4, in), dout = buffer(n * 4, NULL);
    ARG(k, 0, w); ARG(k, 1, h); ARG(k, 2, din); ARG(k, 3, dout);
    /* 32 x 8 work-groups, one per 32 x 32 tile */
    size_t g[2] = { round_up(w, TRANS_TILE), round_up(h, TRANS_TILE) / 4 }, l[2] = { TRANS_TILE, 8 };
    double ms;
    BENCH_BEST(ms, launch(k, 2, g, l); finish());
    read_back(dout, out, n * 4);
    ref_transpose(w, h, in, want);
    report("transpose", bench_check_f32("transpose", out, want, n, 0, 0), (long)n, ms, 8.0 * n, 0);
    clReleaseMemObject(din); clReleaseMemObject(dout); clReleaseKernel(k); clReleaseProgram(p);
    free(in); free(out); free(want);
}

static void run_nbody(void)
{
    cl_int n = SZ_NBODY;
    size_t b = 16 * (size_t)n;
    float *pos = xmalloc(b), *vel = xmalloc(b), *pout = xmalloc(b), *vout = xmalloc(b);
    float *pwant = xmalloc(b), *vwant = xmalloc(b);
    bench_fill(pos, 4L * n, 11);
    bench_fill(vel, 4L * n, 12);
    for (int i = 0; i < n; i++)
        pos[4 * i + 3] = 0.5f * (pos[4 * i + 3] + 1.5f);
    cl_program p = build("nbody.cl");
    cl_kernel k = kernel(p, "nbody_step");
    cl_mem dp = buffer(b, pos), dv = buffer(b, vel), dpo = buffer(b, NULL), dvo = buffer(b, NULL);
    float eps2 = NBODY_EPS2, dt = NBODY_DT;
    ARG(k, 0, n); ARG(k, 1, eps2); ARG(k, 2, dt); ARG(k, 3, dp); ARG(k, 4, dv); ARG(k, 5, dpo); ARG(k, 6, dvo);
    size_t g = n, l = BENCH_THREADS;
    double ms;
    BENCH_BEST(ms, launch(k, 1, &g, &l); finish());
    read_back(dpo, pout, b);
    read_back(dvo, vout, b);
    ref_nbody(n, pos, vel, pwant, vwant);
    double vtol = 1e-3 * bench_max_abs(vwant, 4L * n);
    int bad = bench_check_f32("nbody velocity", vout, vwant, 4L * n, 1e-3, vtol) ||
              bench_check_f32("nbody position", pout, pwant, 4L * n, 1e-4, 1e-5);
    report("nbody", bad, n, ms, 0, NBODY_FLOPS * n * n);

    /* The empty-kernel launch: many enqueues, one clFinish (launch.cu's). */
    cl_kernel e = kernel(p, "empty_kernel");
    int launches = SZ_LAUNCHES;
    size_t eg = 32, el = 32;
    BENCH_BEST(ms, for (int i = 0; i < launches; i++) launch(e, 1, &eg, &el); finish());
    bench_line("launch", "pocl", launches, ms / launches, 0, 0);
    BENCH_BEST(ms, for (int i = 0; i < launches / 10; i++) { launch(e, 1, &eg, &el); finish(); });
    bench_line("launch_sync", "pocl", launches / 10, ms / (launches / 10), 0, 0);
    clReleaseKernel(e);
    clReleaseMemObject(dp); clReleaseMemObject(dv); clReleaseMemObject(dpo); clReleaseMemObject(dvo);
    clReleaseKernel(k); clReleaseProgram(p);
    free(pos); free(vel); free(pout); free(vout); free(pwant); free(vwant);
}

static int wanted(int argc, char **argv, const char *name)
{
    if (argc <= 2)
        return 1;
    for (int i = 2; i < argc; i++)
        if (strcmp(argv[i], name) == 0)
            return 1;
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: ocl_bench CL_DIR [name...]\n");
        return 2;
    }
    cl_dir = argv[1];
    cl_platform_id plats[8];
    cl_uint nplat = 0;
    if (clGetPlatformIDs(8, plats, &nplat) != CL_SUCCESS || nplat == 0) {
        printf("SKIP pocl: no OpenCL platform\n");
        return 0;
    }
    cl_uint i, ndev = 0;
    for (i = 0; i < nplat; i++)
        if (clGetDeviceIDs(plats[i], CL_DEVICE_TYPE_CPU, 1, &dev, &ndev) == CL_SUCCESS && ndev)
            break;
    if (!ndev) {
        printf("SKIP pocl: no OpenCL CPU device\n");
        return 0;
    }
    char dname[256] = "";
    clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof dname - 1, dname, NULL);
    fprintf(stderr, "ocl_bench: device %s\n", dname);
    cl_int err;
    ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    CL(err);
    queue = clCreateCommandQueueWithProperties(ctx, dev, NULL, &err);
    CL(err);
    static const struct { const char *name; void (*run)(void); } benches[] = {
        { "saxpy", run_saxpy }, { "triad", run_triad }, { "sgemm", run_sgemm },
        { "stencil", run_stencil }, { "histogram", run_histogram }, { "softmax", run_softmax },
        { "scan", run_scan }, { "transpose", run_transpose }, { "nbody", run_nbody },
        { "mmvq", run_mmvq },
    };
    if (wanted(argc, argv, "reduce"))
        run_reduce("reduce", "block_sum");
    if (wanted(argc, argv, "reduce_warp"))
        run_reduce("reduce_warp", "block_sum_wg");
    for (size_t b = 0; b < sizeof benches / sizeof benches[0]; b++)
        if (wanted(argc, argv, benches[b].name))
            benches[b].run();
    clReleaseCommandQueue(queue);
    clReleaseContext(ctx);
    return 0;
}
