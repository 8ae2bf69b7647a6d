/* test_exec_assert.c: device assert (message format and launch status),
 * the clocks, and the device heap calls. */
#include "exec_test.h"

#include <unistd.h>

/* Lane 5 of block (1,0,0) warp 1 fails its assert; params: none */
static int32_t k_assert(zn_warp_ctx *w)
{
    const zn_block_ctx *b = w->block;
    if (b->ctaid[0] == 1 && w->warpid == 1)
        w->rt->assertfail(w, "x == 0", "kernel.cu", 42, "void k(int *)", 5);
    return ZN_KSTATUS_OK;
}

/* out[0] clock64 delta >= 0 (monotonic), out[1] globaltimer, out[2] heap
 * round trip ok. params: uint64_t *out */
static int32_t k_services(zn_warp_ctx *w)
{
    uint64_t *out = TEST_PARAM(w, uint64_t *, 0);
    uint64_t c0 = w->rt->clock64(w);
    volatile uint64_t spin = 0;
    for (int i = 0; i < 100000; i++)
        spin += (uint64_t)i;
    uint64_t c1 = w->rt->clock64(w);
    out[0] = c1 > c0;
    out[1] = w->rt->globaltimer(w);
    uint32_t *h = w->rt->malloc(w, 1000 * sizeof *h);
    uint64_t ok = h != NULL;
    for (uint32_t i = 0; ok && i < 1000; i++)
        h[i] = i;
    for (uint32_t i = 0; ok && i < 1000; i++)
        ok &= h[i] == i;
    w->rt->free(w, h);
    out[2] = ok;
    return ZN_KSTATUS_OK;
}

int main(void)
{
    CHECK_EQ(zn_exec_init(2), 0);
    char path[] = "/tmp/zn_assert_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    fflush(stderr);
    int saved = dup(2);
    CHECK(dup2(fd, 2) == 2);
    zn_launch l = test_launch(k_assert, 3, 1, 1, 16, 4, 1, NULL); /* 64 threads */
    int st = zn_exec_launch(&l);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    CHECK_EQ(st, ZN_KSTATUS_ASSERT);
    char text[512] = {0};
    CHECK(pread(fd, text, sizeof text - 1, 0) > 0);
    close(fd);
    unlink(path);
    /* thread 32 + 5 = 37 of a 16x4 block is (5, 2, 0) */
    const char *want = "kernel.cu:42: void k(int *): block: [1,0,0], thread: [5,2,0] "
                       "Assertion `x == 0` failed.\n";
    if (strcmp(text, want) != 0) {
        fprintf(stderr, "assert message: got \"%s\"\n", text);
        return 1;
    }
    /* the next launch is clean */
    l.fn = k_services;
    uint64_t *out = zn_mem_alloc(3 * sizeof *out, 0, ZN_MEM_DEVICE);
    struct { uint64_t *out; } p = {out};
    l.params = &p;
    l.grid[0] = 1;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t before = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
    CHECK_EQ(zn_exec_launch(&l), ZN_KSTATUS_OK);
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t after = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
    CHECK_EQ(out[0], 1);
    CHECK(out[1] >= before && out[1] <= after);
    CHECK_EQ(out[2], 1);
    CHECK_EQ(zn_mem_free(out), 0);
    printf("assert: ok\n");
    return 0;
}
