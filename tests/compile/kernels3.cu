// Kernels for the compiler's fast paths: memory accesses of every shape
// (contiguous under a partial mask, uniform, gather/scatter, .v2/.v4,
// shared), thread indices for blocks whose ntid.x is not a multiple of 32
// and 2D/3D blocks, invariant registers and uniform branches inside
// divergent loops, and the approximate math instructions. kernels3.ptx is
// generated with:
//   nvcc -arch=sm_80 -ptx -o kernels3.ptx kernels3.cu

extern "C" __global__ void shapes(const float *a, const int *perm, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float c = a[i];              // contiguous; the last warp is partial
        float u = a[blockIdx.x];     // the same address in every lane
        float g = a[perm[i]];        // irregular
        out[i] = c + 2.0f * u + 4.0f * g;
        out[n + 2 * i] = c;          // strided store (scatter)
    }
}

extern "C" __global__ void shapes_vec(const float4 *a, float2 *o2, double2 *od, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float4 v = a[i];
        o2[i] = make_float2(v.x + v.y, v.z * v.w);
        od[i] = make_double2(v.x, (double)v.w * 0.5);
    }
}

// one lane-dependent value stored to one address by several lanes
extern "C" __global__ void same_store(int *out)
{
    if (threadIdx.x % 7 == 2)
        out[blockIdx.x] = threadIdx.x;
}

// shared memory: contiguous write, reversed and pairwise-swapped reads
extern "C" __global__ void shared_shapes(const int *a, int *out)
{
    __shared__ int s[32];
    int t = threadIdx.x;
    s[t] = a[t] * 3;
    __syncwarp();
    out[t] = s[31 - t] + 1000 * s[t ^ 1] + 100000 * s[0];
}

extern "C" __global__ void tids(unsigned *out)
{
    unsigned blk = (blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x;
    unsigned lin = blk * (blockDim.x * blockDim.y * blockDim.z) +
                   (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
    out[lin * 3 + 0] = threadIdx.x;
    out[lin * 3 + 1] = threadIdx.y;
    out[lin * 3 + 2] = threadIdx.z;
}

// divergent trip counts; a uniform branch and loads inside the loop;
// a register written in one branch only
extern "C" __global__ void diverge(const int *a, int *out, int n, int flag)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int acc = 0;
    for (int k = 0; k < (t & 7) + 1; k++) {
        acc += a[(t + k) % n] + (int)blockDim.x * 3;
        if (flag > 0)
            acc ^= k * 17;
        else
            acc += k;
    }
    int w = t * 5 + 1;
    if (t % 3 == 0)
        w = a[t % n];
    out[t] = acc + w;
}

extern "C" __global__ void approx(const float *x, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float v = x[i], r;
    asm("ex2.approx.f32 %0, %1;" : "=f"(r) : "f"(v));
    out[0 * n + i] = r;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(v));
    out[1 * n + i] = r;
    asm("lg2.approx.f32 %0, %1;" : "=f"(r) : "f"(v));
    out[2 * n + i] = r;
    asm("lg2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(v));
    out[3 * n + i] = r;
    asm("sin.approx.f32 %0, %1;" : "=f"(r) : "f"(v));
    out[4 * n + i] = r;
    asm("cos.approx.f32 %0, %1;" : "=f"(r) : "f"(v));
    out[5 * n + i] = r;
    asm("tanh.approx.f32 %0, %1;" : "=f"(r) : "f"(v));
    out[6 * n + i] = r;
    asm("rsqrt.approx.f32 %0, %1;" : "=f"(r) : "f"(v));
    out[7 * n + i] = r;
    asm("rcp.approx.f32 %0, %1;" : "=f"(r) : "f"(v));
    out[8 * n + i] = r;
}

// a uniform loop inside `if (i < n)`, rows read with a stride (gathers)
extern "C" __global__ void rowsum(const float *a, float *out, int n, int m)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float acc = 0.0f;
        for (int k = 0; k < m; k++)
            acc += a[i * m + k] * (float)(k + 1);
        out[i] = acc;
    }
}

// 2D blocks narrower than a warp: with blockDim.x == 16 each half warp is
// one row, so a[y][k] is uniform and a[k][x] contiguous per half
extern "C" __global__ void rows2d(const float *a, float *out, int w)
{
    int x = threadIdx.x, y = threadIdx.y + blockIdx.y * blockDim.y;
    float acc = 0.0f;
    for (int k = 0; k < w; k++)
        acc += a[y * w + k] * a[k * w + x];
    out[y * w + x] = acc;
}

// lanes past n return at once; the rest read a count through a pointer
// (a uniform load), loop on it, vote among themselves and store through a
// uniform address
extern "C" __global__ void tail_ops(const int *a, int *out, int n, const int *cnt)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int c = *cnt;
    int s = 0;
    for (int k = 0; k < c; k++)
        s += a[(i + k) % n];
    unsigned b = __ballot_sync(__activemask(), s & 1);
    out[i] = s + __popc(b);
    if (threadIdx.x % 32 == 3)
        out[n + blockIdx.x] = c + 1000 * (int)(threadIdx.x / 32);
}
