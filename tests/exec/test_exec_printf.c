/* test_exec_printf.c: device printf. The formatter against the host's
 * snprintf given the same values, with argument buffers packed the way
 * CUDA packs them; then printf from a kernel, captured from stdout. */
#include "exec_test.h"
#include "zn_exec_internal.h"

#include <unistd.h>

typedef struct pack {
    uint8_t buf[256];
    size_t off;
} pack;

static void put(pack *p, const void *v, size_t size)
{
    p->off = (p->off + size - 1) & ~(size - 1);
    memcpy(p->buf + p->off, v, size);
    p->off += size;
}
static void put_i32(pack *p, int32_t v) { put(p, &v, 4); }
static void put_i64(pack *p, int64_t v) { put(p, &v, 8); }
static void put_f64(pack *p, double v) { put(p, &v, 8); }
static void put_ptr(pack *p, const void *v) { uint64_t u = (uintptr_t)v; put(p, &u, 8); }

static void expect(const char *fmt, const pack *p, int nargs, const char *want)
{
    char *got = NULL;
    size_t len = 0;
    int n = zn_printf_format(fmt, p ? p->buf : NULL, &got, &len);
    if (!got || strcmp(got, want) != 0 || len != strlen(want) || n != nargs) {
        fprintf(stderr, "format \"%s\": got \"%s\" (%d args), want \"%s\" (%d args)\n",
                fmt, got ? got : "(null)", n, want, nargs);
        exit(1);
    }
    free(got);
}

static void test_format(void)
{
    char want[512];
    pack p = {0};
    expect("plain text\n", NULL, 0, "plain text\n");
    expect("100%% sure", NULL, 0, "100% sure");

    put_i32(&p, -42);
    put_i32(&p, 7);
    put_i32(&p, 4000000000u);
    put_i32(&p, 0xbeef);
    put_i32(&p, 0xbeef);
    put_i32(&p, 8);
    put_i32(&p, 'Z');
    put_ptr(&p, "str");
    snprintf(want, sizeof want, "%d %i %u %x %X %o %c %s", -42, 7, 4000000000u, 0xbeef, 0xbeef, 8, 'Z', "str");
    expect("%d %i %u %x %X %o %c %s", &p, 8, want);

    /* 4-byte int then double: the double is 8-aligned (offset 8) */
    memset(&p, 0, sizeof p);
    put_i32(&p, 3);
    put_f64(&p, 3.14159);
    put_f64(&p, -1.5e-7);
    put_f64(&p, 123456789.0);
    put_i32(&p, 9);
    put_f64(&p, 2.5);
    CHECK_EQ(p.off, 48);
    snprintf(want, sizeof want, "%d %f %e %g %d %5.2f|", 3, 3.14159, -1.5e-7, 123456789.0, 9, 2.5);
    expect("%d %f %e %g %d %5.2f|", &p, 6, want);

    memset(&p, 0, sizeof p);
    put_i64(&p, -1234567890123LL);
    put_i64(&p, 18000000000000000000ULL);
    put_i64(&p, 0x123456789aLL);
    put_i64(&p, 77);
    put_i64(&p, -5);
    snprintf(want, sizeof want, "%lld %llu %lx %lu %ld", -1234567890123LL,
             18000000000000000000ULL, 0x123456789aUL, 77UL, -5L);
    expect("%lld %llu %lx %lu %ld", &p, 5, want);

    memset(&p, 0, sizeof p);
    put_i32(&p, 42);
    put_i32(&p, 0xabc);
    put_i32(&p, 70000);
    put_i32(&p, 300);
    put_i32(&p, 6);
    put_i32(&p, 17);
    put_i32(&p, 3);
    put_f64(&p, 1.0 / 3);
    put_ptr(&p, (void *)0x1234);
    snprintf(want, sizeof want, "[%-8d] [%08x] [%hd] [%hhu] [%*d] [%.*f] [%p]", 42, 0xabc,
             (short)70000, (unsigned char)300, 6, 17, 3, 1.0 / 3, (void *)0x1234);
    expect("[%-8d] [%08x] [%hd] [%hhu] [%*d] [%.*f] [%p]", &p, 9, want);

    memset(&p, 0, sizeof p);
    put_ptr(&p, NULL);
    expect("%s", &p, 1, "(null)");

    char *out = (char *)1;
    size_t len = 1;
    CHECK_EQ(zn_printf_format(NULL, NULL, &out, &len), -1);
    CHECK(out == NULL);
}

/* Lane i of each warp prints "b<block> t<thread> <value>" */
static int32_t k_print(zn_warp_ctx *w)
{
    for (uint32_t lane = 0; lane < 32; lane++) {
        if (!(w->live_mask >> lane & 1))
            continue;
        pack p = {0};
        put_i32(&p, (int32_t)w->block->ctaid[0]);
        put_i32(&p, (int32_t)(w->warpid * 32 + lane));
        put_f64(&p, (w->warpid * 32 + lane) * 0.5);
        int32_t n = w->rt->vprintf(w, "b%d t%d %.1f\n", p.buf, lane);
        if (n != 3)
            return ZN_KSTATUS_TRAP;
    }
    return ZN_KSTATUS_OK;
}

static void test_kernel_printf(void)
{
    char path[] = "/tmp/zn_printf_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    fflush(stdout);
    int saved = dup(1);
    CHECK(dup2(fd, 1) == 1);
    zn_launch l = test_launch(k_print, 3, 1, 1, 40, 1, 1, NULL);
    int st = zn_exec_launch(&l);
    fflush(stdout);
    dup2(saved, 1);
    close(saved);
    CHECK_EQ(st, ZN_KSTATUS_OK);

    /* every line once, in thread order within a block */
    FILE *f = fdopen(fd, "r");
    CHECK(f);
    rewind(f);
    int seen[3][40] = {{0}}, last[3] = {-1, -1, -1};
    char line[128];
    int lines = 0;
    while (fgets(line, sizeof line, f)) {
        int b, t;
        double v;
        CHECK_EQ(sscanf(line, "b%d t%d %lf", &b, &t, &v), 3);
        CHECK(b >= 0 && b < 3 && t >= 0 && t < 40);
        CHECK(t > last[b]);
        last[b] = t;
        CHECK(v == t * 0.5);
        seen[b][t]++;
        lines++;
    }
    fclose(f);
    unlink(path);
    CHECK_EQ(lines, 120);
    for (int b = 0; b < 3; b++)
        for (int t = 0; t < 40; t++)
            CHECK_EQ(seen[b][t], 1);
}

int main(void)
{
    CHECK_EQ(zn_exec_init(2), 0);
    test_format();
    test_kernel_printf();
    printf("printf: ok\n");
    return 0;
}
