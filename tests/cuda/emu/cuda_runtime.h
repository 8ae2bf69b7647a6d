/* emu/cuda_runtime.h: a tiny CUDA emulator on the host, used only to check
 * the CUDA test programs' own logic (their host references and checks)
 * without a GPU and without Zinc. Not a CUDA implementation: one block at a
 * time, each thread a ucontext fiber on one OS thread, so atomics are plain
 * read-modify-writes; __syncthreads and the warp shuffles/votes are
 * rendezvous between fibers. __activemask and the math intrinsics are not
 * emulated (vote_divergent and math are not run here).
 * Kernel launches are rewritten to zt_launch(...) by launch_syntax.py. */
#pragma once
#include <ucontext.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <algorithm>
#include <functional>
using std::max;
using std::min;

#define __global__
#define __device__
#define __host__
#define __constant__
#define __noinline__ __attribute__((noinline))
#define __shared__ static   /* blocks run one after another */

struct dim3 {
    unsigned x, y, z;
    dim3(unsigned a = 1, unsigned b = 1, unsigned c = 1) : x(a), y(b), z(c) {}
};
typedef int cudaError_t;
enum { cudaSuccess = 0 };
enum cudaMemcpyKind { cudaMemcpyHostToDevice, cudaMemcpyDeviceToHost, cudaMemcpyDeviceToDevice, cudaMemcpyDefault };
enum cudaLimit { cudaLimitStackSize };

static inline const char *cudaGetErrorString(int) { return "emulated"; }
static inline int cudaGetLastError() { return 0; }
static inline int cudaDeviceSynchronize() { fflush(stdout); return 0; }
static inline int cudaDeviceSetLimit(cudaLimit, size_t) { return 0; }
template <class T> static inline int cudaMalloc(T **p, size_t n) { *p = (T *)malloc(n); return 0; }
static inline int cudaFree(void *p) { free(p); return 0; }
static inline int cudaMemcpy(void *d, const void *s, size_t n, cudaMemcpyKind) { memcpy(d, s, n); return 0; }
static inline int cudaMemset(void *d, int v, size_t n) { memset(d, v, n); return 0; }
template <class T> static inline int cudaMemcpyToSymbol(T &sym, const void *s, size_t n, size_t off = 0,
                                                        cudaMemcpyKind = cudaMemcpyHostToDevice)
{ memcpy((char *)&sym + off, s, n); return 0; }
template <class T> static inline int cudaMemcpyFromSymbol(void *d, T &sym, size_t n, size_t off = 0,
                                                          cudaMemcpyKind = cudaMemcpyDeviceToHost)
{ memcpy(d, (char *)&sym + off, n); return 0; }
template <class T> static inline int cudaGetSymbolAddress(void **p, T &sym) { *p = (void *)&sym; return 0; }
template <class T> static inline int cudaGetSymbolSize(size_t *s, T &sym) { *s = sizeof(sym); return 0; }

struct zt_fiber { ucontext_t ctx; dim3 tid; int done; unsigned seq; };
static zt_fiber *zt_cur, *zt_fibers;
static ucontext_t zt_sched;
static dim3 zt_bidx, zt_bdim, zt_gdim;
static int zt_live, zt_bar_count, zt_bar_gen;
static std::function<void()> zt_body;
alignas(16) static char zt_dyn_shared[65536];

#define threadIdx (zt_cur->tid)
#define blockIdx zt_bidx
#define blockDim zt_bdim
#define gridDim zt_gdim

static inline void zt_yield() { swapcontext(&zt_cur->ctx, &zt_sched); }

/* Exited threads no longer count at a barrier. */
static inline void __syncthreads()
{
    int gen = zt_bar_gen;
    if (++zt_bar_count == zt_live) { zt_bar_count = 0; zt_bar_gen++; return; }
    while (zt_bar_gen == gen)
        zt_yield();
}

static void zt_entry()
{
    zt_body();
    zt_cur->done = 1;
    zt_live--;
    if (zt_bar_count && zt_bar_count == zt_live) { zt_bar_count = 0; zt_bar_gen++; }
}

/* Warp rendezvous: each lane counts its warp operations (seq); a lane
 * deposits its value in slot seq and waits until every lane of the mask has
 * deposited its value for the same seq. */
