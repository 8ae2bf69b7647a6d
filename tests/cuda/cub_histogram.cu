// cub_histogram: CUB's DeviceHistogram: HistogramEven on ints (samples
// below and above the range not counted), HistogramRange on floats with
// uneven bin edges, MultiHistogramEven on 4-channel RGBA bytes with 3
// active channels; each with the two calls (temp-storage size, then the
// run). Checked against CPU counts; outputs are poisoned.
#include "zn_test.h"
#include <cub/device/device_histogram.cuh>
#include <cuda/std/array>

#define N 100003

static void *talloc(size_t bytes)
{
    void *p;
    CK(cudaMalloc(&p, bytes ? bytes : 1));
    return p;
}

static void check_counts(const char *what, const int *got, const int *want, int n)
{
    for (int i = 0; i < n; i++)
        if (got[i] != want[i])
            zt_fail("%s bin %d: %d, want %d", what, i, got[i], want[i]);
}

int main()
{
    zt_begin("cub_histogram");
    int *h = (int *)malloc(N * sizeof(int));
    float *hf = (float *)malloc(N * sizeof(float));
    unsigned char *px = (unsigned char *)malloc(4 * N);
    for (int i = 0; i < N; i++) {
        h[i] = (int)(zt_rand() % 1200) - 100; // some below and above the range
        hf[i] = zt_randf(-1.f, 11.f);
        for (int c = 0; c < 4; c++)
            px[4 * i + c] = (unsigned char)zt_rand();
    }
    int *dh;
    float *dhf;
    unsigned char *dpx;
    CK(cudaMalloc(&dh, N * sizeof(int)));
    CK(cudaMalloc(&dhf, N * sizeof(float)));
    CK(cudaMalloc(&dpx, 4 * N));
    CK(cudaMemcpy(dh, h, N * sizeof(int), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dhf, hf, N * sizeof(float), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dpx, px, 4 * N, cudaMemcpyHostToDevice));
    size_t tb = 0;
    void *tmp;

    // HistogramEven: 50 bins over [0, 1000); samples outside are not counted
    {
        const int bins = 50;
        int *dhist, got[bins], want[bins] = {0};
        CK(cudaMalloc(&dhist, bins * sizeof(int)));
        POISON(dhist, bins * sizeof(int));
        CK(cub::DeviceHistogram::HistogramEven(NULL, tb, dh, dhist, bins + 1, 0, 1000, N));
        tmp = talloc(tb);
        CK(cub::DeviceHistogram::HistogramEven(tmp, tb, dh, dhist, bins + 1, 0, 1000, N));
        CK(cudaDeviceSynchronize());
        CK(cudaMemcpy(got, dhist, sizeof got, cudaMemcpyDeviceToHost));
        for (int i = 0; i < N; i++)
            if (h[i] >= 0 && h[i] < 1000)
                want[h[i] / 20]++;
        check_counts("HistogramEven", got, want, bins);
        CK(cudaFree(tmp));
        CK(cudaFree(dhist));
    }
    // HistogramRange: float samples, uneven edges
    {
        const float edges[] = {0.f, 0.5f, 1.f, 2.f, 3.5f, 5.f, 7.25f, 10.f};
        const int bins = 7;
        float *dedges;
        int *dhist, got[bins], want[bins] = {0};
        CK(cudaMalloc(&dedges, sizeof edges));
        CK(cudaMemcpy(dedges, edges, sizeof edges, cudaMemcpyHostToDevice));
        CK(cudaMalloc(&dhist, bins * sizeof(int)));
        POISON(dhist, bins * sizeof(int));
        tb = 0;
        CK(cub::DeviceHistogram::HistogramRange(NULL, tb, dhf, dhist, bins + 1, dedges, N));
        tmp = talloc(tb);
        CK(cub::DeviceHistogram::HistogramRange(tmp, tb, dhf, dhist, bins + 1, dedges, N));
        CK(cudaDeviceSynchronize());
        CK(cudaMemcpy(got, dhist, sizeof got, cudaMemcpyDeviceToHost));
        for (int i = 0; i < N; i++)
            for (int b = 0; b < bins; b++)
                if (hf[i] >= edges[b] && hf[i] < edges[b + 1])
                    want[b]++;
        check_counts("HistogramRange", got, want, bins);
        CK(cudaFree(tmp));
        CK(cudaFree(dedges));
        CK(cudaFree(dhist));
    }
    // MultiHistogramEven: RGBA pixels, R/G/B counted (alpha ignored);
    // 16 bins over [0, 256) for R, 8 over [0, 256) for G, 5 over [50, 200) for B
    {
        int nb[3] = {16, 8, 5};
        cuda::std::array<int, 3> lo = {0, 0, 50}, hi = {256, 256, 200};
        cuda::std::array<int, 3> levels = {nb[0] + 1, nb[1] + 1, nb[2] + 1};
        cuda::std::array<int *, 3> dhist;
        int got[16], want[16];
        for (int c = 0; c < 3; c++) {
            CK(cudaMalloc(&dhist[c], nb[c] * sizeof(int)));
            POISON(dhist[c], nb[c] * sizeof(int));
        }
        tb = 0;
        CK((cub::DeviceHistogram::MultiHistogramEven<4, 3>(NULL, tb, dpx, dhist, levels, lo, hi, N)));
        tmp = talloc(tb);
        CK((cub::DeviceHistogram::MultiHistogramEven<4, 3>(tmp, tb, dpx, dhist, levels, lo, hi, N)));
        CK(cudaDeviceSynchronize());
        for (int c = 0; c < 3; c++) {
            memset(want, 0, sizeof want);
            CK(cudaMemcpy(got, dhist[c], nb[c] * sizeof(int), cudaMemcpyDeviceToHost));
            for (int i = 0; i < N; i++) {
                int v = px[4 * i + c];
                if (v >= lo[c] && v < hi[c])
                    want[(long)(v - lo[c]) * nb[c] / (hi[c] - lo[c])]++;
            }
            char what[32];
            snprintf(what, sizeof what, "MultiHistogramEven ch%d", c);
            check_counts(what, got, want, nb[c]);
            CK(cudaFree(dhist[c]));
        }
        CK(cudaFree(tmp));
    }

    CK(cudaFree(dh));
    CK(cudaFree(dhf));
    CK(cudaFree(dpx));
    free(h);
    free(hf);
    free(px);
    return zt_finish();
}
