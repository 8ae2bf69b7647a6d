/* test_drv_graph_conc.c: a graph's independent branches run at once.
 *
 * - Two host nodes without an edge each wait (5 s at most) for the other
 *   to start: both must see the other, and their timestamps overlap; a
 *   third node after both sees both finished.
 * - Two kernel nodes without an edge spin on each other's flag (bounded by
 *   %globaltimer): on one stream the first would spin alone; both must see
 *   the other's flag. The host gives the launch 30 s, so a regression
 *   fails instead of hanging.
 * - A diamond of 100 nodes (a fill, 98 kernels on slices of its output, a
 *   kernel over all of them), launched three times back to back on a
 *   stream and once on the legacy stream, gives exactly what a CPU
 *   reference and the same kernels run eagerly give; after
 *   cuGraphExecUpdate to other constants, the new result.
 */
#include "graph_test.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

static const char conc_ptx[] =
    ".version 8.0\n"
    ".target sm_75\n"
    ".address_size 64\n"
    /* spin(mine, other, res): thread 0 sets *mine, then polls *other for
     * up to 5 s and stores what it last read in *res */
    ".visible .entry spin(.param .u64 mine, .param .u64 other, .param .u64 res)\n"
    "{\n"
    "    .reg .pred %p<3>;\n"
    "    .reg .b32 %r<4>;\n"
    "    .reg .b64 %rd<8>;\n"
    "    ld.param.u64 %rd1, [mine];\n"
    "    ld.param.u64 %rd2, [other];\n"
    "    ld.param.u64 %rd3, [res];\n"
    "    mov.u32 %r1, %tid.x;\n"
    "    setp.ne.u32 %p1, %r1, 0;\n"
    "    @%p1 bra DONE;\n"
    "    mov.u32 %r2, 1;\n"
    "    st.volatile.global.u32 [%rd1], %r2;\n"
    "    mov.u64 %rd4, %globaltimer;\n"
    "    add.u64 %rd5, %rd4, 5000000000;\n"
    "LOOP:\n"
    "    ld.volatile.global.u32 %r3, [%rd2];\n"
    "    setp.ne.u32 %p2, %r3, 0;\n"
    "    @%p2 bra SEEN;\n"
    "    mov.u64 %rd6, %globaltimer;\n"
    "    setp.lt.u64 %p2, %rd6, %rd5;\n"
    "    @%p2 bra LOOP;\n"
    "SEEN:\n"
    "    st.global.u32 [%rd3], %r3;\n"
    "DONE:\n"
    "    ret;\n"
    "}\n"
    /* axpb(out, in, n, a, b): out[i] = in[i] * a + b for i < n */
    ".visible .entry axpb(.param .u64 out, .param .u64 in, .param .u32 n, .param .u32 a,\n"
    "                     .param .u32 b)\n"
    "{\n"
    "    .reg .pred %p<2>;\n"
    "    .reg .b32 %r<10>;\n"
    "    .reg .b64 %rd<6>;\n"
    "    ld.param.u64 %rd1, [out];\n"
    "    ld.param.u64 %rd2, [in];\n"
    "    ld.param.u32 %r1, [n];\n"
    "    ld.param.u32 %r2, [a];\n"
    "    ld.param.u32 %r3, [b];\n"
    "    mov.u32 %r4, %ctaid.x;\n"
    "    mov.u32 %r5, %ntid.x;\n"
    "    mov.u32 %r6, %tid.x;\n"
    "    mad.lo.s32 %r7, %r4, %r5, %r6;\n"
    "    setp.ge.u32 %p1, %r7, %r1;\n"
    "    @%p1 bra DONE;\n"
    "    mul.wide.u32 %rd3, %r7, 4;\n"
    "    add.s64 %rd4, %rd2, %rd3;\n"
    "    ld.global.u32 %r8, [%rd4];\n"
    "    mad.lo.s32 %r9, %r8, %r2, %r3;\n"
    "    add.s64 %rd5, %rd1, %rd3;\n"
    "    st.global.u32 [%rd5], %r9;\n"
    "DONE:\n"
    "    ret;\n"
    "}\n";

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Waits for the stream for up to limit_s seconds; a timeout ends the
 * process (the hung work cannot be cleaned up). */
