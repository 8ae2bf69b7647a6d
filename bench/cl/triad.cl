/* triad.cl: the kernel of triad.cu in OpenCL C. */
__kernel void triad(int n, float s, __global const float *b, __global const float *c, __global float *a)
{
    int i = get_global_id(0);
    if (i < n)
        a[i] = b[i] + s * c[i];
}
