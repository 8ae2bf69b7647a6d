// divergent_loops: loops whose trip count differs per lane, with break,
// continue, nested loops, a do-while, a switch with fall-through and an
// early return. The same function compiled for the host gives the reference.
#include "zn_test.h"

__host__ __device__ static unsigned lane_work(unsigned seed, unsigned lane)
{
    unsigned acc = seed;
    unsigned trips = seed % 37 + (lane & 3);
    for (unsigned i = 0; i < trips; i++) {
        if (i % 3 == 1)
            continue;
        if (acc % 101 == 7 + lane % 5)
            break;
        for (unsigned j = 0; j < (i ^ lane) % 6; j++) {
            if ((acc ^ j) % 11 == 0)
                continue;
            acc = acc * 1664525u + 1013904223u + j;
            if ((acc >> 13) % 17 == 3)
                break;
        }
        acc += i * lane;
    }
    unsigned k = seed & 7;
    do {
        acc ^= acc >> 7;
        acc += k;
    } while (--k > 0 && (acc & 3) != 0);
    switch (acc % 5) {
    case 0: acc += 11; [[fallthrough]];
    case 1: acc *= 3; break;
    case 2: acc -= lane; break;
    case 3: acc ^= 0x5a5a5a5au; [[fallthrough]];
    default: acc = acc << 1 | acc >> 31;
    }
    while (acc > 1000u && (acc & 1))
        acc /= 3;
    return acc;
}

__global__ void loops(const unsigned *in, unsigned *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    if (in[i] % 13 == 0) {   // early exit of some lanes
        out[i] = 0xabcdu;
        return;
    }
    out[i] = lane_work(in[i], threadIdx.x & 31);
}

int main()
{
    zt_begin("divergent_loops");
    const int n = 50000;
    unsigned *x = (unsigned *)malloc(n * sizeof(unsigned)), *y = (unsigned *)malloc(n * sizeof(unsigned));
    for (int i = 0; i < n; i++)
        x[i] = zt_rand();
    unsigned *dx, *dy;
    CK(cudaMalloc(&dx, n * sizeof(unsigned)));
    CK(cudaMalloc(&dy, n * sizeof(unsigned)));
    CK(cudaMemcpy(dx, x, n * sizeof(unsigned), cudaMemcpyHostToDevice));
    POISON(dy, n * sizeof(unsigned));
    loops<<<(n + 95) / 96, 96>>>(dx, dy, n);
    CK_LAUNCH();
    CK(cudaMemcpy(y, dy, n * sizeof(unsigned), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++) {
        unsigned want = x[i] % 13 == 0 ? 0xabcdu : lane_work(x[i], (i % 96) & 31);
        if (y[i] != want)
            zt_fail("out[%d] = %u, want %u (seed %u)", i, y[i], want, x[i]);
    }
    CK(cudaFree(dx)); CK(cudaFree(dy));
    free(x); free(y);
    return zt_finish();
}
