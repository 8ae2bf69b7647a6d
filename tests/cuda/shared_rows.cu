// shared_rows: shared-memory tiles in 2D/3D blocks whose x extent W is
// 1, 2, 4, 8, 16 (a warp is 32 / W rows of W threads: the compiler proves
// the row shapes at compile time, src/compile/zn_lower_affine.c) or 24 (not
// a divisor of 32: the run-time shape test). Row-contiguous stores and
// loads, row-uniform loads and stores (tile[ty][k], one value per row),
// column loads that repeat in every row (tile[k][tx]), a loop like SGEMM's
// inner product, a non-affine index; full, partial and z-plane-crossing
// warps. Checked against a CPU reference.
#include "zn_test.h"

#define MAXY 16
#define MAXZ 4

template <int W>
__global__ void rows_kernel(const float *in, float *out)
{
    __shared__ float tile[MAXZ][MAXY][W];
    __shared__ float rowv[MAXZ][MAXY];
    int tx = threadIdx.x, ty = threadIdx.y, tz = threadIdx.z;
    int ny = blockDim.y;
    int g = ((blockIdx.x * blockDim.z + tz) * ny + ty) * W + tx;
    tile[tz][ty][tx] = in[g];
    rowv[tz][ty] = (float)(ty * 10 + tz);      // every lane of a row: one value
    __syncthreads();
    float acc = 0.0f;
    for (int k = 0; k < W; k++)                 // row-uniform reads, unrolled
        acc += tile[tz][ty][k] * (float)(k + 1);
    float col = 0.0f;
    for (int j = 0; j < ny; j++)                // the same row in every warp row
        col += tile[tz][j][tx];
    float nxt = tile[tz][(ty + 1) % ny][(tx * 7 + 3) % W];   // not affine
    out[g] = acc + 2.0f * col + 3.0f * nxt + rowv[tz][ty];
}

template <int W>
static void check(int ny, int nz, int blocks)
{
    int per = W * ny * nz, n = per * blocks;
    float *in = (float *)malloc(n * sizeof(float)), *out = (float *)malloc(n * sizeof(float));
    for (int i = 0; i < n; i++)
        in[i] = (float)(zt_rand() % 64) - 32.0f;   // small integers: exact sums
    float *din, *dout;
    CK(cudaMalloc(&din, n * sizeof(float)));
    CK(cudaMalloc(&dout, n * sizeof(float)));
    CK(cudaMemcpy(din, in, n * sizeof(float), cudaMemcpyHostToDevice));
    POISON(dout, n * sizeof(float));
    rows_kernel<W><<<blocks, dim3(W, ny, nz)>>>(din, dout);
    CK_LAUNCH();
    CK(cudaMemcpy(out, dout, n * sizeof(float), cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int b = 0; b < blocks; b++)
        for (int z = 0; z < nz; z++)
            for (int y = 0; y < ny; y++)
                for (int x = 0; x < W; x++) {
                    const float *t = in + (size_t)(b * nz + z) * ny * W;
                    double acc = 0, col = 0;
                    for (int k = 0; k < W; k++)
                        acc += t[y * W + k] * (double)(k + 1);
                    for (int j = 0; j < ny; j++)
                        col += t[j * W + x];
                    double nxt = t[((y + 1) % ny) * W + (x * 7 + 3) % W];
                    double want = acc + 2.0 * col + 3.0 * nxt + (y * 10 + z);
                    int g = ((b * nz + z) * ny + y) * W + x;
                    if (out[g] != (float)want && bad++ < 5)
                        zt_fail("W=%d block %dx%dx%d: (%d,%d,%d) of block %d = %g, want %g", W,
                                W, ny, nz, x, y, z, b, out[g], want);
                }
    CK(cudaFree(din));
    CK(cudaFree(dout));
    free(in);
    free(out);
}

template <int W>
static void shapes()
{
    check<W>(MAXY, 1, 3);              // whole warps (W * 16 % 32 == 0 for W >= 2)
    check<W>(3, 1, 2);                 // a partial last warp
    check<W>(5, 2, 2);                 // warps crossing z planes when W * 5 % 32 != 0
    check<W>(8, MAXZ, 1);
}

int main()
{
    zt_begin("shared_rows");
    shapes<1>();
    shapes<2>();
    shapes<4>();
    shapes<8>();
    shapes<16>();
    shapes<24>();                      // not a divisor of 32: run-time shapes
    return zt_finish();
}
