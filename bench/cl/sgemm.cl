/* sgemm.cl: the tiled kernel of sgemm.cu in OpenCL C (16 x 16 tiles). */
#define T 16
__kernel void sgemm_tiled(int n, __global const float *A, __global const float *B, __global float *C)
{
    __local float As[T][T], Bs[T][T];
    int tx = get_local_id(0), ty = get_local_id(1);
    int row = get_group_id(1) * T + ty, col = get_group_id(0) * T + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < n; k0 += T) {
        As[ty][tx] = row < n && k0 + tx < n ? A[(size_t)row * n + k0 + tx] : 0.0f;
        Bs[ty][tx] = col < n && k0 + ty < n ? B[(size_t)(k0 + ty) * n + col] : 0.0f;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < T; k++)
            acc += As[ty][k] * Bs[k][tx];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (row < n && col < n)
        C[(size_t)row * n + col] = acc;
}
