/* histogram.cl: the kernel of histogram.cu in OpenCL C (local atomics). */
__kernel void histogram256(__global const uchar *in, long n, __global uint *hist)
{
    __local uint bins[256];
    for (int b = get_local_id(0); b < 256; b += get_local_size(0))
        bins[b] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (long i = get_global_id(0); i < n; i += get_global_size(0))
        atomic_inc(&bins[in[i]]);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int b = get_local_id(0); b < 256; b += get_local_size(0))
        if (bins[b])
            atomic_add(&hist[b], bins[b]);
}
