/* reduce.cl: the kernels of reduce.cu (shared-memory tree) and
 * reduce_warp.cu in OpenCL C; OpenCL has no warp shuffles, so the warp
 * variant is a local-memory tree as well (PoCL 3.1 has neither shuffles nor
 * the work-group collectives). 256-item groups. */
static void tree_sum(__global const float *in, __global float *partial, int n, __local float *sh)
{
    unsigned t = get_local_id(0), i = get_global_id(0);
    sh[t] = i < (unsigned)n ? in[i] : 0.0f;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (unsigned s = get_local_size(0) / 2; s > 0; s >>= 1) {
        if (t < s)
            sh[t] += sh[t + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (t == 0)
        partial[get_group_id(0)] = sh[0];
}

__kernel void block_sum(__global const float *in, __global float *partial, int n)
{
    __local float sh[256];
    tree_sum(in, partial, n, sh);
}

/* reduce_warp's data; the same tree, as OpenCL C here has no shuffles. */
__kernel void block_sum_wg(__global const float *in, __global float *partial, int n)
{
    __local float sh[256];
    tree_sum(in, partial, n, sh);
}
