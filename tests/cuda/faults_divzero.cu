// faults_divzero: integer division by zero in a kernel gives PTX's result,
// never SIGFPE: the kernel completes with cudaSuccess. Values checked are
// an H200's (and Zinc's): u/0 = all ones, 32-bit x%0 = x (computed next to
// the division), rem.u64 x%0 = all ones, INT_MIN/-1 = INT_MIN,
// INT_MIN%-1 = 0; s/0 is -1 on the GPU, "unspecified" in PTX: -1 or +1.
#include <limits.h>
#include "faults_common.h"

struct divs {
    unsigned uq, ur;
    int sq, sr, ovq, ovr;
    unsigned long long uq64, ur64;
    long long sq64, ovq64;
};

// Inline PTX: the instructions themselves, not nvcc's 64-bit fast path
// (which divides in 32 bits when both operands fit, so u64 x/0 would read
// 0x00000000ffffffff on any GPU).
__device__ unsigned long long div_u64(unsigned long long a, unsigned long long b)
{
    unsigned long long q;
    asm volatile("div.u64 %0, %1, %2;" : "=l"(q) : "l"(a), "l"(b));
    return q;
}
__device__ unsigned long long rem_u64(unsigned long long a, unsigned long long b)
{
    unsigned long long q;
    asm volatile("rem.u64 %0, %1, %2;" : "=l"(q) : "l"(a), "l"(b));
    return q;
}
__device__ long long div_s64(long long a, long long b)
{
    long long q;
    asm volatile("div.s64 %0, %1, %2;" : "=l"(q) : "l"(a), "l"(b));
    return q;
}

__global__ void divide(const int *num, const int *den, divs *out)
{
    int a = num[threadIdx.x], b = den[threadIdx.x];     // b is 0
    divs r;
    r.uq = (unsigned)a / (unsigned)b;
    r.ur = (unsigned)a % (unsigned)b;
    r.sq = a / b;
    r.sr = a % b;
    int m = num[32], m1 = den[32];                      // INT_MIN, -1
    r.ovq = m / m1;
    r.ovr = m % m1;
    r.uq64 = div_u64((unsigned long long)a, (unsigned long long)b);
    r.ur64 = rem_u64((unsigned long long)(unsigned)a, (unsigned long long)b);
    r.sq64 = div_s64((long long)a, (long long)b);
    r.ovq64 = div_s64(LLONG_MIN, (long long)m1);
    out[threadIdx.x] = r;
}

int main()
{
    int hn[33], hd[33];
    for (int i = 0; i < 32; i++) {
        hn[i] = i * 1000 - 7000;
        hd[i] = 0;
    }
    hn[32] = INT_MIN;
    hd[32] = -1;
    int *dn, *dd;
    divs *dout, out[32];
    FC_CK(cudaMalloc(&dn, sizeof hn));
    FC_CK(cudaMalloc(&dd, sizeof hd));
    FC_CK(cudaMalloc(&dout, sizeof out));
    FC_CK(cudaMemcpy(dn, hn, sizeof hn, cudaMemcpyHostToDevice));
    FC_CK(cudaMemcpy(dd, hd, sizeof hd, cudaMemcpyHostToDevice));
    divide<<<1, 32>>>(dn, dd, dout);
    fc_expect_fault("divide by zero", cudaSuccess);
    FC_CK(cudaMemcpy(out, dout, sizeof out, cudaMemcpyDeviceToHost));
    for (int i = 0; i < 32; i++) {
        const divs *r = &out[i];
        FC_EXPECT(r->uq == 0xFFFFFFFFu, "lane %d: u32 %d/0 = %u", i, hn[i], r->uq);
        FC_EXPECT(r->ur == (unsigned)hn[i], "lane %d: u32 %d%%0 = %u", i, hn[i], r->ur);
        FC_EXPECT(r->sq == -1 || r->sq == 1, "lane %d: s32 %d/0 = %d", i, hn[i], r->sq);
        FC_EXPECT(r->sr == hn[i], "lane %d: s32 %d%%0 = %d", i, hn[i], r->sr);
        FC_EXPECT(r->ovq == INT_MIN && r->ovr == 0, "lane %d: INT_MIN/-1 = %d, %%: %d", i,
                  r->ovq, r->ovr);
        FC_EXPECT(r->uq64 == ~0ull, "lane %d: u64 /0 = %llx", i, r->uq64);
        FC_EXPECT(r->ur64 == ~0ull, "lane %d: u64 %%0 = %llu", i, r->ur64);
        FC_EXPECT(r->sq64 == -1 || r->sq64 == 1, "lane %d: s64 /0 = %lld", i, r->sq64);
        FC_EXPECT(r->ovq64 == LLONG_MIN, "lane %d: LLONG_MIN/-1 = %lld", i, r->ovq64);
    }
    printf("divide by zero: s32 7000/0 = %d, -7000/0 = %d\n", out[14].sq, out[0].sq);
    fc_recover("divide by zero");
    return fc_finish("faults_divzero");
}
