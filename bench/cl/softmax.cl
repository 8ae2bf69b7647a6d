/* softmax.cl: the kernel of softmax.cu in OpenCL C; the block reductions
 * are local-memory trees (PoCL 3.1 has neither shuffles nor work-group
 * collectives), each on its own local array. 256-item groups. */
__kernel void softmax_rows(int cols, __global const float *in, __global float *out)
{
    __local float shm[256], shs[256];
    __global const float *x = in + (size_t)get_group_id(0) * cols;
    __global float *o = out + (size_t)get_group_id(0) * cols;
    int t = get_local_id(0), nt = get_local_size(0);
    float m = -INFINITY;
    for (int c = t; c < cols; c += nt)
        m = fmax(m, x[c]);
    shm[t] = m;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = nt / 2; s > 0; s >>= 1) {
        if (t < s)
            shm[t] = fmax(shm[t], shm[t + s]);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    m = shm[0];
    float sum = 0.0f;
    for (int c = t; c < cols; c += nt)
        sum += exp(x[c] - m);
    shs[t] = sum;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = nt / 2; s > 0; s >>= 1) {
        if (t < s)
            shs[t] += shs[t + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    float inv = 1.0f / shs[0];
    for (int c = t; c < cols; c += nt)
        o[c] = exp(x[c] - m) * inv;
}
