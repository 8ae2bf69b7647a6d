/* zn_fiber.h: user-level contexts (fibers) for warps that meet barriers.
 *
 * A fiber is a stack (mmap, with a PROT_NONE guard below it) and the
 * stack pointer it was suspended at. zn_fiber_switch saves the callee-saved
 * registers and the floating-point control words of the running context and
 * resumes another; everything else is saved by the C calling convention.
 * A thread's own stack is a fiber too (zn_fiber_init_native), so a worker
 * can switch into warps and back.
 *
 * Fiber functions never return: they switch away for the last time (the
 * executor's fibers loop forever, taking a new warp each time they are
 * resumed), which keeps their stacks consistent for AddressSanitizer.
 */
#ifndef ZN_FIBER_H
#define ZN_FIBER_H

#include <stddef.h>

typedef void (*zn_fiber_fn)(void *arg);

typedef struct zn_fiber zn_fiber;
struct zn_fiber {
    void *sp;               /* saved stack pointer while suspended */
    void *map;              /* mmap base (guard first); NULL: native */
    size_t map_size;
    zn_fiber_fn fn;
    void *arg;
    /* AddressSanitizer bookkeeping: this fiber's stack bounds and the
     * context that last switched to it. */
    const void *stack_lo;
    size_t stack_size;
    zn_fiber *resumed_from;
    /* ThreadSanitizer's fiber (__tsan_create_fiber); NULL without TSan */
    void *tsan;
};

/* A fiber for the calling thread's own stack; it is only ever switched
 * away from first. */
void zn_fiber_init_native(zn_fiber *f);
/* A new suspended fiber that will run fn(arg) when first switched to.
 * stack_bytes is rounded up to pages; a 64 KiB PROT_NONE guard lies below.
 * 0 on success, -1 if mmap fails. */
int zn_fiber_create(zn_fiber *f, size_t stack_bytes, zn_fiber_fn fn, void *arg);
void zn_fiber_destroy(zn_fiber *f);
/* Suspends `from` (the running context) and resumes `to`; returns when
 * something switches back to `from`. */
void zn_fiber_switch(zn_fiber *from, zn_fiber *to);

#endif
