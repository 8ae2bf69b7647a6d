// shared_atomics: every integer atomic and float/double add on __shared__
// variables (Zinc lowers these to plain per-lane read-modify-writes, since
// a block's warps share one worker thread: src/compile/zn_lower_atom.c),
// under divergence and with many lanes on one address, against results
// computed on the CPU that do not depend on the order of arrival. Each
// block has its own inputs and writes its own results.
#include "zn_test.h"

#define THREADS 192   // 6 warps
#define BLOCKS 7

struct res {
    int imax, imin;
    unsigned umax, umin, and32, or32, xor32, add32, inc, dec, sub;
    unsigned long long u64add, u64max, u64min, and64, or64, xor64;
    long long s64min, s64max;
    float fsum;
    double dsum;
    unsigned exch_final;
    unsigned long long exch_old_sum;
    unsigned hist[8];
};

__global__ void shared_atomics(const int *in, res *out)
{
    __shared__ res s;
    int t = threadIdx.x;
    if (t == 0) {
        memset(&s, 0, sizeof s);
        s.imax = -2147483647 - 1; s.imin = 2147483647;
        s.umin = 0xffffffffu; s.and32 = 0xffffffffu;
        s.u64min = ~0ull; s.and64 = ~0ull;
        s.s64min = 0x7fffffffffffffffLL; s.s64max = -0x7fffffffffffffffLL - 1;
        s.dec = 5; s.exch_final = 0xdeadu;
    }
    __syncthreads();
    int v = in[blockIdx.x * THREADS + t];
    unsigned u = (unsigned)v * 2654435761u;
    unsigned long long u64 = (unsigned long long)u << 21 | (unsigned)t;
    if (v & 1) {                       // divergent: only odd inputs
        atomicMax(&s.imax, v);
        atomicMin(&s.imin, v);
        atomicAdd(&s.hist[v & 7], 1u); // lanes collide on 4 bins
    }
    atomicMax(&s.umax, u);
    atomicMin(&s.umin, u);
    atomicAnd(&s.and32, u | 0x80000001u);
    atomicOr(&s.or32, u & 0x0ff00ff0u);
    atomicXor(&s.xor32, u);
    atomicAdd(&s.add32, u);
    atomicSub(&s.sub, (unsigned)t);
    atomicInc(&s.inc, 9u);             // wraps 9 -> 0
    atomicDec(&s.dec, 7u);             // 0 or > 7 -> 7
    atomicAdd(&s.u64add, u64);
    atomicMax(&s.u64max, u64);
    atomicMin(&s.u64min, u64);
    atomicAnd(&s.and64, u64 | 0xffff0000ffff0000ull);
    atomicOr(&s.or64, u64 & 0x00ff00ff00ff00ffull);
    atomicXor(&s.xor64, u64);
    atomicMin(&s.s64min, (long long)v * 1000003LL);
    atomicMax(&s.s64max, (long long)v * 1000003LL);
    atomicAdd(&s.fsum, (float)(v & 15) * 0.25f);  // exact in any order
    atomicAdd(&s.dsum, (double)v * 0.5);
    unsigned old = atomicExch(&s.exch_final, (unsigned)t);
    atomicAdd(&s.exch_old_sum, (unsigned long long)old);
    __syncthreads();
    if (t == 0)
        out[blockIdx.x] = s;
}

