// concurrent_kernels.cu: kernels of different streams run at the same time
// (issue #4), and the legacy default stream still serialises with blocking
// streams.
//
// Concurrency is proven with flags, not timing: kernel A (one block) spins
// on a flag in global memory that kernel B, launched after it on another
// stream, sets; had the two been serialised A would give up after about
// 2 s and record that it never saw the flag. On NVIDIA hardware both run
// at once. The legacy-stream checks use the same spin the other way round:
// a kernel on the legacy stream must not overlap a blocking stream's
// kernel, so the spinning kernel must time out there.
//
// `concurrent_kernels bench [N]` only prints the figure of N small
// kernels on one stream and on four (no checks).
#include "zn_test.h"

#include <time.h>

#define SPIN_NS 2000000000ull       // A gives up after 2 s
#define SHORT_SPIN_NS 300000000ull  // the legacy check waits 0.3 s

__device__ static unsigned long long now_ns(void)
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

// Spins until *flag != 0 or `limit` ns have passed; out[0] = the flag it
// saw (0: gave up), then *done = 1.
__global__ void wait_flag(volatile int *flag, volatile int *started, int *out,
                          volatile int *done, unsigned long long limit)
{
    if (threadIdx.x != 0)
        return;
    *started = 1;
    unsigned long long t0 = now_ns();
    while (*flag == 0 && now_ns() - t0 < limit) {
    }
    out[0] = *flag;
    __threadfence();
    *done = 1;
}

// Waits (up to `limit` ns) for the other kernel to have started, records
// out[0] = started | done << 1 (what it saw of the other kernel), then
// sets the flag.
__global__ void set_flag(volatile int *flag, volatile int *started, volatile int *done, int *out,
                         unsigned long long limit)
{
    if (threadIdx.x != 0)
        return;
    unsigned long long t0 = now_ns();
    while (*started == 0 && now_ns() - t0 < limit) {
    }
    out[0] = (*started != 0) | (*done != 0) << 1;
    __threadfence();
    *flag = 1;
}

// One step of a stream's chain: every element x -> x * 3 + k (mod 2^32), in
// a grid-stride loop, so the result depends on the order of the steps.
__global__ void step(unsigned *x, int n, unsigned k)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        x[i] = x[i] * 3u + k;
}

// The same step through shared memory, reversed within the block, so the
// grid runs its warps as fibers with a barrier (a missing one would show).
__global__ void step_shared(unsigned *x, int n, unsigned k)
{
    __shared__ unsigned buf[256];
    int base = blockIdx.x * blockDim.x, t = threadIdx.x, r = blockDim.x - 1 - t;
    for (; base < n; base += gridDim.x * blockDim.x) {
        if (base + r < n)
            buf[r] = x[base + r] * 3u + k;
        __syncthreads();
        if (base + t < n)
            x[base + t] = buf[t];
        __syncthreads();
    }
}

// A small kernel with some work per thread (the figure).
__global__ void busy(unsigned *x, int iters)
{
    unsigned v = x[threadIdx.x] + blockIdx.x;
    for (int i = 0; i < iters; i++) {   // xorshift: no closed form to fold
        v ^= v << 13;
        v ^= v >> 17;
        v ^= v << 5;
    }
    x[blockIdx.x * blockDim.x + threadIdx.x] = v;
}

// Busy for `ns` of wall-clock time (a kernel that waits, like one stalled
// on memory: its length does not depend on the CPU share it gets).
__global__ void spin_ns(unsigned long long ns)
{
    unsigned long long t0 = now_ns();
    while (now_ns() - t0 < ns) {
    }
}

struct sync_buf {
    int flag, started, done, pad;
    int out_a, out_b;
};

static sync_buf *new_buf(void)
{
    sync_buf *b;
    CK(cudaMalloc(&b, sizeof *b));
    CK(cudaMemset(b, 0, sizeof *b));
    CK(cudaDeviceSynchronize());
    return b;
}

static sync_buf read_buf(const sync_buf *d)
{
    sync_buf h;
    CK(cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost));
    return h;
}

// Compiles both kernels (Zinc compiles on first launch) so the timed spin
// below does not include a compile.
static void warm_up(void)
{
    sync_buf *b = new_buf();
    CK(cudaMemset(&b->flag, 1, sizeof(int)));
    wait_flag<<<1, 32>>>(&b->flag, &b->started, &b->out_a, &b->done, SPIN_NS);
    set_flag<<<1, 32>>>(&b->flag, &b->started, &b->done, &b->out_b, SPIN_NS);
    step<<<1, 32>>>((unsigned *)&b->pad, 1, 0);
    step_shared<<<1, 32>>>((unsigned *)&b->pad, 1, 0);
    busy<<<1, 4>>>((unsigned *)&b->flag, 1);
    CK_LAUNCH();
    CK(cudaFree(b));
}

