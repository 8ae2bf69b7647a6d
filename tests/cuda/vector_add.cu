// vector_add: c[i] = a[i] + b[i] over a size that is not a multiple of the
// block, checked bit-exactly against the host.
#include "zn_test.h"

__global__ void vector_add(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}

int main()
{
    zt_begin("vector_add");
    const int n = (1 << 20) + 7;
    size_t bytes = (size_t)n * sizeof(float);
    float *a = (float *)malloc(bytes), *b = (float *)malloc(bytes), *c = (float *)malloc(bytes);
    for (int i = 0; i < n; i++) {
        a[i] = zt_randf(-100.f, 100.f);
        b[i] = zt_randf(-1.f, 1.f);
    }
    float *da, *db, *dc;
    CK(cudaMalloc(&da, bytes));
    CK(cudaMalloc(&db, bytes));
    CK(cudaMalloc(&dc, bytes));
    CK(cudaMemcpy(da, a, bytes, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(db, b, bytes, cudaMemcpyHostToDevice));
    POISON(dc, bytes);
    int threads = 256, blocks = (n + threads - 1) / threads;
    vector_add<<<blocks, threads>>>(da, db, dc, n);
    CK_LAUNCH();
    CK(cudaMemcpy(c, dc, bytes, cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++) {
        float want = a[i] + b[i];
        if (zt_f2u(c[i]) != zt_f2u(want))
            zt_fail("c[%d] = %a, want %a", i, c[i], want);
    }
    CK(cudaFree(da));
    CK(cudaFree(db));
    CK(cudaFree(dc));
    free(a); free(b); free(c);
    return zt_finish();
}
