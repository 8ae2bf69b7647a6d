// histogram: 256-bin histogram with shared-memory atomics merged by global
// atomicAdd, then every other atomic on 32- and 64-bit integers and floats,
// each checked exactly against a result that does not depend on the order
// in which threads arrive.
#include "zn_test.h"

#define BINS 256

__global__ void histo(const unsigned char *in, unsigned *hist, int n)
{
    __shared__ unsigned sh[BINS];
    for (int b = threadIdx.x; b < BINS; b += blockDim.x)
        sh[b] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        atomicAdd(&sh[in[i]], 1u);
    __syncthreads();
    for (int b = threadIdx.x; b < BINS; b += blockDim.x)
        atomicAdd(&hist[b], sh[b]);
}

struct acc {
    int imax, imin;
    unsigned umax, umin;
    unsigned long long u64max, u64add;
    long long s64min, s64max;
    unsigned and32, or32, xor32;
    unsigned long long and64, or64, xor64;
    float fsum;
    double dsum;
    unsigned inc, cas_count;
    unsigned long long cas64_count;
    int sub;
};

__global__ void many_atomics(const int *in, acc *a, int *exch_slot, int *exch_old, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int v = in[i];
    unsigned u = (unsigned)v * 2654435761u;
    unsigned long long u64 = (unsigned long long)u << 21 | (unsigned)i;
    atomicMax(&a->imax, v);
    atomicMin(&a->imin, v);
    atomicMax(&a->umax, u);
    atomicMin(&a->umin, u);
    atomicMax(&a->u64max, u64);
    atomicAdd(&a->u64add, u64);
    atomicMin(&a->s64min, (long long)v * 1000003LL);
    atomicMax(&a->s64max, (long long)v * 1000003LL);
    atomicAnd(&a->and32, u | 0x80000001u);
    atomicOr(&a->or32, u & 0x0ff00ff0u);
    atomicXor(&a->xor32, u);
    atomicAnd(&a->and64, u64 | 0xffff0000ffff0000ull);
    atomicOr(&a->or64, u64 & 0x00ff00ff00ff00ffull);
    atomicXor(&a->xor64, u64);
    atomicAdd(&a->fsum, (float)(v & 15) * 0.25f);  // exact in any order
    atomicAdd(&a->dsum, (double)v * 0.5);
    atomicInc(&a->inc, 9u);                         // wraps 9 -> 0
    atomicSub(&a->sub, v);
    // Increments built from compare-and-swap loops.
    unsigned old = a->cas_count, seen;
    do {
        seen = old;
        old = atomicCAS(&a->cas_count, seen, seen + 1);
    } while (old != seen);
    unsigned long long old64 = a->cas64_count, seen64;
    do {
        seen64 = old64;
        old64 = atomicCAS(&a->cas64_count, seen64, seen64 + 3);
    } while (old64 != seen64);
    // 64 threads share each exchange slot.
    exch_old[i] = atomicExch(&exch_slot[i / 64], i);
}

