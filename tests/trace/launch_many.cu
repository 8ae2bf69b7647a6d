// launch_many.cu: 10000 launches of a tiny kernel, the tracer's overhead
// benchmark (docs/trace.md). Usage: launch_many [launches].
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void bump(int *x) { atomicAdd(x, 1); }

int main(int argc, char **argv)
{
    int launches = argc > 1 ? atoi(argv[1]) : 10000;
    int *d, h = 0;
    if (cudaMalloc(&d, sizeof(int)) != cudaSuccess || cudaMemset(d, 0, sizeof(int)) != cudaSuccess)
        return 1;
    for (int i = 0; i < launches; i++)
        bump<<<1, 32>>>(d);
    if (cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost) != cudaSuccess)
        return 1;
    if (h != 32 * launches) {
        fprintf(stderr, "FAIL count %d, want %d\n", h, 32 * launches);
        return 1;
    }
    printf("PASS launch_many (%d launches)\n", launches);
    return 0;
}
