// ldmatrix_generic: ldmatrix without .shared takes generic addresses (a
// 64-bit pointer into __shared__, as llama.cpp's mma.cuh writes it), not
// shared-window offsets. x4 and x4.trans fragments checked against the
// layout computed on the host; rows are 16 halves apart so every lane's row
// address matters.
#include "zn_test.h"

#define STRIDE 16   // halves per row in shared memory (8 used)

static unsigned short el(int i) { return (unsigned short)(i * 7 + 3); }
static int idx(int mat, int row, int col) { return (mat * 8 + row) * STRIDE + col; }

__global__ void ldm(unsigned *out)
{
    __shared__ __align__(16) unsigned short tile[4 * 8 * STRIDE];
    int l = threadIdx.x;
    for (int i = l; i < 4 * 8 * STRIDE; i += 32)
        tile[i] = (unsigned short)(i * 7 + 3);
    __syncthreads();
    const unsigned short *p = &tile[((l / 8) * 8 + l % 8) * STRIDE];   // generic
    unsigned r[8];
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "l"(p));
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r[4]), "=r"(r[5]), "=r"(r[6]), "=r"(r[7]) : "l"(p));
    for (int j = 0; j < 8; j++)
        out[l * 8 + j] = r[j];
}

int main()
{
    zt_begin("ldmatrix_generic");
    unsigned *d, h[32 * 8];
    CK(cudaMalloc(&d, sizeof h));
    CK(cudaMemset(d, 0xff, sizeof h));   // poison
    ldm<<<1, 32>>>(d);
    CK_LAUNCH();
    CK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    for (int l = 0; l < 32; l++)
        for (int j = 0; j < 4; j++) {
            int row = l / 4, col = 2 * (l % 4);
            unsigned want = el(idx(j, row, col)) | (unsigned)el(idx(j, row, col + 1)) << 16;
            if (h[l * 8 + j] != want)
                zt_fail("x4 lane %d m%d: %08x, want %08x", l, j, h[l * 8 + j], want);
            unsigned want_t = el(idx(j, col, row)) | (unsigned)el(idx(j, col + 1, row)) << 16;
            if (h[l * 8 + 4 + j] != want_t)
                zt_fail("x4.trans lane %d m%d: %08x, want %08x", l, j, h[l * 8 + 4 + j], want_t);
        }
    CK(cudaFree(d));
    return zt_finish();
}
