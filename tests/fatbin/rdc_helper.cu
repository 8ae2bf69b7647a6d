// -rdc test program, part 2.
__device__ int zn_helper(int x)
{
    return x * 3 + 1;
}

__global__ void scale(float *p, float a)
{
    p[blockIdx.x * blockDim.x + threadIdx.x] *= a;
}
