/* test_exec_stack.c: kernels that ask for a large stack (stack_bytes)
 * get it, with and without barriers: each warp fills most of a 1.5 MiB
 * local array and derives its output from it. */
#include "exec_test.h"

enum { BIG = 1536 << 10 };

static uint32_t big_sum(const zn_warp_ctx *w)
{
    volatile uint8_t big[BIG];
    for (size_t i = 0; i < BIG; i += 512)
        big[i] = (uint8_t)(i / 512 + w->warpid);
    uint32_t s = 0;
    for (size_t i = 0; i < BIG; i += 512)
        s += big[i];
    return s;
}

/* params: uint32_t *out */
static int32_t k_big(zn_warp_ctx *w)
{
    uint32_t *out = TEST_PARAM(w, uint32_t *, 0);
    uint32_t s = big_sum(w);
    if (w->block->ntid[1] == 2)         /* the barrier variant */
        w->rt->barrier(w, 0, 0, 0);
    out[test_block_linear(w->block) * 4 + w->warpid] = s;
    return ZN_KSTATUS_OK;
}

static void check(int barrier)
{
    uint32_t nb = 6;
    uint32_t *out = zn_mem_alloc(nb * 4 * 4, 0, ZN_MEM_DEVICE);
    CHECK(out);
    memset(out, 0, nb * 16);
    struct { uint32_t *out; } p = {out};
    zn_launch l = test_launch(k_big, nb, 1, 1, 64, barrier ? 2 : 1, barrier ? 1 : 2, &p);
    l.uses_barrier = barrier;
    l.stack_bytes = BIG + (128 << 10);
    CHECK_EQ(zn_exec_launch(&l), ZN_KSTATUS_OK);
    for (uint32_t b = 0; b < nb; b++)
        for (uint32_t wi = 0; wi < 4; wi++) {
            uint32_t ref = 0;
            for (size_t i = 0; i < BIG; i += 512)
                ref += (uint8_t)(i / 512 + wi);
            CHECK_EQ(out[b * 4 + wi], ref);
        }
    CHECK_EQ(zn_mem_free(out), 0);
}

static int32_t k_bar(zn_warp_ctx *w)
{
    w->rt->barrier(w, 0, 0, 0);
    return ZN_KSTATUS_OK;
}

int main(void)
{
    CHECK_EQ(zn_exec_init(2), 0);
    /* fibers made with the default stack first, so the big launches must
     * replace them (suspended) with larger ones */
    zn_launch l = test_launch(k_bar, 8, 1, 1, 256, 1, 1, NULL);
    l.uses_barrier = 1;
    CHECK_EQ(zn_exec_launch(&l), ZN_KSTATUS_OK);
    check(0);
    check(1);
    printf("stack: ok\n");
    return 0;
}
