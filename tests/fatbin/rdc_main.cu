// -rdc test program, part 1: calls a __device__ function of rdc_helper.cu.
#include <cstdio>

extern __device__ int zn_helper(int x);

__global__ void use_helper(int *p)
{
    p[threadIdx.x] = zn_helper((int)threadIdx.x);
}

int main()
{
    int *d = nullptr;
    if (cudaMalloc(&d, 32 * sizeof(int)) != cudaSuccess)
        return 1;
    use_helper<<<1, 32>>>(d);
    int h[32];
    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    printf("%d\n", h[31]);
    return 0;
}
