// libcu_atomic: libcu++'s cuda::atomic_ref / cuda::std::atomic on int,
// unsigned long long, float and double at block, device and system scope
// (fetch_add/sub/and/or/xor/min/max, exchange, compare_exchange_strong and
// _weak, load/store with memory orders), cuda::std::atomic_flag as a lock,
// cuda::std::latch and cuda::std::counting_semaphore in device code. Results are order-independent
// (sums of integer-valued floats, bit ops, extremes) or checked as
// permutations (every value an exchange returns is seen exactly once).
#include "zn_test.h"
#include <cuda/atomic>
#include <cuda/std/atomic>
#include <cuda/std/latch>
#include <cuda/std/semaphore>

#define NT 256
#define NB 8
#define N (NT * NB)

// Order-independent totals over N inputs, 13 slots of each type.
struct totals {
    int i[8];                    // add, sub, and, or, xor, min, max, cas-add
    unsigned long long u[6];     // add, and, or, xor, min, max
    float f[4];                  // add, sub, min, max
    double d[3];                 // add, min, max
};

__device__ cuda::std::atomic<int> g_counter; // device scope, default order

__global__ void atomics_device(const int *in, totals *t)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = in[i];
    unsigned long long u = (unsigned long long)(unsigned)v * 0x10001ull + ((unsigned long long)i << 40);
    using cuda::thread_scope_device;
    using cuda::thread_scope_system;
    cuda::atomic_ref<int, thread_scope_device> ia(t->i[0]), is(t->i[1]), iand(t->i[2]),
        ior(t->i[3]), ixor(t->i[4]), imin(t->i[5]), imax(t->i[6]);
    ia.fetch_add(v, cuda::std::memory_order_relaxed);
    is.fetch_sub(v);
    iand.fetch_and(v | (1 << (i % 31)), cuda::std::memory_order_acq_rel);
    ior.fetch_or(v & 0x0f0f0f0f, cuda::std::memory_order_release);
    ixor.fetch_xor(v, cuda::std::memory_order_seq_cst);
    imin.fetch_min(v);
    imax.fetch_max(v);
    // a CAS loop (strong), adding 3 * v
    cuda::atomic_ref<int, thread_scope_system> icas(t->i[7]);
    int old = icas.load(cuda::std::memory_order_relaxed);
    while (!icas.compare_exchange_strong(old, old + 3 * v, cuda::std::memory_order_acq_rel,
                                         cuda::std::memory_order_relaxed))
        ;
    cuda::atomic_ref<unsigned long long, thread_scope_device> ua(t->u[0]), uand(t->u[1]),
        uor(t->u[2]), uxor(t->u[3]), umin(t->u[4]), umax(t->u[5]);
    ua.fetch_add(u);
    uand.fetch_and(~(1ull << (i % 64)));
    uor.fetch_or(1ull << (i % 61));
    uxor.fetch_xor(u);
    umin.fetch_min(u);
    umax.fetch_max(u);
    float fv = (float)(v % 1000);
    cuda::atomic_ref<float, thread_scope_device> fa(t->f[0]), fs(t->f[1]), fmn(t->f[2]), fmx(t->f[3]);
    fa.fetch_add(fv);
    fs.fetch_sub(fv * 0.5f);
    fmn.fetch_min(fv * 0.25f);
    fmx.fetch_max(fv * 0.25f);
    double dv = (double)v * 0.125;
    cuda::atomic_ref<double, thread_scope_system> da(t->d[0]), dmn(t->d[1]), dmx(t->d[2]);
    da.fetch_add(dv);
    dmn.fetch_min(dv);
    dmx.fetch_max(dv);
    g_counter.fetch_add(1);
}