static void sync_or_die(CUstream s, int limit_s, const char *what)
{
    uint64_t end = now_ns() + (uint64_t)limit_s * 1000000000u;
    CUresult r;
    while ((r = cuStreamQuery(s)) == CUDA_ERROR_NOT_READY) {
        if (now_ns() > end) {
            printf("FAIL %s: not finished after %d s (branches serialised?)\n", what, limit_s);
            fflush(stdout);
            _exit(1);
        }
        usleep(1000);
    }
    OK(r);
}

/* ---- two host nodes ---- */

typedef struct host_pair {
    atomic_int started[2], finished[2];
    int saw_other[2];
    uint64_t t0[2], t1[2];
    int saw_both;       /* the node after both */
} host_pair;

typedef struct host_arg {
    host_pair *hp;
    int me;
} host_arg;

static void host_side(void *p)
{
    host_arg *a = p;
    host_pair *hp = a->hp;
    hp->t0[a->me] = now_ns();
    atomic_store(&hp->started[a->me], 1);
    uint64_t end = now_ns() + 5000000000u;
    while (!atomic_load(&hp->started[!a->me]) && now_ns() < end)
        usleep(100);
    hp->saw_other[a->me] = atomic_load(&hp->started[!a->me]);
    usleep(20000);
    hp->t1[a->me] = now_ns();
    atomic_store(&hp->finished[a->me], 1);
}

static void host_after(void *p)
{
    host_pair *hp = p;
    hp->saw_both = atomic_load(&hp->finished[0]) && atomic_load(&hp->finished[1]);
}

static void test_host_pair(gt_fixture *f)
{
    host_pair hp;
    memset(&hp, 0, sizeof hp);
    host_arg a[2] = { { &hp, 0 }, { &hp, 1 } };
    CUgraph g;
    CUgraphNode n[3];
    OK(cuGraphCreate(&g, 0));
    for (int i = 0; i < 2; i++) {
        CUDA_HOST_NODE_PARAMS h = { host_side, &a[i] };
        OK(cuGraphAddHostNode(&n[i], g, NULL, 0, &h));
    }
    CUDA_HOST_NODE_PARAMS h = { host_after, &hp };
    OK(cuGraphAddHostNode(&n[2], g, n, 2, &h));
    CUgraphExec x;
    OK(cuGraphInstantiate(&x, g, 0));
    OK(cuGraphLaunch(x, f->s));
    sync_or_die(f->s, 30, "host pair");
    EXPECT(hp.saw_other[0] && hp.saw_other[1]);
    /* the timestamps overlap: each started before the other finished */
    EXPECT(hp.t0[0] < hp.t1[1] && hp.t0[1] < hp.t1[0]);
    EXPECT(hp.saw_both);
    OK(cuGraphExecDestroy(x));
    OK(cuGraphDestroy(g));
}

/* ---- two kernels waiting for each other ---- */

static void test_kernel_pair(gt_fixture *f, CUmodule m)
{
    CUfunction spin;
    OK(cuModuleGetFunction(&spin, m, "spin"));
    CUdeviceptr flags, res;
    OK(cuMemAlloc(&flags, 8));
    OK(cuMemAlloc(&res, 8));
    CUgraph g;
    OK(cuGraphCreate(&g, 0));
    CUdeviceptr mine[2] = { flags, flags + 4 }, other[2] = { flags + 4, flags };
    CUdeviceptr out[2] = { res, res + 4 };
    void *args[2][3] = { { &mine[0], &other[0], &out[0] }, { &mine[1], &other[1], &out[1] } };
    for (int i = 0; i < 2; i++) {
        CUDA_KERNEL_NODE_PARAMS p;
        memset(&p, 0, sizeof p);
        p.func = spin;
        p.gridDimX = p.gridDimY = p.gridDimZ = 1;
        p.blockDimX = 32;
        p.blockDimY = p.blockDimZ = 1;
        p.kernelParams = args[i];
        CUgraphNode n;
        OK(cuGraphAddKernelNode(&n, g, NULL, 0, &p));
    }
    CUgraphExec x;
    OK(cuGraphInstantiate(&x, g, 0));
    for (int rep = 0; rep < 3; rep++) {
        OK(cuMemsetD32(flags, 0, 2));
        OK(cuMemsetD32(res, 0xdeadbeef, 2));
        OK(cuGraphLaunch(x, f->s));
        sync_or_die(f->s, 30, "kernel pair");
        uint32_t h[2] = { 0, 0 };
        OK(cuMemcpyDtoH(h, res, 8));
        EXPECT(h[0] == 1 && h[1] == 1);     /* 0: one spun alone until its time ran out */
    }
    OK(cuGraphExecDestroy(x));
    OK(cuGraphDestroy(g));
    OK(cuMemFree(flags));
    OK(cuMemFree(res));
}

