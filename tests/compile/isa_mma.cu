// isa_mma.cu: warp matrix instructions (mma.sync, ldmatrix, movmatrix, wmma),
// cp.async and f16 atomics, for test_isa_mma.c. Every lane builds its
// fragments from row-major matrices in global memory with the fragment
// layouts of the PTX ISA ("Matrix Fragments for mma.m16n8k*"), so a
// layout error in the compiler shows as a wrong element of D.
// Regenerate isa_mma.ptx with:
//   nvcc -arch=sm_90 -ptx -o isa_mma.ptx isa_mma.cu
// (sm_90 for stmatrix; everything else is sm_80 PTX)
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <mma.h>
#include <stdint.h>

__device__ static inline uint32_t pack16(uint16_t lo, uint16_t hi) { return lo | (uint32_t)hi << 16; }
__device__ static inline uint32_t pack8(const uint8_t *p) { return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24; }

// C/D of every m16n8 shape: c0,c1 row g, c2,c3 row g+8; col 2t + (i&1)
#define CROW(i) (g + ((i) >= 2 ? 8 : 0))
#define CCOL(i) (2 * t + ((i) & 1))

// m16n8k16 f16 or bf16 (bits in A, B), f32 accumulators. A 16x16, B 16x8.
extern "C" __global__ void mma_k16_f32(const uint16_t *A, const uint16_t *B, const float *C,
                                       float *D, int bf)
{
    int l = threadIdx.x, g = l >> 2, t = l & 3;
    uint16_t a[8], b[4];
    for (int i = 0; i < 8; i++) {
        int row = g + ((i & 2) ? 8 : 0), col = 2 * t + (i & 1) + (i >= 4 ? 8 : 0);
        a[i] = A[row * 16 + col];
    }
    for (int i = 0; i < 4; i++) {
        int row = 2 * t + (i & 1) + (i >= 2 ? 8 : 0), col = g;
        b[i] = B[row * 8 + col];
    }
    uint32_t ra[4], rb[2];
    for (int i = 0; i < 4; i++) ra[i] = pack16(a[2 * i], a[2 * i + 1]);
    for (int i = 0; i < 2; i++) rb[i] = pack16(b[2 * i], b[2 * i + 1]);
    float c[4], d[4];
    for (int i = 0; i < 4; i++) c[i] = C[CROW(i) * 8 + CCOL(i)];
    if (bf)
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
                     : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
                     : "r"(ra[0]), "r"(ra[1]), "r"(ra[2]), "r"(ra[3]), "r"(rb[0]), "r"(rb[1]),
                       "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3]));
    else
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
                     : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
                     : "r"(ra[0]), "r"(ra[1]), "r"(ra[2]), "r"(ra[3]), "r"(rb[0]), "r"(rb[1]),
                       "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3]));
    for (int i = 0; i < 4; i++) D[CROW(i) * 8 + CCOL(i)] = d[i];
}

// m16n8k8 f16 with f16 accumulators. A 16x8, B 8x8, C/D 16x8 f16 bits.
extern "C" __global__ void mma_k8_f16(const uint16_t *A, const uint16_t *B, const uint16_t *C,
                                      uint16_t *D)
{
    int l = threadIdx.x, g = l >> 2, t = l & 3;
    uint16_t a[4], b[2], c[4];
    for (int i = 0; i < 4; i++) a[i] = A[(g + (i >= 2 ? 8 : 0)) * 8 + 2 * t + (i & 1)];
    for (int i = 0; i < 2; i++) b[i] = B[(2 * t + i) * 8 + g];
    for (int i = 0; i < 4; i++) c[i] = C[CROW(i) * 8 + CCOL(i)];
    uint32_t ra0 = pack16(a[0], a[1]), ra1 = pack16(a[2], a[3]), rb = pack16(b[0], b[1]);
    uint32_t rc0 = pack16(c[0], c[1]), rc1 = pack16(c[2], c[3]), rd0, rd1;
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16 {%0,%1}, {%2,%3}, {%4}, {%5,%6};"
                 : "=r"(rd0), "=r"(rd1) : "r"(ra0), "r"(ra1), "r"(rb), "r"(rc0), "r"(rc1));
    uint16_t d[4] = {(uint16_t)rd0, (uint16_t)(rd0 >> 16), (uint16_t)rd1, (uint16_t)(rd1 >> 16)};
    for (int i = 0; i < 4; i++) D[CROW(i) * 8 + CCOL(i)] = d[i];
}

