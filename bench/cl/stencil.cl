/* stencil.cl: the kernel of stencil.cu in OpenCL C. */
__kernel void stencil5(int w, int h, __global const float *in, __global float *out)
{
    int x = get_global_id(0), y = get_global_id(1);
    if (x >= w || y >= h)
        return;
    size_t i = (size_t)y * w + x;
    if (x == 0 || y == 0 || x == w - 1 || y == h - 1)
        out[i] = in[i];
    else
        out[i] = 0.5f * in[i] + 0.125f * ((in[i - 1] + in[i + 1]) + (in[i - w] + in[i + w]));
}
