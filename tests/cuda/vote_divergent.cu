// vote_divergent: __activemask, __ballot_sync, __any_sync and __all_sync
// inside divergent branches (data-dependent, nested) and in a block whose
// size is not a multiple of 32, checked exactly per warp against the lane
// sets the host computes.
#include "zn_test.h"

#define THREADS 80   // 2.5 warps: the last warp has 16 lanes

struct vote { unsigned active, ballot; int any, all; unsigned inner_active, inner_ballot; };

__global__ void votes(const unsigned *in, vote *out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned v = in[i];
    vote r;
    r.inner_active = 0;
    r.inner_ballot = 0;
    if (v & 1) {
        r.active = __activemask();
        r.ballot = __ballot_sync(r.active, v & 2);
        r.any = __any_sync(r.active, v & 4) != 0;
        r.all = __all_sync(r.active, v & 8) != 0;
        if (v & 16) {   // nested divergence
            r.inner_active = __activemask();
            r.inner_ballot = __ballot_sync(r.inner_active, v & 32);
        }
    } else {
        r.active = __activemask();
        r.ballot = __ballot_sync(r.active, v & 64);
        r.any = __any_sync(r.active, v & 128) != 0;
        r.all = __all_sync(r.active, v & 256) != 0;
    }
    out[i] = r;
}

// Whole (possibly partial) warp, no divergence: ballot of lane parity and
// a vote over every lane.
__global__ void votes_uniform(const unsigned *in, unsigned *ballot, int *all)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned m = __activemask();
    ballot[i] = __ballot_sync(m, in[i] & 1);
    all[i] = (__all_sync(m, 1) != 0) + 2 * (__any_sync(m, 0) != 0);
}

int main()
{
    zt_begin("vote_divergent");
    const int blocks = 37, n = blocks * THREADS;
    unsigned *x = (unsigned *)malloc(n * sizeof(unsigned));
    for (int i = 0; i < n; i++) {
        x[i] = zt_rand();
        // Some warps all odd / all even, so uniform branches are covered too.
        int warp = i / THREADS * 3 + (i % THREADS) / 32;
        if (warp % 7 == 3) x[i] |= 1 | 8;
        if (warp % 7 == 5) x[i] &= ~1u;
    }
    unsigned *dx, *dballot;
    int *dall;
    vote *dout;
    CK(cudaMalloc(&dx, n * sizeof(unsigned)));
    CK(cudaMalloc(&dout, n * sizeof(vote)));
    CK(cudaMalloc(&dballot, n * sizeof(unsigned)));
    CK(cudaMalloc(&dall, n * sizeof(int)));
    CK(cudaMemcpy(dx, x, n * sizeof(unsigned), cudaMemcpyHostToDevice));
    POISON(dout, n * sizeof(vote));
    POISON(dballot, n * sizeof(unsigned));
    POISON(dall, n * sizeof(int));
    votes<<<blocks, THREADS>>>(dx, dout);
    CK_LAUNCH();
    votes_uniform<<<blocks, THREADS>>>(dx, dballot, dall);
    CK_LAUNCH();
    vote *out = (vote *)malloc(n * sizeof(vote));
    unsigned *ballot = (unsigned *)malloc(n * sizeof(unsigned));
    int *all = (int *)malloc(n * sizeof(int));
    CK(cudaMemcpy(out, dout, n * sizeof(vote), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(ballot, dballot, n * sizeof(unsigned), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(all, dall, n * sizeof(int), cudaMemcpyDeviceToHost));

    for (int b = 0; b < blocks; b++) {
        for (int w0 = 0; w0 < THREADS; w0 += 32) {
            int lanes = THREADS - w0 < 32 ? THREADS - w0 : 32;
            const unsigned *v = x + b * THREADS + w0;
            unsigned odd = 0, even = 0, ob = 0, eb = 0, o4 = 0, o8 = 0, e128 = 0, e256 = 0;
            unsigned inner = 0, ib = 0, par = 0;
            for (int l = 0; l < lanes; l++) {
                unsigned bit = 1u << l;
                if (v[l] & 1) par |= bit;
                if (v[l] & 1) {
                    odd |= bit;
                    if (v[l] & 2) ob |= bit;
                    if (v[l] & 4) o4 |= bit;
                    if (v[l] & 8) o8 |= bit;
                    if (v[l] & 16) { inner |= bit; if (v[l] & 32) ib |= bit; }
                } else {
                    even |= bit;
                    if (v[l] & 64) eb |= bit;
                    if (v[l] & 128) e128 |= bit;
                    if (v[l] & 256) e256 |= bit;
                }
            }
            unsigned full = lanes == 32 ? 0xffffffffu : (1u << lanes) - 1;
            for (int l = 0; l < lanes; l++) {
                int i = b * THREADS + w0 + l;
                const vote *r = &out[i];
                int is_odd = v[l] & 1;
                unsigned wa = is_odd ? odd : even, wb = is_odd ? ob : eb;
                int wany = is_odd ? o4 != 0 : e128 != 0;
                int wall = is_odd ? o8 == odd : e256 == even;
                unsigned wia = is_odd && (v[l] & 16) ? inner : 0;
                unsigned wib = is_odd && (v[l] & 16) ? ib : 0;
                if (r->active != wa) zt_fail("thread %d: activemask %08x, want %08x", i, r->active, wa);
                if (r->ballot != wb) zt_fail("thread %d: ballot %08x, want %08x", i, r->ballot, wb);
                if (r->any != wany) zt_fail("thread %d: any %d, want %d", i, r->any, wany);
                if (r->all != wall) zt_fail("thread %d: all %d, want %d", i, r->all, wall);
                if (r->inner_active != wia) zt_fail("thread %d: inner activemask %08x, want %08x", i, r->inner_active, wia);
                if (r->inner_ballot != wib) zt_fail("thread %d: inner ballot %08x, want %08x", i, r->inner_ballot, wib);
                if (ballot[i] != par) zt_fail("thread %d: uniform ballot %08x, want %08x (lanes %08x)", i, ballot[i], par, full);
                if (all[i] != 1) zt_fail("thread %d: all(1)+2*any(0) = %d, want 1", i, all[i]);
            }
        }
    }
    CK(cudaFree(dx)); CK(cudaFree(dout)); CK(cudaFree(dballot)); CK(cudaFree(dall));
    free(x); free(out); free(ballot); free(all);
    return zt_finish();
}