// m16n8k32 s8 x s8 -> s32. A 16x32, B 32x8.
extern "C" __global__ void mma_k32_s8(const int8_t *A, const int8_t *B, const int *C, int *D,
                                      int sat)
{
    int l = threadIdx.x, g = l >> 2, t = l & 3;
    uint8_t a[16], b[8];
    for (int i = 0; i < 16; i++) {
        int row = g + (((i >= 4 && i < 8) || i >= 12) ? 8 : 0);
        int col = 4 * t + (i & 3) + (i >= 8 ? 16 : 0);
        a[i] = (uint8_t)A[row * 32 + col];
    }
    for (int i = 0; i < 8; i++) b[i] = (uint8_t)B[(4 * t + (i & 3) + (i >= 4 ? 16 : 0)) * 8 + g];
    uint32_t ra[4], rb[2];
    for (int i = 0; i < 4; i++) ra[i] = pack8(&a[4 * i]);
    for (int i = 0; i < 2; i++) rb[i] = pack8(&b[4 * i]);
    int c[4], d[4];
    for (int i = 0; i < 4; i++) c[i] = C[CROW(i) * 8 + CCOL(i)];
    if (sat)
        asm volatile("mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
                     : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
                     : "r"(ra[0]), "r"(ra[1]), "r"(ra[2]), "r"(ra[3]), "r"(rb[0]), "r"(rb[1]),
                       "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]));
    else
        asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
                     : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
                     : "r"(ra[0]), "r"(ra[1]), "r"(ra[2]), "r"(ra[3]), "r"(rb[0]), "r"(rb[1]),
                       "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]));
    for (int i = 0; i < 4; i++) D[CROW(i) * 8 + CCOL(i)] = d[i];
}

// m16n8k16 u8 x s8 -> s32. A 16x16, B 16x8.
extern "C" __global__ void mma_k16_u8s8(const uint8_t *A, const int8_t *B, const int *C, int *D)
{
    int l = threadIdx.x, g = l >> 2, t = l & 3;
    uint8_t a[8], b[4];
    for (int i = 0; i < 8; i++) a[i] = A[(g + (i >= 4 ? 8 : 0)) * 16 + 4 * t + (i & 3)];
    for (int i = 0; i < 4; i++) b[i] = (uint8_t)B[(4 * t + i) * 8 + g];
    uint32_t ra0 = pack8(a), ra1 = pack8(a + 4), rb = pack8(b);
    int c[4], d[4];
    for (int i = 0; i < 4; i++) c[i] = C[CROW(i) * 8 + CCOL(i)];
    asm volatile("mma.sync.aligned.m16n8k16.row.col.s32.u8.s8.s32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%8,%9,%10};"
                 : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
                 : "r"(ra0), "r"(ra1), "r"(rb), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]));
    for (int i = 0; i < 4; i++) D[CROW(i) * 8 + CCOL(i)] = d[i];
}

// m16n8k8 tf32 (f32 bits, low 13 bits ignored). A 16x8, B 8x8.
extern "C" __global__ void mma_k8_tf32(const float *A, const float *B, const float *C, float *D)
{
    int l = threadIdx.x, g = l >> 2, t = l & 3;
    float a[4], b[2], c[4], d[4];
    for (int i = 0; i < 4; i++) a[i] = A[(g + ((i & 1) ? 8 : 0)) * 8 + t + (i >= 2 ? 4 : 0)];
    for (int i = 0; i < 2; i++) b[i] = B[(t + 4 * i) * 8 + g];
    for (int i = 0; i < 4; i++) c[i] = C[CROW(i) * 8 + CCOL(i)];
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
                 : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
                 : "r"(__float_as_uint(a[0])), "r"(__float_as_uint(a[1])), "r"(__float_as_uint(a[2])),
                   "r"(__float_as_uint(a[3])), "r"(__float_as_uint(b[0])), "r"(__float_as_uint(b[1])),
                   "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3]));
    for (int i = 0; i < 4; i++) D[CROW(i) * 8 + CCOL(i)] = d[i];
}

