/* ref_suite.c: the suite benchmarks in plain C with OpenMP (built -O3
 * -march=native), linked into each CUDA benchmark program and the PoCL
 * driver: the native-CPU baseline that Zinc is timed against and the
 * reference its results are checked against, on the same data in the same
 * run. Each function is the same algorithm as its kernel, written the way
 * a C programmer would for a CPU (rows per thread, vectorizable inner loops). */
#include <immintrin.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "bench_suite.h"
#ifdef _OPENMP
#include <omp.h>
#endif

void ref_saxpy(long n, float a, const float *x, float *y)
{
#pragma omp parallel for simd schedule(static)
    for (long i = 0; i < n; i++)
        y[i] = a * x[i] + y[i];
}

void ref_triad(long n, float s, const float *b, const float *c, float *a)
{
#pragma omp parallel for simd schedule(static)
    for (long i = 0; i < n; i++)
        a[i] = b[i] + s * c[i];
}

void ref_block_sum(long n, const float *in, float *partial)
{
    long blocks = (n + BENCH_THREADS - 1) / BENCH_THREADS;
#pragma omp parallel for schedule(static)
    for (long b = 0; b < blocks; b++) {
        float s = 0.0f;
        long end = (b + 1) * BENCH_THREADS < n ? (b + 1) * BENCH_THREADS : n;
#pragma omp simd reduction(+ : s)
        for (long i = b * BENCH_THREADS; i < end; i++)
            s += in[i];
        partial[b] = s;
    }
}

/* i-k-j order: the inner loop streams a row of B and C (vectorized). */
void ref_sgemm(int n, const float *A, const float *B, float *C)
{
#pragma omp parallel for schedule(static)
    for (int i = 0; i < n; i++) {
        float *c = C + (long)i * n;
        for (int j = 0; j < n; j++)
            c[j] = 0.0f;
        for (int k = 0; k < n; k++) {
            float a = A[(long)i * n + k];
            const float *b = B + (long)k * n;
#pragma omp simd
            for (int j = 0; j < n; j++)
                c[j] += a * b[j];
        }
    }
}

/* 5-point: interior 0.5 c + 0.125 (l + r + u + d); the border is copied. */
void ref_stencil(int w, int h, const float *in, float *out)
{
#pragma omp parallel for schedule(static)
    for (int y = 0; y < h; y++) {
        const float *r = in + (long)y * w;
        float *o = out + (long)y * w;
        if (y == 0 || y == h - 1) {
            memcpy(o, r, (size_t)w * sizeof(float));
            continue;
        }
        o[0] = r[0];
        o[w - 1] = r[w - 1];
#pragma omp simd
        for (int x = 1; x < w - 1; x++)
            o[x] = 0.5f * r[x] + 0.125f * ((r[x - 1] + r[x + 1]) + (r[x - w] + r[x + w]));
    }
}

/* Private histograms per thread, merged at the end. */
void ref_histogram(long n, const unsigned char *in, unsigned *hist)
{
    memset(hist, 0, HIST_BINS * sizeof(unsigned));
#pragma omp parallel
    {
        unsigned local[HIST_BINS] = { 0 };
#pragma omp for schedule(static) nowait
        for (long i = 0; i < n; i++)
            local[in[i]]++;
        for (int b = 0; b < HIST_BINS; b++) {
            if (local[b]) {
#pragma omp atomic
                hist[b] += local[b];
            }
        }
    }
}

void ref_softmax(int rows, int cols, const float *in, float *out)
{
#pragma omp parallel for schedule(static)
    for (int r = 0; r < rows; r++) {
        const float *x = in + (long)r * cols;
        float *o = out + (long)r * cols;
        float m = -INFINITY, s = 0.0f;
        for (int c = 0; c < cols; c++)
            m = x[c] > m ? x[c] : m;
        for (int c = 0; c < cols; c++) {
            o[c] = expf(x[c] - m);
            s += o[c];
        }
        float inv = 1.0f / s;
        for (int c = 0; c < cols; c++)
            o[c] *= inv;
    }
}

/* Blocks as llama.cpp's CPU backend lays them out (half scale first);
 * _cvtsh_ss is F16C, part of -march=native on any x86 with AVX2. */
void ref_mmvq_q8(int rows, int cols, const void *x, const void *y, float *dst)
{
    const int nb = cols / MMVQ_QK;
#pragma omp parallel for schedule(static)
    for (int r = 0; r < rows; r++) {
        const unsigned char *bx = (const unsigned char *)x + (size_t)r * nb * MMVQ_X_BYTES;
        float acc = 0.0f;
        for (int b = 0; b < nb; b++) {
            const unsigned char *px = bx + (size_t)b * MMVQ_X_BYTES;
            const unsigned char *py = (const unsigned char *)y + (size_t)b * MMVQ_Y_BYTES;
            uint16_t dx, dy;
            memcpy(&dx, px, 2);
            memcpy(&dy, py, 2);
            int s = 0;
            for (int i = 0; i < MMVQ_QK; i++)
                s += (int8_t)px[2 + i] * (int8_t)py[4 + i];
            acc += _cvtsh_ss(dx) * _cvtsh_ss(dy) * (float)s;
        }
        dst[r] = acc;
    }
}