/* ---- a diamond of 100 nodes ---- */

enum { SLICES = 98, SLICE = 64, WORDS = SLICES * SLICE };

typedef struct diamond {
    CUdeviceptr a, b, c;
    unsigned n, slice, one;
    unsigned mul[SLICES], add[SLICES];
    CUdeviceptr ain[SLICES], bout[SLICES];
    unsigned v, two, plus;
    void *fill_args[3], *mid_args[SLICES][5], *last_args[5];
} diamond;

/* The constants of variant k (0 or 1). */
static void diamond_init(diamond *d, CUdeviceptr a, CUdeviceptr b, CUdeviceptr c, unsigned k)
{
    d->a = a;
    d->b = b;
    d->c = c;
    d->n = WORDS;
    d->slice = SLICE;
    d->v = 7 + 4 * k;
    d->two = 2 + k;
    d->plus = 1;
    d->fill_args[0] = &d->a;
    d->fill_args[1] = &d->n;
    d->fill_args[2] = &d->v;
    for (unsigned j = 0; j < SLICES; j++) {
        d->mul[j] = j + 1 + k;
        d->add[j] = j;
        d->ain[j] = a + j * SLICE * 4;
        d->bout[j] = b + j * SLICE * 4;
        void **m = d->mid_args[j];
        m[0] = &d->bout[j];
        m[1] = &d->ain[j];
        m[2] = &d->slice;
        m[3] = &d->mul[j];
        m[4] = &d->add[j];
    }
    void **l = d->last_args;
    l[0] = &d->c;
    l[1] = &d->b;
    l[2] = &d->n;
    l[3] = &d->two;
    l[4] = &d->plus;
}

static uint32_t diamond_ref(const diamond *d, unsigned i)
{
    unsigned j = i / SLICE;
    uint32_t a = i * 3 + d->v;
    return (a * d->mul[j] + d->add[j]) * d->two + d->plus;
}

static CUDA_KERNEL_NODE_PARAMS kparams(CUfunction fn, unsigned n, void **args)
{
    CUDA_KERNEL_NODE_PARAMS p;
    memset(&p, 0, sizeof p);
    p.func = fn;
    p.gridDimX = (n + 63) / 64;
    p.gridDimY = p.gridDimZ = 1;
    p.blockDimX = 64;
    p.blockDimY = p.blockDimZ = 1;
    p.kernelParams = args;
    return p;
}

static CUgraph diamond_graph(gt_fixture *f, CUfunction axpb, diamond *d)
{
    CUgraph g;
    OK(cuGraphCreate(&g, 0));
    CUgraphNode top, mid[SLICES], last;
    CUDA_KERNEL_NODE_PARAMS p = gt_fill_params(f, d->fill_args, WORDS);
    OK(cuGraphAddKernelNode(&top, g, NULL, 0, &p));
    for (unsigned j = 0; j < SLICES; j++) {
        p = kparams(axpb, SLICE, d->mid_args[j]);
        OK(cuGraphAddKernelNode(&mid[j], g, &top, 1, &p));
    }
    p = kparams(axpb, WORDS, d->last_args);
    OK(cuGraphAddKernelNode(&last, g, mid, SLICES, &p));
    size_t count = 0;
    OK(cuGraphGetNodes(g, NULL, &count));
    EXPECT(count == 100);
    return g;
}

