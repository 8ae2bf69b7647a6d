// Shared memory reductions, atomics, warp primitives, launch bounds.
__global__ void __launch_bounds__(256, 2) reduce_sum(const float *in, float *out, int n)
{
    __shared__ float buf[256];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x * 2 + t;
    float v = 0.f;
    if (i < n) v = in[i];
    if (i + blockDim.x < n) v += in[i + blockDim.x];
    buf[t] = v;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s) buf[t] += buf[t + s];
        __syncthreads();
    }
    if (t == 0) atomicAdd(out, buf[0]);
}

__global__ void atomics(int *ci, unsigned *cu, float *cf, unsigned long long *c64, double *cd)
{
    int t = threadIdx.x + blockIdx.x * blockDim.x;
    atomicAdd(&ci[0], 1);
    atomicSub(&ci[1], 2);
    atomicMax(&ci[2], t);
    atomicMin(&ci[3], -t);
    atomicExch(&ci[4], t);
    int old = ci[5];
    int assumed;
    do { assumed = old; old = atomicCAS(&ci[5], assumed, assumed + t); } while (old != assumed);
    atomicAnd(&cu[0], ~(1u << (t & 31)));
    atomicOr(&cu[1], 1u << (t & 31));
    atomicXor(&cu[2], (unsigned)t);
    atomicInc(&cu[3], 100u);
    atomicDec(&cu[4], 100u);
    atomicAdd(&cf[0], 0.5f);
    atomicExch(&cf[1], (float)t);
    atomicAdd(&c64[0], 3ull);
    atomicCAS(&c64[1], 0ull, (unsigned long long)t);
    atomicAdd(&cd[0], 1.0);
    atomicMax(&cu[5], (unsigned)t);
}

__global__ void warp_ops(int *out, const int *in)
{
    int t = threadIdx.x;
    int v = in[t + blockIdx.x * blockDim.x];
    unsigned m = __activemask();
    int s = v;
    for (int o = 16; o > 0; o /= 2) s += __shfl_down_sync(0xffffffff, s, o);
    int u = __shfl_up_sync(0xffffffff, v, 1);
    int x = __shfl_xor_sync(0xffffffff, v, 3);
    int b = __shfl_sync(0xffffffff, v, 0);
    unsigned bal = __ballot_sync(0xffffffff, v > 0);
    int any = __any_sync(0xffffffff, v > 10);
    int all = __all_sync(0xffffffff, v > -10);
    float f = __shfl_sync(m, (float)v, t ^ 1, 16);
    out[t] = s + u + x + b + (int)bal + any + all + (int)f + __popc(m) + __syncthreads_count(v > 0);
    __syncwarp();
    if (__syncthreads_or(v == 3)) out[t] += __syncthreads_and(v != 7);
}

extern __shared__ float dyn[];
__global__ void dyn_shared(float *out, int n)
{
    int t = threadIdx.x;
    dyn[t] = (float)t;
    __syncthreads();
    out[t] = dyn[(t + 1) % blockDim.x] + dyn[n - 1];
}

__global__ void __launch_bounds__(128) sm90_ops(unsigned *out, const unsigned *in)
{
    unsigned v = in[threadIdx.x];
#if __CUDA_ARCH__ >= 800
    out[threadIdx.x] = __reduce_add_sync(0xffffffff, v) + __reduce_max_sync(0xffffffff, v)
        + __match_any_sync(0xffffffff, v);
#else
    out[threadIdx.x] = v;
#endif
}
