// early_return: `if (i >= n) return;` and then an if/else on i, as nvcc
// expands a 64-bit division (a div.u32 when both operands fit, div.s64
// otherwise), before a store. In code compiled for the launch's block
// shape the blocks after the return run with every lane the warp began
// with only when no path from the divergent return reaches them; the join
// after the if/else was missed (the branch's arms are not convergent), so
// the lanes past n stored there (llama.cpp's copy kernels faulted, its
// vision rope wrote past its output). Each kernel writes a poisoned buffer
// larger than n: values are checked against the CPU and nothing past n
// may change, for block sizes with a partial last block, 1-D and 2-D.
#include "zn_test.h"

#define TOTAL 4096

/* a 3-D unravel of i with 64-bit divisions and a store at the byte
 * offset the indices give (ggml's cpy kernels) */
__global__ void unravel3(const char *src, char *dst, int n, int ne0, int ne1, int nb0, int nb1,
                         int nb2)
{
    const long long i = (long long)blockDim.x * blockIdx.x + threadIdx.x;
    if (i >= n)
        return;
    const long long i2 = i / (ne0 * ne1);
    const long long i1 = (i - i2 * ne1 * ne0) / ne0;
    const long long i0 = i - i2 * ne1 * ne0 - i1 * ne0;
    const long long off = i0 * nb0 + i1 * nb1 + i2 * nb2;
    *(float *)(dst + off) = 2.0f * *(const float *)(src + off) + 1.0f;
}

/* 2-D blocks of one column: pairs of elements per thread along y, a
 * row-length division (the vision rope's shape) */
__global__ void pairs_by_y(const float *x, float *y, int ne0, int half)
{
    const int i0 = 2 * (blockDim.y * blockIdx.y + threadIdx.y);
    if (i0 >= ne0)
        return;
    const long long sector = (long long)i0 / half;
    const long long k = i0 - sector * half;
    y[i0] = x[i0] * (float)(sector + 1) + (float)k;
    y[i0 + 1] = x[i0 + 1] - (float)k;
}

static float hx[TOTAL], hy[TOTAL];

static void upload(float **x, float **y)
{
    for (int i = 0; i < TOTAL; i++)
        hx[i] = (float)(zt_rand() % 1000);
    CK(cudaMalloc(x, sizeof hx));
    CK(cudaMalloc(y, sizeof hy));
    CK(cudaMemcpy(*x, hx, sizeof hx, cudaMemcpyHostToDevice));
    POISON(*y, sizeof hy);
}

/* y[0..n) against want, y[n..TOTAL) still poison */
static void check(const char *name, int n, float (*want)(int i))
{
    int bad = 0;
    for (int i = 0; i < TOTAL; i++) {
        uint32_t bits;
        memcpy(&bits, &hy[i], 4);
        if (i < n && hy[i] != want(i) && bad++ < 5)
            zt_fail("%s n=%d: y[%d] = %g, want %g", name, n, i, hy[i], want(i));
        if (i >= n && bits != 0xffffffffu && bad++ < 5)
            zt_fail("%s n=%d: y[%d] written past the end (%g)", name, n, i, hy[i]);
    }
}

static float want_unravel(int i)
{
    return 2.0f * hx[i] + 1.0f;     /* contiguous strides: offset i * 4 */
}

static int g_half;
static float want_pairs(int i)
{
    int i0 = i & ~1, sector = i0 / g_half, k = i0 - sector * g_half;
    return i & 1 ? hx[i] - (float)k : hx[i] * (float)(sector + 1) + (float)k;
}

static void run_unravel(int blocks, int threads, int n)
{
    float *x, *y;
    upload(&x, &y);
    /* ne0 x ne1 x (n / (ne0 * ne1)) floats, contiguous */
    unravel3<<<blocks, threads>>>((const char *)x, (char *)y, n, 10, 10, 4, 40, 400);
    CK_LAUNCH();
    CK(cudaMemcpy(hy, y, sizeof hy, cudaMemcpyDeviceToHost));
    check("unravel3", n, want_unravel);
    CK(cudaFree(x));
    CK(cudaFree(y));
}

static void run_pairs(int ythreads, int ne0, int half)
{
    float *x, *y;
    upload(&x, &y);
    g_half = half;
    pairs_by_y<<<dim3(1, (ne0 / 2 + ythreads - 1) / ythreads), dim3(1, ythreads)>>>(x, y, ne0, half);
    CK_LAUNCH();
    CK(cudaMemcpy(hy, y, sizeof hy, cudaMemcpyDeviceToHost));
    check("pairs_by_y", ne0, want_pairs);
    CK(cudaFree(x));
    CK(cudaFree(y));
}

int main(void)
{
    zt_begin("early_return");
    run_unravel(8, 64, 500);    /* the first launch: code for 64 threads */
    run_unravel(8, 64, 448);
    run_unravel(3, 256, 700);   /* another shape: the generic code */
    run_unravel(8, 64, 37);
    run_pairs(256, 80, 20);     /* the first launch: code for 1 x 256 */
    run_pairs(256, 46, 16);
    run_pairs(64, 200, 24);
    return zt_finish();
}
