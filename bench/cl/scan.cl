/* scan.cl: exclusive prefix sum in OpenCL C. CUB has no OpenCL version, so
 * this is the classic three-pass scan: per-group sums, a scan of the group
 * sums (one work-item), then each group scans its part from its offset
 * (a local-memory scan of the items' sums: PoCL 3.1 has no work-group
 * collectives). 256-item groups. SCAN_ITEMS elements per work-item. */
#define SCAN_ITEMS 16

/* Inclusive Hillis-Steele scan of one int per item over the group. */
static int group_scan_incl(int v, __local int *sh)
{
    int t = get_local_id(0);
    sh[t] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int d = 1; d < (int)get_local_size(0); d <<= 1) {
        int add = t >= d ? sh[t - d] : 0;
        barrier(CLK_LOCAL_MEM_FENCE);
        sh[t] += add;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    return sh[t];
}
__kernel void scan_sums(__global const int *in, long n, __global int *sums)
{
    __local int sh[256];
    long base = (long)get_group_id(0) * get_local_size(0) * SCAN_ITEMS;
    int s = 0;
    for (int k = 0; k < SCAN_ITEMS; k++) {
        long i = base + (long)k * get_local_size(0) + get_local_id(0);
        if (i < n)
            s += in[i];
    }
    s = group_scan_incl(s, sh);
    if (get_local_id(0) == get_local_size(0) - 1)
        sums[get_group_id(0)] = s;
}

__kernel void scan_offsets(__global int *sums, int groups)
{
    int run = 0;
    for (int g = 0; g < groups; g++) {
        int v = sums[g];
        sums[g] = run;
        run += v;
    }
}

__kernel void scan_groups(__global const int *in, long n, __global const int *offsets, __global int *out)
{
    __local int sh[256];
    long base = (long)get_group_id(0) * get_local_size(0) * SCAN_ITEMS;
    long mine = base + (long)get_local_id(0) * SCAN_ITEMS;   /* a contiguous run per item */
    int s = 0;
    for (int k = 0; k < SCAN_ITEMS; k++)
        if (mine + k < n)
            s += in[mine + k];
    int run = offsets[get_group_id(0)] + group_scan_incl(s, sh) - s;
    for (int k = 0; k < SCAN_ITEMS; k++)
        if (mine + k < n) {
            out[mine + k] = run;
            run += in[mine + k];
        }
}
