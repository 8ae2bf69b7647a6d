// block_shapes: Zinc compiles a kernel for the block shape of its first
// launch (%ntid constants, %tid computed from the warp index, a warp's live
// lanes known) and runs other shapes on generic code. One kernel per shape
// (a template instance) is launched with its own shape, then with another
// (generic code), then with its own again; each launch checks threadIdx and
// blockDim, the lanes __activemask() reports on entry and after some lanes
// returned, a shared-memory exchange across warps, a loop with barriers,
// and a bounds-checked store at the end (poisoned output shows strays).
#include "zn_test.h"

#define NSHAPES 10
#define GRID 3
#define ROUNDS 3
#define POISON_WORD 0xffffffffu
// masks are stored XOR this, so that a full warp's mask is not the poison
#define MASK_KEY 0x13579bdfu

// every form of zn_lower_shape.c: x a multiple of 32, x * y dividing 32,
// x dividing 32 with y a multiple of 32 / x, one warp, and none of them
// (partial last warps among them)
static const dim3 shapes[NSHAPES] = {dim3(256, 1, 1), dim3(64, 2, 2), dim3(4, 2, 8),
                                     dim3(16, 4, 2),  dim3(8, 8, 1),  dim3(5, 3, 2),
                                     dim3(33, 3, 1),  dim3(48, 1, 1), dim3(1, 64, 1),
                                     dim3(2, 16, 4)};

struct outs {
    unsigned *ids;      // 8 per thread
    unsigned *rev;      // s[nt - 1 - t] after the exchange
    unsigned *loop;     // the barrier loop's sum
    unsigned *after;    // __activemask() after `if (t >= limit) return`
    unsigned *count;    // per block: threads past the return
    unsigned *tail;     // g < n stores only
    unsigned *warpq;    // what depends on threadIdx.x / 32 (and what does not)
};