// m16n8k4 tf32. A 16x4, B 4x8.
extern "C" __global__ void mma_k4_tf32(const float *A, const float *B, const float *C, float *D)
{
    int l = threadIdx.x, g = l >> 2, t = l & 3;
    float c[4], d[4];
    uint32_t a0 = __float_as_uint(A[g * 4 + t]), a1 = __float_as_uint(A[(g + 8) * 4 + t]);
    uint32_t b0 = __float_as_uint(B[t * 8 + g]);
    for (int i = 0; i < 4; i++) c[i] = C[CROW(i) * 8 + CCOL(i)];
    asm volatile("mma.sync.aligned.m16n8k4.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%8,%9,%10};"
                 : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
                 : "r"(a0), "r"(a1), "r"(b0), "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3]));
    for (int i = 0; i < 4; i++) D[CROW(i) * 8 + CCOL(i)] = d[i];
}

// m8n8k4 f64. A 8x4, B 4x8, C/D 8x8.
extern "C" __global__ void mma_f64(const double *A, const double *B, const double *C, double *D)
{
    int l = threadIdx.x, g = l >> 2, t = l & 3;
    double a = A[g * 4 + t], b = B[t * 8 + g], c0 = C[g * 8 + 2 * t], c1 = C[g * 8 + 2 * t + 1], d0, d1;
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%4,%5};"
                 : "=d"(d0), "=d"(d1) : "d"(a), "d"(b), "d"(c0), "d"(c1));
    D[g * 8 + 2 * t] = d0;
    D[g * 8 + 2 * t + 1] = d1;
}

// ldmatrix from a 32x8 b16 tile in shared memory (four 8x8 matrices one
// below the other); out[lane * 8 + 2 * reg + half]: x1, x2, x4, x4.trans,
// then movmatrix.trans of the x1 fragment.
extern "C" __global__ void ldmatrix_all(const uint16_t *in, uint32_t *out)
{
    __shared__ uint16_t tile[32 * 8];
    int l = threadIdx.x;
    for (int i = 0; i < 8; i++) tile[l * 8 + i] = in[l * 8 + i];
    __syncwarp();
    uint32_t addr = (uint32_t)__cvta_generic_to_shared(&tile[l * 8]);
    uint32_t r[4];
    asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(r[0]) : "r"(addr));
    out[l * 16 + 0] = r[0];
    uint32_t m;
    asm volatile("movmatrix.sync.aligned.m8n8.trans.b16 %0, %1;" : "=r"(m) : "r"(r[0]));
    out[l * 16 + 15] = m;
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2];" : "=r"(r[0]), "=r"(r[1]) : "r"(addr));
    out[l * 16 + 1] = r[0];
    out[l * 16 + 2] = r[1];
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr));
    for (int i = 0; i < 4; i++) out[l * 16 + 3 + i] = r[i];
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr));
    for (int i = 0; i < 4; i++) out[l * 16 + 7 + i] = r[i];
}

// stmatrix: lane l's registers are fragments of four 8x8 matrices; x4
// writes them to a 32x8 tile (lane l gives row l%8 of matrix l/8), x2.trans
// writes the transposes of the first two to a 16x8 tile.
extern "C" __global__ void stmatrix_all(const uint32_t *frag, uint16_t *out)
{
    __shared__ uint16_t tile[32 * 8 + 16 * 8];
    int l = threadIdx.x;
    uint32_t r[4];
    for (int i = 0; i < 4; i++) r[i] = frag[l * 4 + i];
    uint32_t a = (uint32_t)__cvta_generic_to_shared(&tile[l * 8]);
    asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1,%2,%3,%4};"
                 :: "r"(a), "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]));
    uint32_t t = (uint32_t)__cvta_generic_to_shared(&tile[256 + (l & 15) * 8]);
    asm volatile("stmatrix.sync.aligned.m8n8.x2.trans.shared.b16 [%0], {%1,%2};"
                 :: "r"(t), "r"(r[0]), "r"(r[1]));
    __syncwarp();
    for (int i = 0; i < 12; i++) out[l * 12 + i] = tile[l * 12 + i];
}

