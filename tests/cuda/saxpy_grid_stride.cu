// saxpy_grid_stride: y = a*x + y over 2^24 elements with a grid-stride loop
// and a grid much smaller than the data. fmaf makes the result exact.
#include <math.h>
#include "zn_test.h"

__global__ void saxpy(int n, float a, const float *x, float *y)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        y[i] = fmaf(a, x[i], y[i]);
}

int main()
{
    zt_begin("saxpy_grid_stride");
    const int n = 1 << 24;
    const float alpha = 1.75f;
    size_t bytes = (size_t)n * sizeof(float);
    float *x = (float *)malloc(bytes), *y = (float *)malloc(bytes), *r = (float *)malloc(bytes);
    for (int i = 0; i < n; i++) {
        x[i] = (float)(i % 1000) * 0.5f - 17.f;
        y[i] = (float)(i % 777) * -0.25f + 3.f;
    }
    float *dx, *dy;
    CK(cudaMalloc(&dx, bytes));
    CK(cudaMalloc(&dy, bytes));
    CK(cudaMemcpy(dx, x, bytes, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dy, y, bytes, cudaMemcpyHostToDevice));
    saxpy<<<480, 256>>>(n, alpha, dx, dy);
    CK_LAUNCH();
    CK(cudaMemcpy(r, dy, bytes, cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++) {
        float want = fmaf(alpha, x[i], y[i]);
        if (zt_f2u(r[i]) != zt_f2u(want))
            zt_fail("y[%d] = %a, want %a", i, r[i], want);
    }
    CK(cudaFree(dx));
    CK(cudaFree(dy));
    free(x); free(y); free(r);
    return zt_finish();
}