// exchange: slot s (one per block) receives every thread's id; the values
// the exchanges return plus the final value are a permutation of the ids
// and the initial -1. A weak CAS loop takes a ticket per thread.
__global__ void atomics_exchange(int *slot, int *got, unsigned *tickets, int *ticket_of)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    cuda::atomic_ref<int, cuda::thread_scope_device> s(slot[blockIdx.x]);
    got[i] = s.exchange(i, cuda::std::memory_order_acq_rel);
    cuda::atomic_ref<unsigned, cuda::thread_scope_device> tk(*tickets);
    unsigned cur = tk.load(cuda::std::memory_order_acquire);
    while (!tk.compare_exchange_weak(cur, cur + 1))
        ;
    ticket_of[i] = (int)cur;
}

// Block scope in shared memory: per-block totals, written out by thread 0
// after the block's barrier; store/load with release/acquire orders.
__global__ void atomics_block(const int *in, int *out, double *outd)
{
    __shared__ int s_sum, s_max;
    __shared__ unsigned long long s_or;
    __shared__ double s_d;
    __shared__ int s_slot[NT];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    cuda::atomic_ref<int, cuda::thread_scope_block> sum(s_sum), mx(s_max);
    cuda::atomic_ref<unsigned long long, cuda::thread_scope_block> o(s_or);
    cuda::atomic_ref<double, cuda::thread_scope_block> d(s_d);
    if (threadIdx.x == 0) {
        sum.store(0, cuda::std::memory_order_relaxed);
        mx.store(-2147483647 - 1);
        o.store(0);
        d.store(0.0);
    }
    __syncthreads();
    sum.fetch_add(in[i]);
    mx.fetch_max(in[i]);
    o.fetch_or(1ull << (in[i] & 63));
    d.fetch_add(in[i] * 0.5);
    cuda::atomic_ref<int, cuda::thread_scope_block> mine(s_slot[threadIdx.x]);
    mine.store(in[i] * 3, cuda::std::memory_order_release);
    __syncthreads();
    cuda::atomic_ref<int, cuda::thread_scope_block> other(s_slot[NT - 1 - threadIdx.x]);
    out[NB * 3 + i] = other.load(cuda::std::memory_order_acquire);
    if (threadIdx.x == 0) {
        out[blockIdx.x * 3 + 0] = sum.load(cuda::std::memory_order_acquire);
        out[blockIdx.x * 3 + 1] = mx.load();
        out[blockIdx.x * 3 + 2] = (int)(o.load() ^ (o.load() >> 32));
        outd[blockIdx.x] = d.load();
    }
}

// atomic_flag as a spin lock (one thread per block takes it, so no two
// lanes of a warp contend): a non-atomic read-modify-write of *counter
// under the lock. A latch counts down every thread of the block.
__global__ void flag_lock(cuda::std::atomic_flag *lock, int *counter, int *log, int *latch_out)
{
    __shared__ cuda::std::latch *lat;
    __shared__ alignas(cuda::std::latch) unsigned char lat_mem[sizeof(cuda::std::latch)];
    if (threadIdx.x == 0) {
        lat = new (lat_mem) cuda::std::latch(blockDim.x);
        while (lock->test_and_set(cuda::std::memory_order_acquire))
            ;
        int c = *(volatile int *)counter;
        log[c] = blockIdx.x;
        *(volatile int *)counter = c + 1;
        lock->clear(cuda::std::memory_order_release);
    }
    __syncthreads();
    lat->count_down();
    __syncthreads();
    if (threadIdx.x == 0)
        latch_out[blockIdx.x] = lat->try_wait() ? 1 : 0;
}

// counting_semaphore<2> in global memory: one thread per block holds it
// while it counts itself in; at most 2 holders at once, and the count is
// back to 2 at the end (two try_acquire succeed, a third fails).
using sem2 = cuda::std::counting_semaphore<2>;
__global__ void sem_init(sem2 *s) { new (s) sem2(2); }
__global__ void sem_use(sem2 *s, int *inside, int *max_inside, int *count)
{
    if (threadIdx.x != 0)
        return;
    s->acquire();
    int c = atomicAdd(inside, 1) + 1;
    atomicMax(max_inside, c);
    atomicAdd(count, 1);
    atomicSub(inside, 1);
    s->release();
}
__global__ void sem_final(sem2 *s, int *res)
{
    res[0] = s->try_acquire();
    res[1] = s->try_acquire();
    res[2] = s->try_acquire();
}

