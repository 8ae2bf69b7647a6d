// Newer features: scoped atomics, acquire/release loads, bf16x2, fp8,
// wmma tensor-core fragments, cp.async pipelines, clocks, lane masks,
// structs by value, cluster dims, trap, nanosleep.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <mma.h>
#include <cuda/atomic>
#if __CUDA_ARCH__ >= 890 || !defined(__CUDA_ARCH__)
#include <cuda_fp8.h>
#endif
#include <cuda_pipeline.h>
using namespace nvcuda;

struct Params { float scale; int n; double bias; };
struct Pair { int a; int b; };

__device__ __noinline__ Pair make_pair(int x) { return Pair{x, x * 2}; }

__global__ void kstruct(Params p, float *out, Pair q)
{
    int i = threadIdx.x;
    Pair r = make_pair(i + q.a);
    if (i < p.n) out[i] = p.scale * i + (float)p.bias + r.b + q.b;
}

__global__ void kscoped(int *c, int *flag, int *data)
{
    atomicAdd_block(&c[0], 1);
    atomicAdd_system(&c[1], 1);
    cuda::atomic_ref<int, cuda::thread_scope_device> a(c[2]);
    a.fetch_add(1, cuda::memory_order_relaxed);
    if (threadIdx.x == 0) {
        data[0] = 42;
        cuda::atomic_ref<int, cuda::thread_scope_system> f(*flag);
        f.store(1, cuda::memory_order_release);
    }
    cuda::atomic_ref<int, cuda::thread_scope_system> f2(*flag);
    while (f2.load(cuda::memory_order_acquire) == 0) __nanosleep(100);
    __threadfence();
    __threadfence_block();
    __threadfence_system();
    c[3] = data[0];
    if (c[4] == 12345) __trap();
}

#if __CUDA_ARCH__ >= 800
__global__ void kbf162(__nv_bfloat162 *o, const __nv_bfloat162 *a, __half2 *h)
{
    int i = threadIdx.x;
    o[i] = __hfma2(a[i], a[i], __float2bfloat162_rn(1.0f));
    h[i] = __hmax2(h[i], __hmin2(h[i], __float2half2_rn(0.5f)));
}
#endif

#if __CUDA_ARCH__ >= 890
__global__ void kfp8(__nv_fp8_e4m3 *o, const float *in)
{
    int i = threadIdx.x;
    o[i] = __nv_fp8_e4m3(in[i] * 2.0f);
}
#endif

__global__ void kwmma(float *c, const half *a, const half *b)
{
#if __CUDA_ARCH__ >= 700
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
    wmma::fill_fragment(fc, 0.0f);
    wmma::load_matrix_sync(fa, a, 16);
    wmma::load_matrix_sync(fb, b, 16);
    wmma::mma_sync(fc, fa, fb, fc);
    wmma::store_matrix_sync(c, fc, 16, wmma::mem_row_major);
#endif
}

__global__ void kasync(float *out, const float *in)
{
    __shared__ __align__(16) float tile[256];
    int t = threadIdx.x;
    __pipeline_memcpy_async(&tile[t * 4], &in[blockIdx.x * 1024 + t * 4], 16);
    __pipeline_commit();
    __pipeline_wait_prior(0);
    __syncthreads();
    out[blockIdx.x * 256 + t] = tile[(t * 7) & 255];
}

__global__ void kclock(long long *o, unsigned *m)
{
    long long c0 = clock64();
    unsigned lt, gt;
    asm volatile("mov.u32 %0, %%lanemask_lt;" : "=r"(lt));
    asm volatile("mov.u32 %0, %%lanemask_gt;" : "=r"(gt));
    long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    o[threadIdx.x] = clock64() - c0 + (t & 1) + clock();
    m[threadIdx.x] = lt ^ gt ^ __activemask();
}

__global__ void kbits(unsigned *o, const unsigned *in)
{
    unsigned x = in[threadIdx.x];
    unsigned r;
    asm("bfe.u32 %0, %1, 3, 5;" : "=r"(r) : "r"(x));
    unsigned s;
    asm("bfi.b32 %0, %1, %2, 8, 4;" : "=r"(s) : "r"(x), "r"(r));
    unsigned l3;
    asm("lop3.b32 %0, %1, %2, %3, 0x96;" : "=r"(l3) : "r"(x), "r"(s), "r"(r));
    o[threadIdx.x] = r + s + l3 + __fns(x, 0, 3) + __dp2a_lo(x, s, 7u) + __vabsdiffu4(x, s);
}

#if __CUDA_ARCH__ >= 900
__global__ void __cluster_dims__(2, 1, 1) kcluster(int *o)
{
    o[blockIdx.x] = blockIdx.x;
}
#endif
