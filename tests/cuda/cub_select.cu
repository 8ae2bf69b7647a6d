// cub_select: CUB's DeviceSelect::If, ::Flagged and ::Unique on 100k ints,
// each with the two calls (temp-storage size, then the run), against a CPU
// compaction; outputs are poisoned. CUB's select sweep kernels are the
// largest it compiles (about 10 s each on first run, docs/compile-time.md).
#include "zn_test.h"
#include <cub/device/device_select.cuh>

#define N 100003

struct is_odd_mul3 {
    __host__ __device__ bool operator()(int v) const { return (v & 1) && v % 3 == 0; }
};

static void *talloc(size_t bytes)
{
    void *p;
    CK(cudaMalloc(&p, bytes ? bytes : 1));
    return p;
}

int main()
{
    zt_begin("cub_select");
    int *h = (int *)malloc(N * sizeof(int));
    char *flags = (char *)malloc(N);
    for (int i = 0; i < N; i++) {
        h[i] = (int)(zt_rand() % 1200) - 100;
        flags[i] = (char)(zt_rand() % 3 == 0);
    }
    int *dh, *dout, *dnum;
    char *dflags;
    CK(cudaMalloc(&dh, N * sizeof(int)));
    CK(cudaMalloc(&dflags, N));
    CK(cudaMalloc(&dout, N * sizeof(int)));
    CK(cudaMalloc(&dnum, sizeof(int)));
    CK(cudaMemcpy(dh, h, N * sizeof(int), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dflags, flags, N, cudaMemcpyHostToDevice));
    size_t tb = 0;
    void *tmp;

    int *want = (int *)malloc(N * sizeof(int)), *got = (int *)malloc(N * sizeof(int));
    // DeviceSelect::If, ::Flagged, ::Unique (on a sorted-ish run-heavy input)
    for (int which = 0; which < 3; which++) {
        static const char *nm[3] = {"Select::If", "Select::Flagged", "Select::Unique"};
        const int *src = h;
        int *dsrc = dh, m = 0;
        int *runs = NULL, *druns = NULL;
        if (which == 2) { // runs of equal values
            runs = (int *)malloc(N * sizeof(int));
            for (int i = 0, v = 0; i < N; i++) {
                if (zt_rand() % 4 == 0)
                    v += (int)(zt_rand() % 3) - 1; // may come back to a value
                runs[i] = v;
            }
            CK(cudaMalloc(&druns, N * sizeof(int)));
            CK(cudaMemcpy(druns, runs, N * sizeof(int), cudaMemcpyHostToDevice));
            src = runs;
            dsrc = druns;
        }
        for (int i = 0; i < N; i++) {
            bool keep = which == 0 ? is_odd_mul3()(src[i]) : which == 1 ? flags[i] != 0
                                                           : (i == 0 || src[i] != src[i - 1]);
            if (keep)
                want[m++] = src[i];
        }
        POISON(dout, N * sizeof(int));
        POISON(dnum, sizeof(int));
        tb = 0;
        if (which == 0)
            CK(cub::DeviceSelect::If(NULL, tb, dsrc, dout, dnum, N, is_odd_mul3()));
        else if (which == 1)
            CK(cub::DeviceSelect::Flagged(NULL, tb, dsrc, dflags, dout, dnum, N));
        else
            CK(cub::DeviceSelect::Unique(NULL, tb, dsrc, dout, dnum, N));
        tmp = talloc(tb);
        if (which == 0)
            CK(cub::DeviceSelect::If(tmp, tb, dsrc, dout, dnum, N, is_odd_mul3()));
        else if (which == 1)
            CK(cub::DeviceSelect::Flagged(tmp, tb, dsrc, dflags, dout, dnum, N));
        else
            CK(cub::DeviceSelect::Unique(tmp, tb, dsrc, dout, dnum, N));
        CK(cudaDeviceSynchronize());
        int num = -1;
        CK(cudaMemcpy(&num, dnum, sizeof(int), cudaMemcpyDeviceToHost));
        if (num != m) {
            zt_fail("%s selected %d, want %d", nm[which], num, m);
        } else {
            CK(cudaMemcpy(got, dout, m * sizeof(int), cudaMemcpyDeviceToHost));
            for (int i = 0; i < m; i++)
                if (got[i] != want[i]) {
                    zt_fail("%s out[%d] = %d, want %d", nm[which], i, got[i], want[i]);
                    break;
                }
        }
        CK(cudaFree(tmp));
        if (druns)
            CK(cudaFree(druns));
        free(runs);
    }

    CK(cudaFree(dh));
    CK(cudaFree(dflags));
    CK(cudaFree(dout));
    CK(cudaFree(dnum));
    free(h);
    free(flags);
    free(want);
    free(got);
    return zt_finish();
}
