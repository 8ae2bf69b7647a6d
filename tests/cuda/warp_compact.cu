// warp_compact: the ballot-and-compact loops of stream compaction and of
// cuda-samples' cdpQuadtree, where some lanes of a warp skip an if-arm
// and all must meet again at the next __shfl_sync / __ballot_sync. nvcc
// puts such a loop's latch above its header, and a `continue` jumps to
// the header itself: lanes that skip the arm must wait there for the
// others, not run the next iteration alone (src/compile/zn_lower_layout.c).
// Checked exactly against the host: per-warp quadrant counts, the
// compacted output in order, and a loop with `continue` whose shuffles
// sum values across the warp.
#include "zn_test.h"

#define N 1000
#define WARPS 4

// Each warp moves its share of the points to four output ranges (one per
// quadrant), in order, as cdpQuadtree's build step does.
__global__ void quadrants(const float *x, const float *y, float *ox, float *oy, int n,
                          float cx, float cy, int *counts)
{
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    int per = (n + WARPS - 1) / WARPS;
    int begin = warp * per, end = min(begin + per, n);
    unsigned lt = (1u << lane) - 1;
    int c[4] = {warp * 1000, 4000 + warp * 1000, 8000 + warp * 1000, 12000 + warp * 1000};
    for (int it = begin + lane; __any_sync(~0u, it < end); it += 32) {
        bool act = it < end;
        float px = act ? x[it] : 0.f, py = act ? y[it] : 0.f;
        for (int q = 0; q < 4; q++) {
            bool right = q & 1, low = q & 2;
            bool pred = act && (px >= cx) == right && (py < cy) == low;
            unsigned vote = __ballot_sync(~0u, pred);
            int dest = c[q] + __popc(vote & lt);
            if (pred) {
                ox[dest] = px;
                oy[dest] = py;
            }
            c[q] += __shfl_sync(~0u, __popc(vote), 0);
        }
    }
    if (lane == 0)
        for (int q = 0; q < 4; q++)
            counts[warp * 4 + q] = c[q];
}

// A loop whose `continue` jumps back to the header from the middle of the
// body: every iteration's warp sum (at the top) must include all 32 lanes,
// also those whose last iteration took the longer path.
__global__ void continue_sums(const int *v, int rounds, int *out, int *trace)
{
    int lane = threadIdx.x;
    int acc = 0;
    for (int r = 0; r < rounds; r++) {
        int x = v[r * 32 + lane];
        int s = x;
        for (int o = 16; o; o >>= 1)
            s += __shfl_xor_sync(~0u, s, o);
        acc += s;
        if (x & 1)
            continue;
        for (int k = 0; k < (x & 6); k++)   // a path of its own length
            trace[r * 32 + lane] += k + x;
    }
    out[lane] = acc;
}

int main()
{
    zt_begin("warp_compact");
    static float hx[N], hy[N], hox[16000], hoy[16000];
    for (int i = 0; i < N; i++) {
        hx[i] = zt_randf(0.f, 1.f);
        hy[i] = zt_randf(0.f, 1.f);
    }
    float *x, *y, *ox, *oy;
    int *counts;
    CK(cudaMalloc(&x, N * sizeof(float)));
    CK(cudaMalloc(&y, N * sizeof(float)));
    CK(cudaMalloc(&ox, 16000 * sizeof(float)));
    CK(cudaMalloc(&oy, 16000 * sizeof(float)));
    CK(cudaMalloc(&counts, 16 * sizeof(int)));
    CK(cudaMemcpy(x, hx, sizeof hx, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(y, hy, sizeof hy, cudaMemcpyHostToDevice));
    CK(cudaMemset(ox, 0xff, 16000 * sizeof(float)));
    CK(cudaMemset(oy, 0xff, 16000 * sizeof(float)));
    CK(cudaMemset(counts, 0xff, 16 * sizeof(int)));
    quadrants<<<1, 32 * WARPS>>>(x, y, ox, oy, N, 0.5f, 0.5f, counts);
    CK_LAUNCH();
    int hc[16];
    CK(cudaMemcpy(hc, counts, sizeof hc, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(hox, ox, sizeof hox, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(hoy, oy, sizeof hoy, cudaMemcpyDeviceToHost));
    int per = (N + WARPS - 1) / WARPS;
    for (int w = 0; w < WARPS; w++)
        for (int q = 0; q < 4; q++) {
            int at = q * 4000 + w * 1000;
            for (int i = w * per; i < (w + 1) * per && i < N; i++) {
                bool right = q & 1, low = q & 2;
                if ((hx[i] >= 0.5f) != right || (hy[i] < 0.5f) != low)
                    continue;
                if (hox[at] != hx[i] || hoy[at] != hy[i])
                    zt_fail("warp %d quadrant %d slot %d: (%g, %g), want point %d (%g, %g)",
                            w, q, at, hox[at], hoy[at], i, hx[i], hy[i]);
                at++;
            }
            if (hc[w * 4 + q] != at)
                zt_fail("warp %d quadrant %d: end %d, want %d", w, q, hc[w * 4 + q], at);
        }

    const int rounds = 40;
    static int hv[rounds * 32];
    for (int i = 0; i < rounds * 32; i++)
        hv[i] = (int)(zt_rand() % 1000);
    static int htrace[rounds * 32];
    int *v, *out, *trace, hout[32];
    CK(cudaMalloc(&v, sizeof hv));
    CK(cudaMalloc(&out, 32 * sizeof(int)));
    CK(cudaMalloc(&trace, sizeof htrace));
    CK(cudaMemcpy(v, hv, sizeof hv, cudaMemcpyHostToDevice));
    CK(cudaMemset(out, 0xff, 32 * sizeof(int)));
    CK(cudaMemset(trace, 0, sizeof htrace));
    continue_sums<<<1, 32>>>(v, rounds, out, trace);
    CK_LAUNCH();
    CK(cudaMemcpy(hout, out, sizeof hout, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(htrace, trace, sizeof htrace, cudaMemcpyDeviceToHost));
    int want = 0;
    for (int r = 0; r < rounds; r++)
        for (int l = 0; l < 32; l++) {
            int x = hv[r * 32 + l], t = 0;
            want += x;
            for (int k = 0; !(x & 1) && k < (x & 6); k++)
                t += k + x;
            if (htrace[r * 32 + l] != t)
                zt_fail("continue_sums trace %d/%d: %d, want %d", r, l, htrace[r * 32 + l], t);
        }
    for (int l = 0; l < 32; l++)
        if (hout[l] != want)
            zt_fail("continue_sums lane %d: %d, want %d", l, hout[l], want);
    return zt_finish();
}