template <int S>
__global__ void shaped(outs o, unsigned limit, unsigned n)
{
    __shared__ unsigned s[1024];
    unsigned nt = blockDim.x * blockDim.y * blockDim.z;
    unsigned t = (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
    unsigned g = blockIdx.x * nt + t;
    unsigned *id = o.ids + 8 * g;
    id[0] = threadIdx.x; id[1] = threadIdx.y; id[2] = threadIdx.z;
    id[3] = blockDim.x; id[4] = blockDim.y; id[5] = blockDim.z;
    unsigned lane;
    asm("mov.u32 %0, %%laneid;" : "=r"(lane));
    id[6] = lane;
    id[7] = __activemask() ^ MASK_KEY;
    s[t] = t * 3 + 1 + S;
    __syncthreads();
    o.rev[g] = s[nt - 1 - t];
    __syncthreads();
    unsigned acc = 0;
    for (unsigned it = 0; it < ROUNDS; it++) {
        s[t] = t * (it + 1) + blockIdx.x;
        __syncthreads();
        acc += s[(t + it + 1) % nt];
        __syncthreads();
    }
    o.loop[g] = acc;
    // the same in every lane of a warp when blockDim.x % 32 == 0, except
    // the comparisons with 48 and 95 (zn_lower_uniform.c)
    unsigned x = threadIdx.x;
    o.warpq[g] = (x >> 5) * 1000 + (x < 64) * 100 + (x <= 95) * 10 + (x < 48) + (x / 64 << 20) +
                 ((x & ~31u) << 12) + (x > 127) * 200000000u;
    if (x < 32)
        atomicAdd(&o.count[blockIdx.x], 1u << 16);
    if (t >= limit)
        return;
    o.after[g] = __activemask() ^ MASK_KEY;
    atomicAdd(&o.count[blockIdx.x], 1u);
    if (g < n)
        o.tail[g] = g ^ 0x5a5au;
}

typedef void (*shaped_fn)(outs, unsigned, unsigned);
static const shaped_fn kernels[NSHAPES] = {shaped<0>, shaped<1>, shaped<2>, shaped<3>, shaped<4>,
                                           shaped<5>, shaped<6>, shaped<7>, shaped<8>, shaped<9>};

// lanes of thread t's warp that exist and are below limit
static unsigned warp_lanes(unsigned t, unsigned nt, unsigned limit)
{
    unsigned m = 0, w0 = t / 32 * 32;
    for (unsigned l = 0; l < 32; l++)
        if (w0 + l < nt && w0 + l < limit)
            m |= 1u << l;
    return m;
}

static unsigned loop_sum(unsigned t, unsigned nt, unsigned b)
{
    unsigned acc = 0;
    for (unsigned it = 0; it < ROUNDS; it++)
        acc += (t + it + 1) % nt * (it + 1) + b;
    return acc;
}

#define BAD(...) do { if (bad++ < 8) zt_fail(__VA_ARGS__); } while (0)

static void run(int k, dim3 block, const char *what)
{
    unsigned nt = block.x * block.y * block.z, total = GRID * nt;
    unsigned limit = nt * 2 / 3 + 1, n = total - 7;
    size_t words = (size_t)total * 14 + GRID;
    unsigned *dev, *host = (unsigned *)malloc(words * sizeof(unsigned));
    CK(cudaMalloc(&dev, words * sizeof(unsigned)));
    POISON(dev, words * sizeof(unsigned));
    outs o = {dev, dev + 8 * total, dev + 9 * total, dev + 10 * total, dev + 13 * total,
              dev + 11 * total, dev + 13 * total + GRID};
    CK(cudaMemset(o.count, 0, GRID * sizeof(unsigned)));
    void *args[] = {&o, &limit, &n};
    CK(cudaLaunchKernel((const void *)kernels[k], dim3(GRID), block, args, 0, 0));
    CK_LAUNCH();
    CK(cudaMemcpy(host, dev, words * sizeof(unsigned), cudaMemcpyDeviceToHost));
    const unsigned *ids = host, *rev = host + 8 * total, *loop = host + 9 * total,
                   *after = host + 10 * total, *tail = host + 11 * total,
                   *count = host + 13 * total, *warpq = host + 13 * total + GRID;
    unsigned bad = 0, g = 0;
    for (unsigned b = 0; b < GRID; b++) {
        unsigned t = 0;
        for (unsigned z = 0; z < block.z; z++)
        for (unsigned y = 0; y < block.y; y++)
        for (unsigned x = 0; x < block.x; x++, t++, g++) {
            unsigned want[8] = {x, y, z, block.x, block.y, block.z, t % 32,
                                warp_lanes(t, nt, UINT32_MAX) ^ MASK_KEY};
            for (int f = 0; f < 8; f++)
                if (ids[8 * g + f] != want[f])
                    BAD("shaped<%d> %s %ux%ux%u: thread %u field %d = %#x, want %#x", k, what,
                        block.x, block.y, block.z, g, f, ids[8 * g + f], want[f]);
            if (rev[g] != (nt - 1 - t) * 3 + 1 + k)
                BAD("shaped<%d> %s: rev[%u] = %u", k, what, g, rev[g]);
            if (loop[g] != loop_sum(t, nt, b))
                BAD("shaped<%d> %s: loop[%u] = %u, want %u", k, what, g, loop[g],
                    loop_sum(t, nt, b));
            unsigned wa = t < limit ? warp_lanes(t, nt, limit) ^ MASK_KEY : POISON_WORD;
            if (after[g] != wa)
                BAD("shaped<%d> %s: mask after the return, thread %u: %#x, want %#x", k, what,
                    g, after[g], wa);
            unsigned wq = (x >> 5) * 1000 + (x < 64) * 100 + (x <= 95) * 10 + (x < 48) +
                          (x / 64 << 20) + ((x & ~31u) << 12) + (x > 127) * 200000000u;
            if (warpq[g] != wq)
                BAD("shaped<%d> %s: warpq[%u] = %u, want %u", k, what, g, warpq[g], wq);
            unsigned wt = t < limit && g < n ? g ^ 0x5a5au : POISON_WORD;
            if (tail[g] != wt)
                BAD("shaped<%d> %s: tail[%u] = %#x, want %#x", k, what, g, tail[g], wt);
        }
        unsigned want_count = limit + ((block.x < 32 ? block.x : 32) * block.y * block.z << 16);
        if (count[b] != want_count)
            BAD("shaped<%d> %s: block %u counted %#x, want %#x", k, what, b, count[b],
                want_count);
    }
    CK(cudaFree(dev));
    free(host);
}

int main()
{
    zt_begin("block_shapes");
    for (int k = 0; k < NSHAPES; k++) {
        run(k, shapes[k], "first shape");
        run(k, shapes[(k + 1) % NSHAPES], "another shape");
        run(k, shapes[k], "first shape again");
    }
    return zt_finish();
}
