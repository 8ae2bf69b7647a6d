/* transpose.cl: the kernel of transpose.cu in OpenCL C (32 x 33 local tile,
 * 32 x 8 work-groups). */
#define T 32
__kernel void transpose_tiled(int w, int h, __global const float *in, __global float *out)
{
    __local float tile[T][T + 1];
    int bx = get_group_id(0) * T, by = get_group_id(1) * T;
    int lx = get_local_id(0), ly = get_local_id(1), ny = get_local_size(1);
    for (int j = ly; j < T; j += ny) {
        int x = bx + lx, y = by + j;
        if (x < w && y < h)
            tile[j][lx] = in[(size_t)y * w + x];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int j = ly; j < T; j += ny) {
        int x = by + lx, y = bx + j;
        if (x < h && y < w)
            out[(size_t)y * h + x] = tile[lx][j];
    }
}