int main()
{
    zt_begin("libcu_atomic");
    int *in = (int *)malloc(N * sizeof(int));
    for (int i = 0; i < N; i++)
        in[i] = (int)(zt_rand() % 200001) - 100000;
    int *din;
    CK(cudaMalloc(&din, N * sizeof(int)));
    CK(cudaMemcpy(din, in, N * sizeof(int), cudaMemcpyHostToDevice));

    // ---- device/system scope totals
    totals init, want, got;
    memset(&init, 0, sizeof init);
    init.i[2] = -1;
    init.i[5] = 2147483647;
    init.i[6] = -2147483647 - 1;
    init.u[1] = ~0ull;
    init.u[4] = ~0ull;
    init.f[2] = 1e30f;
    init.f[3] = -1e30f;
    init.d[1] = 1e300;
    init.d[2] = -1e300;
    want = init;
    for (int i = 0; i < N; i++) {
        int v = in[i];
        unsigned long long u = (unsigned long long)(unsigned)v * 0x10001ull + ((unsigned long long)i << 40);
        want.i[0] = (int)((unsigned)want.i[0] + (unsigned)v);
        want.i[1] = (int)((unsigned)want.i[1] - (unsigned)v);
        want.i[2] &= v | (1 << (i % 31));
        want.i[3] |= v & 0x0f0f0f0f;
        want.i[4] ^= v;
        want.i[5] = v < want.i[5] ? v : want.i[5];
        want.i[6] = v > want.i[6] ? v : want.i[6];
        want.i[7] = (int)((unsigned)want.i[7] + 3u * (unsigned)v);
        want.u[0] += u;
        want.u[1] &= ~(1ull << (i % 64));
        want.u[2] |= 1ull << (i % 61);
        want.u[3] ^= u;
        want.u[4] = u < want.u[4] ? u : want.u[4];
        want.u[5] = u > want.u[5] ? u : want.u[5];
        float fv = (float)(v % 1000);
        want.f[0] += fv; // integers below 2^24: exact in any order
        want.f[1] -= fv * 0.5f;
        want.f[2] = fv * 0.25f < want.f[2] ? fv * 0.25f : want.f[2];
        want.f[3] = fv * 0.25f > want.f[3] ? fv * 0.25f : want.f[3];
        double dv = (double)v * 0.125;
        want.d[0] += dv; // multiples of 1/8 far below 2^50: exact
        want.d[1] = dv < want.d[1] ? dv : want.d[1];
        want.d[2] = dv > want.d[2] ? dv : want.d[2];
    }
    totals *dt;
    CK(cudaMalloc(&dt, sizeof(totals)));
    CK(cudaMemcpy(dt, &init, sizeof init, cudaMemcpyHostToDevice));
    int zero = 0;
    CK(cudaMemcpyToSymbol(g_counter, &zero, sizeof zero));
    atomics_device<<<NB, NT>>>(din, dt);
    CK_LAUNCH();
    CK(cudaMemcpy(&got, dt, sizeof got, cudaMemcpyDeviceToHost));
    for (int k = 0; k < 8; k++)
        if (got.i[k] != want.i[k])
            zt_fail("int op %d: %d, want %d", k, got.i[k], want.i[k]);
    for (int k = 0; k < 6; k++)
        if (got.u[k] != want.u[k])
            zt_fail("u64 op %d: %llx, want %llx", k, got.u[k], want.u[k]);
    for (int k = 0; k < 4; k++)
        if (got.f[k] != want.f[k])
            zt_fail("float op %d: %g, want %g", k, got.f[k], want.f[k]);
    for (int k = 0; k < 3; k++)
        if (got.d[k] != want.d[k])
            zt_fail("double op %d: %.17g, want %.17g", k, got.d[k], want.d[k]);
    int cnt = -1;
    CK(cudaMemcpyFromSymbol(&cnt, g_counter, sizeof cnt));
    if (cnt != N)
        zt_fail("cuda::std::atomic counter %d, want %d", cnt, N);

    // ---- exchange permutation and weak-CAS tickets
    int *dslot, *dgot, *dtick_of;
    unsigned *dtick;
    CK(cudaMalloc(&dslot, NB * sizeof(int)));
    CK(cudaMalloc(&dgot, N * sizeof(int)));
    CK(cudaMalloc(&dtick_of, N * sizeof(int)));
    CK(cudaMalloc(&dtick, sizeof(unsigned)));
    POISON(dslot, NB * sizeof(int)); // -1: the initial value of each slot
    POISON(dgot, N * sizeof(int));
    POISON(dtick_of, N * sizeof(int));
    CK(cudaMemset(dtick, 0, sizeof(unsigned)));
    atomics_exchange<<<NB, NT>>>(dslot, dgot, dtick, dtick_of);
    CK_LAUNCH();
    int *hgot = (int *)malloc(N * sizeof(int)), *htick = (int *)malloc(N * sizeof(int));
    int slots[NB];
    unsigned tick_end = 0;
    CK(cudaMemcpy(hgot, dgot, N * sizeof(int), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(htick, dtick_of, N * sizeof(int), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(slots, dslot, sizeof slots, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(&tick_end, dtick, sizeof tick_end, cudaMemcpyDeviceToHost));
    char *seen = (char *)calloc(N + 1, 1), *tseen = (char *)calloc(N, 1);
    for (int b = 0; b < NB; b++) {
        // block b's values: its returned olds and the slot's final value
        for (int k = -1; k < NT; k++) {
            int v = k < 0 ? slots[b] : hgot[b * NT + k];
            int ok = v == -1 || (v >= b * NT && v < (b + 1) * NT);
            int key = v == -1 ? N : v;
            if (!ok || (seen[key] && v != -1))
                zt_fail("exchange block %d: value %d out of place or repeated", b, v);
            else
                seen[key]++;
        }
    }
    if (seen[N] != NB)
        zt_fail("exchange: initial value seen %d times, want %d", seen[N], NB);
    for (int i = 0; i < N; i++) {
        if (htick[i] < 0 || htick[i] >= N || tseen[htick[i]]++)
            zt_fail("ticket of thread %d: %d bad or repeated", i, htick[i]);
    }
    if (tick_end != N)
        zt_fail("tickets taken %u, want %d", tick_end, N);

    // ---- block scope in shared memory
    int *dout;
    double *doutd;
    CK(cudaMalloc(&dout, (NB * 3 + N) * sizeof(int)));
    CK(cudaMalloc(&doutd, NB * sizeof(double)));
    POISON(dout, (NB * 3 + N) * sizeof(int));
    POISON(doutd, NB * sizeof(double));
    atomics_block<<<NB, NT>>>(din, dout, doutd);
    CK_LAUNCH();
    int *hout = (int *)malloc((NB * 3 + N) * sizeof(int));
    double houtd[NB];
    CK(cudaMemcpy(hout, dout, (NB * 3 + N) * sizeof(int), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(houtd, doutd, sizeof houtd, cudaMemcpyDeviceToHost));
    for (int b = 0; b < NB; b++) {
        int s = 0, m = -2147483647 - 1;
        unsigned long long o = 0;
        double d = 0;
        for (int k = 0; k < NT; k++) {
            int v = in[b * NT + k];
            s += v;
            m = v > m ? v : m;
            o |= 1ull << (v & 63);
            d += v * 0.5;
        }
        if (hout[b * 3] != s || hout[b * 3 + 1] != m || hout[b * 3 + 2] != (int)(o ^ (o >> 32)))
            zt_fail("block %d: sum %d max %d or %x, want %d %d %x", b, hout[b * 3], hout[b * 3 + 1],
                    hout[b * 3 + 2], s, m, (int)(o ^ (o >> 32)));
        if (houtd[b] != d)
            zt_fail("block %d: double sum %.17g, want %.17g", b, houtd[b], d);
        for (int k = 0; k < NT; k++)
            if (hout[NB * 3 + b * NT + k] != in[b * NT + NT - 1 - k] * 3)
                zt_fail("block %d: slot load %d = %d, want %d", b, k, hout[NB * 3 + b * NT + k],
                        in[b * NT + NT - 1 - k] * 3);
    }

    // ---- atomic_flag lock and latch
    cuda::std::atomic_flag *dlock;
    int *dcounter, *dlog, *dlatch;
    CK(cudaMalloc(&dlock, sizeof *dlock));
    CK(cudaMemset(dlock, 0, sizeof *dlock));
    CK(cudaMalloc(&dcounter, sizeof(int)));
    CK(cudaMemset(dcounter, 0, sizeof(int)));
    CK(cudaMalloc(&dlog, 64 * sizeof(int)));
    CK(cudaMalloc(&dlatch, 64 * sizeof(int)));
    POISON(dlog, 64 * sizeof(int));
    POISON(dlatch, 64 * sizeof(int));
    flag_lock<<<64, 128>>>(dlock, dcounter, dlog, dlatch);
    CK_LAUNCH();
    int hcounter = 0, hlog[64], hlatch[64];
    char bseen[64] = {0};
    CK(cudaMemcpy(&hcounter, dcounter, sizeof(int), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(hlog, dlog, sizeof hlog, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(hlatch, dlatch, sizeof hlatch, cudaMemcpyDeviceToHost));
    if (hcounter != 64)
        zt_fail("locked counter %d, want 64", hcounter);
    for (int k = 0; k < 64; k++) {
        if (hlog[k] < 0 || hlog[k] >= 64 || bseen[hlog[k]]++)
            zt_fail("lock log[%d] = %d bad or repeated", k, hlog[k]);
        if (hlatch[k] != 1)
            zt_fail("latch of block %d not released (%d)", k, hlatch[k]);
    }

    // ---- counting_semaphore
    sem2 *dsem;
    int *dsw; // inside, max_inside, count, 3 try_acquire results
    CK(cudaMalloc(&dsem, sizeof(sem2)));
    CK(cudaMalloc(&dsw, 6 * sizeof(int)));
    CK(cudaMemset(dsw, 0, 3 * sizeof(int)));
    POISON(dsw + 3, 3 * sizeof(int));
    sem_init<<<1, 1>>>(dsem);
    CK_LAUNCH();
    sem_use<<<64, 64>>>(dsem, dsw, dsw + 1, dsw + 2);
    CK_LAUNCH();
    sem_final<<<1, 1>>>(dsem, dsw + 3);
    CK_LAUNCH();
    int hs[6];
    CK(cudaMemcpy(hs, dsw, sizeof hs, cudaMemcpyDeviceToHost));
    if (hs[0] != 0 || hs[1] < 1 || hs[1] > 2 || hs[2] != 64)
        zt_fail("semaphore: inside %d, max inside %d (1..2), count %d (64)", hs[0], hs[1], hs[2]);
    if (hs[3] != 1 || hs[4] != 1 || hs[5] != 0)
        zt_fail("semaphore: try_acquire x3 = %d %d %d, want 1 1 0", hs[3], hs[4], hs[5]);
    CK(cudaFree(dsem));
    CK(cudaFree(dsw));

    CK(cudaFree(din));
    CK(cudaFree(dt));
    CK(cudaFree(dslot));
    CK(cudaFree(dgot));
    CK(cudaFree(dtick_of));
    CK(cudaFree(dtick));
    CK(cudaFree(dout));
    CK(cudaFree(doutd));
    CK(cudaFree(dlock));
    CK(cudaFree(dcounter));
    CK(cudaFree(dlog));
    CK(cudaFree(dlatch));
    free(in);
    free(hgot);
    free(htick);
    free(seen);
    free(tseen);
    free(hout);
    return zt_finish();
}
