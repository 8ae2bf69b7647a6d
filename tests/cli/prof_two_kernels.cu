// prof_two_kernels.cu: two kernels with known launch counts (add_one 5
// times, scale_by 2 times) for the ZINC_PROFILE and `zinc cache warm`
// tests; checks its own results against a host reference.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void add_one(float *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] += 1.0f;
}

__global__ void scale_by(float *x, float s, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] *= s;
}

int main()
{
    const int n = 1000;
    float h[n], *d;
    for (int i = 0; i < n; i++)
        h[i] = (float)i;
    if (cudaMalloc(&d, n * sizeof(float)) != cudaSuccess)
        return 1;
    cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice);
    for (int r = 0; r < 5; r++)
        add_one<<<(n + 127) / 128, 128>>>(d, n);
    for (int r = 0; r < 2; r++)
        scale_by<<<(n + 127) / 128, 128>>>(d, 2.0f, n);
    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    if (cudaGetLastError() != cudaSuccess)
        return 1;
    for (int i = 0; i < n; i++) {
        float want = ((float)i + 5.0f) * 4.0f;
        if (h[i] != want) {
            printf("FAIL x[%d] = %g, want %g\n", i, h[i], want);
            return 1;
        }
    }
    cudaFree(d);
    printf("PASS prof_two_kernels\n");
    return 0;
}