/* Two passes: per-thread chunk sums, then each chunk scanned from its offset. */
void ref_scan_excl(long n, const int *in, int *out)
{
    long sums[256] = { 0 };
#pragma omp parallel
    {
        int t = 0, T = 1;
#ifdef _OPENMP
        t = omp_get_thread_num();
        T = omp_get_num_threads();
#endif
        if (T > 256)
            T = 256;   /* more threads idle in this reference */
        long lo = n * t / T, hi = n * (t + 1) / T;
        long s = 0;
        if (t < T)
            for (long i = lo; i < hi; i++)
                s += in[i];
        if (t < T)
            sums[t] = s;
#pragma omp barrier
        long off = 0;
        for (int k = 0; k < t && k < T; k++)
            off += sums[k];
        if (t < T)
            for (long i = lo; i < hi; i++) {
                out[i] = (int)off;
                off += in[i];
            }
    }
}

/* Tiled so that both sides stay in cache. */
void ref_transpose(int w, int h, const float *in, float *out)
{
    const int T = TRANS_TILE;
#pragma omp parallel for collapse(2) schedule(static)
    for (int by = 0; by < h; by += T)
        for (int bx = 0; bx < w; bx += T)
            for (int x = bx; x < bx + T && x < w; x++)
                for (int y = by; y < by + T && y < h; y++)
                    out[(long)x * h + y] = in[(long)y * w + x];
}

/* The positions are first split into arrays per coordinate (O(n)), so that
 * the O(n^2) inner loop vectorizes with contiguous loads. */
void ref_nbody(int n, const float *pos, const float *vel, float *pos_out, float *vel_out)
{
    float *soa = malloc(4 * (size_t)n * sizeof(float));
    if (!soa)
        abort();
    float *X = soa, *Y = soa + n, *Z = soa + 2 * (size_t)n, *M = soa + 3 * (size_t)n;
#pragma omp parallel for simd schedule(static)
    for (int j = 0; j < n; j++) {
        X[j] = pos[4 * j];
        Y[j] = pos[4 * j + 1];
        Z[j] = pos[4 * j + 2];
        M[j] = pos[4 * j + 3];
    }
#pragma omp parallel for schedule(static)
    for (int i = 0; i < n; i++) {
        float px = X[i], py = Y[i], pz = Z[i];
        float ax = 0.0f, ay = 0.0f, az = 0.0f;
#pragma omp simd reduction(+ : ax, ay, az)
        for (int j = 0; j < n; j++) {
            float dx = X[j] - px, dy = Y[j] - py, dz = Z[j] - pz;
            float r2 = dx * dx + dy * dy + dz * dz + NBODY_EPS2;
            float inv = 1.0f / sqrtf(r2);
            float s = M[j] * inv * inv * inv;
            ax += dx * s;
            ay += dy * s;
            az += dz * s;
        }
        float vx = vel[4 * i] + ax * NBODY_DT, vy = vel[4 * i + 1] + ay * NBODY_DT;
        float vz = vel[4 * i + 2] + az * NBODY_DT;
        vel_out[4 * i] = vx;
        vel_out[4 * i + 1] = vy;
        vel_out[4 * i + 2] = vz;
        vel_out[4 * i + 3] = 0.0f;
        pos_out[4 * i] = px + vx * NBODY_DT;
        pos_out[4 * i + 1] = py + vy * NBODY_DT;
        pos_out[4 * i + 2] = pz + vz * NBODY_DT;
        pos_out[4 * i + 3] = M[i];
    }
    free(soa);
}

/* One contiguous slice per thread, as the kernels split their data. */
static void par_memcpy(char *dst, const char *src, size_t len)
{
#pragma omp parallel
    {
        int t = 0, T = 1;
#ifdef _OPENMP
        t = omp_get_thread_num();
        T = omp_get_num_threads();
#endif
        size_t lo = len * (size_t)t / (size_t)T, hi = len * (size_t)(t + 1) / (size_t)T;
        memcpy(dst + lo, src + lo, hi - lo);
    }
}

double ref_memcpy_ms(double bytes)
{
    size_t half = (size_t)(bytes / 2);
    char *src = malloc(half), *dst = malloc(half);
    if (!src || !dst) {
        free(src);
        free(dst);
        return -1.0;
    }
    memset(src, 1, half);
    memset(dst, 0, half);
    double ms;
    BENCH_BEST(ms, par_memcpy(dst, src, half));
    free(src);
    free(dst);
    return ms;
}