/* The words of c that differ from the reference (all of them if unread). */
static unsigned diamond_bad(const diamond *d, CUdeviceptr c, uint32_t *h)
{
    if (cuMemcpyDtoH(h, c, WORDS * 4) != CUDA_SUCCESS)
        return WORDS;
    unsigned bad = 0;
    for (unsigned i = 0; i < WORDS; i++)
        bad += h[i] != diamond_ref(d, i);
    return bad;
}

static void test_diamond(gt_fixture *f, CUmodule m)
{
    CUfunction axpb;
    OK(cuModuleGetFunction(&axpb, m, "axpb"));
    CUdeviceptr a, b, c, e;
    OK(cuMemAlloc(&a, WORDS * 4));
    OK(cuMemAlloc(&b, WORDS * 4));
    OK(cuMemAlloc(&c, WORDS * 4));
    OK(cuMemAlloc(&e, WORDS * 4));
    uint32_t *h = malloc(WORDS * 4), *he = malloc(WORDS * 4);
    diamond *d = calloc(2, sizeof *d);
    if (!h || !he || !d) {
        EXPECT(!"out of host memory");
        free(h);
        free(he);
        free(d);
        return;
    }
    /* eager: the same kernels, one after another, into e */
    diamond_init(&d[0], a, b, e, 0);
    OK(cuMemsetD32(e, 0xdeadbeef, WORDS));
    OK(cuLaunchKernel(f->fill, WORDS / 64, 1, 1, 64, 1, 1, 0, f->s, d[0].fill_args, NULL));
    for (unsigned j = 0; j < SLICES; j++)
        OK(cuLaunchKernel(axpb, 1, 1, 1, 64, 1, 1, 0, f->s, d[0].mid_args[j], NULL));
    OK(cuLaunchKernel(axpb, WORDS / 64, 1, 1, 64, 1, 1, 0, f->s, d[0].last_args, NULL));
    OK(cuStreamSynchronize(f->s));
    EXPECT(diamond_bad(&d[0], e, he) == 0);

    diamond_init(&d[0], a, b, c, 0);
    CUgraph g = diamond_graph(f, axpb, &d[0]);
    CUgraphExec x;
    OK(cuGraphInstantiate(&x, g, 0));
    /* three launches queued back to back: the per-launch events must not mix */
    OK(cuMemsetD32(c, 0xdeadbeef, WORDS));
    OK(cuMemsetD32(b, 0xdeadbeef, WORDS));
    for (int rep = 0; rep < 3; rep++)
        OK(cuGraphLaunch(x, f->s));
    sync_or_die(f->s, 60, "diamond");
    EXPECT(diamond_bad(&d[0], c, h) == 0);
    EXPECT(memcmp(h, he, WORDS * 4) == 0);      /* what eager execution gave */
    /* on the legacy stream: its synchronisation covers the branches */
    OK(cuMemsetD32(c, 0xdeadbeef, WORDS));
    OK(cuGraphLaunch(x, NULL));
    OK(cuStreamSynchronize(NULL));
    EXPECT(diamond_bad(&d[0], c, h) == 0);

    /* update to other constants: the same topology, new results */
    diamond_init(&d[1], a, b, c, 1);
    CUgraph g2 = diamond_graph(f, axpb, &d[1]);
    CUgraphExecUpdateResultInfo info;
    OK(cuGraphExecUpdate(x, g2, &info));
    OK(cuMemsetD32(c, 0xdeadbeef, WORDS));
    OK(cuGraphLaunch(x, f->s));
    sync_or_die(f->s, 60, "updated diamond");
    EXPECT(diamond_bad(&d[1], c, h) == 0);

    OK(cuGraphExecDestroy(x));
    OK(cuGraphDestroy(g));
    OK(cuGraphDestroy(g2));
    OK(cuMemFree(a));
    OK(cuMemFree(b));
    OK(cuMemFree(c));
    OK(cuMemFree(e));
    free(h);
    free(he);
    free(d);
}

int main(void)
{
    gt_fixture f;
    if (gt_setup(&f) != 0)
        return drv_test_end("drv_graph_conc");
    CUmodule m;
    OK(cuModuleLoadData(&m, conc_ptx));
    test_host_pair(&f);
    test_kernel_pair(&f, m);
    test_diamond(&f, m);
    OK(cuModuleUnload(m));
    gt_teardown(&f);
    return drv_test_end("drv_graph_conc");
}