// A on stream 1 spins until B on stream 2 sets the flag; B waits for A to
// have started, so whichever order a serialising implementation chose, one
// of the two would give up.
static void test_overlap(unsigned stream_flags)
{
    cudaStream_t s1, s2;
    CK(cudaStreamCreateWithFlags(&s1, stream_flags));
    CK(cudaStreamCreateWithFlags(&s2, stream_flags));
    sync_buf *b = new_buf();
    wait_flag<<<1, 64, 0, s1>>>(&b->flag, &b->started, &b->out_a, &b->done, SPIN_NS);
    CK(cudaGetLastError());
    set_flag<<<1, 64, 0, s2>>>(&b->flag, &b->started, &b->done, &b->out_b, SPIN_NS);
    CK(cudaGetLastError());
    CK(cudaStreamSynchronize(s2));
    CK(cudaStreamSynchronize(s1));
    sync_buf h = read_buf(b);
    if (h.out_a != 1)
        zt_fail("overlap (stream flags %u): kernel A on stream 1 never saw the flag kernel B "
                "on stream 2 sets (the kernels were serialised)", stream_flags);
    if (h.out_b != 1)
        zt_fail("overlap (stream flags %u): kernel B saw kernel A %s", stream_flags,
                h.out_b & 2 ? "finished" : "not started");
    CK(cudaFree(b));
    CK(cudaStreamDestroy(s1));
    CK(cudaStreamDestroy(s2));
}

// Many small grids on 4 streams, each stream an ordered chain (plain and
// shared-memory steps alternating) checked against the same chain on the
// CPU.
static void test_many_small(void)
{
    const int ns = 4, n = 3000, steps = 60;
    cudaStream_t s[ns];
    unsigned *d[ns], *h[ns];
    for (int i = 0; i < ns; i++) {
        CK(cudaStreamCreate(&s[i]));
        CK(cudaMalloc(&d[i], n * sizeof(unsigned)));
        CK(cudaMallocHost(&h[i], n * sizeof(unsigned)));
        for (int j = 0; j < n; j++)
            h[i][j] = 0xdeadbeefu;   // poison: overwritten by the copy back
    }
    unsigned *init = (unsigned *)malloc(n * sizeof(unsigned));
    for (int j = 0; j < n; j++)
        init[j] = zt_rand();
    for (int i = 0; i < ns; i++)
        CK(cudaMemcpyAsync(d[i], init, n * sizeof(unsigned), cudaMemcpyHostToDevice, s[i]));
    for (int k = 0; k < steps; k++)
        for (int i = 0; i < ns; i++) {
            int blocks = 1 + (k + i) % 5;          // 1..5 blocks: small grids
            int threads = 64 << ((k + 2 * i) % 3);  // 64, 128, 256
            unsigned add = (unsigned)(k * 131 + i * 7 + 1);
            if ((k + i) % 2)
                step<<<blocks, threads, 0, s[i]>>>(d[i], n, add);
            else
                step_shared<<<blocks, threads, 0, s[i]>>>(d[i], n, add);
            CK(cudaGetLastError());
        }
    for (int i = 0; i < ns; i++)
        CK(cudaMemcpyAsync(h[i], d[i], n * sizeof(unsigned), cudaMemcpyDeviceToHost, s[i]));
    CK(cudaDeviceSynchronize());
    for (int i = 0; i < ns; i++) {
        long bad = 0;
        for (int j = 0; j < n; j++) {
            unsigned x = init[j];
            for (int k = 0; k < steps; k++)
                x = x * 3u + (unsigned)(k * 131 + i * 7 + 1);
            if (h[i][j] != x && bad++ < 3)
                zt_fail("many small grids: stream %d x[%d] = %u, expected %u", i, j, h[i][j], x);
        }
    }
    free(init);
    for (int i = 0; i < ns; i++) {
        CK(cudaFree(d[i]));
        CK(cudaFreeHost(h[i]));
        CK(cudaStreamDestroy(s[i]));
    }
}

