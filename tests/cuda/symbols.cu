// symbols: __device__ and __constant__ variables written with
// cudaMemcpyToSymbol (also at an offset), read by a kernel, written by a
// kernel and read back with cudaMemcpyFromSymbol; initialised __device__
// variables must hold their initialisers before any write.
#include "zn_test.h"

__constant__ float c_table[64];
__constant__ int c_scale;
__device__ int d_bias;
__device__ int d_init[4] = {11, -22, 33, -44};
__device__ double d_dinit = 3.5;
__device__ unsigned long long d_counter;
__device__ float d_result[256];

__global__ void use_symbols(void)
{
    int t = threadIdx.x;
    d_result[t] = c_table[t % 64] * (float)c_scale + (float)(d_bias + d_init[t % 4]) + (float)d_dinit;
    atomicAdd(&d_counter, (unsigned long long)t);
}

// A kernel's write to an initialised variable is what the host reads back.
__global__ void bump(void)
{
    d_init[3] = 4444;
}

int main()
{
    zt_begin("symbols");
    int init[4];
    double dinit;
    CK(cudaMemcpyFromSymbol(init, d_init, sizeof init));
    CK(cudaMemcpyFromSymbol(&dinit, d_dinit, sizeof dinit));
    const int want_init[4] = {11, -22, 33, -44};
    for (int k = 0; k < 4; k++)
        if (init[k] != want_init[k])
            zt_fail("d_init[%d] initially %d, want %d", k, init[k], want_init[k]);
    if (dinit != 3.5)
        zt_fail("d_dinit initially %g, want 3.5", dinit);

    float table[64];
    for (int k = 0; k < 64; k++)
        table[k] = (float)k * 0.5f - 7.0f;
    int scale = 3, bias = -100;
    unsigned long long zero = 0;
    CK(cudaMemcpyToSymbol(c_table, table, 32 * sizeof(float)));
    // Second half through an offset.
    CK(cudaMemcpyToSymbol(c_table, table + 32, 32 * sizeof(float), 32 * sizeof(float)));
    CK(cudaMemcpyToSymbol(c_scale, &scale, sizeof scale));
    CK(cudaMemcpyToSymbol(d_bias, &bias, sizeof bias));
    CK(cudaMemcpyToSymbol(d_counter, &zero, sizeof zero));
    float *dres;
    CK(cudaGetSymbolAddress((void **)&dres, d_result));
    POISON(dres, 256 * sizeof(float));
    size_t sz = 0;
    CK(cudaGetSymbolSize(&sz, d_result));
    if (sz != 256 * sizeof(float))
        zt_fail("cudaGetSymbolSize(d_result) = %zu, want %zu", sz, 256 * sizeof(float));

    use_symbols<<<1, 256>>>();
    CK_LAUNCH();
    bump<<<1, 1>>>();
    CK_LAUNCH();

    float res[256];
    unsigned long long counter;
    CK(cudaMemcpyFromSymbol(res, d_result, sizeof res));
    CK(cudaMemcpyFromSymbol(&counter, d_counter, sizeof counter));
    CK(cudaMemcpyFromSymbol(init, d_init, sizeof init));
    for (int t = 0; t < 256; t++) {
        float want = table[t % 64] * (float)scale + (float)(bias + want_init[t % 4]) + 3.5f;
        if (zt_f2u(res[t]) != zt_f2u(want))
            zt_fail("d_result[%d] = %g, want %g", t, res[t], want);
    }
    if (counter != 255ull * 256 / 2)
        zt_fail("d_counter = %llu, want %llu", counter, 255ull * 256 / 2);
    if (init[3] != 4444 || init[0] != 11)
        zt_fail("d_init after kernel = {%d,..,%d}, want {11,..,4444}", init[0], init[3]);
    // The pointer from cudaGetSymbolAddress is ordinary device memory.
    float back;
    CK(cudaMemcpy(&back, dres + 5, sizeof back, cudaMemcpyDeviceToHost));
    if (zt_f2u(back) != zt_f2u(res[5]))
        zt_fail("via symbol address: %g, want %g", back, res[5]);
    return zt_finish();
}
