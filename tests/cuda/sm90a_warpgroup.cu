// sm90a_warpgroup.cu: sm_90a's warp-specialised kernel shape (CUTLASS's
// producer and consumer warpgroups) through Zinc.
//
// A 384-thread block is three warpgroups: the producer (warpgroup 0) gives
// registers back with setmaxnreg.dec, the two consumers take more with
// setmaxnreg.inc, as CUTLASS's Hopper kernels do. The producer fills a
// shared tile; after a barrier each consumer computes its half of a row
// transform that the test checks against a CPU reference. setmaxnreg only
// moves registers between warpgroups on the GPU, so the results must be
// those of the same kernel without it. The kernel also reads
// %current_graph_exec, which is 0 in any kernel that is not part of a
// device graph: a plain launch and a replayed host graph.
#include "zn_test.h"

static const int ROW = 256, ROWS = 64, THREADS = 384;

__global__ void __launch_bounds__(384, 1)
specialised(const float *in, float *out, unsigned long long *graph_exec)
{
    __shared__ float tile[ROW];
    const int wg = threadIdx.x / 128, t = threadIdx.x % 128;
    if (wg == 0) {
        asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n" ::: "memory");
        for (int i = t; i < ROW; i += 128)
            tile[i] = in[blockIdx.x * ROW + i] * 2.0f;
    } else {
        asm volatile("setmaxnreg.inc.sync.aligned.u32 232;\n" ::: "memory");
    }
    __syncthreads();
    if (wg > 0) {
        int i = (wg - 1) * 128 + t;
        out[blockIdx.x * ROW + i] = tile[i] + tile[ROW - 1 - i] * 0.5f;
    }
    if (threadIdx.x == 0) {
        unsigned long long g;
        asm volatile("mov.u64 %0, %%current_graph_exec;" : "=l"(g));
        graph_exec[blockIdx.x] = g;
    }
}

static void check(const char *what, const float *in, const float *out, const unsigned long long *ge)
{
    for (int r = 0; r < ROWS; r++) {
        for (int i = 0; i < ROW; i++) {
            float want = in[r * ROW + i] * 2.0f + in[r * ROW + ROW - 1 - i] * 2.0f * 0.5f;
            if (out[r * ROW + i] != want) {
                zt_fail("%s: row %d element %d: got %g, want %g", what, r, i, out[r * ROW + i], want);
                return;
            }
        }
        if (ge[r] != 0) {
            zt_fail("%s: block %d read %%current_graph_exec = %#llx, want 0 outside a device graph",
                    what, r, ge[r]);
            return;
        }
    }
}

int main()
{
    zt_begin("sm90a_warpgroup");
    const size_t n = (size_t)ROW * ROWS;
    float *in, *out;
    unsigned long long *ge;
    CK(cudaMallocManaged(&in, n * sizeof(float)));
    CK(cudaMallocManaged(&out, n * sizeof(float)));
    CK(cudaMallocManaged(&ge, ROWS * sizeof(*ge)));
    for (size_t i = 0; i < n; i++)
        in[i] = zt_randf(-4.0f, 4.0f);

    // a plain launch (output poisoned first)
    memset(out, 0xff, n * sizeof(float));
    memset(ge, 0xa5, ROWS * sizeof(*ge));
    specialised<<<ROWS, THREADS>>>(in, out, ge);
    CK_LAUNCH();
    CK(cudaDeviceSynchronize());
    check("launch", in, out, ge);

    // the same launch captured into a host graph and replayed twice
    cudaStream_t s;
    cudaGraph_t g;
    cudaGraphExec_t x;
    CK(cudaStreamCreate(&s));
    CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    specialised<<<ROWS, THREADS, 0, s>>>(in, out, ge);
    CK(cudaStreamEndCapture(s, &g));
    CK(cudaGraphInstantiate(&x, g, 0));
    for (int rep = 0; rep < 2; rep++) {
        memset(out, 0xff, n * sizeof(float));
        memset(ge, 0xa5, ROWS * sizeof(*ge));
        CK(cudaGraphLaunch(x, s));
        CK(cudaStreamSynchronize(s));
        check("graph replay", in, out, ge);
    }
    CK(cudaGraphExecDestroy(x));
    CK(cudaGraphDestroy(g));
    CK(cudaStreamDestroy(s));
    CK(cudaFree(in));
    CK(cudaFree(out));
    CK(cudaFree(ge));
    return zt_finish();
}
