/* rdc_multi_a.cu + rdc_multi_b.cu: one program from two translation units
 * built with -rdc=true, so that device code calls across them and must be
 * linked. This unit defines a __device__ function (rdc_scale), a __device__
 * variable (rdc_bias) and a __constant__ table (rdc_table) that the other
 * unit uses through extern declarations; it uses rdc_mix, a __device__
 * function defined in the other unit, and launches the other unit's kernel
 * through rdc_run_b. Results are checked against a CPU reference. */
#include "zn_test.h"

#define RDC_N 1000
#define RDC_TABLE 16

__device__ int rdc_bias = 5;               /* overwritten from the host */
__constant__ int rdc_table[RDC_TABLE];

__device__ int rdc_scale(int x, int k) { return x * k + rdc_bias; }

extern __device__ int rdc_mix(int a, int b);   /* defined in rdc_multi_b.cu */
extern __device__ unsigned int rdc_calls;      /* defined in rdc_multi_b.cu */

__global__ void rdc_kernel_a(const int *in, int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = rdc_mix(in[i], i);
        atomicAdd(&rdc_calls, 1u);
    }
}

/* in rdc_multi_b.cu: launches rdc_kernel_b(in, out, n) and synchronizes */
void rdc_run_b(const int *in, int *out, int n);

static int ref_scale(int x, int k, int bias) { return x * k + bias; }
static int ref_mix(int a, int b, const int *table, int bias)
{
    return ref_scale(a, table[b % RDC_TABLE], bias) ^ (b * 3);
}

int main(void)
{
    zt_begin("rdc_multi");
    int table[RDC_TABLE], bias = 11;
    for (int i = 0; i < RDC_TABLE; i++)
        table[i] = 3 * i - 7;
    CK(cudaMemcpyToSymbol(rdc_table, table, sizeof table));
    CK(cudaMemcpyToSymbol(rdc_bias, &bias, sizeof bias));

    int *in, *out_a, *out_b;
    int h_in[RDC_N], h_a[RDC_N], h_b[RDC_N];
    for (int i = 0; i < RDC_N; i++)
        h_in[i] = (i * 37) % 101 - 50;
    CK(cudaMalloc(&in, sizeof h_in));
    CK(cudaMalloc(&out_a, sizeof h_a));
    CK(cudaMalloc(&out_b, sizeof h_b));
    CK(cudaMemcpy(in, h_in, sizeof h_in, cudaMemcpyHostToDevice));
    CK(cudaMemset(out_a, 0xA5, sizeof h_a));   /* poison */
    CK(cudaMemset(out_b, 0xA5, sizeof h_b));
    unsigned int zero = 0;
    CK(cudaMemcpyToSymbol(rdc_calls, &zero, sizeof zero));

    rdc_kernel_a<<<(RDC_N + 127) / 128, 128>>>(in, out_a, RDC_N);
    CK_LAUNCH();
    rdc_run_b(in, out_b, RDC_N);

    CK(cudaMemcpy(h_a, out_a, sizeof h_a, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(h_b, out_b, sizeof h_b, cudaMemcpyDeviceToHost));
    unsigned int calls = 0;
    CK(cudaMemcpyFromSymbol(&calls, rdc_calls, sizeof calls));
    for (int i = 0; i < RDC_N; i++) {
        int ea = ref_mix(h_in[i], i, table, bias);
        int eb = ref_scale(h_in[i], table[(i + 1) % RDC_TABLE], bias) + table[i % RDC_TABLE] +
                 bias;
        if (h_a[i] != ea)
            zt_fail("a[%d] = %d, expected %d", i, h_a[i], ea);
        if (h_b[i] != eb)
            zt_fail("b[%d] = %d, expected %d", i, h_b[i], eb);
    }
    if (calls != 2u * RDC_N)
        zt_fail("rdc_calls = %u, expected %u", calls, 2u * RDC_N);
    CK(cudaFree(in));
    CK(cudaFree(out_a));
    CK(cudaFree(out_b));
    return zt_finish();
}