// cp.async of 4, 8 and 16 bytes (.ca and .cg), one with src-size 0 (zero
// fill), then commit / wait and a copy back out.
extern "C" __global__ void cp_async_copy(const uint4 *in, uint4 *out)
{
    __shared__ uint4 s[4 * 32];
    int l = threadIdx.x;
    uint32_t d = (uint32_t)__cvta_generic_to_shared(&s[l]);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(d), "l"(&in[l]));
    d = (uint32_t)__cvta_generic_to_shared(&s[32 + l]);
    asm volatile("cp.async.ca.shared.global [%0], [%1], 8;" :: "r"(d), "l"(&in[32 + l]));
    asm volatile("cp.async.ca.shared.global [%0], [%1], 8;" :: "r"(d + 8), "l"((const char *)&in[32 + l] + 8));
    d = (uint32_t)__cvta_generic_to_shared(&s[64 + l]);
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;" :: "r"(d), "l"(&in[64 + l]), "r"(l & 1 ? 0 : 4));
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" :: "r"(d + 4), "l"((const char *)&in[64 + l] + 4));
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" :: "r"(d + 8), "l"((const char *)&in[64 + l] + 8));
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" :: "r"(d + 12), "l"((const char *)&in[64 + l] + 12));
    asm volatile("cp.async.commit_group;");
    asm volatile("cp.async.wait_group 0;");
    asm volatile("cp.async.wait_all;");
    __syncthreads();
    out[l] = s[l];
    out[32 + l] = s[32 + l];
    out[64 + l] = s[64 + l];
}

// wmma m16n16k16: f16 x f16 + f32 (A row-major, B col-major) and bf16.
using namespace nvcuda;
extern "C" __global__ void wmma_f16(const half *A, const half *B, const float *C, float *D)
{
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> b;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> c;
    wmma::load_matrix_sync(a, A, 16);
    wmma::load_matrix_sync(b, B, 16);
    wmma::load_matrix_sync(c, C, 16, wmma::mem_row_major);
    wmma::mma_sync(c, a, b, c);
    wmma::store_matrix_sync(D, c, 16, wmma::mem_row_major);
}

extern "C" __global__ void wmma_bf16(const __nv_bfloat16 *A, const __nv_bfloat16 *B, float *D)
{
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::col_major> a;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::row_major> b;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> c;
    wmma::fill_fragment(c, 0.0f);
    wmma::load_matrix_sync(a, A, 16);
    wmma::load_matrix_sync(b, B, 16);
    wmma::mma_sync(c, a, b, c);
    wmma::store_matrix_sync(D, c, 16, wmma::mem_col_major);
}

// f16 atomics: every thread adds to one f16, one f16x2 and one bf16x2 cell
extern "C" __global__ void atom_half(uint16_t *h, uint32_t *h2, uint32_t *b2, uint16_t *old)
{
    int l = threadIdx.x;
    uint16_t one = 0x3c00, r;           // 1.0
    uint32_t two = 0x40003800u;         // {lo 0.5, hi 2.0}
    uint32_t bf = 0xbf003f80u;          // {lo 1.0, hi -0.5}
    asm volatile("atom.global.add.noftz.f16 %0, [%1], %2;" : "=h"(r) : "l"(h), "h"(one));
    old[l] = r;
    asm volatile("red.global.add.noftz.f16x2 [%0], %1;" :: "l"(h2), "r"(two));
    asm volatile("red.global.add.noftz.bf16x2 [%0], %1;" :: "l"(b2), "r"(bf));
}
