// row_pitch: 2D blocks of 16 columns reading and writing rows whose pitch
// is a kernel parameter (`A[(size_t)row * pitch + col]`). A warp of such
// a block is two half-rows one pitch apart; Zinc proves that at compile
// time with the pitch as a run-time value (src/compile/zn_lower_affine.c)
// and accesses each half-warp as one contiguous run. Checked here against
// the CPU: 64-bit and 32-bit index arithmetic, rows walked downwards (a
// negative pitch per tid.y), a pointer stepped through a loop (a tiled
// matrix product, as bench/sgemm), partial tiles at the edges, and the
// same kernels launched with other block shapes (the generic code).
#include "zn_test.h"

#define T 16

__global__ void scale_rows64(const float *in, float *out, long pin, long pout, int w, int h)
{
    int row = blockIdx.y * blockDim.y + threadIdx.y, col = blockIdx.x * T + threadIdx.x;
    if (row < h && col < w)
        out[(size_t)row * pout + col] = 2.0f * in[(size_t)row * pin + col] + 1.0f;
}

__global__ void scale_rows32(const float *in, float *out, int pin, int pout, int w, int h)
{
    int row = blockIdx.y * blockDim.y + threadIdx.y, col = blockIdx.x * T + threadIdx.x;
    if (row < h && col < w)
        out[row * pout + col] = 3.0f * in[row * pin + col] - 1.0f;
}

__global__ void flip_rows(const float *in, float *out, long pitch, int w, int h)
{
    int row = blockIdx.y * blockDim.y + threadIdx.y, col = blockIdx.x * T + threadIdx.x;
    if (row < h && col < w)
        out[(size_t)(h - 1 - row) * pitch + col] = in[(size_t)row * pitch + col];
}

__global__ void tiled_product(int n, const float *a, const float *b, float *c)
{
    __shared__ float as[T][T], bs[T][T];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < n; k0 += T) {
        as[ty][tx] = row < n && k0 + tx < n ? a[(size_t)row * n + k0 + tx] : 0.0f;
        bs[ty][tx] = col < n && k0 + ty < n ? b[(size_t)(k0 + ty) * n + col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < T; k++)
            acc += as[ty][k] * bs[k][tx];
        __syncthreads();
    }
    if (row < n && col < n)
        c[(size_t)row * n + col] = acc;
}

#define W 75
#define H 41
#define PIN 83
#define POUT 97

static float hin[H * POUT], hout[H * POUT];

static void fill_in(float *d)
{
    for (int i = 0; i < H * POUT; i++)
        hin[i] = (float)(zt_rand() % 1000);
    CK(cudaMemcpy(d, hin, sizeof hin, cudaMemcpyHostToDevice));
}

/* out's element (r, c) of a W x H grid at pitch pout, the rest untouched */
static void check_grid(const char *name, float *dout, int pout, float (*want)(int r, int c))
{
    CK(cudaMemcpy(hout, dout, sizeof hout, cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int r = 0; r < H; r++)
        for (int c = 0; c < pout; c++) {
            uint32_t bits;
            memcpy(&bits, &hout[r * pout + c], 4);
            bool inside = c < W;
            if (inside ? hout[r * pout + c] != want(r, c) : bits != 0xffffffffu) {
                if (inside && bad++ < 5)
                    zt_fail("%s: (%d, %d) = %g, want %g", name, r, c, hout[r * pout + c],
                            want(r, c));
                else if (!inside && bad++ < 5)
                    zt_fail("%s: (%d, %d) past the width written (%08x)", name, r, c, bits);
            }
        }
}

static float want64(int r, int c) { return 2.0f * hin[r * PIN + c] + 1.0f; }
static float want32(int r, int c) { return 3.0f * hin[r * PIN + c] - 1.0f; }
static float want_flip(int r, int c) { return hin[(H - 1 - r) * POUT + c]; }

static void check_rows(dim3 block)
{
    float *in, *out;
    CK(cudaMalloc(&in, sizeof hin));
    CK(cudaMalloc(&out, sizeof hout));
    dim3 grid((W + T - 1) / T, (H + block.y - 1) / block.y);
    fill_in(in);
    POISON(out, sizeof hout);
    scale_rows64<<<grid, block>>>(in, out, PIN, POUT, W, H);
    CK_LAUNCH();
    check_grid("scale_rows64", out, POUT, want64);
    POISON(out, sizeof hout);
    scale_rows32<<<grid, block>>>(in, out, PIN, POUT, W, H);
    CK_LAUNCH();
    check_grid("scale_rows32", out, POUT, want32);
    POISON(out, sizeof hout);
    flip_rows<<<grid, block>>>(in, out, POUT, W, H);
    CK_LAUNCH();
    check_grid("flip_rows", out, POUT, want_flip);
    CK(cudaFree(in));
    CK(cudaFree(out));
}

static void check_product(int n)
{
    size_t bytes = (size_t)n * n * sizeof(float);
    float *ha = (float *)malloc(bytes), *hb = (float *)malloc(bytes), *hc = (float *)malloc(bytes);
    for (int i = 0; i < n * n; i++) {
        ha[i] = (float)(zt_rand() % 8) - 4.0f;    /* small integers: exact sums */
        hb[i] = (float)(zt_rand() % 8) - 4.0f;
    }
    float *a, *b, *c;
    CK(cudaMalloc(&a, bytes));
    CK(cudaMalloc(&b, bytes));
    CK(cudaMalloc(&c, bytes));
    CK(cudaMemcpy(a, ha, bytes, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(b, hb, bytes, cudaMemcpyHostToDevice));
    POISON(c, bytes);
    dim3 grid((n + T - 1) / T, (n + T - 1) / T);
    tiled_product<<<grid, dim3(T, T)>>>(n, a, b, c);
    CK_LAUNCH();
    CK(cudaMemcpy(hc, c, bytes, cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            float want = 0.0f;
            for (int k = 0; k < n; k++)
                want += ha[i * n + k] * hb[k * n + j];
            if (hc[i * n + j] != want && bad++ < 5)
                zt_fail("tiled_product n=%d: c[%d][%d] = %g, want %g", n, i, j, hc[i * n + j],
                        want);
        }
    CK(cudaFree(a));
    CK(cudaFree(b));
    CK(cudaFree(c));
    free(ha);
    free(hb);
    free(hc);
}

int main(void)
{
    zt_begin("row_pitch");
    check_rows(dim3(T, T));     /* the first launch: code for 16 x 16 */
    check_rows(dim3(T, 4));     /* another shape: the generic code */
    check_rows(dim3(T, T));
    check_product(70);          /* the first shape: 16 x 16 */
    check_product(48);
    check_product(5);
    return zt_finish();
}
