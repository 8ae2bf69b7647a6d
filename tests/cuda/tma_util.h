/* tma_util.h: what the tensor-memory-access tests share: driver entry
 * points through the runtime (as CUDA's TMA examples get them) and
 * thread 0's mbarrier arrival and wait for a copy's bytes. */
#ifndef TMA_UTIL_H
#define TMA_UTIL_H

#include "zn_test.h"

/* the driver's `name` (ABI 12.0) through cudaGetDriverEntryPointByVersion;
 * a missing one ends the test */
template <typename F> static F driver_entry(const char *name)
{
    void *fn = nullptr;
    cudaDriverEntryPointQueryResult q;
    CK(cudaGetDriverEntryPointByVersion(name, &fn, 12000, cudaEnableDefault, &q));
    if (q != cudaDriverEntryPointSuccess || !fn) {
        printf("FAIL %s not found\n", name);
        exit(1);
    }
    return (F)fn;
}

/* thread 0 arrives on the mbarrier at shared address bar expecting
 * `bytes` of transactions, then waits for the phase to complete */
__device__ inline void arrive_and_wait(unsigned bar, unsigned bytes)
{
    unsigned long long state;
    unsigned done = 0;
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 %0, [%1], %2;"
                 : "=l"(state) : "r"(bar), "r"(bytes) : "memory");
    while (!done)
        asm volatile("{ .reg .pred p; mbarrier.try_wait.shared::cta.b64 p, [%1], %2;"
                     " selp.u32 %0, 1, 0, p; }" : "=r"(done) : "r"(bar), "l"(state) : "memory");
}

#endif