#define ZT_SLOTS 8
static uint64_t zt_wval[33][ZT_SLOTS][32];
static int zt_lane_linear() { return (int)((threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x); }
static void zt_exchange(unsigned mask, uint64_t v, uint64_t *out)
{
    int lin = zt_lane_linear(), w = lin / 32, l = lin % 32;
    zt_fiber *base = zt_fibers + w * 32;
    unsigned s = zt_cur->seq++;
    zt_wval[w % 33][s % ZT_SLOTS][l] = v;
    for (;;) {
        int ok = 1;
        for (int k = 0; k < 32; k++)
            if ((mask >> k & 1) && base[k].seq <= s)
                ok = 0;
        if (ok)
            break;
        zt_yield();
    }
    memcpy(out, zt_wval[w % 33][s % ZT_SLOTS], 32 * sizeof(uint64_t));
}
template <class T> static inline T zt_shfl(unsigned mask, T v, int src)
{
    uint64_t u = 0, all[32];
    memcpy(&u, &v, sizeof v);
    zt_exchange(mask, u, all);
    T r;
    memcpy(&r, &all[src], sizeof r);
    return r;
}
/* Sources outside the lane's width segment give the lane its own value. */
template <class T> static inline T __shfl_sync(unsigned m, T v, int src, int w = 32)
{ int l = zt_lane_linear() % 32; return zt_shfl(m, v, (l & ~(w - 1)) + (src % w)); }
template <class T> static inline T __shfl_down_sync(unsigned m, T v, unsigned d, int w = 32)
{ int l = zt_lane_linear() % 32; return zt_shfl(m, v, l % w + (int)d < w ? l + (int)d : l); }
template <class T> static inline T __shfl_up_sync(unsigned m, T v, unsigned d, int w = 32)
{ int l = zt_lane_linear() % 32; return zt_shfl(m, v, l % w - (int)d >= 0 ? l - (int)d : l); }
template <class T> static inline T __shfl_xor_sync(unsigned m, T v, int x, int w = 32)
{ int l = zt_lane_linear() % 32; return zt_shfl(m, v, (l ^ x) < ((l & ~(w - 1)) + w) ? (l ^ x) : l); }
static inline unsigned __ballot_sync(unsigned m, int p)
{
    uint64_t a[32];
    zt_exchange(m, p != 0, a);
    unsigned r = 0;
    for (int k = 0; k < 32; k++)
        if ((m >> k & 1) && a[k])
            r |= 1u << k;
    return r;
}
static inline int __any_sync(unsigned m, int p) { return __ballot_sync(m, p) != 0; }
static inline int __all_sync(unsigned m, int p) { return __ballot_sync(m, p) == m; }

/* One OS thread: a read-modify-write between yields is atomic. CAS and
 * exchange yield so that other threads interleave with their retry loops. */
template <class T> static inline T atomicAdd(T *p, T v) { T o = *p; *p = o + v; return o; }
template <class T> static inline T atomicSub(T *p, T v) { T o = *p; *p = o - v; return o; }
template <class T> static inline T atomicMax(T *p, T v) { T o = *p; *p = std::max(o, v); return o; }
template <class T> static inline T atomicMin(T *p, T v) { T o = *p; *p = std::min(o, v); return o; }
template <class T> static inline T atomicAnd(T *p, T v) { T o = *p; *p = o & v; return o; }
template <class T> static inline T atomicOr(T *p, T v) { T o = *p; *p = o | v; return o; }
template <class T> static inline T atomicXor(T *p, T v) { T o = *p; *p = o ^ v; return o; }
template <class T> static inline T atomicExch(T *p, T v) { T o = *p; *p = v; zt_yield(); return o; }
template <class T> static inline T atomicCAS(T *p, T c, T v) { T o = *p; if (o == c) *p = v; zt_yield(); return o; }
static inline unsigned atomicInc(unsigned *p, unsigned v) { unsigned o = *p; *p = o >= v ? 0 : o + 1; return o; }

static void zt_launch(dim3 g, dim3 b, size_t shmem, std::function<void()> body)
{
    const size_t stack = 256 * 1024;
    static char *stacks;
    int n = (int)(b.x * b.y * b.z);
    if (!stacks)
        stacks = (char *)malloc(stack * 1024);   /* pages touched lazily */
    if (n > 1024 || shmem > sizeof zt_dyn_shared) {
        fprintf(stderr, "emu: launch too large\n");
        exit(2);
    }
    zt_gdim = g;
    zt_bdim = b;
    zt_body = body;
    zt_fibers = new zt_fiber[n];
    for (unsigned bz = 0; bz < g.z; bz++)
    for (unsigned by = 0; by < g.y; by++)
    for (unsigned bx = 0; bx < g.x; bx++) {
        zt_bidx = dim3(bx, by, bz);
        zt_live = n;
        zt_bar_count = 0;
        for (int t = 0; t < n; t++) {
            zt_fiber *f = &zt_fibers[t];
            f->tid = dim3(t % b.x, t / b.x % b.y, t / (b.x * b.y));
            f->done = 0;
            f->seq = 0;
            getcontext(&f->ctx);
            f->ctx.uc_stack.ss_sp = stacks + t * stack;
            f->ctx.uc_stack.ss_size = stack;
            f->ctx.uc_link = &zt_sched;
            makecontext(&f->ctx, zt_entry, 0);
        }
        for (int left = n; left;) {
            left = 0;
            for (int t = 0; t < n; t++)
                if (!zt_fibers[t].done) {
                    zt_cur = &zt_fibers[t];
                    swapcontext(&zt_sched, &zt_cur->ctx);
                    left += !zt_fibers[t].done;
                }
        }
    }
    delete[] zt_fibers;
}
