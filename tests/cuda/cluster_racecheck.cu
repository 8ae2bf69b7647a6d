// cluster_racecheck: ZINC_CHECK=racecheck on thread block clusters (sm_90),
// one case per run (argv[1]):
//   clean  each block fills its shared array, cluster.sync(), reads its
//          peer's array (distributed shared memory) and a word another
//          warp of its own block wrote, cluster.sync(): no report (the
//          cluster barrier orders both), results against a CPU reference
//   racy   after a cluster.sync(), rank 0 stores into rank 1's array while
//          rank 1 reads it, with no cluster barrier between: one report
//          naming both source lines and both cluster ranks
// racecheck lets the kernels run on: both cases end with cudaSuccess.
// CTest (tests/cuda/cluster_racecheck.cmake) matches the report text.
#include <cooperative_groups.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

namespace cg = cooperative_groups;

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    printf("FAIL %s: %s\n", #x, cudaGetErrorString(e_)); exit(1); } } while (0)

#define NT 64       // two warps per block
#define NC 4        // clusters of two blocks

__global__ void __cluster_dims__(2, 1, 1) dsm_clean(int *out)
{
    __shared__ int s[NT];
    cg::cluster_group c = cg::this_cluster();
    unsigned r = c.block_rank();
    s[threadIdx.x] = (int)(blockIdx.x * 1000 + threadIdx.x);
    c.sync();
    int *peer = c.map_shared_rank(s, r ^ 1);
    int v = peer[threadIdx.x] * 3 + s[(threadIdx.x + 32) % NT];
    c.sync();
    out[blockIdx.x * NT + threadIdx.x] = v;
}

__global__ void __cluster_dims__(2, 1, 1) dsm_racy(int *out)
{
    __shared__ int s[NT];
    cg::cluster_group c = cg::this_cluster();
    s[threadIdx.x] = (int)threadIdx.x;
    c.sync();
    if (c.block_rank() == 0) {
        int *peer = c.map_shared_rank(s, 1);
        peer[threadIdx.x] = 7; // DSM_STORE
    } else {
        out[blockIdx.x * NT + threadIdx.x] = s[threadIdx.x]; // DSM_LOAD
    }
    c.sync();
}

int main(int argc, char **argv)
{
    const char *which = argc > 1 ? argv[1] : "clean";
    int n = NC * 2 * NT;
    int *d, *h = (int *)malloc(n * sizeof(int));
    CK(cudaMalloc(&d, n * sizeof(int)));
    CK(cudaMemset(d, 0xff, n * sizeof(int)));
    if (strcmp(which, "racy") == 0) {
        dsm_racy<<<NC * 2, NT>>>(d);
        CK(cudaGetLastError());
        CK(cudaDeviceSynchronize());
        printf("PASS racy\n");
        fflush(stdout);     // before the summary racecheck prints at exit
        return 0;
    }
    dsm_clean<<<NC * 2, NT>>>(d);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(h, d, n * sizeof(int), cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int b = 0; b < NC * 2; b++)
        for (int t = 0; t < NT; t++) {
            int peer = b ^ 1;   // clusters of two consecutive blocks
            int want = (peer * 1000 + t) * 3 + b * 1000 + (t + 32) % NT;
            bad += h[b * NT + t] != want;
        }
    if (bad) {
        printf("FAIL clean: %d wrong words\n", bad);
        return 1;
    }
    printf("PASS clean\n");
    fflush(stdout);
    free(h);
    CK(cudaFree(d));
    return 0;
}
