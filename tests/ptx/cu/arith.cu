// Integer and float arithmetic of all kinds, conversions, 3D indexing.
#include <cstdint>
__global__ void int_ops(int *out, const int *a, const int *b, unsigned n)
{
    unsigned x = blockIdx.x * blockDim.x + threadIdx.x;
    if (x >= n) return;
    int p = a[x], q = b[x] | 1;
    unsigned u = (unsigned)p;
    out[x * 16 + 0] = p + q;
    out[x * 16 + 1] = p - q;
    out[x * 16 + 2] = p * q;
    out[x * 16 + 3] = p / q;
    out[x * 16 + 4] = p % q;
    out[x * 16 + 5] = (int)(u / (unsigned)q);
    out[x * 16 + 6] = __mulhi(p, q);
    out[x * 16 + 7] = __popc(u) + __clz(p) + __ffs(p);
    out[x * 16 + 8] = (p << (q & 31)) ^ (int)(u >> 3) ^ (p >> 2);
    out[x * 16 + 9] = min(p, q) + max(p, q) + abs(p);
    out[x * 16 + 10] = __brev(u);
    out[x * 16 + 11] = __byte_perm(p, q, 0x5410);
    out[x * 16 + 12] = __funnelshift_l(p, q, 7);
    out[x * 16 + 13] = __sad(p, q, 3);
    long long w = (long long)p * q;
    out[x * 16 + 14] = (int)(w >> 17) + (int)((unsigned long long)w % 1000003ull);
    out[x * 16 + 15] = __dp4a(p, q, 5) + __umul24(u, 77);
}

__global__ void float_ops(float *out, const float *a, const float *b, int n)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    if (x >= n) return;
    float p = a[x], q = b[x];
    out[x * 16 + 0] = p + q * 2.5f;
    out[x * 16 + 1] = fmaf(p, q, 1.0f);
    out[x * 16 + 2] = p / q;
    out[x * 16 + 3] = sqrtf(fabsf(p));
    out[x * 16 + 4] = __sinf(p) + __cosf(q) + __expf(p) + __logf(fabsf(q) + 1.0f);
    out[x * 16 + 5] = rsqrtf(fabsf(q) + 1.0f) + __frcp_rn(q);
    out[x * 16 + 6] = fminf(p, q) + fmaxf(p, q);
    out[x * 16 + 7] = floorf(p) + ceilf(q) + truncf(p) + rintf(q) + roundf(p);
    out[x * 16 + 8] = (float)(int)p + (float)(unsigned)q;
    out[x * 16 + 9] = __saturatef(p) + copysignf(p, q);
    out[x * 16 + 10] = sinf(p) + expf(q) + logf(fabsf(p) + 1.f) + powf(fabsf(p), q);
    out[x * 16 + 11] = tanhf(p) + atan2f(p, q);
    out[x * 16 + 12] = __fdividef(p, q) + __fmul_rz(p, q) + __fadd_rd(p, q);
    out[x * 16 + 13] = isnan(p) ? 1.f : (isinf(q) ? 2.f : 3.f);
    out[x * 16 + 14] = (float)__float2int_rn(p) + (float)__float2uint_rz(q);
    out[x * 16 + 15] = (p < q) ? p : -q;
}

__global__ void double_ops(double *out, const double *a, const float *b, long long n)
{
    long long x = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (x >= n) return;
    double p = a[x], q = b[x];
    out[x * 8 + 0] = p * q + p / q;
    out[x * 8 + 1] = fma(p, q, 3.0);
    out[x * 8 + 2] = sqrt(fabs(p)) + rsqrt(fabs(q) + 1.0);
    out[x * 8 + 3] = exp(p) + log(fabs(q) + 1.0) + sin(p) + cos(q);
    out[x * 8 + 4] = (double)(long long)p + (double)(unsigned long long)fabs(q);
    out[x * 8 + 5] = (double)(float)p + floor(q) + fmin(p, q);
    out[x * 8 + 6] = __longlong_as_double(__double_as_longlong(p) ^ 1);
    out[x * 8 + 7] = pow(p, 2.5) + 1e300 * q;
}

__global__ void index3d(int *out, int nx, int ny, int nz)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int z = blockIdx.z * blockDim.z + threadIdx.z;
    if (x < nx && y < ny && z < nz)
        out[(z * ny + y) * nx + x] = x + 1000 * y + 1000000 * z + gridDim.x + gridDim.y * gridDim.z;
}

__global__ void conversions(int8_t *o8, short *o16, unsigned long long *o64, float *of, const double *in, int n)
{
    int i = threadIdx.x + blockIdx.x * blockDim.x;
    if (i >= n) return;
    double d = in[i];
    o8[i] = (int8_t)d;
    o16[i] = (short)(float)d;
    o64[i] = (unsigned long long)d + (unsigned char)o8[i];
    of[i] = (float)d + (float)(long long)d + __int_as_float((int)o16[i]);
}