int main()
{
    zt_begin("histogram");
    const int n = (1 << 20) + 333;
    unsigned char *bytes = (unsigned char *)malloc(n);
    for (int i = 0; i < n; i++)
        bytes[i] = (unsigned char)(zt_rand() % 7 == 0 ? 42 : zt_rand());  // one hot bin
    unsigned char *dbytes;
    unsigned *dhist, hist[BINS], want[BINS] = {0};
    CK(cudaMalloc(&dbytes, n));
    CK(cudaMalloc(&dhist, sizeof hist));
    CK(cudaMemcpy(dbytes, bytes, n, cudaMemcpyHostToDevice));
    CK(cudaMemset(dhist, 0, sizeof hist));
    histo<<<120, 256>>>(dbytes, dhist, n);
    CK_LAUNCH();
    CK(cudaMemcpy(hist, dhist, sizeof hist, cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++)
        want[bytes[i]]++;
    for (int b = 0; b < BINS; b++)
        if (hist[b] != want[b])
            zt_fail("bin %d = %u, want %u", b, hist[b], want[b]);

    const int m = 100000;
    int *vals = (int *)malloc(m * sizeof(int));
    for (int i = 0; i < m; i++)
        vals[i] = (int)zt_rand();
    acc init, got, w;
    memset(&init, 0, sizeof init);
    init.imax = -2147483647 - 1; init.imin = 2147483647;
    init.umax = 0; init.umin = 0xffffffffu;
    init.u64max = 0; init.u64add = 12345;
    init.s64min = 0x7fffffffffffffffll; init.s64max = -0x7fffffffffffffffll - 1;
    init.and32 = 0xffffffffu; init.or32 = 0; init.xor32 = 0xdeadbeefu;
    init.and64 = ~0ull; init.or64 = 0; init.xor64 = 0x0123456789abcdefull;
    init.fsum = 1.0f; init.dsum = -3.0; init.inc = 0; init.cas_count = 7;
    init.cas64_count = 1ull << 40; init.sub = 1000;
    w = init;
    for (int i = 0; i < m; i++) {
        int v = vals[i];
        unsigned u = (unsigned)v * 2654435761u;
        unsigned long long u64 = (unsigned long long)u << 21 | (unsigned)i;
        long long s64 = (long long)v * 1000003LL;
        if (v > w.imax) w.imax = v;
        if (v < w.imin) w.imin = v;
        if (u > w.umax) w.umax = u;
        if (u < w.umin) w.umin = u;
        if (u64 > w.u64max) w.u64max = u64;
        w.u64add += u64;
        if (s64 < w.s64min) w.s64min = s64;
        if (s64 > w.s64max) w.s64max = s64;
        w.and32 &= u | 0x80000001u;
        w.or32 |= u & 0x0ff00ff0u;
        w.xor32 ^= u;
        w.and64 &= u64 | 0xffff0000ffff0000ull;
        w.or64 |= u64 & 0x00ff00ff00ff00ffull;
        w.xor64 ^= u64;
        w.fsum += (float)(v & 15) * 0.25f;
        w.dsum += (double)v * 0.5;
        w.inc = w.inc >= 9u ? 0 : w.inc + 1;
        w.sub = (int)((unsigned)w.sub - (unsigned)v);
        w.cas_count++;
        w.cas64_count += 3;
    }
    acc *da;
    int *dvals, *dslot, *dold;
    int nslots = (m + 63) / 64;
    CK(cudaMalloc(&da, sizeof(acc)));
    CK(cudaMalloc(&dvals, m * sizeof(int)));
    CK(cudaMalloc(&dslot, nslots * sizeof(int)));
    CK(cudaMalloc(&dold, m * sizeof(int)));
    CK(cudaMemcpy(da, &init, sizeof init, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dvals, vals, m * sizeof(int), cudaMemcpyHostToDevice));
    CK(cudaMemset(dslot, 0xFF, nslots * sizeof(int)));   // every slot starts at -1
    POISON(dold, m * sizeof(int));
    many_atomics<<<(m + 127) / 128, 128>>>(dvals, da, dslot, dold, m);
    CK_LAUNCH();
    CK(cudaMemcpy(&got, da, sizeof got, cudaMemcpyDeviceToHost));
#define EQ(f, fmt) if (got.f != w.f) zt_fail(#f " = " fmt ", want " fmt, got.f, w.f)
    EQ(imax, "%d"); EQ(imin, "%d"); EQ(umax, "%u"); EQ(umin, "%u");
    EQ(u64max, "%llu"); EQ(u64add, "%llu"); EQ(s64min, "%lld"); EQ(s64max, "%lld");
    EQ(and32, "%08x"); EQ(or32, "%08x"); EQ(xor32, "%08x");
    EQ(and64, "%016llx"); EQ(or64, "%016llx"); EQ(xor64, "%016llx");
    EQ(fsum, "%a"); EQ(dsum, "%a"); EQ(inc, "%u"); EQ(sub, "%d");
    EQ(cas_count, "%u"); EQ(cas64_count, "%llu");
#undef EQ

    // Exchange: per slot, the values seen (old values + final value) are
    // exactly {-1} and the ids of the slot's threads, each once.
    int *slot = (int *)malloc(nslots * sizeof(int)), *old = (int *)malloc(m * sizeof(int));
    CK(cudaMemcpy(slot, dslot, nslots * sizeof(int), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(old, dold, m * sizeof(int), cudaMemcpyDeviceToHost));
    for (int s = 0; s < nslots; s++) {
        int lo = s * 64, hi = lo + 64 < m ? lo + 64 : m;
        unsigned char seen[65] = {0};   // index 64 stands for -1
        int bad = 0;
        for (int i = lo; i <= hi; i++) {
            int v = i < hi ? old[i] : slot[s];
            int k = v == -1 ? 64 : (v >= lo && v < hi ? v - lo : -1);
            if (k < 0 || k > 64 || seen[k]++) bad = 1;
        }
        if (bad || !seen[64])
            zt_fail("atomicExch slot %d: values are not a permutation", s);
    }
    CK(cudaFree(dbytes)); CK(cudaFree(dhist)); CK(cudaFree(da));
    CK(cudaFree(dvals)); CK(cudaFree(dslot)); CK(cudaFree(dold));
    free(bytes); free(vals); free(slot); free(old);
    return zt_finish();
}
