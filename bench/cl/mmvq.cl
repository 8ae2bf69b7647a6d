/* mmvq.cl: the kernel of mmvq.cu in OpenCL C: one 128-item work-group per
 * row, each item 8 quant bytes of a 34-byte block per step (block id / 4,
 * step 32 blocks), partial sums reduced in local memory (PoCL 3.1 has no
 * shuffles). The half scales are decoded by hand (PoCL's vload_half does
 * not build); the suite's scales are normal numbers (bench_suite.h). */
#define QK 32
#define XB 34
#define YB 36
#define WG 128

static float half_at(__global const uchar *p)
{
    uint h = p[0] | (uint)p[1] << 8;
    return as_float((h & 0x8000u) << 16 | (((h >> 10) & 0x1fu) + 112u) << 23 | (h & 0x3ffu) << 13);
}

__kernel void mmvq_q8(__global const uchar *x, __global const uchar *y,
                      __global float *dst, int cols)
{
    __local float part[WG];
    int nb = cols / QK, tid = get_local_id(0);
    __global const uchar *row = x + (size_t)get_group_id(0) * nb * XB;
    float acc = 0.0f;
    for (int kb = tid / 4; kb < nb; kb += 32) {
        int q = 8 * (tid % 4);
        __global const uchar *bx = row + kb * XB, *by = y + kb * YB;
        int s = 0;
        for (int i = 0; i < 8; i++)
            s += (char)bx[2 + q + i] * (char)by[4 + q + i];
        acc += half_at(bx) * half_at(by) * (float)s;
    }
    part[tid] = acc;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int o = WG / 2; o > 0; o >>= 1) {
        if (tid < o)
            part[tid] += part[tid + o];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (tid == 0)
        dst[get_group_id(0)] = part[0];
}
