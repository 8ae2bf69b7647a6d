// warp_reduce: warp-level reductions and scans with __shfl_*_sync over an
// element count that is not a multiple of 32. Every result is checked
// exactly: the host replays the same shuffle pattern lane by lane.
#include "zn_test.h"

#define FULL 0xffffffffu

// One warp reduces 32 elements with shfl.down; lane 0 writes the sum.
__global__ void warp_sum(const int *in, const float *inf, int *out, float *outf, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = i < n ? in[i] : 0;
    float f = i < n ? inf[i] : 0.0f;
    for (int off = 16; off > 0; off >>= 1) {
        v += __shfl_down_sync(FULL, v, off);
        f += __shfl_down_sync(FULL, f, off);
    }
    if ((threadIdx.x & 31) == 0) {
        out[i / 32] = v;
        outf[i / 32] = f;
    }
}

// Butterfly max (every lane ends with the warp max), inclusive scan with
// shfl.up, a broadcast of lane (warp index % 32) with shfl.idx, and single
// shuffles whose source falls outside the warp or the width segment (the
// lane then keeps its own value). shf[4 * i + k] holds shuffle k of element i.
__global__ void warp_misc(const int *in, int *maxo, int *scan, int *bcast, int *shf, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31;
    int v = i < n ? in[i] : -2147483647 - 1;
    int m = v;
    for (int off = 16; off > 0; off >>= 1)
        m = max(m, __shfl_xor_sync(FULL, m, off));
    int s = i < n ? in[i] : 0;
    for (int off = 1; off < 32; off <<= 1) {
        int o = __shfl_up_sync(FULL, s, off);
        if (lane >= off)
            s += o;
    }
    int b = __shfl_sync(FULL, v, (i / 32) % 32);
    int d5 = __shfl_down_sync(FULL, v, 5);
    int u3 = __shfl_up_sync(FULL, v, 3);
    int d2w8 = __shfl_down_sync(FULL, v, 2, 8);
    int i3w16 = __shfl_sync(FULL, v, 3, 16);
    if (i < n) {
        maxo[i] = m;
        scan[i] = s;
        bcast[i] = b;
        shf[4 * i + 0] = d5;
        shf[4 * i + 1] = u3;
        shf[4 * i + 2] = d2w8;
        shf[4 * i + 3] = i3w16;
    }
}