int main()
{
    zt_begin("shared_atomics");
    const int n = BLOCKS * THREADS;
    int *h = (int *)malloc(n * sizeof(int));
    uint32_t x = 12345;
    for (int i = 0; i < n; i++) {
        x = x * 1664525u + 1013904223u;
        h[i] = (int)(x >> 8) - (1 << 23);
    }
    int *din;
    res *dout, got[BLOCKS];
    CK(cudaMalloc(&din, n * sizeof(int)));
    CK(cudaMalloc(&dout, sizeof got));
    CK(cudaMemcpy(din, h, n * sizeof(int), cudaMemcpyHostToDevice));
    CK(cudaMemset(dout, 0xa5, sizeof got));   // poison
    shared_atomics<<<BLOCKS, THREADS>>>(din, dout);
    CK_LAUNCH();
    CK(cudaMemcpy(got, dout, sizeof got, cudaMemcpyDeviceToHost));

    for (int b = 0; b < BLOCKS; b++) {
        res w;
        memset(&w, 0, sizeof w);
        w.imax = -2147483647 - 1; w.imin = 2147483647;
        w.umin = 0xffffffffu; w.and32 = 0xffffffffu;
        w.u64min = ~0ull; w.and64 = ~0ull;
        w.s64min = 0x7fffffffffffffffLL; w.s64max = -0x7fffffffffffffffLL - 1;
        w.dec = 5;
        unsigned long long tsum = 0xdeadu;
        for (int t = 0; t < THREADS; t++) {
            int v = h[b * THREADS + t];
            unsigned u = (unsigned)v * 2654435761u;
            unsigned long long u64 = (unsigned long long)u << 21 | (unsigned)t;
            if (v & 1) {
                w.imax = v > w.imax ? v : w.imax;
                w.imin = v < w.imin ? v : w.imin;
                w.hist[v & 7]++;
            }
            w.umax = u > w.umax ? u : w.umax;
            w.umin = u < w.umin ? u : w.umin;
            w.and32 &= u | 0x80000001u;
            w.or32 |= u & 0x0ff00ff0u;
            w.xor32 ^= u;
            w.add32 += u;
            w.sub -= (unsigned)t;
            w.inc = w.inc >= 9u ? 0 : w.inc + 1;
            w.dec = (w.dec == 0 || w.dec > 7u) ? 7u : w.dec - 1;
            w.u64add += u64;
            w.u64max = u64 > w.u64max ? u64 : w.u64max;
            w.u64min = u64 < w.u64min ? u64 : w.u64min;
            w.and64 &= u64 | 0xffff0000ffff0000ull;
            w.or64 |= u64 & 0x00ff00ff00ff00ffull;
            w.xor64 ^= u64;
            long long sv = (long long)v * 1000003LL;
            w.s64min = sv < w.s64min ? sv : w.s64min;
            w.s64max = sv > w.s64max ? sv : w.s64max;
            w.fsum += (float)(v & 15) * 0.25f;
            w.dsum += (double)v * 0.5;
            tsum += (unsigned)t;
        }
        const res *g = &got[b];
#define EQ(f, fmt) if (g->f != w.f) zt_fail("block %d " #f ": got " fmt ", want " fmt, b, g->f, w.f)
        EQ(imax, "%d"); EQ(imin, "%d"); EQ(umax, "%u"); EQ(umin, "%u");
        EQ(and32, "%#x"); EQ(or32, "%#x"); EQ(xor32, "%#x"); EQ(add32, "%u");
        EQ(sub, "%u"); EQ(inc, "%u"); EQ(dec, "%u");
        EQ(u64add, "%llu"); EQ(u64max, "%llu"); EQ(u64min, "%llu");
        EQ(and64, "%#llx"); EQ(or64, "%#llx"); EQ(xor64, "%#llx");
        EQ(s64min, "%lld"); EQ(s64max, "%lld"); EQ(fsum, "%g"); EQ(dsum, "%g");
        for (int k = 0; k < 8; k++)
            if (g->hist[k] != w.hist[k])
                zt_fail("block %d hist[%d]: got %u, want %u", b, k, g->hist[k], w.hist[k]);
#undef EQ
        // exch: the olds and the final value are the initial value and every
        // thread's value, each once
        if (g->exch_final >= THREADS)
            zt_fail("block %d exch final %u is no thread's value", b, g->exch_final);
        else if (g->exch_old_sum + g->exch_final != tsum)
            zt_fail("block %d exch: olds %llu + final %u != %llu", b, g->exch_old_sum,
                    g->exch_final, tsum);
    }
    CK(cudaFree(din));
    CK(cudaFree(dout));
    free(h);
    return zt_finish();
}
