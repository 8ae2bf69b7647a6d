/* test_exec_fiber.c: the context switch on its own: ping-pong between the
 * thread and two fibers, values kept across switches, deep stacks, and
 * the floating-point control state, which is the thread's: the switch
 * does not save it (compiled kernels never change it; the executor sets
 * it around the blocks a worker runs, test_exec_fpenv.c). */
#include "exec_test.h"
#include "zn_fiber.h"

#include <fenv.h>

static zn_fiber native, fa, fb;
static int trace[64];
static int ntrace;

/* Fiber A: records 1,3,5 while B records 2,4,6; locals survive switches. */
static void fiber_a(void *arg)
{
    volatile int local = *(int *)arg;
    for (int i = 0; i < 3; i++) {
        trace[ntrace++] = local + 2 * i;
        zn_fiber_switch(&fa, &fb);
    }
    CHECK_EQ(local, 1);
    zn_fiber_switch(&fa, &native);
    for (;;)
        zn_fiber_switch(&fa, &native);
}

static void fiber_b(void *arg)
{
    volatile int local = *(int *)arg;
    for (int i = 0; i < 3; i++) {
        trace[ntrace++] = local + 2 * i;
        zn_fiber_switch(&fb, &fa);
    }
    for (;;)
        zn_fiber_switch(&fb, &native);
}

/* Uses most of a 1 MiB stack, then reports its rounding mode. */
static volatile int deep_mode;
static volatile unsigned deep_sum;
static void fiber_deep(void *arg)
{
    zn_fiber *self = arg;
    for (;;) {
        volatile unsigned char big[768 << 10];
        memset((void *)big, 3, sizeof big);
        unsigned s = 0;
        for (size_t i = 0; i < sizeof big; i += 4096)
            s += big[i];
        deep_sum = s;
        deep_mode = fegetround();
        fesetround(FE_DOWNWARD);    /* the thread's mode, not the fiber's */
        zn_fiber_switch(self, &native);
    }
}

int main(void)
{
    zn_fiber_init_native(&native);
    int one = 1, two = 2;
    CHECK(zn_fiber_create(&fa, 64 << 10, fiber_a, &one) == 0);
    CHECK(zn_fiber_create(&fb, 64 << 10, fiber_b, &two) == 0);
    zn_fiber_switch(&native, &fa);
    CHECK_EQ(ntrace, 6);
    for (int i = 0; i < 6; i++)
        CHECK_EQ(trace[i], i + 1);

    zn_fiber deep;
    CHECK(zn_fiber_create(&deep, 1 << 20, fiber_deep, &deep) == 0);
    for (int round = 0; round < 3; round++) {
        int mode = round == 1 ? FE_TONEAREST : FE_UPWARD;
        fesetround(mode);
        zn_fiber_switch(&native, &deep);
        /* the fiber ran in the thread's mode and its change stays */
        CHECK_EQ(deep_mode, mode);
        CHECK_EQ(fegetround(), FE_DOWNWARD);
        CHECK_EQ(deep_sum, 3u * ((768 << 10) / 4096));
    }
    fesetround(FE_TONEAREST);

    /* many fibers created and destroyed: no leak of mappings */
    for (int i = 0; i < 2000; i++) {
        zn_fiber f;
        CHECK(zn_fiber_create(&f, 1 << 20, fiber_deep, &f) == 0);
        zn_fiber_destroy(&f);
    }
    zn_fiber_destroy(&fa);
    zn_fiber_destroy(&fb);
    zn_fiber_destroy(&deep);
    printf("fiber: ok\n");
    return 0;
}
