// printf: device printf with integer, 64-bit, hex, float, double, string and
// char conversions. The program captures its own stdout around the kernel,
// checks every expected line is there (any order between threads), then
// echoes the capture; the ctest also matches the echoed line by regex.
// A second kernel prints between __syncthreads (a coroutine kernel: its
// call slots live in the warp's frame, where a whole-vector access that
// claimed more than their 16-byte alignment faulted) and calls a
// __noinline__ function there.
#include <unistd.h>
#include "zn_test.h"

__global__ void say(int base)
{
    int t = threadIdx.x;
    if (t == 0)
        printf("zn-printf: i=%d u=%u x=%x ll=%lld f=%.3f d=%.5f s=%s c=%c\n", base,
               4000000000u, 0xbeefu, -1234567890123LL, 1.5f, 2.25, "str", 'Z');
    if (t % 3 == 1)
        printf("zn-printf: thread %d of %d value %d\n", t, (int)blockDim.x, base * t);
}

__device__ __noinline__ int twice_plus(int a, int b)
{
    return 2 * a + b;
}

__global__ void between_barriers(int *out)
{
    extern __shared__ int ws[];
    int t = threadIdx.x;
    ws[t] = 3 * t;
    __syncthreads();
    int v = ws[(t + 1) % blockDim.x];
    if (t == 0 || t == 33)
        printf("zn-printf: barrier thread %d next %d of %d %.2f\n", t, v, (int)blockDim.x, 0.5 * v);
    int w = twice_plus(v, t);
    __syncthreads();
    out[t] = w + ws[blockDim.x - 1 - t];
}

int main()
{
    zt_begin("printf");
    char path[] = "/tmp/zn_printf_XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) { perror("mkstemp"); return 1; }
    fflush(stdout);
    int saved = dup(1);
    dup2(fd, 1);
    const int nb = 64;
    int *dout = NULL, host[nb];
    CK(cudaMalloc(&dout, nb * sizeof(int)));
    CK(cudaMemset(dout, 0xff, nb * sizeof(int)));   /* poison */
    say<<<1, 10>>>(-42);
    between_barriers<<<1, nb, nb * sizeof(int)>>>(dout);
    cudaError_t e1 = cudaGetLastError(), e2 = cudaDeviceSynchronize();
    fflush(stdout);
    dup2(saved, 1);
    close(saved);
    CK(e1);
    CK(e2);
    CK(cudaMemcpy(host, dout, sizeof host, cudaMemcpyDeviceToHost));
    CK(cudaFree(dout));
    for (int t = 0; t < nb; t++) {
        int want = 2 * (3 * ((t + 1) % nb)) + t + 3 * (nb - 1 - t);
        if (host[t] != want)
            zt_fail("between_barriers: thread %d got %d, want %d", t, host[t], want);
    }

    static char buf[1 << 16];
    ssize_t len = pread(fd, buf, sizeof buf - 1, 0);
    close(fd);
    unlink(path);
    buf[len > 0 ? len : 0] = 0;
    fputs(buf, stdout);

    const char *want0 = "zn-printf: i=-42 u=4000000000 x=beef ll=-1234567890123 f=1.500 d=2.25000 s=str c=Z\n";
    if (!strstr(buf, want0))
        zt_fail("missing line: %s", want0);
    int lines = 0;
    for (const char *p = buf; (p = strstr(p, "zn-printf:")) != NULL; p++)
        lines++;
    if (lines != 6)
        zt_fail("%d printf lines, want 6", lines);
    if (!strstr(buf, "zn-printf: barrier thread 0 next 3 of 64 1.50\n") ||
        !strstr(buf, "zn-printf: barrier thread 33 next 102 of 64 51.00\n"))
        zt_fail("missing the lines printed between barriers");
    for (int t = 1; t < 10; t += 3) {
        char want[96];
        snprintf(want, sizeof want, "zn-printf: thread %d of 10 value %d\n", t, -42 * t);
        if (!strstr(buf, want))
            zt_fail("missing line: %s", want);
    }
    return zt_finish();
}
