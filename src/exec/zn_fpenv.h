/* zn_fpenv.h: the floating-point environment compiled kernels run in.
 *
 * PTX's default float operations round to nearest and keep subnormals;
 * compiled code relies on the CPU's control register for that and never
 * changes it. A worker sets the default around the blocks it runs and
 * puts the host thread's own setting back afterwards, so a host that runs
 * with flush-to-zero or another rounding mode (-ffast-math's
 * crtfastmath.o, fesetround) does not change kernel results, and the
 * fiber switch need not save the register per warp (zn_fiber_x86_64.S).
 */
#ifndef ZN_FPENV_H
#define ZN_FPENV_H

#include <stdint.h>

typedef struct zn_fpenv {
    uint32_t a;     /* mxcsr / fpcr */
    uint16_t b;     /* x87 control word */
} zn_fpenv;

static inline zn_fpenv zn_fpenv_enter_kernel(void)
{
    zn_fpenv old = {0, 0};
#if defined(__x86_64__)
    __asm__ volatile("stmxcsr %0" : "=m"(old.a));
    __asm__ volatile("fnstcw %0" : "=m"(old.b));
    uint32_t m = 0x1F80;    /* all exceptions masked, nearest, no FTZ/DAZ */
    uint16_t c = 0x037F;    /* x87: masked, nearest, 64-bit precision */
    if (old.a != m)
        __asm__ volatile("ldmxcsr %0" : : "m"(m));
    if (old.b != c)
        __asm__ volatile("fldcw %0" : : "m"(c));
#elif defined(__aarch64__)
    uint64_t r;
    __asm__ volatile("mrs %0, fpcr" : "=r"(r));
    old.a = (uint32_t)r;
    if (r != 0)
        __asm__ volatile("msr fpcr, %0" : : "r"((uint64_t)0));
#endif
    return old;
}

static inline void zn_fpenv_leave_kernel(zn_fpenv old)
{
#if defined(__x86_64__)
    uint32_t m;
    uint16_t c;
    __asm__ volatile("stmxcsr %0" : "=m"(m));
    __asm__ volatile("fnstcw %0" : "=m"(c));
    if (m != old.a)
        __asm__ volatile("ldmxcsr %0" : : "m"(old.a));
    if (c != old.b)
        __asm__ volatile("fldcw %0" : : "m"(old.b));
#elif defined(__aarch64__)
    uint64_t r;
    __asm__ volatile("mrs %0, fpcr" : "=r"(r));
    if (r != old.a)
        __asm__ volatile("msr fpcr, %0" : : "r"((uint64_t)old.a));
#endif
}

#endif
