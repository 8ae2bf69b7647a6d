// launch: the cost of launching an empty kernel, <<<1, 32>>>: SZ_LAUNCHES
// asynchronous launches then one synchronize (throughput, the usual
// "launch overhead"), and launch + synchronize one at a time (latency).
// A counter kernel run as often first checks that launches do run.
#include "bench_cuda.h"

__global__ void empty_kernel() {}

__global__ void count_kernel(unsigned *c)
{
    if (threadIdx.x == 0)
        atomicAdd(c, 1u);
}

int main()
{
    const int n = SZ_LAUNCHES;
    unsigned *dc = bench_dev<unsigned>(1, NULL), got = 0;
    CK(cudaMemset(dc, 0, sizeof(unsigned)));
    for (int i = 0; i < n; i++)
        count_kernel<<<1, 32>>>(dc);
    CK_SYNC();
    bench_get(&got, dc, 1);
    if (got != (unsigned)n) {
        fprintf(stderr, "FAIL launch: %u of %d launches ran\n", got, n);
        return 1;
    }
    double async_ms, sync_ms;
    BENCH_BEST(async_ms, for (int i = 0; i < n; i++) empty_kernel<<<1, 32>>>(); CK_SYNC());
    BENCH_BEST(sync_ms, for (int i = 0; i < n / 10; i++) { empty_kernel<<<1, 32>>>(); CK_SYNC(); });
    // ms per launch, so run.sh prints microseconds.
    bench_line("launch", "zinc", n, async_ms / n, 0, 0);
    bench_line("launch_sync", "zinc", n / 10, sync_ms / (n / 10), 0, 0);
    CK(cudaFree(dc));
    return 0;
}