// A kernel on the legacy stream waits for a blocking stream's kernel (and
// the next kernel of that stream waits for it); with a non-blocking
// stream the two overlap.
static void test_legacy(void)
{
    cudaStream_t s1;
    CK(cudaStreamCreate(&s1));   // blocking
    sync_buf *b = new_buf();
    int *after;
    CK(cudaMalloc(&after, sizeof(int)));
    CK(cudaMemset(after, 0xff, sizeof(int)));
    CK(cudaDeviceSynchronize());
    wait_flag<<<1, 32, 0, s1>>>(&b->flag, &b->started, &b->out_a, &b->done, SHORT_SPIN_NS);
    set_flag<<<1, 32, 0, 0>>>(&b->flag, &b->started, &b->done, &b->out_b, SPIN_NS); // legacy
    wait_flag<<<1, 32, 0, s1>>>(&b->flag, &b->started, after, &b->pad, 0);
    CK(cudaGetLastError());
    CK(cudaStreamSynchronize(s1));
    sync_buf h = read_buf(b);
    int h_after = -1;
    CK(cudaMemcpy(&h_after, after, sizeof(int), cudaMemcpyDeviceToHost));
    if (h.out_a != 0)
        zt_fail("legacy: the legacy stream's kernel ran while a blocking stream's kernel ran");
    if (h.out_b != 3)
        zt_fail("legacy: the legacy stream's kernel started before the blocking stream's "
                "earlier kernel finished (saw %d)", h.out_b);
    if (h_after != 1)
        zt_fail("legacy: a blocking stream's kernel ran before the legacy kernel launched "
                "ahead of it (saw %d)", h_after);
    CK(cudaFree(b));

    cudaStream_t nb;
    CK(cudaStreamCreateWithFlags(&nb, cudaStreamNonBlocking));
    b = new_buf();
    wait_flag<<<1, 32, 0, nb>>>(&b->flag, &b->started, &b->out_a, &b->done, SPIN_NS);
    set_flag<<<1, 32, 0, 0>>>(&b->flag, &b->started, &b->done, &b->out_b, SPIN_NS);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    h = read_buf(b);
    if (h.out_a != 1 || h.out_b != 1)
        zt_fail("legacy: a non-blocking stream's kernel did not overlap the legacy stream's "
                "(saw %d, %d)", h.out_a, h.out_b);
    CK(cudaFree(b));
    CK(cudaFree(after));
    CK(cudaStreamDestroy(nb));
    CK(cudaStreamDestroy(s1));
}

static double clock_s(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

// N one-block kernels round-robin on `ns` streams: wall seconds, and the
// process's CPU seconds over that time in *cpu (CPU / wall is how many
// kernels ran at once on average, whatever else loads the machine).
static double bench_once(int n, int ns, unsigned *d, cudaStream_t *s, int iters, double *cpu)
{
    CK(cudaDeviceSynchronize());
    double t0 = clock_s(CLOCK_MONOTONIC), c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
    for (int k = 0; k < n; k++)
        busy<<<1, 128, 0, s[k % ns]>>>(d + (size_t)(k % ns) * 128, iters);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    *cpu = clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
    return clock_s(CLOCK_MONOTONIC) - t0;
}

static void bench(int n)
{
    cudaStream_t s[4];
    unsigned *d;
    CK(cudaMalloc(&d, 4 * 128 * sizeof(unsigned)));
    CK(cudaMemset(d, 0, 4 * 128 * sizeof(unsigned)));
    for (int i = 0; i < 4; i++)
        CK(cudaStreamCreate(&s[i]));
    const int iters[2] = {0, 200000};
    for (int w = 0; w < 2; w++) {
        double c1, c4;
        bench_once(8, 4, d, s, iters[w], &c1);  // warm (compile, threads)
        double one = 1e30, four = 1e30, p1 = 0, p4 = 0;    // best of 5, interleaved
        for (int r = 0; r < 5; r++) {
            double t1 = bench_once(n, 1, d, s, iters[w], &c1);
            double t4 = bench_once(n, 4, d, s, iters[w], &c4);
            if (t1 < one)
                one = t1, p1 = c1 / t1;
            if (t4 < four)
                four = t4, p4 = c4 / t4;
        }
        printf("bench: %d one-block kernels (128 threads, %d iterations): 1 stream %.1f ms "
               "(CPU/wall %.2f), 4 streams %.1f ms (CPU/wall %.2f): %.2fx\n", n, iters[w],
               one * 1e3, p1, four * 1e3, p4, one / four);
    }
    // kernels of 1 ms of wall-clock time each
    spin_ns<<<1, 32, 0, s[0]>>>(1000);
    CK(cudaDeviceSynchronize());
    for (int ns = 1; ns <= 4; ns *= 4) {
        double best = 1e30;
        for (int r = 0; r < 3; r++) {
            CK(cudaDeviceSynchronize());
            double t0 = clock_s(CLOCK_MONOTONIC);
            for (int k = 0; k < n; k++)
                spin_ns<<<1, 32, 0, s[k % ns]>>>(1000000);
            CK(cudaGetLastError());
            CK(cudaDeviceSynchronize());
            double t = clock_s(CLOCK_MONOTONIC) - t0;
            best = t < best ? t : best;
        }
        printf("bench: %d one-block kernels of 1 ms (globaltimer spin) on %d stream%s: %.1f ms\n",
               n, ns, ns > 1 ? "s" : "", best * 1e3);
    }
    for (int i = 0; i < 4; i++)
        CK(cudaStreamDestroy(s[i]));
    CK(cudaFree(d));
}

int main(int argc, char **argv)
{
    zt_begin("concurrent_kernels");
    if (argc > 1 && strcmp(argv[1], "bench") == 0) {
        bench(argc > 2 ? atoi(argv[2]) : 100);
        return 0;
    }
    warm_up();
    test_overlap(cudaStreamDefault);
    test_overlap(cudaStreamNonBlocking);
    test_many_small();
    test_legacy();
    return zt_finish();
}
