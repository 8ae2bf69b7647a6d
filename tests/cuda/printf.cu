// printf: device printf with integer, 64-bit, hex, float, double, string and
// char conversions. The program captures its own stdout around the kernel,
// checks every expected line is there (any order between threads), then
// echoes the capture; the ctest also matches the echoed line by regex.
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

int main()
{
    zt_begin("printf");
    char path[] = "/tmp/zn_printf_XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) { perror("mkstemp"); return 1; }
    fflush(stdout);
    int saved = dup(1);
    dup2(fd, 1);
    say<<<1, 10>>>(-42);
    cudaError_t e1 = cudaGetLastError(), e2 = cudaDeviceSynchronize();
    fflush(stdout);
    dup2(saved, 1);
    close(saved);
    CK(e1);
    CK(e2);

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
    if (lines != 4)
        zt_fail("%d printf lines, want 4", lines);
    for (int t = 1; t < 10; t += 3) {
        char want[96];
        snprintf(want, sizeof want, "zn-printf: thread %d of 10 value %d\n", t, -42 * t);
        if (!strstr(buf, want))
            zt_fail("missing line: %s", want);
    }
    return zt_finish();
}
