/* zn_fiber.c: fiber stacks and the portable half of the context switch. */
#include "zn_fiber.h"
#include "util/zn_log.h"

#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "util/zn_sanitizer.h"
#ifdef ZN_ASAN
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif
#ifdef ZN_TSAN
/* TSan keeps a shadow call stack and clock per thread: a stack switch it
 * is not told about corrupts them, so each fiber is a TSan fiber too. */
#include <sanitizer/tsan_interface.h>
#endif

/* zn_fiber_<arch>.S */
void zn_fiber_swap(void **save_sp, void *new_sp);
void zn_fiber_start(void);

/* Tells ASan which stack is now running; records the bounds of the one we
 * came from (the only way to learn a native thread stack's bounds). */
static void fiber_finish_switch(zn_fiber *self, void *fake)
{
#ifdef ZN_ASAN
    zn_fiber *prev = self->resumed_from;
    __sanitizer_finish_switch_fiber(fake, &prev->stack_lo, &prev->stack_size);
#else
    (void)self;
    (void)fake;
#endif
}

static void fiber_entry(zn_fiber *f)
{
    fiber_finish_switch(f, NULL);
    f->fn(f->arg);
    zn_die("fiber function returned");
}

void zn_fiber_init_native(zn_fiber *f)
{
    memset(f, 0, sizeof *f);
}

/* Lays out the frame zn_fiber_swap pops, so the first switch "returns"
 * into zn_fiber_start with the entry and its argument in callee-saved
 * registers. */
static void *fiber_initial_frame(uint8_t *top, zn_fiber *f)
{
#if defined(__x86_64__)
    uint64_t *ret = (uint64_t *)(top - 24); /* rsp = top-16 after ret */
    uint64_t *sp = ret - 6;
    memset(sp, 0, (size_t)(top - (uint8_t *)sp));
    ret[0] = (uint64_t)(uintptr_t)zn_fiber_start;
    ret[-1] = 0;                              /* rbp: ends frame chains */
    ret[-2] = 0;                              /* rbx */
    ret[-3] = (uint64_t)(uintptr_t)fiber_entry; /* r12 */
    ret[-4] = (uint64_t)(uintptr_t)f;         /* r13 */
    return sp;
#elif defined(__aarch64__)
    uint64_t *sp = (uint64_t *)(top - 176);
    memset(sp, 0, 176);
    sp[0] = (uint64_t)(uintptr_t)fiber_entry; /* x19 */
    sp[1] = (uint64_t)(uintptr_t)f;           /* x20 */
    sp[10] = 0;                               /* x29 */
    sp[11] = (uint64_t)(uintptr_t)zn_fiber_start; /* x30 */
    return sp;
#else
#error "zn_fiber: unsupported architecture"
#endif
}

/* Below each stack: a PROT_NONE guard, larger than one page so that a
 * frame bigger than a page still lands in it when the stack overflows. */
#define ZN_FIBER_GUARD ((size_t)64 << 10)

/* Stack colouring: every stack top is page aligned, so without an offset
 * the hot frames of all fibers (the warp function's spill slots, the
 * switch frame) sit at the same page offsets and compete for the same L1
 * sets; with 8-32 warps per block that evicts each other on every switch.
 * Successive fibers start ZN_FIBER_COLOUR bytes apart, cycling through a
 * page. */
#define ZN_FIBER_COLOUR 320u
#define ZN_FIBER_COLOURS 12u
static _Atomic unsigned fiber_colour_next;

int zn_fiber_create(zn_fiber *f, size_t stack_bytes, zn_fiber_fn fn, void *arg)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t colour = (size_t)(atomic_fetch_add_explicit(&fiber_colour_next, 1, memory_order_relaxed) %
                             ZN_FIBER_COLOURS) * ZN_FIBER_COLOUR;
    stack_bytes += colour;
    size_t usable = (stack_bytes + page - 1) / page * page;
    if (usable < 4 * page)
        usable = 4 * page;
    size_t guard = (ZN_FIBER_GUARD + page - 1) / page * page;
    memset(f, 0, sizeof *f);
    void *map = mmap(NULL, guard + usable, PROT_NONE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
    if (map == MAP_FAILED)
        return -1;
    if (mprotect((uint8_t *)map + guard, usable, PROT_READ | PROT_WRITE) != 0) {
        munmap(map, guard + usable);
        return -1;
    }
    f->map = map;
    f->map_size = guard + usable;
    f->fn = fn;
    f->arg = arg;
    f->stack_lo = (uint8_t *)map + guard;
    f->stack_size = usable;
    f->sp = fiber_initial_frame((uint8_t *)map + f->map_size - colour, f);
#ifdef ZN_TSAN
    f->tsan = __tsan_create_fiber(0);
#endif
    return 0;
}

void zn_fiber_destroy(zn_fiber *f)
{
#ifdef ZN_ASAN
    /* a suspended fiber's frames leave poisoned shadow behind, which would
     * fire falsely on whatever is mapped here next */
    if (f->map)
        ASAN_UNPOISON_MEMORY_REGION(f->stack_lo, f->stack_size);
#endif
#ifdef ZN_TSAN
    if (f->map && f->tsan)
        __tsan_destroy_fiber(f->tsan);
#endif
    if (f->map)
        munmap(f->map, f->map_size);
    memset(f, 0, sizeof *f);
}

void zn_fiber_switch(zn_fiber *from, zn_fiber *to)
{
    to->resumed_from = from;
    void *fake = NULL;
#ifdef ZN_ASAN
    __sanitizer_start_switch_fiber(&fake, to->stack_lo, to->stack_size);
#endif
#ifdef ZN_TSAN
    /* a native fiber is whichever thread runs it (worker 0 is the caller's
     * thread): it learns its TSan fiber each time it is left */
    if (!from->map)
        from->tsan = __tsan_get_current_fiber();
    __tsan_switch_to_fiber(to->tsan, 0);
#endif
    zn_fiber_swap(&from->sp, to->sp);
    fiber_finish_switch(from, fake);
}