int main()
{
    zt_begin("warp_reduce");
    const int n = 1000003;
    const int threads = 128;
    const int blocks = (n + threads - 1) / threads;
    const int warps = blocks * threads / 32;
    int *x = (int *)malloc(n * sizeof(int));
    float *xf = (float *)malloc(n * sizeof(float));
    for (int i = 0; i < n; i++) {
        x[i] = (int)(zt_rand() % 100001) - 50000;
        xf[i] = zt_randf(-10.f, 10.f);
    }
    int *dx, *dout, *dmax, *dscan, *dbc, *dshf;
    float *dxf, *doutf;
    CK(cudaMalloc(&dx, n * sizeof(int)));
    CK(cudaMalloc(&dxf, n * sizeof(float)));
    CK(cudaMalloc(&dout, warps * sizeof(int)));
    CK(cudaMalloc(&doutf, warps * sizeof(float)));
    CK(cudaMalloc(&dmax, n * sizeof(int)));
    CK(cudaMalloc(&dscan, n * sizeof(int)));
    CK(cudaMalloc(&dbc, n * sizeof(int)));
    CK(cudaMalloc(&dshf, 4 * n * sizeof(int)));
    CK(cudaMemcpy(dx, x, n * sizeof(int), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dxf, xf, n * sizeof(float), cudaMemcpyHostToDevice));
    POISON(dout, warps * sizeof(int));
    POISON(doutf, warps * sizeof(float));
    POISON(dmax, n * sizeof(int));
    POISON(dscan, n * sizeof(int));
    POISON(dbc, n * sizeof(int));
    POISON(dshf, 4 * n * sizeof(int));

    warp_sum<<<blocks, threads>>>(dx, dxf, dout, doutf, n);
    CK_LAUNCH();
    warp_misc<<<blocks, threads>>>(dx, dmax, dscan, dbc, dshf, n);
    CK_LAUNCH();

    int *out = (int *)malloc(warps * sizeof(int));
    float *outf = (float *)malloc(warps * sizeof(float));
    int *mx = (int *)malloc(n * sizeof(int)), *sc = (int *)malloc(n * sizeof(int));
    int *bc = (int *)malloc(n * sizeof(int)), *shf = (int *)malloc(4 * n * sizeof(int));
    CK(cudaMemcpy(out, dout, warps * sizeof(int), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(outf, doutf, warps * sizeof(float), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(mx, dmax, n * sizeof(int), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(sc, dscan, n * sizeof(int), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(bc, dbc, n * sizeof(int), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(shf, dshf, 4 * n * sizeof(int), cudaMemcpyDeviceToHost));

    for (int w = 0; w < warps; w++) {
        int v[32];
        float f[32];
        for (int l = 0; l < 32; l++) {
            int i = w * 32 + l;
            v[l] = i < n ? x[i] : 0;
            f[l] = i < n ? xf[i] : 0.0f;
        }
        // shfl.down: a lane whose source is past lane 31 gets its own value.
        for (int off = 16; off > 0; off >>= 1) {
            int nv[32];
            float nf[32];
            for (int l = 0; l < 32; l++) {
                nv[l] = v[l] + (l + off < 32 ? v[l + off] : v[l]);
                nf[l] = f[l] + (l + off < 32 ? f[l + off] : f[l]);
            }
            memcpy(v, nv, sizeof v);
            memcpy(f, nf, sizeof f);
        }
        if (out[w] != v[0])
            zt_fail("warp %d int sum %d, want %d", w, out[w], v[0]);
        if (zt_f2u(outf[w]) != zt_f2u(f[0]))
            zt_fail("warp %d float sum %a, want %a", w, outf[w], f[0]);

        int m = -2147483647 - 1, s = 0;
        for (int l = 0; l < 32 && w * 32 + l < n; l++)
            if (x[w * 32 + l] > m)
                m = x[w * 32 + l];
        int src = w * 32 + w % 32;
        for (int l = 0; l < 32; l++) {
            int i = w * 32 + l;
            if (i >= n)
                break;
            s += x[i];
            if (mx[i] != m)
                zt_fail("max[%d] = %d, want %d", i, mx[i], m);
            if (sc[i] != s)
                zt_fail("scan[%d] = %d, want %d", i, sc[i], s);
            int want_b = src < n ? x[src] : -2147483647 - 1;
            if (bc[i] != want_b)
                zt_fail("bcast[%d] = %d, want %d", i, bc[i], want_b);
            // Lane values past n are INT_MIN, as the kernel loads them.
#define LANE_V(L) (w * 32 + (L) < n ? x[w * 32 + (L)] : -2147483647 - 1)
            int want_s[4] = {
                l + 5 < 32 ? LANE_V(l + 5) : x[i],
                l >= 3 ? LANE_V(l - 3) : x[i],
                l % 8 + 2 < 8 ? LANE_V(l + 2) : x[i],
                LANE_V((l & ~15) + 3)};
#undef LANE_V
            for (int k = 0; k < 4; k++)
                if (shf[4 * i + k] != want_s[k])
                    zt_fail("shuffle %d of element %d (lane %d) = %d, want %d", k, i, l, shf[4 * i + k], want_s[k]);
        }
    }
    CK(cudaFree(dx)); CK(cudaFree(dxf)); CK(cudaFree(dout)); CK(cudaFree(doutf));
    CK(cudaFree(dmax)); CK(cudaFree(dscan)); CK(cudaFree(dbc)); CK(cudaFree(dshf));
    free(x); free(xf); free(out); free(outf); free(mx); free(sc); free(bc); free(shf);
    return zt_finish();
}
