/* nbody.cl: the kernel of nbody.cu in OpenCL C (rsqrt). */
__kernel void nbody_step(int n, float eps2, float dt, __global const float4 *pos,
                         __global const float4 *vel, __global float4 *pos_out, __global float4 *vel_out)
{
    int i = get_global_id(0);
    if (i >= n)
        return;
    float4 p = pos[i];
    float ax = 0.0f, ay = 0.0f, az = 0.0f;
    for (int j = 0; j < n; j++) {
        float4 q = pos[j];
        float dx = q.x - p.x, dy = q.y - p.y, dz = q.z - p.z;
        float inv = rsqrt(dx * dx + dy * dy + dz * dz + eps2);
        float s = q.w * inv * inv * inv;
        ax += dx * s;
        ay += dy * s;
        az += dz * s;
    }
    float4 v = vel[i];
    v.x += ax * dt;
    v.y += ay * dt;
    v.z += az * dt;
    v.w = 0.0f;
    vel_out[i] = v;
    pos_out[i] = (float4)(p.x + v.x * dt, p.y + v.y * dt, p.z + v.z * dt, p.w);
}

__kernel void empty_kernel(void) {}
