// nbody: one all-pairs step of SZ_NBODY bodies (float4 position + mass):
// accelerations with rsqrtf and softening NBODY_EPS2, then velocity and
// position updates; one body per thread, 256-thread blocks; compute bound
// (NBODY_FLOPS per interaction).
#include "bench_cuda.h"

__global__ void nbody_step(int n, const float4 *pos, const float4 *vel, float4 *pos_out, float4 *vel_out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float4 p = pos[i];
    float ax = 0.0f, ay = 0.0f, az = 0.0f;
    for (int j = 0; j < n; j++) {
        float4 q = pos[j];
        float dx = q.x - p.x, dy = q.y - p.y, dz = q.z - p.z;
        float inv = rsqrtf(dx * dx + dy * dy + dz * dz + NBODY_EPS2);
        float s = q.w * inv * inv * inv;
        ax += dx * s;
        ay += dy * s;
        az += dz * s;
    }
    float4 v = vel[i];
    v.x += ax * NBODY_DT;
    v.y += ay * NBODY_DT;
    v.z += az * NBODY_DT;
    v.w = 0.0f;
    vel_out[i] = v;
    pos_out[i] = make_float4(p.x + v.x * NBODY_DT, p.y + v.y * NBODY_DT, p.z + v.z * NBODY_DT, p.w);
}

int main()
{
    const int n = SZ_NBODY;
    float *pos = bench_host<float>(4 * n), *vel = bench_host<float>(4 * n);
    float *pout = bench_host<float>(4 * n), *vout = bench_host<float>(4 * n);
    float *pwant = bench_host<float>(4 * n), *vwant = bench_host<float>(4 * n);
    bench_fill(pos, 4L * n, 11);
    bench_fill(vel, 4L * n, 12);
    for (int i = 0; i < n; i++)
        pos[4 * i + 3] = 0.5f * (pos[4 * i + 3] + 1.5f);   // masses in [0.25, 1.25)
    float4 *dpos = (float4 *)bench_dev(4L * n, pos), *dvel = (float4 *)bench_dev(4L * n, vel);
    float4 *dpout = (float4 *)bench_dev<float>(4L * n, NULL), *dvout = (float4 *)bench_dev<float>(4L * n, NULL);
    int blocks = (n + BENCH_THREADS - 1) / BENCH_THREADS;
    double zms, cms;
    BENCH_BEST(zms, nbody_step<<<blocks, BENCH_THREADS>>>(n, dpos, dvel, dpout, dvout); CK_SYNC());
    bench_get(pout, (const float *)dpout, 4L * n);
    bench_get(vout, (const float *)dvout, 4L * n);
    BENCH_BEST(cms, ref_nbody(n, pos, vel, pwant, vwant));
    // rsqrtf is approximate (2 ulp on NVIDIA); the sums cancel, so the
    // tolerance scales with the largest velocity.
    double vtol = 1e-3 * bench_max_abs(vwant, 4L * n);
    int bad = bench_check_f32("nbody velocity", vout, vwant, 4L * n, 1e-3, vtol) ||
              bench_check_f32("nbody position", pout, pwant, 4L * n, 1e-4, 1e-5);
    bench_finish("nbody", bad, n, zms, cms, 0, NBODY_FLOPS * n * n);
    CK(cudaFree(dpos)); CK(cudaFree(dvel)); CK(cudaFree(dpout)); CK(cudaFree(dvout));
    free(pos); free(vel); free(pout); free(vout); free(pwant); free(vwant);
    return 0;
}
