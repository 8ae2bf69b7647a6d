/* zn_exec_fault.c: a fault inside a kernel fails the launch, not the
 * process.
 *
 * While a worker runs kernel code it has a jump buffer armed in a
 * thread-local; the SIGSEGV/SIGBUS handler jumps back to it and the launch
 * ends with ZN_KSTATUS_ILLEGAL_ADDRESS (CUDA_ERROR_ILLEGAL_ADDRESS). Any
 * other fault goes to the handler that was there before ours (or the
 * default action). Handlers run on an alternate signal stack so that a warp
 * running off its fiber stack is caught too.
 *
 * Off in AddressSanitizer builds (ASan reports the fault itself, and a jump
 * out of a fiber would confuse its stack bookkeeping) and with
 * ZINC_CATCH_FAULTS=0.
 */
#include "zn_exec_internal.h"
#include "util/zn_log.h"

#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "util/zn_sanitizer.h"
#ifdef ZN_TSAN
#include <sanitizer/tsan_interface.h>
/* TSan runs handlers with every signal blocked (its wrapper fills
 * sa_mask, whatever SA_NODEFER says): the jump must restore the mask, or
 * SIGSEGV stays blocked and the next kernel fault kills the process. */
#define ZN_FAULT_SAVEMASK 1
#else
#define ZN_FAULT_SAVEMASK 0
#endif

typedef struct fault_frame {
    sigjmp_buf jb;
    void *addr;
#ifdef ZN_TSAN
    void *tsan;     /* the TSan fiber (thread) that armed jb */
#endif
} fault_frame;

static pthread_once_t fault_once = PTHREAD_ONCE_INIT;
static int fault_on;
static struct sigaction old_segv, old_bus;
/* Touched before a handler can run: the first access to a TLS variable of
 * a dlopen'ed library may allocate, which a signal handler must not do. */
static __thread fault_frame *tls_frame;
static __thread int tls_altstack_done;

static void fault_handler(int sig, siginfo_t *si, void *uc)
{
    fault_frame *f = tls_frame;
    if (f) {
        tls_frame = NULL;
        f->addr = si->si_addr;
#ifdef ZN_TSAN
        /* A warp's fault is on its fiber, a TSan fiber of its own (zn_fiber.c),
         * and TSan finds the jump buffer among those of the fiber that
         * armed it (else "can't find longjmp buf" and a crash): go back to
         * that one first, synchronising as every fiber switch does (what
         * the warps did happens before what the worker does next). The
         * warp's fiber is dropped after the fault. */
        if (__tsan_get_current_fiber() != f->tsan)
            __tsan_switch_to_fiber(f->tsan, 0);
#endif
        siglongjmp(f->jb, sig);
    }
    /* not a kernel's fault: hand it on */
    struct sigaction *old = sig == SIGSEGV ? &old_segv : &old_bus;
    if (old->sa_flags & SA_SIGINFO) {
        old->sa_sigaction(sig, si, uc);
    } else if (old->sa_handler == SIG_DFL || old->sa_handler == SIG_IGN) {
        sigaction(sig, old, NULL);      /* the access faults again, fatally */
    } else {
        old->sa_handler(sig);
    }
}

static void fault_install(void)
{
#ifdef ZN_ASAN
    (void)fault_handler;
    return;
#else
    const char *s = getenv("ZINC_CATCH_FAULTS");
    if (s && s[0] == '0')
        return;
    struct sigaction sa = {0};
    sa.sa_sigaction = fault_handler;
    /* SA_NODEFER: the jump leaves the handler, so the signal must not stay
     * blocked (and sigsetjmp need not save the mask, a syscall) */
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGSEGV, &sa, &old_segv) != 0 || sigaction(SIGBUS, &sa, &old_bus) != 0) {
        zn_log(ZN_LOG_WARN, "cannot install fault handlers: kernel faults will be fatal");
        return;
    }
    fault_on = 1;
#endif
}

void zn_fault_init(void)
{
    pthread_once(&fault_once, fault_install);
}

int zn_fault_enabled(void)
{
    zn_fault_init();
    return fault_on;
}

/* An alternate signal stack for this thread unless it has one already. */
static void fault_thread_init(void)
{
    tls_altstack_done = 1;
    stack_t ss;
    if (sigaltstack(NULL, &ss) == 0 && !(ss.ss_flags & SS_DISABLE))
        return;
    size_t size = 64 << 10;
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return;
    ss.ss_sp = p;
    ss.ss_size = size;
    ss.ss_flags = 0;
    if (sigaltstack(&ss, NULL) != 0)
        munmap(p, size);
    /* kept for the thread's life (a few per process) */
}

int zn_fault_guard(void (*fn)(void *), void *arg, void **addr)
{
    if (!zn_fault_enabled()) {
        fn(arg);
        return 0;
    }
    if (!tls_altstack_done)
        fault_thread_init();
    fault_frame f;
#ifdef ZN_TSAN
    f.tsan = __tsan_get_current_fiber();
#endif
    fault_frame *volatile prev = tls_frame;
    int sig = sigsetjmp(f.jb, ZN_FAULT_SAVEMASK);
    if (sig == 0) {
        tls_frame = &f;
        fn(arg);
        tls_frame = prev;
        return 0;
    }
    tls_frame = prev;
    *addr = f.addr;
    return sig;
}
